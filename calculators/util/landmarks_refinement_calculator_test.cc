#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using testing::At;
using testing::RunGraph;

mediapipe::NormalizedLandmarkList Landmarks(const std::vector<std::vector<float>>& points) {
  mediapipe::NormalizedLandmarkList list;
  for (const auto& p : points) {
    auto* l = list.add_landmark();
    l->set_x(p[0]);
    l->set_y(p[1]);
    l->set_z(p[2]);
  }
  return list;
}

std::string Graph(const std::string& refinements) {
  return R"(
      input_stream: "a" input_stream: "b" input_stream: "c" output_stream: "out"
      node {
        calculator: "LandmarksRefinementCalculator"
        input_stream: "LANDMARKS:0:a" input_stream: "LANDMARKS:1:b" input_stream: "LANDMARKS:2:c"
        output_stream: "REFINED_LANDMARKS:out"
        options: { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {)" +
         refinements + "} } }";
}

// Mesh of 3 points (z copied), a finer pair overwriting points 2 and 0 (z
// kept), and 2 appended points whose z is the mean z of points 0 and 1.
const char kRefinements[] = R"(
    refinement { indexes_mapping: [0, 1, 2] z_refinement { copy {} } }
    refinement { indexes_mapping: [2, 0] z_refinement { none {} } }
    refinement { indexes_mapping: [3, 4] z_refinement { assign_average { indexes_for_average: [0, 1] } } })";

TEST(LandmarksRefinementCalculatorTest, MapsXYAndRefinesZInOrder) {
  auto run = RunGraph(Graph(kRefinements),
                      {{"a", At(Landmarks({{0.1f, 0.1f, 1}, {0.2f, 0.2f, 2}, {0.3f, 0.3f, 3}}), 5)},
                       {"b", At(Landmarks({{0.9f, 0.8f, 50}, {0.7f, 0.6f, 60}}), 5)},
                       {"c", At(Landmarks({{0.5f, 0.4f, 70}, {0.45f, 0.35f, 80}}), 5)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& out = run.outputs[0][0].Get<mediapipe::NormalizedLandmarkList>();
  ASSERT_EQ(out.landmark_size(), 5);
  EXPECT_FLOAT_EQ(out.landmark(0).x(), 0.7f);  // from b[1]
  EXPECT_FLOAT_EQ(out.landmark(0).z(), 1.0f);  // mesh z kept
  EXPECT_FLOAT_EQ(out.landmark(1).x(), 0.2f);
  EXPECT_FLOAT_EQ(out.landmark(2).y(), 0.8f);  // from b[0]
  EXPECT_FLOAT_EQ(out.landmark(2).z(), 3.0f);
  EXPECT_FLOAT_EQ(out.landmark(3).x(), 0.5f);
  EXPECT_FLOAT_EQ(out.landmark(3).z(), 1.5f);  // mean of refined z[0], z[1]
  EXPECT_FLOAT_EQ(out.landmark(4).z(), 1.5f);
  EXPECT_FALSE(out.landmark(4).has_visibility());
}

TEST(LandmarksRefinementCalculatorTest, NoOutputWhenAnInputIsMissing) {
  auto run = RunGraph(Graph(kRefinements),
                      {{"a", At(Landmarks({{0.1f, 0.1f, 1}, {0.2f, 0.2f, 2}, {0.3f, 0.3f, 3}}), 5)},
                       {"c", At(Landmarks({{0.5f, 0.4f, 7}, {0.4f, 0.3f, 8}}), 5)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.outputs[0].empty());
}

TEST(LandmarksRefinementCalculatorTest, RejectsBadConfigsAndSizes) {
  // A gap in the indexes.
  auto gap = RunGraph(Graph(R"(
      refinement { indexes_mapping: [0, 2] z_refinement { copy {} } }
      refinement { indexes_mapping: [0] z_refinement { none {} } }
      refinement { indexes_mapping: [0] z_refinement { none {} } })"),
                      {}, {"out"});
  EXPECT_FALSE(gap.status.ok());
  EXPECT_NE(gap.status.message().find("gaps"), std::string::npos) << gap.status;
  // No z refinement.
  auto no_z = RunGraph(Graph(R"(
      refinement { indexes_mapping: [0] }
      refinement { indexes_mapping: [0] z_refinement { none {} } }
      refinement { indexes_mapping: [0] z_refinement { none {} } })"),
                       {}, {"out"});
  EXPECT_FALSE(no_z.status.ok());
  // Fewer refinements than inputs.
  auto count = RunGraph(Graph("refinement { indexes_mapping: [0] z_refinement { copy {} } }"), {},
                        {"out"});
  EXPECT_FALSE(count.status.ok());
  // An input whose size does not match its mapping.
  auto size = RunGraph(Graph(kRefinements),
                       {{"a", At(Landmarks({{0.1f, 0.1f, 1}}), 5)},
                        {"b", At(Landmarks({{0.9f, 0.8f, 5}, {0.7f, 0.6f, 6}}), 5)},
                        {"c", At(Landmarks({{0.5f, 0.4f, 7}, {0.4f, 0.3f, 8}}), 5)}},
                       {"out"});
  EXPECT_FALSE(size.status.ok());
  EXPECT_NE(size.status.message().find("LANDMARKS:0"), std::string::npos) << size.status;
}

}  // namespace
}  // namespace sluice
