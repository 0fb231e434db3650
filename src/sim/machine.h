/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The in-memory machine model, shared by machine.c (loading, lookup),
 * decode.c (binding instructions) and core.c (timing). */
#ifndef GUS_SIM_MACHINE_H
#define GUS_SIM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

#define SIM_MAX_PORTS 16
#define SIM_MAX_GROUPS 40
#define SIM_MAX_ALIASES 8
#define SIM_BPRED_MAX_HISTORY 128	/* the longest branch-history a machine may give */
#define SIM_FORM_MAX_UOPS 96
#define SIM_FORM_MAX_OPS 6
#define SIM_FORM_MAX_NAMES 48
#define SIM_FORM_HASH 1021

enum {
	SIM_F_ZERO_IDIOM = 1,
	SIM_F_ELIM = 2,
	SIM_F_FUSE = 4,
	SIM_F_NOMICROFUSE = 8,
	SIM_F_SERIAL = 16,
	SIM_F_RENAME = 32,	/* executed at rename: no port, unless it heads a fused jcc */
};

struct sim_form {
	bool category;
	unsigned nnames;
	const char *names[SIM_FORM_MAX_NAMES];
	char *names_buf;
	unsigned nops;
	char op[SIM_FORM_MAX_OPS][6];
	bool rest;
	unsigned nuops;
	uint32_t uop[SIM_FORM_MAX_UOPS];	/* port mask per µop */
	float lat, div;
	/* cycles more for a vector register input that an operation of
	 * another kind produced (not a load, not a form with xin= too): a
	 * unit whose fast bypass is its own (Zen 5's FP adder); 0: none */
	float xin;
	int fused;		/* -1: derive */
	unsigned flags;
};

struct sim_form_ref {
	size_t form;
	const char *name;
	struct sim_form_ref *next;
};

struct sim_resdef {
	char name[24];
	enum sim_res_kind kind;
	uint32_t mask;
	double cap;
};

struct sim_portstr {
	struct sim_portstr *next;
	char s[];
};

