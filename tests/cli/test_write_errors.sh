#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write errors are errors: every command to a full standard output or file
# (/dev/full) exits 1 and says which; gus report --svg DIR on a full disk
# takes back what it wrote. Empty and out-of-range arguments are usage
# errors before anything runs; a missing input file is an error (1).
. "$TESTDIR/cli/lib.sh"
F="$TESTDIR/fixtures/spire"
HEX=4801d849ffcf75f8	# add rax, rbx; dec r15; jnz: a three-instruction loop

# full_stdout DESCRIPTION ARGS...: gus ARGS >/dev/full exits 1 and says so
full_stdout() {
	d=$1; shift
	"$GUS" "$@" >/dev/full 2>"$TMP/e"; st=$?
	check_status $st 1 "$d, standard output full: exit 1"
	check_contains "$(cat "$TMP/e")" "gus: standard output: No space left on device" "$d, standard output full: said"
}
# full_file DESCRIPTION ARGS...: ARGS name /dev/full as a file to write
full_file() {
	d=$1; shift
	"$GUS" "$@" >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 1 "$d to /dev/full: exit 1"
	check_contains "$(cat "$TMP/e")" "gus: /dev/full: No space left on device" "$d to /dev/full: said"
}
# usage DESCRIPTION NEEDLE ARGS...: exit 2 with NEEDLE in the message
usage() {
	d=$1; needle=$2; shift 2
	"$GUS" "$@" >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 2 "$d: exit 2"
	check_contains "$(cat "$TMP/e")" "$needle" "$d: message"
}

# ------------------------------------------------------ standard output ---
out=$("$GUS" --version); st=$?
check_status $st 0 "--version to a pipe: exit 0"
check_contains "$out" "gus " "--version to a pipe: the version"
full_stdout "--version" --version
full_stdout "--help" --help
full_stdout "list" list
full_stdout "list tma" list tma --arch skx
full_stdout "list events" list events --arch skx
full_stdout "list machine" list machine --arch skx
full_stdout "record --help" record --help
full_stdout "sim --help" sim --help
full_stdout "script --help" script --help
full_stdout "sim" sim --arch skx --hex $HEX
full_stdout "sim --json" sim --arch skx --hex $HEX --json
full_stdout "stat --print-events" stat --print-events --arch skx
full_stdout "stat --import" stat --import "$TESTDIR/fixtures/perf-topdown-icx.csv" --arch icx
"$GUS" spire train -q -o "$TMP/m.spire" --cpu skx "$F/train-skx.csv" >/dev/null 2>&1
check_status $? 0 "spire train to a file: exit 0"
full_stdout "spire train" spire train -o "$TMP/m2.spire" --cpu skx "$F/train-skx.csv"
full_stdout "spire show" spire show -m "$TMP/m.spire"
full_stdout "spire analyze" spire analyze -m "$TMP/m.spire" "$F/workload-mem.csv"
full_stdout "spire metrics" spire metrics --cpu skx
# standard output closed: written to nothing is an error too
"$GUS" --version >&- 2>"$TMP/e"; st=$?
check_status $st 1 "--version, standard output closed: exit 1"
check_contains "$(cat "$TMP/e")" "gus: standard output: Bad file descriptor" "--version, standard output closed: said"

# ---------------------------------------------------------------- files ---
full_file "sim -o" sim --arch skx --hex $HEX -o /dev/full
full_file "sim --svg" sim --arch skx --hex $HEX -o "$TMP/sim.txt" --svg /dev/full
full_file "stat --import -o" stat --import "$TESTDIR/fixtures/perf-topdown-icx.csv" --arch icx -o /dev/full
full_file "spire train -o" spire train -q -o /dev/full --cpu skx "$F/train-skx.csv"
full_file "spire analyze -o" spire analyze -q -m "$TMP/m.spire" -o /dev/full "$F/workload-mem.csv"
full_file "spire analyze --svg" spire analyze -q -m "$TMP/m.spire" -o "$TMP/an.txt" --svg /dev/full "$F/workload-mem.csv"

