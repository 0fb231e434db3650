/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE rooflines as a standalone SVG, after the paper's Figure 7: one
 * panel per roofline in a grid of two columns, I = W/M on a log axis
 * (decades), P = W/T linear from 0. The roofline is a piecewise-linear
 * function of I, so on the log axis its segments are curves: it is drawn
 * as a polyline through ~200 log-spaced values of spire_roofline_eval
 * (and its knots, so that corners stay sharp). Samples with M = 0 (I
 * infinite) have no place on the axis: they are drawn at the panel's
 * right edge, past a separator, with another marker, as is a peak at
 * I = infinity and the roofline's value there (inf_p). Plain SVG 1.1, no
 * scripts or external resources, all text escaped. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "spire.h"

/* layout, in pixels */
#define MARGIN 20.0
#define HEAD 86.0	/* title, subtitle and legend */
#define PANEL_W 500.0
#define PANEL_H 320.0
#define GAP 20.0
#define PL 58.0		/* plot area inside a panel: left, right, top, bottom margins */
#define PR 56.0
#define PT 40.0
#define PB 44.0
#define INF_GAP 32.0	/* from the plot's right end to the M = 0 column */
#define CURVE_N 200	/* log-spaced samples of the roofline */

struct panel {
	double x, y;		/* the panel's top left */
	double l, r, t, b;	/* the plot area */
	double xinf;		/* the M = 0 column */
	double lo, hi;		/* log10 I at the left and right ends */
	double top;		/* P at the top of the plot */
};

static double px_i(const struct panel *p, double i)
{
	if (isinf(i))
		return p->xinf;
	return p->l + (log10(i) - p->lo) / (p->hi - p->lo) * (p->r - p->l);
}

static double px_p(const struct panel *p, double v)
{
	if (v < 0)
		v = 0;
	if (v > p->top)
		v = p->top;
	return p->b - v / p->top * (p->b - p->t);
}

/* I and P of a sample; false when it cannot be drawn (I <= 0, P not finite) */
static bool sample_point(const struct spire_sample *s, double *i, double *pv)
{
	if (!(s->t > 0) || !isfinite(s->t) || !isfinite(s->w) || !isfinite(s->m) || s->m < 0 || s->w <= 0)
		return false;
	*pv = s->w / s->t;
	*i = s->m > 0 ? s->w / s->m : INFINITY;
	return isfinite(*pv) && *i > 0;
}

static void range_add(double v, double *mn, double *mx)
{
	if (!isfinite(v) || v <= 0)
		return;
	if (v < *mn)
		*mn = v;
	if (v > *mx)
		*mx = v;
}

/* a step of 1, 2 or 5 times a power of ten giving about five ticks to MAX */
static double nice_step(double max)
{
	double raw = max / 5, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void decade_label(int k, char *buf, size_t n)
{
	if (k >= -3 && k <= 4)
		snprintf(buf, n, "%g", pow(10, k));
	else
		snprintf(buf, n, "1e%d", k);
}

static void num(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (v == 0 || (fabs(v) >= 0.01 && fabs(v) < 1e3))
		snprintf(buf, n, "%.3g", v);
	else if (fabs(v) >= 1e3 && fabs(v) < 1e9)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static const struct spire_estimate *estimate_of(const struct spire_analysis *a, const struct spire_roofline *r)
{
	if (!a)
		return NULL;
	for (size_t k = 0; k < a->n; k++)
		if (a->e[k].r == r)
			return &a->e[k];
	return NULL;
}

/* a horizontal line across the plot and the M = 0 column, labelled at the
 * right end above or below it */
static void hline(FILE *out, const struct panel *p, double v, const char *cls, const char *colour,
		  const char *dash, const char *what, bool above)
{
	char b[32];
	double y = px_p(p, v);
	num(v, b, sizeof b);
	fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
		cls, p->l, y, p->xinf + 10, y, colour, dash);
	/* on a white ground: the label may sit on the samples or the curve */
	double ty = above ? y - 4 : y + 12, tw = 6.2 * (double)(strlen(what) + 1 + strlen(b));
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"white\" fill-opacity=\"0.8\"/>\n",
		p->r - 6 - tw, ty - 10, tw + 4);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\" font-size=\"11\">%s %s</text>\n",
		p->r - 4, ty, colour, what, b);
}

