/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collect: launching the workload and perf_event counting sessions.
 * Events are encoded with libpfm4 and counted with libperf. */
#ifndef GUS_COLLECT_H
#define GUS_COLLECT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "topdown.h"

#define COLLECT_ERRLEN 512

enum collect_status {
	COLLECT_OK = 0,
	COLLECT_ERROR,		/* anything else: message in err */
	COLLECT_NO_PMU,		/* perf_event_open: ENOENT / EOPNOTSUPP / ENODEV */
	COLLECT_NO_PERMISSION,	/* perf_event_open: EACCES / EPERM */
	COLLECT_BAD_EVENT,	/* libpfm4 or the kernel rejects an event */
	COLLECT_EXEC_FAILED,	/* the program could not be started */
	COLLECT_WRITE_FAILED,	/* what was collected could not be stored (a full disk) */
};

struct collect_pmu_info {
	char name[64];		/* libpfm4 name, e.g. "clx", "spr" */
	char desc[128];
	int generic_counters;	/* per logical CPU, as libpfm4 reports */
	int fixed_counters;
	bool forced;		/* LIBPFM_FORCE_PMU was set */
};

/* libpfm4 setup; safe to call more than once. */
int collect_pfm_init(char *err, size_t errlen);
void collect_pfm_fini(void);
/* The core PMU libpfm4 detected (or was forced to). -1 if none. */
int collect_detect_pmu(struct collect_pmu_info *info);
/* libpfm4's name of this CPU's core PMU ("skx") into OUT (N bytes), libpfm4
 * set up for it; -1 when libpfm4 cannot be set up or knows no core PMU. */
int collect_pmu_name(char *out, size_t n);
/* Whether this machine can count hardware events at all, whatever libpfm4
 * knows of its CPU: opens (and closes) the generic cycles event on gus
 * itself. COLLECT_OK, or COLLECT_NO_PMU / COLLECT_NO_PERMISSION with the
 * actionable message in ERR. A missing TMA table is only worth naming
 * where this says COLLECT_OK. */
enum collect_status collect_probe_hw_counters(char *err, size_t errlen);

/* Encode NAME: a libpfm4 event (perf software names such as task-clock
 * included) or a raw perf encoding (cpu/event=0x..,umask=0x../, rNNNN).
 * user_only counts user space only. */
int collect_encode(const char *name, bool user_only, struct perf_event_attr *attr,
		   char *err, size_t errlen);

struct collect_event {
	char *name;		/* the name the count set carries */
	struct perf_event_attr attr;
	int group;
	bool group_read;	/* leads a group read at once (PERF_FORMAT_GROUP): a
				 * PERF_METRICS group, or a SPIRE group whose T, W
				 * and metrics must share one enabled/running time */
};

struct collect_plan {
	struct collect_event *ev;
	size_t n;
	int n_groups;
	int budget;		/* general counters per group */
	char note[256];		/* e.g. NMI watchdog took a counter */
	/* gus stat -e: a group the kernel refuses (not supported here, a bad
	 * encoding) is left out and its events read as <not supported>, the
	 * others are counted, as perf stat does; only when every group is
	 * refused (or for lack of permission) does opening fail */
	bool each_alone;
};

void collect_plan_free(struct collect_plan *plan);
/* Groups for the events a TMA table needs: SLOTS-led PERF_METRICS group
 * first where the table has one, then general events packed into groups of
 * at most budget counters, fixed-counter events in the first group.
 * use_pfm: encode with libpfm4 names (the table is the detected CPU's);
 * otherwise the table's public encodings are used as they are. */
int collect_plan_tma(const struct td_table *t, const bool *needed, int budget, bool use_pfm,
		     bool user_only, struct collect_plan *plan, char *err, size_t errlen);
/* LIST split at the commas outside cpu/.../ terms, as perf's -e splits
 * it: *N items in a NULL-terminated array whose strings live in the same
 * allocation (one free). Empty items are kept ("") for the caller to
 * refuse. NULL on out of memory. */
char **collect_split_events(const char *list, size_t *n);
/* -e LIST: every event on its own, as perf stat -e does. */
int collect_plan_events(const char *list, bool user_only, struct collect_plan *plan,
			char *err, size_t errlen);
/* General counters usable per group on this machine: libpfm4's count less
 * one when the NMI watchdog holds a counter; note says why. */
int collect_counter_budget(const struct collect_pmu_info *pmu, char *note, size_t notelen);
/* a clock (task-clock, cpu-clock): perf prints its count in msec */
bool collect_event_is_clock(const struct collect_event *e);

struct collect_result {
	int wait_status;	/* as from waitpid */
	bool interrupted;	/* SIGINT/SIGTERM reached gus and was forwarded */
	double seconds;		/* wall time of the program */
	int exec_errno;		/* COLLECT_EXEC_FAILED: why exec failed */
};

/* Run argv once, counting the plan's events (group only_group, or all when
 * -1) for it and all its threads and children; counts are added to cs. */
