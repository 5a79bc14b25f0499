#include "inference/xnnpack/xnnpack_backend.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "inference/model_stats.h"
#include "inference/planner.h"
#include "inference/reference/reference_kernels.h"
#include "inference/xnnpack/add_mean.h"
#include "inference/xnnpack/branch_schedule.h"
#include "inference/xnnpack/depthwise_conv.h"
#include "inference/xnnpack/dw_pw_block.h"
#include "inference/xnnpack/dw8_pw16.h"
#include "inference/xnnpack/elementwise_add.h"
#include "inference/xnnpack/max_pool.h"
#include "inference/xnnpack/conv2x2.h"
#include "inference/xnnpack/gated_add.h"
#include "inference/xnnpack/gemv_conv.h"
#include "inference/xnnpack/huge_pages.h"
#include "inference/xnnpack/hard_swish.h"
#include "inference/xnnpack/narrow_conv.h"
#include "inference/xnnpack/pointwise_conv.h"
#include "inference/xnnpack/prelu_scale.h"
#include "inference/xnnpack/resize_bilinear.h"
#include "inference/xnnpack/stem_conv.h"
#include "inference/xnnpack/stream_conv.h"
#include "inference/xnnpack/transform_bilinear.h"
#include "inference/xnnpack/translate.h"
#include "inference/xnnpack/upsample_conv.h"
#include "inference/xnnpack/dw_add_upsample.h"
#include "inference/xnnpack/work_pool.h"
#include "util/status_macros.h"

namespace sluice::inference::xnn {
namespace {

constexpr char kName[] = "xnnpack";

absl::Status InitializeXnnpack() {
  static std::once_flag once;
  static xnn_status status = xnn_status_uninitialized;
  std::call_once(once, [] { status = xnn_initialize(/*allocator=*/nullptr); });
  if (status != xnn_status_success) {
    return absl::FailedPreconditionError(
        absl::StrCat("xnn_initialize failed: ", XnnStatusName(status)));
  }
  return absl::OkStatus();
}

struct HugePageDeleter {
  void operator()(void* p) const { HugePageFree(p); }
};
using Buffer = std::unique_ptr<uint8_t, HugePageDeleter>;

// Zeroed, 64-byte aligned, with the slack XNNPACK may read past the end; on
// huge pages (huge_pages.h) like the packed weights. Null when the system has
// no memory left (HugePageAllocate throws): the caller reports which tensor.
Buffer AllocateBuffer(size_t bytes) {
  const size_t size = (bytes + XNN_EXTRA_BYTES + 63) / 64 * 64;
  uint8_t* p = nullptr;
  try {
    p = static_cast<uint8_t*>(HugePageAllocate(size));
  } catch (const std::bad_alloc&) {
    return Buffer();
  }
  std::memset(p, 0, size);
  return Buffer(p);
}

// 1x1 stride-1 convolutions run on our own AVX-512 GEMM (pointwise_conv.h)
// where the CPU has it, unless SLUICE_XNNPACK_OWN_GEMM=0 (for comparisons).
bool OwnGemmEnabled() {
  static const bool on = [] {
    const char* e = std::getenv("SLUICE_XNNPACK_OWN_GEMM");
    return PointwiseConvAvailable() && !(e && std::strcmp(e, "0") == 0);
  }();
  return on;
}

// An own kernel's A/B switch: off when the variable is "0" (read when a
// model is compiled).
bool KernelSwitchOn(const char* variable) {
  const char* e = std::getenv(variable);
  return !(e && std::strcmp(e, "0") == 0);
}
// An opt-in A/B path (measured no faster, off by default): on only with =1.
bool KernelSwitchSet(const char* variable) {
  const char* e = std::getenv(variable);
  return e && std::strcmp(e, "1") == 0;
}

// Tasks at least for a staged 1x1 with the mean, on a pool;
// SLUICE_XNNPACK_STAGED_MEAN_TASKS=N sets it (0: the 1x1's rule alone). Read
// per compile.
size_t StagedMeanTasks() {
  const char* e = std::getenv("SLUICE_XNNPACK_STAGED_MEAN_TASKS");
  return e && *e ? static_cast<size_t>(std::strtoull(e, nullptr, 10)) : size_t{16};
}

// The largest arena the two-thread exact-slot plan may take (the 15 models:
// 2.3-53.5 MiB against 1.0-14.9 MiB for the tightest plan).
constexpr size_t kExactArenaMaxBytes = size_t{64} << 20;

// A step with less work (BranchSchedule's units: MACs + output elements +
// kBranchStepOverhead) than this runs on the caller alone, built without the
// pool: on two threads a parallel call costs ~1 us (wake-up, split, join),
// more than hand_recrop's 4x4 and 2x2 steps take on one thread (2T, 20
// interleaved rounds: 0.120 -> 0.117 ms). SLUICE_XNNPACK_SERIAL_WORK=N sets
// the limit (0: every step on the pool, as before; 20000 and up measured
// slower on face_landmark_with_attention). Read when a model is compiled.
constexpr int64_t kSerialStepWork = 10000;
int64_t SerialStepWork() {
  const char* e = std::getenv("SLUICE_XNNPACK_SERIAL_WORK");
  return e ? std::atoll(e) : kSerialStepWork;
}

// A CONV_2D our pointwise kernel runs: 1x1 filter, stride 1, fp32 constant
// weights, constant bias, activation with a range (XNNPACK's own checks, in
// VisitOp, have passed already).
bool IsOwnPointwiseConv(const GraphInfo& info, int op_index) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kConv2D || op.inputs.size() < 2) return false;
  const auto& o = op.opts<ir::Conv2DOptions>();
  if (o.stride_h != 1 || o.stride_w != 1 || o.activation == ir::Activation::kTanh) return false;
  const int w = op.inputs[1];
  if (w < 0 || !info.IsConstant(w)) return false;
  const ir::Shape& f = g.tensors[w].shape;
  if (f.size() != 4 || f[1] != 1 || f[2] != 1) return false;
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  return x.size() == 4 && x[3] == f[3] && f[0] > 0 && f[3] > 0;
}

// A 1x1 convolution on our kernel with what it absorbed: the ADD of a
// residual after it and a PRELU after that (each optional; the intermediate
// tensors are never written). It runs at the position of its last op.
struct OwnChain {
  int conv = -1, add = -1, prelu = -1;
  int in = -1;        // what the kernel reads: the conv's input, or a spatial
  int in_pad = -1;    // a spatial PAD absorbed in front (in is then its input)
  int residual = -1;  // the ADD's other input (or the input of the PAD below)
  int pad = -1;       // a PAD zero-padding the residual's channels (absorbed)
  int residual_channels = 0;
  int pw = -1;   // with conv a DEPTHWISE: the 1x1 after it, then add (dw_pw_block.h)
  // Streamed pairs (stream_conv.h): `expand`, the 1x1 whose output only the
  // DEPTHWISE `conv` reads (then `in` is the 1x1's input); `dw`, the
  // DEPTHWISE whose output only the 1x1 `conv` reads (then `in` and `in_pad`
  // are the depthwise's).
  int expand = -1, dw = -1;
  // A gated residual ADD(MUL(in, gate), gate_b) (gated_add.h): alone (conv is
  // then the MUL, gate_add the ADD), or computed on the fly as a 1x1 conv's
  // input (gate_mul, gate_add absorbed in front of it; gate_add and gate_b
  // -1: the MUL alone, clamp(MUL(in, gate))).
  int gate = -1, gate_b = -1, gate_mul = -1, gate_add = -1;
  int resize = -1;  // a RESIZE_BILINEAR computed on the fly as a 1x1 conv's
                    // input (resize_bilinear.h); in is then its input
  int mean = -1;  // a global AVERAGE_POOL_2D or MEAN of the ADD `conv` (add_mean.h):
                  // in and residual are the ADD's inputs
  // A staged 1x1 (gate_mul or resize) whose output also feeds an ADD ->
  // global mean (`mean_add`, `mean_pool`; mean_b the ADD's other input,
  // mean_out the mean): the mean's block sums taken in the 1x1's tasks.
  int mean_add = -1, mean_pool = -1, mean_b = -1, mean_out = -1;
  int act = -1;  // a HARD_SWISH after a stem conv, its epilogue (stem_conv.h);
                 // after a DEPTHWISE or plain 1x1 (no add, prelu, staged
                 // input; not streamed): run on its rows (hard_swish.h)
  // After a direct stem's activation (StemConv::SetScale, SetSecondOutput):
  // `scale`, a DEPTHWISE 1x1 (out is then its output); `prelu2` and
  // `scale2`, a PRELU of that output and a DEPTHWISE 1x1 of the PRELU's,
  // written to out2 as well.
  int scale = -1, prelu2 = -1, scale2 = -1, out2 = -1;
  // ... and `pool`, a MAX_POOL 2x2 stride 2 of that output, written to out3
  // (StemConv::SetMaxPool; pool runs later than the chain's last op).
  int pool = -1, out3 = -1;
  // Only the PRELU prelu2 and the pool read out: the stem's pair variant
  // need not write it (StemConv::SetOutputUnread; SLUICE_XNNPACK_STEM_UNREAD=0:
  // written).
  bool out_unread = false;
  // The stem's pair variant with out2: `next`, the 2x2 stride-2 conv that
  // alone reads out2, with its PRELU `next_prelu` and DEPTHWISE 1x1
  // `next_scale`, computed in the stem's registers (StemConv::SetNext); out2
  // is then next_scale's output and the stem's own out2 is never written.
  int next = -1, next_prelu = -1, next_scale = -1;
  int matrix = -1;  // with conv a TransformTensorBilinear: its matrix input
                    // (transform_bilinear.h)
  bool plain_add = false;  // conv is an ADD of two same-shape tensors, in and
                           // residual (elementwise_add.h)
  bool max_pool = false;  // conv a MAX_POOL_2D 2x2 stride 2 (max_pool.h)
  bool global_mean = false;  // conv a global AVERAGE_POOL_2D / MEAN alone (add_mean.h, no b)
  bool conv2x2 = false;  // conv a 2x2 stride-2 CONV_2D, with prelu -> scale or not (conv2x2.h)
  int in_prelu = -1, in_scale = -1;  // conv2x2: a PRELU -> DEPTHWISE 1x1 on its input
  bool prelu_scale = false;  // conv a PRELU, scale the DEPTHWISE 1x1 reading it
                             // (prelu_scale.h)
  int out = -1;  // the last op's output
  // With conv a DEPTHWISE and add: the 2x2 upsample that alone reads the
  // ADD's output, run on each row from L1 (dw_add_upsample.h); out is its.
  int upsample = -1;
  int sigmoid = -1;  // ... and the LOGISTIC that alone reads the upsample's output
  // ... and `pre`, the staged 1x1 (gate_mul, no residual or mean) whose output
  // `in` only the depthwise and its ADD read: its rows computed in the band as
  // the depthwise needs them, `in` never written (StagedDepthwiseTask).
  std::shared_ptr<const OwnChain> pre;
  // With a staged 1x1 (gate_mul or resize, no mean): `then`, the 1x1 +
  // HARD_SWISH that reads its output, run on each task's rows while in L1
  // (the squeeze-excite blocks' project -> next expand); its output is
  // written too (StagedPointwiseTask::then).
  std::shared_ptr<const OwnChain> then;
  // What pre reads (its `in`, gate and gate_b), or nothing.
  std::vector<int> pre_reads() const {
    if (!pre) return {};
    return {pre->in, pre->gate, pre->gate_b};
  }
  // Every op the chain runs, `conv` first (for profiles).
  std::vector<int> ops() const {
    std::vector<int> v{conv};
    for (int o : {in_pad, add, prelu, pad, pw, expand, dw, gate_mul, gate_add, resize, mean, mean_add,
                  mean_pool, act, scale, prelu2, scale2, pool, in_prelu, in_scale, next,
                  next_prelu, next_scale, upsample, sigmoid}) {
      if (o >= 0 && std::find(v.begin(), v.end(), o) == v.end()) v.push_back(o);
    }
    if (pre) {
      for (int o : pre->ops()) v.push_back(o);
    }
    if (then) {
      for (int o : then->ops()) v.push_back(o);
    }
    return v;
  }
  int last() const {
    return sigmoid >= 0    ? sigmoid
           : upsample >= 0 ? upsample
           : scale2 >= 0   ? scale2
           : scale >= 0  ? scale
           : prelu >= 0 ? prelu
           : act >= 0   ? act
           : add >= 0   ? add
                        : conv;
  }
};

// If the input of op `op_index` comes from a zero PAD of H and W only that no
// one else reads (and that is no graph output), the PAD can be absorbed: the
// kernel reads the PAD's input with `*pre_h` / `*pre_w` more padding in
// front, and `*x` becomes that input's shape. False when a PAD is there but
// cannot be absorbed (then the op is not ours); true otherwise.
bool AbsorbableInputPad(const GraphInfo& info, int op_index, int* pre_h, int* pre_w,
                        const ir::Shape** x) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  const int producer = info.producer(op.inputs[0]);
  if (producer < 0 || g.ops[producer].type != ir::OpType::kPad) return true;
  const ir::Op& pad = g.ops[producer];
  if (pad.inputs.size() != 2 || pad.inputs[1] < 0) return false;
  const ir::Tensor& pt = g.tensors[pad.inputs[1]];
  if (!pt.is_constant || pt.dtype != ir::DType::kInt32 || pt.data.size() != 32) return false;
  const int32_t* v = pt.i32();
  if (v[0] || v[1] || v[6] || v[7] || v[2] < 0 || v[3] < 0 || v[4] < 0 || v[5] < 0) return false;
  for (size_t j = 0; j < g.ops.size(); ++j) {
    if (static_cast<int>(j) == op_index) continue;
    for (int t : g.ops[j].inputs) {
      if (t == op.inputs[0]) return false;  // someone else reads the padded tensor
    }
  }
  for (int t : g.outputs) {
    if (t == op.inputs[0]) return false;
  }
  *pre_h = v[2], *pre_w = v[4];
  *x = &g.tensors[pad.inputs[0]].shape;
  return true;
}

// A DEPTHWISE_CONV_2D our kernel runs (depthwise_conv.h): 3x3 or 5x5,
// multiplier 1, no dilation. A spatial PAD in front is absorbed, as XNNPACK
// would fuse it. SLUICE_XNNPACK_DW_WIDE=0 keeps it to what the kernel took
// before it summed several pixels at once: stride 1, at most 32 channels.
bool OwnDepthwiseShape(const GraphInfo& info, int op_index, DepthwiseShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kDepthwiseConv2D || op.inputs.size() < 2) return false;
  const auto& o = op.opts<ir::DepthwiseConv2DOptions>();
  const bool wide = KernelSwitchOn("SLUICE_XNNPACK_DW_WIDE");
  if ((!wide && (o.stride_h != 1 || o.stride_w != 1)) || o.dilation_h != 1 ||
      o.dilation_w != 1 || o.activation == ir::Activation::kTanh) {
    return false;
  }
  if (op.inputs[1] < 0 || !info.IsConstant(op.inputs[1])) return false;
  // A zero PAD of H and W only, read by this op alone, is absorbed (see
  // OwnChain::in): the kernel reads the PAD's input with larger padding.
  int pre_h = 0, pre_w = 0;
  const ir::Shape* x = &g.tensors[op.inputs[0]].shape;
  if (!AbsorbableInputPad(info, op_index, &pre_h, &pre_w, &x)) return false;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  const ir::Shape& xp = g.tensors[op.inputs[0]].shape;  // as the conv sees it
  if (x->size() != 4 || xp.size() != 4 || f.size() != 4 || y.size() != 4 || (*x)[0] != 1 ||
      f[0] != 1 || f[1] != f[2] || f[3] != xp[3] || y[3] != xp[3] || (!wide && xp[3] > 32) ||
      (*x)[3] != xp[3]) {
    return false;
  }
  DepthwiseShape s;
  s.in_h = (*x)[1], s.in_w = (*x)[2], s.channels = xp[3];
  s.out_h = y[1], s.out_w = y[2];
  s.kernel = f[1];
  s.stride_h = o.stride_h, s.stride_w = o.stride_w;
  const ir::PadOut ph = ir::ComputePadding(o.padding, xp[1], f[1], o.stride_h, 1);
  const ir::PadOut pw = ir::ComputePadding(o.padding, xp[2], f[2], o.stride_w, 1);
  if (ph.out != y[1] || pw.out != y[2]) return false;
  s.pad_top = ph.pad_before + pre_h, s.pad_left = pw.pad_before + pre_w;
  if (!DepthwiseConv::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// A CONV_2D our narrow kernel runs (narrow_conv.h): one output channel, at
// most 16 input channels, stride 1, no dilation, kernel up to 7x7.
// SLUICE_XNNPACK_NARROW=0 leaves them to XNNPACK (for A/B timings).
// A CONV_2D with one output pixel whose filter covers its whole (more than
// one pixel) input, VALID, weights of at least 256 KiB that are exact in fp16:
// gemv_conv.h (face_landmark's 3x3x32 -> 1404 head; bound by reading the
// weights, which it keeps in fp16). SLUICE_XNNPACK_FACE=0: not.
bool OwnGemvShape(const GraphInfo& info, int op_index, int* k, int* n) {
  if (!KernelSwitchOn("SLUICE_XNNPACK_FACE")) return false;
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kConv2D || op.inputs.size() < 2 || op.outputs.size() != 1) {
    return false;
  }
  const auto& o = op.opts<ir::Conv2DOptions>();
  if (o.padding != ir::Padding::kValid || o.dilation_h != 1 || o.dilation_w != 1 ||
      o.activation == ir::Activation::kTanh) {
    return false;
  }
  if (op.inputs[1] < 0 || !info.IsConstant(op.inputs[1])) return false;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 && !info.IsConstant(op.inputs[2])) return false;
  const ir::Tensor& xt = g.tensors[op.inputs[0]];
  const ir::Shape& x = xt.shape;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (xt.dtype != ir::DType::kFloat32 || x.size() != 4 || f.size() != 4 || x[0] != 1 ||
      f[1] != x[1] || f[2] != x[2] || f[3] != x[3] || x[1] * x[2] < 2 ||
      y != ir::Shape{1, 1, 1, f[0]}) {
    return false;
  }
  const size_t count = static_cast<size_t>(f[0]) * f[1] * f[2] * f[3];
  if (count * sizeof(float) < 256 * 1024) return false;
  auto w = info.ConstantAsFloat(op.inputs[1]);
  if (!w.ok() || w->size() != count || !GemvConv::Supports(w->data(), count)) return false;
  if (k) *k = f[1] * f[2] * f[3];
  if (n) *n = f[0];
  return true;
}

bool OwnNarrowConvShape(const GraphInfo& info, int op_index, NarrowConvShape* shape) {
  if (!KernelSwitchOn("SLUICE_XNNPACK_NARROW")) return false;
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kConv2D || op.inputs.size() < 2) return false;
  const auto& o = op.opts<ir::Conv2DOptions>();
  if (o.stride_h != 1 || o.stride_w != 1 || o.dilation_h != 1 || o.dilation_w != 1 ||
      o.activation == ir::Activation::kTanh) {
    return false;
  }
  if (op.inputs[1] < 0 || !info.IsConstant(op.inputs[1])) return false;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 && !info.IsConstant(op.inputs[2])) return false;
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (x.size() != 4 || f.size() != 4 || y.size() != 4 || x[0] != 1 || f[0] != 1 || y[3] != 1 ||
      f[3] != x[3] || (f[1] == 1 && f[2] == 1)) {
    return false;
  }
  const ir::PadOut ph = ir::ComputePadding(o.padding, x[1], f[1], 1, 1);
  const ir::PadOut pw = ir::ComputePadding(o.padding, x[2], f[2], 1, 1);
  if (ph.out != y[1] || pw.out != y[2]) return false;
  NarrowConvShape s;
  s.in_h = x[1], s.in_w = x[2], s.channels = x[3];
  s.out_h = y[1], s.out_w = y[2];
  s.kernel_h = f[1], s.kernel_w = f[2];
  s.pad_top = ph.pad_before, s.pad_left = pw.pad_before;
  if (!NarrowConv::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// A DEPTHWISE 1x1 of `t` with `channels` channels, multiplier 1, constant
// weights (and bias), an activation with a range: per channel
// clamp(x * w + b) (XNNPACK runs it as its vmulcaddc kernel).
bool IsScaleDepthwise(const GraphInfo& info, int op_index, int t, int channels) {
  if (op_index < 0) return false;
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kDepthwiseConv2D || op.inputs.size() < 2 || op.inputs[0] != t ||
      op.inputs[1] < 0 || !info.IsConstant(op.inputs[1]) ||
      (op.inputs.size() > 2 && op.inputs[2] >= 0 && !info.IsConstant(op.inputs[2]))) {
    return false;
  }
  const auto& o = op.opts<ir::DepthwiseConv2DOptions>();
  if (o.activation == ir::Activation::kTanh || o.stride_h != 1 || o.stride_w != 1) return false;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  return f == ir::Shape{1, 1, 1, channels} &&
         g.tensors[op.outputs[0]].shape == g.tensors[t].shape;
}

