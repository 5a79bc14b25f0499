#include "render/annotation_renderer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/image_frame_opencv.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

using ::mediapipe::Color;
using ::mediapipe::RenderAnnotation;

// Coordinates far outside any image are clamped, so that the int conversions
// stay defined and OpenCV never walks huge shapes.
constexpr double kMaxCoordinate = 1 << 22;

// MediaPipe's ClampThickness (OpenCV's MAX_THICKNESS).
int ClampThickness(double thickness) {
  return static_cast<int>(std::clamp(std::round(thickness), 1.0, 32767.0));
}

cv::Scalar ToScalar(const Color& c) { return cv::Scalar(c.r(), c.g(), c.b(), 255); }

class Renderer {
 public:
  Renderer(cv::Mat canvas, const AnnotationRenderOptions& options)
      : canvas_(std::move(canvas)), options_(options) {}

  absl::Status Draw(const RenderAnnotation& a) {
    color_ = ToScalar(a.color());
    thickness_ = ClampThickness(a.thickness() * options_.scale_factor);
    switch (a.data_case()) {
      case RenderAnnotation::kRectangle:
        return DrawRectangle(a.rectangle());
      case RenderAnnotation::kFilledRectangle:
        return DrawFilledRectangle(a.filled_rectangle().rectangle());
      case RenderAnnotation::kRoundedRectangle:
        return DrawRoundedRectangle(a.rounded_rectangle(), thickness_);
      case RenderAnnotation::kFilledRoundedRectangle:
        return DrawRoundedRectangle(a.filled_rounded_rectangle().rounded_rectangle(), cv::FILLED);
      case RenderAnnotation::kOval:
        return DrawOval(a.oval().rectangle(), thickness_);
      case RenderAnnotation::kFilledOval:
        return DrawOval(a.filled_oval().oval().rectangle(), cv::FILLED);
      case RenderAnnotation::kPoint:
        return DrawPoint(a.point());
      case RenderAnnotation::kScribble:
        for (const RenderAnnotation::Point& p : a.scribble().point()) {
          if (absl::Status s = DrawPoint(p); !s.ok()) return s;
        }
        return absl::OkStatus();
      case RenderAnnotation::kLine:
        return DrawLine(a.line());
      case RenderAnnotation::kGradientLine:
        return DrawGradientLine(a.gradient_line());
      case RenderAnnotation::kArrow:
        return DrawArrow(a.arrow());
      case RenderAnnotation::kText:
        return DrawText(a.text(), a.thickness());
      case RenderAnnotation::DATA_NOT_SET:
        break;
    }
    return absl::InvalidArgumentError("no annotation kind set");
  }

 private:
  // One coordinate pair to pixels: MediaPipe's NormalizedtoPixelCoordinates
  // (round) or its scaled pixel cast (truncate).
  absl::Status ToPixel(double x, double y, bool normalized, cv::Point* p) const {
    if (!std::isfinite(x) || !std::isfinite(y)) {
      return absl::InvalidArgumentError(absl::StrCat("non-finite coordinate (", x, ", ", y, ")"));
    }
    double px, py;
    if (normalized) {
      px = std::round(x * canvas_.cols);
      py = std::round(y * canvas_.rows);
    } else {
      px = std::trunc(x * options_.scale_factor);
      py = std::trunc(y * options_.scale_factor);
    }
    p->x = static_cast<int>(std::clamp(px, -kMaxCoordinate, kMaxCoordinate));
    p->y = static_cast<int>(std::clamp(py, -kMaxCoordinate, kMaxCoordinate));
    return absl::OkStatus();
  }
  absl::Status Corners(const RenderAnnotation::Rectangle& r, cv::Point* tl, cv::Point* br) const {
    if (absl::Status s = ToPixel(r.left(), r.top(), r.normalized(), tl); !s.ok()) return s;
    return ToPixel(r.right(), r.bottom(), r.normalized(), br);
  }
  // MediaPipe's RectangleToOpenCVRotatedRect: about the integer corners'
  // centre, rotation in radians -> degrees.
  static void RotatedCorners(cv::Point tl, cv::Point br, double rotation, cv::Point2f out[4]) {
    const cv::RotatedRect rect(cv::Point2f((tl.x + br.x) / 2.f, (tl.y + br.y) / 2.f),
                               cv::Size2f(static_cast<float>(br.x - tl.x),
                                          static_cast<float>(br.y - tl.y)),
                               static_cast<float>(rotation / M_PI * 180.f));
    rect.points(out);
  }

