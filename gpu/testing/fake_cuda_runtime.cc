// Host-only CUDA runtime stand-in (see fake_cuda_runtime.h). One global lock;
// queued work runs under it, lazily, stream by stream in FIFO order.
#include "gpu/testing/fake_cuda_runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

// The runtime's opaque handle types, defined here (the real ones live in the
// driver).
struct CUevent_st {
  int64_t recorded = 0;   // generations recorded so far
  int64_t completed = 0;  // generations whose record op has run
  std::map<int64_t, CUstream_st*> pending;  // generation -> stream it waits in
};

struct CUstream_st {
  struct Op {
    std::function<void()> run;   // work, or
    CUevent_st* wait = nullptr;  // a wait for `wait` to reach `generation`, or
    CUevent_st* mark = nullptr;  // the completion of `mark`'s `generation`
    int64_t generation = 0;
  };
  std::deque<Op> queue;
  // Between cudaStreamBeginCapture and cudaStreamEndCapture: work enqueued on
  // this stream is recorded here instead of queued.
  std::vector<std::function<void()>>* capture = nullptr;
};

// A captured graph (cudaStreamEndCapture) and its executable form: the
// recorded work in capture order; a launch queues all of it on the stream.
struct CUgraph_st {
  std::vector<std::function<void()>> work;
};
struct CUgraphExec_st {
  std::vector<std::function<void()>> work;
};

namespace sluice {
namespace fake_cuda {
namespace {

struct State {
  std::recursive_mutex mu;
  int device_count = 1;
  // SLUICE_FAKE_CUDA_ORDER=lazy: a host wait runs only what it needs;
  // otherwise ("others_first") the streams it does not target run first.
  // Each order exposes a different kind of missing wait; CI runs both.
  bool others_first = [] {
    const char* v = std::getenv("SLUICE_FAKE_CUDA_ORDER");
    return v == nullptr || std::string(v) != "lazy";
  }();
  int current_device = 0;
  std::set<CUstream_st*> streams;
  std::set<CUevent_st*> events;
  std::map<const uint8_t*, size_t> device;  // live cudaMalloc blocks
  std::map<const uint8_t*, size_t> pinned;  // live cudaMallocHost blocks
  std::set<CUgraph_st*> graphs;
  std::set<CUgraphExec_st*> graph_execs;
  CUstream_st legacy;                       // the default stream (nullptr)
  Stats stats;
};

State& S() {
  static State* s = new State();  // never destroyed: used from static dtors
  return *s;
}

CUstream_st* StreamOf(cudaStream_t s) { return s == nullptr ? &S().legacy : s; }

bool KnownStream(cudaStream_t s) { return s == nullptr || S().streams.count(s) > 0; }
bool KnownEvent(cudaEvent_t e) { return e != nullptr && S().events.count(e) > 0; }

cudaError_t Violation(cudaError_t err) {
  ++S().stats.violations;
  return err;
}

bool InRange(const std::map<const uint8_t*, size_t>& blocks, const void* ptr, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(ptr);
  auto it = blocks.upper_bound(p);
  if (it == blocks.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

bool IsDevice(const void* ptr) { return InRange(S().device, ptr, 1); }

// Queues `op` on `stream`, or records its work when the stream is capturing.
void Push(CUstream_st* stream, CUstream_st::Op op) {
  if (stream->capture != nullptr && op.run) {
    stream->capture->push_back(std::move(op.run));
    return;
  }
  stream->queue.push_back(std::move(op));
}

bool Capturing(cudaStream_t s) { return s != nullptr && s->capture != nullptr; }

void RunUntilComplete(CUevent_st* e, int64_t generation);

// Runs `stream`'s queue up to and including its first `count` ops.
void RunOps(CUstream_st* stream, size_t count) {
  while (count-- > 0 && !stream->queue.empty()) {
    CUstream_st::Op op = std::move(stream->queue.front());
    stream->queue.pop_front();
    if (op.wait != nullptr) {
      RunUntilComplete(op.wait, op.generation);
    } else if (op.mark != nullptr) {
      op.mark->completed = std::max(op.mark->completed, op.generation);
      op.mark->pending.erase(op.generation);
    } else {
      op.run();
    }
    ++S().stats.executed_ops;
  }
}

void RunAll(CUstream_st* stream) { RunOps(stream, stream->queue.size()); }

void RunUntilComplete(CUevent_st* e, int64_t generation) {
  while (e->completed < generation) {
    auto it = e->pending.begin();
    if (it == e->pending.end()) return;  // destroyed meanwhile: nothing to wait for
    CUstream_st* stream = it->second;
    const int64_t gen = it->first;
    // Run the stream up to that record op.
    size_t n = 0;
    for (const auto& op : stream->queue) {
      ++n;
      if (op.mark == e && op.generation == gen) break;
    }
    RunOps(stream, n);
  }
}

// Before a host wait, every stream the wait does not target runs as far as it
// can: on a GPU they would run in parallel, possibly before the target's work.
// This exposes a consumer that forgot to wait for a producer on the target.
void RunOthersFirst(const std::set<CUstream_st*>& targets) {
  if (!S().others_first) return;
  for (CUstream_st* s : S().streams) {
    if (!targets.count(s)) RunAll(s);
  }
  if (!targets.count(&S().legacy)) RunAll(&S().legacy);
}

void RunEverything() {
  for (CUstream_st* s : S().streams) RunAll(s);
  RunAll(&S().legacy);
}

cudaError_t CheckDevice2D(const void* p, size_t pitch, size_t width, size_t height) {
  if (height == 0 || width == 0) return cudaSuccess;
  if (!InRange(S().device, p, pitch * (height - 1) + width)) {
    return Violation(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

}  // namespace

Stats GetStats() {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  Stats s = S().stats;
  s.live_device_allocations = static_cast<int64_t>(S().device.size());
  s.live_pinned_allocations = static_cast<int64_t>(S().pinned.size());
  s.live_streams = static_cast<int64_t>(S().streams.size());
  s.live_events = static_cast<int64_t>(S().events.size());
  s.live_graphs = static_cast<int64_t>(S().graphs.size() + S().graph_execs.size());
  return s;
}

cudaError_t Enqueue(cudaStream_t stream, std::function<void()> op) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!KnownStream(stream)) return Violation(cudaErrorInvalidResourceHandle);
  CUstream_st::Op o;
  o.run = std::move(op);
  Push(StreamOf(stream), std::move(o));
  return cudaSuccess;
}

bool CheckDeviceRange(const void* ptr, size_t bytes) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (InRange(S().device, ptr, bytes)) return true;
  ++S().stats.violations;
  return false;
}

void SetDeviceCount(int count) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  S().device_count = count;
}

void SetOthersFirst(bool others_first) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  S().others_first = others_first;
}

}  // namespace fake_cuda
}  // namespace sluice

