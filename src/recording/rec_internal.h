/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recording's internals: messages through the caller's recording_log. */
#ifndef GUS_REC_INTERNAL_H
#define GUS_REC_INTERNAL_H

#include "recording.h"

#define rec_warn(log, ...) recording_say(log, RECORDING_MSG_WARNING, __VA_ARGS__)
#define rec_error(log, ...) recording_say(log, RECORDING_MSG_ERROR, __VA_ARGS__)
/* recording_say with the text whole, however long (recording_say cuts it
 * at 2047 bytes): for messages that name what the user gave, a path */
void rec_say_whole(const struct recording_log *log, enum recording_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* an option's value is wrong: logged, RECORDING_USAGE */
enum recording_status rec_usage(const struct recording_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The hot regions of the samples and sample mappings in D ranked (the
 * TOP hottest functions, their loops by M) and stored, as gus record does
 * after its sampling run; with READ_GROUPS (the events of each group whose
 * deltas D's sample_reads hold, by group), each region's count set from
 * the reads at its samples too. LOG gets the warnings. -1 on a write
 * error. */
struct gusdata;
struct collect_plan;
int rec_rank_regions(struct gusdata *d, const struct sim_machine *m, unsigned top,
		     const struct collect_plan *read_groups, const struct recording_log *log, size_t *nregions);
/* The functions of KALLSYMS (/proc/kallsyms) that the kernel addresses
 * of D's samples fall in, into D's kernel_symbols; where they cannot be
 * read, or where REF (non-zero: a perf.data's kernel map, the address
 * of perf's reference symbol there) is no function's start in them (the
 * samples are of another boot), missing.kernel_symbols says why (and LOG
 * warns). PENDING (or NULL): KALLSYMS already being read on a thread
 * (collect_kallsyms_read_async), waited for here; the caller frees it.
 * -1 on a write error. */
int rec_store_kernel_symbols(struct gusdata *d, const char *kallsyms, uint64_t ref,
			     struct collect_kallsyms_async *pending, const struct recording_log *log);
/* gus record --import-counts: the perf stat -x, file PATH (whole
 * program, or per region: ROWS) into D's counts, counts.source set; -1
 * with the message logged. */
struct td_region_rows;
int rec_import_counts(const char *path, struct gusdata *d, struct td_region_rows *rows,
		      const struct recording_log *log);
/* ROWS (per region, from PATH ORIGIN) into D's region_counts, the regions
 * being ranked; -1 on a write error. */
int rec_store_region_rows(struct gusdata *d, const struct td_region_rows *rows, const char *origin,
			  const struct recording_log *log);
/* gus record's run 3 (stepped.c): a traced range of run 2's plan, and
 * whether QEMU's run 2 executed it */
struct rec_step_range {
	const char *object, *build_id, *name;
	uint64_t link_start, link_end, off_start;
	double share;			/* of run 1's samples */
	bool reached;
};
struct rec_step_request {
	char **argv;
	struct collect_input *input;	/* run 1's standard input, read again */
	unsigned windows;		/* per stepped range; 0: none stepped */
	uint64_t window_records;
	bool data_addresses;
	const char *qemu_failure;	/* why QEMU's run 2 failed, NULL: it did not */
};
#define REC_STEP_MIN_SHARE 0.01	/* a smaller range is not worth a third run */
struct rec_step_summary {
	size_t ranges;			/* stepped */
	uint64_t records, windows;
	double seconds, cpu_seconds;
	bool interrupted;
};
/* The ranges of RANGES with REC_STEP_MIN_SHARE of run 1's samples or
 * more whose code needs what QEMU 7.2's CPU lacks, or that QEMU's run
 * never executed, single-stepped natively in a run of their own into D (trace_chunks as process STREAM_STEP_PROC, meta
 * trace.step.*); SUM says what. -1 when writing into D failed (said). */
int rec_step_traces(struct gusdata *d, const struct rec_step_range *ranges, size_t n,
		    const struct rec_step_request *rq, const struct recording_log *log, struct rec_step_summary *sum);

/* RECORDING_* for a collect_status */
enum recording_status rec_status(enum collect_status st, int exec_errno);

#endif
