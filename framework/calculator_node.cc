// CalculatorNode: one node's queues, readiness checks and Open/Process/Close invocations.
#include <algorithm>

#include "framework/graph_internal.h"
#include "util/status_macros.h"

namespace sluice {

void CalculatorContext::SetOffset(TimestampDiff offset) { node_->offset_ = offset; }

namespace internal {

Timestamp InputBoundAfter(Timestamp ts) {
  if (ts == Timestamp::PreStream()) return Timestamp::Min();
  if (ts == Timestamp::Max()) return Timestamp::PostStream();
  return ts.NextAllowedInStream();
}

Timestamp OutputBoundFromInputBound(Timestamp b, TimestampDiff offset) {
  if (b < Timestamp::Min()) return Timestamp::Unset();
  if (b.IsRangeValue()) return b + offset;
  if (b == Timestamp::PostStream()) return Timestamp::PostStream();
  return Timestamp::OneOverPostStream();
}

absl::Status CalculatorNode::Prefix(const char* what, const absl::Status& s) const {
  return absl::Status(s.code(), std::string("Calculator::") + what + "() for node \"" + name +
                                    "\" failed: " + std::string(s.message()));
}

absl::Status CalculatorNode::PrepareForRun() {
  std::lock_guard<std::mutex> l(mu_);
  state_ = State::kIdle;
  task_queued_ = false;
  stop_requested_ = false;
  in_flight_ = 0;
  next_seq_ = flush_seq_ = 0;
  completed_.clear();
  queues_.assign(inputs.size(), InputQueue());
  for (auto& in : inputs) in.full = false;
  ASSIGN_OR_RETURN(handler_, CreateInputStreamHandler(handler_name));
  absl::Status s = handler_->Init(*in_map, handler_options, contract->GetProcessTimestampBounds());
  if (!s.ok()) {
    return absl::Status(s.code(), "Node \"" + name + "\": " + std::string(s.message()));
  }
  calculator_.reset();
  offset_ = contract->GetTimestampOffset();
  side_inputs_ = PacketSet(in_side_map);
  side_outputs_ = OutputSidePacketSet(out_side_map);
  for (int i = 0; i < out_side_map->NumEntries(); ++i) {
    side_outputs_.Get(i).name_ = &output_side_names[i];
  }
  side_published_.assign(output_side_names.size(), false);
  free_slots_.clear();
  for (auto& s : slots_) free_slots_.push_back(s.get());
  source_parked = false;
  source_queued = false;
  source_order_ = Timestamp::PreStream().Value();
  open_scheduled = false;
  return absl::OkStatus();
}

CalculatorNode::Slot* CalculatorNode::AcquireSlot() {
  if (free_slots_.empty()) {
    auto slot = std::make_unique<Slot>();
    CalculatorContext& ctx = slot->ctx;
    ctx.node_ = this;
    ctx.inputs_ = InputStreamShardSet(in_map);
    for (int i = 0; i < in_map->NumEntries(); ++i) ctx.inputs_.Get(i).name_ = &inputs[i].name;
    ctx.outputs_ = OutputStreamShardSet(out_map);
    for (int i = 0; i < out_map->NumEntries(); ++i) {
      ctx.outputs_.Get(i).name_ = &outputs[i]->name;
      const PacketType& t = contract->Outputs().Get(i);
      ctx.outputs_.Get(i).type_ = t.IsAny() ? nullptr : &t;
    }
    ctx.input_side_ = &side_inputs_;
    ctx.output_side_ = &side_outputs_;
    ctx.options_ = options;
    slots_.push_back(std::move(slot));
    return slots_.back().get();
  }
  Slot* s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

void CalculatorNode::ResetShards(CalculatorContext* ctx) {
  // A concurrent readiness check may be propagating a bound on these streams.
  std::lock_guard<std::mutex> l(out_mu_);
  for (size_t i = 0; i < outputs.size(); ++i) {
    OutputStreamShard& sh = ctx->outputs_.Get(static_cast<int>(i));
    sh.packets_.clear();
    sh.bound_ = outputs[i]->bound;
    sh.closed_ = outputs[i]->closed;
    sh.error_ = absl::OkStatus();
  }
}

absl::Status CalculatorNode::CollectShardErrors(CalculatorContext* ctx) {
  for (auto& sh : ctx->outputs_) {
    if (!sh.error_.ok()) return sh.error_;
  }
  auto misses = [&](const std::vector<std::string>& m, const char* what) {
    return absl::InvalidArgumentError(std::string("accessed ") + what + " \"" + m.front() +
                                      "\" which node \"" + name + "\" does not have");
  };
  if (!ctx->outputs_.Misses().empty()) {
    auto s = misses(ctx->outputs_.Misses(), "output stream");
    ctx->outputs_.ClearMisses();
    return s;
  }
  if (!ctx->inputs_.Misses().empty()) {
    auto s = misses(ctx->inputs_.Misses(), "input stream");
    ctx->inputs_.ClearMisses();
    return s;
  }
  for (auto& sp : side_outputs_) {
    if (!sp.error_.ok()) return sp.error_;
  }
  return options->status();
}

void CalculatorNode::AddPackets(int input_id, const std::vector<Packet>& packets, Timestamp bound) {
  bool schedule = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ == State::kClosing || state_ == State::kClosed || state_ == State::kFailed) return;
    InputQueue& q = queues_[input_id];
    for (const Packet& p : packets) q.packets.push_back(p);
    if (bound > q.bound) q.bound = bound;
    NodeInput& in = inputs[input_id];
    if (in.max_queue_size > 0 && !in.full &&
        static_cast<int>(q.packets.size()) >= in.max_queue_size) {
      in.full = true;
      graph_->Throttle(in.producer->ancestor_sources);
    }
    if (state_ == State::kOpened && !task_queued_ && in_flight_ < max_in_flight) {
      task_queued_ = true;
      schedule = true;
    }
  }
  if (schedule) graph_->scheduler()->Schedule(this, Scheduler::TaskKind::kProcess);
}

void CalculatorNode::Notify() {
  bool schedule = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ == State::kOpened && !task_queued_ && in_flight_ < max_in_flight) {
      task_queued_ = true;
      schedule = true;
    }
  }
  if (schedule) graph_->scheduler()->Schedule(this, Scheduler::TaskKind::kProcess);
}