enum collect_status collect_count(const struct collect_plan *plan, int only_group,
				  char *const argv[], struct td_countset *cs,
				  struct collect_result *res, char *err, size_t errlen);

/* ----------------------------------------------- interval counting ------ */
/* gus stat -I: the plan's groups (multiplexed) read every INTERVAL_MS
 * while the program runs (interval.c). */
struct collect_interval_sink {
	void *ctx;
	/* One interval: T is its end in seconds since the program started;
	 * CS holds the interval's counts in plan order (raw, enabled and
	 * running are this interval's increases; a group that did not run in
	 * it is there with running 0). Non-zero stops the run with
	 * COLLECT_ERROR (the program is killed). */
	int (*interval)(void *ctx, double t, const struct td_countset *cs);
};

/* Runs argv once counting PLAN (all groups) and calling SINK every
 * INTERVAL_MS milliseconds (>= 1) and once more at the end for the last,
 * partial interval; TOTAL (may be NULL) gets the whole run's counts.
 * Statuses and RES as collect_count's. */
enum collect_status collect_count_intervals(const struct collect_plan *plan, char *const argv[],
					    unsigned interval_ms, const struct collect_interval_sink *sink,
					    struct td_countset *total, struct collect_result *res, char *err,
					    size_t errlen);

/* SPIRE's groups: each group has the period event T and the work event W
 * followed by up to BUDGET metrics, so that every metric is counted with
 * its own T and W. TIME/WORK and EVENTS[i] are encodable names (libpfm4,
 * perf software names, raw encodings); NAMES[i] (NAMES may be NULL: the
 * encodable names) are what the count set carries, likewise TIME_NAME and
 * WORK_NAME. */
int collect_plan_spire(const char *time, const char *time_name, const char *work, const char *work_name,
		       const char *const *events, const char *const *names, size_t n, int budget,
		       bool user_only, struct collect_plan *plan, char *err, size_t errlen);

/* kernel.perf_event_paranoid, -1 when unreadable: permission errors name
 * it, since it decides what may be measured (count.c). */
int collect_perf_paranoid(void);

/* SMT (hyper-threading) active on this machine. */
bool collect_smt_active(void);

/* gus's own exit status for a program's wait status: its exit code, or
 * 128 + signal when a signal killed it (as perf and shells do). */
int collect_exit_code(int wait_status);

/* ------------------------------------------------------ Intel PT -------- */
/* Capture of Intel Processor Trace for a launched program (pt.c): the
 * intel_pt PMU opened per CPU with inherit (user space by default), the
 * data ring and the AUX area mapped by gus, sideband records and AUX data
 * written to gus.data as they arrive. */

struct gusdata;
struct gusdata_mmap;

enum collect_pt_mode {
	COLLECT_PT_FULL = 0,	/* every byte; the program waits never, data may be lost */
	COLLECT_PT_SNAPSHOT,	/* circular AUX area, copied on SIGUSR2 to gus and at exit */
};

struct collect_pt_filter {
	uint64_t start, size;	/* in the file's addresses (its ELF vaddr) */
	char *file;		/* the object the range belongs to; NULL: the program */
	bool stop;		/* a stop filter (tracing stops there) instead of a filter */
};

struct collect_pt_opts {
	enum collect_pt_mode mode;
	size_t data_pages;	/* data (sideband) ring, pages, power of two */
	size_t aux_pages;	/* AUX area, pages, power of two */
	bool kernel;		/* trace the kernel too (needs privileges) */
	bool branch_only;	/* no cycle/timing packets beyond what decoding needs */
	bool timing;		/* MTC and CYC packets too (fine timing), unless branch_only */
	const struct collect_pt_filter *filters;
	size_t nfilters;
	const char *sysfs_dir;	/* the PMU's directory; NULL: the real intel_pt (tests point elsewhere) */
	/* progress: called now and then with the bytes captured so far */
	void (*progress)(void *ctx, uint64_t bytes);
	void *progress_ctx;
};

struct collect_pt_info {
	int type;		/* perf_event_attr.type of intel_pt */
	/* config bit positions from .../intel_pt/format/, -1 when absent */
	int bit_tsc, bit_noretcomp, bit_branch, bit_psb_period_lo, bit_mtc, bit_cyc, bit_pt;
	int psb_period_width;
	int bit_mtc_period_lo, mtc_period_width;
	/* from .../caps/ (bit masks of the allowed period values) */
	unsigned caps_psb_periods, caps_addr_filters, caps_mtc_periods;
	bool caps_ip_filtering;
	bool caps_psb_cyc;	/* psb_period and cyc may be set */
	bool caps_mtc;
	unsigned max_nonturbo_ratio;	/* .../max_nonturbo_ratio, 0 when absent */
};

