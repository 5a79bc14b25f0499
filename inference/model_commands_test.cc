// `sluice model-info` / `bench-model` through CLI11, as the sluice binary runs them.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/model_stats.h"
#include "inference/testing/test_inputs.h"
#include "tools/commands.h"

namespace sluice::cli {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

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
  EXPECT_THAT(out, HasSubstr("FLOPs: 63714176 (2 x MACs + 2192256 element operations)"));
  EXPECT_THAT(out, HasSubstr("params: 101390 float weights"));
  EXPECT_THAT(out, HasSubstr("operators: 164 in the file"));
  EXPECT_THAT(out, ContainsRegex("CONV_2D +21  reference 21"));
}

TEST(ModelCommandsTest, ModelInfoOpsListsEveryOpWithItsShapes) {
  const std::string out = RunCli({"model-info", Model("face_detection_short_range.tflite"),
                                  "--backend", "reference", "--ops"});
  EXPECT_THAT(out, ContainsRegex("\n +0 CONV_2D +reference +t0\\[1,128,128,3\\] -> "
                                 "t[0-9]+\\[1,64,64,24\\]\n"));
  // One line per op of the loaded graph: the last index is ops.size() - 1.
  EXPECT_THAT(out, HasSubstr("73 after load-time folding"));
  EXPECT_THAT(out, ContainsRegex("\n +72 CONCATENATION +reference "));
  EXPECT_THAT(out, Not(ContainsRegex("\n +73 [A-Z_0-9]+ +reference ")));
  EXPECT_THAT(RunCli({"model-info", Model("face_detection_short_range.tflite"), "--backend",
                      "reference"}),
              Not(HasSubstr("inputs -> output")));
}

TEST(ModelCommandsTest, PerOpNamesTheOpsOfFusedSteps) {
  const std::string out = RunCli({"bench-model", Model("face_detection_short_range.tflite"),
                                  "--backend", "xnnpack", "--runs", "2", "--warmup", "0",
                                  "--per-op"});
  // A fused step's line ("OP TYPE+N ...") ends with its N + 1 ops, OP first.
  std::istringstream lines(out);
  int fused_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    int op = -1, more = -1;
    char type[64];
    if (std::sscanf(line.c_str(), " %d %63[A-Z_0-9]+%d", &op, type, &more) != 3) continue;
    const size_t at = line.find("  ops ");
    ASSERT_NE(at, std::string::npos) << line;
    std::istringstream list(line.substr(at + 6));
    std::vector<int> ops;
    for (std::string v; std::getline(list, v, ',');) ops.push_back(std::stoi(v));
    ASSERT_EQ(ops.size(), static_cast<size_t>(more) + 1) << line;
    EXPECT_EQ(ops.front(), op) << line;
    ++fused_lines;
  }
  EXPECT_GT(fused_lines, 0);
  // The header sums the steps' minima and their means (a run's typical
  // time), which cannot be below the minima.
  const size_t head = out.find("per-op (min over ");
  ASSERT_NE(head, std::string::npos) << out;
  int runs = 0;
  double min_sum = -1, mean_sum = -1;
  const char* format = "per-op (min over %d runs; sum %lf ms, of the means %lf ms";
  ASSERT_EQ(std::sscanf(out.c_str() + head, format, &runs, &min_sum, &mean_sum), 3)
      << out.substr(head, 120);
  EXPECT_GT(min_sum, 0);
  EXPECT_GE(mean_sum, min_sum);
}

// The per-op MFLOP column counts 2 x MACs + element operations of the loaded
// ops: its "by type" rows sum to that however the steps are fused (the selfie
// decoders fuse up to six ops a step), and the total line says so next to
// model-info's figure (the file's ops: RELUs fused at load count there).
TEST(ModelCommandsTest, PerOpFlopsSumToTheLoadedOpsFlops) {
  struct Case {
    const char* model;
    double file_mflop;  // model-info's "FLOPs:" (MODELS_INVENTORY.md), in M
  };
  for (const Case& c : {Case{"face_detection_short_range.tflite", 63.714176},
                        Case{"selfie_segmentation_landscape.tflite", 71.900256}}) {
    auto model = inference::Model::Load(Model(c.model));
    ASSERT_TRUE(model.ok()) << model.status();
    const inference::ir::Graph& g = model->graph();
    const double loaded_mflop =
        (2.0 * static_cast<double>(inference::ComputeStats(g).macs) +
         static_cast<double>(inference::ElementOps(g))) / 1e6;
    const std::string out = RunCli({"bench-model", Model(c.model), "--backend", "xnnpack",
                                    "--runs", "1", "--warmup", "0", "--per-op"});
    const size_t at = out.find("\nby type:\n");
    ASSERT_NE(at, std::string::npos) << c.model << "\n" << out;
    std::istringstream lines(out.substr(at + 10));
    std::string header;
    std::getline(lines, header);
    double sum = 0, total = -1, file = -1;
    int rows = 0;
    for (std::string line; std::getline(lines, line);) {
      if (std::sscanf(line.c_str(), "total %lf (model-info's FLOPs: %lf M", &total, &file) == 2) {
        continue;
      }
      // "TYPE [KxK] [+fused]  COUNT  MFLOP  ms  %  GFLOP/s": MFLOP is the
      // fourth number from the end.
      std::istringstream fields(line);
      std::vector<std::string> f;
      for (std::string v; fields >> v;) f.push_back(v);
      if (f.size() < 6 || f[0] == "runs:" || f[0] == "bench-model") continue;
      sum += std::stod(f[f.size() - 4]);
      ++rows;
    }
    ASSERT_GT(rows, 0) << c.model;
    // Each row is printed to 0.01 MFLOP.
    EXPECT_NEAR(sum, loaded_mflop, 0.005 * rows + 1e-9) << c.model << "\n" << out;
    EXPECT_NEAR(total, loaded_mflop, 0.005) << c.model;
    EXPECT_NEAR(file, c.file_mflop, 0.005) << c.model;
    // Both models have RELUs that the load passes fuse.
    EXPECT_LT(loaded_mflop, c.file_mflop) << c.model;
  }
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
