/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report's internals: the callers of the hot regions (callers.c). */
#ifndef GUS_REPORT_INTERNAL_H
#define GUS_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge.h"
#include "report.h"

struct gusdata;
struct gusdata_sample;

/* ------------------------------------------------------------ objects --- */
/* The sample run's executable mappings and their objects (objects.c):
 * an address of a process placed as gus record placed its samples, and
 * each object's symbols and source lines loaded once, when first asked. */
struct report_objects;

struct report_place {
	size_t mapping;		/* report_objects_mapping's index */
	size_t object;
	uint64_t link;		/* link-time address; the offset in a pseudo-object */
	bool pseudo;		/* "[vdso]", "[anonymous code]": no file to read */
};

/* NULL with ERR when memory runs out (mappings D cannot read place
 * nothing) */
struct report_objects *report_objects_load(struct gusdata *d, char *err, size_t errlen);
void report_objects_free(struct report_objects *o);
/* ADDR of process PID: the newest mapping of that process holding it,
 * else any that does; false when none does, or the file's load bias is
 * unknown */
bool report_objects_locate(struct report_objects *o, int pid, uint64_t addr, struct report_place *p);
const char *report_object_path(const struct report_objects *o, size_t object);
/* Whether a mapping of the sample run holds ADDR (as report_objects_locate
 * finds them, of any process), its file readable here or not: an object
 * not here (a perf.data's, gus import) is no "[unknown]" code */
bool report_objects_mapped(const struct report_objects *o, int pid, uint64_t addr);
/* the build-id the recording has of OBJECT, else the file's now; "" */
const char *report_object_build_id(struct report_objects *o, size_t object);
void report_objects_mapping(const struct report_objects *o, size_t mapping, uint64_t *start, uint64_t *end,
			    uint64_t *pgoff);
/* The function at LINK of OBJECT into BUF, named as the hot regions name
 * functions (a symbol, "liba.so+0x1234" of code bounded by .eh_frame,
 * else "[unknown] in liba.so"; a pseudo-object's name); *START its first
 * address, *MANGLED (may be NULL) the symbol table's name where it
 * differs. False when no symbol names it. An object whose file is not
 * the recorded build any more is not read. */
bool report_object_function(struct report_objects *o, size_t object, uint64_t link, char *buf, size_t n,
			    uint64_t *start, const char **mangled);
/* file:line of LINK in OBJECT (the name as DWARF has it, valid while O
 * lives); false when unknown */
bool report_object_srcline(struct report_objects *o, size_t object, uint64_t link, const char **file, int *line);
/* Whether OBJECT's file is here and the recorded build (not a pseudo-object) */
bool report_object_usable(struct report_objects *o, size_t object);
/* The functions inlined at LINK of OBJECT (its DWARF), innermost first,
 * up to MAX into NAMES; how many */
size_t report_object_inlines(struct report_objects *o, size_t object, uint64_t link, char (*names)[256],
			     size_t max);

/* ------------------------------------------------------------ samples --- */
/* The samples in recording order as gusdata_foreach_sample gives them,
 * but that a sample with user registers and stack (--call-graph dwarf)
 * has its user call chain unwound (merge_unwind, one address space per
 * process, through O's mappings) after the kernel's part of its stored
 * chain. The chains unwound are kept in O: a second reading of the
 * samples (the callers, then the stacks) unwinds nothing again. */
int report_foreach_sample(struct gusdata *d, struct report_objects *o,
			  int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx);
/* what O keeps for report_foreach_sample (unwind.c), freed with O */
struct report_unwind;
struct report_unwind **report_objects_unwind(struct report_objects *o);
void report_unwind_free(struct report_unwind *u);

/* ------------------------------------------------------------ callers --- */
/* A hot region as the callers are counted for it: link-time [start, end)
 * of FILE. */
struct report_span {
	const char *file;
	uint64_t start, end;
};

/* A thread with samples in a region (perf report --sort pid). */
struct report_thread {
	int pid, tid;
	uint64_t samples;
	double share;		/* of the region's samples */
};

