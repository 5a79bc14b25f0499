#include "util/filtering/relative_velocity_filter.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace filtering {
namespace {

using Mode = RelativeVelocityFilter::DistanceEstimationMode;
constexpr int64_t kMs = 1000000;

TEST(RelativeVelocityFilterTest, NonIncreasingTimestampReturnsValue) {
  RelativeVelocityFilter f(1, 1.0f);
  EXPECT_FLOAT_EQ(f.Apply(1, 95.5f, 0.5f), 95.5f);
  EXPECT_FLOAT_EQ(f.Apply(1, 200.5f, 0.5f), 200.5f);
  EXPECT_FLOAT_EQ(f.Apply(1, 1000.5f, 0.5f), 1000.5f);
}

// MediaPipe's relative_velocity_filter_test: a more sensitive filter follows
// the value more closely.
TEST(RelativeVelocityFilterTest, HigherVelocityScaleFollowsCloser) {
  for (Mode mode : {Mode::kLegacyTransition, Mode::kForceCurrentScale}) {
    RelativeVelocityFilter sensitive(5, 45.0f, mode), lazy(5, 0.1f, mode);
    const std::vector<float> v = {1, 10, 2, 20, 10, 50, 30};
    EXPECT_EQ(sensitive.Apply(1 * kMs, v[0], 1), lazy.Apply(1 * kMs, v[0], 1));
    for (size_t i = 1; i < v.size(); ++i) {
      const float a = sensitive.Apply((i + 1) * kMs, v[i], 1);
      const float b = lazy.Apply((i + 1) * kMs, v[i], 1);
      if (v[i] > v[i - 1]) {
        EXPECT_GT(a, b) << i;
      } else {
        EXPECT_LT(a, b) << i;
      }
    }
  }
}

TEST(RelativeVelocityFilterTest, ForceCurrentScaleIsTranslationInvariant) {
  RelativeVelocityFilter a(5, 0.1f, Mode::kForceCurrentScale);
  RelativeVelocityFilter b(5, 0.1f, Mode::kForceCurrentScale);
  const std::vector<float> v = {1, 10, 20, 30, 40, 50, 60, 70, 80, 90, 70, 50, 80};
  const std::vector<float> s = {0.5f, 5, 10, 15, 0.5f, 0.5f, 5, 10, 15, 5, 10, 15, 15};
  for (size_t i = 0; i < v.size(); ++i) {
    const float fa = a.Apply(i * kMs, v[i], s[i]);
    const float fb = b.Apply(i * kMs, v[i] + 100, s[i]);
    EXPECT_NEAR(fb - fa, 100.0f, 2e-5f) << i;
  }
}

// The definition step by step at 30 fps (33333 us), with MediaPipe's initial
// window of `window_size` zero-length elements.
TEST(RelativeVelocityFilterTest, MatchesDefinitionWithGapLimit) {
  RelativeVelocityFilter f(2, 10.0f);
  const int64_t dt = 33333000;
  // Sample 1: passes through.
  EXPECT_FLOAT_EQ(f.Apply(dt, 1.0f, 2.0f), 1.0f);
  // Sample 2: distance 2*2 - 1*2 = 2 over dt: velocity 2 / 0.033333 = 60.0006.
  const float v2 = 2.0f / (dt * 1e-9);
  const float a2 = 1.0f - 1.0f / (1.0f + 10.0f * v2);
  const float y2 = a2 * 2.0f + (1.0f - a2) * 1.0f;
  EXPECT_FLOAT_EQ(f.Apply(2 * dt, 2.0f, 2.0f), y2);
  // Sample 3 after a long gap (5 frames): 5*dt + dt (previous element) stays
  // within (1 + 2) / 30 s? No: 6*dt > 3*33333333 ns, so only this step counts.
  const float v3 = (4.0f * 2 - 2.0f * 2) / (5 * dt * 1e-9);
  const float a3 = 1.0f - 1.0f / (1.0f + 10.0f * v3);
  const float y3 = a3 * 4.0f + (1.0f - a3) * y2;
  EXPECT_FLOAT_EQ(f.Apply(7 * dt, 4.0f, 2.0f), y3);
  // Sample 4 one frame later: dt + 5dt = 6dt > 3 frames again: only this step.
  const float v4 = (3.0f * 2 - 4.0f * 2) / (dt * 1e-9);
  const float a4 = 1.0f - 1.0f / (1.0f + 10.0f * std::abs(v4));
  const float y4 = a4 * 3.0f + (1.0f - a4) * y3;
  EXPECT_FLOAT_EQ(f.Apply(8 * dt, 3.0f, 2.0f), y4);
  // Sample 5: window is [step4 (dt), step3 (5dt)]: step4 fits (2dt), step3 not.
  const float d5 = 3.5f * 2 - 3.0f * 2;
  const float v5 = (d5 + (3.0f * 2 - 4.0f * 2)) / (2 * dt * 1e-9);
  const float a5 = 1.0f - 1.0f / (1.0f + 10.0f * std::abs(v5));
  const float y5 = a5 * 3.5f + (1.0f - a5) * y4;
  EXPECT_FLOAT_EQ(f.Apply(9 * dt, 3.5f, 2.0f), y5);
}

// Legacy distance mixes scales: a scale change alone moves the estimate.
TEST(RelativeVelocityFilterTest, LegacyDistanceUsesBothScales) {
  RelativeVelocityFilter f(5, 1.0f);
  const int64_t dt = 33333000;
  f.Apply(dt, 10.0f, 1.0f);
  // Same value, scale 1 -> 2: distance 10*2 - 10*1 = 10, yet the value is
  // unchanged so any alpha gives 10.
  EXPECT_FLOAT_EQ(f.Apply(2 * dt, 10.0f, 2.0f), 10.0f);
  // Next: value 11 at scale 2: distance 22 - 20 = 2, plus the previous 10.
  const float v = (2.0f + 10.0f) / (2 * dt * 1e-9);
  const float a = 1.0f - 1.0f / (1.0f + std::abs(v));
  EXPECT_FLOAT_EQ(f.Apply(3 * dt, 11.0f, 2.0f), a * 11.0f + (1.0f - a) * 10.0f);
}

}  // namespace
}  // namespace filtering
}  // namespace sluice
