/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading what the kernel leaves in a perf data ring and AUX area, and
 * the intel_pt PMU's sysfs files. No system calls on the rings: pt.c maps
 * them and moves the head/tail pointers, this file only interprets bytes,
 * so the tests feed it rings built by hand in the kernel's layout. */
#include "ptring.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields are copied out, never dereferenced in place: a record put
 * together in the bounce buffer or a corrupt ring may leave them unaligned. */
static uint16_t ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

const char *ptring_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	};
	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

size_t ptring_sample_id_size(uint64_t st)
{
	size_t n = 0;
	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

static void parse_sample_id(const uint8_t *p, uint64_t st, struct ptring_sample_id *sid)
{
	memset(sid, 0, sizeof(*sid));
	sid->valid = true;
	if (st & PERF_SAMPLE_TID) {
		sid->pid = ld32(p);
		sid->tid = ld32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		sid->time = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		sid->id = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = ld32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		sid->id = ld64(p);
}

void ptring_reader_init(struct ptring_reader *r, const void *base, uint64_t size, uint64_t head,
			uint64_t tail, uint64_t sample_type, bool sample_id_all)
{
	r->base = base;
	r->size = size;
	r->head = head;
	r->tail = tail;
	r->sample_type = sample_type;
	r->sample_id_all = sample_id_all;
	r->read_format = 0;
	r->regs_user_mask = 0;
}

void ptring_reader_set_regs_user(struct ptring_reader *r, uint64_t mask)
{
	r->regs_user_mask = mask;
}

uint64_t ptring_reg_at(const struct ptring_record *rec, uint64_t i)
{
	return i < rec->u.sample.regs_nr ? ld64(rec->u.sample.regs + 8 * i) : 0;
}

void ptring_reader_set_read_format(struct ptring_reader *r, uint64_t read_format)
{
	r->read_format = read_format;
}

uint64_t ptring_read_at(const struct ptring_record *rec, uint64_t i, uint64_t *id)
{
	const uint8_t *e = rec->u.sample.read + i * rec->u.sample.read_stride;
	if (id)
		*id = rec->u.sample.read_stride >= 16 && rec->read_has_id ? ld64(e + 8) : 0;
	return ld64(e);
}

/* the NUL-terminated string at P[from, to), or NULL */
static const char *str_in(const uint8_t *p, size_t from, size_t to)
{
	if (from >= to || !memchr(p + from, 0, to - from))
		return NULL;
	return (const char *)p + from;
}

uint64_t ptring_callchain_at(const struct ptring_record *rec, uint64_t i)
{
	return i < rec->u.sample.nr ? ld64(rec->u.sample.callchain + 8 * i) : 0;
}

/* A SAMPLE's fields sit in the order of their PERF_SAMPLE_* bits, each
 * present only when asked for; its size is the record's, with no trailer. */
static int parse_sample(struct ptring_record *rec, uint64_t st, uint64_t rf, uint64_t regs_mask, char *err,
			size_t errlen)
{
	const uint8_t *p = rec->raw;
	size_t at = 8, end = rec->size;
	const char *why = NULL;

	if ((st & PERF_SAMPLE_READ) && (rf & ~(uint64_t)PTRING_READ_FORMATS)) {
		snprintf(err, errlen,
			 "PERF_RECORD_SAMPLE at ring offset %" PRIu64 ": read_format 0x%" PRIx64
			 " has bits this reader does not lay out",
			 rec->offset, rf);
		return -1;
	}
	size_t fixed = 8 * (size_t)__builtin_popcountll(
				   st & (PTRING_SAMPLE_PARSED & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_READ)));
	if (st & PERF_SAMPLE_CALLCHAIN)
		fixed += 8;	/* nr */
	if (end < at + fixed) {
		why = "too short for its sample_type";
		goto bad;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		rec->u.sample.id = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		rec->u.sample.ip = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		rec->u.sample.pid = ld32(p + at);
		rec->u.sample.tid = ld32(p + at + 4);
		at += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		rec->u.sample.time = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		rec->u.sample.addr = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		rec->u.sample.id = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		rec->u.sample.stream_id = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		rec->u.sample.cpu = ld32(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		rec->u.sample.period = ld64(p + at);
		at += 8;
	}
	if (st & PERF_SAMPLE_READ) {
		/* GROUP: nr, [enabled], [running], {value, [id], [lost]} x nr;
		 * else value, [enabled], [running], [id], [lost] */
		size_t nt = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		size_t tpos;
		if (rf & PERF_FORMAT_GROUP) {
			if (end - at < 8 * (1 + nt)) {
				why = "too short for its read values";
				goto bad;
			}
			uint64_t nr = ld64(p + at);
			/* compared by division: a corrupt nr must not overflow */
			if (nr > (end - at - 8 * (1 + nt)) / (8 * per)) {
				why = "read values longer than the record";
				goto bad;
			}
			tpos = at + 8;
			rec->u.sample.read_nr = nr;
			rec->u.sample.read = p + at + 8 * (1 + nt);
			rec->u.sample.read_stride = (uint32_t)(8 * per);
			rec->read_has_id = (rf & PERF_FORMAT_ID) != 0;
			at += 8 * (1 + nt) + (size_t)nr * 8 * per;
		} else {
			size_t need = 8 * (nt + per);
			if (end - at < need) {
				why = "too short for its read values";
				goto bad;
			}
			tpos = at + 8;
			rec->u.sample.read_nr = 1;
			rec->u.sample.read = p + at;
			rec->u.sample.read_stride = 8;
			rec->read_has_id = false;
			at += need;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			rec->u.sample.read_enabled = ld64(p + tpos);
			tpos += 8;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rec->u.sample.read_running = ld64(p + tpos);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (end - at < 8) {
			why = "too short for its sample_type";
			goto bad;
		}
		uint64_t nr = ld64(p + at);
		at += 8;
		/* compared by division: a corrupt nr must not overflow */
		if (nr > (end - at) / 8) {
			why = "callchain longer than the record";
			goto bad;
		}
		rec->u.sample.nr = nr;
		rec->u.sample.callchain = p + at;
		at += (size_t)nr * 8;
	}
	/* the user registers and stack (perf record --call-graph dwarf)
	 * follow RAW and BRANCH_STACK, which gus never asks for */
	if (!(st & (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK))) {
		if (st & PERF_SAMPLE_REGS_USER) {
			if (end - at < 8) {
				why = "too short for its user registers";
				goto bad;
			}
			rec->u.sample.regs_abi = ld64(p + at);
			at += 8;
			if (rec->u.sample.regs_abi) {
				uint64_t n = (uint64_t)__builtin_popcountll(regs_mask);
				if (n > (end - at) / 8) {
					why = "user registers longer than the record";
					goto bad;
				}
				rec->u.sample.regs_nr = n;
				rec->u.sample.regs = p + at;
				at += (size_t)n * 8;
			}
		}
		if (st & PERF_SAMPLE_STACK_USER) {
			if (end - at < 8) {
				why = "too short for its user stack";
				goto bad;
			}
			uint64_t size = ld64(p + at);
			at += 8;
			if (size) {
				/* the bytes, then how many of them are the stack */
				if (size > end - at || end - at - size < 8) {
					why = "user stack longer than the record";
					goto bad;
				}
				rec->u.sample.stack_size = size;
				rec->u.sample.stack = p + at;
				uint64_t dyn = ld64(p + at + size);
				rec->u.sample.stack_dyn = dyn < size ? dyn : size;
				at += (size_t)size + 8;
			}
		}
	}
	/* the sample_id view of it, so that callers read any record's task
	 * and time in one place */
	rec->sid.valid = true;
	rec->sid.pid = rec->u.sample.pid;
	rec->sid.tid = rec->u.sample.tid;
	rec->sid.cpu = rec->u.sample.cpu;
	rec->sid.time = rec->u.sample.time;
	rec->sid.id = rec->u.sample.id;
	return 0;
bad:
	snprintf(err, errlen, "PERF_RECORD_SAMPLE at ring offset %" PRIu64 ": %u bytes, %s", rec->offset,
		 (unsigned)rec->size, why);
	return -1;
}

static int parse_body(struct ptring_record *rec, size_t body_end, uint64_t sample_type, uint64_t read_format,
		      uint64_t regs_mask, char *err, size_t errlen)
{
	const uint8_t *p = rec->raw;
	size_t need = 0;

	if (rec->type == PERF_RECORD_SAMPLE)
		return parse_sample(rec, sample_type, read_format, regs_mask, err, errlen);
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		need = 8 + 32 + 1;
		break;
	case PERF_RECORD_MMAP2:
		need = 8 + 64 + 1;
		break;
	case PERF_RECORD_COMM:
		need = 8 + 8 + 1;
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		need = 8 + 24;
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_AUX:
		need = rec->type == PERF_RECORD_AUX ? 8 + 24 : 8 + 16;
		break;
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		need = 8 + 8;
		break;
	default:
		need = 8;
		break;
	}
	if (body_end < need) {
		snprintf(err, errlen,
			 "PERF_RECORD_%s at ring offset %" PRIu64 ": %u bytes, too short for its layout "
			 "(%zu bytes and the %zu-byte sample_id)",
			 ptring_type_name(rec->type), rec->offset, (unsigned)rec->size, need,
			 rec->size - body_end);
		return -1;
	}

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		rec->u.mmap.pid = ld32(p + 8);
		rec->u.mmap.tid = ld32(p + 12);
		rec->u.mmap.addr = ld64(p + 16);
		rec->u.mmap.len = ld64(p + 24);
		rec->u.mmap.pgoff = ld64(p + 32);
		size_t name_at = 40;
		if (rec->type == PERF_RECORD_MMAP2) {
			if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				rec->u.mmap.build_id_size = p[40];
				if (rec->u.mmap.build_id_size > 20) {
					snprintf(err, errlen,
						 "PERF_RECORD_MMAP2 at ring offset %" PRIu64
						 ": build-id size %u, more than 20 bytes",
						 rec->offset, (unsigned)p[40]);
					return -1;
				}
				memcpy(rec->u.mmap.build_id, p + 44, 20);
			} else {
				rec->u.mmap.maj = ld32(p + 40);
				rec->u.mmap.min = ld32(p + 44);
				rec->u.mmap.ino = ld64(p + 48);
				rec->u.mmap.ino_generation = ld64(p + 56);
			}
			rec->u.mmap.prot = ld32(p + 64);
			rec->u.mmap.flags = ld32(p + 68);
			name_at = 72;
		}
		rec->u.mmap.filename = str_in(p, name_at, body_end);
		if (!rec->u.mmap.filename)
			goto unterminated;
		break;
	}
	case PERF_RECORD_COMM:
		rec->u.comm.pid = ld32(p + 8);
		rec->u.comm.tid = ld32(p + 12);
		rec->u.comm.exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
		rec->u.comm.comm = str_in(p, 16, body_end);
		if (!rec->u.comm.comm)
			goto unterminated;
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		rec->u.task.pid = ld32(p + 8);
		rec->u.task.ppid = ld32(p + 12);
		rec->u.task.tid = ld32(p + 16);
		rec->u.task.ptid = ld32(p + 20);
		rec->u.task.time = ld64(p + 24);
		break;
	case PERF_RECORD_LOST:
		rec->u.lost.id = ld64(p + 8);
		rec->u.lost.lost = ld64(p + 16);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		rec->u.lost.lost = ld64(p + 8);
		break;
	case PERF_RECORD_AUX:
		rec->u.aux.aux_offset = ld64(p + 8);
		rec->u.aux.aux_size = ld64(p + 16);
		rec->u.aux.flags = ld64(p + 24);
		break;
	case PERF_RECORD_ITRACE_START:
		rec->u.itrace.pid = ld32(p + 8);
		rec->u.itrace.tid = ld32(p + 12);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		/* its time and id repeat the sample_id's: a shorter record
		 * is not worth refusing */
		if (body_end >= 8 + 24) {
			rec->u.throttle.time = ld64(p + 8);
			rec->u.throttle.id = ld64(p + 16);
			rec->u.throttle.stream_id = ld64(p + 24);
		}
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		rec->u.sw.out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;
		rec->u.sw.preempt = rec->u.sw.out && (rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		rec->u.sw.cpu_wide = rec->type == PERF_RECORD_SWITCH_CPU_WIDE;
		if (rec->u.sw.cpu_wide) {
			rec->u.sw.next_prev_pid = ld32(p + 8);
			rec->u.sw.next_prev_tid = ld32(p + 12);
		}
		break;
	default:
		break;
	}
	return 0;
unterminated:
	snprintf(err, errlen, "PERF_RECORD_%s at ring offset %" PRIu64 ": name not terminated within the record",
		 ptring_type_name(rec->type), rec->offset);
	return -1;
}

