/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers of SPIRE (spire.h): a workload's analysis (gus spire analyze,
 * gus report's SPIRE section) and a model's rooflines (gus spire train and
 * show), each as text, CSV or JSON.
 *
 * Conventions shared by the CSV and JSON forms:
 *  - a metric's "ratio" is its estimate over the throughput measured on the
 *    same samples (spire_estimate.measured): a roofline bounds the samples
 *    it was trained on, so below 1 means the roofline saw too little data
 *    around that intensity; the ensemble's "ratio" is the workload's
 *    measured throughput over the ensemble estimate (how close to the
 *    ceiling it runs);
 *  - a likely bottleneck is a metric whose estimate is within 10 % of the
 *    lowest finite estimate (the paper suggests a pool of low-valued
 *    metrics rather than only the first);
 *  - numbers that are not finite are null in JSON and an empty value in
 *    CSV. A peak at I = infinity (the highest-throughput training sample
 *    had M = 0) is written in CSV as an empty peak_i and a field
 *    peak_at_infinity "yes" (written for every roofline, "no" otherwise),
 *    in JSON as "i": null (the peak's P is still there). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "spire.h"

/* a likely bottleneck: estimate <= lowest x BOTTLENECK_WITHIN */
#define BOTTLENECK_WITHIN 1.10

/* ---------------------------------------------------------- helpers --- */

static const struct spire_metric_def *metric_def(const struct spire_metricset *ms, const char *key)
{
	return ms && key ? spire_metricset_find(ms, key) : NULL;
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

/* P's name: "IPC" for the default cycles and instructions, else "W/T" */
static bool default_events(const char *time_event, const char *work_event)
{
	return time_event && work_event && spire_is_time_event(time_event, SPIRE_DEFAULT_TIME) &&
	       spire_is_work_event(work_event, SPIRE_DEFAULT_WORK);
}

static const char *p_name(const struct spire_model *m)
{
	return default_events(m->time_event, m->work_event) ? "IPC" : "W/T";
}

/* the lowest finite estimate of the analysis, NAN when there is none */
static double lowest_estimate(const struct spire_analysis *a)
{
	double lo = NAN;
	for (size_t k = 0; k < a->n; k++)
		if (isfinite(a->e[k].estimate) && (isnan(lo) || a->e[k].estimate < lo))
			lo = a->e[k].estimate;
	return lo;
}

static bool is_bottleneck(double estimate, double lo)
{
	return isfinite(estimate) && isfinite(lo) && estimate <= lo * BOTTLENECK_WITHIN;
}

static double ratio(double num, double den)
{
	return isfinite(num) && positive(den) ? num / den : NAN;
}

/* A throughput for the text tables: three decimals in the usual IPC
 * range, three significant digits outside it, "-" when not finite. */
static const char *num(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (v == 0 || (fabs(v) >= 0.01 && fabs(v) < 1e4))
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "%.3g", v);
	return buf;
}

/* an intensity: four significant digits (whole numbers from 1000 to 1e9),
 * "inf" when infinite (text only) */
static const char *inum(double v, char *buf, size_t n)
{
	if (isinf(v) && v > 0) {
		snprintf(buf, n, "inf");
		return buf;
	}
	if (isfinite(v)) {
		snprintf(buf, n, fabs(v) >= 1e3 && fabs(v) < 1e9 ? "%.0f" : "%.4g", v);
		return buf;
	}
	return num(v, buf, n);
}

/* ------------------------------------------------ skipped samples --- */
struct skip_kind {
	const char *field;	/* CSV field and JSON member */
	const char *unit;	/* "samples" or "intervals": what the count counts */
	const char *words;	/* text: "N <words>" */
};

static const struct skip_kind skip_kinds[] = {
	{ "zero_t", "samples", "samples with T = 0" },
	{ "zero_w", "samples", "samples with W = 0" },
	{ "not_counted", "samples", "samples whose metric, T or W was not counted" },
	{ "no_group", "samples", "samples without T or W in the metric's event group" },
	{ "bad_value", "samples", "samples with a negative, NaN or infinite count" },
	{ "not_simultaneous", "samples",
	  "samples not counted simultaneously with T and W (no event group), kept" },
	{ "intervals_without_tw", "intervals", "intervals without T or W at all" },
};
#define N_SKIP_KINDS (sizeof skip_kinds / sizeof *skip_kinds)

static size_t skip_count(const struct spire_skips *s, size_t k)
{
	switch (k) {
	case 0: return s->zero_t;
	case 1: return s->zero_w;
	case 2: return s->not_counted;
	case 3: return s->no_group;
	case 4: return s->bad_value;
	case 5: return s->not_simultaneous;
	default: return s->intervals_without_tw;
	}
}

/* -------------------------------------------------- analysis: text --- */


/* the model's T and W lines and the start of its training line */
static void text_tw_training(FILE *out, const struct spire_model *m)
{
	/* the events are the model file's, a file people share */
	char t[512], w[512];
	render_text_escape(t, sizeof t, m->time_event ? m->time_event : "?");
	render_text_escape(w, sizeof w, m->work_event ? m->work_event : "?");
	if (default_events(m->time_event, m->work_event))
		fprintf(out, "  T, W       %s, %s (P = W/T is IPC)\n", t, w);
	else
		fprintf(out, "  T, W       %s, %s (P = W/T: %s per %s)\n", t, w, w, t);
	fprintf(out, "  training   %zu samples", m->n_samples);
	if (m->n_files)
		fprintf(out, " from %zu file%s", m->n_files, m->n_files == 1 ? "" : "s");
}

static void text_analysis(FILE *out, const struct spire_model *m, const struct spire_analysis *a,
			  const struct spire_sampleset *ss, const struct merge_spire_info *info)
{
	char b1[32], b2[32];
	const char *pn = p_name(m);
	const char *model_path = info->model_path ? info->model_path : "(unnamed)";

	/* the model file's strings and the paths, as the text escaping shows them */
	if (info->section) {
		rd_text_put(out, "SPIRE (model ", model_path, ")\n");
	} else {
		fprintf(out, "SPIRE: statistical roofline ensemble\n\n");
		rd_text_put(out, "  model      ", model_path, "\n");
		rd_text_put(out, "  cpu        ", m->cpu ? m->cpu : "unknown", "\n");
		text_tw_training(out, m);
		fprintf(out, ", %zu roofline%s\n", m->n, m->n == 1 ? "" : "s");
		for (size_t i = 0; i < info->n_inputs; i++) {
			fprintf(out, "  %-10s ", i ? "" : "input");
			rd_text_put(out, "", info->inputs[i], "\n");
		}
	}
	fputc('\n', out);

	/* the workload against the ensemble */
	char pl[1100], tev[512], wev[512];
	render_text_escape(tev, sizeof tev, m->time_event ? m->time_event : "?");
	render_text_escape(wev, sizeof wev, m->work_event ? m->work_event : "?");
	if (default_events(m->time_event, m->work_event))
		snprintf(pl, sizeof pl, "measured IPC");
	else
		snprintf(pl, sizeof pl, "measured W/T (%s per %s)", wev, tev);
	if (positive(a->measured))
		fprintf(out, "  %-22s %8s   over %zu sample%s of %zu metric%s\n", pl, num(a->measured, b1, sizeof b1),
			a->n_samples, a->n_samples == 1 ? "" : "s", a->n, a->n == 1 ? "" : "s");
	else
		fprintf(out, "  %-22s %8s   (no T and W totals in the input)\n", pl, "n/a");
	double lo = lowest_estimate(a);
	fprintf(out, "  %-22s %8s   the lowest roofline estimate: the workload's ceiling\n", "ensemble estimate",
		num(positive(a->ensemble) ? a->ensemble : lo, b1, sizeof b1));
	double rr = ratio(a->measured, positive(a->ensemble) ? a->ensemble : lo);
	if (isfinite(rr) && positive(a->measured)) {
		if (rr <= 1)
			fprintf(out, "  %-22s %8.2f   the workload runs %.0f %% below the ensemble ceiling\n",
				"measured / ensemble", rr, 100 * (1 - rr));
		else
			fprintf(out, "  %-22s %8.2f   above the ensemble ceiling: the model saw too little data like this workload\n",
				"measured / ensemble", rr);
	} else {
		fprintf(out, "  %-22s %8s\n", "measured / ensemble", "n/a");
	}
	fputc('\n', out);

	if (!a->n) {
		fprintf(out, "  no metric of the input has a roofline in the model\n");
	} else {
		size_t shown = info->top && info->top < a->n ? info->top : a->n;
		int abbr_w = 4, ev_w = 5;
		for (size_t k = 0; k < shown; k++) {
			const struct spire_roofline *r = a->e[k].r;
			const struct spire_metric_def *d = metric_def(info->metrics, r ? r->metric : NULL);
			if (d && d->abbr && (int)strlen(d->abbr) > abbr_w)
				abbr_w = (int)strlen(d->abbr);
			char lab[512];
			render_text_escape(lab, sizeof lab, r && r->label ? r->label : r && r->metric ? r->metric : "?");
			if ((int)strlen(lab) > ev_w)
				ev_w = (int)strlen(lab);
		}
		if (ev_w > 48)
			ev_w = 48;
		fprintf(out, "  %4s  %-*s  %-*s  %-15s %9s %9s %8s  %12s\n", "rank", abbr_w, "abbr", ev_w, "event", "area",
			"estimate", "est/meas", "samples", "left of peak");
		for (size_t k = 0; k < shown; k++) {
			const struct spire_estimate *e = &a->e[k];
			const struct spire_roofline *r = e->r;
			const struct spire_metric_def *d = metric_def(info->metrics, r ? r->metric : NULL);
			char lab[512];
			render_text_escape(lab, sizeof lab, r && r->label ? r->label : r && r->metric ? r->metric : "?");
			double x = ratio(e->estimate, e->measured);
			char xs[32], lp[32];
			if (isfinite(x))
				snprintf(xs, sizeof xs, "%.2fx%s", x, x < 1 ? "!" : " ");
			else
				snprintf(xs, sizeof xs, "- ");
			if (isfinite(e->left_of_peak))
				snprintf(lp, sizeof lp, "%.0f %%", 100 * e->left_of_peak);
			else
				snprintf(lp, sizeof lp, "-");
			fprintf(out, "  %4zu  %-*s  %-*s  %-15s %9s %9s %8zu  %12s%s\n", k + 1, abbr_w,
				d && d->abbr ? d->abbr : "-", ev_w, lab, d && d->area ? d->area : "-",
				num(e->estimate, b1, sizeof b1), xs, e->n, lp,
				is_bottleneck(e->estimate, lo) ? "  <==" : "");
		}
		if (shown < a->n) {
			size_t more_b = 0;
			for (size_t k = shown; k < a->n; k++)
				more_b += is_bottleneck(a->e[k].estimate, lo);
			fprintf(out, "  (%zu more metric%s not listed", a->n - shown, a->n - shown == 1 ? "" : "s");
			if (more_b)
				fprintf(out, ", %zu of them within 10 %% of the lowest", more_b);
			fprintf(out, ")\n");
		}
		fprintf(out, "\n  <== likely bottleneck: estimate within 10 %% of the lowest (%s, up to %s)\n",
			num(lo, b1, sizeof b1), num(lo * BOTTLENECK_WITHIN, b2, sizeof b2));
	}

	if (a->n_unmodeled) {
		fprintf(out, "  unmodeled (no roofline in the model): ");
		for (size_t i = 0; i < a->n_unmodeled; i++)
			rd_text_put(out, i ? ", " : "", a->unmodeled[i] ? a->unmodeled[i] : "?", "");
		fputc('\n', out);
	}
	if (ss)
		for (size_t k = 0; k < N_SKIP_KINDS; k++) {
			size_t c = skip_count(&ss->skips, k);
			if (c)	/* not_simultaneous samples are used: a warning, not a skip */
				fprintf(out, "  %s %zu %s\n", k == 5 ? "warning:" : "skipped:", c, skip_kinds[k].words);
		}
	if (info->cpu_note && *info->cpu_note)
		fprintf(out, "  note: %s\n", info->cpu_note);

	fprintf(out, "\n  How to read: the lowest estimates are the likely bottlenecks; weigh the marked pool, not rank 1 alone.\n");
	fprintf(out, "  est/meas below 1 (!): %s measured above the estimate; the roofline saw too little data near this intensity.\n",
		pn);
}

/* --------------------------------------------------- analysis: CSV --- */

static void csv_key(FILE *out, const char *kind, const char *name, const char *field)
{
	render_csv_field(out, kind, ',');
	fputc(',', out);
	render_csv_field(out, name ? name : "", ',');
	fputc(',', out);
	render_csv_field(out, field, ',');
	fputc(',', out);
}

static void csv_str(FILE *out, const char *kind, const char *name, const char *field, const char *v)
{
	csv_key(out, kind, name, field);
	render_csv_field(out, v ? v : "", ',');
	fputc('\n', out);
}

/* empty for a number that is not finite */
static void csv_num(FILE *out, const char *kind, const char *name, const char *field, double v)
{
	csv_key(out, kind, name, field);
	if (isfinite(v))
		fprintf(out, "%.9g", v);
	fputc('\n', out);
}

static void csv_size(FILE *out, const char *kind, const char *name, const char *field, size_t v)
{
	csv_key(out, kind, name, field);
	fprintf(out, "%zu\n", v);
}

static void csv_model_rows(FILE *out, const struct spire_model *m)
{
	csv_str(out, "model", "model", "cpu", m->cpu);
	csv_str(out, "model", "model", "time", m->time_event);
	csv_str(out, "model", "model", "work", m->work_event);
	csv_size(out, "model", "model", "samples", m->n_samples);
	csv_size(out, "model", "model", "files", m->n_files);
	csv_size(out, "model", "model", "rooflines", m->n);
}

static void csv_peak(FILE *out, const char *kind, const struct spire_roofline *r)
{
	const char *lab = r->label ? r->label : r->metric;
	csv_num(out, kind, lab, "peak_i", r->peak_i);
	csv_str(out, kind, lab, "peak_at_infinity", isinf(r->peak_i) && r->peak_i > 0 ? "yes" : "no");
	csv_num(out, kind, lab, "peak_p", r->peak_p);
}

static void csv_analysis(FILE *out, const struct spire_model *m, const struct spire_analysis *a,
			 const struct spire_sampleset *ss, const struct merge_spire_info *info)
{
	fprintf(out, "kind,name,field,value\n");
	csv_str(out, "input", "model", "file", info->model_path);
	csv_str(out, "input", "model", "cpu", m->cpu);
	csv_str(out, "input", "model", "time", m->time_event);
	csv_str(out, "input", "model", "work", m->work_event);
	csv_size(out, "input", "model", "samples", m->n_samples);
	csv_size(out, "input", "model", "files", m->n_files);
	csv_size(out, "input", "model", "rooflines", m->n);
	for (size_t i = 0; i < info->n_inputs; i++)
		csv_str(out, "input", "samples", "file", info->inputs[i]);

	const char *pn = p_name(m);
	double lo = lowest_estimate(a);
	double ens = positive(a->ensemble) ? a->ensemble : lo;
	csv_num(out, "ensemble", pn, "estimate", ens);
	csv_num(out, "ensemble", pn, "measured", positive(a->measured) ? a->measured : NAN);
	csv_num(out, "ensemble", pn, "ratio", ratio(a->measured, ens));
	csv_size(out, "ensemble", pn, "samples", a->n_samples);
	csv_size(out, "ensemble", pn, "metrics", a->n);

	for (size_t k = 0; k < a->n; k++) {
		const struct spire_estimate *e = &a->e[k];
		const struct spire_roofline *r = e->r;
		if (!r)
			continue;
		const struct spire_metric_def *d = metric_def(info->metrics, r->metric);
		const char *lab = r->label ? r->label : r->metric;
		csv_size(out, "metric", lab, "rank", k + 1);
		csv_str(out, "metric", lab, "metric", r->metric);
		csv_str(out, "metric", lab, "abbr", d ? d->abbr : NULL);
		csv_str(out, "metric", lab, "area", d ? d->area : NULL);
		csv_num(out, "metric", lab, "estimate", e->estimate);
		csv_num(out, "metric", lab, "ratio", ratio(e->estimate, e->measured));
		csv_size(out, "metric", lab, "samples", e->n);
		csv_num(out, "metric", lab, "time", e->t);
		csv_num(out, "metric", lab, "left_of_peak", e->left_of_peak);
		csv_str(out, "metric", lab, "bottleneck", is_bottleneck(e->estimate, lo) ? "yes" : "no");
		csv_peak(out, "metric", r);
	}
	for (size_t i = 0; i < a->n_unmodeled; i++)
		csv_str(out, "unmodeled", a->unmodeled[i], "roofline", "no");
	if (ss)
		for (size_t k = 0; k < N_SKIP_KINDS; k++)
			csv_size(out, "skipped", skip_kinds[k].unit, skip_kinds[k].field, skip_count(&ss->skips, k));
	if (info->cpu_note && *info->cpu_note)
		csv_str(out, "note", "cpu", "note", info->cpu_note);
}

/* -------------------------------------------------- analysis: JSON --- */

/* a new line at nesting DEPTH (two spaces each) under the caller's IND */
static void json_nl(FILE *out, int ind, int depth)
{
	fprintf(out, "\n%*s", ind + 2 * depth, "");
}

static void jstr_or_null(FILE *out, const char *s)
{
	if (s)
		render_json_string(out, s);
	else
		fputs("null", out);
}

static void json_analysis(FILE *out, const struct spire_model *m, const struct spire_analysis *a,
			  const struct spire_sampleset *ss, const struct merge_spire_info *info)
{
	int ind = info->json_indent > 0 ? info->json_indent : 0;
	double lo = lowest_estimate(a);
	double ens = positive(a->ensemble) ? a->ensemble : lo;

	fputc('{', out);
	json_nl(out, ind, 1);
	fputs("\"model\": {\"file\": ", out);
	jstr_or_null(out, info->model_path);
	fputs(", \"cpu\": ", out);
	jstr_or_null(out, m->cpu);
	fputs(", \"time\": ", out);
	jstr_or_null(out, m->time_event);
	fputs(", \"work\": ", out);
	jstr_or_null(out, m->work_event);
	fprintf(out, ", \"samples\": %zu, \"files\": %zu, \"rooflines\": %zu},", m->n_samples, m->n_files, m->n);
	json_nl(out, ind, 1);
	fputs("\"inputs\": [", out);
	for (size_t i = 0; i < info->n_inputs; i++) {
		fputs(i ? ", " : "", out);
		jstr_or_null(out, info->inputs[i]);
	}
	fputs("],", out);
	json_nl(out, ind, 1);
	fputs("\"throughput\": ", out);
	render_json_string(out, p_name(m));
	fputs(", \"measured\": ", out);
	render_json_number(out, positive(a->measured) ? a->measured : NAN);
	fputs(", \"ensemble\": ", out);
	render_json_number(out, ens);
	fputs(", \"ratio\": ", out);
	render_json_number(out, ratio(a->measured, ens));
	fprintf(out, ", \"samples\": %zu,", a->n_samples);
	json_nl(out, ind, 1);
	fputs("\"metrics\": [", out);
	bool first = true;
	for (size_t k = 0; k < a->n; k++) {
		const struct spire_estimate *e = &a->e[k];
		const struct spire_roofline *r = e->r;
		if (!r)
			continue;
		const struct spire_metric_def *d = metric_def(info->metrics, r->metric);
		fputs(first ? "" : ",", out);
		first = false;
		json_nl(out, ind, 2);
		fprintf(out, "{\"rank\": %zu, \"metric\": ", k + 1);
		jstr_or_null(out, r->metric);
		fputs(", \"label\": ", out);
		jstr_or_null(out, r->label);
		fputs(", \"abbr\": ", out);
		jstr_or_null(out, d ? d->abbr : NULL);
		fputs(", \"area\": ", out);
		jstr_or_null(out, d ? d->area : NULL);
		fputs(", \"estimate\": ", out);
		render_json_number(out, e->estimate);
		fputs(", \"ratio\": ", out);
		render_json_number(out, ratio(e->estimate, e->measured));
		fprintf(out, ", \"samples\": %zu, \"time\": ", e->n);
		render_json_number(out, e->t);
		fputs(", \"left_of_peak\": ", out);
		render_json_number(out, e->left_of_peak);
		fprintf(out, ", \"bottleneck\": %s, \"peak\": {\"i\": ", is_bottleneck(e->estimate, lo) ? "true" : "false");
		render_json_number(out, r->peak_i);
		fputs(", \"p\": ", out);
		render_json_number(out, r->peak_p);
		fputs("}}", out);
	}
	if (!first)
		json_nl(out, ind, 1);
	fputs("],", out);
	json_nl(out, ind, 1);
	fputs("\"unmodeled\": [", out);
	for (size_t i = 0; i < a->n_unmodeled; i++) {
		fputs(i ? ", " : "", out);
		jstr_or_null(out, a->unmodeled[i]);
	}
	fputs("],", out);
	json_nl(out, ind, 1);
	fputs("\"skipped\": ", out);
	if (ss) {
		fputc('{', out);
		for (size_t k = 0; k < N_SKIP_KINDS; k++)
			fprintf(out, "%s\"%s\": %zu", k ? ", " : "", skip_kinds[k].field, skip_count(&ss->skips, k));
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs(",", out);
	json_nl(out, ind, 1);
	fputs("\"cpu_note\": ", out);
	jstr_or_null(out, info->cpu_note && *info->cpu_note ? info->cpu_note : NULL);
	json_nl(out, ind, 0);
	fputc('}', out);
	if (!ind)
		fputc('\n', out);
}

void render_spire(FILE *out, const struct spire_model *m, const struct spire_analysis *a,
			const struct spire_sampleset *ss, const struct merge_spire_info *info,
			enum render_format fmt)
{
	static const struct merge_spire_info none;
	if (!info)
		info = &none;
	switch (fmt) {
	case RENDER_CSV:
		csv_analysis(out, m, a, ss, info);
		break;
	case RENDER_JSON:
		json_analysis(out, m, a, ss, info);
		break;
	default:
		text_analysis(out, m, a, ss, info);
		break;
	}
}

/* ------------------------------------------------------------ model --- */

/* knots from the origin to the peak, and right of the peak */
static size_t knots_left(const struct spire_roofline *r)
{
	return r->n_knots ? (r->peak < r->n_knots ? r->peak + 1 : r->n_knots) : 0;
}

static size_t knots_right(const struct spire_roofline *r)
{
	return r->n_knots - knots_left(r);
}

static void text_model(FILE *out, const struct spire_model *m, const struct spire_metricset *metrics)
{
	char b1[32], b2[32], b3[32], b4[32];
	fprintf(out, "SPIRE model: %zu roofline%s, cpu ", m->n, m->n == 1 ? "" : "s");
	rd_text_put(out, "", m->cpu ? m->cpu : "unknown", "\n");
	text_tw_training(out, m);
	fputs("\n\n", out);
	if (!m->n)
		return;
	int abbr_w = 4, ev_w = 5;
	for (size_t k = 0; k < m->n; k++) {
		const struct spire_roofline *r = &m->r[k];
		const struct spire_metric_def *d = metric_def(metrics, r->metric);
		if (d && d->abbr && (int)strlen(d->abbr) > abbr_w)
			abbr_w = (int)strlen(d->abbr);
		char lab[512];
		render_text_escape(lab, sizeof lab, r->label ? r->label : r->metric ? r->metric : "?");
		if ((int)strlen(lab) > ev_w)
			ev_w = (int)strlen(lab);
	}
	if (ev_w > 48)
		ev_w = 48;
	fprintf(out, "  %-*s  %-*s  %-15s %8s %9s %9s %5s %5s %9s %9s\n", abbr_w, "abbr", ev_w, "event", "area",
		"samples", "peak I", "peak P", "left", "right", "tail P", "P at inf");
	for (size_t k = 0; k < m->n; k++) {
		const struct spire_roofline *r = &m->r[k];
		const struct spire_metric_def *d = metric_def(metrics, r->metric);
		char lab[512];
		render_text_escape(lab, sizeof lab, r->label ? r->label : r->metric ? r->metric : "?");
		fprintf(out, "  %-*s  %-*s  %-15s %8zu %9s %9s %5zu %5zu %9s %9s\n", abbr_w, d && d->abbr ? d->abbr : "-",
			ev_w, lab, d && d->area ? d->area : "-", r->n_train, inum(r->peak_i, b1, sizeof b1),
			num(r->peak_p, b2, sizeof b2), knots_left(r), knots_right(r), num(r->tail_p, b3, sizeof b3),
			num(r->inf_p, b4, sizeof b4));
	}
	fprintf(out, "\n  peak: the highest-throughput training sample (I inf: it had M = 0); left: knots from the origin\n"
		     "  to the peak, right: knots after it; tail P: the estimate beyond the last knot; P at inf: at M = 0\n");
}

static void csv_model(FILE *out, const struct spire_model *m, const struct spire_metricset *metrics)
{
	fprintf(out, "kind,name,field,value\n");
	csv_model_rows(out, m);
	for (size_t k = 0; k < m->n; k++) {
		const struct spire_roofline *r = &m->r[k];
		const struct spire_metric_def *d = metric_def(metrics, r->metric);
		const char *lab = r->label ? r->label : r->metric;
		csv_str(out, "roofline", lab, "metric", r->metric);
		csv_str(out, "roofline", lab, "abbr", d ? d->abbr : NULL);
		csv_str(out, "roofline", lab, "area", d ? d->area : NULL);
		csv_size(out, "roofline", lab, "samples", r->n_train);
		csv_peak(out, "roofline", r);
		csv_size(out, "roofline", lab, "knots_left", knots_left(r));
		csv_size(out, "roofline", lab, "knots_right", knots_right(r));
		csv_num(out, "roofline", lab, "tail_p", r->tail_p);
		csv_num(out, "roofline", lab, "inf_p", r->inf_p);
	}
}

static void json_model(FILE *out, const struct spire_model *m, const struct spire_metricset *metrics)
{
	fputs("{\n  \"cpu\": ", out);
	jstr_or_null(out, m->cpu);
	fputs(",\n  \"time\": ", out);
	jstr_or_null(out, m->time_event);
	fputs(",\n  \"work\": ", out);
	jstr_or_null(out, m->work_event);
	fprintf(out, ",\n  \"samples\": %zu,\n  \"files\": %zu,\n  \"rooflines\": [", m->n_samples, m->n_files);
	for (size_t k = 0; k < m->n; k++) {
		const struct spire_roofline *r = &m->r[k];
		const struct spire_metric_def *d = metric_def(metrics, r->metric);
		fprintf(out, "%s\n    {\"metric\": ", k ? "," : "");
		jstr_or_null(out, r->metric);
		fputs(", \"label\": ", out);
		jstr_or_null(out, r->label);
		fputs(", \"abbr\": ", out);
		jstr_or_null(out, d ? d->abbr : NULL);
		fputs(", \"area\": ", out);
		jstr_or_null(out, d ? d->area : NULL);
		fprintf(out, ", \"samples\": %zu, \"peak\": {\"i\": ", r->n_train);
		render_json_number(out, r->peak_i);
		fputs(", \"p\": ", out);
		render_json_number(out, r->peak_p);
		fprintf(out, ", \"knot\": %zu}, \"knots\": [", r->peak);
		for (size_t j = 0; j < r->n_knots; j++) {
			fputs(j ? ", [" : "[", out);
			render_json_number(out, r->knots[j].i);
			fputs(", ", out);
			render_json_number(out, r->knots[j].p);
			fputc(']', out);
		}
		fputs("], \"tail\": ", out);
		render_json_number(out, r->tail_p);
		fputs(", \"infinity\": ", out);
		render_json_number(out, r->inf_p);
		fputc('}', out);
	}
	fprintf(out, "%s]\n}\n", m->n ? "\n  " : "");
}

void render_spire_model(FILE *out, const struct spire_model *m, const struct spire_metricset *metrics,
			      enum render_format fmt)
{
	switch (fmt) {
	case RENDER_CSV:
		csv_model(out, m, metrics);
		break;
	case RENDER_JSON:
		json_model(out, m, metrics);
		break;
	default:
		text_model(out, m, metrics);
		break;
	}
}

void render_spire_metricset(FILE *out, const struct spire_metricset *set)
{
	fprintf(out, "# SPIRE metric set %s (%s), T = %s, W = %s\n", set->id, set->origin, set->time_event,
		set->work_event);
	fprintf(out, "%-6s %-16s %-48s %s\n", "abbr", "area", "event", "description");
	for (size_t i = 0; i < set->n; i++)
		fprintf(out, "%-6s %-16s %-48s %s\n", set->m[i].abbr, set->m[i].area, set->m[i].event,
			set->m[i].desc ? set->m[i].desc : "");
}
