#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using testing::At;
using testing::MakeDetection;
using testing::RunGraph;
using Detections = std::vector<Detection>;

std::string Graph(const std::string& options, int streams = 1) {
  std::string text;
  std::string node = "node { calculator: \"NonMaxSuppressionCalculator\" ";
  for (int i = 0; i < streams; ++i) {
    text += "input_stream: \"in" + std::to_string(i) + "\"\n";
    node += "input_stream: \"in" + std::to_string(i) + "\" ";
  }
  text += "output_stream: \"out\"\n";
  node += "output_stream: \"out\" options: { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] { " +
          options + " } } }";
  return text + node;
}

Detections RunOnce(const std::string& options, const Detections& in) {
  auto run = RunGraph(Graph(options), {{"in0", At(in, 1)}}, {"out"});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) {
    ADD_FAILURE() << "expected exactly one output packet";
    return {};
  }
  return run.outputs[0][0].Get<Detections>();
}

const auto& Box(const Detection& d) { return d.location_data().relative_bounding_box(); }

TEST(NonMaxSuppressionCalculatorTest, DefaultKeepsBestAndDropsOverlapsAboveThreshold) {
  // a and b: IoU = 0.5*1/(1+1-0.5) = 1/3. c is far away.
  const Detections in = {MakeDetection(0.6f, 0, 0.0f, 0.0f, 1.0f, 1.0f),
                         MakeDetection(0.9f, 0, 0.5f, 0.0f, 1.0f, 1.0f),
                         MakeDetection(0.7f, 0, 5.0f, 5.0f, 1.0f, 1.0f)};
  Detections out = RunOnce("min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION", in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0].score(0), 0.9f);
  EXPECT_FLOAT_EQ(out[1].score(0), 0.7f);
  // At threshold 1/3 + epsilon nothing is suppressed: the comparison is strict.
  out = RunOnce("min_suppression_threshold: 0.34 overlap_type: INTERSECTION_OVER_UNION", in);
  EXPECT_EQ(out.size(), 3u);
}

TEST(NonMaxSuppressionCalculatorTest, OverlapTypesDiffer) {
  // Boxes [0,1]x[0,1] (score .9) and [0.5,2.5]x[0,1] (score .8): inter .5,
  // IoU .5/2.5 = .2, JACCARD (enclosing box [0,2.5]) .5/2.5 = .2,
  // MODIFIED_JACCARD (area of the candidate) .5/2 = .25.
  const Detections in = {MakeDetection(0.9f, 0, 0.0f, 0.0f, 1.0f, 1.0f),
                         MakeDetection(0.8f, 0, 0.5f, 0.0f, 2.0f, 1.0f)};
  EXPECT_EQ(RunOnce("min_suppression_threshold: 0.22 overlap_type: INTERSECTION_OVER_UNION", in)
                .size(),
            2u);
  EXPECT_EQ(RunOnce("min_suppression_threshold: 0.22 overlap_type: JACCARD", in).size(), 2u);
  EXPECT_EQ(RunOnce("min_suppression_threshold: 0.22 overlap_type: MODIFIED_JACCARD", in).size(),
            1u);
  // JACCARD's enclosing box differs from the union once boxes are offset in y.
  const Detections diag = {MakeDetection(0.9f, 0, 0.0f, 0.0f, 1.0f, 1.0f),
                           MakeDetection(0.8f, 0, 0.5f, 0.5f, 1.0f, 1.0f)};
  // inter .25; IoU .25/1.75 = .143; JACCARD .25/2.25 = .111.
  EXPECT_EQ(RunOnce("min_suppression_threshold: 0.12 overlap_type: INTERSECTION_OVER_UNION", diag)
                .size(),
            1u);
  EXPECT_EQ(RunOnce("min_suppression_threshold: 0.12 overlap_type: JACCARD", diag).size(), 2u);
}

