// Stream fan-out (consumers, observers, pollers) and the poller queue.
#include "framework/graph_internal.h"

namespace sluice {
namespace internal {

void OutputStreamManager::Propagate(std::vector<Packet>* packets, Timestamp new_bound,
                                    GraphImpl* graph) {
  if (closed) {
    packets->clear();
    return;
  }
  if (!packets->empty() && packets->front().Timestamp() < bound) {
    graph->RecordError(absl::InternalError(
        "Packets on stream \"" + name + "\" out of order: " +
        packets->front().Timestamp().DebugString() + " after bound " + bound.DebugString()));
    packets->clear();
    return;
  }
  const Timestamp old_bound = bound;
  const Timestamp after_last =
      packets->empty() ? Timestamp::Unset() : packets->back().Timestamp().NextAllowedInStream();
  bound = std::max({bound, new_bound, after_last});
  if (bound == Timestamp::Done()) closed = true;
  for (auto& c : consumers) c.first->AddPackets(c.second, *packets, bound);
  // A bound-only update is reported as an empty packet at the settled timestamp.
  const bool report_bound = bound > old_bound && bound > after_last &&
                            bound <= Timestamp::PostStream() && bound > Timestamp::Min();
  const Packet bound_packet =
      report_bound ? Packet().At(bound.PreviousAllowedInStream()) : Packet();
  for (auto& o : observers) {
    for (const Packet& p : *packets) {
      absl::Status s = o.callback(p);
      if (!s.ok()) {
        graph->RecordError(absl::Status(s.code(), "Observer of stream \"" + name +
                                                      "\" failed: " + std::string(s.message())));
      }
    }
    if (report_bound && o.observe_bounds) {
      absl::Status s = o.callback(bound_packet);
      if (!s.ok()) {
        graph->RecordError(absl::Status(s.code(), "Observer of stream \"" + name +
                                                      "\" failed: " + std::string(s.message())));
      }
    }
  }
  for (auto& q : pollers) {
    for (const Packet& p : *packets) q->Push(p);
    if (report_bound && q->observe_bounds) q->Push(bound_packet);
    if (closed) q->Close();
  }
}

void PollerQueue::Push(Packet p) {
  {
    std::lock_guard<std::mutex> l(mu_);
    q_.push_back(std::move(p));
  }
  cv_.notify_one();
}

bool PollerQueue::Pop(Packet* p) {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return !q_.empty() || closed_; });
  if (q_.empty()) return false;
  *p = std::move(q_.front());
  q_.pop_front();
  return true;
}

void PollerQueue::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

void PollerQueue::Reset() {
  std::lock_guard<std::mutex> l(mu_);
  q_.clear();
  closed_ = false;
}

int PollerQueue::Size() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(q_.size());
}

void PollerQueue::SetMaxSize(int n) {
  std::lock_guard<std::mutex> l(mu_);
  max_size_ = n;
}

}  // namespace internal

bool OutputStreamPoller::Next(Packet* packet) { return q_ && q_->Pop(packet); }
int OutputStreamPoller::QueueSize() const { return q_ ? q_->Size() : 0; }
void OutputStreamPoller::SetMaxQueueSize(int n) {
  if (q_) q_->SetMaxSize(n);
}
void OutputStreamPoller::Reset() {
  if (q_) q_->Reset();
}

}  // namespace sluice
