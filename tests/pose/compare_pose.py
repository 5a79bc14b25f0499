#!/usr/bin/env python3
"""Compares two pose-landmark outputs (and masks) frame by frame; exits 1 when
they disagree.

  compare_pose.py A B [--labels NAMES] [--tolerances MEAN,MAX,VIS,WORLD_MM]
                      [--presence-tolerance P] [--masks DIR_A DIR_B] [--min-iou F]
                      [--table all|worst|none] [--title TEXT]
  compare_pose.py --convert-reference OUT.jsonl REF.json [REF.json ...]

A and B are JSON Lines as written by `sluice pose --landmarks` and by
mediapipe_pose_oracle.py, or one reference file of ../shared/reference
(pose_<image>_c<k>.json, Google's web build: one frame, timestamp null, no
presence). --convert-reference turns such files into one JSONL, one frame per
file in the order given. Frames are matched by position; differing timestamps
are noted.

Checks per frame: the same detection outcome (pose or no pose). Per pose pair:
  image distance of a landmark = Euclidean distance of (x, y) in pixels
      (x * width, y * height) divided by max(width, height); z is not compared;
  mean / max = over the 33 landmarks, in % of the image size;
  vis / pres = largest |difference| of visibility / of presence over the 33
      landmarks (presence only where both sides have it: the web reference
      has none);
  world = mean Euclidean 3-D distance of the 33 world landmarks, in mm.
Bounds (per pose): mean <= 0.5 %, max <= 2 %, vis <= 0.05, world <= 10 mm;
pres <= --presence-tolerance (default: the visibility bound).
--masks DIR_A DIR_B also compares segmentation masks: each folder holds one
mask per frame that has a pose, NNNNNN.png (8-bit, 0..255 = 0..1, as
`sluice pose --mask-dir` writes) or NNNNNN.npy (float32, the oracle's). The
two folders must hold the same frames; per frame IoU of the masks thresholded
at 0.5 (1 when both are empty) >= --min-iou (default 0.95); the mean absolute
difference (MAD) is reported. Masks are read with numpy and cv2 when they can
be imported (the oracle's venv), else with the standard library (slow; for
small masks).
"""
import argparse
import json
import math
import os
import struct
import sys
import zlib

DEFAULT_TOLERANCES = (0.5, 2.0, 0.05, 10.0)  # mean %, max %, vis, world mean mm
NUM_LANDMARKS = 33


def load(path):
  """Returns a list of frames in the JSONL schema."""
  try:
    with open(path) as f:
      text = f.read()
  except OSError as e:
    raise SystemExit("compare_pose: cannot read %s: %s" % (path, e.strerror))
  if text.lstrip().startswith("{") and '"solution"' in text[:400]:
    try:
      return [from_reference(json.loads(text), path)]
    except (ValueError, KeyError, TypeError) as e:
      raise SystemExit("%s: not a valid pose reference file (%s)" % (path, e))
  frames = []
  for n, line in enumerate(text.splitlines(), 1):
    if not line.strip():
      continue
    try:
      frames.append(json.loads(line))
    except ValueError as e:
      raise SystemExit("%s:%d: not JSON (%s)" % (path, n, e))
  for f in frames:
    for key in ("frame", "width", "height", "poses"):
      if key not in f:
        raise SystemExit("%s: frame without '%s': %.120s" % (path, key, json.dumps(f)))
  return frames


def from_reference(d, path):
  """One reference JSON (Google's web solution) -> one frame of our schema."""
  if d.get("solution") != "pose":
    raise SystemExit("%s: not a pose reference (solution=%r)" % (path, d.get("solution")))
  lms = d.get("poseLandmarks") or []
  world = d.get("poseWorldLandmarks") or []

  def pts(lst):
    return [[p["x"], p["y"], p.get("z", 0.0), p.get("visibility"), p.get("presence")]
            for p in lst]
  poses = [{"landmarks": pts(lms), "world_landmarks": pts(world)}] if lms else []
  return {"frame": 0, "timestamp_us": None, "width": d["input_width"],
          "height": d["input_height"], "poses": poses}


def image_distances(a, b, w, h):
  s = float(max(w, h))
  return [math.hypot((pa[0] - pb[0]) * w, (pa[1] - pb[1]) * h) / s
          for pa, pb in zip(a["landmarks"], b["landmarks"])]


def score_diff(a, b, k):
  """Largest |difference| of landmark value k (3: visibility, 4: presence)
  where both sides have it; None when no landmark has it on both sides."""
  diffs = [abs(pa[k] - pb[k]) for pa, pb in zip(a["landmarks"], b["landmarks"])
           if len(pa) > k and len(pb) > k and pa[k] is not None and pb[k] is not None]
  return max(diffs) if diffs else None