static void panel(FILE *out, const struct spire_roofline *r, size_t idx, const struct spire_sampleset *ss,
		  const struct spire_analysis *a, const struct spire_metricset *metrics)
{
	struct panel p;
	p.x = MARGIN + (double)(idx % 2) * (PANEL_W + GAP);
	p.y = HEAD + (double)(idx / 2) * (PANEL_H + GAP);
	p.l = p.x + PL;
	p.r = p.x + PANEL_W - PR;
	p.t = p.y + PT;
	p.b = p.y + PANEL_H - PB;
	p.xinf = p.r + INF_GAP;

	const struct spire_metric_samples *ms = ss && r->metric ? spire_sampleset_find(ss, r->metric) : NULL;
	const struct spire_estimate *e = estimate_of(a, r);
	double est = e ? e->estimate : NAN;
	double meas = a ? a->measured : NAN;
	if (!(meas > 0))
		meas = NAN;

	/* the ranges: finite I of the knots and points, P up to the highest */
	double imin = INFINITY, imax = 0, pmax = 0;
	size_t n_pts = 0, n_inf = 0;
	for (size_t k = 0; k < r->n_knots; k++) {
		range_add(r->knots[k].i, &imin, &imax);
		if (isfinite(r->knots[k].p) && r->knots[k].p > pmax)
			pmax = r->knots[k].p;
	}
	range_add(r->peak_i, &imin, &imax);
	double extra[] = { r->peak_p, r->tail_p, r->inf_p, est, meas };
	for (size_t k = 0; k < sizeof extra / sizeof *extra; k++)
		if (isfinite(extra[k]) && extra[k] > pmax)
			pmax = extra[k];
	for (size_t k = 0; ms && k < ms->n; k++) {
		double i, v;
		if (!sample_point(&ms->s[k], &i, &v))
			continue;
		n_pts++;
		n_inf += isinf(i);
		range_add(i, &imin, &imax);
		if (v > pmax)
			pmax = v;
	}
	if (!(imax > 0)) {
		imin = 1;
		imax = 10;
	}
	p.lo = floor(log10(imin));
	p.hi = ceil(log10(imax));
	if (p.hi <= p.lo)
		p.hi = p.lo + 1;
	if (!(pmax > 0))
		pmax = 1;
	double step = nice_step(pmax * 1.08);
	p.top = ceil(pmax * 1.08 / step) * step;
	if (!(step > 0) || !isfinite(p.top) || !(p.top > 0)) {	/* near the ends of double's range */
		p.top = pmax;
		step = pmax / 5;
	}

	const struct spire_metric_def *d = metrics && r->metric ? spire_metricset_find(metrics, r->metric) : NULL;
	const char *lab = r->label ? r->label : r->metric ? r->metric : "?";
	char b1[32], b2[32];

	fprintf(out, "<g class=\"panel\">\n<title>");
	rd_xml_text(out, lab);
	if (r->metric && (!r->label || strcmp(r->metric, r->label))) {
		fputs(" (", out);
		rd_xml_text(out, r->metric);
		fputc(')', out);
	}
	if (d && d->desc && *d->desc) {
		fputs(": ", out);
		rd_xml_text(out, d->desc);
	}
	fputs("</title>\n", out);
	fprintf(out, "<rect class=\"panel-box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fcfcfc\" stroke=\"#ccc\"/>\n",
		p.x, p.y, PANEL_W, PANEL_H);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">", p.x + 10, p.y + 18);
	if (d && d->abbr && *d->abbr) {
		rd_xml_text(out, d->abbr);
		fputc(' ', out);
	}
	rd_xml_text(out, lab);
	fputs("</text>\n", out);
	num(r->peak_p, b1, sizeof b1);
	if (isinf(r->peak_i))
		snprintf(b2, sizeof b2, "inf");
	else
		num(r->peak_i, b2, sizeof b2);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#666\">", p.x + 10, p.y + 32);
	if (d && d->area && *d->area) {
		rd_xml_text(out, d->area);
		fputs("; ", out);
	}
	fprintf(out, "peak P %s at I %s; samples: %zu training, %zu here", b1, b2, r->n_train, n_pts);
	if (n_inf)
		fprintf(out, " (%zu with M = 0)", n_inf);
	fputs("</text>\n", out);

	/* axes and grid */
	fputs("<g font-size=\"10\" fill=\"#555\">\n", out);
	for (int k = 0; k <= 20 && k * step <= p.top * (1 + 1e-9); k++) {
		double v = k * step, y = px_p(&p, v);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", p.l, y, p.r, y);
		num(v, b1, sizeof b1);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", p.l - 6, y + 3.5, b1);
	}
	int decades = (int)(p.hi - p.lo), every = decades > 8 ? (decades + 7) / 8 : 1;
	for (int k = (int)p.lo; k <= (int)p.hi; k++) {
		double x = px_i(&p, pow(10, k));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x, p.t, x, p.b);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x, p.b, x, p.b + 4);
		if ((k - (int)p.lo) % every == 0) {
			decade_label(k, b1, sizeof b1);
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, p.b + 15, b1);
		}
	}
	fprintf(out, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#888\"/>\n", p.l, p.t, p.b, p.r);
	/* the M = 0 column */
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\" stroke-dasharray=\"2 3\"/>\n",
		p.r + INF_GAP / 2, p.t, p.r + INF_GAP / 2, p.b);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">M=0</text>\n", p.xinf, p.b + 15);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">I = W/M (log scale)</text>\n", (p.l + p.r) / 2,
		p.b + 30);
	fprintf(out, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">P = W/T</text>\n",
		p.x + 14, (p.t + p.b) / 2);
	fputs("</g>\n", out);

	/* the samples, one marker per cell of 2 x 2 pixels (a marker is 4
	 * wide): the picture is the same, the file stays small with many
	 * samples */
	if (n_pts) {
		size_t w = (size_t)(PANEL_W / 2) + 1, h = (size_t)(PANEL_H / 2) + 1;
		uint8_t *seen = calloc((w * h + 7) / 8, 1);
		fputs("<g class=\"samples\" fill=\"#3572b0\" fill-opacity=\"0.5\">\n", out);
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 1)
				fputs("</g>\n<g class=\"samples-m0\" fill=\"#e08a1e\" fill-opacity=\"0.7\">\n", out);
			for (size_t k = 0; k < ms->n; k++) {
				double i, v;
				if (!sample_point(&ms->s[k], &i, &v) || isinf(i) != (pass == 1))
					continue;
				double x = px_i(&p, i), y = px_p(&p, v);
				size_t cx = (size_t)((x - p.x) / 2), cy = (size_t)((y - p.y) / 2), bit = cy * w + cx;
				if (seen && cx < w && cy < h) {
					if (seen[bit / 8] & (1u << (bit % 8)))
						continue;
					seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
				}
				if (pass == 0)
					fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>\n", x, y);
				else
					fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"5\" height=\"5\"/>\n", x - 2.5,
						y - 2.5);
			}
		}
		fputs("</g>\n", out);
		free(seen);
	}

	/* the roofline: log-spaced values and the knots in range, in order */
	if (r->n_knots && r->knots) {
		size_t cap = CURVE_N + r->n_knots, n = 0;
		double *xs = malloc(cap * sizeof *xs);
		if (xs) {
			for (size_t k = 0; k < CURVE_N; k++)
				xs[n++] = pow(10, p.lo + (p.hi - p.lo) * (double)k / (CURVE_N - 1));
			double i0 = pow(10, p.lo), i1 = pow(10, p.hi);
			for (size_t k = 0; k < r->n_knots; k++)
				if (r->knots[k].i > i0 && r->knots[k].i < i1)
					xs[n++] = r->knots[k].i;
			qsort(xs, n, sizeof *xs, cmp_double);
			fputs("<polyline class=\"roofline\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"", out);
			bool first = true;
			for (size_t k = 0; k < n; k++) {
				double v = spire_roofline_eval(r, xs[k]);
				if (!isfinite(v))
					continue;
				fprintf(out, "%s%.1f,%.1f", first ? "" : " ", px_i(&p, xs[k]), px_p(&p, v));
				first = false;
			}
			fputs("\"/>\n", out);
			free(xs);
		}
		double vi = spire_roofline_eval(r, INFINITY);
		if (isfinite(vi))
			fprintf(out, "<line class=\"roofline-inf\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n",
				p.xinf - 8, px_p(&p, vi), p.xinf + 8, px_p(&p, vi));
	}
	/* the peak */
	if (isfinite(r->peak_p) && (isinf(r->peak_i) || r->peak_i > 0)) {
		double x = px_i(&p, r->peak_i), y = px_p(&p, r->peak_p);
		fprintf(out, "<path class=\"peak\" d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"#c0392b\" stroke=\"white\"/>\n", x,
			y - 5);
	}
	/* the workload: estimate and measured */
	bool est_ok = isfinite(est), meas_ok = isfinite(meas);
	if (est_ok)
		hline(out, &p, est, "estimate", "#1a7f37", "6 4", "estimate", !meas_ok || est >= meas);
	if (meas_ok)
		hline(out, &p, meas, "measured", "#333", "2 3", "measured", !est_ok || meas > est);
	fputs("</g>\n", out);
}

