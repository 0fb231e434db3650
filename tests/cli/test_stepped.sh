#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The samples' own code traced: a hot region whose code QEMU 7.2 cannot
# run (AVX-512) or that QEMU's run never reached (glibc's ifuncs pick
# another variant on QEMU's CPU) is single-stepped natively in gus
# record's run 3, and gus report simulates it from that stream and says
# so (text, JSON, HTML). Where this CPU has no AVX-512F, neither happens:
# the tests are skipped, said with a TAP skip line.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
cd "$TMP" || exit 1
json_get() {	# json_get FILE PYTHON-EXPRESSION-OF-d: prints it
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

if ! grep -qw avx512f /proc/cpuinfo; then
	echo "ok 1 # SKIP this CPU has no AVX-512F: glibc picks no EVEX variant and the AVX-512 workload cannot run"
	echo "1..1"
	exit 0
fi

# ----------------------------------------- an AVX-512 hot loop (SIGILL) --
# QEMU dies of SIGILL at sum16's first AVX-512 instruction: run 3 steps it
"$GUS" record -o avx.data --step-windows 8 -- "$WORKLOADS/avx512" 2000000 </dev/null >avx.out 2>avx.err; st=$?
check_status $st 0 "avx512: recorded"
check_contains "$(cat avx.err)" "single-stepped natively (" "avx512: gus record's summary says run 3 stepped"
why=$($SQL avx.data "SELECT value FROM meta WHERE key = 'trace.step.why'")
check_contains "$why" "its code needs AVX512EVEX, which QEMU 7.2's CPU lacks" \
	"avx512: trace.step.why: sum16 decoded, an extension QEMU lacks"
nrec=$($SQL avx.data "SELECT value FROM meta WHERE key = 'trace.step.records'")
[ -n "$nrec" ] && [ "$nrec" -gt 0 ]; ok $? "avx512: stepped records stored ($nrec)"
maps=$($SQL avx.data "SELECT count(*) FROM trace_maps WHERE proc = 65535")
[ "$maps" -gt 0 ]; ok $? "avx512: run 3's mappings stored apart (process 65535: $maps)"
"$GUS" report -i avx.data --region sum16 >rep.txt 2>rep.err; st=$?
check_status $st 0 "avx512: reported"
rep=$(cat rep.txt)
check_contains "$rep" "Tracer: native single-stepping with ptrace (gus record's run 3), as its code needs AVX512EVEX" \
	"avx512: the text says which tracer and why"
check_contains "$rep" "Stream: native single-stepping (ptrace) in run 3, " "avx512: the stream line says it"
check_contains "$rep" "data addresses known" "avx512: with data addresses"
printf '%s\n' "$rep" | grep -Eq "^Windows: [0-9]+ of the [0-9]+ windows of the run that hold the region"
ok $? "avx512: simulated from the stepped windows"
# the loop: 4 instructions, 2 cycles an iteration where the add chains
printf '%s\n' "$rep" | grep -Eq "^Simulated on [a-z0-9]+: [0-9.]+ cycles per (iteration|call)"
ok $? "avx512: cycles per unit simulated"
"$GUS" report -i avx.data --json -o rep.json 2>/dev/null
t=$(json_get rep.json '[r["tracer"] for r in d["regions"] if r["name"] == "sum16"][0]')
[ "$t" = ptrace ]; ok $? "avx512: JSON tracer of sum16 is ptrace ($t)"
w=$(json_get rep.json '[r["tracer_why"] for r in d["regions"] if r["name"] == "sum16"][0]')
check_contains "$w" "AVX512EVEX" "avx512: JSON tracer_why names the extension"
"$GUS" report -i avx.data --html rep.html 2>/dev/null
check_contains "$(cat rep.html)" "tracer: native single-stepping with ptrace" "avx512: the HTML says the tracer"
# gus sim --trace -i takes the same stepped windows
out=$("$GUS" sim --trace -i avx.data --function sum16 2>&1)
check_contains "$out" "stream: native single-stepping (ptrace) in run 3 recorded in avx.data" \
	"avx512: gus sim --trace -i simulates the stepped windows, said"
# --step-windows 0: the region is left to the static view, as before
"$GUS" record -q -o none.data --step-windows 0 -- "$WORKLOADS/avx512" 400000 </dev/null >/dev/null 2>&1
k=$($SQL none.data "SELECT count(*) FROM meta WHERE key LIKE 'trace.step.%'")
[ "$k" -eq 0 ]; ok $? "--step-windows 0: no run 3"
"$GUS" report -i none.data --region sum16 2>/dev/null | grep -q "^Tracer: none: its code simulated statically"
ok $? "--step-windows 0: sum16 simulated statically, said"

# --------------------- gathers: the data addresses of their vector index --
# the stepper reads each gather's index vector and mask from the thread's
# XSAVE area: the elements' addresses, in lane order, the first four
"$GUS" record -q -o gather.data --tracer qemu --step-windows 4 -- "$WORKLOADS/gather" 3000 </dev/null >/dev/null 2>gather.err; st=$?
check_status $st 0 "gather: recorded"
"$GUS" script -i gather.data --function gathers >gather.txt 2>gather.serr; st=$?
check_status $st 0 "gather: gus script prints the stepped records"
# per gather record: its lanes' addresses; the three forms (all 16 lanes,
# opmask 0xaaaa, a VEX mask vector of lanes 2 and 5) by their spacing,
# each tied to the full form's first address of the same step
python3 - gather.txt >gather.sum <<'PY'
import re, sys
full = masked = vex = bad = tied = 0
last_full = None
for line in open(sys.argv[1]):
    if not re.search(r' v\w*gather[dq][dqps]+ ', line):
        continue
    a = [int(x, 16) for x in re.findall(r'\[0x([0-9a-f]+) R\]', line)]
    steps = {a[j + 1] - a[j] for j in range(len(a) - 1)}
    if len(a) == 4 and steps == {0x400}:
        full += 1
        last_full = a[0]
    elif len(a) == 4 and steps == {0x800}:
        masked += 1
        tied += last_full is not None and a[0] == last_full + 0x400
    elif len(a) == 2 and steps == {0xc00}:
        vex += 1
        tied += last_full is not None and a[0] == last_full + 0x800
    else:
        bad += 1
print(full, masked, vex, bad, tied)
PY
read -r g_full g_masked g_vex g_bad g_tied <gather.sum
echo "# gather records: $g_full all lanes, $g_masked opmask, $g_vex VEX mask, $g_bad other, $g_tied tied to their step"
[ "${g_full:-0}" -ge 10 ] && [ "${g_masked:-0}" -ge 10 ] && [ "${g_vex:-0}" -ge 10 ]
ok $? "gather: all three forms stepped with their lanes' addresses ($g_full, $g_masked, $g_vex)"
[ "${g_bad:-1}" = 0 ]; ok $? "gather: no gather record without them, or with other lanes ($g_bad)"
[ "${g_tied:-0}" -ge $(( (g_masked + g_vex) * 9 / 10 )) ]
ok $? "gather: the masked forms' lanes are the full form's of the same step ($g_tied of $((g_masked + g_vex)))"
x=$("$GUS" report -i gather.data --region gathers 2>/dev/null)
check_contains "$x" "data addresses known" "gather: the report says data addresses known"
check_lacks "$x" "not for gathers" "gather: and not that gathers lack them"

# ------------------------------------------- sort: glibc's EVEX variants --
# text of 150000 lines; run 1's output is the reference for run 3's
awk 'BEGIN { srand(7); split("alpha beta gamma delta epsilon zeta eta theta iota kappa", w, " ");
	for (i = 0; i < 150000; i++) { l = ""; for (j = 0; j < 6; j++) l = l w[1 + int(rand() * 10)] " ";
	print l int(rand() * 1000000) } }' >text.txt
