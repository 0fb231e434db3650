#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus record + gus report end to end on this machine (no PMU, no Intel PT:
# cpu-clock samples, the QEMU tracer): every bundled workload's hot
# function comes first and the model names the resource it was built
# around; imported perf stat counts give the measured side and a verdict;
# bad input and interrupted runs.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"

# json FILE EXPR: json_extract of FILE's JSON ('' when invalid)
json() {
	$SQL :memory: "select json_extract(readfile('$1'), '$2')" 2>/dev/null
}
json_valid() {
	[ "$($SQL :memory: "select json_valid(readfile('$1'))" 2>/dev/null)" = 1 ]
}

# ------------------------------------------------------------------------
# the bundled workloads: program, hot function, the model's top resource,
# and its scale arguments (tests/workloads/README): a quarter to a half of
# the default where the default takes longest under QEMU (stream: half the
# passes over arrays of 16 MiB, still far beyond the model's caches), which
# leaves the hot function well ahead of the rest of the samples and its
# loop a long steady stream in the trace. ptrchase keeps its default steps:
# at a third of them, the random cycle main builds first took as many
# samples as the chase on a loaded machine (43 % against 30 % unloaded). --hot 1 keeps the hottest
# function (ranked from all the samples, as always) and its loops: the
# checks read only those, and each other function (the dynamic loader's,
# hit by a sample or two) would cost a simulation of its own.
while read -r prog fn want args; do
	[ -n "$prog" ] || continue
	data="$TMP/$prog.data"
	# shellcheck disable=SC2086
	"$GUS" record -q --hot 1 -o "$data" -- "$WORKLOADS/$prog" $args </dev/null >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 0 "$prog: gus record exits 0"
	"$GUS" report -q -i "$data" --json -o "$TMP/$prog.json" 2>"$TMP/e"; st=$?
	check_status $st 0 "$prog: gus report --json exits 0"
	if json_valid "$TMP/$prog.json"; then ok 0 "$prog: the report is valid JSON"; else ok 1 "$prog: the report is valid JSON"; fi
	first=$(json "$TMP/$prog.json" '$.regions[0].name')
	check_contains "$first" "$fn" "$prog: the hottest region is $fn"
	# the hottest loop of the hot function, else the function itself
	res=""
	i=0
	while [ $i -lt 6 ]; do
		name=$(json "$TMP/$prog.json" "\$.regions[$i].name")
		kind=$(json "$TMP/$prog.json" "\$.regions[$i].kind")
		case "$name" in "$fn loop"*) res=$(json "$TMP/$prog.json" "\$.regions[$i].verdict.resource"); break ;; esac
		i=$((i + 1))
	done
	[ -n "$res" ] || res=$(json "$TMP/$prog.json" '$.regions[0].verdict.resource')
	if [ "$res" = "$want" ]; then ok 0 "$prog: the model's top resource is $want"; else ok 1 "$prog: the model's top resource is $want"; echo "#   got '$res'"; fi
done <<'EOF'
fpchain fp_chain INST_LAT
shuffle shuffle_loop p5
divide divide_loop DIV 8000000
ptrchase chase INST_LAT 1500000
branchmiss branch_loop BRANCH 10
stream stream_triad MEM_THR 8 16
jacobi1d jacobi_1d FRONTEND 20000
EOF

# the documented JSON fields of one report
J="$TMP/divide.json"
for f in '$.gus_report' '$.meta.command' '$.meta.tracer' '$.model' '$.measured_missing' \
	'$.regions[0].rank' '$.regions[0].share' '$.regions[0].samples' '$.regions[0].verdict.kind' \
	'$.regions[0].verdict.text' '$.regions[0].simulated.cycles' \
	'$.regions[0].simulated.sensitivity' '$.regions[0].simulated.instructions'; do
	v=$(json "$J" "$f")
	if [ -n "$v" ]; then ok 0 "JSON has $f"; else ok 1 "JSON has $f"; fi
