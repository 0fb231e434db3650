/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core model (Algorithm 1 of Pompougnac et al. 2024) and the session
 * that runs many configurations over one pass of the stream: decoding,
 * caches and branch prediction do not depend on resource capacities, so
 * they run once per record; only the timing runs per configuration. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "sim_internal.h"

#define NREGS 64
#define SHADOW_BITS 12
#define CHUNK 65536

/* the structures an instruction holds from issue to retirement */
enum { HELD_VREGS = 1, HELD_LOADS = 2, HELD_STORES = 4, HELD_BRANCHES = 8 };

/* what the stream did at one record, shared by all configurations */
struct annot {
	uint8_t mispredict;
	uint8_t taken;
	uint8_t level[2];	/* 0 L1 ... 3 memory */
	uint8_t seq[2];		/* miss hidden by a stream prefetcher */
	uint8_t ncells[2];
	uint8_t off[2];		/* the first byte's offset in its cell (0 for an expression) */
	uint8_t split;		/* bit K: memory operand K crosses a cache line (known address) */
	uint8_t writebacks;	/* dirty L1 lines its accesses evicted */
	uint8_t wb_level;	/* down to which level they are written (1: the L2) */
	uint8_t held;		/* HELD_* of the entries held to retirement it takes */
	uint64_t key[2];	/* shadow-memory cell (address or expression) */
	uint64_t line[2];	/* cache line (address, or expression of its 64 bytes) */
};

/* CAP entries of a structure an instruction holds from issue until it
 * retires (0: no limit): the retire times of the last CAP holders,
 * oldest at POS */
struct inflight {
	double *ring;
	unsigned cap, pos;
};

struct model {
	double gap[SIM_MAX_RES];
	double avail[SIM_MAX_RES];
	double reg[NREGS];
	/* made by an operation whose result an xin= consumer gets late (a
	 * vector result of another unit's operation: not a load's, not an
	 * xin= form's) */
	bool reg_cross[NREGS];
	double latw, penalty, store_fwd, br_inc, br_acc, width;
	double load_lat[4], level_lat[4];
	unsigned window, pos;
	double *ring;
	/* entries held from issue to retirement: vector rename registers,
	 * the load and the store buffer, the branches' buffer */
	struct inflight vregs, loads, stores, branches;
	uint8_t held;		/* HELD_* of those with a capacity */
	double recover, last_retire;
	/* the mispredicted branch that set RECOVER: when it resolved, and
	 * when the wrong path it was fetched past would have filled the
	 * window */
	double recover_resolve, recover_fill;
	/* the last arrival of data a load served beyond the L1 brings (of
	 * the instructions so far): a backend stall before it has a miss
	 * outstanding, Memory Bound as the counters tell it */
	double miss_until;
	/* in-order retirement, RET_GAP cycles per fused-domain µop: free from
	 * RET_AVAIL (0: no width limit) */
	double ret_gap, ret_avail;
	uint64_t *sm_key;
	double *sm_val;
	double *sm_ren;		/* store data ready, for memory renaming; -1 if not renamable */
	/* the store that wrote each cell: its first cell, the offset of its
	 * first byte there and its bytes (a load it covers only in part
	 * cannot take its data forwarded), and when it reaches the cache */
	uint64_t *sm_skey;
	uint8_t *sm_soff, *sm_sbytes;
	double *sm_commit;
	double taken_gap, taken_avail;
	double cross_gap;	/* taken-branch budget of a branch across the fetch window */
	double split_gap;	/* ... and of one ending a run split over lines (fetch-line-split) */
	/* the last taken branch's line and time, whether a second one in
	 * another line may still join its cycle */
	double tk_last;
	uint64_t tk_line;
	bool tk_open;
	/* the run of instructions since the last taken branch: its first
	 * line (fetch-line-split), how many of its instructions start there,
	 * and whether the next instruction starts a new run */
	uint64_t run_line;
	unsigned run_first;
	bool run_new;
	unsigned split_shift;	/* log2 of the machine's split_bytes */
	/* store commit: the last store's line and cycle, whether it is paired */
	double sc_avail, sc_last;
	/* the L1's write-back path: free from WB_AVAIL, WB_GAP per line */
	double wb_avail, wb_gap;
	/* of a level's bandwidth per line (the machine's wgap and ogap over
	 * its gap): a dirty line written back into it, a line fetched from it
	 * for a store's ownership */
	double wb_line[4], own_line[4];
	double l1_stall;	/* issue cycles per line moved in or out of the L1 */
	uint64_t sc_line;
	bool sc_open;
	bool renaming;
	bool renaming_indexed;
	uint64_t focus_lo, focus_hi;
	/* the scheduler: a min-heap of the dispatch times of the math µops
	 * allocated and not yet dispatched (as far as issue has come) */
	double *rs;
	unsigned rs_n, rs_cap;
	/* the load ports' resources (what L1 line transfers take) */
	uint8_t load_res[SIM_MAX_LOAD_USES];
	unsigned nload_res;
	struct sim_stats st;
	bool fe_is_issue;
};

struct worker_arg;

struct sim_session {
	const struct sim_machine *m;
	const struct sim_code *code;
	size_t ncfg;
	struct model *models;
	struct sim_cache cache;
	struct sim_bpred bp;
	uint32_t ver[NREGS];
	/* without data addresses: each GPR's offset from a value taken as
	 * line-aligned when it was set (pointers and indices start aligned
	 * and advance by their constant steps), and which setting (0: an
	 * address or number the code names, so OFF is the value) */
	uint64_t ptr_off[16];	/* modulo 2^64 */
	uint32_t ptr_gen[16], gens;
	/* where data without addresses lives (0 L1 ... 3 memory): above 0,
	 * the accesses are placed by the pointers and run through the caches,
	 * what the L1 lacks coming from this level */
	unsigned data_level;
	/* the records' addresses come from following the code (a static
	 * path), not from a run: they tell which accesses reuse a line, and a
	 * line the caches lack comes from DATA_LEVEL at most */
	bool addresses_followed;
	struct annot *ann;
	const struct annot *chunk_ann;	/* the chunk's annotations: ANN, or the tape's */
	const struct sim_rec *chunk;
	size_t chunk_n;
	uint64_t chunk_fused, chunk_uops;	/* the chunk's fused-domain and executed µops */
	unsigned threads;
	pthread_t *tid;
	pthread_barrier_t start, done;
	bool quit;
	struct worker_arg *wargs;
	struct sim_events ev;
	/* the predictor's counts and model 0's mispredictions where the
	 * counting started (sim_session_count_from_here) */
	struct sim_events ev0;
	/* the annotations kept (RECORD) or replayed (REPLAY, from record
	 * AT on) instead of the prepass */
	struct sim_tape *record;
	const struct sim_tape *replay;
	size_t at;
};

/* What the prepass made of a stream's records: the annotations in feed
 * order, and the instruction of each (sim.h) */
struct sim_tape {
	struct annot *ann;
	uint32_t *insn;
	size_t n, cap;
};

struct sim_tape *sim_tape_new(void)
{
	struct sim_tape *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	return t;
}

void sim_tape_free(struct sim_tape *t)
{
	if (!t)
		return;
	free(t->ann);
	free(t->insn);
	free(t);
}

void sim_tape_reserve(struct sim_tape *t, size_t n)
{
	if (n <= t->cap)
		return;
	struct annot *a = realloc(t->ann, n * sizeof *t->ann);
	uint32_t *in = a ? realloc(t->insn, n * sizeof *t->insn) : NULL;
	if (a)
		t->ann = a;
	if (in) {
		t->insn = in;
		t->cap = n;
	}
}

size_t sim_tape_records(const struct sim_tape *t)
{
	return t ? t->n : 0;
}