  absl::Status DrawRectangle(const RenderAnnotation::Rectangle& r) {
    cv::Point tl, br;
    if (absl::Status s = Corners(r, &tl, &br); !s.ok()) return s;
    cv::Point2f v[4];
    RotatedCorners(tl, br, r.rotation(), v);
    if (r.rotation() != 0.0) {
      for (int i = 0; i < 4; ++i) {
        cv::line(canvas_, cv::Point(v[i]), cv::Point(v[(i + 1) % 4]), color_, thickness_);
      }
    } else {
      cv::rectangle(canvas_, cv::Rect(tl.x, tl.y, br.x - tl.x, br.y - tl.y), color_, thickness_);
    }
    if (r.has_top_left_thickness()) {
      const int radius = ClampThickness(r.top_left_thickness() * options_.scale_factor);
      cv::ellipse(canvas_, cv::Point(v[1]), cv::Size(radius, radius), 0.0, 0, 360, color_,
                  cv::FILLED);
    }
    return absl::OkStatus();
  }

  absl::Status DrawFilledRectangle(const RenderAnnotation::Rectangle& r) {
    cv::Point tl, br;
    if (absl::Status s = Corners(r, &tl, &br); !s.ok()) return s;
    if (r.rotation() != 0.0) {
      cv::Point2f v2f[4];
      RotatedCorners(tl, br, r.rotation(), v2f);
      cv::Point v[4];
      for (int i = 0; i < 4; ++i) v[i] = v2f[i];
      cv::fillConvexPoly(canvas_, v, 4, color_);
    } else {
      cv::rectangle(canvas_, cv::Rect(tl.x, tl.y, br.x - tl.x, br.y - tl.y), color_, cv::FILLED);
    }
    return absl::OkStatus();
  }

  // Four edges and four quarter arcs (MediaPipe's DrawRoundedRectangle); a
  // filled one is the two crossing bands and four filled quarter discs.
  absl::Status DrawRoundedRectangle(const RenderAnnotation::RoundedRectangle& rr, int thickness) {
    const int line_type = rr.line_type();
    if (line_type != cv::FILLED && line_type != cv::LINE_4 && line_type != cv::LINE_8 &&
        line_type != cv::LINE_AA) {
      return absl::InvalidArgumentError(
          absl::StrCat("rounded rectangle line_type must be -1, 4, 8 or 16, got ", line_type));
    }
    cv::Point p1, p3;
    if (absl::Status s = Corners(rr.rectangle(), &p1, &p3); !s.ok()) return s;
    const int r = static_cast<int>(std::clamp(
        std::round(static_cast<double>(rr.corner_radius()) * options_.scale_factor), 0.0,
        kMaxCoordinate));
    const cv::Point p2(p3.x, p1.y), p4(p1.x, p3.y);
    const cv::Size axes(r, r);
    if (thickness == cv::FILLED) {
      cv::rectangle(canvas_, cv::Point(p1.x + r, p1.y), cv::Point(p3.x - r, p3.y), color_,
                    cv::FILLED, line_type);
      cv::rectangle(canvas_, cv::Point(p1.x, p1.y + r), cv::Point(p3.x, p3.y - r), color_,
                    cv::FILLED, line_type);
    } else {
      cv::line(canvas_, cv::Point(p1.x + r, p1.y), cv::Point(p2.x - r, p2.y), color_, thickness,
               line_type);
      cv::line(canvas_, cv::Point(p2.x, p2.y + r), cv::Point(p3.x, p3.y - r), color_, thickness,
               line_type);
      cv::line(canvas_, cv::Point(p4.x + r, p4.y), cv::Point(p3.x - r, p3.y), color_, thickness,
               line_type);
      cv::line(canvas_, cv::Point(p1.x, p1.y + r), cv::Point(p4.x, p4.y - r), color_, thickness,
               line_type);
    }
    cv::ellipse(canvas_, p1 + cv::Point(r, r), axes, 180.0, 0, 90, color_, thickness, line_type);
    cv::ellipse(canvas_, p2 + cv::Point(-r, r), axes, 270.0, 0, 90, color_, thickness, line_type);
    cv::ellipse(canvas_, p3 + cv::Point(-r, -r), axes, 0.0, 0, 90, color_, thickness, line_type);
    cv::ellipse(canvas_, p4 + cv::Point(r, -r), axes, 90.0, 0, 90, color_, thickness, line_type);
    return absl::OkStatus();
  }

