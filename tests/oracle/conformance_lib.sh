# What the solution conformance tests (tests/{hands,face_detection,face_mesh,
# selfie_segmentation}/*_conformance_test.sh) share: finding the binary, the
# shared folder, the models and Google's mediapipe venv; the oracle's outputs,
# cached by content; sluice's side; test inputs; the summary and exit code.
# Sourced, not run:
#
#   HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
#   source "$HERE/../oracle/conformance_lib.sh"
#   conformance_init face sluice_face_oracle "$@"  # SUBCOMMAND CACHE_NAME [SLUICE_BIN [CACHE_DIR]]
#   ORACLE_SCRIPT="$HERE/mediapipe_face_oracle.py"
#   ORACLE_KEY_FILES=("$MODELS"/face_detection_short_range.tflite ...)
#   COMPARE=(python3 "$HERE/compare_faces.py")
#   run_jsonl_case static_images "$SHARED/testdata/images" "$(folder_labels ...)" --model-selection 0
#   ...
#   conformance_finish "face conformance" "keypoint distances in % of max(width, height)"
#
# Exit codes of the tests: 0 pass, 1 fail, 77 skipped (the subcommand is not
# built, or PyPI cannot be reached for the oracle). Needs bash and set -uo pipefail.

# conformance_init SUBCOMMAND CACHE_NAME [SLUICE_BIN [CACHE_DIR]]: sets REPO,
# SLUICE, SUBCOMMAND, CACHE, SHARED, MODELS (exported as SLUICE_MODELS_DIR),
# PY (the mediapipe venv's python), WORK (removed on exit), failures,
# summaries, start. Exits 77 or 1 where the test cannot run.
conformance_init() {
  SUBCOMMAND="$1"
  local cache_name="$2"
  shift 2
  REPO="$(cd "$HERE/../.." && pwd)"
  SLUICE="${1:-$REPO/build/tools/sluice}"
  CACHE="${2:-${TMPDIR:-/tmp}/$cache_name}"
  SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
  SHARED="$(cd "$SHARED" 2>/dev/null && pwd)" || { echo "FAIL: shared folder not found"; exit 1; }
  # Both sides read the same model files: sluice through SLUICE_MODELS_DIR (its
  # first place to look), the oracle through --models.
  MODELS="${SLUICE_MODELS_DIR:-$SHARED/models}"
  export SLUICE_MODELS_DIR="$MODELS"

  # (`sluice X --help` exits 0 for any X: look for the subcommand in the list.)
  if [ ! -x "$SLUICE" ] || ! "$SLUICE" --help 2>/dev/null | grep -qE "^ +$SUBCOMMAND( |\$)"; then
    echo "SKIP: '$SLUICE $SUBCOMMAND' is not built"; exit 77
  fi
  local setup_out
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
}

# key_of INPUT ARGS...: content key of an input (file or folder) + settings +
# the oracle script and the files in ORACLE_KEY_FILES + mediapipe's version.
key_of() {
  local input="$1"; shift
  {
    if [ -d "$input" ]; then (cd "$input" && sha256sum -- *); else sha256sum < "$input"; fi
    echo "$*"
    sha256sum "$ORACLE_SCRIPT" "${ORACLE_KEY_FILES[@]}" | cut -d' ' -f1
    "$PY" -c 'import mediapipe; print(mediapipe.__version__)'
  } | sha256sum | cut -c1-20
}

# oracle INPUT OUT ARGS...: the oracle's JSON Lines (ORACLE_SCRIPT --input
# INPUT --output FILE --models MODELS ARGS...), from the cache when present.
oracle() { cached_oracle file "$@"; }

# oracle_dir INPUT OUT_DIR ARGS...: the same for an oracle writing a folder
# (ORACLE_SCRIPT --input INPUT --mask-dir DIR --models MODELS ARGS...).
oracle_dir() { cached_oracle dir "$@"; }

cached_oracle() {  # cached_oracle file|dir INPUT OUT ARGS...
  local kind="$1" input="$2" out="$3"; shift 3
  local cached tmp flag
  cached="$CACHE/$(key_of "$input" "$@")"
  [ "$kind" = file ] && cached="$cached.jsonl"
  if [ ! -s "$cached" ]; then
    # A temporary name of its own, then a rename: tests that share this cache
    # may run at once (a folder another test stored first is kept: same outputs).
    if [ "$kind" = file ]; then
      tmp="$(mktemp "$cached.XXXXXX")"; flag=--output
    else
      tmp="$(mktemp -d "$cached.XXXXXX")"; flag=--mask-dir
    fi
    if ! "$PY" "$ORACLE_SCRIPT" --input "$input" "$flag" "$tmp" --models "$MODELS" "$@" \
        2>"$WORK/oracle.err"; then
      rm -rf "$tmp"; echo "  oracle failed on $input: $(tail -n3 "$WORK/oracle.err")"; return 1
    fi
    mv -T "$tmp" "$cached" 2>/dev/null || [ -s "$cached" ] || {
      rm -rf "$tmp"; echo "  cannot store the oracle's outputs in $cached"; return 1; }
    rm -rf "$tmp"
  fi
  cp -r "$cached" "$out"
}

