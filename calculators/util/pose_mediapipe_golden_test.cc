// Cross-implementation check of the pose calculators: inputs run through
// MediaPipe 0.10.21's own calculators (testdata/generate_pose_goldens.py) and
// through ours in the same graphs: PoseLandmarkFiltering's nodes (alignment
// ROI, visibility and one-euro smoothing of image/world/auxiliary landmarks,
// filters reset over a gap) plus a velocity filter; and the segmentation path
// ImageToTensor MATRIX -> InverseMatrix -> WarpAffine.
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using testing::RunGraph;

// Normalized coordinates; world landmarks are metres (same order of size).
constexpr float kTolerance = 2e-5f;

struct Line {
  std::string key, value;
};
using Block = std::vector<Line>;

std::vector<Block> ReadBlocks() {
  const char* src = std::getenv("SLUICE_SOURCE_DIR");
  const std::string path =
      std::string(src != nullptr ? src : ".") + "/calculators/util/testdata/pose_goldens.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<Block> blocks;
  Block current;
  std::string line;
  while (std::getline(in, line)) {
    if (line == "end") {
      blocks.push_back(std::move(current));
      current.clear();
      continue;
    }
    const size_t space = line.find(' ');
    current.push_back({line.substr(0, space),
                       space == std::string::npos ? "" : line.substr(space + 1)});
  }
  return blocks;
}

template <typename T>
T ParseProto(const std::string& text) {
  T msg;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &msg)) << text;
  return msg;
}

std::string Chain(const Block& b) { return b.empty() ? "" : b[0].value; }

std::pair<int, int> SizeOf(const Block& b) {
  for (const Line& l : b) {
    if (l.key == "size") {
      std::istringstream s(l.value);
      int w = 0, h = 0;
      s >> w >> h;
      return {w, h};
    }
  }
  return {0, 0};
}

Packet BlankImage(std::pair<int, int> size, int64_t ts) {
  return MakePacket<ImageFrame>(*ImageFrame::Create(ImageFormat::SRGB, size.first, size.second))
      .At(Timestamp(ts));
}

template <typename List>
void ExpectSameLandmarks(const List& got, const List& want, const std::string& what) {
  ASSERT_EQ(got.landmark_size(), want.landmark_size()) << what;
  for (int i = 0; i < got.landmark_size(); ++i) {
    const auto& g = got.landmark(i);
    const auto& w = want.landmark(i);
    EXPECT_NEAR(g.x(), w.x(), kTolerance) << what << " landmark " << i;
    EXPECT_NEAR(g.y(), w.y(), kTolerance) << what << " landmark " << i;
    EXPECT_NEAR(g.z(), w.z(), kTolerance) << what << " landmark " << i;
    EXPECT_NEAR(g.visibility(), w.visibility(), kTolerance) << what << " landmark " << i;
    EXPECT_EQ(g.has_presence(), w.has_presence()) << what << " landmark " << i;
    EXPECT_NEAR(g.presence(), w.presence(), kTolerance) << what << " landmark " << i;
  }
}

