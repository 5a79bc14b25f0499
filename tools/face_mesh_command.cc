// `sluice face-mesh`: face mesh (468 or 478 landmarks per face) on an image, a
// folder of images, a video or a camera; writes landmarks as JSON Lines and/or
// an annotated image/video.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "render/drawing.h"
#include "render/face_mesh_connections.h"
#include "solutions/face_mesh/face_mesh.h"
#include "tools/commands.h"
#include "tools/frame_loop.h"
#include "tools/json_text.h"
#include "util/status_macros.h"

namespace sluice::cli {
namespace {

struct FaceMeshArgs {
  FrameLoopArgs loop;
  std::string landmarks;
  bool show_rois = false;
  FaceMeshOptions mesh;
};

// One line of the --landmarks file (format documented in README.md).
std::string FrameJson(int64_t frame, const FaceMeshResult& r) {
  std::string out = absl::StrCat("{\"frame\": ", frame, ", \"timestamp_us\": ", r.timestamp_us,
                                 ", \"width\": ", r.width, ", \"height\": ", r.height,
                                 ", \"faces\": [");
  for (size_t f = 0; f < r.faces.size(); ++f) {
    absl::StrAppend(&out, f ? ", " : "", "{\"landmarks\": ", LandmarkPoints(r.faces[f].landmarks),
                    "}");
  }
  return out + "]}";
}

void RunFaceMesh(const FaceMeshArgs& args) {
  const std::string command = "face-mesh";
  if (absl::Status s = ValidateFaceMeshOptions(args.mesh); !s.ok()) FailCommand(command, s);
  FrameLoopHooks hooks;
  std::ofstream landmarks_file;
  OpenLandmarksFile(command, args.landmarks, &landmarks_file, &hooks);
  FaceMeshOptions options = args.mesh;
  options.enable_tracing = true;  // for the per-stage summary
  absl::StatusOr<std::unique_ptr<FaceMesh>> mesh = FaceMesh::Create(options);
  if (!mesh.ok()) FailCommand(command, mesh.status());

  FaceMeshResult result;
  ForwardToSolution(mesh->get(), &result, &hooks);
  int64_t faces_found = 0;
  hooks.emit = [&](const LoopFrame& frame, ImageFrame* canvas) -> absl::Status {
    faces_found += static_cast<int64_t>(result.faces.size());
    if (landmarks_file.is_open()) landmarks_file << FrameJson(frame.index, result) << '\n';
    if (canvas == nullptr) return absl::OkStatus();
    for (size_t i = 0; args.show_rois && i < result.face_detections.size(); ++i) {
      RETURN_IF_ERROR(DrawDetection(canvas, result.face_detections[i]));
    }
    for (size_t i = 0; args.show_rois && i < result.faces.size(); ++i) {
      RETURN_IF_ERROR(DrawNormalizedRect(canvas, result.faces[i].rect_from_landmarks));
    }
    for (const MeshFace& face : result.faces) RETURN_IF_ERROR(DrawFaceMesh(canvas, face.landmarks));
    return absl::OkStatus();
  };
  hooks.found = [&] { return absl::StrCat(faces_found, " faces found"); };
  RunFrameLoop(command, args.loop, hooks);
}

}  // namespace

void AddFaceMeshCommands(CLI::App& app) {
  auto args = std::make_shared<FaceMeshArgs>();
  CLI::App* cmd = app.add_subcommand(
      "face-mesh", "Face mesh (MediaPipe Face Mesh): 468/478 landmarks per face as JSON Lines "
                   "and an annotated video");
  AddFrameLoopOptions(cmd, &args->loop,
                      "Annotated output: .mp4/.mkv/.avi video, .png/.jpg image, or a folder");
  cmd->add_option("--landmarks", args->landmarks, "JSON Lines file, one object per frame");
  cmd->add_flag("--static", args->mesh.static_image_mode,
                "Treat every frame on its own (no tracking)");
  cmd->add_option("--max-faces", args->mesh.max_num_faces, "Most faces to find (default 1)");
  cmd->add_flag("--refine-landmarks", args->mesh.refine_landmarks,
                "Attention model: refined lips and eyes plus 10 iris landmarks (478)");
  cmd->add_option("--min-detection-confidence", args->mesh.min_detection_confidence,
                  "Face detection score threshold (default 0.5)");
  cmd->add_option("--min-tracking-confidence", args->mesh.min_tracking_confidence,
                  "Face presence threshold to keep tracking (default 0.5)");
  cmd->add_option("--device", args->mesh.device, "cpu, cuda or auto (default cpu)");
  cmd->add_option("--threads", args->mesh.inference_threads,
                  "CPU threads per inference node (default 1, MediaPipe's)");
  cmd->add_flag("--show-rois", args->show_rois, "Also draw face detections and face ROIs");
  cmd->callback([args] { RunFaceMesh(*args); });
}

}  // namespace sluice::cli