struct collect_pt_stats {
	uint64_t aux_bytes;	/* trace bytes stored */
	uint64_t aux_records, truncated, partial, collisions, overwritten;
	uint64_t lost_records;	/* PERF_RECORD_LOST: sideband records lost */
	uint64_t lost_samples;	/* LOST_SAMPLES */
	uint64_t mmaps, comms, switches;
	uint64_t snapshots;	/* snapshot mode: snapshots taken */
	int ncpus;
};

/* The perf type of the kernel's PMU named PMU (cpu_core, cpu_atom of a
 * hybrid CPU), from /sys/bus/event_source/devices/PMU/type (GUS_SYSFS_PMUS
 * names another directory, for tests); -1 when this machine has none. */
int collect_pmu_type(const char *pmu);

/* Reads the intel_pt PMU from SYSFS_DIR (NULL: /sys/bus/event_source/devices/intel_pt).
 * COLLECT_NO_PMU with an actionable message when the machine has none. */
enum collect_status collect_pt_probe(const char *sysfs_dir, struct collect_pt_info *info,
				     char *err, size_t errlen);
/* perf_event_attr.config for OPTS from the PMU's format bits */
uint64_t collect_pt_config(const struct collect_pt_info *info, const struct collect_pt_opts *opts);
/* The kernel's address filter string ("filter 0x1000/0x200@/bin/app,..."),
 * files resolved to absolute paths (PROGRAM searched in PATH as exec
 * does), addresses turned into file offsets through the file's executable
 * PT_LOAD, since the kernel matches filters to mappings by offset; -1 with
 * ERR on a bad filter, an unreadable file, a range outside the code or a
 * string longer than OUTLEN. */
int collect_pt_filter_string(const struct collect_pt_filter *f, size_t n, const char *program,
			     char *out, size_t outlen, char *err, size_t errlen);
/* Looks SYMBOL up in FILE's symbol table: its address and size; -1 with
 * ERR when absent. Given by the caller (cmd/ uses merge/'s ELF reader). */
typedef int (*collect_symbol_resolver)(void *ctx, const char *file, const char *symbol,
				       uint64_t *start, uint64_t *size, char *err, size_t errlen);
/* Parses one --pt-filter item: 'START-END[@FILE]', 'START/SIZE[@FILE]' or
 * 'SYMBOL[@FILE]' (FILE defaults to PROGRAM); a "stop " prefix makes a
 * stop filter. -1 with ERR naming the text and the problem. */
int collect_pt_filter_parse(const char *text, const char *program, collect_symbol_resolver resolve,
			    void *resolve_ctx, struct collect_pt_filter *f, char *err, size_t errlen);
void collect_pt_filter_free(struct collect_pt_filter *f);

/* Runs argv under Intel PT, writing sideband, AUX chunks, the vDSO image,
 * build-ids and the TSC conversion ("pt.time_shift"...) into D (keys and
 * event kinds: the comment at the top of pt.c). Snapshot mode copies the
 * trace on SIGUSR2 to gus and at exit. Stops before starting the program
 * with COLLECT_NO_PMU where there is no intel_pt, COLLECT_NO_PERMISSION
 * (perf_event_paranoid, locked memory), COLLECT_BAD_EVENT (config or
 * filters refused); "missing.pt" in D then says why. The program's exit
 * status in RES as with collect_count. */
enum collect_status collect_pt_record(char *const argv[], const struct collect_pt_opts *opts,
				      struct gusdata *d, struct collect_pt_stats *st,
				      struct collect_result *res, char *err, size_t errlen);

/* --------------------------------------------------------- the host --- */
/* Which CPU this is (cpuid.c): the raw CPUID leaves gus reads, and what
 * gus takes the CPU for. A hypervisor may report another model number;
 * the features it cannot hide (AMX, AVX512_FP16, ...) then name the
 * class. */
struct collect_cpuid {
	unsigned max_leaf;
	char vendor[13];
	char brand[49];
	unsigned leaf1[4], leaf7[4], leaf7_1[4];	/* EAX, EBX, ECX, EDX */
};

struct collect_host_cpu {
	char vendor[13];
	char brand[64];
	unsigned family, model, stepping;	/* as /proc/cpuinfo shows them */
	bool avx512f, avx512_vbmi2, gfni, avx512_vnni, avx512_fp16, amx_tile, amx_fp16, hybrid;
	char name[64];		/* "Sapphire Rapids", "Sapphire Rapids class", "AMD family 26 (Zen 5)" */
	char tma[16];		/* gus's TMA table for it, "" none */
	char core[8];		/* the core model that describes it (skx, icx, spr, gnr, zen4, zen5), "" none */
	char why[256];		/* how gus knows: "CPUID family 6, model 143", ... */
};

/* This machine's leaves (zero where there is no CPUID) */
void collect_cpuid_read(struct collect_cpuid *c);
/* What C's CPU is */
void collect_host_identify(const struct collect_cpuid *c, struct collect_host_cpu *h);
/* The host: collect_cpuid_read and collect_host_identify, or what
 * $GUS_CPU names (skx, clx, icx, spr, emr, gnr, zen4, zen5) */
