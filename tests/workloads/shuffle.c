/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shuffle [N]: independent shuffles, bound by the port-5 shuffle unit.
 * Hot function shuffle_loop: N iterations, each of eight unpcklps/unpckhps
 * (SSE, one asm statement each) on eight independent accumulators. Each
 * accumulator's chain is one 1-cycle shuffle per iteration, so latency is
 * no limit; the eight shuffles of an iteration all need the shuffle port,
 * which takes one per cycle. unpck*ps is chosen over pshufd/shufps because
 * it is port 5 only on both Skylake-SP and Golden Cove (Golden Cove runs
 * pshufd and shufps on ports 1 and 5). Default N = 40000000. Prints a
 * checksum of the accumulators. */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the hot function stays a function of its own, under its own name: not
 * inlined, cloned or specialised (noipa: gcc; clang does not clone) */
#ifdef __has_attribute
#if __has_attribute(noipa)
#define HOT_FUNCTION __attribute__((noinline, noipa))
#endif
#endif
#ifndef HOT_FUNCTION
#define HOT_FUNCTION __attribute__((noinline))
#endif

/* One shuffle instruction each, written as such: compilers fold a chain of
 * constant shuffles (clang turns two unpcklps into one shufps, which runs on
 * ports 1 and 5 on Golden Cove) */
#define UNPCKLPS(x) __asm__("unpcklps %0, %0" : "+x"(x))
#define UNPCKHPS(x) __asm__("unpckhps %0, %0" : "+x"(x))

HOT_FUNCTION void shuffle_loop(long n, float out[4]);

/* the only loop of the function, so that it is the innermost loop gus picks */
HOT_FUNCTION void shuffle_loop(long n, float out[4])
{
	__m128 a0 = _mm_setr_ps(1, 2, 3, 4), a1 = _mm_setr_ps(5, 6, 7, 8);
	__m128 a2 = _mm_setr_ps(9, 10, 11, 12), a3 = _mm_setr_ps(13, 14, 15, 16);
	__m128 a4 = _mm_setr_ps(17, 18, 19, 20), a5 = _mm_setr_ps(21, 22, 23, 24);
	__m128 a6 = _mm_setr_ps(25, 26, 27, 28), a7 = _mm_setr_ps(29, 30, 31, 32);

	for (long i = 0; i < n; i++) {
		UNPCKLPS(a0);
		UNPCKHPS(a1);
		UNPCKLPS(a2);
		UNPCKHPS(a3);
		UNPCKLPS(a4);
		UNPCKHPS(a5);
		UNPCKLPS(a6);
		UNPCKHPS(a7);
	}
	_mm_storeu_ps(out, _mm_add_ps(_mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3)),
				      _mm_add_ps(_mm_add_ps(a4, a5), _mm_add_ps(a6, a7))));
}

int main(int argc, char **argv)
{
	long n = 40000000;

	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || n <= 0) {
			fprintf(stderr, "usage: shuffle [ITERATIONS]\n");
			return 2;
		}
	}
	float f[4];
	shuffle_loop(n, f);
	uint32_t h = 0;
	for (int k = 0; k < 4; k++) {
		uint32_t u;
		memcpy(&u, &f[k], sizeof u);
		h = h * 31 + u;
	}
	printf("shuffle: iterations=%ld checksum=%08x\n", n, (unsigned)h);
	return 0;
}
