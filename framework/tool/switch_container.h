// SwitchContainer: MediaPipe's subgraph that routes a node's inputs to one of
// several alternative nodes (channels) and their outputs back.
//
//   node {
//     calculator: "SwitchContainer"
//     input_side_packet: "SELECT:model_complexity"   # or ENABLE (bool); or as streams
//     input_stream: "IMAGE:image"
//     output_stream: "TENSORS:tensors"
//     options { [mediapipe.SwitchContainerOptions.ext] {
//       select: 1
//       contained_node { calculator: "A" }   # channel 0
//       contained_node { calculator: "B" }   # channel 1
//     } }
//   }
//
// expands (as MediaPipe's, so expanded names match) to
//   SwitchDemuxCalculator: inputs TAG:i:name -> outputs C<c>__TAG:i:c<c>__name
//                          for every channel c (side packets likewise, relayed
//                          to all channels so that every channel opens);
//   SwitchMuxCalculator:   inputs C<c>__TAG:i:c<c>__name -> outputs TAG:i:name
//                          from the selected channel (side packets likewise);
//   the contained nodes, channel c wired to the c<c>__ names.
// Demux and mux both take the SELECT/ENABLE side packets and streams and the
// container's options (without contained_node). The channel comes from the
// options (`select`, or `enable` => 1 else 0), then the SELECT (int) / ENABLE
// (bool) side packet, then packets of the SELECT / ENABLE stream (a change
// applies from that packet's timestamp on).
//
// Difference from MediaPipe: SELECT/ENABLE streams are not re-stamped by a
// PacketSequencerCalculator; they feed demux and mux directly, so data packets
// wait until the selection stream has settled their timestamp.
// The factory registers at static init in this library (sluice_switch_container);
// the demux/mux calculators reference it, so linking them keeps it.
#ifndef SLUICE_FRAMEWORK_TOOL_SWITCH_CONTAINER_H_
#define SLUICE_FRAMEWORK_TOOL_SWITCH_CONTAINER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/calculator.pb.h"

namespace sluice {

// "C<channel>__<tag>", the demux/mux port tag of `tag` on `channel`.
std::string SwitchChannelTag(absl::string_view tag, int channel);
// Splits a "C<channel>__<tag>" tag; false for other tags.
bool ParseSwitchChannelTag(absl::string_view channel_tag, int* channel, std::string* tag);

// The SwitchContainer subgraph for `node` (what the registered factory runs).
absl::StatusOr<mediapipe::CalculatorGraphConfig> ExpandSwitchContainer(
    const mediapipe::CalculatorGraphConfig::Node& node);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TOOL_SWITCH_CONTAINER_H_
