#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every object a program runs: names as perf finds them (C++ demangled,
# separate debug info, stripped code bounded by its .eh_frame FDEs), regions
# in shared libraries, build-ids checked, and the tracer following the
# libraries, forked children and exec'd programs of the program.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
CC=${CC_FOR_TESTS:-gcc}
CXX=${CXX_FOR_TESTS:-g++}
cd "$TMP" || exit 1
# the hot regions table's row of the region named NAME (its region column)
row_of() { printf '%s\n' "$1" | grep -E '^ +[0-9]+ +[0-9.]+% +[0-9]+  ' | grep -F -- "  $2"; }
check_row() {	# check_row REPORT NAME DESCRIPTION
	if [ -n "$(row_of "$1" "$2")" ]; then ok 0 "$3"; else ok 1 "$3"; fi
}

# --------------------------------------------------------------- C++ names --
cat > mul.cc <<'EOF'
#include <cstdio>
#include <cstdlib>
namespace ns {
template <typename T, int N> struct Mat { T a[N][N]; };
template <typename T, int N>
__attribute__((noinline)) void mul(Mat<T, N> &c, const Mat<T, N> &a, const Mat<T, N> &b)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			T s = 0;
			for (int k = 0; k < N; k++)
				s += a.a[i][k] * b.a[k][j];
			c.a[i][j] = s;
		}
}
}
static ns::Mat<double, 120> A, B, C;
int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 40;
	for (int i = 0; i < 120; i++)
		for (int j = 0; j < 120; j++) {
			A.a[i][j] = i + j;
			B.a[i][j] = i - j;
		}
	for (int r = 0; r < reps; r++)
		ns::mul<double, 120>(C, A, B);
	printf("%f\n", C.a[10][10]);
	return 0;
}
EOF
if $CXX -O2 -g -o mul mul.cc 2>/dev/null; then
	mangled=$(nm mul | awk '/ [TW] _ZN2ns3mul/ {print $3}')
	out1=$("$GUS" sim --bin mul --function 'ns::mul<double, 120>' 2>&1); st=$?
	check_status $st 0 "C++: --function takes the name as perf shows it"
	check_contains "$out1" "mul:ns::mul<double, 120>, innermost loop" "C++: the simulation is named demangled"
	out2=$("$GUS" sim --bin mul --function "$mangled" 2>&1); st=$?
	check_status $st 0 "C++: --function takes the mangled name"
	out3=$("$GUS" sim --bin mul --function 'void ns::mul<double, 120>(ns::Mat<double, 120>&, ns::Mat<double, 120> const&, ns::Mat<double, 120> const&)' 2>&1); st=$?
	check_status $st 0 "C++: --function takes the demangled name with its parameters"
	c1=$(printf '%s\n' "$out1" | grep 'cycles per iteration')
	c2=$(printf '%s\n' "$out2" | grep 'cycles per iteration')
	test -n "$c1" && test "$c1" = "$c2"; ok $? "C++: both names select the same code"
	"$GUS" record -q --tracer none -o mul.data -- ./mul 300 >/dev/null 2>&1
	# every region's name is in the hot regions table, which --region keeps
	# whole; ns::mul, region 1, is the one simulated (not main, nor the
	# 1-sample regions of ld.so)
	out=$("$GUS" report -i mul.data --region 1 2>&1)
	check_row "$out" "ns::mul<double, 120>" "C++: the report's regions are demangled"
	check_lacks "$out" "_ZN2ns" "C++: no mangled name in the report"
	out=$("$GUS" report -i mul.data --region "$mangled" 2>&1); st=$?
	check_status $st 0 "C++: --region takes the mangled name"
	check_contains "$out" "== Region 1: ns::mul<double, 120>" "C++: --region by the mangled name selects the region"
	out=$("$GUS" report -i mul.data --region 1 --json 2>&1)
	check_contains "$out" '"ns::mul<double, 120>' "C++: JSON names the region demangled"
else
	echo "# skip: no C++ compiler ($CXX)"
fi

