/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OS-free half of Intel PT capture: perf records read out of a data
 * ring, AUX data copied out of an AUX area, both turned into gus.data
 * writes through a sink; and the intel_pt PMU's sysfs description. Every
 * input is a buffer (or a directory), so all of it is tested without the
 * hardware. Layouts follow <linux/perf_event.h>. */
#ifndef GUS_PTRING_H
#define GUS_PTRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "gusdata.h"

/* The sample_id trailer gus asks for (attr.sample_type with sample_id_all):
 * pid/tid, time and CPU for every sideband record, IDENTIFIER to tell the
 * intel_pt event from the dummy event that shares its ring. */
#define PTRING_SAMPLE_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct ptring_sample_id {
	bool valid;		/* the record carried a trailer */
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

/* One record, fields in host order; pointers into the ring or into the
 * reader's bounce buffer, valid until the next ptring_next. */
struct ptring_record {
	uint32_t type;		/* PERF_RECORD_* */
	uint16_t misc, size;
	const uint8_t *raw;	/* the whole record, contiguous */
	uint64_t offset;	/* its position in the ring's stream */
	struct ptring_sample_id sid;
	bool read_has_id;	/* SAMPLE: its read values carry ids */
	union {
		struct {	/* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min, prot, flags;
			uint64_t ino, ino_generation;
			uint8_t build_id[20];
			uint8_t build_id_size;	/* 0: maj/min/ino given instead */
			const char *filename;
		} mmap;
		struct {	/* COMM */
			uint32_t pid, tid;
			bool exec;
			const char *comm;
		} comm;
		struct {	/* AUX */
			uint64_t aux_offset, aux_size, flags;
		} aux;
		struct {	/* ITRACE_START */
			uint32_t pid, tid;
		} itrace;
		struct {	/* LOST: id, lost; LOST_SAMPLES: lost */
			uint64_t id, lost;
		} lost;
		struct {	/* SWITCH, SWITCH_CPU_WIDE */
			bool out, preempt, cpu_wide;
			uint32_t next_prev_pid, next_prev_tid;
		} sw;
		struct {	/* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct {	/* SAMPLE: the fields the reader's sample_type has, others 0 */
			uint64_t id, ip, time, addr, stream_id, period;
			uint32_t pid, tid, cpu;
			/* PERF_SAMPLE_CALLCHAIN: nr u64 entries (ptring_callchain_at),
			 * the kernel's PERF_CONTEXT_* markers among them */
			uint64_t nr;
			const uint8_t *callchain;
			/* PERF_SAMPLE_REGS_USER: the ABI (PERF_SAMPLE_REGS_ABI_*;
			 * 0: no user registers, a kernel thread) and, when not
			 * 0, regs_nr values of the reader's regs_user_mask
			 * (ptring_reg_at), lowest register number first */
			uint64_t regs_abi, regs_nr;
			const uint8_t *regs;
			/* PERF_SAMPLE_STACK_USER: the stack_size bytes the kernel
			 * copied from the user stack pointer up, of which stack_dyn
			 * (<= stack_size) hold the stack */
			uint64_t stack_size, stack_dyn;
			const uint8_t *stack;
			/* PERF_SAMPLE_READ, laid out by the reader's read_format:
			 * read_nr values (ptring_read_at; 1 without
			 * PERF_FORMAT_GROUP), the group's enabled and running
			 * times when read_format has them */
			uint64_t read_nr, read_enabled, read_running;
			const uint8_t *read;
			uint32_t read_stride;	/* bytes per value: value[, id][, lost] */
		} sample;
		struct {	/* THROTTLE, UNTHROTTLE; zero in a record too short to carry them */
			uint64_t time, id, stream_id;
		} throttle;
	} u;
};

/* The sample fields ptring parses (in the kernel's order); a SAMPLE record
 * of a sample_type with other bits is read up to its callchain (and its
 * user registers and stack only without RAW or BRANCH_STACK before them).
 * PERF_SAMPLE_READ is laid out by the reader's read_format. */
#define PTRING_SAMPLE_PARSED                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |            \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |              \
	 PERF_SAMPLE_STACK_USER)
/* the read_format bits ptring lays out */
#define PTRING_READ_FORMATS                                                                       \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_GROUP | \
	 PERF_FORMAT_LOST)

/* A data ring as mapped: BASE of SIZE bytes (a power of two), records
 * from TAIL up to HEAD (free-running counters as in perf_event_mmap_page).
 * Records split by the end of the ring are put together in bounce. */
struct ptring_reader {
	const uint8_t *base;
	uint64_t size, head, tail;
	uint64_t sample_type;	/* attr.sample_type */
	uint64_t read_format;	/* attr.read_format, for PERF_SAMPLE_READ (0 unless set) */
	uint64_t regs_user_mask;	/* attr.sample_regs_user, for PERF_SAMPLE_REGS_USER (0 unless set) */
	bool sample_id_all;
	uint8_t bounce[65536] __attribute__((aligned(8)));
};

void ptring_reader_init(struct ptring_reader *r, const void *base, uint64_t size, uint64_t head,
			uint64_t tail, uint64_t sample_type, bool sample_id_all);
/* 1 with the next record in REC, 0 at HEAD, -1 with ERR on a corrupt ring
 * (bad size, record past HEAD, body shorter than its type's layout); the
 * reader then stays at the bad record. A SAMPLE is laid out by the reader's
 * sample_type, and its task, CPU, time and id are copied to REC's sid. */
