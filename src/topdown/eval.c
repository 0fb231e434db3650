/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Count set -> TMA tree: scaling, node values, flags, bottleneck path. */
#include "td_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void td_countset_init(struct td_countset *cs)
{
	memset(cs, 0, sizeof(*cs));
}

void td_countset_free(struct td_countset *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->c[i].event);
		free(cs->c[i].why_not);
	}
	free(cs->c);
	td_countset_init(cs);
}

static struct td_count *countset_push(struct td_countset *cs, const char *event)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 32;
		struct td_count *n = realloc(cs->c, cap * sizeof(*n));
		if (!n)
			return NULL;
		cs->c = n;
		cs->cap = cap;
	}
	struct td_count *c = &cs->c[cs->n];
	memset(c, 0, sizeof(*c));
	if (!(c->event = td_strdup(event)))
		return NULL;
	cs->n++;
	return c;
}

int td_countset_add(struct td_countset *cs, const char *event, double raw,
		    double enabled, double running)
{
	struct td_count *c = countset_push(cs, event);
	if (!c)
		return -1;
	c->raw = raw;
	c->enabled = enabled;
	c->running = running;
	c->counted = true;
	return 0;
}

int td_countset_add_uncounted(struct td_countset *cs, const char *event, const char *why)
{
	struct td_count *c = countset_push(cs, event);
	if (!c)
		return -1;
	c->why_not = td_strdup(why ? why : "not counted");
	return c->why_not ? 0 : -1;
}

void td_tree_free(struct td_tree *tree)
{
	free(tree->res);
	free(tree->ev_value);
	free(tree->ev_raw);
	free(tree->ev_enabled);
	free(tree->ev_running);
	free(tree->ev_counted);
	memset(tree, 0, sizeof(*tree));
}

static bool node_selected(const struct td_table *t, const struct td_eval_opts *o, size_t i)
{
	if (o->select)
		return o->select[i];
	return t->nodes[i].level <= o->max_level;
}

bool *td_select_nodes(const struct td_table *t, int max_level, const char *list,
		      char *err, size_t errlen)
{
	bool *sel = calloc(t->n_nodes, sizeof(*sel));
	if (!sel) {
		td_seterr(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < t->n_nodes; i++)
		sel[i] = t->nodes[i].level <= max_level;
	if (!list || !*list)
		return sel;
	char *copy = td_strdup(list), *save = NULL;
	for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		int i = td_node_index(t, n);
		if (i < 0) {
			td_seterr(err, errlen, "unknown TMA node '%s' for %s (gus-stat(1) lists the nodes)",
				  n, t->id);
			free(copy);
			free(sel);
			return NULL;
		}
		/* a node is shown with its ancestors: siblings compare, parents gate */
		for (; i >= 0; i = t->nodes[i].parent)
			sel[i] = true;
	}
	free(copy);
	return sel;
}

void td_needed_events(const struct td_table *t, const bool *select, bool smt_on, bool *needed)
{
	const uint64_t any_thread = 1ull << 21;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (select[i])
			for (size_t e = 0; e < t->n_events; e++)
				if (t->nodes[i].uses[e] && (smt_on || !(t->events[e].config & any_thread)))
					needed[e] = true;
}

/* Several entries for one event (one per group or per run): each is scaled
 * on its own, and the tree sees their mean. */
static int gather_counts(const struct td_table *t, const struct td_countset *cs,
			 struct td_tree *tr, const char **why_not)
{
	size_t ne = t->n_events ? t->n_events : 1;
	int *k = calloc(ne, sizeof(*k));
	if (!k)
		return -1;
	for (size_t e = 0; e < t->n_events; e++)
		tr->ev_value[e] = NAN;
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		int e = td_table_find_event(t, c->event);
		if (e < 0)
			continue;
		if (!c->counted || (c->running <= 0 && c->enabled > 0)) {
			if (!why_not[e])
				why_not[e] = c->counted ? "never scheduled on a counter" : c->why_not;
			continue;
		}
		double scaled = c->running > 0 ? c->raw * c->enabled / c->running : c->raw;
		tr->ev_value[e] = k[e] ? tr->ev_value[e] + scaled : scaled;
		tr->ev_raw[e] += c->raw;
		tr->ev_enabled[e] += c->enabled;
		tr->ev_running[e] += c->running;
		tr->ev_counted[e] = true;
		k[e]++;
	}
	for (size_t e = 0; e < t->n_events; e++)
		if (k[e] > 1)
			tr->ev_value[e] /= k[e];
	free(k);
	return 0;
}

static void mark_path(const struct td_table *t, struct td_result *res, int parent)
{
	int best = -1;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].parent == parent && res[i].flagged &&
		    (best < 0 || res[i].value > res[best].value))
			best = (int)i;
	if (best < 0)
		return;
	int on_path = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].parent == parent && res[i].flagged &&
		    res[best].value - res[i].value <= TD_CANDIDATE_GAP + 1e-9) {
			res[i].bottleneck = true;
			on_path++;
		}
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].parent == parent && res[i].bottleneck) {
			res[i].candidate = on_path > 1;
			mark_path(t, res, (int)i);
		}
}