void collect_host_cpu(struct collect_host_cpu *h);
/* Of AVAILABLE core model ids, WANT itself or the nearest in its
 * lineage (Intel's servers skx, icx, spr, gnr; AMD's zen4, zen5; on a tie
 * the newer; an AMD core without AMD models takes spr's place); NULL
 * when none is known */
const char *collect_nearest_core(const char *want, const char *const *available, size_t n);

/* ------------------------------------ standard streams of a second run --- */
/* A program that gus runs twice (gus record without Intel PT) reads the
 * same standard input both times, and the second run's output is kept off
 * the terminal (stdstreams.c). */

/* What a launched program gets as its standard streams instead of gus's
 * own: a descriptor of the caller's each (it stays the caller's: the
 * program gets a copy on 0, 1 or 2), or -1 for gus's own. */
struct collect_stdio {
	int in, out, err;
};

enum collect_input_kind {
	COLLECT_INPUT_SHARED,	/* closed, /dev/null, a directory, write-only: both runs get it as it is */
	COLLECT_INPUT_FILE,	/* a regular file: run 2 reads it again from where run 1 started */
	COLLECT_INPUT_COPY,	/* a pipe, FIFO, socket or device: gus feeds run 1 and keeps a copy for run 2 */
	COLLECT_INPUT_TERMINAL,	/* run 1 reads the terminal; run 2 gets /dev/null */
};

struct collect_feeder;

/* gus's standard input (descriptor 0), kept for two runs. COPY: a thread
 * of gus reads it and writes every piece first to a copy, then into a pipe
 * that is run 1's standard input; it stops at the end of the input, when
 * the program stops reading (closed its standard input or ended: EPIPE,
 * never SIGPIPE), or when run 1 is over (collect_input_first_done: the
 * rest is left unread, as the program left it). The copy therefore holds
 * at least what run 1 read. It streams (one buffer of 64 KiB) into a file
 * gus creates in a directory of its own (mode 0700, under $TMPDIR or
 * /tmp), and both are removed at once: the copy has no name while gus
 * holds it, and disappears with gus whatever way it ends. */
struct collect_input {
	enum collect_input_kind kind;
	uint64_t start;		/* FILE: the offset run 1 started at */
	bool reopened;		/* FILE: run 2 reads its own open of the file (else the shared offset is set back) */
	/* COPY, after collect_input_first_done */
	uint64_t copied;	/* bytes in the copy */
	bool at_end;		/* gus's input was read to its end */
	bool stopped_reading;	/* the program stopped reading before the end */
	int copy_errno;		/* the copy could not be written past COPIED (run 2 reads less) */
	int read_errno;		/* reading gus's input failed */
	/* internal */
	int replay_fd, feed_fd, copy_fd;
	struct collect_feeder *feeder;
};

/* Classifies descriptor 0 and, for COPY, creates the copy and starts the
 * feeding. -1 with ERR when the copy cannot be made (IN is then SHARED:
 * run 1 reads gus's input directly). */
int collect_input_prepare(struct collect_input *in, char *err, size_t errlen);
/* Run 1's standard input: the pipe for COPY, else -1 (gus's own). */
int collect_input_first_fd(const struct collect_input *in);
/* Run 1 is over: the feeding stops (COPY), IN says what the copy holds. */
void collect_input_first_done(struct collect_input *in);
/* Run 2's standard input, read from its start: -1 (gus's own; FILE set
 * back to START when it could not be reopened) or a descriptor of IN's.
 * -2 with ERR when FILE cannot be set back. */
int collect_input_replay_fd(struct collect_input *in, char *err, size_t errlen);
/* Stops the feeding if running; closes everything IN holds. Safe on an
 * input zeroed by collect_input_init or already closed. */
void collect_input_init(struct collect_input *in);
void collect_input_close(struct collect_input *in);

struct collect_capturer;

/* One standard stream of a run: the first KEPT bytes the program wrote,
 * TOTAL in all. */
struct collect_output_stream {
	unsigned char *data;
	size_t kept;
	uint64_t total;
	int read_errno;		/* reading it failed: TOTAL counts what was read */
};

/* A run's standard output and error, read by a thread of gus while the
 * program runs (so that it never blocks on a full pipe): the first LIMIT
 * bytes of each kept in memory, the rest counted and dropped. */
struct collect_output {
	struct collect_stdio stdio;	/* for the run: out, err the pipes' write ends, in -1 */
	struct collect_output_stream stream[2];	/* stdout, stderr: after collect_output_finish */
	struct collect_capturer *cap;
};

int collect_output_start(struct collect_output *o, size_t limit, char *err, size_t errlen);
/* The run is over: what is left in the pipes is read (bounded: a process
 * the run left behind may write on), and the thread ends. */
void collect_output_finish(struct collect_output *o);
/* Safe on a zeroed output; frees the streams too. */
void collect_output_free(struct collect_output *o);

