// Invoke() allocates nothing: all buffers come from the compile-time arena.
// This binary counts every operator new.
#include <atomic>
#include <cstdlib>
#include <new>

#include "gtest/gtest.h"
#include "inference/model.h"
#include "inference/testing/test_inputs.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Sanitizers bring their own allocator; the count runs in normal builds only.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLUICE_COUNT_ALLOCATIONS 0
#else
#define SLUICE_COUNT_ALLOCATIONS 1
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif

namespace sluice::inference {
namespace {

TEST(NoAllocationTest, ReferenceInvokeAllocatesNothing) {
  if (!SLUICE_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
  for (const char* name :
       {"face_landmark_with_attention.tflite", "selfie_segmentation.tflite", "hand_recrop.tflite",
        "pose_detection.tflite", "hand_landmark_lite.tflite",
        "face_detection_full_range_sparse.tflite"}) {
    auto m = Model::Load(testing::SharedDir() + "/models/" + name);
    ASSERT_TRUE(m.ok()) << m.status();
    auto r = m->CreateRunner("reference");
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE((*r)->Invoke().ok());
    const long before = g_allocations.load();
    ASSERT_TRUE((*r)->Invoke().ok());
    EXPECT_EQ(g_allocations.load() - before, 0) << name;
  }
}

}  // namespace
}  // namespace sluice::inference
