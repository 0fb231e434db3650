/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE roofline fitting (section III.D of the paper): the left region by
 * a Jarvis march from the origin (Figure 5), the right region by the
 * cheapest path through the graph of valid segments between Pareto-front
 * samples (Figure 6), and the evaluation of the piecewise-linear result. */
#include "spire.h"
#include "spire_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct knots {
	struct spire_knot *k;
	size_t n, cap;
};

static int push(struct knots *kl, double i, double p)
{
	if (kl->n == kl->cap) {
		size_t cap = kl->cap ? 2 * kl->cap : 8;
		struct spire_knot *nk = realloc(kl->k, cap * sizeof(*nk));
		if (!nk)
			return -1;
		kl->k = nk;
		kl->cap = cap;
	}
	kl->k[kl->n++] = (struct spire_knot){ .i = i, .p = p };
	return 0;
}

/* ----------------------------------------------------------- left --- */

static int by_i_asc(const void *a, const void *b)
{
	const struct spire_point *x = a, *y = b;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return 0;
}

/* Figure 5's march from the origin (to the sample up and right with the
 * highest slope, the farthest on a tie) visits the upper convex hull of
 * the samples that are higher than every sample left of them, so it is
 * computed here as that hull, in one pass in order of I (Andrew's
 * monotone chain): O(n log n) where the march is O(n x vertices). A
 * vertex B is dropped for a later sample Q when the slope from the vertex
 * before it, A, to Q is at least A-B's: from A, the march would have gone
 * to Q (or farther) rather than to B. */
int spire_fit_left(const struct spire_point *pts, size_t n, struct spire_point pk, struct spire_knot **out,
		   size_t *nout)
{
	bool inf = !isfinite(pk.i);
	*out = NULL;
	*nout = 0;
	struct spire_point *s = malloc((n ? n : 1) * sizeof(*s));
	struct knots kl = { 0 };
	if (!s)
		return -1;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		struct spire_point q = pts[k];
		if (!isfinite(q.i) || !isfinite(q.p) || q.i <= 0 || q.p <= 0 || (!inf && q.i > pk.i))
			continue;
		s[m++] = q;
	}
	qsort(s, m, sizeof(*s), by_i_asc);
	if (push(&kl, 0, 0))
		goto oom;
	double top = 0;
	for (size_t j = 0; j < m; j++) {
		struct spire_point q = s[j];
		if (!(q.p > top))
			continue;	/* not up from everything left of it */
		top = q.p;
		while (kl.n >= 2) {
			struct spire_knot a = kl.k[kl.n - 2], b = kl.k[kl.n - 1];
			double sb = (b.p - a.p) / (b.i - a.i), sq = (q.p - a.p) / (q.i - a.i);
			if (sq < sb)
				break;
			kl.n--;
		}
		if (push(&kl, q.i, q.p))
			goto oom;
	}
	free(s);
	s = NULL;
	/* a sample as high as the peak but left of it ends the march: the
	 * hull joins the peak with a horizontal segment */
	struct spire_knot last = kl.k[kl.n - 1];
	if (!inf && isfinite(pk.p) && (last.i != pk.i || last.p != pk.p) && push(&kl, pk.i, pk.p))
		goto oom;
	*out = kl.k;
	*nout = kl.n;
	return 0;
oom:
	free(s);
	free(kl.k);
	return -1;
}

/* ---------------------------------------------------------- right --- */

static int by_i_desc(const void *a, const void *b)
{
	const struct spire_point *x = a, *y = b;
	if (x->i != y->i)
		return x->i > y->i ? -1 : 1;
	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return 0;
}

/* The most front samples the graph takes as knots: vertices are pairs of
 * them (memory grows with the square, time with the cube). A larger front
 * (thousands of samples on one smooth curve: a sweep, not counter noise)
 * is thinned to this many by shape (thin_front); every front sample still
 * bounds the segments and weighs in the errors, so the fit stays on or
 * above all of them. */
#define FRONT_MAX 512

