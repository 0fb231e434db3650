#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus report's text as a person reads it (issue 32): the quick start's
# report is short and says how to see more; one table of the hot regions
# with a one-line verdict and the object of each, and the time outside
# them ([kernel], [unknown], the other functions) so that the shares add
# up to the whole profile; details only above --percent-limit (or --all);
# a function and its only hot loop shown once; the sensitivity rows that
# have an effect; units per call and per iteration; link-time addresses in
# the disassembly; the samples at each instruction; what is the same for
# every region said once. JSON and CSV carry the same facts, and gus sim
# --trace --json stays parseable beside a program that prints.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
cd "$TMP" || exit 1
# json FILE PYTHON-EXPRESSION-OF-d
json_get() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# the region headings of a text report
headings() { printf '%s\n' "$1" | grep -c '^== Region '; }

# ------------------------------------------------------ the quick start --
# scripts/quickstart.sh: gus record, then gus report, of the divide workload
"$GUS" record -q -o qs.data -- "$WORKLOADS/divide" </dev/null >/dev/null 2>&1; st=$?
check_status $st 0 "quick start: recorded"
"$GUS" report -i qs.data >qs.txt 2>qs.err; st=$?
check_status $st 0 "quick start: reported"
out=$(cat qs.txt)
lines=$(wc -l <qs.txt)
test "$lines" -lt 80; ok $? "quick start: the report is under 80 lines ($lines)"
test "$(printf '%s\n' "$out" | grep -c '^== Hot regions ==')" -eq 1; ok $? "quick start: one table of the hot regions"
last=$(tail -1 qs.txt)
check_contains "$last" "gus report --all" "the closing line says how to see every region"
check_contains "$last" "--percent-limit N" "... regions above a share"
check_contains "$last" "--region RANK|NAME" "... and one region"
# divide_loop and its only hot loop: one section, one simulation
check_contains "$out" "== Region 1+2: divide_loop (function, divide, divide.c:" \
	"a function and its only hot loop: one section, with the function's object and line"
check_contains "$out" ") and its only hot loop 0x" "... that names the loop"
check_lacks "$out" "== Region 2:" "... and no section of the loop's own"
test "$(printf '%s\n' "$out" | grep -c '^Sensitivity: ')" -eq "$(headings "$out")"
ok $? "one sensitivity table per section, none twice"
# the table: object and verdict per row, the loop under its function
row1=$(printf '%s\n' "$out" | grep -E '^ +1 +[0-9.]+% ')
check_contains "$row1" " divide " "the table names each region's object (divide)"
check_contains "$row1" "DIV (+" "... and its verdict in a line"
printf '%s\n' "$out" | grep -Eq '^ +2 +[0-9.]+% +[0-9]+  divide +  loop 0x[0-9a-f]+-0x[0-9a-f]+ \(divide\.c:'
ok $? "the loop's row is under its function's, named by its range"
ld=$(printf '%s\n' "$out" | grep -E '^ +[0-9]+ +[0-9.]+% +[0-9]+  ld-linux' | head -1)
if [ -n "$ld" ]; then ok 0 "the dynamic loader's regions are in the table with their object ($ld)"
else ok 0 "# (no sample fell in the dynamic loader this time)"; fi
# said once, not per region
test "$(printf '%s\n' "$out" | grep -c 'no counters to compare it with')" -eq 1
ok $? "the verdicts are the model's alone: said once"
check_lacks "$out" "model only" "... and no region says it again"
test "$(printf '%s\n' "$out" | grep -c 'no call chains')" -eq 1; ok $? "no call chains: said once"
check_lacks "$out" "(cached simulation)" "no per-region cache line"
# the sensitivity: the rows with an effect, and a line for the others
sec=$(printf '%s\n' "$out" | sed -n '/^== Region 1+2:/,$p')
check_contains "$sec" "  DIV                  *" "the divider's row"
printf '%s\n' "$sec" | grep -Eq '^  \([0-9]+ other resources and sets: no effect\)$'; ok $? "the others counted in a line"
zero=$(printf '%s\n' "$sec" | grep -E '^  [A-Za-z0-9_+]+ +[* ] +0\.0% +0\.0% +0\.0% +0\.0% +0\.0%')
test -z "$zero"; ok $? "no row of zeros (${zero:-none})"
# units: the loop's cycles per iteration; the function's per call
check_contains "$sec" "cycles per iteration" "the loop's time is per iteration"
"$GUS" report -i qs.data --json -o qs.json 2>/dev/null
# hot_chain, called again and again: its time per call, its loop's per
# iteration (divide_loop is called once: its windows count instructions);
# calls of 20000 steps, so that the trace's windows hold their entries
# (with callers' default million, a window seldom does)
"$GUS" record -q --hot 1 -o cg.data -- "$WORKLOADS/callers" 200000000 20000 </dev/null >/dev/null 2>&1
"$GUS" report -i cg.data --json -o cg.json 2>/dev/null
got=$(json_get cg.json '[(x["rank"], x["unit"], x["simulated"]["unit"]) for x in d["regions"][:2]]')
check_contains "$got" "[(1, 'call', 'call'), (2, 'iteration', 'iteration')]" \
	"a function's unit is the call, a loop's the iteration ($got)"
