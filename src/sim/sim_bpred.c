/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Branch predictor: TAGE for directions, a BTB, and an indirect target table. */
#include "sim_internal.h"
#include "machine.h"

#include <stdlib.h>
#include <string.h>

#define BIMODAL_BITS 13
#define TABLE_BITS 10	/* entries of each tagged table, log2, unless the machine says */
#define BTB_SETS 1024
#define BTB_WAYS 4
#define IND_BITS 10
/* The geometry is fixed here but for the tagged tables' size, which the
 * machine may give (`branch-tables`, bp->table_bits); init copies the
 * rest into the struct's fields for reports, the code uses the
 * constants. */
/* useful bits decay this often, so entries that stopped paying off can
 * be reclaimed by allocation */
#define AGE_PERIOD (1u << 18)

static const unsigned tage_hist[SIM_TAGE_TABLES] = { 5, 9, 16, 30, 55, 100 };
/* longer histories alias more contexts into a slot: give them wider tags */
static const unsigned tage_tag_bits[SIM_TAGE_TABLES] = { 9, 9, 10, 10, 11, 12 };
/* odd multipliers, one per table, so the tables hash the same history
 * differently and do not alias in step */
static const uint64_t tage_mul[SIM_TAGE_TABLES] = {
	0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
	0xd6e8feb86659fd93ull, 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
};

/* The history of table I is word 0 and word 1 of ghist under these
 * masks: the lengths fit two words, so the hash is a fixed handful of
 * multiplies per table and there are no folded histories to maintain. */
#define HBITS(len, w) ((len) <= 64 * (w) ? 0 : (len) - 64 * (w) >= 64 ? 64 : (len) - 64 * (w))
/* two half shifts: a mask of 0 or 64 bits without an out-of-range shift */
#define LOWMASK(n) (((1ull << (n) / 2) << ((n) - (n) / 2)) - 1)
#define HMASK(len, w) LOWMASK(HBITS(len, w))
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 32;
	return x;
}

int sim_bpred_init(struct sim_bpred *bp, unsigned max_history, unsigned table_bits)
{
	memset(bp, 0, sizeof(*bp));
	bp->bimodal_bits = BIMODAL_BITS;
	bp->table_bits = table_bits ? table_bits : TABLE_BITS;
	bp->btb_sets = BTB_SETS;
	bp->btb_ways = BTB_WAYS;
	bp->ind_bits = IND_BITS;
	bp->btb_clock = 1;
	bp->bimodal = calloc((size_t)1 << BIMODAL_BITS, sizeof(*bp->bimodal));
	for (int i = 0; i < SIM_TAGE_TABLES; i++) {
		/* a machine whose predictor sees fewer outcomes gets its
		 * longest tables cut to that many, one that sees more its
		 * longest table stretched */
		unsigned len = tage_hist[i];
		if (max_history && (len > max_history || i == SIM_TAGE_TABLES - 1))
			len = max_history;
		bp->hist_len[i] = len;
		bp->hist_mask[0][i] = HMASK(len, 0);
		bp->hist_mask[1][i] = HMASK(len, 1);
		bp->table[i] = calloc((size_t)1 << bp->table_bits, sizeof(*bp->table[i]));
	}
	bp->btb_tag = calloc((size_t)BTB_SETS * BTB_WAYS, sizeof(*bp->btb_tag));
	bp->btb_target = calloc((size_t)BTB_SETS * BTB_WAYS, sizeof(*bp->btb_target));
	bp->btb_lru = calloc((size_t)BTB_SETS * BTB_WAYS, sizeof(*bp->btb_lru));
	bp->ind_tag = calloc((size_t)1 << IND_BITS, sizeof(*bp->ind_tag));
	bp->ind_target = calloc((size_t)1 << IND_BITS, sizeof(*bp->ind_target));
	bool ok = bp->bimodal && bp->btb_tag && bp->btb_target && bp->btb_lru && bp->ind_tag &&
		  bp->ind_target;
	for (int i = 0; i < SIM_TAGE_TABLES; i++)
		ok = ok && bp->table[i];
	if (!ok) {
		sim_bpred_free(bp);
		return -1;
	}
	return 0;
}

