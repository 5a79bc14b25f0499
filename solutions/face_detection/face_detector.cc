#include "solutions/face_detection/face_detector.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "framework/calculator_graph.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "framework/tracer.h"
#include "inference/backend.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

constexpr char kOutputStream[] = "detections";

// The top-level graphs MediaPipe's Python solution runs, by model_selection,
// and the prefix of their expanded node names.
constexpr const char* kGraphTypes[2] = {"FaceDetectionShortRangeCpu", "FaceDetectionFullRangeCpu"};
constexpr const char* kNodePrefixes[2] = {"facedetectionshortrange__facedetection__",
                                          "facedetectionfullrange__facedetection__"};

absl::StatusOr<mediapipe::CalculatorGraphConfig::Node*> FindNode(
    mediapipe::CalculatorGraphConfig* config, const std::string& name) {
  for (int i = 0; i < config->node_size(); ++i) {
    if (CanonicalNodeName(*config, i) == name) return config->mutable_node(i);
  }
  return absl::InternalError(absl::StrCat("face detection graph has no node \"", name, "\""));
}

// Edits the options of type T of an expanded node. After option_value the
// values live in node_options (an Any), which must be edited in place: an
// `options` extension would take precedence and hide the other fields.
template <typename T, typename Edit>
absl::Status EditNodeOptions(mediapipe::CalculatorGraphConfig::Node* node, Edit edit) {
  for (auto& any : *node->mutable_node_options()) {
    if (!any.Is<T>()) continue;
    T options;
    if (!any.UnpackTo(&options)) {
      return absl::InternalError(absl::StrCat("node \"", node->name(), "\": unreadable options"));
    }
    edit(&options);
    any.PackFrom(options);
    return absl::OkStatus();
  }
  if (node->options().HasExtension(T::ext)) {
    edit(node->mutable_options()->MutableExtension(T::ext));
    return absl::OkStatus();
  }
  T options;
  edit(&options);
  node->add_node_options()->PackFrom(options);
  return absl::OkStatus();
}

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

}  // namespace

struct FaceDetector::State {
  std::mutex mu;
  std::condition_variable cv;
  // Frames sent and not yet taken by Next(), oldest first.
  std::deque<FaceDetectionResult> pending;
  // Every timestamp up to this one is final on the output stream.
  Timestamp settled = Timestamp::Unset();
  bool closed = false;
  absl::Status error;
  int max_in_flight = 3;

  bool Settled(int64_t ts) const { return settled != Timestamp::Unset() && settled >= Timestamp(ts); }
  bool FrontDone() const {
    return !pending.empty() && (closed || Settled(pending.front().timestamp_us));
  }
  int InFlight() const {
    int n = 0;
    for (const FaceDetectionResult& r : pending) n += Settled(r.timestamp_us) ? 0 : 1;
    return n;
  }
};

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
  if (o.device != "cpu" && o.device != "cuda" && o.device != "auto") {
    return absl::InvalidArgumentError(
        absl::StrCat("device must be cpu, cuda or auto, got \"", o.device, "\""));
  }
  if (o.device == "cuda") {
    const inference::Backend* cuda = inference::FindBackend("cuda");
    if (cuda == nullptr) {
      return absl::FailedPreconditionError(
          "device cuda: this build has no CUDA backend (configure with the CUDA toolkit, "
          "-DSLUICE_CUDA=ON); use --device cpu or auto");
    }
    if (!cuda->IsAvailable()) {
      return absl::FailedPreconditionError(
          "device cuda: no usable CUDA GPU found; use --device cpu or auto");
    }
  }
  if (o.inference_threads < 0) return absl::InvalidArgumentError("inference_threads must be >= 0");
  if (o.max_in_flight < 1) return absl::InvalidArgumentError("max_in_flight must be >= 1");
  return absl::OkStatus();
}

FaceDetector::FaceDetector() : state_(std::make_unique<State>()) {}

FaceDetector::~FaceDetector() {
  if (graph_ != nullptr) {
    graph_->Cancel();
    graph_->WaitUntilDone().IgnoreError();
  }
}