int ptring_next(struct ptring_reader *r, struct ptring_record *rec, char *err, size_t errlen)
{
	if (r->tail == r->head)
		return 0;
	if (r->size < 8 || (r->size & (r->size - 1))) {
		snprintf(err, errlen, "data ring of %" PRIu64 " bytes: not a power of two of at least 8", r->size);
		return -1;
	}
	uint64_t avail = r->head - r->tail;
	if (avail > r->size) {
		snprintf(err, errlen,
			 "data ring: head %" PRIu64 " is %" PRIu64 " bytes past tail %" PRIu64
			 ", more than the ring's %" PRIu64 " (pointers corrupt or the ring overwritten)",
			 r->head, avail, r->tail, r->size);
		return -1;
	}
	if (r->tail % 8 || avail < 8) {
		snprintf(err, errlen, "data ring: %" PRIu64 " bytes at offset %" PRIu64 ", not a whole record header",
			 avail, r->tail);
		return -1;
	}
	uint64_t mask = r->size - 1, off = r->tail & mask;
	/* 8-byte records in a ring of 2^n bytes: a header never straddles the end */
	const uint8_t *h = r->base + off;
	uint32_t type = ld32(h);
	uint16_t misc = ld16(h + 4), size = ld16(h + 6);
	const char *bad = NULL;
	if (size == 0)
		bad = "size 0";
	else if (size % 8)
		bad = "size not a multiple of 8";
	else if (size > r->size)
		bad = "larger than the ring";
	else if (size > avail)
		bad = "runs past the ring's head";
	if (bad) {
		snprintf(err, errlen,
			 "data ring: record at offset %" PRIu64 " (type %u, %u bytes): %s; the ring is corrupt",
			 r->tail, type, (unsigned)size, bad);
		return -1;
	}

	memset(rec, 0, sizeof(*rec));
	if (off + size <= r->size) {
		rec->raw = h;
	} else {
		size_t first = (size_t)(r->size - off);
		memcpy(r->bounce, h, first);
		memcpy(r->bounce + first, r->base, size - first);
		rec->raw = r->bounce;
	}
	rec->type = type;
	rec->misc = misc;
	rec->size = size;
	rec->offset = r->tail;

	size_t body_end = size;
	if (r->sample_id_all && type != PERF_RECORD_SAMPLE) {
		size_t ts = ptring_sample_id_size(r->sample_type);
		if (ts && size >= 8 + ts) {
			body_end = size - ts;
			parse_sample_id(rec->raw + body_end, r->sample_type, &rec->sid);
		} else if (ts && type < PERF_RECORD_MAX) {
			snprintf(err, errlen,
				 "PERF_RECORD_%s at ring offset %" PRIu64 ": %u bytes, no room for its %zu-byte sample_id",
				 ptring_type_name(type), r->tail, (unsigned)size, ts);
			return -1;
		}
	}
	if (parse_body(rec, body_end, r->sample_type, r->read_format, r->regs_user_mask, err, errlen))
		return -1;
	r->tail += size;
	return 1;
}

