#include "framework/packet_type.h"

#include <algorithm>

namespace sluice {

const PacketType* PacketType::Resolve() const {
  const PacketType* p = this;
  for (int hops = 0; p->kind_ == Kind::kSameAs && p->same_as_ != nullptr && hops < 64; ++hops) {
    p = p->same_as_;
  }
  return p;
}

const std::vector<const std::type_info*>& PacketType::Types() const {
  static const std::vector<const std::type_info*> kNone;
  const PacketType* r = Resolve();
  return r->kind_ == Kind::kTypes ? r->types_ : kNone;
}

absl::Status PacketType::Validate(const Packet& p) const {
  if (p.IsEmpty()) return absl::OkStatus();
  const auto& types = Types();
  if (types.empty()) return absl::OkStatus();
  for (const auto* t : types) {
    if (*t == *p.Type()) return absl::OkStatus();
  }
  return absl::InvalidArgumentError("Packet type mismatch: expected " + DebugTypeName() +
                                    " but got \"" + p.DebugTypeName() + "\"");
}

absl::Status PacketType::CompatibleWith(const PacketType& producer) const {
  const auto& mine = Types();
  const auto& theirs = producer.Types();
  if (mine.empty() || theirs.empty()) return absl::OkStatus();
  for (const auto* t : theirs) {
    bool ok = std::any_of(mine.begin(), mine.end(), [&](const std::type_info* m) { return *m == *t; });
    if (!ok) {
      return absl::InvalidArgumentError("the producer emits " + producer.DebugTypeName() +
                                        " but the consumer expects " + DebugTypeName());
    }
  }
  return absl::OkStatus();
}

std::string PacketType::DebugTypeName() const {
  const PacketType* r = Resolve();
  switch (r->kind_) {
    case Kind::kUnset:
      return "[Undeclared]";
    case Kind::kAny:
    case Kind::kSameAs:
      return "[Any Type]";
    case Kind::kNone:
      return "[No Type]";
    case Kind::kTypes:
      break;
  }
  std::string out;
  for (size_t i = 0; i < r->types_.size(); ++i) {
    if (i) out += " or ";
    out += "\"" + DemangledTypeName(*r->types_[i]) + "\"";
  }
  return out;
}

}  // namespace sluice
