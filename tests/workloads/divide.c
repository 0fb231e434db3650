/* SPDX-License-Identifier: GPL-2.0-or-later */
/* divide [N]: independent divisions, bound by the divider.
 * Hot function divide_loop: N iterations of four divsd with four different
 * divisors, each added into its own sum. No division waits for another (the
 * divisors advance by an add, the sums by an add: short chains), so the
 * loop runs at the divider's throughput, 4 cycles per divsd on Skylake-SP
 * and Golden Cove. Default N = 16000000 (64 million divisions). Prints the sum. */
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

HOT_FUNCTION double divide_loop(double c, long n);

HOT_FUNCTION double divide_loop(double c, long n)
{
	double d0 = 1.0, d1 = 2.0, d2 = 3.0, d3 = 4.0;
	double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;

	for (long i = 0; i < n; i++) {
		s0 += c / d0;
		s1 += c / d1;
		s2 += c / d2;
		s3 += c / d3;
		d0 += 4.0;
		d1 += 4.0;
		d2 += 4.0;
		d3 += 4.0;
	}
	return (s0 + s1) + (s2 + s3);
}

int main(int argc, char **argv)
{
	long n = 16000000;

	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || n <= 0) {
			fprintf(stderr, "usage: divide [ITERATIONS]\n");
			return 2;
		}
	}
	/* the harmonic series times c */
	printf("divide: divisions=%ld sum=%.9f\n", 4 * n, divide_loop(1.0, n));
	return 0;
}
