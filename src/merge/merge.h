/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merge: joining measured and simulated results: hot regions from samples,
 * symbols, code and source lines out of ELF files, verdicts (counters
 * against the model), the cached simulation format, and the report model
 * (struct merge_report) that render/ (render.h) writes in every format. */
#ifndef GUS_MERGE_H
#define GUS_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"
#include "topdown.h"

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
	/* what this CPU was taken for and why, where that chose the table
	 * (no --arch); NULL: not said */
	const char *cpu;
};

/* Code read out of an ELF file for gus sim --bin. */
struct merge_code {
	uint64_t addr;
	uint8_t *bytes;
	size_t len;
	char name[256];
	/* merge_elf_sim_code's loop inside its parent: the parent's code
	 * (NEST.BYTES malloc'ed), latches and the loop's inferred trips;
	 * NEST.LEN 0 when the loop has no parent or no known trip count */
	struct sim_nest nest;
};
int merge_elf_function(const char *path, const char *sym, struct merge_code *out, char *err, size_t errlen);
int merge_elf_range(const char *path, uint64_t start, uint64_t end, struct merge_code *out, char *err,
		    size_t errlen);
void merge_code_free(struct merge_code *c);
/* The code gus sim --bin simulates: FUNCTION of PATH, or [START, END) of
 * it when FUNCTION is NULL; with M, the function's innermost loop where
 * its time goes (sim_hot_loop, statically: the nest's trip counts, depth,
 * body) when it has one. SOURCE says which ("PATH:NAME", and the loop's
 * addresses), LOOP_NOTE why and the other loops ("" for no choice). -1
 * with ERR as merge_elf_function's or merge_elf_range's. */
int merge_elf_sim_code(const char *path, const char *function, uint64_t start, uint64_t end,
		       const struct sim_machine *m, struct merge_code *out, char *source, size_t sourcelen,
		       char *loop_note, size_t notelen, char *err, size_t errlen);

/* Function symbols of an ELF file, found as perf finds them (symtab.c):
 * its .symtab, else its separate debug file (build-id, .gnu_debuglink,
 * debuginfod), else .dynsym; names demangled; bounds of code without a
 * symbol from its .eh_frame FDE. Addresses are link-time addresses. */
struct merge_symtab;
struct merge_symtab *merge_symtab_load(const char *path, char *err, size_t errlen);
void merge_symtab_free(struct merge_symtab *st);
/* the function holding ADDR (a link-time address) and the offset in it,
 * or NULL */
const char *merge_symtab_lookup(const struct merge_symtab *st, uint64_t addr, uint64_t *offset);
/* the function holding ADDR with its START and SIZE (up to the next
 * symbol when the table gives none), or NULL */
const char *merge_symtab_find(const struct merge_symtab *st, uint64_t addr, uint64_t *start, uint64_t *size);
/* The function holding ADDR: a symbol, else the FDE of .eh_frame holding
 * it (NAME NULL, FROM_CFI). -1: neither. */
struct merge_function {
	const char *name;	/* demangled as perf shows it; NULL from CFI */
	const char *mangled;	/* as in the symbol table */
	uint64_t start, size;
	bool from_cfi;
};
int merge_symtab_function(const struct merge_symtab *st, uint64_t addr, struct merge_function *f);
/* "liblzma.so.5+0x15b40": code at ADDR named by its object, as perf does */
void merge_symtab_offset_name(const struct merge_symtab *st, uint64_t addr, char *buf, size_t n);
/* a function by NAME: mangled, demangled (with or without parameters), or
 * "OBJECT+0xADDR" of code without a symbol. 0 found; *MANGLED may be NULL. */
int merge_symtab_by_name(const struct merge_symtab *st, const char *name, uint64_t *start, uint64_t *size,
			 const char **mangled);
bool merge_symtab_any(const struct merge_symtab *st);	/* names any function */
/* a C++ or Rust symbol as gus and perf show it (no parameters); false
 * when MANGLED is not a mangled name */
bool merge_demangle(const char *mangled, char *buf, size_t n);
/* the file's GNU build-id in hex, NULL when it has none */
const char *merge_symtab_build_id(const struct merge_symtab *st);
/* where the names came from: "symtab", "debuginfo" (*DEBUG_FILE: which),
 * "dynsym", "none" */
