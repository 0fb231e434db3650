#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Invariants every simulation must keep (tests/cli/invariants.py reads the
# JSON): IPC <= 2 x the machine's width (macro-fusion) and fused µops per
# cycle <= the width (frontend and retire of data/machines/NAME.mm),
# cycles >= fused µops / width, Top-Down shares that sum to 100 %,
# mispredictions <= the branches they are counted against, speedups >= 0
# and non-decreasing in the added capacity (the sweep's envelope) under
# the unlimited bound, and cycles per iteration x iterations = the
# measured cycles. Checked on the streams that once broke them
# (tests/workloads/coldcall: the 88-instruction cold-load function, a
# chain of jumps that only the BTB can miss), on every bundled workload
# (gus sim --trace, and gus record + gus report on two of them) and on
# regions of Debian programs recorded here: liblzma (xz), gzip's deflate,
# python3 and libz (its zlib module), libc (sort).
. "$TESTDIR/cli/lib.sh"

skip() {	# skip DESCRIPTION
	ok 0 "# SKIP $1"
}
# exits_0 STATUS DESCRIPTION: STATUS is 0, else gus's first messages
# ($TMP/e) are shown
exits_0() {
	check_status "$1" 0 "$2"
	[ "$1" -eq 0 ] || sed -n '1,8s/^/#   /p' "$TMP/e"
}
# the interpreter itself, not a wrapper that finds it on every call
# (pyenv's shim costs a third of a second a call)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -z "$PY" ] || ! [ -x "$PY" ]; then
	skip "python3 not found: the invariants are checked in Python"
	done_testing
	exit
fi
# a sweep of a few weights (the monotonic check needs more than one):
# twice the capacity and four times cost little more than 1.15
SWEEP="--weights 1,1.5,2,4"
OBJECTS="$TMP/objects"
: >"$OBJECTS"

