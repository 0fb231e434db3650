#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus list: what this CPU is taken for (GUS_CPU here), the TMA tables and
# core models, a table's nodes with formulas and its events with their
# encodings, a core model's resources; bad arguments refused.
. "$TESTDIR/cli/lib.sh"

out=$(GUS_CPU=spr "$GUS" list 2>&1); st=$?
check_status $st 0 "gus list exits 0"
check_contains "$out" "This CPU: Sapphire Rapids (GUS_CPU=spr); TMA table spr; core spr" "this CPU, as GUS_CPU names it"
# the tables generated from the kernel's metric files (the hand-written
# ones where the build had none): every level the kernel has
tables="clx icx spr"
[ -z "${GUS_TMAGEN_DIR:-}" ] || tables="clx skx icx spr emr icl adl-core"
for t in $tables; do
	printf '%s\n' "$out" | grep -Eq "^  $t +.*nodes, levels 1-[3-6]"; ok $? "the $t table is listed with its nodes and levels"
done
if [ -n "${GUS_TMAGEN_DIR:-}" ]; then
	check_contains "$out" "Alder Lake, Golden Cove cores: 89 nodes, levels 1-6, 108 events; also adl" "a table's other names"
	printf '%s\n' "$out" | grep -Eq "^  clx +Cascade Lake X: [0-9]+ nodes, levels 1-6"; ok $? "clx: the kernel's levels 4 to 6"
else
	check_contains "$out" "Cascade Lake X (Skylake-SP server): 29 nodes, levels 1-3, 40 events; also skx" "a table's other names"
fi
# AMD's pipeline-utilization Top-Down, levels 1-2 (pipeline.json)
if [ -n "${GUS_TMAGEN_DIR:-}" ]; then
	for z in zen4 zen5; do
		printf '%s\n' "$out" | grep -Eq "^  $z +AMD Zen [45]: 13 nodes, levels 1-2, 12 events"; ok $? "the $z table is listed"
		zout=$(GUS_CPU=$z "$GUS" list 2>&1)
		check_contains "$zout" "(GUS_CPU=$z); TMA table $z;" "a $z host takes the $z table"
	done
	zout=$("$GUS" list tma --arch zen4 2>&1)
	check_contains "$zout" "  Latency                                slots" "zen4: Frontend_Bound's latency child, named without its parent's name"
	check_contains "$zout" "SMT_Contention" "zen4: the SMT contention node"
	check_contains "$zout" "level 1: 6 events, one group" "zen4: level 1 fits the 6 general counters, said"
	check_contains "$zout" "levels 1-2: 12 events, more than the counters: gus stat multiplexes" "zen4: level 2 multiplexes, said"
	zout=$("$GUS" list events --arch zen4 2>&1)
	check_contains "$zout" "0x1000001a0  -          DISPATCH_STALLS_1:FE_NO_OPS" "zen4: the extended event select in bits 35:32, libpfm4's name"
	zout=$("$GUS" list events --arch zen5 2>&1)
	check_contains "$zout" "0x1080001a0  -          (none: the raw encoding)" "zen5: raw encodings, cmask=8"
fi
printf '%s\n' "$out" | grep -Eq "^  skx +Intel Skylake-SP"; ok $? "the skx core model"
printf '%s\n' "$out" | grep -Eq "^  spr +Intel Sapphire Rapids"; ok $? "the spr core model"
printf '%s\n' "$out" | grep -Eq "^  icx +Intel Ice Lake-SP"; ok $? "the icx core model"
printf '%s\n' "$out" | grep -Eq "^  zen4 +AMD Zen 4"; ok $? "the zen4 core model"
printf '%s\n' "$out" | grep -Eq "^  zen5 +AMD Zen 5"; ok $? "the zen5 core model"

out=$("$GUS" list tma --arch clx 2>&1); st=$?
check_status $st 0 "gus list tma --arch clx exits 0"
if [ -n "${GUS_TMAGEN_DIR:-}" ]; then
	check_contains "$out" "Frontend_Bound                           slots             15%  IDQ_UOPS_NOT_DELIVERED.CORE / tma_info_thread_slots" \
		"a level-1 node: unit, threshold, formula (the kernel's)"
	check_contains "$out" "      Mispredicts_Resteers               clocks             5%  BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT) * INT_MISC.CLEAR_RESTEER_CYCLES / tma_info_thread_clks" \
		"a level-4 node, indented under its level-3 parent"
	check_contains "$out" "  Contested_Accesses: level 4, TSC is not counted per program" "the nodes left out, and why"
else
	check_contains "$out" "Frontend_Bound                           slots             15%  IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS" \
		"a level-1 node: unit, threshold, formula"
fi
check_contains "$out" "    ICache_Misses" "level 3 indented under level 2"
test "$(printf '%s\n' "$out" | grep -c '^[A-Z]')" -ge 4; ok $? "the four level-1 nodes"
check_contains "$out" "metrics the formulas use:" "then the metrics"
out=$(GUS_CPU=spr "$GUS" list tma 2>&1)
check_contains "$out" "TMA table spr" "without --arch: the table this CPU is taken for"

out=$("$GUS" list events --arch spr 2>&1); st=$?
check_status $st 0 "gus list events --arch spr exits 0"
check_contains "$out" "TOPDOWN.SLOTS                                    fixed    0x400" "slots: a fixed counter, its encoding"
check_contains "$out" "metrics " "the PERF_METRICS fields"

out=$("$GUS" list machine --arch skx 2>&1); st=$?
check_status $st 0 "gus list machine --arch skx exits 0"
check_contains "$out" "issue width: 4 per cycle" "its width"
printf '%s\n' "$out" | grep -Eq "^DIV +divider"; ok $? "the divider among its resources"

"$GUS" list bogus >/dev/null 2>&1; check_status $? 2 "an unknown list: usage error"
"$GUS" list tma --arch nosuch >/dev/null 2>&1; check_status $? 2 "an unknown --arch: usage error"
"$GUS" list machine --arch nosuch >/dev/null 2>&1; check_status $? 2 "an unknown core model: usage error"
"$GUS" list --arch spr >/dev/null 2>&1; check_status $? 2 "--arch without a list: usage error"
out=$("$GUS" list --help 2>&1)
check_contains "$out" "gus list tma [--arch ID]" "--help"
done_testing