/* ----------------------------------------------------- QEMU tracer ------ */
/* The program run under qemu-x86_64 with gus's TCG plugin, which streams
 * the executed instructions (and their data addresses) to gus over a pipe
 * (qemu.c; the plugin is qemu_plugin.c). With follow_children, forked
 * children connect to a Unix socket of gus's, and programs exec'd through
 * the guest-side shim gus-qemu-exec.so (LD_PRELOAD in the guest) run under
 * qemu-x86_64 with the plugin too; static programs, and programs that run
 * without the shim's LD_PRELOAD, are not followed past their execs. */

#include "stream.h"

/* An object whose code is traced: a file, identified when it is mapped by
 * its device and inode (stat), and ranges of FILE OFFSETS [start, end) in it. */
struct collect_qemu_object {
	const char *path;
	const struct stream_range *ranges;	/* file offsets */
	size_t nranges;
};

/* --------------------------------------------- the native stepper ---- */
/* Regions' streams from the program running natively, single-stepped
 * with ptrace (step.c): for code the QEMU tracer cannot run (AVX-512 and
 * other extensions QEMU 7.2's CPU lacks, collect_qemu_lacks; code chosen
 * for the CPU at run time that QEMU's run never reaches). Each region is
 * [LINK_START, LINK_END) of OBJECT, placed by FILE_START (the file offset
 * of LINK_START) in the process's mappings once it has them. A window of
 * a region opens at each entry into it (PER_LEVEL 0: a breakpoint at its
 * start), or where the stepper's own sampling finds a thread in it: each
 * thread is stopped once per SAMPLE_CPU_S seconds of its CPU time (0: 1
 * ms), so that the hits fall in proportion to the time the run spends in
 * the region. Windows open at the first PER_LEVEL hits, then PER_LEVEL at
 * every 2nd hit, PER_LEVEL at every 4th, ... (window J stands for
 * 2^(J / PER_LEVEL) hits, as the QEMU tracer's windows stand for records),
 * MAX_WINDOWS at most (0: no limit): spread over the whole run, whatever
 * its length. A window holds up to WINDOW
 * records (0: 20000) of that thread; calls out of the region run
 * natively to their return; control leaving the region otherwise ends
 * it, or with SPAN_ENTRIES pauses it until the thread's next entry.
 * After MAX_INSNS records in all no window opens and the program runs on
 * untraced. The program's threads are followed (each its own windows,
 * the others running on meanwhile); its forked children are not (the
 * breakpoints are taken out of their copy of the memory). */
struct collect_step_region {
	const char *object;
	uint64_t link_start, link_end, file_start;
	unsigned per_level;
	uint64_t max_windows;
	uint32_t tag_range;	/* TAG_WINDOWS: STREAM_WINDOW_TAG(TAG_RANGE, window) */
};
struct collect_step_region_stats {
	uint64_t insns, windows;
	uint64_t hits;		/* the sampling found a thread in it */
	bool placed;		/* the process mapped it */
};
struct collect_step_opts {
	const struct collect_step_region *regions;
	size_t nregions;
	struct collect_step_region_stats *region_stats;	/* NREGIONS of them, or NULL */
	bool data_addresses;
	uint64_t max_insns;
	uint64_t window;
	bool span_entries;
	double sample_cpu_s;
	/* each window's first record carries STREAM_WINDOW and its tag */
	bool tag_windows;
	/* records carry STREAM_THREAD(PROC, the thread in creation order) */
	uint16_t proc;
	stream_sink sink;
	void *ctx;
	/* region REGION placed: the mapping holding it ([START, START+LEN)
	 * from file offset PGOFF) and its runtime - link-time address; before
	 * its first record */
	void (*placed)(void *ctx, size_t region, uint64_t bias, uint64_t start, uint64_t len, uint64_t pgoff);
	/* the program's standard streams; NULL: gus's own */
	const struct collect_stdio *stdio;
};
struct collect_step_stats {
	uint64_t insns, steps, windows, entries;
	uint64_t traps;		/* breakpoint hits, windows' or passed over */
	uint64_t vsib;		/* records without data addresses: a gather's or scatter's vector registers unread */
	uint64_t threads;	/* threads of the program followed */
	uint64_t children;	/* processes it forked, not followed */
	bool truncated;		/* MAX_INSNS reached */
	bool never_reached;	/* no region's object was ever mapped where the region is */
	double seconds;
	double held_seconds;	/* the program's threads held by the stepping, in all */
	uint64_t samples;	/* the stepper's sampling stops */
	double cpu_seconds;	/* gus's and the program's CPU time (user + system) */
};
enum collect_status collect_step_run(char *const argv[], const struct collect_step_opts *o,
				     struct collect_step_stats *st, struct collect_result *res, char *err,
				     size_t errlen);

/* Whether QEMU 7.2's CPU (qemu-x86_64's default, TCG) lacks an
 * instruction of the LEN bytes of code at ADDR: decoded with Zydis, an
 * instruction of an ISA extension it does not offer (AVX-512, AMX, SHA,
 * GFNI, RDSEED, ...). True with WHY naming the extension, the first such
 * instruction and its address. */