void CalculatorNode::CheckUnthrottle() {
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeInput& in = inputs[i];
    if (in.full && static_cast<int>(queues_[i].packets.size()) < in.max_queue_size) {
      in.full = false;
      graph_->Unthrottle(in.producer->ancestor_sources);
    }
  }
}

std::vector<std::string> CalculatorNode::FullQueueNames() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (auto& in : inputs) {
    if (in.full) out.push_back(in.name);
  }
  return out;
}

std::vector<std::string> CalculatorNode::GrowFullQueues() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeInput& in = inputs[i];
    if (!in.full) continue;
    in.max_queue_size = static_cast<int>(queues_[i].packets.size()) + 1;
    in.full = false;
    graph_->Unthrottle(in.producer->ancestor_sources);
    out.push_back(in.name);
  }
  return out;
}

void CalculatorNode::RunOpen() {
  if (graph_->stopping()) return;
  for (int i = 0; i < in_side_map->NumEntries(); ++i) {
    side_inputs_.Get(i) = graph_->LookupSidePacket(input_side_names[i]);
  }
  calculator_ = factory->create();
  Slot* slot;
  {
    std::lock_guard<std::mutex> l(mu_);
    slot = AcquireSlot();
  }
  CalculatorContext* ctx = &slot->ctx;
  ResetShards(ctx);
  ctx->input_ts_ = Timestamp::Unstarted();
  Tracer* tr = graph_->tracer();
  int64_t t0 = tr ? tr->NowUs() : 0;
  absl::Status st = calculator_->Open(ctx);
  if (tr) tr->Record(id, Tracer::Kind::kOpen, Timestamp::Unstarted(), t0, tr->NowUs());
  if (st.ok()) st = CollectShardErrors(ctx);
  if (!st.ok()) {
    {
      std::lock_guard<std::mutex> l(mu_);
      state_ = State::kFailed;
      free_slots_.push_back(slot);
    }
    graph_->RecordError(Prefix("Open", st));
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    state_ = State::kOpened;
  }
  {
    std::lock_guard<std::mutex> l(out_mu_);
    FlushOutputs(ctx, Timestamp::Unstarted(), false);
  }
  PublishSidePackets();
  {
    std::lock_guard<std::mutex> l(mu_);
    free_slots_.push_back(slot);
  }
  if (is_source) {
    UpdateSourceOrder();
    graph_->ScheduleSource(this);
  } else if (!inputs.empty()) {
    Notify();
  }
}

