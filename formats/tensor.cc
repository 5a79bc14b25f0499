#include "formats/tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice {
namespace {

// SIMD-friendly start; the slack lets vector kernels (XNNPACK reads up to 16
// bytes past its inputs) run over the end without touching foreign memory.
constexpr size_t kAlignment = 64;
constexpr size_t kSlackBytes = 64;

}  // namespace

int Tensor::Shape::num_elements() const {
  int64_t n = 1;
  for (int d : dims) {
    if (d <= 0) return 0;
    n *= d;
    if (n > std::numeric_limits<int>::max()) return 0;
  }
  return static_cast<int>(n);
}

size_t Tensor::ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
    case ElementType::kInt32:
      return 4;
    case ElementType::kFloat16:
      return 2;
    case ElementType::kUInt8:
    case ElementType::kInt8:
      return 1;
    case ElementType::kBool:
      return sizeof(bool);
    case ElementType::kInt64:
      return 8;
    case ElementType::kNone:
      return 0;
  }
  return 0;
}

const char* Tensor::ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
      return "float32";
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kUInt8:
      return "uint8";
    case ElementType::kInt8:
      return "int8";
    case ElementType::kInt32:
      return "int32";
    case ElementType::kInt64:
      return "int64";
    case ElementType::kBool:
      return "bool";
    case ElementType::kNone:
      return "none";
  }
  return "?";
}

void Tensor::AlignedFree::operator()(void* p) const { std::free(p); }

Tensor::Tensor(ElementType type, Shape shape, QuantizationParameters quantization)
    : type_(type),
      shape_(std::move(shape)),
      quantization_(quantization),
      mu_(std::make_unique<std::shared_mutex>()) {
  bytes_ = static_cast<size_t>(shape_.num_elements()) * ElementSize(type_);
  if (EnsureCpuBuffer()) {
    valid_ = kValidCpu;
  } else {
    bytes_ = 0;  // Out of memory: an empty tensor rather than a crash.
  }
}

Tensor::Tensor(ElementType type, Shape shape, std::shared_ptr<TensorGpuStorage> gpu,
               QuantizationParameters quantization)
    : type_(type),
      shape_(std::move(shape)),
      quantization_(quantization),
      gpu_(std::move(gpu)),
      mu_(std::make_unique<std::shared_mutex>()) {
  bytes_ = static_cast<size_t>(shape_.num_elements()) * ElementSize(type_);
  valid_ = gpu_ != nullptr ? kValidGpu : 0;
}

bool Tensor::EnsureCpuBuffer() const {
  if (cpu_ != nullptr) return true;
  const size_t alloc = (bytes_ + kSlackBytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, alloc);
  if (p == nullptr) return false;
  std::memset(p, 0, alloc);
  cpu_.reset(p);
  return true;
}

Tensor::Tensor(Tensor&& other) noexcept
    : type_(other.type_),
      shape_(std::move(other.shape_)),
      quantization_(other.quantization_),
      bytes_(other.bytes_),
      cpu_(std::move(other.cpu_)),
      gpu_(std::move(other.gpu_)),
      valid_(other.valid_.load()),
      mu_(std::move(other.mu_)) {
  other.bytes_ = 0;
  other.valid_ = 0;
  other.type_ = ElementType::kNone;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    type_ = other.type_;
    shape_ = std::move(other.shape_);
    quantization_ = other.quantization_;
    bytes_ = other.bytes_;
    cpu_ = std::move(other.cpu_);
    gpu_ = std::move(other.gpu_);
    valid_ = other.valid_.load();
    mu_ = std::move(other.mu_);
    other.bytes_ = 0;
    other.valid_ = 0;
    other.type_ = ElementType::kNone;
  }
  return *this;
}

