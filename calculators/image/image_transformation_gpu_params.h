// The geometry of ImageTransformationCalculator as launch parameters of its
// GPU maths (gpu/kernels/image_transformation.h): rotated size, fitted size
// and placement, interpolation, padding. The same decisions as the CPU path
// (image_transformation_calculator.cc) takes with OpenCV, in plain C++, so
// the calculator's GPU path and the CI's CPU loop of the GPU maths share them.
#ifndef SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_PARAMS_H_
#define SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_PARAMS_H_

#include <algorithm>
#include <array>
#include <cmath>

#include "gpu/kernels/image_transformation.h"

namespace sluice {
namespace image_transformation {

enum class FitMode { kStretch, kFit, kFillAndCrop };

struct TransformSpec {
  int degrees = 0;    // counterclockwise: 0, 90, 180, 270
  int out_width = 0;  // 0 (either) keeps the rotated size
  int out_height = 0;
  FitMode mode = FitMode::kStretch;
  bool nearest = false;  // interpolation_mode: NEAREST
  bool flip_h = false;
  bool flip_v = false;
  bool constant_padding = true;
  int pad_rgb[3] = {0, 0, 0};
};

// Fills `p` (all but the pitches, which belong to the buffers) and the
// LETTERBOX_PADDING fractions for a width x height image of `channels`
// 8-bit channels. False when the result would be empty (FIT or
// FILL_AND_CROP of an extreme aspect ratio), which the CPU path reports as an
// OpenCV error.
inline bool PlanImageTransform(int width, int height, int channels, const TransformSpec& s,
                               gpu_kernels::ImageTransformParams* p,
                               std::array<float, 4>* padding) {
  using gpu_kernels::ImageTransformParams;
  *p = ImageTransformParams{};
  *padding = {0.f, 0.f, 0.f, 0.f};
  p->src_width = width;
  p->src_height = height;
  p->channels = channels;
  p->rotation = s.degrees;
  const bool swapped = s.degrees == 90 || s.degrees == 270;
  const int w = swapped ? height : width;
  const int h = swapped ? width : height;
  p->rot_width = w;
  p->rot_height = h;
  p->fit_width = w;
  p->fit_height = h;
  bool area = false;
  if (s.out_width > 0 && s.out_height > 0) {
    if (s.mode == FitMode::kStretch) {
      p->fit_width = s.out_width;
      p->fit_height = s.out_height;
      area = w > s.out_width && h > s.out_height;
    } else {
      const float scale =
          std::min(static_cast<float>(s.out_width) / w, static_cast<float>(s.out_height) / h);
      p->fit_width = static_cast<int>(std::round(w * scale));
      p->fit_height = static_cast<int>(std::round(h * scale));
      area = scale < 1.0f;
      if (s.mode == FitMode::kFit) {
        p->fit_top = (s.out_height - p->fit_height) / 2;
        p->fit_left = (s.out_width - p->fit_width) / 2;
        const float in_aspect = static_cast<float>(w) / h;
        const float out_aspect = static_cast<float>(s.out_width) / s.out_height;
        if (in_aspect < out_aspect) {
          (*padding)[0] = (*padding)[2] = (1.0f - in_aspect / out_aspect) / 2.0f;
        } else if (out_aspect < in_aspect) {
          (*padding)[1] = (*padding)[3] = (1.0f - out_aspect / in_aspect) / 2.0f;
        }
      }
    }
  }
  if (p->fit_width <= 0 || p->fit_height <= 0) return false;
  const bool fit_pads = s.mode == FitMode::kFit && s.out_width > 0 && s.out_height > 0;
  p->dst_width = fit_pads ? s.out_width : p->fit_width;
  p->dst_height = fit_pads ? s.out_height : p->fit_height;
  p->scale_x = 1.0 / (static_cast<double>(p->fit_width) / w);
  p->scale_y = 1.0 / (static_cast<double>(p->fit_height) / h);
  if (p->fit_width == w && p->fit_height == h) {
    p->interpolation = gpu_kernels::kImageTransformCopy;  // cv::resize copies
  } else if (s.nearest) {
    p->interpolation = gpu_kernels::kImageTransformNearest;
  } else {
    p->interpolation = area ? gpu_kernels::kImageTransformArea : gpu_kernels::kImageTransformLinear;
  }
  p->area_2x2 = p->interpolation == gpu_kernels::kImageTransformArea && w == 2 * p->fit_width &&
                h == 2 * p->fit_height;
  p->area_fast = p->interpolation == gpu_kernels::kImageTransformArea && !p->area_2x2 &&
                 w % p->fit_width == 0 && h % p->fit_height == 0;
  p->replicate_padding = s.constant_padding ? 0 : 1;
  // cv::Scalar(red, green, blue) saturated to bytes; a 4th channel gets 0.
  for (int c = 0; c < 3; ++c) {
    p->pad[c] = static_cast<uint8_t>(std::clamp(s.pad_rgb[c], 0, 255));
  }
  p->pad[3] = 0;
  p->flip_h = s.flip_h ? 1 : 0;
  p->flip_v = s.flip_v ? 1 : 0;
  return true;
}

}  // namespace image_transformation
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_IMAGE_IMAGE_TRANSFORMATION_GPU_PARAMS_H_
