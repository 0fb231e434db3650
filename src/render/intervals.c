/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus stat -I's output: every interval's counts as perf stat -I prints
 * them (text, -x CSV), or JSON. */
#include <stdio.h>
#include <string.h>

#include "render_internal.h"

/* VALUE with thousands separators and DECIMALS decimals */
static void grouped(char *out, size_t outlen, double value, int decimals)
{
	char buf[64], *dot;
	snprintf(buf, sizeof(buf), "%.*f", decimals, value);
	dot = strchr(buf, '.');
	size_t intlen = dot ? (size_t)(dot - buf) : strlen(buf);
	size_t k = 0;
	for (size_t i = 0; i < intlen && k + 2 < outlen; i++) {
		out[k++] = buf[i];
		size_t left = intlen - i - 1;
		if (left && left % 3 == 0 && buf[i] != '-' && k + 2 < outlen)
			out[k++] = ',';
	}
	out[k] = 0;
	if (dot)
		snprintf(out + k, outlen - k, "%s", dot);
}

static void intervals_start(struct render_intervals *w)
{
	FILE *f = w->f;
	if (w->started)
		return;
	w->started = true;
	if (w->fmt == RENDER_JSON) {
		fprintf(f, "{\n  \"tool\": \"gus stat\",\n  \"interval_ms\": %u,\n  \"program\": [", w->interval_ms);
		for (int i = 0; w->argv[i]; i++) {
			fputs(i ? ", " : "", f);
			render_json_string(f, w->argv[i]);
		}
		fputs("],\n", f);
		if (w->spire_time) {
			fputs("  \"spire\": {\"cpu\": ", f);
			if (w->spire_cpu)
				render_json_string(f, w->spire_cpu);
			else
				fputs("null", f);
			fputs(", \"time\": ", f);
			render_json_string(f, w->spire_time);
			fputs(", \"work\": ", f);
			render_json_string(f, w->spire_work);
			fprintf(f, ", \"groups\": %d},\n", w->groups);
		}
		fputs("  \"intervals\": [", f);
		return;
	}
	if (w->fmt == RENDER_CSV) {
		/* one comment line whatever the arguments hold: escaped text */
		fputs("# gus", f);
		for (int i = 0; i < w->cmd_argc; i++)
			rd_text_put(f, " ", w->cmd_argv[i], "");
		fputc('\n', f);
		if (w->spire_time) {
			if (w->spire_cpu)
				fprintf(f, "# cpu: %s\n", w->spire_cpu);
			fprintf(f, "# time: %s\n# work: %s\n", w->spire_time, w->spire_work);
		}
		return;
	}
	if (w->spire_time)
		fprintf(f, "# SPIRE samples%s%s: time %s, work %s, %zu metric%s in %d group%s\n",
			w->spire_cpu ? " for " : "", w->spire_cpu ? w->spire_cpu : "", w->spire_time,
			w->spire_work, w->spire_metrics, w->spire_metrics == 1 ? "" : "s", w->groups,
			w->groups == 1 ? "" : "s");
	fprintf(f, "#           time             counts unit events\n");
}

int render_intervals_row(struct render_intervals *w, double t, const struct td_countset *cs,
			const struct merge_interval_event *ev)
{
	FILE *f = w->f;
	char sep = w->sep;
	intervals_start(w);
	if (w->fmt == RENDER_JSON)
		fprintf(f, "%s\n    {\"time\": %.9f, \"counts\": [", w->intervals ? "," : "", t);
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		bool counted = c->counted && c->running > 0;
		double scaled = counted ? c->raw * c->enabled / c->running : 0;
		bool msec = ev && ev[i].msec;
		double pct = c->enabled > 0 ? 100.0 * c->running / c->enabled : 0;
		if (w->fmt == RENDER_JSON) {
			fprintf(f, "%s\n      {\"event\": ", i ? "," : "");
			render_json_string(f, c->event);
			if (ev && ev[i].group >= 0)
				fprintf(f, ", \"group\": %d", ev[i].group);
			if (counted)
				fprintf(f, ", \"value\": %.0f", scaled);
			else
				fputs(", \"value\": null", f);
			fprintf(f, ", \"raw\": %.0f, \"enabled\": %.0f, \"running\": %.0f, \"counted\": %s}",
				c->counted ? c->raw : 0, c->counted ? c->enabled : 0, c->counted ? c->running : 0,
				counted ? "true" : "false");
			continue;
		}
		if (w->fmt == RENDER_CSV) {
			/* perf stat -I -x: time, value, unit, event, run time, percent, metric, unit */
			fprintf(f, "%16.9f%c", t, sep);
			if (!counted)
				fputs(rd_uncounted_word(c), f);
			else if (msec)
				fprintf(f, "%.2f", scaled / 1e6);
			else
				fprintf(f, "%.0f", scaled);
			fprintf(f, "%c%s%c%s%c%.0f%c%.2f%c%c\n", sep, msec ? "msec" : "", sep, c->event, sep,
				counted ? c->running : 0.0, sep, counted ? pct : 0.0, sep, sep);
			continue;
		}
		char num[64];
		if (!counted)
			snprintf(num, sizeof(num), "%s", rd_uncounted_word(c));
		else
			grouped(num, sizeof(num), msec ? scaled / 1e6 : scaled, msec ? 2 : 0);
		fprintf(f, "%16.9f %18s %-4s %s", t, num, msec ? "msec" : "", c->event);
		if (counted && c->running < c->enabled)
			fprintf(f, "  (%.2f%%)", pct);
		fputc('\n', f);
	}
	if (w->fmt == RENDER_JSON)
		fputs("\n    ]}", f);
	w->intervals++;
	return ferror(f) ? -1 : 0;
}

void render_intervals_finish(struct render_intervals *w, double seconds, bool interrupted, int exit_status)
{
	FILE *f = w->f;
	intervals_start(w);
	if (w->fmt == RENDER_JSON) {
		fprintf(f, "%s  ],\n  \"exit_status\": %d,\n  \"interrupted\": %s,\n  \"seconds\": %.6f\n}\n",
			w->intervals ? "\n" : "", exit_status, interrupted ? "true" : "false", seconds);
	} else if (w->fmt == RENDER_TEXT) {
		fprintf(f, "# %.3f seconds elapsed, %lu interval%s, exit status %d%s\n", seconds,
			w->intervals, w->intervals == 1 ? "" : "s", exit_status,
			interrupted ? " (interrupted)" : "");
	}
}

