#!/usr/bin/env python3
"""Tests of compare_pose.py on synthetic poses and masks: identical inputs
pass, and each kind of disagreement the conformance test must catch fails.
Needs only python3 (masks are written and read with the standard library).

  compare_pose_test.py [SHARED_DIR]   # SHARED_DIR: also converts a web reference file
"""
import copy
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_pose as cp  # noqa: E402

W, H = 640, 480


def pose(seed=0):
  """33 landmarks spread over the image, world landmarks around the hips."""
  lms, world = [], []
  for i in range(33):
    x = 0.2 + 0.6 * ((i * 7 + seed) % 33) / 32.0
    y = 0.1 + 0.8 * i / 32.0
    lms.append([x, y, -0.1 * i / 32.0, 0.9, 0.95])
    world.append([x - 0.5, y - 0.6, 0.05 * (i % 3), 0.9, 0.95])
  return {"landmarks": lms, "world_landmarks": world}


def frames(n=4, with_pose=True):
  return [{"frame": k, "timestamp_us": k * 33333, "width": W, "height": H,
           "poses": [pose(k)] if with_pose else []} for k in range(n)]


def shifted(fs, dx_px=0.0, only=None, vis=0.0, presence=0.0, world_mm=0.0):
  out = copy.deepcopy(fs)
  for f in out:
    for p in f["poses"]:
      for k, q in enumerate(p["landmarks"]):
        if only is None or k == only:
          q[0] += dx_px / f["width"]
        q[3] += vis
        q[4] += presence
      for q in p["world_landmarks"]:
        q[2] += world_mm / 1000.0
  return out


def run(fa, fb, tol=cp.DEFAULT_TOLERANCES):
  return cp.compare(fa, fb, None, tol)


def write_png(path, w, h, values):
  """8-bit gray PNG of values 0..1 (row filter 0)."""
  raw = b"".join(b"\x00" + bytes(int(round(255 * v)) for v in values[r * w:(r + 1) * w])
                 for r in range(h))

  def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", zlib.crc32(kind + body) & 0xffffffff)
  with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def write_npy(path, w, h, values):
  header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (h, w)
  header += " " * (63 - (10 + len(header)) % 64) + "\n"
  with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<%df" % (w * h), *values))


def box_mask(w, h, x0, y0, x1, y1, inside=0.9):
  return [inside if x0 <= x < x1 and y0 <= y < y1 else 0.02 for y in range(h) for x in range(w)]


