#!/usr/bin/env bash
# End-to-end tests of `sluice pose` (the CLI conventions of `sluice hands`):
# JSON Lines, CSV, masks, annotated image/video, corrupt frames, bad input.
#   bash tests/pose_cli_test.sh path/to/sluice
# Inputs: ../shared/testdata (four_077fa4bf.jpg: a person from the knees up,
# facing the camera; dino.jpg: no person for the full model). Values are
# checked with python3's stdlib only; pixels of images/videos via ffmpeg.
set -uo pipefail
sluice="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shared="$(cd "${SLUICE_SHARED_DIR:-../shared}" && pwd)"
person="$shared/testdata/hands/four_077fa4bf.jpg"
nobody="$shared/testdata/images/dino.jpg"
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

# count_rgb IMAGE R G B: pixels of exactly that colour (decoded by ffmpeg).
count_rgb() {
  ffmpeg -nostdin -loglevel error -i "$1" -f rawvideo -pix_fmt rgb24 - | python3 -c '
import sys; b=sys.stdin.buffer.read(); c=bytes(int(v) for v in sys.argv[1:4])
print(sum(1 for i in range(0, len(b), 3) if b[i:i+3]==c))' "$2" "$3" "$4"
}

# --- one photo: every output at once ---
check "pose: photo -> JSONL, CSV, mask and annotated image" 0 "masks: .*\(1 PNG files" -- \
  "$sluice" pose --input "$person" --landmarks "$tmp/p.jsonl" --csv "$tmp/p.csv" \
  --mask-dir "$tmp/masks" --output "$tmp/annotated.png"
cp "$tmp/err" "$tmp/summary"
check "pose: summary line" 0 \
  "^pose: 1 frames \(0 skipped\), a pose in 1 of 1 frames, .* fps; per frame: .*pose landmarks" -- \
  cat "$tmp/summary"
check "pose: summary names the outputs" 0 "^annotated: image file" -- \
  grep -E "^(landmarks: .*p.jsonl|csv: .*p.csv|annotated: image)" "$tmp/summary"
check "pose: the JSONL line has the documented fields and a plausible body" 0 "^ok$" -- \
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline())
assert list(d)==["frame","timestamp_us","width","height","poses"], list(d)
assert d["frame"]==0 and d["timestamp_us"]==0 and (d["width"],d["height"])==(384,512), d
assert len(d["poses"])==1, d["poses"]; p=d["poses"][0]
assert list(p)==["landmarks","world_landmarks"], list(p)
lm, w = p["landmarks"], p["world_landmarks"]
assert len(lm)==33 and len(w)==33 and all(len(q)==5 for q in lm+w), (len(lm), len(w))
assert all(0<=q[3]<=1 and 0<=q[4]<=1 for q in lm+w), "visibility/presence outside [0, 1]"
assert [q[3:] for q in lm]==[q[3:] for q in w], "world landmarks carry the same scores"
assert lm[0][1] < lm[11][1] < lm[23][1], "nose above shoulders above hips"
assert lm[11][0] > lm[12][0], "the person faces the camera: their left shoulder is on the right"
assert lm[0][3] > 0.9 and lm[11][3] > 0.9, "face and shoulders are visible"
hip = [(a+b)/2 for a,b in zip(w[23][:3], w[24][:3])]
assert max(abs(v) for v in hip) < 0.05, ("world origin between the hips", hip)
assert 0.2 < abs(w[11][0]-w[12][0]) < 0.6, ("shoulder width in metres", w[11], w[12])
print("ok")' "$tmp/p.jsonl"
check "pose: CSV has a header and one row of 335 columns matching the JSONL" 0 "^ok$" -- \
  python3 -c 'import csv,json,sys
rows=list(csv.reader(open(sys.argv[1]))); d=json.loads(open(sys.argv[2]).readline())
assert len(rows)==2, len(rows); h, r = rows
assert len(h)==335 and len(r)==335, (len(h), len(r))
assert h[:7]==["frame","timestamp_us","width","height","detected","nose_x","nose_y"], h[:7]
assert h[-1]=="world_right_foot_index_presence" and "left_shoulder_visibility" in h, h[-1]
v=dict(zip(h,r)); assert v["detected"]=="1" and v["width"]=="384", v["detected"]
lm=d["poses"][0]["landmarks"]; w=d["poses"][0]["world_landmarks"]
assert abs(float(v["left_wrist_y"])-lm[15][1])<1e-6 and abs(float(v["world_right_hip_z"])-w[24][2])<1e-6
print("ok")' "$tmp/p.csv" "$tmp/p.jsonl"
# The mask, 8-bit gray at the image size: the chest (between shoulders and
# hips) is person, the top-left corner (a wall) is not.
check "pose: mask PNG is the image size, person on the chest, not in the corner" 0 "^ok$" -- \
  bash -c "ffmpeg -nostdin -loglevel error -i '$tmp/masks/000000.png' -f rawvideo -pix_fmt gray - |
  python3 -c 'import json,sys; m=sys.stdin.buffer.read(); assert len(m)==384*512, len(m)
