// Test calculators; every one documents its ports. Linked whole by the tests.
#include "framework/testing/test_calculators.h"

#include <pthread.h>

#include <chrono>
#include <thread>

#include "framework/calculator_registry.h"
#include "framework/port.h"

namespace sluice {
namespace testing {

const GraphService<TestServiceObject> kTestService(
    "sluice.testing.TestService", GraphServiceDefaultInitialization::kAllowDefaultInitialization);

namespace {

TestLog* LogOf(CalculatorContext* cc) {
  if (!cc->InputSidePackets().HasTag("LOG")) return nullptr;
  const Packet& p = cc->InputSidePackets().Tag("LOG");
  return p.IsEmpty() ? nullptr : p.Get<TestLog*>();
}

std::string TsString(Timestamp t) {
  if (t == Timestamp::Max()) return "Max";
  if (t == Timestamp::PreStream()) return "Pre";
  if (t == Timestamp::PostStream()) return "Post";
  if (t == Timestamp::Done()) return "Done";
  return std::to_string(t.Value());
}

void DeclareLog(CalculatorContract* cc) {
  if (cc->InputSidePackets().HasTag("LOG")) cc->InputSidePackets().Tag("LOG").Set<TestLog*>();
}

}  // namespace

// Untagged inputs -> same-index untagged outputs, any type, offset 0.
class TestPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      cc->Inputs().Index(i).SetAny();
      cc->Outputs().Index(i).SetSameAs(&cc->Inputs().Index(i));
    }
    DeclareLog(cc);
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      if (!cc->Inputs().Index(i).IsEmpty()) cc->Outputs().Index(i).AddPacket(cc->Inputs().Index(i).Value());
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestPassThroughCalculator);

// int -> int + 1 (untagged 0 -> 0), offset 0.
class TestAddOneCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).Add(new int(cc->Inputs().Index(0).Get<int>() + 1), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestAddOneCalculator);

// Passes int packets with even values only; odd ones vanish (offset 0, so the
// framework advances the bound downstream).
class TestEvenFilterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).Get<int>() % 2 == 0) cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestEvenFilterCalculator);

// Like TestEvenFilterCalculator but declares no offset: without explicit
// bounds nothing propagates for dropped packets.
class TestEvenFilterNoOffsetCalculator : public TestEvenFilterCalculator {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestEvenFilterNoOffsetCalculator);

// Source: emits ints 0..N-1 at timestamps 0..N-1 on untagged output 0, then
// stops. N = side packet "N" (int, optional, default 10).
class TestCounterSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->InputSidePackets().HasTag("N")) cc->InputSidePackets().Tag("N").Set<int>().Optional();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    if (cc->InputSidePackets().HasTag("N") && !cc->InputSidePackets().Tag("N").IsEmpty()) {
      n_ = cc->InputSidePackets().Tag("N").Get<int>();
    }
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (i_ >= n_) return StatusStop();
    cc->Outputs().Index(0).Add(new int(i_), Timestamp(i_));
    ++i_;
    return absl::OkStatus();
  }

 private:
  int n_ = 10;
  int i_ = 0;
};
REGISTER_CALCULATOR(TestCounterSourceCalculator);

// Sum of all untagged int inputs present at a timestamp (Default handler).
class TestSumCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) cc->Inputs().Index(i).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    int sum = 0;
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      if (!cc->Inputs().Index(i).IsEmpty()) sum += cc->Inputs().Index(i).Get<int>();
    }
    cc->Outputs().Index(0).Add(new int(sum), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestSumCalculator);

// Logs every invocation to side packet LOG as "<ts>:<v0>,<v1>,..." where vi is
// the int value of input i or "." when empty. Any input tags; no outputs.
class TestRecordCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) cc->Inputs().Get(i).SetAny();
    DeclareLog(cc);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    std::string line = TsString(cc->InputTimestamp()) + ":";
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      const Packet& p = cc->Inputs().Get(i).Value();
      if (i) line += ",";
      auto v = p.TryGet<int>();
      line += p.IsEmpty() ? "." : (v.ok() ? std::to_string(**v) : "x");
      if (show_stamps_ && p.IsEmpty() && p.Timestamp() != Timestamp::Unset()) {
        line += "@" + TsString(p.Timestamp());
      }
    }
    if (TestLog* log = LogOf(cc)) log->Add(line);
    return absl::OkStatus();
  }
  absl::Status Close(CalculatorContext* cc) override {
    if (TestLog* log = LogOf(cc)) log->Add("close");
    return absl::OkStatus();
  }

 protected:
  bool show_stamps_ = false;  // also log empty packets' timestamps (".@<ts>")
};
REGISTER_CALCULATOR(TestRecordCalculator);

// TestRecordCalculator that logs the timestamp of each empty input packet.
class TestRecordStampsCalculator : public TestRecordCalculator {
 public:
  TestRecordStampsCalculator() { show_stamps_ = true; }
};
REGISTER_CALCULATOR(TestRecordStampsCalculator);

// TestRecordStampsCalculator with SetProcessTimestampBounds(true).
class TestRecordStampsBoundsCalculator : public TestRecordStampsCalculator {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = TestRecordCalculator::GetContract(cc);
    cc->SetProcessTimestampBounds(true);
    return s;
  }
};
REGISTER_CALCULATOR(TestRecordStampsBoundsCalculator);

// TestRecordCalculator with SetProcessTimestampBounds(true).
class TestRecordBoundsCalculator : public TestRecordCalculator {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    absl::Status s = TestRecordCalculator::GetContract(cc);
    cc->SetProcessTimestampBounds(true);
    return s;
  }
};
REGISTER_CALCULATOR(TestRecordBoundsCalculator);