// A PRELU (per-channel constant slope) whose output's sole reader is a
// DEPTHWISE 1x1 of it (IsScaleDepthwise), as PreluScale rows.
bool OwnPreluScaleShape(const GraphInfo& info, int prelu, PreluScaleShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[prelu];
  if (op.type != ir::OpType::kPrelu || op.inputs.size() != 2 || op.inputs[1] < 0 ||
      !info.IsConstant(op.inputs[1])) {
    return false;
  }
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  if (x.size() != 4 || x[0] != 1 || g.tensors[op.outputs[0]].shape != x ||
      ir::NumElements(g.tensors[op.inputs[1]].shape) != x[3]) {
    return false;
  }
  const int t = op.outputs[0];
  int reader = -1, readers = 0;
  for (int j = 0; j < static_cast<int>(g.ops.size()); ++j) {
    for (int u : g.ops[j].inputs) {
      if (u == t) reader = j, ++readers;
    }
  }
  if (readers != 1 || std::count(g.outputs.begin(), g.outputs.end(), t) != 0 ||
      !IsScaleDepthwise(info, reader, t, x[3])) {
    return false;
  }
  PreluScaleShape s;
  s.rows = x[1], s.row_pixels = x[2], s.channels = x[3];
  if (!PreluScale::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// A CONV_2D our stem kernel runs (stem_conv.h): at most 4 input channels
// (or 8: hand_recrop's 2x2 stride-2 8 -> 8), up to 64 output channels,
// stride 1 or 2, no dilation, not 1x1 (the first layer of the models). SLUICE_XNNPACK_STEM=0 leaves them to XNNPACK.
bool OwnStemConvShape(const GraphInfo& info, int op_index, StemConvShape* shape) {
  if (!KernelSwitchOn("SLUICE_XNNPACK_STEM")) return false;
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kConv2D || op.inputs.size() < 2) return false;
  const auto& o = op.opts<ir::Conv2DOptions>();
  if (o.dilation_h != 1 || o.dilation_w != 1 || o.activation == ir::Activation::kTanh) return false;
  if (op.inputs[1] < 0 || !info.IsConstant(op.inputs[1])) return false;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 && !info.IsConstant(op.inputs[2])) return false;
  // A spatial zero PAD in front is absorbed, as XNNPACK would fuse it.
  int pre_h = 0, pre_w = 0;
  const ir::Shape* x = &g.tensors[op.inputs[0]].shape;
  if (!AbsorbableInputPad(info, op_index, &pre_h, &pre_w, &x)) return false;
  const ir::Shape& xp = g.tensors[op.inputs[0]].shape;  // as the conv sees it
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (x->size() != 4 || xp.size() != 4 || f.size() != 4 || y.size() != 4 || (*x)[0] != 1 ||
      f[3] != xp[3] || (*x)[3] != xp[3] || y[3] != f[0]) {
    return false;
  }
  const ir::PadOut ph = ir::ComputePadding(o.padding, xp[1], f[1], o.stride_h, 1);
  const ir::PadOut pw = ir::ComputePadding(o.padding, xp[2], f[2], o.stride_w, 1);
  if (ph.out != y[1] || pw.out != y[2]) return false;
  StemConvShape s;
  s.in_h = (*x)[1], s.in_w = (*x)[2], s.channels = xp[3];
  s.out_h = y[1], s.out_w = y[2], s.out_channels = y[3];
  s.kernel_h = f[1], s.kernel_w = f[2];
  s.stride_h = o.stride_h, s.stride_w = o.stride_w;
  s.pad_top = ph.pad_before + pre_h, s.pad_left = pw.pad_before + pre_w;
  if (!StemConv::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// A Convolution2DTransposeBias our upsample kernel runs (upsample_conv.h):
// 2x2 kernel, stride 2, no padding, one output channel, constant weights
// and bias. SLUICE_XNNPACK_UPSAMPLE=0 leaves it to XNNPACK.
bool OwnUpsampleConvShape(const GraphInfo& info, int op_index, UpsampleConvShape* shape) {
  if (!KernelSwitchOn("SLUICE_XNNPACK_UPSAMPLE")) return false;
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kTransposeConvBias || op.inputs.size() < 2) return false;
  const auto& o = op.opts<ir::TransposeConvOptions>();
  if (o.stride_h != 2 || o.stride_w != 2) return false;
  if (op.inputs[1] < 0 || !info.IsConstant(op.inputs[1])) return false;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0 && !info.IsConstant(op.inputs[2])) return false;
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (x.size() != 4 || f.size() != 4 || y.size() != 4 || x[0] != 1 || y[0] != 1 || f[0] != 1 ||
      f[1] != 2 || f[2] != 2 || f[3] != x[3] || y[3] != 1 || y[1] != 2 * x[1] ||
      y[2] != 2 * x[2]) {
    return false;
  }
  UpsampleConvShape s;
  s.in_h = x[1], s.in_w = x[2], s.channels = x[3];
  if (!UpsampleConv::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// DEPTHWISE 3x3 SAME (op `dw`) -> CONV 1x1 (`pw`) -> ADD (`add`) of the
// depthwise's input x, C -> C channels, C <= 16, 32 or 64, constant weights
// and bias: one pass of dw_pw_block.h (the pose models' segmentation blocks,
// face_landmark's backbone; the caller may add a PRELU after the ADD). The
// caller checks that each intermediate has one reader and is no graph output.
// SLUICE_XNNPACK_DWPW=0 leaves them to the per-op kernels (for A/B timings).
bool OwnDwPwBlockShape(const GraphInfo& info, int dw, int pw, int add, DwPwShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& d = g.ops[dw];
  const ir::Op& p = g.ops[pw];
  const ir::Op& a = g.ops[add];
  if (d.type != ir::OpType::kDepthwiseConv2D || p.type != ir::OpType::kConv2D ||
      a.type != ir::OpType::kAdd || d.inputs.size() < 2 || p.inputs.size() < 2 ||
      a.inputs.size() != 2 || d.outputs.size() != 1 || p.outputs.size() != 1 ||
      a.outputs.size() != 1) {
    return false;
  }
  const int x = d.inputs[0];
  if (x < 0 || info.IsConstant(x) || p.inputs[0] != d.outputs[0]) return false;
  const int other = a.inputs[0] == p.outputs[0] ? a.inputs[1] : a.inputs[0];
  if (other != x || (a.inputs[0] != p.outputs[0] && a.inputs[1] != p.outputs[0])) return false;
  const auto& dopt = d.opts<ir::DepthwiseConv2DOptions>();
  const auto& popt = p.opts<ir::Conv2DOptions>();
  if (dopt.padding != ir::Padding::kSame || dopt.stride_h != 1 || dopt.stride_w != 1 ||
      dopt.dilation_h != 1 || dopt.dilation_w != 1 || dopt.activation == ir::Activation::kTanh ||
      popt.stride_h != 1 || popt.stride_w != 1 || popt.activation == ir::Activation::kTanh ||
      a.opts<ir::BinaryOptions>().activation == ir::Activation::kTanh) {
    return false;
  }
  for (const ir::Op* op : {&d, &p}) {
    if (op->inputs[1] < 0 || !info.IsConstant(op->inputs[1])) return false;
    if (op->inputs.size() > 2 && op->inputs[2] >= 0 && !info.IsConstant(op->inputs[2])) {
      return false;
    }
  }
  const ir::Tensor& xt = g.tensors[x];
  const ir::Shape& xs = xt.shape;
  if (xs.size() != 4 || xs[0] != 1 || xt.dtype != ir::DType::kFloat32) return false;
  const int c = xs[3];
  for (const ir::Op* op : {&d, &p, &a}) {
    const ir::Tensor& t = g.tensors[op->outputs[0]];
    if (t.shape != xs || t.dtype != ir::DType::kFloat32) return false;
  }
  if (g.tensors[d.inputs[1]].shape != ir::Shape{1, 3, 3, c} ||
      g.tensors[p.inputs[1]].shape != ir::Shape{c, 1, 1, c}) {
    return false;
  }
  // Two 8-channel pixels per register is where the block wins, and C = 16,
  // 32, 64 with their own loop (face_landmark's 96x96x16, 48x48x32 and
  // 24x24x64 blocks, bench/models/RESULTS.md 2026-11-24;
  // SLUICE_XNNPACK_FACE=0 leaves those to the per-op and streamed kernels).
  // 9-15 channels (one pixel per register, lane permutes) measured slower
  // than those (0.171 ms per block vs 0.113 at 96x96x16).
  // SLUICE_XNNPACK_DWPW=wide takes those too (for tests and A/B).
  const char* e = std::getenv("SLUICE_XNNPACK_DWPW");
  if (c > 8 && !((c == 16 || c == 32 || c == 64) && KernelSwitchOn("SLUICE_XNNPACK_FACE")) &&
      !(e && std::strcmp(e, "wide") == 0)) {
    return false;
  }
  DwPwShape s;
  s.h = xs[1], s.w = xs[2], s.channels = c;
  if (!DwPwBlock::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// Where streaming a pair (stream_conv.h) measured faster than the two
// kernels apart (bench/models/RESULTS.md, 2026-11-23), by the shape of the
// tensor it keeps out of memory. Expand: only where that tensor outgrows L2
// (112x112x64, 3 MiB: -20% for the pair); below, the recomputed halo rows
// and the 1x1 on one image row at a time cost more than the traffic saved
// (14x14 and 7x7 layers up to 2x slower on two threads). Project: from
// 48x48 pixels (56x56x144: -10%); smaller ones are flat or a few % slower
// on one thread (on a pool they stream too: StreamSmallProjectOnPool).
// A stride-2 depthwise reads 4 of those pixels per output: from 1.75 MiB
// (pose_landmark's 128x128x32 -> 64x64: 0.110 + 0.125 ms as the 1x1 alone
// and DEPTHWISE -> 1x1 streamed, 0.150 + 0.041 as 1x1 -> DEPTHWISE streamed
// and the 1x1 alone; its 64x64x96 -> 32x32, 1.5 MiB: 0.092 + 0.101 ->
// 0.210 streamed, slower); SLUICE_XNNPACK_STREAM_S2=0 keeps the L2 bound.
// Narrow (at most 16 channels) stride-2 pairs from 512 KiB: the 1x1 per
// image row is cheap there (the selfie models' 128x128x16 / 72x128x16 ->
// DEPTHWISE s2, 1 MiB: 0.067-0.069 -> 0.0585 ms one thread, 0.037 -> 0.032
// two); SLUICE_XNNPACK_STREAM_S2_NARROW=0: not.
bool StreamExpandWins(const ir::Shape& mid, int dw_stride) {
  const size_t bytes = mid.size() == 4 ? ir::NumElements(mid) * sizeof(float) : 0;
  const bool s2 = KernelSwitchOn("SLUICE_XNNPACK_STREAM_S2");
  if (s2 && dw_stride >= 2 && mid.size() == 4 && mid[3] <= 16 && bytes >= (size_t{1} << 19) &&
      KernelSwitchOn("SLUICE_XNNPACK_STREAM_S2_NARROW")) {
    return true;
  }
  return bytes > (s2 && dw_stride >= 2 ? size_t{7} << 18 : size_t{5} << 19);
}
bool StreamProjectWins(const ir::Shape& mid) {
  return mid.size() == 4 && mid[1] * mid[2] >= 48 * 48;
}
// With a thread pool, a small DEPTHWISE -> 1x1 pair streamed is one parallel
// call instead of two (no halo: the depthwise's input is whole); below 48x48
// each call's fixed cost is a large part of the layer's two-thread time
// (face_detection's 8x8 - 24x24 blocks; bench/models/RESULTS.md 2026-11-24
// 02:32). Wide pairs too: a bound of 128 channels measured equal or slower.
// SLUICE_XNNPACK_STREAM_SMALL=0: the pool takes them as two calls; =N: only
// pairs of at most N channels in and out (for A/B).
bool StreamSmallProjectOnPool(int k, int n) {
  const char* e = std::getenv("SLUICE_XNNPACK_STREAM_SMALL");
  if (!e || !*e) return true;
  const int most = std::atoi(e);
  return k <= most && n <= most;
}

// The memory-bound decoder fusions: an ADD after a DEPTHWISE as its epilogue
// (depthwise_conv.h), MUL by a per-channel gate -> ADD (gated_add.h), alone
// or as a 1x1 conv's input, RESIZE_BILINEAR as a 1x1 conv's input
// (resize_bilinear.h), ADD -> global mean (add_mean.h).
// SLUICE_XNNPACK_FUSE_ADD=0 leaves those ops as before (XNNPACK's nodes, our
// per-op kernels), for A/B timings and bit comparisons.
bool FuseAddEnabled() { return KernelSwitchOn("SLUICE_XNNPACK_FUSE_ADD"); }

// Whether op `a` is a HARD_SWISH of `x` (same shape) that a DEPTHWISE or plain
// 1x1 chain writing `x` can run as its epilogue (OwnChain::act, hard_swish.h).
// SLUICE_XNNPACK_HSWISH=0: not (XNNPACK runs it, for A/B).
bool HardSwishEpilogue(const ir::Graph& g, int a, int x) {
  if (a < 0 || g.ops[a].type != ir::OpType::kHardSwish || g.ops[a].inputs.empty() ||
      g.ops[a].inputs[0] != x || g.ops[a].outputs.size() != 1 ||
      g.tensors[g.ops[a].outputs[0]].shape != g.tensors[x].shape) {
    return false;
  }
  return HardSwishAvailable() && KernelSwitchOn("SLUICE_XNNPACK_HSWISH");
}

// ADD op `add` with input tensor `t` (a float [.., C] tensor): its other
// input if that is a non-constant float tensor of t's shape, and the output
// has that shape too; else -1.
int SameShapeAddend(const GraphInfo& info, int add, int t) {
  const ir::Graph& g = info.graph();
  const ir::Op& a = g.ops[add];
  if (a.type != ir::OpType::kAdd || a.inputs.size() != 2 || a.outputs.size() != 1 ||
      (a.inputs[0] != t && a.inputs[1] != t) ||
      a.opts<ir::BinaryOptions>().activation == ir::Activation::kTanh) {
    return -1;
  }
  const int other = a.inputs[0] == t ? a.inputs[1] : a.inputs[0];
  if (other < 0 || other == t || info.IsConstant(other)) return -1;
  const ir::Tensor& tt = g.tensors[t];
  for (int u : {other, a.outputs[0]}) {
    if (g.tensors[u].shape != tt.shape || g.tensors[u].dtype != ir::DType::kFloat32) return -1;
  }
  return tt.dtype == ir::DType::kFloat32 ? other : -1;
}

// MUL (op `mul`) of a 4-D float tensor x by a per-channel gate ([1, 1, 1, C]
// or [C], not constant) whose product only ADD (op `add`) reads, with a
// tensor of x's shape: y = ADD(MUL(x, gate), b), one pass of gated_add.h.
// `add` -1: the MUL alone (a 1x1 conv's staged input; `*b` = -1).
// The caller checks that the product has no other reader.
bool OwnGatedAddShape(const GraphInfo& info, int mul, int add, GatedAddShape* shape, int* x,
                      int* gate, int* b) {
  const ir::Graph& g = info.graph();
  const ir::Op& m = g.ops[mul];
  if (m.type != ir::OpType::kMul || m.inputs.size() != 2 || m.outputs.size() != 1 ||
      m.opts<ir::BinaryOptions>().activation == ir::Activation::kTanh) {
    return false;
  }
  const int prod = m.outputs[0];
  const ir::Shape& ps = g.tensors[prod].shape;
  if (ps.size() != 4 || ps[3] < 1) return false;
  for (int k = 0; k < 2; ++k) {
    const int xi = m.inputs[k], gi = m.inputs[1 - k];
    if (xi < 0 || gi < 0 || info.IsConstant(xi) || info.IsConstant(gi)) continue;
    const ir::Tensor& xt = g.tensors[xi];
    const ir::Tensor& gt = g.tensors[gi];
    if (xt.shape != ps || xt.dtype != ir::DType::kFloat32 || gt.dtype != ir::DType::kFloat32 ||
        gt.shape.empty() || gt.shape.back() != ps[3] || ir::NumElements(gt.shape) != ps[3] ||
        gt.shape.size() > 4) {
      continue;
    }
    const int other = add < 0 ? -1 : SameShapeAddend(info, add, prod);
    if (add >= 0 && other < 0) return false;
    GatedAddShape s;
    s.rows = ps[0] * ps[1], s.w = ps[2], s.channels = ps[3];
    if (!GatedAdd::Supports(s)) return false;
    if (shape) *shape = s;
    if (x) *x = xi;
    if (gate) *gate = gi;
    if (b) *b = other;
    return true;
  }
  return false;
}

// RESIZE_BILINEAR (op `resize`) of a batch-1 float tensor, the shape
// resize_bilinear.h computes on the fly.
bool OwnResizeShape(const GraphInfo& info, int resize, ResizeShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& r = g.ops[resize];
  if (r.type != ir::OpType::kResizeBilinear || r.inputs.empty() || r.inputs[0] < 0 ||
      info.IsConstant(r.inputs[0]) || r.outputs.size() != 1) {
    return false;
  }
  const ir::Tensor& x = g.tensors[r.inputs[0]];
  const ir::Tensor& y = g.tensors[r.outputs[0]];
  if (x.shape.size() != 4 || y.shape.size() != 4 || x.shape[0] != 1 || y.shape[0] != 1 ||
      x.shape[3] != y.shape[3] || x.dtype != ir::DType::kFloat32 ||
      y.dtype != ir::DType::kFloat32) {
    return false;
  }
  const auto& o = r.opts<ir::ResizeBilinearOptions>();
  ResizeShape s;
  s.in_h = x.shape[1], s.in_w = x.shape[2], s.out_h = y.shape[1], s.out_w = y.shape[2];
  s.channels = x.shape[3];
  s.align_corners = o.align_corners, s.half_pixel_centers = o.half_pixel_centers;
  if (!ResizeBilinear::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// MediaPipe's TransformTensorBilinear (op `op_index`) on a non-constant
// batch-1 float map, the shape transform_bilinear.h takes; the reference
// kernel's checks (reference::PrepareKernel) are left to it otherwise.
// SLUICE_XNNPACK_TTB=0 (or SLUICE_XNNPACK_OWN_GEMM=0) keeps the reference
// island (for A/B).
bool OwnTransformBilinearShape(const GraphInfo& info, int op_index,
                               TransformBilinearShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kTransformTensorBilinear || op.inputs.size() != 2 ||
      op.outputs.size() != 1 || op.inputs[0] < 0 || op.inputs[1] < 0 ||
      info.IsConstant(op.inputs[0]) || !OwnGemmEnabled() ||
      !KernelSwitchOn("SLUICE_XNNPACK_TTB")) {
    return false;
  }
  const ir::Tensor& x = g.tensors[op.inputs[0]];
  const ir::Tensor& m = g.tensors[op.inputs[1]];
  const ir::Tensor& y = g.tensors[op.outputs[0]];
  const auto& o = op.opts<ir::TransformTensorBilinearOptions>();
  if (x.dtype != ir::DType::kFloat32 || m.dtype != ir::DType::kFloat32 ||
      y.dtype != ir::DType::kFloat32 || x.shape.size() != 4 || y.shape.size() != 4 ||
      ir::NumElements(m.shape) != 16 || x.shape[0] != 1 || y.shape[0] != 1 ||
      x.shape[3] != y.shape[3] || y.shape[1] != o.output_height || y.shape[2] != o.output_width) {
    return false;
  }
  TransformBilinearShape s;
  s.in_h = x.shape[1], s.in_w = x.shape[2], s.out_h = y.shape[1], s.out_w = y.shape[2];
  s.channels = x.shape[3];
  if (!TransformBilinear::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// An ADD output of shape `ys` as PlainAdd rows (batch 1, rows of H), when
// the kernel takes it.
bool PlainAddRowShape(const ir::Shape& ys, PlainAddShape* shape) {
  if (ys.size() != 4 || ys[0] != 1) return false;
  PlainAddShape s;
  s.rows = ys[1];
  s.row_floats = static_cast<size_t>(ys[2]) * ys[3];
  if (!PlainAdd::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// ADD of two float tensors of the same shape, with batch 1 and at least
// kPlainAddMinFloats elements (a smaller one is not worth cutting an XNNPACK
// segment for): rows of H.
// SLUICE_XNNPACK_PLAIN_ADD=0 leaves every such ADD to XNNPACK (for A/B).
// A MAX_POOL_2D 2x2 stride 2 without padding of at least kMaxPoolMinFloats
// output floats (smaller ones stay inside XNNPACK's segments) on our kernel
// (max_pool.h). SLUICE_XNNPACK_MAXPOOL=0: not.
constexpr int64_t kMaxPoolMinFloats = 4096;
bool OwnMaxPoolShape(const GraphInfo& info, int op_index, MaxPool2x2Shape* shape,
                     int64_t min_floats = kMaxPoolMinFloats) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kMaxPool2D || op.inputs.empty() || op.outputs.empty() ||
      !KernelSwitchOn("SLUICE_XNNPACK_MAXPOOL")) {
    return false;
  }
  const auto& o = op.opts<ir::Pool2DOptions>();
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (o.filter_h != 2 || o.filter_w != 2 || o.stride_h != 2 || o.stride_w != 2 ||
      o.activation == ir::Activation::kTanh || x.size() != 4 || x[0] != 1) {
    return false;
  }
  const ir::PadOut ph = ir::ComputePadding(o.padding, x[1], 2, 2, 1);
  const ir::PadOut pw = ir::ComputePadding(o.padding, x[2], 2, 2, 1);
  MaxPool2x2Shape s;
  s.in_h = x[1], s.in_w = x[2], s.channels = x[3];
  s.out_h = x[1] / 2, s.out_w = x[2] / 2;
  if (ph.pad_before != 0 || pw.pad_before != 0 || ph.out != s.out_h || pw.out != s.out_w ||
      y != ir::Shape{1, s.out_h, s.out_w, s.channels} || ir::NumElements(y) < min_floats ||
      !MaxPool2x2::Supports(s)) {
    return false;
  }
  if (shape) *shape = s;
  return true;
}

// A CONV_2D 2x2 stride 2 without padding, 16 -> 16, 32 -> 32, 64 -> 32 or
// 64 -> 16 channels (hand_recrop's downsamplings) on our kernel (conv2x2.h).
// SLUICE_XNNPACK_CONV2X2=0: not (XNNPACK's IGEMM, for A/B).
bool OwnConv2x2Shape(const GraphInfo& info, int op_index, Conv2x2Shape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  if (op.type != ir::OpType::kConv2D || op.inputs.size() < 2 || op.inputs[1] < 0 ||
      !info.IsConstant(op.inputs[1]) || (op.inputs.size() > 2 && op.inputs[2] >= 0 &&
                                         !info.IsConstant(op.inputs[2])) ||
      !KernelSwitchOn("SLUICE_XNNPACK_CONV2X2")) {
    return false;
  }
  const auto& o = op.opts<ir::Conv2DOptions>();
  const ir::Shape& x = g.tensors[op.inputs[0]].shape;
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const ir::Shape& y = g.tensors[op.outputs[0]].shape;
  if (o.stride_h != 2 || o.stride_w != 2 || o.dilation_h != 1 || o.dilation_w != 1 ||
      o.activation == ir::Activation::kTanh || x.size() != 4 || x[0] != 1 ||
      f.size() != 4 || f[1] != 2 || f[2] != 2 || f[3] != x[3]) {
    return false;
  }
  const ir::PadOut ph = ir::ComputePadding(o.padding, x[1], 2, 2, 1);
  const ir::PadOut pw = ir::ComputePadding(o.padding, x[2], 2, 2, 1);
  Conv2x2Shape s;
  s.in_h = x[1], s.in_w = x[2], s.channels = x[3];
  s.out_h = x[1] / 2, s.out_w = x[2] / 2, s.out_channels = f[0];
  if (ph.pad_before != 0 || pw.pad_before != 0 || ph.out != s.out_h || pw.out != s.out_w ||
      y != ir::Shape{1, s.out_h, s.out_w, f[0]} || !Conv2x2::Supports(s)) {
    return false;
  }
  if (shape) *shape = s;
  return true;
}

bool PlainAddSplit() { return KernelSwitchOn("SLUICE_XNNPACK_PLAIN_ADD"); }
constexpr int64_t kPlainAddMinFloats = 64 * 1024;
bool OwnPlainAddShape(const GraphInfo& info, int add, PlainAddShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& a = g.ops[add];
  if (a.type != ir::OpType::kAdd || a.inputs.size() != 2 || a.inputs[0] < 0) return false;
  if (SameShapeAddend(info, add, a.inputs[0]) != a.inputs[1]) return false;
  const ir::Shape& ys = g.tensors[a.outputs[0]].shape;
  if (ir::NumElements(ys) < kPlainAddMinFloats) return false;
  return PlainAddRowShape(ys, shape);
}

// The ADD (op `add`) of a resize's output `t` and a same-shape tensor, as
// the resize's epilogue (PlainAdd on the resized rows).
bool OwnResizeAddShape(const GraphInfo& info, int add, int t, PlainAddShape* shape) {
  const ir::Graph& g = info.graph();
  if (SameShapeAddend(info, add, t) < 0) return false;
  return PlainAddRowShape(g.tensors[g.ops[add].outputs[0]].shape, shape);
}

// ADD -> global mean, two-thread fixes (add_mean.h): with threads and few
// channel groups the pixels are split (AddMean::Partial per group x chunk of
// 7-pixel blocks, then Finish per group; with 16 channels the one-pass kernel
// was one item, so the selfie decoders' 128x128 ADD + mean, 2 MiB read, ran
// on one thread); and a MEAN over H, W (selfie_segmentation_landscape) is
// fused like AVERAGE_POOL_2D (XNNPACK ran the ADD and the mean as one item
// each). SLUICE_XNNPACK_ADDMEAN_SPLIT=0 restores both (for A/B).
bool AddMeanSplit() { return KernelSwitchOn("SLUICE_XNNPACK_ADDMEAN_SPLIT"); }
constexpr int kAddMeanChunkBlocks = 64;  // 448 pixels per task of the split

// Whether `p` is XNNPACK's global average pooling of a [1, H, W, C] tensor of
// shape `ys`: AVERAGE_POOL_2D VALID over the whole image, or (`mean_op`) a
// MEAN over H and W, which translate.cc runs as one (unclamped, so the same
// sums as the pool's).
bool IsGlobalMeanOf(const ir::Graph& g, const ir::Op& p, const ir::Shape& ys, bool mean_op) {
  if (mean_op) {
    if (p.inputs.size() != 2 || p.inputs[1] < 0 || !g.tensors[p.inputs[1]].is_constant) {
      return false;
    }
    const ir::Tensor& axes = g.tensors[p.inputs[1]];
    if (axes.dtype != ir::DType::kInt32 || axes.data.size() != 8) return false;
    const int32_t* ax = axes.i32();
    const int a0 = ax[0] < 0 ? ax[0] + 4 : ax[0], a1 = ax[1] < 0 ? ax[1] + 4 : ax[1];
    const ir::Shape& os = g.tensors[p.outputs[0]].shape;
    return std::min(a0, a1) == 1 && std::max(a0, a1) == 2 &&
           (os == ir::Shape{1, 1, 1, ys[3]} || os == ir::Shape{1, ys[3]});
  }
  const auto& o = p.opts<ir::Pool2DOptions>();
  return o.padding == ir::Padding::kValid && o.filter_h == ys[1] && o.filter_w == ys[2] &&
         o.activation != ir::Activation::kTanh &&
         g.tensors[p.outputs[0]].shape == ir::Shape{1, 1, 1, ys[3]};
}

// The clamp after a global mean's sums (IsGlobalMeanOf): the pool's
// activation, or none for a MEAN (translate.cc runs it unclamped).
void GlobalMeanClamp(const ir::Op& p, float* lo, float* hi) {
  if (p.type == ir::OpType::kMean) {
    *lo = -std::numeric_limits<float>::infinity();
    *hi = std::numeric_limits<float>::infinity();
  } else {
    ir::ActivationRange(p.opts<ir::Pool2DOptions>().activation, lo, hi);
  }
}

// ADD (op `add`) of two non-constant [1, H, W, C] float tensors whose sum
// only a global AVERAGE_POOL_2D (op `pool`: VALID, the whole image) or a
// MEAN over H and W reads: one pass of add_mean.h. The caller checks the sum
// has no other reader.
bool OwnAddMeanShape(const GraphInfo& info, int add, int pool, AddMeanShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& a = g.ops[add];
  const ir::Op& p = g.ops[pool];
  const bool mean_op = p.type == ir::OpType::kMean && AddMeanSplit();
  if (a.type != ir::OpType::kAdd || (p.type != ir::OpType::kAveragePool2D && !mean_op) ||
      a.inputs.size() != 2 || a.outputs.size() != 1 || p.inputs.empty() ||
      p.outputs.size() != 1 || p.inputs[0] != a.outputs[0] ||
      a.opts<ir::BinaryOptions>().activation == ir::Activation::kTanh) {
    return false;
  }
  const ir::Tensor& y = g.tensors[a.outputs[0]];
  const ir::Shape& ys = y.shape;
  if (ys.size() != 4 || ys[0] != 1 || y.dtype != ir::DType::kFloat32) return false;
  for (int t : a.inputs) {
    if (t < 0 || info.IsConstant(t) || g.tensors[t].shape != ys ||
        g.tensors[t].dtype != ir::DType::kFloat32) {
      return false;
    }
  }
  if (!IsGlobalMeanOf(g, p, ys, mean_op)) return false;
  AddMeanShape s;
  s.pixels = ys[1] * ys[2], s.channels = ys[3];
  if (!AddMean::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// A global mean (IsGlobalMeanOf) of a non-constant [1, H, W, C] float tensor
// alone: add_mean.h with no ADD (SLUICE_XNNPACK_SPLIT_MEAN).
bool OwnGlobalMeanShape(const GraphInfo& info, int pool, AddMeanShape* shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& p = g.ops[pool];
  const bool mean_op = p.type == ir::OpType::kMean;
  if ((p.type != ir::OpType::kAveragePool2D && !mean_op) || p.inputs.empty() || p.inputs[0] < 0 ||
      p.outputs.size() != 1 || info.IsConstant(p.inputs[0])) {
    return false;
  }
  const ir::Tensor& x = g.tensors[p.inputs[0]];
  if (x.shape.size() != 4 || x.shape[0] != 1 || x.dtype != ir::DType::kFloat32 ||
      !IsGlobalMeanOf(g, p, x.shape, mean_op)) {
    return false;
  }
  AddMeanShape s;
  s.pixels = x.shape[1] * x.shape[2], s.channels = x.shape[3];
  if (!AddMean::Supports(s)) return false;
  if (shape) *shape = s;
  return true;
}

// For a PAD of a 4-D float tensor that only appends zeros after the channels:
// how many; else 0.
int ChannelPadAfter(const ir::Graph& g, int op_index) {
  const ir::Op& op = g.ops[op_index];
  if (op.inputs.size() != 2 || op.inputs[0] < 0 || op.inputs[1] < 0) return 0;
  const ir::Tensor& in = g.tensors[op.inputs[0]];
  const ir::Tensor& p = g.tensors[op.inputs[1]];
  if (in.shape.size() != 4 || in.dtype != ir::DType::kFloat32 || !p.is_constant ||
      p.dtype != ir::DType::kInt32 || p.data.size() != 32) {
    return 0;
  }
  const int32_t* v = p.i32();
  for (int i = 0; i < 7; ++i) {
    if (v[i] != 0) return 0;
  }
  return v[7] > 0 ? v[7] : 0;
}

// Debian's libpthreadpool is not built with ThreadSanitizer, so TSan cannot
// see the ordering its dispatch guarantees (the caller's writes happen before
// every task; every task's writes happen before parallelize returns). The own
// kernels below run instrumented inside that pool, so the ordering is stated
// with TSan's annotations on the task object (no-ops in other builds).
#if defined(__SANITIZE_THREAD__)
#define SLUICE_XNN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLUICE_XNN_TSAN 1
#endif
#endif
#if SLUICE_XNN_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
void PoolHandOff(const void* task) { __tsan_release(const_cast<void*>(task)); }
void PoolTakeOver(const void* task) { __tsan_acquire(const_cast<void*>(task)); }
#else
void PoolHandOff(const void*) {}
void PoolTakeOver(const void*) {}
#endif

// The depthwise, upsample and depthwise-1x1 block kernels (depthwise_conv.h,
// upsample_conv.h, dw_pw_block.h) run row by row in one phase.
template <typename Conv>
struct RowTask {
  const Conv* conv;
  const float* in;
  float* out;
  int per = 1;  // rows per item
  int rows = 0;
};
template <typename Conv>
void RunRow(void* context, size_t item) {
  const auto* t = static_cast<const RowTask<Conv>*>(context);
  PoolTakeOver(t);
  const int r0 = static_cast<int>(item) * t->per;
  t->conv->Run(t->in, t->out, r0, std::min(t->rows, r0 + t->per));
  PoolHandOff(t);
}

// The narrow and stem kernels (narrow_conv.h, stem_conv.h) run in two
// row-parallel phases: Stage copies the input into the kernel's own layout,
// Compute writes the output rows from it.
template <typename Conv>
struct StagedTask {
  const Conv* conv;
  const float* in;
  float* out;
  int rows = 1;  // output rows a Compute task covers (StemConv::compute_rows)
};
template <typename Conv>
void RunStageRow(void* context, size_t row) {
  const auto* t = static_cast<const StagedTask<Conv>*>(context);
  PoolTakeOver(t);
  t->conv->Stage(t->in, static_cast<int>(row), static_cast<int>(row) + 1);
  PoolHandOff(t);
}
template <typename Conv>
void RunComputeRow(void* context, size_t row) {
  const auto* t = static_cast<const StagedTask<Conv>*>(context);
  PoolTakeOver(t);
  const int begin = static_cast<int>(row) * t->rows;
  t->conv->Compute(t->out, begin, std::min(begin + t->rows, t->conv->shape().out_h));
  PoolHandOff(t);
}

struct PointwiseTask {
  const PointwiseConv* conv;
  const float* in;
  const float* residual;
  float* out;
  size_t rows;
  size_t chunk_rows = PointwiseConv::kTileRows;  // rows per task, whole tiles
  size_t chunks = 0;                             // ceil(rows / chunk_rows)
};
// With threads: one task per chunk of rows and 32-channel block, as XNNPACK
// splits its GEMMs (rows alone leave threads idle on 7x7 layers).
void RunPointwiseTask(void* context, size_t chunk, size_t block) {
  const auto* t = static_cast<const PointwiseTask*>(context);
  PoolTakeOver(t);
  const size_t begin = chunk * t->chunk_rows;
  t->conv->Run(t->in, t->residual, t->out, begin, std::min(t->rows, begin + t->chunk_rows),
               block, block + 1);
  PoolHandOff(t);
}
// The same task with the grid transposed (block-major), for convolutions
// whose weights are walked blocks-outer (PointwiseConv::BlocksOuter): a
// thread's contiguous claim then covers few weight blocks.
void RunPointwiseTaskByBlock(void* context, size_t block, size_t chunk) {
  RunPointwiseTask(context, chunk, block);
}
// A plain 1x1 with its HARD_SWISH (OwnChain::act): each task's rows and
// block, then the activation on them while they are in L1.
void RunPointwiseHardSwishTask(void* context, size_t chunk, size_t block) {
  const auto* t = static_cast<const PointwiseTask*>(context);
  PoolTakeOver(t);
  const size_t begin = chunk * t->chunk_rows, end = std::min(t->rows, begin + t->chunk_rows);
  t->conv->Run(t->in, nullptr, t->out, begin, end, block, block + 1);
  const size_t n = static_cast<size_t>(t->conv->n()), c0 = block * PointwiseConv::kBlockChannels;
  HardSwishInPlace(t->out + begin * n + c0, end - begin, n,
                   std::min<size_t>(n - c0, PointwiseConv::kBlockChannels));
  PoolHandOff(t);
}
void RunPointwiseHardSwishTaskByBlock(void* context, size_t block, size_t chunk) {
  RunPointwiseHardSwishTask(context, chunk, block);
}
// Rows [begin, end) of all blocks, 8 tiles at a time, each run's rows then
// the activation while in L1.
void PointwiseHardSwishRows(const PointwiseTask& t, size_t begin, size_t end) {
  const size_t n = static_cast<size_t>(t.conv->n());
  constexpr size_t kRows = 8 * PointwiseConv::kTileRows;
  for (size_t r = begin; r < end; r += kRows) {
    const size_t e = std::min(end, r + kRows);
    t.conv->Run(t.in, nullptr, t.out, r, e);
    HardSwishInPlace(t.out + r * n, (e - r) * n);
  }
}
void RunPointwiseHardSwishRows(void* context, size_t chunk) {
  const auto* t = static_cast<const PointwiseTask*>(context);
  PoolTakeOver(t);
  const size_t begin = chunk * t->chunk_rows;
  PointwiseHardSwishRows(*t, begin, std::min(t->rows, begin + t->chunk_rows));
  PoolHandOff(t);
}
// With threads, the 1x1 + HARD_SWISH (small images: the selfie models' 9x16
// to 32x32 expand layers) as a few row ranges a thread, all channel blocks
// each, instead of the plain 1x1's chunk x block grid (~40 tasks of 0.1-0.2
// us there, each restarting a tile: 0.009 -> 0.006 ms per layer at 9x16).
// SLUICE_XNNPACK_HSWISH_ROWS: ranges a thread (default 2; 0: the grid).
reference::Kernel PointwiseHardSwishKernel(std::shared_ptr<const PointwiseConv> conv,
                                           std::shared_ptr<PointwiseTask> task,
                                           pthreadpool_t pool) {
  const char* re = std::getenv("SLUICE_XNNPACK_HSWISH_ROWS");
  const size_t per_thread = re && *re ? static_cast<size_t>(std::strtoull(re, nullptr, 10)) : 2;
  if (pool && per_thread > 0 && !conv->BlocksOuter()) {
    constexpr size_t kTile = PointwiseConv::kTileRows;
    const size_t tiles = (task->rows + kTile - 1) / kTile;
    const size_t ranges = per_thread * pthreadpool_get_threads_count(pool);
    auto rows = std::make_shared<PointwiseTask>(*task);
    rows->chunk_rows = std::max<size_t>(1, (tiles + ranges - 1) / ranges) * kTile;
    rows->chunks = (task->rows + rows->chunk_rows - 1) / rows->chunk_rows;
    return reference::Kernel([conv, rows, pool] {
      PoolHandOff(rows.get());
      pthreadpool_parallelize_1d(pool, RunPointwiseHardSwishRows, rows.get(), rows->chunks, 0);
      PoolTakeOver(rows.get());
    });
  }
  return reference::Kernel([conv, task, pool] {
    if (pool) {
      PoolHandOff(task.get());
      if (conv->BlocksOuter()) {
        pthreadpool_parallelize_2d(pool, RunPointwiseHardSwishTaskByBlock, task.get(),
                                   conv->blocks(), task->chunks, 0);
      } else {
        pthreadpool_parallelize_2d(pool, RunPointwiseHardSwishTask, task.get(), task->chunks,
                                   conv->blocks(), 0);
      }
      PoolTakeOver(task.get());
      return;
    }
    PointwiseHardSwishRows(*task, 0, task->rows);  // one thread
  });
}
// With threads, a plain multi-block 1x1 on a small image (the selfie
// models' 18x32 / 36x64 expands, 9x16 projections) as a few row ranges a
// thread, all channel blocks each, as PointwiseHardSwishKernel does: with
// K <= 32 the chunk x block grid there is ~100 sub-microsecond tasks (the
// squeeze-excite 1x1s at one pixel: 3-4 tasks of one row). Larger K or
// images keep the grid (other models' layers, not measured faster).
// SLUICE_XNNPACK_PW_ROWS: ranges a thread (default 2; 0: the grid);
// SLUICE_XNNPACK_PW_ROWS_MACS: only at most this many multiply-adds
// (default 5 Mi: selfie's 64x64 16 -> 72, not pose_landmark's 64x64 layers,
// neutral to slower). Read per compile (the tests flip them).
void RunPointwiseRows(void* context, size_t chunk) {
  const auto* t = static_cast<const PointwiseTask*>(context);
  PoolTakeOver(t);
  const size_t begin = chunk * t->chunk_rows;
  t->conv->Run(t->in, t->residual, t->out, begin, std::min(t->rows, begin + t->chunk_rows));
  PoolHandOff(t);
}
std::shared_ptr<PointwiseTask> PointwiseRowRanges(const PointwiseConv& conv,
                                                  const PointwiseTask& task, size_t threads) {
  const char* re = std::getenv("SLUICE_XNNPACK_PW_ROWS");
  const size_t per_thread = re && *re ? static_cast<size_t>(std::strtoull(re, nullptr, 10)) : 2;
  const char* me = std::getenv("SLUICE_XNNPACK_PW_ROWS_MACS");
  const size_t most_macs =
      me && *me ? static_cast<size_t>(std::strtoull(me, nullptr, 10)) : size_t{5 << 20};
  const size_t macs = task.rows * static_cast<size_t>(conv.k()) * static_cast<size_t>(conv.n());
  if (per_thread == 0 || threads < 2 || conv.blocks() < 2 || conv.BlocksOuter() ||
      conv.k() > 32 || macs > most_macs) {
    return nullptr;
  }
  constexpr size_t kTile = PointwiseConv::kTileRows;
  const size_t tiles = (task.rows + kTile - 1) / kTile, ranges = per_thread * threads;
  auto rows = std::make_shared<PointwiseTask>(task);
  rows->chunk_rows = std::max<size_t>(1, (tiles + ranges - 1) / ranges) * kTile;
  rows->chunks = (task.rows + rows->chunk_rows - 1) / rows->chunk_rows;
  return rows;
}
// Rows per task: one 7-row tile of a 32-channel block is only 7 * 32 * K
// multiply-adds (~100 cycles for K = 16), comparable to pthreadpool's cost
// per task, so with a small K a task takes several tiles, enough for
// MinTaskMacs(), while every thread still gets >= kMinTasksPerThread tasks
// (work stealing balances the rest).
// SLUICE_XNNPACK_TASK_MACS overrides the 32 Ki default (0: one tile per task, as
// before; for A/B timings).
size_t MinTaskMacs() {
  static const size_t v = [] {
    const char* e = std::getenv("SLUICE_XNNPACK_TASK_MACS");
    return e && *e ? static_cast<size_t>(std::strtoull(e, nullptr, 10)) : size_t{32 * 1024};
  }();
  return v;
}
constexpr size_t kMinTasksPerThread = 16;
// Bands per thread for the streamed pairs: more balance the work, fewer
// recompute fewer halo rows (the kernel's kBandsPerThread, measured:
// ExpandDepthwise 1, DepthwisePointwise 2); SLUICE_XNNPACK_STREAM_BANDS
// overrides both (for A/B).
int StreamBandsPerThread(int preferred) {
  static const int v = [] {
    const char* e = std::getenv("SLUICE_XNNPACK_STREAM_BANDS");
    return e && *e ? std::max(1, std::atoi(e)) : 0;
  }();
  return v > 0 ? v : preferred;
}
size_t PointwiseChunkRows(size_t rows, size_t k, size_t blocks, size_t threads) {
  constexpr size_t kTile = PointwiseConv::kTileRows;
  const size_t tiles = (rows + kTile - 1) / kTile;
  const size_t tile_macs = kTile * PointwiseConv::kBlockChannels * std::max<size_t>(k, 1);
  size_t per = (MinTaskMacs() + tile_macs - 1) / tile_macs;
  const size_t most = tiles * blocks / (kMinTasksPerThread * std::max<size_t>(threads, 1));
  per = std::max<size_t>(1, std::min(per, most));
  // One 32-channel block (N <= 32, the narrow tiles' 24 channels): the
  // rule above gives 16 tasks of ~2 tiles a thread (~0.5 us each), which
  // cost more in claims, staging and the other core's cache than they
  // balance; a few long row runs a thread instead.
  // SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS: tasks a thread then (0: the rule
  // above alone; for A/B). Tasks stay under SLUICE_XNNPACK_PW_ONE_BLOCK_MACS
  // (default 512 Ki, ~5 us) so that big images still balance. Read per
  // compile, like KernelSwitchOn (the tests flip it).
  const char* te = std::getenv("SLUICE_XNNPACK_PW_ONE_BLOCK_TASKS");
  const size_t one_block_tasks =
      te && *te ? static_cast<size_t>(std::strtoull(te, nullptr, 10)) : size_t{4};
  const char* me = std::getenv("SLUICE_XNNPACK_PW_ONE_BLOCK_MACS");
  const size_t one_block_macs =
      me && *me ? static_cast<size_t>(std::strtoull(me, nullptr, 10)) : size_t{512 * 1024};
  if (blocks == 1 && one_block_tasks > 0) {
    const size_t want = tiles / (one_block_tasks * std::max<size_t>(threads, 1));
    per = std::max(per, std::min(want, one_block_macs / tile_macs));
  }
  return per * kTile;
}

// Streamed pairs (stream_conv.h): bands of output rows, each with its own
// scratch (ring or row buffer), about two bands per thread.
bool PairByBlock(const ir::Shape& mid, int n);  // (below, with its kernel)

template <typename Conv>
struct BandTask {
  const Conv* conv;
  const float* in;
  const float* residual;
  float* out;
  // OwnChain::pool on a band kernel: each band pools the output rows it has
  // just written (pool rows whose two input rows are both in the band).
  std::shared_ptr<const MaxPool2x2> pool;
  float* pool_out = nullptr;
  int rows = 0, bands = 1;
  size_t scratch_floats = 0;  // per band, whole cache lines
  HugeFloats storage;  // scratch, on huge pages like the weights
  float* scratch = nullptr;  // 64-byte aligned in storage
};
template <typename Conv>
void RunBand(void* context, size_t band) {
  const auto* t = static_cast<const BandTask<Conv>*>(context);
  PoolTakeOver(t);
  const int b = static_cast<int>(band);
  const int r0 = b * t->rows / t->bands, r1 = (b + 1) * t->rows / t->bands;
  t->conv->Run(t->in, t->residual, t->out, r0, r1, t->scratch + band * t->scratch_floats);
  if (t->pool) t->pool->Run(t->out, t->pool_out, (r0 + 1) / 2, r1 / 2);
  PoolHandOff(t);
}

// One step of the execution plan: an XNNPACK runtime or an island kernel.
struct Step {
  xnn_runtime_t runtime = nullptr;
  reference::Kernel kernel;
  int first_op = -1;     // for profiling
  std::vector<int> ops;  // every op it runs, first_op first (for profiling)
};

class XnnpackModel : public CompiledModel {
 public:
  ~XnnpackModel() override {
    for (Step& s : steps_) {
      if (s.runtime) xnn_delete_runtime(s.runtime);
    }
    if (pool_) pthreadpool_destroy(pool_);
  }

  absl::Status Invoke() override {
    if (profile_) return InvokeProfiled();
    const size_t serial = branches_ ? branch_first_step_ : steps_.size();
    for (size_t i = 0; i < serial; ++i) {
      RETURN_IF_ERROR(RunStep(i));
    }
    if (branches_) return RunBranches();
    return absl::OkStatus();
  }
  std::vector<OpTime> OpTimes() const override { return op_times_; }
  std::string_view BackendName() const override { return kName; }
  std::vector<std::string> OpPlacement() const override { return placement_; }

  // `demoted`: ops to run on the reference kernels although the visitor
  // accepts them. When XNNPACK refuses to define an op, `*failed_op` names it.
  absl::Status Build(const ir::Graph& graph, const BackendOptions& options,
                     const std::set<int>& demoted, int* failed_op);

 private:
  // kOwn: our own kernel (pointwise_conv.h); it cuts segments like an island.
  enum class Kind { kFolded, kXnn, kIsland, kOwn };
  absl::StatusOr<reference::Kernel> PrepareOwnKernel(const GraphInfo& info, const OwnChain& c);
  // Streamed pairs (stream_conv.h) with Run(in, residual, out, r0, r1, scratch).
  template <typename Conv>
  absl::StatusOr<reference::Kernel> PrepareBandKernel(const ir::Graph& g, const OwnChain& c,
                                                      std::shared_ptr<const Conv> conv);
  // Kernels with Run(in, out, row_begin, row_end) over `rows` rows.
  template <typename Conv>
  // `rows_per_item`: rows a parallel item runs (default one).
  absl::StatusOr<reference::Kernel> PrepareRowKernel(const ir::Graph& g, const OwnChain& c,
                                                     std::shared_ptr<const Conv> conv, int rows,
                                                     int rows_per_item = 1);
  // A 1x1 conv whose input is computed on the fly: a gated residual or a
  // bilinear resize.
  // A 1x1 conv's input computed on the fly (OwnChain::gate_mul, ::resize).
  absl::StatusOr<std::unique_ptr<const class PixelSource>> MakePixelSource(const GraphInfo& info,
                                                                           const OwnChain& c);
  absl::StatusOr<reference::Kernel> PrepareStagedPointwise(
      const GraphInfo& info, const OwnChain& c, std::shared_ptr<const PointwiseConv> conv,
      std::shared_ptr<const PointwiseTask> task);
  absl::Status SetStagedMean(const GraphInfo& info, const OwnChain& c,
                             struct StagedPointwiseTask* t);
  // add_mean.h's kernel `k` on c.in and `b` (null: the mean of c.in alone)
  // into c.out: with threads and few channel groups split by pixels (Partial,
  // then Finish per group), else by channel groups.
  absl::StatusOr<reference::Kernel> PrepareAddMean(const ir::Graph& g, const OwnChain& c,
                                                   const AddMean& k, const float* b);
  // (OwnChain::pre) `up` with the upsample, else `dw` with its ADD epilogue.
  absl::StatusOr<reference::Kernel> PrepareStagedDepthwise(
      const GraphInfo& info, const OwnChain& c, std::shared_ptr<const DepthwiseAddUpsample> up,
      std::shared_ptr<const DepthwiseConv> dw);
  template <typename Conv, typename Shape>
  absl::StatusOr<reference::Kernel> PrepareStagedKernel(const GraphInfo& info, const OwnChain& c,
                                                        const Shape& shape);
  absl::Status BuildSegment(const GraphInfo& info, const std::vector<int>& ops,
                            const std::vector<std::vector<int>>& consumers,
                            const std::vector<Kind>& kind, int* failed_op);
  absl::Status RunStep(size_t i) {
    Step& s = steps_[i];
    if (s.runtime) {
      const xnn_status st = xnn_invoke_runtime(s.runtime);
      if (st != xnn_status_success) {
        return absl::InternalError(
            absl::StrCat("xnn_invoke_runtime (step ", i, ") failed: ", XnnStatusName(st)));
      }
    } else {
      s.kernel();
    }
    return absl::OkStatus();
  }
  absl::Status InvokeProfiled() {
    op_times_.resize(steps_.size());
    for (size_t i = 0; i < steps_.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      RETURN_IF_ERROR(RunStep(i));
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      OpTime& t = op_times_[i];
      t.op = steps_[i].first_op;
      if (t.ops.empty()) t.ops = steps_[i].ops.empty() ? std::vector<int>{t.op} : steps_[i].ops;
      t.min_ms = t.runs == 0 ? ms : std::min(t.min_ms, ms);
      t.total_ms += ms;
      ++t.runs;
    }
    return absl::OkStatus();
  }
  void* TensorAddress(int t) const {
    auto it = buffers_.find(t);
    return it == buffers_.end() ? nullptr : it->second;
  }
  // The steps from branch_first_step_ on, side by side (branch_schedule.h).
  absl::Status RunBranches() {
    branch_error_ = absl::OkStatus();
    auto run = [](void* self, size_t k) {
      auto* m = static_cast<XnnpackModel*>(self);
      const absl::Status s = m->RunStep(m->branch_first_step_ + k);
      if (s.ok()) return true;
      std::lock_guard<std::mutex> lock(m->branch_error_mutex_);
      if (m->branch_error_.ok()) m->branch_error_ = s;
      return false;
    };
    if (!branches_->Run(pool_, run, this)) {
      return branch_error_.ok() ? absl::InternalError("a branch step failed") : branch_error_;
    }
    return absl::OkStatus();
  }

  pthreadpool_t pool_ = nullptr;
  std::deque<std::vector<float>> weights_;  // static XNNPACK values
  // Tensors crossing a cut: in one arena planned by liveness (planner.h), so
  // that the cuts' memory is reused while hot in cache; folded constants apart.
  std::map<int, void*> buffers_;
  Buffer arena_;
  std::vector<Buffer> owned_;
  std::vector<Step> steps_;
  std::vector<std::string> placement_;
  std::set<int> graph_outputs_;
  bool profile_ = false;
  std::vector<OpTime> op_times_;
  std::unique_ptr<BranchSchedule> branches_;
  size_t branch_first_step_ = 0;
  std::mutex branch_error_mutex_;
  absl::Status branch_error_;
};

absl::Status XnnpackModel::Build(const ir::Graph& graph, const BackendOptions& options,
                                 const std::set<int>& demoted, int* failed_op) {
  if (options.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_threads must be >= 1, got ", options.num_threads));
  }
  RETURN_IF_ERROR(InitializeXnnpack());
  RETURN_IF_ERROR(graph.Validate());
  profile_ = options.profile_ops;
  if (options.num_threads > 1) {
    pool_ = CreateXnnpackThreadPool(options.num_threads);
    if (!pool_) return absl::ResourceExhaustedError("creating the thread pool failed");
  }
  const GraphInfo info(graph);
  const int num_ops = static_cast<int>(graph.ops.size());
  const int num_tensors = static_cast<int>(graph.tensors.size());

  // Pass 1: which ops XNNPACK takes.
  std::vector<Kind> kind(num_ops);
  placement_.assign(num_ops, kName);
  for (int i = 0; i < num_ops; ++i) {
    if (info.IsFoldedOp(graph.ops[i])) {
      kind[i] = Kind::kFolded;
    } else if (!demoted.count(i) && VisitOp(info, i, nullptr).ok()) {
      kind[i] =
          OwnGemmEnabled() && (IsOwnPointwiseConv(info, i) || OwnDepthwiseShape(info, i, nullptr) ||
                               OwnNarrowConvShape(info, i, nullptr) ||
                               OwnStemConvShape(info, i, nullptr) ||
                               OwnUpsampleConvShape(info, i, nullptr) ||
                               OwnGemvShape(info, i, nullptr, nullptr))
              ? Kind::kOwn
              : Kind::kXnn;
    } else {
      kind[i] = Kind::kIsland;
      placement_[i] = "reference";
    }
  }
  std::vector<std::vector<int>> consumers(num_tensors);
  for (int i = 0; i < num_ops; ++i) {
    for (int t : graph.ops[i].inputs) {
      if (t >= 0) consumers[t].push_back(i);
    }
  }
  graph_outputs_.insert(graph.outputs.begin(), graph.outputs.end());

  // Our 1x1 convolutions absorb an ADD of a same-shape residual and a PRELU
  // after them when they are the sole consumers (see pointwise_conv.h).
  std::map<int, OwnChain> chains;  // by the index of the op they run at
  auto sole_consumer = [&](int t) {
    return t >= 0 && !graph_outputs_.count(t) && consumers[t].size() == 1 ? consumers[t][0] : -1;
  };
  std::vector<int> own_convs;
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] == Kind::kOwn) own_convs.push_back(i);
  }
  // DEPTHWISE 3x3 -> CONV 1x1 -> ADD(x, .) blocks on narrow tensors: one
  // kernel, run at the ADD (dw_pw_block.h); the matchers below skip them.
  std::set<int> in_blocks;
  if (OwnGemmEnabled() && KernelSwitchOn("SLUICE_XNNPACK_DWPW")) {
    auto ours = [&](int i) { return i >= 0 && (kind[i] == Kind::kXnn || kind[i] == Kind::kOwn); };
    for (int i = 0; i < num_ops; ++i) {
      if (graph.ops[i].type != ir::OpType::kDepthwiseConv2D || !ours(i) || in_blocks.count(i)) {
        continue;
      }
      const int pw = sole_consumer(graph.ops[i].outputs[0]);
      if (!ours(pw) || in_blocks.count(pw) || graph.ops[pw].type != ir::OpType::kConv2D) continue;
      const int add = sole_consumer(graph.ops[pw].outputs[0]);
      if (!ours(add) || in_blocks.count(add) || !OwnDwPwBlockShape(info, i, pw, add, nullptr)) {
        continue;
      }
      OwnChain c;
      c.conv = i, c.pw = pw, c.add = add;
      c.in = c.residual = graph.ops[i].inputs[0];
      c.out = graph.ops[add].outputs[0];
      kind[i] = kind[pw] = kind[add] = Kind::kOwn;
      in_blocks.insert({i, pw, add});
      // ... and a per-channel PRELU after the ADD (SLUICE_XNNPACK_FACE=0: not).
      const int p = sole_consumer(c.out);
      const ir::Shape& shape = graph.tensors[c.out].shape;
      if (KernelSwitchOn("SLUICE_XNNPACK_FACE") && p >= 0 && kind[p] == Kind::kXnn &&
          graph.ops[p].type == ir::OpType::kPrelu && graph.ops[p].inputs.size() == 2 &&
          graph.ops[p].inputs[0] == c.out && graph.ops[p].inputs[1] >= 0 &&
          info.IsConstant(graph.ops[p].inputs[1]) &&
          ir::NumElements(graph.tensors[graph.ops[p].inputs[1]].shape) == shape.back() &&
          graph.tensors[graph.ops[p].outputs[0]].shape == shape) {
        c.prelu = p;
        c.out = graph.ops[p].outputs[0];
        kind[p] = Kind::kOwn;
        in_blocks.insert(p);
      }
      chains[c.last()] = c;
    }
  }
  for (int i : own_convs) {
    if (in_blocks.count(i)) continue;
    OwnChain c;
    c.conv = i;
    c.in = graph.ops[i].inputs[0];
    c.out = graph.ops[i].outputs[0];
    // A spatial PAD in front, which the depthwise and stem kernels read
    // through (their matchers checked it can be absorbed).
    auto absorb_input_pad = [&] {
      const int p = info.producer(c.in);
      if (p >= 0 && graph.ops[p].type == ir::OpType::kPad) {
        c.in_pad = p;
        c.in = graph.ops[p].inputs[0];
        kind[p] = Kind::kOwn;
      }
    };
    if (graph.ops[i].type == ir::OpType::kDepthwiseConv2D) {  // absorbs its PAD
      absorb_input_pad();
      // ... and an ADD of a same-shape tensor after it (its epilogue).
      const int a = sole_consumer(c.out);
      if (FuseAddEnabled() && a >= 0 && kind[a] == Kind::kXnn) {
        const int other = SameShapeAddend(info, a, c.out);
        if (other >= 0) {
          c.add = a, c.residual = other, c.out = graph.ops[a].outputs[0];
          kind[a] = Kind::kOwn;
        }
      }
      // ... or a HARD_SWISH after it (hard_swish.h).
      if (c.add < 0 && a >= 0 && kind[a] == Kind::kXnn && HardSwishEpilogue(graph, a, c.out)) {
        c.act = a, c.out = graph.ops[a].outputs[0];
        kind[a] = Kind::kOwn;
      }
      chains[c.last()] = c;
      continue;
    }
    StemConvShape stem;
    if (OwnStemConvShape(info, i, &stem)) {  // absorbs its PAD
      absorb_input_pad();
      // ... and (its lanes variant) a HARD_SWISH or PRELU after it.
      const int a = sole_consumer(c.out);
      if (a >= 0 && kind[a] == Kind::kXnn && StemConv::UsesLanes(stem) &&
          graph.ops[a].inputs[0] == c.out &&
          graph.tensors[graph.ops[a].outputs[0]].shape == graph.tensors[c.out].shape) {
        const ir::Op& act = graph.ops[a];
        if (act.type == ir::OpType::kHardSwish) {
          c.act = a;
        } else if (act.type == ir::OpType::kPrelu && act.inputs.size() == 2 &&
                   act.inputs[1] >= 0 && info.IsConstant(act.inputs[1]) &&
                   ir::NumElements(graph.tensors[act.inputs[1]].shape) == stem.out_channels) {
          c.prelu = a;
        }
        if (c.last() == a) {
          c.out = act.outputs[0];
          kind[a] = Kind::kOwn;
        }
      }
      // ... and (the direct variant) DEPTHWISE 1x1 ops after that
      // (OwnChain::scale). SLUICE_XNNPACK_STEM_TAIL=0: not.
      const int d = sole_consumer(c.out);
      if (StemConv::TakesTail(stem) && KernelSwitchOn("SLUICE_XNNPACK_STEM_TAIL") && d >= 0 &&
          kind[d] == Kind::kXnn &&
          IsScaleDepthwise(info, d, c.out, stem.out_channels)) {
        c.scale = d, c.out = graph.ops[d].outputs[0];
        kind[d] = Kind::kOwn;
        // A PRELU of it whose output only a DEPTHWISE 1x1 reads, every other
        // reader of it after that (the chain then runs there).
        for (int p : consumers[c.out]) {
          const ir::Op& pr = graph.ops[p];
          const int d2 = sole_consumer(pr.outputs[0]);
          if (kind[p] != Kind::kXnn || pr.type != ir::OpType::kPrelu || pr.inputs.size() != 2 ||
              pr.inputs[0] != c.out || pr.inputs[1] < 0 || !info.IsConstant(pr.inputs[1]) ||
              ir::NumElements(graph.tensors[pr.inputs[1]].shape) != stem.out_channels ||
              graph.tensors[pr.outputs[0]].shape != graph.tensors[c.out].shape || d2 < 0 ||
              kind[d2] != Kind::kXnn ||
              !IsScaleDepthwise(info, d2, pr.outputs[0], stem.out_channels)) {
            continue;
          }
          bool later = true;
          for (int r : consumers[c.out]) later &= r == p || r > d2;
          if (!later) continue;
          c.prelu2 = p, c.scale2 = d2, c.out2 = graph.ops[d2].outputs[0];
          kind[p] = kind[d2] = Kind::kOwn;
          break;
        }
        // A MAX_POOL 2x2 stride 2 of it after the chain's last op (so its
        // readers are too). SLUICE_XNNPACK_STEM_POOL=0: not.
        for (int m : consumers[c.out]) {
          if (!KernelSwitchOn("SLUICE_XNNPACK_STEM_POOL") || m <= c.last() ||
              kind[m] != Kind::kXnn || graph.ops[m].type != ir::OpType::kMaxPool2D ||
              graph.ops[m].inputs[0] != c.out) {
            continue;
          }
          const auto& po = graph.ops[m].opts<ir::Pool2DOptions>();
          const ir::Shape& x = graph.tensors[c.out].shape;
          const ir::PadOut ph = ir::ComputePadding(po.padding, x[1], 2, 2, 1);
          const ir::PadOut pw = ir::ComputePadding(po.padding, x[2], 2, 2, 1);
          if (po.filter_h != 2 || po.filter_w != 2 || po.stride_h != 2 || po.stride_w != 2 ||
              po.activation == ir::Activation::kTanh || ph.pad_before != 0 ||
              pw.pad_before != 0 || ph.out != x[1] / 2 || pw.out != x[2] / 2 ||
              graph.tensors[graph.ops[m].outputs[0]].shape !=
                  ir::Shape{1, x[1] / 2, x[2] / 2, x[3]}) {
            continue;
          }
          c.pool = m, c.out3 = graph.ops[m].outputs[0];
          kind[m] = Kind::kOwn;
          break;
        }
        if (c.pool >= 0 && !graph_outputs_.count(c.out) &&
            KernelSwitchOn("SLUICE_XNNPACK_STEM_UNREAD")) {
          c.out_unread = true;
          for (int r : consumers[c.out]) c.out_unread &= r == c.prelu2 || r == c.pool;
        }
      }
      chains[c.last()] = c;
      continue;
    }
    if (OwnNarrowConvShape(info, i, nullptr) || OwnUpsampleConvShape(info, i, nullptr) ||
        OwnGemvShape(info, i, nullptr, nullptr)) {
      // These absorb nothing.
      chains[i] = c;
      continue;
    }
    // A gated residual as its input, computed on the fly (gated_add.h).
    const int ga = info.producer(c.in);
    if (FuseAddEnabled() && ga >= 0 && kind[ga] == Kind::kXnn && sole_consumer(c.in) == i &&
        graph.tensors[c.in].shape.back() <= GatedAdd::kMaxStagedChannels) {
      for (int t : graph.ops[ga].inputs) {
        const int gm = t >= 0 ? info.producer(t) : -1;
        OwnChain with = c;
        if (gm >= 0 && kind[gm] == Kind::kXnn && sole_consumer(t) == ga &&
            OwnGatedAddShape(info, gm, ga, nullptr, &with.in, &with.gate, &with.gate_b)) {
          with.gate_mul = gm, with.gate_add = ga;
          kind[gm] = kind[ga] = Kind::kOwn;
          c = with;
          break;
        }
      }
    }
    // A MUL by a per-channel gate alone as its input (the squeeze-excite
    // output of the models' early blocks), computed on the fly the same way
    // (SLUICE_XNNPACK_GATE_MUL=0: not, for A/B).
    if (FuseAddEnabled() && c.gate < 0 && ga >= 0 && kind[ga] == Kind::kXnn &&
        sole_consumer(c.in) == i &&
        graph.tensors[c.in].shape.back() <= GatedAdd::kMaxStagedChannels &&
        KernelSwitchOn("SLUICE_XNNPACK_GATE_MUL") &&
        OwnGatedAddShape(info, ga, -1, nullptr, &c.in, &c.gate, &c.gate_b)) {
      c.gate_mul = ga;
      kind[ga] = Kind::kOwn;
    }
    // A RESIZE_BILINEAR as its input, computed on the fly (resize_bilinear.h).
    if (FuseAddEnabled() && c.gate < 0 && ga >= 0 && kind[ga] == Kind::kXnn &&
        sole_consumer(c.in) == i &&
        graph.tensors[c.in].shape.back() <= GatedAdd::kMaxStagedChannels &&
        OwnResizeShape(info, ga, nullptr)) {
      c.resize = ga;
      c.in = graph.ops[ga].inputs[0];
      kind[ga] = Kind::kOwn;
    }
    const ir::Shape& shape = graph.tensors[c.out].shape;
    const int a = sole_consumer(c.out);
    if (a >= 0 && kind[a] == Kind::kXnn && graph.ops[a].type == ir::OpType::kAdd &&
        graph.ops[a].inputs.size() == 2) {
      const ir::Op& add = graph.ops[a];
      const int other = add.inputs[0] == c.out ? add.inputs[1] : add.inputs[0];
      if (other >= 0 && other != c.out && !info.IsConstant(other) &&
          graph.tensors[other].shape == shape && graph.tensors[add.outputs[0]].shape == shape) {
        c.add = a;
        c.residual = other;
        c.residual_channels = shape.back();
        c.out = add.outputs[0];
        // A residual zero-padded on channels only, after the real ones: read
        // the PAD's input and add zeros for the rest.
        const int p = info.producer(other);
        if (p >= 0 && p < a && kind[p] == Kind::kXnn && graph.ops[p].type == ir::OpType::kPad &&
            sole_consumer(other) == a && ChannelPadAfter(graph, p) > 0) {
          c.pad = p;
          c.residual = graph.ops[p].inputs[0];
          c.residual_channels = graph.tensors[c.residual].shape.back();
        }
      }
    }
    const int p = sole_consumer(c.out);
    if (p >= 0 && kind[p] == Kind::kXnn && graph.ops[p].type == ir::OpType::kPrelu &&
        graph.ops[p].inputs[0] == c.out && info.IsConstant(graph.ops[p].inputs[1]) &&
        ir::NumElements(graph.tensors[graph.ops[p].inputs[1]].shape) == shape.back() &&
        graph.tensors[graph.ops[p].outputs[0]].shape == shape) {
      c.prelu = p;
      c.out = graph.ops[p].outputs[0];
    }
    if (c.add >= 0) kind[c.add] = Kind::kOwn;
    if (c.pad >= 0) kind[c.pad] = Kind::kOwn;
    if (c.prelu >= 0) kind[c.prelu] = Kind::kOwn;
    // A HARD_SWISH after a plain 1x1 (hard_swish.h).
    if (const int h = sole_consumer(c.out);
        c.add < 0 && c.prelu < 0 && c.gate_mul < 0 && c.resize < 0 && h >= 0 &&
        kind[h] == Kind::kXnn && IsOwnPointwiseConv(info, c.conv) &&
        HardSwishEpilogue(graph, h, c.out)) {
      c.act = h, c.out = graph.ops[h].outputs[0];
      kind[h] = Kind::kOwn;
    }
    chains[c.last()] = c;
  }
  // MUL by a per-channel gate -> ADD: one pass (gated_add.h), run at the ADD.
  if (OwnGemmEnabled() && FuseAddEnabled()) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || graph.ops[i].type != ir::OpType::kMul) continue;
      const int a = sole_consumer(graph.ops[i].outputs[0]);
      OwnChain c;
      if (a < 0 || kind[a] != Kind::kXnn ||
          !OwnGatedAddShape(info, i, a, nullptr, &c.in, &c.gate, &c.gate_b)) {
        continue;
      }
      c.conv = i, c.gate_add = a, c.out = graph.ops[a].outputs[0];
      kind[i] = kind[a] = Kind::kOwn;
      chains[a] = c;
    }
    // ADD -> global AVERAGE_POOL_2D: one pass (add_mean.h), run at the pool.
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || graph.ops[i].type != ir::OpType::kAdd) continue;
      const int p = sole_consumer(graph.ops[i].outputs[0]);
      if (p < 0 || kind[p] != Kind::kXnn || !OwnAddMeanShape(info, i, p, nullptr)) continue;
      OwnChain c;
      c.conv = i, c.mean = p;
      c.in = graph.ops[i].inputs[0], c.residual = graph.ops[i].inputs[1];
      c.out = graph.ops[p].outputs[0];
      kind[i] = kind[p] = Kind::kOwn;
      chains[p] = c;
    }
  }
  // With threads, a global mean alone of at least two chunks of pixels (the
  // selfie models' first squeeze-excite mean, 64x64 / 36x64 x16): its pixels
  // split across threads (Partial, then Finish), each reading mostly the rows
  // it wrote; XNNPACK's pooling runs it as one item, on the caller, half of
  // the tensor coming from the other core's cache. SLUICE_XNNPACK_SPLIT_MEAN=0:
  // not.
  if (OwnGemmEnabled() && pool_ != nullptr && KernelSwitchOn("SLUICE_XNNPACK_SPLIT_MEAN")) {
    for (int i = 0; i < num_ops; ++i) {
      AddMeanShape shape;
      if (kind[i] != Kind::kXnn || !OwnGlobalMeanShape(info, i, &shape) ||
          (shape.pixels + 6) / 7 < 2 * kAddMeanChunkBlocks) {
        continue;  // (the 16x16 squeeze-excite means: measured no faster split)
      }
      OwnChain c;
      c.conv = i, c.global_mean = true;
      c.in = graph.ops[i].inputs[0], c.out = graph.ops[i].outputs[0];
      kind[i] = Kind::kOwn;
      chains[i] = c;
    }
  }
  // With threads, an ADD -> global mean above whose addend comes from a
  // staged 1x1 (the selfie decoders: RESIZE -> 1x1, + skip, -> squeeze-
  // excite mean): the mean's 7-pixel block sums (AddMean::Partial) are taken
  // in the 1x1's tasks from the rows they just wrote (in L1, on the core that
  // wrote them), the caller then runs Finish's chain; one parallel call fewer
  // and no re-read of the 1x1's output. (One thread: measured no faster, the
  // skip's read from L3 dominates; kept as two steps.)
  // SLUICE_XNNPACK_STAGED_MEAN=0: not (for A/B).
  // SLUICE_XNNPACK_STAGED_MEAN_1T=1: also on one thread (the chain then runs
  // as the rows arrive, MeanChain; for A/B).
  const bool staged_mean_1t = KernelSwitchSet("SLUICE_XNNPACK_STAGED_MEAN_1T") &&
                              KernelSwitchOn("SLUICE_XNNPACK_MEAN_CHAIN");
  if (OwnGemmEnabled() && FuseAddEnabled() && (pool_ != nullptr || staged_mean_1t) &&
      KernelSwitchOn("SLUICE_XNNPACK_STAGED_MEAN")) {
    std::vector<int> means;
    for (const auto& [at, c] : chains) {
      if (c.mean >= 0 && at == c.mean) means.push_back(at);
    }
    for (int at : means) {
      const OwnChain m = chains[at];
      for (const int y : {m.in, m.residual}) {
        const int p = info.producer(y);
        const int b = y == m.in ? m.residual : m.in;
        const int pb = info.producer(b);
        auto it = chains.find(p);
        if (p < 0 || it == chains.end() || pb >= p || (pb >= 0 && kind[pb] == Kind::kOwn &&
                                                       !chains.count(pb))) {
          continue;  // (b must be written before the 1x1 runs)
        }
        OwnChain& s = it->second;
        if (s.conv != p || (s.resize < 0 && s.gate_mul < 0) || s.add >= 0 || s.prelu >= 0 ||
            s.act >= 0 || s.mean_add >= 0 || s.out != y || !IsOwnPointwiseConv(info, p)) {
          continue;
        }
        s.mean_add = m.conv, s.mean_pool = m.mean, s.mean_b = b, s.mean_out = m.out;
        chains.erase(at);
        break;
      }
    }
  }

  // A large ADD of two same-shape tensors left to XNNPACK (which runs it as
  // one item): on our row-split kernel when there are threads.
  if (OwnGemmEnabled() && pool_ != nullptr && PlainAddSplit()) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || !OwnPlainAddShape(info, i, nullptr)) continue;
      OwnChain c;
      c.conv = i, c.plain_add = true;
      c.in = graph.ops[i].inputs[0], c.residual = graph.ops[i].inputs[1];
      c.out = graph.ops[i].outputs[0];
      kind[i] = Kind::kOwn;
      chains[i] = c;
    }
  }

  // A MAX_POOL_2D 2x2 nothing absorbed (max_pool.h).
  if (OwnGemmEnabled()) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || !OwnMaxPoolShape(info, i, nullptr)) continue;
      OwnChain c;
      c.conv = i, c.max_pool = true;
      c.in = graph.ops[i].inputs[0], c.out = graph.ops[i].outputs[0];
      kind[i] = Kind::kOwn;
      chains[i] = c;
    }
  }

  // A RESIZE_BILINEAR no 1x1 absorbed (above) on its own: our kernel
  // (resize_bilinear.h, XNNPACK's arithmetic) row by row, split across
  // threads. SLUICE_XNNPACK_RESIZE=0 leaves it to XNNPACK.
  if (OwnGemmEnabled() && KernelSwitchOn("SLUICE_XNNPACK_RESIZE")) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || !OwnResizeShape(info, i, nullptr)) continue;
      OwnChain c;
      c.conv = i;
      c.in = graph.ops[i].inputs[0];
      c.out = graph.ops[i].outputs[0];
      kind[i] = Kind::kOwn;
      // ... with the same-shape ADD after it (left to XNNPACK, or the
      // row-split ADD above) as its epilogue, row by row while in L1
      // (pose_landmark's 64 -> 128 x8 upsample + skip: 0.032 + 0.036 ms).
      // SLUICE_XNNPACK_RESIZE_ADD=0 keeps the two steps.
      const int a = sole_consumer(c.out);
      auto pa = chains.find(a);
      const bool plain = pa != chains.end() && pa->second.plain_add && pa->second.conv == a;
      if (a >= 0 && (kind[a] == Kind::kXnn || plain) &&
          KernelSwitchOn("SLUICE_XNNPACK_RESIZE_ADD") &&
          OwnResizeAddShape(info, a, c.out, nullptr)) {
        c.add = a;
        c.residual = SameShapeAddend(info, a, c.out);
        c.out = graph.ops[a].outputs[0];
        kind[a] = Kind::kOwn;
        if (plain) chains.erase(pa);
      }
      chains[c.last()] = c;
    }
  }

  // A 2x2 stride-2 CONV_2D left to XNNPACK on our kernel (conv2x2.h), with
  // the PRELU -> DEPTHWISE 1x1 pair below as its epilogue when only that
  // PRELU reads it (hand_recrop); before that pair's own matcher.
  if (OwnGemmEnabled()) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || !OwnConv2x2Shape(info, i, nullptr)) continue;
      OwnChain c;
      c.conv = i, c.conv2x2 = true;
      c.in = graph.ops[i].inputs[0], c.out = graph.ops[i].outputs[0];
      kind[i] = Kind::kOwn;
      // ... the PRELU -> DEPTHWISE 1x1 pair in front when only it reads that
      // pair's output (SLUICE_XNNPACK_CONV2X2_IN=0: not) ...
      if (const int d = info.producer(c.in);
          d >= 0 && kind[d] == Kind::kXnn && sole_consumer(c.in) == i &&
          KernelSwitchOn("SLUICE_XNNPACK_CONV2X2_IN")) {
        const int q = info.producer(graph.ops[d].inputs[0]);
        if (q >= 0 && kind[q] == Kind::kXnn && OwnPreluScaleShape(info, q, nullptr) &&
            graph.ops[d].inputs[0] == graph.ops[q].outputs[0] &&
            sole_consumer(graph.ops[q].outputs[0]) == d) {
          c.in_prelu = q, c.in_scale = d, c.in = graph.ops[q].inputs[0];
          kind[q] = kind[d] = Kind::kOwn;
        }
      }
      const int p = sole_consumer(c.out);
      if (p >= 0 && kind[p] == Kind::kXnn && graph.ops[p].inputs[0] == c.out &&
          OwnPreluScaleShape(info, p, nullptr)) {
        const int d = sole_consumer(graph.ops[p].outputs[0]);
        if (d >= 0 && kind[d] == Kind::kXnn) {
          c.prelu = p, c.scale = d, c.out = graph.ops[d].outputs[0];
          kind[p] = kind[d] = Kind::kOwn;
        }
      }
      chains[c.last()] = c;
    }
  }

  // A PRELU whose output only a DEPTHWISE 1x1 reads, both left to XNNPACK
  // (hand_recrop's blocks after a 2x2 conv or an ADD with a second reader):
  // one pass, run at the DEPTHWISE (prelu_scale.h). conv is the PRELU, scale
  // the DEPTHWISE. SLUICE_XNNPACK_PRELU_SCALE=0 leaves them to XNNPACK.
  if (OwnGemmEnabled() && KernelSwitchOn("SLUICE_XNNPACK_PRELU_SCALE")) {
    for (int i = 0; i < num_ops; ++i) {
      if (kind[i] != Kind::kXnn || !OwnPreluScaleShape(info, i, nullptr)) continue;
      const int d = sole_consumer(graph.ops[i].outputs[0]);
      if (d < 0 || kind[d] != Kind::kXnn) continue;
      OwnChain c;
      c.conv = i, c.scale = d, c.prelu_scale = true;
      c.in = graph.ops[i].inputs[0];
      c.out = graph.ops[d].outputs[0];
      kind[i] = kind[d] = Kind::kOwn;
      chains[d] = c;
    }
  }

  // MediaPipe's TransformTensorBilinear (no XNNPACK node: an island else)
  // on our kernel (transform_bilinear.h).
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] != Kind::kIsland || !OwnTransformBilinearShape(info, i, nullptr)) continue;
    OwnChain c;
    c.conv = i;
    c.in = graph.ops[i].inputs[0];
    c.matrix = graph.ops[i].inputs[1];
    c.out = graph.ops[i].outputs[0];
    kind[i] = Kind::kOwn;
    placement_[i] = kName;
    chains[i] = c;
  }

  // Streamed pairs (stream_conv.h), SLUICE_XNNPACK_STREAM=0 for the per-op
  // kernels: a plain 1x1 whose output only a depthwise reads (through a PAD
  // it absorbs, or not) runs inside that depthwise's chain; then a depthwise
  // whose output only a 1x1 reads runs inside that 1x1's chain.
  // SLUICE_XNNPACK_STREAM=expand or =project keeps one kind (for A/B); =all
  // streams pairs of any size (for tests; see StreamExpandWins).
  const char* stream_env = std::getenv("SLUICE_XNNPACK_STREAM");
  const std::string stream = stream_env ? stream_env : "";
  if (OwnGemmEnabled() && stream != "0") {
    auto plain_pointwise = [&](int at) {  // a chain of a lone 1x1 (absorbs nothing)
      auto it = chains.find(at);
      return it != chains.end() && it->second.conv == at && it->second.pw < 0 &&
             it->second.expand < 0 && it->second.dw < 0 && it->second.gate_mul < 0 &&
             it->second.resize < 0 && IsOwnPointwiseConv(info, at);
    };
    std::vector<int> depthwise_at;
    for (const auto& [at, c] : chains) {
      // (Not one with an ADD epilogue: ExpandDepthwise has none.)
      if (c.pw < 0 && c.add < 0 && c.act < 0 &&
          graph.ops[c.conv].type == ir::OpType::kDepthwiseConv2D) {
        depthwise_at.push_back(at);
      }
    }
    if (stream == "project") depthwise_at.clear();
    for (int at : depthwise_at) {
      OwnChain& d = chains[at];
      const int e = info.producer(d.in);
      if (e < 0 || !plain_pointwise(e) ||
          sole_consumer(d.in) != (d.in_pad >= 0 ? d.in_pad : d.conv) ||
          (stream != "all" &&
           !StreamExpandWins(graph.tensors[d.in].shape,
                             graph.ops[d.conv].opts<ir::DepthwiseConv2DOptions>().stride_h))) {
        continue;
      }
      d.expand = e;
      d.in = chains[e].in;
      chains.erase(e);
    }
    std::vector<int> pointwise_at;
    for (const auto& [at, c] : chains) {
      if (c.pw < 0 && c.expand < 0 && c.act < 0 && IsOwnPointwiseConv(info, c.conv)) {
        pointwise_at.push_back(at);
      }
    }
    if (stream == "expand") pointwise_at.clear();
    for (int at : pointwise_at) {
      OwnChain& c = chains[at];
      const int x = graph.ops[c.conv].inputs[0];
      const int d = info.producer(x);
      auto dc = chains.find(d);
      if (d < 0 || dc == chains.end() || dc->second.conv != d || dc->second.pw >= 0 ||
          dc->second.expand >= 0 || graph.ops[d].type != ir::OpType::kDepthwiseConv2D ||
          sole_consumer(x) != c.conv ||
          (stream != "all" && !StreamProjectWins(graph.tensors[x].shape) &&
           !(pool_ != nullptr && StreamSmallProjectOnPool(graph.tensors[x].shape.back(),
                                                           graph.tensors[c.out].shape.back())))) {
        continue;
      }
      c.dw = d;
      c.in = dc->second.in;
      c.in_pad = dc->second.in_pad;
      chains.erase(dc);
    }
  }

  // A MAX_POOL 2x2 stride 2 of a streamed DEPTHWISE -> 1x1 (+ ADD) pair's
  // output (hand_recrop's and face_detection's residual blocks before a
  // downsampling): pooled by each band from the rows it has just written, on
  // the core that wrote them, instead of a later step that re-reads them
  // (half of them from the other core with threads). The pool's output is
  // then written where the pair runs (OwnChain::out3, planned as the stem's).
  // SLUICE_XNNPACK_BAND_POOL=0: the pool stays a step of its own.
  if (OwnGemmEnabled() && KernelSwitchOn("SLUICE_XNNPACK_BAND_POOL")) {
    std::vector<int> pairs;
    for (const auto& [at, c] : chains) {
      if (c.dw >= 0 && c.pool < 0 && c.out3 < 0) pairs.push_back(at);
    }
    for (int at : pairs) {
      OwnChain& c = chains[at];
      const ir::Tensor& mid = graph.tensors[graph.ops[c.conv].inputs[0]];
      const ir::Shape& y = graph.tensors[graph.ops[c.conv].outputs[0]].shape;
      if (graph_outputs_.count(c.out) ||
          (pool_ && PairByBlock(mid.shape, y.empty() ? 0 : static_cast<int>(y.back())))) {
        continue;  // (by-block bands are not row bands)
      }
      for (int m : consumers[c.out]) {
        auto mc = chains.find(m);
        const bool own_pool = mc != chains.end() && mc->second.max_pool && mc->second.conv == m;
        if (m <= c.last() || (kind[m] != Kind::kXnn && !own_pool) ||
            graph.ops[m].inputs[0] != c.out || !OwnMaxPoolShape(info, m, nullptr, 0)) {
          continue;
        }
        if (own_pool) chains.erase(mc);
        c.pool = m, c.out3 = graph.ops[m].outputs[0];
        kind[m] = Kind::kOwn;
        break;
      }
    }
  }

  // A DEPTHWISE -> ADD whose output only our 2x2 upsample reads (the selfie
  // models' last stage): one row kernel, the sum never written
  // (dw_add_upsample.h); SLUICE_XNNPACK_DW_UPSAMPLE=0: two steps.
  if (OwnGemmEnabled() && KernelSwitchOn("SLUICE_XNNPACK_DW_UPSAMPLE")) {
    std::vector<int> pairs;
    for (const auto& [at, c] : chains) {
      if (graph.ops[c.conv].type == ir::OpType::kDepthwiseConv2D && c.add >= 0 && c.pw < 0 &&
          c.expand < 0 && c.act < 0 && c.pool < 0 && c.upsample < 0 && at == c.add) {
        pairs.push_back(at);
      }
    }
    for (int at : pairs) {
      const OwnChain& c = chains[at];
      const int m = sole_consumer(c.out);
      auto mc = chains.find(m);
      DepthwiseShape dw;
      UpsampleConvShape up;
      if (m <= at || mc == chains.end() || mc->second.conv != m || mc->second.in != c.out ||
          !OwnUpsampleConvShape(info, m, &up) || !OwnDepthwiseShape(info, c.conv, &dw) ||
          !DepthwiseAddUpsample::Supports(dw, up)) {
        continue;
      }
      OwnChain merged = c;
      merged.upsample = m, merged.out = mc->second.out;
      chains.erase(mc);
      chains.erase(at);
      // ... and XNNPACK's sigmoid after it on each band (dw_add_upsample.h):
      // measured no faster (its divisions bound it, not memory), so only with
      // SLUICE_XNNPACK_DW_UPSAMPLE_SIGMOID=1.
      const int s = sole_consumer(merged.out);
      if (s > m && kind[s] == Kind::kXnn && graph.ops[s].type == ir::OpType::kLogistic &&
          graph.ops[s].inputs.size() == 1 && graph.ops[s].inputs[0] == merged.out &&
          graph.ops[s].outputs.size() == 1 &&
          graph.tensors[graph.ops[s].outputs[0]].shape == graph.tensors[merged.out].shape &&
          KernelSwitchSet("SLUICE_XNNPACK_DW_UPSAMPLE_SIGMOID")) {
        merged.sigmoid = s, merged.out = graph.ops[s].outputs[0];
        kind[s] = Kind::kOwn;
      }
      chains[merged.last()] = merged;
    }
  }

  // ... and the staged 1x1 (MUL(x, gate) + ADD in front of it) that writes
  // the depthwise's input, which nothing else reads: its rows computed in the
  // band (StagedDepthwiseTask); SLUICE_XNNPACK_STAGED_DW_UPSAMPLE=0: two steps.
  // The same for a DEPTHWISE + ADD(x, .) without the upsample (the selfie
  // decoders' 64x64 and 32x32 stages); SLUICE_XNNPACK_STAGED_DW_ADD=0: two.
  const bool staged_dw_up = KernelSwitchOn("SLUICE_XNNPACK_STAGED_DW_UPSAMPLE");
  const bool staged_dw_add = KernelSwitchOn("SLUICE_XNNPACK_STAGED_DW_ADD");
  if (OwnGemmEnabled() && (staged_dw_up || staged_dw_add)) {
    for (auto& [at, c] : chains) {
      const bool dw_add = c.upsample < 0 && at == c.add && c.add >= 0 &&
                          graph.ops[c.conv].type == ir::OpType::kDepthwiseConv2D && c.pw < 0 &&
                          c.expand < 0 && c.dw < 0 && c.act < 0 && c.pool < 0 && c.prelu < 0 &&
                          c.mean < 0;
      if (!(c.upsample >= 0 ? staged_dw_up : dw_add && staged_dw_add) || c.sigmoid >= 0 || c.pre ||
          c.in_pad >= 0 || c.in != c.residual || graph_outputs_.count(c.in) ||
          consumers[c.in].size() != 2) {
        continue;
      }
      const std::vector<int>& rd = consumers[c.in];
      if (!((rd[0] == c.conv && rd[1] == c.add) || (rd[0] == c.add && rd[1] == c.conv))) continue;
      auto pc = chains.find(info.producer(c.in));
      if (pc == chains.end() || pc->first >= at) continue;
      const OwnChain& p = pc->second;
      DepthwiseShape dw;
      if (p.out != c.in || p.gate_mul < 0 || p.resize >= 0 || p.residual >= 0 || p.mean_add >= 0 ||
          p.act >= 0 || p.prelu >= 0 || p.add >= 0 || p.pre || p.out2 >= 0 || p.out3 >= 0 ||
          !OwnDepthwiseShape(info, c.conv, &dw) || dw.stride_h != 1 || dw.in_h != dw.out_h ||
          static_cast<size_t>(dw.in_w) * graph.tensors[p.in].shape.back() >
              GatedAdd::kStageFloats) {
        continue;
      }
      c.pre = std::make_shared<const OwnChain>(p);
      chains.erase(pc);
    }
  }

  // A staged 1x1 (no mean) followed directly by a plain 1x1 + HARD_SWISH that
  // reads its output (the squeeze-excite blocks' MUL + project + ADD, then
  // the next block's expand): the expand runs on each task's rows while they
  // are in L1, one parallel call instead of two (StagedPointwiseTask::then);
  // SLUICE_XNNPACK_STAGED_THEN=0: two steps.
  if (OwnGemmEnabled() && pool_ != nullptr && KernelSwitchOn("SLUICE_XNNPACK_STAGED_THEN")) {
    std::vector<int> staged;
    for (const auto& [at, c] : chains) {
      if ((c.gate_mul >= 0 || c.resize >= 0) && c.mean_add < 0 && !c.pre && !c.then &&
          at == c.last()) {
        staged.push_back(at);
      }
    }
    for (int at : staged) {
      auto ec = chains.end();
      for (auto it = chains.begin(); it != chains.end(); ++it) {
        if (it->second.conv == at + 1) ec = it;
      }
      if (ec == chains.end()) continue;
      const OwnChain& e = ec->second;
      if (e.act < 0 || ec->first != e.act || e.in != chains.at(at).out || e.residual >= 0 ||
          e.add >= 0 || e.prelu >= 0 || e.gate_mul >= 0 || e.resize >= 0 || e.pw >= 0 ||
          e.dw >= 0 || e.expand >= 0 || e.in_pad >= 0 || e.pre || e.then || e.out2 >= 0 ||
          e.out3 >= 0 || !IsOwnPointwiseConv(info, e.conv)) {
        continue;
      }
      OwnChain merged = chains.at(at);
      merged.then = std::make_shared<const OwnChain>(e);
      const int key = ec->first;
      chains.erase(ec);
      chains.erase(at);
      chains[key] = merged;
    }
  }

  // A stem chain's second output read only by a 2x2 stride-2 conv chain
  // (its PRELU and DEPTHWISE 1x1 too, nothing else) that the stem can run
  // from its registers (StemConv::TakesNext): that chain joins the stem's.
  for (auto& [at, c] : chains) {
    StemConvShape stem, next;
    const int k = sole_consumer(c.out2);
    if (c.out2 < 0 || k < 0 || !OwnStemConvShape(info, c.conv, &stem) ||
        !OwnStemConvShape(info, k, &next) || !StemConv::TakesNext(stem, next)) {
      continue;
    }
    auto kc = chains.end();
    for (auto it = chains.begin(); it != chains.end(); ++it) {
      if (it->second.conv == k) kc = it;
    }
    if (kc == chains.end() || kc->first <= at) continue;
    const OwnChain& n = kc->second;
    if (n.in != c.out2 || n.in_pad >= 0 || n.act >= 0 || n.prelu < 0 || n.scale < 0 ||
        n.out2 >= 0 || n.out3 >= 0 || n.add >= 0 || n.out != graph.ops[n.scale].outputs[0]) {
      continue;
    }
    c.next = k, c.next_prelu = n.prelu, c.next_scale = n.scale, c.out2 = n.out;
    chains.erase(kc);
  }

  // A tail of independent branches runs side by side on the pool
  // (branch_schedule.h); SLUICE_XNNPACK_BRANCHES=0 runs it step by step.
  BranchSplit branch;
  if (OwnGemmEnabled() && pool_ != nullptr && !profile_ &&
      KernelSwitchOn("SLUICE_XNNPACK_BRANCHES")) {
    branch = FindBranchSuffix(
        graph, [&](int op) { return kind[op] != Kind::kFolded; },
        [&](int t) { return info.IsConstant(t); });
  }
  // In that tail a segment holds one branch's connected ops only.
  auto branch_cut = [&](const std::vector<int>& seg, int i) {
    if (branch.first_op < 0 || i < branch.first_op) return false;
    if (seg.front() < branch.first_op) return true;
    for (int t : graph.ops[i].inputs) {
      if (t >= 0 && std::find(seg.begin(), seg.end(), info.producer(t)) != seg.end()) {
        return false;
      }
    }
    return true;
  };

  // XNNPACK segments: maximal runs of XNNPACK ops in execution order.
  std::vector<std::vector<int>> segments;
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] != Kind::kXnn) continue;
    if (segments.empty() || profile_ || branch_cut(segments.back(), i) ||
        [&] {  // a folded op in between does not cut; an island does
          for (int j = segments.back().back() + 1; j < i; ++j) {
            if (kind[j] == Kind::kIsland || kind[j] == Kind::kOwn) return true;
          }
          return false;
        }()) {
      segments.emplace_back();
    }
    segments.back().push_back(i);
  }
  // Cut buffers share one arena planned by liveness. XNNPACK may move reads
  // and writes within a segment (it fuses a PAD into the convolution after it,
  // which then reads the PAD's input later), so for planning every tensor a
  // segment exchanges with the outside is live during the whole segment: a
  // skeleton of the graph (no constant data) where the segment's first and
  // last ops also use all of them.
  ir::Graph skeleton;
  skeleton.inputs = graph.inputs;
  skeleton.outputs = graph.outputs;
  skeleton.ops = graph.ops;
  skeleton.tensors.resize(num_tensors);
  for (int t = 0; t < num_tensors; ++t) {
    skeleton.tensors[t].dtype = graph.tensors[t].dtype;
    skeleton.tensors[t].shape = graph.tensors[t].shape;
    skeleton.tensors[t].is_constant = graph.tensors[t].is_constant;
  }
  for (const auto& seg : segments) {
    const std::set<int> in_seg(seg.begin(), seg.end());
    std::vector<int> used;  // the segment's external values
    for (int i : seg) {
      for (int t : graph.ops[i].inputs) {
        if (t >= 0 && !info.IsConstant(t) && !in_seg.count(info.producer(t))) used.push_back(t);
      }
      for (int t : graph.ops[i].outputs) {
        bool outside = graph_outputs_.count(t) > 0;
        for (int c : consumers[t]) outside |= !in_seg.count(c);
        if (outside) used.push_back(t);
      }
    }
    for (int i : {seg.front(), seg.back()}) {
      auto& in = skeleton.ops[i].inputs;
      in.insert(in.end(), used.begin(), used.end());
    }
  }
  // A chain reads the convolution's input and the residual, and writes its
  // output, where it runs (its last op).
  for (const auto& [at, c] : chains) {
    if (c.pre) {  // (OwnChain::pre) in, the residual too, is never written: no memory
      for (int op : c.ops()) {
        for (auto* list : {&skeleton.ops[op].inputs, &skeleton.ops[op].outputs}) {
          list->erase(std::remove(list->begin(), list->end(), c.in), list->end());
        }
      }
    } else {
      skeleton.ops[at].inputs.push_back(c.in);
      if (c.residual >= 0) skeleton.ops[at].inputs.push_back(c.residual);
    }
    if (c.gate >= 0) skeleton.ops[at].inputs.push_back(c.gate);
    if (c.gate_b >= 0) skeleton.ops[at].inputs.push_back(c.gate_b);
    if (c.matrix >= 0) skeleton.ops[at].inputs.push_back(c.matrix);
    skeleton.ops[at].inputs.push_back(c.out);
    if (c.out2 >= 0) skeleton.ops[at].inputs.push_back(c.out2);
    if (c.out3 >= 0) skeleton.ops[at].inputs.push_back(c.out3);
    if (c.mean_b >= 0) skeleton.ops[at].inputs.push_back(c.mean_b);
    if (c.mean_out >= 0) skeleton.ops[at].inputs.push_back(c.mean_out);
    for (int t : c.pre_reads()) {
      if (t >= 0) skeleton.ops[at].inputs.push_back(t);
    }
    if (c.then) skeleton.ops[at].inputs.push_back(c.then->out);
  }
  if (branch.first_op >= 0) {
    // Side by side, the tail's tensors are all live at once.
    std::vector<int> touched;
    int first = -1, last = -1;
    for (int i = branch.first_op; i < num_ops; ++i) {
      if (kind[i] == Kind::kFolded) continue;
      if (first < 0) first = i;
      last = i;
      for (const auto* list : {&graph.ops[i].inputs, &graph.ops[i].outputs}) {
        for (int t : *list) {
          if (t >= 0 && !info.IsConstant(t)) touched.push_back(t);
        }
      }
    }
    for (const auto& [at, c] : chains) {
      if (at < branch.first_op) continue;
      for (int t : {c.in, c.residual, c.gate, c.gate_b, c.matrix, c.out, c.out2, c.out3}) {
        if (t >= 0 && !info.IsConstant(t)) touched.push_back(t);
      }
      for (int t : c.pre_reads()) {
        if (t >= 0 && !info.IsConstant(t)) touched.push_back(t);
      }
      if (c.then) touched.push_back(c.then->out);
    }
    for (int i : {first, last}) {
      auto& in = skeleton.ops[i].inputs;
      in.insert(in.end(), touched.begin(), touched.end());
    }
  }
  // With threads, exact-slot reuse (planner.h) unless its arena passes
  // kExactArenaMaxBytes; SLUICE_XNNPACK_PLAN_EXACT=0: the tightest plan.
  MemoryPlan plan = PlanMemory(skeleton);
  if (pool_ != nullptr && KernelSwitchOn("SLUICE_XNNPACK_PLAN_EXACT")) {
    MemoryPlan exact = PlanMemory(skeleton, /*exact_reuse=*/true);
    if (exact.arena_bytes <= kExactArenaMaxBytes) plan = std::move(exact);
  }
  // Buffers: graph ports, every tensor an island or our own kernel touches,
  // and what segments exchange with the outside.
  auto need_buffer = [&](int t) {
    if (t < 0 || buffers_.count(t)) return;
    if (graph.tensors[t].is_constant) return;
    if (info.IsConstant(t) || plan.offsets[t] < 0) {
      owned_.push_back(AllocateBuffer(graph.tensors[t].byte_size()));
      buffers_[t] = owned_.back().get();
    } else {
      if (!arena_) arena_ = AllocateBuffer(plan.arena_bytes);
      buffers_[t] = arena_ ? arena_.get() + plan.offsets[t] : nullptr;
    }
  };
  for (int t : graph.inputs) need_buffer(t);
  for (int t : graph.outputs) need_buffer(t);
  for (int i = 0; i < num_ops; ++i) {
    if (kind[i] != Kind::kIsland) continue;
    for (int t : graph.ops[i].inputs) need_buffer(t);
    for (int t : graph.ops[i].outputs) need_buffer(t);
  }
  for (const auto& [at, c] : chains) {
    if (!c.pre) {
      need_buffer(c.in);
      need_buffer(c.residual);
    }
    need_buffer(c.gate);
    need_buffer(c.gate_b);
    need_buffer(c.matrix);
    need_buffer(c.out);
    need_buffer(c.out2);
    need_buffer(c.out3);
    need_buffer(c.mean_b);
    need_buffer(c.mean_out);
    for (int t : c.pre_reads()) need_buffer(t);
    if (c.then) need_buffer(c.then->out);
  }
  for (const auto& seg : segments) {
    const std::set<int> in_seg(seg.begin(), seg.end());
    for (int i : seg) {
      for (int t : graph.ops[i].inputs) {
        if (t >= 0 && !info.IsConstant(t) && !in_seg.count(info.producer(t))) need_buffer(t);
      }
      for (int t : graph.ops[i].outputs) {
        for (int c : consumers[t]) {
          if (!in_seg.count(c)) need_buffer(t);
        }
      }
    }
  }
  // Folded (dequantized) constants an island or a graph output reads.
  for (auto& [t, buf] : buffers_) {
    if (!info.IsConstant(t)) continue;
    if (!buf) return absl::ResourceExhaustedError("out of memory for a constant");
    ASSIGN_OR_RETURN(std::vector<float> v, info.ConstantAsFloat(t));
    std::memcpy(buf, v.data(), v.size() * sizeof(float));
  }
  for (auto& [t, buf] : buffers_) {
    if (!buf) {
      return absl::ResourceExhaustedError(
          absl::StrCat("out of memory for tensor '", graph.tensors[t].name, "'"));
    }
  }

  // Pass 2: define the segments, prepare the islands, in execution order.
  // The branch tail's steps run one per thread: built without the pool.
  struct PoolRestore {
    pthreadpool_t* slot;
    pthreadpool_t pool;
    ~PoolRestore() { *slot = pool; }
  } restore{&pool_, pool_};
  std::vector<StepAccess> branch_access;
  auto range = [&](int t, std::vector<std::pair<uintptr_t, uintptr_t>>* out) {
    if (t < 0 || info.IsConstant(t) || !TensorAddress(t)) return;
    const auto p = reinterpret_cast<uintptr_t>(TensorAddress(t));
    out->emplace_back(p, p + graph.tensors[t].byte_size());
  };
  auto work_of = [&](const std::vector<int>& ops, int out) {
    int64_t w = kBranchStepOverhead + (out >= 0 ? graph.tensors[out].num_elements() : 0);
    for (int op : ops) {
      if (op >= 0) w += OpMacs(graph, op);
    }
    return w;
  };
  size_t next_segment = 0;
  const int64_t serial_work = SerialStepWork();
  for (int i = 0; i < num_ops; ++i) {
    if (branch.first_op >= 0 && i == branch.first_op) {
      branch_first_step_ = steps_.size();
      pool_ = nullptr;
    }
    const size_t steps_before = steps_.size();
    StepAccess access;
    access.barrier = true;  // each kind of step below says what it touches
    if (kind[i] == Kind::kOwn) {
      auto c = chains.find(i);
      if (c == chains.end()) continue;  // absorbed by a chain that runs later
      const OwnChain& o = c->second;
      access.work = work_of({o.conv, o.pw, o.dw, o.expand, o.scale, o.scale2,
                             o.then ? o.then->conv : -1}, o.out);
      const pthreadpool_t step_pool = pool_;
      if (access.work < serial_work) pool_ = nullptr;  // (SerialStepWork)
      auto prepared = PrepareOwnKernel(info, o);
      pool_ = step_pool;
      ASSIGN_OR_RETURN(reference::Kernel k, std::move(prepared));
      steps_.push_back(Step{nullptr, std::move(k), o.conv, o.ops()});
      for (int t : {o.in, o.residual, o.gate, o.gate_b, o.matrix, o.mean_b}) {
        range(t, &access.reads);
      }
      for (int t : o.pre_reads()) range(t, &access.reads);
      if (o.then) range(o.then->out, &access.writes);
      for (int t : {o.out, o.out2, o.out3, o.mean_out}) range(t, &access.writes);
      access.barrier = false;
    } else if (kind[i] == Kind::kIsland) {
      std::vector<void*> addr(num_tensors, nullptr);
      for (const auto* list : {&graph.ops[i].inputs, &graph.ops[i].outputs}) {
        for (int t : *list) {
          if (t < 0) continue;
          addr[t] = graph.tensors[t].is_constant
                        ? const_cast<uint8_t*>(graph.tensors[t].data.data())
                        : TensorAddress(t);
        }
      }
      ASSIGN_OR_RETURN(reference::Kernel k, reference::PrepareKernel(graph, i, addr));
      steps_.push_back(Step{nullptr, std::move(k), i, {i}});
      for (int t : graph.ops[i].inputs) range(t, &access.reads);
      for (int t : graph.ops[i].outputs) range(t, &access.writes);
      access.work = work_of({i}, graph.ops[i].outputs.empty() ? -1 : graph.ops[i].outputs[0]);
      access.barrier = false;
    } else if (next_segment < segments.size() && segments[next_segment].front() == i) {
      const std::vector<int>& seg = segments[next_segment];
      const pthreadpool_t step_pool = pool_;
      if (work_of(seg, graph.ops[seg.back()].outputs[0]) < serial_work) pool_ = nullptr;
      const absl::Status built = BuildSegment(info, seg, consumers, kind, failed_op);
      pool_ = step_pool;  // (SerialStepWork)
      RETURN_IF_ERROR(built);
      ++next_segment;
      for (int j : seg) {
        for (int t : graph.ops[j].inputs) {
          if (t >= 0 && std::find(seg.begin(), seg.end(), info.producer(t)) == seg.end()) {
            range(t, &access.reads);
          }
        }
        for (int t : graph.ops[j].outputs) range(t, &access.writes);
      }
      access.work = work_of(seg, graph.ops[seg.back()].outputs[0]);
      access.barrier = false;
    }
    if (branch.first_op >= 0 && i >= branch.first_op && steps_.size() > steps_before) {
      branch_access.push_back(std::move(access));
    }
  }
  pool_ = restore.pool;
  if (branch.first_op >= 0 && branch_access.size() >= 2) {
    std::vector<int64_t> work;
    for (const StepAccess& a : branch_access) work.push_back(a.work);
    branches_ = std::make_unique<BranchSchedule>(
        StepDependencies(branch_access), work, KernelSwitchOn("SLUICE_XNNPACK_BRANCHES_FALLBACK"));
  }

  for (auto* io : {&inputs_, &outputs_}) {
    const std::vector<int>& ports = io == &inputs_ ? graph.inputs : graph.outputs;
    for (int t : ports) {
      const ir::Tensor& tensor = graph.tensors[t];
      IoTensor p;
      p.name = tensor.name;
      p.dtype = tensor.dtype;
      p.shape = tensor.shape;
      p.bytes = tensor.byte_size();
      p.data = tensor.is_constant ? const_cast<uint8_t*>(tensor.data.data()) : TensorAddress(t);
      io->push_back(std::move(p));
    }
  }
  return absl::OkStatus();
}

