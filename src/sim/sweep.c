/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sensitivity driver: builds the configurations of a sweep (each
 * resource, or set, accelerated by each weight, plus unlimited), runs them
 * in one session, derives speedups and bottlenecks, and searches a
 * balanced set of resources when no single one pays. Also turns a loop
 * body into a stream. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "sim_internal.h"

int sim_stream_loop(struct sim_code *code, uint64_t addr, const uint8_t *bytes, size_t len,
		    unsigned iter, struct sim_rec **recs_out, size_t *n_out, size_t *per_iter, char *err,
		    size_t errlen)
{
	size_t cap = 64, n = 0;
	uint32_t *body = malloc(cap * sizeof *body);
	if (!body)
		abort();
	for (size_t off = 0; off < len;) {
		long idx = sim_code_add(code, addr + off, bytes + off, len - off, err, errlen);
		if (idx < 0) {
			free(body);
			return -1;
		}
		if (n == cap) {
			cap *= 2;
			body = realloc(body, cap * sizeof *body);
			if (!body)
				abort();
		}
		body[n++] = (uint32_t)idx;
		off += sim_code_insn(code, (size_t)idx)->len;
	}
	if (!n) {
		snprintf(err, errlen, "empty loop body");
		free(body);
		return -1;
	}
	if (iter < 1)
		iter = 1;
	if ((size_t)iter * n > ((size_t)1 << 31)) {
		snprintf(err, errlen, "%u iterations of %zu instructions is too long a stream", iter, n);
		free(body);
		return -1;
	}
	struct sim_rec *recs = calloc((size_t)iter * n, sizeof *recs);
	if (!recs)
		abort();
	size_t k = 0;
	for (unsigned it = 0; it < iter; it++) {
		for (size_t i = 0; i < n; i++) {
			const struct sim_insn *in = sim_code_insn(code, body[i]);
			struct sim_rec *r = &recs[k++];
			r->insn = body[i];
			uint64_t next = i + 1 < n ? in->addr + in->len : addr;
			switch (in->branch) {
			case SIM_BR_COND:
				/* the closing backward branch is taken; others fall through */
				if (i + 1 == n && in->has_target && in->target >= addr && in->target <= in->addr) {
					r->taken = 1;
					r->target = addr;
				}
				break;
			case SIM_BR_NONE:
				break;
			default:
				r->taken = 1;
				r->target = next;
				break;
			}
		}
	}
	free(body);
	*recs_out = recs;
	*n_out = k;
	*per_iter = n;
	return 0;
}

static int sibling(const struct sim_nest *nest, uint64_t pc)
{
	for (unsigned k = 0; k < nest->nsiblings && k < SIM_NEST_SIBLINGS; k++)
		if (nest->sibling_latch[k] == pc)
			return (int)k;
	return -1;
}

int sim_stream_nest(struct sim_code *code, const struct sim_nest *nest, size_t min_inner, size_t max_recs,
		    struct sim_rec **recs_out, size_t *n_out, size_t *inner_out, char *err, size_t errlen)
{
	if (!nest->trips || nest->latch < nest->addr || nest->latch >= nest->addr + nest->len ||
	    nest->parent_latch < nest->addr || nest->parent_latch >= nest->addr + nest->len) {
		snprintf(err, errlen, "the loop's latch or its parent's is outside the parent's code");
		return -1;
	}
	/* the code index of each byte offset, decoded on first visit */
	long *at = malloc(nest->len * sizeof *at);
	size_t cap = 4096, n = 0, inner = 0;
	struct sim_rec *recs = malloc(cap * sizeof *recs);
	if (!at || !recs)
		abort();
	for (size_t i = 0; i < nest->len; i++)
		at[i] = -1;
	uint64_t pc = nest->addr;
	unsigned pass = 0, spass[SIM_NEST_SIBLINGS] = { 0 };
	int rc = -1;
	for (;;) {
		if (pc < nest->addr || pc >= nest->addr + nest->len) {
			snprintf(err, errlen, "the walk through the parent loop left it at 0x%llx",
				 (unsigned long long)pc);
			break;
		}
		size_t off = (size_t)(pc - nest->addr);
		if (at[off] < 0 && (at[off] = sim_code_add(code, pc, nest->bytes + off, nest->len - off, err, errlen)) < 0)
			break;
		const struct sim_insn *in = sim_code_insn(code, (size_t)at[off]);
		if (n == cap) {
			cap *= 2;
			recs = realloc(recs, cap * sizeof *recs);
			if (!recs)
				abort();
		}
		struct sim_rec *r = &recs[n++];
		memset(r, 0, sizeof *r);
		r->insn = (uint32_t)at[off];
		uint64_t next = pc + in->len;
		bool parent_pass = false;
		int sib;
		if (in->branch == SIM_BR_COND && pc == nest->latch) {
			/* the loop's latch: taken TRIPS-1 times per entry */
			inner++;
			if (++pass < nest->trips) {
				r->taken = 1;
				next = r->target = in->target;
			} else {
				pass = 0;
			}
		} else if (in->branch == SIM_BR_COND && (sib = sibling(nest, pc)) >= 0) {
			if (++spass[sib] < nest->sibling_trips[sib]) {
				r->taken = 1;
				next = r->target = in->target;
			} else {
				spass[sib] = 0;
			}
		} else if (in->branch == SIM_BR_COND && pc == nest->parent_latch) {
			r->taken = 1;
			next = r->target = in->target;
			parent_pass = true;
		} else if (in->branch == SIM_BR_DIRECT && in->has_target && in->target >= nest->addr &&
			   in->target < nest->addr + nest->len) {
			/* a jump inside the nest (a call leaves it) */
			r->taken = 1;
			next = r->target = in->target;
			parent_pass = pc == nest->parent_latch;
		} else if (in->branch != SIM_BR_NONE && in->branch != SIM_BR_COND) {
			snprintf(err, errlen, "the parent loop leaves its code at 0x%llx (%s)", (unsigned long long)pc,
				 in->text);
			break;
		}
		/* other conditional branches fall through: the path of the
		 * nest's steady state as far as the code tells */
		if (parent_pass && inner >= min_inner) {
			rc = 0;
			break;
		}
		if (n >= max_recs) {
			snprintf(err, errlen, "more than %zu records for %zu iterations of the loop in its parent", max_recs,
				 min_inner);
			break;
		}
		if (parent_pass && !inner) {
			snprintf(err, errlen, "a pass through the parent loop does not enter the loop");
			break;
		}
		pc = next;
	}
	free(at);
	if (rc) {
		free(recs);
		return -1;
	}
	*recs_out = recs;
	*n_out = n;
	*inner_out = inner;
	return 0;
}

