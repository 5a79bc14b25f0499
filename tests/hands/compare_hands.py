#!/usr/bin/env python3
"""Compares two hand-landmark outputs frame by frame; exits 1 when they disagree.

  compare_hands.py A B [--labels NAMES] [--tolerances MEAN,MAX,WORLD_MM]
                       [--table all|worst|none] [--title TEXT]
                       [--ambiguous-handedness M]
  compare_hands.py --convert-reference OUT.jsonl REF.json [REF.json ...]

A and B are JSON Lines as written by `sluice hands --landmarks` and by
mediapipe_hands_oracle.py, or one reference file of ../shared/reference
(hands_<image>_c<k>.json, Google's web build: one frame, timestamp null).
--convert-reference turns such files into one JSONL, one frame per file in the
order given. Frames are matched by position; differing timestamps are noted.

Checks per frame: the same number of hands and the same handedness labels.
Hands are paired by handedness label first, then, within a label, by the
nearest wrist (landmark 0) in pixels; hands whose labels disagree are paired
by nearest wrist, and the mismatch fails (unless --ambiguous-handedness M and
both sides' scores are below 0.5 + M: then it is only noted). Per hand pair:
  image distance of a landmark = Euclidean distance of (x, y) in pixels
      (x * width, y * height) divided by max(width, height); z is not compared;
  mean / max = over the 21 landmarks, in % of the image size;
  world = mean Euclidean 3-D distance of the 21 world landmarks, in mm.
Bounds (per hand): mean <= 0.5 %, max <= 2 %, world mean <= 5 mm.
"""
import argparse
import itertools
import json
import math
import sys

DEFAULT_TOLERANCES = (0.5, 2.0, 5.0)  # mean %, max %, world mean mm


def load(path):
  """Returns a list of frames in the JSONL schema."""
  try:
    with open(path) as f:
      text = f.read()
  except OSError as e:
    raise SystemExit("compare_hands: cannot read %s: %s" % (path, e.strerror))
  stripped = text.lstrip()
  if stripped.startswith("{") and '"solution"' in text[:400]:
    try:
      return [from_reference(json.loads(text), path)]
    except (ValueError, KeyError, TypeError) as e:
      raise SystemExit("%s: not a valid hands reference file (%s)" % (path, e))
  frames = []
  for n, line in enumerate(text.splitlines(), 1):
    if not line.strip():
      continue
    try:
      frames.append(json.loads(line))
    except ValueError as e:
      raise SystemExit("%s:%d: not JSON (%s)" % (path, n, e))
  for f in frames:
    for key in ("frame", "width", "height", "hands"):
      if key not in f:
        raise SystemExit("%s: frame without '%s': %.120s" % (path, key, json.dumps(f)))
  return frames


def from_reference(d, path):
  """One reference JSON (Google's web solution) -> one frame of our schema."""
  if d.get("solution") != "hands":
    raise SystemExit("%s: not a hands reference (solution=%r)" % (path, d.get("solution")))
  lms = d.get("multiHandLandmarks") or []
  worlds = d.get("multiHandWorldLandmarks") or []
  handed = d.get("multiHandedness") or []
  hands = []
  for i, lm in enumerate(lms):
    c = handed[i] if i < len(handed) else {}
    w = worlds[i] if i < len(worlds) else []
    hands.append({
        "handedness": c.get("label"), "handedness_score": c.get("score"),
        "presence": None,
        "landmarks": [[p["x"], p["y"], p.get("z", 0.0)] for p in lm],
        "world_landmarks": [[p["x"], p["y"], p.get("z", 0.0)] for p in w]})
  return {"frame": 0, "timestamp_us": None, "width": d["input_width"],
          "height": d["input_height"], "hands": hands}


def image_distances(a, b, w, h):
  s = float(max(w, h))
  return [math.hypot((pa[0] - pb[0]) * w, (pa[1] - pb[1]) * h) / s
          for pa, pb in zip(a["landmarks"], b["landmarks"])]


def world_mean_mm(a, b):
  wa, wb = a.get("world_landmarks") or [], b.get("world_landmarks") or []
  if len(wa) != 21 or len(wb) != 21:
    return None
  return 1000.0 * sum(math.dist(p, q) for p, q in zip(wa, wb)) / 21.0


def wrist_px(hand, w, h):
  x, y = hand["landmarks"][0][:2]
  return x * w, y * h


def nearest_pairs(ia, ib, ha, hb, w, h):
  """Pairs indices of ia with indices of ib minimizing the summed wrist distance."""
  swap = len(ia) > len(ib)
  small, big = (ib, ia) if swap else (ia, ib)
  best, best_cost = (), None
  for perm in itertools.permutations(big, len(small)):
    pairs = [(t, s) if swap else (s, t) for s, t in zip(small, perm)]
    cost = sum(math.dist(wrist_px(ha[i], w, h), wrist_px(hb[j], w, h)) for i, j in pairs)
    if best_cost is None or cost < best_cost:
      best, best_cost = pairs, cost
  return list(best)


