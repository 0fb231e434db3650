/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report as JSON: one object of the report model (merge.h),
 * gus-report(1) JSON OUTPUT. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

static const char *meta_keys[] = { "command", "exe", "cwd", "hostname", "kernel", "cpu.name", "cpu.taken_for", "tracer",
				   "sample.event", "sample.count", "exit_status", "interrupted", "record.complete", "record.stage",
				   "trace.interrupted", "trace.stopped",
				   "tma.table", "counts.source", "sim.machine", "trace.records",
				   /* gus import of a perf.data */
				   "source", "perf.file", "perf.mode", "perf.version", "sample.lost" };

static void write_json_threads(FILE *out, const struct merge_report_region *rv)
{
	fputc('[', out);
	for (size_t k = 0; k < rv->nthreads; k++) {
		const struct merge_report_thread *t = &rv->threads[k];
		fprintf(out, "%s{\"pid\": %d, \"tid\": %d, \"share\": ", k ? ", " : "", t->pid, t->tid);
		render_json_number(out, t->share);
		fprintf(out, ", \"simulated\": %s, \"cycles_per_unit\": ", t->simulated ? "true" : "false");
		render_json_number(out, t->simulated ? t->cycles_per_unit : NAN);
		fprintf(out, ", \"model\": ");
		render_json_string(out, t->model);
		fputc('}', out);
	}
	fputc(']', out);
}

static void write_json_windows(FILE *out, const struct merge_report_region *rv)
{
	if (!rv->windows) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"picked\": %zu, \"total\": %zu, \"threads\": %zu, \"unit\": ", rv->windows, rv->windows_total,
		rv->window_threads);
	render_json_string(out, rv->window_unit);
	fprintf(out, ", \"min\": ");
	render_json_number(out, rv->window_min);
	fprintf(out, ", \"median\": ");
	render_json_number(out, rv->window_median);
	fprintf(out, ", \"max\": ");
	render_json_number(out, rv->window_max);
	fprintf(out, ", \"phases_scattered\": %s, \"phases\": [", rv->phases_scattered ? "true" : "false");
	for (size_t k = 0; k < rv->nphases; k++) {
		const struct merge_report_phase *p = &rv->phases[k];
		fprintf(out, "%s{\"from_record\": ", k ? ", " : "");
		render_json_number(out, p->from);
		fprintf(out, ", \"to_record\": ");
		render_json_number(out, p->to);
		fprintf(out, ", \"share\": ");
		render_json_number(out, p->share);
		fprintf(out, ", \"cycles_per_unit\": ");
		render_json_number(out, p->cycles_per_unit);
		fprintf(out, ", \"windows\": %zu}", p->windows);
	}
	fputs("]}", out);
}

/* "callers": null, "callers_missing": why; or the list with the samples
 * it is out of */
static void write_json_callers(const struct merge_report *r, FILE *out, const struct merge_report_region *rv)
{
	if (r->why_no_callers) {
		fputs("null, \"callers_missing\": ", out);
		render_json_string(out, r->why_no_callers);
		return;
	}
	fputs("[", out);
	for (size_t k = 0; k < rv->ncallers; k++) {
		const struct merge_report_caller *c = &rv->callers[k];
		fprintf(out, "%s{\"name\": ", k ? ", " : "");
		render_json_string(out, c->name);
		fputs(", \"file\": ", out);
		if (c->file[0])
			render_json_string(out, c->file);
		else
			fputs("null", out);
		fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)c->samples);
		render_json_number(out, c->share);
		fputs("}", out);
	}
	fprintf(out, "], \"caller_samples\": %llu, \"other_callers_samples\": %llu, \"callers_missing\": null",
		(unsigned long long)rv->chain_samples, (unsigned long long)rv->callers_other);
}

/* the region's own tree: null (and why) or its nodes */
static void write_json_region_tree(const struct merge_report *r, FILE *out, const struct merge_report_region *rv)
{
	const struct td_tree *t = rv->measured;
	if (!t) {
		fputs("null, \"measured_tree_missing\": ", out);
		if (rv->measured_note && rv->measured_note[0])
			render_json_string(out, rv->measured_note);
		else if (r->why_no_region_measure)
			render_json_string(out, r->why_no_region_measure);
		else
			fputs("\"this region has no counts of its own\"", out);
		return;
	}
	fprintf(out, "{\"samples\": %llu, \"imported\": %s, \"of_function\": %s, \"note\": ",
		(unsigned long long)rv->measured_samples, rv->measured_imported ? "true" : "false",
		rv->measured_of_function ? "true" : "false");
	if (rv->measured_note && rv->measured_note[0])
		render_json_string(out, rv->measured_note);
	else
		fputs("null", out);
	fputs(", \"nodes\": [", out);
	bool first = true;
	for (size_t i = 0; i < t->table->n_nodes; i++) {
		const struct td_result *x = &t->res[i];
		if (x->status == TD_NOT_SELECTED)
			continue;
		fprintf(out, "%s{\"name\": ", first ? "" : ", ");
		first = false;
		render_json_string(out, t->table->nodes[i].name);
		fprintf(out, ", \"level\": %d, \"value\": ", t->table->nodes[i].level);
		render_json_number(out, x->status == TD_NOT_COMPUTABLE ? NAN : x->value);
		fprintf(out, ", \"status\": \"%s\", \"bottleneck\": %s}", rd_status_name(x->status),
			x->bottleneck ? "true" : "false");
	}
	fputs("]}, \"measured_tree_missing\": null", out);
}