void sim_bpred_free(struct sim_bpred *bp)
{
	free(bp->bimodal);
	for (int i = 0; i < SIM_TAGE_TABLES; i++)
		free(bp->table[i]);
	free(bp->btb_tag);
	free(bp->btb_target);
	free(bp->btb_lru);
	free(bp->ind_tag);
	free(bp->ind_target);
	memset(bp, 0, sizeof(*bp));
}

/* ---------------------------------------------------------------- TAGE --- */

_Static_assert(SIM_HIST_WORDS >= 2, "TAGE histories use two words");
_Static_assert(SIM_BPRED_MAX_HISTORY <= 128, "the longest history fits two words");

/* Index and tag of table I: a hash of the pc and of exactly the
 * tage_hist[i] most recent outcomes. The index takes the top bits of the
 * product, which depend on every bit of the history; the tag, from the
 * middle, sees the 44 most recent outcomes and the pc, which is enough
 * once the index has split the older ones. */
static inline uint64_t tage_hash(const struct sim_bpred *bp, uint64_t pch, uint64_t g0, uint64_t g1, int i)
{
	return pch ^ (g0 & bp->hist_mask[0][i]) * tage_mul[i] ^ (g1 & bp->hist_mask[1][i]) * tage_mul[5 - i];
}

/* branch-free: outcomes are what the host predicts worst */
static inline void ctr_update(int8_t *c, bool taken, int lo, int hi)
{
	int v = *c;
	v += taken ? v < hi : -(v > lo);
	*c = (int8_t)v;
}

static void tage_age(struct sim_bpred *bp)
{
	size_t n = (size_t)1 << bp->table_bits;
	for (int i = 0; i < SIM_TAGE_TABLES; i++)
		for (size_t j = 0; j < n; j++)
			bp->table[i][j].useful >>= 1;
}

/* Predicts the direction of the conditional branch whose hashed pc is
 * PCH, trains on TAKEN, and returns whether the prediction was wrong. */
