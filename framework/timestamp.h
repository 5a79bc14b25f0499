// Timestamp and TimestampDiff: int64 microsecond packet times with MediaPipe's special values.
#ifndef SLUICE_FRAMEWORK_TIMESTAMP_H_
#define SLUICE_FRAMEWORK_TIMESTAMP_H_

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace sluice {

// A signed difference between two timestamps, in microseconds.
class TimestampDiff {
 public:
  constexpr TimestampDiff() = default;
  constexpr explicit TimestampDiff(int64_t v) : v_(v) {}
  constexpr int64_t Value() const { return v_; }
  double Seconds() const { return static_cast<double>(v_) / 1e6; }
  static TimestampDiff Unset() { return TimestampDiff(std::numeric_limits<int64_t>::min()); }

  TimestampDiff operator+(TimestampDiff o) const { return TimestampDiff(v_ + o.v_); }
  TimestampDiff operator-(TimestampDiff o) const { return TimestampDiff(v_ - o.v_); }
  TimestampDiff operator-() const { return TimestampDiff(-v_); }
  bool operator==(TimestampDiff o) const { return v_ == o.v_; }
  bool operator!=(TimestampDiff o) const { return v_ != o.v_; }
  bool operator<(TimestampDiff o) const { return v_ < o.v_; }
  bool operator>(TimestampDiff o) const { return v_ > o.v_; }
  bool operator<=(TimestampDiff o) const { return v_ <= o.v_; }
  bool operator>=(TimestampDiff o) const { return v_ >= o.v_; }

 private:
  int64_t v_ = 0;
};

// A packet time. Range values lie in [Min, Max]; the specials below and above
// that range order packets pertaining to the whole stream and stream state.
class Timestamp {
 public:
  // Unset by default.
  constexpr Timestamp() : v_(kUnsetRaw) {}
  // `v` must be a range value; out-of-range inputs are clamped to [Min, Max]
  // (MediaPipe aborts here; we never crash on user data).
  explicit Timestamp(int64_t v) : v_(Clamp(v)) {}

  static constexpr Timestamp Unset() { return Timestamp(kUnsetRaw, 0); }
  static constexpr Timestamp Unstarted() { return Timestamp(kUnsetRaw + 1, 0); }
  static constexpr Timestamp PreStream() { return Timestamp(kUnsetRaw + 2, 0); }
  static constexpr Timestamp Min() { return Timestamp(kUnsetRaw + 3, 0); }
  static constexpr Timestamp Max() { return Timestamp(kDoneRaw - 3, 0); }
  static constexpr Timestamp PostStream() { return Timestamp(kDoneRaw - 2, 0); }
  static constexpr Timestamp OneOverPostStream() { return Timestamp(kDoneRaw - 1, 0); }
  static constexpr Timestamp Done() { return Timestamp(kDoneRaw, 0); }
  // Wraps any raw value, special ones included (internal use, serialisation).
  static constexpr Timestamp CreateNoErrorChecking(int64_t v) { return Timestamp(v, 0); }
  static Timestamp FromSeconds(double s);

  constexpr int64_t Value() const { return v_; }
  int64_t Microseconds() const { return v_; }
  double Seconds() const { return static_cast<double>(v_) / 1e6; }

  bool IsSpecialValue() const { return v_ <= Min().v_ || v_ >= Max().v_; }
  bool IsRangeValue() const { return v_ >= Min().v_ && v_ <= Max().v_; }
  bool IsAllowedInStream() const { return v_ >= PreStream().v_ && v_ <= PostStream().v_; }

  // The smallest/largest timestamp a packet may have after/before this one.
  Timestamp NextAllowedInStream() const;
  Timestamp PreviousAllowedInStream() const;
  bool HasNextAllowedInStream() const { return v_ < Max().v_; }

  std::string DebugString() const;

  // Arithmetic on range values, clamped to [Min, Max]; specials are unchanged.
  Timestamp operator+(TimestampDiff d) const;
  Timestamp operator-(TimestampDiff d) const { return *this + (-d); }
  TimestampDiff operator-(Timestamp o) const { return TimestampDiff(v_ - o.v_); }
  Timestamp& operator+=(TimestampDiff d) { return *this = *this + d; }
  Timestamp& operator-=(TimestampDiff d) { return *this = *this - d; }
  Timestamp& operator++() { return *this = *this + TimestampDiff(1); }
  Timestamp operator++(int) { Timestamp t = *this; ++*this; return t; }
  Timestamp& operator--() { return *this = *this - TimestampDiff(1); }

  constexpr bool operator==(Timestamp o) const { return v_ == o.v_; }
  constexpr bool operator!=(Timestamp o) const { return v_ != o.v_; }
  constexpr bool operator<(Timestamp o) const { return v_ < o.v_; }
  constexpr bool operator>(Timestamp o) const { return v_ > o.v_; }
  constexpr bool operator<=(Timestamp o) const { return v_ <= o.v_; }
  constexpr bool operator>=(Timestamp o) const { return v_ >= o.v_; }

 private:
  static constexpr int64_t kUnsetRaw = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kDoneRaw = std::numeric_limits<int64_t>::max();
  constexpr Timestamp(int64_t v, int) : v_(v) {}
  static int64_t Clamp(int64_t v) {
    return v < kUnsetRaw + 3 ? kUnsetRaw + 3 : (v > kDoneRaw - 3 ? kDoneRaw - 3 : v);
  }
  int64_t v_;
};

std::ostream& operator<<(std::ostream& os, Timestamp t);
std::ostream& operator<<(std::ostream& os, TimestampDiff d);

}  // namespace sluice

#endif  // SLUICE_FRAMEWORK_TIMESTAMP_H_
