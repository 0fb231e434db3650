/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report's renderers: the model of a report (merge.h, assembled by the
 * report module) as text, CSV or JSON. */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

static const char *fact_or(const struct merge_report *r, const char *key, const char *dflt)
{
	const char *v = merge_report_meta(r, key);
	return v ? v : dflt;
}

/* an exit status (128 + N) of SIGINT, SIGTERM or SIGHUP, as a run
 * stopped by Ctrl-C ends */
static bool stopped_by_signal(const char *status)
{
	long v = strtol(status, NULL, 10);
	return v == 128 + 2 || v == 128 + 15 || v == 128 + 1;
}

/* why WHAT is missing ("trace"...), NULL when it is not */
static const char *missing_of(const struct merge_report *r, const char *what)
{
	for (size_t i = 0; i < r->nmissing; i++)
		if (!strcmp(r->missing[i].key, what))
			return r->missing[i].value;
	return NULL;
}

void render_report_sim_info(const struct merge_report_region *v, bool insn_table, struct render_sim_info *info,
			   char *source, size_t n)
{
	snprintf(source, n, "%s:%s", v->file, v->name);
	memset(info, 0, sizeof *info);
	info->source = source;
	info->threshold = 0.01;
	info->stream = v->stream;
	info->srcline = v->srcline;
	info->srcline_ctx = v->srcline_ctx;
	info->insn_start = v->start + v->bias;
	info->insn_end = v->end + v->bias;
	info->addr_bias = v->bias;
	info->no_insn_table = !insn_table;
}

/* colours of the text report (one report at a time) */
static bool colour;

static const char *col(const char *code)
{
	return colour ? code : "";
}

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

static const char *meta_keys[] = { "command", "exe", "cwd", "hostname", "kernel", "cpu.name", "cpu.taken_for", "tracer",
				   "sample.event", "sample.count", "exit_status", "interrupted", "record.complete", "record.stage",
				   "trace.interrupted", "trace.stopped",
				   "tma.table", "counts.source", "sim.machine", "trace.records" };

/* "0.4M", "12.3k": records of a run */
static void records_text(double v, char *buf, size_t n)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
}

/* the windows a region's simulation sampled, and its phases */
static void write_text_windows(const struct merge_report_region *rv, FILE *out)
{
	if (!rv->windows)
		return;
	fprintf(out, "Windows: %zu of the %zu windows of the run that hold the region (%zu thread(s)); cycles per %s: "
		     "min %.2f, median %.2f, max %.2f\n",
		rv->windows, rv->windows_total, rv->window_threads, rv->window_unit, rv->window_min, rv->window_median,
		rv->window_max);
	if (!rv->nphases)
		return;
	fprintf(out, "Phases (windows that differ by more than 20 %%):\n");
	for (size_t k = 0; k < rv->nphases; k++) {
		const struct merge_report_phase *p = &rv->phases[k];
		char from[32], to[32];
		records_text(p->from, from, sizeof from);
		records_text(p->to, to, sizeof to);
		fprintf(out, "  records %s-%s of the thread's run  %5.1f%% of the time  %8.2f cycles per %s  (%zu window(s))\n",
			from, to, 100 * p->share, p->cycles_per_unit, rv->window_unit, p->windows);
	}
}

/* the threads that ran a region, each simulated apart when it has a
 * tenth of the samples */
/* "Measured (this region, N samples): Frontend_Bound 12.3 % ..." with
 * the deeper nodes of the dominant path, a value outside [0, 1] flagged */
static void print_node_value(FILE *out, const struct td_tree *t, size_t i)
{
	const struct td_result *x = &t->res[i];
	if (x->status == TD_NOT_COMPUTABLE)
		fprintf(out, "%s n/a", t->table->nodes[i].name);
	else
		fprintf(out, "%s %.1f %%%s", t->table->nodes[i].name, 100 * x->value,
			x->status == TD_MISMEASURED ? " (MISMEASURED: outside 0-100 %)" : "");
}

/* "Measured (this region, N samples): Frontend_Bound 12.3 %, ...,
 * Backend_Bound 60.1 % (> Memory_Bound 45.0 %), Retiring 20.0 %": level
 * 1, and below the node on the bottleneck path its path; a value outside
 * [0, 1] flagged */