/* The callers of one region: its TOP callers by samples (names and files
 * malloc'ed), the samples of the others, and how many of its samples have
 * a call chain; and its samples by thread, most first. */
struct report_callers {
	struct merge_report_caller *v;
	size_t n;
	uint64_t other;
	uint64_t with_chain;
	struct report_thread *threads;
	size_t nthreads;
	uint64_t samples;	/* in user space of a known object */
	/* its samples by instruction (link-time address), by address */
	struct merge_report_insn_samples *at;
	size_t nat;
	/* the functions inlined where they fell, most samples first (names
	 * and files malloc'ed) */
	struct merge_report_caller *inlined;
	size_t ninlined;
};

/* Where all the samples fell, by their weight (period) and number: in
 * the kernel, in user code of no object the sample run mapped (or of one
 * whose load bias is unknown), or in an object (a file, the vDSO,
 * anonymous code), as gus record placed them for the regions. */
struct report_sample_totals {
	uint64_t weight, kernel_weight, unknown_weight;
	uint64_t samples, kernel_samples, unknown_samples;
	/* the kernel functions with most of the kernel's samples, with their
	 * shares of them ("pvm_irq_enable 63 %, fdget_pos 13 %"), "": none
	 * named (the recording has no kernel_symbols) */
	char kernel_top[320];
};
#define REPORT_KERNEL_TOP 3

/* The callers and threads of the N regions SPANS in the samples of
 * recording D: each region's samples by thread and by instruction; for
 * each sample in a
 * region with a call chain, the function of the first frame of its call
 * chain outside the region, named by its object's symbols (OBJS, the
 * sample run's mappings, turn an address into an object and a link-time
 * address). OUT has N entries; *HAVE_CHAINS: some sample has a call
 * chain (gus record -g); *TOTALS where all the samples fell. -1 with
 * ERR when the samples cannot be read. */
int report_find_callers(struct gusdata *d, struct report_objects *objs, const struct report_span *spans, size_t n,
			size_t top, struct report_callers *out, bool *have_chains, struct report_sample_totals *totals,
			char *err, size_t errlen);
void report_callers_free(struct report_callers *c, size_t n);

/* ------------------------------------------------------------- stacks --- */
/* The samples' call stacks (stacks.c): the model's stacks, frames and
 * mappings, and the storage they point into. */
struct report_stacks {
	struct merge_report_stack *stacks;	/* most weight first */
	size_t nstacks;
	struct merge_report_frame *frames;
	size_t nframes;
	struct merge_report_mapping *mappings;	/* EXE's first */
	size_t nmappings;
	uint64_t weight;	/* of all samples */
	bool chained;		/* some sample has a call chain */
	size_t *pool;		/* the stacks' frames */
	char **strings;		/* the names, files and build-ids (a hash set of NSTRINGS slots) */
	size_t nstrings;
};

/* The kernel's functions named in a recording (kernel_symbols: gus
 * record's, from /proc/kallsyms), sorted and disjoint (ksyms.c) */
struct report_ksym {
	uint64_t start, end;
	char *name;		/* at most 256 bytes, as the recording has it */
	char *module;		/* "" for the kernel image */
};
struct report_ksyms {
	struct report_ksym *v;
	size_t n;
};
/* none (n 0) in a recording without them; -1 on a read error */
int report_ksyms_load(struct gusdata *d, struct report_ksyms *k);
const struct report_ksym *report_ksyms_find(const struct report_ksyms *k, uint64_t addr);
void report_ksyms_free(struct report_ksyms *k);

/* Every sample of D as a stack of frames: its call chain, or its sampled
 * instruction alone, each address placed by OBJS and named as the
 * regions name functions, with its source line and the innermost of the
 * N regions SPANS holding it (the index in SPANS); identical stacks
 * added up. EXE: the program, whose mappings come first. -1 with ERR
 * when the samples cannot be read or memory runs out. */
int report_find_stacks(struct gusdata *d, struct report_objects *objs, const struct report_span *spans, size_t n,
		       const char *exe, struct report_stacks *out, char *err, size_t errlen);
