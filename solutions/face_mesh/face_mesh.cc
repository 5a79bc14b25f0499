#include "solutions/face_mesh/face_mesh.h"

#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "calculators/util/thresholding_calculator.pb.h"
#include "solutions/common/node_options.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

// The graph's outputs we collect, in FramePipeline order.
enum Output { kLandmarks, kRectsFromLandmarks, kDetections, kRectsFromDetections, kNumOutputs };
constexpr const char* kOutputStreams[kNumOutputs] = {
    "multi_face_landmarks", "face_rects_from_landmarks", "face_detections",
    "face_rects_from_detections"};

// The thresholds live in node options addressed by expanded node name, as in
// MediaPipe's Python solution (its calculator_params).
constexpr char kDetectionScoreNode[] =
    "facedetectionshortrangecpu__facedetectionshortrange__facedetection__"
    "TensorsToDetectionsCalculator";
constexpr char kPresenceNode[] = "facelandmarkcpu__ThresholdingCalculator";
constexpr char kGraph[] = "face mesh";  // for FindNode's messages

}  // namespace

absl::Status ValidateFaceMeshOptions(const FaceMeshOptions& o) {
  if (o.max_num_faces < 1) return absl::InvalidArgumentError("max_num_faces must be >= 1");
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

absl::StatusOr<std::unique_ptr<FaceMesh>> FaceMesh::Create(const FaceMeshOptions& options) {
  RETURN_IF_ERROR(ValidateFaceMeshOptions(options));
  // FaceLandmarkFrontCpu itself is the top level, as in MediaPipe's Python
  // solution, so node names are MediaPipe's.
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   ExpandedSolutionGraph("FaceLandmarkFrontCpu"));
  ASSIGN_OR_RETURN(auto* scores, FindNode(&config, kDetectionScoreNode, kGraph));
  const float detection = options.min_detection_confidence;
  RETURN_IF_ERROR(EditNodeOptions<mediapipe::TensorsToDetectionsCalculatorOptions>(
      scores, [detection](auto* o) { o->set_min_score_thresh(detection); }));
  ASSIGN_OR_RETURN(auto* presence, FindNode(&config, kPresenceNode, kGraph));
  const double tracking = options.min_tracking_confidence;
  RETURN_IF_ERROR(EditNodeOptions<mediapipe::ThresholdingCalculatorOptions>(
      presence, [tracking](auto* o) { o->set_threshold(tracking); }));
  // In place: the inference nodes' model paths are in node_options.
  RETURN_IF_ERROR(EditInferenceThreads(&config, options.inference_threads));
  SetInferenceDevice(&config, options.device);

  CalculatorGraph::SidePackets side_packets;
  side_packets["num_faces"] = MakePacket<int>(options.max_num_faces);
  side_packets["with_attention"] = MakePacket<bool>(options.refine_landmarks);
  side_packets["use_prev_landmarks"] = MakePacket<bool>(!options.static_image_mode);
  FramePipeline::Options pipeline;
  pipeline.name = "FaceMesh";
  pipeline.output_streams.assign(std::begin(kOutputStreams), std::end(kOutputStreams));
  pipeline.max_in_flight = options.max_in_flight;
  pipeline.enable_tracing = options.enable_tracing;
  std::unique_ptr<FaceMesh> mesh(new FaceMesh());
  ASSIGN_OR_RETURN(mesh->pipeline_, FramePipeline::Start(config, side_packets, pipeline));
  return mesh;
}

FaceMesh::~FaceMesh() = default;

FaceMeshResult FaceMesh::ToResult(FrameOutputs outputs) const {
  FaceMeshResult r;
  r.timestamp_us = outputs.timestamp_us;
  r.width = outputs.width;
  r.height = outputs.height;
  const std::vector<Packet>& p = outputs.packets;
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedLandmarkList>>(p[kLandmarks])) {
    r.faces.resize(v->size());
    for (size_t f = 0; f < v->size(); ++f) r.faces[f].landmarks = (*v)[f];
  }
  // One rect per face with landmarks, in the same order.
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedRect>>(p[kRectsFromLandmarks])) {
    for (size_t f = 0; f < v->size() && f < r.faces.size(); ++f) {
      r.faces[f].rect_from_landmarks = (*v)[f];
    }
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::Detection>>(p[kDetections])) {
    r.face_detections = *v;
  }
  if (auto* v = OutputPayload<std::vector<mediapipe::NormalizedRect>>(p[kRectsFromDetections])) {
    r.rects_from_detections = *v;
  }
  return r;
}

absl::Status FaceMesh::Send(ImageFrame frame, int64_t timestamp_us,
                            std::shared_ptr<const ImageFrame>* shared) {
  return pipeline_->Send(std::move(frame), timestamp_us, shared);
}

bool FaceMesh::TryNext(FaceMeshResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->TryNext(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

bool FaceMesh::Next(FaceMeshResult* result) {
  FrameOutputs outputs;
  if (!pipeline_->Next(&outputs)) return false;
  *result = ToResult(std::move(outputs));
  return true;
}

absl::Status FaceMesh::Close() { return pipeline_->Close(); }

absl::Status FaceMesh::status() const { return pipeline_->status(); }

absl::StatusOr<FaceMeshResult> FaceMesh::Process(const ImageFrame& frame, int64_t timestamp_us) {
  ASSIGN_OR_RETURN(FrameOutputs outputs, pipeline_->Process(frame, timestamp_us));
  return ToResult(std::move(outputs));
}

std::vector<StageTime> FaceMesh::StageTimes() const {
  return pipeline_->StageTimes(
      {{"face detection", "facedetectionshortrangecpu__"}, {"face landmarks", "facelandmarkcpu__"}});
}

absl::Status FaceMesh::WriteTrace(const std::string& path) const {
  return pipeline_->WriteTrace(path);
}

}  // namespace sluice
