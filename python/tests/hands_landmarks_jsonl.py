#!/usr/bin/env python3
"""`sluice hands --landmarks` through the Python package: the same flags and
the same JSON Lines, computed by sluice.solutions.hands.Hands.

  hands_landmarks_jsonl.py [hands] --input PATH --landmarks OUT.jsonl [--static]
      [--max-hands N] [--model-complexity 0|1] [--min-detection-confidence F]
      [--min-tracking-confidence F] [--stats] [--quiet]

PATH: an image, a folder of images (one frame per file, sorted by name) or a
video (OpenCV decodes it). One object per frame:
  {"frame", "timestamp_us", "width", "height", "hands": [{"handedness",
   "handedness_score", "presence", "landmarks": 21x[x,y,z],
   "world_landmarks": 21x[x,y,z]}]}
"presence" is null (the solutions API does not expose it). Timestamps as the
oracle (tests/hands/mediapipe_hands_oracle.py) writes them.
"""
import argparse
import json
import os
import sys
import time

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def frames(cv2, path):
  """Yields (timestamp_us, rgb) for an image, a folder of images or a video."""
  def read(p):
    bgr = cv2.imread(p, cv2.IMREAD_COLOR)
    if bgr is None:
      raise SystemExit("hands: cannot read image %s" % p)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
  if os.path.isdir(path):
    names = sorted(n for n in os.listdir(path) if n.lower().endswith(IMAGE_EXTS))
    if not names:
      raise SystemExit("hands: no images in folder %s" % path)
    for i, n in enumerate(names):
      yield i * 33333, read(os.path.join(path, n))
    return
  if not os.path.exists(path):
    raise SystemExit("hands: input %s does not exist" % path)
  if path.lower().endswith(IMAGE_EXTS):
    yield 0, read(path)
    return
  cap = cv2.VideoCapture(path)
  if not cap.isOpened():
    raise SystemExit("hands: cannot open %s as a video" % path)
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
    raise SystemExit("hands: no frame decodes in %s" % path)


def hands_of(result):
  out = []
  for i, lm in enumerate(result.multi_hand_landmarks or []):
    cls = result.multi_handedness[i].classification[0]
    out.append({
        "handedness": cls.label,
        "handedness_score": float(cls.score),
        "presence": None,
        "landmarks": [[p.x, p.y, p.z] for p in lm.landmark],
        "world_landmarks": [[p.x, p.y, p.z] for p in result.multi_hand_world_landmarks[i].landmark],
    })
  return out


def main(argv):
  if argv and argv[0] == "hands":
    argv = argv[1:]
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--landmarks", "--output", dest="output", default="-")
  p.add_argument("--static", action="store_true")
  p.add_argument("--max-hands", type=int, default=2)
  p.add_argument("--model-complexity", type=int, default=1, choices=(0, 1))
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  p.add_argument("--min-tracking-confidence", type=float, default=0.5)
  p.add_argument("--stats", action="store_true")
  # As `sluice hands --quiet` (no progress line): this script prints none anyway.
  p.add_argument("--quiet", "-q", action="store_true")
  a = p.parse_args(argv)
  import cv2
  from sluice.solutions import hands as mp_hands
  out = sys.stdout if a.output == "-" else open(a.output, "w")
  n = 0
  with mp_hands.Hands(static_image_mode=a.static, max_num_hands=a.max_hands,
                      model_complexity=a.model_complexity,
                      min_detection_confidence=a.min_detection_confidence,
                      min_tracking_confidence=a.min_tracking_confidence) as hands:
    start = time.perf_counter()
    for ts, rgb in frames(cv2, a.input):
      result = hands.process(rgb)
      h, w = rgb.shape[:2]
      out.write(json.dumps({"frame": n, "timestamp_us": ts, "width": w, "height": h,
                            "hands": hands_of(result)}) + "\n")
      n += 1
    wall = time.perf_counter() - start
  if out is not sys.stdout:
    out.close()
  if a.stats:
    print("sluice-python frames=%d wall_s=%.3f fps=%.2f" % (n, wall, n / wall if wall else 0),
          file=sys.stderr)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
