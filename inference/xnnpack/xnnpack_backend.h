// The `xnnpack` backend: runs the IR on Debian's libxnnpack through its
// subgraph API. Ops XNNPACK lacks (CONCATENATION, STRIDED_SLICE, MediaPipe's
// custom ops...) run as islands on the reference kernels: the graph is cut, in
// execution order, into maximal runs of XNNPACK-supported ops (one XNNPACK
// runtime each, weights packed once at compile time) and single island ops in
// between. Tensors crossing a cut live in buffers owned by the compiled model;
// everything inside a run is XNNPACK's business. Threads come from one
// pthreadpool per compiled model (BackendOptions::num_threads).
#ifndef SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_
#define SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_

#include <memory>

#include "inference/backend.h"

namespace sluice::inference::xnn {

std::unique_ptr<Backend> CreateXnnpackBackend();

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_