const char *merge_symtab_source(const struct merge_symtab *st, const char **debug_file);
/* A symbol's [start, start+size) by name; -1 with ERR naming PATH and SYM. */
int merge_elf_symbol(const char *path, const char *sym, uint64_t *start, uint64_t *size, char *err,
		     size_t errlen);
/* The shared libraries PROGRAM needs, found as the dynamic loader finds
 * them (DT_RUNPATH/DT_RPATH with $ORIGIN, LD_LIBRARY_PATH, the system
 * directories), breadth first; *PATHS malloc'ed (each too). */
int merge_elf_libraries(const char *program, char ***paths, size_t *n);
/* PATH's program interpreter (PT_INTERP, the dynamic loader) into OUT,
 * "" when static; -1 with ERR when PATH cannot be read. */
int merge_elf_interpreter(const char *path, char *out, size_t n, char *err, size_t errlen);
/* PATH's GNU build-id in hex into HEX ("" when it has none); -1 with ERR
 * when PATH cannot be read as an x86-64 ELF file. */
int merge_elf_build_id(const char *path, char *hex, size_t n, char *err, size_t errlen);
/* The file offset of link-time ADDR of PATH (its PT_LOAD segment); the
 * end of a range may be the segment's end. -1 with ERR. */
int merge_elf_file_offset(const char *path, uint64_t addr, uint64_t *off, char *err, size_t errlen);
/* The load bias of PATH mapped at MAP_START from file offset PGOFF (an
 * executable mmap record): runtime address - link-time address. */
int merge_elf_load_bias(const char *path, uint64_t map_start, uint64_t pgoff, uint64_t *bias, char *err,
			size_t errlen);

/* ------------------------------------------- source lines (libdw) --- */
/* The DWARF line table of an ELF file, for naming addresses file:line. */
struct merge_srclines;
/* NULL with ERR naming PATH when it cannot be read as ELF. A file without
 * line information opens; merge_srclines_have_lines then says false. */
struct merge_srclines *merge_srclines_open(const char *path, char *err, size_t errlen);
bool merge_srclines_have_lines(const struct merge_srclines *s);
/* The source line of link-time address ADDR: FILE (the name as DWARF has
 * it, valid until merge_srclines_free) and LINE; false when unknown. */
bool merge_srcline(struct merge_srclines *s, uint64_t addr, const char **file, int *line);
/* The same, and DIR: the compilation directory of its unit, which a
 * relative FILE is named from (NULL when the unit does not say). */
bool merge_srcline_dir(struct merge_srclines *s, uint64_t addr, const char **file, const char **dir, int *line);
void merge_srclines_free(struct merge_srclines *s);

/* The functions inlined at link-time ADDR (DW_TAG_inlined_subroutine),
 * innermost first, not the function holding them: up to MAX names into
 * NAMES (demangled without parameters, as symbols are shown, cut at 255
 * bytes); how many. */
size_t merge_srcline_inlines(struct merge_srclines *s, uint64_t addr, char (*names)[256], size_t max);

/* --------------------------------- DWARF call frames (libdwfl) --- */
/* A sample's user call chain from its user registers and the copy of
 * its stack taken with it (gus record --call-graph dwarf, perf record
 * --call-graph dwarf), unwound with the objects' call frame information
 * as perf unwinds it with libdw (unwind.c). */
struct merge_unwinder;
/* an object mapped in an address space: its file, and its load bias
 * (runtime address - link-time address) */
struct merge_unwind_object {
	const char *path;
	uint64_t bias;
};
/* the object of address space AS holding ADDR into *O; false when none */
typedef bool (*merge_unwind_find)(void *ctx, int as, uint64_t addr, struct merge_unwind_object *o);
struct merge_unwinder *merge_unwinder_new(merge_unwind_find find, void *ctx);
void merge_unwinder_free(struct merge_unwinder *u);
/* the user registers of a sample: ABI the kernel's PERF_SAMPLE_REGS_ABI_*
 * (only 64-bit code is unwound), N values of MASK's PERF_REG_X86_*
 * registers, lowest first */