using sluice::fake_cuda::S;

extern "C" {

cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  *count = S().device_count;
  return S().device_count > 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t CUDARTAPI cudaSetDevice(int device) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (device < 0 || device >= S().device_count) return cudaErrorInvalidDevice;
  S().current_device = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  *device = S().current_device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (device < 0 || device >= S().device_count) return cudaErrorInvalidDevice;
  std::memset(prop, 0, sizeof(*prop));
  std::strncpy(prop->name, "Fake CUDA device (host emulation)", sizeof(prop->name) - 1);
  prop->major = 7;
  prop->minor = 5;
  return cudaSuccess;
}

const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    default: return "cudaErrorUnknown";
  }
}

const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  return error == cudaSuccess ? "no error" : "fake CUDA runtime error";
}

cudaError_t CUDARTAPI cudaGetLastError(void) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  *stream = new CUstream_st();
  S().streams.insert(*stream);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (stream == nullptr || !S().streams.count(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  sluice::fake_cuda::RunAll(stream);  // queued work still completes
  S().streams.erase(stream);
  delete stream->capture;  // an unfinished capture is dropped
  delete stream;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownStream(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (sluice::fake_cuda::Capturing(stream)) {
    // Illegal while capturing (CUDA invalidates the capture).
    return sluice::fake_cuda::Violation(cudaErrorStreamCaptureUnsupported);
  }
  CUstream_st* target = sluice::fake_cuda::StreamOf(stream);
  sluice::fake_cuda::RunOthersFirst({target});
  sluice::fake_cuda::RunAll(target);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownStream(stream) || !sluice::fake_cuda::KnownEvent(event)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (sluice::fake_cuda::Capturing(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorStreamCaptureUnsupported);  // not faked
  }
  // Waits for the latest record at the time of this call (CUDA's rule).
  if (event->recorded > event->completed) {
    CUstream_st::Op op;
    op.wait = event;
    op.generation = event->recorded;
    sluice::fake_cuda::StreamOf(stream)->queue.push_back(std::move(op));
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  *event = new CUevent_st();
  S().events.insert(*event);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  return cudaEventCreate(event);
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownEvent(event)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  // Like CUDA, destroying an event with pending records is allowed: the
  // record ops still run; keep them harmless by completing them now.
  sluice::fake_cuda::RunUntilComplete(event, event->recorded);
  S().events.erase(event);
  delete event;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownStream(stream) || !sluice::fake_cuda::KnownEvent(event)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (sluice::fake_cuda::Capturing(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorStreamCaptureUnsupported);  // not faked
  }
  CUstream_st* s = sluice::fake_cuda::StreamOf(stream);
  CUstream_st::Op op;
  op.mark = event;
  op.generation = ++event->recorded;
  event->pending[op.generation] = s;
  s->queue.push_back(std::move(op));
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownEvent(event)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  std::set<CUstream_st*> targets;
  for (const auto& kv : event->pending) targets.insert(kv.second);
  sluice::fake_cuda::RunOthersFirst(targets);
  sluice::fake_cuda::RunUntilComplete(event, event->recorded);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.f;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t size) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) return cudaErrorMemoryAllocation;
  std::memset(p, 0xCD, size);  // "uninitialised device memory"
  S().device[static_cast<const uint8_t*>(p)] = size;
  ++S().stats.device_allocations;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFree(void* ptr) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (ptr == nullptr) return cudaSuccess;
  sluice::fake_cuda::RunEverything();  // cudaFree waits for the device
  auto it = S().device.find(static_cast<const uint8_t*>(ptr));
  if (it == S().device.end()) return sluice::fake_cuda::Violation(cudaErrorInvalidValue);
  S().device.erase(it);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) return cudaErrorMemoryAllocation;
  S().pinned[static_cast<const uint8_t*>(p)] = size;
  ++S().stats.pinned_allocations;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (ptr == nullptr) return cudaSuccess;
  sluice::fake_cuda::RunEverything();
  auto it = S().pinned.find(static_cast<const uint8_t*>(ptr));
  if (it == S().pinned.end()) return sluice::fake_cuda::Violation(cudaErrorInvalidValue);
  S().pinned.erase(it);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind,
                                        cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  using sluice::fake_cuda::CheckDevice2D;
  if (!sluice::fake_cuda::KnownStream(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (width > dpitch || width > spitch) return sluice::fake_cuda::Violation(cudaErrorInvalidValue);
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_dev) {
    if (cudaError_t e = CheckDevice2D(dst, dpitch, width, height); e != cudaSuccess) return e;
  }
  if (src_dev) {
    if (cudaError_t e = CheckDevice2D(src, spitch, width, height); e != cudaSuccess) return e;
  }
  if ((!dst_dev && sluice::fake_cuda::IsDevice(dst)) ||
      (!src_dev && sluice::fake_cuda::IsDevice(src))) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidValue);  // wrong direction
  }
  CUstream_st::Op op;
  op.run = [=] {
    for (size_t y = 0; y < height; ++y) {
      std::memcpy(static_cast<uint8_t*>(dst) + y * dpitch,
                  static_cast<const uint8_t*>(src) + y * spitch, width);
    }
  };
  sluice::fake_cuda::Push(sluice::fake_cuda::StreamOf(stream), std::move(op));
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  return cudaMemcpy2DAsync(dst, count, src, count, count, 1, kind, stream);
}

