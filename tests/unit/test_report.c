/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What gus report keeps and judges: real simulations of the Skylake-SP
 * model packed into a cache blob and read back field by field, damaged
 * blobs refused without a crash, verdicts of counters against the model
 * on TMA trees evaluated from crafted count sets, and the stored form of
 * the instruction stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gusdata.h"
#include "merge.h"
#include "render.h"
#include "sim.h"
#include "tap.h"
#include "topdown.h"

static char err[512];
static char datadir[1024];

/* ------------------------------------------------------------ helpers --- */

static size_t hexbytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	for (; hex[0] && hex[1] && n < max; hex += 2) {
		unsigned v;
		if (sscanf(hex, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

static struct sim_machine *machine(const char *name)
{
	char dir[1100];
	snprintf(dir, sizeof dir, "%s/machines", datadir);
	struct sim_machine *m = sim_machine_find(dir, name, err, sizeof err);
	if (!m)
		printf("# %s\n", err);
	return m;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* the blob's checksum as simcache.c documents it (FNV-1a 64 over all bytes
 * before it): the damage tests re-seal altered blobs with it, so that the
 * parser itself meets the damage and not only the checksum */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void seal(uint8_t *p, size_t n)
{
	uint64_t h = fnv1a(p, n - 8);
	for (int i = 0; i < 8; i++)
		p[n - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* ------------------------------------------------------ real analyses --- */

struct region {
	struct sim_code *code;
	struct sim_analysis a;
	bool ok;
};

static const double weights[] = { 1.01, 1.05, 1.15 };

/* A loop body as the report simulates it: 200 iterations, the last 150
 * measured, every resource swept; with MEMSPAN, each first instruction's
 * data address random in that many bytes (a pointer chase's misses). */
static void simulate(const struct sim_machine *m, const char *hex, uint64_t memspan, struct region *r)
{
	uint8_t buf[256];
	size_t len = hexbytes(hex, buf, sizeof buf);
	unsigned iters = memspan ? 3000 : 200;
	memset(r, 0, sizeof *r);
	r->code = sim_code_new(m);
	struct sim_rec *recs;
	size_t n, per;
	if (sim_stream_loop(r->code, 0x401000, buf, len, iters, &recs, &n, &per, err, sizeof err)) {
		printf("# %s\n", err);
		return;
	}
	if (memspan) {
		uint64_t x = 88172645463325252ull;
		for (size_t i = 0; i < n; i += per) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			recs[i].nmem = 1;
			recs[i].mem[0] = 0x10000000 + (x % memspan) / 8 * 8;
		}
	}
	uint8_t res[SIM_MAX_RES];
	for (unsigned i = 0; i < sim_nres(m); i++)
		res[i] = (uint8_t)i;
	/* one user set too, so that packing meets a multi-resource entry */
	struct sim_set set = { .n = 2 };
	set.res[0] = (uint8_t)sim_res_find(m, "FRONTEND");
	set.res[1] = (uint8_t)sim_res_find(m, "BRANCH");
	struct sim_source src = { .recs = recs, .n = n, .mark = n / 4, .units = (double)iters * 3 / 4 };
	struct sim_analysis_opts o = {
		.weights = weights, .nweights = 3, .resources = res, .nresources = sim_nres(m),
		.sets = &set, .nsets = 1, .threshold = 0.01, .threads = 2,
	};
	if (sim_analyze(m, r->code, &src, &o, &r->a, err, sizeof err))
		printf("# %s\n", err);
	else
		r->ok = true;
	free(recs);
}

/* The same loop with each first instruction's data address in a 4 KiB
 * ring (L1) but for one in ten, random in 256 MiB: most
 * loads hit L1, most of the time goes to the loads from memory (two
 * threads' chases in one function, as gus report sees one region) */
static void simulate_mix(const struct sim_machine *m, const char *hex, struct region *r)
{
	uint8_t buf[256];
	size_t len = hexbytes(hex, buf, sizeof buf);
	unsigned iters = 3000;
	memset(r, 0, sizeof *r);
	r->code = sim_code_new(m);
	struct sim_rec *recs;
	size_t n, per;
	if (sim_stream_loop(r->code, 0x401000, buf, len, iters, &recs, &n, &per, err, sizeof err)) {
		printf("# %s\n", err);
		return;
	}
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0, k = 0; i < n; i += per, k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		recs[i].nmem = 1;
		recs[i].mem[0] = k % 10 == 9 ? 0x10000000 + (x % (256u << 20)) / 8 * 8 : 0x8000000 + (k * 64) % 4096;
	}
	uint8_t res[SIM_MAX_RES];
	for (unsigned i = 0; i < sim_nres(m); i++)
		res[i] = (uint8_t)i;
	struct sim_source src = { .recs = recs, .n = n, .mark = n / 4, .units = (double)iters * 3 / 4 };
	struct sim_analysis_opts o = {
		.weights = weights, .nweights = 3, .resources = res, .nresources = sim_nres(m), .threshold = 0.01,
		.threads = 2,
	};
	if (sim_analyze(m, r->code, &src, &o, &r->a, err, sizeof err))
		printf("# %s\n", err);
	else
		r->ok = true;
	free(recs);
}

static void region_free(struct region *r)
{
	if (r->ok)
		sim_analysis_free(&r->a);
	if (r->code)
		sim_code_free(r->code);
}

/* the model's top single resource of a real analysis */
static const char *top_name(const struct sim_machine *m, const struct sim_analysis *a)
{
	int best = -1;
	for (size_t i = 0; i < a->nsens; i++)
		if (a->sens[i].set.n == 1 && (best < 0 || a->sens[i].speedup[2] > a->sens[best].speedup[2]))
			best = (int)i;
	return best < 0 ? "(none)" : sim_res_name(m, a->sens[best].set.res[0]);
}

/* ------------------------------------------------------- cache blobs --- */

static bool same_bits(double x, double y)
{
	return !memcmp(&x, &y, sizeof x);
}

/* every field of code and analysis; the first difference named in WHAT */
static bool same_region(const struct sim_code *c1, const struct sim_analysis *a1, const struct sim_code *c2,
			const struct sim_analysis *a2, char *what, size_t n)
{
#define DIFF(cond, ...)                               \
	do {                                          \
		if (cond) {                           \
			snprintf(what, n, __VA_ARGS__); \
			return false;                 \
		}                                     \
	} while (0)
	DIFF(sim_code_count(c1) != sim_code_count(c2), "instruction count %zu vs %zu", sim_code_count(c1),
	     sim_code_count(c2));
	for (size_t i = 0; i < sim_code_count(c1); i++) {
		const struct sim_insn *x = sim_code_insn(c1, i), *y = sim_code_insn(c2, i);
		DIFF(x->addr != y->addr || x->len != y->len || memcmp(x->bytes, y->bytes, x->len),
		     "instruction %zu address, length or bytes", i);
		DIFF(strcmp(x->text, y->text) || strcmp(x->key, y->key), "instruction %zu text '%s' vs '%s'", i,
		     x->text, y->text);
		DIFF(x->nexec != y->nexec || memcmp(x->exec, y->exec, x->nexec) || x->uops != y->uops,
		     "instruction %zu resources", i);
	}
	const struct sim_stats *s1 = &a1->base, *s2 = &a2->base;
	DIFF(!same_bits(s1->cycles, s2->cycles) || !same_bits(s1->mark_cycles, s2->mark_cycles), "cycles");
	DIFF(s1->insns != s2->insns || s1->mark_insns != s2->mark_insns || s1->fused != s2->fused ||
		     s1->uops != s2->uops || s1->mispredicts != s2->mispredicts,
	     "instruction counts of the stats");
	DIFF(!same_bits(s1->slots, s2->slots) || !same_bits(s1->retiring, s2->retiring) ||
		     !same_bits(s1->frontend, s2->frontend) || !same_bits(s1->bad_spec, s2->bad_spec) ||
		     !same_bits(s1->backend_mem, s2->backend_mem) || !same_bits(s1->backend_core, s2->backend_core),
	     "simulated Top-Down slots");
	DIFF(!same_bits(s1->mem_stall[0], s2->mem_stall[0]) || !same_bits(s1->mem_stall[1], s2->mem_stall[1]) ||
		     !same_bits(s1->mem_stall[2], s2->mem_stall[2]) || !same_bits(s1->mem_stall[3], s2->mem_stall[3]),
	     "the cycles stalled on each memory level");
	const struct sim_events *e1 = &a1->events, *e2 = &a2->events;
	DIFF(e1->loads != e2->loads || e1->stores != e2->stores || memcmp(e1->level_hits, e2->level_hits,
									  sizeof e1->level_hits),
	     "memory events");
	DIFF(e1->cond_branches != e2->cond_branches || e1->cond_miss != e2->cond_miss ||
		     e1->indirect != e2->indirect || e1->indirect_miss != e2->indirect_miss ||
		     e1->btb_miss != e2->btb_miss || e1->mispredicts != e2->mispredicts,
	     "branch events");
	DIFF(e1->ninsn != e2->ninsn, "insn_count length %zu vs %zu", e1->ninsn, e2->ninsn);
	DIFF(e1->ninsn && memcmp(e1->insn_count, e2->insn_count, e1->ninsn * sizeof *e1->insn_count),
	     "insn_count values");
	DIFF(e1->ninsn && (!e1->insn_cycles != !e2->insn_cycles ||
			   (e1->insn_cycles && memcmp(e1->insn_cycles, e2->insn_cycles, e1->ninsn * sizeof *e1->insn_cycles))),
	     "insn_cycles values");
	DIFF(!same_bits(a1->units, a2->units) || !same_bits(a1->cycles_per_unit, a2->cycles_per_unit) ||
		     !same_bits(a1->ipc, a2->ipc),
	     "units, cycles per unit or IPC");
	DIFF(a1->nweights != a2->nweights, "number of weights");
	for (size_t i = 0; i < a1->nweights; i++)
		DIFF(!same_bits(a1->weights[i], a2->weights[i]), "weight %zu", i);
	DIFF(a1->nsens != a2->nsens, "number of sensitivities %zu vs %zu", a1->nsens, a2->nsens);
	for (size_t i = 0; i < a1->nsens; i++) {
		const struct sim_sensitivity *x = &a1->sens[i], *y = &a2->sens[i];
		DIFF(x->set.n != y->set.n || memcmp(x->set.res, y->set.res, x->set.n), "set of sensitivity %zu", i);
		DIFF(x->bottleneck != y->bottleneck || x->searched != y->searched, "flags of sensitivity %zu", i);
		DIFF(!same_bits(x->upper, y->upper), "upper bound of sensitivity %zu", i);
		DIFF(!x->speedup != !y->speedup, "speedups of sensitivity %zu present on one side only", i);
		for (size_t k = 0; x->speedup && k < a1->nweights; k++)
			DIFF(!same_bits(x->speedup[k], y->speedup[k]), "speedup %zu of sensitivity %zu", k, i);
	}
	return true;
#undef DIFF
}

static void test_roundtrip(const struct sim_machine *m, struct region *r, const char *what, const char *stream)
{
	uint8_t *blob;
	size_t n;
	if (!tap_ok(merge_sim_pack(m, r->code, &r->a, stream, &blob, &n) == 0, "%s: packs", what))
		return;
	tap_ok(n > 8 && !memcmp(blob, "GUSSIM", 6), "%s: blob starts with GUSSIM (%zu bytes)", what, n);
	struct sim_code *code;
	struct sim_analysis a;
	char *s = (char *)"unset";
	int rc = merge_sim_unpack(m, blob, n, &code, &a, &s, err, sizeof err);
	if (!tap_ok(rc == 0, "%s: unpacks", what)) {
		printf("# %s\n", err);
		free(blob);
		return;
	}
	char diff[256] = "";
	tap_ok(same_region(r->code, &r->a, code, &a, diff, sizeof diff), "%s: every field and instruction back%s%s",
	       what, diff[0] ? ": differs in " : "", diff);
	if (stream)
		tap_streq(s, stream, "%s: stream description back", what);
	else
		tap_ok(s == NULL, "%s: no stream description stays NULL", what);
	free(s);
	sim_code_free(code);
	sim_analysis_free(&a);
	free(blob);
}

static void test_damage(const struct sim_machine *skx, const struct sim_machine *spr, struct region *r)
{
	uint8_t *blob;
	size_t n;
	if (merge_sim_pack(skx, r->code, &r->a, "pt: cpu 3", &blob, &n))
		return;
	uint8_t *buf = malloc(n);
	struct sim_code *code;
	struct sim_analysis a;
	char *s;

	/* every prefix, as a write cut short would leave it */
	int bad = 0;
	for (size_t len = 0; len < n; len++) {
		err[0] = 0;
		code = (struct sim_code *)1;
		if (merge_sim_unpack(skx, blob, len, &code, &a, &s, err, sizeof err) != -1 || !err[0] || code)
			bad++;
	}
	tap_ok(bad == 0, "every one of the %zu truncations refused with a message (%d not)", n, bad);

	/* every prefix of the body with a valid checksum after it: the parser's
	 * own bounds checks */
	bad = 0;
	for (size_t len = 8; len + 8 < n; len++) {
		memcpy(buf, blob, len);
		memcpy(buf + len, blob + n - 8, 8);
		seal(buf, len + 8);
		err[0] = 0;
		if (merge_sim_unpack(skx, buf, len + 8, &code, &a, &s, err, sizeof err) != -1 || !err[0])
			bad++;
	}
	tap_ok(bad == 0, "every re-sealed truncation of the body refused (%d not)", bad);

	/* one byte changed anywhere: the checksum notices */
	bad = 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(buf, blob, n);
		buf[i] ^= (uint8_t)(1u << (i % 8));
		if (merge_sim_unpack(skx, buf, n, &code, &a, &s, err, sizeof err) != -1)
			bad++;
	}
	tap_ok(bad == 0, "each of %zu single-bit flips refused (%d not)", n, bad);
	memcpy(buf, blob, n);
	buf[n / 2] ^= 0x10;
	merge_sim_unpack(skx, buf, n, &code, &a, &s, err, sizeof err);
	tap_ok(strstr(err, "checksum") != NULL, "a flipped bit is called damage: %s", err);

	/* the same flips re-sealed, and random multi-byte damage: either
	 * refused or read, never a crash (the sanitizer build watches) */
	int refused = 0, read = 0;
	for (size_t i = 0; i < n + 3000; i++) {
		memcpy(buf, blob, n);
		if (i < n) {
			buf[i] ^= 0xff;
		} else {
			for (int k = 0, nk = 1 + (int)(rnd() % 4); k < nk; k++)
				buf[rnd() % (n - 8)] = (uint8_t)rnd();
		}
		seal(buf, n);
		s = NULL;
		if (merge_sim_unpack(skx, buf, n, &code, &a, &s, err, sizeof err) == 0) {
			read++;
			sim_code_free(code);
			sim_analysis_free(&a);
			free(s);
		} else {
			refused++;
		}
	}
	tap_ok(refused + read == (int)n + 3000 && refused > 0,
	       "re-sealed damage: %d refused, %d read without a crash", refused, read);

	/* another machine */
	err[0] = 0;
	tap_ok(merge_sim_unpack(spr, blob, n, &code, &a, &s, err, sizeof err) == -1, "a skx blob is refused for spr");
	tap_ok(strstr(err, "cached with machine skx, report asked for spr") != NULL, "the message names both: %s",
	       err);

	/* another format version, re-sealed */
	memcpy(buf, blob, n);
	buf[6] = 0x7f;
	seal(buf, n);
	tap_ok(merge_sim_unpack(skx, buf, n, &code, &a, &s, err, sizeof err) == -1 && strstr(err, "version") != NULL,
	       "another format version is refused: %s", err);

	/* not a blob at all */
	static const uint8_t junk[] = "SQLite format 3";
	tap_ok(merge_sim_unpack(skx, junk, sizeof junk, &code, &a, &s, err, sizeof err) == -1 &&
		       strstr(err, "GUSSIM") != NULL,
	       "foreign bytes are refused: %s", err);
	tap_ok(merge_sim_unpack(skx, NULL, 0, &code, &a, &s, err, sizeof err) == -1, "no bytes are refused");

	free(buf);
	free(blob);
}

/* NaN, -0 and infinity keep their bits; a sweep without weights packs
 * without speedups */
static void test_special_values(const struct sim_machine *m, struct region *r)
{
	struct sim_analysis *a = &r->a;
	double keep[3] = { a->sens[0].speedup[0], a->sens[0].upper, a->ipc };
	uint64_t nan_bits = 0x7ff8000000c0ffeeull;
	double payload_nan;
	memcpy(&payload_nan, &nan_bits, sizeof payload_nan);
	a->sens[0].speedup[0] = payload_nan;
	a->sens[0].upper = INFINITY;
	a->ipc = -0.0;
	a->sens[a->nsens - 1].searched = true;
	test_roundtrip(m, r, "NaN with payload, infinity, -0 and a searched set", NULL);
	a->sens[0].speedup[0] = keep[0];
	a->sens[0].upper = keep[1];
	a->ipc = keep[2];
	a->sens[a->nsens - 1].searched = false;

	/* sim_analyze with no weights: a weights array of one, no speedups */
	struct sim_analysis none;
	uint8_t res[2] = { 0, 1 };
	struct sim_rec rec = { .insn = 0 };
	struct sim_source src = { .recs = &rec, .n = 1 };
	struct sim_analysis_opts o = { .weights = weights, .nweights = 0, .resources = res, .nresources = 2 };
	if (tap_ok(sim_analyze(m, r->code, &src, &o, &none, err, sizeof err) == 0, "an analysis without weights")) {
		struct sim_analysis keep_a = r->a;
		r->a = none;
		test_roundtrip(m, r, "no weights", "");
		r->a = keep_a;
		sim_analysis_free(&none);
	}
}

/* code that cannot be decoded again is refused, not read wrong */
static void test_code_checks(const struct sim_machine *m)
{
	struct sim_code *code = sim_code_new(m);
	uint8_t b[16];
	size_t len = hexbytes("4801d8", b, sizeof b);	/* add rax, rbx */
	sim_code_add(code, 0x1000, b, len, err, sizeof err);
	struct sim_analysis a;
	memset(&a, 0, sizeof a);
	uint8_t *blob;
	size_t n;
	if (!tap_ok(merge_sim_pack(m, code, &a, NULL, &blob, &n) == 0, "an empty analysis packs"))
		goto out;
	struct sim_code *c2;
	struct sim_analysis a2;
	char *s;
	if (tap_ok(merge_sim_unpack(m, blob, n, &c2, &a2, &s, err, sizeof err) == 0, "and unpacks")) {
		tap_ok(sim_code_count(c2) == 1 && !strcmp(sim_code_insn(c2, 0)->text, "add rax, rbx") &&
			       a2.nsens == 0 && a2.events.insn_count == NULL,
		       "one instruction, nothing else");
		sim_code_free(c2);
		sim_analysis_free(&a2);
	}
	/* the layout: magic 6, version 2, name 4+3, stream flag 1, count 4,
	 * then the instruction's address 8 and length 1 */
	size_t at = 6 + 2 + 4 + strlen(sim_machine_name(m)) + 1 + 4 + 8;
	tap_ok(blob[at] == 3 && !memcmp(blob + at + 1, b, 3), "instruction bytes where the format says");
	blob[at + 1] = 0x0f;
	blob[at + 2] = 0x0b;	/* ud2 is two bytes: the stored length no longer fits */
	seal(blob, n);
	tap_ok(merge_sim_unpack(m, blob, n, &c2, &a2, &s, err, sizeof err) == -1 && strstr(err, "decodes differently"),
	       "bytes that decode to another length are refused: %s", err);
	blob[at + 1] = 0x06;	/* push es: invalid in 64-bit mode */
	seal(blob, n);
	tap_ok(merge_sim_unpack(m, blob, n, &c2, &a2, &s, err, sizeof err) == -1 && strstr(err, "does not decode"),
	       "undecodable bytes are refused: %s", err);
	free(blob);
out:
	sim_code_free(code);
}

/* ------------------------------------------------------- TMA trees ---- */

struct kv {
	const char *ev;
	double v;
};

/* A count set that every clx node can be computed from; OV overrides.
 * The defaults make a core-bound region with 30 % retiring. */
static int make_tree(const struct td_table *t, const struct kv *ov, int level, struct td_tree *tr)
{
	static const struct kv base[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1e9 }, { "CPU_CLK_UNHALTED.THREAD_ANY", 2e9 },
		{ "CPU_CLK_UNHALTED.REF_TSC", 1e9 }, { "INST_RETIRED.ANY", 1e9 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 0.2e9 }, { "UOPS_ISSUED.ANY", 1.2e9 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1.2e9 }, { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 0.02e9 },
		{ "BR_MISP_RETIRED.ALL_BRANCHES", 1e6 }, { "MACHINE_CLEARS.COUNT", 1e5 },
		{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.05e9 }, { "CYCLE_ACTIVITY.STALLS_TOTAL", 0.6e9 },
		{ "EXE_ACTIVITY.1_PORTS_UTIL", 0.05e9 }, { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0.01e9 },
		{ "CYCLE_ACTIVITY.STALLS_L2_MISS", 0.005e9 }, { "CYCLE_ACTIVITY.STALLS_L3_MISS", 0.002e9 },
		{ "MEM_LOAD_RETIRED.L2_HIT", 5e5 }, { "MEM_LOAD_RETIRED.FB_HIT", 1e5 },
		{ "MEM_LOAD_RETIRED.L1_MISS", 1e6 }, { "L1D_PEND_MISS.FB_FULL.c1", 1e5 },
		{ "EXE_ACTIVITY.EXE_BOUND_0_PORTS", 0.05e9 },
	};
	struct td_countset cs;
	td_countset_init(&cs);
	for (size_t e = 0; e < t->n_events; e++) {
		const char *name = t->events[e].name;
		double v = 0;
		for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
			if (!strcmp(base[i].ev, name))
				v = base[i].v;
		for (const struct kv *o = ov; o && o->ev; o++)
			if (!strcmp(o->ev, name))
				v = o->v;
		td_countset_add(&cs, name, v, 1e9, 1e9);
	}
	struct td_eval_opts o = { .max_level = level };
	int rc = td_eval(t, &cs, &o, tr, err, sizeof err);
	if (rc)
		printf("# eval: %s\n", err);
	td_countset_free(&cs);
	return rc;
}

enum { T_DIVIDER, T_PORTS, T_DRAM, T_L1, T_STORE, T_FRONTEND, T_BRANCH, T_RETIRING, T_FLAGGED, T_LEVEL1, NTREES };

static const char *const tree_path[NTREES] = {
	"Backend_Bound > Core_Bound > Divider",
	"Backend_Bound > Core_Bound > Ports_Utilization",
	"Backend_Bound > Memory_Bound > DRAM_Bound",
	"Backend_Bound > Memory_Bound > L1_Bound",
	"Backend_Bound > Memory_Bound > Store_Bound",
	"Frontend_Bound > Fetch_Latency > ICache_Misses",
	"Bad_Speculation > Branch_Mispredicts",
	"Retiring > Light_Operations",
	"Backend_Bound > Core_Bound > Divider (flagged)",
	"Backend_Bound",
};

static int build_trees(const struct td_table *t, struct td_tree *tr)
{
	static const struct kv divider[] = { { "ARITH.DIVIDER_ACTIVE", 0.5e9 }, { 0 } };
	static const struct kv ports[] = {
		{ "EXE_ACTIVITY.1_PORTS_UTIL", 0.4e9 }, { "EXE_ACTIVITY.2_PORTS_UTIL", 0.3e9 },
		{ "EXE_ACTIVITY.EXE_BOUND_0_PORTS", 0.1e9 }, { "CYCLE_ACTIVITY.STALLS_TOTAL", 0.2e9 },
		{ "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.02e9 }, { 0 },
	};
	static const struct kv dram[] = {
		{ "CYCLE_ACTIVITY.STALLS_TOTAL", 0.7e9 }, { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.6e9 },
		{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0.55e9 }, { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0.5e9 },
		{ "CYCLE_ACTIVITY.STALLS_L3_MISS", 0.45e9 }, { 0 },
	};
	static const struct kv l1[] = {
		{ "CYCLE_ACTIVITY.STALLS_TOTAL", 0.7e9 }, { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.6e9 },
		{ "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0.05e9 }, { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0.02e9 },
		{ "CYCLE_ACTIVITY.STALLS_L3_MISS", 0.01e9 }, { 0 },
	};
	static const struct kv store[] = {
		{ "CYCLE_ACTIVITY.STALLS_TOTAL", 0.3e9 }, { "EXE_ACTIVITY.BOUND_ON_STORES", 0.5e9 }, { 0 },
	};
	static const struct kv frontend[] = {
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 2e9 }, { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 0.35e9 },
		{ "ICACHE_16B.IFDATA_STALL", 0.2e9 }, { 0 },
	};
	static const struct kv branch[] = {
		{ "UOPS_ISSUED.ANY", 2.4e9 }, { "INT_MISC.RECOVERY_CYCLES", 0.1e9 },
		{ "BR_MISP_RETIRED.ALL_BRANCHES", 9e5 }, { 0 },
	};
	static const struct kv retiring[] = {
		{ "UOPS_RETIRED.RETIRE_SLOTS", 3e9 }, { "UOPS_ISSUED.ANY", 3e9 }, { "INST_RETIRED.ANY", 2.9e9 }, { 0 },
	};
	static const struct kv flagged[] = { { "ARITH.DIVIDER_ACTIVE", 1.3e9 }, { 0 } };
	const struct kv *sets[NTREES] = { divider, ports, dram, l1, store, frontend, branch, retiring, flagged,
					  divider };
	for (int i = 0; i < NTREES; i++)
		if (make_tree(t, sets[i], i == T_LEVEL1 ? 1 : 3, &tr[i]))
			return -1;
	return 0;
}

/* the dominant path as merge_verdict reports it, with no model */
static void test_measured_paths(struct td_tree *tr)
{
	for (int i = 0; i < NTREES; i++) {
		struct merge_verdict v;
		merge_verdict(&tr[i], NULL, NULL, NULL, "not simulated in this test", &v);
		tap_streq(v.measured, tree_path[i], "dominant path of tree %d", i);
		tap_ok(v.kind == MERGE_NO_MODEL, "tree %d without a model: %s", i, merge_agreement_name(v.kind));
	}
	struct merge_verdict v;
	merge_verdict(&tr[T_DIVIDER], NULL, NULL, NULL, "no trace", &v);
	tap_near(v.measured_value, 0.5, 1e-9, "the deepest node's value (Divider 50 %% of clocks)");
	tap_streq(v.text, "counters only (no simulation: no trace): Backend_Bound > Core_Bound > Divider (50.0 % clocks)",
		  "counters-only text");
	merge_verdict(&tr[T_FLAGGED], NULL, NULL, NULL, "no trace", &v);
	tap_near(v.measured_value, 1.3, 1e-9, "a flagged value still leads the path");
	tap_ok(strstr(v.text, "Divider (flagged) (130.0 % clocks)") != NULL, "and the text says so: %s", v.text);
}

/* ------------------------------------------------- crafted analyses --- */

/* A hand-made sensitivity result on a real machine, for the mapping of
 * every kind of resource: entries "p0+DIV" (a set) or "p5", each with its
 * speedup at the top weight and its upper bound. */
struct fake {
	struct sim_analysis a;
	struct sim_sensitivity se[4];
	double sp[4][3];
	double w[3];
};

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof *f);
	memcpy(f->w, weights, sizeof f->w);
	f->a.weights = f->w;
	f->a.nweights = 3;
	f->a.sens = f->se;
}

