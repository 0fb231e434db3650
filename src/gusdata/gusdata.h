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

#define GUSDATA_SCHEMA_VERSION 1
/* SQLite application_id of a gus.data file ("GUSD") */
#define GUSDATA_APPLICATION_ID 0x47555344

struct gusdata;

/* Creates PATH for writing. An existing PATH is renamed to PATH.old first
 * (as perf record does). */
int gusdata_create(const char *path, struct gusdata **out, char *err, size_t errlen);
/* Opens an existing recording for reading (and for caching results).
 * Refuses files that are not SQLite, not gus.data, or of a newer schema. */
int gusdata_open(const char *path, bool writable, struct gusdata **out, char *err, size_t errlen);
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

/* --------------------------------------------------------- sideband --- */
struct gusdata_mmap {
	uint64_t time;		/* perf clock (ns), 0 when unknown */
	int pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	const char *filename;	/* as the kernel named it ("[vdso]", "//anon"...) */
	const char *build_id;	/* hex, or NULL */
};
int gusdata_add_mmap(struct gusdata *d, const struct gusdata_mmap *m);
/* calls FN for each mapping in time order; a non-zero return stops */
int gusdata_foreach_mmap(struct gusdata *d, int (*fn)(void *ctx, const struct gusdata_mmap *m), void *ctx);

int gusdata_add_comm(struct gusdata *d, uint64_t time, int pid, int tid, const char *comm, bool exec);

/* Sideband events kept as they came: KIND is "switch-in", "switch-out",
 * "itrace-start", "lost", "aux-lost", "exit", "fork"...; A and B are
 * kind-specific numbers (documented in gus-data(5)). */
int gusdata_add_event(struct gusdata *d, uint64_t time, int cpu, int pid, int tid, const char *kind,
		      uint64_t a, uint64_t b);
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
/* buffers (cpu, tid) that have chunks, each once, in order */
int gusdata_chunk_buffers(struct gusdata *d, int **cpu, int **tid, size_t *n);
/* calls FN on the chunks of buffer (CPU, TID) in stream order; DATA is valid
 * during the call only */
int gusdata_foreach_chunk(struct gusdata *d, int cpu, int tid,
			  int (*fn)(void *ctx, const struct gusdata_chunk *c), void *ctx);

/* the last SQLite error text */
const char *gusdata_errmsg(struct gusdata *d);

#endif
