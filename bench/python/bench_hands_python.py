#!/usr/bin/env python3
"""Hands.process speed: sluice.solutions.hands vs Google's mediapipe==0.10.21
(mp.solutions.hands) on the same decoded frames and settings, in one run.

  bench/python/bench_hands_python.py [--video V] [--photos DIR] [--repeat N]
      [--sluice-python PY] [--sluice-path DIR] [--mediapipe-python PY]
      [--models DIR]

Frames are decoded once (OpenCV, BGR -> RGB) and handed to both sides as the
same arrays, so only Hands.process is timed (each side in its own process:
the two packages' protobuf messages share names and cannot be imported
together). Both sides read the same model files (--models, default
../shared/models; Google's graph through the oracle's model redirect).
Cases, all max_num_hands=2, confidences 0.5:
  video  tracking mode (static_image_mode=False), model_complexity 1
  photos static_image_mode=True, model_complexity 1, each photo --photo-rounds times
fps = (frames - 1) / seconds for frames 2..n: the first frame goes alone
(it includes graph start-up on Google's side; start-up is shown apart).
"process_stream" is Sluice's pipelined Hands.process_stream() (same results,
frames overlap on the cores); Google's API has no equivalent.
--repeat N (default 2) alternates the sides N times and keeps each side's best.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--video", default=os.path.join(REPO, "samples", "hand_640x480_10s.mp4"))
  p.add_argument("--photos", default=os.path.join(REPO, "..", "shared", "testdata", "hands"))
  p.add_argument("--photo-rounds", type=int, default=5)
  p.add_argument("--repeat", type=int, default=2)
  p.add_argument("--sluice-python", default="/usr/bin/python3")
  p.add_argument("--sluice-path", default=os.path.join(REPO, "build", "python"),
                 help="folder holding the built sluice package (PYTHONPATH)")
  p.add_argument("--mediapipe-python", default=None,
                 help="python with mediapipe==0.10.21 (default: tests/hands/setup_mediapipe_venv.sh)")
  p.add_argument("--models", default=os.path.join(REPO, "..", "shared", "models"))
  p.add_argument("--worker", choices=("sluice", "sluice-stream", "mediapipe"),
                 help=argparse.SUPPRESS)
  p.add_argument("--frames", help=argparse.SUPPRESS)
  p.add_argument("--static", action="store_true", help=argparse.SUPPRESS)
  return p.parse_args(argv)


def worker(a):
  """Runs in the measured interpreter: prints one JSON line of timings."""
  import numpy as np
  data = np.load(a.frames)
  frames = [data[k] for k in sorted(data.files, key=lambda k: int(k.split("_")[1]))]
  t0 = time.perf_counter()
  if a.worker.startswith("sluice"):
    from sluice.solutions import hands as mp_hands
  else:
    os.environ.setdefault("GLOG_minloglevel", "2")
    import mediapipe as mp
    sys.path.insert(0, os.path.join(REPO, "tests", "hands"))
    import mediapipe_hands_oracle  # its model redirect, so both sides read the same files
    tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
    mediapipe_hands_oracle.use_models(a.models, tmp.name)
    mp_hands = mp.solutions.hands
  hands = mp_hands.Hands(static_image_mode=a.static, max_num_hands=2, model_complexity=1,
                         min_detection_confidence=0.5, min_tracking_confidence=0.5)
  t1 = time.perf_counter()
  # The first frame alone (graph start-up), then the rest timed.
  r = hands.process(frames[0])
  t2 = time.perf_counter()
  found = len(r.multi_hand_landmarks or [])
  if a.worker == "sluice-stream":
    for r in hands.process_stream(frames[1:]):
      found += len(r.multi_hand_landmarks or [])
  else:
    for f in frames[1:]:
      r = hands.process(f)
      found += len(r.multi_hand_landmarks or [])
  t3 = time.perf_counter()
  hands.close()
  print(json.dumps({"frames": len(frames), "setup_s": t1 - t0, "first_s": t2 - t1,
                    "fps": (len(frames) - 1) / (t3 - t2), "hands": found}))


def decode(cv2, np, a, out_dir):
  """The cases' frames as .npz files: [(name, path, static, frames)]."""
  cases = []
  cap = cv2.VideoCapture(a.video)
  video = []
  while cap.isOpened():
    ok, bgr = cap.read()
    if not ok:
      break
    video.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
  if video:
    path = os.path.join(out_dir, "video.npz")
    np.savez(path, **{"f_%d" % i: f for i, f in enumerate(video)})
    cases.append(("video %s, tracking" % os.path.basename(a.video), path, False, len(video)))
  else:
    print("bench: no frames in %s (tools/fetch_sample.sh --seconds 10 makes it)" % a.video,
          file=sys.stderr)
  if os.path.isdir(a.photos) and a.photo_rounds > 0:
    names = sorted(n for n in os.listdir(a.photos) if n.lower().endswith((".jpg", ".png")))
    photos = [cv2.cvtColor(cv2.imread(os.path.join(a.photos, n)), cv2.COLOR_BGR2RGB)
              for n in names] * a.photo_rounds
    path = os.path.join(out_dir, "photos.npz")
    np.savez(path, **{"f_%d" % i: f for i, f in enumerate(photos)})
    cases.append(("photos %s x%d, static" % (os.path.basename(os.path.normpath(a.photos)),
                                             a.photo_rounds), path, True, len(photos)))
  return cases