/* does the code at AT run into a return before any other branch (within
 * [ADDR, ADDR+LEN), 64 instructions at most) */
static bool reaches_return(uint64_t addr, const uint8_t *bytes, size_t len, uint64_t at)
{
	for (size_t off = (size_t)(at - addr), i = 0; off < len && i < 64; i++) {
		struct sim_branch_info b;
		if (!sim_decode_branch(addr + off, bytes + off, len - off, &b))
			return false;
		if (b.branch != SIM_BR_NONE)
			return b.branch == SIM_BR_RET;
		off += b.len;
	}
	return false;
}

/* the walk takes each instruction's control transfer alone
 * (sim_decode_branch): gus record finds the loops of whole hot functions
 * with it, and a full decoding of each (forms, ports, text) was most of
 * record's own work */
size_t sim_find_loops(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		      struct sim_loop *out, size_t max)
{
	(void)m;
	size_t n = 0;
	for (size_t off = 0; off < len;) {
		struct sim_branch_info in;
		if (!sim_decode_branch(addr + off, bytes + off, len - off, &in))
			break;
		uint64_t at = addr + off;
		uint8_t first = bytes[off];
		off += in.len;
		/* a backward conditional branch, or a backward jmp (a loop whose
		 * test is at the top), inside the function closes a loop; calls
		 * are direct branches too and never close one */
		bool back = in.has_target && in.target >= addr && in.target <= at &&
			    (in.branch == SIM_BR_COND ||
			     (in.branch == SIM_BR_DIRECT && in.len >= 2 && first != 0xe8));
		if (!back)
			continue;
		/* a jump back to a block that returns is the way home of code
		 * placed out of line (a rare path after the return), not a loop */
		if (in.branch == SIM_BR_DIRECT && reaches_return(addr, bytes, len, in.target))
			continue;
		uint64_t e = at + in.len;
		size_t k;
		for (k = 0; k < n && out[k].start != in.target; k++)
			;
		if (k < n) {	/* another latch of the same loop (a continue) */
			out[k].latches++;
			if (e > out[k].end) {
				out[k].end = e;
				out[k].latch = at;
			}
			out[k].conditional |= in.branch == SIM_BR_COND;
			continue;
		}
		if (n == max)
			continue;
		out[n++] = (struct sim_loop){ .start = in.target, .end = e, .latch = at, .latches = 1,
					      .conditional = in.branch == SIM_BR_COND };
	}
	return n;
}

int sim_innermost_loop(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		       uint64_t *start, uint64_t *end)
{
	struct sim_code *code = sim_code_new(m);
	char err[256];
	bool found = false;
	uint64_t best_s = 0, best_e = 0;
	for (size_t off = 0; off < len;) {
		long idx = sim_code_add(code, addr + off, bytes + off, len - off, err, sizeof err);
		if (idx < 0)
			break;
		const struct sim_insn *in = sim_code_insn(code, (size_t)idx);
		/* a backward conditional branch inside the range closes a loop;
		 * the shortest such loop is the innermost */
		if (in->branch == SIM_BR_COND && in->has_target && in->target >= addr && in->target <= in->addr) {
			uint64_t e = in->addr + in->len;
			if (!found || e - in->target < best_e - best_s) {
				best_s = in->target;
				best_e = e;
				found = true;
			}
		}
		off += in->len;
	}
	sim_code_free(code);
	if (!found)
		return -1;
	*start = best_s;
	*end = best_e;
	return 0;
}

/* "cmp REG, IMM" / "add REG, IMM" / "inc REG" ... of the model's
 * Intel-syntax text: the register and the constant */
static bool reg_imm(const char *text, const char *op, char *reg, size_t reglen, long long *imm)
{
	char mn[16], r[16], tail;
	long long v;
	int n = sscanf(text, "%15s %15[a-z0-9], %lli%c", mn, r, &v, &tail);
	if (n != 3 || strcmp(mn, op))
		return false;
	snprintf(reg, reglen, "%s", r);
	*imm = v;
	return true;
}

/* the trip count of a loop that counts a register down to zero: "mov
 * REG, N" before it and "dec REG" (or "sub REG, S") just before its latch
 * jnz: N / S; 0 when it is not that shape */
static double countdown_trips(const struct sim_code *code, size_t ninsn, const struct sim_loop *l)
{
	const struct sim_insn *head = NULL, *latch = NULL;
	for (size_t i = 0; i < ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (in->addr == l->latch)
			latch = in;
		else if (in->addr + in->len == l->latch)
			head = in;
	}
	if (!head || !latch || !head->fuse_head || strncmp(latch->text, "jnz ", 4))
		return 0;
	char mn[16], reg[16];
	long long step = 0;
	if (sscanf(head->text, "%15s %15[a-z0-9]", mn, reg) == 2 && !strcmp(mn, "dec") && !strchr(head->text, ','))
		step = 1;
	else if (!reg_imm(head->text, "sub", reg, sizeof reg, &step))
		return 0;
	if (step <= 0)
		return 0;
	/* the last constant the counter got before the loop */
	long long n = 0;
	for (size_t i = 0; i < ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		char r[16];
		long long v;
		if (in->addr >= l->start)
			continue;
		if (reg_imm(in->text, "mov", r, sizeof r, &v) && !strcmp(r, reg))
			n = v;
	}
	/* rounded up, without the overflow of n + step - 1 near the top */
	return n > 0 ? (double)(n / step + (n % step != 0)) : 0;
}

