#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every stream is readable: gus script -i and gus sim --trace -i read a
# recording's QEMU stream (trace_chunks, placed by trace_maps) as they read
# Intel PT, in the program and in its libraries; and the callers of each
# hot region from the call chains of gus record -g, in text, CSV and JSON.
. "$TESTDIR/cli/lib.sh"
cd "$TMP" || exit 1

# ------------------------------------------------- a recording's QEMU stream --
"$GUS" record -q -o div.data -- "$WORKLOADS/divide" 2000000 >/dev/null 2>&1; st=$?
check_status $st 0 "QEMU: divide is recorded"
check_contains "$(sqlite3 -batch div.data "select value from meta where key = 'tracer'")" "qemu" \
	"QEMU: ... with the QEMU tracer"
out=$("$GUS" script -i div.data --max-insns 40 2>"$TMP/e"); st=$?
check_status $st 0 "script -i: a QEMU recording is read"
# (lines "  -- ... --" mark threads and windows, not instructions)
test "$(printf '%s\n' "$out" | grep -v '^  --' | grep -c .)" -eq 40; ok $? "script -i: --max-insns 40 prints 40 instructions"
check_contains "$out" " R]" "script -i: ... with the recorded data addresses"
# the hot function among the traced ranges (a loaded machine's samples may
# make a startup function such as sysmalloc a hot region, traced first)
all=$("$GUS" script -i div.data --max-insns 200000 2>/dev/null)
check_contains "$all" "divide_loop+0x" "script -i: instructions named by the hot function's symbol"
check_contains "$all" "divsd" "script -i: ... disassembled"
check_contains "$(cat "$TMP/e")" "stopped after 40 instructions (--max-insns)" "script -i: the limit is said"
out=$("$GUS" script -i div.data --no-mem --max-insns 40 2>/dev/null)
check_lacks "$out" " R]" "script -i --no-mem: no data addresses"
out=$("$GUS" script -i div.data --function divide_loop --max-insns 2000 2>/dev/null); st=$?
check_status $st 0 "script -i --function: exits 0"
test "$(printf '%s\n' "$out" | grep -v '^  --' | grep -c .)" -eq 2000 &&
	test "$(printf '%s\n' "$out" | grep -v '^  --' | grep -vc ' divide_loop+0x')" -eq 0; ok $? "script -i --function: only divide_loop's instructions"
range=$(nm "$WORKLOADS/divide" | awk '$3 == "divide_loop" {print $1}')
out=$("$GUS" script -i div.data --range "$range-$(printf '%x' $((0x$range + 16)))" --max-insns 10 2>/dev/null)
check_contains "$out" "divide_loop+0x0 " "script -i --range: the range's first instruction"
check_lacks "$out" "divide_loop+0x1f" "script -i --range: ... nothing past its end"
"$GUS" script -i div.data --function no_such_function >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "script -i: an unknown function is a usage error"
check_contains "$(cat "$TMP/e")" "no function 'no_such_function'" "script -i: ... naming it"

out=$("$GUS" sim --trace -i div.data --function divide_loop --max-insns 200000 2>&1); st=$?
check_status $st 0 "sim --trace -i: the recorded QEMU stream is simulated"
check_contains "$out" "stream: QEMU trace recorded in div.data" "sim --trace -i: the stream line names the recording"
check_contains "$out" "data addresses known" "sim --trace -i: ... and the recorded data addresses"
check_contains "$out" "cycles per iteration              16.00" "sim --trace -i: four divsd at the divider's throughput"
out2=$("$GUS" sim --trace --recording div.data --function divide_loop --max-insns 200000 2>&1)
out3=$("$GUS" sim --trace --pt div.data --function divide_loop --max-insns 200000 2>&1)
test "$out" = "$out2" && test "$out" = "$out3"; ok $? "sim --trace: --recording and --pt read the same as -i"
out=$("$GUS" sim --trace -i div.data --function divide_loop --max-insns 1000 --json 2>/dev/null)
check_contains "$out" '(--max-insns reached)' "sim --trace -i --max-insns: the limit is said"
"$GUS" sim --trace -i div.data -- "$WORKLOADS/divide" >/dev/null 2>&1; st=$?
check_status $st 2 "sim --trace -i: a program with a recording is a usage error"

# a library function: the recording's objects
"$GUS" record -q -o lib.data -- "$WORKLOADS/uselib" >/dev/null 2>&1; st=$?
check_status $st 0 "QEMU: uselib is recorded"
out=$("$GUS" script -i lib.data --function lib_collatz --max-insns 500 2>/dev/null); st=$?
check_status $st 0 "script -i --function: a function of a library"
test "$(printf '%s\n' "$out" | grep -c ' lib_collatz+0x')" -eq 500; ok $? "script -i: ... named by the library's symbols"
out=$("$GUS" sim --trace -i lib.data --function lib_collatz --max-insns 100000 2>&1); st=$?
check_status $st 0 "sim --trace -i: a library function's recorded stream"
check_contains "$out" "libhot.so:lib_collatz" "sim --trace -i: ... simulated in the library"
check_contains "$out" "QEMU trace recorded in lib.data" "sim --trace -i: ... from the recording"

