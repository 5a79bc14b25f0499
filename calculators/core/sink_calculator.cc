// SinkCalculator: consumes any number of input streams and side packets and
// does nothing with them. Terminates streams that nobody else reads (e.g. to
// keep a branch of a graph running for its side effects or for tests).
//
//   node {
//     calculator: "SinkCalculator"
//     input_stream: "unused_debug_stream"
//   }
#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class SinkCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Outputs().NumEntries() != 0 || cc->OutputSidePackets().NumEntries() != 0) {
      return absl::InvalidArgumentError("SinkCalculator has no outputs");
    }
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) cc->Inputs().Get(id).SetAny();
    for (int id = 0; id < cc->InputSidePackets().NumEntries(); ++id) {
      cc->InputSidePackets().Get(id).SetAny().Optional();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(SinkCalculator);

}  // namespace sluice
