// Differential op harness: op x option set x shape cases (from the model
// inventory), random inputs and weights, run through any backend and compared
// with the reference kernels under a stated tolerance. A backend is just a
// parameter:
//
//   for (const OpCase& c : StandardOpCases()) {
//     auto r = CompareWithReference(c, *FindBackend("xnnpack"), Tolerance{});
//     EXPECT_TRUE(r.ok() && r->passed) << c.name << ": " << r->detail;
//   }
//
// Perf mode: TimeOpCase() runs a case repeatedly on one backend.
#ifndef SLUICE_INFERENCE_TESTING_OP_HARNESS_H_
#define SLUICE_INFERENCE_TESTING_OP_HARNESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "inference/backend.h"
#include "inference/ir.h"

namespace sluice::inference::testing {

struct OpCase {
  std::string name;  // e.g. "CONV_2D k3x3 s2 SAME RELU6 [1,17,17,8]->16"
  ir::Graph graph;   // one op (or a few), inputs fed random data
  float input_lo = -1.0f, input_hi = 1.0f;
};

// |got - want| <= abs + rel * |want| for every element.
struct Tolerance {
  float abs = 1e-4f;
  float rel = 1e-4f;
};

struct CompareResult {
  bool passed = false;
  double max_abs_error = 0.0;
  int64_t worst_index = -1;
  std::string detail;  // which output/element failed, values
};

// The cases every backend must pass: each op of the inventory with each of
// its option sets, on small odd shapes that exercise padding edges.
std::vector<OpCase> StandardOpCases();

// Fills inputs with uniform random values (fixed seed), runs `graph` on
// reference and on `backend`, compares all outputs.
absl::StatusOr<CompareResult> CompareWithReference(const OpCase& op_case, const Backend& backend,
                                                   const Tolerance& tolerance, uint32_t seed = 1);

// Median milliseconds of `runs` invocations of the case on `backend`.
absl::StatusOr<double> TimeOpCase(const OpCase& op_case, const Backend& backend, int threads,
                                  int runs);

// Uniform random floats in [lo, hi) from a fixed-seed generator.
std::vector<float> RandomFloats(size_t n, float lo, float hi, uint32_t seed);

}  // namespace sluice::inference::testing

#endif  // SLUICE_INFERENCE_TESTING_OP_HARNESS_H_
