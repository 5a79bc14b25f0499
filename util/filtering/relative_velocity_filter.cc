#include "util/filtering/relative_velocity_filter.h"

#include <cmath>

namespace sluice {
namespace filtering {
namespace {

// One element per 1/30 s is the expected rate.
constexpr int64_t kAssumedMaxDurationNs = 1000000000 / 30;

}  // namespace

RelativeVelocityFilter::RelativeVelocityFilter(size_t window_size, float velocity_scale,
                                               DistanceEstimationMode mode)
    : max_window_size_(window_size),
      window_(window_size),
      velocity_scale_(velocity_scale),
      mode_(mode) {}

float RelativeVelocityFilter::Apply(int64_t timestamp_ns, float value, float value_scale) {
  if (last_timestamp_ns_ >= timestamp_ns) return value;
  float alpha = 1.0f;
  if (last_timestamp_ns_ != -1) {
    const float distance = mode_ == DistanceEstimationMode::kLegacyTransition
                               ? value * value_scale - last_value_ * last_value_scale_
                               : value_scale * (value - last_value_);
    const int64_t duration = timestamp_ns - last_timestamp_ns_;
    float cumulative_distance = distance;
    int64_t cumulative_duration = duration;
    const int64_t max_cumulative_duration =
        static_cast<int64_t>(1 + window_.size()) * kAssumedMaxDurationNs;
    for (const WindowElement& el : window_) {
      // Old, long steps would dominate the estimate: stop before them.
      if (cumulative_duration + el.duration > max_cumulative_duration) break;
      cumulative_distance += el.distance;
      cumulative_duration += el.duration;
    }
    const float velocity = cumulative_distance / (cumulative_duration * 1e-9);
    alpha = 1.0f - 1.0f / (1.0f + velocity_scale_ * std::abs(velocity));
    window_.push_front({distance, duration});
    if (window_.size() > max_window_size_) window_.pop_back();
  }
  last_value_ = value;
  last_value_scale_ = value_scale;
  last_timestamp_ns_ = timestamp_ns;
  return low_pass_filter_.ApplyWithAlpha(value, alpha);
}

}  // namespace filtering
}  // namespace sluice
