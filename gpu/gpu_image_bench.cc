// GPU image path benchmarks on a 1920x1080 RGB frame (needs a CUDA device;
// each benchmark reports an error and is skipped without one).
//
//   build/gpu/gpu_image_bench            (tools/gpu_check.sh --bench runs it)
//
// BM_LumaSobelCpu        luminance + Sobel with the CPU loops (same maths)
// BM_LumaSobelKernels    the two CUDA kernels only, timed with CUDA events
// BM_Upload / BM_Download  one pinned-memory transfer each way
// BM_RoundTrip           upload -> luminance -> Sobel -> download, host waits
//                        for the download only; counter device_allocs = the
//                        cudaMalloc calls after warm-up (expected 0)
// BM_ImageToTensorCpu    ImageToTensor's CPU path: a rotated 224x224 crop of
//                        the frame into a float tensor in [-1, 1] (runs
//                        without a device)
// BM_ImageToTensorKernel the same on the GPU: the kernel only, CUDA events
// BM_ImageToTensorRoundTrip upload -> ImageToTensor -> tensor download, host
//                        waits for the download only; device_allocs as above
// BM_ColorConvertCpu/N   ColorConvertCalculator's CPU path (cv::cvtColor) for
//                        conversion N (gpu_kernels::ColorConversion: 2 = RGB ->
//                        GRAY, 3 = RGB -> RGBA, 6 = BGR -> RGB)
// BM_ColorConvertKernel/N the same conversion as the CUDA kernel, CUDA events
// BM_OverlayCompositeCpu the annotation overlay's composite as the CPU loop
//                        (SRGB image, SRGBA layer; same maths as the kernel)
// BM_OverlayKernel       the composite kernel only, CUDA events
// BM_OverlayLayerGpu     OverlayLayerGpu: layer upload (pinned) + composite into
//                        a new buffer, host waits for the stream; device_allocs
//                        as above
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_gpu.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "formats/tensor.h"
#include "formats/image_frame.h"
#include "gpu/cuda_status.h"
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#include "gpu/gpu_tensor.h"
#include "gpu/kernels/color_convert.h"
#include "gpu/kernels/color_convert_launch.h"
#include "gpu/kernels/image_filters_launch.h"
#include "gpu/kernels/luminance.h"
#include "gpu/kernels/overlay.h"
#include "gpu/kernels/overlay_launch.h"
#include "gpu/kernels/sobel.h"
#include "gpu/overlay_gpu.h"
#include "formats/image_frame_opencv.h"
#include "opencv2/imgproc.hpp"

namespace sluice {
namespace {

using image_to_tensor::BorderMode;
using image_to_tensor::Interpolation;
using image_to_tensor::RotatedRect;

constexpr int kWidth = 1920;
constexpr int kHeight = 1080;

ImageFrame TestFrame() {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGB, kWidth, kHeight);
  for (int y = 0; y < kHeight; ++y) {
    uint8_t* row = f.MutableRow(y);
    for (int i = 0; i < f.RowBytes(); ++i) row[i] = static_cast<uint8_t>((i * 7) ^ (y * 3));
  }
  return f;
}

// The process-wide resources, or null (and the reason) without a device.
std::shared_ptr<GpuResources> Gpu(benchmark::State& state) {
  static absl::StatusOr<std::shared_ptr<GpuResources>> gpu = GpuResources::Create();
  if (!gpu.ok()) {
    state.SkipWithError(std::string(gpu.status().message()).c_str());
    return nullptr;
  }
  return *gpu;
}

absl::Status LumaSobel(GpuBuffer& src, GpuBuffer& luma, GpuBuffer& edges, cudaStream_t s) {
  SLUICE_CUDA_RETURN_IF_ERROR(
      gpu_kernels::LaunchLuminanceU8(src.data(), src.pitch(), luma.data(), luma.pitch(), kWidth,
                                     kHeight, 3, s),
      "LuminanceU8Kernel");
  SLUICE_CUDA_RETURN_IF_ERROR(
      gpu_kernels::LaunchSobelU8(luma.data(), luma.pitch(), edges.data(), edges.pitch(), kWidth,
                                 kHeight, 3, s),
      "SobelU8Kernel");
  return absl::OkStatus();
}

// Times what `enqueue` puts on `s` with CUDA events, one iteration per call.
void TimeKernels(benchmark::State& state, cudaStream_t s,
                 const std::function<absl::Status()>& enqueue) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    cudaEventRecord(start, s);
    const absl::Status st = enqueue();
    cudaEventRecord(stop, s);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      break;
    }
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// Times whole round trips (`once` waits on the host for its download), after
// three warm-up runs that fill the pools; device_allocs counts the cudaMalloc
// calls made while timing (expected 0).
void TimeRoundTrips(benchmark::State& state, GpuResources& gpu,
                    const std::function<absl::Status()>& once) {
  for (int i = 0; i < 3; ++i) (void)once();
  const int64_t allocs = gpu.Stats().device_allocations;
  for (auto _ : state) {
    if (absl::Status st = once(); !st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      break;
    }
  }
  state.counters["device_allocs"] = static_cast<double>(gpu.Stats().device_allocations - allocs);
}

void BM_LumaSobelCpu(benchmark::State& state) {
  ImageFrame src = TestFrame();
  ImageFrame luma = *ImageFrame::Create(ImageFormat::SRGB, kWidth, kHeight);
  ImageFrame edges = *ImageFrame::Create(ImageFormat::SRGB, kWidth, kHeight);
  for (auto _ : state) {
    for (int y = 0; y < kHeight; ++y) {
      for (int x = 0; x < kWidth; ++x) {
        gpu_kernels::LuminancePixelU8(src.Row(y) + 3 * x, luma.MutableRow(y) + 3 * x, 3);
      }
    }
    for (int y = 0; y < kHeight; ++y) {
      for (int x = 0; x < kWidth; ++x) {
        gpu_kernels::SobelPixelU8(luma.PixelData(), luma.WidthStep(), edges.MutableRow(y) + 3 * x,
                                  kWidth, kHeight, 3, x, y);
      }
    }
    benchmark::DoNotOptimize(edges.MutableRow(0)[0]);
  }
}
BENCHMARK(BM_LumaSobelCpu)->Unit(benchmark::kMicrosecond);

void BM_LumaSobelKernels(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  auto src = *GpuBuffer::Upload(gpu, TestFrame(), s);
  auto luma = *GpuBuffer::Create(gpu, ImageFormat::SRGB, kWidth, kHeight, s);
  auto edges = *GpuBuffer::Create(gpu, ImageFormat::SRGB, kWidth, kHeight, s);
  TimeKernels(state, s, [&] { return LumaSobel(*src, *luma, *edges, s); });
}
BENCHMARK(BM_LumaSobelKernels)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_Upload(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  ImageFrame frame = TestFrame();
  for (auto _ : state) {
    auto b = GpuBuffer::Upload(gpu, frame, s);
    if (!b.ok()) {
      state.SkipWithError(std::string(b.status().message()).c_str());
      break;
    }
    cudaStreamSynchronize(s);  // time the copy, not just its enqueueing
  }
  state.SetBytesProcessed(state.iterations() * int64_t{frame.RowBytes()} * kHeight);
}
BENCHMARK(BM_Upload)->Unit(benchmark::kMicrosecond);

