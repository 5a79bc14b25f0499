#!/usr/bin/env python3
"""Google's selfie segmentation (mediapipe==0.10.21,
mp.solutions.selfie_segmentation) as the oracle.

  mediapipe_selfie_oracle.py --input PATH [--mask-dir DIR] [--model-selection 0|1]
      [--smooth] [--models DIR] [--stats]

PATH is an image, a folder of images (one frame per file, sorted by name) or a
video (decoded with the cv2 that ships with mediapipe, BGR -> RGB); frames are
read as tests/hands/mediapipe_hands_oracle.py reads them. One float32 mask per
frame goes to DIR/NNNNNN.npy (frame index, as `sluice selfie --mask-dir` names
its PNGs); without --mask-dir nothing is written (speed runs).
--smooth applies MediaPipe's SegmentationSmoothingCalculator formula (ratio
0.7, as PoseSegmentationFiltering uses it) to Google's masks, frame after
frame: Google's selfie solution has no smoothing, so this is the reference for
`sluice selfie --smooth`.
--models DIR runs Google's graph with the selfie_segmentation*.tflite files of
DIR instead of the wheel's (which differ from the copies in ../shared/models).
--stats prints one line to stderr: frames, wall seconds (decode + inference,
without import, model load and writing) and fps.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hands"))
import mediapipe_hands_oracle as hands_oracle  # noqa: E402  frames(), use_models()

SELFIE_MODELS = {"selfie_segmentation": ("selfie_segmentation.tflite",
                                         "selfie_segmentation_landscape.tflite")}
RATIO = 0.7


def smooth(np, new, prev):
  """MediaPipe's uncertainty-weighted blend of the new mask with the previous
  smoothed one."""
  t = new - 0.5
  x = t * t
  poly = x * (5.68842 + x * (-0.748699 + x * (-57.8051 + x * (291.309 + x * -624.717))))
  uncertainty = 1.0 - np.minimum(1.0, poly)
  return (new + (prev - new) * (uncertainty * RATIO)).astype(np.float32)


def main(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--mask-dir", default=None)
  p.add_argument("--model-selection", type=int, default=0, choices=(0, 1))
  p.add_argument("--smooth", action="store_true")
  p.add_argument("--models", default=None)
  p.add_argument("--stats", action="store_true")
  a = p.parse_args(argv)
  os.environ.setdefault("GLOG_minloglevel", "2")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  import cv2
  import numpy as np
  import mediapipe as mp
  tmp = None
  if a.models:
    import tempfile
    tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
    hands_oracle.MODEL_SUBDIRS = SELFIE_MODELS
    hands_oracle.use_models(a.models, tmp.name)
  if a.mask_dir:
    os.makedirs(a.mask_dir, exist_ok=True)
  masks, prev, n = [], None, 0
  with mp.solutions.selfie_segmentation.SelfieSegmentation(
      model_selection=a.model_selection) as segmenter:
    start = time.perf_counter()
    for _, rgb in hands_oracle.frames(cv2, a.input):
      rgb.flags.writeable = False
      mask = np.array(segmenter.process(rgb).segmentation_mask, dtype=np.float32)
      if a.smooth and prev is not None:
        mask = smooth(np, mask, prev)
      prev = mask
      n += 1
      if a.mask_dir:
        masks.append(mask)
    wall = time.perf_counter() - start
  for i, m in enumerate(masks):
    np.save(os.path.join(a.mask_dir, "%06d.npy" % i), m)
  if a.stats:
    print("oracle frames=%d wall_s=%.3f fps=%.2f" % (n, wall, n / wall if wall else 0),
          file=sys.stderr)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
