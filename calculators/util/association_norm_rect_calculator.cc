// AssociationNormRectCalculator: merges several vectors of NormalizedRects,
// letting each rect replace the earlier ones it overlaps (IoU >
// min_similarity_threshold). Used to prefer landmark-derived hand ROIs over
// palm-detection ROIs for the same hand.
//
//   node {
//     calculator: "AssociationNormRectCalculator"
//     input_stream: "hand_rects_from_palm_detections"   # std::vector<NormalizedRect>
//     input_stream: "gated_prev_hand_rects_from_landmarks"
//     output_stream: "hand_rects"
//     options: { [mediapipe.AssociationCalculatorOptions.ext] {
//       min_similarity_threshold: 0.5 } }
//   }
//
// Rects are compared as axis-aligned boxes (rotation ignored). A replaced
// rect's rect_id passes to its replacement. An optional PREV input (vector)
// assigns each output the rect_id of its best-overlapping previous rect.
#include <iterator>
#include <list>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "calculators/util/association_calculator.pb.h"
#include "calculators/util/geometry_util.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kPrevTag[] = "PREV";

using mediapipe::AssociationCalculatorOptions;
using mediapipe::NormalizedRect;
using Rects = std::vector<NormalizedRect>;

BoxF BoxOf(const NormalizedRect& r) {
  return BoxF::FromXywh(r.x_center() - r.width() / 2.0, r.y_center() - r.height() / 2.0,
                        r.width(), r.height());
}

}  // namespace

class AssociationNormRectCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries("") == 0 || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          "AssociationNormRectCalculator: needs untagged input streams and one output");
    }
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) cc->Inputs().Index(i).Set<Rects>();
    if (cc->Inputs().HasTag(kPrevTag)) cc->Inputs().Tag(kPrevTag).Set<Rects>();
    cc->Outputs().Index(0).Set<Rects>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    threshold_ = cc->Options<AssociationCalculatorOptions>().min_similarity_threshold();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::list<NormalizedRect> result;
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      const InputStreamShard& in = cc->Inputs().Index(i);
      if (in.IsEmpty()) continue;
      for (const NormalizedRect& r : in.Get<Rects>()) Add(r, &result);
    }
    if (cc->Inputs().HasTag(kPrevTag) && !cc->Inputs().Tag(kPrevTag).IsEmpty()) {
      PropagateIds(cc->Inputs().Tag(kPrevTag).Get<Rects>(), &result);
    }
    cc->Outputs().Index(0).Add(new Rects(result.begin(), result.end()), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  void Add(NormalizedRect element, std::list<NormalizedRect>* current) const {
    const BoxF box = BoxOf(element);
    bool change_id = false;
    int64_t new_id = -1;
    for (auto it = current->begin(); it != current->end();) {
      if (IoU(box, BoxOf(*it)) > threshold_) {
        if (it->has_rect_id()) {
          change_id = true;
          new_id = it->rect_id();
        }
        it = current->erase(it);
      } else {
        ++it;
      }
    }
    if (change_id) element.set_rect_id(new_id);
    current->push_back(std::move(element));
  }

  void PropagateIds(const Rects& prev, std::list<NormalizedRect>* current) const {
    for (NormalizedRect& r : *current) {
      float best = -1.0f;
      int64_t best_id = -1;
      for (const NormalizedRect& p : prev) {
        const float iou = IoU(BoxOf(r), BoxOf(p));
        if (iou > best) {
          best = iou;
          best_id = p.rect_id();
        }
      }
      if (best > threshold_) r.set_rect_id(best_id);
    }
  }

  float threshold_ = 1.0f;
};
REGISTER_CALCULATOR(AssociationNormRectCalculator);

}  // namespace sluice
