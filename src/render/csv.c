/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report as CSV: section,region,kind,name,field,value rows of the
 * report model (merge.h), gus-report(1) CSV OUTPUT. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

/* Lines of a sub-renderer's CSV, each prefixed with the section and region */
static void csv_prefixed(FILE *out, const char *text, const char *section, const char *region, char sep,
			 bool skip_header)
{
	const char *p = text;
	bool first = true;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && !(first && skip_header)) {
			render_csv_field(out, section, sep);
			fputc(sep, out);
			render_csv_field(out, region, sep);
			fputc(sep, out);
			fwrite(p, 1, len, out);
			fputc('\n', out);
		}
		first = false;
		p += len + (nl != NULL);
	}
}

static char *render_to_string(void (*fn)(FILE *, void *), void *ctx)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	fn(f, ctx);
	fclose(f);
	return buf;
}

struct sim_render_ctx {
	const struct merge_report *r;
	const struct merge_report_region *v;
	struct render_sim_info *info;
	enum render_format fmt;
};

static void sim_render_fn(FILE *f, void *ctx)
{
	struct sim_render_ctx *c = ctx;
	render_sim(f, c->r->m, c->v->code, c->v->an, c->info, c->fmt);
}

struct spire_render_ctx {
	const struct merge_report *r;
	const struct merge_spire_info *info;
};

static void spire_render_fn(FILE *f, void *ctx)
{
	struct spire_render_ctx *c = ctx;
	render_spire(f, c->r->spire_model, c->r->spire_an, c->r->spire_ss, c->info, RENDER_CSV);
}

/* windows,RANK,summary,NAME,picked|total|threads|unit|min|median|max,V;
 * windows,RANK,phaseK,NAME,from_record|to_record|share|cycles_per_unit|windows,V */
static void write_csv_windows(FILE *out, const struct merge_report_region *rv, const char *rank, char sep)
{
	if (!rv->windows)
		return;
	char v[8][64];
	snprintf(v[0], sizeof v[0], "%zu", rv->windows);
	snprintf(v[1], sizeof v[1], "%zu", rv->windows_total);
	snprintf(v[2], sizeof v[2], "%zu", rv->window_threads);
	snprintf(v[3], sizeof v[3], "%s", rv->window_unit);
	snprintf(v[4], sizeof v[4], "%.6g", rv->window_min);
	snprintf(v[5], sizeof v[5], "%.6g", rv->window_median);
	snprintf(v[6], sizeof v[6], "%.6g", rv->window_max);
	snprintf(v[7], sizeof v[7], "%s", rv->phases_scattered ? "yes" : "no");
	static const char *names[] = { "picked", "total", "threads", "unit", "min", "median", "max", "phases_scattered" };
	for (size_t k = 0; k < 8; k++) {
		fprintf(out, "windows%c%s%csummary%c", sep, rank, sep, sep);
		render_csv_field(out, rv->name, sep);
		fprintf(out, "%c%s%c%s\n", sep, names[k], sep, v[k]);
	}
	for (size_t k = 0; k < rv->nphases; k++) {
		const struct merge_report_phase *p = &rv->phases[k];
		double num[] = { p->from, p->to, p->share, p->cycles_per_unit, (double)p->windows };
		static const char *pn[] = { "from_record", "to_record", "share", "cycles_per_unit", "windows" };
		for (size_t j = 0; j < 5; j++) {
			fprintf(out, "windows%c%s%cphase%zu%c", sep, rank, sep, k + 1, sep);
			render_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c%.9g\n", sep, pn[j], sep, num[j]);
		}
	}
}

/* threads,RANK,tidTID,NAME,pid|share|cycles_per_unit|model,V */
static void write_csv_threads(FILE *out, const struct merge_report_region *rv, const char *rank, char sep)
{
	if (rv->nthreads < 2)
		return;
	for (size_t k = 0; k < rv->nthreads; k++) {
		const struct merge_report_thread *t = &rv->threads[k];
		char v[3][64];
		snprintf(v[0], sizeof v[0], "%d", t->pid);
		snprintf(v[1], sizeof v[1], "%.9g", t->share);
		if (t->simulated)
			snprintf(v[2], sizeof v[2], "%.9g", t->cycles_per_unit);
		else
			v[2][0] = 0;
		static const char *names[] = { "pid", "share", "cycles_per_unit" };
		for (size_t j = 0; j < 4; j++) {
			fprintf(out, "threads%c%s%ctid%d%c", sep, rank, sep, t->tid, sep);
			render_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c", sep, j < 3 ? names[j] : "model", sep);
			render_csv_field(out, j < 3 ? v[j] : t->model, sep);
			fputc('\n', out);
		}
	}
}

/* callers,RANK,caller,NAME,samples|share|file,VALUE per caller, "[other
 * callers]" for the rest; callers,RANK,region,NAME,chain_samples,N; or
 * callers,RANK,missing,,why,WHY */
