#!/usr/bin/env python3
"""Where a model's time goes on the GPU: every kernel of one cuda-backend
Invoke() under Nsight Compute (ncu), as a table.

  bench/gpu/ncu_kernels.py --sluice BIN MODEL.tflite [MODEL ...] [--ncu PATH] [--top N]

Runs `ncu --metrics gpu__time_duration.sum` (clocks and caches as found) on
`sluice bench-model MODEL --backend cuda --runs R --warmup 1` and prints, per
model: kernels per Invoke, their summed time, and the N costliest launches of
the last Invoke (kernel, grid, block, microseconds). The summed kernel time next
to bench_cuda_models.py's median shows what launches, copies and the host wait
add. Needs a GPU machine where ncu can read counters (the device tool's
Firecracker machines: KINDS.md).
"""
import argparse
import csv
import glob
import io
import os
import shutil
import subprocess
import sys


def find_ncu(given):
  if given:
    return given
  return shutil.which("ncu") or next(iter(sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"))), None)


def profile(ncu, sluice, model, runs):
  cmd = [ncu, "--metrics", "gpu__time_duration.sum", "--csv", "--print-units", "base",
         "--clock-control", "none", "--cache-control", "none", sluice, "bench-model", model,
         "--backend", "cuda", "--runs", str(runs), "--warmup", "1"]
  p = subprocess.run(cmd, capture_output=True, text=True)
  lines = [l for l in p.stdout.splitlines() if l.startswith('"')]
  if not lines:
    raise RuntimeError("ncu gave no rows (exit %d): %s" % (p.returncode, (p.stdout + p.stderr)[-1500:]))
  rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
  return [(r["Kernel Name"], r["Grid Size"], r["Block Size"], float(r["Metric Value"].replace(",", "")) / 1e3)
          for r in rows if r.get("Metric Name") == "gpu__time_duration.sum"]


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("models", nargs="+")
  ap.add_argument("--sluice", required=True)
  ap.add_argument("--ncu", default=None)
  ap.add_argument("--runs", type=int, default=2)
  ap.add_argument("--top", type=int, default=12)
  a = ap.parse_args()
  ncu = find_ncu(a.ncu)
  if not ncu:
    print("SKIP: no ncu on this machine")
    return 0
  for model in a.models:
    try:
      k = profile(ncu, a.sluice, model, a.runs)
    except RuntimeError as e:
      print("%s: %s" % (os.path.basename(model), e))
      continue
    invokes = a.runs + 1
    per = len(k) // invokes
    last = k[-per:] if per else []
    total = sum(t for *_, t in last)
    print("\n== %s: %d launches in %d Invoke(), %d per Invoke, kernel time %.1f us per Invoke" %
          (os.path.basename(model), len(k), invokes, per, total))
    by_name = {}
    for name, _, _, t in last:
      short = name.split("(")[0].replace("sluice::inference::cuda::kernels::", "")
      n, s = by_name.get(short, (0, 0.0))
      by_name[short] = (n + 1, s + t)
    for short, (n, s) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:8]:
      print("   %-60s x%-3d %8.1f us" % (short[:60], n, s))
    print("   top launches:")
    for i, (name, grid, block, t) in sorted(enumerate(last), key=lambda e: -e[1][3])[:a.top]:
      short = name.split("(")[0].replace("sluice::inference::cuda::kernels::", "")
      print("   #%-3d %-50s grid %-14s block %-10s %8.1f us" % (i, short[:50], grid, block, t))
  return 0


if __name__ == "__main__":
  sys.exit(main())
