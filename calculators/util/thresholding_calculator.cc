// ThresholdingCalculator: compares a float with a threshold.
//
//   node {
//     calculator: "ThresholdingCalculator"
//     input_stream: "FLOAT:hand_presence_score"   # float
//     output_stream: "FLAG:hand_presence"         # bool: value > threshold
//     options: { [mediapipe.ThresholdingCalculatorOptions.ext] { threshold: 0.5 } }
//   }
//
// Optional outputs ACCEPT (true, only when above) and REJECT (false, only
// when not above). The threshold may also come from a THRESHOLD (double)
// input stream or side packet, which override the option.
#include <memory>

#include "absl/status/status.h"
#include "calculators/util/thresholding_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kFloatTag[] = "FLOAT";
constexpr char kFlagTag[] = "FLAG";
constexpr char kAcceptTag[] = "ACCEPT";
constexpr char kRejectTag[] = "REJECT";
constexpr char kThresholdTag[] = "THRESHOLD";

using mediapipe::ThresholdingCalculatorOptions;

}  // namespace

class ThresholdingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kFloatTag)) {
      return absl::InvalidArgumentError("ThresholdingCalculator: needs a FLOAT input");
    }
    cc->Inputs().Tag(kFloatTag).Set<float>();
    for (const char* tag : {kFlagTag, kAcceptTag, kRejectTag}) {
      if (cc->Outputs().HasTag(tag)) cc->Outputs().Tag(tag).Set<bool>();
    }
    const bool stream = cc->Inputs().HasTag(kThresholdTag);
    const bool side = cc->InputSidePackets().HasTag(kThresholdTag);
    if (stream && side) {
      return absl::InvalidArgumentError(
          "ThresholdingCalculator: THRESHOLD may be a stream or a side packet, not both");
    }
    if (stream) cc->Inputs().Tag(kThresholdTag).Set<double>();
    if (side) cc->InputSidePackets().Tag(kThresholdTag).Set<double>();
    if (!stream && !side && !cc->Options<ThresholdingCalculatorOptions>().has_threshold()) {
      return absl::InvalidArgumentError(
          "ThresholdingCalculator: set the threshold option or connect THRESHOLD");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    threshold_ = cc->Options<ThresholdingCalculatorOptions>().threshold();
    if (cc->InputSidePackets().HasTag(kThresholdTag)) {
      threshold_ = cc->InputSidePackets().Tag(kThresholdTag).Get<double>();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kThresholdTag) && !cc->Inputs().Tag(kThresholdTag).IsEmpty()) {
      threshold_ = cc->Inputs().Tag(kThresholdTag).Get<double>();
    }
    if (cc->Inputs().Tag(kFloatTag).IsEmpty()) return absl::OkStatus();
    const bool accept = static_cast<double>(cc->Inputs().Tag(kFloatTag).Get<float>()) > threshold_;
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Outputs().HasTag(kFlagTag)) {
      cc->Outputs().Tag(kFlagTag).AddPacket(MakePacket<bool>(accept).At(ts));
    }
    if (accept && cc->Outputs().HasTag(kAcceptTag)) {
      cc->Outputs().Tag(kAcceptTag).AddPacket(MakePacket<bool>(true).At(ts));
    }
    if (!accept && cc->Outputs().HasTag(kRejectTag)) {
      cc->Outputs().Tag(kRejectTag).AddPacket(MakePacket<bool>(false).At(ts));
    }
    return absl::OkStatus();
  }

 private:
  double threshold_ = 0.0;
};
REGISTER_CALCULATOR(ThresholdingCalculator);

}  // namespace sluice
