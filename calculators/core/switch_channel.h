// Channel bookkeeping shared by SwitchDemuxCalculator and SwitchMuxCalculator
// (the two halves of framework/tool/switch_container.h's SwitchContainer).
#ifndef SLUICE_CALCULATORS_CORE_SWITCH_CHANNEL_H_
#define SLUICE_CALCULATORS_CORE_SWITCH_CHANNEL_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"
#include "framework/timestamp.h"

namespace sluice {

// Declares the optional SELECT (int) / ENABLE (bool) streams and side packets.
void DeclareSwitchSelection(CalculatorContract* cc);

// True for the SELECT / ENABLE tags (not data ports).
bool IsSwitchSelectionTag(const std::string& tag);

// The channel at Open: options `select` / `enable`, overridden by a SELECT or
// ENABLE side packet.
int InitialSwitchChannel(const CalculatorContext& cc);

// The channel named by a SELECT/ENABLE stream packet at the current input
// timestamp, if there is one.
std::optional<int> SwitchChannelFromStream(const CalculatorContext& cc);

// Up to where the selection is known: the SELECT/ENABLE stream's settled
// timestamp, or Done() when the channel comes from options/side packets only.
Timestamp SwitchSelectionSettled(const CalculatorContext& cc);

// The settled timestamp of an input (its packet's, or its bound's previous).
inline Timestamp Settled(const InputStreamShard& input) { return input.Value().Timestamp(); }

// Which channel is active from which timestamp on.
class SwitchChannelHistory {
 public:
  void Reset(int channel) { changes_ = {{Timestamp::Unstarted(), channel}}; }
  // `channel` is active from `ts` on (ts not earlier than the last change).
  void Record(Timestamp ts, int channel);
  int At(Timestamp ts) const;
  // Drops changes no longer needed to answer At(t) for t >= `ts`.
  void ForgetBefore(Timestamp ts);
  const std::map<Timestamp, int>& changes() const { return changes_; }

 private:
  std::map<Timestamp, int> changes_;
};

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_CORE_SWITCH_CHANNEL_H_
