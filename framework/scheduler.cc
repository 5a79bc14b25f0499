// Scheduler: per-executor priority queues (MediaPipe's task order) and idle detection.
#include "framework/graph_internal.h"

namespace sluice {
namespace internal {

bool Scheduler::Item::operator<(const Item& o) const {
  // std::priority_queue pops the largest: "less" means "runs later".
  if (cls != o.cls) return cls > o.cls;
  if (a != o.a) return a > o.a;
  if (b != o.b) return b > o.b;
  if (c != o.c) return c > o.c;
  return seq > o.seq;
}

void Scheduler::SetExecutors(std::vector<std::shared_ptr<Executor>> executors) {
  std::vector<std::shared_ptr<Executor>> old;
  {
    std::lock_guard<std::mutex> l(mu_);
    old.swap(executors_);
  }
  // Destroying a pool joins its threads, which may still be finishing a task
  // that needs mu_ and the old queues.
  old.clear();
  std::lock_guard<std::mutex> l(mu_);
  executors_ = std::move(executors);
  queues_.assign(executors_.size(), {});
}

void Scheduler::Schedule(CalculatorNode* node, TaskKind kind) {
  Item it{0, 0, 0, 0, 0, node, kind};
  switch (kind) {
    case TaskKind::kOpen:  // opens first, upstream first
      it.cls = 0;
      it.a = node->rank;
      break;
    case TaskKind::kProcess:  // downstream first drains the graph
      it.cls = 1;
      it.a = -node->rank;
      break;
    case TaskKind::kSource:
      it.cls = 2;
      it.a = node->source_layer;
      it.b = node->SourceProcessOrder().Value();
      it.c = node->rank;
      break;
  }
  const int e = node->executor;
  Executor* ex;
  {
    std::lock_guard<std::mutex> l(mu_);
    it.seq = seq_++;
    queues_[e].push(it);
    ++pending_;
    quiescent_ = false;
    ex = executors_[e].get();
  }
  ex->Schedule([this, e] { RunNext(e); });
}

void Scheduler::RunNext(int e) {
  Item it;
  {
    std::lock_guard<std::mutex> l(mu_);
    // Empty when another closure took this item first (priorities).
    if (e >= static_cast<int>(queues_.size()) || queues_[e].empty()) return;
    it = queues_[e].top();
    queues_[e].pop();
  }
  switch (it.kind) {
    case TaskKind::kOpen:
      it.node->RunOpen();
      break;
    case TaskKind::kProcess:
      it.node->RunProcess();
      break;
    case TaskKind::kSource:
      it.node->RunSource();
      break;
  }
  bool idle;
  {
    std::lock_guard<std::mutex> l(mu_);
    idle = --pending_ == 0;
  }
  if (idle) graph_->OnIdle();
}

void Scheduler::Release() {
  bool idle;
  {
    std::lock_guard<std::mutex> l(mu_);
    idle = --pending_ == 0;
  }
  if (idle) graph_->OnIdle();
}

bool Scheduler::IsIdle() {
  std::lock_guard<std::mutex> l(mu_);
  return pending_ == 0;
}

void Scheduler::SetQuiescent() {
  std::lock_guard<std::mutex> l(mu_);
  if (pending_ == 0) quiescent_ = true;
}

bool Scheduler::IsQuiescent() {
  std::lock_guard<std::mutex> l(mu_);
  return quiescent_;
}

void Scheduler::KickIfIdle() {
  if (IsIdle()) graph_->OnIdle();
}

}  // namespace internal
}  // namespace sluice