LC_ALL=C.UTF-8 sort text.txt >want.txt
LC_ALL=C.UTF-8 "$GUS" record -o sort.data --step-windows 8 -- sort -o "$TMP/got.txt" text.txt </dev/null >/dev/null 2>sort.err
st=$?
check_status $st 0 "sort: recorded"
# run 3 writes the output last: a stray breakpoint would have killed it
cmp -s want.txt got.txt; ok $? "sort: the stepped run 3 sorted as sort does (its output file)"
x=$($SQL sort.data "SELECT value FROM meta WHERE key = 'trace.step.exit_status'")
[ "$x" = 0 ]; ok $? "sort: run 3 exited 0 ($x)"
evex=$($SQL sort.data "SELECT name FROM regions WHERE kind = 'function' AND name LIKE '%evex%' ORDER BY rank LIMIT 1")
if [ -z "$evex" ]; then
	echo "ok $((n + 1)) # SKIP no EVEX variant of glibc among sort's hot functions here ($($SQL sort.data "SELECT group_concat(name, ', ') FROM regions WHERE kind = 'function'"))"
	n=$((n + 1))
else
	echo "# sort's hottest EVEX variant: $evex"
	"$GUS" report -i sort.data --region "$evex" >sort.txt 2>/dev/null
	rep=$(cat sort.txt)
	check_contains "$rep" "Tracer: native single-stepping with ptrace (gus record's run 3), as its code needs AVX512" \
		"sort: $evex from run 3's stepped stream, said with why"
	printf '%s\n' "$rep" | grep -Eq "^Windows: [0-9]+ of the [0-9]+ windows of the run that hold the region"
	ok $? "sort: $evex simulated from its windows"
	"$GUS" report -i sort.data --json -o sort.json 2>/dev/null
	t=$(json_get sort.json "[r['tracer'] for r in d['regions'] if r['name'] == '$evex'][0]")
	[ "$t" = ptrace ]; ok $? "sort: JSON tracer of $evex is ptrace ($t)"
	# run 3 reads the standard input run 1 read (a file: again from its
	# offset, after run 2 read it too)
	LC_ALL=C.UTF-8 "$GUS" record -q -o stdin.data --step-windows 4 -- sort <text.txt >/dev/null 2>&1
	r=$($SQL stdin.data "SELECT value FROM meta WHERE key = 'trace.step.records'")
	[ -n "$r" ] && [ "$r" -gt 0 ]; ok $? "sort <file: run 3 sorted the input again ($r records stepped)"
	# sort's own code runs under QEMU alike: its tracer is QEMU's
	q=$(json_get sort.json "sorted(set(r['tracer'] for r in d['regions'] if r['object'] == 'sort'))")
	check_contains "$q" "qemu" "sort: sort's own functions from QEMU's stream ($q)"
fi

done_testing
