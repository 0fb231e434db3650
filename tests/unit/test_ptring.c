/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT capture without the hardware: data rings and AUX areas built
 * here in the kernel's layout (struct perf_event_header, record bodies,
 * the sample_id trailer, 8-byte padding), read back through ptring; the
 * sysfs parser on a fake intel_pt directory; config bits; address
 * filters; and the capture itself stopping cleanly where there is no PT. */
#include "tap.h"
#include "collect.h"
#include "gusdata.h"
#include "ptring.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char err[COLLECT_ERRLEN];

/* ------------------------------------------------ ring building ----- */
struct ring {
	uint8_t *buf;
	uint64_t size, head;
};

static void ring_put(struct ring *r, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		r->buf[(r->head + i) & (r->size - 1)] = ((const uint8_t *)p)[i];
	r->head += n;
}

struct body {
	uint8_t b[512];
	size_t n;
};

static void b_put(struct body *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void b_u32(struct body *b, uint32_t v)
{
	b_put(b, &v, 4);
}

static void b_u64(struct body *b, uint64_t v)
{
	b_put(b, &v, 8);
}

static void b_str(struct body *b, const char *s)
{
	b_put(b, s, strlen(s) + 1);
	while (b->n % 8)
		b->b[b->n++] = 0;
}

struct sid {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
};

static const struct sid SID = { 100, 101, 3, 5000, 77 };

/* header, body padded to 8, then the TID|TIME|CPU|IDENTIFIER trailer */
static void put_rec(struct ring *r, uint32_t type, uint16_t misc, const struct body *b, const struct sid *s)
{
	size_t body = b ? b->n : 0, pad = (8 - body % 8) % 8;
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)(8 + body + pad + 32) };
	ring_put(r, &h, sizeof(h));
	if (body)
		ring_put(r, b->b, body);
	static const uint8_t zeros[8];
	ring_put(r, zeros, pad);
	uint32_t pt[2] = { s->pid, s->tid }, cpu[2] = { s->cpu, 0 };
	ring_put(r, pt, 8);
	ring_put(r, &s->time, 8);
	ring_put(r, cpu, 8);
	ring_put(r, &s->id, 8);
}

static void put_mmap2(struct ring *r, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		      const uint8_t *build_id, uint8_t bid_size, const char *file)
{
	struct body b = { .n = 0 };
	b_u32(&b, pid);
	b_u32(&b, pid + 1);
	b_u64(&b, addr);
	b_u64(&b, len);
	b_u64(&b, pgoff);
	if (build_id) {
		uint8_t u[24] = { bid_size };
		memcpy(u + 4, build_id, 20);
		b_put(&b, u, 24);
	} else {
		b_u32(&b, 8);	/* maj */
		b_u32(&b, 1);	/* min */
		b_u64(&b, 123456);	/* ino */
		b_u64(&b, 9);	/* ino_generation */
	}
	b_u32(&b, 5);	/* PROT_READ|PROT_EXEC */
	b_u32(&b, 2);	/* MAP_PRIVATE */
	b_str(&b, file);
	put_rec(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0), &b,
		&SID);
}

static void put_aux(struct ring *r, uint64_t off, uint64_t size, uint64_t flags)
{
	struct body b = { .n = 0 };
	b_u64(&b, off);
	b_u64(&b, size);
	b_u64(&b, flags);
	put_rec(r, PERF_RECORD_AUX, 0, &b, &SID);
}

static void put_two_u32(struct ring *r, uint32_t type, uint16_t misc, uint32_t x, uint32_t y)
{
	struct body b = { .n = 0 };
	b_u32(&b, x);
	b_u32(&b, y);
	put_rec(r, type, misc, &b, &SID);
}

static void put_u64s(struct ring *r, uint32_t type, uint64_t x, uint64_t y, int n)
{
	struct body b = { .n = 0 };
	b_u64(&b, x);
	if (n > 1)
		b_u64(&b, y);
	put_rec(r, type, 0, &b, &SID);
}

static void put_task(struct ring *r, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct body b = { .n = 0 };
	b_u32(&b, pid);
	b_u32(&b, ppid);
	b_u32(&b, tid);
	b_u32(&b, ptid);
	b_u64(&b, 4242);
	put_rec(r, type, 0, &b, &SID);
}

static void put_comm(struct ring *r, uint32_t pid, const char *comm, bool exec)
{
	struct body b = { .n = 0 };
	b_u32(&b, pid);
	b_u32(&b, pid);
	b_str(&b, comm);
	put_rec(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, &b, &SID);
}

/* ------------------------------------------------- observing sink --- */
struct obs {
	int nmmap, ncomm, nev, nchunk;
	struct {
		char file[64], bid[48];
		uint64_t start, len, pgoff;
		int pid, tid;
		uint32_t prot, flags;
		uint64_t time;
		bool has_bid;
	} mmap[32];
	struct {
		char comm[32];
		bool exec;
		int pid;
	} comm[8];
	struct {
		char kind[32];
		uint64_t a, b, time;
		int cpu, pid, tid;
	} ev[256];
	struct {
		uint64_t off, time;
		uint32_t flags;
		int cpu, tid;
		size_t size;
		uint8_t data[256];
	} chunk[16];
	int fail_after;	/* the sink refuses its Nth write (0: never) */
	int writes;
};

static int obs_count(struct obs *o)
{
	return o->fail_after && ++o->writes >= o->fail_after;
}

static int obs_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct obs *o = ctx;
	if (obs_count(o) || o->nmmap == 32)
		return -1;
	__typeof__(o->mmap[0]) *x = &o->mmap[o->nmmap++];
	snprintf(x->file, sizeof(x->file), "%s", m->filename);
	x->has_bid = m->build_id != NULL;
	snprintf(x->bid, sizeof(x->bid), "%s", m->build_id ? m->build_id : "");
	x->start = m->start;
	x->len = m->len;
	x->pgoff = m->pgoff;
	x->pid = m->pid;
	x->tid = m->tid;
	x->prot = m->prot;
	x->flags = m->flags;
	x->time = m->time;
	return 0;
}

static int obs_comm(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	struct obs *o = ctx;
	(void)time;
	(void)tid;
	if (obs_count(o) || o->ncomm == 8)
		return -1;
	snprintf(o->comm[o->ncomm].comm, sizeof(o->comm[0].comm), "%s", comm);
	o->comm[o->ncomm].exec = exec;
	o->comm[o->ncomm++].pid = pid;
	return 0;
}

static int obs_event(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a, uint64_t b)
{
	struct obs *o = ctx;
	if (obs_count(o) || o->nev == 256)
		return -1;
	__typeof__(o->ev[0]) *x = &o->ev[o->nev++];
	snprintf(x->kind, sizeof(x->kind), "%s", kind);
	x->a = a;
	x->b = b;
	x->time = time;
	x->cpu = cpu;
	x->pid = pid;
	x->tid = tid;
	return 0;
}

