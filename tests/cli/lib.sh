# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for the command-line tests. GUS, WORKLOAD, GUS_DATADIR and
# TESTDIR come from the test environment (Makefile.am).
n=0
failed=0
ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
contains() { case "$1" in *"$2"*) return 0 ;; *) return 1 ;; esac; }
check_contains() {	# check_contains TEXT NEEDLE DESCRIPTION
	if contains "$1" "$2"; then ok 0 "$3"; else ok 1 "$3"; printf '#   wanted: %s\n#   in: %s\n' "$2" "$(printf '%s' "$1" | head -c 600 | tr '\n' '|')"; fi
}
check_lacks() {	# check_lacks TEXT NEEDLE DESCRIPTION
	if contains "$1" "$2"; then ok 1 "$3"; printf '#   unwanted: %s\n#   in: %s\n' "$2" "$(printf '%s' "$1" | head -c 600 | tr '\n' '|')"; else ok 0 "$3"; fi
}
check_status() {	# check_status GOT WANT DESCRIPTION
	if [ "$1" -eq "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   exit status $1, want $2"; fi
}
# gus sim options for a check that reads only the simulation itself (cycles,
# instructions, the loop chosen), not its sensitivities: one weight of one
# resource instead of the whole sweep (a quarter of the time)
NOSWEEP="--weights 1 --resources FRONTEND --no-search"
# cached_compile OUT CC ARGS...: runs the compiler command CC ARGS (which
# writes OUT), or, where $GUS_TEST_CACHE names a directory (scripts/
# test-all.sh shares one between its stages, which compile the same test
# programs), copies OUT from there when the same command ran on the same
# sources (every argument that is a file) with the same compiler before.
cached_compile() {
	_out=$1
	shift
	if [ -z "${GUS_TEST_CACHE:-}" ] || ! mkdir -p "$GUS_TEST_CACHE" 2>/dev/null; then
		"$@"
		return
	fi
	# the compiler's version once per test and compiler (clang's
	# --version takes a tenth of a second: 60 compiles, 7 s)
	_ccvar=_ccver_$(printf '%s' "$1" | tr -c 'A-Za-z0-9' _)
	eval "_ccver=\${$_ccvar:-}"
	if [ -z "$_ccver" ]; then
		_ccver=$("$1" --version 2>/dev/null | head -1)
		eval "$_ccvar=\$_ccver"
	fi
	# the key without this test's scratch directory, which differs per run
	_key=$({ printf '%s\n' "$@" | sed "s|$TMP|\$TMP|g"; printf '%s\n' "$_ccver"
		for _a in "$@"; do [ -f "$_a" ] && [ "$_a" != "$_out" ] && cat "$_a"; done; } | sha256sum | cut -c1-32)
	if [ -f "$GUS_TEST_CACHE/$_key" ]; then
		cp "$GUS_TEST_CACHE/$_key" "$_out"
		return
	fi
	"$@" || return
	# a stage running beside may write the same entry: each lands whole
	cp "$_out" "$GUS_TEST_CACHE/.$_key.$$" && mv -f "$GUS_TEST_CACHE/.$_key.$$" "$GUS_TEST_CACHE/$_key"
}
# the plan, and how long the test took (scripts/test-all.sh lists the slowest)
_lib_started=$(date +%s)
done_testing() { echo "1..$n"; echo "# elapsed: $(($(date +%s) - _lib_started)) s"; [ "$failed" -eq 0 ]; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
