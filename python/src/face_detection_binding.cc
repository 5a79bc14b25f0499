// solutions/face_detection FaceDetector for
// sluice.solutions.face_detection.FaceDetection. Detections cross as
// serialized mediapipe.Detection protos; Python parses them into messages.
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "solution_binding.h"
#include "solutions/face_detection/face_detector.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

struct FaceDetectionTraits {
  using Solution = FaceDetector;
  using Options = FaceDetectorOptions;
  using Result = FaceDetectionResult;
  static constexpr char kName[] = "FaceDetection";
  static absl::Status Validate(const Options& o) { return ValidateFaceDetectorOptions(o); }
  // [serialized mediapipe.Detection], in the graph's output order.
  static py::object ToPython(Result r) {
    py::list out;
    for (const DetectedFace& face : r.faces) {
      out.append(py::bytes(face.detection.SerializeAsString()));
    }
    return std::move(out);
  }
};
using PyFaceDetector = PySolution<FaceDetectionTraits>;

}  // namespace

void InitFaceDetection(py::module_& m) {
  py::class_<PyFaceDetector> cls(m, "FaceDetector",
                                 "solutions/face_detection FaceDetector (internal).");
  cls.def(py::init([](int model_selection, std::optional<float> min_detection_confidence,
                      const std::string& device) {
            FaceDetectorOptions o;
            o.model_selection = model_selection;
            o.min_detection_confidence = min_detection_confidence;
            o.device = device;
            return std::make_unique<PyFaceDetector>(o);
          }),
          py::arg("model_selection"), py::arg("min_detection_confidence"), py::arg("device"));
  PyFaceDetector::DefineMethods(cls);
}

}  // namespace sluice::python