def world_mean_mm(a, b):
  wa, wb = a.get("world_landmarks") or [], b.get("world_landmarks") or []
  if len(wa) != NUM_LANDMARKS or len(wb) != NUM_LANDMARKS:
    return None
  return 1000.0 * sum(math.dist(p[:3], q[:3]) for p, q in zip(wa, wb)) / NUM_LANDMARKS


def check_pose(p):
  n = len(p.get("landmarks") or [])
  if n != NUM_LANDMARKS:
    return "pose with %d landmarks (want %d)" % (n, NUM_LANDMARKS)
  if any(len(q) < 3 for q in p["landmarks"]):
    return "landmark with fewer than 3 numbers"
  return None


def compare(fa, fb, labels, tol, presence_tol=None):
  """Returns (rows, problems, notes); a row is a dict per pose pair.
  presence_tol None: the visibility bound tol[2]."""
  if presence_tol is None:
    presence_tol = tol[2]
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
    bad = [m for x in a["poses"] + b["poses"] for m in [check_pose(x)] if m]
    if bad:
      problems.append("frame %s: %s" % (name, bad[0]))
      continue
    na, nb = len(a["poses"]), len(b["poses"])
    if na != nb:
      problems.append("frame %s: %d pose(s) vs %d pose(s)" % (name, na, nb))
    # MediaPipe's pose solution tracks one pose: pair them in order.
    for pa, pb in zip(a["poses"], b["poses"]):
      d = image_distances(pa, pb, w, h)
      row = {"frame": name, "mean": 100.0 * sum(d) / len(d), "max": 100.0 * max(d),
             "vis": score_diff(pa, pb, 3), "pres": score_diff(pa, pb, 4),
             "world": world_mean_mm(pa, pb)}
      fails = []
      if row["mean"] > tol[0]:
        fails.append("mean")
      if row["max"] > tol[1]:
        fails.append("max")
      if row["vis"] is not None and row["vis"] > tol[2]:
        fails.append("visibility")
      if row["pres"] is not None and row["pres"] > presence_tol:
        fails.append("presence")
      if row["world"] is None:
        fails.append("world missing")
      elif row["world"] > tol[3]:
        fails.append("world")
      row["fails"] = fails
      rows.append(row)
      if fails:
        problems.append("frame %s pose fails %s (mean %.3f%% max %.3f%% vis %s pres %s "
                        "world %s mm)" % (
            name, "/".join(fails), row["mean"], row["max"], fmt(row["vis"], "%.4f"),
            fmt(row["pres"], "%.4f"),
            "-" if row["world"] is None else "%.2f" % row["world"]))
  return rows, problems, notes


# --- masks -------------------------------------------------------------------