/* the trip count of loop L when its latch compares a counter with a
 * constant and the loop steps the counter by a constant: bound / step
 * (counting from 0, the common case: an estimate); or when it counts a
 * constant down to zero */
static double infer_trips(const struct sim_code *code, size_t ninsn, const struct sim_loop *l)
{
	double down = countdown_trips(code, ninsn, l);
	if (down > 0)
		return down;
	char reg[16] = "";
	long long bound = 0;
	/* the compare that feeds the latch: the last cmp before it */
	for (size_t i = 0; i < ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (in->addr < l->start || in->addr >= l->latch)
			continue;
		char r[16];
		long long v;
		if (reg_imm(in->text, "cmp", r, sizeof r, &v)) {
			snprintf(reg, sizeof reg, "%s", r);
			bound = v;
		} else if (!strncmp(in->text, "cmp ", 4)) {
			/* a later compare with a register decides: unknown */
			reg[0] = 0;
		}
	}
	if (!reg[0] || bound <= 0)
		return 0;
	long long step = 0;
	for (size_t i = 0; i < ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (in->addr < l->start || in->addr >= l->end)
			continue;
		char r[16], mn[16], r1[16];
		long long v;
		if (reg_imm(in->text, "add", r, sizeof r, &v) && !strcmp(r, reg))
			step = v;
		else if (sscanf(in->text, "%15s %15[a-z0-9]", mn, r1) == 2 && !strcmp(mn, "inc") && !strcmp(r1, reg))
			step = 1;
	}
	return step > 0 ? (double)(bound / step + (bound % step != 0)) : 0;
}

/* the width of a packed vector operation in bits (0: not one): a scalar
 * SSE/AVX operation (addsd, vmulss) and a move of one element (vmovq,
 * vmovd) use xmm registers without being packed */
static unsigned packed_bits(const char *text)
{
	char mn[24] = "";
	if (sscanf(text, "%23s", mn) != 1)
		return 0;
	if (strstr(text, "zmm"))
		return 512;
	if (strstr(text, "ymm"))
		return 256;
	if (!strstr(text, "xmm"))
		return 0;
	size_t n = strlen(mn);
	if ((n > 2 && (!strcmp(mn + n - 2, "ss") || !strcmp(mn + n - 2, "sd"))) || strstr(mn, "movq") ||
	    strstr(mn, "movd") || strstr(mn, "cvtsi") || strstr(mn, "comis"))
		return 0;
	return 128;
}

/* is loop A strictly inside loop B */
static bool inside(const struct sim_loop *a, const struct sim_loop *b)
{
	return b->start <= a->start && a->end <= b->end && b->end - b->start > a->end - a->start;
}

size_t sim_loop_nest(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		     struct sim_loop_info *out, size_t max)
{
	struct sim_loop loops[SIM_MAX_LOOPS];
	size_t n = sim_find_loops(m, addr, bytes, len, loops, max < SIM_MAX_LOOPS ? max : SIM_MAX_LOOPS);
	struct sim_code *code = sim_code_new(m);
	char err[256];
	size_t ninsn = 0;
	for (size_t off = 0; off < len;) {
		long idx = sim_code_add(code, addr + off, bytes + off, len - off, err, sizeof err);
		if (idx < 0)
			break;
		ninsn = (size_t)idx + 1;
		off += sim_code_insn(code, (size_t)idx)->len;
	}
	/* the function's last return: what lies after it is placed out of line */
	uint64_t last_ret = 0;
	for (size_t k = 0; k < ninsn; k++)
		if (sim_code_insn(code, k)->branch == SIM_BR_RET)
			last_ret = sim_code_insn(code, k)->addr + 1;
	for (size_t i = 0; i < n; i++) {
		struct sim_loop_info *o = &out[i];
		memset(o, 0, sizeof *o);
		o->loop = loops[i];
		o->depth = 1;
		o->innermost = true;
		o->parent = -1;
		for (size_t k = 0; k < n; k++) {
			if (k == i)
				continue;
			if (inside(&loops[i], &loops[k])) {
				o->depth++;
				if (o->parent < 0 ||
				    loops[k].end - loops[k].start < loops[o->parent].end - loops[o->parent].start)
					o->parent = (int)k;
			}
			if (inside(&loops[k], &loops[i]))
				o->innermost = false;
		}
		for (size_t k = 0; k < ninsn; k++) {
			uint64_t a = sim_code_insn(code, k)->addr;
			o->insns += a >= loops[i].start && a < loops[i].end;
		}
		o->trips = infer_trips(code, ninsn, &loops[i]);
		for (size_t k = 0; k < ninsn; k++) {
			const struct sim_insn *in = sim_code_insn(code, k);
			if (in->addr < loops[i].start || in->addr >= loops[i].end)
				continue;
			for (unsigned mo = 0; mo < in->nmem; mo++)
				if (in->mem[mo].write) {
					o->stores++;
					break;
				}
			unsigned bits = packed_bits(in->text);
			if (bits > o->vector_bits)
				o->vector_bits = bits;
		}
		o->after_return = last_ret && loops[i].start >= last_ret;
	}
	/* following the counters, where the function's code tells them,
	 * gives every loop's trips exactly, triangular nests included */
	double followed[SIM_MAX_LOOPS];
	sim_trips_by_execution(addr, bytes, len, loops, n, SIM_FOLLOW_STEPS, followed);
	for (size_t i = 0; i < n; i++)
		if (followed[i] > 0) {
			out[i].trips = followed[i];
			out[i].trips_followed = true;
		}
	for (size_t i = 0; i < n; i++) {
		double p = out[i].trips;
		for (size_t k = 0; k < n && p > 0; k++)
			if (k != i && inside(&loops[i], &loops[k]))
				p = out[k].trips > 0 ? p * out[k].trips : 0;
		out[i].nest_trips = p;
	}
	sim_code_free(code);
	return n;
}

