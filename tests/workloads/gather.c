/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gather: gathers at known places, for the native stepper's data
 * addresses of a vector index (tests/cli/test_stepped.sh). gathers()
 * runs 256 steps i, each three gathers from table[4096] (4-byte
 * elements), every index lane L holding L * 256 + i:
 *   - vgatherdps zmm, 16 lanes, all selected: table + 4 i + 1024 L;
 *   - vgatherdps zmm under opmask 0xaaaa: the odd lanes only, from
 *     table + 4 i + 1024;
 *   - vpgatherdd ymm (the VEX form) under a mask vector selecting lanes
 *     2 and 5: table + 4 i + 2048 and + 5120.
 * The function needs AVX-512F, which QEMU 7.2 cannot run, so gus record
 * steps it natively in run 3. CALLS calls (default 2000). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

#define ROW 4096
static int table[ROW];
int result;

__attribute__((noinline, target("avx512f,avx2"))) void gathers(void)
{
	__m512i lanes16 = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
					     _mm512_set1_epi32(256));
	__m256i lanes8 = _mm256_setr_epi32(0, 256, 512, 768, 1024, 1280, 1536, 1792);
	__m256i sel = _mm256_setr_epi32(0, 0, -1, 0, 0, -1, 0, 0);
	__m512i s = _mm512_setzero_si512();
	__m256i t = _mm256_setzero_si256();
	for (int i = 0; i < 256; i++) {
		__m512i idx16 = _mm512_add_epi32(lanes16, _mm512_set1_epi32(i));
		s = _mm512_add_epi32(s, _mm512_i32gather_epi32(idx16, table, 4));
		s = _mm512_add_epi32(s, _mm512_mask_i32gather_epi32(s, 0xaaaa, idx16, table, 4));
		__m256i idx8 = _mm256_add_epi32(lanes8, _mm256_set1_epi32(i));
		t = _mm256_add_epi32(t, _mm256_mask_i32gather_epi32(t, table, idx8, sel, 4));
	}
	result += _mm512_reduce_add_epi32(s) + _mm256_extract_epi32(t, 0);
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 2000;
	for (int i = 0; i < ROW; i++)
		table[i] = i & 7;
	for (int c = 0; c < calls; c++)
		gathers();
	printf("%d\n", result);
	return 0;
}