bool sim_tape_holds(const struct sim_tape *t, const struct sim_rec *recs, size_t n)
{
	if (!t || t->n < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (t->insn[i] != recs[i].insn)
			return false;
	return true;
}

static void tape_add(struct sim_tape *t, const struct annot *ann, const struct sim_rec *recs, size_t n)
{
	if (t->n + n > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : CHUNK;
		while (cap < t->n + n)
			cap *= 2;
		t->ann = realloc(t->ann, cap * sizeof *t->ann);
		t->insn = realloc(t->insn, cap * sizeof *t->insn);
		if (!t->ann || !t->insn)
			abort();
		t->cap = cap;
	}
	memcpy(t->ann + t->n, ann, n * sizeof *ann);
	for (size_t i = 0; i < n; i++)
		t->insn[t->n + i] = recs[i].insn;
	t->n += n;
}

static inline double dmax(double a, double b)
{
	return a > b ? a : b;
}

static inline double dmin(double a, double b)
{
	return a < b ? a : b;
}

static void inflight_init(struct inflight *f, unsigned n, double scale)
{
	f->ring = NULL;
	f->cap = f->pos = 0;
	if (!n)
		return;
	double c = floor(n * scale + 1e-9);
	f->cap = c < 1 ? 1 : c > 1e6 ? 1000000 : (unsigned)c;
	f->ring = calloc(f->cap, sizeof *f->ring);
	if (!f->ring)
		abort();
}

/* when K more entries are free */
static inline double inflight_free_at(const struct inflight *f, unsigned k)
{
	if (!k || !f->cap)
		return 0;
	if (k == 1)
		return f->ring[f->pos];
	unsigned p = f->pos + (k > f->cap ? f->cap : k) - 1;
	while (p >= f->cap)
		p -= f->cap;
	return f->ring[p];
}

static inline void inflight_take(struct inflight *f, unsigned k, double retire)
{
	if (!f->cap)
		return;
	for (unsigned i = 0; i < k; i++) {
		f->ring[f->pos] = retire;
		f->pos = f->pos + 1 == f->cap ? 0 : f->pos + 1;
	}
}

static void model_init(struct model *md, const struct sim_machine *m, const struct sim_config *cfg)
{
	memset(md, 0, sizeof *md);
	for (unsigned r = 0; r < m->nres; r++) {
		double w = cfg->w[r] > 0 ? cfg->w[r] : 1;
		/* throughput resources advance by 1/capacity per use (the
		 * divider's use is multiplied by the instruction's busy cycles);
		 * INST_LAT, INST_WINDOW and BRANCH are read from the weights */
		md->gap[r] = 1.0 / (m->res[r].cap * w);
	}
	double wl = cfg->w[m->r_lat] > 0 ? cfg->w[m->r_lat] : 1;
	double ww = cfg->w[m->r_window] > 0 ? cfg->w[m->r_window] : 1;
	double wb = cfg->w[m->r_branch] > 0 ? cfg->w[m->r_branch] : 1;
	md->latw = 1.0 / wl;
	md->br_inc = 1.0 / wb;
	md->penalty = m->penalty;
	md->store_fwd = m->store_forward;
	md->width = m->frontend;
	for (int c = 0; c < 4; c++) {
		md->load_lat[c] = m->load_lat[c];
		md->level_lat[c] = m->cache_lat[c];
	}
	double wsz = floor(m->window * ww + 1e-9);
	md->window = wsz < 1 ? 1 : wsz > 1e6 ? 1000000 : (unsigned)wsz;
	md->ring = calloc(md->window, sizeof *md->ring);
	/* a vector result holds a physical register until it retires (the
	 * register is freed when the next writer of its name retires: soon
	 * after, in a loop); loads and stores hold their buffers' entries */
	inflight_init(&md->vregs, m->vector_renames, ww);
	inflight_init(&md->loads, m->load_buffer, ww);
	inflight_init(&md->stores, m->store_buffer, ww);
	inflight_init(&md->branches, m->branch_buffer, ww);
	md->held = (md->vregs.cap ? HELD_VREGS : 0) | (md->loads.cap ? HELD_LOADS : 0) |
		   (md->stores.cap ? HELD_STORES : 0) | (md->branches.cap ? HELD_BRANCHES : 0);
	md->sm_key = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_key);
	md->sm_val = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_val);
	md->sm_ren = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_ren);
	md->sm_skey = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_skey);
	md->sm_soff = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_soff);
	md->sm_sbytes = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_sbytes);
	md->sm_commit = calloc((size_t)1 << SHADOW_BITS, sizeof *md->sm_commit);
	if (!md->ring || !md->sm_key || !md->sm_val || !md->sm_ren || !md->sm_skey || !md->sm_soff ||
	    !md->sm_sbytes || !md->sm_commit)
		abort();
	/* the taken-branch rate is part of the front end's capacity */
	double wf = cfg->w[m->r_frontend] > 0 ? cfg->w[m->r_frontend] : 1;
	md->taken_gap = m->taken_rate > 0 ? 1.0 / (m->taken_rate * wf) : 0;
	/* the retire width scales with the front end's: both are the
	 * pipeline's width, and a wider issue behind a fixed retirement
	 * would show no gain the hardware could have */
	md->ret_gap = m->retire > 0 ? 1.0 / (m->retire * wf) : 0;
	md->cross_gap = m->cross_bytes ? m->cross_cycles / wf : 0;
	md->split_gap = m->split_bytes ? m->split_cycles / wf : 0;
	/* split_bytes is a power of two (window_bytes): a shift, not a
	 * division, for every instruction */
	md->split_shift = m->split_bytes ? (unsigned)__builtin_ctz(m->split_bytes) : 0;
	md->run_new = true;
	md->wb_gap = m->cache_gap[1] > 0 ? m->l1_writeback / m->cache_gap[1] * md->gap[m->r_l2] : m->l1_writeback;
	md->l1_stall = m->cache_gap[1] > 0 ? m->l1_transfer_stall / m->cache_gap[1] * md->gap[m->r_l2]
					   : m->l1_transfer_stall;
	for (unsigned l = 1; l < 4; l++) {
		md->wb_line[l] = m->cache_wgap_given[l] && m->cache_gap[l] > 0 ? m->cache_wgap[l] / m->cache_gap[l] : 1;
		md->own_line[l] = m->cache_ogap_given[l] && m->cache_gap[l] > 0 ? m->cache_ogap[l] / m->cache_gap[l] : 1;
	}
	md->renaming = m->mem_renaming;
	md->renaming_indexed = m->mem_renaming_indexed;
	/* every group of load pipes (Zen's vector pipes too): a line moved
	 * in or out of the L1 takes a cycle of the data array they share */
	md->nload_res = 0;
	for (unsigned g = 0; g < m->nload_uop; g++) {
		uint8_t res[SIM_MAX_LOAD_USES];
		unsigned n = sim_machine_uop_uses(m, m->load_uop[g], res, SIM_MAX_LOAD_USES);
		for (unsigned i = 0; i < n; i++) {
			bool have = false;
			for (unsigned j = 0; j < md->nload_res; j++)
				have |= md->load_res[j] == res[i];
			if (!have && md->nload_res < SIM_MAX_LOAD_USES)
				md->load_res[md->nload_res++] = res[i];
		}
	}
	if (m->scheduler) {
		/* the scheduler grows with the window in the sensitivity
		 * analysis: both are the instruction window */
		double c = floor(m->scheduler * ww + 1e-9);
		md->rs_cap = c < 1 ? 1 : c > 1e6 ? 1000000 : (unsigned)c;
		md->rs = malloc(md->rs_cap * sizeof *md->rs);
		if (!md->rs)
			abort();
	}
}