// A convolution's constant weights and optional bias, as floats.
struct ConvConstants {
  std::vector<float> weights, bias;
  const float* bias_or_null() const { return bias.empty() ? nullptr : bias.data(); }
};
absl::StatusOr<ConvConstants> LoadConvConstants(const GraphInfo& info, const ir::Op& op) {
  ConvConstants c;
  ASSIGN_OR_RETURN(c.weights, info.ConstantAsFloat(op.inputs[1]));
  if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
    ASSIGN_OR_RETURN(c.bias, info.ConstantAsFloat(op.inputs[2]));
  }
  return c;
}

// A DEPTHWISE 1x1's constants (IsScaleDepthwise).
struct ScaleOp {
  std::vector<float> scale, bias;  // bias: empty when the op has none
  float lo = 0, hi = 0;
};
absl::StatusOr<ScaleOp> LoadScaleOp(const GraphInfo& info, int op_index) {
  const ir::Op& op = info.graph().ops[op_index];
  ScaleOp s;
  ASSIGN_OR_RETURN(s.scale, info.ConstantAsFloat(op.inputs[1]));
  if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
    ASSIGN_OR_RETURN(s.bias, info.ConstantAsFloat(op.inputs[2]));
  }
  ir::ActivationRange(op.opts<ir::DepthwiseConv2DOptions>().activation, &s.lo, &s.hi);
  return s;
}

