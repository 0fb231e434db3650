#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus spire train / analyze / show / metrics, and SPIRE in gus record and
# gus report, on perf stat -I fixtures drawn under known ceilings
# (tests/fixtures/spire/gen-fixtures.py): the memory-bound workload's
# lowest roofline is the L3-miss one, near its true ceiling of 0.5 IPC.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
F="$TESTDIR/fixtures/spire"
M="$TMP/m.spire"

json() {
	$SQL :memory: "select json_extract(readfile('$1'), '$2')" 2>/dev/null
}
json_valid() {
	[ "$($SQL :memory: "select json_valid(readfile('$1'))" 2>/dev/null)" = 1 ]
}
# in_range VALUE LO HI
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }'
}
no_nan() {	# no_nan FILE DESCRIPTION
	if grep -qiE '(^|[^a-z])(nan|-?inf)([^a-z]|$)' "$1"; then ok 1 "$2"; grep -iE 'nan|inf' "$1" | head -3 | sed 's/^/#   /'; else ok 0 "$2"; fi
}

# --------------------------------------------------------------- train ---
"$GUS" spire train -o "$M" --cpu skx "$F/train-skx.csv" "$F/train-perf.csv" >"$TMP/train.out" 2>"$TMP/e"; st=$?
check_status $st 0 "train exits 0"
check_contains "$(head -1 "$M")" "gus-spire-model 1" "the model starts with its magic line"
check_contains "$(cat "$M")" "cpu skx" "the model names its CPU"
check_status "$(grep -c '^metric ' "$M")" 4 "one roofline per metric (4)"
check_contains "$(cat "$TMP/train.out")" "longest_lat_cache.miss" "the summary lists the rooflines"
check_contains "$(cat "$TMP/train.out")" "DB.2" "the summary gives the metric set's abbreviations"
e=$(cat "$TMP/e")
check_contains "$e" "2 samples with W = 0" "samples without work are named and left out"
check_contains "$e" "not counted in their interval" "samples of a group that did not run are named"
check_contains "$e" "4 rooflines from 2000 samples in 2 files" "the summary line counts rooflines, samples, files"

"$GUS" spire train -q -o "$TMP/m2.spire" --cpu skx "$F/train-skx.csv" "$F/train-perf.csv" >/dev/null 2>&1
if cmp -s "$M" "$TMP/m2.spire"; then ok 0 "training is deterministic"; else ok 1 "training is deterministic"; fi

"$GUS" spire train -o "$TMP/unk.spire" "$F/train-perf.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "train on samples that name no CPU exits 0"
check_contains "$(cat "$TMP/e")" "do not say which CPU" "and warns that the model's CPU is unknown"
check_contains "$(cat "$TMP/unk.spire")" "cpu unknown" "the model says its CPU is unknown"

"$GUS" spire train -o "$TMP/x.spire" --cpu clx "$F/train-skx.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "--cpu contradicting a file's CPU: exit 1"
check_contains "$(cat "$TMP/e")" "say they come from a skx CPU, --cpu says clx" "the error names both CPUs"
[ ! -e "$TMP/x.spire" ]; ok $? "and no model is left"

"$GUS" spire train -o "$TMP/x.spire" "$F/train-skx.csv" "$F/workload-clx.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "samples of two CPUs cannot be mixed"
check_contains "$(cat "$TMP/e")" "workload-clx.csv: samples from a clx CPU cannot be mixed" "the error names the file"

"$GUS" spire train -q -o "$TMP/sel.spire" --cpu skx --metrics BP.1,idq.dsb_uops "$F/train-skx.csv" 2>&1; st=$?
check_status $st 0 "train --metrics exits 0"
check_status "$(grep -c '^metric ' "$TMP/sel.spire")" 2 "--metrics keeps the two metrics named (abbreviation and event)"

"$GUS" spire train -o "$TMP/svg.spire" --svg "$TMP/train.svg" -q --cpu skx "$F/train-skx.csv" >/dev/null 2>&1
check_status "$(grep -c '<polyline' "$TMP/train.svg" 2>/dev/null)" 4 "train --svg draws one roofline per metric"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$TMP/train.svg" 2>/dev/null; ok $? "the training plot is well-formed XML"
fi

