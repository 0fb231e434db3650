#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The measured side per hot region: tworegions has a divider-bound
# function and a memory-bound one; per-region counts imported with
# --import-counts (the CSV that perf report --group can be turned into)
# give each region its own Top-Down tree, and each region's verdict
# compares that tree with its own simulation: two different answers, each
# agreeing with its model. The whole program's tree is the sum of the
# rows. Bad files are refused by line; a file naming no hot region says so.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
P="$WORKLOADS/tworegions"
cd "$TMP" || exit 1
json() { $SQL :memory: "select json_extract(readfile('$1'), '$2')"; }

# Cascade Lake events of levels 1 and 2: divide_part core-bound, chase_part
# memory-bound, main with too few events for a tree
{
	echo "# per-region counts"
	echo "region,event,value"
	for r in divide_part '[.] chase_part'; do
		if [ "$r" = divide_part ]; then
			v="1000000000 1000000000 200000000 1000000000 1000000000 0 10000000 1000 0 50000000 600000000 0 100000000 100000000 0"
		else
			v="150000000 2000000000 100000000 300000000 300000000 0 5000000 100 0 1800000000 1850000000 0 20000000 10000000 0"
		fi
		set -- $v
		for e in instructions cycles idq_uops_not_delivered.core uops_issued.any uops_retired.retire_slots \
			int_misc.recovery_cycles idq_uops_not_delivered.cycles_0_uops_deliv.core \
			br_misp_retired.all_branches machine_clears.count cycle_activity.stalls_mem_any \
			cycle_activity.stalls_total exe_activity.bound_on_stores exe_activity.1_ports_util \
			exe_activity.2_ports_util uops_retired.macro_fused; do
			echo "$r,$e,$1"
			shift
		done
	done
	echo "main,instructions,1000000"
	echo "main,cycles,2000000"
} >regions.csv

# the three functions hot (no 1-sample regions of ld.so besides them),
# windows of 1000 records, and a third of the divisions (the traced run
# under QEMU is mostly divide_part's): the same verdicts for a fraction of
# the tracing and simulating
HOT3="--hot 3 --window 1000"
DIVS=10000000
"$GUS" record -q -l 2 --arch clx --import-counts regions.csv $HOT3 -o r.data -- "$P" $DIVS </dev/null >/dev/null 2>err; st=$?
check_status $st 0 "record with per-region --import-counts exits 0"
check_contains "$($SQL r.data "select value from meta where key='counts.source'")" "(per region)" \
	"the recording says the counts came per region"
check_contains "$($SQL r.data "select count(distinct region) from region_counts")" "3" \
	"region_counts: divide_part, chase_part and main (the rows that name hot regions)"
# the whole program: every row added up
test "$($SQL r.data "select value from counts where event='cycles'")" = 3002000000.0; ok $? \
	"the whole program's cycles are the rows' sum"

"$GUS" report -q -i r.data --json -o r.json 2>/dev/null; st=$?
check_status $st 0 "its report exits 0"
# a region's index in the JSON's list of recording $1
at() { echo $(($($SQL "$1" "select rank from regions where name='$2'") - 1)); }
D=$(at r.data divide_part) C=$(at r.data chase_part)
check_contains "$(json r.json "\$.regions[$D].verdict.measured")" "Backend_Bound > Core_Bound" \
	"divide_part: its own counters say Core_Bound"
check_contains "$(json r.json "\$.regions[$C].verdict.measured")" "Backend_Bound > Memory_Bound" \
	"chase_part: its own counters say Memory_Bound"
check_contains "$(json r.json "\$.regions[$D].verdict.resource")" "DIV" "divide_part: the model says the divider"
check_contains "$(json r.json "\$.regions[$D].verdict.kind")" "agree" "divide_part: the two agree"
check_contains "$(json r.json "\$.regions[$C].verdict.kind")" "agree" "chase_part: the two agree (memory)"
check_contains "$(json r.json "\$.regions[$D].measured_tree.imported")" "1" "JSON: the region's tree, imported"
check_contains "$(json r.json "\$.regions[$C].measured_tree.nodes")" "Memory_Bound" "JSON: its nodes"
check_contains "$(json r.json '$.measured.nodes')" "Backend_Bound" "the whole program's tree stays at the top"

