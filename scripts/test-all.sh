#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sets up and runs all of gus's tests from a fresh clone: Debian packages,
# libperf, every test built with AddressSanitizer and
# UndefinedBehaviorSanitizer (-Werror, stack-use-after-return detection
# on), a plain -Werror build with the unit tests and the command line's
# surface (make check-plain), and the fuzz targets (clang): each replays
# its corpus and regression inputs, then fuzzes for $GUS_FUZZ_SECONDS
# (default 2; make fuzz-campaign runs the long campaign). The three
# stages run side by side (their tests wait on programs and timers as much
# as they compute), each into its own log; their results are printed in
# order. Ends with "N passed, N failed" over all.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

scripts/install-deps.sh || exit 1
# the build system generated (a fresh clone has no configure) while
# libperf builds: neither needs the other
reconf=
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi >/dev/null &
	reconf=$!
fi
# the kernel's metric files (tools/tmagen) taken out of the linux-source
# tarball once for the three builds, in libperf's own pass over it (xz
# decompresses all of it each time); where libperf is built already, on
# their own
mkdir -p "$top/build"
rm -rf "$top/build/pmu-events"
mkdir -p "$top/build/pmu-events"
scripts/build-libperf.sh --metric-files "$top/build/pmu-events" || exit 1
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
pmu_args=()
if [ -n "$tarball" ]; then
	if ! ls -d "$top"/build/pmu-events/*/tools/perf/pmu-events/arch/x86 >/dev/null 2>&1; then
		xz -dc "$tarball" | tar -x -C "$top/build/pmu-events" --wildcards '*/tools/perf/pmu-events/arch/x86/*' ||
			{ echo "test-all: could not extract the metric files of $tarball" >&2; exit 1; }
	fi
	pmu_args=(--with-pmu-events="$(echo "$top"/build/pmu-events/*/tools/perf/pmu-events/arch/x86)")
fi
if [ -n "$reconf" ]; then
	wait "$reconf" || { echo "test-all: autoreconf failed" >&2; exit 1; }
fi

