#!/usr/bin/env python3
"""Compares two face-detection outputs frame by frame; exits 1 when they disagree.

  compare_faces.py A B [--labels NAMES] [--tolerances IOU,KP_MEAN]
                       [--table all|worst|none] [--title TEXT]

A and B are JSON Lines as written by `sluice face --landmarks` and by
mediapipe_face_oracle.py. Frames are matched by position.
Checks per frame: the same number of faces. Faces are paired greedily by box
IoU (highest first). Per pair:
  iou  = intersection over union of the two boxes (in pixels);
  kp   = mean over the 6 keypoints of the Euclidean distance in pixels,
         divided by max(width, height), in %.
Bounds (per face): iou >= 0.9, kp <= 0.5 %.
Prints one summary line starting with "  frames".
"""
import argparse
import json
import sys

DEFAULT_TOLERANCES = (0.9, 0.5)  # min IoU, max keypoint mean %


def load(path):
  try:
    with open(path) as f:
      lines = f.read().splitlines()
  except OSError as e:
    raise SystemExit("compare_faces: cannot read %s: %s" % (path, e.strerror))
  frames = []
  for n, line in enumerate(lines, 1):
    if not line.strip():
      continue
    try:
      d = json.loads(line)
    except ValueError as e:
      raise SystemExit("%s:%d: not JSON (%s)" % (path, n, e))
    for key in ("frame", "width", "height", "faces"):
      if key not in d:
        raise SystemExit("%s:%d: frame without '%s'" % (path, n, key))
    frames.append(d)
  return frames


def iou(a, b, w, h):
  ax0, ay0, ax1, ay1 = a[0] * w, a[1] * h, (a[0] + a[2]) * w, (a[1] + a[3]) * h
  bx0, by0, bx1, by1 = b[0] * w, b[1] * h, (b[0] + b[2]) * w, (b[1] + b[3]) * h
  ix = max(0.0, min(ax1, bx1) - max(ax0, bx0))
  iy = max(0.0, min(ay1, by1) - max(ay0, by0))
  inter = ix * iy
  union = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter
  return inter / union if union > 0 else 0.0


def keypoint_mean(a, b, w, h):
  """Mean keypoint distance in % of max(w, h); None when the counts differ."""
  if len(a) != len(b) or not a:
    return None
  total = 0.0
  for (ax, ay), (bx, by) in zip(a, b):
    total += (((ax - bx) * w) ** 2 + ((ay - by) * h) ** 2) ** 0.5
  return 100.0 * total / len(a) / max(w, h)


def pair(fa, fb, w, h):
  """Greedy pairing by IoU: [(i, j, iou)]."""
  cands = sorted(((iou(a["box"], b["box"], w, h), i, j)
                  for i, a in enumerate(fa) for j, b in enumerate(fb)), reverse=True)
  used_a, used_b, pairs = set(), set(), []
  for v, i, j in cands:
    if i in used_a or j in used_b:
      continue
    used_a.add(i)
    used_b.add(j)
    pairs.append((i, j, v))
  return pairs


def compare(a_frames, b_frames, labels, tol, table, title):
  min_iou_bound, kp_bound = tol
  rows, problems = [], []
  faces = 0
  worst_iou, worst_kp = None, None
  if len(a_frames) != len(b_frames):
    problems.append("frame counts differ: %d vs %d" % (len(a_frames), len(b_frames)))
  for n, (fa, fb) in enumerate(zip(a_frames, b_frames)):
    label = labels[n] if labels and n < len(labels) else "frame %d" % n
    w, h = fa["width"], fa["height"]
    if (w, h) != (fb["width"], fb["height"]):
      problems.append("%s: sizes differ %dx%d vs %dx%d" % (label, w, h, fb["width"], fb["height"]))
      continue
    if len(fa["faces"]) != len(fb["faces"]):
      problems.append("%s: %d faces vs %d (scores %s vs %s)" % (
          label, len(fa["faces"]), len(fb["faces"]),
          [round(f["score"], 3) for f in fa["faces"]], [round(f["score"], 3) for f in fb["faces"]]))
    for i, j, v in pair(fa["faces"], fb["faces"], w, h):
      kp = keypoint_mean(fa["faces"][i]["keypoints"], fb["faces"][j]["keypoints"], w, h)
      faces += 1
      ok = v >= min_iou_bound and kp is not None and kp <= kp_bound
      rows.append((label, i, v, kp, fa["faces"][i]["score"], fb["faces"][j]["score"], ok))
      worst_iou = v if worst_iou is None else min(worst_iou, v)
      if kp is not None:
        worst_kp = kp if worst_kp is None else max(worst_kp, kp)
      if not ok:
        problems.append("%s face %d: iou %.4f, keypoints %s %%" % (
            label, i, v, "n/a" if kp is None else "%.3f" % kp))
  if title:
    print(title)
  if table != "none" and rows:
    shown = rows if table == "all" else sorted(rows, key=lambda r: (r[2], -(r[3] or 0)))[:5]
    print("  %-28s %4s %8s %9s %7s %7s" % ("frame", "face", "iou", "kp mean%", "score A", "score B"))
    for label, i, v, kp, sa, sb, ok in shown:
      print("  %-28s %4d %8.4f %9s %7.3f %7.3f%s" % (
          label[:28], i, v, "n/a" if kp is None else "%.4f" % kp, sa, sb, "" if ok else "  FAIL"))
  print("  frames %d, faces %d, min iou %s, max keypoint mean %s %% (bounds: iou >= %g, kp <= %g %%)" % (
      min(len(a_frames), len(b_frames)), faces,
      "n/a" if worst_iou is None else "%.6f" % worst_iou,
      "n/a" if worst_kp is None else "%.5f" % worst_kp, min_iou_bound, kp_bound))
  for p in problems:
    print("  FAIL: " + p)
  return 1 if problems else 0


def main(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("a")
  p.add_argument("b")
  p.add_argument("--labels", default="", help="comma-separated frame names")
  p.add_argument("--tolerances", default=None, help="MIN_IOU,MAX_KP_MEAN_PERCENT")
  p.add_argument("--table", default="worst", choices=("all", "worst", "none"))
  p.add_argument("--title", default="")
  a = p.parse_args(argv)
  tol = DEFAULT_TOLERANCES
  if a.tolerances:
    try:
      tol = tuple(float(x) for x in a.tolerances.split(","))
      assert len(tol) == 2
    except (ValueError, AssertionError):
      p.error("--tolerances wants MIN_IOU,MAX_KP_MEAN_PERCENT")
  labels = [x for x in a.labels.split(",") if x] if a.labels else []
  return compare(load(a.a), load(a.b), labels, tol, a.table, a.title)


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
