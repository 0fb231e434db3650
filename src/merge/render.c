/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers for measured results: the TMA tree and plain counts. */
#include "merge.h"
#include "mg_internal.h"

#include <math.h>
#include <string.h>

const char *mg_status_name(enum td_status s)
{
	switch (s) {
	case TD_OK: return "ok";
	case TD_NOT_COMPUTABLE: return "not-computable";
	case TD_MISMEASURED: return "mismeasured";
	default: return "not-selected";
	}
}

const char *mg_unit_label(enum td_unit u)
{
	switch (u) {
	case TD_UNIT_SLOTS: return "% slots";
	case TD_UNIT_CLOCKS: return "% clocks";
	case TD_UNIT_STALLS: return "% stalls";
	default: return "% core clocks";
	}
}

/* ------------------------------------------- strings from outside gus --- */
/* The bytes of a valid UTF-8 sequence at S (1 to 4; 1 for the end of the
 * string), or 0 when S starts no valid one: a stray continuation byte,
 * an overlong form, a surrogate, a code point above U+10FFFF, a sequence
 * cut short. */
static size_t utf8_length(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

enum escape_style { ESCAPE_TEXT, ESCAPE_JSON, ESCAPE_XML };

/* Where escaped text goes: a stream (in a quoted CSV field, its quotes
 * doubled), a buffer (cut at a whole piece when it is full, so that no
 * escape or character is left half), or nowhere but a look at what a CSV
 * field needs. */
struct escape_sink {
	FILE *f;
	bool csv_quoted;
	char *buf;
	size_t size, len;
	bool full;
	bool csv_scan;
	char sep;
	bool csv_needs_quotes;
	char last;
};

static void sink_put(struct escape_sink *o, const char *piece, size_t n)
{
	if (o->csv_scan) {
		for (size_t i = 0; i < n; i++) {
			char c = piece[i];
			if (c == o->sep || c == '"' || c == '\r' || c == '\n' || (c == ' ' && !o->len))
				o->csv_needs_quotes = true;
			o->last = c;
			o->len++;
		}
		return;
	}
	if (o->f && o->csv_quoted) {
		for (size_t i = 0; i < n; i++) {
			if (piece[i] == '"')
				fputc('"', o->f);
			fputc(piece[i], o->f);
		}
		return;
	}
	if (o->f) {
		fwrite(piece, 1, n, o->f);
		return;
	}
	if (o->full || o->len + n >= o->size) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, piece, n);
	o->len += n;
}

/* The one escaping of the renderers (merge.h): S piece by piece, each
 * valid UTF-8 character kept unless it is a control character, each
 * control character and each byte of no valid character written in the
 * convention of STYLE. */
static void escape(struct escape_sink *o, const char *s, enum escape_style style)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char piece[16];
	while (*p) {
		size_t n = utf8_length(p);
		/* the C1 controls U+0080-U+009F: C2 80 to C2 9F */
		bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
		unsigned char c = p[0];
		if (n > 1 && !c1) {
			sink_put(o, (const char *)p, n);
			p += n;
			continue;
		}
		if (style == ESCAPE_JSON) {
			/* JSON: a control character as its escape, a byte of no
			 * character as the code point of the same number */
			unsigned code = c1 ? p[1] : c;
			const char *named = code == '"' ? "\\\"" : code == '\\' ? "\\\\" : code == '\n' ? "\\n"
					  : code == '\r' ? "\\r" : code == '\t' ? "\\t" : code == '\b' ? "\\b"
					  : code == '\f' ? "\\f" : NULL;
			if (named)
				sink_put(o, named, strlen(named));
			else if (code < 0x20 || code >= 0x7f)
				sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\u%04x", code));
			else
				sink_put(o, (const char *)p, 1);
			p += c1 ? 2 : 1;
			continue;
		}
		if (style == ESCAPE_XML) {
			const char *entity = c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;"
					   : c == '"' ? "&quot;" : c == '\'' ? "&apos;" : NULL;
			if (entity) {
				sink_put(o, entity, strlen(entity));
				p++;
				continue;
			}
		}
		/* what XML and an SVG viewer take as white space */
		if (style == ESCAPE_XML && (c == '\n' || c == '\t')) {
			sink_put(o, (const char *)p, 1);
			p++;
			continue;
		}
		/* text: as ls --quoting-style=escape, but \xNN for every
		 * control character without a letter and every byte of no
		 * character (both bytes of a C1 control) */
		const char *named = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
		if (c1) {
			sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\x%02x\\x%02x", p[0], p[1]));
			p += 2;
			continue;
		}
		if (named)
			sink_put(o, named, 2);
		else if (n == 0 || c < 0x20 || c == 0x7f)
			sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\x%02x", c));
		else
			sink_put(o, (const char *)p, 1);
		p++;
	}
}

