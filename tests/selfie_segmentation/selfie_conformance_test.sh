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
REPO="$(cd "$HERE/../.." && pwd)"
SLUICE="${1:-$REPO/build/tools/sluice}"
CACHE="${2:-${TMPDIR:-/tmp}/sluice_selfie_oracle}"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
SHARED="$(cd "$SHARED" 2>/dev/null && pwd)" || { echo "FAIL: shared folder not found"; exit 1; }
MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
export SLUICE_MODELS_DIR="$MODELS"

if [ ! -x "$SLUICE" ] || ! "$SLUICE" --help 2>/dev/null | grep -qE '^ +selfie( |$)'; then
  echo "SKIP: '$SLUICE selfie' is not built"; exit 77
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

key_of() {
  local input="$1"; shift
  {
    if [ -d "$input" ]; then (cd "$input" && sha256sum -- *); else sha256sum < "$input"; fi
    echo "$*"
    sha256sum "$HERE/mediapipe_selfie_oracle.py" "$MODELS"/selfie_segmentation*.tflite | cut -d' ' -f1
    "$PY" -c 'import mediapipe; print(mediapipe.__version__)'
  } | sha256sum | cut -c1-20
}

# oracle INPUT OUT_DIR ARGS...: Google's masks, from the cache when present.
oracle() {
  local input="$1" out="$2"; shift 2
  local cached
  cached="$CACHE/$(key_of "$input" "$@")"
  if [ ! -d "$cached" ]; then
    # A temporary folder of its own: tests that share this cache may run at once
    # (whichever finishes second keeps the first one's identical masks).
    local tmp; tmp="$(mktemp -d "$cached.XXXXXX")"
    "$PY" "$HERE/mediapipe_selfie_oracle.py" --input "$input" --mask-dir "$tmp" \
      --models "$MODELS" "$@" 2>"$WORK/oracle.err" \
      && { mv -T "$tmp" "$cached" 2>/dev/null || [ -d "$cached" ]; } || {
      rm -rf "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1; }
    rm -rf "$tmp"
  fi
  cp -r "$cached" "$out"
}

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
  if ! oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! ours "$input" "$a" "$@"; then failures+=("$name (sluice selfie)"); return; fi
  local lab=(); [ -n "$labels" ] && lab=(--labels "$labels")
  "$PY" "$HERE/compare_selfie.py" "$a" "$b" "${lab[@]}" | tee "$WORK/cmp.out"
  local rc=${PIPESTATUS[0]}
  summaries+=("$name: $(grep -m1 '^  frames' "$WORK/cmp.out" | sed 's/^  //') [$([ "$rc" = 0 ] && echo PASS || echo FAIL)]")
  [ "$rc" = 0 ] || failures+=("$name")
}

clip="$CACHE/sergey_640x480.mp4"
if [ ! -s "$clip" ]; then
  "$REPO/tools/fetch_sample.sh" --image "$SHARED/testdata/images/sergey.png" --output "$clip" \
    --seconds 2 >/dev/null 2>"$WORK/fetch.err" || {
    echo "FAIL: cannot make $clip: $(cat "$WORK/fetch.err")"; failures+=("test clip"); }
fi

for m in 0 1; do
  for set in images hands; do
    dir="$SHARED/testdata/$set"
    [ -d "$dir" ] || { echo "FAIL: missing $dir"; failures+=("missing $dir"); continue; }
    run_case "static_${set}_m$m" "$dir" "$(ls "$dir" | sort | paste -sd,)" --model-selection "$m"
  done
  if [ -s "$clip" ]; then
    run_case "video_m$m" "$clip" "" --model-selection "$m"
    run_case "video_smooth_m$m" "$clip" "" --model-selection "$m" --smooth
  fi
done

echo
echo "=== summary (IoU at 0.5; MAD = mean absolute difference of the probabilities)"
printf '%s\n' "${summaries[@]}"
echo "selfie conformance: $((SECONDS - start)) s"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${failures[@]}"; exit 1
fi
echo "PASS"
