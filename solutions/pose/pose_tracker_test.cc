// PoseTracker on real photos. Expected landmarks come from Google's MediaPipe
// (../shared/reference/cpu_inference/pose_*.json: Google's official web build,
// TFLite on the CPU, static mode, no smoothing, on the same RGB pixels in
// ../shared/reference/inputs). The comparison against Google's Python package
// (mediapipe 0.10.21, the oracle) is the conformance test in tests/pose/.
#include "solutions/pose/pose_tracker.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/image_io.h"
#include "util/scoped_env.h"

namespace sluice {
namespace {

std::string SharedDir() {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return env != nullptr && *env ? env : "../shared";
}

ImageFrame LoadRgb(const std::string& name) {
  absl::StatusOr<ImageFrame> image = ReadImageFile(SharedDir() + "/reference/inputs/" + name);
  EXPECT_TRUE(image.ok()) << image.status();
  return image.ok() ? std::move(*image) : ImageFrame();
}

struct Point {
  double x = 0, y = 0;
};

// The "poseLandmarks" x / y of a reference file (empty when it found no
// pose). The files are machine-written JSON; a small scan is enough.
std::vector<Point> ReferenceLandmarks(const std::string& file) {
  std::ifstream in(SharedDir() + "/reference/cpu_inference/" + file);
  EXPECT_TRUE(in.good()) << "cannot read reference " << file;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<Point> points;
  size_t pos = text.find("\"poseLandmarks\"");
  if (pos == std::string::npos) return points;
  const size_t end = text.find(']', pos);
  auto number_after = [&text](const char* key, size_t from) {
    const size_t at = text.find(key, from);
    return at == std::string::npos ? 0.0 : std::strtod(text.c_str() + at + std::strlen(key), nullptr);
  };
  for (size_t at = text.find('{', pos); at != std::string::npos && at < end;
       at = text.find('{', at + 1)) {
    points.push_back({number_after("\"x\":", at), number_after("\"y\":", at)});
  }
  return points;
}

// Mean and max distance between landmark lists, in image-normalized units.
struct Distance {
  double mean = 0, max = 0;
};
Distance Compare(const mediapipe::NormalizedLandmarkList& ours, const std::vector<Point>& theirs) {
  Distance d;
  const int n = std::min<int>(ours.landmark_size(), static_cast<int>(theirs.size()));
  for (int i = 0; i < n; ++i) {
    const double e = std::hypot(ours.landmark(i).x() - theirs[i].x, ours.landmark(i).y() - theirs[i].y);
    d.mean += e / n;
    d.max = std::max(d.max, e);
  }
  return d;
}
Distance Compare(const mediapipe::NormalizedLandmarkList& a, const mediapipe::NormalizedLandmarkList& b) {
  std::vector<Point> points;
  for (const auto& l : b.landmark()) points.push_back({l.x(), l.y()});
  return Compare(a, points);
}

struct Case {
  const char* image;  // stem of reference/inputs/<image>.png
  int complexity;
};

class PoseTrackerReferenceTest : public ::testing::TestWithParam<Case> {};

// Google's web build (pose 0.5) and its Python package (0.10.21) do not agree
// on every photo: on sergey, lenna, call_044768ad, rock_026fd791 and
// none_00b85ea4 (c0, c1) they differ by 1.5-8% of the image size on average,
// so neither can be held to 1% of the other there. These cases are those
// where the two Google builds agree within 0.75% (mean), which makes the web
// build's output a fair yardstick for a 1% mean (single landmarks: 4%; the
// two builds differ by up to 3.3%). Against the Python package (0.10.21) we
// match to float precision (below: *MatchesMediaPipePackage; tests/pose/ holds
// the full comparison).
TEST_P(PoseTrackerReferenceTest, StaticImageMatchesGoogle) {
  const Case& c = GetParam();
  const std::vector<Point> expected =
      ReferenceLandmarks(std::string("pose_") + c.image + "_c" + std::to_string(c.complexity) + ".json");
  ASSERT_EQ(expected.size(), static_cast<size_t>(kNumPoseLandmarks));
  PoseTrackerOptions options;
  options.static_image_mode = true;
  options.model_complexity = c.complexity;
  auto tracker = PoseTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  ImageFrame image = LoadRgb(std::string(c.image) + ".png");
  ASSERT_FALSE(image.IsEmpty());
  auto result = (*tracker)->Process(image, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->width, image.Width());
  EXPECT_EQ(result->height, image.Height());
  ASSERT_TRUE(result->detected);
  ASSERT_EQ(result->landmarks.landmark_size(), kNumPoseLandmarks);
  ASSERT_EQ(result->world_landmarks.landmark_size(), kNumPoseLandmarks);
  const Distance d = Compare(result->landmarks, expected);
  EXPECT_LT(d.mean, 0.01) << "max " << d.max;
  EXPECT_LT(d.max, 0.04);
  // Visibility and presence are probabilities, copied onto the world landmarks.
  for (int i = 0; i < kNumPoseLandmarks; ++i) {
    const auto& l = result->landmarks.landmark(i);
    ASSERT_TRUE(l.has_visibility() && l.has_presence()) << i;
    EXPECT_GE(l.visibility(), 0.0f);
    EXPECT_LE(l.visibility(), 1.0f);
    EXPECT_FLOAT_EQ(result->world_landmarks.landmark(i).visibility(), l.visibility()) << i;
    EXPECT_FLOAT_EQ(result->world_landmarks.landmark(i).presence(), l.presence()) << i;
  }
  // The nose is visible on every one of these photos.
  EXPECT_GT(result->landmarks.landmark(kPoseNose).visibility(), 0.9f);
  // World landmarks: metres around the hips; the nose is above them.
  EXPECT_LT(result->world_landmarks.landmark(kPoseNose).y(), -0.2f);
  // Static mode: the detector ran and gave this frame's crop.
  ASSERT_TRUE(result->pose_detection.has_value());
  EXPECT_EQ(result->pose_detection->location_data().relative_keypoints_size(), 4);
  ASSERT_TRUE(result->rect_from_detection.has_value());
  ASSERT_TRUE(result->rect_from_landmarks.has_value());
  EXPECT_GT(result->rect_from_landmarks->width(), 0.0f);
  EXPECT_EQ(result->segmentation_mask, nullptr);  // not asked for
  ASSERT_TRUE((*tracker)->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(Photos, PoseTrackerReferenceTest,
                         ::testing::Values(Case{"call_0413d5c5", 1}, Case{"four_06aa70cc", 1},
                                           Case{"four_06aa70cc", 2}, Case{"four_077fa4bf", 0},
                                           Case{"four_077fa4bf", 2}, Case{"none_00af1db1", 1},
                                           Case{"rock_055f8be9", 0}, Case{"rock_055f8be9", 2}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.image) + "_c" +
                                  std::to_string(info.param.complexity);
                         });

// Google's mediapipe==0.10.21 on the same RGB bytes (the Python package's
// graph, CPU), written by testdata/make_mediapipe_goldens.py: landmarks per
// case and frame. Issue 9 found three causes of 0.02-15% differences, all fixed:
// the heatmap refinement window (Google runs 9, not the 7 its graph file
// names), the crop's sampling map (MediaPipe's corner-based OpenCV map) and the
// letterbox removal's rounding (1 - (l + r)). What remains is float output
// formatting: the same model on the same bytes gives the same floats.
struct GoldenLandmark {
  double x, y, z, visibility, presence, wx, wy, wz;
};
using GoldenFrames = std::vector<std::vector<GoldenLandmark>>;

std::map<std::string, GoldenFrames> MediaPipeGoldens() {
  const char* src = std::getenv("SLUICE_SOURCE_DIR");
  const std::string path = std::string(src != nullptr && *src ? src : ".") +
                           "/solutions/pose/testdata/mediapipe_0_10_21_pose.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::map<std::string, GoldenFrames> goldens;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    size_t frame = 0, index = 0;
    GoldenLandmark l{};
    fields >> name >> frame >> index >> l.x >> l.y >> l.z >> l.visibility >> l.presence >> l.wx >>
        l.wy >> l.wz;
    EXPECT_FALSE(fields.fail()) << "bad golden line: " << line;
    GoldenFrames& frames = goldens[name];
    if (frames.size() <= frame) frames.resize(frame + 1);
    EXPECT_EQ(frames[frame].size(), index) << line;
    frames[frame].push_back(l);
  }
  return goldens;
}

// Every landmark within `tolerance` (normalized x / y, z, visibility,
// presence; world landmarks in metres) of Google's.
void ExpectMatchesGolden(const PoseTrackingResult& r, const std::vector<GoldenLandmark>& golden,
                         double tolerance) {
  ASSERT_TRUE(r.detected);
  ASSERT_EQ(r.landmarks.landmark_size(), static_cast<int>(golden.size()));
  ASSERT_EQ(r.world_landmarks.landmark_size(), static_cast<int>(golden.size()));
  double worst = 0;
  for (size_t i = 0; i < golden.size(); ++i) {
    const auto& l = r.landmarks.landmark(i);
    const auto& w = r.world_landmarks.landmark(i);
    const GoldenLandmark& g = golden[i];
    for (double d : {l.x() - g.x, l.y() - g.y, l.z() - g.z, l.visibility() - g.visibility,
                     l.presence() - g.presence, w.x() - g.wx, w.y() - g.wy, w.z() - g.wz}) {
      worst = std::max(worst, std::abs(d));
    }
  }
  EXPECT_LE(worst, tolerance);
}

// Formatting of the goldens (%.9g) and nothing else: 1e-5 is 0.001% of the
// image, where the three fixed causes gave 1e-3 to 0.15.
constexpr double kGoldenTolerance = 1e-5;

TEST(PoseTrackerTest, StaticImagesMatchMediaPipePackage) {
  const std::map<std::string, GoldenFrames> goldens = MediaPipeGoldens();
  // call: the heatmap window; lenna and rock: large crops reaching far past
  // the image (the sampling map); four: the heavy model.
  for (const auto& [complexity, name] : std::vector<std::pair<int, std::string>>{
           {1, "call_0413d5c5"}, {1, "lenna"}, {0, "rock_026fd791"}, {2, "four_06aa70cc"}}) {
    const std::string key = "static_c" + std::to_string(complexity) + "_" + name;
    SCOPED_TRACE(key);
    auto golden = goldens.find(key);
    ASSERT_NE(golden, goldens.end());
    ASSERT_EQ(golden->second.size(), 1u);
    PoseTrackerOptions options;
    options.static_image_mode = true;
    options.model_complexity = complexity;
    auto tracker = PoseTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    auto result = (*tracker)->Process(LoadRgb(name + ".png"), 33333);
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectMatchesGolden(*result, golden->second[0], kGoldenTolerance);
  }
}

// Tracking with smoothing on a panning crop: each frame's crop comes from the
// previous frame's landmarks, so any rounding difference would grow from
// frame to frame (it did, from a 1-ulp letterbox difference to 0.7%).
TEST(PoseTrackerTest, TrackingMatchesMediaPipePackage) {
  const std::map<std::string, GoldenFrames> goldens = MediaPipeGoldens();
  auto golden = goldens.find("tracking_c1_pan");
  ASSERT_NE(golden, goldens.end());
  ASSERT_EQ(golden->second.size(), 12u);
  const ImageFrame still = LoadRgb("four_077fa4bf.png");
  ASSERT_FALSE(still.IsEmpty());
  auto tracker = PoseTracker::Create(PoseTrackerOptions());
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  constexpr int kWidth = 320, kHeight = 448;
  for (int k = 0; k < 12; ++k) {
    SCOPED_TRACE(k);
    auto crop = ImageFrame::Create(ImageFormat::SRGB, kWidth, kHeight);
    ASSERT_TRUE(crop.ok());
    for (int row = 0; row < kHeight; ++row) {
      std::memcpy(crop->MutablePixelData() + row * crop->WidthStep(),
                  still.PixelData() + (3 * k + row) * still.WidthStep() + 2 * k * 3, kWidth * 3);
    }
    // SolutionBase's timestamps, as in the goldens.
    auto result = (*tracker)->Process(*crop, 33333LL * (k + 1));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->pose_detection.has_value(), k == 0);
    ExpectMatchesGolden(*result, golden->second[k], kGoldenTolerance);
  }
}

// Google's runtime does not blend the tracked mask with the previous one (its
// masks are the same with smooth_segmentation on or off; issue 9), and
// neither do we, so that masks match its own.
TEST(PoseTrackerTest, MaskSmoothingKeepsTheMaskLikeMediaPipe) {
  const ImageFrame still = LoadRgb("four_077fa4bf.png");
  ASSERT_FALSE(still.IsEmpty());
  std::vector<std::shared_ptr<const ImageFrame>> masks[2];
  for (bool smooth : {false, true}) {
    PoseTrackerOptions options;
    options.enable_segmentation = true;
    options.smooth_segmentation = smooth;
    auto tracker = PoseTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    for (int k = 0; k < 3; ++k) {
      auto crop = ImageFrame::Create(ImageFormat::SRGB, 320, 448);
      ASSERT_TRUE(crop.ok());
      for (int row = 0; row < 448; ++row) {
        std::memcpy(crop->MutablePixelData() + row * crop->WidthStep(),
                    still.PixelData() + (3 * k + row) * still.WidthStep() + 2 * k * 3, 320 * 3);
      }
      auto result = (*tracker)->Process(*crop, 33333LL * (k + 1));
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_NE(result->segmentation_mask, nullptr);
      masks[smooth].push_back(result->segmentation_mask);
    }
  }
  for (int k = 0; k < 3; ++k) {
    const ImageFrame& a = *masks[0][k];
    const ImageFrame& b = *masks[1][k];
    ASSERT_EQ(a.Width(), b.Width());
    ASSERT_EQ(a.Height(), b.Height());
    for (int row = 0; row < a.Height(); ++row) {
      ASSERT_EQ(std::memcmp(a.PixelData() + row * a.WidthStep(), b.PixelData() + row * b.WidthStep(),
                            a.Width() * sizeof(float)),
                0)
          << "frame " << k << " row " << row;
    }
  }
}

TEST(PoseTrackerTest, NoPersonGivesEmptyResult) {
  PoseTrackerOptions options;
  options.static_image_mode = true;
  options.enable_segmentation = true;
  auto tracker = PoseTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  auto gray = ImageFrame::Create(ImageFormat::SRGB, 320, 240);
  ASSERT_TRUE(gray.ok());
  std::memset(gray->MutablePixelData(), 128, gray->Height() * gray->WidthStep());
  auto result = (*tracker)->Process(*gray, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->detected);
  EXPECT_EQ(result->landmarks.landmark_size(), 0);
  EXPECT_EQ(result->world_landmarks.landmark_size(), 0);
  EXPECT_EQ(result->segmentation_mask, nullptr);
  EXPECT_FALSE(result->pose_detection.has_value());
  EXPECT_FALSE(result->rect_from_landmarks.has_value());
}

// On a still image, tracking (ROI from the previous landmarks, smoothing on)
// must stay on what static mode finds; detection runs on the first frame only.
// Landmarks the model cannot see (legs out of a portrait) are guesses that
// move with the crop, in Google's build as in ours (sergey: 6% mean over all
// 33, 0.3-0.7% over the visible ones, in both): only visible landmarks are
// held to 1%, except on a full-body photo where all are.
TEST(PoseTrackerTest, TrackingAStillImageMatchesStaticMode) {
  for (const char* name : {"four_077fa4bf.png", "sergey.png"}) {
    SCOPED_TRACE(name);
    const bool full_body = std::string(name) == "four_077fa4bf.png";
    ImageFrame image = LoadRgb(name);
    PoseTrackerOptions options;
    options.static_image_mode = true;
    auto still = PoseTracker::Create(options);
    ASSERT_TRUE(still.ok()) << still.status();
    auto reference = (*still)->Process(image, 0);
    ASSERT_TRUE(reference.ok()) << reference.status();
    ASSERT_TRUE(reference->detected);
    mediapipe::NormalizedLandmarkList visible;
    std::vector<int> visible_index;
    for (int i = 0; i < kNumPoseLandmarks; ++i) {
      if (full_body || reference->landmarks.landmark(i).visibility() > 0.8f) {
        *visible.add_landmark() = reference->landmarks.landmark(i);
        visible_index.push_back(i);
      }
    }
    ASSERT_GE(visible.landmark_size(), 10);

    options.static_image_mode = false;
    auto tracker = PoseTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    for (int frame = 0; frame < 4; ++frame) {
      auto result = (*tracker)->Process(image, frame * 33333);
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_TRUE(result->detected) << "frame " << frame;
      EXPECT_EQ(result->pose_detection.has_value(), frame == 0) << "frame " << frame;
      EXPECT_EQ(result->rect_from_detection.has_value(), frame == 0) << "frame " << frame;
      ASSERT_TRUE(result->rect_from_landmarks.has_value());
      mediapipe::NormalizedLandmarkList tracked;
      for (int i : visible_index) *tracked.add_landmark() = result->landmarks.landmark(i);
      const Distance d = Compare(tracked, visible);
      EXPECT_LT(d.mean, 0.01) << "frame " << frame << ", max " << d.max;
      // The first frame is a detection frame and the filters' first sample.
      if (frame == 0) EXPECT_LT(d.max, 1e-6);
    }
  }
}

// Tracking mode: when the tracked pose is lost (the landmark model's presence
// falls below min_tracking_confidence), the next frame runs detection again.
TEST(PoseTrackerTest, LosingThePoseRunsDetectionAgain) {
  ImageFrame person = LoadRgb("four_077fa4bf.png");
  auto empty = ImageFrame::Create(ImageFormat::SRGB, person.Width(), person.Height());
  ASSERT_TRUE(empty.ok());
  std::memset(empty->MutablePixelData(), 128, empty->Height() * empty->WidthStep());
  auto tracker = PoseTracker::Create(PoseTrackerOptions());
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  struct Step {
    bool person, detected, detection_ran;
  };
  // Frame 1 reuses frame 0's crop (no detection) and finds nothing; frame 2
  // has no crop to reuse, so detection runs (and finds nothing either).
  const Step steps[] = {{true, true, true},   {false, false, false}, {false, false, true},
                        {true, true, true},   {true, true, false}};
  int64_t ts = 0;
  for (const Step& step : steps) {
    SCOPED_TRACE(ts);
    auto result = (*tracker)->Process(step.person ? person : *empty, ts += 33333);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->detected, step.detected);
    // pose_detection is only there when detection ran and found a pose.
    EXPECT_EQ(result->pose_detection.has_value(), step.detection_ran && step.person);
    EXPECT_EQ(result->rect_from_landmarks.has_value(), step.detected);
  }
}

