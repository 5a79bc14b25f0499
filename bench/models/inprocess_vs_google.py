#!/usr/bin/env python3
"""Our xnnpack backend against Google's interpreter in ONE process, alternating
blocks of runs milliseconds apart (ABBA), so that a shared host's slow phases
(seconds long) fall on both sides alike.

usage: .venv-oracle/bin/python bench/models/inprocess_vs_google.py \
           [--threads 1,2] [--pairs 40] [--runs 5] [--only m1,m2] [--lib PATH]

Ours runs through build/bench/libsluice_bench_c.so (ctypes), Google's through
ai_edge_litert's Interpreter with its default XNNPACK delegate, the same
thread count, the same random input. Each block: a 20 ms sleep (the other
side's pool threads go idle), one untimed run, RUNS timed runs; both sides are
timed from Python around the call (Google's call goes through its pybind
wrapper, a few microseconds more than ctypes). Per model and thread count:
each side's median and minimum, and the median over block pairs of (our block
median / Google's block median).
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

try:
    from ai_edge_litert import interpreter as tfl
except ImportError:  # older wheel name
    from tflite_runtime import interpreter as tfl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.environ.get("SLUICE_MODELS", REPO + "/../shared/models")
DEFAULT_MODELS = [
    "face_detection_full_range", "face_detection_full_range_sparse", "face_detection_short_range",
    "face_landmark", "hand_landmark_full", "hand_landmark_lite", "hand_recrop", "iris_landmark",
    "palm_detection_full", "palm_detection_lite", "pose_detection", "pose_landmark_full",
    "pose_landmark_heavy", "pose_landmark_lite", "selfie_segmentation",
    "selfie_segmentation_landscape"]  # face_landmark_with_attention: Google's lacks its custom ops


class Ours:
    def __init__(self, lib, path, threads, x):
        err = ctypes.create_string_buffer(1024)
        self.lib = lib
        self.h = lib.sluice_bench_load(path.encode(), threads, err, len(err))
        if not self.h:
            raise RuntimeError(err.value.decode())
        n = lib.sluice_bench_input_floats(self.h, 0)
        if n != x.size:
            raise RuntimeError(f"{path}: input has {n} floats, not {x.size}")
        ctypes.memmove(lib.sluice_bench_input(self.h, 0), x.ctypes.data, x.nbytes)

    def run(self):
        if self.lib.sluice_bench_invoke(self.h) != 0:
            raise RuntimeError("invoke failed")

    def close(self):
        self.lib.sluice_bench_free(self.h)


class Google:
    def __init__(self, path, threads, x):
        self.it = tfl.Interpreter(model_path=path, num_threads=threads,
                                  experimental_op_resolver_type=tfl.OpResolverType.AUTO)
        self.it.allocate_tensors()
        self.it.set_tensor(self.it.get_input_details()[0]["index"], x)

    def run(self):
        self.it.invoke()

    def close(self):
        pass


def block(side, runs):
    time.sleep(0.02)
    side.run()
    ms = []
    for _ in range(runs):
        t0 = time.perf_counter()
        side.run()
        ms.append((time.perf_counter() - t0) * 1e3)
    return ms


def load_lib(path):
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)  # our pthreadpool_* for Debian's XNNPACK
    lib.sluice_bench_load.restype = ctypes.c_void_p
    lib.sluice_bench_load.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    for f in ("sluice_bench_num_inputs", "sluice_bench_invoke"):
        getattr(lib, f).argtypes = [ctypes.c_void_p]
    lib.sluice_bench_input_floats.restype = ctypes.c_long
    lib.sluice_bench_input_floats.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.sluice_bench_input.restype = ctypes.c_void_p
    lib.sluice_bench_input.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.sluice_bench_free.argtypes = [ctypes.c_void_p]
    return lib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--lib", default=REPO + "/build/bench/libsluice_bench_c.so")
    a = ap.parse_args()
    lib = load_lib(a.lib)
    models = a.only.split(",") if a.only else DEFAULT_MODELS
    threads = [int(t) for t in a.threads.split(",")]
    print(f"in one process, {a.pairs} ABBA block pairs of {a.runs} runs; cells: median "
          "(min) ms; ratio: median over pairs of ours/Google block medians\n")
    print("| model | threads | ours | Google | ours/Google |\n|---|---:|---:|---:|---:|")
    for m in models:
        path = f"{MODELS}/{m}.tflite"
        shape = tfl.Interpreter(model_path=path).get_input_details()[0]["shape"]
        x = np.random.RandomState(0).uniform(0, 1, shape).astype(np.float32)
        for t in threads:
            sides = [Ours(lib, path, t, x), Google(path, t, x)]
            for s in sides:
                block(s, 3)
            all_ms, ratios = [[], []], []
            for p in range(a.pairs):
                med = [0.0, 0.0]
                for k in ((0, 1) if p % 2 == 0 else (1, 0)):
                    ms = block(sides[k], a.runs)
                    med[k] = float(np.median(ms))
                    all_ms[k] += ms
                ratios.append(med[0] / med[1])
            cell = [f"{np.median(v):.3f} ({min(v):.3f})" for v in all_ms]
            print(f"| {m} | {t} | {cell[0]} | {cell[1]} | {np.median(ratios):.2f} |", flush=True)
            for s in sides:
                s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
