// DefaultInputStreamHandler (all inputs in one sync set, optional batching) and
// its variants EarlyClose and FixedSize.
#include <algorithm>

#include "framework/stream_handler/builtin_handlers.h"
#include "proto/stream_handler_options.pb.h"
#include "util/status_macros.h"

namespace sluice {
namespace {

class DefaultHandler : public InputStreamHandler {
 public:
  absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                    bool process_bounds) override {
    RETURN_IF_ERROR(InputStreamHandler::Init(inputs, options, process_bounds));
    std::vector<int> ids(num_inputs_);
    for (int i = 0; i < num_inputs_; ++i) ids[i] = i;
    set_ = std::make_unique<SyncSet>(std::move(ids));
    if (options.HasExtension(mediapipe::DefaultInputStreamHandlerOptions::ext)) {
      batch_size_ = options.GetExtension(mediapipe::DefaultInputStreamHandlerOptions::ext).batch_size();
      if (batch_size_ < 1) {
        return absl::InvalidArgumentError("DefaultInputStreamHandlerOptions.batch_size must be >= 1");
      }
    }
    return absl::OkStatus();
  }

  NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) override {
    PreProcess(queues);
    if (ShouldCloseEarly(queues)) return NodeReadiness::kReadyForClose;
    size_t first = out->size();
    Timestamp saved_last = set_->last_processed();
    bool closing = false;
    for (int n = 0; n < batch_size_; ++n) {
      Timestamp ts;
      NodeReadiness r = set_->GetReadiness(queues, process_bounds_, &ts);
      if (r == NodeReadiness::kReadyForClose) {
        closing = true;
        break;
      }
      if (r == NodeReadiness::kNotReady) break;
      set_->Pop(queues, ts, &NewSet(out, ts));
    }
    size_t got = out->size() - first;
    if (got == 0) return closing ? NodeReadiness::kReadyForClose : NodeReadiness::kNotReady;
    if (static_cast<int>(got) < batch_size_ && !closing) {
      // Incomplete batch: put the packets back and wait for more.
      for (size_t i = out->size(); i-- > first;) {
        for (int id = 0; id < num_inputs_; ++id) {
          Packet& p = (*out)[i].packets[id];
          if (!p.IsEmpty()) queues[id].packets.push_front(std::move(p));
        }
      }
      out->resize(first);
      set_->set_last_processed(saved_last);
      return NodeReadiness::kNotReady;
    }
    return NodeReadiness::kReadyForProcess;
  }

 protected:
  virtual void PreProcess(std::vector<InputQueue>& queues) {}
  virtual bool ShouldCloseEarly(const std::vector<InputQueue>& queues) { return false; }
  int batch_size_ = 1;
  std::unique_ptr<SyncSet> set_;
};

// Closes the node as soon as any input stream is done.
class EarlyCloseHandler : public DefaultHandler {
 protected:
  bool ShouldCloseEarly(const std::vector<InputQueue>& queues) override {
    return std::any_of(queues.begin(), queues.end(), [](const InputQueue& q) { return q.IsDone(); });
  }
};

// Keeps only the newest timestamps when every queue grew past a trigger size.
class FixedSizeHandler : public DefaultHandler {
 public:
  absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                    bool process_bounds) override {
    if (options.HasExtension(mediapipe::FixedSizeInputStreamHandlerOptions::ext)) {
      const auto& o = options.GetExtension(mediapipe::FixedSizeInputStreamHandlerOptions::ext);
      trigger_ = o.trigger_queue_size();
      target_ = o.target_queue_size();
      fixed_min_size_ = o.fixed_min_size();
    }
    if (target_ < 1 || trigger_ < target_) {
      return absl::InvalidArgumentError(
          "FixedSizeInputStreamHandlerOptions needs 1 <= target_queue_size <= trigger_queue_size");
    }
    mediapipe::MediaPipeOptions none;
    return DefaultHandler::Init(inputs, none, process_bounds);
  }

 protected:
  void PreProcess(std::vector<InputQueue>& queues) override {
    if (queues.empty()) return;
    for (const auto& q : queues) {
      if (static_cast<int>(q.packets.size()) < trigger_) return;
    }
    // The oldest timestamp to keep so that each queue keeps target_ packets at
    // most (or, with fixed_min_size, at least).
    Timestamp keep = fixed_min_size_ ? Timestamp::Done() : Timestamp::Unset();
    for (const auto& q : queues) {
      Timestamp t = q.packets[q.packets.size() - target_].Timestamp();
      keep = fixed_min_size_ ? std::min(keep, t) : std::max(keep, t);
    }
    for (auto& q : queues) q.EraseBefore(keep);
  }

 private:
  int trigger_ = 2;
  int target_ = 1;
  bool fixed_min_size_ = false;
};