/* region,RANK,region,NAME,measured_samples|measured.NODE|measured_missing,VALUE */
static void write_csv_region_tree(const struct merge_report *r, FILE *out, const struct merge_report_region *rv,
				  const char *rank, char sep)
{
	const struct td_tree *t = rv->measured;
	if (!t) {
		if (!r->tree)
			return;
		fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
		render_csv_field(out, rv->name, sep);
		fprintf(out, "%cmeasured_missing%c", sep, sep);
		render_csv_field(out, rv->measured_note && rv->measured_note[0] ? rv->measured_note
				     : r->why_no_region_measure ? r->why_no_region_measure
								: "this region has no counts of its own", sep);
		fputc('\n', out);
		return;
	}
	fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
	render_csv_field(out, rv->name, sep);
	if (rv->measured_imported)
		fprintf(out, "%cmeasured_samples%cimported\n", sep, sep);
	else
		fprintf(out, "%cmeasured_samples%c%llu\n", sep, sep, (unsigned long long)rv->measured_samples);
	for (size_t i = 0; i < t->table->n_nodes; i++) {
		const struct td_result *x = &t->res[i];
		if (x->status == TD_NOT_SELECTED)
			continue;
		fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
		render_csv_field(out, rv->name, sep);
		char field[128];
		snprintf(field, sizeof field, "measured.%s", t->table->nodes[i].name);
		fputc(sep, out);
		render_csv_field(out, field, sep);
		fputc(sep, out);
		if (x->status == TD_NOT_COMPUTABLE)
			fputs("n/a", out);
		else
			fprintf(out, "%.6f%s", x->value, x->status == TD_MISMEASURED ? " MISMEASURED" : "");
		fputc('\n', out);
	}
}

static void write_csv_callers(const struct merge_report *r, FILE *out, const struct merge_report_region *rv,
			      const char *rank, char sep)
{
	if (r->why_no_callers) {
		fprintf(out, "callers%c%s%cmissing%c%cwhy%c", sep, rank, sep, sep, sep, sep);
		render_csv_field(out, r->why_no_callers, sep);
		fputc('\n', out);
		return;
	}
	fprintf(out, "callers%c%s%cregion%c", sep, rank, sep, sep);
	render_csv_field(out, rv->name, sep);
	fprintf(out, "%cchain_samples%c%llu\n", sep, sep, (unsigned long long)rv->chain_samples);
	for (size_t k = 0; k <= rv->ncallers; k++) {
		const struct merge_report_caller *c = k < rv->ncallers ? &rv->callers[k] : NULL;
		if (!c && !rv->callers_other)
			break;
		const char *name = c ? c->name : "[other callers]";
		uint64_t samples = c ? c->samples : rv->callers_other;
		fprintf(out, "callers%c%s%ccaller%c", sep, rank, sep, sep);
		render_csv_field(out, name, sep);
		fprintf(out, "%csamples%c%llu\n", sep, sep, (unsigned long long)samples);
		fprintf(out, "callers%c%s%ccaller%c", sep, rank, sep, sep);
		render_csv_field(out, name, sep);
		fprintf(out, "%cshare%c%.9g\n", sep, sep, (double)samples / (double)rv->chain_samples);
		if (c && c->file[0]) {
			fprintf(out, "callers%c%s%ccaller%c", sep, rank, sep, sep);
			render_csv_field(out, name, sep);
			fprintf(out, "%cfile%c", sep, sep);
			render_csv_field(out, c->file, sep);
			fputc('\n', out);
		}
	}
}

