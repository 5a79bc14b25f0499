// SegmentationSmoothingCalculator: temporal smoothing of a float mask, as
// MediaPipe's. Where the new mask is uncertain (near 0.5) it leans towards the
// previous (already smoothed) mask; confident pixels keep their new value.
//
//   node {
//     calculator: "SegmentationSmoothingCalculator"
//     input_stream: "MASK:segmentation_mask"                 # Image, VEC32F1
//     input_stream: "MASK_PREVIOUS:prev_filtered_mask"       # Image, VEC32F1
//     output_stream: "MASK_SMOOTHED:filtered_segmentation_mask"
//     options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] {
//       combine_with_previous_ratio: 0.7
//     } }
//   }
//
// MASK may also be an ImageFrame (output is an Image either way). No MASK:
// no output. No MASK_PREVIOUS (first frame, or the loop gated off):
// the new mask passes through. Both masks must have the same size.
#include <algorithm>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/image/segmentation_smoothing_calculator.pb.h"
#include "formats/image.h"
#include "formats/image_frame.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kMaskTag[] = "MASK";
constexpr char kPreviousTag[] = "MASK_PREVIOUS";
constexpr char kSmoothedTag[] = "MASK_SMOOTHED";

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("SegmentationSmoothingCalculator: ", what));
}

// How unsure a probability p is, in [0, 1]: (1 - (1 - H(p))^2) with H the
// binary entropy, approximated (as MediaPipe does) by a polynomial in
// (p - 0.5)^2, clamped.
inline float Uncertainty(float p) {
  constexpr float c1 = 5.68842f, c2 = -0.748699f, c3 = -57.8051f, c4 = 291.309f, c5 = -624.717f;
  const float t = p - 0.5f;
  const float x = t * t;
  return 1.0f - std::min(1.0f, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))));
}

absl::StatusOr<std::shared_ptr<const ImageFrame>> FloatMask(const Packet& packet, const char* tag) {
  absl::StatusOr<std::shared_ptr<const ImageFrame>> frame;
  if (auto cpu = packet.TryGet<ImageFrame>(); cpu.ok()) {
    frame = packet.Share<ImageFrame>();
  } else {
    frame = packet.Get<Image>().CpuView();
  }
  if (!frame.ok()) return frame.status();
  if ((*frame)->Format() != ImageFormat::VEC32F1) {
    return Error(absl::StrCat(tag, " must be a VEC32F1 mask"));
  }
  return *frame;
}

}  // namespace

class SegmentationSmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kMaskTag) || !cc->Inputs().HasTag(kPreviousTag) ||
        !cc->Outputs().HasTag(kSmoothedTag)) {
      return Error("needs MASK and MASK_PREVIOUS inputs and a MASK_SMOOTHED output");
    }
    // ImageFrame too, so a CPU graph's mask smooths without a conversion.
    cc->Inputs().Tag(kMaskTag).SetOneOf<Image, ImageFrame>();
    cc->Inputs().Tag(kPreviousTag).Set<Image>();
    cc->Outputs().Tag(kSmoothedTag).Set<Image>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    ratio_ = cc->Options<mediapipe::SegmentationSmoothingCalculatorOptions>()
                 .combine_with_previous_ratio();
    if (!(ratio_ >= 0.0f && ratio_ <= 1.0f)) {
      return Error(absl::StrCat("combine_with_previous_ratio must be in [0, 1], got ", ratio_));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& current = cc->Inputs().Tag(kMaskTag).Value();
    if (current.IsEmpty()) return absl::OkStatus();
    const Packet& previous = cc->Inputs().Tag(kPreviousTag).Value();
    auto now = FloatMask(current, kMaskTag);
    if (!now.ok()) return now.status();
    if (previous.IsEmpty() || ratio_ == 0.0f) {
      if (current.TryGet<Image>().ok()) {
        cc->Outputs().Tag(kSmoothedTag).AddPacket(current);
      } else {
        cc->Outputs()
            .Tag(kSmoothedTag)
            .Add(new Image(std::const_pointer_cast<ImageFrame>(*now)), cc->InputTimestamp());
      }
      return absl::OkStatus();
    }
    auto before = FloatMask(previous, kPreviousTag);
    if (!before.ok()) return before.status();
    const ImageFrame& a = **now;
    const ImageFrame& b = **before;
    if (a.Width() != b.Width() || a.Height() != b.Height()) {
      return Error(absl::StrCat("MASK is ", a.Width(), "x", a.Height(), " but MASK_PREVIOUS is ",
                                b.Width(), "x", b.Height()));
    }
    auto out = ImageFrame::Create(ImageFormat::VEC32F1, a.Width(), a.Height());
    if (!out.ok()) return out.status();
    for (int y = 0; y < a.Height(); ++y) {
      const float* p = reinterpret_cast<const float*>(a.Row(y));
      const float* q = reinterpret_cast<const float*>(b.Row(y));
      float* o = reinterpret_cast<float*>(out->MutableRow(y));
      for (int x = 0; x < a.Width(); ++x) {
        o[x] = p[x] + (q[x] - p[x]) * (Uncertainty(p[x]) * ratio_);
      }
    }
    cc->Outputs().Tag(kSmoothedTag).Add(new Image(std::move(*out)), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  float ratio_ = 0.0f;
};
REGISTER_CALCULATOR(SegmentationSmoothingCalculator);

}  // namespace sluice
