#include "framework/input_stream_handler.h"

#include <map>
#include <mutex>

#include "framework/stream_handler/builtin_handlers.h"

namespace sluice {

NodeReadiness SyncSet::GetReadiness(const std::vector<InputQueue>& queues, bool process_bounds,
                                    Timestamp* ts) const {
  Timestamp min_packet = Timestamp::Done();
  Timestamp min_bound = Timestamp::Done();
  for (int id : ids_) {
    bool empty;
    Timestamp t = queues[id].MinTimestampOrBound(&empty);
    if (empty) {
      min_bound = std::min(min_bound, t);
    } else {
      min_packet = std::min(min_packet, t);
    }
  }
  if (std::min(min_packet, min_bound) == Timestamp::Done()) return NodeReadiness::kReadyForClose;
  if (min_bound > min_packet) {
    *ts = min_packet;
    return NodeReadiness::kReadyForProcess;
  }
  if (process_bounds) {
    // Everything below min_bound is settled: report the last settled timestamp.
    Timestamp settled = min_bound == Timestamp::OneOverPostStream()
                            ? Timestamp::PostStream()
                            : min_bound.PreviousAllowedInStream();
    Timestamp input_ts = std::min(min_packet, settled);
    if (input_ts > std::max(last_processed_, Timestamp::Unstarted())) {
      *ts = input_ts;
      return NodeReadiness::kReadyForProcess;
    }
  }
  return NodeReadiness::kNotReady;
}

namespace {

// The last timestamp at which `q` can no longer receive a packet.
Timestamp SettledTimestamp(const InputQueue& q) {
  bool empty;
  return q.MinTimestampOrBound(&empty).PreviousAllowedInStream();
}

}  // namespace

void SyncSet::Pop(std::vector<InputQueue>& queues, Timestamp ts, InputSet* set) {
  for (int id : ids_) {
    auto& q = queues[id].packets;
    if (!q.empty() && q.front().Timestamp() == ts) {
      set->packets[id] = std::move(q.front());
      q.pop_front();
    } else {
      // Selecting `ts` settles the stream up to ts at least.
      Timestamp settled = SettledTimestamp(queues[id]);
      if (q.empty() && queues[id].bound <= ts) {
        settled = ts.NextAllowedInStream().PreviousAllowedInStream();
      }
      set->packets[id] = Packet().At(settled);
    }
  }
  last_processed_ = ts;
}

void SyncSet::FillBounds(const std::vector<InputQueue>& queues, InputSet* set) const {
  for (int id : ids_) set->packets[id] = Packet().At(SettledTimestamp(queues[id]));
}

namespace {

struct HandlerRegistry {
  std::mutex mu;
  std::map<std::string, InputStreamHandlerFactory> factories;
};

HandlerRegistry& Registry() {
  static auto* r = [] {
    auto* reg = new HandlerRegistry();
    // Explicit list: static registration objects would be dropped by the linker.
    RegisterBuiltinInputStreamHandlers(
        [reg](const std::string& name, InputStreamHandlerFactory f) {
          reg->factories[name] = std::move(f);
        });
    return reg;
  }();
  return *r;
}

}  // namespace

void RegisterInputStreamHandler(const std::string& name, InputStreamHandlerFactory factory) {
  auto& r = Registry();
  std::lock_guard<std::mutex> l(r.mu);
  r.factories[name] = std::move(factory);
}

bool IsInputStreamHandlerRegistered(const std::string& name) {
  auto& r = Registry();
  std::lock_guard<std::mutex> l(r.mu);
  return r.factories.count(name) > 0;
}

absl::StatusOr<std::unique_ptr<InputStreamHandler>> CreateInputStreamHandler(
    const std::string& name) {
  auto& r = Registry();
  std::lock_guard<std::mutex> l(r.mu);
  auto it = r.factories.find(name);
  if (it == r.factories.end()) {
    std::string known;
    for (const auto& kv : r.factories) known += (known.empty() ? "" : ", ") + kv.first;
    return absl::NotFoundError("Unknown input stream handler \"" + name + "\" (known: " + known +
                               ")");
  }
  return it->second();
}

}  // namespace sluice
