// FaceMesh: MediaPipe's face mesh (the graph behind `mp.solutions.face_mesh`,
// FaceLandmarkFrontCpu) as a C++ API.
//
//   FaceMeshOptions options;
//   options.refine_landmarks = true;  // 478 landmarks (irises included)
//   ASSIGN_OR_RETURN(auto mesh, FaceMesh::Create(options));
//   ASSIGN_OR_RETURN(FaceMeshResult r, mesh->Process(rgb_frame, timestamp_us));
//   for (const MeshFace& face : r.faces) ... face.landmarks.landmark(1).x() ...
//
// Process() is synchronous. For video, Send() frames and take results with
// Next(): frames are pipelined through the graph and come out in order. In
// tracking mode (static_image_mode false) faces found in one frame are
// tracked into the next from their landmarks; the face detector runs only
// while fewer than max_num_faces faces are tracked, as in MediaPipe.
#ifndef SLUICE_SOLUTIONS_FACE_MESH_FACE_MESH_H_
#define SLUICE_SOLUTIONS_FACE_MESH_FACE_MESH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/detection.pb.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "solutions/common/frame_pipeline.h"

namespace sluice {

struct FaceMeshOptions {
  // Every frame on its own (face detection on each).
  bool static_image_mode = false;
  int max_num_faces = 1;
  // The attention model: lips and eyes refined, 10 iris landmarks appended.
  bool refine_landmarks = false;
  // Face detector score threshold.
  float min_detection_confidence = 0.5f;
  // Face presence threshold of the landmark model; below it a tracked face is
  // dropped (and detection runs again).
  float min_tracking_confidence = 0.5f;
  // "cpu", "cuda" or "auto" (the best available).
  std::string device = "cpu";
  // CPU threads per inference node; 0 keeps MediaPipe's default (1).
  int inference_threads = 0;
  // Per-node timings (FaceMesh::StageTimes, FaceMesh::WriteTrace).
  bool enable_tracing = false;
  // Frames Send() lets into the graph before it blocks.
  int max_in_flight = 3;
};

// Options checked the way the CLI reports them ("max_num_faces must be >= 1").
absl::Status ValidateFaceMeshOptions(const FaceMeshOptions& options);

// Landmark counts: the mesh, and the mesh plus 5 + 5 iris points.
constexpr int kNumFaceMeshLandmarks = 468;
constexpr int kNumRefinedFaceMeshLandmarks = 478;

struct MeshFace {
  // 468 or 478; x / y normalized to the image, z at about x's scale (MediaPipe's).
  ::mediapipe::NormalizedLandmarkList landmarks;
  // The crop these landmarks yield for the next frame.
  ::mediapipe::NormalizedRect rect_from_landmarks;
};

struct FaceMeshResult {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  std::vector<MeshFace> faces;  // in MediaPipe's output order
  // Only on frames where face detection ran.
  std::vector<::mediapipe::Detection> face_detections;
  std::vector<::mediapipe::NormalizedRect> rects_from_detections;
};

class FaceMesh {
 public:
  static absl::StatusOr<std::unique_ptr<FaceMesh>> Create(const FaceMeshOptions& options);
  ~FaceMesh();

  // One frame (SRGB/SRGBA) in, its result out. Timestamps must increase.
  absl::StatusOr<FaceMeshResult> Process(const ImageFrame& frame, int64_t timestamp_us);

  // Pipelined use: Send() blocks while max_in_flight frames are in the graph;
  // Next() blocks until the oldest frame sent is done (false once Close()d and
  // drained, or on error: see status()). `shared`, when given, receives the
  // frame as the graph holds it (no copy), e.g. to draw on later.
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  bool Next(FaceMeshResult* result);
  // Next() without blocking: false when the oldest frame is not done yet.
  bool TryNext(FaceMeshResult* result);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  // The graph's error, if one happened.
  absl::Status status() const;

  // "face detection", "face landmarks", "other graph nodes".
  std::vector<StageTime> StageTimes() const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  FaceMesh() = default;
  FaceMeshResult ToResult(FrameOutputs outputs) const;

  std::unique_ptr<FramePipeline> pipeline_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_FACE_MESH_FACE_MESH_H_
