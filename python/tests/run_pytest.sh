#!/usr/bin/env bash
# Runs the package's pytest suite against a build folder's python/ tree.
#   run_pytest.sh PYTHON BUILD_PYTHON_DIR [pytest args...]
# Exit: pytest's status; 77 (skipped) when the module is not built or pytest /
# numpy are missing.
set -uo pipefail
PY="$1"; PYDIR="$2"; shift 2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! ls "$PYDIR"/sluice/_sluice*.so >/dev/null 2>&1; then
  echo "SKIP: the sluice Python module is not built in $PYDIR (needs pybind11-dev, python3-dev)"
  exit 77
fi
if ! "$PY" -c "import pytest, numpy" 2>/dev/null; then
  echo "SKIP: $PY lacks pytest or numpy (Debian: python3-pytest python3-numpy)"
  exit 77
fi
export PYTHONPATH="$PYDIR${PYTHONPATH:+:$PYTHONPATH}"
exec "$PY" -m pytest -q -p no:cacheprovider "$HERE" "$@"
