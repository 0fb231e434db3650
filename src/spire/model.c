/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE models: training (one roofline per metric) and the model file.
 *
 * FILE FORMAT (gus-spire(1)). A model is a text file of lines; a line
 * whose first non-blank character is '#' is a comment, blank lines are
 * ignored; elsewhere a line is a keyword, blanks, and a value that runs to
 * the end of the line (trailing blanks dropped). The lines come in this
 * order, each exactly once unless said otherwise:
 *
 *   gus-spire-model 1            magic and format version
 *   cpu NAME                     libpfm4 PMU name, or "unknown"
 *   time EVENT                   the T event
 *   work EVENT                   the W event
 *   samples N                    training samples, all metrics
 *   files N                      training files (informative)
 *   metrics N                    how many metric blocks follow
 *
 * then N metric blocks, each
 *
 *   metric KEY                   the event's key (gus's name for it)
 *   label TEXT                   the name as the training input wrote it
 *   n-train N                    the metric's training samples
 *   peak I P                     the highest-throughput sample (I may be inf)
 *   knot I P                     one line per knot, at least two; the first
 *                                is "knot 0 0" and no other has I = 0 (no
 *                                step at the origin); I never decreases; two
 *                                knots with the same I make a step
 *   peak-knot K                  index (from 0) of the peak's knot: not 0
 *                                (the origin); when the peak's I is finite,
 *                                knot K is the peak (the same I and P as the
 *                                peak line)
 *   tail P                       the estimate right of the last knot
 *   infinity P                   the estimate at I = infinity (M = 0)
 *   end
 *
 * and nothing but comments after the last block. Counts N and K are
 * decimal integers. Other numbers are written with 17 significant digits
 * ("%.17g", so that a model read back evaluates identically) and read with
 * strtod; "inf" is infinity, allowed only for the peak's I. Every number
 * is >= 0 and finite otherwise. A metric KEY appears once (it is read as
 * gus's key for the name: "IDQ:DSB_UOPS" reads as "idq.dsb_uops").
 * gus writes a control character in a name or label as '?'. */
#include "spire.h"
#include "spire_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAGIC "gus-spire-model"
#define MODEL_VERSION 1

/* ------------------------------------------------------- training --- */

static bool selected(const char *key, const char *const *select, size_t nselect)
{
	if (!select)
		return true;
	char buf[512];
	for (size_t i = 0; i < nselect; i++) {
		if (!select[i])
			continue;
		spire_event_key(select[i], buf, sizeof(buf));
		if (!strcmp(buf, key))
			return true;
	}
	return false;
}

static bool fittable(const struct spire_metric_samples *ms)
{
	for (size_t k = 0; k < ms->n; k++) {
		const struct spire_sample *s = &ms->s[k];
		if (isfinite(s->t) && isfinite(s->w) && isfinite(s->m) && s->t > 0 && s->w > 0 && s->m > 0)
			return true;
	}
	return false;
}

int spire_train(const struct spire_sampleset *ss, const char *const *select, size_t nselect,
		struct spire_model *m, size_t *skipped, void (*skip_cb)(void *ctx, const char *metric, const char *why),
		void *skip_ctx, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (skipped)
		*skipped = 0;
	m->time_event = strdup(ss->time_event ? ss->time_event : SPIRE_DEFAULT_TIME);
	m->work_event = strdup(ss->work_event ? ss->work_event : SPIRE_DEFAULT_WORK);
	if (!m->time_event || !m->work_event || (ss->cpu && !(m->cpu = strdup(ss->cpu))))
		goto oom;
	if (ss->n && !(m->r = calloc(ss->n, sizeof(*m->r))))
		goto oom;
	size_t considered = 0;
	for (size_t i = 0; i < ss->n; i++) {
		const struct spire_metric_samples *ms = &ss->metrics[i];
		if (!selected(ms->metric, select, nselect))
			continue;
		considered++;
		if (!fittable(ms)) {
			if (skipped)
				(*skipped)++;
			if (skip_cb)
				skip_cb(skip_ctx, ms->metric,
					ms->n ? "the metric never counted (M = 0 in every sample): nothing to fit"
					      : "no sample");
			continue;
		}
		if (spire_fit(ms, &m->r[m->n], err, errlen)) {
			spire_model_free(m);
			return -1;
		}
		m->n_samples += m->r[m->n].n_train;
		m->n++;
	}
	if (!m->n) {
		if (!considered && select)
			spire_seterr(err, errlen, "none of the %zu selected metric%s is in the samples", nselect,
			       nselect == 1 ? "" : "s");
		else if (!considered)
			spire_seterr(err, errlen, "no metric in the samples: nothing to train");
		else
			spire_seterr(err, errlen, "no metric can be fitted: every one has M = 0 in all its samples");
		spire_model_free(m);
		return -1;
	}
	return 0;
oom:
	spire_model_free(m);
	spire_seterr(err, errlen, "out of memory");
	return -1;
}

void spire_model_free(struct spire_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		spire_roofline_free(&m->r[i]);
	free(m->r);
	free(m->cpu);
	free(m->time_event);
	free(m->work_event);
	memset(m, 0, sizeof(*m));
}

const struct spire_roofline *spire_model_find(const struct spire_model *m, const char *metric)
{
	if (!m || !metric)
		return NULL;
	size_t len = strlen(metric) + 1;
	char *k = malloc(len);
	if (!k)
		return NULL;
	spire_event_key(metric, k, len);
	const struct spire_roofline *r = NULL;
	for (size_t i = 0; i < m->n && !r; i++)
		if (m->r[i].metric && !strcmp(m->r[i].metric, k))
			r = &m->r[i];
	free(k);
	return r;
}

/* ---------------------------------------------------------- write --- */

static void put_num(FILE *out, double v)
{
	if (isinf(v) && v > 0)
		fputs("inf", out);
	else
		fprintf(out, "%.17g", v);
}

/* TEXT on one line: control characters (a newline would end the value)
 * written as '?' */
static void put_text(FILE *out, const char *text)
{
	for (const char *p = text ? text : ""; *p; p++)
		fputc(iscntrl((unsigned char)*p) ? '?' : *p, out);
}

int spire_model_write(FILE *out, const struct spire_model *m)
{
	fprintf(out, "%s %d\n", MODEL_MAGIC, MODEL_VERSION);
	fputs("cpu ", out);
	put_text(out, m->cpu && *m->cpu ? m->cpu : "unknown");
	fputs("\ntime ", out);
	put_text(out, m->time_event ? m->time_event : SPIRE_DEFAULT_TIME);
	fputs("\nwork ", out);
	put_text(out, m->work_event ? m->work_event : SPIRE_DEFAULT_WORK);
	fprintf(out, "\nsamples %zu\nfiles %zu\nmetrics %zu\n", m->n_samples, m->n_files, m->n);
	for (size_t i = 0; i < m->n; i++) {
		const struct spire_roofline *r = &m->r[i];
		fputs("\nmetric ", out);
		put_text(out, r->metric);
		fputs("\nlabel ", out);
		put_text(out, r->label && *r->label ? r->label : r->metric);
		fprintf(out, "\nn-train %zu\npeak ", r->n_train);
		put_num(out, r->peak_i);
		fputc(' ', out);
		put_num(out, r->peak_p);
		fputc('\n', out);
		for (size_t k = 0; k < r->n_knots; k++) {
			fputs("knot ", out);
			put_num(out, r->knots[k].i);
			fputc(' ', out);
			put_num(out, r->knots[k].p);
			fputc('\n', out);
		}
		fprintf(out, "peak-knot %zu\ntail ", r->peak);
		put_num(out, r->tail_p);
		fputs("\ninfinity ", out);
		put_num(out, r->inf_p);
		fputs("\nend\n", out);
	}
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}

/* ----------------------------------------------------------- read --- */

struct reader {
	FILE *in;
	const char *origin;
	char *line;
	size_t cap;
	int lineno;
	char *err;
	size_t errlen;
	/* the current line, split */
	char *kw, *val;
};

static int fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *rd, const char *fmt, ...)
{
	char msg[SPIRE_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	spire_seterr(rd->err, rd->errlen, "%s:%d: %s", rd->origin, rd->lineno, msg);
	return -1;
}

/* The next line that is not blank or a comment, split into keyword and
 * value; 1 at the end of the input, -1 on a read error */
static int next_line(struct reader *rd)
{
	for (;;) {
		errno = 0;
		ssize_t len = getline(&rd->line, &rd->cap, rd->in);
		if (len < 0) {
			if (ferror(rd->in)) {
				rd->lineno++;
				return fail(rd, "read error%s%s", errno ? ": " : "", errno ? strerror(errno) : "");
			}
			return 1;
		}
		rd->lineno++;
		if (memchr(rd->line, 0, (size_t)len))
			return fail(rd, "binary data");
		char *s = rd->line;
		while (len && isspace((unsigned char)s[len - 1]))
			s[--len] = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		rd->kw = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s) {
			*s++ = 0;
			while (isspace((unsigned char)*s))
				s++;
		}
		rd->val = s;
		return 0;
	}
}

