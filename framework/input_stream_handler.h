// Input stream handlers decide when a node is ready and which packets form its next input set.
#ifndef SLUICE_FRAMEWORK_INPUT_STREAM_HANDLER_H_
#define SLUICE_FRAMEWORK_INPUT_STREAM_HANDLER_H_

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/packet.h"
#include "framework/port_map.h"
#include "framework/timestamp.h"
#include "proto/mediapipe_options.pb.h"

namespace sluice {

// One input stream's pending packets and its next timestamp bound.
struct InputQueue {
  std::deque<Packet> packets;
  Timestamp bound = Timestamp::PreStream();

  // Head packet's timestamp, or the bound when empty (then *empty = true).
  Timestamp MinTimestampOrBound(bool* empty) const {
    *empty = packets.empty();
    return *empty ? bound : packets.front().Timestamp();
  }
  bool IsDone() const { return packets.empty() && bound == Timestamp::Done(); }
  // Drops packets older than `ts`.
  void EraseBefore(Timestamp ts) {
    while (!packets.empty() && packets.front().Timestamp() < ts) packets.pop_front();
  }
};

struct InputSet {
  Timestamp ts;
  std::vector<Packet> packets;  // one per input id; empty when absent
};

enum class NodeReadiness { kNotReady, kReadyForProcess, kReadyForClose };

class InputStreamHandler {
 public:
  virtual ~InputStreamHandler() = default;
  virtual absl::Status Init(const PortMap& inputs, const mediapipe::MediaPipeOptions& options,
                            bool process_timestamp_bounds) {
    num_inputs_ = inputs.NumEntries();
    process_bounds_ = process_timestamp_bounds;
    return absl::OkStatus();
  }
  // Called with the node's queues locked. When ready for Process, appends one
  // or more input sets to `out` (popping their packets).
  virtual NodeReadiness Fill(std::vector<InputQueue>& queues, std::vector<InputSet>* out) = 0;

 protected:
  InputSet& NewSet(std::vector<InputSet>* out, Timestamp ts) {
    out->emplace_back();
    out->back().ts = ts;
    out->back().packets.resize(num_inputs_);
    return out->back();
  }
  int num_inputs_ = 0;
  bool process_bounds_ = false;
};

// A group of streams that are synchronised on timestamps (Default semantics).
class SyncSet {
 public:
  explicit SyncSet(std::vector<int> ids) : ids_(std::move(ids)) {}
  NodeReadiness GetReadiness(const std::vector<InputQueue>& queues, bool process_bounds,
                             Timestamp* ts) const;
  // Moves packets at `ts` of this set's streams into `set`; records ts. A stream
  // without a packet at `ts` gets an empty packet at its settled timestamp (as
  // MediaPipe), so calculators can tell which stream's bound moved.
  void Pop(std::vector<InputQueue>& queues, Timestamp ts, InputSet* set);
  // Gives each stream of this set an empty packet at its settled timestamp
  // (head packet or bound, minus one) without consuming anything.
  void FillBounds(const std::vector<InputQueue>& queues, InputSet* set) const;
  const std::vector<int>& ids() const { return ids_; }
  Timestamp last_processed() const { return last_processed_; }
  void set_last_processed(Timestamp t) { last_processed_ = t; }

 private:
  std::vector<int> ids_;
  Timestamp last_processed_ = Timestamp::Unset();
};

using InputStreamHandlerFactory = std::function<std::unique_ptr<InputStreamHandler>()>;

// Registers a handler under `name` (built-ins use MediaPipe's names).
void RegisterInputStreamHandler(const std::string& name, InputStreamHandlerFactory factory);
bool IsInputStreamHandlerRegistered(const std::string& name);
absl::StatusOr<std::unique_ptr<InputStreamHandler>> CreateInputStreamHandler(
    const std::string& name);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_INPUT_STREAM_HANDLER_H_