passed=0
failed=0
status=0
# Each stage runs in a subshell of its own, printing into build/NAME.out,
# which it ends with "RESULT passed failed status"
run_suite() {	# run_suite NAME CHECK-TARGET CONFIGURE-FLAGS...
	local name=$1 target=$2
	shift 2
	local dir="$top/build/$name"
	mkdir -p "$dir"
	exec >"$top/build/$name.out" 2>&1
	echo "== $name: configure $*"
	( cd "$dir" && "$top/configure" -q "$@" ) || { echo "test-all: $name: configure failed"; status=1; failed=$((failed + 1)); return; }
	echo "== $name: build"
	make -C "$dir" -j"$jobs" >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; echo "test-all: $name: build failed"; status=1; failed=$((failed + 1)); return; }
	echo "== $name: make $target (built after $(($(date +%s) - start)) s)"
	make -C "$dir" -j"$jobs" "$target" >"$dir/check.log" 2>&1 || status=1
	grep -E "^(FAIL|ERROR|XPASS)" "$dir/check.log" | sed "s/^/$name: /"
	local p f
	p=$(grep -E "^# (PASS|SKIP|XFAIL):" "$dir/check.log" | awk '{s += $3} END {print s + 0}')
	f=$(grep -E "^# (FAIL|ERROR|XPASS):" "$dir/check.log" | awk '{s += $3} END {print s + 0}')
	echo "$name: $p passed, $f failed"
	# the slowest tests of the stage (each says how long it took)
	grep -H "^# elapsed: " "$dir"/tests/cli/*.log 2>/dev/null |
		sed -E 's|^.*/([^/]*)\.log:# elapsed: ([0-9]+) s$|\2 \1|' | sort -rn | head -5 |
		awk -v n="$name" '{ printf "%s: slow: %s %s s\n", n, $2, $1 }'
	for log in $(grep -lE "^(FAIL|ERROR)" "$dir"/tests/*/*.log 2>/dev/null); do
		echo "---- $log"; grep -E "^(not ok|#)" "$log" | head -20
	done
	passed=$((passed + p))
	failed=$((failed + f))
}

# The libFuzzer targets (tests/fuzz), built with clang, each run on its
# corpus and regression inputs, then fuzzed for $GUS_FUZZ_SECONDS seconds
# (default 2: CI's time is at its limit; the corpora and regression
# inputs are what CI checks, a parser's change gets the campaign), as
# many at once as there are cores: each target is one
# test, a crash, leak, hang or sanitizer report fails it.
fuzz_suite() {	# fuzz_suite CONFIGURE-FLAGS...
	local dir="$top/build/fuzz"
	local secs=${GUS_FUZZ_SECONDS:-2}
	mkdir -p "$dir"
	exec >"$top/build/fuzz.out" 2>&1
	# -O1, as libFuzzer's documentation builds its targets: clang
	# compiles the instrumented sources in 1.7-1.9 s each against 2.0-3.4
	# at the default -O2 (src/sim/core.c), and the fuzz stage's build
	# shares the cores with the sanitized build CI waits for
	echo "== fuzz: configure CC=clang CFLAGS='-g -O1' --enable-fuzzing"
	( cd "$dir" && "$top/configure" -q CC=clang CFLAGS="-g -O1" --enable-fuzzing "$@" ) || { echo "test-all: fuzz: configure failed"; status=1; failed=$((failed + 1)); return; }
	echo "== fuzz: make fuzz"
	make -C "$dir" -j"$jobs" fuzz >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; echo "test-all: fuzz: build failed"; status=1; failed=$((failed + 1)); return; }
	# built at full priority beside the other builds (a niced build
	# starved until the sanitized tests ended, and the fuzzing after it
	# was then all CI waited for); the fuzzing itself fills in where the
	# tests wait
	echo "== fuzz: each target ${secs}s on its corpus (built after $(($(date +%s) - start)) s)"
	# the sim coverage test's corpus (120 compiles, 25 CPU-s) into the
	# stages' shared cache, off the sanitized stage's path: it copies them
	# when its test comes (or compiles what is not there yet)
	GUS_CORPUS_COMPILE_ONLY=1 TESTDIR="$top/tests" "$top/tests/cli/test_sim_coverage.sh" >"$dir/corpus.log" 2>&1 ||
		echo "fuzz: compiling the sim coverage corpus failed (see $dir/corpus.log)"
	renice -n 10 $BASHPID >/dev/null 2>&1
	local names
	names=$(sed -n 's/^fuzz_names = //p' "$top/tests/fuzz/fuzz.mk")
	# shellcheck disable=SC2086
	FUZZ_JOBS=$jobs FUZZ_OUT="$dir/fuzz-out" "$top/tests/fuzz/run.sh" "$dir/tests/fuzz" "$top/tests/fuzz" "$secs" $names \
		>"$dir/fuzz.log" 2>&1 || status=1
	grep -E "^(FAIL|    )" "$dir/fuzz.log"
	local p f
	p=$(grep -c "^PASS: " "$dir/fuzz.log")
	f=$(grep -c "^FAIL: " "$dir/fuzz.log")
	echo "fuzz: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
}

mkdir -p "$top/build"
start=$(date +%s)
# the test programs the two stages both compile, compiled once
rm -rf "$top/build/test-cache"
export GUS_TEST_CACHE="$top/build/test-cache"
# each stage says when it ended: which one CI waits for
result() { echo "$1: done after $(($(date +%s) - start)) s"; echo "RESULT $passed $failed $status"; }
# every test runs in the sanitized build; the plain build (make
# check-plain, Makefile.am) runs the unit tests and the command line's
# surface. The sanitized stage is the longest: the other two yield the
# cores to it and fill in where its tests wait (the fuzz targets run two
# at once)
( ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_suite sanitizers check --enable-werror --enable-sanitizers "${pmu_args[@]}"; result sanitizers ) &
( renice -n 10 $BASHPID >/dev/null 2>&1; run_suite werror check-plain --enable-werror "${pmu_args[@]}"; result werror ) &
( fuzz_suite "${pmu_args[@]}"; result fuzz ) &
wait
for stage in werror sanitizers fuzz; do
	out="$top/build/$stage.out"
	res=$(grep "^RESULT " "$out" 2>/dev/null | tail -1)
	grep -v "^RESULT " "$out" 2>/dev/null
	if [ -z "$res" ]; then
		echo "test-all: $stage: no result (see $out)"
		status=1
		failed=$((failed + 1))
		continue
	fi
	set -- $res
	passed=$((passed + $2))
	failed=$((failed + $3))
	[ "$4" -eq 0 ] || status=1
done
echo "test-all: $(( $(date +%s) - start )) s for the three stages"
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
