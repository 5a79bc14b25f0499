// Runs a hand-built graph on a backend with given float inputs (test helper).
#ifndef SLUICE_INFERENCE_TESTING_RUN_GRAPH_H_
#define SLUICE_INFERENCE_TESTING_RUN_GRAPH_H_

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "inference/backend.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::testing {

// Outputs of one run, as float vectors (int32 outputs are converted).
inline absl::StatusOr<std::vector<std::vector<float>>> RunGraph(
    const ir::Graph& graph, const std::vector<std::vector<float>>& inputs,
    const Backend* backend = nullptr) {
  std::unique_ptr<Backend> ref;
  if (backend == nullptr) {
    ref = reference::CreateReferenceBackend();
    backend = ref.get();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> m, backend->Compile(graph, BackendOptions{}));
  if (m->Inputs().size() != inputs.size()) return absl::InvalidArgumentError("wrong input count");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoTensor& in = m->Inputs()[i];
    if (static_cast<int64_t>(inputs[i].size()) != in.num_elements()) {
      return absl::InvalidArgumentError("wrong input size");
    }
    for (size_t k = 0; k < inputs[i].size(); ++k) {
      if (in.dtype == ir::DType::kInt32) {
        in.i32()[k] = static_cast<int32_t>(inputs[i][k]);
      } else {
        in.f32()[k] = inputs[i][k];
      }
    }
  }
  RETURN_IF_ERROR(m->Invoke());
  std::vector<std::vector<float>> outs;
  for (const IoTensor& out : m->Outputs()) {
    std::vector<float> v(out.num_elements());
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = out.dtype == ir::DType::kInt32 ? static_cast<float>(out.i32()[k]) : out.f32()[k];
    }
    outs.push_back(std::move(v));
  }
  return outs;
}

}  // namespace sluice::inference::testing

#endif  // SLUICE_INFERENCE_TESTING_RUN_GRAPH_H_
