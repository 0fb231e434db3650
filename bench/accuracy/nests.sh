#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nests.sh KERNELS CSV: gus's prediction for the `reference` kernels of
# KERNELS (chains.txt's, whose bodies hold an inner loop), against the
# measured column of CSV (an earlier run.sh --csv of the same file, e.g.
# results/emr-kvm-2026-11-26-chains.csv). run.sh only measures them:
# `gus sim --hex` takes one loop body, not a nest. Here each body becomes a
# function f_NAME that runs it 2000 times (the harness's outer loop,
# closed by dec r15 / jnz), and `gus sim --bin --function f_NAME` simulates
# its inner loop on the path the counters take (the inner loop's trips per
# pass are followed from its constants). Prints, per kernel, the measured
# cycles per pass (the outer loop's iteration), gus's cycles per entry of
# the inner loop (its cycles per iteration in the nest times its trips per
# entry: per pass where the inner loop runs once a pass, as in chains.txt;
# gemm.txt's and gemm-l2.txt's j1pp* run theirs twice) and the error,
# then the MAPE. No timing, no PMU: any x86-64 machine with gcc.
#
# Environment: GUS (default build/werror/gus of this checkout),
# GUS_SIM_ARGS (default --arch spr), BENCH_OUT (default
# /tmp/gus-accuracy-nests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "nests.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: nests.sh KERNELS CSV"
kernels=$1 csv=$2
[ -r "$kernels" ] || die "cannot read $kernels"
[ -r "$csv" ] || die "cannot read $csv"
GUS=${GUS:-$top/build/werror/gus}
[ -x "$GUS" ] || die "no gus binary at $GUS (set GUS)"
read -r -a sim_args <<<"${GUS_SIM_ARGS:---arch spr}"
out=${BENCH_OUT:-/tmp/gus-accuracy-nests}
mkdir -p "$out"

# the nests: one function per reference kernel; the registers the body
# needs as the harness sets them (rdi, rsi, rdx at three areas of the
# stack frame of main, which is never run: gus reads the code only)
{
	echo '.intel_syntax noprefix'
	echo '.text'
	grep -v '^#' "$kernels" | grep '|' | while IFS='|' read -r name cat _stride body _off; do
		name=$(echo $name) cat=$(echo $cat)
		[ "$cat" = reference ] || continue
		case $name in ''|*[!A-Za-z0-9_]*) die "$kernels: bad name '$name'" ;; esac
		echo ".globl f_$name"
		echo ".type f_$name, @function"
		echo ".p2align 6"
		echo "f_$name:"
		echo "push r15"
		echo "mov r15d, 2000"
		echo ".p2align 6"
		echo "1:"
		echo "$body" | sed 's/; */\n/g'
		echo "dec r15"
		echo "jnz 1b"
		echo "pop r15"
		echo "ret"
		echo ".size f_$name, .-f_$name"
	done
	echo '.globl main'
	echo '.type main, @function'
	echo 'main:'
	echo 'xor eax, eax'
	echo 'ret'
	echo '.section .note.GNU-stack,"",@progbits'
} >"$out/nests.S"
gcc -no-pie -o "$out/nests" "$out/nests.S" 2>"$out/gcc.err" || die "gcc failed on $out/nests.S: $(head -3 "$out/gcc.err")"

printf '%-14s %10s %10s %8s\n' kernel measured gus err%
n=0 sum=0
while IFS='|' read -r name cat _rest; do
	name=$(echo $name) cat=$(echo $cat)
	[ "$cat" = reference ] || continue
	m=$(awk -F, -v k="$name" '$1 == k { print $3 }' "$csv")
	res=$("$GUS" sim "${sim_args[@]}" --bin "$out/nests" --function "f_$name" 2>&1) || {
		printf '%-14s %10s %10s %8s\n' "$name" "${m:-n/a}" failed -
		continue
	}
	# cycles per iteration of the inner loop in its nest, times its
	# trips per pass
	cpi=$(echo "$res" | awk '/with the code around it/ { print $NF; exit }')
	[ -n "$cpi" ] || cpi=$(echo "$res" | awk '/cycles per iteration/ { print $NF; exit }')
	trips=$(echo "$res" | grep -o 'about [0-9.]* iterations per entry' | head -1 | awk '{ print $2 }')
	pred=$(awk -v c="$cpi" -v t="$trips" 'BEGIN { printf "%.1f", c * t }')
	if [ -n "$m" ] && [ "$m" != n/a ]; then
		err=$(awk -v p="$pred" -v m="$m" 'BEGIN { printf "%+.1f", (p / m - 1) * 100 }')
		n=$((n + 1))
		sum=$(awk -v s="$sum" -v e="$err" 'BEGIN { print s + (e < 0 ? -e : e) }')
	else
		m=n/a err=-
	fi
	printf '%-14s %10s %10s %8s\n' "$name" "$m" "$pred" "$err"
done < <(grep -v '^#' "$kernels" | grep '|')
awk -v n="$n" -v s="$sum" 'BEGIN { if (n) printf "gus MAPE %.1f%% over %d nests\n", s / n, n; else print "no measured nests" }'
