// TensorsToDetectionsCalculator: decodes an SSD-style detection model's raw
// box/keypoint regressors and class scores into Detections, relative to a set
// of anchors.
//
//   node {
//     calculator: "TensorsToDetectionsCalculator"
//     input_stream: "TENSORS:detection_tensors"   # std::vector<Tensor>, float32
//     input_side_packet: "ANCHORS:anchors"        # std::vector<Anchor> (optional)
//     output_stream: "DETECTIONS:detections"      # std::vector<Detection>
//     options: { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
//       num_classes: 1 num_boxes: 2016 num_coords: 18 keypoint_coord_offset: 4
//       num_keypoints: 7 sigmoid_score: true score_clipping_thresh: 100
//       reverse_output_order: true x_scale: 192 y_scale: 192 w_scale: 192
//       h_scale: 192 min_score_thresh: 0.5
//     } }
//   }
//
// Inputs: 2 tensors (boxes [1,N,C] or [1,1,N,C], scores [1,N,K]) decoded with
// the ANCHORS side packet, 3 tensors (the third holds anchors as [N,4] y,x,h,w),
// or 4 tensors from a model with built-in post-processing (boxes, classes,
// scores, count). A detection is emitted for every box whose best allowed
// class scores >= min_score_thresh, in box order; the output is always sent,
// possibly empty. An optional IGNORE_CLASSES side packet (std::vector<int>)
// overrides the options' class lists.
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "formats/anchor.pb.h"
#include "formats/detection.pb.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kAnchorsTag[] = "ANCHORS";
constexpr char kIgnoreClassesTag[] = "IGNORE_CLASSES";
constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr int kCoordsPerBox = 4;

using mediapipe::Anchor;
using mediapipe::Detection;
using mediapipe::LocationData;
using Options = mediapipe::TensorsToDetectionsCalculatorOptions;

absl::Status Error(const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat("TensorsToDetectionsCalculator: ", msg));
}

std::string Dims(const Tensor& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape().dims.size(); ++i) {
    absl::StrAppend(&s, i ? "," : "", t.shape().dims[i]);
  }
  return s + "]";
}