# (--all: every region's details, whatever its share)
txt=$("$GUS" report -q -i r.data --all 2>&1)
sec=$(printf '%s\n' "$txt" | sed -n '/^== Region .*: divide_part (function/,/^== Region/p')
check_contains "$sec" "Measured (this region, imported counts): Frontend_Bound 5.0 %, Bad_Speculation 0.0 %, Backend_Bound 70.0 % (> Core_Bound 65.2 %)" \
	"text: divide_part's own tree"
# (a loop alone: its function's only hot loop is shown with it otherwise)
sec=$("$GUS" report -q -i r.data --region 'chase_part loop' 2>&1 | sed -n '/^== Region .*: chase_part loop/,/^== Region/p')
check_contains "$sec" "Measured (its function, imported counts)" "text: a loop is measured by its function's counts"
sec=$(printf '%s\n' "$txt" | sed -n '/^== Region .*: main (function/,/^== Region/p')
check_contains "$sec" "lack events of level 1" "text: main's rows give no level 1: said, the whole program's tree used"
csv=$("$GUS" report -q -i r.data --csv 2>&1)
check_contains "$csv" "divide_part,measured.Core_Bound,0.65" "CSV: the region's nodes"
check_contains "$csv" "divide_part,measured_samples,imported" "CSV: where they came from"

# the verdict follows each region's own counts: the same program against
# counters that blame the front end in divide_part disagrees there only
sed -e 's/^divide_part,idq_uops_not_delivered.core,200000000/divide_part,idq_uops_not_delivered.core,3000000000/' \
	-e 's/^divide_part,uops_issued.any,1000000000/divide_part,uops_issued.any,800000000/' \
	-e 's/^divide_part,uops_retired.retire_slots,1000000000/divide_part,uops_retired.retire_slots,800000000/' \
	regions.csv >fe.csv
"$GUS" record -q -l 2 --arch clx --import-counts fe.csv $HOT3 -o fe.data -- "$P" $DIVS </dev/null >/dev/null 2>&1
# the two functions' reports only (with their loops), not main's
"$GUS" report -q -i fe.data --region divide_part --json -o fe-d.json 2>/dev/null
"$GUS" report -q -i fe.data --region chase_part --json -o fe-c.json 2>/dev/null
# the field $3 of the region named $2 in the JSON report $1
field() { $SQL :memory: "select json_extract(value, '$3') from json_each(readfile('$1'), '\$.regions') where json_extract(value, '\$.name') = '$2'"; }
check_contains "$(field fe-d.json divide_part '$.verdict.kind')" "disagree" "front-end counters in divide_part: disagree"
check_contains "$(field fe-c.json chase_part '$.verdict.kind')" "agree" "... and chase_part still agrees"

# the same counts as if read at 60 samples of each region (bare metal):
# trees flagged as too few to trust, and the skid said once (the regions'
# simulations come from r.data's cache: the measured side is computed anew)
cp r.data few.data
$SQL few.data "update region_counts set samples = 60"
txt=$("$GUS" report -q -i few.data --all 2>&1)
check_contains "$txt" "Measured (this region, 60 samples)" "sampled counts: the samples behind a region's tree"
check_contains "$txt" "only 60 samples read its counters: too few to trust" "fewer than 100: flagged"
test "$(printf '%s\n' "$txt" | grep -c "skids a few instructions")" -eq 1; ok $? "the skid of the samples said once"

# counter groups read at every sample, end to end with software events
# (these machines have no PMU): a cpu-clock leader reading {task-clock,
# page-faults}; each region's deltas add up to its share of the run
"$GUS" record -q --read-events task-clock,page-faults --tracer none -o rd.data -- "$P" </dev/null >/dev/null 2>&1; st=$?
check_status $st 0 "record --read-events task-clock,page-faults exits 0"
test "$($SQL rd.data "select value from meta where key='sample.read_groups'")" = "task-clock,page-faults"; ok $? \
	"the group read at the samples is in the recording"
nr=$($SQL rd.data "select count(*) from sample_reads") ns=$($SQL rd.data "select count(*) from samples")
awk -v a="$nr" -v b="$ns" 'BEGIN { exit !(a > 0.8 * b && a < 1.25 * b) }'; ok $? \
	"the group's leader samples as often as the sampling event ($nr and $ns), into a table of its own"
