#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Strings of a recording (a file people send each other) never reach the
# output raw: a program whose name holds an escape sequence, a newline
# with a fake "# ..." header after it, a C1 control and bytes of no UTF-8
# character is recorded, and the recording's region name and facts are
# rewritten with the same; gus report's text shows them escaped (\x1b,
# \n, \xc2\x9b, \xff), its JSON parses and holds them as JSON escapes, its
# CSV has one record per line and six fields, its SVGs are well-formed
# XML; gus sim --trace, gus script and the messages on standard error
# escape them too, as does gus stat for an imported file's name.
. "$TESTDIR/cli/lib.sh"
SQL="sqlite3 -batch"

if ! command -v sqlite3 >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP needs sqlite3 and python3"
	exit 0
fi

# raw FILE: what FILE holds that a terminal or a parser must not get raw
# (C0 controls but newline, DEL, C1 controls, bytes of no UTF-8
# character), said in one line; nothing when it is clean
cat > "$TMP/raw.py" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    print("invalid UTF-8 at byte %d" % e.start)
    sys.exit(0)
bad = sorted({"U+%04X" % ord(c) for c in text
              if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0})
if bad:
    print("raw " + " ".join(bad))
PY
raw() { python3 "$TMP/raw.py" "$1"; }

# the hostile string: a window title and a screen clear, a line that
# looks like the report's header, a C1 CSI, and C3 FF (no character)
ESC=$(printf '\033')
HOSTILE=$(printf '\033]0;pwned\007\033[2J\n# fake header\302\233\303\377')
# ... as the text output writes it
SHOWN='\x1b]0;pwned\x07\x1b[2J\n# fake header\xc2\x9b\xc3\xff'
# ... and the SQL that makes it (char(155): U+009B, in UTF-8 C2 9B)
SQLHOSTILE="char(27) || ']0;pwned' || char(7) || char(27) || '[2J' || char(10) || '# fake header' || char(155) || CAST(X'C3FF' AS TEXT)"

# ------------------------------------------------------------------------
# a recording of a program with that name, then its facts and a region
# rewritten
mkdir -p "$TMP/bin"
PROG="$TMP/bin/div$HOSTILE"
cp "$WORKLOADS/divide" "$PROG"
"$GUS" record -q -o "$TMP/r.data" -- "$PROG" </dev/null >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "gus record of a program with control characters in its name exits 0"
$SQL "$TMP/r.data" "update meta set value = value || $SQLHOSTILE where key in ('cpu.name', 'kernel', 'sample.event');
	update regions set name = name || $SQLHOSTILE where rank = 1;
	insert into regions (rank, kind, name, file, start, end, head, parent, samples, share, build_id)
		select (select max(rank) + 1 from regions), 'function', 'lost', '/nonexistent/lib' || $SQLHOSTILE || '.so',
			start, end, head, NULL, 1, 0.001, build_id from regions where rank = 1;" 2>"$TMP/e"
ok $? "the recording's facts and regions rewritten with sqlite3, a region of a lost file added"

# ---------------------------------------------------------------- text ---
"$GUS" report -i "$TMP/r.data" >"$TMP/report.txt" 2>"$TMP/report.err"; st=$?
check_status $st 0 "gus report exits 0"
out=$(cat "$TMP/report.txt")
r=$(raw "$TMP/report.txt")
[ -z "$r" ]; ok $? "text: no raw control character or invalid UTF-8 (${r:-clean})"
check_lacks "$out" "$ESC" "text: no escape character"
fakes=$(grep -c '^# fake header' "$TMP/report.txt")
[ "$fakes" -eq 0 ]; ok $? "text: no line starts with the fake header ($fakes)"
check_contains "$out" "# command: $TMP/bin/div$SHOWN" "text: the command line escaped"
check_contains "$(grep '^# cpu:' "$TMP/report.txt")" "$SHOWN; kernel " "text: the cpu name escaped, the line goes on"
check_contains "$(grep '^ *1 ' "$TMP/report.txt")" "divide_loop$SHOWN" "text: the region name escaped in the table"
printf '%s\n' "$out" | grep -F "divide_loop$SHOWN (function, div$SHOWN" | grep -q '^== Region 1[:+]'
ok $? "text: and in the region's heading, with its object escaped"
r=$(raw "$TMP/report.err")
[ -z "$r" ]; ok $? "messages: no raw control character or invalid UTF-8 (${r:-clean})"
check_contains "$(cat "$TMP/report.err")" "/nonexistent/lib$SHOWN.so" "messages: the region's file escaped, newline too"

