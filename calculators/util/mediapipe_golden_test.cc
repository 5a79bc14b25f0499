// Cross-implementation check: random inputs run through MediaPipe's own
// calculators (pip package, see testdata/generate_mediapipe_goldens.py) and
// through ours, in the same graph shapes (palm ROI chain with three NMS
// variants, hand landmark ROI chain, rect association). Values must agree to
// 1e-5 (libm differences in atan2/cos/sin only).
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;

constexpr float kTolerance = 1e-5f;

// One block of the golden file: key -> lines of values, in order.
using Block = std::map<std::string, std::vector<std::string>>;

std::vector<Block> ReadGoldens() {
  const char* src = std::getenv("SLUICE_SOURCE_DIR");
  const std::string path = std::string(src != nullptr ? src : ".") +
                           "/calculators/util/testdata/mediapipe_goldens.txt";
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
    current[line.substr(0, space)].push_back(space == std::string::npos ? "" : line.substr(space + 1));
  }
  return blocks;
}

template <typename T>
std::vector<T> Parse(const Block& b, const std::string& key) {
  std::vector<T> out;
  auto it = b.find(key);
  if (it == b.end()) return out;
  for (const std::string& text : it->second) {
    T msg;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &msg)) << text;
    out.push_back(msg);
  }
  return out;
}

std::pair<int, int> Size(const Block& b) {
  std::istringstream s(b.at("size")[0]);
  int w = 0, h = 0;
  s >> w >> h;
  return {w, h};
}

void ExpectSameDetections(const std::vector<Detection>& got, const std::vector<Detection>& want,
                          const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& g = got[i].location_data();
    const auto& w = want[i].location_data();
    EXPECT_NEAR(got[i].score(0), want[i].score(0), kTolerance) << what << " #" << i;
    EXPECT_NEAR(g.relative_bounding_box().xmin(), w.relative_bounding_box().xmin(), kTolerance)
        << what << " #" << i;
    EXPECT_NEAR(g.relative_bounding_box().ymin(), w.relative_bounding_box().ymin(), kTolerance);
    EXPECT_NEAR(g.relative_bounding_box().width(), w.relative_bounding_box().width(), kTolerance);
    EXPECT_NEAR(g.relative_bounding_box().height(), w.relative_bounding_box().height(),
                kTolerance);
    ASSERT_EQ(g.relative_keypoints_size(), w.relative_keypoints_size());
    for (int k = 0; k < g.relative_keypoints_size(); ++k) {
      EXPECT_NEAR(g.relative_keypoints(k).x(), w.relative_keypoints(k).x(), kTolerance);
      EXPECT_NEAR(g.relative_keypoints(k).y(), w.relative_keypoints(k).y(), kTolerance);
    }
  }
}

void ExpectSameRect(const NormalizedRect& g, const NormalizedRect& w, const std::string& what) {
  EXPECT_NEAR(g.x_center(), w.x_center(), kTolerance) << what;
  EXPECT_NEAR(g.y_center(), w.y_center(), kTolerance) << what;
  EXPECT_NEAR(g.width(), w.width(), kTolerance) << what;
  EXPECT_NEAR(g.height(), w.height(), kTolerance) << what;
  EXPECT_NEAR(g.rotation(), w.rotation(), kTolerance) << what;
}

void ExpectSameRects(const std::vector<NormalizedRect>& got,
                     const std::vector<NormalizedRect>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ExpectSameRect(got[i], want[i], what);
}

template <typename T>
std::vector<T> VectorOrEmpty(const std::vector<Packet>& packets) {
  return packets.empty() ? std::vector<T>() : packets[0].Get<std::vector<T>>();
}

constexpr char kPalmGraph[] = R"(
  input_stream: "dets" input_stream: "size"
  node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_weighted"
    options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
      min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION algorithm: WEIGHTED } } }
  node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_default"
    options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
      min_suppression_threshold: 0.2 overlap_type: JACCARD max_num_detections: 4 } } }
  node { calculator: "NonMaxSuppressionCalculator" input_stream: "dets" output_stream: "nms_modified"
    options { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
      min_suppression_threshold: 0.5 overlap_type: MODIFIED_JACCARD algorithm: WEIGHTED } } }
  node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTIONS:nms_weighted"
    input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECTS:roi_raw"
    options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
      rotation_vector_start_keypoint_index: 0 rotation_vector_end_keypoint_index: 2
      rotation_vector_target_angle_degrees: 90 } } }
  node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECTS:roi_raw"
    input_stream: "IMAGE_SIZE:size" output_stream: "roi"
    options { [mediapipe.RectTransformationCalculatorOptions.ext] {
      scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true } } }
)";

