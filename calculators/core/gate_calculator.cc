// GateCalculator: passes or blocks its untagged data streams at each timestamp.
//
// The decision comes from (first match wins):
//  * an ALLOW or DISALLOW bool input stream: the packet at the current
//    timestamp decides (DISALLOW inverted); where it has no packet, the option
//    `empty_packets_as_allow` decides;
//  * an ALLOW or DISALLOW bool input side packet: fixed for the whole run; when
//    it disallows, the data outputs are closed at the first input;
//  * otherwise the option `allow` (default false).
// An optional STATE_CHANGE output carries the new decision at every change
// (none for the first decision unless `initial_gate_state` is set).
//
//   node {
//     calculator: "GateCalculator"
//     input_stream: "frames"  input_stream: "ALLOW:enabled"
//     output_stream: "gated_frames"
//     output_stream: "STATE_CHANGE:gate_changed"   # optional
//   }
#include "absl/status/status.h"
#include "calculators/core/gate_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kAllowTag[] = "ALLOW";
constexpr char kDisallowTag[] = "DISALLOW";
constexpr char kStateChangeTag[] = "STATE_CHANGE";

using mediapipe::GateCalculatorOptions;

}  // namespace

class GateCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool side = cc->InputSidePackets().HasTag(kAllowTag) ||
                      cc->InputSidePackets().HasTag(kDisallowTag);
    const bool stream = cc->Inputs().HasTag(kAllowTag) || cc->Inputs().HasTag(kDisallowTag);
    if (side && stream) {
      return absl::InvalidArgumentError(
          "GateCalculator: ALLOW/DISALLOW may be a stream or a side packet, not both");
    }
    if ((cc->InputSidePackets().HasTag(kAllowTag) && cc->InputSidePackets().HasTag(kDisallowTag)) ||
        (cc->Inputs().HasTag(kAllowTag) && cc->Inputs().HasTag(kDisallowTag))) {
      return absl::InvalidArgumentError(
          "GateCalculator: use either ALLOW or DISALLOW, not both");
    }
    for (const char* tag : {kAllowTag, kDisallowTag}) {
      if (cc->InputSidePackets().HasTag(tag)) {
        cc->InputSidePackets().Tag(tag).Set<bool>().Optional();
      }
      if (cc->Inputs().HasTag(tag)) cc->Inputs().Tag(tag).Set<bool>();
    }
    const int n = cc->Inputs().NumEntries("");
    if (cc->Outputs().NumEntries("") != n) {
      return absl::InvalidArgumentError(
          "GateCalculator: the number of data output streams must match the data input streams");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    if (cc->Outputs().HasTag(kStateChangeTag)) cc->Outputs().Tag(kStateChangeTag).Set<bool>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<GateCalculatorOptions>();
    empty_packets_as_allow_ = options.empty_packets_as_allow();
    last_state_ = options.initial_gate_state();
    mode_ = Mode::kOption;
    fixed_allow_ = options.allow();
    // An unsupplied side packet leaves the `allow` option in charge.
    for (const char* tag : {kAllowTag, kDisallowTag}) {
      if (cc->InputSidePackets().HasTag(tag) && !cc->InputSidePackets().Tag(tag).IsEmpty()) {
        mode_ = Mode::kSidePacket;
        fixed_allow_ = cc->InputSidePackets().Tag(tag).Get<bool>() == (tag == kAllowTag);
      }
      if (cc->Inputs().HasTag(tag)) {
        mode_ = Mode::kStream;
        control_tag_ = tag;
      }
    }
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    bool allow = fixed_allow_;
    if (mode_ == Mode::kStream) {
      const InputStreamShard& control = cc->Inputs().Tag(control_tag_);
      allow = control.IsEmpty() ? empty_packets_as_allow_
                                : control.Get<bool>() == (control_tag_ == kAllowTag);
    }
    const auto state = allow ? GateCalculatorOptions::GATE_ALLOW
                             : GateCalculatorOptions::GATE_DISALLOW;
    if (cc->Outputs().HasTag(kStateChangeTag) &&
        last_state_ != GateCalculatorOptions::GATE_UNINITIALIZED && last_state_ != state) {
      cc->Outputs().Tag(kStateChangeTag).Add(new bool(allow), cc->InputTimestamp());
    }
    last_state_ = state;

    const int n = cc->Inputs().NumEntries("");
    if (!allow) {
      // A run-long "disallow" is final: closing tells downstream at once.
      if (mode_ == Mode::kSidePacket) {
        for (int i = 0; i < n; ++i) {
          if (!cc->Outputs().Get("", i).IsClosed()) cc->Outputs().Get("", i).Close();
        }
      }
      return absl::OkStatus();
    }
    for (int i = 0; i < n; ++i) {
      if (!cc->Inputs().Get("", i).IsEmpty()) {
        cc->Outputs().Get("", i).AddPacket(cc->Inputs().Get("", i).Value());
      }
    }
    return absl::OkStatus();
  }

 private:
  enum class Mode { kOption, kSidePacket, kStream };
  Mode mode_ = Mode::kOption;
  bool fixed_allow_ = false;
  bool empty_packets_as_allow_ = false;
  const char* control_tag_ = kAllowTag;
  GateCalculatorOptions::GateState last_state_ = GateCalculatorOptions::GATE_UNINITIALIZED;
};
REGISTER_CALCULATOR(GateCalculator);

}  // namespace sluice
