// ImageToTensorCalculator's CUDA path after the upload converter:
// upload -> ImageToTensor (GPU) -> a Tensor that stays on the GPU. Built
// twice: on a device (label `gpu`, skipped without one) and on the fake CUDA
// runtime (label `gpu_fake`, both execution orders, in CI). Checks the
// transfers (one upload per frame, no download until the tensor's CPU side is
// read, then one), the values against the same maths as a CPU loop, and the
// fallbacks to the CPU path.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/testing/graph_test_util.h"
#include "calculators/gpu/gpu_calculator_test_fixture.h"
#include "calculators/gpu/gpu_golden_test_util.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_gpu_params.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "formats/image_io.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"
#include "framework/calculator_graph.h"
#include "gpu/gpu_service.h"
#include "gpu/gpu_tensor.h"
#include "gpu/kernels/image_to_tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using image_to_tensor::BorderMode;

constexpr float kPi = 3.14159265358979f;

struct Case {
  std::string label;
  ImageFormat::Format format;
  float xc, yc, w, h, rot_deg;
  int tw, th;
  bool keep_aspect;
  bool border_zero;
  float lo, hi;
};

std::string Options(const Case& c, const std::string& range = "") {
  return absl::StrCat(
      "output_tensor_width: ", c.tw, " output_tensor_height: ", c.th,
      " keep_aspect_ratio: ", c.keep_aspect ? "true" : "false",
      " border_mode: ", c.border_zero ? "BORDER_ZERO" : "BORDER_REPLICATE", " ",
      range.empty() ? absl::StrCat("output_tensor_float_range { min: ", c.lo, " max: ", c.hi, " }")
                    : range);
}

std::string Graph(const std::string& options, bool upload) {
  return absl::StrCat(
      "input_stream: \"in\"\ninput_stream: \"roi\"\n",
      upload ? "node { calculator: \"ImageFrameToGpuBufferCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n"
             : "node { calculator: \"PassThroughCalculator\" input_stream: \"in\" "
               "output_stream: \"img\" }\n",
      "node { calculator: \"ImageToTensorCalculator\" input_stream: \"IMAGE:img\"\n"
      "  input_stream: \"NORM_RECT:roi\" output_stream: \"TENSORS:tensor\"\n"
      "  output_stream: \"MATRIX:matrix\" output_stream: \"LETTERBOX_PADDING:padding\"\n"
      "  options { [mediapipe.ImageToTensorCalculatorOptions.ext] { ",
      options, " } } }\n");
}

mediapipe::NormalizedRect Rect(const Case& c) {
  mediapipe::NormalizedRect r;
  r.set_x_center(c.xc);
  r.set_y_center(c.yc);
  r.set_width(c.w);
  r.set_height(c.h);
  r.set_rotation(c.rot_deg * kPi / 180.f);
  return r;
}

struct Outputs {
  std::vector<Packet> tensor, matrix, padding;
};

// Runs the graph on `frames` images (copies of `frame`; as Image packets when
// `as_image`) with `gpu` as its service.
absl::StatusOr<Outputs> RunGraph(const std::string& config, const ImageFrame& frame, const Case& c,
                                 const std::shared_ptr<GpuResources>& gpu, int frames = 1,
                                 bool as_image = false) {
  CalculatorGraph graph;
  auto col = testing::InitGraphWithCollectors(&graph, config, {"tensor", "matrix", "padding"});
  if (!col.ok()) return col.status();
  if (auto s = graph.SetServiceObject(kGpuService, gpu); !s.ok()) return s;
  if (auto s = graph.StartRun({}); !s.ok()) return s;
  for (int i = 0; i < frames; ++i) {
    absl::StatusOr<ImageFrame> copy = frame.Clone();
    if (!copy.ok()) return copy.status();
    Packet p =
        as_image ? MakePacket<Image>(std::move(*copy)) : MakePacket<ImageFrame>(std::move(*copy));
    if (auto s = graph.AddPacketToInputStream("in", p.At(Timestamp(i))); !s.ok()) return s;
    if (auto s = graph.AddPacketToInputStream(
            "roi", MakePacket<mediapipe::NormalizedRect>(Rect(c)).At(Timestamp(i)));
        !s.ok()) {
      return s;
    }
    // One frame in flight at a time, so the pool's reuse is deterministic.
    if (auto s = graph.WaitUntilIdle(); !s.ok()) return s;
  }
  if (auto s = graph.CloseAllInputStreams(); !s.ok()) return s;
  if (auto s = graph.WaitUntilDone(); !s.ok()) return s;
  return Outputs{(*col)[0]->Packets(), (*col)[1]->Packets(), (*col)[2]->Packets()};
}

