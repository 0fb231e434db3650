/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real instruction stream turned into model records, and what gus sim
 * gives the model: its loop bodies, --resources and --weights (sim.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MAX_WEIGHTS 200

/* the resources a default sweep covers: the port groups and divider the
 * code uses, and every non-port resource */
size_t simrun_default_resources(const struct sim_machine *m, const struct sim_code *code, uint8_t *res)
{
	size_t n = 0;
	for (unsigned r = 0; r < sim_nres(m); r++) {
		enum sim_res_kind k = sim_res_kind(m, r);
		bool used = k != SIM_RK_PORTS && k != SIM_RK_DIV;
		for (size_t i = 0; i < sim_code_count(code) && !used; i++) {
			const struct sim_insn *in = sim_code_insn(code, i);
			if (k == SIM_RK_DIV)
				used = in->div > 0;
			for (unsigned u = 0; u < in->nexec && !used; u++)
				used = in->exec[u] == r;
			for (unsigned u = 0; u < in->nload && !used; u++)
				used = in->load[u] == r;
		}
		if (used)
			res[n++] = (uint8_t)r;
	}
	return n;
}



/* Data addresses in access order onto the instruction's memory operands:
 * a write-only operand takes the next stored address, any other the
 * next address; when they do not fit, the model uses the expressions. */
static unsigned map_addresses(const struct sim_insn *in, const struct stream_insn *s, uint64_t *mem)
{
	if (!(s->flags & STREAM_HAS_MEM) || !in->nmem || !s->nmem)
		return 0;
	bool used[STREAM_MAX_MEM] = { false };
	for (unsigned k = 0; k < in->nmem; k++) {
		bool store_only = in->mem[k].write && !in->mem[k].read;
		unsigned j;
		for (j = 0; j < s->nmem; j++)
			if (!used[j] && (!store_only || (s->store_mask >> j & 1)))
				break;
		if (j == s->nmem)
			return 0;
		used[j] = true;
		mem[k] = s->mem[j];
	}
	return in->nmem;
}

int simrun_collect_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct simrun_collect *t = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct stream_insn *s = &v[i];
		if ((t->hi && (s->ip < t->lo || s->ip >= t->hi)) || (t->max && t->n >= t->max)) {
			t->skipped++;
			continue;
		}
		char err[200];
		long idx = sim_code_add(t->code, s->ip, s->bytes, s->size, err, sizeof err);
		if (idx < 0) {
			if (!t->undecodable++) {
				t->first_bad_ip = s->ip;
				snprintf(t->first_bad, sizeof t->first_bad, "%s", err);
			}
			continue;
		}
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 1 << 16;
			t->recs = realloc(t->recs, t->cap * sizeof *t->recs);
			if (!t->recs)
				abort();
		}
		if (t->n && t->recs[t->n - 1].taken)
			t->recs[t->n - 1].target = s->ip;
		struct sim_rec *r = &t->recs[t->n++];
		memset(r, 0, sizeof *r);
		r->insn = (uint32_t)idx;
		r->taken = (s->flags & STREAM_TAKEN) != 0;
		if (t->data_addresses)
			r->nmem = (uint8_t)map_addresses(sim_code_insn(t->code, (size_t)idx), s, r->mem);
	}
	return 0;
}


void simrun_collect_free(struct simrun_collect *c)
{
	free(c->recs);
	c->recs = NULL;
	c->n = c->cap = 0;
}

struct sim_source simrun_source(const struct simrun_collect *c, uint64_t head, struct stream_range focus)
{
	size_t mark = c->n / 4;
	double units = 0;
	if (head)
		for (size_t i = mark; i < c->n; i++)
			units += sim_code_insn(c->code, c->recs[i].insn)->addr == head;
	struct sim_source src = { .recs = c->recs, .n = c->n, .mark = mark, .units = units,
				  .focus_lo = focus.start, .focus_hi = focus.end, .warm = true };
	/* a short stream (a few calls of a small function) is measured
	 * whole, after a warm pass over it */
	sim_source_fit(&src, c->code, head, true);
	return src;
}

