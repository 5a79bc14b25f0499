#include "render/drawing.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "formats/image_frame_opencv.h"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

using ::mediapipe::LocationData;

cv::Scalar ToScalar(const Rgb& c) { return cv::Scalar(c.r, c.g, c.b, 255); }

// A Mat over the frame, or an error for frames we cannot draw on.
absl::StatusOr<cv::Mat> Canvas(ImageFrame* frame, const char* what) {
  if (frame == nullptr || frame->IsEmpty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": no frame to draw on"));
  }
  if (frame->Format() != ImageFormat::SRGB && frame->Format() != ImageFormat::SRGBA) {
    return absl::InvalidArgumentError(absl::StrCat(what,
                                                   ": can only draw on SRGB or SRGBA frames, not ",
                                                   ImageFormat::Format_Name(frame->Format())));
  }
  return MatView(frame);
}

// OpenCV asserts (throws) on line widths outside [1, 32767]; specs are user input.
int LineWidth(int thickness) { return std::clamp(thickness, 1, 1000); }

// MediaPipe's test: inside [0, 1], ends included.
bool IsNormalized(float v) { return v >= 0.0f && v <= 1.0f; }

// drawing_utils' conversion: floor, clamped to the last pixel.
cv::Point ToPixel(float x, float y, int width, int height) {
  const int px = std::min(static_cast<int>(std::floor(x * width)), width - 1);
  const int py = std::min(static_cast<int>(std::floor(y * height)), height - 1);
  return {px, py};
}

const DrawingSpec& SpecFor(const std::map<int, DrawingSpec>& specs, int key,
                           const DrawingSpec& fallback) {
  auto it = specs.find(key);
  return it == specs.end() ? fallback : it->second;
}

void DrawDot(cv::Mat& canvas, cv::Point p, const DrawingSpec& spec, bool white_border) {
  const int radius = std::clamp(spec.circle_radius, 0, 10000);
  const int thickness = spec.thickness < 0 ? cv::FILLED : LineWidth(spec.thickness);
  if (white_border) {
    const int border = std::max(radius + 1, static_cast<int>(radius * 1.2));
    cv::circle(canvas, p, border, ToScalar(kWhite), thickness, cv::LINE_AA);
  }
  cv::circle(canvas, p, radius, ToScalar(spec.color), thickness, cv::LINE_AA);
}

}  // namespace

LandmarksStyle HandLandmarksStyle() {
  // drawing_styles' palette (its BGR tuples, swapped to RGB).
  constexpr Rgb kPalmRed{255, 48, 48};
  constexpr Rgb kPeach{255, 229, 180};
  constexpr Rgb kPurple{128, 64, 128};
  constexpr Rgb kYellow{255, 204, 0};
  constexpr Rgb kFingerGreen{48, 255, 48};
  constexpr Rgb kFingerBlue{21, 101, 192};
  constexpr Rgb kGray{128, 128, 128};
  constexpr int kRadius = 5, kDot = -1, kPalmLine = 3, kFingerLine = 2;

  LandmarksStyle style;
  for (int i : {0, 1, 5, 9, 13, 17}) style.landmark_specs[i] = {kPalmRed, kDot, kRadius};
  const Rgb finger_colours[5] = {kPeach, kPurple, kYellow, kFingerGreen, kFingerBlue};
  // Thumb 2-4, index 6-8, middle 10-12, ring 14-16, pinky 18-20.
  for (int f = 0; f < 5; ++f) {
    for (int j = 0; j < 3; ++j) {
      style.landmark_specs[2 + 4 * f + j] = {finger_colours[f], kDot, kRadius};
    }
  }
  for (const Connection& c : kHandPalmConnections) {
    style.connection_specs[c] = {kGray, kPalmLine, 2};
  }
  const absl::Span<const Connection> fingers[5] = {
      kHandThumbConnections, kHandIndexFingerConnections, kHandMiddleFingerConnections,
      kHandRingFingerConnections, kHandPinkyConnections};
  for (int f = 0; f < 5; ++f) {
    for (const Connection& c : fingers[f]) {
      style.connection_specs[c] = {finger_colours[f], kFingerLine, 2};
    }
  }
  return style;
}