static bool tage_branch(struct sim_bpred *bp, uint64_t pch, bool taken)
{
	uint64_t g0 = bp->ghist[0], g1 = bp->ghist[1];
	unsigned idx[SIM_TAGE_TABLES];
	uint16_t tag[SIM_TAGE_TABLES];
	unsigned hits = 0;
	int provider = -1, alt = -1;

#pragma GCC unroll 8
	for (int i = 0; i < SIM_TAGE_TABLES; i++) {
		uint64_t h = tage_hash(bp, pch, g0, g1, i);
		idx[i] = (unsigned)(h >> (64 - bp->table_bits));
		tag[i] = (uint16_t)((h >> 32) & ((1u << tage_tag_bits[i]) - 1));
		hits |= (unsigned)(bp->table[i][idx[i]].tag == tag[i]) << i;
	}
	/* longest match provides, the next longest is the alternate */
	if (hits) {
		provider = 31 - __builtin_clz(hits);
		hits &= ~(1u << provider);
		if (hits)
			alt = 31 - __builtin_clz(hits);
	}

	int8_t *bim = &bp->bimodal[pch >> (64 - BIMODAL_BITS)];
	bool base_pred = *bim >= 0;
	bool alt_pred = alt >= 0 ? bp->table[alt][idx[alt]].ctr >= 0 : base_pred;
	bool pred = base_pred, prov_pred = base_pred;
	struct sim_tage_entry *pe = NULL;
	if (provider >= 0) {
		pe = &bp->table[provider][idx[provider]];
		prov_pred = pe->ctr >= 0;
		/* a freshly allocated entry has seen its context once: trust the
		 * shorter history until it has been confirmed */
		bool fresh = (pe->ctr == 0 || pe->ctr == -1) && !pe->useful;
		pred = fresh ? alt_pred : prov_pred;
	}
	bool miss = pred != taken;

	if (pe) {
		if (prov_pred != alt_pred) {
			if (prov_pred == taken) {
				if (pe->useful < 3)
					pe->useful++;
			} else if (pe->useful) {
				pe->useful--;
			}
		}
		/* while the provider is still unproven, the alternate keeps
		 * learning too, since it is what was used */
		if (!pe->useful) {
			if (alt >= 0)
				ctr_update(&bp->table[alt][idx[alt]].ctr, taken, -4, 3);
			else
				ctr_update(bim, taken, -2, 1);
		}
		ctr_update(&pe->ctr, taken, -4, 3);
	} else {
		ctr_update(bim, taken, -2, 1);
	}

	/* a wrong guess means the context was too short: claim one entry in
	 * a longer table, skipping the first candidate now and then so two
	 * branches that keep colliding do not evict each other forever */
	if (miss && provider < SIM_TAGE_TABLES - 1) {
		int cand[SIM_TAGE_TABLES], nc = 0;
		for (int i = provider + 1; i < SIM_TAGE_TABLES; i++)
			if (!bp->table[i][idx[i]].useful)
				cand[nc++] = i;
		if (nc) {
			int pick = nc > 1 && (mix64(bp->tick) & 3) == 0 ? cand[1] : cand[0];
			struct sim_tage_entry *e = &bp->table[pick][idx[pick]];
			e->tag = tag[pick];
			e->ctr = taken ? 0 : -1;
			e->useful = 0;
		} else {
			for (int i = provider + 1; i < SIM_TAGE_TABLES; i++)
				bp->table[i][idx[i]].useful--;
		}
	}

	if (++bp->tick % AGE_PERIOD == 0)
		tage_age(bp);

	/* shift the outcome into the global history, word by word */
	for (int w = SIM_HIST_WORDS - 1; w > 0; w--)
		bp->ghist[w] = bp->ghist[w] << 1 | bp->ghist[w - 1] >> 63;
	bp->ghist[0] = bp->ghist[0] << 1 | (uint64_t)taken;
	return miss;
}

/* ----------------------------------------------------------------- BTB --- */

static void btb_renumber(struct sim_bpred *bp)
{
	/* the 32-bit LRU stamps are about to wrap: replace them by their
	 * rank within the set, which keeps the order */
	for (unsigned s = 0; s < BTB_SETS; s++) {
		uint32_t *lru = bp->btb_lru + (size_t)s * BTB_WAYS;
		uint32_t rank[BTB_WAYS];
		for (unsigned w = 0; w < BTB_WAYS; w++) {
			rank[w] = 0;
			if (!lru[w])
				continue;
			rank[w] = 1;
			for (unsigned v = 0; v < BTB_WAYS; v++)
				if (lru[v] && lru[v] < lru[w])
					rank[w]++;
		}
		memcpy(lru, rank, sizeof(rank));
	}
	bp->btb_clock = BTB_WAYS + 1;
}

static inline uint32_t btb_stamp(struct sim_bpred *bp)
{
	if (bp->btb_clock >= UINT32_MAX)
		btb_renumber(bp);
	return (uint32_t)bp->btb_clock++;
}

/* Looks PC up and records PC -> TARGET as the set's most recent entry,
 * evicting the least recent one if PC was not there. Returns whether PC
 * was there, with the target it held in *OLD. */
static inline bool btb_access(struct sim_bpred *bp, uint64_t pc, uint64_t pch,
			      uint64_t target, uint64_t *old)
{
	size_t base = (size_t)(pch & (BTB_SETS - 1)) * BTB_WAYS;
	uint64_t *tags = bp->btb_tag + base;
	uint32_t *lru = bp->btb_lru + base;
	unsigned victim = 0;
	bool hit = false;
	/* tags hold pc + 1 so that 0 is an empty way; stamps of live
	 * entries are never 0, so empty ways are the first victims */
	for (unsigned w = 0; w < BTB_WAYS; w++) {
		if (tags[w] == pc + 1) {
			victim = w;
			hit = true;
			break;
		}
		if (lru[w] < lru[victim])
			victim = w;
	}
	*old = hit ? bp->btb_target[base + victim] : 0;
	uint32_t stamp = btb_stamp(bp);
	tags[victim] = pc + 1;
	bp->btb_target[base + victim] = target;
	lru[victim] = stamp;
	return hit;
}

