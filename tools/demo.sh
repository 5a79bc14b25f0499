#!/usr/bin/env bash
# Sets up, builds and runs the main job on a bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)" --target sluice

echo "== sluice run examples/graphs/running_sum.pbtxt =="
./build/tools/sluice run examples/graphs/running_sum.pbtxt \
  --input in=int:1,2,3,4,5 --print sum
