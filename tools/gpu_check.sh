#!/usr/bin/env bash
# The GPU session's one command: builds Sluice with CUDA for this machine's GPU,
# runs every GPU test and benchmark and prints one table (for BENCHMARKS.md).
#
#   tools/gpu_check.sh [--build-dir DIR] [--arch SM] [--jobs N] [--no-build]
#                      [--no-bench] [--dry-run] [--allow-skip]
#
# Steps (each one's full output is kept in DIR/gpu_check_*.txt):
#   1. configure (SLUICE_CUDA=ON, CMAKE_CUDA_ARCHITECTURES=SM, benchmarks on)
#      and build what the steps below run (one architecture: minutes on 16 cores)
#   2. ctest -L gpu (the tests that need a device, incl. the hands conformance
#      with --device cuda) and -L gpu_fake (the same sources on the fake runtime)
#   3. pytest python/tests/test_hands_cuda.py: Hands(device="cuda") vs "cpu"
#   4. bench/gpu/bench_cuda_models.py: per-model latency of the cuda backend
#      next to its H100 floor (MODELS_INVENTORY.md) and xnnpack on this host
#   5. bench/hands/bench_hands_gpu.sh: hand tracking fps, 1280x720 pre-decoded
#      frames, tracking and static mode, cuda vs cpu
#   6. gpu/gpu_image_bench: kernels vs CPU loops, transfers, round trips
# Options: --arch SM: CUDA architecture, e.g. 90 (default: nvidia-smi's
#   compute_cap, else 75); --jobs N: build/test parallelism (default nproc);
#   --no-build: use DIR as it is (built before); --no-bench: steps 1-3 only;
#   --dry-run: go through every step even without a GPU (the GPU parts then
#   report "skipped"), to check the wiring on a machine without one;
#   --allow-skip: with a GPU, skipped GPU tests do not fail the run.
# Env: SLUICE_SHARED_DIR (default ../shared: models, testdata, MODELS_INVENTORY.md).
#
# Exit: 0 everything passed, or skipped as a whole: no NVIDIA GPU found (says
# "SKIPPED: no NVIDIA GPU", before building anything; --dry-run to go on);
# 1 a test or benchmark failed (or, with a GPU, a GPU test was skipped);
# 2 setup problem (missing tool, configure or build failed).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${root}/build-gpu"
arch=""
jobs=$(nproc 2>/dev/null || echo 4)
do_build=1 bench=1 dry_run=0 allow_skip=0

die() { echo "gpu_check: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="${2:?--build-dir needs a folder}"; shift 2 ;;
    --arch) arch="${2:?--arch needs a number}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --no-bench) bench=0; shift ;;
    --dry-run) dry_run=1; shift ;;
    --allow-skip) allow_skip=1; shift ;;
    # (--bench: the benchmarks used to be opt-in; accepted, now the default.)
    --bench) shift ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
build=$(mkdir -p "$build" && cd "$build" && pwd) || die "cannot create the build folder"
export SLUICE_SHARED_DIR="${SLUICE_SHARED_DIR:-$root/../shared}"

# --- The GPU ------------------------------------------------------------------
gpu_name=""
if command -v nvidia-smi >/dev/null; then
  gpu_name=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  if [[ -z "$arch" ]]; then
    # compute_cap is "9.0" -> 90 (older drivers lack the field: fall back below).
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  fi
fi
if [[ -z "$gpu_name" ]]; then
  if [[ $dry_run -eq 0 ]]; then
    echo "SKIPPED: no NVIDIA GPU (nvidia-smi $(command -v nvidia-smi >/dev/null && echo 'lists none' || echo 'not found')):" \
         "nothing to check here. --dry-run goes through every step anyway."
    exit 0
  fi
  gpu_name="none (dry run)"
fi
if [[ ! "$arch" =~ ^[0-9]+$ ]]; then
  [[ $dry_run -eq 0 ]] && echo "gpu_check: cannot detect the GPU's architecture; using sm_75 (override with --arch)" >&2
  arch=75
fi

for tool in cmake ninja ctest python3; do
  command -v "$tool" >/dev/null || die "$tool not found (tools/setup.sh installs the build tools)"
done
if ! command -v nvcc >/dev/null; then
  [[ -x /usr/local/cuda/bin/nvcc ]] || die "nvcc not found: install the CUDA toolkit or put it on PATH"
  export PATH="/usr/local/cuda/bin:${PATH}"
fi
[[ -d "$SLUICE_SHARED_DIR/models" ]] || die "no models in $SLUICE_SHARED_DIR/models (set SLUICE_SHARED_DIR)"

