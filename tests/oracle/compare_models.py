#!/usr/bin/env python3
"""Runs every model through Google's interpreter (the oracle) and through our
engine's backends (tool sluice_run_model), and compares the outputs.

Relative error of one output: max|ours - oracle| / max(1e-6, max|oracle|),
i.e. the worst absolute deviation scaled by the output's magnitude. A model
passes when every output's relative error is <= --tolerance (default 1e-4),
or the larger per-model bound in TOLERANCE_OVERRIDES (justified there).
Models the oracle cannot load (MediaPipe custom ops) are reported and then
compared backend against backend (the first backend is the reference).

Inputs are real photos (../shared/testdata), resized to the model's input
(nearest neighbour) and scaled to [0, 1]; without Pillow a smooth synthetic
image is used instead.
Exit status: 0 all pass, 1 a mismatch or a failure of our engine.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# Outputs that fp32 cannot pin down to 1e-4: Google's own kernels disagree with
# each other there. On pose_landmark_{lite,full,heavy}, TFLite's builtin and
# reference kernels differ from its XNNPACK path by up to 1.5e-3 on the
# segmentation logits (Identity_2) and 3.3e-4 on the pose flag (Identity_1),
# measured on sergey.png. Allowed: twice that spread.
TOLERANCE_OVERRIDES = {
    "pose_landmark_lite": 3e-3,
    "pose_landmark_full": 3e-3,
    "pose_landmark_heavy": 3e-3,
}


def rel_error(ours, ref):
    if ours.shape != ref.shape:
        return float("inf")
    scale = max(1e-6, float(np.max(np.abs(ref))) if ref.size else 0.0)
    return float(np.max(np.abs(ours.astype(np.float64) - ref))) / scale if ref.size else 0.0


def make_input(shape, image_path):
    _, h, w, c = shape
    try:
        from PIL import Image
        img = Image.open(image_path).convert("RGB")
        rgb = np.asarray(img, dtype=np.float32) / 255.0
        ys = (np.arange(h) * rgb.shape[0] // h)
        xs = (np.arange(w) * rgb.shape[1] // w)
        x = rgb[ys][:, xs][:, :, :c]
    except Exception:  # no Pillow or unreadable image: smooth synthetic picture
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        x = np.stack([0.5 + 0.5 * np.sin(xx / 7 + k) * np.cos(yy / 11 - k)
                      for k in range(c)], axis=-1)
    return x.reshape(shape).astype(np.float32)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def load_outputs(prefix):
    outs, i = [], 0
    while os.path.exists(f"{prefix}{i}.npy"):
        outs.append(np.load(f"{prefix}{i}.npy"))
        i += 1
    return outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, help="path of sluice_run_model")
    ap.add_argument("--models", required=True, help="folder with .tflite files")
    ap.add_argument("--image", default="")
    ap.add_argument("--backends", default="reference,xnnpack")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--only", default="", help="comma-separated model names")
    a = ap.parse_args()

    try:
        from ai_edge_litert import interpreter as tfl
    except ImportError:
        from tflite_runtime import interpreter as tfl

    models = sorted(glob.glob(os.path.join(a.models, "*.tflite")))
    if a.only:
        keep = set(a.only.split(","))
        models = [m for m in models if os.path.basename(m)[:-7] in keep]
    if not models:
        print(f"no models in {a.models}")
        return 1
    backends = a.backends.split(",")
    failures, unloadable = [], []
    work = tempfile.mkdtemp(prefix="sluice_oracle_")
    print(f"{'model':36} {'oracle':8} " + " ".join(f"{b:>12}" for b in backends)
          + "   (max relative error over outputs)")
    for m in models:
        name = os.path.basename(m)[:-7]
        oracle_ok = True
        try:
            it = tfl.Interpreter(model_path=m, num_threads=a.threads)
            it.allocate_tensors()
            shape = list(it.get_input_details()[0]["shape"])
        except Exception as e:
            oracle_ok = False
            unloadable.append((name, str(e).splitlines()[0]))
            shape = None
        if shape is None:  # ask our engine for the shape: run with a probe
            code, out = run([a.tool, m, "--print-input-shape"])
            if code != 0:
                failures.append(f"{name}: our engine cannot load it: {out.strip()}")
                print(f"{name:36} {'n/a':8} load failed")
                continue
            shape = [int(d) for d in out.split()[-1].split("x")]
        x = make_input(shape, a.image)
        inp = os.path.join(work, f"{name}_in.npy")
        np.save(inp, x)
        ref = None
        if oracle_ok:
            code, out = run([sys.executable, os.path.join(HERE, "run_tflite.py"), m, inp,
                             os.path.join(work, f"{name}_oracle_"), "--threads", str(a.threads)])
            if code != 0:
                oracle_ok = False
                unloadable.append((name, out.strip().splitlines()[-1]))
            else:
                ref = load_outputs(os.path.join(work, f"{name}_oracle_"))
        cells = []
        for b in backends:
            prefix = os.path.join(work, f"{name}_{b}_")
            code, out = run([a.tool, m, inp, prefix, "--backend", b, "--threads", str(a.threads)])
            if code != 0:
                failures.append(f"{name}/{b}: run failed: {out.strip()}")
                cells.append("FAILED")
                continue
            ours = load_outputs(prefix)
            if ref is None:  # no oracle: the first backend is the yardstick
                ref = ours
                cells.append("(yardstick)")
                continue
            if len(ours) != len(ref):
                failures.append(f"{name}/{b}: {len(ours)} outputs, oracle has {len(ref)}")
                cells.append("COUNT")
                continue
            errs = [rel_error(o, r) for o, r in zip(ours, ref)]
            worst = max(errs) if errs else 0.0
            tol = max(a.tolerance, TOLERANCE_OVERRIDES.get(name, 0.0))
            if not worst <= tol:
                failures.append(f"{name}/{b}: relative errors per output {['%.2e' % e for e in errs]}"
                                f" > {tol}")
            cells.append(f"{worst:.2e}")
        print(f"{name:36} {'yes' if oracle_ok else 'NO':8} " + " ".join(f"{c:>12}" for c in cells),
              flush=True)
    for name, why in unloadable:
        print(f"oracle cannot load {name}: {why}")
    for f in failures:
        print(f"FAIL {f}")
    print("PASS" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