int ptring_aux_copy(const uint8_t *aux, uint64_t aux_size, uint64_t offset, uint64_t size, uint8_t *dst)
{
	if (size > aux_size)
		return -1;
	uint64_t off = offset & (aux_size - 1);
	uint64_t first = aux_size - off < size ? aux_size - off : size;
	memcpy(dst, aux + off, first);
	memcpy(dst + first, aux, size - first);
	return 0;
}

uint32_t ptring_chunk_flags(uint64_t f)
{
	uint32_t c = 0;
	if (f & PERF_AUX_FLAG_TRUNCATED)
		c |= GUSDATA_CHUNK_TRUNCATED;
	if (f & PERF_AUX_FLAG_OVERWRITE)
		c |= GUSDATA_CHUNK_OVERWRITE;
	if (f & PERF_AUX_FLAG_PARTIAL)
		c |= GUSDATA_CHUNK_PARTIAL;
	if (f & PERF_AUX_FLAG_COLLISION)
		c |= GUSDATA_CHUNK_COLLISION;
	return c;
}

/* --------------------------------------------------- gus.data sink --- */
static int gd_mmap(void *ctx, const struct gusdata_mmap *m)
{
	return gusdata_add_mmap(ctx, m);
}

static int gd_comm(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	return gusdata_add_comm(ctx, time, pid, tid, comm, exec);
}

