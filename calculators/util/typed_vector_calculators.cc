// MediaPipe's per-type instances of the core loop / concatenate / split / clip
// calculator templates for the detection, rect, landmark, classification and
// tensor types, plus the splitters that need type-specific code (tensors are
// move-only and are deep-copied; landmark lists are split by landmark).
#include <cstring>
#include <memory>
#include <vector>

#include "calculators/core/begin_loop_calculator.h"
#include "calculators/core/concatenate_vector_calculator.h"
#include "calculators/core/end_loop_calculator.h"
#include "calculators/core/split_vector_calculator.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"

namespace sluice {

using mediapipe::ClassificationList;
using mediapipe::Detection;
using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmark;
using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using mediapipe::Rect;

SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopDetectionCalculator, std::vector<Detection>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopNormalizedRectCalculator,
                                      std::vector<NormalizedRect>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopRectCalculator, std::vector<Rect>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopNormalizedLandmarkListVectorCalculator,
                                      std::vector<NormalizedLandmarkList>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopLandmarkListVectorCalculator,
                                      std::vector<LandmarkList>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopClassificationListCalculator,
                                      std::vector<ClassificationList>);
SLUICE_REGISTER_BEGIN_LOOP_CALCULATOR(BeginLoopTensorCalculator, std::vector<Tensor>);

SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopDetectionCalculator, std::vector<Detection>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopNormalizedRectCalculator, std::vector<NormalizedRect>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopRectCalculator, std::vector<Rect>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopNormalizedLandmarkListVectorCalculator,
                                    std::vector<NormalizedLandmarkList>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopLandmarkListVectorCalculator,
                                    std::vector<LandmarkList>);
SLUICE_REGISTER_END_LOOP_CALCULATOR(EndLoopClassificationListCalculator,
                                    std::vector<ClassificationList>);

SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateDetectionVectorCalculator, Detection);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateNormalizedRectVectorCalculator,
                                              NormalizedRect);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateLandmarkListVectorCalculator,
                                              LandmarkList);
SLUICE_REGISTER_CONCATENATE_VECTOR_CALCULATOR(ConcatenateClassificationListVectorCalculator,
                                              ClassificationList);

SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitDetectionVectorCalculator, Detection);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitNormalizedRectVectorCalculator, NormalizedRect);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitLandmarkListVectorCalculator, LandmarkList);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitNormalizedLandmarkListVectorCalculator,
                                        NormalizedLandmarkList);
SLUICE_REGISTER_SPLIT_VECTOR_CALCULATOR(SplitClassificationListVectorCalculator,
                                        ClassificationList);

namespace {

Tensor CopyTensor(const Tensor& t) {
  Tensor copy(t.element_type(), t.shape(), t.quantization_parameters());
  auto src = t.GetCpuReadView();
  auto dst = copy.GetCpuWriteView();
  if (t.bytes() > 0) std::memcpy(dst.data(), src.data(), t.bytes());
  return copy;
}

}  // namespace

// SplitVectorCalculator for std::vector<Tensor>: each output gets copies of
// its range's tensors (MediaPipe moves them out of a uniquely owned packet).
class SplitTensorVectorCalculator : public SplitVectorCalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    OutputKind kind;
    absl::Status s = CheckContract(cc, &kind);
    if (!s.ok()) return s;
    cc->Inputs().Index(0).Set<std::vector<Tensor>>();
    for (int i = 0; i < cc->Outputs().NumEntries(); ++i) {
      if (kind == OutputKind::kElement) {
        cc->Outputs().Index(i).Set<Tensor>();
      } else {
        cc->Outputs().Index(i).Set<std::vector<Tensor>>();
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) return absl::OkStatus();
    const auto& in = cc->Inputs().Index(0).Get<std::vector<Tensor>>();
    absl::Status s = CheckInputSize(in.size());
    if (!s.ok()) return s;
    s = SyncToCpu(in);  // the copies read CPU views
    if (!s.ok()) return s;
    const Timestamp ts = cc->InputTimestamp();
    if (combine_outputs_) {
      auto out = std::make_unique<std::vector<Tensor>>();
      for (const auto& [b, e] : ranges_) {
        for (int i = b; i < e; ++i) out->push_back(CopyTensor(in[i]));
      }
      cc->Outputs().Index(0).Add(out.release(), ts);
      return absl::OkStatus();
    }
    for (size_t r = 0; r < ranges_.size(); ++r) {
      const auto [b, e] = ranges_[r];
      if (element_only_) {
        cc->Outputs().Index(static_cast<int>(r)).Add(new Tensor(CopyTensor(in[b])), ts);
        continue;
      }
      auto out = std::make_unique<std::vector<Tensor>>();
      for (int i = b; i < e; ++i) out->push_back(CopyTensor(in[i]));
      cc->Outputs().Index(static_cast<int>(r)).Add(out.release(), ts);
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(SplitTensorVectorCalculator);

// Splits the landmarks of one landmark list by index ranges (same options as
// SplitVectorCalculator); element_only outputs single landmarks.
template <typename ListT, typename ItemT>
class SplitLandmarksCalculator : public SplitVectorCalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    OutputKind kind;
    absl::Status s = CheckContract(cc, &kind);
    if (!s.ok()) return s;
    cc->Inputs().Index(0).template Set<ListT>();
    for (int i = 0; i < cc->Outputs().NumEntries(); ++i) {
      if (kind == OutputKind::kElement) {
        cc->Outputs().Index(i).template Set<ItemT>();
      } else {
        cc->Outputs().Index(i).template Set<ListT>();
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) return absl::OkStatus();
    const auto& in = cc->Inputs().Index(0).template Get<ListT>();
    absl::Status s = CheckInputSize(in.landmark_size());
    if (!s.ok()) return s;
    const Timestamp ts = cc->InputTimestamp();
    if (combine_outputs_) {
      auto out = std::make_unique<ListT>();
      for (const auto& [b, e] : ranges_) {
        for (int i = b; i < e; ++i) *out->add_landmark() = in.landmark(i);
      }
      cc->Outputs().Index(0).Add(out.release(), ts);
      return absl::OkStatus();
    }
    for (size_t r = 0; r < ranges_.size(); ++r) {
      const auto [b, e] = ranges_[r];
      if (element_only_) {
        cc->Outputs().Index(static_cast<int>(r)).Add(new ItemT(in.landmark(b)), ts);
        continue;
      }
      auto out = std::make_unique<ListT>();
      for (int i = b; i < e; ++i) *out->add_landmark() = in.landmark(i);
      cc->Outputs().Index(static_cast<int>(r)).Add(out.release(), ts);
    }
    return absl::OkStatus();
  }
};

using SplitNormalizedLandmarkListCalculator =
    SplitLandmarksCalculator<NormalizedLandmarkList, NormalizedLandmark>;
REGISTER_CALCULATOR(SplitNormalizedLandmarkListCalculator);
using SplitLandmarkListCalculator = SplitLandmarksCalculator<LandmarkList, mediapipe::Landmark>;
REGISTER_CALCULATOR(SplitLandmarkListCalculator);

}  // namespace sluice