def main():
  shared = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
      "SLUICE_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "shared"))
  failures = []

  def expect(name, ok, detail=""):
    print("%-52s %s %s" % (name, "ok" if ok else "FAILED", detail))
    if not ok:
      failures.append(name)

  fs = frames()
  rows, problems, _ = run(fs, fs)
  expect("identical outputs pass with zero distance",
         not problems and len(rows) == 4
         and all(r["mean"] == 0 and r["world"] == 0 and r["vis"] == 0 and r["pres"] == 0
                             for r in rows))

  one_pct = max(W, H) / 100.0
  rows, problems, _ = run(shifted(fs[:1], dx_px=one_pct), fs[:1])
  expect("uniform 1% shift measures mean = max = 1%",
         abs(rows[0]["mean"] - 1.0) < 1e-6 and abs(rows[0]["max"] - 1.0) < 1e-6 and problems)
  _, problems, _ = run(shifted(fs, dx_px=0.4 * one_pct), fs)
  expect("0.4% shift passes", not problems, str(problems[:1]))
  _, problems, _ = run(shifted(fs, dx_px=0.6 * one_pct), fs)
  expect("0.6% shift fails the mean bound", problems and all("fails mean" in p for p in problems))
  _, problems, _ = run(shifted(fs, dx_px=3 * one_pct, only=11), fs)
  expect("one landmark off by 3% fails the max bound only",
         problems and all("fails max (" in p for p in problems), str(problems[:1]))

  _, problems, _ = run(shifted(fs, vis=0.04), fs)
  expect("visibility 0.04 off passes", not problems)
  _, problems, _ = run(shifted(fs, vis=0.06), fs)
  expect("visibility 0.06 off fails", problems and all("visibility" in p for p in problems))
  _, problems, _ = run(shifted(fs, presence=0.06), fs)
  expect("presence 0.06 off fails", problems and all("fails presence" in p for p in problems))
  _, problems, _ = cp.compare(shifted(fs, presence=0.06), fs, None, cp.DEFAULT_TOLERANCES, 0.1)
  expect("presence 0.06 off passes with a presence bound of 0.1", not problems)
  no_presence = copy.deepcopy(fs)
  for f in no_presence:
    for q in f["poses"][0]["landmarks"]:
      q[4] = None
  _, problems, _ = run(shifted(fs, presence=0.3), no_presence)
  expect("presence missing on one side is not compared", not problems, str(problems[:1]))

  _, problems, _ = run(shifted(fs, world_mm=9.0), fs)
  expect("world landmarks 9 mm off pass", not problems)
  _, problems, _ = run(shifted(fs, world_mm=11.0), fs)
  expect("world landmarks 11 mm off fail", problems and all("world" in p for p in problems))

  dropped = copy.deepcopy(fs)
  dropped[2]["poses"] = []
  _, problems, _ = run(dropped, fs)
  expect("a missed pose fails (detection outcome)", any("0 pose(s) vs 1" in p for p in problems))
  _, problems, _ = run(frames(with_pose=False), frames(with_pose=False))
  expect("no pose on both sides passes", not problems)
  _, problems, _ = run(fs[:3], fs)
  expect("a missing frame fails", any("frame count" in p for p in problems))
  resized = copy.deepcopy(fs)
  resized[0]["width"] = 320
  _, problems, _ = run(resized, fs)
  expect("another frame size fails", any("size" in p for p in problems))
  short = copy.deepcopy(fs)
  short[1]["poses"][0]["landmarks"] = short[1]["poses"][0]["landmarks"][:21]
  _, problems, _ = run(short, fs)
  expect("a pose of 21 landmarks fails", any("21 landmarks" in p for p in problems))

  with tempfile.TemporaryDirectory() as tmp:
    # Masks: PNG (ours) vs .npy (the oracle's) of the same box agree; a box
    # shifted by a quarter of its width does not.
    mw, mh = 40, 30
    a, b, c, d = (os.path.join(tmp, n) for n in ("a", "b", "c", "d"))
    for folder in (a, b, c, d):
      os.makedirs(folder)
    for i in (0, 2):
      write_png(os.path.join(a, "%06d.png" % i), mw, mh, box_mask(mw, mh, 10, 5, 30, 25))
      write_npy(os.path.join(b, "%06d.npy" % i), mw, mh, box_mask(mw, mh, 10, 5, 30, 25, 0.9))
      write_npy(os.path.join(c, "%06d.npy" % i), mw, mh, box_mask(mw, mh, 15, 5, 35, 25))
    write_npy(os.path.join(d, "000000.npy"), mw, mh, box_mask(mw, mh, 10, 5, 30, 25))
    rows, problems = cp.compare_masks(a, b, None, 0.95)
    expect("masks: PNG vs identical .npy have IoU 1",
           not problems and len(rows) == 2 and all(r[1] == 1.0 and r[2] < 0.003 for r in rows),
           str(rows))
    rows, problems = cp.compare_masks(a, c, None, 0.95)
    expect("masks: shifted box fails IoU (15/25 = 0.6)",
           len(problems) == 2 and abs(rows[0][1] - 0.6) < 1e-6, str(rows[:1]))
    _, problems = cp.compare_masks(a, d, None, 0.95)
    expect("masks: a frame's mask on one side only fails", any("frames differ" in p for p in problems))

    # The command line: JSONL files, exit codes, masks, errors.
    ja, jb = os.path.join(tmp, "a.jsonl"), os.path.join(tmp, "b.jsonl")
    for path, fr in ((ja, fs), (jb, shifted(fs, dx_px=0.1))):
      with open(path, "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in fr)
    cli = [sys.executable, os.path.join(HERE, "compare_pose.py")]
    p = subprocess.run(cli + [ja, jb, "--masks", a, b], capture_output=True, text=True)
    expect("CLI: close poses and equal masks exit 0",
           p.returncode == 0 and "masks 2: IoU min 1.0000" in p.stdout, p.stdout[-300:])
    p = subprocess.run(cli + [ja, jb, "--masks", a, c], capture_output=True, text=True)
    expect("CLI: masks below the IoU bound exit 1", p.returncode == 1 and "IoU 0.6000" in p.stdout)
    with open(jb, "w") as f:
      f.writelines(json.dumps(x) + "\n" for x in shifted(fs, dx_px=50))
    rc = subprocess.call(cli + [ja, jb], stdout=subprocess.DEVNULL)
    expect("CLI: 50 px shift exits 1", rc == 1)
    with open(jb, "w") as f:
      f.write("{not json\n")
    p = subprocess.run(cli + [ja, jb], capture_output=True, text=True)
    expect("CLI: malformed JSONL is one clear error",
           p.returncode != 0 and "not JSON" in p.stderr and "Traceback" not in p.stderr)
    p = subprocess.run(cli + [ja, os.path.join(tmp, "missing.jsonl")], capture_output=True, text=True)
    expect("CLI: a missing file is one clear error",
           p.returncode != 0 and "cannot read" in p.stderr and "Traceback" not in p.stderr)

    refs = sorted(glob.glob(os.path.join(shared, "reference", "cpu_inference", "pose_*_c1.json")))
    refs = [r for r in refs if json.load(open(r)).get("poseLandmarks")]
    if refs:
      out = os.path.join(tmp, "ref.jsonl")
      cp.convert_reference(out, refs[:2])
      conv = cp.load(out)
      expect("reference files convert to 33-landmark poses without presence",
             len(conv) == 2 and all(len(f["poses"][0]["landmarks"]) == 33
                                    and f["poses"][0]["landmarks"][0][4] is None for f in conv))
      rc = subprocess.call(cli + [out, out], stdout=subprocess.DEVNULL)
      expect("CLI: converted reference vs itself exits 0", rc == 0)
    else:
      print("(no pose reference files under %s: conversion not tested)" % shared)

  print("compare_pose_test: %s" % ("PASS" if not failures else "FAIL %s" % failures))
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
