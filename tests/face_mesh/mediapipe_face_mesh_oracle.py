#!/usr/bin/env python3
"""Google's face mesh (mediapipe==0.10.21, mp.solutions.face_mesh) as the oracle.

Same flags and the same JSON Lines as `sluice face-mesh --landmarks`:
  mediapipe_face_mesh_oracle.py --input PATH [--output OUT.jsonl] [--static]
      [--max-faces N] [--refine-landmarks] [--min-detection-confidence F]
      [--min-tracking-confidence F] [--models DIR] [--stats]
PATH is an image, a folder of images (one frame per file, sorted by name) or a
video; frames and timestamps as in tests/hands/mediapipe_hands_oracle.py, whose
helpers this reuses. One object per frame:
  {"frame", "timestamp_us", "width", "height",
   "faces": [{"landmarks": 468 or 478 x [x, y, z]}]}
(normalized, faces in MediaPipe's order).
--models DIR runs Google's graph with the face_landmark*.tflite and
face_detection_short_range.tflite files of DIR instead of the wheel's (which
differ from the copies in ../shared/models).
--stats prints one line to stderr: frames, wall seconds (decode + inference +
JSON, without import and model load) and fps.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hands"))
import mediapipe_hands_oracle as common  # noqa: E402  (frames, read_image, use_models)


def parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--output", "--landmarks", dest="output", default="-",
                 help="JSONL file ('-' = stdout)")
  p.add_argument("--static", action="store_true")
  p.add_argument("--max-faces", type=int, default=1)
  p.add_argument("--refine-landmarks", action="store_true")
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  p.add_argument("--min-tracking-confidence", type=float, default=0.5)
  p.add_argument("--models", default=None,
                 help="folder whose face .tflite files replace the wheel's")
  p.add_argument("--stats", action="store_true")
  a = p.parse_args(argv)
  for name in ("min_detection_confidence", "min_tracking_confidence"):
    if not 0.0 <= getattr(a, name) <= 1.0:
      p.error("--%s must be in [0, 1]" % name.replace("_", "-"))
  if a.max_faces < 1:
    p.error("--max-faces must be >= 1")
  return a


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
    common.MODEL_SUBDIRS = {
        "face_detection": ("face_detection_short_range.tflite",),
        "face_landmark": ("face_landmark.tflite", "face_landmark_with_attention.tflite")}
    common.use_models(a.models, tmp.name)
  out = sys.stdout if a.output == "-" else open(a.output, "w")
  n = 0
  with mp.solutions.face_mesh.FaceMesh(
      static_image_mode=a.static, max_num_faces=a.max_faces,
      refine_landmarks=a.refine_landmarks,
      min_detection_confidence=a.min_detection_confidence,
      min_tracking_confidence=a.min_tracking_confidence) as mesh:
    start = time.perf_counter()
    for ts, rgb in common.frames(cv2, a.input):
      rgb.flags.writeable = False
      result = mesh.process(rgb)
      h, w = rgb.shape[:2]
      faces = [{"landmarks": [[l.x, l.y, l.z] for l in f.landmark]}
               for f in (result.multi_face_landmarks or [])]
      out.write(json.dumps({"frame": n, "timestamp_us": ts, "width": w, "height": h,
                            "faces": faces}) + "\n")
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
