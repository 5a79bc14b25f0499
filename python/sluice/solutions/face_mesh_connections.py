"""The face mesh topology: pairs of landmark indices, grouped by part
(MediaPipe's face_mesh_connections; "left"/"right" are the person's).

The pairs come from the C++ renderer's tables (render/face_mesh_connections),
so Python and C++ drawing use one topology. The iris sets name landmarks
468..477: only the refined (478-landmark) lists have them.
"""
from sluice import _sluice

_SETS = _sluice.face_mesh_connections()

FACEMESH_LIPS = frozenset(_SETS["lips"])
FACEMESH_LEFT_EYE = frozenset(_SETS["left_eye"])
FACEMESH_LEFT_IRIS = frozenset(_SETS["left_iris"])
FACEMESH_LEFT_EYEBROW = frozenset(_SETS["left_eyebrow"])
FACEMESH_RIGHT_EYE = frozenset(_SETS["right_eye"])
FACEMESH_RIGHT_EYEBROW = frozenset(_SETS["right_eyebrow"])
FACEMESH_RIGHT_IRIS = frozenset(_SETS["right_iris"])
FACEMESH_FACE_OVAL = frozenset(_SETS["face_oval"])
FACEMESH_NOSE = frozenset(_SETS["nose"])

# As in MediaPipe: the contours are lips, eyes, eyebrows and the oval (the
# nose is a set of its own).
FACEMESH_CONTOURS = frozenset().union(
    FACEMESH_LIPS, FACEMESH_LEFT_EYE, FACEMESH_LEFT_EYEBROW, FACEMESH_RIGHT_EYE,
    FACEMESH_RIGHT_EYEBROW, FACEMESH_FACE_OVAL)
FACEMESH_IRISES = frozenset().union(FACEMESH_LEFT_IRIS, FACEMESH_RIGHT_IRIS)
FACEMESH_TESSELATION = frozenset(_SETS["tesselation"])

del _SETS