void CalculatorNode::PublishSidePackets() {
  for (size_t i = 0; i < output_side_names.size(); ++i) {
    if (side_published_[i]) continue;
    const Packet& p = side_outputs_.Get(static_cast<int>(i)).packet_;
    if (p.IsEmpty()) continue;
    side_published_[i] = true;
    absl::Status s = contract->OutputSidePackets().Get(static_cast<int>(i)).Validate(p);
    if (!s.ok()) {
      graph_->RecordError(absl::InvalidArgumentError("Node \"" + name + "\", output side packet \"" +
                                                     output_side_names[i] +
                                                     "\": " + std::string(s.message())));
      continue;
    }
    graph_->OnSidePacket(output_side_names[i], p);
  }
}

void CalculatorNode::FlushOutputs(CalculatorContext* ctx, Timestamp input_ts, bool apply_offset) {
  if (graph_->finishing()) {
    for (auto& sh : ctx->outputs_) sh.packets_.clear();
    return;
  }
  Timestamp offset_bound = Timestamp::Unset();
  if (apply_offset && offset_ != TimestampDiff::Unset()) {
    offset_bound = OutputBoundFromInputBound(InputBoundAfter(input_ts), offset_);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    OutputStreamShard& sh = ctx->outputs_.Get(static_cast<int>(i));
    OutputStreamManager* m = outputs[i];
    Timestamp nb = sh.closed_ ? Timestamp::Done() : std::max(sh.bound_, offset_bound);
    if (!sh.packets_.empty() || nb > m->bound) m->Propagate(&sh.packets_, nb, graph_);
    sh.packets_.clear();
  }
}

void CalculatorNode::PropagateBoundWhileIdle(Timestamp input_bound) {
  Timestamp ob = OutputBoundFromInputBound(input_bound, offset_);
  if (ob == Timestamp::Unset()) return;
  std::lock_guard<std::mutex> l(out_mu_);
  if (graph_->finishing()) return;
  std::vector<Packet> none;
  for (OutputStreamManager* m : outputs) {
    if (ob > m->bound && !m->closed) m->Propagate(&none, ob, graph_);
  }
}

