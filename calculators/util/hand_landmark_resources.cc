// Small files MediaPipe's hand landmark graphs read by resource path, compiled
// into the binary so that the graphs run without MediaPipe's source tree.
// Link sluice_hand_landmark_resources whole.
#include "util/resource_util.h"

namespace sluice {
namespace {

// Labels of the handedness classifier, in the model's output order (as in
// MediaPipe's mediapipe/modules/hand_landmark/handedness.txt).
const EmbeddedResourceRegistrar kHandedness("mediapipe/modules/hand_landmark/handedness.txt",
                                            "Left\nRight\n");

}  // namespace
}  // namespace sluice