// The activation a staged kernel absorbed (OwnChain::act, prelu; stem only).
absl::Status SetEpilogue(const GraphInfo&, const OwnChain&, NarrowConv*) {
  return absl::OkStatus();
}
absl::Status SetEpilogue(const GraphInfo& info, const OwnChain& c, StemConv* conv) {
  if ((c.act >= 0 || c.prelu >= 0) && !conv->lanes()) {
    return absl::InternalError(
        absl::StrCat(info.graph().OpLabel(c.conv), ": activation absorbed without the lanes kernel"));
  }
  if (c.act >= 0) conv->SetHardSwish();
  if (c.prelu >= 0) {
    ASSIGN_OR_RETURN(std::vector<float> slope,
                     info.ConstantAsFloat(info.graph().ops[c.prelu].inputs[1]));
    conv->SetPrelu(slope.data());
  }
  if (c.scale >= 0) {
    if (!StemConv::TakesTail(conv->shape())) {
      return absl::InternalError(absl::StrCat(info.graph().OpLabel(c.scale),
                                              ": DEPTHWISE absorbed without the direct stem"));
    }
    ASSIGN_OR_RETURN(ScaleOp s, LoadScaleOp(info, c.scale));
    conv->SetScale(s.scale.data(), s.bias.empty() ? nullptr : s.bias.data(), s.lo, s.hi);
  }
  return absl::OkStatus();
}

