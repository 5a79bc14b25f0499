"""Drawing landmarks and detections on images, in the manner of MediaPipe's
drawing_utils.

Colours are tuples in the image's own channel order (MediaPipe's examples draw
on BGR images, so its constants are BGR). Drawing uses OpenCV's cv2.
"""
import dataclasses
import math
from typing import Mapping, Optional, Tuple, Union

import numpy as np

WHITE_COLOR = (224, 224, 224)
BLACK_COLOR = (0, 0, 0)
RED_COLOR = (0, 0, 255)
GREEN_COLOR = (0, 128, 0)
BLUE_COLOR = (255, 0, 0)

# Landmarks whose visibility / presence is set and below these are not drawn.
_VISIBILITY_THRESHOLD = 0.5
_PRESENCE_THRESHOLD = 0.5


@dataclasses.dataclass
class DrawingSpec:
  color: Tuple[int, int, int] = WHITE_COLOR
  thickness: int = 2  # negative: filled circles
  circle_radius: int = 2


def _cv2():
  try:
    import cv2
  except ImportError as e:
    raise ImportError("sluice.solutions.drawing_utils needs OpenCV's cv2 "
                      "(Debian: python3-opencv; pip: opencv-python)") from e
  return cv2


def _to_pixels(x, y, width, height):
  """Pixel of a normalized point; None when it lies outside the image."""
  def inside(v):
    return (v > 0 or math.isclose(0, v)) and (v < 1 or math.isclose(1, v))
  if not (inside(x) and inside(y)):
    return None
  return min(math.floor(x * width), width - 1), min(math.floor(y * height), height - 1)


def _clip01(v):
  return min(max(v, 0.0), 1.0)


def _check_image(image, where="draw_landmarks"):
  if (not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3
      or image.dtype != np.uint8):
    raise ValueError("%s: expected a three-channel image, a numpy uint8 array of "
                     "shape (height, width, 3)" % where)


def draw_landmarks(image, landmark_list, connections=None,
                   landmark_drawing_spec: Optional[Union[DrawingSpec, Mapping[int, DrawingSpec]]]
                   = DrawingSpec(color=RED_COLOR),
                   connection_drawing_spec: Union[DrawingSpec, Mapping[Tuple[int, int], DrawingSpec]]
                   = DrawingSpec(),
                   is_drawing_landmarks: bool = True):
  """Draws a NormalizedLandmarkList and its connections on `image`, in place.

  landmark_drawing_spec / connection_drawing_spec: one spec for all, or a
  mapping from landmark index / connection to its spec (drawing_styles).
  landmark_drawing_spec=None or is_drawing_landmarks=False: connections only.
  """
  if not landmark_list:
    return
  _check_image(image)
  cv2 = _cv2()
  height, width = image.shape[:2]
  points = {}
  for i, lm in enumerate(landmark_list.landmark):
    if ((lm.HasField("visibility") and lm.visibility < _VISIBILITY_THRESHOLD) or
        (lm.HasField("presence") and lm.presence < _PRESENCE_THRESHOLD)):
      continue
    px = _to_pixels(lm.x, lm.y, width, height)
    if px is not None:
      points[i] = px
  if connections:
    n = len(landmark_list.landmark)
    for connection in connections:
      start, end = connection
      if not (0 <= start < n and 0 <= end < n):
        raise ValueError("draw_landmarks: connection %s names a landmark outside the list of %d"
                         % (connection, n))
      if start in points and end in points:
        spec = (connection_drawing_spec[connection]
                if isinstance(connection_drawing_spec, Mapping) else connection_drawing_spec)
        cv2.line(image, points[start], points[end], spec.color, spec.thickness)
  if is_drawing_landmarks and landmark_drawing_spec:
    for i, px in points.items():
      spec = (landmark_drawing_spec[i]
              if isinstance(landmark_drawing_spec, Mapping) else landmark_drawing_spec)
      # A white ring under the dot, a little wider than it.
      border = max(spec.circle_radius + 1, int(spec.circle_radius * 1.2))
      cv2.circle(image, px, border, WHITE_COLOR, spec.thickness)
      cv2.circle(image, px, spec.circle_radius, spec.color, spec.thickness)