"$GUS" spire train -q --json -o "$TMP/j.spire" --cpu skx "$F/train-skx.csv" >"$TMP/model.json" 2>/dev/null
json_valid "$TMP/model.json"; ok $? "train --json prints valid JSON"
check_status "$(json "$TMP/model.json" '$.rooflines[0].knots[0][0]')" 0 "every roofline starts at the origin"

# ------------------------------------------------------------- analyze ---
"$GUS" spire analyze -m "$M" "$F/workload-mem.csv" >"$TMP/a.txt" 2>"$TMP/e"; st=$?
check_status $st 0 "analyze exits 0"
check_contains "$(cat "$TMP/e")" "samples' CPU is unknown: assuming it is the model's CPU, skx" "unnamed samples: assumed the model's CPU, with a warning"
first=$(awk '$1 == "1" { print $3; exit }' "$TMP/a.txt")
check_contains "$first" "longest_lat_cache.miss" "the lowest roofline is the L3-miss one (the fixture's binding ceiling)"
check_contains "$(grep 'longest_lat_cache.miss' "$TMP/a.txt")" "<==" "and it is marked as the likely bottleneck"
no_nan "$TMP/a.txt" "no nan or inf in the text"

"$GUS" spire analyze -q -m "$M" --json -o "$TMP/a.json" "$F/workload-mem.csv"; st=$?
check_status $st 0 "analyze --json -o exits 0"
json_valid "$TMP/a.json"; ok $? "analyze --json is valid JSON"
check_contains "$(json "$TMP/a.json" '$.metrics[0].metric')" "longest_lat_cache.miss" "JSON: metrics ranked lowest first"
in_range "$(json "$TMP/a.json" '$.ensemble')" 0.47 0.56; ok $? "the ensemble estimate is near the true ceiling 0.5 ($(json "$TMP/a.json" '$.ensemble'))"
in_range "$(json "$TMP/a.json" '$.measured')" 0.42 0.48; ok $? "the measured IPC is the workload's (0.45: 90 % of the ceiling)"
check_status "$(json "$TMP/a.json" '$.metrics[0].samples')" 40 "40 samples of the metric (one per interval)"
in_range "$(json "$TMP/a.json" '$.metrics[3].estimate')" 2.5 4; ok $? "a harmless metric's roofline allows far more"
check_status "$(json "$TMP/a.json" '$.metrics[0].rank')" 1 "rank 1 first"
no_nan "$TMP/a.json" "no NaN or Infinity in the JSON"

"$GUS" spire analyze -q -m "$M" --csv "$F/workload-mem.csv" >"$TMP/a.csv"
check_contains "$(head -1 "$TMP/a.csv")" "kind,name,field,value" "CSV header"
bad=$(sed 's/"[^"]*"//g' "$TMP/a.csv" | awk -F, 'NR > 1 && NF != 4' | wc -l)
check_status "$bad" 0 "every CSV row has 4 fields"
check_contains "$(cat "$TMP/a.csv")" "metric,longest_lat_cache.miss,rank,1" "CSV: the L3-miss metric is rank 1"

"$GUS" spire analyze -q -m "$M" --metrics BP.1,DB.2 --json "$F/workload-mem.csv" >"$TMP/sel.json"
check_status "$($SQL :memory: "select json_array_length(readfile('$TMP/sel.json'), '\$.metrics')")" 2 "analyze --metrics keeps two metrics"
"$GUS" spire analyze -q -m "$M" --top 2 "$F/workload-mem.csv" >"$TMP/top.txt"
check_contains "$(cat "$TMP/top.txt")" "(2 more metrics not listed)" "--top 2 says how many were left out"

"$GUS" spire analyze -q -m "$M" --svg "$TMP/a.svg" --svg-top 3 "$F/workload-mem.csv" >/dev/null; st=$?
check_status $st 0 "analyze --svg exits 0"
check_status "$(grep -c '<polyline' "$TMP/a.svg")" 3 "--svg-top 3 draws the three lowest rooflines"
check_contains "$(cat "$TMP/a.svg")" "estimate" "the plot marks the estimate"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$TMP/a.svg" 2>/dev/null; ok $? "the analysis plot is well-formed XML"
fi