// Threads per inference node change how the work is split, not the result.
TEST(PoseTrackerTest, InferenceThreadsKeepTheResult) {
  ImageFrame image = LoadRgb("four_06aa70cc.png");
  mediapipe::NormalizedLandmarkList landmarks[2];
  for (int threads : {0, 2}) {
    PoseTrackerOptions options;
    options.static_image_mode = true;
    options.inference_threads = threads;
    auto tracker = PoseTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    auto result = (*tracker)->Process(image, 0);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_TRUE(result->detected);
    landmarks[threads == 0 ? 0 : 1] = result->landmarks;
  }
  EXPECT_LT(Compare(landmarks[0], landmarks[1]).max, 1e-4);
}

TEST(PoseTrackerTest, SegmentationMaskIsSizedLikeTheImage) {
  ImageFrame image = LoadRgb("call_0413d5c5.png");
  for (bool static_mode : {true, false}) {
    PoseTrackerOptions options;
    options.static_image_mode = static_mode;
    options.enable_segmentation = true;
    auto tracker = PoseTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    for (int frame = 0; frame < (static_mode ? 1 : 2); ++frame) {
      auto result = (*tracker)->Process(image, frame * 33333);
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_TRUE(result->detected);
      ASSERT_NE(result->segmentation_mask, nullptr) << "frame " << frame;
      const ImageFrame& mask = *result->segmentation_mask;
      EXPECT_EQ(mask.Format(), ImageFormat::VEC32F1);
      EXPECT_EQ(mask.Width(), image.Width());
      EXPECT_EQ(mask.Height(), image.Height());
      // Person under the nose and between the shoulders; values are probabilities.
      auto at = [&mask](double nx, double ny) {
        const int x = std::clamp(static_cast<int>(nx * mask.Width()), 0, mask.Width() - 1);
        const int y = std::clamp(static_cast<int>(ny * mask.Height()), 0, mask.Height() - 1);
        return reinterpret_cast<const float*>(mask.Row(y))[x];
      };
      const auto& lm = result->landmarks;
      EXPECT_GT(at(lm.landmark(kPoseNose).x(), lm.landmark(kPoseNose).y()), 0.5f);
      EXPECT_GT(at((lm.landmark(kPoseLeftShoulder).x() + lm.landmark(kPoseRightShoulder).x()) / 2,
                   (lm.landmark(kPoseLeftShoulder).y() + lm.landmark(kPoseRightShoulder).y()) / 2),
                0.5f);
      float lo = 1, hi = 0;
      for (int y = 0; y < mask.Height(); ++y) {
        const float* row = reinterpret_cast<const float*>(mask.Row(y));
        for (int x = 0; x < mask.Width(); ++x) {
          lo = std::min(lo, row[x]);
          hi = std::max(hi, row[x]);
        }
      }
      EXPECT_GE(lo, 0.0f);
      EXPECT_LE(hi, 1.0f);
      EXPECT_LT(lo, 0.1f) << "some background";
    }
  }
}

