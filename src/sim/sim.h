/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim: the resource-centric out-of-order core model (Algorithm 1 of
 * Pompougnac et al. 2024), its machine models and the sensitivity driver.
 * It decodes x86-64 with Zydis and never touches the operating system
 * beyond reading machine files. */
#ifndef GUS_SIM_H
#define GUS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stream.h"

#define SIM_MAX_RES 48

/* Resources that every machine has, after its port groups. */
enum sim_res_kind {
	SIM_RK_PORTS,		/* a port group (p0156, p23, ...) */
	SIM_RK_FRONTEND,
	SIM_RK_INST_LAT,
	SIM_RK_INST_WINDOW,
	SIM_RK_L2_THR,
	SIM_RK_L3_THR,
	SIM_RK_MEM_THR,
	SIM_RK_DIV,
	SIM_RK_BRANCH,
};

struct sim_machine;

struct sim_machine *sim_machine_load(const char *path, char *err, size_t errlen);
/* the same from an open stream; PATH names it in errors */
struct sim_machine *sim_machine_read(FILE *fp, const char *path, char *err, size_t errlen);
/* Finds NAME among the machine or alias names of the .mm files of DIR. */
struct sim_machine *sim_machine_find(const char *dir, const char *name, char *err, size_t errlen);
void sim_machine_free(struct sim_machine *m);
const char *sim_machine_name(const struct sim_machine *m);
/* A digest of the model's statements (its base's too; comments left out):
 * two files that say the same give the same digest */
uint64_t sim_machine_digest(const struct sim_machine *m);
const char *sim_machine_describe(const struct sim_machine *m);
unsigned sim_machine_width(const struct sim_machine *m);	/* issue slots per cycle */
/* the Top-Down hierarchy the simulated breakdown is told in: Intel's
 * (issue slots: Memory Bound, Core Bound) or AMD's pipeline utilization
 * (dispatch slots: Backend Bound Memory and CPU, SMT Contention) */
enum sim_topdown { SIM_TOPDOWN_INTEL, SIM_TOPDOWN_AMD };
enum sim_topdown sim_machine_topdown(const struct sim_machine *m);
/* extra issue slots of an un-laminated load-op (0: the core keeps them fused) */
double sim_machine_unlaminated_slots(const struct sim_machine *m);
unsigned sim_nres(const struct sim_machine *m);
const char *sim_res_name(const struct sim_machine *m, unsigned r);
enum sim_res_kind sim_res_kind(const struct sim_machine *m, unsigned r);
/* capacity per cycle of a throughput resource (ports, FRONTEND, DIV: 1/gap),
 * window entries for INST_WINDOW, 1 for INST_LAT and BRANCH */
double sim_res_capacity(const struct sim_machine *m, unsigned r);
int sim_res_find(const struct sim_machine *m, const char *name);	/* -1 if none */

/* ------------------------------------------------------------ code ----- */

/* A decoded instruction bound to a machine: what the model needs. */
#define SIM_MAX_READS 12
#define SIM_MAX_WRITES 6
#define SIM_MAX_USES 240
#define SIM_MAX_LOAD_USES 96

struct sim_memop {
	int8_t base, index;	/* shadow register ids, -1 if none */
	uint8_t scale;
	bool read, write;
	uint16_t bytes;		/* access width */
	/* the elements a gather or scatter (a vector index) reaches, each
	 * its own line; 1 otherwise */
	uint8_t elements;
	int64_t disp;
};

