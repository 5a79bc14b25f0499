// Per-pixel maths of ColorConvertCalculator's GPU path, shared by the CUDA
// kernel (color_convert.cu), its host stand-in for the fake runtime and the
// tests. The CPU path calls cv::cvtColor, as MediaPipe does;
// color_convert_calculator_test proves these functions give cv::cvtColor's
// bytes (every RGB triple for RGB -> GRAY, real images for every pair).
//
// RGB -> GRAY is OpenCV 4's 8-bit fixed point (imgproc's gray_shift = 15):
// BT.601 weights (0.299, 0.587, 0.114) scaled by 2^15 and rounded to 9798,
// 19235, 3735 (sum 32768, so white stays 255), then (sum + 2^14) >> 15.
// (The 14-bit weights of OpenCV's YUV code, 4899/9617/1868, differ from
// cv::cvtColor on 0.26% of the RGB cube.) The other conversions move bytes;
// RGB -> RGBA sets alpha to 255 (MediaPipe's calculator does).
#ifndef SLUICE_GPU_KERNELS_COLOR_CONVERT_H_
#define SLUICE_GPU_KERNELS_COLOR_CONVERT_H_

#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace gpu_kernels {

// MediaPipe's ColorConvertCalculator pairs (IN tag -> OUT tag).
enum class ColorConversion : int {
  kRgbaToRgb = 0,   // RGBA_IN -> RGB_OUT: alpha dropped
  kGrayToRgb = 1,   // GRAY_IN -> RGB_OUT: gray replicated
  kRgbToGray = 2,   // RGB_IN -> GRAY_OUT: BT.601 luma, OpenCV rounding
  kRgbToRgba = 3,   // RGB_IN -> RGBA_OUT: alpha 255
  kBgraToRgba = 4,  // BGRA_IN -> RGBA_OUT: swap R and B
  kRgbaToBgra = 5,  // RGBA_IN -> BGRA_OUT: swap R and B
  kBgrToRgb = 6,    // BGR_IN -> RGB_OUT: swap R and B
};
constexpr int kNumColorConversions = 7;

// cv::cvtColor's RGB -> GRAY fixed-point weights (8-bit images).
constexpr int kGrayShift = 15;
constexpr int kGrayWeightR = 9798;
constexpr int kGrayWeightG = 19235;
constexpr int kGrayWeightB = 3735;

SLUICE_HOST_DEVICE int ColorConvertSrcChannels(ColorConversion c) {
  switch (c) {
    case ColorConversion::kGrayToRgb:
      return 1;
    case ColorConversion::kRgbToGray:
    case ColorConversion::kRgbToRgba:
    case ColorConversion::kBgrToRgb:
      return 3;
    default:
      return 4;
  }
}

SLUICE_HOST_DEVICE int ColorConvertDstChannels(ColorConversion c) {
  switch (c) {
    case ColorConversion::kRgbToGray:
      return 1;
    case ColorConversion::kRgbaToRgb:
    case ColorConversion::kGrayToRgb:
    case ColorConversion::kBgrToRgb:
      return 3;
    default:
      return 4;
  }
}

// Everything one launch needs.
struct ColorConvertParams {
  int width;
  int height;
  ColorConversion conversion;
  long src_pitch;  // bytes per row
  long dst_pitch;
};

SLUICE_HOST_DEVICE bool ColorConvertParamsValid(const ColorConvertParams& p) {
  const int c = static_cast<int>(p.conversion);
  return p.width > 0 && p.height > 0 && c >= 0 && c < kNumColorConversions &&
         p.src_pitch >= static_cast<long>(p.width) * ColorConvertSrcChannels(p.conversion) &&
         p.dst_pitch >= static_cast<long>(p.width) * ColorConvertDstChannels(p.conversion);
}

SLUICE_HOST_DEVICE uint8_t RgbToGrayU8(int r, int g, int b) {
  return static_cast<uint8_t>(
      (r * kGrayWeightR + g * kGrayWeightG + b * kGrayWeightB + (1 << (kGrayShift - 1))) >>
      kGrayShift);
}

// One pixel: `s` has ColorConvertSrcChannels bytes, `d` receives
// ColorConvertDstChannels bytes (they must not overlap).
SLUICE_HOST_DEVICE void ColorConvertPixelU8(const uint8_t* s, uint8_t* d, ColorConversion c) {
  switch (c) {
    case ColorConversion::kRgbaToRgb:
      d[0] = s[0];
      d[1] = s[1];
      d[2] = s[2];
      break;
    case ColorConversion::kGrayToRgb:
      d[0] = d[1] = d[2] = s[0];
      break;
    case ColorConversion::kRgbToGray:
      d[0] = RgbToGrayU8(s[0], s[1], s[2]);
      break;
    case ColorConversion::kRgbToRgba:
      d[0] = s[0];
      d[1] = s[1];
      d[2] = s[2];
      d[3] = 255;
      break;
    case ColorConversion::kBgraToRgba:
    case ColorConversion::kRgbaToBgra:
      d[0] = s[2];
      d[1] = s[1];
      d[2] = s[0];
      d[3] = s[3];
      break;
    case ColorConversion::kBgrToRgb:
      d[0] = s[2];
      d[1] = s[1];
      d[2] = s[0];
      break;
  }
}

// Pixel (x, y) of a whole image.
SLUICE_HOST_DEVICE void ColorConvertPixelAtU8(const uint8_t* src, uint8_t* dst,
                                              const ColorConvertParams& p, int x, int y) {
  const long sx = static_cast<long>(x) * ColorConvertSrcChannels(p.conversion);
  const long dx = static_cast<long>(x) * ColorConvertDstChannels(p.conversion);
  ColorConvertPixelU8(src + y * p.src_pitch + sx, dst + y * p.dst_pitch + dx, p.conversion);
}

// The CPU loop over every pixel (the fake runtime's "kernel"; tests).
SLUICE_HOST_DEVICE void ColorConvertLoopU8(const uint8_t* src, uint8_t* dst,
                                           const ColorConvertParams& p) {
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) ColorConvertPixelAtU8(src, dst, p, x, y);
  }
}

}  // namespace gpu_kernels
}  // namespace sluice

#endif  // SLUICE_GPU_KERNELS_COLOR_CONVERT_H_
