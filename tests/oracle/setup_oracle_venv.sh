#!/usr/bin/env bash
# Creates the oracle virtualenv (default <repo>/.venv-oracle, git-ignored; or
# $SLUICE_ORACLE_VENV) with Google's TFLite interpreter (ai-edge-litert, or
# tflite-runtime as a fallback) and numpy, from PyPI. Idempotent.
# When PyPI cannot be reached it prints a line starting with "SKIP:" and exits
# 0, so callers can tell "no oracle here" from a failure.
# Prints the venv's python as its last line on success.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${SLUICE_ORACLE_VENV:-$REPO/.venv-oracle}"
PY="$VENV/bin/python"

probe='import numpy
try:
    from ai_edge_litert.interpreter import Interpreter
except ImportError:
    from tflite_runtime.interpreter import Interpreter'

if [ -x "$PY" ] && "$PY" -c "$probe" 2>/dev/null; then echo "$PY"; exit 0; fi

BASE="$(command -v python3 || true)"
[ -n "$BASE" ] || { echo "SKIP: no python3 to create the oracle venv"; exit 0; }
if [ ! -x "$PY" ]; then
  "$BASE" -m venv "$VENV" >/dev/null 2>&1 || {
    rm -rf "$VENV"; echo "SKIP: '$BASE -m venv' failed (install python3-venv)"; exit 0; }
fi
PIP=("$PY" -m pip install --quiet --disable-pip-version-check --timeout 30 --retries 1)
# Registry reachability: numpy is needed in every case.
if ! "${PIP[@]}" numpy >/dev/null 2>&1; then
  echo "SKIP: cannot install numpy from PyPI (registry unreachable?)"; exit 0
fi
if ! "${PIP[@]}" ai-edge-litert >/dev/null 2>&1 && ! "${PIP[@]}" tflite-runtime >/dev/null 2>&1; then
  echo "SKIP: neither ai-edge-litert nor tflite-runtime installs from PyPI for $("$PY" -V)"; exit 0
fi
"$PY" -c "$probe" || { echo "oracle venv $VENV: interpreter import fails" >&2; exit 1; }
echo "$PY"
