/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fpchain [N]: a dependent floating-point chain, latency-bound.
 * Hot function fp_chain: N steps of x = x * a + b (mulsd then addsd); each
 * step needs the previous x, so the loop runs at the latency of one multiply
 * plus one add per iteration while the ports stay almost idle.
 * Default N = 40000000. Prints the final x. */
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

HOT_FUNCTION double fp_chain(double x, double a, double b, long n);

HOT_FUNCTION double fp_chain(double x, double a, double b, long n)
{
	for (long i = 0; i < n; i++)
		x = x * a + b;
	return x;
}

int main(int argc, char **argv)
{
	long n = 40000000;

	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || n <= 0) {
			fprintf(stderr, "usage: fpchain [STEPS]\n");
			return 2;
		}
	}
	/* converges towards b / (1 - a) = 1.0: no overflow, no subnormals */
	double x = fp_chain(0.5, 0.999999, 0.000001, n);
	printf("fpchain: steps=%ld x=%.9f\n", n, x);
	return 0;
}
