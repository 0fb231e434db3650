#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus stat --import: the TMA tree from perf stat -x, files, every output
# format, multiplexing, mismeasured values, and bad input.
. "$TESTDIR/cli/lib.sh"

# perf stat --topdown counts on Ice Lake (a published data point), after
# the comment and blank line perf starts its output with
{ printf '# started on Sat Nov 21 10:00:00 2026\n\n'; cat "$TESTDIR/fixtures/perf-topdown-icx.csv"; } > "$TMP/topdown.csv"
out=$("$GUS" stat --import "$TMP/topdown.csv" --arch icx 2>&1); st=$?
check_status $st 0 "import of perf --topdown counts exits 0"
line=$(printf '%s\n' "$out" | grep " Backend_Bound")
check_contains "$line" "54.5" "Backend Bound 54.5 %"
check_contains "$line" "<==" "marked as the bottleneck"
check_contains "$(printf '%s\n' "$out" | grep " Retiring")" "39.6" "Retiring 39.6 %"
check_contains "$(printf '%s\n' "$out" | grep " Bad_Speculation")" "2.4" "Bad Speculation 2.4 %"
check_contains "$(printf '%s\n' "$out" | grep " Frontend_Bound")" "3.5" "Frontend Bound 3.5 %"
check_contains "$out" "level-1 sum 100.0" "level-1 sum shown"

out=$("$GUS" stat --import "$TMP/topdown.csv" --arch icx -x, 2>&1); st=$?
check_status $st 0 "CSV output exits 0"
check_contains "$out" "node,Backend_Bound,1,,0.545" "CSV node record with the value"
check_contains "$out" "event,PERF_METRICS.BACKEND_BOUND,263248545,1000000000,1000000000,263248545,1.0000" \
	"CSV event record with raw, enabled, running, scaled, ratio"

out=$("$GUS" stat --import "$TMP/topdown.csv" --arch icx --json 2>&1); st=$?
check_status $st 0 "JSON output exits 0"
check_contains "$out" '"name": "Backend_Bound", "level": 1, "parent": null, "value": 0.545' "JSON node"
check_contains "$out" '"multiplex_ratio": 1.0000' "JSON carries the multiplex ratio"
if command -v python3 >/dev/null 2>&1; then
	printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null
	ok $? "JSON output parses"
fi

# Cascade Lake, level 1, one group multiplexed to 50 %: perf printed scaled values
cat > "$TMP/clx.csv" <<'CSV'
1000000000,,cpu_clk_unhalted.thread,500000000,100.00,,
600000000,,idq_uops_not_delivered.core,250000000,50.00,,
2300000000,,uops_issued.any,250000000,50.00,,
2000000000,,uops_retired.retire_slots,500000000,100.00,,
20000000,,int_misc.recovery_cycles,500000000,100.00,,
CSV
out=$("$GUS" stat --import "$TMP/clx.csv" --arch clx 2>&1); st=$?
check_status $st 0 "clx import exits 0"
check_contains "$(printf '%s\n' "$out" | grep " Frontend_Bound")" "15.0" "Frontend Bound = 0.6e9 / 4e9 = 15.0 %"
check_contains "$(printf '%s\n' "$out" | grep " Frontend_Bound")" "[mux  50%]" "computed from multiplexed counts: ratio shown"
check_contains "$(printf '%s\n' "$out" | grep " Retiring")" "50.0" "Retiring = 2e9 / 4e9"
check_contains "$(printf '%s\n' "$out" | grep " Bad_Speculation")" "9.5" "Bad Speculation = (2.3e9 - 2e9 + 4 x 2e7) / 4e9"