started=$SECONDS
echo "== GPU:   ${gpu_name}"
echo "== nvcc:  $(nvcc --version | tail -1)"
echo "== host:  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')"
echo "== arch:  sm_${arch}    build: ${build}    $(date -u '+%F %T UTC')"

# --- Rows of the final table --------------------------------------------------
rows=()
failed=0 skipped=0
row() {  # row SECTION ITEM RESULT [SECONDS]
  rows+=("$(printf '%-10s %-50s %-28s %8s' "$1" "$2" "$3" "${4:-}")")
  case "$3" in
    Passed|done|ok*) ;;
    # (Not Run: the test's executable is missing; only a dry run on an
    # unbuilt folder may have that.)
    "Not Run"*) if [[ $dry_run -eq 1 ]]; then skipped=$((skipped + 1)); else failed=$((failed + 1)); fi ;;
    Skipped*|skipped*) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
}

# --- 1. Configure and build ---------------------------------------------------
log="${build}/gpu_check_build.txt"
if [[ $do_build -eq 1 ]]; then
  cfg=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSLUICE_CUDA=ON
       -DCMAKE_CUDA_ARCHITECTURES="$arch")
  if ! cmake "${cfg[@]}" -DSLUICE_BUILD_BENCH="$([[ $bench -eq 1 ]] && echo ON || echo OFF)" >"$log" 2>&1; then
    # Google benchmark missing: the tests still make sense.
    if [[ $bench -eq 1 ]] && grep -qi "benchmark" "$log" &&
       cmake "${cfg[@]}" -DSLUICE_BUILD_BENCH=OFF >>"$log" 2>&1; then
      echo "gpu_check: configured without benchmarks (Google benchmark not found; see $log)" >&2
      row build "benchmarks (Google benchmark missing)" "FAILED"
    else
      tail -30 "$log"
      die "configure failed (full log: $log)"
    fi
  fi
fi
[[ -f "$build/CTestTestfile.cmake" ]] || die "$build is not a configured build folder"

