#include "calculators/gpu/simple_gpu_calculator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "framework/packet.h"

#if SLUICE_HAVE_GPU
#include "gpu/cuda_status.h"
#endif

namespace sluice {
namespace {

constexpr char kVideoTag[] = "VIDEO";

std::string NodeLabel(CalculatorContext* cc) {
  return absl::StrCat(cc->CalculatorType(), " (node \"", cc->NodeName(), "\")");
}

}  // namespace

absl::Status SimpleGpuCalculator::GetContract(CalculatorContract* cc) {
  const bool tagged_in = cc->Inputs().HasTag(kVideoTag);
  const bool tagged_out = cc->Outputs().HasTag(kVideoTag);
  const bool plain_in = cc->Inputs().HasTag("");
  const bool plain_out = cc->Outputs().HasTag("");
  if (cc->Inputs().NumEntries() != 1 || cc->Outputs().NumEntries() != 1 ||
      !((tagged_in && tagged_out) || (plain_in && plain_out))) {
    return absl::InvalidArgumentError(absl::StrCat(
        cc->GetNodeConfig().calculator(),
        " needs one input and one output stream, both tagged VIDEO or both untagged"));
  }
  const std::string tag = tagged_in ? kVideoTag : "";
  cc->Inputs().Tag(tag).SetOneOf<Image, ImageFrame>();
  cc->Outputs().Tag(tag).SetSameAs(&cc->Inputs().Tag(tag));
#if SLUICE_HAVE_GPU
  cc->UseService(kGpuService).Optional();
#endif
  cc->SetTimestampOffset(0);
  return absl::OkStatus();
}

absl::Status SimpleGpuCalculator::Open(CalculatorContext* cc) {
  tag_ = cc->Inputs().HasTag(kVideoTag) ? kVideoTag : "";
#if SLUICE_HAVE_GPU
  ServiceBinding<GpuResources> service = cc->Service(kGpuService);
  if (service.IsAvailable()) gpu_ = service.GetShared();
#endif
  return absl::OkStatus();
}

absl::Status SimpleGpuCalculator::CheckedFormat(CalculatorContext* cc,
                                                ImageFormat::Format format) const {
  absl::Status s = CheckFormat(format);
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(NodeLabel(cc), ": input format ",
                                             ImageFormat::Format_Name(format), ": ",
                                             s.message()));
}

absl::StatusOr<ImageFrame> SimpleGpuCalculator::RunCpu(CalculatorContext* cc,
                                                       const ImageFrame& src) {
  if (absl::Status s = CheckedFormat(cc, src.Format()); !s.ok()) return s;
  absl::StatusOr<ImageFrame> dst = ImageFrame::Create(src.Format(), src.Width(), src.Height());
  if (!dst.ok()) return dst.status();
  if (absl::Status s = RenderCpu(src, *dst); !s.ok()) return s;
  return dst;
}

#if SLUICE_HAVE_GPU
absl::StatusOr<Image> SimpleGpuCalculator::RunGpu(CalculatorContext* cc, const Image& src) {
  if (absl::Status s = CheckedFormat(cc, src.image_format()); !s.ok()) return s;
  // Prefer the graph's service; an image from elsewhere brings its own.
  std::shared_ptr<GpuResources> gpu = gpu_;
  if (gpu == nullptr) {
    auto storage = std::dynamic_pointer_cast<GpuBuffer>(src.GpuStorage());
    if (storage == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(NodeLabel(cc), ": the input's GPU side is not a CUDA GpuBuffer"));
    }
    gpu = storage->shared_resources();
  }
  if (absl::Status s = gpu->Activate(); !s.ok()) return s;
  absl::StatusOr<GpuContext*> ctx = gpu->Context();
  if (!ctx.ok()) return ctx.status();
  cudaStream_t stream = (*ctx)->stream();
  absl::StatusOr<std::shared_ptr<GpuBuffer>> in = GpuBufferOf(src, gpu, stream);
  if (!in.ok()) {
    return absl::Status(in.status().code(),
                        absl::StrCat(NodeLabel(cc), ": ", in.status().message()));
  }
  GpuBuffer& in_buf = **in;
  absl::StatusOr<std::shared_ptr<GpuBuffer>> out =
      GpuBuffer::Create(gpu, in_buf.format(), in_buf.width(), in_buf.height(), stream);
  if (!out.ok()) return out.status();
  if (absl::Status s = in_buf.WaitReady(stream); !s.ok()) return s;
  if (absl::Status s = CudaStatus(RenderGpu(in_buf, **out, stream),
                                  absl::StrCat(NodeLabel(cc), ": kernel ", KernelName()));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = in_buf.MarkRead(stream); !s.ok()) return s;
  if (absl::Status s = (*out)->MarkReady(stream); !s.ok()) return s;
  return MakeGpuImage(*std::move(out));
}
#endif

absl::Status SimpleGpuCalculator::Process(CalculatorContext* cc) {
  const Packet& packet = cc->Inputs().Tag(tag_).Value();
  if (packet.IsEmpty()) return absl::OkStatus();
  OutputStreamShard& out = cc->Outputs().Tag(tag_);
  if (auto frame = packet.TryGet<ImageFrame>(); frame.ok()) {
    absl::StatusOr<ImageFrame> result = RunCpu(cc, **frame);
    if (!result.ok()) return result.status();
    out.Add(new ImageFrame(*std::move(result)), cc->InputTimestamp());
    return absl::OkStatus();
  }
  const Image& image = packet.Get<Image>();
  if (image.IsEmpty()) {
    return absl::InvalidArgumentError(absl::StrCat(NodeLabel(cc), ": the input image is empty"));
  }
#if SLUICE_HAVE_GPU
  // CUDA pixels stay on the GPU; any other GPU storage is read through the
  // CPU view (it knows how to download itself).
  if (image.UsesGpu() && std::dynamic_pointer_cast<GpuBuffer>(image.GpuStorage()) != nullptr) {
    absl::StatusOr<Image> result = RunGpu(cc, image);
    if (!result.ok()) return result.status();
    out.Add(new Image(*std::move(result)), cc->InputTimestamp());
    return absl::OkStatus();
  }
#endif
  absl::StatusOr<std::shared_ptr<const ImageFrame>> cpu = image.CpuView();
  if (!cpu.ok()) return cpu.status();
  absl::StatusOr<ImageFrame> result = RunCpu(cc, **cpu);
  if (!result.ok()) return result.status();
  out.Add(new Image(*std::move(result)), cc->InputTimestamp());
  return absl::OkStatus();
}

}  // namespace sluice
