#!/usr/bin/env bash
# End-to-end tests of `sluice face-mesh` on the shared photos.
#   bash tests/face_mesh_cli_test.sh path/to/sluice
set -uo pipefail
sluice="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shared="${SLUICE_SHARED_DIR:-../shared}"
photos="$(cd "$shared/reference/inputs" && pwd)"
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

check "face-mesh: portrait -> JSON Lines and an annotated image" 0 "annotated: image" -- \
  "$sluice" face-mesh --input "$photos/sergey.png" --landmarks "$tmp/sergey.jsonl" \
  --output "$tmp/sergey_annotated.png"
check "face-mesh: the line has exactly the documented fields, 1 face, 468 landmarks" 0 "^ok$" -- \
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline())
assert list(d)==["frame","timestamp_us","width","height","faces"], list(d)
assert d["frame"]==0 and d["timestamp_us"]==0 and d["width"]==600 and d["height"]==600, d
assert len(d["faces"])==1, d["faces"]; f=d["faces"][0]
assert list(f)==["landmarks"], list(f)
lm=f["landmarks"]; assert len(lm)==468 and all(len(p)==3 for p in lm), len(lm)
assert 0.4<lm[1][0]<0.6 and 0.45<lm[1][1]<0.7, lm[1]   # nose tip near the centre
assert lm[33][0]<lm[263][0], (lm[33],lm[263])          # right eye corner on the left
print("ok")' "$tmp/sergey.jsonl"
check "face-mesh: annotated image written at the input size" 0 "600 x 600" -- file "$tmp/sergey_annotated.png"
# The tessellation is drawn gray (128,128,128): the annotated image has many such pixels.
gray_pixels() {
  ffmpeg -nostdin -loglevel error -i "$1" -f rawvideo -pix_fmt rgb24 - | python3 -c '
import sys; b=sys.stdin.buffer.read()
print(sum(1 for i in range(0, len(b), 3) if b[i:i+3]==b"\x80\x80\x80"))'
}
check "face-mesh: mesh drawn (many more pure gray pixels than in the photo)" 0 "^yes$" -- bash -c \
  "$(declare -f gray_pixels); a=\$(gray_pixels '$photos/sergey.png'); b=\$(gray_pixels '$tmp/sergey_annotated.png'); [ \$b -gt \$((a + 2000)) ] && echo yes || echo \"no: \$a \$b\""
check "face-mesh: --refine-landmarks gives 478 landmarks" 0 "^478$" -- bash -c \
  "'$sluice' face-mesh --input '$photos/lenna.png' --refine-landmarks --landmarks /dev/stdout --quiet |
   python3 -c 'import json,sys; print(len(json.loads(sys.stdin.readline())[\"faces\"][0][\"landmarks\"]))'"
check "face-mesh: no face -> empty list" 0 '"faces": \[\]' -- \
  "$sluice" face-mesh --input "$photos/dino.png" --landmarks /dev/stdout --quiet
check "face-mesh: --min-tracking-confidence 1 drops every face" 0 '"faces": \[\]' -- \
  "$sluice" face-mesh --input "$photos/sergey.png" --min-tracking-confidence 1 \
  --landmarks /dev/stdout --quiet
check "face-mesh: --quiet prints nothing" 0 "^$" -- bash -c \
  "'$sluice' face-mesh --input '$photos/lenna.png' --quiet 2>&1 | wc -c | sed 's/^0$//'"

mkdir -p "$tmp/folder"
cp "$photos/sergey.png" "$tmp/folder/a.png"
printf 'not an image' >"$tmp/folder/b.png"
cp "$photos/lenna.png" "$tmp/folder/c.png"
check "face-mesh: a corrupt file in a folder is reported and skipped" 0 "frame 1 skipped" -- \
  "$sluice" face-mesh --input "$tmp/folder" --static --landmarks "$tmp/folder.jsonl"
check "face-mesh: the other frames are kept, numbered as read" 0 "^0 2$" -- \
  python3 -c 'import json,sys; print(*[json.loads(l)["frame"] for l in open(sys.argv[1])])' \
  "$tmp/folder.jsonl"
check "face-mesh: summary line" 0 "2 frames \(1 skipped\), 2 faces found, .* fps; per frame: .*face landmarks" -- \
  "$sluice" face-mesh --input "$tmp/folder" --static

mkdir -p "$tmp/clip"
for i in 0 1 2 3 4 5 6 7 8 9; do cp "$photos/sergey.png" "$tmp/clip/$i.png"; done
check "face-mesh: annotated video from a folder, with a trace" 0 "annotated: video" -- \
  "$sluice" face-mesh --input "$tmp/clip" --output "$tmp/clip.mp4" --trace "$tmp/trace.json" --max-faces 2
check "face-mesh: the trace names the graph's nodes" 0 "LandmarksToDetectionCalculator" -- cat "$tmp/trace.json"
check "face-mesh: the video decodes back to 10 frames with one face each" 0 "^10 10$" -- bash -c \
  "'$sluice' face-mesh --input '$tmp/clip.mp4' --landmarks '$tmp/clip.jsonl' --quiet &&
   python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])]; print(len(f), sum(len(x[\"faces\"]) for x in f))' '$tmp/clip.jsonl'"

check "face-mesh error: unreadable input" 1 "no_such.mp4" -- \
  "$sluice" face-mesh --input "$tmp/no_such.mp4"
check "face-mesh error: bad --max-faces" 1 "max_num_faces must be >= 1" -- \
  "$sluice" face-mesh --input "$photos/lenna.png" --max-faces 0
check "face-mesh error: bad --min-detection-confidence" 1 "min_detection_confidence must be in \[0, 1\]" -- \
  "$sluice" face-mesh --input "$photos/lenna.png" --min-detection-confidence 1.5
check "face-mesh error: bad --min-tracking-confidence" 1 "min_tracking_confidence must be in \[0, 1\]" -- \
  "$sluice" face-mesh --input "$photos/lenna.png" --min-tracking-confidence -1
check "face-mesh error: unknown device" 1 "cpu, cuda or auto" -- \
  "$sluice" face-mesh --input "$photos/lenna.png" --device tpu
check "face-mesh error: --landmarks not writable" 1 "cannot write" -- \
  "$sluice" face-mesh --input "$photos/lenna.png" --landmarks "$tmp/no/such/dir/x.jsonl"
check "face-mesh error: missing --input" 106 "input" -- "$sluice" face-mesh
# A copy of the binary outside the checkout, run from elsewhere, finds no models.
mkdir -p "$tmp/elsewhere/bin/tools" && cp "$sluice" "$tmp/elsewhere/bin/tools/sluice"
check "face-mesh error: models missing names the model and the fix" 1 "(face_detection_short_range|face_landmark)\.tflite.*fetch_models" -- \
  env -C "$tmp/elsewhere" -u SLUICE_SHARED_DIR SLUICE_MODELS_DIR="$tmp/none" \
  "$tmp/elsewhere/bin/tools/sluice" face-mesh --input "$photos/lenna.png"

echo "face-mesh cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