static int obs_chunk(void *ctx, const struct gusdata_chunk *c)
{
	struct obs *o = ctx;
	if (obs_count(o) || o->nchunk == 16 || c->size > 256)
		return -1;
	__typeof__(o->chunk[0]) *x = &o->chunk[o->nchunk++];
	x->off = c->aux_offset;
	x->time = c->time;
	x->flags = c->flags;
	x->cpu = c->cpu;
	x->tid = c->tid;
	x->size = c->size;
	memcpy(x->data, c->data, c->size);
	return 0;
}

static bool obs_bid(void *ctx, const char *file, char *hex, size_t len)
{
	(void)ctx;
	if (strcmp(file, "/usr/lib/libfromfile.so"))
		return false;
	snprintf(hex, len, "%s", "feedface");
	return true;
}

static void obs_sink(struct ptring_sink *s, struct obs *o)
{
	memset(o, 0, sizeof(*o));
	memset(s, 0, sizeof(*s));
	s->ctx = o;
	s->mmap = obs_mmap;
	s->comm = obs_comm;
	s->event = obs_event;
	s->chunk = obs_chunk;
	s->build_id = obs_bid;
}

static int find_ev(const struct obs *o, const char *kind, int nth)
{
	for (int i = 0; i < o->nev; i++)
		if (!strcmp(o->ev[i].kind, kind) && nth-- == 0)
			return i;
	return -1;
}

static struct ptring_reader rd;

static int drain(struct ptring_buffer *b, struct ring *r, uint64_t tail, const struct ptring_sink *s)
{
	ptring_reader_init(&rd, r->buf, r->size, r->head, tail, PTRING_SAMPLE_TYPE, true);
	return ptring_drain(b, &rd, s, err, sizeof(err));
}

/* ------------------------------------------------------- tests ------ */
static void test_records(void)
{
	uint8_t mem[4096] = { 0 }, aux[64];
	struct ring r = { mem, sizeof(mem), 0 };
	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	struct ptring_sink s;
	struct obs o;
	uint8_t bid[20];
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);

	put_mmap2(&r, 42, 0x400000, 0x2000, 0x1, bid, 20, "/usr/bin/app");
	put_mmap2(&r, 42, 0x7f0000000000, 0x10000, 0, NULL, 0, "/usr/lib/libfromfile.so");
	put_mmap2(&r, 42, 0x7fff0000, 0x2000, 0, NULL, 0, "[vdso]");
	put_comm(&r, 42, "app", true);
	put_comm(&r, 43, "worker", false);
	put_two_u32(&r, PERF_RECORD_ITRACE_START, 0, 42, 42);
	put_task(&r, PERF_RECORD_FORK, 43, 42, 44, 42);
	put_task(&r, PERF_RECORD_EXIT, 43, 42, 44, 42);
	put_u64s(&r, PERF_RECORD_LOST, 12, 7, 2);	/* id 12, 7 lost */
	put_u64s(&r, PERF_RECORD_LOST_SAMPLES, 5, 0, 1);
	put_rec(&r, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, NULL,
		&SID);
	put_rec(&r, PERF_RECORD_SWITCH, 0, NULL, &SID);
	put_two_u32(&r, PERF_RECORD_SWITCH_CPU_WIDE, 0, 900, 901);
	{
		/* a type from the future: skipped by its size */
		struct body u = { .n = 0 };
		b_u64(&u, 1);
		b_u64(&u, 2);
		b_u64(&u, 3);
		put_rec(&r, 99, 0, &u, &SID);
	}
	put_rec(&r, PERF_RECORD_THROTTLE, 0, NULL, &SID);
	put_u64s(&r, PERF_RECORD_LOST, 12, 3, 2);

	ptring_buffer_init(&b, 3, false, aux, sizeof(aux), &st);
	obs_sink(&s, &o);
	int rc = drain(&b, &r, 0, &s);
	tap_ok(rc == 0 && rd.tail == r.head, "a ring of every sideband type drains to its head (%s)", rc ? err : "");

	tap_ok(o.nmmap == 3 && st.mmaps == 3, "three MMAP2 records (%d)", o.nmmap);
	tap_ok(o.mmap[0].has_bid && !strcmp(o.mmap[0].bid, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3"),
	       "MMAP2 with MISC_MMAP_BUILD_ID: the record's build-id in hex (%s)", o.mmap[0].bid);
	tap_ok(o.mmap[0].start == 0x400000 && o.mmap[0].len == 0x2000 && o.mmap[0].pgoff == 1 &&
		       o.mmap[0].pid == 42 && o.mmap[0].tid == 43 && o.mmap[0].prot == 5 && o.mmap[0].flags == 2 &&
		       o.mmap[0].time == SID.time,
	       "MMAP2 fields: addr, len, pgoff, pid/tid, prot, flags, time from sample_id");
	tap_streq(o.mmap[0].file, "/usr/bin/app", "MMAP2 filename");
	tap_ok(o.mmap[1].has_bid && !strcmp(o.mmap[1].bid, "feedface"),
	       "MMAP2 with maj/min/ino: build-id asked from the file (%s)", o.mmap[1].bid);
	tap_ok(!o.mmap[2].has_bid, "no build-id lookup for [vdso]");
	tap_ok(o.ncomm == 2 && o.comm[0].exec && !o.comm[1].exec && !strcmp(o.comm[1].comm, "worker") &&
		       st.comms == 2,
	       "COMM: name, MISC_COMM_EXEC as exec");
	int i = find_ev(&o, "itrace-start", 0);
	tap_ok(i >= 0 && o.ev[i].pid == 42 && o.ev[i].cpu == 3, "ITRACE_START: event with its pid, sample_id's cpu");
	i = find_ev(&o, "fork", 0);
	tap_ok(i >= 0 && o.ev[i].pid == 43 && o.ev[i].tid == 44 && o.ev[i].a == 42 && o.ev[i].b == 42 &&
		       o.ev[i].time == SID.time,
	       "FORK: pid/tid, a = ppid, b = ptid");
	tap_ok(find_ev(&o, "exit", 0) >= 0, "EXIT: event");
	i = find_ev(&o, "lost", 0);
	tap_ok(i >= 0 && o.ev[i].a == 7 && o.ev[i].b == 12 && find_ev(&o, "lost", 1) >= 0 && st.lost_records == 10,
	       "LOST: a = records lost, b = id; stats sum them (%llu)", (unsigned long long)st.lost_records);
	i = find_ev(&o, "lost-samples", 0);
	tap_ok(i >= 0 && o.ev[i].a == 5 && st.lost_samples == 5, "LOST_SAMPLES counted");
	i = find_ev(&o, "switch-out", 0);
	tap_ok(i >= 0 && o.ev[i].a == 1 && o.ev[i].pid == 100 && o.ev[i].tid == 101,
	       "SWITCH out, preempted: a = 1, task from sample_id");
	i = find_ev(&o, "switch-in", 0);
	tap_ok(i >= 0 && o.ev[i].a == 0, "SWITCH in");
	i = find_ev(&o, "switch-in", 1);
	tap_ok(i >= 0 && o.ev[i].b == 901 && st.switches == 3, "SWITCH_CPU_WIDE in: b = previous tid");
	tap_ok(o.nev == 9, "unknown and THROTTLE records make no events (%d events)", o.nev);
	ptring_buffer_fini(&b);
}

