#!/usr/bin/env bash
# End-to-end pose tracking speed: `sluice pose` vs Google's package
# (mediapipe==0.10.21, mp.solutions.pose) on the same 640x480 video, per
# model complexity, in one run.
#
#   bench/pose/bench_pose.sh [SLUICE_BIN] [VIDEO]
#     REPEAT=N (default 2)  COMPLEXITIES="0 1 2" (default)  SEGMENTATION=1 (default 0)
#
# Settings on both sides: tracking mode, landmark smoothing on (MediaPipe's
# defaults), confidences 0.5, segmentation off unless SEGMENTATION=1 (then on,
# with mask smoothing, and no masks written), no output video, landmarks
# (JSONL) to /tmp. Video decoding is included on both sides (ours: Debian's
# OpenCV/FFmpeg; Google's: the cv2 wheel that ships with mediapipe, BGR->RGB).
# fps = frames / wall seconds of the whole command (process start, model load,
# decode, inference, JSON), so process start-up counts too; the oracle's own
# in-loop fps (without Python import and graph set-up) is printed as well.
# Default video: a 10 s, 300-frame clip made by tools/fetch_sample.sh from
# ../shared/testdata/hands/four_077fa4bf.jpg (a person from the knees up).
# Each side runs REPEAT times per complexity, alternating; each keeps its best.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
VIDEO="${2:-}"
REPEAT="${REPEAT:-2}"
COMPLEXITIES="${COMPLEXITIES:-0 1 2}"
SEGMENTATION="${SEGMENTATION:-0}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/sluice_bench_pose.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

die() { echo "bench_pose: $*" >&2; exit 1; }
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "REPEAT must be a positive integer, got '$REPEAT'"
for c in $COMPLEXITIES; do
  [[ "$c" =~ ^[012]$ ]] || die "COMPLEXITIES holds 0, 1 or 2, got '$c'"
done
[ -x "$SLUICE" ] && "$SLUICE" --help 2>/dev/null | grep -qE '^ +pose( |$)' \
  || die "'$SLUICE pose' is not built"
if [ -z "$VIDEO" ]; then
  VIDEO="$(cd "$REPO" && tools/fetch_sample.sh --seconds 10 \
    --image "$SHARED/testdata/hands/four_077fa4bf.jpg" \
    --output "$REPO/samples/pose_640x480_10s.mp4" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || die "no video ($VIDEO)"
setup="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)" || true
PY="$(tail -n1 <<<"$setup")"
if grep -q '^SKIP:' <<<"$setup" || [ ! -x "$PY" ]; then
  die "no mediapipe oracle: $setup"
fi
# Both sides read the same model files (the oracle's wheel lacks the lite and
# heavy landmark models and would download them).
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"

now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }
poses_of() { python3 -c 'import json,sys; print(sum(len(json.loads(l)["poses"]) for l in open(sys.argv[1])))' "$1"; }
SEG=(); [ "$SEGMENTATION" = 1 ] && SEG=(--segmentation)
results=()
for c in $COMPLEXITIES; do
  ARGS=(--model-complexity "$c" --min-detection-confidence 0.5 --min-tracking-confidence 0.5 ${SEG[@]+"${SEG[@]}"})
  best_ours="" best_google="" google_loop=""
  for ((i = 1; i <= REPEAT; i++)); do
    t0=$(now)
    "$SLUICE" pose --input "$VIDEO" --landmarks "$OUT/sluice.jsonl" "${ARGS[@]}" >"$OUT/sluice.log" 2>&1 \
      || { tail -n5 "$OUT/sluice.log" >&2; die "sluice pose failed (complexity $c)"; }
    t1=$(now)
    "$PY" "$REPO/tests/pose/mediapipe_pose_oracle.py" --input "$VIDEO" --output "$OUT/google.jsonl" \
      --models "$MODELS" "${ARGS[@]}" --stats 2>"$OUT/google.log" \
      || { tail -n5 "$OUT/google.log" >&2; die "the mediapipe run failed (complexity $c)"; }
    t2=$(now)
    ours=$(calc "$t1 - $t0"); google=$(calc "$t2 - $t1")
    printf 'complexity %s, run %d: sluice %.2f s, mediapipe %.2f s\n' "$c" "$i" "$ours" "$google"
    if [ -z "$best_ours" ] || [ "$(calc "$ours < $best_ours")" = 1 ]; then best_ours=$ours; fi
    if [ -z "$best_google" ] || [ "$(calc "$google < $best_google")" = 1 ]; then
      best_google=$google
      google_loop="$(grep -o 'fps=[0-9.]*' "$OUT/google.log" | cut -d= -f2)"
    fi
  done
  frames_ours=$(wc -l < "$OUT/sluice.jsonl")
  frames_google=$(wc -l < "$OUT/google.jsonl")
  fps_ours=$(calc "$frames_ours / $best_ours")
  fps_google=$(calc "$frames_google / $best_google")
  [ "$frames_ours" = "$frames_google" ] || echo "warning: frame counts differ ($frames_ours vs $frames_google)"
  results+=("$(printf 'complexity %s  sluice %4d frames %6.2f s %7.1f fps (%s poses) | mediapipe %4d frames %6.2f s %7.1f fps (%s poses; in-loop %s fps) | ratio %.2fx' \
    "$c" "$frames_ours" "$best_ours" "$fps_ours" "$(poses_of "$OUT/sluice.jsonl")" \
    "$frames_google" "$best_google" "$fps_google" "$(poses_of "$OUT/google.jsonl")" "$google_loop" \
    "$(calc "$fps_ours / $fps_google")")")
  results+=("  sluice summary: $(grep -E '^pose:' "$OUT/sluice.log" | tail -n1)")
done

echo
echo "video: $VIDEO ($frames_google frames, 640x480); tracking, smoothing on, segmentation $([ "$SEGMENTATION" = 1 ] && echo on || echo off);"
echo "  decode + inference + landmarks JSONL, whole command, best of $REPEAT, $(nproc) cores"
printf '%s\n' "${results[@]}"
