/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE analysis (section III.C of the paper): each sample of a workload
 * gets its metric's roofline estimate, a metric's estimates are averaged
 * weighted by the samples' T (Eq. 1), and the metrics are ranked lowest
 * estimate first; the lowest is the ensemble's estimate. */
#include "spire.h"
#include "spire_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool same_key(const char *a, const char *b)
{
	size_t la = strlen(a) + 1, lb = strlen(b) + 1;
	char *ka = malloc(la), *kb = malloc(lb);
	bool eq = false;
	if (ka && kb) {
		spire_event_key(a, ka, la);
		spire_event_key(b, kb, lb);
		eq = !strcmp(ka, kb);
	}
	free(ka);
	free(kb);
	return eq;
}

static bool valid_sample(const struct spire_sample *s)
{
	return isfinite(s->t) && isfinite(s->w) && isfinite(s->m) && s->t > 0 && s->w > 0 && s->m >= 0;
}

/* the estimate of sample S (0 for a sample that is not used: I NaN) */
static double estimate_of(const struct spire_roofline *r, const struct spire_sample *s, double *I)
{
	*I = s->m > 0 ? s->w / s->m : INFINITY;
	if (isnan(*I))
		return 0;
	double est = spire_roofline_eval(r, *I);
	return isfinite(est) ? est : est > 0 ? DBL_MAX : 0;
}

/* Eq. 1 (WORK false: sum(T_i x estimate_i) / sum(T_i)) or the measured
 * throughput (WORK true: sum(W_i) / sum(T_i)) over the used samples of MS,
 * for where the plain sums overflow: T_i scaled by the largest T, the
 * estimates (or W_i) by the largest, so that every term and sum stays
 * finite. A huge but finite roofline gives a huge estimate, never inf or 0.
 * Not finite only for a measured throughput truly out of range. */
static double scaled_mean(const struct spire_metric_samples *ms, const struct spire_roofline *r, bool work)
{
	double tmax = 0, vmax = 0;
	for (size_t k = 0; k < ms->n; k++) {
		const struct spire_sample *s = &ms->s[k];
		if (!valid_sample(s))
			continue;
		double I, est = estimate_of(r, s, &I);
		if (isnan(I))
			continue;
		tmax = fmax(tmax, s->t);
		vmax = fmax(vmax, work ? s->w : est);
	}
	if (!(tmax > 0) || !(vmax > 0))
		return 0;
	double st = 0, sv = 0;
	for (size_t k = 0; k < ms->n; k++) {
		const struct spire_sample *s = &ms->s[k];
		if (!valid_sample(s))
			continue;
		double I, est = estimate_of(r, s, &I);
		if (isnan(I))
			continue;
		double t = s->t / tmax;
		st += t;
		sv += work ? s->w / vmax : t * (est / vmax);
	}
	if (!(st > 0))
		return 0;
	if (work)
		return sv / st * (vmax / tmax);
	return fmin(sv / st, 1) * vmax;	/* a mean of values <= vmax */
}

static int by_estimate(const void *a, const void *b)
{
	const struct spire_estimate *x = a, *y = b;
	if (x->estimate != y->estimate)
		return x->estimate < y->estimate ? -1 : 1;
	return strcmp(x->r->metric, y->r->metric);
}

