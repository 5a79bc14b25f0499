// FromImageCalculator: an Image as the ImageFrame it holds (MediaPipe's
// name and tags; Sluice has no separate GPU buffer type, so IMAGE_GPU passes
// the Image through).
//
//   node {
//     calculator: "FromImageCalculator"
//     input_stream: "IMAGE:mask_image"             # Image
//     output_stream: "IMAGE_CPU:segmentation_mask" # ImageFrame (shared, no copy)
//   }
#include <memory>

#include "absl/status/status.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kImageCpuTag[] = "IMAGE_CPU";
constexpr char kImageGpuTag[] = "IMAGE_GPU";
constexpr char kSourceOnGpuTag[] = "SOURCE_ON_GPU";

}  // namespace

class FromImageCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool cpu = cc->Outputs().HasTag(kImageCpuTag);
    const bool gpu = cc->Outputs().HasTag(kImageGpuTag);
    if (!cc->Inputs().HasTag(kImageTag) || cpu == gpu) {
      return absl::InvalidArgumentError(
          "FromImageCalculator needs an IMAGE input and exactly one of the outputs IMAGE_CPU, "
          "IMAGE_GPU");
    }
    cc->Inputs().Tag(kImageTag).Set<Image>();
    if (cpu) cc->Outputs().Tag(kImageCpuTag).Set<ImageFrame>();
    if (gpu) cc->Outputs().Tag(kImageGpuTag).Set<Image>();
    if (cc->Outputs().HasTag(kSourceOnGpuTag)) cc->Outputs().Tag(kSourceOnGpuTag).Set<bool>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& packet = cc->Inputs().Tag(kImageTag).Value();
    if (packet.IsEmpty()) return absl::OkStatus();
    const Image& image = packet.Get<Image>();
    if (cc->Outputs().HasTag(kSourceOnGpuTag)) {
      cc->Outputs().Tag(kSourceOnGpuTag).Add(new bool(image.UsesGpu()), cc->InputTimestamp());
    }
    if (cc->Outputs().HasTag(kImageGpuTag)) {
      cc->Outputs().Tag(kImageGpuTag).AddPacket(packet);
      return absl::OkStatus();
    }
    auto frame = image.CpuView();
    if (!frame.ok()) return frame.status();
    // A view of the Image's pixels that keeps them alive (no copy).
    const ImageFrame* raw = frame->get();
    auto adopted =
        ImageFrame::Adopt(raw->Format(), raw->Width(), raw->Height(), raw->WidthStep(),
                          const_cast<uint8_t*>(raw->PixelData()), [keep = *frame](uint8_t*) {});
    if (!adopted.ok()) return adopted.status();
    cc->Outputs().Tag(kImageCpuTag).Add(new ImageFrame(std::move(*adopted)), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(FromImageCalculator);

}  // namespace sluice