static int gd_event(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a,
		    uint64_t b)
{
	return gusdata_add_event(ctx, time, cpu, pid, tid, kind, a, b);
}

static int gd_chunk(void *ctx, const struct gusdata_chunk *c)
{
	return gusdata_add_chunk(ctx, c);
}

void ptring_gusdata_sink(struct ptring_sink *s, struct gusdata *d)
{
	memset(s, 0, sizeof(*s));
	s->ctx = d;
	s->mmap = gd_mmap;
	s->comm = gd_comm;
	s->event = gd_event;
	s->chunk = gd_chunk;
}

/* ------------------------------------------------------ buffers ------ */
int ptring_buffer_init(struct ptring_buffer *b, int cpu, bool snapshot, const void *aux, uint64_t aux_size,
		       struct collect_pt_stats *st)
{
	memset(b, 0, sizeof(*b));
	if (!aux_size || (aux_size & (aux_size - 1)))
		return -1;
	b->cpu = cpu;
	b->snapshot = snapshot;
	b->aux = aux;
	b->aux_size = aux_size;
	b->st = st;
	b->copy = malloc(aux_size);
	return b->copy ? 0 : -1;
}

void ptring_buffer_fini(struct ptring_buffer *b)
{
	free(b->copy);
	b->copy = NULL;
}