done
check_contains "$(json "$J" '$.meta.tracer')" "qemu" "without Intel PT the stream came from QEMU"
check_contains "$(json "$J" '$.regions[0].verdict.kind')" "model-only" "without a PMU the verdict is the model's alone"
check_contains "$(json "$J" '$.measured_missing')" "PMU" "the measured side says why it is missing"

# the text report: sections, the per-instruction table with source lines
"$GUS" report -q -i "$TMP/divide.data" >"$TMP/divide.txt" 2>&1; st=$?
check_status $st 0 "the text report exits 0"
out=$(cat "$TMP/divide.txt")
check_contains "$out" "== Measured Top-Down (whole program) ==" "text: the measured section"
check_contains "$out" "not available:" "text: the measured side is not available here, and why"
check_contains "$out" "== Hot regions ==" "text: the hot regions"
check_contains "$out" "Verdict: DIV (" "text: the hot region's verdict names the model's resource"
check_contains "$out" "no counters to compare it with" "text: the verdicts are the model's alone, said once"
check_lacks "$out" "model only" "text: ... and not in every region"
check_contains "$out" "Per instruction: the samples at it" "text: the per-instruction table, with the samples"
check_contains "$out" "divide.c:" "text: instructions carry file:line from DWARF"
check_contains "$out" "DIV*" "text: the bottleneck column is marked"
case "$out" in *"$(printf '\033')"*) ok 1 "no colour when the output is not a terminal" ;; *) ok 0 "no colour when the output is not a terminal" ;; esac

# a second report reads the cache, and says the same
"$GUS" report -q -i "$TMP/divide.data" --json -o "$TMP/again.json" 2>/dev/null
check_contains "$(json "$TMP/again.json" '$.regions[0].cached')" "1" "the second report uses cached results"
a=$(json "$J" '$.regions[0].simulated.cycles')
b=$(json "$TMP/again.json" '$.regions[0].simulated.cycles')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok 0 "the cached result is the same ($a)"; else ok 1 "the cached result is the same"; echo "#   $a vs $b"; fi
rows=$($SQL "$TMP/divide.data" "select count(*) from results")
if [ "${rows:-0}" -ge 1 ]; then ok 0 "results are stored in gus.data"; else ok 1 "results are stored in gus.data"; fi
# (the first region is enough to see it: --region 1)
"$GUS" report -q -i "$TMP/divide.data" --no-cache --region 1 --json -o "$TMP/nocache.json" 2>/dev/null
check_contains "$(json "$TMP/nocache.json" '$.regions[0].cached')" "0" "--no-cache simulates again"
# a region whose stream is too short to simulate (divide_loop's first
# instruction, run once): its reason is cached with the results, and a
# second report takes it from there (the trace is gone by then)
cp "$TMP/divide.data" "$TMP/short.data"
$SQL "$TMP/short.data" "insert into regions (rank, kind, name, file, start, end, head, parent, samples, share, build_id)
	select 99, 'function', 'divide_loop entry', file, start, start + 1, start, null, 1, 0.001, build_id
	from regions where rank = 1"
out=$("$GUS" report -q -i "$TMP/short.data" --region 99 2>&1)
check_contains "$out" "instruction(s) of the region in the trace: too few to simulate" "a stream too short: said"
test "$($SQL "$TMP/short.data" "select count(*) from results where key like '%/none'")" -eq 1
ok $? "... and its reason cached beside the results"
$SQL "$TMP/short.data" "delete from trace_chunks"
out=$("$GUS" report -q -i "$TMP/short.data" --region 99 2>&1)
check_contains "$out" "instruction(s) of the region in the trace: too few to simulate" "... which the next report reads instead of the trace"

# the regions simulated side by side give what one after the other gives
"$GUS" report -q -i "$TMP/divide.data" --no-cache -j 1 --json -o "$TMP/j1.json" 2>/dev/null
"$GUS" report -q -i "$TMP/divide.data" --no-cache -j 3 --json -o "$TMP/j3.json" 2>/dev/null
if [ -s "$TMP/j1.json" ] && cmp -s "$TMP/j1.json" "$TMP/j3.json"; then ok 0 "-j 1 and -j 3: the same report"; else ok 1 "-j 1 and -j 3: the same report"; fi
check_contains "$(json "$TMP/j1.json" '$.regions[0].simulated.stream')" "(one standard error over the windows)" \
	"the stream line says the speedups' standard error over the windows"

