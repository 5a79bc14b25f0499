#include "calculators/core/end_loop_calculator.h"

#include <string>
#include <vector>

namespace sluice {

absl::Status EndLoopCalculatorBase::DeclarePorts(CalculatorContract* cc) {
  if (!cc->Inputs().HasTag("BATCH_END") || !cc->Inputs().HasTag("ITEM") ||
      !cc->Outputs().HasTag("ITERABLE")) {
    return absl::InvalidArgumentError(
        "EndLoopCalculator needs inputs ITEM and BATCH_END and output ITERABLE");
  }
  cc->Inputs().Tag("BATCH_END").Set<Timestamp>();
  return absl::OkStatus();
}

bool EndLoopCalculatorBase::BatchEnds(CalculatorContext* cc, Timestamp* input_ts) {
  const InputStreamShard& batch_end = cc->Inputs().Tag("BATCH_END");
  if (batch_end.IsEmpty()) return false;
  *input_ts = batch_end.Get<Timestamp>();
  return true;
}

void EndLoopCalculatorBase::EmitNothing(CalculatorContext* cc, Timestamp input_ts) {
  cc->Outputs().Tag("ITERABLE").SetNextTimestampBound(input_ts.NextAllowedInStream());
}

// MediaPipe's names for the collection types that need no other library, plus
// Int and String to pair with BeginLoopInt/StringCalculator.
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopBooleanCalculator, std::vector<bool>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopFloatCalculator, std::vector<float>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopIntCalculator, std::vector<int>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopStringCalculator, std::vector<std::string>);

}  // namespace sluice
