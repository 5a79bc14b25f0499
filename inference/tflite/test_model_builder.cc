#include "inference/tflite/test_model_builder.h"

#include <cstring>

#include "flatbuffers/flatbuffers.h"
#include "inference/tflite/tflite_schema_generated.h"

namespace sluice::inference::tflite::testing {

namespace fb = ::sluice::tflite;

std::vector<uint8_t> FloatBytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string BuildModel(const std::vector<TestTensor>& tensors, const std::vector<TestOp>& ops,
                       const std::vector<int32_t>& inputs, const std::vector<int32_t>& outputs) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  buffers.push_back(fb::CreateBuffer(b));  // buffer 0: the empty sentinel
  std::vector<flatbuffers::Offset<fb::Tensor>> ts;
  for (const TestTensor& t : tensors) {
    uint32_t buffer = 0;
    if (!t.data.empty()) {
      buffer = static_cast<uint32_t>(buffers.size());
      buffers.push_back(fb::CreateBuffer(b, b.CreateVector(t.data)));
    }
    ts.push_back(fb::CreateTensor(b, b.CreateVector(t.shape), static_cast<fb::TensorType>(t.type),
                                  buffer, b.CreateString(t.name)));
  }
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<fb::Operator>> fops;
  for (const TestOp& op : ops) {
    const uint32_t index = static_cast<uint32_t>(codes.size());
    codes.push_back(fb::CreateOperatorCode(
        b, op.deprecated_builtin_code, op.custom_code.empty() ? 0 : b.CreateString(op.custom_code),
        1, op.builtin_code));
    fops.push_back(fb::CreateOperator(
        b, index, b.CreateVector(op.inputs), b.CreateVector(op.outputs), fb::BuiltinOptions::NONE,
        0, op.custom_options.empty() ? 0 : b.CreateVector(op.custom_options)));
  }
  auto sg =
      fb::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(inputs), b.CreateVector(outputs),
                         b.CreateVector(fops), b.CreateString("main"));
  std::vector<flatbuffers::Offset<fb::SubGraph>> sgs = {sg};
  auto model = fb::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(sgs),
                               b.CreateString("test"), b.CreateVector(buffers));
  fb::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace sluice::inference::tflite::testing
