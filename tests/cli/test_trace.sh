#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The instruction stream from the command line: gus sim --trace and gus
# script with the QEMU tracer, gus record where there is no Intel PT, and
# bad input. The traced programs are tests/workloads/arraywalk (built
# without sanitizers: it runs under qemu-x86_64).
. "$TESTDIR/cli/lib.sh"
AW="$WORKLOADS/arraywalk"

# a multiply-add chain: 4 cycles per step (imul 3 + add 1), latency-bound
out=$("$GUS" sim --trace --qemu --function lcg_chain --max-insns 20000 -- "$AW" "$TMP/aw" chain 100000 2>&1); st=$?
check_status $st 0 "gus sim --trace --qemu exits 0"
# (the whole function is traced and simulated, the loop's instructions'
# time being the loop's: the 20000 hold the function's first instructions
# too, and the partial iteration is left out)
printf '%s\n' "$out" | grep -Eq "^stream: QEMU trace of $AW, 19[0-9]{3} instructions \(--max-insns reached\) in the region, data addresses known"
ok $? "the stream line says where the records came from"
check_contains "$out" "innermost loop" "a function is reduced to its innermost loop"
check_contains "$out" "cycles per iteration               4.00" "4 cycles per step of the chain"
check_contains "$out" "Bottleneck: INST_LAT" "the chain is latency-bound"
check_contains "$out" "the stream stopped after 20000 instructions" "--max-insns is said"

out=$("$GUS" sim --trace --qemu --function lcg_chain --max-insns 20000 --json -- "$AW" "$TMP/aw" chain 100000 2>/dev/null); st=$?
check_status $st 0 "--trace --json exits 0"
check_contains "$out" '"stream": "QEMU trace of' "JSON names the stream"
printf '%s\n' "$out" | grep -Eq '"cycles_per_iteration": (4(\.00[0-9]*)?|3\.99[0-9]*),'; ok $? "JSON cycles per iteration (4)"
check_contains "$out" '"iterations_measured": ' "JSON iterations measured"

# the array walk: real data addresses reach the caches (all L1 hits after the first touches)
out=$("$GUS" sim --trace --qemu --function sum_array --whole --max-insns 40000 -- "$AW" "$TMP/aw" hot 20 2>&1); st=$?
check_status $st 0 "--whole traces the whole function"
check_contains "$out" "memory accesses served by    L1 " "loads are charged to cache levels from their addresses"
check_contains "$out" "data addresses known" "QEMU gives data addresses"
out=$("$GUS" sim --trace --qemu --no-mem --function sum_array --max-insns 40000 -- "$AW" "$TMP/aw" hot 20 2>&1); st=$?
check_status $st 0 "--no-mem exits 0"
check_contains "$out" "data addresses not used" "--no-mem drops the addresses"

# the program's own status
"$GUS" sim --trace --qemu --function sum_array -- "$AW" "$TMP/aw" exit 3 >"$TMP/o" 2>"$TMP/e"; st=$?
check_status $st 3 "the program's exit status becomes gus's"
check_contains "$(cat "$TMP/e")" "exited with status 3" "the failing status is reported"
"$GUS" sim --trace --qemu --function sum_array -- "$AW" "$TMP/aw" kill 15 >"$TMP/o" 2>"$TMP/e"; st=$?
check_status $st 143 "a program killed by SIGTERM: 128 + 15"
check_contains "$(cat "$TMP/e")" "killed by signal 15" "the signal is reported"

