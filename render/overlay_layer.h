// The annotation layer of the overlay's GPU path: the same drawing calls the
// CPU path makes on the image (drawing.h), made on a transparent SRGBA frame
// of the image's size instead. The result holds premultiplied colour and
// coverage (see gpu/kernels/overlay.h); compositing it over the image
// (OverlayLoopU8 on the CPU, OverlayLayerGpu on a CUDA image) gives the CPU
// path's pixels, within the difference overlay_gpu_math_test measures at
// antialiased edges.
#ifndef SLUICE_RENDER_OVERLAY_LAYER_H_
#define SLUICE_RENDER_OVERLAY_LAYER_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "formats/image_frame.h"

namespace sluice {

// Draws with `draw` (any of drawing.h's functions, on the frame it is given)
// onto a width x height SRGBA frame that starts as (0, 0, 0, 0). Errors:
// InvalidArgument for a non-positive size; `draw`'s own errors.
absl::StatusOr<ImageFrame> RenderAnnotationLayer(
    int width, int height, const std::function<absl::Status(ImageFrame*)>& draw);

}  // namespace sluice

#endif  // SLUICE_RENDER_OVERLAY_LAYER_H_
