#include "util/filtering/one_euro_filter.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace filtering {
namespace {

constexpr int64_t kSecond = 1000000000;

TEST(OneEuroFilterTest, RejectsNonPositiveParameters) {
  auto f = OneEuroFilter::Create(1.0, 0.0, 1.0, 0.0);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(f.status().message(), ::testing::HasSubstr("min_cutoff"));
  EXPECT_FALSE(OneEuroFilter::Create(0.0, 1.0, 1.0, 1.0).ok());
  EXPECT_FALSE(OneEuroFilter::Create(30.0, 1.0, 1.0, -1.0).ok());
}

// MediaPipe's one_euro_filter_test expectations (beta 0: plain low-pass with
// alpha(0.1 Hz) at 1 Hz).
TEST(OneEuroFilterTest, MediaPipeValueFilterExpectations) {
  auto f = OneEuroFilter::Create(1.0, 0.1, 0.0, 0.1);
  ASSERT_TRUE(f.ok());
  EXPECT_FLOAT_EQ(f->Apply(1 * kSecond, 2.0, 1.0), 2.0f);
  EXPECT_NEAR(f->Apply(2 * kSecond, 3.0, 1.0), 2.4, 0.1);
  EXPECT_NEAR(f->Apply(3 * kSecond, 4.0, 1.0), 3.0, 0.1);
}

// A first sample at t = 0 keeps the configured frequency for the second one
// (MediaPipe's expectation: 79.8 +- 0.2 for these parameters).
TEST(OneEuroFilterTest, FirstSampleAtZeroKeepsConfiguredFrequency) {
  auto f = OneEuroFilter::Create(1.0, 0.001, 1.0, 0.001);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->Apply(0, 2.0, 1.0), 2.0);
  EXPECT_NEAR(f->Apply(1000, 100.0, 1.0), 79.8, 0.2);
}

double Alpha(double cutoff, double frequency) {
  return 1.0 / (1.0 + (1.0 / (2 * M_PI * cutoff)) * frequency);
}

// The definition written out in double precision, against the filter, over
// an irregular sequence with value scaling and a repeated timestamp.
TEST(OneEuroFilterTest, MatchesDefinitionOverASequence) {
  const double min_cutoff = 0.05, beta = 80.0, dcutoff = 1.0, scale = 1 / 200.0;
  auto f = OneEuroFilter::Create(30.0, min_cutoff, beta, dcutoff);
  ASSERT_TRUE(f.ok());
  const std::vector<int64_t> t_us = {33333, 66666, 99999, 99999, 166665, 199998, 233331};
  const std::vector<double> v = {100, 104, 103, 500, 120, 119.5, 150};
  double x = 0, dx = 0, last_raw = 0;
  int64_t last_t = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    const int64_t t = t_us[i] * 1000;
    double expected;
    if (t <= last_t) {
      expected = v[i];  // repeated timestamp: unfiltered, state kept
    } else {
      const double freq = 1.0 / ((t - last_t) * 1e-9);
      if (i == 0) {
        x = v[0];
        dx = 0;
      } else {
        const double d = (v[i] - last_raw) * scale * freq;
        dx = dx + Alpha(dcutoff, freq) * (d - dx);
        x = x + Alpha(min_cutoff + beta * std::fabs(dx), freq) * (v[i] - x);
      }
      last_raw = v[i];
      last_t = t;
      expected = x;
    }
    EXPECT_NEAR(f->Apply(t, v[i], scale), expected, 1e-4 * std::fabs(expected)) << "sample " << i;
  }
}

}  // namespace
}  // namespace filtering
}  // namespace sluice
