#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gus report --html and gus stat --html in a real browser: Debian's
# chromium, headless, loads each page from a file:// URL and dumps its DOM
# after the page's script ran. The pages: a bundled workload run by two
# threads (windows, phases, callers from -g, imported counts for the
# measured tree) under a hostile program name and with a hostile symbol,
# whose screenshot is kept; a workload recorded without a stream (--tracer
# none: the static view); a recording gus record left partial (killed in
# the trace run); a real program (xz); gus stat --import's tree. Each must
# render (the script ran: data-ready), with no console message and no
# error, the DOM holding the trees, the regions table, the charts and the
# per-instruction and source tables; nothing the recording says becomes
# markup; a page of a bundled workload is under 2 MB. The screenshot of
# the first page is kept as tests/cli/test_html.png in the build directory.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then
	echo "1..0 # SKIP chromium is not installed (Debian's chromium, scripts/install-deps.sh)"
	exit 0
fi
SHOT="$PWD/tests/cli/test_html.png"
mkdir -p "$PWD/tests/cli"

# browse NAME [SCREENSHOT]: loads $TMP/NAME.html in chromium (one start,
# a profile of its own under $TMP); its DOM into $TMP/NAME.dom, the
# browser's log, console messages included, into $TMP/NAME.log
browse() {
	# root needs --no-sandbox; the log level keeps console messages
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --disable-extensions \
		--disable-background-networking --disable-sync --user-data-dir="$TMP/chromium" \
		--enable-logging=stderr --v=0 ${2:+--screenshot="$2" --window-size=1400,2000} \
		--dump-dom "file://$TMP/$1.html" >"$TMP/$1.dom" 2>"$TMP/$1.log"
}

# rendered NAME: the checks every page passes in the browser
rendered() {
	dom="$TMP/$1.dom"
	[ -s "$dom" ]; ok $? "$1: chromium dumped the page's DOM"
	grep -q '<html[^>]* data-ready="1"' "$dom"; ok $? "$1: the page's script ran to its end (data-ready)"
	if grep -q 'data-js-errors=' "$dom"; then
		ok 1 "$1: no script error"
		grep -o 'data-js-errors="[^"]*"' "$dom" | head -c 600 | sed 's/^/#   /'
	else
		ok 0 "$1: no script error"
	fi
	# the page logs nothing: any console line is an error, a refused
	# fetch (the page's Content-Security-Policy) or a warning
	if grep -q 'CONSOLE' "$TMP/$1.log"; then
		ok 1 "$1: no console message"
		grep 'CONSOLE' "$TMP/$1.log" | head -5 | sed 's/^/#   /'
	else
		ok 0 "$1: no console message"
	fi
	# one script, the page's own: nothing the recording says became one
	scripts=$(grep -o -i '<script' "$dom" | wc -l)
	[ "$scripts" -eq 1 ]; ok $? "$1: one script element, the page's own ($scripts)"
}

# count NAME PATTERN: lines of the DOM matching PATTERN (grep -E)
count() { grep -E -c "$2" "$TMP/$1.dom"; }
# has NAME PATTERN DESCRIPTION
has() { if grep -E -q "$2" "$TMP/$1.dom"; then ok 0 "$1: $3"; else ok 1 "$1: $3"; echo "#   no /$2/"; fi; }

# the counts that make a measured tree (perf stat -x, output of a Cascade
# Lake, its numbers made up): Backend_Bound > Core_Bound
cat > "$TMP/core.csv" <<'CSV'
1000000000,,instructions,1000000000,100.00,,
1000000000,,cycles,1000000000,100.00,,
200000000,,idq_uops_not_delivered.core,1000000000,100.00,,
1000000000,,uops_issued.any,1000000000,100.00,,
1000000000,,uops_retired.retire_slots,1000000000,100.00,,
0,,int_misc.recovery_cycles,1000000000,100.00,,
10000000,,idq_uops_not_delivered.cycles_0_uops_deliv.core,1000000000,100.00,,
1000,,br_misp_retired.all_branches,1000000000,100.00,,
0,,machine_clears.count,1000000000,100.00,,
50000000,,cycle_activity.stalls_mem_any,1000000000,100.00,,
600000000,,cycle_activity.stalls_total,1000000000,100.00,,
0,,exe_activity.bound_on_stores,1000000000,100.00,,
100000000,,exe_activity.1_ports_util,1000000000,100.00,,
100000000,,exe_activity.2_ports_util,1000000000,100.00,,
0,,uops_retired.macro_fused,1000000000,100.00,,
CSV

# ------------------------------------------------------------------------
# threads2 (two threads on one hot function, each its own phase) under a
# name that is markup, with call chains and imported counts; its hottest
# symbol and two facts rewritten with more markup
mkdir -p "$TMP/bin"
PROG="$TMP/bin/t2<img src=x onerror=alert(1)>\"'&amp;"
cp "$WORKLOADS/threads2" "$PROG"
"$GUS" record -q -g -l 2 --arch clx --import-counts "$TMP/core.csv" --hot 2 -o "$TMP/t2.data" -- "$PROG" \
	</dev/null >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "threads2: gus record exits 0"
