"""Person segmentation with MediaPipe's legacy `mp.solutions.selfie_segmentation` API.

  with SelfieSegmentation(model_selection=0) as seg:
    results = seg.process(rgb)            # numpy uint8 array, H x W x 3, RGB
    mask = results.segmentation_mask      # float32 H x W, P(person) in [0, 1]
    person = np.stack((mask,) * 3, axis=-1) > 0.1

The same graph and models as MediaPipe's solution (Sluice's C++
SelfieSegmenter, solutions/selfie_segmentation/selfie_segmenter.h), without
temporal smoothing, as in MediaPipe. The mask is a read-only view of the
graph's output (no copy), as MediaPipe's is.
"""
from typing import NamedTuple, Optional

import numpy as np

from sluice import _sluice
from sluice import _solution_util as util


class SelfieSegmentationResult(NamedTuple):
  """What SelfieSegmentation.process returns."""
  segmentation_mask: Optional[np.ndarray]


class SelfieSegmentation(util.SolutionBase):
  """MediaPipe Selfie Segmentation: a person / background mask per image.

  process(rgb) -> SelfieSegmentationResult; process_stream(frames) (Sluice
  only) yields the same results with consecutive frames pipelined; reset(),
  close(), context manager.
  """

  _NAME = "SelfieSegmentation"

  def __init__(self, model_selection=0, device="auto"):
    """Args:
      model_selection: 0 general model (256 x 256 input), 1 landscape model
        (256 x 144), faster.
      device: "auto" (the best available), "cpu" or "cuda".
    Raises ValueError for a bad option, RuntimeError when the graph cannot
    start (e.g. device="cuda" without a GPU; the message says why).
    """
    util.check_device(self._NAME, device)
    util.check_choice(self._NAME, "model_selection", model_selection, (0, 1))
    self._options = dict(model_selection=int(model_selection), device=device)
    super().__init__()

  def _create(self):
    return _sluice.SelfieSegmenter(**self._options)

  def _to_result(self, raw):
    return SelfieSegmentationResult(raw)

  def process(self, image) -> SelfieSegmentationResult:
    """Segments `image` (numpy uint8, H x W x 3, RGB): a float32 mask of its size."""
    return super().process(image)