def _png_stdlib(path):
  """8-bit, non-interlaced PNG -> (h, w, first channel as a list of floats 0..1)."""
  with open(path, "rb") as f:
    data = f.read()
  if data[:8] != b"\x89PNG\r\n\x1a\n":
    raise SystemExit("compare_pose: %s is not a PNG" % path)
  pos, idat, hdr = 8, b"", None
  while pos + 8 <= len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
      hdr = struct.unpack(">IIBBBBB", body[:13])
    elif kind == b"IDAT":
      idat += body
    pos += 12 + n
  if hdr is None:
    raise SystemExit("compare_pose: %s has no IHDR" % path)
  w, h, depth, ctype, _, _, interlace = hdr
  if depth != 8 or interlace or ctype not in (0, 2, 4, 6):
    raise SystemExit("compare_pose: %s: only 8-bit non-interlaced gray/RGB(A) PNGs" % path)
  ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
  raw = zlib.decompress(idat)
  stride = w * ch
  out, prev = [], bytearray(stride)
  for r in range(h):
    f = raw[r * (stride + 1)]
    line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
    for i in range(stride):
      a = line[i - ch] if i >= ch else 0
      b = prev[i]
      c = prev[i - ch] if i >= ch else 0
      if f == 1:
        line[i] = (line[i] + a) & 255
      elif f == 2:
        line[i] = (line[i] + b) & 255
      elif f == 3:
        line[i] = (line[i] + (a + b) // 2) & 255
      elif f == 4:
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    out.extend(v / 255.0 for v in line[0::ch])
    prev = line
  return h, w, out


def _npy_stdlib(path):
  """float32 / uint8 .npy (C order, 2-D) -> (h, w, list of floats)."""
  with open(path, "rb") as f:
    data = f.read()
  if data[:6] != b"\x93NUMPY":
    raise SystemExit("compare_pose: %s is not a .npy file" % path)
  major = data[6]
  hlen_size = 2 if major == 1 else 4
  hlen = int.from_bytes(data[8:8 + hlen_size], "little")
  header = data[8 + hlen_size:8 + hlen_size + hlen].decode("latin1")
  import ast
  meta = ast.literal_eval(header)
  if meta.get("fortran_order") or len(meta["shape"]) not in (2, 3):
    raise SystemExit("compare_pose: %s: want a C-order HxW array" % path)
  h, w = meta["shape"][:2]
  body = data[8 + hlen_size + hlen:]
  if meta["descr"] == "<f4":
    vals = list(struct.unpack("<%df" % (h * w), body[:4 * h * w]))
  elif meta["descr"] in ("|u1", "<u1"):
    vals = [v / 255.0 for v in body[:h * w]]
  else:
    raise SystemExit("compare_pose: %s: dtype %s not supported" % (path, meta["descr"]))
  return h, w, vals


def load_mask(path):
  """(h, w, values 0..1): a numpy array with numpy, else a list."""
  try:
    import numpy as np
  except ImportError:
    np = None
  if np is not None:
    if path.endswith(".npy"):
      m = np.load(path)
      if m.ndim == 3:
        m = m[:, :, 0]
      m = m.astype(np.float32) / (255.0 if m.dtype == np.uint8 else 1.0)
      return m.shape[0], m.shape[1], m
    try:
      import cv2
      img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
      if img is None:
        raise SystemExit("compare_pose: cannot read mask %s" % path)
      if img.ndim == 3:
        img = img[:, :, 0]
      scale = 65535.0 if img.dtype == np.uint16 else 255.0
      return img.shape[0], img.shape[1], img.astype(np.float32) / scale
    except ImportError:
      h, w, v = _png_stdlib(path)
      return h, w, np.array(v, dtype=np.float32).reshape(h, w)
  return _npy_stdlib(path) if path.endswith(".npy") else _png_stdlib(path)


def mask_iou_mad(x, y):
  """IoU of x > 0.5 and y > 0.5 (1 when both are empty), mean |x - y|."""
  if hasattr(x, "shape"):
    import numpy as np
    fx, fy = x > 0.5, y > 0.5
    union = int(np.count_nonzero(fx | fy))
    inter = int(np.count_nonzero(fx & fy))
    return (1.0 if union == 0 else inter / union), float(np.mean(np.abs(x - y)))
  inter = union = 0
  mad = 0.0
  for p, q in zip(x, y):
    a, b = p > 0.5, q > 0.5
    inter += a and b
    union += a or b
    mad += abs(p - q)
  return (1.0 if union == 0 else inter / union), mad / max(1, len(x))


def mask_files(folder):
  if not os.path.isdir(folder):
    raise SystemExit("compare_pose: mask folder %s does not exist" % folder)
  out = {}
  for name in sorted(os.listdir(folder)):
    stem, ext = os.path.splitext(name)
    if ext in (".png", ".npy"):
      out[stem] = os.path.join(folder, name)
  return out


def compare_masks(dir_a, dir_b, labels, min_iou):
  """Returns (rows, problems); a row is (label, iou, mad)."""
  ma, mb = mask_files(dir_a), mask_files(dir_b)
  problems, rows = [], []
  only_a, only_b = sorted(set(ma) - set(mb)), sorted(set(mb) - set(ma))
  if only_a or only_b:
    problems.append("mask frames differ: only in A %s, only in B %s" % (only_a[:5], only_b[:5]))
  for stem in sorted(set(ma) & set(mb)):
    ha, wa, xa = load_mask(ma[stem])
    hb, wb, xb = load_mask(mb[stem])
    label = stem
    if labels and stem.isdigit() and int(stem) < len(labels):
      label = labels[int(stem)]
    if (ha, wa) != (hb, wb):
      problems.append("mask %s: size %dx%d vs %dx%d" % (label, wa, ha, wb, hb))
      continue
    iou, mad = mask_iou_mad(xa, xb)
    rows.append((label, iou, mad))
    if iou < min_iou:
      problems.append("mask %s: IoU %.4f < %.2f (MAD %.4f)" % (label, iou, min_iou, mad))
  return rows, problems


# --- report ------------------------------------------------------------------

def fmt(v, f):
  return "-" if v is None else f % v


def print_table(rows, mode, out):
  if mode == "none" or not rows:
    return
  shown = rows
  if mode == "worst":
    shown = sorted(rows, key=lambda r: -r["max"])[:5]
    shown = sorted(shown + [r for r in rows if r["fails"] and r not in shown],
                   key=lambda r: -r["max"])
    print("  (worst poses by max distance, and every failing pose)", file=out)
  print("  %-24s %8s %8s %7s %7s %9s  %s" % (
      "frame", "mean%", "max%", "vis", "pres", "world_mm", "verdict"), file=out)
  for r in shown:
    print("  %-24s %8.3f %8.3f %7s %7s %9s  %s" % (
        str(r["frame"])[:24], r["mean"], r["max"], fmt(r["vis"], "%.4f"), fmt(r["pres"], "%.4f"),
        fmt(r["world"], "%.2f"), "FAIL " + "/".join(r["fails"]) if r["fails"] else "ok"),
        file=out)


def summary(rows, frames_a, frames_b, mask_rows):
  poses_a = sum(len(f["poses"]) for f in frames_a)
  poses_b = sum(len(f["poses"]) for f in frames_b)
  diff = sum(len(x["poses"]) != len(y["poses"]) for x, y in zip(frames_a, frames_b))
  s = "frames %d/%d, poses %d/%d, paired %d, frames with another outcome %d" % (
      len(frames_a), len(frames_b), poses_a, poses_b, len(rows), diff)
  if rows:
    s += "; mean distance: avg %.3f%% worst %.3f%%; max distance: worst %.3f%%" % (
        sum(r["mean"] for r in rows) / len(rows), max(r["mean"] for r in rows),
        max(r["max"] for r in rows))
  for key, what in (("vis", "visibility"), ("pres", "presence")):
    vals = [r[key] for r in rows if r[key] is not None]
    if vals:
      s += "; %s: worst %.4f" % (what, max(vals))
  worlds = [r["world"] for r in rows if r["world"] is not None]
  if worlds:
    s += "; world mean: avg %.2f mm worst %.2f mm" % (sum(worlds) / len(worlds), max(worlds))
  if mask_rows:
    ious = [r[1] for r in mask_rows]
    s += "; masks %d: IoU min %.4f mean %.4f, MAD max %.4f" % (
        len(mask_rows), min(ious), sum(ious) / len(ious), max(r[2] for r in mask_rows))
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
      raise SystemExit("usage: compare_pose.py --convert-reference OUT.jsonl REF.json...")
    return convert_reference(argv[1], argv[2:])
  p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  p.add_argument("a")
  p.add_argument("b")
  p.add_argument("--labels", help="comma-separated frame names for the report")
  p.add_argument("--tolerances", default=",".join(str(t) for t in DEFAULT_TOLERANCES),
                 help="MEAN_PERCENT,MAX_PERCENT,VISIBILITY,WORLD_MM (default %(default)s)")
  p.add_argument("--presence-tolerance", type=float, default=None, metavar="P",
                 help="bound of the presence difference (default: the visibility bound)")
  p.add_argument("--masks", nargs=2, metavar=("DIR_A", "DIR_B"))
  p.add_argument("--min-iou", type=float, default=0.95)
  p.add_argument("--table", choices=("all", "worst", "none"), default="all")
  p.add_argument("--title", default=None)
  a = p.parse_args(argv)
  try:
    tol = tuple(float(x) for x in a.tolerances.split(","))
    assert len(tol) == 4
  except (ValueError, AssertionError):
    p.error("--tolerances wants four numbers: MEAN_PERCENT,MAX_PERCENT,VISIBILITY,WORLD_MM")
  fa, fb = load(a.a), load(a.b)
  labels = a.labels.split(",") if a.labels else None
  rows, problems, notes = compare(fa, fb, labels, tol, a.presence_tolerance)
  mask_rows = []
  if a.masks:
    mask_rows, mask_problems = compare_masks(a.masks[0], a.masks[1], labels, a.min_iou)
    problems += mask_problems
  out = sys.stdout
  print("%s: A=%s B=%s" % (a.title or "compare_pose", a.a, a.b), file=out)
  print("  distance = |(dx*width, dy*height)| / max(width, height) over 33 landmarks; "
        "vis, pres = max |d visibility|, |d presence|; world = mean 3-D distance in mm; bounds "
        "mean<=%g%% max<=%g%% vis<=%g world<=%gmm" % tol
        + " pres<=%g" % (tol[2] if a.presence_tolerance is None else a.presence_tolerance)
        + ("; masks IoU@0.5>=%g" % a.min_iou if a.masks else ""), file=out)
  print_table(rows, a.table, out)
  print("  " + summary(rows, fa, fb, mask_rows), file=out)
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
