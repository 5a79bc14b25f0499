// ImageToTensorCalculator against MediaPipe's published goldens
// (shared/testdata/image_to_tensor, parameters from its README), plus the
// MATRIX / LETTERBOX_PADDING outputs and error cases.
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"
#include "framework/calculator_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opencv2/core.hpp"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;

constexpr float kPi = 3.14159265358979f;

std::string DataPath(const std::string& name) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/image_to_tensor/", name);
}

mediapipe::NormalizedRect Rect(float xc, float yc, float w, float h, float rot_deg) {
  mediapipe::NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rot_deg * kPi / 180.0f);
  return r;
}

enum class Range { kFloat, kInt, kUInt };
struct OutputRange {
  Range kind;
  float min;
  float max;
};

std::string RangeOption(const OutputRange& r) {
  const char* field = r.kind == Range::kFloat ? "output_tensor_float_range"
                      : r.kind == Range::kInt ? "output_tensor_int_range"
                                              : "output_tensor_uint_range";
  return absl::StrCat(field, " { min: ", r.min, " max: ", r.max, " }");
}

struct RunResult {
  absl::Status status;
  std::vector<Packet> tensors, padding, matrix;
};

// Runs one ImageToTensorCalculator node named "crop" on one image packet
// (and `roi` when given) at timestamp 0.
RunResult RunNode(const std::string& options, const Packet& image,
                  const std::optional<mediapipe::NormalizedRect>& roi, bool vector_output = true,
                  bool empty_roi_packet = false) {
  RunResult r;
  const bool with_roi = roi.has_value() || empty_roi_packet;
  const std::string out_tag = vector_output ? "TENSORS" : "TENSOR";
  std::string config = absl::StrCat(
      "input_stream: \"image\"\n", with_roi ? "input_stream: \"roi\"\n" : "",
      "node { name: \"crop\" calculator: \"ImageToTensorCalculator\"\n",
      "  input_stream: \"IMAGE:image\"\n", with_roi ? "  input_stream: \"NORM_RECT:roi\"\n" : "",
      "  output_stream: \"", out_tag, ":tensor\"\n",
      "  output_stream: \"LETTERBOX_PADDING:padding\"\n  output_stream: \"MATRIX:matrix\"\n",
      "  options { [mediapipe.ImageToTensorCalculatorOptions.ext] { ", options, " } } }\n");
  CalculatorGraph graph;
  auto collectors = InitGraphWithCollectors(&graph, config, {"tensor", "padding", "matrix"});
  if (!collectors.ok()) {
    r.status = collectors.status();
    return r;
  }
  r.status = graph.StartRun({});
  if (!r.status.ok()) return r;
  r.status = graph.AddPacketToInputStream("image", image.At(Timestamp(0)));
  if (r.status.ok() && roi.has_value()) {
    r.status = graph.AddPacketToInputStream(
        "roi", MakePacket<mediapipe::NormalizedRect>(*roi).At(Timestamp(0)));
  } else if (r.status.ok() && empty_roi_packet) {
    r.status = graph.SetInputStreamTimestampBound("roi", Timestamp(1));
  }
  absl::Status closed = graph.CloseAllInputStreams();
  if (r.status.ok()) r.status = closed;
  absl::Status done = graph.WaitUntilDone();
  if (r.status.ok()) r.status = done;
  r.tensors = (*collectors)[0]->Packets();
  r.padding = (*collectors)[1]->Packets();
  r.matrix = (*collectors)[2]->Packets();
  return r;
}

// The tensor mapped back to 8 bits (inverse of the range mapping, rounded).
cv::Mat TensorTo8Bit(const Tensor& t, float range_min, float range_max) {
  const int h = t.shape().dims[1], w = t.shape().dims[2], c = t.shape().dims[3];
  int depth = t.element_type() == Tensor::ElementType::kFloat32 ? CV_32F
              : t.element_type() == Tensor::ElementType::kInt8  ? CV_8S
                                                                : CV_8U;
  auto view = t.GetCpuReadView();
  cv::Mat m(h, w, CV_MAKETYPE(depth, c), const_cast<void*>(view.data()));
  cv::Mat out;
  const double scale = 255.0 / (range_max - range_min);
  m.convertTo(out, CV_MAKETYPE(CV_8U, c), scale, -range_min * scale);
  return out;
}

