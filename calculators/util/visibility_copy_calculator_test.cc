#include <string>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using testing::At;
using testing::RunGraph;
using ::testing::HasSubstr;

NormalizedLandmarkList From() {
  NormalizedLandmarkList l;
  for (int i = 0; i < 2; ++i) {
    auto* lm = l.add_landmark();
    lm->set_x(0.1f * i);
    lm->set_visibility(0.25f + i);
    lm->set_presence(0.5f + i);
  }
  return l;
}

LandmarkList To(int n) {
  LandmarkList l;
  for (int i = 0; i < n; ++i) {
    auto* lm = l.add_landmark();
    lm->set_x(10 + i);
    lm->set_y(20 + i);
    lm->set_z(30 + i);
  }
  return l;
}

std::string Graph(const std::string& options) {
  return R"(
    input_stream: "from" input_stream: "to" output_stream: "out"
    node {
      calculator: "VisibilityCopyCalculator"
      input_stream: "NORM_LANDMARKS_FROM:from"
      input_stream: "LANDMARKS_TO:to"
      output_stream: "LANDMARKS_TO:out"
      )" + options + "}";
}

TEST(VisibilityCopyCalculatorTest, CopiesBothByDefaultKeepingCoordinates) {
  auto run = RunGraph(Graph(""), {{"from", At(From(), 1)}, {"to", At(To(2), 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& out = run.outputs[0][0].Get<LandmarkList>();
  ASSERT_EQ(out.landmark_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(out.landmark(i).x(), 10 + i);
    EXPECT_EQ(out.landmark(i).y(), 20 + i);
    EXPECT_EQ(out.landmark(i).z(), 30 + i);
    EXPECT_EQ(out.landmark(i).visibility(), 0.25f + i);
    EXPECT_EQ(out.landmark(i).presence(), 0.5f + i);
  }
}

TEST(VisibilityCopyCalculatorTest, OptionsSelectWhatIsCopiedAndLengthFollowsFrom) {
  auto run = RunGraph(
      Graph("options: { [mediapipe.VisibilityCopyCalculatorOptions.ext] { copy_presence: false } }"),
      {{"from", At(From(), 1)}, {"to", At(To(3), 1)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<LandmarkList>();
  ASSERT_EQ(out.landmark_size(), 2);
  EXPECT_EQ(out.landmark(1).visibility(), 1.25f);
  EXPECT_FALSE(out.landmark(1).has_presence());
}

TEST(VisibilityCopyCalculatorTest, NoOutputWithoutBothLists) {
  auto run = RunGraph(Graph(""), {{"from", At(From(), 1)}, {"to", At(To(2), 2)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.outputs[0].empty());
}

TEST(VisibilityCopyCalculatorTest, ShorterTargetListIsAnError) {
  auto run = RunGraph(Graph(""), {{"from", At(From(), 1)}, {"to", At(To(1), 1)}}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("LANDMARKS_TO only 1"));
}

TEST(VisibilityCopyCalculatorTest, OutputTagMustMatchTargetType) {
  auto run = RunGraph(R"(
    input_stream: "from" input_stream: "to" output_stream: "out"
    node {
      calculator: "VisibilityCopyCalculator"
      input_stream: "NORM_LANDMARKS_FROM:from" input_stream: "LANDMARKS_TO:to"
      output_stream: "NORM_LANDMARKS_TO:out"
    })", {}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("LANDMARKS_TO input needs a LANDMARKS_TO output"));
}

}  // namespace
}  // namespace sluice