/* a legend entry's text after its swatch at X; returns the next x */
static double legend_text(FILE *out, double x, double y, const char *text)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", x + 26, y + 4);
	rd_xml_text(out, text);
	fputs("</text>\n", out);
	return x + 26 + 6.2 * (double)strlen(text) + 18;
}

static double legend_line(FILE *out, double x, double y, const char *colour, const char *dash, const char *text)
{
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"", x, y,
		x + 20, y, colour);
	if (dash)
		fprintf(out, " stroke-dasharray=\"%s\"", dash);
	fputs("/>\n", out);
	return legend_text(out, x, y, text);
}

void render_spire_svg(FILE *out, const struct spire_roofline *const *r, size_t n,
			    const struct spire_sampleset *ss, const struct spire_analysis *a,
			    const struct spire_metricset *metrics, const char *title)
{
	/* two columns always: the legend needs the width */
	size_t rows = n ? (n + 1) / 2 : 1;
	double width = 2 * MARGIN + 2 * PANEL_W + GAP;
	double height = HEAD + (double)rows * (PANEL_H + GAP) + MARGIN;
	const char *t = title && *title ? title : "SPIRE rooflines";

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height);
	fputs("<title>", out);
	rd_xml_text(out, t);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"26\" font-size=\"16\">", MARGIN);
	rd_xml_text(out, t);
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"44\" fill=\"#555\">", MARGIN);
	if (ss && ss->time_event && ss->work_event) {
		fputs("P = W/T: ", out);
		rd_xml_text(out, ss->work_event);
		fputs(" per ", out);
		rd_xml_text(out, ss->time_event);
		fputs("; I = W/M: ", out);
		rd_xml_text(out, ss->work_event);
		fputs(" per event of the panel's metric", out);
	} else {
		fputs("P = W/T (throughput), I = W/M (work per event of the panel's metric)", out);
	}
	fputs("</text>\n", out);
	double lx = MARGIN, ly = 66;
	lx = legend_line(out, lx, ly, "#c0392b", NULL, "roofline");
	fprintf(out, "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"#c0392b\"/>\n", lx + 10, ly - 5);
	lx = legend_text(out, lx, ly, "peak (highest training P)");
	fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#3572b0\" fill-opacity=\"0.6\"/>\n", lx + 10, ly);
	lx = legend_text(out, lx, ly, "samples");
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#e08a1e\"/>\n", lx + 7, ly - 3);
	lx = legend_text(out, lx, ly, "samples with M = 0 (I infinite), at the right edge");
	if (a) {
		lx = legend_line(out, lx, ly, "#1a7f37", "6 4", "estimate");
		legend_line(out, lx, ly, "#333", "2 3", "measured");
	}

	for (size_t k = 0; k < n; k++)
		if (r[k])
			panel(out, r[k], k, ss, a, metrics);
	if (!n)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#999\">no rooflines</text>\n", MARGIN, HEAD + 20);
	fputs("</svg>\n", out);
}
