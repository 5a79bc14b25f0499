// SobelEdgesCalculator: Sobel edge magnitude of the first channel (expects a
// luminance image stored as RGB, as LuminanceCalculator writes), written to
// the colour channels with opaque alpha; edges clamp (MediaPipe's name and
// behaviour; MediaPipe's is an OpenGL shader). Runs on the GPU when the input
// Image is there, else on the CPU; both apply gpu/kernels/sobel.h.
// Formats: SRGB, SRGBA, GRAY8.
//
//   node {
//     calculator: "SobelEdgesCalculator"
//     input_stream: "luma_video"     # Image (GPU or CPU) or ImageFrame
//     output_stream: "edges_video"   # same type, size and format
//   }
#include "absl/status/status.h"
#include "calculators/gpu/simple_gpu_calculator.h"
#include "framework/calculator_registry.h"
#include "gpu/kernels/sobel.h"

#if SLUICE_HAVE_GPU
#include "gpu/kernels/image_filters_launch.h"
#endif

namespace sluice {

class SobelEdgesCalculator : public SimpleGpuCalculator {
 protected:
  absl::Status CheckFormat(ImageFormat::Format format) const override {
    if (format == ImageFormat::SRGB || format == ImageFormat::SRGBA ||
        format == ImageFormat::GRAY8) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError("SobelEdgesCalculator takes SRGB, SRGBA or GRAY8");
  }

  absl::Status RenderCpu(const ImageFrame& src, ImageFrame& dst) override {
    const int channels = src.NumberOfChannels();
    for (int y = 0; y < src.Height(); ++y) {
      uint8_t* out = dst.MutableRow(y);
      for (int x = 0; x < src.Width(); ++x) {
        gpu_kernels::SobelPixelU8(src.PixelData(), src.WidthStep(), out + x * channels,
                                  src.Width(), src.Height(), channels, x, y);
      }
    }
    return absl::OkStatus();
  }

#if SLUICE_HAVE_GPU
  cudaError_t RenderGpu(const GpuBuffer& src, GpuBuffer& dst, cudaStream_t stream) override {
    return gpu_kernels::LaunchSobelU8(src.data(), static_cast<long>(src.pitch()), dst.data(),
                                      static_cast<long>(dst.pitch()), src.width(), src.height(),
                                      src.channels(), stream);
  }
  const char* KernelName() const override { return "SobelU8Kernel"; }
#endif
};
REGISTER_CALCULATOR(SobelEdgesCalculator);

}  // namespace sluice
