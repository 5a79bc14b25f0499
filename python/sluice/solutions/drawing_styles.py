"""Default drawing styles for hands, face meshes and poses (MediaPipe's drawing_styles;
colours are BGR)."""
from typing import Mapping, Tuple

from sluice.solutions import face_mesh_connections as fmc
from sluice.solutions import hands_connections
from sluice.solutions.drawing_utils import DrawingSpec

_RED = (48, 48, 255)
_GREEN = (48, 255, 48)
_BLUE = (192, 101, 21)
_YELLOW = (0, 204, 255)
_GRAY = (128, 128, 128)
_PURPLE = (128, 64, 128)
_PEACH = (180, 229, 255)
_WHITE = (224, 224, 224)
_CYAN = (192, 255, 48)
_MAGENTA = (192, 48, 255)

_RADIUS = 5
_THICKNESS_DOT = -1
_THICKNESS_PALM_LINE = 3
_THICKNESS_FINGER_LINE = 2

# Landmark indices per part: palm (wrist + finger bases), then each finger.
_PALM = (0, 1, 5, 9, 13, 17)
_FINGERS = (((2, 3, 4), _PEACH, hands_connections.HAND_THUMB_CONNECTIONS),
            ((6, 7, 8), _PURPLE, hands_connections.HAND_INDEX_FINGER_CONNECTIONS),
            ((10, 11, 12), _YELLOW, hands_connections.HAND_MIDDLE_FINGER_CONNECTIONS),
            ((14, 15, 16), _GREEN, hands_connections.HAND_RING_FINGER_CONNECTIONS),
            ((18, 19, 20), _BLUE, hands_connections.HAND_PINKY_FINGER_CONNECTIONS))


def get_default_hand_landmarks_style() -> Mapping[int, DrawingSpec]:
  """Filled dots of radius 5: palm red, fingers each in their own colour."""
  style = {i: DrawingSpec(color=_RED, thickness=_THICKNESS_DOT, circle_radius=_RADIUS)
           for i in _PALM}
  for indices, color, _ in _FINGERS:
    for i in indices:
      style[i] = DrawingSpec(color=color, thickness=_THICKNESS_DOT, circle_radius=_RADIUS)
  return style


def get_default_hand_connections_style() -> Mapping[Tuple[int, int], DrawingSpec]:
  """Palm lines gray and 3 px; finger lines 2 px in the finger's colour."""
  style = {c: DrawingSpec(color=_GRAY, thickness=_THICKNESS_PALM_LINE)
           for c in hands_connections.HAND_PALM_CONNECTIONS}
  for _, color, connections in _FINGERS:
    for c in connections:
      style[c] = DrawingSpec(color=color, thickness=_THICKNESS_FINGER_LINE)
  return style


_THICKNESS_TESSELATION = 1
_THICKNESS_CONTOURS = 2

# Contour colours by part: style 0 (the default) and style 1 (more colourful,
# with the nose).
_FACE_CONTOUR_COLORS = (
    ((fmc.FACEMESH_LIPS, _WHITE), (fmc.FACEMESH_LEFT_EYE, _GREEN),
     (fmc.FACEMESH_LEFT_EYEBROW, _GREEN), (fmc.FACEMESH_RIGHT_EYE, _RED),
     (fmc.FACEMESH_RIGHT_EYEBROW, _RED), (fmc.FACEMESH_FACE_OVAL, _WHITE)),
    ((fmc.FACEMESH_LIPS, _BLUE), (fmc.FACEMESH_LEFT_EYE, _CYAN),
     (fmc.FACEMESH_LEFT_EYEBROW, _GREEN), (fmc.FACEMESH_RIGHT_EYE, _MAGENTA),
     (fmc.FACEMESH_RIGHT_EYEBROW, _RED), (fmc.FACEMESH_FACE_OVAL, _WHITE),
     (fmc.FACEMESH_NOSE, _YELLOW)),
)


def get_default_face_mesh_contours_style(i: int = 0) -> Mapping[Tuple[int, int], DrawingSpec]:
  """2 px contour lines: style 0 lips and oval light gray, the person's left
  eye and eyebrow green, right ones red; style 1 (i=1) other colours, nose included."""
  style = {}
  for connections, color in _FACE_CONTOUR_COLORS[1 if i == 1 else 0]:
    spec = DrawingSpec(color=color, thickness=_THICKNESS_CONTOURS)
    for c in connections:
      style[c] = spec
  return style


def get_default_face_mesh_tesselation_style() -> DrawingSpec:
  """1 px gray lines."""
  return DrawingSpec(color=_GRAY, thickness=_THICKNESS_TESSELATION)


def get_default_face_mesh_iris_connections_style() -> Mapping[Tuple[int, int], DrawingSpec]:
  """2 px rings: the person's left iris green, the right one red."""
  style = {c: DrawingSpec(color=_GREEN, thickness=_THICKNESS_CONTOURS)
           for c in fmc.FACEMESH_LEFT_IRIS}
  for c in fmc.FACEMESH_RIGHT_IRIS:
    style[c] = DrawingSpec(color=_RED, thickness=_THICKNESS_CONTOURS)
  return style


_THICKNESS_POSE_LANDMARKS = 2
# The person's left / right side landmarks of the pose (PoseLandmark indices):
# eye corners and eye, ear, mouth corner, shoulder, elbow, wrist, pinky,
# index, thumb, hip, knee, ankle, heel, foot index.
_POSE_LEFT = (1, 2, 3, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
_POSE_RIGHT = (4, 5, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32)
_POSE_LEFT_COLOR = (0, 138, 255)   # orange (BGR)
_POSE_RIGHT_COLOR = (231, 217, 0)  # cyan (BGR)


def get_default_pose_landmarks_style() -> Mapping[int, DrawingSpec]:
  """2 px landmarks: the person's left side orange, right side cyan, nose white."""
  style = {i: DrawingSpec(color=_POSE_LEFT_COLOR, thickness=_THICKNESS_POSE_LANDMARKS)
           for i in _POSE_LEFT}
  for i in _POSE_RIGHT:
    style[i] = DrawingSpec(color=_POSE_RIGHT_COLOR, thickness=_THICKNESS_POSE_LANDMARKS)
  style[0] = DrawingSpec(color=_WHITE, thickness=_THICKNESS_POSE_LANDMARKS)
  return style
