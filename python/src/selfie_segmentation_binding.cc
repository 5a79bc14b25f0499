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
#include "solution_binding.h"
#include "solutions/selfie_segmentation/selfie_segmenter.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

struct SelfieSegmentationTraits {
  using Solution = SelfieSegmenter;
  using Options = SelfieSegmenterOptions;
  using Result = SegmentationResult;
  static constexpr char kName[] = "SelfieSegmentation";
  static absl::Status Validate(const Options& o) { return ValidateSelfieSegmenterOptions(o); }
  // The H x W float32 mask (P(person)), or None when the graph gave none.
  static py::object ToPython(Result r) {
    if (r.mask == nullptr) return py::none();
    if (r.mask->Format() != ImageFormat::VEC32F1) {
      throw std::runtime_error("SelfieSegmentation: the graph's mask is not VEC32F1");
    }
    return ArrayView(std::move(r.mask));
  }
};
using PySelfieSegmenter = PySolution<SelfieSegmentationTraits>;

}  // namespace

void InitSelfieSegmentation(py::module_& m) {
  py::class_<PySelfieSegmenter> cls(m, "SelfieSegmenter",
                                    "solutions/selfie_segmentation SelfieSegmenter (internal).");
  cls.def(py::init([](int model_selection, const std::string& device) {
            SelfieSegmenterOptions o;
            o.model_selection = model_selection;
            o.device = device;
            return std::make_unique<PySelfieSegmenter>(o);
          }),
          py::arg("model_selection"), py::arg("device"));
  PySelfieSegmenter::DefineMethods(cls);
}

}  // namespace sluice::python
