// One core's read bandwidth by working-set size, for telling which level of
// the cache hierarchy a memory-bound step is limited by (cpu_peak gives the
// compute side). A KVM guest shares its L3 and memory with other tenants, so
// the figures from L3 on move with the host's load; take several reads.
//
//   build/bench/cpu_read_bandwidth
//
// Each size is a buffer summed over and over with vector adds (four
// independent sums, 64 floats a step), ~256 MiB read per size.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kLanes = 16;
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

double ReadGBps(size_t bytes) {
  const size_t vecs = bytes / sizeof(Vec);
  std::vector<Vec> buf(vecs);
  for (size_t i = 0; i < vecs; ++i) buf[i] = Vec{} + static_cast<float>(i & 7);
  const size_t reps = std::max<size_t>(4, (size_t{256} << 20) / bytes);
  Vec s0{}, s1{}, s2{}, s3{};
  const auto start = std::chrono::steady_clock::now();
  for (size_t r = 0; r < reps; ++r) {
    for (size_t i = 0; i + 4 <= vecs; i += 4) {
      s0 += buf[i];
      s1 += buf[i + 1];
      s2 += buf[i + 2];
      s3 += buf[i + 3];
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Vec s = s0 + s1 + s2 + s3;
  if (s[0] == 12345.0f) std::puts("");  // keeps the sums alive
  return static_cast<double>(reps) * static_cast<double>(bytes) / seconds / 1e9;
}

}  // namespace

int main() {
  const size_t kib[] = {16, 256, 1024, 4096, 65536};
  for (size_t k : kib) {
    std::printf("cpu_read_bandwidth size_kib=%zu gb_per_s=%.1f\n", k, ReadGBps(k << 10));
  }
  return 0;
}
