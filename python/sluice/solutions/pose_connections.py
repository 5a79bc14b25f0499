"""The pose skeleton: pairs of PoseLandmark indices (MediaPipe's
POSE_CONNECTIONS; the same list the C++ renderer draws)."""
from sluice import _sluice

POSE_CONNECTIONS = frozenset(_sluice.pose_connections())
