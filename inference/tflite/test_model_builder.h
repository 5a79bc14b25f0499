// Writes small .tflite flatbuffers for reader tests (valid and deliberately
// unsupported models), with the same generated schema the reader uses.
#ifndef SLUICE_INFERENCE_TFLITE_TEST_MODEL_BUILDER_H_
#define SLUICE_INFERENCE_TFLITE_TEST_MODEL_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::inference::tflite::testing {

struct TestTensor {
  std::string name;
  std::vector<int32_t> shape;
  int8_t type = 0;            // TensorType: 0 FLOAT32, 1 FLOAT16, 2 INT32
  std::vector<uint8_t> data;  // constant contents; empty = activation
};

struct TestOp {
  int32_t builtin_code = 0;  // written to builtin_code
  int8_t deprecated_builtin_code = 0;
  std::string custom_code;  // for builtin_code 32 (CUSTOM)
  std::vector<int32_t> inputs, outputs;
  std::vector<uint8_t> custom_options;
};

std::string BuildModel(const std::vector<TestTensor>& tensors, const std::vector<TestOp>& ops,
                       const std::vector<int32_t>& inputs, const std::vector<int32_t>& outputs);

std::vector<uint8_t> FloatBytes(const std::vector<float>& v);

}  // namespace sluice::inference::tflite::testing

#endif  // SLUICE_INFERENCE_TFLITE_TEST_MODEL_BUILDER_H_