void merge_text_string(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	escape(&o, s, ESCAPE_TEXT);
}

void mg_text_put(FILE *out, const char *before, const char *s, const char *after)
{
	fputs(before, out);
	merge_text_string(out, s);
	fputs(after, out);
}

const char *merge_text_escape(char *buf, size_t n, const char *s)
{
	if (!n)
		return "";
	struct escape_sink o = { .buf = buf, .size = n };
	escape(&o, s, ESCAPE_TEXT);
	buf[o.len] = 0;
	return buf;
}

void merge_json_string(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	fputc('"', out);
	escape(&o, s, ESCAPE_JSON);
	fputc('"', out);
}

void mg_xml_text(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	escape(&o, s, ESCAPE_XML);
}

void merge_html_string(FILE *out, const char *s)
{
	mg_xml_text(out, s);
}

void merge_json_number(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.9g", v);
}

/* RFC 4180: a field is quoted when it holds the separator, a quote, a
 * line break, or a space at either end (which readers trim); inside, a
 * quote is doubled. The field is the text escaping of S, so that a CSV
 * file holds one record per line and no control character. */
void merge_csv_field(FILE *out, const char *s, char sep)
{
	struct escape_sink scan = { .csv_scan = true, .sep = sep };
	escape(&scan, s, ESCAPE_TEXT);
	bool quoted = scan.csv_needs_quotes || scan.last == ' ';
	struct escape_sink o = { .f = out, .csv_quoted = quoted };
	if (quoted)
		fputc('"', out);
	escape(&o, s, ESCAPE_TEXT);
	if (quoted)
		fputc('"', out);
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
		merge_text_string(out, run->import);
		fputc('\n', out);
	} else if (run->argv) {
		fprintf(out, " of '");
		for (int i = 0; run->argv[i]; i++) {
			fputs(i ? " " : "", out);
			merge_text_string(out, run->argv[i]);
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
		merge_text_string(out, r->note);
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
		mg_unit_label(nd->unit), mux, mark, r->note[0] ? " " : "");
	merge_text_string(out, r->note);
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
		merge_json_string(out, run->argv[i]);
	}
	fprintf(out, "],\n  \"exit_status\": %d,\n  \"interrupted\": %s,\n  \"seconds\": %.6f,\n  \"runs\": %d,\n  \"user_only\": %s,\n",
		run->exit_status, run->interrupted ? "true" : "false", run->seconds, run->runs,
		run->user_only ? "true" : "false");
	if (run->cpu) {
		fprintf(out, "  \"cpu_taken_for\": ");
		merge_json_string(out, run->cpu);
		fprintf(out, ",\n");
	}
}

void merge_render_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run,
		      enum merge_format fmt, char sep)
{
	const struct td_table *t = tree->table;
	char evbuf[2048];

