#!/usr/bin/env bash
# End-to-end tests of the `sluice` CLI on the shared seed graphs.
#   bash tests/cli_test.sh path/to/sluice
set -uo pipefail
sluice="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shared="${SLUICE_SHARED_DIR:-../shared}"
graphs="$shared/graphs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() {  # check NAME EXPECTED_EXIT EXPECTED_STDOUT_FILE_OR_- GREP_PATTERN_OR_- -- CMD...
  local name="$1" want_rc="$2" want_out="$3" pattern="$4"
  shift 5
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local ok=1
  [ "$rc" = "$want_rc" ] || ok=0
  if [ "$want_out" != "-" ] && ! diff -u "$want_out" "$tmp/out" >"$tmp/diff"; then ok=0; fi
  if [ "$pattern" != "-" ] && ! grep -qE -- "$pattern" "$tmp/out" "$tmp/err"; then ok=0; fi
  if [ $ok = 1 ]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (exit $rc, wanted $want_rc)"
    sed 's/^/     out: /' "$tmp/out" | head -20; sed 's/^/     err: /' "$tmp/err" | head -20
    [ -s "$tmp/diff" ] && sed 's/^/     /' "$tmp/diff" | head -20
  fi
}

printf 'out4 0 1\nout4 1 2\nout4 2 3\n' >"$tmp/chain.want"
check "run: passthrough chain" 0 "$tmp/chain.want" - -- \
  "$sluice" run "$graphs/seed_passthrough_chain.pbtxt" --input in=int:1,2,3 --print out4

check "run: subgraph from --subgraphs behaves like the chain" 0 "$tmp/chain.want" - -- \
  "$sluice" run "$graphs/seed_main_pass_throughcals.pbtxt" \
  --subgraphs "$graphs/seed_two_pass_through_subgraph.pbtxt" --input in=int:1,2,3 --print out4

check "run: subgraph folder registration" 0 "$tmp/chain.want" - -- \
  "$sluice" run "$graphs/seed_main_pass_throughcals.pbtxt" \
  --subgraphs "$graphs" --input in=int:1,2,3 --print out4

printf 'sum 0 0\nsum 1 1\nsum 2 3\nsum 3 6\nsum 4 10\n' >"$tmp/sum.want"
check "run: cycle adder with a back edge" 0 "$tmp/sum.want" - -- \
  "$sluice" run "$graphs/seed_cycle_adder.pbtxt" --side global_counter=counter:0 --print sum

printf 'sum 0 1\nsum 1 3\nsum 2 6\n' >"$tmp/running.want"
check "run: example running sum" 0 "$tmp/running.want" - -- \
  "$sluice" run examples/graphs/running_sum.pbtxt --input in=int:1,2,3 --print sum

# No FINISHED back edge: max_in_flight 1 lets exactly the first frame through.
printf 'throttled_image 0 7\n' >"$tmp/flow.want"
check "run: flow limiter with Any options, fed stream declared on the fly" 0 "$tmp/flow.want" - -- \
  "$sluice" run "$graphs/seed_flow_limiter_options.pbtxt" --input image=int:7,8,9 --print throttled_image

check "run: --trace writes a Chrome trace" 0 - "PassThroughCalculator" -- \
  "$sluice" run "$graphs/seed_passthrough_chain.pbtxt" --input in=int:1,2,3 --trace "$tmp/trace.json"
check "trace file is JSON with events" 0 - "traceEvents" -- cat "$tmp/trace.json"

check "validate: OK" 0 - "^OK" -- "$sluice" validate "$graphs/seed_passthrough_chain.pbtxt"
check "validate: malformed config names the problem" 1 - "PassThroughCalculatr" -- \
  "$sluice" validate tests/malformed_configs/03_unknown_calculator_suggests_name.pbtxt
check "expand: prefixed subgraph node names" 0 - "twopassthroughsubgraph__PassThroughCalculator" -- \
  "$sluice" expand "$graphs/seed_main_pass_throughcals.pbtxt" \
  --subgraphs "$graphs/seed_two_pass_through_subgraph.pbtxt"
check "expand: a MediaPipe .binarypb prints back as text" 0 - "HandLandmarkTrackingCpu|calculator" -- \
  "$sluice" expand "$shared/mediapipe_graphs/binarypb/hands.binarypb"
check "viz: dot" 0 - "wrote" -- "$sluice" viz "$graphs/seed_passthrough_chain.pbtxt" -o "$tmp/g.dot"
check "viz: dot file has edges" 0 - "->" -- cat "$tmp/g.dot"
check "viz: svg through graphviz" 0 - "wrote" -- "$sluice" viz "$graphs/seed_cycle_adder.pbtxt" -o "$tmp/g.svg"
check "viz: svg file" 0 - "<svg" -- cat "$tmp/g.svg"

check "error: missing graph file" 1 - "no_such_graph.pbtxt" -- "$sluice" run "$tmp/no_such_graph.pbtxt"
check "error: bad --input value" 1 - "\"x\" as int" -- \
  "$sluice" run "$graphs/seed_passthrough_chain.pbtxt" --input in=int:1,x
