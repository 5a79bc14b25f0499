// Our face mesh graphs must expand exactly like MediaPipe's: same node names,
// calculators, streams and options (MediaPipe's graph files from
// ../shared/mediapipe_graphs are the reference).
#include <string>

#include <gtest/gtest.h>

#include "framework/tool/subgraph_registry.h"
#include "graphs/testing/graph_compare.h"

namespace sluice {
namespace {

using graph_test::MediaPipeModulesDir;

class FaceLandmarkGraphsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FaceLandmarkGraphsTest, ExpandsLikeMediaPipe) {
  // Face detection is compared by graphs/face_detection's own test; both
  // sides use our face detection graphs here, so only ours can differ.
  SubgraphRegistry ours, theirs;
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_landmark").ok());
  ASSERT_TRUE(ours.RegisterGraphsFrom("graphs/face_detection").ok());
  absl::Status s = theirs.RegisterGraphsFrom(MediaPipeModulesDir() + "/face_landmark");
  if (!s.ok()) GTEST_SKIP() << "MediaPipe's graphs not available: " << s;
  ASSERT_TRUE(theirs.RegisterGraphsFrom("graphs/face_detection").ok());

  graph_test::ExpectExpandsLike(ours, theirs, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Graphs, FaceLandmarkGraphsTest,
                         ::testing::Values("FaceLandmarkFrontCpu", "FaceLandmarkCpu",
                                           "FaceLandmarksModelLoader",
                                           "FaceDetectionFrontDetectionToRoi",
                                           "FaceLandmarkLandmarksToRoi", "TensorsToFaceLandmarks",
                                           "TensorsToFaceLandmarksWithAttention"));

TEST(FaceLandmarkGraphsEmbedded, AreRegistered) {
  for (const char* type : {"FaceLandmarkFrontCpu", "FaceLandmarkCpu", "FaceLandmarksModelLoader",
                           "FaceDetectionFrontDetectionToRoi", "FaceLandmarkLandmarksToRoi",
                           "TensorsToFaceLandmarks", "TensorsToFaceLandmarksWithAttention",
                           "FaceDetectionShortRangeCpu"}) {
    EXPECT_TRUE(SubgraphRegistry::Get().IsRegistered(type)) << type;
  }
}

}  // namespace
}  // namespace sluice
