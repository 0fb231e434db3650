#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus record without Intel PT runs the program twice: the QEMU run reads
# the same standard input as run 1 (a pipe through a copy of gus's, a file
# again from where run 1 started, a here-document, /dev/null after a
# terminal), its output goes into the recording (program_output) and never
# to the terminal (nothing is printed twice), --quiet discards it, the copy
# leaves nothing behind, a program that does not read its input or stops
# early does not hang gus, a huge input streams, and --no-trace runs once.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
# built without sanitizers: it runs under QEMU
R="$WORKLOADS/readsum"
WORK=60000000
MAXI=20000

meta() { $SQL "$1" "select value from meta where key='$2'" 2>/dev/null; }
records() { r=$(meta "$1" trace.records); echo "${r:-0}"; }
# what run 2 wrote on STREAM, as stored
stored() { $SQL "$1" "select cast(data as text) from program_output where run=2 and stream='$2'" 2>/dev/null; }
count() { printf '%s\n' "$1" | grep -c -- "$2"; }
copies_left() { ls "$TMPDIR" | grep -c '^gus-stdin-'; }

cd "$TMP" || exit 1
mkdir tmp
TMPDIR="$TMP/tmp"
export TMPDIR
seq 1 20000 > nums
want_first="read $(wc -c < nums | tr -d ' ') bytes$"

# --------------------------------------------------------- a pipe -------
cat nums | "$GUS" record --max-insns $MAXI -o pipe.data -- "$R" $WORK > out 2> err; st=$?
out=$(cat out); err=$(cat err)
check_status $st 0 "cat FILE | gus record: exit status 0"
test "$(records pipe.data)" -gt 0; ok $? "a pipe: run 2 traced the hot region (trace.records $(records pipe.data))"
check_contains "$(meta pipe.data trace.stdin)" "a copy of what run 1 read: $(wc -c < nums | tr -d ' ') bytes (the whole input)" "a pipe: run 2 read the copy of all of it"
test "$(count "$out" "^$want_first")" -eq 1; ok $? "a pipe: the result is on gus's stdout once"
test "$(count "$out" '^hash ')" -eq 1; ok $? "a pipe: and its last line once"
test "$(count "$err" 'readsum: input read')" -eq 1; ok $? "a pipe: the program's stderr line is on gus's stderr once"
test "$(count "$err" 'runs twice')" -eq 1; ok $? "a pipe: the terminal says once that the program runs twice"
check_contains "$err" "its output goes into the recording" "a pipe: and where run 2's output went"
check_lacks "$err" "run 2 (QEMU)" "a pipe: no progress of run 2 (a terminal's alone)"
s1=$(stored pipe.data stdout | head -1)
test "$s1" = "$(head -1 out)"; ok $? "a pipe: run 2's stdout is in the recording, as run 1 printed it"
printf '#   run 1: %s | run 2: %s\n' "$(head -1 out)" "$s1"
check_contains "$(stored pipe.data stderr)" "readsum: input read" "a pipe: run 2's stderr is in the recording"
check_contains "$(meta pipe.data trace.output)" "program_output" "a pipe: meta trace.output says where"
test "$(copies_left)" -eq 0; ok $? "a pipe: the temporary copy is gone"

# ------------------------------------------- a file, not from its start --
( dd of=/dev/null bs=100 count=1 2>/dev/null; "$GUS" record --max-insns $MAXI -o file.data -- "$R" $WORK ) < nums > out 2> err; st=$?
check_status $st 0 "gus record < FILE: exit status 0"
test "$(records file.data)" -gt 0; ok $? "a file: run 2 traced the hot region"
check_contains "$(meta file.data trace.stdin)" "the same file again, from offset 100" "a file: run 2 read it again from where run 1 started"
check_contains "$(head -1 out)" "read $(($(wc -c < nums) - 100)) bytes" "a file: run 1 read from offset 100"
test "$(stored file.data stdout | head -1)" = "$(head -1 out)"; ok $? "a file: run 2 read what run 1 read"
test "$(count "$(cat out)" '^read ')" -eq 1; ok $? "a file: nothing printed twice"

# ------------------------------------------------------ a here-document --
"$GUS" record --max-insns $MAXI -o here.data -- "$R" $WORK > out 2> err <<EOF
first line of the here-document
$(seq 1 300)
last line
EOF
st=$?
check_status $st 0 "a here-document: exit status 0"
test "$(records here.data)" -gt 0; ok $? "a here-document: run 2 traced the hot region"
test -n "$(head -1 out)" && test "$(stored here.data stdout | head -1)" = "$(head -1 out)"; ok $? "a here-document: run 2 read the same"
test "$(count "$(cat out)" '^read ')" -eq 1; ok $? "a here-document: nothing printed twice"

# ---------------------------------------------------------------- quiet --
cat nums | "$GUS" record -q --max-insns $MAXI -o quiet.data -- "$R" $WORK > out 2> err; st=$?
check_status $st 0 "--quiet: exit status 0"
test "$(records quiet.data)" -gt 0; ok $? "--quiet: run 2 traced all the same"
test "$($SQL quiet.data 'select count(*) from program_output')" = 0; ok $? "--quiet: run 2's output is not in the recording"
test "$(meta quiet.data trace.output)" = "discarded (--quiet)"; ok $? "--quiet: meta trace.output says it was discarded"
test "$(count "$(cat out)" '^read ')" -eq 1 && test "$(count "$(cat err)" 'readsum: input read')" -eq 1; ok $? "--quiet: run 1's output only, once"

