/* SPDX-License-Identifier: GPL-2.0-or-later */
/* render: every format gus writes for a person or a program to read. The
 * renderers read the models the other modules give (the report model,
 * struct merge_report of merge.h; a TMA tree; a simulation; a SPIRE
 * analysis; gus list's catalog) and compute nothing those do not hold:
 * a new format is a new file here and touches nothing else.
 * Declarations are grouped per format. */
#ifndef GUS_RENDER_H
#define GUS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "merge.h"
#include "sim.h"
#include "topdown.h"

enum render_format { RENDER_TEXT, RENDER_CSV, RENDER_JSON };

/* ------------------------------------------------ escaping (escape.c) --- */
/* Strings gus did not make (a recording's facts and names: its command
 * line, objects, symbols, regions, events, source files; an imported
 * file's; a path given) come from files people send each other. Every
 * renderer writes them through these, the only escaping of gus's output,
 * so that none reaches a terminal or a parser raw (gus(1), STRINGS FROM
 * RECORDINGS). NULL is written as "".
 * Text: valid UTF-8 is kept but for control characters; a backslash is
 * written \\, newline, carriage return and tab \n, \r and \t, every
 * other control character (C0, DEL, and each byte of the C1 controls
 * U+0080-U+009F) and every byte of no valid UTF-8 character \xNN.
 * render_text_escape writes into BUF (N bytes, cut at a whole escape or
 * character) and returns it. */
void render_text_string(FILE *out, const char *s);
const char *render_text_escape(char *buf, size_t n, const char *s);
/* JSON, always valid UTF-8: a string with '"' and '\\' escaped,
 * control characters (C0, DEL, C1) as \n, \t... or \u00NN, and a byte of
 * no valid UTF-8 character as the code point of the same number
 * (\u00NN: read as Latin-1); a number (null for NaN and infinities). */
void render_json_string(FILE *out, const char *s);
void render_json_number(FILE *out, double v);
/* A CSV field (RFC 4180): the text escaping of S, quoted when it holds
 * SEP, a quote, or a space at either end, inner quotes doubled. */
void render_csv_field(FILE *out, const char *s, char sep);
/* HTML (and XML) element content and quoted attribute values: the text
 * escaping of S with '<', '>', '&', '"' and '\'' as entities, tab and
 * newline kept. Never inside <script> or <style>. */
void render_html_string(FILE *out, const char *s);

/* --------------------------------- gus stat: the TMA tree and counts --- */
void render_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run,
		      enum render_format fmt, char sep);
void render_counts(FILE *out, const struct td_countset *cs, const struct merge_run_info *run,
			 enum render_format fmt, char sep);
/* ------------------------------------------------------ TMA as SVG --- */
/* The measured TMA tree as an SVG a browser opens: one box per node shown
 * (levels as columns or rows), width or fill by its share of slots,
 * flagged nodes (bottleneck path, out of range, multiplexed) marked as in
 * the text output; TITLE in the heading. */
void render_tma_svg(FILE *out, const struct td_tree *tree, const char *title);

/* ------------------------------------------------ simulations (sim.c) --- */
/* What was simulated, for the heading of a gus sim report. */
struct render_sim_info {
	const char *source;	/* "hex 4801d8...", "FILE:function", ... */
	unsigned iterations;	/* 0 for a trace */
	unsigned warmup;	/* iterations before the measurement */
	size_t body_insns;	/* instructions per iteration */
	double threshold;
	const char *stream;	/* a trace: where the stream came from, NULL otherwise */
	const char *loop_note;	/* which loop of a function, why, and the others; NULL: none */
	/* optional: "file.c:12" of a simulated (runtime) address into BUF, or
	 * false; the per-instruction table then has a source column */
	bool (*srcline)(void *ctx, uint64_t addr, char *buf, size_t n);
	void *srcline_ctx;
	/* optional: only instructions in [insn_start, insn_end) in the
	 * per-instruction table (a loop of a longer stream); 0, 0: all */
	uint64_t insn_start, insn_end;
	bool no_insn_table;	/* text: leave the per-instruction table out */
	/* subtracted from the addresses the per-instruction table prints, so
	 * that they read as the file's (objdump's) addresses */
	uint64_t addr_bias;
	/* why this machine model: the default, the host's (NULL: asked for) */
	const char *machine_note;
	/* what a unit of cycles per unit is: "iteration" (NULL), "call",
	 * "instruction" */
	const char *unit;
	/* optional: the samples at each instruction (link-time addresses:
	 * an instruction's address minus ADDR_BIAS), by address, out of
	 * SAMPLES_TOTAL (0: no samples column) */
	const struct merge_report_insn_samples *samples;
	size_t nsamples;
	uint64_t samples_total;
};

