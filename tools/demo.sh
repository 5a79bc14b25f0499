#!/usr/bin/env bash
# The main job on a bundled sample: sets up, builds, fetches MediaPipe's models
# and a sample clip of a real hand, then runs hand tracking on it and prints
# where the annotated video and the landmark file are.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh
export CCACHE_BASEDIR="$PWD"  # as tools/test.sh: objects shared between clones
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)" --target sluice

# Models: from the official mediapipe wheel on PyPI (checksums in
# models.sha256); offline, from ../shared/models when it is there.
if ! bash tools/fetch_models.sh; then
  if [ -d ../shared/models ]; then
    echo "demo: PyPI not reachable; taking the models from ../shared/models"
    bash tools/fetch_models.sh --from ../shared/models
  else
    exit 1
  fi
fi
sample="$(bash tools/fetch_sample.sh | tail -n 1)"

mkdir -p out
echo "== sluice hands --input $sample =="
./build/tools/sluice hands --input "$sample" --output out/hands.mp4 --landmarks out/hands.jsonl
echo "annotated video: $(pwd)/out/hands.mp4"
echo "landmarks (JSON Lines, one object per frame): $(pwd)/out/hands.jsonl"
