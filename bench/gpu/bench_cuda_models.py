#!/usr/bin/env python3
"""Per-model latency of the `cuda` inference backend next to its H100 floor.

  bench/gpu/bench_cuda_models.py [--sluice BIN] [--runs N] [--warmup N] [--cpu-runs N] [--backend B]
                                 [--models DIR] [--inventory FILE] [--only NAME,...]

For every model of ../shared/models that MODELS_INVENTORY.md's "Time floors per
model" table lists, runs `sluice bench-model MODEL --backend cuda` (one
Invoke() = inputs up, the model's ops, outputs down, one host wait; after
--warmup untimed runs) and prints model, median, p90, the floor ("H100 floor
(graphs)" column: launch latency, 1 us per kernel, the binding floor for every
model), median / floor, the ops that run as host islands (`sluice model-info
--backend cuda`, "reference" in its "runs on" column; any island also means no
CUDA graph) and, for comparison, the CPU `xnnpack` backend's median on the
same host (1 thread; --cpu-runs 0 leaves it out). The floors are H100 figures:
on another GPU the ratio is only indicative.

Exit: 0 done (or skipped: the first line then starts with "SKIP:", e.g. no CUDA
device or a build without the cuda backend), 1 a model failed, 2 bad setup.
"""
import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAST_LINE = re.compile(r"^bench-model (\S+) (\S+) (\d+) median_ms=([0-9.]+) p90_ms=([0-9.]+)$")
NO_DEVICE = ("not available on this machine", "no usable CUDA", "no CUDA device", "no CUDA",
             "unknown backend 'cuda'", "not built")


def shared_dir():
  return os.path.abspath(os.environ.get("SLUICE_SHARED_DIR", os.path.join(REPO, "..", "shared")))


def parse_time_us(cell):
  """'**115.0 µs**' / '1.31 ms' -> microseconds."""
  m = re.search(r"([0-9.,]+)\s*(µs|us|ms|s)\b", cell.replace("*", ""))
  if not m:
    raise ValueError("no time in %r" % cell)
  value = float(m.group(1).replace(",", ""))
  return value * {"µs": 1, "us": 1, "ms": 1e3, "s": 1e6}[m.group(2)]


def read_floors(path):
  """{model: floor in us} from the "Time floors per model" table."""
  floors, header, in_section = {}, None, False
  with open(path, encoding="utf-8") as f:
    for line in f:
      if line.startswith("## "):
        in_section = line.startswith("## Time floors per model")
        continue
      if not in_section or not line.startswith("|"):
        continue
      cells = [c.strip() for c in line.strip().strip("|").split("|")]
      if header is None:
        header = [c.replace("*", "").strip() for c in cells]
        continue
      if set(cells[0]) <= set("-: "):
        continue
      col = header.index("H100 floor (graphs)")
      floors[cells[0]] = parse_time_us(cells[col])
  if not floors:
    raise ValueError("no 'Time floors per model' table in %s" % path)
  return floors


def run(cmd, timeout=600):
  return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def bench(sluice, model, backend, runs, warmup):
  """(median_ms, p90_ms) or raises RuntimeError with sluice's message."""
  proc = run([sluice, "bench-model", model, "--backend", backend, "--runs", str(runs),
              "--warmup", str(warmup)])
  lines = proc.stdout.strip().splitlines()
  m = LAST_LINE.match(lines[-1]) if lines else None
  if proc.returncode != 0 or not m:
    raise RuntimeError((proc.stderr.strip() or proc.stdout.strip())[-500:])
  if m.group(2) != backend:
    raise RuntimeError("ran on backend %s, not %s" % (m.group(2), backend))
  return float(m.group(4)), float(m.group(5))


def host_ops(sluice, model):
  """Ops the cuda backend leaves to the host (model-info's 'reference' counts)."""
  proc = run([sluice, "model-info", model, "--backend", "cuda"])
  if proc.returncode != 0:
    return "?"
  total = 0
  for line in proc.stdout.splitlines():
    for n in re.findall(r"\breference (\d+)", line):
      total += int(n)
  return str(total)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--sluice", default=os.path.join(REPO, "build", "tools", "sluice"))
  ap.add_argument("--runs", type=int, default=200)
  ap.add_argument("--warmup", type=int, default=20)
  ap.add_argument("--cpu-runs", type=int, default=30, help="xnnpack runs per model; 0: none")
  ap.add_argument("--models", default=None, help="default: $SLUICE_MODELS_DIR or ../shared/models")
  ap.add_argument("--inventory", default=os.path.join(shared_dir(), "research", "MODELS_INVENTORY.md"))
  ap.add_argument("--only", default="", help="comma-separated model names")
  ap.add_argument("--backend", default="cuda", help="the backend timed (another one: smoke tests)")
  a = ap.parse_args()

  models_dir = a.models or os.environ.get("SLUICE_MODELS_DIR") or os.path.join(shared_dir(), "models")
  if not os.access(a.sluice, os.X_OK):
    print("bench_cuda_models: no sluice binary at %s" % a.sluice, file=sys.stderr)
    return 2
  try:
    floors = read_floors(a.inventory)
  except (OSError, ValueError) as e:
    print("bench_cuda_models: floors: %s" % e, file=sys.stderr)
    return 2
  names = [n for n in floors if not a.only or n in a.only.split(",")]
  missing = [n for n in names if not os.path.exists(os.path.join(models_dir, n + ".tflite"))]
  if missing:
    print("bench_cuda_models: missing in %s: %s" % (models_dir, ", ".join(missing)), file=sys.stderr)
    return 2

  # One short run decides whether there is anything to measure.
  try:
    bench(a.sluice, os.path.join(models_dir, names[0] + ".tflite"), a.backend, 1, 0)
  except RuntimeError as e:
    if any(s in str(e) for s in NO_DEVICE):
      print("SKIP: the %s backend cannot run here: %s" % (a.backend, str(e).splitlines()[-1]))
      return 0
    print("bench_cuda_models: %s: %s" % (names[0], e), file=sys.stderr)
    return 1

  print("%s backend, sluice bench-model: median/p90 of %d Invoke() after %d warm-up "
        "(inputs up, ops, outputs down, host wait)" % (a.backend, a.runs, a.warmup))
  print("%-34s %10s %10s %10s %7s %6s %12s" % ("model", "median_ms", "p90_ms", "floor_us",
                                               "ratio", "host", "xnnpack_ms"))
  failed = 0
  for name in names:
    path = os.path.join(models_dir, name + ".tflite")
    try:
      median, p90 = bench(a.sluice, path, a.backend, a.runs, a.warmup)
    except RuntimeError as e:
      print("%-34s FAILED: %s" % (name, str(e).splitlines()[-1] if str(e) else "?"))
      failed += 1
      continue
    cpu = "-"
    if a.cpu_runs > 0:
      try:
        cpu = "%.3f" % bench(a.sluice, path, "xnnpack", a.cpu_runs, 3)[0]
      except RuntimeError:
        cpu = "failed"
    floor = floors[name]
    print("%-34s %10.3f %10.3f %10.1f %7.1f %6s %12s" % (name, median, p90, floor,
                                                         median * 1e3 / floor, host_ops(a.sluice, path) if a.backend == "cuda" else "-",
                                                         cpu))
  print("ratio = median / floor; floor = MODELS_INVENTORY.md 'H100 floor (graphs)'; host = ops run "
        "as host islands (0: one CUDA graph); xnnpack = CPU backend, 1 thread, same host")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
