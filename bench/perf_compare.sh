#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus's hot functions against perf's: perf record samples one run of the
# program (cpu-clock, as gus does without a PMU), gus record another of the
# same command, and the shares of gus's function regions are set beside
# what perf report gives for the same code: perf's named symbols by name,
# its raw addresses (code without a symbol) summed into gus's FDE-bounded
# functions. (perf 6.1 aborts in its build-id code when it samples gus
# itself on Linux 6.18, so the two do not share one run.)
#
#   bench/perf_compare.sh NAME COMM -- PROGRAM ARGS...
#
# prints NAME, then per gus function region: gus share, perf share, name.
# GUS names the gus binary (default: gus in PATH). Needs perf, sqlite3, gawk.
set -eu
name=$1 comm=$2
shift 3
GUS=${GUS:-gus}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
perf record -q -e cpu-clock -F 4000 -o "$out/perf.data" -- "$@" >/dev/null 2>&1
"$GUS" record -q --tracer none -o "$out/gus.data" -- "$@" >/dev/null 2>&1
# perf's shares within the program's own processes (relative to them)
perf report -i "$out/perf.data" --comm "$comm" --percentage relative --sort dso,sym --stdio \
	-F overhead,dso,sym 2>/dev/null | awk '/^ +[0-9.]+%/ { p=$1; sub("%","",p); dso=$2; $1=""; $2=""; sub(/^ +/,""); sub(/^\[\.\] /,""); print p "\t" dso "\t" $0 }' >"$out/perf.tsv"
sqlite3 -separator '	' "$out/gus.data" \
	"select share*100, file, name, start, end from regions where kind='function' order by rank" >"$out/gus.tsv"
# perf shows an address without a symbol as its file offset; gus's regions
# are link-time addresses: the executable segment's vaddr - offset apart
# (0x400000 in a non-PIE program such as Debian's python3.11, 0 in most
# PIE programs and libraries)
cut -f2 "$out/gus.tsv" | sort -u | while IFS= read -r f; do
	[ -r "$f" ] || continue
	printf '%s\t%s\n' "$f" "$(readelf -lW "$f" 2>/dev/null |
		gawk '$1 == "LOAD" && / E / { print strtonum($3) - strtonum($2); exit }')"
done >"$out/shift.tsv"
echo "== $name"
gawk -F'\t' '
FILENAME ~ /shift.tsv$/ { shift[$1] = $2 + 0; next }
FILENAME ~ /perf.tsv$/ { pshare[FNR] = $1; pdso[FNR] = $2; psym[FNR] = $3; np = FNR; next }
{
	g = $1; file = $2; gname = $3; start = $4 + 0; end = $5 + 0
	n = split(file, parts, "/"); base = parts[n]
	p = 0
	for (i = 1; i <= np; i++) {
		if (pdso[i] != base) continue
		s = psym[i]
		if (s ~ /^0x[0-9a-f]+$/) {
			a = strtonum(s) + shift[file]
			if (a >= start && a < end) p += pshare[i]
		} else if (s == gname) p += pshare[i]
	}
	printf "  gus %5.1f%%  perf %5.1f%%  %s\n", g, p, gname
}' "$out/shift.tsv" "$out/perf.tsv" "$out/gus.tsv"