static void fake_add(struct fake *f, const struct sim_machine *m, const char *names, double top, double upper,
		     bool bottleneck)
{
	struct sim_sensitivity *se = &f->se[f->a.nsens];
	char buf[64];
	snprintf(buf, sizeof buf, "%s", names);
	for (char *tok = strtok(buf, "+"); tok; tok = strtok(NULL, "+"))
		se->set.res[se->set.n++] = (uint8_t)sim_res_find(m, tok);
	se->speedup = f->sp[f->a.nsens];
	se->speedup[0] = top / 15;
	se->speedup[1] = top / 3;
	se->speedup[2] = top;
	se->upper = upper;
	se->bottleneck = bottleneck;
	f->a.nsens++;
}

static enum merge_agreement fake_verdict(const struct sim_machine *m, const char *res, struct td_tree *tree,
					 struct merge_verdict *v)
{
	struct fake f;
	fake_init(&f);
	fake_add(&f, m, "p0156", 0.001, 0.002, false);
	fake_add(&f, m, res, 0.12, 0.5, true);
	merge_verdict(tree, NULL, m, &f.a, NULL, v);
	return v->kind;
}

static void test_mapping(const struct sim_machine *skx, const struct sim_machine *spr, struct td_tree *tr)
{
	static const struct {
		const char *res;
		int tree;
		enum merge_agreement want;
	} cases[] = {
		{ "p0156", T_PORTS, MERGE_AGREE }, { "p0156", T_RETIRING, MERGE_AGREE },
		{ "p0156", T_L1, MERGE_DISAGREE }, { "p06", T_DIVIDER, MERGE_DISAGREE },
		/* load/store groups: the ports they saturate, or the L1 hits waiting */
		{ "p23", T_PORTS, MERGE_AGREE }, { "p23", T_L1, MERGE_AGREE }, { "p237", T_L1, MERGE_AGREE },
		{ "p23", T_DRAM, MERGE_DISAGREE }, { "p23", T_STORE, MERGE_DISAGREE },
		{ "p4", T_STORE, MERGE_AGREE }, { "p4", T_L1, MERGE_AGREE },
		{ "DIV", T_DIVIDER, MERGE_AGREE }, { "DIV", T_PORTS, MERGE_DISAGREE },
		{ "DIV", T_LEVEL1, MERGE_AGREE },
		{ "INST_LAT", T_DIVIDER, MERGE_REFINES }, { "INST_LAT", T_DRAM, MERGE_REFINES },
		{ "INST_LAT", T_LEVEL1, MERGE_REFINES }, { "INST_LAT", T_FRONTEND, MERGE_DISAGREE },
		{ "INST_LAT", T_RETIRING, MERGE_DISAGREE },
		{ "INST_WINDOW", T_DRAM, MERGE_AGREE }, { "INST_WINDOW", T_DIVIDER, MERGE_DISAGREE },
		{ "L2_THR", T_DRAM, MERGE_DISAGREE }, { "L3_THR", T_DRAM, MERGE_DISAGREE },
		{ "MEM_THR", T_DRAM, MERGE_AGREE }, { "MEM_THR", T_L1, MERGE_DISAGREE },
		{ "FRONTEND", T_FRONTEND, MERGE_AGREE }, { "FRONTEND", T_RETIRING, MERGE_AGREE },
		{ "FRONTEND", T_BRANCH, MERGE_DISAGREE },
		{ "BRANCH", T_BRANCH, MERGE_AGREE }, { "BRANCH", T_FRONTEND, MERGE_DISAGREE },
		/* a set: any member that lives on the measured path */
		{ "p0+DIV", T_DIVIDER, MERGE_AGREE }, { "INST_LAT+p5", T_DIVIDER, MERGE_REFINES },
		{ "INST_LAT+p5", T_PORTS, MERGE_AGREE }, { "BRANCH+MEM_THR", T_DIVIDER, MERGE_DISAGREE },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct merge_verdict v;
		enum merge_agreement k = fake_verdict(skx, cases[i].res, &tr[cases[i].tree], &v);
		if (!tap_ok(k == cases[i].want, "skx %s against %s: %s", cases[i].res, tree_path[cases[i].tree],
			    merge_agreement_name(cases[i].want)))
			printf("#   got %s: %s\n", merge_agreement_name(k), v.text);
	}
	/* Golden Cove's load ports 2 3 11, store address 7 8, store data 4 9 */
	static const struct {
		const char *res;
		int tree;
		enum merge_agreement want;
	} spr_cases[] = {
		{ "p23B", T_L1, MERGE_AGREE }, { "p78", T_STORE, MERGE_AGREE }, { "p49", T_STORE, MERGE_AGREE },
		{ "p15A", T_L1, MERGE_DISAGREE }, { "p15A", T_PORTS, MERGE_AGREE }, { "p23B", T_STORE, MERGE_DISAGREE },
	};
	for (size_t i = 0; i < sizeof spr_cases / sizeof spr_cases[0]; i++) {
		struct merge_verdict v;
		enum merge_agreement k = fake_verdict(spr, spr_cases[i].res, &tr[spr_cases[i].tree], &v);
		if (!tap_ok(k == spr_cases[i].want, "spr %s against %s: %s", spr_cases[i].res,
			    tree_path[spr_cases[i].tree], merge_agreement_name(spr_cases[i].want)))
			printf("#   got %s: %s\n", merge_agreement_name(k), v.text);
	}

	/* the top is the largest speedup at the top weight, whatever comes first */
	struct fake f;
	struct merge_verdict v;
	fake_init(&f);
	fake_add(&f, skx, "p5", 0.05, 0.2, true);
	fake_add(&f, skx, "DIV", 0.139, 1.1, true);
	fake_add(&f, skx, "INST_LAT", 0.02, 0.3, true);
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_streq(v.resource, "DIV", "the top resource is the one with the largest speedup");
	tap_near(v.speedup_top, 0.139, 1e-12, "its speedup at the top weight");
	tap_near(v.gain_upper, 1.1, 1e-12, "its upper bound");
	tap_ok(v.bottleneck, "and its bottleneck flag");
	tap_streq(v.text,
		  "agree: counters Backend_Bound > Core_Bound > Divider (50.0 % clocks), "
		  "model DIV (+13.9 % at +15 %, up to 2.10x unlimited)",
		  "agree text");

	/* upper bounds as factors, a huge one capped */
	fake_init(&f);
	fake_add(&f, skx, "DIV", 0.139, 1e12, true);
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_ok(strstr(v.text, "up to >10x unlimited") != NULL, "a huge upper bound prints as >10x: %s", v.text);
	f.se[0].upper = INFINITY;
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_ok(strstr(v.text, "up to >10x unlimited") != NULL, "so does an infinite one");
	f.se[0].upper = 0.39;
	f.se[0].bottleneck = false;
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_ok(strstr(v.text, "up to 1.39x unlimited") != NULL && strstr(v.text, "under the bottleneck threshold"),
	       "a small one as a factor, a non-bottleneck said: %s", v.text);

	/* nothing measurable */
	fake_init(&f);
	fake_add(&f, skx, "p5", 0.003, 0.004, false);
	fake_add(&f, skx, "DIV", 0.001, 0.001, false);
	merge_verdict(&tr[T_RETIRING], NULL, skx, &f.a, NULL, &v);
	tap_ok(v.kind == MERGE_AGREE && strstr(v.text, "no single resource limits this region") != NULL &&
		       v.resource[0] == 0,
	       "nothing limits and counters see retiring: agree: %s", v.text);
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_ok(v.kind == MERGE_DISAGREE && strstr(v.text, "no single resource limits this region") != NULL,
	       "nothing limits but counters see a divider: disagree: %s", v.text);
	tap_near(v.speedup_top, 0.003, 1e-12, "the largest speedup is still reported");

	/* an analysis without sensitivities has no model side */
	fake_init(&f);
	merge_verdict(&tr[T_DIVIDER], NULL, skx, &f.a, NULL, &v);
	tap_ok(v.kind == MERGE_NO_MODEL && strstr(v.text, "without a sensitivity analysis") != NULL,
	       "an analysis without sensitivities counts as no model: %s", v.text);
}

