#!/usr/bin/env bash
# End-to-end tests of the `sluice` CLI on the shared seed graphs.
#   bash tests/cli_test.sh path/to/sluice
set -uo pipefail
sluice="$1"
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

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]
