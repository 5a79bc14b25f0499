#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;

// A GRAY8 frame whose pixel (x, y) holds 10 * y + x.
ImageFrame Numbered(int w, int h) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::GRAY8, w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) f.MutableRow(y)[x] = static_cast<uint8_t>(10 * y + x);
  }
  return f;
}

struct Result {
  absl::Status status;
  std::vector<Packet> images, padding;
};

// One node named "xform" with `extra` ports/options; extra graph inputs are
// fed from `inputs` (stream name -> packet) at timestamp 0.
Result RunXform(const std::string& extra, Packet image,
                const std::vector<std::pair<std::string, Packet>>& inputs = {}) {
  Result r;
  std::string config = "input_stream: \"in\"\n";
  for (const auto& [name, p] : inputs) absl::StrAppend(&config, "input_stream: \"", name, "\"\n");
  absl::StrAppend(&config,
                  "node { name: \"xform\" calculator: \"ImageTransformationCalculator\" "
                  "input_stream: \"IMAGE:in\" output_stream: \"IMAGE:out\" "
                  "output_stream: \"LETTERBOX_PADDING:pad\" ",
                  extra, " }");
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, config, {"out", "pad"});
  if (!c.ok()) {
    r.status = c.status();
    return r;
  }
  r.status = graph.StartRun({});
  if (!r.status.ok()) return r;
  for (const auto& [name, p] : inputs) {
    (void)graph.AddPacketToInputStream(name, p.At(Timestamp(0)));
  }
  (void)graph.AddPacketToInputStream("in", image.At(Timestamp(0)));
  (void)graph.CloseAllInputStreams();
  r.status = graph.WaitUntilDone();
  r.images = (*c)[0]->Packets();
  r.padding = (*c)[1]->Packets();
  return r;
}

std::string Options(const std::string& body) {
  return "options { [mediapipe.ImageTransformationCalculatorOptions.ext] { " + body + " } }";
}

TEST(ImageTransformationCalculatorTest, Rotates90CounterclockwiseExactly) {
  Result r =
      RunXform(Options("rotation_mode: ROTATION_90"), MakePacket<ImageFrame>(Numbered(3, 2)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.images.size(), 1u);
  const ImageFrame& out = r.images[0].Get<ImageFrame>();
  ASSERT_EQ(out.Width(), 2);
  ASSERT_EQ(out.Height(), 3);
  // Counterclockwise: output (x, y) shows input (W - 1 - y, x).
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 2; ++x) EXPECT_EQ(out.Row(y)[x], 10 * x + (2 - y)) << x << "," << y;
  }
}

TEST(ImageTransformationCalculatorTest, FlipsAfterRotation) {
  Result r = RunXform(Options("rotation_mode: ROTATION_180 flip_horizontally: true"),
                      MakePacket<ImageFrame>(Numbered(3, 2)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  const ImageFrame& out = r.images[0].Get<ImageFrame>();
  // 180 then a horizontal flip = a vertical flip.
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(out.Row(y)[x], 10 * (1 - y) + x);
  }
  Result v = RunXform(Options("flip_vertically: true flip_horizontally: true"),
                      MakePacket<ImageFrame>(Numbered(3, 2)));
  ASSERT_TRUE(v.status.ok());
  EXPECT_EQ(v.images[0].Get<ImageFrame>().Row(0)[0], 12);
}

TEST(ImageTransformationCalculatorTest, FitLetterboxesWithThePaddingColor) {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGB, 10, 10);
  for (int y = 0; y < 10; ++y) std::fill(f.MutableRow(y), f.MutableRow(y) + 30, 200);
  Result r = RunXform(Options("output_width: 20 output_height: 40 scale_mode: FIT "
                              "padding_color { red: 1 green: 2 blue: 3 }"),
                      MakePacket<ImageFrame>(std::move(f)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  const ImageFrame& out = r.images[0].Get<ImageFrame>();
  EXPECT_EQ(out.Width(), 20);
  EXPECT_EQ(out.Height(), 40);
  EXPECT_EQ(out.Row(0)[0], 1);
  EXPECT_EQ(out.Row(0)[2], 3);
  EXPECT_EQ(out.Row(20)[30], 200);  // The scaled image sits in rows 10..29.
  EXPECT_EQ(out.Row(39)[1], 2);
  const auto& pad = r.padding[0].Get<std::array<float, 4>>();
  EXPECT_FLOAT_EQ(pad[0], 0.0f);
  EXPECT_FLOAT_EQ(pad[1], 0.25f);
  EXPECT_FLOAT_EQ(pad[2], 0.0f);
  EXPECT_FLOAT_EQ(pad[3], 0.25f);
}

TEST(ImageTransformationCalculatorTest, StretchAndFillAndCropSizes) {
  Result s =
      RunXform(Options("output_width: 8 output_height: 3"), MakePacket<ImageFrame>(Numbered(4, 2)));
  ASSERT_TRUE(s.status.ok()) << s.status;
  EXPECT_EQ(s.images[0].Get<ImageFrame>().Width(), 8);
  EXPECT_EQ(s.images[0].Get<ImageFrame>().Height(), 3);
  EXPECT_EQ((s.padding[0].Get<std::array<float, 4>>()[1]), 0.0f);
  // MediaPipe's CPU FILL_AND_CROP keeps the aspect ratio at the fitted size.
  Result f = RunXform(Options("output_width: 20 output_height: 20 scale_mode: FILL_AND_CROP"),
                      MakePacket<ImageFrame>(Numbered(5, 10)));
  ASSERT_TRUE(f.status.ok()) << f.status;
  EXPECT_EQ(f.images[0].Get<ImageFrame>().Width(), 10);
  EXPECT_EQ(f.images[0].Get<ImageFrame>().Height(), 20);
}

TEST(ImageTransformationCalculatorTest, StreamsOverrideOptionsAndImagesStayImages) {
  Result r =
      RunXform("input_stream: \"ROTATION_DEGREES:rot\" input_stream: \"OUTPUT_DIMENSIONS:dims\" " +
                   Options("rotation_mode: ROTATION_90"),
               MakePacket<Image>(Numbered(3, 2)),
               {{"rot", MakePacket<int>(-90)}, {"dims", MakePacket<std::pair<int, int>>(4, 6)}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.images.size(), 1u);
  const Image& out = r.images[0].Get<Image>();
  EXPECT_EQ(out.width(), 4);
  EXPECT_EQ(out.height(), 6);
}

TEST(ImageTransformationCalculatorTest, BadRotationAndConfigErrorsAreReported) {
  Result bad = RunXform("input_stream: \"ROTATION_DEGREES:rot\"",
                        MakePacket<ImageFrame>(Numbered(2, 2)), {{"rot", MakePacket<int>(45)}});
  ASSERT_FALSE(bad.status.ok());
  EXPECT_THAT(bad.status.message(), HasSubstr("multiple of 90"));
  EXPECT_THAT(bad.status.message(), HasSubstr("xform"));

  CalculatorGraph graph;
  absl::Status s =
      InitGraphWithCollectors(&graph,
                              "input_stream: \"in\" node { name: \"xform\" calculator: "
                              "\"ImageTransformationCalculator\" input_stream: \"IMAGE_GPU:in\" "
                              "output_stream: \"IMAGE_GPU:out\" }",
                              {})
          .status();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("IMAGE_GPU"));
  EXPECT_THAT(s.message(), HasSubstr("xform"));
}

}  // namespace
}  // namespace sluice
