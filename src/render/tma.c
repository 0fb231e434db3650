/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers for measured results: the TMA tree and plain counts. */
#include <math.h>
#include <string.h>

#include "render_internal.h"

const char *rd_status_name(enum td_status s)
{
	switch (s) {
	case TD_OK: return "ok";
	case TD_NOT_COMPUTABLE: return "not-computable";
	case TD_MISMEASURED: return "mismeasured";
	default: return "not-selected";
	}
}

/* "0.4M", "12.3k": records of a run */
void rd_records_text(double v, char *buf, size_t n)
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

const char *rd_tracer_words(const char *tracer)
{
	if (!tracer)
		return "not said";
	if (!strcmp(tracer, "qemu"))
		return "QEMU (gus record's run 2)";
	if (!strcmp(tracer, "ptrace"))
		return "native single-stepping with ptrace (gus record's run 3)";
	if (!strcmp(tracer, "pt"))
		return "Intel PT (of the sampled run)";
	if (!strcmp(tracer, "static"))
		return "none: its code simulated statically";
	return "none";
}

const char *rd_unit_label(enum td_unit u)
{
	switch (u) {
	case TD_UNIT_SLOTS: return "% slots";
	case TD_UNIT_CLOCKS: return "% clocks";
	case TD_UNIT_STALLS: return "% stalls";
	default: return "% core clocks";
	}
}

static void text_heading(FILE *out, const struct td_tree *tree, const struct merge_run_info *run)
{
	if (tree)
		fprintf(out, tree->max_level > 1 ? "\n Top-Down (TMA) for %s (%s), levels 1-%d"
						 : "\n Top-Down (TMA) for %s (%s), level %d",
			tree->table->full_name, tree->table->id, tree->max_level);
	else
		fprintf(out, "\n Counts");
	/* the file and the program come from the command line or a recording */
	if (run->import) {
		fprintf(out, ", imported from ");
		render_text_string(out, run->import);
		fputc('\n', out);
	} else if (run->argv) {
		fprintf(out, " of '");
		for (int i = 0; run->argv[i]; i++) {
			fputs(i ? " " : "", out);
			render_text_string(out, run->argv[i]);
		}
		fprintf(out, "'%s\n", run->user_only ? ", user space only" : "");
	} else
		fputc('\n', out);
	if (run->runs > 1)
		fprintf(out, " (--no-multiplex: the program ran %d times, one event group per run)\n",
			run->runs);
	if (run->cpu)
		fprintf(out, " (this CPU taken for %s; --arch picks another table)\n", run->cpu);
	fputc('\n', out);
}

static void text_footer(FILE *out, const struct merge_run_info *run)
{
	if (run->notes && *run->notes)
		fprintf(out, "\n%s", run->notes);
	if (run->argv) {
		fprintf(out, "\n %.3f seconds elapsed", run->seconds);
		if (run->interrupted)
			fprintf(out, " (interrupted)");
		fprintf(out, ", exit status %d\n", run->exit_status);
	}
	fputc('\n', out);
}

static void text_node(FILE *out, const struct td_tree *tree, int i)
{
	const struct td_table *t = tree->table;
	const struct td_node *nd = &t->nodes[i];
	const struct td_result *r = &tree->res[i];
	char name[64];
	snprintf(name, sizeof(name), "%*s%s", 2 * (nd->level - 1), "", nd->name);
	/* a note may name an event of an imported file or a recording */
	if (r->status == TD_NOT_COMPUTABLE) {
		fprintf(out, "  %-34s %8s %-13s  ", name, "n/a", "");
		render_text_string(out, r->note);
		fputc('\n', out);
		return;
	}
	char mux[24] = "";
	if (r->mux < 0.999)
		snprintf(mux, sizeof(mux), "[mux %3.0f%%]", r->mux * 100);
	const char *mark = r->status == TD_MISMEASURED ? "MISMEASURED"
			   : r->bottleneck ? (r->candidate ? "<== candidate" : "<==")
			   : "";
	fprintf(out, "  %-34s %7.1f %-13s %-10s %-13s%s", name, r->value * 100,
		rd_unit_label(nd->unit), mux, mark, r->note[0] ? " " : "");
	render_text_string(out, r->note);
	fputc('\n', out);
}