// Fails in the phase named by its options-free side packet "FAIL" (std::string:
// "open", "process" or "close"); otherwise passes int input 0 to output 0.
class TestFailingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("FAIL").Set<std::string>();
    if (cc->Inputs().NumEntries("") > 0) cc->Inputs().Index(0).Set<int>();
    if (cc->Outputs().NumEntries("") > 0) cc->Outputs().Index(0).Set<int>();
    DeclareLog(cc);
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    mode_ = cc->InputSidePackets().Tag("FAIL").Get<std::string>();
    if (mode_ == "open") return absl::InternalError("open failed on purpose");
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (mode_ == "process" && cc->InputTimestamp() >= Timestamp(3)) {
      return absl::InvalidArgumentError("process failed on purpose");
    }
    if (cc->Outputs().NumEntries("") > 0) cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
  absl::Status Close(CalculatorContext* cc) override {
    if (TestLog* log = LogOf(cc)) log->Add("close:" + cc->GraphStatus().ToString());
    if (mode_ == "close") return absl::DataLossError("close failed on purpose");
    return absl::OkStatus();
  }

 private:
  std::string mode_;
};
REGISTER_CALCULATOR(TestFailingCalculator);

// Node without streams: output side packet OUT = input side packet IN * 2 (int).
class TestSideDoublerCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("IN").Set<int>();
    cc->OutputSidePackets().Tag("OUT").Set<int>();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    cc->OutputSidePackets().Tag("OUT").Set(
        MakePacket<int>(cc->InputSidePackets().Tag("IN").Get<int>() * 2));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(TestSideDoublerCalculator);

// Adds side packet "ADD" (int) to every int input packet.
class TestSideAddCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("ADD").Set<int>();
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    int add = cc->InputSidePackets().Tag("ADD").Get<int>();
    cc->Outputs().Index(0).Add(new int(cc->Inputs().Index(0).Get<int>() + add), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestSideAddCalculator);

// Loop body: SUM = IN + PREV (PREV is a back edge, may be absent).
class TestAccumulateCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IN").Set<int>();
    cc->Inputs().Tag("PREV").Set<int>();
    cc->Outputs().Tag("SUM").Set<int>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("IN").IsEmpty()) return absl::OkStatus();
    int prev = cc->Inputs().Tag("PREV").IsEmpty() ? 0 : cc->Inputs().Tag("PREV").Get<int>();
    cc->Outputs().Tag("SUM").Add(new int(cc->Inputs().Tag("IN").Get<int>() + prev), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestAccumulateCalculator);

// Re-emits each int one microsecond later; seeds its output bound at 1 in Open
// so that a loop consumer can run at timestamp 0. No declared offset: inside a
// loop, automatic bound propagation would chase its own tail.
class TestDelayCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    cc->Outputs().Index(0).SetNextTimestampBound(Timestamp(1));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value().At(cc->InputTimestamp() + TimestampDiff(1)));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestDelayCalculator);

// Pass-through of input 0 that sleeps side packet "SLEEP_US" (int, default
// 1000) per packet and logs "<thread name>" per invocation to LOG.
class TestSlowPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    if (cc->InputSidePackets().HasTag("SLEEP_US")) cc->InputSidePackets().Tag("SLEEP_US").Set<int>();
    DeclareLog(cc);
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    if (cc->InputSidePackets().HasTag("SLEEP_US")) sleep_us_ = cc->InputSidePackets().Tag("SLEEP_US").Get<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    if (TestLog* log = LogOf(cc)) {
      char name[32] = {0};
      pthread_getname_np(pthread_self(), name, sizeof(name));
      log->Add(name);
    }
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }

 private:
  int sleep_us_ = 1000;
};
REGISTER_CALCULATOR(TestSlowPassThroughCalculator);

// Passes ints until it has seen side packet "LIMIT" (int) packets, then
// returns StatusStop (graceful end of the run).
class TestStopAfterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->InputSidePackets().Tag("LIMIT").Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (++seen_ > cc->InputSidePackets().Tag("LIMIT").Get<int>()) return StatusStop();
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }

 private:
  int seen_ = 0;
};
REGISTER_CALCULATOR(TestStopAfterCalculator);

// Emits kTestService's value as output side packet VALUE (int).
class TestServiceUserCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->OutputSidePackets().Tag("VALUE").Set<int>();
    cc->UseService(kTestService);
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    auto service = cc->Service(kTestService);
    if (!service.IsAvailable()) return absl::InternalError("service missing");
    cc->OutputSidePackets().Tag("VALUE").Set(MakePacket<int>(service.GetObject().value));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(TestServiceUserCalculator);

// Outputs std::string "x" for every int input: used to provoke type mismatches.
class TestIntToStringCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<std::string>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).Add(new std::string(std::to_string(cc->Inputs().Index(0).Get<int>())),
                               cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestIntToStringCalculator);

// Typed-port style: OUT = IN * FACTOR (optional side packet, default 2); the
// optional DOUBLED_FLAG output carries true for every product.
class TestTypedScaleCalculator : public CalculatorBase {
 public:
  static constexpr Input<int> kIn{"IN"};
  static constexpr SideInput<int> kFactor{"FACTOR", /*optional=*/true};
  static constexpr Output<int> kOut{"OUT"};
  static constexpr Output<bool> kFlag{"FLAG", /*optional=*/true};

  static absl::Status GetContract(CalculatorContract* cc) {
    kIn.Declare(cc);
    kFactor.Declare(cc);
    kOut.Declare(cc);
    kFlag.Declare(cc);
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (kIn.IsEmpty(cc)) return absl::OkStatus();
    kOut.Send(cc, kIn.Get(cc) * kFactor.GetOr(cc, 2));
    kFlag.Send(cc, true);
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestTypedScaleCalculator);

}  // namespace testing
}  // namespace sluice
