#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# compare-mca.sh - the predictor half of run.sh without the timing: for each
# loop body of kernels.txt, gus sim's and llvm-mca's cycles per iteration
# for a machine model and an llvm-mca CPU, their ratio, and a summary. No
# measurement, so it runs on any x86-64 machine (no AVX-512 needed) and
# compares two models of a CPU that is not this one.
#
# Usage: bench/accuracy/compare-mca.sh [options] MODEL MCPU
#   MODEL             gus sim --arch (e.g. icx)
#   MCPU              llvm-mca -mcpu (e.g. icelake-server)
#   --kernels FILE    kernel list (default: kernels.txt next to this script)
#   --only GLOB       only the kernels whose name matches GLOB
#   --threshold PCT   mark differences above PCT percent (default: 15)
#   --tsv             tab-separated rows instead of the table
#
# Environment:
#   GUS           gus binary (default: <repo>/build/werror/gus)
#   GUS_SIM_ARGS  further arguments for `gus sim`
#   GUS_TIMEOUT   seconds per gus run (default: 60)
#   LLVM_MCA      llvm-mca binary (default: llvm-mca from PATH)
#   LLVM_MC       llvm-mc, to disassemble the bytes for llvm-mca (default:
#                 llvm-mc from PATH; without it llvm-mca reads the source)
#   MCA_ITERS     llvm-mca iterations N; the prediction is
#                 (cycles(2N) - cycles(N)) / N, as in run.sh (default: 200)
#
# Both predictors see the same bytes as in run.sh: the body followed by
# `dec r15; jnz`, assembled with `as`. The difference column is
# (gus - llvm-mca) / llvm-mca in percent; the summary gives the mean of its
# absolute value and lists the kernels beyond the threshold.

set -eu

prog=compare-mca
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
repo=$(cd -- "$here/../.." && pwd -P)

GUS=${GUS:-$repo/build/werror/gus}
GUS_SIM_ARGS=${GUS_SIM_ARGS-}
GUS_TIMEOUT=${GUS_TIMEOUT:-60}
LLVM_MCA=${LLVM_MCA:-llvm-mca}
LLVM_MC=${LLVM_MC:-llvm-mc}
MCA_ITERS=${MCA_ITERS:-200}

kernels=$here/kernels.txt
only='*'
threshold=15
tsv=0

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
	sed -n '/^# Usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

args=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) [ $# -ge 2 ] || usage; kernels=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--threshold) [ $# -ge 2 ] || usage; threshold=$2; shift 2 ;;
	--tsv) tsv=1; shift ;;
	-h|--help) usage 0 ;;
	-*) echo "$prog: unknown argument: $1" >&2; usage ;;
	*) args+=("$1"); shift ;;
	esac
done
[ ${#args[@]} -eq 2 ] || usage
model=${args[0]} mcpu=${args[1]}
case $threshold in ''|*[!0-9.]*) die "--threshold wants a number" ;; esac
case $MCA_ITERS in ''|*[!0-9]*|0) die "MCA_ITERS wants a positive number" ;; esac
[ -r "$kernels" ] || die "cannot read $kernels"
for t in as objcopy od awk timeout; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t"
done
[ -x "$GUS" ] || die "no gus binary at $GUS (set GUS=)"
command -v "$LLVM_MCA" >/dev/null 2>&1 || die "$LLVM_MCA not found (set LLVM_MCA=)"
have_mc=0
command -v "$LLVM_MC" >/dev/null 2>&1 && have_mc=1

