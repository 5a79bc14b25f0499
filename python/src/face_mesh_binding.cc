// solutions/face_mesh FaceMesh for sluice.solutions.face_mesh.FaceMesh, and
// render/face_mesh_connections' topology for its FACEMESH_* sets (one list
// of pairs for C++ drawing and Python). Landmarks cross as serialized
// mediapipe.NormalizedLandmarkList protos.
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "absl/types/span.h"
#include "bindings.h"
#include "image_util.h"
#include "render/face_mesh_connections.h"
#include "solution_util.h"
#include "solutions/face_mesh/face_mesh.h"
#include "status_util.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

class PyFaceMesh {
 public:
  explicit PyFaceMesh(const FaceMeshOptions& options) {
    RaiseIfError(ValidateFaceMeshOptions(options));
    absl::StatusOr<std::unique_ptr<FaceMesh>> mesh;
    {
      py::gil_scoped_release release;  // loads the models
      mesh = FaceMesh::Create(options);
    }
    mesh_ = ValueOrRaise(std::move(mesh));
  }
  ~PyFaceMesh() { Close(); }

  void Close() {
    py::gil_scoped_release release;
    mesh_.reset();
  }

  // [serialized mediapipe.NormalizedLandmarkList], one per face.
  py::list Process(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    RgbFrameView view("FaceMesh.process", image);
    absl::StatusOr<FaceMeshResult> result;
    {
      py::gil_scoped_release release;
      result = mesh_->Process(view.frame(), timestamp_us);
    }
    return ToPython(ValueOrRaise(std::move(result)));
  }

  // Pipelined use: Send() a copy of the frame (blocks while max_in_flight
  // frames are in the graph), Next() the oldest frame's result.
  void Send(const py::array& image, int64_t timestamp_us) {
    CheckOpen();
    CheckRgbImage("FaceMesh.process_stream", image);
    ImageFrame frame = FrameFromArray(image, ImageFormat::SRGB);
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = mesh_->Send(std::move(frame), timestamp_us);
    }
    RaiseIfError(s);
  }

  py::list Next() {
    CheckOpen();
    FaceMeshResult r;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = mesh_->Next(&r);
    }
    if (!ok) {
      absl::Status s = mesh_->status();
      RaiseIfError(s.ok() ? absl::InternalError("face mesh graph stopped") : s);
    }
    return ToPython(std::move(r));
  }

 private:
  void CheckOpen() const {
    if (mesh_ == nullptr) throw std::runtime_error("FaceMesh: the graph is closed");
  }

  static py::list ToPython(const FaceMeshResult& r) {
    py::list out;
    for (const MeshFace& face : r.faces) {
      out.append(py::bytes(face.landmarks.SerializeAsString()));
    }
    return out;
  }

  std::unique_ptr<FaceMesh> mesh_;
};

py::list Pairs(absl::Span<const Connection> connections) {
  py::list out;
  for (const Connection& c : connections) out.append(py::make_tuple(c.first, c.second));
  return out;
}

}  // namespace

void InitFaceMesh(py::module_& m) {
  py::class_<PyFaceMesh>(m, "FaceMesh", "solutions/face_mesh FaceMesh (internal).")
      .def(py::init([](bool static_image_mode, int max_num_faces, bool refine_landmarks,
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
           py::arg("device"))
      .def("process", &PyFaceMesh::Process, py::arg("image"), py::arg("timestamp_us"))
      .def("send", &PyFaceMesh::Send, py::arg("image"), py::arg("timestamp_us"))
      .def("next", &PyFaceMesh::Next)
      .def("close", &PyFaceMesh::Close);

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