# the model is for skx, these samples say clx
"$GUS" spire analyze -m "$M" "$F/workload-clx.csv" >"$TMP/o" 2>"$TMP/e"; st=$?
check_status $st 1 "samples of another CPU: exit 1"
check_contains "$(cat "$TMP/e")" "clx" "the error names the samples' CPU"
check_contains "$(cat "$TMP/e")" "skx" "and the model's"
"$GUS" spire analyze -m "$M" --cpu clx "$F/workload-mem.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "--cpu naming another CPU than the model's: exit 1"

# other T and W events than the model's
"$GUS" spire analyze -m "$M" --time task-clock "$F/workload-mem.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "samples with another T than the model's: exit 1"

# a model from the samples in a recording
"$GUS" spire show -m "$M" >"$TMP/show.txt"; st=$?
check_status $st 0 "show exits 0"
check_status "$(grep -cE '^ +(BP.1|CS.1|L3|DB.2) ' "$TMP/show.txt")" 4 "show lists the four rooflines"
"$GUS" spire show -m "$M" --json >"$TMP/show.json"
json_valid "$TMP/show.json"; ok $? "show --json is valid JSON"

"$GUS" spire metrics --cpu skx >"$TMP/metrics.txt"; st=$?
check_status $st 0 "metrics --cpu skx exits 0"
check_contains "$(cat "$TMP/metrics.txt")" "idq.dsb_uops" "the Skylake-SP set has the DSB metric"
check_contains "$(cat "$TMP/metrics.txt")" "FE.1" "and the paper's front-end metrics"
"$GUS" spire metrics --cpu clx >/dev/null; check_status $? 0 "Cascade Lake X uses the same set"
"$GUS" spire metrics --cpu nosuch >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a CPU without a metric set: exit 1"

# ----------------------------------------------------------- bad input ---
printf 'gus-spire-model 1\ncpu skx\ntime cycles\nwork inst\nsamples x\n' >"$TMP/bad.spire"
"$GUS" spire analyze -m "$TMP/bad.spire" "$F/workload-mem.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a malformed model: exit 1"
check_contains "$(cat "$TMP/e")" "bad.spire:5:" "the error names the model file and line"
head -c 700 "$M" >"$TMP/cut.spire"
"$GUS" spire analyze -m "$TMP/cut.spire" "$F/workload-mem.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a truncated model: exit 1"
check_contains "$(cat "$TMP/e")" "cut.spire:" "the error names the truncated model"
"$GUS" spire analyze -m "$TMP/none.spire" "$F/workload-mem.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a missing model: exit 1"
check_contains "$(cat "$TMP/e")" "none.spire" "the error names it"

printf '1000,,cycles,100,100.00,,\n2000,,instructions,100,100.00,,\n' >"$TMP/noint.csv"
"$GUS" spire analyze -m "$M" "$TMP/noint.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "perf stat output without -I: exit 1"
check_contains "$(cat "$TMP/e")" "noint.csv:1" "the error names the file and line"
check_contains "$(cat "$TMP/e")" "interval" "and says intervals are missing"
printf '\001\002\003\000garbage' >"$TMP/bin.csv"
"$GUS" spire train -o "$TMP/b.spire" "$TMP/bin.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a binary file: exit 1"
[ ! -e "$TMP/b.spire" ]; ok $? "and no model is written"
: >"$TMP/empty.csv"
"$GUS" spire train -o "$TMP/b.spire" "$TMP/empty.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "an empty file: exit 1"
check_contains "$(cat "$TMP/e")" "empty.csv" "the error names it"
# T = 0 and W = 0 everywhere: nothing to learn
printf '1.0,0,,cpu_clk_unhalted.thread,100,100.00,,\n1.0,0,,inst_retired.any,100,100.00,,\n1.0,5,,idq.dsb_uops,100,100.00,,\n' >"$TMP/zero.csv"
"$GUS" spire train -o "$TMP/b.spire" "$TMP/zero.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "samples with T = 0 only: nothing to train, exit 1"
check_contains "$(cat "$TMP/e")" "T = 0" "the samples with T = 0 are named"
"$GUS" spire analyze -m "$M" "$TMP/zero.csv" >"$TMP/o" 2>"$TMP/e"; st=$?
check_status $st 1 "analyze of samples with T = 0 only: exit 1"
no_nan "$TMP/o" "and no nan is printed"
"$GUS" spire analyze -m "$M" "$TMP/nothere.csv" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a missing sample file: exit 1"
check_contains "$(cat "$TMP/e")" "nothere.csv" "the error names it"

