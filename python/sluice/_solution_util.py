"""Argument checks shared by the solution classes (same messages for all)."""
import numpy as np

from sluice import _models

# Video frames are stamped 1/30 s apart, as MediaPipe's solutions do.
FRAME_INTERVAL_US = 33333


def check_device(cls_name, device):
  """ValueError for an unknown device; RuntimeError for "cuda" in a build
  without the CUDA backend (the C++ side reports a build with it but no GPU)."""
  if device not in ("auto", "cpu", "cuda"):
    raise ValueError('%s: device must be "auto", "cpu" or "cuda", got %r' % (cls_name, device))
  info = _models.build_info()
  if device == "cuda" and info is not None and not info.CUDA:
    raise RuntimeError('%s(device="cuda"): this sluice build has no CUDA backend (build it '
                       'where the CUDA toolkit is installed); use device="cpu" or "auto"'
                       % cls_name)


def check_unit_interval(cls_name, name, value):
  if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
    raise ValueError("%s: %s must be in [0, 1], got %r" % (cls_name, name, value))


def check_choice(cls_name, name, value, choices):
  if isinstance(value, bool) or value not in choices:
    raise ValueError("%s: %s must be one of %s, got %r"
                     % (cls_name, name, ", ".join(map(str, choices)), value))


def check_rgb_image(where, image):
  """ValueError unless `image` is a non-empty uint8 array of shape (H, W, 3)."""
  expected = ("%s: expected an RGB image, a numpy uint8 array of shape (height, width, 3)"
              % where)
  if not isinstance(image, np.ndarray):
    raise ValueError("%s; got %s" % (expected, type(image).__name__))
  if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 or 0 in image.shape:
    raise ValueError("%s; got a %s array of shape %s" % (expected, image.dtype, image.shape))


class SolutionBase:
  """What the single-graph solutions share: process(), process_stream(),
  reset(), close() and the context manager. Subclasses set _NAME and define
  _create() (the _sluice object) and _to_result(raw)."""

  _NAME = "Solution"

  def __init__(self):
    self._graph = self._create()
    self._timestamp_us = 0
    self._streaming = 0

  def _create(self):
    raise NotImplementedError

  def _to_result(self, raw):
    raise NotImplementedError

  def _check_usable(self, method):
    where = "%s.%s" % (self._NAME, method)
    if self._graph is None:
      raise RuntimeError("%s: the %s object is closed" % (where, self._NAME))
    if self._streaming:
      raise RuntimeError("%s: a process_stream() iteration is still running" % where)

  def process(self, image):
    """The result for `image` (numpy uint8, H x W x 3, RGB)."""
    self._check_usable("process")
    check_rgb_image("%s.process" % self._NAME, image)
    raw = self._graph.process(image, self._timestamp_us)
    self._timestamp_us += FRAME_INTERVAL_US
    return self._to_result(raw)

  def process_stream(self, images, depth=2):
    """Pipelined process() (a Sluice addition): yields one result per image
    of the iterable `images`, in order, equal to what process() gives on each
    in turn, while up to `depth` frames are in the graph at once, so that the
    stages of consecutive frames overlap on several cores. Each image is
    copied when it is taken, so the caller may reuse its buffer."""
    self._check_usable("process_stream")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
      raise ValueError("%s.process_stream: depth must be an int >= 1, got %r"
                       % (self._NAME, depth))
    return self._stream(self._graph, images, depth)

  def _stream(self, graph, images, depth):
    self._streaming += 1
    pending = 0
    try:
      for image in images:
        check_rgb_image("%s.process_stream" % self._NAME, image)
        graph.send(image, self._timestamp_us)
        self._timestamp_us += FRAME_INTERVAL_US
        pending += 1
        if pending >= depth:
          pending -= 1
          yield self._to_result(graph.next())
      while pending:
        pending -= 1
        yield self._to_result(graph.next())
    finally:
      # Stopped early (break, error): take the frames still in the graph, so
      # that later calls get their own results.
      try:
        while pending and self._graph is graph:
          pending -= 1
          graph.next()
      finally:
        self._streaming -= 1

  def reset(self):
    """Starts the graph afresh (in video mode: forgets what it tracked)."""
    self._check_usable("reset")
    self._graph.close()
    self._graph = self._create()
    self._timestamp_us = 0

  def close(self):
    """Stops the graph; process() raises afterwards. Closing twice is fine."""
    if self._graph is not None:
      self._graph.close()
      self._graph = None

  def __enter__(self):
    return self

  def __exit__(self, exc_type, exc_value, traceback):
    self.close()

  def __del__(self):
    graph = getattr(self, "_graph", None)
    if graph is not None:
      graph.close()
