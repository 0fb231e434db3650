#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs libFuzzer targets for a bounded time each (make fuzz-run, CI):
#   run.sh BINDIR FUZZDIR SECONDS NAME...
# BINDIR holds fuzz_NAME (built by make fuzz), FUZZDIR is tests/fuzz of
# the source tree (corpus/NAME and regressions/NAME are read, never
# written: new inputs go to a scratch directory). Each target is one
# process on one core; $FUZZ_JOBS of them run at once (default 1). A
# crash, leak, timeout or out-of-memory fails the target; its input and
# the log are kept under $FUZZ_OUT (default: BINDIR/fuzz-out) and named
# on the output.
# Ends with "fuzz: N passed, N failed".
set -u
bindir=$1
fuzzdir=$2
secs=$3
shift 3
names="$*"
out=${FUZZ_OUT:-$bindir/fuzz-out}
# -max_len per target: the size of its inputs that matter (larger ones
# only slow it down); $FUZZ_FLAGS adds libFuzzer flags (e.g. -runs=N)
fuzz_max_len() {
	case $1 in
	hex) echo 256 ;;
	csv|machine|spire_model) echo 4096 ;;
	tma) echo 6144 ;;
	interval|spire_metrics|streamcodec|ptring|qemu|ipt) echo 8192 ;;
	elf) echo 32768 ;;
	*) echo 65536 ;;
	esac
}
# run_target NAME: one target; prints its PASS/FAIL line (and the lines
# naming what failed); exit 0 when it passed
run_target() {
	name=$1
	bin=$bindir/fuzz_$name
	maxlen=$(fuzz_max_len "$name")
	work=$out/$name
	rm -rf "$work"
	mkdir -p "$work/new"
	dirs="$work/new"
	for d in "$fuzzdir/corpus/$name" "$fuzzdir/regressions/$name"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	if [ ! -x "$bin" ]; then
		echo "FAIL: fuzz_$name: $bin not built (make fuzz)"
		return 1
	fi
	# shellcheck disable=SC2086
	# -timeout 60: CI fuzzes niced beside the sanitized tests, where a
	# seed that simulates a real recording's regions (4 s alone) took 21
	"$bin" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -max_len="$maxlen" \
		-print_final_stats=1 -artifact_prefix="$work/" ${FUZZ_FLAGS:-} $dirs >"$work/log" 2>&1
	st=$?
	stats=$(grep -E "^#[0-9]+.*DONE" "$work/log" | sed 's/  */ /g')
	if [ $st -eq 0 ]; then
		echo "PASS: fuzz_$name ${secs}s: $stats"
		return 0
	fi
	echo "FAIL: fuzz_$name (exit $st): $(ls "$work" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | tr '\n' ' ')"
	grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error)" "$work/log" | head -5 | sed 's/^/    /'
	echo "    log: $work/log"
	return 1
}
mkdir -p "$out"
# FUZZ_JOBS targets at once (default 1): each writes its lines to
# $out/NAME.result, printed in the order the targets were named
jobs=${FUZZ_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
running=0
pids=""
for name in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		# wait for the oldest target still running (POSIX sh has no wait -n)
		set -- $pids
		wait "$1"
		shift
		pids="$*"
		running=$((running - 1))
	fi
	( run_target "$name" >"$out/$name.result" 2>&1 ) &
	pids="$pids $!"
	running=$((running + 1))
done
wait
passed=0
failed=0
for name in $names; do
	cat "$out/$name.result"
	if grep -q "^PASS: " "$out/$name.result"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
