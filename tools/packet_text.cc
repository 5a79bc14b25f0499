#include "tools/packet_text.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sluice::cli {
namespace {

std::string FormatDouble(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string Scalar(int v) { return std::to_string(v); }
std::string Scalar(int64_t v) { return std::to_string(v); }
std::string Scalar(float v) { return FormatDouble(v); }
std::string Scalar(double v) { return FormatDouble(v); }
std::string Scalar(bool v) { return v ? "true" : "false"; }
std::string Scalar(const std::string& v) { return v; }

// Appends the text of `packet` if it holds T or std::vector<T>.
template <typename T>
bool TryFormat(const Packet& packet, std::string* out) {
  if (auto v = packet.TryGet<T>(); v.ok()) {
    *out = Scalar(**v);
    return true;
  }
  if (auto v = packet.TryGet<std::vector<T>>(); v.ok()) {
    std::vector<std::string> items;
    for (const T& item : **v) items.push_back(Scalar(item));
    *out = absl::StrCat("[", absl::StrJoin(items, ", "), "]");
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Packet> ParsePacketValue(absl::string_view type, absl::string_view text) {
  auto bad = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read \"", text, "\" as ", type));
  };
  if (type == "int") {
    int v;
    if (!absl::SimpleAtoi(text, &v)) return bad();
    return MakePacket<int>(v);
  }
  if (type == "int64") {
    int64_t v;
    if (!absl::SimpleAtoi(text, &v)) return bad();
    return MakePacket<int64_t>(v);
  }
  if (type == "float") {
    float v;
    if (!absl::SimpleAtof(text, &v)) return bad();
    return MakePacket<float>(v);
  }
  if (type == "double") {
    double v;
    if (!absl::SimpleAtod(text, &v)) return bad();
    return MakePacket<double>(v);
  }
  if (type == "bool") {
    bool v;
    if (!absl::SimpleAtob(text, &v)) return bad();
    return MakePacket<bool>(v);
  }
  if (type == "string") return MakePacket<std::string>(std::string(text));
  if (type == "counter") {
    // A counter shared between nodes (e.g. GlobalCountSourceCalculator's
    // `global_counter`), starting at the given value.
    int v;
    if (!absl::SimpleAtoi(text, &v)) return bad();
    return MakePacket<std::shared_ptr<std::atomic<int>>>(std::make_shared<std::atomic<int>>(v));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown packet type \"", type,
                                                 "\" (use int, int64, float, double, bool, "
                                                 "string or counter)"));
}

absl::StatusOr<std::pair<std::string, Packet>> ParseSideSpec(absl::string_view spec) {
  std::pair<absl::string_view, absl::string_view> name_rest =
      absl::StrSplit(spec, absl::MaxSplits('=', 1));
  std::pair<absl::string_view, absl::string_view> type_value =
      absl::StrSplit(name_rest.second, absl::MaxSplits(':', 1));
  if (name_rest.first.empty() || name_rest.second.empty() ||
      name_rest.second.find(':') == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad side packet \"", spec, "\": expected NAME=TYPE:VALUE"));
  }
  auto packet = ParsePacketValue(type_value.first, type_value.second);
  if (!packet.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("side packet \"", name_rest.first, "\": ", packet.status().message()));
  }
  return std::make_pair(std::string(name_rest.first), *std::move(packet));
}

absl::StatusOr<std::pair<std::string, std::vector<Packet>>> ParseInputSpec(
    absl::string_view spec) {
  std::pair<absl::string_view, absl::string_view> name_rest =
      absl::StrSplit(spec, absl::MaxSplits('=', 1));
  if (name_rest.first.empty() || name_rest.second.find(':') == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad input \"", spec, "\": expected STREAM=TYPE:V1,V2,..."));
  }
  std::pair<absl::string_view, absl::string_view> type_values =
      absl::StrSplit(name_rest.second, absl::MaxSplits(':', 1));
  std::vector<Packet> packets;
  if (!type_values.second.empty()) {
    for (absl::string_view item : absl::StrSplit(type_values.second, ',')) {
      absl::string_view text =
          type_values.first == "string" ? item : absl::StripAsciiWhitespace(item);
      auto packet = ParsePacketValue(type_values.first, text);
      if (!packet.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input stream \"", name_rest.first, "\": ", packet.status().message()));
      }
      packets.push_back(*std::move(packet));
    }
  }
  return std::make_pair(std::string(name_rest.first), std::move(packets));
}

std::string PacketValueToText(const Packet& packet) {
  if (packet.IsEmpty()) return "<empty>";
  std::string out;
  if (TryFormat<int>(packet, &out) || TryFormat<int64_t>(packet, &out) ||
      TryFormat<float>(packet, &out) || TryFormat<double>(packet, &out) ||
      TryFormat<bool>(packet, &out) || TryFormat<std::string>(packet, &out)) {
    return out;
  }
  return absl::StrCat("<", packet.DebugTypeName(), ">");
}

}  // namespace sluice::cli