void render_sim(FILE *out, const struct sim_machine *m, const struct sim_code *code,
		      const struct sim_analysis *a, const struct render_sim_info *info, enum render_format fmt);
/* the sensitivity heat-map: one bar per resource or set */
void render_sim_svg(FILE *out, const struct sim_machine *m, const struct sim_analysis *a,
			  const struct render_sim_info *info);

/* ------------------------------------------------------- gus list --- */
/* What gus knows: HOST (what this CPU is taken for; NULL: not said), the
 * TMA tables and the core models; one table's nodes in tree order with
 * unit, threshold and formula, and the metrics they use; its events with
 * their counters and encodings; one core model's resources. */
void render_catalog(FILE *out, const char *host, const struct td_table *const *tables, size_t ntables,
			  const struct sim_machine *const *machines, size_t nmachines);
void render_tma_nodes(FILE *out, const struct td_table *t);
void render_tma_events(FILE *out, const struct td_table *t);
void render_machine(FILE *out, const struct sim_machine *m);

/* ------------------------------------------------ SPIRE (spire.c, spiresvg.c) --- */
/* gus spire analyze and gus report's SPIRE section.
 * TEXT: the inputs, measured throughput, the ensemble estimate, the
 * metrics ranked lowest first (abbreviation, event, area, estimate,
 * estimate / measured, samples, share left of the peak), unmodeled
 * metrics and skipped samples, and how to read it.
 * CSV: a header "kind,name,field,value" and rows (gus report prefixes its
 * section and region columns).
 * JSON: one object (no trailing newline when json_indent > 0). Numbers are
 * never NaN: not applicable values are null (JSON) or empty (CSV). */
void render_spire(FILE *out, const struct spire_model *m, const struct spire_analysis *a,
			const struct spire_sampleset *ss, const struct merge_spire_info *info,
			enum render_format fmt);
/* gus spire train's summary and gus spire show: one row per roofline
 * (samples, peak I and P, knots left and right of the peak, tail), as
 * text, CSV or JSON. */
void render_spire_model(FILE *out, const struct spire_model *m, const struct spire_metricset *metrics,
			      enum render_format fmt);
/* gus spire metrics: a metric set's heading (its id, file, T and W) and
 * one row per metric (abbreviation, area, event, description). */
void render_spire_metricset(FILE *out, const struct spire_metricset *set);
/* An SVG with one panel per roofline: I on a log axis, P linear, the
 * roofline drawn through its knots (sampled densely, so that the log axis
 * shows it as it is), the peak marked, the points of SS for that metric
 * as dots; with an analysis A, its time-weighted estimate and the
 * measured throughput as horizontal lines. METRICS (may be NULL) gives
 * abbreviations. Panels: the N rooflines named in R. */
void render_spire_svg(FILE *out, const struct spire_roofline *const *r, size_t n,
			    const struct spire_sampleset *ss, const struct spire_analysis *a,
			    const struct spire_metricset *metrics, const char *title);

/* ----------------------------------------- gus stat -I's output (intervals.c) --- */
struct render_intervals {
	FILE *f;
	enum render_format fmt;
	char sep;
	unsigned interval_ms;
	char *const *argv;		/* the program (JSON) */
	int cmd_argc;			/* the whole command line (CSV's first comment) */
	char *const *cmd_argv;
	/* gus stat --spire: its T, W and CPU (NULL time: not SPIRE) */
	const char *spire_cpu, *spire_time, *spire_work;
	size_t spire_metrics;
	int groups;			/* the plan's event groups */
	unsigned long intervals;	/* written so far */
	bool started;
};
/* One interval's counts CS at T seconds; EV (NULL: nothing known) says
 * what each event is. -1 on a write error. */
