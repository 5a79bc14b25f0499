#!/usr/bin/env python3
"""Google's face detection (mediapipe==0.10.21, mp.solutions.face_detection) as the oracle.

Same flags and the same JSON Lines as `sluice face --landmarks`:
  mediapipe_face_oracle.py --input PATH [--output OUT.jsonl] [--model-selection 0|1]
      [--min-detection-confidence F] [--models DIR] [--stats]
PATH is an image, a folder of images (one frame per file, sorted by name) or a
video (decoded with the cv2 that ships with mediapipe, BGR -> RGB); frames and
timestamps as in tests/hands/mediapipe_hands_oracle.py (the frame loop is
tests/oracle/mediapipe_solution_loop.py). One object per frame:
  {"frame", "timestamp_us", "width", "height",
   "faces": [{"box": [xmin, ymin, w, h], "score", "keypoints": 6x[x, y]}]}
(normalized, faces in MediaPipe's order). Note: the Python solution passes
min_detection_confidence as graph options that never reach the graph's
decoder (mediapipe 0.10.21): the models' own thresholds (0.5 short range, 0.6
full range) apply whatever it is set to.
--models DIR runs Google's graph with the face_detection_*.tflite files of DIR
instead of the wheel's (which differ from the copies in ../shared/models).
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
  loop.add_common_args(p, "folder whose face_detection .tflite files replace the wheel's")
  p.add_argument("--model-selection", type=int, default=0, choices=(0, 1))
  p.add_argument("--min-detection-confidence", type=float, default=0.5)
  a = p.parse_args(argv)
  if not 0.0 <= a.min_detection_confidence <= 1.0:
    p.error("--min-detection-confidence must be in [0, 1]")
  return a


def faces_of(result):
  out = []
  for d in result.detections or []:
    loc = d.location_data
    b = loc.relative_bounding_box
    out.append({"box": [b.xmin, b.ymin, b.width, b.height],
                "score": float(d.score[0]) if d.score else None,
                "keypoints": [[k.x, k.y] for k in loc.relative_keypoints]})
  return out


def main(argv):
  a = parse_args(argv)
  return loop.run(
      a, {"face_detection": ("face_detection_short_range.tflite",
                             "face_detection_full_range_sparse.tflite")},
      lambda mp: mp.solutions.face_detection.FaceDetection(
          model_selection=a.model_selection,
          min_detection_confidence=a.min_detection_confidence),
      lambda result: {"faces": faces_of(result)})


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