# without --arch, on a machine taken for one without a table (GUS_CPU=gnr)
# or for another CPU (spr): the file's events name the table
for cpu in gnr spr; do
	out=$(GUS_CPU=$cpu "$GUS" stat --import "$TMP/clx.csv" 2>&1); st=$?
	check_status $st 0 "clx import without --arch on a $cpu host exits 0"
	check_contains "$out" "its events are the clx table's (5 of 5)" "... the table of its events, said ($cpu host)"
	check_contains "$(printf '%s\n' "$out" | grep " Frontend_Bound")" "15.0" "... and the same tree ($cpu host)"
done
out=$(GUS_CPU=clx "$GUS" stat --import "$TMP/clx.csv" 2>&1)
check_lacks "$out" "its events are" "a clx host: its own table, nothing to say"
printf '5,,no_such.event,100,100.00,,\n7,,another.event,100,100.00,,\n' > "$TMP/alien.csv"
out=$(GUS_CPU=gnr "$GUS" stat --import "$TMP/alien.csv" 2>&1); st=$?
check_status $st 1 "events of no table, on a host without one: exit 1"
check_contains "$out" "no TMA table knows most of its events" "... and why"

# an impossible count: mismeasured, with the reason, never clamped
sed 's/^600000000,/6000000000,/' "$TMP/clx.csv" > "$TMP/bad.csv"
out=$("$GUS" stat --import "$TMP/bad.csv" --arch clx 2>&1); st=$?
check_status $st 0 "a mismeasured tree is still printed"
line=$(printf '%s\n' "$out" | grep " Frontend_Bound")
check_contains "$line" "150.0" "the out-of-range value is shown as it is"
check_contains "$line" "MISMEASURED" "flagged mismeasured"
check_contains "$line" "multiplexed" "with the reason"
check_contains "$out" "level-1 sum" "level-1 sum line present"

# a node whose event is missing: not computable, named
grep -v recovery "$TMP/clx.csv" > "$TMP/missing.csv"
out=$("$GUS" stat --import "$TMP/missing.csv" --arch clx 2>&1)
check_contains "$(printf '%s\n' "$out" | grep " Bad_Speculation")" "n/a" "Bad Speculation not computable"
check_contains "$(printf '%s\n' "$out" | grep " Bad_Speculation")" "INT_MISC.RECOVERY_CYCLES" "naming the missing event"

# -o writes atomically; a failure leaves no file
"$GUS" stat --import "$TMP/clx.csv" --arch clx -o "$TMP/out.txt" >/dev/null 2>&1
st=$?
check_status $st 0 "-o FILE exits 0"
grep -q "Frontend_Bound" "$TMP/out.txt"; ok $? "-o FILE holds the tree"
printf '1,,cycles\n' > "$TMP/trunc.csv"
out=$("$GUS" stat --import "$TMP/trunc.csv" --arch clx -o "$TMP/none.txt" 2>&1); st=$?
check_status $st 1 "a truncated import exits 1"
check_contains "$out" "trunc.csv:1:" "the error names file and line"
test ! -e "$TMP/none.txt"; ok $? "and no output file is left"
ls "$TMP" | grep -q "none.txt.tmp"; test $? -ne 0; ok $? "nor a temporary one"

out=$("$GUS" stat --import "$TMP/nonexistent.csv" --arch clx 2>&1); st=$?
check_status $st 1 "a missing import file exits 1"
check_contains "$out" "nonexistent.csv" "and is named"

out=$("$GUS" stat --import "$TMP/clx.csv" --arch nosuch 2>&1); st=$?
check_status $st 1 "an unknown --arch exits 1"
check_contains "$out" "nosuch" "and is named"

out=$("$GUS" stat --import "$TMP/clx.csv" --arch clx --nodes Bogus_Node 2>&1); st=$?
check_status $st 2 "an unknown --nodes entry is a usage error"
check_contains "$out" "Bogus_Node" "and is named"

printf '5,,no_such.event,100,100.00,,\n1000000000,,cycles,100,100.00,,\n' > "$TMP/unknown.csv"
out=$("$GUS" stat --import "$TMP/unknown.csv" --arch clx 2>&1); st=$?
check_contains "$out" "no_such.event" "an event the table does not use is named in a warning"

