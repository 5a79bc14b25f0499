#include "framework/timestamp.h"

#include <cmath>

namespace sluice {

Timestamp Timestamp::FromSeconds(double s) {
  double us = std::round(s * 1e6);
  if (!(us > static_cast<double>(Min().v_))) return Min();
  if (!(us < static_cast<double>(Max().v_))) return Max();
  return Timestamp(static_cast<int64_t>(us));
}

Timestamp Timestamp::NextAllowedInStream() const {
  if (v_ >= Max().v_ || *this == PreStream()) return OneOverPostStream();
  if (v_ < Min().v_) return Min();
  return Timestamp(v_ + 1, 0);
}

Timestamp Timestamp::PreviousAllowedInStream() const {
  if (v_ <= Min().v_ || *this == PostStream()) return Unstarted();
  if (v_ > Max().v_) return Max();
  return Timestamp(v_ - 1, 0);
}

Timestamp Timestamp::operator+(TimestampDiff d) const {
  if (!IsRangeValue()) return *this;
  // Saturating add: range values are far from the int64 limits on both sides
  // only by 3, so guard against overflow explicitly.
  int64_t r;
  if (__builtin_add_overflow(v_, d.Value(), &r)) {
    return d.Value() > 0 ? Max() : Min();
  }
  return Timestamp(Clamp(r), 0);
}

std::string Timestamp::DebugString() const {
  if (*this == Unset()) return "Timestamp::Unset()";
  if (*this == Unstarted()) return "Timestamp::Unstarted()";
  if (*this == PreStream()) return "Timestamp::PreStream()";
  if (*this == Min()) return "Timestamp::Min()";
  if (*this == Max()) return "Timestamp::Max()";
  if (*this == PostStream()) return "Timestamp::PostStream()";
  if (*this == OneOverPostStream()) return "Timestamp::OneOverPostStream()";
  if (*this == Done()) return "Timestamp::Done()";
  return std::to_string(v_);
}

std::ostream& operator<<(std::ostream& os, Timestamp t) { return os << t.DebugString(); }
std::ostream& operator<<(std::ostream& os, TimestampDiff d) { return os << d.Value(); }

}  // namespace sluice
