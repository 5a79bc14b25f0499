// MakePairCalculator: joins the packets of its two untagged inputs at each
// timestamp into one std::pair<Packet, Packet> (either may be empty).
//
//   node {
//     calculator: "MakePairCalculator"
//     input_stream: "tensors"  input_stream: "rect"
//     output_stream: "tensors_and_rect"
//   }
#include <utility>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class MakePairCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries("") != 2 || cc->Inputs().NumEntries() != 2) {
      return absl::InvalidArgumentError(
          "MakePairCalculator needs exactly two untagged input streams");
    }
    if (cc->Outputs().NumEntries("") != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          "MakePairCalculator needs exactly one untagged output stream");
    }
    cc->Inputs().Index(0).SetAny();
    cc->Inputs().Index(1).SetAny();
    cc->Outputs().Index(0).Set<std::pair<Packet, Packet>>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).Add(
        new std::pair<Packet, Packet>(cc->Inputs().Index(0).Value(), cc->Inputs().Index(1).Value()),
        cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(MakePairCalculator);

}  // namespace sluice
