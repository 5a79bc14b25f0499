// TensorsToLandmarksCalculator: reads landmarks (x, y[, z[, visibility[,
// presence]]] per landmark) from the first input tensor.
//
//   node {
//     calculator: "TensorsToLandmarksCalculator"
//     input_stream: "TENSORS:landmark_tensors"     # std::vector<Tensor>, float32
//     output_stream: "NORM_LANDMARKS:landmarks"    # NormalizedLandmarkList
//     output_stream: "LANDMARKS:raw_landmarks"     # LandmarkList (optional)
//     options: { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
//       num_landmarks: 21 input_image_width: 224 input_image_height: 224
//       normalize_z: 0.4
//     } }
//   }
//
// LANDMARKS carries the tensor values (flipped if asked); NORM_LANDMARKS
// divides x, y by the model input size and z by width * normalize_z.
// FLIP_HORIZONTALLY / FLIP_VERTICALLY (bool) may be input streams or side
// packets; they override the options.
#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_landmarks_calculator.pb.h"
#include "formats/landmark.pb.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kFlipHorizontallyTag[] = "FLIP_HORIZONTALLY";
constexpr char kFlipVerticallyTag[] = "FLIP_VERTICALLY";

using mediapipe::LandmarkList;
using mediapipe::NormalizedLandmarkList;
using Options = mediapipe::TensorsToLandmarksCalculatorOptions;

absl::Status Error(const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrCat("TensorsToLandmarksCalculator: ", msg));
}

float Activate(Options::Activation a, float v) {
  return a == Options::SIGMOID ? 1.0f / (1.0f + std::exp(-v)) : v;
}

// A bool from a stream at this timestamp or a side packet, else `fallback`.
bool FlagOr(CalculatorContext* cc, const char* tag, bool fallback) {
  if (cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty()) {
    return cc->Inputs().Tag(tag).Get<bool>();
  }
  if (cc->InputSidePackets().HasTag(tag) && !cc->InputSidePackets().Tag(tag).IsEmpty()) {
    return cc->InputSidePackets().Tag(tag).Get<bool>();
  }
  return fallback;
}

}  // namespace

class TensorsToLandmarksCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kTensorsTag)) return Error("needs a TENSORS input");
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->Outputs().HasTag(kLandmarksTag)) cc->Outputs().Tag(kLandmarksTag).Set<LandmarkList>();
    if (cc->Outputs().HasTag(kNormLandmarksTag)) {
      cc->Outputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    }
    for (const char* tag : {kFlipHorizontallyTag, kFlipVerticallyTag}) {
      if (cc->Inputs().HasTag(tag) && cc->InputSidePackets().HasTag(tag)) {
        return Error(absl::StrCat(tag, " may be a stream or a side packet, not both"));
      }
      if (cc->Inputs().HasTag(tag)) cc->Inputs().Tag(tag).Set<bool>();
      if (cc->InputSidePackets().HasTag(tag)) {
        cc->InputSidePackets().Tag(tag).Set<bool>().Optional();
      }
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    o_ = cc->Options<Options>();
    if (!o_.has_num_landmarks() || o_.num_landmarks() <= 0) {
      return Error("num_landmarks must be set and positive");
    }
    const bool has_size = o_.input_image_width() > 0 && o_.input_image_height() > 0;
    if (cc->Outputs().HasTag(kNormLandmarksTag) && !has_size) {
      return Error("NORM_LANDMARKS needs input_image_width and input_image_height");
    }
    const bool may_flip = o_.flip_horizontally() || o_.flip_vertically() ||
                          cc->Inputs().HasTag(kFlipHorizontallyTag) ||
                          cc->Inputs().HasTag(kFlipVerticallyTag) ||
                          cc->InputSidePackets().HasTag(kFlipHorizontallyTag) ||
                          cc->InputSidePackets().HasTag(kFlipVerticallyTag);
    if (may_flip && !has_size) return Error("flipping needs input_image_width and _height");
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    if (tensors.empty()) return Error("empty tensor vector");
    const Tensor& t = tensors[0];
    if (t.element_type() != Tensor::ElementType::kFloat32) return Error("tensor must be float32");
    const int values = t.shape().num_elements();
    const int dims = values / o_.num_landmarks();
    if (dims <= 0) {
      return Error(absl::StrCat("tensor has ", values, " values for ", o_.num_landmarks(),
                                " landmarks"));
    }
    const bool flip_h = FlagOr(cc, kFlipHorizontallyTag, o_.flip_horizontally());
    const bool flip_v = FlagOr(cc, kFlipVerticallyTag, o_.flip_vertically());
    auto view = t.GetCpuReadView();
    const float* raw = view.buffer<float>();
    auto landmarks = std::make_unique<LandmarkList>();
    for (int i = 0; i < o_.num_landmarks(); ++i) {
      const float* v = raw + i * dims;
      auto* lm = landmarks->add_landmark();
      lm->set_x(flip_h ? o_.input_image_width() - v[0] : v[0]);
      if (dims > 1) lm->set_y(flip_v ? o_.input_image_height() - v[1] : v[1]);
      if (dims > 2) lm->set_z(v[2]);
      if (dims > 3) lm->set_visibility(Activate(o_.visibility_activation(), v[3]));
      if (dims > 4) lm->set_presence(Activate(o_.presence_activation(), v[4]));
    }
    if (cc->Outputs().HasTag(kNormLandmarksTag)) {
      auto norm = std::make_unique<NormalizedLandmarkList>();
      for (const auto& lm : landmarks->landmark()) {
        auto* n = norm->add_landmark();
        n->set_x(lm.x() / o_.input_image_width());
        n->set_y(lm.y() / o_.input_image_height());
        n->set_z(lm.z() / o_.input_image_width() / o_.normalize_z());
        if (lm.has_visibility()) n->set_visibility(lm.visibility());
        if (lm.has_presence()) n->set_presence(lm.presence());
      }
      cc->Outputs().Tag(kNormLandmarksTag).Add(norm.release(), cc->InputTimestamp());
    }
    if (cc->Outputs().HasTag(kLandmarksTag)) {
      cc->Outputs().Tag(kLandmarksTag).Add(landmarks.release(), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  Options o_;
};
REGISTER_CALCULATOR(TensorsToLandmarksCalculator);

}  // namespace sluice
