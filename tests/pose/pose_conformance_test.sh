#!/usr/bin/env bash
# Pose tracking conformance: `sluice pose` against Google's mediapipe==0.10.21
# (mp.solutions.pose, the oracle).
#
#   pose_conformance_test.sh SLUICE_BIN [CACHE_DIR]
#
# For model_complexity 0, 1 and 2, with segmentation:
#   static mode on the folders ../shared/testdata/hands (8 people, one frame
#     per photo, sorted by name) and ../shared/testdata/images (2 portraits and
#     a dinosaur);
#   tracking mode (landmark and mask smoothing on, MediaPipe's defaults) on a
#     640x480, 105-frame clip made by tools/fetch_sample.sh from
#     testdata/hands/four_077fa4bf.jpg (a person from the knees up, slowly
#     zooming, panning and turning).
# Bounds vs the oracle per frame (compare_pose.py), issue 9's: the same
# detection outcome; per pose mean <= 0.5 %, max <= 2 % of the image size,
# visibility within 0.05, world landmarks <= 10 mm mean; mask IoU at 0.5 >=
# 0.95. Presence (not among the issue's bounds) within 0.05 in static mode and
# 0.25 in tracking mode: there the legs at the frame's bottom edge (landmarks
# 25-32) have presence 0.3-0.9 that moves with the tracked crop, and both sides'
# crops drift apart by a few tenths of a percent (tests/pose/README.md).
# Both sides run with the models of $SLUICE_MODELS_DIR, default ../shared/models.
# Oracle outputs are cached in CACHE_DIR (default $TMPDIR/sluice_pose_oracle),
# keyed by input bytes, settings, models and the oracle script.
# Exit: 0 pass, 1 fail, 77 skipped (no `sluice pose`, or no PyPI for the oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../oracle/conformance_lib.sh"
conformance_init pose sluice_pose_oracle "$@"
ORACLE_SCRIPT="$HERE/mediapipe_pose_oracle.py"
ORACLE_KEY_FILES=("$MODELS"/pose_detection.tflite "$MODELS"/pose_landmark_*.tflite)
# The venv's python: numpy and cv2 read the masks fast.
COMPARE=("$PY" "$HERE/compare_pose.py")
PRESENCE=()

# pose_oracle INPUT OUT_DIR ARGS...: the oracle's landmarks.jsonl and masks/
# (NNNNNN.npy) in OUT_DIR, from the cache when present.
pose_oracle() {
  local input="$1" out="$2"; shift 2
  local cached
  cached="$CACHE/$(key_of "$input" "$@")"
  if [ ! -d "$cached" ]; then
    # A temporary folder of its own: tests that share this cache may run at once
    # (whichever finishes second keeps the first one's identical outputs).
    local tmp; tmp="$(mktemp -d "$cached.XXXXXX")"
    "$PY" "$ORACLE_SCRIPT" --input "$input" --output "$tmp/landmarks.jsonl" \
      --mask-dir "$tmp/masks" --models "$MODELS" "$@" 2>"$WORK/oracle.err" \
      && { mv -T "$tmp" "$cached" 2>/dev/null || [ -d "$cached" ]; } || {
      rm -rf "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1; }
    rm -rf "$tmp"
  fi
  cp -r "$cached" "$out"
}

# pose_ours INPUT OUT_DIR ARGS...: sluice's landmarks.jsonl and masks/ (NNNNNN.png).
pose_ours() {
  local input="$1" out="$2"; shift 2
  mkdir -p "$out"
  if ! "$SLUICE" pose --input "$input" --landmarks "$out/landmarks.jsonl" --mask-dir "$out/masks" \
      --quiet "$@" >"$WORK/sluice.log" 2>&1; then
    echo "  sluice pose failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

# run_case NAME INPUT LABELS ARGS...: oracle vs sluice, landmarks and masks.
run_case() {
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice" b="$WORK/$name.oracle"
  echo
  echo "=== $name: $input $*"
  if ! pose_oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! pose_ours "$input" "$a" "$@"; then failures+=("$name (sluice pose)"); return; fi
  local table=(--table all) lab=()
  [ -z "$labels" ] && table=(--table worst)
  [ -n "$labels" ] && lab=(--labels "$labels")
  run_compare "$name" "${COMPARE[@]}" "$a/landmarks.jsonl" "$b/landmarks.jsonl" \
    --masks "$a/masks" "$b/masks" "${lab[@]}" "${table[@]}" ${PRESENCE[@]+"${PRESENCE[@]}"} \
    --title "sluice vs oracle [$name]" || failures+=("$name")
}

# The tracking clip, made once (under a temporary name first: tests sharing
# the cache may make it at once).
clip="$CACHE/pose_four_077fa4bf_640x480.mp4"
if [ ! -s "$clip" ]; then
  if ! command -v ffmpeg >/dev/null; then
    echo "FAIL: no ffmpeg to make the tracking clip (tools/setup.sh installs it)"
    failures+=("tracking clip (no ffmpeg)")
  else
    part="$(mktemp "$clip.XXXXXX")" && rm -f "$part"
    "$REPO/tools/fetch_sample.sh" --image "$SHARED/testdata/hands/four_077fa4bf.jpg" \
      --output "$part.mp4" >/dev/null 2>"$WORK/fetch.err" && mv -f "$part.mp4" "$clip" || {
      rm -f "$part.mp4"; echo "FAIL: cannot make $clip: $(tail -n3 "$WORK/fetch.err")"
      failures+=("tracking clip"); }
  fi
fi

for c in 0 1 2; do
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_case "static_${set}_c$c" "$dir" "$(folder_labels "$dir")" \
      --static --segmentation --model-complexity "$c"
  done
  PRESENCE=(--presence-tolerance 0.25)
  [ -s "$clip" ] && run_case "tracking_c$c" "$clip" "" --segmentation --model-complexity "$c"
  PRESENCE=()
done

conformance_finish "pose conformance" \
  "per pose: image distances in % of max(width, height), worst visibility / presence difference, world mm; mask IoU at 0.5"