// The GPU maths as a CPU loop over the frame: what the kernel must produce.
std::vector<float> Expected(const ImageFrame& frame, const Case& c) {
  image_to_tensor::RotatedRect roi = image_to_tensor::RoiFromNormalized(
      c.xc, c.yc, c.w, c.h, c.rot_deg * kPi / 180.f, frame.Width(), frame.Height());
  float padding[4];
  if (c.keep_aspect) image_to_tensor::PadRoiToAspect(c.tw, c.th, &roi, padding);
  const gpu_kernels::ImageToTensorParams p = image_to_tensor::MakeGpuParams(
      roi, frame.Width(), frame.Height(), frame.NumberOfChannels(), frame.WidthStep(), c.tw, c.th,
      c.lo, c.hi, c.border_zero ? BorderMode::kZero : BorderMode::kReplicate);
  std::vector<float> out(static_cast<size_t>(c.tw) * c.th * p.dst_channels);
  gpu_kernels::ImageToTensorLoopF32(frame.PixelData(), p, out.data());
  return out;
}

float MaxDiff(const Tensor& t, const std::vector<float>& want) {
  auto view = t.GetCpuReadView();
  const float* got = view.buffer<float>();
  if (got == nullptr || static_cast<size_t>(t.shape().num_elements()) != want.size()) return 1e9f;
  float m = 0;
  for (size_t i = 0; i < want.size(); ++i) m = std::max(m, std::fabs(got[i] - want[i]));
  return m;
}

// The kernel is the CPU loop's maths; nvcc may contract multiply-adds into
// FMAs, which moves sample positions by ~1e-6 pixels: allow 1e-4 of the
// output range. (On the fake runtime the "kernel" is the loop: exact.)
float Tolerance(const Case& c) { return 1e-4f * (c.hi - c.lo); }

const Case kCases[] = {
    {"rotated -45, replicate, [-1,1]", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, -45, 256, 256,
     false, false, -1.f, 1.f},
    {"keep aspect, rotated 90, zero border, [0,1]", ImageFormat::SRGB, 0.65f, 0.4f, 0.5f, 0.5f, 90,
     256, 256, true, true, 0.f, 1.f},
    {"large, keep aspect, rotated -15, RGBA, zero", ImageFormat::SRGBA, 0.5f, 0.5f, 1.5f, 1.1f, -15,
     128, 128, true, true, 0.f, 1.f},
    {"large, keep aspect, rotated -15, GRAY8", ImageFormat::GRAY8, 0.5f, 0.5f, 1.5f, 1.1f, -15, 128,
     128, true, false, 0.f, 255.f},
};

class ImageToTensorGpuTest : public gpu_testing::GpuCalculatorTest {
 protected:
  ImageFrame Input(ImageFormat::Format format) {
    return ReadTestImage("image_to_tensor/input.jpg", format);
  }
};

TEST_F(ImageToTensorGpuTest, UploadThenGpuPathKeepsTheTensorOnTheGpu) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.label);
    gpu_->ResetStats();
    const ImageFrame frame = Input(c.format);
    auto out = RunGraph(Graph(Options(c), /*upload=*/true), frame, c, gpu_);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->tensor.size(), 1u);
    const Tensor& t = out->tensor[0].Get<std::vector<Tensor>>().at(0);
    const int ch = c.format == ImageFormat::GRAY8 ? 1 : 3;
    EXPECT_EQ(t.shape().dims, (std::vector<int>{1, c.th, c.tw, ch}));
    EXPECT_EQ(t.element_type(), Tensor::ElementType::kFloat32);
    EXPECT_TRUE(t.ready_on_gpu());
    EXPECT_FALSE(t.ready_on_cpu());
    GpuTransferStats st = gpu_->Stats();
    EXPECT_EQ(st.uploads, 1);  // the image
    EXPECT_EQ(st.upload_bytes, static_cast<int64_t>(frame.PixelDataSize()));
    EXPECT_EQ(st.downloads, 0);
    // A GPU consumer gets the device bytes without a transfer.
    cudaStream_t stream = (*gpu_->Context())->stream();
    auto view = GetCudaReadView(t, gpu_, stream);
    ASSERT_TRUE(view.ok()) << view.status();
    ASSERT_TRUE((*view)->MarkRead(stream).ok());
    EXPECT_EQ(gpu_->Stats().uploads, 1);
    // Reading the CPU side downloads once.
    const float diff = MaxDiff(t, Expected(frame, c));
    std::printf("%-46s GPU path vs CPU loop of the same maths: max abs diff %g\n", c.label.c_str(),
                diff);
    EXPECT_LE(diff, Tolerance(c));
    st = gpu_->Stats();
    EXPECT_EQ(st.downloads, 1);
    EXPECT_EQ(st.download_bytes, static_cast<int64_t>(t.bytes()));
    EXPECT_TRUE(t.ready_on_cpu());
    EXPECT_LE(MaxDiff(t, Expected(frame, c)), Tolerance(c));
    EXPECT_EQ(gpu_->Stats().downloads, 1);  // cached
  }
}

