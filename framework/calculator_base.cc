#include "framework/calculator_base.h"

namespace sluice {

Timestamp CalculatorBase::SourceProcessOrder(const CalculatorContext* cc) const {
  return Timestamp::Unset();  // the framework's default order
}

absl::Status StatusStop() { return absl::OutOfRangeError("sluice::tool::StatusStop"); }

bool IsStatusStop(const absl::Status& s) {
  return s.code() == absl::StatusCode::kOutOfRange && s.message() == "sluice::tool::StatusStop";
}

}  // namespace sluice
