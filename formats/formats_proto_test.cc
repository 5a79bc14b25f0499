// The result protos keep MediaPipe's names and field numbers, so binary
// outputs are interchangeable with MediaPipe's.
#include <string>

#include "formats/anchor.pb.h"
#include "formats/classification.pb.h"
#include "formats/detection.pb.h"
#include "formats/image_format.pb.h"
#include "formats/landmark.pb.h"
#include "formats/rect.pb.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using google::protobuf::Descriptor;

int FieldNumber(const Descriptor* d, const std::string& field) {
  const auto* f = d->FindFieldByName(field);
  return f == nullptr ? -1 : f->number();
}

TEST(FormatsProtoTest, FieldNumbersMatchMediaPipe) {
  const Descriptor* det = mediapipe::Detection::descriptor();
  EXPECT_EQ(det->full_name(), "mediapipe.Detection");
  EXPECT_EQ(FieldNumber(det, "label_id"), 2);
  EXPECT_EQ(FieldNumber(det, "score"), 3);
  EXPECT_EQ(FieldNumber(det, "location_data"), 4);
  EXPECT_EQ(FieldNumber(det, "display_name"), 9);
  EXPECT_EQ(FieldNumber(det, "timestamp_usec"), 10);
  EXPECT_TRUE(det->FindFieldByName("score")->is_packed());
  const Descriptor* loc = mediapipe::LocationData::descriptor();
  EXPECT_EQ(FieldNumber(loc, "relative_bounding_box"), 3);
  EXPECT_EQ(FieldNumber(loc, "relative_keypoints"), 5);
  EXPECT_EQ(FieldNumber(mediapipe::LocationData::BinaryMask::descriptor(), "rasterization"), 3);
  EXPECT_EQ(FieldNumber(mediapipe::NormalizedRect::descriptor(), "rotation"), 5);
  EXPECT_EQ(FieldNumber(mediapipe::NormalizedRect::descriptor(), "rect_id"), 6);
  EXPECT_EQ(FieldNumber(mediapipe::Rect::descriptor(), "height"), 3);
  EXPECT_EQ(FieldNumber(mediapipe::NormalizedLandmark::descriptor(), "presence"), 5);
  EXPECT_EQ(FieldNumber(mediapipe::ClassificationList::descriptor(), "classification"), 1);
  EXPECT_EQ(FieldNumber(mediapipe::Classification::descriptor(), "display_name"), 4);
  EXPECT_EQ(FieldNumber(mediapipe::Anchor::descriptor(), "w"), 4);
  EXPECT_EQ(mediapipe::ImageFormat::VEC32F2, 12);
  EXPECT_EQ(mediapipe::ImageFormat::SBGRA, 11);
}

TEST(FormatsProtoTest, DetectionRoundTripsThroughBinaryAndText) {
  mediapipe::Detection d;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        label_id: 0
        score: 0.75
        location_data {
          format: RELATIVE_BOUNDING_BOX
          relative_bounding_box { xmin: 0.1 ymin: 0.2 width: 0.3 height: 0.4 }
          relative_keypoints { x: 0.5 y: 0.6 }
          mask {
            width: 2
            height: 1
            rasterization { interval { y: 0 left_x: 0 right_x: 1 } }
          }
        })pb",
      &d));
  std::string bytes;
  ASSERT_TRUE(d.SerializeToString(&bytes));
  mediapipe::Detection back;
  ASSERT_TRUE(back.ParseFromString(bytes));
  EXPECT_FLOAT_EQ(back.score(0), 0.75f);
  EXPECT_FLOAT_EQ(back.location_data().relative_bounding_box().height(), 0.4f);
  EXPECT_EQ(back.location_data().mask().rasterization().interval(0).right_x(), 1);
}

TEST(FormatsProtoTest, NormalizedRectRequiresItsCoreFields) {
  mediapipe::NormalizedRect r;
  r.set_x_center(0.5f);
  EXPECT_FALSE(r.IsInitialized());
  r.set_y_center(0.5f);
  r.set_width(1.0f);
  r.set_height(1.0f);
  EXPECT_TRUE(r.IsInitialized());
  EXPECT_FLOAT_EQ(r.rotation(), 0.0f);
}

}  // namespace
}  // namespace sluice