# ---------------------------------------------------- stripped, CFI only --
cp "$WORKLOADS/divide" walk-stripped
strip walk-stripped
"$GUS" record -q --tracer none -o strip.data -- ./walk-stripped >/dev/null 2>&1; st=$?
check_status $st 0 "stripped: recorded"
# the names are those of the hot regions table, which --region keeps whole:
# only region 1 is simulated (not the 1-sample regions of ld.so)
out=$("$GUS" report -i strip.data --region 1 2>&1)
check_row "$out" "walk-stripped+0x" "stripped: a function bounded by its FDE, named OBJECT+0xADDR as perf does"
printf '%s\n' "$out" | grep -Eq '^ +[0-9]+ +[0-9.]+% +[0-9]+  walk-stripped +  loop 0x'; ok $? "stripped: the loops inside it"
check_lacks "$out" "[unknown] in walk-stripped" "stripped: the object is not one region"
fname=$($SQL strip.data "select name from regions where kind='function' and name like 'walk-stripped+%' order by rank limit 1")
out=$("$GUS" sim --bin walk-stripped --function "$fname" 2>&1); st=$?
check_status $st 0 "stripped: gus sim --function takes the OBJECT+0xADDR name"
check_contains "$out" "walk-stripped:$fname" "stripped: ... and simulates that function"
# through a symbolic link (liblzma.so.5 -> liblzma.so.5.4.1): perf and gus
# name the code by the mapped file, the link's target
ln -sf walk-stripped walk-link
out=$("$GUS" sim --bin walk-link --function "$fname" 2>&1); st=$?
check_status $st 0 "stripped, through a link: the target's OBJECT+0xADDR name is taken"

# the procedure linkage table's stubs are named as perf names them
plt=$(objdump -d walk-stripped | sed -n 's/^[0-9a-f]* <\(.*@plt\)>:$/\1/p' | head -1)
out=$("$GUS" sim --bin walk-stripped --function "$plt" --whole 2>&1); st=$?
check_status $st 0 "PLT: the stub $plt of a stripped program is a function of its own"
check_contains "$out" "walk-stripped:$plt" "PLT: ... named FUNCTION@plt as perf and objdump name it"

# no symbol and no unwind table: said, and never simulated as another region
cat > nocfi.c <<'EOF'
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) static long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }
int main(int argc, char **argv) { sink = spin(argc > 1 ? atol(argv[1]) : 200000000L); return 0; }
EOF
$CC -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -o nocfi nocfi.c && strip nocfi
"$GUS" record -q --tracer none -o nocfi.data -- ./nocfi >/dev/null 2>&1
out=$("$GUS" report -i nocfi.data --region 1 2>&1)
check_contains "$out" "[unknown] in nocfi" "no symbol, no FDE: named as unknown code of its object"

# ----------------------------------------------- the vDSO and JIT code --
cat > vd.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "jit")) {
		/* mov $0x10000000,%rcx; 1: dec %rcx; jnz 1b; ret */
		static const unsigned char code[] = { 0x48, 0xb9, 0, 0, 0, 0x10, 0, 0, 0, 0,
						      0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		memcpy(p, code, sizeof code);
		((void (*)(void))p)();
		return 0;
	}
	struct timespec ts;
	long s = 0;
	for (long i = 0; i < 5000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec & 1;
	}
	printf("%ld\n", s);
	return 0;
}
EOF
$CC -O2 -o vd vd.c
"$GUS" record -q --tracer none -o jit.data -- ./vd jit >/dev/null 2>&1
out=$("$GUS" report -i jit.data --region '[anonymous code]' 2>&1)
check_row "$out" "[anonymous code]" "JIT: anonymous executable memory is a region of its own"
check_contains "$out" "anonymous executable memory (JIT code) has no file to trace it by" "JIT: ... not simulated, and why"
test "$($SQL jit.data "select count(*) from regions where file='[anonymous code]' and start=0 and end=0")" -eq 1
ok $? "JIT: gus-data(5) names its file [anonymous code]"
# the vDSO, clock_gettime and main: not the 1-sample regions of ld.so
"$GUS" record -q --tracer none --hot 3 -o vdso.data -- ./vd >/dev/null 2>&1
out=$("$GUS" report -i vdso.data 2>&1)
# the vDSO is hot only where the clock can be read in user space
if [ -n "$(row_of "$out" "[vdso]")" ]; then
	check_contains "$out" "the vDSO (the kernel's code in the process) is not traced" "vDSO: named, not simulated, and why"
