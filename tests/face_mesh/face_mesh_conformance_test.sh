#!/usr/bin/env bash
# Face mesh conformance: `sluice face-mesh` against Google's mediapipe==0.10.21
# (mp.solutions.face_mesh, the oracle).
#
#   face_mesh_conformance_test.sh SLUICE_BIN [CACHE_DIR]
#
# For refine_landmarks off and on, default thresholds, max_num_faces 2:
#   the folders ../shared/testdata/hands and ../shared/testdata/images in
#     static mode (one frame per photo, sorted by name);
#   sergey.png and lenna.png side by side (two faces in one 800x400 picture),
#     static;
#   a 640x480 clip made by tools/fetch_sample.sh from the portrait
#     ../shared/testdata/images/sergey.png (zooms, pans and turns), in tracking
#     mode (max_num_faces 1, MediaPipe's default) and in static mode.
# Bounds (compare_face_mesh.py): same number of faces per frame, same landmark
# count; per face mean landmark distance <= 0.5 % of max(width, height).
# Both sides run with the models of $SLUICE_MODELS_DIR, default ../shared/models
# (the wheel's own face models are different files).
# Oracle outputs are cached in CACHE_DIR (default $TMPDIR/sluice_face_mesh_oracle),
# keyed by input bytes, settings, models and the oracle script.
# Exit: 0 pass, 1 fail, 77 skipped (no `sluice face-mesh`, or no PyPI for the oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../oracle/conformance_lib.sh"
conformance_init face-mesh sluice_face_mesh_oracle "$@"
ORACLE_SCRIPT="$HERE/mediapipe_face_mesh_oracle.py"
# (with the oracle's shared frame loop and helpers: they shape its output too)
ORACLE_KEY_FILES=("$REPO/tests/oracle/mediapipe_solution_loop.py" "$REPO/tests/hands/mediapipe_hands_oracle.py"
                  "$MODELS"/face_detection_short_range.tflite "$MODELS"/face_landmark.tflite
                  "$MODELS"/face_landmark_with_attention.tflite)
COMPARE=(python3 "$HERE/compare_face_mesh.py")

for refine in off on; do
  r=(); [ $refine = on ] && r=(--refine-landmarks)
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_jsonl_case "static_${set}_refine_$refine" "$dir" "$(folder_labels "$dir")" \
      --static --max-faces 2 ${r[@]+"${r[@]}"}
  done
done

# Two faces in one picture (sergey.png and lenna.png side by side).
I="$SHARED/testdata/images"
two="$CACHE/two_faces.png"
if side_by_side "$two" 400 400 "$I/sergey.png" "$I/lenna.png"; then
  run_jsonl_case "two_faces_refine_off" "$two" "two_faces.png" --static --max-faces 2
  run_jsonl_case "two_faces_refine_on" "$two" "two_faces.png" --static --max-faces 2 --refine-landmarks
fi

# A video: the portrait, moving (tools/fetch_sample.sh makes the clip).
clip="$CACHE/sergey_640x480.mp4"
if moving_clip "$clip" "$I/sergey.png"; then
  run_jsonl_case "video_tracking_refine_off" "$clip" ""
  run_jsonl_case "video_tracking_refine_on" "$clip" "" --refine-landmarks
  run_jsonl_case "video_static_refine_off" "$clip" "" --static
fi

conformance_finish "face mesh conformance" "mean landmark distances in % of max(width, height)"