def draw_detection(image, detection,
                   keypoint_drawing_spec: DrawingSpec = DrawingSpec(color=RED_COLOR),
                   bbox_drawing_spec: DrawingSpec = DrawingSpec()):
  """Draws a Detection's keypoints (dots) and relative bounding box on `image`, in place.

  Keypoints outside the image are skipped; a box reaching past the borders is
  drawn clipped to them. ValueError for a detection whose location is not
  relative (MediaPipe's face detections are).
  """
  if detection is None or not detection.HasField("location_data"):
    return
  _check_image(image, "draw_detection")
  location = detection.location_data
  if location.format != location.RELATIVE_BOUNDING_BOX:
    raise ValueError("draw_detection: the detection's location_data must be "
                     "RELATIVE_BOUNDING_BOX (normalized coordinates)")
  cv2 = _cv2()
  height, width = image.shape[:2]
  for keypoint in location.relative_keypoints:
    px = _to_pixels(keypoint.x, keypoint.y, width, height)
    if px is not None:
      cv2.circle(image, px, keypoint_drawing_spec.circle_radius, keypoint_drawing_spec.color,
                 keypoint_drawing_spec.thickness)
  if not location.HasField("relative_bounding_box"):
    return
  box = location.relative_bounding_box
  start = _to_pixels(_clip01(box.xmin), _clip01(box.ymin), width, height)
  end = _to_pixels(_clip01(box.xmin + box.width), _clip01(box.ymin + box.height), width, height)
  cv2.rectangle(image, start, end, bbox_drawing_spec.color, bbox_drawing_spec.thickness)


def _rgb01(color):
  """A BGR 0-255 tuple as matplotlib's RGB 0-1."""
  return tuple(v / 255.0 for v in color[::-1])


def plot_landmarks(landmark_list, connections=None,
                   landmark_drawing_spec: DrawingSpec = DrawingSpec(color=RED_COLOR, thickness=5),
                   connection_drawing_spec: DrawingSpec = DrawingSpec(color=BLACK_COLOR,
                                                                      thickness=5),
                   elevation: int = 10, azimuth: int = 10):
  """Plots a (world) landmark list in 3-D with matplotlib (shown with plt.show()).

  Axes as MediaPipe plots them: depth (z) along the plot's x axis, image x
  along y, and image y, negated, up.
  """
  if not landmark_list:
    return
  try:
    import matplotlib.pyplot as plt
  except ImportError as e:
    raise ImportError("plot_landmarks needs matplotlib (Debian: python3-matplotlib)") from e
  plt.figure(figsize=(10, 10))
  ax = plt.axes(projection="3d")
  ax.view_init(elev=elevation, azim=azimuth)
  shown = {}
  for i, lm in enumerate(landmark_list.landmark):
    if ((lm.HasField("visibility") and lm.visibility < _VISIBILITY_THRESHOLD) or
        (lm.HasField("presence") and lm.presence < _PRESENCE_THRESHOLD)):
      continue
    ax.scatter3D(xs=[-lm.z], ys=[lm.x], zs=[-lm.y], color=_rgb01(landmark_drawing_spec.color),
                 linewidth=landmark_drawing_spec.thickness)
    shown[i] = (-lm.z, lm.x, -lm.y)
  if connections:
    n = len(landmark_list.landmark)
    for start, end in connections:
      if not (0 <= start < n and 0 <= end < n):
        raise ValueError("plot_landmarks: connection %s names a landmark outside the list of %d"
                         % ((start, end), n))
      if start in shown and end in shown:
        a, b = shown[start], shown[end]
        ax.plot3D(xs=[a[0], b[0]], ys=[a[1], b[1]], zs=[a[2], b[2]],
                  color=_rgb01(connection_drawing_spec.color),
                  linewidth=connection_drawing_spec.thickness)
  plt.show()
