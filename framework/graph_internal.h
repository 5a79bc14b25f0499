// Internal runtime classes of CalculatorGraph: nodes, streams, scheduler and run state.
#ifndef SLUICE_FRAMEWORK_GRAPH_INTERNAL_H_
#define SLUICE_FRAMEWORK_GRAPH_INTERNAL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_graph.h"
#include "framework/calculator_registry.h"
#include "framework/executor.h"
#include "framework/input_stream_handler.h"
#include "framework/tracer.h"

namespace sluice {
namespace internal {

class GraphImpl;
class CalculatorNode;

// Unbounded queue behind an OutputStreamPoller.
class PollerQueue {
 public:
  void Push(Packet p);
  bool Pop(Packet* p);
  void Close();
  void Reset();
  int Size() const;
  void SetMaxSize(int n);
  bool observe_bounds = false;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Packet> q_;
  bool closed_ = false;
  int max_size_ = -1;
};

struct StreamObserver {
  std::function<absl::Status(const Packet&)> callback;
  bool observe_bounds = false;
};

// The producer side of one stream: fans packets and bounds out to consumers.
class OutputStreamManager {
 public:
  std::string name;
  const PacketType* type = nullptr;  // producer's declared type (null: graph input)
  std::vector<std::pair<CalculatorNode*, int>> consumers;
  std::vector<StreamObserver> observers;
  std::vector<std::shared_ptr<PollerQueue>> pollers;
  std::vector<int> ancestor_sources;  // throttle units upstream (incl. the producer)

  // Run state; written only by the (serialised) producer.
  Timestamp bound = Timestamp::PreStream();
  bool closed = false;

  void ResetForRun() {
    bound = Timestamp::PreStream();
    closed = false;
  }
  // Sends packets (timestamps already checked) and raises the bound.
  void Propagate(std::vector<Packet>* packets, Timestamp new_bound, GraphImpl* graph);
};

struct NodeInput {
  std::string name;
  OutputStreamManager* producer = nullptr;
  bool back_edge = false;
  int max_queue_size = -1;  // -1: unlimited
  bool full = false;
};

class CalculatorNode {
 public:
  enum class State { kIdle, kOpened, kClosing, kClosed, kFailed };

  // Static description (set at Initialize).
  int id = 0;    // index in the config
  int rank = 0;  // topological position: priority of downstream work
  std::string name;
  std::string calculator;
  const mediapipe::CalculatorGraphConfig::Node* config = nullptr;
  const CalculatorFactory* factory = nullptr;
  std::unique_ptr<CalculatorContract> contract;
  std::shared_ptr<NodeOptions> options;
  std::shared_ptr<const PortMap> in_map, out_map, in_side_map, out_side_map;
  std::string handler_name;
  mediapipe::MediaPipeOptions handler_options;
  std::vector<NodeInput> inputs;
  std::vector<OutputStreamManager*> outputs;
  std::vector<std::string> input_side_names, output_side_names;
  bool is_source = false;
  int source_layer = 0;
  int source_unit = -1;  // throttle unit id when a source
  int executor = 0;
  int max_in_flight = 1;

  explicit CalculatorNode(GraphImpl* graph) : graph_(graph) {}
  GraphImpl* graph() const { return graph_; }

  absl::Status PrepareForRun();
  // Consumer side: packets and a new bound for input `input_id`.
  void AddPackets(int input_id, const std::vector<Packet>& packets, Timestamp bound);
  // Schedules a readiness check (non-sources) if none is pending.
  void Notify();
  // Scheduler entry points.
  void RunOpen();
  void RunProcess();
  void RunSource();
  // Closes an opened node at the end of a run (outputs are discarded).
  void ForceClose();
  // Asks a source node to close at its next turn.
  void RequestSourceStop();
  // Raises full queues' limits (deadlock avoidance); returns names of streams changed.
  std::vector<std::string> GrowFullQueues();
  std::vector<std::string> FullQueueNames();

  State state() {
    std::lock_guard<std::mutex> l(mu_);
    return state_;
  }
  bool source_parked = false;  // guarded by GraphImpl::throttle_mu_
  bool open_scheduled = false;  // guarded by GraphImpl::run_mu_
  bool stop_requested() const { return stop_requested_.load(std::memory_order_acquire); }
  std::atomic<bool> source_queued{false};
  // Priority key of a source among sources (cached by the source itself, so the
  // scheduler can read it from any thread).
  Timestamp SourceProcessOrder() const {
    return Timestamp::CreateNoErrorChecking(source_order_.load(std::memory_order_relaxed));
  }
  const std::string& NodeNameRef() const { return name; }

