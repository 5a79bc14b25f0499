// PacketPresenceCalculator: tells, for every settled timestamp of its input,
// whether a packet arrived there (true) or only the timestamp bound moved past
// it (false). Typically placed after a GateCalculator.
//
//   node {
//     calculator: "PacketPresenceCalculator"
//     input_stream: "PACKET:gated_prev_pose_rect_from_landmarks"   # any type
//     output_stream: "PRESENCE:prev_pose_rect_from_landmarks_is_present"  # bool
//   }
#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kPacketTag[] = "PACKET";
constexpr char kPresenceTag[] = "PRESENCE";

}  // namespace

class PacketPresenceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kPacketTag) || !cc->Outputs().HasTag(kPresenceTag)) {
      return absl::InvalidArgumentError(
          "PacketPresenceCalculator: needs a PACKET input stream and a PRESENCE output stream");
    }
    cc->Inputs().Tag(kPacketTag).SetAny();
    cc->Outputs().Tag(kPresenceTag).Set<bool>();
    // Absence is only visible as a bound: Process must run for bounds too.
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Tag(kPresenceTag).AddPacket(
        MakePacket<bool>(!cc->Inputs().Tag(kPacketTag).IsEmpty()).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(PacketPresenceCalculator);

}  // namespace sluice
