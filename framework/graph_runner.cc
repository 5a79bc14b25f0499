// GraphImpl run control: StartRun, idle handling, throttling, graph inputs,
// errors and the end of a run.
#include <climits>

#include "absl/strings/str_join.h"
#include "framework/graph_internal.h"

namespace sluice {
namespace internal {
namespace {
std::string Quote(const std::string& s) { return "\"" + s + "\""; }
}  // namespace

GraphImpl::GraphImpl() : scheduler_(std::make_unique<Scheduler>(this)) {}

GraphImpl::~GraphImpl() {
  bool running;
  {
    std::lock_guard<std::mutex> l(run_mu_);
    running = running_;
  }
  if (running) {
    Cancel();
    WaitUntilDone().IgnoreError();
  }
  // Executors (threads) go before the nodes and streams they touch.
  scheduler_->SetExecutors({});
  app_executor_.reset();
  custom_executors_.clear();
}

GraphInput* GraphImpl::FindInput(const std::string& name) {
  for (auto& in : inputs_) {
    if (in->name == name) return in.get();
  }
  return nullptr;
}

absl::Status GraphImpl::StartRun(const CalculatorGraph::SidePackets& extra) {
  if (!initialized_) {
    return absl::FailedPreconditionError("CalculatorGraph::Initialize() must succeed before StartRun()");
  }
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (running_) return absl::FailedPreconditionError("The graph is already running");
  }
  std::map<std::string, Packet> side = init_side_packets_;
  for (const auto& kv : extra) side[kv.first] = kv.second;
  std::vector<std::string> errors;
  side_optional_absent_.clear();
  for (const auto& kv : side_consumers_) {
    const std::string& name = kv.first;
    if (side_producers_.count(name)) continue;
    auto it = side.find(name);
    for (CalculatorNode* n : kv.second) {
      int id = -1;
      for (size_t k = 0; k < n->input_side_names.size(); ++k) {
        if (n->input_side_names[k] == name) id = static_cast<int>(k);
      }
      const PacketType& t = n->contract->InputSidePackets().Get(id);
      if (it == side.end()) {
        if (t.IsOptional()) {
          side_optional_absent_[name] = true;
        } else {
          errors.push_back("Side packet " + Quote(name) + " is required by node " +
                           Quote(n->name) + " but was not provided");
        }
        continue;
      }
      absl::Status s = t.Validate(it->second);
      if (!s.ok()) {
        errors.push_back("Side packet " + Quote(name) + " given to node " + Quote(n->name) +
                         ": " + std::string(s.message()));
      }
    }
  }
  for (auto& np : nodes_) {
    for (const auto& req : np->contract->ServiceRequests()) {
      const std::string& key = req.service->key();
      if (services_.Find(key)) continue;
      if (req.service->AllowsDefaultInitialization()) {
        auto obj = req.service->CreateDefaultObject();
        if (obj.ok()) {
          services_.Set(key, *obj);
          continue;
        }
        if (!req.optional) {
          errors.push_back("Node " + Quote(np->name) + ": cannot create service " + Quote(key) +
                           ": " + std::string(obj.status().message()));
        }
      } else if (!req.optional) {
        errors.push_back("Node " + Quote(np->name) + " requires service " + Quote(key) +
                         " which was not set (CalculatorGraph::SetServiceObject)");
      }
    }
  }
  for (auto& np : nodes_) {
    absl::Status s = np->PrepareForRun();
    if (!s.ok()) errors.push_back(std::string(s.message()));
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError("Cannot start the run:\n  " + absl::StrJoin(errors, "\n  "));
  }
  for (auto& kv : node_streams_) kv.second->ResetForRun();
  for (auto& in : inputs_) {
    in->manager->ResetForRun();
    in->closed = false;
  }
  for (auto& kv : streams_) {
    for (auto& q : kv.second->pollers) q->Reset();
  }
  if (tracer_) tracer_->Clear();
  int first_layer = INT_MAX;
  for (auto& np : nodes_) {
    if (np->is_source) first_layer = std::min(first_layer, np->source_layer);
  }
  {
    std::lock_guard<std::mutex> l(throttle_mu_);
    throttle_count_.assign(unit_nodes_.size(), 0);
    waiting_adders_ = 0;
    active_layer_ = first_layer == INT_MAX ? 0 : first_layer;
  }
  {
    std::lock_guard<std::mutex> l(errors_mu_);
    errors_.clear();
  }
  std::vector<CalculatorNode*> to_open;
  scheduler_->Hold();  // no idle handling until every open task is queued
  {
    std::lock_guard<std::mutex> l(run_mu_);
    side_packets_ = std::move(side);
    stopping_ = false;
    finishing_ = false;
    done_ = false;
    running_ = true;
    scheduler_->ClearQuiescent();
    for (auto& np : nodes_) {
      if (SideInputsReady(*np)) {
        np->open_scheduled = true;
        to_open.push_back(np.get());
      }
    }
  }
  for (CalculatorNode* n : to_open) scheduler_->Schedule(n, Scheduler::TaskKind::kOpen);
  scheduler_->Release();
  return absl::OkStatus();
}

bool GraphImpl::SideInputsReady(const CalculatorNode& node) {
  for (const std::string& name : node.input_side_names) {
    if (!side_packets_.count(name) && !side_optional_absent_.count(name)) return false;
  }
  return true;
}

Packet GraphImpl::LookupSidePacket(const std::string& name) {
  std::lock_guard<std::mutex> l(run_mu_);
  auto it = side_packets_.find(name);
  return it == side_packets_.end() ? Packet() : it->second;
}

void GraphImpl::OnSidePacket(const std::string& name, const Packet& p) {
  std::vector<CalculatorNode*> to_open;
  {
    std::lock_guard<std::mutex> l(run_mu_);
    side_packets_[name] = p;
    if (finishing_ || stopping_) return;
    auto it = side_consumers_.find(name);
    if (it == side_consumers_.end()) return;
    for (CalculatorNode* n : it->second) {
      if (!n->open_scheduled && SideInputsReady(*n)) {
        n->open_scheduled = true;
        to_open.push_back(n);
      }
    }
  }
  for (CalculatorNode* n : to_open) scheduler_->Schedule(n, Scheduler::TaskKind::kOpen);
}

void GraphImpl::ScheduleSource(CalculatorNode* node) {
  std::lock_guard<std::mutex> l(throttle_mu_);
  if (stopping_ || finishing_) return;
  if (!node->stop_requested() && (node->source_layer > active_layer_.load() ||
                                   throttle_count_[node->source_unit] > 0)) {
    node->source_parked = true;
    return;
  }
  node->source_parked = false;
  if (node->source_queued.exchange(true)) return;
  scheduler_->Schedule(node, Scheduler::TaskKind::kSource);
}

void GraphImpl::Throttle(const std::vector<int>& units) {
  std::lock_guard<std::mutex> l(throttle_mu_);
  for (int u : units) ++throttle_count_[u];
}

void GraphImpl::Unthrottle(const std::vector<int>& units) {
  std::lock_guard<std::mutex> l(throttle_mu_);
  bool wake_inputs = false;
  for (int u : units) {
    if (--throttle_count_[u] > 0) continue;
    CalculatorNode* n = unit_nodes_[u];
    if (n == nullptr) {
      wake_inputs = true;
    } else if (n->source_parked && n->source_layer <= active_layer_.load() && !stopping_ &&
               !finishing_) {
      n->source_parked = false;
      if (!n->source_queued.exchange(true)) scheduler_->Schedule(n, Scheduler::TaskKind::kSource);
    }
  }
  if (wake_inputs) throttle_cv_.notify_all();
}

void GraphImpl::OnIdle() {
  std::unique_lock<std::mutex> l(run_mu_);
  if (!running_ || finishing_ || !scheduler_->IsIdle()) return;
  if (stopping_) {
    l.unlock();
    FinishRun();
    return;
  }
  bool active_left = false;
  int next_layer = INT_MAX;
  for (auto& np : nodes_) {
    if (!np->is_source) continue;
    auto st = np->state();
    if (st != CalculatorNode::State::kOpened && st != CalculatorNode::State::kClosing) continue;
    if (np->source_layer <= active_layer_.load()) {
      active_left = true;
    } else {
      next_layer = std::min(next_layer, np->source_layer);
    }
  }
  if (!active_left && next_layer != INT_MAX) {
    std::vector<CalculatorNode*> wake;
    {
      std::lock_guard<std::mutex> tl(throttle_mu_);
      active_layer_ = next_layer;
      for (auto& np : nodes_) {
        if (np->is_source && np->source_parked && np->source_layer <= next_layer) {
          wake.push_back(np.get());
        }
      }
    }
    l.unlock();
    for (CalculatorNode* n : wake) ScheduleSource(n);
    scheduler_->KickIfIdle();
    return;
  }
  bool inputs_open = false;
  for (auto& in : inputs_) {
    std::lock_guard<std::mutex> il(in->mu);
    if (!in->closed) inputs_open = true;
  }
  if (!active_left && !inputs_open) {
    l.unlock();
    if (scheduler_->IsIdle()) FinishRun();
    return;
  }
  l.unlock();
  HandleThrottledIdle();
  l.lock();
  if (scheduler_->IsIdle() && !stopping_) {
    scheduler_->SetQuiescent();
    run_cv_.notify_all();
  }
}

void GraphImpl::HandleThrottledIdle() {
  bool throttled = false;
  {
    std::lock_guard<std::mutex> l(throttle_mu_);
    throttled = waiting_adders_ > 0;
    for (CalculatorNode* n : unit_nodes_) {
      if (n != nullptr && n->source_parked && throttle_count_[n->source_unit] > 0) throttled = true;
    }
  }
  if (!throttled) return;
  std::vector<std::string> full;
  for (auto& np : nodes_) {
    for (auto& name : np->FullQueueNames()) full.push_back(Quote(name));
  }
  if (full.empty()) return;
  if (config_.report_deadlock()) {
    RecordError(absl::UnavailableError(
        "Detected a deadlock due to input throttling for input stream(s) " +
        absl::StrJoin(full, ", ") +
        " (raise max_queue_size, or set report_deadlock: false to let queues grow)"));
    scheduler_->KickIfIdle();
    return;
  }
  // Let the full queues grow by one so the throttled sources can go on.
  for (auto& np : nodes_) np->GrowFullQueues();
}

void GraphImpl::FinishRun() {
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (finishing_ || !running_) return;
    finishing_ = true;
  }
  for (auto& np : nodes_) np->ForceClose();
  for (auto& kv : streams_) {
    for (auto& q : kv.second->pollers) q->Close();
  }
  const std::string& trace_path = config_.profiler_config().trace_log_path();
  if (tracer_ && !trace_path.empty()) {
    absl::Status s = tracer_->WriteChromeTrace(trace_path);
    if (!s.ok()) RecordError(s);
  }
  {
    std::lock_guard<std::mutex> l(run_mu_);
    running_ = false;
    done_ = true;
  }
  run_cv_.notify_all();
  {
    std::lock_guard<std::mutex> l(throttle_mu_);
  }
  throttle_cv_.notify_all();
}

