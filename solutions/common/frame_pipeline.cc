#include "solutions/common/frame_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/inference_calculator.pb.h"
#include "framework/tool/subgraph_expansion.h"
#include "framework/tool/subgraph_registry.h"
#include "inference/backend.h"
#include "framework/tracer.h"
#include "util/status_macros.h"

namespace sluice {

struct FramePipeline::State {
  std::mutex mu;
  std::condition_variable cv;
  // Frames sent and not yet taken by Next(), oldest first.
  std::deque<FrameOutputs> pending;
  // Per output stream: every timestamp up to this one is final.
  std::vector<Timestamp> settled;
  bool closed = false;
  absl::Status error;

  FrameOutputs* Find(int64_t ts) {
    for (FrameOutputs& f : pending) {
      if (f.timestamp_us == ts) return &f;
    }
    return nullptr;
  }
  bool Complete(int64_t ts) const {
    for (const Timestamp& s : settled) {
      if (s == Timestamp::Unset() || s < Timestamp(ts)) return false;
    }
    return true;
  }
  bool FrontDone() const {
    return !pending.empty() && (closed || Complete(pending.front().timestamp_us));
  }
  int Incomplete() const {
    int n = 0;
    for (const FrameOutputs& f : pending) n += Complete(f.timestamp_us) ? 0 : 1;
    return n;
  }
};

FramePipeline::FramePipeline() : state_(std::make_unique<State>()) {}

FramePipeline::~FramePipeline() {
  if (graph_ != nullptr) {
    graph_->Cancel();
    graph_->WaitUntilDone().IgnoreError();
  }
}

absl::StatusOr<std::unique_ptr<FramePipeline>> FramePipeline::Start(
    const mediapipe::CalculatorGraphConfig& config, const CalculatorGraph::SidePackets& side_packets,
    Options options) {
  if (options.max_in_flight < 1) {
    return absl::InvalidArgumentError(absl::StrCat(options.name, ": max_in_flight must be >= 1"));
  }
  std::unique_ptr<FramePipeline> p(new FramePipeline());
  p->options_ = std::move(options);
  p->state_->settled.assign(p->options_.output_streams.size(), Timestamp::Unset());
  p->graph_ = std::make_unique<CalculatorGraph>();
  if (p->options_.enable_tracing) p->graph_->EnableTracing();
  RETURN_IF_ERROR(p->graph_->Initialize(config));
  State* state = p->state_.get();
  for (size_t k = 0; k < p->options_.output_streams.size(); ++k) {
    RETURN_IF_ERROR(p->graph_->ObserveOutputStream(
        p->options_.output_streams[k],
        [state, k](const Packet& packet) {
          std::lock_guard<std::mutex> lock(state->mu);
          if (state->settled[k] == Timestamp::Unset() || state->settled[k] < packet.Timestamp()) {
            state->settled[k] = packet.Timestamp();
          }
          if (!packet.IsEmpty()) {
            if (FrameOutputs* f = state->Find(packet.Timestamp().Value())) f->packets[k] = packet;
          }
          state->cv.notify_all();
          return absl::OkStatus();
        },
        /*observe_timestamp_bounds=*/true));
  }
  RETURN_IF_ERROR(p->graph_->StartRun(side_packets));
  return p;
}

absl::Status FramePipeline::Send(ImageFrame frame, int64_t timestamp_us,
                                 std::shared_ptr<const ImageFrame>* shared) {
  const std::string& name = options_.name;
  if (frame.IsEmpty()) return absl::InvalidArgumentError(absl::StrCat(name, ": empty frame"));
  FrameOutputs outputs;
  outputs.timestamp_us = timestamp_us;
  outputs.width = frame.Width();
  outputs.height = frame.Height();
  outputs.packets.resize(options_.output_streams.size());
  Packet packet = MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(timestamp_us));
  if (shared != nullptr) {
    ASSIGN_OR_RETURN(*shared, packet.Share<ImageFrame>());
  }
  {
    std::unique_lock<std::mutex> lock(state_->mu);
    if (state_->closed) return absl::FailedPreconditionError(absl::StrCat(name, ": Send after Close"));
    if (!state_->pending.empty() && state_->pending.back().timestamp_us >= timestamp_us) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": timestamps must increase (", timestamp_us, " after ",
                       state_->pending.back().timestamp_us, ")"));
    }
    // Observers notify on every packet and bound; the timeout only covers a
    // graph error raised without stream activity.
    while (state_->Incomplete() >= options_.max_in_flight && !graph_->HasError()) {
      state_->cv.wait_for(lock, std::chrono::milliseconds(50));
    }
    state_->pending.push_back(std::move(outputs));
  }
  absl::Status s = graph_->AddPacketToInputStream(options_.input_stream, std::move(packet));
  if (!s.ok()) {
    {
      // The frame never entered the graph: no result will come for it.
      std::lock_guard<std::mutex> lock(state_->mu);
      if (!state_->pending.empty() && state_->pending.back().timestamp_us == timestamp_us) {
        state_->pending.pop_back();
      }
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

bool FramePipeline::TryNext(FrameOutputs* outputs) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->FrontDone()) return false;
  *outputs = std::move(state_->pending.front());
  state_->pending.pop_front();
  state_->cv.notify_all();
  return true;
}

