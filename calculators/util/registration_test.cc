// The static-link trap: this binary links sluice_util_calculators and
// sluice_tensor_postprocess_calculators whole and checks that every calculator
// name they provide is registered, once.
#include "framework/calculator_registry.h"
#include "util/resource_util.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(UtilCalculatorsRegistrationTest, EveryCalculatorIsRegistered) {
  const char* kNames[] = {
      "SsdAnchorsCalculator",
      "NonMaxSuppressionCalculator",
      "DetectionLetterboxRemovalCalculator",
      "DetectionsToRectsCalculator",
      "RectTransformationCalculator",
      "LandmarkLetterboxRemovalCalculator",
      "LandmarkProjectionCalculator",
      "WorldLandmarkProjectionCalculator",
      "ThresholdingCalculator",
      "HandLandmarksToRectCalculator",
      "AssociationNormRectCalculator",
      "NormalizedRectVectorHasMinSizeCalculator",
      "DetectionVectorHasMinSizeCalculator",
      "NormalizedLandmarkListVectorHasMinSizeCalculator",
      "ClassificationListVectorHasMinSizeCalculator",
      "ClipDetectionVectorSizeCalculator",
      "ClipNormalizedRectVectorSizeCalculator",
      "BeginLoopDetectionCalculator",
      "BeginLoopNormalizedRectCalculator",
      "BeginLoopRectCalculator",
      "BeginLoopNormalizedLandmarkListVectorCalculator",
      "BeginLoopLandmarkListVectorCalculator",
      "BeginLoopClassificationListCalculator",
      "BeginLoopTensorCalculator",
      "EndLoopDetectionCalculator",
      "EndLoopNormalizedRectCalculator",
      "EndLoopRectCalculator",
      "EndLoopNormalizedLandmarkListVectorCalculator",
      "EndLoopLandmarkListVectorCalculator",
      "EndLoopClassificationListCalculator",
      "ConcatenateDetectionVectorCalculator",
      "ConcatenateNormalizedRectVectorCalculator",
      "ConcatenateLandmarkListVectorCalculator",
      "ConcatenateClassificationListVectorCalculator",
      "SplitDetectionVectorCalculator",
      "SplitNormalizedRectVectorCalculator",
      "SplitLandmarkListVectorCalculator",
      "SplitNormalizedLandmarkListVectorCalculator",
      "SplitClassificationListVectorCalculator",
      "SplitTensorVectorCalculator",
      "SplitNormalizedLandmarkListCalculator",
      "SplitLandmarkListCalculator",
      "LocalFileContentsCalculator",
      "ToImageCalculator",
      "DetectionProjectionCalculator",
      "LandmarksToDetectionCalculator",
      "LandmarksRefinementCalculator",
      "InverseMatrixCalculator",
      "VisibilityCopyCalculator",
      "AlignmentPointsRectsCalculator",
      "RefineLandmarksFromHeatmapCalculator",
      "LandmarksSmoothingCalculator",
      "VisibilitySmoothingCalculator",
      // RenderData.
      "AnnotationOverlayCalculator",
      "DetectionsToRenderDataCalculator",
      "LandmarksToRenderDataCalculator",
      "RectToRenderDataCalculator",
      "LabelsToRenderDataCalculator",
      "EndLoopRenderDataCalculator",
      // calculators/tensor post-processing.
      "TensorsToDetectionsCalculator",
      "TensorsToLandmarksCalculator",
      "TensorsToFloatsCalculator",
      "TensorsToClassificationCalculator",
  };
  for (const char* name : kNames) {
    EXPECT_TRUE(CalculatorRegistry::Get().IsRegistered(name)) << name << " is not registered";
  }
  for (const auto& name : CalculatorRegistry::Get().DuplicateNames()) {
    ADD_FAILURE() << name << " is registered twice";
  }
  // sluice_hand_landmark_resources: the labels the hand graphs read by path.
  EXPECT_NE(FindEmbeddedResource("mediapipe/modules/hand_landmark/handedness.txt"), nullptr);
}

}  // namespace
}  // namespace sluice