struct sim_insn {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[15];
	char text[96];		/* Intel-syntax disassembly */
	char key[48];		/* form key looked up in the machine */
	/* dependencies */
	uint8_t nreads, nwrites;
	uint8_t reads[SIM_MAX_READS];	/* shadow register ids read by the operation */
	uint8_t writes[SIM_MAX_WRITES];
	uint8_t nmem;
	struct sim_memop mem[2];
	uint8_t mem_reads, mem_writes;	/* of MEM, those read and those written */
	/* resources: exec[] for the operation, load[] for the load µops */
	uint8_t nexec, nload;
	uint8_t exec[SIM_MAX_USES];	/* resource index per use, repeated per µop */
	uint8_t load[SIM_MAX_LOAD_USES];
	uint8_t fused;		/* fused-domain µops (front end, window) */
	uint8_t uops;		/* unfused µops that execute */
	uint8_t math_uops;	/* of them, neither loads nor stores: the math scheduler's */
	float lat;		/* operation latency (without the load) */
	float xin;		/* cycles more for a vector input from another kind of operation (the form's xin=) */
	bool other_unit;	/* its vector results are another kind's to an xin= consumer (an operation's
				 * or a load's, not a zero idiom's or an xin= form's; an eliminated move passes
				 * its source's on) */
	float div;		/* divider cycles */
	uint8_t load_lat_class;	/* 0 GPR, 1 xmm, 2 ymm, 3 zmm */
	bool vector;		/* has xmm/ymm/zmm operands */
	/* control flow */
	uint8_t branch;		/* enum sim_branch_kind of sim_internal.h */
	bool has_target;
	uint64_t target;	/* direct branch target */
	/* model flags */
	bool zero_idiom, eliminated, fusible, fuse_head, fused_jcc, serial;
	uint8_t head_len;	/* of a fused jcc: the bytes of its head, just before it */
	uint8_t vec_writes;	/* vector registers it takes from the register file at rename */
	bool folded;		/* executed at rename (a form's rename attribute) */
	/* a load-op whose indexed address Intel cores un-laminate at
	 * allocation: VEX/EVEX forms, and legacy ones other than a
	 * two-operand update of a register (add rax, [rdi+rcx] stays fused;
	 * cmp rax, [rdi+rcx] and vaddps xmm0, xmm1, [rdi+rcx] do not) */
	bool unlaminated;
	bool approx;		/* matched only a category rule */
	/* a pointer step: after it, GPR PTR_DST = GPR PTR_SRC + PTR_ADD
	 * (add/sub/inc/dec, lea [reg+disp], mov reg, reg), or = PTR_ADD when
	 * PTR_SRC is -2 (lea [rip+disp], mov reg, imm); PTR_DST -1: none */
	int8_t ptr_dst, ptr_src;
	uint64_t ptr_add;	/* modulo 2^64: a pointer's steps wrap */
	/* lea dst, [src + SRC2 * SCALE + add]: plus a second register (-1:
	 * none); its region is SRC's, or SRC2's when SRC holds a known value */
	int8_t ptr_src2;
	uint8_t ptr_scale;
	const char *ports;	/* "p0156 p23" style, for reports (owned by machine) */
};

struct sim_code;

struct sim_code *sim_code_new(const struct sim_machine *m);
/* the machine CODE was decoded for */
const struct sim_machine *sim_code_machine(const struct sim_code *c);
void sim_code_free(struct sim_code *c);
/* Decodes the instruction at ADDR from BYTES (AVAIL bytes readable) and
 * returns its index, the existing index when ADDR was decoded before, or
 * -1 with a message in ERR when the bytes are not a valid instruction. */
long sim_code_add(struct sim_code *c, uint64_t addr, const uint8_t *bytes, size_t avail, char *err,
		  size_t errlen);
/* An abstract instruction without register or memory operands, using
 * the µops UOPS ("p06", "p1+p23") of the code's machine: for worked
 * examples and tests. */
long sim_code_add_abstract(struct sim_code *c, uint64_t addr, const char *text, const char *uops, double lat,
			   char *err, size_t errlen);
long sim_code_lookup(const struct sim_code *c, uint64_t addr);
size_t sim_code_count(const struct sim_code *c);
const struct sim_insn *sim_code_insn(const struct sim_code *c, size_t i);
/* instructions that only a category rule modelled */
size_t sim_code_approx(const struct sim_code *c);
/* Each decoded instruction's text written again as at its address minus
 * BIAS: a stream's code lives where the traced run mapped it (QEMU's
 * guest addresses, a PT run's), and its branch targets and rip-relative
 * operands then read as the object's link-time addresses, as objdump
 * shows them, beside the link-time address of the instruction itself. */
void sim_code_retext(struct sim_code *c, uint64_t bias);

