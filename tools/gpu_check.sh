#!/usr/bin/env bash
# Builds Sluice with CUDA for this machine's GPU, runs the `gpu`-labelled tests
# and prints a short table (test, result, time). Meant for a machine with an
# NVIDIA GPU (e.g. through the `device` tool); exits non-zero when a test fails,
# when nothing ran, or when tests were skipped (no usable device) unless
# --allow-skip is given. With --bench it also runs the GPU benchmarks
# (gpu/gpu_image_bench) after the tests and prints their table.
#
# Usage: tools/gpu_check.sh [--build-dir DIR] [--arch SM] [--jobs N] [--allow-skip] [--bench]
#   --arch SM   CUDA architecture, e.g. 90; default: from nvidia-smi, else 75.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${root}/build-gpu"
arch=""
jobs=$(nproc 2>/dev/null || echo 4)
allow_skip=0
bench=0

die() { echo "gpu_check: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --allow-skip) allow_skip=1; shift ;;
    --bench) bench=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

for tool in cmake ninja ctest; do
  command -v "$tool" >/dev/null || die "$tool not found (tools/setup.sh installs the build tools)"
done
if ! command -v nvcc >/dev/null; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH="/usr/local/cuda/bin:${PATH}"
  else
    die "nvcc not found: install the CUDA toolkit or put it on PATH"
  fi
fi

gpu_name="(nvidia-smi not found)"
if command -v nvidia-smi >/dev/null; then
  gpu_name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
  if [[ -z "$arch" ]]; then
    # compute_cap is "9.0" -> 90 (older drivers lack the field: fall back below).
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  fi
fi
if [[ ! "$arch" =~ ^[0-9]+$ ]]; then
  echo "gpu_check: cannot detect the GPU's architecture; using sm_75 (override with --arch)" >&2
  arch=75
fi

echo "== GPU:   ${gpu_name}"
echo "== nvcc:  $(nvcc --version | tail -1)"
echo "== arch:  sm_${arch}    build: ${build}"

mkdir -p "$build" || die "cannot create $build"
log="${build}/gpu_check_build.log"
# Benchmarks (Google benchmark) only when asked: one dependency less to need.
bench_flag=OFF
[[ $bench -eq 1 ]] && bench_flag=ON
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSLUICE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" -DSLUICE_BUILD_BENCH="$bench_flag" >"$log" 2>&1; then
  tail -30 "$log"
  die "configure failed (full log: $log)"
fi

mapfile -t tests < <(ctest --test-dir "$build" -N -L '^gpu$' 2>/dev/null |
                     sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*/\1/p')
[[ ${#tests[@]} -gt 0 ]] || die "no test carries the label gpu"
echo "== building ${#tests[@]} test(s): ${tests[*]}"
if ! cmake --build "$build" -j "$jobs" --target "${tests[@]}" >>"$log" 2>&1; then
  grep -E "error|FAILED" "$log" | head -30
  die "build failed (full log: $log)"
fi

out="${build}/gpu_check_ctest.txt"
# Verbose: the tests' own output (failures, skip reasons) lands in $out too.
ctest --test-dir "$build" -L '^gpu$' -V >"$out" 2>&1
ctest_rc=$?

# Lines like "1/2 Test #18: gpu_service_test ....   Passed    0.31 sec" or
# "... ***Failed    1.02 sec" / "***Skipped" / "***Exception: SegFault  0.10 sec".
printf '\n%-40s %-20s %10s\n' "test" "result" "time (s)"
printf '%-40s %-20s %10s\n' "----" "------" "--------"
passed=0 failed=0 skipped=0
re='Test +#[0-9]+: ([^ ]+) \.*[ *]*([A-Za-z][^0-9]*[A-Za-z:)]) +([0-9.]+) sec'
while IFS= read -r line; do
  if [[ "$line" =~ $re ]]; then
    name="${BASH_REMATCH[1]}" result="${BASH_REMATCH[2]}" secs="${BASH_REMATCH[3]}"
    printf '%-40s %-20s %10s\n' "$name" "$result" "$secs"
    case "$result" in
      Passed) passed=$((passed + 1)) ;;
      Skipped|"Not Run"*) skipped=$((skipped + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  fi
done <"$out"
echo
echo "passed ${passed}, failed ${failed}, skipped ${skipped}  (ctest output: ${out})"

bench_rc=0
if [[ $bench -eq 1 ]]; then
  echo
  echo "== benchmarks (gpu/gpu_image_bench)"
  if cmake --build "$build" -j "$jobs" --target gpu_image_bench >>"$log" 2>&1; then
    "${build}/gpu/gpu_image_bench" 2>&1 | tee "${build}/gpu_check_bench.txt" | grep -v "^\*\*\*"
    bench_rc=${PIPESTATUS[0]}
    if grep -q "ERROR OCCURRED" "${build}/gpu_check_bench.txt"; then bench_rc=1; fi
  else
    echo "gpu_check: gpu_image_bench did not build (Google benchmark missing?), see $log" >&2
    bench_rc=1
  fi
fi

if [[ $failed -gt 0 || ( $ctest_rc -ne 0 && $passed -eq 0 && $skipped -eq 0 ) ]]; then
  echo "---- failures ----"
  grep -E "Failure|FAILED|error|Expected|Which is|Value of|Actual" "$out" | head -60
  exit 1
fi
if [[ $((passed + skipped)) -eq 0 ]]; then
  echo "gpu_check: no test result found in the ctest output" >&2
  exit 1
fi
if [[ $skipped -gt 0 && $allow_skip -eq 0 ]]; then
  echo "gpu_check: ${skipped} test(s) skipped: no usable CUDA device? (see ${out}; --allow-skip to accept)" >&2
  grep -h "SKIPPED" "$out" | sed 's/^[0-9]*: //' | sort -u | head -5 >&2
  exit 1
fi
if [[ $bench_rc -ne 0 ]]; then
  echo "gpu_check: the benchmarks failed or reported errors" >&2
  exit 1
fi
exit 0
