/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report as text: the report model (merge.h, assembled by the report
 * module) for a person at a terminal, laid out as perf report and toplev
 * are: the facts of the run, the measured tree, one table of the hot
 * regions with a one-line verdict each (and the time outside them), then
 * the details of the regions that take a large share of the time. What is
 * the same for every region (no counters, no call chains) is said once. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

static const char *fact_or(const struct merge_report *r, const char *key, const char *dflt)
{
	const char *v = merge_report_meta(r, key);
	return v ? v : dflt;
}

/* colours of the text report (one report at a time) */
static bool colour;

static const char *col(const char *code)
{
	return colour ? code : "";
}

static void heading(FILE *out, const char *text)
{
	fprintf(out, "\n%s== %s ==%s\n", col("\033[1m"), text, col("\033[0m"));
}

/* ------------------------------------------------------------ heading --- */
static void write_header(const struct merge_report *r, FILE *out)
{
	fputs(col("\033[1m"), out);
	rd_text_put(out, "# gus report of ", r->input, "");
	fputs(col("\033[0m"), out);
	rd_text_put(out, "\n# command: ", fact_or(r, "command", "?"), "\n");
	for (size_t i = 0; i < r->nrun_notes; i++)
		fprintf(out, "# %s\n", r->run_notes[i]);
	if (r->incomplete) {
		fputs(col("\033[33m"), out);
		rd_text_put(out, "# the recording is incomplete: ", r->incomplete, col("\033[0m"));
		fputc('\n', out);
	}
	rd_text_put(out, "# cpu: ", fact_or(r, "cpu.name", "?"), "");
	rd_text_put(out, "; kernel ", fact_or(r, "kernel", "?"), "");
	if (merge_report_meta(r, "cpu.taken_for"))
		rd_text_put(out, "; taken for ", fact_or(r, "cpu.taken_for", "?"), "");
	fputc('\n', out);
	fprintf(out, "# samples: %llu", (unsigned long long)r->samples);
	if (merge_report_meta(r, "sample.event"))
		rd_text_put(out, " ", fact_or(r, "sample.event", "?"), "");
	if (r->run.seconds > 0)
		fprintf(out, " over %.2f s", r->run.seconds);
	if (merge_report_meta(r, "sample.fallback"))
		rd_text_put(out, " (no cycles: ", fact_or(r, "sample.fallback", ""), ")");
	rd_text_put(out, "\n# instruction stream: ", r->tracer, "");
	bool traced = !r->cut_before_trace;
	/* gus record's run 3 single-stepped what QEMU could not run */
	const char *stepped_text = merge_report_meta(r, "trace.step.records");
	unsigned long long stepped = stepped_text ? strtoull(stepped_text, NULL, 10) : 0;
	if (stepped > r->trace_records)
		stepped = 0;
	if (!strcmp(r->tracer, "qemu") && traced && r->trace_records && stepped)
		fprintf(out, " (a second run under the QEMU tracer, %llu records; a third, native, single-stepped in the "
			"hot code QEMU could not run, %llu records%s)", (unsigned long long)r->trace_records - stepped,
			stepped, r->incomplete ? ", cut short" : "");
	else if (!strcmp(r->tracer, "qemu") && traced && r->trace_records)
		fprintf(out, " (a second run under the QEMU tracer, %llu records%s)",
			(unsigned long long)r->trace_records, r->incomplete ? ", cut short" : "");
	else if (!strcmp(r->tracer, "qemu") && traced)
		fprintf(out, " (no records: see 'missing trace')");
	else if (!traced)
		fprintf(out, " (planned; gus record was stopped before the trace run)");
	/* why there is no Intel PT matters where no stream came instead */
	if (merge_report_meta(r, "missing.pt") && !strcmp(r->tracer, "none"))
		rd_text_put(out, "; no Intel PT: ", fact_or(r, "missing.pt", ""), "");
	else if (merge_report_meta(r, "missing.pt") && strcmp(r->tracer, "pt"))
		fputs("; no Intel PT on this machine", out);
	/* a trace stopped short of the run is said, and in each region it cuts */
	if (r->trace_stopped && traced) {
		fputs(col("\033[33m"), out);
		rd_text_put(out, "\n# the trace stopped short of the run: ", r->trace_stopped, col("\033[0m"));
	}
	fprintf(out, "\n# model: %s: %s\n", sim_machine_name(r->m), sim_machine_describe(r->m));
	static const char *missing[] = { "samples", "regions", "trace", "objects" };
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++)
		if (merge_report_missing(r, missing[i])) {
			fprintf(out, "# missing %s: ", missing[i]);
			rd_text_put(out, "", merge_report_missing(r, missing[i]), "\n");
		}
	if (merge_report_missing(r, "kernel_samples"))
		rd_text_put(out, "# kernel: not sampled: ", merge_report_missing(r, "kernel_samples"), "\n");
	else if (merge_report_missing(r, "kernel_symbols"))
		rd_text_put(out, "# kernel: ", merge_report_missing(r, "kernel_symbols"), "\n");
	else if (merge_report_meta(r, "user_only"))
		fputs("# kernel: not sampled (gus record --user)\n", out);
		/* the same for every region: said once */
	if (r->why_no_callers && r->why_no_callers[0])
		rd_text_put(out, "# callers: not available: ", r->why_no_callers, "\n");
	size_t cached = 0, simulated = 0;
	for (size_t i = 0; i < r->nregions; i++) {
		simulated += r->regions[i].simulated;
		cached += r->regions[i].simulated && r->regions[i].from_cache;
	}
	if (cached)
		fprintf(out, "# simulations: %zu of %zu from the recording's cache (--no-cache simulates again)\n", cached,
			simulated);
}

