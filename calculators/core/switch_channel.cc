#include "calculators/core/switch_channel.h"

#include <iterator>

#include "framework/tool/switch_container.pb.h"

namespace sluice {
namespace {

constexpr char kSelectTag[] = "SELECT";
constexpr char kEnableTag[] = "ENABLE";

}  // namespace

void DeclareSwitchSelection(CalculatorContract* cc) {
  if (cc->Inputs().HasTag(kSelectTag)) cc->Inputs().Tag(kSelectTag).Set<int>().Optional();
  if (cc->Inputs().HasTag(kEnableTag)) cc->Inputs().Tag(kEnableTag).Set<bool>().Optional();
  if (cc->InputSidePackets().HasTag(kSelectTag)) {
    cc->InputSidePackets().Tag(kSelectTag).Set<int>().Optional();
  }
  if (cc->InputSidePackets().HasTag(kEnableTag)) {
    cc->InputSidePackets().Tag(kEnableTag).Set<bool>().Optional();
  }
}

bool IsSwitchSelectionTag(const std::string& tag) { return tag == kSelectTag || tag == kEnableTag; }

int InitialSwitchChannel(const CalculatorContext& cc) {
  const auto& options = cc.Options<mediapipe::SwitchContainerOptions>();
  int channel = 0;
  if (options.has_enable()) channel = options.enable() ? 1 : 0;
  if (options.has_select()) channel = options.select();
  const PacketSet& side = cc.InputSidePackets();
  if (side.HasTag(kEnableTag) && !side.Tag(kEnableTag).IsEmpty()) {
    channel = side.Tag(kEnableTag).Get<bool>() ? 1 : 0;
  }
  if (side.HasTag(kSelectTag) && !side.Tag(kSelectTag).IsEmpty()) {
    channel = side.Tag(kSelectTag).Get<int>();
  }
  return channel;
}

std::optional<int> SwitchChannelFromStream(const CalculatorContext& cc) {
  const Timestamp now = cc.InputTimestamp();
  for (const char* tag : {kEnableTag, kSelectTag}) {
    if (!cc.Inputs().HasTag(tag)) continue;
    const Packet& p = cc.Inputs().Tag(tag).Value();
    if (p.IsEmpty() || p.Timestamp() != now) continue;
    if (tag == kEnableTag) return p.Get<bool>() ? 1 : 0;
    return p.Get<int>();
  }
  return std::nullopt;
}

Timestamp SwitchSelectionSettled(const CalculatorContext& cc) {
  for (const char* tag : {kEnableTag, kSelectTag}) {
    if (cc.Inputs().HasTag(tag)) return Settled(cc.Inputs().Tag(tag));
  }
  return Timestamp::Done();
}

void SwitchChannelHistory::Record(Timestamp ts, int channel) {
  if (At(ts) != channel) changes_[ts] = channel;
}

int SwitchChannelHistory::At(Timestamp ts) const {
  auto it = changes_.upper_bound(ts);
  return it == changes_.begin() ? -1 : std::prev(it)->second;
}

void SwitchChannelHistory::ForgetBefore(Timestamp ts) {
  auto in_effect = changes_.upper_bound(ts);
  if (in_effect == changes_.begin()) return;
  changes_.erase(changes_.begin(), std::prev(in_effect));
}

}  // namespace sluice