void GraphImpl::RecordError(const absl::Status& s) {
  {
    std::lock_guard<std::mutex> l(errors_mu_);
    if (errors_.size() < 1000) errors_.push_back(s);
  }
  stopping_ = true;
  {
    std::lock_guard<std::mutex> l(throttle_mu_);
  }
  throttle_cv_.notify_all();
  if (error_callback_) error_callback_(s);
}

absl::Status GraphImpl::GraphStatus() {
  std::lock_guard<std::mutex> l(errors_mu_);
  return errors_.empty() ? absl::OkStatus() : errors_.front();
}

absl::Status GraphImpl::RunFailedError() {
  return absl::FailedPreconditionError("The graph run has failed: " +
                                       std::string(GraphStatus().message()));
}

absl::Status GraphImpl::CombinedStatus() {
  std::lock_guard<std::mutex> l(errors_mu_);
  if (errors_.empty()) return absl::OkStatus();
  if (errors_.size() == 1) return errors_.front();
  std::vector<std::string> msgs;
  for (const auto& e : errors_) msgs.emplace_back(e.message());
  return absl::Status(errors_.front().code(),
                      "CalculatorGraph::Run() failed with " + std::to_string(errors_.size()) +
                          " errors:\n" + absl::StrJoin(msgs, "\n"));
}