static void write_json_region(const struct merge_report *r, FILE *out, const struct merge_report_region *rv)
{
	fprintf(out, "    {\"rank\": %d, \"kind\": ", rv->rank);
	render_json_string(out, rv->kind);
	fprintf(out, ", \"name\": ");
	render_json_string(out, rv->name);
	fprintf(out, ", \"file\": ");
	render_json_string(out, rv->file);
	fprintf(out, ", \"start\": \"0x%llx\", \"end\": \"0x%llx\", \"source\": ", (unsigned long long)rv->start,
		(unsigned long long)rv->end);
	if (rv->source[0])
		render_json_string(out, rv->source);
	else
		fputs("null", out);
	fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)rv->samples);
	render_json_number(out, rv->share);
	fprintf(out, ",\n     \"object\": ");
	render_json_string(out, rv->object);
	fprintf(out, ", \"unit\": ");
	render_json_string(out, rv->unit);
	fprintf(out, ", \"function_rank\": ");
	if (rv->parent >= 0)
		fprintf(out, "%d", r->regions[rv->parent].rank);
	else
		fputs("null", out);
	fprintf(out, ", \"shown_with_function\": %s, \"details\": %s", rv->with_parent ? "true" : "false",
		rv->details ? "true" : "false");
	const struct merge_verdict *vd = &rv->verdict;
	fprintf(out, ",\n     \"verdict\": {\"kind\": ");
	render_json_string(out, merge_agreement_name(vd->kind));
	fprintf(out, ", \"text\": ");
	render_json_string(out, vd->text);
	fprintf(out, ", \"measured\": ");
	if (vd->measured[0])
		render_json_string(out, vd->measured);
	else
		fputs("null", out);
	fprintf(out, ", \"measured_value\": ");
	render_json_number(out, vd->measured[0] ? vd->measured_value : NAN);
	fprintf(out, ", \"resource\": ");
	if (vd->resource[0])
		render_json_string(out, vd->resource);
	else
		fputs("null", out);
	fprintf(out, ", \"bottleneck\": %s, \"speedup_top\": ", vd->bottleneck ? "true" : "false");
	render_json_number(out, rv->simulated ? vd->speedup_top : NAN);
	fprintf(out, ", \"gain_upper\": ");
	render_json_number(out, rv->simulated ? vd->gain_upper : NAN);
	fprintf(out, ", \"summary\": ");
	render_json_string(out, vd->summary);
	/* the share of the simulated cycles waiting on each level's loads */
	fprintf(out, ", \"load_wait_share\": ");
	if (rv->simulated) {
		static const char *const level[] = { "l1", "l2", "l3", "memory" };
		fputc('{', out);
		for (int l = 0; l < 4; l++) {
			fprintf(out, "%s\"%s\": ", l ? ", " : "", level[l]);
			render_json_number(out, vd->stall_share[l]);
		}
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fprintf(out, "},\n     \"measured_tree\": ");
	write_json_region_tree(r, out, rv);
	fprintf(out, ",\n     \"counts\": ");
	if (!rv->counts) {
		fputs("null", out);
	} else {
		fputs("[", out);
		for (size_t i = 0; i < rv->counts->n; i++) {
			const struct td_count *c = &rv->counts->c[i];
			fprintf(out, "%s{\"event\": ", i ? ", " : "");
			render_json_string(out, c->event);
			fprintf(out, ", \"counted\": %s, \"raw\": %.0f, \"enabled_ns\": %.0f, \"running_ns\": %.0f}",
				c->counted ? "true" : "false", c->raw, c->enabled, c->running);
		}
		fprintf(out, "], \"count_samples\": %llu", (unsigned long long)rv->measured_samples);
	}
	fprintf(out, ",\n     \"callers\": ");
	write_json_callers(r, out, rv);
	/* the functions inlined where its samples fell */
	fputs(",\n     \"inlined\": [", out);
	for (size_t k = 0; k < rv->ninlined; k++) {
		fprintf(out, "%s{\"name\": ", k ? ", " : "");
		render_json_string(out, rv->inlined[k].name);
		fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)rv->inlined[k].samples);
		render_json_number(out, rv->inlined[k].share);
		fputs("}", out);
	}
	fputs("]", out);
	fprintf(out, ",\n     \"windows\": ");
	write_json_windows(out, rv);
	fprintf(out, ",\n     \"tracer\": ");
	render_json_string(out, rv->tracer ? rv->tracer : "none");
	fprintf(out, ", \"tracer_why\": ");
	if (rv->tracer_why)
		render_json_string(out, rv->tracer_why);
	else
		fputs("null", out);
	fprintf(out, ",\n     \"stream_covers\": ");
	render_json_number(out, rv->stream_covers);
	fprintf(out, ", \"stream_covers_at_most\": %s, \"stream_cut\": ", rv->stream_covers_at_most ? "true" : "false");
	if (rv->stream_cut)
		render_json_string(out, rv->stream_cut);
	else
		fputs("null", out);
	fprintf(out, ",\n     \"threads\": ");
	write_json_threads(out, rv);
	fprintf(out, ",\n     \"cached\": %s,\n     \"simulated_missing\": ", rv->from_cache ? "true" : "false");
	if (rv->simulated)
		fputs("null", out);
	else
		render_json_string(out, rv->why_no_model);
	fprintf(out, ",\n     \"simulated\": ");
	if (!rv->simulated) {
		fputs("null}", out);
		return;
	}
	struct render_sim_info info;
	char source[PATH_MAX + 400];
	/* JSON keeps the per-instruction list of every region: it is data */
	render_report_sim_info(rv, true, &info, source, sizeof source);
	render_sim(out, r->m, rv->code, rv->an, &info, RENDER_JSON);
	fputs("    }", out);
}