static void test_wrap(void)
{
	uint8_t mem[256], aux[64];
	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	struct ptring_sink s;
	struct obs o;
	int ok = 1;
	/* every start position: records straddle the end at every offset */
	for (uint64_t start = 0; start < 256; start += 8) {
		memset(mem, 0xee, sizeof(mem));
		struct ring r = { mem, sizeof(mem), 1024 + start };
		put_mmap2(&r, 7, 0x1000, 0x1000, 0, NULL, 0, "/some/rather/long/path/to/a/library.so.1");
		put_comm(&r, 7, "name-across-the-end", false);
		ptring_buffer_init(&b, 0, false, aux, sizeof(aux), &st);
		obs_sink(&s, &o);
		s.build_id = NULL;
		int rc = drain(&b, &r, 1024 + start, &s);
		ok &= rc == 0 && o.nmmap == 1 && !strcmp(o.mmap[0].file, "/some/rather/long/path/to/a/library.so.1") &&
		      o.mmap[0].start == 0x1000 && o.ncomm == 1 && !strcmp(o.comm[0].comm, "name-across-the-end");
		ptring_buffer_fini(&b);
	}
	tap_ok(ok, "records split by the ring's end are read whole (every 8-byte start position)");
}

static void test_corrupt(void)
{
	uint8_t mem[256];
	struct ptring_record rec;
	struct ring r = { mem, sizeof(mem), 0 };
	struct perf_event_header h;

	memset(mem, 0, sizeof(mem));
	r.head = 64;
	ptring_reader_init(&rd, mem, 256, 64, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "size 0") && rd.tail == 0,
	       "a record of size 0 is an error, the reader stays (%s)", err);

	ptring_reader_init(&rd, mem, 96, 64, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "power of two"),
	       "a ring size not a power of two is refused (%s)", err);

	h = (struct perf_event_header){ .type = PERF_RECORD_LOST, .size = 52 };
	memcpy(mem, &h, sizeof(h));
	ptring_reader_init(&rd, mem, 256, 64, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "multiple of 8"),
	       "a size not a multiple of 8 is an error (%s)", err);

	h.size = 512;
	memcpy(mem, &h, sizeof(h));
	ptring_reader_init(&rd, mem, 256, 256, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "larger than the ring"),
	       "a record larger than the ring is an error (%s)", err);

	h.size = 128;
	memcpy(mem, &h, sizeof(h));
	ptring_reader_init(&rd, mem, 256, 64, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "past the ring's head"),
	       "a record running past head is an error (%s)", err);

	ptring_reader_init(&rd, mem, 256, 1000, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "more than the ring"),
	       "head further than a ring ahead of tail is an error (%s)", err);

	ptring_reader_init(&rd, mem, 256, 64, 0, PTRING_SAMPLE_TYPE, true);
	h.size = 8;
	memcpy(mem, &h, sizeof(h));
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0, "a record too short for its sample_id is an error (%s)",
	       err);

	/* AUX record body cut short: header + 16 bytes + trailer */
	memset(mem, 0, sizeof(mem));
	r.head = 0;
	struct body bb = { .n = 0 };
	b_u64(&bb, 0);
	b_u64(&bb, 0);
	put_rec(&r, PERF_RECORD_AUX, 0, &bb, &SID);
	ptring_reader_init(&rd, mem, 256, r.head, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "AUX") && strstr(err, "too short"),
	       "an AUX record shorter than its layout is an error (%s)", err);

	/* a filename with no NUL before the trailer */
	memset(mem, 0, sizeof(mem));
	r.head = 0;
	put_mmap2(&r, 1, 0, 0, 0, NULL, 0, "/abcdefg");
	/* the name and its padding sit at [72, 88): no NUL left there */
	for (int k = 72; k < 88; k++)
		mem[k] = 'y';
	ptring_reader_init(&rd, mem, 256, r.head, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "not terminated"),
	       "an unterminated MMAP2 filename is an error (%s)", err);

	/* a build-id longer than the field */
	memset(mem, 0, sizeof(mem));
	r.head = 0;
	uint8_t bid[20] = { 1 };
	put_mmap2(&r, 1, 0, 0, 0, bid, 21, "/x");
	ptring_reader_init(&rd, mem, 256, r.head, 0, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) < 0 && strstr(err, "build-id size"),
	       "a build-id size over 20 is an error (%s)", err);

	/* random bytes: errors or records, never a crash (ASan watches) */
	unsigned seed = 12345;
	int errors = 0;
	for (int round = 0; round < 2000; round++) {
		for (size_t k = 0; k < sizeof(mem); k++) {
			seed = seed * 1103515245 + 12345;
			mem[k] = (uint8_t)(seed >> 16);
		}
		ptring_reader_init(&rd, mem, 256, 256 + (seed % 256 & ~7u), seed % 256 & ~7u, PTRING_SAMPLE_TYPE,
				   true);
		int rc;
		while ((rc = ptring_next(&rd, &rec, err, sizeof(err))) > 0)
			;
		errors += rc < 0;
	}
	tap_ok(errors > 0, "random rings: %d of 2000 reported corrupt, none crashed", errors);

	/* a valid ring with bytes flipped: records that parse go to the
	 * sink, the rest are errors; nothing reads outside the ring */
	uint8_t good[512], aux[64] = { 0 };
	struct ring g = { good, sizeof(good), 0 };
	memset(good, 0, sizeof(good));
	put_mmap2(&g, 1, 0x1000, 0x1000, 0, NULL, 0, "/lib/a.so");
	put_comm(&g, 1, "abc", true);
	put_aux(&g, 0, 16, 0);
	put_two_u32(&g, PERF_RECORD_SWITCH_CPU_WIDE, 0, 1, 2);
	uint64_t used = g.head;
	int parsed = 0;
	for (int round = 0; round < 5000; round++) {
		uint8_t m[512];
		memcpy(m, good, sizeof(m));
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245 + 12345;
			m[(seed >> 8) % used] = (uint8_t)(seed >> 20);
		}
		struct collect_pt_stats st = { 0 };
		struct ptring_buffer b;
		struct ptring_sink s;
		struct obs o;
		ptring_buffer_init(&b, 0, false, aux, sizeof(aux), &st);
		obs_sink(&s, &o);
		ptring_reader_init(&rd, m, sizeof(m), used, 0, PTRING_SAMPLE_TYPE, true);
		parsed += ptring_drain(&b, &rd, &s, err, sizeof(err)) == 0;
		ptring_buffer_fini(&b);
	}
	tap_ok(parsed > 0 && parsed < 5000, "flipped bytes in a valid ring: %d of 5000 still parse, none crashed",
	       parsed);
}

