// VisibilitySmoothingCalculator: smooths the `visibility` of each landmark over
// time with a low-pass filter; everything else passes through.
//
//   node {
//     calculator: "VisibilitySmoothingCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"            # or LANDMARKS
//     output_stream: "NORM_FILTERED_LANDMARKS:filtered"   # or FILTERED_LANDMARKS
//     options: { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] {
//       low_pass_filter { alpha: 0.1 } } }                 # or no_filter {}
//   }
//
// One filter per landmark index; the first value passes through. When the node
// runs without landmarks (only possible with other inputs) the filters reset.
// A list whose length changes while filtering is an error.
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/visibility_smoothing_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "util/filtering/low_pass_filter.h"

namespace sluice {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kNormFilteredTag[] = "NORM_FILTERED_LANDMARKS";
constexpr char kFilteredTag[] = "FILTERED_LANDMARKS";

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using mediapipe::VisibilitySmoothingCalculatorOptions;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("VisibilitySmoothingCalculator: ", what));
}

}  // namespace

class VisibilitySmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
    if (norm == cc->Inputs().HasTag(kLandmarksTag)) {
      return Error("connect exactly one of NORM_LANDMARKS and LANDMARKS");
    }
    if (norm) {
      if (!cc->Outputs().HasTag(kNormFilteredTag)) {
        return Error("NORM_LANDMARKS needs a NORM_FILTERED_LANDMARKS output");
      }
      cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
      cc->Outputs().Tag(kNormFilteredTag).Set<NormalizedLandmarkList>();
    } else {
      if (!cc->Outputs().HasTag(kFilteredTag)) {
        return Error("LANDMARKS needs a FILTERED_LANDMARKS output");
      }
      cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
      cc->Outputs().Tag(kFilteredTag).Set<LandmarkList>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    const auto& options = cc->Options<VisibilitySmoothingCalculatorOptions>();
    if (options.has_no_filter()) {
      filter_ = false;
    } else if (options.has_low_pass_filter()) {
      filter_ = true;
      alpha_ = options.low_pass_filter().alpha();
      if (absl::Status s = filtering::LowPassFilter::ValidateAlpha(alpha_); !s.ok()) {
        return Error(absl::StrCat("low_pass_filter: ", s.message()));
      }
    } else {
      return Error("set one of the options no_filter or low_pass_filter");
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kNormLandmarksTag)) {
      return Smooth<NormalizedLandmarkList>(cc, kNormLandmarksTag, kNormFilteredTag);
    }
    return Smooth<LandmarkList>(cc, kLandmarksTag, kFilteredTag);
  }

 private:
  template <typename List>
  absl::Status Smooth(CalculatorContext* cc, const char* in_tag, const char* out_tag) {
    if (cc->Inputs().Tag(in_tag).IsEmpty()) {
      filters_.clear();
      return absl::OkStatus();
    }
    const List& in = cc->Inputs().Tag(in_tag).Get<List>();
    if (!filter_) {
      cc->Outputs().Tag(out_tag).AddPacket(cc->Inputs().Tag(in_tag).Value());
      return absl::OkStatus();
    }
    if (filters_.empty()) {
      filters_.assign(in.landmark_size(), filtering::LowPassFilter(alpha_));
    } else if (static_cast<int>(filters_.size()) != in.landmark_size()) {
      return Error(absl::StrCat(in_tag, " had ", filters_.size(), " landmarks, now ",
                                in.landmark_size()));
    }
    auto out = std::make_unique<List>(in);
    for (int i = 0; i < out->landmark_size(); ++i) {
      auto* lm = out->mutable_landmark(i);
      lm->set_visibility(filters_[i].Apply(lm->visibility()));
    }
    cc->Outputs().Tag(out_tag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

  bool filter_ = false;
  float alpha_ = 0.1f;
  std::vector<filtering::LowPassFilter> filters_;
};
REGISTER_CALCULATOR(VisibilitySmoothingCalculator);

}  // namespace sluice
