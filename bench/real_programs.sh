#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gus record and gus report on real programs, next to the programs' own
# runs, plain QEMU and perf record (issue 33's table).
#
# Each program runs natively, under plain qemu-x86_64, under gus record,
# under gus record --no-trace (run 1 alone: the samples and what is read
# after them), under perf record (cpu-clock, perf's default frequency); its recording
# is reported twice: the first report (--no-cache: every region
# simulated) and a cached one. Each measurement is the median of RUNS
# (default 3) runs, the kinds alternating within each round, since a
# shared machine's speed drifts between runs more than some of the costs
# measured; the ratios are to the native run's median. With
# GUS_BASELINE=PATH (another gus, say the one before a change) each first
# report is also timed with it, on the same recording, in a column of its
# own.
#
# The programs: xz -6 and gzip -9 on generated text, pigz -p2 -9 on it,
# sort --parallel=2 on its lines, python3 on a loop, sqlite3 on a script
# (a table filled, indexed and queried), and a C++ program (cxx_work.cpp
# beside this script: std::sort and a matrix product), built with g++
# -O2 -g. SCALE (default 1) sizes the inputs: at 1 each runs about a
# second natively on a 2-core VM (4 MB of text).
#
# Needs: bash, qemu-x86_64 (qemu-user), perf (linux-perf), xz-utils,
# gzip, pigz, sqlite3, python3, g++, coreutils, awk, and a gus built with
# its QEMU plugin (GUS_QEMU_PLUGIN, or the build tree's). None of these is
# in scripts/install-deps.sh but what the tests need (pigz and sqlite3's
# shell are not: apt-get install pigz sqlite3).
#
# With CPU=1 each measurement is the CPU time (user + system, the
# command's children included, GNU time's %U and %S: /usr/bin/time,
# Debian package time) instead of the elapsed time: on a machine other
# work shares, the elapsed time of a run says more about the others.
#
# usage: bench/real_programs.sh [GUS [RUNS]]   (GUS default: gus on PATH)
#        ONLY="xz gzip" bench/real_programs.sh ...   (a subset, by name)
#        CPU=1 bench/real_programs.sh ...   (CPU seconds)
set -u
here=$(cd "$(dirname "$0")" && pwd)
gus=${1:-gus}
runs=${2:-3}
scale=${SCALE:-1}
base=${GUS_BASELINE:-}
only=${ONLY:-}
cpu=${CPU:-}
if [ -n "$cpu" ] && ! [ -x /usr/bin/time ]; then
	echo "real_programs.sh: CPU=1 needs GNU time as /usr/bin/time" >&2
	exit 2
fi
command -v "$gus" >/dev/null 2>&1 || { echo "real_programs.sh: $gus: not found" >&2; exit 2; }
for p in qemu-x86_64 perf xz gzip pigz sqlite3 g++ sort; do
	command -v "$p" >/dev/null 2>&1 || { echo "real_programs.sh: $p is needed (see the comment at the top)" >&2; exit 2; }
done
# the interpreter itself, not a wrapper script (pyenv's shims are bash)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2

now() { date +%s.%N; }
median() {
	case " $* " in *" fail "*) echo fail; return ;; esac
	printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
# seconds COMMAND...: how long it ran, or "fail" (its output in $tmp/last.err)
seconds() {
	local t0 t1
	if [ -n "$cpu" ]; then
		if ! /usr/bin/time -f '%U %S' -o "$tmp/last.time" "$@" >/dev/null 2>"$tmp/last.err" </dev/null; then
			echo fail
			return
		fi
		awk '{s = $1 + $2} END {print s}' "$tmp/last.time"
		return
	fi
	t0=$(now)
	if ! "$@" >/dev/null 2>"$tmp/last.err" </dev/null; then
		echo fail
		return
	fi
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}

# ------------------------------------------------------------- the inputs --
mb=$(awk -v s="$scale" 'BEGIN {printf "%d", 4 * s * 1048576}')
# words drawn from a fixed list by a fixed generator: text that compresses
# like prose, the same on every run
awk -v bytes="$mb" 'BEGIN {
	n = split("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three", w, " ")
	srand(42)
	while (done < bytes) {
		line = ""
		k = 6 + int(rand() * 10)
		for (i = 0; i < k; i++)
			line = line (i ? " " : "") w[1 + int(rand() * n)]
		print line
		done += length(line) + 1
	}
}' >text
printf 'def f(n):\n    s = 0\n    for i in range(n):\n        s += i * i %% 7\n    return s\nprint(f(%d))\n' \
	"$(awk -v s="$scale" 'BEGIN {printf "%d", 3000000 * s}')" >loop.py
