/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TMA trees from counts: published data point, level-1 formulas computed
 * independently here, children summing to parents, scaling of multiplexed
 * counts, mismeasured and not-computable nodes, hierarchical flags. */
#include "tap.h"
#include "topdown.h"

#include <stdlib.h>

static char err[TD_ERRLEN], dir[1024];

static struct td_table *load(const char *id)
{
	struct td_table *t = td_table_load_arch(dir, id, err, sizeof(err));
	if (!t)
		printf("# %s\n", err);
	return t;
}

static int eval(const struct td_table *t, const struct td_countset *cs, int level, bool smt,
		struct td_tree *tree)
{
	struct td_eval_opts o = { .max_level = level, .smt_on = smt };
	if (td_eval(t, cs, &o, tree, err, sizeof(err))) {
		printf("# eval: %s\n", err);
		return -1;
	}
	return 0;
}

static double node(const struct td_tree *tr, const char *name)
{
	int i = td_node_index(tr->table, name);
	return i < 0 ? NAN : tr->res[i].value;
}

static const struct td_result *res(const struct td_tree *tr, const char *name)
{
	return &tr->res[td_node_index(tr->table, name)];
}

/* The published perf --topdown data point on Ice Lake / Sapphire Rapids. */
static void published_point(const char *id)
{
	struct td_table *t = load(id);
	if (!tap_ok(t != NULL, "%s table loads", id))
		return;
	double ret = 191281317, bad = 11363246, fe = 17044869, be = 263248545;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "slots", ret + bad + fe + be, 1e9, 1e9);
	td_countset_add(&cs, "topdown-retiring", ret, 1e9, 1e9);
	td_countset_add(&cs, "topdown-bad-spec", bad, 1e9, 1e9);
	td_countset_add(&cs, "topdown-fe-bound", fe, 1e9, 1e9);
	td_countset_add(&cs, "topdown-be-bound", be, 1e9, 1e9);
	struct td_tree tr;
	if (eval(t, &cs, 1, false, &tr) == 0) {
		tap_near(round(node(&tr, "Retiring") * 1000) / 10, 39.6, 1e-9, "%s: Retiring 39.6 %%", id);
		tap_near(round(node(&tr, "Bad_Speculation") * 1000) / 10, 2.4, 1e-9, "%s: Bad Speculation 2.4 %%", id);
		tap_near(round(node(&tr, "Frontend_Bound") * 1000) / 10, 3.5, 1e-9, "%s: Frontend Bound 3.5 %%", id);
		tap_near(round(node(&tr, "Backend_Bound") * 1000) / 10, 54.5, 1e-9, "%s: Backend Bound 54.5 %%", id);
		tap_ok(res(&tr, "Backend_Bound")->bottleneck && !res(&tr, "Retiring")->bottleneck,
		       "%s: Backend Bound is the bottleneck", id);
		tap_ok(strstr(res(&tr, "Frontend_Bound")->note, "without") != NULL,
		       "%s: Frontend Bound says which correction was not counted (%s)", id,
		       res(&tr, "Frontend_Bound")->note);
		tap_near(tr.level1_sum, 1.0, 0.005, "%s: level 1 sums to 100 %%", id);
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

/* Skylake-class level 1 from Yasin's formulas, computed here. */
static void clx_level1(void)
{
	struct td_table *t = load("clx");
	if (!t)
		return;
	double clk = 1e9, idq = 0.6e9, issued = 2.3e9, slots_ret = 2.0e9, recovery = 0.02e9;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "cpu_clk_unhalted.thread", clk, 5e8, 5e8);
	td_countset_add(&cs, "IDQ_UOPS_NOT_DELIVERED:CORE", idq, 5e8, 5e8);
	td_countset_add(&cs, "uops_issued.any", issued, 5e8, 5e8);
	td_countset_add(&cs, "UOPS_RETIRED.RETIRE_SLOTS", slots_ret, 5e8, 5e8);
	td_countset_add(&cs, "int_misc.recovery_cycles", recovery, 5e8, 5e8);
	double slots = 4 * clk;
	double fe = idq / slots, bs = (issued - slots_ret + 4 * recovery) / slots, ret = slots_ret / slots;
	struct td_tree tr;
	if (eval(t, &cs, 1, false, &tr) == 0) {
		tap_near(node(&tr, "Frontend_Bound"), fe, 1e-12, "clx: Frontend Bound = IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS");
		tap_near(node(&tr, "Bad_Speculation"), bs, 1e-12, "clx: Bad Speculation = (issued - retired + 4 recovery) / SLOTS");
		tap_near(node(&tr, "Retiring"), ret, 1e-12, "clx: Retiring = RETIRE_SLOTS / SLOTS");
		tap_near(node(&tr, "Backend_Bound"), 1 - fe - bs - ret, 1e-12, "clx: Backend Bound is the rest");
		tap_ok(res(&tr, "Backend_Bound")->bottleneck, "clx: Backend Bound (%.1f %%) is marked",
		       100 * (1 - fe - bs - ret));
		tap_ok(res(&tr, "Retiring")->mux == 1.0, "clx: not multiplexed, ratio 1");
		td_tree_free(&tr);
	}
	/* SMT on: core clocks from THREAD_ANY / 2, recovery from RECOVERY_CYCLES_ANY / 2 */
	td_countset_add(&cs, "CPU_CLK_UNHALTED.THREAD_ANY", 1.6e9, 5e8, 5e8);
	td_countset_add(&cs, "INT_MISC.RECOVERY_CYCLES_ANY", 0.03e9, 5e8, 5e8);
	if (eval(t, &cs, 1, true, &tr) == 0) {
		double cslots = 4 * 1.6e9 / 2;
		tap_near(node(&tr, "Frontend_Bound"), idq / cslots, 1e-12, "clx SMT: slots from THREAD_ANY / 2");
		tap_near(node(&tr, "Bad_Speculation"), (issued - slots_ret + 4 * 0.03e9 / 2) / cslots, 1e-12,
			 "clx SMT: recovery cycles of the core / 2");
		td_tree_free(&tr);
	}
	/* multiplexed: counted a quarter of the time, scaled x4 */
	td_countset_free(&cs);
	td_countset_init(&cs);
	td_countset_add(&cs, "cpu_clk_unhalted.thread", clk, 4e8, 4e8);
	td_countset_add(&cs, "IDQ_UOPS_NOT_DELIVERED.CORE", idq / 4, 4e8, 1e8);
	td_countset_add(&cs, "uops_issued.any", issued, 4e8, 4e8);
	td_countset_add(&cs, "UOPS_RETIRED.RETIRE_SLOTS", slots_ret, 4e8, 4e8);
	td_countset_add(&cs, "int_misc.recovery_cycles", recovery, 4e8, 4e8);
	if (eval(t, &cs, 1, false, &tr) == 0) {
		tap_near(node(&tr, "Frontend_Bound"), fe, 1e-12, "multiplexed count scaled by enabled / running");
		tap_near(res(&tr, "Frontend_Bound")->mux, 0.25, 1e-12, "Frontend Bound carries multiplex ratio 25 %%");
		tap_near(res(&tr, "Backend_Bound")->mux, 0.25, 1e-12, "so does Backend Bound, computed from it");
		tap_near(res(&tr, "Retiring")->mux, 1.0, 1e-12, "Retiring used no multiplexed event");
		td_tree_free(&tr);
	}
	/* a wildly multiplexed event pushes a node out of range: mismeasured, with the reason */
	td_countset_free(&cs);
	td_countset_init(&cs);
	td_countset_add(&cs, "cpu_clk_unhalted.thread", clk, 4e8, 4e8);
	td_countset_add(&cs, "IDQ_UOPS_NOT_DELIVERED.CORE", 3e9, 4e8, 2e8);
	td_countset_add(&cs, "uops_issued.any", issued, 4e8, 4e8);
	td_countset_add(&cs, "UOPS_RETIRED.RETIRE_SLOTS", slots_ret, 4e8, 4e8);
	td_countset_add(&cs, "int_misc.recovery_cycles", recovery, 4e8, 4e8);
	if (eval(t, &cs, 1, false, &tr) == 0) {
		const struct td_result *r = res(&tr, "Frontend_Bound");
		tap_near(r->value, 1.5, 1e-12, "out-of-range value is kept, not clamped");
		tap_ok(r->status == TD_MISMEASURED && strstr(r->note, "multiplexed"),
		       "value 150 %% is mismeasured because of multiplexing (%s)", r->note);
		tap_ok(!r->flagged && !r->bottleneck, "a mismeasured node is not called a bottleneck");
		td_tree_free(&tr);
	}
	/* an event missing for a node */
	td_countset_free(&cs);
	td_countset_init(&cs);
	td_countset_add(&cs, "cpu_clk_unhalted.thread", clk, 4e8, 4e8);
	td_countset_add_uncounted(&cs, "IDQ_UOPS_NOT_DELIVERED.CORE", "perf said <not counted>");
	if (eval(t, &cs, 1, false, &tr) == 0) {
		const struct td_result *r = res(&tr, "Frontend_Bound");
		tap_ok(r->status == TD_NOT_COMPUTABLE && isnan(r->value) &&
			       strstr(r->note, "IDQ_UOPS_NOT_DELIVERED.CORE") && strstr(r->note, "not counted"),
		       "not-counted event: node not computable, naming it (%s)", r->note);
		r = res(&tr, "Retiring");
		tap_ok(r->status == TD_NOT_COMPUTABLE && strstr(r->note, "missing from the counts"),
		       "absent event: named as missing (%s)", r->note);
		tap_ok(isnan(tr.level1_sum), "level-1 sum not computable either");
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

/* A consistent count set for a 1e9-cycle run: the pipeline-wide events set
 * by hand (slots 20 % frontend, 10 % bad speculation, 30 % backend, 40 %
 * retiring), every other event a small pseudo-random count. Intel's level-2
 * nodes clamp with max(0, ...), so the sums hold only for consistent counts. */
static double consistent_count(const struct td_table *t, const char *name, unsigned *s)
{
	static const struct { const char *name; double v; } fixed[] = {
		{ "CPU_CLK_UNHALTED.THREAD", 1e9 }, { "CPU_CLK_UNHALTED.THREAD_ANY", 2e9 },
		{ "CPU_CLK_UNHALTED.REF_TSC", 1e9 }, { "INST_RETIRED.ANY", 1.5e9 },
		{ "IDQ_UOPS_NOT_DELIVERED.CORE", 0.8e9 }, { "UOPS_ISSUED.ANY", 2.2e9 },
		{ "UOPS_RETIRED.RETIRE_SLOTS", 1.6e9 }, { "UOPS_RETIRED.SLOTS", 1.6e9 },
		{ "PERF_METRICS.FRONTEND_BOUND", 0.20 }, { "PERF_METRICS.BAD_SPECULATION", 0.10 },
		{ "PERF_METRICS.BACKEND_BOUND", 0.30 }, { "PERF_METRICS.RETIRING", 0.40 },
		{ "PERF_METRICS.FETCH_LATENCY", 0.12 }, { "PERF_METRICS.BRANCH_MISPREDICTS", 0.06 },
		{ "PERF_METRICS.MEMORY_BOUND", 0.15 }, { "PERF_METRICS.HEAVY_OPERATIONS", 0.10 },
	};
	double slots = t->width * 1e9;
	if (!strcmp(name, "TOPDOWN.SLOTS"))
		return slots;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(fixed[i].name, name))
			return strncmp(name, "PERF_METRICS.", 13) ? fixed[i].v : fixed[i].v * slots;
	*s = *s * 1103515245u + 12345u;
	return 1e5 + (double)(*s % 1000) * 1e3;
}

static void children_sum(const char *id)
{
	struct td_table *t = load(id);
	if (!t)
		return;
	struct td_countset cs;
	td_countset_init(&cs);
	unsigned s = 12345;
	for (size_t e = 0; e < t->n_events; e++)
		td_countset_add(&cs, t->events[e].name, consistent_count(t, t->events[e].name, &s), 1e9, 1e9);
	struct td_tree tr;
	if (eval(t, &cs, 3, false, &tr) == 0) {
		static const char *const pairs[][3] = {
			{ "Frontend_Bound", "Fetch_Latency", "Fetch_Bandwidth" },
			{ "Bad_Speculation", "Branch_Mispredicts", "Machine_Clears" },
			{ "Backend_Bound", "Memory_Bound", "Core_Bound" },
			{ "Retiring", "Light_Operations", "Heavy_Operations" },
		};
		for (int i = 0; i < 4; i++) {
			double p = node(&tr, pairs[i][0]), a = node(&tr, pairs[i][1]), b = node(&tr, pairs[i][2]);
			tap_ok(!isnan(p) && !isnan(a) && !isnan(b) && fabs(p - (a + b)) < 1e-9,
			       "%s: %s = %s + %s (%.4f vs %.4f + %.4f)", id, pairs[i][0], pairs[i][1], pairs[i][2],
			       p, a, b);
		}
		tap_near(tr.level1_sum, 1.0, 1e-9, "%s: level 1 sums to 100 %%", id);
		int computed = 0, ok = 0;
		for (size_t i = 0; i < t->n_nodes; i++) {
			computed += tr.res[i].status != TD_NOT_COMPUTABLE;
			ok += tr.res[i].status == TD_OK;
		}
		tap_ok(computed == (int)t->n_nodes, "%s: all %zu nodes computable when every event is counted",
		       id, t->n_nodes);
		tap_ok(ok == (int)t->n_nodes, "%s: and all within [-5 %%, 105 %%] for consistent counts (%d)", id, ok);
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

/* Flags: child only under a flagged parent; siblings within 5 points are candidates. */
static void flags(void)
{
	const char *text =
		"table t \"flags\"\n"
		"event A code=1\nevent B code=2\nevent C code=3\nevent D code=4\nevent X code=5\n"
		"node L1a parent=- unit=slots threshold=0.2 = A\n"
		"node L1b parent=- unit=slots threshold=0.2 = B\n"
		"node L1c parent=- unit=slots threshold=0.2 = 1 - A - B\n"
		"node L2a parent=L1a unit=slots threshold=0.05 = C\n"
		"node L2c parent=L1c unit=slots threshold=0.05 = D\n"
		"node L2x parent=L1c unit=slots threshold=0.05 = X\n";
	struct td_table *t = td_table_parse(text, "flags", err, sizeof(err));
	if (!tap_ok(t != NULL, "flag table parses (%s)", t ? "" : err))
		return;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.40, 0, 0);
	td_countset_add(&cs, "B", 0.10, 0, 0);
	td_countset_add(&cs, "C", 0.30, 0, 0);
	td_countset_add(&cs, "D", 0.20, 0, 0);
	td_countset_add(&cs, "X", 0.17, 0, 0);
	struct td_tree tr;
	if (eval(t, &cs, 3, false, &tr) == 0) {
		tap_ok(res(&tr, "L1c")->bottleneck && !res(&tr, "L1c")->candidate && res(&tr, "L1a")->flagged &&
			       !res(&tr, "L1a")->bottleneck,
		       "L1c (50 %%) is the bottleneck; L1a (40 %%), 10 points below, is flagged but not on the path");
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	/* B under threshold: its child cannot be flagged however large */
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.72, 0, 0);
	td_countset_add(&cs, "B", 0.10, 0, 0);
	td_countset_add(&cs, "C", 0.30, 0, 0);
	td_countset_add(&cs, "D", 0.90, 0, 0);
	td_countset_add(&cs, "X", 0.88, 0, 0);
	if (eval(t, &cs, 3, false, &tr) == 0) {
		tap_ok(res(&tr, "L1a")->bottleneck && !res(&tr, "L1a")->candidate, "L1a (72 %%) alone on the path");
		tap_ok(res(&tr, "L2a")->bottleneck, "its flagged child follows it");
		tap_ok(!res(&tr, "L1c")->flagged && !res(&tr, "L2c")->flagged && !res(&tr, "L2x")->flagged,
		       "children of an unflagged parent (L1c 18 %%) are not flagged, even at 90 %%");
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	/* within 5 points: both candidates; then the path goes down both */
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.44, 0, 0);
	td_countset_add(&cs, "B", 0.10, 0, 0);
	td_countset_add(&cs, "C", 0.30, 0, 0);
	td_countset_add(&cs, "D", 0.20, 0, 0);
	td_countset_add(&cs, "X", 0.17, 0, 0);
	if (eval(t, &cs, 3, false, &tr) == 0) {
		tap_ok(res(&tr, "L1a")->candidate && res(&tr, "L1c")->candidate,
		       "44 %% and 46 %% siblings are both marked candidates");
		tap_ok(res(&tr, "L2c")->candidate && res(&tr, "L2x")->candidate && res(&tr, "L2a")->bottleneck,
		       "the path continues below each candidate");
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	/* level-1 sum far from 100 %: flagged, and no bottleneck marked */
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.40, 0, 0);
	td_countset_add(&cs, "B", 0.10, 0, 0);
	td_table_free(t);
	t = td_table_parse("table t \"s\"\nevent A code=1\nevent B code=2\n"
			   "node P parent=- unit=slots threshold=0.1 = A\nnode Q parent=- unit=slots threshold=0.1 = B\n",
			   "sum", err, sizeof(err));
	if (t && eval(t, &cs, 1, false, &tr) == 0) {
		tap_ok(tr.level1_sum_bad && fabs(tr.level1_sum - 0.5) < 1e-12,
		       "a level-1 sum of 50 %% is reported as mismeasured");
		tap_ok(!res(&tr, "P")->bottleneck, "and then no bottleneck is claimed");
		td_tree_free(&tr);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

int main(void)
{
	const char *dd = getenv("GUS_DATADIR");
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	published_point("icx");
	published_point("spr");
	clx_level1();
	children_sum("clx");
	children_sum("icx");
	children_sum("spr");
	flags();
	return tap_done();
}
