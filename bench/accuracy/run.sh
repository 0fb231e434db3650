#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh - accuracy benchmark of `gus sim`: measures the core cycles per
# iteration of the loop bodies in kernels.txt on this machine and compares
# them with the predictions of gus and of llvm-mca (see README.md).
#
# Usage: bench/accuracy/run.sh [options]
#   --csv PATH        where the CSV goes (default: $BENCH_OUT/results.csv)
#   --rounds N        rounds over all kernels (default: 8)
#   --samples N       samples per kernel and round (default: 9)
#   --budget S        seconds the harness may spend waiting for an
#                     undisturbed core (default: 120)
#   --cpu N           CPU to pin the harness to (default: the last one)
#   --only GLOB       only the kernels whose name matches GLOB
#   --kernels FILE    kernel list (default: kernels.txt next to this script)
#   --data KIB        bytes each of the kernel's buffers holds (default:
#                     12, in the L1); a larger size, e.g. 256 for the L2,
#                     makes every call stream through all of it (tell gus
#                     where the data lives: GUS_SIM_ARGS="... --data-in L2")
#   --measured CSV    take the measurements of an earlier run (its --csv,
#                     maybe from another machine) instead of timing here
#
# Environment:
#   GUS           gus binary (default: <repo>/build/werror/gus)
#   GUS_SIM_ARGS  extra arguments for `gus sim` (default: --arch for this
#                 CPU: spr on Sapphire Rapids, skx on Skylake-SP/Cascade
#                 Lake X, else gus's default)
#   GUS_TIMEOUT   seconds per gus run (default: 60)
#   LLVM_MCA      llvm-mca binary (default: llvm-mca from PATH)
#   LLVM_MC       llvm-mc, to disassemble the bytes for llvm-mca (default:
#                 llvm-mc from PATH; without it llvm-mca reads the source)
#   MCA_CPU       llvm-mca -mcpu (default: skylake-avx512)
#   MCA_ITERS     llvm-mca iterations N; the prediction is
#                 (cycles(2N) - cycles(N)) / N (default: 200)
#   BENCH_OUT     build and output directory (default: /tmp/gus-accuracy)
#   CC            C compiler (default: gcc)

set -eu

prog=accuracy
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
repo=$(cd -- "$here/../.." && pwd -P)

GUS=${GUS:-$repo/build/werror/gus}
# the machine model of the CPU the cycles are measured on
host_model=$(awk -F: '/^cpu family/ { f = $2 + 0 } /^model[ \t]*:/ { m = $2 + 0 } END { if (f == 6) print m }' /proc/cpuinfo 2>/dev/null || true)
case "$host_model" in
143 | 207) default_arch="--arch spr" ;;
173 | 174) default_arch="--arch gnr" ;;
85) default_arch="--arch skx" ;;
*) default_arch="" ;;
esac
GUS_SIM_ARGS=${GUS_SIM_ARGS-$default_arch}
GUS_TIMEOUT=${GUS_TIMEOUT:-60}
LLVM_MCA=${LLVM_MCA:-llvm-mca}
LLVM_MC=${LLVM_MC:-llvm-mc}
MCA_CPU=${MCA_CPU:-skylake-avx512}
MCA_ITERS=${MCA_ITERS:-200}
BENCH_OUT=${BENCH_OUT:-/tmp/gus-accuracy}
CC=${CC:-gcc}

csv=
rounds=8
samples=9
budget=120
cpu=
only='*'
kernels=$here/kernels.txt
measured=
data_kib=12

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
	sed -n '/^# Usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--csv) [ $# -ge 2 ] || usage; csv=$2; shift 2 ;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
	--samples) [ $# -ge 2 ] || usage; samples=$2; shift 2 ;;
	--budget) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
	--cpu) [ $# -ge 2 ] || usage; cpu=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--kernels) [ $# -ge 2 ] || usage; kernels=$2; shift 2 ;;
	--measured) [ $# -ge 2 ] || usage; measured=$2; shift 2 ;;
	--data) [ $# -ge 2 ] || usage; data_kib=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "$prog: unknown argument: $1" >&2; usage ;;
	esac
done
case $rounds in ''|*[!0-9]*|0) die "--rounds wants a positive number" ;; esac
case $samples in ''|*[!0-9]*|0) die "--samples wants a positive number" ;; esac
case $budget in ''|*[!0-9]*) die "--budget wants a number of seconds" ;; esac
case $cpu in *[!0-9]*) die "--cpu wants a CPU number" ;; esac
case $data_kib in ''|*[!0-9]*) die "--data wants a size in KiB" ;; esac
[ "$data_kib" -ge 12 ] && [ "$data_kib" -le 65536 ] || die "--data wants 12 to 65536 KiB"
case $MCA_ITERS in ''|*[!0-9]*|0) die "MCA_ITERS wants a positive number" ;; esac
[ -r "$kernels" ] || die "cannot read $kernels"

