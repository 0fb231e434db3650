/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Known memory accesses and loop counts for the QEMU tracer's tests:
 *   arraywalk OUT             fill_array, sum_array and bump_array once
 *                             each over N elements; writes "base=0x... n=N"
 *                             to OUT (stdout stays silent: the tests speak
 *                             TAP there)
 *   arraywalk OUT threads T   the same walk, sum_array run by T threads
 *   arraywalk OUT hot ITER    sum_array ITER times (the benchmark's hot loop)
 *   arraywalk OUT phases ITER sum_array ITER times, then bump_array ITER
 *                             times (a second function entered late)
 *   arraywalk OUT alternate ITER  sum_array ITER times, bump_array after
 *                             every third (two functions at different
 *                             paces, interleaved)
 *   arraywalk OUT chain ITER  lcg_chain over ITER steps: a multiply-add
 *                             dependency chain (latency-bound, for gus sim --trace)
 *   arraywalk OUT exit CODE   the walk, then exit with CODE
 *   arraywalk OUT kill SIG    the walk, then die by SIG
 * Each function is a single loop of exactly N iterations, one element of
 * the global array per iteration, in index order. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

int64_t array[N];
static volatile int64_t sink;

__attribute__((noipa)) void fill_array(int64_t *a, int n);
__attribute__((noipa)) int64_t sum_array(const int64_t *a, int n);
__attribute__((noipa)) void bump_array(int64_t *a, int n);

/* stores only */
__attribute__((noipa)) void fill_array(int64_t *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = i;
}

/* loads only */
__attribute__((noipa)) int64_t sum_array(const int64_t *a, int n)
{
	int64_t s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* a read-modify-write per element */
__attribute__((noipa)) void bump_array(int64_t *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] += 3;
}

__attribute__((noipa)) uint64_t lcg_chain(uint64_t x, long n);
/* each step waits for the previous multiply and add */
__attribute__((noipa)) uint64_t lcg_chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static void *thread_main(void *arg)
{
	(void)arg;
	sink = sum_array(array, N);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: arraywalk OUT [threads T | hot ITER | phases ITER | alternate ITER | chain ITER | exit CODE | kill SIG]\n");
		return 2;
	}
	const char *mode = argc > 3 ? argv[2] : "";
	long arg = argc > 3 ? atol(argv[3]) : 0;
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "base=%p n=%d\n", (void *)array, N);
	fclose(f);

	if (!strcmp(mode, "hot")) {
		int64_t s = 0;
		fill_array(array, N);
		for (long i = 0; i < arg; i++)
			s += sum_array(array, N);
		sink = s;
		return 0;
	}
	if (!strcmp(mode, "phases")) {
		int64_t s = 0;
		fill_array(array, N);
		for (long i = 0; i < arg; i++)
			s += sum_array(array, N);
		for (long i = 0; i < arg; i++)
			bump_array(array, N);
		sink = s + array[N - 1];
		return 0;
	}
	if (!strcmp(mode, "alternate")) {
		int64_t s = 0;
		fill_array(array, N);
		for (long i = 0; i < arg; i++) {
			s += sum_array(array, N);
			if (i % 3 == 0)
				bump_array(array, N);
		}
		sink = s + array[N - 1];
		return 0;
	}
	if (!strcmp(mode, "chain")) {
		sink = (int64_t)lcg_chain(1, arg);
		return 0;
	}
	fill_array(array, N);
	if (!strcmp(mode, "threads")) {
		pthread_t t[16];
		long nt = arg < 1 ? 1 : arg > 16 ? 16 : arg;
		for (long i = 0; i < nt; i++)
			if (pthread_create(&t[i], NULL, thread_main, NULL))
				return 3;
		for (long i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
	} else {
		sink = sum_array(array, N);
	}
	bump_array(array, N);
	if (!strcmp(mode, "exit"))
		return (int)arg;
	if (!strcmp(mode, "kill"))
		raise((int)arg);
	return 0;
}
