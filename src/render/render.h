/* SPDX-License-Identifier: GPL-2.0-or-later */
/* render: gus's output formats, one file per format, each reading the one
 * report model (struct merge_report, merge.h) and the models it points to
 * (td_tree, sim_analysis); none computes what the model does not hold. */
#ifndef GUS_RENDER_H
#define GUS_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "merge.h"
#include "topdown.h"

/* ------------------------------------------------------------- HTML --- */
/* One self-contained page (html.c): inline CSS, JS and SVG, nothing
 * fetched (a Content-Security-Policy says so to the browser). Every
 * string of the recording is HTML-escaped (merge_html_string); the
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
 * not make is written with the text escaping (merge_text_escape): valid
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
