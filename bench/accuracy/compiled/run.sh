#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh - accuracy benchmark of `gus sim` on compiled code: measures whole
# compiled kernels (kernels.c, built -O2 and -O3 -march=native) on this
# machine in core cycles per innermost iteration, and compares them with
# gus sim on the binary (static), gus sim on a traced run, and llvm-mca on
# the loop gus chose (see README.md).
#
# Usage: bench/accuracy/compiled/run.sh [options]
#   --csv PATH        where the CSV goes (default: $BENCH_OUT/results.csv)
#   --cpu N           CPU to pin the timing to (default: the last one)
#   --only GLOB       only the kernels whose name matches GLOB
#   --samples N       samples per kernel and build (default: 15)
#   --measure-only    build and time only, no predictors (the part to run
#                     on another machine: it needs gcc, binutils, bash and
#                     coreutils); the binaries stay in $BENCH_OUT/bin
#   --measured CSV    no timing: the measurements of an earlier run's CSV
#                     (maybe from another machine) are predicted
#   --binaries DIR    the kernels' binaries to measure or predict (compiled-O2,
#                     compiled-O3native), e.g. $BENCH_OUT/bin copied back
#                     from the machine that measured (default: build them
#                     here)
#   --skip LIST       comma-separated: gus-static, gus-traced, llvm-mca
#
# Environment:
#   GUS           gus binary (default: <repo>/build/werror/gus)
#   GUS_SIM_ARGS  extra arguments for `gus sim` (default: --arch for the
#                 measuring CPU: spr on Sapphire/Emerald Rapids, icx on Ice
#                 Lake-SP, skx on Skylake-SP/Cascade Lake, else gus's own)
#   GUS_TIMEOUT   seconds per gus run (default: 300)
#   TRACE_INSNS   gus sim --trace --max-insns (default: 2000000: about a
#                 minute single-stepped; a call of every kernel but one)
#   TRACE_CALLS   calls of the kernel in the traced run (default: 20)
#   TRACE_WINDOW  gus sim --ptrace-window where the kernel is single-stepped
#                 (default: 5000000, longer than any call: whole calls)
#   LLVM_MCA      llvm-mca binary (default: llvm-mca, else llvm-mca-14)
#   LLVM_MC       llvm-mc, to disassemble the loop for llvm-mca (default:
#                 llvm-mc, else llvm-mc-14)
#   MCA_CPU       llvm-mca -mcpu (default: skylake-avx512)
#   MCA_ITERS     llvm-mca iterations N; the prediction is
#                 (cycles(2N) - cycles(N)) / N (default: 200)
#   BENCH_OUT     build and output directory (default: /tmp/gus-compiled)
#   CC            C compiler (default: gcc)
#   PAD           bytes of padding (0-63) linked in front of the kernels:
#                 the same code placed PAD bytes further against 64-byte
#                 lines, for the front end's placement effects (default:
#                 none; a padded binary's bin_id differs from the CSV's)

set -eu

prog=compiled
here=$(cd -- "$(dirname -- "$0")" && pwd -P)
repo=$(cd -- "$here/../../.." && pwd -P)

GUS=${GUS:-$repo/build/werror/gus}
GUS_TIMEOUT=${GUS_TIMEOUT:-300}
TRACE_INSNS=${TRACE_INSNS:-2000000}
TRACE_CALLS=${TRACE_CALLS:-20}
TRACE_WINDOW=${TRACE_WINDOW:-5000000}
MCA_CPU=${MCA_CPU:-skylake-avx512}
MCA_ITERS=${MCA_ITERS:-200}
BENCH_OUT=${BENCH_OUT:-/tmp/gus-compiled}
CC=${CC:-gcc}

# the builds: name and flags of kernels.c (measure.c always -O2)
builds=(O2 O3native)
declare -A bflags=([O2]="-O2" [O3native]="-O3 -march=${MARCH:-native}")

csv=
cpu=
only='*'
samples=15
measure_only=0
measured=
bindir=
skip=