  absl::Status DrawOval(const RenderAnnotation::Rectangle& r, int thickness) {
    cv::Point tl, br;
    if (absl::Status s = Corners(r, &tl, &br); !s.ok()) return s;
    const cv::Point center((tl.x + br.x) / 2, (tl.y + br.y) / 2);
    // OpenCV rejects negative axes (MediaPipe clamps only the filled oval).
    const cv::Size axes(std::max(0, (br.x - tl.x) / 2), std::max(0, (br.y - tl.y) / 2));
    cv::ellipse(canvas_, center, axes, r.rotation() / M_PI * 180.f, 0, 360, color_, thickness);
    return absl::OkStatus();
  }

  absl::Status DrawPoint(const RenderAnnotation::Point& point) {
    cv::Point p;
    if (absl::Status s = ToPixel(point.x(), point.y(), point.normalized(), &p); !s.ok()) return s;
    cv::circle(canvas_, p, thickness_, color_, cv::FILLED);
    return absl::OkStatus();
  }

  absl::Status DrawLine(const RenderAnnotation::Line& l) {
    cv::Point a, b;
    if (absl::Status s = ToPixel(l.x_start(), l.y_start(), l.normalized(), &a); !s.ok()) return s;
    if (absl::Status s = ToPixel(l.x_end(), l.y_end(), l.normalized(), &b); !s.ok()) return s;
    cv::line(canvas_, a, b, color_, thickness_);
    return absl::OkStatus();
  }

  // A thickness x thickness square at each pixel of the 4-connected line,
  // coloured by its position along it.
  absl::Status DrawGradientLine(const RenderAnnotation::GradientLine& l) {
    cv::Point a, b;
    if (absl::Status s = ToPixel(l.x_start(), l.y_start(), l.normalized(), &a); !s.ok()) return s;
    if (absl::Status s = ToPixel(l.x_end(), l.y_end(), l.normalized(), &b); !s.ok()) return s;
    const cv::Scalar c1 = ToScalar(l.color1()), c2 = ToScalar(l.color2());
    cv::LineIterator it(canvas_, a, b, cv::LINE_4);
    for (int i = 0; i < it.count; ++i, ++it) {
      const double t = static_cast<double>(i) / it.count;
      cv::rectangle(canvas_, cv::Rect(it.pos(), cv::Size(thickness_, thickness_)),
                    c1 * (1.0 - t) + c2 * t, cv::FILLED, cv::LINE_4);
    }
    return absl::OkStatus();
  }

  absl::Status DrawArrow(const RenderAnnotation::Arrow& ar) {
    cv::Point a, b;
    if (absl::Status s = ToPixel(ar.x_start(), ar.y_start(), ar.normalized(), &a); !s.ok()) {
      return s;
    }
    if (absl::Status s = ToPixel(ar.x_end(), ar.y_end(), ar.normalized(), &b); !s.ok()) return s;
    cv::line(canvas_, a, b, color_, thickness_);
    // Head: two strokes from end - 0.2 L (u -/+ v) to the end, u the unit
    // direction and v its normal (a zero-length arrow has no direction).
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double length = std::sqrt(dx * dx + dy * dy);
    const double ux = length > 0 ? dx / length : 0, uy = length > 0 ? dy / length : 0;
    const double vx = -uy, vy = ux;
    const double tip = 0.2 * length;
    const cv::Point left(static_cast<int>(std::round(b.x - tip * ux + tip * vx)),
                         static_cast<int>(std::round(b.y - tip * uy + tip * vy)));
    const cv::Point right(static_cast<int>(std::round(b.x - tip * ux - tip * vx)),
                          static_cast<int>(std::round(b.y - tip * uy - tip * vy)));
    cv::line(canvas_, left, b, color_, thickness_);
    cv::line(canvas_, right, b, color_, thickness_);
    return absl::OkStatus();
  }

  // MediaPipe's ComputeFontScale: the Hershey fonts' baseline and cap-line
  // heights (in font units), less half the stroke.
  static double FontScale(int font_face, int font_size, int thickness) {
    double base_line = 9, cap_line = 12;
    if (font_face == cv::FONT_HERSHEY_PLAIN) {
      base_line = 5;
      cap_line = 4;
    } else if (font_face == cv::FONT_HERSHEY_COMPLEX_SMALL) {
      base_line = 6;
      cap_line = 7;
    }
    return (font_size - (thickness + 1) / 2.0) / (cap_line + base_line);
  }

