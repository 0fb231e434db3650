#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording from someone else carries no SQL gus runs: a recording whose
# schema holds a trigger, a view, an index or a generated column gus did
# not make, or the tables gus writes defined otherwise, is refused (exit 1,
# a message naming the file and what was found) by every command that
# reads recordings, and left byte for byte as it was. Each attack below
# did its harm before: a trigger on the cache rewrote the recording or
# hung the report, a default value grew it.
. "$TESTDIR/cli/lib.sh"

command -v sqlite3 >/dev/null || { echo "1..0 # SKIP sqlite3 (the command-line tool) is not installed"; exit 0; }

rec=$TMP/good.data
"$GUS" record -q --tracer none -o "$rec" -- "$WORKLOADS/divide" </dev/null >/dev/null 2>"$TMP/e"; st=$?
check_status $st 0 "a recording of divide to tamper with"

# the attacks, one per copy: NAME SQL
attack() {	# attack NAME SQL: a copy of the recording with SQL applied
	cp "$rec" "$TMP/$1.data" && sqlite3 "$TMP/$1.data" "$2" || echo "# could not prepare $1"
}
attack trigger-delete "CREATE TRIGGER wipe AFTER INSERT ON results BEGIN DELETE FROM regions; END;"
attack trigger-loop "PRAGMA recursive_triggers = 1; CREATE TRIGGER spin AFTER INSERT ON results BEGIN
	INSERT OR REPLACE INTO results (key, time, data) VALUES (new.key || 'x', 0, zeroblob(1000000)); END;"
attack trigger-meta "CREATE TRIGGER m BEFORE UPDATE ON meta BEGIN SELECT 1; END;"
attack view "ALTER TABLE regions RENAME TO regions_real; CREATE VIEW regions AS
	WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT * FROM regions_real, n;"
attack index "CREATE INDEX grow ON results (zeroblob(50000000));"
attack default "DROP TABLE results; CREATE TABLE results (key TEXT PRIMARY KEY, time INTEGER,
	data BLOB NOT NULL, pad BLOB DEFAULT (zeroblob(50000000)));"
attack generated "ALTER TABLE comms ADD COLUMN pad BLOB AS (zeroblob(50000000));"

for name in trigger-delete trigger-loop trigger-meta view index default generated; do
	f=$TMP/$name.data
	before=$(sha256sum "$f" | cut -d' ' -f1)
	out=$(timeout 30 "$GUS" report -i "$f" 2>&1); st=$?
	check_status $st 1 "$name: gus report refuses the recording (exit 1, no hang)"
	check_contains "$out" "$f: refused: its schema holds the" "$name: the message names the file and what it holds"
	after=$(sha256sum "$f" | cut -d' ' -f1)
	[ "$before" = "$after" ]; ok $? "$name: the recording is unchanged (sha256)"
	[ ! -e "$f-journal" ]; ok $? "$name: no journal left beside it"
done

# every command that reads a recording refuses it the same way
f=$TMP/trigger-delete.data
out=$(timeout 30 "$GUS" script -i "$f" 2>&1); st=$?
check_status $st 1 "gus script -i refuses a recording with a trigger"
check_contains "$out" "refused: its schema holds the trigger 'wipe'" "gus script names the trigger"
out=$(timeout 30 "$GUS" sim --trace -i "$f" 2>&1); st=$?
check_status $st 1 "gus sim --trace -i refuses a recording with a trigger"
check_contains "$out" "refused: its schema holds the trigger 'wipe'" "gus sim --trace names the trigger"
out=$(timeout 30 "$GUS" spire train -o "$TMP/m.spire" "$f" 2>&1); st=$?
check_status $st 1 "gus spire train refuses a recording with a trigger"
check_contains "$out" "refused: its schema holds the trigger 'wipe'" "gus spire names the trigger"
[ ! -e "$TMP/m.spire" ]; ok $? "gus spire train wrote no model"

# a name with control characters is shown escaped in the refusal
cp "$rec" "$TMP/esc.data"
sqlite3 "$TMP/esc.data" "CREATE TRIGGER \"a$(printf '\033')[2Jb\" AFTER INSERT ON results BEGIN SELECT 1; END;"
out=$(timeout 30 "$GUS" report -i "$TMP/esc.data" 2>&1); st=$?
check_status $st 1 "a trigger with an escape sequence in its name is refused"
check_contains "$out" "'a\\x1b[2Jb'" "its name is shown escaped"
check_lacks "$out" "$(printf '\033')" "no raw escape reaches the terminal"

# the recording as gus wrote it is still read, and its cache written
out=$(timeout 60 "$GUS" report -i "$rec" 2>&1); st=$?
check_status $st 0 "the untouched recording is reported"
check_contains "$out" "divide_loop" "its report names the hot function"
cached=$(sqlite3 "$rec" "SELECT count(*) FROM results")
[ "$cached" -gt 0 ]; ok $? "the report cached its results in the recording ($cached)"
done_testing
