// Load-time memory of the xnnpack backend (packed weights, the activation
// arena) on 2 MiB transparent huge pages.
//
// Why: pose_detection's packed weights alone span 11.3 MiB, ~2900 pages of
// 4 KiB, more than a core's second-level TLB maps (2048 entries on recent
// Xeons), and every inference walks all of them; under a hypervisor each TLB
// miss is a two-level page walk. Linux gives anonymous memory huge pages
// only where madvise(MADV_HUGEPAGE) asks for them when THP is in "madvise"
// mode (a common default), and glibc's malloc does not ask. Measured on the
// EMR guest: bench/models/RESULTS.md, 2026-11-29 "huge pages".
//
// The pool hands out 64-byte aligned blocks from 2 MiB-aligned chunks that
// it madvises; a chunk goes back to the system when its last block is freed.
// Blocks are never reused before that: the pool is for memory that lives as
// long as a compiled model (weights, arenas), not for churn.
// SLUICE_HUGE_PAGES=0 (read once) and builds with AddressSanitizer use
// aligned operator new instead (ASan then sees every overflow).
#ifndef SLUICE_INFERENCE_XNNPACK_HUGE_PAGES_H_
#define SLUICE_INFERENCE_XNNPACK_HUGE_PAGES_H_

#include <cstddef>
#include <new>
#include <vector>

namespace sluice::inference::xnn {

// `bytes` (> 0) 64-byte aligned, uninitialised; throws std::bad_alloc when
// the system has no memory left.
void* HugePageAllocate(size_t bytes);
// A block from HugePageAllocate (nullptr: nothing).
void HugePageFree(void* p);

// Whether blocks allocated from now on come from the pool (default: yes,
// unless SLUICE_HUGE_PAGES=0 or ASan); blocks already handed out are freed
// correctly either way. For A/B benchmarks in one process
// (bench/compile_ab.cc) and tests. Returns false (and changes nothing)
// where the pool cannot be on.
bool SetHugePagesEnabled(bool on);

// What the pool holds now (for tests): chunks mapped and blocks live in them.
struct HugePageStats {
  size_t chunks = 0, chunk_bytes = 0, live_blocks = 0;
  bool pooled = false;  // false: blocks come from operator new (see above)
};
HugePageStats HugePageUsage();

// std::allocator for vectors of packed weights.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: allocators convert implicitly
  T* allocate(size_t n) { return static_cast<T*>(HugePageAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t) { HugePageFree(p); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

// Packed weights and other per-model constants.
using HugeFloats = std::vector<float, HugePageAllocator<float>>;

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_HUGE_PAGES_H_
