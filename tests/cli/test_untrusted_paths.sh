#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording is untrusted input, and so are the files it leads to: a path
# it names (the program, a region's object, a sampled or traced mapping's
# file) or a debug file such an object names (.gnu_debuglink) that is a
# FIFO, a device, a directory or a symbolic link to one is never waited on
# or read. gus report finishes, says which path is not a regular file, and
# goes on without that object, as it does for a missing one. Every gus
# runs under timeout: a FIFO that blocks would otherwise hang the suite.
. "$TESTDIR/cli/lib.sh"
# the hot regions table has a row of the region NAME (its region column)
check_row() {	# check_row REPORT NAME DESCRIPTION
	printf '%s\n' "$1" | grep -E '^ +[0-9]+ +[0-9.]+% +[0-9]+  ' | grep -qF -- "  $2"; ok $? "$3"
}
command -v sqlite3 >/dev/null || { echo "1..0 # SKIP sqlite3 (the command-line tool) is not installed"; exit 0; }
command -v mkfifo >/dev/null || { echo "1..0 # SKIP mkfifo is not installed"; exit 0; }
SQL="sqlite3 -batch"
cd "$TMP" || exit 1

# a copy of the program, so that the recording names a path of $TMP
cp "$WORKLOADS/callers" prog
timeout 60 "$GUS" record -q -g --tracer none -o rec.data -- ./prog >/dev/null 2>rec.err; st=$?
check_status $st 0 "a recording with call chains is made"
# (--region 1: the static simulation of every region would take long)
out=$(timeout 60 "$GUS" report -i rec.data --region 1 2>&1); st=$?
check_status $st 0 "the recording as made: gus report exits 0"
check_contains "$out" "from_major (prog)" "the recording as made: its callers are named"

mkfifo fifo
mkdir dir
ln -s fifo link

# every path the recording names, pointed at TARGET: the program, the
# regions' objects, the sampled and traced mappings
point() {	# point COPY TARGET
	cp rec.data "$1"
	$SQL "$1" "update meta set value='$2' where key='exe';
		update regions set file='$2' where file like '/%';
		update sample_mmaps set filename='$2' where filename like '/%';
		update mmaps set filename='$2' where filename like '/%';
		update trace_maps set object='$2' where object like '/%';"
}

for kind in fifo zero dir link; do
	case $kind in
	fifo) target=$TMP/fifo what="a FIFO" ;;
	zero) target=/dev/zero what="a character device" ;;
	dir) target=$TMP/dir what="a directory" ;;
	link) target=$TMP/link what="a FIFO" ;;
	esac
	point $kind.data "$target"
	out=$(timeout 20 "$GUS" report -i $kind.data 2>&1); st=$?
	check_status $st 0 "$kind: gus report finishes and exits 0"
	check_contains "$out" "$target: not a regular file ($what)" "$kind: the path is named, as not a regular file"
	check_row "$out" "hot_chain" "$kind: the report goes on (its regions)"
	check_contains "$out" "Callers" "$kind: the report goes on (the regions' callers)"
	check_lacks "$out" "from_major (prog)" "$kind: no caller is named from the object that is gone"
	out=$(timeout 20 "$GUS" report -i $kind.data --json 2>&1); st=$?
	check_status $st 0 "$kind: gus report --json finishes and exits 0"
done

# Intel PT's memory image: the sideband's executable mappings (a recording
# of the PT tracer made by hand: one empty trace chunk is enough for gus
# script to build the image)
point pt.data "$TMP/fifo"
$SQL pt.data "update meta set value='pt' where key='tracer';
	delete from meta where key='missing.trace';
	insert into pt_chunks (cpu, tid, aux_offset, time, flags, data) values (0, 1, 0, 0, 0, zeroblob(8));
	insert into mmaps (time, pid, tid, start, len, pgoff, prot, flags, filename, build_id)
		values (0, 1, 1, 4096, 8192, 0, 5, 0, '$TMP/fifo', (select build_id from regions where build_id is not null limit 1));"
out=$(timeout 20 "$GUS" script -i pt.data 2>&1); st=$?
check_status $st 0 "Intel PT: gus script finishes and exits 0"
check_contains "$out" "could not be read (first: $TMP/fifo)" "Intel PT: the mapped FIFO is named as unreadable"

# the debug file an object names: a stripped program whose .gnu_debuglink
# file, there when it was recorded, is a FIFO now
if objcopy --only-keep-debug prog dl.debug 2>/dev/null && cp prog dl && objcopy --strip-all dl &&
	objcopy --add-gnu-debuglink=dl.debug dl; then
	timeout 60 "$GUS" record -q -g --tracer none -o dl.data -- ./dl >/dev/null 2>&1; st=$?
	check_status $st 0 "debuglink: the stripped program is recorded, names from its debug file"
	rm dl.debug
	mkfifo dl.debug
	out=$(timeout 20 "$GUS" report -i dl.data --region 1 2>&1); st=$?
	check_status $st 0 "debuglink: gus report finishes and exits 0 when the debug file is a FIFO"
	check_row "$out" "hot_chain" "debuglink: the report goes on, with the names the recording holds"
	out=$(timeout 20 "$GUS" sim --bin dl --function hot_chain 2>&1); st=$?
	check_status $st 2 "debuglink: gus sim --bin finishes, the function unknown without its debug file"
	check_contains "$out" "no function 'hot_chain'" "debuglink: gus sim --bin says the function is not there"
else
	echo "# skip: objcopy cannot make a separate debug file"
fi

# the dwz alternate file a program's DWARF names (.gnu_debugaltlink: a
# name and a build-id), which libdw would open itself: a FIFO
printf 'altfifo\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' >altlink
if cp prog alt && objcopy --add-section .gnu_debugaltlink=altlink alt 2>/dev/null; then
	mkfifo altfifo
	timeout 60 "$GUS" record -q --tracer none -o alt.data -- ./alt >/dev/null 2>&1; st=$?
	check_status $st 0 "dwz: a program whose alternate DWARF file is a FIFO is recorded"
	out=$(timeout 20 "$GUS" report -i alt.data --region 1 2>&1); st=$?
	check_status $st 0 "dwz: gus report finishes and exits 0"
	check_contains "$out" "$TMP/altfifo: not a regular file (a FIFO) (the alternate DWARF file of $TMP/alt)" \
		"dwz: the alternate file is named, as not a regular file"
	check_row "$out" "hot_chain" "dwz: the report goes on, without source lines"
else
	echo "# skip: objcopy cannot add a section"
fi

# gus sim --bin on what is not a regular file
out=$(timeout 20 "$GUS" sim --bin fifo --function main 2>&1); st=$?
check_status $st 2 "gus sim --bin FIFO: exits 2 (bad input) at once"
check_contains "$out" "fifo: not a regular file (a FIFO)" "gus sim --bin FIFO: says what the file is"
done_testing