struct GoldenCase {
  std::string name;  // Golden file without ".png".
  ImageFormat::Format input;
  mediapipe::NormalizedRect roi;
  std::optional<int> width, height;
  bool keep_aspect;
  std::string border;  // "", "BORDER_ZERO" or "BORDER_REPLICATE".
  std::vector<OutputRange> ranges;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, MatchesMediaPipeGolden) {
  const GoldenCase& c = GetParam();
  absl::StatusOr<ImageFrame> input = ReadImageFile(DataPath("input.jpg"), c.input);
  ASSERT_TRUE(input.ok()) << input.status();
  const ImageFormat::Format golden_format =
      c.input == ImageFormat::GRAY8 ? ImageFormat::GRAY8 : ImageFormat::SRGB;
  absl::StatusOr<ImageFrame> golden = ReadImageFile(DataPath(c.name + ".png"), golden_format);
  ASSERT_TRUE(golden.ok()) << golden.status();
  auto shared = std::make_shared<ImageFrame>(std::move(*input));

  std::vector<OutputRange> ranges = c.ranges;
  ranges.push_back({Range::kUInt, 0, 100});  // Also through the TENSOR output below.
  for (size_t i = 0; i < ranges.size(); ++i) {
    const OutputRange& range = ranges[i];
    const bool vector_output = i + 1 < ranges.size();
    for (bool as_image : {false, true}) {
      SCOPED_TRACE(absl::StrCat(RangeOption(range), as_image ? " Image" : " ImageFrame",
                                vector_output ? " TENSORS" : " TENSOR"));
      std::string options = absl::StrCat(
          c.width ? absl::StrCat("output_tensor_width: ", *c.width, " ") : "",
          c.height ? absl::StrCat("output_tensor_height: ", *c.height, " ") : "",
          "keep_aspect_ratio: ", c.keep_aspect ? "true " : "false ", RangeOption(range),
          c.border.empty() ? "" : absl::StrCat(" border_mode: ", c.border));
      // Borrow the frame: both packet kinds share the same pixels.
      Packet image = as_image ? MakePacket<Image>(shared)
                              : PointToForeign<ImageFrame>(shared.get(), [shared] {});
      RunResult r = RunNode(options, image, c.roi, vector_output);
      ASSERT_TRUE(r.status.ok()) << r.status;
      ASSERT_EQ(r.tensors.size(), 1u);
      const Tensor& t = vector_output ? r.tensors[0].Get<std::vector<Tensor>>().at(0)
                                      : r.tensors[0].Get<Tensor>();
      const Tensor::ElementType want = range.kind == Range::kFloat ? Tensor::ElementType::kFloat32
                                       : range.min < 0             ? Tensor::ElementType::kInt8
                                                                   : Tensor::ElementType::kUInt8;
      EXPECT_EQ(t.element_type(), want);
      ASSERT_EQ(t.shape().dims.size(), 4u);
      EXPECT_EQ(t.shape().dims[1], golden->Height());
      EXPECT_EQ(t.shape().dims[2], golden->Width());
      EXPECT_EQ(t.shape().dims[3], golden->NumberOfChannels());
      cv::Mat got = TensorTo8Bit(t, range.min, range.max);
      cv::Mat diff;
      cv::absdiff(got, MatView(*golden), diff);
      double max_diff = 0;
      cv::minMaxLoc(diff.reshape(1), nullptr, &max_diff);
      // MediaPipe's own tolerance for these goldens (JPEG decoding and
      // fixed-point interpolation differ slightly between OpenCV builds).
      // A [0,100] range loses precision by itself: allow its rounding too.
      EXPECT_LE(max_diff, range.max - range.min < 255 ? 5 + 255.0 / 100 : 5) << c.name;
    }
  }
}