// Checks `t` is [1, n, k] or [1, 1, n, k].
absl::Status CheckRows(const Tensor& t, int n, int k, const char* what) {
  const auto& d = t.shape().dims;
  const bool ok = (d.size() == 3 && d[0] == 1 && d[1] == n && d[2] == k) ||
                  (d.size() == 4 && d[0] == 1 && d[1] == 1 && d[2] == n && d[3] == k);
  if (!ok) {
    return Error(absl::StrCat(what, " tensor is ", Dims(t), ", expected [1,", n, ",", k,
                              "] or [1,1,", n, ",", k, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

class TensorsToDetectionsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kTensorsTag) || !cc->Outputs().HasTag(kDetectionsTag)) {
      return Error("needs a TENSORS input and a DETECTIONS output");
    }
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    cc->Outputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    if (cc->InputSidePackets().HasTag(kAnchorsTag)) {
      cc->InputSidePackets().Tag(kAnchorsTag).Set<std::vector<Anchor>>().Optional();
    }
    if (cc->InputSidePackets().HasTag(kIgnoreClassesTag)) {
      cc->InputSidePackets().Tag(kIgnoreClassesTag).Set<std::vector<int>>().Optional();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    o_ = cc->Options<Options>();
    if (!o_.has_num_classes() || !o_.has_num_coords()) {
      return Error("num_classes and num_coords must be set");
    }
    if (o_.max_results() == 0) return Error("max_results must be positive or -1");
    if (o_.num_values_per_keypoint() != 2) return Error("num_values_per_keypoint must be 2");
    if (o_.num_keypoints() * o_.num_values_per_keypoint() + kCoordsPerBox != o_.num_coords()) {
      return Error(absl::StrCat("num_coords (", o_.num_coords(), ") must be 4 + 2 * num_keypoints (",
                                o_.num_keypoints(), ")"));
    }
    if (o_.box_coord_offset() < 0 || o_.box_coord_offset() + kCoordsPerBox > o_.num_coords() ||
        o_.keypoint_coord_offset() < 0 ||
        o_.keypoint_coord_offset() + 2 * o_.num_keypoints() > o_.num_coords()) {
      return Error("box_coord_offset / keypoint_coord_offset out of the num_coords range");
    }
    format_ = o_.has_box_format() ? o_.box_format()
              : o_.reverse_output_order() ? Options::XYWH
                                          : Options::YXHW;
    if (cc->InputSidePackets().HasTag(kIgnoreClassesTag) &&
        !cc->InputSidePackets().Tag(kIgnoreClassesTag).IsEmpty()) {
      if (!o_.allow_classes().empty()) return Error("IGNORE_CLASSES conflicts with allow_classes");
      for (int c : cc->InputSidePackets().Tag(kIgnoreClassesTag).Get<std::vector<int>>()) {
        classes_.insert(c);
      }
    } else if (!o_.allow_classes().empty()) {
      if (!o_.ignore_classes().empty()) {
        return Error("set at most one of allow_classes and ignore_classes");
      }
      allowlist_ = true;
      classes_.insert(o_.allow_classes().begin(), o_.allow_classes().end());
    } else {
      classes_.insert(o_.ignore_classes().begin(), o_.ignore_classes().end());
    }
    if (cc->InputSidePackets().HasTag(kAnchorsTag) &&
        !cc->InputSidePackets().Tag(kAnchorsTag).IsEmpty()) {
      anchors_ = cc->InputSidePackets().Tag(kAnchorsTag).Get<std::vector<Anchor>>();
      have_anchors_ = true;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    for (const Tensor& t : tensors) {
      if (t.element_type() != Tensor::ElementType::kFloat32) {
        return Error("input tensors must be float32");
      }
    }
    auto out = std::make_unique<std::vector<Detection>>();
    absl::Status s;
    if (tensors.size() == 2 || tensors.size() == 3) {
      s = DecodeRaw(tensors, out.get());
    } else if (tensors.size() == 4) {
      s = DecodePostProcessed(tensors, out.get());
    } else {
      s = Error(absl::StrCat("expected 2, 3 or 4 input tensors, got ", tensors.size()));
    }
    if (!s.ok()) return s;
    cc->Outputs().Tag(kDetectionsTag).Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  bool Allowed(int c) const { return allowlist_ == (classes_.count(c) > 0); }

  int Index(int mapped, int fallback) const { return o_.has_tensor_mapping() ? mapped : fallback; }

  absl::Status DecodeRaw(const std::vector<Tensor>& tensors, std::vector<Detection>* out) {
    const int n = o_.num_boxes();
    const int k = o_.num_classes();
    if (n <= 0) return Error("num_boxes must be set");
    const auto& m = o_.tensor_mapping();
    const int box_i = Index(m.detections_tensor_index(), 0);
    const int score_i = Index(m.scores_tensor_index(), 1);
    const int anchor_i = Index(m.anchors_tensor_index(), 2);
    for (int i : {box_i, score_i}) {
      if (i < 0 || i >= static_cast<int>(tensors.size())) return Error("tensor_mapping out of range");
    }
    absl::Status s = CheckRows(tensors[box_i], n, o_.num_coords(), "box");
    if (s.ok()) s = CheckRows(tensors[score_i], n, k, "score");
    if (!s.ok()) return s;
    if (tensors.size() == 3 && !anchors_from_tensor_done_) {
      if (anchor_i < 0 || anchor_i >= 3) return Error("tensor_mapping out of range");
      const Tensor& a = tensors[anchor_i];
      if (a.shape().dims.size() != 2 || a.shape().dims[0] != n || a.shape().dims[1] != 4) {
        return Error(absl::StrCat("anchor tensor is ", Dims(a), ", expected [", n, ",4]"));
      }
      auto view = a.GetCpuReadView();
      const float* raw = view.buffer<float>();
      anchors_.clear();
      for (int i = 0; i < n; ++i) {
        Anchor an;
        an.set_y_center(raw[i * 4 + 0]);
        an.set_x_center(raw[i * 4 + 1]);
        an.set_h(raw[i * 4 + 2]);
        an.set_w(raw[i * 4 + 3]);
        anchors_.push_back(an);
      }
      have_anchors_ = anchors_from_tensor_done_ = true;
    }
    if (!have_anchors_) return absl::UnavailableError("TensorsToDetectionsCalculator: no anchors (connect ANCHORS or pass an anchor tensor)");
    if (static_cast<int>(anchors_.size()) != n) {
      return Error(absl::StrCat(anchors_.size(), " anchors for num_boxes ", n));
    }
    auto box_view = tensors[box_i].GetCpuReadView();
    auto score_view = tensors[score_i].GetCpuReadView();
    const float* raw_boxes = box_view.buffer<float>();
    const float* raw_scores = score_view.buffer<float>();
    std::vector<float> boxes(static_cast<size_t>(n) * o_.num_coords());
    Decode(raw_boxes, boxes.data());

    std::vector<float> scores(n);
    std::vector<int> classes(n);
    for (int i = 0; i < n; ++i) {
      int best = -1;
      float best_score = -std::numeric_limits<float>::max();
      for (int c = 0; c < k; ++c) {
        if (!Allowed(c)) continue;
        float v = raw_scores[i * k + c];
        if (o_.sigmoid_score()) {
          if (o_.has_score_clipping_thresh()) {
            v = v < -o_.score_clipping_thresh() ? -o_.score_clipping_thresh() : v;
            v = v > o_.score_clipping_thresh() ? o_.score_clipping_thresh() : v;
          }
          v = 1.0f / (1.0f + std::exp(-v));
        }
        if (best_score < v) {
          best_score = v;
          best = c;
        }
      }
      scores[i] = best_score;
      classes[i] = best;
    }
    Convert(boxes.data(), scores.data(), classes.data(), n, 1, {0, 1, 2, 3}, out);
    return absl::OkStatus();
  }

  absl::Status DecodePostProcessed(const std::vector<Tensor>& tensors,
                                   std::vector<Detection>* out) {
    const auto& m = o_.tensor_mapping();
    const int box_i = Index(m.detections_tensor_index(), 0);
    const int class_i = Index(m.classes_tensor_index(), 1);
    const int score_i = Index(m.scores_tensor_index(), 2);
    const int count_i = Index(m.num_detections_tensor_index(), 3);
    for (int i : {box_i, class_i, score_i, count_i}) {
      if (i < 0 || i >= 4) return Error("tensor_mapping out of range");
    }
    const auto& bd = tensors[box_i].shape().dims;
    if (bd.size() != 3 || bd[0] != 1 || bd[2] != o_.num_coords()) {
      return Error(absl::StrCat("box tensor is ", Dims(tensors[box_i]), ", expected [1,M,",
                                o_.num_coords(), "]"));
    }
    const int max_det = bd[1];
    for (int i : {class_i, score_i}) {
      const auto& d = tensors[i].shape().dims;
      if (d.size() != 2 || d[0] != 1 || d[1] != max_det) {
        return Error(absl::StrCat("class/score tensor is ", Dims(tensors[i]), ", expected [1,",
                                  max_det, "]"));
      }
    }
    if (tensors[count_i].shape().num_elements() != 1) return Error("count tensor must hold 1 value");
    const int count = static_cast<int>(tensors[count_i].GetCpuReadView().buffer<float>()[0]);
    if (count <= 0) return absl::OkStatus();
    if (count > max_det || max_det % count != 0) {
      return Error(absl::StrCat("detection count ", count, " does not divide ", max_det));
    }
    std::vector<int> box_idx = {0, 1, 2, 3};
    if (o_.has_box_boundaries_indices()) {
      const auto& b = o_.box_boundaries_indices();
      box_idx = {b.ymin(), b.xmin(), b.ymax(), b.xmax()};
      int bits = 0;
      for (int i : box_idx) bits |= (i >= 0 && i < 4) ? 1 << i : 16;
      if (bits != 15) return Error("box_boundaries_indices must be a permutation of 0..3");
    }
    auto box_view = tensors[box_i].GetCpuReadView();
    auto class_view = tensors[class_i].GetCpuReadView();
    auto score_view = tensors[score_i].GetCpuReadView();
    std::vector<int> classes(max_det);
    for (int i = 0; i < max_det; ++i) classes[i] = static_cast<int>(class_view.buffer<float>()[i]);
    Convert(box_view.buffer<float>(), score_view.buffer<float>(), classes.data(), count,
            max_det / count, box_idx, out);
    return absl::OkStatus();
  }

  // Raw regressors -> (ymin, xmin, ymax, xmax, keypoints x,y...) per box.
  void Decode(const float* raw, float* boxes) const {
    for (int i = 0; i < o_.num_boxes(); ++i) {
      const Anchor& a = anchors_[i];
      const int off = i * o_.num_coords() + o_.box_coord_offset();
      float yc = 0, xc = 0, h = 0, w = 0;
      switch (format_) {
        case Options::XYWH:
          xc = raw[off];
          yc = raw[off + 1];
          w = raw[off + 2];
          h = raw[off + 3];
          break;
        case Options::XYXY:
          xc = (-raw[off] + raw[off + 2]) / 2;
          yc = (-raw[off + 1] + raw[off + 3]) / 2;
          w = raw[off + 2] + raw[off];
          h = raw[off + 3] + raw[off + 1];
          break;
        default:  // YXHW / UNSPECIFIED
          yc = raw[off];
          xc = raw[off + 1];
          h = raw[off + 2];
          w = raw[off + 3];
          break;
      }
      xc = xc / o_.x_scale() * a.w() + a.x_center();
      yc = yc / o_.y_scale() * a.h() + a.y_center();
      if (o_.apply_exponential_on_box_size()) {
        h = std::exp(h / o_.h_scale()) * a.h();
        w = std::exp(w / o_.w_scale()) * a.w();
      } else {
        h = h / o_.h_scale() * a.h();
        w = w / o_.w_scale() * a.w();
      }
      float* box = boxes + i * o_.num_coords();
      box[0] = yc - h / 2.f;
      box[1] = xc - w / 2.f;
      box[2] = yc + h / 2.f;
      box[3] = xc + w / 2.f;
      for (int k = 0; k < o_.num_keypoints(); ++k) {
        const int kp = i * o_.num_coords() + o_.keypoint_coord_offset() + 2 * k;
        const bool yx = format_ != Options::XYWH && format_ != Options::XYXY;
        const float kx = yx ? raw[kp + 1] : raw[kp];
        const float ky = yx ? raw[kp] : raw[kp + 1];
        boxes[kp] = kx / o_.x_scale() * a.w() + a.x_center();
        boxes[kp + 1] = ky / o_.y_scale() * a.h() + a.y_center();
      }
    }
  }

  // `per_box` consecutive (score, class) entries belong to one box.
  void Convert(const float* boxes, const float* scores, const int* classes, int count,
               int per_box, const std::vector<int>& idx, std::vector<Detection>* out) const {
    for (int i = 0; i < count * per_box; i += per_box) {
      if (o_.max_results() > 0 && static_cast<int>(out->size()) == o_.max_results()) break;
      const int off = i * o_.num_coords();
      Detection d;
      for (int j = i; j < i + per_box; ++j) {
        if (classes[j] < 0 || !Allowed(classes[j])) continue;
        if (o_.has_min_score_thresh() && scores[j] < o_.min_score_thresh()) continue;
        d.add_score(scores[j]);
        d.add_label_id(classes[j]);
      }
      if (d.score_size() == 0) continue;
      const float ymin = boxes[off + idx[0]], xmin = boxes[off + idx[1]];
      const float ymax = boxes[off + idx[2]], xmax = boxes[off + idx[3]];
      LocationData* loc = d.mutable_location_data();
      loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
      auto* box = loc->mutable_relative_bounding_box();
      box->set_xmin(xmin);
      box->set_ymin(o_.flip_vertically() ? 1.f - ymax : ymin);
      box->set_width(xmax - xmin);
      box->set_height(ymax - ymin);
      if (box->width() < 0 || box->height() < 0 || std::isnan(box->width()) ||
          std::isnan(box->height())) {
        continue;
      }
      for (int k = 0; k < o_.num_keypoints(); ++k) {
        const int kp = off + o_.keypoint_coord_offset() + 2 * k;
        auto* p = loc->add_relative_keypoints();
        p->set_x(boxes[kp]);
        p->set_y(o_.flip_vertically() ? 1.f - boxes[kp + 1] : boxes[kp + 1]);
      }
      out->push_back(std::move(d));
    }
  }

  Options o_;
  Options::BoxFormat format_ = Options::YXHW;
  std::set<int> classes_;
  bool allowlist_ = false;
  std::vector<Anchor> anchors_;
  bool have_anchors_ = false;
  bool anchors_from_tensor_done_ = false;
};
REGISTER_CALCULATOR(TensorsToDetectionsCalculator);

}  // namespace sluice