struct merge_unwind_regs {
	uint64_t abi, mask;
	const uint64_t *v;
	size_t n;
};
/* The chain of a sample of address space AS (a process) into PCS, at
 * most MAX: the sampled instruction (the registers' ip), then return
 * addresses, as far as the CFI and the NSTACK bytes of STACK (from the
 * registers' sp up) lead; how many (0: no 64-bit registers with an ip).
 * Never reads outside STACK, whatever the sample holds. */
size_t merge_unwind(struct merge_unwinder *u, int as, const struct merge_unwind_regs *regs, const uint8_t *stack,
		    size_t nstack, uint64_t *pcs, size_t max);

/* -------------------------------------------- cached simulations --- */
/* A region's simulation as bytes for gus.data's results table, and back.
 * The code is kept as addresses and bytes and decoded again with the same
 * machine model, so instruction indices match; STREAM (may be NULL) is the
 * description of where the stream came from. A blob of another format
 * version, of another machine model, or damaged is refused with ERR. */
int merge_sim_pack(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		   const char *stream, uint8_t **out, size_t *n);
/* *CODE is new (sim_code_free), *A as sim_analyze fills it
 * (sim_analysis_free), *STREAM malloc'ed or NULL. */
int merge_sim_unpack(const struct sim_machine *m, const uint8_t *p, size_t n, struct sim_code **code,
		     struct sim_analysis *a, char **stream, char *err, size_t errlen);

/* ------------------------------------------------------- verdicts --- */
/* Counters against the model for one region: the measured TMA tree's
 * dominant node against the model's top resource. */
enum merge_agreement {
	MERGE_AGREE,		/* the resource is under the dominant node */
	MERGE_REFINES,		/* the model names what counters cannot separate
				 * (Backend Bound <-> dependency latency) */
	MERGE_DISAGREE,
	MERGE_NO_MEASURE,	/* no measured tree: the model alone */
	MERGE_NO_MODEL,		/* no simulation: the counters alone */
	MERGE_NO_DATA,		/* neither */
};

struct merge_verdict {
	enum merge_agreement kind;
	/* the measured dominant path, e.g. "Backend_Bound > Core_Bound >
	 * Ports_Utilization", and the deepest node's share of slots */
	char measured[192];
	double measured_value;
	/* the model's top resource (or set) and its speedups */
	char resource[64];
	bool bottleneck;	/* at or above the analysis threshold */
	double speedup_top;	/* at the top weight, fraction (0.12 = 12 %) */
	double gain_upper;	/* with the resource unlimited, fraction */
	/* the share of the simulated cycles retirement waited on loads from
	 * L1, L2, L3 and memory (sim_stats.mem_stall): time, not accesses;
	 * NAN without a simulation */
	double stall_share[4];
	/* the one-line verdict a user reads */
	char text[512];
	/* the same for a table's row: the agreement, the model's answer and
	 * the counters' path, without the reasons a side is missing (which
	 * are the same for every region and said once) */
	char summary[320];
};

/* TREE may be NULL (WHY_NO_MEASURE says why), A may be NULL (WHY_NO_MODEL
 * says why). */
void merge_verdict(const struct td_tree *tree, const char *why_no_measure, const struct sim_machine *m,
		   const struct sim_analysis *a, const char *why_no_model, struct merge_verdict *v);
const char *merge_agreement_name(enum merge_agreement k);	/* "agree", "refines", ... */

/* ----------------------------------------------------- hot regions --- */
/* Hot regions from samples: the functions the samples fall in, and the
 * loops inside them (backward branches of the decoded code and their
 * bodies), ranked by samples. */
struct merge_region {
	char kind[12];		/* "function" or "loop" */
	char name[320];		/* "sum_array", "sum_array loop 0x1180-0x11a4" */
	char file[4096];	/* the object, or "[vdso]", "[anonymous code]" */
	char build_id[129];	/* FILE's GNU build-id in hex, "" when it has none */
	uint64_t start, end;	/* link-time [start, end) in FILE */
	uint64_t head;		/* a loop's first instruction (iterations), a function's entry */
	long parent;		/* a loop's function in the ranked list, -1 when not kept */
	uint64_t samples;	/* how many */
	double share;		/* of the weight (period) of all samples */
};

