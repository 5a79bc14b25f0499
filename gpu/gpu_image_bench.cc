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
#include "gpu/kernels/image_filters_launch.h"
#include "gpu/kernels/luminance.h"
#include "gpu/kernels/sobel.h"

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

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
