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
REPO="$(cd "$HERE/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
CACHE="${2:-${TMPDIR:-/tmp}/sluice_face_mesh_oracle}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
SHARED="$(cd "$SHARED" 2>/dev/null && pwd)" || { echo "FAIL: shared folder not found"; exit 1; }
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
COMPARE=(python3 "$HERE/compare_face_mesh.py")

# (`sluice X --help` exits 0 for any X: look for the subcommand in the list.)
if [ ! -x "$SLUICE" ] || ! "$SLUICE" --help 2>/dev/null | grep -qE '^ +face-mesh( |$)'; then
  echo "SKIP: '$SLUICE face-mesh' is not built"; exit 77
fi
setup_out="$("$REPO/tests/hands/setup_mediapipe_venv.sh" 2>&1)"
if grep -q '^SKIP:' <<<"$setup_out"; then grep '^SKIP:' <<<"$setup_out"; exit 77; fi
PY="$(tail -n1 <<<"$setup_out")"
[ -x "$PY" ] || { echo "FAIL: mediapipe venv setup: $setup_out"; exit 1; }

mkdir -p "$CACHE"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=()
summaries=()
start=$SECONDS

key_of() {  # content key of an input (file or folder) + settings
  local input="$1"; shift
  {
    if [ -d "$input" ]; then (cd "$input" && sha256sum -- *); else sha256sum < "$input"; fi
    echo "$*"
    sha256sum "$HERE/mediapipe_face_mesh_oracle.py" "$MODELS"/face_detection_short_range.tflite \
      "$MODELS"/face_landmark.tflite "$MODELS"/face_landmark_with_attention.tflite | cut -d' ' -f1
    "$PY" -c 'import mediapipe; print(mediapipe.__version__)'
  } | sha256sum | cut -c1-20
}

oracle() {  # oracle INPUT OUT ARGS...: the oracle's JSONL, from the cache when present
  local input="$1" out="$2"; shift 2
  local cached
  cached="$CACHE/$(key_of "$input" "$@").jsonl"
  if [ ! -s "$cached" ]; then
    # A temporary file of its own: tests that share this cache may run at once.
    local tmp; tmp="$(mktemp "$cached.XXXXXX")"
    "$PY" "$HERE/mediapipe_face_mesh_oracle.py" --input "$input" --output "$tmp" \
      --models "$MODELS" "$@" 2>"$WORK/oracle.err" && mv -f "$tmp" "$cached" || {
      rm -f "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1; }
  fi
  cp "$cached" "$out"
}

ours() {
  local input="$1" out="$2"; shift 2
  if ! "$SLUICE" face-mesh --input "$input" --landmarks "$out" --quiet "$@" >"$WORK/sluice.log" 2>&1; then
    echo "  sluice face-mesh failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

run_case() {  # run_case NAME INPUT LABELS ARGS...
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice.jsonl" b="$WORK/$name.oracle.jsonl"
  echo
  echo "=== $name: $input $*"
  if ! oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! ours "$input" "$a" "$@"; then failures+=("$name (sluice face-mesh)"); return; fi
  local table=(--table all) lab=()
  [ -z "$labels" ] && table=(--table worst)
  [ -n "$labels" ] && lab=(--labels "$labels")
  "${COMPARE[@]}" "$a" "$b" "${lab[@]}" "${table[@]}" --title "sluice vs oracle [$name]" \
    | tee "$WORK/cmp.out"
  local rc=${PIPESTATUS[0]}
  summaries+=("$name: $(grep -m1 '^  frames' "$WORK/cmp.out" | sed 's/^  //') [$([ "$rc" = 0 ] && echo PASS || echo FAIL)]")
  [ "$rc" = 0 ] || failures+=("$name")
}

for refine in off on; do
  r=(); [ $refine = on ] && r=(--refine-landmarks)
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_case "static_${set}_refine_$refine" "$dir" "$(ls "$dir" | sort | paste -sd,)" \
      --static --max-faces 2 "${r[@]}"
  done
done

# Two faces in one picture (sergey.png and lenna.png side by side).
two="$CACHE/two_faces.png"
if [ ! -s "$two" ] && command -v ffmpeg >/dev/null; then
  I="$SHARED/testdata/images"
  ffmpeg -nostdin -loglevel error -y -i "$I/sergey.png" -i "$I/lenna.png" \
    -filter_complex "[0:v]scale=400:400,setsar=1[a];[1:v]scale=400:400,setsar=1[b];[a][b]hstack" \
    -frames:v 1 "$two" 2>"$WORK/two.err" || { echo "FAIL: cannot make $two: $(cat "$WORK/two.err")"; failures+=("two faces"); }
fi
if [ -s "$two" ]; then
  run_case "two_faces_refine_off" "$two" "two_faces.png" --static --max-faces 2
  run_case "two_faces_refine_on" "$two" "two_faces.png" --static --max-faces 2 --refine-landmarks
fi

# A video: the portrait, moving (tools/fetch_sample.sh makes the clip).
clip="$CACHE/sergey_640x480.mp4"
if [ ! -s "$clip" ]; then
  if ! command -v ffmpeg >/dev/null; then
    echo "FAIL: no ffmpeg to make the clip (tools/setup.sh installs it)"; failures+=("clip (no ffmpeg)")
  elif ! "$REPO/tools/fetch_sample.sh" --image "$SHARED/testdata/images/sergey.png" \
      --output "$clip" >/dev/null 2>"$WORK/fetch.err"; then
    echo "FAIL: cannot make $clip: $(tail -n3 "$WORK/fetch.err")"; failures+=("clip")
  fi
fi
if [ -s "$clip" ]; then
  run_case "video_tracking_refine_off" "$clip" ""
  run_case "video_tracking_refine_on" "$clip" "" --refine-landmarks
  run_case "video_static_refine_off" "$clip" "" --static
fi

echo
echo "=== summary (mean landmark distances in % of max(width, height))"
printf '%s\n' "${summaries[@]}"
echo "face mesh conformance: $((SECONDS - start)) s"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${failures[@]}"; exit 1
fi
echo "PASS"