die() { echo "$prog: $*" >&2; exit 1; }
usage() {
	sed -n '/^# Usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--csv) [ $# -ge 2 ] || usage; csv=$2; shift 2 ;;
	--cpu) [ $# -ge 2 ] || usage; cpu=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--samples) [ $# -ge 2 ] || usage; samples=$2; shift 2 ;;
	--measure-only) measure_only=1; shift ;;
	--measured) [ $# -ge 2 ] || usage; measured=$2; shift 2 ;;
	--binaries) [ $# -ge 2 ] || usage; bindir=$2; shift 2 ;;
	--skip) [ $# -ge 2 ] || usage; skip=,$2,; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "$prog: unknown argument: $1" >&2; usage ;;
	esac
done
case $cpu in *[!0-9]*) die "--cpu wants a CPU number" ;; esac
case ${PAD:-} in '') ;; *[!0-9]*) die "PAD wants a number of bytes, 0-63" ;; *) [ "$PAD" -le 63 ] || die "PAD wants a number of bytes, 0-63" ;; esac
case $samples in ''|*[!0-9]*|0) die "--samples wants a positive number" ;; esac
case $MCA_ITERS in ''|*[!0-9]*|0) die "MCA_ITERS wants a positive number" ;; esac
case $TRACE_INSNS in ''|*[!0-9]*|0) die "TRACE_INSNS wants a positive number" ;; esac
case $TRACE_CALLS in ''|*[!0-9]*|0) die "TRACE_CALLS wants a positive number" ;; esac
case $TRACE_WINDOW in ''|*[!0-9]*|0) die "TRACE_WINDOW wants a positive number" ;; esac
[ -z "$measured" ] || [ $measure_only = 0 ] || die "--measured and --measure-only exclude each other"
[ -z "$measured" ] || [ -r "$measured" ] || die "--measured: cannot read $measured"
[ -z "$bindir" ] || [ -d "$bindir" ] || die "--binaries: no directory $bindir"
[ -z "$measured" ] || measured=$(cd -- "$(dirname -- "$measured")" && pwd -P)/$(basename -- "$measured")
[ -z "$bindir" ] || bindir=$(cd -- "$bindir" && pwd -P)
[ "$(uname -m)" = x86_64 ] || die "needs an x86-64 machine"
for t in "$CC" objdump nm sha256sum timeout awk sed; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool: $t"
done

mkdir -p "$BENCH_OUT"
BENCH_OUT=$(cd -- "$BENCH_OUT" && pwd -P)
[ -n "$csv" ] || csv=$BENCH_OUT/results.csv
work=$BENCH_OUT/work
rm -rf "$work"
mkdir -p "$work/p"
skipped() { case $skip in *",$1,"*) return 0 ;; esac; return 1; }

# ------------------------------------------------------------------ build
# no -Werror: another machine's compiler may warn where this one does not
cflags="-std=c11 -Wall -Wextra"
if [ -n "$bindir" ]; then
	bin=$bindir
	echo "$prog: the kernels' binaries of $bindir (not built here)" >&2
else
	bin=$BENCH_OUT/bin
	mkdir -p "$bin"
	for b in "${builds[@]}"; do
		# shellcheck disable=SC2086
		$CC $cflags ${bflags[$b]} -c -o "$work/kernels-$b.o" "$here/kernels.c" ||
			die "cannot compile kernels.c ($b: ${bflags[$b]})"
		# the kernels first: where their loops fall against 64-byte
		# lines then does not move with the driver's code (PAD bytes
		# of padding before them move them on purpose)
		pad_obj=
		if [ -n "${PAD:-}" ]; then
			printf '\t.text\n\t.p2align 6\npad_before_kernels:\n\t.skip %d, 0x90\n' "$PAD" >"$work/pad.s"
			$CC -c -o "$work/pad.o" "$work/pad.s" || die "cannot assemble the padding"
			pad_obj=$work/pad.o
		fi
		# shellcheck disable=SC2086
		$CC $cflags -O2 -I"$here" -o "$bin/compiled-$b" $pad_obj "$work/kernels-$b.o" "$here/measure.c" \
			"$here/calib.S" -lm || die "cannot link the $b binary"
	done
	{
		echo "# built by bench/accuracy/compiled/run.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "# compiler: $($CC --version | head -n 1)"
		for b in "${builds[@]}"; do echo "compiled-$b: kernels.c ${bflags[$b]}; measure.c -O2"; done
		[ -z "${PAD:-}" ] || echo "# padding: $PAD bytes linked in front of the kernels (PAD)"
	} >"$bin/BUILD-INFO"