mkdir -p "$BENCH_OUT"
BENCH_OUT=$(cd -- "$BENCH_OUT" && pwd -P)
[ -n "$csv" ] || csv=$BENCH_OUT/results.csv
work=$BENCH_OUT/work
rm -rf "$work"
mkdir -p "$work/k"

for t in "$CC" as objcopy od timeout; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t"
done
[ "$(uname -m)" = x86_64 ] || die "needs an x86-64 machine"

have_mca=0
if command -v "$LLVM_MCA" >/dev/null 2>&1; then
	have_mca=1
else
	echo "$prog: $LLVM_MCA not found: the llvm-mca column is n/a" >&2
fi
have_mc=0
command -v "$LLVM_MC" >/dev/null 2>&1 && have_mc=1
have_gus=0
if [ -x "$GUS" ]; then
	have_gus=1
else
	echo "$prog: no gus binary at $GUS (set GUS=): the gus column is n/a" >&2
fi
avx512=0
grep -qw avx512f /proc/cpuinfo && avx512=1
avx512bw=0
grep -qw avx512bw /proc/cpuinfo && avx512bw=1

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

# ------------------------------------------------------------ kernels.txt
names=() cats=() strides=() bodies=() hexes=() offsets=()
declare -A seen=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $(trim "$line") in ''|'#'*) continue ;; esac
	IFS='|' read -r f_name f_cat f_stride f_body f_offset <<<"$line"
	name=$(trim "$f_name")
	cat=$(trim "$f_cat")
	stride=$(trim "$f_stride")
	body=$(trim "${f_body:-}")
	offset=$(trim "${f_offset:-0}")
	case $name in ''|*[!A-Za-z0-9_]*) die "$kernels:$lineno: bad kernel name '$name'" ;; esac
	case $cat in ''|*[!A-Za-z0-9_-]*) die "$kernels:$lineno: bad category '$cat'" ;; esac
	case $stride in ''|*[!0-9]*) die "$kernels:$lineno: bad stride '$stride'" ;; esac
	[ -n "$body" ] || die "$kernels:$lineno: empty body"
	case $offset in ''|*[!0-9]*) die "$kernels:$lineno: bad offset '$offset'" ;; esac
	[ "$offset" -lt 64 ] || die "$kernels:$lineno: offset $offset is not below 64"
	[ -z "${seen[$name]:-}" ] || die "$kernels:$lineno: duplicate kernel '$name'"
	seen[$name]=1
	# shellcheck disable=SC2254
	case $name in $only) ;; *) continue ;; esac
	names+=("$name") cats+=("$cat") strides+=("$stride") bodies+=("$body") offsets+=("$offset")
