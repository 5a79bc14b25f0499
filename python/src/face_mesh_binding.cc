// solutions/face_mesh FaceMesh for sluice.solutions.face_mesh.FaceMesh, and
// render/face_mesh_connections' topology for its FACEMESH_* sets (one list
// of pairs for C++ drawing and Python). Landmarks cross as serialized
// mediapipe.NormalizedLandmarkList protos.
#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "absl/types/span.h"
#include "bindings.h"
#include "render/face_mesh_connections.h"
#include "solution_binding.h"
#include "solutions/face_mesh/face_mesh.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

struct FaceMeshTraits {
  using Solution = FaceMesh;
  using Options = FaceMeshOptions;
  using Result = FaceMeshResult;
  static constexpr char kName[] = "FaceMesh";
  static absl::Status Validate(const Options& o) { return ValidateFaceMeshOptions(o); }
  // [serialized mediapipe.NormalizedLandmarkList], one per face.
  static py::object ToPython(Result r) {
    py::list out;
    for (const MeshFace& face : r.faces) {
      out.append(py::bytes(face.landmarks.SerializeAsString()));
    }
    return std::move(out);
  }
};
using PyFaceMesh = PySolution<FaceMeshTraits>;

py::list Pairs(absl::Span<const Connection> connections) {
  py::list out;
  for (const Connection& c : connections) out.append(py::make_tuple(c.first, c.second));
  return out;
}

}  // namespace

void InitFaceMesh(py::module_& m) {
  py::class_<PyFaceMesh> cls(m, "FaceMesh", "solutions/face_mesh FaceMesh (internal).");
  cls.def(py::init([](bool static_image_mode, int max_num_faces, bool refine_landmarks,
                      float min_detection_confidence, float min_tracking_confidence,
                      const std::string& device) {
            FaceMeshOptions o;
            o.static_image_mode = static_image_mode;
            o.max_num_faces = max_num_faces;
            o.refine_landmarks = refine_landmarks;
            o.min_detection_confidence = min_detection_confidence;
            o.min_tracking_confidence = min_tracking_confidence;
            o.device = device;
            return std::make_unique<PyFaceMesh>(o);
          }),
          py::arg("static_image_mode"), py::arg("max_num_faces"), py::arg("refine_landmarks"),
          py::arg("min_detection_confidence"), py::arg("min_tracking_confidence"),
          py::arg("device"));
  PyFaceMesh::DefineMethods(cls);

  m.def(
      "face_mesh_connections",
      [] {
        py::dict sets;
        sets["tesselation"] = Pairs(FaceMeshTesselation());
        sets["lips"] = Pairs(FaceMeshLips());
        sets["left_eye"] = Pairs(FaceMeshLeftEye());
        sets["left_eyebrow"] = Pairs(FaceMeshLeftEyebrow());
        sets["right_eye"] = Pairs(FaceMeshRightEye());
        sets["right_eyebrow"] = Pairs(FaceMeshRightEyebrow());
        sets["face_oval"] = Pairs(FaceMeshFaceOval());
        sets["nose"] = Pairs(FaceMeshNose());
        sets["left_iris"] = Pairs(FaceMeshLeftIris());
        sets["right_iris"] = Pairs(FaceMeshRightIris());
        return sets;
      },
      "render/face_mesh_connections' sets: {part: [(start, end)]} (internal).");
}

}  // namespace sluice::python
