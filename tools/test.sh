#!/usr/bin/env bash
# Sets up, builds and runs every test: the one command for "does it all work?".
#   bash tools/test.sh            # Release build in build/
#   SLUICE_SANITIZE=address bash tools/test.sh   # ASan+UBSan build in build-address/
#   SLUICE_SANITIZE=thread  bash tools/test.sh   # TSan build in build-thread/
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh

san="${SLUICE_SANITIZE:-}"
build="${SLUICE_BUILD_DIR:-build${san:+-$san}}"
jobs="${SLUICE_JOBS:-$(nproc)}"

# ccache keys on paths relative to the checkout, so a clone in another folder
# (CI's) reuses the objects of an earlier build on the same machine.
export CCACHE_BASEDIR="$PWD"

cmake_args=(-S . -B "$build" -G Ninja -DSLUICE_SANITIZE="$san")
if [ -n "$san" ]; then cmake_args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo); fi
# CI builds one CUDA architecture to keep the build short.
if [ "${CI:-}" = "true" ]; then cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES=75); fi

# TSan: uninstrumented system libraries whose synchronisation TSan cannot see.
if [ "$san" = "thread" ]; then
  export TSAN_OPTIONS="suppressions=$PWD/tools/tsan_suppressions.txt ${TSAN_OPTIONS:-}"
fi

cmake "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" ${SLUICE_CTEST_ARGS:-}
