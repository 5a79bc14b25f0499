// SwitchMuxCalculator: the output half of a SwitchContainer (see
// framework/tool/switch_container.h). Output TAG:i carries the packets of
// input C<c>__TAG:i for the timestamps at which channel c is active, in
// timestamp order; output side packet TAG:i is channel c's C<c>__TAG:i for the
// channel selected at Open.
//
//   node {
//     calculator: "SwitchMuxCalculator"
//     input_side_packet: "SELECT:model_complexity"   # optional; or ENABLE (bool)
//     input_side_packet: "C0__PACKET:path_0"
//     input_side_packet: "C1__PACKET:path_1"
//     output_side_packet: "PACKET:path"
//     options { [mediapipe.SwitchContainerOptions.ext] { select: 1 } }
//   }
#include <deque>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/core/switch_channel.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/tool/switch_container.h"

namespace sluice {

class SwitchMuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    DeclareSwitchSelection(cc);
    for (auto [ins, outs, what] :
         {std::make_tuple(&cc->Inputs(), &cc->Outputs(), "input stream"),
          std::make_tuple(&cc->InputSidePackets(), &cc->OutputSidePackets(),
                          "input side packet")}) {
      for (int id = 0; id < outs->NumEntries(); ++id) outs->Get(id).SetAny();
      for (int id = 0; id < ins->NumEntries(); ++id) {
        const auto& entry = ins->TagMap().EntryAt(id);
        if (IsSwitchSelectionTag(entry.tag)) continue;
        int channel = 0;
        std::string tag;
        const int out = ParseSwitchChannelTag(entry.tag, &channel, &tag)
                            ? outs->TagMap().GetId(tag, entry.index)
                            : -1;
        if (out < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "SwitchMuxCalculator: ", what, " ", ins->TagMap().TagIndexString(id),
              " must be C<channel>__TAG:index for an output TAG:index"));
        }
        ins->Get(id).SetSameAs(&outs->Get(out));
      }
    }
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const int channel = InitialSwitchChannel(*cc);
    history_.Reset(channel);
    auto& outs = cc->OutputSidePackets();
    for (int id = 0; id < outs.NumEntries(); ++id) {
      const auto& entry = outs.TagMap().EntryAt(id);
      const std::string in_tag = SwitchChannelTag(entry.tag, channel);
      if (!cc->InputSidePackets().HasTag(in_tag) ||
          cc->InputSidePackets().TagMap().GetId(in_tag, entry.index) < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node \"", cc->NodeName(), "\": channel ", channel, " is selected but has no ",
            in_tag, ":", entry.index, " side packet (is SELECT within the contained nodes?)"));
      }
      const Packet& packet = cc->InputSidePackets().Get(in_tag, entry.index);
      if (!packet.IsEmpty()) outs.Get(id).Set(packet);
    }
    const auto& in_map = cc->Inputs().TagMap();
    for (int id = 0; id < in_map.NumEntries(); ++id) {
      int channel_of_input = 0;
      std::string tag;
      if (!ParseSwitchChannelTag(in_map.EntryAt(id).tag, &channel_of_input, &tag)) continue;
      sources_[cc->Outputs().TagMap().GetId(tag, in_map.EntryAt(id).index)][channel_of_input] = id;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp now = cc->InputTimestamp();
    if (auto channel = SwitchChannelFromStream(*cc)) history_.Record(now, *channel);
    for (const auto& [output, by_channel] : sources_) {
      for (const auto& [channel, input] : by_channel) {
        const Packet& p = cc->Inputs().Get(input).Value();
        if (!p.IsEmpty() && p.Timestamp() == now) queues_[input].push_back(p);
      }
    }
    const Timestamp selection_end = SwitchSelectionSettled(*cc).NextAllowedInStream();
    Timestamp oldest_pending = Timestamp::Done();
    for (const auto& [output, by_channel] : sources_) {
      const Timestamp bound = Forward(cc, output, by_channel, selection_end);
      oldest_pending = std::min(oldest_pending, bound);
    }
    // Packets of channels that were not active at their timestamp are dropped.
    for (auto& [input, queue] : queues_) {
      while (!queue.empty() && queue.front().Timestamp() < oldest_pending) queue.pop_front();
    }
    history_.ForgetBefore(oldest_pending);
    return absl::OkStatus();
  }

 private:
  // Sends, in timestamp order, the packets of `output` whose channel is known
  // and whose channel's stream has settled everything before them; returns the
  // first timestamp not decided yet (also set as the output's bound).
  Timestamp Forward(CalculatorContext* cc, int output, const std::map<int, int>& by_channel,
                    Timestamp selection_end) {
    const auto& changes = history_.changes();
    Timestamp decided = changes.begin()->first;
    for (auto it = changes.begin(); it != changes.end(); ++it) {
      const Timestamp start = it->first;
      const bool last = std::next(it) == changes.end();
      const Timestamp end = last ? selection_end : std::next(it)->first;
      auto source = by_channel.find(it->second);
      if (source == by_channel.end()) {  // no such channel: nothing to send
        decided = end;
        continue;
      }
      std::deque<Packet>& queue = queues_[source->second];
      while (!queue.empty() && queue.front().Timestamp() < end) {
        if (queue.front().Timestamp() >= start) cc->Outputs().Get(output).AddPacket(queue.front());
        queue.pop_front();
      }
      const Timestamp input_done =
          Settled(cc->Inputs().Get(source->second)).NextAllowedInStream();
      if (input_done < end) {  // this channel may still send packets before `end`
        decided = std::max(start, input_done);
        break;
      }
      decided = end;
    }
    cc->Outputs().Get(output).SetNextTimestampBound(decided);
    return decided;
  }

  SwitchChannelHistory history_;
  std::map<int, std::map<int, int>> sources_;  // output id -> channel -> input id
  std::map<int, std::deque<Packet>> queues_;   // input id -> packets not sent yet
};
REGISTER_CALCULATOR(SwitchMuxCalculator);

}  // namespace sluice
