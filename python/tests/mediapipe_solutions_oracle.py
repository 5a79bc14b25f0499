#!/usr/bin/env python3
"""Google's face detection, face mesh and selfie segmentation
(mediapipe==0.10.21, mp.solutions) on a folder of images, for the Python
tests to compare against. Run with the oracle venv's python
(tests/hands/setup_mediapipe_venv.sh).

  mediapipe_solutions_oracle.py --input DIR --output DIR --models DIR

Images: DIR's *.png, sorted by name, each processed on its own (static image
mode; a fresh graph per setting). Writes to --output:
  face_detection_m{0,1}.json  {image: [base64 serialized mediapipe.Detection]}
  face_mesh_{false,true}.json {image: [base64 NormalizedLandmarkList]}
                              (max_num_faces=2; refine_landmarks false/true)
  selfie_m{0,1}_<image>.npy   the float32 mask
--models DIR: the graphs use DIR's .tflite files instead of the wheel's (which
are different files), so both sides run the same models. Thresholds are
Google's defaults.
"""
import argparse
import base64
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "hands"))
import mediapipe_hands_oracle as common  # noqa: E402  (use_models)

MODELS = {
    "face_detection": ("face_detection_short_range.tflite",
                       "face_detection_full_range_sparse.tflite"),
    "face_landmark": ("face_landmark.tflite", "face_landmark_with_attention.tflite"),
    "selfie_segmentation": ("selfie_segmentation.tflite",
                            "selfie_segmentation_landscape.tflite"),
}


def main(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("--input", required=True)
  p.add_argument("--output", required=True)
  p.add_argument("--models", required=True)
  a = p.parse_args(argv)
  os.environ.setdefault("GLOG_minloglevel", "2")
  import tempfile
  import cv2
  import numpy as np
  import mediapipe as mp
  tmp = tempfile.TemporaryDirectory(prefix="mp_models_")
  common.MODEL_SUBDIRS = MODELS
  common.use_models(a.models, tmp.name)
  os.makedirs(a.output, exist_ok=True)
  names = sorted(n for n in os.listdir(a.input) if n.endswith(".png"))
  images = {}
  for n in names:
    bgr = cv2.imread(os.path.join(a.input, n), cv2.IMREAD_COLOR)
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    rgb.flags.writeable = False
    images[os.path.splitext(n)[0]] = rgb

  def b64(msg):
    return base64.b64encode(msg.SerializeToString()).decode("ascii")

  for m in (0, 1):
    out = {}
    with mp.solutions.face_detection.FaceDetection(model_selection=m) as fd:
      for name, rgb in images.items():
        out[name] = [b64(d) for d in fd.process(rgb).detections or []]
    with open(os.path.join(a.output, "face_detection_m%d.json" % m), "w") as f:
      json.dump(out, f)
  for refine in (False, True):
    out = {}
    with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=2,
                                         refine_landmarks=refine) as mesh:
      for name, rgb in images.items():
        out[name] = [b64(f) for f in mesh.process(rgb).multi_face_landmarks or []]
    with open(os.path.join(a.output, "face_mesh_%s.json" % str(refine).lower()), "w") as f:
      json.dump(out, f)
  for m in (0, 1):
    with mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=m) as seg:
      for name, rgb in images.items():
        mask = seg.process(rgb).segmentation_mask
        np.save(os.path.join(a.output, "selfie_m%d_%s.npy" % (m, name)),
                np.asarray(mask, dtype=np.float32))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
