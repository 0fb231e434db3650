/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SPIRE samples of a recording made with gus record --spire (or
 * --import-intervals): its interval counts as a sample set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "recording.h"
#include "spire.h"

struct rec_reader {
	struct spire_sampleset *ss;
	struct spire_count *c;
	char **names;
	size_t n, cap;
	double time;
	char *err;
	size_t errlen;
};

static void rec_clear(struct rec_reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	r->n = 0;
}

static int rec_flush(struct rec_reader *r)
{
	int rc = r->n ? spire_sampleset_add_interval(r->ss, r->c, r->n, r->err, r->errlen) : 0;
	rec_clear(r);
	return rc;
}

static int rec_row(void *ctx, const struct gusdata_interval_count *ic)
{
	struct rec_reader *r = ctx;
	if (r->n && ic->time != r->time && rec_flush(r))
		return -1;
	r->time = ic->time;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct spire_count *c = realloc(r->c, cap * sizeof(*c));
		if (c)
			r->c = c;
		char **nm = realloc(r->names, cap * sizeof(*nm));
		if (nm)
			r->names = nm;
		if (!c || !nm) {
			snprintf(r->err, r->errlen, "out of memory");
			return -1;
		}
		r->cap = cap;
	}
	char *name = strdup(ic->event);
	if (!name) {
		snprintf(r->err, r->errlen, "out of memory");
		return -1;
	}
	/* stored raw, as counted; the sample set takes scaled values as perf prints them */
	bool counted = ic->running > 0 && ic->enabled > 0;
	r->names[r->n] = name;
	r->c[r->n++] = (struct spire_count){
		.time = ic->time,
		.id = "",
		.event = name,
		.value = counted ? ic->value * ic->enabled / ic->running : 0,
		.enabled = ic->enabled,
		.running = ic->running,
		.counted = counted,
	};
	return 0;
}

int recording_spire_samples(struct gusdata *d, struct spire_sampleset *ss, char *err, size_t errlen)
{
	const char *rec_time = gusdata_meta(d, "spire.time");
	if (rec_time && !spire_is_time_event(rec_time, ss->time_event)) {
		snprintf(err, errlen, "%s: recorded with T = %s, not %s", gusdata_path(d), rec_time, ss->time_event);
		return -1;
	}
	const char *rec_work = gusdata_meta(d, "spire.work");
	if (rec_work && !spire_is_work_event(rec_work, ss->work_event)) {
		snprintf(err, errlen, "%s: recorded with W = %s, not %s", gusdata_path(d), rec_work, ss->work_event);
		return -1;
	}
	const char *cpu = gusdata_meta(d, "spire.cpu");
	if (cpu && !ss->cpu && spire_sampleset_set_cpu(ss, cpu)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct rec_reader r = { .ss = ss, .err = err, .errlen = errlen };
	err[0] = 0;
	int rc = gusdata_foreach_interval_count(d, rec_row, &r);
	if (!rc)
		rc = rec_flush(&r);
	else if (!err[0])
		snprintf(err, errlen, "%s: cannot read the interval counts: %s", gusdata_path(d), gusdata_errmsg(d));
	rec_clear(&r);
	free(r.c);
	free(r.names);
	return rc;
}