const std::vector<OutputRange> kFloat01 = {{Range::kFloat, 0, 1}};

INSTANTIATE_TEST_SUITE_P(
    ImageToTensorCalculator, GoldenTest,
    ::testing::Values(
        GoldenCase{"medium_sub_rect_keep_aspect",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, 0),
                   256,
                   256,
                   true,
                   "",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"medium_sub_rect_keep_aspect_border_zero",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, 0),
                   256,
                   256,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"medium_sub_rect_keep_aspect_with_rotation",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, 90),
                   256,
                   256,
                   true,
                   "BORDER_REPLICATE",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}}},
        GoldenCase{"medium_sub_rect_keep_aspect_with_rotation_border_zero",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, 90),
                   256,
                   256,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"medium_sub_rect_with_rotation",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, -45),
                   256,
                   256,
                   false,
                   "BORDER_REPLICATE",
                   {{Range::kFloat, -1, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"medium_sub_rect_with_rotation_border_zero",
                   ImageFormat::SRGB,
                   Rect(0.65f, 0.4f, 0.5f, 0.5f, -45),
                   256,
                   256,
                   false,
                   "BORDER_ZERO",
                   {{Range::kFloat, -1, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect",
                   ImageFormat::SRGB,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, 0),
                   128,
                   128,
                   false,
                   "BORDER_REPLICATE",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}}},
        GoldenCase{"large_sub_rect_border_zero",
                   ImageFormat::SRGB,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, 0),
                   128,
                   128,
                   false,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect_keep_aspect",
                   ImageFormat::SRGB,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, 0),
                   128,
                   128,
                   true,
                   "BORDER_REPLICATE",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect_keep_aspect_border_zero",
                   ImageFormat::SRGB,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, 0),
                   128,
                   128,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect_keep_aspect_with_rotation",
                   ImageFormat::SRGBA,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, -15),
                   128,
                   128,
                   true,
                   "",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect_keep_aspect_with_rotation",
                   ImageFormat::GRAY8,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, -15),
                   128,
                   128,
                   true,
                   "",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"large_sub_rect_keep_aspect_with_rotation_border_zero",
                   ImageFormat::SRGBA,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, -15),
                   128,
                   128,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}}},
        GoldenCase{"large_sub_rect_keep_aspect_with_rotation_border_zero",
                   ImageFormat::GRAY8,
                   Rect(0.5f, 0.5f, 1.5f, 1.1f, -15),
                   128,
                   128,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}}},
        GoldenCase{"noop_except_range",
                   ImageFormat::SRGBA,
                   Rect(0.5f, 0.5f, 1, 1, 0),
                   64,
                   128,
                   true,
                   "BORDER_REPLICATE",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        GoldenCase{"noop_except_range",
                   ImageFormat::SRGBA,
                   Rect(0.5f, 0.5f, 1, 1, 0),
                   64,
                   128,
                   true,
                   "BORDER_ZERO",
                   {{Range::kFloat, 0, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}},
        // Tensor size defaults to the image size.
        GoldenCase{"noop_except_range",
                   ImageFormat::SRGB,
                   Rect(0.5f, 0.5f, 1, 1, 0),
                   std::nullopt,
                   std::nullopt,
                   false,
                   "BORDER_ZERO",
                   {{Range::kFloat, -1, 1}, {Range::kUInt, 0, 255}, {Range::kInt, -128, 127}}}));

Packet SolidImage(ImageFormat::Format format, int w, int h) {
  absl::StatusOr<ImageFrame> f = ImageFrame::Create(format, w, h);
  return MakePacket<Image>(std::move(*f));
}

