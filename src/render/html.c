/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The HTML report: one self-contained page a person browses instead of
 * scrolling through the text report. The page is HTML with inline SVG
 * charts, the style and the script of html.css and html.js embedded at
 * build time (html_assets.h); a Content-Security-Policy lets the browser
 * fetch nothing. Everything the recording says (names, paths, the command
 * line, reasons) is written through render_html_string; the script holds
 * no data, it sorts tables, links source lines to instructions and opens
 * or closes trees from what the DOM holds. Like every renderer this reads
 * the report model alone and computes nothing it does not hold: shares
 * are divided and laid out, not derived. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "html_assets.h"
#include "merge.h"
#include "render.h"
#include "render_internal.h"
#include "sim.h"
#include "topdown.h"

#define esc render_html_string

/* ------------------------------------------------------------ helpers --- */
static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

static double clamp01(double v)
{
	return !(v > 0) ? 0 : v > 1 ? 1 : v;
}

/* a bar of FRACTION (0..1) of its width */
static void bar(FILE *out, double fraction, const char *cls)
{
	fprintf(out, "<span class=\"bar%s%s\"><i style=\"width:%.1f%%\"></i></span>", cls ? " " : "", cls ? cls : "",
		100 * clamp01(fraction));
}

static const char *fact(const struct merge_report *r, const char *key)
{
	return merge_report_meta(r, key);
}

/* a fact as a row of a <dl>, when the recording has it */
static void fact_row(FILE *out, const char *label, const char *value, bool mono)
{
	if (!value || !value[0])
		return;
	fprintf(out, "<dt>%s</dt><dd%s>", label, mono ? " class=\"mono\"" : "");
	esc(out, value);
	fputs("</dd>\n", out);
}

static void page_head(FILE *out, const char *kind, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\" data-gus-page=\"", out);
	fputs(kind, out);
	fputs("\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"gus\">\n<title>",
	      out);
	esc(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", html_css);
}

static void page_tail(FILE *out)
{
	fprintf(out, "<footer>Written by gus. One file: its style, script and charts are inside it, and it "
		     "fetches nothing.</footer>\n</main>\n<script>\n%s</script>\n</body>\n</html>\n",
		html_js);
}

/* ------------------------------------------------------- Top-Down trees --- */
static bool td_shown(const struct td_tree *t, size_t i)
{
	return t->res[i].status != TD_NOT_SELECTED && t->table->nodes[i].level <= t->max_level;
}

static bool td_has_children(const struct td_tree *t, int parent)
{
	for (size_t i = 0; i < t->table->n_nodes; i++)
		if (t->table->nodes[i].parent == parent && td_shown(t, i))
			return true;
	return false;
}

static void td_node_line(FILE *out, const struct td_tree *t, size_t i)
{
	const struct td_node *nd = &t->table->nodes[i];
	const struct td_result *x = &t->res[i];
	fputs("<span class=\"nm\" title=\"", out);
	esc(out, nd->desc ? nd->desc : nd->name);
	fputs("\">", out);
	esc(out, nd->name);
	fputs("</span><span class=\"val\">", out);
	if (x->status == TD_NOT_COMPUTABLE)
		fputs("n/a", out);
	else
		fprintf(out, "%.1f %%", 100 * x->value);
	fprintf(out, "</span><span class=\"unit\">%s</span>", td_unit_name(nd->unit));
	bar(out, x->status == TD_NOT_COMPUTABLE ? 0 : x->value, NULL);
	if (x->status == TD_MISMEASURED)
		fputs("<span class=\"tag bn\">mismeasured</span>", out);
	if (x->bottleneck && x->candidate)
		fputs("<span class=\"tag bn\">candidate</span>", out);
	if (x->mux < 0.999)
		fprintf(out, "<span class=\"tag\">multiplexed %.0f %%</span>", 100 * x->mux);
	if (x->note[0]) {
		fputs("<span class=\"note\" title=\"", out);
		esc(out, x->note);
		fputs("\">", out);
		esc(out, x->note);
		fputs("</span>", out);
	}
}

static void td_children(FILE *out, const struct td_tree *t, int parent)
{
	fputs(parent < 0 ? "" : "<ul>\n", out);
	for (size_t i = 0; i < t->table->n_nodes; i++) {
		if (t->table->nodes[i].parent != parent || !td_shown(t, i))
			continue;
		const struct td_result *x = &t->res[i];
		fprintf(out, "<li class=\"node%s%s\" data-node=\"", x->bottleneck ? " bn" : "",
			x->status == TD_MISMEASURED ? " mis" : "");
		esc(out, t->table->nodes[i].name);
		fputs("\">", out);
		if (td_has_children(t, (int)i)) {
			fputs("<details open><summary>", out);
			td_node_line(out, t, i);
			fputs("</summary>\n", out);
			td_children(out, t, (int)i);
			fputs("</details>", out);
		} else {
			fputs("<div class=\"leaf\">", out);
			td_node_line(out, t, i);
			fputs("</div>", out);
		}
		fputs("</li>\n", out);
	}
	fputs(parent < 0 ? "" : "</ul>\n", out);
}

/* the measured tree, its nodes nested and open, the bottleneck path
 * marked; ID names it for its expand/collapse button */
static void td_tree_html(FILE *out, const struct td_tree *t, const char *id)
{
	fprintf(out, "<div class=\"muted\">");
	esc(out, t->table->full_name);
	fputs(" (", out);
	esc(out, t->table->id);
	fprintf(out, "), levels 1-%d <button class=\"mini\" data-tree=\"%s\" data-open=\"1\">collapse all</button></div>\n",
		t->max_level, id);
	fprintf(out, "<ul class=\"tree measured\" id=\"%s\">\n", id);
	td_children(out, t, -1);
	fputs("</ul>\n", out);
	if (isnan(t->level1_sum))
		fputs("<div class=\"muted\">level-1 sum: not computable</div>\n", out);
	else
		fprintf(out, "<div class=\"muted\">level-1 sum %.1f %%%s; &#9670; marks the bottleneck path (a child is "
			     "flagged only under a flagged parent)</div>\n",
			100 * t->level1_sum,
			t->level1_sum_bad ? " <b>mismeasured: farther than 5 points from 100 %, no bottleneck is marked</b>"
					  : "");
}

static void sim_leaf(FILE *out, const char *name, double part, double slots, const char *note)
{
	double v = slots > 0 ? part / slots : 0;
	fputs("<li class=\"node\"><div class=\"leaf\"><span class=\"nm\">", out);
	fputs(name, out);
	fprintf(out, "</span><span class=\"val\">%.1f %%</span><span class=\"unit\">slots</span>", 100 * v);
	bar(out, v, NULL);
	if (note)
		fprintf(out, "<span class=\"note\" title=\"%s\">%s</span>", note, note);
	fputs("</div></li>\n", out);
}

static void sim_parent(FILE *out, const char *name, double part, double slots, const char *a, double pa,
		       const char *b, double pb)
{
	double v = slots > 0 ? part / slots : 0;
	fputs("<li class=\"node\"><details open><summary><span class=\"nm\">", out);
	fputs(name, out);
	fprintf(out, "</span><span class=\"val\">%.1f %%</span><span class=\"unit\">slots</span>", 100 * v);
	bar(out, v, NULL);
	fputs("</summary>\n<ul>\n", out);
	sim_leaf(out, a, pa, slots, NULL);
	sim_leaf(out, b, pb, slots, NULL);
	fputs("</ul></details></li>\n", out);
}