/* ---------------------------------------------------------- stream ---- */

/* One record of the instruction stream: a retired instruction. */
struct sim_rec {
	uint32_t insn;		/* index in the sim_code */
	uint8_t taken;		/* branch outcome */
	uint8_t nmem;		/* data addresses known: 0 (PT, static) or insn's nmem */
	uint64_t target;	/* where control went after a taken branch */
	uint64_t mem[2];	/* data addresses, in the order of sim_insn.mem */
};

/* A configuration: one multiplier per resource (1 = nominal, 1.15 = 15 %
 * more capacity, or 15 % shorter latencies for INST_LAT, 15 % fewer
 * mispredictions for BRANCH). */
struct sim_config {
	double w[SIM_MAX_RES];
};

struct sim_stats {
	double cycles;		/* until the last instruction retired */
	double mark_cycles;	/* at sim_session_mark */
	/* cycles in which the focus's instructions retired (each instruction
	 * is charged the time from the previous retirement to its own), and
	 * their value at the mark */
	double focus_cycles, mark_focus_cycles;
	uint64_t insns, mark_insns, fused, uops;
	uint64_t mark_fused, mark_uops;	/* at the mark */
	/* simulated Top-Down, in issue slots */
	double slots, retiring, frontend, bad_spec, backend_mem, backend_core;
	double unlaminated_slots;	/* allocation slots beyond the fused µops */
	uint64_t mispredicts;
	/* the cycles nothing retired while the oldest instruction waited
	 * for a load served by L1, L2, L3 or memory (its deepest load; the
	 * idle cycles since the previous retirement, where it retired as it
	 * finished and ran as its data came): where the time went by level,
	 * as counters' stall cycles say it, not how many accesses each level
	 * served */
	double mem_stall[4];
};

/* What the stream did, independent of the configuration (decided once). */
struct sim_events {
	uint64_t loads, stores;
	uint64_t level_hits[4];	/* accesses served by L1, L2, L3, memory */
	uint64_t cond_branches, cond_miss, indirect, indirect_miss, btb_miss, mispredicts;
	/* every branch (conditional, direct, indirect, return), and the
	 * redirects that were neither a conditional nor an indirect branch's
	 * wrong guess: taken branches whose target the BTB lacked */
	uint64_t branches, target_misses;
	uint64_t *insn_count;	/* executions per sim_code instruction */
	/* configuration 0's cycles per sim_code instruction: each retirement
	 * charged the time since the one before it (where a run's time goes,
	 * as a sampling profiler would see it retire); NINSN entries too */
	double *insn_cycles;
	size_t ninsn;
};

struct sim_session;

/* Many configurations simulated from one pass over the stream: the
 * stream is decoded, its caches and predictor run once, and the timing
 * models of the configurations run on THREADS threads. */
struct sim_session *sim_session_new(const struct sim_machine *m, const struct sim_code *code,
				    const struct sim_config *cfg, size_t ncfg, unsigned threads,
				    char *err, size_t errlen);
void sim_session_feed(struct sim_session *s, const struct sim_rec *recs, size_t n);
/* the branch predictor after a pass over RECS: a hot region runs again
 * and again, and the hardware learns the patterns of its branches over
 * the calls (as far as its tables hold them), which a short stream would
 * not teach; the caches stay cold, as a stream touching its data once
 * (a walk over more than they hold) must miss */
void sim_session_warm(struct sim_session *s, const struct sim_rec *recs, size_t n);
/* where the data of accesses without addresses lives (0 L1, 1 L2, 2 L3,
 * 3 memory; default 0): above L1 they are placed by their pointers' steps
 * and run through the caches, what the L1 lacks coming from LEVEL */
void sim_session_data_level(struct sim_session *s, unsigned level);
/* the records' data addresses come from following the code
 * (sim_follow_path): a line the caches lack is served no deeper than the
 * data level */
