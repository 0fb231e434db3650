/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Simulated caches: which level serves working sets of each size, bit-PLRU
 * eviction, access counts, geometry checks and the stream flag. */
#include "tap.h"
#include "sim_internal.h"

#include <stdlib.h>

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define PC 0x401000ull

/* L1D 32 KiB 8-way, L2 1 MiB 16-way, L3 11 ways x 8192 sets (5.5 MiB) */
static const uint64_t sizes[3] = { 32 * KiB, 1 * MiB, 11ull * 8192 * 64 };
static const unsigned ways[3] = { 8, 16, 11 };

static int hierarchy(struct sim_cache *c)
{
	return sim_cache_init(c, 3, sizes, ways, 64);
}

/* Walks BYTES from BASE with 8-byte loads; hist[k] counts the accesses
 * served by level k, seq those flagged sequential. */
static void walk(struct sim_cache *c, uint64_t pc, uint64_t base, uint64_t bytes, uint64_t hist[4],
		 uint64_t *seq)
{
	for (int k = 0; k < 4; k++)
		hist[k] = 0;
	if (seq)
		*seq = 0;
	for (uint64_t off = 0; off < bytes; off += 8) {
		bool s = false;
		int lvl = sim_cache_access(c, pc, base + off, 8, &s);
		hist[lvl]++;
		if (seq)
			*seq += s;
	}
}

static void test_working_sets(void)
{
	struct sim_cache c;
	uint64_t h[4];
	if (!tap_ok(hierarchy(&c) == 0, "3-level hierarchy with an 11-way L3 initialises"))
		return;
	tap_ok(c.lvl[0].sets == 64 && c.lvl[1].sets == 1024 && c.lvl[2].sets == 8192 &&
		       c.lvl[0].line_shift == 6,
	       "sets and line shift derived (%u %u %u, shift %u)", c.lvl[0].sets, c.lvl[1].sets,
	       c.lvl[2].sets, c.lvl[0].line_shift);

	walk(&c, PC, 0x10000000, 16 * KiB, h, NULL);
	tap_ok(h[3] == 256 && h[0] == 2048 - 256, "cold 16 KiB: one memory access per line (%llu)",
	       (unsigned long long)h[3]);
	walk(&c, PC, 0x10000000, 16 * KiB, h, NULL);
	tap_ok(h[0] == 2048, "16 KiB walked again: every access hits L1 (%llu of 2048)",
	       (unsigned long long)h[0]);
	sim_cache_free(&c);

	hierarchy(&c);
	walk(&c, PC, 0x20000000, 64 * KiB, h, NULL);
	int ok = 1;
	for (int r = 0; r < 3; r++) {
		walk(&c, PC, 0x20000000, 64 * KiB, h, NULL);
		/* 7 of 8 loads of a line hit it after the first one brought it in */
		ok &= h[1] == 1024 && h[0] == 8192 - 1024 && h[2] == 0 && h[3] == 0;
	}
	tap_ok(ok, "64 KiB walked repeatedly: each line misses L1 and hits L2 (%llu %llu %llu %llu)",
	       (unsigned long long)h[0], (unsigned long long)h[1], (unsigned long long)h[2],
	       (unsigned long long)h[3]);
	sim_cache_free(&c);

	hierarchy(&c);
	walk(&c, PC, 0x40000000, 4 * MiB, h, NULL);
	walk(&c, PC, 0x40000000, 4 * MiB, h, NULL);
	tap_ok(h[2] == 65536 && h[1] == 0 && h[3] == 0,
	       "4 MiB walked again: every line misses L2 and hits the 5.5 MiB L3 (%llu)",
	       (unsigned long long)h[2]);
	sim_cache_free(&c);

	hierarchy(&c);
	walk(&c, PC, 0x40000000, 16 * MiB, h, NULL);
	walk(&c, PC, 0x40000000, 16 * MiB, h, NULL);
	tap_ok(h[3] == 262144 && h[2] == 0, "16 MiB walked again: every line comes from memory (%llu)",
	       (unsigned long long)h[3]);
	sim_cache_free(&c);
}