/* the simulated Top-Down of an analysis, in the machine's hierarchy */
static void sim_tree_html(FILE *out, const struct sim_machine *m, const struct sim_analysis *a)
{
	const struct sim_stats *b = &a->base;
	double backend = b->backend_mem + b->backend_core;
	bool amd = sim_machine_topdown(m) == SIM_TOPDOWN_AMD;
	fprintf(out, "<div class=\"muted\">%s, %u %s slots per cycle</div>\n<ul class=\"tree simulated\">\n",
		amd ? "AMD's pipeline utilization" : "Intel's Top-Down levels 1-2", sim_machine_width(m),
		amd ? "dispatch" : "issue");
	if (amd) {
		sim_leaf(out, "Frontend Bound", b->frontend, b->slots, NULL);
		sim_leaf(out, "Bad Speculation", b->bad_spec, b->slots, "mispredicts: the model has no pipeline restarts");
		sim_parent(out, "Backend Bound", backend, b->slots, "Memory", b->backend_mem, "CPU", b->backend_core);
		sim_leaf(out, "SMT Contention", 0, b->slots, "one thread in the model");
		sim_leaf(out, "Retiring", b->retiring, b->slots, NULL);
	} else {
		sim_leaf(out, "Retiring", b->retiring, b->slots, NULL);
		sim_leaf(out, "Frontend Bound", b->frontend, b->slots, NULL);
		sim_leaf(out, "Bad Speculation", b->bad_spec, b->slots, NULL);
		sim_parent(out, "Backend Bound", backend, b->slots, "Memory Bound", b->backend_mem, "Core Bound",
			   b->backend_core);
	}
	fputs("</ul>\n", out);
}

/* -------------------------------------------------------------- header --- */
static void header_html(FILE *out, const struct merge_report *r)
{
	fputs("<h1>gus report<span class=\"path\">", out);
	esc(out, r->input);
	fputs("</span></h1>\n<section class=\"card\" id=\"facts\">\n<dl class=\"facts\">\n", out);
	fact_row(out, "command", fact(r, "command"), true);
	const char *status = fact(r, "exit_status");
	if (status) {
		char buf[160];
		unsigned long long v = strtoull(status, NULL, 10);
		int ws = (int)strtol(fact(r, "wait_status") ? fact(r, "wait_status") : "0", NULL, 10);
		const char *sig = fact(r, "wait_status") && WIFSIGNALED(ws) ? sigabbrev_np(WTERMSIG(ws)) : NULL;
		if (sig)
			snprintf(buf, sizeof buf, "%llu (killed by SIG%s)", v, sig);
		else
			snprintf(buf, sizeof buf, "%llu", v);
		fact_row(out, "exit status", buf, false);
	}
	fact_row(out, "cpu", fact(r, "cpu.name"), false);
	fact_row(out, "cpu taken for", fact(r, "cpu.taken_for"), false);
	fact_row(out, "kernel", fact(r, "kernel"), false);
	fact_row(out, "host", fact(r, "hostname"), false);
	fprintf(out, "<dt>samples</dt><dd>%llu", (unsigned long long)r->samples);
	if (fact(r, "sample.event")) {
		fputc(' ', out);
		esc(out, fact(r, "sample.event"));
	}
	if (fact(r, "sample.fallback")) {
		fputs(" <span class=\"muted\">(no cycles: ", out);
		esc(out, fact(r, "sample.fallback"));
		fputs(")</span>", out);
	}
	fputs("</dd>\n<dt>instruction stream</dt><dd>", out);
	esc(out, r->tracer);
	if (r->cut_before_trace)
		fputs(" (planned; gus record was stopped before the trace run)", out);
	else if (!strcmp(r->tracer, "qemu") && r->trace_records)
		fprintf(out, " (second run under the QEMU tracer, %llu records%s)", (unsigned long long)r->trace_records,
			r->incomplete ? ", cut short" : "");
	else if (!strcmp(r->tracer, "pt"))
		fputs(" (Intel PT of the sample run)", out);
	else if (!strcmp(r->tracer, "qemu"))
		fputs(" (no records: see below)", out);
	fputs("</dd>\n<dt>model</dt><dd>", out);
	esc(out, sim_machine_describe(r->m));
	fputs("</dd>\n</dl>\n", out);
	/* what makes the rest of the page partial, said first */
	if (r->incomplete) {
		fputs("<div class=\"warnbox\" id=\"incomplete\">The recording is incomplete: ", out);
		esc(out, r->incomplete);
		fputs("</div>\n", out);
	} else if (!fact(r, "record.complete") || strcmp(fact(r, "record.complete"), "yes")) {
		fputs("<div class=\"warnbox\" id=\"incomplete\">The recording is incomplete (gus record was stopped or "
		      "failed): parts are missing.</div>\n",
		      out);
	}
	if (fact(r, "interrupted"))
		fputs("<div class=\"warnbox\">The run was interrupted (Ctrl-C): what follows covers its first "
		      "part.</div>\n",
		      out);
	if (r->trace_stopped && !r->cut_before_trace) {
		fputs("<div class=\"warnbox\">The trace stopped short of the run: ", out);
		esc(out, r->trace_stopped);
		fputs("</div>\n", out);
	}
	fputs("</section>\n", out);
}

static void toc_html(FILE *out, const struct merge_report *r)
{
	fputs("<nav class=\"toc\"><a href=\"#facts\">Facts</a>\n<a href=\"#topdown\">Top-Down</a>\n"
	      "<a href=\"#regions\">Hot regions</a>\n",
	      out);
	size_t shown = 0;
	for (size_t i = 0; i < r->nregions && shown < 12; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->selected)
			continue;
		fprintf(out, "<a href=\"#region-%d\">%d. ", rv->rank, rv->rank);
		char name[48];
		/* a short form of the name: its first characters */
		snprintf(name, sizeof name, "%s", rv->name);
		if (strlen(rv->name) >= sizeof name) {
			/* not inside a UTF-8 character */
			size_t k = sizeof name - 1;
			while (k && ((unsigned char)name[k] & 0xc0) == 0x80)
				k--;
			name[k] = 0;
		}
		esc(out, name);
		fputs(strlen(rv->name) >= sizeof name ? "&#8230;</a>\n" : "</a>\n", out);
		shown++;
	}
	fputs("<a href=\"#stream\">Stream and what is missing</a></nav>\n", out);
}

/* the first simulated region shown: its simulated tree goes beside the
 * program's measured one */
static const struct merge_report_region *first_simulated(const struct merge_report *r)
{
	for (size_t i = 0; i < r->nregions; i++)
		if (r->regions[i].selected && r->regions[i].simulated)
			return &r->regions[i];
	return NULL;
}

