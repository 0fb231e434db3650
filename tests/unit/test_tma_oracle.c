/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hand-written TMA tables (data/tma: clx, icx, spr) are the oracles of
 * the tables generated from the kernel's metric files (tools/tmagen, in
 * GUS_TMAGEN_DIR): on the same counts, every node of a hand table has the
 * same value in the generated one, on many random count sets with SMT off
 * and on, and the generated tables give the published perf --topdown data
 * point. Counts are drawn per public encoding, so two names of one event
 * (UOPS_DECODED.DEC0_C1, UOPS_DECODED.DEC0.c1) count the same. */
#include "tap.h"
#include "topdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char err[TD_ERRLEN];

/* a count in [0.05, 0.6] x 1e9 drawn from the encoding and the seed */
static double draw(uint64_t config, uint64_t config1, unsigned seed)
{
	uint64_t x = config * 0x9e3779b97f4a7c15ull ^ config1 * 0xc2b2ae3d27d4eb4full ^ seed * 0x165667b19e3779f9ull;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 32;
	return (0.05 + 0.55 * (double)(x % 1000003) / 1000003.0) * 1e9;
}

static double value_for(const struct td_table *t, const struct td_event *e, unsigned seed)
{
	const double clk = 1e9;
	if (!strcmp(e->name, "CPU_CLK_UNHALTED.THREAD") || !strcmp(e->name, "CPU_CLK_UNHALTED.THREAD_ANY") ||
	    !strcmp(e->name, "CPU_CLK_UNHALTED.DISTRIBUTED"))
		return clk;
	if (!strcmp(e->name, "CPU_CLK_UNHALTED.REF_XCLK") || !strcmp(e->name, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"))
		return clk / 30;
	if (!strcmp(e->name, "TOPDOWN.SLOTS"))
		return clk * t->width;
	if (e->kind == TD_EV_METRICS)
		return draw(e->config, e->config1, seed) / 1e9 * 255;
	return draw(e->config, e->config1, seed);
}

static void add_counts(struct td_countset *cs, const struct td_table *t, unsigned seed)
{
	for (size_t i = 0; i < t->n_events; i++)
		td_countset_add(cs, t->events[i].name, value_for(t, &t->events[i], seed), 1e9, 1e9);
}

static bool same(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(a));
}

static void oracle(const char *handdir, const char *gendir, const char *id)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.tma", gendir, id);
	struct td_table *hand = td_table_load_arch(handdir, id, err, sizeof err);
	struct td_table *gen = hand ? td_table_load(path, err, sizeof err) : NULL;
	if (!tap_ok(hand && gen, "%s: the hand table and the generated one load (%s)", id, hand && gen ? "" : err)) {
		td_table_free(hand);
		return;
	}
	size_t missing = 0;
	for (size_t i = 0; i < hand->n_nodes; i++)
		if (td_node_index(gen, hand->nodes[i].name) < 0) {
			printf("# %s: %s not in the generated table\n", id, hand->nodes[i].name);
			missing++;
		}
	tap_ok(!missing, "%s: the generated table has all %zu nodes of the hand one (%zu more: the kernel's)", id,
	       hand->n_nodes, gen->n_nodes - hand->n_nodes + missing);
	size_t compared = 0, differ = 0;
	for (int smt = 0; smt <= 1; smt++)
		for (unsigned seed = 1; seed <= 25; seed++) {
			struct td_countset cs;
			td_countset_init(&cs);
			add_counts(&cs, hand, seed);
			add_counts(&cs, gen, seed);
			struct td_eval_opts o = { .max_level = 3, .smt_on = smt };
			struct td_tree a, b;
			if (td_eval(hand, &cs, &o, &a, err, sizeof err) || td_eval(gen, &cs, &o, &b, err, sizeof err)) {
				printf("# eval: %s\n", err);
				differ++;
				td_countset_free(&cs);
				continue;
			}
			for (size_t i = 0; i < hand->n_nodes; i++) {
				int j = td_node_index(gen, hand->nodes[i].name);
				if (j < 0)
					continue;
				compared++;
				if (!same(a.res[i].value, b.res[j].value)) {
					if (differ++ < 5)
						printf("# %s smt=%d seed=%u %s: hand %.9f, generated %.9f\n", id, smt, seed,
						       hand->nodes[i].name, a.res[i].value, b.res[j].value);
				}
			}
			td_tree_free(&a);
			td_tree_free(&b);
			td_countset_free(&cs);
		}
	tap_ok(compared > 1000 && !differ, "%s: %zu node values, hand and generated alike (%zu differ)", id, compared,
	       differ);
	td_table_free(hand);
	td_table_free(gen);
}

/* the published perf --topdown data point on Ice Lake / Sapphire Rapids */
static void published_point(const char *gendir, const char *id)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.tma", gendir, id);
	struct td_table *t = td_table_load(path, err, sizeof err);
	if (!tap_ok(t != NULL, "generated %s loads (%s)", id, t ? "" : err))
		return;
	double ret = 191281317, bad = 11363246, fe = 17044869, be = 263248545;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "slots", ret + bad + fe + be, 1e9, 1e9);
	td_countset_add(&cs, "topdown-retiring", ret, 1e9, 1e9);
	td_countset_add(&cs, "topdown-bad-spec", bad, 1e9, 1e9);
	td_countset_add(&cs, "topdown-fe-bound", fe, 1e9, 1e9);
	td_countset_add(&cs, "topdown-be-bound", be, 1e9, 1e9);
	struct td_eval_opts o = { .max_level = 1 };
	struct td_tree tr;
	if (tap_ok(td_eval(t, &cs, &o, &tr, err, sizeof err) == 0, "generated %s: the data point evaluates", id)) {
		const char *names[] = { "Retiring", "Bad_Speculation", "Frontend_Bound", "Backend_Bound" };
		const double want[] = { 39.6, 2.4, 3.5, 54.5 };
		for (int i = 0; i < 4; i++) {
			int k = td_node_index(t, names[i]);
			tap_near(k < 0 ? NAN : round(tr.res[k].value * 1000) / 10, want[i], 1e-9, "generated %s: %s %.1f %%",
				 id, names[i], want[i]);
		}
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

int main(void)
{
	const char *dd = getenv("GUS_DATADIR"), *gendir = getenv("GUS_TMAGEN_DIR");
	if (!gendir || !*gendir) {
		printf("1..0 # SKIP no generated tables (configured --without-pmu-events)\n");
		return 0;
	}
	char handdir[1024];
	snprintf(handdir, sizeof handdir, "%s/tma/hand", dd ? dd : "data");
	oracle(handdir, gendir, "clx");
	oracle(handdir, gendir, "icx");
	oracle(handdir, gendir, "spr");
	published_point(gendir, "icx");
	published_point(gendir, "spr");
	return tap_done();
}