static void write_json(const struct merge_report *r, FILE *out)
{
	fprintf(out, "{\n  \"gus_report\": 2,\n  \"recording\": ");
	render_json_string(out, r->input);
	fprintf(out, ",\n  \"samples\": %llu,\n  \"trace_records\": %llu,\n  \"incomplete\": ",
		(unsigned long long)r->samples, (unsigned long long)r->trace_records);
	if (r->incomplete)
		render_json_string(out, r->incomplete);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"run_notes\": [");
	for (size_t i = 0; i < r->nrun_notes; i++) {
		fputs(i ? ", " : "", out);
		render_json_string(out, r->run_notes[i]);
	}
	fputc(']', out);
	fprintf(out, ",\n  \"trace_stopped\": ");
	if (r->trace_stopped)
		render_json_string(out, r->trace_stopped);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"trace_covers\": ");
	render_json_number(out, r->trace_covers);
	fprintf(out, ",\n  \"meta\": {");
	bool first = true;
	for (size_t i = 0; i < sizeof meta_keys / sizeof *meta_keys; i++) {
		const char *v = merge_report_meta(r, meta_keys[i]);
		if (!v)
			continue;
		char *copy = strdup(v);
		fprintf(out, "%s\n    ", first ? "" : ",");
		first = false;
		render_json_string(out, meta_keys[i]);
		fprintf(out, ": ");
		render_json_string(out, copy);
		free(copy);
	}
	fprintf(out, "\n  },\n  \"missing\": {");
	static const char *missing[] = { "counts", "samples", "regions", "trace", "pt", "kernel_samples", "objects",
					 "kernel_symbols" };
	first = true;
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) {
		const char *why = merge_report_missing(r, missing[i]);
		if (!why)
			continue;
		fprintf(out, "%s\n    ", first ? "" : ",");
		first = false;
		render_json_string(out, missing[i]);
		fprintf(out, ": ");
		render_json_string(out, why);
	}
	fprintf(out, "\n  },\n  \"model\": ");
	render_json_string(out, sim_machine_name(r->m));
	fprintf(out, ",\n  \"measured\": ");
	if (r->tree) {
		render_tma(out, r->tree, &r->run, RENDER_JSON, ',');
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\n  \"measured_missing\": ");
	if (r->tree)
		fputs("null", out);
	else
		render_json_string(out, r->why_no_measure);
	fprintf(out, ",\n  \"spire\": ");
	if (r->spire_model) {
		struct merge_spire_info info = r->spire_info;
		info.section = true;
		info.json_indent = 2;
		render_spire(out, r->spire_model, r->spire_an, r->spire_ss, &info, RENDER_JSON);
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\n  \"spire_missing\": ");
	if (r->spire_asked && !r->spire_model)
		render_json_string(out, r->why_no_spire);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"percent_limit\": ");
	render_json_number(out, r->percent_limit);
	fprintf(out, ", \"all\": %s", r->all ? "true" : "false");
	/* the time outside the hot functions: with them, the whole profile */
	fprintf(out, ",\n  \"outside\": [");
	for (size_t i = 0; i < r->noutside; i++) {
		const struct merge_report_outside *o = &r->outside[i];
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		render_json_string(out, o->name);
		fprintf(out, ", \"what\": ");
		render_json_string(out, o->what);
		fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)o->samples);
		render_json_number(out, o->share);
		fputc('}', out);
	}
	fprintf(out, "%s],\n  \"regions\": [", r->noutside ? "\n  " : "");
	first = true;
	for (size_t i = 0; i < r->nregions; i++) {
		if (!r->regions[i].selected)
			continue;
		fprintf(out, "%s\n", first ? "" : ",");
		write_json_region(r, out, &r->regions[i]);
		first = false;
	}
	fprintf(out, "\n  ]\n}\n");
}

void render_report_json(FILE *out, const struct merge_report *r)
{
	write_json(r, out);
}
