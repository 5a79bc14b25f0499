#include "media/progress.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(FormatProgressTest, KnownTotalShowsPercentFpsAndEta) {
  // 100 of 400 frames in 10 s: 10 fps, 300 frames left = 30 s.
  const std::string line = FormatProgress(100, 400, 10.0);
  EXPECT_THAT(line, HasSubstr("frame 100/400 (25%)"));
  EXPECT_THAT(line, HasSubstr("10.0 fps"));
  EXPECT_THAT(line, HasSubstr("elapsed 0:10"));
  EXPECT_THAT(line, HasSubstr("ETA 0:30"));
}

TEST(FormatProgressTest, UnknownTotalHasNoEta) {
  const std::string line = FormatProgress(42, -1, 2.0);
  EXPECT_THAT(line, HasSubstr("frame 42 "));
  EXPECT_THAT(line, HasSubstr("21.0 fps"));
  EXPECT_THAT(line, Not(HasSubstr("ETA")));
  EXPECT_THAT(line, Not(HasSubstr("%")));
}

TEST(FormatProgressTest, LongEtaUsesHours) {
  // 1 fps, 7200 frames left.
  EXPECT_THAT(FormatProgress(1, 7201, 1.0), HasSubstr("ETA 2:00:00"));
}

TEST(FormatProgressTest, NoTimeElapsedDoesNotDivideByZero) {
  const std::string line = FormatProgress(0, 10, 0.0);
  EXPECT_THAT(line, HasSubstr("0.0 fps"));
  EXPECT_THAT(line, Not(HasSubstr("ETA")));
}

TEST(ProgressLineTest, DisabledLineWritesNothing) {
  testing::internal::CaptureStderr();
  {
    ProgressLine progress(10, /*enabled=*/false);
    for (int i = 1; i <= 10; ++i) progress.Update(i);
    progress.Finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressLineTest, EnabledLineRedrawsInPlace) {
  testing::internal::CaptureStderr();
  {
    ProgressLine progress(3, /*enabled=*/true);
    progress.Update(1);
    progress.Finish();
  }
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_THAT(out, HasSubstr("\rframe 1/3"));
  EXPECT_EQ(out.back(), '\n');
}

}  // namespace
}  // namespace sluice
