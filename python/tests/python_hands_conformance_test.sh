#!/usr/bin/env bash
# Hand tracking conformance through the Python package: tests/hands/
# hands_conformance_test.sh (same inputs, same oracle, same tolerances)
# with `sluice hands` played by sluice.solutions.hands (hands_landmarks_jsonl.py).
#   python_hands_conformance_test.sh PYTHON BUILD_PYTHON_DIR [CACHE_DIR]
# Exit: 0 pass, 1 fail, 77 skipped (module not built, or no oracle).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PY="$1"; PYDIR="$(cd "$2" 2>/dev/null && pwd)" || { echo "SKIP: no $2"; exit 77; }
CACHE="${3:-${TMPDIR:-/tmp}/sluice_hands_oracle}"
if ! ls "$PYDIR"/sluice/_sluice*.so >/dev/null 2>&1; then
  echo "SKIP: the sluice Python module is not built in $PYDIR"; exit 77
fi
if ! "$PY" -c "import cv2, numpy" 2>/dev/null; then
  echo "SKIP: $PY lacks cv2 or numpy (Debian: python3-opencv python3-numpy)"; exit 77
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A stand-in for the `sluice` binary that the CLI test drives.
cat > "$WORK/sluice" <<EOS
#!/usr/bin/env bash
if [ "\${1:-}" = "--help" ]; then printf 'Subcommands:\n  hands    (sluice.solutions.hands)\n'; exit 0; fi
PYTHONPATH="$PYDIR\${PYTHONPATH:+:\$PYTHONPATH}" exec "$PY" "$HERE/hands_landmarks_jsonl.py" "\$@"
EOS
chmod +x "$WORK/sluice"
bash "$REPO/tests/hands/hands_conformance_test.sh" "$WORK/sluice" "$CACHE"
