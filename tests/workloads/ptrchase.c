/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptrchase [STEPS [MIB]]: a pointer chase, bound by memory latency.
 * Hot function chase: STEPS loads p = p->next through a buffer of MIB MiB
 * (default 32) of 64-byte nodes, one node per cache line, linked in one
 * random cycle through all of them (Sattolo's shuffle of an in-program
 * xorshift generator). Each load's address is the previous load's data, so
 * there is one miss in flight at a time and every step pays the full load
 * latency of the level that holds the node: far beyond L2, and with random
 * order no prefetcher helps. Default STEPS = 1500000. Prints the index of
 * the node reached. */
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

struct node {
	struct node *next;
	char pad[64 - sizeof(struct node *)];
};

HOT_FUNCTION struct node *chase(struct node *p, long steps);

HOT_FUNCTION struct node *chase(struct node *p, long steps)
{
	for (long s = 0; s < steps; s++)
		p = p->next;
	return p;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static long arg(const char *s, const char *usage)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0) {
		fprintf(stderr, "%s", usage);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char usage[] = "usage: ptrchase [STEPS [MIB]]\n";
	long steps = 1500000, mib = 32;

	if (argc > 1)
		steps = arg(argv[1], usage);
	if (argc > 2)
		mib = arg(argv[2], usage);
	size_t n = (size_t)mib * 1024 * 1024 / sizeof(struct node);
	struct node *nodes = aligned_alloc(64, n * sizeof *nodes);
	uint32_t *perm = malloc(n * sizeof *perm);
	if (nodes == NULL || perm == NULL || n < 2) {
		fprintf(stderr, "ptrchase: cannot allocate %ld MiB\n", mib);
		return 1;
	}
	/* Sattolo: a random permutation that is a single cycle */
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_random() % i);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		nodes[i].next = &nodes[perm[i]];
	free(perm);

	struct node *end = chase(&nodes[0], steps);
	printf("ptrchase: steps=%ld nodes=%zu end=%td\n", steps, n, end - nodes);
	free(nodes);
	return 0;
}
