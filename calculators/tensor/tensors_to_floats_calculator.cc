// TensorsToFloatsCalculator: reads the values of the first input tensor as
// floats, optionally through a sigmoid.
//
//   node {
//     calculator: "TensorsToFloatsCalculator"
//     input_stream: "TENSORS:hand_flag_tensor"   # std::vector<Tensor>, float32
//     output_stream: "FLOAT:hand_presence_score" # float; the tensor must hold 1 value
//     output_stream: "FLOATS:all_values"         # std::vector<float> (optional)
//   }
#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_floats_calculator.pb.h"
#include "formats/tensor.h"
#include "util/status_macros.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kFloatTag[] = "FLOAT";
constexpr char kFloatsTag[] = "FLOATS";

using Options = mediapipe::TensorsToFloatsCalculatorOptions;

}  // namespace

class TensorsToFloatsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kTensorsTag) ||
        (!cc->Outputs().HasTag(kFloatTag) && !cc->Outputs().HasTag(kFloatsTag))) {
      return absl::InvalidArgumentError(
          "TensorsToFloatsCalculator: needs a TENSORS input and a FLOAT or FLOATS output");
    }
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->Outputs().HasTag(kFloatTag)) cc->Outputs().Tag(kFloatTag).Set<float>();
    if (cc->Outputs().HasTag(kFloatsTag)) cc->Outputs().Tag(kFloatsTag).Set<std::vector<float>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(0);
    sigmoid_ = cc->Options<Options>().activation() == Options::SIGMOID;
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors = cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    RETURN_IF_ERROR(SyncToCpu(tensors));
    if (tensors.empty() || tensors[0].element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(
          "TensorsToFloatsCalculator: needs at least one float32 tensor");
    }
    const int n = tensors[0].shape().num_elements();
    auto view = tensors[0].GetCpuReadView();
    const float* raw = view.buffer<float>();
    auto values = std::make_unique<std::vector<float>>(raw, raw + n);
    if (sigmoid_) {
      for (float& v : *values) v = 1.0f / (1.0f + std::exp(-v));
    }
    if (cc->Outputs().HasTag(kFloatTag)) {
      if (n != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorsToFloatsCalculator: FLOAT needs a tensor of 1 value, got ", n));
      }
      cc->Outputs().Tag(kFloatTag).AddPacket(MakePacket<float>((*values)[0]).At(cc->InputTimestamp()));
    }
    if (cc->Outputs().HasTag(kFloatsTag)) {
      cc->Outputs().Tag(kFloatsTag).Add(values.release(), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  bool sigmoid_ = false;
};
REGISTER_CALCULATOR(TensorsToFloatsCalculator);

}  // namespace sluice
