// Typed ports (api2-like): declare `static constexpr Input<int> kIn{"IN"};` once and use it
// both in GetContract (kIn.Declare(cc)) and in Process (kIn.Get(cc), kOut.Send(cc, v)).
#ifndef SLUICE_FRAMEWORK_PORT_H_
#define SLUICE_FRAMEWORK_PORT_H_

#include <utility>

#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"

namespace sluice {

// T = AnyType accepts every payload.
struct AnyType {};

namespace port_internal {
template <typename T>
PacketType& SetType(PacketType& t) {
  if constexpr (std::is_same<T, AnyType>::value) {
    return t.SetAny();
  } else {
    return t.template Set<T>();
  }
}
}  // namespace port_internal

template <typename T>
class Input {
 public:
  constexpr explicit Input(const char* tag, bool optional = false)
      : tag_(tag), optional_(optional) {}
  // Optional ports are only declared when the node connects them.
  void Declare(CalculatorContract* cc) const {
    if (optional_ && !cc->Inputs().HasTag(tag_)) return;
    PacketType& t = port_internal::SetType<T>(cc->Inputs().Tag(tag_));
    if (optional_) t.Optional();
  }
  bool IsConnected(const CalculatorContext* cc) const { return cc->Inputs().HasTag(tag_); }
  bool IsEmpty(const CalculatorContext* cc) const {
    return !IsConnected(cc) || cc->Inputs().Tag(tag_).IsEmpty();
  }
  const ::sluice::Packet& Value(const CalculatorContext* cc) const {
    return cc->Inputs().Tag(tag_).Value();
  }
  // Precondition: !IsEmpty(cc).
  const T& Get(const CalculatorContext* cc) const { return cc->Inputs().Tag(tag_).template Get<T>(); }
  const char* tag() const { return tag_; }

 private:
  const char* tag_;
  bool optional_;
};

template <typename T>
class Output {
 public:
  constexpr explicit Output(const char* tag, bool optional = false)
      : tag_(tag), optional_(optional) {}
  void Declare(CalculatorContract* cc) const {
    if (optional_ && !cc->Outputs().HasTag(tag_)) return;
    PacketType& t = port_internal::SetType<T>(cc->Outputs().Tag(tag_));
    if (optional_) t.Optional();
  }
  bool IsConnected(const CalculatorContext* cc) const { return cc->Outputs().HasTag(tag_); }
  // Sends at the current input timestamp (or `ts`); no-op when unconnected.
  void Send(CalculatorContext* cc, T value) const { Send(cc, std::move(value), cc->InputTimestamp()); }
  void Send(CalculatorContext* cc, T value, Timestamp ts) const {
    if (IsConnected(cc)) cc->Outputs().Tag(tag_).Add(new T(std::move(value)), ts);
  }
  void SendPacket(CalculatorContext* cc, const ::sluice::Packet& p) const {
    if (IsConnected(cc)) cc->Outputs().Tag(tag_).AddPacket(p);
  }
  void SetNextTimestampBound(CalculatorContext* cc, Timestamp ts) const {
    if (IsConnected(cc)) cc->Outputs().Tag(tag_).SetNextTimestampBound(ts);
  }
  void Close(CalculatorContext* cc) const {
    if (IsConnected(cc)) cc->Outputs().Tag(tag_).Close();
  }
  const char* tag() const { return tag_; }

 private:
  const char* tag_;
  bool optional_;
};

template <typename T>
class SideInput {
 public:
  constexpr explicit SideInput(const char* tag, bool optional = false)
      : tag_(tag), optional_(optional) {}
  void Declare(CalculatorContract* cc) const {
    if (optional_ && !cc->InputSidePackets().HasTag(tag_)) return;
    PacketType& t = port_internal::SetType<T>(cc->InputSidePackets().Tag(tag_));
    if (optional_) t.Optional();
  }
  bool IsEmpty(const CalculatorContext* cc) const {
    return !cc->InputSidePackets().HasTag(tag_) || cc->InputSidePackets().Tag(tag_).IsEmpty();
  }
  const T& Get(const CalculatorContext* cc) const {
    return cc->InputSidePackets().Tag(tag_).template Get<T>();
  }
  // The value, or `fallback` when the side packet is absent.
  T GetOr(const CalculatorContext* cc, T fallback) const {
    return IsEmpty(cc) ? std::move(fallback) : Get(cc);
  }

 private:
  const char* tag_;
  bool optional_;
};

template <typename T>
class SideOutput {
 public:
  constexpr explicit SideOutput(const char* tag) : tag_(tag) {}
  void Declare(CalculatorContract* cc) const {
    port_internal::SetType<T>(cc->OutputSidePackets().Tag(tag_));
  }
  void Set(CalculatorContext* cc, T value) const {
    cc->OutputSidePackets().Tag(tag_).Set(MakePacket<T>(std::move(value)));
  }

 private:
  const char* tag_;
};

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_PORT_H_
