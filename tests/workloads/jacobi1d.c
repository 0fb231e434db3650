/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jacobi1d [T [N]]: the Jacobi-1D stencil of PolyBench/C, issue-width bound.
 * Hot function jacobi_1d: T time steps, each two sweeps
 *   B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1])
 *   A[i] = 0.33333 * (B[i-1] + B[i] + B[i+1])    for 1 <= i < N-1
 * Default N = 1000: two arrays of 8 KB, deliberately L1-resident, so that
 * no cache level matters. gcc -O2 keeps the sweeps scalar (A and B may
 * alias): per point a load, two adds with a load each, a multiply, a store
 * and the loop's add and cmp/jnz, 7 fused-domain µops. The points are
 * independent (the add chain is short and the window overlaps many points),
 * so latency is hidden and the 4 (Skylake-SP) or 6 (Golden Cove) µops the
 * front end issues per cycle are the limit, with the load ports close
 * behind (3 loads per point). Default T = 60000. Prints the sum of A. */
#include <stdio.h>
#include <stdlib.h>

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

HOT_FUNCTION void jacobi_1d(long tsteps, long n, double *A, double *B);

HOT_FUNCTION void jacobi_1d(long tsteps, long n, double *A, double *B)
{
	for (long t = 0; t < tsteps; t++) {
		for (long i = 1; i < n - 1; i++)
			B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
		for (long i = 1; i < n - 1; i++)
			A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
	}
}

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "usage: jacobi1d [TSTEPS [N]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long tsteps = 60000, n = 1000;

	if (argc > 1)
		tsteps = arg(argv[1]);
	if (argc > 2)
		n = arg(argv[2]);
	double *A = malloc((size_t)n * sizeof *A), *B = malloc((size_t)n * sizeof *B);
	if (A == NULL || B == NULL) {
		fprintf(stderr, "jacobi1d: out of memory\n");
		return 1;
	}
	/* PolyBench's init_array */
	for (long i = 0; i < n; i++) {
		A[i] = ((double)i + 2) / (double)n;
		B[i] = ((double)i + 3) / (double)n;
	}
	jacobi_1d(tsteps, n, A, B);
	double sum = 0.0;
	for (long i = 0; i < n; i++)
		sum += A[i];
	printf("jacobi1d: tsteps=%ld n=%ld sum=%.9f\n", tsteps, n, sum);
	free(A);
	free(B);
	return 0;
}
