// solutions/selfie_segmentation SelfieSegmenter for
// sluice.solutions.selfie_segmentation.SelfieSegmentation. The mask crosses
// as a read-only float32 numpy view of the graph's frame (no copy; the view
// keeps the frame alive), as MediaPipe's numpy_view() does.
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "image_util.h"
#include "solution_util.h"
#include "solutions/selfie_segmentation/selfie_segmenter.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

class PySelfieSegmenter {
 public:
  explicit PySelfieSegmenter(const SelfieSegmenterOptions& options) {
    RaiseIfError(ValidateSelfieSegmenterOptions(options));
    absl::StatusOr<std::unique_ptr<SelfieSegmenter>> s;
    {
      py::gil_scoped_release release;  // loads the model
      s = SelfieSegmenter::Create(options);
    }
    segmenter_ = ValueOrRaise(std::move(s));
  }
  ~PySelfieSegmenter() { Close(); }

  void Close() {
    py::gil_scoped_release release;
    segmenter_.reset();
  }

  // The H x W float32 mask (P(person)), or None when the graph gave none.
  py::object Process(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    RgbFrameView view("SelfieSegmentation.process", image);
    absl::StatusOr<SegmentationResult> result;
    {
      py::gil_scoped_release release;
      result = segmenter_->Process(view.frame(), timestamp_us);
    }
    return ToPython(ValueOrRaise(std::move(result)));
  }

  // Pipelined use: Send() a copy of the frame (blocks while max_in_flight
  // frames are in the graph), Next() the oldest frame's result.
  void Send(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    CheckRgbImage("SelfieSegmentation.process_stream", image);
    ImageFrame frame = FrameFromArray(image, ImageFormat::SRGB);
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = segmenter_->Send(std::move(frame), timestamp_us);
    }
    RaiseIfError(s);
  }

  py::object Next() {
    CheckOpen();
    SegmentationResult r;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = segmenter_->Next(&r);
    }
    if (!ok) {
      absl::Status s = segmenter_->status();
      RaiseIfError(s.ok() ? absl::InternalError("selfie segmentation graph stopped") : s);
    }
    return ToPython(std::move(r));
  }

 private:
  void CheckOpen() const {
    if (segmenter_ == nullptr) throw std::runtime_error("SelfieSegmentation: the graph is closed");
  }

  static py::object ToPython(SegmentationResult r) {
    if (r.mask == nullptr) return py::none();
    if (r.mask->Format() != ImageFormat::VEC32F1) {
      throw std::runtime_error("SelfieSegmentation: the graph's mask is not VEC32F1");
    }
    return ArrayView(std::move(r.mask));
  }

  std::unique_ptr<SelfieSegmenter> segmenter_;
};

}  // namespace

void InitSelfieSegmentation(py::module_& m) {
  py::class_<PySelfieSegmenter>(m, "SelfieSegmenter",
                                "solutions/selfie_segmentation SelfieSegmenter (internal).")
      .def(py::init([](int model_selection, const std::string& device) {
             SelfieSegmenterOptions o;
             o.model_selection = model_selection;
             o.device = device;
             return std::make_unique<PySelfieSegmenter>(o);
           }),
           py::arg("model_selection"), py::arg("device"))
      .def("process", &PySelfieSegmenter::Process, py::arg("image"), py::arg("timestamp_us"))
      .def("send", &PySelfieSegmenter::Send, py::arg("image"), py::arg("timestamp_us"))
      .def("next", &PySelfieSegmenter::Next)
      .def("close", &PySelfieSegmenter::Close);
}

}  // namespace sluice::python
