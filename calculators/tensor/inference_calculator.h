// InferenceCalculator: runs a .tflite model on Sluice's own inference engine.
//
// As in MediaPipe, `InferenceCalculator` is a selector subgraph that expands to
// one implementation node with the same name (so expanded names come out as
// MediaPipe's, e.g. `palmdetectioncpu__inferencecalculator__palmdetectioncpu__InferenceCalculator`):
//   InferenceCalculatorCpu  - the engine on the CPU (xnnpack backend when built,
//                             else reference); chosen for the tflite / xnnpack
//                             delegates, for no delegate, and for the gpu delegate
//                             while no GPU backend is available.
//
//   node {
//     calculator: "InferenceCalculator"
//     input_stream: "TENSORS:input_tensors"
//     output_stream: "TENSORS:output_tensors"
//     options {
//       [mediapipe.InferenceCalculatorOptions.ext] {
//         model_path: "mediapipe/modules/palm_detection/palm_detection_full.tflite"
//         delegate { xnnpack {} }
//       }
//     }
//   }
//
// TENSORS: std::vector<Tensor> (float32) in the model's input order; the
// output carries the model's outputs in order. Optional input side packet
// MODEL (std::shared_ptr<const inference::Model>) replaces model_path, so one
// loaded model can serve several nodes (TfLiteModelCalculator makes one from a
// file's contents); models loaded from model_path are also shared process-wide
// through a cache keyed by the resolved path. Optional input side packet
// OP_RESOLVER (TfLiteOpResolver, from TfLiteCustomOpResolverCalculator) is
// accepted and ignored: the engine implements MediaPipe's custom ops itself.
#ifndef SLUICE_CALCULATORS_TENSOR_INFERENCE_CALCULATOR_H_
#define SLUICE_CALCULATORS_TENSOR_INFERENCE_CALCULATOR_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "inference/model.h"
#include "util/resource_util.h"

namespace sluice {

// ResolveModelPath (model_path -> file) lives in util/resource_util.h, the one
// resolver shared with LocalFileContentsCalculator and label maps.

// Loads (or returns the already loaded) model at a resolved path.
absl::StatusOr<std::shared_ptr<const inference::Model>> LoadSharedModel(const std::string& path);

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_INFERENCE_CALCULATOR_H_