void GraphImpl::WaitLoop(const std::function<bool()>& done) {
  for (;;) {
    if (app_executor_) {
      while (app_executor_->RunOne()) {
      }
    }
    std::unique_lock<std::mutex> l(run_mu_);
    if (done()) return;
    if (app_executor_) {
      run_cv_.wait_for(l, std::chrono::milliseconds(1));
    } else {
      run_cv_.wait(l);
    }
  }
}

absl::Status GraphImpl::WaitUntilDone() {
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (!running_ && done_) return CombinedStatus();
  }
  WaitLoop([this] { return done_; });
  return CombinedStatus();
}

absl::Status GraphImpl::WaitUntilIdle() {
  WaitLoop([this] { return done_ || stopping_ || scheduler_->IsQuiescent(); });
  return CombinedStatus();
}

absl::Status GraphImpl::AddPacket(const std::string& name, Packet packet) {
  GraphInput* in = FindInput(name);
  if (in == nullptr) return absl::NotFoundError("The graph has no input stream " + Quote(name));
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (!running_) {
      // A run that already ended on an error (a node's Open failing, say)
      // reports that error, not a missing StartRun.
      if (done_ && stopping_) return RunFailedError();
      return absl::FailedPreconditionError("Cannot add a packet to " + Quote(name) +
                                           ": the graph is not running (call StartRun first)");
    }
  }
  if (stopping_) return RunFailedError();
  if (packet.IsEmpty()) {
    return absl::InvalidArgumentError("Empty packet added to graph input stream " + Quote(name));
  }
  for (auto& c : in->manager->consumers) {
    absl::Status s = c.first->contract->Inputs().Get(c.second).Validate(packet);
    if (!s.ok()) {
      return absl::InvalidArgumentError("Graph input stream " + Quote(name) + " feeding node " +
                                        Quote(c.first->name) + ": " + std::string(s.message()));
    }
  }
  {
    std::unique_lock<std::mutex> tl(throttle_mu_);
    while (throttle_count_[in->unit] > 0 && !stopping_ && !finishing_) {
      if (add_mode_ == CalculatorGraph::ADD_IF_NOT_FULL) {
        return absl::UnavailableError("Graph is throttled: a queue fed by input stream " +
                                      Quote(name) + " is full");
      }
      ++waiting_adders_;
      tl.unlock();
      if (app_executor_) {
        while (app_executor_->RunOne()) {
        }
      }
      scheduler_->KickIfIdle();
      tl.lock();
      if (throttle_count_[in->unit] > 0 && !stopping_ && !finishing_) {
        throttle_cv_.wait_for(tl, std::chrono::milliseconds(app_executor_ ? 1 : 50));
      }
      --waiting_adders_;
    }
  }
  if (stopping_) return RunFailedError();
  {
    std::lock_guard<std::mutex> l(in->mu);
    if (in->closed) {
      return absl::FailedPreconditionError("Graph input stream " + Quote(name) + " is closed");
    }
    const Timestamp ts = packet.Timestamp();
    if (!ts.IsAllowedInStream()) {
      return absl::InvalidArgumentError("Packet on graph input stream " + Quote(name) +
                                        " has timestamp " + ts.DebugString() +
                                        ", which is not allowed in a stream");
    }
    if (ts < in->manager->bound) {
      return absl::InvalidArgumentError(
          "Packet on graph input stream " + Quote(name) + " has timestamp " + ts.DebugString() +
          " but the next allowed timestamp is " + in->manager->bound.DebugString() +
          " (timestamps must strictly increase)");
    }
    std::vector<Packet> v;
    v.push_back(std::move(packet));
    in->manager->Propagate(&v, ts.NextAllowedInStream(), this);
  }
  if (stopping_) scheduler_->KickIfIdle();
  return absl::OkStatus();
}

