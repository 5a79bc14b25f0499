// ColorConvertCalculator's CPU path, and its GPU maths (gpu/kernels/
// color_convert.h) as a CPU loop, against cv::cvtColor with MediaPipe's codes
// (the oracle, written out here independently of the calculator's table) on
// ../shared/testdata images, for every supported pair; RGB -> GRAY on every
// RGB triple. Also the port checks, format errors, timestamps, packet types
// and the registration (the static-link trap).
#include "calculators/image/color_convert_calculator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_frame_opencv.h"
#include "formats/image_io.h"
#include "framework/calculator_graph.h"
#include "framework/calculator_registry.h"
#include "gmock/gmock.h"
#include "gpu/kernels/color_convert.h"
#include "gtest/gtest.h"
#include "opencv2/core.hpp"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

using ::sluice::testing::InitGraphWithCollectors;
using ::testing::HasSubstr;

std::string Testdata(const std::string& rel) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/", rel);
}

// MediaPipe's ColorConvertCalculator (color_convert_calculator.cc): the tag
// pairs, the formats and the cv::cvtColor code each one runs.
struct Pair {
  const char* in_tag;
  const char* out_tag;
  ImageFormat::Format in_format;
  ImageFormat::Format out_format;
  int cv_code;
};
const Pair kPairs[] = {
    {"RGBA_IN", "RGB_OUT", ImageFormat::SRGBA, ImageFormat::SRGB, cv::COLOR_RGBA2RGB},
    {"GRAY_IN", "RGB_OUT", ImageFormat::GRAY8, ImageFormat::SRGB, cv::COLOR_GRAY2RGB},
    {"RGB_IN", "GRAY_OUT", ImageFormat::SRGB, ImageFormat::GRAY8, cv::COLOR_RGB2GRAY},
    {"RGB_IN", "RGBA_OUT", ImageFormat::SRGB, ImageFormat::SRGBA, cv::COLOR_RGB2RGBA},
    {"BGRA_IN", "RGBA_OUT", ImageFormat::SBGRA, ImageFormat::SRGBA, cv::COLOR_BGRA2RGBA},
    {"RGBA_IN", "BGRA_OUT", ImageFormat::SRGBA, ImageFormat::SBGRA, cv::COLOR_RGBA2BGRA},
    {"BGR_IN", "RGB_OUT", ImageFormat::SRGB, ImageFormat::SRGB, cv::COLOR_BGR2RGB},
};

// The real images, all with different sizes (dino's rows are padded in
// memory); sergey and the logo carry a real alpha channel.
const char* const kImages[] = {"images/lenna.png", "images/sergey.png", "images/dino.jpg",
                               "gpu/googlelogo_color_272x92dp.png"};

// `path` decoded into `format`. SBGRA: the decoded RGBA bytes relabelled
// (the calculator only reorders bytes, whatever they mean).
ImageFrame Load(const std::string& path, ImageFormat::Format format) {
  const ImageFormat::Format decode = format == ImageFormat::SBGRA ? ImageFormat::SRGBA : format;
  absl::StatusOr<ImageFrame> f = ReadImageFile(Testdata(path), decode);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return *ImageFrame::Create(format, 1, 1);
  if (format == decode) return *std::move(f);
  ImageFrame out = *ImageFrame::Create(format, f->Width(), f->Height());
  for (int y = 0; y < f->Height(); ++y) std::memcpy(out.MutableRow(y), f->Row(y), f->RowBytes());
  return out;
}

// What MediaPipe outputs: cv::cvtColor, then alpha 255 after RGB -> RGBA.
ImageFrame Oracle(const ImageFrame& in, const Pair& p) {
  ImageFrame out = *ImageFrame::Create(p.out_format, in.Width(), in.Height());
  cv::Mat dst;
  cv::cvtColor(MatView(in), dst, p.cv_code);
  dst.copyTo(MatView(&out));
  if (p.cv_code == cv::COLOR_RGB2RGBA) {
    for (int y = 0; y < out.Height(); ++y) {
      for (int x = 0; x < out.Width(); ++x) out.MutableRow(y)[4 * x + 3] = 255;
    }
  }
  return out;
}

