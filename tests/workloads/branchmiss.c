/* SPDX-License-Identifier: GPL-2.0-or-later */
/* branchmiss [PASSES]: a branch on random data, bound by mispredictions.
 * Hot function branch_loop: PASSES passes over 1 MiB of random bytes (an
 * in-program LCG), adding each byte below 128 into a sum behind a
 * conditional branch. The branch is taken with probability 1/2 and no
 * history predicts it; 1 MiB is far more outcomes than a predictor can
 * learn, so about half of the branches mispredict, each costing a pipeline
 * refill. An empty asm statement in the taken path keeps gcc from turning
 * the branch into a cmov or from vectorizing the loop. Default PASSES = 40.
 * Prints the sum. */
#include <stdint.h>
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

#define SIZE (1L << 20)

HOT_FUNCTION uint64_t branch_loop(const uint8_t *data, long n, long passes);

HOT_FUNCTION uint64_t branch_loop(const uint8_t *data, long n, long passes)
{
	uint64_t sum = 0;

	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++)
			if (data[i] < 128) {
				sum += data[i];
				__asm__ volatile("" : "+r"(sum));
			}
	return sum;
}

int main(int argc, char **argv)
{
	long passes = 40;

	if (argc > 1) {
		char *end;
		passes = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || passes <= 0) {
			fprintf(stderr, "usage: branchmiss [PASSES]\n");
			return 2;
		}
	}
	uint8_t *data = malloc(SIZE);
	if (data == NULL) {
		fprintf(stderr, "branchmiss: out of memory\n");
		return 1;
	}
	uint64_t x = 12345;
	for (long i = 0; i < SIZE; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		data[i] = (uint8_t)(x >> 56); /* the high bits of an LCG are the random ones */
	}
	printf("branchmiss: elements=%ld sum=%llu\n", SIZE * passes,
	       (unsigned long long)branch_loop(data, SIZE, passes));
	free(data);
	return 0;
}
