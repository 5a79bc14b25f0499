// PacketType: the payload type a calculator declares for one port (Set<T>, SetAny, SetSameAs, ...).
#ifndef SLUICE_FRAMEWORK_PACKET_TYPE_H_
#define SLUICE_FRAMEWORK_PACKET_TYPE_H_

#include <string>
#include <typeinfo>
#include <vector>

#include "absl/status/status.h"
#include "framework/collection.h"
#include "framework/packet.h"

namespace sluice {

class PacketType {
 public:
  template <typename T>
  PacketType& Set() {
    kind_ = Kind::kTypes;
    types_ = {&typeid(T)};
    return *this;
  }
  template <typename... T>
  PacketType& SetOneOf() {
    kind_ = Kind::kTypes;
    types_ = {&typeid(T)...};
    return *this;
  }
  PacketType& SetAny() {
    kind_ = Kind::kAny;
    return *this;
  }
  // The port is declared but never carries packets.
  PacketType& SetNone() {
    kind_ = Kind::kNone;
    return *this;
  }
  // Same type as `other` (a port of the same contract), resolved at validation.
  PacketType& SetSameAs(const PacketType* other) {
    kind_ = Kind::kSameAs;
    same_as_ = other;
    return *this;
  }
  PacketType& Optional() {
    optional_ = true;
    return *this;
  }

  bool IsInitialized() const { return kind_ != Kind::kUnset; }
  bool IsOptional() const { return optional_; }
  bool IsAny() const { return Resolve()->kind_ == Kind::kAny; }
  // Follows SetSameAs links (cycles end at an Any).
  const PacketType* Resolve() const;
  // Accepted C++ types; empty means any.
  const std::vector<const std::type_info*>& Types() const;

  // OK when the packet's payload fits (an empty packet always fits).
  absl::Status Validate(const Packet& p) const;
  // OK when every type `producer` may carry is accepted here.
  absl::Status CompatibleWith(const PacketType& producer) const;
  std::string DebugTypeName() const;

 private:
  enum class Kind { kUnset, kTypes, kAny, kNone, kSameAs };
  Kind kind_ = Kind::kUnset;
  std::vector<const std::type_info*> types_;
  const PacketType* same_as_ = nullptr;
  bool optional_ = false;
};

using PacketTypeSet = PortCollection<PacketType>;

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_PACKET_TYPE_H_
