#include "tests/seed_test_calculators.h"

#include <mutex>

#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "graphs/face_detection/face_detection_options.pb.h"

namespace sluice {
namespace {

std::mutex record_mu;
FaceDetectionSubgraphRecord last_record;

// Stands in for a face-detection subgraph: reads mediapipe.FaceDetectionOptions
// (given as node_options Any) and counts the IMAGE packets it receives.
class FaceDetectionSubgraph : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IMAGE").SetAny();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<mediapipe::FaceDetectionOptions>();
    record_.tensor_width = options.tensor_width();
    record_.tensor_height = options.tensor_height();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (!cc->Inputs().Tag("IMAGE").IsEmpty()) ++record_.images;
    return absl::OkStatus();
  }
  absl::Status Close(CalculatorContext*) override {
    std::lock_guard<std::mutex> lock(record_mu);
    last_record = record_;
    return absl::OkStatus();
  }

 private:
  FaceDetectionSubgraphRecord record_;
};
REGISTER_CALCULATOR(FaceDetectionSubgraph);

}  // namespace

FaceDetectionSubgraphRecord LastFaceDetectionSubgraphRecord() {
  std::lock_guard<std::mutex> lock(record_mu);
  return last_record;
}

}  // namespace sluice
