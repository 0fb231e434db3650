/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counting groups: which events go together on the PMU. */
#include "collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void collect_plan_free(struct collect_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		free(plan->ev[i].name);
	free(plan->ev);
	memset(plan, 0, sizeof(*plan));
}

static int plan_add(struct collect_plan *plan, const char *name, const struct perf_event_attr *attr,
		    int group)
{
	struct collect_event *n = realloc(plan->ev, (plan->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	plan->ev = n;
	struct collect_event *e = &plan->ev[plan->n];
	memset(e, 0, sizeof(*e));
	if (!(e->name = strdup(name)))
		return -1;
	e->attr = *attr;
	e->group = group;
	plan->n++;
	if (group + 1 > plan->n_groups)
		plan->n_groups = group + 1;
	return 0;
}

static int encode_table_event(const struct td_event *ev, bool use_pfm, bool user_only,
			      struct perf_event_attr *attr, char *err, size_t errlen)
{
	if (ev->pfm && use_pfm)
		return collect_encode(ev->pfm, user_only, attr, err, errlen);
	/* no libpfm4 name (PERF_METRICS fields, SLOTS), or a table for another
	 * CPU than libpfm4 detected: the public encoding */
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_RAW;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->exclude_kernel = user_only;
	attr->exclude_hv = 1;
	return 0;
}

int collect_plan_tma(const struct td_table *t, const bool *needed, int budget, bool use_pfm,
		     bool user_only, struct collect_plan *plan, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	bool metrics = false;
	int slots = -1;

	memset(plan, 0, sizeof(*plan));
	plan->budget = budget;
	for (size_t e = 0; e < t->n_events; e++) {
		if (needed[e] && t->events[e].kind == TD_EV_METRICS)
			metrics = true;
		if (t->events[e].kind == TD_EV_FIXED && t->events[e].config == 0x0400)
			slots = (int)e;
	}
	if (metrics && slots < 0) {
		snprintf(err, errlen, "%s: PERF_METRICS events need a SLOTS event (config 0x400)",
			 t->origin);
		return -1;
	}
	/* group 0: SLOTS leading the PERF_METRICS fields, with the fixed events */
	if (metrics) {
		if (encode_table_event(&t->events[slots], use_pfm, user_only, &attr, err, errlen) ||
		    plan_add(plan, t->events[slots].name, &attr, 0))
			goto fail;
		plan->ev[plan->n - 1].metrics_leader = true;
		for (size_t e = 0; e < t->n_events; e++)
			if (needed[e] && t->events[e].kind == TD_EV_METRICS)
				if (encode_table_event(&t->events[e], use_pfm, user_only, &attr, err, errlen) ||
				    plan_add(plan, t->events[e].name, &attr, 0))
					goto fail;
	}
	for (size_t e = 0; e < t->n_events; e++)
		if (needed[e] && t->events[e].kind == TD_EV_FIXED && (int)e != slots)
			if (encode_table_event(&t->events[e], use_pfm, user_only, &attr, err, errlen) ||
			    plan_add(plan, t->events[e].name, &attr, 0))
				goto fail;
	/* general events in table order, which keeps a node's events together */
	int group = metrics ? 1 : 0, used = 0;
	for (size_t e = 0; e < t->n_events; e++) {
		if (!needed[e] || t->events[e].kind != TD_EV_GENERAL)
			continue;
		if (used == budget) {
			group++;
			used = 0;
		}
		if (encode_table_event(&t->events[e], use_pfm, user_only, &attr, err, errlen) ||
		    plan_add(plan, t->events[e].name, &attr, group))
			goto fail;
		used++;
	}
	if (!plan->n) {
		snprintf(err, errlen, "no events to count for the selected nodes");
		goto fail;
	}
	return 0;
fail:
	if (!err[0])
		snprintf(err, errlen, "out of memory");
	collect_plan_free(plan);
	return -1;
}

int collect_plan_events(const char *list, bool user_only, struct collect_plan *plan,
			char *err, size_t errlen)
{
	struct perf_event_attr attr;
	memset(plan, 0, sizeof(*plan));
	char *copy = strdup(list);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* split at commas outside cpu/.../ terms */
	char *start = copy;
	int depth = 0, group = 0;
	for (char *p = copy;; p++) {
		if (*p == '/')
			depth = !depth;
		if (*p && (*p != ',' || depth))
			continue;
		bool last = !*p;
		*p = 0;
		if (!*start) {
			snprintf(err, errlen, "empty event name in '%s'", list);
			goto fail;
		}
		if (collect_encode(start, user_only, &attr, err, errlen) ||
		    plan_add(plan, start, &attr, group++))
			goto fail;
		if (last)
			break;
		start = p + 1;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	collect_plan_free(plan);
	return -1;
}
