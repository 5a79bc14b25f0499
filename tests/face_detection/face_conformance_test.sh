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
REPO="$(cd "$HERE/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
CACHE="${2:-${TMPDIR:-/tmp}/sluice_face_oracle}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
SHARED="$(cd "$SHARED" 2>/dev/null && pwd)" || { echo "FAIL: shared folder not found"; exit 1; }
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
COMPARE=(python3 "$HERE/compare_faces.py")

# (`sluice X --help` exits 0 for any X: look for the subcommand in the list.)
if [ ! -x "$SLUICE" ] || ! "$SLUICE" --help 2>/dev/null | grep -qE '^ +face( |$)'; then
  echo "SKIP: '$SLUICE face' is not built"; exit 77
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
    sha256sum "$HERE/mediapipe_face_oracle.py" "$MODELS"/face_detection_short_range.tflite \
      "$MODELS"/face_detection_full_range_sparse.tflite | cut -d' ' -f1
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
    "$PY" "$HERE/mediapipe_face_oracle.py" --input "$input" --output "$tmp" \
      --models "$MODELS" "$@" 2>"$WORK/oracle.err" && mv -f "$tmp" "$cached" || {
      rm -f "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1; }
  fi
  cp "$cached" "$out"
}

ours() {
  local input="$1" out="$2"; shift 2
  if ! "$SLUICE" face --input "$input" --landmarks "$out" "$@" >"$WORK/sluice.log" 2>&1; then
    echo "  sluice face failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

run_case() {  # run_case NAME INPUT LABELS ARGS...
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice.jsonl" b="$WORK/$name.oracle.jsonl"
  echo
  echo "=== $name: $input $*"
  if ! oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! ours "$input" "$a" "$@"; then failures+=("$name (sluice face)"); return; fi
  local table=(--table all) lab=()
  [ -z "$labels" ] && table=(--table worst)
  [ -n "$labels" ] && lab=(--labels "$labels")
  "${COMPARE[@]}" "$a" "$b" "${lab[@]}" "${table[@]}" --title "sluice vs oracle [$name]" \
    | tee "$WORK/cmp.out"
  local rc=${PIPESTATUS[0]}
  summaries+=("$name: $(grep -m1 '^  frames' "$WORK/cmp.out" | sed 's/^  //') [$([ "$rc" = 0 ] && echo PASS || echo FAIL)]")
  [ "$rc" = 0 ] || failures+=("$name")
}

for m in 0 1; do
  for set in hands images; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_case "static_${set}_m$m" "$dir" "$(ls "$dir" | sort | paste -sd,)" --model-selection "$m"
  done
done

# Two faces in one picture (sergey.png and lenna.png side by side): several
# detections through NMS and the pairing.
two="$CACHE/two_faces.png"
if [ ! -s "$two" ] && command -v ffmpeg >/dev/null; then
  I="$SHARED/testdata/images"
  ffmpeg -nostdin -loglevel error -y -i "$I/sergey.png" -i "$I/lenna.png" \
    -filter_complex "[0:v]scale=400:400,setsar=1[a];[1:v]scale=400:400,setsar=1[b];[a][b]hstack" \
    -frames:v 1 "$two" 2>"$WORK/two.err" || { echo "FAIL: cannot make $two: $(cat "$WORK/two.err")"; failures+=("two faces"); }
fi
if [ -s "$two" ]; then
  for m in 0 1; do run_case "two_faces_m$m" "$two" "two_faces.png" --model-selection "$m"; done
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
  for m in 0 1; do run_case "video_sergey_m$m" "$clip" "" --model-selection "$m"; done
fi

echo
echo "=== summary (keypoint distances in % of max(width, height))"
printf '%s\n' "${summaries[@]}"
echo "face conformance: $((SECONDS - start)) s"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${failures[@]}"; exit 1
fi
echo "PASS"
