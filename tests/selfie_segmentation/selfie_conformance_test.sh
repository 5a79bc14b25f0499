#!/usr/bin/env bash
# Selfie segmentation conformance: `sluice selfie --mask-dir` against Google's
# mediapipe==0.10.21 (mp.solutions.selfie_segmentation, the oracle).
#
#   selfie_conformance_test.sh SLUICE_BIN [CACHE_DIR]
#
# For model_selection 0 and 1: the photos of ../shared/testdata/images and
# ../shared/testdata/hands (one frame per photo), and a 2 s 640x480 clip of
# sergey.png made by tools/fetch_sample.sh, plain and with --smooth (the
# oracle then applies MediaPipe's smoothing formula to Google's masks).
# Bounds per frame (compare_selfie.py): IoU at 0.5 >= 0.95, mean absolute
# difference <= 0.02. Both sides run the models of $SLUICE_MODELS_DIR, default
# ../shared/models. Oracle masks are cached in CACHE_DIR (default
# $TMPDIR/sluice_selfie_oracle), keyed by input bytes, settings, models, script.
# Exit: 0 pass, 1 fail, 77 skipped (no `sluice selfie`, or no PyPI for the oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../oracle/conformance_lib.sh"
conformance_init selfie sluice_selfie_oracle "$@"
ORACLE_SCRIPT="$HERE/mediapipe_selfie_oracle.py"
ORACLE_KEY_FILES=("$MODELS"/selfie_segmentation*.tflite)

ours() {
  local input="$1" out="$2"; shift 2
  if ! "$SLUICE" selfie --input "$input" --mask-dir "$out" --quiet "$@" >"$WORK/sluice.log" 2>&1; then
    echo "  sluice selfie failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

# run_case NAME INPUT LABELS ARGS...
run_case() {
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice" b="$WORK/$name.oracle"
  echo
  echo "=== $name: $input $*"
  if ! oracle_dir "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! ours "$input" "$a" "$@"; then failures+=("$name (sluice selfie)"); return; fi
  local lab=(); [ -n "$labels" ] && lab=(--labels "$labels")
  run_compare "$name" "$PY" "$HERE/compare_selfie.py" "$a" "$b" "${lab[@]}" || failures+=("$name")
}

clip="$CACHE/sergey_640x480.mp4"
moving_clip "$clip" "$SHARED/testdata/images/sergey.png" --seconds 2

for m in 0 1; do
  for set in images hands; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_case "static_${set}_m$m" "$dir" "$(folder_labels "$dir")" --model-selection "$m"
  done
  if [ -s "$clip" ]; then
    run_case "video_m$m" "$clip" "" --model-selection "$m"
    run_case "video_smooth_m$m" "$clip" "" --model-selection "$m" --smooth
  fi
done

conformance_finish "selfie conformance" "IoU at 0.5; MAD = mean absolute difference of the probabilities"