/* The next line, which must be keyword KW with a value */
static int expect(struct reader *rd, const char *kw)
{
	int rc = next_line(rd);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		rd->lineno++;
		return fail(rd, "truncated: the file ends where '%s' was expected", kw);
	}
	if (strcmp(rd->kw, kw))
		return fail(rd, "'%s' where '%s' was expected", rd->kw, kw);
	if (!*rd->val && strcmp(kw, "end"))
		return fail(rd, "'%s' without a value", kw);
	if (*rd->val && !strcmp(kw, "end"))
		return fail(rd, "'end' takes no value");
	return 0;
}

static int parse_count(struct reader *rd, const char *s, const char *what, size_t *v)
{
	if (!isdigit((unsigned char)*s))
		return fail(rd, "%s: '%s' is not a count", what, s);
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno || x > SIZE_MAX)
		return fail(rd, "%s: '%s' is not a count", what, s);
	*v = (size_t)x;
	return 0;
}

/* a number >= 0, finite unless INF_OK; *REST after it (NULL: nothing may
 * follow) */
static int parse_num(struct reader *rd, char *s, const char *what, bool inf_ok, double *v, char **rest)
{
	while (isspace((unsigned char)*s))
		s++;
	char *tok = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	char saved = *s;
	*s = 0;
	char *end;
	errno = 0;
	double x = *tok ? strtod(tok, &end) : NAN;
	bool ok = *tok && !*end && (errno == 0 || errno == ERANGE);
	if (!ok || isnan(x)) {
		int r = fail(rd, "%s: '%s' is not a number", what, tok);
		*s = saved;
		return r;
	}
	if (isinf(x) && !(inf_ok && x > 0)) {
		int r = fail(rd, "%s: %s must be finite", what, tok);
		*s = saved;
		return r;
	}
	if (x < 0) {
		int r = fail(rd, "%s: %s is negative", what, tok);
		*s = saved;
		return r;
	}
	*s = saved;
	while (isspace((unsigned char)*s))
		s++;
	if (rest)
		*rest = s;
	else if (*s)
		return fail(rd, "%s: unexpected '%s' after the number", what, s);
	*v = x;
	return 0;
}