else
	echo "# skip: clock_gettime does not run in the vDSO here"
fi
check_row "$out" "clock_gettime@@GLIBC_2." "dynamic symbols: versioned names as perf shows them"
out=$("$GUS" sim --bin "$(ldd ./vd | awk '/libc.so.6/ {print $3}')" --function clock_gettime 2>&1); st=$?
check_status $st 0 "dynamic symbols: --function takes a versioned symbol by its bare name"

# ------------------------------------------------- separate debug info --
libc=$(ldd "$WORKLOADS/arraywalk" | awk '/libc.so.6/ {print $3}')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ {print $3}')
dbg="/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
if [ -n "$bid" ] && [ -r "$dbg" ]; then
	# libc.so.6 has no .symtab of its own: its local names come from libc6-dbg
	out=$("$GUS" sim --bin "$libc" --function __memcmp_sse2 2>&1); st=$?
	check_status $st 0 "debug file: a local function of libc found through its build-id"
	cat > strs.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	int n = 6000;
	char **v = malloc(n * sizeof *v);
	for (int i = 0; i < n; i++) {
		v[i] = malloc(64);
		snprintf(v[i], 64, "prefix-common-string-of-some-length-%08d", (i * 7919) % n);
	}
	long lt = 0;
	for (int r = 0; r < 6; r++)
		for (int i = 0; i < n; i++)
			for (int j = i; j < i + 300 && j < n; j++)
				lt += strcmp(v[i], v[j]) < 0;
	printf("%ld\n", lt);
	return 0;
}
EOF
	$CC -O2 -o strs strs.c
	"$GUS" record -q --tracer none -o strs.data -- ./strs >/dev/null 2>&1
	top=$($SQL strs.data "select name from regions where kind='function' order by rank limit 1")
	case "$top" in __strcmp_*|strcmp*) ok 0 "debug file: libc's string function named as perf names it ($top)" ;;
	*) ok 1 "debug file: libc's string function named as perf names it"; echo "#   top region: $top" ;; esac
	test "$($SQL strs.data "select count(*) from regions where build_id is not null and file like '%libc.so.6'")" -gt 0
	ok $? "debug file: the region's object is stored with its build-id"
else
	echo "# skip: no separate debug info for $libc (install libc6-dbg)"
fi

# separate debug info by .gnu_debuglink, beside the program
cp "$WORKLOADS/divide" dl-prog
objcopy --only-keep-debug dl-prog dl-prog.debug && objcopy --strip-all dl-prog && objcopy --add-gnu-debuglink=dl-prog.debug dl-prog
out=$("$GUS" sim --bin dl-prog --function divide_loop 2>&1); st=$?
check_status $st 0 "debuglink: a stripped program's function found in the file its .gnu_debuglink names"
"$GUS" record -q --tracer none -o dl.data -- ./dl-prog >/dev/null 2>&1
out=$("$GUS" report -i dl.data --region 1 2>&1)
check_row "$out" "divide_loop" "debuglink: the report names it from the debug file"
rm dl-prog.debug
out=$("$GUS" report -i dl.data --region 1 2>&1)
check_row "$out" "divide_loop" "debuglink: the names stay in the recording once it is made"