absl::Status GraphImpl::SetInputBound(const std::string& name, Timestamp bound) {
  GraphInput* in = FindInput(name);
  if (in == nullptr) return absl::NotFoundError("The graph has no input stream " + Quote(name));
  std::lock_guard<std::mutex> l(in->mu);
  if (in->closed) return absl::FailedPreconditionError("Graph input stream " + Quote(name) + " is closed");
  if (bound < in->manager->bound) {
    return absl::InvalidArgumentError("Timestamp bound " + bound.DebugString() + " of " +
                                      Quote(name) + " is below the current bound " +
                                      in->manager->bound.DebugString());
  }
  std::vector<Packet> none;
  in->manager->Propagate(&none, bound, this);
  return absl::OkStatus();
}

absl::Status GraphImpl::CloseInput(const std::string& name) {
  GraphInput* in = FindInput(name);
  if (in == nullptr) return absl::NotFoundError("The graph has no input stream " + Quote(name));
  // Held: the run must not be judged finished before the consumers of this
  // stream have their work queued.
  scheduler_->Hold();
  {
    std::lock_guard<std::mutex> l(in->mu);
    if (!in->closed) {
      std::vector<Packet> none;
      in->manager->Propagate(&none, Timestamp::Done(), this);
      in->closed = true;
    }
  }
  scheduler_->Release();
  return absl::OkStatus();
}