# progress: on a terminal, what is simulated, how far, how long; nothing
# in a pipe or with -q
"$GUS" report -i "$TMP/divide.data" --no-cache -o "$TMP/pipe.txt" 2>"$TMP/e"
check_lacks "$(cat "$TMP/e")" "simulating" "a pipe: no progress"
if command -v script >/dev/null 2>&1; then
	script -qec "'$GUS' report -i '$TMP/divide.data' --no-cache -o '$TMP/tty.txt'" /dev/null </dev/null >"$TMP/tty.err" 2>&1
	printf '%s\n' "$(cat "$TMP/tty.err")" |
		grep -Eq "\\[ gus report: [0-9.]+ s: simulating, [0-9]+ of [0-9]+ done \\([0-9]+ region\\(s\\), [0-9]+ thread\\(s\\)\\), on [0-9]+ thread\\(s\\)"
	ok $? "a terminal: the simulations' progress (how long, how many of how many, on how many threads)"
	script -qec "'$GUS' report -q -i '$TMP/divide.data' --no-cache -o '$TMP/ttyq.txt'" /dev/null </dev/null >"$TMP/ttyq.err" 2>&1
	check_lacks "$(cat "$TMP/ttyq.err")" "[ gus report:" "a terminal with -q: no progress"
else
	ok 0 "# SKIP script(1) missing: no terminal to test"
	ok 0 "# SKIP script(1) missing: no terminal to test"
fi

# CSV carries the same content
"$GUS" report -q -i "$TMP/divide.data" --csv -o "$TMP/divide.csv" 2>/dev/null; st=$?
check_status $st 0 "--csv exits 0"
out=$(cat "$TMP/divide.csv")
check_contains "$out" "section,region,kind,name,field,value" "CSV header"
check_contains "$out" "region,1,region,divide_loop,verdict,model-only" "CSV verdict row"
check_contains "$out" "simulated,1,sensitivity,DIV,upper_bound," "CSV sensitivity rows"

# --region and --svg
"$GUS" report -q -i "$TMP/divide.data" --region divide_loop --svg "$TMP/svg" -o "$TMP/one.txt" 2>/dev/null; st=$?
check_status $st 0 "--region NAME --svg DIR exits 0"
if [ -s "$TMP/svg/region-1.svg" ] && head -c 200 "$TMP/svg/region-1.svg" | grep -q "<svg"; then ok 0 "--svg writes the heat-map"; else ok 1 "--svg writes the heat-map"; fi
"$GUS" report -q -i "$TMP/divide.data" --region no_such_region >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "an unknown --region is a usage error"
check_contains "$(cat "$TMP/e")" "divide_loop" "... listing the regions"