absl::Status Tensor::SyncToCpu() const {
  if (mu_ == nullptr) return absl::FailedPreconditionError("Tensor: moved-from tensor");
  if (valid_ & kValidCpu) return absl::OkStatus();
  std::unique_lock<std::shared_mutex> lock(*mu_);
  if (valid_ & kValidCpu) return absl::OkStatus();  // Another reader got there first.
  if (!(valid_ & kValidGpu) || gpu_ == nullptr) {
    return absl::FailedPreconditionError("Tensor: no storage holds the content");
  }
  if (!EnsureCpuBuffer()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("Tensor: cannot allocate ", bytes_, " bytes for the CPU view"));
  }
  absl::Status s = gpu_->DownloadTo(cpu_.get(), bytes_);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("Tensor: GPU download failed: ", s.message()));
  }
  valid_ |= kValidCpu;
  return absl::OkStatus();
}

Tensor::CpuReadView Tensor::GetCpuReadView() const {
  // A moved-from tensor has no mutex (and no buffer): its views lock nothing.
  if (mu_ == nullptr) return CpuReadView(nullptr, type_, nullptr);
  if (!SyncToCpu().ok()) return CpuReadView(nullptr, type_, mu_.get());
  return CpuReadView(cpu_.get(), type_, mu_.get());
}

Tensor::CpuWriteView Tensor::GetCpuWriteView() const {
  if (mu_ == nullptr) return CpuWriteView(nullptr, type_, nullptr);
  CpuWriteView view(nullptr, type_, mu_.get());
  view.data_ = EnsureCpuBuffer() ? cpu_.get() : nullptr;
  // Writing on the CPU makes the CPU the only valid storage (see header).
  valid_ = cpu_ ? kValidCpu : 0;
  return view;
}

std::shared_ptr<TensorGpuStorage> Tensor::GpuStorage() const {
  if (mu_ == nullptr) return nullptr;
  std::shared_lock<std::shared_mutex> lock(*mu_);
  return gpu_;
}

absl::StatusOr<std::shared_ptr<TensorGpuStorage>> Tensor::GpuStorageForRead(
    const GpuStorageFactory& make) const {
  if (mu_ == nullptr) return absl::FailedPreconditionError("Tensor: moved-from tensor");
  {
    std::shared_lock<std::shared_mutex> lock(*mu_);
    if ((valid_ & kValidGpu) && gpu_ != nullptr) return gpu_;
  }
  std::unique_lock<std::shared_mutex> lock(*mu_);
  if ((valid_ & kValidGpu) && gpu_ != nullptr) return gpu_;  // Another reader uploaded it.
  if (!(valid_ & kValidCpu) || cpu_ == nullptr) {
    return absl::FailedPreconditionError("Tensor: no storage holds the content");
  }
  if (gpu_ == nullptr) {
    absl::StatusOr<std::shared_ptr<TensorGpuStorage>> made = make(bytes_);
    if (!made.ok()) return made.status();
    if (*made == nullptr) return absl::InternalError("Tensor: the GPU storage factory gave null");
    gpu_ = *std::move(made);
  }
  absl::Status s = gpu_->UploadFrom(cpu_.get(), bytes_);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("Tensor: GPU upload failed: ", s.message()));
  }
  valid_ |= kValidGpu;
  return gpu_;
}

absl::StatusOr<std::shared_ptr<TensorGpuStorage>> Tensor::GpuStorageForWrite(
    const GpuStorageFactory& make) const {
  if (mu_ == nullptr) return absl::FailedPreconditionError("Tensor: moved-from tensor");
  std::unique_lock<std::shared_mutex> lock(*mu_);
  if (gpu_ == nullptr) {
    absl::StatusOr<std::shared_ptr<TensorGpuStorage>> made = make(bytes_);
    if (!made.ok()) return made.status();
    if (*made == nullptr) return absl::InternalError("Tensor: the GPU storage factory gave null");
    gpu_ = *std::move(made);
  }
  valid_ = kValidGpu;
  return gpu_;
}

std::string Tensor::DebugString() const {
  return absl::StrCat("Tensor<", ElementTypeName(type_), ">[", absl::StrJoin(shape_.dims, "x"),
                      "]");
}

absl::Status SyncToCpu(const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    absl::Status s = tensors[i].SyncToCpu();
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("tensor ", i, " (", tensors[i].DebugString(),
                                       "): its GPU side could not be read: ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice
