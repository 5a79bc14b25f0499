// LuminanceCalculator: RGB(A) -> its luminance, still stored as RGB(A), alpha
// kept (MediaPipe's name and behaviour; MediaPipe's is an OpenGL shader).
// Runs on the GPU when the input Image is there, else on the CPU; both apply
// gpu/kernels/luminance.h. Formats: SRGB, SRGBA.
//
//   node {
//     calculator: "LuminanceCalculator"
//     input_stream: "input_video"    # Image (GPU or CPU) or ImageFrame
//     output_stream: "luma_video"    # same type, size and format
//   }
#include "absl/status/status.h"
#include "calculators/gpu/simple_gpu_calculator.h"
#include "framework/calculator_registry.h"
#include "gpu/kernels/luminance.h"

#if SLUICE_HAVE_GPU
#include "gpu/kernels/image_filters_launch.h"
#endif

namespace sluice {

class LuminanceCalculator : public SimpleGpuCalculator {
 protected:
  absl::Status CheckFormat(ImageFormat::Format format) const override {
    if (format == ImageFormat::SRGB || format == ImageFormat::SRGBA) return absl::OkStatus();
    return absl::InvalidArgumentError("LuminanceCalculator takes SRGB or SRGBA");
  }

  absl::Status RenderCpu(const ImageFrame& src, ImageFrame& dst) override {
    const int channels = src.NumberOfChannels();
    for (int y = 0; y < src.Height(); ++y) {
      const uint8_t* in = src.Row(y);
      uint8_t* out = dst.MutableRow(y);
      for (int x = 0; x < src.Width(); ++x) {
        gpu_kernels::LuminancePixelU8(in + x * channels, out + x * channels, channels);
      }
    }
    return absl::OkStatus();
  }

#if SLUICE_HAVE_GPU
  cudaError_t RenderGpu(const GpuBuffer& src, GpuBuffer& dst, cudaStream_t stream) override {
    return gpu_kernels::LaunchLuminanceU8(src.data(), static_cast<long>(src.pitch()), dst.data(),
                                          static_cast<long>(dst.pitch()), src.width(),
                                          src.height(), src.channels(), stream);
  }
  const char* KernelName() const override { return "LuminanceU8Kernel"; }
#endif
};
REGISTER_CALCULATOR(LuminanceCalculator);

}  // namespace sluice