template <typename Conv, typename Shape>
absl::StatusOr<reference::Kernel> XnnpackModel::PrepareStagedKernel(const GraphInfo& info,
                                                                    const OwnChain& c,
                                                                    const Shape& shape) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[c.conv];
  ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
  float lo, hi;
  ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &lo, &hi);
  auto conv = std::make_shared<Conv>(shape, consts.weights.data(), consts.bias_or_null(), lo, hi);
  RETURN_IF_ERROR(SetEpilogue(info, c, conv.get()));
  auto task = std::make_shared<StagedTask<Conv>>(
      StagedTask<Conv>{conv.get(), static_cast<const float*>(TensorAddress(c.in)),
                       static_cast<float*>(TensorAddress(c.out))});
  if (!task->in || !task->out) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  }
  if constexpr (std::is_same_v<Conv, StemConv>) {
    if (c.out2 >= 0) {  // (OwnChain::prelu2, scale2; next)
      auto* out2 = static_cast<float*>(TensorAddress(c.out2));
      if (c.next >= 0) {  // out2 is next_scale's output
        StemConvShape ns;
        if (!OwnStemConvShape(info, c.next, &ns) || !StemConv::TakesNext(conv->shape(), ns) ||
            !out2) {
          return absl::InternalError(absl::StrCat(g.OpLabel(c.next), ": not absorbable"));
        }
        const ir::Op& nop = g.ops[c.next];
        ASSIGN_OR_RETURN(ConvConstants nc, LoadConvConstants(info, nop));
        float nlo, nhi;
        ir::ActivationRange(nop.opts<ir::Conv2DOptions>().activation, &nlo, &nhi);
        auto next =
            std::make_shared<StemConv>(ns, nc.weights.data(), nc.bias_or_null(), nlo, nhi);
        OwnChain nchain;
        nchain.conv = c.next, nchain.prelu = c.next_prelu, nchain.scale = c.next_scale;
        RETURN_IF_ERROR(SetEpilogue(info, nchain, next.get()));
        conv->SetNext(std::move(next), out2);
        out2 = nullptr;  // (the stem's own second output: not stored)
      }
      ASSIGN_OR_RETURN(std::vector<float> slope,
                       info.ConstantAsFloat(g.ops[c.prelu2].inputs[1]));
      ASSIGN_OR_RETURN(ScaleOp s, LoadScaleOp(info, c.scale2));
      if ((!out2 && c.next < 0) || !StemConv::TakesTail(conv->shape())) {
        return absl::InternalError(absl::StrCat(g.OpLabel(c.scale2), ": not absorbable"));
      }
      conv->SetSecondOutput(out2, slope.data(), s.scale.data(),
                            s.bias.empty() ? nullptr : s.bias.data(), s.lo, s.hi);
    }
    if (c.out3 >= 0) {  // (OwnChain::pool)
      auto* out3 = static_cast<float*>(TensorAddress(c.out3));
      if (!out3 || !StemConv::TakesTail(conv->shape())) {
        return absl::InternalError(absl::StrCat(g.OpLabel(c.pool), ": not absorbable"));
      }
      float lo3, hi3;
      ir::ActivationRange(g.ops[c.pool].opts<ir::Pool2DOptions>().activation, &lo3, &hi3);
      conv->SetMaxPool(out3, lo3, hi3);
      if (c.out_unread) conv->SetOutputUnread();  // (the pair variant only)
    }
    task->rows = conv->compute_rows();
  }
  pthreadpool_t pool = pool_;
  // The direct stem stages nothing (Stage records the input): no parallel
  // call for it (one pool dispatch and wake-up fewer a frame).
  // SLUICE_XNNPACK_STEM_ONE_CALL=0: two calls as before (for A/B).
  bool stage_on_caller = false;
  if constexpr (std::is_same_v<Conv, StemConv>) {
    stage_on_caller = conv->direct() && KernelSwitchOn("SLUICE_XNNPACK_STEM_ONE_CALL");
  }
  if (pool && stage_on_caller) {
    return reference::Kernel([conv, task, pool] {
      conv->Stage(task->in, 0, conv->shape().in_h);
      PoolHandOff(task.get());
      pthreadpool_parallelize_1d(pool, RunComputeRow<Conv>, task.get(),
                                 (conv->shape().out_h + task->rows - 1) / task->rows, 0);
      PoolTakeOver(task.get());
    });
  }
  return reference::Kernel([conv, task, pool] {
    const Shape& s = conv->shape();
    if (pool) {
      PoolHandOff(task.get());
      pthreadpool_parallelize_1d(pool, RunStageRow<Conv>, task.get(), s.in_h, 0);
      pthreadpool_parallelize_1d(pool, RunComputeRow<Conv>, task.get(),
                                 (s.out_h + task->rows - 1) / task->rows, 0);
      PoolTakeOver(task.get());
    } else {
      conv->Stage(task->in, 0, s.in_h);
      conv->Compute(task->out, 0, s.out_h);
    }
  });
}