TEST(ImageToTensorCalculatorTest, LetterboxPaddingAndMatrixOfAKeepAspectRoi) {
  // 64x128 image, ROI 96x140.8 px centred, rotated 30 deg, into 128x128:
  // the ROI is taller than the tensor, so it is widened to 140.8 px.
  const float rot = 30 * kPi / 180;
  RunResult r = RunNode(
      "output_tensor_width: 128 output_tensor_height: 128 keep_aspect_ratio: true "
      "output_tensor_float_range { min: 0 max: 1 }",
      SolidImage(ImageFormat::SRGB, 64, 128), Rect(0.5f, 0.5f, 1.5f, 1.1f, 30));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.padding.size(), 1u);
  const auto& pad = r.padding[0].Get<std::array<float, 4>>();
  const float h_pad = (1.0f - 96.0f / 140.8f) / 2;
  EXPECT_NEAR(pad[0], h_pad, 1e-5);
  EXPECT_NEAR(pad[1], 0, 1e-6);
  EXPECT_NEAR(pad[2], h_pad, 1e-5);
  EXPECT_NEAR(pad[3], 0, 1e-6);

  ASSERT_EQ(r.matrix.size(), 1u);
  const auto& m = r.matrix[0].Get<std::array<float, 16>>();
  // Each normalized tensor corner must land on the padded ROI's corner.
  for (float u : {0.0f, 1.0f}) {
    for (float v : {0.0f, 1.0f}) {
      const float lx = (u - 0.5f) * 140.8f, ly = (v - 0.5f) * 140.8f;
      const float want_x = (32 + std::cos(rot) * lx - std::sin(rot) * ly) / 64;
      const float want_y = (64 + std::sin(rot) * lx + std::cos(rot) * ly) / 128;
      EXPECT_NEAR(m[0] * u + m[1] * v + m[3], want_x, 1e-5);
      EXPECT_NEAR(m[4] * u + m[5] * v + m[7], want_y, 1e-5);
    }
  }
  EXPECT_NEAR(m[10], 140.8f / 64, 1e-5);  // z scales like x.
  EXPECT_EQ(m[15], 1.0f);
}

TEST(ImageToTensorCalculatorTest, WholeImageWithoutNormRect) {
  RunResult r = RunNode(
      "output_tensor_width: 8 output_tensor_height: 4 output_tensor_float_range { min: -1 max: 1 }",
      SolidImage(ImageFormat::GRAY8, 16, 8), std::nullopt);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.tensors.size(), 1u);
  const Tensor& t = r.tensors[0].Get<std::vector<Tensor>>()[0];
  EXPECT_EQ(t.shape().dims, (std::vector<int>{1, 4, 8, 1}));
  EXPECT_FLOAT_EQ(t.GetCpuReadView().buffer<float>()[0], -1.0f);  // Black -> range min.
  const auto& m = r.matrix[0].Get<std::array<float, 16>>();
  EXPECT_NEAR(m[0], 1, 1e-6);
  EXPECT_NEAR(m[5], 1, 1e-6);
  EXPECT_NEAR(m[3], 0, 1e-6);
  EXPECT_NEAR(m[7], 0, 1e-6);
}

// Stands in for a GPU-resident image: the calculator must take the CPU view,
// which downloads it.
class FakeGpuStorage : public ImageGpuStorage {
 public:
  absl::Status DownloadTo(ImageFrame& dst) override {
    for (int y = 0; y < dst.Height(); ++y) {
      for (int x = 0; x < dst.RowBytes(); ++x) dst.MutableRow(y)[x] = 51;
    }
    return absl::OkStatus();
  }
};

TEST(ImageToTensorCalculatorTest, GpuResidentImageIsDownloaded) {
  Image image(ImageFormat::SRGB, 8, 8, std::make_shared<FakeGpuStorage>());
  RunResult r = RunNode(
      "output_tensor_width: 4 output_tensor_height: 4 output_tensor_float_range { min: 0 max: 1 }",
      MakePacket<Image>(image), Rect(0.5f, 0.5f, 0.5f, 0.5f, 0));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.tensors.size(), 1u);
  const Tensor& t = r.tensors[0].Get<std::vector<Tensor>>()[0];
  EXPECT_FLOAT_EQ(t.GetCpuReadView().buffer<float>()[4 * 4 * 3 - 1], 0.2f);
  EXPECT_TRUE(image.HasCpuView());
}

