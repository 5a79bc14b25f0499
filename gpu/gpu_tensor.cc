#include "gpu/gpu_tensor.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"

namespace sluice {

GpuTensorBuffer::GpuTensorBuffer(std::shared_ptr<GpuResources> gpu, size_t bytes)
    : DeviceBlock(std::move(gpu), "GpuTensorBuffer"), bytes_(bytes) {}

absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> GpuTensorBuffer::Create(
    std::shared_ptr<GpuResources> gpu, size_t bytes, cudaStream_t stream) {
  if (gpu == nullptr) return absl::FailedPreconditionError("GpuTensorBuffer: no GPU resources");
  if (bytes == 0) return absl::InvalidArgumentError("GpuTensorBuffer: a tensor of 0 bytes");
  std::shared_ptr<GpuTensorBuffer> buffer(new GpuTensorBuffer(gpu, bytes));
  if (absl::Status s = buffer->Allocate(bytes, stream); !s.ok()) return s;
  return buffer;
}

absl::Status GpuTensorBuffer::DownloadTo(void* dst, size_t bytes) {
  if (bytes != bytes_) {
    return absl::InvalidArgumentError(absl::StrCat("GpuTensorBuffer::DownloadTo: ", bytes,
                                                   " bytes asked, the buffer holds ", bytes_));
  }
  if (absl::Status s = gpu_->Activate(); !s.ok()) return s;
  // A stream of its own, so a CPU reader does not queue behind the kernels of
  // later frames on the shared context.
  absl::StatusOr<GpuContext*> ctx = gpu_->Context("auto:download");
  if (!ctx.ok()) return ctx.status();
  cudaStream_t stream = (*ctx)->stream();
  absl::StatusOr<void*> staging = gpu_->AcquirePinnedMemory(bytes_);
  if (!staging.ok()) return staging.status();
  absl::Status s = CopyToPinned(*staging, bytes_, bytes_, 1, stream);
  if (s.ok()) std::memcpy(dst, *staging, bytes_);
  gpu_->ReleasePinnedMemory(*staging, bytes_, nullptr);
  return s;
}

absl::Status GpuTensorBuffer::UploadFrom(const void* src, size_t bytes) {
  if (bytes != bytes_) {
    return absl::InvalidArgumentError(absl::StrCat("GpuTensorBuffer::UploadFrom: ", bytes,
                                                   " bytes given, the buffer holds ", bytes_));
  }
  if (absl::Status s = gpu_->Activate(); !s.ok()) return s;
  absl::StatusOr<GpuContext*> ctx = gpu_->Context("auto:upload");
  if (!ctx.ok()) return ctx.status();
  cudaStream_t stream = (*ctx)->stream();
  absl::StatusOr<void*> staging = gpu_->AcquirePinnedMemory(bytes_);
  if (!staging.ok()) return staging.status();
  std::memcpy(*staging, src, bytes_);
  return UploadFromPinned(*staging, bytes_, bytes_, 1, stream);
}

namespace {

// The tensor's existing GPU side as a CUDA buffer on `gpu`'s device, nullptr
// when it has none.
absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> CheckedStorage(
    const std::shared_ptr<TensorGpuStorage>& storage, const GpuResources& gpu) {
  if (storage == nullptr) return std::shared_ptr<GpuTensorBuffer>();
  auto buffer = std::dynamic_pointer_cast<GpuTensorBuffer>(storage);
  if (buffer == nullptr) {
    return absl::FailedPreconditionError("the tensor's GPU side is not a CUDA GpuTensorBuffer");
  }
  if (buffer->resources().device() != gpu.device()) {
    return absl::FailedPreconditionError(absl::StrCat("the tensor lives on CUDA device ",
                                                      buffer->resources().device(),
                                                      ", the caller uses device ", gpu.device()));
  }
  return buffer;
}

}  // namespace

absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> GetCudaReadView(
    const Tensor& tensor, const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream) {
  if (gpu == nullptr) return absl::FailedPreconditionError("GetCudaReadView: no GPU resources");
  if (tensor.bytes() == 0) return absl::InvalidArgumentError("GetCudaReadView: empty tensor");
  absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> existing =
      CheckedStorage(tensor.GpuStorage(), *gpu);
  if (!existing.ok()) return existing.status();
  // A new device copy is written by the upload stream, so it is acquired there.
  absl::StatusOr<std::shared_ptr<TensorGpuStorage>> storage = tensor.GpuStorageForRead(
      [&gpu](size_t bytes) -> absl::StatusOr<std::shared_ptr<TensorGpuStorage>> {
        absl::StatusOr<GpuContext*> ctx = gpu->Context("auto:upload");
        if (!ctx.ok()) return ctx.status();
        absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> b =
            GpuTensorBuffer::Create(gpu, bytes, (*ctx)->stream());
        if (!b.ok()) return b.status();
        return std::shared_ptr<TensorGpuStorage>(*std::move(b));
      });
  if (!storage.ok()) return storage.status();
  auto buffer = std::static_pointer_cast<GpuTensorBuffer>(*std::move(storage));
  if (absl::Status s = buffer->WaitReady(stream); !s.ok()) return s;
  return buffer;
}

absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> GetCudaWriteView(
    const Tensor& tensor, const std::shared_ptr<GpuResources>& gpu, cudaStream_t stream) {
  if (gpu == nullptr) return absl::FailedPreconditionError("GetCudaWriteView: no GPU resources");
  if (tensor.bytes() == 0) return absl::InvalidArgumentError("GetCudaWriteView: empty tensor");
  absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> existing =
      CheckedStorage(tensor.GpuStorage(), *gpu);
  if (!existing.ok()) return existing.status();
  absl::StatusOr<std::shared_ptr<TensorGpuStorage>> storage = tensor.GpuStorageForWrite(
      [&gpu, stream](size_t bytes) -> absl::StatusOr<std::shared_ptr<TensorGpuStorage>> {
        absl::StatusOr<std::shared_ptr<GpuTensorBuffer>> b =
            GpuTensorBuffer::Create(gpu, bytes, stream);
        if (!b.ok()) return b.status();
        return std::shared_ptr<TensorGpuStorage>(*std::move(b));
      });
  if (!storage.ok()) return storage.status();
  auto buffer = std::static_pointer_cast<GpuTensorBuffer>(*std::move(storage));
  if (absl::Status s = buffer->WaitWritable(stream); !s.ok()) return s;
  return buffer;
}

absl::StatusOr<Tensor> MakeGpuTensor(Tensor::ElementType type, Tensor::Shape shape,
                                     std::shared_ptr<GpuTensorBuffer> buffer) {
  if (buffer == nullptr) return absl::InvalidArgumentError("MakeGpuTensor: no buffer");
  const size_t want = static_cast<size_t>(shape.num_elements()) * Tensor::ElementSize(type);
  if (want != buffer->bytes()) {
    return absl::InvalidArgumentError(absl::StrCat("MakeGpuTensor: the shape needs ", want,
                                                   " bytes, the buffer holds ", buffer->bytes()));
  }
  return Tensor(type, std::move(shape), std::move(buffer));
}

}  // namespace sluice