bool collect_qemu_lacks(const uint8_t *code, size_t len, uint64_t addr, char *why, size_t whylen);

struct collect_qemu_opts {
	const char *qemu;	/* NULL: $GUS_QEMU, else qemu-x86_64 from PATH */
	const char *plugin;	/* NULL: $GUS_QEMU_PLUGIN, the build tree, or the installed one */
	/* ranges in the program's link-time addresses (ELF st_value); empty:
	 * all code. Code outside them runs uninstrumented. */
	const struct stream_range *ranges;
	size_t nranges;
	bool data_addresses;	/* record the data address of every access */
	bool block_counts;	/* count executions of every translated block */
	uint64_t max_insns;	/* stop streaming after this many records (0: no limit); the program runs on */
	/* a non-zero return from SINK kills the program and ends the run with
	 * COLLECT_ERROR naming the consumer */
	stream_sink sink;
	void *ctx;
	/* the program's load bias, known before the first record (may be NULL) */
	void (*started)(void *ctx, uint64_t load_bias);
	/* block counts at exit: runtime address, instructions, executions */
	void (*block)(void *ctx, uint64_t addr, uint32_t ninsns, uint64_t count);
	/* called about every 200 ms while the program runs (progress), from
	 * the thread that calls SINK; NULL: none */
	void (*tick)(void *ctx);
	/* traced objects (at most 256); used instead of ranges when nobjects > 0 */
	const struct collect_qemu_object *objects;
	size_t nobjects;
	/* object OBJECT (index into objects) is mapped in traced process PROC
	 * (0: the program, 1, 2...: children and exec'd programs in the order
	 * they connect) at runtime [start, start+len) from file offset pgoff:
	 * called before any record inside that mapping is passed to sink */
	void (*mapped)(void *ctx, size_t object, unsigned proc, uint64_t start, uint64_t len, uint64_t pgoff);
	/* forked children and exec'd programs are traced too (exec'd ones
	 * with objects only: link-time ranges describe the program alone).
	 * Records of all processes go to the same sink, one process's thread
	 * per batch; the first record after a batch of another process or
	 * thread carries STREAM_ENTRY. The run ends when the program and all
	 * its descendants have ended: gus is their subreaper meanwhile, and
	 * reaps whatever child its process has (run nothing else beside). */
	bool follow_children;
	/* windows instead of the whole stream: each thread's traced code is
	 * sent in windows of about WINDOW_RECORDS records, WINDOWS_PER_LEVEL
	 * of them back to back, then as many at twice the stride, and so on,
	 * so that the windows cover the whole run (the first record of each
	 * carries STREAM_WINDOW; every record says its thread). 0: every
	 * record. */
	uint64_t window_records;
	unsigned windows_per_level;	/* 0: 32 */
	/* with windows: a range's code runs cheaply instrumented (counted,
	 * no data addresses, no block sequence) while each thread's next
	 * window of it is more than WINDOW_GAP records away; the records are
	 * the same either way. 0: the plugin's default (65536 records, and
	 * far in time: window_pace_ns); UINT64_MAX: always fully
	 * instrumented. */
	uint64_t window_gap;
	/* with windows and the default gap: how much of the thread's CPU
	 * time the next window must be away for its range to go cheap
	 * (nanoseconds; 0: the plugin's default, 10 ms) */
	uint64_t window_pace_ns;
	/* and where it is 4 times this many records away too, cheap code is
	 * a bare count, switched back this many records before the window by
	 * the plugin's watcher thread (0: the plugin's default, 4 M), on
	 * time or late (late_windows), the records otherwise the same */
	uint64_t window_bare_records;
	/* with windows and the default gap: every window where its schedule
	 * says, none opened early in another range's switch to full code,
	 * and the place in each range counted, never reckoned from the time
	 * (the plugin's pull=off and dark=off: what a comparison with a run
	 * fully instrumented throughout needs); false: the ranges' windows
	 * batched, and code far from them dark */
	bool window_exact;
	/* the place in each range counted, never reckoned from the time (the
	 * plugin's dark=off), the windows batched all the same */
	bool window_counted;
	/* the program's standard streams; NULL: gus's own (QEMU's messages
	 * go where the program's standard error goes) */
	const struct collect_stdio *stdio;
};