# ------------------------------------------------------------------------
# the measured side from imported perf stat counts (Cascade Lake, level 2):
# a core-bound program: Backend_Bound > Core_Bound. The checks read the
# measured side and the hottest region's verdict, for which divide_loop's
# code is simulated statically (--no-trace: no second run under QEMU),
# as the model of the same loop (--hot 1: only it and its loop)
cat > "$TMP/core.csv" <<'CSV'
1000000000,,instructions,1000000000,100.00,,
1000000000,,cycles,1000000000,100.00,,
200000000,,idq_uops_not_delivered.core,1000000000,100.00,,
1000000000,,uops_issued.any,1000000000,100.00,,
1000000000,,uops_retired.retire_slots,1000000000,100.00,,
0,,int_misc.recovery_cycles,1000000000,100.00,,
10000000,,idq_uops_not_delivered.cycles_0_uops_deliv.core,1000000000,100.00,,
1000,,br_misp_retired.all_branches,1000000000,100.00,,
0,,machine_clears.count,1000000000,100.00,,
50000000,,cycle_activity.stalls_mem_any,1000000000,100.00,,
600000000,,cycle_activity.stalls_total,1000000000,100.00,,
0,,exe_activity.bound_on_stores,1000000000,100.00,,
100000000,,exe_activity.1_ports_util,1000000000,100.00,,
100000000,,exe_activity.2_ports_util,1000000000,100.00,,
0,,uops_retired.macro_fused,1000000000,100.00,,
CSV
"$GUS" record -q -l 2 --arch clx --import-counts "$TMP/core.csv" --no-trace --hot 1 -o "$TMP/imp.data" -- "$WORKLOADS/divide" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "record with --import-counts exits 0"
"$GUS" report -q -i "$TMP/imp.data" --json -o "$TMP/imp.json" 2>/dev/null; st=$?
check_status $st 0 "its report exits 0"
check_contains "$(json "$TMP/imp.json" '$.measured.nodes')" "Core_Bound" "the measured tree is there"
check_contains "$(json "$TMP/imp.json" '$.regions[0].verdict.measured')" "Backend_Bound > Core_Bound" "the counters' dominant path"
check_contains "$(json "$TMP/imp.json" '$.regions[0].verdict.kind')" "agree" "DIV under Core_Bound: the two agree"
"$GUS" report -q -i "$TMP/imp.data" >"$TMP/imp.txt" 2>&1
check_contains "$(cat "$TMP/imp.txt")" "Backend_Bound" "text: the measured tree next to the simulated side"
check_contains "$(cat "$TMP/imp.txt")" "Verdict: agree" "text: the verdict agrees"
# the same program against counters that blame the front end
sed -e 's/^200000000,,idq_uops_not_delivered.core/3000000000,,idq_uops_not_delivered.core/' \
    -e 's/^1000000000,,uops_issued.any/800000000,,uops_issued.any/' \
    -e 's/^1000000000,,uops_retired.retire_slots/800000000,,uops_retired.retire_slots/' "$TMP/core.csv" > "$TMP/fe.csv"
"$GUS" record -q -l 2 --arch clx --import-counts "$TMP/fe.csv" --no-trace --hot 1 -o "$TMP/fe.data" -- "$WORKLOADS/divide" >/dev/null 2>&1
"$GUS" report -q -i "$TMP/fe.data" --json -o "$TMP/fe.json" 2>/dev/null
check_contains "$(json "$TMP/fe.json" '$.regions[0].verdict.kind')" "disagree" "Frontend_Bound counters against DIV: they disagree"

# ------------------------------------------------------------------------
# robustness (the recordings keep their hottest function only, --hot 1:
# the checks read what the report says of the run, and each function more,
# the dynamic loader's, would be simulated for nothing)
# Ctrl-C during the run: a readable recording that says so
AW="$WORKLOADS/arraywalk"
# (a background job of a script starts with SIGINT ignored: perl restores it)
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' "$GUS" record -q --hot 1 -o "$TMP/int.data" -- "$AW" "$TMP/aw" hot 5000000 >/dev/null 2>&1 &
gpid=$!
# the program running (a loaded machine takes its time to get there)
i=0
while [ $i -lt 300 ] && ! pgrep -P $gpid >/dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $gpid
wait $gpid; st=$?
check_status $st 130 "Ctrl-C: gus record ends with the program's status (128 + SIGINT)"
out=$("$GUS" report -q -i "$TMP/int.data" 2>&1); st=$?
check_status $st 0 "Ctrl-C: the recording is readable"
check_contains "$out" "interrupted" "Ctrl-C: the report says the run was interrupted"
check_contains "$out" "missing trace: interrupted" "Ctrl-C: ... and what is missing"

# Ctrl-C during run 2 (the QEMU tracer): said on the terminal, exit 130,
# the recording kept with what was traced
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' "$GUS" record --hot 1 -o "$TMP/tint.data" -- "$WORKLOADS/divide" \
	>/dev/null 2>"$TMP/tint.err" &
gpid=$!
i=0
while [ $i -lt 300 ] && ! pgrep -P $gpid -f qemu >/dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -INT $gpid
wait $gpid; st=$?
check_status $st 130 "Ctrl-C in the trace run: gus record exits 128 + SIGINT"
check_contains "$(cat "$TMP/tint.err")" "trace cut short by an interrupt" "Ctrl-C in the trace run: the summary says the trace was cut"
out=$("$GUS" report -q -i "$TMP/tint.data" 2>&1); st=$?
check_status $st 0 "Ctrl-C in the trace run: the recording is kept and readable"
check_contains "$out" "the trace run was interrupted" "Ctrl-C in the trace run: the report says so"