lm=json.loads(open(sys.argv[1]).readline())[\"poses\"][0][\"landmarks\"]
x=int(384*(lm[11][0]+lm[12][0]+lm[23][0]+lm[24][0])/4); y=int(512*(lm[11][1]+lm[12][1]+lm[23][1]+lm[24][1])/4)
assert m[y*384+x] > 200, (x, y, m[y*384+x]); assert m[5*384+5] < 30, m[5*384+5]
print(\"ok\")' '$tmp/p.jsonl'"
check "pose: annotated image at the input size" 0 "384 x 512" -- file "$tmp/annotated.png"
# drawing_styles' pose colours: the person's left side orange, right side cyan.
check "pose: skeleton drawn (orange left, cyan right landmarks)" 0 "^yes$" -- bash -c \
  "$(declare -f count_rgb); o=\$(count_rgb '$tmp/annotated.png' 255 138 0); c=\$(count_rgb '$tmp/annotated.png' 0 217 231);
   p=\$(count_rgb '$person' 255 138 0); [ \$o -gt \$((p + 20)) ] && [ \$c -gt 20 ] && echo yes || echo \"no: \$o \$c \$p\""
check "pose: --mask-alpha 0 leaves the person's pixels untinted" 0 "^yes$" -- bash -c \
  "'$sluice' pose -i '$person' --segmentation -o '$tmp/plain.png' --mask-alpha 0 -q &&
   '$sluice' pose -i '$person' -o '$tmp/nomask.png' -q && cmp -s '$tmp/plain.png' '$tmp/nomask.png' &&
   ! cmp -s '$tmp/plain.png' '$tmp/annotated.png' && echo yes"

# --- no person, options ---
check "pose: no person -> empty poses" 0 '"poses": \[\]' -- \
  "$sluice" pose --input "$nobody" --landmarks /dev/stdout --quiet
check "pose: no person -> CSV row with detected 0 and empty cells" 0 "^ok$" -- bash -c \
  "'$sluice' pose --input '$nobody' --csv '$tmp/none.csv' --mask-dir '$tmp/none_masks' -q &&
   python3 -c 'import csv,sys; h,r=list(csv.reader(open(sys.argv[1])))
assert len(r)==335 and r[4]==\"0\" and all(v==\"\" for v in r[5:]), r[:8]; print(\"ok\")' '$tmp/none.csv' &&
   [ -d '$tmp/none_masks' ] && [ -z \"\$(ls '$tmp/none_masks')\" ]"
check "pose: --min-tracking-confidence 1 drops the pose" 0 '"poses": \[\]' -- \
  "$sluice" pose --input "$person" --min-tracking-confidence 1 --landmarks /dev/stdout --quiet
for c in 0 2; do
  check "pose: --model-complexity $c finds the person" 0 '"poses": \[\{"landmarks"' -- \
    "$sluice" pose --input "$person" --model-complexity "$c" --static --landmarks /dev/stdout --quiet
done
check "pose: --show-rois draws the tracked region" 0 "annotated: image" -- \
  "$sluice" pose --input "$person" --show-rois -o "$tmp/rois.png"
check "pose: --quiet prints nothing" 0 "^$" -- bash -c \
  "'$sluice' pose --input '$person' --quiet 2>&1 | wc -c | sed 's/^0$//'"

# --- folders, corrupt frames, video ---
mkdir -p "$tmp/folder"
cp "$person" "$tmp/folder/a.jpg"
printf 'not an image' >"$tmp/folder/b.jpg"
cp "$shared/testdata/hands/rock_055f8be9.jpg" "$tmp/folder/c.jpg"
check "pose: a corrupt file in a folder is reported and skipped" 0 "frame 1 skipped" -- \
  "$sluice" pose --input "$tmp/folder" --static --landmarks "$tmp/folder.jsonl" --csv "$tmp/folder.csv"
check "pose: the other frames are kept, numbered as read, each with a pose" 0 "^0 2 / 1 1$" -- \
  python3 -c 'import json,sys; f=[json.loads(l) for l in open(sys.argv[1])]
print(*[x["frame"] for x in f], "/", *[len(x["poses"]) for x in f])' "$tmp/folder.jsonl"
check "pose: CSV rows numbered as read" 0 "^0 2$" -- bash -c "tail -n +2 '$tmp/folder.csv' | cut -d, -f1 | paste -sd' '"
mkdir -p "$tmp/clip"
for i in 0 1 2 3 4 5 6 7; do cp "$person" "$tmp/clip/$i.jpg"; done
check "pose: annotated video with the mask blended, from a folder, with a trace" 0 "annotated: video" -- \
  "$sluice" pose --input "$tmp/clip" --output "$tmp/clip.mp4" --segmentation --trace "$tmp/trace.json"
check "pose: the trace names the graph's nodes" 0 "PoseLandmarkByRoi|poselandmarkbyroicpu" -- cat "$tmp/trace.json"
check "pose: video in (tracking), JSONL and one mask per frame out" 0 "8 frames \(0 skipped\), a pose in 8 of 8 frames" -- \
  "$sluice" pose --input "$tmp/clip.mp4" --landmarks "$tmp/clip.jsonl" --mask-dir "$tmp/vmasks"
check "pose: 8 lines and 8 masks" 0 "^8 8$" -- bash -c "echo \$(wc -l < '$tmp/clip.jsonl') \$(ls '$tmp/vmasks' | wc -l)"
check "pose: --no-smooth and --no-smooth-segmentation run on video" 0 "a pose in 8 of 8 frames" -- \
  "$sluice" pose --input "$tmp/clip.mp4" --no-smooth --segmentation --no-smooth-segmentation

# --- errors ---
check "pose error: unreadable input" 1 "no_such.mp4" -- "$sluice" pose --input "$tmp/no_such.mp4"
check "pose error: bad --model-complexity" 1 "model_complexity must be 0, 1 or 2" -- \
  "$sluice" pose --input "$person" --model-complexity 3
check "pose error: bad --min-detection-confidence" 1 "min_detection_confidence must be in \[0, 1\]" -- \
  "$sluice" pose --input "$person" --min-detection-confidence 1.5
check "pose error: bad --min-tracking-confidence" 1 "min_tracking_confidence must be in \[0, 1\]" -- \
  "$sluice" pose --input "$person" --min-tracking-confidence -1
check "pose error: bad --mask-alpha" 1 "mask-alpha must be in \[0, 1\]" -- \
  "$sluice" pose --input "$person" --mask-alpha 2
check "pose error: unknown device" 1 "cpu, cuda or auto" -- \
  "$sluice" pose --input "$person" --device tpu
check "pose error: --landmarks not writable" 1 "cannot write --landmarks" -- \
  "$sluice" pose --input "$person" --landmarks "$tmp/no/such/dir/x.jsonl"
check "pose error: --csv not writable" 1 "cannot write --csv" -- \
  "$sluice" pose --input "$person" --csv "$tmp/no/such/dir/x.csv"
printf 'x' >"$tmp/afile"
check "pose error: --mask-dir not creatable" 1 "cannot create --mask-dir" -- \
  "$sluice" pose --input "$person" --mask-dir "$tmp/afile/sub"
check "pose error: all frames unreadable" 1 "could be read" -- \
  bash -c "mkdir -p '$tmp/bad' && cp '$tmp/folder/b.jpg' '$tmp/bad/' && '$sluice' pose -i '$tmp/bad'"
check "pose error: missing --input" 106 "input" -- "$sluice" pose
# A copy of the binary outside the checkout, run from elsewhere, finds no models.
mkdir -p "$tmp/elsewhere/bin/tools" && cp "$sluice" "$tmp/elsewhere/bin/tools/sluice"
check "pose error: models missing names the model and the fix" 1 "pose_(detection|landmark_full)\.tflite.*fetch_models" -- \
  env -C "$tmp/elsewhere" -u SLUICE_SHARED_DIR SLUICE_MODELS_DIR="$tmp/none" \
  "$tmp/elsewhere/bin/tools/sluice" pose --input "$person"

echo "pose cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
