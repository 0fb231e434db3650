/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim internals shared by the files of src/sim/: caches, branch
 * predictor, machine model, decoded instructions and model state. */
#ifndef GUS_SIM_INTERNAL_H
#define GUS_SIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* shadow register ids (sim_insn's reads and writes) */
enum {
	REG_GPR = 0,		/* 16 */
	REG_VEC = 16,		/* 32 */
	REG_K = 48,		/* 8 */
	REG_CF = 56,		/* carry: renamed apart from the other flags */
	REG_SPAZO = 57,		/* sign, parity, adjust, zero, overflow */
	REG_RSP = REG_GPR + 4,
};

/* ------------------------------------------------------------ caches --- */

/* One set-associative level with bit-PLRU replacement (one MRU bit per
 * way; when the last clear bit would be set, the others are cleared).
 * Works for any associativity, including the 11 ways of an L3 slice. */
struct sim_cache_level {
	uint64_t size;		/* bytes */
	unsigned ways;
	unsigned line;		/* bytes, a power of two */
	unsigned sets;		/* size / (ways * line) */
	unsigned line_shift;
	uint64_t *tags;		/* sets * ways; 0 = empty, else line number + 1 */
	uint8_t *mru;		/* sets * ways */
	uint8_t *dirty;		/* sets * ways: written since filled */
	uint64_t accesses, misses;
	uint64_t writebacks;	/* dirty lines evicted */
};

/* Inclusive-fill hierarchy: a miss at level k fills every level < k. */
struct sim_cache {
	struct sim_cache_level lvl[3];	/* L1D, L2, L3 */
	unsigned nlevels;
	/* stride detection for the prefetch-hidden flag (see sim_cache_access) */
	uint64_t stream_last_line[16];
	uint8_t stream_hits[16];
};

/* geometry per level: size bytes, ways, line bytes; returns 0 or -1 (bad
 * geometry: sets not a power of two, zero sizes) */
int sim_cache_init(struct sim_cache *c, unsigned nlevels, const uint64_t size[],
		   const unsigned ways[], unsigned line);
void sim_cache_free(struct sim_cache *c);
/* a store to [addr, addr+len): its lines in the L1 become dirty (call
 * after sim_cache_access); an L1 line evicted dirty is counted in
 * lvl[0].writebacks. Returns how many lines were clean before. */
unsigned sim_cache_write(struct sim_cache *c, uint64_t addr, unsigned len);
/* Access every line of [addr, addr+len). Returns the deepest level that
 * served any line: 0 = L1 hit, 1 = L2, 2 = L3, 3 = memory. *sequential
 * is set when the miss continues an ascending line stream seen from the
 * same instruction (pc), which hardware prefetchers hide. */
int sim_cache_access(struct sim_cache *c, uint64_t pc, uint64_t addr, unsigned len,
		     bool *sequential);

/* ------------------------------------------------------ branch predictor --- */

/* TAGE conditional predictor: a bimodal base table and tagged tables
 * indexed with geometric global-history lengths; a set-associative BTB
 * with LRU; an indirect predictor indexed by pc and path history. */
#define SIM_TAGE_TABLES 6
#define SIM_HIST_WORDS 4	/* 256 bits of global history */

struct sim_tage_entry {
	uint16_t tag;
	int8_t ctr;		/* -4..3, taken when >= 0 */
	uint8_t useful;		/* 0..3 */
};

struct sim_bpred {
	int8_t *bimodal;	/* 2-bit counters, -2..1 */
	unsigned bimodal_bits;
	struct sim_tage_entry *table[SIM_TAGE_TABLES];
	unsigned table_bits;
	unsigned hist_len[SIM_TAGE_TABLES];
	uint64_t hist_mask[2][SIM_TAGE_TABLES];	/* of ghist words 0 and 1 */
	uint64_t ghist[SIM_HIST_WORDS];
	uint64_t path;		/* hashed recent branch targets, for indirect */
	uint64_t tick;		/* for periodic useful-bit aging */
	/* BTB: sets x ways of (tag, target, lru) */
	uint64_t *btb_tag, *btb_target;
	uint32_t *btb_lru;
	unsigned btb_sets, btb_ways;
	uint64_t btb_clock;
	/* indirect: direct-mapped tagged table of targets */
	uint64_t *ind_tag, *ind_target;
	unsigned ind_bits;
	uint64_t cond, cond_miss, indirect, indirect_miss, btb_miss;
};

enum sim_branch_kind {
	SIM_BR_NONE = 0,
	SIM_BR_COND,		/* jcc, loop, jrcxz */
	SIM_BR_DIRECT,		/* jmp rel, call rel */
	SIM_BR_INDIRECT,	/* jmp/call through register or memory */
	SIM_BR_RET,
};

/* MAX_HISTORY: the most recent conditional outcomes the longest tables
 * see (0: the built-in 100; at most SIM_BPRED_MAX_HISTORY); TABLE_BITS:
 * log2 of each tagged table's entries (0: the built-in 10) */
int sim_bpred_init(struct sim_bpred *bp, unsigned max_history, unsigned table_bits);
void sim_bpred_free(struct sim_bpred *bp);
/* Predict and update with the real outcome; returns true when the
 * front end would have been redirected (wrong direction, or wrong or
 * unknown target for a taken branch). Returns are predicted by a return
 * stack that is assumed perfect (calls and returns nest in the streams
 * gus simulates). */
bool sim_bpred_branch(struct sim_bpred *bp, enum sim_branch_kind kind, uint64_t pc,
		      bool taken, uint64_t target);

/* The control transfer of the instruction at BYTES (AVAIL of them, at
 * ADDR) as sim_code_add sets it (branch, has_target, target, len; bytes[0]
 * is the caller's), and nothing else of it: what walking a function's
 * code for its loops needs, at a fraction of a full decoding. False when
 * the bytes do not decode. */
struct sim_branch_info {
	unsigned len;
	uint8_t branch;		/* enum sim_branch_kind */
	bool has_target;
	uint64_t target;
};
bool sim_decode_branch(uint64_t addr, const uint8_t *bytes, size_t avail, struct sim_branch_info *out);

/* the instruction array of a code cache, valid until the next sim_code_add */
const struct sim_insn *sim_code_insns(const struct sim_code *c);

#endif
