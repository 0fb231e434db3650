/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads2 [CALLS1 [CALLS2]] -- hot function hot, run by two threads at
 * once: one chases pointers around a ring of 1024 slots that stays in L1
 * (CALLS1 calls of 100 steps, default 300000), the other around a ring of
 * 4 Mi slots (16 MiB) from memory (CALLS2 calls, default 10000), which
 * takes most of the time. One function, two answers: one per thread. */
#include <pthread.h>
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

static uint32_t *ring(size_t n)
{
	uint32_t *v = malloc(n * sizeof *v), *perm = malloc(n * sizeof *perm);
	if (!v || !perm) {
		fprintf(stderr, "threads2: out of memory\n");
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

struct job {
	const uint32_t *ring;
	long calls;
	long sum;
};

static void *run(void *p)
{
	struct job *j = p;
	uint32_t at = 0;
	for (long c = 0; c < j->calls; c++)
		j->sum += hot(j->ring, 100, &at);
	return NULL;
}

static long count_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 100000000) {
		fprintf(stderr, "usage: threads2 [CALLS1 [CALLS2]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct job l1 = { ring(1024), argc > 1 ? count_arg(argv[1]) : 300000, 0 };
	struct job mem = { ring(4u << 20), argc > 2 ? count_arg(argv[2]) : 10000, 0 };
	pthread_t a, b;
	/* the L1 thread first: created first, it is thread 1 in both runs */
	if (pthread_create(&a, NULL, run, &l1) || pthread_create(&b, NULL, run, &mem)) {
		fprintf(stderr, "threads2: cannot create threads\n");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%ld\n", l1.sum + mem.sum);
	free((void *)l1.ring);
	free((void *)mem.ring);
	return 0;
}
