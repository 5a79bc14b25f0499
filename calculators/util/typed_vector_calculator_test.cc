#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "calculators/util/test_util.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "formats/tensor.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using mediapipe::NormalizedLandmarkList;
using mediapipe::NormalizedRect;
using testing::At;
using testing::RunGraph;

TEST(TypedVectorCalculatorsTest, SplitTensorVectorCopiesRanges) {
  auto* tensors = new std::vector<Tensor>();
  for (int i = 0; i < 4; ++i) {
    tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2});
    auto view = tensors->back().GetCpuWriteView();
    view.buffer<float>()[0] = static_cast<float>(i);
    view.buffer<float>()[1] = 10.0f + i;
  }
  auto run = RunGraph(R"(
      input_stream: "t" output_stream: "a" output_stream: "b"
      node {
        calculator: "SplitTensorVectorCalculator"
        input_stream: "t" output_stream: "a" output_stream: "b"
        options: { [mediapipe.SplitVectorCalculatorOptions.ext] {
          ranges: { begin: 0 end: 1 } ranges: { begin: 2 end: 4 } } }
      })",
                      {{"t", Adopt(tensors).At(Timestamp(1))}}, {"a", "b"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& a = run.outputs[0][0].Get<std::vector<Tensor>>();
  const auto& b = run.outputs[1][0].Get<std::vector<Tensor>>();
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].shape().dims, (std::vector<int>{1, 2}));
  EXPECT_FLOAT_EQ(b[1].GetCpuReadView().buffer<float>()[1], 13.0f);
  EXPECT_FLOAT_EQ(a[0].GetCpuReadView().buffer<float>()[0], 0.0f);
}

// A GPU-only tensor that cannot be downloaded: an error, not a copy from a
// null view.
class LostDeviceStorage : public TensorGpuStorage {
 public:
  absl::Status DownloadTo(void*, size_t) override { return absl::InternalError("device lost"); }
  absl::Status UploadFrom(const void*, size_t) override { return absl::OkStatus(); }
};

TEST(TypedVectorCalculatorsTest, SplitTensorVectorUnreadableGpuTensorIsAnError) {
  auto* tensors = new std::vector<Tensor>();
  tensors->emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1, 2},
                        std::make_shared<LostDeviceStorage>());
  auto run = RunGraph(R"(
      input_stream: "t" output_stream: "a"
      node {
        calculator: "SplitTensorVectorCalculator"
        input_stream: "t" output_stream: "a"
        options: { [mediapipe.SplitVectorCalculatorOptions.ext] {
          ranges: { begin: 0 end: 1 } } }
      })",
                      {{"t", Adopt(tensors).At(Timestamp(1))}}, {"a"});
  EXPECT_FALSE(run.status.ok());
  EXPECT_NE(run.status.message().find("device lost"), std::string::npos) << run.status;
}

TEST(TypedVectorCalculatorsTest, SplitNormalizedLandmarkListCombinesRanges) {
  NormalizedLandmarkList list;
  for (int i = 0; i < 21; ++i) list.add_landmark()->set_x(static_cast<float>(i));
  auto run = RunGraph(R"(
      input_stream: "lms" output_stream: "subset"
      node {
        calculator: "SplitNormalizedLandmarkListCalculator"
        input_stream: "lms" output_stream: "subset"
        options: { [mediapipe.SplitVectorCalculatorOptions.ext] {
          ranges: { begin: 0 end: 4 } ranges: { begin: 5 end: 7 } ranges: { begin: 9 end: 11 }
          ranges: { begin: 13 end: 15 } ranges: { begin: 17 end: 19 }
          combine_outputs: true } }
      })",
                      {{"lms", At(list, 1)}}, {"subset"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  const auto& subset = run.outputs[0][0].Get<NormalizedLandmarkList>();
  std::vector<float> xs;
  for (const auto& lm : subset.landmark()) xs.push_back(lm.x());
  EXPECT_EQ(xs, (std::vector<float>{0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18}));
}

TEST(TypedVectorCalculatorsTest, NormalizedRectLoopRoundTrip) {
  std::vector<NormalizedRect> rects(2);
  rects[0].set_x_center(0.25f);
  rects[1].set_x_center(0.75f);
  for (auto& r : rects) {
    r.set_y_center(0.5f);
    r.set_width(0.1f);
    r.set_height(0.1f);
  }
  auto run = RunGraph(R"(
      input_stream: "rects" output_stream: "out"
      node {
        calculator: "BeginLoopNormalizedRectCalculator"
        input_stream: "ITERABLE:rects"
        output_stream: "ITEM:rect" output_stream: "BATCH_END:end"
      }
      node {
        calculator: "EndLoopNormalizedRectCalculator"
        input_stream: "ITEM:rect" input_stream: "BATCH_END:end"
        output_stream: "ITERABLE:out"
      })",
                      {{"rects", At(rects, 100)}}, {"out"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.outputs[0].size(), 1u);
  EXPECT_EQ(run.outputs[0][0].Timestamp(), Timestamp(100));
  const auto& out = run.outputs[0][0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[1].x_center(), 0.75f);
}

}  // namespace
}  // namespace sluice
