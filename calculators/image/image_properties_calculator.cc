// ImagePropertiesCalculator: the size of each input image, as MediaPipe's.
//
// Exactly one input: IMAGE (Image or ImageFrame), IMAGE_CPU (ImageFrame) or
// IMAGE_GPU (Image; there is no separate GPU buffer type in Sluice). Output
// SIZE: std::pair<int, int> (width, height), the type IMAGE_SIZE inputs of
// RectTransformation, DetectionsToRects, HandLandmarksToRect... take.
//
//   node {
//     calculator: "ImagePropertiesCalculator"
//     input_stream: "IMAGE:image"
//     output_stream: "SIZE:image_size"
//   }
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
constexpr char kSizeTag[] = "SIZE";

}  // namespace

class ImagePropertiesCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    int inputs = 0;
    for (const char* tag : {kImageTag, kImageCpuTag, kImageGpuTag}) {
      inputs += cc->Inputs().HasTag(tag) ? cc->Inputs().NumEntries(tag) : 0;
    }
    if (inputs != 1 || !cc->Outputs().HasTag(kSizeTag)) {
      return absl::InvalidArgumentError(
          "ImagePropertiesCalculator needs exactly one of the inputs IMAGE, IMAGE_CPU, "
          "IMAGE_GPU and a SIZE output");
    }
    if (cc->Inputs().HasTag(kImageTag)) cc->Inputs().Tag(kImageTag).SetOneOf<Image, ImageFrame>();
    if (cc->Inputs().HasTag(kImageCpuTag)) cc->Inputs().Tag(kImageCpuTag).Set<ImageFrame>();
    if (cc->Inputs().HasTag(kImageGpuTag)) cc->Inputs().Tag(kImageGpuTag).Set<Image>();
    cc->Outputs().Tag(kSizeTag).Set<std::pair<int, int>>();
    cc->SetTimestampOffset(0);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    for (const char* tag : {kImageTag, kImageCpuTag, kImageGpuTag}) {
      if (cc->Inputs().HasTag(tag)) tag_ = tag;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& packet = cc->Inputs().Tag(tag_).Value();
    if (packet.IsEmpty()) return absl::OkStatus();
    std::pair<int, int> size;
    if (auto frame = packet.TryGet<ImageFrame>(); frame.ok()) {
      size = {(*frame)->Width(), (*frame)->Height()};
    } else {
      const Image& image = packet.Get<Image>();
      size = {image.width(), image.height()};
    }
    cc->Outputs().Tag(kSizeTag).Add(new std::pair<int, int>(size), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  const char* tag_ = kImageTag;
};
REGISTER_CALCULATOR(ImagePropertiesCalculator);

}  // namespace sluice