static void rs_pop(struct model *md)
{
	double *h = md->rs;
	unsigned n = --md->rs_n, i = 0;
	double v = h[n];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

static void rs_push(struct model *md, double t)
{
	double *h = md->rs;
	unsigned i = md->rs_n++;
	while (i) {
		unsigned p = (i - 1) / 2;
		if (h[p] <= t)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = t;
}

/* the issue time of E math µops at or after T: the scheduler's entries
 * dispatched by then are free, and while it lacks E free ones the issue
 * waits for the next dispatch */
static double rs_issue(struct model *md, double t, unsigned e)
{
	while (md->rs_n && md->rs[0] <= t)
		rs_pop(md);
	if (e > md->rs_cap)
		e = md->rs_cap;
	while (md->rs_n + e > md->rs_cap) {
		t = dmax(t, md->rs[0]);
		rs_pop(md);
	}
	return t;
}

static void model_free(struct model *md)
{
	free(md->ring);
	free(md->vregs.ring);
	free(md->loads.ring);
	free(md->stores.ring);
	free(md->branches.ring);
	free(md->sm_key);
	free(md->sm_val);
	free(md->sm_ren);
	free(md->sm_skey);
	free(md->sm_soff);
	free(md->sm_sbytes);
	free(md->sm_commit);
	free(md->rs);
}

static inline size_t sm_slot(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(k >> (64 - SHADOW_BITS));
}

/* a resource with gap g used at or after lower bound LB: the use may start
 * at floor(avail) (several uses share a cycle when the capacity is above
 * one), and the resource is busy for g more */
/* floor() for the non-negative times of the model, without the libm call.
 * A resource of capacity 6 advances by a sixth per use, which a double
 * does not hold exactly: six uses from cycle k end a hair below k+1, and
 * a seventh would start in cycle k. The epsilon (far under any gap, and
 * over the rounding of times up to 10^9 cycles) keeps them at six. */
static inline double tfloor(double t)
{
	return (double)(int64_t)(t + 1e-6);
}

/* whether LEN bytes at ADDR cross a B-byte aligned boundary */
static inline bool crosses(uint64_t addr, unsigned len, unsigned b)
{
	return len && addr / b != (addr + len - 1) / b;
}

static inline double res_start(const struct model *md, unsigned r)
{
	return tfloor(md->avail[r]);
}

/* the bandwidth resource crossed by a miss into cache level L (1 = L2) */
static inline unsigned level_thr(const struct sim_machine *m, unsigned l)
{
	return l == 1 ? (unsigned)m->r_l2 : l == 2 ? (unsigned)m->r_l3 : (unsigned)m->r_mem;
}

/* lines a missing access moves into the L1: one, or one per element of a
 * gather (its one recorded address, or its data level, stands for them
 * all). Only the issue stall counts them all: a gather from the L2 ran at
 * 7.9 cycles per 8 elements (bench/accuracy/compiled gather -O3), which
 * the stall per element gives (8.0) and the L2's streaming bandwidth per
 * element would not (11.0) */
static inline unsigned miss_lines(const struct sim_memop *mo, const struct annot *a, unsigned i)
{
	return a->level[i] > 0 ? (mo->elements > 1 ? mo->elements : 1) : 0;
}

static inline void res_take(struct model *md, unsigned r, double lb, double g)
{
	md->avail[r] = dmax(md->avail[r], lb) + g;
}

static void model_step(struct model *md, const struct sim_machine *m, const struct sim_insn *in,
		       const struct annot *a)
{
	const unsigned fe = (unsigned)m->r_frontend;
	unsigned fused = in->fused;
	/* window: the slots this instruction takes were freed when their
	 * previous occupants retired */
	double t_win = 0;
	if (fused) {
		unsigned k = fused > md->window ? md->window : fused;
		/* no modulo here: a division per instruction is a measurable
		 * share of the model's time */
		unsigned p = md->pos + k - 1;
		if (p >= md->window)
			p -= md->window;
		t_win = md->ring[p];
	}
	double fe_avail = md->avail[fe];
	double t_fe = tfloor(fe_avail);
	/* issue waits for the latest of: the front end, a window slot, the
	 * recovery from a misprediction, older instructions (serialising),
	 * and the taken-branch rate; the slots lost are charged to it */
	enum { BY_FE, BY_WINDOW, BY_RECOVERY, BY_SERIAL, BY_TAKEN } cause = BY_FE;
	double t_issue = t_fe;
	if (t_win > t_issue)
		t_issue = t_win, cause = BY_WINDOW;
	const unsigned held = a->held & md->held;
	if (held) {
		double t_held = dmax(inflight_free_at(&md->vregs, in->vec_writes),
				     dmax(inflight_free_at(&md->loads, in->mem_reads),
					  dmax(inflight_free_at(&md->stores, in->mem_writes),
					       inflight_free_at(&md->branches, in->branch != SIM_BR_NONE))));
		if (t_held > t_issue)
			t_issue = t_held, cause = BY_WINDOW;
	}
	if (in->serial && md->last_retire > t_issue)
		t_issue = md->last_retire, cause = BY_SERIAL;
	/* a branch across the fetch window's boundary, or whose fused head
	 * crosses it, costs more of the taken-branch budget; a taken branch
	 * in another line than the last one may join that one's cycle */
	bool cross = false, tk_pair = false, run_split = false;
	uint64_t tk_line = 0;
	if (m->split_bytes && md->taken_gap > 0) {
		uint64_t line = in->addr >> md->split_shift;
		if (md->run_new) {
			md->run_line = line;
			md->run_first = 0;
			md->run_new = false;
		}
		if (line == md->run_line)
			md->run_first++;
		/* the run reaches into another line with too many of its
		 * instructions in the first: the front end needs another cycle
		 * for the run (Zen 5: more than one op-cache entry there) */
		run_split = a->taken && md->run_first >= m->split_insns &&
			(in->addr + in->len - 1) >> md->split_shift != md->run_line;
		if (a->taken)
			md->run_new = true;
	}
	if (a->taken && md->taken_gap > 0) {
		cross = md->cross_gap > 0 &&
			(crosses(in->addr, in->len, m->cross_bytes) ||
			 (in->fused_jcc && crosses(in->addr - in->head_len, in->head_len, m->cross_bytes)));
		if (m->taken_pair_bytes) {
			tk_line = in->addr / m->taken_pair_bytes;
			tk_pair = md->tk_open && !cross && !run_split && tk_line != md->tk_line;
		} else if (m->taken_pair_forward) {
			tk_pair = md->tk_open && !cross && !run_split;
		}
		double t_tk = tfloor(tk_pair ? md->tk_last : md->taken_avail);
		if (t_tk > t_issue)
			t_issue = t_tk, cause = BY_TAKEN;
	}
	if (md->recover >= t_issue && (md->recover > t_issue || md->recover > t_fe))
		t_issue = md->recover, cause = BY_RECOVERY;
	if (md->rs && in->math_uops) {
		double t_rs = rs_issue(md, t_issue, in->math_uops);
		if (t_rs > t_issue)
			t_issue = t_rs, cause = BY_WINDOW;
	}
	if (a->taken && md->taken_gap > 0) {
		if (tk_pair && t_issue < tfloor(md->taken_avail)) {
			md->tk_open = false;	/* the second of the cycle */
		} else {
			double cost = cross ? md->cross_gap : md->taken_gap;
			if (run_split)
				cost = dmax(cost, md->split_gap);
			md->taken_avail = dmax(md->taken_avail, t_issue) + cost;
			md->tk_open = (m->taken_pair_bytes ||
				       (m->taken_pair_forward && in->has_target && in->target > in->addr)) &&
				      !cross && !run_split;
			md->tk_line = tk_line;
			md->tk_last = t_issue;
		}
	}
	if (fused && t_issue > fe_avail) {
		double lost = (t_issue - fe_avail) * md->width;
		switch (cause) {
		case BY_RECOVERY: {
			/* the front end runs down the wrong path until the
			 * window is full; from then until the branch resolves
			 * the slots are the backend's (a window full of work
			 * waiting, as the counters count them: a branch on a
			 * load from memory is Memory Bound but for the fill
			 * and the restart), the rest bad speculation */
			double lo = dmax(fe_avail, md->recover_fill);
			double hi = dmin(md->recover_resolve, t_issue);
			double stalled = hi > lo ? (hi - lo) * md->width : 0;
			double mem = dmin(hi, md->miss_until) > lo ? (dmin(hi, md->miss_until) - lo) * md->width : 0;
			if (stalled > lost)
				stalled = lost;
			if (mem > stalled)
				mem = stalled;
			md->st.bad_spec += lost - stalled;
			md->st.backend_mem += mem;
			md->st.backend_core += stalled - mem;
			break;
		}
		case BY_TAKEN:
			md->st.frontend += lost;
			break;
		case BY_WINDOW: {
			/* the stall's part with a miss outstanding is Memory
			 * Bound (as the counters' stalls with an L1D miss) */
			double until = dmin(t_issue, md->miss_until);
			double mem = until > fe_avail ? (until - fe_avail) * md->width : 0;
			if (mem > lost)
				mem = lost;
			md->st.backend_mem += mem;
			md->st.backend_core += lost - mem;
			break;
		}
		default:
			md->st.backend_core += lost;
			break;
		}
	}
	if (fused) {
		/* an un-laminated load-op allocates as more than one µop */
		double slots = fused;
		if (in->unlaminated && m->unlaminated_slots > 0) {
			slots += m->unlaminated_slots;
			md->st.unlaminated_slots += m->unlaminated_slots;
		}
		res_take(md, fe, t_issue, slots * md->gap[fe]);
	}

	double t_ready = t_issue;
	if (__builtin_expect(in->xin > 0, 0)) {
		/* a unit with a bypass of its own (xin=) gets other units'
		 * vector results later */
		for (unsigned i = 0; i < in->nreads; i++) {
			unsigned r = in->reads[i];
			t_ready = dmax(t_ready, md->reg[r] + (md->reg_cross[r] ? in->xin * md->latw : 0));
		}
	} else {
		for (unsigned i = 0; i < in->nreads; i++)
			t_ready = dmax(t_ready, md->reg[in->reads[i]]);
	}

	double t_exec = t_ready;
	/* the deepest level a load of it was served by, and when its data
	 * was there */
	int load_level = -1;
	double data_at = 0;
	if (in->nload) {
		double t_addr = t_issue;
		/* a load across a line takes the load ports more than once */
		unsigned uses = 1, fills = 0;
		for (unsigned i = 0; i < in->nmem; i++) {
			const struct sim_memop *mo = &in->mem[i];
			if (!mo->read)
				continue;
			if (mo->base >= 0)
				t_addr = dmax(t_addr, md->reg[mo->base]);
			if (mo->index >= 0)
				t_addr = dmax(t_addr, md->reg[mo->index]);
			if (a->split >> i & 1)
				uses += m->split_load_uses;
			/* a line filled into the L1 takes its ports too */
			if (a->level[i] > 0)
				fills++;
		}
		uses += fills * m->l1_transfer_uses;
		double slot = t_addr;
		for (unsigned u = 0; u < in->nload; u++)
			slot = dmax(slot, res_start(md, in->load[u]));
		for (unsigned u = 0; u < in->nload; u++)
			res_take(md, in->load[u], t_issue, uses * md->gap[in->load[u]]);
		/* and the other load pipes' share of the data array */
		for (unsigned u = 0; fills && u < md->nload_res; u++) {
			bool own = false;
			for (unsigned v = 0; v < in->nload; v++)
				own |= in->load[v] == md->load_res[u];
			if (!own)
				res_take(md, md->load_res[u], t_issue, fills * m->l1_transfer_uses * md->gap[md->load_res[u]]);
		}
		double lat = md->load_lat[in->load_lat_class];
		double t_data = 0;
		for (unsigned i = 0; i < in->nmem; i++) {
			const struct sim_memop *mo = &in->mem[i];
			if (!mo->read)
				continue;
			unsigned lvl = a->level[i];
			if ((int)lvl > load_level)
				load_level = (int)lvl;
			double extra = a->seq[i] ? 0 : md->level_lat[lvl];
			double t = slot + (lat + extra) * md->latw;
			/* a miss uses the bandwidth of every level up to the one
			 * that served it (L1 misses themselves are free) */
			unsigned lines = m->gather_line_per_element && mo->elements > 1 ? mo->elements : 1;
			for (unsigned l = 1; l <= lvl; l++) {
				unsigned r = level_thr(m, l);
				t = dmax(t, md->avail[r]);
				res_take(md, r, t_issue, lines * md->gap[r]);
				/* a gather's data is there with its last element */
				if (lines > 1)
					t = dmax(t, md->avail[r] - md->gap[r]);
			}
			if (lvl > 0)
				md->miss_until = dmax(md->miss_until, t);
			/* store-to-load forwarding through shadow memory; with
			 * memory renaming a [base+disp] GPR load (any GPR load
			 * with `memory-renaming indexed`) takes the value
			 * straight from the store's source */
			uint64_t key = a->key[i];
			bool renamable = md->renaming && (mo->index < 0 || md->renaming_indexed) && mo->bytes <= 8 && !in->vector;
			for (unsigned c = 0; c < a->ncells[i]; c++) {
				size_t s = sm_slot(key + c);
				if (md->sm_key[s] != key + c + 1)
					continue;
				/* a store that holds only part of the load's bytes
				 * cannot forward them: until it has reached the cache
				 * the load waits (`store-forward-fail`); one that
				 * shares the cell but none of the bytes is no
				 * dependency */
				int64_t at = (int64_t)(key - md->sm_skey[s]) * 8 + a->off[i] - md->sm_soff[s];
				int64_t lb = mo->bytes ? mo->bytes : 1, sb = md->sm_sbytes[s];
				if (at >= sb || at + lb <= 0)
					continue;
				if ((at < 0 || at + lb > sb) && m->store_forward_fail > 0 && md->sm_commit[s] > slot) {
					t = dmax(t, md->sm_commit[s]);
					continue;
				}
				if (renamable && md->sm_ren[s] >= 0 && c == 0 && a->ncells[i] == 1)
					t = dmax(t_issue, md->sm_ren[s]);
				else
					t = dmax(t, md->sm_val[s]);
			}
			t_data = dmax(t_data, t);
		}
		/* an xin= unit gets its own load's data late as well */
		t_exec = dmax(t_exec, t_data + (in->xin > 0 ? in->xin * md->latw : 0));
		data_at = t_data;
	}
	for (unsigned u = 0; u < in->nexec; u++)
		t_exec = dmax(t_exec, res_start(md, in->exec[u]));
	if (in->div > 0)
		t_exec = dmax(t_exec, md->avail[m->r_div]);
	/* a store that missed waits for its line's bandwidth like a load
	 * (the line is fetched for ownership): a store stream beyond the L1
	 * runs at the rate its lines come in */
	if (in->mem_writes)
		for (unsigned i = 0; i < in->nmem; i++)
			if (in->mem[i].write && !in->mem[i].read)
				for (unsigned l = 1; l <= a->level[i]; l++)
					t_exec = dmax(t_exec, md->avail[level_thr(m, l)]);
	/* stores commit two per cycle only to one line: a store to another
	 * line than the previous one's waits for a cycle of its own */
	if (in->mem_writes && (m->store_pairs_same_line || m->split_store_bytes))
		for (unsigned i = 0; i < in->nmem; i++) {
			if (!in->mem[i].write)
				continue;
			/* a wide store across two lines commits in more cycles */
			bool split = m->split_store_bytes && (a->split >> i & 1) && in->mem[i].bytes >= m->split_store_bytes;
			double slot;
			if (m->store_pairs_same_line && !split && md->sc_open && a->line[i] == md->sc_line) {
				slot = md->sc_last;
				md->sc_open = false;
			} else if (m->store_pairs_same_line || split) {
				slot = dmax(md->sc_avail, t_issue);
				md->sc_avail = slot + 1 + (split ? m->split_store_cycles : 0);
				md->sc_last = slot;
				md->sc_line = a->line[i];
				md->sc_open = m->store_pairs_same_line && !split;
			} else {
				continue;
			}
			t_exec = dmax(t_exec, slot);
		}
	/* a dirty line leaves the L1 through its write-back path, one at a
	 * time: the access whose fill evicts it waits for the path (scaled
	 * with the L2's bandwidth by the sensitivity analysis) */
	if (a->writebacks && m->l1_writeback > 0 && a->wb_level >= 1) {
		t_exec = dmax(t_exec, md->wb_avail);
		md->wb_avail = t_exec + a->writebacks * md->wb_gap;
	}
	/* a serialising instruction's latency (cpuid, syscall, a fence, a
	 * locked operation: microcode that waits for the core to drain) is
	 * no dependency latency a faster core would shorten: INST_LAT's
	 * sweep leaves it as it is, or "unlimited" would make cpuid free */
	double t_end = t_exec + in->lat * (in->serial ? 1.0 : md->latw);
	for (unsigned u = 0; u < in->nexec; u++)
		res_take(md, in->exec[u], t_issue, md->gap[in->exec[u]]);
	for (unsigned u = 0; md->rs && u < in->math_uops && u < md->rs_cap; u++)
		rs_push(md, t_exec);
	if (in->div > 0)
		md->avail[m->r_div] = dmax(md->avail[m->r_div], t_exec) + in->div * md->gap[m->r_div];

	/* dirty lines written back take the bandwidth down to where they go */
	for (unsigned l = 1; a->writebacks && l <= a->wb_level; l++) {
		unsigned r = level_thr(m, l);
		res_take(md, r, t_issue, a->writebacks * md->wb_line[l] * md->gap[r]);
	}
	/* lines a store fetched for ownership, and dirty lines written back
	 * to the L2, pass through the L1's ports */
	if (m->l1_transfer_uses && md->nload_res && (a->writebacks || in->mem_writes)) {
		unsigned lines = a->writebacks;
		for (unsigned i = 0; i < in->nmem; i++)
			lines += in->mem[i].write && !in->mem[i].read && a->level[i] > 0;
		for (unsigned u = 0; lines && u < md->nload_res; u++)
			res_take(md, md->load_res[u], t_issue, lines * m->l1_transfer_uses * md->gap[md->load_res[u]]);
	}
	/* a line moved between the L1 and the L2 (a fill, for a load or for
	 * ownership, or a dirty line written back) holds up issue */
	if (md->l1_stall > 0 && in->nmem) {
		unsigned lines = a->writebacks;
		for (unsigned i = 0; i < in->nmem; i++)
			lines += miss_lines(&in->mem[i], a, i);
		if (lines) {
			res_take(md, fe, t_issue, lines * md->l1_stall);
			md->st.backend_mem += lines * md->l1_stall * md->width;
		}
	}
	for (unsigned i = 0, n = in->mem_writes ? in->nmem : 0; i < n; i++) {
		const struct sim_memop *mo = &in->mem[i];
		if (!mo->write)
			continue;
		/* a store miss costs bandwidth (the line is fetched for
		 * ownership, at the level's ogap where given) but is off the
		 * critical path */
		for (unsigned l = 1; l <= a->level[i]; l++) {
			unsigned r = level_thr(m, l);
			res_take(md, r, t_issue, md->own_line[l] * md->gap[r]);
		}
		/* a wide store's data reaches a load later (Zen 5's zmm) */
		bool wide = m->store_forward_wide_bytes && mo->bytes >= m->store_forward_wide_bytes;
		double ready = t_end + (wide ? m->store_forward_wide : md->store_fwd) * md->latw;
		bool renamable = md->renaming && (mo->index < 0 || md->renaming_indexed) && mo->bytes <= 8 && !in->vector && a->ncells[i] == 1;
		uint64_t key = a->key[i];
		for (unsigned c = 0; c < a->ncells[i]; c++) {
			size_t s = sm_slot(key + c);
			md->sm_key[s] = key + c + 1;
			md->sm_val[s] = ready;
			md->sm_skey[s] = key;
			md->sm_soff[s] = a->off[i];
			md->sm_sbytes[s] = (uint8_t)(mo->bytes > 255 ? 255 : mo->bytes);
			md->sm_commit[s] = HUGE_VAL;	/* set as it retires */
			/* renaming hands over the store's source register: ready
			 * with the inputs for a plain store, with the result for a
			 * read-modify-write */
			md->sm_ren[s] = renamable ? (in->nload ? t_end : t_ready) : -1;
		}
	}
	/* an eliminated move passes its source's kind on */
	bool other_unit = in->eliminated ? in->nreads == 1 && md->reg_cross[in->reads[0]] : in->other_unit;
	for (unsigned i = 0; i < in->nwrites; i++) {
		unsigned r = in->writes[i];
		md->reg[r] = t_end;
		/* vector registers only: mask and general-purpose inputs
		 * (addresses too) are not late (bench/accuracy/fpbypass.txt) */
		md->reg_cross[r] = other_unit && r >= REG_VEC && r < REG_VEC + 32;
	}

	/* retirement is in order and at most the retire width per cycle:
	 * what finished behind a long miss leaves the window at that rate,
	 * not all in the miss's cycle */
	double r = dmax(t_end, md->last_retire);
	if (fused && md->ret_gap > 0) {
		double slot = tfloor(md->ret_avail);
		if (slot > r)
			r = slot;
		double rslots = fused;
		if (__builtin_expect(in->unlaminated, 0))
			rslots += m->unlaminated_slots;
		md->ret_avail = dmax(md->ret_avail, r) + rslots * md->ret_gap;
	}
	if (__builtin_expect(md->focus_hi != 0, 0) && in->addr - md->focus_lo < md->focus_hi - md->focus_lo)
		md->st.focus_cycles += r - md->last_retire;
	/* a stall on memory, as counters count one (cycles in which nothing
	 * retires while the oldest instruction waits for a load): it retired
	 * as soon as it finished, it ran as soon as its data came, and the
	 * cycles since the previous retirement beyond one are idle ones.
	 * Charged to the level that served its deepest load; a pipeline
	 * that retires every cycle charges nothing, whatever its loads */
	if (load_level >= 0 && load_level < 4 && r <= t_end + 1e-9 && data_at >= t_exec - 1e-9 &&
	    r - md->last_retire > 1)
		md->st.mem_stall[load_level] += r - md->last_retire - 1;
	md->last_retire = r;
	/* a store reaches the cache after it retires */
	for (unsigned i = 0, n = in->mem_writes && m->store_forward_fail > 0 ? in->nmem : 0; i < n; i++)
		if (in->mem[i].write)
			for (unsigned c = 0; c < a->ncells[i]; c++) {
				size_t s = sm_slot(a->key[i] + c);
				if (md->sm_key[s] == a->key[i] + c + 1)
					md->sm_commit[s] = r + m->store_forward_fail * md->latw;
			}
	if (fused == 1) {
		md->ring[md->pos] = r;
		md->pos = md->pos + 1 == md->window ? 0 : md->pos + 1;
	} else {
		for (unsigned k = 0; k < fused && k < md->window; k++) {
			md->ring[md->pos] = r;
			md->pos = md->pos + 1 == md->window ? 0 : md->pos + 1;
		}
	}
	if (held) {
		inflight_take(&md->vregs, in->vec_writes, r);
		inflight_take(&md->loads, in->mem_reads, r);
		inflight_take(&md->stores, in->mem_writes, r);
		inflight_take(&md->branches, in->branch != SIM_BR_NONE, r);
	}
	if (a->mispredict) {
		md->br_acc += md->br_inc;
		if (md->br_acc >= 1 - 1e-9) {
			md->br_acc -= 1;
			if (t_end + md->penalty > md->recover) {
				md->recover_resolve = t_end;
				md->recover_fill = t_issue + md->window * md->gap[fe];
			}
			md->recover = dmax(md->recover, t_end + md->penalty);
			md->st.mispredicts++;
		}
	}
}

/* ---------------------------------------------------------- prepass --- */

/* the hash of an unknown address's expression: its registers as they
 * were last set, its scale, and PART (a part of its displacement) */
static uint64_t expr_hash(const struct sim_session *s, const struct sim_memop *mo, int64_t part)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int64_t parts[6] = { mo->base, mo->base >= 0 ? s->ver[mo->base] : 0, mo->index,
			     mo->index >= 0 ? s->ver[mo->index] : 0, mo->scale, part };
	for (int i = 0; i < 6; i++)
		h = (h ^ (uint64_t)parts[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t expr_key(const struct sim_session *s, const struct sim_memop *mo)
{
	/* unknown address: equal expressions whose registers did not change
	 * since name the same location, their displacements its 8-byte
	 * cells as a real address's (so that [rsi] and [rsi+4] overlap);
	 * the top bit keeps these keys apart from real addresses */
	int64_t cell = mo->disp >= 0 ? mo->disp / 8 : -((-mo->disp + 7) / 8);
	return ((expr_hash(s, mo, 0) >> 4) + (uint64_t)cell) | (1ULL << 63);
}

/* the cache line of an unknown address: the expression with its
 * displacement's 64-byte part (the base taken as line-aligned) */
static uint64_t expr_line(const struct sim_session *s, const struct sim_memop *mo)
{
	int64_t line = mo->disp >= 0 ? mo->disp / 64 : -((-mo->disp + 63) / 64);
	return ((expr_hash(s, mo, line) >> 4) | (1ULL << 63)) ^ 0x5bd1e995ULL;
}

/* an access without a data address placed by its pointers (OFF from the
 * base's setting; each setting its own region) and run through the
 * caches: the level that serves it, no deeper than the data's level */
static int place_access(struct sim_session *s, const struct sim_insn *in, const struct sim_memop *mo, uint64_t off,
			struct annot *a, unsigned k)
{
	uint32_t gen = mo->base >= 0 ? s->ptr_gen[mo->base] : s->ptr_gen[mo->index];
	uint64_t addr = ((uint64_t)gen << 40) + off;
	bool seq = false;
	int lvl = sim_cache_access(&s->cache, in->addr, addr, mo->bytes, &seq);
	/* a line a store dirties goes back to where the data lives, in the
	 * steady state of a loop over more data than the L1 holds: charged
	 * when dirtied, as a stream this short may end before its eviction */
	if (mo->write) {
		unsigned wb = sim_cache_write(&s->cache, addr, mo->bytes) + a->writebacks;
		a->writebacks = (uint8_t)(wb > 255 ? 255 : wb);
		a->wb_level = (uint8_t)s->data_level;
	}
	/* a line the model has not seen yet is where the data lives: the
	 * stream starts cold, the data does not */
	if (lvl < 0)
		lvl = 0;
	if (lvl > (int)s->data_level)
		lvl = (int)s->data_level;
	a->level[k] = (uint8_t)lvl;
	a->seq[k] = seq;
	return lvl;
}

static void prepass(struct sim_session *s, const struct sim_rec *recs, size_t n)
{
	const struct sim_code *code = s->code;
	s->chunk_fused = s->chunk_uops = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sim_rec *rec = &recs[i];
		const struct sim_insn *in = sim_code_insn(code, rec->insn);
		struct annot *a = &s->ann[i];
		*a = (struct annot){ .held = (in->vec_writes ? HELD_VREGS : 0) | (in->mem_reads ? HELD_LOADS : 0) |
					     (in->mem_writes ? HELD_STORES : 0) | (in->branch ? HELD_BRANCHES : 0) };
		s->chunk_fused += in->fused;
		s->chunk_uops += in->uops;
		if (rec->insn >= s->ev.ninsn) {
			size_t nn = sim_code_count(code) + 1024;
			s->ev.insn_count = realloc(s->ev.insn_count, nn * sizeof *s->ev.insn_count);
			s->ev.insn_cycles = realloc(s->ev.insn_cycles, nn * sizeof *s->ev.insn_cycles);
			if (!s->ev.insn_count || !s->ev.insn_cycles)
				abort();
			memset(s->ev.insn_count + s->ev.ninsn, 0, (nn - s->ev.ninsn) * sizeof *s->ev.insn_count);
			memset(s->ev.insn_cycles + s->ev.ninsn, 0, (nn - s->ev.ninsn) * sizeof *s->ev.insn_cycles);
			s->ev.ninsn = nn;
		}
		s->ev.insn_count[rec->insn]++;
		if (in->branch) {
			s->ev.branches++;
			bool miss = sim_bpred_branch(&s->bp, (enum sim_branch_kind)in->branch, in->addr,
						     rec->taken, rec->target);
			a->mispredict = miss;
			a->taken = rec->taken || in->branch != SIM_BR_COND;
		}
		for (unsigned k = 0; k < in->nmem; k++) {
			const struct sim_memop *mo = &in->mem[k];
			if (mo->read)
				s->ev.loads++;
			if (mo->write)
				s->ev.stores++;
			if (k < rec->nmem || mo->base == -2) {
				uint64_t addr = k < rec->nmem ? rec->mem[k] : (uint64_t)mo->disp;
				bool seq = false;
				uint64_t wb0 = s->cache.nlevels ? s->cache.lvl[0].writebacks : 0;
				int lvl = sim_cache_access(&s->cache, in->addr, addr, mo->bytes, &seq);
				if (mo->write)
					sim_cache_write(&s->cache, addr, mo->bytes);
				if (s->cache.nlevels) {
					uint64_t wb = s->cache.lvl[0].writebacks - wb0 + a->writebacks;
					a->writebacks = (uint8_t)(wb > 255 ? 255 : wb);
					if (wb)
						a->wb_level = 1;
				}
				/* the cache says nlevels for memory, whatever its depth */
				if (lvl < 0)
					lvl = 0;
				if (lvl >= (int)s->cache.nlevels)
					lvl = 3;
				if (s->addresses_followed && lvl > (int)s->data_level)
					lvl = (int)s->data_level;
				a->level[k] = (uint8_t)lvl;
				a->seq[k] = seq;
				s->ev.level_hits[lvl]++;
				uint64_t first = addr >> 3, last = (addr + (mo->bytes ? mo->bytes : 1) - 1) >> 3;
				a->key[k] = first & ~(1ULL << 63);
				a->off[k] = (uint8_t)(addr & 7);
				a->line[k] = addr >> 6;
				if ((addr & 63) + mo->bytes > 64)
					a->split |= (uint8_t)(1u << k);
				a->ncells[k] = (uint8_t)(last - first + 1 > 8 ? 8 : last - first + 1);
			} else {
				a->key[k] = expr_key(s, mo);
				a->off[k] = (uint8_t)(mo->disp & 7);
				/* the line of an unknown address only matters to the
				 * store-pairing rule */
				if (s->m->store_pairs_same_line)
					a->line[k] = expr_line(s, mo);
				unsigned span = (unsigned)(mo->disp & 7) + (mo->bytes ? mo->bytes : 1u);
				a->ncells[k] = (uint8_t)(mo->elements > 1 || span <= 8 ? 1 : span > 64 ? 8 : (span + 7) / 8);
				/* where in its line, as far as the pointers' steps tell */
				int lvl = 0;
				if (mo->elements > 1 && s->data_level) {
					/* a gather's elements: anywhere in the data */
					lvl = (int)s->data_level;
					a->level[k] = (uint8_t)lvl;
				} else if ((mo->base >= 0 || mo->index >= 0) && mo->base < 16 && mo->index < 16) {
					uint64_t off = (mo->base >= 0 ? s->ptr_off[mo->base] : 0) + (uint64_t)mo->disp +
						       (mo->index >= 0 ? s->ptr_off[mo->index] * (uint64_t)mo->scale : 0);
					if ((off & 63) + mo->bytes > 64)
						a->split |= (uint8_t)(1u << k);
					if (s->data_level)
						lvl = place_access(s, in, mo, off, a, k);
				}
				s->ev.level_hits[lvl]++;
			}
		}
		bool dst = in->ptr_dst >= 0 && in->ptr_dst < 16;
		bool src = in->ptr_src >= 0 && in->ptr_src < 16;
		bool src2 = in->ptr_src2 >= 0 && in->ptr_src2 < 16;
		if (dst && src && (src2 || in->ptr_src2 < 0)) {
			/* plus the second register's value, in the first one's
			 * region unless the first holds a known value */
			uint32_t g = s->ptr_gen[in->ptr_src];
			uint64_t off = s->ptr_off[in->ptr_src] + in->ptr_add;
			if (src2) {
				off += s->ptr_off[in->ptr_src2] * in->ptr_scale;
				if (!g)
					g = s->ptr_gen[in->ptr_src2];
			}
			s->ptr_off[in->ptr_dst] = off;
			s->ptr_gen[in->ptr_dst] = g;
		} else if (dst && in->ptr_src == -2) {
			s->ptr_off[in->ptr_dst] = in->ptr_add;
			s->ptr_gen[in->ptr_dst] = 0;
		} else {
			/* a zero idiom names 0; any other value is a new one */
			for (unsigned w = 0; w < in->nwrites; w++)
				if (in->writes[w] < 16) {
					s->ptr_off[in->writes[w]] = 0;
					s->ptr_gen[in->writes[w]] = in->zero_idiom ? 0 : ++s->gens;
				}
		}
		for (unsigned w = 0; w < in->nwrites; w++)
			s->ver[in->writes[w]]++;
	}
}

/* ---------------------------------------------------------- threads --- */

struct worker_arg {
	struct sim_session *s;
	size_t lo, hi;
};

static void run_models(struct sim_session *s, size_t lo, size_t hi)
{
	const struct sim_insn *insn = sim_code_insns(s->code);
	for (size_t c = lo; c < hi; c++) {
		struct model *md = &s->models[c];
		if (c == 0 && s->ev.insn_cycles) {
			/* configuration 0 charges each retirement's time to its
			 * instruction (the prepass sized the array; no other
			 * thread runs model 0). A replay of the tape has no
			 * prepass and counts no events. */
			for (size_t i = 0; i < s->chunk_n; i++) {
				const struct sim_rec *rec = &s->chunk[i];
				double before = md->last_retire;
				model_step(md, s->m, &insn[rec->insn], &s->chunk_ann[i]);
				if (rec->insn < s->ev.ninsn)
					s->ev.insn_cycles[rec->insn] += md->last_retire - before;
			}
		} else {
			for (size_t i = 0; i < s->chunk_n; i++) {
				const struct sim_rec *rec = &s->chunk[i];
				model_step(md, s->m, &insn[rec->insn], &s->chunk_ann[i]);
			}
		}
		/* the same for every configuration: counted once, in the prepass */
		md->st.insns += s->chunk_n;
		md->st.fused += s->chunk_fused;
		md->st.uops += s->chunk_uops;
	}
}

static void *worker(void *p)
{
	struct worker_arg *wa = p;
	for (;;) {
		pthread_barrier_wait(&wa->s->start);
		if (wa->s->quit)
			break;
		run_models(wa->s, wa->lo, wa->hi);
		pthread_barrier_wait(&wa->s->done);
	}
	return NULL;
}

struct sim_session *sim_session_new(const struct sim_machine *m, const struct sim_code *code,
				    const struct sim_config *cfg, size_t ncfg, unsigned threads,
				    char *err, size_t errlen)
{
	if (!ncfg) {
		snprintf(err, errlen, "no configuration to simulate");
		return NULL;
	}
	struct sim_session *s = calloc(1, sizeof *s);
	if (!s)
		abort();
	s->m = m;
	s->code = code;
	s->ncfg = ncfg;
	/* registers the stream did not set hold values of their own */
	for (unsigned r = 0; r < 16; r++)
		s->ptr_gen[r] = r + 1;
	s->gens = 16;
	s->models = calloc(ncfg, sizeof *s->models);
	s->ann = calloc(CHUNK, sizeof *s->ann);
	if (!s->models || !s->ann)
		abort();
	for (size_t c = 0; c < ncfg; c++)
		model_init(&s->models[c], m, &cfg[c]);
	uint64_t size[3];
	unsigned ways[3];
	for (unsigned l = 0; l < m->ncache; l++) {
		size[l] = m->cache_size[l];
		ways[l] = m->cache_ways[l];
	}
	if (sim_cache_init(&s->cache, m->ncache, size, ways, m->line)) {
		snprintf(err, errlen, "%s: bad cache geometry (sets must be a power of two)", m->path);
		sim_session_free(s);
		return NULL;
	}
	if (sim_bpred_init(&s->bp, m->branch_history, m->branch_table_bits)) {
		snprintf(err, errlen, "out of memory for the branch predictor");
		sim_session_free(s);
		return NULL;
	}
	if (threads < 1)
		threads = 1;
	if (threads > ncfg)
		threads = (unsigned)ncfg;
	s->threads = threads;
	if (threads > 1) {
		pthread_barrier_init(&s->start, NULL, threads);
		pthread_barrier_init(&s->done, NULL, threads);
		s->tid = calloc(threads, sizeof *s->tid);
		struct worker_arg *wa = calloc(threads, sizeof *wa);
		if (!s->tid || !wa)
			abort();
		for (unsigned t = 0; t < threads; t++) {
			wa[t].s = s;
			wa[t].lo = ncfg * t / threads;
			wa[t].hi = ncfg * (t + 1) / threads;
		}
		/* worker 0 is the calling thread */
		for (unsigned t = 1; t < threads; t++)
			if (pthread_create(&s->tid[t], NULL, worker, &wa[t]))
				abort();
		s->tid[0] = (pthread_t)0;
		s->chunk = NULL;
		/* keep the argument block reachable for sim_session_free */
		s->wargs = wa;
	}
	return s;
}

void sim_session_feed(struct sim_session *s, const struct sim_rec *recs, size_t n)
{
	while (n) {
		size_t k = n > CHUNK ? CHUNK : n;
		if (s->replay && s->at + k <= s->replay->n) {
			/* what the prepass gave these records before */
			s->chunk_ann = s->replay->ann + s->at;
			s->chunk_fused = s->chunk_uops = 0;
			for (size_t i = 0; i < k; i++) {
				const struct sim_insn *in = sim_code_insn(s->code, recs[i].insn);
				s->chunk_fused += in->fused;
				s->chunk_uops += in->uops;
			}
			s->at += k;
		} else {
			if (s->replay)
				abort();	/* sim_session_replay: fed other records than the tape's */
			prepass(s, recs, k);
			s->chunk_ann = s->ann;
			if (s->record)
				tape_add(s->record, s->ann, recs, k);
		}
		s->chunk = recs;
		s->chunk_n = k;
		if (s->threads > 1) {
			struct worker_arg *wa = s->wargs;
			pthread_barrier_wait(&s->start);
			run_models(s, wa[0].lo, wa[0].hi);
			pthread_barrier_wait(&s->done);
		} else {
			run_models(s, 0, s->ncfg);
		}
		recs += k;
		n -= k;
	}
}

void sim_session_mark(struct sim_session *s)
{
	for (size_t c = 0; c < s->ncfg; c++) {
		s->models[c].st.mark_cycles = s->models[c].last_retire;
		s->models[c].st.mark_insns = s->models[c].st.insns;
		s->models[c].st.mark_fused = s->models[c].st.fused;
		s->models[c].st.mark_uops = s->models[c].st.uops;
		s->models[c].st.mark_focus_cycles = s->models[c].st.focus_cycles;
	}
}

void sim_session_peek(const struct sim_session *s, struct sim_stats *out)
{
	*out = s->models[0].st;
	out->cycles = s->models[0].last_retire;
}

void sim_session_times(const struct sim_session *s, double *out)
{
	for (size_t c = 0; c < s->ncfg; c++)
		out[c] = s->models[c].last_retire;
}

void sim_session_count_from_here(struct sim_session *s)
{
	free(s->ev.insn_count);
	free(s->ev.insn_cycles);
	memset(&s->ev, 0, sizeof s->ev);
	s->ev0 = (struct sim_events){ .cond_branches = s->bp.cond, .cond_miss = s->bp.cond_miss,
				      .indirect = s->bp.indirect, .indirect_miss = s->bp.indirect_miss,
				      .btb_miss = s->bp.btb_miss, .mispredicts = s->models[0].st.mispredicts };
}

void sim_session_record(struct sim_session *s, struct sim_tape *t)
{
	s->record = t;
}

void sim_session_replay(struct sim_session *s, const struct sim_tape *t)
{
	s->replay = t;
	s->at = 0;
}

/* records apart that make a second touch of a line a return to it (more
 * than one window of a report's stream, more than a loop's own stride) */
#define WARM_RETURN 4096

/* The caches as a run that kept using its data leaves them: a stream of
 * windows spread over a run holds a sample of its accesses, and what the
 * run touched between them is not there. A line the stream comes back
 * to, WARM_RETURN records or more after it first touched it, is data the
 * run keeps using: it is loaded into the caches (in the stream's order)
 * before the stream runs. A line touched in one stretch only (a stream
 * through new data, or one access into a structure larger than the
 * sample) stays cold. Cold caches made gzip's longest_match (its 200 KiB
 * in the L2) wait on memory for 56 % of its cycles; warming every line
 * made xz's match finder (a tree of 94 MiB at random) never miss. */
static void warm_caches(struct sim_session *s, const struct sim_rec *recs, size_t n)
{
	size_t naccess = 0;
	for (size_t i = 0; i < n; i++)
		naccess += recs[i].nmem;
	if (!s->cache.nlevels || !naccess)
		return;
	size_t cap = 64;
	while (cap < 2 * naccess)
		cap <<= 1;
	/* open addressing: a line (+1, 0 is empty) and where it was first
	 * touched, the top bit set once the stream came back to it */
	uint64_t *line = calloc(cap, sizeof *line);
	uint64_t *first = calloc(cap, sizeof *first);
	if (!line || !first)
		abort();
	const uint64_t back = 1ULL << 63;
	const unsigned shift = s->cache.lvl[0].line_shift;	/* the L1's line */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct sim_rec *rec = &recs[i];
			const struct sim_insn *in = sim_code_insn(s->code, rec->insn);
			for (unsigned k = 0; k < in->nmem && k < rec->nmem; k++) {
				uint64_t l = (rec->mem[k] >> shift) + 1;
				size_t h = (size_t)((l * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
				while (line[h] && line[h] != l)
					h = (h + 1) & (cap - 1);
				if (pass == 0) {
					if (!line[h]) {
						line[h] = l;
						first[h] = i;
					} else if (!(first[h] & back) && i - first[h] >= WARM_RETURN) {
						first[h] |= back;
					}
					continue;
				}
				if (!(first[h] & back))
					continue;
				const struct sim_memop *mo = &in->mem[k];
				sim_cache_access(&s->cache, in->addr, rec->mem[k], mo->bytes, NULL);
				if (mo->write)
					sim_cache_write(&s->cache, rec->mem[k], mo->bytes);
			}
		}
	free(line);
	free(first);
}

void sim_session_warm(struct sim_session *s, const struct sim_rec *recs, size_t n)
{
	/* a replay has the predictor's and the caches' training in its
	 * annotations */
	if (s->replay)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct sim_rec *rec = &recs[i];
		const struct sim_insn *in = sim_code_insn(s->code, rec->insn);
		if (in->branch)
			sim_bpred_branch(&s->bp, (enum sim_branch_kind)in->branch, in->addr, rec->taken, rec->target);
	}
	warm_caches(s, recs, n);
}

void sim_session_data_level(struct sim_session *s, unsigned level)
{
	s->data_level = level > 3 ? 3 : level;
}

void sim_session_addresses_followed(struct sim_session *s, bool followed)
{
	s->addresses_followed = followed;
}

void sim_session_focus(struct sim_session *s, uint64_t lo, uint64_t hi)
{
	for (size_t c = 0; c < s->ncfg; c++) {
		s->models[c].focus_lo = lo;
		s->models[c].focus_hi = hi > lo ? hi : lo;
	}
}

void sim_session_finish(struct sim_session *s, struct sim_stats *out, struct sim_events *ev)
{
	for (size_t c = 0; c < s->ncfg; c++) {
		struct model *md = &s->models[c];
		struct sim_stats *st = &md->st;
		st->cycles = md->last_retire;
		/* the mark falls inside a retire cycle: up to a width's worth of
		 * µops after it retire in the mark's own cycle, and the cycles
		 * after the mark would show them free (4.003 µops per cycle on a
		 * 4-wide core). What came after takes at least what the widths
		 * allow: the mark moves back by that fraction of a cycle */
		double per_fused = dmax(md->gap[s->m->r_frontend], md->ret_gap);
		double least = (double)(st->fused - st->mark_fused) * per_fused;
		if (st->mark_insns && st->cycles - st->mark_cycles < least)
			st->mark_cycles = st->cycles - least;
		/* the issue slots span until the front end's last slot or the
		 * last retirement, whichever is later */
		double fe_end = md->avail[s->m->r_frontend];
		st->slots = dmax(st->cycles, fe_end) * md->width;
		/* un-laminated µops retire in slots of their own */
		st->retiring = (double)st->fused + st->unlaminated_slots;
		/* the drain after the last issue is backend time */
		if (st->cycles > fe_end)
			st->backend_core += (st->cycles - fe_end) * md->width;
		double rest = st->slots - st->retiring - st->bad_spec - st->backend_mem - st->backend_core - st->frontend;
		if (rest > 0)
			st->frontend += rest;
		if (out)
			out[c] = *st;
	}
	if (ev) {
		*ev = s->ev;
		ev->cond_branches = s->bp.cond - s->ev0.cond_branches;
		ev->cond_miss = s->bp.cond_miss - s->ev0.cond_miss;
		ev->indirect = s->bp.indirect - s->ev0.indirect;
		ev->indirect_miss = s->bp.indirect_miss - s->ev0.indirect_miss;
		ev->btb_miss = s->bp.btb_miss - s->ev0.btb_miss;
		s->ev.insn_count = NULL;
		s->ev.insn_cycles = NULL;
		s->ev.ninsn = 0;
		ev->mispredicts = s->models[0].st.mispredicts - s->ev0.mispredicts;
		uint64_t wrong = ev->cond_miss + ev->indirect_miss;
		ev->target_misses = ev->mispredicts > wrong ? ev->mispredicts - wrong : 0;
	}
}

void sim_session_free(struct sim_session *s)
{
	if (!s)
		return;
	if (s->threads > 1) {
		s->quit = true;
		pthread_barrier_wait(&s->start);
		for (unsigned t = 1; t < s->threads; t++)
			pthread_join(s->tid[t], NULL);
		pthread_barrier_destroy(&s->start);
		pthread_barrier_destroy(&s->done);
		free(s->tid);
		free(s->wargs);
	}
	for (size_t c = 0; c < s->ncfg; c++)
		model_free(&s->models[c]);
	free(s->models);
	free(s->ann);
	free(s->ev.insn_count);
	free(s->ev.insn_cycles);
	sim_cache_free(&s->cache);
	sim_bpred_free(&s->bp);
	free(s);
}

void sim_events_free(struct sim_events *ev)
{
	free(ev->insn_count);
	free(ev->insn_cycles);
	ev->insn_count = NULL;
	ev->insn_cycles = NULL;
	ev->ninsn = 0;
}

double sim_stats_steady_cycles(const struct sim_stats *st, double units_after_mark)
{
	double c = st->cycles - st->mark_cycles;
	if (units_after_mark <= 0)
		return st->cycles;
	return c / units_after_mark;
}