// Number of bytes that differ (0 = equal); sizes and formats must match.
int64_t BytesDiffering(const ImageFrame& a, const ImageFrame& b) {
  EXPECT_EQ(a.Format(), b.Format());
  EXPECT_EQ(a.Width(), b.Width());
  EXPECT_EQ(a.Height(), b.Height());
  if (a.Format() != b.Format() || a.Width() != b.Width() || a.Height() != b.Height()) return -1;
  int64_t n = 0;
  for (int y = 0; y < a.Height(); ++y) {
    for (int i = 0; i < a.RowBytes(); ++i) n += a.Row(y)[i] != b.Row(y)[i];
  }
  return n;
}

const color_convert::ColorConversionSpec* SpecFor(const Pair& p) {
  for (const auto& s : color_convert::kColorConversions) {
    if (std::string(s.in_tag) == p.in_tag && std::string(s.out_tag) == p.out_tag) return &s;
  }
  return nullptr;
}

// The GPU maths as a CPU loop.
ImageFrame KernelLoop(const ImageFrame& in, const color_convert::ColorConversionSpec& s) {
  ImageFrame out = *ImageFrame::Create(s.out_format, in.Width(), in.Height());
  gpu_kernels::ColorConvertParams p;
  p.width = in.Width();
  p.height = in.Height();
  p.conversion = s.conversion;
  p.src_pitch = in.WidthStep();
  p.dst_pitch = out.WidthStep();
  EXPECT_TRUE(gpu_kernels::ColorConvertParamsValid(p));
  gpu_kernels::ColorConvertLoopU8(in.PixelData(), out.MutablePixelData(), p);
  return out;
}

struct Result {
  absl::Status status;
  std::vector<Packet> out;
};

// A graph with one node named "convert" whose ports are `ports`; feeds
// `packets` on stream "in" at their timestamps and collects stream "out".
Result RunNode(const std::string& ports, const std::vector<Packet>& packets) {
  Result r;
  const std::string config =
      absl::StrCat("input_stream: \"in\"\n",
                   ports.find(":in2\"") != std::string::npos ? "input_stream: \"in2\"\n" : "",
                   "node { name: \"convert\" calculator: \"ColorConvertCalculator\" ", ports, " }");
  CalculatorGraph graph;
  auto c = InitGraphWithCollectors(&graph, config, {"out"});
  if (!c.ok()) {
    r.status = c.status();
    return r;
  }
  r.status = graph.StartRun({});
  if (!r.status.ok()) return r;
  for (const Packet& p : packets) {
    r.status = graph.AddPacketToInputStream("in", p);
    if (!r.status.ok()) break;
  }
  (void)graph.CloseAllInputStreams();
  const absl::Status done = graph.WaitUntilDone();
  if (r.status.ok()) r.status = done;
  r.out = (*c)[0]->Packets();
  return r;
}

std::string Ports(const char* in_tag, const char* out_tag) {
  return absl::StrCat("input_stream: \"", in_tag, ":in\" output_stream: \"", out_tag, ":out\"");
}

TEST(ColorConvertCalculatorTest, EveryPairMatchesCvtColorOnRealImages) {
  ASSERT_EQ(std::size(kPairs), std::size(color_convert::kColorConversions));
  for (const Pair& p : kPairs) {
    const color_convert::ColorConversionSpec* spec = SpecFor(p);
    ASSERT_NE(spec, nullptr) << p.in_tag << " -> " << p.out_tag;
    EXPECT_EQ(spec->in_format, p.in_format);
    EXPECT_EQ(spec->out_format, p.out_format);
    for (const char* path : kImages) {
      SCOPED_TRACE(absl::StrCat(p.in_tag, " -> ", p.out_tag, " on ", path));
      const ImageFrame in = Load(path, p.in_format);
      const ImageFrame want = Oracle(in, p);
      // The GPU maths.
      EXPECT_EQ(BytesDiffering(KernelLoop(in, *spec), want), 0);
      // The calculator, on an ImageFrame and on a CPU Image.
      Result r =
          RunNode(Ports(p.in_tag, p.out_tag), {MakePacket<ImageFrame>(*in.Clone()).At(Timestamp(0)),
                                               MakePacket<Image>(*in.Clone()).At(Timestamp(1))});
      ASSERT_TRUE(r.status.ok()) << r.status;
      ASSERT_EQ(r.out.size(), 2u);
      EXPECT_EQ(BytesDiffering(r.out[0].Get<ImageFrame>(), want), 0);
      const Image& image = r.out[1].Get<Image>();
      EXPECT_FALSE(image.UsesGpu());
      auto view = image.CpuView();
      ASSERT_TRUE(view.ok()) << view.status();
      EXPECT_EQ(BytesDiffering(**view, want), 0);
    }
  }
}

