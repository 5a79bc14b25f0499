// MediaPipe's pose topology (pose_connections.py) and DrawPose, the way
// MediaPipe's pose examples draw a body (drawing_utils with drawing_styles'
// default pose landmark style).
#ifndef SLUICE_RENDER_POSE_CONNECTIONS_H_
#define SLUICE_RENDER_POSE_CONNECTIONS_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "formats/image_frame.h"
#include "formats/landmark.pb.h"
#include "render/drawing.h"

namespace sluice {

// MediaPipe's PoseLandmark names, lower case, by index: "nose",
// "left_eye_inner", ... "right_foot_index" (33).
absl::Span<const char* const> PoseLandmarkNames();

// The 35 edges of POSE_CONNECTIONS over the 33 pose landmarks (face, arms
// with hands, torso, legs with feet), sorted by (first, second); MediaPipe
// keeps them as a set.
absl::Span<const Connection> PoseConnections();

// drawing_styles.get_default_pose_landmarks_style(): the person's left side
// orange, right side cyan, the nose white; 2 px rings of radius 2 (with
// drawing_utils' white border). Connections keep drawing_utils' default
// (white, 2 px).
LandmarksStyle PoseLandmarksStyle();

// One pose: PoseConnections() in PoseLandmarksStyle(). Landmarks with
// visibility or presence below 0.5, or outside the image, are skipped with
// their connections (DrawLandmarks' rule); landmarks after the 33rd are not
// drawn. Fewer than 33 landmarks is InvalidArgument.
absl::Status DrawPose(ImageFrame* frame, const ::mediapipe::NormalizedLandmarkList& landmarks);

}  // namespace sluice

#endif  // SLUICE_RENDER_POSE_CONNECTIONS_H_
