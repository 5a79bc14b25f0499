"""Hand tracking with MediaPipe's legacy `mp.solutions.hands` API.

  with Hands(static_image_mode=False, max_num_hands=2) as hands:
    results = hands.process(rgb)   # numpy uint8 array, H x W x 3, RGB
    results.multi_hand_landmarks   # [NormalizedLandmarkList] or None
    results.multi_hand_world_landmarks  # [LandmarkList] (metres) or None
    results.multi_handedness       # [ClassificationList] or None

The same graph, models and thresholds as MediaPipe's solution (Sluice's C++
HandTracker, solutions/hands/hand_tracker.h).
"""
import enum
from typing import List, NamedTuple, Optional

import numpy as np

from sluice import _models
from sluice import _sluice
from sluice.formats import classification_pb2
from sluice.formats import landmark_pb2
from sluice.solutions.hands_connections import HAND_CONNECTIONS  # noqa: F401 (re-exported)

# Video frames are stamped 1/30 s apart, as MediaPipe's solutions do.
_FRAME_INTERVAL_US = 33333


class HandLandmark(enum.IntEnum):
  """The 21 hand landmarks."""
  WRIST = 0
  THUMB_CMC = 1
  THUMB_MCP = 2
  THUMB_IP = 3
  THUMB_TIP = 4
  INDEX_FINGER_MCP = 5
  INDEX_FINGER_PIP = 6
  INDEX_FINGER_DIP = 7
  INDEX_FINGER_TIP = 8
  MIDDLE_FINGER_MCP = 9
  MIDDLE_FINGER_PIP = 10
  MIDDLE_FINGER_DIP = 11
  MIDDLE_FINGER_TIP = 12
  RING_FINGER_MCP = 13
  RING_FINGER_PIP = 14
  RING_FINGER_DIP = 15
  RING_FINGER_TIP = 16
  PINKY_MCP = 17
  PINKY_PIP = 18
  PINKY_DIP = 19
  PINKY_TIP = 20


class HandsResult(NamedTuple):
  """What Hands.process returns; each field is None when no hand is found."""
  multi_hand_landmarks: Optional[List[landmark_pb2.NormalizedLandmarkList]]
  multi_hand_world_landmarks: Optional[List[landmark_pb2.LandmarkList]]
  multi_handedness: Optional[List[classification_pb2.ClassificationList]]


def _check_image(image):
  if not isinstance(image, np.ndarray):
    raise ValueError("Hands.process: expected an RGB image, a numpy uint8 array of shape "
                     "(height, width, 3); got %s" % type(image).__name__)
  if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 or 0 in image.shape:
    raise ValueError("Hands.process: expected an RGB image, a numpy uint8 array of shape "
                     "(height, width, 3); got a %s array of shape %s" % (image.dtype, image.shape))


def _to_result(hands):
  """HandsResult of the tracker's [(landmarks, world, handedness)] bytes."""
  if not hands:
    return HandsResult(None, None, None)
  landmarks, world, handedness = [], [], []
  for lm_bytes, world_bytes, handed_bytes in hands:
    lm = landmark_pb2.NormalizedLandmarkList()
    lm.ParseFromString(lm_bytes)
    wl = landmark_pb2.LandmarkList()
    wl.ParseFromString(world_bytes)
    hd = classification_pb2.ClassificationList()
    hd.ParseFromString(handed_bytes)
    landmarks.append(lm)
    world.append(wl)
    handedness.append(hd)
  return HandsResult(landmarks, world, handedness)


