#!/usr/bin/env bash
# End-to-end face mesh speed: `sluice face-mesh` vs Google's package
# (mediapipe==0.10.21, mp.solutions.face_mesh) on the same 640x480 video.
#
#   bench/face_mesh/bench_face_mesh.sh [SLUICE_BIN] [VIDEO]
#
# Settings on both sides, with refine_landmarks off (468 landmarks) and on
# (478, the attention model): tracking mode (static_image_mode false),
# max_num_faces 1, confidences 0.5 (MediaPipe's defaults), no output video,
# landmarks (JSONL) to /tmp, the same model files (../shared/models; the
# oracle's --models: the wheel's own face models are different files). Video
# decoding is included on both sides (ours: Debian's OpenCV/FFmpeg; Google's:
# the cv2 wheel that ships with mediapipe, BGR->RGB as its examples do).
# fps = frames / wall seconds of the whole command (process start, model load,
# decode, inference, JSON); the in-loop fps of both sides (no start-up: Python
# import / graph set-up) are printed too: the oracle's own (--stats), ours from
# the `sluice face-mesh` summary line.
# Default video: a 10 s, 300-frame clip of the portrait
# ../shared/testdata/images/sergey.png made by tools/fetch_sample.sh.
# REPEAT=N (default 3) runs each side N times, alternating, and keeps each
# side's best. SECONDS_OF_VIDEO=S (default 10) sets the default clip's length.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
VIDEO="${2:-}"
REPEAT="${REPEAT:-3}"
CLIP_SECONDS="${SECONDS_OF_VIDEO:-10}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/sluice_bench_face_mesh.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
die() { echo "bench_face_mesh: $*" >&2; exit 1; }

[ -x "$SLUICE" ] && "$SLUICE" --help 2>/dev/null | grep -qE '^ +face-mesh( |$)' \
  || die "'$SLUICE face-mesh' is not built"
if [ -z "$VIDEO" ]; then
  VIDEO="$(cd "$REPO" && tools/fetch_sample.sh --seconds "$CLIP_SECONDS" \
    --image "$SHARED/testdata/images/sergey.png" \
    --output "$REPO/samples/face_640x480_${CLIP_SECONDS}s.mp4" 2>/dev/null | tail -n1)"
fi
[ -s "$VIDEO" ] || die "no video ($VIDEO)"
setup="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)" || true
PY="$(tail -n1 <<<"$setup")"
{ ! grep -q '^SKIP:' <<<"$setup" && [ -x "$PY" ]; } || die "no mediapipe oracle: $setup"

now() { date +%s.%N; }
calc() { awk "BEGIN { print ($1) }"; }
count() {  # count FILE: frames and faces of a landmarks JSONL
  python3 -c 'import json,sys
f=[json.loads(l) for l in open(sys.argv[1])]
print(len(f), sum(len(x["faces"]) for x in f))' "$1"
}

echo "video: $VIDEO; tracking, max 1 face, confidences 0.5; decode + landmarks + JSONL,"
echo "  whole command, best of $REPEAT, $(nproc) cores"
for refine in off on; do
  args=(--max-faces 1 --min-detection-confidence 0.5 --min-tracking-confidence 0.5)
  [ "$refine" = on ] && args+=(--refine-landmarks)
  best_ours="" best_google="" loop_google=""
  for ((run = 1; run <= REPEAT; run++)); do
    t0=$(now)
    "$SLUICE" face-mesh --input "$VIDEO" --landmarks "$OUT/sluice.jsonl" "${args[@]}" \
      >"$OUT/sluice.log" 2>&1 || { tail -n5 "$OUT/sluice.log" >&2; die "sluice face-mesh failed"; }
    t1=$(now)
    "$PY" "$REPO/tests/face_mesh/mediapipe_face_mesh_oracle.py" --input "$VIDEO" \
      --output "$OUT/google.jsonl" "${args[@]}" --models "$MODELS" --stats 2>"$OUT/google.log" \
      || { tail -n5 "$OUT/google.log" >&2; die "the mediapipe run failed"; }
    t2=$(now)
    ours=$(calc "$t1 - $t0") google=$(calc "$t2 - $t1")
    printf 'refine_landmarks %s, run %d: sluice %.2f s, mediapipe %.2f s\n' "$refine" "$run" "$ours" "$google"
    if [ -z "$best_ours" ] || [ "$(calc "$ours < $best_ours")" = 1 ]; then
      best_ours=$ours
      cp "$OUT/sluice.log" "$OUT/sluice_best.log"
    fi
    if [ -z "$best_google" ] || [ "$(calc "$google < $best_google")" = 1 ]; then
      best_google=$google
      loop_google="$(grep -o 'fps=[0-9.]*' "$OUT/google.log" | cut -d= -f2)"
    fi
  done
  read -r frames_ours faces_ours < <(count "$OUT/sluice.jsonl")
  read -r frames_google faces_google < <(count "$OUT/google.jsonl")
  fps_ours=$(calc "$frames_ours / $best_ours")
  fps_google=$(calc "$frames_google / $best_google")
  summary="$(grep -E '^face-mesh:' "$OUT/sluice_best.log" | tail -n1 || true)"
  loop_ours="$(grep -oE '[0-9.]+ fps' <<<"$summary" | head -n1 | cut -d' ' -f1)"
  echo "refine_landmarks $refine ($([ "$refine" = on ] && echo 478 || echo 468) landmarks):"
  printf '  sluice face-mesh:    %4d frames %6.2f s %7.1f fps (%s faces)\n' \
    "$frames_ours" "$best_ours" "$fps_ours" "$faces_ours"
  printf '  mediapipe 0.10.21:   %4d frames %6.2f s %7.1f fps (%s faces; in-loop %s fps)\n' \
    "$frames_google" "$best_google" "$fps_google" "$faces_google" "${loop_google:-?}"
  printf '  ratio sluice/mediapipe: %.2fx\n' "$(calc "$fps_ours / $fps_google")"
  if [ -n "$loop_ours" ] && [ -n "$loop_google" ]; then
    printf '  in-loop (no start-up): sluice %s fps, mediapipe %s fps, ratio %.2fx\n' \
      "$loop_ours" "$loop_google" "$(calc "$loop_ours / $loop_google")"
  fi
  [ "$frames_ours" = "$frames_google" ] || echo "  warning: frame counts differ ($frames_ours vs $frames_google)"
  [ -z "$summary" ] || echo "  sluice summary: $summary"
done
