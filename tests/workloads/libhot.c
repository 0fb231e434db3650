/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libhot.so: hot code in a shared object of the user's own (the QEMU
 * tracer's objects: a library the program links, one it dlopens). */
#include "libhot.h"

/* the total number of Collatz steps of 1..n: a data-dependent branch */
__attribute__((noinline, noipa)) long lib_collatz(long n)
{
	long steps = 0;
	for (long i = 1; i <= n; i++) {
		long x = i;
		while (x != 1) {
			x = (x & 1) ? 3 * x + 1 : x / 2;
			steps++;
		}
	}
	return steps;
}

/* a dot product: loads and a floating-point add chain */
__attribute__((noinline, noipa)) double lib_dot(const double *a, const double *b, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}
