#include "solutions/face_detection/face_detector.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "solutions/common/frame_pipeline.h"
#include "solutions/common/node_options.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

constexpr char kOutputStream[] = "detections";

// The top-level graphs MediaPipe's Python solution runs, by model_selection,
// and the prefix of their expanded node names.
constexpr const char* kGraphTypes[2] = {"FaceDetectionShortRangeCpu", "FaceDetectionFullRangeCpu"};
constexpr const char* kNodePrefixes[2] = {"facedetectionshortrange__facedetection__",
                                          "facedetectionfullrange__facedetection__"};

constexpr char kModelStage[] = "face model";
constexpr char kOtherStage[] = "other graph nodes";

DetectedFace ToFace(const mediapipe::Detection& d) {
  DetectedFace face;
  face.detection = d;
  if (d.score_size() > 0) face.score = d.score(0);
  const auto& loc = d.location_data();
  const auto& box = loc.relative_bounding_box();
  face.xmin = box.xmin();
  face.ymin = box.ymin();
  face.width = box.width();
  face.height = box.height();
  for (int k = 0; k < kNumFaceKeypoints && k < loc.relative_keypoints_size(); ++k) {
    face.keypoints[k] = {loc.relative_keypoints(k).x(), loc.relative_keypoints(k).y()};
  }
  return face;
}

FaceDetectionResult ToResult(FrameOutputs outputs) {
  FaceDetectionResult r;
  r.timestamp_us = outputs.timestamp_us;
  r.width = outputs.width;
  r.height = outputs.height;
  if (auto* v = OutputPayload<std::vector<mediapipe::Detection>>(outputs.packets[0])) {
    for (const mediapipe::Detection& d : *v) r.faces.push_back(ToFace(d));
  }
  return r;
}

// The models take RGB; anything else would only fail inside the graph.
absl::Status CheckFrame(const ImageFrame& frame) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError("FaceDetector: empty frame");
  if (frame.Format() != ImageFormat::SRGB && frame.Format() != ImageFormat::SRGBA) {
    return absl::InvalidArgumentError(
        absl::StrCat("FaceDetector: frames must be SRGB or SRGBA, got format ",
                     static_cast<int>(frame.Format())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateFaceDetectorOptions(const FaceDetectorOptions& o) {
  if (o.model_selection != 0 && o.model_selection != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("model_selection must be 0 or 1, got ", o.model_selection));
  }
  if (o.min_detection_confidence.has_value()) {
    const float v = *o.min_detection_confidence;
    if (!(v >= 0.0f && v <= 1.0f)) {
      return absl::InvalidArgumentError(
          absl::StrCat("min_detection_confidence must be in [0, 1], got ", v));
    }
  }
  RETURN_IF_ERROR(ValidateDevice(o.device));
  if (o.inference_threads < 0) return absl::InvalidArgumentError("inference_threads must be >= 0");
  if (o.max_in_flight < 1) return absl::InvalidArgumentError("max_in_flight must be >= 1");
  return absl::OkStatus();
}

FaceDetector::~FaceDetector() = default;

absl::StatusOr<std::unique_ptr<FaceDetector>> FaceDetector::Create(
    const FaceDetectorOptions& options) {
  RETURN_IF_ERROR(ValidateFaceDetectorOptions(options));
  // The module graph itself is the top level, as in MediaPipe's Python
  // solution, so expanded node names are MediaPipe's.
  const int m = options.model_selection;
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config, ExpandedSolutionGraph(kGraphTypes[m]));
  if (options.min_detection_confidence.has_value()) {
    const std::string name = absl::StrCat(kNodePrefixes[m], "TensorsToDetectionsCalculator");
    ASSIGN_OR_RETURN(auto* decoder, FindNode(&config, name, "face detection"));
    const float threshold = *options.min_detection_confidence;
    RETURN_IF_ERROR(EditNodeOptions<mediapipe::TensorsToDetectionsCalculatorOptions>(
        decoder, [threshold](auto* o) { o->set_min_score_thresh(threshold); }));
  }
  // In place: the inference node's model path is in node_options.
  RETURN_IF_ERROR(EditInferenceThreads(&config, options.inference_threads));
  SetInferenceDevice(&config, options.device);

  FramePipeline::Options pipeline;
  pipeline.name = "FaceDetector";
  pipeline.output_streams = {kOutputStream};
  pipeline.max_in_flight = options.max_in_flight;
  pipeline.enable_tracing = options.enable_tracing;
  std::unique_ptr<FaceDetector> detector(new FaceDetector());
  ASSIGN_OR_RETURN(detector->pipeline_, FramePipeline::Start(config, {}, pipeline));
  return detector;
}

absl::Status FaceDetector::Send(ImageFrame frame, int64_t timestamp_us,
                                std::shared_ptr<const ImageFrame>* shared) {
  RETURN_IF_ERROR(CheckFrame(frame));
  return pipeline_->Send(std::move(frame), timestamp_us, shared);
}

bool FaceDetector::TryNext(FaceDetectionResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->TryNext(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

bool FaceDetector::Next(FaceDetectionResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->Next(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

absl::Status FaceDetector::Close() { return pipeline_->Close(); }

absl::Status FaceDetector::status() const { return pipeline_->status(); }

absl::StatusOr<FaceDetectionResult> FaceDetector::Process(const ImageFrame& frame,
                                                         int64_t timestamp_us) {
  RETURN_IF_ERROR(CheckFrame(frame));
  ASSIGN_OR_RETURN(FrameOutputs outputs, pipeline_->Process(frame, timestamp_us));
  return ToResult(std::move(outputs));
}

std::vector<FaceStageTime> FaceDetector::StageTimes() const {
  const std::vector<StageTime> times = pipeline_->StageTimes(
      [](const mediapipe::CalculatorGraphConfig::Node& node, const std::string&) -> std::string {
        return absl::StartsWith(node.calculator(), "InferenceCalculator") ? kModelStage
                                                                          : kOtherStage;
      });
  if (times.empty()) return {};  // tracing is off
  // Both stages, the model first, whichever ran.
  std::vector<FaceStageTime> stages = {{kModelStage}, {kOtherStage}};
  for (const StageTime& t : times) {
    FaceStageTime& st = stages[t.stage == kModelStage ? 0 : 1];
    st.invocations += t.invocations;
    st.total_ms += t.total_ms;
  }
  return stages;
}

absl::Status FaceDetector::WriteTrace(const std::string& path) const {
  return pipeline_->WriteTrace(path);
}

}  // namespace sluice
