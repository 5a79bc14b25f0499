// Our own AVX-512 kernel for a global mean of a sum,
//   m[c] = AVERAGE_POOL_2D over all H x W pixels of ADD(a, b)
// where the sum is read by the pooling alone (the selfie segmentation
// decoders' squeeze-excite input, 128x128x16): one pass over a and b, the
// sum never written (XNNPACK 2022 runs the ADD, 0.09 ms, then the pooling,
// 0.03 ms, which reads it back).
//
// Same bits as XNNPACK's two nodes: the ADD's a + b, clamped; then its
// global-average-pooling kernel's order (the 7p7x kernel: pixels in groups of
// 7, the first summed as ((p0 + p1) + p6) + ((p2 + p3) + (p4 + p5)), each
// further group as ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + acc)), the
// last group padded with zeros), times 1 / (H * W), clamped. More than 7
// pixels only (XNNPACK sums up to 7 with another kernel). With `b` null, the
// mean of `a` alone (XNNPACK's global average pooling: no ADD, no clamp
// before the sums).
#ifndef SLUICE_INFERENCE_XNNPACK_ADD_MEAN_H_
#define SLUICE_INFERENCE_XNNPACK_ADD_MEAN_H_

#include <cstddef>

namespace sluice::inference::xnn {

struct AddMeanShape {
  int pixels = 0, channels = 0;  // a, b: pixels x channels; out: channels
};

class AddMean {
 public:
  // True when the kernel handles this shape on this CPU (AVX-512F).
  static bool Supports(const AddMeanShape& s);
  AddMean(const AddMeanShape& s, float add_min, float add_max, float pool_min, float pool_max);
  const AddMeanShape& shape() const { return s_; }
  // Channels [16 * group_begin, 16 * group_end) of the mean (groups of 16
  // channels are independent: threads split by them).
  void Run(const float* a, const float* b, float* out, int group_begin, int group_end) const;
  int groups() const { return (s_.channels + 15) / 16; }

  // The same sums in two phases, so that threads can split the pixels (with
  // 16 channels there is only one group): Partial() stores, for each block
  // of 7 pixels in [block_begin, block_end) of group g, the three sums that
  // do not depend on the running total (block 0: its whole sum); Finish()
  // then runs the chain over the stored sums, in the order above (same bits).
  int blocks() const { return (s_.pixels + 6) / 7; }
  size_t ScratchFloats() const { return static_cast<size_t>(groups()) * blocks() * 3 * 16; }
  void Partial(const float* a, const float* b, float* scratch, int g, int block_begin,
               int block_end) const;
  void Finish(const float* scratch, float* out, int group_begin, int group_end) const;

  // The chain taken as the blocks arrive (same bits as Partial, then Finish):
  // Chain() adds blocks [block_begin, block_end) of group g to the running sum
  // `acc` (16 floats; block 0 sets it), storing nothing; so a thread that
  // takes the blocks in order keeps the chain's dependent adds behind the
  // loads of the next blocks. FinishFrom() runs Finish's chain from block
  // `block_begin` on (stored sums, as Partial wrote them), starting from the
  // running sums `acc` of the blocks before it (groups() x 16 floats; unread
  // when block_begin is 0), and stores the mean (four groups' chains at
  // once: independent, so their latencies overlap).
  void Chain(const float* a, const float* b, float* acc, int g, int block_begin,
             int block_end) const;
  void FinishFrom(const float* scratch, const float* acc, int block_begin, float* out) const;
  // Finish's chain over the stored sums of blocks [block_begin, block_end)
  // only, into the running sums `acc` (groups() x 16; block 0 sets them):
  // the chain taken up to where stored blocks are ready, FinishFrom the rest.
  void ChainStored(const float* scratch, float* acc, int block_begin, int block_end) const;

 private:
  AddMeanShape s_;
  float clamp_[4];  // add min, max; pool min, max
  float scale_;
};

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_ADD_MEAN_H_
