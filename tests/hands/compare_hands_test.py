#!/usr/bin/env python3
"""Tests of compare_hands.py on Google's web-build reference outputs
(../shared/reference/cpu_inference): identical inputs pass, and each kind of
disagreement the conformance test must catch fails. Needs only python3.

  compare_hands_test.py [SHARED_DIR]
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_hands as ch  # noqa: E402


def reference_frames(shared):
  files = sorted(glob.glob(os.path.join(shared, "reference", "cpu_inference", "hands_*_c1.json")))
  frames = []
  for path in files:
    with open(path) as f:
      frames.append(ch.from_reference(json.load(f), path))
  return [f for f in frames if f["hands"]], files


def run(fa, fb, tol=ch.DEFAULT_TOLERANCES, margin=0.0):
  rows, problems, notes = ch.compare(fa, fb, None, tol, margin)
  return rows, problems, notes


def shifted(frames, dx_px=0.0, only=None, world_mm=0.0):
  out = copy.deepcopy(frames)
  for f in out:
    for h in f["hands"]:
      for k, p in enumerate(h["landmarks"]):
        if only is None or k == only:
          p[0] += dx_px / f["width"]
      for p in h["world_landmarks"]:
        p[2] += world_mm / 1000.0
  return out


def main():
  shared = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
      "SLUICE_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "shared"))
  frames, files = reference_frames(shared)
  if not frames:
    print("SKIP: no hands reference files under %s" % shared)
    return 77
  failures = []

  def expect(name, ok, detail=""):
    print("%-46s %s %s" % (name, "ok" if ok else "FAILED", detail))
    if not ok:
      failures.append(name)

  rows, problems, _ = run(frames, frames)
  expect("identical outputs pass with zero distance",
         not problems and rows and all(r["mean"] == 0 and r["world"] == 0 for r in rows))

  # Distances are in % of max(width, height): a shift of 1 % of it on x.
  f0 = frames[:1]
  one_pct = max(f0[0]["width"], f0[0]["height"]) / 100.0
  rows, problems, _ = run(shifted(f0, dx_px=one_pct), f0)
  expect("uniform 1% shift measures mean = max = 1%",
         abs(rows[0]["mean"] - 1.0) < 1e-6 and abs(rows[0]["max"] - 1.0) < 1e-6 and problems)
  rows, problems, _ = run(shifted(frames, dx_px=0.4 * one_pct), frames)
  expect("0.4% shift passes", not problems, str(problems[:1]))
  rows, problems, _ = run(shifted(frames, dx_px=0.6 * one_pct), frames)
  expect("0.6% shift fails the mean bound", any("mean" in p for p in problems))
  rows, problems, _ = run(shifted(frames, dx_px=3 * one_pct, only=8), frames)
  expect("one landmark off by 3% fails the max bound only",
         problems and all("fails max" in p for p in problems))
  rows, problems, _ = run(shifted(frames, world_mm=6.0), frames)
  expect("world landmarks 6 mm off fail", problems and all("world" in p for p in problems))
  rows, problems, _ = run(shifted(frames, world_mm=4.0), frames)
  expect("world landmarks 4 mm off pass", not problems)

  dropped = copy.deepcopy(frames)
  dropped[0]["hands"] = []
  _, problems, _ = run(dropped, frames)
  expect("a missing hand fails", any("hand(s)" in p for p in problems))

  flipped = copy.deepcopy(frames)
  h = flipped[0]["hands"][0]
  h["handedness"] = "Left" if h["handedness"] == "Right" else "Right"
  _, problems, _ = run(flipped, frames)
  expect("a flipped handedness label fails", any("handedness" in p for p in problems))
  for f in (flipped, ):
    f[0]["hands"][0]["handedness_score"] = 0.55
  lowb = copy.deepcopy(frames)
  lowb[0]["hands"][0]["handedness_score"] = 0.56
  _, problems, notes = run(flipped, lowb, margin=0.1)
  expect("an ambiguous flip (scores < 0.6) is only noted", not problems and notes)

  # Two hands in swapped order still pair up (by label, then nearest wrist).
  two = copy.deepcopy(frames[:1])
  other = copy.deepcopy(two[0]["hands"][0])
  other["handedness"] = "Left" if other["handedness"] == "Right" else "Right"
  for p in other["landmarks"]:
    p[0] = 1.0 - p[0]
  two[0]["hands"].append(other)
  swapped = copy.deepcopy(two)
  swapped[0]["hands"].reverse()
  _, problems, _ = run(swapped, two)
  expect("two hands in swapped order pair up", not problems, str(problems[:1]))
  same_label = copy.deepcopy(two)
  same_label[0]["hands"][1]["handedness"] = same_label[0]["hands"][0]["handedness"]
  rev = copy.deepcopy(same_label)
  rev[0]["hands"].reverse()
  _, problems, _ = run(rev, same_label)
  expect("two hands of one label pair by nearest wrist", not problems, str(problems[:1]))

  # The command line: JSONL vs a reference file, exit codes.
  with tempfile.TemporaryDirectory() as tmp:
    jl = os.path.join(tmp, "a.jsonl")
    ref = [p for p in files if json.load(open(p)).get("multiHandLandmarks")][0]
    ch.convert_reference(jl, [ref])
    rc = subprocess.call([sys.executable, os.path.join(HERE, "compare_hands.py"), jl, ref],
                         stdout=subprocess.DEVNULL)
    expect("CLI: converted reference vs reference file exits 0", rc == 0)
    bad = shifted(ch.load(jl), dx_px=50)
    with open(jl, "w") as f:
      f.write(json.dumps(bad[0]) + "\n")
    rc = subprocess.call([sys.executable, os.path.join(HERE, "compare_hands.py"), jl, ref],
                         stdout=subprocess.DEVNULL)
    expect("CLI: 50 px shift exits 1", rc == 1)
    with open(jl, "w") as f:
      f.write("{not json\n")
    p = subprocess.run([sys.executable, os.path.join(HERE, "compare_hands.py"), jl, ref],
                       capture_output=True, text=True)
    expect("CLI: malformed JSONL is one clear error",
           p.returncode != 0 and "not JSON" in p.stderr and "Traceback" not in p.stderr)

  print("compare_hands_test: %s" % ("PASS" if not failures else "FAIL %s" % failures))
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
