// MediaPipe's face mesh topology (face_mesh_connections.py): the
// tessellation, the contours by part and the irises, plus DrawFaceMesh, the
// way MediaPipe's face mesh examples draw a face (drawing_styles' defaults).
// Connections are sorted by (first, second); MediaPipe keeps them as sets.
#ifndef SLUICE_RENDER_FACE_MESH_CONNECTIONS_H_
#define SLUICE_RENDER_FACE_MESH_CONNECTIONS_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "render/drawing.h"

namespace sluice {

// Triangle edges over the 468 mesh landmarks (2556).
absl::Span<const Connection> FaceMeshTesselation();
// Contour parts; "left"/"right" are the person's, as in MediaPipe.
absl::Span<const Connection> FaceMeshLips();
absl::Span<const Connection> FaceMeshLeftEye();
absl::Span<const Connection> FaceMeshLeftEyebrow();
absl::Span<const Connection> FaceMeshRightEye();
absl::Span<const Connection> FaceMeshRightEyebrow();
absl::Span<const Connection> FaceMeshFaceOval();
absl::Span<const Connection> FaceMeshNose();
// Iris rings over landmarks 468..477 (refined landmarks only).
absl::Span<const Connection> FaceMeshLeftIris();
absl::Span<const Connection> FaceMeshRightIris();

// One face: gray tessellation (1 px), then the contours (lips and oval
// light gray, the person's left eye and eyebrow green, right ones red, 2 px)
// and, when the list has the 478 refined landmarks, the irises, without
// landmark dots (MediaPipe's default face mesh styles). Landmarks outside the
// image are skipped with their connections. Fewer than 468 landmarks is
// InvalidArgument.
absl::Status DrawFaceMesh(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks);

}  // namespace sluice

#endif  // SLUICE_RENDER_FACE_MESH_CONNECTIONS_H_
