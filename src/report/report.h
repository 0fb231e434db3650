/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report: the model of gus report. For a recording it assembles the
 * measured side (the TMA tree of its counts), the SPIRE analysis when a
 * model is given, the hot regions, each region's simulation (from the
 * results cached in the recording, or simulated and cached) and each
 * region's verdict, into a merge_report (merge.h) that render/ writes.
 * Messages and progress go through a recording_log (recording.h). */
#ifndef GUS_REPORT_H
#define GUS_REPORT_H

#include <stdbool.h>

#include "merge.h"
#include "recording.h"

struct report_request {
	const char *input;	/* the recording */
	const char *arch;	/* the machine model; NULL: the recording's, else the host's */
	const char *host_machine;
	const char *spire_model;	/* --spire MODEL, or NULL */
	const char *region;	/* --region RANK|NAME, or NULL: all */
	/* which regions have details (merge_report.details): a share of at
	 * least PERCENT_LIMIT percent (--percent-limit; the command's default
	 * is 5), or ALL (--all) */
	double percent_limit;
	bool all;
	bool no_cache;
	bool stacks;		/* the samples' call stacks too (merge_report.stacks) */
	int threads;		/* the simulation's; 0: one per CPU */
	const char *tma_dir, *machines_dir, *spire_dir;
	struct recording_log log;
};

struct report;

/* The report of RQ->input into *OUT (report_model gives what to render).
 * RECORDING_OK; RECORDING_ERROR when the recording or the SPIRE model
 * cannot be read; RECORDING_USAGE for a --region that matches no region
 * (the regions listed) or an unknown --arch; the message logged. */
enum recording_status report_build(const struct report_request *rq, struct report **out);
const struct merge_report *report_model(const struct report *r);
void report_free(struct report *r);

/* ------------------------------------------------- gus sim --trace -i --- */
/* The stream gus report simulates for a region, for gus sim --trace -i:
 * the same windows, picked the same way, each simulated alone for the
 * run's cycles per unit (report_region_stream). */

#define REPORT_STREAM_BUDGET 300000	/* records gathered for a region with REPORT_FULL_BUDGET_SHARE of the samples or more */
#define REPORT_FULL_BUDGET_SHARE 0.25
#define REPORT_MIN_STREAM_BUDGET 100000	/* records gathered for any region */
/* The records gathered for a region of SHARE of the samples: the
 * simulations' cost follows the time the region stands for (a region
 * of 1 % costs a third of one of 25 %), its windows' standard error
 * says what the smaller sample costs. gus report and gus sim --trace -i
 * gather alike. */
size_t report_stream_budget(double share);

struct report_stream_request {
	const char *input;		/* the recording */
	const struct sim_machine *m;	/* each window simulated alone on it; NULL: not */
	const char *file;		/* the region's object, as the recording names it */
	uint64_t start, end;		/* its link-time [start, end) */
	uint64_t bias;			/* runtime - link-time address in the traced run */
	uint64_t head;			/* runtime address whose executions count its units (0: instructions) */
	size_t budget;			/* records gathered; 0: as the report does (report_stream_budget of the region's share) */
	struct recording_log log;
};

/* The run's estimate from a region's windows: each window's cycles,
 * instructions, fused µops and iterations weighed by the time it stands
 * for. WHOLE is cycles per iteration of the head (PER_ITERATION) or per
 * instruction (NAN: no window timed). */
struct report_run_estimate {
	double whole;
	bool per_iteration;
	double cycles, insns, fused, units;
};

/* AN's figures as the run's estimate E gives them, where the stream AN
 * simulated counts the same unit (E's per_iteration): cycles per unit,
 * IPC, µops per cycle, and the measured cycles, µops and iterations scaled
 * to AN's measured instructions (AN->run_weighted); AN unchanged else.
 * gus report and gus sim --trace -i give the same figures this way. */
void report_run_estimate_apply(const struct report_run_estimate *e, struct sim_analysis *an);

struct report_stream {
	bool windows;		/* false: the recording has no windows of it (the caller takes its first records) */
	char why_no_windows[160];	/* ... why */
	size_t picked, total;	/* windows simulated, and those of the trace holding the region */
	bool budget_reached;	/* BUDGET cut the picked windows */
	/* cycles per unit of the whole run, each window alone weighed by the
	 * time it stands for (NAN: none), per iteration of HEAD or per
	 * instruction: the report's figure where the concatenated stream's
	 * unit agrees */
	double whole;
	bool per_iteration;
	struct report_run_estimate run;	/* the same, with the weighed counts */
	double covers;		/* the share of the region's run the windows cover (NAN: unknown) */
	bool covers_at_most;
	char cut[800];		/* where and why the trace stops short of the run, "" */
	char line[1400];	/* where the stream came from, as the report's stream line says */
};

/* Gathers into TC (its code and data_addresses set; its lo, hi and max
 * are set here) the stream gus report simulates for the region RQ names,
 * and describes it in *OUT. RECORDING_OK also when the recording has no
 * windows of it (OUT->windows false, TC untouched); RECORDING_ERROR with
 * the message logged. */
enum recording_status report_region_stream(const struct report_stream_request *rq, struct simrun_collect *tc,
					   struct report_stream *out);

#endif
