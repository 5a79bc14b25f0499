// GpuBufferToImageFrameCalculator: brings GPU images back to the CPU
// (MediaPipe's name). Input: an Image (on the GPU or not) or an ImageFrame,
// which passes through unchanged as in MediaPipe; output: ImageFrame.
// A GPU image is copied on this node's own CUDA stream into pinned memory that
// the output frame adopts (no second copy); the host waits for that copy only.
// A CPU Image's frame is shared, not copied.
//
//   node {
//     calculator: "GpuBufferToImageFrameCalculator"
//     input_stream: "output_video_gpu"  # Image (GPU or CPU) or ImageFrame
//     output_stream: "output_video"     # ImageFrame
//   }
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

#if SLUICE_HAVE_GPU
#include "gpu/gpu_buffer.h"
#include "gpu/gpu_service.h"
#endif

namespace sluice {

class GpuBufferToImageFrameCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries("") != 1 || cc->Outputs().NumEntries("") != 1 ||
        cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          "GpuBufferToImageFrameCalculator needs one untagged input and one untagged output");
    }
    cc->Inputs().Index(0).SetOneOf<Image, ImageFrame>();
    cc->Outputs().Index(0).Set<ImageFrame>();
#if SLUICE_HAVE_GPU
    // Optional: CPU inputs need no device; GPU images bring their resources.
    cc->UseService(kGpuService).Optional();
#endif
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
#if SLUICE_HAVE_GPU
    ServiceBinding<GpuResources> service = cc->Service(kGpuService);
    if (service.IsAvailable()) gpu_ = service.GetShared();
#endif
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& packet = cc->Inputs().Index(0).Value();
    if (packet.IsEmpty()) return absl::OkStatus();
    if (packet.TryGet<ImageFrame>().ok()) {
      cc->Outputs().Index(0).AddPacket(packet);
      return absl::OkStatus();
    }
    const Image& image = packet.Get<Image>();
    if (image.IsEmpty()) return Error(cc, absl::InvalidArgumentError("the input image is empty"));
#if SLUICE_HAVE_GPU
    // Other GPU storages download themselves through the CPU view below.
    auto buffer = image.HasCpuView() ? nullptr
                                     : std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage());
    if (buffer != nullptr) {
      absl::StatusOr<cudaStream_t> stream = StreamFor(buffer->shared_resources());
      if (!stream.ok()) return Error(cc, stream.status());
      absl::StatusOr<ImageFrame> frame = buffer->Download(*stream);
      if (!frame.ok()) return Error(cc, frame.status());
      cc->Outputs().Index(0).Add(new ImageFrame(*std::move(frame)), cc->InputTimestamp());
      return absl::OkStatus();
    }
#endif
    absl::StatusOr<std::shared_ptr<const ImageFrame>> cpu = image.CpuView();
    if (!cpu.ok()) return Error(cc, cpu.status());
    // Share the Image's frame: the packet keeps it alive.
    std::shared_ptr<const ImageFrame> keep = *cpu;
    cc->Outputs().Index(0).AddPacket(
        PointToForeign<ImageFrame>(keep.get(), [keep]() {}).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  static absl::Status Error(CalculatorContext* cc, const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("GpuBufferToImageFrameCalculator (node \"",
                                               cc->NodeName(), "\"): ", s.message()));
  }

#if SLUICE_HAVE_GPU
  // This node's own stream (MediaPipe gives the converters their own
  // context), on the graph's service or else on the image's resources.
  absl::StatusOr<cudaStream_t> StreamFor(const std::shared_ptr<GpuResources>& image_gpu) {
    GpuResources* gpu = gpu_ != nullptr && gpu_->device() == image_gpu->device()
                            ? gpu_.get()
                            : image_gpu.get();
    if (absl::Status s = gpu->Activate(); !s.ok()) return s;
    absl::StatusOr<GpuContext*> ctx = gpu->Context("auto:GpuBufferToImageFrameCalculator");
    if (!ctx.ok()) return ctx.status();
    return (*ctx)->stream();
  }

  std::shared_ptr<GpuResources> gpu_;
#endif
};
REGISTER_CALCULATOR(GpuBufferToImageFrameCalculator);

}  // namespace sluice
