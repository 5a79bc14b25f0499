// Relative velocity filter with the numerics of MediaPipe 0.10.21's
// mediapipe/util/filtering/relative_velocity_filter: a low-pass filter whose
// alpha grows with the value's recent speed, measured on value * value_scale
// over a window of the last `window_size` steps.
//
// Per sample at time t (ns): t <= the previous t returns the value unfiltered.
// The first sample passes through (alpha 1). Then
//   distance = value * scale - last_value * last_scale   (kLegacyTransition)
//            | scale * (value - last_value)              (kForceCurrentScale)
//   velocity = (distance + window distances) / (duration + window durations),
//     window elements taken newest first while the total duration stays
//     within (1 + window size) / 30 s;
//   alpha = 1 - 1 / (1 + velocity_scale * |velocity|).
// As in MediaPipe, the window starts filled with `window_size` zero-length
// elements, so the duration limit is (1 + window_size) / 30 s from the start.
#ifndef SLUICE_UTIL_FILTERING_RELATIVE_VELOCITY_FILTER_H_
#define SLUICE_UTIL_FILTERING_RELATIVE_VELOCITY_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <deque>

#include "util/filtering/low_pass_filter.h"

namespace sluice {
namespace filtering {

class RelativeVelocityFilter {
 public:
  enum class DistanceEstimationMode { kLegacyTransition, kForceCurrentScale };

  RelativeVelocityFilter(size_t window_size, float velocity_scale,
                         DistanceEstimationMode mode = DistanceEstimationMode::kLegacyTransition);

  float Apply(int64_t timestamp_ns, float value, float value_scale);

 private:
  struct WindowElement {
    float distance = 0.0f;
    int64_t duration = 0;
  };

  float last_value_ = 0.0f;
  float last_value_scale_ = 1.0f;
  int64_t last_timestamp_ns_ = -1;
  size_t max_window_size_;
  std::deque<WindowElement> window_;
  LowPassFilter low_pass_filter_{1.0f};
  float velocity_scale_;
  DistanceEstimationMode mode_;
};

}  // namespace filtering
}  // namespace sluice

#endif  // SLUICE_UTIL_FILTERING_RELATIVE_VELOCITY_FILTER_H_
