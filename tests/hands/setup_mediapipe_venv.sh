#!/usr/bin/env bash
# Creates the hand-tracking oracle's virtualenv (default <repo>/.venv-mp,
# git-ignored; or $SLUICE_MP_VENV) with Google's mediapipe==0.10.21 from PyPI:
# the last release that still has mp.solutions.hands (it brings its own cv2 and
# numpy). Idempotent.
# When PyPI cannot be reached it prints a line starting with "SKIP:" and exits
# 0, so callers can tell "no oracle here" from a failure.
# Prints the venv's python as its last line on success.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${SLUICE_MP_VENV:-$REPO/.venv-mp}"
PY="$VENV/bin/python"
VERSION=0.10.21

probe="import cv2, numpy, mediapipe as mp
assert mp.__version__ == '$VERSION', mp.__version__
mp.solutions.hands.Hands"

if [ -x "$PY" ] && "$PY" -c "$probe" 2>/dev/null; then echo "$PY"; exit 0; fi

# Conformance tests run in parallel (ctest -j): one of them creates the venv,
# the others wait for it here instead of installing into it at the same time.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if [ -x "$PY" ] && "$PY" -c "$probe" 2>/dev/null; then echo "$PY"; exit 0; fi

BASE="$(command -v python3 || true)"
[ -n "$BASE" ] || { echo "SKIP: no python3 to create the mediapipe venv"; exit 0; }
if [ ! -x "$PY" ]; then
  "$BASE" -m venv "$VENV" >/dev/null 2>&1 || {
    rm -rf "$VENV"; echo "SKIP: '$BASE -m venv' failed (install python3-venv)"; exit 0; }
fi
PIP=("$PY" -m pip install --quiet --disable-pip-version-check --timeout 30 --retries 1)
if ! "${PIP[@]}" "mediapipe==$VERSION" >/dev/null 2>&1; then
  if ! "$PY" -m pip download --quiet --no-deps --disable-pip-version-check --timeout 30 \
       --retries 1 -d "$(mktemp -d)" pip >/dev/null 2>&1; then
    echo "SKIP: cannot reach PyPI to install mediapipe==$VERSION"; exit 0
  fi
  echo "SKIP: mediapipe==$VERSION does not install for $("$PY" -V) on $(uname -m)"; exit 0
fi
"$PY" -c "$probe" || { echo "mediapipe venv $VENV: the import fails" >&2; exit 1; }
echo "$PY"