# ---------------------------------------- a program that does not read --
yes | timeout 300 "$GUS" record --max-insns $MAXI -o noread.data -- "$R" --none $WORK > out 2> err; st=$?
check_status $st 0 "an endless pipe to a program that never reads: gus ends, exit status 0"
test "$(records noread.data)" -gt 0; ok $? "a program that never reads: run 2 traced the hot region"
check_contains "$(meta noread.data trace.stdin)" "a copy of what run 1 read" "a program that never reads: run 2 read the copy of what gus had read"
test "$(copies_left)" -eq 0; ok $? "a program that never reads: no copy left"

# ------------------------------------------ a program that stops early --
head -c 50000000 /dev/zero | timeout 300 "$GUS" record --max-insns $MAXI -o early.data -- "$R" --head 4096 $WORK > out 2> err; st=$?
check_status $st 0 "a program that reads 4096 bytes of 50 MB: exit status 0"
test "$(head -1 out)" = "read 4096 bytes" && test "$(stored early.data stdout | head -1)" = "read 4096 bytes"; ok $? "a program that stops early: run 2 read its 4096 bytes too"
test "$(records early.data)" -gt 0; ok $? "a program that stops early: run 2 traced the hot region"
check_contains "$(meta early.data trace.stdin)" "before the end" "a program that stops early: meta trace.stdin says the input was not read to its end"

# ----------------------------------------------- a huge input streams ---
rss() { tail -1 "$1" | tr -dc '0-9'; }
if [ -x /usr/bin/time ]; then
	head -c 2000000 /dev/zero | /usr/bin/time -o rss.small -f '%M' "$GUS" record -q --max-insns 1000 -o small.data -- "$R" --stream > out 2> err
	head -c 200000000 /dev/zero | /usr/bin/time -o rss.huge -f '%M' timeout 300 "$GUS" record -q --max-insns 1000 -o huge.data -- "$R" --stream > out 2> err; st=$?
	check_status $st 0 "200 MB on a pipe: exit status 0"
	check_contains "$(cat out)" "streamed 200000000 bytes" "200 MB: run 1 read all of it"
	check_contains "$(meta huge.data trace.stdin)" "200000000 bytes (the whole input)" "200 MB: run 2 read the whole copy"
	test "$(records huge.data)" -gt 0; ok $? "200 MB: run 2 traced the hot region"
	small=$(rss rss.small); huge=$(rss rss.huge)
	test -n "$small" && test -n "$huge" && test "$huge" -lt $((small + 65536)); ok $? "200 MB: gus's memory does not grow with the input (max RSS $small KiB for 2 MB, $huge KiB for 200 MB)"
	test "$(copies_left)" -eq 0; ok $? "200 MB: no copy left"
else
	ok 0 "# SKIP /usr/bin/time missing: the huge input is not measured"
fi

# ------------------------------------------------------------- terminal --
if command -v script >/dev/null 2>&1; then
	script -qec "'$GUS' record --max-insns $MAXI -o tty.data -- '$R' --none $WORK" /dev/null < /dev/null > tty.out 2>&1; st=$?
	check_status $st 0 "stdin a terminal: exit status 0"
	check_contains "$(meta tty.data trace.stdin)" "/dev/null (the standard input is a terminal)" "a terminal: run 2 read /dev/null"
	check_contains "$(cat tty.out)" "run 2 reads /dev/null (the standard input is a terminal)" "a terminal: the terminal says so"
	test "$(records tty.data)" -gt 0; ok $? "a terminal: run 2 traced the hot region"
	# run 2's progress, redrawn in place: how long, how many records of --max-insns
	printf '%s\n' "$(cat tty.out)" | grep -Eq "$(printf '\r\033')\\[K\\[ gus record: run 2 \\(QEMU\\) [0-9.]+ s \\(run 1 [0-9.]+ s\\): [0-9.]+( k| M)? of 20 k records stored"
	ok $? "a terminal: run 2's progress: how long beside run 1, the records stored of --max-insns"
	script -qec "'$GUS' record -q --max-insns $MAXI -o ttyq.data -- '$R' --none $WORK" /dev/null < /dev/null > ttyq.out 2>&1
	check_lacks "$(cat ttyq.out)" "[ gus record:" "a terminal with -q: no progress"
else
	ok 0 "# SKIP script(1) missing: no terminal to test"
fi

# ------------------------------------------------------------- --no-trace --
cat nums | "$GUS" record --no-trace -o once.data -- "$R" $WORK > out 2> err; st=$?
check_status $st 0 "--no-trace: exit status 0"
test "$(meta once.data tracer)" = none; ok $? "--no-trace: no tracer"
check_contains "$(meta once.data missing.trace)" "--no-trace" "--no-trace: meta missing.trace says why"
test "$(count "$(cat out)" '^read ')" -eq 1 && test "$(count "$(cat err)" 'readsum: input read')" -eq 1; ok $? "--no-trace: the program ran once"
check_lacks "$(cat err)" "runs twice" "--no-trace: no word of a second run"
"$GUS" record -q --tracer none -o none.data -- "$R" --none 1000 > /dev/null 2>&1; st=$?
check_status $st 0 "--tracer none still works"
test "$(meta none.data tracer)" = none; ok $? "--tracer none: no tracer"

done_testing
