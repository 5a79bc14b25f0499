// solutions/hands HandTracker for sluice.solutions.hands.Hands. Results cross
// as serialized protos; the Python side parses them into Python messages.
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "formats/image_frame.h"
#include "image_util.h"
#include "solutions/hands/hand_tracker.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

class PyHandTracker {
 public:
  explicit PyHandTracker(const HandTrackerOptions& options) {
    RaiseIfError(ValidateHandTrackerOptions(options));
    absl::StatusOr<std::unique_ptr<HandTracker>> t;
    {
      py::gil_scoped_release release;  // loads models
      t = HandTracker::Create(options);
    }
    tracker_ = ValueOrRaise(std::move(t));
  }
  ~PyHandTracker() { Close(); }

  void Close() {
    py::gil_scoped_release release;
    tracker_.reset();
  }

  // [(landmarks, world_landmarks, handedness)] as serialized
  // NormalizedLandmarkList, LandmarkList, ClassificationList.
  py::list Process(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    CheckImage(image);
    // Borrow the caller's pixels (the tracker copies the frame into its graph).
    py::array packed = py::array::ensure(image, py::array::c_style);
    auto* pixels = static_cast<uint8_t*>(const_cast<void*>(packed.data()));
    const int h = static_cast<int>(packed.shape(0));
    const int w = static_cast<int>(packed.shape(1));
    ImageFrame frame = ValueOrRaise(
        ImageFrame::Adopt(ImageFormat::SRGB, w, h, w * 3, pixels, [](uint8_t*) {}));
    absl::StatusOr<HandTrackingResult> result;
    {
      py::gil_scoped_release release;
      result = tracker_->Process(frame, timestamp_us);
    }
    return ToPython(ValueOrRaise(std::move(result)));
  }

  // Pipelined use: Send() a copy of the frame (blocks while the tracker's
  // max_in_flight frames are in the graph), Next() the oldest result.
  void Send(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    CheckImage(image);
    ImageFrame frame = FrameFromArray(image, ImageFormat::SRGB);
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = tracker_->Send(std::move(frame), timestamp_us);
    }
    RaiseIfError(s);
  }

  py::list Next() {
    CheckOpen();
    HandTrackingResult r;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = tracker_->Next(&r);
    }
    if (!ok) {
      absl::Status s = tracker_->status();
      RaiseIfError(s.ok() ? absl::InternalError("hand tracking graph stopped") : s);
    }
    return ToPython(r);
  }

 private:
  void CheckOpen() const {
    if (tracker_ == nullptr) throw std::runtime_error("Hands: the tracker is closed");
  }

  static void CheckImage(const py::array& image) {
    if (!image.dtype().equal(py::dtype::of<uint8_t>()) || image.ndim() != 3 ||
        image.shape(2) != 3 || image.shape(0) < 1 || image.shape(1) < 1) {
      throw py::value_error("Hands.process: expected an RGB image as a numpy uint8 array of "
                            "shape (height, width, 3)");
    }
  }

  static py::list ToPython(const HandTrackingResult& r) {
    py::list hands;
    for (const TrackedHand& hand : r.hands) {
      hands.append(py::make_tuple(py::bytes(hand.landmarks.SerializeAsString()),
                                  py::bytes(hand.world_landmarks.SerializeAsString()),
                                  py::bytes(hand.handedness_classes.SerializeAsString())));
    }
    return hands;
  }

  std::unique_ptr<HandTracker> tracker_;
};

}  // namespace

void InitHands(py::module_& m) {
  py::class_<PyHandTracker>(m, "HandTracker", "solutions/hands HandTracker (internal).")
      .def(py::init([](bool static_image_mode, int max_num_hands, int model_complexity,
                       float min_detection_confidence, float min_tracking_confidence,
                       const std::string& device, bool speculative_palm_detection) {
             HandTrackerOptions o;
             o.static_image_mode = static_image_mode;
             o.max_num_hands = max_num_hands;
             o.model_complexity = model_complexity;
             o.min_detection_confidence = min_detection_confidence;
             o.min_tracking_confidence = min_tracking_confidence;
             o.device = device;
             o.speculative_palm_detection = speculative_palm_detection;
             return std::make_unique<PyHandTracker>(o);
           }),
           py::arg("static_image_mode"), py::arg("max_num_hands"), py::arg("model_complexity"),
           py::arg("min_detection_confidence"), py::arg("min_tracking_confidence"),
           py::arg("device"), py::arg("speculative_palm_detection") = true)
      .def("process", &PyHandTracker::Process, py::arg("image"), py::arg("timestamp_us"))
      .def("send", &PyHandTracker::Send, py::arg("image"), py::arg("timestamp_us"))
      .def("next", &PyHandTracker::Next)
      .def("close", &PyHandTracker::Close);
}

}  // namespace sluice::python
