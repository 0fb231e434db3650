#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The QEMU tracer's windows over the whole run: a function with a cheap
# phase and a slow one is simulated as the time-weighted whole (within
# 15 % of its two phases simulated completely), its phases are shown, and
# the verdict names memory; --window 0 keeps the first records. Two threads
# running one function on different data get an answer each.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
P="$WORKLOADS/phases"
cd "$TMP" || exit 1

"$GUS" record -q -o ph.data -- "$P" </dev/null >/dev/null 2>&1; st=$?
check_status $st 0 "recorded with windows (the default)"
test "$($SQL ph.data "select value from meta where key='trace.window_records'")" = 5000 &&
	test "$($SQL ph.data "select value from meta where key='trace.windows_per_level'")" = 32
ok $? "the windows' size and number per stride are in the recording"
out=$("$GUS" report -i ph.data --region 'hot loop' 2>&1)
sec=$(printf '%s\n' "$out" | sed -n '/^== Region .*: hot loop/,$p')
check_contains "$sec" "from windows spread over the whole run" "the stream line says the windows cover the run"
check_contains "$sec" "Windows: " "the windows and their spread are shown"
check_contains "$sec" "Phases (windows that differ by more than 20 %):" "two phases differ: the phases are shown"
nph=$(printf '%s\n' "$sec" | grep -c '^  records ')
test "$nph" -ge 2; ok $? "at least two phases ($nph)"
# the last phase: the memory-bound one, most of the time, far slower
last=$(printf '%s\n' "$sec" | grep '^  records ' | tail -1)
share=$(printf '%s\n' "$last" | sed 's/.*run *\([0-9.]*\)% of the time.*/\1/')
lcpi=$(printf '%s\n' "$last" | sed 's/.*time *\([0-9.]*\) cycles per.*/\1/')
fcpi=$(printf '%s\n' "$sec" | grep '^  records ' | head -1 | sed 's/.*time *\([0-9.]*\) cycles per.*/\1/')
awk -v s="$share" 'BEGIN { exit !(s > 60) }'; ok $? "the memory phase is most of the time ($share %)"
awk -v a="$lcpi" -v b="$fcpi" 'BEGIN { exit !(a > 10 * b) }'; ok $? "... and over ten times slower per iteration ($lcpi against $fcpi)"
check_contains "$sec" "memory latency:" "the verdict names memory"
whole=$(printf '%s\n' "$sec" | sed -n 's/^Simulated on [^:]*: \([0-9.]*\) cycles per iteration.*/\1/p' | head -1)
# the reference: each phase's complete stream simulated, weighed by its iterations
c1=$("$GUS" sim $NOSWEEP --trace --qemu --function hot --max-insns 5000000 -- "$P" 2000 0 2>/dev/null | awk '/cycles per iteration/ {print $4}')
c2=$("$GUS" sim $NOSWEEP --trace --qemu --function hot --max-insns 5000000 -- "$P" 0 300 2>/dev/null | awk '/cycles per iteration/ {print $4}')
ref=$(awk -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", (200000 * a + 30000 * b) / 230000 }')
awk -v w="$whole" -v r="$ref" 'BEGIN { d = w / r - 1; exit !(r > 0 && d < 0.15 && d > -0.15) }'
ok $? "the whole ($whole cycles per iteration) is within 15 % of the complete phases weighed by time ($ref)"
# the formats of the hot loop's report, from the cache the text report
# filled (the other regions, ld.so's and the function's, would each be
# simulated for checks that read only the hot loop's windows)
json=$("$GUS" report -i ph.data --region 'hot loop' --json 2>/dev/null)
check_contains "$json" '"windows": {"picked": ' "JSON: the windows of each region"
check_contains "$json" '"phases": [{"from_record": ' "JSON: the phases"
csv=$("$GUS" report -i ph.data --region 'hot loop' --csv 2>/dev/null)
# (the hot loop's rank among the regions depends on where the samples fell)
printf '%s\n' "$csv" | grep -Eq '^windows,[0-9]+,summary,'; ok $? "CSV: the windows' summary rows"
# cached: the second report reads the windows from the recording
out2=$("$GUS" report -i ph.data --region 'hot loop' 2>&1)
check_contains "$out2" "# simulations: 1 of 1 from the recording's cache" "the second report reads the cache"
# the cache is keyed by what the model file says: a comment changed
# still reads it, a statement changed simulates again
cp -r "$GUS_DATADIR" "$TMP/data2"
sed -i '1s/^/# a comment added\n/' "$TMP/data2/machines/skx.mm"
out3=$(GUS_DATADIR="$TMP/data2" "$GUS" report -i ph.data --region 'hot loop' 2>&1)
check_contains "$out3" "# simulations: 1 of 1 from the recording's cache" "a model whose comments changed: the cache serves"
sed -i 's/^mispredict-penalty 16 /mispredict-penalty 30 /' "$TMP/data2/machines/skx.mm"
out4=$(GUS_DATADIR="$TMP/data2" "$GUS" report -i ph.data --region 'hot loop' 2>&1)
printf '%s\n' "$out4" | grep -q "from the recording's cache"; test $? -ne 0
ok $? "a model whose statements changed: simulated again, not read from the cache"
check_contains "$out2" "Phases (windows that differ by more than 20 %):" "... with the phases"

"$GUS" record -q --window 0 -o first.data -- "$P" </dev/null >/dev/null 2>&1
out=$("$GUS" report -i first.data --region 'hot loop' 2>&1)
check_contains "$out" "(its first ones)" "--window 0: the first records, said so"
check_lacks "$out" "Windows: " "--window 0: no windows"
out=$("$GUS" record -q --window 50 -o bad.data -- "$P" 2>&1); st=$?
check_status $st 2 "--window 50 is a usage error"
check_contains "$out" "--window takes 0 or at least 100 records" "... that says what it takes"

# two threads, one function, different data: an answer per thread (the L1
# thread with enough work to keep over a tenth of the samples on a loaded
# machine: 150000 calls gave it 9.7 % beside the sanitized suite)
T="$WORKLOADS/threads2"
"$GUS" record -q -o t2.data -- "$T" 300000 8000 </dev/null >/dev/null 2>&1; st=$?
check_status $st 0 "threads: recorded"
out=$("$GUS" report -i t2.data --region 'hot loop' 2>&1)
sec=$(printf '%s\n' "$out" | sed -n '/^== Region .*: hot loop/,$p')
check_contains "$sec" "Threads (the region's samples by thread, as perf report --sort pid):" "threads: the region's threads are listed"
rows=$(printf '%s\n' "$sec" | grep -E '^ +[0-9.]+%  pid [0-9]+ tid [0-9]+ +[0-9.]+ cycles per iteration')
test "$(printf '%s\n' "$rows" | grep -c .)" -eq 2; ok $? "threads: both are simulated apart"
# the memory thread: far slower per iteration (in the model, whatever
# the host's caches); which thread has more of the samples depends on the
# host (its 16 MiB ring fits some L3s), so the list is checked for its
# order, most samples first, each thread with over a tenth of them
slow=$(printf '%s\n' "$rows" | awk '{print $6}' | sort -g | tail -1)
fast=$(printf '%s\n' "$rows" | awk '{print $6}' | sort -g | head -1)
awk -v a="$slow" -v b="$fast" 'BEGIN { exit !(a > 10 * b) }'; ok $? "threads: one thread far slower per iteration ($slow against $fast)"
shares=$(printf '%s\n' "$rows" | awk '{sub("%", "", $1); print $1}' | tr '\n' ' ')
printf '%s\n' "$rows" | awk '{sub("%", "", $1); if (NR > 1 && $1 > prev) bad = 1; if ($1 < 10) bad = 1; prev = $1} END { exit bad }'
ok $? "threads: listed by their share of the samples, most first, each over a tenth ($shares)"
c1=$("$GUS" sim $NOSWEEP --trace --qemu --function hot --max-insns 3000000 -- "$T" 20000 0 2>/dev/null | awk '/cycles per iteration/ {print $4}')
c2=$("$GUS" sim $NOSWEEP --trace --qemu --function hot --max-insns 3000000 -- "$T" 0 8000 2>/dev/null | awk '/cycles per iteration/ {print $4}')
awk -v w="$fast" -v r="$c1" 'BEGIN { d = w / r - 1; exit !(r > 0 && d < 0.15 && d > -0.15) }'
ok $? "threads: the L1 thread ($fast) within 15 % of its own stream ($c1)"
awk -v w="$slow" -v r="$c2" 'BEGIN { d = w / r - 1; exit !(r > 0 && d < 0.15 && d > -0.15) }'
ok $? "threads: the memory thread ($slow) within 15 % of its own stream ($c2)"
json=$("$GUS" report -i t2.data --region 'hot loop' --json 2>/dev/null)
check_contains "$json" '"threads": [{"pid": ' "threads: JSON lists them"
script=$("$GUS" script -i t2.data --function hot 2>/dev/null | grep -e "^  --")
check_contains "$script" ": window 0 of traced range" "threads: gus script marks the windows"
check_contains "$script" "-- process 0 thread 2" "threads: ... and the threads (numbered in creation order: the L1 one is 1, the memory one 2)"

done_testing
