// Per-pixel maths of ImageTransformationCalculator's GPU path, shared by the
// CUDA kernel (image_transformation.cu), its host stand-in for the fake
// runtime and a CPU loop the CI tests against the CPU (OpenCV) path.
//
// The CPU path rotates (cv::rotate, exact), resizes (cv::resize: INTER_AREA
// when shrinking, INTER_LINEAR otherwise, or INTER_NEAREST), pads for FIT
// (cv::copyMakeBorder, constant or replicate) and flips (cv::flip). Here each
// output pixel walks that chain backwards: undo the flip, drop into the
// fitted region (or the padding), resample the rotated image the way
// cv::resize does (its sample positions and area weights), and read the
// rotated image through the rotation's index map. 8-bit images with 1 to 4
// interleaved channels. The resampling repeats OpenCV's 8-bit arithmetic
// (11-bit bilinear weights and its rounding; its INTER_AREA cell tables,
// summation order and rounding), so the results match the CPU path bit for
// bit (image_transformation_gpu_math_test; the .cu is built without FMA
// contraction so that the device computes the same floats).
#ifndef SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_H_
#define SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_H_

#include <math.h>
#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

enum ImageTransformInterpolation : int {
  kImageTransformCopy = 0,     // fitted size == rotated size: no resampling
  kImageTransformNearest = 1,  // cv::INTER_NEAREST
  kImageTransformLinear = 2,   // cv::INTER_LINEAR (pixel centres, clamped)
  kImageTransformArea = 3,     // cv::INTER_AREA, shrinking in both directions
};

// Everything one launch needs, passed by value to the kernel. Build it with
// PlanImageTransform (calculators/image/image_transformation_plan.h).
struct ImageTransformParams {
  int src_width;
  int src_height;
  int channels;  // 1..4, interleaved 8-bit
  long src_pitch;
  int rotation;   // counterclockwise degrees: 0, 90, 180 or 270
  int rot_width;  // the rotated image's size
  int rot_height;
  int fit_width;  // the resized image's size (the output size unless FIT pads)
  int fit_height;
  int fit_left;  // where the resized image sits in the output (FIT)
  int fit_top;
  int dst_width;
  int dst_height;
  long dst_pitch;
  int interpolation;  // ImageTransformInterpolation
  // Source pixels per output pixel, as OpenCV computes them: 1 / (fit / rot).
  double scale_x;
  double scale_y;
  int area_2x2;           // kImageTransformArea halving both sides exactly
  int area_fast;          // kImageTransformArea by integer factors (not 2x2)
  int replicate_padding;  // FIT: 1 replicates edges, 0 pads with pad[]
  uint8_t pad[4];
  int flip_h;
  int flip_v;
};

// The source index of pixel (rx, ry) of the rotated image.
SLUICE_HOST_DEVICE const uint8_t* ImageTransformRotatedTexel(const uint8_t* src,
                                                             const ImageTransformParams& p, int rx,
                                                             int ry) {
  int sx = rx, sy = ry;
  if (p.rotation == 90) {  // cv::ROTATE_90_COUNTERCLOCKWISE
    sx = p.src_width - 1 - ry;
    sy = rx;
  } else if (p.rotation == 180) {
    sx = p.src_width - 1 - rx;
    sy = p.src_height - 1 - ry;
  } else if (p.rotation == 270) {  // cv::ROTATE_90_CLOCKWISE
    sx = ry;
    sy = p.src_height - 1 - rx;
  }
  return src + sy * p.src_pitch + static_cast<long>(sx) * p.channels;
}