void report_stacks_free(struct report_stacks *st);

/* ------------------------------------------------------------ windows --- */
/* A region's stream from the QEMU tracer's windows (windows.c). */
#include "sim.h"

#define REPORT_MAX_WINDOWS 256	/* windows simulated per region */
#define REPORT_MAX_PHASES 8
#define REPORT_PHASE_SPREAD 0.20	/* windows that differ more make phases */

struct report_window {
	uint32_t thread;	/* STREAM_THREAD of its records */
	uint32_t index;		/* the thread's window number */
	double weight;		/* records of the thread's run it stands for */
	double position;	/* records of the thread's run before it */
	uint64_t records;	/* the region's records in it */
	unsigned hits;		/* times the systematic sample picked it */
	double stands_for;	/* records of the region's run it stands for in the sample */
	bool cold;		/* simulated from cold caches: not in the spread */
	size_t off, n;		/* its records in the collected stream */
	/* timed in one simulation of the collected stream: from the last
	 * retirement before it to its own last */
	double cycles, insns, fused, units, cycles_per_unit;
};

/* a stretch of the run whose windows agree within REPORT_PHASE_SPREAD */
struct report_phase {
	double from, to;	/* records of the thread's run */
	double share;		/* of the region's time */
	size_t windows;
	double first, cycles, units, cycles_per_unit;
};

#define REPORT_MAX_TRACE_THREADS 64
/* a region's measured tree made of fewer samples is flagged */
#define REPORT_REGION_MIN_SAMPLES 100
/* Intel PT's windows when the recording does not say (gus record's
 * --window defaults) */
#define REPORT_PT_WINDOW_RECORDS 5000
#define REPORT_PT_WINDOWS_PER_LEVEL 32
#define REPORT_MAX_THREADS_SHOWN 8	/* threads listed per region */
#define REPORT_THREAD_SHARE 0.10	/* of a region's samples: simulated apart */
/* ... in a region with this share of all samples or more: each thread
 * costs as much as its region, and a thread of a region with less of the
 * run weighs little in it */
#define REPORT_THREAD_REGION_SHARE 0.05

/* a run of a window's records in a collected stream: a window's records
 * are one run, or several where other threads' records came between */
struct report_run {
	size_t off, n;		/* in the stream */
	uint32_t thread, index;	/* the window's */
};

struct report_windows {
	int64_t thread;		/* the thread they were read for, -1: all */
	struct report_run *runs;	/* the collected stream's runs, in its order */
	size_t nruns;
	uint32_t thread_ids[REPORT_MAX_TRACE_THREADS];	/* threads that ran the region, ascending */
	size_t nthread_ids;
	struct report_window *v;	/* the picked windows; in run order after simulating */
	size_t n;
	size_t total;		/* windows of the trace holding the region */
	bool budget_bound;	/* the records' budget picked fewer windows than there are (up to REPORT_MAX_WINDOWS) */
	size_t threads;		/* threads that ran the region */
	uint64_t window_records;
	bool per_iteration;	/* cycles_per_unit per iteration of the head, else per instruction */
	size_t simulated;	/* windows with a cycles_per_unit */
	double min, median, max;
	double whole;		/* cycles per unit of the run, the windows weighed by their hits */
	/* WHOLE's relative standard error as an estimate from the windows
	 * simulated (the spread of their cycles per unit, a ratio estimator;
	 * NAN: fewer than two) */
	double whole_error;
	struct report_run_estimate run;	/* WHOLE with the weighed counts */
	struct report_phase phases[REPORT_MAX_PHASES];
	size_t nphases;
	/* the windows differ in more than REPORT_MAX_PHASES stretches: no
	 * phases are given (a few of them would describe part of the run) */
	bool phases_scattered;
};

/* Where a region's windows come from: the QEMU stream stored in D, whose
 * windows the tracer cut (collect.h), or D's Intel PT, which holds the
 * whole run: decoded for the region alone and cut the same way (windows
 * of WINDOW_RECORDS of each thread's records of the region, PER_LEVEL per
 * doubling of the stride), so that both tracers give the same sample of a
 * run. */