absl::StatusOr<std::unique_ptr<FaceDetector>> FaceDetector::Create(
    const FaceDetectorOptions& options) {
  RETURN_IF_ERROR(ValidateFaceDetectorOptions(options));
  std::unique_ptr<FaceDetector> detector(new FaceDetector());
  RETURN_IF_ERROR(detector->Init(options));
  return detector;
}

absl::Status FaceDetector::Init(const FaceDetectorOptions& options) {
  state_->max_in_flight = options.max_in_flight;
  // The module graph itself is the top level, as in MediaPipe's Python
  // solution, so expanded node names are MediaPipe's.
  const int m = options.model_selection;
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   SubgraphRegistry::Get().Create(kGraphTypes[m],
                                                  mediapipe::CalculatorGraphConfig::Node()));
  config.clear_type();
  RETURN_IF_ERROR(ExpandSubgraphs(&config));
  if (options.min_detection_confidence.has_value()) {
    ASSIGN_OR_RETURN(auto* decoder,
                     FindNode(&config, absl::StrCat(kNodePrefixes[m], "TensorsToDetectionsCalculator")));
    const float threshold = *options.min_detection_confidence;
    RETURN_IF_ERROR(EditNodeOptions<mediapipe::TensorsToDetectionsCalculatorOptions>(
        decoder, [threshold](auto* o) { o->set_min_score_thresh(threshold); }));
  }
  if (options.inference_threads > 0) {
    for (auto& node : *config.mutable_node()) {
      if (node.calculator() != "InferenceCalculatorCpu" &&
          node.calculator() != "InferenceCalculator") {
        continue;
      }
      const int threads = options.inference_threads;
      RETURN_IF_ERROR(EditNodeOptions<mediapipe::InferenceCalculatorOptions>(
          &node, [threads](auto* o) {
            o->mutable_delegate()->mutable_xnnpack()->set_num_threads(threads);
          }));
    }
  }

  graph_ = std::make_unique<CalculatorGraph>();
  if (options.enable_tracing) graph_->EnableTracing();
  RETURN_IF_ERROR(graph_->Initialize(config));
  State* state = state_.get();
  RETURN_IF_ERROR(graph_->ObserveOutputStream(
      kOutputStream,
      [state](const Packet& p) {
        std::lock_guard<std::mutex> lock(state->mu);
        if (state->settled == Timestamp::Unset() || state->settled < p.Timestamp()) {
          state->settled = p.Timestamp();
        }
        if (!p.IsEmpty()) {
          absl::StatusOr<const std::vector<mediapipe::Detection>*> v =
              p.TryGet<std::vector<mediapipe::Detection>>();
          for (FaceDetectionResult& r : state->pending) {
            if (!v.ok() || r.timestamp_us != p.Timestamp().Value()) continue;
            for (const mediapipe::Detection& d : **v) r.faces.push_back(ToFace(d));
          }
        }
        state->cv.notify_all();
        return absl::OkStatus();
      },
      /*observe_timestamp_bounds=*/true));
  return graph_->StartRun({});
}

absl::Status FaceDetector::Send(ImageFrame frame, int64_t timestamp_us,
                                std::shared_ptr<const ImageFrame>* shared) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError("FaceDetector: empty frame");
  // The models take RGB; anything else would only fail inside the graph.
  if (frame.Format() != ImageFormat::SRGB && frame.Format() != ImageFormat::SRGBA) {
    return absl::InvalidArgumentError(
        absl::StrCat("FaceDetector: frames must be SRGB or SRGBA, got format ",
                     static_cast<int>(frame.Format())));
  }
  const int width = frame.Width(), height = frame.Height();
  Packet packet = MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(timestamp_us));
  if (shared != nullptr) {
    ASSIGN_OR_RETURN(*shared, packet.Share<ImageFrame>());
  }
  {
    std::unique_lock<std::mutex> lock(state_->mu);
    if (state_->closed) return absl::FailedPreconditionError("FaceDetector: Send after Close");
    if (!state_->pending.empty() && state_->pending.back().timestamp_us >= timestamp_us) {
      return absl::InvalidArgumentError(
          absl::StrCat("FaceDetector: timestamps must increase (", timestamp_us, " after ",
                       state_->pending.back().timestamp_us, ")"));
    }
    // Wait for room; a graph error ends the wait (and is reported below).
    while (state_->InFlight() >= state_->max_in_flight && !graph_->HasError()) {
      state_->cv.wait_for(lock, std::chrono::milliseconds(50));
    }
    FaceDetectionResult r;
    r.timestamp_us = timestamp_us;
    r.width = width;
    r.height = height;
    state_->pending.push_back(std::move(r));
  }
  absl::Status s = graph_->AddPacketToInputStream("image", std::move(packet));
  if (!s.ok()) {
    {
      // The frame never entered the graph: no result will come for it.
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->pending.pop_back();
    }
    // A failed graph refuses input; its own error says why.
    if (graph_->HasError()) {
      absl::Status run = Close();
      if (!run.ok()) return run;
    }
    return s;
  }
  return absl::OkStatus();
}

