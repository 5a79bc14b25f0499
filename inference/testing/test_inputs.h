// Real inputs for model tests: the shared test images, decoded by a minimal
// PNG reader (8-bit gray/RGB/RGBA, non-interlaced) and resized into a model's
// float NHWC input.
#ifndef SLUICE_INFERENCE_TESTING_TEST_INPUTS_H_
#define SLUICE_INFERENCE_TESTING_TEST_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "inference/backend.h"

namespace sluice::inference::testing {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // row-major, 3 bytes per pixel
};

// $SLUICE_SHARED_DIR, else "../shared" (relative to the repo root).
std::string SharedDir();

absl::StatusOr<RgbImage> LoadPng(const std::string& path);

// Bilinear resize of the whole image into `input` ([1,H,W,3] float32),
// mapping 0..255 to lo..hi.
absl::Status FillImageInput(const RgbImage& image, const IoTensor& input, float lo, float hi);

}  // namespace sluice::inference::testing

#endif  // SLUICE_INFERENCE_TESTING_TEST_INPUTS_H_
