/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gusdata: the gus.data recording, one SQLite database per recording.
 * The schema is documented in gus-data(5). Every write is committed at
 * once (or at gusdata_commit inside gusdata_begin), so an interrupted
 * recording is still a readable database holding what was committed. */
#ifndef GUS_GUSDATA_H
#define GUS_GUSDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define GUSDATA_SCHEMA_VERSION 6
/* SQLite application_id of a gus.data file ("GUSD") */
#define GUSDATA_APPLICATION_ID 0x47555344

struct gusdata;

/* A new recording for PATH, written into PATH.partial-XXXXXX beside it and
 * locked while it is (outpath.h). What is at PATH must be nothing or an
 * earlier recording, and PATH.old likewise (with GUSDATA_FORCE, also a
 * regular file); a directory or a device never. A second writer of PATH
 * is refused. -1 with ERR naming the path and the reason; nothing is
 * touched then. */
#define GUSDATA_FORCE 1u
int gusdata_create(const char *path, unsigned flags, struct gusdata **out, char *err, size_t errlen);
/* Lands a recording of gusdata_create: one self-contained file (the WAL
 * folded in, no side files), an earlier recording at PATH renamed to
 * PATH.old, the new one renamed to PATH. -1 with ERR when it cannot (a
 * full disk: the file is removed; PATH changed meanwhile into something
 * that may not be replaced: the file stays, ERR says where). D is freed. */
int gusdata_finish(struct gusdata *d, char *err, size_t errlen);
/* Removes a recording of gusdata_create that is not worth keeping; PATH
 * and PATH.old are untouched. D is freed. */
void gusdata_discard(struct gusdata *d);
/* Whether PATH is a gus recording: an SQLite file with gus's application id. */
bool gusdata_is_recording(const char *path);
/* The file being written (PATH.partial-XXXXXX while a new recording is
 * written, else PATH). */
const char *gusdata_file_path(const struct gusdata *d);
/* Opens an existing recording for reading (and for caching results).
 * Refuses files that are not SQLite, not gus.data, or of a newer schema. */
int gusdata_open(const char *path, bool writable, struct gusdata **out, char *err, size_t errlen);
/* Closes a recording opened with gusdata_open; one of gusdata_create that
 * was not finished is discarded. */
void gusdata_close(struct gusdata *d);
const char *gusdata_path(const struct gusdata *d);

/* group many writes into one transaction (speed); nesting is not allowed */
int gusdata_begin(struct gusdata *d);
int gusdata_commit(struct gusdata *d);

/* ------------------------------------------------------------ meta --- */
/* key/value facts: command, machine, kernel, cpu, exit status, and
 * "missing.WHAT" = why WHAT could not be collected */
int gusdata_set_meta(struct gusdata *d, const char *key, const char *value);
int gusdata_set_meta_u64(struct gusdata *d, const char *key, uint64_t value);
/* the value (valid until the next call on D), or NULL when absent */
const char *gusdata_meta(struct gusdata *d, const char *key);
bool gusdata_meta_u64(struct gusdata *d, const char *key, uint64_t *value);
/* calls FN for every fact, by key; a non-zero return stops */
int gusdata_foreach_meta(struct gusdata *d, int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* --------------------------------------------------------- sideband --- */
struct gusdata_mmap {
	uint64_t time;		/* perf clock (ns), 0 when unknown */
	int pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	const char *filename;	/* as the kernel named it ("[vdso]", "//anon"...) */
	const char *build_id;	/* hex, or NULL, or GUSDATA_NOT_HERE */
};
/* the build-id of a mapping whose object is not on this machine and has
 * no build-id to tell it by (gus import of another machine's perf.data):
 * the file at its path is never taken for it */
#define GUSDATA_NOT_HERE "-"
int gusdata_add_mmap(struct gusdata *d, const struct gusdata_mmap *m);
/* calls FN for each mapping in time order; a non-zero return stops */
int gusdata_foreach_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m), void *ctx);