TEST(PoseTrackerTest, PipelinedResultsComeInOrder) {
  PoseTrackerOptions options;
  options.max_in_flight = 2;
  options.enable_tracing = true;
  auto tracker = PoseTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  ImageFrame image = LoadRgb("lenna.png");
  constexpr int kFrames = 4;
  int received = 0;
  PoseTrackingResult r;
  for (int i = 0; i < kFrames; ++i) {
    auto copy = image.Clone();
    ASSERT_TRUE(copy.ok());
    std::shared_ptr<const ImageFrame> shared;
    ASSERT_TRUE((*tracker)->Send(std::move(*copy), 1000 + i * 33333, &shared).ok());
    ASSERT_NE(shared, nullptr);
    while ((*tracker)->TryNext(&r)) {
      EXPECT_EQ(r.timestamp_us, 1000 + received * 33333);
      ++received;
    }
  }
  ASSERT_TRUE((*tracker)->Close().ok());
  while ((*tracker)->Next(&r)) {
    EXPECT_EQ(r.timestamp_us, 1000 + received * 33333);
    EXPECT_TRUE(r.detected);
    ++received;
  }
  EXPECT_EQ(received, kFrames);
  EXPECT_TRUE((*tracker)->status().ok()) << (*tracker)->status();
  std::vector<std::string> stages;
  for (const StageTime& s : (*tracker)->StageTimes()) stages.push_back(s.stage);
  EXPECT_NE(std::find(stages.begin(), stages.end(), "pose detection"), stages.end());
  EXPECT_NE(std::find(stages.begin(), stages.end(), "pose landmarks"), stages.end());
}

