// TfLiteModelCalculator: turns a .tflite file's contents into a loaded model.
//
//   node {
//     calculator: "TfLiteModelCalculator"
//     input_side_packet: "MODEL_BLOB:model_blob"   # std::string (file contents)
//     output_side_packet: "MODEL:model"            # or SHARED_MODEL
//   }
//
// MODEL and SHARED_MODEL both carry std::shared_ptr<const inference::Model>,
// exactly what InferenceCalculatorCpu takes on its MODEL side packet (MediaPipe
// distinguishes unique_ptr and shared_ptr FlatBufferModels; we need not).
// MODEL_FD / MODEL_SPAN are not supported.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "inference/model.h"

namespace sluice {
namespace {

constexpr char kModelBlobTag[] = "MODEL_BLOB";
constexpr char kModelTag[] = "MODEL";
constexpr char kSharedModelTag[] = "SHARED_MODEL";

using ModelPtr = std::shared_ptr<const inference::Model>;

}  // namespace

class TfLiteModelCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->InputSidePackets().HasTag(kModelBlobTag)) {
      return absl::InvalidArgumentError(
          "TfLiteModelCalculator needs a MODEL_BLOB input side packet (MODEL_FD and MODEL_SPAN "
          "are not supported)");
    }
    if (cc->OutputSidePackets().HasTag(kModelTag) ==
        cc->OutputSidePackets().HasTag(kSharedModelTag)) {
      return absl::InvalidArgumentError(
          "TfLiteModelCalculator needs exactly one of the output side packets MODEL and "
          "SHARED_MODEL");
    }
    cc->InputSidePackets().Tag(kModelBlobTag).Set<std::string>();
    const char* out = cc->OutputSidePackets().HasTag(kModelTag) ? kModelTag : kSharedModelTag;
    cc->OutputSidePackets().Tag(out).Set<ModelPtr>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const std::string& blob = cc->InputSidePackets().Tag(kModelBlobTag).Get<std::string>();
    auto model = inference::Model::LoadFromBuffer(blob, cc->NodeName());
    if (!model.ok()) {
      return absl::Status(model.status().code(),
                          absl::StrCat("node \"", cc->NodeName(),
                                       "\" (TfLiteModelCalculator): cannot load the MODEL_BLOB (",
                                       blob.size(), " bytes): ", model.status().message()));
    }
    const char* out = cc->OutputSidePackets().HasTag(kModelTag) ? kModelTag : kSharedModelTag;
    cc->OutputSidePackets().Tag(out).Set(
        MakePacket<ModelPtr>(std::make_shared<const inference::Model>(std::move(*model))));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(TfLiteModelCalculator);

}  // namespace sluice
