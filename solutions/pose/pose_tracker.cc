#include "solutions/pose/pose_tracker.h"

#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "calculators/util/thresholding_calculator.pb.h"
#include "framework/tool/subgraph_expansion.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

// The graph's outputs we collect, in FramePipeline order (PoseLandmarkCpu's
// output streams).
enum Output {
  kLandmarks,
  kWorldLandmarks,
  kSegmentationMask,
  kDetection,
  kRectFromLandmarks,
  kRectFromDetection,
  kNumOutputs
};
constexpr const char* kOutputStreams[kNumOutputs] = {
    "pose_landmarks",   "pose_world_landmarks",     "segmentation_mask",
    "pose_detection",   "pose_rect_from_landmarks", "pose_rect_from_detection"};

// The thresholds live in node options addressed by expanded node name, as in
// MediaPipe's Python solution (its calculator_params).
constexpr char kDetectionScoreNode[] = "posedetectioncpu__TensorsToDetectionsCalculator";
constexpr char kPresenceNode[] =
    "poselandmarkbyroicpu__tensorstoposelandmarksandsegmentation__ThresholdingCalculator";

absl::StatusOr<mediapipe::CalculatorGraphConfig::Node*> FindNode(
    mediapipe::CalculatorGraphConfig* config, const std::string& name) {
  for (int i = 0; i < config->node_size(); ++i) {
    if (CanonicalNodeName(*config, i) == name) return config->mutable_node(i);
  }
  return absl::InternalError(absl::StrCat("pose graph has no node \"", name, "\""));
}

template <typename T>
const T* PayloadOrNull(const Packet& p) {
  if (p.IsEmpty()) return nullptr;
  absl::StatusOr<const T*> v = p.TryGet<T>();
  return v.ok() ? *v : nullptr;
}

// The models take RGB; anything else would only fail inside the graph (and
// end the run), so it is turned away at the door.
absl::Status CheckFrame(const ImageFrame& frame) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError("PoseTracker: empty frame");
  if (frame.Format() != ImageFormat::SRGB && frame.Format() != ImageFormat::SRGBA) {
    return absl::InvalidArgumentError(
        absl::StrCat("PoseTracker: frames must be SRGB or SRGBA, got format ",
                     static_cast<int>(frame.Format())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePoseTrackerOptions(const PoseTrackerOptions& o) {
  if (o.model_complexity < 0 || o.model_complexity > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("model_complexity must be 0, 1 or 2, got ", o.model_complexity));
  }
  for (auto [name, v] : {std::pair{"min_detection_confidence", o.min_detection_confidence},
                         std::pair{"min_tracking_confidence", o.min_tracking_confidence}}) {
    if (!(v >= 0.0f && v <= 1.0f)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " must be in [0, 1], got ", v));
    }
  }
  RETURN_IF_ERROR(ValidateDevice(o.device));
  if (o.inference_threads < 0) return absl::InvalidArgumentError("inference_threads must be >= 0");
  if (o.max_in_flight < 1) return absl::InvalidArgumentError("max_in_flight must be >= 1");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<PoseTracker>> PoseTracker::Create(
    const PoseTrackerOptions& options) {
  RETURN_IF_ERROR(ValidatePoseTrackerOptions(options));
  // PoseLandmarkCpu itself is the top level, as in MediaPipe's Python
  // solution, so node names are MediaPipe's.
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   ExpandedSolutionGraph("PoseLandmarkCpu"));
  ASSIGN_OR_RETURN(auto* scores, FindNode(&config, kDetectionScoreNode));
  scores->mutable_options()
      ->MutableExtension(mediapipe::TensorsToDetectionsCalculatorOptions::ext)
      ->set_min_score_thresh(options.min_detection_confidence);
  ASSIGN_OR_RETURN(auto* presence, FindNode(&config, kPresenceNode));
  presence->mutable_options()
      ->MutableExtension(mediapipe::ThresholdingCalculatorOptions::ext)
      ->set_threshold(options.min_tracking_confidence);
  SetInferenceThreads(&config, options.inference_threads);
  SetInferenceDevice(&config, options.device);

  // The side packets mp.solutions.pose.Pose gives the graph: smoothing only
  // makes sense across frames, so static images turn both smoothers off.
  CalculatorGraph::SidePackets side_packets;
  side_packets["model_complexity"] = MakePacket<int>(options.model_complexity);
  side_packets["smooth_landmarks"] =
      MakePacket<bool>(options.smooth_landmarks && !options.static_image_mode);
  side_packets["enable_segmentation"] = MakePacket<bool>(options.enable_segmentation);
  side_packets["smooth_segmentation"] =
      MakePacket<bool>(options.smooth_segmentation && !options.static_image_mode);
  side_packets["use_prev_landmarks"] = MakePacket<bool>(!options.static_image_mode);
  FramePipeline::Options pipeline;
  pipeline.name = "PoseTracker";
  pipeline.output_streams.assign(std::begin(kOutputStreams), std::end(kOutputStreams));
  pipeline.max_in_flight = options.max_in_flight;
  pipeline.enable_tracing = options.enable_tracing;
  std::unique_ptr<PoseTracker> tracker(new PoseTracker());
  ASSIGN_OR_RETURN(tracker->pipeline_, FramePipeline::Start(config, side_packets, pipeline));
  return tracker;
}

