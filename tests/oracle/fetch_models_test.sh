#!/usr/bin/env bash
# Checks tools/fetch_models.sh in offline (--from) mode: a corrupted source file
# is rejected naming file, expected and actual hash; good files still install;
# a second run over a complete folder does nothing. Exit 77 = skipped.
set -uo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SHARED="${SLUICE_SHARED_DIR:-$REPO/../shared}/models"
FETCH="$REPO/tools/fetch_models.sh"
if [ ! -f "$SHARED/hand_recrop.tflite" ]; then
  echo "SKIP: no shared models in $SHARED"; exit 77
fi
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$T/src" "$T/dest"
for f in "$SHARED"/*.tflite; do ln -s "$f" "$T/src/$(basename "$f")"; done
BAD=hand_recrop.tflite
rm "$T/src/$BAD"; cp "$SHARED/$BAD" "$T/src/$BAD"; printf 'x' >> "$T/src/$BAD"
ACTUAL="$(sha256sum "$T/src/$BAD" | cut -d' ' -f1)"
EXPECTED="$(awk -v n=$BAD '$2==n {print $1; exit}' "$REPO/models.sha256")"

"$FETCH" --from "$T/src" --dest "$T/dest" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] || fail "corrupted $BAD accepted (exit 0)"
grep -q "checksum mismatch: $T/src/$BAD" "$T/err" || fail "error does not name $BAD: $(cat "$T/err")"
grep -q "expected .*$EXPECTED" "$T/err" || fail "error lacks expected hash: $(cat "$T/err")"
grep -q "actual $ACTUAL" "$T/err" || fail "error lacks actual hash: $(cat "$T/err")"
[ ! -e "$T/dest/$BAD" ] || fail "corrupted $BAD was installed"
[ -f "$T/dest/palm_detection_lite.tflite" ] || fail "good models were not installed"

# Repair the source: the next run installs only the missing file.
rm "$T/src/$BAD"; ln -s "$SHARED/$BAD" "$T/src/$BAD"
"$FETCH" --from "$T/src" --dest "$T/dest" >"$T/out" 2>&1 || fail "repaired run failed: $(cat "$T/out")"
[ "$(grep -c installed "$T/out")" = 1 ] || fail "expected exactly one install: $(cat "$T/out")"

# Idempotent: nothing to do, even with an unreachable source.
"$FETCH" --from /nonexistent --dest "$T/dest" >"$T/out" 2>&1 || fail "idempotent run failed: $(cat "$T/out")"
grep -q "present and verified" "$T/out" || fail "unexpected output: $(cat "$T/out")"

# A corrupted installed file is detected and replaced.
chmod u+w "$T/dest/$BAD"; printf 'y' >> "$T/dest/$BAD"
"$FETCH" --from "$T/src" --dest "$T/dest" >"$T/out" 2>&1 || fail "replace run failed: $(cat "$T/out")"
grep -q "unknown checksum" "$T/out" || fail "corruption of installed file not reported"
cmp -s "$T/dest/$BAD" "$SHARED/$BAD" || fail "$BAD not restored"

# Missing source file: clear error, non-zero exit.
rm "$T/dest/$BAD" "$T/src/$BAD"
"$FETCH" --from "$T/src" --dest "$T/dest" >"$T/out" 2>&1 && fail "missing model accepted"
grep -q "missing model: $BAD" "$T/out" || fail "missing model not named: $(cat "$T/out")"
# Wheel mode, offline: a cached (fake) wheel with one good and one corrupted
# model; the rest are reported missing from it.
mkdir "$T/cache" "$T/wdest"
python3 - "$SHARED" "$T/cache/mediapipe-0.10.21-cp311-cp311-manylinux_2_28_x86_64.whl" <<'PY'
import sys, zipfile
shared, wheel = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel, "w") as z:
    z.write(f"{shared}/hand_recrop.tflite", "mediapipe/modules/holistic_landmark/hand_recrop.tflite")
    data = open(f"{shared}/iris_landmark.tflite", "rb").read()
    z.writestr("mediapipe/modules/iris_landmark/iris_landmark.tflite", data[:-1])
PY
"$FETCH" --wheel-cache "$T/cache" --dest "$T/wdest" >"$T/out" 2>&1 && fail "incomplete wheel accepted"
grep -q "installed hand_recrop.tflite" "$T/out" || fail "wheel model not installed: $(cat "$T/out")"
grep -q "checksum mismatch: .*iris_landmark.tflite" "$T/out" || fail "corrupted wheel model not reported"
grep -q "warning: palm_detection_lite.tflite is not in the mediapipe" "$T/out" ||
  fail "missing wheel model not reported: $(cat "$T/out")"
# Only models the wheel lacks are missing: warnings, exit 0.
cp "$SHARED/iris_landmark.tflite" "$T/wdest/"
"$FETCH" --wheel-cache "$T/cache" --dest "$T/wdest" >"$T/out" 2>&1 ||
  fail "models absent from the wheel must only warn: $(cat "$T/out")"
grep -q "2 of 17 models present" "$T/out" || fail "summary missing: $(cat "$T/out")"
echo "PASS"
