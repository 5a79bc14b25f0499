#include "render/pose_connections.h"

#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

constexpr int kNumPoseLandmarks = 33;

const char* const kPoseLandmarkNames[kNumPoseLandmarks] = {
    "nose",           "left_eye_inner", "left_eye",        "left_eye_outer",  "right_eye_inner",
    "right_eye",      "right_eye_outer", "left_ear",       "right_ear",       "mouth_left",
    "mouth_right",    "left_shoulder",  "right_shoulder",  "left_elbow",      "right_elbow",
    "left_wrist",     "right_wrist",    "left_pinky",      "right_pinky",     "left_index",
    "right_index",    "left_thumb",     "right_thumb",     "left_hip",        "right_hip",
    "left_knee",      "right_knee",     "left_ankle",      "right_ankle",     "left_heel",
    "right_heel",     "left_foot_index", "right_foot_index"};

// POSE_CONNECTIONS of pose_connections.py, sorted.
const Connection kPoseConnections[] = {
    {0, 1},   {0, 4},   {1, 2},   {2, 3},   {3, 7},   {4, 5},   {5, 6},
    {6, 8},   {9, 10},  {11, 12}, {11, 13}, {11, 23}, {12, 14}, {12, 24},
    {13, 15}, {14, 16}, {15, 17}, {15, 19}, {15, 21}, {16, 18}, {16, 20},
    {16, 22}, {17, 19}, {18, 20}, {23, 24}, {23, 25}, {24, 26}, {25, 27},
    {26, 28}, {27, 29}, {27, 31}, {28, 30}, {28, 32}, {29, 31}, {30, 32}};

// drawing_styles' _POSE_LANDMARKS_LEFT / _RIGHT (the person's sides): eyes,
// ear, mouth corner, shoulder, elbow, wrist, pinky, index, thumb, hip, knee,
// ankle, heel, foot index.
constexpr int kLeftSide[] = {1, 2, 3, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
constexpr int kRightSide[] = {4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32};
constexpr int kNose = 0;

}  // namespace

absl::Span<const char* const> PoseLandmarkNames() { return kPoseLandmarkNames; }

absl::Span<const Connection> PoseConnections() { return kPoseConnections; }

LandmarksStyle PoseLandmarksStyle() {
  // drawing_styles' BGR tuples (0, 138, 255) and (231, 217, 0), swapped to RGB.
  constexpr Rgb kLeftOrange{255, 138, 0};
  constexpr Rgb kRightCyan{0, 217, 231};
  constexpr int kThickness = 2, kRadius = 2;
  LandmarksStyle style;
  for (int i : kLeftSide) style.landmark_specs[i] = {kLeftOrange, kThickness, kRadius};
  for (int i : kRightSide) style.landmark_specs[i] = {kRightCyan, kThickness, kRadius};
  style.landmark_specs[kNose] = {kWhite, kThickness, kRadius};
  return style;
}

absl::Status DrawPose(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks) {
  if (landmarks.landmark_size() < kNumPoseLandmarks) {
    return absl::InvalidArgumentError(absl::StrCat("DrawPose: a pose has ", kNumPoseLandmarks,
                                                   " landmarks, got ",
                                                   landmarks.landmark_size()));
  }
  if (landmarks.landmark_size() == kNumPoseLandmarks) {
    return DrawLandmarks(frame, landmarks, PoseConnections(), PoseLandmarksStyle());
  }
  // Longer lists (e.g. with the 2 auxiliary landmarks): the body only.
  ::mediapipe::NormalizedLandmarkList body;
  for (int i = 0; i < kNumPoseLandmarks; ++i) *body.add_landmark() = landmarks.landmark(i);
  return DrawLandmarks(frame, body, PoseConnections(), PoseLandmarksStyle());
}

}  // namespace sluice
