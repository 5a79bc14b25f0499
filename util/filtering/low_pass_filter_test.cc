#include "util/filtering/low_pass_filter.h"

#include "gtest/gtest.h"

namespace sluice {
namespace filtering {
namespace {

// MediaPipe's low_pass_filter_test expectations.
TEST(LowPassFilterTest, FirstValuePassesThenBlends) {
  LowPassFilter one(1.0f);
  EXPECT_EQ(one.Apply(2.0f), 2.0f);
  EXPECT_EQ(one.Apply(100.0f), 100.0f);

  LowPassFilter zero(0.0f);
  EXPECT_EQ(zero.Apply(2.0f), 2.0f);
  EXPECT_EQ(zero.Apply(100.0f), 2.0f);

  LowPassFilter half(0.5f);
  EXPECT_EQ(half.Apply(2.0f), 2.0f);
  EXPECT_EQ(half.Apply(100.0f), 51.0f);
}

TEST(LowPassFilterTest, TracksRawAndFilteredValues) {
  LowPassFilter f(0.1f);
  EXPECT_FALSE(f.HasLastRawValue());
  f.Apply(1.0f);
  const float out = f.Apply(11.0f);
  EXPECT_FLOAT_EQ(out, 0.1f * 11.0f + 0.9f * 1.0f);
  EXPECT_TRUE(f.HasLastRawValue());
  EXPECT_EQ(f.LastRawValue(), 11.0f);
  EXPECT_EQ(f.LastValue(), out);
  // A new alpha applies from this sample on.
  EXPECT_FLOAT_EQ(f.ApplyWithAlpha(0.0f, 0.5f), 0.5f * out);
}

TEST(LowPassFilterTest, OutOfRangeAlphaIsRejectedAndIgnored) {
  EXPECT_FALSE(LowPassFilter::ValidateAlpha(1.5f).ok());
  EXPECT_FALSE(LowPassFilter::ValidateAlpha(-0.1f).ok());
  EXPECT_TRUE(LowPassFilter::ValidateAlpha(0.0f).ok());
  LowPassFilter f(0.5f);
  f.Apply(0.0f);
  EXPECT_EQ(f.ApplyWithAlpha(10.0f, 7.0f), 5.0f);  // keeps alpha 0.5
}

}  // namespace
}  // namespace filtering
}  // namespace sluice
