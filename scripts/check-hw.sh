#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-hw: the hardware paths, for bare-metal Intel machines (the CI
# and development VMs have neither a PMU nor Intel PT). Each check says
# what the machine allowed; a missing feature is reported as skipped.
# Environment (set by make check-hw): GUS, WORKLOADS, GUS_QEMU_PLUGIN.
set -u
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {	# check STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok - $2"; else fail=$((fail + 1)); echo "not ok - $2"; fi
}
skipped() { skip=$((skip + 1)); echo "skip - $1"; }

echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) CPUs), kernel $(uname -r)"
echo "== perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"

# hardware counting: the TMA tree of a spinning workload
"$GUS" stat -l 3 -- "$WORKLOADS/workload" spin 1 >"$tmp/stat.txt" 2>&1
st=$?
stat_st=$st
if [ $st -eq 3 ]; then
	skipped "no hardware PMU: $(tail -1 "$tmp/stat.txt")"
else
	check $st "gus stat -l 3 counts the TMA events (exit $st)"
	grep -q "Retiring" "$tmp/stat.txt"; check $? "the TMA tree is printed"
	grep -q "this CPU taken for" "$tmp/stat.txt"; check $? "and which CPU chose its table"
	cat "$tmp/stat.txt"
fi

# Intel PT: record branchy, decode it, compare its own functions with the
# QEMU tracer's stream (libc differs: the real CPU picks other string routines)
if [ ! -d /sys/bus/event_source/devices/intel_pt ]; then
	skipped "no intel_pt PMU on this machine"
else
	(cd "$tmp" && "$GUS" record --tracer pt --hot 100 -o "$tmp/pt.data" -- "$WORKLOADS/branchy" >"$tmp/out1" 2>"$tmp/rec.txt")
	st=$?
	cat "$tmp/rec.txt"
	check $st "gus record with Intel PT (exit $st)"
	for f in collatz dispatch fib; do
		"$GUS" script -i "$tmp/pt.data" --function $f --no-disasm -o "$tmp/pt-$f.txt" 2>"$tmp/e"
		check $? "gus script decodes $f from the PT recording"
		"$GUS" script --qemu --no-mem --function $f --no-disasm -o "$tmp/q-$f.txt" -- "$WORKLOADS/branchy" \
			>"$tmp/out2" 2>/dev/null
		if cmp -s "$tmp/pt-$f.txt" "$tmp/q-$f.txt"; then
			check 0 "$f: PT stream == QEMU stream ($(wc -l <"$tmp/pt-$f.txt") instructions)"
		else
			check 1 "$f: PT stream == QEMU stream"
			diff "$tmp/pt-$f.txt" "$tmp/q-$f.txt" | head -5
		fi
	done
	"$GUS" sim --trace --pt "$tmp/pt.data" --function collatz >"$tmp/sim.txt" 2>&1
	check $? "gus sim --trace --pt on the recording"
	grep "stream:\|cycles per\|Bottleneck" "$tmp/sim.txt"
	(cd "$tmp" && "$GUS" record --tracer pt -o "$tmp/snap.data" --pt-mode snapshot -- "$WORKLOADS/branchy" >/dev/null 2>&1)
	check $? "gus record --pt-mode snapshot"
	(cd "$tmp" && "$GUS" record --tracer pt -o "$tmp/filt.data" --pt-filter collatz -- "$WORKLOADS/branchy" >/dev/null 2>&1)
	check $? "gus record --pt-filter collatz"
	n=$("$GUS" script -i "$tmp/filt.data" --no-disasm 2>/dev/null | grep -vc "collatz+")
	check "$n" "the filtered recording holds only collatz ($n other instructions)"