static int parse_pair(struct reader *rd, const char *what, bool inf_ok, double *i, double *p)
{
	char *rest;
	if (parse_num(rd, rd->val, what, inf_ok, i, &rest))
		return -1;
	if (!*rest)
		return fail(rd, "%s: two numbers (I and P) expected", what);
	return parse_num(rd, rest, what, false, p, NULL);
}

static int expect_count(struct reader *rd, const char *kw, size_t *v)
{
	return expect(rd, kw) || parse_count(rd, rd->val, kw, v) ? -1 : 0;
}

static int expect_num(struct reader *rd, const char *kw, double *v)
{
	return expect(rd, kw) || parse_num(rd, rd->val, kw, false, v, NULL) ? -1 : 0;
}

static int dup_val(struct reader *rd, char **out)
{
	if (!(*out = strdup(rd->val)))
		return fail(rd, "out of memory");
	return 0;
}

static int read_metric(struct reader *rd, struct spire_model *m, struct spire_roofline *r)
{
	if (expect(rd, "metric") || dup_val(rd, &r->metric))
		return -1;
	/* a hand-written name reads as gus's key for it */
	spire_event_key(rd->val, r->metric, strlen(rd->val) + 1);
	if (!*r->metric)
		return fail(rd, "'metric' without a value");
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->r[i].metric, r->metric))
			return fail(rd, "metric '%s' twice", r->metric);
	if (expect(rd, "label") || dup_val(rd, &r->label))
		return -1;
	if (expect_count(rd, "n-train", &r->n_train))
		return -1;
	if (expect(rd, "peak") || parse_pair(rd, "peak", true, &r->peak_i, &r->peak_p))
		return -1;
	size_t cap = 0;
	for (;;) {
		int rc = next_line(rd);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			rd->lineno++;
			return fail(rd, "truncated: metric '%s' has no 'end'", r->metric);
		}
		if (strcmp(rd->kw, "knot"))
			break;
		struct spire_knot k;
		if (parse_pair(rd, "knot", false, &k.i, &k.p))
			return -1;
		if (!r->n_knots && (k.i != 0 || k.p != 0))
			return fail(rd, "the first knot must be 0 0 (the origin)");
		if (r->n_knots && k.i < r->knots[r->n_knots - 1].i)
			return fail(rd, "knot I %.17g is left of the previous knot's %.17g", k.i,
				    r->knots[r->n_knots - 1].i);
		if (r->n_knots && k.i == 0)
			return fail(rd, "a second knot at I = 0: no step at the origin");
		if (r->n_knots == cap) {
			cap = cap ? 2 * cap : 8;
			struct spire_knot *nk = realloc(r->knots, cap * sizeof(*nk));
			if (!nk)
				return fail(rd, "out of memory");
			r->knots = nk;
		}
		r->knots[r->n_knots++] = k;
	}
	if (!r->n_knots)
		return fail(rd, "'%s' where 'knot' was expected", rd->kw);
	if (strcmp(rd->kw, "peak-knot"))
		return fail(rd, "'%s' where 'knot' or 'peak-knot' was expected", rd->kw);
	if (parse_count(rd, rd->val, "peak-knot", &r->peak))
		return -1;
	if (r->peak >= r->n_knots)
		return fail(rd, "peak-knot %zu is out of range (%zu knots)", r->peak, r->n_knots);
	if (r->peak == 0)
		return fail(rd, "peak-knot 0 is the origin: the peak's knot comes after it");
	const struct spire_knot *pk = &r->knots[r->peak];
	if (isfinite(r->peak_i) && (pk->i != r->peak_i || pk->p != r->peak_p))
		return fail(rd, "peak-knot %zu is knot (%.17g, %.17g), not the peak (%.17g, %.17g)", r->peak, pk->i,
			    pk->p, r->peak_i, r->peak_p);
	if (expect_num(rd, "tail", &r->tail_p) || expect_num(rd, "infinity", &r->inf_p))
		return -1;
	return expect(rd, "end");
}

