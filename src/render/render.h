/* SPDX-License-Identifier: GPL-2.0-or-later */
/* render: gus report's model (struct merge_report, merge.h) written in
 * the formats people read and the tools they already run, one file per
 * format. A renderer formats what the model holds and computes nothing
 * the model lacks: a new format touches no other module. */
#ifndef GUS_RENDER_H
#define GUS_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "merge.h"

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