  absl::Status DrawText(const RenderAnnotation::Text& t, double annotation_thickness) {
    const int font_face = t.font_face();
    if (font_face < cv::FONT_HERSHEY_SIMPLEX || font_face > cv::FONT_HERSHEY_SCRIPT_COMPLEX) {
      return absl::InvalidArgumentError(
          absl::StrCat("text font_face must be a Hershey font 0..7, got ", font_face));
    }
    cv::Point origin;
    if (absl::Status s = ToPixel(t.left(), t.baseline(), t.normalized(), &origin); !s.ok()) {
      return s;
    }
    if (!std::isfinite(t.font_height())) {
      return absl::InvalidArgumentError("non-finite font_height");
    }
    const double height = t.normalized() ? std::round(t.font_height() * canvas_.rows)
                                         : t.font_height() * options_.scale_factor;
    const int font_size = static_cast<int>(std::clamp(height, -kMaxCoordinate, kMaxCoordinate));
    const double scale = FontScale(font_face, font_size, thickness_);
    int text_baseline = 0;
    const cv::Size size =
        cv::getTextSize(t.display_text(), font_face, scale, thickness_, &text_baseline);
    if (t.center_horizontally()) origin.x -= size.width / 2;
    if (t.center_vertically()) origin.y += size.height / 2;
    if (t.outline_thickness() > 0.0) {
      const int outline = ClampThickness((annotation_thickness + 2.0 * t.outline_thickness()) *
                                         options_.scale_factor);
      cv::putText(canvas_, t.display_text(), origin, font_face, scale, ToScalar(t.outline_color()),
                  outline, cv::LINE_8, options_.flip_text_vertically);
    }
    cv::putText(canvas_, t.display_text(), origin, font_face, scale, color_, thickness_,
                cv::LINE_8, options_.flip_text_vertically);
    return absl::OkStatus();
  }

  cv::Mat canvas_;
  AnnotationRenderOptions options_;
  cv::Scalar color_;
  int thickness_ = 1;
};

const char* KindName(const RenderAnnotation& a) {
  switch (a.data_case()) {
    case RenderAnnotation::kRectangle:
      return "rectangle";
    case RenderAnnotation::kFilledRectangle:
      return "filled_rectangle";
    case RenderAnnotation::kOval:
      return "oval";
    case RenderAnnotation::kFilledOval:
      return "filled_oval";
    case RenderAnnotation::kPoint:
      return "point";
    case RenderAnnotation::kLine:
      return "line";
    case RenderAnnotation::kArrow:
      return "arrow";
    case RenderAnnotation::kText:
      return "text";
    case RenderAnnotation::kRoundedRectangle:
      return "rounded_rectangle";
    case RenderAnnotation::kFilledRoundedRectangle:
      return "filled_rounded_rectangle";
    case RenderAnnotation::kGradientLine:
      return "gradient_line";
    case RenderAnnotation::kScribble:
      return "scribble";
    case RenderAnnotation::DATA_NOT_SET:
      break;
  }
  return "empty";
}

}  // namespace

absl::Status RenderAnnotations(const ::mediapipe::RenderData& render_data,
                               const AnnotationRenderOptions& options, ImageFrame* frame) {
  if (frame == nullptr || frame->IsEmpty()) {
    return absl::InvalidArgumentError("RenderAnnotations: no frame to draw on");
  }
  if (frame->Format() != ImageFormat::SRGB && frame->Format() != ImageFormat::SRGBA) {
    return absl::InvalidArgumentError(
        absl::StrCat("RenderAnnotations: can only draw on SRGB or SRGBA frames, not ",
                     ImageFormat::Format_Name(frame->Format())));
  }
  if (!(options.scale_factor > 0.0f && options.scale_factor <= 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrCat("RenderAnnotations: scale factor must be in (0, 1], got ",
                     options.scale_factor));
  }
  Renderer renderer(MatView(frame), options);
  for (int i = 0; i < render_data.render_annotations_size(); ++i) {
    const RenderAnnotation& a = render_data.render_annotations(i);
    absl::Status s;
    try {
      s = renderer.Draw(a);
    } catch (const cv::Exception& e) {
      s = absl::InvalidArgumentError(absl::StrCat("OpenCV failed: ", e.what()));
    }
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("render annotation ", i, " (", KindName(a),
                                                 "): ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace sluice
