#!/usr/bin/env python3
"""Google's hand tracking (mediapipe==0.10.21, mp.solutions.hands) as the oracle.

Same flags and the same JSON Lines as `sluice hands --landmarks`:
  mediapipe_hands_oracle.py --input PATH [--output OUT.jsonl] [--static]
      [--max-hands N] [--model-complexity 0|1] [--min-detection-confidence F]
      [--min-tracking-confidence F] [--models DIR] [--stats]
PATH is an image, a folder of images (one frame per file, sorted by name) or a
video (decoded with the cv2 that ships with mediapipe, BGR -> RGB). One object
per frame:
  {"frame", "timestamp_us", "width", "height", "hands": [{"handedness",
   "handedness_score", "presence", "landmarks": 21x[x,y,z],
   "world_landmarks": 21x[x,y,z]}]}
Hands are in MediaPipe's output order. "presence" is null: the Python solution
does not expose the hand presence score (it only drops hands below
min_tracking_confidence). Timestamps: 0 for an image, frame * 1e6 / fps for a
video, frame * 33333 for a folder (the Python solution's own 30 fps clock).
--models DIR runs Google's graph with the palm_detection_*.tflite and
hand_landmark_*.tflite files of DIR instead of the ones in the wheel (the wheel's
hand_landmark_{lite,full} and palm_detection_full differ from the v0.8.10 / npm
copies in ../shared/models); the default is the wheel's own models.
--stats prints one line to stderr: frames, wall seconds (decode + inference +
JSON, without import and model load) and fps.
"""
import argparse
import json
import os
import sys
import time

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--output", "--landmarks", dest="output", default="-",
                 help="JSONL file ('-' = stdout)")
  p.add_argument("--static", action="store_true", help="static image mode")
  p.add_argument("--max-hands", type=int, default=2)
  p.add_argument("--model-complexity", type=int, default=1, choices=(0, 1))
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  p.add_argument("--min-tracking-confidence", type=float, default=0.5)
  p.add_argument("--models", default=None,
                 help="folder whose hand/palm .tflite files replace the wheel's")
  p.add_argument("--stats", action="store_true")
  a = p.parse_args(argv)
  if a.max_hands < 1:
    p.error("--max-hands must be >= 1")
  for name in ("min_detection_confidence", "min_tracking_confidence"):
    if not 0.0 <= getattr(a, name) <= 1.0:
      p.error("--%s must be in [0, 1]" % name.replace("_", "-"))
  return a


def frames(cv2, path):
  """Yields (timestamp_us, rgb image) for an image, a folder or a video."""
  if os.path.isdir(path):
    names = sorted(n for n in os.listdir(path) if n.lower().endswith(IMAGE_EXTS))
    if not names:
      raise SystemExit("oracle: no images in folder %s" % path)
    for i, n in enumerate(names):
      yield i * 33333, read_image(cv2, os.path.join(path, n))
    return
  if not os.path.exists(path):
    raise SystemExit("oracle: input %s does not exist" % path)
  if path.lower().endswith(IMAGE_EXTS):
    yield 0, read_image(cv2, path)
    return
  cap = cv2.VideoCapture(path)
  if not cap.isOpened():
    raise SystemExit("oracle: cannot open %s as a video" % path)
  fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
  i = 0
  while True:
    ok, bgr = cap.read()
    if not ok:
      break
    yield int(round(i * 1e6 / fps)), cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    i += 1
  cap.release()
  if i == 0:
    raise SystemExit("oracle: no frame decodes in %s" % path)


def read_image(cv2, path):
  bgr = cv2.imread(path, cv2.IMREAD_COLOR)
  if bgr is None:
    raise SystemExit("oracle: cannot read image %s" % path)
  return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


MODEL_SUBDIRS = {"palm_detection": ("palm_detection_lite.tflite",
                                     "palm_detection_full.tflite"),
                 "hand_landmark": ("hand_landmark_lite.tflite",
                                   "hand_landmark_full.tflite")}


def use_models(models_dir, tmp):
  """Points MediaPipe's resource root at a mirror of the wheel's modules tree in
  which the hand models are links to models_dir. Returns the files replaced."""
  import mediapipe
  from mediapipe.python import solution_base
  real = solution_base.resource_util
  pkg = os.path.dirname(os.path.abspath(mediapipe.__file__))
  root = os.path.join(tmp, "mediapipe")
  for dirpath, _, files in os.walk(os.path.join(pkg, "modules")):
    rel = os.path.relpath(dirpath, pkg)
    os.makedirs(os.path.join(root, rel), exist_ok=True)
    for f in files:
      os.symlink(os.path.join(dirpath, f), os.path.join(root, rel, f))
  replaced = []
  for sub, names in MODEL_SUBDIRS.items():
    for name in names:
      src = os.path.join(os.path.abspath(models_dir), name)
      if not os.path.isfile(src):
        raise SystemExit("oracle: --models %s has no %s" % (models_dir, name))
      dst = os.path.join(root, "modules", sub, name)
      os.remove(dst)
      os.symlink(src, dst)
      replaced.append(src)

  class Redirect:  # solution_base sets the root to the wheel's: send it to ours
    @staticmethod
    def set_resource_dir(_):
      real.set_resource_dir(tmp)
  solution_base.resource_util = Redirect
  return replaced


def hands_of(result):
  out = []
  lms = result.multi_hand_landmarks or []
  worlds = result.multi_hand_world_landmarks or []
  handed = result.multi_handedness or []
  for i, lm in enumerate(lms):
    cls = handed[i].classification[0] if i < len(handed) else None
    world = worlds[i].landmark if i < len(worlds) else []
    out.append({
        "handedness": cls.label if cls else None,
        "handedness_score": float(cls.score) if cls else None,
        "presence": None,
        "landmarks": [[p.x, p.y, p.z] for p in lm.landmark],
        "world_landmarks": [[p.x, p.y, p.z] for p in world],
    })
  return out


def main(argv):
  a = parse_args(argv)
  os.environ.setdefault("GLOG_minloglevel", "2")
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  import cv2
  import mediapipe as mp
  tmp = None
  if a.models:
    import tempfile
    tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
    use_models(a.models, tmp.name)
  out = sys.stdout if a.output == "-" else open(a.output, "w")
  n = 0
  with mp.solutions.hands.Hands(
      static_image_mode=a.static, max_num_hands=a.max_hands,
      model_complexity=a.model_complexity,
      min_detection_confidence=a.min_detection_confidence,
      min_tracking_confidence=a.min_tracking_confidence) as hands:
    start = time.perf_counter()
    for ts, rgb in frames(cv2, a.input):
      rgb.flags.writeable = False
      result = hands.process(rgb)
      h, w = rgb.shape[:2]
      out.write(json.dumps({"frame": n, "timestamp_us": ts, "width": w,
                            "height": h, "hands": hands_of(result)}) + "\n")
      n += 1
    wall = time.perf_counter() - start
  if out is not sys.stdout:
    out.close()
  if a.stats:
    print("oracle frames=%d wall_s=%.3f fps=%.2f" % (n, wall, n / wall if wall else 0),
          file=sys.stderr)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
