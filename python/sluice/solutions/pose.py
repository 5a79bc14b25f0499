"""Body pose landmarks with MediaPipe's legacy `mp.solutions.pose` API.

  with Pose(model_complexity=1, enable_segmentation=True) as pose:
    results = pose.process(rgb)          # numpy uint8 array, H x W x 3, RGB
    if results.pose_landmarks:           # NormalizedLandmarkList, 33 landmarks
      nose = results.pose_landmarks.landmark[PoseLandmark.NOSE]
      print(nose.x, nose.y, nose.visibility)
    results.pose_world_landmarks         # LandmarkList, metres, origin at the hips
    results.segmentation_mask            # float32 H x W, P(person), or None

The same graph (PoseLandmarkCpu), models, thresholds and filters as MediaPipe's
solution (Sluice's C++ PoseTracker, solutions/pose/pose_tracker.h). As in
MediaPipe, `presence` is cleared on the landmarks; the mask is a read-only
view that stays valid after later calls.
"""
import enum
from typing import NamedTuple, Optional

import numpy as np

from sluice import _sluice
from sluice import _solution_util as util
from sluice.formats import landmark_pb2
from sluice.solutions.pose_connections import POSE_CONNECTIONS  # noqa: F401


class PoseLandmark(enum.IntEnum):
  """The 33 pose landmarks (MediaPipe's order; left/right are the person's)."""
  NOSE = 0
  LEFT_EYE_INNER = 1
  LEFT_EYE = 2
  LEFT_EYE_OUTER = 3
  RIGHT_EYE_INNER = 4
  RIGHT_EYE = 5
  RIGHT_EYE_OUTER = 6
  LEFT_EAR = 7
  RIGHT_EAR = 8
  MOUTH_LEFT = 9
  MOUTH_RIGHT = 10
  LEFT_SHOULDER = 11
  RIGHT_SHOULDER = 12
  LEFT_ELBOW = 13
  RIGHT_ELBOW = 14
  LEFT_WRIST = 15
  RIGHT_WRIST = 16
  LEFT_PINKY = 17
  RIGHT_PINKY = 18
  LEFT_INDEX = 19
  RIGHT_INDEX = 20
  LEFT_THUMB = 21
  RIGHT_THUMB = 22
  LEFT_HIP = 23
  RIGHT_HIP = 24
  LEFT_KNEE = 25
  RIGHT_KNEE = 26
  LEFT_ANKLE = 27
  RIGHT_ANKLE = 28
  LEFT_HEEL = 29
  RIGHT_HEEL = 30
  LEFT_FOOT_INDEX = 31
  RIGHT_FOOT_INDEX = 32


class PoseResult(NamedTuple):
  """What Pose.process returns; every field None when no pose is found
  (segmentation_mask also None without enable_segmentation)."""
  pose_landmarks: Optional[landmark_pb2.NormalizedLandmarkList]
  pose_world_landmarks: Optional[landmark_pb2.LandmarkList]
  segmentation_mask: Optional[np.ndarray]


def _without_presence(landmarks):
  for landmark in landmarks.landmark:
    landmark.ClearField("presence")
  return landmarks


class Pose(util.SolutionBase):
  """MediaPipe Pose: 33 body landmarks (image and world), tracked across
  frames with MediaPipe's landmark smoothing, and an optional person mask.

  process(rgb) -> PoseResult; process_stream(frames) (Sluice only) yields the
  same results with consecutive frames pipelined; reset() forgets the tracked
  pose and the filters' state; close(), context manager.
  """

  _NAME = "Pose"

  def __init__(self, static_image_mode=False, model_complexity=1, smooth_landmarks=True,
               enable_segmentation=False, smooth_segmentation=True,
               min_detection_confidence=0.5, min_tracking_confidence=0.5, device="auto"):
    """Args:
      static_image_mode: every image on its own (pose detection on each, no
        smoothing); else the pose found in one frame is tracked into the next
        from its landmarks and detection runs only when it is lost.
      model_complexity: 0 (lite), 1 (full) or 2 (heavy) landmark model.
      smooth_landmarks: filter landmarks across frames to reduce jitter
        (video mode only).
      enable_segmentation: also return segmentation_mask.
      smooth_segmentation: filter the mask across frames (video mode only).
      min_detection_confidence: pose detection score threshold, in [0, 1].
      min_tracking_confidence: pose presence threshold of the landmark model,
        in [0, 1]; below it the tracked pose is dropped (video mode).
      device: "auto" (the best available), "cpu" or "cuda".
    Raises ValueError for a bad option, RuntimeError when the graph cannot
    start (a missing model, device="cuda" without a GPU; the message says why).
    """
    util.check_device(self._NAME, device)
    util.check_choice(self._NAME, "model_complexity", model_complexity, (0, 1, 2))
    for name, value in (("min_detection_confidence", min_detection_confidence),
                        ("min_tracking_confidence", min_tracking_confidence)):
      util.check_unit_interval(self._NAME, name, value)
    self.static_image_mode = bool(static_image_mode)
    self._options = dict(static_image_mode=bool(static_image_mode),
                         model_complexity=int(model_complexity),
                         smooth_landmarks=bool(smooth_landmarks),
                         enable_segmentation=bool(enable_segmentation),
                         smooth_segmentation=bool(smooth_segmentation),
                         min_detection_confidence=float(min_detection_confidence),
                         min_tracking_confidence=float(min_tracking_confidence),
                         device=device)
    super().__init__()

  def _create(self):
    return _sluice.PoseTracker(**self._options)

  def _to_result(self, raw):
    if raw is None:
      return PoseResult(None, None, None)
    landmarks, world, mask = raw
    return PoseResult(
        _without_presence(landmark_pb2.NormalizedLandmarkList.FromString(landmarks)),
        _without_presence(landmark_pb2.LandmarkList.FromString(world)), mask)

  def process(self, image) -> PoseResult:
    """Finds the pose in `image` (numpy uint8, H x W x 3, RGB)."""
    return super().process(image)
