#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How gus stat --import's time grows with the rows of a perf stat -x,
# file: for each mode of gen.sh and each size, a file is generated, then
# imported once (--arch spr -l 2); prints the seconds, the ratio to the
# previous size's time and the rows per second. Linear: the ratio follows
# the sizes' ratio (10 for 10k, 100k, 1M).
#
#   bench/import/run.sh [GUS]
#
# GUS: the gus binary (default: gus in PATH). Environment: SIZES (default
# "10000 100000 1000000"), MODES (default "interval percpu both"),
# TIMEOUT seconds per import (default 600; a run past it prints "timeout"
# and the larger sizes of that mode are skipped), GEN_OPTS (counts-only,
# for a gus that refuses perf's metric-only lines), TMPDIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
gus=${1:-gus}
sizes=${SIZES:-10000 100000 1000000}
modes=${MODES:-interval percpu both}
limit=${TIMEOUT:-600}
work=$(mktemp -d "${TMPDIR:-/tmp}/gus-bench-import.XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
printf '%-9s %9s %10s %7s %12s\n' mode rows seconds ratio rows/s
for mode in $modes; do
	prev=
	for n in $sizes; do
		# shellcheck disable=SC2086
		"$here/gen.sh" "$mode" "$n" ${GEN_OPTS:-} >"$work/in.csv"
		t0=$(now)
		if timeout "$limit" "$gus" stat --import "$work/in.csv" --arch spr -l 2 >"$work/out.txt" 2>"$work/err.txt"; then
			st=0
		else
			st=$?
		fi
		t1=$(now)
		if [ "$st" -eq 124 ]; then
			printf '%-9s %9s %10s\n' "$mode" "$n" "timeout (${limit}s)"
			break
		fi
		if [ "$st" -ne 0 ]; then
			printf '%-9s %9s failed (exit %s): %s\n' "$mode" "$n" "$st" "$(head -1 "$work/err.txt")"
			break
		fi
		awk -v mode="$mode" -v n="$n" -v t0="$t0" -v t1="$t1" -v prev="$prev" 'BEGIN {
			s = t1 - t0
			r = prev == "" ? "-" : sprintf("%.1f", s / prev)
			printf "%-9s %9d %10.3f %7s %12.0f\n", mode, n, s, r, n / (s > 0 ? s : 1e-9)
		}'
		prev=$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { print t1 - t0 }')
	done
done
