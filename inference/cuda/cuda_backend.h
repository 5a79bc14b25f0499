// The `cuda` inference backend: the whole model on one CUDA stream.
//
// Compile() plans one device arena for the activations (inference/planner.h,
// as the reference backend plans its host arena), uploads the constants once,
// prepares one CudaKernel per op (cuda_ops.h) and, when every op runs on the
// device, captures the op sequence into one CUDA graph. Ops the cuda kernels
// do not cover run on the reference kernels on the host ("islands": their
// inputs are downloaded, the kernel runs, its outputs go back up);
// OpPlacement() says which ran where. Inputs and outputs are pinned host
// buffers: Invoke() = async upload of the inputs -> the op sequence (one
// cudaGraphLaunch) -> async download of the outputs -> one stream
// synchronisation. Nothing is allocated after Compile().
#ifndef SLUICE_INFERENCE_CUDA_CUDA_BACKEND_H_
#define SLUICE_INFERENCE_CUDA_CUDA_BACKEND_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "inference/backend.h"

namespace sluice::inference::cuda {

std::unique_ptr<Backend> CreateCudaBackend();

// What Compile() returns, for callers that keep tensors on the GPU (e.g. a GPU
// ImageToTensor feeding the model): dynamic_cast a CompiledModel of the cuda
// backend to it.
class CudaCompiledModel : public CompiledModel {
 public:
  // Device address of graph input / output i, fixed for the model's life
  // (in the model's arena; a constant output's is a read-only device copy).
  virtual void* DeviceInput(int i) const = 0;
  virtual void* DeviceOutput(int i) const = 0;
  // The model's own stream (Invoke runs on it).
  virtual cudaStream_t stream() const = 0;
  // Enqueues the op sequence on `stream`, reading DeviceInput() and writing
  // DeviceOutput(), without the host copies of Invoke() and without waiting
  // (the caller orders its producers / consumers with events on `stream`).
  // With host islands it must synchronise `stream` at each island. Calls on a
  // model must not overlap (one arena): order them on one stream.
  virtual absl::Status InvokeOnStream(cudaStream_t stream) = 0;
  // True when the op sequence is one captured CUDA graph (no host islands).
  virtual bool UsesCudaGraph() const = 0;
  // For each op run on the host: why the cuda kernels did not take it.
  virtual std::vector<std::string> IslandReasons() const = 0;
};

}  // namespace sluice::inference::cuda

#endif  // SLUICE_INFERENCE_CUDA_CUDA_BACKEND_H_
