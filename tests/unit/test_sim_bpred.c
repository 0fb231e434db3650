/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Simulated branch predictor: TAGE learns what history explains and not
 * noise, the BTB learns targets, indirect targets follow the path, and
 * returns are free. */
#include "tap.h"
#include "sim_internal.h"

#include <stdlib.h>

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* a lone 2-bit counter, to show which patterns need history */
static double bimodal_miss_rate(const bool *out, size_t n, size_t warm)
{
	int c = 0, miss = 0;
	for (size_t i = 0; i < n; i++) {
		bool p = c >= 0;
		if (i >= warm)
			miss += p != out[i];
		if (out[i] && c < 1)
			c++;
		else if (!out[i] && c > -2)
			c--;
	}
	return (double)miss / (double)(n - warm);
}

/* Feeds one conditional branch the outcomes OUT; direction miss rate
 * after WARM predictions. */
static double tage_miss_rate(const bool *out, size_t n, size_t warm)
{
	struct sim_bpred bp;
	if (sim_bpred_init(&bp, 0, 0))
		return -1;
	uint64_t before = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == warm)
			before = bp.cond_miss;
		sim_bpred_branch(&bp, SIM_BR_COND, 0x401230, out[i], 0x401200);
	}
	double r = (double)(bp.cond_miss - before) / (double)(n - warm);
	sim_bpred_free(&bp);
	return r;
}

#define N 10000
static bool out[N];

static void test_patterns(void)
{
	for (int i = 0; i < N; i++)
		out[i] = true;
	double r = tage_miss_rate(out, N, 0);
	tap_ok(r < 0.01, "always-taken loop branch: %.2f%% misses over 10000", 100 * r);

	for (int i = 0; i < N; i++)
		out[i] = i & 1;
	r = tage_miss_rate(out, N, 1000);
	double b = bimodal_miss_rate(out, N, 1000);
	tap_ok(r < 0.05 && b > 0.4, "alternating T/N: TAGE %.2f%%, a 2-bit counter %.0f%%", 100 * r,
	       100 * b);

	static const bool p7[7] = { 1, 1, 0, 1, 0, 0, 1 };
	for (int i = 0; i < N; i++)
		out[i] = p7[i % 7];
	r = tage_miss_rate(out, N, 1000);
	b = bimodal_miss_rate(out, N, 1000);
	tap_ok(r < 0.05 && b > 0.25, "period-7 pattern: TAGE %.2f%%, a 2-bit counter %.0f%%",
	       100 * r, 100 * b);

	for (int i = 0; i < N; i++)
		out[i] = i % 20 != 19;
	r = tage_miss_rate(out, N, 2000);
	b = bimodal_miss_rate(out, N, 2000);
	tap_ok(r < 0.005 && b >= 0.049,
	       "trip count 20: the exit is predicted from history (TAGE %.2f%%, counter %.1f%%)",
	       100 * r, 100 * b);

	uint64_t s = 0x2545f4914f6cdd1dull;
	for (int i = 0; i < N; i++)
		out[i] = xorshift(&s) >> 63;
	r = tage_miss_rate(out, N, 0);
	tap_ok(r > 0.35 && r < 0.65, "pseudo-random outcomes stay unpredictable: %.1f%%", 100 * r);
}

/* A loop of trip count 20 whose body has an alternating branch, and a
 * second branch that repeats a random one: history across branches. */
static void test_correlation(void)
{
	struct sim_bpred bp;
	sim_bpred_init(&bp, 0, 0);
	uint64_t s = 12345, miss_loop = 0, miss_body = 0, warm = 0;
	for (int it = 0; it < 2000; it++) {
		for (int k = 0; k < 20; k++) {
			bool body = k & 1;
			bool m = sim_bpred_branch(&bp, SIM_BR_COND, 0x500010, body, 0x500020);
			if (it >= 500)
				miss_body += m;
			m = sim_bpred_branch(&bp, SIM_BR_COND, 0x500030, k != 19, 0x500000);
			if (it >= 500)
				miss_loop += m;
		}
		if (it == 499)
			warm = bp.cond_miss;
	}
	tap_ok(miss_loop + miss_body == bp.cond_miss - warm && miss_loop < 30 && miss_body < 30,
	       "loop of 20 with an alternating body branch: %llu + %llu misses in 30000",
	       (unsigned long long)miss_loop, (unsigned long long)miss_body);
	sim_bpred_free(&bp);

	sim_bpred_init(&bp, 0, 0);
	uint64_t m1 = 0, m2 = 0;
	for (int i = 0; i < 20000; i++) {
		bool r = xorshift(&s) >> 63;
		bool a = sim_bpred_branch(&bp, SIM_BR_COND, 0x600000, r, 0x600100);
		uint64_t before = bp.cond_miss;
		sim_bpred_branch(&bp, SIM_BR_COND, 0x600100, !r, 0x600200);
		if (i >= 2000) {
			m1 += a;
			m2 += bp.cond_miss - before;
		}
	}
	tap_ok(m2 < 18000 / 50 && m1 > 18000 / 3,
	       "a branch repeating a random one is learned (%llu misses) while the first is not (%llu)",
	       (unsigned long long)m2, (unsigned long long)m1);
	tap_ok(bp.cond == 40000, "every conditional branch is counted (%llu)",
	       (unsigned long long)bp.cond);
	sim_bpred_free(&bp);
}