work=$(mktemp -d "${TMPDIR:-/tmp}/gus-compare-mca.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2086
"$GUS" sim --arch "$model" --hex 4801d849ffcf75f8 --iterations 4 --weights 1 --no-search $GUS_SIM_ARGS \
	>/dev/null 2>"$work/probe.err" || die "gus sim --arch $model: $(head -n 1 "$work/probe.err")"

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

mca_total() { # iterations file
	"$LLVM_MCA" -mcpu="$mcpu" -iterations="$1" "$2" 2>/dev/null |
		sed -n 's/^Total Cycles:[[:space:]]*\([0-9]*\).*/\1/p'
}

: >"$work/pairs.tsv"
lineno=0 n=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $(trim "$line") in ''|'#'*) continue ;; esac
	IFS='|' read -r f_name f_cat _ f_body <<<"$line"
	name=$(trim "$f_name") cat=$(trim "$f_cat") body=$(trim "${f_body:-}")
	case $name in ''|*[!A-Za-z0-9_]*) die "$kernels:$lineno: bad kernel name '$name'" ;; esac
	[ -n "$body" ] || die "$kernels:$lineno: empty body"
	# shellcheck disable=SC2254
	case $name in $only) ;; *) continue ;; esac
	n=$((n + 1))
	k=$work/$name
	{
		printf '\t.intel_syntax noprefix\n\t.text\nbench_loop:\n'
		printf '%s\n' "$body" | tr ';' '\n' | sed 's/^[[:space:]]*//; /^$/d'
		printf 'dec r15\njnz bench_loop\n'
	} >"$k.s"
	g=n/a c=n/a
	if as --64 -o "$k.o" "$k.s" 2>"$k.err" && objcopy -O binary -j .text "$k.o" "$k.bin"; then
		hex=$(od -An -v -tx1 "$k.bin" | tr -d ' \n')
		# shellcheck disable=SC2086
		if timeout "$GUS_TIMEOUT" "$GUS" sim --hex "$hex" --json --arch "$model" $GUS_SIM_ARGS \
			>"$k.json" 2>"$k.gus.err"; then
			v=$(sed -n 's/^[[:space:]]*"cycles_per_iteration":[[:space:]]*\([0-9.eE+-]*\).*/\1/p' "$k.json" | head -n 1)
			[ -n "$v" ] && g=$v
		fi
		[ "$g" != n/a ] || echo "$prog: $name: gus: $(head -n 1 "$k.gus.err")" >&2
		src=$k.mca.s
		if [ $have_mc = 1 ]; then
			printf '%s\n' "$hex" | sed 's/../0x& /g' |
				"$LLVM_MC" --disassemble -triple=x86_64-unknown-linux-gnu -mcpu="$mcpu" >"$src" 2>/dev/null || true
		else
			cp "$k.s" "$src"
		fi
		c1=$(mca_total "$MCA_ITERS" "$src")
		c2=$(mca_total "$((2 * MCA_ITERS))" "$src")
		if [ -n "$c1" ] && [ -n "$c2" ]; then
			c=$(awk -v a="$c1" -v b="$c2" -v n="$MCA_ITERS" 'BEGIN { printf "%.4f", (b - a) / n }')
		else
			echo "$prog: $name: llvm-mca failed" >&2
		fi
	else
		echo "$prog: $name does not assemble: $(head -n 1 "$k.err")" >&2
	fi
	printf '%s\t%s\t%s\t%s\n' "$name" "$cat" "$g" "$c" >>"$work/pairs.tsv"
done <"$kernels"
[ $n -gt 0 ] || die "no kernels selected"

awk -F'\t' -v thr="$threshold" -v tsv="$tsv" -v model="$model" -v mcpu="$mcpu" '
function abs(x) { return x < 0 ? -x : x }
{
	name[NR] = $1; cat[NR] = $2; g[NR] = $3; c[NR] = $4
	ok[NR] = ($3 != "n/a" && $4 != "n/a" && $4 + 0 > 0)
	if (ok[NR]) { r[NR] = $3 / $4; d[NR] = 100 * ($3 - $4) / $4 }
}
END {
	if (tsv) print "# name\tcategory\tgus\tllvm-mca\tratio\tdiff%"
	else printf "%-16s %-9s %9s %9s %7s %8s\n", "kernel", "category", "gus", "llvm-mca", "ratio", "diff%"
	for (i = 1; i <= NR; i++) {
		if (ok[i]) {
			m = abs(d[i]) > thr ? " *" : ""
			if (tsv) printf "%s\t%s\t%s\t%s\t%.3f\t%.1f\n", name[i], cat[i], g[i], c[i], r[i], d[i]
			else printf "%-16s %-9s %9.2f %9.2f %7.3f %+7.1f%s\n", name[i], cat[i], g[i], c[i], r[i], d[i], m
			n++; s += abs(d[i]); lr += log(r[i])
			if (abs(d[i]) > thr) { nb++; big = big " " name[i] }
		} else {
			if (tsv) printf "%s\t%s\t%s\t%s\tn/a\tn/a\n", name[i], cat[i], g[i], c[i]
			else printf "%-16s %-9s %9s %9s %7s %8s\n", name[i], cat[i], g[i], c[i], "n/a", "n/a"
			nf++
		}
	}
	if (n == 0) { print "# no kernel predicted by both"; exit }
	printf "# gus --arch %s vs llvm-mca -mcpu=%s: %d kernels", model, mcpu, n
	if (nf) printf " (%d n/a)", nf
	printf ", mean |diff| %.1f%%, geometric mean ratio gus/llvm-mca %.3f\n", s / n, exp(lr / n)
	printf "# %d beyond %s%%:%s\n", nb, thr, nb ? big : " none"
}' "$work/pairs.tsv"