for f in chase_part divide_part; do
	row=$($SQL rd.data "select c.samples, r.samples, c.value, c.running from region_counts c join regions r on r.id = c.region where r.name = '$f' and c.event = 'task-clock'")
	set -- $(printf '%s\n' "$row" | tr '|' ' ')
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0.8 * b && a < 1.25 * b) }'; ok $? \
		"$f: its counts are made of its share of the group's samples ($1, against $2 time samples)"
	# cpu-clock at 4000 Hz: 250 us of task-clock per sample
	awk -v n="$1" -v v="$3" 'BEGIN { r = v / (n * 250000); exit !(r > 0.8 && r < 1.25) }'; ok $? \
		"$f: task-clock of its samples, $3 ns for $1 samples"
done
tc=$($SQL rd.data "select value from counts where event = 'task-clock'")
awk -v v="$tc" 'BEGIN { exit !(v > 0) }'; ok $? "the whole program's count set: the groups' totals ($tc ns)"
# region 1 only: its counts are what is read, not the other regions'
# (static) simulations
txt=$("$GUS" report -q -i rd.data --region 1 2>&1)
check_contains "$txt" "Counts (this region, " "text: a region's counts where no TMA table makes a tree of them"
"$GUS" report -q -i rd.data --region 1 --json -o rd.json 2>/dev/null
check_contains "$(json rd.json '$.regions[0].counts[0].event')" "task-clock" "JSON: the region's counts"

# no counters: the missing PMU is the reason given, whatever table
# libpfm4 would pick (machines with a PMU count instead)
"$GUS" stat -- true >/dev/null 2>&1; pmu=$?
if [ $pmu -eq 3 ]; then
	for forced in icl clx; do
		LIBPFM_FORCE_PMU=$forced "$GUS" record -q --tracer none -o np.data -- "$P" 1000 1000 1 </dev/null >/dev/null 2>&1
		m=$($SQL np.data "select value from meta where key='missing.counts'")
		check_contains "$m" "no hardware PMU" "no PMU, libpfm4 forced to $forced: gus record names the PMU"
		check_lacks "$m" "TMA table" "no PMU, libpfm4 forced to $forced: and no TMA table"
		check_contains "$($SQL np.data "select value from meta where key='missing.region_counts'")" \
			"no counters to read at the samples" "no PMU, libpfm4 forced to $forced: no per-region counts, said"
		rm -f np.data
	done
else
	ok 0 "# SKIP this machine counts: the no-PMU messages are not exercised"
fi

# a function named twice (as gus names it, and with parameters as perf
# may): one region, its rows added up
printf 'region,event,value\ndivide_part,instructions,600\n"divide_part(double, long)",instructions,400\n' >twice.csv
"$GUS" record -q --arch clx --tracer none --import-counts twice.csv -o twice.data -- "$P" 3000000 300000 8 </dev/null >/dev/null 2>&1
test "$($SQL twice.data "select c.value from region_counts c join regions r on r.id = c.region where r.name = 'divide_part' and c.event = 'instructions'")" = 1000.0
ok $? "a function named twice: one row of 1000 instructions"
# from a pipe: the first line is read once
cat twice.csv | "$GUS" record -q --arch clx --tracer none --import-counts /dev/stdin -o pipe.data -- "$P" 3000000 300000 8 >/dev/null 2>&1
check_contains "$($SQL pipe.data "select value from meta where key='counts.source'")" "(per region)" \
	"per-region counts from a pipe"

# bad files
printf 'region,event,value\ndivide_part,cycles,12x\n' >bad.csv
out=$("$GUS" record -q --arch clx --import-counts bad.csv -o bad.data -- "$P" 2>&1 </dev/null); st=$?
check_status $st 1 "a bad per-region file: exit 1"
check_contains "$out" "bad.csv:2: the value '12x' is not a count" "... naming the file, the line and the problem"
test ! -e bad.data; ok $? "... and no recording is left"
printf 'region,event,value\nno_such_function,cycles,12\n' >none.csv
# two hot functions, no trace, a shorter run (as twice.csv's): the counts
# are matched to the regions before any tracing, and the report's measured
# side needs no stream
out=$("$GUS" record -q --arch clx --hot 2 --tracer none --import-counts none.csv -o none.data -- "$P" 3000000 300000 8 2>&1 </dev/null >/dev/null); st=$?
check_status $st 0 "a file naming no hot region: recorded"
check_contains "$out" "names none of the hot regions" "... said"
out=$("$GUS" report -q -i none.data 2>&1)
check_contains "$out" "names none of the hot regions" "... and the report says why the regions use the whole program's tree"
done_testing
