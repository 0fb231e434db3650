/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phases [CALLS1 [CALLS2]] -- hot function hot: a pointer chase of 100
 * steps per call, CALLS1 calls (default 2000) on a ring of 1024 slots that
 * stays in L1, then CALLS2 calls (default 300) on a ring of 4 Mi slots
 * (16 MiB, beyond the caches): two phases of one function, the second
 * far slower per iteration and most of the time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noipa)) long hot(const uint32_t *next, long steps, uint32_t *at)
{
	uint32_t i = *at;
	long s = 0;
	for (long k = 0; k < steps; k++) {
		i = next[i];
		s += i;
	}
	*at = i;
	return s;
}

/* a ring over N slots in a random order (xorshift, fixed seed) */
static uint32_t *ring(size_t n)
{
	uint32_t *v = malloc(n * sizeof *v), *perm = malloc(n * sizeof *perm);
	if (!v || !perm) {
		fprintf(stderr, "phases: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	uint64_t x = 88172645463325252ull;
	for (size_t i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t j = (size_t)(x % (i + 1));
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		v[perm[i]] = perm[(i + 1) % n];
	free(perm);
	return v;
}

static long count_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 100000000) {
		fprintf(stderr, "usage: phases [CALLS1 [CALLS2]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long calls1 = argc > 1 ? count_arg(argv[1]) : 2000, calls2 = argc > 2 ? count_arg(argv[2]) : 300;
	uint32_t *small = ring(1024), *big = ring(4u << 20);
	uint32_t a = 0, b = 0;
	long s = 0;
	for (long c = 0; c < calls1; c++)
		s += hot(small, 100, &a);
	for (long c = 0; c < calls2; c++)
		s += hot(big, 100, &b);
	printf("%ld\n", s);
	free(small);
	free(big);
	return 0;
}
