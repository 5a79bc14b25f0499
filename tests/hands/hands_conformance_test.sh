#!/usr/bin/env bash
# Hand tracking conformance: `sluice hands` against Google's mediapipe==0.10.21
# (mp.solutions.hands, the oracle), and against Google's web build's outputs in
# ../shared/reference/cpu_inference.
#
#   hands_conformance_test.sh SLUICE_BIN [CACHE_DIR]
#
# For model_complexity 0 and 1, max 2 hands:
#   static mode on the folders ../shared/testdata/hands and ../shared/testdata/images
#     (one frame per photo, sorted by name), vs the oracle and vs the reference;
#   tracking mode on two 640x480 clips made by tools/fetch_sample.sh: the README
#     sample (opencv-doc's hand photo; used when it exists or can be made) and
#     two hands side by side (testdata/hands call_044768ad + rock_026fd791).
# Bounds vs the oracle (compare_hands.py): same hand count and handedness; per
# hand mean <= 0.5 %, max <= 2 % of the image size, world mean <= 5 mm; a
# handedness mismatch where both scores are below 0.6 (MediaPipe itself unsure:
# the README sample's hand has such frames) is noted, not failed. Bounds
# vs the web reference: the same, but world mean <= 10 mm, since Google's
# Python and web builds themselves differ by up to 7.8 mm there (README.md).
# Both sides run with the models of $SLUICE_MODELS_DIR, default ../shared/models.
# Oracle outputs are cached in CACHE_DIR (default $TMPDIR/sluice_hands_oracle),
# keyed by input bytes, settings, models and the oracle script.
# Exit: 0 pass, 1 fail, 77 skipped (no `sluice hands`, or no PyPI for the oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../oracle/conformance_lib.sh"
conformance_init hands sluice_hands_oracle "$@"
ORACLE_SCRIPT="$HERE/mediapipe_hands_oracle.py"
ORACLE_KEY_FILES=("$MODELS"/palm_detection_*.tflite "$MODELS"/hand_landmark_*.tflite)
REF="$SHARED/reference/cpu_inference"
COMPARE=(python3 "$HERE/compare_hands.py")
COMPARE_ARGS=(--ambiguous-handedness 0.1)
CASE_SUFFIX=" vs oracle"

# run_case NAME INPUT LABELS ARGS...: oracle vs sluice.
run_case() { run_jsonl_case "$@"; }

# compare_case NAME ARGS...: compare_hands.py ARGS; records its summary line and failure.
compare_case() {
  local name="$1"; shift
  run_compare "$name" "${COMPARE[@]}" "$@"
}

# Static folders, both complexities, vs the oracle and vs the web reference.
for c in 0 1; do
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    names="$(ls "$dir" | sort | paste -sd,)"
    run_case "static_${set}_c$c" "$dir" "$names" --static --max-hands 2 --model-complexity "$c"
    refs=()
    for f in $(ls "$dir" | sort); do refs+=("$REF/hands_${f%.*}_c$c.json"); done
    if "${COMPARE[@]}" --convert-reference "$WORK/ref.jsonl" "${refs[@]}" 2>"$WORK/ref.err"; then
      if [ -s "$WORK/static_${set}_c$c.sluice.jsonl" ]; then
        compare_case "static_${set}_c$c vs web reference" "$WORK/static_${set}_c$c.sluice.jsonl" "$WORK/ref.jsonl" \
          --labels "$names" --tolerances 0.5,2,10 --title "sluice vs web reference [static_${set}_c$c]" \
          || failures+=("static_${set}_c$c vs reference")
      fi
      if [ -s "$WORK/static_${set}_c$c.oracle.jsonl" ]; then
        echo "(for information: Google's Python vs Google's web build)"
        compare_case "(info) static_${set}_c$c oracle vs web reference" "$WORK/static_${set}_c$c.oracle.jsonl" \
          "$WORK/ref.jsonl" --labels "$names" --tolerances 0.5,2,10 --table none \
          --title "oracle vs web reference [static_${set}_c$c]" || true
      fi
    else
      echo "  reference files missing: $(head -c 300 "$WORK/ref.err")"; failures+=("reference $set c$c")
    fi
  done
done

# Tracking mode on clips.
clips=()
if ! command -v ffmpeg >/dev/null; then
  echo "FAIL: no ffmpeg to make the tracking clips (tools/setup.sh installs it)"
  failures+=("tracking clips (no ffmpeg)")
fi
sample="$("$REPO/tools/fetch_sample.sh" 2>"$WORK/fetch.err" | tail -n1)"
if [ -s "$sample" ]; then clips+=("$sample"); else
  echo "note: no README sample clip ($(tail -n1 "$WORK/fetch.err")); using the two-hands clip only"; fi
# Two hands side by side (call_044768ad: Right, rock_026fd791: Left), moving.
twoclip="$CACHE/two_hands_640x480.mp4"
T="$SHARED/testdata/hands"
if [ -s "$twoclip" ] || { side_by_side "$WORK/two_hands.png" 384 512 "$T/call_044768ad.jpg" \
     "$T/rock_026fd791.jpg" && moving_clip "$twoclip" "$WORK/two_hands.png"; }; then
  clips+=("$twoclip")
fi
for clip in "${clips[@]}"; do
  base="$(basename "${clip%.*}")"
  for c in 0 1; do
    run_case "tracking_${base}_c$c" "$clip" "" --max-hands 2 --model-complexity "$c"
  done
done

conformance_finish "hands conformance" "distances per hand: image % of max(width, height), world mm"
