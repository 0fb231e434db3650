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

int collect_pmu_type(const char *pmu)
{
	const char *dir = getenv("GUS_SYSFS_PMUS");
	char path[512];
	snprintf(path, sizeof path, "%s/%s/type", dir && *dir ? dir : "/sys/bus/event_source/devices", pmu);
	FILE *f = fopen(path, "r");
	int type = -1;
	if (f) {
		if (fscanf(f, "%d", &type) != 1 || type < 0)
			type = -1;
		fclose(f);
	}
	return type;
}

static int encode_table_event(const struct td_table *t, const struct td_event *ev, bool use_pfm, bool user_only,
			      struct perf_event_attr *attr, char *err, size_t errlen)
{
	if (ev->pfm && use_pfm)
		return collect_encode(ev->pfm, user_only, attr, err, errlen);
	/* no libpfm4 name (PERF_METRICS fields, SLOTS), or a table for another
	 * CPU than libpfm4 detected: the public encoding; on a hybrid CPU, on
	 * the PMU of the table's core type, so that it counts only there */
	int type = t->perf_pmu ? collect_pmu_type(t->perf_pmu) : -1;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type >= 0 ? (uint32_t)type : PERF_TYPE_RAW;
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
		if (encode_table_event(t, &t->events[slots], use_pfm, user_only, &attr, err, errlen) ||
		    plan_add(plan, t->events[slots].name, &attr, 0))
			goto fail;
		plan->ev[plan->n - 1].group_read = true;
		for (size_t e = 0; e < t->n_events; e++)
			if (needed[e] && t->events[e].kind == TD_EV_METRICS)
				if (encode_table_event(t, &t->events[e], use_pfm, user_only, &attr, err, errlen) ||
				    plan_add(plan, t->events[e].name, &attr, 0))
					goto fail;
	}
	for (size_t e = 0; e < t->n_events; e++)
		if (needed[e] && t->events[e].kind == TD_EV_FIXED && (int)e != slots)
			if (encode_table_event(t, &t->events[e], use_pfm, user_only, &attr, err, errlen) ||
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
		if (encode_table_event(t, &t->events[e], use_pfm, user_only, &attr, err, errlen) ||
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

char **collect_split_events(const char *list, size_t *n)
{
	size_t items = 1, len = strlen(list);
	int depth = 0;
	for (const char *p = list; *p; p++) {
		if (*p == '/')
			depth = !depth;
		else if (*p == ',' && !depth)
			items++;
	}
	char **v = malloc((items + 1) * sizeof(*v) + len + 1);
	if (!v)
		return NULL;
	char *copy = (char *)(v + items + 1);
	memcpy(copy, list, len + 1);
	size_t k = 0;
	v[k++] = copy;
	depth = 0;
	for (char *p = copy; *p; p++) {
		if (*p == '/')
			depth = !depth;
		else if (*p == ',' && !depth) {
			*p = 0;
			v[k++] = p + 1;
		}
	}
	v[k] = NULL;
	*n = k;
	return v;
}

int collect_plan_events(const char *list, bool user_only, struct collect_plan *plan,
			char *err, size_t errlen)
{
	struct perf_event_attr attr;
	size_t n;
	memset(plan, 0, sizeof(*plan));
	char **items = collect_split_events(list, &n);
	if (!items) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!*items[i]) {
			snprintf(err, errlen, "empty event name in '%s'", list);
			goto fail;
		}
		if (collect_encode(items[i], user_only, &attr, err, errlen) ||
		    plan_add(plan, items[i], &attr, (int)i))
			goto fail;
	}
	free(items);
	plan->each_alone = true;
	return 0;
fail:
	free(items);
	collect_plan_free(plan);
	return -1;
}

/* an event of a SPIRE group, encoded as given (libpfm4, software, raw) */
static int spire_add(struct collect_plan *plan, const char *encode, const char *name, int group,
		     bool user_only, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	if (collect_encode(encode, user_only, &attr, err, errlen))
		return -1;
	return plan_add(plan, name, &attr, group);
}

int collect_plan_spire(const char *time, const char *time_name, const char *work, const char *work_name,
		       const char *const *events, const char *const *names, size_t n, int budget,
		       bool user_only, struct collect_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	err[0] = 0;
	if (!time_name)
		time_name = time;
	if (!work_name)
		work_name = work;
	if (budget < 1) {
		snprintf(err, errlen, "SPIRE groups: no counter left for the metrics (budget %d)", budget);
		return -1;
	}
	if (!n) {
		snprintf(err, errlen, "SPIRE groups: no metrics to count");
		return -1;
	}
	if (!strcmp(time_name, work_name)) {
		snprintf(err, errlen, "SPIRE groups: the time and work events are the same (%s)", time_name);
		return -1;
	}
	plan->budget = budget;
	for (size_t i = 0; i < n; i++) {
		const char *name = names && names[i] ? names[i] : events[i];
		if (!strcmp(name, time_name) || !strcmp(name, work_name)) {
			snprintf(err, errlen, "SPIRE groups: metric %s is the %s event", name,
				 strcmp(name, time_name) ? "work" : "time");
			goto fail;
		}
		int group = (int)(i / (size_t)budget);
		if (i % (size_t)budget == 0) {
			if (spire_add(plan, time, time_name, group, user_only, err, errlen) ||
			    spire_add(plan, work, work_name, group, user_only, err, errlen))
				goto fail;
			/* the group is read at once (PERF_FORMAT_GROUP, as count.c
			 * reads a PERF_METRICS group): T, W and M of a sample come
			 * from one read, with one enabled and running time */
			plan->ev[plan->n - 2].group_read = true;
		}
		if (spire_add(plan, events[i], name, group, user_only, err, errlen))
			goto fail;
	}
	return 0;
fail:
	if (!err[0])
		snprintf(err, errlen, "out of memory");
	collect_plan_free(plan);
	return -1;
}

bool collect_event_is_clock(const struct collect_event *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_TASK_CLOCK || e->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}
