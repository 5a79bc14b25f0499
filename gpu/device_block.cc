#include "gpu/device_block.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"

namespace sluice {

DeviceBlock::DeviceBlock(std::shared_ptr<GpuResources> gpu, const char* what)
    : gpu_(std::move(gpu)), what_(what) {}

absl::Status DeviceBlock::Allocate(size_t bytes, cudaStream_t stream) {
  absl::StatusOr<void*> mem = gpu_->AcquireDeviceMemory(bytes, stream);
  if (!mem.ok()) return mem.status();
  data_ = *mem;
  bytes_ = bytes;
  absl::StatusOr<cudaEvent_t> ready = gpu_->AcquireEvent();
  if (!ready.ok()) return ready.status();  // The destructor returns the memory.
  ready_ = *ready;
  return absl::OkStatus();
}

DeviceBlock::~DeviceBlock() {
  std::vector<cudaEvent_t> last_uses;
  if (ready_ != nullptr) {
    if (ready_recorded_) {
      last_uses.push_back(ready_);
    } else {
      gpu_->ReleaseEvent(ready_);
    }
  }
  for (auto& r : reads_) last_uses.push_back(r.second);
  if (data_ != nullptr) {
    gpu_->ReleaseDeviceMemory(data_, bytes_, std::move(last_uses));
  } else {
    for (cudaEvent_t e : last_uses) gpu_->ReleaseEvent(e);
  }
}

absl::Status DeviceBlock::MarkReady(cudaStream_t stream) {
  std::lock_guard<std::mutex> l(mu_);
  absl::Status s = CudaStatus(cudaEventRecord(ready_, stream), absl::StrCat(what_, ": cudaEventRecord"));
  if (s.ok()) ready_recorded_ = true;
  return s;
}

absl::Status DeviceBlock::WaitReady(cudaStream_t stream) const {
  std::lock_guard<std::mutex> l(mu_);
  if (!ready_recorded_) return absl::OkStatus();
  return CudaStatus(cudaStreamWaitEvent(stream, ready_, 0),
                    absl::StrCat(what_, ": cudaStreamWaitEvent"));
}

absl::Status DeviceBlock::MarkRead(cudaStream_t stream) {
  std::lock_guard<std::mutex> l(mu_);
  const std::string what = absl::StrCat(what_, ": cudaEventRecord");
  for (auto& r : reads_) {
    if (r.first == stream) return CudaStatus(cudaEventRecord(r.second, stream), what);
  }
  absl::StatusOr<cudaEvent_t> e = gpu_->AcquireEvent();
  if (!e.ok()) return e.status();
  absl::Status s = CudaStatus(cudaEventRecord(*e, stream), what);
  if (!s.ok()) {
    gpu_->ReleaseEvent(*e);
    return s;
  }
  reads_.emplace_back(stream, *e);
  return absl::OkStatus();
}

absl::Status DeviceBlock::WaitWritable(cudaStream_t stream) const {
  std::lock_guard<std::mutex> l(mu_);
  const std::string what = absl::StrCat(what_, ": cudaStreamWaitEvent");
  if (ready_recorded_) SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(stream, ready_, 0), what);
  for (const auto& r : reads_) {
    if (r.first == stream) continue;  // In order on its own stream.
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(stream, r.second, 0), what);
  }
  return absl::OkStatus();
}

absl::Status DeviceBlock::CopyToPinned(void* staging, size_t row_bytes, size_t pitch, int rows,
                                       cudaStream_t stream) {
  const std::string what = absl::StrCat(what_, " download");
  if (absl::Status s = gpu_->Activate(); !s.ok()) return s;
  absl::Status s = WaitReady(stream);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpy2DAsync(staging, row_bytes, data_, pitch, row_bytes, rows,
                                     cudaMemcpyDeviceToHost, stream),
                   absl::StrCat(what, ": cudaMemcpy2DAsync"));
  }
  if (!s.ok()) {
    cudaStreamSynchronize(stream);  // Nothing in flight may still target `staging`.
    return s;
  }
  absl::StatusOr<cudaEvent_t> done = gpu_->AcquireEvent();
  if (!done.ok()) {
    // Cannot wait on an event: wait for the stream instead (error path only).
    SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return done.status();
  }
  s = CudaStatus(cudaEventRecord(*done, stream), absl::StrCat(what, ": cudaEventRecord"));
  if (s.ok()) {
    s = CudaStatus(cudaEventSynchronize(*done), absl::StrCat(what, ": cudaEventSynchronize"));
  }
  gpu_->ReleaseEvent(*done);
  if (s.ok()) gpu_->CountDownload(static_cast<int64_t>(row_bytes * rows));
  return s;
}

absl::Status DeviceBlock::UploadFromPinned(void* staging, size_t row_bytes, size_t pitch, int rows,
                                           cudaStream_t stream) {
  const std::string what = absl::StrCat(what_, " upload");
  const size_t bytes = row_bytes * rows;
  absl::Status s = WaitWritable(stream);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpy2DAsync(data_, pitch, staging, row_bytes, row_bytes, rows,
                                     cudaMemcpyHostToDevice, stream),
                   absl::StrCat(what, ": cudaMemcpy2DAsync"));
  }
  // The staging block goes back with an event marking the end of the copy,
  // so its next user waits for it rather than overwriting in-flight data.
  cudaEvent_t copied = nullptr;
  if (s.ok()) {
    absl::StatusOr<cudaEvent_t> e = gpu_->AcquireEvent();
    if (e.ok()) {
      copied = *e;
      s = CudaStatus(cudaEventRecord(copied, stream), absl::StrCat(what, ": cudaEventRecord"));
    } else {
      s = e.status();
    }
  }
  if (!s.ok()) {
    // Nothing reliable to wait on: keep the block out of the pool's hands
    // until the stream has drained.
    cudaStreamSynchronize(stream);
    gpu_->ReleaseEvent(copied);
    gpu_->ReleasePinnedMemory(staging, bytes, nullptr);
    return s;
  }
  gpu_->ReleasePinnedMemory(staging, bytes, copied);
  if (absl::Status r = MarkReady(stream); !r.ok()) return r;
  gpu_->CountUpload(static_cast<int64_t>(bytes));
  return absl::OkStatus();
}

}  // namespace sluice