static void test_aux(void)
{
	uint8_t mem[4096] = { 0 }, aux[64];
	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	struct ptring_sink s;
	struct obs o;
	for (int i = 0; i < 64; i++)
		aux[i] = (uint8_t)i;

	uint8_t dst[64];
	tap_ok(ptring_aux_copy(aux, 64, 48 + 128, 32, dst) == 0 && dst[0] == 48 && dst[15] == 63 && dst[16] == 0 &&
		       dst[31] == 15,
	       "AUX copy wraps at the end of the area, offset taken modulo its size");
	tap_ok(ptring_aux_copy(aux, 64, 0, 65, dst) < 0, "an AUX copy larger than the area is refused");
	tap_ok(ptring_chunk_flags(PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_OVERWRITE | PERF_AUX_FLAG_PARTIAL |
				  PERF_AUX_FLAG_COLLISION) ==
		       (GUSDATA_CHUNK_TRUNCATED | GUSDATA_CHUNK_OVERWRITE | GUSDATA_CHUNK_PARTIAL |
			GUSDATA_CHUNK_COLLISION),
	       "each PERF_AUX_FLAG maps to its chunk flag");

	struct ring r = { mem, sizeof(mem), 0 };
	put_aux(&r, 0, 48, 0);
	put_aux(&r, 48, 32, 0);	/* wraps: 48..63 then 0..15 */
	put_aux(&r, 80, 8, PERF_AUX_FLAG_TRUNCATED);
	put_aux(&r, 88, 8, 0);	/* after a truncation: lost before */
	put_aux(&r, 100, 4, PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION);	/* a gap of 4 */
	put_aux(&r, 104, 0, PERF_AUX_FLAG_TRUNCATED);	/* nothing, but the hardware stopped */
	put_aux(&r, 104, 8, 0);
	ptring_buffer_init(&b, 5, false, aux, sizeof(aux), &st);
	obs_sink(&s, &o);
	int rc = drain(&b, &r, 0, &s);
	tap_ok(rc == 0 && o.nchunk == 6, "one chunk per non-empty AUX record (%d, %s)", o.nchunk, rc ? err : "");
	tap_ok(o.chunk[0].size == 48 && o.chunk[0].off == 0 && o.chunk[0].flags == 0 && o.chunk[0].cpu == 5 &&
		       o.chunk[0].tid == -1 && o.chunk[0].time == SID.time,
	       "chunk: stream offset, the buffer's CPU, tid -1, the record's time");
	tap_ok(o.chunk[1].size == 32 && o.chunk[1].data[0] == 48 && o.chunk[1].data[15] == 63 &&
		       o.chunk[1].data[16] == 0 && o.chunk[1].data[31] == 15,
	       "an AUX record across the area's end is copied in stream order");
	tap_ok(o.chunk[2].flags == GUSDATA_CHUNK_TRUNCATED, "TRUNCATED record -> TRUNCATED chunk");
	tap_ok(o.chunk[3].flags == GUSDATA_CHUNK_LOST_BEFORE, "the chunk after a truncation: LOST_BEFORE");
	tap_ok(o.chunk[4].flags == (GUSDATA_CHUNK_PARTIAL | GUSDATA_CHUNK_COLLISION | GUSDATA_CHUNK_LOST_BEFORE),
	       "PARTIAL, COLLISION kept; a gap in offsets: LOST_BEFORE (0x%x)", o.chunk[4].flags);
	tap_ok(o.chunk[5].flags == GUSDATA_CHUNK_LOST_BEFORE, "an empty TRUNCATED record still marks the next chunk");
	tap_ok(b.aux_done == 112, "aux_done: where aux_tail may go (%llu)", (unsigned long long)b.aux_done);
	tap_ok(st.aux_records == 7 && st.truncated == 2 && st.partial == 1 && st.collisions == 1 &&
		       st.aux_bytes == 48 + 32 + 8 + 8 + 4 + 8,
	       "stats: records, truncated, partial, collisions, bytes");
	int i = find_ev(&o, "aux-truncated", 0);
	tap_ok(i >= 0 && o.ev[i].a == 8 && o.ev[i].b == 80 && find_ev(&o, "aux-truncated", 1) >= 0 &&
		       find_ev(&o, "aux-partial", 0) >= 0 && find_ev(&o, "aux-collision", 0) >= 0,
	       "flagged AUX records are events too (a = size, b = offset)");

	/* overlap and oversize: corrupt */
	r.head = 0;
	put_aux(&r, 100, 8, 0);
	tap_ok(drain(&b, &r, 0, &s) == PTRING_CORRUPT && strstr(err, "overlaps"),
	       "an AUX record behind data already read is reported (%s)", err);
	r.head = 0;
	put_aux(&r, 200, 65, 0);
	tap_ok(drain(&b, &r, 0, &s) == PTRING_CORRUPT && strstr(err, "larger than"),
	       "an AUX record larger than the area is reported (%s)", err);
	r.head = 0;
	put_aux(&r, 300, 8, 0);
	o.fail_after = 1;
	o.writes = 0;
	tap_ok(drain(&b, &r, 0, &s) == PTRING_SINK_FAILED, "a sink failure is told apart from corruption (%s)", err);
	ptring_buffer_fini(&b);
}