static void test_btb(void)
{
	struct sim_bpred bp;
	if (!tap_ok(sim_bpred_init(&bp, 0, 0) == 0 && bp.btb_sets == 1024 && bp.btb_ways == 4,
		    "predictor initialises with a 1024 x 4 BTB"))
		return;
	bool r1 = sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x400100, true, 0x400800);
	uint64_t m1 = bp.btb_miss;
	bool r2 = sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x400100, true, 0x400800);
	bool r3 = sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x400100, true, 0x400800);
	tap_ok(r1 && m1 == 1 && !r2 && !r3 && bp.btb_miss == 1,
	       "first direct jump is a BTB miss and a redirect, later ones are not");
	bool r4 = sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x400100, true, 0x400900);
	tap_ok(r4 && bp.btb_miss == 2, "a changed target is a BTB miss");
	tap_ok(bp.cond == 0 && bp.cond_miss == 0 && bp.indirect == 0,
	       "direct jumps touch neither conditional nor indirect counts");

	/* a taken conditional branch needs its target too */
	uint64_t bm = bp.btb_miss;
	sim_bpred_branch(&bp, SIM_BR_COND, 0x400200, true, 0x400180);
	tap_ok(bp.btb_miss == bm + 1, "first taken conditional branch misses the BTB");
	bm = bp.btb_miss;
	for (int i = 0; i < 100; i++)
		sim_bpred_branch(&bp, SIM_BR_COND, 0x400300, false, 0x400380);
	tap_ok(bp.btb_miss == bm, "not-taken branches never miss the BTB");
	sim_bpred_free(&bp);

	sim_bpred_init(&bp, 0, 0);
	for (uint64_t i = 0; i < 100; i++)
		sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x410000 + 16 * i, true, 0x420000 + 64 * i);
	bm = bp.btb_miss;
	int red = 0;
	for (uint64_t i = 0; i < 100; i++)
		red += sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x410000 + 16 * i, true, 0x420000 + 64 * i);
	tap_ok(bm == 100 && bp.btb_miss == 100 && red == 0, "100 jumps fit the BTB (%llu misses)",
	       (unsigned long long)(bp.btb_miss - bm));
	sim_bpred_free(&bp);

	/* the 32-bit LRU stamps wrap in a long run: entries must survive */
	sim_bpred_init(&bp, 0, 0);
	bp.btb_clock = UINT32_MAX - 150;
	for (int pass = 0; pass < 2; pass++) {
		bm = bp.btb_miss;
		for (uint64_t i = 0; i < 100; i++)
			sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x410000 + 16 * i, true, 0x420000 + 64 * i);
	}
	tap_ok(bp.btb_miss == bm && bp.btb_clock < 100,
	       "BTB entries survive the LRU clock wrapping (clock now %llu)",
	       (unsigned long long)bp.btb_clock);
	sim_bpred_free(&bp);

	/* 20000 jumps cycled through 4096 entries with LRU: nothing stays */
	sim_bpred_init(&bp, 0, 0);
	for (int pass = 0; pass < 2; pass++) {
		bm = bp.btb_miss;
		for (uint64_t i = 0; i < 20000; i++)
			sim_bpred_branch(&bp, SIM_BR_DIRECT, 0x1000000 + 8 * i, true, 0x2000000 + i);
	}
	tap_ok(bp.btb_miss - bm > 19900, "20000 jumps overflow the 4096-entry BTB (%llu misses)",
	       (unsigned long long)(bp.btb_miss - bm));
	sim_bpred_free(&bp);
}

