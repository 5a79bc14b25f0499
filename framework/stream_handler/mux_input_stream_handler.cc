// MuxInputStreamHandler: the last input is an int control stream selecting which
// data stream feeds each timestamp; BarrierInputStreamHandler: waits for a packet
// on every stream, whatever their timestamps.
#include <algorithm>

#include "framework/stream_handler/builtin_handlers.h"

namespace sluice {
namespace {

class MuxHandler : public InputStreamHandler {
 public:
  absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                    bool process_bounds) override {
    if (inputs.NumEntries() < 2) {
      return absl::InvalidArgumentError(
          "MuxInputStreamHandler needs data streams and a last control stream");
    }
    return InputStreamHandler::Init(inputs, options, process_bounds);
  }

  NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) override {
    InputQueue& control = queues[num_inputs_ - 1];
    if (control.IsDone()) return NodeReadiness::kReadyForClose;
    if (control.packets.empty()) return NodeReadiness::kNotReady;
    const Packet& head = control.packets.front();
    Timestamp t = head.Timestamp();
    const int num_data = num_inputs_ - 1;
    auto sel_or = head.TryGet<int>();
    int sel = sel_or.ok() ? **sel_or : -1;
    if (sel >= 0 && sel < num_data) {
      InputQueue& data = queues[sel];
      data.EraseBefore(t);
      bool empty;
      Timestamp next = data.MinTimestampOrBound(&empty);
      if (empty ? next <= t : next < t) return NodeReadiness::kNotReady;
    }
    InputSet& set = NewSet(out, t);
    if (sel >= 0 && sel < num_data) {
      auto& q = queues[sel].packets;
      if (!q.empty() && q.front().Timestamp() == t) {
        set.packets[sel] = std::move(q.front());
        q.pop_front();
      }
    }
    set.packets[num_inputs_ - 1] = std::move(control.packets.front());
    control.packets.pop_front();
    for (int i = 0; i < num_data; ++i) queues[i].EraseBefore(t.NextAllowedInStream());
    return NodeReadiness::kReadyForProcess;
  }
};

class BarrierHandler : public InputStreamHandler {
 public:
  NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) override {
    if (std::any_of(queues.begin(), queues.end(), [](const InputQueue& q) { return q.IsDone(); })) {
      return NodeReadiness::kReadyForClose;
    }
    Timestamp ts = Timestamp::Unset();
    for (const auto& q : queues) {
      if (q.packets.empty()) return NodeReadiness::kNotReady;
      ts = std::max(ts, q.packets.front().Timestamp());
    }
    if (queues.empty()) return NodeReadiness::kNotReady;
    InputSet& set = NewSet(out, ts);
    for (int i = 0; i < num_inputs_; ++i) {
      set.packets[i] = std::move(queues[i].packets.front());
      queues[i].packets.pop_front();
    }
    return NodeReadiness::kReadyForProcess;
  }
};

}  // namespace

std::unique_ptr<InputStreamHandler> NewMuxInputStreamHandler() {
  return std::make_unique<MuxHandler>();
}
std::unique_ptr<InputStreamHandler> NewBarrierInputStreamHandler() {
  return std::make_unique<BarrierHandler>();
}

}  // namespace sluice