/* the real analyses against the trees */
static void test_verdicts(const struct sim_machine *m, struct region *lat, struct region *shuf, struct region *div,
			  struct region *chase, struct td_tree *tr)
{
	struct merge_verdict v;
	if (div->ok) {
		merge_verdict(&tr[T_DIVIDER], NULL, m, &div->a, NULL, &v);
		tap_ok(v.kind == MERGE_AGREE, "vdivpd against Divider: agree: %s", v.text);
		tap_streq(v.resource, "DIV", "the model's top is DIV");
		tap_ok(v.bottleneck && v.speedup_top > 0.05 && v.gain_upper >= v.speedup_top,
		       "a bottleneck, +%.1f %% at +15 %%, up to %.2fx", 100 * v.speedup_top, 1 + v.gain_upper);
		tap_ok(starts_with(v.text, "agree: counters Backend_Bound > Core_Bound > Divider (50.0 % clocks), "
					   "model DIV (+"),
		       "the text says where both stand");
		merge_verdict(&tr[T_BRANCH], NULL, m, &div->a, NULL, &v);
		tap_ok(v.kind == MERGE_DISAGREE, "vdivpd against Branch_Mispredicts: disagree");
	}
	if (shuf->ok) {
		merge_verdict(&tr[T_PORTS], NULL, m, &shuf->a, NULL, &v);
		tap_ok(v.kind == MERGE_AGREE, "vpshufd against Ports_Utilization: agree: %s", v.text);
		tap_streq(v.resource, "p5", "the model's top is p5");
		merge_verdict(&tr[T_RETIRING], NULL, m, &shuf->a, NULL, &v);
		tap_ok(v.kind == MERGE_AGREE, "vpshufd against Retiring: agree (a port-limited loop retiring well)");
		merge_verdict(&tr[T_FRONTEND], NULL, m, &shuf->a, NULL, &v);
		tap_ok(v.kind == MERGE_DISAGREE, "vpshufd against Frontend_Bound: disagree: %s", v.text);
		tap_ok(starts_with(v.text, "disagree: counters Frontend_Bound > Fetch_Latency > ICache_Misses") &&
			       strstr(v.text, "model p5 (") && strstr(v.text, "Ports_Utilization"),
		       "the text names both sides and where p5 would show");
		merge_verdict(NULL, "no hardware counters in this virtual machine", m, &shuf->a, NULL, &v);
		tap_ok(v.kind == MERGE_NO_MEASURE, "no tree: model only");
		tap_ok(starts_with(v.text, "model only (no counters: no hardware counters in this virtual machine): "
					   "p5 (+") &&
			       strstr(v.text, "up to "),
		       "with the reason and the model's answer: %s", v.text);
		tap_ok(v.measured[0] == 0 && isnan(v.measured_value), "and nothing measured");
	}
	if (lat->ok) {
		merge_verdict(&tr[T_DIVIDER], NULL, m, &lat->a, NULL, &v);
		tap_ok(v.kind == MERGE_REFINES, "FP add chain against Core_Bound: refines: %s", v.text);
		tap_streq(v.resource, "INST_LAT", "the model's top is INST_LAT");
		tap_ok(strstr(v.text, "dependency chain") && strstr(v.text, "core stalls"),
		       "the text says what counters cannot tell");
		merge_verdict(&tr[T_LEVEL1], NULL, m, &lat->a, NULL, &v);
		tap_ok(v.kind == MERGE_REFINES, "FP add chain against a level-1 Backend_Bound: refines");
		merge_verdict(&tr[T_DRAM], NULL, m, &lat->a, NULL, &v);
		tap_ok(v.kind == MERGE_REFINES,
		       "FP add chain (no load leaves L1) against DRAM_Bound: refines, not memory latency");
		merge_verdict(&tr[T_FRONTEND], NULL, m, &lat->a, NULL, &v);
		tap_ok(v.kind == MERGE_DISAGREE, "FP add chain against Frontend_Bound: disagree");
	}
	if (chase->ok) {
		const struct sim_events *e = &chase->a.events;
		tap_ok(e->level_hits[3] > 100, "pointer chase over 256 MiB: %llu loads from memory",
		       (unsigned long long)e->level_hits[3]);
		merge_verdict(&tr[T_DRAM], NULL, m, &chase->a, NULL, &v);
		tap_ok(v.kind == MERGE_AGREE && !strcmp(v.resource, "INST_LAT"),
		       "pointer chase against DRAM_Bound: memory latency agrees: %s", v.text);
		tap_ok(strstr(v.text, "memory latency: ") && strstr(v.text, "% of the cycles waiting on loads from memory") &&
			       v.stall_share[3] > 0.8,
		       "pointer chase: the verdict says the share of the time waiting on memory (%.1f %%)",
		       100 * v.stall_share[3]);
		merge_verdict(&tr[T_DIVIDER], NULL, m, &chase->a, NULL, &v);
		tap_ok(v.kind == MERGE_REFINES, "pointer chase against Core_Bound: refines");
	}
	/* most loads hit L1, most of the time waits on the others: the
	 * verdict weighs the levels by time, not by accesses */
	struct region mix;
	simulate_mix(m, "488b0049ffcf75f8", &mix);
	if (tap_ok(mix.ok, "a chase with one load in ten from memory simulates")) {
		const struct sim_events *e = &mix.a.events;
		double from_memory = e->loads ? (double)e->level_hits[3] / (double)e->loads : 0;
		merge_verdict(NULL, "no PMU", m, &mix.a, NULL, &v);
		tap_ok(from_memory < 0.2 && v.stall_share[3] > 0.5 && v.stall_share[3] > 2 * v.stall_share[0],
		       "%.1f %% of the loads from memory, %.1f %% of the cycles waiting on them (%.1f %% on L1)",
		       100 * from_memory, 100 * v.stall_share[3], 100 * v.stall_share[0]);
		tap_ok(strstr(v.text, "% of the cycles waiting on loads from memory") && !strstr(v.text, "of the loads miss"),
		       "the verdict says where the time went: %s", v.text);
		tap_ok(!strcmp(v.resource, "INST_LAT"), "and names INST_LAT (%s)", v.resource);
	}
	region_free(&mix);
	merge_verdict(&tr[T_DIVIDER], NULL, NULL, NULL, "no instruction trace (no intel_pt PMU)", &v);
	tap_ok(v.kind == MERGE_NO_MODEL && strstr(v.text, "no instruction trace (no intel_pt PMU)") &&
		       isnan(v.speedup_top) && v.resource[0] == 0,
	       "no analysis: counters only, with the reason: %s", v.text);
	merge_verdict(NULL, "counting failed", NULL, NULL, "no trace", &v);
	tap_ok(v.kind == MERGE_NO_DATA && strstr(v.text, "counting failed") && strstr(v.text, "no trace"),
	       "neither: no data, both reasons: %s", v.text);
	merge_verdict(NULL, NULL, NULL, NULL, NULL, &v);
	tap_ok(v.kind == MERGE_NO_DATA && v.text[0], "no reasons given still makes a line: %s", v.text);