static void write_text_region_tree(const struct merge_report_region *rv, FILE *out)
{
	const struct td_tree *t = rv->measured;
	const struct td_table *tab = t->table;
	if (rv->measured_imported)
		fprintf(out, "Measured (%s, imported counts):", rv->measured_of_function ? "its function" : "this region");
	else
		fprintf(out, "Measured (this region, %llu samples):", (unsigned long long)rv->measured_samples);
	bool first = true;
	for (size_t i = 0; i < tab->n_nodes; i++) {
		if (tab->nodes[i].level != 1 || t->res[i].status == TD_NOT_SELECTED)
			continue;
		fputs(first ? " " : ", ", out);
		first = false;
		print_node_value(out, t, i);
		if (!t->res[i].bottleneck)
			continue;
		bool open = false;
		for (int parent = (int)i;;) {
			int next = -1;
			for (size_t k = 0; k < tab->n_nodes && next < 0; k++)
				if (tab->nodes[k].parent == parent && t->res[k].bottleneck &&
				    t->res[k].status != TD_NOT_SELECTED)
					next = (int)k;
			if (next < 0)
				break;
			fputs(open ? " > " : " (> ", out);
			open = true;
			print_node_value(out, t, (size_t)next);
			parent = next;
		}
		if (open)
			fputc(')', out);
	}
	fputc('\n', out);
	if (rv->measured_note && rv->measured_note[0])
		rd_text_put(out, "(", rv->measured_note, ")\n");
}

/* "Counts (this region, N samples): task-clock 1234, page-faults 5",
 * scaled by the groups' running time */
static void write_text_region_counts(const struct merge_report_region *rv, FILE *out)
{
	const struct td_countset *cs = rv->counts;
	if (rv->measured_imported)
		fprintf(out, "Counts (this region, imported):");
	else
		fprintf(out, "Counts (this region, %llu samples):", (unsigned long long)rv->measured_samples);
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		rd_text_put(out, i ? ", " : " ", c->event, " ");
		if (!c->counted)
			fputs(rd_uncounted_word(c), out);
		else
			fprintf(out, "%.0f", c->running > 0 ? c->raw * c->enabled / c->running : c->raw);
	}
	fputc('\n', out);
}

static void write_text_threads(const struct merge_report_region *rv, FILE *out)
{
	if (rv->nthreads < 2)
		return;
	fprintf(out, "Threads (the region's samples by thread, as perf report --sort tid):\n");
	for (size_t k = 0; k < rv->nthreads; k++) {
		const struct merge_report_thread *t = &rv->threads[k];
		fprintf(out, "  %5.1f%%  pid %d tid %d", 100 * t->share, t->pid, t->tid);
		if (t->simulated) {
			fprintf(out, "  %8.2f cycles per %s  ", t->cycles_per_unit,
				rv->window_unit ? rv->window_unit : "iteration");
			rd_text_put(out, "", t->model, "\n");
		} else {
			rd_text_put(out, "  (", t->model, ")\n");
		}
	}
}

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
	fprintf(out, ", \"phases\": [");
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

/* windows,RANK,summary,NAME,picked|total|threads|unit|min|median|max,V;
 * windows,RANK,phaseK,NAME,from_record|to_record|share|cycles_per_unit|windows,V */
