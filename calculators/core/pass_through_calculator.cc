// PassThroughCalculator: forwards every input stream (and input side packet) to
// the output with the same tag and index, unchanged.
//
//   node {
//     calculator: "PassThroughCalculator"
//     input_stream: "in"   input_stream: "VIDEO:frames"
//     output_stream: "out" output_stream: "VIDEO:frames_copy"
//   }
#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

bool SameLayout(const PortMap& a, const PortMap& b) {
  if (a.NumEntries() != b.NumEntries()) return false;
  for (int id = 0; id < a.NumEntries(); ++id) {
    if (a.EntryAt(id).tag != b.EntryAt(id).tag || a.EntryAt(id).index != b.EntryAt(id).index) {
      return false;
    }
  }
  return true;
}

}  // namespace

class PassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!SameLayout(cc->Inputs().TagMap(), cc->Outputs().TagMap())) {
      return absl::InvalidArgumentError(
          "PassThroughCalculator: input and output streams must use matching tags and indexes");
    }
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      cc->Inputs().Get(id).SetAny();
      cc->Outputs().Get(id).SetSameAs(&cc->Inputs().Get(id));
    }
    for (int id = 0; id < cc->InputSidePackets().NumEntries(); ++id) {
      cc->InputSidePackets().Get(id).SetAny();
    }
    if (cc->OutputSidePackets().NumEntries() != 0) {
      if (!SameLayout(cc->InputSidePackets().TagMap(), cc->OutputSidePackets().TagMap())) {
        return absl::InvalidArgumentError(
            "PassThroughCalculator: input and output side packets must use matching tags and "
            "indexes");
      }
      for (int id = 0; id < cc->InputSidePackets().NumEntries(); ++id) {
        cc->OutputSidePackets().Get(id).SetSameAs(&cc->InputSidePackets().Get(id));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    if (cc->OutputSidePackets().NumEntries() != 0) {
      for (int id = 0; id < cc->InputSidePackets().NumEntries(); ++id) {
        cc->OutputSidePackets().Get(id).Set(cc->InputSidePackets().Get(id));
      }
    }
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    // Without inputs this is a source node with nothing to emit.
    if (cc->Inputs().NumEntries() == 0) return StatusStop();
    for (int id = 0; id < cc->Inputs().NumEntries(); ++id) {
      if (!cc->Inputs().Get(id).IsEmpty()) {
        cc->Outputs().Get(id).AddPacket(cc->Inputs().Get(id).Value());
      }
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(PassThroughCalculator);

}  // namespace sluice
