// ToImageCalculator: wraps a CPU ImageFrame into an Image (the multi-backend
// image type), sharing the pixels; an Image input passes through unchanged.
//
//   node {
//     calculator: "ToImageCalculator"
//     input_stream: "IMAGE:image"            # ImageFrame or Image (or IMAGE_CPU: ImageFrame)
//     output_stream: "IMAGE:multi_backend_image"  # Image
//   }
//
// MediaPipe's IMAGE_GPU (GL buffer) input has no counterpart here: GPU images
// enter as Image.
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kImageCpuTag[] = "IMAGE_CPU";
constexpr char kImageGpuTag[] = "IMAGE_GPU";

}  // namespace

class ToImageCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    if (cc->Inputs().HasTag(kImageGpuTag)) {
      return absl::UnimplementedError(absl::StrCat(
          "ToImageCalculator \"", node, "\": IMAGE_GPU (GL buffers) is not supported; feed an "
          "Image or ImageFrame through IMAGE"));
    }
    const int inputs = cc->Inputs().HasTag(kImageTag) + cc->Inputs().HasTag(kImageCpuTag);
    if (inputs != 1 || !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ToImageCalculator \"", node,
          "\": needs exactly one of the IMAGE and IMAGE_CPU inputs, and an IMAGE output"));
    }
    if (cc->Inputs().HasTag(kImageTag)) {
      cc->Inputs().Tag(kImageTag).SetOneOf<ImageFrame, Image>();
    } else {
      cc->Inputs().Tag(kImageCpuTag).Set<ImageFrame>();
    }
    cc->Outputs().Tag(kImageTag).Set<Image>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const char* tag = cc->Inputs().HasTag(kImageTag) ? kImageTag : kImageCpuTag;
    const Packet& in = cc->Inputs().Tag(tag).Value();
    if (in.IsEmpty()) return absl::OkStatus();
    if (in.ValidateAsType<Image>().ok()) {
      cc->Outputs().Tag(kImageTag).AddPacket(in);
      return absl::OkStatus();
    }
    absl::StatusOr<std::shared_ptr<const ImageFrame>> frame = in.Share<ImageFrame>();
    if (!frame.ok()) return frame.status();
    // Image never writes to a CPU side it was built with (only views it), so
    // sharing the packet's frame is safe and saves a copy per frame.
    cc->Outputs().Tag(kImageTag).Add(
        new Image(std::const_pointer_cast<ImageFrame>(*std::move(frame))), cc->InputTimestamp());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(ToImageCalculator);

}  // namespace sluice
