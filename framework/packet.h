// Packet: an immutable, shared, type-erased value with a Timestamp (copies never copy the payload).
#ifndef SLUICE_FRAMEWORK_PACKET_H_
#define SLUICE_FRAMEWORK_PACKET_H_

#include <functional>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/timestamp.h"

namespace sluice {

// Readable (demangled) name of a C++ type, e.g. "std::vector<int>".
std::string DemangledTypeName(const std::type_info& t);

namespace packet_internal {

class HolderBase {
 public:
  explicit HolderBase(const std::type_info& t) : type_(&t) {}
  virtual ~HolderBase() = default;
  const std::type_info& type() const { return *type_; }
  virtual const void* ptr() const = 0;
  // True when the holder owns its value (so Consume may move it out).
  virtual bool owns() const = 0;

 private:
  const std::type_info* type_;
};

template <typename T>
class OwningHolder final : public HolderBase {
 public:
  explicit OwningHolder(T* p) : HolderBase(typeid(T)), p_(p) {}
  const void* ptr() const override { return p_.get(); }
  bool owns() const override { return true; }
  std::unique_ptr<T> Release() { return std::move(p_); }

 private:
  std::unique_ptr<T> p_;
};

template <typename T>
class ForeignHolder final : public HolderBase {
 public:
  ForeignHolder(const T* p, std::function<void()> cleanup)
      : HolderBase(typeid(T)), p_(p), cleanup_(std::move(cleanup)) {}
  ~ForeignHolder() override {
    if (cleanup_) cleanup_();
  }
  const void* ptr() const override { return p_; }
  bool owns() const override { return false; }

 private:
  const T* p_;
  std::function<void()> cleanup_;
};

absl::Status TypeMismatchError(const std::type_info* have, const std::type_info& want);

}  // namespace packet_internal

class Packet;
template <typename T>
Packet Adopt(T* ptr);
// Wraps a value owned elsewhere; `cleanup` runs when the last copy goes away.
template <typename T>
Packet PointToForeign(const T* ptr, std::function<void()> cleanup = nullptr);

class Packet {
 public:
  Packet() = default;

  // A copy of this packet (sharing the payload) with timestamp `ts`.
  Packet At(class Timestamp ts) const& {
    Packet p(*this);
    p.ts_ = ts;
    return p;
  }
  Packet At(class Timestamp ts) && {
    ts_ = ts;
    return std::move(*this);
  }

  class Timestamp Timestamp() const { return ts_; }
  bool IsEmpty() const { return holder_ == nullptr; }

  // The payload. Precondition: !IsEmpty() and the type was validated (the
  // contract did it for calculator ports); otherwise use TryGet().
  template <typename T>
  const T& Get() const {
    return *static_cast<const T*>(holder_->ptr());
  }

  template <typename T>
  absl::Status ValidateAsType() const {
    if (holder_ != nullptr && holder_->type() == typeid(T)) return absl::OkStatus();
    return packet_internal::TypeMismatchError(holder_ ? &holder_->type() : nullptr, typeid(T));
  }

  template <typename T>
  absl::StatusOr<const T*> TryGet() const {
    absl::Status s = ValidateAsType<T>();
    if (!s.ok()) return s;
    return static_cast<const T*>(holder_->ptr());
  }

  // Shared ownership of the payload (keeps the packet's holder alive).
  template <typename T>
  absl::StatusOr<std::shared_ptr<const T>> Share() const {
    absl::Status s = ValidateAsType<T>();
    if (!s.ok()) return s;
    return std::shared_ptr<const T>(holder_, static_cast<const T*>(holder_->ptr()));
  }

  // Moves the payload out when this packet is its only owner and owns it;
  // the packet becomes empty. Otherwise an error and the packet is unchanged.
  template <typename T>
  absl::StatusOr<std::unique_ptr<T>> Consume() {
    absl::Status s = ValidateAsType<T>();
    if (!s.ok()) return s;
    if (!holder_->owns() || holder_.use_count() != 1) {
      return absl::FailedPreconditionError(
          "Packet::Consume(): the payload is shared or not owned by the packet");
    }
    auto* h = static_cast<packet_internal::OwningHolder<T>*>(holder_.get());
    std::unique_ptr<T> out = h->Release();
    holder_.reset();
    return out;
  }

  // The payload's C++ type, or nullptr when empty.
  const std::type_info* Type() const { return holder_ ? &holder_->type() : nullptr; }
  // Readable type name ("" when empty); registered names follow MediaPipe's
  // "::ns::Type" spelling for the common types.
  std::string RegisteredTypeName() const;
  std::string DebugTypeName() const;
  std::string DebugString() const;

 private:
  template <typename T>
  friend Packet Adopt(T* ptr);
  template <typename T>
  friend Packet PointToForeign(const T* ptr, std::function<void()> cleanup);

  std::shared_ptr<packet_internal::HolderBase> holder_;
  class Timestamp ts_;
};

// Takes ownership of `ptr` (non-null).
template <typename T>
Packet Adopt(T* ptr) {
  Packet p;
  p.holder_ = std::make_shared<packet_internal::OwningHolder<T>>(ptr);
  return p;
}

template <typename T, typename... Args>
Packet MakePacket(Args&&... args) {
  return Adopt(new T(std::forward<Args>(args)...));
}

template <typename T>
Packet PointToForeign(const T* ptr, std::function<void()> cleanup) {
  Packet p;
  p.holder_ = std::make_shared<packet_internal::ForeignHolder<T>>(ptr, std::move(cleanup));
  return p;
}

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_PACKET_H_