static int simrun_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int simrun_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int simrun_parse_weights(const char *s, double **out, size_t *n, char *err, size_t errlen)
{
	double from, to, step;
	char tail;
	if (sscanf(s, "%lf:%lf:%lf%c", &from, &to, &step, &tail) == 3) {
		if (!(from >= 0.001) || !(to >= from) || !(to <= 1e6) || !(step > 0))
			return simrun_error(err, errlen, "--weights: '%s' is not FROM:TO:STEP with 0.001 <= FROM <= TO <= 1e6", s);
		if ((to - from) / step >= MAX_WEIGHTS)
			return simrun_error(err, errlen, "--weights: '%s' gives more than %d weights", s, MAX_WEIGHTS);
		size_t k = (size_t)((to - from) / step + 1e-6) + 1;
		double *w = calloc(k, sizeof *w);
		if (!w)
			abort();
		for (size_t i = 0; i < k; i++)
			w[i] = from + step * (double)i;
		*out = w;
		*n = k;
		return 0;
	}
	size_t cap = 8, k = 0;
	double *w = malloc(cap * sizeof *w);
	if (!w)
		abort();
	char *dup = strdup(s);
	if (!dup)
		abort();
	for (char *save = NULL, *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double v = strtod(t, &end);
		int rc = 0;
		if (end == t || *end || !(v >= 0.001) || v > 1e6)
			rc = simrun_error(err, errlen, "--weights: '%s' is not a number from 0.001 to 1e6", t);
		else if (k == MAX_WEIGHTS)
			rc = simrun_error(err, errlen, "--weights: more than %d weights", MAX_WEIGHTS);
		else if (k && v <= w[k - 1])
			rc = simrun_error(err, errlen, "--weights: the weights must increase ('%s')", t);
		if (rc) {
			free(dup);
			free(w);
			return rc;
		}
		if (k == cap) {
			cap *= 2;
			w = realloc(w, cap * sizeof *w);
			if (!w)
				abort();
		}
		w[k++] = v;
	}
	free(dup);
	if (!k) {
		free(w);
		return simrun_error(err, errlen, "--weights: empty list");
	}
	*out = w;
	*n = k;
	return 0;
}

int simrun_parse_resources(const struct sim_machine *m, const char *list, uint8_t *res, size_t *nres,
			   struct sim_set *sets, size_t *nsets, char *err, size_t errlen)
{
	char *dup = strdup(list);
	if (!dup)
		abort();
	*nres = *nsets = 0;
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(dup, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		struct sim_set set = { 0 };
		for (char *s2 = NULL, *r = strtok_r(t, "+", &s2); r; r = strtok_r(NULL, "+", &s2)) {
			int idx = sim_res_find(m, r);
			if (idx < 0) {
				char known[1024];
				size_t o = 0;
				for (unsigned k = 0; k < sim_nres(m) && o < sizeof known; k++)
					o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", k ? " " : "",
							      sim_res_name(m, k));
				rc = simrun_error(err, errlen, "--resources: no resource '%s' in %s (resources: %s)", r,
						   sim_machine_name(m), known);
				break;
			}
			if (set.n == 8) {
				rc = simrun_error(err, errlen, "--resources: at most 8 resources in a set");
				break;
			}
			set.res[set.n++] = (uint8_t)idx;
		}
		if (rc)
			break;
		if (set.n == 1 && *nres < SIM_MAX_RES)
			res[(*nres)++] = set.res[0];
		else if (set.n > 1 && *nsets < SIMRUN_MAX_SETS)
			sets[(*nsets)++] = set;
		else if (set.n > 1) {
			rc = simrun_error(err, errlen, "--resources: at most %d sets", SIMRUN_MAX_SETS);
			break;
		}
	}
	free(dup);
	return rc;
}