int spire_analyze(const struct spire_model *m, const struct spire_sampleset *ss, struct spire_analysis *a,
		  char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	const char *mt = m->time_event ? m->time_event : SPIRE_DEFAULT_TIME;
	const char *mw = m->work_event ? m->work_event : SPIRE_DEFAULT_WORK;
	const char *st = ss->time_event ? ss->time_event : SPIRE_DEFAULT_TIME;
	const char *sw = ss->work_event ? ss->work_event : SPIRE_DEFAULT_WORK;
	if (!same_key(mt, st)) {
		spire_seterr(err, errlen, "the model was trained with T = %s, these samples have T = %s", mt, st);
		return -1;
	}
	if (!same_key(mw, sw)) {
		spire_seterr(err, errlen, "the model was trained with W = %s, these samples have W = %s", mw, sw);
		return -1;
	}
	if (ss->n && (!(a->e = calloc(ss->n, sizeof(*a->e))) || !(a->unmodeled = calloc(ss->n, sizeof(char *)))))
		goto oom;
	double all_t = 0, all_w = 0;
	for (size_t i = 0; i < ss->n; i++) {
		const struct spire_metric_samples *ms = &ss->metrics[i];
		for (size_t k = 0; k < ms->n; k++)
			if (valid_sample(&ms->s[k])) {
				all_t += ms->s[k].t;
				all_w += ms->s[k].w;
			}
		const struct spire_roofline *r = spire_model_find(m, ms->metric);
		if (!r) {
			if (!(a->unmodeled[a->n_unmodeled] = strdup(ms->metric)))
				goto oom;
			a->n_unmodeled++;
			continue;
		}
		double st_ = 0, ste = 0, sw_ = 0, emax = 0;
		size_t n = 0, left = 0;
		for (size_t k = 0; k < ms->n; k++) {
			const struct spire_sample *s = &ms->s[k];
			if (!valid_sample(s))
				continue;
			double I;
			double est = estimate_of(r, s, &I);
			if (isnan(I))
				continue;
			st_ += s->t;
			ste += s->t * est;
			emax = fmax(emax, est);
			sw_ += s->w;
			n++;
			if (I < r->peak_i)
				left++;
		}
		if (!n || !(st_ > 0))
			continue;
		struct spire_estimate *e = &a->e[a->n++];
		e->r = r;
		e->n = n;
		e->t = isfinite(st_) ? st_ : DBL_MAX;
		/* Eq. 1 as written while the sums are finite (the usual case,
		 * bit for bit), scaled where T x estimate overflows */
		e->estimate = ste / st_;
		if (!isfinite(e->estimate) || (!(e->estimate > 0) && emax > 0))
			e->estimate = scaled_mean(ms, r, false);
		e->measured = sw_ / st_;
		if (!isfinite(e->measured) || !(e->measured > 0))
			e->measured = scaled_mean(ms, r, true);
		if (!isfinite(e->estimate))
			e->estimate = 0;
		if (!isfinite(e->measured))
			e->measured = 0;
		e->left_of_peak = (double)left / (double)n;
		a->n_samples += n;
	}
	if (!a->n) {
		spire_seterr(err, errlen,
		       "no metric of these samples is in the model (%zu metric%s in the samples, %zu in the model)",
		       ss->n, ss->n == 1 ? "" : "s", m->n);
		spire_analysis_free(a);
		return -1;
	}
	qsort(a->e, a->n, sizeof(*a->e), by_estimate);
	a->ensemble = a->e[0].estimate;
	if (ss->total_t > 0 && isfinite(ss->total_w / ss->total_t))
		a->measured = ss->total_w / ss->total_t;
	else if (all_t > 0 && isfinite(all_w / all_t))
		a->measured = all_w / all_t;
	else
		a->measured = 0;
	return 0;
oom:
	spire_analysis_free(a);
	spire_seterr(err, errlen, "out of memory");
	return -1;
}

void spire_analysis_free(struct spire_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_unmodeled; i++)
		free(a->unmodeled[i]);
	free(a->unmodeled);
	free(a->e);
	memset(a, 0, sizeof(*a));
}

int spire_cpu_check(const struct spire_model *m, const struct spire_sampleset *ss, char *warn, size_t warnlen,
		    char *err, size_t errlen)
{
	const char *mc = m->cpu && *m->cpu ? m->cpu : NULL;
	const char *sc = ss->cpu && *ss->cpu ? ss->cpu : NULL;
	if (warn && warnlen)
		warn[0] = 0;
	if (mc && sc) {
		if (!strcasecmp(mc, sc))
			return 0;
		spire_seterr(err, errlen, "the model was trained on CPU %s, these samples come from CPU %s", mc, sc);
		return -1;
	}
	if (!mc && !sc)
		spire_seterr(warn, warnlen,
		       "the model's CPU and the samples' CPU are both unknown: assuming they are the same");
	else if (!mc)
		spire_seterr(warn, warnlen, "the model's CPU is unknown: assuming it is the samples' CPU, %s", sc);
	else
		spire_seterr(warn, warnlen, "the samples' CPU is unknown: assuming it is the model's CPU, %s", mc);
	return 0;
}

int spire_analyze_for_cpu(const struct spire_model *m, const struct spire_sampleset *ss, struct spire_analysis *a,
			  char *note, size_t notelen, char *err, size_t errlen)
{
	note[0] = 0;
	if (spire_cpu_check(m, ss, note, notelen, err, errlen))
		return -1;
	return spire_analyze(m, ss, a, err, errlen);
}
