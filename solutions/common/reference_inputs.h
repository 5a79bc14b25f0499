// For the solution API tests: the photos of ../shared/reference/inputs
// ($SLUICE_SHARED_DIR when set), the RGB pixels Google's reference outputs in
// ../shared/reference/cpu_inference were computed from. Test-only (gtest).
#ifndef SLUICE_SOLUTIONS_COMMON_REFERENCE_INPUTS_H_
#define SLUICE_SOLUTIONS_COMMON_REFERENCE_INPUTS_H_

#include <cstdlib>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "formats/image_frame.h"
#include "formats/image_io.h"

namespace sluice {

inline std::string ReferenceInputPath(const std::string& name) {
  const char* env = std::getenv("SLUICE_SHARED_DIR");
  return std::string(env != nullptr && *env ? env : "../shared") + "/reference/inputs/" + name;
}

// The photo as SRGB; a test failure and an empty frame when it cannot be read.
inline ImageFrame LoadReferenceRgb(const std::string& name) {
  absl::StatusOr<ImageFrame> image = ReadImageFile(ReferenceInputPath(name));
  EXPECT_TRUE(image.ok()) << image.status();
  return image.ok() ? std::move(*image) : ImageFrame();
}

}  // namespace sluice

#endif  // SLUICE_SOLUTIONS_COMMON_REFERENCE_INPUTS_H_
