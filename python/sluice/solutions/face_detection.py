"""Face detection with MediaPipe's legacy `mp.solutions.face_detection` API.

  with FaceDetection(model_selection=0) as fd:
    results = fd.process(rgb)      # numpy uint8 array, H x W x 3, RGB
    for detection in results.detections or []:   # mediapipe.Detection messages
      box = detection.location_data.relative_bounding_box   # xmin, ymin, width, height
      nose = get_key_point(detection, FaceKeyPoint.NOSE_TIP)  # .x, .y

The same graphs, models and post-processing as MediaPipe's solution (Sluice's
C++ FaceDetector, solutions/face_detection/face_detector.h). Every image is
detected on its own (there is no tracking).
"""
import enum
from typing import List, NamedTuple, Optional

from sluice import _sluice
from sluice import _solution_util as util
from sluice.formats import detection_pb2
from sluice.formats import location_data_pb2


class FaceKeyPoint(enum.IntEnum):
  """The 6 face keypoints, in the order of `relative_keypoints` ("right" and
  "left" are the person's)."""
  RIGHT_EYE = 0
  LEFT_EYE = 1
  NOSE_TIP = 2
  MOUTH_CENTER = 3
  RIGHT_EAR_TRAGION = 4
  LEFT_EAR_TRAGION = 5


def get_key_point(
    detection: detection_pb2.Detection,
    key_point_enum: FaceKeyPoint) -> Optional[location_data_pb2.LocationData.RelativeKeypoint]:
  """The keypoint `key_point_enum` of a face detection (normalized x, y), or
  None for an empty detection."""
  if detection is None or not detection.HasField("location_data"):
    return None
  return detection.location_data.relative_keypoints[key_point_enum]


class FaceDetectionResult(NamedTuple):
  """What FaceDetection.process returns; `detections` is None when no face is found."""
  detections: Optional[List[detection_pb2.Detection]]


class FaceDetection(util.SolutionBase):
  """MediaPipe Face Detection: face boxes and 6 keypoints (BlazeFace).

  process(rgb) -> FaceDetectionResult; process_stream(frames) (Sluice only)
  yields the same results with consecutive frames pipelined; reset(), close(),
  context manager.
  """

  _NAME = "FaceDetection"

  # Google's argument order (min_detection_confidence first), for positional calls.
  def __init__(self, min_detection_confidence=None, model_selection=0, device="auto"):
    """Args:
      min_detection_confidence: detection score threshold, in [0, 1]; None
        (the default): the model's own, 0.5 short range and 0.6 full range,
        which is what Google's mediapipe 0.10.21 applies whatever this
        argument says. A value given here is applied (Sluice only).
      model_selection: 0 short-range model (faces within ~2 m of the camera),
        1 full-range model (within ~5 m).
      device: "auto" (the best available), "cpu" or "cuda".
    Raises ValueError for a bad option, RuntimeError when the graph cannot
    start (e.g. device="cuda" without a GPU; the message says why).
    """
    util.check_device(self._NAME, device)
    util.check_choice(self._NAME, "model_selection", model_selection, (0, 1))
    if min_detection_confidence is not None:
      util.check_unit_interval(self._NAME, "min_detection_confidence", min_detection_confidence)
      min_detection_confidence = float(min_detection_confidence)
    self._options = dict(model_selection=int(model_selection),
                         min_detection_confidence=min_detection_confidence,
                         device=device)
    super().__init__()

  def _create(self):
    return _sluice.FaceDetector(**self._options)

  def _to_result(self, raw):
    if not raw:
      return FaceDetectionResult(None)
    return FaceDetectionResult([detection_pb2.Detection.FromString(data) for data in raw])

  def process(self, image) -> FaceDetectionResult:
    """Finds faces in `image` (numpy uint8, H x W x 3, RGB)."""
    return super().process(image)