# sluice_landmarks INPUT OUT ARGS...: `sluice SUBCOMMAND` writing its JSON Lines to OUT.
sluice_landmarks() {
  local input="$1" out="$2"; shift 2
  if ! "$SLUICE" "$SUBCOMMAND" --input "$input" --landmarks "$out" --quiet "$@" \
      >"$WORK/sluice.log" 2>&1; then
    echo "  sluice $SUBCOMMAND failed on $input ($*):"; tail -n5 "$WORK/sluice.log" | sed 's/^/    /'
    return 1
  fi
}

# run_compare NAME COMPARER...: runs a comparer, shows its report and records
# its first "  frames" line as NAME's summary; returns the comparer's status.
run_compare() {
  local name="$1"; shift
  "$@" | tee "$WORK/cmp.out"
  local rc=${PIPESTATUS[0]}
  summaries+=("$name: $(grep -m1 '^  frames' "$WORK/cmp.out" | sed 's/^  //') [$([ "$rc" = 0 ] && echo PASS || echo FAIL)]")
  return "$rc"
}

# run_jsonl_case NAME INPUT LABELS ARGS...: oracle vs sluice on INPUT with
# ARGS, compared by "${COMPARE[@]}" (with --labels LABELS and the whole table
# for photos; the worst frames only for a video, LABELS empty) plus
# "${COMPARE_ARGS[@]}" when set; CASE_SUFFIX, when set, follows NAME in the
# summary and the failures (e.g. " vs oracle").
run_jsonl_case() {
  local name="$1" input="$2" labels="$3"; shift 3
  local a="$WORK/$name.sluice.jsonl" b="$WORK/$name.oracle.jsonl"
  echo
  echo "=== $name: $input $*"
  if ! oracle "$input" "$b" "$@"; then failures+=("$name (oracle)"); return; fi
  if ! sluice_landmarks "$input" "$a" "$@"; then failures+=("$name (sluice $SUBCOMMAND)"); return; fi
  local table=(--table all) lab=()
  [ -z "$labels" ] && table=(--table worst)
  [ -n "$labels" ] && lab=(--labels "$labels")
  run_compare "$name${CASE_SUFFIX:-}" "${COMPARE[@]}" "$a" "$b" "${lab[@]}" "${table[@]}" \
    ${COMPARE_ARGS[@]+"${COMPARE_ARGS[@]}"} --title "sluice vs oracle [$name]" \
    || failures+=("$name${CASE_SUFFIX:-}")
}

# folder_labels DIR: its files' names, sorted, comma-separated (the frame order).
folder_labels() { ls "$1" | sort | paste -sd,; }

# side_by_side OUT W H IMAGE_A IMAGE_B: the two images scaled to WxH each, side
# by side, made once. Records a failure when it cannot be made.
side_by_side() {
  local out="$1" w="$2" h="$3" a="$4" b="$5"
  [ -s "$out" ] && return 0
  if ! command -v ffmpeg >/dev/null; then
    echo "FAIL: no ffmpeg to make $out (tools/setup.sh installs it)"; failures+=("$(basename "$out") (no ffmpeg)")
    return 1
  fi
  # Beside it under a name of its own, then renamed (tests may share the folder).
  local tmp="${out%.*}.$$.${out##*.}"
  ffmpeg -nostdin -loglevel error -y -i "$a" -i "$b" \
    -filter_complex "[0:v]scale=$w:$h,setsar=1[a];[1:v]scale=$w:$h,setsar=1[b];[a][b]hstack" \
    -frames:v 1 "$tmp" 2>"$WORK/side.err" && mv -f "$tmp" "$out" || {
    rm -f "$tmp"; echo "FAIL: cannot make $out: $(cat "$WORK/side.err")"
    failures+=("$(basename "$out")"); return 1; }
}

# moving_clip OUT IMAGE [FETCH_SAMPLE_ARGS...]: a 640x480 clip of IMAGE moving
# (zooms, pans, turns; tools/fetch_sample.sh, which renames its output into
# place), made once. Records a failure when it cannot be made.
moving_clip() {
  local out="$1" image="$2"; shift 2
  [ -s "$out" ] && return 0
  if ! command -v ffmpeg >/dev/null; then
    echo "FAIL: no ffmpeg to make the clip (tools/setup.sh installs it)"; failures+=("clip (no ffmpeg)")
    return 1
  fi
  "$REPO/tools/fetch_sample.sh" --image "$image" --output "$out" "$@" >/dev/null 2>"$WORK/fetch.err" || {
    echo "FAIL: cannot make $out: $(tail -n3 "$WORK/fetch.err")"; failures+=("clip $(basename "$out")")
    return 1; }
}

# conformance_finish TITLE LEGEND: the summary table; exits 1 on any failure, else 0.
conformance_finish() {
  echo
  echo "=== summary ($2)"
  printf '%s\n' "${summaries[@]}"
  echo "$1: $((SECONDS - start)) s"
  if [ ${#failures[@]} -gt 0 ]; then
    printf 'FAIL: %s\n' "${failures[@]}"; exit 1
  fi
  echo "PASS"
  exit 0
}