# gus script
out=$("$GUS" script --qemu --function sum_array --max-insns 12 -- "$AW" "$TMP/aw" 2>"$TMP/e"); st=$?
check_status $st 0 "gus script --qemu exits 0"
check_status "$(printf '%s\n' "$out" | wc -l)" 12 "--max-insns 12 prints 12 instructions"
check_contains "$out" "sum_array+0x0" "symbol+offset"
check_contains "$out" "test esi, esi" "disassembly"
check_contains "$out" "not taken" "branch outcome"
base=$(sed -n 's/^base=0x\([0-9a-f]*\) .*/\1/p' "$TMP/aw")
check_contains "$out" "add rax, [rdi]" "the loop's load"
check_contains "$out" "[0x$base R]" "the first load reads the array's base address"
if printf '%s\n' "$out" | grep -q ' $'; then ok 1 "no trailing blanks"; else ok 0 "no trailing blanks"; fi
out=$("$GUS" script --qemu --no-disasm --function sum_array --max-insns 3 -- "$AW" "$TMP/aw" 2>/dev/null)
check_contains "$out" "sum_array+0x0                    85 f6" "--no-disasm prints the bytes"
"$GUS" script --qemu --function sum_array -o "$TMP/script.txt" -- "$AW" "$TMP/aw" 2>/dev/null; st=$?
check_status $st 0 "script -o exits 0"
# fill, sum and bump each walk 1000 elements; sum_array's loop is 4 instructions
check_status "$(grep -c 'add rax, \[rdi\]' "$TMP/script.txt")" 1000 "sum_array's load executes exactly 1000 times"
check_status "$(grep -vc 'sum_array+' "$TMP/script.txt")" 0 "only sum_array's instructions are printed"

# bad input
"$GUS" sim --trace -- "$AW" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "--trace without a source is a usage error"
check_contains "$(cat "$TMP/e")" "exactly one of --qemu" "... naming the sources"
"$GUS" sim --trace --qemu >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "--qemu without a program"
"$GUS" sim --trace --qemu --hex 90 -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "--trace with --hex"
"$GUS" sim --trace --qemu --iterations 100 -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "--iterations with --trace"
"$GUS" sim --trace --pt "$TMP/none.data" -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "--pt with a program"
"$GUS" sim --trace --qemu --max-insns 5 -- "$AW" "$TMP/aw" >/dev/null 2>&1; st=$?
check_status $st 2 "--max-insns below 100"
"$GUS" sim --trace --qemu --function no_such_function -- "$AW" "$TMP/aw" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "an unknown function"
check_contains "$(cat "$TMP/e")" "no function 'no_such_function'" "... is named"
"$GUS" sim --trace --qemu -- "$TMP/no-such-program" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 127 "a missing program: 127"
printf '#!/bin/sh\necho hi\n' >"$TMP/script.sh"; chmod +x "$TMP/script.sh"
"$GUS" script --qemu -- "$TMP/script.sh" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a shell script is refused"
check_contains "$(cat "$TMP/e")" "not an x86-64 ELF" "... as not an x86-64 ELF executable"
GUS_QEMU="$TMP/no-qemu" "$GUS" script --qemu -- "$AW" "$TMP/aw" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 127 "a missing qemu-x86_64"
check_contains "$(cat "$TMP/e")" "qemu-user" "... names the package"
"$GUS" script -i "$TMP/missing.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a missing recording"
check_contains "$(cat "$TMP/e")" "$TMP/missing.data" "... is named"
echo "not a database at all, but long enough to fool nobody..............................." >"$TMP/text.data"
"$GUS" script -i "$TMP/text.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a text file as recording"
check_contains "$(cat "$TMP/e")" "not a gus.data recording" "... is refused"
"$GUS" script --qemu -i x -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "script: -i and --qemu together"

