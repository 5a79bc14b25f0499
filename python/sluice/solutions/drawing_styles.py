"""Default drawing styles (MediaPipe's drawing_styles; colours are BGR)."""
from typing import Mapping, Tuple

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
