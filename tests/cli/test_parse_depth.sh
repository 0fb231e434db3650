#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A TMA table from anywhere (GUS_TMA_PATH) whose formulas or node tree nest
# without end: refused with exit 1 and an error naming the file, never a
# crash or a hang (gus-stat(1), FILES: the limits). Machine
# models, SPIRE models and metric sets are read line by line, without
# recursion: nothing of theirs nests.
. "$TESTDIR/cli/lib.sh"

printf '1000,,E,1000,100.00,,\n' > "$TMP/counts.csv"

# table NAME in its own directory: the header, then the body from stdin
table() {
	mkdir -p "$TMP/$1"
	{
		printf 'table %s "nesting"\nevent E code=0x3c\n' "$1"
		cat
	} > "$TMP/$1/$1.tma"
}

# stat_with NAME: gus stat --import over table NAME; sets out and st
stat_with() {
	out=$(GUS_TMA_PATH="$TMP/$1" timeout 120 "$GUS" stat --import "$TMP/counts.csv" --arch "$1" 2>&1)
	st=$?
}

# refused NAME WHAT NEEDLE: exit 1 (not a signal, not the timeout) and
# an error that names the table's file and says NEEDLE
refused() {
	stat_with "$1"
	check_status $st 1 "$2: exit 1"
	check_contains "$out" "gus: $TMP/$1/$1.tma:" "$2: the error names the table's file"
	check_contains "$out" "$3" "$2: and says why"
}

# just under the limit: loads, and the node has its value
# nested BEFORE MIDDLE AFTER N: node N's formula: N times BEFORE, MIDDLE, N times AFTER
nested() {
	awk -v before="$1" -v middle="$2" -v after="$3" -v n="$4" 'BEGIN {
		printf "node N parent=- unit=slots threshold=0.5 = "
		for (i = 0; i < n; i++) printf "%s", before
		printf "%s", middle
		for (i = 0; i < n; i++) printf "%s", after
		printf "\n"
	}'
}

nested '(' 'E / E' ')' 255 | table under
stat_with under
check_status $st 0 "255 parentheses: the table loads"
check_contains "$out" "100.0 %" "and the node is computed"

nested '(' E ')' 30000 | table parens
refused parens "30000 parentheses" "parens.tma:3: node N: nested deeper than 256 levels"

nested - E '' 100000 | table minus
refused minus "100000 unary minus signs" "minus.tma:3: node N: nested deeper than 256 levels"

nested '' E ' + E' 100000 | table chain
refused chain "a sum of 100001 terms" "chain.tma:3: node N: nested deeper than 256 levels"

awk 'BEGIN {
	for (i = 0; i < 5000; i++) printf "metric M%d = M%d\n", i, i + 1
	print "metric M5000 = E"
	print "node N parent=- unit=slots threshold=0.5 = M0"
}' | table metrics
refused metrics "a chain of 5001 metrics" "node N: formula nested deeper than 1024 levels"

awk 'BEGIN {
	print "node N1 parent=- unit=slots threshold=0.5 = E / E"
	for (i = 2; i <= 20000; i++) printf "node N%d parent=N%d unit=slots threshold=0.5 = E / E\n", i, i - 1
}' | table levels
refused levels "a tree 20000 levels deep" "levels.tma:35: node N33: level 33, deeper than 32 levels"

# not deep but wide: each metric names the next twice (2^60 paths)
awk 'BEGIN {
	for (i = 0; i < 60; i++) printf "metric M%d = M%d + M%d\n", i, i + 1, i + 1
	print "metric M60 = E / E"
	print "node N parent=- unit=slots threshold=0.5 = M0 / 1152921504606846976"
}' | table diamond
stat_with diamond
check_status $st 0 "60 metrics each naming the next twice: loaded at once"
check_contains "$out" "100.0 %" "and the node is computed"

done_testing