# ------------------------------------------------------ a rebuilt binary --
cat > rb.c <<'EOF'
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i % 13 * VERSION; return s; }
int main(void) { sink = work(150000000L); return 0; }
EOF
$CC -O1 -g -DVERSION=3 -o rb rb.c
"$GUS" record -q --tracer none -o rb.data -- ./rb >/dev/null 2>&1
# the hot regions table (with each region's source line) and region 1, work
out=$("$GUS" report -i rb.data --region 1 2>&1)
check_lacks "$out" "changed since the recording" "build-id: an unchanged program is not said to have changed"
check_contains "$out" "work (rb.c:" "build-id: the unchanged program's lines are used"
echo 'int extra(void) { return 1; }' >> rb.c && $CC -O1 -g -DVERSION=5 -o rb rb.c
out=$("$GUS" report -i rb.data --region 1 2>&1)
check_contains "$out" "rb: the file changed since the recording (build-id" "build-id: a rebuilt program is said to have changed"
check_lacks "$out" "work (rb.c:" "build-id: the rebuilt program's lines are not used"
rm -f rb
out=$("$GUS" report -i rb.data --region 1 2>&1)
check_contains "$out" "rb: the file is gone" "build-id: a deleted program is said to be gone"

# ------------------------------------------------ traced in every object --
# the text of region RANK of a report
# (a function and its only hot loop share a section: "== Region 1+2: ")
region_text() { printf '%s\n' "$1" | sed -n "/^== Region $2[:+]/,/^== Region /p"; }
# "Stream: QEMU trace" and the simulation's numbers in region RANK's section
check_simulated() {	# check_simulated REPORT RANK DESCRIPTION
	sec=$(region_text "$1" "$2")
	if contains "$sec" "Stream: QEMU trace" && contains "$sec" "Simulated on "; then ok 0 "$3"; else
		ok 1 "$3"; printf '#   region %s: %s\n' "$2" "$(printf '%s' "$sec" | head -c 600 | tr '\n' '|')"; fi
}

"$GUS" record -q -o lib.data -- "$WORKLOADS/uselib" >/dev/null 2>&1; st=$?
check_status $st 0 "user .so: recorded"
# the regions of the library (lib_collatz and its loops) simulated, and the
# whole hot regions table; not main's or ld.so's regions
out=$("$GUS" report -i lib.data --region lib_collatz 2>&1)
check_row "$out" "lib_collatz (libhot.c:" "user .so: its hot function is a region, with its source line"
check_simulated "$out" 1 "user .so: lib_collatz is traced and simulated"
check_lacks "$out" "the tracer follows the program's own code" "user .so: no region said to be out of the tracer's reach"
test "$($SQL lib.data "select count(*) from trace_maps where object like '%/libhot.so' and proc=0")" -ge 1
ok $? "user .so: the trace's map of libhot.so is stored"
out=$("$GUS" sim --trace --qemu --function lib_collatz --max-insns 100000 -- "$WORKLOADS/uselib" 2>&1); st=$?
check_status $st 0 "user .so: gus sim --trace --qemu --function finds a function of the program's library"
check_contains "$out" "libhot.so:lib_collatz" "user .so: ... and simulates it there"
out=$("$GUS" sim --trace --qemu --function no_such_function -- "$WORKLOADS/uselib" 2>&1); st=$?
check_status $st 2 "user .so: a function in neither the program nor its libraries is a usage error"
check_contains "$out" "nor in the libraries it needs" "user .so: ... and the message says where gus looked"
check_contains "$out" "a program it starts is not searched: gus record -- PROGRAM, then gus sim --trace -i gus.data" \
	"... and how to reach a program it starts"

# each of these reads the hot regions table and region 1's section: the
# report of region 1 only (--region keeps the whole table)
"$GUS" record -q -o dl.data -- "$WORKLOADS/dlopener" >/dev/null 2>&1
out=$("$GUS" report -i dl.data --region 1 2>&1)
check_row "$out" "lib_collatz" "dlopen: the dlopen'ed library's function is a region"
check_simulated "$out" 1 "dlopen: ... traced where the program mapped it, and simulated"

"$GUS" record -q -o fork.data -- "$WORKLOADS/forker" >/dev/null 2>&1
out=$("$GUS" report -i fork.data --region 1 2>&1)
check_row "$out" "child_work" "fork: the workers' function is a region"
check_simulated "$out" 1 "fork: ... traced in the forked workers and simulated"
test "$($SQL fork.data "select count(distinct proc) from trace_maps")" -ge 2
ok $? "fork: the workers' mappings are stored per process"

