/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merge: joining measured and simulated results, and the renderers that
 * print them (text, CSV, JSON). */
#ifndef GUS_MERGE_H
#define GUS_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "topdown.h"

enum merge_format { MERGE_TEXT, MERGE_CSV, MERGE_JSON };

/* What was measured, for the heading of a report. */
struct merge_run_info {
	char *const *argv;	/* the program, NULL for an import */
	const char *import;	/* imported file, NULL for a live run */
	int exit_status;	/* gus's exit status for the program */
	bool interrupted;
	double seconds;
	int runs;		/* >1 with --no-multiplex */
	bool user_only;
	bool smt_on;
	const char *notes;	/* one line per note, NULL if none */
};

void merge_render_tma(FILE *out, const struct td_tree *tree, const struct merge_run_info *run,
		      enum merge_format fmt, char sep);
void merge_render_counts(FILE *out, const struct td_countset *cs, const struct merge_run_info *run,
			 enum merge_format fmt, char sep);

#endif