out=$("$GUS" report -i cg.data 2>/dev/null)
check_contains "$out" "; the function as a whole: " "a function and its loop: the function's time in a line"
printf '%s\n' "$out" | grep -q '^Loop: .*the function as a whole: [0-9.]* cycles per call'; ok $? "... per call"
printf '%s\n' "$out" | grep -q '^Simulated on [a-z0-9]*: [0-9.]* cycles per iteration'; ok $? "... the loop's per iteration"
# the per-instruction table: link-time addresses, branch targets too; the
# samples at each instruction beside the model's columns
check_contains "$sec" "Per instruction: the samples at it (of the region's " "the per-instruction table has the samples"
tab=$(printf '%s\n' "$sec" | sed -n '/^Per instruction:/,/^Windows:/p' | grep -E '^  [0-9a-f]+ ')
check_lacks "$tab" "0x4000" "no QEMU guest address in the table"
target=$(printf '%s\n' "$tab" | grep -o 'jnz 0x[0-9a-fA-F]*' | head -1 | sed 's/jnz 0x//' | tr 'A-F' 'a-f')
printf '%s\n' "$tab" | grep -Eq "^  $target " ; ok $? "the loop's branch target (${target:-none}) is an address of the table"
sum=$(printf '%s\n' "$tab" | awk '$2 ~ /%$/ {sub("%", "", $2); s += $2} END {printf "%.1f", s}')
awk -v s="$sum" 'BEGIN { exit !(s > 50 && s <= 100.5) }'; ok $? "the samples at its instructions: most of the region's ($sum %)"
# JSON: the samples per instruction
got=$(json_get qs.json 'sum(x.get("samples", 0) for x in d["regions"][1]["simulated"]["per_instruction"]) > 0')
check_contains "$got" True "JSON: the samples of each instruction"

# --------------------------------------------------- which get details --
out=$("$GUS" report -i qs.data --all 2>/dev/null)
n_regions=$($SQL qs.data "select count(*) from regions")
folded=$(json_get qs.json 'sum(1 for x in d["regions"] if x["shown_with_function"])')
test "$(headings "$out")" -eq $((n_regions - folded)); ok $? "--all: a section per region ($n_regions regions, $folded shown with their function)"
check_lacks "$out" "have no details" "--all: nothing left out"
out0=$("$GUS" report -i qs.data --percent-limit 0 2>/dev/null)
test "$(headings "$out0")" -eq "$(headings "$out")"; ok $? "--percent-limit 0: the same sections as --all"
out=$("$GUS" report -i qs.data --percent-limit 50 2>/dev/null)
test "$(headings "$out")" -eq 1; ok $? "--percent-limit 50: only the region above it"
check_contains "$out" "under 50 % of the time have no details here" "--percent-limit 50: the others are said to be left out"
"$GUS" report -i qs.data --all --percent-limit 5 >/dev/null 2>err; st=$?
check_status $st 2 "--all with --percent-limit: a usage error"
"$GUS" report -i qs.data --percent-limit 101 >/dev/null 2>&1; check_status $? 2 "--percent-limit 101: a usage error"
"$GUS" report -i qs.data --percent-limit five >/dev/null 2>&1; check_status $? 2 "--percent-limit five: a usage error"
got=$(json_get qs.json '(d["gus_report"], d["percent_limit"], d["all"], all("object" in x and "details" in x and "function_rank" in x for x in d["regions"]))')
check_contains "$got" "(2, 5, False, True)" "JSON: schema 2: the limit, and each region's object, details and function"
check_contains "$("$GUS" report -i qs.data --csv 2>/dev/null)" "region,1,region,divide_loop,object,divide" "CSV: each region's object"