/* does loop A start before loop B and close (its last backward branch)
 * inside B's body, before B's own latch, by a branch B may take on its
 * way (a conditional one, or one of several back to A's top), while B's
 * trip count is not known (a counted loop's latch is reached) */
static bool closes_inside(const struct sim_loop_info *a, const struct sim_loop_info *b)
{
	return a->loop.start < b->loop.start && a->loop.latch >= b->loop.start && a->loop.latch < b->loop.latch &&
	       a->loop.end <= b->loop.end && (a->loop.conditional || a->loop.latches > 1) && !(b->trips > 0);
}

/* is A a better choice than B, and why (a word for the reason) */
static bool hotter(const struct sim_loop_info *a, const struct sim_loop_info *b, const char **reason)
{
	if (a->executed || b->executed) {
		*reason = "the one the trace ran most instructions in";
		return a->executed > b->executed;
	}
	if (a->nest_trips > 0 && b->nest_trips > 0 && a->nest_trips != b->nest_trips) {
		*reason = "the one with the largest trip-count product of its nest";
		return a->nest_trips > b->nest_trips;
	}
	/* two overlapping loops, neither inside the other, where one's back
	 * edge to its earlier top lies in the other's body before that one's
	 * own latch: a backward branch is the likely way (the static rule
	 * of backward taken), so the body it leaves rarely reaches its latch
	 * (gcc's -O3 floyd: the vector compare jumps back to the row loop's
	 * top unless a lane needs a store; the store path's own latch ran 0
	 * times of 147456) */
	if (closes_inside(b, a) || closes_inside(a, b)) {
		*reason = "the loop the other's body jumps back to before its own latch (a backward branch is the likely way)";
		return closes_inside(a, b);
	}
	if (a->after_return != b->after_return) {
		*reason = "the one not placed after the function's return (where compilers put rare paths)";
		return !a->after_return;
	}
	/* (both innermost: the only loops compared here) */
	if (a->loop.start < b->loop.end && b->loop.start < a->loop.end && a->trips > 0 && a->trips == b->trips &&
	    a->stores != b->stores) {
		*reason = "of two paths back to one loop's top, the one around a store (the likely one)";
		return a->stores < b->stores;
	}
	/* a vectorizer's main loop and its remainder loop, placed after it:
	 * the remainder runs fewer than a vector's elements per entry, and
	 * where it sits deeper (inside the branches around it) depth would
	 * pick it */
	const struct sim_loop_info *wide = a->vector_bits > b->vector_bits ? a : b, *narrow = wide == a ? b : a;
	if (wide->vector_bits != narrow->vector_bits && narrow->loop.start > wide->loop.start) {
		*reason = "the vector loop, not the narrower remainder loop after it";
		return a->vector_bits > b->vector_bits;
	}
	if (a->depth != b->depth) {
		*reason = "the deepest in the nest";
		return a->depth > b->depth;
	}
	*reason = "the largest body of the deepest";
	return a->insns > b->insns;
}

static size_t describe_loop(const struct sim_loop_info *l, char *buf, size_t len)
{
	int k = snprintf(buf, len, "0x%llx-0x%llx (depth %u, %zu instructions", (unsigned long long)l->loop.start,
			 (unsigned long long)l->loop.end, l->depth, l->insns);
	size_t o = k > 0 ? (size_t)k : 0;
	if (l->trips > 0 && o < len)
		o += (size_t)snprintf(buf + o, len - o, ", about %.0f iterations per entry", l->trips);
	if (l->executed && o < len)
		o += (size_t)snprintf(buf + o, len - o, ", %llu executed", (unsigned long long)l->executed);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, ")");
	return o < len ? o : len;
}

int sim_hot_loop(const struct sim_loop_info *l, size_t n, char *why, size_t whylen)
{
	int best = -1;
	const char *reason = "the only innermost loop";
	size_t candidates = 0;
	for (size_t i = 0; i < n; i++) {
		if (!l[i].innermost)
			continue;
		candidates++;
		const char *r;
		if (best < 0) {
			best = (int)i;
		} else if (hotter(&l[i], &l[best], &r)) {
			best = (int)i;
			reason = r;
		} else if (!hotter(&l[best], &l[i], &r)) {
			/* alike: the first stays */
		} else {
			reason = r;
		}
	}
	if (best < 0) {
		snprintf(why, whylen, "no loop");
		return -1;
	}
	/* with a trace, an outer loop whose own instructions (those in no
	 * loop inside it) ran more than the best innermost loop's is where
	 * the time goes: an inner loop that rarely iterates (a match scan
	 * that stops at the first byte) does not stand for it */
	int outer = -1;
	uint64_t outer_own = 0;
	for (size_t i = 0; i < n && l[best].executed; i++) {
		if (l[i].innermost)
			continue;
		uint64_t inner = 0;
		for (size_t j = 0; j < n; j++) {
			if (!inside(&l[j].loop, &l[i].loop))
				continue;
			bool direct = true;
			for (size_t k = 0; k < n && direct; k++)
				direct = !(inside(&l[j].loop, &l[k].loop) && inside(&l[k].loop, &l[i].loop));
			if (direct)
				inner += l[j].executed;
		}
		uint64_t own = l[i].executed > inner ? l[i].executed - inner : 0;
		if (own > l[best].executed && own > outer_own) {
			outer = (int)i;
			outer_own = own;
		}
	}
	size_t o = 0;
	char d[256];
	if (outer >= 0) {
		best = outer;
		describe_loop(&l[best], d, sizeof d);
		o += (size_t)snprintf(why + o, whylen - o,
				      "%s, an outer loop: its own instructions (%llu, in no loop inside it) ran more than "
				      "any innermost loop's", d, (unsigned long long)outer_own);
	} else if (candidates > 1) {
		describe_loop(&l[best], d, sizeof d);
		o += (size_t)snprintf(why + o, whylen - o, "%s, of %zu innermost loops %s", d, candidates, reason);
	} else {
		describe_loop(&l[best], d, sizeof d);
		o += (size_t)snprintf(why + o, whylen - o, "%s, the only innermost loop", d);
	}
	bool first = true;
	for (size_t i = 0; i < n && o < whylen; i++) {
		if ((int)i == best)
			continue;
		describe_loop(&l[i], d, sizeof d);
		o += (size_t)snprintf(why + o, whylen - o, "%s %s%s", first ? "; the others:" : ",", d,
				      l[i].innermost ? "" : inside(&l[best].loop, &l[i].loop) ? " (outer)" : " (not innermost)");
		first = false;
	}
	return best;
}

