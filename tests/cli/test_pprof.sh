#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus report --pprof and --folded: the call stacks of recordings of the
# tworegions and callers workloads (gus record -g), read by the real
# reader, go tool pprof: the hot functions with the shares gus report
# gives them, file:line, the program's build-id, each region's labels, the
# stacks from the call chains; the folded stacks add up to the samples and
# their top stack is the hot function under its first caller; without -g
# each sample is its function alone; a symbol holding ';', a newline, an
# escape sequence and a byte of no UTF-8 character breaks neither format.
# go tool pprof's checks are skipped where Go is absent, the others run.
. "$TESTDIR/cli/lib.sh"
cd "$TMP" || exit 1

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP needs python3"
	exit 0
fi
have_go=yes
command -v go >/dev/null 2>&1 || have_go=
# go tool pprof offline, as root, writing nothing outside $TMP
export HOME="$TMP/home" GOCACHE="$TMP/home/gocache" GOTOOLCHAIN=local
mkdir -p "$HOME"
pprof() { go tool pprof -symbolize=none "$@"; }
skip_go() {	# skip_go N: the next N checks need go tool pprof
	for _i in $(seq "$1"); do ok 0 "# SKIP go absent (Debian: golang-go): go tool pprof cannot read the profile"; done
}

# ------------------------------------------- go tool pprof -top's shares ---
# two hot functions (a divider, a pointer chase) and main: their shares in
# gus report are the flat shares pprof computes from the stacks
"$GUS" record -g -q --hot 3 --tracer none -o tw.data -- "$WORKLOADS/tworegions" >/dev/null 2>&1; st=$?
check_status $st 0 "tworegions is recorded with call chains"
"$GUS" report -i tw.data --json --pprof tw.pb.gz >tw.json 2>tw.err; st=$?
check_status $st 0 "report --json --pprof exits 0"
gzip -t tw.pb.gz 2>/dev/null && [ "$(gzip -dc tw.pb.gz | wc -c)" -gt 1000 ]; ok $? "--pprof: a gzip file"
if [ -n "$have_go" ]; then
	pprof -top -nodefraction=0 -nodecount=0 tw.pb.gz >top.txt 2>top.err; st=$?
	check_status $st 0 "go tool pprof -top reads the profile"
	# every function region of gus report, its share as the flat share
	# (pprof rounds to 0.01 %); the hottest first in both
	got=$(python3 - tw.json top.txt <<'PY' 2>&1
import json, re, sys
rep = json.load(open(sys.argv[1]))
flat, order = {}, []
for line in open(sys.argv[2]):
    m = re.match(r"^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+[\d.]+%\s+(.*?)\s*$", line)
    if m:
        flat[m.group(2)] = float(m.group(1))
        order.append(m.group(2))
funcs = [r for r in rep["regions"] if r["kind"] == "function"]
problems = []
for r in funcs:
    got = flat.get(r["name"])
    if got is None or abs(got - 100 * r["share"]) > 0.02:
        problems.append("%s: gus %.2f %%, pprof %s %%" % (r["name"], 100 * r["share"], got))
if len(funcs) < 3 or not order or order[0] != funcs[0]["name"]:
    problems.append("pprof's hottest %s, gus's functions %s" % (order[:1], [r["name"] for r in funcs]))
print("; ".join(problems) or "ok " + ", ".join("%s %.2f %%" % (r["name"], flat[r["name"]]) for r in funcs))
PY
)
	got=$(printf '%s\n' "$got" | tail -n 1)
	check_contains "$got" "ok " "pprof -top: gus report's hot functions with their shares ($got)"
	check_contains "$(cat top.txt)" "Type: cpu" "pprof: the sampled time is the default sample type (cpu-clock ns)"
	bid=$(readelf -n "$WORKLOADS/tworegions" 2>/dev/null | awk '/Build ID/ {print $3}')
	check_contains "$(cat top.txt)" "Build ID: $bid" "pprof: the program's mapping first, with its build-id"
	check_contains "$(pprof -top -lines tw.pb.gz 2>&1 | grep ' chase_part ')" "tworegions.c:" \
		"pprof -lines: file:line from DWARF"
	tags=$(pprof -tags tw.pb.gz 2>&1)
	for label in gus_region gus_region_rank gus_verdict gus_bottleneck gus_simulated_top gus_simulated_topdown; do
		check_contains "$tags" " $label: Total" "pprof -tags: label $label"
	done
	check_contains "$tags" "): chase_part loop 0x" "pprof -tags: the hot loop names its samples"
	check_contains "$tags" "Backend Bound" "pprof -tags: the simulated Top-Down"
