// ImageFrameToGpuBufferCalculator: uploads CPU frames to the GPU (MediaPipe's
// name; its output is a GpuBuffer, here an Image whose GPU side is a CUDA
// GpuBuffer). The copy goes through pinned staging memory on this node's own
// CUDA stream (MediaPipe gives the converters their own GL context too), and
// the output carries the copy's ready event: GPU consumers wait on the device.
// An input Image already on the GPU passes through without a copy.
//
// Needs a CUDA build and device: otherwise the graph fails to start with
// "no CUDA device: ..." or "this build has no CUDA".
//
//   node {
//     calculator: "ImageFrameToGpuBufferCalculator"
//     input_stream: "input_video"       # ImageFrame (or Image)
//     output_stream: "input_video_gpu"  # Image on the GPU
//   }
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

class ImageFrameToGpuBufferCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries("") != 1 || cc->Outputs().NumEntries("") != 1 ||
        cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1) {
      return absl::InvalidArgumentError(
          "ImageFrameToGpuBufferCalculator needs one untagged input and one untagged output");
    }
#if SLUICE_HAVE_GPU
    cc->Inputs().Index(0).SetOneOf<ImageFrame, Image>();
    cc->Outputs().Index(0).Set<Image>();
    cc->UseService(kGpuService);
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
#else
    return absl::FailedPreconditionError(
        "ImageFrameToGpuBufferCalculator: this build has no CUDA (configure with the CUDA "
        "toolkit, -DSLUICE_CUDA=ON)");
#endif
  }

#if SLUICE_HAVE_GPU
  absl::Status Open(CalculatorContext* cc) override {
    gpu_ = cc->Service(kGpuService).GetShared();
    absl::StatusOr<GpuContext*> ctx = gpu_->Context("auto:ImageFrameToGpuBufferCalculator");
    if (!ctx.ok()) return ctx.status();
    stream_ = (*ctx)->stream();
    return absl::OkStatus();
  }
#endif

  absl::Status Process(CalculatorContext* cc) override {
#if SLUICE_HAVE_GPU
    const Packet& packet = cc->Inputs().Index(0).Value();
    if (packet.IsEmpty()) return absl::OkStatus();
    if (auto image = packet.TryGet<Image>(); image.ok() && (*image)->UsesGpu()) {
      cc->Outputs().Index(0).AddPacket(packet);
      return absl::OkStatus();
    }
    if (absl::Status s = gpu_->Activate(); !s.ok()) return s;
    absl::StatusOr<std::shared_ptr<GpuBuffer>> buffer;
    if (auto frame = packet.TryGet<ImageFrame>(); frame.ok()) {
      buffer = GpuBuffer::Upload(gpu_, **frame, stream_);
    } else {
      buffer = GpuBufferOf(packet.Get<Image>(), gpu_, stream_);
    }
    if (!buffer.ok()) {
      return absl::Status(buffer.status().code(),
                          absl::StrCat("ImageFrameToGpuBufferCalculator (node \"", cc->NodeName(),
                                       "\"): ", buffer.status().message()));
    }
    cc->Outputs().Index(0).Add(new Image(MakeGpuImage(*std::move(buffer))), cc->InputTimestamp());
#endif
    return absl::OkStatus();
  }

 private:
#if SLUICE_HAVE_GPU
  std::shared_ptr<GpuResources> gpu_;
  cudaStream_t stream_ = nullptr;
#endif
};
REGISTER_CALCULATOR(ImageFrameToGpuBufferCalculator);

}  // namespace sluice