void CalculatorNode::RunProcess() {
  Slot* slot = nullptr;
  uint64_t seq = 0;
  NodeReadiness r;
  Timestamp prop_bound = Timestamp::Unset();
  bool more = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    task_queued_ = false;
    if (state_ != State::kOpened || graph_->stopping()) return;
    if (in_flight_ >= max_in_flight) return;
    slot = AcquireSlot();
    slot->sets.clear();
    r = handler_->Fill(queues_, &slot->sets);
    CheckUnthrottle();
    if (r == NodeReadiness::kNotReady) {
      free_slots_.push_back(slot);
      if (offset_ != TimestampDiff::Unset() && in_flight_ == 0 && !outputs.empty()) {
        prop_bound = Timestamp::Done();
        for (const InputQueue& q : queues_) {
          bool empty;
          prop_bound = std::min(prop_bound, q.MinTimestampOrBound(&empty));
        }
      }
    } else if (r == NodeReadiness::kReadyForClose) {
      if (in_flight_ > 0) {  // closes after the running invocations complete
        free_slots_.push_back(slot);
        return;
      }
      state_ = State::kClosing;
      ++in_flight_;
    } else {
      ++in_flight_;
      seq = next_seq_++;
      for (size_t i = 0; i < queues_.size(); ++i) {
        slot->ctx.inputs_.Get(static_cast<int>(i)).done_ = queues_[i].IsDone();
      }
      if (in_flight_ < max_in_flight) {
        task_queued_ = true;
        more = true;
      }
    }
  }
  if (r == NodeReadiness::kNotReady) {
    if (prop_bound != Timestamp::Unset()) PropagateBoundWhileIdle(prop_bound);
    return;
  }
  if (r == NodeReadiness::kReadyForClose) {
    CloseNode(&slot->ctx, false);
    ReleaseSlot(slot, true);
    return;
  }
  if (more) graph_->scheduler()->Schedule(this, Scheduler::TaskKind::kProcess);

  CalculatorContext* ctx = &slot->ctx;
  ResetShards(ctx);
  Tracer* tr = graph_->tracer();
  absl::Status st;
  Timestamp last_ts;
  const int n = static_cast<int>(inputs.size());
  for (InputSet& set : slot->sets) {
    for (int i = 0; i < n; ++i) ctx->inputs_.Get(i).packet_ = std::move(set.packets[i]);
    ctx->input_ts_ = last_ts = set.ts;
    int64_t t0 = tr ? tr->NowUs() : 0;
    st = calculator_->Process(ctx);
    if (tr) tr->Record(id, Tracer::Kind::kProcess, set.ts, t0, tr->NowUs());
    if (!st.ok()) break;
  }
  for (int i = 0; i < n; ++i) ctx->inputs_.Get(i).packet_ = Packet();
  if (st.ok()) st = CollectShardErrors(ctx);
  bool flush = true;
  if (!st.ok()) {
    if (IsStatusStop(st)) {
      graph_->RequestStop();
    } else {
      graph_->RecordError(Prefix("Process", st));
      flush = false;
    }
  }
  CompleteInvocation(slot, seq, last_ts, flush);
}

void CalculatorNode::CompleteInvocation(Slot* slot, uint64_t seq, Timestamp ts, bool flush) {
  Slot* done_inline = nullptr;
  std::vector<Slot*> done;
  {
    std::lock_guard<std::mutex> l(out_mu_);
    if (seq == flush_seq_ && completed_.empty()) {
      if (flush) FlushOutputs(&slot->ctx, ts, true);
      ++flush_seq_;
      done_inline = slot;
    } else {
      // InOrder output handling: flush invocations in input order.
      completed_[seq] = Completed{slot, ts, flush};
      while (!completed_.empty() && completed_.begin()->first == flush_seq_) {
        Completed c = completed_.begin()->second;
        completed_.erase(completed_.begin());
        if (c.flush) FlushOutputs(&c.slot->ctx, c.ts, true);
        ++flush_seq_;
        done.push_back(c.slot);
      }
    }
  }
  if (done_inline) done.push_back(done_inline);
  if (done.empty()) return;
  bool schedule = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    in_flight_ -= static_cast<int>(done.size());
    for (Slot* s : done) free_slots_.push_back(s);
    if (state_ == State::kOpened && !task_queued_ && in_flight_ < max_in_flight) {
      task_queued_ = true;
      schedule = true;
    }
  }
  if (schedule) graph_->scheduler()->Schedule(this, Scheduler::TaskKind::kProcess);
}

void CalculatorNode::ReleaseSlot(Slot* slot, bool closing) {
  std::lock_guard<std::mutex> l(mu_);
  if (closing) --in_flight_;
  free_slots_.push_back(slot);
}