# no stream
"$GUS" record -q --tracer none -o none.data -- "$WORKLOADS/divide" 200000 >/dev/null 2>&1
"$GUS" script -i none.data >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "script -i: a recording without a trace fails"
check_contains "$(cat "$TMP/e")" "no instruction stream to read: it was recorded without a tracer" "script -i: ... saying why"
"$GUS" sim --trace -i none.data --function divide_loop >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "sim --trace -i: a recording without a trace fails"
check_contains "$(cat "$TMP/e")" "no instruction stream to read" "sim --trace -i: ... saying why"
# the report still simulates the regions, statically, and says so
# (region 1 alone: its only hot loop would share its section, with the
# loop's own static view)
out=$("$GUS" report -i none.data --region 1 2>/dev/null)
region=$(printf '%s\n' "$out" | sed -n '/^== Region 1: divide_loop (function/,/^== Region /p')
check_contains "$region" "Stream: none (no instruction stream: " "report without a stream: why there is none"
check_contains "$region" "simulated statically instead, as gus sim --bin does: " "... and the static view instead"
check_contains "$region" "divide:divide_loop, innermost loop 0x" "... of the function's hot loop"
check_contains "$region" "[static: no stream]" "... said in the verdict"
check_contains "$region" "DIV (+" "... which names the divider"
check_contains "$region" "Simulated on " "... with the simulation's numbers"

# ------------------------------------------------------------------ callers --
# hot_chain: three quarters of its calls from from_major, one from from_minor
"$GUS" record -g -q --tracer none -o cg.data -- "$WORKLOADS/callers" >/dev/null 2>&1; st=$?
check_status $st 0 "-g: callers is recorded with call chains"
out=$("$GUS" report -i cg.data 2>/dev/null)
region=$(printf '%s\n' "$out" | sed -n '/^== Region 1[:+].*hot_chain/,/^== Region /p')
check_contains "$region" "Callers (the first frame outside the region, in " "report: the hot function's callers"
major=$(printf '%s\n' "$region" | awk '/ from_major \(callers\)/ {sub("%", "", $1); print int($1)}')
minor=$(printf '%s\n' "$region" | awk '/ from_minor \(callers\)/ {sub("%", "", $1); print int($1)}')
test -n "$major" && test -n "$minor" && test "$major" -ge 62 && test "$major" -le 88 &&
	test "$minor" -ge 12 && test "$minor" -le 38; ok $? "report: from_major about 75 %, from_minor about 25 % ($major, $minor)"
first=$(printf '%s\n' "$region" | grep -m1 -o 'from_m[a-z]*')
test "$first" = from_major; ok $? "report: the larger caller first"
csv=$("$GUS" report -i cg.data --csv 2>/dev/null)
share=$(printf '%s\n' "$csv" | awk -F, '$1 == "callers" && $2 == 1 && $4 == "from_major" && $5 == "share" {print int($6 * 100)}')
test -n "$share" && test "$share" -ge 62 && test "$share" -le 88; ok $? "CSV: from_major's share ($share %)"
check_contains "$csv" "callers,1,caller,from_minor,share," "CSV: from_minor's share"
rows=$(printf '%s\n' "$csv" | awk -F, '$1 == "callers" && $2 == 1 && $5 == "samples" {print $4}' | head -2 | tr '\n' ' ')
test "$rows" = "from_major from_minor "; ok $? "CSV: callers in order ($rows)"
json=$("$GUS" report -i cg.data --json 2>/dev/null)
names=$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)["regions"][0]
c = r["callers"]
print(r["name"], c[0]["name"], c[1]["name"], 0.62 <= c[0]["share"] <= 0.88 and 0.12 <= c[1]["share"] <= 0.38,
      r["callers_missing"])' 2>&1)
check_contains "$names" "hot_chain from_major from_minor True None" "JSON: the callers with their shares, in order"
"$GUS" record -q --tracer none -o nocg.data -- "$WORKLOADS/callers" >/dev/null 2>&1
out=$("$GUS" report -i nocg.data 2>/dev/null)
check_contains "$out" "# callers: not available: the recording has no call chains (recorded without -g" \
	"without -g: the report says there are no call chains, once"
test "$(printf '%s\n' "$out" | grep -c "no call chains")" -eq 1; ok $? "without -g: ... and not in every region"
check_lacks "$out" "from_major" "without -g: no callers listed"
check_contains "$("$GUS" report -i nocg.data --csv 2>/dev/null)" "callers,1,missing,,why,the recording has no call chains" \
	"without -g: CSV says why"
check_contains "$("$GUS" report -i nocg.data --json 2>/dev/null)" '"callers": null, "callers_missing": "the recording has no call chains' \
	"without -g: JSON says why"

done_testing