struct merge_regions;
/* M decodes the functions to find their loops */
struct merge_regions *merge_regions_new(const struct sim_machine *m);
void merge_regions_free(struct merge_regions *r);
/* a sample of WEIGHT (its period) at link-time ADDR of FILE; FILE NULL:
 * nowhere known (kernel): counted in the total only; FILE "[vdso]" or
 * "[anonymous code]": a region of its own, never simulated */
int merge_regions_add(struct merge_regions *r, const char *file, uint64_t addr, uint64_t weight);
/* a sample at file offset OFFSET of FILE, which is not here (gone, or
 * another build-id than BUILD_ID, the one mapped: a perf.data of another
 * machine): FILE is never read; each offset is a function region of its
 * own, named "BASENAME+0xOFFSET", spanning [OFFSET, OFFSET + 1) of FILE's
 * offsets, with BUILD_ID (may be NULL) as its build-id, so that gus report
 * takes no code of another file for it */
int merge_regions_add_absent(struct merge_regions *r, const char *file, const char *build_id, uint64_t offset,
			     uint64_t weight);
/* The TOP hottest functions into *OUT (malloc'ed, *N regions), each
 * followed by its MERGE_LOOPS_SHOWN hottest loops, which use up no place
 * of TOP (a loop's parent is its function's index); *TOTAL the weight of
 * all samples. Files that cannot be read name their functions "[unknown]
 * in FILE" and have no loops; WARN (may be NULL) is called once per such
 * file. */
#define MERGE_LOOPS_SHOWN 3
int merge_regions_rank(struct merge_regions *r, size_t top, struct merge_region **out, size_t *n,
		       uint64_t *total, void (*warn)(void *ctx, const char *msg), void *warn_ctx);

/* ----------------------------------------------------------- SPIRE --- */
/* The statistical roofline ensemble's results (spire.h) for gus spire and
 * gus report. */
struct spire_model;
struct spire_analysis;
struct spire_sampleset;
struct spire_metricset;
struct spire_roofline;

struct merge_spire_info {
	const char *model_path;	/* the model file */
	const char *const *inputs;	/* the sample files, or the recording */
	size_t n_inputs;
	const struct spire_metricset *metrics;	/* abbreviations and areas; may be NULL */
	size_t top;		/* text: metrics listed (0: all) */
	const char *cpu_note;	/* a warning about the CPU to repeat in the output, or NULL */
	bool section;		/* text: a section of gus report (heading style, no input list) */
	int json_indent;	/* JSON: spaces before each line after the first (nesting) */
};

/* ------------------------------------------------ gus stat -I's output --- */
/* what the output says of an event of the counted plan */
struct merge_interval_event {
	bool msec;		/* a clock: perf prints it in milliseconds */
	int group;		/* its event group, -1 when unknown */
};

/* ------------------------------------------------- gus report's model --- */
/* Everything gus report shows of a recording, assembled by the report
 * module (report.h) and written by the renderers (render.h) in each
 * format. */

/* A caller of a hot region (gus record -g): the function of the first
 * frame of a sample's call chain outside the region, named as the
 * regions name functions; "[unknown]" when the chain ends inside the
 * region or its frame is in no known object. */
struct merge_report_caller {
	const char *name;
	const char *file;		/* its object, "" when unknown */
	uint64_t samples;		/* of the region's samples with a call chain */
	double share;			/* samples / the region's samples with a call chain */
};

/* A stretch of a region's run whose windows agree (gus record --window):
 * records FROM..TO of its thread's traced run, its share of the region's
 * time, its cycles per iteration (or instruction). */
struct merge_report_phase {
	double from, to, share, cycles_per_unit;
	size_t windows;
};

/* A thread with samples in a region (perf report --sort pid), and, when
 * it has a tenth of them or more, its own simulation from its windows. */
struct merge_report_thread {
	int pid, tid;
	double share;			/* of the region's samples */
	bool simulated;
	double cycles_per_unit;		/* per WINDOW_UNIT of the region */
	const char *model;		/* the model's top resource, or why not simulated */
};

/* ------------------------------------- for the HTML report's views --- */
/* One of the windows a region's simulation sampled and timed (gus record
 * --window; a window simulated from cold caches is left out, as from the
 * spread), where it lies in its thread's run: for the phases drawn on a
 * time axis. */
