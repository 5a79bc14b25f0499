#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/filtering/relative_velocity_filter.h"

namespace sluice {
namespace {

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using mediapipe::Rect;
using testing::At;
using testing::RunGraph;
using ::testing::HasSubstr;
using Size = std::pair<int, int>;

constexpr int64_t kFrameUs = 33333;  // the Python solutions' 30 fps clock

NormalizedLandmarkList Norm(float x, float y, float z) {
  NormalizedLandmarkList l;
  auto* lm = l.add_landmark();
  lm->set_x(x);
  lm->set_y(y);
  lm->set_z(z);
  lm->set_visibility(0.7f);
  return l;
}

std::string NormGraph(const std::string& options) {
  return R"(
    input_stream: "lms" input_stream: "size" input_stream: "roi" output_stream: "out"
    node {
      calculator: "LandmarksSmoothingCalculator"
      input_stream: "NORM_LANDMARKS:lms" input_stream: "IMAGE_SIZE:size"
      input_stream: "OBJECT_SCALE_ROI:roi"
      output_stream: "NORM_FILTERED_LANDMARKS:out"
      options: { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { )" + options + R"( } }
    })";
}

NormalizedRect Roi(float w, float h) {
  NormalizedRect r;
  r.set_x_center(0.5f);
  r.set_y_center(0.5f);
  r.set_width(w);
  r.set_height(h);
  return r;
}

double Alpha(double cutoff, double frequency) {
  return 1.0 / (1.0 + frequency / (2 * M_PI * cutoff));
}

// One-euro written out from its definition, in pixels, for one axis.
struct OneEuroReference {
  double min_cutoff, beta, dcutoff, value_scale;
  double x = 0, dx = 0, raw = 0;
  int64_t last_us = -1;
  double Apply(int64_t t_us, double v) {
    if (last_us >= 0) {
      const double freq = 1e6 / (t_us - last_us);
      dx += Alpha(dcutoff, freq) * ((v - raw) * value_scale * freq - dx);
      x += Alpha(min_cutoff + beta * std::fabs(dx), freq) * (v - x);
    } else {
      x = v;
    }
    raw = v;
    last_us = t_us;
    return x;
  }
};

// Pose's landmark smoothing: one-euro in pixels, value scale from the ROI.
TEST(LandmarksSmoothingCalculatorTest, OneEuroInPixelsScaledByRoi) {
  const Size size(640, 480);
  const NormalizedRect roi = Roi(0.25f, 0.5f);  // object scale (160 + 240) / 2 = 200 px
  const std::vector<std::vector<float>> xyz = {
      {0.50f, 0.40f, -0.10f}, {0.52f, 0.41f, -0.12f}, {0.60f, 0.30f, -0.05f}, {0.61f, 0.31f, 0.0f}};
  std::vector<std::pair<std::string, Packet>> inputs;
  for (size_t i = 0; i < xyz.size(); ++i) {
    const int64_t t = (i + 1) * kFrameUs;
    inputs.push_back({"lms", At(Norm(xyz[i][0], xyz[i][1], xyz[i][2]), t)});
    inputs.push_back({"size", At(size, t)});
    inputs.push_back({"roi", At(roi, t)});
  }
  auto run = RunGraph(NormGraph("one_euro_filter { min_cutoff: 0.05 beta: 80 derivate_cutoff: 1 }"),
                      inputs, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), xyz.size());
  OneEuroReference rx{0.05, 80, 1, 1 / 200.0}, ry = rx, rz = rx;
  for (size_t i = 0; i < xyz.size(); ++i) {
    const int64_t t = (i + 1) * kFrameUs;
    const auto& lm = run.outputs[0][i].Get<NormalizedLandmarkList>().landmark(0);
    EXPECT_NEAR(lm.x(), rx.Apply(t, xyz[i][0] * 640.0) / 640.0, 1e-5) << i;
    EXPECT_NEAR(lm.y(), ry.Apply(t, xyz[i][1] * 480.0) / 480.0, 1e-5) << i;
    EXPECT_NEAR(lm.z(), rz.Apply(t, xyz[i][2] * 640.0) / 640.0, 1e-5) << i;
    EXPECT_FLOAT_EQ(lm.visibility(), 0.7f);
    EXPECT_FALSE(lm.has_presence());
  }
  // The filter did something: the jump at frame 3 is smoothed.
  EXPECT_LT(run.outputs[0][2].Get<NormalizedLandmarkList>().landmark(0).x(), 0.60f);
}