void sim_session_addresses_followed(struct sim_session *s, bool followed);
/* charge to focus_cycles the retirement time of instructions in [LO, HI) */
void sim_session_focus(struct sim_session *s, uint64_t lo, uint64_t hi);
/* remember the current time of every model (end of warm-up) */
void sim_session_mark(struct sim_session *s);
/* configuration 0's counts so far, CYCLES its last retirement (windows
 * of one stream timed in one simulation: the differences between two
 * peeks are a stretch's cycles, instructions and µops) */
void sim_session_peek(const struct sim_session *s, struct sim_stats *out);
/* every configuration's last retirement so far, into OUT[NCFG] */
void sim_session_times(const struct sim_session *s, double *out);
/* the events sim_session_finish returns are counted from here on (by
 * default from the start, sim_session_warm's predictor training apart) */
void sim_session_count_from_here(struct sim_session *s);
/* The configuration-independent part of a session's work (the caches,
 * the predictor, the pointers: the prepass of each record), kept on a
 * tape by one session and replayed by others fed the same records in the
 * same order, from the same settings (data level, addresses followed,
 * warm-up), which then only run their timing models: the sweep's
 * sessions over one stream. A replaying session's events are not
 * counted (sim_session_finish's EV is for the recording one), and its
 * feeds must be the tape's records from the first on. */
struct sim_tape;
struct sim_tape *sim_tape_new(void);
void sim_tape_free(struct sim_tape *t);
size_t sim_tape_records(const struct sim_tape *t);
/* room for N records at once (a stream's records and its warm-up's) */
void sim_tape_reserve(struct sim_tape *t, size_t n);
/* the tape starts with RECS' N records */
bool sim_tape_holds(const struct sim_tape *t, const struct sim_rec *recs, size_t n);
void sim_session_record(struct sim_session *s, struct sim_tape *t);
void sim_session_replay(struct sim_session *s, const struct sim_tape *t);
/* results: NCFG stats, and the configuration-independent events */
void sim_session_finish(struct sim_session *s, struct sim_stats *out, struct sim_events *ev);
void sim_session_free(struct sim_session *s);
void sim_events_free(struct sim_events *ev);

/* cycles per unit of work measured after the mark (whole run if none) */
double sim_stats_steady_cycles(const struct sim_stats *st, double units_after_mark);

/* --------------------------------------------------------- analysis --- */

struct sim_set {
	unsigned n;
	uint8_t res[8];
};

struct sim_analysis_opts {
	const double *weights;	/* e.g. 1.00..1.15 */
	size_t nweights;
	const uint8_t *resources;	/* single resources to sweep */
	size_t nresources;
	const struct sim_set *sets;	/* user-given sets */
	size_t nsets;
	double threshold;	/* speedup at the top weight that makes a bottleneck (0.01) */
	bool search;		/* search a balanced set when no single resource pays */
	unsigned threads;
	/* the weights simulated only for the resources (and sets) with an
	 * effect when unlimited: the others are taken as 0 at every weight,
	 * which misses only what a discrete model gives where it is not
	 * monotonic, a speedup at a weight above nothing unlimited
	 * (sim_analysis.pruned counts them) */
	bool prune;
	/* an empty tape (sim_tape_new): the base's session records its
	 * prepass there and the sweep's replay it; kept for the caller (the
	 * windows of the same stream timed without a prepass). NULL: none */
	struct sim_tape *tape;
};

struct sim_sensitivity {
	struct sim_set set;	/* one resource, or a set */
	double *speedup;	/* per weight */
	double upper;		/* speedup with the resource(s) unlimited */
	bool bottleneck;
	bool searched;		/* found by the automatic search */
	/* the model's time was not monotonic in this capacity (a discrete
	 * model can lose a hair at a larger one: a miss or a mispredict
	 * moved across the mark): SPEEDUP is the envelope, the best reached
	 * at or below each capacity, and DIP the most it raised a figure */
	bool envelope;
	double dip;
	/* with the source's cuts: each speedup's standard error (per weight,
	 * then unlimited) as a ratio of the units' times, the units taken as
	 * a sample of the stream's; NULL: none (no cuts, or not simulated at
	 * the weights: sim_analysis_opts.prune) */
	double *error;
};

