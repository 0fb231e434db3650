/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report as text: the report model (merge.h, assembled by the report
 * module) for a person at a terminal. */
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

/* colours of the text report (one report at a time) */
static bool colour;

static const char *col(const char *code)
{
	return colour ? code : "";
}

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
		if (merge_report_missing(r, missing[i])) {
			fprintf(out, "# missing %s: ", missing[i]);
			rd_text_put(out, "", merge_report_missing(r, missing[i]), "\n");
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
		rd_text_put(out, "none: ", merge_report_missing(r, "regions") ? merge_report_missing(r, "regions") : "the recording has no hot regions",
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

void render_report_text(FILE *out, const struct merge_report *r, bool use_colour)
{
	colour = use_colour;
	write_text(r, out);
}