TEST_F(ImageToTensorGpuTest, MatrixAndPaddingAreTheCpuPathsOnes) {
  const Case& c = kCases[1];
  const ImageFrame frame = Input(c.format);
  auto gpu_out = RunGraph(Graph(Options(c), true), frame, c, gpu_);
  auto cpu_out = RunGraph(Graph(Options(c), false), frame, c, gpu_);
  ASSERT_TRUE(gpu_out.ok()) << gpu_out.status();
  ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
  ASSERT_EQ(gpu_out->matrix.size(), 1u);
  ASSERT_EQ(cpu_out->matrix.size(), 1u);
  using Matrix = std::array<float, 16>;
  using Padding = std::array<float, 4>;
  EXPECT_EQ(gpu_out->matrix[0].Get<Matrix>(), cpu_out->matrix[0].Get<Matrix>());
  EXPECT_EQ(gpu_out->padding[0].Get<Padding>(), cpu_out->padding[0].Get<Padding>());
  // The CPU input ran the CPU path: a CPU tensor, no transfers for it.
  const Tensor& cpu_t = cpu_out->tensor[0].Get<std::vector<Tensor>>().at(0);
  EXPECT_TRUE(cpu_t.ready_on_cpu());
  EXPECT_FALSE(cpu_t.ready_on_gpu());
}

TEST_F(ImageToTensorGpuTest, IntegerRangeRunsTheCpuPathOnTheDownloadedImage) {
  const Case& c = kCases[0];
  const ImageFrame frame = Input(c.format);
  const std::string uint_range = "output_tensor_uint_range { min: 0 max: 255 }";
  auto gpu_out = RunGraph(Graph(Options(c, uint_range), true), frame, c, gpu_);
  ASSERT_TRUE(gpu_out.ok()) << gpu_out.status();
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 1);
  EXPECT_EQ(st.downloads, 1);  // the image's CPU view
  auto cpu_out = RunGraph(Graph(Options(c, uint_range), false), frame, c, gpu_);
  ASSERT_TRUE(cpu_out.ok()) << cpu_out.status();
  const Tensor& a = gpu_out->tensor[0].Get<std::vector<Tensor>>().at(0);
  const Tensor& b = cpu_out->tensor[0].Get<std::vector<Tensor>>().at(0);
  ASSERT_EQ(a.element_type(), Tensor::ElementType::kUInt8);
  ASSERT_EQ(a.bytes(), b.bytes());
  auto va = a.GetCpuReadView();
  auto vb = b.GetCpuReadView();
  EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), a.bytes()));
}

TEST_F(ImageToTensorGpuTest, SteadyStreamUploadsOncePerFrameAndStopsAllocating) {
  const Case& c = kCases[2];
  const ImageFrame frame = Input(c.format);
  constexpr int kFrames = 10;
  auto out = RunGraph(Graph(Options(c), true), frame, c, gpu_, kFrames);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->tensor.size(), static_cast<size_t>(kFrames));
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, kFrames);
  EXPECT_EQ(st.downloads, 0);
  // The collector keeps every tensor alive, so each frame needs its own
  // tensor block; the image block is reused once its frame is done (one frame
  // in flight; +1 in case the scheduler still holds the previous image).
  std::printf("%d frames: %lld device allocations, %lld uploads, %lld downloads\n", kFrames,
              static_cast<long long>(st.device_allocations), static_cast<long long>(st.uploads),
              static_cast<long long>(st.downloads));
  EXPECT_LE(st.device_allocations, kFrames + 2);
  const std::vector<float> want = Expected(frame, c);
  for (const Packet& p : out->tensor) {
    EXPECT_LE(MaxDiff(p.Get<std::vector<Tensor>>().at(0), want), Tolerance(c));
  }
}

TEST_F(ImageToTensorGpuTest, CpuImageWithAServiceRunsTheCpuPath) {
  const Case& c = kCases[0];
  const ImageFrame frame = Input(c.format);
  auto out = RunGraph(Graph(Options(c), false), frame, c, gpu_, 1, /*as_image=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& t = out->tensor[0].Get<std::vector<Tensor>>().at(0);
  EXPECT_TRUE(t.ready_on_cpu());
  EXPECT_FALSE(t.ready_on_gpu());
  const GpuTransferStats st = gpu_->Stats();
  EXPECT_EQ(st.uploads, 0);
  EXPECT_EQ(st.downloads, 0);
}

}  // namespace
}  // namespace sluice