// RGB -> GRAY is the one conversion with arithmetic: the kernel's fixed point
// against OpenCV's (SIMD) path on all 2^24 RGB triples.
TEST(ColorConvertCalculatorTest, GrayMathEqualsCvtColorOnEveryRgbTriple) {
  ImageFrame rgb = *ImageFrame::Create(ImageFormat::SRGB, 4096, 4096);
  for (int y = 0; y < 4096; ++y) {
    uint8_t* row = rgb.MutableRow(y);
    for (int x = 0; x < 4096; ++x) {
      const uint32_t v = static_cast<uint32_t>(y) * 4096 + x;
      row[3 * x] = static_cast<uint8_t>(v >> 16);
      row[3 * x + 1] = static_cast<uint8_t>(v >> 8);
      row[3 * x + 2] = static_cast<uint8_t>(v);
    }
  }
  const Pair& p = kPairs[2];
  ASSERT_EQ(p.cv_code, cv::COLOR_RGB2GRAY);
  EXPECT_EQ(BytesDiffering(KernelLoop(rgb, *SpecFor(p)), Oracle(rgb, p)), 0);
}

TEST(ColorConvertCalculatorTest, TinyAndOddSizes) {
  for (const Pair& p : kPairs) {
    for (int w : {1, 5, 17}) {
      ImageFrame in = *ImageFrame::Create(p.in_format, w, 3);
      for (int y = 0; y < 3; ++y) {
        for (int i = 0; i < in.RowBytes(); ++i)
          in.MutableRow(y)[i] = static_cast<uint8_t>(37 * i + 101 * y);
      }
      Result r = RunNode(Ports(p.in_tag, p.out_tag),
                         {MakePacket<ImageFrame>(*in.Clone()).At(Timestamp(0))});
      ASSERT_TRUE(r.status.ok()) << r.status;
      ASSERT_EQ(r.out.size(), 1u);
      EXPECT_EQ(BytesDiffering(r.out[0].Get<ImageFrame>(), Oracle(in, p)), 0)
          << p.in_tag << " -> " << p.out_tag << " width " << w;
    }
  }
}

TEST(ColorConvertCalculatorTest, KeepsTimestampsAndPacketTypes) {
  const ImageFrame in = Load("images/lenna.png", ImageFormat::SRGB);
  Result r = RunNode(Ports("RGB_IN", "GRAY_OUT"),
                     {MakePacket<ImageFrame>(*in.Clone()).At(Timestamp(5)),
                      MakePacket<Image>(*in.Clone()).At(Timestamp(17)),
                      MakePacket<ImageFrame>(*in.Clone()).At(Timestamp(1000))});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.out.size(), 3u);
  EXPECT_EQ(r.out[0].Timestamp(), Timestamp(5));
  EXPECT_EQ(r.out[1].Timestamp(), Timestamp(17));
  EXPECT_EQ(r.out[2].Timestamp(), Timestamp(1000));
  EXPECT_TRUE(r.out[0].ValidateAsType<ImageFrame>().ok());
  EXPECT_TRUE(r.out[1].ValidateAsType<Image>().ok());
  EXPECT_TRUE(r.out[2].ValidateAsType<ImageFrame>().ok());
  EXPECT_EQ(r.out[1].Get<Image>().image_format(), ImageFormat::GRAY8);
  EXPECT_EQ(r.out[2].Get<ImageFrame>().Format(), ImageFormat::GRAY8);
}

