#include "framework/timestamp.h"

#include <limits>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(TimestampTest, SpecialValuesMatchMediaPipe) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Timestamp::Unset().Value(), kMin);
  EXPECT_EQ(Timestamp::Unstarted().Value(), kMin + 1);
  EXPECT_EQ(Timestamp::PreStream().Value(), kMin + 2);
  EXPECT_EQ(Timestamp::Min().Value(), kMin + 3);
  EXPECT_EQ(Timestamp::Max().Value(), kMax - 3);
  EXPECT_EQ(Timestamp::PostStream().Value(), kMax - 2);
  EXPECT_EQ(Timestamp::OneOverPostStream().Value(), kMax - 1);
  EXPECT_EQ(Timestamp::Done().Value(), kMax);
  EXPECT_EQ(Timestamp().Value(), kMin);
}

TEST(TimestampTest, Classification) {
  EXPECT_TRUE(Timestamp::Min().IsSpecialValue());
  EXPECT_TRUE(Timestamp::Min().IsRangeValue());
  EXPECT_FALSE(Timestamp(5).IsSpecialValue());
  EXPECT_TRUE(Timestamp::PreStream().IsAllowedInStream());
  EXPECT_TRUE(Timestamp::PostStream().IsAllowedInStream());
  EXPECT_FALSE(Timestamp::Unstarted().IsAllowedInStream());
  EXPECT_FALSE(Timestamp::Done().IsAllowedInStream());
}

TEST(TimestampTest, NextAndPreviousAllowed) {
  EXPECT_EQ(Timestamp(5).NextAllowedInStream(), Timestamp(6));
  EXPECT_EQ(Timestamp::PreStream().NextAllowedInStream(), Timestamp::OneOverPostStream());
  EXPECT_EQ(Timestamp::Max().NextAllowedInStream(), Timestamp::OneOverPostStream());
  EXPECT_EQ(Timestamp::Unstarted().NextAllowedInStream(), Timestamp::Min());
  EXPECT_EQ(Timestamp(5).PreviousAllowedInStream(), Timestamp(4));
  EXPECT_EQ(Timestamp::Min().PreviousAllowedInStream(), Timestamp::Unstarted());
  EXPECT_EQ(Timestamp::PostStream().PreviousAllowedInStream(), Timestamp::Unstarted());
  EXPECT_EQ(Timestamp::Done().PreviousAllowedInStream(), Timestamp::Max());
}

TEST(TimestampTest, ArithmeticIsClamped) {
  EXPECT_EQ(Timestamp(10) + TimestampDiff(5), Timestamp(15));
  EXPECT_EQ(Timestamp(10) - Timestamp(4), TimestampDiff(6));
  EXPECT_EQ(Timestamp::Max() + TimestampDiff(100), Timestamp::Max());
  EXPECT_EQ(Timestamp(-5) + TimestampDiff(std::numeric_limits<int64_t>::min()), Timestamp::Min());
  EXPECT_EQ(Timestamp::PostStream() + TimestampDiff(1), Timestamp::PostStream());
  EXPECT_EQ(Timestamp(std::numeric_limits<int64_t>::max()), Timestamp::Max());
}

TEST(TimestampTest, SecondsAndDebugString) {
  EXPECT_EQ(Timestamp::FromSeconds(1.5), Timestamp(1500000));
  EXPECT_DOUBLE_EQ(Timestamp(250000).Seconds(), 0.25);
  EXPECT_EQ(Timestamp::Done().DebugString(), "Timestamp::Done()");
  EXPECT_EQ(Timestamp(42).DebugString(), "42");
}

}  // namespace
}  // namespace sluice