static int aux_flag_events(struct ptring_buffer *b, const struct ptring_record *rec, const struct ptring_sink *s,
			   int cpu, int pid, int tid)
{
	static const struct {
		uint64_t flag;
		const char *kind;
	} kinds[] = {
		{ PERF_AUX_FLAG_TRUNCATED, "aux-truncated" },
		{ PERF_AUX_FLAG_PARTIAL, "aux-partial" },
		{ PERF_AUX_FLAG_COLLISION, "aux-collision" },
	};
	uint64_t f = rec->u.aux.flags;
	if (f & PERF_AUX_FLAG_TRUNCATED)
		b->st->truncated++;
	if (f & PERF_AUX_FLAG_PARTIAL)
		b->st->partial++;
	if (f & PERF_AUX_FLAG_COLLISION)
		b->st->collisions++;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((f & kinds[i].flag) &&
		    s->event(s->ctx, rec->sid.time, cpu, pid, tid, kinds[i].kind, rec->u.aux.aux_size,
			     rec->u.aux.aux_offset))
			return PTRING_SINK_FAILED;
	return 0;
}

static int handle_aux(struct ptring_buffer *b, const struct ptring_record *rec, const struct ptring_sink *s,
		      char *err, size_t errlen)
{
	uint64_t off = rec->u.aux.aux_offset, size = rec->u.aux.aux_size;

	b->st->aux_records++;
	/* snapshot mode: the record only says where the head was; the data
	 * is taken by ptring_snapshot */
	if (b->snapshot)
		return 0;
	if (off < b->aux_done) {
		snprintf(err, errlen,
			 "CPU %d: AUX record at stream offset %" PRIu64 " overlaps data already read (up to %" PRIu64 ")",
			 b->cpu, off, b->aux_done);
		return PTRING_CORRUPT;
	}
	if (size > b->aux_size) {
		snprintf(err, errlen,
			 "CPU %d: AUX record of %" PRIu64 " bytes, larger than the %" PRIu64 "-byte AUX area", b->cpu,
			 size, b->aux_size);
		return PTRING_CORRUPT;
	}
	if (off > b->aux_done)
		b->lost_pending = true;
	if (size) {
		struct gusdata_chunk c = {
			.cpu = b->cpu,
			.tid = -1,
			.aux_offset = off,
			.time = rec->sid.time,
			.flags = ptring_chunk_flags(rec->u.aux.flags),
			.size = (size_t)size,
		};
		uint64_t pos = off & (b->aux_size - 1);
		if (pos + size <= b->aux_size) {
			c.data = b->aux + pos;
		} else {
			ptring_aux_copy(b->aux, b->aux_size, off, size, b->copy);
			c.data = b->copy;
		}
		if (b->lost_pending)
			c.flags |= GUSDATA_CHUNK_LOST_BEFORE;
		if (s->chunk(s->ctx, &c)) {
			snprintf(err, errlen, "CPU %d: storing %" PRIu64 " bytes of trace failed", b->cpu, size);
			return PTRING_SINK_FAILED;
		}
		b->st->aux_bytes += size;
		b->lost_pending = false;
	}
	b->aux_done = off + size;
	/* the hardware stopped until aux_tail moved: what it missed is gone */
	if (rec->u.aux.flags & PERF_AUX_FLAG_TRUNCATED)
		b->lost_pending = true;
	return 0;
}

