#!/usr/bin/env python3
"""Runs a .tflite model with Google's interpreter (the oracle) and saves outputs.

usage: run_tflite.py MODEL INPUT.npy[,INPUT2.npy...] OUT_PREFIX
                     [--threads N] [--kernels xnnpack|builtin|reference]
                     [--bench ITERS]

Output i (in the model's output order) is written to OUT_PREFIX<i>.npy; one line
per output "i name shape" goes to stdout. --bench runs ITERS timed invocations
after two warm-up runs and prints "bench: mean_ms=.. median_ms=.. min_ms=..".
Exit 2 = the interpreter cannot load/prepare the model (e.g. custom ops),
with the interpreter's message on stderr.
"""
import argparse
import sys
import time

import numpy as np

try:
    from ai_edge_litert import interpreter as tfl
except ImportError:  # older wheel name
    from tflite_runtime import interpreter as tfl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("inputs")
    ap.add_argument("out_prefix")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--kernels", default="xnnpack",
                    choices=["xnnpack", "builtin", "reference"])
    ap.add_argument("--bench", type=int, default=0)
    a = ap.parse_args()

    resolver = {
        "xnnpack": tfl.OpResolverType.AUTO,  # builtin ops + default XNNPACK delegate
        "builtin": tfl.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        "reference": tfl.OpResolverType.BUILTIN_REF,
    }[a.kernels]
    try:
        it = tfl.Interpreter(model_path=a.model, num_threads=a.threads,
                             experimental_op_resolver_type=resolver)
        it.allocate_tensors()
    except Exception as e:  # the interpreter raises RuntimeError/ValueError
        print(f"run_tflite: cannot load {a.model}: {e}", file=sys.stderr)
        return 2

    paths = a.inputs.split(",")
    details = it.get_input_details()
    if len(paths) != len(details):
        print(f"run_tflite: {a.model} has {len(details)} inputs, got {len(paths)} files",
              file=sys.stderr)
        return 1
    for d, p in zip(details, paths):
        x = np.load(p)
        if tuple(x.shape) != tuple(d["shape"]) or x.dtype != d["dtype"]:
            print(f"run_tflite: input {p}: {x.dtype}{list(x.shape)} but {d['name']} wants "
                  f"{np.dtype(d['dtype'])}{list(d['shape'])}", file=sys.stderr)
            return 1
        it.set_tensor(d["index"], x)

    it.invoke()
    for i, d in enumerate(it.get_output_details()):
        y = it.get_tensor(d["index"])
        np.save(f"{a.out_prefix}{i}.npy", y)
        print(i, d["name"], list(y.shape))

    if a.bench > 0:
        it.invoke()
        it.invoke()
        times = []
        for _ in range(a.bench):
            t0 = time.perf_counter()
            it.invoke()
            times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        print(f"bench: mean_ms={sum(times) / len(times):.3f} "
              f"median_ms={times[len(times) // 2]:.3f} min_ms={times[0]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