cudaError_t CUDARTAPI cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownStream(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (!sluice::fake_cuda::InRange(S().device, ptr, count)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidValue);
  }
  CUstream_st::Op op;
  op.run = [=] { std::memset(ptr, value, count); };
  sluice::fake_cuda::Push(sluice::fake_cuda::StreamOf(stream), std::move(op));
  return cudaSuccess;
}

// --- CUDA graphs: stream capture of kernels, copies and memsets only ---------

cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (stream == nullptr || !S().streams.count(stream)) {
    // The legacy default stream cannot capture.
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  if (stream->capture != nullptr) return sluice::fake_cuda::Violation(cudaErrorIllegalState);
  stream->capture = new std::vector<std::function<void()>>();
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (stream == nullptr || !S().streams.count(stream) || stream->capture == nullptr) {
    return sluice::fake_cuda::Violation(cudaErrorIllegalState);
  }
  auto* g = new CUgraph_st();
  g->work = std::move(*stream->capture);
  delete stream->capture;
  stream->capture = nullptr;
  S().graphs.insert(g);
  *graph = g;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus* status) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!sluice::fake_cuda::KnownStream(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  *status = sluice::fake_cuda::Capturing(stream) ? cudaStreamCaptureStatusActive
                                                 : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           unsigned long long) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!S().graphs.count(graph)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  auto* e = new CUgraphExec_st();
  e->work = graph->work;
  S().graph_execs.insert(e);
  *exec = e;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!S().graph_execs.count(exec) || !sluice::fake_cuda::KnownStream(stream)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  for (const auto& work : exec->work) {
    CUstream_st::Op op;
    op.run = work;
    sluice::fake_cuda::Push(sluice::fake_cuda::StreamOf(stream), std::move(op));
  }
  ++S().stats.graph_launches;
  S().stats.graph_nodes_launched += static_cast<int64_t>(exec->work.size());
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t exec) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!S().graph_execs.count(exec)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  S().graph_execs.erase(exec);
  delete exec;  // launched work was copied into the queues
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::recursive_mutex> l(S().mu);
  if (!S().graphs.count(graph)) {
    return sluice::fake_cuda::Violation(cudaErrorInvalidResourceHandle);
  }
  S().graphs.erase(graph);
  delete graph;
  return cudaSuccess;
}

}  // extern "C"
