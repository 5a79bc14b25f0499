#include "gpu/gpu_service.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"

namespace sluice {

absl::StatusOr<int> CudaDeviceCount() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    // Clear the sticky "last error" so later, unrelated calls do not see it.
    cudaGetLastError();
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device: cudaGetDeviceCount: ", cudaGetErrorName(err), ": ",
                     cudaGetErrorString(err)));
  }
  if (count == 0) {
    return absl::FailedPreconditionError("no CUDA device: cudaGetDeviceCount found 0 devices");
  }
  return count;
}

absl::StatusOr<std::shared_ptr<GpuResources>> GpuResources::Create(int device) {
  absl::StatusOr<int> count = CudaDeviceCount();
  if (!count.ok()) return count.status();
  if (device < 0) {
    device = 0;
    if (const char* env = std::getenv("SLUICE_CUDA_DEVICE"); env != nullptr && *env != '\0') {
      if (!absl::SimpleAtoi(env, &device) || device < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("SLUICE_CUDA_DEVICE must be a device index, got \"", env, "\""));
      }
    }
  }
  if (device >= *count) {
    return absl::InvalidArgumentError(
        absl::StrCat("CUDA device ", device, " does not exist (", *count, " device(s) found)"));
  }
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(device), absl::StrCat("cudaSetDevice(", device, ")"));
  cudaDeviceProp prop;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::shared_ptr<GpuResources> res(
      new GpuResources(device, absl::StrCat(prop.name, " (sm_", prop.major, prop.minor, ")")));
  // The shared context exists from the start: a node that cannot get a
  // stream should fail at StartRun, not on its first frame.
  absl::StatusOr<GpuContext*> shared = res->Context("");
  if (!shared.ok()) return shared.status();
  return res;
}

GpuResources::GpuResources(int device, std::string name)
    : device_(device), device_name_(std::move(name)) {}

GpuResources::~GpuResources() {
  // Destruction is the one place where waiting for the device is right: the
  // pooled memory may still be in use by queued work.
  cudaSetDevice(device_);
  for (auto& kv : contexts_) {
    cudaStreamSynchronize(kv.second->stream());
    cudaStreamDestroy(kv.second->stream());
  }
  for (auto& kv : free_device_) {
    for (cudaEvent_t e : kv.second.last_uses) cudaEventDestroy(e);
    cudaFree(kv.second.ptr);
  }
  for (auto& kv : free_pinned_) {
    if (kv.second.pending) cudaEventDestroy(kv.second.pending);
    cudaFreeHost(kv.second.ptr);
  }
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
}

absl::Status GpuResources::Activate() const {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device_) return absl::OkStatus();
  return CudaStatus(cudaSetDevice(device_), absl::StrCat("cudaSetDevice(", device_, ")"));
}

absl::StatusOr<GpuContext*> GpuResources::Context(const std::string& key) {
  std::lock_guard<std::mutex> l(contexts_mu_);
  auto it = contexts_.find(key);
  if (it != contexts_.end()) return it->second.get();
  if (absl::Status s = Activate(); !s.ok()) return s;
  cudaStream_t stream = nullptr;
  // Non-blocking: our streams never serialise with the legacy default stream.
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                              absl::StrCat("cudaStreamCreate for GPU context \"", key, "\""));
  auto ctx = std::make_unique<GpuContext>(key, stream);
  GpuContext* raw = ctx.get();
  contexts_.emplace(key, std::move(ctx));
  return raw;
}

absl::StatusOr<cudaEvent_t> GpuResources::AcquireEvent() {
  {
    std::lock_guard<std::mutex> l(pool_mu_);
    if (!free_events_.empty()) {
      cudaEvent_t e = free_events_.back();
      free_events_.pop_back();
      return e;
    }
  }
  if (absl::Status s = Activate(); !s.ok()) return s;
  cudaEvent_t e = nullptr;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
                              "cudaEventCreate");
  ++event_creations_;
  return e;
}

void GpuResources::ReleaseEvent(cudaEvent_t event) {
  if (event == nullptr) return;
  std::lock_guard<std::mutex> l(pool_mu_);
  free_events_.push_back(event);
}

