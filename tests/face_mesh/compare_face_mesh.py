#!/usr/bin/env python3
"""Compares two face mesh JSON Lines files (`sluice face-mesh --landmarks` and
mediapipe_face_mesh_oracle.py): per frame the same number of faces, each face
with the same number of landmarks (468 or 478), and per face a mean landmark
distance (x, y in pixels) <= --max-mean-pct % of max(width, height).

  compare_face_mesh.py OURS.jsonl ORACLE.jsonl [--labels a,b,...] [--table all|worst|none]
      [--max-mean-pct 0.5] [--title T]

Faces are paired greedily by smallest mean distance (their order may differ).
Prints a summary whose first line starts with "  frames"; exit 0 when every
bound holds, 1 otherwise, 2 on unreadable input.
"""
import argparse
import json
import math
import sys


def load(path):
  frames = []
  try:
    with open(path) as f:
      for i, line in enumerate(f):
        if line.strip():
          frames.append(json.loads(line))
  except (OSError, ValueError) as e:
    raise SystemExit("compare_face_mesh: cannot read %s: %s" % (path, e))
  return frames


def mean_distance_px(a, b, w, h):
  n = min(len(a), len(b))
  if n == 0:
    return float("inf")
  return sum(math.hypot((a[i][0] - b[i][0]) * w, (a[i][1] - b[i][1]) * h) for i in range(n)) / n


def pair(ours, theirs, w, h):
  """Greedy pairing: [(i, j, mean px)] by increasing distance."""
  cand = sorted((mean_distance_px(o["landmarks"], t["landmarks"], w, h), i, j)
                for i, o in enumerate(ours) for j, t in enumerate(theirs))
  used_i, used_j, pairs = set(), set(), []
  for d, i, j in cand:
    if i in used_i or j in used_j:
      continue
    used_i.add(i)
    used_j.add(j)
    pairs.append((i, j, d))
  return pairs


def compare(ours, theirs, max_mean_pct, labels=None):
  """Returns (rows, problems, stats): one row per frame."""
  rows, problems, dists = [], [], []
  if len(ours) != len(theirs):
    problems.append("frame count %d vs %d" % (len(ours), len(theirs)))
  for k in range(min(len(ours), len(theirs))):
    a, b = ours[k], theirs[k]
    name = labels[k] if labels and k < len(labels) else "frame %d" % k
    if (a["width"], a["height"]) != (b["width"], b["height"]):
      problems.append("%s: size %dx%d vs %dx%d" % (name, a["width"], a["height"],
                                                   b["width"], b["height"]))
      continue
    w, h = a["width"], a["height"]
    scale = max(w, h)
    row = {"name": name, "faces": (len(a["faces"]), len(b["faces"])), "pcts": []}
    if len(a["faces"]) != len(b["faces"]):
      problems.append("%s: %d faces vs %d" % (name, len(a["faces"]), len(b["faces"])))
    for i, j, d in pair(a["faces"], b["faces"], w, h):
      na, nb = len(a["faces"][i]["landmarks"]), len(b["faces"][j]["landmarks"])
      if na != nb:
        problems.append("%s: face %d has %d landmarks vs %d" % (name, i, na, nb))
      pct = 100.0 * d / scale
      row["pcts"].append(pct)
      dists.append(pct)
      if not pct <= max_mean_pct:
        problems.append("%s: face %d mean distance %.3f%% > %.2f%%" % (name, i, pct, max_mean_pct))
    rows.append(row)
  stats = {"frames": len(rows), "faces": len(dists),
           "mean": sum(dists) / len(dists) if dists else 0.0,
           "max": max(dists) if dists else 0.0,
           "face_count_mismatches": sum(1 for r in rows if r["faces"][0] != r["faces"][1])}
  return rows, problems, stats


def main(argv):
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("ours")
  p.add_argument("oracle")
  p.add_argument("--labels", default="")
  p.add_argument("--table", default="worst", choices=("all", "worst", "none"))
  p.add_argument("--max-mean-pct", type=float, default=0.5)
  p.add_argument("--title", default="sluice vs oracle")
  a = p.parse_args(argv)
  try:
    ours, theirs = load(a.ours), load(a.oracle)
  except SystemExit as e:
    print(e, file=sys.stderr)
    return 2
  labels = [s for s in a.labels.split(",") if s] or None
  rows, problems, s = compare(ours, theirs, a.max_mean_pct, labels)
  print(a.title)
  print("  frames %d, faces paired %d, face-count mismatches %d, mean landmark distance: "
        "mean %.3f%%, max %.3f%% of max(w, h) (bound %.2f%%)"
        % (s["frames"], s["faces"], s["face_count_mismatches"], s["mean"], s["max"],
           a.max_mean_pct))
  shown = rows
  if a.table == "worst":
    shown = sorted(rows, key=lambda r: -max(r["pcts"] or [0]))[:5]
  if a.table != "none":
    for r in shown:
      print("    %-28s faces %d/%d  %s" % (r["name"], r["faces"][0], r["faces"][1],
                                          " ".join("%.3f%%" % x for x in r["pcts"])))
  for msg in problems[:20]:
    print("  FAIL " + msg)
  return 0 if not problems else 1


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