// cv::resize's INTER_LINEAR taps along one axis for 8-bit images: sample
// position of output index `d` at pixel centres (computed as OpenCV does, in
// double then float), clamped to the edge, weights in 11-bit fixed point.
// Columns outside the image take the edge pixel with weight 1; rows outside
// keep their fraction and read the edge row twice (OpenCV clamps the row
// index only, which rounds differently).
SLUICE_HOST_DEVICE void ImageTransformLinearTaps(int d, double scale, int size, bool is_row,
                                                 int* i0, int* i1, int* w0, int* w1) {
  float f = static_cast<float>((d + 0.5) * scale - 0.5);
  int i = static_cast<int>(floorf(f));
  f -= static_cast<float>(i);
  if (is_row) {
    *i0 = ClampInt(i, 0, size - 1);
    *i1 = ClampInt(i + 1, 0, size - 1);
    *w0 = static_cast<int>(rintf((1.f - f) * 2048.f));
    *w1 = static_cast<int>(rintf(f * 2048.f));
    return;
  }
  if (i < 0) {
    i = 0;
    f = 0.f;
  }
  if (i >= size - 1) {
    i = size - 1;
    f = 0.f;
  }
  *i0 = i;
  *i1 = i + 1 < size ? i + 1 : i;
  *w0 = static_cast<int>(rintf((1.f - f) * 2048.f));
  *w1 = static_cast<int>(rintf(f * 2048.f));
}

// The source cells of output index `d` along one axis of INTER_AREA, with
// their weights, as OpenCV tabulates them (computeResizeAreaTab): an optional
// partial cell `first`, whole cells [full_begin, full_end), an optional
// partial cell `last` (-1 when absent; overlaps under 1e-3 are dropped);
// weights computed in double, stored as float.
struct ImageTransformAreaSpan {
  int first;
  int full_begin;
  int full_end;
  int last;
  float w_first;
  float w_full;
  float w_last;
};

SLUICE_HOST_DEVICE ImageTransformAreaSpan ImageTransformAreaCells(int d, double scale, int size) {
  const double lo = d * scale;
  const double hi = lo + scale;
  const double cell = scale < size - lo ? scale : size - lo;
  int s1 = static_cast<int>(ceil(lo));
  int s2 = static_cast<int>(floor(hi));
  s2 = s2 < size - 1 ? s2 : size - 1;
  s1 = s1 < s2 ? s1 : s2;
  ImageTransformAreaSpan span;
  span.full_begin = s1;
  span.full_end = s2;
  span.w_full = static_cast<float>(1.0 / cell);
  span.first = -1;
  span.w_first = 0.f;
  if (s1 - lo > 1e-3) {
    span.first = s1 - 1;
    span.w_first = static_cast<float>((s1 - lo) / cell);
  }
  span.last = -1;
  span.w_last = 0.f;
  if (hi - s2 > 1e-3) {
    double part = hi - s2 < 1.0 ? hi - s2 : 1.0;
    part = part < cell ? part : cell;
    span.last = s2;
    span.w_last = static_cast<float>(part / cell);
  }
  return span;
}

// The k-th cell of `span` (in increasing order) and its weight; false past
// the end.
SLUICE_HOST_DEVICE bool ImageTransformAreaCell(const ImageTransformAreaSpan& span, int k, int* i,
                                               float* w) {
  if (span.first >= 0) {
    if (k == 0) {
      *i = span.first;
      *w = span.w_first;
      return true;
    }
    --k;
  }
  if (k < span.full_end - span.full_begin) {
    *i = span.full_begin + k;
    *w = span.w_full;
    return true;
  }
  if (k == span.full_end - span.full_begin && span.last >= 0) {
    *i = span.last;
    *w = span.w_last;
    return true;
  }
  return false;
}

