/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A region's stream as gus report takes it (report_internal.h, report.h):
 * where its windows come from, how much of the run they cover when the
 * trace stops short of it (gus record's --max-insns, Ctrl-C, a failed
 * trace run), the line that says so, and the same stream for gus sim
 * --trace -i, so that both commands give one answer per region. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "report.h"
#include "report_internal.h"

long report_traced_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end)
{
	const char *list = gusdata_meta(d, "trace.ranges");
	long r = 0;
	for (const char *p = list; p && *p; r++) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		unsigned long long s, e;
		int used = 0;
		if (sscanf(p, "%llx %llx %n", &s, &e, &used) == 2 && used > 0 && (size_t)used <= len &&
		    len - (size_t)used == strlen(file) && !strncmp(p + used, file, len - (size_t)used) && s <= start &&
		    end <= e)
			return r;
		p += len + (eol != NULL);
	}
	return -1;
}

/* the line of LIST whose first field is TAG: the rest of it into OUT */
static bool tagged_line(const char *list, long tag, char *out, size_t n)
{
	for (const char *p = list; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		long t;
		int used = 0;
		if (sscanf(p, "%ld %n", &t, &used) == 1 && used > 0 && (size_t)used <= len && t == tag) {
			snprintf(out, n, "%.*s", (int)(len - (size_t)used), p + used);
			return true;
		}
		p += len + (eol != NULL);
	}
	return false;
}

long report_stepped_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end, char *why,
			  size_t whylen)
{
	char line[PATH_MAX + 64];
	long found = recording_stepped_range(d, file, start, end);
	if (found >= 0 && why && whylen) {
		/* gusdata_meta's value lasts until its next call */
		if (!tagged_line(gusdata_meta(d, "trace.step.why"), found, line, sizeof line))
			snprintf(line, sizeof line, "not said");
		snprintf(why, whylen, "%s", line);
	}
	return found;
}

/* whether RANGE is a window tag of the native stepper's */
static bool stepped_tag(struct gusdata *d, long range)
{
	char line[PATH_MAX + 64];
	return range >= 0 && tagged_line(gusdata_meta(d, "trace.step.ranges"), range, line, sizeof line);
}

bool report_trace_source_of(struct gusdata *d, const char *tracer, const char *file, uint64_t start, uint64_t end,
			    struct report_trace_source *src, long *range)
{
	uint64_t records = 0, per_level = 0;
	if (!strcmp(tracer, "qemu") && (*range = report_stepped_range(d, file, start, end, NULL, 0)) >= 0) {
		/* the stepper's windows: window J stands for 2^(J / PER_LEVEL)
		 * of the hits of its sampling */
		char line[64];
		unsigned long k = 0;
		*src = (struct report_trace_source){ .d = d, .stepped = true, .per_level = 1u << 24 };
		if (tagged_line(gusdata_meta(d, "trace.step.windows_per_level"), *range, line, sizeof line) &&
		    sscanf(line, "%lu", &k) == 1 && k >= 1 && k <= 4096)
			src->per_level = (unsigned)k;
		if (!gusdata_meta_u64(d, "trace.step.window_records", &src->window_records) || !src->window_records)
			src->window_records = 1000;
		return true;
	}
	bool said = gusdata_meta_u64(d, "trace.window_records", &records);
	*src = (struct report_trace_source){ .d = d, .pt = strcmp(tracer, "qemu") != 0 };
	*range = -1;
	if (!gusdata_meta_u64(d, "trace.windows_per_level", &per_level) || !per_level || per_level > 4096)
		per_level = src->pt ? REPORT_PT_WINDOWS_PER_LEVEL : 16;
	src->per_level = (unsigned)per_level;
	if (src->pt) {
		if (said && !records)
			return false;
		src->window_records = records ? records : REPORT_PT_WINDOW_RECORDS;
		*range = 0;
		return true;
	}
	src->window_records = records;
	*range = report_traced_range(d, file, start, end);
	return said && records && *range >= 0;
}

/* trace.coverage's line of RANGE: "RANGE BEFORE ALL" (gus-data(5)); false
 * when it has none or it makes no sense (the recording is untrusted) */
