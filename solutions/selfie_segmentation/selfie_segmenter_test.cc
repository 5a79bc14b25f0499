// SelfieSegmenter on real photos (../shared/testdata/images). Google's
// package as the oracle is tests/selfie_segmentation/; here: the mask's shape,
// that it finds the person, pipelining, smoothing and errors.
#include "solutions/selfie_segmentation/selfie_segmenter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "formats/image_io.h"

namespace sluice {
namespace {

ImageFrame LoadRgb(const std::string& name) {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  const std::string path =
      std::string(env != nullptr && *env ? env : "../shared") + "/testdata/images/" + name;
  absl::StatusOr<ImageFrame> image = ReadImageFile(path);
  EXPECT_TRUE(image.ok()) << image.status();
  return image.ok() ? std::move(*image) : ImageFrame();
}

float At(const ImageFrame& mask, int x, int y) {
  return reinterpret_cast<const float*>(mask.Row(y))[x];
}

double Mean(const ImageFrame& mask) {
  double sum = 0;
  for (int y = 0; y < mask.Height(); ++y) {
    for (int x = 0; x < mask.Width(); ++x) sum += At(mask, x, y);
  }
  return sum / (static_cast<double>(mask.Width()) * mask.Height());
}

class SelfieSegmenterModelTest : public ::testing::TestWithParam<int> {};

// sergey.png is a head-and-shoulders portrait: the person fills the lower
// centre, the top corners are background.
TEST_P(SelfieSegmenterModelTest, FindsThePersonInAPortrait) {
  SelfieSegmenterOptions options;
  options.model_selection = GetParam();
  auto segmenter = SelfieSegmenter::Create(options);
  ASSERT_TRUE(segmenter.ok()) << segmenter.status();
  ImageFrame image = LoadRgb("sergey.png");
  ASSERT_FALSE(image.IsEmpty());
  auto r = (*segmenter)->Process(image, 0);
  ASSERT_TRUE(r.ok()) << r.status();
  const ImageFrame& mask = *r->mask;
  EXPECT_EQ(mask.Format(), ImageFormat::VEC32F1);
  EXPECT_EQ(mask.Width(), image.Width());
  EXPECT_EQ(mask.Height(), image.Height());
  EXPECT_EQ(r->width, image.Width());
  for (int y = 0; y < mask.Height(); y += 7) {
    for (int x = 0; x < mask.Width(); x += 7) {
      ASSERT_GE(At(mask, x, y), 0.0f);
      ASSERT_LE(At(mask, x, y), 1.0f);
    }
  }
  EXPECT_GT(At(mask, mask.Width() / 2, mask.Height() * 3 / 4), 0.9f);
  EXPECT_LT(At(mask, 2, 2), 0.1f);
  EXPECT_LT(At(mask, mask.Width() - 3, 2), 0.1f);
  const double mean = Mean(mask);
  EXPECT_GT(mean, 0.2);
  EXPECT_LT(mean, 0.9);
}

INSTANTIATE_TEST_SUITE_P(Models, SelfieSegmenterModelTest, ::testing::Values(0, 1));

TEST(SelfieSegmenterTest, PipelinedResultsMatchProcessInOrder) {
  ImageFrame a = LoadRgb("sergey.png"), b = LoadRgb("lenna.png");
  ASSERT_FALSE(a.IsEmpty());
  ASSERT_FALSE(b.IsEmpty());
  auto single = SelfieSegmenter::Create({});
  ASSERT_TRUE(single.ok());
  auto ra = (*single)->Process(a, 0);
  auto rb = (*single)->Process(b, 1);
  ASSERT_TRUE(ra.ok() && rb.ok());

  auto piped = SelfieSegmenter::Create({});
  ASSERT_TRUE(piped.ok());
  const ImageFrame* frames[] = {&a, &b, &a, &b};
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE((*piped)->Send(*frames[i]->Clone(), 100 * i).ok());
  }
  ASSERT_TRUE((*piped)->Close().ok());
  SegmentationResult r;
  int n = 0;
  while ((*piped)->Next(&r)) {
    ASSERT_NE(r.mask, nullptr);
    EXPECT_EQ(r.timestamp_us, 100 * n);
    const ImageFrame& expected = n % 2 == 0 ? *ra->mask : *rb->mask;
    ASSERT_EQ(r.mask->Width(), expected.Width());
    EXPECT_FLOAT_EQ(At(*r.mask, 100, 200), At(expected, 100, 200));
    ++n;
  }
  EXPECT_EQ(n, 4);
}

// Smoothing: frame 1 passes through; frame 2 is the new mask pulled towards
// the first where it is uncertain, by at most the 0.7 ratio.
TEST(SelfieSegmenterTest, SmoothingBlendsWithThePreviousMask) {
  ImageFrame a = LoadRgb("sergey.png");
  ASSERT_FALSE(a.IsEmpty());
  // The same portrait shifted right by 40 pixels: the edges move.
  ImageFrame b = *a.Clone();
  for (int y = 0; y < b.Height(); ++y) {
    uint8_t* row = b.MutableRow(y);
    const int px = b.NumberOfChannels();
    std::memmove(row + 40 * px, row, static_cast<size_t>(b.Width() - 40) * px);
  }
  auto raw = SelfieSegmenter::Create({});
  ASSERT_TRUE(raw.ok());
  auto raw_a = (*raw)->Process(a, 0);
  auto raw_b = (*raw)->Process(b, 1);
  ASSERT_TRUE(raw_a.ok() && raw_b.ok());

  SelfieSegmenterOptions options;
  options.smooth_segmentation = true;
  auto smooth = SelfieSegmenter::Create(options);
  ASSERT_TRUE(smooth.ok()) << smooth.status();
  auto s_a = (*smooth)->Process(a, 0);
  auto s_b = (*smooth)->Process(b, 1);
  ASSERT_TRUE(s_a.ok() && s_b.ok()) << s_a.status() << s_b.status();
  EXPECT_FLOAT_EQ(At(*s_a->mask, 300, 300), At(*raw_a->mask, 300, 300));
  int changed = 0;
  for (int y = 0; y < a.Height(); y += 3) {
    for (int x = 0; x < a.Width(); x += 3) {
      const float p = At(*raw_b->mask, x, y), q = At(*raw_a->mask, x, y);
      const float out = At(*s_b->mask, x, y);
      // Between the new and the previous value, at most 70% of the way.
      ASSERT_GE(out, std::min(p, q) - 1e-5f) << x << "," << y;
      ASSERT_LE(out, std::max(p, q) + 1e-5f) << x << "," << y;
      ASSERT_LE(std::fabs(out - p), 0.7f * std::fabs(q - p) + 1e-5f) << x << "," << y;
      if (std::fabs(out - p) > 0.01f) ++changed;
    }
  }
  EXPECT_GT(changed, 10);
}

TEST(SelfieSegmenterTest, RejectsBadOptionsAndInput) {
  SelfieSegmenterOptions options;
  options.model_selection = 2;
  auto bad = SelfieSegmenter::Create(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model_selection must be 0 or 1"), std::string::npos);
  options.model_selection = 0;
  options.device = "tpu";
  EXPECT_FALSE(SelfieSegmenter::Create(options).ok());
  auto ok = SelfieSegmenter::Create({});
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE((*ok)->Process(ImageFrame(), 0).ok());
  ImageFrame a = LoadRgb("lenna.png");
  ASSERT_TRUE((*ok)->Process(a, 10).ok());
  EXPECT_FALSE((*ok)->Process(a, 10).ok());  // timestamps must increase
}

}  // namespace
}  // namespace sluice
