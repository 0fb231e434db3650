/* SPDX-License-Identifier: GPL-2.0-or-later */
/* render: gus's output formats, one file per format, each reading the one
 * report model (struct merge_report, merge.h) and the models it points to
 * (td_tree, sim_analysis); none computes what the model does not hold. */
#ifndef GUS_RENDER_H
#define GUS_RENDER_H

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

#endif