static int bytes_to_hex(const uint8_t *p, size_t n, char *hex, size_t hexlen)
{
	if (hexlen < 2 * n + 1)
		return -1;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", p[i]);
	hex[2 * n] = 0;
	return 0;
}

void ptring_mmap_of(const struct ptring_record *rec, uint64_t time, struct gusdata_mmap *m, char hex[41])
{
	*m = (struct gusdata_mmap){
		.time = time,
		.pid = (int)rec->u.mmap.pid,
		.tid = (int)rec->u.mmap.tid,
		.start = rec->u.mmap.addr,
		.len = rec->u.mmap.len,
		.pgoff = rec->u.mmap.pgoff,
		.prot = rec->u.mmap.prot,
		.flags = rec->u.mmap.flags,
		.filename = rec->u.mmap.filename,
	};
	if (rec->u.mmap.build_id_size && !bytes_to_hex(rec->u.mmap.build_id, rec->u.mmap.build_id_size, hex, 41))
		m->build_id = hex;
}

static int handle_record(struct ptring_buffer *b, const struct ptring_record *rec, const struct ptring_sink *s,
			 char *err, size_t errlen)
{
	const struct ptring_sample_id *sid = &rec->sid;
	int cpu = sid->valid ? (int)sid->cpu : b->cpu;
	int pid = sid->valid ? (int)sid->pid : -1, tid = sid->valid ? (int)sid->tid : -1;
	uint64_t time = sid->valid ? sid->time : 0;
	int rc = 0;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		char hex[41];
		struct gusdata_mmap m;
		ptring_mmap_of(rec, time, &m, hex);
		if (!m.build_id && s->build_id && m.filename[0] == '/' &&
		    s->build_id(s->bid_ctx, m.filename, hex, 41))
			m.build_id = hex;
		b->st->mmaps++;
		rc = s->mmap(s->ctx, &m);
		break;
	}
	case PERF_RECORD_COMM:
		b->st->comms++;
		rc = s->comm(s->ctx, time, (int)rec->u.comm.pid, (int)rec->u.comm.tid, rec->u.comm.comm,
			     rec->u.comm.exec);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		rc = s->event(s->ctx, sid->valid ? time : rec->u.task.time, cpu, (int)rec->u.task.pid,
			      (int)rec->u.task.tid, rec->type == PERF_RECORD_EXIT ? "exit" : "fork", rec->u.task.ppid,
			      rec->u.task.ptid);
		break;
	case PERF_RECORD_ITRACE_START:
		rc = s->event(s->ctx, time, cpu, (int)rec->u.itrace.pid, (int)rec->u.itrace.tid, "itrace-start", 0,
			      0);
		break;
	case PERF_RECORD_LOST:
		b->st->lost_records += rec->u.lost.lost;
		/* sideband is gone: an mmap may be missing, so decoding that
		 * follows may go wrong; the report says so from this event */
		rc = s->event(s->ctx, time, cpu, pid, tid, "lost", rec->u.lost.lost, rec->u.lost.id);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		b->st->lost_samples += rec->u.lost.lost;
		rc = s->event(s->ctx, time, cpu, pid, tid, "lost-samples", rec->u.lost.lost, 0);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		b->st->switches++;
		rc = s->event(s->ctx, time, cpu, pid, tid, rec->u.sw.out ? "switch-out" : "switch-in",
			      rec->u.sw.preempt, rec->u.sw.next_prev_tid);
		break;
	case PERF_RECORD_AUX:
		if (aux_flag_events(b, rec, s, cpu, pid, tid))
			rc = -1;
		else
			return handle_aux(b, rec, s, err, errlen);
		break;
	default:
		/* THROTTLE, KSYMBOL, TEXT_POKE... nothing decoding user space needs */
		break;
	}
	if (rc) {
		snprintf(err, errlen, "CPU %d: storing a PERF_RECORD_%s failed", b->cpu, ptring_type_name(rec->type));
		return PTRING_SINK_FAILED;
	}
	return 0;
}