	static const char *const names[] = { "agree", "refines", "disagree", "model-only", "counters-only",
					     "no-data" };
	for (int k = MERGE_AGREE; k <= MERGE_NO_DATA; k++)
		tap_streq(merge_agreement_name((enum merge_agreement)k), names[k], "agreement name %d", k);
}

/* ----------------------------------------------------- stream codec --- */

struct collected {
	struct stream_insn *v;
	size_t n, cap;
	bool sane;		/* every record within the limits of stream.h */
};

static int collect(void *ctx, const struct stream_insn *v, size_t n)
{
	struct collected *c = ctx;
	for (size_t i = 0; i < n; i++) {
		if (v[i].size < 1 || v[i].size > STREAM_MAX_BYTES || v[i].nmem > STREAM_MAX_MEM)
			c->sane = false;
		if (!c->v)
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1024;
			c->v = realloc(c->v, c->cap * sizeof *c->v);
			if (!c->v)
				abort();
		}
		c->v[c->n++] = v[i];
	}
	return 0;
}

/* A stream as a tracer makes it: loops over a few dozen instructions, jumps
 * elsewhere, some code rewritten in place, data addresses of any size. */
static struct stream_insn *random_stream(size_t n)
{
	enum { NCODE = 48 };
	struct {
		uint64_t ip;
		uint8_t size, bytes[16];
	} code[NCODE];
	uint32_t thread = 0;
	uint64_t ip = 0x400000 + (rnd() & 0xffff) * 16;
	for (int i = 0; i < NCODE; i++) {
		code[i].ip = ip;
		code[i].size = (uint8_t)(1 + rnd() % STREAM_MAX_BYTES);
		memset(code[i].bytes, 0, sizeof code[i].bytes);
		for (int k = 0; k < code[i].size; k++)
			code[i].bytes[k] = (uint8_t)rnd();
		ip += code[i].size;
		if (rnd() % 8 == 0)
			ip += rnd() % 4096;
	}
	struct stream_insn *v = calloc(n, sizeof *v);
	if (!v)
		abort();
	int at = 0;
	for (size_t i = 0; i < n; i++) {
		if (rnd() % 50 == 0) {	/* self-modifying code: same address, other bytes */
			code[at].size = (uint8_t)(1 + rnd() % STREAM_MAX_BYTES);
			memset(code[at].bytes, 0, sizeof code[at].bytes);
			for (int k = 0; k < code[at].size; k++)
				code[at].bytes[k] = (uint8_t)rnd();
		}
		struct stream_insn *r = &v[i];
		r->ip = code[at].ip;
		r->size = code[at].size;
		memcpy(r->bytes, code[at].bytes, sizeof r->bytes);
		r->flags = (uint8_t)(rnd() & (STREAM_TAKEN | STREAM_GAP | STREAM_ENTRY));
		/* threads switch now and then, windows start rarely */
		if (rnd() % 40 == 0)
			thread = STREAM_THREAD(rnd() % 3, rnd() % 70000);
		r->thread = thread;
		if (rnd() % 100 == 0) {
			r->flags |= STREAM_WINDOW;
			r->window = STREAM_WINDOW_TAG(rnd() % 64, rnd() % 5000);
		}
		if (rnd() % 2) {
			r->flags |= STREAM_HAS_MEM;
			r->nmem = (uint8_t)(rnd() % (STREAM_MAX_MEM + 1));
			r->store_mask = (uint8_t)(rnd() & 0x0f);
			for (int k = 0; k < r->nmem; k++)
				r->mem[k] = rnd() % 3 ? 0x7ffe0000 + (rnd() % 64) * 8 : rnd();
		}
		/* mostly the next instruction, a loop back now and then, a far jump rarely */
		uint64_t x = rnd() % 16;
		at = x == 0 ? (int)(rnd() % NCODE) : x < 3 ? at / 2 : (at + 1) % NCODE;
		if (rnd() % 500 == 0)
			code[at].ip = (rnd() & 0x7fffffffffffull) | 1;
	}
	return v;
}

