/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recording: the pipeline of gus record, and what it shares with gus stat
 * and gus spire (the TMA table and the SPIRE metrics this host counts).
 *
 * gus record runs the program twice: run 1 counts the TMA set and samples
 * (collect/), the hot regions are found in the samples (merge/), run 2
 * traces them (Intel PT or the QEMU tracer, collect/), and everything goes
 * into a gus.data (gusdata/) as it comes. This module owns those runs and
 * what each stores; the command line (src/cmd/record.c) only parses
 * options, calls recording_run and turns its status into an exit status.
 * Messages and progress go through a recording_log, never to a terminal
 * directly. */
#ifndef GUS_RECORDING_H
#define GUS_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <limits.h>
#include <stdio.h>

#include "collect.h"
#include "ipt.h"
#include "perfdata.h"
#include "sim.h"
#include "stream.h"

/* How a call ended; src/cmd maps these to gus's exit statuses. */
enum recording_status {
	RECORDING_OK = 0,
	RECORDING_ERROR,		/* bad input, an output that may not be written, a failed write */
	RECORDING_USAGE,		/* an option's value is wrong (found when checked) */
	RECORDING_NO_PMU,		/* no hardware counters */
	RECORDING_NO_PERMISSION,	/* perf_event_paranoid, capabilities */
	RECORDING_NO_PT,		/* --tracer pt without Intel PT */
	RECORDING_CANNOT_EXECUTE,	/* the program cannot be executed */
	RECORDING_NOT_FOUND,		/* the program is not there */
};

enum recording_msg {
	RECORDING_MSG_WARNING,
	RECORDING_MSG_ERROR,
	RECORDING_MSG_USAGE,		/* an error about an option */
};

/* Where the messages go. MESSAGE gets one line without the program's name;
 * PROGRESS (NULL: quiet) a phase line (PHASE) or an update of the current
 * phase; PROGRESS_END ends the phase's line. */
struct recording_log {
	void *ctx;
	void (*message)(void *ctx, enum recording_msg kind, const char *text);
	void (*progress)(void *ctx, bool phase, const char *text);
	void (*progress_end)(void *ctx);
};