check "error: --input of an unknown stream" 1 - "not an input_stream" -- \
  "$sluice" run "$graphs/seed_passthrough_chain.pbtxt" --input nope=int:1
check "error: bad --side spec" 1 - "NAME=TYPE:VALUE" -- \
  "$sluice" run "$graphs/seed_cycle_adder.pbtxt" --side global_counter
check "error: missing side packet" 1 - "global_counter" -- \
  "$sluice" run "$graphs/seed_cycle_adder.pbtxt" --print sum
check "error: viz to an unknown format" 1 - "\\.dot, \\.svg or \\.png" -- \
  "$sluice" viz "$graphs/seed_passthrough_chain.pbtxt" -o "$tmp/g.gif"

# --- sluice hands -------------------------------------------------------------
photos="$(cd "$shared/reference/inputs" && pwd)"
check "hands: photo -> JSON Lines and an annotated image" 0 - - -- \
  "$sluice" hands --input "$photos/four_06aa70cc.png" --static --landmarks "$tmp/four.jsonl" \
  --output "$tmp/four_annotated.png" --quiet
check "hands: one right hand (as MediaPipe labels it)" 0 - '"handedness": "Right"' -- cat "$tmp/four.jsonl"
check "hands: the line has the documented fields and 21 landmarks" 0 - "21 21" -- \
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); h=d["hands"][0]
assert set(d)=={"frame","timestamp_us","width","height","hands"} and d["frame"]==0 and d["width"]==384
assert set(h)=={"handedness","handedness_score","presence","landmarks","world_landmarks"}
print(len(h["landmarks"]), len(h["world_landmarks"]))' "$tmp/four.jsonl"
check "hands: annotated image written" 0 - "PNG" -- file "$tmp/four_annotated.png"
check "hands: no hand -> empty list" 0 - '"hands": \[\]' -- \
  "$sluice" hands --input "$photos/lenna.png" --landmarks /dev/stdout --quiet

mkdir -p "$tmp/folder"
cp "$photos/four_06aa70cc.png" "$tmp/folder/a.png"
cp "$photos/rock_026fd791.png" "$tmp/folder/c.png"
printf 'not an image' >"$tmp/folder/b.png"
check "hands: a corrupt file in a folder is reported and skipped" 0 - "frame 1 skipped" -- \
  "$sluice" hands --input "$tmp/folder" --landmarks "$tmp/folder.jsonl"
check "hands: the other frames are kept" 0 - "^2$" -- wc -l <"$tmp/folder.jsonl"
check "hands: summary line" 0 - "2 frames \(1 skipped\), 2 hands found" -- \
  "$sluice" hands --input "$tmp/folder" --model-complexity 0

mkdir -p "$tmp/clip"
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do cp "$photos/rock_026fd791.png" "$tmp/clip/$i.png"; done
check "hands: annotated video from a folder" 0 - "annotated: video" -- \
  "$sluice" hands --input "$tmp/clip" --output "$tmp/clip.mp4" --show-rois
# Garble bytes in the middle of the stream: frames decode with errors concealed
# or are reported; the run must neither crash nor lose the other frames.
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); n=len(b)
for i in range(n//2, n//2+400): b[i]=(b[i]*7+13)&255
open(p,"wb").write(b)' "$tmp/clip.mp4"
check "hands: video with corrupt bytes mid-stream" 0 - "frames" -- \
  "$sluice" hands --input "$tmp/clip.mp4" --landmarks "$tmp/clip.jsonl"
check "hands: tracked frames written" 0 - "^([6-9]|1[0-2])$" -- wc -l <"$tmp/clip.jsonl"

check "hands error: unreadable input" 1 - "no_such.mp4" -- \
  "$sluice" hands --input "$tmp/no_such.mp4"
check "hands error: bad --model-complexity" 1 - "model_complexity must be 0 or 1" -- \
  "$sluice" hands --input "$photos/lenna.png" --model-complexity 3
check "hands error: bad --max-hands" 1 - "max_num_hands must be >= 1" -- \
  "$sluice" hands --input "$photos/lenna.png" --max-hands 0
check "hands error: bad --min-detection-confidence" 1 - "min_detection_confidence" -- \
  "$sluice" hands --input "$photos/lenna.png" --min-detection-confidence 2
check "hands error: unknown device" 1 - "cpu, cuda or auto" -- \
  "$sluice" hands --input "$photos/lenna.png" --device tpu
check "hands error: --landmarks not writable" 1 - "cannot write" -- \
  "$sluice" hands --input "$photos/lenna.png" --landmarks "$tmp/no/such/dir/x.jsonl"
# A copy of the binary outside the checkout, run from elsewhere, finds no models.
mkdir -p "$tmp/elsewhere/bin/tools" && cp "$sluice" "$tmp/elsewhere/bin/tools/sluice"
check "hands error: models missing names the model and the fix" 1 - "palm_detection_full.tflite.*fetch_models" -- \
  env -C "$tmp/elsewhere" -u SLUICE_SHARED_DIR SLUICE_MODELS_DIR="$tmp/none" \
  "$tmp/elsewhere/bin/tools/sluice" hands --input "$photos/lenna.png"

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
