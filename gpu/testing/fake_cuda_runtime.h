// A host-only stand-in for the part of the CUDA runtime Sluice's GPU layer
// uses, so the GPU code paths (service, pools, buffers, converters, the GPU
// branch of the calculators) run in CI where there is no GPU. Not a simulator
// of GPU performance or of device code: kernels are replaced by host loops
// over the same per-pixel maths (image_filters_host.cc).
//
// What it checks that a plain host shim would not:
//  * Asynchrony is lazy: work queued on a stream runs only when something
//    forces it (a host wait on an event or stream, a cross-stream wait being
//    satisfied, a free). A consumer that forgets to wait for its producer's
//    event reads stale memory and its test fails, as it could on a GPU.
//    Two orders (SLUICE_FAKE_CUDA_ORDER): by default a host wait first runs
//    every stream it does not target, as a GPU might; with "lazy" it runs only
//    what it needs. Each exposes a different missing wait; CI runs both.
//  * CUDA graphs: between cudaStreamBeginCapture and cudaStreamEndCapture,
//    kernels (Enqueue), copies and memsets on the capturing stream are
//    recorded, not run; cudaGraphLaunch queues the recorded work in order.
//    Synchronising, or recording/waiting on events in, a capturing stream is
//    an error (a violation).
//  * Handles are tracked: a destroyed or unknown stream/event, a free of an
//    unknown pointer, or a copy/kernel touching device memory outside a live
//    allocation returns an error (and counts a violation).
// Link it instead of CUDA::cudart (never both).
#ifndef SLUICE_GPU_TESTING_FAKE_CUDA_RUNTIME_H_
#define SLUICE_GPU_TESTING_FAKE_CUDA_RUNTIME_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace sluice {
namespace fake_cuda {

struct Stats {
  int64_t live_device_allocations = 0;
  int64_t live_pinned_allocations = 0;
  int64_t live_streams = 0;
  int64_t live_events = 0;
  int64_t violations = 0;  // bad handles, out-of-bounds device accesses
  int64_t executed_ops = 0;
  // Appended for the inference backend's tests (CUDA graphs, no-allocation checks).
  int64_t live_graphs = 0;         // cudaGraph_t + cudaGraphExec_t not destroyed
  int64_t graph_launches = 0;      // cudaGraphLaunch calls
  int64_t device_allocations = 0;  // cudaMalloc calls so far
  int64_t pinned_allocations = 0;  // cudaMallocHost calls so far
  // Appended for kernel counts (issue 7): nodes (kernels, memcpys, memsets)
  // replayed by cudaGraphLaunch calls so far.
  int64_t graph_nodes_launched = 0;
};
Stats GetStats();

// Queues `op` on `stream` (what a kernel launch does); runs when forced.
cudaError_t Enqueue(cudaStream_t stream, std::function<void()> op);

// Whether [ptr, ptr + bytes) lies inside one live device allocation; counts a
// violation when not.
bool CheckDeviceRange(const void* ptr, size_t bytes);

// Makes cudaGetDeviceCount report `count` devices (default 1; 0 = none).
void SetDeviceCount(int count);

// Overrides SLUICE_FAKE_CUDA_ORDER: true = other streams run before a host
// wait's targets (the default), false = lazy.
void SetOthersFirst(bool others_first);

}  // namespace fake_cuda
}  // namespace sluice

#endif  // SLUICE_GPU_TESTING_FAKE_CUDA_RUNTIME_H_