constexpr char kSmoothingGraph[] = R"(
  input_stream: "image" input_stream: "lms" input_stream: "aux" input_stream: "world"
  node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
  node { calculator: "LandmarksToDetectionCalculator" input_stream: "NORM_LANDMARKS:aux"
    output_stream: "DETECTION:aux_detection" }
  node { calculator: "AlignmentPointsRectsCalculator" input_stream: "DETECTION:aux_detection"
    input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECT:roi"
    options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
      rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 1
      rotation_vector_target_angle_degrees: 90 } } }
  node { calculator: "VisibilitySmoothingCalculator" input_stream: "NORM_LANDMARKS:lms"
    output_stream: "NORM_FILTERED_LANDMARKS:vis"
    options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
  node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:vis"
    input_stream: "IMAGE_SIZE:size" input_stream: "OBJECT_SCALE_ROI:roi"
    output_stream: "NORM_FILTERED_LANDMARKS:filtered"
    options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
      one_euro_filter { min_cutoff: 0.05 beta: 80.0 derivate_cutoff: 1.0 } } } }
  node { calculator: "VisibilitySmoothingCalculator" input_stream: "LANDMARKS:world"
    output_stream: "FILTERED_LANDMARKS:world_vis"
    options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
  node { calculator: "LandmarksSmoothingCalculator" input_stream: "LANDMARKS:world_vis"
    output_stream: "FILTERED_LANDMARKS:world_filtered"
    options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
      one_euro_filter { min_cutoff: 0.1 beta: 40.0 derivate_cutoff: 1.0 disable_value_scaling: true } } } }
  node { calculator: "VisibilitySmoothingCalculator" input_stream: "NORM_LANDMARKS:aux"
    output_stream: "NORM_FILTERED_LANDMARKS:aux_vis"
    options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
  node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:aux_vis"
    input_stream: "IMAGE_SIZE:size" input_stream: "OBJECT_SCALE_ROI:roi"
    output_stream: "NORM_FILTERED_LANDMARKS:aux_filtered"
    options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
      one_euro_filter { min_cutoff: 0.01 beta: 10.0 derivate_cutoff: 1.0 } } } }
  node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:lms"
    input_stream: "IMAGE_SIZE:size" output_stream: "NORM_FILTERED_LANDMARKS:velocity"
    options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
      velocity_filter { window_size: 5 velocity_scale: 10.0 } } } }
)";

const char* const kSmoothingOutputs[] = {"roi", "filtered", "world_filtered", "aux_filtered",
                                         "velocity"};

void CheckSmoothing(const Block& block, int index) {
  const auto size = SizeOf(block);
  std::vector<std::pair<std::string, Packet>> inputs;
  // Expected (timestamp, text) per output stream.
  std::map<std::string, std::vector<std::pair<int64_t, std::string>>> expected;
  int64_t ts = 0;
  for (const Line& l : block) {
    if (l.key == "frame") {
      ts = std::stoll(l.value);
      inputs.push_back({"image", BlankImage(size, ts)});
    } else if (l.key == "lms" || l.key == "aux") {
      inputs.push_back({l.key, testing::At(ParseProto<NormalizedLandmarkList>(l.value), ts)});
    } else if (l.key == "world") {
      inputs.push_back({l.key, testing::At(ParseProto<LandmarkList>(l.value), ts)});
    } else if (l.key != "chain" && l.key != "size") {
      expected[l.key].push_back({ts, l.value});
    }
  }
  std::vector<std::string> outputs(std::begin(kSmoothingOutputs), std::end(kSmoothingOutputs));
  std::string graph = kSmoothingGraph;
  for (const auto& o : outputs) graph += "output_stream: \"" + o + "\"\n";
  auto run = RunGraph(graph, inputs, outputs);
  ASSERT_TRUE(run.status.ok()) << run.status;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const auto& want = expected[outputs[o]];
    const auto& got = run.outputs[o];
    const std::string what = "block " + std::to_string(index) + " " + outputs[o];
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string at = what + " at " + std::to_string(want[i].first);
      EXPECT_EQ(got[i].Timestamp(), Timestamp(want[i].first)) << at;
      if (outputs[o] == "roi") {
        const auto w = ParseProto<NormalizedRect>(want[i].second);
        const auto& g = got[i].Get<NormalizedRect>();
        EXPECT_NEAR(g.x_center(), w.x_center(), kTolerance) << at;
        EXPECT_NEAR(g.y_center(), w.y_center(), kTolerance) << at;
        EXPECT_NEAR(g.width(), w.width(), kTolerance) << at;
        EXPECT_NEAR(g.height(), w.height(), kTolerance) << at;
        EXPECT_NEAR(g.rotation(), w.rotation(), kTolerance) << at;
      } else if (outputs[o] == "world_filtered") {
        ExpectSameLandmarks(got[i].Get<LandmarkList>(), ParseProto<LandmarkList>(want[i].second),
                            at);
      } else {
        ExpectSameLandmarks(got[i].Get<NormalizedLandmarkList>(),
                            ParseProto<NormalizedLandmarkList>(want[i].second), at);
      }
    }
  }
}