# a recording for report and script (the QEMU tracer where there is no PT)
D="$TMP/divide.data"
"$GUS" record -q --hot 2 -o "$D" -- "$WORKLOADS/divide" </dev/null >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "record divide: exit 0"
"$GUS" report -q --arch skx -i "$D" --svg "$TMP/svgok" -o "$TMP/report.txt" 2>"$TMP/e"; st=$?
check_status $st 0 "report --svg to a directory with room: exit 0"
[ -s "$TMP/svgok/region-1.svg" ] && [ -s "$TMP/svgok/region-2.svg" ]
ok $? "report --svg wrote region-1.svg and region-2.svg"
full_stdout "report" report -q --arch skx -i "$D"
full_file "report -o" report -q --arch skx -i "$D" -o /dev/full
full_stdout "script" script -i "$D" --max-insns 5000
full_file "script -o" script -i "$D" --max-insns 5000 -o /dev/full

# --svg DIR on a full disk: a small tmpfs (mounting needs root; skipped
# without). Room for region-1.svg only: it lands, region-2.svg fails, and
# both the file and the directory gus created go; a directory that was
# there stays with what else is in it.
MNT="$TMP/mnt"
mkdir "$MNT"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT
if mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
	page=$(getconf PAGESIZE)
	pages=$(( 65536 / page ))
	need=$(( ($(stat -c %s "$TMP/svgok/region-1.svg") + page - 1) / page ))
	mkdir "$MNT/mine"
	echo "the user's" > "$MNT/mine/user.txt"
	head -c $(( (pages - need - 1) * page )) /dev/zero > "$MNT/filler"
	"$GUS" report -q --arch skx -i "$D" --svg "$MNT/new" -o "$TMP/r1.txt" 2>"$TMP/e"; st=$?
	check_status $st 1 "--svg DIR on a full disk: exit 1"
	check_contains "$(cat "$TMP/e")" "$MNT/new/region-2.svg: No space left on device" "--svg on a full disk: the file named"
	check_contains "$(cat "$TMP/e")" "$MNT/new removed" "--svg on a full disk: the removal said"
	[ ! -e "$MNT/new" ]; ok $? "--svg on a full disk: the directory gus created is gone"
	[ -f "$MNT/filler" ] && [ "$(cat "$MNT/mine/user.txt")" = "the user's" ]
	ok $? "--svg on a full disk: nothing else removed"
	rm "$MNT/mine/user.txt"
	echo "the user's" > "$MNT/mine/user.txt"
	"$GUS" report -q --arch skx -i "$D" --svg "$MNT/mine" -o "$TMP/r2.txt" 2>"$TMP/e"; st=$?
	check_status $st 1 "--svg into an existing directory on a full disk: exit 1"
	check_contains "$(cat "$TMP/e")" "the 1 SVG file written to $MNT/mine before the failure removed" \
		"--svg into an existing directory: the file it landed removed, said"
	[ -d "$MNT/mine" ] && [ "$(cat "$MNT/mine/user.txt")" = "the user's" ] && [ ! -e "$MNT/mine/region-1.svg" ]
	ok $? "--svg into an existing directory: the directory and the user's file stay, region-1.svg goes"
	[ -z "$(ls "$MNT/mine" | grep -v '^user.txt$')" ]; ok $? "--svg into an existing directory: no temporary file left"
	umount "$MNT"
else
	ok 0 "--svg on a full disk # SKIP cannot mount a tmpfs here (not root)"
fi

# --------------------------------------------------- empty arguments ---
# refused before the program runs: it would create this file
"$GUS" record -o '' -- touch "$TMP/ran" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "record -o '': exit 2"
check_contains "$(cat "$TMP/e")" "record: -o: the argument is empty" "record -o '': the option named"
[ ! -e "$TMP/ran" ]; ok $? "record -o '': the program did not run"
"$GUS" record --output= -- touch "$TMP/ran" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "record --output=: exit 2"
check_contains "$(cat "$TMP/e")" "--output: the argument is empty" "record --output=: the option named"
"$GUS" record --import-counts '' -- touch "$TMP/ran" >/dev/null 2>&1
check_status $? 2 "record --import-counts '': exit 2"
"$GUS" stat -o '' -- touch "$TMP/ran" >/dev/null 2>&1
check_status $? 2 "stat -o '': exit 2"
[ ! -e "$TMP/ran" ]; ok $? "record and stat with an empty argument: the program did not run"
usage "sim --machine ''" "sim: --machine: the argument is empty" sim --machine '' --hex $HEX
usage "sim --svg ''" "sim: --svg: the argument is empty" sim --hex $HEX --svg ''
usage "report -i ''" "report: -i: the argument is empty" report -i ''
usage "report --svg ''" "report: --svg: the argument is empty" report -i "$D" --svg ''
usage "script -o ''" "script: -o: the argument is empty" script -i "$D" -o ''
usage "stat --import ''" "stat: --import: the argument is empty" stat --import ''
usage "spire show -m ''" "spire: -m: the argument is empty" spire show -m ''
usage "list --arch ''" "list: --arch: the argument is empty" list tma --arch ''