// Float to byte as OpenCV's saturate_cast: round half to even, saturate.
SLUICE_HOST_DEVICE uint8_t ImageTransformRound(float v) {
  v = rintf(v);
  return static_cast<uint8_t>(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
}

// Resamples pixel (fx, fy) of the fitted (resized) image into out[channels].
SLUICE_HOST_DEVICE void ImageTransformResample(const uint8_t* src, const ImageTransformParams& p,
                                               int fx, int fy, uint8_t* out) {
  if (p.interpolation == kImageTransformCopy) {
    const uint8_t* t = ImageTransformRotatedTexel(src, p, fx, fy);
    for (int c = 0; c < p.channels; ++c) out[c] = t[c];
    return;
  }
  if (p.interpolation == kImageTransformNearest) {
    // cv::INTER_NEAREST: floor(d * src / dst), exact in integers.
    int rx = static_cast<int>(static_cast<long long>(fx) * p.rot_width / p.fit_width);
    int ry = static_cast<int>(static_cast<long long>(fy) * p.rot_height / p.fit_height);
    rx = rx < p.rot_width - 1 ? rx : p.rot_width - 1;
    ry = ry < p.rot_height - 1 ? ry : p.rot_height - 1;
    const uint8_t* t = ImageTransformRotatedTexel(src, p, rx, ry);
    for (int c = 0; c < p.channels; ++c) out[c] = t[c];
    return;
  }
  if (p.interpolation == kImageTransformLinear) {
    // OpenCV's arithmetic: rows first (11-bit weights, exact in int), then
    // columns as its SIMD body computes them ((h >> 4) * w >> 16, + 2 >> 2).
    int x0, x1, y0, y1, ax0, ax1, ay0, ay1;
    ImageTransformLinearTaps(fx, p.scale_x, p.rot_width, false, &x0, &x1, &ax0, &ax1);
    ImageTransformLinearTaps(fy, p.scale_y, p.rot_height, true, &y0, &y1, &ay0, &ay1);
    const uint8_t* t00 = ImageTransformRotatedTexel(src, p, x0, y0);
    const uint8_t* t10 = ImageTransformRotatedTexel(src, p, x1, y0);
    const uint8_t* t01 = ImageTransformRotatedTexel(src, p, x0, y1);
    const uint8_t* t11 = ImageTransformRotatedTexel(src, p, x1, y1);
    for (int c = 0; c < p.channels; ++c) {
      const int top = t00[c] * ax0 + t10[c] * ax1;
      const int bottom = t01[c] * ax0 + t11[c] * ax1;
      const int v = ((((top >> 4) * ay0) >> 16) + (((bottom >> 4) * ay1) >> 16) + 2) >> 2;
      out[c] = static_cast<uint8_t>(ClampInt(v, 0, 255));
    }
    return;
  }
  if (p.area_2x2) {
    // OpenCV's 2x2 box average: integer sum, rounded half up.
    const uint8_t* t00 = ImageTransformRotatedTexel(src, p, 2 * fx, 2 * fy);
    const uint8_t* t10 = ImageTransformRotatedTexel(src, p, 2 * fx + 1, 2 * fy);
    const uint8_t* t01 = ImageTransformRotatedTexel(src, p, 2 * fx, 2 * fy + 1);
    const uint8_t* t11 = ImageTransformRotatedTexel(src, p, 2 * fx + 1, 2 * fy + 1);
    for (int c = 0; c < p.channels; ++c) {
      out[c] = static_cast<uint8_t>((t00[c] + t10[c] + t01[c] + t11[c] + 2) >> 2);
    }
    return;
  }
  if (p.area_fast) {
    // OpenCV's integer-factor box average: integer sum times 1/area in float.
    const int kx = p.rot_width / p.fit_width;
    const int ky = p.rot_height / p.fit_height;
    const float inv_area = 1.f / static_cast<float>(kx * ky);
    int sum[4] = {0, 0, 0, 0};
    for (int ry = fy * ky; ry < (fy + 1) * ky; ++ry) {
      for (int rx = fx * kx; rx < (fx + 1) * kx; ++rx) {
        const uint8_t* t = ImageTransformRotatedTexel(src, p, rx, ry);
        for (int c = 0; c < p.channels; ++c) sum[c] += t[c];
      }
    }
    for (int c = 0; c < p.channels; ++c) {
      out[c] = ImageTransformRound(static_cast<float>(sum[c]) * inv_area);
    }
    return;
  }
  // INTER_AREA, any factor: OpenCV's cells and weights, summed as it does
  // (each source row across in float, then the rows down in float).
  const ImageTransformAreaSpan xs = ImageTransformAreaCells(fx, p.scale_x, p.rot_width);
  const ImageTransformAreaSpan ys = ImageTransformAreaCells(fy, p.scale_y, p.rot_height);
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int ry, rx;
  float wy, wx;
  for (int ky = 0; ImageTransformAreaCell(ys, ky, &ry, &wy); ++ky) {
    float row[4] = {0.f, 0.f, 0.f, 0.f};
    for (int kx = 0; ImageTransformAreaCell(xs, kx, &rx, &wx); ++kx) {
      const uint8_t* t = ImageTransformRotatedTexel(src, p, rx, ry);
      for (int c = 0; c < p.channels; ++c) row[c] += static_cast<float>(t[c]) * wx;
    }
    for (int c = 0; c < p.channels; ++c) acc[c] += wy * row[c];
  }
  for (int c = 0; c < p.channels; ++c) out[c] = ImageTransformRound(acc[c]);
}

// Output pixel (x, y) into out[channels].
SLUICE_HOST_DEVICE void ImageTransformPixelU8(const uint8_t* src, const ImageTransformParams& p,
                                              int x, int y, uint8_t* out) {
  // cv::flip is last on the CPU path: undo it first.
  if (p.flip_h) x = p.dst_width - 1 - x;
  if (p.flip_v) y = p.dst_height - 1 - y;
  int fx = x - p.fit_left;
  int fy = y - p.fit_top;
  if (fx < 0 || fy < 0 || fx >= p.fit_width || fy >= p.fit_height) {
    if (!p.replicate_padding) {
      for (int c = 0; c < p.channels; ++c) out[c] = p.pad[c];
      return;
    }
    fx = ClampInt(fx, 0, p.fit_width - 1);
    fy = ClampInt(fy, 0, p.fit_height - 1);
  }
  ImageTransformResample(src, p, fx, fy, out);
}

// The whole output image on the calling thread: the CPU loop the tests run,
// and the fake runtime's "kernel".
SLUICE_HOST_DEVICE void ImageTransformLoopU8(const uint8_t* src, const ImageTransformParams& p,
                                             uint8_t* dst) {
  for (int y = 0; y < p.dst_height; ++y) {
    for (int x = 0; x < p.dst_width; ++x) {
      ImageTransformPixelU8(src, p, x, y,
                            dst + y * p.dst_pitch + static_cast<long>(x) * p.channels);
    }
  }
}

// Whether the launch parameters describe something the kernel handles.
SLUICE_HOST_DEVICE bool ImageTransformParamsValid(const ImageTransformParams& p) {
  const bool rot_ok = p.rotation == 0 || p.rotation == 90 || p.rotation == 180 || p.rotation == 270;
  const bool swapped = p.rotation == 90 || p.rotation == 270;
  const bool src_ok = p.src_width > 0 && p.src_height > 0 && p.channels >= 1 && p.channels <= 4 &&
                      p.src_pitch >= static_cast<long>(p.src_width) * p.channels &&
                      p.rot_width == (swapped ? p.src_height : p.src_width) &&
                      p.rot_height == (swapped ? p.src_width : p.src_height);
  const bool dst_ok = p.dst_width > 0 && p.dst_height > 0 &&
                      p.dst_pitch >= static_cast<long>(p.dst_width) * p.channels;
  const bool fit_ok = p.fit_width > 0 && p.fit_height > 0 && p.fit_left >= 0 && p.fit_top >= 0 &&
                      p.fit_left + p.fit_width <= p.dst_width &&
                      p.fit_top + p.fit_height <= p.dst_height;
  const bool interp_ok =
      p.interpolation == kImageTransformNearest || p.interpolation == kImageTransformLinear ||
      (p.interpolation == kImageTransformCopy && p.fit_width == p.rot_width &&
       p.fit_height == p.rot_height) ||
      (p.interpolation == kImageTransformArea && p.scale_x >= 1.0 && p.scale_y >= 1.0);
  // The box paths read whole boxes: the factors must be what they claim.
  const bool box_ok =
      (!p.area_2x2 || (p.rot_width == 2 * p.fit_width && p.rot_height == 2 * p.fit_height)) &&
      (!p.area_fast || (p.rot_width % p.fit_width == 0 && p.rot_height % p.fit_height == 0));
  return rot_ok && src_ok && dst_ok && fit_ok && interp_ok && box_ok;
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_IMAGE_TRANSFORMATION_H_