static bool same_insn(const struct stream_insn *x, const struct stream_insn *y)
{
	if (x->ip != y->ip || x->size != y->size || memcmp(x->bytes, y->bytes, x->size) || x->flags != y->flags ||
	    x->nmem != y->nmem || x->store_mask != y->store_mask || x->thread != y->thread || x->window != y->window)
		return false;
	for (int k = 0; k < x->nmem; k++)
		if (x->mem[k] != y->mem[k])
			return false;
	return true;
}

static void test_stream_codec(void)
{
	for (int round = 0; round < 3; round++) {
		size_t n = round == 0 ? 1 : round == 1 ? 700 : 20000;
		struct stream_insn *v = random_stream(n);
		uint8_t *p;
		size_t len;
		int erc = gusdata_trace_encode(v, n, &p, &len);
		if (!tap_ok(erc == 0, "%zu random records encode (%zu bytes)", n, erc ? 0 : len)) {
			free(v);
			continue;
		}
		struct collected c = { .v = malloc(sizeof *c.v), .cap = 1, .sane = true };
		int rc = gusdata_trace_decode(p, len, n, collect, &c);
		size_t same = 0;
		for (size_t i = 0; i < c.n && i < n; i++)
			same += same_insn(&v[i], &c.v[i]);
		tap_ok(rc == 0 && c.n == n && same == n,
		       "%zu records decode to the same ip, size, bytes, flags, window marks, thread, nmem, store_mask and mem "
		       "(%zu of %zu)", n,
		       same, c.n);
		free(c.v);
		if (round == 1) {
			int bad = 0, insane = 0;
			for (size_t l = 0; l < len; l++) {
				struct collected d = { .sane = true };
				if (gusdata_trace_decode(p, l, n, collect, &d) != -1)
					bad++;
				insane += !d.sane;
			}
			tap_ok(bad == 0 && insane == 0, "each of %zu truncations returns -1 (%d not, %d odd records)", len,
			       bad, insane);
			struct collected d = { .sane = true };
			tap_ok(gusdata_trace_decode(p, len, n + 1, collect, &d) == -1, "asking for one record more: -1");
			d.sane = true;
			tap_ok(gusdata_trace_decode(p, len, n - 1, collect, &d) == -1, "leaving bytes over: -1");
			uint8_t *q = malloc(len);
			int ok = 0, refused = 0;
			insane = 0;
			for (int t = 0; t < 4000; t++) {
				memcpy(q, p, len);
				for (int k = 0, nk = 1 + (int)(rnd() % 3); k < nk; k++)
					q[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
				struct collected e = { .sane = true };
				if (gusdata_trace_decode(q, len, n, collect, &e) == 0)
					ok++;
				else
					refused++;
				insane += !e.sane;
			}
			tap_ok(insane == 0, "corrupt chunks: %d refused, %d decoded, %d with records out of limits",
			       refused, ok, insane);
			free(q);
		}
		free(p);
		free(v);
	}
	/* a record that refers to code at address 0 never seen in the chunk */
	static const uint8_t zero[] = { 0x00 };
	struct collected d = { .sane = true };
	int rc = gusdata_trace_decode(zero, sizeof zero, 1, collect, &d);
	tap_ok(rc == -1 && d.sane, "a record reusing code never stored is refused (rc %d, records %s)", rc,
	       d.sane ? "sane" : "out of limits");
	static const uint8_t garbage[] = { 0xff, 0xff, 0xff };
	tap_ok(gusdata_trace_decode(garbage, sizeof garbage, 1, collect, &d) == -1, "unknown header bits: -1");
	struct stream_insn bad = { .ip = 0x1000, .size = 16 };
	uint8_t *p;
	size_t len;
	tap_ok(gusdata_trace_encode(&bad, 1, &p, &len) == -1, "encoding a 16-byte instruction is refused");
}

/* a report of M with one region, rendered in FMT into a string */
static char *render_report(const struct merge_report *r, enum render_format fmt)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	if (fmt == RENDER_JSON)
		render_report_json(f, r);
	else if (fmt == RENDER_CSV)
		render_report_csv(f, r, ',');
	else
		render_report_text(f, r, false);
	fclose(f);
	return buf;
}