# a program that crashes: recorded with its signal
"$GUS" record -q --hot 1 -o "$TMP/crash.data" -- "$AW" "$TMP/aw" kill 11 >/dev/null 2>&1; st=$?
check_status $st 139 "a crashing program: gus record exits 128 + SIGSEGV"
check_contains "$($SQL "$TMP/crash.data" "select value from meta where key='exit_status'")" "139" "the signal is in gus.data"
out=$("$GUS" report -q -i "$TMP/crash.data" 2>&1); st=$?
check_status $st 0 "its report exits 0"
check_contains "$out" "killed by SIGSEGV" "the report says it was killed, by which signal"

# an empty recording: the program exits at once
"$GUS" record -q --hot 1 -o "$TMP/empty.data" -- /bin/true >/dev/null 2>&1; st=$?
check_status $st 0 "a program that exits at once is recorded"
out=$("$GUS" report -q -i "$TMP/empty.data" 2>&1); st=$?
check_status $st 0 "the empty recording reports"
check_contains "$out" "== Hot regions ==" "... with its sections"
"$GUS" report -q -i "$TMP/empty.data" --json -o "$TMP/empty.json" 2>/dev/null
if json_valid "$TMP/empty.json"; then ok 0 "the empty recording's JSON is valid"; else ok 1 "the empty recording's JSON is valid"; fi

# missing and non-executable programs: no file left
(cd "$TMP" && "$GUS" record -q -o none.data -- ./no-such-program) >/dev/null 2>"$TMP/e"; st=$?
check_status $st 127 "a missing program: 127"
[ -e "$TMP/none.data" ]; ok $((1 - $?)) "... and no gus.data"
printf 'x' > "$TMP/noexec"
chmod 644 "$TMP/noexec"
"$GUS" record -q -o "$TMP/noexec.data" -- "$TMP/noexec" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 126 "a non-executable program: 126"
[ -e "$TMP/noexec.data" ]; ok $((1 - $?)) "... and no gus.data"

# the .old rename (of a whole recording, by one that needs no trace run)
"$GUS" record -q --no-trace -o "$TMP/divide.data" -- "$WORKLOADS/divide" >/dev/null 2>&1
[ -e "$TMP/divide.data.old" ]; ok $? "an existing recording becomes .old"

# corrupted, foreign and missing recordings
printf 'not a database at all, just text\n' > "$TMP/text.data"
"$GUS" report -i "$TMP/text.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a text file: exit 1"
check_contains "$(cat "$TMP/e")" "not a gus.data recording" "... named as not a recording"
$SQL "$TMP/foreign.data" "create table t (x); insert into t values (1);"
"$GUS" report -i "$TMP/foreign.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "another application's SQLite file: exit 1"
check_contains "$(cat "$TMP/e")" "another application" "... said so"
cp "$TMP/crash.data" "$TMP/cut.data"
truncate -s 3000 "$TMP/cut.data"
"$GUS" report -i "$TMP/cut.data" >/dev/null 2>"$TMP/e"; st=$?
if [ $st -eq 1 ]; then ok 0 "a truncated recording: exit 1"; else ok 1 "a truncated recording: exit 1"; echo "#   exit status $st"; fi
"$GUS" report -i "$TMP/no-such.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a missing recording: exit 1"
check_contains "$(cat "$TMP/e")" "no-such.data" "... named"

# usage errors
"$GUS" record --tracer magic -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "record: an unknown tracer"
"$GUS" record --hot 0 -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "record: --hot 0"
"$GUS" record -F abc -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "record: a bad frequency"
"$GUS" report --bogus >/dev/null 2>&1; st=$?
check_status $st 2 "report: an unknown option"
"$GUS" report -i "$TMP/divide.data" --arch pentium >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "report: an unknown machine model"

done_testing
