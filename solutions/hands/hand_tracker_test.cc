// HandTracker on real photos. Expected values come from Google's MediaPipe
// (../shared/reference/cpu_inference/hands_*.json: the official build, TFLite
// on the CPU, on the same RGB pixels in ../shared/reference/inputs). The full
// comparison against Google's Python package is tests/hands/.
#include "solutions/hands/hand_tracker.h"

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/image_io.h"

namespace sluice {
namespace {

std::string ReferenceInput(const std::string& name) {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return std::string(env != nullptr && *env ? env : "../shared") + "/reference/inputs/" + name;
}

ImageFrame LoadRgb(const std::string& name) {
  absl::StatusOr<ImageFrame> image = ReadImageFile(ReferenceInput(name));
  EXPECT_TRUE(image.ok()) << image.status();
  return image.ok() ? std::move(*image) : ImageFrame();
}

struct Expected {
  const char* image;
  int complexity;
  const char* handedness;
  float wrist_x, wrist_y, tip_x, tip_y;  // landmarks 0 and 8
};

class HandTrackerReferenceTest : public ::testing::TestWithParam<Expected> {};

// 0.5% of the image size is the acceptance bound of the conformance test;
// single landmarks get 1%.
TEST_P(HandTrackerReferenceTest, StaticImageMatchesGoogle) {
  const Expected& e = GetParam();
  HandTrackerOptions options;
  options.static_image_mode = true;
  options.model_complexity = e.complexity;
  auto tracker = HandTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  ImageFrame image = LoadRgb(e.image);
  ASSERT_FALSE(image.IsEmpty());
  auto result = (*tracker)->Process(image, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->hands.size(), 1u);
  const TrackedHand& hand = result->hands[0];
  EXPECT_EQ(hand.handedness, e.handedness);
  EXPECT_GT(hand.handedness_score, 0.5f);
  EXPECT_GE(hand.presence, options.min_tracking_confidence);
  ASSERT_EQ(hand.landmarks.landmark_size(), 21);
  ASSERT_EQ(hand.world_landmarks.landmark_size(), 21);
  EXPECT_NEAR(hand.landmarks.landmark(0).x(), e.wrist_x, 0.01);
  EXPECT_NEAR(hand.landmarks.landmark(0).y(), e.wrist_y, 0.01);
  EXPECT_NEAR(hand.landmarks.landmark(8).x(), e.tip_x, 0.01);
  EXPECT_NEAR(hand.landmarks.landmark(8).y(), e.tip_y, 0.01);
  EXPECT_EQ(result->width, image.Width());
  EXPECT_FALSE(result->palm_detections.empty());
  ASSERT_TRUE((*tracker)->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(
    Photos, HandTrackerReferenceTest,
    ::testing::Values(Expected{"four_06aa70cc.png", 1, "Right", 0.7111f, 0.4575f, 0.6334f, 0.3834f},
                      Expected{"four_077fa4bf.png", 0, "Left", 0.4129f, 0.5965f, 0.4608f, 0.5346f},
                      Expected{"call_0413d5c5.png", 1, "Right", 0.7055f, 0.4009f, 0.6541f, 0.4031f},
                      Expected{"rock_026fd791.png", 0, "Left", 0.2009f, 0.4049f, 0.2800f, 0.2627f}));

TEST(HandTrackerTest, NoHandGivesEmptyResult) {
  HandTrackerOptions options;
  options.static_image_mode = true;
  auto tracker = HandTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  auto result = (*tracker)->Process(LoadRgb("lenna.png"), 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->hands.empty());
}

TEST(HandTrackerTest, TrackingSkipsPalmDetectionOnceEnoughHandsAreTracked) {
  HandTrackerOptions options;
  options.max_num_hands = 1;
  auto tracker = HandTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  ImageFrame image = LoadRgb("four_06aa70cc.png");
  for (int frame = 0; frame < 3; ++frame) {
    auto result = (*tracker)->Process(image, frame * 33333);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->hands.size(), 1u) << "frame " << frame;
    // Palm detection runs on the first frame only; later ROIs come from landmarks.
    EXPECT_EQ(result->palm_detections.empty(), frame > 0) << "frame " << frame;
    EXPECT_NEAR(result->hands[0].landmarks.landmark(0).x(), 0.7111, 0.01);
  }
}

// Speculative palm detection changes when palm detection runs, never what
// comes out: compare against MediaPipe's gating on a sequence that tracks,
// loses and re-finds hands (two photos of the same size, alternating in runs).
TEST(HandTrackerTest, SpeculativePalmDetectionGivesIdenticalResults) {
  const ImageFrame a = LoadRgb("four_06aa70cc.png"), b = LoadRgb("rock_026fd791.png");
  const bool use_b[] = {false, false, false, true, true, false, true, true, true, false};
  std::vector<HandTrackingResult> results[2];
  for (int speculative = 0; speculative < 2; ++speculative) {
    HandTrackerOptions options;
    options.speculative_palm_detection = speculative == 1;
    options.max_num_hands = 1;  // palm detection is skipped while a hand is tracked
    auto tracker = HandTracker::Create(options);
    ASSERT_TRUE(tracker.ok()) << tracker.status();
    int64_t ts = 0;
    for (bool pick_b : use_b) {
      auto copy = (pick_b ? b : a).Clone();
      ASSERT_TRUE(copy.ok());
      ASSERT_TRUE((*tracker)->Send(std::move(*copy), ts += 33333).ok());
    }
    ASSERT_TRUE((*tracker)->Close().ok());
    HandTrackingResult r;
    while ((*tracker)->Next(&r)) results[speculative].push_back(r);
  }
  ASSERT_EQ(results[0].size(), std::size(use_b));
  ASSERT_EQ(results[1].size(), std::size(use_b));
  int palm_runs = 0;
  for (size_t f = 0; f < std::size(use_b); ++f) {
    const HandTrackingResult &x = results[0][f], &y = results[1][f];
    palm_runs += x.palm_detections.empty() ? 0 : 1;
    EXPECT_EQ(x.palm_detections.size(), y.palm_detections.size()) << "frame " << f;
    ASSERT_EQ(x.hands.size(), y.hands.size()) << "frame " << f;
    for (size_t h = 0; h < x.hands.size(); ++h) {
      EXPECT_EQ(x.hands[h].landmarks.SerializeAsString(), y.hands[h].landmarks.SerializeAsString())
          << "frame " << f;
      EXPECT_EQ(x.hands[h].handedness, y.hands[h].handedness);
    }
  }
  // The sequence does exercise both paths: tracked frames and re-detections.
  EXPECT_GT(palm_runs, 1);
  EXPECT_LT(palm_runs, static_cast<int>(std::size(use_b)));
}

TEST(HandTrackerTest, PipelinedResultsComeInOrder) {
  HandTrackerOptions options;
  options.max_in_flight = 2;
  auto tracker = HandTracker::Create(options);
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  ImageFrame image = LoadRgb("rock_026fd791.png");
  constexpr int kFrames = 6;
  int received = 0;
  HandTrackingResult r;
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
    EXPECT_EQ(r.hands.size(), 1u);
    ++received;
  }
  EXPECT_EQ(received, kFrames);
}

TEST(HandTrackerTest, RejectsBadOptionsAndInputs) {
  HandTrackerOptions options;
  options.model_complexity = 2;
  EXPECT_EQ(HandTracker::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = HandTrackerOptions();
  options.max_num_hands = 0;
  EXPECT_EQ(HandTracker::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = HandTrackerOptions();
  options.min_detection_confidence = 1.5f;
  EXPECT_EQ(HandTracker::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = HandTrackerOptions();
  options.device = "tpu";
  EXPECT_EQ(HandTracker::Create(options).status().code(), absl::StatusCode::kInvalidArgument);

  auto tracker = HandTracker::Create(HandTrackerOptions());
  ASSERT_TRUE(tracker.ok()) << tracker.status();
  EXPECT_EQ((*tracker)->Process(ImageFrame(), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  ImageFrame image = LoadRgb("lenna.png");
  ASSERT_TRUE((*tracker)->Process(image, 100).ok());
  EXPECT_EQ((*tracker)->Process(image, 100).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
