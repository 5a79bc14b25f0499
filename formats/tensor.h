// Tensor: shape + element type + one contiguous, row-major (e.g. NHWC) CPU
// buffer, accessed through views in MediaPipe's style. Move-only.
//
// Views: a read view takes a shared lock on the tensor, a write view an
// exclusive one, for the view's lifetime; so keep views short-lived and never
// hold a write view while asking for another view of the same tensor on the
// same thread. The `valid_` bits record which storages hold the current
// content; the GPU issue adds a CUDA storage and kValidCuda, with read views
// copying from the valid side on demand (and write views invalidating the
// other side) exactly as the CPU bit works now.
#ifndef SLUICE_FORMATS_TENSOR_H_
#define SLUICE_FORMATS_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace sluice {

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

  CpuReadView GetCpuReadView() const;
  CpuWriteView GetCpuWriteView() const;

  std::string DebugString() const;

 private:
  enum : unsigned { kValidCpu = 1u };

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
  std::unique_ptr<void, AlignedFree> cpu_;
  mutable std::atomic<unsigned> valid_{0};
  // Heap-allocated so that the tensor stays movable.
  std::unique_ptr<std::shared_mutex> mu_;
};

}  // namespace sluice

#endif  // SLUICE_FORMATS_TENSOR_H_
