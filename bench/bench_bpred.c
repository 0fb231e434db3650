/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Micro-benchmark of the simulated branch predictor: predictions per second. */
/*
 * Build and run from the top of the tree:
 *   gcc -std=c11 -O2 -D_GNU_SOURCE -Isrc/sim bench/bench_bpred.c src/sim/sim_bpred.c \
 *       -o /tmp/bench_bpred && /tmp/bench_bpred
 */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct rec {
	uint64_t pc, target;
	uint8_t kind, taken;
};

#define NREC (1u << 20)
#define NBRANCH 2048
#define ROUNDS 5

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void put(struct rec *r, size_t *n, enum sim_branch_kind kind, uint64_t pc, bool taken,
		uint64_t target)
{
	r[*n] = (struct rec){ .pc = pc, .target = target, .kind = (uint8_t)kind, .taken = taken };
	++*n;
}

/* What gus feeds the predictor: a loop kernel repeated. An inner loop of
 * 13 with a data-dependent branch (1 in 16 goes the other way) and an
 * alternating one, a dispatch through a table of three handlers with
 * call and return, and an outer loop of 100. */
static void make_kernel(struct rec *r, size_t n)
{
	uint64_t s = 0x2545f4914f6cdd1dull;
	size_t k = 0;
	for (unsigned outer = 0; k + 64 < n; outer++) {
		for (unsigned j = 0; j < 13; j++) {
			put(r, &k, SIM_BR_COND, 0x401010, (xorshift(&s) & 15) != 0, 0x401030);
			put(r, &k, SIM_BR_COND, 0x401040, j & 1, 0x401060);
			put(r, &k, SIM_BR_COND, 0x401070, j != 12, 0x401000);
		}
		uint64_t handler = 0x402000 + (outer % 3) * 0x100;
		put(r, &k, SIM_BR_INDIRECT, 0x401080, true, handler);
		put(r, &k, SIM_BR_COND, handler + 0x10, outer & 2, handler + 0x40);
		put(r, &k, SIM_BR_RET, handler + 0x50, true, 0x401086);
		put(r, &k, SIM_BR_DIRECT, 0x401090, true, 0x4010a0);
		put(r, &k, SIM_BR_COND, 0x4010b0, outer % 100 != 99, 0x401000);
	}
	while (k < n)
		put(r, &k, SIM_BR_COND, 0x4010c0, true, 0x4010d0);
}

/* A stress stream: thousands of static branches picked at random, so
 * neither the simulated tables nor the host's own predictor and caches
 * get any help from repetition. Mostly conditional (biased, loops,
 * short patterns, some noise), with direct jumps, indirect calls and
 * returns. */
static void make_random(struct rec *r, size_t n)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	uint32_t iter[NBRANCH] = { 0 };
	for (size_t i = 0; i < n; i++) {
		uint64_t x = xorshift(&s);
		unsigned b = (unsigned)(x % NBRANCH);
		uint64_t pc = 0x400000 + (uint64_t)b * 52;
		struct rec *e = &r[i];
		e->pc = pc;
		e->target = pc - 0x80;
		e->kind = SIM_BR_COND;
		e->taken = 1;
		switch (b % 16) {
		case 0:
			e->kind = SIM_BR_DIRECT;
			e->target = pc + 0x1000;
			break;
		case 1:
			e->kind = SIM_BR_INDIRECT;
			e->target = 0x600000 + ((x >> 32) & 3) * 0x100;
			break;
		case 2:
			e->kind = SIM_BR_RET;
			e->target = 0x500000 + (x >> 40 & 0xff0);
			break;
		case 3:
			e->taken = (x >> 50) & 1;	/* noise */
			break;
		case 4:
		case 5:
			e->taken = iter[b]++ % 7 != 6;	/* loop of 7 */
			break;
		case 6:
			e->taken = iter[b]++ & 1;
			break;
		default:
			e->taken = ((x >> 44) & 15) != 0;	/* biased */
			break;
		}
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Best of ROUNDS passes, so that other load on the host shows less. */
static int run(const char *name, void (*make)(struct rec *, size_t), struct rec *r)
{
	struct sim_bpred bp;
	if (sim_bpred_init(&bp, 0))
		return -1;
	make(r, NREC);
	/* one untimed pass so the timing is of a trained predictor */
	uint64_t redirects = 0;
	for (size_t i = 0; i < NREC; i++)
		redirects += sim_bpred_branch(&bp, r[i].kind, r[i].pc, r[i].taken, r[i].target);
	double best = 1e30;
	for (int k = 0; k < ROUNDS; k++) {
		double t0 = now();
		for (size_t i = 0; i < NREC; i++)
			redirects += sim_bpred_branch(&bp, r[i].kind, r[i].pc, r[i].taken,
						      r[i].target);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	printf("%-7s %6.1f million predictions/s (%5.2f ns each); cond misses %.2f%%, "
	       "indirect misses %.2f%%, BTB misses %llu, redirects %llu\n",
	       name, NREC / best / 1e6, best * 1e9 / NREC,
	       100.0 * (double)bp.cond_miss / (double)(bp.cond ? bp.cond : 1),
	       100.0 * (double)bp.indirect_miss / (double)(bp.indirect ? bp.indirect : 1),
	       (unsigned long long)bp.btb_miss, (unsigned long long)redirects);
	sim_bpred_free(&bp);
	return 0;
}

int main(void)
{
	struct rec *r = malloc(sizeof(*r) * NREC);
	if (!r || run("kernel", make_kernel, r) || run("random", make_random, r)) {
		fprintf(stderr, "bench_bpred: out of memory\n");
		return 1;
	}
	free(r);
	return 0;
}