int spire_model_read(FILE *in, const char *origin, struct spire_model *m, char *err, size_t errlen)
{
	struct reader rd = { .in = in, .origin = origin ? origin : "(model)", .err = err, .errlen = errlen };
	size_t nmetrics = 0;
	int rc = -1;
	memset(m, 0, sizeof(*m));

	int nl = next_line(&rd);
	if (nl < 0)
		goto out;
	if (nl > 0 || strcmp(rd.kw, MODEL_MAGIC)) {
		if (nl > 0)
			rd.lineno = rd.lineno ? rd.lineno : 1;
		fail(&rd, "not a gus spire model (it starts with '%s %d')", MODEL_MAGIC, MODEL_VERSION);
		goto out;
	}
	size_t version;
	if (parse_count(&rd, rd.val, "version", &version))
		goto out;
	if (version != MODEL_VERSION) {
		fail(&rd, "model format version %zu: this gus reads version %d", version, MODEL_VERSION);
		goto out;
	}
	if (expect(&rd, "cpu"))
		goto out;
	if (strcmp(rd.val, "unknown") && dup_val(&rd, &m->cpu))
		goto out;
	if (expect(&rd, "time") || dup_val(&rd, &m->time_event) || expect(&rd, "work") ||
	    dup_val(&rd, &m->work_event))
		goto out;
	if (expect_count(&rd, "samples", &m->n_samples) || expect_count(&rd, "files", &m->n_files) ||
	    expect_count(&rd, "metrics", &nmetrics))
		goto out;
	if (!nmetrics) {
		fail(&rd, "the model has no metric");
		goto out;
	}
	/* the count is not trusted for allocation: grow as blocks come */
	size_t cap = 0;
	for (size_t i = 0; i < nmetrics; i++) {
		if (m->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct spire_roofline *nr = realloc(m->r, ncap * sizeof(*nr));
			if (!nr) {
				fail(&rd, "out of memory");
				goto out;
			}
			m->r = nr;
			cap = ncap;
		}
		struct spire_roofline *r = &m->r[m->n];
		memset(r, 0, sizeof(*r));
		if (read_metric(&rd, m, r)) {
			spire_roofline_free(r);
			goto out;
		}
		m->n++;
	}
	nl = next_line(&rd);
	if (nl < 0)
		goto out;
	if (!nl) {
		fail(&rd, "'%s' after the last of the %zu metrics", rd.kw, nmetrics);
		goto out;
	}
	rc = 0;
out:
	free(rd.line);
	if (rc)
		spire_model_free(m);
	return rc;
}