struct sim_analysis {
	struct sim_stats base;
	struct sim_events events;
	double units;		/* iterations (or instructions) after the mark */
	double cycles_per_unit;
	double stream_cycles_per_unit;	/* with a focus: all of the stream's cycles per unit */
	size_t nweights;
	double *weights;
	size_t nsens;
	struct sim_sensitivity *sens;
	/* after the mark: instructions and fused-domain µops per cycle */
	double ipc, fused_per_cycle;
	/* what the figures above divide: the cycles, instructions and fused
	 * µops after the mark (a report may put the run's estimate from its
	 * windows here, weighted by the time each stands for; UNITS then
	 * counts the same way, and RUN_WEIGHTED says so) */
	double measured_cycles, measured_insns, measured_fused;
	bool run_weighted;
	/* how the measured records were taken (sim_source_fit): PASSES
	 * times (1: once), after a warm pass over the whole stream when
	 * WARM_PASS; MEASURED_RECORDS per pass */
	unsigned passes;
	bool warm_pass;
	size_t measured_records;
	/* sim_analysis_opts.prune: the sensitivities without an effect when
	 * unlimited, not simulated at the weights */
	size_t pruned;
};

/* A stream source the analysis can replay as often as it needs. */
struct sim_source {
	const struct sim_rec *recs;
	size_t n;
	size_t mark;		/* records before the mark (warm-up) */
	double units;		/* iterations after the mark, or 0 for instructions */
	/* a loop simulated inside its surroundings: its own instructions'
	 * retirement time [focus_lo, focus_hi) is the time per unit (0 0:
	 * all of it) */
	uint64_t focus_lo, focus_hi;
	unsigned data_level;	/* sim_session_data_level's */
	bool warm;		/* sim_session_warm over the records first */
	bool addresses_followed;	/* sim_session_addresses_followed's */
	/* the measured records [mark, n) fed PASSES times (0 or 1: once),
	 * after one pass over the whole stream when WARM_PASS: how a stream
	 * too short to measure alone is measured (sim_source_fit) */
	unsigned passes;
	bool warm_pass;
	/* the measured records cut into units at these offsets (ascending,
	 * inside (mark, n); the windows of a real stream): each speedup of
	 * the sweep gets a standard error over the units
	 * (sim_sensitivity.error), with one pass and no warm pass. NULL:
	 * none */
	const size_t *cuts;
	size_t ncuts;
};

/* The records a measurement needs after the mark on machine M: at fewer,
 * what finished in the shadow of the warm-up's last miss (up to a
 * window's worth) would retire "free" and skew the time per record. */
size_t sim_min_measured(const struct sim_machine *m);

/* Scales SRC's measurement to what it holds. With sim_min_measured()
 * of CODE's machine
 * records or more after the mark, nothing changes. With fewer, the
 * measured part is repeated (whole calls or windows of a region, each
 * pass warmed by the one before) until it holds that many: when
 * OWN_WARMUP ([0, mark) is part of the same stream, e.g. its first
 * quarter) the whole stream is measured after a warm pass over it;
 * else [0, mark) stays the warm-up (the window before, say). UNITS
 * becomes the iterations measured: the times HEAD starts one in the
 * measured records (HEAD 0: SRC's units, if any, times the passes). */
void sim_source_fit(struct sim_source *src, const struct sim_code *code, uint64_t head, bool own_warmup);

int sim_analyze(const struct sim_machine *m, const struct sim_code *code,
		const struct sim_source *src, const struct sim_analysis_opts *o, struct sim_analysis *a,
		char *err, size_t errlen);
void sim_analysis_free(struct sim_analysis *a);

/* The share of resource R's capacity over A's base run that instruction
 * I of CODE takes (its uses of R times its executions, over R's capacity
 * times the run's cycles): what a per-instruction table shows; 0 for a
 * resource no instruction holds (latency, window, caches, branches). */
double sim_insn_share(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		      size_t i, unsigned r);

/* Loop body in a buffer: decodes every instruction of [addr, addr+len)
 * and builds ITER iterations of it as a stream (a trailing backward
 * conditional branch to the start is taken between iterations; other
 * branches fall through). Returns 0, or -1 with ERR naming the offset of
 * undecodable bytes. */