/* N lines 4 KiB apart share one set of the 64-set L1 */
static uint64_t cyclic_l1_misses(unsigned n, unsigned rounds)
{
	struct sim_cache c;
	hierarchy(&c);
	for (unsigned i = 0; i < n; i++)
		sim_cache_access(&c, PC, 0x8000000 + i * 4096ull, 8, NULL);
	uint64_t before = c.lvl[0].misses;
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < n; i++)
			sim_cache_access(&c, PC, 0x8000000 + i * 4096ull, 8, NULL);
	uint64_t m = c.lvl[0].misses - before;
	sim_cache_free(&c);
	return m;
}

/* the same on a one-level cache of 11 ways x 4 sets */
static uint64_t cyclic_11way_misses(unsigned n, unsigned rounds)
{
	struct sim_cache c;
	uint64_t sz = 11 * 4 * 64;
	unsigned w = 11;
	if (sim_cache_init(&c, 1, &sz, &w, 64))
		return UINT64_MAX;
	for (unsigned r = 0; r <= rounds; r++) {
		if (r == 1)
			c.lvl[0].misses = 0;
		for (unsigned i = 0; i < n; i++)
			sim_cache_access(&c, PC, 0x1000 + i * 256ull, 4, NULL);
	}
	uint64_t m = c.lvl[0].misses;
	sim_cache_free(&c);
	return m;
}

/* The replacement rule written out for one set of W ways, as a reference:
 * misses of N lines accessed cyclically for ROUNDS rounds after a first. */
static uint64_t plru_reference(unsigned w, unsigned n, unsigned rounds)
{
	int line[16];
	int bit[16];
	uint64_t misses = 0;
	for (unsigned i = 0; i < w; i++)
		line[i] = -1, bit[i] = 0;
	for (unsigned r = 0; r <= rounds; r++) {
		for (unsigned a = 0; a < n; a++) {
			unsigned hit = w, v = w;
			for (unsigned i = 0; i < w; i++)
				if (line[i] == (int)a)
					hit = i;
			if (hit == w) {
				misses += r > 0;
				for (unsigned i = 0; i < w && v == w; i++)
					if (line[i] < 0)
						v = i;
				for (unsigned i = 0; i < w && v == w; i++)
					if (!bit[i])
						v = i;
				line[v] = (int)a;
				hit = v;
			}
			bit[hit] = 1;
			unsigned on = 0;
			for (unsigned i = 0; i < w; i++)
				on += bit[i];
			if (on == w)
				for (unsigned i = 0; i < w; i++)
					bit[i] = i == hit;
		}
	}
	return misses;
}

static void test_plru(void)
{
	uint64_t m8 = cyclic_l1_misses(8, 100), m9 = cyclic_l1_misses(9, 100);
	uint64_t r9 = plru_reference(8, 9, 100);
	tap_ok(m8 == 0, "8 lines in one 8-way set: no misses after the first round (%llu)",
	       (unsigned long long)m8);
	/* bit-PLRU is not LRU: a cyclic overflow misses most, not all, of
	 * the time, as the reference model of the rule shows */
	tap_ok(m9 > 450 && m9 == r9,
	       "9 lines in one 8-way set thrash under cyclic access (%llu of 900, reference %llu)",
	       (unsigned long long)m9, (unsigned long long)r9);
	uint64_t m11 = cyclic_11way_misses(11, 50), m12 = cyclic_11way_misses(12, 50);
	uint64_t r12 = plru_reference(11, 12, 50);
	tap_ok(m11 == 0, "11 lines in an 11-way set stay (%llu misses)", (unsigned long long)m11);
	tap_ok(m12 > 300 && m12 == r12, "12 lines in an 11-way set thrash (%llu of 600, reference %llu)",
	       (unsigned long long)m12, (unsigned long long)r12);
	tap_ok(plru_reference(8, 9, 100) != 0 && plru_reference(8, 8, 100) == 0,
	       "the reference model itself tells 8 lines from 9");

	/* After A0..A7 fill a set only A7's bit is left on (the eighth fill
	 * would have set them all). A hit on A0 sets its bit, so the next
	 * fill must evict A1, the first way whose bit is clear. */
	struct sim_cache c;
	hierarchy(&c);
	for (unsigned i = 0; i < 8; i++)
		sim_cache_access(&c, PC, i * 4096ull, 8, NULL);
	int a0 = sim_cache_access(&c, PC, 0, 8, NULL);
	sim_cache_access(&c, PC, 8 * 4096ull, 8, NULL);
	int a0b = sim_cache_access(&c, PC, 0, 8, NULL);
	int a7 = sim_cache_access(&c, PC, 7 * 4096ull, 8, NULL);
	int a1 = sim_cache_access(&c, PC, 1 * 4096ull, 8, NULL);
	tap_ok(a0 == 0 && a0b == 0 && a7 == 0 && a1 == 1,
	       "PLRU victim is the first way with a clear bit (A0 %d %d, A7 %d, A1 %d)", a0, a0b, a7,
	       a1);
	sim_cache_free(&c);
}