/* The callers of a region (gus record -g) in text, CSV and JSON, in
 * order, with their shares; a recording without call chains says so. */
static void test_report_callers(const struct sim_machine *m)
{
	static const struct merge_report_caller callers[] = {
		{ "from_major", "/bin/callers", 750, 0.75 },
		{ "from_minor", "/bin/callers", 240, 0.24 },
	};
	struct merge_report_region rv = {
		.id = 1, .rank = 1, .kind = "function", .name = "hot_chain", .file = "/bin/callers",
		.start = 0x1250, .end = 0x12a0, .head = 0x1250, .samples = 1000, .share = 0.99, .source = "",
		.selected = true, .why_no_model = "no instruction stream", .callers = callers, .ncallers = 2,
		.callers_other = 10, .chain_samples = 1000, .object = "callers", .unit = "call", .parent = -1,
		.only_loop = -1, .details = true,
	};
	struct merge_report r = { .input = "cg.data", .tracer = "none", .m = m, .why_no_measure = "no PMU",
				  .regions = &rv, .nregions = 1, .samples = 1010 };
	char *text = render_report(&r, RENDER_TEXT);
	const char *major = text ? strstr(text, "75.0%      750  from_major (callers)") : NULL;
	const char *minor = text ? strstr(text, "24.0%      240  from_minor (callers)") : NULL;
	tap_ok(text && strstr(text, "Callers (the first frame outside the region, in 1000 call chains):") != NULL,
	       "text: the region's callers are headed with the chains they come from");
	tap_ok(major && minor && major < minor, "text: both callers with their shares, the larger first");
	tap_ok(text && strstr(text, "1.0%       10  (other callers)") != NULL, "text: the other callers summed");
	free(text);
	char *csv = render_report(&r, RENDER_CSV);
	major = csv ? strstr(csv, "callers,1,caller,from_major,share,0.75\n") : NULL;
	minor = csv ? strstr(csv, "callers,1,caller,from_minor,share,0.24\n") : NULL;
	tap_ok(major && minor && major < minor, "CSV: caller rows with their shares, the larger first");
	tap_ok(csv && strstr(csv, "callers,1,region,hot_chain,chain_samples,1000\n") &&
		       strstr(csv, "callers,1,caller,from_minor,samples,240\n") &&
		       strstr(csv, "callers,1,caller,from_major,file,/bin/callers\n") &&
		       strstr(csv, "callers,1,caller,[other callers],samples,10\n"),
	       "CSV: chain samples, samples, files and the other callers");
	free(csv);
	char *json = render_report(&r, RENDER_JSON);
	major = json ? strstr(json, "{\"name\": \"from_major\", \"file\": \"/bin/callers\", \"samples\": 750, "
				    "\"share\": 0.75}") : NULL;
	minor = json ? strstr(json, "{\"name\": \"from_minor\"") : NULL;
	tap_ok(major && minor && major < minor, "JSON: the callers list, the larger first");
	tap_ok(json && strstr(json, "\"caller_samples\": 1000, \"other_callers_samples\": 10, \"callers_missing\": null"),
	       "JSON: chain samples and the other callers");
	free(json);

	r.why_no_callers = "the recording has no call chains (recorded without -g)";
	text = render_report(&r, RENDER_TEXT);
	tap_ok(text && strstr(text, "# callers: not available: the recording has no call chains") &&
		       !strstr(text, "from_major") && !strstr(text, "Callers"),
	       "text: without call chains it says so once, in the heading, and no region lists any");
	free(text);
	csv = render_report(&r, RENDER_CSV);
	tap_ok(csv && strstr(csv, "callers,1,missing,,why,the recording has no call chains") && !strstr(csv, "from_major"),
	       "CSV: without call chains, the reason");
	free(csv);
	json = render_report(&r, RENDER_JSON);
	tap_ok(json && strstr(json, "\"callers\": null, \"callers_missing\": \"the recording has no call chains"),
	       "JSON: without call chains, null and the reason");
	free(json);
}

