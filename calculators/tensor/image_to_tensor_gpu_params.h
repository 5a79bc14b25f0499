// Launch parameters of ImageToTensorCalculator's GPU path
// (gpu/kernels/image_to_tensor.h) from the calculator's geometry. Header-only
// and CUDA-free, so every build (and the CI's CPU loop) computes them as the
// GPU path does.
#ifndef SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_PARAMS_H_
#define SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_PARAMS_H_

#include "calculators/tensor/image_to_tensor_cpu.h"
#include "calculators/tensor/image_to_tensor_math.h"
#include "gpu/kernels/image_to_tensor.h"

namespace sluice {
namespace image_to_tensor {

// A source of `src_width` x `src_height` pixels with `src_channels`
// interleaved bytes each (rows `src_pitch` bytes apart) into a
// [1, tensor_height, tensor_width, C] float tensor (C = 1 for one source
// channel, else 3), the value range as MediaPipe's alpha/beta on [0, 1]
// samples. Sample positions are the CPU path's (the corner map as is: tensor
// pixel u at ROI position u, image pixel i at i), not MediaPipe's GL ones
// (pixel centres, PixelCentreTransform): the GL convention shifts samples by
// (1 - scale) / 2 source pixels and would make `--device cuda` differ from
// `--device cpu` (and from Google's CPU package, which our CPU path matches)
// by up to 178 levels at hard edges; with the CPU positions the two paths
// differ only by the CPU path's 8-bit rounding (measured in
// image_to_tensor_gpu_math_test).
inline gpu_kernels::ImageToTensorParams MakeGpuParams(const RotatedRect& roi, int src_width,
                                                      int src_height, int src_channels,
                                                      long src_pitch, int tensor_width,
                                                      int tensor_height, float range_min,
                                                      float range_max, BorderMode border) {
  gpu_kernels::ImageToTensorParams p{};
  float corner[6];
  TensorToImagePixelTransform(roi, tensor_width, tensor_height, corner);
  for (int i = 0; i < 6; ++i) p.m[i] = corner[i];
  p.src_width = src_width;
  p.src_height = src_height;
  p.src_channels = src_channels;
  p.src_pitch = src_pitch;
  p.dst_width = tensor_width;
  p.dst_height = tensor_height;
  p.dst_channels = src_channels == 1 ? 1 : 3;
  p.alpha = range_max - range_min;
  p.beta = range_min;
  p.border = border == BorderMode::kZero ? gpu_kernels::kImageToTensorBorderZero
                                         : gpu_kernels::kImageToTensorBorderReplicate;
  return p;
}

}  // namespace image_to_tensor
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_TENSOR_IMAGE_TO_TENSOR_GPU_PARAMS_H_
