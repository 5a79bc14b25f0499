// The `xnnpack` backend: runs the IR on Debian's libxnnpack through its
// subgraph API. Ops XNNPACK lacks (CONCATENATION, STRIDED_SLICE, MediaPipe's
// custom ops...) run as islands on the reference kernels: the graph is cut, in
// execution order, into maximal runs of XNNPACK-supported ops (one XNNPACK
// runtime each, weights packed once at compile time) and single island ops in
// between. Tensors crossing a cut live in buffers owned by the compiled model;
// everything inside a run is XNNPACK's business. Threads come from one
// pthreadpool per compiled model (BackendOptions::num_threads).
//
// Speed (issue 4): on CPUs with AVX-512F some ops run on our own kernels
// instead of XNNPACK 2022's, with the same float operations in the same order
// (outputs bit-identical to the all-XNNPACK path):
//  - 1x1 stride-1 CONV_2D on a 7x32-tile GEMM (pointwise_conv.h; XNNPACK 2022
//    has only 7x16), absorbing the ADD of a residual after it (also one
//    zero-padded on channels by a PAD, BlazeFace style) and a PRELU after
//    that when they are the only consumers: one pass instead of up to four;
//  - 3x3 / 5x5 stride-1 DEPTHWISE_CONV_2D with <= 32 channels
//    (depthwise_conv.h), absorbing a spatial PAD in front;
//  - stride-1 CONV_2D with one output channel and <= 16 input channels
//    (narrow_conv.h: the pose models' segmentation head);
//  - CONV_2D with <= 4 input channels, stride 1 or 2 (stem_conv.h: every
//    model's first layer).
// They cut the XNNPACK runs like islands. SLUICE_XNNPACK_OWN_GEMM=0 turns all
// this off, SLUICE_XNNPACK_NARROW=0 / SLUICE_XNNPACK_STEM=0 the last two (for A/B
// timings). Cut buffers share one arena planned by liveness
// (planner.h), each segment's external values held live over the whole
// segment (XNNPACK fuses a PAD into the convolution after it, moving the
// PAD's read). BackendOptions::profile_ops builds one step per op and times
// each (`sluice bench-model --per-op`).
#ifndef SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_
#define SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_

#include <memory>

#include "inference/backend.h"

namespace sluice::inference::xnn {

std::unique_ptr<Backend> CreateXnnpackBackend();

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_XNNPACK_BACKEND_H_
