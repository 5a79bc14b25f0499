// The shipped MediaPipe models every backend's model test runs, with the input
// value range each was trained with (MediaPipe's graphs: ImageToTensorCalculator
// output_tensor_float_range). One list, so a model added to the set reaches
// every backend's test.
#ifndef SLUICE_INFERENCE_TESTING_SHIPPED_MODELS_H_
#define SLUICE_INFERENCE_TESTING_SHIPPED_MODELS_H_

#include <cctype>
#include <string>
#include <vector>

namespace sluice::inference::testing {

struct ShippedModel {
  const char* file;  // under $SLUICE_SHARED_DIR/models
  float lo, hi;      // input value range
  // Relative tolerance of the xnnpack backend vs reference: 1e-4, except the
  // pose landmark models, whose outputs (segmentation logits, pose flag)
  // Google's own TFLite kernels (builtin vs XNNPACK) already put 1.5e-3
  // apart: twice that.
  double xnnpack_tolerance = 1e-4;
  // Re-batchable (passes.h Rebatch): the attention model's custom ops are
  // defined for batch 1 only.
  bool batchable = true;
};

inline constexpr ShippedModel kShippedModels[] = {
    {"palm_detection_lite.tflite", 0, 1},
    {"palm_detection_full.tflite", 0, 1},
    {"hand_landmark_lite.tflite", 0, 1},
    {"hand_landmark_full.tflite", 0, 1},
    {"pose_detection.tflite", -1, 1},
    {"pose_landmark_lite.tflite", 0, 1, 3e-3},
    {"pose_landmark_full.tflite", 0, 1, 3e-3},
    {"pose_landmark_heavy.tflite", 0, 1, 3e-3},
    {"face_detection_short_range.tflite", -1, 1},
    {"face_detection_full_range.tflite", -1, 1},
    {"face_detection_full_range_sparse.tflite", -1, 1},
    {"face_landmark.tflite", 0, 1},
    {"face_landmark_with_attention.tflite", 0, 1, 1e-4, /*batchable=*/false},
    {"selfie_segmentation.tflite", 0, 1},
    {"selfie_segmentation_landscape.tflite", 0, 1},
    {"iris_landmark.tflite", 0, 1},
    {"hand_recrop.tflite", 0, 1},
};

// The models Rebatch accepts.
inline std::vector<ShippedModel> BatchableShippedModels() {
  std::vector<ShippedModel> v;
  for (const ShippedModel& m : kShippedModels) {
    if (m.batchable) v.push_back(m);
  }
  return v;
}

// A gtest parameter name for `file`: up to its first '.', other characters
// that are not letters or digits as '_'.
inline std::string ShippedModelTestName(const char* file) {
  std::string n = file;
  n = n.substr(0, n.find('.'));
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace sluice::inference::testing

#endif  // SLUICE_INFERENCE_TESTING_SHIPPED_MODELS_H_
