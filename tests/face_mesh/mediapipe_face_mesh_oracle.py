#!/usr/bin/env python3
"""Google's face mesh (mediapipe==0.10.21, mp.solutions.face_mesh) as the oracle.

Same flags and the same JSON Lines as `sluice face-mesh --landmarks`:
  mediapipe_face_mesh_oracle.py --input PATH [--output OUT.jsonl] [--static]
      [--max-faces N] [--refine-landmarks] [--min-detection-confidence F]
      [--min-tracking-confidence F] [--models DIR] [--stats]
PATH is an image, a folder of images (one frame per file, sorted by name) or a
video; frames and timestamps as in tests/hands/mediapipe_hands_oracle.py (the frame loop
is tests/oracle/mediapipe_solution_loop.py). One object per frame:
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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import mediapipe_solution_loop as loop  # noqa: E402  (common flags, the frame loop)


def parse_args(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  loop.add_common_args(p, "folder whose face .tflite files replace the wheel's")
  p.add_argument("--static", action="store_true")
  p.add_argument("--max-faces", type=int, default=1)
  p.add_argument("--refine-landmarks", action="store_true")
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  p.add_argument("--min-tracking-confidence", type=float, default=0.5)
  a = p.parse_args(argv)
  for name in ("min_detection_confidence", "min_tracking_confidence"):
    if not 0.0 <= getattr(a, name) <= 1.0:
      p.error("--%s must be in [0, 1]" % name.replace("_", "-"))
  if a.max_faces < 1:
    p.error("--max-faces must be >= 1")
  return a


def faces_of(result):
  return [{"landmarks": [[l.x, l.y, l.z] for l in f.landmark]}
          for f in (result.multi_face_landmarks or [])]


def main(argv):
  a = parse_args(argv)
  return loop.run(
      a, {"face_detection": ("face_detection_short_range.tflite",),
          "face_landmark": ("face_landmark.tflite", "face_landmark_with_attention.tflite")},
      lambda mp: mp.solutions.face_mesh.FaceMesh(
          static_image_mode=a.static, max_num_faces=a.max_faces,
          refine_landmarks=a.refine_landmarks,
          min_detection_confidence=a.min_detection_confidence,
          min_tracking_confidence=a.min_tracking_confidence),
      lambda result: {"faces": faces_of(result)})


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
