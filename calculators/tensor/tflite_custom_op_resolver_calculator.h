// TfLiteCustomOpResolverCalculator: outputs the OP_RESOLVER side packet that
// MediaPipe graphs hand to InferenceCalculator.
//
// Sluice's engine implements MediaPipe's custom ops (e.g. the palm detector's
// ones) itself, so there is nothing to resolve: the packet is a marker saying
// which flavour was asked for. InferenceCalculatorCpu accepts and ignores it.
//
//   node {
//     calculator: "TfLiteCustomOpResolverCalculator"
//     output_side_packet: "OP_RESOLVER:op_resolver"
//     options { [mediapipe.TfLiteCustomOpResolverCalculatorOptions.ext] { use_gpu: false } }
//   }
#ifndef SLUICE_CALCULATORS_TENSOR_TFLITE_CUSTOM_OP_RESOLVER_CALCULATOR_H_
#define SLUICE_CALCULATORS_TENSOR_TFLITE_CUSTOM_OP_RESOLVER_CALCULATOR_H_

namespace sluice {

// The payload of OP_RESOLVER side packets.
struct TfLiteOpResolver {
  bool use_gpu = false;
};

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_TFLITE_CUSTOM_OP_RESOLVER_CALCULATOR_H_