TEST(NonMaxSuppressionCalculatorTest, DefaultHonoursMaxAndMinScore) {
  const Detections in = {MakeDetection(0.9f, 0, 0, 0, 1, 1), MakeDetection(0.8f, 0, 2, 0, 1, 1),
                         MakeDetection(0.7f, 0, 4, 0, 1, 1), MakeDetection(0.2f, 0, 6, 0, 1, 1)};
  EXPECT_EQ(RunOnce("max_num_detections: 2 min_suppression_threshold: 0.3", in).size(), 2u);
  EXPECT_EQ(RunOnce("min_score_threshold: 0.5 min_suppression_threshold: 0.3", in).size(), 3u);
}

TEST(NonMaxSuppressionCalculatorTest, WeightedAveragesClusterAndKeepsLeaderScore) {
  // Leader (0.8) and a 0.2-scored neighbour shifted by 0.1 merge; IoU = .9/1.1.
  const Detections in = {
      MakeDetection(0.2f, 0, 0.1f, 0.0f, 1.0f, 1.0f, {{0.5f, 0.5f}}),
      MakeDetection(0.8f, 3, 0.0f, 0.0f, 1.0f, 1.0f, {{0.0f, 1.0f}}),
      MakeDetection(0.5f, 0, 3.0f, 3.0f, 1.0f, 1.0f, {{3.0f, 3.0f}}),
  };
  Detections out = RunOnce(
      "min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION algorithm: WEIGHTED "
      "max_num_detections: 1",
      in);
  // max_num_detections is ignored by WEIGHTED.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0].score(0), 0.8f);
  EXPECT_EQ(out[0].label_id(0), 3);
  EXPECT_NEAR(Box(out[0]).xmin(), 0.02f, 1e-6);   // (0*.8 + .1*.2) / 1
  EXPECT_NEAR(Box(out[0]).width(), 1.0f, 1e-6);   // xmax 1.02 - xmin .02
  EXPECT_NEAR(Box(out[0]).ymin(), 0.0f, 1e-6);
  const auto& kp = out[0].location_data().relative_keypoints(0);
  EXPECT_NEAR(kp.x(), 0.1f, 1e-6);   // 0*.8 + .5*.2
  EXPECT_NEAR(kp.y(), 0.9f, 1e-6);   // 1*.8 + .5*.2
  EXPECT_FLOAT_EQ(out[1].score(0), 0.5f);
  EXPECT_NEAR(Box(out[1]).xmin(), 3.0f, 1e-6);
}

TEST(NonMaxSuppressionCalculatorTest, KeepsOnlyBestLabelAndMergesStreams) {
  Detection multi = MakeDetection(0.3f, 1, 0, 0, 1, 1);
  multi.add_score(0.7f);
  multi.add_label_id(2);
  auto run = RunGraph(Graph("num_detection_streams: 2 min_suppression_threshold: 0.5", 2),
                      {{"in0", At(Detections{multi}, 5)},
                       {"in1", At(Detections{MakeDetection(0.9f, 4, 3, 3, 1, 1)}, 5)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& out = run.outputs[0][0].Get<Detections>();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].label_id(0), 4);
  ASSERT_EQ(out[1].score_size(), 1);
  EXPECT_FLOAT_EQ(out[1].score(0), 0.7f);
  EXPECT_EQ(out[1].label_id(0), 2);
}

TEST(NonMaxSuppressionCalculatorTest, EmptyInputEmitsOnlyWhenAsked) {
  auto silent = RunGraph(Graph(""), {{"in0", At(Detections{}, 1)}}, {"out"});
  ASSERT_TRUE(silent.status.ok()) << silent.status;
  EXPECT_TRUE(silent.outputs[0].empty());
  auto empty = RunGraph(Graph("return_empty_detections: true"), {{"in0", At(Detections{}, 1)}},
                        {"out"});
  ASSERT_TRUE(empty.status.ok()) << empty.status;
  ASSERT_EQ(empty.outputs[0].size(), 1u);
  EXPECT_TRUE(empty.outputs[0][0].Get<Detections>().empty());
}

TEST(NonMaxSuppressionCalculatorTest, RejectsStreamCountMismatch) {
  auto run = RunGraph(Graph("num_detection_streams: 2"), {}, {"out"});
  EXPECT_FALSE(run.status.ok());
}

}  // namespace
}  // namespace sluice