# perf 6.12: a threshold column (good, bad or empty) after each metric,
# and the metrics that do not fit on their count's line on lines of their
# own (count, unit and event empty); perf stat -M topdownl1 -x, -I 1000 on
# Sapphire Rapids, the example of the perf commit that added the column
cat > "$TMP/spr612.csv" <<'CSV'
1.000103288,4677067630,,TOPDOWN.SLOTS,16029302700,100.00,31.1,%  tma_backend_bound,bad
1.000103288,,,,,,51.0,%  tma_frontend_bound,bad
1.000103288,,,,,,7.6,%  tma_bad_speculation,good
1.000103288,,,,,,10.2,%  tma_retiring,good
1.000103288,476781750,,topdown-retiring,16029302700,100.00,,
1.000103288,2389693619,,topdown-fe-bound,16029302700,100.00,,
1.000103288,1431602465,,topdown-be-bound,16029302700,100.00,,
1.000103288,378991388,,topdown-bad-spec,16029302700,100.00,,
1.000103288,4934535,,INT_MISC.CLEARS_COUNT,16029339890,100.00,,
1.000103288,3188888,,INT_MISC.UOP_DROPPING,16029239908,100.00,,
1.000103288,484429099,,UOPS_RETIRED.SLOTS,16029176080,100.00,,
1.000103288,709313662,,UOPS_ISSUED.ANY,16028914990,100.00,0.15,insn per cycle,
CSV
sed 's/^1\.000103288,//' "$TMP/spr612.csv" > "$TMP/spr612-plain.csv"
for form in spr612 spr612-plain; do
	out=$("$GUS" stat --import "$TMP/$form.csv" --arch spr 2>&1); st=$?
	check_status $st 0 "perf 6.12 output with thresholds ($form) exits 0"
	check_contains "$(printf '%s\n' "$out" | grep " Frontend_Bound")" "51.0" "... Frontend Bound 51.0 %, as perf's own metric says ($form)"
	check_contains "$(printf '%s\n' "$out" | grep " Retiring")" "10.2" "... Retiring 10.2 % ($form)"
	check_lacks "$out" "empty event" "... its metric-only lines are no count lines ($form)"
done

# an hour of perf stat -I 100 is millions of lines: 50 004 (4 167
# intervals of the lines above) are read in well under a second (each
# line was compared with every line before it: 10 s for 40 000)
awk '{ line[NR] = $0; sub(/^[0-9.]+,/, "", line[NR]) }
	END { for (i = 0; i < 4167; i++) for (j = 1; j <= NR; j++) printf "%.9f,%s\n", 1.000103288 + i, line[j] }' \
	"$TMP/spr612.csv" > "$TMP/big.csv"
test "$(wc -l < "$TMP/big.csv")" -eq 50004; ok $? "a perf stat -I file of 50 004 lines written"
out=$("$GUS" stat --import "$TMP/big.csv" --arch spr -x, 2>&1); st=$?
check_status $st 0 "its import exits 0"
check_contains "$out" "node,Frontend_Bound,1,,0.510" "... the intervals summed: the one interval's tree"
check_contains "$out" "event,TOPDOWN.SLOTS,19489340814210," "... slots summed over the 4 167 intervals (4677067630 x 4167)"

# an import file gus cannot read: exit 1, named, with the reason
out=$("$GUS" stat --import "$TMP" --arch spr 2>&1); st=$?
check_status $st 1 "a directory as the import file exits 1"
check_contains "$out" "$TMP: read error: Is a directory" "... named, with the reason"
if [ "$(id -u)" -ne 0 ]; then
	cp "$TMP/clx.csv" "$TMP/unreadable.csv" && chmod 000 "$TMP/unreadable.csv"
	out=$("$GUS" stat --import "$TMP/unreadable.csv" --arch clx 2>&1); st=$?
	check_status $st 1 "an unreadable import file exits 1"
	check_contains "$out" "unreadable.csv: Permission denied" "... named, with the reason"