class Hands:
  """MediaPipe Hands: palm detection + 21 hand landmarks, tracked across frames."""

  def __init__(self, static_image_mode=False, max_num_hands=2, model_complexity=1,
               min_detection_confidence=0.5, min_tracking_confidence=0.5, device="auto"):
    """Args:
      static_image_mode: every image on its own (palm detection on each); else
        hands found in one frame are tracked into the next.
      max_num_hands: at most this many hands (>= 1).
      model_complexity: 0 (lite models) or 1 (full models).
      min_detection_confidence: palm detection score threshold, in [0, 1].
      min_tracking_confidence: hand presence threshold of the landmark model,
        in [0, 1]; below it a tracked hand is dropped (video mode).
      device: "auto" (the best available), "cpu" or "cuda".
    Raises ValueError for a bad option, RuntimeError when the graph cannot
    start (e.g. missing model files; the message names them).
    """
    if device not in ("auto", "cpu", "cuda"):
      raise ValueError('device must be "auto", "cpu" or "cuda", got %r' % (device,))
    info = _models.build_info()
    if device == "cuda" and info is not None and not info.CUDA:
      raise RuntimeError('Hands(device="cuda"): this sluice build has no CUDA backend '
                         "(build it where the CUDA toolkit is installed); use "
                         'device="cpu" or "auto"')
    for name, value in (("min_detection_confidence", min_detection_confidence),
                        ("min_tracking_confidence", min_tracking_confidence)):
      if not 0.0 <= value <= 1.0:
        raise ValueError("%s must be in [0, 1], got %r" % (name, value))
    self.static_image_mode = bool(static_image_mode)
    self._options = dict(static_image_mode=bool(static_image_mode),
                         max_num_hands=int(max_num_hands),
                         model_complexity=int(model_complexity),
                         min_detection_confidence=float(min_detection_confidence),
                         min_tracking_confidence=float(min_tracking_confidence),
                         device=device)
    self._streaming = 0
    self._speculative = False
    self._tracker = self._new_tracker(speculative=False)
    self._timestamp_us = 0

  def _new_tracker(self, speculative):
    # Speculative palm detection (palm detection on every frame, beside the
    # previous frame's landmarks; identical results) pays off only when
    # frames overlap: process_stream() in video mode. One frame at a time
    # (process()) it would only add the palm runs MediaPipe's graph skips.
    self._speculative = speculative
    return _sluice.HandTracker(**self._options, speculative_palm_detection=speculative)

  def _use_tracker(self, speculative):
    """The tracker for the call; switching kind starts tracking afresh."""
    speculative = speculative and not self.static_image_mode
    if speculative != self._speculative:
      self._tracker.close()
      self._tracker = self._new_tracker(speculative)
    return self._tracker

  def process(self, image):
    """Finds hands in `image` (numpy uint8, H x W x 3, RGB). Returns a HandsResult."""
    if self._tracker is None:
      raise RuntimeError("Hands.process: the Hands object is closed")
    if self._streaming:
      raise RuntimeError("Hands.process: a process_stream() iteration is still running")
    _check_image(image)
    hands = self._use_tracker(speculative=False).process(image, self._timestamp_us)
    self._timestamp_us += _FRAME_INTERVAL_US
    return _to_result(hands)

  def process_stream(self, images, depth=2):
    """Pipelined process(): yields one HandsResult per image of the iterable
    `images`, in order, equal to what process() gives on each in turn, while
    up to `depth` frames are in the graph at once, so that one frame's palm
    detection overlaps another's landmarks on a second core (a Sluice
    addition; MediaPipe's API has only process()). Each image is copied when
    it is taken, so the caller may reuse its buffer. In video mode, going from
    process() to process_stream() or back restarts tracking (the next frame
    runs palm detection), as reset() does.
    """
    if self._tracker is None:
      raise RuntimeError("Hands.process_stream: the Hands object is closed")
    if depth < 1:
      raise ValueError("process_stream: depth must be >= 1, got %r" % (depth,))
    tracker = self._use_tracker(speculative=True)
    self._streaming += 1
    pending = 0
    try:
      for image in images:
        _check_image(image)
        tracker.send(image, self._timestamp_us)
        self._timestamp_us += _FRAME_INTERVAL_US
        pending += 1
        if pending >= depth:
          pending -= 1
          yield _to_result(tracker.next())
      while pending:
        pending -= 1
        yield _to_result(tracker.next())
    finally:
      # Stopped early (break, error): take the frames still in the graph, so
      # that later calls get their own results.
      try:
        while pending and self._tracker is tracker:
          pending -= 1
          tracker.next()
      finally:
        self._streaming -= 1

  def reset(self):
    """Forgets tracked hands: the next frame starts with palm detection."""
    if self._tracker is None:
      raise RuntimeError("Hands.reset: the Hands object is closed")
    if self._streaming:
      raise RuntimeError("Hands.reset: a process_stream() iteration is still running")
    self._tracker.close()
    self._tracker = self._new_tracker(self._speculative)
    self._timestamp_us = 0

  def close(self):
    """Stops the graph; process() raises afterwards. Closing twice is fine."""
    if self._tracker is not None:
      self._tracker.close()
      self._tracker = None

  def __enter__(self):
    return self

  def __exit__(self, exc_type, exc_value, traceback):
    self.close()

  def __del__(self):
    tracker = getattr(self, "_tracker", None)
    if tracker is not None:
      tracker.close()
