// Annotation drawing on SRGB(A) frames in the style of MediaPipe's Python
// drawing_utils / drawing_styles: landmarks and their connections, detection
// boxes and keypoints, rotated ROI rectangles, text labels. Antialiased
// OpenCV drawing.
#ifndef SLUICE_RENDER_DRAWING_H_
#define SLUICE_RENDER_DRAWING_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"

namespace sluice {

// Colours are RGB (our frames are RGB; MediaPipe's Python tuples are BGR and
// are listed here already swapped).
struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};
inline constexpr Rgb kWhite{224, 224, 224};  // drawing_utils' WHITE_COLOR.
inline constexpr Rgb kRed{255, 0, 0};        // drawing_utils' RED_COLOR.
inline constexpr Rgb kGreen{0, 128, 0};
inline constexpr Rgb kBlue{0, 0, 255};
inline constexpr Rgb kBlack{0, 0, 0};

struct DrawingSpec {
  Rgb color = kWhite;
  int thickness = 2;  // Negative: filled circles.
  int circle_radius = 2;
};

// A line from landmark `first` to landmark `second`.
using Connection = std::pair<int, int>;

// MediaPipe's hand topology (hands_connections.py), grouped by part.
inline constexpr std::array<Connection, 6> kHandPalmConnections = {
    {{0, 1}, {0, 5}, {9, 13}, {13, 17}, {5, 9}, {0, 17}}};
inline constexpr std::array<Connection, 3> kHandThumbConnections = {{{1, 2}, {2, 3}, {3, 4}}};
inline constexpr std::array<Connection, 3> kHandIndexFingerConnections = {{{5, 6}, {6, 7}, {7, 8}}};
inline constexpr std::array<Connection, 3> kHandMiddleFingerConnections = {
    {{9, 10}, {10, 11}, {11, 12}}};
inline constexpr std::array<Connection, 3> kHandRingFingerConnections = {
    {{13, 14}, {14, 15}, {15, 16}}};
inline constexpr std::array<Connection, 3> kHandPinkyConnections = {{{17, 18}, {18, 19}, {19, 20}}};
// All 21 of the above.
inline constexpr std::array<Connection, 21> kHandConnections = {
    {{0, 1},   {0, 5},   {9, 13},  {13, 17}, {5, 9},   {0, 17},  {1, 2},
     {2, 3},   {3, 4},   {5, 6},   {6, 7},   {7, 8},   {9, 10},  {10, 11},
     {11, 12}, {13, 14}, {14, 15}, {15, 16}, {17, 18}, {18, 19}, {19, 20}}};

// How DrawLandmarks draws: per-landmark and per-connection specs where given,
// else the defaults (MediaPipe's: red dots, white lines).
struct LandmarksStyle {
  DrawingSpec landmark{kRed, 2, 2};
  DrawingSpec connection{kWhite, 2, 2};
  std::map<int, DrawingSpec> landmark_specs;
  std::map<Connection, DrawingSpec> connection_specs;
  // MediaPipe rings each dot with a white border of radius
  // max(r + 1, int(1.2 r)); false draws bare dots.
  bool white_border = true;
};

// drawing_styles' default hand style: filled dots of radius 5 coloured per
// finger (palm red, thumb peach, index purple, middle yellow, ring green,
// pinky blue), palm lines gray and 3 px, finger lines in the finger's colour.
LandmarksStyle HandLandmarksStyle();

// Landmarks with visibility or presence set and below 0.5, or with x or y
// outside [0, 1], are not drawn, nor are connections touching them (MediaPipe's
// rule). A connection naming a landmark the list lacks is InvalidArgument.
absl::Status DrawLandmarks(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks,
                           absl::Span<const Connection> connections,
                           const LandmarksStyle& style = LandmarksStyle());

// Relative keypoints as dots and the relative bounding box (clipped to the
// image). Other location formats are InvalidArgument.
absl::Status DrawDetection(ImageFrame* frame, const ::mediapipe::Detection& detection,
                           const DrawingSpec& keypoint_spec = {kRed, 2, 2},
                           const DrawingSpec& box_spec = {kWhite, 2, 2});

// A NormalizedRect (e.g. a hand ROI) as a closed, rotated quadrilateral;
// rotation is in radians, clockwise on screen, as in MediaPipe.
absl::Status DrawNormalizedRect(ImageFrame* frame, const ::mediapipe::NormalizedRect& rect,
                                const DrawingSpec& spec = {kGreen, 2, 2});

struct LabelStyle {
  Rgb text = {255, 255, 255};
  Rgb background = {0, 0, 0};
  bool draw_background = true;
  double font_scale = 0.6;
  int thickness = 1;
};

// `text` with its bottom-left corner at normalized (x, y), moved inside the
// image when it would stick out.
absl::Status DrawLabel(ImageFrame* frame, const std::string& text, float x, float y,
                       const LabelStyle& style = LabelStyle());

// One hand the way MediaPipe's examples show it: HandLandmarksStyle() over
// kHandConnections, plus HandednessText(*handedness) below the wrist when
// `handedness` is given. A list of other than 21 landmarks is fine as long as
// it has the ones the connections name (else InvalidArgument).
absl::Status DrawHand(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks,
                      const ::mediapipe::ClassificationList* handedness = nullptr);

// "Left 0.98": the best-scoring class's display name (or label) and score;
// "" for an empty list.
std::string HandednessText(const ::mediapipe::ClassificationList& handedness);

}  // namespace sluice

#endif  // SLUICE_RENDER_DRAWING_H_
