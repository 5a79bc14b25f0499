#include "inference/cuda/testing/test_op_context.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "inference/reference/reference_kernels.h"
#include "util/status_macros.h"

namespace sluice::inference::cuda::testing {

absl::StatusOr<std::unique_ptr<TestOpContext>> TestOpContext::Create(const ir::Graph& graph) {
  std::unique_ptr<TestOpContext> c(new TestOpContext());
  c->graph_ = &graph;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&c->stream_, cudaStreamNonBlocking),
                              "cudaStreamCreateWithFlags");
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const ir::Tensor& tensor = graph.tensors[t];
    ASSIGN_OR_RETURN(void* d, c->Allocate(tensor.byte_size()));
    c->tensors_.push_back(d);
    if (tensor.is_constant && !tensor.data.empty()) {
      SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, tensor.data.data(), tensor.data.size(),
                                                  cudaMemcpyHostToDevice, c->stream_),
                                  absl::StrCat("upload of constant '", tensor.name, "'"));
    }
  }
  RETURN_IF_ERROR(c->Sync());
  return c;
}

TestOpContext::~TestOpContext() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (void* p : allocated_) cudaFree(p);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

absl::StatusOr<void*> TestOpContext::Allocate(size_t bytes) {
  void* d = nullptr;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMalloc(&d, std::max<size_t>(bytes, 4)), "cudaMalloc");
  allocated_.push_back(d);
  return d;
}

void* TestOpContext::Device(int t) const {
  return t < 0 || t >= static_cast<int>(tensors_.size()) ? nullptr : tensors_[t];
}

absl::StatusOr<void*> TestOpContext::UploadConstant(const void* host, size_t bytes) {
  ASSIGN_OR_RETURN(void* d, Allocate(bytes));
  if (bytes > 0) {
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, stream_),
                                "UploadConstant");
    // The host buffer may be a temporary of the caller's.
    RETURN_IF_ERROR(Sync());
  }
  ++num_uploaded_constants_;
  return d;
}

absl::StatusOr<void*> TestOpContext::Scratch(size_t bytes) { return Allocate(bytes); }

absl::Status TestOpContext::Write(int t, const void* host) {
  const size_t bytes = graph_->tensors[t].byte_size();
  SLUICE_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(tensors_[t], host, bytes, cudaMemcpyHostToDevice, stream_), "Write");
  return Sync();
}

absl::Status TestOpContext::Read(int t, void* host) {
  const size_t bytes = graph_->tensors[t].byte_size();
  SLUICE_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host, tensors_[t], bytes, cudaMemcpyDeviceToHost, stream_), "Read");
  return Sync();
}

absl::Status TestOpContext::Sync() {
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  return absl::OkStatus();
}

absl::StatusOr<DiffResult> CompareFamilyOpsWithReference(const ir::Graph& graph,
                                                         const DiffOptions& o) {
  RETURN_IF_ERROR(graph.Validate());
  // Host side: one buffer per tensor, constants in place.
  std::vector<std::vector<uint8_t>> host(graph.tensors.size());
  std::vector<void*> addr(graph.tensors.size());
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const ir::Tensor& tensor = graph.tensors[t];
    host[t] = tensor.is_constant ? tensor.data : std::vector<uint8_t>(tensor.byte_size() + 4);
    addr[t] = host[t].data();
  }
  std::vector<reference::Kernel> want_ops;
  for (int i = 0; i < static_cast<int>(graph.ops.size()); ++i) {
    ASSIGN_OR_RETURN(reference::Kernel k, reference::PrepareKernel(graph, i, addr));
    want_ops.push_back(std::move(k));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<TestOpContext> ctx, TestOpContext::Create(graph));
  std::vector<CudaKernel> got_ops;
  for (int i = 0; i < static_cast<int>(graph.ops.size()); ++i) {
    const ir::OpType type = graph.ops[i].type;
    if (IsConvFamilyOp(type)) {
      ASSIGN_OR_RETURN(CudaKernel k, PrepareConvFamilyOp(graph, i, *ctx));
      got_ops.push_back(std::move(k));
    } else if (IsCustomFamilyOp(type)) {
      ASSIGN_OR_RETURN(CudaKernel k, PrepareCustomFamilyOp(graph, i, *ctx));
      got_ops.push_back(std::move(k));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(graph.OpLabel(i), ": not a conv or custom family op"));
    }
  }
  DiffResult r;
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<float> dist(o.lo, o.hi);
  for (int round = 0; round < std::max(o.rounds, 1); ++round) {
    for (size_t i = 0; i < graph.inputs.size(); ++i) {
      const int t = graph.inputs[i];
      const ir::Tensor& tensor = graph.tensors[t];
      if (tensor.dtype != ir::DType::kFloat32) {
        return absl::UnimplementedError("CompareFamilyOpsWithReference feeds float32 only");
      }
      std::vector<float> v(tensor.num_elements());
      if (round == 0 && i < o.feeds.size() && !o.feeds[i].empty()) {
        if (o.feeds[i].size() != v.size()) return absl::InvalidArgumentError("feed size");
        v = o.feeds[i];
      } else {
        for (float& x : v) x = dist(rng);
      }
      std::copy(v.begin(), v.end(), reinterpret_cast<float*>(host[t].data()));
      RETURN_IF_ERROR(ctx->Write(t, v.data()));
    }
    for (auto& k : want_ops) k();
    for (size_t i = 0; i < got_ops.size(); ++i) {
      SLUICE_CUDA_RETURN_IF_ERROR(got_ops[i](ctx->stream()),
                                  absl::StrCat("launch of ", graph.OpLabel(static_cast<int>(i))));
    }
    for (int t : graph.outputs) {
      const ir::Tensor& tensor = graph.tensors[t];
      std::vector<float> got(tensor.num_elements());
      RETURN_IF_ERROR(ctx->Read(t, got.data()));
      const float* want = reinterpret_cast<const float*>(host[t].data());
      for (size_t e = 0; e < got.size(); ++e) {
        const double err = std::fabs(static_cast<double>(got[e]) - want[e]);
        if (!(err <= r.max_abs_error)) r.max_abs_error = std::isnan(err) ? INFINITY : err;
        if (!(err <= o.abs + o.rel * std::fabs(want[e])) && r.passed) {
          r.passed = false;
          r.detail = absl::StrCat("round ", round, ", tensor '", tensor.name, "' element ", e,
                                  ": got ", got[e], ", want ", want[e]);
        }
      }
    }
  }
  return r;
}

}  // namespace sluice::inference::cuda::testing
