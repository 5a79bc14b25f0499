#!/usr/bin/env python3
"""Compares two sets of selfie segmentation masks frame by frame.

  compare_selfie.py OURS_DIR ORACLE_DIR [--labels a,b,...] [--min-iou 0.95]
      [--max-mad 0.02] [--title T]

Each folder holds one mask per frame, NNNNNN.png (8-bit, 0..255 = 0..1, as
`sluice selfie --mask-dir` writes) or NNNNNN.npy (float32, the oracle's).
Per frame: IoU of the two masks thresholded at 0.5 (1 when both are empty),
and the mean absolute difference of the probabilities (MAD; 8-bit PNGs add
up to 0.002 of rounding). Fails (exit 1) when the frame sets differ, a frame's
IoU < --min-iou or its MAD > --max-mad. Needs numpy and cv2 (the oracle's venv).
"""
import argparse
import os
import sys

import cv2
import numpy as np


def load(path):
  if path.endswith(".npy"):
    return np.load(path).astype(np.float32)
  img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
  if img is None:
    raise SystemExit("compare_selfie: cannot read %s" % path)
  if img.ndim == 3:
    img = img[:, :, 0]
  scale = 65535.0 if img.dtype == np.uint16 else 255.0
  return img.astype(np.float32) / scale


def masks(folder):
  out = {}
  for name in sorted(os.listdir(folder)):
    stem, ext = os.path.splitext(name)
    if ext in (".png", ".npy"):
      out[stem] = os.path.join(folder, name)
  return out


def main(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("ours")
  p.add_argument("oracle")
  p.add_argument("--labels", default="")
  p.add_argument("--min-iou", type=float, default=0.95)
  p.add_argument("--max-mad", type=float, default=0.02)
  p.add_argument("--title", default="")
  a = p.parse_args(argv)
  ours, theirs = masks(a.ours), masks(a.oracle)
  labels = a.labels.split(",") if a.labels else []
  if a.title:
    print(a.title)
  if sorted(ours) != sorted(theirs) or not ours:
    print("  frame sets differ: ours %d, oracle %d" % (len(ours), len(theirs)))
    return 1
  ious, mads, bad = [], [], []
  rows = []
  for i, stem in enumerate(sorted(ours)):
    x, y = load(ours[stem]), load(theirs[stem])
    if x.shape != y.shape:
      print("  frame %s: size %s vs %s" % (stem, x.shape, y.shape))
      return 1
    fx, fy = x > 0.5, y > 0.5
    union = np.count_nonzero(fx | fy)
    iou = 1.0 if union == 0 else np.count_nonzero(fx & fy) / union
    mad = float(np.mean(np.abs(x - y)))
    ious.append(iou)
    mads.append(mad)
    label = labels[i] if i < len(labels) else stem
    rows.append((label, iou, mad, float(np.mean(fy))))
    if iou < a.min_iou or mad > a.max_mad:
      bad.append(label)
  worst = sorted(rows, key=lambda r: r[1])[:5] if len(rows) > 8 else rows
  for label, iou, mad, person in worst:
    print("  %-28s IoU %.4f  MAD %.4f  (person %.0f%%)" % (label, iou, mad, 100 * person))
  print("  frames %d: IoU min %.4f mean %.4f, MAD mean %.4f max %.4f" %
        (len(rows), min(ious), sum(ious) / len(ious), sum(mads) / len(mads), max(mads)))
  if bad:
    print("  FAIL (IoU < %.2f or MAD > %.3f): %s" % (a.min_iou, a.max_mad, ", ".join(bad)))
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
