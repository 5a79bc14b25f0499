#!/usr/bin/env bash
# Framework overhead, ours vs Google's MediaPipe, on this machine, in one run.
#   bash bench/run_framework_bench.sh
# Needs a build (build/) and, for the comparison, PyPI (mediapipe==0.10.21 in .venv-mp).
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target framework_bench >/dev/null
json=$(mktemp)
./build/bench/framework_bench --benchmark_format=json --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true >"$json"

python3 - "$json" <<'PY'
import json, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    # name: BM_PassThroughChain/nodes:K/threads:T/process_time/real_time_median
    parts = dict(p.split(":") for p in b["run_name"].split("/")[1:] if ":" in p)
    runs[(int(parts["nodes"]), int(parts["threads"]))] = b
packets = 10000
for threads in (1, 2):
    r1, r10 = runs[(1, threads)], runs[(10, threads)]
    per_call_us = (r10["cpu_time"] - r1["cpu_time"]) * 1e3 / (9 * packets)  # ms -> us
    pps = r10["items_per_second"]
    bound_us = 1e6 / (pps * 10)
    print(f"sluice threads={threads} chain10 packets_per_s={pps:.0f} "
          f"per_invocation_us_cpu_delta={per_call_us:.3f} per_invocation_us_wall_bound={bound_us:.3f}")
PY

if [ ! -x .venv-mp/bin/python ]; then
  python3 -m venv .venv-mp && .venv-mp/bin/pip install -q mediapipe==0.10.21 || {
    echo "SKIP mediapipe comparison: could not install mediapipe==0.10.21 from PyPI"; exit 0; }
fi
.venv-mp/bin/python bench/mediapipe_framework_bench.py --packets 20000 --repeats 5
