#include "calculators/core/begin_loop_calculator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

absl::Status BeginLoopCalculatorBase::DeclarePorts(CalculatorContract* cc) {
  if (!cc->Inputs().HasTag("ITERABLE") || !cc->Outputs().HasTag("ITEM") ||
      !cc->Outputs().HasTag("BATCH_END")) {
    return absl::InvalidArgumentError(
        "BeginLoopCalculator needs input ITERABLE and outputs ITEM and BATCH_END");
  }
  if (cc->Inputs().NumEntries("CLONE") != cc->Outputs().NumEntries("CLONE")) {
    return absl::InvalidArgumentError(
        "BeginLoopCalculator needs as many CLONE outputs as CLONE inputs");
  }
  if (cc->Inputs().HasTag("TICK")) cc->Inputs().Tag("TICK").SetAny();
  for (int i = 0; i < cc->Inputs().NumEntries("CLONE"); ++i) {
    cc->Inputs().Get("CLONE", i).SetAny();
    cc->Outputs().Get("CLONE", i).SetSameAs(&cc->Inputs().Get("CLONE", i));
  }
  cc->Outputs().Tag("BATCH_END").Set<Timestamp>();
  // Empty collections and bound-only updates must still end a batch.
  cc->SetProcessTimestampBounds(true);
  return absl::OkStatus();
}

void BeginLoopCalculatorBase::NextItem(CalculatorContext* cc) {
  for (int i = 0; i < cc->Inputs().NumEntries("CLONE"); ++i) {
    const Packet& p = cc->Inputs().Get("CLONE", i).Value();
    if (!p.IsEmpty()) cc->Outputs().Get("CLONE", i).AddPacket(p.At(loop_ts_));
  }
  ++loop_ts_;
}

void BeginLoopCalculatorBase::EndBatch(CalculatorContext* cc, Timestamp batch_start) {
  if (loop_ts_ == batch_start) {
    // Nothing emitted: use one loop timestamp for the batch end alone, and
    // tell ITEM and CLONE that nothing comes up to it.
    ++loop_ts_;
    cc->Outputs().Tag("ITEM").SetNextTimestampBound(loop_ts_);
    for (int i = 0; i < cc->Outputs().NumEntries("CLONE"); ++i) {
      cc->Outputs().Get("CLONE", i).SetNextTimestampBound(loop_ts_);
    }
  }
  cc->Outputs().Tag("BATCH_END").Add(new Timestamp(cc->InputTimestamp()),
                                     loop_ts_ - TimestampDiff(1));
}

// MediaPipe's names for the collection types that need no other library.
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopIntCalculator, std::vector<int>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopUint64tCalculator, std::vector<uint64_t>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopFloatCalculator, std::vector<float>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopStringCalculator, std::vector<std::string>);

}  // namespace sluice