	if (fmt == MERGE_TEXT) {
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
	if (fmt == MERGE_CSV) {
		fprintf(out, "# gus stat %s (%s)%s", t->full_name, t->id, run->import ? ", imported from " : "");
		merge_text_string(out, run->import);
		fputc('\n', out);
		fprintf(out, "record%cname%clevel%cparent%cvalue%cunit%cstatus%cflagged%cbottleneck%cmultiplex_ratio%cnote%cevents\n",
			sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
		for (size_t i = 0; i < t->n_nodes; i++) {
			const struct td_result *r = &tree->res[i];
			if (r->status == TD_NOT_SELECTED)
				continue;
			const struct td_node *nd = &t->nodes[i];
			fprintf(out, "node%c", sep);
			merge_csv_field(out, nd->name, sep);
			fprintf(out, "%c%d%c", sep, nd->level, sep);
			merge_csv_field(out, nd->parent >= 0 ? t->nodes[nd->parent].name : "", sep);
			fputc(sep, out);
			if (!isnan(r->value))
				fprintf(out, "%.6f", r->value);
			fprintf(out, "%c%s%c%s%c%d%c%s%c%.4f%c", sep, td_unit_name(nd->unit), sep,
				mg_status_name(r->status), sep, r->flagged, sep,
				r->bottleneck ? (r->candidate ? "candidate" : "yes") : "", sep, r->mux, sep);
			merge_csv_field(out, r->note, sep);
			node_events(tree, i, evbuf, sizeof(evbuf));
			fputc(sep, out);
			merge_csv_field(out, evbuf, sep);
			fputc('\n', out);
		}
		fprintf(out, "record%cname%craw%cenabled_ns%crunning_ns%cscaled%cmultiplex_ratio\n",
			sep, sep, sep, sep, sep, sep);
		for (size_t e = 0; e < t->n_events; e++) {
			if (!event_used(tree, e))
				continue;
			fprintf(out, "event%c", sep);
			merge_csv_field(out, t->events[e].name, sep);
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
	merge_json_string(out, t->id);
	fprintf(out, ",\n  \"micro_architecture\": ");
	merge_json_string(out, t->full_name);
	fprintf(out, ",\n  \"max_level\": %d,\n  \"smt_on\": %s,\n", tree->max_level,
		run->smt_on ? "true" : "false");
	if (run->import) {
		fprintf(out, "  \"import\": ");
		merge_json_string(out, run->import);
		fprintf(out, ",\n");
	}
	if (run->argv)
		json_program(out, run);
	fprintf(out, "  \"level1_sum\": ");
	merge_json_number(out, tree->level1_sum);
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
		merge_json_string(out, nd->name);
		fprintf(out, ", \"level\": %d, \"parent\": ", nd->level);
		if (nd->parent >= 0)
			merge_json_string(out, t->nodes[nd->parent].name);
		else
			fputs("null", out);
		fprintf(out, ", \"value\": ");
		merge_json_number(out, r->value);
		fprintf(out, ", \"unit\": \"%s\", \"status\": \"%s\", \"threshold\": %g, \"flagged\": %s, \"bottleneck\": %s, \"candidate\": %s, \"multiplex_ratio\": %.4f, \"note\": ",
			td_unit_name(nd->unit), mg_status_name(r->status), nd->threshold,
			r->flagged ? "true" : "false", r->bottleneck ? "true" : "false",
			r->candidate ? "true" : "false", r->mux);
		merge_json_string(out, r->note);
		fprintf(out, ", \"events\": [");
		bool f2 = true;
		for (size_t e = 0; e < t->n_events; e++)
			if (nd->uses[e]) {
				fprintf(out, "%s", f2 ? "" : ", ");
				merge_json_string(out, t->events[e].name);
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
		merge_json_string(out, t->events[e].name);
		fprintf(out, ", \"counted\": %s", tree->ev_counted[e] ? "true" : "false");
		if (tree->ev_counted[e]) {
			fprintf(out, ", \"raw\": %.0f, \"enabled_ns\": %.0f, \"running_ns\": %.0f, \"scaled\": ",
				tree->ev_raw[e], tree->ev_enabled[e], tree->ev_running[e]);
			merge_json_number(out, tree->ev_value[e]);
			fprintf(out, ", \"multiplex_ratio\": %.4f",
				tree->ev_enabled[e] > 0 ? tree->ev_running[e] / tree->ev_enabled[e] : 1.0);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
}

const char *mg_uncounted_word(const struct td_count *c)
{
	return c->why_not && !strncmp(c->why_not, "not supported", 13) ? "<not supported>" : "<not counted>";
}

const char *mg_uncounted_why(const struct td_count *c)
{
	const char *w = c->why_not ? c->why_not : "";
	return !strncmp(w, "not supported: ", 15) ? w + 15 : w;
}

void merge_render_counts(FILE *out, const struct td_countset *cs, const struct merge_run_info *run,
			 enum merge_format fmt, char sep)
{
	if (fmt == MERGE_TEXT) {
		text_heading(out, NULL, run);
		for (size_t i = 0; i < cs->n; i++) {
			const struct td_count *c = &cs->c[i];
			/* the event and why it was not counted, from an import or a recording */
			char event[4 * 256];
			merge_text_escape(event, sizeof event, c->event);
			if (!c->counted) {
				fprintf(out, "  %20s  %-32s ", mg_uncounted_word(c), event);
				merge_text_string(out, mg_uncounted_why(c));
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
	if (fmt == MERGE_CSV) {
		fprintf(out, "event%craw%cenabled_ns%crunning_ns%cscaled%cmultiplex_ratio\n", sep, sep, sep,
			sep, sep);
		for (size_t i = 0; i < cs->n; i++) {
			const struct td_count *c = &cs->c[i];
			merge_csv_field(out, c->event, sep);
			if (!c->counted) {
				fprintf(out, "%c%s%c%c%c%c\n", sep, mg_uncounted_word(c), sep, sep, sep, sep);
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
		merge_json_string(out, c->event);
		fprintf(out, ", \"counted\": %s", c->counted ? "true" : "false");
		if (!c->counted) {
			fprintf(out, ", \"supported\": %s, \"why\": ", c->why_not && !strncmp(c->why_not, "not supported", 13)
										  ? "false" : "true");
			merge_json_string(out, mg_uncounted_why(c));
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
