#!/usr/bin/env bash
# End-to-end tests of `sluice selfie` (the CLI conventions of `sluice hands`).
#   bash tests/selfie_cli_test.sh path/to/sluice
# Mask values are checked with python3's stdlib only (zlib PNG decoding).
set -uo pipefail
sluice="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shared="${SLUICE_SHARED_DIR:-../shared}"
images="$shared/testdata/images"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() {  # check NAME EXPECTED_EXIT GREP_PATTERN_OR_- -- CMD...
  local name="$1" want_rc="$2" pattern="$3"
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local ok=1
  [ "$rc" = "$want_rc" ] || ok=0
  if [ "$pattern" != "-" ] && ! grep -qE -- "$pattern" "$tmp/out" "$tmp/err"; then ok=0; fi
  if [ $ok = 1 ]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (exit $rc, wanted $want_rc)"
    sed 's/^/     out: /' "$tmp/out" | head -20; sed 's/^/     err: /' "$tmp/err" | head -20
  fi
}

# pixel PNG X Y: the pixel's channel values (8-bit, non-interlaced PNGs), space-separated.
pixel() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
  n, kind = struct.unpack(">I4s", data[pos:pos + 8])
  body = data[pos + 8:pos + 8 + n]
  if kind == b"IHDR":
    w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
  elif kind == b"IDAT":
    idat += body
  pos += 12 + n
ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
raw = zlib.decompress(idat)
stride = w * ch
rows, prev = [], bytearray(stride)
for r in range(h):
  f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
  for i in range(stride):
    a = line[i - ch] if i >= ch else 0
    b = prev[i]
    c = prev[i - ch] if i >= ch else 0
    if f == 1: line[i] = (line[i] + a) & 255
    elif f == 2: line[i] = (line[i] + b) & 255
    elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
    elif f == 4:
      p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
      line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
  rows.append(line); prev = line
print(w, h, *rows[y][x * ch:(x + 1) * ch])
PY
}

# --- masks and background replacement on a portrait (sergey.png, 600x600) ---
check "selfie: portrait -> mask PNG and composited image" 0 "masks: .*1 PNG files" -- \
  "$sluice" selfie --input "$images/sergey.png" --mask-dir "$tmp/masks" \
  --output "$tmp/green.png" --background "#00ff00"
cp "$tmp/err" "$tmp/summary"
check "selfie: summary line" 0 "1 frames \(0 skipped\), person [0-9]+% .*fps; per frame" -- \
  cat "$tmp/summary"
read -r mw mh corner extra <<<"$(pixel "$tmp/masks/000000.png" 3 3)"
check "selfie: mask is 8-bit gray of the image size" 0 - -- test "$mw,$mh,${extra:-gray}" = "600,600,gray"
check "selfie: mask background corner ~0" 0 - -- test "$corner" -lt 20
read -r _ _ body <<<"$(pixel "$tmp/masks/000000.png" $((mw / 2)) $((mh * 3 / 4)))"
check "selfie: mask person pixel ~255" 0 - -- test "$body" -gt 235
read -r _ _ r g b <<<"$(pixel "$tmp/green.png" 3 3)"
check "selfie: background replaced by the colour" 0 - -- test "$r,$g,$b" = "0,255,0"
check "selfie: colour as r,g,b and the landscape model" 0 "output: image file" -- \
  "$sluice" selfie -i "$images/sergey.png" -o "$tmp/red.png" --background "255,0,0" \
  --model-selection 1
read -r _ _ r g b <<<"$(pixel "$tmp/red.png" 3 3)"
check "selfie: r,g,b colour used" 0 - -- test "$r,$g,$b" = "255,0,0"
check "selfie: background image resized to the frame" 0 - -- \
  "$sluice" selfie -i "$images/sergey.png" -o "$tmp/dino_bg.png" --background "$images/dino.jpg" -q
read -r w h _ <<<"$(pixel "$tmp/dino_bg.png" 0 0)"
check "selfie: composited image keeps the frame size" 0 - -- test "$w,$h" = "$mw,$mh"
check "selfie: blur (default background)" 0 "output: image file" -- \
  "$sluice" selfie -i "$images/sergey.png" -o "$tmp/blur.png"

# --- folders, corrupt frames, video, smoothing ---
mkdir -p "$tmp/folder"
cp "$images/sergey.png" "$tmp/folder/a.png"
printf 'not an image' >"$tmp/folder/b.png"
cp "$images/lenna.png" "$tmp/folder/c.png"
check "selfie: a corrupt file in a folder is reported and skipped" 0 "frame 1 skipped" -- \
  "$sluice" selfie --input "$tmp/folder" --mask-dir "$tmp/fmasks"
check "selfie: masks named by frame index" 0 "^000000.png 000002.png $" -- \
  bash -c "ls '$tmp/fmasks' | tr '\n' ' '"
mkdir -p "$tmp/clip"
for i in 0 1 2 3 4 5 6 7; do cp "$images/sergey.png" "$tmp/clip/$i.png"; done
check "selfie: video output from a folder" 0 "output: video" -- \
  "$sluice" selfie --input "$tmp/clip" --output "$tmp/clip.mp4" --background "0,0,255"
check "selfie: video in, smoothed masks out" 0 "8 frames \(0 skipped\)" -- \
  "$sluice" selfie --input "$tmp/clip.mp4" --mask-dir "$tmp/vmasks" --smooth --trace "$tmp/trace.json"
check "selfie: one mask per video frame" 0 "^8$" -- bash -c "ls '$tmp/vmasks' | wc -l"
check "selfie: trace written" 0 "traceEvents" -- head -c 200 "$tmp/trace.json"
check "selfie: --quiet prints nothing" 0 - -- \
  bash -c "'$sluice' selfie -i '$images/lenna.png' --quiet 2>&1 | wc -c | grep -qx 0"

# --- errors ---
check "selfie error: unreadable input" 1 "no_such.mp4" -- \
  "$sluice" selfie --input "$tmp/no_such.mp4"
check "selfie error: bad --model-selection" 1 "model_selection must be 0 or 1" -- \
  "$sluice" selfie --input "$images/lenna.png" --model-selection 2
check "selfie error: bad --background" 1 "not blur, a colour" -- \
  "$sluice" selfie --input "$images/lenna.png" -o "$tmp/x.png" --background "#12345"
check "selfie error: unreadable background image" 1 "cannot be read" -- \
  "$sluice" selfie --input "$images/lenna.png" -o "$tmp/x.png" --background "$tmp/folder/b.png"
check "selfie error: unknown device" 1 "cpu, cuda or auto" -- \
  "$sluice" selfie --input "$images/lenna.png" --device tpu
printf 'x' >"$tmp/afile"
check "selfie error: --mask-dir not creatable" 1 "cannot create --mask-dir" -- \
  "$sluice" selfie --input "$images/lenna.png" --mask-dir "$tmp/afile/sub"
check "selfie error: all frames unreadable" 1 "could be read" -- \
  bash -c "mkdir -p '$tmp/bad' && cp '$tmp/folder/b.png' '$tmp/bad/' && '$sluice' selfie -i '$tmp/bad'"

echo "selfie cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