static void test_snapshot(void)
{
	uint8_t mem[1024] = { 0 }, aux[64] = { 0 };
	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	struct ptring_sink s;
	struct obs o;
	ptring_buffer_init(&b, 2, true, aux, sizeof(aux), &st);
	obs_sink(&s, &o);

	for (int i = 0; i < 20; i++)
		aux[i] = (uint8_t)(i + 1);
	struct ring r = { mem, sizeof(mem), 0 };
	/* the kernel's overwrite-mode record: offset = head, size = the area */
	put_aux(&r, 20, 64, PERF_AUX_FLAG_OVERWRITE);
	tap_ok(drain(&b, &r, 0, &s) == 0 && o.nchunk == 0 && st.aux_records == 1,
	       "snapshot mode: AUX records are counted, their data waits for the snapshot");
	tap_ok(ptring_snapshot(&b, 20, 111, &s, err, sizeof(err)) == 0 && o.nchunk == 1 && o.chunk[0].size == 20 &&
		       o.chunk[0].off == 0 && o.chunk[0].flags == 0 && o.chunk[0].data[19] == 20 &&
		       o.chunk[0].time == 111,
	       "first snapshot before the area filled: the 20 bytes written");
	for (int i = 20; i < 30; i++)
		aux[i] = 0x55;
	tap_ok(ptring_snapshot(&b, 30, 0, &s, err, sizeof(err)) == 0 && o.nchunk == 2 && o.chunk[1].size == 10 &&
		       o.chunk[1].off == 20 && o.chunk[1].flags == 0,
	       "second snapshot: only what came since, contiguous with the first");
	tap_ok(ptring_snapshot(&b, 30, 0, &s, err, sizeof(err)) == 0 && o.nchunk == 2,
	       "nothing new: no chunk");
	for (int i = 0; i < 64; i++)
		aux[i] = (uint8_t)(0x80 + i);
	tap_ok(ptring_snapshot(&b, 64 + 10, 0, &s, err, sizeof(err)) == 0 && o.nchunk == 3 && o.chunk[2].size == 64 &&
		       o.chunk[2].flags == (GUSDATA_CHUNK_OVERWRITE | GUSDATA_CHUNK_LOST_BEFORE) &&
		       o.chunk[2].data[0] == 0x80 + 10 && o.chunk[2].data[53] == 0x80 + 63 &&
		       o.chunk[2].data[54] == 0x80 && o.chunk[2].off == 30,
	       "after a lap: the whole area oldest first, OVERWRITE|LOST_BEFORE");
	tap_ok(st.overwritten == 1 && find_ev(&o, "aux-overwrite", 0) >= 0 && st.aux_bytes == 94,
	       "the overwrite is counted and an event");
	tap_ok(ptring_snapshot(&b, 12, 0, &s, err, sizeof(err)) == 0 && o.nchunk == 4 &&
		       o.chunk[3].flags & GUSDATA_CHUNK_OVERWRITE && o.chunk[3].off == 94,
	       "once wrapped, every snapshot is a whole area");
	ptring_buffer_fini(&b);

	/* a head that went backwards also means a lap, whatever the bytes */
	memset(aux, 0, sizeof(aux));
	ptring_buffer_init(&b, 2, true, aux, sizeof(aux), &st);
	obs_sink(&s, &o);
	memset(aux, 1, 40);
	ptring_snapshot(&b, 40, 0, &s, err, sizeof(err));
	ptring_snapshot(&b, 8, 0, &s, err, sizeof(err));
	tap_ok(o.nchunk == 2 && o.chunk[1].size == 64 && (o.chunk[1].flags & GUSDATA_CHUNK_OVERWRITE),
	       "a head behind the previous snapshot's: wrapped");
	ptring_buffer_fini(&b);
}

/* the gus.data sink, read back through gusdata's own readers */
struct mm_seen {
	int n;
	char file[3][64], bid[3][48];
};

static int mm_cb(void *ctx, const struct gusdata_mmap *m)
{
	struct mm_seen *x = ctx;
	if (x->n < 3) {
		snprintf(x->file[x->n], 64, "%s", m->filename);
		snprintf(x->bid[x->n], 48, "%s", m->build_id ? m->build_id : "-");
	}
	x->n++;
	return 0;
}

struct ch_seen {
	int n;
	uint32_t flags[4];
	size_t size[4];
	uint8_t first[4];
};

static int ch_cb(void *ctx, const struct gusdata_chunk *c)
{
	struct ch_seen *x = ctx;
	if (x->n < 4) {
		x->flags[x->n] = c->flags;
		x->size[x->n] = c->size;
		x->first[x->n] = c->size ? c->data[0] : 0;
	}
	x->n++;
	return 0;
}

static void test_gusdata_sink(const char *tmp)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/sink.gus.data", tmp);
	struct gusdata *d = NULL;
	if (!tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "gus.data created for the sink (%s)", err))
		return;
	uint8_t mem[4096] = { 0 }, aux[64];
	for (int i = 0; i < 64; i++)
		aux[i] = (uint8_t)i;
	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	struct ptring_sink s;
	struct ring r = { mem, sizeof(mem), 4000 };
	uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef };
	put_mmap2(&r, 42, 0x400000, 0x2000, 0, bid, 4, "/usr/bin/app");
	put_comm(&r, 42, "app", true);
	put_u64s(&r, PERF_RECORD_LOST, 1, 4, 2);
	put_u64s(&r, PERF_RECORD_LOST, 1, 6, 2);
	put_aux(&r, 0, 40, 0);
	put_aux(&r, 40, 40, PERF_AUX_FLAG_TRUNCATED);
	put_aux(&r, 80, 4, 0);
	ptring_buffer_init(&b, 1, false, aux, sizeof(aux), &st);
	ptring_gusdata_sink(&s, d);
	ptring_reader_init(&rd, r.buf, r.size, r.head, 4000, PTRING_SAMPLE_TYPE, true);
	tap_ok(ptring_drain(&b, &rd, &s, err, sizeof(err)) == 0, "drained into gus.data (%s)", err);
	struct mm_seen mm = { 0 };
	gusdata_foreach_mmap(d, mm_cb, &mm);
	tap_ok(mm.n == 1 && !strcmp(mm.file[0], "/usr/bin/app") && !strcmp(mm.bid[0], "deadbeef"),
	       "gus.data mmaps: file and build-id (%s %s)", mm.file[0], mm.bid[0]);
	uint64_t cnt = 0, sum = 0;
	gusdata_event_totals(d, "lost", &cnt, &sum);
	tap_ok(cnt == 2 && sum == 10, "gus.data events: two 'lost', 10 records lost in all");
	gusdata_event_totals(d, "aux-truncated", &cnt, &sum);
	tap_ok(cnt == 1, "gus.data events: the truncation");
	struct ch_seen ch = { 0 };
	gusdata_foreach_chunk(d, 1, -1, ch_cb, &ch);
	tap_ok(ch.n == 3 && ch.size[1] == 40 && ch.first[1] == 40 && ch.flags[1] == GUSDATA_CHUNK_TRUNCATED &&
		       ch.flags[2] == GUSDATA_CHUNK_LOST_BEFORE && ch.first[2] == 80 % 64,
	       "gus.data chunks of CPU 1 in order, data and flags (%d chunks)", ch.n);
	ptring_buffer_fini(&b);
	gusdata_close(d);
}

