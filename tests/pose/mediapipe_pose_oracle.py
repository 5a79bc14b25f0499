#!/usr/bin/env python3
"""Google's pose tracking (mediapipe==0.10.21, mp.solutions.pose) as the oracle.

Same flags and the same JSON Lines as `sluice pose --landmarks`:
  mediapipe_pose_oracle.py --input PATH [--output OUT.jsonl] [--static]
      [--model-complexity 0|1|2] [--no-smooth] [--segmentation]
      [--no-smooth-segmentation] [--min-detection-confidence F]
      [--min-tracking-confidence F] [--mask-dir DIR] [--models DIR] [--stats]
PATH is an image, a folder of images (one frame per file, sorted by name) or a
video; frames and timestamps as in tests/hands/mediapipe_hands_oracle.py, whose
frame reader this reuses. One object per frame:
  {"frame", "timestamp_us", "width", "height",
   "poses": [{"landmarks": 33 x [x, y, z, visibility, presence],
              "world_landmarks": 33 x [x, y, z, visibility, presence]}]}
("poses" is empty or holds the one pose MediaPipe tracks).
Presence: mp.solutions.pose.Pose.process() clears the landmarks' presence
field; this script calls the solution's base class process() instead, which
returns the graph's outputs untouched (the only difference), so presence is
Google's own value.
--segmentation also asks for the mask; with --mask-dir DIR each frame that has
one (a pose was found) gets DIR/NNNNNN.npy (float32, image size; NNNNNN = frame
index, as `sluice pose --mask-dir` names its PNGs).
--models DIR runs Google's graph with pose_detection.tflite and
pose_landmark_{lite,full,heavy}.tflite of DIR instead of the wheel's (the wheel
ships only some of them and downloads the others on first use).
--stats prints one line to stderr: frames, wall seconds (decode + inference +
JSON, without import and model load) and fps.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hands"))
import mediapipe_hands_oracle as common  # noqa: E402  (frames, read_image)

POSE_MODELS = {"pose_detection": ("pose_detection.tflite",),
               "pose_landmark": ("pose_landmark_lite.tflite", "pose_landmark_full.tflite",
                                 "pose_landmark_heavy.tflite")}


def parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--output", "--landmarks", dest="output", default="-",
                 help="JSONL file ('-' = stdout)")
  p.add_argument("--static", action="store_true", help="static image mode")
  p.add_argument("--model-complexity", type=int, default=1, choices=(0, 1, 2))
  p.add_argument("--no-smooth", action="store_true", help="smooth_landmarks=False")
  p.add_argument("--segmentation", action="store_true", help="enable_segmentation=True")
  p.add_argument("--no-smooth-segmentation", action="store_true",
                 help="smooth_segmentation=False")
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  p.add_argument("--min-tracking-confidence", type=float, default=0.5)
  p.add_argument("--mask-dir", default=None, help="folder for NNNNNN.npy masks")
  p.add_argument("--models", default=None,
                 help="folder whose pose .tflite files replace the wheel's")
  p.add_argument("--stats", action="store_true")
  a = p.parse_args(argv)
  for name in ("min_detection_confidence", "min_tracking_confidence"):
    if not 0.0 <= getattr(a, name) <= 1.0:
      p.error("--%s must be in [0, 1]" % name.replace("_", "-"))
  if a.mask_dir and not a.segmentation:
    p.error("--mask-dir needs --segmentation")
  return a


def use_models(models_dir, tmp):
  """Points MediaPipe's resource root at a mirror of the wheel's modules tree in
  which the pose models are links to models_dir, and turns off the on-demand
  model download (the files are all there)."""
  import mediapipe
  from mediapipe.python import solution_base
  from mediapipe.python.solutions import pose as mp_pose
  real = solution_base.resource_util
  pkg = os.path.dirname(os.path.abspath(mediapipe.__file__))
  root = os.path.join(tmp, "mediapipe")
  for dirpath, _, files in os.walk(os.path.join(pkg, "modules")):
    rel = os.path.relpath(dirpath, pkg)
    os.makedirs(os.path.join(root, rel), exist_ok=True)
    for f in files:
      os.symlink(os.path.join(dirpath, f), os.path.join(root, rel, f))
  for sub, names in POSE_MODELS.items():
    os.makedirs(os.path.join(root, "modules", sub), exist_ok=True)
    for name in names:
      src = os.path.join(os.path.abspath(models_dir), name)
      if not os.path.isfile(src):
        raise SystemExit("oracle: --models %s has no %s" % (models_dir, name))
      dst = os.path.join(root, "modules", sub, name)
      if os.path.lexists(dst):  # the wheel ships only some of the landmark models
        os.remove(dst)
      os.symlink(src, dst)

  class Redirect:  # solution_base sets the root to the wheel's: send it to ours
    @staticmethod
    def set_resource_dir(_):
      real.set_resource_dir(tmp)
  solution_base.resource_util = Redirect
  mp_pose.download_utils = type("NoDownload", (), {
      "download_oss_model": staticmethod(lambda _: None)})


def points(landmarks):
  # HasField: an unset visibility/presence is null, not 0.
  return [[p.x, p.y, p.z,
           p.visibility if p.HasField("visibility") else None,
           p.presence if p.HasField("presence") else None] for p in landmarks.landmark]


def main(argv):
  a = parse_args(argv)
  os.environ.setdefault("GLOG_minloglevel", "2")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  import cv2
  import numpy as np
  import mediapipe as mp
  from mediapipe.python.solution_base import SolutionBase
  tmp = None
  if a.models:
    import tempfile
    tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
    use_models(a.models, tmp.name)
  if a.mask_dir:
    os.makedirs(a.mask_dir, exist_ok=True)
  out = sys.stdout if a.output == "-" else open(a.output, "w")
  n = 0
  masks = []  # written after the timed loop
  with mp.solutions.pose.Pose(
      static_image_mode=a.static, model_complexity=a.model_complexity,
      smooth_landmarks=not a.no_smooth, enable_segmentation=a.segmentation,
      smooth_segmentation=not a.no_smooth_segmentation,
      min_detection_confidence=a.min_detection_confidence,
      min_tracking_confidence=a.min_tracking_confidence) as pose:
    start = time.perf_counter()
    for ts, rgb in common.frames(cv2, a.input):
      rgb.flags.writeable = False
      # The graph sees the frame's own timestamp, as `sluice pose` gives it
      # (SolutionBase adds 33333 us to this before each frame): the one-euro
      # filter's first step depends on it.
      pose._simulated_timestamp = ts - 33333
      # The base class's process(): Pose.process() would clear presence.
      result = SolutionBase.process(pose, input_data={"image": rgb})
      h, w = rgb.shape[:2]
      poses = []
      if result.pose_landmarks:
        poses.append({"landmarks": points(result.pose_landmarks),
                      "world_landmarks": points(result.pose_world_landmarks)
                      if result.pose_world_landmarks else []})
      mask = getattr(result, "segmentation_mask", None)
      if a.mask_dir and mask is not None:
        masks.append((n, np.array(mask, dtype=np.float32)))
      out.write(json.dumps({"frame": n, "timestamp_us": ts, "width": w, "height": h,
                            "poses": poses}) + "\n")
      n += 1
    wall = time.perf_counter() - start
  if out is not sys.stdout:
    out.close()
  for i, m in masks:
    np.save(os.path.join(a.mask_dir, "%06d.npy" % i), m)
  if a.stats:
    print("oracle frames=%d wall_s=%.3f fps=%.2f" % (n, wall, n / wall if wall else 0),
          file=sys.stderr)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
