// MergeCalculator: merges several streams into one. At each timestamp the
// packet of the first input (in port order) that has one goes out; the others
// are dropped. All inputs should carry the same type.
//
//   node {
//     calculator: "MergeCalculator"
//     input_stream: "pose_rect_from_detection"
//     input_stream: "gated_prev_pose_rect_from_landmarks"
//     output_stream: "pose_rect"
//   }
#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class MergeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries("");
    if (n == 0 || n != cc->Inputs().NumEntries()) {
      return absl::InvalidArgumentError(
          "MergeCalculator: needs one or more untagged input streams (and nothing else)");
    }
    if (cc->Outputs().NumEntries("") != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          "MergeCalculator: needs exactly one untagged output stream");
    }
    cc->Inputs().Get("", 0).SetAny();
    for (int i = 1; i < n; ++i) cc->Inputs().Get("", i).SetSameAs(&cc->Inputs().Get("", 0));
    cc->Outputs().Get("", 0).SetSameAs(&cc->Inputs().Get("", 0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      if (!cc->Inputs().Get("", i).IsEmpty()) {
        cc->Outputs().Get("", 0).AddPacket(cc->Inputs().Get("", i).Value());
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(MergeCalculator);

}  // namespace sluice