# inv DESCRIPTION [invariants.py options] FILE: the invariants of one gus
# sim JSON or of every simulated region of one gus report JSON
inv() {
	_d=$1
	shift
	"$PY" "$TESTDIR/cli/invariants.py" "$@" >"$TMP/inv" 2>&1
	_st=$?
	ok $_st "$_d"
	cat "$TMP/inv"
}
# field FILE EXPR: a Python expression on the JSON d of FILE, printed
field() {
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# ------------------------------------------------------------------------
# cold_once: 88 instructions run once, its first load a miss (once IPC 66)
C="$WORKLOADS/coldcall"
for arch in spr skx; do
	J="$TMP/cold-$arch.json"
	"$GUS" sim --trace --qemu --function cold_once --arch $arch $SWEEP --json -o "$J" -- "$C" 1 \
		</dev/null >/dev/null 2>"$TMP/e"; st=$?
	exits_0 $st "cold_once ($arch): gus sim --trace exits 0"
	check_contains "$(field "$J" 'd["stream"]')" "88 instructions in the region" \
		"cold_once ($arch): the stream is the 88 instructions"
	check_contains "$(field "$J" 'd["passes"] > 1 and d["warm_pass"]')" "True" \
		"cold_once ($arch): measured over repeated passes after a warm pass"
	inv "cold_once ($arch): the invariants hold" --whole-focus "cold_once $SWEEP" "$J"
done
"$GUS" sim --trace --qemu --function cold_once --arch spr $SWEEP -o "$TMP/cold.txt" -- "$C" 1 \
	</dev/null >/dev/null 2>"$TMP/e"; st=$?
exits_0 $st "cold_once (spr): the text report exits 0"
check_contains "$(cat "$TMP/cold.txt")" "too few to measure once: measured over" "cold_once: the text says how it was measured"
inv "cold_once (spr): the text agrees with the invariants" --whole-focus --text "$TMP/cold.txt" "cold_once" "$TMP/cold-spr.json"

# btb_chain: 5000 direct jumps, no conditional branch (once "71720 of 0
# conditional" mispredictions)
for arch in spr skx; do
	J="$TMP/btb-$arch.json"
	"$GUS" sim --trace --qemu --function btb_chain --arch $arch $SWEEP --json -o "$J" -- "$C" 5 \
		</dev/null >/dev/null 2>"$TMP/e"; st=$?
	exits_0 $st "btb_chain ($arch): gus sim --trace exits 0"
	"$GUS" sim --trace --qemu --function btb_chain --arch $arch $NOSWEEP -o "$TMP/btb-$arch.txt" -- "$C" 5 \
		</dev/null >/dev/null 2>"$TMP/e"; st=$?
	exits_0 $st "btb_chain ($arch): the text report exits 0"
	out=$(cat "$TMP/btb-$arch.txt")
	check_contains "$out" "0 of 0 conditional" "btb_chain ($arch): no conditional branch, none mispredicted"
	check_contains "$out" "target(s) the BTB lacked" "btb_chain ($arch): the redirects are the BTB's"
	inv "btb_chain ($arch): the invariants hold, mispredictions within their branches" \
		--btb-chain --text "$TMP/btb-$arch.txt" "btb_chain $SWEEP" "$J"
done

# a loop at the issue width (six adds and a fused dec/jnz, 7 fused µops
# per iteration): never faster than 7 / width cycles per iteration
for arch in skx spr; do
	"$GUS" sim --hex 4801c34801c14801c24801c64801c74d01c049ffcf75eb --arch $arch $SWEEP --json \
		-o "$TMP/hex-$arch.json" >/dev/null 2>"$TMP/e"; st=$?
	exits_0 $st "a loop at the width ($arch): gus sim --hex exits 0"
	inv "a loop at the width ($arch): the invariants hold" "hex loop of adds $SWEEP" "$TMP/hex-$arch.json"
done

# ------------------------------------------------------------------------
# every bundled workload (workloads.mk), its hot function (README) traced
# for 100000 instructions at a small scale
bundled=$(sed -n '/^bundled_workloads *=/,/[^\\]$/p' "$TESTDIR/workloads/workloads.mk" |
	sed 's/^bundled_workloads *=//; s/\\$//' | tr ' \t' '\n\n' | sed -n 's,^tests/workloads/,,p')
[ -n "$bundled" ]; ok $? "the bundled workloads are listed in workloads.mk"
for prog in $bundled; do
	fn=$(sed -n "s/^$prog \[.*\] -- hot function \([A-Za-z0-9_]*\);.*/\1/p" "$TESTDIR/workloads/README")
	if [ -z "$fn" ]; then
		ok 1 "$prog: its hot function is named in tests/workloads/README"
		continue
	fi
	# a small scale: QEMU runs the whole program. A workload not listed
	# here runs at its default scale (seconds): list it
	case $prog in
	fpchain) args=200000 ;;
	shuffle) args=200000 ;;
	divide) args=100000 ;;
	ptrchase) args="100000 4" ;;
	branchmiss) args=1 ;;
	stream) args="1 4" ;;
	jacobi1d) args="20 1000" ;;
	*) args=""; echo "# $prog: no small scale known here, run at its default" ;;
	esac
	for arch in spr skx; do
		J="$TMP/$prog-$arch.json"
		# the sweep on spr; on skx the simulation itself
		if [ $arch = spr ]; then sw=$SWEEP; else sw=$NOSWEEP; fi
		"$GUS" sim --trace --qemu --function "$fn" --arch $arch $sw --max-insns 100000 --json -o "$J" \
			-- "$WORKLOADS/$prog" $args </dev/null >/dev/null 2>"$TMP/e"; st=$?
		exits_0 $st "$prog ($arch): gus sim --trace --function $fn exits 0"
		inv "$prog ($arch): the invariants hold" "$prog:$fn $sw" "$J"
	done
done

# gus record + gus report on two of them: every simulated region
# (the report's own sweep; windows of 1000 records keep it short)
for spec in "jacobi1d 6000" "branchmiss 4"; do
	set -- $spec
	prog=$1
	shift
	D="$TMP/$prog.data"
	"$GUS" record -q --hot 2 --window 1000 -o "$D" -- "$WORKLOADS/$prog" "$@" </dev/null >/dev/null 2>"$TMP/e"; st=$?
	exits_0 $st "$prog: gus record exits 0"
	"$GUS" report -q -i "$D" --json -o "$TMP/$prog-report.json" 2>"$TMP/e"; st=$?
	exits_0 $st "$prog: gus report --json exits 0"
	"$GUS" report -q -i "$D" -o "$TMP/$prog-report.txt" 2>"$TMP/e"; st=$?
	exits_0 $st "$prog: gus report (text, cached) exits 0"
	inv "$prog: the invariants hold in every region of the report" --min-regions 1 \
		--text "$TMP/$prog-report.txt" "$prog report" "$TMP/$prog-report.json"
