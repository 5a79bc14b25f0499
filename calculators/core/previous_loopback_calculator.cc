// PreviousLoopbackCalculator: for each MAIN packet, emits the LOOP packet that
// was produced for the previous MAIN packet, re-stamped to the current MAIN
// timestamp. Closes a feedback loop (e.g. "track from the previous frame's
// result") without deadlock.
//
//   node {
//     calculator: "PreviousLoopbackCalculator"
//     input_stream: "MAIN:frames"
//     input_stream: "LOOP:result"
//     input_stream_info: { tag_index: "LOOP" back_edge: true }
//     output_stream: "PREV_LOOP:prev_result"
//   }
//
// For the first MAIN packet, for MAIN timestamp-bound updates and when the
// previous frame produced no LOOP packet, only the PREV_LOOP timestamp bound
// advances (downstream sees "no packet at this timestamp").
#include <deque>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class PreviousLoopbackCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag("MAIN") || !cc->Inputs().HasTag("LOOP") ||
        !cc->Outputs().HasTag("PREV_LOOP")) {
      return absl::InvalidArgumentError(
          "PreviousLoopbackCalculator needs inputs MAIN and LOOP and output PREV_LOOP");
    }
    cc->Inputs().Tag("MAIN").SetAny();
    cc->Inputs().Tag("LOOP").SetAny();
    cc->Outputs().Tag("PREV_LOOP").SetSameAs(&cc->Inputs().Tag("LOOP"));
    // Each input is handled on its own: LOOP arrives later than MAIN.
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext*) override {
    // Before anything arrives, LOOP is settled up to Unstarted: this answers
    // the first MAIN packet with "no previous value" (MediaPipe gets the same
    // event from the initial LOOP bound).
    loops_.push_back(Packet().At(Timestamp::Unstarted()));
    prev_loop_ts_ = Timestamp::Unstarted();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    // An input without a packet carries its settled timestamp (bound - 1, Max
    // once done), which tells which stream's bound moved.
    const Packet& main = cc->Inputs().Tag("MAIN").Value();
    const Packet& loop = cc->Inputs().Tag("LOOP").Value();

    // Record each MAIN event together with the LOOP timestamp it answers to:
    // the previous non-empty MAIN timestamp (Unset for bound-only events).
    if (prev_main_ts_ < main.Timestamp()) {
      Timestamp loop_ts = Timestamp::Unset();
      if (!main.IsEmpty()) {
        loop_ts = prev_nonempty_main_ts_;
        prev_nonempty_main_ts_ = main.Timestamp();
      }
      pending_main_.push_back({main.Timestamp(), loop_ts});
      prev_main_ts_ = main.Timestamp();
    }

    // Every LOOP event (packet or bound) settles one LOOP timestamp.
    if (prev_loop_ts_ < loop.Timestamp()) {
      loops_.push_back(loop);
      prev_loop_ts_ = loop.Timestamp();
    }

    OutputStreamShard& out = cc->Outputs().Tag("PREV_LOOP");
    while (!pending_main_.empty() && !loops_.empty()) {
      const MainEvent event = pending_main_.front();
      const Packet& candidate = loops_.front();
      if (event.loop_ts < candidate.Timestamp()) {
        // The LOOP timestamp it needs is settled without a packet.
        out.SetNextTimestampBound(event.ts.NextAllowedInStream());
        pending_main_.pop_front();
      } else if (event.loop_ts > candidate.Timestamp()) {
        loops_.pop_front();  // Nobody needs this LOOP event any more.
      } else {
        if (candidate.IsEmpty()) {
          out.SetNextTimestampBound(event.ts.NextAllowedInStream());
        } else if (!out.IsClosed()) {
          out.AddPacket(candidate.At(event.ts));
        }
        loops_.pop_front();
        pending_main_.pop_front();
      }
      if (event.ts == Timestamp::Done().PreviousAllowedInStream() && !out.IsClosed()) {
        out.Close();
      }
    }
    return absl::OkStatus();
  }

 private:
  struct MainEvent {
    Timestamp ts;
    Timestamp loop_ts;
  };

  std::deque<MainEvent> pending_main_;
  Timestamp prev_main_ts_ = Timestamp::Unstarted();
  Timestamp prev_nonempty_main_ts_ = Timestamp::Unstarted();
  std::deque<Packet> loops_;
  Timestamp prev_loop_ts_ = Timestamp::Unset();
};
REGISTER_CALCULATOR(PreviousLoopbackCalculator);

}  // namespace sluice