static void text_children(FILE *out, const struct td_tree *tree, int parent)
{
	const struct td_table *t = tree->table;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].parent == parent && tree->res[i].status != TD_NOT_SELECTED) {
			text_node(out, tree, (int)i);
			text_children(out, tree, (int)i);
		}
}

static void node_events(const struct td_tree *tree, size_t i, char *buf, size_t len)
{
	const struct td_table *t = tree->table;
	buf[0] = 0;
	for (size_t e = 0; e < t->n_events; e++)
		if (t->nodes[i].uses[e]) {
			size_t l = strlen(buf);
			snprintf(buf + l, len - l, "%s%s", l ? " " : "", t->events[e].name);
		}
}

static bool event_used(const struct td_tree *tree, size_t e)
{
	const struct td_table *t = tree->table;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (tree->res[i].status != TD_NOT_SELECTED && t->nodes[i].uses[e])
			return true;
	return false;
}

/* "program", exit status and timing of a live run, as JSON members */
static void json_program(FILE *out, const struct merge_run_info *run)
{
	fprintf(out, "  \"program\": [");
	for (int i = 0; run->argv[i]; i++) {
		fprintf(out, "%s", i ? ", " : "");
		render_json_string(out, run->argv[i]);
	}
	fprintf(out, "],\n  \"exit_status\": %d,\n  \"interrupted\": %s,\n  \"seconds\": %.6f,\n  \"runs\": %d,\n  \"user_only\": %s,\n",
		run->exit_status, run->interrupted ? "true" : "false", run->seconds, run->runs,
		run->user_only ? "true" : "false");
	if (run->cpu) {
		fprintf(out, "  \"cpu_taken_for\": ");
		render_json_string(out, run->cpu);
		fprintf(out, ",\n");
	}
}

void render_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run,
		      enum render_format fmt, char sep)
{
	const struct td_table *t = tree->table;
	char evbuf[2048];

