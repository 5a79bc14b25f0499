// A fixed set of annotations for the overlay tests (CPU drawing vs layer +
// composite, on the CPU loop and on the GPU path): a hand with MediaPipe's
// style and its handedness label, a detection box with keypoints, a rotated
// ROI, thin and thick crossing lines over each other, and a label with a
// background. Covers overwrites (fills, stroke interiors), antialiased edges
// and blends over earlier blends.
#ifndef SLUICE_RENDER_TESTING_OVERLAY_SCENE_H_
#define SLUICE_RENDER_TESTING_OVERLAY_SCENE_H_

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "formats/image_frame.h"
#include "render/drawing.h"

namespace sluice {
namespace overlay_testing {

inline ::mediapipe::NormalizedLandmarkList HandLandmarks(float cx, float cy, float s) {
  // Wrist, then four joints on each of five fingers fanning upwards.
  ::mediapipe::NormalizedLandmarkList list;
  auto add = [&](float x, float y) {
    auto* lm = list.add_landmark();
    lm->set_x(cx + s * x);
    lm->set_y(cy + s * y);
  };
  add(0.f, 0.f);
  for (int f = 0; f < 5; ++f) {
    const float angle = -2.4f + 0.42f * f;
    for (int j = 1; j <= 4; ++j) {
      const float r = 0.25f * j + (f == 0 ? 0.f : 0.3f);
      add(r * std::cos(angle) * 0.9f, r * std::sin(angle));
    }
  }
  return list;
}

// Draws the scene; `variant` moves it so that frames differ.
inline absl::Status DrawScene(ImageFrame* frame, int variant = 0) {
  const float shift = 0.03f * variant;
  ::mediapipe::ClassificationList handedness;
  auto* c = handedness.add_classification();
  c->set_label("Left");
  c->set_score(0.97f);
  if (auto s = DrawHand(frame, HandLandmarks(0.35f + shift, 0.7f, 0.3f), &handedness); !s.ok()) {
    return s;
  }

  ::mediapipe::Detection det;
  auto* loc = det.mutable_location_data();
  loc->set_format(::mediapipe::LocationData::RELATIVE_BOUNDING_BOX);
  auto* box = loc->mutable_relative_bounding_box();
  box->set_xmin(0.55f - shift);
  box->set_ymin(0.1f);
  box->set_width(0.33f);
  box->set_height(0.41f);
  for (float k : {0.6f, 0.7f, 0.8f}) {
    auto* kp = loc->add_relative_keypoints();
    kp->set_x(k - shift);
    kp->set_y(0.25f + 0.1f * (k - 0.6f));
  }
  if (auto s = DrawDetection(frame, det, {kRed, -1, 4}, {kBlue, 3, 2}); !s.ok()) return s;

  ::mediapipe::NormalizedRect rect;
  rect.set_x_center(0.5f + shift);
  rect.set_y_center(0.45f);
  rect.set_width(0.4f);
  rect.set_height(0.3f);
  rect.set_rotation(0.4f + 0.1f * variant);
  if (auto s = DrawNormalizedRect(frame, rect, {kGreen, 2, 2}); !s.ok()) return s;

  // Thin and thick lines crossing each other and the shapes above:
  // antialiased edges blended over earlier antialiased edges.
  ::mediapipe::NormalizedLandmarkList star;
  for (int i = 0; i < 9; ++i) {
    auto* lm = star.add_landmark();
    lm->set_x(0.5f + 0.35f * std::cos(0.7f * i + shift));
    lm->set_y(0.5f + 0.35f * std::sin(0.7f * i + shift));
  }
  std::vector<Connection> lines;
  for (int i = 0; i < 9; ++i) lines.push_back({i, (i + 4) % 9});
  LandmarksStyle style;
  style.connection = {Rgb{250, 200, 20}, 1, 2};
  style.connection_specs[{0, 4}] = {Rgb{20, 90, 240}, 5, 2};
  style.connection_specs[{3, 7}] = {Rgb{200, 30, 160}, 3, 2};
  style.landmark = {Rgb{10, 250, 250}, 1, 6};
  if (auto s = DrawLandmarks(frame, star, lines, style); !s.ok()) return s;

  LabelStyle label;
  label.font_scale = 0.9;
  label.thickness = 2;
  label.text = {255, 255, 0};
  label.background = {30, 30, 120};
  if (auto s = DrawLabel(frame, "Sluice 0.99", 0.05f, 0.1f + shift, label); !s.ok()) return s;
  LabelStyle bare;
  bare.draw_background = false;
  return DrawLabel(frame, "no background", 0.6f, 0.95f, bare);
}

}  // namespace overlay_testing
}  // namespace sluice

#endif  // SLUICE_RENDER_TESTING_OVERLAY_SCENE_H_
