#include <array>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using Matrix = std::array<float, 16>;
using Size = std::pair<int, int>;

constexpr Matrix kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
// Normalized x_in = 1 - x_out.
constexpr Matrix kFlipX = {-1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

ImageFrame FloatMask(int w, int h, const std::vector<float>& values) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::VEC32F1, w, h);
  for (int y = 0; y < h; ++y) {
    float* row = reinterpret_cast<float*>(f.MutableRow(y));
    for (int x = 0; x < w; ++x) row[x] = values[y * w + x];
  }
  return f;
}

std::vector<float> FloatValues(const ImageFrame& f) {
  std::vector<float> v;
  for (int y = 0; y < f.Height(); ++y) {
    const float* row = reinterpret_cast<const float*>(f.Row(y));
    v.insert(v.end(), row, row + f.Width());
  }
  return v;
}

// Runs one WarpAffineCalculator on one (image, matrix, size) at timestamp 1.
absl::StatusOr<Packet> Warp(const std::string& options, Packet image, const Matrix& m, Size size,
                            const std::string& calculator = "WarpAffineCalculator") {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "image" input_stream: "matrix" input_stream: "size"
    node {
      calculator: ")pb" + calculator + R"pb("
      input_stream: "IMAGE:image" input_stream: "MATRIX:matrix"
      input_stream: "OUTPUT_SIZE:size" output_stream: "IMAGE:out"
      )pb" + options + "}", {"out"});
  if (!c.ok()) return c.status();
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  const Timestamp t(1);
  if (auto s = graph.AddPacketToInputStream("image", image.At(t)); !s.ok()) return s;
  if (auto s = graph.AddPacketToInputStream("matrix", MakePacket<Matrix>(m).At(t)); !s.ok()) return s;
  if (auto s = graph.AddPacketToInputStream("size", MakePacket<Size>(size).At(t)); !s.ok()) return s;
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  auto packets = (*c)[0]->Packets();
  if (packets.size() != 1) return absl::InternalError("expected one output packet");
  return packets[0];
}

constexpr char kZero[] =
    "options: { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: BORDER_ZERO } }";

// A 2x2 mask upscaled to 4x4 by the identity matrix: output pixel (u, v) reads
// the input at (u/2, v/2) exactly (OpenCV's pixel convention, no half-pixel
// shift, as MediaPipe's CPU runner), bilinearly; past the last column/row the
// border mode decides.
TEST(WarpAffineCalculatorTest, FloatMaskUpscaleZeroBorder) {
  auto out = Warp(kZero, MakePacket<ImageFrame>(FloatMask(2, 2, {0, 1, 2, 3})), kIdentity, {4, 4},
                  "WarpAffineCalculatorCpu");
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = out->Get<ImageFrame>();
  EXPECT_EQ(f.Format(), ImageFormat::VEC32F1);
  EXPECT_THAT(FloatValues(f), ElementsAreArray<float>({0, 0.5, 1, 0.5,         //
                                                       1, 1.5, 2, 1,           //
                                                       2, 2.5, 3, 1.5,         //
                                                       1, 1.25, 1.5, 0.75}));
}

TEST(WarpAffineCalculatorTest, ReplicateIsTheDefaultBorder) {
  auto out = Warp("", MakePacket<ImageFrame>(FloatMask(2, 2, {0, 1, 2, 3})), kIdentity, {4, 4});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(FloatValues(out->Get<ImageFrame>()),
              ElementsAreArray<float>({0, 0.5, 1, 1, 1, 1.5, 2, 2, 2, 2.5, 3, 3, 2, 2.5, 3, 3}));
}

// Image in, Image out; SRGB. Flipping x maps output column u to input x = W - u
// (not W - 1 - u): column 0 falls just outside the input.
TEST(WarpAffineCalculatorTest, SrgbImageFlip) {
  ImageFrame rgb = *ImageFrame::Create(ImageFormat::SRGB, 4, 1);
  for (int x = 0; x < 4; ++x) {
    for (int ch = 0; ch < 3; ++ch) rgb.MutableRow(0)[x * 3 + ch] = 10 * (x + 1) + ch;
  }
  auto out = Warp(kZero, MakePacket<Image>(Image(std::move(rgb))), kFlipX, {4, 1});
  ASSERT_TRUE(out.ok()) << out.status();
  auto frame = out->Get<Image>().CpuView();
  ASSERT_TRUE(frame.ok());
  ASSERT_EQ((*frame)->Format(), ImageFormat::SRGB);
  const uint8_t* row = (*frame)->Row(0);
  EXPECT_THAT(std::vector<int>(row, row + 12),
              ElementsAreArray({0, 0, 0, 40, 41, 42, 30, 31, 32, 20, 21, 22}));
}

TEST(WarpAffineCalculatorTest, RejectsNonPositiveOutputSize) {
  auto out = Warp("", MakePacket<ImageFrame>(FloatMask(2, 2, {0, 1, 2, 3})), kIdentity, {0, 4});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("OUTPUT_SIZE must be positive"));
}

TEST(WarpAffineCalculatorTest, NeedsAllThreeInputs) {
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, R"pb(
    input_stream: "image" input_stream: "matrix"
    node {
      calculator: "WarpAffineCalculator"
      input_stream: "IMAGE:image" input_stream: "MATRIX:matrix" output_stream: "IMAGE:out"
    })pb", {});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("OUTPUT_SIZE"));
}

}  // namespace
}  // namespace sluice