# ----------------------------------- the time outside the hot functions --
# a read() and write() loop: most of the time is in the kernel
head -c 200000000 /dev/zero >big
"$GUS" record -q --tracer none -o dd.data -- dd if=big of=/dev/null bs=4k </dev/null >/dev/null 2>&1; st=$?
check_status $st 0 "dd: recorded"
out=$("$GUS" report -i dd.data 2>/dev/null)
"$GUS" report -i dd.data --json -o dd.json 2>/dev/null
total=$(json_get dd.json 'round(sum(x["share"] for x in d["regions"] if x["kind"] == "function") + sum(x["share"] for x in d["outside"]), 4)')
awk -v t="$total" 'BEGIN { exit !(t > 0.999 && t < 1.001) }'; ok $? "the functions and the rows outside them add up to the whole profile ($total)"
if [ -n "$($SQL dd.data "select value from meta where key = 'missing.kernel_samples'")" ]; then
	check_contains "$out" "# kernel: not sampled: perf_event_paranoid" "dd: kernel samples refused: said in the heading"
else
	row=$(printf '%s\n' "$out" | grep -E '^ +- +[0-9.]+% +[0-9]+  \[kernel\]')
	share=$(printf '%s\n' "$row" | awk '{sub("%", "", $2); print $2}')
	awk -v s="$share" 'BEGIN { exit !(s > 30) }'; ok $? "dd: a [kernel] row with most of the time (${share:-none} %)"
	nk=$($SQL dd.data "select count(*) from samples where user = 0")
	check_contains "$row" " $nk  [kernel]" "dd: ... with the kernel's $nk samples"
	check_contains "$(json_get dd.json '[x["name"] for x in d["outside"]]')" "[kernel]" "dd: JSON: the [kernel] row"
	check_contains "$("$GUS" report -i dd.data --csv 2>/dev/null)" "outside,,outside,[kernel],samples,$nk" "dd: CSV: the [kernel] row"
	# the kernel's functions, named from /proc/kallsyms at record time
	if [ -n "$($SQL dd.data "select value from meta where key = 'missing.kernel_symbols'")" ]; then
		echo "# skip: kernel names: $($SQL dd.data "select value from meta where key = 'missing.kernel_symbols'")"
	else
		nks=$($SQL dd.data "select count(*) from kernel_symbols")
		[ "${nks:-0}" -gt 0 ]; ok $? "dd: the kernel functions its samples hit are kept ($nks)"
		top=$(printf '%s\n' "$row" | sed -n 's/.*not traced or simulated: \([A-Za-z0-9_.]*\) [0-9]* %.*/\1/p')
		known=$($SQL dd.data "select count(*) from kernel_symbols where name = '$top'")
		[ -n "$top" ] && [ "$known" = 1 ]; ok $? "dd: the [kernel] row names its top function ($top)"
		# with -g, the kernel's call chain under the system call, as
		# perf report shows it
		"$GUS" record -q -g --tracer none -o ddg.data -- dd if=big of=/dev/null bs=4k </dev/null >/dev/null 2>&1
		"$GUS" report -q -i ddg.data --folded ddg.folded >/dev/null 2>&1
		grep -Eq '^[^ ]*;entry_SYSCALL_64[A-Za-z_]*;do_syscall_64;[^ ]+ [0-9]+$' ddg.folded
		ok $? "dd -g: kernel frames named under the system call ($(sort -t' ' -k2 -nr ddg.folded | head -1))"
		# code outside every function of kallsyms (a BPF program, the
		# vsyscall page) stays [kernel], as perf shows it [unknown]: a
		# few samples at most
		unnamed=$(awk '/\[kernel\]/ { u += $NF } { t += $NF } END { printf "%d %d", u, t }' ddg.folded)
		awk -v u="${unnamed% *}" -v t="${unnamed#* }" 'BEGIN { exit !(t > 0 && u <= 0.02 * t) }'
		ok $? "dd -g: nearly every kernel frame named (unnamed in ${unnamed% *} of ${unnamed#* } samples; $($SQL ddg.data "select value from meta where key = 'kernel.symbols'"))"
		# the kernel's own time next to perf's, function by function
		if command -v perf >/dev/null 2>&1 &&
			perf record -q --no-bpf-event -e cpu-clock -F 4000 -o dd.perf -- dd if=big of=/dev/null bs=4k </dev/null >/dev/null 2>&1; then
			ptop=$(perf report -i dd.perf --stdio --no-children --sort sym 2>/dev/null |
				awk '$2 == "[k]" { print $3; exit }')
			gtop=$("$GUS" report -i ddg.data 2>/dev/null | grep -E '^ +- .*\[kernel\]' | sed 's/.*simulated: //')
			if [ -n "$ptop" ]; then
				check_contains "$gtop" "$ptop " "dd: perf report's top kernel function ($ptop) among gus's ($gtop)"
			else
				echo "# skip: next to perf: perf report shows no kernel function"
			fi
		else
			echo "# skip: next to perf: no perf, or perf record refused"
		fi
		# a recording's names are not trusted: overlapping, empty and
		# inverted ranges are dropped, a name's ';' and newline escaped
		cp ddg.data evil.data
		$SQL evil.data "update kernel_symbols set name = 'a;b' || char(10) || 'c' where name = 'do_syscall_64';
			insert into kernel_symbols (start, end, name) values (5, 1, 'inverted'), (0, 0, 'empty');
			insert into kernel_symbols (start, end, name) select start + 1, end + 1, 'overlap' from kernel_symbols limit 1"
		"$GUS" report -q -i evil.data --folded evil.folded >/dev/null 2>&1
		check_status $? 0 "a recording's odd kernel names: the report is written"
		[ "$(wc -l <evil.folded)" -eq "$(wc -l <ddg.folded)" ]; ok $? "... one line per stack still ($(wc -l <evil.folded))"
		grep -q 'a\\x3bb' evil.folded; ok $? "... the name's ';' escaped"
		check_lacks "$(cat evil.folded)" "overlap" "... the overlapping range dropped"
	fi
