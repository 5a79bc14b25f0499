// `sluice model-info` / `bench-model` through CLI11, as the sluice binary runs them.
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/testing/test_inputs.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string RunCli(std::vector<std::string> args) {
  CLI::App app("sluice");
  AddModelCommands(app);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  ::testing::internal::CaptureStdout();
  try {
    app.parse(rev);  // CLI11 takes the arguments reversed
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

std::string Model(const std::string& name) {
  return inference::testing::SharedDir() + "/models/" + name;
}

TEST(ModelCommandsTest, ModelInfoReportsIoMacsParamsAndPlacement) {
  const std::string out =
      RunCli({"model-info", Model("face_detection_short_range.tflite"), "--backend", "reference"});
  EXPECT_THAT(out, HasSubstr("input:  input [1,128,128,3] float32"));
  // Figures of MODELS_INVENTORY.md for this model.
  EXPECT_THAT(out, HasSubstr("MACs: 30760960"));
  EXPECT_THAT(out, HasSubstr("params: 101390 float weights"));
  EXPECT_THAT(out, HasSubstr("operators: 164 in the file"));
  EXPECT_THAT(out, ContainsRegex("CONV_2D +21  reference 21"));
}

TEST(ModelCommandsTest, BenchModelLastLineHasTheFixedFormat) {
  std::string out = RunCli({"bench-model", Model("face_detection_short_range.tflite"), "--backend",
                            "reference", "--runs", "3", "--warmup", "1"});
  while (!out.empty() && out.back() == '\n') out.pop_back();
  const std::string last = out.substr(out.find_last_of('\n') + 1);
  EXPECT_THAT(last, MatchesRegex("bench-model face_detection_short_range\\.tflite reference 1 "
                                 "median_ms=[0-9]+\\.[0-9]+ p90_ms=[0-9]+\\.[0-9]+"));
}

TEST(ModelCommandsTest, BadModelOrBackendExitsWithAnError) {
  EXPECT_THROW(RunCli({"model-info", "/nonexistent.tflite"}), CLI::RuntimeError);
  EXPECT_THROW(
      RunCli({"bench-model", Model("face_detection_short_range.tflite"), "--backend", "tpu"}),
      CLI::RuntimeError);
}

}  // namespace
}  // namespace sluice::cli
