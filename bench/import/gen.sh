#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes N lines of perf stat -x, output as perf 6.12 prints the counts of
# gus's Sapphire Rapids level-2 events (gus stat --print-events --arch spr
# -l 2): each count line with perf's own metric and its threshold column
# (good/bad, or empty), and the metric-only lines perf adds after a group.
#
#   bench/import/gen.sh MODE N [counts-only]
#
# MODE interval: perf stat -I 100 -x, (a timestamp first, 100 ms apart)
#      percpu:   perf stat -A -a -x, (one block per CPU, CPU0, CPU1, ...)
#      both:     perf stat -I 100 -A -a -x, (64 CPUs per timestamp)
# counts-only leaves the metric-only lines out (a gus from before it read
# them refuses them). The values are made up but consistent (the TMA tree
# computes), and the same arguments give the same bytes.
set -eu
mode=${1:?usage: gen.sh interval|percpu|both N}
rows=${2:?usage: gen.sh interval|percpu|both N}
only=${3:-}
case $mode in interval|percpu|both) ;; *) echo "gen.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
case $only in ''|counts-only) ;; *) echo "gen.sh: unknown option '$only'" >&2; exit 2 ;; esac
exec awk -v mode="$mode" -v rows="$rows" -v only="$only" '
function threshold(v, limit) { return v > limit ? "bad" : "good" }
function block(prefix,   slots, ret, bad, fe, be, heavy, brm, fetch, mem, drop, run, t) {
	run = 100148672 + int(rand() * 1000)
	slots = 6 * run
	ret = 0.25 + rand() * 0.2; bad = 0.05 + rand() * 0.1; fe = 0.15 + rand() * 0.2; be = 1 - ret - bad - fe
	heavy = ret * 0.3; brm = bad * 0.8; fetch = fe * 0.6; mem = be * 0.5
	drop = int(slots * 0.001)
	line(prefix int(slots) ",,slots," run ",100.00,,")
	line(prefix int(slots * ret) ",,topdown-retiring," run ",100.00," sprintf("%.1f", ret * 100) ",%  tma_retiring," threshold(0.1, ret))
	metric(prefix ",,,," sprintf(",%.1f", fe * 100) ",%  tma_frontend_bound," threshold(fe, 0.15))
	metric(prefix ",,,," sprintf(",%.1f", bad * 100) ",%  tma_bad_speculation," threshold(bad, 0.15))
	metric(prefix ",,,," sprintf(",%.1f", be * 100) ",%  tma_backend_bound," threshold(be, 0.2))
	line(prefix int(slots * bad) ",,topdown-bad-spec," run ",100.00,,")
	line(prefix int(slots * fe) ",,topdown-fe-bound," run ",100.00,,")
	line(prefix int(slots * be) ",,topdown-be-bound," run ",100.00,,")
	line(prefix int(slots * heavy) ",,topdown-heavy-ops," run ",100.00," sprintf("%.1f", heavy * 100) ",%  tma_heavy_operations,")
	line(prefix int(slots * brm) ",,topdown-br-mispredict," run ",100.00," sprintf("%.1f", brm * 100) ",%  tma_branch_mispredicts," threshold(brm, 0.1))
	line(prefix int(slots * fetch) ",,topdown-fetch-lat," run ",100.00," sprintf("%.1f", fetch * 100) ",%  tma_fetch_latency," threshold(fetch, 0.1))
	line(prefix int(slots * mem) ",,topdown-mem-bound," run ",100.00," sprintf("%.1f", mem * 100) ",%  tma_memory_bound," threshold(mem, 0.2))
	t = int(run * 0.5)
	line(prefix drop ",,int_misc.uop_dropping," t ",50.00,,")
}
function line(s) { if (written < rows) { print s; written++ } }
function metric(s) { if (only == "") line(s) }
BEGIN {
	srand(1)
	ncpu = 64
	for (i = 0; written < rows; i++) {
		if (mode == "interval")
			block(sprintf("%.9f,", 0.100125 + i * 0.1))
		else if (mode == "percpu")
			block("CPU" i ",")
		else
			block(sprintf("%.9f,CPU%d,", 0.100125 + int(i / ncpu) * 0.1, i % ncpu))
	}
}'
