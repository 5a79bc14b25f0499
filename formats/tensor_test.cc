#include "formats/tensor.h"

#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(TensorTest, ShapeTypeAndZeroFilledContiguousBuffer) {
  Tensor t(Tensor::ElementType::kFloat32, {1, 2, 3, 4});
  EXPECT_EQ(t.shape().num_elements(), 24);
  EXPECT_EQ(t.bytes(), 24 * sizeof(float));
  EXPECT_TRUE(t.ready_on_cpu());
  auto view = t.GetCpuReadView();
  const float* p = view.buffer<float>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(p[i], 0.0f);
  EXPECT_EQ(view.buffer<int8_t>(), nullptr);  // Wrong type: no buffer.
}

TEST(TensorTest, WritesAreSeenByLaterReadsAndSurviveMoves) {
  Tensor t(Tensor::ElementType::kInt8, {2, 3}, {0.5f, -3});
  {
    auto w = t.GetCpuWriteView();
    for (int i = 0; i < 6; ++i) w.buffer<int8_t>()[i] = static_cast<int8_t>(i - 3);
  }
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  EXPECT_EQ(t.bytes(), 0u);
  EXPECT_EQ(t.GetCpuReadView().data(), nullptr);
  const Tensor& m = v[0];
  EXPECT_EQ(m.quantization_parameters().zero_point, -3);
  EXPECT_EQ(m.GetCpuReadView().buffer<int8_t>()[5], 2);
  EXPECT_EQ(m.DebugString(), "Tensor<int8>[2x3]");
}

TEST(TensorTest, ElementSizes) {
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kFloat16), 2u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kInt32), 4u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kInt64), 8u);
  EXPECT_EQ(Tensor::ElementSize(Tensor::ElementType::kUInt8), 1u);
  EXPECT_EQ(Tensor::Shape({2, 0, 3}).num_elements(), 0);
  EXPECT_EQ(Tensor::Shape().num_elements(), 1);
}

TEST(TensorTest, ConcurrentReadersAndAWriterDoNotRace) {
  Tensor t(Tensor::ElementType::kInt32, {1024});
  std::thread writer([&] {
    for (int round = 1; round <= 50; ++round) {
      auto w = t.GetCpuWriteView();
      for (int i = 0; i < 1024; ++i) w.buffer<int32_t>()[i] = round;
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        auto view = t.GetCpuReadView();
        const int32_t* p = view.buffer<int32_t>();
        for (int i = 1; i < 1024; ++i) ASSERT_EQ(p[i], p[0]);  // Never a torn write.
      }
    });
  }
  writer.join();
  for (auto& th : readers) th.join();
}

}  // namespace
}  // namespace sluice