bool FramePipeline::Next(FrameOutputs* outputs) {
  std::unique_lock<std::mutex> lock(state_->mu);
  while (!state_->FrontDone()) {
    if (state_->pending.empty() && state_->closed) return false;
    if (graph_->HasError()) return false;
    state_->cv.wait_for(lock, std::chrono::milliseconds(50));
  }
  *outputs = std::move(state_->pending.front());
  state_->pending.pop_front();
  state_->cv.notify_all();
  return true;
}

absl::StatusOr<FrameOutputs> FramePipeline::Process(const ImageFrame& frame,
                                                   int64_t timestamp_us) {
  if (frame.IsEmpty()) {
    return absl::InvalidArgumentError(absl::StrCat(options_.name, ": empty frame"));
  }
  ASSIGN_OR_RETURN(ImageFrame copy, frame.Clone());
  RETURN_IF_ERROR(Send(std::move(copy), timestamp_us));
  FrameOutputs outputs;
  if (!Next(&outputs)) {
    absl::Status s = Close();
    return s.ok() ? absl::InternalError(absl::StrCat(options_.name, ": graph stopped")) : s;
  }
  return outputs;
}

absl::Status FramePipeline::Close() {
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

absl::Status FramePipeline::status() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->error.ok()) return state_->error;
  if (graph_->HasError()) {
    return absl::InternalError(
        absl::StrCat(options_.name, ": the graph failed (Close() returns its error)"));
  }
  return absl::OkStatus();
}

std::vector<StageTime> FramePipeline::StageTimes(const StageOf& stage_of) const {
  Tracer* tracer = graph_->tracer();
  if (tracer == nullptr) return {};
  std::vector<StageTime> stages;
  const mediapipe::CalculatorGraphConfig& config = graph_->Config();
  std::vector<size_t> stage_of_node(config.node_size());
  for (int i = 0; i < config.node_size(); ++i) {
    const std::string stage = stage_of(config.node(i), CanonicalNodeName(config, i));
    size_t s = 0;
    while (s < stages.size() && stages[s].stage != stage) ++s;
    if (s == stages.size()) stages.push_back({stage});
    stage_of_node[i] = s;
  }
  for (const Tracer::Event& e : tracer->Events()) {
    if (e.kind != Tracer::Kind::kProcess) continue;
    if (e.node < 0 || e.node >= static_cast<int>(stage_of_node.size())) continue;
    StageTime& st = stages[stage_of_node[e.node]];
    ++st.invocations;
    st.total_ms += static_cast<double>(e.end_us - e.start_us) / 1000.0;
  }
  return stages;
}

