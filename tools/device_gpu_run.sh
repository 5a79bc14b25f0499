#!/usr/bin/env bash
# Runs the GPU tests and benchmarks on a lent GPU machine (the `device` tool)
# from a bundle made here by tools/device_bundle.py: that machine has CUDA but
# none of our Debian build dependencies, so the build happens here and the
# executables travel with their libraries.
#
#   here:   tools/device_bundle.py build-h100 .dev/bundle.tar.xz --models ...
#   there:  bash tools/device_gpu_run.sh .dev/bundle.tar.xz /work/main/build-h100 [STEPS]
#
# BUILD_ABS: the build folder's absolute path on the machine that built it
# (ctest files name it); this script recreates that path and ../shared's
# (/work/shared) as links into the unpacked bundle. STEPS: comma-separated,
# default "info,ctest,pytest,models,hands,image": ctest -L gpu (CTEST_REGEX
# narrows it); pytest python/tests/test_hands_cuda.py; bench_cuda_models.py
# ("ncu", not a default: bench/gpu/ncu_kernels.py on every model carried);
# (the models the bundle holds); bench_hands_gpu.sh; gpu_image_bench.
# Env: NCU_MODELS (comma-separated names) narrows the ncu step;
# GTEST_FILTER passes through (e.g. to leave out a model not carried),
# OUT (default /tmp/device_out): logs land there.
set -uo pipefail
bundle="${1:?bundle .tar.xz}"
build_abs="${2:?the absolute path of the build folder where it was built}"
steps=",${3:-info,ctest,pytest,models,hands,image},"
root=$PWD
out="${OUT:-/tmp/device_out}"
stage=/tmp/sluice_device
mkdir -p "$out"

rm -rf "$stage" && mkdir -p "$stage"
python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$bundle" "$stage" ||
  { echo "device_gpu_run: cannot unpack $bundle"; exit 2; }
src_abs=$(dirname "$build_abs")
if [[ "$src_abs" != "$root" ]]; then
  [[ ! -e "$src_abs" || -L "$src_abs" ]] || { echo "device_gpu_run: $src_abs exists here: not a lent machine?"; exit 2; }
  mkdir -p "$(dirname "$src_abs")" && ln -sfn "$root" "$src_abs"
fi
[[ ! -e "$build_abs" || -L "$build_abs" ]] || { echo "device_gpu_run: $build_abs is a real folder here"; exit 2; }
ln -sfn "$stage/bundle/build" "$root/$(basename "$build_abs")"
shared_abs="$(dirname "$src_abs")/shared"
[[ -e "$shared_abs" && ! -L "$shared_abs" ]] || ln -sfn "$stage/bundle/shared" "$shared_abs"
export LD_LIBRARY_PATH="$stage/bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SLUICE_SHARED_DIR="$shared_abs"
build="$build_abs"

rows=()
row() { rows+=("$(printf '%-8s %-58s %s' "$1" "$2" "$3")"); }
step() { [[ "$steps" == *",$1,"* ]]; }

if step info; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
  grep PRETTY_NAME /etc/os-release; ldd --version | head -1; nproc
  missing=$(ldd "$build/tools/sluice" | grep "not found")
  [[ -z "$missing" ]] || echo "MISSING LIBRARIES: $missing"
fi

if step ctest; then
  t0=$SECONDS
  timeout 440 ctest --test-dir "$build" -L '^gpu$' -R "${CTEST_REGEX:-.}" -j 8 --timeout 420 --output-on-failure >"$out/ctest.txt" 2>&1
  cp "$build/Testing/Temporary/LastTest.log" "$out/ctest_LastTest.log" 2>/dev/null
  grep -E "tests passed|Test +#" "$out/ctest.txt" | sed 's/^ *[0-9]*\/[0-9]* //'
  row ctest "-L gpu" "$(grep -E 'tests passed' "$out/ctest.txt" || echo 'no summary') ($((SECONDS - t0)) s)"
fi

if step pytest; then
  t0=$SECONDS
  PYTHONPATH="$build/python" timeout 300 python3 -m pytest -q -rs -p no:cacheprovider \
    "$root/python/tests/test_hands_cuda.py" >"$out/pytest.txt" 2>&1
  row pytest "test_hands_cuda.py" "exit $? ($(tail -n1 "$out/pytest.txt" | tr -d '='), $((SECONDS - t0)) s)"
  tail -n 30 "$out/pytest.txt"
fi

if step models; then
  only=$(ls "$SLUICE_SHARED_DIR/models" | sed -n 's/\.tflite$//p' | paste -sd,)
  timeout 240 python3 "$root/bench/gpu/bench_cuda_models.py" --sluice "$build/tools/sluice" --only "$only" \
    >"$out/bench_models.txt" 2>&1
  row bench "cuda models (bench_cuda_models.py)" "exit $?"
  cat "$out/bench_models.txt"
fi

if step ncu; then  # not in the default steps: per-kernel times under Nsight Compute
  timeout 300 python3 "$root/bench/gpu/ncu_kernels.py" --sluice "$build/tools/sluice" \
    $(if [[ -n "${NCU_MODELS:-}" ]]; then printf "$SLUICE_SHARED_DIR/models/%s.tflite " ${NCU_MODELS//,/ };
      else ls "$SLUICE_SHARED_DIR"/models/*.tflite; fi) >"$out/ncu.txt" 2>&1
  row ncu "ncu_kernels.py" "exit $?"
  cat "$out/ncu.txt"
fi

if step hands; then
  timeout 180 bash "$root/bench/hands/bench_hands_gpu.sh" "$build/bench/hands_fps_bench" >"$out/bench_hands.txt" 2>&1
  row bench "hands fps (bench_hands_gpu.sh)" "exit $?"
  cat "$out/bench_hands.txt"
fi

if step image; then
  timeout 90 "$build/gpu/gpu_image_bench" --benchmark_min_time=0.2 >"$out/bench_image.txt" 2>&1
  row bench "gpu_image_bench" "exit $?"
  cat "$out/bench_image.txt"
fi

echo "== summary"
printf '%s\n' "${rows[@]}"