void BM_Download(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  auto buffer = *GpuBuffer::Upload(gpu, TestFrame(), s);
  for (auto _ : state) {
    auto f = buffer->Download(s);
    if (!f.ok()) {
      state.SkipWithError(std::string(f.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(f->PixelData());
  }
  state.SetBytesProcessed(state.iterations() * int64_t{kWidth} * 3 * kHeight);
}
BENCHMARK(BM_Download)->Unit(benchmark::kMicrosecond);

void BM_RoundTrip(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  ImageFrame frame = TestFrame();
  auto once = [&]() -> absl::Status {
    auto src = GpuBuffer::Upload(gpu, frame, s);
    if (!src.ok()) return src.status();
    auto luma = GpuBuffer::Create(gpu, ImageFormat::SRGB, kWidth, kHeight, s);
    auto edges = GpuBuffer::Create(gpu, ImageFormat::SRGB, kWidth, kHeight, s);
    if (!luma.ok()) return luma.status();
    if (!edges.ok()) return edges.status();
    if (absl::Status st = LumaSobel(**src, **luma, **edges, s); !st.ok()) return st;
    if (absl::Status st = (*edges)->MarkReady(s); !st.ok()) return st;
    return (*edges)->Download(s).status();
  };
  TimeRoundTrips(state, *gpu, once);
}
BENCHMARK(BM_RoundTrip)->Unit(benchmark::kMicrosecond);

// A hand-sized ROI turned 30 degrees, as the hand landmark graph crops.
constexpr int kTensorSize = 224;
RotatedRect TestRoi() {
  return image_to_tensor::RoiFromNormalized(0.45f, 0.55f, 0.3f, 0.3f * kWidth / kHeight, 0.52f, kWidth, kHeight);
}

void BM_ImageToTensorCpu(benchmark::State& state) {
  const ImageFrame frame = TestFrame();
  Tensor tensor(Tensor::ElementType::kFloat32, {1, kTensorSize, kTensorSize, 3});
  for (auto _ : state) {
    absl::Status st = image_to_tensor::ConvertImageToTensor(frame, TestRoi(), -1.f, 1.f, BorderMode::kReplicate,
                                           Interpolation::kLinear, &tensor);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      break;
    }
  }
}
BENCHMARK(BM_ImageToTensorCpu)->Unit(benchmark::kMicrosecond);

void BM_ImageToTensorKernel(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  auto src = *GpuBuffer::Upload(gpu, TestFrame(), s);
  TimeKernels(state, s, [&]() -> absl::Status {
    return image_to_tensor::ConvertImageToTensorGpu(*src, TestRoi(), kTensorSize, kTensorSize,
                                                    -1.f, 1.f, BorderMode::kReplicate, gpu, s)
        .status();
  });
}
BENCHMARK(BM_ImageToTensorKernel)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_ImageToTensorRoundTrip(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  const ImageFrame frame = TestFrame();
  auto once = [&]() -> absl::Status {
    auto src = GpuBuffer::Upload(gpu, frame, s);
    if (!src.ok()) return src.status();
    auto t = image_to_tensor::ConvertImageToTensorGpu(**src, TestRoi(), kTensorSize, kTensorSize,
                                                      -1.f, 1.f, BorderMode::kReplicate, gpu, s);
    if (!t.ok()) return t.status();
    return t->SyncToCpu();
  };
  TimeRoundTrips(state, *gpu, once);
}
BENCHMARK(BM_ImageToTensorRoundTrip)->Unit(benchmark::kMicrosecond);

using gpu_kernels::ColorConversion;

// Conversions worth a row: the one with arithmetic, a widening and a swizzle.
void ColorConvertArgs(benchmark::internal::Benchmark* b) {
  for (ColorConversion c : {ColorConversion::kRgbToGray, ColorConversion::kRgbToRgba,
                            ColorConversion::kBgrToRgb}) {
    b->Arg(static_cast<int>(c));
  }
}

ImageFormat::Format ColorConvertDstFormat(ColorConversion c) {
  const int channels = gpu_kernels::ColorConvertDstChannels(c);
  return channels == 1 ? ImageFormat::GRAY8 : channels == 3 ? ImageFormat::SRGB : ImageFormat::SRGBA;
}

// cv::cvtColor with the code MediaPipe's calculator uses for `c`.
int CvCode(ColorConversion c) {
  switch (c) {
    case ColorConversion::kRgbToGray:
      return cv::COLOR_RGB2GRAY;
    case ColorConversion::kRgbToRgba:
      return cv::COLOR_RGB2RGBA;
    default:
      return cv::COLOR_BGR2RGB;
  }
}

void BM_ColorConvertCpu(benchmark::State& state) {
  const auto c = static_cast<ColorConversion>(state.range(0));
  const ImageFrame src = TestFrame();
  ImageFrame dst = *ImageFrame::Create(ColorConvertDstFormat(c), kWidth, kHeight);
  cv::Mat out = MatView(&dst);
  for (auto _ : state) {
    cv::cvtColor(MatView(src), out, CvCode(c));
    benchmark::DoNotOptimize(dst.MutableRow(0)[0]);
  }
}
BENCHMARK(BM_ColorConvertCpu)->Apply(ColorConvertArgs)->Unit(benchmark::kMicrosecond);

void BM_ColorConvertKernel(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  const auto c = static_cast<ColorConversion>(state.range(0));
  cudaStream_t s = (*gpu->Context())->stream();
  auto src = *GpuBuffer::Upload(gpu, TestFrame(), s);
  auto dst = *GpuBuffer::Create(gpu, ColorConvertDstFormat(c), kWidth, kHeight, s);
  const gpu_kernels::ColorConvertParams p{kWidth, kHeight, c, static_cast<long>(src->pitch()),
                                          static_cast<long>(dst->pitch())};
  TimeKernels(state, s, [&]() -> absl::Status {
    SLUICE_CUDA_RETURN_IF_ERROR(gpu_kernels::LaunchColorConvertU8(src->data(), dst->data(), p, s),
                                "ColorConvertU8Kernel");
    return absl::OkStatus();
  });
}
BENCHMARK(BM_ColorConvertKernel)->Apply(ColorConvertArgs)->UseManualTime()->Unit(benchmark::kMicrosecond);

// An annotation layer: premultiplied SRGBA, transparent but for a few opaque
// and half-covered bands (the composite's cost does not depend on them).
ImageFrame TestLayer() {
  ImageFrame f = *ImageFrame::Create(ImageFormat::SRGBA, kWidth, kHeight);
  for (int y = 0; y < kHeight; ++y) {
    uint8_t* row = f.MutableRow(y);
    const int a = (y % 64 < 4) ? 255 : (y % 64 < 8 ? 128 : 0);
    for (int x = 0; x < kWidth; ++x) {
      row[4 * x + 0] = static_cast<uint8_t>(a);
      row[4 * x + 1] = static_cast<uint8_t>(a / 2);
      row[4 * x + 2] = 0;
      row[4 * x + 3] = static_cast<uint8_t>(a);
    }
  }
  return f;
}

void BM_OverlayCompositeCpu(benchmark::State& state) {
  const ImageFrame src = TestFrame();
  const ImageFrame layer = TestLayer();
  ImageFrame dst = *ImageFrame::Create(ImageFormat::SRGB, kWidth, kHeight);
  const gpu_kernels::OverlayParams p{kWidth, kHeight, 3, src.WidthStep(), layer.WidthStep(),
                                     dst.WidthStep()};
  for (auto _ : state) {
    gpu_kernels::OverlayLoopU8(src.PixelData(), layer.PixelData(), dst.MutablePixelData(), p);
    benchmark::DoNotOptimize(dst.MutableRow(0)[0]);
  }
}
BENCHMARK(BM_OverlayCompositeCpu)->Unit(benchmark::kMicrosecond);

void BM_OverlayKernel(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  auto src = *GpuBuffer::Upload(gpu, TestFrame(), s);
  auto layer = *GpuBuffer::Upload(gpu, TestLayer(), s);
  auto dst = *GpuBuffer::Create(gpu, ImageFormat::SRGB, kWidth, kHeight, s);
  const gpu_kernels::OverlayParams p{kWidth, kHeight, 3, static_cast<long>(src->pitch()),
                                     static_cast<long>(layer->pitch()),
                                     static_cast<long>(dst->pitch())};
  TimeKernels(state, s, [&]() -> absl::Status {
    SLUICE_CUDA_RETURN_IF_ERROR(
        gpu_kernels::LaunchOverlayU8(src->data(), layer->data(), dst->data(), p, s),
        "OverlayU8Kernel");
    return absl::OkStatus();
  });
}
BENCHMARK(BM_OverlayKernel)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_OverlayLayerGpu(benchmark::State& state) {
  std::shared_ptr<GpuResources> gpu = Gpu(state);
  if (gpu == nullptr) return;
  cudaStream_t s = (*gpu->Context())->stream();
  auto image = *GpuBuffer::Upload(gpu, TestFrame(), s);
  const ImageFrame layer = TestLayer();
  auto once = [&]() -> absl::Status {
    auto out = OverlayLayerGpu(*image, layer, gpu, s);
    if (!out.ok()) return out.status();
    return CudaStatus(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  };
  TimeRoundTrips(state, *gpu, once);
}
BENCHMARK(BM_OverlayLayerGpu)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