/* the loop [ADDR, ADDR+LEN) run inside its parent (NEST) for OUT's
 * iterations at least, whole parent iterations: 0 with OUT's stream, or -1
 * with OUT->nest_why (the loop is then simulated alone) */
/* in_nest on NEST's path: its records in order, a branch taken where the
 * next one is elsewhere */
static int on_path(struct sim_code *code, uint64_t addr, size_t len, const struct sim_nest *nest,
		   struct simrun_loop *out)
{
	size_t n = nest->npath, inner = 0;
	struct sim_rec *recs = calloc(n, sizeof *recs);
	if (!recs)
		abort();
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = nest->path[i].ip;
		char err[200];
		long idx = ip >= nest->addr && ip < nest->addr + nest->len
				   ? sim_code_add(code, ip, nest->bytes + (ip - nest->addr), nest->addr + nest->len - ip,
						  err, sizeof err)
				   : -1;
		if (idx < 0) {
			snprintf(out->nest_why, sizeof out->nest_why, "its parent's path leaves the parent at 0x%llx",
				 (unsigned long long)ip);
			free(recs);
			return -1;
		}
		const struct sim_insn *in = sim_code_insn(code, (size_t)idx);
		recs[i].insn = (uint32_t)idx;
		if (i + 1 < n && nest->path[i + 1].ip != ip + in->len) {
			recs[i].taken = 1;
			recs[i].target = nest->path[i + 1].ip;
		}
		/* the addresses the followed values give, where they are the
		 * instruction's own (its operands' count as decoded) */
		if (nest->path[i].nmem && nest->path[i].nmem <= in->nmem) {
			recs[i].nmem = nest->path[i].nmem;
			memcpy(recs[i].mem, nest->path[i].mem, sizeof recs[i].mem);
		}
		inner += ip == nest->latch;
	}
	size_t warm = (size_t)((double)inner * out->warmup / out->iterations), seen = 0, mark = 0;
	for (size_t i = 0; i < n && seen < warm; i++)
		if (nest->path[i].ip == nest->latch && ++seen == warm)
			mark = i + 1;
	if (inner <= warm) {
		snprintf(out->nest_why, sizeof out->nest_why, "its parent's path runs it %zu times", inner);
		free(recs);
		return -1;
	}
	out->recs = recs;
	out->iterations = (unsigned)inner;
	out->warmup = (unsigned)warm;
	out->in_nest = true;
	out->src = (struct sim_source){
		.recs = recs,
		.n = n,
		.mark = mark,
		.units = (double)(inner - warm),
		.focus_lo = addr,
		.focus_hi = addr + len,
		.addresses_followed = true,
		/* the predictor trained by a pass over the path first, as a
		 * traced stream's is: the inner loops' exits that repeat
		 * pass after pass, which the hardware learns over a hot
		 * function's calls (bench/accuracy/exits.txt's nests) */
		.warm = true,
	};
	return 0;
}

static int in_nest(struct sim_code *code, uint64_t addr, size_t len, const struct sim_nest *nest,
		   struct simrun_loop *out)
{
	if (nest->npath)
		return on_path(code, addr, len, nest, out);
	size_t min_inner = out->iterations;
	if (min_inner < 8 * (size_t)nest->trips)
		min_inner = 8 * (size_t)nest->trips;
	size_t nrec = 0, inner = 0;
	if (sim_stream_nest(code, nest, min_inner, SIMRUN_MAX_RECORDS, &out->recs, &nrec, &inner, out->nest_why,
			    sizeof out->nest_why))
		return -1;
	/* the warm-up: the same share of the loop's iterations as alone,
	 * counted at its latch; the time is its instructions' own */
	size_t warm = (size_t)((double)inner * out->warmup / out->iterations), seen = 0, mark = 0;
	for (size_t i = 0; i < nrec && seen < warm; i++)
		if (sim_code_insn(code, out->recs[i].insn)->addr == nest->latch && ++seen == warm)
			mark = i + 1;
	out->iterations = (unsigned)inner;
	out->warmup = (unsigned)warm;
	out->in_nest = true;
	out->src = (struct sim_source){
		.recs = out->recs,
		.n = nrec,
		.mark = mark,
		.units = (double)(inner - warm),
		.focus_lo = addr,
		.focus_hi = addr + len,
	};
	return 0;
}

