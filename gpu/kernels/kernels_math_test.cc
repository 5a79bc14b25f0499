// The per-pixel maths shared by the CPU path and the CUDA kernels, on the CPU
// (the CI has no GPU). Expected values are worked out by hand from MediaPipe's
// shaders (luma weights 0.2125/0.7154/0.0721; Sobel with clamp-to-edge).
#include <cmath>
#include <cstdint>
#include <vector>

#include "gpu/kernels/host_device.h"
#include "gpu/kernels/luminance.h"
#include "gpu/kernels/sobel.h"
#include "gtest/gtest.h"

namespace sluice {
namespace gpu_kernels {
namespace {

TEST(GpuKernelsMathTest, UnitToByteClampsAndRoundsToNearest) {
  EXPECT_EQ(UnitToByte(-0.25f), 0);
  EXPECT_EQ(UnitToByte(0.f), 0);
  EXPECT_EQ(UnitToByte(0.5f), 128);  // 127.5 rounds up
  EXPECT_EQ(UnitToByte(1.f), 255);
  EXPECT_EQ(UnitToByte(7.f), 255);
}

TEST(GpuKernelsMathTest, LuminanceUsesMediaPipeWeightsAndKeepsAlpha) {
  const uint8_t red[4] = {255, 0, 0, 17}, green[4] = {0, 255, 0, 200}, blue[4] = {0, 0, 255, 255};
  uint8_t out[4];
  LuminancePixelU8(red, out, 4);
  EXPECT_EQ(out[0], 54);  // 0.2125 * 255 = 54.19
  EXPECT_EQ(out[1], 54);
  EXPECT_EQ(out[2], 54);
  EXPECT_EQ(out[3], 17);
  LuminancePixelU8(green, out, 4);
  EXPECT_EQ(out[0], 182);  // 0.7154 * 255 = 182.43
  EXPECT_EQ(out[3], 200);
  LuminancePixelU8(blue, out, 4);
  EXPECT_EQ(out[0], 18);  // 0.0721 * 255 = 18.39
  const uint8_t white[3] = {255, 255, 255};
  uint8_t out3[4] = {0, 0, 0, 99};
  LuminancePixelU8(white, out3, 3);
  EXPECT_EQ(out3[0], 255);  // the weights sum to 1
  EXPECT_EQ(out3[3], 99);   // three channels: nothing written past them
}

TEST(GpuKernelsMathTest, LuminanceMayRunInPlace) {
  uint8_t px[3] = {10, 20, 30};
  LuminancePixelU8(px, px, 3);
  const int expected = static_cast<int>(0.2125 * 10 + 0.7154 * 20 + 0.0721 * 30 + 0.5);
  EXPECT_EQ(px[0], expected);
  EXPECT_EQ(px[2], expected);
}

// Runs SobelPixelU8 over a one-channel image.
std::vector<uint8_t> Sobel(const std::vector<uint8_t>& src, int w, int h) {
  std::vector<uint8_t> dst(src.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) SobelPixelU8(src.data(), w, &dst[y * w + x], w, h, 1, x, y);
  }
  return dst;
}

TEST(GpuKernelsMathTest, SobelOfAVerticalStepIsFourTimesTheStep) {
  // Columns 0..2 are 0, columns 3..5 are 32: the two columns beside the step
  // see |gx| = (1 + 2 + 1) * 32; flat columns see 0, also at the clamped rows.
  const int w = 6, h = 3;
  std::vector<uint8_t> src(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) src[y * w + x] = x >= 3 ? 32 : 0;
  std::vector<uint8_t> out = Sobel(src, w, h);
  for (int y = 0; y < h; ++y) {
    EXPECT_EQ(out[y * w + 0], 0) << y;
    EXPECT_EQ(out[y * w + 1], 0) << y;
    EXPECT_EQ(out[y * w + 2], 128) << y;
    EXPECT_EQ(out[y * w + 3], 128) << y;
    EXPECT_EQ(out[y * w + 5], 0) << y;
  }
}

TEST(GpuKernelsMathTest, SobelOfAHorizontalStepUsesTheVerticalGradient) {
  const int w = 3, h = 4;
  std::vector<uint8_t> src = {0, 0, 0, 0, 0, 0, 20, 20, 20, 20, 20, 20};
  std::vector<uint8_t> out = Sobel(src, w, h);
  EXPECT_EQ(out[0 * w + 1], 0);
  EXPECT_EQ(out[1 * w + 1], 80);
  EXPECT_EQ(out[2 * w + 1], 80);
  EXPECT_EQ(out[3 * w + 1], 0);
  EXPECT_EQ(out[1 * w + 0], 80);  // left neighbours clamp to the edge column
}

TEST(GpuKernelsMathTest, SobelMagnitudeCombinesBothGradients) {
  // One bright pixel: its diagonal neighbour sees it as a corner sample,
  // gx = gy = v, so the magnitude is v * sqrt(2).
  const int w = 5, h = 5;
  std::vector<uint8_t> src(w * h, 0);
  src[2 * w + 2] = 50;
  std::vector<uint8_t> out = Sobel(src, w, h);
  EXPECT_EQ(out[1 * w + 1], static_cast<int>(std::lround(50 * std::sqrt(2.0))));
  EXPECT_EQ(out[2 * w + 1], 100);  // left neighbour: gx = 2v, gy = 0
  EXPECT_EQ(out[2 * w + 2], 0);    // Sobel ignores the centre
}

TEST(GpuKernelsMathTest, SobelWritesOpaqueGrayForRgba) {
  const int w = 2, h = 1;
  const uint8_t src[8] = {0, 9, 9, 9, 64, 9, 9, 9};  // only channel 0 counts
  uint8_t dst[8] = {};
  for (int x = 0; x < w; ++x) SobelPixelU8(src, 8, dst + 4 * x, w, h, 4, x, 0);
  EXPECT_EQ(dst[0], 255);  // |gx| = 4 * 64 / 255 > 1: saturates
  EXPECT_EQ(dst[1], 255);
  EXPECT_EQ(dst[2], 255);
  EXPECT_EQ(dst[3], 255);
  EXPECT_EQ(dst[7], 255);
}

TEST(GpuKernelsMathTest, SobelOfOnePixelIsZero) {
  std::vector<uint8_t> out = Sobel({200}, 1, 1);
  EXPECT_EQ(out[0], 0);
}

}  // namespace
}  // namespace gpu_kernels
}  // namespace sluice