TEST(PoseTrackerTest, ValidatesOptions) {
  auto expect_invalid = [](const PoseTrackerOptions& o, const std::string& field) {
    absl::Status s = ValidatePoseTrackerOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_NE(std::string(s.message()).find(field), std::string::npos) << s;
    EXPECT_EQ(PoseTracker::Create(o).status().code(), absl::StatusCode::kInvalidArgument) << field;
  };
  PoseTrackerOptions o;
  EXPECT_TRUE(ValidatePoseTrackerOptions(o).ok());
  o.model_complexity = 3;
  expect_invalid(o, "model_complexity");
  o.model_complexity = -1;
  expect_invalid(o, "model_complexity");
  o = PoseTrackerOptions();
  o.min_detection_confidence = 1.5f;
  expect_invalid(o, "min_detection_confidence");
  o = PoseTrackerOptions();
  o.min_tracking_confidence = std::nanf("");
  expect_invalid(o, "min_tracking_confidence");
  o = PoseTrackerOptions();
  o.device = "tpu";
  expect_invalid(o, "device");
  o = PoseTrackerOptions();
  o.inference_threads = -1;
  expect_invalid(o, "inference_threads");
  o = PoseTrackerOptions();
  o.max_in_flight = 0;
  expect_invalid(o, "max_in_flight");
  for (int complexity : {0, 2}) {
    o = PoseTrackerOptions();
    o.model_complexity = complexity;
    EXPECT_TRUE(ValidatePoseTrackerOptions(o).ok());
  }
}