/* A message through LOG (nothing when it has no MESSAGE). */
void recording_say(const struct recording_log *log, enum recording_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A progress line through LOG (PHASE: a new phase; nothing when quiet),
 * and the end of the current phase's line. */
void recording_progress(const struct recording_log *log, bool phase, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void recording_progress_end(const struct recording_log *log);

/* ------------------------------------------------------ the host's TMA --- */
struct td_table;
/* The TMA table ARCH names, or the one of this CPU (libpfm4's PMU) from
 * the tables in TMA_DIR; NULL with the message logged and *WHY set.
 * HAVE_PMU: libpfm4 recognised the CPU (PMU filled). COUNTING: the table
 * is for counting on this machine, so a machine without hardware counters
 * is said to be one (RECORDING_NO_PMU, RECORDING_NO_PERMISSION) before any
 * word of a missing table. */
struct td_table *recording_tma_table(const char *tma_dir, const char *arch, bool counting,
				     struct collect_pmu_info *pmu, bool *have_pmu, const struct recording_log *log,
				     enum recording_status *why);
/* The table of TMA_DIR that knows most of CS's events (gus stat --import
 * of a file from another machine, where this one has no table), when it
 * knows at least half of them; else NULL. WHY says which and why. */
struct td_countset;
struct td_table *recording_tma_table_of_counts(const char *tma_dir, const struct td_countset *cs, char *why,
					       size_t whylen);
/* The table gus stat --import computes the tree of CS with: ARCH's
 * (recording_tma_table), else this CPU's when it knows at least half of
 * CS's events, else the one whose events they are (a file from another
 * machine: recording_tma_table_of_counts, said as a warning naming NAME,
 * the file). NULL with the message logged and *WHY set. */
struct td_table *recording_tma_table_for_import(const char *tma_dir, const char *arch, const struct td_countset *cs,
					       const char *name, const struct recording_log *log,
					       enum recording_status *why);
/* The core model (an id of MACHINES_DIR's ID.mm) of this host: its own,
 * else the nearest (collect_host_cpu, $GUS_CPU); WHY says which CPU it was
 * taken for and how */
void recording_host_machine(const char *machines_dir, char *id, size_t idlen, char *why, size_t whylen);
/* The same for CPU (a recording's, gus import), WHY saying "WHOSE: ..."
 * for its own model, else "the nearest to WHAT, ..." ("the perf.data's",
 * "the perf.data's CPU") */
void recording_machine_for_cpu(const char *machines_dir, const struct collect_host_cpu *cpu, const char *whose,
			       const char *what, char *id, size_t idlen, char *why, size_t whylen);

/* Everything gus knows (gus list): every TMA table of TMA_DIR and core
 * model of MACHINES_DIR, loaded, by id, and what this host is taken for.
 * -1 with ERR when one of them does not load. */
struct sim_machine;
struct recording_catalog {
	struct td_table *tables[64];
	size_t ntables;
	struct sim_machine *machines[64];
	size_t nmachines;
	char host[512];
};
int recording_catalog(const char *tma_dir, const char *machines_dir, struct recording_catalog *c, char *err,
		      size_t errlen);
void recording_catalog_free(struct recording_catalog *c);

/* ------------------------------------------------ what SPIRE counts ----- */
struct recording_spire_request {
	const char *spire_dir;	/* the metric sets */
	const char *arch;	/* a set id or a CPU of one, NULL: this CPU's */
	const char *metrics;	/* --metrics LIST, NULL: the whole set */
	const char *time_event, *work_event;	/* NULL: the set's (or the defaults) */
	bool user_only;
	bool print_events;	/* only printing the perf command: nothing is opened */
	const char *opt;	/* the options' prefix in messages: "" (gus stat), "spire-" (gus record) */
};

/* what SPIRE counts: T, W and the metrics, each as libpfm4 (or the
 * kernel) encodes it and as the count set names it */
struct recording_spire_pick {
	struct spire_metricset *set;	/* NULL: no set (only --metrics events) */
	const char *cpu;		/* "# cpu:" line; NULL when unknown; the request's
				 * --arch or cpu_name, never the caller's locals */
	char cpu_name[64];		/* the detected PMU's name, owned by the pick */
	const char *time_enc, *time_name, *work_enc, *work_name;
	const char **enc, **names;
	size_t n;
	char *list;			/* --metrics split (collect_split_events): the names point into it */
	bool uses_set;			/* encodes libpfm4 names of the set */
	char left_out[256];		/* AnyThread metrics left out */
	const char *opt;		/* the request's option prefix */
};

void recording_spire_pick_free(struct recording_spire_pick *sp);
/* Chooses the set, T, W and the metrics, checks the set is this CPU's
 * (unless only printing), and the metrics per group (*BUDGET; NOTE says
 * when the NMI watchdog took a counter). RECORDING_OK, or the status with
 * the message logged. */
enum recording_status recording_spire_prepare(const struct recording_spire_request *rq,
					      const struct collect_pmu_info *pmu, bool have_pmu,
					      struct recording_spire_pick *sp, int *budget, char *note, size_t notelen,
					      const struct recording_log *log);

/* The SPIRE interval counts of recording D as samples into SS (its T and
 * W must be SS's; its CPU taken when SS has none); -1 with ERR. */
struct gusdata;
struct spire_sampleset;
int recording_spire_samples(struct gusdata *d, struct spire_sampleset *ss, char *err, size_t errlen);
/* The samples of FILES (recordings, or perf stat -I -x, output; "-" is
 * standard input) into SS. The CPU: each file's own "# cpu:" line or a
 * recording's meta, else GIVEN_CPU (may be NULL); files that disagree are
 * refused. RECORDING_OK or RECORDING_ERROR, the message logged; a file
 * without a usable sample is warned about. */
enum recording_status recording_spire_load(const char *const *files, size_t nfiles, const char *given_cpu,
					   struct spire_sampleset *ss, const struct recording_log *log);
/* T and W as the first input names them (a recording's meta, or the
 * "# time:" and "# work:" lines gus stat -I --spire writes) into TIME and
 * WORK (N bytes each; "" when it names none). */
void recording_spire_first_tw(const char *path, char *time, char *work, size_t n);

/* NAME as execvp would find it (through PATH when it has no '/'), into
 * OUT; RECORDING_NOT_FOUND or RECORDING_CANNOT_EXECUTE with the message
 * logged. */
enum recording_status recording_find_program(const char *name, char *out, size_t outlen,
					     const struct recording_log *log);

/* ------------------------------------------------ a stream to look at --- */
/* The instruction stream for gus sim --trace and gus script: from the QEMU
 * tracer live, or from a recording (its Intel PT decoded, or the stream
 * its QEMU tracer stored), restricted to a function or range of the
 * program or of one of its objects (trace.c). */
struct recording_trace_opts {
	char **argv;		/* --qemu: the program and its arguments */
	const char *recording;	/* a gus.data, whichever its tracer (NULL: QEMU live) */
	const char *function;	/* restrict to this function of the program or an object of it */
	const char *range;	/* or to START-END, link-time addresses in hex */
	bool innermost;		/* a function: its innermost loop only */
	bool alone;		/* that loop's records only, not the function's around it */
	bool data_addresses;	/* QEMU, live or recorded: the data address of every access */
	uint64_t max_insns;	/* 0: no limit */
	/* QEMU live: trace natively, single-stepped with ptrace (also taken
	 * when QEMU cannot execute the program's instructions) */
	bool ptrace;
	/* the stepper: records stepped at each entry into the region (0:
	 * 20000); MAX_INSNS as given also when QEMU falls back to it (else
	 * the fallback takes at most 200000: steps are slow) */
	uint64_t step_window;
	bool step_max_given;
	/* the program's standard streams, live runs (NULL: gus's own) */
	const struct collect_stdio *stdio;
	struct recording_log log;
};

enum recording_trace_source {
	RECORDING_SOURCE_QEMU_LIVE,	/* the program run under the QEMU tracer */
	RECORDING_SOURCE_PT,		/* a recording's Intel PT, decoded */
	RECORDING_SOURCE_QEMU_RECORDED,	/* a recording's QEMU stream (trace_chunks) */
};

struct recording_trace_region {
	enum recording_trace_source source;
	bool data_addresses;	/* the stream's records carry data addresses */
	bool placed;		/* a recording: its traced run had PROGRAM where BIAS says */
	/* a recording: gus record's run 3 single-stepped it natively (its
	 * records and maps are process STREAM_STEP_PROC's) */
	bool stepped;
	char program[PATH_MAX];	/* the ELF file the addresses belong to */
	bool in_library;	/* PROGRAM is a library of EXE that holds --function */
	char exe[PATH_MAX];	/* the program run, when IN_LIBRARY */
	char name[400];		/* what the report calls the region */
	bool restricted;	/* function or range given */
	struct stream_range link;	/* link-time [start, end) */
	struct stream_range run;	/* runtime (PT: after the recording's load bias) */
	uint64_t bias;		/* runtime - link-time address of the program */
	uint64_t head;		/* runtime address whose executions count iterations */
	/* a function's loop to be picked from the trace (recording_trace_pick_loop):
	 * the whole function is traced */
	bool pick_loop;
	bool head_is_latch;	/* HEAD is the loop's backward branch, not its start */
	/* the picked loop's runtime [start, end): the function's stream is
	 * simulated whole, the loop's instructions' time is its time */
	struct stream_range focus;
	char function[256];
	char loop_note[2048];	/* which loop, why, the others ("" none) */
};

struct recording_trace_result {
	bool qemu;		/* the program ran (QEMU live): EXIT_STATUS is its */
	/* a recording's QEMU stream */
	bool recorded_qemu;
	uint64_t records;	/* given to the sink */
	uint64_t damaged;	/* chunks read up to their damage */
	bool truncated;		/* --max-insns reached */
	/* QEMU */
	struct collect_result res;
	struct collect_qemu_stats qemu_stats;
	int exit_status;	/* gus's exit status for the program */
	/* the native stepper (--ptrace, or QEMU could not run the code) */
	bool stepped;
	char step_why[160];	/* why it was used instead of QEMU ("" --ptrace) */
	struct collect_step_stats step;
	/* PT */
	struct ipt_stats pt;
	struct ipt_recording_stats rec;
	uint64_t lost_records;	/* sideband records the kernel lost */
};

/* Finds the program and the region of OPTS; M (may be NULL) finds a
 * function's innermost loop. RECORDING_OK or the status, the message
 * logged. */
enum recording_status recording_trace_resolve(const struct recording_trace_opts *o, const struct sim_machine *m,
					      struct recording_trace_region *r);
/* After a run of R into TC: with PICK_LOOP, the function's innermost loop
 * the trace executed most instructions in becomes the region (TC keeps
 * the whole function's records, around it; R's focus, name, head and
 * loop_note say which and why); a
 * stream --max-insns cut (TR) loses its last, partial iteration or call
 * (after the last execution of the region's head), said as a warning. */
void recording_trace_settle(const struct recording_trace_opts *o, struct recording_trace_region *r,
			    const struct sim_machine *m, const struct recording_trace_result *tr,
			    struct simrun_collect *tc);
/* Runs the source, every record in the region to SINK. RECORDING_OK or
 * the status, the message logged; losses, gaps and an abnormal exit of
 * the program are logged as warnings. */
enum recording_status recording_trace_run(const struct recording_trace_opts *o, struct recording_trace_region *r,
					  stream_sink sink, void *ctx, struct recording_trace_result *tr);
/* The line gus sim --trace says of the stream it simulated, RECORDS
 * instructions of R run by O (TR: how it went), into OUT: its source (QEMU
 * live, a recording's QEMU stream or its Intel PT), whether --max-insns cut
 * it, whether only R's, and its data addresses or PT's gaps. */
/* the tag of gus record's run 3 range that single-stepped [START, END) of
 * FILE (meta trace.step.ranges: "TAG START END OBJECT" per line), -1 when
 * none did */
long recording_stepped_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end);
void recording_trace_describe(const struct recording_trace_opts *o, const struct recording_trace_region *r,
			      const struct recording_trace_result *tr, size_t records, char *out, size_t outlen);

/* The names of a stream's addresses, per object (tracesyms.c): by the
 * mappings of R's source (a recording's Intel PT mmaps, its QEMU
 * trace_maps, or for QEMU live R's object at R's bias, read at each lookup
 * since the run learns it at its first record). Each object's symbols are
 * loaded the first time an address falls in it. NULL with the message
 * logged. */
struct recording_symbols;
struct recording_symbols *recording_symbols_new(const struct recording_trace_opts *o,
						const struct recording_trace_region *r);
/* the function holding runtime address IP and the offset in it, NULL
 * when no object or symbol holds it */
const char *recording_symbols_lookup(struct recording_symbols *s, uint64_t ip, uint64_t *offset);
void recording_symbols_free(struct recording_symbols *s);


/* ------------------------------------------------------------- gus stat --- */
/* What gus stat's TMA tree counts on this machine. */
struct recording_stat_tma {
	struct td_table *table;	/* ARCH's, or this CPU's (recording_tma_table) */
	bool *select;		/* the nodes shown (td_select_nodes) */
	bool *needed;		/* the events they need (td_needed_events) */
	bool smt_on;
	bool use_pfm;		/* the table is libpfm4's PMU's: its events by name, else public encodings */
	int budget;		/* general counters per group */
	/* which CPU chose the table, and how: "NAME (WHY)" ("" with ARCH) */
	char cpu[sizeof(((struct collect_host_cpu *)0)->name) + sizeof(((struct collect_host_cpu *)0)->why) + 8];
	char pmu[sizeof(((struct collect_pmu_info *)0)->name)];	/* libpfm4's PMU, "unknown" */
	char note[512];		/* why fewer counters (the NMI watchdog holds one), a hybrid
				 * CPU's core type counted, "" */
	bool on_core_pmu;	/* a hybrid CPU: the table's events open on its core type's PMU */
};
/* The table of ARCH or this CPU (COUNTING as recording_tma_table has it),
 * the nodes up to LEVEL and those of NODES, the events they need with SMT
 * (SMT: 1 on, 0 off, -1 as this machine has it), and the counters per
 * group. RECORDING_OK, or the status with the message logged (an unknown
 * node: RECORDING_USAGE); recording_stat_tma_free frees OUT either way. */
enum recording_status recording_stat_tma(const char *tma_dir, const char *arch, bool counting, int level,
					 const char *nodes, int smt, const struct recording_log *log,
					 struct recording_stat_tma *out);
void recording_stat_tma_free(struct recording_stat_tma *p);

/* The perf stat command that counts TMA's set elsewhere, for gus stat
 * --import (and the line saying so), on OUT. RECORDING_OK, or
 * RECORDING_ERROR with the message logged when the set cannot be planned. */
enum recording_status recording_print_tma_command(FILE *out, const struct recording_stat_tma *tma, char **argv,
						  bool user_only, const struct recording_log *log);

/* gus stat --import's counts: the perf stat -x, file PATH ("-": standard
 * input, named NAME in messages) into CS. RECORDING_OK, or RECORDING_ERROR
 * with the message logged. */
enum recording_status recording_import_counts(const char *path, const char *name, struct td_countset *cs,
					      const struct recording_log *log);

struct merge_run_info;
struct recording_count_request {
	char **argv;		/* the program */
	const struct recording_stat_tma *tma;	/* the TMA set (TMA's NEEDED events); NULL: EVENTS */
	const char *events;	/* -e LIST */
	bool user_only, no_multiplex;
	struct recording_log log;
};
/* Counts RQ's program once (all groups multiplexed), or once per group
 * with NO_MULTIPLEX; a permission error counting the kernel too retries
 * user space only, as perf does. PLAN and CS get what was counted, RUN how
 * (runs, seconds, exit status, interrupted, user space only); *COUNTED
 * whether anything was. RECORDING_OK, or the status with the message
 * logged. */
enum recording_status recording_count(const struct recording_count_request *rq, struct collect_plan *plan,
				      struct td_countset *cs, struct merge_run_info *run, bool *counted);

/* Where gus stat -I's intervals go: each interval's counts CS at T seconds
 * (as collect_interval_sink's), with what each of its events is (EV; NULL
 * when not known) and how many event groups the plan has. */
struct merge_interval_event;
struct recording_interval_sink {
	void *ctx;
	int (*interval)(void *ctx, double t, const struct td_countset *cs, const struct merge_interval_event *ev,
			int groups);
};

struct recording_interval_request {
	char **argv;
	unsigned interval_ms;
	bool user_only;
	const struct recording_spire_pick *spire;	/* --spire (BUDGET metrics per group), else EVENTS */
	int budget;
	const char *events;
	struct recording_interval_sink sink;	/* every interval */
	struct recording_log log;
};
/* Before gus stat -I counts: libpfm4 set up, and with RQ (--spire; NULL:
 * -e events) what SPIRE counts (recording_spire_prepare on this CPU).
 * RECORDING_OK, or the status with the message logged. */
enum recording_status recording_intervals_prepare(const struct recording_spire_request *rq,
						  struct recording_spire_pick *sp, int *budget, char *note,
						  size_t notelen, const struct recording_log *log);
/* gus stat -I: counts RQ's program every INTERVAL_MS into SINK (PLAN is
 * filled before the first interval). RES: how the program ended. */
enum recording_status recording_count_intervals(const struct recording_interval_request *rq,
						struct collect_plan *plan, struct collect_result *res);

/* The perf stat command for SPIRE's interval counts, with how to train and
 * analyze. */
void recording_print_spire_command(FILE *out, unsigned interval_ms, bool user_only, char **argv,
				   const struct recording_spire_pick *sp, int budget);

/* ----------------------------------------------------------- gus import --- */
/* A perf.data (file or pipe mode) as a gus recording (perfimport.c): its
 * samples of code, their mappings, comms and sideband, the facts of its
 * header (the CPU its cpuid names picks the core model and TMA table),
 * what it lacks as missing.* facts, and the hot regions ranked as gus
 * record ranks them. */
struct recording_import_request {
	const char *input;	/* the perf.data */
	const char *output;	/* the recording: gusdata_create's rules (recording_import) */
	bool force;		/* GUSDATA_FORCE */
	const char *machines_dir;
	const char *arch;	/* the core model; NULL: the perf.data's CPU's nearest */
	unsigned hot;		/* hot regions kept; 0: 5 */
	const char *debug_dir;	/* perf's build-id cache; NULL: $HOME/.debug */
	/* a perf stat -x, file of the same run (whole program, or per region
	 * as gus record --import-counts takes it), evaluated with TMA_DIR's
	 * table of the perf.data's CPU; NULL: none */
	const char *import_counts;
	const char *tma_dir;
	struct recording_log log;
};

struct recording_import_summary {
	uint64_t records, samples;	/* read, and samples imported */
	uint64_t other_samples;		/* samples of other events, not imported */
	char event[128];		/* the event whose samples were imported */
	size_t missing_objects;		/* sampled objects not here */
	bool damaged;			/* read up to damage (said as a warning) */
};

/* What gus import --stat says of a perf.data, as perf report --stat:
 * its records by type, and each event's samples. */
#define RECORDING_STAT_EVENTS 64
struct recording_import_stat {
	bool pipe;
	struct perfdata_stats stats;
	size_t nevents;			/* events of the header (the first RECORDING_STAT_EVENTS) */
	char event[RECORDING_STAT_EVENTS][128];
	uint64_t event_samples[RECORDING_STAT_EVENTS];
	/* Intel PT (the AUXTRACE_INFO's type): each AUXTRACE record's trace
	 * split into its packets, as perf report -D dumps them */
	bool intel_pt;
	struct ipt_packet_counts pt;
	char damage[1100];		/* where the data is damaged ("" read whole) */
};
/* Reads every record of PATH into *ST. RECORDING_OK also for a damaged
 * perf.data (ST->damage says where); RECORDING_ERROR with the message
 * logged when it cannot be opened. */
enum recording_status recording_import_stat(const char *path, struct recording_import_stat *st,
					    const struct recording_log *log);
/* Whether PATH is a perf.data (either mode; the other byte order too, which
 * the import refuses with a message). */
bool recording_is_perf_data(const char *path);
/* RQ->input into the recording RQ->output. RECORDING_OK when it landed
 * (also for a damaged perf.data read up to its damage, said as a
 * warning); otherwise nothing was kept and the message is logged. */
enum recording_status recording_import(const struct recording_import_request *rq,
				       struct recording_import_summary *sum);
/* gus report -i perf.data: RQ->input imported into a recording of gus's
 * own in a private temporary directory, opened read-only into *OUT, and
 * removed at once (the open database stays readable). */
struct gusdata;
enum recording_status recording_import_open(const struct recording_import_request *rq, struct gusdata **out);

/* ----------------------------------------------------------- gus record --- */
enum recording_tracer { RECORDING_TRACER_AUTO, RECORDING_TRACER_PT, RECORDING_TRACER_QEMU, RECORDING_TRACER_NONE };

#define RECORDING_MAX_FILTERS 16

struct recording_request {
	const char *output;	/* the recording: gusdata_create's rules */
	bool force;		/* GUSDATA_FORCE */
	char **argv;		/* the program and its arguments */
	const char *exe;	/* argv[0] found as exec would, absolute */
	const char *tma_dir, *machines_dir, *spire_dir;	/* the data */
	const char *machine;	/* the machine model of the host (hot loops) */
	int level;		/* TMA levels counted */
	enum recording_tracer tracer;
	unsigned hot, freq;
	bool callgraph;
	/* --call-graph dwarf,SIZE: SIZE bytes of user stack and the user
	 * registers with each sample, unwound by gus report (0: -g's frame
	 * pointers, when CALLGRAPH) */
	unsigned dwarf_stack;
	const char *event;	/* cycles, cpu-clock, NULL: the best there is */
	/* QEMU: records stored in all with windows, per range without; 0:
	 * the default of the mode (16000000, 500000) */
	unsigned long long max_insns;
	/* QEMU: the stream as windows of WINDOW_RECORDS records spread over
	 * the whole run (collect_qemu_opts); 0: the first MAX_INSNS records
	 * of each range, the run stopped once every range has them */
	unsigned long long window_records;
	unsigned windows_per_level;
	/* QEMU: the hot ranges QEMU cannot run (collect_qemu_lacks) or that
	 * its run never executed are single-stepped natively in a run 3,
	 * STEP_WINDOWS windows of each (0: none) */
	unsigned step_windows;
	const char *import_counts, *import_intervals;
	bool spire;
	unsigned spire_interval;	/* ms */
	const char *spire_metrics, *spire_time, *spire_work, *spire_arch;
	const char *arch;	/* TMA table */
	int smt;		/* -1: detect */
	bool user_only, no_mem;
	/* counter groups read at every sample, for each hot region's own
	 * count set: the TMA plan's groups (on by default where there are
	 * counters), or READ_EVENTS (a comma list, one group: --read-events);
	 * NO_REGION_COUNTS: counted for the whole program only */
	const char *read_events;
	bool no_region_counts;
	/* QEMU's run 2: its standard output and error to /dev/null instead of
	 * into the recording (its standard input is always run 1's) */
	bool discard_trace_output;
	struct collect_pt_opts pt;
	const char *filter_text[RECORDING_MAX_FILTERS];	/* --pt-filter */
	size_t nfilters;
	struct collect_pt_filter filters[RECORDING_MAX_FILTERS];	/* parsed by recording_run */
	struct recording_log log;
};

struct recording_summary {
	int program_status;	/* run 1's exit status (128 + the signal) */
	uint64_t samples;
	char sample_event[64];
	size_t regions;
	bool counting;		/* the TMA set was counted in run 1 */
	bool counted;		/* ... and its counts landed */
	bool spire_counted;
	bool interrupted;	/* Ctrl-C (or SIGTERM) reached gus during run 1: no trace run */
	bool trace_interrupted;	/* ... during the QEMU tracer's run 2: the trace was cut there */
	/* the QEMU tracer reached --max-insns (meta trace.stopped): with
	 * windows, storing stopped TRACE_STOP_SECONDS into the TRACE_SECONDS
	 * of run 2, which went on untraced, so the windows cover TRACE_COVERS
	 * of the traced ranges' records (NAN: unknown); without, each range
	 * has its first records and run 2 was stopped */
	bool trace_stopped;
	double trace_covers, trace_stop_seconds, trace_seconds;
	/* without windows: the traced ranges whose stream --max-insns cut
	 * (their first records kept), of TRACE_RANGES */
	size_t trace_ranges_cut, trace_ranges;
	bool write_failed;	/* kept, but a write failed (a full disk): incomplete */
	/* run 3: the hot ranges single-stepped natively, their records and
	 * windows, its time and CPU time (gus's and the program's) */
	size_t stepped_ranges;
	uint64_t stepped_records, stepped_windows;
	double step_seconds, step_cpu_seconds;
};

/* Runs RQ's program into the recording RQ->output: checks first (the
 * output, --arch, --pt-filter, the imports, the tracer), then the runs.
 * RECORDING_OK when a recording is in place (SUM says what it holds, also
 * with RECORDING_ERROR and SUM->write_failed, where a recording is kept
 * without its trace); otherwise nothing was kept. */
enum recording_status recording_run(const struct recording_request *rq, struct recording_summary *sum);

#endif