/* AMD's tree (the zen4 table generated from the kernel's amdzen4
 * pipeline.json) against a model that tells its tree in AMD's words
 * ('topdown amd'): the verdict names AMD's nodes */
static int amd_tree(const struct td_table *t, double load_share, struct td_tree *tr)
{
	static const struct kv counts[] = {
		{ "ls_not_halted_cyc", 1e9 }, { "de_no_dispatch_per_slot.no_ops_from_frontend", 0.5e9 },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend.c6", 0.02e9 }, { "de_src_op_disp.all", 1.5e9 },
		{ "ex_ret_ops", 1.4e9 }, { "de_no_dispatch_per_slot.backend_stalls", 4e9 },
		{ "de_no_dispatch_per_slot.smt_contention", 0 }, { "ex_ret_brn_misp", 1e6 },
		{ "resyncs_or_nc_redirects", 1e5 }, { "ex_no_retire.not_complete", 1e9 }, { "ex_ret_ucode_ops", 0 },
	};
	struct td_countset cs;
	td_countset_init(&cs);
	for (size_t e = 0; e < t->n_events; e++) {
		const char *name = t->events[e].name;
		double v = !strcmp(name, "ex_no_retire.load_not_complete") ? load_share * 1e9 : -1;
		for (size_t i = 0; v < 0 && i < sizeof counts / sizeof counts[0]; i++)
			if (!strcmp(counts[i].ev, name))
				v = counts[i].v;
		td_countset_add(&cs, name, v < 0 ? 0 : v, 1e9, 1e9);
	}
	struct td_eval_opts o = { .max_level = 2 };
	int rc = td_eval(t, &cs, &o, tr, err, sizeof err);
	if (rc)
		printf("# eval: %s\n", err);
	td_countset_free(&cs);
	return rc;
}

