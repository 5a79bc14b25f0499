// SelfieSegmenter: MediaPipe's selfie segmentation (the graph behind
// `mp.solutions.selfie_segmentation`) as a C++ API.
//
//   SelfieSegmenterOptions options;
//   options.model_selection = 1;  // landscape model
//   ASSIGN_OR_RETURN(auto segmenter, SelfieSegmenter::Create(options));
//   ASSIGN_OR_RETURN(SegmentationResult r, segmenter->Process(rgb_frame, timestamp_us));
//   const float* row = reinterpret_cast<const float*>(r.mask->Row(y));  // P(person)
//
// Process() is synchronous. For video, Send() frames and take results with
// Next(): frames are pipelined through the graph, results come out in order.
#ifndef SLUICE_SOLUTIONS_SELFIE_SEGMENTATION_SELFIE_SEGMENTER_H_
#define SLUICE_SOLUTIONS_SELFIE_SEGMENTATION_SELFIE_SEGMENTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"
#include "solutions/common/frame_pipeline.h"

namespace sluice {

struct SelfieSegmenterOptions {
  // 0: general model (256x256 input), 1: landscape model (256x144), faster.
  int model_selection = 0;
  // Temporal smoothing of the mask across frames (SegmentationSmoothing with
  // MediaPipe's pose ratio 0.7; uncertain pixels lean on the previous mask).
  // Off by default: MediaPipe's selfie solution does not smooth.
  bool smooth_segmentation = false;
  // "cpu", "cuda" or "auto" (the best available).
  std::string device = "cpu";
  // CPU threads of the inference node; 0 keeps MediaPipe's default (1).
  int inference_threads = 0;
  // Per-node timings (StageTimes, WriteTrace).
  bool enable_tracing = false;
  // Frames Send() lets into the graph before it blocks.
  int max_in_flight = 3;
};

// Options checked the way the CLI reports them ("model_selection must be 0 or 1").
absl::Status ValidateSelfieSegmenterOptions(const SelfieSegmenterOptions& options);

struct SegmentationResult {
  int64_t timestamp_us = 0;
  int width = 0;
  int height = 0;
  // VEC32F1 of the frame's size: probability that the pixel is a person.
  std::shared_ptr<const ImageFrame> mask;
};

// Stage times: "preprocessing", "inference", "mask".
using SegmentationStageTime = StageTime;

class SelfieSegmenter {
 public:
  static absl::StatusOr<std::unique_ptr<SelfieSegmenter>> Create(
      const SelfieSegmenterOptions& options);
  ~SelfieSegmenter();

  // One frame (SRGB/SRGBA) in, its mask out. Timestamps must increase.
  absl::StatusOr<SegmentationResult> Process(const ImageFrame& frame, int64_t timestamp_us);

  // Pipelined use: Send() blocks while max_in_flight frames are in the graph;
  // Next() blocks until the oldest frame sent is done (false once Close()d and
  // drained, or on error: see status()). `shared`, when given, receives the
  // frame as the graph holds it (no copy).
  absl::Status Send(ImageFrame frame, int64_t timestamp_us,
                    std::shared_ptr<const ImageFrame>* shared = nullptr);
  bool Next(SegmentationResult* result);
  // Next() without blocking: false when the oldest frame is not done yet.
  bool TryNext(SegmentationResult* result);
  // No more frames: lets the graph finish; Next() then drains the rest.
  absl::Status Close();
  // The graph's error, if one happened.
  absl::Status status() const;

  std::vector<SegmentationStageTime> StageTimes() const;
  absl::Status WriteTrace(const std::string& path) const;

 private:
  SelfieSegmenter() = default;
  static SegmentationResult ToResult(FrameOutputs outputs);

  std::unique_ptr<FramePipeline> pipeline_;
};

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_SELFIE_SEGMENTATION_SELFIE_SEGMENTER_H_
