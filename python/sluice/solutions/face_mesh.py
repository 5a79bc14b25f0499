"""Face landmarks with MediaPipe's legacy `mp.solutions.face_mesh` API.

  with FaceMesh(static_image_mode=False, max_num_faces=1, refine_landmarks=True) as mesh:
    results = mesh.process(rgb)      # numpy uint8 array, H x W x 3, RGB
    for face in results.multi_face_landmarks or []:   # NormalizedLandmarkList
      print(face.landmark[1].x)      # 468 landmarks, 478 with refine_landmarks

The same graph, models and thresholds as MediaPipe's solution (Sluice's C++
FaceMesh, solutions/face_mesh/face_mesh.h). FACEMESH_* are the connection sets
for drawing_utils.draw_landmarks.
"""
from typing import List, NamedTuple, Optional

from sluice import _sluice
from sluice import _solution_util as util
from sluice.formats import landmark_pb2
# The connection sets, re-exported as mp.solutions.face_mesh has them.
from sluice.solutions.face_mesh_connections import FACEMESH_CONTOURS  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_FACE_OVAL  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_IRISES  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_LEFT_EYE  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_LEFT_EYEBROW  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_LEFT_IRIS  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_LIPS  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_NOSE  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_RIGHT_EYE  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_RIGHT_EYEBROW  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_RIGHT_IRIS  # noqa: F401
from sluice.solutions.face_mesh_connections import FACEMESH_TESSELATION  # noqa: F401

FACEMESH_NUM_LANDMARKS = 468
FACEMESH_NUM_LANDMARKS_WITH_IRISES = 478


class FaceMeshResult(NamedTuple):
  """What FaceMesh.process returns; None when no face is found."""
  multi_face_landmarks: Optional[List[landmark_pb2.NormalizedLandmarkList]]


class FaceMesh(util.SolutionBase):
  """MediaPipe Face Mesh: 468 face landmarks (478 with the irises), tracked
  across frames.

  process(rgb) -> FaceMeshResult; process_stream(frames) (Sluice only) yields
  the same results with consecutive frames pipelined; reset() forgets tracked
  faces; close(), context manager.
  """

  _NAME = "FaceMesh"

  def __init__(self, static_image_mode=False, max_num_faces=1, refine_landmarks=False,
               min_detection_confidence=0.5, min_tracking_confidence=0.5, device="auto"):
    """Args:
      static_image_mode: every image on its own (face detection on each); else
        faces found in one frame are tracked into the next from their landmarks.
      max_num_faces: at most this many faces (>= 1).
      refine_landmarks: the attention model: lips, eyes and irises refined and
        10 iris landmarks appended (478 in all).
      min_detection_confidence: face detection score threshold, in [0, 1].
      min_tracking_confidence: face presence threshold of the landmark model,
        in [0, 1]; below it a tracked face is dropped (video mode).
      device: "auto" (the best available), "cpu" or "cuda".
    Raises ValueError for a bad option, RuntimeError when the graph cannot
    start (e.g. device="cuda" without a GPU; the message says why).
    """
    util.check_device(self._NAME, device)
    if isinstance(max_num_faces, bool) or not isinstance(max_num_faces, int) or max_num_faces < 1:
      raise ValueError("FaceMesh: max_num_faces must be an int >= 1, got %r" % (max_num_faces,))
    for name, value in (("min_detection_confidence", min_detection_confidence),
                        ("min_tracking_confidence", min_tracking_confidence)):
      util.check_unit_interval(self._NAME, name, value)
    self.static_image_mode = bool(static_image_mode)
    self._options = dict(static_image_mode=bool(static_image_mode),
                         max_num_faces=int(max_num_faces),
                         refine_landmarks=bool(refine_landmarks),
                         min_detection_confidence=float(min_detection_confidence),
                         min_tracking_confidence=float(min_tracking_confidence),
                         device=device)
    super().__init__()

  def _create(self):
    return _sluice.FaceMesh(**self._options)

  def _to_result(self, raw):
    if not raw:
      return FaceMeshResult(None)
    return FaceMeshResult([landmark_pb2.NormalizedLandmarkList.FromString(data)
                           for data in raw])

  def process(self, image) -> FaceMeshResult:
    """Finds face landmarks in `image` (numpy uint8, H x W x 3, RGB)."""
    return super().process(image)
