// DeviceBlock: one block of pooled device memory with the events that order
// work on it: the "ready" event of its last writer and one event per reading
// stream. The common part of GpuBuffer (images) and GpuTensorBuffer (tensors).
//
//  * A producer enqueues its writes, then MarkReady(stream).
//  * A consumer's stream WaitReady()s, enqueues its reads, then MarkRead(stream).
//  * A writer of new content WaitWritable()s first (last writer and readers).
//  * When the block goes, its memory returns to GpuResources' pool with those
//    events, and the next owner's stream waits on them before writing.
// None of this waits on the host; only the pinned-memory copies below wait,
// for their own copy.
#ifndef SLUICE_GPU_DEVICE_BLOCK_H_
#define SLUICE_GPU_DEVICE_BLOCK_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gpu/gpu_service.h"

namespace sluice {

class DeviceBlock {
 public:
  virtual ~DeviceBlock();
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;

  void* data() const { return data_; }
  GpuResources& resources() const { return *gpu_; }
  const std::shared_ptr<GpuResources>& shared_resources() const { return gpu_; }

  // Records that the content is complete once the work queued so far on
  // `stream` is.
  absl::Status MarkReady(cudaStream_t stream);
  // Makes `stream` wait until the content is ready (no-op if never marked).
  absl::Status WaitReady(cudaStream_t stream) const;
  // Records that `stream` reads the content up to the work queued so far.
  absl::Status MarkRead(cudaStream_t stream);
  // Makes `stream` wait for the last writer and every recorded reader, before
  // it overwrites the content.
  absl::Status WaitWritable(cudaStream_t stream) const;

 protected:
  // `what` names the owner in error messages (e.g. "GpuBuffer").
  DeviceBlock(std::shared_ptr<GpuResources> gpu, const char* what);
  // Takes `bytes` of pooled device memory that `stream` may write from now
  // on, and the ready event.
  absl::Status Allocate(size_t bytes, cudaStream_t stream);

  // Copies `rows` rows of `row_bytes` (device rows `pitch` bytes apart) into
  // packed pinned `staging` on `stream`, once the content is ready; the host
  // waits for this copy only. Counts one download.
  absl::Status CopyToPinned(void* staging, size_t row_bytes, size_t pitch, int rows,
                            cudaStream_t stream);
  // Copies packed pinned `staging` (`rows` x `row_bytes`) into the device rows
  // on `stream`, after the old content's readers, and marks the content ready
  // there; the host does not wait. `staging` goes back to the pool (with the
  // copy's event) in every case. Counts one upload.
  absl::Status UploadFromPinned(void* staging, size_t row_bytes, size_t pitch, int rows,
                                cudaStream_t stream);

  const std::shared_ptr<GpuResources> gpu_;

 private:
  const char* what_;
  void* data_ = nullptr;
  size_t bytes_ = 0;

  mutable std::mutex mu_;
  cudaEvent_t ready_ = nullptr;
  bool ready_recorded_ = false;
  // One event per reading stream, re-recorded on each read.
  std::vector<std::pair<cudaStream_t, cudaEvent_t>> reads_;
};

}  // namespace sluice

#endif  // SLUICE_GPU_DEVICE_BLOCK_H_