struct report_trace_source {
	struct gusdata *d;
	bool pt;
	/* the native stepper's windows of gus record's run 3: its records
	 * are those of process STREAM_STEP_PROC, each window weighs the same
	 * (the stepper's sampling placed them in proportion to time) */
	bool stepped;
	uint64_t window_records;
	unsigned per_level;
	uint64_t pt_gaps;	/* out: gaps met decoding PT */
};

/* Reads the windows of traced range RANGE (trace.ranges; 0 for PT) of
 * SRC that hold records in [LO, HI) (of THREAD alone, a STREAM_THREAD,
 * unless it is -1), picks windows up to BUDGET records with probability
 * in proportion to the time they stand for, and collects their records
 * into TC (in stream order; each window's first segment in OUT). -1 with
 * ERR when the trace cannot be read; *DAMAGED: chunks read up to a
 * damage. */
int report_gather_windows(struct report_trace_source *src, uint64_t lo, uint64_t hi, uint32_t range, int64_t thread,
			  size_t budget, struct simrun_collect *tc, struct report_windows *out, uint64_t *damaged,
			  char *err, size_t errlen);

/* The same for many streams at once (every region of a report and its
 * threads), from two readings of SRC's trace in all: one counts the
 * windows of every stream added before it, one collects the picked
 * windows of the streams named (each record filed into every stream whose
 * [lo, hi) holds it). Intel PT is decoded once for all the regions'
 * ranges. */
struct report_gather;
struct report_gather *report_gather_new(struct report_trace_source *src);
/* a stream as report_gather_windows takes it, its windows as SRC has
 * them (the stepper's or the tracer's of the gather's trace); its number */
size_t report_gather_add(struct report_gather *g, const struct report_trace_source *src, uint64_t lo, uint64_t hi,
			 uint32_t range, int64_t thread, size_t budget, struct simrun_collect *tc,
			 struct report_windows *out);
/* the reading that counts the windows of the streams added since the
 * last one, and picks theirs (OUT's total and thread_ids set); -1 with
 * ERR */
int report_gather_count(struct report_gather *g, uint64_t *damaged, char *err, size_t errlen);
/* after PARENT's count: a stream of THREAD's windows of PARENT, picked
 * from the parent's count (no reading) */
size_t report_gather_add_thread(struct report_gather *g, size_t parent, uint32_t thread, size_t budget,
				struct simrun_collect *tc, struct report_windows *out);
/* the records stream I's picked windows hold (at most its budget) */
uint64_t report_gather_records(const struct report_gather *g, size_t i);
/* the reading that collects the picked windows of the N streams WHICH
 * into their TC and OUT; -1 with ERR */
int report_gather_collect(struct report_gather *g, const size_t *which, size_t n, uint64_t *damaged, char *err,
			  size_t errlen);
void report_gather_free(struct report_gather *g);
/* FN(CTX, records read so far) every million records of a reading */
void report_gather_progress(struct report_gather *g, void (*fn)(void *ctx, uint64_t records), void *ctx);
/* Each window timed (cycles per iteration of HEAD, or per instruction
 * when a window does not run it twice) in one simulation of the collected
 * stream, their spread, the run's estimate and the phases of the run.
 * TAPE (NULL: none): the prepass of the stream, when it holds it, from
 * the analysis of the same stream (sim_analysis_opts.tape). */
void report_windows_simulate(const struct sim_machine *m, const struct simrun_collect *tc, uint64_t head,
			     const struct sim_tape *tape, struct report_windows *w);
void report_windows_free(struct report_windows *w);

/* --------------------------------------------------------------- pool --- */
/* Tasks run side by side (pool.c). */
struct report_pool_task {
	void (*run)(void *arg, unsigned threads);	/* THREADS: what its own work may use */
	void *arg;
	double cost;		/* its share of the work, in any unit */
};
/* Runs the N TASKS on THREADS threads, the costliest first (a task of a
 * quarter of the costliest's cost or more gets THREADS / such tasks
 * threads of its own when they are fewer than THREADS), and calls TICK
 * (NULL: none) from the calling thread as they end and every quarter of
 * a second, with how many ended. */