# Intel PT: a recording in the real format, its PT synthesized with libipt's
# encoder from branchy's QEMU trace (tests/unit/test_ipt). Both runs get the
# same environment: string functions take alignment-dependent paths.
BR="$WORKLOADS/branchy"
E="env -i PATH=$PATH GUS_QEMU_PLUGIN=$GUS_QEMU_PLUGIN GUS_DATADIR=$GUS_DATADIR"
$E "$UNITDIR/test_ipt" --write-recording "$TMP/branchy.data" >"$TMP/o" 2>&1; st=$?
check_status $st 0 "a PT recording of branchy is written"
"$GUS" script -i "$TMP/branchy.data" --no-disasm -o "$TMP/pt.txt" 2>"$TMP/e"; st=$?
check_status $st 0 "gus script -i decodes it"
# the program writes to a file in both runs: stdio takes another path for a terminal or /dev/null
$E "$GUS" script --qemu --no-mem --no-disasm -o "$TMP/qemu.txt" -- "$BR" >"$TMP/o2" 2>&1; st=$?
check_status $st 0 "gus script --qemu traces the same program"
if cmp -s "$TMP/pt.txt" "$TMP/qemu.txt"; then ok 0 "PT and QEMU streams are the same, line for line ($(wc -l <"$TMP/pt.txt") instructions)"
else ok 1 "PT and QEMU streams are the same"; diff "$TMP/pt.txt" "$TMP/qemu.txt" | head -5 | sed 's/^/#   /'; fi
out=$("$GUS" script -i "$TMP/branchy.data" --function dispatch --max-insns 6 2>&1); st=$?
check_status $st 0 "gus script -i --function"
check_contains "$out" "dispatch+0xb" "the switch's jump"
check_contains "$out" "jmp [rdi*8+" "... is an indirect jump through the table"
check_status "$(printf '%s\n' "$out" | grep -vc '^ *[0-9a-f]* dispatch+')" 0 "only dispatch's instructions"
out=$("$GUS" sim --trace --pt "$TMP/branchy.data" --function collatz 2>&1); st=$?
check_status $st 0 "gus sim --trace --pt exits 0"
check_contains "$out" "stream: Intel PT of $TMP/branchy.data" "the stream line names the recording"
check_contains "$out" "0 gap(s), no data addresses" "no gaps, no data addresses"
check_contains "$out" "cycles per iteration" "cycles per iteration of collatz's loop"
check_contains "$out" "Bad Speculation" "simulated Top-Down"
# damage: the second half of the trace lost
sqlite3 "$TMP/branchy.data" "update pt_chunks set flags = 16 where id = 4; delete from pt_chunks where id = 3" 2>"$TMP/e"; st=$?
check_status $st 0 "sqlite3 damages the recording"
out=$("$GUS" script -i "$TMP/branchy.data" --no-disasm 2>&1 >"$TMP/pt2.txt"); st=$?
check_status $st 0 "a recording with lost data still decodes"
check_contains "$out" "gap(s) in the trace" "the gap is reported"
check_contains "$(cat "$TMP/pt2.txt")" "-- gap: trace data was lost" "... and marked in the stream"
sqlite3 "$TMP/branchy.data" "delete from pt_chunks" 2>/dev/null
"$GUS" script -i "$TMP/branchy.data" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 1 "a recording without PT data"
check_contains "$(cat "$TMP/e")" "holds no Intel PT data" "... says so"

# gus record: this machine has no Intel PT
if [ -d /sys/bus/event_source/devices/intel_pt ]; then
	ok 0 "# SKIP this machine has Intel PT: make check-hw covers gus record"
else
	(cd "$TMP" && "$GUS" record --tracer pt -- "$AW" "$TMP/aw") >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 5 "gus record without Intel PT exits 5"
	check_contains "$(cat "$TMP/e")" "no Intel PT" "... says so"
	check_contains "$(cat "$TMP/e")" "--qemu" "... and names the QEMU tracer"
	if [ -e "$TMP/gus.data" ]; then ok 1 "no gus.data is left"; else ok 0 "no gus.data is left"; fi
fi
(cd "$TMP" && "$GUS" record -- ./no-such-program) >/dev/null 2>"$TMP/e"; st=$?
check_status $st 127 "gus record: a missing program"
"$GUS" record --pt-aux-size 3K -- "$AW" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "gus record: a bad buffer size"
check_contains "$(cat "$TMP/e")" "--pt-aux-size" "... names the option"
"$GUS" record --pt-mode sometimes -- "$AW" >/dev/null 2>&1; st=$?
check_status $st 2 "gus record: a bad mode"
"$GUS" record --pt-filter no_such_function -- "$AW" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "gus record: a filter naming an unknown function"
check_contains "$(cat "$TMP/e")" "no_such_function" "... names it"
"$GUS" record >/dev/null 2>&1; st=$?
check_status $st 2 "gus record without a program"

