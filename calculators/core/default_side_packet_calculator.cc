// DefaultSidePacketCalculator: outputs side packet VALUE = OPTIONAL_VALUE when
// that one is supplied, else DEFAULT_VALUE.
//
//   node {
//     calculator: "DefaultSidePacketCalculator"
//     input_side_packet: "OPTIONAL_VALUE:user_num_faces"
//     input_side_packet: "DEFAULT_VALUE:default_num_faces"
//     output_side_packet: "VALUE:num_faces"
//   }
#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kOptionalValueTag[] = "OPTIONAL_VALUE";
constexpr char kDefaultValueTag[] = "DEFAULT_VALUE";
constexpr char kValueTag[] = "VALUE";

}  // namespace

class DefaultSidePacketCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->InputSidePackets().HasTag(kDefaultValueTag)) {
      return absl::InvalidArgumentError(
          "DefaultSidePacketCalculator needs a DEFAULT_VALUE input side packet");
    }
    if (!cc->OutputSidePackets().HasTag(kValueTag)) {
      return absl::InvalidArgumentError(
          "DefaultSidePacketCalculator needs a VALUE output side packet");
    }
    PacketType& def = cc->InputSidePackets().Tag(kDefaultValueTag).SetAny();
    if (cc->InputSidePackets().HasTag(kOptionalValueTag)) {
      cc->InputSidePackets().Tag(kOptionalValueTag).SetSameAs(&def).Optional();
    }
    cc->OutputSidePackets().Tag(kValueTag).SetSameAs(&def);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const PacketSet& in = cc->InputSidePackets();
    const bool use_optional = in.HasTag(kOptionalValueTag) && !in.Tag(kOptionalValueTag).IsEmpty();
    cc->OutputSidePackets().Tag(kValueTag).Set(
        in.Tag(use_optional ? kOptionalValueTag : kDefaultValueTag));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(DefaultSidePacketCalculator);

}  // namespace sluice
