// Tensor: shape + element type + contiguous, row-major (e.g. NHWC) content,
// accessed through views in MediaPipe's style. Move-only.
//
// Views: a read view takes a shared lock on the tensor, a write view an
// exclusive one, for the view's lifetime; so keep views short-lived and never
// hold a write view while asking for another view of the same tensor on the
// same thread (nor a CPU read view while asking for a GPU view that has to
// upload: the upload takes the exclusive lock). GPU views hold no lock: their
// ordering is the GPU layer's events.
//
// Storages: the CPU buffer and, optionally, a GPU side (TensorGpuStorage,
// implemented by the GPU layer: gpu/gpu_tensor.h; nothing here depends on
// CUDA). The `valid_` bits record which of them hold the current content.
// A read view of one side copies from the other on demand, once, and caches
// (both stay valid); a write view makes its side the only valid one. A tensor
// built from a GPU storage has no CPU buffer until something reads or writes
// it on the CPU.
#ifndef SLUICE_FORMATS_TENSOR_H_
#define SLUICE_FORMATS_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice {

// Device memory holding a Tensor's bytes (implemented by the GPU layer).
class TensorGpuStorage {
 public:
  virtual ~TensorGpuStorage() = default;
  // Copies the device bytes into `dst` (`bytes` long), waiting for their
  // producer as needed.
  virtual absl::Status DownloadTo(void* dst, size_t bytes) = 0;
  // Replaces the device bytes with `src`'s, ordered after the device work
  // that still reads the old ones.
  virtual absl::Status UploadFrom(const void* src, size_t bytes) = 0;
};

class Tensor {
 public:
  enum class ElementType { kNone, kFloat16, kFloat32, kUInt8, kInt8, kInt32, kInt64, kBool };

  struct Shape {
    Shape() = default;
    Shape(std::initializer_list<int> d) : dims(d) {}
    explicit Shape(std::vector<int> d) : dims(std::move(d)) {}
    // Product of the dims (1 for a scalar); 0 if any dim is <= 0.
    int num_elements() const;
    std::vector<int> dims;
  };

  struct QuantizationParameters {
    float scale = 1.0f;
    int zero_point = 0;
  };

  // Bytes of one element (0 for kNone).
  static size_t ElementSize(ElementType type);
  static const char* ElementTypeName(ElementType type);

  // Allocates a zero-filled buffer of shape.num_elements() elements.
  Tensor(ElementType type, Shape shape)
      : Tensor(type, std::move(shape), QuantizationParameters()) {}
  Tensor(ElementType type, Shape shape, QuantizationParameters quantization);
  // A GPU-resident tensor whose content is `gpu` (which holds bytes() bytes);
  // no CPU buffer until a CPU view asks for one.
  Tensor(ElementType type, Shape shape, std::shared_ptr<TensorGpuStorage> gpu)
      : Tensor(type, std::move(shape), std::move(gpu), QuantizationParameters()) {}
  Tensor(ElementType type, Shape shape, std::shared_ptr<TensorGpuStorage> gpu,
         QuantizationParameters quantization);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() = default;

  ElementType element_type() const { return type_; }
  const Shape& shape() const { return shape_; }
  const QuantizationParameters& quantization_parameters() const { return quantization_; }
  size_t bytes() const { return bytes_; }
  bool ready_on_cpu() const { return (valid_ & kValidCpu) != 0; }
  bool ready_on_gpu() const { return (valid_ & kValidGpu) != 0; }

  // Holds a shared lock on the tensor while it lives.
  class CpuReadView {
   public:
    // nullptr when T does not match the element type (bool reads as bool,
    // kFloat16 as uint16_t).
    template <typename T>
    const T* buffer() const {
      return Matches<T>(type_) ? static_cast<const T*>(data_) : nullptr;
    }
    const void* data() const { return data_; }

   private:
    friend class Tensor;
    CpuReadView(const void* data, ElementType type, std::shared_mutex* mu)
        : data_(data), type_(type) {
      if (mu != nullptr) lock_ = std::shared_lock<std::shared_mutex>(*mu);
    }
    const void* data_;
    ElementType type_;
    std::shared_lock<std::shared_mutex> lock_;
  };