done <"$kernels"
[ ${#names[@]} -gt 0 ] || die "no kernels selected"

# body with one instruction per line
body_lines() { printf '%s\n' "$1" | tr ';' '\n' | sed 's/^[[:space:]]*//; /^$/d'; }

# ------------------------------------- bytes of body + dec r15 + jnz
declare -A asm_err=()
for i in "${!names[@]}"; do
	n=${names[$i]}
	{
		printf '\t.intel_syntax noprefix\n\t.text\nbench_loop:\n'
		body_lines "${bodies[$i]}"
		# a named label: llvm-mca drops a branch to a numeric one
		printf 'dec r15\njnz bench_loop\n'
	} >"$work/k/$n.s"
	if as --64 -o "$work/k/$n.o" "$work/k/$n.s" 2>"$work/k/$n.err" &&
	   objcopy -O binary -j .text "$work/k/$n.o" "$work/k/$n.bin"; then
		hexes[i]=$(od -An -v -tx1 "$work/k/$n.bin" | tr -d ' \n')
	else
		hexes[i]=
		asm_err[$n]=$(head -n 1 "$work/k/$n.err")
		echo "$prog: $n does not assemble: ${asm_err[$n]}" >&2
	fi
done

# ------------------------------------------------ timing harness sources
{
	echo "/* generated by run.sh from $(basename "$kernels"); do not edit */"
	printf '\t.intel_syntax noprefix\n'
	printf '\t.section .rodata\n\t.p2align 2\nbench_one_f:\n\t.long 0x3f800000\n'
	printf '\t.section .note.GNU-stack,"",@progbits\n\t.text\n'
	printf '\t.macro BENCH_ENTER\n'
	printf '\tpush rbx\n\tpush rbp\n\tpush r12\n\tpush r13\n\tpush r14\n\tpush r15\n'
	printf '\tmov r15, rdi\n\tmov rdx, [rsi+16]\n\tmov r8, [rsi+24]\n'
	printf '\tmov rdi, [rsi]\n\tmov rsi, [rsi+8]\n'
	printf '\txor eax, eax\n\tmov ebx, 1\n\tmov ecx, 3\n\tmov ebp, 5\n'
	for r in 9 10 11 12 13 14; do printf '\tmov r%sd, %s\n' "$r" "$r"; done
	if [ $avx512 = 1 ]; then
		printf '\t.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n'
		printf '\tvbroadcastss zmm\\r, DWORD PTR bench_one_f[rip]\n\t.endr\n'
		kx=kxnorw
		[ $avx512bw = 1 ] && kx=kxnorq
		for r in 1 2 3 4 5 6 7; do printf '\t%s k%s, k%s, k%s\n' "$kx" "$r" "$r" "$r"; done
	else
		printf '\t.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n'
		printf '\tvbroadcastss ymm\\r, DWORD PTR bench_one_f[rip]\n\t.endr\n'
	fi
	printf '\t.endm\n'
	printf '\t.macro BENCH_LEAVE\n\tvzeroupper\n'
	printf '\tpop r15\n\tpop r14\n\tpop r13\n\tpop r12\n\tpop rbp\n\tpop rbx\n\tret\n\t.endm\n'
	for i in "${!names[@]}"; do
		[ -n "${hexes[$i]}" ] || continue
		printf '\n# %s\n\t.globl bench_k%s\n\t.type bench_k%s, @function\n' "${names[$i]}" "$i" "$i"
		printf '\t.p2align 6\nbench_k%s:\n\tBENCH_ENTER\n' "$i"
		# legacy SSE code runs with the upper halves clean, as compiled
		# code does: with them dirty, an Intel core merges every xmm
		# result into the wider register (a false dependency)
		if body_lines "${bodies[$i]}" | awk '$1 !~ /^v/ && /xmm/ { f = 1 } END { exit !f }'; then
			printf '\tvzeroupper\n'
		fi
		printf '\t.p2align 6\n'
		# the loop OFFSET bytes past a 64-byte boundary (nops run once)
		[ "${offsets[$i]}" -eq 0 ] || printf '\t.skip %s, 0x90\n' "${offsets[$i]}"
		printf '1:\n'
		body_lines "${bodies[$i]}" | sed 's/^/\t/'
		printf '\tdec r15\n\tjnz 1b\n\tBENCH_LEAVE\n\t.size bench_k%s, .-bench_k%s\n' "$i" "$i"
	done
} >"$work/kernels.S"
{
	echo "/* SPDX-License-Identifier: GPL-2.0-or-later */"
	echo "/* generated by run.sh from $(basename "$kernels"); do not edit */"
	echo '#include "bench.h"'
	for i in "${!names[@]}"; do
		[ -n "${hexes[$i]}" ] || continue
		echo "void bench_k$i(uint64_t iters, const struct bench_bufs *bufs);"
	done
	echo 'const struct bench_kernel bench_kernels[] = {'
	for i in "${!names[@]}"; do
		[ -n "${hexes[$i]}" ] || continue
		echo "	{ \"${names[$i]}\", bench_k$i, ${strides[$i]}u },"
	done
	echo '	{ 0, 0, 0 }'
	echo '};'
	echo 'const size_t bench_nkernels = sizeof(bench_kernels) / sizeof(bench_kernels[0]) - 1;'
} >"$work/table.c"

cflags="-std=c11 -O2 -Wall -Wextra -Werror"
# shellcheck disable=SC2086
$CC $cflags -DDATA_KIB="${data_kib}u" -I"$here" -o "$work/harness" "$here/harness.c" "$here/calib.S" \
	"$work/table.c" "$work/kernels.S" -lm ||
	die "cannot build the timing harness"
# shellcheck disable=SC2086
$CC $cflags -o "$work/report" "$here/report.c" -lm || die "cannot build report"
# shellcheck disable=SC2086
$CC $cflags -o "$work/jsonnum" "$here/jsonnum.c" || die "cannot build jsonnum"

# ------------------------------------------------------------ measure
if [ -n "$measured" ]; then
	# the measurements of an earlier run (its --csv), maybe on another
	# machine: the predictors are run against them, nothing is timed
	[ -r "$measured" ] || die "--measured: cannot read $measured"
	echo "$prog: measurements from $measured (not timed here)" >&2
	{
		echo "# measured: taken from $measured"
		awk -F, 'NR > 1 && $3 != "n/a" { split($9, k, "/"); printf "%s\t%s\t%s\t%s\t%s\n", $1, $3, $4, k[1], k[2] }' \
			"$measured"
	} >"$work/measured.tsv"
else
	echo "$prog: measuring ${#names[@]} kernels ($rounds rounds x $samples samples)" >&2
	hargs=(--rounds "$rounds" --samples "$samples" --budget "$budget")
	[ -z "$cpu" ] || hargs+=(--cpu "$cpu")
	"$work/harness" "${hargs[@]}" >"$work/measured.tsv" || die "timing harness failed"
fi
declare -A meas=() spread=() nsamp=()
while IFS=$'\t' read -r n v s kept taken _; do
	case $n in '#'*) echo "$n"; continue ;; esac
	meas[$n]=$v
	spread[$n]=${s:-}
	nsamp[$n]=${kept:-}/${taken:-}
done <"$work/measured.tsv"

# ------------------------------------------------------------ predict
mca_total() { # iterations file
	"$LLVM_MCA" -mcpu="$MCA_CPU" -iterations="$1" "$2" 2>/dev/null |
		sed -n 's/^Total Cycles:[[:space:]]*\([0-9]*\).*/\1/p'
}

gus_fail=0 gus_first_err=
mca_fail=0
printf '# name\tcategory\tmeasured\tiqr%%\tgus\tllvm-mca\tsamples\n' >"$work/combined.tsv"
for i in "${!names[@]}"; do
	n=${names[$i]} hex=${hexes[$i]}
	m=${meas[$n]:-n/a} s=${spread[$n]:-}
	[ -n "$hex" ] || m="asm-error"
	g=n/a c=n/a
	# a reference kernel is only measured: its body holds more than one
	# loop body, which neither predictor takes
	[ "${cats[$i]}" != reference ] || { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "${cats[$i]}" "$m" "$s" n/a n/a \
		"${nsamp[$n]:-}" >>"$work/combined.tsv"; continue; }
	if [ -n "$hex" ] && [ $have_gus = 1 ]; then
		# shellcheck disable=SC2086
		# the loop's place in the fetch windows: its offset past 64 bytes
		addr_arg=
		[ "${offsets[$i]}" -eq 0 ] || addr_arg="--address $(printf '%x' "${offsets[$i]}")"
		if timeout "$GUS_TIMEOUT" "$GUS" sim --hex "$hex" --json $GUS_SIM_ARGS $addr_arg \
			>"$work/k/$n.gus.json" 2>"$work/k/$n.gus.err" &&
		   v=$("$work/jsonnum" cycles_per_iteration <"$work/k/$n.gus.json"); then
			g=$v
		else
			gus_fail=$((gus_fail + 1))
			if [ -z "$gus_first_err" ]; then
				gus_first_err="$n: $(head -c 300 "$work/k/$n.gus.err" | head -n 1)"
				[ -s "$work/k/$n.gus.err" ] || gus_first_err="$n: no cycles_per_iteration in the output"
			fi
		fi
	fi
	if [ -n "$hex" ] && [ $have_mca = 1 ]; then
		src=$work/k/$n.mca.s
		if [ $have_mc = 1 ]; then
			printf '%s\n' "$hex" | sed 's/../0x& /g' |
				"$LLVM_MC" --disassemble -triple=x86_64-unknown-linux-gnu \
				-mcpu="$MCA_CPU" >"$src" 2>"$work/k/$n.mc.err" || true
			if [ -s "$work/k/$n.mc.err" ]; then
				echo "$prog: $n: llvm-mc: $(head -n 1 "$work/k/$n.mc.err")" >&2
			fi
		else
			cp "$work/k/$n.s" "$src"
		fi
		c1=$(mca_total "$MCA_ITERS" "$src")
		c2=$(mca_total "$((2 * MCA_ITERS))" "$src")
		if [ -n "$c1" ] && [ -n "$c2" ]; then
			c=$(awk -v a="$c1" -v b="$c2" -v n="$MCA_ITERS" 'BEGIN { printf "%.4f", (b - a) / n }')
		else
			mca_fail=$((mca_fail + 1))
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "${cats[$i]}" "$m" "$s" "$g" "$c" \
		"${nsamp[$n]:-}" >>"$work/combined.tsv"
done
if [ $have_gus = 1 ] && [ $gus_fail -gt 0 ]; then
	echo "# gus failed on $gus_fail kernel(s), recorded as n/a; first: $gus_first_err"
fi
[ $mca_fail -eq 0 ] || echo "# llvm-mca failed on $mca_fail kernel(s), recorded as n/a"
[ $have_gus = 1 ] || echo "# gus: no binary at $GUS; every gus prediction is n/a"
echo "# llvm-mca: -mcpu=$MCA_CPU, (cycles($((2 * MCA_ITERS)) iterations) - cycles($MCA_ITERS)) / $MCA_ITERS"
echo

"$work/report" "$work/combined.tsv" "$csv" | tee "$BENCH_OUT/report.txt"
echo "$prog: CSV in $csv, table in $BENCH_OUT/report.txt" >&2