# an instruction across a page boundary is one record per execution (QEMU
# 7.2 tells the plugin of it twice), and the model decodes all of it
out=$("$GUS" script --qemu --no-mem --function cross_loop --no-disasm -- "$WORKLOADS/pagecross" 1000 2>"$TMP/e"); st=$?
check_status $st 0 "pagecross: traced"
counts=$(printf '%s\n' "$out" | grep -v '^  --' | awk '{print $1}' | sort | uniq -c | awk '$1 >= 1000 {print $1}' | sort -u | tr '\n' ' ')
[ "$counts" = "1000 " ]; ok $? "pagecross: each loop instruction 1000 times, the page-crossing movabs too ($counts)"
out=$("$GUS" sim --trace --qemu --function cross_loop -- "$WORKLOADS/pagecross" 20000 2>&1); st=$?
check_status $st 0 "pagecross: simulated"
check_lacks "$out" "cannot decode" "pagecross: no instruction the model cannot decode"
# (the function's stream: 20000 iterations of 5 instructions, and 4 others)
check_contains "$out" "100004 instructions" "pagecross: 5 instructions per iteration in the stream"

# ... and one in the middle of its loop's block whose bytes QEMU stops
# fetching short of the boundary (an 8-byte load from 5 bytes before the
# page end: QEMU 7.2 gives the plugin "44 8b 8c 86", the bytes before its
# disp32, in the block of the adds before it, then the whole load as a
# block's first): whole, once per execution, decodable
out=$("$GUS" script --qemu --no-mem --function cross_mid_loop --no-disasm -- "$WORKLOADS/pagecross" 1000 mid 2>"$TMP/e"); st=$?
check_status $st 0 "pagecross mid: traced"
counts=$(printf '%s\n' "$out" | grep -v '^  --' | awk '{print $1}' | sort | uniq -c | awk '$1 >= 1000 {print $1}' | sort -u | tr '\n' ' ')
whole=$(printf '%s\n' "$out" | grep -c 'ffb cross_mid_loop+0x1ffb  *44 8b 8c 86 00 00 00 00$')
[ "$counts" = "1000 " ] && [ "$whole" = 1000 ]
ok $? "pagecross mid: each loop instruction 1000 times, the page-crossing load whole ($counts; $whole whole)"
cut=$(printf '%s\n' "$out" | grep -c ' 44 8b 8c 86$')
[ "$cut" = 0 ]; ok $? "pagecross mid: no cut copy of the load ($cut)"
out=$("$GUS" sim --trace --qemu --function cross_mid_loop -- "$WORKLOADS/pagecross" 20000 mid 2>&1); st=$?
check_status $st 0 "pagecross mid: simulated"
check_lacks "$out" "undecodable bytes" "pagecross mid: no undecodable bytes in gus sim --trace"
# (20000 iterations of 6 instructions, 4 before the loop and 2 after it)
check_contains "$out" "120006 instructions" "pagecross mid: 6 instructions per iteration in the stream"
# gus report on a recording of it (the QEMU tracer's windows over the run)
"$GUS" record -q -o "$TMP/pagecross.data" -- "$WORKLOADS/pagecross" 10000000 mid </dev/null >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "pagecross mid: recorded"
out=$("$GUS" report -q -i "$TMP/pagecross.data" --region cross_mid_loop 2>&1); st=$?
check_status $st 0 "pagecross mid: reported"
check_contains "$out" ": cross_mid_loop (function" "pagecross mid: the loop's function is the hot region"
check_lacks "$out" "undecodable bytes" "pagecross mid: no undecodable bytes in gus report"

# a stream --max-insns cuts: the partial iteration (or call) is not counted
out=$("$GUS" sim --trace --qemu --function lcg_chain --max-insns 20000 -- "$AW" "$TMP/aw" chain 100000 2>&1)
check_contains "$out" "--max-insns cut the stream inside one iteration of lcg_chain, innermost loop" \
	"a cut loop: its partial iteration left out, said"
check_contains "$out" "cycles per iteration" "... and cycles per whole iteration"
out=$("$GUS" sim --trace --qemu --function lcg_chain --whole --max-insns 20000 -- "$AW" "$TMP/aw" chain 100000 2>&1)
check_contains "$out" "--max-insns cut the stream before one whole call of lcg_chain" \
	"a cut call, the only one: said"
