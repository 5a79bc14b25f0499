// ConstantSidePacketCalculator: outputs side packets PACKET:0..n-1 with the
// constant values of its options (one `packet` entry per output, in order).
//
//   node {
//     calculator: "ConstantSidePacketCalculator"
//     output_side_packet: "PACKET:0:num_hands"
//     output_side_packet: "PACKET:1:model_name"
//     node_options: {
//       [type.googleapis.com/mediapipe.ConstantSidePacketCalculatorOptions] {
//         packet { int_value: 2 }
//         packet { string_value: "lite" }
//       }
//     }
//   }
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "calculators/core/constant_side_packet_calculator.pb.h"
#include "formats/classification.pb.h"
#include "formats/landmark.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"

namespace sluice {
namespace {

constexpr char kPacketTag[] = "PACKET";

using Options = mediapipe::ConstantSidePacketCalculatorOptions;
using Value = Options::ConstantSidePacket;

absl::Status UnsetValueError(int index) {
  return absl::InvalidArgumentError(
      "ConstantSidePacketCalculator: options packet " + std::to_string(index) +
      " sets none of the supported values (int, uint64, int64, float, double, bool, string, "
      "string_vector, classification_list, landmark_list)");
}

absl::Status DeclareType(const Value& v, int index, PacketType* type) {
  switch (v.value_case()) {
    case Value::kIntValue: type->Set<int>(); break;
    case Value::kUint64Value: type->Set<uint64_t>(); break;
    case Value::kInt64Value: type->Set<int64_t>(); break;
    case Value::kFloatValue: type->Set<float>(); break;
    case Value::kDoubleValue: type->Set<double>(); break;
    case Value::kBoolValue: type->Set<bool>(); break;
    case Value::kStringValue: type->Set<std::string>(); break;
    case Value::kStringVectorValue: type->Set<std::vector<std::string>>(); break;
    case Value::kClassificationListValue: type->Set<mediapipe::ClassificationList>(); break;
    case Value::kLandmarkListValue: type->Set<mediapipe::LandmarkList>(); break;
    default: return UnsetValueError(index);
  }
  return absl::OkStatus();
}

Packet MakeValuePacket(const Value& v) {
  switch (v.value_case()) {
    case Value::kIntValue: return MakePacket<int>(v.int_value());
    case Value::kUint64Value: return MakePacket<uint64_t>(v.uint64_value());
    case Value::kInt64Value: return MakePacket<int64_t>(v.int64_value());
    case Value::kFloatValue: return MakePacket<float>(v.float_value());
    case Value::kDoubleValue: return MakePacket<double>(v.double_value());
    case Value::kBoolValue: return MakePacket<bool>(v.bool_value());
    case Value::kStringValue: return MakePacket<std::string>(v.string_value());
    case Value::kStringVectorValue: {
      const auto& s = v.string_vector_value().string_value();
      return MakePacket<std::vector<std::string>>(s.begin(), s.end());
    }
    case Value::kClassificationListValue:
      return MakePacket<mediapipe::ClassificationList>(v.classification_list_value());
    case Value::kLandmarkListValue:
      return MakePacket<mediapipe::LandmarkList>(v.landmark_list_value());
    default: return Packet();
  }
}

}  // namespace

class ConstantSidePacketCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& options = cc->Options<Options>();
    const int n = cc->OutputSidePackets().NumEntries(kPacketTag);
    if (n != options.packet_size()) {
      return absl::InvalidArgumentError(
          "ConstantSidePacketCalculator: " + std::to_string(n) +
          " PACKET output side packets but " + std::to_string(options.packet_size()) +
          " packets in the options; they must match");
    }
    for (int i = 0; i < n; ++i) {
      absl::Status s =
          DeclareType(options.packet(i), i, &cc->OutputSidePackets().Get(kPacketTag, i));
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<Options>();
    for (int i = 0; i < cc->OutputSidePackets().NumEntries(kPacketTag); ++i) {
      Packet p = MakeValuePacket(options.packet(i));
      if (p.IsEmpty()) return UnsetValueError(i);
      cc->OutputSidePackets().Get(kPacketTag, i).Set(p);
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ConstantSidePacketCalculator);

}  // namespace sluice