TEST(PoseTrackerTest, RejectsBadInputs) {
  auto tracker = PoseTracker::Create(PoseTrackerOptions());
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  EXPECT_EQ((*tracker)->Process(ImageFrame(), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto gray = ImageFrame::Create(ImageFormat::GRAY8, 64, 64);
  ASSERT_TRUE(gray.ok());
  absl::Status not_rgb = (*tracker)->Process(*gray, 1).status();
  EXPECT_EQ(not_rgb.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(not_rgb.message().find("SRGB"), std::string::npos) << not_rgb;
  EXPECT_EQ((*tracker)->Send(std::move(*gray), 2).code(), absl::StatusCode::kInvalidArgument);
  // Turned away before the graph: the tracker still works.
  ImageFrame image = LoadRgb("lenna.png");
  ASSERT_TRUE((*tracker)->Process(image, 100).ok());
  EXPECT_EQ((*tracker)->Process(image, 100).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*tracker)->status().ok()) << (*tracker)->status();
}

// Runs in another working directory for one scope.
class ScopedCwd {
 public:
  explicit ScopedCwd(const std::filesystem::path& dir) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~ScopedCwd() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

// With no model folder reachable (an empty working directory, no model
// environment), the error names the model file instead of crashing.
TEST(PoseTrackerTest, MissingModelFileGivesClearError) {
  namespace fs = std::filesystem;
  const fs::path empty = fs::temp_directory_path() / ("pose_tracker_test_" + std::to_string(getpid()));
  fs::create_directories(empty / "work");
  absl::Status status;
  {
    ScopedCwd cwd(empty / "work");
    ScopedEnv models("SLUICE_MODELS_DIR", (empty / "none").c_str());
    ScopedEnv shared("SLUICE_SHARED_DIR", (empty / "none").c_str());
    ScopedEnv resources("SLUICE_RESOURCE_DIR", (empty / "none").c_str());
    PoseTrackerOptions options;
    options.model_complexity = 2;
    auto tracker = PoseTracker::Create(options);
    if (tracker.ok()) {
      auto black = ImageFrame::Create(ImageFormat::SRGB, 64, 64);
      status = black.ok() ? (*tracker)->Process(*black, 0).status() : black.status();
    } else {
      status = tracker.status();
    }
  }
  fs::remove_all(empty);
  // The checkout's models/ folder next to the build is searched too; if it
  // holds the models there is nothing missing to test.
  if (status.ok()) GTEST_SKIP() << "the models are reachable from the executable's folder";
  const std::string message(status.message());
  EXPECT_TRUE(message.find("pose_landmark_heavy.tflite") != std::string::npos ||
              message.find("pose_detection.tflite") != std::string::npos)
      << message;
}

}  // namespace
}  // namespace sluice