int ptring_drain(struct ptring_buffer *b, struct ptring_reader *r, const struct ptring_sink *s, char *err,
		 size_t errlen)
{
	struct ptring_record rec;
	int rc;
	while ((rc = ptring_next(r, &rec, err, errlen)) > 0) {
		rc = handle_record(b, &rec, s, err, errlen);
		if (rc)
			return rc;
	}
	return rc < 0 ? PTRING_CORRUPT : 0;
}

static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int ptring_snapshot(struct ptring_buffer *b, uint64_t aux_head, uint64_t time, const struct ptring_sink *s,
		    char *err, size_t errlen)
{
	uint64_t size = b->aux_size, head = aux_head & (size - 1);
	struct gusdata_chunk c = { .cpu = b->cpu, .tid = -1, .aux_offset = b->snap_stream, .time = time };

	if (!b->snap_wrapped && (head < b->snap_last || !all_zero(b->aux + head, size - head)))
		b->snap_wrapped = true;
	if (!b->snap_wrapped) {
		c.size = (size_t)(head - b->snap_last);
		c.data = b->aux + b->snap_last;
	} else {
		ptring_aux_copy(b->aux, size, head, size, b->copy);
		c.size = (size_t)size;
		c.data = b->copy;
		c.flags = GUSDATA_CHUNK_OVERWRITE | GUSDATA_CHUNK_LOST_BEFORE;
	}
	b->snap_last = head;
	if (!c.size)
		return 0;
	if (s->chunk(s->ctx, &c) ||
	    (b->snap_wrapped && s->event(s->ctx, time, b->cpu, -1, -1, "aux-overwrite", c.size, c.aux_offset))) {
		snprintf(err, errlen, "CPU %d: storing a %zu-byte snapshot failed", b->cpu, c.size);
		return -1;
	}
	if (b->snap_wrapped)
		b->st->overwritten++;
	b->snap_stream += c.size;
	b->st->aux_bytes += c.size;
	return 0;
}

/* -------------------------------------------------------- sysfs ------ */
int ptring_parse_format(const char *text, int *lo, int *width)
{
	const char *p = text;
	if (strncmp(p, "config:", 7))
		return -1;
	p += 7;
	char *end;
	errno = 0;
	long a = strtol(p, &end, 10), b;
	if (end == p || errno || a < 0 || a > 63)
		return -1;
	p = end;
	if (*p == '-') {
		p++;
		b = strtol(p, &end, 10);
		if (end == p || errno || b < a || b > 63)
			return -1;
		p = end;
	} else {
		b = a;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	if (*p)
		return -1;	/* "config:1,3" or other layouts gus does not build */
	*lo = (int)a;
	*width = (int)(b - a + 1);
	return 0;
}

/* 1 with the file's first line in BUF, 0 when absent, -1 on a read error */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 1;
}