# ---------------------------------------------------------------- JSON ---
"$GUS" report -i "$TMP/r.data" --json >"$TMP/report.json" 2>"$TMP/e"; st=$?
check_status $st 0 "gus report --json exits 0"
r=$(raw "$TMP/report.json")
[ -z "$r" ]; ok $? "JSON: no raw control character or invalid UTF-8 (${r:-clean})"
# C3 FF is no character: each byte as the code point of its number
got=$(python3 - "$TMP/report.json" <<'PY' 2>&1
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
want = "\x1b]0;pwned\x07\x1b[2J\n# fake header\x9b\xc3\xff"
checks = [
    ("meta.command", d["meta"]["command"].endswith("/bin/div" + want)),
    ("meta.cpu.name", d["meta"]["cpu.name"].endswith(want)),
    ("regions[0].name", d["regions"][0]["name"] == "divide_loop" + want),
    ("regions[0].file", d["regions"][0]["file"].endswith("/bin/div" + want)),
    ("regions[0].simulated.source",
     d["regions"][0]["simulated"]["source"].endswith("/bin/div" + want + ":divide_loop" + want)),
]
print(" ".join(k for k, good in checks if not good) or "ok")
PY
)
got=$(printf '%s\n' "$got" | tail -n 1)
[ "$got" = ok ]; ok $? "JSON parses and holds the strings as they were (${got})"
check_contains "$(cat "$TMP/report.json")" '\u001b]0;pwned\u0007\u001b[2J\n# fake header\u009b\u00c3\u00ff' \
	"JSON: control characters and stray bytes as \\u escapes"

# ----------------------------------------------------------------- CSV ---
"$GUS" report -i "$TMP/r.data" --csv >"$TMP/report.csv" 2>"$TMP/e"; st=$?
check_status $st 0 "gus report --csv exits 0"
r=$(raw "$TMP/report.csv")
[ -z "$r" ]; ok $? "CSV: no raw control character or invalid UTF-8 (${r:-clean})"
got=$(python3 - "$TMP/report.csv" "$SHOWN" <<'PY' 2>&1
import csv, sys
text = open(sys.argv[1], "rb").read().decode("utf-8")
lines = text.split("\n")[:-1]
rows = list(csv.reader(text.split("\n")[:-1]))
problems = []
if len(rows) != len(lines):
    problems.append("a record spans lines")
widths = {len(r) for r in rows}
if widths != {6}:
    problems.append("fields per record: %s" % sorted(widths))
if not any(r[3] == "divide_loop" + sys.argv[2] for r in rows if len(r) == 6 and r[0] == "region"):
    problems.append("no region named divide_loop + the escaped string")
print("; ".join(problems) or "ok")
PY
)
got=$(printf '%s\n' "$got" | tail -n 1)
[ "$got" = ok ]; ok $? "CSV: one record per line, six fields, the name escaped (${got})"
# a field with space at an end is quoted (RFC 4180: readers may trim it)
$SQL "$TMP/r.data" "update regions set name = ' spaced name ' where rank = 2" 2>"$TMP/e"
"$GUS" report -i "$TMP/r.data" --csv >"$TMP/report2.csv" 2>"$TMP/e"
check_contains "$(cat "$TMP/report2.csv")" 'region,2,region," spaced name ",kind,loop' \
	"CSV: a name with spaces at its ends quoted"

