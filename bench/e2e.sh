#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end speed of gus record + gus report on the bundled workloads:
# the program natively, under plain qemu-x86_64, then gus record (samples
# and the QEMU trace run), the first gus report (simulates) and a second
# one (cached). Median of RUNS runs each. The target: record + report at
# most a few seconds beyond the program's own run under QEMU, and a
# cached report under a second.
# usage: bench/e2e.sh GUS WORKLOADS_DIR [RUNS] [WORKLOAD...]
set -u
gus=$1
dir=$2
runs=${3:-3}
shift 3 2>/dev/null || shift $#
[ $# -gt 0 ] || set -- fpchain shuffle divide ptrchase branchmiss stream jacobi1d
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
# median SECONDS... of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# timed CMD...: the seconds it took
timed() { t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }

printf '%-11s %8s %8s %8s %8s %8s %8s %10s\n' workload native qemu record report cached extra "target"
for w in "$@"; do
	prog=$dir/$w
	nat="" q="" rec="" rep="" cached=""
	i=0
	while [ $i -lt "$runs" ]; do
		nat="$nat $(timed "$prog")"
		q="$q $(timed qemu-x86_64 "$prog")"
		rec="$rec $(timed "$gus" record -q -o "$tmp/g.data" -- "$prog")"
		rep="$rep $(timed "$gus" report -q -i "$tmp/g.data")"
		cached="$cached $(timed "$gus" report -q -i "$tmp/g.data")"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	nat=$(median $nat); q=$(median $q); rec=$(median $rec); rep=$(median $rep); cached=$(median $cached)
	extra=$(awk -v a="$rec" -v b="$rep" -v c="$nat" -v d="$q" 'BEGIN {print a + b - c - d}')
	verdict=$(awk -v e="$extra" -v c="$cached" 'BEGIN {print (e > 5 || c >= 1) ? "NOT met" : "met"}')
	printf '%-11s %8.2f %8.2f %8.2f %8.2f %8.3f %8.2f %10s\n' "$w" "$nat" "$q" "$rec" "$rep" "$cached" "$extra" "$verdict"
done
echo "(seconds, median of $runs; extra = record + report - native - qemu: what gus adds"
echo " beyond the two runs of the program; target: extra <= 5 s, cached < 1 s)"