HOSTILE="<script>alert(2)</script></textarea><marquee>"
$SQL "$TMP/t2.data" "update regions set name = name || '$HOSTILE' where rank = 1;
	update meta set value = value || '$HOSTILE' where key in ('cpu.name', 'kernel');
	update samples set user = 0, ip = -2130706400 where id in (select id from samples order by id limit 30);
	insert into kernel_symbols (start, end, name) values (-2130706432, -2130702336, 'kfn$HOSTILE');" 2>"$TMP/e"
ok $? "threads2: a symbol, facts and a kernel function rewritten with markup"
"$GUS" report -q -i "$TMP/t2.data" --html "$TMP/t2.html" >"$TMP/t2.txt" 2>"$TMP/e"; st=$?
check_status $st 0 "threads2: gus report --html exits 0"
[ -s "$TMP/t2.txt" ]; ok $? "threads2: the text report still goes to standard output"
size=$(wc -c <"$TMP/t2.html")
[ "$size" -lt 2000000 ]; ok $? "threads2: the page is under 2 MB ($size bytes)"
rm -f "$SHOT"
browse t2 "$SHOT"
rendered t2
[ -s "$SHOT" ]; ok $? "threads2: a screenshot of the page ($SHOT)"
has t2 '<ul class="tree measured"' "the measured tree"
has t2 '<li class="node bn" data-node="Backend_Bound">' "the bottleneck path marked: Backend_Bound"
has t2 '<li class="node bn" data-node="Core_Bound">' "... and Core_Bound under it"
has t2 '<details open=""><summary>' "the tree's nodes collapsible"
has t2 '<ul class="tree simulated"' "the simulated tree beside it"
has t2 '<table class="sortable regions"' "the regions table, sortable"
rows=$(sed -n '/<table class="sortable regions"/,/<\/table>/p' "$TMP/t2.dom" | grep -c '<tr')
[ "$rows" -ge 3 ]; ok $? "threads2: the regions table has a row per region ($rows rows)"
has t2 '<svg class="chart sensitivity"' "a sensitivity chart"
has t2 'class="sens-row bn"' "... its bottleneck marked"
has t2 '<svg class="chart phases"' "a chart of the phases"
nwin=$(grep -o '<circle class="window"' "$TMP/t2.dom" | wc -l)
[ "$nwin" -ge 10 ]; ok $? "threads2: the windows on the time axis ($nwin)"
has t2 '<table class="sortable threads"' "the threads table"
has t2 '<td class="num">[0-9]+</td><td class="num">[0-9]+</td>' "... with pid and tid"
has t2 '<table class="sortable callers"' "the callers table (gus record -g)"
has t2 '<table class="sortable insn"' "a per-instruction table"
has t2 '<tr class="bn" data-src="threads2.c:[0-9]+">' "... its bottleneck instructions highlighted, with their source line"
has t2 '<table class="src"' "the annotated source beside it"
has t2 '<td class="txt">.*next\[i\]' "... with the hot line's text from the source file"
# nothing the recording says became markup: shown, escaped
check_lacks "$(cat "$TMP/t2.dom")" "<img" "threads2: the program's name is no element"
check_lacks "$(cat "$TMP/t2.dom")" "<textarea" "threads2: the symbol is no element"
check_lacks "$(cat "$TMP/t2.dom")" "<marquee" "threads2: nor a fact"
has t2 't2&lt;img src=x onerror=alert\(1\)&gt;"'"'"'&amp;amp;' "the command line shown as text"
has t2 'hot&lt;script&gt;alert\(2\)&lt;/script&gt;&lt;/textarea&gt;&lt;marquee&gt;' "the symbol shown as text"
has t2 '<tr class="outside">.*\[kernel\].*kfn&lt;script&gt;alert\(2\)&lt;/script&gt;' \
	"the time in the kernel a row of the regions table, its top function's name shown as text"
has t2 '<dd>[^<]*&lt;marquee&gt;</dd>' "a fact shown as text"

# ------------------------------------------------------------------------
# no stream (--tracer none): each region simulated from its code alone;
# a page for divide, every region's sections there
"$GUS" record -q --tracer none --hot 1 -o "$TMP/div.data" -- "$WORKLOADS/divide" 4000000 </dev/null >/dev/null 2>&1
"$GUS" report -q -i "$TMP/div.data" --html "$TMP/div.html" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "divide, no stream: gus report --html exits 0"
size=$(wc -c <"$TMP/div.html")
[ "$size" -lt 2000000 ]; ok $? "divide: the page is under 2 MB ($size bytes)"
browse div
rendered div
has div '<p class="muted" id="measured-missing">Not available: ' "no counters: the measured tree missing, and why"
has div 'simulated statically' "the static view said"
has div 'class="sens-row bn".*DIV' "DIV, the bottleneck, in the chart"
has div '<table class="sortable insn"' "a per-instruction table"
has div 'No windows' "no windows: said instead of a chart"