void report_pool_run(const struct report_pool_task *tasks, size_t n, unsigned threads,
		     void (*tick)(void *ctx, size_t done, size_t n), void *ctx);

/* ------------------------------------------------------------- stream --- */
/* A region's stream as the report takes it (stream.c). */

/* The number of the traced range of D holding [START, END) of FILE (meta
 * trace.ranges: "START END OBJECT" per line, in the tracer's order), -1
 * when none. */
long report_traced_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end);
/* The native stepper's range of D holding [START, END) of FILE (meta
 * trace.step.ranges: "TAG START END OBJECT" per line): its window tag's
 * range, and WHY it was stepped (trace.step.why); -1 when none. */
long report_stepped_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end, char *why,
			  size_t whylen);
/* Where the windows of [START, END) of FILE come from in D, recorded by
 * TRACER (false: D has none there, the stream is the region's first
 * records). The QEMU tracer's windows are in the stream, of the traced
 * range *RANGE; Intel PT holds the whole run and is cut into windows
 * alike when read, unless it was recorded with --window 0. */
bool report_trace_source_of(struct gusdata *d, const char *tracer, const char *file, uint64_t start, uint64_t end,
			    struct report_trace_source *src, long *range);

/* The share of all traced ranges' records D's windows cover (meta
 * trace.coverage), NAN when it does not say. */
double report_trace_covers(struct gusdata *d);

/* How much of the run a region's stream covers. */
struct report_cover {
	bool windows;		/* windows over the run, else the region's first records */
	/* the share of its traced range's records (all threads) the windows
	 * cover: 1 the whole run, NAN unknown (or no windows) */
	double covers;
	bool at_most;		/* Ctrl-C stopped the run after the windows filled */
	char over[160];		/* " from windows spread over the first 12 % of the run", " (its first ones)" */
	char cut[800];		/* where and why the trace stops short of the run; "" when it does not */
	/* the native stepper's windows (gus record's run 3), and why the
	 * region was stepped */
	bool stepped;
	char why[420];
	/* the records gathered for the region, where its share set them
	 * under REPORT_STREAM_BUDGET (0: the full budget) */
	size_t budget;
	double share;
};
/* The cover of traced range RANGE (-1: none) of D, recorded by TRACER,
 * gus record cut at STAGE ("" or NULL: finished), from meta trace.stopped,
 * trace.stopped_x1000, trace.coverage, trace.interrupted, missing.trace
 * (gus-data(5)). */
void report_cover_of(struct gusdata *d, const char *tracer, const char *stage, long range, bool windows,
		     struct report_cover *c);
/* The stream line of N instructions of a region of D (named INPUT, or
 * NULL: not named) with cover C: the tracer, the windows and what of the
 * run they cover, Intel PT's GAPS (-1: not said), the data addresses
 * (DATA_ADDRESSES: used, where D has them). */
void report_stream_line(struct gusdata *d, const char *tracer, const char *input, size_t n, bool data_addresses,
			long long gaps, const struct report_cover *c, char *out, size_t len);

/* ----------------------------------------------------------- annotate --- */
/* A simulated region's per-instruction rows and annotated source
 * (annotate.c). */
struct report_annotation {
	struct merge_report_insn *insns;
	size_t ninsns;
	struct merge_report_srcline *lines;
	size_t nlines;
	char **strings;			/* what the rows point to */
	size_t nstrings;
	char why[512];			/* why there are no lines ("" when there are) */
};
/* The rows of the instructions of CODE in runtime [LO, HI) that A's
 * simulation executed (link-time addresses: runtime - BIAS), their
 * source lines from LINES (the region's file's line table; NULL: none,
 * WHY_NO_LINES says why) with each line's text where its file can be
 * read, and which are bottleneck instructions. */
void report_annotate(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		     uint64_t lo, uint64_t hi, uint64_t bias, struct merge_srclines *lines, const char *why_no_lines,
		     struct report_annotation *an);
void report_annotation_free(struct report_annotation *an);

#endif
