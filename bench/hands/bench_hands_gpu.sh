#!/usr/bin/env bash
# Hand tracking fps on pre-decoded 1280x720 frames: the cuda backend
# (HandTracker device "cuda", what `sluice hands --device cuda` runs) vs our CPU
# path, on the same host, one hand, tracking mode and static mode (palm
# detection on every frame).
#
#   bench/hands/bench_hands_gpu.sh [BENCH_BIN] [VIDEO]
#
# BENCH_BIN: hands_fps_bench (default build/bench/hands_fps_bench; built with
# SLUICE_BUILD_BENCH=ON). VIDEO: default samples/hand_640x480_10s.mp4
# (tools/fetch_sample.sh --seconds 10), decoded once and scaled to SIZE.
# Env: FRAMES (default 300), WARMUP (default 20), SIZE (default 1280x720),
# COMPLEXITY (default 1), SLUICE_MODELS_DIR as for `sluice hands`.
# Timing excludes decoding (see hands_fps_bench.cc). Prints one row per run
# and the cuda/cpu ratio per mode.
# Exit: 0 done, or CUDA skipped (no usable CUDA GPU: the CPU rows are printed
# and a line starting "SKIP:" says why); 1 a run failed; 2 bad setup.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${1:-$REPO/build/bench/hands_fps_bench}"
VIDEO="${2:-}"
FRAMES="${FRAMES:-300}"
WARMUP="${WARMUP:-20}"
SIZE="${SIZE:-1280x720}"
COMPLEXITY="${COMPLEXITY:-1}"

[ -x "$BIN" ] || { echo "bench_hands_gpu: no $BIN (build the hands_fps_bench target)" >&2; exit 2; }
if [ -z "$VIDEO" ]; then
  VIDEO="$REPO/samples/hand_640x480_10s.mp4"
  [ -s "$VIDEO" ] || VIDEO="$("$REPO/tools/fetch_sample.sh" --seconds 10 --output "$VIDEO" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || { echo "bench_hands_gpu: no video ($VIDEO; tools/fetch_sample.sh makes it)" >&2; exit 2; }

echo "hand tracking on pre-decoded frames: $(basename "$VIDEO") scaled to $SIZE, $FRAMES frames" \
     "after $WARMUP warm-up, max 1 hand, complexity $COMPLEXITY, $(nproc) cores"
printf '%-6s %-9s %9s %8s %7s\n' device mode fps ms/frame hands
declare -A FPS
rc=0 skip=""
for device in cpu cuda; do
  for mode in tracking static; do
    flags=(--input "$VIDEO" --device "$device" --size "$SIZE" --frames "$FRAMES" --warmup "$WARMUP"
           --max-hands 1 --model-complexity "$COMPLEXITY")
    [ "$mode" = static ] && flags+=(--static)
    out="$("$BIN" "${flags[@]}" 2>&1)"
    status=$?
    if [ "$status" = 77 ]; then skip="$(grep -m1 '^SKIP:' <<<"$out")"; break; fi
    line="$(tail -n1 <<<"$out")"
    if [ "$status" != 0 ] || [[ ! "$line" =~ fps=([0-9.]+)\ hands=([0-9]+) ]]; then
      echo "bench_hands_gpu: $device $mode failed: $(tail -n3 <<<"$out")" >&2; rc=1; continue
    fi
    fps="${BASH_REMATCH[1]}"; hands="${BASH_REMATCH[2]}"
    FPS[$device.$mode]="$fps"
    printf '%-6s %-9s %9.1f %8.2f %7s\n' "$device" "$mode" "$fps" "$(awk "BEGIN{print 1000/$fps}")" "$hands"
  done
done
for mode in tracking static; do
  if [ -n "${FPS[cuda.$mode]:-}" ] && [ -n "${FPS[cpu.$mode]:-}" ]; then
    printf 'cuda/cpu %-9s %.2fx\n' "$mode" "$(awk "BEGIN{print ${FPS[cuda.$mode]}/${FPS[cpu.$mode]}}")"
  fi
done
[ -n "$skip" ] && echo "$skip"
exit "$rc"
