#!/usr/bin/env bash
# Installs the MediaPipe .tflite models Sluice uses into models/ (git-ignored),
# each checked against models.sha256.
#
#   tools/fetch_models.sh                 # from PyPI: the mediapipe==0.10.21 wheel
#   tools/fetch_models.sh --from DIR      # offline: copy from a local folder
#   SLUICE_MODELS_DIR=DIR tools/fetch_models.sh
#
# Options: --dest DIR (default: <repo>/models), --link (symlink instead of copy
# in --from mode), --wheel-cache DIR (default: <repo>/.whl).
# Idempotent: when every model is present and verified it does nothing (no
# network). Exit status 1 names every model that is missing or whose checksum
# does not match (expected and actual hash); the others are still installed.
# Models the wheel does not ship (pose_landmark_lite/heavy,
# face_detection_full_range) are only a warning in wheel mode.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUMS="$REPO/models.sha256"
DEST="$REPO/models"
FROM="${SLUICE_MODELS_DIR:-}"
LINK=0
WHEEL_CACHE="$REPO/.whl"
MP_VERSION=0.10.21
# The wheel is pinned by Python tag and platform, not by the local interpreter,
# so the same bytes (and checksums) come down everywhere.
PIP_TARGET=(--python-version 3.11 --implementation cp --abi cp311
            --only-binary=:all: --platform manylinux_2_28_x86_64
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)

die() { echo "fetch_models: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a folder"; FROM="$2"; shift 2 ;;
    --dest) [ $# -ge 2 ] || die "--dest needs a folder"; DEST="$2"; shift 2 ;;
    --wheel-cache) [ $# -ge 2 ] || die "--wheel-cache needs a folder"; WHEEL_CACHE="$2"; shift 2 ;;
    --link) LINK=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[ -r "$SUMS" ] || die "checksum list $SUMS not found"
command -v sha256sum >/dev/null || die "sha256sum not found (coreutils)"

# Model names, in file order, without duplicates (a name may have several
# accepted hashes, one line each).
mapfile -t NAMES < <(grep -v '^[[:space:]]*#' "$SUMS" | awk 'NF>=2 && !seen[$2]++ {print $2}')
[ ${#NAMES[@]} -gt 0 ] || die "$SUMS lists no models"

accepted() { awk -v n="$1" '!/^[[:space:]]*#/ && $2==n {print $1}' "$SUMS"; }
hash_of() { sha256sum "$1" | cut -d' ' -f1; }
# No pipe into grep -q here: with pipefail an early grep exit can fail awk.
is_accepted() { local all; all=$'\n'"$(accepted "$1")"$'\n'; [[ "$all" == *$'\n'"$2"$'\n'* ]]; }

ERRORS=()
WARNINGS=()
mismatch() {  # name path actual
  ERRORS+=("checksum mismatch: $2: expected $(accepted "$1" | paste -sd' ' | sed 's/ / or /g'), actual $3")
}

# Copies/links SRC to DEST/NAME after verifying it; returns 1 on mismatch.
install_verified() {  # name src
  local name="$1" src="$2" h
  h="$(hash_of "$src")"
  if ! is_accepted "$name" "$h"; then mismatch "$name" "$src" "$h"; return 1; fi
  rm -f "$DEST/$name"
  if [ "$LINK" = 1 ]; then
    ln -s "$(cd "$(dirname "$src")" && pwd)/$(basename "$src")" "$DEST/$name"
  else
    cp "$src" "$DEST/$name.tmp.$$" && mv "$DEST/$name.tmp.$$" "$DEST/$name"
  fi
  echo "fetch_models: installed $name (sha256 $h)"
}

mkdir -p "$DEST"
TODO=()
for n in "${NAMES[@]}"; do
  if [ -e "$DEST/$n" ]; then
    h="$(hash_of "$DEST/$n")"
    if is_accepted "$n" "$h"; then continue; fi
    echo "fetch_models: $DEST/$n has an unknown checksum ($h): replacing it"
  fi
  TODO+=("$n")
done
if [ ${#TODO[@]} -eq 0 ]; then
  echo "fetch_models: all ${#NAMES[@]} models present and verified in $DEST"
  exit 0
fi

MISSING=()
if [ -n "$FROM" ]; then
  [ -d "$FROM" ] || die "model folder '$FROM' (--from / SLUICE_MODELS_DIR) does not exist"
  for n in "${TODO[@]}"; do
    if [ -f "$FROM/$n" ]; then install_verified "$n" "$FROM/$n" || true
    else MISSING+=("$n (not in $FROM)"); fi
  done
else
  mkdir -p "$WHEEL_CACHE"
  WHEEL="$(ls "$WHEEL_CACHE"/mediapipe-"$MP_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
  if [ -z "$WHEEL" ]; then
    PY="$(command -v python3 || command -v python || true)"
    [ -n "$PY" ] || die "python3 is needed to download the mediapipe wheel (or use --from DIR)"
    echo "fetch_models: downloading mediapipe==$MP_VERSION from PyPI into $WHEEL_CACHE"
    "$PY" -m pip download --no-deps --quiet "${PIP_TARGET[@]}" -d "$WHEEL_CACHE" \
        "mediapipe==$MP_VERSION" ||
      die "could not download mediapipe==$MP_VERSION from PyPI (offline? use --from DIR or SLUICE_MODELS_DIR)"
    WHEEL="$(ls "$WHEEL_CACHE"/mediapipe-"$MP_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
    [ -n "$WHEEL" ] || die "pip reported success but no mediapipe-$MP_VERSION wheel is in $WHEEL_CACHE"
  fi
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
  # A wheel is a zip; python's zipfile avoids needing unzip. Prints the names it
  # extracted (flattened) so that missing ones can be reported.
  python3 - "$WHEEL" "$TMP" "${TODO[@]}" <<'PY' > "$TMP/.found" || die "cannot read wheel $WHEEL"
import os, sys, zipfile
wheel, out, wanted = sys.argv[1], sys.argv[2], set(sys.argv[3:])
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        base = os.path.basename(info.filename)
        if info.filename.startswith("mediapipe/modules/") and base in wanted:
            with z.open(info) as src, open(os.path.join(out, base), "wb") as dst:
                dst.write(src.read())
            wanted.discard(base)
            print(base)
PY
  for n in "${TODO[@]}"; do
    if grep -qx "$n" "$TMP/.found"; then install_verified "$n" "$TMP/$n" || true
    else WARNINGS+=("$n is not in the mediapipe $MP_VERSION wheel: supply it with --from DIR"); fi
  done
fi

for m in "${MISSING[@]}"; do ERRORS+=("missing model: $m"); done
for w in "${WARNINGS[@]}"; do echo "fetch_models: warning: $w" >&2; done
if [ ${#ERRORS[@]} -gt 0 ]; then
  for e in "${ERRORS[@]}"; do echo "fetch_models: error: $e" >&2; done
  exit 1
fi
if [ ${#WARNINGS[@]} -gt 0 ]; then
  echo "fetch_models: $((${#NAMES[@]} - ${#WARNINGS[@]})) of ${#NAMES[@]} models present and verified in $DEST"
else
  echo "fetch_models: all ${#NAMES[@]} models present and verified in $DEST"
fi
