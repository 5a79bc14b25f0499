// MediaPipe's custom ops of the face-mesh attention model (version 2 of each,
// maths as in mediapipe/util/tflite/operations/, re-derived here):
//  * Landmarks2TransformMatrix: [1,N,3] landmarks -> [1,4,4] matrix mapping
//    output-grid pixel coordinates to input coordinates of a rotated crop.
//  * TransformLandmarks: applies that matrix to [1,N,D] landmarks (x,y only).
//  * TransformTensorBilinear: samples a feature map through the matrix.
#include <array>
#include <cmath>

#include "inference/reference/kernels_internal.h"
#include "util/status_macros.h"

namespace sluice::inference::reference::internal {
namespace {

using Mat4 = std::array<float, 16>;  // row-major

Mat4 Mul(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0.0f;
      for (int k = 0; k < 4; ++k) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
  return r;
}

Mat4 Affine(float a, float b, float tx, float c, float d, float ty) {
  return {a, b, 0, tx, c, d, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1};
}

void LandmarksToMatrix(const ir::LandmarksToTransformMatrixOptions& o, const float* lm,
                       float* out) {
  auto x = [&](int i) { return lm[i * 3]; };
  auto y = [&](int i) { return lm[i * 3 + 1]; };
  // Rotation that brings the left->right landmark direction to the target angle.
  const float rotation =
      o.target_rotation_radians - std::atan2(y(o.right_rotation_idx) - y(o.left_rotation_idx),
                                             x(o.right_rotation_idx) - x(o.left_rotation_idx));
  // Bounding box of the subset in the rotated frame.
  const float cr = std::cos(rotation), sr = std::sin(rotation);
  float min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
  for (int i : o.subset_idxs) {
    const float rx = cr * x(i) - sr * y(i), ry = sr * x(i) + cr * y(i);
    min_x = std::min(min_x, rx);
    max_x = std::max(max_x, rx);
    min_y = std::min(min_y, ry);
    max_y = std::max(max_y, ry);
  }
  const float width = max_x - min_x, height = max_y - min_y;
  // Box centre, rotated back to the input frame.
  const float mx = (min_x + max_x) / 2, my = (min_y + max_y) / 2;
  const float ci = std::cos(-rotation), si = std::sin(-rotation);
  const float center_x = ci * mx - si * my, center_y = si * mx + ci * my;
  // shift(centre) * rotate(-rotation) * scale(box / output) * shift(-output / 2)
  Mat4 t = Affine(1, 0, center_x, 0, 1, center_y);
  t = Mul(t, Affine(ci, -si, 0, si, ci, 0));
  t = Mul(t, Affine(o.scale_x * width / o.output_width, 0, 0, 0,
                    o.scale_y * height / o.output_height, 0));
  t = Mul(t, Affine(1, 0, -o.output_width / 2.0f, 0, 1, -o.output_height / 2.0f));
  std::copy(t.begin(), t.end(), out);
}

}  // namespace

absl::StatusOr<Kernel> PrepareLandmarksToTransformMatrix(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(1, 1, 1));
  const auto& o = c.op().opts<ir::LandmarksToTransformMatrixOptions>();
  const ir::Tensor &x = c.in(0), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(x, 3, "landmarks"));
  if (x.shape[0] != 1 || x.shape[2] != 3) return c.Error("landmarks must be [1,N,3]");
  if (y.num_elements() != 16) return c.Error("output must be [1,4,4]");
  const int n = x.shape[1];
  if (o.subset_idxs.empty()) return c.Error("subset_idxs is empty");
  for (int i : o.subset_idxs) {
    if (i < 0 || i >= n)
      return c.Error(absl::StrCat("subset index ", i, " out of range for ", n, " landmarks"));
  }
  for (int i : {o.left_rotation_idx, o.right_rotation_idx}) {
    if (i < 0 || i >= n)
      return c.Error(absl::StrCat("rotation index ", i, " out of range for ", n, " landmarks"));
  }
  if (o.output_width <= 0 || o.output_height <= 0 || !(o.scale_x > 0) || !(o.scale_y > 0)) {
    return c.Error("output size and scales must be positive");
  }
  const float* in = c.fin(0);
  float* out = c.fout();
  return Kernel([=]() { LandmarksToMatrix(o, in, out); });
}