/* The line through front samples L (left) and R (right), at I */
static double line_at(struct spire_point l, struct spire_point r, double i)
{
	return l.p + (r.p - l.p) * (i - l.i) / (r.i - l.i);
}

/* front samples (lo, hi) and the one between them farthest from the line
 * through them, in P; d < 0 when none is between */
struct span {
	size_t lo, hi, far;
	double d;
};

static void span_far(const struct spire_point *f, struct span *s)
{
	s->far = s->lo;
	s->d = -1;
	for (size_t j = s->lo + 1; j < s->hi; j++) {
		double d = fabs(line_at(f[s->lo], f[s->hi], f[j].i) - f[j].p);
		if (d > s->d) {
			s->d = d;
			s->far = j;
		}
	}
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Knot candidates of a front F[0..k) of more than MAX (>= 2) samples, by
 * shape: Douglas-Peucker with the vertical distance, in P, that the fit's
 * errors measure. From E and the last sample, repeatedly the sample
 * farthest from the piecewise-linear interpolation through the candidates
 * so far, until MAX are chosen or every sample lies on it. Where the front
 * falls steeply (next to the peak) the samples are kept; on a gentle
 * stretch few are needed. C (MAX entries) gets them in increasing order;
 * returns how many, 0 on out of memory. */
static size_t thin_front(const struct spire_point *f, size_t k, size_t max, size_t *c)
{
	struct span *sp = malloc(max * sizeof(*sp));
	if (!sp)
		return 0;
	size_t m = 0, ns = 0;
	c[m++] = 0;
	c[m++] = k - 1;
	sp[ns] = (struct span){ .lo = 0, .hi = k - 1 };
	span_far(f, &sp[ns++]);
	while (m < max) {
		size_t b = 0;
		for (size_t j = 1; j < ns; j++)
			if (sp[j].d > sp[b].d)
				b = j;
		if (!(sp[b].d > 0))
			break;	/* every sample on the interpolation */
		size_t far = sp[b].far, hi = sp[b].hi;
		c[m++] = far;
		sp[b].hi = far;
		span_far(f, &sp[b]);
		sp[ns] = (struct span){ .lo = far, .hi = hi };
		span_far(f, &sp[ns++]);
	}
	free(sp);
	qsort(c, m, sizeof(*c), by_index);
	return m;
}

/* Right-region graph. Front samples F[0..k) in increasing I (F[0] = E,
 * the peak), of which C[0..K) are knot candidates (all of them unless the
 * front is larger than FRONT_MAX); candidate index K stands for S at
 * I = infinity (a real sample when the front has one, else a dummy).
 * Vertex (a, b), a > b, is the segment from F[C[b]] to F[C[a]] (a = K: the
 * horizontal ray right of F[C[b]]); a path visits vertices right to left,
 * each segment strictly steeper than the last (concave up), and ends at E,
 * or, where no segment from its last sample Y reaches E, with the End
 * segments of the authors' reference implementation: from Y up to the
 * left as shallow as allowed (at least as steep as the segment right of
 * Y, and on or above every front sample between E and Y), to P_E at I_H,
 * then flat to E. Edge weights sum the squared over-estimates of the front
 * samples a new segment spans. S, at I = infinity, is met exactly (the
 * roofline's value there is P_S): it costs nothing.
 *
 * Validity of (a, b) is checked against the front samples between them
 * only: every other sample q of the right region is dominated by a front
 * sample f (I_f >= I_q, P_f >= P_q), and a decreasing segment on or above
 * f (or, when f lies right of the segment, at or above P_a >= P_f) is on
 * or above q too.
 *
 * Ties in cost go to the path with fewer knots (the End segments count
 * one more: H), then to the first found. */
int spire_fit_right(const struct spire_point *pts, size_t n, struct spire_point pk, struct spire_knot **out,
		    size_t *nout, double *tail_p, double *inf_p, double *cost)
{
	*out = NULL;
	*nout = 0;
	*tail_p = pk.p;
	*inf_p = pk.p;
	*cost = 0;
	if (!isfinite(pk.i))
		return 0;	/* nothing right of an infinite peak */

	/* the right region (the peak included once more: it is E), its front */
	struct spire_point *f = malloc((n + 1) * sizeof(*f));
	if (!f)
		return -1;
	size_t nr = 0;
	f[nr++] = pk;
	for (size_t j = 0; j < n; j++)
		if (pts[j].i >= pk.i && !isnan(pts[j].p))
			f[nr++] = pts[j];
	qsort(f, nr, sizeof(*f), by_i_desc);
	size_t nf = 0;
	double top = -INFINITY;
	for (size_t j = 0; j < nr; j++)
		if (f[j].p > top) {
			top = f[j].p;
			f[nf++] = f[j];
		}
	/* f[0..nf): the front, right to left; reverse it */
	for (size_t j = 0; j < nf / 2; j++) {
		struct spire_point t = f[j];
		f[j] = f[nf - 1 - j];
		f[nf - 1 - j] = t;
	}
	bool real_s = nf && isinf(f[nf - 1].i);
	size_t k = real_s ? nf - 1 : nf;	/* finite front samples, k >= 1: E */
	double ps = real_s ? f[nf - 1].p : 0;

	size_t K = k <= FRONT_MAX ? k : FRONT_MAX;
	size_t *c = malloc(K * sizeof(*c));
	if (c && K < k && !(K = thin_front(f, k, K, c))) {
		free(c);
		c = NULL;
	}
	if (c && K == k)
		for (size_t j = 0; j < K; j++)
			c[j] = j;
	size_t W = K + 1;	/* a in 0..K */
	/* vertex (a, b) at [b * W + a]: a vertex's predecessors (x, a) for
	 * x > a lie together */
	double *best = malloc(W * K * sizeof(*best));
	size_t *segs = malloc(W * K * sizeof(*segs));
	size_t *prev = malloc(W * K * sizeof(*prev));
	unsigned char *reach = calloc(W * K, 1);
	double *slope_in = malloc(W * sizeof(*slope_in));
	double *endc = malloc(K * sizeof(*endc));
	struct knots kl = { 0 };
	int rc = -1;
	if (!c || !best || !segs || !prev || !reach || !slope_in || !endc)
		goto out;
#define AT(a, b) ((size_t)(b) * W + (size_t)(a))
	/* Start -> (S, b): the ray at P_b over-estimates every finite front
	 * sample right of it; S is met */
	for (size_t b = 0; b < K; b++) {
		double e = 0, pb = f[c[b]].p;
		for (size_t s = c[b] + 1; s < k; s++)
			e += (pb - f[s].p) * (pb - f[s].p);
		best[AT(K, b)] = e;
		segs[AT(K, b)] = 1;
		prev[AT(K, b)] = K;
		reach[AT(K, b)] = 1;
	}
	/* (a, j) -> (j, l), in order of decreasing j: every vertex (a, j) is
	 * final before its edges are followed */
	for (size_t j = K; j-- > 1;) {
		struct spire_point fj = f[c[j]];
		for (size_t a = j + 1; a <= K; a++)
			slope_in[a] = a == K ? 0 : (f[c[a]].p - fj.p) / (f[c[a]].i - fj.i);
		for (size_t l = 0; l < j; l++) {
			struct spire_point fl = f[c[l]];
			bool valid = true;
			double wt = 0;
			for (size_t s = c[l] + 1; s < c[j] && valid; s++) {
				double y = line_at(fl, fj, f[s].i);
				if (y + 1e-12 * fabs(f[s].p) < f[s].p)
					valid = false;
				else
					wt += (y - f[s].p) * (y - f[s].p);
			}
			if (!valid)
				continue;
			double slope = (fj.p - fl.p) / (fj.i - fl.i);
			size_t v = AT(j, l);
			for (size_t a = j + 1; a <= K; a++) {
				size_t u = AT(a, j);
				if (!reach[u] || !(slope < slope_in[a]))
					continue;
				double e = best[u] + wt;
				size_t sg = segs[u] + 1;
				if (!reach[v] || e < best[v] || (e == best[v] && sg < segs[v])) {
					best[v] = e;
					segs[v] = sg;
					prev[v] = a;
					reach[v] = 1;
				}
			}
		}
	}
	/* -> End from (a, b), b > 0: the shallowest slope up from F[b] that
	 * stays on or above the front samples between E and it (ENDC[b]) and
	 * keeps the fit concave up after (a, b); where that slope reaches
	 * P_E at E or before, the segment F[b]-E is a vertex of its own */
	for (size_t b = 1; b < K; b++) {
		struct spire_point fb = f[c[b]];
		double m = 0;
		for (size_t s = 0; s < c[b]; s++)
			m = fmax(m, (f[s].p - fb.p) / (fb.i - f[s].i));
		endc[b] = m;
	}
	size_t ba = K, bb = 0, bsegs = 0;
	double bc = 0, bh = f[0].i;
	bool found = false;
	for (size_t a = K + 1; a-- > 1;)
		for (size_t b = 0; b < a && b < K; b++) {
			if (!reach[AT(a, b)])
				continue;
			double e = best[AT(a, b)], ih = f[0].i;
			if (b) {
				struct spire_point fb = f[c[b]];
				double in = a == K ? 0 : (fb.p - f[c[a]].p) / (f[c[a]].i - fb.i);
				double need = fmax(endc[b], in);
				ih = fb.i - (f[0].p - fb.p) / need;
				if (!(ih > f[0].i))
					continue;	/* F[b]-E itself */
				for (size_t s = 1; s < c[b]; s++) {
					double v = f[s].i >= ih ? fb.p + need * (fb.i - f[s].i) : f[0].p;
					e += (v - f[s].p) * (v - f[s].p);
				}
			}
			size_t sg = segs[AT(a, b)] + (b ? 1 : 0);	/* H */
			/* a knot on the End's sloped line gives the same fit
			 * and cost but for rounding: the fewer knots win */
			double tol = 1e-12 * fmax(1, fabs(bc));
			if (!found || e < bc - tol || (e <= bc + tol && sg < bsegs)) {
				found = true;
				bc = e;
				bsegs = sg;
				ba = a;
				bb = b;
				bh = ih;
			}
		}
	/* found: Start -> (S, 0) -> End always exists */
	if (push(&kl, f[0].i, f[0].p))
		goto out;
	if (bb && (push(&kl, bh, f[0].p) || push(&kl, f[c[bb]].i, f[c[bb]].p)))
		goto out;
	size_t a = ba, b = bb;
	while (found && a < K) {
		if (push(&kl, f[c[a]].i, f[c[a]].p))
			goto out;
		size_t pa = prev[AT(a, b)];
		b = a;
		a = pa;
	}
#undef AT
	*tail_p = f[c[b]].p;
	*inf_p = real_s ? ps : *tail_p;
	*cost = bc;
	*out = kl.k;
	*nout = kl.n;
	kl.k = NULL;
	rc = 0;
out:
	free(kl.k);
	free(c);
	free(best);
	free(segs);
	free(prev);
	free(reach);
	free(slope_in);
	free(endc);
	free(f);
	return rc;
}

/* ------------------------------------------------------- together --- */

static bool valid_sample(const struct spire_sample *s)
{
	return isfinite(s->t) && isfinite(s->w) && isfinite(s->m) && s->t > 0 && s->w > 0 && s->m >= 0;
}

int spire_fit(const struct spire_metric_samples *ms, struct spire_roofline *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	const char *name = ms->metric ? ms->metric : "(unnamed)";
	struct spire_point *pts = malloc((ms->n ? ms->n : 1) * sizeof(*pts));
	if (!pts) {
		spire_seterr(err, errlen, "%s: out of memory", name);
		return -1;
	}
	size_t n = 0, finite = 0;
	for (size_t k = 0; k < ms->n; k++) {
		const struct spire_sample *s = &ms->s[k];
		if (!valid_sample(s))
			continue;
		pts[n].i = s->m > 0 ? s->w / s->m : INFINITY;
		pts[n].p = s->w / s->t;
		/* I = 0 only where W / M underflows: no place on a roofline,
		 * whose first knot is the origin */
		if (!isfinite(pts[n].p) || isnan(pts[n].i) || pts[n].i == 0)
			continue;
		if (isfinite(pts[n].i))
			finite++;
		n++;
	}
	if (!finite) {
		free(pts);
		spire_seterr(err, errlen, "%s: %s", name,
		       n ? "the metric never counted (M = 0 in every sample): nothing to fit" : "no usable sample");
		return -1;
	}
	struct spire_point pk = pts[0];
	for (size_t k = 1; k < n; k++)
		if (pts[k].p > pk.p || (pts[k].p == pk.p && pts[k].i > pk.i))
			pk = pts[k];

	struct spire_knot *lk = NULL, *rk = NULL;
	size_t nl = 0, nrk = 0;
	double tail = 0, inf = 0, cost = 0;
	if (spire_fit_left(pts, n, pk, &lk, &nl) || spire_fit_right(pts, n, pk, &rk, &nrk, &tail, &inf, &cost)) {
		free(lk);
		free(pts);
		spire_seterr(err, errlen, "%s: out of memory", name);
		return -1;
	}
	free(pts);
	size_t extra = nrk ? nrk - 1 : 0;	/* the right knots repeat the peak */
	struct spire_knot *kn = realloc(lk, (nl + extra) * sizeof(*kn));
	if (!kn) {
		free(lk);
		free(rk);
		spire_seterr(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (extra)
		memcpy(kn + nl, rk + 1, extra * sizeof(*kn));
	free(rk);
	r->knots = kn;
	r->n_knots = nl + extra;
	r->peak = nl - 1;
	r->peak_i = pk.i;
	r->peak_p = pk.p;
	if (isfinite(pk.i)) {
		r->tail_p = tail;
		r->inf_p = inf;	/* a sample with M = 0: the roofline meets it */
	} else {
		r->tail_p = kn[nl - 1].p;
		r->inf_p = pk.p;
	}
	r->n_train = ms->n;
	r->metric = strdup(name);
	r->label = strdup(ms->label ? ms->label : name);
	if (!r->metric || !r->label) {
		spire_roofline_free(r);
		spire_seterr(err, errlen, "%s: out of memory", name);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- eval --- */

double spire_roofline_eval(const struct spire_roofline *r, double i)
{
	if (!r || isnan(i) || i <= 0 || !r->n_knots)
		return 0;
	if (isinf(i))
		return isfinite(r->inf_p) ? r->inf_p : 0;
	const struct spire_knot *k = r->knots;
	size_t n = r->n_knots;
	if (i > k[n - 1].i)
		return isfinite(r->tail_p) ? r->tail_p : 0;
	/* the first knot at or right of I */
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k[mid].i < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (k[lo].i == i) {
		/* at a step (the End step of older models: flat at P_E, then
		 * down to the front sample Y there) the lower value: nothing
		 * trained is higher there than Y */
		double v = k[lo].p;
		for (size_t j = lo + 1; j < n && k[j].i == i; j++)
			v = fmin(v, k[j].p);
		return v;
	}
	if (lo == 0)
		return 0;	/* left of the first knot: malformed, the origin comes first */
	const struct spire_knot *a = &k[lo - 1], *b = &k[lo];
	double v = a->p + (b->p - a->p) * (i - a->i) / (b->i - a->i);
	return isfinite(v) ? v : fmax(a->p, b->p);
}

void spire_roofline_free(struct spire_roofline *r)
{
	if (!r)
		return;
	free(r->metric);
	free(r->label);
	free(r->knots);
	memset(r, 0, sizeof(*r));
}