static void topdown_html(FILE *out, const struct merge_report *r)
{
	fputs("<section class=\"card\" id=\"topdown\">\n<h2>Top-Down</h2>\n<div class=\"cols\">\n<div>\n"
	      "<h3>Measured (whole program)</h3>\n",
	      out);
	if (r->tree) {
		td_tree_html(out, r->tree, "tree-measured");
		if (r->run.notes && r->run.notes[0]) {
			fputs("<div class=\"muted\">", out);
			esc(out, r->run.notes);
			fputs("</div>\n", out);
		}
	} else {
		fputs("<p class=\"muted\" id=\"measured-missing\">Not available: ", out);
		esc(out, r->why_no_measure);
		fputs("</p>\n", out);
	}
	fputs("</div>\n<div>\n", out);
	const struct merge_report_region *rv = first_simulated(r);
	if (rv) {
		fprintf(out, "<h3>Simulated (region %d: ", rv->rank);
		esc(out, rv->name);
		fputs(")</h3>\n", out);
		sim_tree_html(out, r->m, rv->an);
	} else {
		fputs("<h3>Simulated</h3>\n<p class=\"muted\">No region was simulated.</p>\n", out);
	}
	fputs("</div>\n</div>\n</section>\n", out);
}

/* ---------------------------------------------------- hot regions table --- */
static const char *verdict_class(enum merge_agreement k)
{
	return k == MERGE_AGREE ? "agree" : k == MERGE_DISAGREE ? "disagree" : "other";
}

/* a row of the time outside the hot functions ([kernel], [unknown], the
 * other functions): no rank, no simulation, what it is as its verdict */
static void outside_html(FILE *out, const struct merge_report_outside *o)
{
	fprintf(out, "<tr class=\"outside\"><td class=\"num\" data-v=\"1e9\">-</td><td class=\"num\" data-v=\"%.6f\">"
		     "%.1f %% ",
		o->share, 100 * o->share);
	bar(out, o->share, "small");
	fprintf(out, "</td><td class=\"num\">%llu</td><td>outside</td><td>", (unsigned long long)o->samples);
	esc(out, o->name);
	fputs("</td><td class=\"obj\">-</td><td class=\"mono\"></td><td class=\"vd\">", out);
	esc(out, o->what);
	fputs("</td><td class=\"num\" data-v=\"-1\">-</td><td class=\"num\" data-v=\"-1\">-</td></tr>\n", out);
}

static void regions_html(FILE *out, const struct merge_report *r)
{
	fputs("<section class=\"card\" id=\"regions\">\n<h2>Hot regions</h2>\n", out);
	if (!r->nregions && !r->noutside) {
		fputs("<p class=\"muted\">None", out);
		for (size_t i = 0; i < r->nmissing; i++)
			if (!strcmp(r->missing[i].key, "regions")) {
				fputs(": ", out);
				esc(out, r->missing[i].value);
			}
		fputs(".</p>\n</section>\n", out);
		return;
	}
	fputs("<table class=\"sortable regions\">\n<thead><tr><th class=\"num\">rank</th><th class=\"num\">share</th>"
	      "<th class=\"num\">samples</th><th>kind</th><th>region</th><th>object</th><th>source</th>"
	      "<th>verdict</th><th class=\"num\">+15 %</th><th class=\"num\">unlimited</th></tr></thead>\n<tbody>\n",
	      out);
	/* the rows outside the regions go where their share puts them,
	 * between functions, as in the text */
	bool done[8] = { false };
	size_t noutside = r->noutside < 8 ? r->noutside : 8;
	for (size_t i = 0; i <= r->nregions; i++) {
		const struct merge_report_region *rv = i < r->nregions ? &r->regions[i] : NULL;
		if (!rv || rv->parent < 0)
			for (size_t k = 0; k < noutside; k++)
				if (!done[k] && (!rv || r->outside[k].share > rv->share)) {
					outside_html(out, &r->outside[k]);
					done[k] = true;
				}
		if (!rv)
			break;
		const struct merge_verdict *vd = &rv->verdict;
		fprintf(out, "<tr%s><td class=\"num\">%d</td><td class=\"num\" data-v=\"%.6f\">%.1f %% ",
			rv->simulated && vd->bottleneck ? " class=\"hasbn\"" : "", rv->rank, rv->share, 100 * rv->share);
		bar(out, rv->share, "small");
		fprintf(out, "</td><td class=\"num\">%llu</td><td>", (unsigned long long)rv->samples);
		esc(out, rv->kind);
		fputs("</td><td>", out);
		if (rv->selected)
			fprintf(out, "<a href=\"#region-%d\">", rv->rank);
		esc(out, rv->name);
		fputs(rv->selected ? "</a></td><td class=\"obj\" title=\"" : "</td><td class=\"obj\" title=\"", out);
		esc(out, rv->file);
		fputs("\">", out);
		esc(out, base_name(rv->file));
		fputs("</td><td class=\"mono\">", out);
		esc(out, rv->source);
		fputs("</td><td class=\"vd\">", out);
		fputs(merge_agreement_name(vd->kind), out);
		if (vd->resource[0]) {
			fputs(vd->bottleneck ? ": <b>" : ": ", out);
			esc(out, vd->resource);
			fputs(vd->bottleneck ? "</b>" : "", out);
		}
		if (rv->simulated)
			fprintf(out, "</td><td class=\"num\" data-v=\"%.6f\">%.1f %%</td><td class=\"num\" data-v=\"%.6f\">%.1f %%"
				     "</td></tr>\n",
				vd->speedup_top, 100 * vd->speedup_top, vd->gain_upper, 100 * vd->gain_upper);
		else
			fputs("</td><td class=\"num\" data-v=\"-1\">-</td><td class=\"num\" data-v=\"-1\">-</td></tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	fprintf(out, "<p class=\"muted\">Share: of the time all %llu samples stand for; a loop's samples are also its "
		     "function's; the rows without a rank are the time outside the hot functions, so that the "
		     "functions and they add up to the whole profile. +15 %% and unlimited: the simulated speedup "
		     "of the region with its top resource %s. "
		     "A heading sorts the table.</p>\n",
		(unsigned long long)r->samples, "given 15 % more capacity, or unlimited");
	if (r->skid_note) {
		fputs("<p class=\"muted\">Measured per region: ", out);
		esc(out, r->skid_note);
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
}

/* ------------------------------------------------- a region's sections --- */
struct sens_row {
	const struct sim_sensitivity *se;
	double top;
};

static int sens_cmp(const void *x, const void *y)
{
	const struct sens_row *p = x, *q = y;
	if (p->top != q->top)
		return p->top > q->top ? -1 : 1;
	return p->se->upper > q->se->upper ? -1 : p->se->upper < q->se->upper;
}

/* The sensitivity as two bar panels: the speedup with 15 % more of each
 * resource (the last weight) and with it unlimited, each on its own
 * scale; the resources without an effect are counted, not drawn. */
static void sens_chart(FILE *out, const struct sim_machine *m, const struct sim_analysis *a)
{
	if (!a->nsens || !a->nweights) {
		fputs("<p class=\"muted\">No sensitivity sweep.</p>\n", out);
		return;
	}
	struct sens_row *rows = calloc(a->nsens, sizeof *rows);
	if (!rows)
		abort();
	size_t n = 0, idle = 0;
	double top_w = a->weights[a->nweights - 1] - 1;
	double max_top = top_w > 0 ? top_w : 0.15, max_up = 0.05;
	for (size_t i = 0; i < a->nsens; i++) {
		const struct sim_sensitivity *se = &a->sens[i];
		double top = se->speedup[a->nweights - 1];
		/* model noise below 0.05 % is no effect */
		if (fabs(top) < 5e-4 && fabs(se->upper) < 5e-4) {
			idle++;
			continue;
		}
		rows[n++] = (struct sens_row){ se, top };
		if (top > max_top)
			max_top = top;
		if (se->upper > max_up)
			max_up = se->upper;
	}
	qsort(rows, n, sizeof *rows, sens_cmp);
	const double label_w = 170, panel_w = 330, gap = 70, row_h = 22, top = 40;
	double width = label_w + 2 * panel_w + gap + 60, height = top + row_h * (double)(n ? n : 1) + 16;
	fprintf(out, "<svg class=\"chart sensitivity\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		     "width=\"%.0f\" height=\"%.0f\" font-family=\"system-ui, sans-serif\" font-size=\"12\" role=\"img\">"
		     "<title>Sensitivity: the speedup with more of each resource</title>\n",
		width, height, width, height);
	double x0 = label_w, x1 = label_w + panel_w + gap;
	fprintf(out, "<text x=\"%.0f\" y=\"14\" font-weight=\"600\">+%.0f %% capacity</text>"
		     "<text x=\"%.0f\" y=\"14\" font-weight=\"600\">unlimited</text>\n",
		x0, 100 * top_w, x1);
	/* gridlines at quarters of each panel's scale */
	for (int k = 0; k <= 4; k++) {
		double fa = x0 + panel_w * k / 4, fb = x1 + panel_w * k / 4;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#e3e7eb\"/>"
			     "<text x=\"%.1f\" y=\"32\" text-anchor=\"middle\" fill=\"#5b6570\" font-size=\"10.5\">%.1f%%</text>"
			     "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#e3e7eb\"/>"
			     "<text x=\"%.1f\" y=\"32\" text-anchor=\"middle\" fill=\"#5b6570\" font-size=\"10.5\">%.0f%%</text>\n",
			fa, top - 4, fa, height - 10, fa, 100 * max_top * k / 4, fb, top - 4, fb, height - 10, fb,
			100 * max_up * k / 4);
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_sensitivity *se = rows[i].se;
		char name[128];
		rd_set_name(m, &se->set, name, sizeof name);
		double y = top + row_h * (double)i;
		const char *fill = se->bottleneck ? "#c0392b" : "#6b9bd6", *fill2 = se->bottleneck ? "#e08277" : "#a9c4e6";
		fprintf(out, "<g class=\"sens-row%s\"><title>", se->bottleneck ? " bn" : "");
		esc(out, name);
		fprintf(out, ": %.2f %% faster at +%.0f %%, %.2f %% unlimited%s</title>", 100 * rows[i].top, 100 * top_w,
			100 * se->upper, se->searched ? " (a set found by search)" : "");
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\"%s>", label_w - 10, y + 15,
			se->bottleneck ? " font-weight=\"700\" fill=\"#c0392b\"" : "");
		esc(out, name);
		fprintf(out, "%s</text>", se->bottleneck ? " \xe2\x97\x86" : "");
		double wa = panel_w * clamp01(rows[i].top / max_top), wb = panel_w * clamp01(se->upper / max_up);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" rx=\"2\" fill=\"%s\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">%.1f%%</text>",
			x0, y + 4, wa > 1 ? wa : 1, fill, x0 + (wa > 1 ? wa : 1) + 4, y + 15, 100 * rows[i].top);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" rx=\"2\" fill=\"%s\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">%.1f%%%s</text></g>\n",
			x1, y + 4, wb > 1 ? wb : 1, fill2, x1 + (wb > 1 ? wb : 1) + 4, y + 15, 100 * se->upper,
			se->envelope ? " ~" : "");
	}
	if (!n)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#5b6570\">no resource had an effect</text>\n", x0, top + 15);
	fputs("</svg>\n", out);
	fputs("<p class=\"muted\">&#9670;, red: a bottleneck, as the model flags it.", out);
	if (idle)
		fprintf(out, " %zu other resource%s had no effect.", idle, idle == 1 ? "" : "s");
	fputs(" ~: the model's time was not monotonic in that capacity; the row is the envelope.</p>\n", out);
	free(rows);
}

