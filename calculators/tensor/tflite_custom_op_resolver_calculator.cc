#include "calculators/tensor/tflite_custom_op_resolver_calculator.h"

#include "absl/status/status.h"
#include "calculators/tensor/tflite_custom_op_resolver_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {

class TfLiteCustomOpResolverCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->OutputSidePackets().HasTag("OP_RESOLVER")) {
      return absl::InvalidArgumentError(
          "TfLiteCustomOpResolverCalculator needs an OP_RESOLVER output side packet");
    }
    cc->OutputSidePackets().Tag("OP_RESOLVER").Set<TfLiteOpResolver>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<mediapipe::TfLiteCustomOpResolverCalculatorOptions>();
    cc->OutputSidePackets().Tag("OP_RESOLVER").Set(
        MakePacket<TfLiteOpResolver>(TfLiteOpResolver{options.use_gpu()}));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(TfLiteCustomOpResolverCalculator);

}  // namespace sluice