absl::Status DrawLandmarks(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks,
                           absl::Span<const Connection> connections, const LandmarksStyle& style) {
  absl::StatusOr<cv::Mat> canvas = Canvas(frame, "DrawLandmarks");
  if (!canvas.ok()) return canvas.status();
  const int n = landmarks.landmark_size();
  for (const Connection& c : connections) {
    if (c.first < 0 || c.first >= n || c.second < 0 || c.second >= n) {
      return absl::InvalidArgumentError(
          absl::StrFormat("DrawLandmarks: connection %d-%d names a landmark outside the list of %d",
                          c.first, c.second, n));
    }
  }
  // Pixel positions of drawable landmarks; unset where MediaPipe skips them.
  std::vector<bool> drawable(n, false);
  std::vector<cv::Point> px(n);
  for (int i = 0; i < n; ++i) {
    const ::mediapipe::NormalizedLandmark& lm = landmarks.landmark(i);
    if ((lm.has_visibility() && !(lm.visibility() >= 0.5f)) ||
        (lm.has_presence() && !(lm.presence() >= 0.5f))) {
      continue;
    }
    if (!IsNormalized(lm.x()) || !IsNormalized(lm.y())) continue;
    drawable[i] = true;
    px[i] = ToPixel(lm.x(), lm.y(), frame->Width(), frame->Height());
  }
  // Lines first, dots on top (as MediaPipe does).
  for (const Connection& c : connections) {
    if (!drawable[c.first] || !drawable[c.second]) continue;
    auto it = style.connection_specs.find(c);
    const DrawingSpec& spec = it == style.connection_specs.end() ? style.connection : it->second;
    cv::line(*canvas, px[c.first], px[c.second], ToScalar(spec.color), LineWidth(spec.thickness),
             cv::LINE_AA);
  }
  for (int i = 0; i < n; ++i) {
    if (!drawable[i]) continue;
    DrawDot(*canvas, px[i], SpecFor(style.landmark_specs, i, style.landmark), style.white_border);
  }
  return absl::OkStatus();
}

absl::Status DrawDetection(ImageFrame* frame, const ::mediapipe::Detection& detection,
                           const DrawingSpec& keypoint_spec, const DrawingSpec& box_spec) {
  absl::StatusOr<cv::Mat> canvas = Canvas(frame, "DrawDetection");
  if (!canvas.ok()) return canvas.status();
  if (!detection.has_location_data()) return absl::OkStatus();
  const LocationData& loc = detection.location_data();
  if (loc.format() != LocationData::RELATIVE_BOUNDING_BOX) {
    return absl::InvalidArgumentError(
        absl::StrCat("DrawDetection: location data must be RELATIVE_BOUNDING_BOX, not ",
                     LocationData::Format_Name(loc.format())));
  }
  const int w = frame->Width(), h = frame->Height();
  for (const LocationData::RelativeKeypoint& kp : loc.relative_keypoints()) {
    if (!IsNormalized(kp.x()) || !IsNormalized(kp.y())) continue;
    DrawDot(*canvas, ToPixel(kp.x(), kp.y(), w, h), keypoint_spec, /*white_border=*/false);
  }
  if (!loc.has_relative_bounding_box()) return absl::OkStatus();
  const LocationData::RelativeBoundingBox& box = loc.relative_bounding_box();
  // Clipped to the image, where MediaPipe would fail on a box sticking out.
  auto clip = [](float v) { return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f; };
  const cv::Point p0 = ToPixel(clip(box.xmin()), clip(box.ymin()), w, h);
  const cv::Point p1 =
      ToPixel(clip(box.xmin() + box.width()), clip(box.ymin() + box.height()), w, h);
  cv::rectangle(*canvas, p0, p1, ToScalar(box_spec.color), LineWidth(box_spec.thickness),
                cv::LINE_AA);
  return absl::OkStatus();
}