"$GUS" spire >/dev/null 2>&1; check_status $? 2 "gus spire without a subcommand: usage error"
"$GUS" spire frob >/dev/null 2>&1; check_status $? 2 "an unknown subcommand: usage error"
"$GUS" spire train "$F/train-skx.csv" >/dev/null 2>&1; check_status $? 2 "train without -o: usage error"
"$GUS" spire analyze "$F/workload-mem.csv" >/dev/null 2>&1; check_status $? 2 "analyze without -m: usage error"
"$GUS" spire analyze -m "$M" >/dev/null 2>&1; check_status $? 2 "analyze without samples: usage error"
"$GUS" spire analyze -m "$M" --top x "$F/workload-mem.csv" >/dev/null 2>&1; check_status $? 2 "--top x: usage error"
"$GUS" spire --help >"$TMP/h"; check_status $? 0 "gus spire --help exits 0"
check_contains "$(cat "$TMP/h")" "gus spire train" "and shows the subcommands"

# ------------------------------------------------ gus record / report ---
D="$TMP/rec.data"
"$GUS" record -q --tracer none -o "$D" --import-intervals "$F/workload-mem.csv" -- "$WORKLOADS/divide" >/dev/null 2>&1; st=$?
check_status $st 0 "gus record --import-intervals exits 0"
check_status "$($SQL "$D" 'select count(*) from interval_counts')" 320 "the 320 interval counts are stored"
check_contains "$($SQL "$D" "select value from meta where key = 'spire.source'")" "import" "meta says where they came from"

"$GUS" report -q -i "$D" --spire "$M" >"$TMP/r.txt" 2>"$TMP/e"; st=$?
check_status $st 0 "gus report --spire exits 0"
check_contains "$(cat "$TMP/r.txt")" "== SPIRE" "the report has a SPIRE section"
check_contains "$(grep -A12 '== SPIRE' "$TMP/r.txt" | awk '$1 == "1"')" "longest_lat_cache.miss" "and ranks the L3-miss metric first"
"$GUS" report -q -i "$D" >"$TMP/r0.txt" 2>&1
check_contains "$(cat "$TMP/r0.txt")" "gus report --spire MODEL" "without a model the report says how to rank the recorded samples"
"$GUS" report -q -i "$D" --spire "$M" --json -o "$TMP/r.json" 2>/dev/null
json_valid "$TMP/r.json"; ok $? "gus report --spire --json is valid JSON"
check_contains "$(json "$TMP/r.json" '$.spire.metrics[0].metric')" "longest_lat_cache.miss" "JSON: spire.metrics ranked"
"$GUS" report -q -i "$D" --spire "$M" --csv -o "$TMP/r.csv" 2>/dev/null
check_contains "$(cat "$TMP/r.csv")" "spire,,metric,longest_lat_cache.miss,rank,1" "CSV: spire rows in the report's columns"
"$GUS" report -q -i "$D" --spire "$M" --svg "$TMP/svgdir" >/dev/null 2>&1
[ -s "$TMP/svgdir/spire.svg" ]; ok $? "--svg DIR writes spire.svg"
"$GUS" spire analyze -q -m "$M" --json "$D" >"$TMP/fromrec.json" 2>/dev/null; st=$?
check_status $st 0 "gus spire analyze reads a recording"
[ "$(json "$TMP/fromrec.json" '$.ensemble')" = "$(json "$TMP/a.json" '$.ensemble')" ]; ok $? "with the same estimate as from the file"

D2="$TMP/plain.data"
"$GUS" record -q --tracer none -o "$D2" -- "$WORKLOADS/divide" >/dev/null 2>&1
"$GUS" report -q -i "$D2" --spire "$M" --json -o "$TMP/r2.json" 2>/dev/null; st=$?
check_status $st 0 "report --spire on a recording without intervals exits 0"
check_contains "$(json "$TMP/r2.json" '$.spire_missing')" "no SPIRE interval counts" "and says why the section is missing"
"$GUS" spire analyze -m "$M" "$D2" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "gus spire analyze of a recording without intervals: exit 1"
check_contains "$(cat "$TMP/e")" "gus record --spire" "and says how to record them"
"$GUS" report -q -i "$D" --spire "$TMP/bad.spire" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "report --spire with a malformed model: exit 1"

