// The CUDA view of a Tensor (MediaPipe's Tensor GPU views, on CUDA): the
// tensor's bytes in device memory from GpuResources' pool, with the "ready"
// event of the work that wrote them. `formats/tensor.h` stays CUDA-free; this
// is its TensorGpuStorage.
//
// Synchronisation contract (as GpuBuffer's, no host waits GPU -> GPU):
//  * a producer takes GetCudaWriteView (its stream then waits for the old
//    content's readers), enqueues its writes, then MarkReady(stream);
//  * a consumer takes GetCudaReadView (its stream waits on the ready event),
//    enqueues its reads, then MarkRead(stream), so the memory is neither
//    recycled nor overwritten under it.
// Transfers happen only when the other side is read: GetCudaReadView of a
// CPU-only tensor uploads once (its own stream, through pinned memory), the
// first CPU read of a GPU-only tensor downloads once (through pinned memory,
// the host waits for that copy only); both are cached in the tensor and
// counted in GpuResources' transfer counters.
#ifndef SLUICE_GPU_GPU_TENSOR_H_
#define SLUICE_GPU_GPU_TENSOR_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/tensor.h"
#include "gpu/device_block.h"
#include "gpu/gpu_service.h"

namespace sluice {

class GpuTensorBuffer : public TensorGpuStorage, public DeviceBlock {
 public:
  // `bytes` of uninitialised device memory that `stream` may write from now on.
  static absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> Create(std::shared_ptr<GpuResources> gpu,
                                                                 size_t bytes, cudaStream_t stream);

  size_t bytes() const { return bytes_; }

  // TensorGpuStorage. Download: pinned staging, the "auto:download" context's
  // stream, the host waits for that copy; counted as one download. Upload:
  // pinned staging, the "auto:upload" context's stream (after WaitWritable),
  // then MarkReady; the host does not wait; counted as one upload.
  absl::Status DownloadTo(void* dst, size_t bytes) override;
  absl::Status UploadFrom(const void* src, size_t bytes) override;

 private:
  GpuTensorBuffer(std::shared_ptr<GpuResources> gpu, size_t bytes);

  size_t bytes_;
};

// The tensor's device bytes for reading on `stream` (which then waits for
// them to be ready). A tensor whose content is only on the CPU is uploaded
// once (one upload; later read views reuse the cached device copy). Call
// MarkRead(stream) on the result after enqueuing the reads. Errors when the
// tensor's GPU side is not a CUDA GpuTensorBuffer or lives on another device.
absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> GetCudaReadView(
    const Tensor& tensor, const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream);

// The tensor's device bytes for writing on `stream` (which then waits for the
// old content's readers); the GPU side becomes the only valid one, nothing is
// uploaded. Call MarkReady(stream) on the result after enqueuing the writes.
absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> GetCudaWriteView(
    const Tensor& tensor, const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream);

// A GPU-resident tensor whose content is `buffer` (no CPU buffer until a CPU
// view asks; `buffer` must hold the shape's bytes).
absl::StatusOr<Tensor> MakeGpuTensor(Tensor::ElementType type, Tensor::Shape shape,
                                     std::shared_ptr<GpuTensorBuffer> buffer);

}  // namespace sluice

#endif  // SLUICE_GPU_GPU_TENSOR_H_