check_lacks "$out" "cycles per iteration" "... and not divided by the call it did not finish"

# the native stepper (--ptrace): the same stream as QEMU's on code both run
outq=$("$GUS" sim --trace --qemu --function lcg_chain -- "$AW" "$TMP/aw" chain 1000 2>&1)
outp=$("$GUS" sim --trace --ptrace --function lcg_chain -- "$AW" "$TMP/aw" chain 1000 2>&1); st=$?
check_status $st 0 "--ptrace: exit 0"
# (the function's stream: 1000 iterations of 5 instructions and its 8 others)
check_contains "$outp" "stream: single-stepped natively with ptrace, $AW, 5008 instructions in the region in 1 window(s), data addresses known" \
	"--ptrace: the stream line says how it was traced"
lq=$(printf '%s\n' "$outq" | grep -E "^loop: |cycles per iteration")
lp=$(printf '%s\n' "$outp" | grep -E "^loop: |cycles per iteration")
[ -n "$lq" ] && [ "$lq" = "$lp" ]; ok $? "--ptrace: the same loop, count and cycles as QEMU's stream ($lp)"
"$GUS" sim --hex 4801d8 --ptrace >/dev/null 2>&1; check_status $? 2 "--ptrace without --trace: usage error"
# --ptrace-window: the records stepped at each entry (the call of 5008 cut)
outw=$("$GUS" sim --trace --ptrace --ptrace-window 500 --function lcg_chain -- "$AW" "$TMP/aw" chain 1000 2>&1)
check_contains "$outw" "500 instructions in the region in 1 window(s)" "--ptrace-window 500: one window of 500 records"
"$GUS" sim --trace --ptrace --ptrace-window 50 --function lcg_chain -- "$AW" "$TMP/aw" chain 10 >/dev/null 2>&1
check_status $? 2 "--ptrace-window 50: usage error"
"$GUS" sim --trace --recording "$TMP/none.data" --ptrace-window 1000 >/dev/null 2>&1
check_status $? 2 "--ptrace-window with --recording: usage error"
"$GUS" sim --hex 4801d8 --ptrace-window 1000 >/dev/null 2>&1; check_status $? 2 "--ptrace-window without --trace: usage error"
# code QEMU 7.2 cannot run (AVX-512): traced natively instead, said
if grep -qw avx512f /proc/cpuinfo; then
	out=$("$GUS" sim --trace --qemu --function sum16 --max-insns 50000 -- "$WORKLOADS/avx512" 2>&1); st=$?
	check_status $st 0 "AVX-512: exit 0"
	check_contains "$out" "QEMU cannot execute an instruction of $WORKLOADS/avx512 (illegal instruction): sum16 is traced natively instead" \
		"AVX-512: the fallback is said"
	check_contains "$out" "stream: single-stepped natively with ptrace (QEMU 7.2 cannot execute its instructions)" \
		"AVX-512: ... and in the stream line"
	printf '%s\n' "$out" | grep -Eq "^loop: 0x[0-9a-f]+-0x[0-9a-f]+ \(depth 1, 4 instructions, [0-9]+ executed\)"
	ok $? "AVX-512: its loop of 4 instructions, simulated"
	check_contains "$out" "window(s)" "AVX-512: several calls, several windows"
	# a --max-insns given holds for the fallback too (else it steps
	# 200000): the run above stops at its 50000 (a larger value took 12 s
	# under the sanitizers for the same check)
	n_stepped=$(printf '%s\n' "$out" | sed -n 's/^stream: single-stepped.*, \([0-9]*\) instructions (--max-insns reached) in the region.*/\1/p')
	[ -n "$n_stepped" ] && [ "$n_stepped" -gt 40000 ] && [ "$n_stepped" -le 50000 ]
	ok $? "AVX-512: the fallback steps the --max-insns given ($n_stepped records)"
else
	echo "# this CPU has no AVX-512F: the QEMU fallback is not exercised"
fi

done_testing
