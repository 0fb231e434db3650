/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tworegions [DIVS [STEPS [MIB]]]: two hot functions with different
 * bottlenecks, for the measured side per region. divide_part runs DIVS
 * iterations of four independent divsd (bound by the divider, as divide);
 * chase_part STEPS loads of a pointer chase through MIB MiB (default 32)
 * of 64-byte nodes in one random cycle (bound by memory latency, as
 * ptrchase). Defaults 30000000 and 1500000: about the same time in each
 * natively. Prints a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

HOT_FUNCTION double divide_part(double c, long n);
HOT_FUNCTION struct node *chase_part(struct node *p, long steps);

HOT_FUNCTION double divide_part(double c, long n)
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

HOT_FUNCTION struct node *chase_part(struct node *p, long steps)
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

int main(int argc, char **argv)
{
	long divs = argc > 1 ? atol(argv[1]) : 30000000;
	long steps = argc > 2 ? atol(argv[2]) : 1500000;
	long mib = argc > 3 ? atol(argv[3]) : 32;
	size_t n = (size_t)(mib > 0 ? mib : 32) * 1024 * 1024 / sizeof(struct node);
	struct node *nodes = malloc(n * sizeof *nodes);
	size_t *order = malloc(n * sizeof *order);
	if (!nodes || !order)
		return 1;
	/* one cycle through all nodes: Sattolo's shuffle */
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(next_random() % i);
		size_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % n]];
	double s = divide_part(3.0, divs);
	struct node *p = chase_part(&nodes[0], steps);
	printf("%.6f %zu\n", s, (size_t)(p - nodes));
	free(order);
	free(nodes);
	return 0;
}
