/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A region's simulation as a blob for gus.data's results table, so that a
 * second gus report does not simulate again.
 *
 * Layout (all integers little-endian, doubles as the 8 bytes of their IEEE
 * representation in little-endian order, so NaN payloads and -0 survive):
 *
 *   "GUSSIM"  u16 version
 *   str machine                       str = u32 length + bytes (no NUL)
 *   u8 has_stream [str stream]
 *   u32 ninsn, per instruction: u64 addr, u8 len, len bytes
 *   sim_stats:  f64 cycles mark_cycles, u64 insns mark_insns fused uops
 *               mark_fused mark_uops,
 *               f64 slots retiring frontend bad_spec backend_mem backend_core,
 *               u64 mispredicts, f64 mem_stall[4]
 *   sim_events: u64 loads stores level_hits[4] cond_branches cond_miss
 *               indirect indirect_miss btb_miss mispredicts branches
 *               target_misses,
 *               u64 ninsn, ninsn x u64 insn_count, ninsn x f64 insn_cycles
 *   f64 units cycles_per_unit ipc fused_per_cycle
 *   u32 passes, u8 warm_pass, u64 measured_records
 *   f64 measured_cycles measured_insns measured_fused, u8 run_weighted
 *   u32 nweights, nweights x f64
 *   u32 nsens, per entry: u8 n, n x u8 res, u8 flags (1 bottleneck,
 *               2 searched, 4 envelope), f64 upper dip, nweights x f64 speedup
 *   u64 FNV-1a of every byte before it
 *
 * The code is stored as bytes, not as decoded instructions: decoding again
 * with the machine the report uses keeps the sim_insn layout private to
 * sim/, and the indices the events refer to are checked to come out the
 * same. The checksum is there because a cache that silently hands back
 * different numbers is worse than one that misses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define SIMCACHE_MAGIC "GUSSIM"
#define SIMCACHE_MAGIC_LEN 6
#define SIMCACHE_VERSION 4
#define SIMCACHE_MAX_NAME 256	/* a machine name or stream line longer than this is damage */
#define SIMCACHE_MAX_STREAM 4096
#define SIMCACHE_MAX_INSN 15	/* x86's longest instruction, sim_insn.bytes */

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ------------------------------------------------------------ writer --- */

struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool failed;
};

static void w_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->failed)
		return;
	if (n > w->cap - w->n) {
		size_t cap = w->cap ? w->cap : 1024;
		while (cap - w->n < n) {
			if (cap > SIZE_MAX / 2) {
				w->failed = true;
				return;
			}
			cap *= 2;
		}
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->failed = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	if (n)
		memcpy(w->p + w->n, src, n);
	w->n += n;
}

static void w_uint(struct wbuf *w, uint64_t v, unsigned size)
{
	uint8_t b[8];
	for (unsigned i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	w_bytes(w, b, size);
}

static void w_u8(struct wbuf *w, uint8_t v) { w_uint(w, v, 1); }
static void w_u32(struct wbuf *w, uint32_t v) { w_uint(w, v, 4); }
static void w_u64(struct wbuf *w, uint64_t v) { w_uint(w, v, 8); }

static void w_f64(struct wbuf *w, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	w_u64(w, v);
}

static void w_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);
	if (n > UINT32_MAX) {
		w->failed = true;
		return;
	}
	w_u32(w, (uint32_t)n);
	w_bytes(w, s, n);
}

/* a count that the reader takes as u32 */
static void w_count(struct wbuf *w, size_t n)
{
	if (n > UINT32_MAX)
		w->failed = true;
	else
		w_u32(w, (uint32_t)n);
}