/* the weight that stands for "unlimited" for each kind of resource */
static double unlimited_weight(enum sim_res_kind k)
{
	switch (k) {
	case SIM_RK_INST_WINDOW:
		return 16;
	case SIM_RK_BRANCH:
		return 1e12;
	default:
		return 1e4;
	}
}

static void set_config(const struct sim_machine *m, struct sim_config *c, const struct sim_set *set, double w,
		       bool unlimited)
{
	for (unsigned r = 0; r < SIM_MAX_RES; r++)
		c->w[r] = 1;
	for (unsigned i = 0; set && i < set->n; i++)
		c->w[set->res[i]] = unlimited ? unlimited_weight(sim_res_kind(m, set->res[i])) : w;
}

/* The configurations CFG over SRC. With the analysis' tape, the first
 * session over SRC records its prepass there and the others replay it. */
/* the units SRC's cuts make of its measured records (0: it has none, or
 * it is measured otherwise than in one pass) */
static size_t source_units(const struct sim_source *src)
{
	if (!src->cuts || !src->ncuts || src->passes > 1 || src->warm_pass)
		return 0;
	return src->ncuts + 1;
}

/* The configurations CFG over SRC. With the analysis' tape, the first
 * session over SRC records its prepass there and the others replay it.
 * UNIT (NULL: not wanted), with source_units(SRC) units: the cycles of
 * each configuration in each unit, UNIT[c * units + u]. */
static int run_configs(const struct sim_machine *m, const struct sim_code *code,
		       const struct sim_source *src, const struct sim_config *cfg, size_t ncfg,
		       unsigned threads, struct sim_tape *tape, struct sim_stats *st, struct sim_events *ev,
		       double *unit, char *err, size_t errlen)
{
	struct sim_session *s = sim_session_new(m, code, cfg, ncfg, threads, err, errlen);
	if (!s)
		return -1;
	if (tape && sim_tape_records(tape)) {
		sim_session_replay(s, tape);
	} else if (tape) {
		/* what run_configs feeds: a warm pass, the records, the
		 * settling passes and the measured ones */
		size_t mark = src->mark <= src->n ? src->mark : src->n, per = src->n - mark;
		size_t passes = src->passes > 1 ? src->passes : 1;
		size_t settle = passes > 1 && per ? (4 * (size_t)m->window + per - 1) / per : 0;
		sim_tape_reserve(tape, (src->warm_pass ? src->n : 0) + mark + (settle + passes) * per);
		sim_session_record(s, tape);
	}
	size_t mark = src->mark <= src->n ? src->mark : src->n;
	if (src->focus_hi > src->focus_lo)
		sim_session_focus(s, src->focus_lo, src->focus_hi);
	sim_session_data_level(s, src->data_level);
	sim_session_addresses_followed(s, src->addresses_followed);
	if (src->warm)
		sim_session_warm(s, src->recs, src->n);
	if (src->warm_pass) {
		sim_session_feed(s, src->recs, src->n);
		sim_session_count_from_here(s);
	} else if (src->warm) {
		sim_session_count_from_here(s);
	}
	sim_session_feed(s, src->recs, mark);
	unsigned passes = src->passes > 1 ? src->passes : 1;
	/* repeated passes are measured from the end of one, not from the end
	 * of the warm-up: the warm-up's tail (a cold pass, or a window before)
	 * is late, what issued behind it retires in a burst at the retire
	 * width, and the passes in that burst look faster than the machine;
	 * after four windows' worth of settling passes the burst is over, and
	 * from the end of a settled pass to the end of the last the time is
	 * whole passes */
	if (passes > 1) {
		size_t per = src->n - mark;
		size_t settle = per ? (4 * (size_t)m->window + per - 1) / per : 1;
		for (size_t p = 0; p < settle; p++)
			sim_session_feed(s, src->recs + mark, per);
	}
	sim_session_mark(s);
	size_t nu = unit ? source_units(src) : 0;
	if (nu) {
		/* one pass, unit by unit */
		double *last = calloc(ncfg, sizeof *last), *now = calloc(ncfg, sizeof *now);
		if (!last || !now)
			abort();
		sim_session_times(s, last);
		size_t from = mark;
		for (size_t u = 0; u < nu; u++) {
			size_t to = u < src->ncuts ? src->cuts[u] : src->n;
			if (to > src->n)
				to = src->n;
			if (to < from)
				to = from;
			sim_session_feed(s, src->recs + from, to - from);
			sim_session_times(s, now);
			for (size_t c = 0; c < ncfg; c++) {
				unit[c * nu + u] = now[c] - last[c];
				last[c] = now[c];
			}
			from = to;
		}
		free(last);
		free(now);
	} else {
		for (unsigned p = 0; p < passes; p++) {
			/* the events of one pass: what the stream holds */
			if (p && p + 1 == passes)
				sim_session_count_from_here(s);
			sim_session_feed(s, src->recs + mark, src->n - mark);
		}
	}
	sim_session_finish(s, st, ev);
	sim_session_free(s);
	return 0;
}