 private:
  friend class ::sluice::CalculatorContext;
  struct Slot {
    CalculatorContext ctx;
    std::vector<InputSet> sets;
  };
  Slot* AcquireSlot();  // mu_ held
  void ResetShards(CalculatorContext* ctx);
  // Returns an error for misuse of outputs or side outputs.
  absl::Status CollectShardErrors(CalculatorContext* ctx);
  void FlushOutputs(CalculatorContext* ctx, Timestamp input_ts, bool apply_offset);
  void CompleteInvocation(Slot* slot, uint64_t seq, Timestamp input_ts, bool flush);
  void ReleaseSlot(Slot* slot, bool closing);
  void PublishSidePackets();
  void CloseNode(CalculatorContext* ctx, bool discard_outputs);
  void CheckUnthrottle();  // mu_ held
  void PropagateBoundWhileIdle(Timestamp input_bound);
  void UpdateSourceOrder();  // on the source's own thread
  std::atomic<int64_t> source_order_{0};
  absl::Status Prefix(const char* what, const absl::Status& s) const;

  GraphImpl* graph_;
  std::mutex mu_;
  State state_ = State::kIdle;
  std::vector<InputQueue> queues_;
  std::unique_ptr<InputStreamHandler> handler_;
  std::unique_ptr<CalculatorBase> calculator_;
  bool task_queued_ = false;
  std::atomic<bool> stop_requested_{false};
  std::vector<bool> side_published_;
  int in_flight_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> free_slots_;
  PacketSet side_inputs_;
  OutputSidePacketSet side_outputs_;
  TimestampDiff offset_ = TimestampDiff::Unset();
  uint64_t next_seq_ = 0;

  std::mutex out_mu_;  // serialises output flushes
  uint64_t flush_seq_ = 0;
  struct Completed {
    Slot* slot;
    Timestamp ts;
    bool flush;
  };
  std::map<uint64_t, Completed> completed_;
};

// Orders tasks per executor by MediaPipe's priorities and tracks idleness.
class Scheduler {
 public:
  enum class TaskKind { kOpen, kProcess, kSource };
  explicit Scheduler(GraphImpl* graph) : graph_(graph) {}
  void SetExecutors(std::vector<std::shared_ptr<Executor>> executors);
  void Schedule(CalculatorNode* node, TaskKind kind);
  bool IsIdle();
  // Quiescent: idle and the graph found nothing to do (WaitUntilIdle's condition).
  void SetQuiescent();
  void ClearQuiescent() {
    std::lock_guard<std::mutex> l(mu_);
    quiescent_ = false;
  }
  bool IsQuiescent();
  // While held, the scheduler never counts as idle (used while scheduling a
  // batch of tasks from outside the executors).
  void Hold() {
    std::lock_guard<std::mutex> l(mu_);
    ++pending_;
    quiescent_ = false;
  }
  void Release();
  // Calls the graph's idle handler when nothing is queued or running.
  void KickIfIdle();
  const std::vector<std::shared_ptr<Executor>>& executors() const { return executors_; }

 private:
  struct Item {
    int cls;
    int64_t a, b, c;
    uint64_t seq;
    CalculatorNode* node;
    TaskKind kind;
    bool operator<(const Item& o) const;  // priority_queue: "lower priority than"
  };
  void RunNext(int executor);

  GraphImpl* graph_;
  std::mutex mu_;
  std::vector<std::priority_queue<Item>> queues_;
  std::vector<std::shared_ptr<Executor>> executors_;
  int pending_ = 0;
  bool quiescent_ = false;
  uint64_t seq_ = 0;
};

// Graph inputs are throttle units too; they hold an OutputStreamManager.
struct GraphInput {
  std::string name;
  std::unique_ptr<OutputStreamManager> manager;
  int unit = -1;
  int max_queue_size_override = 0;
  std::mutex mu;  // serialises producers of this stream
  bool closed = false;
};

class GraphImpl {
 public:
  GraphImpl();
  ~GraphImpl();

