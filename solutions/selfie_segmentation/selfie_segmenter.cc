#include "solutions/selfie_segmentation/selfie_segmenter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

constexpr char kInputStream[] = "image";
constexpr char kMaskStream[] = "segmentation_mask";

}  // namespace

absl::Status ValidateSelfieSegmenterOptions(const SelfieSegmenterOptions& o) {
  if (o.model_selection != 0 && o.model_selection != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("model_selection must be 0 or 1, got ", o.model_selection));
  }
  RETURN_IF_ERROR(ValidateDevice(o.device));
  if (o.inference_threads < 0) return absl::InvalidArgumentError("inference_threads must be >= 0");
  if (o.max_in_flight < 1) return absl::InvalidArgumentError("max_in_flight must be >= 1");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SelfieSegmenter>> SelfieSegmenter::Create(
    const SelfieSegmenterOptions& options) {
  RETURN_IF_ERROR(ValidateSelfieSegmenterOptions(options));
  // The module graph itself at the top level, as MediaPipe's Python solution
  // runs it, so node names are MediaPipe's; smoothing wraps it.
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   ExpandedSolutionGraph(options.smooth_segmentation
                                             ? "SelfieSegmentationSmoothedCpu"
                                             : "SelfieSegmentationCpu"));
  SetInferenceThreads(&config, options.inference_threads);
  SetInferenceDevice(&config, options.device);
  CalculatorGraph::SidePackets side_packets;
  side_packets["model_selection"] = MakePacket<int>(options.model_selection);
  if (options.smooth_segmentation) side_packets["smooth_segmentation"] = MakePacket<bool>(true);
  FramePipeline::Options pipeline;
  pipeline.name = "SelfieSegmenter";
  pipeline.input_stream = kInputStream;
  pipeline.output_streams = {kMaskStream};
  pipeline.max_in_flight = options.max_in_flight;
  pipeline.enable_tracing = options.enable_tracing;
  std::unique_ptr<SelfieSegmenter> segmenter(new SelfieSegmenter());
  ASSIGN_OR_RETURN(segmenter->pipeline_, FramePipeline::Start(config, side_packets, pipeline));
  return segmenter;
}

SelfieSegmenter::~SelfieSegmenter() = default;

SegmentationResult SelfieSegmenter::ToResult(FrameOutputs outputs) {
  SegmentationResult r;
  r.timestamp_us = outputs.timestamp_us;
  r.width = outputs.width;
  r.height = outputs.height;
  if (!outputs.packets[0].IsEmpty()) {
    absl::StatusOr<std::shared_ptr<const ImageFrame>> mask = outputs.packets[0].Share<ImageFrame>();
    if (mask.ok()) r.mask = *mask;
  }
  return r;
}

absl::Status SelfieSegmenter::Send(ImageFrame frame, int64_t timestamp_us,
                                   std::shared_ptr<const ImageFrame>* shared) {
  return pipeline_->Send(std::move(frame), timestamp_us, shared);
}

bool SelfieSegmenter::TryNext(SegmentationResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->TryNext(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

bool SelfieSegmenter::Next(SegmentationResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->Next(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

absl::Status SelfieSegmenter::Close() { return pipeline_->Close(); }

absl::Status SelfieSegmenter::status() const { return pipeline_->status(); }

absl::StatusOr<SegmentationResult> SelfieSegmenter::Process(const ImageFrame& frame,
                                                            int64_t timestamp_us) {
  ASSIGN_OR_RETURN(FrameOutputs outputs, pipeline_->Process(frame, timestamp_us));
  SegmentationResult result = ToResult(std::move(outputs));
  if (result.mask == nullptr) {
    return absl::InternalError("selfie segmentation graph produced no mask");
  }
  return result;
}

std::vector<SegmentationStageTime> SelfieSegmenter::StageTimes() const {
  return pipeline_->StageTimes(
      [](const mediapipe::CalculatorGraphConfig::Node& node, const std::string&) -> std::string {
        const std::string& calc = node.calculator();
        if (calc == "ImageToTensorCalculator") return "preprocessing";
        if (calc == "InferenceCalculatorCpu" || calc == "InferenceCalculator") return "inference";
        return "mask";
      });
}

absl::Status SelfieSegmenter::WriteTrace(const std::string& path) const {
  return pipeline_->WriteTrace(path);
}

}  // namespace sluice
