#include <string>
#include <utility>
#include <vector>

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

template <typename List>
List WithVisibility(const std::vector<float>& visibility) {
  List l;
  for (size_t i = 0; i < visibility.size(); ++i) {
    auto* lm = l.add_landmark();
    lm->set_x(0.1f * i);
    lm->set_y(0.2f);
    lm->set_visibility(visibility[i]);
  }
  return l;
}

std::string Graph(const std::string& in, const std::string& out, const std::string& options) {
  return R"(
    input_stream: "lms" output_stream: "out"
    node {
      calculator: "VisibilitySmoothingCalculator"
      input_stream: ")" + in + R"(:lms" output_stream: ")" + out + R"(:out"
      options: { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { )" + options + R"( } }
    })";
}

TEST(VisibilitySmoothingCalculatorTest, LowPassOnVisibilityOnly) {
  auto run = RunGraph(Graph("NORM_LANDMARKS", "NORM_FILTERED_LANDMARKS",
                            "low_pass_filter { alpha: 0.1 }"),
                      {{"lms", At(WithVisibility<NormalizedLandmarkList>({1.0f, 0.0f}), 1)},
                       {"lms", At(WithVisibility<NormalizedLandmarkList>({0.0f, 1.0f}), 2)},
                       {"lms", At(WithVisibility<NormalizedLandmarkList>({0.0f, 1.0f}), 3)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 3u);
  const auto& first = run.outputs[0][0].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(first.landmark(0).visibility(), 1.0f);  // first value passes
  const auto& second = run.outputs[0][1].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(second.landmark(0).visibility(), 0.9f);  // 0.1*0 + 0.9*1
  EXPECT_FLOAT_EQ(second.landmark(1).visibility(), 0.1f);
  const auto& third = run.outputs[0][2].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(third.landmark(0).visibility(), 0.81f);
  EXPECT_FLOAT_EQ(third.landmark(1).visibility(), 0.19f);
  EXPECT_FLOAT_EQ(third.landmark(1).x(), 0.1f);  // coordinates untouched
}

TEST(VisibilitySmoothingCalculatorTest, NoFilterOnWorldLandmarks) {
  auto run = RunGraph(Graph("LANDMARKS", "FILTERED_LANDMARKS", "no_filter {}"),
                      {{"lms", At(WithVisibility<LandmarkList>({1.0f}), 1)},
                       {"lms", At(WithVisibility<LandmarkList>({0.0f}), 2)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_FLOAT_EQ(run.outputs[0][1].Get<LandmarkList>().landmark(0).visibility(), 0.0f);
}

TEST(VisibilitySmoothingCalculatorTest, LengthChangeIsAnError) {
  auto run = RunGraph(Graph("LANDMARKS", "FILTERED_LANDMARKS", "low_pass_filter {}"),
                      {{"lms", At(WithVisibility<LandmarkList>({1.0f}), 1)},
                       {"lms", At(WithVisibility<LandmarkList>({0.0f, 1.0f}), 2)}},
                      {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("had 1 landmarks, now 2"));
}

TEST(VisibilitySmoothingCalculatorTest, BadOptionsAreErrors) {
  auto none = RunGraph(Graph("LANDMARKS", "FILTERED_LANDMARKS", ""), {}, {"out"});
  ASSERT_FALSE(none.status.ok());
  EXPECT_THAT(none.status.message(), HasSubstr("no_filter or low_pass_filter"));
  auto alpha = RunGraph(Graph("LANDMARKS", "FILTERED_LANDMARKS", "low_pass_filter { alpha: 2 }"),
                        {}, {"out"});
  EXPECT_THAT(alpha.status.message(), HasSubstr("alpha must be in [0, 1]"));
  auto tags = RunGraph(Graph("LANDMARKS", "NORM_FILTERED_LANDMARKS", "no_filter {}"), {}, {"out"});
  EXPECT_THAT(tags.status.message(), HasSubstr("FILTERED_LANDMARKS output"));
}

}  // namespace
}  // namespace sluice
