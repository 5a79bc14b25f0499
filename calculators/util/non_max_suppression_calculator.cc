// NonMaxSuppressionCalculator: removes overlapping detections, keeping the
// best-scoring one of each cluster (DEFAULT) or merging each cluster into its
// leader by score-weighted averaging (WEIGHTED).
//
//   node {
//     calculator: "NonMaxSuppressionCalculator"
//     input_stream: "unfiltered_detections"     # std::vector<Detection>, 1..N
//     output_stream: "filtered_detections"      # std::vector<Detection>
//     options: { [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {
//       min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION
//       algorithm: WEIGHTED
//     } }
//   }
//
// Boxes are read from relative bounding boxes. An optional IMAGE input is
// accepted for config compatibility and not used. Each detection keeps only
// its best label. Output order: descending score (of cluster leaders).
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/geometry_util.h"
#include "calculators/util/non_max_suppression_calculator.pb.h"
#include "formats/detection.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

using mediapipe::Detection;
using mediapipe::NonMaxSuppressionCalculatorOptions;
using Detections = std::vector<Detection>;
using IndexedScores = std::vector<std::pair<int, float>>;

bool ByScoreDesc(const std::pair<int, float>& a, const std::pair<int, float>& b) {
  return a.second > b.second;
}

// Keeps only the best label (and its score); false if the detection has no
// label at all (such detections are dropped).
absl::Status KeepBestLabel(Detection* d, bool* keep) {
  *keep = false;
  if (d->label_id_size() == 0 && d->label_size() == 0) return absl::OkStatus();
  if (d->score_size() == 0 ||
      (d->label_id_size() != d->score_size() && d->label_size() != d->score_size())) {
    return absl::InvalidArgumentError(
        "NonMaxSuppressionCalculator: a detection's scores and labels differ in number");
  }
  IndexedScores scores;
  for (int k = 0; k < d->score_size(); ++k) scores.emplace_back(k, d->score(k));
  std::sort(scores.begin(), scores.end(), ByScoreDesc);
  const int top = scores[0].first;
  d->clear_score();
  d->add_score(scores[0].second);
  if (d->label_id_size() > top) {
    const int id = d->label_id(top);
    d->clear_label_id();
    d->add_label_id(id);
  } else {
    const std::string label = d->label(top);
    d->clear_label();
    d->add_label(label);
  }
  *keep = true;
  return absl::OkStatus();
}

BoxF BoxOf(const Detection& d) {
  const auto& b = d.location_data().relative_bounding_box();
  return BoxF::FromXywh(b.xmin(), b.ymin(), b.width(), b.height());
}

// `second` is the reference box of MODIFIED_JACCARD.
float Overlap(NonMaxSuppressionCalculatorOptions::OverlapType type, const BoxF& first,
              const BoxF& second) {
  if (!first.Intersects(second)) return 0.0f;
  const float inter = first.Intersection(second).Area();
  float norm = 0.0f;
  switch (type) {
    case NonMaxSuppressionCalculatorOptions::MODIFIED_JACCARD:
      norm = second.Area();
      break;
    case NonMaxSuppressionCalculatorOptions::INTERSECTION_OVER_UNION:
      norm = first.Area() + second.Area() - inter;
      break;
    default:  // JACCARD
      norm = first.Enclosing(second).Area();
      break;
  }
  return norm > 0.0f ? inter / norm : 0.0f;
}

}  // namespace

class NonMaxSuppressionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& options = cc->Options<NonMaxSuppressionCalculatorOptions>();
    if (options.num_detection_streams() <= 0) {
      return absl::InvalidArgumentError(
          "NonMaxSuppressionCalculator: num_detection_streams must be > 0");
    }
    if (cc->Inputs().NumEntries("") != options.num_detection_streams()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "NonMaxSuppressionCalculator: num_detection_streams is ",
          options.num_detection_streams(), " but ", cc->Inputs().NumEntries(""),
          " untagged input streams are connected"));
    }
    if (options.max_num_detections() == 0) {
      return absl::InvalidArgumentError(
          "NonMaxSuppressionCalculator: max_num_detections must be positive or -1");
    }
    if (cc->Inputs().HasTag("IMAGE")) cc->Inputs().Tag("IMAGE").SetAny();
    for (int i = 0; i < options.num_detection_streams(); ++i) {
      cc->Inputs().Index(i).Set<Detections>();
    }
    if (cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError("NonMaxSuppressionCalculator: needs one output stream");
    }
    cc->Outputs().Index(0).Set<Detections>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    options_ = cc->Options<NonMaxSuppressionCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    Detections pruned;
    for (int i = 0; i < options_.num_detection_streams(); ++i) {
      const Packet& p = cc->Inputs().Index(i).Value();
      if (p.IsEmpty()) continue;
      for (const Detection& d : p.Get<Detections>()) {
        Detection copy = d;
        bool keep = false;
        absl::Status s = KeepBestLabel(&copy, &keep);
        if (!s.ok()) return s;
        if (keep) pruned.push_back(std::move(copy));
      }
    }
    if (pruned.empty()) {
      // Detections without labels count as present for this check, as in
      // MediaPipe; only a truly empty input is "nothing".
      if (!HadAnyInput(cc)) {
        if (options_.return_empty_detections()) {
          cc->Outputs().Index(0).Add(new Detections(), cc->InputTimestamp());
        }
        return absl::OkStatus();
      }
    }
    IndexedScores order;
    for (int i = 0; i < static_cast<int>(pruned.size()); ++i) {
      order.emplace_back(i, pruned[i].score(0));
    }
    std::sort(order.begin(), order.end(), ByScoreDesc);
    auto out = std::make_unique<Detections>();
    if (options_.algorithm() == NonMaxSuppressionCalculatorOptions::WEIGHTED) {
      Weighted(order, pruned, out.get());
    } else {
      Greedy(order, pruned, out.get());
    }
    cc->Outputs().Index(0).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  bool HadAnyInput(CalculatorContext* cc) const {
    for (int i = 0; i < options_.num_detection_streams(); ++i) {
      const Packet& p = cc->Inputs().Index(i).Value();
      if (!p.IsEmpty() && !p.Get<Detections>().empty()) return true;
    }
    return false;
  }

  bool BelowMinScore(const Detection& d) const {
    return options_.min_score_threshold() > 0 && d.score(0) < options_.min_score_threshold();
  }

  void Greedy(const IndexedScores& order, const Detections& dets, Detections* out) const {
    const size_t limit = options_.max_num_detections() > 0
                             ? static_cast<size_t>(options_.max_num_detections())
                             : order.size();
    std::vector<BoxF> kept;
    for (const auto& [index, score] : order) {
      const Detection& d = dets[index];
      if (BelowMinScore(d)) break;
      const BoxF box = BoxOf(d);
      bool suppressed = false;
      for (const BoxF& k : kept) {
        if (Overlap(options_.overlap_type(), k, box) > options_.min_suppression_threshold()) {
          suppressed = true;
          break;
        }
      }
      if (!suppressed) {
        out->push_back(d);
        kept.push_back(box);
      }
      if (out->size() >= limit) break;
    }
  }

  // max_num_detections is deliberately not applied here (MediaPipe does not).
  void Weighted(IndexedScores remaining, const Detections& dets, Detections* out) const {
    IndexedScores rest, cluster;
    while (!remaining.empty()) {
      const Detection& leader = dets[remaining[0].first];
      if (BelowMinScore(leader)) break;
      const BoxF leader_box = BoxOf(leader);
      rest.clear();
      cluster.clear();
      for (const auto& entry : remaining) {  // includes the leader itself
        const float overlap = Overlap(options_.overlap_type(), BoxOf(dets[entry.first]), leader_box);
        (overlap > options_.min_suppression_threshold() ? cluster : rest).push_back(entry);
      }
      Detection merged = leader;
      if (!cluster.empty()) {
        const int num_kp = leader.location_data().relative_keypoints_size();
        std::vector<float> kp(num_kp * 2, 0.0f);
        float xmin = 0, ymin = 0, xmax = 0, ymax = 0, total = 0;
        for (const auto& [index, score] : cluster) {
          const auto& loc = dets[index].location_data();
          const auto& b = loc.relative_bounding_box();
          total += score;
          xmin += b.xmin() * score;
          ymin += b.ymin() * score;
          xmax += (b.xmin() + b.width()) * score;
          ymax += (b.ymin() + b.height()) * score;
          for (int i = 0; i < num_kp && i < loc.relative_keypoints_size(); ++i) {
            kp[i * 2] += loc.relative_keypoints(i).x() * score;
            kp[i * 2 + 1] += loc.relative_keypoints(i).y() * score;
          }
        }
        auto* box = merged.mutable_location_data()->mutable_relative_bounding_box();
        box->set_xmin(xmin / total);
        box->set_ymin(ymin / total);
        box->set_width(xmax / total - box->xmin());
        box->set_height(ymax / total - box->ymin());
        for (int i = 0; i < num_kp; ++i) {
          auto* k = merged.mutable_location_data()->mutable_relative_keypoints(i);
          k->set_x(kp[i * 2] / total);
          k->set_y(kp[i * 2 + 1] / total);
        }
      }
      out->push_back(std::move(merged));
      if (rest.size() == remaining.size()) break;
      remaining.swap(rest);
    }
  }

  NonMaxSuppressionCalculatorOptions options_;
};
REGISTER_CALCULATOR(NonMaxSuppressionCalculator);

}  // namespace sluice