static const char *thread_colour(size_t k)
{
	static const char *pal[] = { "#2463b5", "#e39b49", "#22863a", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d",
				     "#d35400" };
	return pal[k % (sizeof pal / sizeof *pal)];
}

/* where cycles per unit V goes on the phases chart's y axis: linear from
 * 0 to HI, or, when the windows differ by more than 20 times, on a log
 * axis from LO to HI */
struct yaxis {
	bool log;
	double lo, hi, top, h;
};

static double yat(const struct yaxis *ax, double v)
{
	double f = ax->log ? (log(v > ax->lo ? v : ax->lo) - log(ax->lo)) / (log(ax->hi) - log(ax->lo)) : v / ax->hi;
	return ax->top + ax->h - ax->h * clamp01(f);
}

/* The windows on a time axis (records of their thread's run), their
 * cycles per unit, the phases as segments and the median as a line. */
static void phases_chart(FILE *out, const struct merge_report_region *rv)
{
	if (!rv->windows) {
		fputs("<p class=\"muted\">No windows: the region's stream is its first records (or a static view), "
		      "not a sample of the whole run.</p>\n",
		      out);
		return;
	}
	fprintf(out, "<p>%zu of the %zu windows of the run that hold the region (%zu thread%s); cycles per %s: "
		     "min %.2f, median %.2f, max %.2f.</p>\n",
		rv->windows, rv->windows_total, rv->window_threads, rv->window_threads == 1 ? "" : "s", rv->window_unit,
		rv->window_min, rv->window_median, rv->window_max);
	if (!rv->nwindow_list)
		return;
	double xmax = 0, ymax = 0, ymin = INFINITY;
	for (size_t i = 0; i < rv->nwindow_list; i++) {
		const struct merge_report_window *w = &rv->window_list[i];
		xmax = w->position > xmax ? w->position : xmax;
		ymax = w->cycles_per_unit > ymax ? w->cycles_per_unit : ymax;
		ymin = w->cycles_per_unit > 0 && w->cycles_per_unit < ymin ? w->cycles_per_unit : ymin;
	}
	for (size_t i = 0; i < rv->nphases; i++) {
		xmax = rv->phases[i].to > xmax ? rv->phases[i].to : xmax;
		ymax = rv->phases[i].cycles_per_unit > ymax ? rv->phases[i].cycles_per_unit : ymax;
	}
	if (xmax <= 0)
		xmax = 1;
	if (ymax <= 0)
		ymax = 1;
	const double left = 78, right = 20, top = 14, plot_w = 760, plot_h = 200;
	struct yaxis ax = { .top = top, .h = plot_h, .hi = ymax * 1.15 };
	if (isfinite(ymin) && ymax > 20 * ymin) {
		ax.log = true;
		ax.lo = pow(10, floor(log10(ymin)));
		ax.hi = pow(10, ceil(log10(ymax)));
	}
	double width = left + plot_w + right, height = top + plot_h + 44;
	fprintf(out, "<svg class=\"chart phases\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
		     "width=\"%.0f\" height=\"%.0f\" font-family=\"system-ui, sans-serif\" font-size=\"11\" role=\"img\">"
		     "<title>The windows of the run: cycles per %s by position</title>\n",
		width, height, width, height, rv->window_unit);
	/* y: a line per decade on a log axis, else at quarters */
	int nticks = ax.log ? (int)lround(log10(ax.hi / ax.lo)) : 4;
	for (int k = 0; k <= nticks; k++) {
		double v = ax.log ? ax.lo * pow(10, k) : ax.hi * k / 4, y = yat(&ax, v);
		fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#e3e7eb\"/>"
			     "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#5b6570\">%.*f</text>\n",
			left, y, left + plot_w, y, left - 6, y + 4, v >= 10 || v == 0 ? 0 : 2, v);
	}
	for (int k = 0; k <= 4; k++) {
		char lab[32];
		rd_records_text(xmax * k / 4, lab, sizeof lab);
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#5b6570\">%s</text>\n",
			left + plot_w * k / 4, top + plot_h + 16, lab);
	}
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#5b6570\">position in the thread's "
		     "traced run (records)</text>"
		     "<text transform=\"translate(14,%.0f) rotate(-90)\" text-anchor=\"middle\" fill=\"#5b6570\">cycles "
		     "per %s%s</text>\n",
		left + plot_w / 2, top + plot_h + 36, top + plot_h / 2, rv->window_unit, ax.log ? " (log)" : "");
	double my = yat(&ax, rv->window_median);
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#5b6570\" stroke-dasharray=\"4 3\">"
		     "<title>median %.2f</title></line>\n",
		left, my, left + plot_w, my, rv->window_median);
	for (size_t i = 0; i < rv->nphases; i++) {
		const struct merge_report_phase *p = &rv->phases[i];
		double xa = left + plot_w * p->from / xmax, xb = left + plot_w * p->to / xmax;
		double y = yat(&ax, p->cycles_per_unit);
		fprintf(out, "<line class=\"phase\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" "
			     "stroke-width=\"4\" stroke-opacity=\"0.55\"><title>phase %zu: %.2f cycles per %s, %.1f %% of the "
			     "time, %zu window(s)</title></line>\n",
			xa, y, xb > xa + 2 ? xb : xa + 2, y, i + 1, p->cycles_per_unit, rv->window_unit, 100 * p->share,
			p->windows);
	}
	/* one colour per thread, in the order they first come */
	uint32_t seen[8];
	size_t nseen = 0;
	for (size_t i = 0; i < rv->nwindow_list; i++) {
		const struct merge_report_window *w = &rv->window_list[i];
		size_t k = 0;
		while (k < nseen && seen[k] != w->thread)
			k++;
		if (k == nseen && nseen < 8)
			seen[nseen++] = w->thread;
		fprintf(out, "<circle class=\"window\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.8\">"
			     "<title>thread %u.%u at %.0f: %.2f cycles per %s</title></circle>\n",
			left + plot_w * w->position / xmax, yat(&ax, w->cycles_per_unit),
			thread_colour(k), (unsigned)(w->thread >> 16), (unsigned)(w->thread & 0xffff), w->position,
			w->cycles_per_unit, rv->window_unit);
	}
	/* which colour is which thread (the tracer's process.thread) */
	for (size_t k = 0; nseen > 1 && k < nseen; k++) {
		double x = left + plot_w - 120 * (double)(nseen - k);
		fprintf(out, "<g class=\"legend\"><circle cx=\"%.0f\" cy=\"%.0f\" r=\"4\" fill=\"%s\"/>"
			     "<text x=\"%.0f\" y=\"%.0f\" fill=\"#5b6570\">thread %u.%u</text></g>\n",
			x, top + 8, thread_colour(k), x + 8, top + 12, (unsigned)(seen[k] >> 16), (unsigned)(seen[k] & 0xffff));
	}
	fputs("</svg>\n", out);
	if (rv->nphases) {
		fputs("<table class=\"phases\"><thead><tr><th>phase</th><th class=\"num\">records of the thread's run</th>"
		      "<th class=\"num\">share of the time</th><th class=\"num\">cycles per unit</th>"
		      "<th class=\"num\">windows</th></tr></thead><tbody>\n",
		      out);
		for (size_t i = 0; i < rv->nphases; i++) {
			const struct merge_report_phase *p = &rv->phases[i];
			char from[32], to[32];
			rd_records_text(p->from, from, sizeof from);
			rd_records_text(p->to, to, sizeof to);
			fprintf(out, "<tr><td>%zu</td><td class=\"num\">%s-%s</td><td class=\"num\">%.1f %%</td>"
				     "<td class=\"num\">%.2f</td><td class=\"num\">%zu</td></tr>\n",
				i + 1, from, to, 100 * p->share, p->cycles_per_unit, p->windows);
		}
		fputs("</tbody></table>\n", out);
	} else {
		fputs("<p class=\"muted\">One phase: no windows differ by more than 20 %.</p>\n", out);
	}
}