int gusdata_add_comm(struct gusdata *d, uint64_t time, int pid, int tid, const char *comm, bool exec);

/* Sideband events kept as they came: KIND is "switch-in", "switch-out",
 * "itrace-start", "lost", "aux-lost", "exit", "fork"...; A and B are
 * kind-specific numbers (documented in gus-data(5)). */
int gusdata_add_event(struct gusdata *d, uint64_t time, int cpu, int pid, int tid, const char *kind,
		      uint64_t a, uint64_t b);
struct gusdata_event {
	uint64_t time;		/* perf clock (ns) */
	int cpu, pid, tid;
	const char *kind;
	uint64_t a, b;
};
/* calls FN for each event of KIND (NULL: all) in time order, then as
 * stored; a non-zero return stops and is returned, -1 on a read error */
int gusdata_foreach_event(struct gusdata *d, const char *kind,
			  int (*fn)(void *ctx, const struct gusdata_event *e), void *ctx);
/* number of events of KIND and the sum of their A fields */
int gusdata_event_totals(struct gusdata *d, const char *kind, uint64_t *count, uint64_t *sum_a);

/* ------------------------------------------------------------ files --- */
/* Images decoding needs and cannot find later (the vDSO), or copies of
 * mapped files; NAME as in the mmap records. */
int gusdata_add_file(struct gusdata *d, const char *name, const char *build_id, const void *data, size_t n);
/* a malloc'ed copy of the file's bytes, or NULL when absent */
void *gusdata_file(struct gusdata *d, const char *name, size_t *n);

/* ----------------------------------------------------------- PT data --- */
enum gusdata_chunk_flags {
	GUSDATA_CHUNK_TRUNCATED = 1u << 0,	/* the kernel truncated this AUX record */
	GUSDATA_CHUNK_OVERWRITE = 1u << 1,	/* snapshot: the ring was overwritten before */
	GUSDATA_CHUNK_PARTIAL = 1u << 2,	/* the record contains gaps (PARTIAL flag) */
	GUSDATA_CHUNK_COLLISION = 1u << 3,	/* collided with another event's data */
	GUSDATA_CHUNK_LOST_BEFORE = 1u << 4,	/* data was lost between the previous chunk and this */
};

struct gusdata_chunk {
	int64_t id;
	int cpu;		/* -1 for a per-thread buffer */
	int tid;		/* -1 for a per-CPU buffer */
	uint64_t aux_offset;	/* offset in the AUX area's stream */
	uint64_t time;
	uint32_t flags;		/* enum gusdata_chunk_flags */
	const uint8_t *data;
	size_t size;
};
int gusdata_add_chunk(struct gusdata *d, const struct gusdata_chunk *c);
/* the PT bytes stored, all buffers */
uint64_t gusdata_chunk_bytes(struct gusdata *d);
/* buffers (cpu, tid) that have chunks, each once, in order */
int gusdata_chunk_buffers(struct gusdata *d, int **cpu, int **tid, size_t *n);
/* calls FN on the chunks of buffer (CPU, TID) in stream order; DATA is valid
 * during the call only */
int gusdata_foreach_chunk(struct gusdata *d, int cpu, int tid,
			  int (*fn)(void *ctx, const struct gusdata_chunk *c), void *ctx);

/* ---------------------------------------------- schema 2: gus record --- */
/* Files of schema 1 (gus record with PT only) open; opened for writing
 * they are upgraded, opened read-only they read as having no samples,
 * counts, regions, trace or results. */
int gusdata_schema_version(const struct gusdata *d);

/* The mappings of the sampling run (a run of its own, so its addresses
 * differ from the PT run's in mmaps). */
int gusdata_add_sample_mmap(struct gusdata *d, const struct gusdata_mmap *m);
int gusdata_foreach_sample_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m),
				void *ctx);

