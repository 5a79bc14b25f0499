// Helpers shared by the golden tests of the GPU image calculators (CPU path
// in CI, CUDA path in the `gpu`-labelled test): goldens from
// ../shared/testdata/gpu, comparison statistics, and the alpha handling of the
// harness that produced the luminance golden.
#ifndef SLUICE_CALCULATORS_GPU_GPU_GOLDEN_TEST_UTIL_H_
#define SLUICE_CALCULATORS_GPU_GPU_GOLDEN_TEST_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "formats/image_frame.h"

namespace sluice {
namespace gpu_testing {

inline std::string SharedTestdata(const std::string& rel) {
  const char* d = std::getenv("SLUICE_SHARED_DIR");
  return absl::StrCat(d ? d : "../shared", "/testdata/", rel);
}

// Per-byte differences of two frames of equal size and format, over the
// first `channels` channels of each pixel (all when 0).
struct Diff {
  int max = 0;
  int64_t over_one = 0;  // bytes differing by more than 1
  int64_t total = 0;
};
inline Diff Compare(const ImageFrame& a, const ImageFrame& b, int channels = 0) {
  Diff d;
  const int c = a.NumberOfChannels();
  if (channels == 0) channels = c;
  for (int y = 0; y < a.Height(); ++y) {
    for (int x = 0; x < a.Width(); ++x) {
      for (int k = 0; k < channels; ++k) {
        const int v = std::abs(a.Row(y)[x * c + k] - b.Row(y)[x * c + k]);
        d.max = v > d.max ? v : d.max;
        d.over_one += v > 1;
        ++d.total;
      }
    }
  }
  return d;
}

// Prints the statistics, so test logs show the measured margins.
inline void Report(const char* what, const Diff& d) {
  std::printf("%s: max abs diff %d, bytes off by more than 1: %lld of %lld\n", what, d.max,
              static_cast<long long>(d.over_one), static_cast<long long>(d.total));
}

// The luminance golden was rendered by MediaPipe's iOS test harness, which
// loads PNGs into premultiplied-alpha pixel buffers and un-premultiplies when
// saving (its fully transparent pixels are all zero). To compare, feed the
// calculator what that harness fed the shader, and undo it on the result.
inline void Premultiply(ImageFrame& f) {
  for (int y = 0; y < f.Height(); ++y) {
    uint8_t* p = f.MutableRow(y);
    for (int x = 0; x < f.Width(); ++x, p += 4) {
      for (int k = 0; k < 3; ++k) p[k] = static_cast<uint8_t>((p[k] * p[3] + 127) / 255);
    }
  }
}
inline void Unpremultiply(ImageFrame& f) {
  for (int y = 0; y < f.Height(); ++y) {
    uint8_t* p = f.MutableRow(y);
    for (int x = 0; x < f.Width(); ++x, p += 4) {
      for (int k = 0; k < 3; ++k) {
        const int v = p[3] == 0 ? 0 : (p[k] * 255 + p[3] / 2) / p[3];
        p[k] = static_cast<uint8_t>(v > 255 ? 255 : v);
      }
    }
  }
}

}  // namespace gpu_testing
}  // namespace sluice

#endif  // SLUICE_CALCULATORS_GPU_GPU_GOLDEN_TEST_UTIL_H_
