// DetectionsToRectsCalculator (see the .cc for the node): declared here so
// that variants (AlignmentPointsRectsCalculator) reuse its ports, options
// checks, rotation and output handling and override only the rect geometry.
#ifndef SLUICE_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_
#define SLUICE_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "calculators/util/detections_to_rects_calculator.pb.h"
#include "formats/detection.pb.h"
#include "formats/rect.pb.h"
#include "framework/calculator_base.h"

namespace sluice {

class DetectionsToRectsCalculator : public CalculatorBase {
 public:
  using ImageSize = std::optional<std::pair<int, int>>;

  static absl::Status GetContract(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;
  absl::Status Process(CalculatorContext* cc) override;

 protected:
  // The normalized rect of one detection (rotation is set afterwards). `size`
  // is the IMAGE_SIZE at this timestamp, if any.
  virtual absl::Status ToNormalizedRect(const mediapipe::Detection& d, const ImageSize& size,
                                        mediapipe::NormalizedRect* rect) const;
  absl::Status ToRect(const mediapipe::Detection& d, const ImageSize& size,
                      mediapipe::Rect* rect) const;
  absl::Status ComputeRotation(const mediapipe::Detection& d, const ImageSize& size,
                               float* rotation) const;
  bool UseKeypoints() const;
  void EmitZeroRects(CalculatorContext* cc, Timestamp ts) const;

  mediapipe::DetectionsToRectsCalculatorOptions options_;
  bool rotate_ = false;
  float target_angle_ = 0.0f;
};

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_
