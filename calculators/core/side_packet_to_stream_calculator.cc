// SidePacketToStreamCalculator: emits its input side packets as stream packets.
// The single output tag says when:
//   AT_PRESTREAM / AT_POSTSTREAM / AT_ZERO: once, at PreStream / PostStream / 0;
//   AT_TICK: at the timestamp of every TICK input packet;
//   AT_FIRST_TICK: at the first TICK, then the output closes;
//   AT_TIMESTAMP: once, at the int64 side packet TIMESTAMP.
// Untagged side packet i goes to output <TAG>:i.
//
//   node {
//     calculator: "SidePacketToStreamCalculator"
//     input_stream: "TICK:frames"
//     input_side_packet: "model_scale"
//     output_stream: "AT_TICK:model_scale_per_frame"
//   }
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kAtPreStream[] = "AT_PRESTREAM";
constexpr char kAtPostStream[] = "AT_POSTSTREAM";
constexpr char kAtZero[] = "AT_ZERO";
constexpr char kAtTick[] = "AT_TICK";
constexpr char kAtFirstTick[] = "AT_FIRST_TICK";
constexpr char kAtTimestamp[] = "AT_TIMESTAMP";
constexpr char kTick[] = "TICK";
constexpr char kTimestampSide[] = "TIMESTAMP";

bool IsKnownOutputTag(const std::string& tag) {
  for (const char* t : {kAtPreStream, kAtPostStream, kAtZero, kAtTick, kAtFirstTick, kAtTimestamp}) {
    if (tag == t) return true;
  }
  return false;
}

}  // namespace

class SidePacketToStreamCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::vector<std::string> tags = cc->Outputs().TagMap().Tags();
    if (tags.size() != 1 || !IsKnownOutputTag(tags[0])) {
      return absl::InvalidArgumentError(
          "SidePacketToStreamCalculator: exactly one output tag out of AT_PRESTREAM, "
          "AT_POSTSTREAM, AT_ZERO, AT_TICK, AT_FIRST_TICK and AT_TIMESTAMP is required");
    }
    const std::string& tag = tags[0];
    const bool tick_output = tag == kAtTick || tag == kAtFirstTick;
    if (tick_output != cc->Inputs().HasTag(kTick)) {
      return absl::InvalidArgumentError(
          "SidePacketToStreamCalculator: a TICK input goes with an AT_TICK or AT_FIRST_TICK "
          "output, and only with those");
    }
    const bool at_timestamp = tag == kAtTimestamp;
    if (at_timestamp != cc->InputSidePackets().HasTag(kTimestampSide)) {
      return absl::InvalidArgumentError(
          "SidePacketToStreamCalculator: a TIMESTAMP side packet goes with an AT_TIMESTAMP "
          "output, and only with that");
    }
    const int n = cc->Outputs().NumEntries(tag);
    if (cc->InputSidePackets().NumEntries("") != n ||
        cc->InputSidePackets().NumEntries() != n + (at_timestamp ? 1 : 0)) {
      return absl::InvalidArgumentError(
          "SidePacketToStreamCalculator: needs one untagged input side packet per output "
          "stream (plus TIMESTAMP for AT_TIMESTAMP)");
    }
    if (at_timestamp) cc->InputSidePackets().Tag(kTimestampSide).Set<int64_t>();
    for (int i = 0; i < n; ++i) {
      cc->InputSidePackets().Index(i).SetAny();
      cc->Outputs().Get(tag, i).SetSameAs(&cc->InputSidePackets().Index(i));
    }
    if (cc->Inputs().HasTag(kTick)) cc->Inputs().Tag(kTick).SetAny();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    tag_ = cc->Outputs().TagMap().Tags()[0];
    if (cc->Inputs().HasTag(kTick)) {
      tick_driven_ = true;
      cc->SetOffset(TimestampDiff(0));
    }
    close_on_first_tick_ = tag_ == kAtFirstTick;
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    // Without TICK this is a source node; everything happens in Close.
    if (!tick_driven_) return StatusStop();
    const int n = cc->Outputs().NumEntries(tag_);
    if (n == 0 || cc->Outputs().Get(tag_, 0).IsClosed()) return absl::OkStatus();
    const Timestamp ts = cc->Inputs().Tag(kTick).Value().Timestamp();
    for (int i = 0; i < n; ++i) {
      OutputStreamShard& out = cc->Outputs().Get(tag_, i);
      out.AddPacket(cc->InputSidePackets().Index(i).At(ts));
      if (close_on_first_tick_) out.Close();
    }
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    if (tick_driven_) return absl::OkStatus();
    Timestamp ts;
    if (tag_ == kAtPreStream) {
      ts = Timestamp::PreStream();
    } else if (tag_ == kAtPostStream) {
      ts = Timestamp::PostStream();
    } else if (tag_ == kAtZero) {
      ts = Timestamp(0);
    } else {  // AT_TIMESTAMP
      ts = Timestamp(cc->InputSidePackets().Tag(kTimestampSide).Get<int64_t>());
    }
    for (int i = 0; i < cc->Outputs().NumEntries(tag_); ++i) {
      cc->Outputs().Get(tag_, i).AddPacket(cc->InputSidePackets().Index(i).At(ts));
    }
    return absl::OkStatus();
  }

 private:
  std::string tag_;
  bool tick_driven_ = false;
  bool close_on_first_tick_ = false;
};
REGISTER_CALCULATOR(SidePacketToStreamCalculator);

}  // namespace sluice
