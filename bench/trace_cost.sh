#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What the QEMU tracer's windows cost, and what gus record + gus report
# take on real programs.
#
# 1. The phases workload, long: its run under plain qemu-x86_64 against
#    gus record's trace run with windows (trace.seconds_x1000), runs
#    alternating and the ratio the median of the pairs, and the share of
#    the traced ranges' records the windows hold (the whole stream counted
#    by a run with --window 0 and a cap above it). The target: at most
#    twice the plain QEMU run when the windows hold about 1 %.
# 2. gus record and the first gus report of xz -6 on a generated file,
#    python3 on a loop, and the bundled workloads (bench/e2e.sh has the
#    detail of those), median of RUNS.
#
# usage: bench/trace_cost.sh GUS WORKLOADS_DIR [RUNS]
set -u
gus=$1
dir=$2
runs=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
timed() { t0=$(now); "$@" >/dev/null 2>&1 </dev/null; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }
meta() { sqlite3 -batch "$1" "select value from meta where key='$2'"; }

echo "== the windows' cost: phases 200000 30000 (hot: 23 M iterations; the windows hold about 1 % of the traced records)"
p="$dir/phases"
# plain and traced runs alternate, and the ratio is taken pair by pair:
# this machine's speed drifts between runs more than the tracer costs
q="" t="" r="" i=0
while [ $i -lt "$runs" ]; do
	qi=$(timed qemu-x86_64 "$p" 200000 30000)
	rm -f "$tmp/w.data"
	"$gus" record -q -o "$tmp/w.data" -- "$p" 200000 30000 >/dev/null 2>&1 </dev/null
	ti=$(awk -v ms="$(meta "$tmp/w.data" trace.seconds_x1000)" 'BEGIN {print ms / 1000}')
	q="$q $qi" t="$t $ti" r="$r $(awk -v a="$ti" -v b="$qi" 'BEGIN {print a / b}')"
	i=$((i + 1))
done
# shellcheck disable=SC2086
q=$(median $q); t=$(median $t); r=$(median $r)
stored=$(meta "$tmp/w.data" trace.records)
rm -f "$tmp/all.data"
"$gus" record -q --window 0 --no-mem --max-insns 400000000 -o "$tmp/all.data" -- "$p" 200000 30000 >/dev/null 2>&1 </dev/null
# --window 0 keeps up to --max-insns per range: the sum is the whole stream
# when no range reached it
whole=$(meta "$tmp/all.data" trace.records)
printf 'plain QEMU %.2f s, traced with windows %.2f s (medians of %s): %.2fx (median of the pairs); windows hold %s of %s records (%.2f %%)\n' \
	"$q" "$t" "$runs" "$r" "$stored" "$whole" \
	"$(awk -v a="$stored" -v b="$whole" 'BEGIN {print b ? 100 * a / b : 0}')"

echo
echo "== gus record + gus report (seconds, median of $runs)"
printf '%-22s %8s %8s %8s %8s\n' program native qemu record report
head -c 2000000 /dev/urandom | od -An -tx1 >"$tmp/plain.txt"
printf 'def f(n):\n    s = 0\n    for i in range(n):\n        s += i * i %% 7\n    return s\nprint(f(3000000))\n' >"$tmp/loop.py"
row() {	# row NAME PROGRAM ARGS...
	name=$1
	prog=$(command -v "$2")
	shift 2
	nat="" qq="" rec="" rep="" i=0
	while [ $i -lt "$runs" ]; do
		nat="$nat $(timed "$prog" "$@")"
		qq="$qq $(timed qemu-x86_64 "$prog" "$@")"
		rm -f "$tmp/r.data"
		rec="$rec $(timed "$gus" record -q -o "$tmp/r.data" -- "$prog" "$@")"
		rep="$rep $(timed "$gus" report -q -i "$tmp/r.data")"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	printf '%-22s %8.2f %8.2f %8.2f %8.2f\n' "$name" "$(median $nat)" "$(median $qq)" "$(median $rec)" "$(median $rep)"
}
# qemu-x86_64 runs ELF files, not the shell's PATH: the programs by path
row "xz -6 (2 MB of text)" xz -6 -k -f -T1 "$tmp/plain.txt"
row "python3 loop.py" /usr/bin/python3.11 "$tmp/loop.py"
for w in fpchain shuffle divide ptrchase branchmiss stream jacobi1d phases; do
	row "$w" "$dir/$w"
done