// Without landmarks at a timestamp (IMAGE_SIZE alone), the filters reset: the
// next landmarks pass through as a first sample.
TEST(LandmarksSmoothingCalculatorTest, ResetsWhenLandmarksDisappear) {
  const Size size(100, 100);
  auto run = RunGraph(NormGraph("one_euro_filter { min_cutoff: 0.01 beta: 10 }"),
                      {{"lms", At(Norm(0.1f, 0.1f, 0), kFrameUs)},
                       {"size", At(size, kFrameUs)},
                       {"size", At(size, 2 * kFrameUs)},
                       {"lms", At(Norm(0.9f, 0.9f, 0), 3 * kFrameUs)},
                       {"size", At(size, 3 * kFrameUs)},
                       {"roi", At(Roi(0.5f, 0.5f), 3 * kFrameUs)},
                       {"lms", At(Norm(0.1f, 0.1f, 0), 4 * kFrameUs)},
                       {"size", At(size, 4 * kFrameUs)},
                       {"roi", At(Roi(0.5f, 0.5f), 4 * kFrameUs)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 3u);
  EXPECT_EQ(run.outputs[0][1].Timestamp(), Timestamp(3 * kFrameUs));
  EXPECT_FLOAT_EQ(run.outputs[0][1].Get<NormalizedLandmarkList>().landmark(0).x(), 0.9f);
  // And filtering resumes from there.
  EXPECT_GT(run.outputs[0][2].Get<NormalizedLandmarkList>().landmark(0).x(), 0.1f);
}

TEST(LandmarksSmoothingCalculatorTest, TinyObjectScalePassesThrough) {
  // Without an ROI the scale comes from the landmarks' box: one landmark -> 0.
  auto run = RunGraph(NormGraph("one_euro_filter { min_cutoff: 0.01 beta: 10 }"),
                      {{"lms", At(Norm(0.1f, 0.1f, 0), kFrameUs)},
                       {"size", At(Size(100, 100), kFrameUs)},
                       {"lms", At(Norm(0.9f, 0.9f, 0), 2 * kFrameUs)},
                       {"size", At(Size(100, 100), 2 * kFrameUs)}},
                      {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_FLOAT_EQ(run.outputs[0][1].Get<NormalizedLandmarkList>().landmark(0).x(), 0.9f);
}

// World landmarks: LANDMARKS -> FILTERED_LANDMARKS; velocity filter with the
// landmarks' own box as object scale, against the filter used directly.
TEST(LandmarksSmoothingCalculatorTest, VelocityFilterOnWorldLandmarks) {
  auto make = [](float dx) {
    LandmarkList l;
    auto* a = l.add_landmark();
    a->set_x(0.0f + dx);
    a->set_y(0.0f);
    auto* b = l.add_landmark();
    b->set_x(0.4f + dx);
    b->set_y(0.2f);  // box 0.4 x 0.2 -> object scale 0.3
    return l;
  };
  const std::vector<float> shifts = {0.0f, 0.05f, 0.2f};
  std::vector<std::pair<std::string, Packet>> inputs;
  for (size_t i = 0; i < shifts.size(); ++i) inputs.push_back({"lms", At(make(shifts[i]), (i + 1) * kFrameUs)});
  auto run = RunGraph(R"(
      input_stream: "lms" output_stream: "out"
      node {
        calculator: "LandmarksSmoothingCalculator"
        input_stream: "LANDMARKS:lms" output_stream: "FILTERED_LANDMARKS:out"
        options: { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
          velocity_filter { window_size: 5 velocity_scale: 10 } } }
      })", inputs, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  filtering::RelativeVelocityFilter ref(5, 10.0f);
  for (size_t i = 0; i < shifts.size(); ++i) {
    const float expected = ref.Apply((i + 1) * kFrameUs * 1000, 0.0f + shifts[i], 1 / 0.3f);
    EXPECT_FLOAT_EQ(run.outputs[0][i].Get<LandmarkList>().landmark(0).x(), expected) << i;
  }
  EXPECT_LT(run.outputs[0][2].Get<LandmarkList>().landmark(0).x(), 0.2f);
}

TEST(LandmarksSmoothingCalculatorTest, ConfigErrors) {
  auto none = RunGraph(NormGraph(""), {}, {"out"});
  EXPECT_THAT(none.status.message(), HasSubstr("no_filter, velocity_filter or one_euro_filter"));
  auto bad = RunGraph(NormGraph("one_euro_filter { min_cutoff: 0 }"), {}, {"out"});
  EXPECT_THAT(bad.status.message(), HasSubstr("min_cutoff must be > 0"));
  auto no_size = RunGraph(R"(
      input_stream: "lms" output_stream: "out"
      node {
        calculator: "LandmarksSmoothingCalculator"
        input_stream: "NORM_LANDMARKS:lms" output_stream: "NORM_FILTERED_LANDMARKS:out"
        options: { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { no_filter {} } }
      })", {}, {"out"});
  EXPECT_THAT(no_size.status.message(), HasSubstr("NORM_LANDMARKS needs IMAGE_SIZE"));
}

TEST(LandmarksSmoothingCalculatorTest, MissingImageSizeAtATimestampIsAnError) {
  auto run = RunGraph(NormGraph("no_filter {}"), {{"lms", At(Norm(0.1f, 0.1f, 0), 1)}}, {"out"});
  ASSERT_FALSE(run.status.ok());
  EXPECT_THAT(run.status.message(), HasSubstr("IMAGE_SIZE missing"));
}

}  // namespace
}  // namespace sluice