struct gusdata_sample {
	uint64_t time;
	int cpu, pid, tid;
	uint64_t ip, period;
	bool user;
	const uint64_t *callchain;	/* innermost first, NULL without -g */
	size_t ncallchain;
	/* --call-graph dwarf (table sample_stacks): the user registers
	 * (REGS_ABI the kernel's PERF_SAMPLE_REGS_ABI_*, 0: none; NREGS values
	 * of REGS_MASK's registers, lowest PERF_REG_* first) and NSTACK bytes
	 * of the user stack from the stack pointer up */
	uint64_t regs_abi, regs_mask;
	const uint64_t *regs;
	size_t nregs;
	const uint8_t *stack;
	size_t nstack;
	/* a sample of counter group READ_GROUP's leader (schema 6, table
	 * sample_reads, gusdata_add_sample_read): its events' deltas since the
	 * thread's previous sample of the group on that CPU, in the group's
	 * order (meta sample.read_groups), and the deltas of its enabled and
	 * running times (ns); NREAD 0: a sample of the sampling event */
	int read_group;
	double read_enabled, read_running;
	const double *read;
	size_t nread;
};
int gusdata_add_sample(struct gusdata *d, const struct gusdata_sample *s);
/* a read group's sample (no period, no call chain) */
int gusdata_add_sample_read(struct gusdata *d, const struct gusdata_sample *s);
int gusdata_foreach_sample_read(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx);
/* in recording order; CALLCHAIN, REGS and STACK valid during the call */
int gusdata_foreach_sample(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx);
uint64_t gusdata_sample_count(struct gusdata *d);

/* The kernel's functions that the samples' kernel addresses (their ip,
 * their call chains) fall in, named by gus record from /proc/kallsyms
 * (table kernel_symbols, absent from older recordings: none). Read from
 * a recording gus did not write: start, end and name are not checked
 * (the reader bounds and escapes them). */
struct gusdata_kernel_symbol {
	uint64_t start, end;	/* [start, end) */
	const char *name;
	const char *module;	/* "" for the kernel image */
};
int gusdata_add_kernel_symbol(struct gusdata *d, const struct gusdata_kernel_symbol *k);
/* in the order written; NAME and MODULE valid during the call */
int gusdata_foreach_kernel_symbol(struct gusdata *d,
				  int (*fn)(void *ctx, const struct gusdata_kernel_symbol *k), void *ctx);

/* The count set: one row per event as td_countset holds it. */
struct gusdata_count {
	const char *event;
	double value, enabled, running;
	const char *uncounted;	/* why it was not counted, NULL when counted */
};
int gusdata_add_count(struct gusdata *d, const struct gusdata_count *c);
int gusdata_foreach_count(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_count *c), void *ctx);

/* A hot region's count set (schema 6): from the groups read at its
 * samples, or imported; SAMPLES those it is made of (0: imported). */
struct gusdata_region_count {
	int64_t region;		/* regions.id */
	const char *event;
	double value, enabled, running;
	uint64_t samples;
	const char *uncounted;	/* why it has no value, NULL when counted */
};
int gusdata_add_region_count(struct gusdata *d, const struct gusdata_region_count *c);
/* by region, then as stored */
int gusdata_foreach_region_count(struct gusdata *d,
				 int (*fn)(void *ctx, const struct gusdata_region_count *c), void *ctx);

/* Interval counts (schema 3, gus record --spire): one row per event per
 * interval, in counting order; TIME the interval's end in seconds from the
 * start, VALUE the raw increase in the interval, ENABLED and RUNNING its ns. */
struct gusdata_interval_count {
	double time;
	const char *event;
	double value, enabled, running;
};
int gusdata_add_interval_count(struct gusdata *d, const struct gusdata_interval_count *c);
int gusdata_foreach_interval_count(struct gusdata *d,
				   int (*fn)(void *ctx, const struct gusdata_interval_count *c), void *ctx);

/* A hot region: a function, or a loop inside one, in FILE's link-time
 * addresses [start, end); HEAD counts the loop's iterations. */