PoseTracker::~PoseTracker() = default;

PoseTrackingResult PoseTracker::ToResult(FrameOutputs outputs) const {
  PoseTrackingResult r;
  r.timestamp_us = outputs.timestamp_us;
  r.width = outputs.width;
  r.height = outputs.height;
  const std::vector<Packet>& p = outputs.packets;
  if (auto* v = PayloadOrNull<mediapipe::NormalizedLandmarkList>(p[kLandmarks])) {
    r.detected = true;
    r.landmarks = *v;
  }
  if (auto* v = PayloadOrNull<mediapipe::LandmarkList>(p[kWorldLandmarks])) {
    r.world_landmarks = *v;
  }
  if (!p[kSegmentationMask].IsEmpty()) {
    absl::StatusOr<std::shared_ptr<const ImageFrame>> mask = p[kSegmentationMask].Share<ImageFrame>();
    if (mask.ok()) r.segmentation_mask = *mask;
  }
  if (auto* v = PayloadOrNull<mediapipe::Detection>(p[kDetection])) r.pose_detection = *v;
  if (auto* v = PayloadOrNull<mediapipe::NormalizedRect>(p[kRectFromLandmarks])) {
    r.rect_from_landmarks = *v;
  }
  if (auto* v = PayloadOrNull<mediapipe::NormalizedRect>(p[kRectFromDetection])) {
    r.rect_from_detection = *v;
  }
  return r;
}

absl::Status PoseTracker::Send(ImageFrame frame, int64_t timestamp_us,
                               std::shared_ptr<const ImageFrame>* shared) {
  RETURN_IF_ERROR(CheckFrame(frame));
  return pipeline_->Send(std::move(frame), timestamp_us, shared);
}

bool PoseTracker::TryNext(PoseTrackingResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->TryNext(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

bool PoseTracker::Next(PoseTrackingResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->Next(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

absl::Status PoseTracker::Close() { return pipeline_->Close(); }

absl::Status PoseTracker::status() const { return pipeline_->status(); }

absl::StatusOr<PoseTrackingResult> PoseTracker::Process(const ImageFrame& frame,
                                                       int64_t timestamp_us) {
  RETURN_IF_ERROR(CheckFrame(frame));
  ASSIGN_OR_RETURN(FrameOutputs outputs, pipeline_->Process(frame, timestamp_us));
  return ToResult(std::move(outputs));
}

std::vector<StageTime> PoseTracker::StageTimes() const {
  return pipeline_->StageTimes(
      {{"pose detection", "posedetectioncpu__"}, {"pose landmarks", "poselandmarkbyroicpu__"}});
}

absl::Status PoseTracker::WriteTrace(const std::string& path) const {
  return pipeline_->WriteTrace(path);
}

}  // namespace sluice