void CalculatorNode::CloseNode(CalculatorContext* ctx, bool discard_outputs) {
  ResetShards(ctx);
  ctx->input_ts_ = Timestamp::Done();
  for (auto& in : ctx->inputs_) {
    in.packet_ = Packet();
    in.done_ = true;
  }
  Tracer* tr = graph_->tracer();
  int64_t t0 = tr ? tr->NowUs() : 0;
  absl::Status st = calculator_->Close(ctx);
  if (tr) tr->Record(id, Tracer::Kind::kClose, Timestamp::Done(), t0, tr->NowUs());
  if (st.ok()) st = CollectShardErrors(ctx);
  if (!st.ok()) graph_->RecordError(Prefix("Close", st));
  {
    std::lock_guard<std::mutex> l(out_mu_);
    if (!discard_outputs && st.ok()) FlushOutputs(ctx, Timestamp::Done(), false);
    for (auto& sh : ctx->outputs_) sh.packets_.clear();
    if (!graph_->finishing()) {
      std::vector<Packet> none;
      for (OutputStreamManager* m : outputs) {
        if (!m->closed) m->Propagate(&none, Timestamp::Done(), graph_);
      }
    }
  }
  PublishSidePackets();
  std::lock_guard<std::mutex> l(mu_);
  state_ = State::kClosed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    queues_[i].packets.clear();
    if (inputs[i].full) {
      inputs[i].full = false;
      graph_->Unthrottle(inputs[i].producer->ancestor_sources);
    }
  }
}

void CalculatorNode::ForceClose() {
  Slot* slot;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ != State::kOpened) {
      if (state_ == State::kIdle) state_ = State::kClosed;
      return;
    }
    state_ = State::kClosing;
    ++in_flight_;
    slot = AcquireSlot();
  }
  CloseNode(&slot->ctx, true);
  ReleaseSlot(slot, true);
}

void CalculatorNode::RequestSourceStop() {
  stop_requested_.store(true, std::memory_order_release);
  graph_->ScheduleSource(this);
}

void CalculatorNode::UpdateSourceOrder() {
  Timestamp order = Timestamp::Done();
  Timestamp t = calculator_ ? calculator_->SourceProcessOrder(nullptr) : Timestamp::Unset();
  if (t != Timestamp::Unset()) {
    order = t;
  } else {
    std::lock_guard<std::mutex> l(out_mu_);
    for (OutputStreamManager* m : outputs) order = std::min(order, m->bound);
  }
  source_order_.store(order.Value(), std::memory_order_relaxed);
}

void CalculatorNode::RunSource() {
  Slot* slot;
  bool close_now = false;
  source_queued.store(false);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ != State::kOpened || graph_->stopping() || in_flight_ > 0) return;
    if (stop_requested_) {
      state_ = State::kClosing;
      close_now = true;
    }
    ++in_flight_;
    slot = AcquireSlot();
  }
  CalculatorContext* ctx = &slot->ctx;
  if (close_now) {
    CloseNode(ctx, false);
    ReleaseSlot(slot, true);
    return;
  }
  ResetShards(ctx);
  ctx->input_ts_ = Timestamp::Unstarted();
  Tracer* tr = graph_->tracer();
  int64_t t0 = tr ? tr->NowUs() : 0;
  absl::Status st = calculator_->Process(ctx);
  if (tr) tr->Record(id, Tracer::Kind::kProcess, Timestamp::Unstarted(), t0, tr->NowUs());
  bool stop = IsStatusStop(st);
  if (stop) st = absl::OkStatus();
  if (st.ok()) st = CollectShardErrors(ctx);
  if (!st.ok()) {
    graph_->RecordError(Prefix("Process", st));
    ReleaseSlot(slot, true);
    return;
  }
  {
    std::lock_guard<std::mutex> l(out_mu_);
    FlushOutputs(ctx, Timestamp::Unstarted(), false);
  }
  if (stop) {
    {
      std::lock_guard<std::mutex> l(mu_);
      state_ = State::kClosing;
    }
    CloseNode(ctx, false);
    ReleaseSlot(slot, true);
    return;
  }
  ReleaseSlot(slot, true);
  UpdateSourceOrder();
  graph_->ScheduleSource(this);
}

}  // namespace internal
}  // namespace sluice
