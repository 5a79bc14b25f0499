// ImmediateInputStreamHandler: every stream is its own sync set; a node runs as
// soon as any stream has a packet (or, with ProcessTimestampBounds, a new bound).
#include "framework/stream_handler/builtin_handlers.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

class ImmediateHandler : public InputStreamHandler {
 public:
  absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                    bool process_bounds) override {
    RETURN_IF_ERROR(InputStreamHandler::Init(inputs, options, process_bounds));
    for (int i = 0; i < num_inputs_; ++i) sets_.emplace_back(std::vector<int>{i});
    done_.assign(num_inputs_, false);
    ready_.assign(num_inputs_, Timestamp::Unset());
    return absl::OkStatus();
  }

  NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) override {
    Timestamp input_ts = Timestamp::Done();
    bool became_done = false;
    bool all_done = true;
    for (int i = 0; i < num_inputs_; ++i) {
      Timestamp ts;
      NodeReadiness r = sets_[i].GetReadiness(queues, process_bounds_, &ts);
      ready_[i] = Timestamp::Unset();
      if (r == NodeReadiness::kReadyForClose) {
        if (!done_[i]) became_done = true;
        done_[i] = true;
        continue;
      }
      all_done = false;
      if (r == NodeReadiness::kReadyForProcess) {
        ready_[i] = ts;
        input_ts = std::min(input_ts, ts);
      }
    }
    if (input_ts < Timestamp::Done()) {
      InputSet& set = NewSet(out, input_ts);
      for (int i = 0; i < num_inputs_; ++i) {
        // Streams that are not ready present just their settled timestamp.
        if (ready_[i] == input_ts) {
          sets_[i].Pop(queues, input_ts, &set);
        } else {
          sets_[i].FillBounds(queues, &set);
        }
      }
      return NodeReadiness::kReadyForProcess;
    }
    if (all_done) return NodeReadiness::kReadyForClose;
    if (became_done) {
      // Tell the calculator a stream finished: an empty input set at Max.
      InputSet& set = NewSet(out, Timestamp::Max());
      for (const SyncSet& s : sets_) s.FillBounds(queues, &set);
      return NodeReadiness::kReadyForProcess;
    }
    return NodeReadiness::kNotReady;
  }

 private:
  std::vector<SyncSet> sets_;
  std::vector<bool> done_;
  std::vector<Timestamp> ready_;
};

}  // namespace

std::unique_ptr<InputStreamHandler> NewImmediateInputStreamHandler() {
  return std::make_unique<ImmediateHandler>();
}

}  // namespace sluice
