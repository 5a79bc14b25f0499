// TensorsToClassificationCalculator: turns one score tensor into a
// ClassificationList (index, score, label), e.g. handedness.
//
//   node {
//     calculator: "TensorsToClassificationCalculator"
//     input_stream: "TENSORS:handedness_tensor"      # std::vector<Tensor> (exactly 1)
//     output_stream: "CLASSIFICATIONS:handedness"    # ClassificationList
//     options: { [mediapipe.TensorsToClassificationCalculatorOptions.ext] {
//       top_k: 1 binary_classification: true
//       label_map_path: "mediapipe/modules/hand_landmark/handedness.txt"
//     } }
//   }
//
// Labels come from `label_map_path` (one label per line; found as every
// resource is, see util/resource_util.h: the path, $SLUICE_RESOURCE_DIR roots,
// then copies embedded in the binary), `label_map` or `label_items`.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "calculators/tensor/tensors_to_classification_calculator.pb.h"
#include "formats/classification.pb.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "util/resource_util.h"

namespace sluice {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kClassificationsTag[] = "CLASSIFICATIONS";

using mediapipe::Classification;
using mediapipe::ClassificationList;
using Options = mediapipe::TensorsToClassificationCalculatorOptions;

absl::Status Error(const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat("TensorsToClassificationCalculator: ", msg));
}

struct Label {
  std::string name;
  std::string display_name;
};

}  // namespace

class TensorsToClassificationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kTensorsTag) || !cc->Outputs().HasTag(kClassificationsTag)) {
      return Error("needs a TENSORS input and a CLASSIFICATIONS output");
    }
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    cc->Outputs().Tag(kClassificationsTag).Set<ClassificationList>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    o_ = cc->Options<Options>();
    const int sources = (o_.has_label_map_path() ? 1 : 0) + (o_.has_label_map() ? 1 : 0) +
                        (o_.label_items_size() > 0 ? 1 : 0);
    if (sources > 1) return Error("set at most one of label_map_path, label_map, label_items");
    if (o_.has_label_map_path()) {
      absl::StatusOr<std::string> read = ReadResource(o_.label_map_path());
      if (!read.ok()) {
        return absl::Status(read.status().code(),
                            absl::StrCat("node \"", cc->NodeName(),
                                         "\" (TensorsToClassificationCalculator): label_map_path: ",
                                         read.status().message()));
      }
      const std::string& contents = *read;
      std::vector<std::string> lines = absl::StrSplit(contents, '\n');
      if (!lines.empty() && lines.back().empty()) lines.pop_back();
      for (size_t i = 0; i < lines.size(); ++i) {
        std::string line = lines[i];
        if (!line.empty() && line.back() == '\r') line.pop_back();
        labels_[static_cast<int>(i)] = {line, ""};
      }
    } else if (o_.has_label_map()) {
      for (const auto& e : o_.label_map().entries()) labels_[e.id()] = {e.label(), ""};
    } else {
      for (const auto& [id, item] : o_.label_items()) {
        labels_[static_cast<int>(id)] = {item.name(), item.display_name()};
      }
    }
    have_labels_ = sources > 0;
    if (o_.binary_classification() && have_labels_ &&
        (labels_.count(0) == 0 || labels_.count(1) == 0)) {
      return Error("binary_classification needs labels for classes 0 and 1");
    }
    if (!o_.ignore_classes().empty() && !o_.allow_classes().empty()) {
      return Error("set at most one of ignore_classes and allow_classes");
    }
    allow_ = !o_.allow_classes().empty();
    classes_.insert(o_.allow_classes().begin(), o_.allow_classes().end());
    classes_.insert(o_.ignore_classes().begin(), o_.ignore_classes().end());
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    if (tensors.size() != 1) {
      return Error(absl::StrCat("expected exactly 1 tensor, got ", tensors.size()));
    }
    if (tensors[0].element_type() != Tensor::ElementType::kFloat32) {
      return Error("tensor must be float32");
    }
    const int n = tensors[0].shape().num_elements();
    auto view = tensors[0].GetCpuReadView();
    const float* scores = view.buffer<float>();
    auto list = std::make_unique<ClassificationList>();
    if (o_.binary_classification()) {
      if (n != 1) return Error(absl::StrCat("binary_classification needs 1 score, got ", n));
      Add(0, scores[0], list.get());
      Add(1, 1. - scores[0], list.get());
    } else {
      if (have_labels_ && static_cast<int>(labels_.size()) < n) {
        return Error(absl::StrCat("label map has ", labels_.size(), " labels for ", n, " classes"));
      }
      for (int i = 0; i < n; ++i) {
        if (allow_ != (classes_.count(i) > 0)) continue;
        if (o_.has_min_score_threshold() && scores[i] < o_.min_score_threshold()) continue;
        Add(i, scores[i], list.get());
      }
    }
    auto* items = list->mutable_classification();
    auto by_score = [](const Classification& a, const Classification& b) {
      return a.score() > b.score();
    };
    if (o_.top_k() > 0) {
      const int keep = std::min(list->classification_size(), o_.top_k());
      std::partial_sort(items->begin(), items->begin() + keep, items->end(), by_score);
      items->DeleteSubrange(keep, items->size() - keep);
    } else if (o_.sort_by_descending_score()) {
      std::sort(items->begin(), items->end(), by_score);
    }
    cc->Outputs().Tag(kClassificationsTag).Add(list.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  void Add(int index, float score, ClassificationList* list) const {
    Classification* c = list->add_classification();
    c->set_index(index);
    c->set_score(score);
    if (!have_labels_) return;
    auto it = labels_.find(index);
    if (it == labels_.end()) return;
    c->set_label(it->second.name);
    if (!it->second.display_name.empty()) c->set_display_name(it->second.display_name);
  }

  Options o_;
  std::map<int, Label> labels_;
  bool have_labels_ = false;
  bool allow_ = false;
  std::set<int> classes_;
};
REGISTER_CALCULATOR(TensorsToClassificationCalculator);

}  // namespace sluice
