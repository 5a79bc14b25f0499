#!/usr/bin/env python3
"""Writes mediapipe_0_10_21_pose.txt: Google's pose landmarks (mediapipe==0.10.21,
mp.solutions.pose's graph through SolutionBase, CPU) for the cases
pose_tracker_test.cc compares against (issue 9's numerical conformance).

  <oracle venv python> make_mediapipe_goldens.py [SHARED_DIR] > mediapipe_0_10_21_pose.txt

The venv: tests/hands/setup_mediapipe_venv.sh prints its python. Models: the
pose models of SHARED_DIR/models (the ones sluice reads), through the oracle's
use_models(). Inputs: SHARED_DIR/reference/inputs/*.png (lossless, so both
sides see the same RGB bytes). Graph timestamps are SolutionBase's own,
33333 * (k + 1) us for the k-th frame; the C++ test uses the same.

Cases:
  static_c<k>_<image>: static mode, model_complexity k, one frame.
  tracking_c1_pan: tracking mode with landmark smoothing (MediaPipe's defaults)
    on 12 crops of four_077fa4bf.png, 320x448 at (2k, 3k), so the crop moves
    and the ROI is carried from frame to frame.
Line format: case frame index x y z visibility presence wx wy wz.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "pose"))
import mediapipe_pose_oracle as oracle  # noqa: E402  (use_models)

STATIC = [(1, "call_0413d5c5"), (1, "lenna"), (0, "rock_026fd791"), (2, "four_06aa70cc")]
PAN_FRAMES = 12


def main(argv):
  shared = argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "..", "..", "..", "shared")
  os.environ.setdefault("GLOG_minloglevel", "2")
  import cv2
  import numpy as np
  from mediapipe.python.solution_base import SolutionBase
  from mediapipe.python.solutions import pose as mp_pose
  tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
  oracle.use_models(os.path.join(shared, "models"), tmp.name)

  def read(name):
    bgr = cv2.imread(os.path.join(shared, "reference", "inputs", name + ".png"), cv2.IMREAD_COLOR)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)

  def run(case, complexity, static, frames):
    with mp_pose.Pose(static_image_mode=static, model_complexity=complexity) as pose:
      for f, rgb in enumerate(frames):
        r = SolutionBase.process(pose, input_data={"image": np.ascontiguousarray(rgb)})
        if not r.pose_landmarks:
          raise SystemExit("%s frame %d: no pose" % (case, f))
        for i, (l, w) in enumerate(zip(r.pose_landmarks.landmark,
                                       r.pose_world_landmarks.landmark)):
          print("%s %d %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g" %
                (case, f, i, l.x, l.y, l.z, l.visibility, l.presence, w.x, w.y, w.z))

  print("# Google's mediapipe==0.10.21 pose landmarks; written by make_mediapipe_goldens.py")
  for complexity, name in STATIC:
    run("static_c%d_%s" % (complexity, name), complexity, True, [read(name)])
  still = read("four_077fa4bf")
  run("tracking_c1_pan", 1, False,
      [still[3 * k:3 * k + 448, 2 * k:2 * k + 320] for k in range(PAN_FRAMES)])
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