fi

# --print-events: a perf command collecting the same events, grouped
out=$("$GUS" stat --print-events --arch clx -l 1 -- ./app 2>&1); st=$?
check_status $st 0 "--print-events exits 0"
check_contains "$out" "perf stat -x, -e '{" "prints a perf stat command with groups"
check_contains "$out" "name=idq_uops_not_delivered.core" "with perf's event names"
check_contains "$out" "-- ./app" "for the program"
out=$("$GUS" stat --print-events --arch clx -l 3 -u -- ./app 2>&1)
check_contains "$out" "name=cycle_activity.stalls_mem_any/u" "-u adds perf's user-only modifier"
groups_too_big=$(printf '%s\n' "$out" | head -1 | tr '}' '\n' | awk -F'cpu/' 'NF - 1 > 5 { bad++ } END { print bad + 0 }')
test "$groups_too_big" -eq 0; ok $? "another CPU's groups stay within 4 general counters (+ fixed)"
out=$("$GUS" stat --print-events --arch clx -l 1 2>&1)
contains "$out" "any=1"; test $? -ne 0; ok $? "without SMT, no AnyThread events (they need perf_event_paranoid <= 0)"
out=$("$GUS" stat --print-events --arch spr -l 1 2>&1)
check_contains "$out" "{slots,topdown-retiring" "spr: SLOTS leads the PERF_METRICS group"
# a hybrid CPU: a table per core type, its events on that type's PMU
if [ -n "${GUS_TMAGEN_DIR:-}" ]; then
	out=$("$GUS" stat --print-events --arch adl-core -l 1 -- ./prog 2>&1)
	check_contains "$out" "{cpu_core/slots/,cpu_core/topdown-retiring/" "adl-core: perf's cpu_core events"
	printf '191281317,,cpu_core/topdown-retiring/,1000000000,100.00,,\n11363246,,cpu_core/topdown-bad-spec/,1000000000,100.00,,\n17044869,,cpu_core/topdown-fe-bound/,1000000000,100.00,,\n263248545,,cpu_core/topdown-be-bound/,1000000000,100.00,,\n482937977,,cpu_core/slots/,1000000000,100.00,,\n' >"$TMP/hyb.csv"
	out=$("$GUS" stat --import "$TMP/hyb.csv" --arch adl-core -l 1 2>&1); st=$?
	check_status $st 0 "adl-core: a cpu_core file imports"
	check_contains "$out" "Retiring                              39.6 % slots" "adl-core: its tree"
	out=$("$GUS" stat --print-events --arch adl-atom -l 1 -- ./prog 2>&1)
	check_contains "$out" "cpu_atom/event=0x" "adl-atom: its events on cpu_atom"
fi

# AMD's pipeline-utilization Top-Down (zen4, zen5): perf stat -M
# PipelineL1,PipelineL2 -x, output, level 2 multiplexed (50 %), perf's
# metric columns after the counts and its name of the kernel's modified
# event (cpu@EVENT\,cmask\=0x6@). Zen 4, 6 slots a cycle: 1e9 cycles are
# 6e9 slots; frontend 1.5e9 (25 %), its latency 6 x 1e8 (10 %); retired
# 2.4e9 (40 %), dispatched 2.7e9 (bad speculation 5 %, 3:1 mispredicts to
# restarts); backend 1.8e9 (30 %), 3 of 5 incomplete-retire cycles loads
# (memory 18 %); 1 retired op in 10 microcode (4 %)
if [ -n "${GUS_TMAGEN_DIR:-}" ]; then
	cat > "$TMP/zen4.csv" <<'CSV'
