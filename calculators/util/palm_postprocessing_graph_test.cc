// MediaPipe's palm detection post-processing and palm -> hand ROI chain, as
// one graph: SsdAnchors -> TensorsToDetections -> NonMaxSuppression ->
// DetectionLetterboxRemoval -> DetectionsToRects -> RectTransformation, with
// the options of palm_detection_cpu.pbtxt and palm_detection_detection_to_roi.pbtxt.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;

constexpr char kGraph[] = R"(
  input_stream: "detection_tensors"
  input_stream: "letterbox_padding"
  input_stream: "image_size"
  node {
    calculator: "SsdAnchorsCalculator"
    output_side_packet: "anchors"
    options: { [mediapipe.SsdAnchorsCalculatorOptions.ext] {
      num_layers: 4 min_scale: 0.1484375 max_scale: 0.75
      input_size_width: 192 input_size_height: 192
      anchor_offset_x: 0.5 anchor_offset_y: 0.5
      strides: 8 strides: 16 strides: 16 strides: 16
      aspect_ratios: 1.0 fixed_anchor_size: true } }
  }
  node {
    calculator: "TensorsToDetectionsCalculator"
    input_stream: "TENSORS:detection_tensors"
    input_side_packet: "ANCHORS:anchors"
    output_stream: "DETECTIONS:unfiltered_detections"
    options: { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
      num_classes: 1 num_boxes: 2016 num_coords: 18 box_coord_offset: 0
      keypoint_coord_offset: 4 num_keypoints: 7 num_values_per_keypoint: 2
      sigmoid_score: true score_clipping_thresh: 100.0 reverse_output_order: true
      x_scale: 192.0 y_scale: 192.0 h_scale: 192.0 w_scale: 192.0
      min_score_thresh: 0.5 } }
  }
  node {
    calculator: "NonMaxSuppressionCalculator"
    input_stream: "unfiltered_detections"
    output_stream: "filtered_detections"
    options: { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
      min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION
      algorithm: WEIGHTED } }
  }
  node {
    calculator: "DetectionLetterboxRemovalCalculator"
    input_stream: "DETECTIONS:filtered_detections"
    input_stream: "LETTERBOX_PADDING:letterbox_padding"
    output_stream: "DETECTIONS:detections"
  }
  node {
    calculator: "DetectionsToRectsCalculator"
    input_stream: "DETECTIONS:detections"
    input_stream: "IMAGE_SIZE:image_size"
    output_stream: "NORM_RECTS:raw_rois"
    options: { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
      rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 2
      rotation_vector_target_angle_degrees: 90 } }
  }
  node {
    calculator: "RectTransformationCalculator"
    input_stream: "NORM_RECTS:raw_rois"
    input_stream: "IMAGE_SIZE:image_size"
    output_stream: "rois"
    options: { [mediapipe.RectTransformationCalculatorOptions.ext] {
      scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true } }
  }
)";

TEST(PalmPostprocessingGraphTest, OneConfidentPalmBecomesASquareHandRoi) {
  // Box 300 = 24x24 grid cell (6, 6), anchor centre (6.5/24, 6.5/24). Its
  // regressor: centred on the anchor, 48x48 tensor pixels (0.25), wrist
  // (keypoint 0) 24 px below and middle MCP (keypoint 2) 24 px above.
  std::vector<float> boxes(2016 * 18, 0.0f);
  std::vector<float> scores(2016, -10.0f);  // sigmoid(-10) < 0.5
  float* box = &boxes[300 * 18];
  box[2] = box[3] = 48;
  box[4 + 1] = 24;       // keypoint 0 y
  box[4 + 2 * 2 + 1] = -24;  // keypoint 2 y
  scores[300] = 3.0f;
  auto* tensors = new std::vector<Tensor>();
  tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2016, 18});
  tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2016, 1});
  {
    auto b = (*tensors)[0].GetCpuWriteView();
    std::copy(boxes.begin(), boxes.end(), b.buffer<float>());
    auto s = (*tensors)[1].GetCpuWriteView();
    std::copy(scores.begin(), scores.end(), s.buffer<float>());
  }
  // A 640x480 image letterboxed into the square tensor: 1/8 padding top and bottom.
  auto run = RunGraph(kGraph,
                      {{"detection_tensors", Adopt(tensors).At(Timestamp(33))},
                       {"letterbox_padding", At(std::array<float, 4>{0, 0.125f, 0, 0.125f}, 33)},
                       {"image_size", At(std::make_pair(640, 480), 33)}},
                      {"detections", "rois"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  const auto& dets = run.outputs[0][0].Get<std::vector<Detection>>();
  ASSERT_EQ(dets.size(), 1u);
  const float c = 6.5f / 24;
  EXPECT_NEAR(dets[0].score(0), 1.0f / (1.0f + std::exp(-3.0f)), 1e-6);
  const auto& bb = dets[0].location_data().relative_bounding_box();
  EXPECT_NEAR(bb.xmin(), c - 0.125f, 1e-6);
  EXPECT_NEAR(bb.ymin(), (c - 0.125f - 0.125f) / 0.75f, 1e-6);
  EXPECT_NEAR(bb.width(), 0.25f, 1e-6);
  EXPECT_NEAR(bb.height(), 0.25f / 0.75f, 1e-6);

  ASSERT_EQ(run.outputs[1].size(), 1u);
  const auto& rois = run.outputs[1][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rois.size(), 1u);
  // Upright palm: rotation 0, so shift_y moves up by half the box height (1/6).
  EXPECT_NEAR(rois[0].rotation(), 0.0f, 1e-6);
  EXPECT_NEAR(rois[0].x_center(), c, 1e-6);
  EXPECT_NEAR(rois[0].y_center(), (c - 0.125f) / 0.75f - 1.0f / 6, 1e-6);
  // 160x160 px box -> square 160 px, scaled by 2.6 = 416 px.
  EXPECT_NEAR(rois[0].width(), 416.0f / 640, 1e-5);
  EXPECT_NEAR(rois[0].height(), 416.0f / 480, 1e-5);
  EXPECT_EQ(run.outputs[1][0].Timestamp(), Timestamp(33));
}

TEST(PalmPostprocessingGraphTest, NoConfidentPalmGivesNoDetectionsAndNoRois) {
  auto* tensors = new std::vector<Tensor>();
  tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2016, 18});
  tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2016, 1});
  {
    auto s = (*tensors)[1].GetCpuWriteView();
    std::fill(s.buffer<float>(), s.buffer<float>() + 2016, -10.0f);
  }
  auto run = RunGraph(kGraph,
                      {{"detection_tensors", Adopt(tensors).At(Timestamp(1))},
                       {"letterbox_padding", At(std::array<float, 4>{0, 0, 0, 0}, 1)},
                       {"image_size", At(std::make_pair(192, 192), 1)}},
                      {"detections", "rois"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  // NMS emits nothing for an empty input (return_empty_detections unset), so
  // nothing flows downstream: "no palm" is the absence of packets.
  EXPECT_TRUE(run.outputs[0].empty());
  EXPECT_TRUE(run.outputs[1].empty());
}

}  // namespace
}  // namespace sluice
