/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE samples from recordings made with gus record --spire (or
 * --import-intervals) and from perf stat -I -x, output, for gus spire and
 * gus report --spire. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gusdata.h"
#include "rec_internal.h"
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


static bool is_sqlite_file(const char *path)
{
	char head[16] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t got = fread(head, 1, sizeof(head), f);
	fclose(f);
	return got == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

/* T and W as the first input names them (a recording's meta, or the
 * "# time:" and "# work:" lines gus stat -I --spire writes), so that
 * training needs no --time/--work for samples of other events. */
void recording_spire_first_tw(const char *path, char *time, char *work, size_t n)
{
	char err[512];
	time[0] = work[0] = 0;
	if (is_sqlite_file(path)) {
		struct gusdata *d;
		if (gusdata_open(path, false, &d, err, sizeof err))
			return;
		const char *t = gusdata_meta(d, "spire.time");
		snprintf(time, n, "%s", t ? t : "");
		const char *w = gusdata_meta(d, "spire.work");
		snprintf(work, n, "%s", w ? w : "");
		gusdata_close(d);
		return;
	}
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : NULL;
	char line[512];
	while (f && fgets(line, sizeof line, f) && line[0] == '#') {
		line[strcspn(line, "\r\n")] = 0;
		if (!strncmp(line, "# time: ", 8))
			snprintf(time, n, "%s", line + 8);
		else if (!strncmp(line, "# work: ", 8))
			snprintf(work, n, "%s", line + 8);
	}
	if (f)
		fclose(f);
}

static size_t sample_count(const struct spire_sampleset *ss)
{
	size_t n = 0;
	for (size_t k = 0; k < ss->n; k++)
		n += ss->metrics[k].n;
	return n;
}

/* One input into SS; its own CPU (from its "# cpu:" line or meta, NULL
 * when it names none) into *FILE_CPU. 0, or -1 with the error logged. */
static int load_one(const char *path, struct spire_sampleset *ss, char **file_cpu, const struct recording_log *log)
{
	char err[SPIRE_ERRLEN];
	int rc = -1;
	/* the importers set the CPU only when the set has none */
	char *before = ss->cpu;
	ss->cpu = NULL;
	if (is_sqlite_file(path)) {
		struct gusdata *d;
		if (gusdata_open(path, false, &d, err, sizeof(err))) {
			rec_error(log, "%s", err);
		} else if (!gusdata_meta(d, "spire.time")) {
			rec_error(log, "%s: the recording has no SPIRE interval counts (record with gus record --spire)", path);
			gusdata_close(d);
		} else {
			rc = recording_spire_samples(d, ss, err, sizeof(err));
			if (rc)
				rec_error(log, "%s", err);
			gusdata_close(d);
		}
	} else {
		FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
		if (!f) {
			rec_error(log, "cannot open %s: %s", path, strerror(errno));
		} else {
			rc = spire_import_perf_intervals(f, f == stdin ? "<stdin>" : path, ss, err, sizeof(err));
			if (rc)
				rec_error(log, "%s", err);
			if (f != stdin)
				fclose(f);
		}
	}
	*file_cpu = ss->cpu;
	ss->cpu = before;
	return rc;
}

/* Reads every FILE into SS. The CPU: each file's own "# cpu:" line (or a
 * recording's meta), else --cpu; files that disagree are refused. */
enum recording_status recording_spire_load(const char *const *files, size_t nfiles, const char *given_cpu,
					   struct spire_sampleset *ss, const struct recording_log *log)
{
	char *cpu = NULL;	/* the inputs' CPU so far */
	enum recording_status rc = RECORDING_ERROR;
	for (size_t i = 0; i < nfiles; i++) {
		const char *path = files[i];
		size_t before = sample_count(ss);
		char *file_cpu = NULL;
		int r = load_one(path, ss, &file_cpu, log);
		const char *fcpu = file_cpu ? file_cpu : given_cpu;
		if (!r && sample_count(ss) == before)
			rec_warn(log, "%s: no usable sample (every metric needs T and W counted in its group)", path);
		if (r) {
			/* printed */
		} else if (fcpu && given_cpu && strcasecmp(fcpu, given_cpu)) {
			rec_error(log, "%s: the samples say they come from a %s CPU, --cpu says %s", path, fcpu, given_cpu);
			r = -1;
		} else if (fcpu && cpu && strcasecmp(fcpu, cpu)) {
			rec_error(log, "%s: samples from a %s CPU cannot be mixed with samples from a %s CPU", path, fcpu,
				  cpu);
			r = -1;
		} else if (fcpu && !cpu && !(cpu = strdup(fcpu))) {
			r = -1;
		}
		free(file_cpu);
		if (r)
			goto out;
	}
	if (cpu && spire_sampleset_set_cpu(ss, cpu))
		goto out;
	rc = RECORDING_OK;
out:
	free(cpu);
	return rc;
}