static bool range_coverage(const char *list, long range, double *before, double *all)
{
	for (const char *p = list; p && *p;) {
		long r;
		double b, a;
		if (sscanf(p, "%ld %lf %lf", &r, &b, &a) == 3 && r == range)
			return isfinite(b) && isfinite(a) && b >= 0 && a >= b && (*before = b, *all = a, true);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

double report_trace_covers(struct gusdata *d)
{
	double sum_before = 0, sum_all = 0;
	for (const char *p = gusdata_meta(d, "trace.coverage"); p && *p;) {
		long r;
		double b, a;
		if (sscanf(p, "%ld %lf %lf", &r, &b, &a) != 3 || !isfinite(b) || !isfinite(a) || b < 0 || a < b)
			return NAN;
		sum_before += b;
		sum_all += a;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return sum_all > 0 ? sum_before / sum_all : NAN;
}

/* a share as the report prints it: "12 %", "0.4 %", "99.7 %" */
static void share_text(double f, char *buf, size_t n)
{
	double p = 100 * f;
	if (p > 0 && p < 0.1)
		snprintf(buf, n, "under 0.1 %%");
	else if ((p > 0 && p < 1) || (p >= 99.5 && f < 1))
		snprintf(buf, n, "%.1f %%", p);
	else
		snprintf(buf, n, "%.0f %%", p);
}

static double meta_seconds(struct gusdata *d, const char *key)
{
	uint64_t v;
	return gusdata_meta_u64(d, key, &v) ? (double)v / 1000 : NAN;
}

void report_cover_of(struct gusdata *d, const char *tracer, const char *stage, long range, bool windows,
		     struct report_cover *c)
{
	memset(c, 0, sizeof *c);
	c->windows = windows;
	c->covers = windows ? 1 : NAN;
	if (windows && stepped_tag(d, range)) {
		/* run 3's sampling spread them over its whole run */
		c->stepped = true;
		if (!tagged_line(gusdata_meta(d, "trace.step.why"), range, c->why, sizeof c->why))
			snprintf(c->why, sizeof c->why, "not said");
		snprintf(c->over, sizeof c->over, " from windows where run 3's sampling found a thread in it, over the "
			 "whole run");
		char failed[400] = "";
		const char *fv = gusdata_meta(d, "trace.step.failed");
		if (fv)
			snprintf(failed, sizeof failed, "%s", fv);
		if (gusdata_meta(d, "trace.step.interrupted")) {
			c->covers = NAN;
			snprintf(c->over, sizeof c->over, " from windows where run 3's sampling found a thread in it, up to "
				 "where Ctrl-C stopped it");
			snprintf(c->cut, sizeof c->cut, "run 3 was interrupted (Ctrl-C): how much of the whole run its "
				 "windows cover is not known");
		} else if (failed[0] || (stage && !strcmp(stage, "tracing"))) {
			c->covers = NAN;
			snprintf(c->over, sizeof c->over, " from windows where run 3's sampling found a thread in it, up to "
				 "where it ended");
			snprintf(c->cut, sizeof c->cut, "run 3 did not end well (%.300s): how much of the whole run its "
				 "windows cover is not known", failed[0] ? failed : "gus record was stopped during it");
		}
		return;
	}
	if (!windows) {
		snprintf(c->over, sizeof c->over, " (its first ones)");
		return;
	}
	snprintf(c->over, sizeof c->over, " from windows spread over the whole run");
	/* Intel PT traced the sample run itself: whatever of the program ran,
	 * the trace holds */
	if (strcmp(tracer, "qemu"))
		return;
	/* gusdata_meta's value lasts until its next call: copied */
	bool stopped = gusdata_meta(d, "trace.stopped") != NULL;
	char missing[320] = "";
	const char *mv = gusdata_meta(d, "missing.trace");
	if (mv)
		snprintf(missing, sizeof missing, "%s", mv);
	bool interrupted = gusdata_meta(d, "trace.interrupted") != NULL;
	double stop = meta_seconds(d, "trace.stopped_x1000"), run = meta_seconds(d, "trace.seconds_x1000");
	double before, all;
	char share[32], at[64] = "", of[64] = "";
	if (isfinite(stop))
		snprintf(at, sizeof at, " %.2f s into the traced run", stop);
	if (isfinite(run))
		snprintf(of, sizeof of, " (%.2f s)", run);
	if (stopped && range >= 0 && range_coverage(gusdata_meta(d, "trace.coverage"), range, &before, &all)) {
		if (!(all > 0)) {
			/* the traced run never ran the range: no cut of it */
			c->covers = NAN;
			return;
		}
		c->at_most = interrupted;
		if (before >= all && !interrupted)
			return;
		c->covers = before / all;
		share_text(c->covers, share, sizeof share);
		snprintf(c->over, sizeof c->over, " from windows spread over %sthe first %s of the run", interrupted ? "at most " : "",
			 share);
		if (before > 0)
			snprintf(c->cut, sizeof c->cut, "the trace's windows filled --max-insns%s, which went on untraced %s%s: %s%s of "
				 "the records of this region's traced range ran before", at,
				 interrupted ? "until Ctrl-C stopped it" : "to its end", of, interrupted ? "at most " : "", share);
		else
			snprintf(c->cut, sizeof c->cut, "the trace's windows filled --max-insns%s, before the run reached this "
				 "region; it went on untraced %s%s", at, interrupted ? "until Ctrl-C stopped it" : "to its end", of);
		return;
	}
	c->covers = NAN;
	if (stopped) {
		/* a recording of a gus record that stopped the run there */
		snprintf(c->over, sizeof c->over, " from windows spread over the run up to where the trace stopped");
		snprintf(c->cut, sizeof c->cut, "the trace's windows reached --max-insns%s and the traced run was stopped there: "
			 "how much of the run that is, this recording does not say", at);
	} else if (interrupted) {
		snprintf(c->over, sizeof c->over, " from windows spread over the run up to where Ctrl-C stopped it");
		char in[64] = "";
		if (isfinite(run))
			snprintf(in, sizeof in, " %.2f s in", run);
		snprintf(c->cut, sizeof c->cut, "the traced run was interrupted (Ctrl-C)%s: the windows cover it up to there, "
			 "how much of the whole run that is is not known", in);
	} else if (stage && !strcmp(stage, "tracing")) {
		snprintf(c->over, sizeof c->over, " from windows spread over the run up to where gus record was stopped");
		snprintf(c->cut, sizeof c->cut, "gus record was stopped during the trace run: the windows cover it up to there, "
			 "how much of the whole run that is is not known");
	} else if (missing[0]) {
		snprintf(c->over, sizeof c->over, " from windows spread over the run up to where its trace ends");
		snprintf(c->cut, sizeof c->cut, "the trace run did not end well (%.300s): the windows cover it up to there, how "
			 "much of the whole run that is is not known", missing);
	} else {
		c->covers = 1;
	}
}

void report_stream_line(struct gusdata *d, const char *tracer, const char *input, size_t n, bool data_addresses,
			long long gaps, const struct report_cover *c, char *out, size_t len)
{
	const char *mem = gusdata_meta(d, "trace.data_addresses");
	/* a smaller sample for a region of a small share: said, as its
	 * standard error says what it costs */
	char budget[128] = "";
	if (c->budget && c->windows)
		snprintf(budget, sizeof budget, " (at most %zu for a region of %.1f %% of the samples)", c->budget,
			 100 * c->share);
	char gap[48] = "";
	if (gaps >= 0)
		snprintf(gap, sizeof gap, "%lld gap(s), ", gaps);
	if (c->stepped)
		snprintf(out, len, "native single-stepping (ptrace) in run 3%s%s, %zu instructions in the region%s, "
			 "picked by the time they stand for%s, data addresses %s, stepped because %s%s%s",
			 input ? " recorded in " : "", input ? input : "", n, c->over, budget,
			 !data_addresses || (mem && !strcmp(mem, "no")) ? "not used" : "known", c->why, c->cut[0] ? "; " : "",
			 c->cut);
	else if (!strcmp(tracer, "qemu"))
		snprintf(out, len, "QEMU trace%s%s, %zu instructions in the region%s%s%s, data addresses %s%s%s",
			 input ? " recorded in " : "", input ? input : "", n, c->over,
			 c->windows ? ", picked by the time they stand for" : "", budget,
			 !data_addresses || (mem && !strcmp(mem, "no")) ? "not used" : "known", c->cut[0] ? "; " : "", c->cut);
	else
		snprintf(out, len, "Intel PT%s%s, %zu instructions in the region%s%s%s, %sno data addresses "
			 "(memory dependencies from address expressions)%s%s", input ? " of " : "", input ? input : "", n,
			 c->over, c->windows ? ", picked by the time they stand for" : "", budget, gap, c->cut[0] ? "; " : "",
			 c->cut);
}

size_t report_stream_budget(double share)
{
	if (!(share >= 0))
		return REPORT_STREAM_BUDGET;
	double b = REPORT_STREAM_BUDGET * (share / REPORT_FULL_BUDGET_SHARE);
	if (b >= REPORT_STREAM_BUDGET)
		return REPORT_STREAM_BUDGET;
	return b > REPORT_MIN_STREAM_BUDGET ? (size_t)b : REPORT_MIN_STREAM_BUDGET;
}

struct region_match {
	const struct report_stream_request *rq;
	double share;
};

static int match_region(void *ctx, const struct gusdata_region *r)
{
	struct region_match *m = ctx;
	if (r->file && !strcmp(r->file, m->rq->file) && r->start == m->rq->start && r->end == m->rq->end &&
	    r->share >= 0 && r->share <= 1) {
		m->share = r->share;
		return 1;
	}
	return 0;
}

/* the report's budget for RQ's region: by its share where the recording
 * holds it as a hot region (*SHARE), else the full one */
static size_t region_budget(struct gusdata *d, const struct report_stream_request *rq, double *share)
{
	struct region_match m = { rq, NAN };
	if (rq->file)
		gusdata_foreach_region(d, match_region, &m);
	*share = m.share;
	return report_stream_budget(m.share);
}

/* ------------------------------------------------- gus sim --trace -i --- */
enum recording_status report_region_stream(const struct report_stream_request *rq, struct simrun_collect *tc,
					   struct report_stream *out)
{
	char err[1024];
	memset(out, 0, sizeof *out);
	out->whole = NAN;
	struct gusdata *d;
	if (gusdata_open(rq->input, false, &d, err, sizeof err)) {
		recording_say(&rq->log, RECORDING_MSG_ERROR, "%s", err);
		return RECORDING_ERROR;
	}
	char tracer[16], stage[16] = "";
	snprintf(tracer, sizeof tracer, "%s", gusdata_meta(d, "tracer") ? gusdata_meta(d, "tracer") : "pt");
	if (gusdata_meta(d, "record.stage") && strcmp(gusdata_meta(d, "record.stage"), "done"))
		snprintf(stage, sizeof stage, "%s", gusdata_meta(d, "record.stage"));
	struct report_trace_source src;
	long range;
	if (!report_trace_source_of(d, tracer, rq->file, rq->start, rq->end, &src, &range)) {
		/* no windows here: the caller takes the first records */
		uint64_t records = 0;
		snprintf(out->why_no_windows, sizeof out->why_no_windows, "%s",
			 !gusdata_meta_u64(d, "trace.window_records", &records) || !records
				 ? "the recording has no windows (gus record --window 0)"
				 : "the recording's windows hold no traced range around it");
		gusdata_close(d);
		return RECORDING_OK;
	}
	out->windows = true;
	tc->lo = rq->start + rq->bias;
	tc->hi = rq->end + rq->bias;
	double share = NAN;
	size_t budget = rq->budget ? rq->budget : region_budget(d, rq, &share);
	struct report_windows w;
	uint64_t damaged = 0;
	enum recording_status rc = RECORDING_OK;
	if (report_gather_windows(&src, tc->lo, tc->hi, (uint32_t)range, -1, budget, tc, &w, &damaged, err, sizeof err)) {
		recording_say(&rq->log, RECORDING_MSG_ERROR, "%s: %s", rq->input, err);
		rc = RECORDING_ERROR;
		goto out;
	}
	if (src.pt_gaps)
		recording_say(&rq->log, RECORDING_MSG_WARNING, "%s: %llu gap(s) in the Intel PT trace; the stream resumed after "
			      "each", rq->input, (unsigned long long)src.pt_gaps);
	if (damaged)
		recording_say(&rq->log, RECORDING_MSG_WARNING, "%s: %llu damaged chunk(s) of the trace (first: %s): each was "
			      "read up to the damage", rq->input, (unsigned long long)damaged, err);
	out->budget_reached = tc->max && tc->n >= tc->max && tc->skipped > 0;
	out->picked = w.n;
	bool budget_bound = w.budget_bound;
	out->total = w.total;
	if (w.n && rq->m) {
		report_windows_simulate(rq->m, tc, rq->head, NULL, &w);
		out->whole = w.whole;
		out->per_iteration = w.per_iteration;
		out->run = w.run;
		out->picked = w.simulated;
	}
	report_windows_free(&w);
	struct report_cover c;
	report_cover_of(d, tracer, stage, range, true, &c);
	if (!rq->budget && budget < REPORT_STREAM_BUDGET && budget_bound) {
		c.budget = budget;
		c.share = share;
	}
	out->covers = c.covers;
	out->covers_at_most = c.at_most;
	snprintf(out->cut, sizeof out->cut, "%s", c.cut);
	report_stream_line(d, tracer, rq->input, tc->n, tc->data_addresses, (long long)src.pt_gaps, &c, out->line,
			   sizeof out->line);
out:
	gusdata_close(d);
	return rc;
}
