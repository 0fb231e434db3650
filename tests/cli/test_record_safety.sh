#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus record never destroys what the user has: what -o may replace (an
# earlier recording, kept as .old; never a directory, a device or a file
# of the user's), a failing run, two writers of one path, a full disk,
# recordings cut by SIGKILL or SIGINT in each run and what gus report says
# of them, a damaged trace chunk, and where text outputs may go.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
W="$WORKLOADS/divide"
# traced under QEMU: the bundled workloads, which are built without
# sanitizers (WORKLOAD is not, in the sanitized build)
AW="$WORKLOADS/arraywalk"
SPIN="$WORKLOAD"

# Where a check is about the files, not what was recorded, the run is
# divide at a small scale (WS: both runs, QEMU's too, in a fraction of the
# time); recordings that are reported keep only their hottest function
# (--hot 1): the dynamic loader's functions that a sample or two hit would
# each be simulated, for checks that never read them.
WS=100000

# meta VALUE of KEY in recording FILE
meta() { $SQL "$1" "select value from meta where key='$2'" 2>/dev/null; }
partials() { ls "$1".partial-?????? 2>/dev/null; }

cd "$TMP" || exit 1

# ------------------------------------------------------------ -o targets --
mkdir victim
echo "mine" > victim/keep
out=$("$GUS" record -q -o victim -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "-o DIR: refused"
check_contains "$out" "victim is a directory" "-o DIR: the message names it and says why"
test -f victim/keep && test "$(cat victim/keep)" = mine && test ! -e victim.old; ok $? "-o DIR: the directory and its files are where they were, no .old"
test -z "$(ls victim.partial-* 2>/dev/null)"; ok $? "-o DIR: nothing left beside it"
out=$("$GUS" record -q --force -o victim -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "-o DIR --force: refused all the same"
test -f victim/keep; ok $? "-o DIR --force: untouched"
ln -s victim dirlink
out=$("$GUS" record -q -o dirlink -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "-o LINK-TO-DIR: refused"
test -L dirlink && test -f victim/keep; ok $? "-o LINK-TO-DIR: link and directory untouched"

echo "my notes" > notes.txt
out=$("$GUS" record -q -o notes.txt -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "-o FILE that is not a recording: refused"
check_contains "$out" "notes.txt exists and is not a gus recording" "-o FILE: the message says what it is"
check_contains "$out" "--force" "-o FILE: and how to replace it"
test "$(cat notes.txt)" = "my notes" && test ! -e notes.txt.old; ok $? "-o FILE: the file is untouched, no .old"
out=$("$GUS" record -q -o /dev/null -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "-o /dev/null: refused"
test -c /dev/null; ok $? "-o /dev/null: still a character device"
"$GUS" record -q --force -o notes.txt -- "$W" "$WS" >/dev/null 2>&1; st=$?
check_status $st 0 "-o FILE --force: replaced"
test "$(meta notes.txt record.complete)" = yes; ok $? "-o FILE --force: it is a recording now"

# an earlier recording becomes .old, only when the new one is finished
"$GUS" record -q --hot 1 -o r.data -- "$W" 1 >/dev/null 2>&1
"$GUS" record -q --hot 1 -o r.data -- "$W" 2 >/dev/null 2>&1; st=$?
check_status $st 0 "a second recording over a recording"
test "$(meta r.data.old command)" = "$W 1" && test "$(meta r.data command)" = "$W 2"; ok $? "the first is kept as r.data.old"
"$GUS" record -q --hot 1 -o r.data -- "$W" 3 >/dev/null 2>&1
test "$(meta r.data.old command)" = "$W 2" && test "$(meta r.data command)" = "$W 3"; ok $? "a third: .old (a recording) is replaced by the second"
for side in -journal -wal -shm; do test ! -e "r.data$side" || echo "r.data$side"; done > sides
test ! -s sides; ok $? "a finished recording is one file: no -journal, -wal or -shm"
test "$($SQL r.data 'PRAGMA journal_mode')" = delete; ok $? "and not in WAL mode"
mkdir copy && cp r.data copy/only.data
"$GUS" report -q -i copy/only.data -o copy/report.txt 2>/dev/null; st=$?
check_status $st 0 "a copy of the file alone reports"

# a run that fails leaves the earlier recording as it was
sum=$(cksum < r.data)
out=$("$GUS" record -q -o r.data -- ./no-such-program 2>&1); st=$?
check_status $st 127 "a missing program: 127"
test "$(cksum < r.data)" = "$sum" && test "$(meta r.data.old command)" = "$W 2"; ok $? "a failed run: r.data and r.data.old untouched"
test -z "$(partials r.data)"; ok $? "a failed run: no partial file left"
out=$("$GUS" record -q -e cycles -o r.data -- "$W" 2>&1 >/dev/null); st=$?
if [ $st -eq 3 ]; then
	test "$(cksum < r.data)" = "$sum" && test -z "$(partials r.data)"; ok $? "-e cycles without a PMU (status 3): r.data untouched, nothing left"
else
	ok 0 "# SKIP -e cycles: this machine has a PMU (status $st)"
fi

# NAME.old that is not a recording is never replaced
"$GUS" record -q -o s.data -- "$W" "$WS" >/dev/null 2>&1
echo "precious" > s.data.old
out=$("$GUS" record -q -o s.data -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "NAME.old that is not a recording: refused before the run"
check_contains "$out" "s.data.old exists and is not a gus recording" "the message names NAME.old"
test "$(cat s.data.old)" = precious && test "$(meta s.data record.complete)" = yes; ok $? "both untouched"
mkdir t.data.old
"$GUS" record -q -o t.data -- "$W" "$WS" >/dev/null 2>&1
out=$("$GUS" record -q --force -o t.data -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "NAME.old a directory: refused even with --force"
test -d t.data.old && test "$(meta t.data record.complete)" = yes; ok $? "both untouched"

# --------------------------------------------------------- text outputs --
"$GUS" report -q -i r.data -o victim >/dev/null 2>err; st=$?
check_status $st 1 "report -o DIR: refused"
check_contains "$(cat err)" "is a directory" "report -o DIR: said so"
test -f victim/keep; ok $? "report -o DIR: untouched"
"$GUS" report -q -i r.data -o r.data.old >/dev/null 2>err; st=$?
check_status $st 1 "report -o RECORDING: refused"
test "$(meta r.data.old record.complete)" = yes; ok $? "report -o RECORDING: the recording is intact"
"$GUS" report -q -i r.data -o notes2.txt 2>/dev/null && echo x >> notes2.txt && "$GUS" report -q -i r.data -o notes2.txt 2>/dev/null; st=$?
check_status $st 0 "report -o FILE over a regular file: written"
! grep -qx x notes2.txt && grep -q "Hot regions" notes2.txt; ok $? "report -o FILE: replaced whole, as a redirection would"
"$GUS" report -q -i r.data -o /dev/null 2>/dev/null; st=$?
check_status $st 0 "report -o /dev/null"
test -c /dev/null; ok $? "/dev/null is still a device"
mkfifo fifo
cat fifo > fifo.out &
"$GUS" report -q -i r.data -o fifo 2>/dev/null; st=$?
wait
check_status $st 0 "report -o FIFO"
test -p fifo && grep -q "Hot regions" fifo.out; ok $? "report -o FIFO: written through, still a FIFO"
out=$("$GUS" stat -e task-clock -o victim -- "$W" 2>err); st=$?
check_status $st 1 "stat -o DIR: refused"
test -z "$out"; ok $? "stat -o DIR: refused before the program runs (its output: '$out')"
ln -s nowhere/none dangling
"$GUS" stat -e task-clock -o dangling -- "$W" >/dev/null 2>err; st=$?
check_status $st 1 "stat -o LINK-TO-NOTHING: refused"
check_contains "$(cat err)" "symbolic link to nothing" "said so"

# ------------------------------------------------------ two writers ------
# the first is writing (its partial file locked): the second is refused
# before it runs, the first is unharmed
"$GUS" record -q --tracer none -o same.data -- "$SPIN" spin 1.5 >/dev/null 2>&1 &
first=$!
i=0
while [ -z "$(partials same.data)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
out=$("$GUS" record -q -o same.data -- "$W" 2>&1 >/dev/null); st=$?
check_status $st 1 "a second gus record to the same path: refused"
check_contains "$out" "another gus record" "the message says why"
wait $first; st=$?
check_status $st 0 "the first finishes"
test "$(meta same.data command)" = "$SPIN spin 1.5" && test ! -e same.data.old; ok $? "its recording is in place, nothing lost or moved"
# started at the same moment: never both lost, never one silently in .old
"$GUS" record -q -o race.data -- "$W" 1 >race1 2>&1 & a=$!
"$GUS" record -q -o race.data -- "$W" 2 >race2 2>&1 & b=$!
wait $a; sa=$?
wait $b; sb=$?
if [ $sa -eq 0 ] && [ $sb -eq 0 ]; then
	# one after the other: the later one is race.data, the earlier .old
	test -n "$(meta race.data command)" && test -n "$(meta race.data.old command)" &&
		test "$(meta race.data command)" != "$(meta race.data.old command)"; ok $? "two at once, both succeeded: one is .old, both kept"
else
	test $((sa + sb)) -eq 1 && test "$(meta race.data record.complete)" = yes; ok $? "two at once: one refused (status $sa/$sb), the other's recording in place"
fi

# ------------------------------------------------------------ SIGKILL ----
# killed during the first run: a partial file that reports truthfully
"$GUS" record -q -o k1.data -- "$SPIN" spin 30 >/dev/null 2>&1 &
g=$!
# killed once samples were committed: the first 2048 (half a second of
# the spin at 4000 Hz; on a loaded machine more), polled for
i=0
while [ $i -lt 110 ]; do
	p=$(partials k1.data)
	[ -n "$p" ] && [ "$($SQL "$p" "select count(*) from samples" 2>/dev/null || echo 0)" -gt 0 ] 2>/dev/null && break
	sleep 0.2; i=$((i + 1))
done
# the program gus started goes on after a SIGKILL of gus (as under perf
# record): killed here, not left spinning for its 30 s
prog=$(pgrep -P $g)
kill -KILL $g; wait $g 2>/dev/null
[ -n "$prog" ] && kill -KILL $prog 2>/dev/null
p=$(partials k1.data)
test -n "$p" && test ! -e k1.data; ok $? "SIGKILL in run 1: the recording is in its partial file ($p), nothing at the path"
rep=$("$GUS" report -q -i "$p" 2>&1); st=$?
check_status $st 0 "SIGKILL in run 1: the partial recording reports"
nsamples=$($SQL "$p" "select count(*) from samples")
check_contains "$rep" "samples: $nsamples" "SIGKILL in run 1: the samples stored are counted ($nsamples)"
test "$nsamples" -gt 0; ok $? "SIGKILL in run 1: samples were stored ($nsamples)"
check_contains "$rep" "during the first run" "SIGKILL in run 1: which run was cut"
check_contains "$rep" "before it chose the hot regions" "SIGKILL in run 1: why there are no regions"
check_contains "$rep" "stopped before the trace run" "SIGKILL in run 1: why there is no trace"
check_lacks "$rep" "Intel PT only" "SIGKILL in run 1: not called a PT-only recording"
check_lacks "$rep" "second run under" "SIGKILL in run 1: no second run claimed"
rep=$("$GUS" report -q -i k1.data 2>&1); st=$?
check_status $st 1 "gus report of the path itself: an error"
check_contains "$rep" "$p" "... pointing at the partial file"
"$GUS" record -q -o k1.data -- "$W" "$WS" >/dev/null 2>&1; st=$?
check_status $st 0 "a dead recorder's partial file does not block the next recording"
test -e "$p"; ok $? "... and is left for the user"

# killed during the trace run, once it has stored a chunk (a slow,
# sanitized gus takes a while to get there). arraywalk hot 1000000: a
# third of a second natively in run 1, half a minute and more under QEMU,
# which stores its first chunk in the first second. Windows of 500
# records (--window 500) instead of 5000: the report simulates a quarter
# of the records, and the checks read only that there is a stream
wait_for_trace() {	# wait_for_trace NAME: the partial file of NAME, once it has a trace chunk
	i=0
	while [ $i -lt 1200 ]; do
		p=$(partials "$1")
		[ -n "$p" ] && [ "$(meta "$p" record.stage)" = tracing ] &&
			[ "$($SQL "$p" 'select count(*) from trace_chunks' 2>/dev/null)" -gt 0 ] 2>/dev/null && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "# $1: no trace chunk after 120 s" >&2
	return 1
}
"$GUS" record -q --hot 1 -F 1000 --max-insns 100000000 --window 500 -o k2.data -- "$AW" aw hot 1000000 >/dev/null 2>&1 &
g=$!
wait_for_trace k2.data
qemu=$(pgrep -P $g)
kill -KILL $g; wait $g 2>/dev/null
# the traced run does not outlive gus (it would run on for half a minute)
running() { ps -o stat= -p "$1" 2>/dev/null | grep -qv '^Z'; }	# a zombie has ended
i=0
while [ -n "$qemu" ] && running "$qemu" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
test -n "$qemu" && ! running "$qemu"; ok $? "SIGKILL in the trace run: the run under QEMU ($qemu) ends with gus"
rep=$("$GUS" report -q -i "$p" --json -o k2.json 2>&1); st=$?
check_status $st 0 "SIGKILL in the trace run: the partial recording reports"
records=$($SQL "$p" "select total(records) from trace_chunks" | cut -d. -f1)
test "$records" -gt 0; ok $? "SIGKILL in the trace run: records were stored ($records)"
jr=$($SQL :memory: "select json_extract(readfile('k2.json'), '\$.trace_records')")
test "$jr" = "$records"; ok $? "SIGKILL in the trace run: the report counts what is stored ($jr)"
check_contains "$($SQL :memory: "select json_extract(readfile('k2.json'), '\$.incomplete')")" "during the trace run" "SIGKILL in the trace run: which run was cut"
sim=$($SQL :memory: "select json_extract(readfile('k2.json'), '\$.regions[0].simulated.cycles')")
test -n "$sim"; ok $? "SIGKILL in the trace run: the hottest region is simulated from what was stored"
check_lacks "$(cat k2.json)" "has no mapping" "SIGKILL in the trace run: no false 'no mapping'"

# SIGINT during the trace run: a finished recording that says so
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' "$GUS" record -q --hot 1 -F 1000 --max-insns 100000000 --window 500 -o int2.data -- "$AW" aw hot 1000000 >/dev/null 2>&1 &
g=$!
wait_for_trace int2.data
kill -INT $g; wait $g; st=$?
test -f int2.data && test -z "$(partials int2.data)"; ok $? "SIGINT in the trace run: the recording is in place (status $st)"
rep=$("$GUS" report -q -i int2.data 2>&1)
check_contains "$rep" "trace run was interrupted" "SIGINT in the trace run: the report says so"

# a hand-edited region row is left out, said so, never printed as a huge count
# (the rows are the first run's: no trace run needed)
"$GUS" record -q --no-trace --hot 1 -o edit.data -- "$W" >/dev/null 2>&1
$SQL edit.data "update regions set samples = -5 where rank = 1"
rep=$("$GUS" report -q -i edit.data 2>&1); st=$?
check_status $st 0 "a damaged region row: the report exits 0"
check_contains "$rep" "is damaged" "a damaged region row: said so"
check_lacks "$rep" "18446744073709551611" "a damaged region row: no wrapped count"
check_lacks "$rep" "inf%" "a damaged region row: no infinite share"

# --------------------------------------------------- a damaged chunk -----
# (divide at a quarter of its default scale, in windows of 500 records:
# a trace of a few chunks, and the region's stream read from the intact
# ones is a quarter of what the default windows give)
"$GUS" record -q --hot 1 --window 500 -o dmg.data -- "$W" 4000000 >/dev/null 2>&1
$SQL dmg.data "update trace_chunks set data = zeroblob(100) where id = (select min(id) from trace_chunks)"
rep=$("$GUS" report -q -i dmg.data --json -o dmg.json 2>&1); st=$?
check_status $st 0 "a damaged trace chunk: the report exits 0"
check_contains "$rep" "damaged chunk" "a damaged trace chunk: said so"
check_contains "$($SQL :memory: "select json_extract(readfile('dmg.json'), '\$.regions[0].simulated.stream')")" "1 damaged trace chunk(s), read up to the damage" "a damaged trace chunk: the region is simulated from what is intact, and says so"

# ---------------------------------------------------------- full disk ----
# a small tmpfs, filled so that the first run's samples, or else the trace,
# do not fit (root only; skipped where mounting is not allowed)
mkdir small
if mount -t tmpfs -o size=4m tmpfs small 2>/dev/null; then
	# run 1: samples at 20 kHz for a second of CPU do not fit in 160 KiB
	dd if=/dev/zero of=small/filler bs=4096 count=$((4 * 256 - 40)) 2>/dev/null
	out=$("$GUS" record -q -F 20000 -o small/g.data -- "$SPIN" spin 1 2>&1 >/dev/null); st=$?
	check_status $st 1 "full disk in run 1: an error"
	check_contains "$out" "No space left on device" "full disk in run 1: said as such"
	check_contains "$out" "no recording was kept" "full disk in run 1: and what became of the recording"
	check_lacks "$out" "second run" "full disk in run 1: no second run"
	test -z "$(ls small | grep -v filler)"; ok $? "full disk in run 1: nothing left (no partial, journal or recording)"
	# the trace: 500 000 records (about 560 KiB) do not fit in 400 KiB
	rm small/filler
	dd if=/dev/zero of=small/filler bs=4096 count=$((4 * 256 - 100)) 2>/dev/null
	out=$("$GUS" record -q --hot 1 -F 1000 -o small/g.data -- "$W" 2>&1 >/dev/null); st=$?
	check_status $st 1 "full disk in the trace run: an error"
	check_contains "$out" "No space left on device" "full disk in the trace run: said as such"
	check_contains "$out" "writing the trace" "full disk in the trace run: which data"
	test -f small/g.data && test -z "$(ls small | grep -v -e filler -e '^g.data$')"; ok $? "full disk in the trace run: the first run's recording is kept, no side files"
	stored=$($SQL small/g.data "select total(records) from trace_chunks" | cut -d. -f1)
	test "$(meta small/g.data trace.records)" = "$stored"; ok $? "full disk in the trace run: trace.records is what is stored ($stored)"
	# (both are said of the whole recording: one region is enough to report)
	rep=$("$GUS" report -q -i small/g.data --region 1 2>&1)
	check_contains "$rep" "missing trace: writing the trace" "full disk in the trace run: the report says what is missing"
	check_contains "$rep" "$stored records" "full disk in the trace run: and how much is there"
	umount small
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do ok 0 "# SKIP full disk: cannot mount a tmpfs here"; done
fi

# a kill between keeping the earlier recording as .old and landing the new
# one leaves a whole recording at the name: strace kills gus record at its
# second rename (the one of the new recording over the name; the first
# gives the earlier one its .old name)
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	"$GUS" record -q --hot 1 --tracer none -o "$TMP/kill.data" -- "$W" >/dev/null 2>&1
	before=$(sha256sum "$TMP/kill.data" | cut -d' ' -f1)
	strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:error=EIO:signal=SIGKILL:when=2 \
		"$GUS" record -q --hot 1 --tracer none -o "$TMP/kill.data" -- "$W" >/dev/null 2>&1; st=$?
	check_status $st 137 "gus record killed as it lands the new recording"
	test -f "$TMP/kill.data" && test "$(sha256sum "$TMP/kill.data" | cut -d' ' -f1)" = "$before"
	ok $? "killed between the renames: the earlier recording is still at the name"
	test "$(sha256sum "$TMP/kill.data.old" | cut -d' ' -f1)" = "$before"; ok $? "and .old holds the earlier recording too"
	out=$("$GUS" report -q -i "$TMP/kill.data" 2>&1); st=$?
	check_status $st 0 "killed between the renames: the recording at the name is reported"
	"$GUS" record -q --hot 1 --tracer none -o "$TMP/kill.data" -- "$W" >/dev/null 2>&1; st=$?
	check_status $st 0 "the next gus record to that name lands"
	test "$(sha256sum "$TMP/kill.data.old" | cut -d' ' -f1)" != "$(sha256sum "$TMP/kill.data" | cut -d' ' -f1)"
	ok $? "the new recording at the name, the earlier one at .old"
else
	for i in 1 2 3 4 5 6; do ok 0 "# SKIP a kill between the renames: strace cannot trace here"; done
fi

done_testing