/* ------------------------------------------------------ sysfs ------- */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_pt_tree(const char *dir)
{
	char sub[PATH_MAX];
	mkdir(dir, 0700);
	snprintf(sub, sizeof(sub), "%s/format", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/caps", dir);
	mkdir(sub, 0700);
	put_file(dir, "type", "9\n");
	put_file(dir, "nr_addr_filters", "2\n");
	put_file(dir, "max_nonturbo_ratio", "24\n");
	put_file(dir, "format/pt", "config:0\n");
	put_file(dir, "format/cyc", "config:1\n");
	put_file(dir, "format/mtc", "config:9\n");
	put_file(dir, "format/tsc", "config:10\n");
	put_file(dir, "format/noretcomp", "config:11\n");
	put_file(dir, "format/branch", "config:13\n");
	put_file(dir, "format/mtc_period", "config:14-17\n");
	put_file(dir, "format/psb_period", "config:24-27\n");
	put_file(dir, "caps/psb_cyc", "1\n");
	put_file(dir, "caps/mtc", "1\n");
	put_file(dir, "caps/psb_periods", "3f\n");
	put_file(dir, "caps/mtc_periods", "249\n");
	put_file(dir, "caps/num_address_ranges", "2\n");
	put_file(dir, "caps/ip_filtering", "1\n");
}

static void test_sysfs(const char *tmp)
{
	int lo = -2, w = -2;
	tap_ok(ptring_parse_format("config:14-17", &lo, &w) == 0 && lo == 14 && w == 4, "format 'config:14-17'");
	tap_ok(ptring_parse_format("config:10\n", &lo, &w) == 0 && lo == 10 && w == 1, "format 'config:10'");
	tap_ok(ptring_parse_format("config1:3", &lo, &w) < 0 && ptring_parse_format("config:17-14", &lo, &w) < 0 &&
		       ptring_parse_format("config:1,3", &lo, &w) < 0 && ptring_parse_format("config:64", &lo, &w) < 0 &&
		       ptring_parse_format("bogus", &lo, &w) < 0 && ptring_parse_format("config:", &lo, &w) < 0,
	       "formats gus cannot build are refused");

	char dir[256];
	snprintf(dir, sizeof(dir), "%s/intel_pt", tmp);
	make_pt_tree(dir);
	struct collect_pt_info info;
	enum collect_status stt = collect_pt_probe(dir, &info, err, sizeof(err));
	tap_ok(stt == COLLECT_OK, "probe of a fake intel_pt directory (%s)", stt ? err : "ok");
	tap_ok(info.type == 9 && info.bit_pt == 0 && info.bit_tsc == 10 && info.bit_branch == 13 &&
		       info.bit_noretcomp == 11 && info.bit_mtc == 9 && info.bit_cyc == 1 &&
		       info.bit_psb_period_lo == 24 && info.psb_period_width == 4 && info.bit_mtc_period_lo == 14 &&
		       info.mtc_period_width == 4,
	       "type and format bits read");
	tap_ok(info.caps_psb_periods == 0x3f && info.caps_mtc_periods == 0x249 && info.caps_addr_filters == 2 &&
		       info.caps_ip_filtering && info.caps_psb_cyc && info.caps_mtc && info.max_nonturbo_ratio == 24,
	       "caps read as hexadecimal, max_nonturbo_ratio as decimal");

	struct collect_pt_opts opts = { 0 };
	uint64_t base = 1ull << 0 | 1ull << 10 | 1ull << 13;
	uint64_t c = collect_pt_config(&info, &opts);
	tap_ok(c == (base | 3ull << 24), "config: pt, tsc, branch, psb_period 3 (0x%llx)", (unsigned long long)c);
	opts.timing = true;
	c = collect_pt_config(&info, &opts);
	tap_ok(c == (base | 3ull << 24 | 1ull << 9 | 3ull << 14 | 1ull << 1),
	       "config with timing: mtc, mtc_period 3, cyc too (0x%llx)", (unsigned long long)c);
	opts.branch_only = true;
	tap_ok(collect_pt_config(&info, &opts) == (base | 3ull << 24), "branch_only wins over timing");
	struct collect_pt_info i2 = info;
	i2.caps_psb_periods = 0x30;
	tap_ok(collect_pt_config(&i2, NULL) == (base | 4ull << 24), "psb_period: the next allowed above 3");
	i2.caps_psb_cyc = false;
	tap_ok(collect_pt_config(&i2, NULL) == base, "no psb_cyc capability: no psb_period");
	i2 = info;
	i2.bit_pt = -1;
	i2.bit_psb_period_lo = -1;
	i2.psb_period_width = 0;
	tap_ok(collect_pt_config(&i2, NULL) == (1ull << 10 | 1ull << 13), "absent format bits are left out");

	put_file(dir, "caps/psb_periods", "zz\n");
	tap_ok(collect_pt_probe(dir, &info, err, sizeof(err)) == COLLECT_ERROR && strstr(err, "caps/psb_periods") &&
		       strstr(err, "zz"),
	       "a malformed caps file is named (%s)", err);
	put_file(dir, "caps/psb_periods", "3f\n");
	put_file(dir, "format/psb_period", "config2:0-3\n");
	tap_ok(collect_pt_probe(dir, &info, err, sizeof(err)) == COLLECT_ERROR && strstr(err, "format/psb_period"),
	       "a format outside config is named (%s)", err);
	put_file(dir, "format/psb_period", "config:24-27\n");
	char tp[PATH_MAX];
	snprintf(tp, sizeof(tp), "%s/type", dir);
	unlink(tp);
	tap_ok(collect_pt_probe(dir, &info, err, sizeof(err)) == COLLECT_ERROR && strstr(err, "type"),
	       "a PMU without type is an error (%s)", err);
	put_file(dir, "type", "9\n");

	snprintf(tp, sizeof(tp), "%s/no_such_pmu", tmp);
	tap_ok(collect_pt_probe(tp, &info, err, sizeof(err)) == COLLECT_NO_PMU &&
		       strstr(err, "this machine has no Intel PT") && strstr(err, "gus sim --trace --qemu"),
	       "no intel_pt directory: COLLECT_NO_PMU, pointing at the QEMU tracer (%s)", err);
}

/* ----------------------------------------------------- filters ------ */
struct res_ctx {
	char last_file[PATH_MAX];
};

static int test_resolver(void *ctx, const char *file, const char *sym, uint64_t *start, uint64_t *size, char *e,
			 size_t elen)
{
	struct res_ctx *r = ctx;
	snprintf(r->last_file, sizeof(r->last_file), "%s", file ? file : "(null)");
	if (!strcmp(sym, "hot_loop")) {
		*start = 0x1140;
		*size = 0x60;
		return 0;
	}
	if (!strcmp(sym, "empty_fn")) {
		*start = 0x1200;
		*size = 0;
		return 0;
	}
	snprintf(e, elen, "no symbol '%s' in %s", sym, file);
	return -1;
}

/* the test binary's first executable PT_LOAD, to check vaddr -> offset */
static bool exec_segment(const char *path, uint64_t *vaddr, uint64_t *offset, uint64_t *filesz)
{
	int fd = open(path, O_RDONLY);
	Elf64_Ehdr eh;
	bool ok = false;
	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64)
		for (int i = 0; i < eh.e_phnum && !ok; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*vaddr = ph.p_vaddr;
				*offset = ph.p_offset;
				*filesz = ph.p_filesz;
				ok = true;
			}
		}
	close(fd);
	return ok;
}