static void test_indirect(void)
{
	struct sim_bpred bp;
	sim_bpred_init(&bp, 0, 0);
	uint64_t s = 99, miss = 0, last = 0, last_miss = 0, warm = 0;
	int red = 0;
	for (int i = 0; i < 20000; i++) {
		bool r = xorshift(&s) >> 63;
		sim_bpred_branch(&bp, SIM_BR_COND, 0x700000, r, 0x700040);
		uint64_t tgt = r ? 0x710000 : 0x720000;
		uint64_t before = bp.indirect_miss;
		bool rd = sim_bpred_branch(&bp, SIM_BR_INDIRECT, 0x700080, true, tgt);
		if (i >= 2000) {
			miss += bp.indirect_miss - before;
			last_miss += last != tgt;
			red += rd;
		}
		if (i == 1999)
			warm = bp.indirect_miss;
		last = tgt;
	}
	tap_ok(miss < 18000 / 50 && last_miss > 18000 * 2 / 5,
	       "indirect target set by the previous outcome: %llu misses, a last-target BTB %llu",
	       (unsigned long long)miss, (unsigned long long)last_miss);
	tap_ok(bp.indirect == 20000 && bp.indirect_miss - warm == miss && red == (int)miss,
	       "indirect branches and their misses are counted, a miss is a redirect");
	sim_bpred_free(&bp);

	/* an interpreter's dispatch: the next handler follows from the
	 * last ones, A B C A B C ... */
	sim_bpred_init(&bp, 0, 0);
	static const uint64_t handler[3] = { 0x740000, 0x750000, 0x760000 };
	for (int i = 0; i < 3000; i++) {
		if (i == 300)
			warm = bp.indirect_miss;
		sim_bpred_branch(&bp, SIM_BR_INDIRECT, 0x700200, true, handler[i % 3]);
	}
	tap_ok(bp.indirect_miss - warm == 0 && warm <= 6,
	       "a dispatch cycling A B C is learned from the path (%llu misses to learn, %llu after)",
	       (unsigned long long)warm, (unsigned long long)(bp.indirect_miss - warm));
	sim_bpred_free(&bp);

	/* a single-target indirect call is just the BTB */
	sim_bpred_init(&bp, 0, 0);
	for (int i = 0; i < 1000; i++)
		sim_bpred_branch(&bp, SIM_BR_INDIRECT, 0x700100, true, 0x730000);
	tap_ok(bp.indirect_miss == 1 && bp.btb_miss == 1,
	       "a monomorphic indirect call misses once (%llu, BTB %llu)",
	       (unsigned long long)bp.indirect_miss, (unsigned long long)bp.btb_miss);
	sim_bpred_free(&bp);
}

static void test_returns(void)
{
	struct sim_bpred bp;
	sim_bpred_init(&bp, 0, 0);
	uint64_t s = 7;
	int red = 0;
	for (int i = 0; i < 5000; i++)
		red += sim_bpred_branch(&bp, SIM_BR_RET, 0x800000 + (xorshift(&s) & 0xfff), true,
					xorshift(&s));
	red += sim_bpred_branch(&bp, SIM_BR_NONE, 0x800000, true, 0x900000);
	tap_ok(red == 0 && bp.btb_miss == 0 && bp.cond == 0 && bp.indirect == 0,
	       "returns to random places never mispredict (%d)", red);
	sim_bpred_free(&bp);
}

/* The same stream must give the same counts, and a long one exercises
 * useful-bit aging. */
static void run_mix(struct sim_bpred *bp)
{
	uint64_t s = 4242;
	for (int i = 0; i < 600000; i++) {
		uint64_t x = xorshift(&s);
		uint64_t pc = 0x400000 + (x & 0x3ff0);
		switch ((x >> 20) & 7) {
		case 0:
			sim_bpred_branch(bp, SIM_BR_INDIRECT, pc, true, 0x500000 + ((x >> 30) & 0x30));
			break;
		case 1:
			sim_bpred_branch(bp, SIM_BR_DIRECT, pc, true, pc + 0x100);
			break;
		default:
			sim_bpred_branch(bp, SIM_BR_COND, pc, ((x >> 40) & 3) != 0 || (i & 1), pc - 0x40);
		}
	}
}