def pair_hands(ha, hb, w, h):
  """Pairs hands with the same label by nearest wrist; hands left over (labels
  that disagree) are then paired by nearest wrist too. Returns index pairs."""
  pairs = []
  for label in sorted({x.get("handedness") or "" for x in ha + hb}):
    ia = [i for i, x in enumerate(ha) if (x.get("handedness") or "") == label]
    ib = [i for i, x in enumerate(hb) if (x.get("handedness") or "") == label]
    pairs += nearest_pairs(ia, ib, ha, hb, w, h)
  rest_a = [i for i in range(len(ha)) if i not in {p[0] for p in pairs}]
  rest_b = [j for j in range(len(hb)) if j not in {p[1] for p in pairs}]
  return sorted(pairs + nearest_pairs(rest_a, rest_b, ha, hb, w, h))


def check_hand(h, n):
  if len(h.get("landmarks") or []) != n:
    return "hand with %d landmarks (want %d)" % (len(h.get("landmarks") or []), n)
  return None


def compare(fa, fb, labels, tol, margin=0.0):
  """Returns (rows, problems, notes); a row is a dict per hand pair."""
  rows, problems, notes = [], [], []
  if len(fa) != len(fb):
    problems.append("frame count differs: A has %d, B has %d" % (len(fa), len(fb)))
  ts = [k for k in range(min(len(fa), len(fb)))
        if None not in (fa[k].get("timestamp_us"), fb[k].get("timestamp_us"))
        and fa[k]["timestamp_us"] != fb[k]["timestamp_us"]]
  if ts:  # Not a failure: the landmarks do not depend on it.
    notes.append("timestamp_us differs on %d frame(s), first frame %d: %s vs %s" % (
        len(ts), ts[0], fa[ts[0]].get("timestamp_us"), fb[ts[0]].get("timestamp_us")))
  for k in range(min(len(fa), len(fb))):
    a, b = fa[k], fb[k]
    name = labels[k] if labels and k < len(labels) else str(a["frame"])
    if (a["width"], a["height"]) != (b["width"], b["height"]):
      problems.append("frame %s: size %dx%d vs %dx%d" % (
          name, a["width"], a["height"], b["width"], b["height"]))
      continue
    w, h = a["width"], a["height"]
    bad = [m for x in a["hands"] + b["hands"] for m in [check_hand(x, 21)] if m]
    if bad:
      problems.append("frame %s: %s" % (name, bad[0]))
      continue
    na, nb = len(a["hands"]), len(b["hands"])
    if na != nb:
      problems.append("frame %s: %d hand(s) %s vs %d hand(s) %s" % (
          name, na, sorted(x.get("handedness") or "?" for x in a["hands"]),
          nb, sorted(x.get("handedness") or "?" for x in b["hands"])))
    pairs = pair_hands(a["hands"], b["hands"], w, h)
    for i, j in pairs:
      ha, hb = a["hands"][i], b["hands"][j]
      d = image_distances(ha, hb, w, h)
      row = {"frame": name, "label": ha.get("handedness"),
             "label_b": hb.get("handedness"),
             "score_a": ha.get("handedness_score"),
             "score_b": hb.get("handedness_score"),
             "mean": 100.0 * sum(d) / len(d), "max": 100.0 * max(d),
             "world": world_mean_mm(ha, hb)}
      fails = []
      if row["label"] != row["label_b"]:
        sa, sb = row["score_a"] or 0.0, row["score_b"] or 0.0
        if max(sa, sb) < 0.5 + margin:
          notes.append("frame %s: handedness %s (%.3f) vs %s (%.3f): both scores below %.2f, "
                       "not counted" % (name, row["label"], sa, row["label_b"], sb, 0.5 + margin))
        else:
          fails.append("handedness")
      if row["mean"] > tol[0]:
        fails.append("mean")
      if row["max"] > tol[1]:
        fails.append("max")
      if row["world"] is None:
        fails.append("world missing")
      elif row["world"] > tol[2]:
        fails.append("world")
      row["fails"] = fails
      rows.append(row)
      if fails:
        problems.append("frame %s %s hand fails %s (mean %.3f%% max %.3f%% world %s mm)" % (
            name, row["label"], "/".join(fails), row["mean"], row["max"],
            "-" if row["world"] is None else "%.2f" % row["world"]))
  return rows, problems, notes


def fmt_score(s):
  return "-" if s is None else "%.3f" % s