else
	skip_go 14
fi

# ---------------------------------------------------- the call stacks ---
# hot_chain called by from_major (three quarters) and from_minor, built
# with frame pointers
"$GUS" record -g -q --hot 2 --tracer none -o cg.data -- "$WORKLOADS/callers" >/dev/null 2>&1; st=$?
check_status $st 0 "callers is recorded with call chains"
"$GUS" report -i cg.data --pprof cg.pb.gz --folded cg.folded >report.txt 2>report.err; st=$?
check_status $st 0 "report --pprof --folded exits 0"
check_contains "$(cat report.txt)" "hot_chain" "... and writes the text report beside them"
"$GUS" report -i cg.data --json >report.json 2>/dev/null

# folded: "frames COUNT" per line, adding up to the samples; the top
# stack is the hot function called from its first caller
got=$(python3 - report.json cg.folded <<'PY' 2>&1
import json, re, sys
rep = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], "rb").read().decode("utf-8").split("\n")
problems = []
if lines[-1] != "":
    problems.append("no newline at the end")
lines = lines[:-1]
total = 0
for l in lines:
    m = re.fullmatch(r"(.+) ([0-9]+)", l)
    if not m:
        problems.append("not folded: %r" % l)
        continue
    total += int(m.group(2))
if total != rep["samples"]:
    problems.append("%d samples in the folded stacks, %d recorded" % (total, rep["samples"]))
hot = rep["regions"][0]
frames = lines[0].rsplit(" ", 1)[0].split(";")
if frames[-1] != hot["name"] or len(frames) < 2 or frames[-2] != hot["callers"][0]["name"]:
    problems.append("top stack %r, want ...;%s;%s" % (lines[0], hot["callers"][0]["name"], hot["name"]))
if len(set(l.rsplit(" ", 1)[0] for l in lines)) != len(lines):
    problems.append("a stack on two lines")
print("; ".join(problems) or "ok %d stacks, %d samples, top %s" % (len(lines), total, lines[0]))
PY
)
got=$(printf '%s\n' "$got" | tail -n 1)
check_contains "$got" "ok " "folded: one stack a line, as many samples as recorded, the top stack the hot function's ($got)"
check_contains "$(head -n 1 cg.folded)" "main;from_major;hot_chain " "folded: root first, leaf last"
if [ -n "$have_go" ]; then
	# each trace: its labels, its time and leaf, then one caller a line
	chain=$(pprof -traces cg.pb.gz 2>&1 | grep -A2 -E '^ +[0-9.]+[a-zµ]*s +hot_chain$' | awk '{print $NF}' |
		head -n 3 | tr '\n' ' ')
	[ "$chain" = "hot_chain from_major main " ]; ok $? "pprof -traces: the heaviest stack from the call chains ($chain)"
	check_contains "$(pprof -traces cg.pb.gz 2>&1)" "gus_region:  hot_chain" "pprof -traces: the hot region's labels on its samples"
else
	skip_go 2
fi

