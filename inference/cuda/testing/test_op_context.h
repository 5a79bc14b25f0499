// A CudaOpContext for op-level tests of the cuda backend's kernels, without
// the backend: one device allocation per tensor of a graph (constants
// uploaded at creation), one per UploadConstant / Scratch, all on one stream
// of its own and freed with the context. Works on the fake runtime and on a
// device alike.
#ifndef SLUICE_INFERENCE_CUDA_TESTING_TEST_OP_CONTEXT_H_
#define SLUICE_INFERENCE_CUDA_TESTING_TEST_OP_CONTEXT_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "inference/cuda/cuda_ops.h"
#include "inference/ir.h"

namespace sluice::inference::cuda::testing {

class TestOpContext : public CudaOpContext {
 public:
  // Allocates every tensor of `graph` (at least 4 bytes each) and uploads the
  // constants; waits for the uploads.
  static absl::StatusOr<std::unique_ptr<TestOpContext>> Create(const ir::Graph& graph);
  ~TestOpContext() override;
  TestOpContext(const TestOpContext&) = delete;
  TestOpContext& operator=(const TestOpContext&) = delete;

  void* Device(int t) const override;
  absl::StatusOr<void*> UploadConstant(const void* host, size_t bytes) override;
  absl::StatusOr<void*> Scratch(size_t bytes) override;

  // The context's stream: kernels under test run on it.
  cudaStream_t stream() const { return stream_; }
  // Host -> tensor t and tensor t -> host (bytes = the tensor's size), queued
  // on stream() and waited for.
  absl::Status Write(int t, const void* host);
  absl::Status Read(int t, void* host);
  // Waits for everything queued on stream().
  absl::Status Sync();

  int num_uploaded_constants() const { return num_uploaded_constants_; }

 private:
  TestOpContext() = default;
  absl::StatusOr<void*> Allocate(size_t bytes);

  const ir::Graph* graph_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<void*> tensors_;    // per tensor of the graph
  std::vector<void*> allocated_;  // everything to free
  int num_uploaded_constants_ = 0;
};

// Differential check of a small graph whose ops are all in part B's families
// (conv, custom): runs it op by op on the reference kernels (host) and through
// Prepare{Conv,Custom}FamilyOp + their launchers on a TestOpContext, then
// compares every graph output: |got - want| <= abs + rel * |want|.
// Graph inputs get `feeds[i]` when given (same order as graph.inputs, empty =
// random in [lo, hi) from `seed`). `rounds` > 1 re-runs the same prepared
// kernels on new random inputs (a prepared launcher must not depend on the
// data it first saw).
struct DiffOptions {
  float abs = 1e-4f, rel = 1e-4f;
  float lo = -1.0f, hi = 1.0f;
  uint32_t seed = 1;
  int rounds = 2;
  std::vector<std::vector<float>> feeds;
};
struct DiffResult {
  bool passed = true;
  double max_abs_error = 0.0;
  std::string detail;  // first failing element
};
absl::StatusOr<DiffResult> CompareFamilyOpsWithReference(const ir::Graph& graph,
                                                         const DiffOptions& options = {});

}  // namespace sluice::inference::cuda::testing

#endif  // SLUICE_INFERENCE_CUDA_TESTING_TEST_OP_CONTEXT_H_