# ------------------------------------------------------------------------
# a recording gus record did not finish: killed in the trace run (the
# partial file is what it stored)
"$GUS" record -q --hot 1 -o "$TMP/cut.data" -- "$WORKLOADS/divide" 16000000 </dev/null >/dev/null 2>&1 &
gpid=$!
i=0
while [ $i -lt 600 ] && ! pgrep -P $gpid -f qemu >/dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
# gus and the QEMU tracer it runs (which would go on without it)
qpid=$(pgrep -P $gpid -f qemu)
kill -KILL $gpid $qpid 2>/dev/null
wait $gpid 2>/dev/null
partial=$(ls "$TMP"/cut.data.partial-* 2>/dev/null | head -1)
[ -n "$partial" ]; ok $? "a killed gus record leaves its partial recording"
cp "$partial" "$TMP/cut.data" 2>/dev/null
# killed inside one of its writes (a loaded machine), the file has its
# rollback journal beside it, which the copy takes along as SQLite names
# it (without it the copy is a file cut short, which gus refuses)
[ -e "$partial-journal" ] && cp "$partial-journal" "$TMP/cut.data-journal"
"$GUS" report -q -i "$TMP/cut.data" --html "$TMP/cut.html" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "partial: gus report --html exits 0"
browse cut
rendered cut
has cut '<div class="warnbox" id="incomplete">The recording is incomplete' "the page says the recording is incomplete"
has cut '<dt>record stage</dt><dd>tracing</dd>' "... and where gus record stopped"
has cut '<table class="sortable regions"' "the regions it has"

# ------------------------------------------------------------------------
# a real program: xz compressing a file, its hot code in liblzma (no
# debug information: the page says so)
if command -v xz >/dev/null 2>&1; then
	seq 1 120000 >"$TMP/numbers"
	"$GUS" record -q --hot 1 -o "$TMP/xz.data" -- xz -6 -T1 -c "$TMP/numbers" </dev/null >/dev/null 2>&1; st=$?
	check_status $st 0 "xz: gus record exits 0"
	"$GUS" report -q -i "$TMP/xz.data" --html "$TMP/xz.html" >/dev/null 2>"$TMP/e"; st=$?
	check_status $st 0 "xz: gus report --html exits 0"
	browse xz
	rendered xz
	has xz 'liblzma' "the hot code in liblzma"
	has xz '<svg class="chart sensitivity"' "a sensitivity chart"
	has xz '<table class="sortable insn"' "a per-instruction table"
	has xz 'class="muted no-source">No source lines: ' "no debug information: said"
	# the simulation's unit as the text says it (a function's cycles per
	# call, not per instruction as its windows are timed)
	"$GUS" report -q -i "$TMP/xz.data" >"$TMP/xz.txt" 2>/dev/null
	unit=$(sed -n 's/^Simulated on [^:]*: [0-9.]* cycles per \([a-z]*\),.*/\1/p' "$TMP/xz.txt" | head -n 1)
	has xz "<dt>cycles per $unit</dt>" "the region's cycles per ${unit:-(no unit in the text)}, as the text says"
else
	echo "# xz is not installed: its page is not checked"
fi

# ------------------------------------------------------------------------
# gus stat --html: the measured tree alone, from perf stat -x, output
"$GUS" stat --import "$TESTDIR/fixtures/perf-topdown-icx.csv" --arch icx -l 2 --html "$TMP/stat.html" \
	>"$TMP/stat.txt" 2>&1; st=$?
check_status $st 0 "gus stat --import --html exits 0"
check_contains "$(cat "$TMP/stat.txt")" "Top-Down" "gus stat: the tree still printed"
browse stat
rendered stat
has stat '<html lang="en" data-gus-page="stat"' "gus stat's page"
has stat '<ul class="tree measured"' "the measured tree"
has stat '<li class="node bn" data-node="[A-Za-z_]+">' "its bottleneck path marked"
check_lacks "$(cat "$TMP/stat.dom")" "class=\"regions" "gus stat: the tree alone"

# ------------------------------------------------------------------------
# outputs: never a partial page, never over what gus did not make
"$GUS" report -q -i "$TMP/div.data" --html "$TMP/div.data" >/dev/null 2>"$TMP/e"; st=$?
[ $st -ne 0 ]; ok $? "--html naming a recording is refused (status $st)"
check_contains "$(cat "$TMP/e")" "is a gus recording" "... and says why"
"$GUS" report -q -i "$TMP/div.data" --html "$TMP/nodir/x.html" >/dev/null 2>"$TMP/e"; st=$?
[ $st -ne 0 ] && [ ! -e "$TMP/nodir/x.html" ]; ok $? "--html into a missing directory fails, writes nothing"
"$GUS" report -q -i "$TMP/div.data" --html /dev/full >/dev/null 2>"$TMP/e"; st=$?
[ $st -ne 0 ]; ok $? "--html on a full device fails (status $st)"
"$GUS" stat -e task-clock --html "$TMP/e.html" -- true >/dev/null 2>"$TMP/e"; st=$?
check_status $st 2 "gus stat --html with -e: a usage error"
[ ! -e "$TMP/e.html" ]; ok $? "... and no page"

done_testing