  absl::Status Initialize(const mediapipe::CalculatorGraphConfig& config,
                          const CalculatorGraph::SidePackets& side_packets);
  absl::Status StartRun(const CalculatorGraph::SidePackets& extra);
  absl::Status WaitUntilIdle();
  absl::Status WaitUntilDone();
  absl::Status AddPacket(const std::string& name, Packet packet);
  absl::Status SetInputBound(const std::string& name, Timestamp bound);
  absl::Status CloseInput(const std::string& name);
  absl::Status CloseAllInputs();
  absl::Status CloseAllPacketSources();
  void Cancel();
  absl::Status Observe(const std::string& name, StreamObserver obs);
  absl::StatusOr<std::shared_ptr<PollerQueue>> AddPoller(const std::string& name, bool bounds);
  absl::StatusOr<Packet> GetSidePacket(const std::string& name);

  // Used by nodes, streams and the scheduler.
  void RecordError(const absl::Status& s);
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  bool finishing() const { return finishing_.load(std::memory_order_acquire); }
  void OnIdle();
  void OnSidePacket(const std::string& name, const Packet& p);
  Packet LookupSidePacket(const std::string& name);
  void RequestStop();  // a node returned StatusStop
  void Throttle(const std::vector<int>& units);
  void Unthrottle(const std::vector<int>& units);
  // Schedules a source unless throttled or its layer is not active yet.
  void ScheduleSource(CalculatorNode* node);
  absl::Status GraphStatus();
  std::shared_ptr<void> FindService(const std::string& key) const {
    return services_.Find(key);
  }
  Scheduler* scheduler() { return scheduler_.get(); }
  Tracer* tracer() { return tracer_.get(); }
  bool initialized() const { return initialized_; }
  bool running() {
    std::lock_guard<std::mutex> l(run_mu_);
    return running_;
  }
  bool HasInput(const std::string& name) const;
  absl::Status SetInputMaxQueueSize(const std::string& name, int size);
  void EnableTracing();
  ApplicationThreadExecutor* app_executor() { return app_executor_.get(); }

  // Configuration state (set before Initialize).
  mediapipe::CalculatorGraphConfig config_;
  std::map<std::string, std::shared_ptr<Executor>> custom_executors_;
  ServiceObjects services_;
  std::function<void(const absl::Status&)> error_callback_;
  CalculatorGraph::GraphInputStreamAddMode add_mode_ = CalculatorGraph::WAIT_TILL_NOT_FULL;
  bool tracing_requested_ = false;

 private:
  friend class CalculatorNode;
  absl::Status BuildNodes(std::vector<std::string>* errors);
  void BuildStreams(std::vector<std::string>* errors);
  void SortAndRank(std::vector<std::string>* errors);
  void ComputeAncestors();
  absl::Status SetUpExecutors(std::vector<std::string>* errors);
  bool SideInputsReady(const CalculatorNode& node);
  void FinishRun();
  void HandleThrottledIdle();
  absl::Status CombinedStatus();
  // "The graph run has failed: " and the run's first error (for the adders).
  absl::Status RunFailedError();
  void WaitLoop(const std::function<bool()>& done);
  GraphInput* FindInput(const std::string& name);

  bool initialized_ = false;
  std::vector<std::unique_ptr<CalculatorNode>> nodes_;
  std::map<std::string, std::unique_ptr<OutputStreamManager>> node_streams_;
  std::map<std::string, OutputStreamManager*> streams_;  // every stream by name
  std::vector<std::unique_ptr<GraphInput>> inputs_;
  std::map<std::string, CalculatorNode*> side_producers_;
  std::map<std::string, std::vector<CalculatorNode*>> side_consumers_;
  CalculatorGraph::SidePackets init_side_packets_;
  int max_queue_size_ = 100;
  std::unique_ptr<Scheduler> scheduler_;
  std::shared_ptr<ApplicationThreadExecutor> app_executor_;
  std::unique_ptr<Tracer> tracer_;

  // Run state.
  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool running_ = false;
  bool done_ = true;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> finishing_{false};
  std::vector<absl::Status> errors_;
  std::map<std::string, Packet> side_packets_;
  std::map<std::string, bool> side_optional_absent_;
  std::atomic<int> active_layer_{0};
  std::mutex errors_mu_;

  // Throttling: units are source nodes then graph inputs.
  std::mutex throttle_mu_;
  std::condition_variable throttle_cv_;
  std::vector<int> throttle_count_;
  std::vector<CalculatorNode*> unit_nodes_;  // nullptr for graph inputs
  int waiting_adders_ = 0;
};

// Input bound of an invocation at `ts`, mapped through `offset` to an output bound.
Timestamp OutputBoundFromInputBound(Timestamp input_bound, TimestampDiff offset);
Timestamp InputBoundAfter(Timestamp ts);

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_GRAPH_INTERNAL_H_