def run_side(python, env, a, side, path, static):
  cmd = [python, os.path.abspath(__file__), "--worker", side, "--frames", path,
         "--models", os.path.abspath(a.models)] + (["--static"] if static else [])
  proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
  if proc.returncode != 0:
    raise SystemExit("bench: the %s side failed:\n%s" % (side, proc.stderr[-2000:]))
  return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv):
  a = parse_args(argv)
  if a.worker:
    worker(a)
    return 0
  try:
    import cv2
    import numpy as np
  except ImportError:  # decode with the sluice side's interpreter (Debian's cv2)
    if os.path.realpath(sys.executable) == os.path.realpath(a.sluice_python):
      raise
    os.execv(a.sluice_python, [a.sluice_python, os.path.abspath(__file__)] + argv)
  mp_python = a.mediapipe_python
  if mp_python is None:
    out = subprocess.run(["bash", os.path.join(REPO, "tests", "hands", "setup_mediapipe_venv.sh")],
                         capture_output=True, text=True).stdout.strip().splitlines()
    if not out or out[-1].startswith("SKIP") or not os.path.exists(out[-1]):
      raise SystemExit("bench: no mediapipe venv: %s" % (out[-1] if out else "setup failed"))
    mp_python = out[-1]
  sluice_env = dict(os.environ, PYTHONPATH=os.path.abspath(a.sluice_path),
                    SLUICE_MODELS_DIR=os.path.abspath(a.models))
  mp_env = dict(os.environ)
  with tempfile.TemporaryDirectory(prefix="bench_hands_py_") as tmp:
    cases = decode(cv2, np, a, tmp)
    print("Hands.process fps, best of %d (frames decoded once; max_num_hands=2, "
          "model_complexity=1; same model files: %s)" % (a.repeat, os.path.abspath(a.models)))
    print("%-34s %6s | %-16s | %-16s | %10s | %s" % (
        "case", "frames", "sluice process", "process_stream", "google", "start-up s "
        "(import+Hands, 1st frame) sluice / google; hands found"))
    for name, path, static, n in cases:
      best = {}
      for _ in range(a.repeat):
        for side, python, env in (("sluice", a.sluice_python, sluice_env),
                                  ("sluice-stream", a.sluice_python, sluice_env),
                                  ("mediapipe", mp_python, mp_env)):
          r = run_side(python, env, a, side, path, static)
          if side not in best or r["fps"] > best[side]["fps"]:
            best[side] = r
      s, st, g = best["sluice"], best["sluice-stream"], best["mediapipe"]
      print("%-34s %6d | %6.1f (%5.2fx) | %6.1f (%5.2fx) | %10.1f | %.2f, %.3f / %.2f, %.3f; "
            "%d / %d / %d" % (
                name, n, s["fps"], s["fps"] / g["fps"], st["fps"], st["fps"] / g["fps"],
                g["fps"], s["setup_s"], s["first_s"], g["setup_s"], g["first_s"], s["hands"],
                st["hands"], g["hands"]))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