"$GUS" record -q --tracer none -o "$TMP/bad.data" --import-intervals "$TMP/noint.csv" -- "$WORKLOADS/divide" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "record --import-intervals of a file without intervals: exit 1"
[ ! -e "$TMP/bad.data" ]; ok $? "and no recording is left"
"$GUS" record -q --spire --import-intervals "$F/workload-mem.csv" -- true >/dev/null 2>&1; st=$?
check_status $st 2 "--spire with --import-intervals: usage error"

# live: the extra interval-counting run of gus record --spire, with
# software events for T, W and the metrics (no PMU here)
L="$TMP/live.data"
"$GUS" record -q --tracer none -o "$L" --spire --spire-interval 20 --spire-time task-clock --spire-work page-faults \
	--spire-metrics context-switches,minor-faults -- "$WORKLOADS/stream" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "gus record --spire with software events exits 0"
check_contains "$($SQL "$L" "select value from meta where key = 'spire.source'")" "counted" "the intervals were counted"
rows=$($SQL "$L" "select count(*) from interval_counts")
[ "$rows" -ge 8 ] && [ $((rows % 4)) -eq 0 ]; ok $? "whole groups of T, W and two metrics per interval ($rows rows)"
check_status "$($SQL "$L" "select count(distinct event) from interval_counts")" 4 "four events counted"
"$GUS" spire train -q -o "$TMP/live.spire" "$L" >/dev/null 2>&1; st=$?
check_status $st 0 "a recording of other T and W events trains without --time/--work"
check_contains "$(cat "$TMP/live.spire")" "time task-clock" "the model keeps the recording's T"
"$GUS" report -q -i "$L" --spire "$TMP/live.spire" --json -o "$TMP/live.json" 2>/dev/null; st=$?
check_status $st 0 "and gus report --spire applies it"
json_valid "$TMP/live.json"; ok $? "valid JSON"
nm=$($SQL :memory: "select json_array_length(readfile('$TMP/live.json'), '\$.spire.metrics')")
[ "${nm:-0}" -ge 1 ]; ok $? "the recorded metrics are ranked ($nm; a metric that never moved has no roofline)"

"$GUS" record -q --tracer none -o "$TMP/noset.data" --spire -- "$WORKLOADS/divide" >/dev/null 2>"$TMP/e"; st=$?
cpu=$("$GUS" spire metrics 2>&1 >/dev/null | head -1)
case "$cpu" in
*"no SPIRE metric set"*)
	check_status $st 1 "gus record --spire on a CPU without a metric set: exit 1 before running"
	check_contains "$(cat "$TMP/e")" "--spire-metrics" "the error names gus record's own options"
	[ ! -e "$TMP/noset.data" ]; ok $? "and no recording is left" ;;
*)
	ok 0 "# SKIP this CPU has a metric set" ;;
esac

LIBPFM_FORCE_PMU=skx "$GUS" record -q --tracer none -o "$TMP/nopmu.data" --spire -- "$WORKLOADS/divide" >/dev/null 2>"$TMP/e"; st=$?
if [ -n "$(cat /sys/bus/event_source/devices/cpu/caps/pmu_name 2>/dev/null)" ]; then
	ok 0 "# SKIP this machine has a PMU"
else
	check_status $st 0 "gus record --spire without a PMU still records (exit 0)"
	check_contains "$(cat "$TMP/e")" "no SPIRE samples" "and warns that the SPIRE run counted nothing"
	check_contains "$($SQL "$TMP/nopmu.data" "select value from meta where key = 'missing.spire'")" "no hardware PMU" "missing.spire says why"
	"$GUS" report -q -i "$TMP/nopmu.data" --spire "$M" >"$TMP/o" 2>&1
	check_contains "$(cat "$TMP/o")" "not available: cannot count" "gus report --spire gives the reason"
fi

done_testing
