#include "util/filtering/one_euro_filter.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace filtering {
namespace {

constexpr double kEpsilon = 1e-6;

}  // namespace

absl::StatusOr<OneEuroFilter> OneEuroFilter::Create(double frequency, double min_cutoff,
                                                    double beta, double derivate_cutoff) {
  const struct {
    const char* name;
    double value;
  } positive[] = {{"frequency", frequency},
                  {"min_cutoff", min_cutoff},
                  {"derivate_cutoff", derivate_cutoff}};
  for (const auto& p : positive) {
    if (!(p.value > kEpsilon)) {
      return absl::InvalidArgumentError(
          absl::StrCat("one-euro filter ", p.name, " must be > 0, got ", p.value));
    }
  }
  return OneEuroFilter(frequency, min_cutoff, beta, derivate_cutoff);
}

OneEuroFilter::OneEuroFilter(double frequency, double min_cutoff, double beta,
                             double derivate_cutoff)
    : frequency_(frequency),
      min_cutoff_(min_cutoff),
      beta_(beta),
      derivate_cutoff_(derivate_cutoff),
      x_(static_cast<float>(Alpha(min_cutoff))),
      dx_(static_cast<float>(Alpha(derivate_cutoff))) {}

double OneEuroFilter::Apply(int64_t timestamp_ns, double value, double value_scale) {
  if (last_time_ns_ >= timestamp_ns) return value;
  if (last_time_ns_ != 0 && timestamp_ns != 0) {
    frequency_ = 1.0 / ((timestamp_ns - last_time_ns_) * 1e-9);
  }
  last_time_ns_ = timestamp_ns;
  const double dvalue =
      x_.HasLastRawValue() ? (value - x_.LastRawValue()) * value_scale * frequency_ : 0.0;
  // The low-pass filters hold floats: values and alphas narrow here, as in
  // MediaPipe.
  const double edvalue = dx_.ApplyWithAlpha(static_cast<float>(dvalue),
                                            static_cast<float>(Alpha(derivate_cutoff_)));
  const double cutoff = min_cutoff_ + beta_ * std::fabs(edvalue);
  return x_.ApplyWithAlpha(static_cast<float>(value), static_cast<float>(Alpha(cutoff)));
}

double OneEuroFilter::Alpha(double cutoff) const {
  const double te = 1.0 / frequency_;
  const double tau = 1.0 / (2 * M_PI * cutoff);
  return 1.0 / (1.0 + tau / te);
}

}  // namespace filtering
}  // namespace sluice
