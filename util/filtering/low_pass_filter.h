// Exponential low-pass filter with MediaPipe's numerics
// (mediapipe/util/filtering/low_pass_filter): the first value passes through,
// then out = alpha * value + (1 - alpha) * previous_out.
#ifndef SLUICE_UTIL_FILTERING_LOW_PASS_FILTER_H_
#define SLUICE_UTIL_FILTERING_LOW_PASS_FILTER_H_

#include "absl/status/status.h"

namespace sluice {
namespace filtering {

class LowPassFilter {
 public:
  // `alpha` should be in [0, 1]; check it with ValidateAlpha where it comes
  // from a user (an out-of-range alpha is ignored, keeping the previous one).
  explicit LowPassFilter(float alpha);

  static absl::Status ValidateAlpha(float alpha);

  float Apply(float value);
  // Sets alpha (if in range) and applies.
  float ApplyWithAlpha(float value, float alpha);

  bool HasLastRawValue() const { return initialized_; }
  float LastRawValue() const { return raw_value_; }
  float LastValue() const { return stored_value_; }

 private:
  void SetAlpha(float alpha);

  float alpha_ = 1.0f;
  float raw_value_ = 0.0f;
  float stored_value_ = 0.0f;
  bool initialized_ = false;
};

}  // namespace filtering
}  // namespace sluice

#endif  // SLUICE_UTIL_FILTERING_LOW_PASS_FILTER_H_