absl::StatusOr<Kernel> PrepareTransformLandmarks(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const ir::Tensor &x = c.in(0), &m = c.in(1), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "landmarks"));
  RETURN_IF_ERROR(c.Float(m, "matrix"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(x, 3, "landmarks"));
  if (y.shape != x.shape) return c.Error("output shape differs from input");
  if (m.num_elements() != 16) return c.Error("matrix must be [1,4,4]");
  const int dims = x.shape[2];
  if (dims != 2 && dims != 3) return c.Error("landmarks must have 2 or 3 values each");
  const int64_t n = x.num_elements() / dims;
  const float* in = c.fin(0);
  const float* mat = c.fin(1);
  float* out = c.fout();
  return Kernel([=]() {
    for (int64_t i = 0; i < n; ++i) {
      const float px = in[i * dims], py = in[i * dims + 1];
      out[i * dims] = mat[0] * px + mat[1] * py + mat[3];
      out[i * dims + 1] = mat[4] * px + mat[5] * py + mat[7];
      if (dims == 3) out[i * dims + 2] = in[i * dims + 2];
    }
  });
}

absl::StatusOr<Kernel> PrepareTransformTensorBilinear(const Ctx& c) {
  RETURN_IF_ERROR(c.Arity(2, 2, 1));
  const auto& o = c.op().opts<ir::TransformTensorBilinearOptions>();
  const ir::Tensor &x = c.in(0), &m = c.in(1), &y = c.out();
  RETURN_IF_ERROR(c.Float(x, "input"));
  RETURN_IF_ERROR(c.Float(m, "matrix"));
  RETURN_IF_ERROR(c.Float(y, "output"));
  RETURN_IF_ERROR(c.Rank(x, 4, "input"));
  RETURN_IF_ERROR(c.Rank(y, 4, "output"));
  if (m.num_elements() != 16) return c.Error("matrix must be [1,4,4]");
  if (x.shape[0] != 1 || y.shape[0] != 1 || y.shape[3] != x.shape[3])
    return c.Error("batch must be 1 and channels must match");
  if (y.shape[1] != o.output_height || y.shape[2] != o.output_width) {
    return c.Error(absl::StrCat("output ", ir::ShapeString(y.shape), " differs from options ",
                                o.output_height, "x", o.output_width));
  }
  const int ih = x.shape[1], iw = x.shape[2], ch = x.shape[3], oh = y.shape[1], ow = y.shape[2];
  const float* in = c.fin(0);
  const float* mat = c.fin(1);
  float* out = c.fout();
  return Kernel([=]() {
    // Version 2 samples pixel centres: T' = shift(-0.5) * T * shift(+0.5).
    const float ax = mat[0], bx = mat[1], tx = mat[3] + 0.5f * (mat[0] + mat[1]) - 0.5f;
    const float ay = mat[4], by = mat[5], ty = mat[7] + 0.5f * (mat[4] + mat[5]) - 0.5f;
    auto at = [&](int yy, int xx, int k) -> float {
      return yy < 0 || xx < 0 || yy >= ih || xx >= iw
                 ? 0.0f
                 : in[(static_cast<size_t>(yy) * iw + xx) * ch + k];
    };
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox) {
        const float sx = ax * ox + bx * oy + tx, sy = ay * ox + by * oy + ty;
        float* op = out + (static_cast<size_t>(oy) * ow + ox) * ch;
        if (sx < 0.0f || sx > iw - 1 || sy < 0.0f || sy > ih - 1) {
          std::fill(op, op + ch, 0.0f);
          continue;
        }
        const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
        const float fx = sx - x0, fy = sy - y0;
        for (int k = 0; k < ch; ++k) {
          const float upper = (1 - fx) * at(y0, x0, k) + fx * at(y0, x0 + 1, k);
          const float lower = (1 - fx) * at(y0 + 1, x0, k) + fx * at(y0 + 1, x0 + 1, k);
          op[k] = fy * lower + (1 - fy) * upper;
        }
      }
  });
}

}  // namespace sluice::inference::reference::internal