enum simrun_loop_status simrun_loop(const struct sim_machine *m, struct sim_code *code, uint64_t addr,
				    const uint8_t *bytes, size_t len, const struct sim_nest *nest, unsigned iterations,
				    struct simrun_loop *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	size_t nrec = 0;
	if (sim_stream_loop(code, addr, bytes, len, 1, &out->recs, &nrec, &out->per_iter, err, errlen))
		return SIMRUN_LOOP_UNDECODABLE;
	/* the measurement starts once the window has filled twice */
	unsigned fused = 0;
	for (size_t i = 0; i < out->per_iter; i++)
		fused += sim_code_insn(code, out->recs[i].insn)->fused;
	free(out->recs);
	out->recs = NULL;
	int rw = sim_res_find(m, "INST_WINDOW");
	double window = rw >= 0 ? sim_res_capacity(m, (unsigned)rw) : 224;
	unsigned need_warm = (unsigned)(2 * window / (fused ? fused : 1)) + 1;
	out->needed = 4 * need_warm;
	out->iterations = iterations ? iterations : 4 * need_warm > 200 ? 4 * need_warm : 200;
	if ((uint64_t)out->iterations * out->per_iter > SIMRUN_MAX_RECORDS)
		return SIMRUN_LOOP_TOO_LONG;
	out->warmup = out->iterations / 4 > need_warm ? out->iterations / 4 : need_warm;
	if (out->warmup > out->iterations / 2) {
		out->warmup = out->iterations / 2;
		out->short_warmup = true;
	}
	if (nest && !in_nest(code, addr, len, nest, out))
		return SIMRUN_LOOP_OK;
	if (sim_stream_loop(code, addr, bytes, len, out->iterations, &out->recs, &nrec, &out->per_iter, err, errlen))
		return SIMRUN_LOOP_UNDECODABLE;
	out->src = (struct sim_source){
		.recs = out->recs,
		.n = nrec,
		.mark = (size_t)out->warmup * out->per_iter,
		.units = out->iterations - out->warmup,
	};
	return SIMRUN_LOOP_OK;
}

void simrun_nest_note(const struct simrun_loop *lp, const struct sim_nest *nest, char *buf, size_t len)
{
	if (lp->in_nest && nest->npath)
		snprintf(buf, len,
			 "; simulated on its parent loop 0x%llx-0x%llx as the function's loop counters run it "
			 "(%zu instructions from the middle of the run, about %u iterations per entry; --alone: by itself)",
			 (unsigned long long)nest->addr, (unsigned long long)(nest->addr + nest->len), nest->npath,
			 nest->trips);
	else if (lp->in_nest)
		snprintf(buf, len,
			 "; simulated inside its parent loop 0x%llx-0x%llx, %u iterations per entry%s (--alone: by itself)",
			 (unsigned long long)nest->addr, (unsigned long long)(nest->addr + nest->len), nest->trips,
			 nest->nsiblings ? ", the parent's other loops too (their inferred trips, else as many)" : "");
	else
		snprintf(buf, len, "; simulated by itself: %s", lp->nest_why);
}

int simrun_hex_code(const char *hex, const char *address, uint8_t **bytes, size_t *len, uint64_t *addr, char *err,
		    size_t errlen)
{
	char e[256];
	unsigned long long at = 0;
	char tail;
	if (address && sscanf(address, "%llx%c", &at, &tail) != 1)
		return simrun_error(err, errlen, "--address: '%s' is not an address in hex", address);
	if (sim_parse_hex(hex, bytes, len, e, sizeof e))
		return simrun_error(err, errlen, "--hex: %s", e);
	*addr = at;
	return 0;
}