/* A taken branch whose target the front end did not know, or knew as
 * another, is a BTB miss and a redirect. */
static bool btb_taken(struct sim_bpred *bp, uint64_t pc, uint64_t pch, uint64_t target)
{
	uint64_t old;
	bool hit = btb_access(bp, pc, pch, target, &old) && old == target;
	if (!hit)
		bp->btb_miss++;
	return !hit;
}

/* ------------------------------------------------------------ indirect --- */

/* Indirect targets depend on how control got here: the index and tag mix
 * the pc with the last taken-branch targets, a few outcomes, and the
 * branch's own previous target (which the BTB holds), the one thing that
 * tells apart the steps of a dispatch cycling through handlers when the
 * code between two dispatches is always the same. A longer context would
 * tell more apart but costs one miss per context to learn, and a single
 * table cannot pick the length per branch. */
static bool indirect_branch(struct sim_bpred *bp, uint64_t pc, uint64_t pch, uint64_t target)
{
	uint64_t btb_t;
	/* the BTB tells the front end there is a branch here and gives the
	 * fallback target; it learns the latest target either way */
	bool known = btb_access(bp, pc, pch, target, &btb_t);
	uint64_t ctx = (bp->path & 0xfff) ^ (bp->ghist[0] & 0xf) << 18 ^ btb_t * 0xc2b2ae3d27d4eb4full;
	uint64_t h = mix64(pch ^ ctx * 0x9e3779b97f4a7c15ull);
	size_t i = h & ((1u << IND_BITS) - 1);
	/* the table keeps almost the whole hash: a hit is this context */
	uint64_t tag = h >> IND_BITS | 1;
	bool tagged = bp->ind_tag[i] == tag;
	uint64_t pred = tagged ? bp->ind_target[i] : btb_t;
	bool miss = !(tagged || known) || pred != target;

	bp->indirect++;
	if (miss)
		bp->indirect_miss++;
	if (!known)
		bp->btb_miss++;
	/* the table only keeps what the BTB alone gets wrong */
	if (tagged || miss) {
		bp->ind_tag[i] = tag;
		bp->ind_target[i] = target;
	}
	return miss || !known;
}

/* ---------------------------------------------------------------- entry --- */

static inline void path_push(struct sim_bpred *bp, uint64_t target)
{
	bp->path = bp->path << 6 ^ ((target * 0x9e3779b97f4a7c15ull) >> 58);
}

bool sim_bpred_branch(struct sim_bpred *bp, enum sim_branch_kind kind, uint64_t pc,
		      bool taken, uint64_t target)
{
	bool redirect = false;
	uint64_t pch;
	switch (kind) {
	case SIM_BR_COND:
		pch = mix64(pc);
		bp->cond++;
		if (tage_branch(bp, pch, taken)) {
			bp->cond_miss++;
			redirect = true;
		}
		if (taken) {
			redirect |= btb_taken(bp, pc, pch, target);
			path_push(bp, target);
		}
		break;
	case SIM_BR_DIRECT:
		/* unconditional: TAKEN is not consulted */
		redirect = btb_taken(bp, pc, mix64(pc), target);
		path_push(bp, target);
		break;
	case SIM_BR_INDIRECT:
		redirect = indirect_branch(bp, pc, mix64(pc), target);
		path_push(bp, target);
		break;
	case SIM_BR_RET:
		path_push(bp, target);
		break;
	case SIM_BR_NONE:
	default:
		break;
	}
	return redirect;
}