int merge_sim_pack(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		   const char *stream, uint8_t **out, size_t *n)
{
	struct wbuf w = { 0 };
	*out = NULL;
	*n = 0;
	if (!m || !code || !a)
		return -1;
	/* the reader refuses these, so writing them would only make a blob
	 * that can never be read back */
	if (strlen(sim_machine_name(m)) > SIMCACHE_MAX_NAME || (stream && strlen(stream) > SIMCACHE_MAX_STREAM))
		return -1;
	w_bytes(&w, SIMCACHE_MAGIC, SIMCACHE_MAGIC_LEN);
	w_uint(&w, SIMCACHE_VERSION, 2);
	w_str(&w, sim_machine_name(m));
	w_u8(&w, stream != NULL);
	if (stream)
		w_str(&w, stream);

	size_t ninsn = sim_code_count(code);
	w_count(&w, ninsn);
	for (size_t i = 0; i < ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		w_u64(&w, in->addr);
		w_u8(&w, in->len);
		w_bytes(&w, in->bytes, in->len <= sizeof in->bytes ? in->len : sizeof in->bytes);
	}

	const struct sim_stats *st = &a->base;
	w_f64(&w, st->cycles);
	w_f64(&w, st->mark_cycles);
	w_u64(&w, st->insns);
	w_u64(&w, st->mark_insns);
	w_u64(&w, st->fused);
	w_u64(&w, st->uops);
	w_u64(&w, st->mark_fused);
	w_u64(&w, st->mark_uops);
	w_f64(&w, st->slots);
	w_f64(&w, st->retiring);
	w_f64(&w, st->frontend);
	w_f64(&w, st->bad_spec);
	w_f64(&w, st->backend_mem);
	w_f64(&w, st->backend_core);
	w_u64(&w, st->mispredicts);
	for (int i = 0; i < 4; i++)
		w_f64(&w, st->mem_stall[i]);

	const struct sim_events *ev = &a->events;
	w_u64(&w, ev->loads);
	w_u64(&w, ev->stores);
	for (int i = 0; i < 4; i++)
		w_u64(&w, ev->level_hits[i]);
	w_u64(&w, ev->cond_branches);
	w_u64(&w, ev->cond_miss);
	w_u64(&w, ev->indirect);
	w_u64(&w, ev->indirect_miss);
	w_u64(&w, ev->btb_miss);
	w_u64(&w, ev->mispredicts);
	w_u64(&w, ev->branches);
	w_u64(&w, ev->target_misses);
	size_t ncount = ev->insn_count ? ev->ninsn : 0;
	w_u64(&w, ncount);
	for (size_t i = 0; i < ncount; i++)
		w_u64(&w, ev->insn_count[i]);
	for (size_t i = 0; i < ncount; i++)
		w_f64(&w, ev->insn_cycles ? ev->insn_cycles[i] : 0);

	w_f64(&w, a->units);
	w_f64(&w, a->cycles_per_unit);
	w_f64(&w, a->ipc);
	w_f64(&w, a->fused_per_cycle);
	w_u32(&w, a->passes);
	w_u8(&w, a->warm_pass);
	w_u64(&w, a->measured_records);
	w_f64(&w, a->measured_cycles);
	w_f64(&w, a->measured_insns);
	w_f64(&w, a->measured_fused);
	w_u8(&w, a->run_weighted);
	size_t nw = a->weights ? a->nweights : 0;
	w_count(&w, nw);
	for (size_t i = 0; i < nw; i++)
		w_f64(&w, a->weights[i]);
	w_count(&w, a->nsens);
	for (size_t i = 0; i < a->nsens; i++) {
		const struct sim_sensitivity *se = &a->sens[i];
		unsigned sn = se->set.n <= 8 ? se->set.n : 8;
		w_u8(&w, (uint8_t)sn);
		w_bytes(&w, se->set.res, sn);
		w_u8(&w, (uint8_t)((se->bottleneck ? 1 : 0) | (se->searched ? 2 : 0) | (se->envelope ? 4 : 0)));
		w_f64(&w, se->upper);
		w_f64(&w, se->dip);
		/* an entry without speedups (no weights were run) stores NaN:
		 * the count of weights is shared by all entries */
		for (size_t k = 0; k < nw; k++)
			w_f64(&w, se->speedup ? se->speedup[k] : NAN);
	}
	if (!w.failed)
		w_u64(&w, fnv1a(w.p, w.n));
	if (w.failed) {
		free(w.p);
		return -1;
	}
	*out = w.p;
	*n = w.n;
	return 0;
}

/* ------------------------------------------------------------ reader --- */

struct rbuf {
	const uint8_t *p;
	size_t n, at;
	bool bad;		/* a read went past the end */
};

static size_t r_left(const struct rbuf *r)
{
	return r->n - r->at;
}

static const uint8_t *r_take(struct rbuf *r, size_t n)
{
	if (r->bad || n > r_left(r)) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *p = r->p + r->at;
	r->at += n;
	return p;
}

