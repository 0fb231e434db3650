#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus stat -I (interval counts, like perf stat -I) with software events,
# which count in a VM too; --spire with software T, W and metrics; the
# SPIRE metric set's errors, --print-events, and the no-PMU path.
. "$TESTDIR/cli/lib.sh"

# --------------------------------------------------------------- text ---
out=$("$GUS" stat -I 50 -e task-clock,page-faults -- "$WORKLOAD" spin 0.3 2>&1); st=$?
check_status $st 0 "-I 50 -e task-clock,page-faults: the program's status 0"
check_contains "$out" "#           time             counts unit events" "perf's header line"
clocks=$(printf '%s\n' "$out" | grep -c ' msec task-clock$')
faults=$(printf '%s\n' "$out" | grep -c ' page-faults$')
test "$clocks" -ge 6 && test "$clocks" -le 120; ok $? "one task-clock line per interval: $clocks for 0.3 s of CPU at 50 ms (more when the machine is loaded: up to 6 s of wall time)"
test "$faults" -eq "$clocks"; ok $? "as many page-faults lines ($faults)"
printf '%s\n' "$out" | awk '$NF == "task-clock" { if ($1 + 0 <= last) bad = 1; last = $1 + 0 } END { exit bad }'
ok $? "interval times increase"
printf '%s\n' "$out" | grep ' task-clock$' | head -1 | grep -Eq '^ +0\.0[5-9][0-9]{7} +[0-9]+\.[0-9]{2} msec task-clock$'
ok $? "a text line: time with 9 decimals, msec with 2, unit, event"
check_contains "$out" "exit status 0" "a closing comment gives the exit status"

out=$("$GUS" stat -I 100 -e page-faults -- "$WORKLOAD" touch 20000 2>&1); st=$?
printf '%s\n' "$out" | grep -Eq '^ +[0-9.]+ +[0-9]{1,3}(,[0-9]{3})+ +page-faults$'
ok $? "counts with thousands separators (20000 pages touched)"

# ---------------------------------------------------------------- CSV ---
out=$("$GUS" stat -I 50 -x, -e task-clock,page-faults -- "$WORKLOAD" spin 0.3 2>&1); st=$?
check_status $st 0 "-I 50 -x,: status 0"
first=$(printf '%s\n' "$out" | head -1)
check_contains "$first" "# gus stat -I 50 -x, -e task-clock,page-faults -- " "first line: the command as a comment"
rows=$(printf '%s\n' "$out" | grep -v '^#')
bad=$(printf '%s\n' "$rows" | awk -F, 'NF != 8 || $7 != "" || $8 != "" { print }' | head -1)
test -z "$bad"; ok $? "every record has 8 fields, the metric fields empty (perf's TIME,VALUE,UNIT,EVENT,RUN,PCT,,)${bad:+: $bad}"
bad=$(printf '%s\n' "$rows" | awk -F, '$1 !~ /^ *[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ { print }' | head -1)
test -z "$bad"; ok $? "time field: seconds with 9 decimals${bad:+: $bad}"
# an interval in which the counter did not run (the last one, after the
# program ended, on a loaded machine) is "<not counted>" with run time 0,
# as perf writes it
bad=$(printf '%s\n' "$rows" | awk -F, '$4 == "task-clock" && ($3 != "msec" || ($2 !~ /^[0-9]+\.[0-9][0-9]$/ && !($2 == "<not counted>" && $5 == "0"))) { print }' | head -1)
test -z "$bad"; ok $? "task-clock in msec with 2 decimals, as perf${bad:+: $bad}"
bad=$(printf '%s\n' "$rows" | awk -F, '$4 == "page-faults" && ($3 != "" || ($2 !~ /^[0-9]+$/ && !($2 == "<not counted>" && $5 == "0"))) { print }' | head -1)
test -z "$bad"; ok $? "page-faults: an integer, no unit${bad:+: $bad}"
bad=$(printf '%s\n' "$rows" | awk -F, '$2 != "<not counted>" && ($5 !~ /^[0-9]+$/ || $6 != "100.00") { print }' | head -1)
test -z "$bad"; ok $? "run time in ns and 100.00 percent (nothing multiplexed)${bad:+: $bad}"
total=$(printf '%s\n' "$rows" | awk -F, '$4 == "task-clock" { s += $2 } END { printf "%d", s }')
test "$total" -ge 250 && test "$total" -le 400; ok $? "task-clock over all intervals: $total ms for 0.3 s of CPU"
printf '%s\n' "$out" > "$TMP/iv.csv"
"$GUS" stat --import "$TMP/iv.csv" --arch clx > /dev/null 2>&1; st=$?
check_status $st 0 "gus stat --import reads it back as perf stat -I -x, output"

