#!/usr/bin/env bash
# End-to-end tests of `sluice face` (face detection) on the shared photos.
#   bash tests/face_cli_test.sh path/to/sluice
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

check "face: portrait -> JSON Lines and an annotated image" 0 "annotated: image" -- \
  "$sluice" face --input "$photos/sergey.png" --landmarks "$tmp/sergey.jsonl" \
  --output "$tmp/sergey_annotated.png"
check "face: the line has exactly the documented fields, 1 face, 6 keypoints" 0 "^ok$" -- \
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline())
assert list(d)==["frame","timestamp_us","width","height","faces"], list(d)
assert d["frame"]==0 and d["timestamp_us"]==0 and d["width"]==600 and d["height"]==600, d
assert len(d["faces"])==1, d["faces"]; f=d["faces"][0]
assert list(f)==["box","score","keypoints"], list(f)
x,y,w,h=f["box"]; assert 0.1<x<0.4 and 0.1<y<0.4 and 0.4<w<0.8 and 0.4<h<0.8, f["box"]
assert 0.5<=f["score"]<=1 and len(f["keypoints"])==6 and all(len(k)==2 for k in f["keypoints"])
re,le=f["keypoints"][0],f["keypoints"][1]; assert re[0]<le[0], (re,le)  # right eye on the left
print("ok")' "$tmp/sergey.jsonl"
check "face: annotated image written at the input size" 0 "600 x 600" -- file "$tmp/sergey_annotated.png"
# Keypoints are drawn pure red: the annotated image has such pixels, the photo none.
red_pixels() {
  ffmpeg -nostdin -loglevel error -i "$1" -f rawvideo -pix_fmt rgb24 - | python3 -c '
import sys; b=sys.stdin.buffer.read()
print(sum(1 for i in range(0, len(b), 3) if b[i:i+3]==b"\xff\x00\x00"))'
}
check "face: keypoints drawn (red pixels: none in the photo, some in the annotated image)" 0 \
  "^0 [1-9][0-9]+$" -- bash -c "$(declare -f red_pixels); echo \$(red_pixels '$photos/sergey.png') \$(red_pixels '$tmp/sergey_annotated.png')"
check "face: full range finds the face too" 0 '"faces": \[\{"box"' -- \
  "$sluice" face --input "$photos/sergey.png" --model-selection 1 --landmarks /dev/stdout --quiet
check "face: no face -> empty list" 0 '"faces": \[\]' -- \
  "$sluice" face --input "$photos/dino.png" --landmarks /dev/stdout --quiet
check "face: --min-detection-confidence above the score drops the face" 0 '"faces": \[\]' -- \
  "$sluice" face --input "$photos/sergey.png" --min-detection-confidence 0.99 \
  --landmarks /dev/stdout --quiet
check "face: --quiet prints nothing" 0 "^$" -- bash -c \
  "'$sluice' face --input '$photos/lenna.png' --quiet 2>&1 | wc -c | sed 's/^0$//'"

mkdir -p "$tmp/folder"
cp "$photos/sergey.png" "$tmp/folder/a.png"
printf 'not an image' >"$tmp/folder/b.png"
cp "$photos/lenna.png" "$tmp/folder/c.png"
check "face: a corrupt file in a folder is reported and skipped" 0 "frame 1 skipped" -- \
  "$sluice" face --input "$tmp/folder" --landmarks "$tmp/folder.jsonl"
check "face: the other frames are kept, numbered as read" 0 "^0 2$" -- \
  python3 -c 'import json,sys; print(*[json.loads(l)["frame"] for l in open(sys.argv[1])])' \
  "$tmp/folder.jsonl"
check "face: summary line" 0 "2 frames \(1 skipped\), 2 faces found, .* fps; per frame: .*face model" -- \
  "$sluice" face --input "$tmp/folder"

mkdir -p "$tmp/clip"
for i in 0 1 2 3 4 5 6 7 8 9; do cp "$photos/sergey.png" "$tmp/clip/$i.png"; done
check "face: annotated video from a folder, with a trace" 0 "annotated: video" -- \
  "$sluice" face --input "$tmp/clip" --output "$tmp/clip.mp4" --trace "$tmp/trace.json"
check "face: the trace names the graph's nodes" 0 "DetectionProjectionCalculator" -- cat "$tmp/trace.json"
check "face: the video decodes back to 10 frames with one face each" 0 "^10 10$" -- bash -c \
  "'$sluice' face --input '$tmp/clip.mp4' --landmarks '$tmp/clip.jsonl' --quiet &&
   python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])]; print(len(f), sum(len(x[\"faces\"]) for x in f))' '$tmp/clip.jsonl'"

check "face error: unreadable input" 1 "no_such.mp4" -- \
  "$sluice" face --input "$tmp/no_such.mp4"
check "face error: bad --model-selection" 1 "model_selection must be 0 or 1" -- \
  "$sluice" face --input "$photos/lenna.png" --model-selection 2
check "face error: bad --min-detection-confidence" 1 "min_detection_confidence must be in \[0, 1\]" -- \
  "$sluice" face --input "$photos/lenna.png" --min-detection-confidence 1.5
check "face error: unknown device" 1 "cpu, cuda or auto" -- \
  "$sluice" face --input "$photos/lenna.png" --device tpu
check "face error: --landmarks not writable" 1 "cannot write" -- \
  "$sluice" face --input "$photos/lenna.png" --landmarks "$tmp/no/such/dir/x.jsonl"
check "face error: missing --input" 106 "input" -- "$sluice" face
# A copy of the binary outside the checkout, run from elsewhere, finds no models.
mkdir -p "$tmp/elsewhere/bin/tools" && cp "$sluice" "$tmp/elsewhere/bin/tools/sluice"
check "face error: models missing names the model and the fix" 1 "face_detection_short_range.tflite.*fetch_models" -- \
  env -C "$tmp/elsewhere" -u SLUICE_SHARED_DIR SLUICE_MODELS_DIR="$tmp/none" \
  "$tmp/elsewhere/bin/tools/sluice" face --input "$photos/lenna.png"

echo "face cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