std::vector<float> Floats(const std::string& text, int* w, int* h) {
  std::istringstream s(text);
  s >> *w >> *h;
  std::vector<float> v(static_cast<size_t>(*w) * *h);
  for (float& x : v) s >> x;
  return v;
}

void CheckWarp(const Block& block, int index) {
  const auto size = SizeOf(block);
  NormalizedRect roi;
  std::string border;
  std::vector<float> mask, want;
  int mw = 0, mh = 0, ww = 0, wh = 0;
  for (const Line& l : block) {
    if (l.key == "roi") roi = ParseProto<NormalizedRect>(l.value);
    if (l.key == "border") border = l.value;
    if (l.key == "mask") mask = Floats(l.value, &mw, &mh);
    if (l.key == "warped") want = Floats(l.value, &ww, &wh);
  }
  ASSERT_EQ(ww, size.first);
  ASSERT_EQ(wh, size.second);
  ImageFrame mask_frame = *ImageFrame::Create(ImageFormat::VEC32F1, mw, mh);
  for (int y = 0; y < mh; ++y) {
    float* row = reinterpret_cast<float*>(mask_frame.MutableRow(y));
    for (int x = 0; x < mw; ++x) row[x] = mask[y * mw + x];
  }
  const std::string graph = R"(
    input_stream: "image" input_stream: "roi" input_stream: "mask" output_stream: "warped"
    node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
    node { calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" input_stream: "NORM_RECT:roi"
      output_stream: "TENSORS:tensors" output_stream: "MATRIX:matrix"
      options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
        output_tensor_width: 16 output_tensor_height: 16 keep_aspect_ratio: true
        output_tensor_float_range { min: 0.0 max: 1.0 } } } }
    node { calculator: "InverseMatrixCalculator" input_stream: "MATRIX:matrix"
      output_stream: "MATRIX:inverse" }
    node { calculator: "WarpAffineCalculator" input_stream: "IMAGE:mask" input_stream: "MATRIX:inverse"
      input_stream: "OUTPUT_SIZE:size" output_stream: "IMAGE:warped"
      options { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: )" +
                            border + R"( gpu_origin: TOP_LEFT } } })";
  auto run = RunGraph(graph,
                      {{"image", BlankImage(size, 1)},
                       {"roi", testing::At(roi, 1)},
                       {"mask", MakePacket<Image>(Image(std::move(mask_frame))).At(Timestamp(1))}},
                      {"warped"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  auto frame = run.outputs[0][0].Get<Image>().CpuView();
  ASSERT_TRUE(frame.ok());
  ASSERT_EQ((*frame)->Width(), ww);
  ASSERT_EQ((*frame)->Height(), wh);
  int differing = 0;
  float worst = 0;
  for (int y = 0; y < wh; ++y) {
    const float* row = reinterpret_cast<const float*>((*frame)->Row(y));
    for (int x = 0; x < ww; ++x) {
      const float d = std::abs(row[x] - want[y * ww + x]);
      worst = std::max(worst, d);
      if (d > 1e-5f) ++differing;
    }
  }
  EXPECT_EQ(differing, 0) << "block " << index << ": worst difference " << worst;
}

TEST(PoseMediaPipeGoldenTest, SmoothingAndWarpMatchMediaPipe) {
  const auto blocks = ReadBlocks();
  ASSERT_GE(blocks.size(), 5u);
  int smoothing = 0, warp = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (Chain(blocks[i]) == "smoothing") {
      CheckSmoothing(blocks[i], i);
      ++smoothing;
    } else if (Chain(blocks[i]) == "warp") {
      CheckWarp(blocks[i], i);
      ++warp;
    }
  }
  EXPECT_EQ(smoothing, 2);
  EXPECT_EQ(warp, 3);
}

}  // namespace
}  // namespace sluice