# ------------------------------------------------------------- numbers ---
usage "sim --address past 64 bits" "--address: '1ffffffffffffffffff' is out of range" \
	sim --hex $HEX --address 1ffffffffffffffffff
usage "sim --address -1" "--address: '-1' is out of range" sim --hex $HEX --address -1
usage "sim --address with trailing text" "--address: '10z' is not an address in hex" sim --hex $HEX --address 10z
"$GUS" sim --arch skx --hex $HEX --address 0x7ffffffffffffff0 >/dev/null 2>&1
check_status $? 0 "sim --address 0x7ffffffffffffff0: exit 0"
usage "sim --range past 64 bits" "--range: '1-1ffffffffffffffffff' is out of range" \
	sim --bin "$WORKLOADS/divide" --range 1-1ffffffffffffffffff
usage "sim --range -1-5" "--range: '-1-5' is out of range" sim --bin "$WORKLOADS/divide" --range -1-5
usage "sim --threshold nan" "--threshold: 'nan' is not a number" sim --hex $HEX --threshold nan
usage "sim --iterations -1" "--iterations: '-1' is out of range" sim --hex $HEX --iterations -1
usage "sim --threads 2^64" "--threads: '18446744073709551616' is out of range" sim --hex $HEX --threads 18446744073709551616
usage "script --max-insns -1" "--max-insns: '-1' is out of range" script -i "$D" --max-insns -1
usage "report -j ' 4'" "-j: ' 4' is not a number" report -i "$D" -j ' 4'
usage "stat -I 2^64+10" "-I (an interval in milliseconds): '18446744073709551626' is out of range" stat -I 18446744073709551626 -e task-clock -- true
usage "spire --top -1" "--top: '-1' is out of range" spire analyze -m "$TMP/m.spire" --top -1 "$F/workload-mem.csv"
# 17179869188G is 2^64 + 4G bytes: it wrapped to 4G, a size taken
"$GUS" record --pt-aux-size 17179869188G -- touch "$TMP/ran" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "record --pt-aux-size 17179869188G: exit 2"
check_contains "$(cat "$TMP/e")" "--pt-aux-size: '17179869188G' is out of range" "record --pt-aux-size past 64 bits: said"
usage "record --hot +5" "--hot: '+5' is not a number" record --hot +5 -- touch "$TMP/ran"
[ ! -e "$TMP/ran" ]; ok $? "record with a bad number: the program did not run"

# -------------------------------------------------------- missing files ---
missing() {	# missing DESCRIPTION ARGS...: exit 1 naming the file
	d=$1; shift
	"$GUS" "$@" >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 1 "$d: exit 1"
	check_contains "$(cat "$TMP/e")" "$TMP/nosuch" "$d: the file named"
}
missing "sim --machine, missing" sim --machine "$TMP/nosuch" --hex $HEX
missing "sim --bin, missing" sim --bin "$TMP/nosuch" --function f
missing "stat --import, missing" stat --import "$TMP/nosuch"
missing "report -i, missing" report -i "$TMP/nosuch"
missing "spire show -m, missing" spire show -m "$TMP/nosuch"
# unreadable: a directory in the way of the path
: > "$TMP/plain"
"$GUS" sim --machine "$TMP/plain/x.mm" --hex $HEX >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "sim --machine under a regular file: exit 1"
check_contains "$(cat "$TMP/e")" "--machine: cannot read $TMP/plain/x.mm: Not a directory" "sim --machine under a regular file: said"
done_testing