fi
for b in "${builds[@]}"; do
	[ -x "$bin/compiled-$b" ] || die "no binary $bin/compiled-$b"
done

# this CPU: family-model, for the CSV and the default --arch
host_cpu=$(awk -F: '/^cpu family/ { f = $2 + 0 } /^model[ \t]*:/ { m = $2 + 0 } END { printf "%s-%s", f, m }' /proc/cpuinfo 2>/dev/null || echo n/a)
host_name=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

# ---------------------------------------------------------------- kernels
names=()
declare -A kdata=() kiters=()
while IFS=$'\t' read -r n it d _; do
	# shellcheck disable=SC2254
	case $n in $only) ;; *) continue ;; esac
	names+=("$n") kdata[$n]=$d kiters[$n]=$it
done < <("$bin/compiled-O2" --list)
[ ${#names[@]} -gt 0 ] || die "no kernel matches '$only'"

# the loops of k_NAME in binary $1 (disassembled into $2): one line per
# backward branch inside the function: START LATCH END, offsets (hex)
# from the function's start, END the address after the branch
# (any awk: no strtonum)
awk_hex='function hex(s,  n, i) { n = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n }'
loops_of() { # disassembly function
	awk -v fn="<k_$2>:" "$awk_hex"'
		# a latch waiting for the address after it
		function close_latch(a) { if (pend != "") print pend, sprintf("%x", a - fstart); pend = "" }
		/^[0-9a-f]+ <.*>:$/ { close_latch(hex($1)); inside = $2 == fn; if (inside) fstart = hex($1); next }
		inside && /^ *[0-9a-f]+:/ {
			a = $1; sub(/:$/, "", a); addr = hex(a)
			close_latch(addr)
			if ($2 ~ /^j/ && $3 ~ /^[0-9a-f]+$/ && $4 ~ /^</) {
				t = hex($3)
				if (t >= fstart && t <= addr)
					pend = sprintf("%x %x", t - fstart, addr - fstart)
			}
		}
	' "$1"
}

# iterations of each loop of k_NAME in one call: "START-END:HITS;..."
# (offsets 0x...): the executions of its latches, the backward branches to
# START (END is the address after the furthest), summed: each iteration
# ends at one of them, as gus counts a traced loop at its latch or, with
# several, at its start; empty when counting failed (the reason on stderr)
count_loops() { # binary disassembly name
	local l
	l=$(loops_of "$2" "$3")
	[ -n "$l" ] || return 0
	local latches
	latches=$(printf '%s\n' "$l" | awk '{ print $2 }' | sort -u | tr '\n' ' ')
	local counts
	# shellcheck disable=SC2086
	if ! counts=$("$1" --count "$3" $latches 2>"$work/count.err"); then
		echo "$prog: counting the loops of k_$3 ($1) failed: $(head -n 1 "$work/count.err")" >&2
		return 0
	fi
	awk "$awk_hex"'
		NR == FNR { hits[$1] = $2; next }
		{ s = $1; e = hex($3); h[s] += hits[$2]
		  if (!(s in end) || e > end[s]) end[s] = e
		  if (!(s in seen)) { seen[s] = 1; order[++n] = s } }
		END { for (i = 1; i <= n; i++) { s = order[i]
			printf "%s0x%s-0x%x:%d", (i > 1 ? ";" : ""), s, end[s], h[s] } }' \
		<(printf '%s\n' "$counts") <(printf '%s\n' "$l")
}

bin_id() { sha256sum "$1" | cut -c1-16; }

declare -A text_vma=() text_off=()
for b in "${builds[@]}"; do
	objdump -d --no-show-raw-insn "$bin/compiled-$b" >"$work/dis-$b.txt" ||
		die "objdump cannot disassemble $bin/compiled-$b"
	read -r "text_vma[$b]" "text_off[$b]" < <(objdump -h "$bin/compiled-$b" | awk '$2 == ".text" { print $4, $6 }')
done

# ---------------------------------------------------------------- measure
# meas_* [build/kernel]: the measurement columns
declare -A m_val=() m_spread=() m_cpc=() m_iters=() m_samples=() m_cpu=() m_id=() m_loops=() m_data=()
if [ -n "$measured" ]; then
	echo "$prog: measurements from $measured (not timed here)" >&2
	# by the header's column names
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		function f(name) { return (name in col) && col[name] <= NF ? $(col[name]) : "n/a" }
		{ print f("kernel") "\t" f("build") "\t" f("measured_cycles_per_iter") "\t" f("spread_pct") "\t" \
			f("cycles_per_call") "\t" f("inner_iters") "\t" f("samples") "\t" f("cpu") "\t" \
			f("bin_id") "\t" f("loops") "\t" f("data") }' "$measured" >"$work/measured.tsv"
	while IFS=$'\t' read -r n b v s c it sm cp id lp d; do
		k=$b/$n
		m_val[$k]=$v m_spread[$k]=$s m_cpc[$k]=$c m_iters[$k]=$it m_samples[$k]=$sm
		m_cpu[$k]=$cp m_id[$k]=$id m_loops[$k]=$lp m_data[$k]=$d
	done <"$work/measured.tsv"
	# the binaries predicted should be those measured
	for b in "${builds[@]}"; do
		id=$(bin_id "$bin/compiled-$b")
		other=$(awk -F'\t' -v b="$b" -v id="$id" '$2 == b && $9 != id { print $9; exit }' "$work/measured.tsv")
		[ -z "$other" ] || echo "$prog: warning: $bin/compiled-$b is not the binary that was measured (id $id, the CSV's $other): gus predicts code that may differ from the code timed (copy the measuring machine's \$BENCH_OUT/bin and pass --binaries); its loops are counted here" >&2
	done
else
	cargs=(--samples "$samples")
	[ -z "$cpu" ] || cargs+=(--cpu "$cpu")
	echo "$prog: measuring ${#names[@]} kernels x ${#builds[@]} builds on $host_name" >&2
	for b in "${builds[@]}"; do
		"$bin/compiled-$b" --measure "${cargs[@]}" "${names[@]}" >"$work/measure-$b.tsv" ||
			die "timing the $b build failed"
		sed -n "s/^# /# $b: /p" "$work/measure-$b.tsv" >&2
	done
	echo "$prog: counting the iterations of each loop (ptrace)" >&2
	for b in "${builds[@]}"; do
		id=$(bin_id "$bin/compiled-$b")
		while IFS=$'\t' read -r n v s c it sm _; do
			case $n in '#'*) continue ;; esac
			k=$b/$n
			m_val[$k]=$v m_spread[$k]=$s m_cpc[$k]=$c m_iters[$k]=$it m_samples[$k]=$sm
			m_cpu[$k]=$host_cpu m_id[$k]=$id m_data[$k]=${kdata[$n]}
			m_loops[$k]=$(count_loops "$bin/compiled-$b" "$work/dis-$b.txt" "$n")
		done <"$work/measure-$b.tsv"
	done
fi

# ---------------------------------------------------------------- predict
have_gus=0 have_trace=0 have_mca=0
LLVM_MCA=${LLVM_MCA:-$(command -v llvm-mca || command -v llvm-mca-14 || echo llvm-mca)}
LLVM_MC=${LLVM_MC:-$(command -v llvm-mc || command -v llvm-mc-14 || echo llvm-mc)}
if [ $measure_only = 0 ]; then
	if [ -x "$GUS" ]; then
		skipped gus-static || have_gus=1
		skipped gus-traced || have_trace=1
	else
		echo "$prog: no gus binary at $GUS (set GUS=): the gus columns are n/a" >&2
	fi
	if ! skipped llvm-mca; then
		if command -v "$LLVM_MCA" >/dev/null 2>&1 && command -v "$LLVM_MC" >/dev/null 2>&1; then
			have_mca=1
		else
			echo "$prog: no $LLVM_MCA or $LLVM_MC: the llvm-mca column is n/a" >&2
		fi
	fi
	# the machine model of the CPU that measured
	mcpu=$host_cpu
	if [ -n "$measured" ]; then
		mcpu=$(awk -F'\t' '$8 != "" && $8 != "n/a" { print $8; exit }' "$work/measured.tsv")
	fi
	case $mcpu in
	6-143 | 6-207) default_arch="--arch spr" ;;
	6-106 | 6-108) default_arch="--arch icx" ;;
	6-85) default_arch="--arch skx" ;;
	*) default_arch="" ;;
	esac
	GUS_SIM_ARGS=${GUS_SIM_ARGS-$default_arch}
	# shellcheck disable=SC2086
	$CC $cflags -O2 -o "$work/jsonnum" "$here/../jsonnum.c" || die "cannot build jsonnum"
	# what the kernel spends per iteration of gus's loop: the loop's time
	# with the code around it that gus simulated (the parent loop, the
	# traced function), as the timing measures the whole kernel; a gus
	# without that field gives the loop's own
	# the prediction is the base configuration's cycles: the traced runs
	# (long streams) skip the sensitivity sweep but for one configuration
	sweep_args="--weights 1 --resources INST_LAT --no-search"
	# gus sim --data-in (gus from 2026-11-26 on): static predictions are
	# given the kernel's data level
	static_data=
	if "$GUS" sim --help 2>&1 | grep -q -- --data-in; then
		static_data=1
	fi
	# gus sim --ptrace-window (gus from 2026-11-27 on): single-stepped
	# kernels are traced whole, not their first 20000 instructions
	window_args=
	if "$GUS" sim --help 2>&1 | grep -q -- --ptrace-window; then
		window_args="--ptrace-window $TRACE_WINDOW"
	fi
	gus_cpi() {
		"$work/jsonnum" stream_cycles_per_iteration <"$1" 2>/dev/null ||
			"$work/jsonnum" cycles_per_iteration <"$1"
	}
