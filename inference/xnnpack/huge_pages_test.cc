#include "inference/xnnpack/huge_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::inference::xnn {
namespace {

bool Aligned64(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

// The VmFlags line of the mapping of /proc/self/smaps that holds `p`.
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto addr = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = addr >= lo && addr < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(HugePagesTest, BlocksAreAlignedDistinctAndWritable) {
  std::vector<void*> blocks;
  for (size_t bytes : {1u, 64u, 100u, 4096u, 70000u, 1u << 20}) {
    void* p = HugePageAllocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(Aligned64(p)) << bytes;
    std::memset(p, 0xAB, bytes);
    blocks.push_back(p);
  }
  // Each block still holds its own bytes after the others were written.
  for (size_t i = 0; i + 1 < blocks.size(); ++i) {
    EXPECT_EQ(static_cast<unsigned char*>(blocks[i])[0], 0xAB);
    EXPECT_NE(blocks[i], blocks[i + 1]);
  }
  for (void* p : blocks) HugePageFree(p);
  HugePageFree(nullptr);  // a no-op
}

TEST(HugePagesTest, ChunksGoBackWhenTheirBlocksAreFreed) {
  if (!HugePageUsage().pooled) GTEST_SKIP() << "pool off (ASan build or SLUICE_HUGE_PAGES=0)";
  const HugePageStats before = HugePageUsage();
  void* small = HugePageAllocate(1000);
  void* big = HugePageAllocate(size_t{5} << 20);  // a chunk of its own
  const HugePageStats during = HugePageUsage();
  EXPECT_EQ(during.live_blocks, before.live_blocks + 2);
  EXPECT_GE(during.chunk_bytes, before.chunk_bytes + (size_t{5} << 20));
  std::memset(big, 1, size_t{5} << 20);
  HugePageFree(big);
  HugePageFree(small);
  const HugePageStats after = HugePageUsage();
  EXPECT_EQ(after.live_blocks, before.live_blocks);
  // The big block's chunk is unmapped; at most the shared chunk stays.
  EXPECT_LE(after.chunk_bytes, before.chunk_bytes + (size_t{4} << 20));
}

TEST(HugePagesTest, ChunksAreAdvisedAsHugePages) {
  if (!HugePageUsage().pooled) GTEST_SKIP() << "pool off (ASan build or SLUICE_HUGE_PAGES=0)";
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  void* p = HugePageAllocate(size_t{3} << 20);
  const std::string flags = VmFlagsOf(p);
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;  // MADV_HUGEPAGE taken
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20), 0u);  // a chunk's start
  HugePageFree(p);
}

TEST(HugePagesTest, SwitchedOffBlocksComeFromTheHeapAndFreeEitherWay) {
  if (!SetHugePagesEnabled(false)) GTEST_SKIP() << "the pool cannot be on in this build";
  const HugePageStats before = HugePageUsage();
  EXPECT_FALSE(before.pooled);
  void* heap = HugePageAllocate(5000);
  EXPECT_TRUE(Aligned64(heap));
  EXPECT_EQ(HugePageUsage().live_blocks, before.live_blocks);  // not from the pool
  ASSERT_TRUE(SetHugePagesEnabled(true));
  void* pooled = HugePageAllocate(5000);
  EXPECT_EQ(HugePageUsage().live_blocks, before.live_blocks + 1);
  HugePageFree(heap);  // allocated while off, freed while on
  HugePageFree(pooled);
  EXPECT_EQ(HugePageUsage().live_blocks, before.live_blocks);
}

TEST(HugePagesTest, VectorsOfPackedWeights) {
  HugeFloats w(1000, 2.0f);
  w.resize(300000, 3.0f);  // grows: a new block, the old one freed
  EXPECT_TRUE(Aligned64(w.data()));
  EXPECT_EQ(w[999], 2.0f);
  EXPECT_EQ(w[299999], 3.0f);
  HugeFloats copy = w;
  EXPECT_EQ(copy, w);
}

}  // namespace
}  // namespace sluice::inference::xnn