TEST(ColorConvertCalculatorTest, RejectsOtherThanOneInputAndOneOutput) {
  Result two_in = RunNode(
      "input_stream: \"RGB_IN:in\" input_stream: \"GRAY_IN:in2\" "
      "output_stream: \"RGB_OUT:out\"",
      {});
  EXPECT_FALSE(two_in.status.ok());
  EXPECT_THAT(two_in.status.message(), HasSubstr("ColorConvertCalculator \"convert\""));
  EXPECT_THAT(two_in.status.message(),
              HasSubstr("exactly one input stream and one output stream, has 2 and 1"));
  Result two_out = RunNode(
      "input_stream: \"RGB_IN:in\" output_stream: \"GRAY_OUT:out\" "
      "output_stream: \"RGBA_OUT:out2\"",
      {});
  EXPECT_THAT(two_out.status.message(), HasSubstr("has 1 and 2"));
  Result none = RunNode("input_stream: \"RGB_IN:in\"", {});
  EXPECT_THAT(none.status.message(), HasSubstr("has 1 and 0"));
}

TEST(ColorConvertCalculatorTest, RejectsUnsupportedTagPairs) {
  for (const auto& [in, out] :
       std::vector<std::pair<std::string, std::string>>{{"RGB_IN", "BGRA_OUT"},
                                                        {"GRAY_IN", "GRAY_OUT"},
                                                        {"RGB_IN", "RGB_OUT"},
                                                        {"BGR_IN", "GRAY_OUT"},
                                                        {"IMAGE", "RGB_OUT"}}) {
    Result r = RunNode(Ports(in.c_str(), out.c_str()), {});
    EXPECT_FALSE(r.status.ok()) << in << " -> " << out;
    EXPECT_THAT(r.status.message(), HasSubstr("ColorConvertCalculator \"convert\""));
    EXPECT_THAT(r.status.message(),
                HasSubstr(absl::StrCat("unsupported conversion ", in, " -> ", out)));
    EXPECT_THAT(r.status.message(), HasSubstr("supported: RGBA_IN -> RGB_OUT, GRAY_IN -> RGB_OUT"));
  }
  Result untagged = RunNode("input_stream: \"in\" output_stream: \"RGB_OUT:out\"", {});
  EXPECT_THAT(untagged.status.message(), HasSubstr("unsupported conversion (untagged) -> RGB_OUT"));
}

TEST(ColorConvertCalculatorTest, WrongInputFormatNamesTheTagAndBothFormats) {
  const ImageFrame gray = Load("images/lenna.png", ImageFormat::GRAY8);
  for (const Packet& p : {MakePacket<ImageFrame>(*gray.Clone()).At(Timestamp(0)),
                          MakePacket<Image>(*gray.Clone()).At(Timestamp(0))}) {
    Result r = RunNode(Ports("RGB_IN", "GRAY_OUT"), {p});
    EXPECT_FALSE(r.status.ok());
    EXPECT_THAT(r.status.message(), HasSubstr("ColorConvertCalculator \"convert\""));
    EXPECT_THAT(r.status.message(), HasSubstr("RGB_IN expects SRGB images, got GRAY8"));
    EXPECT_TRUE(r.out.empty());
  }
  // RGBA bytes are not BGRA ones: the label must say so.
  Result r = RunNode(
      Ports("BGRA_IN", "RGBA_OUT"),
      {MakePacket<ImageFrame>(Load("images/sergey.png", ImageFormat::SRGBA)).At(Timestamp(0))});
  EXPECT_THAT(r.status.message(), HasSubstr("BGRA_IN expects SBGRA images, got SRGBA"));
}

TEST(ColorConvertCalculatorTest, IsRegisteredOnce) {
  EXPECT_TRUE(CalculatorRegistry::Get().IsRegistered("ColorConvertCalculator"));
  for (const auto& name : CalculatorRegistry::Get().DuplicateNames()) {
    ADD_FAILURE() << name << " is registered twice";
  }
}

}  // namespace
}  // namespace sluice