struct gusdata_region {
	int64_t id;		/* set by gusdata_add_region */
	int rank;		/* 1 = most samples */
	const char *kind;	/* "function" or "loop" */
	const char *name;	/* "sum_array", "sum_array loop 0x1180-0x11a4" */
	const char *file;
	uint64_t start, end, head;
	int64_t parent;		/* a loop's function region, 0 for none */
	uint64_t samples;
	double share;		/* of all samples */
	const char *build_id;	/* FILE's GNU build-id in hex; NULL: none, or a recording before schema 4 */
};
int gusdata_add_region(struct gusdata *d, struct gusdata_region *r);
/* by rank */
int gusdata_foreach_region(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_region *r), void *ctx);

/* Where the traced run (QEMU) mapped the objects of the hot regions:
 * process PROC (0: the program, then its children in the order they were
 * traced) had OBJECT's file offsets [pgoff, pgoff+len) at runtime START. */
struct gusdata_trace_map {
	int64_t proc;
	const char *object, *build_id;
	uint64_t start, len, pgoff;
};
int gusdata_add_trace_map(struct gusdata *d, const struct gusdata_trace_map *m);
int gusdata_foreach_trace_map(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_trace_map *m), void *ctx);

/* The instruction stream of the hot regions from the QEMU tracer, in
 * chunks of encoded records (streamcodec.c); runtime addresses. */
struct gusdata_trace_writer;
struct gusdata_trace_writer *gusdata_trace_writer_new(struct gusdata *d);
/* buffers and writes a chunk every 65536 records; -1 on a write error */
/* the trace writer stops (ENOSPC) rather than leave less than this free
 * on the recording's file system */
#define GUSDATA_TRACE_RESERVE (64u * 1024u)
int gusdata_trace_write(struct gusdata_trace_writer *w, const struct stream_insn *v, size_t n);
/* writes what is buffered and frees W; -1 on a write error (W freed) */
int gusdata_trace_writer_close(struct gusdata_trace_writer *w);
uint64_t gusdata_trace_records(struct gusdata *d);
/* SINK gets every stored record in order, in batches; SINK's non-zero
 * return stops and is returned. A damaged chunk is skipped (what it held
 * before the damage has been given) and counted in *DAMAGED, ERR naming
 * the first; the table unreadable is -1 with ERR. */
int gusdata_trace_read(struct gusdata *d, stream_sink sink, void *ctx, uint64_t *damaged, char *err,
		       size_t errlen);

/* The codec itself (for tests): N records into a malloc'ed buffer; and back
 * through SINK. The decoder checks every length against the buffer. */
int gusdata_trace_encode(const struct stream_insn *v, size_t n, uint8_t **out, size_t *outlen);
int gusdata_trace_decode(const uint8_t *p, size_t len, uint64_t records, stream_sink sink, void *ctx);

/* What the program wrote on its standard output or error (STREAM:
 * "stdout", "stderr") in run RUN (2: the traced run), whose output
 * gus record keeps off the terminal: the first N bytes of DATA, TOTAL
 * bytes in all (schema 5; nothing is stored in an older file). */
int gusdata_add_output(struct gusdata *d, int run, const char *stream, const void *data, size_t n,
		       uint64_t total);
/* The stored output (DATA malloc'ed, the caller frees it): 0, 1 when
 * there is none, -1 on an error. */
int gusdata_get_output(struct gusdata *d, int run, const char *stream, void **data, size_t *n, uint64_t *total);

/* Cached results of gus report, by key (gus report uses
 * "sim/vN/MACHINE-DIGEST/regionID/wFIRST-LAST-COUNT"). */
int gusdata_put_result(struct gusdata *d, const char *key, const void *data, size_t n);
/* a malloc'ed copy, or NULL when absent */
void *gusdata_get_result(struct gusdata *d, const char *key, size_t *n);

/* the last SQLite error text */
const char *gusdata_errmsg(struct gusdata *d);

#endif
