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
# two configurations per compiler: scalar and 512-bit vector code; clang
# only where it is installed
for cc in $compilers; do
	for cfg in "-O2" "-O3 -ffast-math -mprefer-vector-width=512"; do
		bad=""
		bad_spr=""
		bad_gnr=""
		bad_icx=""
		insns=0
		for src in "$TESTDIR"/fixtures/sim-corpus/*.c; do
			name=$(basename "$src" .c)
			# shellcheck disable=SC2086
			cached_compile "$TMP/$name.so" $cc $cfg -march=skylake-avx512 -fopenmp-simd -w -shared -fPIC \
				-o "$TMP/$name.so" "$src" 2>"$TMP/cc.err" ||
				{ bad="$bad $name(compile failed: $(head -c 200 "$TMP/cc.err"))"; continue; }
			range=$(text_range "$TMP/$name.so") || { bad="$bad $name(no .text)"; continue; }
			out=$("$GUS" sim --bin "$TMP/$name.so" --range "$range" --iterations 4 --weights 1 \
				--resources FRONTEND --no-search --json --arch spr 2>&1)
			case "$out" in *'"approximate_instructions": 0,'*) ;; *) bad_spr="$bad_spr $name" ;; esac
			out=$("$GUS" sim --bin "$TMP/$name.so" --range "$range" --iterations 4 --weights 1 \
				--resources FRONTEND --no-search --json --arch gnr 2>&1)
			case "$out" in *'"approximate_instructions": 0,'*) ;; *) bad_gnr="$bad_gnr $name" ;; esac
			out=$("$GUS" sim --bin "$TMP/$name.so" --range "$range" --iterations 4 --weights 1 \
				--resources FRONTEND --no-search --json --arch icx 2>&1)
			case "$out" in *'"approximate_instructions": 0,'*) ;; *) bad_icx="$bad_icx $name" ;; esac
			out=$("$GUS" sim --bin "$TMP/$name.so" --range "$range" --iterations 4 --weights 1 \
				--resources FRONTEND --no-search --json 2>&1)
			napprox=$(printf '%s\n' "$out" | sed -n 's/.*"approximate_instructions": \([0-9]*\).*/\1/p')
			per=$(printf '%s\n' "$out" | sed -n 's/.*"instructions_per_iteration": \([0-9]*\).*/\1/p')
			if [ -z "$napprox" ]; then
				bad="$bad $name(gus sim failed: $(printf '%s' "$out" | head -c 200))"
			elif [ "$napprox" -ne 0 ]; then
				forms=$(printf '%s\n' "$out" | grep '"approximate": true' | sed -n 's/.*"form": "\([^"]*\)".*/\1/p' | sort -u | tr '\n' ';')
				bad="$bad $name($napprox approximate: $forms)"
			fi
			insns=$((insns + ${per:-0}))
		done
		total=$((total + insns))
		[ -z "$bad" ]; ok $? "$cc $cfg -march=skylake-avx512: all $insns instructions of the corpus known to skx"
		[ -n "$bad" ] && echo "#  $bad"
		[ -z "$bad_spr" ]; ok $? "$cc $cfg: the same corpus is known to spr"
		[ -n "$bad_spr" ] && echo "#  $bad_spr"
		[ -z "$bad_gnr" ]; ok $? "$cc $cfg: the same corpus is known to gnr"
		[ -n "$bad_gnr" ] && echo "#  $bad_gnr"
		[ -z "$bad_icx" ]; ok $? "$cc $cfg: the same corpus is known to icx"
		[ -n "$bad_icx" ] && echo "#  $bad_icx"
	done
done
[ "$total" -gt 50000 ]; ok $? "the corpus is not trivial ($total instructions)"
done_testing