static void write_csv_windows(FILE *out, const struct merge_report_region *rv, const char *rank, char sep)
{
	if (!rv->windows)
		return;
	char v[7][64];
	snprintf(v[0], sizeof v[0], "%zu", rv->windows);
	snprintf(v[1], sizeof v[1], "%zu", rv->windows_total);
	snprintf(v[2], sizeof v[2], "%zu", rv->window_threads);
	snprintf(v[3], sizeof v[3], "%s", rv->window_unit);
	snprintf(v[4], sizeof v[4], "%.6g", rv->window_min);
	snprintf(v[5], sizeof v[5], "%.6g", rv->window_median);
	snprintf(v[6], sizeof v[6], "%.6g", rv->window_max);
	static const char *names[] = { "picked", "total", "threads", "unit", "min", "median", "max" };
	for (size_t k = 0; k < 7; k++) {
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

/* a region's callers, as perf report -g caller shows a symbol's */
static void write_text_callers(const struct merge_report *r, const struct merge_report_region *rv, FILE *out)
{
	if (r->why_no_callers) {
		rd_text_put(out, "Callers: not available: ", r->why_no_callers, "\n");
		return;
	}
	if (!rv->chain_samples) {
		/* the vDSO, anonymous code, code of no known extent: its
		 * samples are not placed in an object as the chains are */
		fprintf(out, "Callers: none known (no call chain of its samples could be placed in its object)\n");
		return;
	}
	fprintf(out, "Callers (the first frame outside the region, in %llu call chain%s):\n",
		(unsigned long long)rv->chain_samples, rv->chain_samples == 1 ? "" : "s");
	for (size_t k = 0; k < rv->ncallers; k++) {
		const struct merge_report_caller *c = &rv->callers[k];
		const char *base = strrchr(c->file, '/');
		fprintf(out, "  %6.1f%% %8llu  ", 100 * c->share, (unsigned long long)c->samples);
		render_text_string(out, c->name);
		if (c->file[0])
			rd_text_put(out, " (", base ? base + 1 : c->file, ")");
		fputc('\n', out);
	}
	if (rv->callers_other)
		fprintf(out, "  %6.1f%% %8llu  (other callers)\n",
			100 * (double)rv->callers_other / (double)rv->chain_samples, (unsigned long long)rv->callers_other);
}

/* The text report. Every string of the recording (its facts, regions,
 * callers, events) and every message that quotes one goes through the
 * text escaping (render_text_string): a recording is a file people send
 * each other, and its strings must not move the terminal or fake a line. */
static void write_text(const struct merge_report *r, FILE *out)
{
	fputs(col("\033[1m"), out);
	rd_text_put(out, "# gus report of ", r->input, "");
	fputs(col("\033[0m"), out);
	rd_text_put(out, "\n# command: ", fact_or(r, "command", "?"), "\n");
	unsigned long long v = strtoull(fact_or(r, "exit_status", "0"), NULL, 10);
	/* the signal from the wait status: a program may exit with 139 itself */
	int ws = (int)strtol(fact_or(r, "wait_status", "0"), NULL, 10);
	const char *sig = merge_report_meta(r, "wait_status") && WIFSIGNALED(ws) ? sigabbrev_np(WTERMSIG(ws)) : NULL;
	if (v && sig)
		fprintf(out, "# the program exited with status %llu (killed by SIG%s)\n", v, sig);
	else if (v)
		fprintf(out, "# the program exited with status %llu%s\n", v,
			v > 128 && v < 128 + 65 && !merge_report_meta(r, "wait_status") ? " (killed by a signal?)" : "");
	/* Ctrl-C is passed to the program, which may ignore or handle it */
	if (merge_report_meta(r, "interrupted") && stopped_by_signal(fact_or(r, "exit_status", "0")))
		fprintf(out, "# the run was interrupted (Ctrl-C): what follows covers its first part\n");
	else if (merge_report_meta(r, "interrupted"))
		fprintf(out, "# Ctrl-C was passed to the program, which did not die of it (exit status %llu); the trace "
			     "run was skipped\n", v);
	if (merge_report_meta(r, "trace.interrupted") && stopped_by_signal(fact_or(r, "trace.exit_status", "0")))
		fprintf(out, "# the trace run was interrupted (Ctrl-C): its stream covers the first part of that run\n");
	else if (merge_report_meta(r, "trace.interrupted"))
		fprintf(out, "# Ctrl-C was passed to the program in the trace run, which did not die of it\n");
	if (r->incomplete) {
		fputs(col("\033[33m"), out);
		rd_text_put(out, "# the recording is incomplete: ", r->incomplete, col("\033[0m"));
		fputc('\n', out);
	} else if (strcmp(fact_or(r, "record.complete", "no"), "yes")) {
		fprintf(out, "%s# the recording is incomplete (gus record was stopped or failed): parts are missing%s\n",
			col("\033[33m"), col("\033[0m"));
	}
	rd_text_put(out, "# cpu: ", fact_or(r, "cpu.name", "?"), "; kernel ");
	rd_text_put(out, "", fact_or(r, "kernel", "?"), "\n");
	if (merge_report_meta(r, "cpu.taken_for"))
		rd_text_put(out, "# cpu taken for: ", fact_or(r, "cpu.taken_for", "?"), "\n");
	fprintf(out, "# samples: %llu", (unsigned long long)r->samples);
	if (merge_report_meta(r, "sample.event"))
		rd_text_put(out, " ", fact_or(r, "sample.event", "?"), "");
	if (merge_report_meta(r, "sample.fallback"))
		rd_text_put(out, " (no cycles: ", fact_or(r, "sample.fallback", ""), ")");
	rd_text_put(out, "\n# instruction stream: ", r->tracer, "");
	bool traced = !r->cut_before_trace;
	if (!strcmp(r->tracer, "qemu") && traced && r->trace_records)
		fprintf(out, " (second run under the QEMU tracer, %llu records%s)", (unsigned long long)r->trace_records,
			r->incomplete ? ", cut short" : "");
	else if (!strcmp(r->tracer, "qemu") && traced)
		fprintf(out, " (no records: see 'missing trace')");
	else if (!traced)
		fprintf(out, " (planned; gus record was stopped before the trace run)");
	if (merge_report_meta(r, "missing.pt") && strcmp(r->tracer, "pt"))
		rd_text_put(out, "; no Intel PT: ", fact_or(r, "missing.pt", ""), "");
	/* a trace stopped short of the run is said, and in each region it cuts */
	if (r->trace_stopped && traced) {
		fputs(col("\033[33m"), out);
		rd_text_put(out, "\n# the trace stopped short of the run: ", r->trace_stopped, col("\033[0m"));
	}
	fprintf(out, "\n# model: %s\n", sim_machine_describe(r->m));
	static const char *missing[] = { "samples", "regions", "trace" };
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++)
		if (missing_of(r, missing[i])) {
			fprintf(out, "# missing %s: ", missing[i]);
			rd_text_put(out, "", missing_of(r, missing[i]), "\n");
		}

	fprintf(out, "\n%s== Measured Top-Down (whole program) ==%s\n", col("\033[1m"), col("\033[0m"));
	if (r->tree) {
		render_tma(out, r->tree, &r->run, RENDER_TEXT, ',');
	} else {
		rd_text_put(out, "not available: ", r->why_no_measure, "\nThe report goes on with the simulated side.\n");
	}

	if (r->spire_asked) {
		fprintf(out, "\n%s== SPIRE: counter samples against a statistical roofline ensemble ==%s\n",
			col("\033[1m"), col("\033[0m"));
		if (r->spire_model) {
			struct merge_spire_info info = r->spire_info;
			info.section = true;
			render_spire(out, r->spire_model, r->spire_an, r->spire_ss, &info, RENDER_TEXT);
		} else {
			rd_text_put(out, "not available: ", r->why_no_spire, "\n");
		}
	} else if (merge_report_meta(r, "spire.time")) {
		fprintf(out, "\n(the recording has SPIRE interval counts: gus report --spire MODEL ranks their metrics)\n");
	}

	fprintf(out, "\n%s== Hot regions ==%s\n", col("\033[1m"), col("\033[0m"));
	if (!r->nregions) {
		rd_text_put(out, "none: ", missing_of(r, "regions") ? missing_of(r, "regions") : "the recording has no hot regions",
			    "\n");
		return;
	}
	fprintf(out, "  %4s %8s %7s  %-8s  %s\n", "rank", "samples", "share", "kind", "region");
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		char kind[64];
		render_text_escape(kind, sizeof kind, rv->kind);
		fprintf(out, "  %4d %8llu %6.1f%%  %-8s  ", rv->rank, (unsigned long long)rv->samples, 100 * rv->share,
			kind);
		render_text_string(out, rv->name);
		if (rv->source[0])
			rd_text_put(out, " (", rv->source, ")");
		fputc('\n', out);
	}
	fprintf(out, "  (share: of the time all %llu samples stand for; a loop's samples are also its function's)\n",
		(unsigned long long)r->samples);
	if (r->skid_note)
		fprintf(out, "  (measured per region: %s)\n", r->skid_note);

	bool table_done = false;
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->selected)
			continue;
		fprintf(out, "\n%s== Region %d: ", col("\033[1m"), rv->rank);
		render_text_string(out, rv->name);
		rd_text_put(out, " (", rv->kind, "");
		fprintf(out, ", %.1f%% of samples) ==%s\n", 100 * rv->share, col("\033[0m"));
		const char *vc = rv->verdict.kind == MERGE_AGREE      ? "\033[32m"
				 : rv->verdict.kind == MERGE_DISAGREE ? "\033[31m"
								      : "\033[36m";
		fputs(col(vc), out);
		rd_text_put(out, "Verdict: ", rv->verdict.text, col("\033[0m"));
		fputc('\n', out);
		if (rv->measured)
			write_text_region_tree(rv, out);
		else if (rv->counts)
			write_text_region_counts(rv, out);
		if (rv->measured)
			;
		else if (r->tree)
			rd_text_put(out, "(the measured side is the whole program's: ",
				    rv->measured_note && rv->measured_note[0] ? rv->measured_note
				    : r->why_no_region_measure		      ? r->why_no_region_measure
									      : "this region has no counts of its own",
				    ")\n");
		write_text_callers(r, rv, out);
		if (!rv->simulated) {
			rd_text_put(out, "Simulated: not available: ", rv->why_no_model, "\n");
			continue;
		}
		bool hottest_loop = !table_done && (!strcmp(rv->kind, "loop") || r->one_region);
		if (hottest_loop)
			table_done = true;
		struct render_sim_info info;
		char source[PATH_MAX + 400];
		render_report_sim_info(rv, hottest_loop, &info, source, sizeof source);
		fputc('\n', out);
		render_sim(out, r->m, rv->code, rv->an, &info, RENDER_TEXT);
		write_text_windows(rv, out);
		write_text_threads(rv, out);
		if (rv->from_cache)
			fprintf(out, "(cached simulation)\n");
	}
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
	fprintf(out, ",\n     \"windows\": ");
	write_json_windows(out, rv);
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
	fprintf(out, "{\n  \"gus_report\": 1,\n  \"recording\": ");
	render_json_string(out, r->input);
	fprintf(out, ",\n  \"samples\": %llu,\n  \"trace_records\": %llu,\n  \"incomplete\": ",
		(unsigned long long)r->samples, (unsigned long long)r->trace_records);
	if (r->incomplete) {
		render_json_string(out, r->incomplete);
	} else {
		fputs(strcmp(merge_report_meta(r, "record.complete") ? merge_report_meta(r, "record.complete") : "no", "yes")
			      ? "\"gus record was stopped or failed: parts are missing\"" : "null", out);
	}
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
	static const char *missing[] = { "counts", "samples", "regions", "trace", "pt" };
	first = true;
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) {
		const char *why = missing_of(r, missing[i]);
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
	fprintf(out, ",\n  \"regions\": [");
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
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->selected)
			continue;
		char rank[16];
		snprintf(rank, sizeof rank, "%d", rv->rank);
		/* region rows: kind, name, field, value */
		const char *fields[][2] = { { "kind", rv->kind }, { "file", rv->file }, { "source", rv->source },
					    { "verdict", merge_agreement_name(rv->verdict.kind) },
					    { "verdict_text", rv->verdict.text }, { "measured", rv->verdict.measured },
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
				  rv->simulated ? rv->verdict.gain_upper : NAN, rv->stream_covers };
		const char *nnames[] = { "samples", "share", "speedup_top", "gain_upper", "stream_covers" };
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


void render_report_text(FILE *out, const struct merge_report *r, bool use_colour)
{
	colour = use_colour;
	write_text(r, out);
}

void render_report_csv(FILE *out, const struct merge_report *r, char sep)
{
	colour = false;
	write_csv(r, out, sep);
}

void render_report_json(FILE *out, const struct merge_report *r)
{
	colour = false;
	write_json(r, out);
}