# ----------------------------------------------------------------- SVG ---
"$GUS" report -i "$TMP/r.data" --svg "$TMP/svg" >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "gus report --svg exits 0"
got=$(python3 - "$TMP"/svg/*.svg <<'PY' 2>&1
import sys, xml.dom.minidom
bad = []
for f in sys.argv[1:]:
    try:
        xml.dom.minidom.parse(f)
    except Exception as e:
        bad.append("%s: %s" % (f.rsplit("/", 1)[-1], e))
print("; ".join(bad) or "ok")
PY
)
got=$(printf '%s\n' "$got" | tail -n 1)
[ "$got" = ok ]; ok $? "SVG: every file is well-formed XML (${got})"
# (a newline is white space in XML, kept as it is)
check_contains "$(cat "$TMP/svg/region-1.svg")" 'div\x1b]0;pwned\x07\x1b[2J' "SVG: the path escaped as the text output writes it"

# ------------------------------------------------- gus sim, gus script ---
"$GUS" sim --trace -i "$TMP/r.data" --function divide_loop --max-insns 20000 >"$TMP/sim.txt" 2>"$TMP/sim.err"; st=$?
check_status $st 0 "gus sim --trace -i exits 0"
r=$(raw "$TMP/sim.txt")$(raw "$TMP/sim.err")
[ -z "$r" ]; ok $? "gus sim --trace: no raw control character in its output or messages (${r:-clean})"
check_contains "$(cat "$TMP/sim.txt")" "gus sim: $TMP/bin/div$SHOWN:divide_loop" "gus sim --trace: the object's path escaped"
"$GUS" sim --trace -i "$TMP/r.data" --function divide_loop --max-insns 20000 --json >"$TMP/sim.json" 2>/dev/null
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); sys.exit(0 if "pwned" in d["source"] else 1)' \
	"$TMP/sim.json" 2>/dev/null
ok $? "gus sim --trace --json parses, its source holds the name"
# its warnings name the recording, here a file with the hostile name
cp "$TMP/r.data" "$TMP/r$HOSTILE.data"
"$GUS" script -i "$TMP/r$HOSTILE.data" --max-insns 50 >"$TMP/script.txt" 2>"$TMP/script.err"; st=$?
check_status $st 0 "gus script exits 0"
r=$(raw "$TMP/script.txt")$(raw "$TMP/script.err")
[ -z "$r" ]; ok $? "gus script: no raw control character in its output or messages (${r:-clean})"
check_contains "$(cat "$TMP/script.err")" "r$SHOWN.data" "gus script: its message names the recording escaped"

# ------------------------------------------- an imported file's name ---
IMPORT="$TMP/c$HOSTILE.csv"
cp "$TESTDIR/fixtures/perf-topdown-icx.csv" "$IMPORT"
"$GUS" stat --import "$IMPORT" --arch icx >"$TMP/stat.txt" 2>&1; st=$?
check_status $st 0 "gus stat --import of a file with control characters in its name exits 0"
r=$(raw "$TMP/stat.txt")
[ -z "$r" ]; ok $? "gus stat: no raw control character (${r:-clean})"
check_contains "$(cat "$TMP/stat.txt")" "imported from $TMP/c$SHOWN.csv" "gus stat: the file's name escaped"
"$GUS" stat --import "$IMPORT" --arch icx --json >"$TMP/stat.json" 2>/dev/null
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); sys.exit(0 if d["import"].endswith("\x9b\xc3\xff.csv") else 1)' \
	"$TMP/stat.json" 2>/dev/null
ok $? "gus stat --json: valid, the name's stray bytes as \\u00NN"
"$GUS" stat --import "$IMPORT" --arch icx -x, >"$TMP/stat.csv" 2>/dev/null
fakes=$(grep -c '^# fake header' "$TMP/stat.csv")
[ "$fakes" -eq 0 ]; ok $? "gus stat -x,: the comment line is one line ($fakes fake)"

done_testing