template <typename Conv>
absl::StatusOr<reference::Kernel> XnnpackModel::PrepareRowKernel(
    const ir::Graph& g, const OwnChain& c, std::shared_ptr<const Conv> conv, int rows,
    int rows_per_item) {
  auto task = std::make_shared<RowTask<Conv>>(
      RowTask<Conv>{conv.get(), static_cast<const float*>(TensorAddress(c.in)),
                    static_cast<float*>(TensorAddress(c.out))});
  if (!task->in || !task->out) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  }
  pthreadpool_t pool = pool_;
  task->rows = rows;
  task->per = std::max(1, rows_per_item);
  const int items = (rows + task->per - 1) / task->per;
  return reference::Kernel([conv, task, pool, rows, items] {
    if (pool) {
      PoolHandOff(task.get());
      pthreadpool_parallelize_1d(pool, RunRow<Conv>, task.get(), items, 0);
      PoolTakeOver(task.get());
    } else {
      conv->Run(task->in, task->out, 0, rows);
    }
  });
}

template <typename Conv>
absl::StatusOr<reference::Kernel> XnnpackModel::PrepareBandKernel(
    const ir::Graph& g, const OwnChain& c, std::shared_ptr<const Conv> conv) {
  auto task = std::make_shared<BandTask<Conv>>();
  task->conv = conv.get();
  task->in = static_cast<const float*>(TensorAddress(c.in));
  task->residual = c.residual >= 0 ? static_cast<const float*>(TensorAddress(c.residual)) : nullptr;
  task->out = static_cast<float*>(TensorAddress(c.out));
  if (!task->in || !task->out || (c.residual >= 0 && !task->residual)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  }
  pthreadpool_t pool = pool_;
  task->rows = conv->rows();
  if (c.out3 >= 0) {  // (MaxPoolAfterBands)
    MaxPool2x2Shape ps;
    task->pool_out = static_cast<float*>(TensorAddress(c.out3));
    if (!OwnMaxPoolShape(GraphInfo(g), c.pool, &ps, 0) || !task->pool_out ||
        g.ops[c.pool].inputs[0] != c.out || ps.in_h != task->rows) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.pool), ": not for our kernel"));
    }
    float lo, hi;
    ir::ActivationRange(g.ops[c.pool].opts<ir::Pool2DOptions>().activation, &lo, &hi);
    task->pool = std::make_shared<const MaxPool2x2>(ps, lo, hi);
  }
  if (pool) {
    const int threads = static_cast<int>(pthreadpool_get_threads_count(pool));
    // Below 48 rows (the small pairs StreamSmallProjectOnPool adds) one band
    // per thread: fewer, longer 1x1 runs (SLUICE_XNNPACK_SMALL_BANDS=0: the
    // kernel's preference, for A/B).
    const int per = task->rows < 48 && KernelSwitchOn("SLUICE_XNNPACK_SMALL_BANDS")
                        ? 1
                        : Conv::kBandsPerThread;
    task->bands = std::min(task->rows, StreamBandsPerThread(per) * threads);
  }
  task->scratch_floats = (conv->ScratchFloats() + 15) / 16 * 16;
  task->storage.assign(task->scratch_floats * task->bands + 16, 0.0f);
  const uintptr_t p = reinterpret_cast<uintptr_t>(task->storage.data());
  task->scratch = reinterpret_cast<float*>((p + 63) & ~uintptr_t{63});
  return reference::Kernel([conv, task, pool] {
    if (pool) {
      PoolHandOff(task.get());
      pthreadpool_parallelize_1d(pool, RunBand<Conv>, task.get(), task->bands, 0);
      PoolTakeOver(task.get());
      // Pool rows across an odd band boundary: their input rows are complete now.
      for (int b = 1; task->pool && b < task->bands; ++b) {
        const int r = b * task->rows / task->bands;
        if (r % 2 == 1) task->pool->Run(task->out, task->pool_out, r / 2, r / 2 + 1);
      }
    } else {
      conv->Run(task->in, task->residual, task->out, 0, task->rows, task->scratch);
      if (task->pool) task->pool->Run(task->out, task->pool_out, 0, task->rows / 2);
    }
  });
}

// Our depthwise kernel for DEPTHWISE op `op_index` (OwnDepthwiseShape).
absl::StatusOr<std::shared_ptr<DepthwiseConv>> MakeDepthwise(const GraphInfo& info,
                                                             int op_index) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[op_index];
  DepthwiseShape shape;
  if (!OwnDepthwiseShape(info, op_index, &shape)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(op_index), ": not for our kernel"));
  }
  ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
  float lo, hi;
  ir::ActivationRange(op.opts<ir::DepthwiseConv2DOptions>().activation, &lo, &hi);
  return std::make_shared<DepthwiseConv>(shape, consts.weights.data(), consts.bias_or_null(), lo,
                                         hi);
}

// Our pointwise kernel for the 1x1 CONV_2D `c.conv` with the ADD and PRELU
// of chain `c` (each if present).
absl::StatusOr<std::shared_ptr<PointwiseConv>> MakePointwise(const GraphInfo& info,
                                                             const OwnChain& c) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[c.conv];
  const ir::Shape& f = g.tensors[op.inputs[1]].shape;
  const int n = f[0], k = f[3];
  ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
  float lo, hi;
  ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &lo, &hi);
  auto conv = std::make_shared<PointwiseConv>(k, n, consts.weights.data(),
                                              consts.bias_or_null(), lo, hi);
  if (c.add >= 0) {
    float alo, ahi;
    ir::ActivationRange(g.ops[c.add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
    conv->SetResidualAdd(alo, ahi, c.residual_channels);
  }
  if (c.prelu >= 0) {
    ASSIGN_OR_RETURN(std::vector<float> slope, info.ConstantAsFloat(g.ops[c.prelu].inputs[1]));
    conv->SetPrelu(slope.data());
  }
  return conv;
}

// Row kernels with a second (and third) input bound at compile time, for
// PrepareRowKernel: the depthwise with its residual ADD, the gated ADD.
struct DepthwiseAddRows {
  std::shared_ptr<const DepthwiseConv> conv;
  const float* residual;
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    conv->Run(in, residual, out, row_begin, row_end);
  }
};
// A DEPTHWISE with its HARD_SWISH (OwnChain::act), row by row while in L1.
struct DepthwiseHardSwishRows {
  std::shared_ptr<const DepthwiseConv> conv;
  size_t row_floats;  // out_w * channels
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    conv->Run(in, out, row_begin, row_end);
    HardSwishInPlace(out + row_begin * row_floats, (row_end - row_begin) * row_floats);
  }
};
struct AddMeanGroups {
  AddMean kernel;
  const float* b;
  void Run(const float* a, float* out, int group_begin, int group_end) const {
    kernel.Run(a, b, out, group_begin, group_end);
  }
};
struct AddMeanTask {
  AddMean kernel;
  const float* a;
  const float* b;
  float* out;
  int chunks = 1;
  HugeFloats storage;  // scratch, on huge pages like the weights
  float* scratch = nullptr;  // storage's data: Partial's sums, Finish reads them
};
void RunAddMeanPartial(void* context, size_t g, size_t chunk) {
  const auto* t = static_cast<const AddMeanTask*>(context);
  PoolTakeOver(t);
  const int q0 = static_cast<int>(chunk) * kAddMeanChunkBlocks;
  const int q1 = std::min(t->kernel.blocks(), q0 + kAddMeanChunkBlocks);
  t->kernel.Partial(t->a, t->b, t->scratch, static_cast<int>(g), q0, q1);
  PoolHandOff(t);
}
void RunAddMeanFinish(void* context, size_t g) {
  const auto* t = static_cast<const AddMeanTask*>(context);
  PoolTakeOver(t);
  t->kernel.Finish(t->scratch, t->out, static_cast<int>(g), static_cast<int>(g) + 1);
  PoolHandOff(t);
}

struct PlainAddRows {
  PlainAdd kernel;
  const float* b;
  void Run(const float* a, float* out, int row_begin, int row_end) const {
    kernel.Run(a, b, out, row_begin, row_end);
  }
};
struct TransformRows {
  TransformBilinear kernel;
  const float* matrix;
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    kernel.Run(in, matrix, out, row_begin, row_end);
  }
};
// A streamed DEPTHWISE -> 1x1 pair on at most 16 pixels (pose_landmark's
// 4x4 and 2x2 blocks, 192 -> 192) on a pool: its "rows" are the 1x1's
// 32-channel blocks, so that PrepareBandKernel's bands split those: each
// band runs the whole (tiny) depthwise into its scratch, then its blocks of
// the 1x1. In row bands every thread read all the 1x1's weights (148 KB, from
// L3: the model's weights outgrow L2); so each reads its share. Per pair on
// two threads (--per-op): 2x2 0.007-0.008 ms as row bands, 0.004-0.005 for
// the 1x1 alone by blocks. Same operations per output: same bits.
// SLUICE_XNNPACK_PAIR_BY_BLOCK=0 keeps the row bands.
bool PairByBlock(const ir::Shape& mid, int n) {
  return mid.size() == 4 && mid[1] * mid[2] <= 16 && n > PointwiseConv::kBlockChannels &&
         KernelSwitchOn("SLUICE_XNNPACK_PAIR_BY_BLOCK");
}
class DepthwisePointwiseByBlock {
 public:
  DepthwisePointwiseByBlock(std::shared_ptr<const DepthwiseConv> dw,
                            std::shared_ptr<const PointwiseConv> pw)
      : dw_(std::move(dw)), pw_(std::move(pw)) {}
  int rows() const { return static_cast<int>(pw_->blocks()); }  // (blocks, see above)
  static constexpr int kBandsPerThread = 1;
  size_t ScratchFloats() const {
    const DepthwiseShape& s = dw_->shape();
    return static_cast<size_t>(s.out_h) * s.out_w * s.channels;
  }
  // The 1x1's blocks [block_begin, block_end) of the whole output.
  void Run(const float* in, const float* residual, float* out, int block_begin, int block_end,
           float* scratch) const {
    const DepthwiseShape& s = dw_->shape();
    const size_t in_row = static_cast<size_t>(s.in_w) * s.channels;
    const size_t out_row = static_cast<size_t>(s.out_w) * s.channels;
    const float* rows[5];
    for (int y = 0; y < s.out_h; ++y) {
      const int iy0 = y * s.stride_h - s.pad_top;
      for (int ky = 0; ky < s.kernel; ++ky) {
        const int iy = std::min(std::max(iy0 + ky, 0), s.in_h - 1);  // clamped; unused if out
        rows[ky] = in + static_cast<size_t>(iy) * in_row;
      }
      dw_->RunRow(rows, y, scratch + static_cast<size_t>(y) * out_row);
    }
    pw_->Run(scratch, residual, out, 0, static_cast<size_t>(s.out_h) * s.out_w,
             static_cast<size_t>(block_begin), static_cast<size_t>(block_end));
  }