  // Holds an exclusive lock on the tensor while it lives.
  class CpuWriteView {
   public:
    template <typename T>
    T* buffer() const {
      return Matches<T>(type_) ? static_cast<T*>(data_) : nullptr;
    }
    void* data() const { return data_; }

   private:
    friend class Tensor;
    CpuWriteView(void* data, ElementType type, std::shared_mutex* mu) : data_(data), type_(type) {
      if (mu != nullptr) lock_ = std::unique_lock<std::shared_mutex>(*mu);
    }
    void* data_;
    ElementType type_;
    std::unique_lock<std::shared_mutex> lock_;
  };

  // A read view of the CPU side; when only the GPU side is current, downloads
  // it first (once). If that fails the view's data() is nullptr; call
  // SyncToCpu() first to get the error.
  CpuReadView GetCpuReadView() const;
  // A write view of the CPU side, which becomes the only valid one (no
  // download: the caller is expected to write the whole content).
  CpuWriteView GetCpuWriteView() const;
  // Makes the CPU side current (downloading if needed) and reports why not.
  absl::Status SyncToCpu() const;

  // For the GPU layer's views (gpu/gpu_tensor.h); not for calculators.
  // `make(bytes)` creates a device storage for this tensor.
  using GpuStorageFactory =
      std::function<absl::StatusOr<std::shared_ptr<TensorGpuStorage>>(size_t bytes)>;
  // The GPU side, or nullptr when the tensor was never on the GPU.
  std::shared_ptr<TensorGpuStorage> GpuStorage() const;
  // The GPU side with the current content: creates it with `make` if there is
  // none, and uploads the CPU content when the GPU side is not current (once;
  // both sides are then valid).
  absl::StatusOr<std::shared_ptr<TensorGpuStorage>> GpuStorageForRead(
      const GpuStorageFactory& make) const;
  // The GPU side for writing (created with `make` if there is none); it
  // becomes the only valid side.
  absl::StatusOr<std::shared_ptr<TensorGpuStorage>> GpuStorageForWrite(
      const GpuStorageFactory& make) const;

  std::string DebugString() const;

 private:
  enum : unsigned { kValidCpu = 1u, kValidGpu = 2u };

  // Allocates the (zero-filled) CPU buffer if there is none; false when out of
  // memory. Call with mu_ held exclusively (or from a constructor).
  bool EnsureCpuBuffer() const;

  template <typename T>
  static bool Matches(ElementType t) {
    switch (t) {
      case ElementType::kFloat32:
        return std::is_same<T, float>::value;
      case ElementType::kFloat16:
        return std::is_same<T, uint16_t>::value;
      case ElementType::kUInt8:
        return std::is_same<T, uint8_t>::value;
      case ElementType::kInt8:
        return std::is_same<T, int8_t>::value;
      case ElementType::kInt32:
        return std::is_same<T, int32_t>::value;
      case ElementType::kInt64:
        return std::is_same<T, int64_t>::value;
      case ElementType::kBool:
        return std::is_same<T, bool>::value;
      case ElementType::kNone:
        return false;
    }
    return false;
  }

  struct AlignedFree {
    void operator()(void* p) const;
  };

  ElementType type_ = ElementType::kNone;
  Shape shape_;
  QuantizationParameters quantization_;
  size_t bytes_ = 0;
  // Allocated on first use for a GPU-resident tensor, hence mutable.
  mutable std::unique_ptr<void, AlignedFree> cpu_;
  mutable std::shared_ptr<TensorGpuStorage> gpu_;
  mutable std::atomic<unsigned> valid_{0};
  // Heap-allocated so that the tensor stays movable.
  std::unique_ptr<std::shared_mutex> mu_;
};

// Makes every tensor's CPU side current (SyncToCpu), for calculators that
// read CPU views of tensors that may come from the GPU: the first error, with
// the tensor's index, instead of a null view.
absl::Status SyncToCpu(const std::vector<Tensor>& tensors);

}  // namespace sluice

#endif  // SLUICE_FORMATS_TENSOR_H_