// Several independent sync sets; one ready set is delivered per invocation.
class SyncSetHandler : public InputStreamHandler {
 public:
  absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                    bool process_bounds) override {
    RETURN_IF_ERROR(InputStreamHandler::Init(inputs, options, process_bounds));
    std::vector<bool> used(num_inputs_, false);
    if (options.HasExtension(mediapipe::SyncSetInputStreamHandlerOptions::ext)) {
      for (const auto& s : options.GetExtension(mediapipe::SyncSetInputStreamHandlerOptions::ext).sync_set()) {
        std::vector<int> ids;
        for (const std::string& ti : s.tag_index()) {
          std::string tag;
          int index;
          absl::Status st = ParsePortTagIndex(ti, &tag, &index);
          if (!st.ok()) return st;
          int id = inputs.GetId(tag, index);
          if (id < 0) {
            return absl::InvalidArgumentError("SyncSetInputStreamHandler: no input stream \"" + ti +
                                              "\"");
          }
          if (used[id]) {
            return absl::InvalidArgumentError("SyncSetInputStreamHandler: input \"" + ti +
                                              "\" is in more than one sync set");
          }
          used[id] = true;
          ids.push_back(id);
        }
        sets_.emplace_back(std::move(ids));
      }
    }
    std::vector<int> rest;
    for (int i = 0; i < num_inputs_; ++i) {
      if (!used[i]) rest.push_back(i);
    }
    if (!rest.empty()) sets_.emplace_back(std::move(rest));
    return absl::OkStatus();
  }

  NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) override {
    int best = -1;
    Timestamp best_ts = Timestamp::Done();
    bool all_closed = true;
    for (size_t i = 0; i < sets_.size(); ++i) {
      Timestamp ts;
      NodeReadiness r = sets_[i].GetReadiness(queues, process_bounds_, &ts);
      if (r != NodeReadiness::kReadyForClose) all_closed = false;
      if (r == NodeReadiness::kReadyForProcess && (best < 0 || ts < best_ts)) {
        best = static_cast<int>(i);
        best_ts = ts;
      }
    }
    if (best >= 0) {
      InputSet& set = NewSet(out, best_ts);
      sets_[best].Pop(queues, best_ts, &set);
      // The other sync sets present just their settled timestamps.
      for (size_t i = 0; i < sets_.size(); ++i) {
        if (static_cast<int>(i) != best) sets_[i].FillBounds(queues, &set);
      }
      return NodeReadiness::kReadyForProcess;
    }
    return all_closed ? NodeReadiness::kReadyForClose : NodeReadiness::kNotReady;
  }

 private:
  std::vector<SyncSet> sets_;
};

}  // namespace

std::unique_ptr<InputStreamHandler> NewDefaultInputStreamHandler() {
  return std::make_unique<DefaultHandler>();
}
std::unique_ptr<InputStreamHandler> NewEarlyCloseInputStreamHandler() {
  return std::make_unique<EarlyCloseHandler>();
}
std::unique_ptr<InputStreamHandler> NewFixedSizeInputStreamHandler() {
  return std::make_unique<FixedSizeHandler>();
}
std::unique_ptr<InputStreamHandler> NewSyncSetInputStreamHandler() {
  return std::make_unique<SyncSetHandler>();
}

}  // namespace sluice