constexpr char kHandGraph[] = R"(
  input_stream: "lms" input_stream: "size"
  node { calculator: "SplitNormalizedLandmarkListCalculator" input_stream: "lms"
    output_stream: "partial"
    options { [mediapipe.SplitVectorCalculatorOptions.ext] {
      ranges: { begin: 0 end: 4 } ranges: { begin: 5 end: 7 } ranges: { begin: 9 end: 11 }
      ranges: { begin: 13 end: 15 } ranges: { begin: 17 end: 19 } combine_outputs: true } } }
  node { calculator: "HandLandmarksToRectCalculator" input_stream: "NORM_LANDMARKS:partial"
    input_stream: "IMAGE_SIZE:size" output_stream: "NORM_RECT:hand_rect" }
  node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:hand_rect"
    input_stream: "IMAGE_SIZE:size" output_stream: "hand_roi"
    options { [mediapipe.RectTransformationCalculatorOptions.ext] {
      scale_x: 2.0 scale_y: 2.0 shift_y: -0.1 square_long: true } } }
  node { calculator: "LandmarkProjectionCalculator" input_stream: "NORM_LANDMARKS:lms"
    input_stream: "NORM_RECT:hand_roi" output_stream: "NORM_LANDMARKS:projected" }
)";

constexpr char kAssocGraph[] = R"(
  input_stream: "a" input_stream: "b"
  node { calculator: "AssociationNormRectCalculator" input_stream: "a" input_stream: "b"
    output_stream: "assoc"
    options { [mediapipe.AssociationCalculatorOptions.ext] { min_similarity_threshold: 0.5 } } }
)";

TEST(MediaPipeGoldenTest, OutputsMatchMediaPipe) {
  const std::vector<Block> blocks = ReadGoldens();
  ASSERT_GE(blocks.size(), 60u);
  int palm = 0, hand = 0, assoc = 0;
  for (size_t n = 0; n < blocks.size(); ++n) {
    const Block& b = blocks[n];
    const std::string chain = b.at("chain")[0];
    const std::string where = "block " + std::to_string(n) + " (" + chain + ")";
    if (chain == "palm") {
      ++palm;
      auto run = RunGraph(kPalmGraph,
                          {{"dets", At(Parse<Detection>(b, "det"), 1)}, {"size", At(Size(b), 1)}},
                          {"nms_weighted", "nms_default", "nms_modified", "roi_raw", "roi"});
      ASSERT_TRUE(run.status.ok()) << where << ": " << run.status;
      ExpectSameDetections(VectorOrEmpty<Detection>(run.outputs[0]),
                           Parse<Detection>(b, "nms_weighted"), where + " nms_weighted");
      ExpectSameDetections(VectorOrEmpty<Detection>(run.outputs[1]),
                           Parse<Detection>(b, "nms_default"), where + " nms_default");
      ExpectSameDetections(VectorOrEmpty<Detection>(run.outputs[2]),
                           Parse<Detection>(b, "nms_modified"), where + " nms_modified");
      ExpectSameRects(VectorOrEmpty<NormalizedRect>(run.outputs[3]),
                      Parse<NormalizedRect>(b, "roi_raw"), where + " roi_raw");
      ExpectSameRects(VectorOrEmpty<NormalizedRect>(run.outputs[4]),
                      Parse<NormalizedRect>(b, "roi"), where + " roi");
    } else if (chain == "hand") {
      ++hand;
      auto run = RunGraph(
          kHandGraph,
          {{"lms", At(Parse<NormalizedLandmarkList>(b, "lms")[0], 1)}, {"size", At(Size(b), 1)}},
          {"hand_rect", "hand_roi", "projected"});
      ASSERT_TRUE(run.status.ok()) << where << ": " << run.status;
      ASSERT_EQ(run.outputs[0].size(), 1u) << where;
      ExpectSameRect(run.outputs[0][0].Get<NormalizedRect>(),
                     Parse<NormalizedRect>(b, "hand_rect")[0], where + " hand_rect");
      ExpectSameRect(run.outputs[1][0].Get<NormalizedRect>(),
                     Parse<NormalizedRect>(b, "hand_roi")[0], where + " hand_roi");
      const auto& got = run.outputs[2][0].Get<NormalizedLandmarkList>();
      const auto want = Parse<NormalizedLandmarkList>(b, "projected")[0];
      ASSERT_EQ(got.landmark_size(), want.landmark_size()) << where;
      for (int i = 0; i < got.landmark_size(); ++i) {
        EXPECT_NEAR(got.landmark(i).x(), want.landmark(i).x(), kTolerance) << where;
        EXPECT_NEAR(got.landmark(i).y(), want.landmark(i).y(), kTolerance) << where;
        EXPECT_NEAR(got.landmark(i).z(), want.landmark(i).z(), kTolerance) << where;
      }
    } else if (chain == "assoc") {
      ++assoc;
      auto run = RunGraph(kAssocGraph,
                          {{"a", At(Parse<NormalizedRect>(b, "rect_a"), 1)},
                           {"b", At(Parse<NormalizedRect>(b, "rect_b"), 1)}},
                          {"assoc"});
      ASSERT_TRUE(run.status.ok()) << where << ": " << run.status;
      ExpectSameRects(VectorOrEmpty<NormalizedRect>(run.outputs[0]),
                      Parse<NormalizedRect>(b, "assoc"), where + " assoc");
    }
  }
  EXPECT_EQ(palm, 25);
  EXPECT_EQ(hand, 25);
  EXPECT_EQ(assoc, 15);
}

}  // namespace
}  // namespace sluice
