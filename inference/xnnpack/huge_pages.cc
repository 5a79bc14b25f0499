#include "inference/xnnpack/huge_pages.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#if defined(__linux__)
#include <sys/mman.h>
#define SLUICE_HUGE_PAGES_MMAP 1
#else
#define SLUICE_HUGE_PAGES_MMAP 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SLUICE_HUGE_PAGES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLUICE_HUGE_PAGES_ASAN 1
#endif
#endif
#ifndef SLUICE_HUGE_PAGES_ASAN
#define SLUICE_HUGE_PAGES_ASAN 0
#endif

namespace sluice::inference::xnn {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kHugePage = size_t{2} << 20;
// Blocks share chunks of this size; one over half of it gets a chunk of its own.
constexpr size_t kChunk = size_t{4} << 20;

size_t RoundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

constexpr bool kCanPool = !SLUICE_HUGE_PAGES_ASAN && SLUICE_HUGE_PAGES_MMAP;

std::atomic<bool>& PoolOn() {
  static std::atomic<bool> on{[] {
    const char* e = std::getenv("SLUICE_HUGE_PAGES");
    return kCanPool && !(e && std::strcmp(e, "0") == 0);
  }()};
  return on;
}

struct Chunk {
  size_t size = 0;  // bytes mapped at the key's address
  size_t used = 0;  // bytes handed out so far (bump pointer)
  size_t live = 0;  // blocks not yet freed
};

class Pool {
 public:
  void* Allocate(size_t bytes) {
    bytes = RoundUp(bytes == 0 ? 1 : bytes, kAlign);
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes > kChunk / 2) return Take(NewChunk(RoundUp(bytes, kHugePage)), bytes);  // its own
    if (current_ == chunks_.end() || current_->second.size - current_->second.used < bytes) {
      // A new shared chunk; the old one goes once its blocks are freed (now,
      // if they are).
      const Chunks::iterator next = NewChunk(kChunk);
      if (current_ != chunks_.end() && current_->second.live == 0) {
        Unmap(current_->first, current_->second.size);
        chunks_.erase(current_);
      }
      current_ = next;
    }
    return Take(current_, bytes);
  }

  // False when `p` is not in a chunk (operator new's, see SetHugePagesEnabled).
  bool Free(void* p) {
    const auto addr = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = chunks_.upper_bound(addr);
    if (it == chunks_.begin()) return false;
    --it;
    Chunk& c = it->second;
    if (addr >= it->first + c.size) return false;
    if (c.live == 0) std::abort();  // freed twice: a caller bug
    if (--c.live > 0) return true;
    if (it == current_) {
      c.used = 0;  // keep the shared chunk mapped, from its start again
      return true;
    }
    Unmap(it->first, c.size);
    chunks_.erase(it);
    return true;
  }

  HugePageStats Usage() {
    std::lock_guard<std::mutex> lock(mu_);
    HugePageStats s;
    s.pooled = true;
    for (const auto& [base, c] : chunks_) {
      ++s.chunks;
      s.chunk_bytes += c.size;
      s.live_blocks += c.live;
    }
    return s;
  }

 private:
  using Chunks = std::map<uintptr_t, Chunk>;

  Chunks::iterator NewChunk(size_t size) {
    const uintptr_t base = Map(size);
    if (base == 0) throw std::bad_alloc();
    return chunks_.emplace(base, Chunk{size, 0, 0}).first;
  }

  void* Take(Chunks::iterator it, size_t bytes) {
    Chunk& c = it->second;
    void* p = reinterpret_cast<void*>(it->first + c.used);
    c.used += bytes;
    ++c.live;
    return p;
  }

  // `size` bytes at a 2 MiB boundary (0 on failure), asked to be huge pages.
  static uintptr_t Map(size_t size) {
#if SLUICE_HUGE_PAGES_MMAP
    const size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 0;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t base = RoundUp(start, kHugePage);
    if (base > start) munmap(raw, base - start);
    const uintptr_t end = start + span;
    if (end > base + size) munmap(reinterpret_cast<void*>(base + size), end - base - size);
    // Fails harmlessly where THP is off: then these are ordinary pages.
    madvise(reinterpret_cast<void*>(base), size, MADV_HUGEPAGE);
    return base;
#else
    (void)size;
    return 0;
#endif
  }
  static void Unmap(uintptr_t base, size_t size) {
#if SLUICE_HUGE_PAGES_MMAP
    munmap(reinterpret_cast<void*>(base), size);
#else
    (void)base, (void)size;
#endif
  }

  std::mutex mu_;
  Chunks chunks_;
  Chunks::iterator current_ = chunks_.end();
};

Pool& TheDefaultPool() {
  static Pool* pool = new Pool;  // never destroyed: blocks may outlive static destructors
  return *pool;
}

}  // namespace

void* HugePageAllocate(size_t bytes) {
  if (!PoolOn().load(std::memory_order_relaxed)) {
    return ::operator new(RoundUp(bytes == 0 ? 1 : bytes, kAlign), std::align_val_t{kAlign});
  }
  return TheDefaultPool().Allocate(bytes);
}

void HugePageFree(void* p) {
  if (p == nullptr) return;
  if (kCanPool && TheDefaultPool().Free(p)) return;
  ::operator delete(p, std::align_val_t{kAlign});
}

bool SetHugePagesEnabled(bool on) {
  if (!kCanPool) return false;
  PoolOn().store(on, std::memory_order_relaxed);
  return true;
}

HugePageStats HugePageUsage() {
  if (!kCanPool) return HugePageStats{};
  HugePageStats s = TheDefaultPool().Usage();
  s.pooled = PoolOn().load(std::memory_order_relaxed);
  return s;
}

}  // namespace sluice::inference::xnn
