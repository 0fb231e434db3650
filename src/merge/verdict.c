/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The verdict of a region: does the measured Top-Down tree point where the
 * model's most sensitive resource says the time goes?
 *
 * Counters name a node of the TMA tree; the model names a resource. Each
 * kind of resource has the places in the tree where counters charge the
 * slots it costs (the table in expectations() below), and the two agree
 * when the measured dominant path runs down one of those places as deep as
 * both go. Dependency latency is the one resource counters cannot name at
 * all: they charge its stalls to whatever backend node was waiting, so the
 * model "refines" any backend verdict instead of contradicting it.
 *
 * Numbers in the text: speedups are percentages of time saved at a given
 * capacity increase ("+13.9 % at +15 %"); the bound with the resource
 * unlimited is always written as a speedup factor ("up to 2.10x"), capped
 * at ">10x" because an unlimited resource can remove nearly all of a
 * region's time and the digits past that carry no information. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

/* below this at the top weight, a resource is not said to limit anything:
 * the model's discrete time steps alone move results by tenths of a percent */
#define VERDICT_MIN_SPEEDUP 0.005
/* the share of a region's cycles retirement waited on loads from beyond
 * L1 that makes a latency-bound loop a memory-latency one: time, not
 * accesses (a thread chasing pointers through memory and one in L1 are a
 * memory-latency region even when most loads hit L1) */
#define VERDICT_STALL_SHARE 0.05
/* a level's share of the cycles worth a word in the verdict */
#define VERDICT_LEVEL_SHARE 0.01
#define VERDICT_MAX_DEPTH 8
#define VERDICT_FACTOR_CAP 10.0

const char *merge_agreement_name(enum merge_agreement k)
{
	/* one word each, so CSV and JSON consumers can match them */
	switch (k) {
	case MERGE_AGREE: return "agree";
	case MERGE_REFINES: return "refines";
	case MERGE_DISAGREE: return "disagree";
	case MERGE_NO_MEASURE: return "model-only";
	case MERGE_NO_MODEL: return "counters-only";
	case MERGE_NO_DATA: return "no-data";
	}
	return "unknown";
}

