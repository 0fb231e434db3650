/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stream [PASSES [MIB]]: the STREAM triad, bound by memory bandwidth.
 * Hot function stream_triad: PASSES passes of a[i] = b[i] + s * c[i] over
 * three arrays of MIB MiB each (default 64: 192 MiB in all, far beyond the
 * last-level cache), two doubles per SSE2 instruction. Every element is used
 * once per pass, so all lines come from memory; the loads are independent,
 * so enough misses are in flight that the line rate, not the latency, sets
 * the time. Default PASSES = 16. Prints a checksum. */
#define _DEFAULT_SOURCE /* madvise */
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

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

HOT_FUNCTION void stream_triad(double *a, const double *b, const double *c, double s, long n,
				long passes);

HOT_FUNCTION void stream_triad(double *a, const double *b, const double *c, double s, long n,
				long passes)
{
	__m128d vs = _mm_set1_pd(s);

	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i += 2)
			_mm_store_pd(a + i, _mm_add_pd(_mm_load_pd(b + i),
						       _mm_mul_pd(vs, _mm_load_pd(c + i))));
}

/* 2 MiB aligned and, where the kernel allows, backed by transparent huge
 * pages: the page faults of the first touch would otherwise cost a good part
 * of the run */
static double *huge_alloc(size_t size)
{
	void *p;

	if (posix_memalign(&p, 2u << 20, size) != 0)
		return NULL;
	(void)madvise(p, size, MADV_HUGEPAGE);
	return p;
}

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "usage: stream [PASSES [MIB]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long passes = 16, mib = 64;

	if (argc > 1)
		passes = arg(argv[1]);
	if (argc > 2)
		mib = arg(argv[2]);
	long n = mib * 1024 * 1024 / (long)sizeof(double);
	double *a = huge_alloc((size_t)n * sizeof *a);
	double *b = huge_alloc((size_t)n * sizeof *b);
	double *c = huge_alloc((size_t)n * sizeof *c);
	if (a == NULL || b == NULL || c == NULL) {
		fprintf(stderr, "stream: cannot allocate 3 x %ld MiB\n", mib);
		return 1;
	}
	for (long i = 0; i < n; i++) { /* a[] is first written by the triad */
		b[i] = 1.0;
		c[i] = 2.0;
	}
	stream_triad(a, b, c, 3.0, n, passes);
	double sum = 0.0;
	for (long i = 0; i < n; i += 4096)
		sum += a[i];
	printf("stream: passes=%ld mib=%ld checksum=%.1f\n", passes, mib, sum);
	free(a);
	free(b);
	free(c);
	return 0;
}
