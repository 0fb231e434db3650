/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report: the model of gus report. For a recording it assembles the
 * measured side (the TMA tree of its counts), the SPIRE analysis when a
 * model is given, the hot regions, each region's simulation (from the
 * results cached in the recording, or simulated and cached) and each
 * region's verdict, into a merge_report (merge.h) that merge/ renders.
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
	bool no_cache;
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

#endif
