// PacketClonerCalculator: at every TICK packet, re-emits the latest packet seen
// on each untagged input, stamped with the tick's timestamp.
//
//   node {
//     calculator: "PacketClonerCalculator"
//     input_stream: "latest_rects"   input_stream: "TICK:frames"
//     output_stream: "rects_per_frame"
//   }
//
// Without a TICK tag the last untagged input is the tick (MediaPipe's legacy
// form). Inputs that have not delivered anything yet are not emitted; the
// options can hold back all outputs until every input has delivered.
#include <vector>

#include "absl/status/status.h"
#include "calculators/core/packet_cloner_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kTickTag[] = "TICK";

// Dense ids of the tick input and of each cloned input (= its output index).
template <typename Set>
void TickLayout(const Set& inputs, int* tick_id, int* num_cloned) {
  *num_cloned = inputs.NumEntries("");
  if (inputs.HasTag(kTickTag)) {
    *tick_id = inputs.TagMap().GetId(kTickTag, 0);
  } else {
    --*num_cloned;
    *tick_id = inputs.TagMap().GetId("", *num_cloned);
  }
}

}  // namespace

class PacketClonerCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    int tick_id = -1, n = 0;
    TickLayout(cc->Inputs(), &tick_id, &n);
    if (tick_id < 0 || n < 0) {
      return absl::InvalidArgumentError(
          "PacketClonerCalculator needs a TICK input stream (or, legacy, a last untagged one)");
    }
    if (cc->Outputs().NumEntries("") != n) {
      return absl::InvalidArgumentError(
          "PacketClonerCalculator needs one untagged output per cloned (untagged, non-tick) "
          "input");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    cc->Inputs().Get(tick_id).SetAny();
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<mediapipe::PacketClonerCalculatorOptions>();
    only_when_all_ = options.output_only_when_all_inputs_received() ||
                     options.output_packets_only_when_all_inputs_received();
    bounds_before_all_ = options.output_packets_only_when_all_inputs_received();
    TickLayout(cc->Inputs(), &tick_id_, &num_cloned_);
    current_.resize(num_cloned_);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < num_cloned_; ++i) {
      if (!cc->Inputs().Get("", i).IsEmpty()) current_[i] = cc->Inputs().Get("", i).Value();
    }
    const bool have_all = HaveAll();
    const InputStreamShard& tick = cc->Inputs().Get(tick_id_);
    if (!tick.IsEmpty() && (have_all || !only_when_all_)) {
      for (int i = 0; i < num_cloned_; ++i) {
        if (!current_[i].IsEmpty()) {
          cc->Outputs().Get("", i).AddPacket(current_[i].At(tick.Value().Timestamp()));
        }
      }
    }
    // A tick (packet or bound) settles this timestamp on every output.
    const bool tick_settled = tick.Value().Timestamp() == cc->InputTimestamp();
    if (tick_settled && (have_all || bounds_before_all_ || !only_when_all_)) {
      for (int i = 0; i < num_cloned_; ++i) {
        cc->Outputs().Get("", i).SetNextTimestampBound(cc->InputTimestamp().NextAllowedInStream());
      }
    }
    return absl::OkStatus();
  }

 private:
  bool HaveAll() const {
    for (const Packet& p : current_) {
      if (p.IsEmpty()) return false;
    }
    return true;
  }

  int tick_id_ = -1;
  int num_cloned_ = 0;
  bool only_when_all_ = false;
  bool bounds_before_all_ = false;
  std::vector<Packet> current_;
};
REGISTER_CALCULATOR(PacketClonerCalculator);

}  // namespace sluice