static void threads_html(FILE *out, const struct merge_report_region *rv)
{
	fputs("<h3>Threads</h3>\n", out);
	if (rv->nthreads < 2) {
		fputs("<p class=\"muted\">One thread ran it.</p>\n", out);
		return;
	}
	fputs("<table class=\"sortable threads\"><thead><tr><th class=\"num\">share</th><th class=\"num\">pid</th>"
	      "<th class=\"num\">tid</th><th class=\"num\">cycles per unit</th><th>model</th></tr></thead><tbody>\n",
	      out);
	for (size_t k = 0; k < rv->nthreads; k++) {
		const struct merge_report_thread *t = &rv->threads[k];
		fprintf(out, "<tr><td class=\"num\" data-v=\"%.6f\">%.1f %%</td><td class=\"num\">%d</td>"
			     "<td class=\"num\">%d</td>",
			t->share, 100 * t->share, t->pid, t->tid);
		if (t->simulated)
			fprintf(out, "<td class=\"num\" data-v=\"%.6f\">%.2f per %s</td><td>", t->cycles_per_unit,
				t->cycles_per_unit, rv->window_unit ? rv->window_unit : "iteration");
		else
			fputs("<td class=\"num\" data-v=\"-1\">-</td><td class=\"muted\">", out);
		esc(out, t->model);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n<p class=\"muted\">The region's samples by thread; a thread with a tenth of them or "
	      "more is simulated from its own windows.</p>\n",
	      out);
}

