#include "calculators/core/split_vector_calculator.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "calculators/core/split_vector_calculator.pb.h"

namespace sluice {
namespace {

using mediapipe::SplitVectorCalculatorOptions;

absl::Status Invalid(const std::string& what) {
  return absl::InvalidArgumentError("SplitVectorCalculator: " + what);
}

absl::Status CheckDisjoint(const SplitVectorCalculatorOptions& o) {
  for (int i = 0; i < o.ranges_size(); ++i) {
    for (int j = i + 1; j < o.ranges_size(); ++j) {
      const auto& a = o.ranges(i);
      const auto& b = o.ranges(j);
      if (a.begin() < b.end() && b.begin() < a.end()) {
        return Invalid("ranges " + std::to_string(i) + " and " + std::to_string(j) +
                       " overlap, which combine_outputs does not allow");
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SplitVectorCalculatorBase::CheckContract(CalculatorContract* cc, OutputKind* kind) {
  if (cc->Inputs().NumEntries() != 1 || cc->Inputs().NumEntries("") != 1) {
    return Invalid("needs exactly one untagged input stream");
  }
  const int outputs = cc->Outputs().NumEntries();
  if (outputs == 0 || cc->Outputs().NumEntries("") != outputs) {
    return Invalid("needs one or more untagged output streams");
  }
  const auto& o = cc->Options<SplitVectorCalculatorOptions>();
  if (o.ranges_size() == 0) return Invalid("the options list no ranges");
  for (int i = 0; i < o.ranges_size(); ++i) {
    const auto& r = o.ranges(i);
    if (r.begin() < 0 || r.end() < 0 || r.begin() >= r.end()) {
      return Invalid("range " + std::to_string(i) + " [" + std::to_string(r.begin()) + ", " +
                     std::to_string(r.end()) +
                     ") must have non-negative indices and begin < end");
    }
  }
  cc->SetTimestampOffset(TimestampDiff(0));
  *kind = OutputKind::kVector;
  if (o.combine_outputs()) {
    if (outputs != 1) return Invalid("combine_outputs needs exactly one output stream");
    return CheckDisjoint(o);
  }
  if (outputs != o.ranges_size()) {
    return Invalid(std::to_string(outputs) + " output streams but " +
                   std::to_string(o.ranges_size()) + " ranges; they must match");
  }
  if (o.element_only()) {
    for (int i = 0; i < o.ranges_size(); ++i) {
      if (o.ranges(i).end() - o.ranges(i).begin() != 1) {
        return Invalid("element_only needs every range to hold exactly one element (range " +
                       std::to_string(i) + " does not)");
      }
    }
    *kind = OutputKind::kElement;
  }
  return absl::OkStatus();
}

absl::Status SplitVectorCalculatorBase::Open(CalculatorContext* cc) {
  const auto& o = cc->Options<SplitVectorCalculatorOptions>();
  element_only_ = o.element_only();
  combine_outputs_ = o.combine_outputs();
  for (const auto& r : o.ranges()) {
    ranges_.emplace_back(r.begin(), r.end());
    max_end_ = std::max(max_end_, r.end());
    total_ += r.end() - r.begin();
  }
  return absl::OkStatus();
}

absl::Status SplitVectorCalculatorBase::CheckInputSize(size_t size) const {
  if (size < static_cast<size_t>(max_end_)) {
    return Invalid("input vector has " + std::to_string(size) +
                   " elements but the ranges reach index " + std::to_string(max_end_ - 1));
  }
  return absl::OkStatus();
}

// MediaPipe's names for the element types that need no other library.
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitFloatVectorCalculator, float);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitUint64tVectorCalculator, uint64_t);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitIntVectorCalculator, int);

}  // namespace sluice