fi
# shellcheck disable=SC2086
$CC $cflags -O2 -o "$work/report" "$here/report.c" -lm || die "cannot build report"

# the chosen loop of a gus JSON output: "0xSTART 0xEND" (link-time)
loop_range() {
	sed -n 's/^  "loop_choice": "\(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1 \2/p' "$1" | head -n 1
}
# hits of loop START (an offset, 0x...) in a loops string
loop_hits() { # loops start
	printf '%s\n' "$1" | tr ';' '\n' | awk -F'[-:]' -v s="$2" '$1 == s { print $3; exit }'
}
mca_total() { # iterations file
	"$LLVM_MCA" -mcpu="$MCA_CPU" -iterations="$1" "$2" 2>/dev/null |
		sed -n 's/^Total Cycles:[[:space:]]*\([0-9]*\).*/\1/p'
}

declare -A local_loops=()
# hits per call of the loop at offset $1 of kernel $n in build $b: counted
# here (once per kernel and build; sets local_loops, so not in $(...)):
# the counts do not depend on the machine, and a CSV of an older run.sh
# counted a loop with several latches at one; the measurement's counts
# ($lp, when they are of this binary) when counting fails here
hits=
hits_of() { # start-offset
	if [ -z "${local_loops[$k]+set}" ]; then
		local_loops[$k]=$(count_loops "$exe" "$work/dis-$b.txt" "$n")
	fi
	hits=$(loop_hits "${local_loops[$k]}" "$1")
	[ -n "$hits" ] || hits=$(loop_hits "$lp" "$1")
	hits=${hits:--}
}
fails=()
printf '# kernel\tbuild\tdata\tmeasured\tiqr\tcpc\titers\tsamples\tcpu\tbin_id\tloops\tgs\tgs_loop\tgs_hits\tgt\tgt_loop\tgt_hits\tmca\tgt_stream\n' \
	>"$work/combined.tsv"