int sim_stream_loop(struct sim_code *code, uint64_t addr, const uint8_t *bytes, size_t len,
		    unsigned iter, struct sim_rec **recs, size_t *n, size_t *per_iter, char *err,
		    size_t errlen);

/* A loop inside its parent loop: the parent's code [ADDR, ADDR+LEN), its
 * closing branch PARENT_LATCH, and the loop's closing branch LATCH taken
 * TRIPS-1 times per entry. */
#define SIM_NEST_SIBLINGS 8
struct sim_nest {
	uint64_t addr;
	const uint8_t *bytes;
	size_t len;
	uint64_t parent_latch, latch;
	unsigned trips;
	/* the parent's other innermost loops, run TRIPS times per entry too
	 * (their own inferred trips, else the loop's) */
	unsigned nsiblings;
	uint64_t sibling_latch[SIM_NEST_SIBLINGS];
	unsigned sibling_trips[SIM_NEST_SIBLINGS];
	/* the parent's instructions in the order the function's counters run
	 * them (sim_follow_path), NPATH of them: when given, the nest's
	 * stream is this path (TRIPS is then the loop's average) */
	const struct sim_path_rec *path;
	size_t npath;
};
/* The stream of NEST's parent run until the loop has done MIN_INNER
 * iterations, ending at a pass through the parent's latch: other
 * conditional branches fall through, direct jumps inside the parent are
 * followed. *INNER_OUT gets the loop's iterations. -1 with ERR when the
 * walk leaves the parent (a call, a return, an indirect jump), a pass
 * through the parent misses the loop, or MAX_RECS is reached first. */
int sim_stream_nest(struct sim_code *code, const struct sim_nest *nest, size_t min_inner, size_t max_recs,
		    struct sim_rec **recs, size_t *n, size_t *inner_out, char *err, size_t errlen);

/* The loops of a function's code: every backward branch (conditional, or
 * a jmp) to an address inside [addr, addr+len) closes one; branches to the
 * same target are one loop ending after the last of them. Up to MAX, in
 * address order of their latches; returns how many. */
struct sim_loop {
	uint64_t start, end;	/* [target, end of the last latch) */
	uint64_t latch;		/* the last backward branch */
	unsigned latches;	/* backward branches to its start (a continue adds one) */
	bool conditional;	/* closed by a conditional branch */
};
size_t sim_find_loops(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		      struct sim_loop *out, size_t max);

/* gus sim --hex's code: HEX as bytes (sim_parse_hex) at ADDRESS (hex
 * text, NULL for 0: where the body sits in the fetch windows). -1 with
 * ERR ("--hex: ..." or "--address: ...") on bad text. */
int simrun_hex_code(const char *hex, const char *address, uint8_t **bytes, size_t *len, uint64_t *addr, char *err,
		    size_t errlen);

/* Hex text ("4801d8 49ffcf", blanks between any digits) as bytes: *OUT
 * (malloc'ed) of *LEN bytes. -1 with ERR on a character that is not a hex
 * digit or a blank, no digits at all, or an odd number of digits. */
int sim_parse_hex(const char *s, uint8_t **out, size_t *len, char *err, size_t errlen);

/* The innermost loop of a function: the shortest [target, branch end)
 * closed by a backward conditional branch; -1 when there is none. */
int sim_innermost_loop(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		       uint64_t *start, uint64_t *end);

/* A function's loop nest (sim_find_loops), each loop with what can be
 * told of it without running it. */