static void test_determinism(void)
{
	struct sim_bpred a, b;
	sim_bpred_init(&a, 0, 0);
	sim_bpred_init(&b, 0, 0);
	run_mix(&a);
	run_mix(&b);
	tap_ok(a.cond == b.cond && a.cond_miss == b.cond_miss && a.indirect_miss == b.indirect_miss &&
		       a.btb_miss == b.btb_miss && a.cond_miss > 0 && a.cond_miss < a.cond / 2,
	       "a mixed stream gives the same counts twice (%llu of %llu cond misses)",
	       (unsigned long long)a.cond_miss, (unsigned long long)a.cond);
	sim_bpred_free(&a);
	sim_bpred_free(&b);

	struct sim_bpred z;
	memset(&z, 0, sizeof(z));
	sim_bpred_free(&z);
	sim_bpred_free(&z);
	tap_ok(1, "sim_bpred_free is safe on a zeroed struct, twice");
}

/* A loop of 80 trips, entered again and again: its exit is predicted from
 * the 80 outcomes before it with the built-in histories (100), and missed
 * every time when the machine's predictor sees 68 (spr's branch-history,
 * measured: exits of up to 68 trips predicted, of 72 to 88 not); one of
 * 60 trips is predicted either way. */
static unsigned exit_misses(unsigned trips, unsigned max_history)
{
	struct sim_bpred bp;
	if (sim_bpred_init(&bp, max_history, 0))
		return ~0u;
	unsigned miss = 0;
	for (int entry = 0; entry < 400; entry++)
		for (unsigned k = 0; k < trips; k++) {
			bool m = sim_bpred_branch(&bp, SIM_BR_COND, 0x700040, k + 1 != trips, 0x700000);
			miss += entry >= 200 && m;
		}
	sim_bpred_free(&bp);
	return miss;
}

static void test_history_length(void)
{
	unsigned full = exit_misses(80, 0), cut = exit_misses(80, 68), short60 = exit_misses(60, 68);
	tap_ok(full < 10, "a loop of 80 trips: its exits predicted with 100 outcomes of history (%u misses in 200)",
	       full);
	tap_ok(cut >= 190, "... and missed with 68 (%u misses in 200)", cut);
	tap_ok(short60 < 10, "a loop of 60 trips: predicted with 68 (%u misses in 200)", short60);
	struct sim_bpred bp;
	tap_ok(sim_bpred_init(&bp, 68, 0) == 0 && bp.hist_len[5] == 68 && bp.hist_len[4] == 55 &&
		       bp.hist_mask[1][5] == 0xf && bp.hist_mask[0][5] == ~0ull,
	       "the longest table cut to 68 outcomes, two words of history");
	sim_bpred_free(&bp);
}

/* A branch on the top bit of a linear congruential sequence modulo 2^K
 * (x = 61 x + 59: period 2^K, taken half of the time) beside an
 * always-taken loop branch, as bench/accuracy/bpred.txt times it: Zen 5
 * held 8192 outcomes (5.01 cycles an iteration, the chain's 5) and
 * missed half of 32768 (16.4). Share of the branch's misses over the
 * second half of 4 M iterations. */
static double pattern_misses(unsigned k, unsigned table_bits)
{
	struct sim_bpred bp;
	if (sim_bpred_init(&bp, 0, table_bits))
		return 1;
	uint32_t x = 0, mask = (1u << k) - 1;
	long n = 4000000, miss = 0;
	for (long i = 0; i < n; i++) {
		x = (x * 61 + 59) & mask;
		bool m = sim_bpred_branch(&bp, SIM_BR_COND, 0x401020, x >> (k - 1) & 1, 0x401030);
		sim_bpred_branch(&bp, SIM_BR_COND, 0x401032, true, 0x401000);
		miss += i >= n / 2 && m;
	}
	sim_bpred_free(&bp);
	return (double)miss / (double)(n / 2);
}

static void test_table_size(void)
{
	double small = pattern_misses(13, 0), big = pattern_misses(13, 11), past = pattern_misses(16, 11);
	tap_ok(small > 0.05, "a pattern of 8192 outcomes overflows 1024-entry tables (%.3f missed)", small);
	tap_ok(big < 0.02, "... and fits 2048-entry ones (branch-tables 2048: %.3f missed)", big);
	tap_ok(past > 0.3, "one of 65536 outcomes does not (%.3f missed)", past);
	struct sim_bpred bp;
	tap_ok(sim_bpred_init(&bp, 0, 11) == 0 && bp.table_bits == 11, "the tables' size as asked");
	sim_bpred_free(&bp);
}

int main(void)
{
	test_patterns();
	test_correlation();
	test_btb();
	test_indirect();
	test_returns();
	test_determinism();
	test_history_length();
	test_table_size();
	return tap_done();
}