absl::StatusOr<void*> GpuResources::AcquireDeviceMemory(size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return absl::InvalidArgumentError("GPU buffer of 0 bytes");
  if (absl::Status s = Activate(); !s.ok()) return s;
  DeviceBlock block;
  bool found = false;
  {
    std::lock_guard<std::mutex> l(pool_mu_);
    auto it = free_device_.find(bytes);
    if (it != free_device_.end()) {
      block = std::move(it->second);
      free_device_.erase(it);
      found = true;
    }
  }
  if (found) {
    // The new owner's stream waits for the previous users; the host does not.
    absl::Status status;
    for (cudaEvent_t e : block.last_uses) {
      if (status.ok())
        status = CudaStatus(cudaStreamWaitEvent(stream, e, 0), "cudaStreamWaitEvent");
      ReleaseEvent(e);
    }
    if (!status.ok()) {
      ReleaseDeviceMemory(block.ptr, bytes, {});
      return status;
    }
    return block.ptr;
  }
  void* ptr = nullptr;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMalloc(&ptr, bytes), absl::StrCat("cudaMalloc(", bytes, ")"));
  ++device_allocations_;
  return ptr;
}

void GpuResources::ReleaseDeviceMemory(void* ptr, size_t bytes,
                                       std::vector<cudaEvent_t> last_uses) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> l(pool_mu_);
  free_device_.emplace(bytes, DeviceBlock{ptr, std::move(last_uses)});
}

absl::StatusOr<void*> GpuResources::AcquirePinnedMemory(size_t bytes) {
  if (bytes == 0) return absl::InvalidArgumentError("pinned buffer of 0 bytes");
  if (absl::Status s = Activate(); !s.ok()) return s;
  PinnedBlock block;
  bool found = false;
  {
    std::lock_guard<std::mutex> l(pool_mu_);
    auto it = free_pinned_.find(bytes);
    if (it != free_pinned_.end()) {
      block = it->second;
      free_pinned_.erase(it);
      found = true;
    }
  }
  if (found) {
    if (block.pending != nullptr) {
      absl::Status s = CudaStatus(cudaEventSynchronize(block.pending), "cudaEventSynchronize");
      ReleaseEvent(block.pending);
      if (!s.ok()) {
        ReleasePinnedMemory(block.ptr, bytes, nullptr);
        return s;
      }
    }
    return block.ptr;
  }
  void* ptr = nullptr;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMallocHost(&ptr, bytes),
                              absl::StrCat("cudaMallocHost(", bytes, ")"));
  ++pinned_allocations_;
  return ptr;
}

void GpuResources::ReleasePinnedMemory(void* ptr, size_t bytes, cudaEvent_t pending) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> l(pool_mu_);
  free_pinned_.emplace(bytes, PinnedBlock{ptr, pending});
}

GpuTransferStats GpuResources::Stats() const {
  GpuTransferStats s;
  s.uploads = uploads_.load();
  s.downloads = downloads_.load();
  s.upload_bytes = upload_bytes_.load();
  s.download_bytes = download_bytes_.load();
  s.device_allocations = device_allocations_.load();
  s.pinned_allocations = pinned_allocations_.load();
  s.event_creations = event_creations_.load();
  return s;
}

void GpuResources::ResetStats() {
  uploads_ = downloads_ = upload_bytes_ = download_bytes_ = 0;
  device_allocations_ = pinned_allocations_ = event_creations_ = 0;
}

void GpuResources::CountUpload(int64_t bytes) {
  ++uploads_;
  upload_bytes_ += bytes;
}

void GpuResources::CountDownload(int64_t bytes) {
  ++downloads_;
  download_bytes_ += bytes;
}

absl::Status GpuResources::Trim() {
  if (absl::Status s = Activate(); !s.ok()) return s;
  std::multimap<size_t, DeviceBlock> device;
  std::multimap<size_t, PinnedBlock> pinned;
  {
    std::lock_guard<std::mutex> l(pool_mu_);
    device.swap(free_device_);
    pinned.swap(free_pinned_);
  }
  // cudaFree / cudaFreeHost wait for the device themselves; the events only
  // go back to the event pool.
  absl::Status status;
  for (auto& kv : device) {
    for (cudaEvent_t e : kv.second.last_uses) ReleaseEvent(e);
    absl::Status s = CudaStatus(cudaFree(kv.second.ptr), "cudaFree");
    if (status.ok()) status = s;
  }
  for (auto& kv : pinned) {
    ReleaseEvent(kv.second.pending);
    absl::Status s = CudaStatus(cudaFreeHost(kv.second.ptr), "cudaFreeHost");
    if (status.ok()) status = s;
  }
  return status;
}

}  // namespace sluice