static int read_format(const char *dir, const char *name, bool one_bit, int *lo, int *width, char *err,
		       size_t errlen)
{
	char buf[128], file[64];
	int w = 0;
	snprintf(file, sizeof(file), "format/%s", name);
	*lo = -1;
	if (width)
		*width = 0;
	int rc = read_line(dir, file, buf, sizeof(buf));
	if (rc == 0)
		return 0;
	if (rc < 0 || ptring_parse_format(buf, lo, &w) || (one_bit && w != 1)) {
		snprintf(err, errlen, "%s/%s: '%s' is not a config bit%s ('config:N'%s)", dir, file, rc < 0 ? "" : buf,
			 one_bit ? "" : " range", one_bit ? "" : " or 'config:N-M'");
		*lo = -1;
		return -1;
	}
	if (width)
		*width = w;
	return 0;
}

static int read_number(const char *dir, const char *name, int base, unsigned *v, char *err, size_t errlen)
{
	char buf[128];
	*v = 0;
	int rc = read_line(dir, name, buf, sizeof(buf));
	if (rc == 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long x = rc > 0 ? strtoul(buf, &end, base) : 0;
	if (rc < 0 || end == buf || *end || errno || x > 0xffffffffUL) {
		snprintf(err, errlen, "%s/%s: '%s' is not a %s number", dir, name, rc < 0 ? "" : buf,
			 base == 16 ? "hexadecimal" : "decimal");
		return -1;
	}
	*v = (unsigned)x;
	return 0;
}

int ptring_read_pmu(const char *dir, struct collect_pt_info *info, char *err, size_t errlen)
{
	unsigned type, v;
	memset(info, 0, sizeof(*info));
	info->type = -1;
	char buf[64];
	if (read_line(dir, "type", buf, sizeof(buf)) != 1) {
		snprintf(err, errlen, "%s/type: cannot read the PMU's perf_event_attr.type", dir);
		return -1;
	}
	if (read_number(dir, "type", 10, &type, err, errlen))
		return -1;
	info->type = (int)type;
	if (read_format(dir, "pt", true, &info->bit_pt, NULL, err, errlen) ||
	    read_format(dir, "tsc", true, &info->bit_tsc, NULL, err, errlen) ||
	    read_format(dir, "noretcomp", true, &info->bit_noretcomp, NULL, err, errlen) ||
	    read_format(dir, "branch", true, &info->bit_branch, NULL, err, errlen) ||
	    read_format(dir, "mtc", true, &info->bit_mtc, NULL, err, errlen) ||
	    read_format(dir, "cyc", true, &info->bit_cyc, NULL, err, errlen) ||
	    read_format(dir, "psb_period", false, &info->bit_psb_period_lo, &info->psb_period_width, err, errlen) ||
	    read_format(dir, "mtc_period", false, &info->bit_mtc_period_lo, &info->mtc_period_width, err, errlen))
		return -1;
	if (read_number(dir, "caps/psb_periods", 16, &info->caps_psb_periods, err, errlen) ||
	    read_number(dir, "caps/mtc_periods", 16, &info->caps_mtc_periods, err, errlen) ||
	    read_number(dir, "caps/num_address_ranges", 16, &info->caps_addr_filters, err, errlen) ||
	    read_number(dir, "max_nonturbo_ratio", 10, &info->max_nonturbo_ratio, err, errlen))
		return -1;
	if (read_number(dir, "caps/ip_filtering", 16, &v, err, errlen))
		return -1;
	info->caps_ip_filtering = v;
	if (read_number(dir, "caps/psb_cyc", 16, &v, err, errlen))
		return -1;
	info->caps_psb_cyc = v;
	if (read_number(dir, "caps/mtc", 16, &v, err, errlen))
		return -1;
	info->caps_mtc = v;
	/* older kernels without caps/num_address_ranges still say it here */
	if (!info->caps_addr_filters && read_number(dir, "nr_addr_filters", 10, &info->caps_addr_filters, err, errlen))
		return -1;
	return 0;
}