struct sim_loop_info {
	struct sim_loop loop;
	unsigned depth;		/* 1 + the loops of the function around it */
	bool innermost;		/* no loop inside it */
	size_t insns;		/* instructions in its address range */
	double trips;		/* iterations per entry: from following the
				 * function's loop counters (trips_followed), else
				 * from a compare of its counter with a constant and
				 * the counter's step; 0: unknown */
	bool trips_followed;
	double nest_trips;	/* its trips times those of the loops around it;
				 * 0 when one of them is unknown */
	uint64_t executed;	/* instructions a trace executed in it (0: no trace) */
	/* what tells a hot loop from a cold one without a trace */
	bool after_return;	/* placed after the function's last return, where
				 * compilers put the paths they expect to be rare */
	unsigned stores;	/* store instructions in its range */
	unsigned vector_bits;	/* its widest packed vector operation (0: scalar only) */
	int parent;		/* the smallest loop around it, -1 none */
};
#define SIM_MAX_LOOPS 64
size_t sim_loop_nest(const struct sim_machine *m, uint64_t addr, const uint8_t *bytes, size_t len,
		     struct sim_loop_info *out, size_t max);

/* The steps sim_loop_nest and the static nests follow a function's
 * counters for (a fraction of a second) */
#define SIM_FOLLOW_STEPS 8000000u

/* Average iterations per entry of each of LOOPS (N) in the function at
 * ADDR (LEN bytes), found by running its integer register code from its
 * entry on the values known without its inputs: constants, the addresses
 * its code names, the stack, what is computed from them (tripexec.c):
 * TRIPS[i] > 0 where known, 0 where not. Returns whether the run reached
 * the function's return within MAX_STEPS instructions; when it did not,
 * only the loops whose every completed entry ran alike are given. */
bool sim_trips_by_execution(uint64_t addr, const uint8_t *bytes, size_t len, const struct sim_loop *loops,
			    size_t n, uint64_t max_steps, double *trips);

/* The path through [LO, HI) of the function at ADDR (LEN bytes), whose
 * loops are LOOPS (NLOOPS, sim_find_loops), as its integer code runs from
 * its entry on the values known without its inputs (sim_trips_by_execution's
 * run, MAX_STEPS at most): the instructions run
 * there, in order, a window of at most MAX from the middle of the run,
 * each with the data addresses that those values give (the addresses its
 * code names, the stack, what is computed from them: the first NMEM of its
 * memory operands, in sim_insn.mem's order). 0 with *IPS (malloc'ed) and
 * *N, or -1 when the run does not reach the function's return. */
struct sim_path_rec {
	uint64_t ip;
	uint64_t mem[2];
	uint8_t nmem;
};
int sim_follow_path(uint64_t addr, const uint8_t *bytes, size_t len, const struct sim_loop *loops, size_t nloops,
		    uint64_t lo, uint64_t hi, size_t max, uint64_t max_steps, struct sim_path_rec **ips, size_t *n);

/* The innermost loop where a function's time goes (an index of L, -1 when
 * there is no loop): the one a trace executed most instructions in; else
 * the one with the largest inferred trip-count product; else one not
 * placed after the function's last return; else, of two innermost loops
 * sharing code with the same inferred trips (two paths back to one top,
 * one counter), the one with fewer stores (a
 * path around a store is the likely one: Ball and Larus's store
 * heuristic); else the deepest; then the largest body. With a trace, an
 * outer loop whose own instructions (in no loop inside it) ran more than
 * that innermost loop's is chosen instead. WHY gets the reason and the
 * other loops, in words. */
int sim_hot_loop(const struct sim_loop_info *l, size_t n, char *why, size_t whylen);

/* ------------------------------------------- real instruction streams --- */
/* A real instruction stream (Intel PT, the QEMU tracer) turned into model
 * records, for gus sim --trace and gus report (simrun.c). */
/* The sink's state: records decoded into CODE and appended to RECS. */
struct simrun_collect {
	struct sim_code *code;
	struct sim_rec *recs;
	size_t n, cap;
	uint64_t undecodable;
	uint64_t first_bad_ip;
	char first_bad[256];
	bool data_addresses;	/* use the stream's data addresses */
	/* optional: keep only records in [lo, hi) (hi 0: all), at most max
	 * of them (0: no limit) */
	uint64_t lo, hi;
	size_t max;
	uint64_t skipped;	/* records outside [lo, hi) or past max */
};

/* a stream_sink filling a struct simrun_collect */
int simrun_collect_sink(void *ctx, const struct stream_insn *v, size_t n);
void simrun_collect_free(struct simrun_collect *c);