size_t sim_min_measured(const struct sim_machine *m)
{
	/* a window's worth can retire in the warm-up's shadow: 32 windows
	 * keep that under about 3 % (repeated passes settle first) */
	return 32 * (size_t)(m->window ? m->window : 224);
}

/* at most this many passes: a 16-record stream on a 512-entry window */
#define MAX_PASSES 1024

void sim_source_fit(struct sim_source *src, const struct sim_code *code, uint64_t head, bool own_warmup)
{
	size_t want = sim_min_measured(sim_code_machine(code));
	if (src->mark > src->n)
		src->mark = src->n;
	size_t measured = src->n - src->mark;
	if (measured >= want || !src->n)
		return;
	if (own_warmup || !measured) {
		/* the whole stream, after a pass over it */
		src->mark = 0;
		src->warm_pass = true;
		measured = src->n;
	}
	size_t passes = (want + measured - 1) / measured;
	src->passes = passes > MAX_PASSES ? MAX_PASSES : (unsigned)passes;
	if (head) {
		double units = 0;
		for (size_t i = src->mark; i < src->n; i++)
			units += sim_code_insn(code, src->recs[i].insn)->addr == head;
		src->units = units * src->passes;
	} else {
		src->units *= src->passes;
	}
}

static double time_of(const struct sim_stats *st, const struct sim_source *src)
{
	if (src->units > 0 && src->focus_hi > src->focus_lo)
		return (st->focus_cycles - st->mark_focus_cycles) / src->units;
	if (src->units > 0)
		return (st->cycles - st->mark_cycles) / src->units;
	return st->cycles - st->mark_cycles;
}

static double speedup(double base, double acc)
{
	if (acc <= 0 || base <= 0)
		return 0;
	return base / acc - 1;
}

/* configurations of one set: one per weight, then unlimited */
static void sens_configs(const struct sim_machine *m, const struct sim_set *set, const double *weights,
			 size_t nw, struct sim_config *out)
{
	for (size_t i = 0; i < nw; i++)
		set_config(m, &out[i], set, weights[i], false);
	set_config(m, &out[nw], set, 0, true);
}

/* More of a resource never slows a core down (it can leave the extra
 * unused): the speedups as the envelope of what the model gave, each the
 * best reached at a capacity between the machine's and its own (weight
 * 1 gains 0; below 1 the worst, as less capacity never helps); the bound
 * unlimited covers them all. Says whether a figure moved, and by how
 * much at most. */
static void envelope(const double *weights, size_t nw, struct sim_sensitivity *se)
{
	double dip = 0;
	double *raw = malloc((nw ? nw : 1) * sizeof *raw);
	if (!raw)
		abort();
	if (nw)
		memcpy(raw, se->speedup, nw * sizeof *raw);
	for (size_t w = 0; w < nw; w++) {
		double best = raw[w];
		for (size_t k = 0; k < nw; k++) {
			bool between = weights[w] >= 1 ? weights[k] >= 1 && weights[k] <= weights[w]
						       : weights[k] < 1 && weights[k] >= weights[w];
			if (!between)
				continue;
			if (weights[w] >= 1 ? raw[k] > best : raw[k] < best)
				best = raw[k];
		}
		if (weights[w] >= 1 && best < 0)
			best = 0;
		if (weights[w] < 1 && best > 0)
			best = 0;
		double moved = fabs(best - raw[w]);
		if (moved > dip)
			dip = moved;
		se->speedup[w] = best;
	}
	free(raw);
	for (size_t w = 0; w < nw; w++)
		if (se->speedup[w] > se->upper) {
			double moved = se->speedup[w] - se->upper;
			if (moved > dip)
				dip = moved;
			se->upper = se->speedup[w];
		}
	if (se->upper < 0) {
		if (-se->upper > dip)
			dip = -se->upper;
		se->upper = 0;
	}
	/* a difference under 0.01 % is the model's rounding, not a dip */
	se->envelope = dip >= 1e-4;
	se->dip = dip;
}

/* a figure that moved: the model gave another time than the base's */
#define NO_EFFECT 1e-9

/* the standard error of sum(B) / sum(D) - 1 over N units, as a ratio
 * estimator: sqrt(n / (n - 1) * sum (b - R d)^2) / sum d */
static double ratio_error(const double *b, const double *d, size_t n)
{
	double sb = 0, sd = 0;
	for (size_t u = 0; u < n; u++) {
		sb += b[u];
		sd += d[u];
	}
	if (n < 2 || !(sd > 0))
		return NAN;
	double r = sb / sd, ss = 0;
	for (size_t u = 0; u < n; u++)
		ss += (b[u] - r * d[u]) * (b[u] - r * d[u]);
	return sqrt((double)n / (double)(n - 1) * ss) / sd;
}