bool FaceDetector::TryNext(FaceDetectionResult* result) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->FrontDone()) return false;
  *result = std::move(state_->pending.front());
  state_->pending.pop_front();
  state_->cv.notify_all();
  return true;
}

bool FaceDetector::Next(FaceDetectionResult* result) {
  std::unique_lock<std::mutex> lock(state_->mu);
  for (;;) {
    if (state_->FrontDone()) break;
    if (state_->pending.empty() && state_->closed) return false;
    if (graph_->HasError()) return false;
    // The observer notifies on every packet and bound; the timeout only
    // guards against an error raised without any stream activity.
    state_->cv.wait_for(lock, std::chrono::milliseconds(50));
  }
  *result = std::move(state_->pending.front());
  state_->pending.pop_front();
  state_->cv.notify_all();
  return true;
}

absl::Status FaceDetector::Close() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->closed) return state_->error;
  }
  absl::Status s = graph_->CloseAllInputStreams();
  absl::Status done = graph_->WaitUntilDone();
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->closed = true;
  state_->error = done.ok() ? s : done;
  state_->cv.notify_all();
  return state_->error;
}

absl::Status FaceDetector::status() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->error.ok()) return state_->error;
  if (graph_ != nullptr && graph_->HasError()) {
    return absl::InternalError("face detection graph failed (see Close() for the error)");
  }
  return absl::OkStatus();
}

absl::StatusOr<FaceDetectionResult> FaceDetector::Process(const ImageFrame& frame,
                                                         int64_t timestamp_us) {
  if (frame.IsEmpty()) return absl::InvalidArgumentError("FaceDetector: empty frame");
  ASSIGN_OR_RETURN(ImageFrame copy, frame.Clone());
  RETURN_IF_ERROR(Send(std::move(copy), timestamp_us));
  FaceDetectionResult result;
  if (!Next(&result)) {
    absl::Status s = Close();
    return s.ok() ? absl::InternalError("face detection graph stopped") : s;
  }
  return result;
}

std::vector<FaceStageTime> FaceDetector::StageTimes() const {
  Tracer* tracer = graph_ != nullptr ? graph_->tracer() : nullptr;
  if (tracer == nullptr) return {};
  std::vector<FaceStageTime> stages = {{"face model"}, {"other graph nodes"}};
  const mediapipe::CalculatorGraphConfig& config = graph_->Config();
  for (const Tracer::Event& e : tracer->Events()) {
    if (e.kind != Tracer::Kind::kProcess) continue;
    const bool model = e.node >= 0 && e.node < config.node_size() &&
                       absl::StartsWith(config.node(e.node).calculator(), "InferenceCalculator");
    FaceStageTime& st = stages[model ? 0 : 1];
    ++st.invocations;
    st.total_ms += static_cast<double>(e.end_us - e.start_us) / 1000.0;
  }
  return stages;
}

absl::Status FaceDetector::WriteTrace(const std::string& path) const {
  Tracer* tracer = graph_ != nullptr ? graph_->tracer() : nullptr;
  if (tracer == nullptr) return absl::FailedPreconditionError("tracing is off");
  return tracer->WriteChromeTrace(path);
}

}  // namespace sluice
