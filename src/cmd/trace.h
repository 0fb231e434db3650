/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The instruction stream for the commands (gus sim --trace, gus script):
 * from the QEMU tracer live, or from a recording's Intel PT, restricted
 * to a function or range of the program. */
#ifndef GUS_CMD_TRACE_H
#define GUS_CMD_TRACE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "collect.h"
#include "ipt.h"
#include "sim.h"
#include "stream.h"

struct trace_opts {
	char **argv;		/* --qemu: the program and its arguments */
	const char *recording;	/* --pt: a gus.data with Intel PT */
	const char *function;	/* restrict to this function of the program */
	const char *range;	/* or to START-END, link-time addresses in hex */
	bool innermost;		/* a function: its innermost loop only */
	bool data_addresses;	/* QEMU: the data address of every access */
	uint64_t max_insns;	/* 0: no limit */
};

struct trace_region {
	char program[PATH_MAX];	/* the ELF file the addresses belong to */
	char name[400];		/* what the report calls the region */
	bool restricted;	/* function or range given */
	struct stream_range link;	/* link-time [start, end) */
	struct stream_range run;	/* runtime (PT: after the recording's load bias) */
	uint64_t bias;		/* runtime - link-time address of the program */
	uint64_t head;		/* runtime address whose executions count iterations */
};

struct trace_result {
	bool qemu;
	/* QEMU */
	struct collect_result res;
	struct collect_qemu_stats qemu_stats;
	int exit_status;	/* gus's exit status for the program */
	/* PT */
	struct ipt_stats pt;
	struct ipt_recording_stats rec;
	uint64_t lost_records;	/* sideband records the kernel lost */
};

/* Finds the program and the region of OPTS; M (may be NULL) finds a
 * function's innermost loop. Returns 0 or a GUS_EXIT_* status (the
 * message printed). */
int trace_resolve(const struct trace_opts *o, const struct sim_machine *m, struct trace_region *r);
/* Runs the source, every record in the region to SINK. Returns 0 or a
 * GUS_EXIT_* status (the message printed). Losses, gaps and an abnormal
 * exit of the program are printed as warnings. */
int trace_run(const struct trace_opts *o, struct trace_region *r, stream_sink sink, void *ctx,
	      struct trace_result *tr);

#endif
