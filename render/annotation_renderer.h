// Draws MediaPipe RenderData (formats/render_data.proto) onto SRGB(A) frames
// the way MediaPipe's AnnotationRenderer does, with the same OpenCV calls:
//  * normalized coordinates: round(v * width or height) of the frame drawn
//    on; pixel coordinates: trunc(v * scale_factor);
//  * thickness: round(thickness * scale_factor) clamped to [1, 32767];
//  * 8-connected strokes (rounded rectangles take their own line_type; 16 is
//    antialiased), points as filled circles of radius = thickness, gradient
//    lines as thickness-sized squares along a 4-connected line, arrows with
//    heads 0.2 of their length, Hershey text whose font scale fits
//    font_height, scribbles as points.
// Colours are RGB; on SRGBA frames the drawn pixels get alpha 255 (MediaPipe
// writes alpha 0 there, an artefact of its 3-component cv::Scalar). Fills
// use the annotation's `color`, as MediaPipe's renderer does (fill_color is
// not drawn). A FilledRoundedRectangle is drawn filled with its own corner
// radius and line type (MediaPipe reads them from the wrong oneof member and
// then asks OpenCV for lines of thickness -1, which OpenCV rejects).
// Line.line_type (DASHED) is ignored, as in MediaPipe.
//
// The same function draws the CPU path (onto the image) and the GPU path's
// annotation layer (onto a transparent SRGBA frame, render/overlay_layer.h):
// everything but antialiased rounded rectangles overwrites pixels, so the
// layer composited over the image gives exactly the CPU path's pixels.
#ifndef SLUICE_RENDER_ANNOTATION_RENDERER_H_
#define SLUICE_RENDER_ANNOTATION_RENDERER_H_

#include "absl/status/status.h"
#include "formats/image_frame.h"
#include "formats/render_data.pb.h"

namespace sluice {

struct AnnotationRenderOptions {
  // putText's bottomLeftOrigin: text drawn upside down.
  bool flip_text_vertically = false;
  // MediaPipe's SetScaleFactor: applies to pixel coordinates, thicknesses,
  // radii and pixel font heights (normalized coordinates follow the frame).
  // Must be in (0, 1].
  float scale_factor = 1.0f;
};

// Draws every annotation of `render_data`, in order, onto `frame` (SRGB or
// SRGBA). Errors (InvalidArgument, naming the annotation's index and kind):
// another frame format, no annotation kind set, a font_face outside 0..7, a
// rounded rectangle line_type other than -1, 4, 8 or 16, a non-finite
// coordinate, a scale factor outside (0, 1]. Annotations before the bad one
// are drawn.
absl::Status RenderAnnotations(const ::mediapipe::RenderData& render_data,
                               const AnnotationRenderOptions& options, ImageFrame* frame);

}  // namespace sluice

#endif  // SLUICE_RENDER_ANNOTATION_RENDERER_H_
