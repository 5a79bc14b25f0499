// Packets <-> command-line text: `TYPE:VALUE` parsing for --side/--input and
// printing of printable payloads for --print.
#ifndef SLUICE_TOOLS_PACKET_TEXT_H_
#define SLUICE_TOOLS_PACKET_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "framework/packet.h"

namespace sluice::cli {

// Types accepted on the command line: int, int64, float, double, bool, string,
// and counter (a std::shared_ptr<std::atomic<int>> starting at VALUE).
// Parses one value of `type`; errors name the type and the offending text.
absl::StatusOr<Packet> ParsePacketValue(absl::string_view type, absl::string_view text);

// "NAME=TYPE:VALUE" (side packets) -> name + packet.
absl::StatusOr<std::pair<std::string, Packet>> ParseSideSpec(absl::string_view spec);

// "STREAM=TYPE:V1,V2,..." (graph inputs) -> name + packets (no timestamps yet).
// A string list splits on commas; an empty value list gives no packets.
absl::StatusOr<std::pair<std::string, std::vector<Packet>>> ParseInputSpec(
    absl::string_view spec);

// The payload as one line of text: scalars, strings and vectors of those;
// "<TypeName>" for anything else.
std::string PacketValueToText(const Packet& packet);

}  // namespace sluice::cli

#endif  // SLUICE_TOOLS_PACKET_TEXT_H_
