#!/usr/bin/env python3
"""Times every model on our xnnpack backend next to Google's TFLite interpreter
(XNNPACK delegate on), same machine, same thread counts, and prints a Markdown
table. A benchmark, not a test.

usage: bench_models.py [--tool build/tests/oracle/sluice_run_model]
                       [--models ../shared/models] [--threads 1,2] [--iters 30]
                       [--backend xnnpack] [--rounds 1] [--only m1,m2]
                       [--peak 1:166,2:332 [--cli build/tools/sluice]] [--ours-only]
Run it with the oracle venv's python (tests/oracle/setup_oracle_venv.sh).
Each cell is "median (min)" of --iters timed invocations after two warm-up
runs; both sides time Invoke() only (inputs already in place). ratio = ours /
Google on the medians (on the minima in parentheses; < 1: we are faster). On a
busy machine the minima are the better comparison. With --rounds N each
measurement is repeated N times, ours and Google's alternating; cells are then
the median of the N medians (the min of the N minima). Environment variables
reach our tool (e.g. SLUICE_XNNPACK_OWN_GEMM=0 for the all-XNNPACK path).
With --peak (this machine's fp32 GFLOP/s per thread count, from
build/bench/cpu_peak), two columns per thread count give our minimum over the
model's FLOP floor: "x floor" with the model's FLOPs as MODELS_INVENTORY.md
counts them (`sluice model-info`'s "FLOPs": 2 x MACs + the elementwise
operations) / peak, and "x MAC floor" with 2 x MACs alone (stricter, the
column earlier tables gave as "x floor"). --ours-only skips Google's
interpreter (its cells read n/a; then any python with numpy will do): a quick
floor table while the host is quiet.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORACLE = os.path.join(REPO, "tests", "oracle")


def timing(cmd):
    """Runs a timing command; returns ((median_ms, min_ms or None), error)."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    med = re.search(r"median_ms=([0-9.]+)", r.stdout)
    low = re.search(r"min_ms=([0-9.]+)", r.stdout)
    if r.returncode != 0 or not med:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    return (float(med.group(1)), float(low.group(1)) if low else None), ""


def combine(runs):
    """Median of the medians, min of the minima (None when nothing ran)."""
    if not runs:
        return None
    lows = [r[1] for r in runs if r[1] is not None]
    return float(np.median([r[0] for r in runs])), (min(lows) if lows else None)


def cell(t):
    if t is None:
        return "n/a"
    return f"{t[0]:.2f}" + (f" ({t[1]:.2f})" if t[1] is not None else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default=os.path.join(REPO, "build-xnnpack", "tests", "oracle",
                                                   "sluice_run_model"))
    ap.add_argument("--models", default=os.path.join(REPO, "..", "shared", "models"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--backend", default="xnnpack")
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat each timing, alternating ours and Google's")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--sluice", default="",
                    help="the sluice CLI: time ours with 'sluice bench-model' instead of --tool")
    ap.add_argument("--peak", default="",
                    help="GFLOP/s per thread count, e.g. 1:166,2:332: adds 'x floor' columns")
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "tools", "sluice"),
                    help="the sluice CLI, for the MACs of --peak")
    ap.add_argument("--ours-only", action="store_true",
                    help="time only our engine (no Google columns filled)")
    a = ap.parse_args()
    peak = {int(k): float(v) for k, v in (p.split(":") for p in a.peak.split(",") if p)}

    if not a.ours_only:
        # Google's interpreter runs in run_tflite.py under this same python:
        # check here that it is importable, before the first model.
        try:
            import ai_edge_litert.interpreter  # noqa: F401
        except ImportError:
            try:
                import tflite_runtime.interpreter  # noqa: F401
            except ImportError:
                sys.exit("bench_models.py: Google's interpreter (ai-edge-litert or tflite-runtime) "
                         "is not importable by " + sys.executable + ": use the oracle venv's "
                         "python (tests/oracle/setup_oracle_venv.sh), or pass --ours-only")
    work = tempfile.mkdtemp(prefix="sluice_bench_")
    threads = [int(t) for t in a.threads.split(",")]
    per_t = 5 if peak else 3
    head = "| model | " + " | ".join(
        f"ours {t}T ms | Google {t}T ms | ratio {t}T" +
        (f" | x floor {t}T | x MAC floor {t}T" if peak else "")
        for t in threads) + " |"
    print(head)
    print("|---|" + "---:|" * (per_t * len(threads)))
    notes = []
    for m in sorted(glob.glob(os.path.join(a.models, "*.tflite"))):
        name = os.path.basename(m)[:-7]
        if a.only and name not in a.only.split(","):
            continue
        r = subprocess.run([a.tool, m, "--print-input-shape"], capture_output=True, text=True)
        if r.returncode != 0:
            notes.append(f"{name}: our engine cannot load it: {r.stderr.strip()}")
            continue
        shape = [int(d) for d in r.stdout.split()[-1].split("x")]
        inp = os.path.join(work, f"{name}.npy")
        np.save(inp, np.random.RandomState(0).uniform(0, 1, shape).astype(np.float32))
        macs = flops = None
        if peak:
            info = subprocess.run([a.cli, "model-info", m], capture_output=True, text=True)
            found = re.search(r"MACs: ([0-9]+)", info.stdout)
            macs = int(found.group(1)) if found else None
            found = re.search(r"FLOPs: ([0-9]+)", info.stdout)
            flops = int(found.group(1)) if found else None
        cells = []
        for t in threads:
            runs_ours, runs_google = [], []
            why = gwhy = ""
            for _ in range(max(1, a.rounds)):
                if a.sluice:
                    o, why = timing([a.sluice, "bench-model", m, "--backend", a.backend,
                                     "--threads", str(t), "--runs", str(a.iters)])
                else:
                    o, why = timing([a.tool, m, inp, os.path.join(work, "o_"), "--backend",
                                     a.backend, "--threads", str(t), "--bench", str(a.iters)])
                g, gwhy = (None, "not run (--ours-only)") if a.ours_only else timing(
                    [sys.executable, os.path.join(ORACLE, "run_tflite.py"), m, inp,
                     os.path.join(work, "g_"), "--threads", str(t), "--bench", str(a.iters)])
                if o:
                    runs_ours.append(o)
                if g:
                    runs_google.append(g)
            ours, google = combine(runs_ours), combine(runs_google)
            if ours is None:
                notes.append(f"{name} ({t} threads), ours: {why}")
            if google is None and t == threads[0] and not a.ours_only:
                notes.append(f"{name}: Google's interpreter: {gwhy}")
            ratio = "n/a"
            if ours and google:
                ratio = f"{ours[0] / google[0]:.2f}"
                if ours[1] and google[1]:
                    ratio += f" ({ours[1] / google[1]:.2f})"
            cells += [cell(ours), cell(google), ratio]
            if peak:
                for count in (flops, 2 * macs if macs else None):
                    floor_ms = count / (peak[t] * 1e6) if count and t in peak else None
                    cells.append(f"{ours[1] / floor_ms:.2f}" if ours and ours[1] and floor_ms
                                 else "n/a")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    for n in notes:
        print(f"\n- {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