static void test_filters(void)
{
	struct collect_pt_filter f;
	struct res_ctx rc = { "" };
	const char *prog = "/opt/app";

	tap_ok(collect_pt_filter_parse("0x1000-0x1200", prog, NULL, NULL, &f, err, sizeof(err)) == 0 &&
		       f.start == 0x1000 && f.size == 0x200 && !f.file && !f.stop,
	       "START-END");
	collect_pt_filter_free(&f);
	tap_ok(collect_pt_filter_parse("4096/128@/lib/x.so", prog, NULL, NULL, &f, err, sizeof(err)) == 0 &&
		       f.start == 4096 && f.size == 128 && f.file && !strcmp(f.file, "/lib/x.so"),
	       "START/SIZE@FILE, decimal");
	collect_pt_filter_free(&f);
	tap_ok(collect_pt_filter_parse("stop 0x2000/0x10", prog, NULL, NULL, &f, err, sizeof(err)) == 0 && f.stop &&
		       f.start == 0x2000 && f.size == 0x10,
	       "'stop ' makes a stop filter");
	collect_pt_filter_free(&f);
	tap_ok(collect_pt_filter_parse("hot_loop", prog, test_resolver, &rc, &f, err, sizeof(err)) == 0 &&
		       f.start == 0x1140 && f.size == 0x60 && !f.file && !strcmp(rc.last_file, prog),
	       "SYMBOL: resolved in the program (%s)", rc.last_file);
	collect_pt_filter_free(&f);
	tap_ok(collect_pt_filter_parse("stop hot_loop@/lib/libfoo.so", prog, test_resolver, &rc, &f, err,
				       sizeof(err)) == 0 &&
		       f.stop && !strcmp(rc.last_file, "/lib/libfoo.so") && !strcmp(f.file, "/lib/libfoo.so"),
	       "stop SYMBOL@FILE: resolved in FILE");
	collect_pt_filter_free(&f);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "", "no address range" },
		{ "0x1000", "not a range" },
		{ "0x2000-0x1000", "not above START" },
		{ "0x1000/0", "empty" },
		{ "0x1000/zz", "not a number" },
		{ "0x10@", "no file after" },
		{ "0xffffffffffffff00/0x200", "past the end" },
		{ "nosuch", "no symbol 'nosuch'" },
		{ "empty_fn", "empty" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = collect_pt_filter_parse(bad[i].text, prog, test_resolver, &rc, &f, err, sizeof(err));
		tap_ok(r < 0 && strstr(err, bad[i].want) && strstr(err, bad[i].text),
		       "bad filter '%s' is named with why (%s)", bad[i].text, err);
		collect_pt_filter_free(&f);
	}
	tap_ok(collect_pt_filter_parse("main", prog, NULL, NULL, &f, err, sizeof(err)) < 0 && strstr(err, "symbol"),
	       "a symbol with no resolver is refused (%s)", err);

	/* the kernel string: file offsets, absolute paths */
	char self[PATH_MAX], out[4096];
	uint64_t vaddr = 0, off = 0, fsz = 0;
	if (!realpath("/proc/self/exe", self) || !exec_segment(self, &vaddr, &off, &fsz) || fsz < 0x40) {
		tap_ok(0, "the test binary has an executable segment");
		return;
	}
	struct collect_pt_filter fs[2] = {
		{ .start = vaddr + 0x10, .size = 0x20 },
		{ .start = vaddr + 0x30, .size = 0x8, .file = self, .stop = true },
	};
	char want[2 * PATH_MAX + 64];
	snprintf(want, sizeof(want), "filter 0x%llx/0x20@%s,stop 0x%llx/0x8@%s", (unsigned long long)(off + 0x10),
		 self, (unsigned long long)(off + 0x30), self);
	int r = collect_pt_filter_string(fs, 2, self, out, sizeof(out), err, sizeof(err));
	tap_ok(r == 0, "kernel filter string built (%s)", r ? err : out);
	tap_streq(out, want, "addresses become file offsets of the executable segment, joined by ','");

	fs[0].start = vaddr + fsz + 0x100000;
	tap_ok(collect_pt_filter_string(fs, 1, self, out, sizeof(out), err, sizeof(err)) < 0 &&
		       strstr(err, "not in an executable segment"),
	       "an address outside the code is refused (%s)", err);
	fs[0].start = vaddr + fsz - 4;
	tap_ok(collect_pt_filter_string(fs, 1, self, out, sizeof(out), err, sizeof(err)) < 0 &&
		       strstr(err, "runs past"),
	       "a range running past the code is refused (%s)", err);
	struct collect_pt_filter missing = { .start = 0x1000, .size = 0x10, .file = "/no/such/lib.so" };
	tap_ok(collect_pt_filter_string(&missing, 1, self, out, sizeof(out), err, sizeof(err)) < 0 &&
		       strstr(err, "/no/such/lib.so"),
	       "a missing file is named (%s)", err);
	fs[0].start = vaddr + 0x10;
	tap_ok(collect_pt_filter_string(fs, 1, self, out, 16, err, sizeof(err)) < 0 && strstr(err, "longer"),
	       "a string longer than the buffer is an error, not a cut (%s)", err);
}

/* The reader on rings the running kernel filled: a dummy software event
 * (allowed without a PMU) with the sideband gus asks for, following
 * true(1) from exec to exit. */
