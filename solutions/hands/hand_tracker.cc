#include "solutions/hands/hand_tracker.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "calculators/util/thresholding_calculator.pb.h"
#include "formats/classification.pb.h"
#include "solutions/common/node_options.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

// The graph's outputs we collect, in the order of State::settled.
enum Output {
  kLandmarks,
  kWorldLandmarks,
  kHandedness,
  kPresence,
  kRectsFromLandmarks,
  kPalmDetections,
  kRectsFromPalms,
  kNumOutputs
};
constexpr const char* kOutputStreams[kNumOutputs] = {
    "multi_hand_landmarks",      "multi_hand_world_landmarks", "multi_handedness",
    "multi_hand_presence",       "hand_rects_from_landmarks",  "palm_detections",
    "hand_rects_from_palm_detections"};

// The solution's thresholds live in node options, addressed by expanded node
// name as MediaPipe's Python solution does.
constexpr char kPalmScoreNode[] = "palmdetectioncpu__TensorsToDetectionsCalculator";
constexpr char kPresenceNode[] = "handlandmarkcpu__ThresholdingCalculator";
constexpr char kGraph[] = "hand tracking";  // for FindNode's messages

// Rewires the expanded HandLandmarkTrackingCpu for speculative palm
// detection (HandTrackerOptions::speculative_palm_detection): palm detection
// reads every image, and the DISALLOW gate MediaPipe puts on its input image
// moves to its output detections, with the same options.
absl::Status MakePalmDetectionSpeculative(mediapipe::CalculatorGraphConfig* config) {
  constexpr char kGatedImage[] = "palm_detection_image";
  constexpr char kDetections[] = "all_palm_detections";
  constexpr char kUngated[] = "speculative_palm_detections";
  const mediapipe::CalculatorGraphConfig::Node* image_gate = nullptr;
  mediapipe::CalculatorGraphConfig::Node* palm_input = nullptr;
  mediapipe::CalculatorGraphConfig::Node* palm_output = nullptr;
  for (auto& node : *config->mutable_node()) {
    for (const std::string& out : node.output_stream()) {
      if (out == kGatedImage) image_gate = &node;
      if (out == std::string("DETECTIONS:") + kDetections) palm_output = &node;
    }
    if (absl::StartsWith(node.name(), "palmdetectioncpu__") &&
        node.calculator() == "ImageToTensorCalculator") {
      palm_input = &node;
    }
  }
  if (image_gate == nullptr || palm_input == nullptr || palm_output == nullptr) {
    return absl::InternalError("hand tracking graph: palm detection nodes not found");
  }
  mediapipe::CalculatorGraphConfig::Node gate = *image_gate;
  for (std::string& in : *palm_input->mutable_input_stream()) {
    if (in == std::string("IMAGE:") + kGatedImage) in = "IMAGE:image";
  }
  for (std::string& out : *palm_output->mutable_output_stream()) {
    if (out == std::string("DETECTIONS:") + kDetections) out = std::string("DETECTIONS:") + kUngated;
  }
  gate.set_name("speculativepalmdetectiongate");
  for (std::string& in : *gate.mutable_input_stream()) {
    if (in == "image") in = kUngated;
  }
  gate.clear_output_stream();
  gate.add_output_stream(kDetections);
  *config->add_node() = std::move(gate);
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateHandTrackerOptions(const HandTrackerOptions& o) {
  if (o.max_num_hands < 1) return absl::InvalidArgumentError("max_num_hands must be >= 1");
  if (o.model_complexity != 0 && o.model_complexity != 1) {
    return absl::InvalidArgumentError("model_complexity must be 0 or 1");
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

absl::StatusOr<std::unique_ptr<HandTracker>> HandTracker::Create(
    const HandTrackerOptions& options) {
  RETURN_IF_ERROR(ValidateHandTrackerOptions(options));
  // The solution graph is HandLandmarkTrackingCpu itself at the top level,
  // as in MediaPipe's Python solution, so node names are MediaPipe's.
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   ExpandedSolutionGraph("HandLandmarkTrackingCpu"));
  ASSIGN_OR_RETURN(auto* palm_scores, FindNode(&config, kPalmScoreNode, kGraph));
  const float detection = options.min_detection_confidence;
  RETURN_IF_ERROR(EditNodeOptions<mediapipe::TensorsToDetectionsCalculatorOptions>(
      palm_scores, [detection](auto* o) { o->set_min_score_thresh(detection); }));
  ASSIGN_OR_RETURN(auto* presence, FindNode(&config, kPresenceNode, kGraph));
  const double tracking = options.min_tracking_confidence;
  RETURN_IF_ERROR(EditNodeOptions<mediapipe::ThresholdingCalculatorOptions>(
      presence, [tracking](auto* o) { o->set_threshold(tracking); }));
  if (options.speculative_palm_detection && !options.static_image_mode) {
    RETURN_IF_ERROR(MakePalmDetectionSpeculative(&config));
  }
  SetInferenceThreads(&config, options.inference_threads);
  SetInferenceDevice(&config, options.device);

  CalculatorGraph::SidePackets side_packets;
  side_packets["num_hands"] = MakePacket<int>(options.max_num_hands);
  side_packets["model_complexity"] = MakePacket<int>(options.model_complexity);
  side_packets["use_prev_landmarks"] = MakePacket<bool>(!options.static_image_mode);
  FramePipeline::Options pipeline;
  pipeline.name = "HandTracker";
  pipeline.output_streams.assign(std::begin(kOutputStreams), std::end(kOutputStreams));
  pipeline.max_in_flight = options.max_in_flight;
  pipeline.enable_tracing = options.enable_tracing;
  std::unique_ptr<HandTracker> tracker(new HandTracker());
  ASSIGN_OR_RETURN(tracker->pipeline_, FramePipeline::Start(config, side_packets, pipeline));
  return tracker;
}

HandTracker::~HandTracker() = default;

HandTrackingResult HandTracker::ToResult(FrameOutputs outputs) const {
  HandTrackingResult r;
  r.timestamp_us = outputs.timestamp_us;
  r.width = outputs.width;
  r.height = outputs.height;
  const std::vector<Packet>& p = outputs.packets;
  // The per-hand streams are aligned: all are gated by the same presence flag.
  auto hands_at_least = [&r](size_t n) {
    if (r.hands.size() < n) r.hands.resize(n);
  };
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedLandmarkList>>(p[kLandmarks])) {
    hands_at_least(v->size());
    for (size_t h = 0; h < v->size(); ++h) r.hands[h].landmarks = (*v)[h];
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::LandmarkList>>(p[kWorldLandmarks])) {
    hands_at_least(v->size());
    for (size_t h = 0; h < v->size(); ++h) r.hands[h].world_landmarks = (*v)[h];
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::ClassificationList>>(p[kHandedness])) {
    hands_at_least(v->size());
    for (size_t h = 0; h < v->size(); ++h) {
      TrackedHand& hand = r.hands[h];
      hand.handedness_classes = (*v)[h];
      if (hand.handedness_classes.classification_size() > 0) {
        const auto& best = hand.handedness_classes.classification(0);
        hand.handedness = best.label();
        hand.handedness_score = best.score();
      }
    }
  }
  if (auto* v = OutputPayload<std::vector<float>>(p[kPresence])) {
    hands_at_least(v->size());
    for (size_t h = 0; h < v->size(); ++h) r.hands[h].presence = (*v)[h];
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedRect>>(p[kRectsFromLandmarks])) {
    hands_at_least(v->size());
    for (size_t h = 0; h < v->size(); ++h) r.hands[h].rect_from_landmarks = (*v)[h];
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::Detection>>(p[kPalmDetections])) {
    r.palm_detections = *v;
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedRect>>(p[kRectsFromPalms])) {
    r.rects_from_palm_detections = *v;
  }
  return r;
}

absl::Status HandTracker::Send(ImageFrame frame, int64_t timestamp_us,
                               std::shared_ptr<const ImageFrame>* shared) {
  return pipeline_->Send(std::move(frame), timestamp_us, shared);
}

bool HandTracker::TryNext(HandTrackingResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->TryNext(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

bool HandTracker::Next(HandTrackingResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->Next(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

absl::Status HandTracker::Close() { return pipeline_->Close(); }

absl::Status HandTracker::status() const { return pipeline_->status(); }

absl::StatusOr<HandTrackingResult> HandTracker::Process(const ImageFrame& frame,
                                                       int64_t timestamp_us) {
  ASSIGN_OR_RETURN(FrameOutputs outputs, pipeline_->Process(frame, timestamp_us));
  return ToResult(std::move(outputs));
}

std::vector<StageTime> HandTracker::StageTimes() const {
  return pipeline_->StageTimes(
      {{"palm detection", "palmdetectioncpu__"}, {"hand landmarks", "handlandmarkcpu__"}});
}

absl::Status HandTracker::WriteTrace(const std::string& path) const {
  return pipeline_->WriteTrace(path);
}

}  // namespace sluice
