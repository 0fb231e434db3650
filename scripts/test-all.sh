#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sets up and runs all of gus's tests from a fresh clone: Debian packages,
# libperf, a -Werror build with make check, then the same tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer. Ends with
# "N passed, N failed" over both runs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

scripts/install-deps.sh || exit 1
scripts/build-libperf.sh || exit 1
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi >/dev/null || { echo "test-all: autoreconf failed" >&2; exit 1; }
fi

passed=0
failed=0
status=0
run_suite() {	# run_suite NAME CONFIGURE-FLAGS...
	local name=$1
	shift
	local dir="$top/build/$name"
	mkdir -p "$dir"
	echo "== $name: configure $*"
	( cd "$dir" && "$top/configure" -q "$@" ) || { echo "test-all: $name: configure failed"; status=1; failed=$((failed + 1)); return; }
	echo "== $name: build"
	make -C "$dir" -j"$jobs" >"$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; echo "test-all: $name: build failed"; status=1; failed=$((failed + 1)); return; }
	echo "== $name: make check"
	make -C "$dir" -j"$jobs" check >"$dir/check.log" 2>&1 || status=1
	grep -E "^(FAIL|ERROR|XPASS)" "$dir/check.log" | sed "s/^/$name: /"
	local p f
	p=$(grep -E "^# (PASS|SKIP|XFAIL):" "$dir/check.log" | awk '{s += $3} END {print s + 0}')
	f=$(grep -E "^# (FAIL|ERROR|XPASS):" "$dir/check.log" | awk '{s += $3} END {print s + 0}')
	echo "$name: $p passed, $f failed"
	for log in $(grep -lE "^(FAIL|ERROR)" "$dir"/tests/*/*.log 2>/dev/null); do
		echo "---- $log"; grep -E "^(not ok|#)" "$log" | head -20
	done
	passed=$((passed + p))
	failed=$((failed + f))
}

run_suite werror --enable-werror
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	run_suite sanitizers --enable-werror --enable-sanitizers
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
