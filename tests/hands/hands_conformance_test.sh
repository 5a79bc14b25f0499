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
REPO="$(cd "$HERE/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
CACHE="${2:-${TMPDIR:-/tmp}/sluice_hands_oracle}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
SHARED="$(cd "$SHARED" 2>/dev/null && pwd)" || { echo "FAIL: shared folder not found"; exit 1; }
# Both sides read the same model files: sluice through SLUICE_MODELS_DIR (its
# first place to look), the oracle through --models.
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"
REF="$SHARED/reference/cpu_inference"
COMPARE=(python3 "$HERE/compare_hands.py")

# (`sluice X --help` exits 0 for any X: look for the subcommand in the list.)
if [ ! -x "$SLUICE" ] || ! "$SLUICE" --help 2>/dev/null | grep -qE '^ +hands( |$)'; then
  echo "SKIP: '$SLUICE hands' is not built"; exit 77
fi
setup_out="$("$HERE/setup_mediapipe_venv.sh" 2>&1)"
if grep -q '^SKIP:' <<<"$setup_out"; then grep '^SKIP:' <<<"$setup_out"; exit 77; fi
PY="$(tail -n1 <<<"$setup_out")"
[ -x "$PY" ] || { echo "FAIL: mediapipe venv setup: $setup_out"; exit 1; }

mkdir -p "$CACHE"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=()
summaries=()
start=$SECONDS

# compare_case NAME ARGS...: compare_hands.py ARGS; records its summary line and failure.
compare_case() {
  local name="$1"; shift
  "${COMPARE[@]}" "$@" | tee "$WORK/cmp.out"
  local rc=${PIPESTATUS[0]}
  summaries+=("$name: $(grep -m1 '^  frames' "$WORK/cmp.out" | sed 's/^  //') [$([ "$rc" = 0 ] && echo PASS || echo FAIL)]")
  return "$rc"
}

# Content key of an input (file or folder of images) + settings.
key_of() {
  local input="$1"; shift
  {
    if [ -d "$input" ]; then (cd "$input" && sha256sum -- *); else sha256sum < "$input"; fi
    echo "$*"
    sha256sum "$HERE/mediapipe_hands_oracle.py" "$MODELS"/palm_detection_*.tflite \
      "$MODELS"/hand_landmark_*.tflite | cut -d' ' -f1
    "$PY" -c 'import mediapipe; print(mediapipe.__version__)'
  } | sha256sum | cut -c1-20
}

# oracle INPUT OUT ARGS...: the oracle's JSONL, from the cache when present.
oracle() {
  local input="$1" out="$2"; shift 2
  local cached
  cached="$CACHE/$(key_of "$input" "$@").jsonl"
  if [ ! -s "$cached" ]; then
    # A temporary file of its own: tests that share this cache may run at once.
    local tmp; tmp="$(mktemp "$cached.XXXXXX")"
    "$PY" "$HERE/mediapipe_hands_oracle.py" --input "$input" --output "$tmp" \
      --models "$MODELS" "$@" 2>"$WORK/oracle.err" && mv -f "$tmp" "$cached" || {
      rm -f "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1; }
  fi
  cp "$cached" "$out"
}

ours() {
  local input="$1" out="$2"; shift 2
  if ! "$SLUICE" hands --input "$input" --landmarks "$out" "$@" >"$WORK/sluice.log" 2>&1; then
    echo "  sluice hands failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

# run_case NAME INPUT LABELS ARGS...: oracle vs sluice (and reference for static folders).
run_case() {
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice.jsonl" b="$WORK/$name.oracle.jsonl"
  echo
  echo "=== $name: $input $*"
  if ! oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! ours "$input" "$a" "$@"; then failures+=("$name (sluice hands)"); return; fi
  local table=(--table all); [ -z "$labels" ] && table=(--table worst)
  local lab=(); [ -n "$labels" ] && lab=(--labels "$labels")
  compare_case "$name vs oracle" "$a" "$b" "${lab[@]}" "${table[@]}" --ambiguous-handedness 0.1 \
    --title "sluice vs oracle [$name]" || failures+=("$name vs oracle")
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
if [ ! -s "$twoclip" ]; then
  T="$SHARED/testdata/hands"
  ffmpeg -nostdin -loglevel error -y -i "$T/call_044768ad.jpg" -i "$T/rock_026fd791.jpg" \
    -filter_complex "[0:v]scale=384:512,setsar=1[a];[1:v]scale=384:512,setsar=1[b];[a][b]hstack" \
    -frames:v 1 "$WORK/two_hands.png" \
  && "$REPO/tools/fetch_sample.sh" --image "$WORK/two_hands.png" --output "$twoclip" \
    >/dev/null 2>"$WORK/fetch.err" || {
    echo "FAIL: cannot make $twoclip: $(cat "$WORK/fetch.err")"; failures+=("test clip"); }
fi
[ -s "$twoclip" ] && clips+=("$twoclip")
for clip in "${clips[@]}"; do
  base="$(basename "${clip%.*}")"
  for c in 0 1; do
    run_case "tracking_${base}_c$c" "$clip" "" --max-hands 2 --model-complexity "$c"
  done
done

echo
echo "=== summary (distances per hand: image % of max(width, height), world mm)"
printf '%s\n' "${summaries[@]}"
echo "hands conformance: $((SECONDS - start)) s"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${failures[@]}"; exit 1
fi
echo "PASS"
