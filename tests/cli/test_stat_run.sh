#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus stat on a real program: software events count here; exit statuses,
# signals, children; and the no-PMU path on machines without one.
. "$TESTDIR/cli/lib.sh"

out=$("$GUS" stat -e task-clock,page-faults -- "$WORKLOAD" touch 2000 2>&1); st=$?
check_status $st 0 "gus stat -e task-clock,page-faults exits with the program's status 0"
faults=$(printf '%s\n' "$out" | awk '$2 == "page-faults" { print $1 }')
test -n "$faults" && test "$faults" -ge 2000; ok $? "page-faults counted: $faults >= 2000 pages touched"
clock=$(printf '%s\n' "$out" | awk '$2 == "task-clock" { print $1 }')
test -n "$clock" && test "$clock" -gt 0; ok $? "task-clock counted: $clock ns"

out=$("$GUS" stat -e task-clock -x, -- "$WORKLOAD" fork 2 0.3 2>&1); st=$?
check_status $st 0 "fork workload exits 0"
clock=$(printf '%s\n' "$out" | awk -F, '$1 == "task-clock" { print $5 }')
# each child burns 0.3 s of CPU: one child alone would stay under 0.5 s
test -n "$clock" && test "$clock" -gt 500000000; ok $? "children inherit the counter: task-clock $clock ns > 0.5 s for 2 x 0.3 s of CPU"

out=$("$GUS" stat -e task-clock -- "$WORKLOAD" exit 7 2>&1); st=$?
check_status $st 7 "exits with the program's exit status (7)"
check_contains "$out" "exit status 7" "and reports it"

out=$("$GUS" stat -e task-clock -- "$WORKLOAD" kill 9 2>&1); st=$?
check_status $st 137 "a program killed by SIGKILL: 128 + 9"

printf 'not a program\n' > "$TMP/not-executable"
out=$("$GUS" stat -e task-clock -- "$TMP/not-executable" 2>&1); st=$?
check_status $st 126 "a program that cannot be executed: 126"
out=$("$GUS" stat -e task-clock -- "$TMP/no-such-program" 2>&1); st=$?
check_status $st 127 "a missing program: 127"
check_contains "$out" "no-such-program" "named in the error"

out=$("$GUS" stat -e task-clock -- "$WORKLOAD" stdout-lines 3 2>/dev/null); st=$?
check_status $st 0 "program output passes through"
test "$out" = "line 0
line 1
line 2"; ok $? "stdout is the program's alone (counts go to stderr)"

out=$("$GUS" stat -e task-clock --json -o "$TMP/c.json" -- "$WORKLOAD" exit 0 2>&1); st=$?
check_contains "$(cat "$TMP/c.json")" '"name": "task-clock", "counted": true' "-e with --json -o FILE"

# SIGTERM to gus alone is forwarded; the result is still printed
"$GUS" stat -e task-clock -- "$WORKLOAD" sleep 30 > "$TMP/term.out" 2>&1 &
gpid=$!
sleep 1
kill -TERM $gpid
wait $gpid; st=$?
check_status $st 143 "SIGTERM forwarded: the program died of it, gus exits 128 + 15"
check_contains "$(cat "$TMP/term.out")" "task-clock" "counts printed after the interruption"
check_contains "$(cat "$TMP/term.out")" "interrupted" "and marked as interrupted"

# SIGINT sent to gus (not from a terminal) is forwarded too. A background
# job of a non-interactive shell starts with SIGINT ignored, which the
# program would inherit (and sleep its 30 s): gus starts with it at its
# default instead, as from a terminal (perl restores it)
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' "$GUS" stat -e task-clock -- "$WORKLOAD" sleep 30 > "$TMP/int.out" 2>&1 &
gpid=$!
sleep 1
kill -INT $gpid
wait $gpid; st=$?
check_status $st 130 "SIGINT forwarded: the program died of it, gus exits 128 + 2"
check_contains "$(cat "$TMP/int.out")" "interrupted" "... its counts marked as interrupted"

# TMA on this machine: either a tree (bare metal) or the no-PMU message, exit 3
out=$("$GUS" stat -- "$WORKLOAD" spin 0.1 2>&1); st=$?
if [ $st -eq 3 ]; then
	ok 0 "no hardware PMU here: exit status 3"
	check_contains "$out" "no hardware PMU" "the message says what is missing"
	check_contains "$out" "bare-metal" "and what to do"
	n_lines=$(printf '%s\n' "$out" | grep -c "Frontend_Bound")
	test "$n_lines" -eq 0; ok $? "no half-printed tree"
	"$GUS" stat -o "$TMP/tree.txt" -- "$WORKLOAD" exit 0 >/dev/null 2>&1
	test ! -e "$TMP/tree.txt"; ok $? "no output file"
	# libpfm4 may know the CPU (or not) and have no TMA table for it: the
	# missing counters are still what is said, never the missing table
	for forced in icl clx amd64_fam19h_zen3; do
		out=$(LIBPFM_FORCE_PMU=$forced "$GUS" stat -- "$WORKLOAD" exit 0 2>&1); st=$?
		check_status $st 3 "no PMU, libpfm4 forced to $forced: exit status 3"
		check_contains "$out" "no hardware PMU" "no PMU, libpfm4 forced to $forced: the PMU is named"
		check_lacks "$out" "TMA table" "no PMU, libpfm4 forced to $forced: no word of a TMA table"
	done
	# -e: what cannot be counted is <not supported>, the rest is counted
	out=$("$GUS" stat -e task-clock,cycles,page-faults -- "$WORKLOAD" exit 0 2>&1); st=$?
	check_status $st 0 "-e task-clock,cycles,page-faults without a PMU: counted, exit 0"
	check_contains "$out" "<not supported>  cycles" "-e: cycles is <not supported>"
	check_contains "$out" "no hardware PMU on this machine" "-e: and why, in short"
	printf '%s\n' "$out" | grep -Eq '^ +[0-9]+  task-clock'; ok $? "-e: task-clock is counted"
	printf '%s\n' "$out" | grep -Eq '^ +[0-9]+  page-faults'; ok $? "-e: page-faults after it too"
	out=$("$GUS" stat -x, -e task-clock,cycles -- "$WORKLOAD" exit 0 2>&1)
	check_contains "$out" "cycles,<not supported>,,,," "-e, CSV: <not supported> as perf stat -x, writes it"
	out=$("$GUS" stat --json -e task-clock,cycles -- "$WORKLOAD" exit 0 2>&1)
	check_contains "$out" '"name": "cycles", "counted": false, "supported": false' "-e, JSON: supported false"
	out=$("$GUS" stat -e cycles,instructions -- "$WORKLOAD" exit 0 2>&1); st=$?
	check_status $st 3 "-e with no event countable: exit status 3"
	check_contains "$out" "no hardware PMU" "-e with no event countable: the PMU is named"
elif [ $st -eq 1 ] && printf '%s\n' "$out" | grep -q "libpfm4 does not recognise"; then
	ok 0 "hardware counters, but a CPU libpfm4 does not know: exit status 1"
	check_contains "$out" "--arch" "the message says how to name a table"
elif [ $st -eq 4 ]; then
	ok 0 "hardware counters not permitted here: exit status 4"
	check_contains "$out" "perf_event_paranoid" "the message names perf_event_paranoid"
else
	check_status $st 0 "hardware PMU present: the program's status"
	check_contains "$out" "Frontend_Bound" "the TMA tree is printed"
fi
done_testing