std::vector<StageTime> FramePipeline::StageTimes(
    const std::vector<std::pair<std::string, std::string>>& stage_prefixes) const {
  std::vector<StageTime> stages =
      StageTimes([&stage_prefixes](const mediapipe::CalculatorGraphConfig::Node&,
                                   const std::string& name) -> std::string {
        for (const auto& [stage, prefix] : stage_prefixes) {
          if (absl::StartsWith(name, prefix)) return stage;
        }
        return "other graph nodes";
      });
  // In the caller's order, the rest last.
  auto rank = [&stage_prefixes](const StageTime& st) {
    size_t i = 0;
    while (i < stage_prefixes.size() && stage_prefixes[i].first != st.stage) ++i;
    return i;
  };
  std::stable_sort(stages.begin(), stages.end(),
                   [&rank](const StageTime& a, const StageTime& b) { return rank(a) < rank(b); });
  return stages;
}

absl::StatusOr<mediapipe::CalculatorGraphConfig> ExpandedSolutionGraph(const std::string& type) {
  ASSIGN_OR_RETURN(mediapipe::CalculatorGraphConfig config,
                   SubgraphRegistry::Get().Create(type, mediapipe::CalculatorGraphConfig::Node()));
  config.clear_type();
  RETURN_IF_ERROR(ExpandSubgraphs(&config));
  return config;
}

absl::Status ValidateDevice(const std::string& device) {
  if (device != "cpu" && device != "cuda" && device != "auto") {
    return absl::InvalidArgumentError(
        absl::StrCat("device must be cpu, cuda or auto, got \"", device, "\""));
  }
  if (device == "cuda") {
    const inference::Backend* cuda = inference::FindBackend("cuda");
    if (cuda == nullptr) {
      return absl::FailedPreconditionError(
          "device cuda: this build has no CUDA inference backend (it was built without the "
          "CUDA toolkit); use --device cpu or auto");
    }
    if (!cuda->IsAvailable()) {
      return absl::FailedPreconditionError(
          "device cuda: no usable CUDA GPU found; use --device cpu or auto");
    }
  }
  return absl::OkStatus();
}

std::string ResolveDevice(const std::string& device) {
  if (device != "auto") return device;
  const inference::Backend* cuda = inference::FindBackend("cuda");
  if (cuda != nullptr && cuda->IsAvailable()) return "cuda";
  static std::once_flag notice;
  std::call_once(notice, [] {
    std::fprintf(stderr, "sluice: device auto: no CUDA GPU for inference, running on the CPU\n");
  });
  return "cpu";
}

void SetInferenceDevice(mediapipe::CalculatorGraphConfig* config, const std::string& device) {
  if (ResolveDevice(device) != "cuda") return;
  for (auto& node : *config->mutable_node()) {
    if (node.calculator() != "InferenceCalculatorCpu" && node.calculator() != "InferenceCalculator") {
      continue;
    }
    // The delegate is a oneof: this replaces an xnnpack thread setting.
    node.mutable_options()
        ->MutableExtension(mediapipe::InferenceCalculatorOptions::ext)
        ->mutable_delegate()
        ->mutable_gpu();
  }
}

void SetInferenceThreads(mediapipe::CalculatorGraphConfig* config, int threads) {
  if (threads <= 0) return;
  for (auto& node : *config->mutable_node()) {
    if (node.calculator() != "InferenceCalculatorCpu" && node.calculator() != "InferenceCalculator") {
      continue;
    }
    node.mutable_options()
        ->MutableExtension(mediapipe::InferenceCalculatorOptions::ext)
        ->mutable_delegate()
        ->mutable_xnnpack()
        ->set_num_threads(threads);
  }
}

absl::Status FramePipeline::WriteTrace(const std::string& path) const {
  Tracer* tracer = graph_->tracer();
  if (tracer == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(options_.name, ": tracing is off"));
  }
  return tracer->WriteChromeTrace(path);
}

}  // namespace sluice
