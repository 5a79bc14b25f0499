// LandmarksRefinementCalculator: merges several landmark lists into one. Each
// LANDMARKS:i input has a Refinement: its landmark j lands at output index
// indexes_mapping[j] (x and y always; z per z_refinement). Refinements apply
// in input order, so later (finer) lists overwrite earlier points. The output
// has one landmark per distinct index over all mappings (0..n-1, no gaps);
// visibility and presence stay unset, as in MediaPipe. The face mesh
// attention model uses it to put its lips, eyes and irises into the mesh.
//
//   node {
//     calculator: "LandmarksRefinementCalculator"
//     input_stream: "LANDMARKS:0:mesh_landmarks"      # NormalizedLandmarkList
//     input_stream: "LANDMARKS:1:lips_landmarks"
//     output_stream: "REFINED_LANDMARKS:landmarks"    # NormalizedLandmarkList
//     options: { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
//       refinement { indexes_mapping: [...] z_refinement { copy {} } }
//       refinement { indexes_mapping: [...] z_refinement { none {} } } } }
//   }
//
// No output at a timestamp where any input is missing.
#include <memory>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/landmarks_refinement_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kRefinedTag[] = "REFINED_LANDMARKS";

using mediapipe::LandmarksRefinementCalculatorOptions;
using mediapipe::NormalizedLandmarkList;
using Refinement = LandmarksRefinementCalculatorOptions::Refinement;

absl::Status Error(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("LandmarksRefinementCalculator: ", what));
}

}  // namespace

class LandmarksRefinementCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries(kLandmarksTag) == 0 || !cc->Outputs().HasTag(kRefinedTag)) {
      return Error("needs LANDMARKS inputs and a REFINED_LANDMARKS output");
    }
    for (int i = 0; i < cc->Inputs().NumEntries(kLandmarksTag); ++i) {
      cc->Inputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
    }
    cc->Outputs().Tag(kRefinedTag).Set<NormalizedLandmarkList>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<LandmarksRefinementCalculatorOptions>();
    std::set<int> indexes;
    for (int i = 0; i < options_.refinement_size(); ++i) {
      const Refinement& r = options_.refinement(i);
      if (r.indexes_mapping_size() == 0) {
        return Error(absl::StrCat("refinement ", i, " has no indexes_mapping"));
      }
      const auto& z = r.z_refinement();
      if (z.z_refinement_options_case() ==
          LandmarksRefinementCalculatorOptions::ZRefinement::Z_REFINEMENT_OPTIONS_NOT_SET) {
        return Error(absl::StrCat("refinement ", i, " has no z_refinement (none, copy or assign_average)"));
      }
      if (z.has_assign_average() && z.assign_average().indexes_for_average_size() == 0) {
        return Error(absl::StrCat("refinement ", i, ": assign_average needs indexes_for_average"));
      }
      for (int index : r.indexes_mapping()) indexes.insert(index);
    }
    if (indexes.empty()) return Error("no refinement given");
    num_refined_ = static_cast<int>(indexes.size());
    if (*indexes.begin() != 0 || *indexes.rbegin() != num_refined_ - 1) {
      return Error(absl::StrCat("indexes_mapping must cover 0..n-1 without gaps; got ",
                                num_refined_, " distinct indexes from ", *indexes.begin(),
                                " to ", *indexes.rbegin()));
    }
    for (int i = 0; i < options_.refinement_size(); ++i) {
      const auto& z = options_.refinement(i).z_refinement();
      if (!z.has_assign_average()) continue;
      for (int index : z.assign_average().indexes_for_average()) {
        if (index < 0 || index >= num_refined_) {
          return Error(absl::StrCat("refinement ", i, ": indexes_for_average has ", index,
                                    ", outside 0..", num_refined_ - 1));
        }
      }
    }
    if (cc->Inputs().NumEntries(kLandmarksTag) != options_.refinement_size()) {
      return Error(absl::StrCat(options_.refinement_size(), " refinements for ",
                                cc->Inputs().NumEntries(kLandmarksTag), " LANDMARKS inputs"));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const int n = cc->Inputs().NumEntries(kLandmarksTag);
    for (int i = 0; i < n; ++i) {
      if (cc->Inputs().Get(kLandmarksTag, i).IsEmpty()) return absl::OkStatus();
    }
    auto refined = std::make_unique<NormalizedLandmarkList>();
    for (int i = 0; i < num_refined_; ++i) refined->add_landmark();
    for (int i = 0; i < n; ++i) {
      const auto& in = cc->Inputs().Get(kLandmarksTag, i).Get<NormalizedLandmarkList>();
      const Refinement& r = options_.refinement(i);
      if (in.landmark_size() != r.indexes_mapping_size()) {
        return Error(absl::StrCat("LANDMARKS:", i, " has ", in.landmark_size(),
                                  " landmarks, its refinement maps ", r.indexes_mapping_size()));
      }
      for (int j = 0; j < in.landmark_size(); ++j) {
        auto* out = refined->mutable_landmark(r.indexes_mapping(j));
        out->set_x(in.landmark(j).x());
        out->set_y(in.landmark(j).y());
        if (r.z_refinement().has_copy()) out->set_z(in.landmark(j).z());
      }
      if (r.z_refinement().has_assign_average()) {
        // The mean is taken over the refined list as it stands now, in double
        // as MediaPipe does.
        const auto& avg = r.z_refinement().assign_average().indexes_for_average();
        double sum = 0;
        for (int index : avg) sum += refined->landmark(index).z();
        const float mean = static_cast<float>(sum / avg.size());
        for (int index : r.indexes_mapping()) refined->mutable_landmark(index)->set_z(mean);
      }
    }
    cc->Outputs().Tag(kRefinedTag).Add(refined.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  LandmarksRefinementCalculatorOptions options_;
  int num_refined_ = 0;
};
REGISTER_CALCULATOR(LandmarksRefinementCalculator);

}  // namespace sluice