 private:
  std::shared_ptr<const DepthwiseConv> dw_;
  std::shared_ptr<const PointwiseConv> pw_;
};

struct ResizeRows {
  ResizeBilinear kernel;
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    const ResizeShape& s = kernel.shape();
    const size_t first = static_cast<size_t>(row_begin) * s.out_w;
    kernel.Fill(in, first, static_cast<size_t>(row_end - row_begin) * s.out_w,
                out + first * s.channels);
  }
};
// The end of the group of rows from `row` (before `row_end`) that share
// their source rows (x2 upsampling: 1-3 rows), which Fill computes together
// (the horizontal lerps once for the group's rows).
int ResizeGroupEnd(const ResizeBilinear& k, int row, int row_end) {
  const size_t w = static_cast<size_t>(k.shape().out_w);
  const size_t end = k.ChunkEnd(row * w, w, (row_end - row) * w) / w;
  return std::min(row_end, std::max(row + 1, static_cast<int>(end)));
}
// The resize, then the ADD on each row in place (OwnChain::add): a group
// of rows sharing their source rows at a time (ResizeGroupEnd; one row with
// SLUICE_XNNPACK_RESIZE_GROUPS=0), while in L1.
struct ResizeAddRows {
  ResizeBilinear kernel;
  PlainAdd add;
  const float* b;
  bool groups = true;
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    const ResizeShape& s = kernel.shape();
    for (int y = row_begin; y < row_end;) {
      const int e = groups ? ResizeGroupEnd(kernel, y, row_end) : y + 1;
      const size_t first = static_cast<size_t>(y) * s.out_w;
      kernel.Fill(in, first, static_cast<size_t>(e - y) * s.out_w, out + first * s.channels);
      add.Run(out, b, out, y, e);
      y = e;
    }
  }
};
// With a pool, a resize step's tasks are those groups of rows instead of
// single rows (which computed every row's horizontal lerps again: 24x24 ->
// 48x48 x48 took as long on two threads as on one).
struct ResizeGroupTask {
  std::shared_ptr<const void> owner;
  void (*run)(const void* conv, const float* in, float* out, int row_begin, int row_end);
  const void* conv;
  const float* in;
  float* out;
  std::vector<int> bounds;  // group g: rows [bounds[g], bounds[g + 1])
};
void RunResizeGroup(void* context, size_t g) {
  const auto* t = static_cast<const ResizeGroupTask*>(context);
  PoolTakeOver(t);
  t->run(t->conv, t->in, t->out, t->bounds[g], t->bounds[g + 1]);
  PoolHandOff(t);
}
template <typename Rows>
reference::Kernel ResizeGroupKernel(std::shared_ptr<const Rows> rows, const float* in, float* out,
                                    pthreadpool_t pool) {
  auto task = std::make_shared<ResizeGroupTask>();
  task->run = [](const void* conv, const float* i, float* o, int b, int e) {
    static_cast<const Rows*>(conv)->Run(i, o, b, e);
  };
  task->conv = rows.get();
  task->owner = rows;
  task->in = in;
  task->out = out;
  const int h = rows->kernel.shape().out_h;
  for (int y = 0; y < h; y = ResizeGroupEnd(rows->kernel, y, h)) task->bounds.push_back(y);
  task->bounds.push_back(h);
  return reference::Kernel([task, pool] {
    PoolHandOff(task.get());
    pthreadpool_parallelize_1d(pool, RunResizeGroup, task.get(), task->bounds.size() - 1, 0);
    PoolTakeOver(task.get());
  });
}
struct GatedAddRows {
  GatedAdd kernel;
  const float* gate;
  const float* b;
  void Run(const float* in, float* out, int row_begin, int row_end) const {
    kernel.Run(in, gate, b, out, row_begin, row_end);
  }
};

