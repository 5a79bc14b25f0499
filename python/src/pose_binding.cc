// solutions/pose PoseTracker for sluice.solutions.pose.Pose, and
// render/pose_connections' topology for POSE_CONNECTIONS. Landmarks cross as
// serialized mediapipe.NormalizedLandmarkList / LandmarkList protos; the mask
// as a read-only float32 numpy view of the graph's frame (no copy).
#include <memory>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "image_util.h"
#include "render/pose_connections.h"
#include "solution_binding.h"
#include "solutions/pose/pose_tracker.h"

namespace py = pybind11;

namespace sluice::python {
namespace {

struct PoseTraits {
  using Solution = PoseTracker;
  using Options = PoseTrackerOptions;
  using Result = PoseTrackingResult;
  static constexpr char kName[] = "Pose";
  static absl::Status Validate(const Options& o) { return ValidatePoseTrackerOptions(o); }
  // (landmarks bytes, world landmarks bytes, mask array or None), or None
  // when no pose was found.
  static py::object ToPython(Result r) {
    if (!r.detected) return py::none();
    py::object mask = py::none();
    if (r.segmentation_mask != nullptr) {
      if (r.segmentation_mask->Format() != ImageFormat::VEC32F1) {
        throw std::runtime_error("Pose: the graph's segmentation mask is not VEC32F1");
      }
      mask = ArrayView(std::move(r.segmentation_mask));
    }
    return py::make_tuple(py::bytes(r.landmarks.SerializeAsString()),
                          py::bytes(r.world_landmarks.SerializeAsString()), mask);
  }
};
using PyPoseTracker = PySolution<PoseTraits>;

}  // namespace

void InitPose(py::module_& m) {
  py::class_<PyPoseTracker> cls(m, "PoseTracker", "solutions/pose PoseTracker (internal).");
  cls.def(py::init([](bool static_image_mode, int model_complexity, bool smooth_landmarks,
                      bool enable_segmentation, bool smooth_segmentation,
                      float min_detection_confidence, float min_tracking_confidence,
                      const std::string& device) {
            PoseTrackerOptions o;
            o.static_image_mode = static_image_mode;
            o.model_complexity = model_complexity;
            o.smooth_landmarks = smooth_landmarks;
            o.enable_segmentation = enable_segmentation;
            o.smooth_segmentation = smooth_segmentation;
            o.min_detection_confidence = min_detection_confidence;
            o.min_tracking_confidence = min_tracking_confidence;
            o.device = device;
            return std::make_unique<PyPoseTracker>(o);
          }),
          py::arg("static_image_mode"), py::arg("model_complexity"), py::arg("smooth_landmarks"),
          py::arg("enable_segmentation"), py::arg("smooth_segmentation"),
          py::arg("min_detection_confidence"), py::arg("min_tracking_confidence"),
          py::arg("device"));
  PyPoseTracker::DefineMethods(cls);

  m.def(
      "pose_connections",
      [] {
        py::list out;
        for (const Connection& c : PoseConnections()) out.append(py::make_tuple(c.first, c.second));
        return out;
      },
      "render/pose_connections' POSE_CONNECTIONS: [(start, end)] (internal).");
}

}  // namespace sluice::python