static void test_amd_verdict(void)
{
	const char *gen = getenv("GUS_TMAGEN_DIR");
	struct td_table *t = gen && *gen ? td_table_load_arch(gen, "zen4", err, sizeof err) : NULL;
	if (!t) {
		tap_ok(1, "# SKIP no generated zen4 table (a build without the kernel's metric files)");
		return;
	}
	/* skx's ports and resources, told as AMD */
	char dir[] = "/tmp/gus-test-amd-XXXXXX";
	if (!tap_ok(mkdtemp(dir) != NULL, "a directory for the AMD-worded model")) {
		td_table_free(t);
		return;
	}
	char src[1100], dst[1200], amd[1200];
	snprintf(src, sizeof src, "%s/machines/skx.mm", datadir);
	snprintf(dst, sizeof dst, "%s/skx.mm", dir);
	snprintf(amd, sizeof amd, "%s/amdish.mm", dir);
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w"), *a = fopen(amd, "w");
	char line[4096];
	while (in && out && fgets(line, sizeof line, in))
		fputs(line, out);
	if (a)
		fputs("machine amdish\nbase skx\ntopdown amd\n", a);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	if (a)
		fclose(a);
	struct sim_machine *m = sim_machine_load(amd, err, sizeof err);
	unlink(dst);
	unlink(amd);
	rmdir(dir);
	if (!tap_ok(m != NULL, "skx told as AMD loads (%s)", m ? "ok" : err)) {
		td_table_free(t);
		return;
	}
	struct td_tree mem, cpu;
	memset(&mem, 0, sizeof mem);
	memset(&cpu, 0, sizeof cpu);
	if (tap_ok(amd_tree(t, 0.8, &mem) == 0 && amd_tree(t, 0.1, &cpu) == 0, "zen4 trees evaluated")) {
		static const struct {
			const char *res;
			int mem_tree;
			enum merge_agreement want;
			const char *node;
		} cases[] = {
			{ "INST_WINDOW", 1, MERGE_AGREE, "Backend_Bound > Memory" },
			{ "DIV", 0, MERGE_AGREE, "Backend_Bound > CPU" },
			{ "DIV", 1, MERGE_DISAGREE, "Memory" },
			{ "p0156", 0, MERGE_AGREE, "Backend_Bound > CPU" },
			{ "MEM_THR", 1, MERGE_AGREE, "Backend_Bound > Memory" },
			{ "INST_LAT", 0, MERGE_REFINES, "CPU" },
		};
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			struct merge_verdict v;
			enum merge_agreement k = fake_verdict(m, cases[i].res, cases[i].mem_tree ? &mem : &cpu, &v);
			bool intel_words = strstr(v.text, "Memory_Bound") || strstr(v.text, "Core_Bound");
			if (!tap_ok(k == cases[i].want && strstr(v.text, cases[i].node) && !intel_words,
				    "AMD: %s against a %s-bound zen4 tree: %s, naming %s", cases[i].res,
				    cases[i].mem_tree ? "memory" : "CPU", merge_agreement_name(cases[i].want), cases[i].node))
				printf("#   got %s: %s\n", merge_agreement_name(k), v.text);
		}
	}
	if (mem.res)
		td_tree_free(&mem);
	if (cpu.res)
		td_tree_free(&cpu);
	sim_machine_free(m);
	td_table_free(t);
}

int main(void)
{
	const char *d = getenv("GUS_DATADIR");
	snprintf(datadir, sizeof datadir, "%s", d && *d ? d : GUS_ABS_SRCDIR "/data");

	struct sim_machine *skx = machine("skx"), *spr = machine("spr");
	if (!tap_ok(skx && spr, "skx and spr machine models load from %s/machines", datadir))
		return tap_done();

	struct region lat, shuf, div, chase;
	/* vaddpd xmm0, xmm0, xmm1 x4: a dependency chain */
	simulate(skx, "c5f958c1c5f958c1c5f958c1c5f958c149ffcf75eb", 0, &lat);
	/* vpshufd x4, independent: port 5 */
	simulate(skx, "c4c17970c001c4c17970c802c4c17970d003c4c17970d80449ffcf75e3", 0, &shuf);
	/* vdivpd x3, independent: the divider */
	simulate(skx, "c4c1395ec1c4c1395ec9c4c1395ed149ffcf75ec", 0, &div);
	/* mov rax, [rax]; dec r15; jnz: a pointer chase, 256 MiB random */
	simulate(skx, "488b0049ffcf75f8", 256u << 20, &chase);
	tap_ok(lat.ok && shuf.ok && div.ok && chase.ok, "four loops simulated");
	if (lat.ok)
		tap_streq(top_name(skx, &lat.a), "INST_LAT", "FP add chain: INST_LAT on top");
	if (shuf.ok)
		tap_streq(top_name(skx, &shuf.a), "p5", "shuffles: p5 on top");
	if (div.ok)
		tap_streq(top_name(skx, &div.a), "DIV", "divides: DIV on top");
	if (chase.ok)
		tap_streq(top_name(skx, &chase.a), "INST_LAT", "pointer chase: INST_LAT on top");

	if (lat.ok)
		test_roundtrip(skx, &lat, "FP add chain", "hex c5f958c1...");
	if (shuf.ok)
		test_roundtrip(skx, &shuf, "shuffles", NULL);
	if (div.ok)
		test_roundtrip(skx, &div, "divides", "qemu: ./workload div, cpu 0, 1200 records");
	if (chase.ok)
		test_roundtrip(skx, &chase, "pointer chase", "");
	if (div.ok)
		test_damage(skx, spr, &div);
	if (shuf.ok)
		test_special_values(skx, &shuf);
	test_code_checks(skx);
	test_report_callers(skx);

	char tdir[1100];
	snprintf(tdir, sizeof tdir, "%s/tma/hand", datadir);
	struct td_table *t = td_table_load_arch(tdir, "clx", err, sizeof err);
	if (tap_ok(t != NULL, "clx TMA table loads")) {
		struct td_tree tr[NTREES];
		memset(tr, 0, sizeof tr);
		if (tap_ok(build_trees(t, tr) == 0, "%d TMA trees evaluated", NTREES)) {
			test_measured_paths(tr);
			test_mapping(skx, spr, tr);
			test_verdicts(skx, &lat, &shuf, &div, &chase, tr);
		}
		for (int i = 0; i < NTREES; i++)
			if (tr[i].res)
				td_tree_free(&tr[i]);
		td_table_free(t);
	} else {
		printf("# %s\n", err);
	}

	test_stream_codec();
	test_amd_verdict();

	region_free(&lat);
	region_free(&shuf);
	region_free(&div);
	region_free(&chase);
	sim_machine_free(skx);
	sim_machine_free(spr);
	return tap_done();
}
