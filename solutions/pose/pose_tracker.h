// PoseTracker: MediaPipe's pose tracking (the graph behind `mp.solutions.pose`,
// PoseLandmarkCpu) as a C++ API.
//
//   PoseTrackerOptions options;
//   options.enable_segmentation = true;
//   ASSIGN_OR_RETURN(auto tracker, PoseTracker::Create(options));
//   ASSIGN_OR_RETURN(PoseTrackingResult r, tracker->Process(rgb_frame, timestamp_us));
//   if (r.detected) ... r.landmarks.landmark(kPoseLeftWrist).x() ...
//
// Process() is synchronous. For video, Send() frames and take results with
// Next(): frames are pipelined through the graph and come out in order. In
// tracking mode (static_image_mode false) the pose found in one frame is
// tracked into the next from its landmarks; pose detection runs only when no
// pose is tracked, as in MediaPipe (one pose at most).
#ifndef SLUICE_SOLUTIONS_POSE_POSE_TRACKER_H_
#define SLUICE_SOLUTIONS_POSE_POSE_TRACKER_H_

#include <cstdint>
#include <memory>
#include <optional>
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

struct PoseTrackerOptions {
  // Every frame on its own (pose detection on each, no smoothing); else the
  // pose found in one frame is tracked into the next from its landmarks.
  bool static_image_mode = false;
  // 0: lite, 1: full, 2: heavy landmark model.
  int model_complexity = 1;
  // Temporal filtering of the landmarks (ignored in static_image_mode, as in
  // MediaPipe's Python solution).
  bool smooth_landmarks = true;
  // Also output a person segmentation mask.
  bool enable_segmentation = false;
  // Temporal smoothing of the mask (ignored in static_image_mode).
  bool smooth_segmentation = true;
  // Pose detector score threshold.
  float min_detection_confidence = 0.5f;
  // Pose presence threshold of the landmark model; below it the tracked pose
  // is dropped (and detection runs again on the next frame).
  float min_tracking_confidence = 0.5f;
  // "cpu", "cuda" or "auto" (the best available).
  std::string device = "cpu";
  // CPU threads per inference node; 0 keeps MediaPipe's default (1).
  int inference_threads = 0;
  // Per-node timings (PoseTracker::StageTimes, PoseTracker::WriteTrace).
  bool enable_tracing = false;
  // Frames Send() lets into the graph before it blocks.
  int max_in_flight = 3;
};

// Options checked the way the CLI reports them ("model_complexity must be 0, 1 or 2").
absl::Status ValidatePoseTrackerOptions(const PoseTrackerOptions& options);

// Landmark count and a few indices (MediaPipe's PoseLandmark order: 0 nose,
// 11/12 shoulders, 15/16 wrists, 23/24 hips, ... 31/32 foot indices).
constexpr int kNumPoseLandmarks = 33;
constexpr int kPoseNose = 0;
constexpr int kPoseLeftShoulder = 11;
constexpr int kPoseRightShoulder = 12;
constexpr int kPoseLeftWrist = 15;
constexpr int kPoseRightWrist = 16;
constexpr int kPoseLeftHip = 23;
constexpr int kPoseRightHip = 24;

struct PoseTrackingResult {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  // A pose was found (landmarks filled). False: every field below is empty.
  bool detected = false;
  // 33; x / y normalized to the image, z at about x's scale, visibility and
  // presence set (MediaPipe's Python wrapper clears presence; we keep it).
  ::mediapipe::NormalizedLandmarkList landmarks;
  // 33; metres, origin between the hips; visibility and presence as above.
  ::mediapipe::LandmarkList world_landmarks;
  // With enable_segmentation, when a pose was found: VEC32F1 ImageFrame the
  // size of the image, P(person) per pixel (0 outside the pose's crop).
  std::shared_ptr<const ImageFrame> segmentation_mask;
  // Debugging. Only on frames where pose detection ran and found a pose: the
  // best detection and the crop derived from it.
  std::optional<::mediapipe::Detection> pose_detection;
  std::optional<::mediapipe::NormalizedRect> rect_from_detection;
  // The crop these landmarks yield for the next frame (when detected).
  std::optional<::mediapipe::NormalizedRect> rect_from_landmarks;
};

class PoseTracker {
 public:
  static absl::StatusOr<std::unique_ptr<PoseTracker>> Create(const PoseTrackerOptions& options);
  ~PoseTracker();

  // One frame (SRGB/SRGBA) in, its result out. Timestamps must increase.
  absl::StatusOr<PoseTrackingResult> Process(const ImageFrame& frame, int64_t timestamp_us);

  // Pipelined use: Send() blocks while max_in_flight frames are in the graph;
  // Next() blocks until the oldest frame sent is done (false once Close()d and
  // drained, or on error: see status()). Results come out in Send() order.
  // `shared`, when given, receives the frame as the graph holds it (no copy),
  // e.g. to draw the result on later.
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  bool Next(PoseTrackingResult* result);
  // Next() without blocking: false when the oldest frame is not done yet.
  bool TryNext(PoseTrackingResult* result);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  // The graph's error, if one happened.
  absl::Status status() const;

  // "pose detection", "pose landmarks", "other graph nodes".
  std::vector<StageTime> StageTimes() const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  PoseTracker() = default;
  PoseTrackingResult ToResult(FrameOutputs outputs) const;

  std::unique_ptr<FramePipeline> pipeline_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_POSE_POSE_TRACKER_H_