absl::StatusOr<reference::Kernel> XnnpackModel::PrepareOwnKernel(const GraphInfo& info,
                                                                 const OwnChain& c) {
  const ir::Graph& g = info.graph();
  const ir::Op& op = g.ops[c.conv];
  pthreadpool_t pool = pool_;
  if (c.matrix >= 0) {
    TransformBilinearShape shape;
    if (!OwnTransformBilinearShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    const ir::Tensor& m = g.tensors[c.matrix];
    const auto* matrix = m.is_constant ? reinterpret_cast<const float*>(m.data.data())
                                       : static_cast<const float*>(TensorAddress(c.matrix));
    if (!matrix) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
    return PrepareRowKernel(
        g, c, std::make_shared<const TransformRows>(TransformRows{TransformBilinear(shape), matrix}),
        shape.out_h);
  }
  if (c.expand >= 0) {
    OwnChain e;
    e.conv = c.expand;
    ASSIGN_OR_RETURN(std::shared_ptr<PointwiseConv> pw, MakePointwise(info, e));
    ASSIGN_OR_RETURN(std::shared_ptr<const DepthwiseConv> dw, MakeDepthwise(info, c.conv));
    return PrepareBandKernel(g, c, std::make_shared<const ExpandDepthwise>(pw, dw));
  }
  if (c.dw >= 0) {
    ASSIGN_OR_RETURN(std::shared_ptr<const DepthwiseConv> dw, MakeDepthwise(info, c.dw));
    ASSIGN_OR_RETURN(std::shared_ptr<PointwiseConv> pw, MakePointwise(info, c));
    // hand_recrop's 3x3 8-channel DEPTHWISE -> 1x1 8 -> 16 + padded ADD
    // (dw8_pw16.h); SLUICE_XNNPACK_DW8_PW16=0 keeps the streamed pair.
    if (const DepthwiseShape& ds = dw->shape();
        ds.kernel == 3 && ds.channels == 8 && ds.stride_h == 1 && ds.stride_w == 1 &&
        ds.pad_top == 1 && ds.pad_left == 1 && ds.in_h == ds.out_h && ds.in_w == ds.out_w &&
        pw->k() == 8 && pw->n() == 16 && c.add >= 0 && c.prelu < 0 && c.pad >= 0 &&
        c.residual_channels == 8 && Dw8Pw16::Supports(ds.out_h, ds.out_w) &&
        KernelSwitchOn("SLUICE_XNNPACK_DW8_PW16")) {
      const ir::Op& dop = g.ops[c.dw];
      ASSIGN_OR_RETURN(ConvConstants dwc, LoadConvConstants(info, dop));
      ASSIGN_OR_RETURN(ConvConstants pwc, LoadConvConstants(info, op));
      float dlo, dhi, plo, phi, alo, ahi;
      ir::ActivationRange(dop.opts<ir::DepthwiseConv2DOptions>().activation, &dlo, &dhi);
      ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &plo, &phi);
      ir::ActivationRange(g.ops[c.add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
      return PrepareBandKernel(
          g, c, std::make_shared<const Dw8Pw16>(ds.out_h, ds.out_w, dwc.weights.data(),
                                                dwc.bias_or_null(), dlo, dhi, pwc.weights.data(),
                                                pwc.bias_or_null(), plo, phi, alo, ahi));
    }
    if (pool_ && PairByBlock(g.tensors[op.inputs[0]].shape, pw->n())) {
      return PrepareBandKernel(
          g, c, std::make_shared<const DepthwisePointwiseByBlock>(dw, pw));
    }
    return PrepareBandKernel(
        g, c, std::make_shared<const DepthwisePointwise>(dw, pw, c.residual_channels));
  }
  if (c.prelu_scale) {
    PreluScaleShape shape;
    if (!OwnPreluScaleShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    ASSIGN_OR_RETURN(std::vector<float> slope, info.ConstantAsFloat(op.inputs[1]));
    ASSIGN_OR_RETURN(ScaleOp sc, LoadScaleOp(info, c.scale));
    auto kernel = std::make_shared<const PreluScale>(
        shape, slope.data(), sc.scale.data(), sc.bias.empty() ? nullptr : sc.bias.data(), sc.lo,
        sc.hi);
    return PrepareRowKernel(g, c, kernel, shape.rows);
  }
  if (c.conv2x2) {
    Conv2x2Shape shape;
    if (!OwnConv2x2Shape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
    float lo, hi;
    ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &lo, &hi);
    auto kernel = std::make_shared<Conv2x2>(shape, consts.weights.data(), consts.bias_or_null(),
                                            lo, hi);
    if (c.prelu >= 0) {
      ASSIGN_OR_RETURN(std::vector<float> slope, info.ConstantAsFloat(g.ops[c.prelu].inputs[1]));
      ASSIGN_OR_RETURN(ScaleOp sc, LoadScaleOp(info, c.scale));
      kernel->SetPreluScale(slope.data(), sc.scale.data(),
                            sc.bias.empty() ? nullptr : sc.bias.data(), sc.lo, sc.hi);
    }
    if (c.in_prelu >= 0) {
      ASSIGN_OR_RETURN(std::vector<float> slope,
                       info.ConstantAsFloat(g.ops[c.in_prelu].inputs[1]));
      ASSIGN_OR_RETURN(ScaleOp sc, LoadScaleOp(info, c.in_scale));
      kernel->SetInputPreluScale(slope.data(), sc.scale.data(),
                                 sc.bias.empty() ? nullptr : sc.bias.data(), sc.lo, sc.hi);
    }
    return PrepareRowKernel(g, c, std::shared_ptr<const Conv2x2>(kernel), shape.out_h);
  }
  if (c.max_pool) {
    MaxPool2x2Shape shape;
    if (!OwnMaxPoolShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    float lo, hi;
    ir::ActivationRange(op.opts<ir::Pool2DOptions>().activation, &lo, &hi);
    return PrepareRowKernel(g, c, std::make_shared<const MaxPool2x2>(shape, lo, hi), shape.out_h);
  }
  if (c.plain_add) {
    PlainAddShape shape;
    if (!OwnPlainAddShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    float lo, hi;
    ir::ActivationRange(op.opts<ir::BinaryOptions>().activation, &lo, &hi);
    const auto* b = static_cast<const float*>(TensorAddress(c.residual));
    if (!b) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
    return PrepareRowKernel(
        g, c, std::make_shared<const PlainAddRows>(PlainAddRows{PlainAdd(shape, lo, hi), b}),
        shape.rows);
  }
  if (op.type == ir::OpType::kResizeBilinear) {
    ResizeShape shape;
    if (!OwnResizeShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    if (c.add >= 0) {
      PlainAddShape as;
      if (!OwnResizeAddShape(info, c.add, op.outputs[0], &as)) {
        return absl::InternalError(absl::StrCat(g.OpLabel(c.add), ": not for our kernel"));
      }
      float lo, hi;
      ir::ActivationRange(g.ops[c.add].opts<ir::BinaryOptions>().activation, &lo, &hi);
      const auto* b = static_cast<const float*>(TensorAddress(c.residual));
      if (!b) return absl::InternalError(absl::StrCat(g.OpLabel(c.add), ": no buffer"));
      const bool groups = KernelSwitchOn("SLUICE_XNNPACK_RESIZE_GROUPS");
      auto rows = std::make_shared<const ResizeAddRows>(
          ResizeAddRows{ResizeBilinear(shape), PlainAdd(as, lo, hi), b, groups});
      if (groups && pool_) {
        const auto* in = static_cast<const float*>(TensorAddress(c.in));
        auto* out = static_cast<float*>(TensorAddress(c.out));
        if (!in || !out) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
        return ResizeGroupKernel(std::move(rows), in, out, pool_);
      }
      return PrepareRowKernel(g, c, std::move(rows), shape.out_h);
    }
    auto rows = std::make_shared<const ResizeRows>(ResizeRows{ResizeBilinear(shape)});
    if (pool_ && KernelSwitchOn("SLUICE_XNNPACK_RESIZE_GROUPS")) {
      const auto* in = static_cast<const float*>(TensorAddress(c.in));
      auto* out = static_cast<float*>(TensorAddress(c.out));
      if (!in || !out) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
      return ResizeGroupKernel(std::move(rows), in, out, pool_);
    }
    return PrepareRowKernel(g, c, std::move(rows), shape.out_h);
  }
  if (c.global_mean) {
    AddMeanShape shape;
    if (!OwnGlobalMeanShape(info, c.conv, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    float plo, phi;
    GlobalMeanClamp(op, &plo, &phi);
    const float inf = std::numeric_limits<float>::infinity();  // (no ADD to clamp)
    return PrepareAddMean(g, c, AddMean(shape, -inf, inf, plo, phi), nullptr);
  }
  if (c.mean >= 0) {
    AddMeanShape shape;
    if (!OwnAddMeanShape(info, c.conv, c.mean, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    float alo, ahi, plo, phi;
    ir::ActivationRange(op.opts<ir::BinaryOptions>().activation, &alo, &ahi);
    GlobalMeanClamp(g.ops[c.mean], &plo, &phi);
    const auto* b = static_cast<const float*>(TensorAddress(c.residual));
    if (!b) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
    return PrepareAddMean(g, c, AddMean(shape, alo, ahi, plo, phi), b);
  }
  if (c.gate >= 0 && c.gate_mul < 0) {
    GatedAddShape shape;
    if (!OwnGatedAddShape(info, c.conv, c.gate_add, &shape, nullptr, nullptr, nullptr)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    float mlo, mhi, alo, ahi;
    ir::ActivationRange(op.opts<ir::BinaryOptions>().activation, &mlo, &mhi);
    ir::ActivationRange(g.ops[c.gate_add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
    const auto* gate = static_cast<const float*>(TensorAddress(c.gate));
    const auto* b = static_cast<const float*>(TensorAddress(c.gate_b));
    if (!gate || !b) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
    return PrepareRowKernel(
        g, c,
        std::make_shared<const GatedAddRows>(
            GatedAddRows{GatedAdd(shape, mlo, mhi, alo, ahi), gate, b}),
        shape.rows);
  }
  if (c.pw >= 0) {
    DwPwShape shape;
    if (!OwnDwPwBlockShape(info, c.conv, c.pw, c.add, &shape)) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
    }
    ASSIGN_OR_RETURN(ConvConstants dw, LoadConvConstants(info, op));
    ASSIGN_OR_RETURN(ConvConstants pw, LoadConvConstants(info, g.ops[c.pw]));
    DwPwParams p;
    p.dw_weights = dw.weights.data(), p.dw_bias = dw.bias_or_null();
    p.pw_weights = pw.weights.data(), p.pw_bias = pw.bias_or_null();
    ir::ActivationRange(op.opts<ir::DepthwiseConv2DOptions>().activation, &p.dw_min, &p.dw_max);
    ir::ActivationRange(g.ops[c.pw].opts<ir::Conv2DOptions>().activation, &p.pw_min, &p.pw_max);
    ir::ActivationRange(g.ops[c.add].opts<ir::BinaryOptions>().activation, &p.add_min,
                        &p.add_max);
    std::vector<float> slope;
    if (c.prelu >= 0) {
      ASSIGN_OR_RETURN(slope, info.ConstantAsFloat(g.ops[c.prelu].inputs[1]));
      p.prelu_slope = slope.data();
    }
    return PrepareRowKernel(g, c, std::make_shared<const DwPwBlock>(shape, p), shape.h);
  }
  int gemv_k = 0, gemv_n = 0;
  if (OwnGemvShape(info, c.conv, &gemv_k, &gemv_n)) {
    ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
    float lo, hi;
    ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &lo, &hi);
    auto gemv = std::make_shared<const GemvConv>(gemv_k, gemv_n, consts.weights.data(),
                                                 consts.bias_or_null(), lo, hi);
    const int blocks = gemv->blocks();
    return PrepareRowKernel(g, c, gemv, blocks);
  }
  NarrowConvShape narrow;
  if (OwnNarrowConvShape(info, c.conv, &narrow)) {
    // Streamed per band; SLUICE_XNNPACK_NARROW_STREAM=0: the whole-image
    // Stage then Compute (for A/B).
    if (!KernelSwitchOn("SLUICE_XNNPACK_NARROW_STREAM")) {
      return PrepareStagedKernel<NarrowConv>(info, c, narrow);
    }
    ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
    float lo, hi;
    ir::ActivationRange(op.opts<ir::Conv2DOptions>().activation, &lo, &hi);
    return PrepareBandKernel(g, c,
                             std::make_shared<const NarrowConv>(narrow, consts.weights.data(),
                                                                consts.bias_or_null(), lo, hi,
                                                                /*whole_planes=*/false));
  }
  StemConvShape stem;
  if (OwnStemConvShape(info, c.conv, &stem)) return PrepareStagedKernel<StemConv>(info, c, stem);
  UpsampleConvShape upsample;
  if (OwnUpsampleConvShape(info, c.conv, &upsample)) {
    ASSIGN_OR_RETURN(ConvConstants consts, LoadConvConstants(info, op));
    return PrepareRowKernel(g, c,
                            std::make_shared<const UpsampleConv>(upsample, consts.weights.data(),
                                                                 consts.bias_or_null()),
                            upsample.in_h);
  }
  if (op.type == ir::OpType::kDepthwiseConv2D) {
    ASSIGN_OR_RETURN(std::shared_ptr<DepthwiseConv> conv, MakeDepthwise(info, c.conv));
    const int rows = conv->shape().out_h;
    if (c.add >= 0) {  // the ADD after it, as its epilogue
      float alo, ahi;
      ir::ActivationRange(g.ops[c.add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
      conv->SetResidualAdd(alo, ahi);
      const auto* r = static_cast<const float*>(TensorAddress(c.residual));
      if (!r && !c.pre) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
      if (c.upsample >= 0) {  // (OwnChain::upsample): the ADD inside the fused kernel
        UpsampleConvShape up;
        if (!OwnUpsampleConvShape(info, c.upsample, &up) ||
            !DepthwiseAddUpsample::Supports(conv->shape(), up)) {
          return absl::InternalError(absl::StrCat(g.OpLabel(c.upsample), ": not absorbable"));
        }
        ASSIGN_OR_RETURN(ConvConstants uc, LoadConvConstants(info, g.ops[c.upsample]));
        auto fused = std::make_shared<DepthwiseAddUpsample>(
            std::move(conv),
            std::make_shared<const UpsampleConv>(up, uc.weights.data(), uc.bias_or_null()), r,
            alo, ahi);
        if (c.sigmoid >= 0 && !fused->SetSigmoid()) {
          return absl::InternalError(absl::StrCat(g.OpLabel(c.sigmoid), ": creating it failed"));
        }
        if (c.pre) return PrepareStagedDepthwise(info, c, std::move(fused), nullptr);
        const int units = fused->units();
        return PrepareRowKernel(g, c, std::shared_ptr<const DepthwiseAddUpsample>(std::move(fused)),
                                units);
      }
      if (c.pre) return PrepareStagedDepthwise(info, c, nullptr, std::move(conv));
      return PrepareRowKernel(
          g, c, std::make_shared<const DepthwiseAddRows>(DepthwiseAddRows{conv, r}), rows);
    }
    if (c.act >= 0) {  // the HARD_SWISH after it (hard_swish.h)
      const auto& s = conv->shape();
      // With threads, fewer than 16 rows (landscape's 9x16 squeeze-excite
      // steps) as one row range a thread: single rows went 4, 2, 1, 1, 1 by
      // the pool's halving claims, each range re-reading its 5x5 halo rows
      // (the five steps 2T 0.046 -> 0.042-0.045 ms; 16 rows measured no
      // better). SLUICE_XNNPACK_DW_HALVES=0: a row an item.
      int per = 1;
      if (pool_ && rows < 16 && KernelSwitchOn("SLUICE_XNNPACK_DW_HALVES")) {
        const int threads = static_cast<int>(pthreadpool_get_threads_count(pool_));
        per = (rows + threads - 1) / threads;
      }
      return PrepareRowKernel(
          g, c,
          std::make_shared<const DepthwiseHardSwishRows>(DepthwiseHardSwishRows{
              std::move(conv), static_cast<size_t>(s.out_w) * s.channels}),
          rows, per);
    }
    return PrepareRowKernel(g, c, std::shared_ptr<const DepthwiseConv>(std::move(conv)), rows);
  }
  const int k = g.tensors[op.inputs[1]].shape[3];
  ASSIGN_OR_RETURN(std::shared_ptr<PointwiseConv> conv, MakePointwise(info, c));
  const size_t rows = static_cast<size_t>(g.tensors[op.inputs[0]].num_elements()) / k;
  auto task = std::make_shared<PointwiseTask>(PointwiseTask{
      conv.get(), static_cast<const float*>(TensorAddress(c.in)),
      c.residual >= 0 ? static_cast<const float*>(TensorAddress(c.residual)) : nullptr,
      static_cast<float*>(TensorAddress(c.out)), rows});
  if (pool) {
    task->chunk_rows =
        PointwiseChunkRows(rows, k, conv->blocks(), pthreadpool_get_threads_count(pool));
    task->chunks = (rows + task->chunk_rows - 1) / task->chunk_rows;
  }
  if (!task->in || !task->out || (c.residual >= 0 && !task->residual)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  }
  if (c.gate_mul >= 0 || c.resize >= 0) {
    // With the mean's chain following the chunks (MeanChain), a large step
    // (from 8192 pixels) in at least StagedMeanTasks() chunks: the 1x1's rule
    // gave landscape's 72x128 decoder step 9 chunks of 1022 pixels, ~6 us
    // each (op 101 2T 0.037-0.038 -> 0.033-0.035 ms in 16-19; selfie's
    // 128x128 has 16 already; its 64x64 and 32x32 ones measured slower in
    // smaller chunks).
    if (pool && c.mean_add >= 0 && rows >= 8192 && StagedMeanTasks() > task->chunks) {
      constexpr size_t kTile = PointwiseConv::kTileRows;
      const size_t tiles = (rows + kTile - 1) / kTile;
      task->chunk_rows = std::max<size_t>(1, tiles / StagedMeanTasks()) * kTile;
      task->chunks = (rows + task->chunk_rows - 1) / task->chunk_rows;
    }
    return PrepareStagedPointwise(info, c, std::move(conv), task);
  }
  if (c.act >= 0) return PointwiseHardSwishKernel(conv, task, pool);
  if (pool) {
    if (auto ranges = PointwiseRowRanges(*conv, *task, pthreadpool_get_threads_count(pool))) {
      return reference::Kernel([conv, ranges, pool] {
        PoolHandOff(ranges.get());
        pthreadpool_parallelize_1d(pool, RunPointwiseRows, ranges.get(), ranges->chunks, 0);
        PoolTakeOver(ranges.get());
      });
    }
  }
  return reference::Kernel([conv, task, pool] {
    if (pool) {
      PoolHandOff(task.get());
      if (task->conv->BlocksOuter()) {
        pthreadpool_parallelize_2d(pool, RunPointwiseTaskByBlock, task.get(),
                                   task->conv->blocks(), task->chunks, 0);
      } else {
        pthreadpool_parallelize_2d(pool, RunPointwiseTask, task.get(), task->chunks,
                                   task->conv->blocks(), 0);
      }
      PoolTakeOver(task.get());
    } else {
      task->conv->Run(task->in, task->residual, task->out, 0, task->rows);
    }
  });
}

// A 1x1 conv fed by an input computed on the fly (OwnChain::gate_mul,
// OwnChain::resize): rows are staged through an L1 buffer, the source
// filling it, the GEMM reading it.
class PixelSource {
 public:
  virtual ~PixelSource() = default;
  // The conv's input pixels [first, first + pixels), packed into `stage`.
  virtual void Fill(size_t first, size_t pixels, float* stage) const = 0;
  // Where a Fill from `first` of `step` pixels (at most `most`) should end.
  virtual size_t ChunkEnd(size_t first, size_t step, size_t most) const {
    (void)most;
    return first + step;
  }
};
class GatedSource : public PixelSource {
 public:
  GatedSource(const GatedAdd& k, const float* x, const float* gate, const float* b)
      : k_(k), x_(x), gate_(gate), b_(b) {}
  void Fill(size_t first, size_t pixels, float* stage) const override {
    const size_t c = static_cast<size_t>(k_.shape().channels);
    k_.RunPixels(x_ + first * c, gate_, b_ ? b_ + first * c : nullptr, stage, pixels);
  }

 private:
  GatedAdd k_;
  const float *x_, *gate_, *b_;
};
class ResizeSource : public PixelSource {
 public:
  ResizeSource(const ResizeShape& s, const float* x) : k_(s), x_(x) {}
  void Fill(size_t first, size_t pixels, float* stage) const override {
    k_.Fill(x_, first, pixels, stage);
  }
  size_t ChunkEnd(size_t first, size_t step, size_t most) const override {
    return k_.ChunkEnd(first, step, most);
  }

 private:
  ResizeBilinear k_;
  const float* x_;
};
// The staged mean's chain taken in the tasks: a task whose first block is
// where the chain has got to (`at`, blocks, reset before each call) adds its
// blocks to the running sums (AddMean::Chain) instead of storing them, then
// moves `at` to its end (release: `acc` is written first); the other tasks
// store as before and the caller chains the rest (AddMean::FinishFrom). With
// the pool's halving claims the caller takes the first half of the chunks in
// order: that half of the serial chain leaves the critical path (one thread:
// all of it). Same adds in the same order, so the same bits.
//
// SLUICE_XNNPACK_MEAN_FOLLOW: the chain also follows the stored chunks as
// they are finished. A task that stored its sums marks its chunk ready (a
// stamp per call); every task, when done, chains on over ready chunks from
// `at` (AddMean::ChainStored; one chainer at a time, `busy`). So the other
// thread's half is chained while that thread still computes, by whichever
// thread is between chunks, instead of after the call on the caller alone
// (~2340 blocks x 3 dependent adds on selfie's 128x128 step: ~10 us serial).
struct MeanChain {
  std::atomic<size_t> at{0};
  std::vector<float> acc;  // groups() x 16: the running sums of blocks [0, at)
  bool follow = false;
  size_t chunk_blocks = 0;  // chunk_rows / 7
  uint32_t call = 0;  // this call's stamp (set by the caller before the call)
  std::unique_ptr<std::atomic<uint32_t>[]> ready;  // per chunk: the stamp when stored
  std::atomic<bool> busy{false};
};
struct StagedPointwiseTask {
  std::shared_ptr<const PointwiseTask> p;
  std::unique_ptr<const PixelSource> source;
  size_t residual_channels;
  // OwnChain::mean_add: the block sums of out + mean_b per task (tasks start
  // at whole 7-pixel blocks), finished by the caller into mean_out.
  std::shared_ptr<const AddMean> mean;
  const float* mean_b = nullptr;
  float* mean_out = nullptr;
  HugeFloats mean_storage;  // Partial's sums (AddMean::ScratchFloats())
  float* mean_scratch = nullptr;  // mean_storage's data
  // SLUICE_XNNPACK_MEAN_CHAIN: the chain taken in the tasks (MeanChain).
  std::unique_ptr<MeanChain> chain;
  // OwnChain::then: the 1x1 (+ HARD_SWISH) on the rows just written.
  std::shared_ptr<const PointwiseConv> then;
  float* then_out = nullptr;
};
// The mean's block sums (OwnChain::mean_add) from block `done` to the last
// whole 7-pixel block that the conv's output rows below `r` complete (all
// blocks at the last row: the last one is padded with zeros); returns the
// next block to take.
size_t StagedMeanPartial(const StagedPointwiseTask& t, size_t done, size_t r, bool chained) {
  const AddMean& k = *t.mean;
  const size_t upto = r >= t.p->rows ? static_cast<size_t>(k.blocks()) : r / 7;
  if (upto <= done) return done;
  for (int g = 0; g < k.groups(); ++g) {
    if (chained) {  // (MeanChain)
      k.Chain(t.p->out, t.mean_b, t.chain->acc.data() + static_cast<size_t>(g) * 16, g,
              static_cast<int>(done), static_cast<int>(upto));
    } else {
      k.Partial(t.p->out, t.mean_b, t.mean_scratch, g, static_cast<int>(done),
                static_cast<int>(upto));
    }
  }
  return upto;
}
// Rows [begin, end) of the 1x1 conv, all channel blocks, the input staged
// from the source a few rows at a time.
bool RunStagedPointwiseRows(const StagedPointwiseTask& t, size_t begin, size_t end) {
  alignas(64) float stage[GatedAdd::kStageFloats];
  const PointwiseConv& conv = *t.p->conv;
  const size_t k = conv.k(), n = conv.n();
  constexpr size_t kTile = PointwiseConv::kTileRows;
  // ~16 KiB of rows, but at least 8 tiles (wide K: the GEMM re-reads its
  // weights for every staged chunk), within the stage.
  const size_t rows = std::min(std::max<size_t>(4096 / k, 8 * kTile), GatedAdd::kStageFloats / k);
  const size_t step = std::max<size_t>(1, rows / kTile) * kTile;
  size_t done = begin / 7;  // OwnChain::mean_add: tasks start at whole blocks
  // (MeanChain) the chain has reached this task's first block: take it on.
  const bool chained = t.chain && t.chain->at.load(std::memory_order_acquire) == done;
  for (size_t r = begin; r < end;) {
    const size_t m = std::min(t.source->ChunkEnd(r, step, GatedAdd::kStageFloats / k), end) - r;
    t.source->Fill(r, m, stage);
    conv.Run(stage, t.p->residual ? t.p->residual + r * t.residual_channels : nullptr,
             t.p->out + r * n, 0, m);
    if (t.then) {  // (OwnChain::then) its rows from L1
      const size_t n2 = static_cast<size_t>(t.then->n());
      t.then->Run(t.p->out + r * n, nullptr, t.then_out + r * n2, 0, m);
      HardSwishInPlace(t.then_out + r * n2, m * n2);
    }
    r += m;
    if (t.mean) done = StagedMeanPartial(t, done, r, chained);
  }
  if (chained) t.chain->at.store(done, std::memory_order_release);
  return chained;
}
// (MEAN_FOLLOW) Chains on over the ready chunks from `at`, unless another
// thread is at it; looks again after letting go, for a chunk marked ready
// while this thread held `busy` (its finisher found it taken).
void FollowMeanChain(const StagedPointwiseTask& t) {
  MeanChain& ch = *t.chain;
  const size_t blocks = static_cast<size_t>(t.mean->blocks());
  for (;;) {
    if (ch.busy.exchange(true, std::memory_order_acquire)) return;
    size_t at = ch.at.load(std::memory_order_acquire);
    while (at < blocks &&
           ch.ready[at / ch.chunk_blocks].load(std::memory_order_acquire) == ch.call) {
      const size_t end = std::min(blocks, at + ch.chunk_blocks);
      t.mean->ChainStored(t.mean_scratch, ch.acc.data(), static_cast<int>(at),
                          static_cast<int>(end));
      at = end;
      ch.at.store(at, std::memory_order_release);
    }
    ch.busy.store(false, std::memory_order_release);
    if (at >= blocks ||
        ch.ready[at / ch.chunk_blocks].load(std::memory_order_acquire) != ch.call) {
      return;
    }
  }
}
void RunStagedPointwiseTask(void* context, size_t chunk) {
  const auto* t = static_cast<const StagedPointwiseTask*>(context);
  PoolTakeOver(t);
  const size_t begin = chunk * t->p->chunk_rows;
  const bool chained =
      RunStagedPointwiseRows(*t, begin, std::min(t->p->rows, begin + t->p->chunk_rows));
  if (t->chain && t->chain->follow) {
    if (!chained) t->chain->ready[chunk].store(t->chain->call, std::memory_order_release);
    FollowMeanChain(*t);
  }
  PoolHandOff(t);
}

absl::StatusOr<std::unique_ptr<const PixelSource>> XnnpackModel::MakePixelSource(
    const GraphInfo& info, const OwnChain& c) {
  const ir::Graph& g = info.graph();
  const auto* x = static_cast<const float*>(TensorAddress(c.in));
  if (c.resize >= 0) {
    ResizeShape shape;
    if (!OwnResizeShape(info, c.resize, &shape) || !x) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.resize), ": not for our kernel"));
    }
    return std::unique_ptr<const PixelSource>(std::make_unique<ResizeSource>(shape, x));
  }
  if (c.gate_mul < 0) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no staged input"));
  }
  GatedAddShape shape;
  if (!OwnGatedAddShape(info, c.gate_mul, c.gate_add, &shape, nullptr, nullptr, nullptr)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": not for our kernel"));
  }
  float mlo, mhi, alo = 0, ahi = 0;
  ir::ActivationRange(g.ops[c.gate_mul].opts<ir::BinaryOptions>().activation, &mlo, &mhi);
  if (c.gate_add >= 0) {
    ir::ActivationRange(g.ops[c.gate_add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
  }
  const auto* gate = static_cast<const float*>(TensorAddress(c.gate));
  const auto* b = static_cast<const float*>(TensorAddress(c.gate_b));  // null: MUL alone
  if (!x || !gate || (c.gate_add >= 0 && !b)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  }
  return std::unique_ptr<const PixelSource>(
      std::make_unique<GatedSource>(GatedAdd(shape, mlo, mhi, alo, ahi), x, gate, b));
}

// OwnChain::mean_add's kernel and buffers on a staged 1x1's task.
absl::Status XnnpackModel::SetStagedMean(const GraphInfo& info, const OwnChain& c,
                                         StagedPointwiseTask* t) {
  const ir::Graph& g = info.graph();
  AddMeanShape shape;
  if (!OwnAddMeanShape(info, c.mean_add, c.mean_pool, &shape) ||
      static_cast<size_t>(shape.pixels) != t->p->rows || shape.channels != t->p->conv->n() ||
      (t->p->chunks > 0 && t->p->chunk_rows % 7 != 0)) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.mean_add), ": not for our kernel"));
  }
  float alo, ahi, plo, phi;
  ir::ActivationRange(g.ops[c.mean_add].opts<ir::BinaryOptions>().activation, &alo, &ahi);
  GlobalMeanClamp(g.ops[c.mean_pool], &plo, &phi);
  t->mean = std::make_shared<const AddMean>(shape, alo, ahi, plo, phi);
  t->mean_b = static_cast<const float*>(TensorAddress(c.mean_b));
  t->mean_out = static_cast<float*>(TensorAddress(c.mean_out));
  if (!t->mean_b || !t->mean_out) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.mean_add), ": no buffer"));
  }
  t->mean_storage.assign(t->mean->ScratchFloats(), 0.0f);
  t->mean_scratch = t->mean_storage.data();
  if (KernelSwitchOn("SLUICE_XNNPACK_MEAN_CHAIN")) {
    t->chain = std::make_unique<MeanChain>();
    t->chain->acc.assign(static_cast<size_t>(t->mean->groups()) * 16, 0.0f);
    if (t->p->chunks > 0 && KernelSwitchOn("SLUICE_XNNPACK_MEAN_FOLLOW")) {
      t->chain->follow = true;
      t->chain->chunk_blocks = t->p->chunk_rows / 7;
      t->chain->ready = std::make_unique<std::atomic<uint32_t>[]>(t->p->chunks);
      for (size_t i = 0; i < t->p->chunks; ++i) t->chain->ready[i].store(0);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<reference::Kernel> XnnpackModel::PrepareStagedPointwise(
    const GraphInfo& info, const OwnChain& c, std::shared_ptr<const PointwiseConv> conv,
    std::shared_ptr<const PointwiseTask> task) {
  ASSIGN_OR_RETURN(std::unique_ptr<const PixelSource> source, MakePixelSource(info, c));
  auto t = std::make_shared<StagedPointwiseTask>(StagedPointwiseTask{
      std::move(task), std::move(source), static_cast<size_t>(c.residual_channels)});
  if (c.mean_add >= 0) RETURN_IF_ERROR(SetStagedMean(info, c, t.get()));
  if (c.then) {
    ASSIGN_OR_RETURN(std::shared_ptr<PointwiseConv> then, MakePointwise(info, *c.then));
    t->then_out = static_cast<float*>(TensorAddress(c.then->out));
    if (!t->then_out || then->k() != t->p->conv->n()) {
      return absl::InternalError(absl::StrCat(info.graph().OpLabel(c.then->conv), ": not absorbable"));
    }
    t->then = std::move(then);
  }
  pthreadpool_t pool = pool_;
  return reference::Kernel([conv, t, pool] {
    if (t->chain) {
      t->chain->at.store(0, std::memory_order_relaxed);
      if (++t->chain->call == 0) t->chain->call = 1;  // (0: a chunk never stored)
    }
    if (pool) {
      PoolHandOff(t.get());
      pthreadpool_parallelize_1d(pool, RunStagedPointwiseTask, t.get(), t->p->chunks, 0);
      PoolTakeOver(t.get());
    } else {
      RunStagedPointwiseRows(*t, 0, t->p->rows);
    }
    if (t->mean) {  // the chain from where the tasks left it (block 0 without MeanChain)
      const size_t at = t->chain ? t->chain->at.load(std::memory_order_acquire) : 0;
      t->mean->FinishFrom(t->mean_scratch, t->chain ? t->chain->acc.data() : nullptr,
                          static_cast<int>(at), t->mean_out);
    }
  });
}

absl::StatusOr<reference::Kernel> XnnpackModel::PrepareAddMean(const ir::Graph& g,
                                                               const OwnChain& c,
                                                               const AddMean& k, const float* b) {
  pthreadpool_t pool = pool_;
  const int groups = k.groups();
  const int chunks = (k.blocks() + kAddMeanChunkBlocks - 1) / kAddMeanChunkBlocks;
  if (pool && AddMeanSplit() && chunks >= 2 &&
      static_cast<size_t>(groups) < 2 * pthreadpool_get_threads_count(pool)) {
    auto task = std::make_shared<AddMeanTask>(AddMeanTask{
        k, static_cast<const float*>(TensorAddress(c.in)), b,
        static_cast<float*>(TensorAddress(c.out)), chunks, {}, nullptr});
    if (!task->a || !task->out) {
      return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
    }
    task->storage.assign(k.ScratchFloats(), 0.0f);
    task->scratch = task->storage.data();
    return reference::Kernel([task, pool, groups, chunks] {
      PoolHandOff(task.get());
      pthreadpool_parallelize_2d(pool, RunAddMeanPartial, task.get(), groups, chunks, 0);
      pthreadpool_parallelize_1d(pool, RunAddMeanFinish, task.get(), groups, 0);
      PoolTakeOver(task.get());
    });
  }
  return PrepareRowKernel(g, c, std::make_shared<const AddMeanGroups>(AddMeanGroups{k, b}),
                          groups);
}

// OwnChain::pre: the staged 1x1 -> DEPTHWISE + ADD (-> 2x2 upsample) in
// bands of depthwise rows, one band a thread. A band computes the 1x1's rows
// (its staged input, then the conv) into a ring of K rows as the depthwise
// needs them, the K - 1 halo rows at its edges too (computed twice, once per
// band: 2 of 64 rows on selfie's 128x128 at two threads), so the 1x1's 1 MB
// output is never written nor read back, and the two steps are one parallel
// call. Per row the same operations as the two kernels: the same bits.
struct StagedDepthwiseTask {
  std::shared_ptr<const DepthwiseAddUpsample> up;  // with the upsample, or
  std::shared_ptr<const DepthwiseConv> dw;         // without (its ADD epilogue set)
  std::shared_ptr<const PointwiseConv> conv;
  std::unique_ptr<const PixelSource> source;
  float* out = nullptr;
  int bands = 1;
  size_t ring_floats = 0;  // K rows of in_w x channels, per band
  HugeFloats storage;  // scratch, on huge pages like the weights
  float* rings = nullptr;  // storage's data, 64-byte aligned
};
void RunStagedDepthwiseBand(const StagedDepthwiseTask& t, int band) {
  const DepthwiseShape& s = t.up ? t.up->depthwise_shape() : t.dw->shape();
  const int h = s.out_h, k = s.kernel;
  const size_t w = static_cast<size_t>(s.in_w), row = w * s.channels;
  const int y0 = band * h / t.bands, y1 = (band + 1) * h / t.bands;
  float* ring = t.rings + static_cast<size_t>(band) * t.ring_floats;
  alignas(64) float stage[GatedAdd::kStageFloats];
  auto slot = [&](int r) { return ring + static_cast<size_t>(r % k) * row; };
  int next = std::max(0, y0 - s.pad_top);  // the next input row to compute
  const float* rows[5];
  for (int y = y0; y < y1; ++y) {
    const int top = y - s.pad_top;  // (stride 1: input rows top .. top + k - 1)
    for (const int last = std::min(top + k - 1, h - 1); next <= last; ++next) {
      t.source->Fill(static_cast<size_t>(next) * w, w, stage);
      t.conv->Run(stage, nullptr, slot(next), 0, w);
    }
    for (int ky = 0; ky < k; ++ky) rows[ky] = slot(std::min(std::max(top + ky, 0), h - 1));
    if (t.up) {
      t.up->RunRow(rows, slot(y), t.out, y);
    } else {
      t.dw->RunRowAdd(rows, slot(y), y, t.out + static_cast<size_t>(y) * row);
    }
  }
}
void RunStagedDepthwiseTask(void* context, size_t band) {
  const auto* t = static_cast<const StagedDepthwiseTask*>(context);
  PoolTakeOver(t);
  RunStagedDepthwiseBand(*t, static_cast<int>(band));
  PoolHandOff(t);
}

absl::StatusOr<reference::Kernel> XnnpackModel::PrepareStagedDepthwise(
    const GraphInfo& info, const OwnChain& c, std::shared_ptr<const DepthwiseAddUpsample> up,
    std::shared_ptr<const DepthwiseConv> dw) {
  const ir::Graph& g = info.graph();
  const DepthwiseShape& s = up ? up->depthwise_shape() : dw->shape();
  ASSIGN_OR_RETURN(std::shared_ptr<PointwiseConv> conv, MakePointwise(info, *c.pre));
  ASSIGN_OR_RETURN(std::unique_ptr<const PixelSource> source, MakePixelSource(info, *c.pre));
  if (s.stride_h != 1 || s.kernel > 5 || s.in_h != s.out_h || conv->n() != s.channels ||
      static_cast<size_t>(s.in_w) * conv->k() > GatedAdd::kStageFloats) {
    return absl::InternalError(absl::StrCat(g.OpLabel(c.pre->conv), ": not absorbable"));
  }
  auto t = std::make_shared<StagedDepthwiseTask>();
  t->up = std::move(up);
  t->dw = std::move(dw);
  t->conv = std::move(conv);
  t->source = std::move(source);
  t->out = static_cast<float*>(TensorAddress(c.out));
  if (!t->out) return absl::InternalError(absl::StrCat(g.OpLabel(c.conv), ": no buffer"));
  pthreadpool_t pool = pool_;
  if (pool) {
    t->bands = std::min(s.out_h, static_cast<int>(pthreadpool_get_threads_count(pool)));
  }
  t->ring_floats = (static_cast<size_t>(s.kernel) * s.in_w * s.channels + 15) / 16 * 16;
  t->storage.assign(t->ring_floats * t->bands + 16, 0.0f);
  const uintptr_t p = reinterpret_cast<uintptr_t>(t->storage.data());
  t->rings = reinterpret_cast<float*>((p + 63) & ~uintptr_t{63});
  return reference::Kernel([t, pool] {
    if (pool && t->bands > 1) {
      PoolHandOff(t.get());
      pthreadpool_parallelize_1d(pool, RunStagedDepthwiseTask, t.get(), t->bands, 0);
      PoolTakeOver(t.get());
    } else {
      RunStagedDepthwiseBand(*t, 0);
    }
  });
}

absl::Status XnnpackModel::BuildSegment(const GraphInfo& info, const std::vector<int>& ops,
                                        const std::vector<std::vector<int>>& consumers,
                                        const std::vector<Kind>& kind, int* failed_op) {
  const ir::Graph& graph = info.graph();
  const std::set<int> in_seg(ops.begin(), ops.end());
  // External values: what the segment reads from, or leaves to, the outside.
  std::vector<std::pair<int, bool>> externals;  // tensor, is_input
  std::set<int> seen;
  for (int i : ops) {
    for (int t : graph.ops[i].inputs) {
      if (t >= 0 && !info.IsConstant(t) && !in_seg.count(info.producer(t)) &&
          seen.insert(t).second) {
        externals.emplace_back(t, true);
      }
    }
  }
  for (int i : ops) {
    for (int t : graph.ops[i].outputs) {
      bool outside = graph_outputs_.count(t) > 0;
      for (int c : consumers[t]) outside |= !in_seg.count(c) && kind[c] != Kind::kFolded;
      if (outside && seen.insert(t).second) externals.emplace_back(t, false);
    }
  }
  xnn_subgraph_t subgraph = nullptr;
  xnn_status st = xnn_create_subgraph(static_cast<uint32_t>(externals.size()), 0, &subgraph);
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_create_subgraph: ", XnnStatusName(st)));
  }
  std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph,
                                                                      xnn_delete_subgraph);
  SubgraphBuilder builder(info, subgraph, &weights_);
  std::vector<xnn_external_value> bindings;
  for (size_t k = 0; k < externals.size(); ++k) {
    RETURN_IF_ERROR(
        builder.DefineExternal(externals[k].first, static_cast<uint32_t>(k), externals[k].second));
    bindings.push_back(
        xnn_external_value{static_cast<uint32_t>(k), TensorAddress(externals[k].first)});
  }
  for (int i : ops) {
    const absl::Status s = VisitOp(info, i, &builder);
    if (!s.ok()) {
      *failed_op = i;
      return s;
    }
  }
  xnn_runtime_t runtime = nullptr;
  st = xnn_create_runtime_v2(subgraph, pool_, 0, &runtime);
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_create_runtime_v2 for ",
                                            graph.OpLabel(ops.front()), "..",
                                            graph.OpLabel(ops.back()), ": ", XnnStatusName(st)));
  }
  steps_.push_back(Step{runtime, nullptr, ops.front(), ops});
  // The buffers never move, so the runtime is set up once.
  st = xnn_setup_runtime(runtime, bindings.size(), bindings.data());
  if (st != xnn_status_success) {
    return absl::InternalError(absl::StrCat("xnn_setup_runtime: ", XnnStatusName(st)));
  }
  return absl::OkStatus();
}

class XnnpackBackend : public Backend {
 public:
  std::string_view Name() const override { return kName; }
  bool IsAvailable() const override { return InitializeXnnpack().ok(); }
  absl::Status SupportsOp(const ir::Graph& graph, int op_index) const override {
    if (op_index < 0 || op_index >= static_cast<int>(graph.ops.size())) {
      return absl::InvalidArgumentError(absl::StrCat("no op ", op_index));
    }
    return VisitOp(GraphInfo(graph), op_index, nullptr);
  }
  absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(
      const ir::Graph& graph, const BackendOptions& options) const override {
    // If XNNPACK refuses a node the visitor accepted (a limit of this library
    // version we did not foresee), that op becomes an island and we start over.
    std::set<int> demoted;
    for (;;) {
      auto model = std::make_unique<XnnpackModel>();
      int failed_op = -1;
      const absl::Status s = model->Build(graph, options, demoted, &failed_op);
      if (s.ok()) return std::unique_ptr<CompiledModel>(std::move(model));
      if (failed_op < 0 || !demoted.insert(failed_op).second) return s;
    }
  }
};

}  // namespace

std::unique_ptr<Backend> CreateXnnpackBackend() { return std::make_unique<XnnpackBackend>(); }

}  // namespace sluice::inference::xnn