static void callers_html(FILE *out, const struct merge_report *r, const struct merge_report_region *rv)
{
	fputs("<h3>Callers</h3>\n", out);
	if (r->why_no_callers) {
		fputs("<p class=\"muted\">Not available: ", out);
		esc(out, r->why_no_callers);
		fputs("</p>\n", out);
		return;
	}
	if (!rv->chain_samples) {
		fputs("<p class=\"muted\">None known: no call chain of its samples could be placed in its object.</p>\n",
		      out);
		return;
	}
	fprintf(out, "<table class=\"sortable callers\"><thead><tr><th class=\"num\">share</th><th class=\"num\">samples"
		     "</th><th>caller</th><th>object</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < rv->ncallers; k++) {
		const struct merge_report_caller *c = &rv->callers[k];
		fprintf(out, "<tr><td class=\"num\" data-v=\"%.6f\">%.1f %% ", c->share, 100 * c->share);
		bar(out, c->share, "small");
		fprintf(out, "</td><td class=\"num\">%llu</td><td>", (unsigned long long)c->samples);
		esc(out, c->name);
		fputs("</td><td title=\"", out);
		esc(out, c->file);
		fputs("\">", out);
		esc(out, base_name(c->file));
		fputs("</td></tr>\n", out);
	}
	if (rv->callers_other)
		fprintf(out, "<tr><td class=\"num\" data-v=\"%.6f\">%.1f %%</td><td class=\"num\">%llu</td>"
			     "<td class=\"muted\">(other callers)</td><td></td></tr>\n",
			(double)rv->callers_other / (double)rv->chain_samples,
			100 * (double)rv->callers_other / (double)rv->chain_samples, (unsigned long long)rv->callers_other);
	fprintf(out, "</tbody></table>\n<p class=\"muted\">The first frame outside the region in %llu call chain%s.</p>\n",
		(unsigned long long)rv->chain_samples, rv->chain_samples == 1 ? "" : "s");
}