def print_table(rows, mode, out):
  if mode == "none" or not rows:
    return
  shown = rows
  if mode == "worst":
    shown = sorted(rows, key=lambda r: -r["max"])[:5]
    shown = sorted(shown + [r for r in rows if r["fails"] and r not in shown],
                   key=lambda r: -r["max"])
    print("  (worst hands by max distance, and every failing hand)", file=out)
  print("  %-22s %-6s %6s %6s %8s %8s %9s  %s" % (
      "frame", "hand", "scoreA", "scoreB", "mean%", "max%", "world_mm", "verdict"), file=out)
  for r in shown:
    label = r["label"] if r["label"] == r["label_b"] else "%s/%s" % (r["label"], r["label_b"])
    print("  %-22s %-6s %6s %6s %8.3f %8.3f %9s  %s" % (
        str(r["frame"])[:22], label, fmt_score(r["score_a"]), fmt_score(r["score_b"]),
        r["mean"], r["max"], "-" if r["world"] is None else "%.2f" % r["world"],
        "FAIL " + "/".join(r["fails"]) if r["fails"] else "ok"), file=out)


def summary(rows, frames_a, frames_b):
  worlds = [r["world"] for r in rows if r["world"] is not None]
  hands_a = sum(len(f["hands"]) for f in frames_a)
  hands_b = sum(len(f["hands"]) for f in frames_b)
  count_diff = sum(len(x["hands"]) != len(y["hands"]) for x, y in zip(frames_a, frames_b))
  label_diff = sum(r["label"] != r["label_b"] for r in rows)
  s = "frames %d/%d, hands %d/%d, paired %d, frames with another hand count %d, " \
      "pairs with another label %d" % (len(frames_a), len(frames_b), hands_a, hands_b,
                                       len(rows), count_diff, label_diff)
  if rows:
    s += "; mean distance: avg %.3f%% worst %.3f%%; max distance: worst %.3f%%" % (
        sum(r["mean"] for r in rows) / len(rows), max(r["mean"] for r in rows),
        max(r["max"] for r in rows))
  if worlds:
    s += "; world mean: avg %.2f mm worst %.2f mm" % (sum(worlds) / len(worlds), max(worlds))
  return s


def convert_reference(out_path, refs):
  with open(out_path, "w") as out:
    for k, path in enumerate(refs):
      frame = load(path)[0]
      frame["frame"] = k
      out.write(json.dumps(frame) + "\n")
  return 0


def main(argv):
  if argv and argv[0] == "--convert-reference":
    if len(argv) < 3:
      raise SystemExit("usage: compare_hands.py --convert-reference OUT.jsonl REF.json...")
    return convert_reference(argv[1], argv[2:])
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("a")
  p.add_argument("b")
  p.add_argument("--labels", help="comma-separated frame names for the report")
  p.add_argument("--tolerances", default=",".join(str(t) for t in DEFAULT_TOLERANCES),
                 help="MEAN_PERCENT,MAX_PERCENT,WORLD_MM (default %(default)s)")
  p.add_argument("--table", choices=("all", "worst", "none"), default="all")
  p.add_argument("--title", default=None)
  p.add_argument("--ambiguous-handedness", type=float, default=0.0, metavar="M",
                 help="a label mismatch where both scores are below 0.5+M is noted, "
                      "not failed (default 0: every mismatch fails)")
  a = p.parse_args(argv)
  try:
    tol = tuple(float(x) for x in a.tolerances.split(","))
    assert len(tol) == 3
  except (ValueError, AssertionError):
    p.error("--tolerances wants three numbers: MEAN_PERCENT,MAX_PERCENT,WORLD_MM")
  fa, fb = load(a.a), load(a.b)
  labels = a.labels.split(",") if a.labels else None
  rows, problems, notes = compare(fa, fb, labels, tol, a.ambiguous_handedness)
  out = sys.stdout
  print("%s: A=%s B=%s" % (a.title or "compare_hands", a.a, a.b), file=out)
  print("  distance = |(dx*width, dy*height)| / max(width, height), per hand over 21 "
        "landmarks; world = mean 3-D distance in mm; hands paired by label, then "
        "nearest wrist; bounds mean<=%g%% max<=%g%% world<=%gmm" % tol, file=out)
  print_table(rows, a.table, out)
  print("  " + summary(rows, fa, fb), file=out)
  for m in notes[:10]:
    print("  note " + m, file=out)
  for m in problems[:20]:
    print("  FAIL " + m, file=out)
  if len(problems) > 20:
    print("  ... and %d more problems" % (len(problems) - 20), file=out)
  print("  %s" % ("PASS" if not problems else "FAIL (%d problems)" % len(problems)), file=out)
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