struct sim_machine {
	char path[512];
	char name[32];
	/* FNV-1a over the statements read (comments and blank lines left
	 * out), its base's included: what the model says, for a cache key */
	uint64_t digest;
	char alias[SIM_MAX_ALIASES][32];
	unsigned naliases;
	char describe[160];
	/* the model this one is written as differences to ('base NAME'), or ""
	 * (while a base that has a base of its own is read: that one) */
	char base[32];
	/* while its file is read: the layer being read has a base, whose
	 * cache levels it may restate */
	bool reading_derived;
	unsigned nports;
	char portname[SIM_MAX_PORTS][4];
	unsigned window;
	unsigned scheduler;	/* math µops allocated and not yet dispatched (0: no limit but the window) */
	unsigned vector_renames;	/* vector results renamed and not yet retired, at most (0: no limit) */
	unsigned load_buffer, store_buffer;	/* loads, stores issued and not yet retired, at most (0: no limit) */
	unsigned branch_buffer;	/* branches issued and not yet retired, at most (0: no limit) */
	/* conditional outcomes the direction predictor's longest histories
	 * see (0: the predictor's own 100) */
	unsigned branch_history;
	/* log2 of the entries of each of the direction predictor's tagged
	 * tables (0: the predictor's own 1024) */
	unsigned branch_table_bits;
	double frontend, penalty, store_forward, dividers;
	double retire;	/* fused-domain µops retired per cycle (0: no limit) */
	double taken_rate;	/* taken branches the front end follows per cycle, 0 = no limit */
	bool mem_renaming;	/* loads of [base+disp] GPR data get it from the matching store */
	bool mem_renaming_indexed;	/* ... and those of [base+index*scale+disp] too */
	bool topdown_amd;	/* the simulated Top-Down in AMD's words ('topdown amd') */
	/* a taken branch whose bytes cross a CROSS_BYTES-aligned boundary
	 * takes CROSS_CYCLES of the front end's taken-branch budget (0: no rule) */
	unsigned cross_bytes;
	double cross_cycles;
	/* two taken branches in one cycle when they lie in different
	 * TAKEN_PAIR_BYTES-aligned lines (0: one per 1/taken_rate always) */
	unsigned taken_pair_bytes;
	/* `taken-branch-pairs forward`: two taken branches in one cycle when
	 * the first jumped forward (not across a loop's back edge) */
	bool taken_pair_forward;
	/* a taken branch ending a run of instructions (from the last taken
	 * branch's target) that reaches past its first SPLIT_BYTES-aligned
	 * line, that first line holding SPLIT_INSNS or more of the run's
	 * instructions, takes SPLIT_CYCLES of the taken-branch budget (0: no
	 * rule; Zen 5's op-cache fetch) */
	unsigned split_bytes, split_insns;
	double split_cycles;
	bool store_pairs_same_line;	/* two stores commit in a cycle only to one line */
	bool gather_line_per_element;	/* each element of a gather that missed takes a line of the level's bandwidth */
	unsigned split_load_uses;	/* extra load-port uses of a load across a cache line */
	unsigned l1_transfer_uses;	/* load-port uses per line filled into the L1 or written back from it */
	/* extra allocation slots of a load-op un-laminated for its indexed
	 * address (0: none is) */
	double unlaminated_slots;
	double l1_writeback;
	/* issue cycles lost per line moved between the L1D and the L2 */
	double l1_transfer_stall;	/* cycles of the L1's write-back path per dirty line (0: no such limit) */
	unsigned split_store_bytes;	/* a store this wide or wider across a line... */
	double split_store_cycles;	/* ...takes this many more cycles of the store commit */
	unsigned store_forward_wide_bytes;	/* a store this wide or wider (0: none)... */
	double store_forward_wide;	/* ...forwards its data in this many cycles, not store_forward */
	double store_forward_fail;	/* a load an older store covers only in part gets its data this
					 * many cycles after the store retires (0: not modelled) */
	double load_lat[4];	/* GPR, xmm, ymm, zmm */
	unsigned ncache, line;
	uint64_t cache_size[3];
	unsigned cache_ways[3];
	double cache_lat[4];	/* extra latency when served by L1D, L2, L3, memory */
	double cache_gap[4];	/* cycles per line into the level above: -, L2, L3, memory */
	double cache_wgap[4];	/* cycles of that bandwidth per dirty line written back into the level (unless given: gap) */
	double cache_ogap[4];	/* cycles of it per line a store fetches for ownership (unless given: gap) */
	bool cache_wgap_given[4], cache_ogap_given[4];
	bool has_memory;
	unsigned btb_sets, btb_ways;
	uint32_t load_uop[2], store_uop[2];	/* load_uop[1]: a second group of load µops (load-uop P+Q) */
	unsigned nload_uop, nstore_uop;
	size_t nforms, forms_cap;
	struct sim_form *forms;
	struct sim_form_ref *form_hash[SIM_FORM_HASH];
	unsigned ngroups;
	uint32_t group[SIM_MAX_GROUPS];
	unsigned nres;
	struct sim_resdef res[SIM_MAX_RES];
	int r_frontend, r_lat, r_window, r_l2, r_l3, r_mem, r_div, r_branch;
	struct sim_portstr *portstrs;
};

unsigned sim_hash_str(const char *s);
int sim_machine_parse_uops(const struct sim_machine *m, const char *s, struct sim_form *f);
const struct sim_form *sim_machine_lookup(const struct sim_machine *m, const char *mnemonic,
					  const char (*ops)[6], unsigned nops);
const struct sim_form *sim_machine_lookup_category(const struct sim_machine *m, const char *category,
						   const char (*ops)[6], unsigned nops);
unsigned sim_machine_uop_uses(const struct sim_machine *m, uint32_t mask, uint8_t *res, unsigned max);

/* whether a µop on the port group mask is a load: the `load-uop` group, or
 * the second group that statement may name (Zen: vector loads on two of the
 * AGUs) */
static inline bool sim_machine_is_load(const struct sim_machine *m, uint32_t mask)
{
	return mask == m->load_uop[0] || (m->nload_uop == 2 && mask == m->load_uop[1]);
}
const char *sim_machine_portstr(struct sim_machine *m, const uint32_t *uops, unsigned n);

#endif
