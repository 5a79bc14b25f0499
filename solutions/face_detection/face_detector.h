// FaceDetector: MediaPipe's face detection (the graph behind
// `mp.solutions.face_detection`) as a C++ API.
//
//   FaceDetectorOptions options;
//   options.model_selection = 1;  // full range
//   ASSIGN_OR_RETURN(auto detector, FaceDetector::Create(options));
//   ASSIGN_OR_RETURN(FaceDetectionResult r, detector->Process(rgb_frame, timestamp_us));
//   for (const DetectedFace& face : r.faces) ... face.xmin ... face.keypoints[kNoseTip] ...
//
// Process() is synchronous. For video, Send() frames and take results with
// Next(): frames are pipelined through the graph (pre-processing, the model
// and post-processing of consecutive frames overlap), results come out in
// order. Every frame is detected on its own (there is no tracking).
#ifndef SLUICE_SOLUTIONS_FACE_DETECTION_FACE_DETECTOR_H_
#define SLUICE_SOLUTIONS_FACE_DETECTION_FACE_DETECTOR_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/detection.pb.h"
#include "formats/image_frame.h"

namespace sluice {

class FramePipeline;

struct FaceDetectorOptions {
  // 0: short-range model (128x128, faces within ~2 m); 1: full-range model
  // (192x192 sparse, faces within ~5 m).
  int model_selection = 0;
  // Detection score threshold. Unset: the model's own, 0.5 (short range) or
  // 0.6 (full range). Google's Python package always uses those: its
  // min_detection_confidence argument does not reach the graph (measured
  // with mediapipe 0.10.21), so leave this unset to match its output.
  std::optional<float> min_detection_confidence;
  // "cpu", "cuda" or "auto" (the best available).
  std::string device = "cpu";
  // CPU threads of the inference node; 0 keeps MediaPipe's default (1).
  int inference_threads = 0;
  // Per-node timings (FaceDetector::StageTimes, FaceDetector::WriteTrace).
  bool enable_tracing = false;
  // Frames Send() lets into the graph before it blocks.
  int max_in_flight = 3;
};

// Options checked the way the CLI reports them ("model_selection must be 0 or 1").
absl::Status ValidateFaceDetectorOptions(const FaceDetectorOptions& options);

// Indices into DetectedFace::keypoints (MediaPipe's FaceKeyPoint).
enum FaceKeypoint {
  kRightEye = 0,
  kLeftEye = 1,
  kNoseTip = 2,
  kMouthCenter = 3,
  kRightEarTragion = 4,
  kLeftEarTragion = 5,
  kNumFaceKeypoints = 6
};

struct DetectedFace {
  float score = 0;
  // Box and keypoints normalized to the image (x / width, y / height); the
  // box may reach past the image borders.
  float xmin = 0, ymin = 0, width = 0, height = 0;
  std::array<std::array<float, 2>, kNumFaceKeypoints> keypoints{};
  // The detection as MediaPipe's graph outputs it.
  ::mediapipe::Detection detection;
};

struct FaceDetectionResult {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  std::vector<DetectedFace> faces;  // in MediaPipe's output order
};

// Time spent per pipeline stage, from the graph's trace (enable_tracing).
struct FaceStageTime {
  std::string stage;  // "face model", "other graph nodes"
  int64_t invocations = 0;
  double total_ms = 0;
};

class FaceDetector {
 public:
  static absl::StatusOr<std::unique_ptr<FaceDetector>> Create(const FaceDetectorOptions& options);
  ~FaceDetector();

  // One frame (SRGB/SRGBA) in, its result out. Timestamps must increase.
  absl::StatusOr<FaceDetectionResult> Process(const ImageFrame& frame, int64_t timestamp_us);

  // Pipelined use: Send() blocks while max_in_flight frames are in the graph;
  // Next() blocks until the oldest frame sent is done (false once Close()d and
  // drained, or on error: see status()). Results come out in Send() order.
  // `shared`, when given, receives the frame as the graph holds it (no copy).
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  bool Next(FaceDetectionResult* result);
  // Next() without blocking: false when the oldest frame is not done yet.
  bool TryNext(FaceDetectionResult* result);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  // The graph's error, if one happened.
  absl::Status status() const;

  std::vector<FaceStageTime> StageTimes() const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  FaceDetector() = default;

  std::unique_ptr<FramePipeline> pipeline_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_FACE_DETECTION_FACE_DETECTOR_H_