fi
# user code in no object the run mapped: an [unknown] row
cp dd.data unk.data
$SQL unk.data "update samples set ip = 4096, user = 1 where id in (select id from samples where user = 1 limit 25)"
out=$("$GUS" report -i unk.data 2>/dev/null)
printf '%s\n' "$out" | grep -Eq '^ +- +[0-9.]+% +25  \[unknown\] '; ok $? "samples at no mapped address: an [unknown] row of them (25)"

# ------------------------------------------- serialising instructions --
# cpuid's 100 cycles are microcode, not a dependency a faster core would
# shorten: INST_LAT unlimited does not remove them (it said 1280 %)
out=$("$GUS" sim --hex 0fa24801d8 2>&1)
up=$(printf '%s\n' "$out" | awk '$1 == "INST_LAT" {print $NF}' | tr -d '%*')
awk -v u="${up:-1000}" 'BEGIN { exit !(u < 10) }'; ok $? "cpuid: INST_LAT unlimited gains little (${up:-none} %)"

# ------------------------------------------------ gus sim --trace --json --
# divide prints a line on its standard output: the analysis alone on gus's
"$GUS" sim --trace --qemu --function divide_loop --max-insns 100000 --json -- "$WORKLOADS/divide" 100000 \
	>sim.json 2>sim.err; st=$?
check_status $st 0 "sim --trace --json: exits 0"
python3 -m json.tool sim.json >/dev/null 2>&1; ok $? "sim --trace --json: standard output is one JSON document"
check_contains "$(cat sim.err)" "divide: divisions=" "sim --trace --json: the program's output went to standard error"
got=$(json_get sim.json '[x["disassembly"] for x in d["per_instruction"] if x["disassembly"].startswith("jnz")]')
check_lacks "$got" "0x4000" "sim --trace: branch targets at link-time addresses ($got)"
"$GUS" sim --trace --qemu --function divide_loop --max-insns 100000 --csv -o sim.csv -- "$WORKLOADS/divide" 100000 \
	>prog.out 2>/dev/null
check_contains "$(cat prog.out)" "divide: divisions=" "sim --trace -o FILE: the program's output stays on standard output"
check_lacks "$(cat sim.csv)" "divide: divisions=" "... and out of the CSV"

done_testing
