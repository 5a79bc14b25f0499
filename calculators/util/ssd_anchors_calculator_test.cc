#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "formats/anchor.pb.h"
#include "framework/calculator_graph.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Anchor;

std::string SharedDir() {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return d != nullptr ? d : "../shared";
}

// Runs a graph with one SsdAnchorsCalculator configured by `options` and
// returns its anchors (or the run's error).
absl::StatusOr<std::vector<Anchor>> RunAnchors(const std::string& options) {
  const std::string text = R"(
    node {
      calculator: "SsdAnchorsCalculator"
      output_side_packet: "anchors"
      options: { [mediapipe.SsdAnchorsCalculatorOptions.ext] { )" +
                           options + R"( } }
    })";
  auto config = testing::ParseConfig(text);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  if (!s.ok()) return s;
  s = graph.Run();
  if (!s.ok()) return s;
  auto packet = graph.GetOutputSidePacket("anchors");
  if (!packet.ok()) return packet.status();
  return packet->Get<std::vector<Anchor>>();
}

std::vector<Anchor> ReadGolden(const std::string& name) {
  std::ifstream in(SharedDir() + "/testdata/anchors/" + name);
  EXPECT_TRUE(in.good()) << "cannot open golden file " << name;
  std::vector<Anchor> out;
  float x, y, w, h;
  while (in >> x >> y >> w >> h) {
    Anchor a;
    a.set_x_center(x);
    a.set_y_center(y);
    a.set_w(w);
    a.set_h(h);
    out.push_back(a);
  }
  return out;
}

void ExpectMatchesGolden(const std::vector<Anchor>& got, const std::string& golden_name) {
  const std::vector<Anchor> golden = ReadGolden(golden_name);
  ASSERT_FALSE(golden.empty());
  ASSERT_EQ(got.size(), golden.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].x_center(), golden[i].x_center(), 1e-5) << "anchor " << i;
    EXPECT_NEAR(got[i].y_center(), golden[i].y_center(), 1e-5) << "anchor " << i;
    EXPECT_NEAR(got[i].w(), golden[i].w(), 1e-5) << "anchor " << i;
    EXPECT_NEAR(got[i].h(), golden[i].h(), 1e-5) << "anchor " << i;
  }
}

TEST(SsdAnchorsCalculatorTest, FaceDetectionConfigMatchesGolden) {
  auto anchors = RunAnchors(R"(
      num_layers: 5 min_scale: 0.1171875 max_scale: 0.75
      input_size_height: 256 input_size_width: 256
      anchor_offset_x: 0.5 anchor_offset_y: 0.5
      strides: 8 strides: 16 strides: 32 strides: 32 strides: 32
      aspect_ratios: 1.0 fixed_anchor_size: true)");
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ExpectMatchesGolden(*anchors, "anchor_golden_file_0.txt");
}

TEST(SsdAnchorsCalculatorTest, MobileSsdConfigMatchesGolden) {
  auto anchors = RunAnchors(R"(
      num_layers: 6 min_scale: 0.2 max_scale: 0.95
      input_size_height: 300 input_size_width: 300
      anchor_offset_x: 0.5 anchor_offset_y: 0.5
      strides: 16 strides: 32 strides: 64 strides: 128 strides: 256 strides: 512
      aspect_ratios: 1.0 aspect_ratios: 2.0 aspect_ratios: 0.5
      aspect_ratios: 3.0 aspect_ratios: 0.3333
      reduce_boxes_in_lowest_layer: true)");
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ExpectMatchesGolden(*anchors, "anchor_golden_file_1.txt");
}

TEST(SsdAnchorsCalculatorTest, RetinaNetMultiscaleConfigMatchesGolden) {
  auto anchors = RunAnchors(R"(
      input_size_height: 640 input_size_width: 640
      strides: 64 strides: 128
      aspect_ratios: 1.0 aspect_ratios: 2.0 aspect_ratios: 0.5
      multiscale_anchor_generation: true min_level: 6 max_level: 7
      anchor_scale: 3.0 scales_per_octave: 3)");
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ExpectMatchesGolden(*anchors, "anchor_golden_file_2.txt");
}

TEST(SsdAnchorsCalculatorTest, PalmDetectionHas2016UnitAnchors) {
  auto anchors = RunAnchors(R"(
      num_layers: 4 min_scale: 0.1484375 max_scale: 0.75
      input_size_width: 192 input_size_height: 192
      anchor_offset_x: 0.5 anchor_offset_y: 0.5
      strides: 8 strides: 16 strides: 16 strides: 16
      aspect_ratios: 1.0 fixed_anchor_size: true)");
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ASSERT_EQ(anchors->size(), 2016u);  // 24*24*2 + 12*12*6
  // First cell of the 24x24 grid holds two anchors at its centre.
  EXPECT_FLOAT_EQ((*anchors)[0].x_center(), 0.5f / 24);
  EXPECT_FLOAT_EQ((*anchors)[1].y_center(), 0.5f / 24);
  // The 12x12 grid starts after 1152 anchors, six per cell.
  EXPECT_FLOAT_EQ((*anchors)[1152].x_center(), 0.5f / 12);
  EXPECT_FLOAT_EQ((*anchors)[1158].x_center(), 1.5f / 12);
  for (const Anchor& a : *anchors) {
    EXPECT_EQ(a.w(), 1.0f);
    EXPECT_EQ(a.h(), 1.0f);
  }
}

TEST(SsdAnchorsCalculatorTest, FixedAnchorsArePassedThrough) {
  auto anchors = RunAnchors(R"(
      fixed_anchors { x_center: 0.1 y_center: 0.2 w: 0.3 h: 0.4 }
      fixed_anchors { x_center: 0.5 y_center: 0.6 w: 0.7 h: 0.8 })");
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ASSERT_EQ(anchors->size(), 2u);
  EXPECT_FLOAT_EQ((*anchors)[1].h(), 0.8f);
}

TEST(SsdAnchorsCalculatorTest, RejectsMissingStridesAndMismatchedLayers) {
  EXPECT_FALSE(RunAnchors("num_layers: 2 input_size_width: 8 input_size_height: 8").ok());
  auto mismatch = RunAnchors(
      "num_layers: 3 input_size_width: 8 input_size_height: 8 strides: 8 strides: 16 "
      "aspect_ratios: 1.0");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(std::string(mismatch.status().message()).find("strides"), std::string::npos);
}

}  // namespace
}  // namespace sluice