/* The resources a default sweep covers: the port groups and the divider
 * the code uses, and every resource that is not a port group. */
size_t simrun_default_resources(const struct sim_machine *m, const struct sim_code *code, uint8_t *res);

/* The replayable source of a collected stream: the first quarter warms
 * caches, predictor and window; after it, executions of HEAD count the
 * units (iterations), or instructions when HEAD is 0; a FOCUS range (0 0:
 * none) is the loop whose instructions' retirement time is the time. */
struct sim_source simrun_source(const struct simrun_collect *c, uint64_t head, struct stream_range focus);

/* --weights: FROM:TO:STEP or a list into a malloc'ed *OUT; -1 with ERR
 * naming the bad part */
int simrun_parse_weights(const char *s, double **out, size_t *n, char *err, size_t errlen);
#define SIMRUN_DEFAULT_WEIGHTS "1.00:1.15:0.01"

/* --resources LIST (comma-separated; A+B is a set accelerated together)
 * for M: each single resource into RES (*NRES, up to SIM_MAX_RES; more are
 * dropped), each set into SETS (*NSETS, up to SIMRUN_MAX_SETS). -1 with ERR
 * on a resource M does not have (naming M's), a set of more than 8, or more
 * than SIMRUN_MAX_SETS sets; ERRLEN of strlen(LIST) +
 * SIMRUN_RESOURCES_ERRLEN holds every message whole. */
#define SIMRUN_MAX_SETS 16
#define SIMRUN_RESOURCES_ERRLEN 1200
int simrun_parse_resources(const struct sim_machine *m, const char *list, uint8_t *res, size_t *nres,
			   struct sim_set *sets, size_t *nsets, char *err, size_t errlen);

/* ----------------------------------------------------- gus sim's loop --- */
/* Records one simulation may hold (gus sim --iterations, --max-insns). */
#define SIMRUN_MAX_RECORDS (20u << 20)

/* A loop body as gus sim simulates it: ITERATIONS of it, the first of them
 * warming caches, predictor and window up. */
struct simrun_loop {
	struct sim_rec *recs;	/* the stream (malloc'ed; NULL but after SIMRUN_LOOP_OK) */
	struct sim_source src;	/* RECS, the mark after the warm-up, the iterations after it */
	size_t per_iter;	/* instructions per iteration */
	unsigned iterations;	/* simulated (also with SIMRUN_LOOP_TOO_LONG) */
	unsigned warmup;	/* of them warm-up */
	unsigned needed;	/* iterations whose quarter fills the window twice */
	bool short_warmup;	/* ITERATIONS < NEEDED: the warm-up is cut to half of them */
	/* run inside its parent loop (NEST given and walkable): ITERATIONS
	 * and WARMUP are the loop's in it; else NEST_WHY says why not */
	bool in_nest;
	char nest_why[256];
};

enum simrun_loop_status {
	SIMRUN_LOOP_OK,
	SIMRUN_LOOP_UNDECODABLE,	/* ERR as sim_stream_loop's */
	SIMRUN_LOOP_TOO_LONG,		/* more than SIMRUN_MAX_RECORDS records */
};

/* The stream of the loop body [ADDR, ADDR+LEN) decoded into CODE:
 * ITERATIONS iterations of it (0: enough for M's instruction window to fill
 * twice during the warm-up, at least 200), the warm-up a quarter of them
 * and at least two window fills (at most half of them). With NEST (may be
 * NULL), the loop runs inside its parent for at least that many
 * iterations and eight entries, its instructions' time being its time:
 * what the parent does between entries (a chain restarted, the next
 * entry's start overlapping this one's end) shapes it. */
enum simrun_loop_status simrun_loop(const struct sim_machine *m, struct sim_code *code, uint64_t addr,
				    const uint8_t *bytes, size_t len, const struct sim_nest *nest, unsigned iterations,
				    struct simrun_loop *out, char *err, size_t errlen);
/* For the loop note: "; simulated inside its parent loop ..." or why LP
 * ran by itself, into BUF */
void simrun_nest_note(const struct simrun_loop *lp, const struct sim_nest *nest, char *buf, size_t len);

#endif
