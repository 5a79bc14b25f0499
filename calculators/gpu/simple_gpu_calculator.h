// SimpleGpuCalculator: the base of "one kernel per frame" image calculators
// (MediaPipe's GlSimpleCalculator idea, on CUDA). A subclass supplies the
// accepted formats, a CPU loop and a CUDA launcher over the same per-pixel
// maths (gpu/kernels/*.h); the base handles ports, buffers, streams, events.
//
// Ports (as MediaPipe's): one image input and one image output, both tagged
// VIDEO or both untagged (index 0). Packet types: Image (the usual GPU
// carrier) or ImageFrame; the output has the input's type and size.
//   * An Image on the GPU runs the kernel on the node's CUDA stream: the
//     stream waits on the input's ready event, the output buffer comes from the
//     pool and carries its own ready event. Nothing waits on the host.
//   * A CPU image (ImageFrame, or an Image without a GPU side) runs the CPU
//     loop; in a build without CUDA that is the only path.
// The GPU service is requested as optional: without a device, CPU images still
// flow; a GPU image brings its own resources along.
//
//   node {
//     calculator: "LuminanceCalculator"
//     input_stream: "input_video_gpu"
//     output_stream: "luma_video_gpu"
//   }
#ifndef SLUICE_CALCULATORS_GPU_SIMPLE_GPU_CALCULATOR_H_
#define SLUICE_CALCULATORS_GPU_SIMPLE_GPU_CALCULATOR_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_base.h"
#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"

#if SLUICE_HAVE_GPU
#include <cuda_runtime_api.h>

#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#endif

namespace sluice {

class SimpleGpuCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;
  absl::Status Process(CalculatorContext* cc) override;

 protected:
  // OK when the subclass handles `format`, else a message saying what it takes
  // (the base prefixes the node's name).
  virtual absl::Status CheckFormat(ImageFormat::Format format) const = 0;
  // Writes every pixel of `dst` (same size and format as `src`).
  virtual absl::Status RenderCpu(const ImageFrame& src, ImageFrame& dst) = 0;
#if SLUICE_HAVE_GPU
  // Enqueues the kernel on `stream` (src is ready on it, dst has src's size
  // and format); returns the launch status.
  virtual cudaError_t RenderGpu(const GpuBuffer& src, GpuBuffer& dst, cudaStream_t stream) = 0;
  // For error messages: the kernel RenderGpu launches.
  virtual const char* KernelName() const = 0;
#endif

 private:
  absl::Status CheckedFormat(CalculatorContext* cc, ImageFormat::Format format) const;
  absl::StatusOr<ImageFrame> RunCpu(CalculatorContext* cc, const ImageFrame& src);
#if SLUICE_HAVE_GPU
  absl::StatusOr<Image> RunGpu(CalculatorContext* cc, const Image& src);
  std::shared_ptr<GpuResources> gpu_;  // The graph's service, when available.
#endif
  std::string tag_;  // "VIDEO" or "" (index 0).
};

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_GPU_SIMPLE_GPU_CALCULATOR_H_
