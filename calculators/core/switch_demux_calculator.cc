// SwitchDemuxCalculator: the input half of a SwitchContainer (see
// framework/tool/switch_container.h). Each data input TAG:i goes to output
// C<c>__TAG:i of the channel c active at the packet's timestamp; input side
// packets TAG:i are relayed to C<c>__TAG:i of EVERY channel (so that every
// contained node can open); the other channels' outputs only see their
// timestamp bounds advance.
//
//   node {
//     calculator: "SwitchDemuxCalculator"
//     input_stream: "SELECT:choice"            # optional; or ENABLE (bool)
//     input_stream: "IMAGE:frames"
//     output_stream: "C0__IMAGE:frames_0"
//     output_stream: "C1__IMAGE:frames_1"
//     options { [mediapipe.SwitchContainerOptions.ext] { select: 0 } }
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
#include "framework/tool/switch_container.pb.h"

namespace sluice {

class SwitchDemuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    DeclareSwitchSelection(cc);
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      if (!IsSwitchSelectionTag(cc->Inputs().TagMap().EntryAt(id).tag)) cc->Inputs().Get(id).SetAny();
    }
    for (int id = 0; id < cc->InputSidePackets().NumEntries(); ++id) {
      if (!IsSwitchSelectionTag(cc->InputSidePackets().TagMap().EntryAt(id).tag)) {
        cc->InputSidePackets().Get(id).SetAny();
      }
    }
    // Every channel output mirrors the input with the same tag and index.
    for (auto [ins, outs, what] :
         {std::make_tuple(&cc->Inputs(), &cc->Outputs(), "output stream"),
          std::make_tuple(&cc->InputSidePackets(), &cc->OutputSidePackets(),
                          "output side packet")}) {
      for (int id = 0; id < outs->NumEntries(); ++id) {
        const auto& entry = outs->TagMap().EntryAt(id);
        int channel = 0;
        std::string tag;
        const int in = ParseSwitchChannelTag(entry.tag, &channel, &tag)
                           ? ins->TagMap().GetId(tag, entry.index)
                           : -1;
        if (in < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "SwitchDemuxCalculator: ", what, " ", outs->TagMap().TagIndexString(id),
              " must be C<channel>__TAG:index for an input TAG:index"));
        }
        outs->Get(id).SetSameAs(&ins->Get(in));
      }
    }
    if (!cc->Options<mediapipe::SwitchContainerOptions>().synchronize_io()) {
      cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    }
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    history_.Reset(InitialSwitchChannel(*cc));
    // Side packets go to every channel.
    auto& outs = cc->OutputSidePackets();
    for (int id = 0; id < outs.NumEntries(); ++id) {
      const auto& entry = outs.TagMap().EntryAt(id);
      int channel = 0;
      std::string tag;
      ParseSwitchChannelTag(entry.tag, &channel, &tag);
      const Packet& packet = cc->InputSidePackets().Get(tag, entry.index);
      if (!packet.IsEmpty()) outs.Get(id).Set(packet);
    }
    // Data input id -> its outputs, one per channel (by channel number).
    const auto& out_map = cc->Outputs().TagMap();
    for (int id = 0; id < out_map.NumEntries(); ++id) {
      int channel = 0;
      std::string tag;
      ParseSwitchChannelTag(out_map.EntryAt(id).tag, &channel, &tag);
      routes_[cc->Inputs().TagMap().GetId(tag, out_map.EntryAt(id).index)][channel] = id;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp now = cc->InputTimestamp();
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      if (IsSwitchSelectionTag(cc->Inputs().TagMap().EntryAt(id).tag)) continue;
      const Packet& p = cc->Inputs().Get(id).Value();
      if (!p.IsEmpty() && p.Timestamp() == now) queues_[id].push_back(p);
    }
    if (auto channel = SwitchChannelFromStream(*cc)) history_.Record(now, *channel);

    // Packets up to the selection's settled timestamp know their channel.
    const Timestamp selection_settled = SwitchSelectionSettled(*cc);
    Timestamp oldest_pending = Timestamp::Done();
    for (const auto& [input, by_channel] : routes_) {
      std::deque<Packet>& queue = queues_[input];
      while (!queue.empty() && queue.front().Timestamp() <= selection_settled) {
        auto out = by_channel.find(history_.At(queue.front().Timestamp()));
        if (out != by_channel.end()) cc->Outputs().Get(out->second).AddPacket(queue.front());
        queue.pop_front();
      }
      // Every channel learns that nothing more comes before the decided point,
      // so inactive channels (and the mux behind them) settle too.
      Timestamp decided = std::min(selection_settled, Settled(cc->Inputs().Get(input)));
      if (!queue.empty()) decided = std::min(decided, queue.front().Timestamp().PreviousAllowedInStream());
      const Timestamp bound = decided.NextAllowedInStream();
      for (const auto& [channel, out] : by_channel) {
        cc->Outputs().Get(out).SetNextTimestampBound(bound);
      }
      oldest_pending = std::min(oldest_pending, bound);
    }
    history_.ForgetBefore(oldest_pending);
    return absl::OkStatus();
  }

 private:
  SwitchChannelHistory history_;
  std::map<int, std::map<int, int>> routes_;  // input id -> channel -> output id
  std::map<int, std::deque<Packet>> queues_;  // input id -> packets awaiting a channel
};
REGISTER_CALCULATOR(SwitchDemuxCalculator);

}  // namespace sluice
