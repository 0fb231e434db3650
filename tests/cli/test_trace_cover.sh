#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What of the run a trace covers, and one answer per region. A trace whose
# windows filled --max-insns is said on gus record's terminal, in the
# recording (trace.stopped, trace.coverage), in each region it cuts and in
# the JSON, with how much of the run it covers; a whole trace says "the
# whole run". gus sim --trace -i on a region of a recording simulates the
# windows gus report simulates for it and gives the same cycles per
# iteration and IPC; --from-start takes the region's first records, as
# before.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"
cd "$TMP" || exit 1
D="$WORKLOADS/divide"
P="$WORKLOADS/phases"
json_get() {	# json_get FILE PYTHON-EXPRESSION-OF-d: prints it
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# --------------------------------------------- a trace --max-insns stopped --
"$GUS" record -o cut.data --max-insns 200000 -- "$D" 2000000 </dev/null >/dev/null 2>rec.err; st=$?
check_status $st 0 "cut: recorded"
err=$(cat rec.err)
check_contains "$err" "warning: the trace's windows filled --max-insns (200000 records)" "cut: gus record warns"
check_contains "$err" "trace windows over the first " "cut: gus record's summary says what of the run they cover"
pct=$(printf '%s\n' "$err" | sed -n 's/.*trace windows over the first \([0-9.]*\) % of the run (--max-insns reached after .*/\1/p')
awk -v p="$pct" 'BEGIN { exit !(p != "" && p >= 0 && p < 100) }'; ok $? "cut: ... a share of the run under 100 % ($pct %)"
"$GUS" record -q -o cutq.data --max-insns 200000 -- "$D" 2000000 </dev/null >/dev/null 2>rec.err
check_contains "$(cat rec.err)" "the trace's windows filled --max-insns" "cut: -q still warns"
check_contains "$($SQL cut.data "select value from meta where key = 'trace.stopped'")" "they cover the first " \
	"cut: meta trace.stopped says what the windows cover"
test "$($SQL cut.data "select value from meta where key = 'trace.exit_status'")" = 0
ok $? "cut: the traced run went on to its end (trace.exit_status)"
cov=$($SQL cut.data "select value from meta where key = 'trace.coverage'")
printf '%s\n' "$cov" | awk 'NF == 3 && $2 >= 0 && $3 >= $2 { good++ } NF && !(NF == 3 && $2 >= 0 && $3 >= $2) { bad++ }
	$3 > 0 && $2 < $3 { cut++ } END { exit !(good && !bad && cut) }'
ok $? "cut: meta trace.coverage holds each range's records before the stop and in all, one range cut ($(printf '%s' "$cov" | tr '\n' '|'))"

out=$("$GUS" report -i cut.data --region divide_loop 2>&1)
check_contains "$out" "# the trace stopped short of the run: the windows reached --max-insns" "cut: the report's header says it"
sec=$(printf '%s\n' "$out" | sed -n '/^== Region .*: divide_loop (function/,/^== Region/p')
stream=$(printf '%s\n' "$sec" | grep '^Stream: ')
check_contains "$stream" "from windows spread over the first " "cut: the region's stream line says what of the run its windows cover"
check_contains "$stream" "the trace's windows filled --max-insns" "cut: ... and why"
check_lacks "$stream" "over the whole run" "cut: ... not the whole run"
"$GUS" report -i cut.data --json >cut.json 2>/dev/null; st=$?
check_status $st 0 "cut: gus report --json"
got=$(json_get cut.json 'd["trace_stopped"] is not None and 0 <= d["trace_covers"] < 1')
check_contains "$got" True "cut: JSON: trace_stopped and trace_covers, under 1"
r='[x for x in d["regions"] if x["name"] == "divide_loop"][0]'
got=$(json_get cut.json "0 <= $r[\"stream_covers\"] < 1 and '--max-insns' in $r[\"stream_cut\"] and 'over the first' in $r[\"simulated\"][\"stream\"]")
check_contains "$got" True "cut: JSON: the region's stream_covers under 1, its stream_cut and stream line say it"
share=$(json_get cut.json "$r[\"stream_covers\"]")
awk -v s="$share" -v p="$pct" 'BEGIN { exit !(s < 0.5) }'; ok $? "cut: the region's windows cover little of its records ($share)"
csv=$("$GUS" report -i cut.data --csv 2>/dev/null)
printf '%s\n' "$csv" | grep -Eq '^region,[0-9]+,region,divide_loop,stream_covers,0\.'; ok $? "cut: CSV: stream_covers"
# a recording of a gus record that stopped the run (no trace.coverage)
cp cut.data old.data
$SQL old.data "delete from meta where key in ('trace.coverage', 'trace.stopped_x1000')"
out=$("$GUS" report -i old.data --region divide_loop --no-cache 2>&1)
check_contains "$out" "from windows spread over the run up to where the trace stopped" "older recording: the windows cover the run up to the stop"
check_contains "$out" "how much of the run that is, this recording does not say" "... and how much is not known"
# Ctrl-C in the trace run, before the windows filled
cp cut.data int.data
$SQL int.data "delete from meta where key in ('trace.coverage', 'trace.stopped_x1000', 'trace.stopped'); insert into meta values ('trace.interrupted', 'yes')"
out=$("$GUS" report -i int.data --region divide_loop --no-cache 2>&1)
check_contains "$out" "from windows spread over the run up to where Ctrl-C stopped it" "interrupted: the windows cover the run up to Ctrl-C"

# ------------------------------------------------------- a whole trace --
"$GUS" record -o whole.data -- "$P" </dev/null >/dev/null 2>rec.err; st=$?
check_status $st 0 "whole: recorded"
check_lacks "$(cat rec.err)" "--max-insns" "whole: gus record says no cut"
test -z "$($SQL whole.data "select value from meta where key = 'trace.stopped'")"; ok $? "whole: no trace.stopped"
"$GUS" report -i whole.data --json --region 'hot loop' >whole.json 2>/dev/null
r='[x for x in d["regions"] if x["name"].startswith("hot loop")][0]'
got=$(json_get whole.json "d['trace_stopped'] is None and $r['stream_covers'] == 1 and $r['stream_cut'] is None and 'over the whole run' in $r['simulated']['stream']")
check_contains "$got" True "whole: JSON: stream_covers 1, no cut, the whole run"

# -------------------------------------------------- one answer per region --
# each simulated region of the report, against gus sim --trace -i on the
# same code: a function (--whole: the function, not its loop) or a loop
# (--range): the same windows, the same figures
"$GUS" report -i whole.data --json >all.json 2>/dev/null
regions=$(json_get all.json '"\n".join("%s %s %s-%s" % (x["rank"], x["kind"], x["start"], x["end"]) for x in d["regions"] if x["simulated"] and x["simulated"]["stream"].startswith("QEMU") and x["name"].split()[0] in ("hot", "ring"))')
n_compared=0
for kind in function loop; do
	line=$(printf '%s\n' "$regions" | awk -v k="$kind" '$2 == k { print; exit }')
	[ -n "$line" ] || continue
	rank=${line%% *}
	range=${line##* }
	name=$(json_get all.json "[x for x in d['regions'] if x['rank'] == $rank][0]['name']")
	if [ "$kind" = function ]; then what="--function $name --whole"; else what="--range $range"; fi
	"$GUS" sim $NOSWEEP --trace -i whole.data $what --json >sim.json 2>sim.err; st=$?
	check_status $st 0 "one answer: gus sim --trace -i whole.data $what"
	ref=$(json_get all.json "[x for x in d['regions'] if x['rank'] == $rank][0]['simulated']")
	got=$(python3 -c 'import json, sys
a = [x for x in json.load(open(sys.argv[1]))["regions"] if x["rank"] == int(sys.argv[3])][0]["simulated"]
b = json.load(open(sys.argv[2]))
def same(x, y):
    if x is None or y is None:
        return x is None and y is None
    return abs(x - y) <= 1e-6 * max(abs(x), abs(y), 1)
ok = all(same(a[k], b[k]) for k in ("ipc", "cycles_per_iteration", "instructions"))
print(ok, a["ipc"], b["ipc"], a["cycles_per_iteration"], b["cycles_per_iteration"])' all.json sim.json "$rank")
	check_contains "$got" True "one answer: region $rank ($name): the report's IPC and cycles per iteration from gus sim ($got)"
	check_contains "$(json_get sim.json 'd["stream"]')" "the windows gus report simulates for this code" \
		"one answer: gus sim's stream line says it takes the report's windows"
	n_compared=$((n_compared + 1))
done
test "$n_compared" -eq 2; ok $? "one answer: a function and a loop compared ($n_compared)"
# a region of under a quarter of the samples gets a budget in proportion
# (said), and gus sim --trace -i takes the same (compared above: the
# first loop, 15-20 % of the samples)
check_contains "$(json_get all.json '[x for x in d["regions"] if x["name"].startswith("hot loop")][0]["simulated"]["stream"]')" \
	"picked by the time they stand for (at most " "budget: a region of a small share says its smaller budget"
budget=$(json_get all.json '[x for x in d["regions"] if x["name"].startswith("hot loop")][0]["simulated"]["stream"].split("(at most ")[1].split()[0]')
share=$(json_get all.json '[x for x in d["regions"] if x["name"].startswith("hot loop")][0]["share"]')
awk -v b="$budget" -v s="$share" 'BEGIN { w = 300000 * s / 0.25; if (w < 100000) w = 100000; d = b - w; exit !(s < 0.25 && d > -2 && d < 2) }'
ok $? "budget: $budget records for a share of $share (300000 at 25 % and up, in proportion below, 100000 at least)"
# the report's stream line says where its stream came from
out=$("$GUS" report -i whole.data --region 'hot loop' 2>/dev/null)
check_contains "$out" "Stream: QEMU trace, " "one answer: the report says where its stream came from"

# --from-start: the region's first records, as before
loop=$(json_get all.json '[x for x in d["regions"] if x["name"].startswith("hot loop")][0]["start"] + "-" + [x for x in d["regions"] if x["name"].startswith("hot loop")][0]["end"]')
"$GUS" sim $NOSWEEP --trace -i whole.data --range "$loop" --from-start >fs.txt 2>fs.err; st=$?
check_status $st 0 "--from-start: exits 0"
check_contains "$(cat fs.txt)" "; the region's first records (--from-start: gus report simulates windows spread over the run)" \
	"--from-start: the stream line says it takes the first records"
# the recording's records in their order, every window as much as another:
# not the run weighed by time, as the report's figure is
first=$(awk '/cycles per iteration/ {print $4; exit}' fs.txt)
win=$(json_get all.json '[x for x in d["regions"] if x["name"].startswith("hot loop")][0]["simulated"]["cycles_per_iteration"]')
awk -v a="$first" -v b="$win" 'BEGIN { d = a / b - 1; exit !(a > 0 && (d > 0.05 || d < -0.05)) }'
ok $? "--from-start: its own cycles per iteration ($first), not the report's ($win)"
nrec=$("$GUS" script -i whole.data --range "$loop" 2>/dev/null | grep -vc '^  --')
check_contains "$(cat fs.txt)" "$nrec instructions simulated" "--from-start: every record of the range, from the start ($nrec)"
out=$("$GUS" sim $NOSWEEP --trace -i whole.data --range "$loop" --from-start --max-insns 1000 --json 2>/dev/null)
check_contains "$out" "(--max-insns reached)" "--from-start --max-insns: the first records, cut"
"$GUS" sim --trace --qemu --from-start --function hot -- "$P" >/dev/null 2>err; st=$?
check_status $st 2 "--from-start without a recording is a usage error"

done_testing