/* BASE_UNIT: the base's cycles per unit of SRC's cuts (NULL: no errors) */
static int sens_run(const struct sim_machine *m, const struct sim_code *code, const struct sim_source *src,
		    const struct sim_analysis_opts *o, double base, const double *base_unit,
		    struct sim_sensitivity *sens, size_t nsens, size_t *pruned, char *err, size_t errlen)
{
	size_t nu = base_unit ? source_units(src) : 0;
	double *unit = nu ? calloc(nsens * (o->nweights + 1) * nu, sizeof *unit) : NULL;
	double *err_of = calloc(nsens * (o->nweights + 1) + 1, sizeof *err_of);
	if ((nu && !unit) || !err_of)
		abort();
	size_t nw = o->nweights, per = nw + 1;
	/* the raw speedups, per sensitivity: one per weight, then unlimited */
	double *raw = calloc(nsens * per, sizeof *raw);
	bool *lower = calloc(nsens, sizeof *lower);
	struct sim_config *cfg = calloc(nsens * per, sizeof *cfg);
	struct sim_stats *st = calloc(nsens * per, sizeof *st);
	size_t *at = calloc(nsens * per, sizeof *at);
	struct sim_config *all = calloc(per, sizeof *all);
	if (!raw || !lower || !cfg || !st || !at || !all)
		abort();
	bool two_stages = o->prune && nw > 0;
	/* first each unlimited (all weights when not pruning), then the
	 * weights of those that moved */
	int rc = 0;
	for (int stage = 0; stage < (two_stages ? 2 : 1) && !rc; stage++) {
		size_t ncfg = 0;
		for (size_t i = 0; i < nsens; i++) {
			sens_configs(m, &sens[i].set, o->weights, nw, all);
			for (size_t w = 0; w < per; w++) {
				bool unlimited = w == nw;
				if (two_stages && (stage == 0 ? !unlimited : unlimited || !lower[i]))
					continue;
				cfg[ncfg] = all[w];
				at[ncfg++] = i * per + w;
			}
		}
		if (!ncfg)
			break;
		rc = run_configs(m, code, src, cfg, ncfg, o->threads, o->tape, st, NULL, unit, err, errlen);
		for (size_t c = 0; c < ncfg && !rc; c++) {
			raw[at[c]] = speedup(base, time_of(&st[c], src));
			err_of[at[c]] = nu ? ratio_error(base_unit, unit + c * nu, nu) : NAN;
		}
		if (stage == 0 && two_stages) {
			for (size_t i = 0; i < nsens; i++) {
				lower[i] = fabs(raw[i * per + nw]) > NO_EFFECT;
				if (!lower[i] && pruned)
					++*pruned;
			}
		}
	}
	if (!rc) {
		for (size_t i = 0; i < nsens; i++) {
			struct sim_sensitivity *se = &sens[i];
			se->speedup = calloc(nw, sizeof *se->speedup);
			if (!se->speedup)
				abort();
			for (size_t w = 0; w < nw; w++)
				se->speedup[w] = raw[i * per + w];
			se->upper = raw[i * per + nw];
			if (nu && (!two_stages || lower[i])) {
				se->error = calloc(per, sizeof *se->error);
				if (!se->error)
					abort();
				memcpy(se->error, err_of + i * per, per * sizeof *se->error);
			}
			envelope(o->weights, nw, se);
			se->bottleneck = nw && se->speedup[nw - 1] >= o->threshold;
		}
	}
	free(raw);
	free(lower);
	free(cfg);
	free(st);
	free(at);
	free(all);
	free(unit);
	free(err_of);
	return rc;
}

static bool set_has(const struct sim_set *s, unsigned r)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->res[i] == r)
			return true;
	return false;
}

/* Search for a set of resources that pays only when accelerated
 * together: every pair first (when each resource alone gives nothing, a
 * greedy start has nothing to go by), then the best pair grows one
 * resource at a time while that helps, until the set crosses the
 * threshold. */
static int search_set(const struct sim_machine *m, const struct sim_code *code, const struct sim_source *src,
		      const struct sim_analysis_opts *o, double base, struct sim_set *found, char *err,
		      size_t errlen)
{
	double top = o->weights[o->nweights - 1];
	size_t nr = o->nresources;
	size_t cap = nr * (nr - 1) / 2 + nr;
	struct sim_config *cfg = calloc(cap, sizeof *cfg);
	struct sim_stats *st = calloc(cap, sizeof *st);
	struct sim_set *sets = calloc(cap, sizeof *sets);
	if (!cfg || !st || !sets)
		abort();
	/* every resource at the top weight first: a set of them gains no
	 * more than all of them together (the model is monotonic but for
	 * the warm-up's discrete edges), so when all together stay under
	 * the threshold the pairs and their growth would find nothing (a
	 * loop bound by a serialising instruction, which no resource
	 * speeds up: 185 simulations saved for 18 resources) */
	int rc = 1;
	size_t nc = 0;
	struct sim_set cur = { 0 };
	double cur_sp = 0;
	if (nr > 2) {
		set_config(m, &cfg[0], NULL, top, false);
		for (size_t i = 0; i < nr; i++)
			cfg[0].w[o->resources[i]] = top;
		if (run_configs(m, code, src, cfg, 1, o->threads, o->tape, st, NULL, NULL, err, errlen))
			rc = -1;
		if (rc < 0 || speedup(base, time_of(&st[0], src)) < o->threshold)
			goto out;
	}
	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++) {
			sets[nc].n = 2;
			sets[nc].res[0] = o->resources[i];
			sets[nc].res[1] = o->resources[j];
			set_config(m, &cfg[nc], &sets[nc], top, false);
			nc++;
		}
	for (;;) {
		if (!nc)
			break;
		if (run_configs(m, code, src, cfg, nc, o->threads, o->tape, st, NULL, NULL, err, errlen)) {
			rc = -1;
			break;
		}
		size_t best = 0;
		double best_sp = -1;
		for (size_t i = 0; i < nc; i++) {
			double sp = speedup(base, time_of(&st[i], src));
			if (sp > best_sp + 1e-12) {
				best_sp = sp;
				best = i;
			}
		}
		if (best_sp <= cur_sp + 1e-4)
			break;
		cur = sets[best];
		cur_sp = best_sp;
		if (cur_sp >= o->threshold) {
			*found = cur;
			rc = 0;
			break;
		}
		if (cur.n >= 4)
			break;
		/* grow the best set by one resource */
		nc = 0;
		for (size_t i = 0; i < nr; i++) {
			if (set_has(&cur, o->resources[i]))
				continue;
			sets[nc] = cur;
			sets[nc].res[sets[nc].n++] = o->resources[i];
			set_config(m, &cfg[nc], &sets[nc], top, false);
			nc++;
		}
	}