/* the functions inlined into it where its samples fell */
static void inlined_html(FILE *out, const struct merge_report_region *rv)
{
	if (!rv->ninlined)
		return;
	fputs("<h3>Inlined into it</h3>\n<table class=\"sortable callers\"><thead><tr><th class=\"num\">share</th>"
	      "<th class=\"num\">samples</th><th>function (DWARF)</th></tr></thead><tbody>\n", out);
	for (size_t k = 0; k < rv->ninlined; k++) {
		const struct merge_report_caller *c = &rv->inlined[k];
		fprintf(out, "<tr><td class=\"num\" data-v=\"%.6f\">%.1f %% ", c->share, 100 * c->share);
		bar(out, c->share, "small");
		fprintf(out, "</td><td class=\"num\">%llu</td><td>", (unsigned long long)c->samples);
		esc(out, c->name);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* a per-instruction table longer than this lists only the instructions
 * with TRIM_SHARE of the cycles or more, and the bottleneck ones */
#define MAX_FULL_TABLE 300
#define TRIM_SHARE 0.001

static bool is_bottleneck_res(const struct sim_analysis *a, unsigned r)
{
	for (size_t i = 0; i < a->nsens; i++)
		if (a->sens[i].bottleneck && a->sens[i].set.n == 1 && a->sens[i].set.res[0] == r)
			return true;
	return false;
}

/* the per-instruction table beside the annotated source: a source line
 * and its instructions share a data-src key, which the script links */
static void annotated_html(FILE *out, const struct merge_report *r, const struct merge_report_region *rv)
{
	const struct sim_machine *m = r->m;
	const struct sim_analysis *a = rv->an;
	fputs("<h3>Instructions and source</h3>\n", out);
	if (!rv->ninsns) {
		fputs("<p class=\"muted\">No instruction of the region ran in the simulation.</p>\n", out);
		return;
	}
	/* the columns: the resources an instruction of the table takes */
	unsigned cols[SIM_MAX_RES];
	size_t nc = 0;
	for (unsigned res = 0; res < sim_nres(m); res++) {
		enum sim_res_kind k = sim_res_kind(m, res);
		if (k != SIM_RK_PORTS && k != SIM_RK_FRONTEND && k != SIM_RK_DIV)
			continue;
		bool used = false;
		for (size_t i = 0; i < rv->ninsns && !used; i++)
			used = sim_insn_share(m, rv->code, a, rv->insns[i].index, res) > 0;
		if (used)
			cols[nc++] = res;
	}
	fputs("<div class=\"cols annotated\">\n<div>\n<div class=\"scroll\">\n<table class=\"sortable insn\">"
	      "<thead><tr><th class=\"num\">address</th><th class=\"txt\">instruction</th><th class=\"num\">executions</th>"
	      "<th class=\"num\">cycles</th>",
	      out);
	/* resource names come from the machine model's file */
	for (size_t c = 0; c < nc; c++) {
		bool bn = is_bottleneck_res(a, cols[c]);
		fprintf(out, "<th class=\"num%s\" title=\"share of ", bn ? " bncol" : "");
		esc(out, sim_res_name(m, cols[c]));
		fprintf(out, "'s capacity over the run%s\">", bn ? ": a bottleneck" : "");
		esc(out, sim_res_name(m, cols[c]));
		fputs(bn ? " &#9670;</th>" : "</th>", out);
	}
	fputs("<th class=\"num\">lat</th><th class=\"txt\">ports</th><th class=\"txt\">source</th></tr></thead>\n<tbody>\n",
	      out);
	/* a long table keeps the rows that matter: a function of a thousand
	 * instructions is read by its hot ones */
	bool trim = rv->ninsns > MAX_FULL_TABLE;
	size_t left_out = 0;
	double left_share = 0;
	for (size_t i = 0; i < rv->ninsns; i++) {
		const struct merge_report_insn *row = &rv->insns[i];
		const struct sim_insn *in = sim_code_insn(rv->code, row->index);
		if (trim && !row->bottleneck && row->cycles_share < TRIM_SHARE) {
			left_out++;
			left_share += row->cycles_share;
			continue;
		}
		fputs(row->bottleneck ? "<tr class=\"bn\"" : "<tr", out);
		if (row->source[0]) {
			fputs(" data-src=\"", out);
			esc(out, row->source);
			fputc('"', out);
		}
		fprintf(out, "><td data-v=\"%llu\">%llx</td><td class=\"dis\">%s", (unsigned long long)row->addr,
			(unsigned long long)row->addr, in->approx ? "~" : "");
		esc(out, in->text);
		const char *flag = in->fuse_head ? "fused with jcc" : in->zero_idiom ? "zero idiom" : in->eliminated ? "eliminated"
				 : in->unlaminated && sim_machine_unlaminated_slots(m) > 0 ? "un-laminated" : NULL;
		if (flag)
			fprintf(out, " <span class=\"tag\">%s</span>", flag);
		fprintf(out, "</td><td>%llu</td><td data-v=\"%.6f\">%.1f %% ", (unsigned long long)row->executions,
			row->cycles_share, 100 * row->cycles_share);
		bar(out, row->cycles_share, "small");
		fputs("</td>", out);
		for (size_t c = 0; c < nc; c++) {
			double sh = sim_insn_share(m, rv->code, a, row->index, cols[c]);
			if (sh > 0)
				fprintf(out, "<td>%.0f %%</td>", 100 * sh);
			else
				fputs("<td></td>", out);
		}
		fprintf(out, "<td>%g%s</td><td class=\"pt\">", (double)in->lat, in->div > 0 ? " +div" : "");
		esc(out, in->ports && *in->ports ? in->ports : "-");
		fputs("</td><td class=\"src\">", out);
		esc(out, row->source);
		fputs("</td></tr>\n", out);
	}
	if (left_out)
		fprintf(out, "<tr class=\"left-out\"><td></td><td class=\"dis\" colspan=\"%zu\">%zu more instructions, "
			     "each under %.2f %% of the cycles (%.1f %% in all)</td></tr>\n",
			nc + 6, left_out, 100 * TRIM_SHARE, 100 * left_share);
	fputs("</tbody></table>\n</div>\n<p class=\"muted\">Cycles: each instruction's retirements' share of the "
	      "simulated cycles of the region (the time a sampling profiler would see retire there); a resource's "
	      "column: the instruction's share of its capacity over the run. Highlighted: the bottleneck "
	      "instructions (a tenth of the cycles, or of a bottleneck resource). ~: modelled by its category. A "
	      "source line selects its instructions.</p>\n</div>\n<div>\n",
	      out);
	if (!rv->nsrclines) {
		fputs("<p class=\"muted no-source\">No source lines: ", out);
		esc(out, rv->why_no_source && rv->why_no_source[0] ? rv->why_no_source : "not known");
		fputs("</p>\n</div>\n</div>\n", out);
		return;
	}
	fputs("<div class=\"scroll\">\n<table class=\"src\"><thead><tr><th class=\"num\">line</th>"
	      "<th class=\"num\">cycles</th><th class=\"num\">insns</th><th>source</th></tr></thead>\n<tbody>\n",
	      out);
	const char *file = NULL;
	bool any_text = false;
	for (size_t i = 0; i < rv->nsrclines; i++) {
		const struct merge_report_srcline *l = &rv->srclines[i];
		if (!file || strcmp(file, l->file)) {
			file = l->file;
			fputs("<tr class=\"file\"><td colspan=\"4\" class=\"mono\">", out);
			esc(out, file);
			fputs("</td></tr>\n", out);
		} else if (i && rv->srclines[i - 1].line + 1 < l->line) {
			fputs("<tr class=\"ctx gap\"><td class=\"num\">&#8942;</td><td></td><td></td><td></td></tr>\n", out);
		}
		any_text |= l->text != NULL;
		fprintf(out, "<tr class=\"%s\" data-src=\"", l->insns ? "hot" : "ctx");
		esc(out, base_name(l->file));
		fprintf(out, ":%d\"><td class=\"num\">%d</td><td class=\"num\">", l->line, l->line);
		if (l->insns) {
			fprintf(out, "%.1f %% ", 100 * l->cycles_share);
			bar(out, l->cycles_share, "small");
			fprintf(out, "</td><td class=\"num\">%zu</td>", l->insns);
		} else {
			fputs("</td><td></td>", out);
		}
		fputs("<td class=\"txt\">", out);
		esc(out, l->text ? l->text : "");
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n</div>\n", out);
	if (!any_text)
		fputs("<p class=\"muted\">The source files are not readable here: lines only.</p>\n", out);
	fputs("<p class=\"muted\">The region's source lines (DWARF) with the share of its simulated cycles spent on "
	      "each; short gaps between them as context.</p>\n</div>\n</div>\n",
	      out);
}

static void sim_stats_html(FILE *out, const struct merge_report_region *rv)
{
	const struct sim_analysis *a = rv->an;
	const struct sim_events *e = &a->events;
	fputs("<dl class=\"stats\">\n", out);
	if (a->units > 0) {
		/* the simulation's unit (a call of a function region), as
		 * the text says it: not the windows' (which may be
		 * instructions) */
		fprintf(out, "<dt>cycles per %s</dt><dd>%.2f</dd>\n", rv->unit ? rv->unit : "iteration",
			a->cycles_per_unit);
		if (a->stream_cycles_per_unit > a->cycles_per_unit * 1.005)
			fprintf(out, "<dt>&nbsp;&nbsp;with the code around it</dt><dd>%.2f</dd>\n", a->stream_cycles_per_unit);
	}
	fprintf(out, "<dt>%s</dt><dd>%.0f</dd>\n<dt>IPC</dt><dd>%.2f</dd>\n<dt>&#956;ops per cycle</dt><dd>%.2f</dd>\n",
		a->passes > 1 ? "cycles (all passes)" : "cycles (whole stream)", a->base.cycles, a->ipc,
		a->fused_per_cycle);
	fprintf(out, "<dt>instructions simulated</dt><dd>%llu</dd>\n", (unsigned long long)a->base.insns);
	if (e->branches)
		fprintf(out, "<dt>branch mispredictions</dt><dd>%llu of %llu</dd>\n", (unsigned long long)e->mispredicts,
			(unsigned long long)e->branches);
	uint64_t acc = e->level_hits[0] + e->level_hits[1] + e->level_hits[2] + e->level_hits[3];
	if (acc)
		fprintf(out, "<dt>accesses served by</dt><dd>L1 %llu, L2 %llu, L3 %llu, memory %llu</dd>\n",
			(unsigned long long)e->level_hits[0], (unsigned long long)e->level_hits[1],
			(unsigned long long)e->level_hits[2], (unsigned long long)e->level_hits[3]);
	size_t approx = sim_code_approx(rv->code);
	if (approx)
		fprintf(out, "<dt>modelled by category</dt><dd>%zu instructions</dd>\n", approx);
	fputs("</dl>\n", out);
}

static void region_measured_html(FILE *out, const struct merge_report *r, const struct merge_report_region *rv)
{
	fputs("<h3>Measured</h3>\n", out);
	if (rv->measured) {
		if (rv->measured_imported)
			fprintf(out, "<p class=\"muted\">From %s imported counts.</p>\n",
				rv->measured_of_function ? "its function's" : "its");
		else
			fprintf(out, "<p class=\"muted\">From the counter groups read at %llu of its samples.</p>\n",
				(unsigned long long)rv->measured_samples);
		char id[48];
		snprintf(id, sizeof id, "tree-region-%d", rv->rank);
		td_tree_html(out, rv->measured, id);
	} else if (rv->counts) {
		fputs("<table class=\"counts\"><thead><tr><th>event</th><th class=\"num\">count</th></tr></thead><tbody>\n",
		      out);
		for (size_t i = 0; i < rv->counts->n; i++) {
			const struct td_count *c = &rv->counts->c[i];
			fputs("<tr><td>", out);
			esc(out, c->event);
			if (c->counted)
				fprintf(out, "</td><td class=\"num\">%.0f</td></tr>\n",
					c->running > 0 ? c->raw * c->enabled / c->running : c->raw);
			else
				fputs("</td><td class=\"num\">not counted</td></tr>\n", out);
		}
		fputs("</tbody></table>\n", out);
	} else {
		fputs("<p class=\"muted\">", out);
		esc(out, r->tree ? "The measured side is the whole program's: " : "Not available: ");
		esc(out, rv->measured_note && rv->measured_note[0] ? rv->measured_note
			 : r->why_no_region_measure			 ? r->why_no_region_measure
			 : r->tree ? "this region has no counts of its own"
								 : r->why_no_measure);
		fputs("</p>\n", out);
	}
	if (rv->measured && rv->measured_note && rv->measured_note[0]) {
		fputs("<p class=\"muted\">", out);
		esc(out, rv->measured_note);
		fputs("</p>\n", out);
	}
}

static void stream_line_html(FILE *out, const struct merge_report_region *rv)
{
	fputs("<h3>Stream</h3>\n<p>", out);
	if (!rv->simulated) {
		fputs("Not simulated: ", out);
		esc(out, rv->why_no_model);
		fputs("</p>\n", out);
		return;
	}
	esc(out, rv->stream ? rv->stream : "not said");
	fputs(" <span class=\"tag\">tracer: ", out);
	esc(out, rd_tracer_words(rv->tracer));
	fputs("</span>", out);
	if (!isnan(rv->stream_covers))
		fprintf(out, " <span class=\"tag\">covers %s%.1f %% of the run</span>", rv->stream_covers_at_most ? "at most " : "",
			100 * rv->stream_covers);
	if (rv->from_cache)
		fputs(" <span class=\"tag\">cached simulation</span>", out);
	fputs("</p>\n", out);
	if (rv->stream_cut) {
		fputs("<div class=\"warnbox\">The trace stops short of the run here: ", out);
		esc(out, rv->stream_cut);
		fputs("</div>\n", out);
	}
}

static void region_html(FILE *out, const struct merge_report *r, const struct merge_report_region *rv)
{
	fprintf(out, "<section class=\"card region\" id=\"region-%d\">\n<div class=\"region-head\"><h2>Region %d: ",
		rv->rank, rv->rank);
	esc(out, rv->name);
	fputs("</h2><div class=\"sub\">", out);
	esc(out, rv->kind);
	fprintf(out, ", %.1f %% of the samples (%llu), in <span class=\"mono\">", 100 * rv->share,
		(unsigned long long)rv->samples);
	esc(out, rv->file);
	fprintf(out, "</span> at 0x%llx-0x%llx", (unsigned long long)rv->start, (unsigned long long)rv->end);
	if (rv->source[0]) {
		fputs(", <span class=\"mono\">", out);
		esc(out, rv->source);
		fputs("</span>", out);
	}
	fputs("</div></div>\n", out);
	fprintf(out, "<div class=\"verdict %s\"><b>Verdict</b> (%s): ", verdict_class(rv->verdict.kind),
		merge_agreement_name(rv->verdict.kind));
	esc(out, rv->verdict.text);
	fputs("</div>\n", out);
	fputs("<div class=\"cols\">\n<div>\n", out);
	region_measured_html(out, r, rv);
	fputs("</div>\n<div>\n<h3>Simulated</h3>\n", out);
	if (rv->simulated) {
		sim_tree_html(out, r->m, rv->an);
		sim_stats_html(out, rv);
	} else {
		fputs("<p class=\"muted\">Not available: ", out);
		esc(out, rv->why_no_model);
		fputs("</p>\n", out);
	}
	fputs("</div>\n</div>\n", out);
	if (rv->simulated) {
		fputs("<h3>Sensitivity</h3>\n", out);
		sens_chart(out, r->m, rv->an);
		fputs("<h3>Phases over the run</h3>\n", out);
		phases_chart(out, rv);
	}
	fputs("<div class=\"cols\">\n<div>\n", out);
	threads_html(out, rv);
	fputs("</div>\n<div>\n", out);
	callers_html(out, r, rv);
	inlined_html(out, rv);
	fputs("</div>\n</div>\n", out);
	if (rv->simulated)
		annotated_html(out, r, rv);
	stream_line_html(out, rv);
	fputs("</section>\n", out);
}

/* where the stream came from, and every reason the recording gives for
 * what it lacks */
static void stream_html(FILE *out, const struct merge_report *r)
{
	fputs("<section class=\"card\" id=\"stream\">\n<h2>Where the stream came from, and what is missing</h2>\n"
	      "<dl class=\"facts\">\n<dt>tracer</dt><dd>",
	      out);
	esc(out, r->tracer);
	if (!strcmp(r->tracer, "qemu"))
		fputs(": a second run of the program under QEMU, traced in windows over the run", out);
	else if (!strcmp(r->tracer, "pt"))
		fputs(": Intel PT of the sample run, cut into the same windows", out);
	fprintf(out, "</dd>\n<dt>trace records</dt><dd>%llu</dd>\n", (unsigned long long)r->trace_records);
	if (!isnan(r->trace_covers))
		fprintf(out, "<dt>windows cover</dt><dd>%.1f %% of the traced ranges' records</dd>\n", 100 * r->trace_covers);
	fact_row(out, "trace stopped", r->trace_stopped, false);
	fact_row(out, "record stage", fact(r, "record.stage"), false);
	for (size_t i = 0; i < r->nmissing; i++) {
		fputs("<dt>missing ", out);
		esc(out, r->missing[i].key);
		fputs("</dt><dd>", out);
		esc(out, r->missing[i].value);
		fputs("</dd>\n", out);
	}
	if (!r->tree)
		fact_row(out, "measured tree", r->why_no_measure, false);
	fact_row(out, "per-region trees", r->why_no_region_measure, false);
	fact_row(out, "callers", r->why_no_callers, false);
	if (r->spire_asked && !r->spire_model)
		fact_row(out, "SPIRE", r->why_no_spire, false);
	fputs("</dl>\n</section>\n", out);
}

void render_html_report(FILE *out, const struct merge_report *r)
{
	char title[4200];
	snprintf(title, sizeof title, "gus report: %s", r->input);
	page_head(out, "report", title);
	header_html(out, r);
	toc_html(out, r);
	topdown_html(out, r);
	regions_html(out, r);
	for (size_t i = 0; i < r->nregions; i++)
		if (r->regions[i].selected)
			region_html(out, r, &r->regions[i]);
	stream_html(out, r);
	page_tail(out);
}

/* --------------------------------------------------------- gus stat --- */
void render_html_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run, const char *title)
{
	page_head(out, "stat", title);
	fputs("<h1>gus stat<span class=\"path\">", out);
	esc(out, title);
	fputs("</span></h1>\n<section class=\"card\" id=\"facts\">\n<dl class=\"facts\">\n", out);
	if (run->import) {
		fact_row(out, "imported from", run->import, true);
	} else if (run->argv) {
		fputs("<dt>command</dt><dd class=\"mono\">", out);
		for (int i = 0; run->argv[i]; i++) {
			fputs(i ? " " : "", out);
			esc(out, run->argv[i]);
		}
		fputs("</dd>\n", out);
		fprintf(out, "<dt>elapsed</dt><dd>%.3f s%s, exit status %d</dd>\n", run->seconds,
			run->interrupted ? " (interrupted)" : "", run->exit_status);
		if (run->user_only)
			fputs("<dt>counted</dt><dd>user space only</dd>\n", out);
		if (run->runs > 1)
			fprintf(out, "<dt>runs</dt><dd>%d (--no-multiplex: one event group per run)</dd>\n", run->runs);
	}
	fact_row(out, "cpu taken for", run->cpu, false);
	fprintf(out, "<dt>SMT</dt><dd>%s</dd>\n</dl>\n</section>\n", run->smt_on ? "on" : "off");
	fputs("<section class=\"card\" id=\"topdown\">\n<h2>Measured Top-Down</h2>\n", out);
	td_tree_html(out, tree, "tree-measured");
	if (run->notes && run->notes[0]) {
		fputs("<p class=\"muted\">", out);
		esc(out, run->notes);
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
	page_tail(out);
}
