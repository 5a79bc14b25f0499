#include "framework/packet.h"

#include <cxxabi.h>

#include <cstdlib>

namespace sluice {

std::string DemangledTypeName(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return t.name();
  std::string out(d);
  std::free(d);
  // libstdc++ spells std::string out in full; shorten it for readable messages.
  const std::string kLong =
      "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >";
  for (size_t pos; (pos = out.find(kLong)) != std::string::npos;) {
    out.replace(pos, kLong.size(), "std::string");
  }
  return out;
}

namespace packet_internal {

absl::Status TypeMismatchError(const std::type_info* have, const std::type_info& want) {
  if (have == nullptr) {
    return absl::InternalError("Expected a packet of type \"" + DemangledTypeName(want) +
                               "\" but the packet is empty");
  }
  return absl::InvalidArgumentError("The packet holds type \"" + DemangledTypeName(*have) +
                                    "\" but type \"" + DemangledTypeName(want) +
                                    "\" was requested");
}

}  // namespace packet_internal

std::string Packet::RegisteredTypeName() const {
  if (holder_ == nullptr) return "";
  std::string n = DemangledTypeName(holder_->type());
  // Builtins keep their plain name; class types get MediaPipe's "::" prefix.
  if (n.find("::") == std::string::npos) return n;
  std::string out = "::" + n;
  for (size_t pos = 0; (pos = out.find('<', pos)) != std::string::npos; ++pos) {
    if (out.compare(pos + 1, 1, ":") != 0 && out.find("::", pos) != std::string::npos) {
      out.insert(pos + 1, "::");
    }
  }
  return out;
}

std::string Packet::DebugTypeName() const {
  return holder_ == nullptr ? "{empty}" : DemangledTypeName(holder_->type());
}

std::string Packet::DebugString() const {
  return "sluice::Packet with timestamp: " + ts_.DebugString() +
         (holder_ ? " and type: " + DebugTypeName() : " and no data");
}

}  // namespace sluice
