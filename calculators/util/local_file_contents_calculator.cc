// LocalFileContentsCalculator: reads files named by input side packets.
//
//   node {
//     calculator: "LocalFileContentsCalculator"
//     input_side_packet: "FILE_PATH:model_path"       # std::string
//     output_side_packet: "CONTENTS:model_blob"       # std::string
//     options { [mediapipe.LocalFileContentsCalculatorOptions.ext] { text_mode: false } }
//   }
//
// Several files at once: FILE_PATH:0:a, FILE_PATH:1:b -> CONTENTS:0:.., CONTENTS:1:..
// Paths are resolved as MediaPipe resources (util/resource_util.h): as given,
// under $SLUICE_RESOURCE_DIR, models by file name in the model folders, then
// resources embedded in the binary.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "calculators/util/local_file_contents_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "util/resource_util.h"

namespace sluice {
namespace {

constexpr char kFilePathTag[] = "FILE_PATH";
constexpr char kContentsTag[] = "CONTENTS";

}  // namespace

class LocalFileContentsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int paths = cc->InputSidePackets().NumEntries(kFilePathTag);
    if (paths == 0 || paths != cc->OutputSidePackets().NumEntries(kContentsTag)) {
      return absl::InvalidArgumentError(
          "LocalFileContentsCalculator needs FILE_PATH input side packets and as many "
          "CONTENTS output side packets");
    }
    for (int i = 0; i < paths; ++i) {
      cc->InputSidePackets().Get(kFilePathTag, i).Set<std::string>();
      cc->OutputSidePackets().Get(kContentsTag, i).Set<std::string>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    for (int i = 0; i < cc->InputSidePackets().NumEntries(kFilePathTag); ++i) {
      const std::string& path = cc->InputSidePackets().Get(kFilePathTag, i).Get<std::string>();
      absl::StatusOr<std::string> contents = ReadResource(path);
      if (!contents.ok()) {
        return absl::Status(contents.status().code(),
                            absl::StrCat("node \"", cc->NodeName(), "\" (LocalFileContentsCalculator): ",
                                         contents.status().message()));
      }
      cc->OutputSidePackets().Get(kContentsTag, i).Set(
          MakePacket<std::string>(std::move(*contents)));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(LocalFileContentsCalculator);

}  // namespace sluice
