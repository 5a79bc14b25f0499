#!/usr/bin/env bash
# Face detection conformance: `sluice face` against Google's mediapipe==0.10.21
# (mp.solutions.face_detection, the oracle).
#
#   face_conformance_test.sh SLUICE_BIN [CACHE_DIR]
#
# For model_selection 0 (short range) and 1 (full range), default thresholds:
#   the folders ../shared/testdata/hands and ../shared/testdata/images (one
#     frame per photo, sorted by name);
#   sergey.png and lenna.png side by side (two faces in one 800x400 picture);
#   a 640x480 clip made by tools/fetch_sample.sh from the portrait
#     ../shared/testdata/images/sergey.png (zooms, pans and turns).
# Bounds (compare_faces.py): same number of faces per frame; per face box IoU
# >= 0.9 and mean keypoint distance <= 0.5 % of max(width, height).
# Both sides run with the models of $SLUICE_MODELS_DIR, default ../shared/models
# (the wheel's own face models are different files).
# Oracle outputs are cached in CACHE_DIR (default $TMPDIR/sluice_face_oracle),
# keyed by input bytes, settings, models and the oracle script.
# Exit: 0 pass, 1 fail, 77 skipped (no `sluice face`, or no PyPI for the oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../oracle/conformance_lib.sh"
conformance_init face sluice_face_oracle "$@"
ORACLE_SCRIPT="$HERE/mediapipe_face_oracle.py"
# (with the oracle's shared frame loop and helpers: they shape its output too)
ORACLE_KEY_FILES=("$REPO/tests/oracle/mediapipe_solution_loop.py" "$REPO/tests/hands/mediapipe_hands_oracle.py"
                  "$MODELS"/face_detection_short_range.tflite "$MODELS"/face_detection_full_range_sparse.tflite)
COMPARE=(python3 "$HERE/compare_faces.py")

for m in 0 1; do
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_jsonl_case "static_${set}_m$m" "$dir" "$(folder_labels "$dir")" --model-selection "$m"
  done
done

# Two faces in one picture (sergey.png and lenna.png side by side): several
# detections through NMS and the pairing.
I="$SHARED/testdata/images"
two="$CACHE/two_faces.png"
if side_by_side "$two" 400 400 "$I/sergey.png" "$I/lenna.png"; then
  for m in 0 1; do run_jsonl_case "two_faces_m$m" "$two" "two_faces.png" --model-selection "$m"; done
fi

# A video: the portrait, moving (tools/fetch_sample.sh makes the clip).
clip="$CACHE/sergey_640x480.mp4"
if moving_clip "$clip" "$I/sergey.png"; then
  for m in 0 1; do run_jsonl_case "video_sergey_m$m" "$clip" "" --model-selection "$m"; done
fi

conformance_finish "face conformance" "keypoint distances in % of max(width, height)"