out:
	free(cfg);
	free(st);
	free(sets);
	return rc;
}

static int analyze_sweep(const struct sim_machine *m, const struct sim_code *code, const struct sim_source *src,
			 const struct sim_analysis_opts *o, const double *base_unit, struct sim_analysis *a, char *err,
			 size_t errlen);

int sim_analyze(const struct sim_machine *m, const struct sim_code *code, const struct sim_source *src,
		const struct sim_analysis_opts *o, struct sim_analysis *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	struct sim_config base_cfg;
	set_config(m, &base_cfg, NULL, 1, false);
	size_t nu = source_units(src);
	double *base_unit = nu ? calloc(nu, sizeof *base_unit) : NULL;
	if (nu && !base_unit)
		abort();
	if (run_configs(m, code, src, &base_cfg, 1, 1, o->tape, &a->base, &a->events, base_unit, err, errlen)) {
		free(base_unit);
		return -1;
	}
	int rc = analyze_sweep(m, code, src, o, base_unit, a, err, errlen);
	free(base_unit);
	return rc;
}

/* sim_analyze after the base: the sweep, and the search */
static int analyze_sweep(const struct sim_machine *m, const struct sim_code *code, const struct sim_source *src,
			 const struct sim_analysis_opts *o, const double *base_unit, struct sim_analysis *a, char *err,
			 size_t errlen)
{
	double base = time_of(&a->base, src);
	a->units = src->units;
	a->cycles_per_unit = base;
	a->stream_cycles_per_unit = src->units > 0 ? (a->base.cycles - a->base.mark_cycles) / src->units : base;
	double dc = a->base.cycles - a->base.mark_cycles;
	a->measured_cycles = dc;
	a->measured_insns = (double)(a->base.insns - a->base.mark_insns);
	a->measured_fused = (double)(a->base.fused - a->base.mark_fused);
	a->ipc = dc > 0 ? a->measured_insns / dc : 0;
	a->fused_per_cycle = dc > 0 ? a->measured_fused / dc : 0;
	a->passes = src->passes > 1 ? src->passes : 1;
	a->warm_pass = src->warm_pass;
	size_t mark = src->mark <= src->n ? src->mark : src->n;
	a->measured_records = src->n - mark;
	a->nweights = o->nweights;
	a->weights = calloc(o->nweights ? o->nweights : 1, sizeof *a->weights);
	if (!a->weights)
		abort();
	if (o->nweights)
		memcpy(a->weights, o->weights, o->nweights * sizeof *a->weights);
	size_t nsens = o->nresources + o->nsets;
	a->sens = calloc(nsens + 1, sizeof *a->sens);
	if (!a->sens)
		abort();
	for (size_t i = 0; i < o->nresources; i++) {
		a->sens[i].set.n = 1;
		a->sens[i].set.res[0] = o->resources[i];
	}
	for (size_t i = 0; i < o->nsets; i++)
		a->sens[o->nresources + i].set = o->sets[i];
	a->nsens = nsens;
	if (!o->nweights)
		return 0;
	if (nsens && sens_run(m, code, src, o, base, base_unit, a->sens, nsens, &a->pruned, err, errlen))
		return -1;
	bool any = false;
	for (size_t i = 0; i < o->nresources; i++)
		any |= a->sens[i].bottleneck;
	if (!any && o->search && o->nresources > 1) {
		struct sim_set found;
		int rc = search_set(m, code, src, o, base, &found, err, errlen);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			struct sim_sensitivity *se = &a->sens[a->nsens];
			se->set = found;
			se->searched = true;
			if (sens_run(m, code, src, o, base, base_unit, se, 1, &a->pruned, err, errlen))
				return -1;
			a->nsens++;
		}
	}
	return 0;
}

/* uses of resource R by one execution of IN: the fused µops of the front
 * end, the divider's cycles, the µops it sends to a port group */
static double insn_uses(const struct sim_machine *m, const struct sim_insn *in, unsigned r)
{
	enum sim_res_kind k = sim_res_kind(m, r);
	if (k == SIM_RK_FRONTEND)
		return in->fused;
	if (k == SIM_RK_DIV)
		return in->div;
	double u = 0;
	for (unsigned i = 0; i < in->nexec; i++)
		u += in->exec[i] == r;
	for (unsigned i = 0; i < in->nload; i++)
		u += in->load[i] == r;
	return u;
}

void sim_analysis_free(struct sim_analysis *a)
{
	for (size_t i = 0; i < a->nsens; i++) {
		free(a->sens[i].speedup);
		free(a->sens[i].error);
	}
	free(a->sens);
	free(a->weights);
	sim_events_free(&a->events);
	memset(a, 0, sizeof *a);
}

double sim_insn_share(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		      size_t i, unsigned r)
{
	if (i >= a->events.ninsn || i >= sim_code_count(code) || a->base.cycles <= 0 || r >= sim_nres(m))
		return 0;
	double cap = sim_res_capacity(m, r);
	double uses = insn_uses(m, sim_code_insn(code, i), r) * (double)a->events.insn_count[i];
	return cap > 0 ? uses / (cap * a->base.cycles) : 0;
}
