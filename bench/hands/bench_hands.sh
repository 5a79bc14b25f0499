#!/usr/bin/env bash
# End-to-end hand tracking speed: `sluice hands` vs Google's package
# (mediapipe==0.10.21, mp.solutions.hands) on the same 640x480 video, in one run.
#
#   bench/hands/bench_hands.sh [SLUICE_BIN] [VIDEO]
#
# Settings on both sides: tracking mode, model_complexity 1, max 2 hands,
# confidences 0.5, no output video, landmarks (JSONL) to /tmp. Video decoding is
# included on both sides (ours: Debian's OpenCV/FFmpeg; Google's: the cv2 wheel
# that ships with mediapipe, BGR->RGB as its examples do). fps = frames / wall
# seconds of the whole command (process start, model load, decode, inference,
# JSON), so process start-up counts too; the oracle's own in-loop fps (without
# Python import and graph set-up) is printed as well. Default video: a 10 s,
# 300-frame clip made by tools/fetch_sample.sh. REPEAT=N (default 2) runs each
# side N times, alternating, and keeps each side's best.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
VIDEO="${2:-}"
REPEAT="${REPEAT:-2}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/sluice_bench_hands.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

[ -x "$SLUICE" ] && "$SLUICE" --help 2>/dev/null | grep -qE '^ +hands( |$)' \
  || { echo "bench_hands: '$SLUICE hands' is not built" >&2; exit 1; }
if [ -z "$VIDEO" ]; then
  VIDEO="$(cd "$REPO" && tools/fetch_sample.sh --seconds 10 \
    --output "$REPO/samples/hand_640x480_10s.mp4" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || { echo "bench_hands: no video ($VIDEO)" >&2; exit 1; }
setup="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)" || true
PY="$(tail -n1 <<<"$setup")"
if grep -q '^SKIP:' <<<"$setup" || [ ! -x "$PY" ]; then
  echo "bench_hands: no mediapipe oracle: $setup" >&2; exit 1
fi

now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }
ARGS=(--max-hands 2 --model-complexity 1 --min-detection-confidence 0.5 --min-tracking-confidence 0.5)
best_ours="" best_google="" google_loop=""
for ((i = 1; i <= REPEAT; i++)); do
  t0=$(now)
  "$SLUICE" hands --input "$VIDEO" --landmarks "$OUT/sluice.jsonl" "${ARGS[@]}" >"$OUT/sluice.log" 2>&1 \
    || { echo "bench_hands: sluice hands failed:" >&2; tail -n5 "$OUT/sluice.log" >&2; exit 1; }
  t1=$(now)
  "$PY" "$REPO/tests/hands/mediapipe_hands_oracle.py" --input "$VIDEO" --output "$OUT/google.jsonl" \
    "${ARGS[@]}" --stats 2>"$OUT/google.log" \
    || { echo "bench_hands: the mediapipe run failed:" >&2; tail -n5 "$OUT/google.log" >&2; exit 1; }
  t2=$(now)
  ours=$(calc "$t1 - $t0"); google=$(calc "$t2 - $t1")
  printf 'run %d: sluice %.2f s, mediapipe %.2f s\n' "$i" "$ours" "$google"
  if [ -z "$best_ours" ] || [ "$(calc "$ours < $best_ours")" = 1 ]; then best_ours=$ours; fi
  if [ -z "$best_google" ] || [ "$(calc "$google < $best_google")" = 1 ]; then
    best_google=$google
    google_loop="$(grep -o 'fps=[0-9.]*' "$OUT/google.log" | cut -d= -f2)"
  fi
done

frames_ours=$(wc -l < "$OUT/sluice.jsonl")
frames_google=$(wc -l < "$OUT/google.jsonl")
hands_of() { python3 -c 'import json,sys; print(sum(len(json.loads(l)["hands"]) for l in open(sys.argv[1])))' "$1"; }
fps_ours=$(calc "$frames_ours / $best_ours")
fps_google=$(calc "$frames_google / $best_google")
echo "video: $VIDEO ($frames_google frames, 640x480); tracking, complexity 1, max 2 hands;"
echo "  decode + inference + landmarks JSONL, whole command, best of $REPEAT, $(nproc) cores"
printf 'sluice hands:        %4d frames %6.2f s %7.1f fps (%s hands)\n' \
  "$frames_ours" "$best_ours" "$fps_ours" "$(hands_of "$OUT/sluice.jsonl")"
printf 'mediapipe 0.10.21:   %4d frames %6.2f s %7.1f fps (%s hands; in-loop %s fps)\n' \
  "$frames_google" "$best_google" "$fps_google" "$(hands_of "$OUT/google.jsonl")" "$google_loop"
printf 'ratio sluice/mediapipe: %.2fx\n' "$(calc "$fps_ours / $fps_google")"
[ "$frames_ours" = "$frames_google" ] || echo "warning: frame counts differ ($frames_ours vs $frames_google)"
grep -E '^hands:' "$OUT/sluice.log" | tail -n1 | sed 's/^/sluice summary: /' || true
