#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The skx machine model knows every instruction form that gcc (and clang,
# when installed) emits for a corpus of typical code at -O2/-O3 with
# -march=skylake-avx512: no instruction falls back to a category rule.
# The Sapphire Rapids, Granite Rapids and Ice Lake-SP models cover the same
# forms.
. "$TESTDIR/cli/lib.sh"

text_range() {	# text_range FILE -> START-END of .text in hex
	set -- $(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" { print $3, $5 }')
	[ $# -eq 2 ] || return 1
	printf '%x-%x' $((0x$1)) $((0x$1 + 0x$2))
}

compilers="gcc"
command -v clang >/dev/null 2>&1 && compilers="gcc clang"
total=0
# form KEYs of the instructions a JSON report (a file) marks approximate
approx_forms() { grep '"approximate": true' "$1" | sed -n 's/.*"form": "\([^"]*\)".*/\1/p' | sort -u | tr '\n' ';'; }
# two configurations per compiler: scalar and 512-bit vector code; clang
# only where it is installed. Each source is compiled apart (a failure
# names it), then all are linked into one object whose .text every model
# simulates once: the corpus's code is all there (a name two sources
# define keeps both bodies in .text), at one start-up of gus per model
# instead of one per source (a start-up under ASan is a tenth of a second)
for cc in $compilers; do
	for cfg in "-O2" "-O3 -ffast-math -mprefer-vector-width=512"; do
		bad=""
		objs=""
		tag=$(printf '%s' "$cc $cfg" | tr -c 'a-zA-Z0-9' _)
		for src in "$TESTDIR"/fixtures/sim-corpus/*.c; do
			name=$(basename "$src" .c)
			# shellcheck disable=SC2086
			cached_compile "$TMP/$name.$tag.o" $cc $cfg -march=skylake-avx512 -fopenmp-simd -w -fPIC -c \
				-o "$TMP/$name.$tag.o" "$src" 2>"$TMP/cc.err" ||
				{ bad="$bad $name(compile failed: $(head -c 200 "$TMP/cc.err"))"; continue; }
			objs="$objs $TMP/$name.$tag.o"
		done
		# scripts/test-all.sh's fuzz stage fills $GUS_TEST_CACHE with the
		# corpus's objects (GUS_CORPUS_COMPILE_ONLY) while the sanitized
		# stage starts its tests, which then copy them
		[ -n "${GUS_CORPUS_COMPILE_ONLY:-}" ] && continue
		# shellcheck disable=SC2086
		$cc -shared -Wl,--allow-multiple-definition -o "$TMP/corpus.$tag.so" $objs 2>"$TMP/ld.err" ||
			bad="$bad (link failed: $(head -c 200 "$TMP/ld.err"))"
		range=$(text_range "$TMP/corpus.$tag.so") || bad="$bad (no .text)"
		insns=0
		for arch in skx spr gnr icx zen4 zen5; do
			# the JSON (10 MB: every instruction of the corpus) into a
			# file that sed reads, not through the shell's variables
			J="$TMP/corpus.json"
			rm -f "$J"
			"$GUS" sim --bin "$TMP/corpus.$tag.so" --range "$range" --iterations 4 $NOSWEEP --json \
				--arch $arch -o "$J" >"$TMP/sim.err" 2>&1
			napprox=$(sed -n 's/.*"approximate_instructions": \([0-9]*\).*/\1/p' "$J" 2>/dev/null)
			per=$(sed -n 's/.*"instructions_per_iteration": \([0-9]*\).*/\1/p' "$J" 2>/dev/null)
			if [ -z "$napprox" ]; then
				why="gus sim failed: $(head -c 200 "$TMP/sim.err")"
			elif [ "$napprox" -ne 0 ]; then
				why="$napprox approximate: $(approx_forms "$J")"
			else
				why=""
			fi
			[ "$arch" = skx ] && insns=${per:-0}
			if [ "$arch" = skx ]; then
				[ -z "$bad$why" ]; ok $? "$cc $cfg -march=skylake-avx512: all $insns instructions of the corpus known to skx"
				[ -n "$bad$why" ] && echo "#  $bad $why"
			else
				[ -z "$why" ] && [ -n "$range" ]; ok $? "$cc $cfg: the same corpus is known to $arch"
				[ -n "$why" ] && echo "#  $why"
			fi
		done
		total=$((total + insns))
	done
done
[ -n "${GUS_CORPUS_COMPILE_ONLY:-}" ] && exit 0
[ "$total" -gt 50000 ]; ok $? "the corpus is not trivial ($total instructions)"
done_testing
