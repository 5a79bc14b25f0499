#!/usr/bin/env bash
# End-to-end selfie segmentation speed: `sluice selfie` vs Google's package
# (mediapipe==0.10.21, mp.solutions.selfie_segmentation) on the same 640x480
# video, in one run.
#
#   bench/selfie_segmentation/bench_selfie.sh [SLUICE_BIN] [VIDEO]
#
# Settings on both sides: model_selection $MODEL (default 0; MODEL=1 for the
# landscape model), no smoothing (Google's solution has none), the models of
# ../shared/models, masks computed for every frame and not written. Video
# decoding is included on both sides (ours: Debian's OpenCV/FFmpeg; Google's:
# the cv2 wheel, BGR->RGB). fps = frames / wall seconds of the whole command
# (process start, model load, decode, inference); the oracle's in-loop fps
# (without Python import and graph set-up) is printed too. Default video: a
# 10 s, 300-frame clip of ../shared/testdata/images/sergey.png made by
# tools/fetch_sample.sh. REPEAT=N (default 2) runs each side N times,
# alternating, and keeps each side's best.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
VIDEO="${2:-}"
REPEAT="${REPEAT:-2}"
MODEL="${MODEL:-0}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/sluice_bench_selfie.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

[ -x "$SLUICE" ] && "$SLUICE" --help 2>/dev/null | grep -qE '^ +selfie( |$)' \
  || { echo "bench_selfie: '$SLUICE selfie' is not built" >&2; exit 1; }
if [ -z "$VIDEO" ]; then
  VIDEO="$(cd "$REPO" && tools/fetch_sample.sh --seconds 10 --image "$SHARED/testdata/images/sergey.png" \
    --output "$REPO/samples/selfie_640x480_10s.mp4" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || { echo "bench_selfie: no video ($VIDEO)" >&2; exit 1; }
setup="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)" || true
PY="$(tail -n1 <<<"$setup")"
if grep -q '^SKIP:' <<<"$setup" || [ ! -x "$PY" ]; then
  echo "bench_selfie: no mediapipe oracle: $setup" >&2; exit 1
fi

now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }
best_ours="" best_google="" google_loop="" frames_google=0
for ((i = 1; i <= REPEAT; i++)); do
  t0=$(now)
  "$SLUICE" selfie --input "$VIDEO" --model-selection "$MODEL" >"$OUT/sluice.log" 2>&1 \
    || { echo "bench_selfie: sluice selfie failed:" >&2; tail -n5 "$OUT/sluice.log" >&2; exit 1; }
  t1=$(now)
  "$PY" "$REPO/tests/selfie_segmentation/mediapipe_selfie_oracle.py" --input "$VIDEO" \
    --model-selection "$MODEL" --models "$MODELS" --stats 2>"$OUT/google.log" \
    || { echo "bench_selfie: the mediapipe run failed:" >&2; tail -n5 "$OUT/google.log" >&2; exit 1; }
  t2=$(now)
  ours=$(calc "$t1 - $t0"); google=$(calc "$t2 - $t1")
  printf 'run %d: sluice %.2f s, mediapipe %.2f s\n' "$i" "$ours" "$google"
  if [ -z "$best_ours" ] || [ "$(calc "$ours < $best_ours")" = 1 ]; then best_ours=$ours; fi
  if [ -z "$best_google" ] || [ "$(calc "$google < $best_google")" = 1 ]; then
    best_google=$google
    google_loop="$(grep -o 'fps=[0-9.]*' "$OUT/google.log" | cut -d= -f2)"
    frames_google="$(grep -o 'frames=[0-9]*' "$OUT/google.log" | cut -d= -f2)"
  fi
done

frames_ours="$(grep -oE '^selfie: [0-9]+ frames' "$OUT/sluice.log" | grep -oE '[0-9]+')"
fps_ours=$(calc "$frames_ours / $best_ours")
fps_google=$(calc "$frames_google / $best_google")
echo "video: $VIDEO ($frames_google frames); model_selection $MODEL, no smoothing;"
echo "  decode + segmentation, whole command, best of $REPEAT, $(nproc) cores"
printf 'sluice selfie:       %4d frames %6.2f s %7.1f fps\n' "$frames_ours" "$best_ours" "$fps_ours"
printf 'mediapipe 0.10.21:   %4d frames %6.2f s %7.1f fps (in-loop %s fps)\n' \
  "$frames_google" "$best_google" "$fps_google" "$google_loop"
printf 'ratio sluice/mediapipe: %.2fx\n' "$(calc "$fps_ours / $fps_google")"
loop_ours="$(grep -E '^selfie:' "$OUT/sluice.log" | grep -oE '[0-9.]+ fps' | head -n1 | cut -d' ' -f1)"
[ -n "$loop_ours" ] && [ -n "$google_loop" ] && printf \
  'in-loop (after start-up and model load): sluice %s fps, mediapipe %s fps, ratio %.2fx\n' \
  "$loop_ours" "$google_loop" "$(calc "$loop_ours / $google_loop")"
[ "$frames_ours" = "$frames_google" ] || echo "warning: frame counts differ ($frames_ours vs $frames_google)"
grep -E '^selfie:' "$OUT/sluice.log" | tail -n1 | sed 's/^/sluice summary: /' || true
