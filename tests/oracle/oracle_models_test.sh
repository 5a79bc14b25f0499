#!/usr/bin/env bash
# ctest wrapper: every model through Google's interpreter and through our
# reference and xnnpack backends (tests/oracle/compare_models.py).
# usage: oracle_models_test.sh PATH/TO/sluice_run_model [extra compare args]
# Exit 77 (ctest SKIP_RETURN_CODE) when the oracle cannot be installed.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
TOOL="${1:?usage: oracle_models_test.sh SLUICE_RUN_MODEL}"; shift
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}"
MODELS="${SLUICE_ORACLE_MODELS:-$SHARED/models}"
[ -d "$MODELS" ] || { echo "SKIP: no models in $MODELS"; exit 77; }

out="$("$HERE/setup_oracle_venv.sh")" || { echo "$out"; echo "oracle venv setup failed"; exit 1; }
echo "$out"
if grep -q '^SKIP:' <<<"$out"; then exit 77; fi
PY="$(tail -n1 <<<"$out")"
# Pillow decodes the test photo; optional (a synthetic image is used without it).
"$PY" -c 'import PIL' 2>/dev/null ||
  "$PY" -m pip install --quiet --disable-pip-version-check --timeout 30 pillow >/dev/null 2>&1 || true
exec "$PY" "$HERE/compare_models.py" --tool "$TOOL" --models "$MODELS" \
  --image "$SHARED/testdata/images/sergey.png" "$@"
