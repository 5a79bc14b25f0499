// solutions/face_detection FaceDetector for
// sluice.solutions.face_detection.FaceDetection. Detections cross as
// serialized mediapipe.Detection protos; Python parses them into messages.
#include <memory>
#include <optional>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "image_util.h"
#include "solution_util.h"
#include "solutions/face_detection/face_detector.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

class PyFaceDetector {
 public:
  explicit PyFaceDetector(const FaceDetectorOptions& options) {
    RaiseIfError(ValidateFaceDetectorOptions(options));
    absl::StatusOr<std::unique_ptr<FaceDetector>> d;
    {
      py::gil_scoped_release release;  // loads the model
      d = FaceDetector::Create(options);
    }
    detector_ = ValueOrRaise(std::move(d));
  }
  ~PyFaceDetector() { Close(); }

  void Close() {
    py::gil_scoped_release release;
    detector_.reset();
  }

  // [serialized mediapipe.Detection], in the graph's output order.
  py::list Process(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    RgbFrameView view("FaceDetection.process", image);
    absl::StatusOr<FaceDetectionResult> result;
    {
      py::gil_scoped_release release;
      result = detector_->Process(view.frame(), timestamp_us);
    }
    return ToPython(ValueOrRaise(std::move(result)));
  }

  // Pipelined use: Send() a copy of the frame (blocks while max_in_flight
  // frames are in the graph), Next() the oldest frame's result.
  void Send(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    CheckRgbImage("FaceDetection.process_stream", image);
    ImageFrame frame = FrameFromArray(image, ImageFormat::SRGB);
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = detector_->Send(std::move(frame), timestamp_us);
    }
    RaiseIfError(s);
  }

  py::list Next() {
    CheckOpen();
    FaceDetectionResult r;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = detector_->Next(&r);
    }
    if (!ok) {
      absl::Status s = detector_->status();
      RaiseIfError(s.ok() ? absl::InternalError("face detection graph stopped") : s);
    }
    return ToPython(std::move(r));
  }

 private:
  void CheckOpen() const {
    if (detector_ == nullptr) throw std::runtime_error("FaceDetection: the graph is closed");
  }

  static py::list ToPython(const FaceDetectionResult& r) {
    py::list out;
    for (const DetectedFace& face : r.faces) {
      out.append(py::bytes(face.detection.SerializeAsString()));
    }
    return out;
  }

  std::unique_ptr<FaceDetector> detector_;
};

}  // namespace

void InitFaceDetection(py::module_& m) {
  py::class_<PyFaceDetector>(m, "FaceDetector",
                             "solutions/face_detection FaceDetector (internal).")
      .def(py::init([](int model_selection, std::optional<float> min_detection_confidence,
                       const std::string& device) {
             FaceDetectorOptions o;
             o.model_selection = model_selection;
             o.min_detection_confidence = min_detection_confidence;
             o.device = device;
             return std::make_unique<PyFaceDetector>(o);
           }),
           py::arg("model_selection"), py::arg("min_detection_confidence"), py::arg("device"))
      .def("process", &PyFaceDetector::Process, py::arg("image"), py::arg("timestamp_us"))
      .def("send", &PyFaceDetector::Send, py::arg("image"), py::arg("timestamp_us"))
      .def("next", &PyFaceDetector::Next)
      .def("close", &PyFaceDetector::Close);
}

}  // namespace sluice::python
