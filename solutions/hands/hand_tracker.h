// HandTracker: MediaPipe's hand tracking (the graph behind
// `mp.solutions.hands`) as a C++ API.
//
//   HandTrackerOptions options;
//   options.max_num_hands = 2;
//   ASSIGN_OR_RETURN(auto tracker, HandTracker::Create(options));
//   ASSIGN_OR_RETURN(HandTrackingResult r, tracker->Process(rgb_frame, timestamp_us));
//   for (const TrackedHand& hand : r.hands) ... hand.landmarks.landmark(8).x() ...
//
// Process() is synchronous. For video, Send() frames and take results with
// Next(): frames are pipelined through the graph (palm detection, landmarks,
// and the caller's own decoding/encoding overlap), results come out in order.
#ifndef SLUICE_SOLUTIONS_HANDS_HAND_TRACKER_H_
#define SLUICE_SOLUTIONS_HANDS_HAND_TRACKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "solutions/common/frame_pipeline.h"

namespace sluice {

struct HandTrackerOptions {
  // Every frame on its own (palm detection on each); else hands found in one
  // frame are tracked into the next from their landmarks.
  bool static_image_mode = false;
  int max_num_hands = 2;
  // 0: lite models, 1: full models.
  int model_complexity = 1;
  // Palm detection score threshold.
  float min_detection_confidence = 0.5f;
  // Hand presence threshold of the landmark model; below it a tracked hand is
  // dropped (and palm detection runs again).
  float min_tracking_confidence = 0.5f;
  // "cpu", "cuda" or "auto" (the best available).
  std::string device = "cpu";
  // Tracking mode: run palm detection on every frame, concurrently with the
  // previous frame's landmarks, and gate its result (instead of its input) on
  // "fewer than max_num_hands hands tracked". Results are identical to
  // MediaPipe's graph; a second core turns the serial palm -> landmarks chain
  // into a pipeline, at the price of palm runs whose result is then unused
  // (only when max_num_hands hands are already tracked).
  bool speculative_palm_detection = true;
  // CPU threads per inference node; 0 keeps MediaPipe's default (1).
  int inference_threads = 0;
  // Per-node timings (HandTracker::StageTimes, HandTracker::WriteTrace).
  bool enable_tracing = false;
  // Frames Send() lets into the graph before it blocks.
  int max_in_flight = 3;
};

// Options checked the way the CLI reports them ("max_num_hands must be >= 1").
absl::Status ValidateHandTrackerOptions(const HandTrackerOptions& options);

struct TrackedHand {
  std::string handedness;  // "Left" / "Right" as MediaPipe labels them
  float handedness_score = 0;
  float presence = 0;  // the landmark model's hand presence score
  ::mediapipe::NormalizedLandmarkList landmarks;  // 21, x/y normalized to the image
  ::mediapipe::LandmarkList world_landmarks;       // 21, metres, hand-centred
  ::mediapipe::ClassificationList handedness_classes;
  // The ROI these landmarks yield for the next frame.
  ::mediapipe::NormalizedRect rect_from_landmarks;
};

struct HandTrackingResult {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  std::vector<TrackedHand> hands;
  // Only on frames where palm detection ran.
  std::vector<::mediapipe::Detection> palm_detections;
  std::vector<::mediapipe::NormalizedRect> rects_from_palm_detections;
};

class HandTracker {
 public:
  static absl::StatusOr<std::unique_ptr<HandTracker>> Create(const HandTrackerOptions& options);
  ~HandTracker();

  // One frame (SRGB/SRGBA) in, its result out. Timestamps must increase.
  absl::StatusOr<HandTrackingResult> Process(const ImageFrame& frame, int64_t timestamp_us);

  // Pipelined use: Send() blocks while max_in_flight frames are in the graph;
  // Next() blocks until the oldest frame sent is done (false once Close()d and
  // drained, or on error: see status()). Results come out in Send() order.
  // `shared`, when given, receives the frame as the graph holds it (no copy),
  // e.g. to draw the result on later.
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  bool Next(HandTrackingResult* result);
  // Next() without blocking: false when the oldest frame is not done yet.
  bool TryNext(HandTrackingResult* result);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  // The graph's error, if one happened.
  absl::Status status() const;

  std::vector<StageTime> StageTimes() const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  HandTracker() = default;
  HandTrackingResult ToResult(FrameOutputs outputs) const;

  std::unique_ptr<FramePipeline> pipeline_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_HANDS_HAND_TRACKER_H_