static void test_counts(void)
{
	struct sim_cache c;
	hierarchy(&c);
	uint64_t h[4];
	walk(&c, PC, 0x30000000, 64 * KiB, h, NULL);
	walk(&c, PC, 0x30000000, 64 * KiB, h, NULL);
	/* 16384 loads; the first walk misses everywhere for 1024 lines, the
	 * second misses L1 only */
	tap_ok(c.lvl[0].accesses == 16384 && c.lvl[0].misses == 2048,
	       "L1 counts one lookup per line touched (%llu accesses, %llu misses)",
	       (unsigned long long)c.lvl[0].accesses, (unsigned long long)c.lvl[0].misses);
	tap_ok(c.lvl[1].accesses == c.lvl[0].misses && c.lvl[1].misses == 1024,
	       "L2 is looked up exactly on L1 misses (%llu accesses, %llu misses)",
	       (unsigned long long)c.lvl[1].accesses, (unsigned long long)c.lvl[1].misses);
	tap_ok(c.lvl[2].accesses == c.lvl[1].misses && c.lvl[2].misses == 1024,
	       "L3 is looked up exactly on L2 misses (%llu accesses, %llu misses)",
	       (unsigned long long)c.lvl[2].accesses, (unsigned long long)c.lvl[2].misses);
	sim_cache_free(&c);

	hierarchy(&c);
	uint64_t a = c.lvl[0].accesses;
	sim_cache_access(&c, PC, 0x1000 + 60, 8, NULL);
	tap_ok(c.lvl[0].accesses - a == 2, "an 8-byte access across a line boundary touches 2 lines");
	a = c.lvl[0].accesses;
	sim_cache_access(&c, PC, 0x2000, 0, NULL);
	tap_ok(c.lvl[0].accesses - a == 1, "a zero-length access touches one line");
	a = c.lvl[0].accesses;
	sim_cache_access(&c, PC, 0x3000 + 32, 256, NULL);
	tap_ok(c.lvl[0].accesses - a == 5, "a 256-byte gather range at offset 32 touches 5 lines");
	/* one line warm in L1, its neighbour cold: the deepest level wins */
	sim_cache_access(&c, PC, 0x5000, 8, NULL);
	int lvl = sim_cache_access(&c, PC, 0x5000 + 32, 64, NULL);
	tap_ok(lvl == 3, "a range with one L1 line and one cold line returns memory (%d)", lvl);
	lvl = sim_cache_access(&c, PC, 0x5000 + 32, 64, NULL);
	tap_ok(lvl == 0, "the same range again is all L1 (%d)", lvl);
	sim_cache_free(&c);

	/* a 2-level hierarchy says memory with 2 */
	hierarchy(&c);
	sim_cache_free(&c);
	uint64_t sz2[2] = { 32 * KiB, 256 * KiB };
	unsigned w2[2] = { 8, 4 };
	sim_cache_init(&c, 2, sz2, w2, 64);
	tap_ok(sim_cache_access(&c, PC, 0x9000, 8, NULL) == 2 &&
		       sim_cache_access(&c, PC, 0x9000, 8, NULL) == 0,
	       "with two levels a cold line is served by memory = 2");
	sim_cache_free(&c);
}