"$GUS" record -q -o wrap.data -- "$WORKLOADS/wrapper.sh" uselib >/dev/null 2>&1; st=$?
check_status $st 0 "wrapper script: recorded"
out=$("$GUS" report -i wrap.data --region 1 2>&1)
check_row "$out" "lib_collatz" "wrapper script: the exec'd program's library function is a region"
check_simulated "$out" 1 "wrapper script: ... traced after the exec and simulated"
test "$($SQL wrap.data "select count(*) from trace_maps where proc >= 1 and object like '%/libhot.so'")" -ge 1
ok $? "wrapper script: the exec'd program is a process of its own in trace_maps"

# a plugin without the exec shim beside it: the program is traced all the
# same, only what it would exec is not followed, and that is said
mkdir noshim && cp "$GUS_QEMU_PLUGIN" noshim/
out=$(GUS_QEMU_PLUGIN="$PWD/noshim/gus-qemu-plugin.so" "$GUS" record -q -o noshim.data -- "$WORKLOADS/uselib" 2>&1 >/dev/null); st=$?
check_status $st 0 "no exec shim: recorded"
check_contains "$out" "exec'd programs are not followed: gus's exec shim" "no exec shim: said once, as a warning"
test "$($SQL noshim.data "select value from meta where key='trace.records'")" -gt 0
ok $? "no exec shim: the program is traced all the same"

# code without bounds is never simulated as another region
"$GUS" record -q -o nocfi-q.data -- ./nocfi 20000000 >/dev/null 2>&1
out=$("$GUS" report -i nocfi-q.data --region 1 2>&1)
sec=$(region_text "$out" 1)
check_contains "$sec" "no symbol and no unwind table (.eh_frame) bounds this code" "unbounded code: not simulated, and why"
check_lacks "$sec" "Simulated on " "unbounded code: shows no simulation"

# Debian programs nobody here wrote
if command -v xz >/dev/null; then
	# 450 KB of text: liblzma's code is still all the hot regions
	head -c 150000 /dev/urandom | od -An -tx1 > plain.txt
	"$GUS" record -q -o xz.data -- xz -6 -k -f -T1 plain.txt >/dev/null 2>&1; st=$?
	check_status $st 0 "xz: recorded"
	out=$("$GUS" report -i xz.data --region 1 2>&1)
	check_lacks "$out" "[unknown] in liblzma" "xz: liblzma is not one region"
	top=$($SQL xz.data "select name from regions where rank=1")
	case "$top" in liblzma.so.5*+0x*|lzma_*) ok 0 "xz: the top region is inside liblzma ($top)" ;;
	*) ok 1 "xz: the top region is inside liblzma"; echo "#   top: $top" ;; esac
	test "$($SQL xz.data "select count(*) from regions where kind='loop' and file like '%liblzma%'")" -ge 1
	ok $? "xz: with its loops"
	check_simulated "$out" 1 "xz: the top region is traced and simulated"
else
	echo "# skip: no xz"
fi
if command -v python3 >/dev/null && [ -x /usr/bin/python3 ]; then
	printf 'def f(n):\n    s = 0\n    for i in range(n):\n        s += i * i %% 7\n    return s\nprint(f(400000))\n' > loop.py
	"$GUS" record -q -o py.data -- /usr/bin/python3 loop.py >/dev/null 2>&1
	rank=$($SQL py.data "select rank from regions where name='_PyEval_EvalFrameDefault'")
	out=$("$GUS" report -i py.data --region "${rank:-0}" 2>&1)
	check_row "$out" "_PyEval_EvalFrameDefault" "python3: the interpreter's eval loop is a region"
	check_simulated "$out" "${rank:-0}" "python3: the eval loop is traced and simulated"
else
	echo "# skip: no /usr/bin/python3"
fi

done_testing