struct merge_report_window {
	double position;		/* records of its thread's traced run before it */
	uint32_t thread;		/* the tracer's thread (process << 16 | thread) */
	double cycles_per_unit;		/* per WINDOW_UNIT of the region */
};

/* A row of a region's per-instruction table: an instruction of its
 * simulated code inside the region, executed in the simulation. */
struct merge_report_insn {
	size_t index;			/* in the region's sim_code */
	uint64_t addr;			/* link-time address in the region's file */
	uint64_t executions;
	/* its retirements' share of the simulated cycles of the region's
	 * instructions (sim_events.insn_cycles) */
	double cycles_share;
	const char *source;		/* "file.c:12", "" when unknown */
	/* a bottleneck instruction: a tenth or more of the region's cycles,
	 * or of a bottleneck resource's capacity (sim_insn_share) */
	bool bottleneck;
};

/* A line of the source of a region's instructions (DWARF), with the
 * region's simulated cycles spent on it; the lines between two such lines
 * of one file, when few, come as context (INSNS 0). */
struct merge_report_srcline {
	const char *file;		/* as the line table names it, from its unit's
					 * compilation directory when relative */
	int line;
	size_t insns;			/* the region's instructions on it */
	uint64_t executions;
	double cycles_share;		/* of the region's cycles, as merge_report_insn's */
	const char *text;		/* the line, NULL when the file cannot be read */
};

/* The samples at one instruction of a region (perf annotate's share):
 * its link-time address and how many of the region's samples fell on it
 * (cpu-clock and other non-precise events skid a few instructions past
 * where the time went, as in perf annotate). */
struct merge_report_insn_samples {
	uint64_t addr;
	uint64_t samples;
};