static void test_kernel_ring(void)
{
	long page = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int go[2];
	if (ncpu < 1 || ncpu > 64 || pipe(go)) {
		tap_ok(1, "# SKIP no CPU count or pipe");
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_id_all = 1;
	a.sample_type = PTRING_SAMPLE_TYPE;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = a.context_switch = 1;
	a.build_id = 1;
	int fd[64];
	void *map[64];
	size_t len = (size_t)(1 + 8) * (size_t)page;
	long n = 0;
	for (; n < ncpu; n++) {
		fd[n] = (int)syscall(SYS_perf_event_open, &a, pid, (int)n, -1, 0);
		if (fd[n] < 0 && n == 0 && errno == EINVAL) {
			a.build_id = 0;	/* an older kernel */
			fd[n] = (int)syscall(SYS_perf_event_open, &a, pid, (int)n, -1, 0);
		}
		map[n] = fd[n] < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[n], 0);
		if (map[n] == MAP_FAILED) {
			if (fd[n] >= 0)
				close(fd[n]);
			break;
		}
	}
	if (n < ncpu) {
		tap_ok(1, "# SKIP perf_event_open of a dummy event: %s", strerror(errno));
		for (long i = 0; i < n; i++) {
			munmap(map[i], len);
			close(fd[i]);
		}
		close(go[1]);
		waitpid(pid, NULL, 0);
		return;
	}
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	waitpid(pid, NULL, 0);

	static struct obs o;
	struct ptring_sink s;
	struct collect_pt_stats st = { 0 };
	uint8_t aux[64];
	obs_sink(&s, &o);
	s.build_id = NULL;
	int bad = 0;
	for (long i = 0; i < n; i++) {
		struct perf_event_mmap_page *pc = map[i];
		struct ptring_buffer b;
		ptring_buffer_init(&b, (int)i, false, aux, sizeof(aux), &st);
		uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		ptring_reader_init(&rd, (uint8_t *)map[i] + pc->data_offset, pc->data_size, head, pc->data_tail,
				   PTRING_SAMPLE_TYPE, true);
		if (ptring_drain(&b, &rd, &s, err, sizeof(err)))
			bad++;
		ptring_buffer_fini(&b);
		munmap(map[i], len);
		close(fd[i]);
	}
	tap_ok(!bad, "kernel-filled rings parse to their heads (%s)", bad ? err : "");
	int true_map = -1, comm_exec = 0, exits = 0;
	for (int i = 0; i < o.nmmap; i++) {
		size_t fl = strlen(o.mmap[i].file);
		if (fl >= 5 && !strcmp(o.mmap[i].file + fl - 5, "/true") && o.mmap[i].pid == pid)
			true_map = i;
	}
	for (int i = 0; i < o.ncomm; i++)
		comm_exec += o.comm[i].exec && !strcmp(o.comm[i].comm, "true") && o.comm[i].pid == pid;
	for (int i = 0; i < o.nev; i++)
		exits += !strcmp(o.ev[i].kind, "exit") && o.ev[i].pid == pid;
	tap_ok(true_map >= 0, "the kernel's MMAP2 of true(1) is read (%d mappings)", o.nmmap);
	if (true_map >= 0)
		tap_ok(a.build_id ? o.mmap[true_map].has_bid && strlen(o.mmap[true_map].bid) == 40 : 1,
		       "its build-id from the record (%s)", o.mmap[true_map].bid);
	tap_ok(comm_exec == 1, "COMM with MISC_COMM_EXEC for true(1)");
	tap_ok(exits >= 1, "EXIT of the child");
}

static long count_fds(void)
{
	long n = 0;
	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

static void test_record_here(const char *tmp)
{
	struct stat sb;
	if (!stat("/sys/bus/event_source/devices/intel_pt", &sb)) {
		tap_ok(1, "# SKIP this machine has intel_pt: the no-PMU path is not exercised");
		return;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/record.gus.data", tmp);
	struct gusdata *d = NULL;
	if (!tap_ok(gusdata_create(path, 0, &d, err, sizeof(err)) == 0, "gus.data for the capture (%s)", err))
		return;
	char *argv[] = { "true", NULL };
	struct collect_pt_opts o = { .mode = COLLECT_PT_FULL };
	struct collect_pt_stats st;
	struct collect_result res;
	enum collect_status s = collect_pt_record(argv, &o, d, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_NO_PMU && strstr(err, "no Intel PT"), "collect_pt_record here: COLLECT_NO_PMU (%s)", err);
	errno = 0;
	tap_ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	const char *m = gusdata_meta(d, "missing.pt");
	tap_ok(m && strstr(m, "no Intel PT"), "missing.pt says why (%s)", m ? m : "(null)");

	/* A PMU directory naming the software PMU: the events open (config 1
	 * is task-clock) and the data rings map, but a software event has no
	 * AUX area. The setup fails half-way with a child held: it must be
	 * reaped and everything closed. */
	char dir[256];
	snprintf(dir, sizeof(dir), "%s/fake_sw", tmp);
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/format", dir);
	mkdir(path, 0700);
	put_file(dir, "type", "1\n");
	put_file(dir, "format/pt", "config:0\n");
	o.sysfs_dir = dir;
	o.data_pages = 4;
	o.aux_pages = 4;
	long fds_before = count_fds();
	s = collect_pt_record(argv, &o, d, &st, &res, err, sizeof(err));
	tap_ok(s != COLLECT_OK && strstr(err, "AUX area"), "a PMU without AUX: the AUX mapping fails, named (%s)", err);
	errno = 0;
	tap_ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "the held child is reaped");
	tap_ok(count_fds() == fds_before, "every event and pipe closed (%ld fds, %ld before)", count_fds(),
	       fds_before);
	o.aux_pages = 3;
	s = collect_pt_record(argv, &o, d, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, "powers of two"), "AUX pages not a power of two (%s)", err);
	o.aux_pages = 4;
	struct collect_pt_filter f = { .start = 0x1000, .size = 0x10 };
	o.filters = &f;
	o.nfilters = 1;
	s = collect_pt_record(argv, &o, d, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_BAD_EVENT && strstr(err, "no address filters"),
	       "filters on a PMU without address ranges (%s)", err);

	/* Samples, counts and PT from one run: a sampling run asked to trace
	 * too, on the PMU without AUX, goes on sampling alone and says why */
	o.filters = NULL;
	o.nfilters = 0;
	char *spin[] = { "sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done", NULL };
	enum collect_status pt_st = COLLECT_OK;
	char why[COLLECT_ERRLEN] = "";
	struct collect_pt_stats pst;
	struct collect_sample_opts so = { .event = "cpu-clock", .freq = 1000, .pt = &o, .pt_data = d, .pt_stats = &pst,
					  .pt_status = &pt_st, .pt_why = why, .pt_why_len = sizeof why };
	struct collect_sample_stats sst;
	gusdata_set_meta(d, "missing.pt", "");
	fds_before = count_fds();
	s = collect_sample_run(spin, &so, NULL, NULL, NULL, NULL, 0, NULL, &sst, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && sst.samples > 0 && collect_exit_code(res.wait_status) == 0,
	       "a sampling run whose PT cannot be set up runs on: %llu samples (%s)",
	       (unsigned long long)sst.samples, s ? err : "ok");
	tap_ok(pt_st != COLLECT_OK && strstr(why, "AUX area"), "and says why there is no trace (%d: %s)", pt_st, why);
	m = gusdata_meta(d, "missing.pt");
	tap_ok(m && strstr(m, "AUX area"), "missing.pt of the run (%s)", m ? m : "(null)");
	errno = 0;
	tap_ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	tap_ok(count_fds() == fds_before, "every PT event closed after the run (%ld fds, %ld before)", count_fds(),
	       fds_before);
	gusdata_close(d);
}

int main(void)
{
	char tmp[] = "/tmp/gus-ptring-XXXXXX";
	if (!mkdtemp(tmp)) {
		tap_ok(0, "temporary directory");
		return tap_done();
	}
	test_records();
	test_wrap();
	test_corrupt();
	test_aux();
	test_snapshot();
	test_gusdata_sink(tmp);
	test_sysfs(tmp);
	test_filters();
	test_kernel_ring();
	test_record_here(tmp);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		tap_ok(0, "temporary directory removed");
	return tap_done();
}
