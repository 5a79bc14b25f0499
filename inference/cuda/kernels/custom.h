// Per-output maths of MediaPipe's face-mesh custom ops for the cuda backend
// (host compiler and nvcc), the steps of inference/reference/kernels_custom.cc:
//  * Landmarks2TransformMatrix: [1,N,3] landmarks -> row-major 4x4 matrix
//    (one thread: a few hundred flops, it only saves a host round trip).
//  * TransformLandmarks: x, y of each landmark through that matrix.
//  * TransformTensorBilinear: one output element sampled through the matrix
//    (version 2: pixel centres, zero outside the input).
#ifndef SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_H_
#define SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_H_

#include <math.h>
#include <stdint.h>

#include "gpu/kernels/host_device.h"

namespace sluice {
namespace inference {
namespace cuda {
namespace kernels {

struct LandmarksToMatrixParams {
  int num_landmarks;
  int num_subset;  // entries of the subset index array
  int left_rotation_idx, right_rotation_idx;
  float target_rotation_radians;
  int output_height, output_width;
  float scale_x, scale_y;
};

// r = a * b, row-major 4x4, sums from zero in k order (as the reference).
SLUICE_HOST_DEVICE void Mat4Mul(const float* a, const float* b, float* r) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0.0f;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
}

SLUICE_HOST_DEVICE void Mat4Affine(float a, float b, float tx, float c, float d, float ty,
                                   float* m) {
  m[0] = a, m[1] = b, m[2] = 0, m[3] = tx;
  m[4] = c, m[5] = d, m[6] = 0, m[7] = ty;
  m[8] = 0, m[9] = 0, m[10] = 1, m[11] = 0;
  m[12] = 0, m[13] = 0, m[14] = 0, m[15] = 1;
}

// The whole 4x4 matrix of Landmarks2TransformMatrix (v2) into out[16].
// `subset` holds p.num_subset landmark indices (validated at Prepare).
SLUICE_HOST_DEVICE void LandmarksToMatrix(const float* lm, const int* subset,
                                          const LandmarksToMatrixParams& p, float* out) {
  const int l = p.left_rotation_idx, r = p.right_rotation_idx;
  // Rotation that brings the left->right landmark direction to the target angle.
  const float rotation =
      p.target_rotation_radians - atan2f(lm[r * 3 + 1] - lm[l * 3 + 1], lm[r * 3] - lm[l * 3]);
  const float cr = cosf(rotation), sr = sinf(rotation);
  float min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
  for (int s = 0; s < p.num_subset; ++s) {
    const int i = subset[s];
    const float x = lm[i * 3], y = lm[i * 3 + 1];
    const float rx = cr * x - sr * y, ry = sr * x + cr * y;
    min_x = rx < min_x ? rx : min_x;  // std::min(min_x, rx)
    max_x = max_x < rx ? rx : max_x;
    min_y = ry < min_y ? ry : min_y;
    max_y = max_y < ry ? ry : max_y;
  }
  const float width = max_x - min_x, height = max_y - min_y;
  // Box centre, rotated back to the input frame.
  const float mx = (min_x + max_x) / 2, my = (min_y + max_y) / 2;
  const float ci = cosf(-rotation), si = sinf(-rotation);
  const float center_x = ci * mx - si * my, center_y = si * mx + ci * my;
  // shift(centre) * rotate(-rotation) * scale(box / output) * shift(-output / 2)
  float t[16], f[16], r0[16];
  Mat4Affine(1, 0, center_x, 0, 1, center_y, t);
  Mat4Affine(ci, -si, 0, si, ci, 0, f);
  Mat4Mul(t, f, r0);
  Mat4Affine(p.scale_x * width / p.output_width, 0, 0, 0, p.scale_y * height / p.output_height,
             0, f);
  Mat4Mul(r0, f, t);
  Mat4Affine(1, 0, -p.output_width / 2.0f, 0, 1, -p.output_height / 2.0f, f);
  Mat4Mul(t, f, out);
}

// Landmark i of a [.., D] tensor (D = 2 or 3): x, y through the matrix, z copied.
SLUICE_HOST_DEVICE void TransformLandmark(const float* in, const float* mat, float* out, int dims,
                                          int64_t i) {
  const float px = in[i * dims], py = in[i * dims + 1];
  out[i * dims] = mat[0] * px + mat[1] * py + mat[3];
  out[i * dims + 1] = mat[4] * px + mat[5] * py + mat[7];
  if (dims == 3) out[i * dims + 2] = in[i * dims + 2];
}

struct TransformBilinearParams {
  int ih, iw, c, oh, ow;
};

// Output element (oy, ox, k) of TransformTensorBilinear (batch 1).
SLUICE_HOST_DEVICE float TransformBilinearOutput(const float* in, const float* mat,
                                                 const TransformBilinearParams& p, int oy, int ox,
                                                 int k) {
  // Version 2 samples pixel centres: T' = shift(-0.5) * T * shift(+0.5).
  const float ax = mat[0], bx = mat[1], tx = mat[3] + 0.5f * (mat[0] + mat[1]) - 0.5f;
  const float ay = mat[4], by = mat[5], ty = mat[7] + 0.5f * (mat[4] + mat[5]) - 0.5f;
  const float sx = ax * ox + bx * oy + tx, sy = ay * ox + by * oy + ty;
  // Outside the input (or NaN, which must not become an index): zero.
  if (!(sx >= 0.0f && sx <= p.iw - 1 && sy >= 0.0f && sy <= p.ih - 1)) return 0.0f;
  const int x0 = static_cast<int>(floorf(sx)), y0 = static_cast<int>(floorf(sy));
  const float fx = sx - x0, fy = sy - y0;
  // Taps past the last row/column (sx == iw - 1 exactly) read zero, weighted 0.
  const bool x1_in = x0 + 1 < p.iw, y1_in = y0 + 1 < p.ih;
  const float* row0 = in + static_cast<int64_t>(y0) * p.iw * p.c;
  const float* row1 = row0 + static_cast<int64_t>(p.iw) * p.c;
  const float v00 = row0[static_cast<int64_t>(x0) * p.c + k];
  const float v01 = x1_in ? row0[static_cast<int64_t>(x0 + 1) * p.c + k] : 0.0f;
  const float v10 = y1_in ? row1[static_cast<int64_t>(x0) * p.c + k] : 0.0f;
  const float v11 = x1_in && y1_in ? row1[static_cast<int64_t>(x0 + 1) * p.c + k] : 0.0f;
  const float upper = (1 - fx) * v00 + fx * v01;
  const float lower = (1 - fx) * v10 + fx * v11;
  return fy * lower + (1 - fy) * upper;
}

SLUICE_HOST_DEVICE bool LandmarksToMatrixParamsValid(const LandmarksToMatrixParams& p) {
  return p.num_landmarks > 0 && p.num_subset > 0 && p.left_rotation_idx >= 0 &&
         p.left_rotation_idx < p.num_landmarks && p.right_rotation_idx >= 0 &&
         p.right_rotation_idx < p.num_landmarks && p.output_height > 0 && p.output_width > 0;
}

SLUICE_HOST_DEVICE bool TransformBilinearParamsValid(const TransformBilinearParams& p) {
  return p.ih > 0 && p.iw > 0 && p.c > 0 && p.oh > 0 && p.ow > 0;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace inference
}  // namespace sluice

#endif  // SLUICE_INFERENCE_CUDA_KERNELS_CUSTOM_H_