struct collect_qemu_stats {
	uint64_t insns;		/* records streamed */
	unsigned procs;		/* processes that sent a stream (the program's included) */
	uint64_t load_bias;	/* runtime address - link-time address of the program */
	uint64_t mem_dropped;	/* data accesses beyond STREAM_MAX_MEM of one instruction */
	bool truncated;		/* max_insns reached */
	/* window_gap: how many times the tracer switched instrumentation
	 * (each one a flush of QEMU's translations), over all processes */
	uint64_t mode_switches;
	/* windows that opened after their scheduled start, the switch to
	 * full code having come late (the watcher's timing), all processes */
	uint64_t late_windows;
	uint64_t bare_arms;	/* switches back from bare (or dark) code (the watcher's) */
	/* switches that made a range's code dark (nothing in it, its place
	 * reckoned from the thread's CPU time: window_exact false) */
	uint64_t dark_switches;
	/* windows opened early, in another range's switch to full code (the
	 * ranges' windows batched: window_exact false), all processes */
	uint64_t pulled_windows;
	/* follow_children: why programs the traced ones exec were not
	 * followed (no gus-qemu-exec.so beside the plugin), "" when they were */
	char exec_note[384];
};

/* COLLECT_EXEC_FAILED when qemu-x86_64 is missing (the message names the
 * package), COLLECT_ERROR when the program is neither an x86-64 ELF nor,
 * with objects, a #! script (whose interpreter runs as the kernel would
 * run it); the program's exit status in RES as with collect_count. */
enum collect_status collect_qemu_run(char *const argv[], const struct collect_qemu_opts *o,
				     struct collect_qemu_stats *st, struct collect_result *res,
				     char *err, size_t errlen);

/* ------------------------------------------------------- sampling ------ */
/* Sampling a launched program (sample.c): a sampling event opened on
 * every online CPU with inherit, so the program's threads and children are
 * sampled; one data ring per CPU carrying the samples and the sideband
 * (MMAP2, COMM, FORK, EXIT, LOST, THROTTLE) that maps their addresses.
 * The TMA count set of a plan can be counted in the same run. */

struct collect_sample {
	uint64_t time;		/* perf clock, ns */
	int cpu, pid, tid;
	uint64_t ip;
	uint64_t period;	/* event units this sample stands for (ns for cpu-clock) */
	bool user;		/* the ip is in user space */
	/* -g: the call chain, innermost first, ip first, without the kernel's
	 * PERF_CONTEXT_* markers; valid during the sink call only */
	const uint64_t *callchain;
	size_t ncallchain;
	/* --call-graph dwarf (collect_sample_opts.dwarf_stack): the user
	 * registers (REGS_ABI the kernel's PERF_SAMPLE_REGS_ABI_*, 0 without;
	 * NREGS values of REGS_MASK's registers, lowest number first) and the
	 * NSTACK bytes of user stack from the stack pointer up; valid during
	 * the sink call only */
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	size_t nregs;
	const uint8_t *stack;
	size_t nstack;
	/* a read group's sample (collect_sample_opts.read_groups) when NREAD
	 * is not 0: the group READ_GROUP whose leader took it, the deltas of
	 * its NREAD events (in the plan's order) since the thread's previous
	 * sample of that group on that CPU, and of the group's enabled and
	 * running times (ns); valid during the sink call only. Such a sample
	 * stands for its deltas: the time samples are the sampling event's
	 * (NREAD 0) */
	int read_group;
	size_t nread;
	const double *read;
	double read_enabled, read_running;
};

/* The user registers sampled with --call-graph dwarf: those perf samples
 * for DWARF unwinding on x86-64 (PERF_REG_X86_*: all but the segment
 * registers DS, ES, FS and GS) */
#define COLLECT_DWARF_REGS_MASK 0xff0fffULL

/* Where the records go; non-zero from a callback stops the run with
 * COLLECT_ERROR (the program is killed). Any callback may be NULL. */
struct collect_sample_sink {
	void *ctx;
	int (*sample)(void *ctx, const struct collect_sample *s);
	int (*mmap)(void *ctx, const struct gusdata_mmap *m);
	int (*comm)(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec);
	/* "lost" (a = records lost), "throttle", "unthrottle", "fork", "exit" */
	int (*event)(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a,
		     uint64_t b);
};

