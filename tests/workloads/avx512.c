/* SPDX-License-Identifier: GPL-2.0-or-later */
/* avx512: sum16, a loop of AVX-512 adds over CALLS rows (default 200) of
 * 4096 floats, each call on another row: code QEMU 7.2 cannot execute.
 * gus sim --trace falls back to single-stepping it natively with ptrace
 * (tests/cli/test_trace.sh; skipped where the CPU has no AVX-512F). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

#define ROW 4096
static float rows[8][ROW];
float results[8];

__attribute__((noinline, target("avx512f"))) void sum16(int r)
{
	__m512 s = _mm512_setzero_ps();
	for (int i = 0; i < ROW; i += 16)
		s = _mm512_add_ps(s, _mm512_loadu_ps(&rows[r][i]));
	results[r] = _mm512_reduce_add_ps(s);
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 200;
	for (int r = 0; r < 8; r++)
		for (int i = 0; i < ROW; i++)
			rows[r][i] = (float)((i + r) & 7);
	float t = 0;
	for (int c = 0; c < calls; c++) {
		sum16(c & 7);
		t += results[c & 7];
	}
	printf("%.0f\n", t);
	return 0;
}
