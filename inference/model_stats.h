// Static figures of a graph: op histogram, multiply-accumulates, parameters,
// activation memory. Counting conventions are MODELS_INVENTORY.md's.
#ifndef SLUICE_INFERENCE_MODEL_STATS_H_
#define SLUICE_INFERENCE_MODEL_STATS_H_

#include <cstdint>
#include <map>
#include <string>

#include "inference/ir.h"

namespace sluice::inference {

struct ModelStats {
  std::map<std::string, int> op_histogram;  // op name -> count
  // CONV_2D N*OH*OW*OC*KH*KW*IC; DEPTHWISE N*OH*OW*OC*KH*KW; FULLY_CONNECTED
  // rows*OUT*IN; transposed conv N*IH*IW*IC*KH*KW*OC.
  int64_t macs = 0;
  int64_t params = 0;       // float weight elements the ops read
  int64_t param_bytes = 0;  // bytes of all constants the ops read (fp32 after folding)
};

ModelStats ComputeStats(const ir::Graph& graph);
// Multiply-accumulates of one op (same conventions; 0 for ops without a filter).
int64_t OpMacs(const ir::Graph& graph, int op_index);
// The float operations of one op besides its multiply-accumulates,
// MODELS_INVENTORY.md's "other elem-ops": one per output element for the
// epilogue of a filter op (bias and/or its own fused activation), for ADD / MUL
// / PRELU / LOGISTIC / HARD_SWISH / RELU and the like; KH*KW per output element
// of a pooling; the input elements of a MEAN; four per output element of a
// bilinear resize or warp; none for data movement (PAD, CONCATENATION, RESHAPE,
// slices) and constant folds. Counted on the file's graph, before the load
// passes fuse a RELU op into the filter before it (Model::element_ops()).
int64_t OpElementOps(const ir::Graph& graph, int op_index);
int64_t ElementOps(const ir::Graph& graph);

}  // namespace sluice::inference

#endif  // SLUICE_INFERENCE_MODEL_STATS_H_