struct merge_report_region {
	int64_t id;
	int rank;			/* 1 = most samples */
	const char *kind;		/* "function", "loop" */
	const char *name, *file;
	/* its object as perf's DSO column names it: the file's base name,
	 * "[vdso]", "[anonymous code]" */
	const char *object;
	/* what its cycles per unit, windows and threads count: "call" (a
	 * function simulated from its entry), "iteration" (a loop, or a
	 * function's hot loop simulated statically), "instruction" */
	const char *unit;
	/* a loop's function in REGIONS (-1: a function, or its function was
	 * not kept); a function's only hot loop (-1: none or several), and a
	 * loop that is it: shown once, with its function */
	long parent, only_loop;
	bool with_parent;
	/* its details are shown (text: a section of its own): selected by
	 * --region, or its share at or above merge_report.percent_limit, or
	 * --all */
	bool details;
	/* its samples by instruction, by address, and how many of its
	 * samples that places (0: none known) */
	const struct merge_report_insn_samples *insn_samples;
	size_t ninsn_samples;
	uint64_t insn_samples_total;
	uint64_t start, end, head;	/* link-time addresses in FILE */
	uint64_t samples;
	double share;
	const char *source;		/* "file.c:12" of its head, "" when unknown */
	bool selected;			/* shown (--region; all when none is asked) */
	bool simulated, from_cache;
	const struct sim_code *code;
	const struct sim_analysis *an;
	const char *stream;		/* where its stream came from */
	/* the tracer of its stream: "qemu", "pt", "ptrace" (gus record's
	 * run 3 single-stepped it natively: code QEMU cannot run or never
	 * ran), "static" (no stream: its code simulated statically), "none"
	 * (not simulated); TRACER_WHY: why gus record stepped it natively
	 * (NULL: it did not) */
	const char *tracer, *tracer_why;
	const char *why_no_model;	/* when not simulated */
	struct merge_verdict verdict;
	/* file:line of a runtime address, for its per-instruction table */
	bool (*srcline)(void *ctx, uint64_t addr, char *buf, size_t n);
	void *srcline_ctx;
	uint64_t bias;			/* runtime - link-time address in the trace */
	/* its top callers by samples (see merge_report.why_no_callers), the
	 * samples of the others, and its samples that have a call chain */
	/* the QEMU tracer's windows the simulation sampled (0: the stream
	 * was the region's first records): how many of how many, in how many
	 * threads, the spread of their cycles per WINDOW_UNIT ("iteration" or
	 * "instruction"), and the phases when they differ by more than 20 % */
	size_t windows, windows_total, window_threads;
	const char *window_unit;
	double window_min, window_median, window_max;
	const struct merge_report_phase *phases;
	size_t nphases;
	/* the windows differ in too many stretches to make phases: none given */
	bool phases_scattered;
	/* its samples by thread when several threads ran it, most first */
	const struct merge_report_thread *threads;
	size_t nthreads;
	const struct merge_report_caller *callers;
	size_t ncallers;
	uint64_t callers_other, chain_samples;
	/* the functions inlined into it where its samples fell (DWARF's
	 * inlined subroutines, the innermost at each sampled instruction,
	 * as perf report --inline names them), most samples first; FILE is
	 * its object, SHARE of insn_samples_total */
	const struct merge_report_caller *inlined;
	size_t ninlined;
	/* its own measured tree (NULL: the verdict used the whole program's,
	 * merge_report.why_no_region_measure says why): from the counter
	 * groups read at MEASURED_SAMPLES of its samples, or imported; the
	 * note says when it is too few to trust */
	const struct td_tree *measured;
	uint64_t measured_samples;
	bool measured_imported;
	bool measured_of_function;	/* a loop measured by its function's imported counts */
	/* its counts as recorded (the groups read at its samples, or
	 * imported), NULL when none; shown where no TMA table makes a tree of
	 * them (gus record --read-events) */
	const struct td_countset *counts;
	const char *measured_note;
	/* what of the run its stream covers, the share of its traced range's
	 * records (1: the whole run; NAN: unknown, not a stream's simulation,
	 * or its first records), at most that when Ctrl-C stopped the run
	 * after the windows filled; where and why the trace stops short of
	 * the run (NULL: it does not) */
	double stream_covers;
	bool stream_covers_at_most;
	const char *stream_cut;
	/* HTML: the windows simulated, in run order; the per-instruction
	 * rows of a simulated region; its source lines (none: WHY_NO_SOURCE
	 * says why, NULL when it was not simulated) */
	const struct merge_report_window *window_list;
	size_t nwindow_list;
	const struct merge_report_insn *insns;
	size_t ninsns;
	const struct merge_report_srcline *srclines;
	size_t nsrclines;
	const char *why_no_source;
};

/* A row of the hot regions table that is no region: time gus does not
 * simulate, with its share of the samples' weight. */
struct merge_report_outside {
	const char *name;		/* "[kernel]", "[unknown]", "[other functions]" */
	const char *what;		/* what it is, in words */
	uint64_t samples;
	double share;
};

struct merge_report_fact {
	const char *key, *value;
};

/* The samples' call stacks (gus report --pprof and --folded ask for
 * them, report_request.stacks): every sample's chain of frames (gus
 * record -g), or its sampled instruction alone, placed in the sample
 * run's mappings and named once per distinct address; identical stacks
 * are one. */

/* An executable mapping of the sample run that a frame is in. */
struct merge_report_mapping {
	const char *object;		/* its file, or "[vdso]", "[anonymous code]" */
	const char *build_id;		/* as recorded (hex), else the file's now; "" when none */
	uint64_t start, end, pgoff;	/* runtime [start, end), mapped from file offset PGOFF */
	bool have_functions;		/* the object's symbols named its frames */
	bool have_lines;		/* some frame of it has a source line (DWARF) */
};

/* One distinct address of the stacks. */
struct merge_report_frame {
	/* the function as the hot regions name it ("[unknown] in OBJECT"
	 * without a symbol); "[kernel]" for kernel code (consecutive kernel
	 * frames are one), "[unknown]" for user code in no known mapping */
	const char *function;
	const char *mangled;		/* the symbol table's name, "" when none */
	long mapping;			/* in merge_report.mappings; -1: none (kernel, unknown) */
	/* the runtime address in the sample run: the sampled instruction for
	 * a stack's leaf, a return address less 1 (inside the call) for a
	 * caller; the link-time address in the object (the offset in a
	 * pseudo-object), and the function's */
	uint64_t address, link_address, function_start;
	const char *source_file;	/* file:line of LINK_ADDRESS (DWARF), "" and 0 when unknown */
	int line;
	const char *function_file;	/* ... of the function's first instruction */
	int function_line;
	long region;			/* the innermost hot region holding it (merge_report.regions), -1: none */
};