absl::Status GraphImpl::CloseAllInputs() {
  scheduler_->Hold();
  absl::Status status;
  for (auto& in : inputs_) {
    absl::Status s = CloseInput(in->name);
    if (!s.ok() && status.ok()) status = s;
  }
  scheduler_->Release();
  return status;
}

absl::Status GraphImpl::CloseAllPacketSources() {
  scheduler_->Hold();
  absl::Status s = CloseAllInputs();
  for (auto& np : nodes_) {
    if (np->is_source) np->RequestSourceStop();
  }
  scheduler_->Release();
  return s;
}

void GraphImpl::RequestStop() { CloseAllPacketSources().IgnoreError(); }

void GraphImpl::Cancel() {
  {
    std::lock_guard<std::mutex> l(run_mu_);
    if (!running_) return;
  }
  RecordError(absl::CancelledError("CalculatorGraph::Cancel() was called"));
  scheduler_->KickIfIdle();
}

absl::Status GraphImpl::Observe(const std::string& name, StreamObserver obs) {
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    return absl::NotFoundError("Cannot observe stream " + Quote(name) + ": no such stream");
  }
  if (running()) return absl::FailedPreconditionError("Observers must be added before StartRun()");
  it->second->observers.push_back(std::move(obs));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<PollerQueue>> GraphImpl::AddPoller(const std::string& name,
                                                                   bool bounds) {
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    return absl::NotFoundError("Cannot poll stream " + Quote(name) + ": no such stream");
  }
  if (running()) return absl::FailedPreconditionError("Pollers must be added before StartRun()");
  auto q = std::make_shared<PollerQueue>();
  q->observe_bounds = bounds;
  it->second->pollers.push_back(q);
  return q;
}

absl::StatusOr<Packet> GraphImpl::GetSidePacket(const std::string& name) {
  std::lock_guard<std::mutex> l(run_mu_);
  auto it = side_packets_.find(name);
  if (it == side_packets_.end() || it->second.IsEmpty()) {
    return absl::NotFoundError("No side packet " + Quote(name) + " (yet)");
  }
  return it->second;
}

}  // namespace internal
}  // namespace sluice

namespace sluice {
namespace internal {

bool GraphImpl::HasInput(const std::string& name) const {
  for (auto& in : inputs_) {
    if (in->name == name) return true;
  }
  return false;
}

absl::Status GraphImpl::SetInputMaxQueueSize(const std::string& name, int size) {
  GraphInput* in = FindInput(name);
  if (in == nullptr) return absl::NotFoundError("The graph has no input stream " + Quote(name));
  if (running()) {
    return absl::FailedPreconditionError("SetInputStreamMaxQueueSize must be called before StartRun");
  }
  for (auto& c : in->manager->consumers) {
    c.first->inputs[c.second].max_queue_size = size;
  }
  return absl::OkStatus();
}

void GraphImpl::EnableTracing() {
  tracing_requested_ = true;
  if (initialized_ && !tracer_) {
    std::vector<std::string> names;
    for (auto& np : nodes_) names.push_back(np->name);
    tracer_ = std::make_unique<Tracer>(std::move(names));
  }
}

}  // namespace internal
}  // namespace sluice