static uint64_t r_uint(struct rbuf *r, unsigned size)
{
	const uint8_t *p = r_take(r, size);
	uint64_t v = 0;
	for (unsigned i = 0; p && i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t r_u8(struct rbuf *r) { return (uint8_t)r_uint(r, 1); }
static uint32_t r_u32(struct rbuf *r) { return (uint32_t)r_uint(r, 4); }
static uint64_t r_u64(struct rbuf *r) { return r_uint(r, 8); }

static double r_f64(struct rbuf *r)
{
	uint64_t v = r_u64(r);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* a count of items of at least ITEM bytes each: never more than the bytes
 * left can hold, so a damaged count cannot ask for a huge allocation */
static bool r_count(struct rbuf *r, uint64_t n, size_t item)
{
	if (r->bad || n > r_left(r) / item) {
		r->bad = true;
		return false;
	}
	return true;
}

/* a string of at most MAX bytes without NUL, malloc'ed */
static char *r_str(struct rbuf *r, size_t max)
{
	uint32_t len = r_u32(r);
	if (r->bad || len > max) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *p = r_take(r, len);
	if (!p || memchr(p, 0, len)) {
		r->bad = true;
		return NULL;
	}
	char *s = malloc((size_t)len + 1);
	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = 0;
	return s;
}

/* a name from a blob goes into a message: only if it is plain text */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

int merge_sim_unpack(const struct sim_machine *m, const uint8_t *p, size_t n, struct sim_code **code_out,
		     struct sim_analysis *a, char **stream_out, char *err, size_t errlen)
{
	struct rbuf r = { .p = p, .n = n };
	struct sim_code *code = NULL;
	char *machine = NULL, *stream = NULL;
	char msg[512];
	msg[0] = 0;

	*code_out = NULL;
	if (stream_out)
		*stream_out = NULL;
	memset(a, 0, sizeof *a);

	if (!p || n < SIMCACHE_MAGIC_LEN + 2 || memcmp(p, SIMCACHE_MAGIC, SIMCACHE_MAGIC_LEN)) {
		snprintf(err, errlen, "not a cached simulation (no %s header)", SIMCACHE_MAGIC);
		return -1;
	}
	r.at = SIMCACHE_MAGIC_LEN;
	unsigned version = (unsigned)r_uint(&r, 2);
	if (version != SIMCACHE_VERSION) {
		snprintf(err, errlen, "cached simulation of format version %u, this gus reads version %u", version,
			 SIMCACHE_VERSION);
		return -1;
	}
	/* the checksum first: everything after it may then trust that the
	 * bytes are what pack wrote, and the bounds checks below are what
	 * stands between a forged blob and the allocator */
	if (n < r.at + 8) {
		snprintf(err, errlen, "cached simulation truncated (%zu bytes)", n);
		return -1;
	}
	struct rbuf tail = { .p = p, .n = n, .at = n - 8 };
	if (r_u64(&tail) != fnv1a(p, n - 8)) {
		snprintf(err, errlen, "cached simulation damaged (checksum mismatch over %zu bytes)", n);
		return -1;
	}
	r.n = n - 8;

	machine = r_str(&r, SIMCACHE_MAX_NAME);
	if (!machine)
		goto fail;
	if (strcmp(machine, sim_machine_name(m))) {
		if (printable(machine))
			snprintf(msg, sizeof msg, "cached with machine %s, report asked for %s", machine,
				 sim_machine_name(m));
		else
			snprintf(msg, sizeof msg, "cached with a machine of an unreadable name, report asked for %s",
				 sim_machine_name(m));
		goto fail;
	}
	uint8_t has_stream = r_u8(&r);
	if (has_stream > 1)
		goto fail;
	if (has_stream && !(stream = r_str(&r, SIMCACHE_MAX_STREAM)))
		goto fail;

	uint32_t ninsn = r_u32(&r);
	if (!r_count(&r, ninsn, 9))
		goto fail;
	code = sim_code_new(m);
	for (uint32_t i = 0; i < ninsn; i++) {
		uint64_t addr = r_u64(&r);
		uint8_t len = r_u8(&r);
		if (r.bad || len == 0 || len > SIMCACHE_MAX_INSN)
			goto fail;
		const uint8_t *bytes = r_take(&r, len);
		if (!bytes)
			goto fail;
		char derr[256];
		long idx = sim_code_add(code, addr, bytes, len, derr, sizeof derr);
		if (idx < 0) {
			snprintf(msg, sizeof msg, "instruction %u does not decode with machine %s: %s", i,
				 sim_machine_name(m), derr);
			goto fail;
		}
		if ((uint64_t)idx != i || sim_code_insn(code, (size_t)idx)->len != len) {
			snprintf(msg, sizeof msg, "instruction %u at 0x%llx decodes differently than when cached", i,
				 (unsigned long long)addr);
			goto fail;
		}
	}

	struct sim_stats *st = &a->base;
	st->cycles = r_f64(&r);
	st->mark_cycles = r_f64(&r);
	st->insns = r_u64(&r);
	st->mark_insns = r_u64(&r);
	st->fused = r_u64(&r);
	st->uops = r_u64(&r);
	st->mark_fused = r_u64(&r);
	st->mark_uops = r_u64(&r);
	st->slots = r_f64(&r);
	st->retiring = r_f64(&r);
	st->frontend = r_f64(&r);
	st->bad_spec = r_f64(&r);
	st->backend_mem = r_f64(&r);
	st->backend_core = r_f64(&r);
	st->mispredicts = r_u64(&r);
	for (int i = 0; i < 4; i++)
		st->mem_stall[i] = r_f64(&r);

	struct sim_events *ev = &a->events;
	ev->loads = r_u64(&r);
	ev->stores = r_u64(&r);
	for (int i = 0; i < 4; i++)
		ev->level_hits[i] = r_u64(&r);
	ev->cond_branches = r_u64(&r);
	ev->cond_miss = r_u64(&r);
	ev->indirect = r_u64(&r);
	ev->indirect_miss = r_u64(&r);
	ev->btb_miss = r_u64(&r);
	ev->mispredicts = r_u64(&r);
	ev->branches = r_u64(&r);
	ev->target_misses = r_u64(&r);
	uint64_t ncount = r_u64(&r);
	if (!r_count(&r, ncount, 16))
		goto fail;
	if (ncount) {
		ev->insn_count = malloc((size_t)ncount * sizeof *ev->insn_count);
		ev->insn_cycles = malloc((size_t)ncount * sizeof *ev->insn_cycles);
		if (!ev->insn_count || !ev->insn_cycles)
			abort();
		ev->ninsn = (size_t)ncount;
		for (size_t i = 0; i < ev->ninsn; i++)
			ev->insn_count[i] = r_u64(&r);
		for (size_t i = 0; i < ev->ninsn; i++)
			ev->insn_cycles[i] = r_f64(&r);
	}

	a->units = r_f64(&r);
	a->cycles_per_unit = r_f64(&r);
	a->ipc = r_f64(&r);
	a->fused_per_cycle = r_f64(&r);
	a->passes = r_u32(&r);
	a->warm_pass = r_u8(&r) != 0;
	a->measured_records = (size_t)r_u64(&r);
	a->measured_cycles = r_f64(&r);
	a->measured_insns = r_f64(&r);
	a->measured_fused = r_f64(&r);
	a->run_weighted = r_u8(&r) != 0;
	uint32_t nw = r_u32(&r);
	if (!r_count(&r, nw, 8))
		goto fail;
	/* as sim_analyze allocates them: never a NULL weights array */
	a->weights = calloc(nw ? nw : 1, sizeof *a->weights);
	if (!a->weights)
		abort();
	a->nweights = nw;
	for (uint32_t i = 0; i < nw; i++)
		a->weights[i] = r_f64(&r);
	uint32_t nsens = r_u32(&r);
	/* the smallest entry: n, flags, upper and dip */
	if (!r_count(&r, nsens, 18 + (size_t)nw * 8))
		goto fail;
	a->sens = calloc(nsens ? nsens : 1, sizeof *a->sens);
	if (!a->sens)
		abort();
	/* all entries count from here: the failure path frees the speedups
	 * filled so far, and free(NULL) of the others is harmless */
	a->nsens = nsens;
	unsigned nres = sim_nres(m);
	for (uint32_t i = 0; i < nsens; i++) {
		struct sim_sensitivity *se = &a->sens[i];
		uint8_t sn = r_u8(&r);
		if (r.bad || sn == 0 || sn > sizeof se->set.res)
			goto fail;
		const uint8_t *res = r_take(&r, sn);
		if (!res)
			goto fail;
		for (unsigned k = 0; k < sn; k++)
			if (res[k] >= nres) {
				snprintf(msg, sizeof msg, "sensitivity %u names resource %u, machine %s has %u", i,
					 res[k], sim_machine_name(m), nres);
				goto fail;
			}
		se->set.n = sn;
		memcpy(se->set.res, res, sn);
		uint8_t flags = r_u8(&r);
		if (flags & ~7u)
			goto fail;
		se->bottleneck = flags & 1;
		se->searched = flags & 2;
		se->envelope = flags & 4;
		se->upper = r_f64(&r);
		se->dip = r_f64(&r);
		/* sim_analyze leaves speedup NULL when no weight was run */
		if (nw) {
			se->speedup = calloc(nw, sizeof *se->speedup);
			if (!se->speedup)
				abort();
			for (uint32_t k = 0; k < nw; k++)
				se->speedup[k] = r_f64(&r);
		}
	}
	if (r.bad)
		goto fail;
	if (r.at != r.n) {
		snprintf(msg, sizeof msg, "%zu bytes after the end", r.n - r.at);
		goto fail;
	}
	free(machine);
	*code_out = code;
	if (stream_out)
		*stream_out = stream;
	else
		free(stream);
	return 0;

fail:
	if (!msg[0])
		snprintf(msg, sizeof msg, "damaged or truncated at byte %zu of %zu", r.at, n);
	snprintf(err, errlen, "cached simulation refused: %s", msg);
	free(machine);
	free(stream);
	if (code)
		sim_code_free(code);
	sim_analysis_free(a);
	return -1;
}
