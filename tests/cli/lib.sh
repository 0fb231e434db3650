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
done_testing() { echo "1..$n"; [ "$failed" -eq 0 ]; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