/* ----------------------------------------------------- measured side --- */
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
static void write_region_tree(const struct merge_report_region *rv, const char *who, FILE *out)
{
	const struct td_tree *t = rv->measured;
	const struct td_table *tab = t->table;
	if (rv->measured_imported)
		fprintf(out, "Measured (%s, imported counts):", rv->measured_of_function ? "its function" : who);
	else
		fprintf(out, "Measured (%s, %llu samples):", who, (unsigned long long)rv->measured_samples);
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
static void write_region_counts(const struct merge_report_region *rv, const char *who, FILE *out)
{
	const struct td_countset *cs = rv->counts;
	if (rv->measured_imported)
		fprintf(out, "Counts (%s, imported):", who);
	else
		fprintf(out, "Counts (%s, %llu samples):", who, (unsigned long long)rv->measured_samples);
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

/* ------------------------------------------------------ the regions --- */
/* how a region's row names it: a loop under its function by its range
 * alone ("loop 0x1248-0x129d"), indented */
static const char *row_name(const struct merge_report *r, const struct merge_report_region *rv, bool *indent)
{
	*indent = false;
	if (rv->parent < 0)
		return rv->name;
	const char *fn = r->regions[rv->parent].name;
	size_t n = strlen(fn);
	*indent = true;
	return !strncmp(rv->name, fn, n) && rv->name[n] == ' ' ? rv->name + n + 1 : rv->name;
}

static const char *verdict_colour(const struct merge_verdict *v)
{
	return v->kind == MERGE_AGREE ? "\033[32m" : v->kind == MERGE_DISAGREE ? "\033[31m" : "\033[36m";
}

/* the region column's text (escaped) into BUF */
static void region_text(const struct merge_report *r, const struct merge_report_region *rv, char *buf, size_t n)
{
	bool indent;
	const char *name = row_name(r, rv, &indent);
	char esc[1024], src[PATH_MAX];
	render_text_escape(esc, sizeof esc, name);
	render_text_escape(src, sizeof src, rv->source);
	snprintf(buf, n, "%s%s%s%s%s", indent ? "  " : "", esc, rv->source[0] ? " (" : "", src, rv->source[0] ? ")" : "");
}

static void write_outside_row(FILE *out, const struct merge_report_outside *o, int wobj, int wreg)
{
	fprintf(out, "  %4s %6.1f%% %8llu  %-*s  %-*s  ", "-", 100 * o->share, (unsigned long long)o->samples, wobj,
		o->name, wreg, "-");
	fprintf(out, "%s\n", o->what);
}

static void write_table(const struct merge_report *r, FILE *out)
{
	heading(out, "Hot regions");
	if (!r->nregions && !r->noutside) {
		rd_text_put(out, "none: ",
			    merge_report_missing(r, "regions") ? merge_report_missing(r, "regions")
							       : "the recording has no hot regions",
			    "\n");
		return;
	}
	/* the object and region columns as wide as their longest entry,
	 * within bounds: a long C++ name runs past its column */
	int wobj = 6, wreg = 6;
	for (size_t i = 0; i < r->nregions; i++) {
		char buf[PATH_MAX + 1100], obj[PATH_MAX];
		region_text(r, &r->regions[i], buf, sizeof buf);
		render_text_escape(obj, sizeof obj, r->regions[i].object ? r->regions[i].object : "");
		int lo = (int)strlen(obj), lr = (int)strlen(buf);
		wobj = lo > wobj ? (lo < 24 ? lo : 24) : wobj;
		wreg = lr > wreg ? (lr < 44 ? lr : 44) : wreg;
	}
	for (size_t k = 0; k < r->noutside; k++) {
		int lo = (int)strlen(r->outside[k].name);
		wobj = lo > wobj ? lo : wobj;
	}
	fprintf(out, "  %4s %7s %8s  %-*s  %-*s  %s\n", "rank", "share", "samples", wobj, "object", wreg, "region",
		"verdict");
	/* the rows outside the regions go where their share puts them,
	 * between functions (a function's loops stay under it) */
	bool *done = calloc(r->noutside + 1, sizeof *done);
	if (!done)
		abort();
	for (size_t i = 0; i <= r->nregions; i++) {
		const struct merge_report_region *rv = i < r->nregions ? &r->regions[i] : NULL;
		if (!rv || rv->parent < 0)
			for (size_t k = 0; k < r->noutside; k++)
				if (!done[k] && (!rv || r->outside[k].share > rv->share)) {
					write_outside_row(out, &r->outside[k], wobj, wreg);
					done[k] = true;
				}
		if (!rv)
			break;
		char buf[PATH_MAX + 1100];
		region_text(r, rv, buf, sizeof buf);
		fprintf(out, "  %4d %6.1f%% %8llu  ", rv->rank, 100 * rv->share, (unsigned long long)rv->samples);
		char obj[PATH_MAX];
		render_text_escape(obj, sizeof obj, rv->object ? rv->object : "");
		fputs(obj, out);
		int lo = (int)strlen(obj);
		fprintf(out, "%*s  %-*s  ", lo < wobj ? wobj - lo : 0, "", wreg, buf);
		fputs(col(verdict_colour(&rv->verdict)), out);
		if (rv->simulated || rv->verdict.kind != MERGE_NO_DATA)
			rd_text_put(out, "", rv->verdict.summary, "");
		else if (rv->selected)
			rd_text_put(out, "", rv->why_no_model, "");
		else
			fputs("not simulated (--region)", out);
		fputs(col("\033[0m"), out);
		fputc('\n', out);
	}
	free(done);
	fprintf(out, "  (share: of the time all %llu samples stand for", (unsigned long long)r->samples);
	if (r->noutside)
		fprintf(out, "; the functions and the rows without a rank add up to all of it");
	fprintf(out, "; a loop's samples are also its function's)\n");
	if (!r->tree)
		fprintf(out, "  (verdict: the simulated bottleneck, its speedup at +15 %% capacity and unlimited; no counters "
			     "to compare it with)\n");
	else if (r->why_no_region_measure)
		rd_text_put(out, "  (verdict: the model against the whole program's measured tree: ", r->why_no_region_measure,
			    ")\n");
	if (r->skid_note)
		fprintf(out, "  (measured per region: %s)\n", r->skid_note);
}

/* ---------------------------------------------------------- details --- */
/* the windows a region's simulation sampled, and its phases */
static void write_windows(const struct merge_report_region *rv, FILE *out)
{
	if (!rv->windows)
		return;
	fprintf(out, "Windows: %zu of the %zu windows of the run that hold the region (%zu thread(s)); cycles per %s: "
		     "min %.2f, median %.2f, max %.2f\n",
		rv->windows, rv->windows_total, rv->window_threads, rv->window_unit, rv->window_min, rv->window_median,
		rv->window_max);
	if (rv->phases_scattered)
		fprintf(out, "Phases: none given: the windows differ by more than 20 %% in too many stretches of the run "
			     "(the spread above says how far)\n");
	if (!rv->nphases)
		return;
	fprintf(out, "Phases (windows that differ by more than 20 %%):\n");
	for (size_t k = 0; k < rv->nphases; k++) {
		const struct merge_report_phase *p = &rv->phases[k];
		char from[32], to[32];
		rd_records_text(p->from, from, sizeof from);
		rd_records_text(p->to, to, sizeof to);
		fprintf(out, "  records %s-%s of the thread's run  %5.1f%% of the time  %8.2f cycles per %s  (%zu window(s))\n",
			from, to, 100 * p->share, p->cycles_per_unit, rv->window_unit, p->windows);
	}
}

/* the threads that ran a region, each simulated apart when it has a
 * tenth of the samples; cycles in the region's unit */
static void write_threads(const struct merge_report_region *rv, FILE *out)
{
	if (rv->nthreads < 2)
		return;
	fprintf(out, "Threads (the region's samples by thread, as perf report --sort pid):\n");
	for (size_t k = 0; k < rv->nthreads; k++) {
		const struct merge_report_thread *t = &rv->threads[k];
		fprintf(out, "  %5.1f%%  pid %d tid %d", 100 * t->share, t->pid, t->tid);
		if (t->simulated) {
			fprintf(out, "  %8.2f cycles per %s  ", t->cycles_per_unit,
				rv->window_unit ? rv->window_unit : rv->unit);
			rd_text_put(out, "", t->model, "\n");
		} else {
			rd_text_put(out, "  (", t->model, ")\n");
		}
	}
}

/* a region's callers, as perf report -g caller shows a symbol's (a
 * recording without call chains says so once, in the heading) */
static void write_callers(const struct merge_report *r, const struct merge_report_region *rv, FILE *out)
{
	if (r->why_no_callers)
		return;
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

/* the functions inlined into it where its samples fell (perf report
 * --inline's innermost frames) */
static void write_inlined(const struct merge_report_region *rv, FILE *out)
{
	if (!rv->ninlined)
		return;
	fprintf(out, "Inlined into it (DWARF), where its %llu samples fell:\n",
		(unsigned long long)rv->insn_samples_total);
	for (size_t k = 0; k < rv->ninlined; k++) {
		fprintf(out, "  %6.1f%% %8llu  ", 100 * rv->inlined[k].share, (unsigned long long)rv->inlined[k].samples);
		render_text_string(out, rv->inlined[k].name);
		fputc('\n', out);
	}
}

static void write_measured(const struct merge_report *r, const struct merge_report_region *rv, const char *who,
			   FILE *out)
{
	if (rv->measured)
		write_region_tree(rv, who, out);
	else if (rv->counts)
		write_region_counts(rv, who, out);
	/* a reason of its own; the reason all regions share is said under
	 * the table */
	if (!rv->measured && r->tree && rv->measured_note && rv->measured_note[0])
		rd_text_put(out, "(the measured side is the whole program's: ", rv->measured_note, ")\n");
}

/* the simulation of SIM (the region, or its function's only hot loop) */
static void write_simulation(const struct merge_report *r, const struct merge_report_region *sim, bool insn_table,
			     FILE *out)
{
	if (!sim->simulated) {
		rd_text_put(out, "Simulated: not available: ", sim->why_no_model, "\n");
		return;
	}
	struct render_sim_info info;
	char source[PATH_MAX + 400];
	render_report_sim_info(sim, insn_table, &info, source, sizeof source);
	fprintf(out, "Tracer: %s", rd_tracer_words(sim->tracer));
	if (sim->tracer_why)
		rd_text_put(out, ", as ", sim->tracer_why, "");
	fputc('\n', out);
	rd_text_put(out, "Stream: ", sim->stream, "\n");
	rd_sim_numbers(out, r->m, sim->code, sim->an, &info);
	rd_sim_sensitivity(out, r->m, sim->an, info.threshold, true, false);
	/* a loop of a few dozen instructions whole; the hottest of a larger
	 * one (an interpreter's dispatch loop runs thousands), but for the
	 * region --region asks for */
	if (insn_table)
		rd_sim_insn_table(out, r->m, sim->code, sim->an, &info, true, r->one_region ? 0 : 40);
	write_windows(sim, out);
	write_threads(sim, out);
}

static void write_region(const struct merge_report *r, const struct merge_report_region *rv, bool insn_table,
			 FILE *out)
{
	const struct merge_report_region *loop = rv->only_loop >= 0 && r->regions[rv->only_loop].with_parent
							 ? &r->regions[rv->only_loop]
							 : NULL;
	/* "== Region 1+2: NAME (function, OBJECT, FILE:LINE) and its only
	 * hot loop 0x1248-0x129d: 95.4 % of the time ==" */
	fprintf(out, "\n%s== Region %d", col("\033[1m"), rv->rank);
	if (loop)
		fprintf(out, "+%d", loop->rank);
	fputs(": ", out);
	render_text_string(out, rv->name);
	rd_text_put(out, " (", rv->kind, "");
	rd_text_put(out, ", ", rv->object, "");
	if (rv->source[0])
		rd_text_put(out, ", ", rv->source, "");
	fputc(')', out);
	if (loop) {
		bool indent;
		rd_text_put(out, " and its only hot ", row_name(r, loop, &indent), "");
	}
	fprintf(out, ": %.1f %% of the time ==%s\n", 100 * rv->share, col("\033[0m"));
	/* a function and its only hot loop: the loop's simulation, which
	 * says where the time goes per iteration; the function's in a line */
	const struct merge_report_region *sim = loop && loop->simulated ? loop : rv;
	fputs(col(verdict_colour(&sim->verdict)), out);
	rd_text_put(out, "Verdict: ", sim->verdict.summary[0] ? sim->verdict.summary : sim->verdict.text, col("\033[0m"));
	fputc('\n', out);
	/* the function's measured side, and its loop's where it has one of
	 * its own */
	write_measured(r, rv, "this region", out);
	if (loop && (loop->measured || loop->counts) && !loop->measured_of_function)
		write_measured(r, loop, "its loop", out);
	write_callers(r, rv, out);
	write_inlined(rv, out);
	if (loop && loop->simulated) {
		fprintf(out, "Loop: %.1f %% of the time, %.1f %% of its function's", 100 * loop->share,
			rv->share > 0 ? 100 * loop->share / rv->share : 0.0);
		if (rv->simulated && rv->an->units > 0)
			fprintf(out, "; the function as a whole: %.2f cycles per %s", rv->an->cycles_per_unit, rv->unit);
		/* the function's own answer, where it says something else */
		if (rv->simulated && strcmp(rv->verdict.summary, loop->verdict.summary))
			rd_text_put(out, "; its verdict: ", rv->verdict.summary, "");
		fputc('\n', out);
	}
	write_simulation(r, sim, insn_table, out);
}

/* the closing line: what was left out and how to see it */
static void write_more(const struct merge_report *r, FILE *out)
{
	fputc('\n', out);
	if (r->regions_without_details)
		fprintf(out, "%zu region%s under %.3g %% of the time %s no details here. ", r->regions_without_details,
			r->regions_without_details == 1 ? "" : "s", r->percent_limit,
			r->regions_without_details == 1 ? "has" : "have");
	fprintf(out, "More: gus report --all (every region), --percent-limit N (regions at N %% or more), "
		     "--region RANK|NAME (one, with its per-instruction table), --json (everything).\n");
}

/* The text report. Every string of the recording (its facts, regions,
 * callers, events) and every message that quotes one goes through the
 * text escaping (render_text_string): a recording is a file people send
 * each other, and its strings must not move the terminal or fake a line. */
static void write_text(const struct merge_report *r, FILE *out)
{
	write_header(r, out);
	heading(out, "Measured Top-Down (whole program)");
	if (r->tree)
		render_tma(out, r->tree, &r->run, RENDER_TEXT, ',');
	else
		rd_text_put(out, "not available: ", r->why_no_measure, "\n");

	if (r->spire_asked) {
		heading(out, "SPIRE: counter samples against a statistical roofline ensemble");
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

	write_table(r, out);
	if (!r->nregions)
		return;
	/* the per-instruction table of the hottest loop shown (a function's
	 * straight code says less per instruction), or of --region's */
	bool table_done = false;
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->details || rv->with_parent)
			continue;
		bool loop = !strcmp(rv->kind, "loop") || (rv->only_loop >= 0 && r->regions[rv->only_loop].with_parent);
		bool insn_table = !table_done && (loop || r->one_region);
		table_done |= insn_table;
		write_region(r, rv, insn_table, out);
	}
	write_more(r, out);
}

void render_report_text(FILE *out, const struct merge_report *r, bool use_colour)
{
	colour = use_colour;
	write_text(r, out);
}
