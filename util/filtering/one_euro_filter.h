// One-euro filter (Casiez et al., CHI 2012) with the numerics of MediaPipe
// 0.10.21's mediapipe/util/filtering/one_euro_filter: an adaptive low-pass
// filter whose cutoff rises with the (low-passed) speed of the value.
//
// Per sample at time t (ns):
//  * t <= the previous t: the value is returned unfiltered, state untouched;
//  * frequency = 1 / (t - t_prev) once a previous sample exists, except that
//    a previous sample at t = 0 keeps the configured frequency (MediaPipe's
//    "0 = unknown" rule, kept);
//  * dvalue = (value - previous raw value) * value_scale * frequency (0 first);
//  * edvalue = LPF_d(dvalue, alpha(derivate_cutoff));
//  * cutoff = min_cutoff + beta * |edvalue|; out = LPF_x(value, alpha(cutoff));
//  * alpha(fc) = 1 / (1 + tau / te), tau = 1 / (2 pi fc), te = 1 / frequency.
#ifndef SLUICE_UTIL_FILTERING_ONE_EURO_FILTER_H_
#define SLUICE_UTIL_FILTERING_ONE_EURO_FILTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "util/filtering/low_pass_filter.h"

namespace sluice {
namespace filtering {

class OneEuroFilter {
 public:
  // frequency (Hz), min_cutoff and derivate_cutoff must be > 1e-6.
  static absl::StatusOr<OneEuroFilter> Create(double frequency, double min_cutoff, double beta,
                                              double derivate_cutoff);

  double Apply(int64_t timestamp_ns, double value, double value_scale);

 private:
  OneEuroFilter(double frequency, double min_cutoff, double beta, double derivate_cutoff);
  double Alpha(double cutoff) const;

  double frequency_;
  double min_cutoff_;
  double beta_;
  double derivate_cutoff_;
  LowPassFilter x_;
  LowPassFilter dx_;
  int64_t last_time_ns_ = -1;
};

}  // namespace filtering
}  // namespace sluice

#endif  // SLUICE_UTIL_FILTERING_ONE_EURO_FILTER_H_
