// Test calculators for ../shared/graphs that are neither general-purpose nor
// MediaPipe test calculators (those live in calculators/core/testing).
#ifndef SLUICE_TESTS_SEED_TEST_CALCULATORS_H_
#define SLUICE_TESTS_SEED_TEST_CALCULATORS_H_

namespace sluice {

// What the last `FaceDetectionSubgraph` test node saw in its run.
struct FaceDetectionSubgraphRecord {
  int tensor_width = 0;
  int tensor_height = 0;
  int images = 0;
};
FaceDetectionSubgraphRecord LastFaceDetectionSubgraphRecord();

}  // namespace sluice

#endif  // SLUICE_TESTS_SEED_TEST_CALCULATORS_H_
