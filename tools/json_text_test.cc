// The JSON pieces of the --landmarks files.
#include "tools/json_text.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "formats/landmark.pb.h"

namespace sluice::cli {
namespace {

TEST(JsonTextTest, NumbersKeepSevenDigitsAndNonFiniteIsNull) {
  EXPECT_EQ(Num(0.0), "0");
  EXPECT_EQ(Num(0.123456789), "0.1234568");
  EXPECT_EQ(Num(-1.5e-9), "-1.5e-09");
  EXPECT_EQ(Num(static_cast<float>(0.1)), "0.1");
  EXPECT_EQ(Num(std::nan("")), "null");
  EXPECT_EQ(Num(std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonTextTest, StringsEscapeQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString("Left"), "\"Left\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("tab\there\n"), "\"tab\\u0009here\\u000a\"");
}

TEST(JsonTextTest, LandmarkListsAsTriples) {
  mediapipe::NormalizedLandmarkList list;
  EXPECT_EQ(LandmarkPoints(list), "[]");
  auto* a = list.add_landmark();
  a->set_x(0.5f);
  a->set_y(0.25f);
  a->set_z(-0.125f);
  list.add_landmark()->set_x(1.0f);
  EXPECT_EQ(LandmarkPoints(list), "[[0.5, 0.25, -0.125], [1, 0, 0]]");
}

}  // namespace
}  // namespace sluice::cli