int ptring_next(struct ptring_reader *r, struct ptring_record *rec, char *err, size_t errlen);
/* the read_format of the events whose samples carry PERF_SAMPLE_READ */
void ptring_reader_set_read_format(struct ptring_reader *r, uint64_t read_format);
/* the sample_regs_user of the events whose samples carry PERF_SAMPLE_REGS_USER */
void ptring_reader_set_regs_user(struct ptring_reader *r, uint64_t mask);
/* user register I (< u.sample.regs_nr) of a SAMPLE record */
uint64_t ptring_reg_at(const struct ptring_record *rec, uint64_t i);
/* value I (< u.sample.read_nr) of a SAMPLE record's read, and its id (0
 * without PERF_FORMAT_ID) */
uint64_t ptring_read_at(const struct ptring_record *rec, uint64_t i, uint64_t *id);
/* entry I (< u.sample.nr) of a SAMPLE record's callchain */
uint64_t ptring_callchain_at(const struct ptring_record *rec, uint64_t i);
/* bytes of the sample_id trailer for SAMPLE_TYPE */
size_t ptring_sample_id_size(uint64_t sample_type);
const char *ptring_type_name(uint32_t type);

/* Copies SIZE bytes of the AUX stream from stream offset OFFSET out of the
 * AUX area AUX of AUX_SIZE bytes (a power of two), wrapping at its end.
 * -1 when SIZE exceeds the area: those bytes were overwritten. */
int ptring_aux_copy(const uint8_t *aux, uint64_t aux_size, uint64_t offset, uint64_t size, uint8_t *dst);
/* PERF_AUX_FLAG_* to GUSDATA_CHUNK_* */
uint32_t ptring_chunk_flags(uint64_t aux_flags);

/* An MMAP or MMAP2 record as a gus.data mapping at TIME; HEX (41 bytes)
 * holds the build-id the record carries, M's build_id then points at it. */
void ptring_mmap_of(const struct ptring_record *rec, uint64_t time, struct gusdata_mmap *m, char hex[41]);

/* Where parsed records go. ptring_gusdata_sink writes them to a gus.data;
 * tests put their own functions here. Non-zero from any stops the drain. */
struct ptring_sink {
	void *ctx;
	int (*mmap)(void *ctx, const struct gusdata_mmap *m);
	int (*comm)(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec);
	int (*event)(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a,
		     uint64_t b);
	int (*chunk)(void *ctx, const struct gusdata_chunk *c);
	/* optional: the hex build-id of FILENAME when its MMAP2 record carries
	 * none (the kernel gives them from Linux 5.12 with attr.build_id) */
	bool (*build_id)(void *bid_ctx, const char *filename, char *hex, size_t hexlen);
	void *bid_ctx;
};
void ptring_gusdata_sink(struct ptring_sink *s, struct gusdata *d);

/* One trace buffer (a CPU's data ring and AUX area) being captured. */
struct ptring_buffer {
	int cpu;
	bool snapshot;		/* AUX area mapped read-only: the kernel overwrites */
	const uint8_t *aux;
	uint64_t aux_size;
	uint64_t aux_done;	/* full mode: stream offset copied so far (the next aux_tail) */
	bool lost_pending;	/* the next chunk follows lost trace */
	/* snapshot mode */
	uint64_t snap_last;	/* head position at the previous snapshot */
	bool snap_wrapped;	/* the area has been filled once */
	uint64_t snap_stream;	/* bytes stored from this buffer so far */
	uint8_t *copy;		/* chunk staging, aux_size bytes */
	struct collect_pt_stats *st;
};

/* COPY is allocated here (aux_size bytes); ST may be shared by buffers. */
int ptring_buffer_init(struct ptring_buffer *b, int cpu, bool snapshot, const void *aux, uint64_t aux_size,
		       struct collect_pt_stats *st);
void ptring_buffer_fini(struct ptring_buffer *b);

enum {
	PTRING_CORRUPT = -1,	/* the ring or a record makes no sense */
	PTRING_SINK_FAILED = -2,	/* the sink refused a write */
};
/* Hands every record between R's tail and head to SINK; in full mode
 * each AUX record's data becomes a chunk (b->aux_done then says how far the
 * caller may move aux_tail). R's tail ends past the records handled (a
 * corrupt one stops it before), so the caller can store it as data_tail.
 * 0, or PTRING_CORRUPT / PTRING_SINK_FAILED with ERR. */
int ptring_drain(struct ptring_buffer *b, struct ptring_reader *r, const struct ptring_sink *s, char *err,
		 size_t errlen);

/* Snapshot mode: stores the AUX area as the kernel left it with its write
 * position at AUX_HEAD (user page aux_head, taken modulo the size).
 * Before the area first fills, the bytes written since the previous
 * snapshot; after, the whole area, oldest first, flagged OVERWRITE and
 * LOST_BEFORE: such a chunk starts mid-packet and may overlap the
 * previous one. Wrapping is seen from the kernel zeroing the area at
 * allocation: non-zero bytes after AUX_HEAD were written a lap ago. */
int ptring_snapshot(struct ptring_buffer *b, uint64_t aux_head, uint64_t time, const struct ptring_sink *s,
		    char *err, size_t errlen);

/* ----------------------------------------------------- sysfs --------- */
/* "config:14-17" -> *lo 14, *width 4; "config:10" -> 10, 1. Fields
 * other than config (config1...) are refused: gus sets config only. */
int ptring_parse_format(const char *text, int *lo, int *width);
/* Reads DIR (an event_source device directory: type, format/, caps/,
 * max_nonturbo_ratio, nr_addr_filters) into INFO. -1 with ERR naming the
 * file when type is missing or a file is malformed; absent format and
 * caps entries read as -1 / 0. */
int ptring_read_pmu(const char *dir, struct collect_pt_info *info, char *err, size_t errlen);

#endif