	if (fmt == RENDER_TEXT) {
		text_heading(out, tree, run);
		fprintf(out, "  %-34s %7s %-13s %-10s %s\n", "node", "value", "unit", "", "");
		text_children(out, tree, -1);
		if (isnan(tree->level1_sum))
			fprintf(out, "\n  level-1 sum: not computable\n");
		else
			fprintf(out, "\n  level-1 sum %.1f %%%s\n", tree->level1_sum * 100,
				tree->level1_sum_bad
					? "  MISMEASURED: farther than 5 points from 100 %; no bottleneck is marked"
					: "");
		fprintf(out, "  <== bottleneck path (a child is flagged only under a flagged parent)\n");
		text_footer(out, run);
		return;
	}
	if (fmt == RENDER_CSV) {
		fprintf(out, "# gus stat %s (%s)%s", t->full_name, t->id, run->import ? ", imported from " : "");
		render_text_string(out, run->import);
		fputc('\n', out);
		fprintf(out, "record%cname%clevel%cparent%cvalue%cunit%cstatus%cflagged%cbottleneck%cmultiplex_ratio%cnote%cevents\n",
			sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
		for (size_t i = 0; i < t->n_nodes; i++) {
			const struct td_result *r = &tree->res[i];
			if (r->status == TD_NOT_SELECTED)
				continue;
			const struct td_node *nd = &t->nodes[i];
			fprintf(out, "node%c", sep);
			render_csv_field(out, nd->name, sep);
			fprintf(out, "%c%d%c", sep, nd->level, sep);
			render_csv_field(out, nd->parent >= 0 ? t->nodes[nd->parent].name : "", sep);
			fputc(sep, out);
			if (!isnan(r->value))
				fprintf(out, "%.6f", r->value);
			fprintf(out, "%c%s%c%s%c%d%c%s%c%.4f%c", sep, td_unit_name(nd->unit), sep,
				rd_status_name(r->status), sep, r->flagged, sep,
				r->bottleneck ? (r->candidate ? "candidate" : "yes") : "", sep, r->mux, sep);
			render_csv_field(out, r->note, sep);
			node_events(tree, i, evbuf, sizeof(evbuf));
			fputc(sep, out);
			render_csv_field(out, evbuf, sep);
			fputc('\n', out);
		}
		fprintf(out, "record%cname%craw%cenabled_ns%crunning_ns%cscaled%cmultiplex_ratio\n",
			sep, sep, sep, sep, sep, sep);
		for (size_t e = 0; e < t->n_events; e++) {
			if (!event_used(tree, e))
				continue;
			fprintf(out, "event%c", sep);
			render_csv_field(out, t->events[e].name, sep);
			fputc(sep, out);
			if (tree->ev_counted[e])
				fprintf(out, "%.0f%c%.0f%c%.0f%c%.0f%c%.4f\n", tree->ev_raw[e], sep,
					tree->ev_enabled[e], sep, tree->ev_running[e], sep,
					tree->ev_value[e], sep,
					tree->ev_enabled[e] > 0 ? tree->ev_running[e] / tree->ev_enabled[e] : 1.0);
			else
				fprintf(out, "%c%c%c%c\n", sep, sep, sep, sep);
		}
		if (!isnan(tree->level1_sum))
			fprintf(out, "level1_sum%c%.6f%c%s\n", sep, tree->level1_sum, sep,
				tree->level1_sum_bad ? "mismeasured" : "ok");
		if (run->argv)
			fprintf(out, "exit_status%c%d%c%s\n", sep, run->exit_status, sep,
				run->interrupted ? "interrupted" : "");
		return;
	}
	/* JSON */
	fprintf(out, "{\n  \"tool\": \"gus stat\",\n  \"table\": ");
	render_json_string(out, t->id);
	fprintf(out, ",\n  \"micro_architecture\": ");
	render_json_string(out, t->full_name);
	fprintf(out, ",\n  \"max_level\": %d,\n  \"smt_on\": %s,\n", tree->max_level,
		run->smt_on ? "true" : "false");
	if (run->import) {
		fprintf(out, "  \"import\": ");
		render_json_string(out, run->import);
		fprintf(out, ",\n");
	}
	if (run->argv)
		json_program(out, run);
	fprintf(out, "  \"level1_sum\": ");
	render_json_number(out, tree->level1_sum);
	fprintf(out, ",\n  \"level1_sum_mismeasured\": %s,\n  \"nodes\": [",
		tree->level1_sum_bad ? "true" : "false");
	bool first = true;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct td_result *r = &tree->res[i];
		if (r->status == TD_NOT_SELECTED)
			continue;
		const struct td_node *nd = &t->nodes[i];
		fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		render_json_string(out, nd->name);
		fprintf(out, ", \"level\": %d, \"parent\": ", nd->level);
		if (nd->parent >= 0)
			render_json_string(out, t->nodes[nd->parent].name);
		else
			fputs("null", out);
		fprintf(out, ", \"value\": ");
		render_json_number(out, r->value);
		fprintf(out, ", \"unit\": \"%s\", \"status\": \"%s\", \"threshold\": %g, \"flagged\": %s, \"bottleneck\": %s, \"candidate\": %s, \"multiplex_ratio\": %.4f, \"note\": ",
			td_unit_name(nd->unit), rd_status_name(r->status), nd->threshold,
			r->flagged ? "true" : "false", r->bottleneck ? "true" : "false",
			r->candidate ? "true" : "false", r->mux);
		render_json_string(out, r->note);
		fprintf(out, ", \"events\": [");
		bool f2 = true;
		for (size_t e = 0; e < t->n_events; e++)
			if (nd->uses[e]) {
				fprintf(out, "%s", f2 ? "" : ", ");
				render_json_string(out, t->events[e].name);
				f2 = false;
			}
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ],\n  \"events\": [");
	first = true;
	for (size_t e = 0; e < t->n_events; e++) {
		if (!event_used(tree, e))
			continue;
		fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		render_json_string(out, t->events[e].name);
		fprintf(out, ", \"counted\": %s", tree->ev_counted[e] ? "true" : "false");
		if (tree->ev_counted[e]) {
			fprintf(out, ", \"raw\": %.0f, \"enabled_ns\": %.0f, \"running_ns\": %.0f, \"scaled\": ",
				tree->ev_raw[e], tree->ev_enabled[e], tree->ev_running[e]);
			render_json_number(out, tree->ev_value[e]);
			fprintf(out, ", \"multiplex_ratio\": %.4f",
				tree->ev_enabled[e] > 0 ? tree->ev_running[e] / tree->ev_enabled[e] : 1.0);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
}

const char *rd_uncounted_word(const struct td_count *c)
{
	return c->why_not && !strncmp(c->why_not, "not supported", 13) ? "<not supported>" : "<not counted>";
}

const char *rd_uncounted_why(const struct td_count *c)
{
	const char *w = c->why_not ? c->why_not : "";
	return !strncmp(w, "not supported: ", 15) ? w + 15 : w;
}

void render_counts(FILE *out, const struct td_countset *cs, const struct merge_run_info *run,
			 enum render_format fmt, char sep)
{
	if (fmt == RENDER_TEXT) {
		text_heading(out, NULL, run);
		for (size_t i = 0; i < cs->n; i++) {
			const struct td_count *c = &cs->c[i];
			/* the event and why it was not counted, from an import or a recording */
			char event[4 * 256];
			render_text_escape(event, sizeof event, c->event);
			if (!c->counted) {
				fprintf(out, "  %20s  %-32s ", rd_uncounted_word(c), event);
				render_text_string(out, rd_uncounted_why(c));
				fputc('\n', out);
				continue;
			}
			double scaled = c->running > 0 ? c->raw * c->enabled / c->running : c->raw;
			fprintf(out, "  %20.0f  %-32s", scaled, event);
			if (c->enabled > 0 && c->running < c->enabled)
				fprintf(out, " (%.1f%% of the time, scaled)", 100 * c->running / c->enabled);
			fputc('\n', out);
		}
		text_footer(out, run);
		return;
	}
	if (fmt == RENDER_CSV) {
		fprintf(out, "event%craw%cenabled_ns%crunning_ns%cscaled%cmultiplex_ratio\n", sep, sep, sep,
			sep, sep);
		for (size_t i = 0; i < cs->n; i++) {
			const struct td_count *c = &cs->c[i];
			render_csv_field(out, c->event, sep);
			if (!c->counted) {
				fprintf(out, "%c%s%c%c%c%c\n", sep, rd_uncounted_word(c), sep, sep, sep, sep);
				continue;
			}
			double scaled = c->running > 0 ? c->raw * c->enabled / c->running : c->raw;
			fprintf(out, "%c%.0f%c%.0f%c%.0f%c%.0f%c%.4f\n", sep, c->raw, sep, c->enabled, sep,
				c->running, sep, scaled, sep, c->enabled > 0 ? c->running / c->enabled : 1.0);
		}
		if (run->argv)
			fprintf(out, "exit_status%c%d%c%s\n", sep, run->exit_status, sep,
				run->interrupted ? "interrupted" : "");
		return;
	}
	fprintf(out, "{\n  \"tool\": \"gus stat\",\n");
	if (run->argv)
		json_program(out, run);
	fprintf(out, "  \"events\": [");
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		render_json_string(out, c->event);
		fprintf(out, ", \"counted\": %s", c->counted ? "true" : "false");
		if (!c->counted) {
			fprintf(out, ", \"supported\": %s, \"why\": ", c->why_not && !strncmp(c->why_not, "not supported", 13)
										  ? "false" : "true");
			render_json_string(out, rd_uncounted_why(c));
		}
		if (c->counted) {
			double scaled = c->running > 0 ? c->raw * c->enabled / c->running : c->raw;
			fprintf(out, ", \"raw\": %.0f, \"enabled_ns\": %.0f, \"running_ns\": %.0f, \"scaled\": %.0f, \"multiplex_ratio\": %.4f",
				c->raw, c->enabled, c->running, scaled,
				c->enabled > 0 ? c->running / c->enabled : 1.0);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
}