TEST(ImageToTensorCalculatorTest, SentinelAndMissingRectsGiveNoOutput) {
  const std::string options = "output_tensor_float_range { min: 0 max: 1 }";
  RunResult sentinel =
      RunNode(options, SolidImage(ImageFormat::SRGB, 4, 4), Rect(0.5f, 0.5f, 0, 0, 0));
  ASSERT_TRUE(sentinel.status.ok()) << sentinel.status;
  EXPECT_TRUE(sentinel.tensors.empty());
  EXPECT_TRUE(sentinel.matrix.empty());
  RunResult missing = RunNode(options, SolidImage(ImageFormat::SRGB, 4, 4), std::nullopt,
                              /*vector_output=*/true, /*empty_roi_packet=*/true);
  ASSERT_TRUE(missing.status.ok()) << missing.status;
  EXPECT_TRUE(missing.tensors.empty());
}

TEST(ImageToTensorCalculatorTest, UnsupportedImageFormatNamesNodeAndFormat) {
  RunResult r = RunNode("output_tensor_float_range { min: 0 max: 1 }",
                        SolidImage(ImageFormat::VEC32F1, 4, 4), Rect(0.5f, 0.5f, 1, 1, 0));
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(r.status.message(), HasSubstr("crop"));
  EXPECT_THAT(r.status.message(), HasSubstr("VEC32F1"));
}

TEST(ImageToTensorCalculatorTest, WrongPacketTypeIsRejected) {
  RunResult r = RunNode("output_tensor_float_range { min: 0 max: 1 }", MakePacket<int>(3),
                        Rect(0.5f, 0.5f, 1, 1, 0));
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(r.status.ToString(), HasSubstr("\"crop\""));
  EXPECT_THAT(r.status.ToString(), HasSubstr("sluice::ImageFrame"));
}

absl::Status InitOnly(const std::string& node_body) {
  CalculatorGraph graph;
  return InitGraphWithCollectors(
             &graph,
             absl::StrCat("input_stream: \"image\"\n"
                          "node { name: \"crop\" calculator: \"ImageToTensorCalculator\" ",
                          node_body, " }"),
             {})
      .status();
}

TEST(ImageToTensorCalculatorTest, ConfigErrorsNameTheNode) {
  const std::string range =
      "options { [mediapipe.ImageToTensorCalculatorOptions.ext] { "
      "output_tensor_float_range { min: 0 max: 1 } } }";
  absl::Status no_image = InitOnly("output_stream: \"TENSORS:t\" " + range);
  ASSERT_FALSE(no_image.ok());
  EXPECT_THAT(no_image.message(), HasSubstr("crop"));
  EXPECT_THAT(no_image.message(), HasSubstr("IMAGE"));

  absl::Status both = InitOnly(
      "input_stream: \"IMAGE:image\" output_stream: \"TENSORS:t\" output_stream: \"TENSOR:u\" " +
      range);
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.message(), HasSubstr("TENSOR"));

  absl::Status no_range = InitOnly("input_stream: \"IMAGE:image\" output_stream: \"TENSORS:t\"");
  ASSERT_FALSE(no_range.ok());
  EXPECT_THAT(no_range.message(), HasSubstr("output range is required"));

  absl::Status bad_range = InitOnly(
      "input_stream: \"IMAGE:image\" output_stream: \"TENSORS:t\" options { "
      "[mediapipe.ImageToTensorCalculatorOptions.ext] { output_tensor_int_range { min: 0 max: "
      "300 } } }");
  ASSERT_FALSE(bad_range.ok());
  EXPECT_THAT(bad_range.message(), HasSubstr("[-128, 127]"));

  absl::Status gpu =
      InitOnly("input_stream: \"IMAGE_GPU:image\" output_stream: \"TENSORS:t\" " + range);
  ASSERT_FALSE(gpu.ok());
  EXPECT_THAT(gpu.message(), HasSubstr("IMAGE_GPU"));
}

}  // namespace
}  // namespace sluice
