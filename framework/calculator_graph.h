// CalculatorGraph: builds, validates and runs a graph of calculators (MediaPipe's API).
#ifndef SLUICE_FRAMEWORK_CALCULATOR_GRAPH_H_
#define SLUICE_FRAMEWORK_CALCULATOR_GRAPH_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/executor.h"
#include "framework/graph_service.h"
#include "framework/packet.h"
#include "framework/timestamp.h"
#include "proto/calculator.pb.h"

namespace sluice {

namespace internal {
class GraphImpl;
class PollerQueue;
}  // namespace internal

class Tracer;

// Pulls packets of one stream; created by CalculatorGraph::AddOutputStreamPoller.
class OutputStreamPoller {
 public:
  OutputStreamPoller() = default;
  // Blocks until a packet arrives (true) or the stream/run ends (false).
  bool Next(Packet* packet);
  int QueueSize() const;
  // Producers wait (like a throttled stream) while the queue holds this many.
  void SetMaxQueueSize(int n);
  void Reset();

 private:
  friend class CalculatorGraph;
  explicit OutputStreamPoller(std::shared_ptr<internal::PollerQueue> q) : q_(std::move(q)) {}
  std::shared_ptr<internal::PollerQueue> q_;
};

class CalculatorGraph {
 public:
  enum GraphInputStreamAddMode { WAIT_TILL_NOT_FULL, ADD_IF_NOT_FULL };
  using SidePackets = std::map<std::string, Packet>;

  CalculatorGraph();
  ~CalculatorGraph();
  CalculatorGraph(const CalculatorGraph&) = delete;
  CalculatorGraph& operator=(const CalculatorGraph&) = delete;

  // Expands subgraphs, validates the whole config (reporting every problem found)
  // and prepares executors.
  absl::Status Initialize(const mediapipe::CalculatorGraphConfig& config);
  absl::Status Initialize(const mediapipe::CalculatorGraphConfig& config,
                          const SidePackets& side_packets);
  // The expanded, validated config.
  const mediapipe::CalculatorGraphConfig& Config() const;

  // Before StartRun. The callback runs for every packet of `name` in timestamp
  // order; with observe_timestamp_bounds, bound-only updates arrive as empty
  // packets at the settled timestamp. A callback error fails the run.
  absl::Status ObserveOutputStream(const std::string& name,
                                   std::function<absl::Status(const Packet&)> callback,
                                   bool observe_timestamp_bounds = false);
  absl::StatusOr<OutputStreamPoller> AddOutputStreamPoller(const std::string& name,
                                                           bool observe_timestamp_bounds = false);
  // A side packet output by a node (or given as input) in the current/last run.
  absl::StatusOr<Packet> GetOutputSidePacket(const std::string& name);

  // StartRun + CloseAllInputStreams + WaitUntilDone.
  absl::Status Run(const SidePackets& extra_side_packets = {});
  absl::Status StartRun(const SidePackets& extra_side_packets = {});
  // Blocks until nothing can run (only meaningful without running sources).
  absl::Status WaitUntilIdle();
  // Blocks until the run ended; returns the run's status.
  absl::Status WaitUntilDone();
  bool HasError() const;

  absl::Status AddPacketToInputStream(const std::string& name, const Packet& packet);
  absl::Status AddPacketToInputStream(const std::string& name, Packet&& packet);
  absl::Status SetInputStreamTimestampBound(const std::string& name, Timestamp bound);
  absl::Status SetInputStreamMaxQueueSize(const std::string& name, int max_queue_size);
  bool HasInputStream(const std::string& name) const;
  absl::Status CloseInputStream(const std::string& name);
  absl::Status CloseAllInputStreams();
  // Closes graph input streams and stops source nodes.
  absl::Status CloseAllPacketSources();
  // Aborts the run; packets already emitted are still delivered.
  void Cancel();

  void SetGraphInputStreamAddMode(GraphInputStreamAddMode mode);
  // Before Initialize.
  void SetErrorCallback(std::function<void(const absl::Status&)> callback);
  // Before Initialize; `name` must not be "" when a config executor has it.
  absl::Status SetExecutor(const std::string& name, std::shared_ptr<Executor> executor);

  template <typename T>
  absl::Status SetServiceObject(const GraphService<T>& service, std::shared_ptr<T> object) {
    return SetServiceObjectInternal(service.key(), std::static_pointer_cast<void>(object));
  }
  template <typename T>
  std::shared_ptr<T> GetServiceObject(const GraphService<T>& service) const {
    return std::static_pointer_cast<T>(GetServiceObjectInternal(service.key()));
  }

  // Records per-invocation timings (also on with profiler_config.trace_enabled).
  void EnableTracing();
  // nullptr unless tracing is on.
  Tracer* tracer();

 private:
  absl::Status SetServiceObjectInternal(const std::string& key, std::shared_ptr<void> obj);
  std::shared_ptr<void> GetServiceObjectInternal(const std::string& key) const;
  std::unique_ptr<internal::GraphImpl> impl_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_CALCULATOR_GRAPH_H_
