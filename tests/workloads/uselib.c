/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uselib [N] -- hot functions lib_collatz and lib_dot in libhot.so, a
 * shared object of the program's own found beside it (rpath $ORIGIN).
 * N (default 300000): Collatz steps of 1..N, then a dot product of N
 * elements. */
#include "libhot.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char *end;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 300000;
	if (argc > 2 || n < 1 || (argc > 1 && *end)) {
		fprintf(stderr, "usage: uselib [N]\n");
		return 2;
	}
	double *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
	if (!a || !b)
		return 1;
	for (long i = 0; i < n; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 5) * 0.5;
	}
	long steps = lib_collatz(n);
	double dot = lib_dot(a, b, n);
	printf("uselib: %ld steps, dot %.1f\n", steps, dot);
	free(a);
	free(b);
	return 0;
}
