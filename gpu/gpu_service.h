// GpuResources: the CUDA graph service (MediaPipe's GpuResources / kGpuService,
// for CUDA). One per graph, created at StartRun only when some node's contract
// asks for kGpuService (or set by the application with SetServiceObject).
//
// It owns
//  * the device (chosen once; every entry point makes it current on the calling
//    thread, since CUDA's current device is per thread),
//  * contexts: one CUDA stream each, by name ("" is the shared one), so e.g.
//    the converters do not queue behind the image kernels,
//  * an event pool (readiness of GPU buffers),
//  * a device memory pool keyed by byte size: freed buffers are kept and handed
//    out again, so a steady stream of equal frames does no cudaMalloc,
//  * a pinned host memory pool for staging uploads and downloads,
//  * counters (uploads, downloads, bytes, allocations) that tests read.
//
// Reuse without host synchronisation: memory goes back to the pool together
// with the events of its last producer and readers; whoever takes it next makes
// its own stream wait on those events (cudaStreamWaitEvent) before writing.
#ifndef SLUICE_GPU_GPU_SERVICE_H_
#define SLUICE_GPU_GPU_SERVICE_H_

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/graph_service.h"

namespace sluice {

// A snapshot of GpuResources' counters.
struct GpuTransferStats {
  int64_t uploads = 0;             // host -> device image copies
  int64_t downloads = 0;           // device -> host image copies
  int64_t upload_bytes = 0;
  int64_t download_bytes = 0;
  int64_t device_allocations = 0;  // cudaMalloc calls (pool misses)
  int64_t pinned_allocations = 0;  // cudaMallocHost calls (pool misses)
  int64_t event_creations = 0;     // cudaEventCreate calls (pool misses)
};

// The number of CUDA devices, or FailedPrecondition "no CUDA device: ..." when
// there is no driver, no device, or the runtime cannot talk to it.
absl::StatusOr<int> CudaDeviceCount();

// One serial queue of GPU work.
class GpuContext {
 public:
  GpuContext(std::string name, cudaStream_t stream) : name_(std::move(name)), stream_(stream) {}
  const std::string& name() const { return name_; }
  cudaStream_t stream() const { return stream_; }

 private:
  std::string name_;
  cudaStream_t stream_;
};

class GpuResources {
 public:
  // Uses device `device` when >= 0, else $SLUICE_CUDA_DEVICE when set, else 0.
  // Errors: "no CUDA device: ..." (FailedPrecondition) when there is none;
  // InvalidArgument for a device index out of range.
  static absl::StatusOr<std::shared_ptr<GpuResources>> Create(int device = -1);
  ~GpuResources();
  GpuResources(const GpuResources&) = delete;
  GpuResources& operator=(const GpuResources&) = delete;

  int device() const { return device_; }
  const std::string& device_name() const { return device_name_; }

  // Makes device() current on the calling thread (cheap when it already is).
  absl::Status Activate() const;

  // The context named `key`, created on first use; "" is the shared context.
  // Contexts live as long as the resources.
  absl::StatusOr<GpuContext*> Context(const std::string& key = "");

  // Events created with timing disabled; give them back with ReleaseEvent.
  absl::StatusOr<cudaEvent_t> AcquireEvent();
  void ReleaseEvent(cudaEvent_t event);

  // Device memory of exactly `bytes`, safe to write with work enqueued on
  // `stream` from now on (the stream waits on the block's previous users).
  absl::StatusOr<void*> AcquireDeviceMemory(size_t bytes, cudaStream_t stream);
  // Gives `ptr` back; `last_uses` are events recorded after the last work that
  // touched it (the pool keeps them until the block is taken again).
  void ReleaseDeviceMemory(void* ptr, size_t bytes, std::vector<cudaEvent_t> last_uses);

  // Pinned host memory of exactly `bytes`; waits on the host for a pending
  // copy out of a reused block (rare: staging blocks are released after it).
  absl::StatusOr<void*> AcquirePinnedMemory(size_t bytes);
  // `pending` (may be null) completes when the last async copy from/to it is
  // done; it is released to the event pool once waited on.
  void ReleasePinnedMemory(void* ptr, size_t bytes, cudaEvent_t pending);

  GpuTransferStats Stats() const;
  void ResetStats();
  // Called by the transfer code (GpuBuffer).
  void CountUpload(int64_t bytes);
  void CountDownload(int64_t bytes);

  // Frees every pooled block that is not in use (after waiting for the device).
  absl::Status Trim();

 private:
  GpuResources(int device, std::string name);

  struct DeviceBlock {
    void* ptr = nullptr;
    std::vector<cudaEvent_t> last_uses;
  };
  struct PinnedBlock {
    void* ptr = nullptr;
    cudaEvent_t pending = nullptr;
  };

  const int device_;
  const std::string device_name_;

  std::mutex contexts_mu_;
  std::map<std::string, std::unique_ptr<GpuContext>> contexts_;

  std::mutex pool_mu_;
  std::vector<cudaEvent_t> free_events_;
  std::multimap<size_t, DeviceBlock> free_device_;
  std::multimap<size_t, PinnedBlock> free_pinned_;

  std::atomic<int64_t> uploads_{0}, downloads_{0}, upload_bytes_{0}, download_bytes_{0};
  std::atomic<int64_t> device_allocations_{0}, pinned_allocations_{0}, event_creations_{0};
};

// The service key. Default initialization picks the device as Create() does,
// so a graph whose nodes ask for it gets one without any application code.
inline const GraphService<GpuResources> kGpuService(
    "kGpuService", GraphServiceDefaultInitialization::kAllowDefaultInitialization,
    [] { return GpuResources::Create(); });

}  // namespace sluice

#endif  // SLUICE_GPU_GPU_SERVICE_H_