/* appends to a fixed buffer, truncating rather than overflowing */
__attribute__((format(printf, 3, 4))) static void app(char *buf, size_t n, const char *fmt, ...)
{
	size_t o = strlen(buf);
	if (o + 1 >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + o, n - o, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------ the measured side --- */

struct measured {
	int node[VERDICT_MAX_DEPTH];
	int depth;
};

static bool usable(const struct td_tree *tree, int i)
{
	const struct td_result *r = &tree->res[i];
	return (r->status == TD_OK || r->status == TD_MISMEASURED) && isfinite(r->value);
}

static bool out_of_range(const struct td_result *r)
{
	return r->status == TD_MISMEASURED || r->value < 0 || r->value > 1;
}

/* the largest usable child of PARENT (-1: level 1), or -1 */
static int largest_child(const struct td_tree *tree, int parent)
{
	const struct td_table *t = tree->table;
	int best = -1;
	for (size_t i = 0; i < t->n_nodes; i++) {
		if (t->nodes[i].parent != parent || !usable(tree, (int)i))
			continue;
		if (best < 0 || tree->res[i].value > tree->res[best].value)
			best = (int)i;
	}
	return best;
}

/* From level 1 down, the largest node at each level. A value out of range
 * still leads the way: it is what the counters said, and the text marks it. */
static void dominant_path(const struct td_tree *tree, struct measured *mp)
{
	mp->depth = 0;
	int max_level = tree->max_level > 0 ? tree->max_level : 1;
	int cur = largest_child(tree, -1);
	while (cur >= 0 && mp->depth < VERDICT_MAX_DEPTH) {
		mp->node[mp->depth++] = cur;
		if (mp->depth >= max_level)
			break;
		cur = largest_child(tree, cur);
	}
}

static const char *path_name(const struct td_tree *tree, const struct measured *mp, int d)
{
	return tree->table->nodes[mp->node[d]].name;
}

static void measured_text(const struct td_tree *tree, const struct measured *mp, char *buf, size_t n)
{
	buf[0] = 0;
	for (int d = 0; d < mp->depth; d++) {
		app(buf, n, "%s%s", d ? " > " : "", path_name(tree, mp, d));
		if (out_of_range(&tree->res[mp->node[d]]))
			app(buf, n, " (flagged)");
	}
}

static void measured_line(const struct td_tree *tree, const struct measured *mp, const char *path, char *buf,
			  size_t n)
{
	int last = mp->node[mp->depth - 1];
	const struct td_node *nd = &tree->table->nodes[last];
	app(buf, n, "%s (%.1f %% %s)", path, 100 * tree->res[last].value, td_unit_name(nd->unit));
}

/* ---------------------------------------------------- the model side --- */

struct model {
	int top;		/* index into a->sens, -1 when nothing limits */
	int best;		/* largest speedup even when below the minimum, -1 if none */
	double top_weight;
};

static double top_speedup(const struct sim_analysis *a, size_t i)
{
	const struct sim_sensitivity *se = &a->sens[i];
	if (!se->speedup || !a->nweights)
		return NAN;
	return se->speedup[a->nweights - 1];
}

/* the share of A's cycles retirement waited on loads served by LEVEL */
static double stall_share(const struct sim_analysis *a, int level)
{
	return a->base.cycles > 0 ? a->base.mem_stall[level] / a->base.cycles : 0;
}

static double beyond_l1_stall(const struct sim_analysis *a)
{
	return stall_share(a, 1) + stall_share(a, 2) + stall_share(a, 3);
}

static void model_top(const struct sim_analysis *a, struct model *md)
{
	md->best = -1;
	md->top_weight = a->nweights ? a->weights[a->nweights - 1] : NAN;
	for (size_t i = 0; i < a->nsens; i++) {
		double sp = top_speedup(a, i);
		if (!isfinite(sp))
			continue;
		if (md->best < 0 || sp > top_speedup(a, (size_t)md->best))
			md->best = (int)i;
	}
	md->top = md->best >= 0 && top_speedup(a, (size_t)md->best) >= VERDICT_MIN_SPEEDUP ? md->best : -1;
}

static void set_name(const struct sim_machine *m, const struct sim_set *s, char *buf, size_t n)
{
	buf[0] = 0;
	for (unsigned i = 0; i < s->n && i < 8; i++)
		app(buf, n, "%s%s", i ? "+" : "", sim_res_name(m, s->res[i]));
}

static void factor_text(double upper, char *buf, size_t n)
{
	double f = 1 + upper;
	if (isnan(f))
		snprintf(buf, n, "an unknown factor");
	else if (f >= VERDICT_FACTOR_CAP)
		snprintf(buf, n, ">%.0fx", VERDICT_FACTOR_CAP);
	else
		snprintf(buf, n, "%.2fx", f);
}

static void model_line(const struct sim_machine *m, const struct sim_analysis *a, const struct model *md,
		       char *buf, size_t n)
{
	if (md->top < 0) {
		app(buf, n, "no single resource limits this region");
		if (md->best >= 0) {
			char name[64];
			set_name(m, &a->sens[md->best].set, name, sizeof name);
			app(buf, n, " (largest: %s %+.1f %% at %+.3g %%)", name, 100 * top_speedup(a, (size_t)md->best),
			    100 * (md->top_weight - 1));
		}
		return;
	}
	const struct sim_sensitivity *se = &a->sens[md->top];
	char name[64], fac[32];
	set_name(m, &se->set, name, sizeof name);
	factor_text(se->upper, fac, sizeof fac);
	app(buf, n, "%s (%+.1f %% at %+.3g %%%s, up to %s unlimited)", name, 100 * top_speedup(a, (size_t)md->top),
	    100 * (md->top_weight - 1), se->bottleneck ? "" : ", under the bottleneck threshold", fac);
	/* latency is the core's or the memory's: where the time went says
	 * which (the share of the cycles retirement waited on each level's
	 * loads), not how many loads each level served */
	if (se->set.n == 1 && sim_res_kind(m, se->set.res[0]) == SIM_RK_INST_LAT &&
	    beyond_l1_stall(a) >= VERDICT_STALL_SHARE) {
		static const char *const level[] = { "L1", "L2", "L3", "memory" };
		bool first = true;
		for (int l = 3; l >= 0; l--) {
			double share = stall_share(a, l);
			if (share < VERDICT_LEVEL_SHARE)
				continue;
			if (first)
				app(buf, n, "; memory latency: %.1f %% of the cycles waiting on loads from %s", 100 * share,
				    level[l]);
			else
				app(buf, n, ", %.1f %% from %s", 100 * share, level[l]);
			first = false;
		}
	}
}

/* ------------------------------------------- where counters see what --- */

/* Ports the machine's loads and stores use, as port characters. The
 * machine file says it in its load-uop and store-uops lines, which sim.h
 * does not expose; decoding a plain load and store with the machine gives
 * the same answer through the public interface, and follows any machine
 * file without a list of port names here. */
struct memports {
	char load[32], store[32];
};

static void add_ports(const char *portstr, char *set, size_t n)
{
	for (const char *s = portstr; s && *s; s++) {
		if (*s != 'p')
			continue;
		for (s++; *s && *s != ' ' && *s != '+'; s++)
			if (!strchr(set, *s) && strlen(set) + 1 < n) {
				size_t o = strlen(set);
				set[o] = *s;
				set[o + 1] = 0;
			}
		if (!*s)
			break;
	}
}

static void probe_ports(struct sim_code *c, uint64_t addr, const char *hex, char *set, size_t n)
{
	uint8_t b[16];
	size_t len = 0;
	for (; hex[0] && hex[1] && len < sizeof b; hex += 2) {
		unsigned v;
		if (sscanf(hex, "%2x", &v) != 1)
			return;
		b[len++] = (uint8_t)v;
	}
	char err[256];
	long i = sim_code_add(c, addr, b, len, err, sizeof err);
	if (i < 0)
		return;
	const struct sim_insn *in = sim_code_insn(c, (size_t)i);
	/* a machine without a form for it would answer with its last-resort
	 * ALU rule, which says nothing about memory ports */
	if (!in->approx)
		add_ports(in->ports, set, n);
}

static void memory_ports(const struct sim_machine *m, struct memports *mp)
{
	/* general-purpose and vector forms, in case a machine routes them apart */
	static const char *const loads[] = { "488b07", "c5fc1007" };	/* mov rax,[rdi]; vmovups ymm0,[rdi] */
	static const char *const stores[] = { "488907", "c5fc1107" };	/* mov [rdi],rax; vmovups [rdi],ymm0 */
	memset(mp, 0, sizeof *mp);
	struct sim_code *c = sim_code_new(m);
	uint64_t addr = 0x1000;
	for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++)
		probe_ports(c, addr += 0x10, loads[i], mp->load, sizeof mp->load);
	for (size_t i = 0; i < sizeof stores / sizeof stores[0]; i++)
		probe_ports(c, addr += 0x10, stores[i], mp->store, sizeof mp->store);
	sim_code_free(c);
}

enum port_class { PORTS_COMPUTE, PORTS_MEMORY, PORTS_STORE };

/* A group whose ports all carry loads or stores is a memory group (p23,
 * p237, p4 on Skylake; p23B, p49, p78 on Golden Cove); one that only
 * stores use (p4, p49, p78) fills the store buffer when it saturates. */
static enum port_class port_class(const char *group, const struct memports *mp)
{
	const char *ports = group[0] == 'p' ? group + 1 : group;
	if (!*ports)
		return PORTS_COMPUTE;
	bool mem = true, store_only = true;
	for (const char *s = ports; *s; s++) {
		bool ld = strchr(mp->load, *s) != NULL, st = strchr(mp->store, *s) != NULL;
		mem &= ld || st;
		store_only &= st && !ld;
	}
	if (!mem)
		return PORTS_COMPUTE;
	return store_only ? PORTS_STORE : PORTS_MEMORY;
}

/* A place in the tree: levels separated by '>', alternatives at a level
 * by '|'; a measured path matches when it agrees at every level both have.
 * MIN_DEPTH keeps a coarse measured path from matching a claim that needs
 * a finer one. */
struct expect {
	const char *path;
	enum merge_agreement kind;
	int min_depth;
	const char *why;	/* what the model adds, for refines */
};

#define MAX_EXPECT 5

/* The same places in AMD's pipeline-utilization tree (levels 1-2: the
 * kernel's amdzen4/amdzen5 pipeline.json, as gus's zen4/zen5 tables name
 * them), for a model that tells its tree in AMD's words: Intel's third
 * level has no AMD counterpart, its memory and core halves are Memory and
 * CPU */
static const char *amd_path(const char *intel)
{
	static const struct {
		const char *prefix, *amd;
	} map[] = {
		{ "Backend_Bound>Memory_Bound", "Backend_Bound>Memory" },
		{ "Backend_Bound>Core_Bound", "Backend_Bound>CPU" },
		{ "Bad_Speculation>Branch_Mispredicts", "Bad_Speculation>Mispredicts" },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strncmp(intel, map[i].prefix, strlen(map[i].prefix)))
			return map[i].amd;
	return intel;
}

/* what the model adds to a backend verdict; %s: which stalls */
#define LAT_WHY "a dependency chain, which counters cannot tell from other %s stalls"

static size_t expectations(const struct sim_machine *m, const struct sim_analysis *a, unsigned r,
			   const struct memports *mp, struct expect *e)
{
	size_t n = 0;
	switch (sim_res_kind(m, r)) {
	case SIM_RK_PORTS:
		switch (port_class(sim_res_name(m, r), mp)) {
		case PORTS_STORE:
			e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>Store_Bound", MERGE_AGREE, 1, NULL };
			/* store ports are load/store ports too */
			__attribute__((fallthrough));
		case PORTS_MEMORY:
			e[n++] = (struct expect){ "Backend_Bound>Core_Bound>Ports_Utilization", MERGE_AGREE, 1, NULL };
			e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>L1_Bound", MERGE_AGREE, 1, NULL };
			break;
		case PORTS_COMPUTE:
			e[n++] = (struct expect){ "Backend_Bound>Core_Bound>Ports_Utilization", MERGE_AGREE, 1, NULL };
			break;
		}
		/* a loop limited by a port it keeps busy retires at that
		 * port's rate: counters then show mostly useful slots */
		e[n++] = (struct expect){ "Retiring", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_FRONTEND:
		e[n++] = (struct expect){ "Frontend_Bound", MERGE_AGREE, 1, NULL };
		/* the model's FRONTEND is the issue width: a loop that fills
		 * every issue slot is what counters call Retiring */
		e[n++] = (struct expect){ "Retiring", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_INST_LAT: {
		if (beyond_l1_stall(a) >= VERDICT_STALL_SHARE)
			e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>L2_Bound|L3_Bound|DRAM_Bound", MERGE_AGREE,
						  2, NULL };
		e[n++] = (struct expect){ "Backend_Bound>Core_Bound", MERGE_REFINES, 2, "core" };
		e[n++] = (struct expect){ "Backend_Bound>Memory_Bound", MERGE_REFINES, 2, "memory" };
		e[n++] = (struct expect){ "Backend_Bound", MERGE_REFINES, 1, "backend" };
		break;
	}
	case SIM_RK_INST_WINDOW:
		e[n++] = (struct expect){ "Backend_Bound>Memory_Bound", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_L2_THR:
		e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>L2_Bound", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_L3_THR:
		e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>L3_Bound", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_MEM_THR:
		e[n++] = (struct expect){ "Backend_Bound>Memory_Bound>DRAM_Bound", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_DIV:
		e[n++] = (struct expect){ "Backend_Bound>Core_Bound>Divider", MERGE_AGREE, 1, NULL };
		break;
	case SIM_RK_BRANCH:
		e[n++] = (struct expect){ "Bad_Speculation>Branch_Mispredicts", MERGE_AGREE, 1, NULL };
		break;
	}
	if (sim_machine_topdown(m) == SIM_TOPDOWN_AMD)
		for (size_t i = 0; i < n; i++)
			e[i].path = amd_path(e[i].path);
	return n;
}

/* NAME is one of the '|' alternatives in [S, E) */
static bool level_has(const char *s, const char *e, const char *name)
{
	size_t nl = strlen(name);
	while (s < e) {
		const char *bar = memchr(s, '|', (size_t)(e - s));
		const char *end = bar ? bar : e;
		if ((size_t)(end - s) == nl && !memcmp(s, name, nl))
			return true;
		s = end + 1;
	}
	return false;
}

static bool path_matches(const struct td_tree *tree, const struct measured *mp, const struct expect *x)
{
	if (mp->depth < x->min_depth)
		return false;
	const char *s = x->path;
	for (int d = 0; d < mp->depth && *s; d++) {
		const char *gt = strchr(s, '>');
		const char *e = gt ? gt : s + strlen(s);
		if (!level_has(s, e, path_name(tree, mp, d)))
			return false;
		s = gt ? gt + 1 : e;
	}
	return true;
}

/* "Backend_Bound > Memory_Bound > L2_Bound/L3_Bound/DRAM_Bound" */
static void expect_text(const struct expect *x, char *buf, size_t n)
{
	buf[0] = 0;
	for (const char *s = x->path; *s && strlen(buf) + 4 < n; s++) {
		if (*s == '>')
			app(buf, n, " > ");
		else
			app(buf, n, "%c", *s == '|' ? '/' : *s);
	}
}

/* the best agreement of any member of the top set with the measured path;
 * for a set, counters show one node, and any member that lives there
 * explains it */
static enum merge_agreement judge(const struct sim_machine *m, const struct sim_analysis *a,
				  const struct sim_set *set, const struct td_tree *tree, const struct measured *mp,
				  char *why, size_t whylen, char *expected, size_t explen)
{
	struct memports ports;
	memory_ports(m, &ports);
	enum merge_agreement best = MERGE_DISAGREE;
	why[0] = expected[0] = 0;
	for (unsigned i = 0; i < set->n && i < 8; i++) {
		struct expect e[MAX_EXPECT];
		size_t ne = expectations(m, a, set->res[i], &ports, e);
		if (ne && !expected[0])
			expect_text(&e[0], expected, explen);
		for (size_t k = 0; k < ne; k++) {
			if (!path_matches(tree, mp, &e[k]))
				continue;
			if (e[k].kind == MERGE_AGREE)
				return MERGE_AGREE;
			if (best != MERGE_REFINES) {
				best = MERGE_REFINES;
				snprintf(why, whylen, LAT_WHY, e[k].why);
			}
			break;
		}
	}
	return best;
}

/* ------------------------------------------------------------ verdict --- */

static const char *reason(const char *why)
{
	return why && *why ? why : "unknown reason";
}

void merge_verdict(const struct td_tree *tree, const char *why_no_measure, const struct sim_machine *m,
		   const struct sim_analysis *a, const char *why_no_model, struct merge_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->measured_value = NAN;
	v->speedup_top = NAN;
	v->gain_upper = NAN;
	for (int l = 0; l < 4; l++)
		v->stall_share[l] = NAN;

	/* the measured side: a tree whose level 1 is not computable says
	 * nothing, which is the same for the verdict as no tree */
	struct measured mp = { .depth = 0 };
	char no_measure[160];
	snprintf(no_measure, sizeof no_measure, "%s", reason(why_no_measure));
	if (tree && tree->table && tree->res) {
		dominant_path(tree, &mp);
		if (!mp.depth)
			snprintf(no_measure, sizeof no_measure, "no level-1 node computable");
	}
	bool have_measure = mp.depth > 0;

	/* the model side: an analysis without sensitivities names no resource */
	char no_model[160];
	snprintf(no_model, sizeof no_model, "%s", reason(why_no_model));
	bool have_model = false;
	if (a && !m)
		snprintf(no_model, sizeof no_model, "no machine model");
	else if (a && (!a->nweights || !a->weights || !a->nsens || !a->sens))
		snprintf(no_model, sizeof no_model, "simulated without a sensitivity analysis");
	else if (a)
		have_model = true;

	char counters[256] = "";
	if (have_measure) {
		char path[192];
		measured_text(tree, &mp, path, sizeof path);
		snprintf(v->measured, sizeof v->measured, "%s", path);
		v->measured_value = tree->res[mp.node[mp.depth - 1]].value;
		measured_line(tree, &mp, path, counters, sizeof counters);
	}

	struct model md = { .top = -1, .best = -1, .top_weight = NAN };
	char model[256] = "";
	if (have_model) {
		model_top(a, &md);
		int shown = md.top >= 0 ? md.top : md.best;
		if (shown >= 0) {
			const struct sim_sensitivity *se = &a->sens[shown];
			v->speedup_top = top_speedup(a, (size_t)shown);
			v->gain_upper = se->upper;
		}
		if (md.top >= 0) {
			const struct sim_sensitivity *se = &a->sens[md.top];
			set_name(m, &se->set, v->resource, sizeof v->resource);
			v->bottleneck = se->bottleneck;
		}
		model_line(m, a, &md, model, sizeof model);
		for (int l = 0; l < 4; l++)
			v->stall_share[l] = stall_share(a, l);
	}

	if (!have_measure && !have_model) {
		v->kind = MERGE_NO_DATA;
		snprintf(v->text, sizeof v->text, "no data (no counters: %s; no simulation: %s)", no_measure,
			 no_model);
		snprintf(v->summary, sizeof v->summary, "no simulation: %s", no_model);
		return;
	}
	if (!have_measure) {
		v->kind = MERGE_NO_MEASURE;
		snprintf(v->text, sizeof v->text, "model only (no counters: %s): %s", no_measure, model);
		snprintf(v->summary, sizeof v->summary, "%s", model);
		return;
	}
	if (!have_model) {
		v->kind = MERGE_NO_MODEL;
		snprintf(v->text, sizeof v->text, "counters only (no simulation: %s): %s", no_model,
			 counters);
		snprintf(v->summary, sizeof v->summary, "counters %s; no simulation: %s", counters, no_model);
		return;
	}

	if (md.top < 0) {
		/* nothing in the model pays: a region that runs as fast as the
		 * machine goes, which counters show as mostly retiring */
		bool retiring = !strcmp(path_name(tree, &mp, 0), "Retiring");
		v->kind = retiring ? MERGE_AGREE : MERGE_DISAGREE;
		snprintf(v->text, sizeof v->text, "%s: counters %s, model: %s", merge_agreement_name(v->kind), counters,
			 model);
		snprintf(v->summary, sizeof v->summary, "%s: model: %s; counters %s", merge_agreement_name(v->kind),
			 model, counters);
		return;
	}

	char why[160], expected[160];
	v->kind = judge(m, a, &a->sens[md.top].set, tree, &mp, why, sizeof why, expected, sizeof expected);
	switch (v->kind) {
	case MERGE_REFINES:
		snprintf(v->text, sizeof v->text, "refines: counters %s, model %s: %s", counters, model, why);
		break;
	case MERGE_DISAGREE:
		snprintf(v->text, sizeof v->text, "disagree: counters %s, model %s: counters would show it as %s",
			 counters, model, expected[0] ? expected : "another node");
		break;
	default:
		snprintf(v->text, sizeof v->text, "agree: counters %s, model %s", counters, model);
		break;
	}
	snprintf(v->summary, sizeof v->summary, "%s: model %s; counters %s", merge_agreement_name(v->kind), model,
		 counters);
}