out=$("$GUS" stat -I 20 -x';' -e task-clock -- sleep 0.2 2>&1); st=$?
check_status $st 0 "-x';' on a sleeping program"
check_contains "$out" ";<not counted>;msec;task-clock;0;0.00;;" "an interval in which it did not run: <not counted>, run time 0, 0.00"

# --------------------------------------------------------------- JSON ---
"$GUS" stat -I 50 --json -o "$TMP/iv.json" -e task-clock,page-faults -- "$WORKLOAD" spin 0.2 > "$TMP/prog.out" 2> "$TMP/err.out"; st=$?
check_status $st 0 "-I 50 --json -o FILE: status 0"
test ! -s "$TMP/err.out"; ok $? "nothing on stderr with -o"
valid=$(sqlite3 :memory: "select json_valid(readfile('$TMP/iv.json'))" 2>&1)
test "$valid" = 1; ok $? "valid JSON ($valid)"
got=$(sqlite3 :memory: "select json_extract(readfile('$TMP/iv.json'), '\$.interval_ms') || ' ' ||
	(json_array_length(json_extract(readfile('$TMP/iv.json'), '\$.intervals')) >= 4) || ' ' ||
	json_extract(readfile('$TMP/iv.json'), '\$.intervals[0].counts[1].event') || ' ' ||
	((select max(json_extract(value, '\$.counts[0].running')) from json_each(json_extract(readfile('$TMP/iv.json'), '\$.intervals'))) > 0) || ' ' ||
	json_extract(readfile('$TMP/iv.json'), '\$.exit_status')" 2>&1)
test "$got" = "50 1 page-faults 1 0"; ok $? "interval_ms, intervals, counts with event and running, exit_status ($got)"
ls "$TMP"/iv.json.tmp* > /dev/null 2>&1; test $? -ne 0; ok $? "no temporary file left"

# ------------------------------------------------------------ statuses --
out=$("$GUS" stat -I 50 -e task-clock -- "$WORKLOAD" exit 7 2>&1); st=$?
check_status $st 7 "the program's exit status (7)"
out=$("$GUS" stat -I 50 -e task-clock -o "$TMP/none.txt" -- "$TMP/no-such-program" 2>&1); st=$?
check_status $st 127 "a missing program: 127"
check_contains "$out" "no-such-program" "named in the error"
test ! -e "$TMP/none.txt"; ok $? "and no output file"
printf 'not a program\n' > "$TMP/not-executable"
out=$("$GUS" stat -I 50 -e task-clock -- "$TMP/not-executable" 2>&1); st=$?
check_status $st 126 "a file that cannot be executed: 126"

"$GUS" stat -I 100 -e task-clock -- "$WORKLOAD" sleep 30 > "$TMP/term.out" 2>&1 &
gpid=$!
sleep 1
kill -TERM $gpid
wait $gpid; st=$?
check_status $st 143 "SIGTERM forwarded during -I: 128 + 15"
check_contains "$(cat "$TMP/term.out")" "(interrupted)" "the intervals so far were printed, marked interrupted"

# ------------------------------------------------------------- --spire --
sw="--time task-clock --work page-faults --metrics context-switches,minor-faults"
# shellcheck disable=SC2086
out=$("$GUS" stat --spire -I 50 -x, -o "$TMP/sp.csv" $sw -- "$WORKLOAD" touch 20000 2>&1); st=$?
check_status $st 0 "--spire with software T, W and metrics: status 0${out:+ ($out)}"
sp=$(cat "$TMP/sp.csv" 2>/dev/null)
check_contains "$sp" "# gus stat --spire -I 50 -x, -o" "the command as a comment"
check_contains "$sp" "# time: task-clock" "# time: line"
check_contains "$sp" "# work: page-faults" "# work: line"
# the CPU is libpfm4's name for the host's PMU, which some hosts lack
# (an AMD guest, a CPU newer than libpfm4): then there is no line at all
cpu_lines=$(printf '%s\n' "$sp" | grep -c '^# cpu:')
good_lines=$(printf '%s\n' "$sp" | grep -cE '^# cpu: [a-z0-9_]+$')
test "$cpu_lines" -le 1 && test "$cpu_lines" -eq "$good_lines"; ok $? "# cpu: line, where libpfm4 knows the CPU, names its PMU ($cpu_lines line)"
bad=$(printf '%s\n' "$sp" | grep -v '^#' | awk -F, '{ want = (NR - 1) % 4 == 0 ? "task-clock" : (NR - 1) % 4 == 1 ? "page-faults" : (NR - 1) % 4 == 2 ? "context-switches" : "minor-faults"; if ($4 != want) print }' | head -1)
test -z "$bad" && test -n "$sp"; ok $? "each interval: T, W, then the metrics${bad:+: $bad}"
bad=$(printf '%s\n' "$sp" | grep -v '^#' | awk -F, '{ k = $1; if ($4 == "task-clock") { t = k; r = $5 } else if (k != t || ($2 != "<not counted>" && $5 != r)) print }' | head -1)
test -z "$bad"; ok $? "a group's counts share the interval and the running time (one group read)${bad:+: $bad}"
faults=$(printf '%s\n' "$sp" | awk -F, '$4 == "minor-faults" { s += $2 } END { printf "%d", s }')
test "$faults" -ge 20000; ok $? "minor-faults counted: $faults >= 20000 pages"

# shellcheck disable=SC2086
out=$("$GUS" stat --spire -I 50 $sw -- "$WORKLOAD" spin 0.1 2>&1); st=$?
check_status $st 0 "--spire text output: status 0"
check_contains "$out" "# SPIRE samples" "a heading comment names T and W"
check_contains "$out" "time task-clock, work page-faults, 2 metrics in 1 group" "and says how they are grouped"
# shellcheck disable=SC2086
out=$("$GUS" stat --spire -I 50 --json -o "$TMP/sp.json" $sw -- "$WORKLOAD" spin 0.1 2>&1); st=$?
got=$(sqlite3 :memory: "select json_valid(readfile('$TMP/sp.json')) || ' ' ||
	json_extract(readfile('$TMP/sp.json'), '\$.spire.time') || ' ' ||
	json_extract(readfile('$TMP/sp.json'), '\$.spire.work') || ' ' ||
	json_extract(readfile('$TMP/sp.json'), '\$.intervals[0].counts[2].event') || ' ' ||
	json_extract(readfile('$TMP/sp.json'), '\$.intervals[0].counts[2].group')" 2>&1)
test "$got" = "1 task-clock page-faults context-switches 0"; ok $? "--spire --json: spire.time, spire.work, counts with groups ($got)"

# no metric set for the CPU libpfm4 sees (forced to one without a set)
out=$(LIBPFM_FORCE_PMU=spr "$GUS" stat --spire -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 1 "--spire where the CPU has no metric set: status 1"
check_contains "$out" "no SPIRE metric set" "the message says so"
check_contains "$out" "sets: skx" "names the sets there are"
check_contains "$out" "--arch" "and --arch"
check_contains "$out" "--metrics" "and --metrics"
out=$(LIBPFM_FORCE_PMU=spr "$GUS" stat --spire --arch skx -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 1 "--spire --arch skx on another CPU: refused (status 1)"
check_contains "$out" "--print-events" "pointing at --print-events"

# Skylake-X's set: counts on bare metal; here the no-PMU message, exit 3
out=$(LIBPFM_FORCE_PMU=skx "$GUS" stat --spire --arch skx -x, -o "$TMP/skx.csv" -- "$WORKLOAD" spin 0.1 2>&1); st=$?
if [ $st -eq 3 ]; then
	ok 0 "--spire --arch skx without a hardware PMU: exit status 3"
	check_contains "$out" "no hardware PMU" "the no-PMU message"
	check_contains "$out" "cpu_clk_unhalted.thread" "naming the first event refused"
	test ! -e "$TMP/skx.csv"; ok $? "no output file"
elif [ $st -eq 4 ]; then
	ok 0 "hardware counters not permitted here: exit status 4"; ok 0 "# SKIP"; ok 0 "# SKIP"; ok 0 "# SKIP"
else
	check_status $st 0 "--spire --arch skx on a Skylake-X class machine: the program's status"
	check_contains "$(cat "$TMP/skx.csv")" "# time: cpu_clk_unhalted.thread" "T is cpu_clk_unhalted.thread"
	check_contains "$(cat "$TMP/skx.csv")" "idq.dsb_uops" "metrics counted under Intel's names"
	ok 0 "# SKIP no-PMU path"
fi

# ------------------------------------------------------- --print-events --
out=$("$GUS" stat --spire --arch skx --print-events -- ./app input 2>&1); st=$?
check_status $st 0 "--spire --print-events: status 0"
line=$(printf '%s\n' "$out" | head -1)
check_contains "$line" "perf stat -I 1000 -x, -e '{cpu_clk_unhalted.thread,inst_retired.any," "a perf stat -I -x, command, T and W first"
check_contains "$line" "' -o samples.csv -- ./app input" "writing samples.csv, for the program given"
groups=$(printf '%s\n' "$line" | grep -o '{[^}]*}' | wc -l)
tw=$(printf '%s\n' "$line" | grep -o '{[^}]*}' | grep -c '^{cpu_clk_unhalted.thread,inst_retired.any,')
test "$groups" -ge 2 && test "$tw" -eq "$groups"; ok $? "every group ($groups) has its own T and W"
metrics=$(printf '%s\n' "$line" | grep -o '{[^}]*}' | tr -d '{}' | tr ',' '\n' | grep -cv -e '^cpu_clk_unhalted.thread$' -e '^inst_retired.any$')
test "$metrics" -ge 40; ok $? "the whole set less AnyThread events: $metrics metrics"
check_contains "$line" "idq.dsb_uops" "Intel's names, as perf knows them"
check_contains "$out" "left out: BP.3" "the AnyThread metric is left out, and named"
check_contains "$out" "gus spire train" "what to do with the file: gus spire train"
check_contains "$out" "gus spire analyze" "and gus spire analyze"
out=$("$GUS" stat --spire --arch clx --print-events -I 2000 -u --metrics DB.2,bp.3,l3 2>&1); st=$?
check_contains "$out" "perf stat -I 2000 -x, -e '{cpu_clk_unhalted.thread:u,inst_retired.any:u,idq.dsb_uops:u,int_misc.recovery_cycles_any:u,longest_lat_cache.miss:u}' -o samples.csv -- PROGRAM ARGS" \
	"--metrics picks metrics by abbreviation (any case), -I and -u carry over"

# ------------------------------------------------------- usage errors --
for bad_i in 0 abc 5 -3 12x; do
	out=$("$GUS" stat -I "$bad_i" -e task-clock -- "$WORKLOAD" exit 0 2>&1); st=$?
	check_status $st 2 "-I $bad_i: usage error"
done
check_contains "$out" "milliseconds" "the message says what -I takes"
out=$("$GUS" stat -I 5 -e task-clock -- "$WORKLOAD" exit 0 2>&1)
check_contains "$out" "at least 10 ms" "-I 5: at least 10 ms"
out=$("$GUS" stat -I 100 -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "-I without -e or --spire: usage error"
check_contains "$out" "-e EVENTS or --spire" "saying what works"
out=$("$GUS" stat --metrics DB.2 -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "--metrics without --spire: usage error"
out=$("$GUS" stat --spire --arch skx --print-events --metrics DB.2,NOT.A.METRIC 2>&1); st=$?
check_status $st 0 "--print-events passes names it does not know to perf as they are"
out=$("$GUS" stat --spire --time task-clock --work page-faults --metrics context-switches,NOT_AN_EVENT_GUS -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "--metrics with an unknown name: usage error"
check_contains "$out" "NOT_AN_EVENT_GUS" "naming it"
check_contains "$out" "gus spire metrics" "and where to see the metrics"
out=$("$GUS" stat --spire --time task-clock --work page-faults --metrics context-switches,task-clock -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "a metric that is T: usage error"
out=$("$GUS" stat --spire --time task-clock --work task-clock --metrics context-switches -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "T and W the same: usage error"
out=$("$GUS" stat --spire -e task-clock -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "--spire with -e: usage error"
out=$("$GUS" stat -I 100 --import "$TMP/iv.csv" 2>&1); st=$?
check_status $st 2 "-I with --import: usage error"
out=$("$GUS" stat -I 100 --no-multiplex -e task-clock -- "$WORKLOAD" exit 0 2>&1); st=$?
check_status $st 2 "-I with --no-multiplex: usage error"
out=$("$GUS" stat --spire --metrics 2>&1); st=$?
check_status $st 2 "--metrics without its argument: usage error"
check_contains "$out" "'--metrics'" "naming the option"

done_testing