1000000000,,ls_not_halted_cyc,2000000000,50.00,,
1500000000,,de_no_dispatch_per_slot.no_ops_from_frontend,2000000000,50.00,25.0,%  frontend_bound
2700000000,,de_src_op_disp.all,2000000000,50.00,5.0,%  bad_speculation
2400000000,,ex_ret_ops,2000000000,50.00,40.0,%  retiring
1800000000,,de_no_dispatch_per_slot.backend_stalls,2000000000,50.00,30.0,%  backend_bound
0,,de_no_dispatch_per_slot.smt_contention,2000000000,50.00,0.0,%  smt_contention
100000000,,cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/,2000000000,50.00,10.0,%  frontend_bound_latency
3000000,,ex_ret_brn_misp,2000000000,50.00,3.8,%  bad_speculation_mispredicts
1000000,,resyncs_or_nc_redirects,2000000000,50.00,1.2,%  bad_speculation_pipeline_restarts
300000000,,ex_no_retire.load_not_complete,2000000000,50.00,18.0,%  backend_bound_memory
500000000,,ex_no_retire.not_complete,2000000000,50.00,12.0,%  backend_bound_cpu
240000000,,ex_ret_ucode_ops,2000000000,50.00,4.0,%  retiring_microcode
CSV
	# Zen 5, 8 slots a cycle: the same fractions of 8e9 slots; its
	# latency counter is cmask=8, its restarts bp_redirects.resync
	awk -F, 'BEGIN { OFS = "," }
		$3 == "de_no_dispatch_per_slot.no_ops_from_frontend" { $1 = 2000000000 }
		$3 == "de_src_op_disp.all" { $1 = 3600000000 }
		$3 == "ex_ret_ops" { $1 = 3200000000 }
		$3 == "de_no_dispatch_per_slot.backend_stalls" { $1 = 2400000000 }
		$3 == "ex_ret_ucode_ops" { $1 = 320000000 }
		$3 == "resyncs_or_nc_redirects" { $3 = "bp_redirects.resync" }
		{ print }' "$TMP/zen4.csv" | sed 's|cmask=0x6/|cmask=0x8/|' > "$TMP/zen5.csv"
	for z in zen4 zen5; do
		# a host taken for Skylake-SP (clx's table knows none of the
		# events), and one taken for the other Zen (its table knows 10
		# of the 12 names, not the modified event nor the restarts)
		other=zen5; [ $z = zen5 ] && other=zen4
		for host in skx $other; do
			out=$(GUS_CPU=$host "$GUS" stat --import "$TMP/$z.csv" -l 2 2>&1); st=$?
			check_status $st 0 "$z: perf stat -M PipelineL1,PipelineL2 imports without --arch ($host host)"
			check_contains "$out" "its events are the $z table's (12 of 12)" "... the $z table, picked by its events ($host host)"
		done
		line() { printf '%s\n' "$out" | grep -E "^ +$1 "; }
		check_contains "$(line Frontend_Bound)" "25.0 % slots" "$z: Frontend Bound 25 %"
		check_contains "$(line Frontend_Bound)" "[mux  50%]" "$z: ... multiplexed counts, said"
		check_contains "$(line Latency)" "10.0 %" "$z: its latency 10 % (the cmask form)"
		check_contains "$(line Bandwidth)" "15.0 %" "$z: its bandwidth 15 %"
		check_contains "$(line Bad_Speculation)" "5.0 %" "$z: Bad Speculation 5 %"
		check_contains "$(line Mispredicts)" "3.8 %" "$z: mispredicts 3.75 %"
		check_contains "$(line Pipeline_Restarts)" "1.2 %" "$z: pipeline restarts 1.25 %"
		check_contains "$(line Backend_Bound)" "30.0 %" "$z: Backend Bound 30 %"
		check_contains "$(line Memory)" "18.0 %" "$z: memory 18 %"
		check_contains "$(line CPU)" "12.0 %" "$z: CPU 12 %"
		check_contains "$(line SMT_Contention)" "0.0 %" "$z: SMT contention 0"
		check_contains "$(line Retiring)" "40.0 %" "$z: Retiring 40 %"
		check_contains "$(line Fastpath)" "36.0 %" "$z: fastpath 36 %"
		check_contains "$(line Microcode)" "4.0 %" "$z: microcode 4 %"
		check_contains "$out" "level-1 sum 100.0" "$z: level 1 sums to 100 %"
		out=$(GUS_CPU=$z "$GUS" stat --import "$TMP/$z.csv" -l 2 2>&1)
		check_lacks "$out" "its events are" "$z: on a $z host its own table, nothing to say"
		check_contains "$out" "for AMD $(echo $z | sed 's/zen/Zen /') ($z)" "$z: ... named in the title"
	done
	# --print-events: a perf command counting the same events; level 1
	# is one group of the 6 core counters, level 2 a second group
	out=$("$GUS" stat --print-events --arch zen4 -l 1 -- ./app 2>&1); st=$?
	check_status $st 0 "zen4: --print-events exits 0"
	check_contains "$out" "perf stat -x, -e '{cpu/event=0x76,umask=0x00,name=ls_not_halted_cyc/,cpu/event=0x1a0,umask=0x01,name=de_no_dispatch_per_slot.no_ops_from_frontend/," \
		"zen4: perf's raw terms, the extended event select whole (event=0x1a0)"
	test "$(printf '%s\n' "$out" | head -1 | tr -cd '{' | wc -c)" -eq 1; ok $? "zen4: level 1 in one group"
	check_contains "$out" "name=de_no_dispatch_per_slot.smt_contention/}' -o counts.csv -- ./app" "zen4: ... its six events"
	check_lacks "$out" "groups of at most" "zen4: one group, nothing multiplexed to say"
	out=$("$GUS" stat --print-events --arch zen4 -l 2 2>&1)
	test "$(printf '%s\n' "$out" | head -1 | tr -cd '{' | wc -c)" -eq 2; ok $? "zen4: levels 1-2 in two groups (multiplexed)"
	check_contains "$out" "# 2 groups of at most 6 general counters: perf multiplexes them" "zen4: ... said under the command"
	check_contains "$out" "cpu/event=0x1a0,umask=0x01,cmask=6,name=de_no_dispatch_per_slot.no_ops_from_frontend.c6/" \
		"zen4: the latency event with its counter mask"
	# what perf prints for that command comes back as the same counts
	printf '%s\n' "$out" | head -1 | tr '{},' '\n\n\n' | sed -n 's|^name=\(.*\)/$|\1|p' > "$TMP/zen4-names"
	# (the file's modified event splits at its comma: its third field is
	# cpu/EVENT)
	awk -F, 'NR == FNR { v[$3] = $1; next }
		{ n = $0; k = n; if (n ~ /\.c6$/) k = "cpu/de_no_dispatch_per_slot.no_ops_from_frontend"
		  printf "%s,,%s,2000000000,50.00,,\n", v[k], n }' "$TMP/zen4.csv" "$TMP/zen4-names" > "$TMP/zen4-back.csv"
	out=$("$GUS" stat --import "$TMP/zen4-back.csv" --arch zen4 -l 2 2>&1); st=$?
	check_status $st 0 "zen4: the counts of the printed command import"
	check_contains "$(printf '%s\n' "$out" | grep -E '^ +Latency ')" "10.0 %" "zen4: ... to the same tree"
	check_lacks "$out" "not used by" "zen4: ... every event known by its name"
	# no PMU here (or not this CPU's): a live run fails cleanly
	if ! "$GUS" stat -e cycles -- true >/dev/null 2>&1; then
		out=$("$GUS" stat --arch zen4 -- true 2>&1); st=$?
		check_status $st 3 "zen4: a live run without a PMU exits 3"
		check_contains "$out" "no hardware PMU" "zen4: ... with the no-PMU message"
	fi
fi

done_testing
