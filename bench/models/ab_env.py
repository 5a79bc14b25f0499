#!/usr/bin/env python3
"""Interleaved A/B of our xnnpack backend under two environments, next to
Google's interpreter (tests/oracle/run_tflite.py), on the same inputs.
usage: .venv-oracle/bin/python bench/models/ab_env.py THREADS ROUNDS m1,m2,... \
           --before VAR=VALUE [--after VAR=VALUE] [--iters N]
e.g. `--before SLUICE_POOL=pthreadpool` (Debian's pool) vs the default.
Each round runs before, after and Google once (N timed runs each, default 30);
cells: median of the round medians (min of the minima), ms.
SLUICE_RUN_MODEL picks the tool (default build/tests/oracle/sluice_run_model)."""

import argparse, os, re, subprocess, sys, tempfile
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
M = os.environ.get("SLUICE_MODELS", REPO + "/../shared/models")
TOOL = os.environ.get("SLUICE_RUN_MODEL", REPO + "/build/tests/oracle/sluice_run_model")


def timed(cmd, env=None, optional=False):
    """(median_ms, min_ms); None when `optional` and the model cannot be loaded
    (Google's interpreter lacks MediaPipe's custom ops)."""
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if optional and "cannot load" in r.stderr + r.stdout:
        return None
    med = re.search(r"median_ms=([0-9.]+)", r.stdout)
    mn = re.search(r"min_ms=([0-9.]+)", r.stdout)
    if not med or not mn:
        sys.exit(f"no timing from {' '.join(cmd)}:\n{r.stdout}\n{r.stderr}")
    return float(med.group(1)), float(mn.group(1))


def env_with(spec):
    env = dict(os.environ)
    if spec:
        k, v = spec.split("=", 1)
        env[k] = v
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("threads")
    ap.add_argument("rounds", type=int)
    ap.add_argument("models")
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default="")
    ap.add_argument("--iters", default="30")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice_ab_")
    print(f"before: {a.before}  after: {a.after or '(default env)'}  threads {a.threads}, "
          f"{a.rounds} rounds of {a.iters} runs\n")
    print("| model | before | after | Google | before/Google | after/Google |\n"
          "|---|---:|---:|---:|---:|---:|")
    for m in a.models.split(","):
        p = f"{M}/{m}.tflite"
        out = subprocess.run([TOOL, p, "--print-input-shape"], capture_output=True, text=True)
        shape = [int(d) for d in out.stdout.split()[-1].split("x")]
        inp = f"{work}/{m}.npy"
        np.save(inp, np.random.RandomState(0).uniform(0, 1, shape).astype(np.float32))
        res = {"b": [], "a": [], "g": []}
        ours = [TOOL, p, inp, work + "/o_", "--backend", "xnnpack", "--threads", a.threads,
                "--bench", a.iters]
        for _ in range(a.rounds):
            res["b"].append(timed(ours, env_with(a.before)))
            res["a"].append(timed(ours, env_with(a.after)))
            res["g"].append(timed([sys.executable, REPO + "/tests/oracle/run_tflite.py", p, inp,
                                   work + "/g_", "--threads", a.threads, "--bench", a.iters],
                                  optional=True))
        res["g"] = [x for x in res["g"] if x]
        c = {k: (float(np.median([x[0] for x in v])), min(x[1] for x in v))
             for k, v in res.items() if v}
        f = lambda x: f"{x[0]:.2f} ({x[1]:.2f})"
        r = lambda x, y: f"{x[0] / y[0]:.2f} ({x[1] / y[1]:.2f})"
        if "g" not in c:
            print(f"| {m} | {f(c['b'])} | {f(c['a'])} | cannot load | - | - |", flush=True)
            continue
        print(f"| {m} | {f(c['b'])} | {f(c['a'])} | {f(c['g'])} | {r(c['b'], c['g'])} | "
              f"{r(c['a'], c['g'])} |", flush=True)


if __name__ == "__main__":
    main()