# ------------------------------------------------------- without -g ---
"$GUS" record -q --hot 1 --tracer none -o nocg.data -- "$WORKLOADS/callers" 40000000 >/dev/null 2>&1
"$GUS" report -i nocg.data --folded nocg.folded --pprof nocg.pb.gz >/dev/null 2>&1; st=$?
check_status $st 0 "without -g: report --folded --pprof exits 0"
"$GUS" report -i nocg.data --json >nocg.json 2>/dev/null
# (the recording's samples: the first "samples" of the JSON)
samples=$(grep -o '"samples": [0-9]*' nocg.json | head -n 1 | cut -d' ' -f2)
top=$(awk 'NR == 1 {sub(/ [0-9]+$/, ""); print}' nocg.folded)
got=$(awk -v want="$samples" '/;/ {chained++} {total += $NF} END {print (chained ? chained " chained, " : "") total " of " want}' nocg.folded)
hot=$(grep -o '"rank": 1, "kind": "function", "name": "[^"]*"' nocg.json | sed 's/.*"name": "//; s/"$//')
[ "$got" = "$samples of $samples" ] && [ -n "$top" ] && [ "$top" = "$hot" ]
ok $? "without -g: each sample is its function alone, all samples there, the hot function first ($got, $top)"
if [ -n "$have_go" ]; then
	check_contains "$(pprof -comments nocg.pb.gz 2>&1)" "no call chains" "without -g: the profile says so"
else
	skip_go 1
fi

# ---------------------------------------------------- hostile symbols ---
# from_minor renamed in the symbol table, same length: a ';', a newline,
# a screen clear, a byte of no UTF-8 character
perl -0777 -pe 's/from_minor\0/f;m\n\x1b[2J\xffx\0/g' "$WORKLOADS/callers" >"$TMP/callers" && chmod +x "$TMP/callers"
"$GUS" record -g -q --hot 1 --tracer none -o evil.data -- "$TMP/callers" 40000000 >/dev/null 2>&1
"$GUS" report -i evil.data --folded evil.folded --pprof evil.pb.gz --json >evil.json 2>/dev/null; st=$?
check_status $st 0 "hostile symbols: report --folded --pprof exits 0"
# raw FILE: what FILE holds that a terminal or a parser must not get raw
# (invalid UTF-8, C0 controls but newline, DEL, C1 controls)
raw() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || { echo "invalid UTF-8"; return; }
	LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" && { echo "raw C0 or DEL"; return; }
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" && { echo "raw C1"; return; }
	echo clean
}
r=$(raw evil.folded)
[ "$r" = clean ]; ok $? "hostile symbols: folded has no raw control character or invalid UTF-8 ($r)"
samples=$(grep -o '"samples": [0-9]*' evil.json | head -n 1 | cut -d' ' -f2)
got=$(awk -v want="$samples" '!/^[^;]+(;[^;]+)* [0-9]+$/ {bad++} {total += $NF}
	END {print (bad ? bad " malformed, " : "") total " of " want}' evil.folded)
[ "$got" = "$samples of $samples" ]; ok $? "hostile symbols: every line folded, all samples there ($got)"
check_contains "$(cat evil.folded)" 'main;f\x3bm\n\x1b[2J\xffx;hot_chain ' "hostile symbols: the renamed caller one frame, escaped"
if [ -n "$have_go" ]; then
	pprof -top -nodefraction=0 evil.pb.gz >evil.top 2>&1; st=$?
	check_status $st 0 "hostile symbols: go tool pprof reads the profile"
	r=$(raw evil.top)
	[ "$r" = clean ]; ok $? "hostile symbols: pprof prints no raw control character ($r)"
	check_contains "$(cat evil.top)" 'f;m\n\x1b[2J\xffx' "hostile symbols: the name escaped as gus's text output writes it"
else
	skip_go 3
fi

# --------------------------------------------------------- the outputs ---
"$GUS" report -i cg.data --pprof cg.data >/dev/null 2>err; st=$?
check_status $st 1 "--pprof does not replace a recording"
"$GUS" report -i cg.data --folded "$TMP" >/dev/null 2>err; st=$?
check_status $st 1 "--folded refuses a directory"
"$GUS" report -i cg.data --folded /dev/full >/dev/null 2>err; st=$?
check_status $st 1 "--folded: a write error exits 1"
printf 'keep\n' >kept.folded
"$GUS" report -i cg.data --pprof "$TMP/no/such/dir/p.pb.gz" --folded kept.folded >/dev/null 2>err; st=$?
check_status $st 1 "--pprof into a missing directory exits 1"
check_contains "$(cat kept.folded)" "keep" "... and --folded after it replaces nothing"

done_testing