# Test executables of the two labels that are targets (script tests are not),
# the CLI the script tests and benchmarks run, the Python module, the benchmarks.
mapfile -t label_tests < <(ctest --test-dir "$build" -N -L '^(gpu|gpu_fake)$' 2>/dev/null |
                           sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*/\1/p')
[[ ${#label_tests[@]} -gt 0 ]] || die "no test carries the label gpu or gpu_fake (a build without CUDA?)"
mapfile -t known < <(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's/^\([^:/]*\): .*/\1/p' | sort -u)
targets=()
for t in "${label_tests[@]%_lazy}" "${label_tests[@]}" sluice sluice_python sluice_python_files \
         hands_fps_bench gpu_image_bench; do
  if printf '%s\n' "${known[@]}" | grep -qxF "$t" && ! printf '%s\n' "${targets[@]}" | grep -qxF "$t"; then
    targets+=("$t")
  fi
done
if [[ $do_build -eq 1 ]]; then
  echo "== building ${#targets[@]} targets (log: $log)"
  t0=$SECONDS
  if ! cmake --build "$build" -j "$jobs" --target "${targets[@]}" >>"$log" 2>&1; then
    grep -E "error|FAILED" "$log" | head -30
    die "build failed (full log: $log)"
  fi
  row build "${#targets[@]} targets, sm_${arch}" done $((SECONDS - t0))
fi

# --- 2. ctest -L gpu / gpu_fake -----------------------------------------------
out="${build}/gpu_check_ctest.txt"
echo "== ctest -L gpu|gpu_fake (${#label_tests[@]} tests, output: $out)"
ctest --test-dir "$build" -L '^(gpu|gpu_fake)$' -j "$jobs" --output-on-failure >"$out" 2>&1
# "1/2 Test #18: gpu_service_test ....   Passed    0.31 sec" or "***Failed",
# "***Skipped", "***Exception: SegFault", "***Timeout".
re='Test +#[0-9]+: ([^ ]+) \.*[ *]*([A-Za-z][^0-9]*[A-Za-z:)]) +([0-9.]+) sec'
nresults=0
while IFS= read -r line; do
  if [[ "$line" =~ $re ]]; then
    row ctest "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
    nresults=$((nresults + 1))
  fi
done <"$out"
[[ $nresults -gt 0 ]] || row ctest "(no result in $out)" FAILED

# --- 3. pytest: Hands(device="cuda") vs "cpu" ---------------------------------
py=$(sed -n 's/^_\{0,1\}Python_EXECUTABLE[^=]*=//p' "$build/CMakeCache.txt" | head -1)
[[ -x "$py" ]] || py=python3
pyout="${build}/gpu_check_pytest.txt"
t0=$SECONDS
if ! ls "$build"/python/sluice/_sluice*.so >/dev/null 2>&1; then
  row pytest test_hands_cuda.py "skipped (no module)"
elif ! "$py" -c "import pytest, numpy, cv2" 2>/dev/null; then
  row pytest test_hands_cuda.py "skipped (no pytest/numpy/cv2 for $py)"
else
  PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "$py" -m pytest -q -rs -p no:cacheprovider \
    "$root/python/tests/test_hands_cuda.py" >"$pyout" 2>&1
  rc=$?
  summary=$(tail -n1 "$pyout" | sed 's/=//g; s/^ *//; s/ *$//')
  if [[ $rc -ne 0 ]]; then row pytest test_hands_cuda.py "FAILED" $((SECONDS - t0))
  elif grep -q "^SKIPPED" "$pyout"; then row pytest "test_hands_cuda.py: $summary" "skipped" $((SECONDS - t0))
  else row pytest "test_hands_cuda.py: $summary" Passed $((SECONDS - t0)); fi
fi

# --- 4-6. Benchmarks ------------------------------------------------------------
bench_step() {  # bench_step NAME OUTFILE COMMAND...: runs it (10 min at most), shows its output
  local name="$1" file="$2"; shift 2
  local t0=$SECONDS rc
  echo
  echo "== $name"
  timeout 600 "$@" >"$file" 2>&1
  rc=$?
  cat "$file"
  if [[ $rc -ne 0 ]]; then row bench "$name" "FAILED (exit $rc)" $((SECONDS - t0))
  elif grep -q "^SKIP:" "$file"; then row bench "$name" "skipped (no device)" $((SECONDS - t0))
  else row bench "$name" done $((SECONDS - t0)); fi
}
if [[ $bench -eq 1 ]]; then
  sluice_bin="$build/tools/sluice"
  bench_step "cuda backend per model (bench_cuda_models.py)" "$build/gpu_check_models.txt" \
    python3 "$root/bench/gpu/bench_cuda_models.py" --sluice "$sluice_bin"
  if [[ -x "$build/bench/hands_fps_bench" ]]; then
    bench_step "hand tracking fps, 1280x720 (bench_hands_gpu.sh)" "$build/gpu_check_hands.txt" \
      bash "$root/bench/hands/bench_hands_gpu.sh" "$build/bench/hands_fps_bench"
  else
    row bench "hand tracking fps" "FAILED (not built)"
  fi
  if [[ -x "$build/gpu/gpu_image_bench" ]]; then
    t0=$SECONDS
    bench_step "image kernels (gpu_image_bench)" "$build/gpu_check_image_bench.txt" \
      "$build/gpu/gpu_image_bench" --benchmark_min_time=0.2
    # Its rows report errors (no device) instead of failing: count them as skips.
    if grep -q "ERROR OCCURRED" "$build/gpu_check_image_bench.txt"; then
      unset 'rows[${#rows[@]}-1]'
      row bench "image kernels (gpu_image_bench)" "skipped (row errors)" $((SECONDS - t0))
    fi
  else
    row bench "image kernels (gpu_image_bench)" "FAILED (not built)"
  fi
fi

# --- The table --------------------------------------------------------------------
echo
echo "== summary: GPU ${gpu_name}, sm_${arch}, $((SECONDS - started)) s"
printf '%-10s %-50s %-28s %8s\n' step item result "time (s)"
printf '%-10s %-50s %-28s %8s\n' ---- ---- ------ --------
printf '%s\n' "${rows[@]}"
echo "failed ${failed}, skipped ${skipped}; outputs: ${build}/gpu_check_*.txt"

if [[ $failed -gt 0 ]]; then
  echo "---- failed ----"
  printf '%s\n' "${rows[@]}" | grep -vE '  (Passed|done|ok|Skipped|skipped)'
  echo "---- from the ctest output ($out) ----"
  grep -E "Failure|FAIL:|error|Expected|Which is|Value of|Actual" "$out" | head -40
  exit 1
fi
if [[ $skipped -gt 0 && $dry_run -eq 0 && $allow_skip -eq 0 ]]; then
  echo "gpu_check: ${skipped} step(s) skipped although a GPU is present (see the files above; --allow-skip to accept)" >&2
  grep -h "SKIP" "$build/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u | head -5 >&2
  exit 1
fi
[[ $dry_run -eq 1 ]] && echo "dry run: the GPU steps above were skipped (no GPU); nothing failed"
exit 0