[ $measure_only = 1 ] || echo "$prog: predicting (gus ${GUS_SIM_ARGS:-with its default model}, llvm-mca -mcpu=$MCA_CPU)" >&2
for b in "${builds[@]}"; do
	exe=$bin/compiled-$b
	id=$(bin_id "$exe")
	for n in "${names[@]}"; do
		k=$b/$n
		v=${m_val[$k]:-n/a}
		if [ -n "$measured" ] && [ -z "${m_val[$k]:-}" ]; then
			v=not-in-csv
		fi
		gs=n/a gsl=- gsh=- gt=n/a gtl=- gth=- gts=- mc=n/a
		if [ $measure_only = 0 ]; then
			fstart=$(nm "$exe" | awk -v s="k_$n" '$3 == s { print $1; exit }')
			[ -n "$fstart" ] || die "no symbol k_$n in $exe"
			fstart=$((16#$fstart))
			# the loop counts of this very binary: from the measurement,
			# else counted here
			lp=
			if [ "${m_id[$k]:-}" = "$id" ]; then
				lp=${m_loops[$k]:-}
			fi
			iters=${m_iters[$k]:-}
			case $iters in '' | n/a) iters=${kiters[$n]} ;; esac
			if [ -n "${m_iters[$k]:-}" ] && [ "${m_iters[$k]}" != n/a ] &&
			   [ "${m_iters[$k]}" != "${kiters[$n]}" ]; then
				echo "$prog: $k: the CSV's innermost iterations (${m_iters[$k]}) are not this kernels.c's (${kiters[$n]})" >&2
			fi
			base=$work/p/$b-$n
			if [ $have_gus = 1 ]; then
				# shellcheck disable=SC2086
				# statically, told where the kernel's data lives (the
				# kernel table's column), as an ECM-style prediction is
				if timeout "$GUS_TIMEOUT" "$GUS" sim --bin "$exe" --function "k_$n" --json $GUS_SIM_ARGS \
					${static_data:+--data-in "${kdata[$n]}"} \
					>"$base.static.json" 2>"$base.static.err" &&
				   x=$(gus_cpi "$base.static.json"); then
					gs=$x
					ls='' le=''
					read -r ls le < <(loop_range "$base.static.json") || true
					if [ -n "$ls" ]; then
						gsl=$(printf '0x%x-0x%x' $((ls - fstart)) $((le - fstart)))
						hits_of "$(printf '0x%x' $((ls - fstart)))"
						gsh=$hits
					fi
				else
					fails+=("gus static, $k: $(head -n 1 "$base.static.err" | cut -c1-200)")
				fi
			fi
			if [ $have_trace = 1 ]; then
				# under QEMU; gus goes native (ptrace) by itself when QEMU
				# dies of an instruction it lacks (AVX-512) before the
				# kernel, and here when it dies after it (the run fails)
				ok=0
				for how in --qemu --ptrace; do
					# shellcheck disable=SC2086
					if timeout "$GUS_TIMEOUT" "$GUS" sim --trace $how --function "k_$n" --json \
						--max-insns "$TRACE_INSNS" $window_args $GUS_SIM_ARGS $sweep_args \
						-- "$exe" "$n" "$TRACE_CALLS" \
						>"$base.trace.json" 2>"$base.trace.err" &&
					   x=$(gus_cpi "$base.trace.json"); then
						ok=1
						break
					fi
					if [ $how != --qemu ] || ! grep -q 'Illegal instruction' "$base.trace.err"; then
						break
					fi
					mv "$base.trace.err" "$base.trace-qemu.err"
				done
				if [ $ok = 1 ]; then
					gt=$x
					case $(sed -n 's/^  "stream": "//p' "$base.trace.json") in
					QEMU*) gts=qemu ;;
					*ptrace*) gts=ptrace ;;
					*) gts=other ;;
					esac
					ls='' le=''
					read -r ls le < <(loop_range "$base.trace.json") || true
					if [ -n "$ls" ]; then
						gtl=$(printf '0x%x-0x%x' $((ls - fstart)) $((le - fstart)))
						hits_of "$(printf '0x%x' $((ls - fstart)))"
						gth=$hits
					fi
				else
					why=$(grep -v 'warning' "$base.trace.err" | head -n 1 | cut -c1-200)
					[ -n "$why" ] || why=$(tail -n 1 "$base.trace.err" | cut -c1-200)
					[ -n "$why" ] || why="no cycles_per_iteration in the output"
					fails+=("gus traced, $k: $why")
				fi
			fi
			if [ $have_mca = 1 ] && [ "$gsl" != - ]; then
				# the static loop's bytes, from the file
				s=$((fstart + ${gsl%-*}))
				e=$((fstart + ${gsl#*-}))
				foff=$((s - 16#${text_vma[$b]} + 16#${text_off[$b]}))
				hex=$(tail -c +$((foff + 1)) "$exe" | head -c $((e - s)) | od -An -v -tx1 | tr -d ' \n')
				src=$base.mca.s
				printf '%s\n' "$hex" | sed 's/../0x& /g' |
					"$LLVM_MC" --disassemble -triple=x86_64-unknown-linux-gnu -mcpu="$MCA_CPU" \
					>"$src" 2>"$base.mc.err" || true
				c1=$(mca_total "$MCA_ITERS" "$src")
				c2=$(mca_total "$((2 * MCA_ITERS))" "$src")
				if [ -n "$c1" ] && [ -n "$c2" ]; then
					mc=$(awk -v a="$c1" -v b="$c2" -v n="$MCA_ITERS" 'BEGIN { printf "%.4f", (b - a) / n }')
				else
					fails+=("llvm-mca, $k: $(head -n 1 "$base.mc.err" | cut -c1-200)")
				fi
			fi
		fi
		lpv=${m_loops[$k]:-}
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"$n" "$b" "${m_data[$k]:-${kdata[$n]}}" "$v" "${m_spread[$k]:-}" "${m_cpc[$k]:-}" \
			"${m_iters[$k]:-${kiters[$n]}}" "${m_samples[$k]:-}" "${m_cpu[$k]:-}" "${m_id[$k]:-$id}" \
			"${lpv:-n/a}" "$gs" "$gsl" "$gsh" "$gt" "$gtl" "$gth" "$mc" "$gts" >>"$work/combined.tsv"
	done
done

{
	if [ -n "$measured" ]; then
		echo "# measured: taken from $measured (cpu ${mcpu:-n/a}); predicted on $host_name"
	else
		echo "# measured here: $host_name (cpu $host_cpu)"
		for b in "${builds[@]}"; do sed -n "s/^# /# $b: /p" "$work/measure-$b.tsv"; done
	fi
	echo "# binaries: $bin"
	if [ $measure_only = 0 ]; then
		echo "# gus: $GUS sim ${GUS_SIM_ARGS:-(default model)}; traced: --trace --qemu --max-insns $TRACE_INSNS --ptrace-window $TRACE_WINDOW, $TRACE_CALLS calls"
		echo "# llvm-mca: $LLVM_MCA -mcpu=$MCA_CPU, (cycles($((2 * MCA_ITERS))) - cycles($MCA_ITERS)) / $MCA_ITERS on gus's static loop"
		for f in "${fails[@]}"; do echo "# failed: $f"; done
	fi
	echo
	"$work/report" "$work/combined.tsv" "$csv"
} | tee "$BENCH_OUT/report.txt"
echo "$prog: CSV in $csv, report in $BENCH_OUT/report.txt, binaries in $bin" >&2