static void test_geometry(void)
{
	struct sim_cache c;
	uint64_t s1[1];
	unsigned w1[1];
	int bad = 0;

	s1[0] = 48 * KiB, w1[0] = 8;	/* 96 sets */
	bad += sim_cache_init(&c, 1, s1, w1, 64) == -1;
	s1[0] = 0, w1[0] = 8;
	bad += sim_cache_init(&c, 1, s1, w1, 64) == -1;
	s1[0] = 32 * KiB, w1[0] = 0;
	bad += sim_cache_init(&c, 1, s1, w1, 64) == -1;
	s1[0] = 32 * KiB, w1[0] = 8;
	bad += sim_cache_init(&c, 1, s1, w1, 48) == -1;	/* line not a power of two */
	bad += sim_cache_init(&c, 1, s1, w1, 0) == -1;
	s1[0] = 32 * KiB + 64, w1[0] = 8;	/* not whole sets */
	bad += sim_cache_init(&c, 1, s1, w1, 64) == -1;
	bad += sim_cache_init(&c, 0, sizes, ways, 64) == -1;
	bad += sim_cache_init(&c, 4, sizes, ways, 64) == -1;
	/* a bad last level must not leak the good ones (ASan checks) */
	uint64_t s3[3] = { 32 * KiB, 1 * MiB, 3 * MiB };
	bad += sim_cache_init(&c, 3, s3, ways, 64) == -1;
	tap_ok(bad == 9, "bad geometries are rejected (%d of 9)", bad);
	tap_ok(c.nlevels == 0 && !c.lvl[0].tags, "a rejected init leaves nothing allocated");

	s1[0] = 48 * KiB, w1[0] = 12;	/* Golden Cove L1D: 64 sets */
	int ok = sim_cache_init(&c, 1, s1, w1, 64) == 0 && c.lvl[0].sets == 64;
	sim_cache_free(&c);
	tap_ok(ok, "48 KiB 12-way is 64 sets and accepted");
	s1[0] = 64, w1[0] = 1;	/* one line, direct mapped */
	ok = sim_cache_init(&c, 1, s1, w1, 64) == 0 &&
	     sim_cache_access(&c, PC, 0, 8, NULL) == 1 && sim_cache_access(&c, PC, 8, 8, NULL) == 0 &&
	     sim_cache_access(&c, PC, 64, 8, NULL) == 1 && sim_cache_access(&c, PC, 0, 8, NULL) == 1;
	sim_cache_free(&c);
	tap_ok(ok, "a one-line direct-mapped cache evicts on every new line");

	struct sim_cache z;
	memset(&z, 0, sizeof(z));
	sim_cache_free(&z);
	sim_cache_free(&z);
	tap_ok(1, "sim_cache_free is safe on a zeroed struct, twice");
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_sequential(void)
{
	struct sim_cache c;
	uint64_t h[4], seq;

	hierarchy(&c);
	walk(&c, PC, 0x50000000, 1 * MiB, h, &seq);
	tap_ok(h[3] == 16384 && seq == 16383,
	       "ascending walk: every miss after the first continues the stream (%llu of %llu)",
	       (unsigned long long)seq, (unsigned long long)h[3]);
	walk(&c, PC, 0x50000000, 1 * MiB, h, &seq);
	tap_ok(h[1] == 16384 && seq == 16383,
	       "second walk: L2 hits continuing the stream are flagged too (%llu of %llu)",
	       (unsigned long long)seq, (unsigned long long)h[1]);
	sim_cache_free(&c);

	hierarchy(&c);
	uint64_t n = 0, misses = 0;
	seq = 0;
	for (uint64_t off = 1 * MiB; off > 0; off -= 8) {
		bool s;
		n++;
		if (sim_cache_access(&c, PC, 0x60000000 + off - 8, 8, &s) > 0)
			misses++;
		seq += s;
	}
	tap_ok(misses == 16384 && seq == 16383, "descending walk is a stream too (%llu of %llu)",
	       (unsigned long long)seq, (unsigned long long)misses);
	sim_cache_free(&c);

	hierarchy(&c);
	uint64_t st = 88172645463325252ull;
	seq = misses = 0;
	for (int i = 0; i < 20000; i++) {
		bool s;
		uint64_t a = 0x70000000 + (xorshift(&st) % (64 * MiB) & ~7ull);
		if (sim_cache_access(&c, PC, a, 8, &s) > 0)
			misses++;
		seq += s;
	}
	tap_ok(misses > 19000 && seq < 20, "random walk over 64 MiB: misses not flagged (%llu of %llu)",
	       (unsigned long long)seq, (unsigned long long)misses);
	sim_cache_free(&c);

	hierarchy(&c);
	seq = misses = 0;
	for (uint64_t off = 0; off < 1 * MiB; off += 128) {
		bool s;
		misses += sim_cache_access(&c, PC, 0x50000000 + off, 8, &s) > 0;
		seq += s;
	}
	tap_ok(misses == 8192 && seq == 0, "a two-line stride is not an adjacent-line stream (%llu)",
	       (unsigned long long)seq);
	sim_cache_free(&c);

	/* two instructions interleaving streams over two buffers */
	hierarchy(&c);
	uint64_t seq2 = 0, m2 = 0;
	for (uint64_t off = 0; off < 256 * KiB; off += 64) {
		bool s1, s2;
		m2 += sim_cache_access(&c, 0x401000, 0x10000000 + off, 8, &s1) > 0;
		m2 += sim_cache_access(&c, 0x401abc, 0x20000000 + off, 8, &s2) > 0;
		seq2 += s1 + s2;
	}
	tap_ok(m2 == 8192 && seq2 == 8190, "two pcs keep separate streams (%llu of %llu)",
	       (unsigned long long)seq2, (unsigned long long)m2);
	/* hits never claim to be hidden misses */
	bool s = true;
	int lvl = sim_cache_access(&c, 0x401000, 0x10000000 + 256 * KiB - 64, 8, &s);
	tap_ok(lvl == 0 && !s, "an L1 hit is not flagged sequential");
	sim_cache_free(&c);
}

/* Dirty lines: a store's line in the L1 is written back when evicted,
 * a line only read is not; a write to a line the L1 lacks marks nothing */
static void test_writebacks(void)
{
	struct sim_cache c;
	hierarchy(&c);
	/* one set of the 8-way L1 (4 KiB apart): four stored, four loaded */
	for (unsigned i = 0; i < 8; i++) {
		sim_cache_access(&c, PC, i * 4096ull, 8, NULL);
		if (i < 4)
			sim_cache_write(&c, i * 4096ull, 8);
	}
	tap_ok(c.lvl[0].writebacks == 0, "nothing written back while the set holds its lines (%llu)",
	       (unsigned long long)c.lvl[0].writebacks);
	/* eight more lines evict all eight: the four dirty ones go back */
	for (unsigned i = 8; i < 16; i++)
		sim_cache_access(&c, PC, i * 4096ull, 8, NULL);
	tap_ok(c.lvl[0].writebacks == 4, "the four stored lines are written back when evicted (%llu)",
	       (unsigned long long)c.lvl[0].writebacks);
	/* a refill of a written-back line is clean again */
	sim_cache_access(&c, PC, 0, 8, NULL);
	for (unsigned i = 16; i < 24; i++)
		sim_cache_access(&c, PC, i * 4096ull, 8, NULL);
	tap_ok(c.lvl[0].writebacks == 4, "a line read back after its write-back is clean (%llu)",
	       (unsigned long long)c.lvl[0].writebacks);
	/* a store across two lines dirties both */
	sim_cache_access(&c, PC, 0x100000 + 60, 8, NULL);
	sim_cache_write(&c, 0x100000 + 60, 8);
	uint64_t before = c.lvl[0].writebacks;
	for (unsigned i = 0; i < 16; i++)
		sim_cache_access(&c, PC, 0x200000 + i * 4096ull, 8, NULL);
	for (unsigned i = 0; i < 16; i++)
		sim_cache_access(&c, PC, 0x200040 + i * 4096ull, 8, NULL);
	tap_ok(c.lvl[0].writebacks - before == 2, "a split store dirties both of its lines (%llu)",
	       (unsigned long long)(c.lvl[0].writebacks - before));
	sim_cache_free(&c);
}

int main(void)
{
	test_writebacks();
	test_working_sets();
	test_plru();
	test_counts();
	test_geometry();
	test_sequential();
	return tap_done();
}