int td_eval(const struct td_table *t, const struct td_countset *cs,
	    const struct td_eval_opts *opts, struct td_tree *tr, char *err, size_t errlen)
{
	size_t ne = t->n_events ? t->n_events : 1;
	memset(tr, 0, sizeof(*tr));
	tr->table = t;
	tr->max_level = opts->max_level;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (opts->select && opts->select[i] && t->nodes[i].level > tr->max_level)
			tr->max_level = t->nodes[i].level;
	tr->res = calloc(t->n_nodes, sizeof(*tr->res));
	tr->ev_value = calloc(ne, sizeof(double));
	tr->ev_raw = calloc(ne, sizeof(double));
	tr->ev_enabled = calloc(ne, sizeof(double));
	tr->ev_running = calloc(ne, sizeof(double));
	tr->ev_counted = calloc(ne, sizeof(bool));
	const char **why_not = calloc(ne, sizeof(*why_not));
	struct td_evalctx cx = {
		.t = t,
		.smt_on = opts->smt_on,
		.met_val = calloc(t->n_metrics + 1, sizeof(double)),
		.met_state = calloc(t->n_metrics + 1, sizeof(int)),
		.node_val = calloc(t->n_nodes, sizeof(double)),
		.node_state = calloc(t->n_nodes, sizeof(int)),
	};
	int rc = -1;
	if (!tr->res || !tr->ev_value || !tr->ev_raw || !tr->ev_enabled || !tr->ev_running ||
	    !tr->ev_counted || !why_not || !cx.met_val || !cx.met_state || !cx.node_val ||
	    !cx.node_state || gather_counts(t, cs, tr, why_not)) {
		td_seterr(err, errlen, "out of memory");
		goto out;
	}
	cx.ev = tr->ev_value;

	for (size_t i = 0; i < t->n_nodes; i++) {
		struct td_result *r = &tr->res[i];
		const struct td_node *nd = &t->nodes[i];
		if (!node_selected(t, opts, i)) {
			r->status = TD_NOT_SELECTED;
			r->value = NAN;
			continue;
		}
		/* fresh memo per node, so that each node's notes are its own */
		memset(cx.met_state, 0, (t->n_metrics + 1) * sizeof(int));
		memset(cx.node_state, 0, t->n_nodes * sizeof(int));
		cx.missing_event = cx.opt_missing_event = -1;
		cx.div0 = false;
		r->value = td_eval_node((int)i, &cx);
		r->mux = 1.0;
		for (size_t e = 0; e < t->n_events; e++)
			if (nd->uses[e] && tr->ev_counted[e] && tr->ev_enabled[e] > 0) {
				double m = tr->ev_running[e] / tr->ev_enabled[e];
				if (m < r->mux)
					r->mux = m;
			}
		if (isnan(r->value) || isinf(r->value)) {
			r->status = TD_NOT_COMPUTABLE;
			if (cx.missing_event >= 0) {
				const char *w = why_not[cx.missing_event];
				snprintf(r->note, sizeof(r->note), "needs %s (%s)",
					 t->events[cx.missing_event].name, w ? w : "missing from the counts");
			} else if (cx.div0) {
				snprintf(r->note, sizeof(r->note), "division by zero (no cycles counted?)");
			} else {
				snprintf(r->note, sizeof(r->note), "not a number");
			}
			r->value = NAN;
			continue;
		}
		if (r->value < -TD_RANGE_SLACK || r->value > 1 + TD_RANGE_SLACK) {
			r->status = TD_MISMEASURED;
			if (r->mux < 0.999)
				snprintf(r->note, sizeof(r->note),
					 "mismeasured: outside [-5%%,105%%]; events multiplexed, counted %.0f%% of the time",
					 r->mux * 100);
			else if (opts->smt_on)
				snprintf(r->note, sizeof(r->note),
					 "mismeasured: outside [-5%%,105%%]; SMT is on and the sibling thread shares the core's counters");
			else
				snprintf(r->note, sizeof(r->note),
					 "mismeasured: outside [-5%%,105%%]; counts are inconsistent with each other");
		} else {
			r->status = TD_OK;
		}
		if (cx.opt_missing_event >= 0 && !r->note[0])
			snprintf(r->note, sizeof(r->note), "computed without %s (not counted)",
				 t->events[cx.opt_missing_event].name);
	}

	int n1 = 0, ok1 = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].level == 1) {
			n1++;
			if (tr->res[i].status == TD_OK || tr->res[i].status == TD_MISMEASURED) {
				tr->level1_sum += tr->res[i].value;
				ok1++;
			}
		}
	if (ok1 == n1 && n1 > 0)
		tr->level1_sum_bad = fabs(tr->level1_sum - 1.0) > TD_RANGE_SLACK;
	else
		tr->level1_sum = NAN;

	/* parents precede children in a table, so one pass applies the
	 * hierarchy: a child is flagged only below a flagged parent */
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct td_result *r = &tr->res[i];
		int p = t->nodes[i].parent;
		r->flagged = r->status == TD_OK && r->value > t->nodes[i].threshold &&
			     (p < 0 || tr->res[p].flagged) && !tr->level1_sum_bad;
	}
	mark_path(t, tr->res, -1);
	rc = 0;
out:
	free(why_not);
	free(cx.met_val);
	free(cx.met_state);
	free(cx.node_val);
	free(cx.node_state);
	if (rc)
		td_tree_free(tr);
	return rc;
}