absl::Status DrawNormalizedRect(ImageFrame* frame, const ::mediapipe::NormalizedRect& rect,
                                const DrawingSpec& spec) {
  absl::StatusOr<cv::Mat> canvas = Canvas(frame, "DrawNormalizedRect");
  if (!canvas.ok()) return canvas.status();
  const double w = frame->Width(), h = frame->Height();
  const double cx = rect.x_center() * w, cy = rect.y_center() * h;
  const double hw = rect.width() * w / 2, hh = rect.height() * h / 2;
  const double c = std::cos(rect.rotation()), s = std::sin(rect.rotation());
  if (!std::isfinite(cx + cy + hw + hh + c + s)) {
    return absl::InvalidArgumentError("DrawNormalizedRect: rect has non-finite values");
  }
  // Corners in pixels, rotated about the centre (y points down).
  const double corners[4][2] = {{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}};
  // Fixed-point coordinates keep the antialiased outline sub-pixel accurate.
  constexpr int kShift = 4;
  std::vector<cv::Point> pts;
  for (const auto& d : corners) {
    // Clamped far outside the image so that the fixed-point conversion cannot overflow.
    const double x = std::clamp(cx + d[0] * c - d[1] * s, -1e6, 1e6);
    const double y = std::clamp(cy + d[0] * s + d[1] * c, -1e6, 1e6);
    pts.emplace_back(static_cast<int>(std::lround(x * (1 << kShift))),
                     static_cast<int>(std::lround(y * (1 << kShift))));
  }
  cv::polylines(*canvas, pts, /*isClosed=*/true, ToScalar(spec.color), LineWidth(spec.thickness),
                cv::LINE_AA, kShift);
  return absl::OkStatus();
}

absl::Status DrawLabel(ImageFrame* frame, const std::string& text, float x, float y,
                       const LabelStyle& style) {
  absl::StatusOr<cv::Mat> canvas = Canvas(frame, "DrawLabel");
  if (!canvas.ok()) return canvas.status();
  if (text.empty()) return absl::OkStatus();
  if (!(style.font_scale > 0 && style.font_scale <= 100)) {
    return absl::InvalidArgumentError(
        absl::StrCat("DrawLabel: font_scale must be in (0, 100], got ", style.font_scale));
  }
  constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
  constexpr int kPad = 3;
  const int thickness = LineWidth(style.thickness);
  int baseline = 0;
  const cv::Size size = cv::getTextSize(text, kFont, style.font_scale, thickness, &baseline);
  const int w = frame->Width(), h = frame->Height();
  auto to_px = [](float v, int extent) {
    return std::isfinite(v) ? static_cast<int>(std::clamp(v, -1.0f, 2.0f) * extent) : 0;
  };
  int px = to_px(x, w);
  int py = to_px(y, h);
  // Keep the whole box (text plus padding) inside the image where it fits.
  px = std::clamp(px, kPad, std::max(kPad, w - size.width - kPad));
  py = std::clamp(py, size.height + kPad, std::max(size.height + kPad, h - baseline - kPad));
  if (style.draw_background) {
    cv::rectangle(*canvas, cv::Point(px - kPad, py - size.height - kPad),
                  cv::Point(px + size.width + kPad, py + baseline + kPad),
                  ToScalar(style.background), cv::FILLED);
  }
  cv::putText(*canvas, text, cv::Point(px, py), kFont, style.font_scale, ToScalar(style.text),
              thickness, cv::LINE_AA);
  return absl::OkStatus();
}

absl::Status DrawHand(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks,
                      const ::mediapipe::ClassificationList* handedness) {
  absl::Status drawn = DrawLandmarks(frame, landmarks, kHandConnections, HandLandmarksStyle());
  if (!drawn.ok() || handedness == nullptr || landmarks.landmark_size() == 0) return drawn;
  // Below the wrist, where the hand rarely is.
  const ::mediapipe::NormalizedLandmark& wrist = landmarks.landmark(0);
  return DrawLabel(frame, HandednessText(*handedness), wrist.x() - 0.05f, wrist.y() + 0.08f);
}

std::string HandednessText(const ::mediapipe::ClassificationList& handedness) {
  if (handedness.classification_size() == 0) return "";
  const ::mediapipe::Classification* best = &handedness.classification(0);
  for (const ::mediapipe::Classification& c : handedness.classification()) {
    if (c.score() > best->score()) best = &c;
  }
  const std::string& name = best->display_name().empty() ? best->label() : best->display_name();
  return absl::StrFormat("%s %.2f", name.empty() ? absl::StrCat(best->index()) : name,
                         best->score());
}

}  // namespace sluice
