#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/anchor.pb.h"
#include "formats/detection.pb.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Anchor;
using mediapipe::Detection;
using testing::RunGraph;
using Detections = std::vector<Detection>;

Tensor MakeTensor(std::vector<int> dims, const std::vector<float>& values) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape(std::move(dims)));
  auto view = t.GetCpuWriteView();
  std::copy(values.begin(), values.end(), view.buffer<float>());
  return t;
}

Packet TensorsAt(std::vector<Tensor> tensors, int64_t ts) {
  auto* v = new std::vector<Tensor>();
  for (Tensor& t : tensors) v->push_back(std::move(t));
  return Adopt(v).At(Timestamp(ts));
}

Anchor MakeAnchor(float x, float y, float w, float h) {
  Anchor a;
  a.set_x_center(x);
  a.set_y_center(y);
  a.set_w(w);
  a.set_h(h);
  return a;
}

// Three boxes with two keypoints each, XYWH order, scale 10.
const std::vector<float> kRawBoxes = {
    1, 2, 3, 4, 1, 1, -1, 0,    // -> x 0.35 y 0.45 w 0.3 h 0.4 (anchor 0)
    2, -2, 4, 2, 0, 0, 0, 0,    // -> x 0.85 y 0.65 w 0.2 h 0.1 (anchor 1)
    0, 0, -1, 1, 0, 0, 0, 0};   // negative width: dropped
const std::vector<float> kLogits = {0, 2, 3, -1, 5, 5};

std::vector<Anchor> Anchors() {
  return {MakeAnchor(0.25f, 0.25f, 1, 1), MakeAnchor(0.75f, 0.75f, 0.5f, 0.5f),
          MakeAnchor(0.5f, 0.5f, 1, 1)};
}

std::string Graph(const std::string& extra_options, bool with_anchor_side_packet = true) {
  return std::string(R"(
    input_stream: "tensors"
    input_side_packet: "anchors"
    output_stream: "dets"
    node {
      calculator: "TensorsToDetectionsCalculator"
      input_stream: "TENSORS:tensors"
      )") + (with_anchor_side_packet ? "input_side_packet: \"ANCHORS:anchors\"" : "") + R"(
      output_stream: "DETECTIONS:dets"
      options: { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
        num_classes: 2 num_boxes: 3 num_coords: 8 keypoint_coord_offset: 4
        num_keypoints: 2 x_scale: 10 y_scale: 10 w_scale: 10 h_scale: 10
        )" + extra_options + R"(
      } }
    })";
}

Detections Decode(const std::string& options, std::vector<Tensor> tensors,
               bool with_anchor_side_packet = true) {
  auto run = RunGraph(Graph(options, with_anchor_side_packet),
                      {{"tensors", TensorsAt(std::move(tensors), 7)}}, {"dets"},
                      {{"anchors", MakePacket<std::vector<Anchor>>(Anchors())}});
  EXPECT_TRUE(run.status.ok()) << run.status;
  if (run.outputs.empty() || run.outputs[0].size() != 1) {
    ADD_FAILURE() << "expected one output packet";
    return {};
  }
  return run.outputs[0][0].Get<Detections>();
}

std::vector<Tensor> RawTensors(const std::vector<float>& logits = kLogits) {
  std::vector<Tensor> t;
  t.push_back(MakeTensor({1, 3, 8}, kRawBoxes));
  t.push_back(MakeTensor({1, 3, 2}, logits));
  return t;
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST(TensorsToDetectionsCalculatorTest, DecodesXywhBoxesKeypointsAndScores) {
  Detections out = Decode("reverse_output_order: true sigmoid_score: true min_score_thresh: 0.5",
                       RawTensors());
  ASSERT_EQ(out.size(), 2u);
  const auto& b0 = out[0].location_data().relative_bounding_box();
  EXPECT_EQ(out[0].location_data().format(), mediapipe::LocationData::RELATIVE_BOUNDING_BOX);
  EXPECT_NEAR(b0.xmin(), 0.2f, 1e-6);
  EXPECT_NEAR(b0.ymin(), 0.25f, 1e-6);
  EXPECT_NEAR(b0.width(), 0.3f, 1e-6);
  EXPECT_NEAR(b0.height(), 0.4f, 1e-6);
  EXPECT_EQ(out[0].label_id(0), 1);
  EXPECT_NEAR(out[0].score(0), Sigmoid(2), 1e-6);
  ASSERT_EQ(out[0].location_data().relative_keypoints_size(), 2);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).x(), 0.35f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).y(), 0.35f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(1).x(), 0.15f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(1).y(), 0.25f, 1e-6);
  const auto& b1 = out[1].location_data().relative_bounding_box();
  EXPECT_NEAR(b1.xmin(), 0.75f, 1e-6);
  EXPECT_NEAR(b1.ymin(), 0.6f, 1e-6);
  EXPECT_NEAR(b1.width(), 0.2f, 1e-6);
  EXPECT_NEAR(b1.height(), 0.1f, 1e-6);
  EXPECT_EQ(out[1].label_id(0), 0);
  EXPECT_NEAR(out[1].score(0), Sigmoid(3), 1e-6);
}

TEST(TensorsToDetectionsCalculatorTest, DefaultOrderIsYxhw) {
  Detections out = Decode("sigmoid_score: true", RawTensors());
  ASSERT_GE(out.size(), 1u);
  // Box 0 read as y=1 x=2 h=3 w=4: x 0.45, y 0.35, w 0.4, h 0.3.
  const auto& b0 = out[0].location_data().relative_bounding_box();
  EXPECT_NEAR(b0.xmin(), 0.25f, 1e-6);
  EXPECT_NEAR(b0.ymin(), 0.2f, 1e-6);
  EXPECT_NEAR(b0.width(), 0.4f, 1e-6);
  // Keypoints read as (y, x).
  EXPECT_NEAR(out[0].location_data().relative_keypoints(1).x(), 0.25f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(1).y(), 0.15f, 1e-6);
}

