#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus import and gus report -i perf.data: recordings perf makes here
# (cpu-clock -g on the bundled workload callers, file and pipe mode)
# against perf report's own shares and callers; the perf.data files of real
# machines in tests/fixtures/perf-data against perf report --stat and what
# they lack (lost samples, objects, damage); bad input.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
FIX="$TESTDIR/fixtures/perf-data"

skip() {	# skip DESCRIPTION REASON
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# "NAME events: N" lines of perf report --stat or gus import --stat, up to
# the first event's own stats, without perf's percentages
stat_lines() {
	sed -n '/^Aggregated/d; /events:/p; /stats:$/q' | sed -E 's/\([ 0-9.]+%\)//; s/^ +//; s/ +$//; s/ +/ /g'
}
# the SAMPLE counts of each event's stats, in order
event_samples() {
	sed -n '/stats:$/,$p' | grep 'SAMPLE events' | sed -E 's/.*: +//' | tr '\n' ' '
}

# ------------------------------------------------------------- fixtures ---
# perf report --stat of perf 6.1 on each file (perf cannot read the two
# that have none: it stops at the damage and at the undecodable trace)
expect() {	# expect FILE 'LINE|LINE...' 'SAMPLES PER EVENT'
	f=$FIX/$1
	got=$("$GUS" import --stat "$f" 2>"$TMP/stat.err" | stat_lines | tr '\n' '|')
	want=$(printf '%s|' "$2" | tr '|' '\n' | sed '/^$/d' | tr '\n' '|')
	if [ "$got" = "$want" ]; then ok 0 "$1: records by type as perf report --stat counts them"
	else ok 1 "$1: records by type as perf report --stat counts them"; echo "#   got  $got"; echo "#   want $want"; fi
	if [ -n "$3" ]; then
		got=$("$GUS" import --stat "$f" 2>/dev/null | event_samples)
		check_contains "[$got]" "[$3 ]" "$1: samples of each event"
	fi
	# and perf itself, where it is here and reads the file
	if command -v perf >/dev/null 2>&1 && perf report --stat -i "$f" >"$TMP/perf.stat" 2>/dev/null &&
	   grep -q 'TOTAL events' "$TMP/perf.stat"; then
		pgot=$(stat_lines <"$TMP/perf.stat" | tr '\n' '|')
		if [ "$pgot" = "$want" ]; then ok 0 "$1: perf report --stat here says the same"
		else ok 1 "$1: perf report --stat here says the same"; echo "#   perf $pgot"; fi
	fi
}
expect perf.data.callgraph-3.8 'TOTAL events: 3798|MMAP events: 1793|COMM events: 229|EXIT events: 6|FORK events: 2|SAMPLE events: 1768' '1768'
expect perf.data.group_desc-4.14 'TOTAL events: 50|MMAP events: 21|COMM events: 3|EXIT events: 1|SAMPLE events: 13|MMAP2 events: 10|FINISHED_ROUND events: 1|TIME_CONV events: 1' '7 6'
expect perf.data.intel_pt-4.14 'TOTAL events: 257|MMAP events: 56|COMM events: 3|EXIT events: 1|SAMPLE events: 15|MMAP2 events: 10|AUX events: 10|ITRACE_START events: 2|SWITCH_CPU_WIDE events: 152|FINISHED_ROUND events: 4|AUXTRACE_INFO events: 1|AUXTRACE events: 2|TIME_CONV events: 1' '15'
expect perf.data.lost_samples-4.4 'TOTAL events: 243|MMAP events: 39|COMM events: 3|EXIT events: 1|SAMPLE events: 191|MMAP2 events: 6|LOST_SAMPLES events: 2|FINISHED_ROUND events: 1' '97 80 14'
expect perf.data.piped.header_features_aligned-6.12 'TOTAL events: 45|COMM events: 2|EXIT events: 1|SAMPLE events: 9|MMAP2 events: 4|ATTR events: 1|FINISHED_ROUND events: 1|ID_INDEX events: 1|THREAD_MAP events: 1|CPU_MAP events: 1|EVENT_UPDATE events: 2|TIME_CONV events: 1|FEATURE events: 20|FINISHED_INIT events: 1' '9'
expect perf.data.piped.intel_pt-4.14 'TOTAL events: 667|MMAP events: 56|COMM events: 3|EXIT events: 1|SAMPLE events: 11|MMAP2 events: 10|AUX events: 8|ITRACE_START events: 2|SWITCH_CPU_WIDE events: 552|ATTR events: 4|FINISHED_ROUND events: 4|AUXTRACE_INFO events: 1|AUXTRACE events: 2|TIME_CONV events: 1|FEATURE events: 12' ''

# Intel PT: the AUX data split into packets by libipt's packet decoder,
# as perf report -D dumps them
out=$("$GUS" import --stat "$FIX/perf.data.intel_pt-4.14" | grep '^Intel PT:')
check_contains "$out" "Intel PT: 86631 packets in 149968 bytes (0 bytes of no packet, 0 cut at a record's end)" \
	"intel_pt-4.14: its AUX data in 86631 packets"
got=$(printf '%s\n' "${out#*: }" | sed 's/^[^)]*)://' | tr ' ' '\n' | sed '/^$/d' | paste -d' ' - - | sort | tr '\n' '|')
want='CBR 24|FUP 149|MODE.Exec 18|MODE.TSX 16|MTC 2802|PAD 1538|PIP 441|PSB 10|PSBEND 10|TIP 12039|TIP.PGD 10|TIP.PGE 10|TMA 24|TNT 69516|TSC 24|'
if [ "$got" = "$want" ]; then ok 0 "intel_pt-4.14: packets of each kind as perf report -D (6.1) dumps them"
else ok 1 "intel_pt-4.14: packets of each kind as perf report -D (6.1) dumps them"; echo "#   got $got"; fi
if command -v perf >/dev/null 2>&1; then
	pgot=$(perf report -D -i "$FIX/perf.data.intel_pt-4.14" 2>/dev/null | grep -E '^\.  [0-9a-f]{8}:  ' |
		sed -E 's/^\.  [0-9a-f]{8}:  (([0-9a-f]{2} )+) *//' | awk '{ print $1 }' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort | tr '\n' '|')
	if [ "$pgot" = "$got" ]; then ok 0 "intel_pt-4.14: perf report -D here dumps the same packets"
	else ok 1 "intel_pt-4.14: perf report -D here dumps the same packets"; echo "#   perf $pgot"; fi
fi

# the damaged pipe-mode file: its damage, and what was read before it
out=$("$GUS" import --stat "$FIX/perf.data.piped.corrupted.zero_size_sample-3.2" 2>&1); st=$?
check_status $st 1 "--stat of the damaged file exits 1"
check_contains "$out" "a SAMPLE record of size 0 at 0xbfd0" "the damage said with its record and offset"
check_contains "$(printf '%s\n' "$out" | stat_lines | tr '\n' '|')" "TOTAL events: 570|MMAP events: 468|COMM events: 100|" \
	"what perf report -D prints before its 'bad event header size'"
out=$("$GUS" import -q -o "$TMP/zero.data" "$FIX/perf.data.piped.corrupted.zero_size_sample-3.2" 2>&1); st=$?
check_status $st 0 "the damaged file imports what it holds"
check_contains "$out" "warning: " "its damage is a warning"
out=$("$GUS" report -q -i "$TMP/zero.data" 2>&1)
check_contains "$out" "# missing samples: the perf.data is damaged: a SAMPLE record of size 0 at 0xbfd0" \
	"the report says the damage"

# every file imports; the facts the report shows
for f in callgraph-3.8 group_desc-4.14 intel_pt-4.14 lost_samples-4.4 piped.header_features_aligned-6.12 piped.intel_pt-4.14; do
	"$GUS" import -q -o "$TMP/$f.data" "$FIX/perf.data.$f" 2>"$TMP/$f.err"
	check_status $? 0 "perf.data.$f imports"
done
out=$("$GUS" report -q -i "$TMP/lost_samples-4.4.data" 2>&1)
check_contains "$out" "# missing samples: the kernel dropped 2 samples (LOST_SAMPLES records)" "lost samples said"
check_contains "$out" "taken for Haswell (client) (CPUID family 6, model 69, the perf.data's cpuid GenuineIntel,6,69,1)" \
	"the CPU is the perf.data's, not this machine's"
# perf report --sort sym on cycles:pp names these by address: 2.06 % each
check_contains "$(printf '%s\n' "$out" | grep 'ld-2.23.so+0xa18d')" "2.1%" "an object not here: its samples by path and offset"
check_contains "$(printf '%s\n' "$out" | grep 'libc-2.23.so+0x12bd80')" "2.1%" "... in each object"
check_contains "$(cat "$TMP/lost_samples-4.4.err")" "perf buildid-list" "the missing objects said with how to get them"
check_contains "$(cat "$TMP/lost_samples-4.4.err")" "fbfced183a751237f751009c9cecfec1161a427f" "... and their build-ids"
out=$("$GUS" report -q -i "$TMP/intel_pt-4.14.data" 2>&1)
check_contains "$out" "Intel PT (149968 bytes in 2 AUXTRACE records), the code of these objects cannot be decoded, they are not here: /usr/bin/coreutils build-id c0a88cf4408ddef75343a69e41602f4d3de34e68" \
	"Intel PT's AUX data said, with the objects its code needs"
check_contains "$out" "(none of the objects the program mapped is here: its trace could not be decoded at all)" \
	"... none here: its trace not decoded"
check_contains "$out" "no instruction stream: /lib64/ld-2.23.so is not here (build-id a3f83cd3799ef4149d3763cee54dd18b967b7ddb): its Intel PT cannot be decoded without its code" \
	"... and each region in them says why it has no stream"
check_contains "$out" "Skylake (client)" "Skylake's cpuid"
check_contains "$out" "# model: skx: Intel Skylake-SP" "its core model, the nearest to Skylake"
got=$($SQL "$TMP/callgraph-3.8.data" "select value from meta where key = 'missing.kernel_symbols'")
check_contains "$got" "recorded on another kernel (3.8.11; this machine runs" \
	"another kernel's samples: its kernel frames not named from this machine's, said why"
check_contains "$("$GUS" report -q -i "$TMP/callgraph-3.8.data" 2>/dev/null)" "# kernel: the kernel's frames are not named: the perf.data was recorded on another kernel" \
	"... and in the report's heading"
check_contains "$("$GUS" report -q -i "$TMP/callgraph-3.8.data" --json 2>/dev/null)" '"kernel_symbols": "the kernel' \
	"... and in the JSON's missing"
out=$("$GUS" report -q -i "$TMP/callgraph-3.8.data" --json 2>/dev/null)
check_contains "$out" '"objects": "10 of the 10 sampled objects are not here' "missing objects in the JSON"
out=$("$GUS" report -q -i "$TMP/callgraph-3.8.data" 2>/dev/null)
check_contains "$out" "# missing objects: 10 of the 10 sampled objects are not here, their samples named by path and file offset ('perf buildid-list -i perf.data.callgraph-3.8'" \
	"missing objects in the text, with how to get them"
out=$("$GUS" report -q -i "$TMP/piped.header_features_aligned-6.12.data" 2>&1)
check_contains "$(printf '%s\n' "$out" | grep 'libc.so.6+0xa00b0' | head -n 1)" "42.8%" \
	"another machine's libc without a build-id: not this one's (perf report names it by this one's symbols, 42.82 %)"

# the CPU is the perf.data's: the same file with an Ice Lake-SP's cpuid
# takes icx's core model and TMA table, which evaluate a perf stat -x, of
# an Ice Lake (--import-counts)
python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
a = b"GenuineIntel,6,78,3\0"
assert d.count(a) == 1
open(sys.argv[2], "wb").write(d.replace(a, b"GenuineIntel,6,106\0\0"))' "$FIX/perf.data.group_desc-4.14" "$TMP/icx.perf"
"$GUS" import -q -o "$TMP/icx.data" --import-counts "$TESTDIR/fixtures/perf-topdown-icx.csv" "$TMP/icx.perf" 2>/dev/null
check_status $? 0 "--import-counts: a perf stat -x, of the same run"
out=$("$GUS" report -q -i "$TMP/icx.data" 2>&1)
check_contains "$out" "taken for Ice Lake-SP (CPUID family 6, model 106" "an Ice Lake-SP's cpuid: taken for one"
check_contains "$out" "# model: icx: Intel Ice Lake-SP" "... its core model"
check_contains "$out" "Top-Down (TMA) for Ice Lake-SP (icx), levels 1-3, imported from" "... its TMA table, with the counts imported"
check_contains "$(printf '%s\n' "$out" | grep '^ *Backend_Bound')" "54.5" "... Backend Bound 54.5 %, as gus stat --import says"
check_lacks "$out" "missing counts" "... and no counts said missing"

# ------------------------------------------------------------- bad input ---
printf 'not a perf.data at all\n' >"$TMP/text.data"
out=$("$GUS" import -o "$TMP/x.data" "$TMP/text.data" 2>&1); st=$?
check_status $st 1 "a file that is not a perf.data: exit 1"
check_contains "$out" "not a perf.data" "... said"
{ printf '2ELIFREP'; tail -c +9 "$FIX/perf.data.group_desc-4.14"; } >"$TMP/be.data"
out=$("$GUS" import -o "$TMP/x.data" "$TMP/be.data" 2>&1); st=$?
check_status $st 1 "the other byte order: exit 1"
check_contains "$out" "other byte order" "... said"
out=$("$GUS" report -i "$TMP/be.data" 2>&1); st=$?
check_status $st 1 "gus report of the other byte order: exit 1"
check_contains "$out" "other byte order" "... said"
head -c 20000 "$FIX/perf.data.callgraph-3.8" >"$TMP/cut.data"
out=$("$GUS" import -q -o "$TMP/cut.gus" "$TMP/cut.data" 2>&1); st=$?
check_status $st 0 "a perf.data cut short imports what it holds"
check_contains "$out" "cut short" "... and says it was cut"
printf 'a file of someone\n' >"$TMP/theirs"
out=$("$GUS" import -q -o "$TMP/theirs" "$FIX/perf.data.group_desc-4.14" 2>&1); st=$?
check_status $st 1 "an output that is not a recording is not replaced"
check_contains "$(cat "$TMP/theirs")" "a file of someone" "... and is left as it was"
out=$("$GUS" import 2>&1); st=$?
check_status $st 2 "no perf.data: a usage error"
out=$("$GUS" import "$TMP/nothing-here" 2>&1); st=$?
check_status $st 1 "a perf.data that is not there: exit 1"
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$GUS" report -q -i "$FIX/perf.data.group_desc-4.14" >/dev/null 2>&1
check_status $? 0 "gus report -i perf.data"
check_status "$(ls -A "$TMP/tmpdir" | wc -l)" 0 "... leaves nothing in TMPDIR"

# ------------------------------------------------- perf recordings here ---
prog="$WORKLOADS/callers"
# --no-bpf-event: perf 6.1's BPF side-band thread waits out its 1 s poll at
# exit (perf record of `true` 1.13 s, 0.29 s without); BPF programs' names are
# not what these tests compare
if ! command -v perf >/dev/null 2>&1; then
	why="no perf (Debian's linux-perf)"
elif ! perf record -q --no-bpf-event -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1; then
	why="perf record -e cpu-clock is refused here (perf_event_paranoid)"
else
	why=
fi
# the share of each [.] symbol perf report gives (--no-children: self)
perf_shares() {	# perf_shares FILE -> "name share" lines
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		sed -nE 's/^ +([0-9.]+)% +\[\.\] (.*)$/\2 \1/p'
}
# a symbol's callers, as perf report -g caller lists them under it, as
# shares of the symbol's samples
perf_callers() {	# perf_callers FILE SYMBOL -> "name share" lines
	perf report -i "$1" --stdio --no-children --sort sym -g caller,0.5,callee,function,percent 2>/dev/null |
		awk -v sym="$2" '
			/^ +[0-9.]+%  \[/ { on = ($3 == sym); total = $1 + 0; next }
			on && /--[0-9.]+%--/ { match($0, /--[0-9.]+%--/); p = substr($0, RSTART + 2, RLENGTH - 5) + 0
				name = substr($0, RSTART + RLENGTH); printf "%s %.4f\n", name, p / total }'
}
# the regions and callers gus report gives, from its JSON
gus_regions() {	# gus_regions FILE -> "name share" lines of the function regions
	"$GUS" report -q -i "$1" --json 2>/dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["regions"]:
    if r["kind"] == "function" and " " not in r["name"]:
        print(r["name"], round(100 * r["share"], 4))'
}
gus_callers() {	# gus_callers FILE REGION -> "name share" lines
	"$GUS" report -q -i "$1" --json 2>/dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["regions"]:
    if r["kind"] == "function" and r["name"] == sys.argv[1]:
        for c in r["callers"] or []:
            print(c["name"], round(c["share"], 4))' "$2"
}
# every hot function (0.5 % or more) within 1 point of perf's share of its
# symbol, and every user symbol of 1 % or more of perf's among them
compare_shares() {	# compare_shares PERF.DATA GUS-INPUT WHAT
	perf_shares "$1" >"$TMP/perf.shares"
	gus_regions "$2" >"$TMP/gus.shares"
	bad=$(awk 'NR == FNR { p[$1] = $2; next }
		{ g[$1] = $2 }
		$2 >= 0.5 && (!($1 in p) || p[$1] - $2 > 1 || $2 - p[$1] > 1) { print "gus", $1, $2, ($1 in p) ? p[$1] : "absent" }
		END { for (s in p) if (p[s] >= 1 && !(s in g)) print "perf", s, p[s] }' \
		"$TMP/perf.shares" "$TMP/gus.shares")
	top=$(head -1 "$TMP/gus.shares")
	if [ -z "$bad" ] && [ "${top%% *}" = hot_chain ]; then ok 0 "$3: every hot function's share within 1 point of perf report --sort sym ($top)"
	else ok 1 "$3: every hot function's share within 1 point of perf report --sort sym"; echo "#   $bad"; echo "#   gus: $(tr '\n' '|' <"$TMP/gus.shares")"; fi
}
compare_callers() {	# compare_callers PERF.DATA GUS-INPUT WHAT
	perf_callers "$1" hot_chain | sort >"$TMP/perf.callers"
	# perf report hides call-graph entries under 0.5 % (its default
	# --percent-limit for chains); a sample caught in main's call of
	# hot_chain before its frame is up is such a caller (CI: 0.15 %)
	gus_callers "$2" hot_chain | awk '$2 >= 0.005' | sort >"$TMP/gus.callers"
	bad=$(join "$TMP/perf.callers" "$TMP/gus.callers" | awk '{ d = $2 - $3; if (d > 0.01 || d < -0.01) print }')
	names_p=$(cut -d' ' -f1 "$TMP/perf.callers" | tr '\n' ' ')
	names_g=$(cut -d' ' -f1 "$TMP/gus.callers" | tr '\n' ' ')
	if [ -z "$bad" ] && [ "$names_p" = "$names_g" ] && [ "$names_g" = "from_major from_minor " ]; then
		ok 0 "$3: hot_chain's callers and their shares as perf report -g caller ($(tr '\n' ' ' <"$TMP/gus.callers"))"
	else ok 1 "$3: hot_chain's callers as perf report -g caller"; echo "#   perf: $(tr '\n' '|' <"$TMP/perf.callers") gus: $(tr '\n' '|' <"$TMP/gus.callers")"; fi
}

# the shares of each event of a group read at the samples that perf report
# --group gives a symbol: "event share" lines, in the group's order
perf_group_shares() {	# perf_group_shares FILE SYMBOL EVENTS...
	f=$1 sym=$2
	shift 2
	perf report -i "$f" --stdio --group --sort sym 2>/dev/null |
		awk -v sym="$sym" '$0 ~ "\\] " sym "$" { for (i = 1; i <= NF && $i ~ /%$/; i++) print substr($i, 1, length($i) - 1) }' |
		paste -d' ' - /dev/null | head -n $# | { for e in "$@"; do read -r v rest; echo "$e $v"; done; }
}
# the same from gus: a region's count of each event over the whole run's
gus_group_shares() {	# gus_group_shares GUS.DATA REGION
	"$GUS" report -q -i "$1" --json 2>/dev/null | python3 -c '
import json, sqlite3, sys
total = dict(sqlite3.connect(sys.argv[1]).execute("select event, value from counts"))
for r in json.load(sys.stdin)["regions"]:
    if r["kind"] == "function" and r["name"] == sys.argv[2]:
        for c in r["counts"] or []:
            print(c["event"], round(100 * c["raw"] / total[c["event"]], 2))' "$1" "$2"
}

if [ -n "$why" ]; then
	skip "groups read at samples: each event's share of hot_chain as perf report --group" "$why"
	skip "groups read at samples: the count set" "$why"
else
	perf record -q --no-bpf-event -e '{cpu-clock,task-clock,page-faults}:S' -o "$TMP/group.perf" -- "$prog" 100000000 >/dev/null 2>&1
	"$GUS" import -q -o "$TMP/group.gus" "$TMP/group.perf" 2>/dev/null
	perf_group_shares "$TMP/group.perf" hot_chain cpu-clock task-clock page-faults >"$TMP/perf.group"
	gus_group_shares "$TMP/group.gus" hot_chain >"$TMP/gus.group"
	bad=$(join "$TMP/perf.group" "$TMP/gus.group" | awk '{ d = $2 - $3; if (d > 0.1 || d < -0.1) print }')
	if [ -z "$bad" ] && [ "$(wc -l <"$TMP/gus.group")" -eq 3 ] && [ "$(join "$TMP/perf.group" "$TMP/gus.group" | wc -l)" -eq 3 ]; then
		ok 0 "groups read at samples: each event's share of hot_chain as perf report --group ($(tr '\n' ' ' <"$TMP/gus.group"))"
	else ok 1 "groups read at samples: each event's share of hot_chain as perf report --group"
		echo "#   perf: $(tr '\n' '|' <"$TMP/perf.group") gus: $(tr '\n' '|' <"$TMP/gus.group")"; fi
	out=$("$GUS" report -q -i "$TMP/group.perf" 2>&1)
	check_contains "$out" "Counts (this region, " "groups read at samples: gus report -i perf.data shows the region's counts"
	check_lacks "$out" "missing counts" "groups read at samples: no counts said missing"
fi

if [ -n "$why" ]; then
	for t in "file mode: shares" "file mode: callers" "file mode: --stat" "file mode: gus report -i perf.data" \
		"pipe mode: shares" "pipe mode: callers" "pipe mode: --stat" "pipe mode: objects by inode"; do
		skip "$t" "$why"
	done
else
	# file mode
	perf record -q --no-bpf-event -e cpu-clock -g -o "$TMP/file.perf" -- "$prog" 100000000 >/dev/null 2>&1
	"$GUS" import -q -o "$TMP/file.gus" "$TMP/file.perf" 2>"$TMP/file.err"
	check_status $? 0 "file mode: gus import"
	compare_shares "$TMP/file.perf" "$TMP/file.gus" "file mode"
	compare_callers "$TMP/file.perf" "$TMP/file.gus" "file mode"
	got=$("$GUS" import --stat "$TMP/file.perf" | stat_lines | tr '\n' '|')
	want=$(perf report --stat -i "$TMP/file.perf" 2>/dev/null | stat_lines | tr '\n' '|')
	if [ "$got" = "$want" ]; then ok 0 "file mode: --stat as perf report --stat"; else ok 1 "file mode: --stat as perf report --stat"; echo "#   $got / $want"; fi
	a=$(gus_regions "$TMP/file.gus")
	b=$(gus_regions "$TMP/file.perf")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok 0 "file mode: gus report -i perf.data reports as gus report of its import"
	else ok 1 "file mode: gus report -i perf.data reports as gus report of its import"; echo "#   $a / $b"; fi
	out=$("$GUS" report -q -i "$TMP/file.perf" 2>&1)
	check_contains "$out" "simulated statically" "file mode: the hot regions simulated from their code"
	check_lacks "$(cat "$TMP/file.err")" "not here" "file mode: every object found by its build-id"
	# this kernel and boot: the kernel's frames named from /proc/kallsyms
	nk=$($SQL "$TMP/file.gus" "select count(*) from samples where user = 0")
	missing=$($SQL "$TMP/file.gus" "select value from meta where key = 'missing.kernel_symbols'")
	if [ "${nk:-0}" -eq 0 ] || [ -n "$missing" ]; then
		skip "file mode: kernel frames named" "${missing:-no kernel sample}"
	else
		named=$($SQL "$TMP/file.gus" "select count(distinct s.id) from samples s, kernel_symbols k
			where s.user = 0 and s.ip >= k.start and s.ip < k.end")
		[ "$named" = "$nk" ]; ok $? "file mode: every kernel sample's function named from this boot's kallsyms ($named of $nk)"
	fi

	# pipe mode
	perf record -q --no-bpf-event -e cpu-clock -g -o - -- "$prog" 100000000 >"$TMP/pipe.perf" 2>/dev/null
	"$GUS" import -q -o "$TMP/pipe.gus" "$TMP/pipe.perf" 2>"$TMP/pipe.err"
	check_status $? 0 "pipe mode: gus import"
	compare_shares "$TMP/pipe.perf" "$TMP/pipe.gus" "pipe mode"
	compare_callers "$TMP/pipe.perf" "$TMP/pipe.gus" "pipe mode"
	got=$("$GUS" import --stat "$TMP/pipe.perf" | stat_lines | tr '\n' '|')
	want=$(perf report --stat -i "$TMP/pipe.perf" 2>/dev/null | stat_lines | tr '\n' '|')
	if [ "$got" = "$want" ]; then ok 0 "pipe mode: --stat as perf report --stat"; else ok 1 "pipe mode: --stat as perf report --stat"; echo "#   $got / $want"; fi
	check_lacks "$(cat "$TMP/pipe.err")" "not here" "pipe mode: every object found (by path and inode: no build-ids in pipe mode)"
fi
# ------------------------------------------------- the standard input ---
# perf record -o - | gus report -i -, as perf report -i - reads pipe mode
out=$(printf 'xx' | "$GUS" report -q -i - 2>&1); st=$?
check_status $st 1 "stdin: two bytes: exit 1"
check_contains "$out" "the standard input: not a perf.data" "... said, naming the standard input"
out=$(cat "$FIX/perf.data.group_desc-4.14" | "$GUS" report -q -i - 2>&1); st=$?
check_status $st 1 "stdin: a file-mode perf.data through a pipe: exit 1"
check_contains "$out" "a perf.data in file mode cannot be read from a pipe" "... said"
"$GUS" report -q -i - <"$FIX/perf.data.group_desc-4.14" >/dev/null 2>&1
check_status $? 0 "stdin: a file-mode perf.data as a file on the standard input reads"
out=$(cat "$FIX/perf.data.piped.corrupted.zero_size_sample-3.2" | "$GUS" import -q -o "$TMP/zero-stdin.data" - 2>&1); st=$?
check_status $st 0 "stdin: the damaged pipe-mode file imports what it holds"
check_contains "$out" "the perf.data is damaged: a SAMPLE record of size 0 at 0xbfd0" "... its damage said as from a file"
head -c 5000 "$FIX/perf.data.piped.intel_pt-4.14" | "$GUS" import -q -o "$TMP/cut-stdin.data" - 2>"$TMP/cut-stdin.err"
check_status $? 0 "stdin: a stream cut inside a record imports what came before"
check_contains "$(cat "$TMP/cut-stdin.err")" "a MMAP record of 144 bytes at 0x1310 runs past the end of the data (0x1388)" \
	"... the cut said with its record and offset"
a=$("$GUS" import --stat "$FIX/perf.data.piped.intel_pt-4.14" | stat_lines)
b=$(cat "$FIX/perf.data.piped.intel_pt-4.14" | "$GUS" import --stat - | stat_lines)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok 0 "stdin: --stat of a pipe-mode file through a pipe as of the file"
else ok 1 "stdin: --stat of a pipe-mode file through a pipe as of the file"; echo "#   $a / $b"; fi
if [ -n "$why" ]; then
	skip "stdin: perf record -o - | gus report -i -" "$why"
	skip "stdin: the same regions as the file" "$why"
else
	out=$(perf record -q --no-bpf-event -e cpu-clock -g -o - -- "$prog" 100000000 2>/dev/null | "$GUS" report -q -i - 2>&1); st=$?
	check_status $st 0 "stdin: perf record -o - | gus report -i -"
	check_contains "$out" "hot_chain (callers.c" "... reports hot_chain"
	a=$(gus_regions "$TMP/pipe.perf")
	b=$(cat "$TMP/pipe.perf" | "$GUS" report -q -i - --json 2>/dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["regions"]:
    if r["kind"] == "function" and " " not in r["name"]:
        print(r["name"], round(100 * r["share"], 4))')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok 0 "stdin: the same regions as the file read by its name"
	else ok 1 "stdin: the same regions as the file read by its name"; echo "#   $a / $b"; fi
fi

# ------------------------------------------------------------ debuginfod ---
# a binary perf sampled that is no longer at its path nor in the build-id
# cache: asked of the debuginfod servers of DEBUGINFOD_URLS (a local
# debuginfod serving a directory here), said when unset or unreachable
if [ -n "$why" ]; then
	skip "debuginfod" "$why"
elif ! command -v debuginfod >/dev/null 2>&1; then
	skip "debuginfod: a local server" "no debuginfod (Debian's debuginfod)"
else
	mkdir -p "$TMP/bin" "$TMP/served" "$TMP/nocache"
	cp "$prog" "$TMP/bin/callers"
	perf record -q --no-bpf-event -N -e cpu-clock -o "$TMP/dbg.perf" -- "$TMP/bin/callers" 50000000 >/dev/null 2>&1
	mv "$TMP/bin/callers" "$TMP/served/callers"
	bid=$(perf buildid-list -i "$TMP/dbg.perf" 2>/dev/null | awk '/bin\/callers$/ { print $1 }')
	out=$(env -u DEBUGINFOD_URLS "$GUS" import -q --debug-dir "$TMP/nocache" -o "$TMP/dbg0.gus" "$TMP/dbg.perf" 2>&1)
	check_contains "$out" "$TMP/bin/callers (build-id $bid" "debuginfod: the binary gone, said missing with its build-id"
	check_contains "$out" "DEBUGINFOD_URLS is not set: no debuginfod server was asked" "... and that no server was asked"
	out=$(DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH="$TMP/dcache" DEBUGINFOD_TIMEOUT=5 \
		"$GUS" import -q --debug-dir "$TMP/nocache" -o "$TMP/dbg1.gus" "$TMP/dbg.perf" 2>&1)
	check_contains "$out" "the debuginfod servers of DEBUGINFOD_URLS had 0 of the 1 objects asked for, first missing: $TMP/bin/callers (build-id $bid): " \
		"debuginfod unreachable: said, with the first object and why"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -F -p "$port" -d "$TMP/debuginfod.sqlite" "$TMP/served" >"$TMP/debuginfod.log" 2>&1 &
	server=$!
	# until it has indexed the directory (a few seconds)
	python3 -c '
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=2).read(1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)' "http://127.0.0.1:$port/buildid/$bid/executable"
	check_status $? 0 "debuginfod: a local server serves the binary"
	out=$(DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH="$TMP/dcache" \
		"$GUS" import -q --debug-dir "$TMP/nocache" -o "$TMP/dbg2.gus" "$TMP/dbg.perf" 2>&1)
	check_status $? 0 "debuginfod: gus import with DEBUGINFOD_URLS"
	check_contains "$out" "$TMP/bin/callers as $TMP/dcache/$bid/executable (from debuginfod)" "... the binary taken from the server"
	check_lacks "$out" "not here" "... and nothing said missing"
	check_contains "$(gus_regions "$TMP/dbg2.gus" | head -n 1)" "hot_chain" "... its hot function named by its symbols"
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
fi
done_testing