int render_intervals_row(struct render_intervals *w, double t, const struct td_countset *cs,
			const struct merge_interval_event *ev);
/* the closing lines: how long, how many intervals, how the program ended */
void render_intervals_finish(struct render_intervals *w, double seconds, bool interrupted, int exit_status);

/* ------------------------------------------------------------ gus report --- */
/* gus report, one file per format, each reading the report model
 * (struct merge_report, merge.h) and nothing else of the recording; the
 * formats are described in gus-report(1). */
/* text.c: the text report (COLOUR: ANSI colours) */
void render_report_text(FILE *out, const struct merge_report *r, bool colour);
/* csv.c: CSV rows section,region,kind,name,field,value with SEP */
void render_report_csv(FILE *out, const struct merge_report *r, char sep);
/* json.c: one JSON object */
void render_report_json(FILE *out, const struct merge_report *r);
/* What render_sim needs for region V (INSN_TABLE: with its
 * per-instruction table); SOURCE (N bytes) holds its name. */
void render_report_sim_info(const struct merge_report_region *v, bool insn_table, struct render_sim_info *info,
			    char *source, size_t n);

/* ------------------------------------------------------------- HTML --- */
/* One self-contained page (html.c): inline CSS, JS and SVG, nothing
 * fetched (a Content-Security-Policy says so to the browser). Every
 * string of the recording is HTML-escaped (render_html_string); the
 * page's script holds none of them. The root element carries
 * data-ready="1" once the script ran and data-js-errors with what went
 * wrong in it, for tests. */

/* gus report --html: the header facts, the measured Top-Down tree
 * (collapsible, the bottleneck path marked) beside the simulated one, the
 * hot regions (a sortable table), and per region its verdict, a chart of
 * its sensitivity (+15 % and unlimited), its phases over the run, threads,
 * callers, the per-instruction table beside the annotated source, and
 * where its stream came from; what the recording lacks and why. */
void render_html_report(FILE *out, const struct merge_report *r);

/* gus stat --html: the measured tree TREE of RUN alone, TITLE (gus's own
 * words and a path, escaped) in the heading. */
void render_html_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run, const char *title);

/* ---------------------------------------------- pprof and folded stacks --- */
/* The samples' call stacks of R (merge_report.stacks: report_build with
 * report_request.stacks) for the profilers' viewers. Every string gus did
 * not make is written with the text escaping (render_text_escape): valid
 * UTF-8, no control character. Both return -1 with ERR when R has no
 * stacks or memory runs out, having written nothing. */

/* google/pprof's profile.proto, gzipped (pprof.c; go tool pprof, Parca,
 * Pyroscope, Grafana): sample types "samples"/"count" and the sampled
 * event's time ("cpu"/"nanoseconds" for cpu-clock, "cycles"/"count" for
 * cycles), the latter the default; a location per frame (runtime address,
 * mapping, function, file:line), the mappings with their build-ids, and
 * on the samples of each hot region string labels: gus_region,
 * gus_verdict, gus_bottleneck, gus_simulated_top, gus_simulated_topdown,
 * gus_measured_topdown, gus_measured_bottleneck, and the numeric label
 * gus_region_rank (gus-report(1) says what each holds). A write error is
 * the stream's (ferror). */
int render_pprof(FILE *out, const struct merge_report *r, char *err, size_t errlen);

/* Folded stacks (folded.c; flamegraph.pl, speedscope, Pyroscope): a line
 * "root;caller;leaf COUNT" per distinct stack of function names, COUNT
 * its samples, most first. A ';' in a name is written \x3b, after the
 * text escaping (whose backslash is \\), so that no name splits a frame
 * or a line. */
int render_folded(FILE *out, const struct merge_report *r, char *err, size_t errlen);

#endif