static void write_csv(const struct merge_report *r, FILE *out, char sep)
{
	fprintf(out, "section%cregion%ckind%cname%cfield%cvalue\n", sep, sep, sep, sep, sep);
	if (r->tree) {
		/* one row per node and field, in the report's columns */
		const struct td_table *t = r->tree->table;
		static const char *status[] = { "ok", "not computable", "mismeasured", "not selected" };
		for (size_t i = 0; i < t->n_nodes; i++) {
			const struct td_node *nd = &t->nodes[i];
			const struct td_result *res = &r->tree->res[i];
			if (nd->level > r->tree->max_level || res->status == TD_NOT_SELECTED)
				continue;
			char value[32] = "", mux[32];
			if (res->status != TD_NOT_COMPUTABLE && isfinite(res->value))
				snprintf(value, sizeof value, "%.6g", res->value);
			snprintf(mux, sizeof mux, "%.4f", res->mux);
			const char *fields[][2] = { { "value", value }, { "status", status[res->status] },
						    { "bottleneck", res->bottleneck ? (res->candidate ? "candidate" : "yes") : "no" },
						    { "multiplex_ratio", mux } };
			for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
				fprintf(out, "measured%c%cnode%c", sep, sep, sep);
				render_csv_field(out, nd->name, sep);
				fprintf(out, "%c%s%c%s\n", sep, fields[k][0], sep, fields[k][1]);
			}
		}
	} else {
		fprintf(out, "measured%c%cmissing%c%cwhy%c", sep, sep, sep, sep, sep);
		render_csv_field(out, r->why_no_measure, sep);
		fputc('\n', out);
	}
	if (r->spire_model) {
		struct merge_spire_info info = r->spire_info;
		info.section = true;
		struct spire_render_ctx sc = { r, &info };
		char *s = render_to_string(spire_render_fn, &sc);
		if (s)
			csv_prefixed(out, s, "spire", "", sep, true);
		free(s);
	} else if (r->spire_asked) {
		fprintf(out, "spire%c%cmissing%c%cwhy%c", sep, sep, sep, sep, sep);
		render_csv_field(out, r->why_no_spire, sep);
		fputc('\n', out);
	}
	/* outside,,NAME,samples|share|what,V: the time outside the hot functions */
	for (size_t i = 0; i < r->noutside; i++) {
		const struct merge_report_outside *o = &r->outside[i];
		char v[2][64];
		snprintf(v[0], sizeof v[0], "%llu", (unsigned long long)o->samples);
		snprintf(v[1], sizeof v[1], "%.9g", o->share);
		const char *fields[][2] = { { "samples", v[0] }, { "share", v[1] }, { "what", o->what } };
		for (size_t k = 0; k < 3; k++) {
			fprintf(out, "outside%c%coutside%c", sep, sep, sep);
			render_csv_field(out, o->name, sep);
			fprintf(out, "%c%s%c", sep, fields[k][0], sep);
			render_csv_field(out, fields[k][1], sep);
			fputc('\n', out);
		}
	}
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->selected)
			continue;
		char rank[16];
		snprintf(rank, sizeof rank, "%d", rv->rank);
		/* region rows: kind, name, field, value */
		char function_rank[16] = "";
		if (rv->parent >= 0)
			snprintf(function_rank, sizeof function_rank, "%d", r->regions[rv->parent].rank);
		const char *fields[][2] = { { "kind", rv->kind }, { "file", rv->file }, { "source", rv->source },
					    { "object", rv->object }, { "unit", rv->unit },
					    { "function_rank", function_rank },
					    { "shown_with_function", rv->with_parent ? "yes" : "no" },
					    { "details", rv->details ? "yes" : "no" },
					    { "verdict", merge_agreement_name(rv->verdict.kind) },
					    { "verdict_text", rv->verdict.text }, { "verdict_summary", rv->verdict.summary },
					    { "measured", rv->verdict.measured },
					    { "resource", rv->verdict.resource },
					    { "simulated_missing", rv->simulated ? "" : rv->why_no_model },
					    { "stream_cut", rv->stream_cut ? rv->stream_cut : "" } };
		for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
			fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
			render_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c", sep, fields[k][0], sep);
			render_csv_field(out, fields[k][1], sep);
			fputc('\n', out);
		}
		double nums[] = { (double)rv->samples, rv->share, rv->simulated ? rv->verdict.speedup_top : NAN,
				  rv->simulated ? rv->verdict.gain_upper : NAN, rv->stream_covers,
				  rv->simulated ? rv->verdict.stall_share[0] : NAN, rv->simulated ? rv->verdict.stall_share[1] : NAN,
				  rv->simulated ? rv->verdict.stall_share[2] : NAN, rv->simulated ? rv->verdict.stall_share[3] : NAN };
		const char *nnames[] = { "samples", "share", "speedup_top", "gain_upper", "stream_covers",
					 "load_wait_share.l1", "load_wait_share.l2", "load_wait_share.l3",
					 "load_wait_share.memory" };
		for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
			fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
			render_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c", sep, nnames[k], sep);
			if (isfinite(nums[k]))
				fprintf(out, "%.9g", nums[k]);
			fputc('\n', out);
		}
		write_csv_region_tree(r, out, rv, rank, sep);
		for (size_t k = 0; rv->counts && k < rv->counts->n; k++) {
			const struct td_count *c = &rv->counts->c[k];
			fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
			render_csv_field(out, rv->name, sep);
			/* the event names of a recording's counts are its own */
			char field[4 * 256];
			snprintf(field, sizeof field, "count.%s", c->event);
			fputc(sep, out);
			render_csv_field(out, field, sep);
			fputc(sep, out);
			if (c->counted)
				fprintf(out, "%.0f", c->running > 0 ? c->raw * c->enabled / c->running : c->raw);
			else
				fputs(rd_uncounted_word(c), out);
			fputc('\n', out);
		}
		write_csv_callers(r, out, rv, rank, sep);
		if (!rv->simulated)
			continue;
		write_csv_windows(out, rv, rank, sep);
		write_csv_threads(out, rv, rank, sep);
		struct render_sim_info info;
		char source[PATH_MAX + 400];
		render_report_sim_info(rv, true, &info, source, sizeof source);
		struct sim_render_ctx c = { r, rv, &info, RENDER_CSV };
		char *s = render_to_string(sim_render_fn, &c);
		if (s)
			csv_prefixed(out, s, "simulated", rank, sep, true);
		free(s);
	}
}

void render_report_csv(FILE *out, const struct merge_report *r, char sep)
{
	write_csv(r, out, sep);
}
