#include "util/filtering/low_pass_filter.h"

#include "absl/strings/str_cat.h"

namespace sluice {
namespace filtering {

LowPassFilter::LowPassFilter(float alpha) { SetAlpha(alpha); }

absl::Status LowPassFilter::ValidateAlpha(float alpha) {
  if (!(alpha >= 0.0f && alpha <= 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrCat("low-pass filter alpha must be in [0, 1], got ", alpha));
  }
  return absl::OkStatus();
}

float LowPassFilter::Apply(float value) {
  float result = value;
  if (initialized_) {
    // Mixed float/double exactly as MediaPipe's expression, then stored as
    // float, so long sequences round the same way.
    result = static_cast<float>(alpha_ * value + (1.0 - alpha_) * stored_value_);
  }
  initialized_ = true;
  raw_value_ = value;
  stored_value_ = result;
  return result;
}

float LowPassFilter::ApplyWithAlpha(float value, float alpha) {
  SetAlpha(alpha);
  return Apply(value);
}

void LowPassFilter::SetAlpha(float alpha) {
  if (ValidateAlpha(alpha).ok()) alpha_ = alpha;
}

}  // namespace filtering
}  // namespace sluice
