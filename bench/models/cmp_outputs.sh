#!/bin/bash
# Byte identity of a model's outputs between two runs of our engine: the
# default environment and VAR=VALUE (e.g. SLUICE_XNNPACK_OWN_GEMM=0, the
# all-XNNPACK path, or one own kernel's A/B switch), same random input.
# usage: bench/models/cmp_outputs.sh TOOL MODEL THREADS VAR=VALUE
#   TOOL: build/tests/oracle/sluice_run_model; prints
#   "NAME threads=T VAR=VALUE outputs=N identical=0|1" (and DIFF lines).
# The input is written once per model with the oracle venv's numpy
# (tests/oracle/setup_oracle_venv.sh) under $TMPDIR/sluice_cmp_inputs.
set -euo pipefail
tool=$1 model=$2 threads=$3 envv=$4
repo=$(cd "$(dirname "$0")/../.." && pwd)
name=$(basename "$model" .tflite)
inputs=${TMPDIR:-/tmp}/sluice_cmp_inputs
mkdir -p "$inputs"
in=$inputs/$name.npy
if [ ! -f "$in" ]; then
  shape=$("$tool" "$model" --print-input-shape)
  "$repo/.venv-oracle/bin/python" -c "
import sys, numpy as np
shape = [int(d) for d in sys.argv[1].split('x')]
np.save(sys.argv[2], np.random.RandomState(0).uniform(0, 1, shape).astype(np.float32))
" "$shape" "$in.tmp.npy"
  mv "$in.tmp.npy" "$in"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" "$model" "$in" "$work/a_" --backend xnnpack --threads "$threads" >/dev/null
env "$envv" "$tool" "$model" "$in" "$work/b_" --backend xnnpack --threads "$threads" >/dev/null
ok=1 n=0
for f in "$work"/a_*; do
  n=$((n + 1))
  cmp -s "$f" "$work/b_${f##*/a_}" || { ok=0; echo "DIFF ${f##*/a_}"; }
done
echo "$name threads=$threads $envv outputs=$n identical=$ok"