rows=$(awk -v s="$scale" 'BEGIN {printf "%d", 300000 * s}')
cat >script.sql <<EOF
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < $rows)
	insert into t select x, hex(randomblob(8)) from c;
create index tb on t(b);
select count(*), sum(length(b)) from t where b like '%AB%';
select count(*) from t a join t b on a.a = b.a + 1 where a.b < b.b;
select b from t order by b limit 3;
EOF
g++ -O2 -g -o cxx_work "$here/cxx_work.cpp" || exit 2
cxx_scale=$scale

# ------------------------------------------------------------ the programs --
# name, then the command (programs by path: qemu-x86_64 does not search PATH)
programs=(
	"xz|$(command -v xz) -6 -c -T1 text"
	"python3|$py loop.py"
	"sqlite3|$(command -v sqlite3) -batch -init script.sql :memory: .quit"
	"c++|$tmp/cxx_work $cxx_scale"
	"sort|$(command -v sort) --parallel=2 -S 64M text"
	"pigz|$(command -v pigz) -p2 -9 -c text"
	"gzip|$(command -v gzip) -9 -c text"
)

echo "# bench/real_programs.sh: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; SCALE $scale, median of $runs${cpu:+, CPU seconds (user + system)}"
echo "# gus: $(command -v "$gus")${base:+; baseline: $base}"
printf '%-8s %9s %8s %9s %10s %9s %10s %9s' program "native s" "QEMU x" "record x" "report s" "cached s" "no-trace x" "perf x"
[ -n "$base" ] && printf ' %12s' "baseline s"
printf '\n'
ratio() { [ "$1" = fail ] || [ "$2" = fail ] && { echo fail; return; }; awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
fmt() { [ "$1" = fail ] && { echo fail; return; }; awk -v a="$1" "BEGIN {printf \"$2\", a}"; }
for entry in "${programs[@]}"; do
	name=${entry%%|*}
	read -r -a cmd <<<"${entry#*|}"
	if [ -n "$only" ] && ! [[ " $only " == *" $name "* ]]; then
		continue
	fi
	nat=() qem=() rec=() rep=() cac=() ntr=() prf=() bas=()
	for ((i = 0; i < runs; i++)); do
		nat+=("$(seconds "${cmd[@]}")")
		qem+=("$(seconds qemu-x86_64 "${cmd[@]}")")
		rm -f r.data r.data.old
		rec+=("$(seconds "$gus" record -q -o r.data -- "${cmd[@]}")")
		[ "${rec[-1]}" = fail ] && { sed 's/^/# gus record failed: /' last.err | head -3; }
		if [ -n "$base" ]; then
			cp r.data b.data
			bas+=("$(seconds "$base" report -q -i b.data --no-cache)")
		fi
		rep+=("$(seconds "$gus" report -q -i r.data --no-cache)")
		cac+=("$(seconds "$gus" report -q -i r.data)")
		rm -f n.data n.data.old
		ntr+=("$(seconds "$gus" record -q --no-trace -o n.data -- "${cmd[@]}")")
		prf+=("$(seconds perf record -q -e cpu-clock -o p.data -- "${cmd[@]}")")
	done
	n=$(median "${nat[@]}")
	printf '%-8s %9s %8s %9s %10s %9s %10s %9s' "$name" "$(fmt "$n" %.2f)" "$(ratio "$(median "${qem[@]}")" "$n")" \
		"$(ratio "$(median "${rec[@]}")" "$n")" "$(fmt "$(median "${rep[@]}")" %.2f)" \
		"$(fmt "$(median "${cac[@]}")" %.3f)" "$(ratio "$(median "${ntr[@]}")" "$n")" \
		"$(ratio "$(median "${prf[@]}")" "$n")"
	[ -n "$base" ] && printf ' %12s' "$(fmt "$(median "${bas[@]}")" %.2f)"
	printf '\n'
done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