struct merge_report_stack {
	const size_t *frames;		/* in merge_report.frames, the leaf first */
	size_t nframes;
	uint64_t samples;		/* samples with this stack */
	uint64_t weight;		/* the sum of their periods (ns of cpu-clock, or cycles) */
};

struct merge_report {
	const char *input;		/* the recording's path */
	const struct merge_report_fact *meta;	/* the recording's facts (gus-data(5) meta) */
	size_t nmeta;
	/* what is missing and why ("counts", "samples", "regions", "trace",
	 * "pt", "kernel_samples"), stored by gus record or implied by where it
	 * was cut */
	const struct merge_report_fact *missing;
	size_t nmissing;
	const char *incomplete;		/* what was cut, when gus record did not finish; NULL */
	/* how the run (and the trace run) ended, in words, one sentence
	 * each: a non-zero exit status and the signal that killed it, Ctrl-C
	 * (the report then covers the first part of the run) */
	const char *const *run_notes;
	size_t nrun_notes;
	bool cut_before_trace;		/* ... before the trace run */
	uint64_t samples, trace_records;	/* as the tables hold them */
	/* the QEMU tracer reached --max-insns (meta trace.stopped, NULL: it
	 * did not), and the share of the traced ranges' records its windows
	 * cover (NAN: unknown) */
	const char *trace_stopped;
	double trace_covers;
	const char *tracer;		/* "pt", "qemu", "none" */
	const struct sim_machine *m;
	/* measured, for the whole program */
	const struct td_tree *tree;	/* NULL: not available, see why_no_measure */
	struct merge_run_info run;
	const char *why_no_measure;
	/* why the regions have no measured trees of their own; NULL when some do */
	const char *why_no_region_measure;
	/* said once with the regions' trees: non-precise events skid */
	const char *skid_note;
	/* SPIRE (gus report --spire MODEL) */
	bool spire_asked;
	const struct spire_model *spire_model;	/* NULL: not available, see why_no_spire */
	const struct spire_sampleset *spire_ss;
	const struct spire_analysis *spire_an;
	struct merge_spire_info spire_info;
	const char *why_no_spire;
	/* the hot regions, by rank */
	const struct merge_report_region *regions;
	size_t nregions;
	bool one_region;		/* --region: its per-instruction table even for a function */
	const char *why_no_callers;	/* NULL: the samples have call chains (gus record -g) */
	/* the samples' call stacks, most weight first, when asked for
	 * (report_request.stacks; NULL and why_no_stacks otherwise): every
	 * stored sample is in one, so that their samples and weights add up
	 * to SAMPLES and STACK_WEIGHT */
	const struct merge_report_stack *stacks;
	size_t nstacks;
	const struct merge_report_frame *frames;
	size_t nframes;
	const struct merge_report_mapping *mappings;	/* the program's first */
	size_t nmappings;
	uint64_t stack_weight;
	bool stacks_chained;		/* from call chains (gus record -g), else each sample's leaf */
	const char *why_no_stacks;
	/* which regions have details: a share of the time at or above
	 * PERCENT_LIMIT (percent; gus report --percent-limit), or every one
	 * (ALL, --all); how many of the selected ones are left without */
	double percent_limit;
	bool all;
	size_t regions_without_details;
	/* the time outside the hot functions, so that the functions and
	 * these add up to the whole profile: samples in the kernel
	 * ("[kernel]"), user code in no object the sample run mapped
	 * ("[unknown]"), and the functions not kept among the hot regions
	 * ("[other functions]") */
	const struct merge_report_outside *outside;
	size_t noutside;
};

/* The value of one of the recording's facts, NULL when absent. */
const char *merge_report_meta(const struct merge_report *r, const char *key);
/* Why WHAT ("counts", "samples", "regions", "trace", "pt",
 * "kernel_samples") is missing,
 * NULL when it is not. */
const char *merge_report_missing(const struct merge_report *r, const char *what);

#endif
