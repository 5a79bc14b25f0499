#!/usr/bin/env bash
# End-to-end face detection speed: `sluice face` vs Google's package
# (mediapipe==0.10.21, mp.solutions.face_detection) on the same 640x480 video.
#
#   bench/face_detection/bench_face.sh [SLUICE_BIN] [VIDEO]
#
# Settings on both sides, for model_selection 0 (short range) and 1 (full
# range): default thresholds, no output video, detections (JSONL) to /tmp, the
# same model files (../shared/models; the oracle's --models). Video decoding is
# included on both sides (ours: Debian's OpenCV/FFmpeg; Google's: the cv2 wheel
# that ships with mediapipe, BGR->RGB as its examples do). fps = frames / wall
# seconds of the whole command (process start, model load, decode, inference,
# JSON). In-loop fps (without start-up: Python import / graph set-up) are
# printed too: the oracle's own, and ours from `sluice face`'s summary line.
# Default video: a 10 s, 300-frame clip of the portrait
# ../shared/testdata/images/sergey.png made by tools/fetch_sample.sh.
# REPEAT=N (default 3) runs each side N times, alternating, and keeps each
# side's best.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
VIDEO="${2:-}"
REPEAT="${REPEAT:-3}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/sluice_bench_face.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

[ -x "$SLUICE" ] && "$SLUICE" --help 2>/dev/null | grep -qE '^ +face( |$)' \
  || { echo "bench_face: '$SLUICE face' is not built" >&2; exit 1; }
if [ -z "$VIDEO" ]; then
  VIDEO="$(cd "$REPO" && tools/fetch_sample.sh --seconds 10 --image "$SHARED/testdata/images/sergey.png" \
    --output "$REPO/samples/face_640x480_10s.mp4" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || { echo "bench_face: no video ($VIDEO)" >&2; exit 1; }
setup="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)" || true
PY="$(tail -n1 <<<"$setup")"
if grep -q '^SKIP:' <<<"$setup" || [ ! -x "$PY" ]; then
  echo "bench_face: no mediapipe oracle: $setup" >&2; exit 1
fi

now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }
faces_of() { python3 -c 'import json,sys; print(sum(len(json.loads(l)["faces"]) for l in open(sys.argv[1])))' "$1"; }
echo "video: $VIDEO; decode + detection + JSONL, whole command, best of $REPEAT, $(nproc) cores"
for m in 0 1; do
  best_ours="" best_google="" google_loop=""
  for ((i = 1; i <= REPEAT; i++)); do
    t0=$(now)
    "$SLUICE" face --input "$VIDEO" --landmarks "$OUT/sluice.jsonl" --model-selection "$m" \
      >"$OUT/sluice.log" 2>&1 \
      || { echo "bench_face: sluice face failed:" >&2; tail -n5 "$OUT/sluice.log" >&2; exit 1; }
    t1=$(now)
    "$PY" "$REPO/tests/face_detection/mediapipe_face_oracle.py" --input "$VIDEO" \
      --output "$OUT/google.jsonl" --model-selection "$m" --models "$MODELS" --stats \
      2>"$OUT/google.log" \
      || { echo "bench_face: the mediapipe run failed:" >&2; tail -n5 "$OUT/google.log" >&2; exit 1; }
    t2=$(now)
    ours=$(calc "$t1 - $t0"); google=$(calc "$t2 - $t1")
    printf 'model_selection %d run %d: sluice %.2f s, mediapipe %.2f s\n' "$m" "$i" "$ours" "$google"
    if [ -z "$best_ours" ] || [ "$(calc "$ours < $best_ours")" = 1 ]; then
      best_ours=$ours
      cp "$OUT/sluice.log" "$OUT/sluice_best.log"
    fi
    if [ -z "$best_google" ] || [ "$(calc "$google < $best_google")" = 1 ]; then
      best_google=$google
      google_loop="$(grep -o 'fps=[0-9.]*' "$OUT/google.log" | cut -d= -f2)"
    fi
  done
  frames_ours=$(wc -l < "$OUT/sluice.jsonl")
  frames_google=$(wc -l < "$OUT/google.jsonl")
  fps_ours=$(calc "$frames_ours / $best_ours")
  fps_google=$(calc "$frames_google / $best_google")
  echo "model_selection $m ($([ "$m" = 0 ] && echo short || echo full) range):"
  printf '  sluice face:         %4d frames %6.2f s %7.1f fps (%s faces)\n' \
    "$frames_ours" "$best_ours" "$fps_ours" "$(faces_of "$OUT/sluice.jsonl")"
  printf '  mediapipe 0.10.21:   %4d frames %6.2f s %7.1f fps (%s faces; in-loop %s fps)\n' \
    "$frames_google" "$best_google" "$fps_google" "$(faces_of "$OUT/google.jsonl")" "$google_loop"
  printf '  ratio sluice/mediapipe: %.2fx\n' "$(calc "$fps_ours / $fps_google")"
  # In-loop: both sides' own frame-loop fps (ours from its summary line), no start-up.
  loop_ours="$(grep -E '^face:' "$OUT/sluice_best.log" | grep -oE '[0-9.]+ fps' | head -n1 | cut -d' ' -f1)"
  if [ -n "$loop_ours" ] && [ -n "$google_loop" ]; then
    printf '  in-loop (no start-up): sluice %s fps, mediapipe %s fps, ratio %.2fx\n' \
      "$loop_ours" "$google_loop" "$(calc "$loop_ours / $google_loop")"
  fi
  [ "$frames_ours" = "$frames_google" ] || echo "  warning: frame counts differ ($frames_ours vs $frames_google)"
  grep -E '^face:' "$OUT/sluice_best.log" | tail -n1 | sed 's/^/  sluice summary: /' || true
done
