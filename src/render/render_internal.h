/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the renderers of src/render/. */
#ifndef GUS_RENDER_INTERNAL_H
#define GUS_RENDER_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "render.h"
#include "topdown.h"

/* "% slots", "% clocks", ...: what a node's percentage is a share of */
const char *rd_unit_label(enum td_unit u);
/* "ok", "not-computable", "mismeasured", "not-selected" */
const char *rd_status_name(enum td_status s);
/* "0.4M", "12.3k": records of a run, into BUF (N bytes) */
void rd_records_text(double v, char *buf, size_t n);
/* a region's tracer (merge_report_region.tracer) in words: "QEMU (run
 * 2)", "native single-stepping with ptrace (run 3)", ... */
const char *rd_tracer_words(const char *tracer);
/* a set of resources as "p0+p1", into BUF (N bytes) */
void rd_set_name(const struct sim_machine *m, const struct sim_set *s, char *buf, size_t n);

/* Text for SVG element content and attribute values (escape.c, with
 * the other escapings): '<', '>', '&', '"' and '\'' as entities, tab and
 * newline kept, the rest as the text escaping (render_text_string) writes
 * it, so that the file stays well-formed UTF-8 XML. */
void rd_xml_text(FILE *out, const char *s);

/* BEFORE and AFTER, gus's own words, as they are, and S between them
 * escaped (render_text_string): a line or part of one that shows a string
 * gus did not make */
void rd_text_put(FILE *out, const char *before, const char *s, const char *after);

/* perf stat's words for an event without a value: "<not supported>"
 * where the kernel refused it (collect's "not supported: WHY"), else
 * "<not counted>"; and the reason without that prefix */
struct td_count;
const char *rd_uncounted_word(const struct td_count *c);
const char *rd_uncounted_why(const struct td_count *c);

/* Parts of a simulation's text (sim.c), for gus sim and gus report:
 * the numbers in a line or two (cycles per unit, IPC, branches), the
 * simulated Top-Down in one line, the time waiting on loads by level
 * (after LABEL; nothing when no load waited), the sensitivity table
 * (EFFECT_ONLY: the rows with an effect and a line counting the others;
 * BOTTLENECK_LINES: gus sim's closing lines), and the per-instruction
 * table (EFFECT_COLUMNS: the bottleneck resources, else the two
 * busiest; with a samples column where INFO has samples; at most
 * MAX_ROWS rows, those with the most samples and executions, 0: all;
 * rows in address order). */
void rd_sim_numbers(FILE *out, const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		    const struct render_sim_info *info);
void rd_sim_topdown_line(FILE *out, const struct sim_machine *m, const struct sim_analysis *a);
void rd_sim_stall_line(FILE *out, const char *label, const struct sim_analysis *a);
void rd_sim_sensitivity(FILE *out, const struct sim_machine *m, const struct sim_analysis *a, double threshold,
			bool effect_only, bool bottleneck_lines);
void rd_sim_insn_table(FILE *out, const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		       const struct render_sim_info *info, bool effect_columns, size_t max_rows);

#endif