done
# the same recording on the other machine (the recording's is skx)
"$GUS" report -q -i "$TMP/jacobi1d.data" --arch spr --json -o "$TMP/jacobi1d-spr.json" 2>"$TMP/e"; st=$?
exits_0 $st "jacobi1d: gus report --arch spr exits 0"
inv "jacobi1d: the invariants hold in every region of the report on spr" --min-regions 1 \
	"jacobi1d report" "$TMP/jacobi1d-spr.json"

# ------------------------------------------------------------------------
# real programs, recorded here: Debian's binaries and libraries
IN="$TMP/input.txt"
"$PY" -c '
import random, sys
random.seed(35)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
with open(sys.argv[1], "w") as f:
    for i in range(8000):
        f.write(" ".join(random.choice(words) for _ in range(6)) + " %d\n" % random.randrange(100000))
' "$IN"
# sort: lines with a long common prefix, split with memchr and compared
# with memcmp (libc)
"$PY" -c '
import random, sys
random.seed(35)
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write("x" * 300 + "%08d\n" % random.randrange(10 ** 8))
' "$TMP/sort.txt"
cat >"$TMP/loop.py" <<EOF
import zlib
s = 0
for i in range(200000):
    s += i * i % 7
d = open("$IN", "rb").read() * 2
print(s, len(zlib.compress(d, 6)))
EOF
# real NAME HOT DESCRIPTION -- PROGRAM ARGS...: record PROGRAM (its --hot
# HOT regions), check every simulated region of its report
real() {
	_name=$1 _hot=$2 _what=$3
	shift 4
	if ! [ -x "$1" ]; then
		skip "$_name: $1 not found ($_what)"
		return
	fi
	_D="$TMP/$_name.data"
	"$GUS" record -q --hot "$_hot" --window 1000 -o "$_D" -- "$@" </dev/null >/dev/null 2>"$TMP/e"; _st=$?
	exits_0 $_st "$_name: gus record exits 0"
	"$GUS" report -q -i "$_D" --json -o "$TMP/$_name.json" 2>"$TMP/e"; _st=$?
	exits_0 $_st "$_name: gus report --json exits 0"
	"$GUS" report -q -i "$_D" -o "$TMP/$_name.txt" 2>"$TMP/e"; _st=$?
	exits_0 $_st "$_name: gus report (text, cached) exits 0"
	inv "$_name: the invariants hold in every region ($_what)" --min-regions 1 --objects "$OBJECTS" \
		--text "$TMP/$_name.txt" "$_name" "$TMP/$_name.json"
}
real xz 2 "liblzma" -- /usr/bin/xz -1 -c "$IN"
real gzip 1 "gzip's deflate" -- /usr/bin/gzip -c "$IN"
real python3 3 "the interpreter and libz" -- /usr/bin/python3 "$TMP/loop.py"
LC_ALL=C
export LC_ALL
real sort 2 "libc's memchr and memcmp" -- /usr/bin/sort "$TMP/sort.txt"

# the regions of real programs checked: at least five, from libc,
# liblzma or libz, and python3 (each where its program is here)
total=$(wc -l <"$OBJECTS")
echo "# regions of real programs checked: $(sort "$OBJECTS" | uniq -c | tr '\n' ',' | tr -s ' ')"
[ "$total" -ge 5 ]; ok $? "at least five regions of real programs checked ($total)"
for spec in "libc.so /usr/bin/sort" "liblzma.so /usr/bin/xz" "python3 /usr/bin/python3"; do
	set -- $spec
	if ! [ -x "$2" ]; then
		skip "no $1 region: $2 not found"
		continue
	fi
	grep -q "^$1" "$OBJECTS"; ok $? "a region of $1 is among them"
done

done_testing
