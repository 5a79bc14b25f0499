#!/usr/bin/env python3
"""3-way interleaved 2-thread A/B used for RESULTS.md 2026-11-23 19:05-19:20:
ours with SLUICE_XNNPACK_TASK_MACS=0 (one 7-row tile per 1x1 task, as before),
ours with the default split, Google (tests/oracle/run_tflite.py).
usage: .venv-oracle/bin/python bench/models/ab_task_split.py THREADS ROUNDS m1,m2,...
Cells: median of the round medians (min of the minima), ms, 30 runs each."""

import os, re, subprocess, sys, tempfile
import numpy as np
REPO=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
M=os.environ.get("SLUICE_MODELS", REPO+"/../shared/models")
tool=os.environ.get("SLUICE_RUN_MODEL", REPO+"/build-perf2/tests/oracle/sluice_run_model")
WORK=tempfile.mkdtemp(prefix="sluice_ab_")
threads=sys.argv[1]; rounds=int(sys.argv[2]); models=sys.argv[3].split(",")
def t(cmd, env=None):
    r=subprocess.run(cmd,capture_output=True,text=True,env=env)
    return float(re.search(r"median_ms=([0-9.]+)",r.stdout).group(1)), float(re.search(r"min_ms=([0-9.]+)",r.stdout).group(1))
print("| model | before | after | Google | before/Google | after/Google |\n|---|---:|---:|---:|---:|---:|")
for m in models:
    p=f"{M}/{m}.tflite"
    shape=[int(d) for d in subprocess.run([tool,p,"--print-input-shape"],capture_output=True,text=True).stdout.split()[-1].split("x")]
    inp=f"{WORK}/{m}.npy"; np.save(inp,np.random.RandomState(0).uniform(0,1,shape).astype(np.float32))
    res={"b":[],"a":[],"g":[]}
    for _ in range(rounds):
        for k,v in (("b","0"),("a",None)):
            env=dict(os.environ)
            if v is not None: env["SLUICE_XNNPACK_TASK_MACS"]=v
            res[k].append(t([tool,p,inp,WORK+"/o_","--backend","xnnpack","--threads",threads,"--bench","30"],env))
        res["g"].append(t([sys.executable,REPO+"/tests/oracle/run_tflite.py",p,inp,WORK+"/g_","--threads",threads,"--bench","30"]))
    c={k:(float(np.median([x[0] for x in v])),min(x[1] for x in v)) for k,v in res.items()}
    f=lambda x:f"{x[0]:.2f} ({x[1]:.2f})"
    r=lambda x,y:f"{x[0]/y[0]:.2f} ({x[1]/y[1]:.2f})"
    print(f"| {m} | {f(c['b'])} | {f(c['a'])} | {f(c['g'])} | {r(c['b'],c['g'])} | {r(c['a'],c['g'])} |",flush=True)