TEST(TensorsToDetectionsCalculatorTest, ScoreClippingThresholdAndClassFilters) {
  Detections out = Decode(
      "reverse_output_order: true sigmoid_score: true score_clipping_thresh: 1 "
      "min_score_thresh: 0.5",
      RawTensors());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].score(0), Sigmoid(1), 1e-6);
  EXPECT_NEAR(out[1].score(0), Sigmoid(1), 1e-6);
  // Class 1 ignored: box 0 falls back to class 0 (sigmoid(0) = 0.5 >= 0.5).
  out = Decode("reverse_output_order: true sigmoid_score: true min_score_thresh: 0.5 ignore_classes: 1",
            RawTensors());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].label_id(0), 0);
  EXPECT_FLOAT_EQ(out[0].score(0), 0.5f);
  // Only class 1 allowed: box 1 scores sigmoid(-1) < 0.5 and is dropped.
  out = Decode("reverse_output_order: true sigmoid_score: true min_score_thresh: 0.5 allow_classes: 1",
            RawTensors());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].label_id(0), 1);
}

TEST(TensorsToDetectionsCalculatorTest, MaxResultsAndFlip) {
  Detections out = Decode("reverse_output_order: true max_results: 1 flip_vertically: true",
                       RawTensors());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].location_data().relative_bounding_box().ymin(), 1.0f - 0.65f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).y(), 1.0f - 0.35f, 1e-6);
  // Raw scores without sigmoid.
  EXPECT_FLOAT_EQ(out[0].score(0), 2.0f);
}

TEST(TensorsToDetectionsCalculatorTest, ExponentialBoxSize) {
  Detections out = Decode("reverse_output_order: true apply_exponential_on_box_size: true",
                       RawTensors());
  ASSERT_GE(out.size(), 1u);
  EXPECT_NEAR(out[0].location_data().relative_bounding_box().width(), std::exp(0.3f), 1e-5);
}

TEST(TensorsToDetectionsCalculatorTest, AnchorsFromThirdTensor) {
  std::vector<Tensor> t = RawTensors();
  t.push_back(MakeTensor({3, 4}, {0.25f, 0.25f, 1, 1, 0.75f, 0.75f, 0.5f, 0.5f, 0.5f, 0.5f, 1, 1}));
  Detections out = Decode("reverse_output_order: true sigmoid_score: true min_score_thresh: 0.5",
                       std::move(t), /*with_anchor_side_packet=*/false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[1].location_data().relative_bounding_box().xmin(), 0.75f, 1e-6);
}

TEST(TensorsToDetectionsCalculatorTest, PostProcessedModelOutputs) {
  // 2 boxes (ymin, xmin, ymax, xmax), classes, scores, count; num_coords 4.
  std::vector<Tensor> t;
  t.push_back(MakeTensor({1, 2, 4}, {0.1f, 0.2f, 0.5f, 0.6f, 0.3f, 0.3f, 0.4f, 0.9f}));
  t.push_back(MakeTensor({1, 2}, {3, 7}));
  t.push_back(MakeTensor({1, 2}, {0.9f, 0.4f}));
  t.push_back(MakeTensor({1}, {2}));
  auto run = RunGraph(R"(
      input_stream: "tensors" output_stream: "dets"
      node {
        calculator: "TensorsToDetectionsCalculator"
        input_stream: "TENSORS:tensors" output_stream: "DETECTIONS:dets"
        options: { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
          num_classes: 10 num_coords: 4 min_score_thresh: 0.5 } }
      })",
                      {{"tensors", TensorsAt(std::move(t), 1)}}, {"dets"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& out = run.outputs[0][0].Get<Detections>();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].label_id(0), 3);
  const auto& b = out[0].location_data().relative_bounding_box();
  EXPECT_FLOAT_EQ(b.xmin(), 0.2f);
  EXPECT_FLOAT_EQ(b.ymin(), 0.1f);
  EXPECT_FLOAT_EQ(b.width(), 0.4f);
  EXPECT_FLOAT_EQ(b.height(), 0.4f);
}

TEST(TensorsToDetectionsCalculatorTest, RejectsBadShapesAndOptions) {
  std::vector<Tensor> bad;
  bad.push_back(MakeTensor({1, 2, 8}, std::vector<float>(16)));
  bad.push_back(MakeTensor({1, 3, 2}, kLogits));
  auto run = RunGraph(Graph(""), {{"tensors", TensorsAt(std::move(bad), 1)}}, {"dets"},
                      {{"anchors", MakePacket<std::vector<Anchor>>(Anchors())}});
  ASSERT_FALSE(run.status.ok());
  EXPECT_NE(std::string(run.status.message()).find("box tensor"), std::string::npos)
      << run.status;
  // max_results 0 is invalid.
  auto opts = RunGraph(Graph("max_results: 0"), {{"tensors", TensorsAt(RawTensors(), 1)}},
                       {"dets"}, {{"anchors", MakePacket<std::vector<Anchor>>(Anchors())}});
  EXPECT_FALSE(opts.status.ok());
  // No anchors at all.
  auto none = RunGraph(Graph("", false), {{"tensors", TensorsAt(RawTensors(), 1)}}, {"dets"});
  EXPECT_FALSE(none.status.ok());
}

}  // namespace
}  // namespace sluice
