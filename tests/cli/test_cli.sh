#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus's command line: help, version, usage errors and their exit status.
. "$TESTDIR/cli/lib.sh"

out=$("$GUS" --help 2>&1); st=$?
check_status $st 0 "gus --help exits 0"
check_contains "$out" "usage: gus <command>" "--help shows the usage"
check_contains "$out" "stat" "--help lists the stat command"

out=$("$GUS" --version); st=$?
check_status $st 0 "gus --version exits 0"
check_contains "$out" "gus 0." "--version prints the version"

out=$("$GUS" frobnicate 2>&1); st=$?
check_status $st 2 "an unknown command exits 2"
check_contains "$out" "unknown command 'frobnicate'" "and names it"
check_contains "$out" "commands:" "and lists the commands"

out=$("$GUS" --frobnicate 2>&1); st=$?
check_status $st 2 "an unknown global option exits 2"
check_contains "$out" "unknown option '--frobnicate'" "and names it"

out=$("$GUS" stat --frobnicate -- true 2>&1); st=$?
check_status $st 2 "an unknown stat option exits 2"
check_contains "$out" "--frobnicate" "and names it"
check_contains "$out" "commands:" "with the list of commands"

out=$("$GUS" stat 2>&1); st=$?
check_status $st 2 "gus stat without a program exits 2"
check_contains "$out" "no program given" "and says so"

out=$("$GUS" stat -l 4 -- true 2>&1); st=$?
check_status $st 2 "--level 4 is a usage error"

out=$("$GUS" stat --smt maybe --import x 2>&1); st=$?
check_status $st 2 "--smt maybe is a usage error"

out=$("$GUS" stat --help); st=$?
check_status $st 0 "gus stat --help exits 0"
check_contains "$out" "--no-multiplex" "and documents --no-multiplex"

out=$("$GUS" help nosuch 2>&1); st=$?
check_status $st 2 "gus help on an unknown command exits 2"

if command -v man >/dev/null 2>&1; then
	out=$(MANPAGER=cat MANWIDTH=80 "$GUS" help stat 2>&1); st=$?
	check_status $st 0 "gus help stat shows the man page"
	check_contains "$out" "gus-stat" "the page is gus-stat(1)"
	out=$(MANPAGER=cat MANWIDTH=80 man -l "$TESTDIR/../man/gus.1" 2>&1)
	check_contains "$out" "EXIT STATUS" "gus(1) documents the exit statuses"
fi
done_testing
