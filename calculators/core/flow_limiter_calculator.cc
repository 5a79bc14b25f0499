// FlowLimiterCalculator: drops frames so that at most `max_in_flight` of them
// are being processed downstream at once. A frame counts as in flight from its
// release until a packet (or timestamp bound) at or after its timestamp comes
// back on the FINISHED back edge.
//
//   node {
//     calculator: "FlowLimiterCalculator"
//     input_stream: "input_video"
//     input_stream: "FINISHED:output_video"
//     input_stream_info: { tag_index: "FINISHED" back_edge: true }
//     output_stream: "throttled_input_video"
//     output_stream: "ALLOW:allowed"          # optional: true/false per frame
//     input_side_packet: "MAX_IN_FLIGHT:n"     # optional int override
//     node_options: {
//       [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] {
//         max_in_flight: 1 max_in_queue: 1
//       }
//     }
//   }
//
// Untagged input 0 is the main (frame) stream; further untagged inputs are
// auxiliary streams passed through only at timestamps whose frame was released.
// An OPTIONS side packet or input stream may override the options.
#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "calculators/core/flow_limiter_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kFinishedTag[] = "FINISHED";
constexpr char kAllowTag[] = "ALLOW";
constexpr char kMaxInFlightTag[] = "MAX_IN_FLIGHT";
constexpr char kOptionsTag[] = "OPTIONS";

using mediapipe::FlowLimiterCalculatorOptions;

// Merges an options override carried by `p` (the options message itself or a
// CalculatorOptions holding its extension) into `base`.
void MergeOptionsPacket(const Packet& p, FlowLimiterCalculatorOptions* base) {
  if (p.IsEmpty()) return;
  if (p.ValidateAsType<FlowLimiterCalculatorOptions>().ok()) {
    base->MergeFrom(p.Get<FlowLimiterCalculatorOptions>());
  } else if (p.ValidateAsType<mediapipe::CalculatorOptions>().ok()) {
    const auto& container = p.Get<mediapipe::CalculatorOptions>();
    if (container.HasExtension(FlowLimiterCalculatorOptions::ext)) {
      base->MergeFrom(container.GetExtension(FlowLimiterCalculatorOptions::ext));
    }
  }
}

}  // namespace

class FlowLimiterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries("");
    if (n < 1) {
      return absl::InvalidArgumentError(
          "FlowLimiterCalculator needs at least one untagged input stream (the frames)");
    }
    if (cc->Outputs().NumEntries("") != n) {
      return absl::InvalidArgumentError(
          "FlowLimiterCalculator needs as many untagged output streams as untagged inputs");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    // Without FINISHED nothing ever retires a frame: as in MediaPipe, only the
    // first max_in_flight frames are released.
    if (cc->Inputs().HasTag(kFinishedTag)) cc->Inputs().Tag(kFinishedTag).SetAny();
    if (cc->Inputs().HasTag(kOptionsTag)) {
      cc->Inputs().Tag(kOptionsTag).SetOneOf<FlowLimiterCalculatorOptions,
                                             mediapipe::CalculatorOptions>();
    }
    if (cc->InputSidePackets().HasTag(kOptionsTag)) {
      cc->InputSidePackets()
          .Tag(kOptionsTag)
          .SetOneOf<FlowLimiterCalculatorOptions, mediapipe::CalculatorOptions>()
          .Optional();
    }
    if (cc->InputSidePackets().HasTag(kMaxInFlightTag)) {
      cc->InputSidePackets().Tag(kMaxInFlightTag).Set<int>().Optional();
    }
    if (cc->Outputs().HasTag(kAllowTag)) cc->Outputs().Tag(kAllowTag).Set<bool>();
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<FlowLimiterCalculatorOptions>();
    if (cc->InputSidePackets().HasTag(kOptionsTag)) {
      MergeOptionsPacket(cc->InputSidePackets().Tag(kOptionsTag), &options_);
    }
    if (cc->InputSidePackets().HasTag(kMaxInFlightTag) &&
        !cc->InputSidePackets().Tag(kMaxInFlightTag).IsEmpty()) {
      options_.set_max_in_flight(cc->InputSidePackets().Tag(kMaxInFlightTag).Get<int>());
    }
    input_queues_.resize(cc->Inputs().NumEntries(""));
    // Everything before the first decision counts as allowed.
    allowed_[Timestamp::Unset()] = true;
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kOptionsTag)) {
      MergeOptionsPacket(cc->Inputs().Tag(kOptionsTag).Value(), &options_);
    }

    // (1) A FINISHED packet or bound at this timestamp retires older frames.
    const Timestamp finished = FinishedTimestamp(cc);
    if (finished == cc->InputTimestamp()) {
      while (!in_flight_.empty() && in_flight_.front() <= finished) in_flight_.pop_front();
    }

    // (2) Queue new packets of all untagged streams.
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      const Packet& p = cc->Inputs().Get("", i).Value();
      if (p.IsEmpty()) continue;
      input_queues_[i].push_back(p);
    }

    // (3) Abandon frames that have been in flight for too long.
    const TimestampDiff timeout(options_.in_flight_timeout());
    const Timestamp latest = Settled(cc, 0);
    if (timeout.Value() > 0 && latest == cc->InputTimestamp() && latest < Timestamp::Max()) {
      while (!in_flight_.empty() && (latest - in_flight_.front()) > timeout) {
        in_flight_.pop_front();
      }
    }

    // (4) Release the oldest queued frames while there is room downstream.
    std::deque<Packet>& queue = input_queues_[0];
    while (static_cast<int>(in_flight_.size()) < options_.max_in_flight() && !queue.empty()) {
      Packet p = std::move(queue.front());
      queue.pop_front();
      SendAllow(true, p.Timestamp(), cc);
      in_flight_.push_back(p.Timestamp());
      cc->Outputs().Get("", 0).AddPacket(std::move(p));
    }

    // (5) Drop the oldest frames beyond the queue limit.
    while (static_cast<int>(queue.size()) > std::max(0, options_.max_in_queue())) {
      SendAllow(false, queue.front().Timestamp(), cc);
      queue.pop_front();
    }

    // (6) Nothing older than the oldest queued frame can still be emitted.
    if (!queue.empty()) {
      SetBound(queue.front().Timestamp(), &cc->Outputs().Get("", 0));
    } else {
      const Timestamp bound = latest.NextAllowedInStream();
      SetBound(bound, &cc->Outputs().Get("", 0));
      if (cc->Outputs().HasTag(kAllowTag)) SetBound(bound, &cc->Outputs().Tag(kAllowTag));
    }

    // (7) Auxiliary streams follow the main stream's decisions.
    ProcessAuxiliaryInputs(cc);

    // Forget decisions no queued or future input can ask about any more.
    const Timestamp input_bound = InputTimestampBound(cc);
    auto first_needed = std::prev(allowed_.upper_bound(input_bound));
    allowed_.erase(allowed_.begin(), first_needed);
    return absl::OkStatus();
  }

 private:
  // The timestamp FINISHED settles in this invocation: its packet's, or for a
  // bound-only event the stamped settled timestamp (bound - 1) of the empty
  // packet (frames the pipeline dropped).
  Timestamp FinishedTimestamp(CalculatorContext* cc) const {
    if (!cc->Inputs().HasTag(kFinishedTag)) return Timestamp::Unset();
    return cc->Inputs().Tag(kFinishedTag).Value().Timestamp();
  }

  // The newest timestamp settled on untagged input `i`: its packet's or the
  // stamped bound.
  Timestamp Settled(CalculatorContext* cc, int i) const {
    const InputStreamShard& in = cc->Inputs().Get("", i);
    if (in.IsEmpty() && in.IsDone()) return Timestamp::Max();  // closes the output
    return in.Value().Timestamp();
  }

  void SendAllow(bool allow, Timestamp ts, CalculatorContext* cc) {
    if (cc->Outputs().HasTag(kAllowTag)) {
      cc->Outputs().Tag(kAllowTag).Add(new bool(allow), ts);
    }
    allowed_[ts] = allow;
  }

  // The decision for the latest main frame at or before `ts`.
  bool IsAllowed(Timestamp ts) const { return std::prev(allowed_.upper_bound(ts))->second; }

  static void SetBound(Timestamp bound, OutputStreamShard* stream) {
    if (bound > Timestamp::Max()) {
      stream->Close();
    } else {
      stream->SetNextTimestampBound(bound);
    }
  }

  Timestamp InputTimestampBound(CalculatorContext* cc) const {
    Timestamp result = Timestamp::Done();
    for (size_t i = 0; i < input_queues_.size(); ++i) {
      const Timestamp bound =
          input_queues_[i].empty()
              ? Settled(cc, static_cast<int>(i)).NextAllowedInStream()
              : input_queues_[i].front().Timestamp();
      result = std::min(result, bound);
    }
    return result;
  }

  void ProcessAuxiliaryInputs(CalculatorContext* cc) {
    const Timestamp settled = cc->Outputs().Get("", 0).NextTimestampBound();
    for (int i = 1; i < cc->Inputs().NumEntries(""); ++i) {
      std::deque<Packet>& queue = input_queues_[i];
      while (!queue.empty() && queue.front().Timestamp() < settled) {
        Packet p = std::move(queue.front());
        queue.pop_front();
        if (IsAllowed(p.Timestamp())) cc->Outputs().Get("", i).AddPacket(std::move(p));
      }
      const Timestamp bound =
          queue.empty() ? Settled(cc, i).NextAllowedInStream()
                        : queue.front().Timestamp();
      SetBound(bound, &cc->Outputs().Get("", i));
    }
  }

  FlowLimiterCalculatorOptions options_;
  std::vector<std::deque<Packet>> input_queues_;
  std::deque<Timestamp> in_flight_;
  std::map<Timestamp, bool> allowed_;
};
REGISTER_CALCULATOR(FlowLimiterCalculator);

}  // namespace sluice