fi
# the main job on the machine's own hardware: counts, cycles samples, PT
"$GUS" record -o "$tmp/main.data" -- "$WORKLOADS/divide" >"$tmp/rec2.txt" 2>&1
check $? "gus record of the divide workload"
"$GUS" report -i "$tmp/main.data" >"$tmp/rep.txt" 2>&1
check $? "gus report of it"
tracer=$(sqlite3 "$tmp/main.data" "select value from meta where key='tracer'" 2>/dev/null)
event=$(sqlite3 "$tmp/main.data" "select value from meta where key='sample.event'" 2>/dev/null)
echo "== record: tracer $tracer, samples of $event"
grep -E "^(Verdict|not available)" "$tmp/rep.txt" | head -3
if [ -d /sys/bus/event_source/devices/intel_pt ]; then
	[ "$tracer" = pt ]; check $? "the stream came from Intel PT"
fi
if [ $stat_st -ne 3 ]; then
	grep -q "Verdict: agree" "$tmp/rep.txt"; check $? "counters and model agree on the divider"
fi

# per-region Top-Down: the TMA groups read at every sample; tworegions has
# a divider-bound function and a memory-bound one
if [ $stat_st -ne 3 ]; then
	"$GUS" record -o "$tmp/tr.data" -- "$WORKLOADS/tworegions" >"$tmp/rec3.txt" 2>&1
	check $? "gus record of tworegions"
	groups=$(sqlite3 "$tmp/tr.data" "select value from meta where key='sample.read_groups'" 2>/dev/null)
	why=$(sqlite3 "$tmp/tr.data" "select value from meta where key='missing.region_counts'" 2>/dev/null)
	echo "== read groups: ${groups:-none ($why)}" | tr '\n' ' '; echo
	if [ -n "$groups" ]; then
		"$GUS" report -i "$tmp/tr.data" >"$tmp/rep4.txt" 2>&1
		check $? "gus report of it"
		grep -E "^(== Region|Verdict|Measured)" "$tmp/rep4.txt" | head -9
		sed -n '/^== Region .*: divide_part (function/,/^== Region/p' "$tmp/rep4.txt" | grep -q "Core_Bound"
		check $? "divide_part's own tree: Core_Bound"
		sed -n '/^== Region .*: chase_part (function/,/^== Region/p' "$tmp/rep4.txt" | grep -q "Memory_Bound"
		check $? "chase_part's own tree: Memory_Bound"
	fi
fi

# SPIRE: interval counts of the CPU's metric set from the bundled
# workloads, a model trained on them, and the memory-bound one analyzed
if [ $stat_st -eq 3 ]; then
	skipped "SPIRE: no hardware PMU"
elif ! "$GUS" spire metrics >/dev/null 2>&1; then
	skipped "SPIRE: no metric set for this CPU ($("$GUS" spire metrics 2>&1 | head -1))"
else
	for w in divide stream ptrchase branchmiss fpchain shuffle jacobi1d; do
		"$GUS" stat -I 50 --spire -x, -o "$tmp/spire-$w.csv" -- "$WORKLOADS/$w" >/dev/null 2>"$tmp/e"
		check $? "gus stat -I 50 --spire counts $w"
	done
	"$GUS" spire train -o "$tmp/hw.spire" "$tmp"/spire-*.csv >"$tmp/train.txt" 2>&1
	check $? "gus spire train on the workloads' samples"
	tail -3 "$tmp/train.txt"
	"$GUS" spire analyze -m "$tmp/hw.spire" --top 8 "$tmp/spire-stream.csv" >"$tmp/an.txt" 2>&1
	check $? "gus spire analyze of stream"
	sed -n '/measured/,/likely/p' "$tmp/an.txt"
	"$GUS" record -q --tracer none --spire -o "$tmp/spire.data" -- "$WORKLOADS/stream" >/dev/null 2>&1
	check $? "gus record --spire"
	"$GUS" report -i "$tmp/spire.data" --spire "$tmp/hw.spire" >"$tmp/rep3.txt" 2>&1
	grep -q "ensemble estimate" "$tmp/rep3.txt"; check $? "gus report --spire ranks the recorded samples"
fi

echo "$pass passed, $fail failed ($skip skipped: hardware missing)"
[ "$fail" -eq 0 ]