struct collect_sample_opts {
	/* NULL: precise "cycles" where the machine has a PMU, else "cpu-clock";
	 * otherwise "cycles" (no fallback) or "cpu-clock" */
	const char *event;
	unsigned freq;		/* samples per second per CPU (default 4000 when 0) */
	bool callchain;		/* -g: PERF_SAMPLE_CALLCHAIN */
	/* --call-graph dwarf: DWARF_STACK bytes (a multiple of 8, at most
	 * 65528) of user stack and the user registers with each sample, to be
	 * unwound later (perf's --call-graph dwarf); the call chain is then
	 * the kernel's alone. 0: frame pointers, as CALLCHAIN says */
	unsigned dwarf_stack;
	bool user_only;
	size_t data_pages;	/* ring size per CPU in pages, power of two (0: 128) */
	/* the program's standard streams; NULL: gus's own */
	const struct collect_stdio *stdio;
	/* progress: called now and then with the samples so far */
	void (*progress)(void *ctx, uint64_t samples);
	void *progress_ctx;
	/* Counter groups read at every sample (per-region Top-Down): each
	 * group of READ_GROUPS (collect_plan_tma's groups) is opened on every
	 * CPU led by an event of the sampling kind (cycles, or cpu-clock where
	 * the machine has no PMU; a PERF_METRICS group's own slots), which
	 * samples at FREQ with PERF_SAMPLE_READ of the group into the
	 * sampling event's rings; those samples carry the group's deltas, and the
	 * groups' totals at the end go into the count set CS (PLAN, when it
	 * is READ_GROUPS itself, is then not counted apart). Where the kernel refuses (no PMU for the events, a
	 * kernel before 6.12 refusing PERF_SAMPLE_READ with inherit), the run
	 * samples and counts as without: *READ_STATUS says why (COLLECT_OK
	 * when read), READ_WHY has the message. */
	const struct collect_plan *read_groups;
	enum collect_status *read_status;
	char *read_why;
	size_t read_why_len;
	/* Intel PT of the same run into PT_DATA (the keys of pt.c), when PT
	 * is set: samples, counts and trace from one run of the program.
	 * When PT cannot be set up the run goes on sampling alone:
	 * *PT_STATUS says why (COLLECT_OK when traced, COLLECT_WRITE_FAILED
	 * when storing the trace failed), PT_WHY has the message. */
	const struct collect_pt_opts *pt;
	struct gusdata *pt_data;
	struct collect_pt_stats *pt_stats;
	enum collect_status *pt_status;
	char *pt_why;
	size_t pt_why_len;
};

struct collect_sample_stats {
	char event[64];		/* what was sampled: "cycles:pp", "cpu-clock" */
	char fallback[256];	/* why not cycles (the open error), "" when cycles */
	uint64_t samples, lost, throttled;
	uint64_t read_samples;	/* of the read groups' leaders (not in SAMPLES) */
	int ncpus;
	/* user space only: asked, or because the kernel refused kernel
	 * samples (perf_event_paranoid); the time in the kernel is then not
	 * in the samples */
	bool user_only;
};

/* Runs argv once, sampling it, and counting PLAN's events (all groups,
 * multiplexed) in the same run when PLAN is not NULL: counts are added to
 * CS. When the counters are refused (no PMU, permissions) the run goes on
 * with sampling alone: *COUNT_STATUS says why (COLLECT_OK when counted)
 * and COUNT_WHY has the message. The program's exit status in RES as with
 * collect_count; COLLECT_EXEC_FAILED when it cannot be run. */
enum collect_status collect_sample_run(char *const argv[], const struct collect_sample_opts *o,
				       const struct collect_plan *plan, struct td_countset *cs,
				       enum collect_status *count_status, char *count_why, size_t why_len,
				       const struct collect_sample_sink *sink, struct collect_sample_stats *st,
				       struct collect_result *res, char *err, size_t errlen);

/* The kernel's functions (/proc/kallsyms), to name the kernel frames of
 * samples and call chains: text and weak symbols, one per address (the
 * best named of its aliases, as perf chooses), sorted, each up to the
 * next (the last: one page). */
struct collect_ksym {
	uint64_t start, end;
	const char *name;	/* "clear_page_erms" */
	const char *module;	/* "" for the kernel image, else its module ("kvm") */
	bool global;		/* T or W, not t or w */
};
struct collect_kallsyms;
/* PATH (/proc/kallsyms, or a copy of it); -1 with ERR naming PATH and the
 * problem: unreadable, no functions, or every address 0 (kptr_restrict) */
int collect_kallsyms_read(const char *path, struct collect_kallsyms **out, char *err, size_t errlen);
/* the same from TEXT (LEN bytes, malloc'd with a byte after them, which
 * is overwritten), which it takes over, freed with the result or on
 * failure */
int collect_kallsyms_parse(char *text, size_t len, struct collect_kallsyms **out, char *err, size_t errlen);
/* the function ADDR falls in, NULL when none */
const struct collect_ksym *collect_kallsyms_find(const struct collect_kallsyms *k, uint64_t addr);
size_t collect_kallsyms_count(const struct collect_kallsyms *k);
void collect_kallsyms_free(struct collect_kallsyms *k);
/* collect_kallsyms_read of PATH on a thread of its own at the lowest
 * priority (nice 19), started before the text is known to be wanted (gus
 * record: as run 1 starts, beside the program), so that its making (the
 * kernel's, a page a read, 30-50 ms for 120 000 lines) and its parsing
 * (some 35 ms) take what CPU time the program leaves; NULL when no thread
 * could be started (the caller then reads it itself).
 * collect_kallsyms_wait joins it and gives collect_kallsyms_read's
 * result; collect_kallsyms_async_free stops a read still going (at its
 * next page), joins and frees what was not taken (NULL: nothing). */
struct collect_kallsyms_async;
struct collect_kallsyms_async *collect_kallsyms_read_async(const char *path);
int collect_kallsyms_wait(struct collect_kallsyms_async *a, struct collect_kallsyms **out, char *err,
			  size_t errlen);
void collect_kallsyms_async_free(struct collect_kallsyms_async *a);

#endif
