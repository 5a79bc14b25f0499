// Resources: files that graphs name by a MediaPipe-style relative path, e.g.
// "mediapipe/modules/hand_landmark/handedness.txt" or
// "mediapipe/modules/palm_detection/palm_detection_full.tflite".
//
// One resolver for every calculator that reads such a path. A path is looked
// up, in order:
//   1. as given (relative to the working directory, or absolute);
//   2. joined to each root in $SLUICE_RESOURCE_DIR (':'-separated), relative paths only;
//   3. for models (.tflite, or ResolveModelPath), its file name inside
//      $SLUICE_MODELS_DIR, ./models, the models/ folder two levels above the
//      executable's folder (a checkout's, for build/tools/sluice),
//      $SLUICE_SHARED_DIR/models, ../shared/models and the shared/models
//      folder beside that checkout;
//   4. among the resources embedded in the binary (RegisterEmbeddedResource).
// Files win over embedded copies, so a resource can be overridden on disk.
#ifndef SLUICE_UTIL_RESOURCE_UTIL_H_
#define SLUICE_UTIL_RESOURCE_UTIL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sluice {

// The file that `path` resolves to (steps 1-3). NotFound lists every place
// tried; an embedded-only resource is NotFound here (use ReadResource).
absl::StatusOr<std::string> ResolveResourcePath(const std::string& path);

// The contents of `path`: the file it resolves to, else the embedded copy.
// NotFound lists every place tried.
absl::StatusOr<std::string> ReadResource(const std::string& path);

// Finds a model file: steps 1-3 with the model folders searched whatever the
// extension. The error lists where it looked.
absl::StatusOr<std::string> ResolveModelPath(const std::string& model_path);

// Makes `contents` readable as `path` through ReadResource. Registering a path
// again replaces the earlier contents.
void RegisterEmbeddedResource(std::string path, std::string contents);
// The embedded contents of `path`, or nullptr (valid until `path` is
// registered again).
const std::string* FindEmbeddedResource(absl::string_view path);

// Registers at static-init time; link the library holding it whole, e.g.
//   const sluice::EmbeddedResourceRegistrar kHandedness(
//       "mediapipe/modules/hand_landmark/handedness.txt", "Left\nRight\n");
struct EmbeddedResourceRegistrar {
  EmbeddedResourceRegistrar(const char* path, absl::string_view contents);
};

}  // namespace sluice

#endif  // SLUICE_UTIL_RESOURCE_UTIL_H_
