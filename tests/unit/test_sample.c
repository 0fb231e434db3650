/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sampling collector: PERF_RECORD_SAMPLE parsing on rings built here
 * in the kernel's layout, then live runs of the test workload. Where the
 * machine has no PMU (the usual virtual machine) the live runs sample
 * cpu-clock and the counters are refused; on bare metal they sample
 * cycles and count, and the tests check that instead. */
#include "tap.h"
#include "collect.h"
#include "gusdata.h"
#include "ptring.h"
#include "topdown.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
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

static void ring_u64(struct ring *r, uint64_t v)
{
	ring_put(r, &v, 8);
}

static void ring_u32x2(struct ring *r, uint32_t a, uint32_t b)
{
	uint32_t v[2] = { a, b };
	ring_put(r, v, 8);
}

struct fields {
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
};

static const struct fields F = {
	.id = 77, .ip = 0x401234, .time = 123456789, .addr = 0xdead0, .stream_id = 78, .period = 250000,
	.pid = 4242, .tid = 4243, .cpu = 1,
};

/* fields in PERF_SAMPLE_* order; SIZE_ADJ bytes more or less in the
 * header's size than what is written (negative: the record claims less) */
static void put_sample(struct ring *r, uint64_t st, uint16_t misc, const struct fields *f, const uint64_t *chain,
		       uint64_t nr, size_t nchain_written, int extra_u64)
{
	const uint64_t one_u64 = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_PERIOD;
	size_t n = 8 + 8 * (size_t)__builtin_popcountll(st & one_u64);
	if (st & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * nchain_written;
	n += 8 * (size_t)extra_u64;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = misc, .size = (uint16_t)n };
	ring_put(r, &h, sizeof(h));
	if (st & PERF_SAMPLE_IDENTIFIER)
		ring_u64(r, f->id);
	if (st & PERF_SAMPLE_IP)
		ring_u64(r, f->ip);
	if (st & PERF_SAMPLE_TID)
		ring_u32x2(r, f->pid, f->tid);
	if (st & PERF_SAMPLE_TIME)
		ring_u64(r, f->time);
	if (st & PERF_SAMPLE_ADDR)
		ring_u64(r, f->addr);
	if (st & PERF_SAMPLE_ID)
		ring_u64(r, f->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		ring_u64(r, f->stream_id);
	if (st & PERF_SAMPLE_CPU)
		ring_u32x2(r, f->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		ring_u64(r, f->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		ring_u64(r, nr);
		for (size_t i = 0; i < nchain_written; i++)
			ring_u64(r, chain[i]);
	}
	for (int i = 0; i < extra_u64; i++)
		ring_u64(r, 0x5a5a5a5a5a5a5a5aull);
}

/* THROTTLE/UNTHROTTLE with the TID|TIME|CPU|IDENTIFIER trailer */
static void put_throttle(struct ring *r, uint32_t type, uint64_t time, uint64_t id)
{
	struct perf_event_header h = { .type = type, .size = 8 + 24 + 32 };
	ring_put(r, &h, sizeof(h));
	ring_u64(r, time);
	ring_u64(r, id);
	ring_u64(r, id + 1);
	ring_u32x2(r, F.pid, F.tid);
	ring_u64(r, time);
	ring_u32x2(r, F.cpu, 0);
	ring_u64(r, id);
}

static void put_comm(struct ring *r, uint32_t pid, const char *comm)
{
	uint8_t name[16] = { 0 };
	snprintf((char *)name, sizeof(name), "%s", comm);
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = 8 + 8 + 16 + 32 };
	ring_put(r, &h, sizeof(h));
	ring_u32x2(r, pid, pid);
	ring_put(r, name, 16);
	ring_u32x2(r, pid, pid);
	ring_u64(r, 1000);
	ring_u32x2(r, 0, 0);
	ring_u64(r, 77);
}

#define ST_BASE                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD)

static int next(struct ptring_reader *rd, struct ring *r, uint64_t tail, uint64_t st, struct ptring_record *rec)
{
	ptring_reader_init(rd, r->buf, r->size, r->head, tail, st, true);
	err[0] = 0;
	return ptring_next(rd, rec, err, sizeof(err));
}

static bool fields_match(const struct ptring_record *rec, uint64_t st)
{
	const struct fields *f = &F;
	return rec->type == PERF_RECORD_SAMPLE && rec->u.sample.ip == ((st & PERF_SAMPLE_IP) ? f->ip : 0) &&
	       rec->u.sample.pid == f->pid && rec->u.sample.tid == f->tid &&
	       rec->u.sample.time == ((st & PERF_SAMPLE_TIME) ? f->time : 0) &&
	       rec->u.sample.cpu == ((st & PERF_SAMPLE_CPU) ? f->cpu : 0) &&
	       rec->u.sample.period == ((st & PERF_SAMPLE_PERIOD) ? f->period : 0) && rec->sid.valid &&
	       rec->sid.pid == f->pid && rec->sid.tid == f->tid && rec->sid.time == rec->u.sample.time;
}

/* A SAMPLE of ST (PERF_SAMPLE_READ among its bits) whose read part, by
 * READ_FORMAT, holds NR values with ids VALUE[i] + 1000 (and lost counts
 * 7 with PERF_FORMAT_LOST), the group's enabled and running times, then
 * a callchain of NCHAIN entries when ST has one; NR_WRITTEN: what the
 * group's nr says */
static void put_read_sample(struct ring *r, uint64_t st, uint64_t rf, const uint64_t *value, size_t nr,
			    uint64_t nr_written, const uint64_t *chain, size_t nchain)
{
	const uint64_t one_u64 = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t nt = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t n = 8 + 8 * (size_t)__builtin_popcountll(st & one_u64);
	n += (rf & PERF_FORMAT_GROUP) ? 8 * (1 + nt + nr * per) : 8 * (nt + per);
	if (st & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * nchain;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = (uint16_t)n };
	ring_put(r, &h, sizeof(h));
	ring_u64(r, F.id);
	ring_u64(r, F.ip);
	ring_u32x2(r, F.pid, F.tid);
	ring_u64(r, F.time);
	ring_u32x2(r, F.cpu, 0);
	ring_u64(r, F.period);
	if (rf & PERF_FORMAT_GROUP) {
		ring_u64(r, nr_written);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ring_u64(r, 5000000);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			ring_u64(r, 2500000);
		for (size_t i = 0; i < nr; i++) {
			ring_u64(r, value[i]);
			if (rf & PERF_FORMAT_ID)
				ring_u64(r, value[i] + 1000);
			if (rf & PERF_FORMAT_LOST)
				ring_u64(r, 7);
		}
	} else {
		ring_u64(r, value[0]);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ring_u64(r, 5000000);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			ring_u64(r, 2500000);
		if (rf & PERF_FORMAT_ID)
			ring_u64(r, value[0] + 1000);
		if (rf & PERF_FORMAT_LOST)
			ring_u64(r, 7);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		ring_u64(r, nchain);
		for (size_t i = 0; i < nchain; i++)
			ring_u64(r, chain[i]);
	}
}

/* The group layouts gus reads at its samples, as the kernel writes them:
 * Skylake-SP / Cascade Lake level 1 (a cycles leader and its six events),
 * Ice Lake and later (a slots leader, the topdown metrics, with
 * PERF_FORMAT_LOST of Linux 6.0+), a single value, and damaged ones. */
static void test_read_layouts(void)
{
	static struct ptring_reader rd;
	uint8_t mem[2048];
	struct ring r = { mem, sizeof(mem), 0 };
	struct ptring_record rec;
	const uint64_t chain[] = { 0x401234, 0x401500 };
	const uint64_t st = ST_BASE | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN;
	const uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* cycles, instructions, idq_uops_not_delivered.core, uops_issued.any,
	 * uops_retired.retire_slots, int_misc.recovery_cycles, br_misp */
	const uint64_t skx[] = { 4000000, 3000000, 1200000, 9000000, 8000000, 100000, 2000 };
	static const struct {
		const char *what;
		uint64_t rf;
		size_t nr;
	} layouts[] = {
		{ "skx/clx: a cycles leader and six events", rf, 7 },
		{ "icx/spr: a slots leader and the topdown metrics, with lost counts", rf | PERF_FORMAT_LOST, 5 },
		{ "one value without PERF_FORMAT_GROUP", rf & ~(uint64_t)PERF_FORMAT_GROUP, 1 },
	};
	for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
		memset(mem, 0, sizeof mem);
		r.head = 0;
		put_read_sample(&r, st, layouts[l].rf, skx, layouts[l].nr, layouts[l].nr, chain, 2);
		ptring_reader_init(&rd, r.buf, r.size, r.head, 0, st, true);
		ptring_reader_set_read_format(&rd, layouts[l].rf);
		int rc = ptring_next(&rd, &rec, err, sizeof(err));
		bool values = rc == 1 && rec.u.sample.read_nr == layouts[l].nr;
		for (size_t i = 0; values && i < layouts[l].nr; i++) {
			uint64_t id;
			values = ptring_read_at(&rec, i, &id) == skx[i] &&
				 id == ((layouts[l].rf & PERF_FORMAT_GROUP) ? skx[i] + 1000 : 0);
		}
		tap_ok(values && rec.u.sample.read_enabled == 5000000 && rec.u.sample.read_running == 2500000 &&
			       rec.u.sample.nr == 2 && ptring_callchain_at(&rec, 1) == 0x401500 && fields_match(&rec, ST_BASE) &&
			       rd.tail == r.head,
		       "PERF_SAMPLE_READ, %s: values, ids, times, and the callchain after them (%s)", layouts[l].what, err);
	}
	/* damaged: an nr that would overflow, an nr past the record */
	memset(mem, 0, sizeof mem);
	r.head = 0;
	put_read_sample(&r, st, rf, skx, 2, UINT64_MAX / 8, chain, 2);
	ptring_reader_init(&rd, r.buf, r.size, r.head, 0, st, true);
	ptring_reader_set_read_format(&rd, rf);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) == -1 && strstr(err, "read values longer than the record"),
	       "a group nr that would overflow: corrupt, no crash (%s)", err);
	r.head = 0;
	put_read_sample(&r, st, rf, skx, 2, 3, chain, 0);
	ptring_reader_init(&rd, r.buf, r.size, r.head, 0, st, true);
	ptring_reader_set_read_format(&rd, rf);
	tap_ok(ptring_next(&rd, &rec, err, sizeof(err)) == -1, "a group nr past the record: corrupt (%s)", err);
}

static void test_parse(void)
{
	static struct ptring_reader rd;
	uint8_t mem[1024];
	struct ring r = { mem, sizeof(mem), 0 };
	struct ptring_record rec;
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x401234, 0x401500, 0x7f0000001000 };

	/* plain */
	memset(mem, 0, sizeof(mem));
	put_sample(&r, ST_BASE, PERF_RECORD_MISC_USER, &F, NULL, 0, 0, 0);
	int rc = next(&rd, &r, 0, ST_BASE, &rec);
	tap_ok(rc == 1 && fields_match(&rec, ST_BASE) && rec.u.sample.id == F.id && rec.u.sample.nr == 0 &&
		       rec.sid.cpu == F.cpu && rec.sid.id == F.id && rd.tail == r.head,
	       "SAMPLE IDENTIFIER|IP|TID|TIME|CPU|PERIOD: every field, and the sid view of it (%s)", err);
	tap_ok((rec.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER, "SAMPLE misc kept");

	/* callchain */
	uint64_t st = ST_BASE | PERF_SAMPLE_CALLCHAIN;
	r.head = 0;
	put_sample(&r, st, PERF_RECORD_MISC_USER, &F, chain, 4, 4, 0);
	rc = next(&rd, &r, 0, st, &rec);
	bool ok = rc == 1 && fields_match(&rec, st) && rec.u.sample.nr == 4;
	for (uint64_t i = 0; ok && i < 4; i++)
		ok = ptring_callchain_at(&rec, i) == chain[i];
	tap_ok(ok, "SAMPLE with CALLCHAIN: nr and the entries, markers as the kernel wrote them (%s)", err);
	tap_ok(ptring_callchain_at(&rec, 4) == 0, "an entry past nr reads as 0");

	/* an empty callchain is valid */
	r.head = 0;
	put_sample(&r, st, PERF_RECORD_MISC_USER, &F, NULL, 0, 0, 0);
	rc = next(&rd, &r, 0, st, &rec);
	tap_ok(rc == 1 && rec.u.sample.nr == 0 && fields_match(&rec, st), "SAMPLE with an empty callchain");

	/* other fields in between, and fields after the callchain skipped */
	uint64_t st2 = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_STREAM_ID |
		       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	r.head = 0;
	put_sample(&r, st2, 0, &F, chain + 1, 2, 2, 3);
	rc = next(&rd, &r, 0, st2, &rec);
	tap_ok(rc == 1 && fields_match(&rec, st2) && rec.u.sample.addr == F.addr &&
		       rec.u.sample.stream_id == F.stream_id && rec.u.sample.nr == 2 &&
		       ptring_callchain_at(&rec, 1) == chain[2] && rd.tail == r.head,
	       "SAMPLE with ADDR and STREAM_ID: fields in kernel order, RAW after the chain skipped (%s)", err);

	/* THROTTLE / UNTHROTTLE */
	r.head = 0;
	put_throttle(&r, PERF_RECORD_THROTTLE, 555, 77);
	put_throttle(&r, PERF_RECORD_UNTHROTTLE, 556, 77);
	rc = next(&rd, &r, 0, ST_BASE, &rec);
	tap_ok(rc == 1 && rec.type == PERF_RECORD_THROTTLE && rec.u.throttle.time == 555 && rec.u.throttle.id == 77 &&
		       rec.u.throttle.stream_id == 78 && rec.sid.valid && rec.sid.time == 555,
	       "THROTTLE: time, id, stream_id and the trailer");
	rc = ptring_next(&rd, &rec, err, sizeof(err));
	tap_ok(rc == 1 && rec.type == PERF_RECORD_UNTHROTTLE && rec.u.throttle.time == 556, "UNTHROTTLE");
}

static void test_wrap(void)
{
	static struct ptring_reader rd;
	uint8_t mem[256];
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000000, (uint64_t)PERF_CONTEXT_USER,
				   0x401234, 0x401500 };
	uint64_t st = ST_BASE | PERF_SAMPLE_CALLCHAIN;
	int bad = 0, n = 0;
	for (uint64_t start = 0; start < sizeof(mem); start += 8) {
		memset(mem, 0xee, sizeof(mem));
		struct ring r = { mem, sizeof(mem), 4096 + start };
		put_comm(&r, 9, "x");
		put_sample(&r, st, PERF_RECORD_MISC_KERNEL, &F, chain, 5, 5, 0);
		struct ptring_record rec;
		ptring_reader_init(&rd, mem, sizeof(mem), r.head, 4096 + start, st, true);
		int rc1 = ptring_next(&rd, &rec, err, sizeof(err));
		bool ok = rc1 == 1 && rec.type == PERF_RECORD_COMM && !strcmp(rec.u.comm.comm, "x");
		int rc2 = ptring_next(&rd, &rec, err, sizeof(err));
		ok = ok && rc2 == 1 && fields_match(&rec, st) && rec.u.sample.nr == 5;
		for (uint64_t i = 0; ok && i < 5; i++)
			ok = ptring_callchain_at(&rec, i) == chain[i];
		ok = ok && ptring_next(&rd, &rec, err, sizeof(err)) == 0;
		bad += !ok;
		n++;
	}
	tap_ok(bad == 0, "a callchain SAMPLE split by the ring's end at every offset reads back whole (%d of %d bad)",
	       bad, n);
}

static void test_corrupt(void)
{
	static struct ptring_reader rd;
	uint8_t mem[1024];
	struct ring r = { mem, sizeof(mem), 0 };
	struct ptring_record rec;
	const uint64_t chain[] = { 1, 2, 3 };
	uint64_t st = ST_BASE | PERF_SAMPLE_CALLCHAIN;

	memset(mem, 0, sizeof(mem));
	/* the header's size leaves out the period: written as IP..CPU */
	put_sample(&r, ST_BASE & ~PERF_SAMPLE_PERIOD, 0, &F, NULL, 0, 0, 0);
	int rc = next(&rd, &r, 0, ST_BASE, &rec);
	tap_ok(rc == -1 && strstr(err, "too short") && rd.tail == 0,
	       "a SAMPLE shorter than its sample_type: corrupt, the reader stays (%s)", err);

	r.head = 0;
	put_sample(&r, st, 0, &F, chain, 100, 3, 0);
	rc = next(&rd, &r, 0, st, &rec);
	tap_ok(rc == -1 && strstr(err, "callchain"), "a callchain nr past the record's end: corrupt (%s)", err);

	r.head = 0;
	put_sample(&r, st, 0, &F, chain, UINT64_MAX / 4, 3, 0);
	rc = next(&rd, &r, 0, st, &rec);
	tap_ok(rc == -1 && strstr(err, "callchain"), "a callchain nr that would overflow: corrupt, no crash");

	/* written without a callchain, read as having one: no room for nr */
	r.head = 0;
	put_sample(&r, ST_BASE, 0, &F, NULL, 0, 0, 0);
	rc = next(&rd, &r, 0, st, &rec);
	tap_ok(rc == -1 && strstr(err, "too short"), "a callchain sample_type without room for nr: corrupt (%s)", err);

	/* PERF_SAMPLE_READ with a read_format this reader does not lay out */
	r.head = 0;
	put_sample(&r, ST_BASE | PERF_SAMPLE_READ, 0, &F, NULL, 0, 0, 3);
	ptring_reader_init(&rd, r.buf, r.size, r.head, 0, ST_BASE | PERF_SAMPLE_READ, true);
	ptring_reader_set_read_format(&rd, PERF_FORMAT_GROUP | (1u << 7));
	rc = ptring_next(&rd, &rec, err, sizeof(err));
	tap_ok(rc == -1 && strstr(err, "read_format"), "a read_format with unknown bits is refused, not guessed (%s)",
	       err);

	/* a record cut by the head */
	r.head = 0;
	put_sample(&r, st, 0, &F, chain, 3, 3, 0);
	r.head -= 16;
	rc = next(&rd, &r, 0, st, &rec);
	tap_ok(rc == -1 && strstr(err, "head"), "a SAMPLE running past the head: corrupt (%s)", err);

	/* garbage of every kind: never a crash */
	srand(7);
	int crashes_not = 1;
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < 128; i++)
			mem[i] = (uint8_t)rand();
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = (uint16_t)(8 * (1 + rand() % 15)) };
		memcpy(mem, &h, sizeof(h));
		ptring_reader_init(&rd, mem, 128, 128, 0, st, true);
		while ((rc = ptring_next(&rd, &rec, err, sizeof(err))) > 0)
			if (rec.type == PERF_RECORD_SAMPLE)
				for (uint64_t i = 0; i < rec.u.sample.nr; i++)
					(void)ptring_callchain_at(&rec, i);
		crashes_not &= rc <= 0;
	}
	tap_ok(crashes_not, "2000 random SAMPLE records: parsed or refused, nothing read out of bounds");
}

/* ------------------------------------------------------- live runs -- */
struct smp_copy {
	int pid, tid, cpu;
	uint64_t ip, period, time;
	bool user;
};

struct mm_copy {
	int pid;
	uint64_t start, len;
	uint32_t prot;
	char *file;
};

struct obs {
	struct smp_copy *s;
	size_t ns, cap;
	struct mm_copy *m;
	size_t nm, mcap;
	int exec_comm_pid;
	char exec_comm[32];
	int forks, exits, lost_events, throttles, other_events;
	int fork_pid[64];	/* the program's children (a sanitizer's leak checker forks at exit) */
	int bad_chain, max_depth, chained;
	long fail_after;	/* >= 0: the sample sink fails at this sample */
	int fail_mmap;		/* the mmap sink fails */
	int progress_calls;
	uint64_t last_progress;
	bool interrupt;		/* SIGINT to ourselves at the first progress call */
};

static int o_sample(void *ctx, const struct collect_sample *s)
{
	struct obs *o = ctx;
	if (o->fail_after >= 0 && (long)o->ns >= o->fail_after)
		return -1;
	if (o->ns == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->s = realloc(o->s, o->cap * sizeof(*o->s));
		if (!o->s)
			abort();
	}
	o->s[o->ns++] = (struct smp_copy){ s->pid, s->tid, s->cpu, s->ip, s->period, s->time, s->user };
	if (s->callchain) {
		bool bad = !s->ncallchain || s->callchain[0] != s->ip;
		for (size_t i = 0; i < s->ncallchain; i++)
			bad |= s->callchain[i] >= (uint64_t)PERF_CONTEXT_MAX;
		o->bad_chain += bad;
		o->chained++;
		if ((int)s->ncallchain > o->max_depth)
			o->max_depth = (int)s->ncallchain;
	}
	return 0;
}

static int o_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct obs *o = ctx;
	if (o->fail_mmap)
		return 1;
	if (o->nm == o->mcap) {
		o->mcap = o->mcap ? 2 * o->mcap : 64;
		o->m = realloc(o->m, o->mcap * sizeof(*o->m));
		if (!o->m)
			abort();
	}
	o->m[o->nm++] = (struct mm_copy){ m->pid, m->start, m->len, m->prot, strdup(m->filename) };
	return 0;
}

static int o_comm(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	struct obs *o = ctx;
	(void)time;
	(void)tid;
	if (exec && !o->exec_comm_pid) {
		o->exec_comm_pid = pid;
		snprintf(o->exec_comm, sizeof(o->exec_comm), "%s", comm);
	}
	return 0;
}

static int o_event(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a, uint64_t b)
{
	struct obs *o = ctx;
	(void)time, (void)cpu, (void)pid, (void)tid, (void)a, (void)b;
	if (!strcmp(kind, "fork")) {
		if (o->forks < (int)(sizeof(o->fork_pid) / sizeof(o->fork_pid[0])))
			o->fork_pid[o->forks] = pid;
		o->forks++;
	}
	else if (!strcmp(kind, "exit"))
		o->exits++;
	else if (!strcmp(kind, "lost"))
		o->lost_events++;
	else if (!strcmp(kind, "throttle") || !strcmp(kind, "unthrottle"))
		o->throttles++;
	else
		o->other_events++;
	return 0;
}

static void o_progress(void *ctx, uint64_t samples)
{
	struct obs *o = ctx;
	o->progress_calls++;
	o->last_progress = samples;
	if (o->interrupt && o->progress_calls == 1)
		kill(getpid(), SIGINT);
}

static void obs_init(struct obs *o, struct collect_sample_sink *k)
{
	memset(o, 0, sizeof(*o));
	o->fail_after = -1;
	*k = (struct collect_sample_sink){ o, o_sample, o_mmap, o_comm, o_event };
}

static void obs_free(struct obs *o)
{
	for (size_t i = 0; i < o->nm; i++)
		free(o->m[i].file);
	free(o->m);
	free(o->s);
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static bool no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static char workload[4096];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

static bool is_child(const struct obs *o, int pid)
{
	for (int i = 0; i < o->forks && i < (int)(sizeof(o->fork_pid) / sizeof(o->fork_pid[0])); i++)
		if (o->fork_pid[i] == pid)
			return true;
	return false;
}

/* user samples whose ip no executable mapping of the program covers; a
 * forked child has its parent's mappings until it maps its own */
static size_t unmapped(const struct obs *o, size_t *in_program)
{
	size_t bad = 0;
	*in_program = 0;
	for (size_t i = 0; i < o->ns; i++) {
		if (!o->s[i].user)
			continue;
		bool found = false;
		int pid = o->s[i].pid, alt = is_child(o, pid) ? o->exec_comm_pid : pid;
		for (size_t j = 0; j < o->nm && !found; j++) {
			const struct mm_copy *m = &o->m[j];
			if ((m->pid == pid || m->pid == alt) && (m->prot & PROT_EXEC) && o->s[i].ip >= m->start &&
			    o->s[i].ip < m->start + m->len) {
				found = true;
				*in_program += ends_with(m->file, "/workload");
			}
		}
		bad += !found;
	}
	return bad;
}

static bool have_pmu;

static void test_live(void)
{
	struct collect_sample_opts opts = { .freq = 1000 };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct obs o;
	int fds0 = open_fds();

	obs_init(&o, &k);
	opts.progress = o_progress;
	opts.progress_ctx = &o;
	char *argv[] = { workload, "spin", "0.6", NULL };
	enum collect_status rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	have_pmu = rc == COLLECT_OK && !strncmp(st.event, "cycles", 6);
	tap_ok(rc == COLLECT_OK, "sampled '%s spin 0.6' (%s)", workload, rc ? err : st.event);
	printf("# event %s, %llu samples, %d CPUs, %.2f s, fallback: %s\n", st.event,
	       (unsigned long long)st.samples, st.ncpus, res.seconds, st.fallback[0] ? st.fallback : "(none)");
	if (have_pmu)
		tap_ok(!st.fallback[0] && (!strcmp(st.event, "cycles:pp") || !strcmp(st.event, "cycles:p") ||
					   !strcmp(st.event, "cycles")),
		       "a PMU: cycles sampled (%s), no fallback", st.event);
	else
		tap_ok(!strcmp(st.event, "cpu-clock") && strstr(st.fallback, "cycles") &&
			       strstr(st.fallback, "PMU"),
		       "no PMU: cpu-clock, and the fallback says why (%s)", st.fallback);
	tap_ok(WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 0 && !res.interrupted &&
		       res.seconds >= 0.5,
	       "the program ran to its end (%.2f s)", res.seconds);
	tap_ok(st.samples == o.ns && st.samples > 0, "every sample reached the sink (%zu of %llu)", o.ns,
	       (unsigned long long)st.samples);
	if (!have_pmu)
		tap_ok(st.samples >= 300 && st.samples <= 1000,
		       "about 1000 Hz x 0.6 s of CPU: %llu samples", (unsigned long long)st.samples);
	tap_streq(o.exec_comm, "workload", "the exec COMM names the program");
	int other_pid = 0, ker = 0;
	uint64_t period_sum = 0;
	for (size_t i = 0; i < o.ns; i++) {
		bool child = is_child(&o, o.s[i].pid) && o.s[i].tid == o.s[i].pid;
		other_pid += !child && (o.s[i].pid != o.exec_comm_pid || o.s[i].tid != o.exec_comm_pid);
		ker += !o.s[i].user;
		period_sum += o.s[i].period;
	}
	tap_ok(o.exec_comm_pid > 0 && other_pid == 0,
	       "every sample is the program's (pid %d) or its forked children's (%d FORKs); %d others",
	       o.exec_comm_pid, o.forks, other_pid);
	if (!have_pmu)
		tap_near((double)period_sum / 1e9, 0.6, 0.25,
			 "cpu-clock periods add up to the CPU time (ns, %llu samples)", (unsigned long long)o.ns);
	size_t in_prog, bad = unmapped(&o, &in_prog);
	size_t user = o.ns - (size_t)ker;
	tap_ok(bad == 0 && user > 0, "every user-space ip lies in an executable mapping delivered (%zu of %zu outside)",
	       bad, user);
	tap_ok(in_prog > user / 2, "most samples in the program's own file (spin_loop): %zu of %zu", in_prog, user);
	int prog_maps = 0;
	for (size_t j = 0; j < o.nm; j++)
		prog_maps += ends_with(o.m[j].file, "/workload") && (o.m[j].prot & PROT_EXEC) &&
			     o.m[j].pid == o.exec_comm_pid;
	tap_ok(prog_maps >= 1, "an executable MMAP2 of the program's file (%d), %zu mappings in all", prog_maps, o.nm);
	tap_ok(o.progress_calls >= 1 && o.last_progress == st.samples, "progress called (%d times, last %llu)",
	       o.progress_calls, (unsigned long long)o.last_progress);
	tap_ok(o.exits >= 1, "EXIT reaches the sink (%d)", o.exits);
	tap_ok(no_children() && open_fds() == fds0, "no child left, no descriptor left open (%d, %d)", open_fds(), fds0);
	obs_free(&o);
}

static void test_explicit_events(void)
{
	struct collect_sample_opts opts = { .freq = 1000, .event = "cpu-clock" };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct obs o;
	char *argv[] = { workload, "spin", "0.2", NULL };

	obs_init(&o, &k);
	enum collect_status rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	tap_ok(rc == COLLECT_OK && !strcmp(st.event, "cpu-clock") && !st.fallback[0] && st.samples > 0,
	       "event cpu-clock asked for: sampled, no fallback (%s, %llu samples)", rc ? err : st.event,
	       (unsigned long long)st.samples);
	obs_free(&o);

	opts.event = "cycles";
	obs_init(&o, &k);
	rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	if (have_pmu)
		tap_ok(rc == COLLECT_OK && !strncmp(st.event, "cycles", 6), "event cycles asked for: sampled");
	else
		tap_ok(rc == COLLECT_NO_PMU && strstr(err, "PMU") && o.ns == 0 && no_children(),
		       "event cycles asked for without a PMU: COLLECT_NO_PMU, no fallback, no child (%s)", err);
	obs_free(&o);

	opts.event = "instructions";
	rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, NULL, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_BAD_EVENT && strstr(err, "instructions") && no_children(),
	       "an event gus does not sample: COLLECT_BAD_EVENT (%s)", err);

	opts.event = NULL;
	opts.data_pages = 3;
	rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, NULL, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_ERROR && strstr(err, "power of two"), "3 ring pages refused (%s)", err);
}

static void test_counting(void)
{
	struct collect_sample_opts opts = { .freq = 1000 };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct collect_plan plan;
	struct td_countset cs;
	enum collect_status cst = COLLECT_ERROR;
	char why[COLLECT_ERRLEN];
	struct obs o;
	char *argv[] = { workload, "spin", "0.3", NULL };
	int fds0 = open_fds();

	collect_pfm_init(err, sizeof(err));
	err[0] = 0;
	if (!tap_ok(collect_plan_events("cycles,instructions", false, &plan, err, sizeof(err)) == 0,
		    "a plan of cycles and instructions (%s)", err))
		return;
	td_countset_init(&cs);
	obs_init(&o, &k);
	enum collect_status rc =
		collect_sample_run(argv, &opts, &plan, &cs, &cst, why, sizeof(why), &k, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_OK && st.samples > 0, "with a hardware plan: sampled (%llu samples) %s",
	       (unsigned long long)st.samples, rc ? err : "");
	if (have_pmu) {
		tap_ok(cst == COLLECT_OK && cs.n == 2 && cs.c[0].raw > 0, "a PMU: cycles and instructions counted");
	} else {
		tap_ok(cst == COLLECT_NO_PMU && strstr(why, "cycles") && strstr(why, "PMU") && cs.n == 0,
		       "no PMU: count_status COLLECT_NO_PMU, nothing counted, why given (%s)", why);
		printf("# count_why: %s\n", why);
	}
	tap_ok(no_children() && open_fds() == fds0, "no child, no descriptor left");
	td_countset_free(&cs);
	collect_plan_free(&plan);
	obs_free(&o);

	err[0] = 0;
	if (!tap_ok(collect_plan_events("task-clock,page-faults", false, &plan, err, sizeof(err)) == 0,
		    "a plan of task-clock and page-faults (%s)", err))
		return;
	td_countset_init(&cs);
	obs_init(&o, &k);
	cst = COLLECT_ERROR;
	rc = collect_sample_run(argv, &opts, &plan, &cs, &cst, why, sizeof(why), &k, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_OK && cst == COLLECT_OK && !why[0] && st.samples > 0,
	       "software counters and sampling in one run (%s%s)", rc ? err : "", why);
	tap_ok(cs.n == 2 && !strcmp(cs.c[0].event, "task-clock") && !strcmp(cs.c[1].event, "page-faults") &&
		       cs.c[0].counted && cs.c[1].counted && cs.c[1].raw > 0 && cs.c[0].enabled > 0,
	       "both counted (page-faults %.0f)", cs.n == 2 ? cs.c[1].raw : -1.0);
	if (cs.n == 2)
		tap_near(cs.c[0].raw / 1e9, 0.3, 0.15, "task-clock counts the program's 0.3 s of CPU");
	else
		tap_ok(0, "task-clock counts the program's 0.3 s of CPU");
	td_countset_free(&cs);
	collect_plan_free(&plan);
	obs_free(&o);
}

/* a TMA plan, PERF_METRICS group and all, as gus record makes one */
static void test_tma_plan(void)
{
	const char *dd = getenv("GUS_DATADIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	struct td_table *t = td_table_load_arch(dir, "spr", err, sizeof(err));
	if (!tap_ok(t != NULL, "the spr TMA table loads (%s)", t ? "" : err))
		return;
	bool *sel = td_select_nodes(t, 2, NULL, err, sizeof(err));
	bool *needed = calloc(t->n_events, sizeof(bool));
	struct collect_plan plan;
	td_needed_events(t, sel, true, needed);
	int prc = collect_plan_tma(t, needed, 8, false, false, &plan, err, sizeof(err));
	if (tap_ok(prc == 0, "an spr level-2 plan (%d groups) %s", prc ? 0 : plan.n_groups, prc ? err : "")) {
		struct collect_sample_opts opts = { .freq = 1000 };
		struct collect_sample_stats st;
		struct collect_result res;
		struct td_countset cs;
		enum collect_status cst = COLLECT_ERROR;
		char why[COLLECT_ERRLEN];
		char *argv[] = { workload, "spin", "0.2", NULL };
		int fds0 = open_fds();
		td_countset_init(&cs);
		enum collect_status rc = collect_sample_run(argv, &opts, &plan, &cs, &cst, why, sizeof(why), NULL, &st,
							     &res, err, sizeof(err));
		tap_ok(rc == COLLECT_OK && st.samples > 0, "a TMA plan beside sampling: sampled (%llu)",
		       (unsigned long long)st.samples);
		if (!have_pmu)
			tap_ok(cst == COLLECT_NO_PMU && cs.n == 0, "no PMU: the TMA groups are refused, COLLECT_NO_PMU");
		else
			tap_ok(cst != COLLECT_NO_PMU, "a PMU: the TMA groups open or say why (%s)", why);
		tap_ok(no_children() && open_fds() == fds0, "no child, no descriptor left");
		td_countset_free(&cs);
		collect_plan_free(&plan);
	}
	free(sel);
	free(needed);
	td_table_free(t);
}

static void test_callchain(void)
{
	struct collect_sample_opts opts = { .freq = 1000, .callchain = true };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct obs o;
	char *argv[] = { workload, "spin", "0.3", NULL };

	obs_init(&o, &k);
	enum collect_status rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	tap_ok(rc == COLLECT_OK && o.ns > 0 && o.chained == (int)o.ns, "-g: every sample has a chain (%d of %zu) %s",
	       o.chained, o.ns, rc ? err : "");
	tap_ok(o.bad_chain == 0, "-g: chains start at the ip and hold no PERF_CONTEXT markers (%d bad, deepest %d)",
	       o.bad_chain, o.max_depth);
	size_t in_prog;
	tap_ok(unmapped(&o, &in_prog) == 0, "-g: the ips still lie in the mappings");
	obs_free(&o);
}

/* PERF_SAMPLE_REGS_USER and STACK_USER after the callchain: the ABI, the
 * mask's registers, the stack's bytes and its dyn_size; cut short anywhere,
 * the record is refused, never read past */
static void test_regs_stack(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			    PERF_SAMPLE_STACK_USER;
	const uint64_t mask = COLLECT_DWARF_REGS_MASK;
	uint8_t body[8 + 20 * 8 + 8 + 64 + 8];
	size_t n = 0;
	uint64_t v = 2;		/* PERF_SAMPLE_REGS_ABI_64 */
	memcpy(body + n, &v, 8), n += 8;
	for (uint64_t i = 0; i < 20; i++, n += 8)
		memcpy(body + n, &(uint64_t){ 0x1000 + i }, 8);
	v = 64;
	memcpy(body + n, &v, 8), n += 8;
	for (size_t i = 0; i < 64; i++)
		body[n++] = (uint8_t)i;
	v = 40;			/* dyn_size: what of the 64 bytes is stack */
	memcpy(body + n, &v, 8), n += 8;
	static uint8_t mem[4096] __attribute__((aligned(8)));
	struct ring r = { .buf = mem, .size = sizeof mem };
	struct ptring_reader rd;
	struct ptring_record rec;
	uint64_t chain[1] = { F.ip };
	bool refused_all = true;
	for (size_t cut = 0; cut <= n; cut += 4) {
		memset(mem, 0, sizeof mem);
		r.head = 0;
		/* the callchain's entry, then CUT bytes of registers and stack
		 * (a multiple of 8 in the header: the record's size) */
		put_sample(&r, st, PERF_RECORD_MISC_USER, &F, chain, 1, 1, (int)((cut + 7) / 8));
		r.head -= 8 * ((cut + 7) / 8);
		ring_put(&r, body, cut);
		r.head = (r.head + 7) & ~7ULL;
		ptring_reader_init(&rd, r.buf, r.size, r.head, 0, st, true);
		ptring_reader_set_regs_user(&rd, mask);
		int got = ptring_next(&rd, &rec, err, sizeof err);
		if (cut < n && (cut + 7) / 8 * 8 < n)
			refused_all &= got < 0;
		if (cut == n) {
			tap_ok(got == 1 && rec.u.sample.regs_abi == 2 && rec.u.sample.regs_nr == 20 &&
				       ptring_reg_at(&rec, 19) == 0x1013 && rec.u.sample.stack_size == 64 &&
				       rec.u.sample.stack_dyn == 40 && rec.u.sample.stack[39] == 39,
			       "REGS_USER and STACK_USER: the 20 registers of gus's mask, 40 of 64 bytes of stack %s",
			       got == 1 ? "" : err);
		}
	}
	tap_ok(refused_all, "REGS_USER and STACK_USER cut short at any point: refused");
}

/* --call-graph dwarf on the workload: registers and stack with each sample */
static int d_sample(void *ctx, const struct collect_sample *s)
{
	size_t *c = ctx;
	c[0]++;
	c[1] += s->user && s->regs_abi == 2 && s->nregs == 20 && s->nstack > 0 && s->nstack <= 4096 &&
		s->regs[8] == s->ip && s->ncallchain >= 1;
	return 0;
}

static void test_dwarf(void)
{
	struct collect_sample_opts opts = { .freq = 1000, .callchain = true, .dwarf_stack = 4096, .user_only = true };
	size_t c[2] = { 0, 0 };
	struct collect_sample_sink k = { .ctx = c, .sample = d_sample };
	struct collect_sample_stats st;
	struct collect_result res;
	char *argv[] = { workload, "spin", "0.3", NULL };
	enum collect_status rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	tap_ok(rc == COLLECT_OK && c[0] > 0 && c[1] == c[0],
	       "--call-graph dwarf,4096: every user sample with its 20 registers (ip the sample's) and stack (%zu of %zu) %s",
	       c[1], c[0], rc ? err : "");
	opts.dwarf_stack = 4100;
	rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_ERROR && strstr(err, "multiple of 8"), "a stack size not a multiple of 8: refused (%s)",
	       err);
}

static void test_fork(void)
{
	struct collect_sample_opts opts = { .freq = 1000 };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct obs o;
	char *argv[] = { workload, "fork", "2", "0.2", NULL };

	obs_init(&o, &k);
	enum collect_status rc = collect_sample_run(argv, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	int pids[8], np = 0;
	for (size_t i = 0; i < o.ns; i++) {
		int j;
		for (j = 0; j < np && pids[j] != o.s[i].pid; j++)
			;
		if (j == np && np < 8)
			pids[np++] = o.s[i].pid;
	}
	tap_ok(rc == COLLECT_OK && o.forks >= 2 && np >= 2,
	       "children are sampled too (inherit): %d FORKs, samples from %d processes", o.forks, np);
	obs_free(&o);
}

static void test_failures(void)
{
	struct collect_sample_opts opts = { .freq = 1000 };
	struct collect_sample_stats st;
	struct collect_result res;
	struct collect_sample_sink k;
	struct obs o;
	int fds0 = open_fds();

	/* (e) exec failure */
	char *missing[] = { "/nonexistent/gus-test-program", NULL };
	obs_init(&o, &k);
	enum collect_status rc = collect_sample_run(missing, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err,
						     sizeof(err));
	tap_ok(rc == COLLECT_EXEC_FAILED && res.exec_errno == ENOENT && strstr(err, "gus-test-program"),
	       "a missing program: COLLECT_EXEC_FAILED, ENOENT (%s)", err);
	tap_ok(no_children() && open_fds() == fds0 && o.ns == 0, "no child left, no descriptor, no sample");
	obs_free(&o);

	/* (f) killed by a signal */
	char *killed[] = { workload, "kill", "15", NULL };
	obs_init(&o, &k);
	rc = collect_sample_run(killed, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_OK && WIFSIGNALED(res.wait_status) && WTERMSIG(res.wait_status) == SIGTERM &&
		       collect_exit_code(res.wait_status) == 143,
	       "a program killed by SIGTERM: the wait status says so");
	obs_free(&o);

	/* (g) a sink that fails */
	char *longrun[] = { workload, "spin", "10", NULL };
	obs_init(&o, &k);
	o.fail_after = 20;
	double t0 = now();
	rc = collect_sample_run(longrun, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	double took = now() - t0;
	int pid = o.ns ? o.s[0].pid : 0;
	tap_ok(rc == COLLECT_ERROR && strstr(err, "refused") && took < 5,
	       "a sample sink that fails: COLLECT_ERROR after %.2f s (%s)", took, err);
	errno = 0;
	tap_ok(pid > 0 && kill(pid, 0) < 0 && errno == ESRCH && no_children() && open_fds() == fds0,
	       "the program (pid %d) is gone, nothing left open", pid);
	obs_free(&o);

	obs_init(&o, &k);
	o.fail_mmap = 1;
	rc = collect_sample_run(longrun, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	tap_ok(rc == COLLECT_ERROR && strstr(err, "MMAP") && no_children(),
	       "an mmap sink that fails: COLLECT_ERROR, no child (%s)", err);
	obs_free(&o);

	/* SIGINT to gus: forwarded, what was sampled is kept. A test run in
	 * the background inherits SIGINT ignored, and so would the program */
	signal(SIGINT, SIG_DFL);
	obs_init(&o, &k);
	o.interrupt = true;
	opts.progress = o_progress;
	opts.progress_ctx = &o;
	t0 = now();
	rc = collect_sample_run(longrun, &opts, NULL, NULL, NULL, NULL, 0, &k, &st, &res, err, sizeof(err));
	took = now() - t0;
	tap_ok(rc == COLLECT_OK && res.interrupted && WIFSIGNALED(res.wait_status) &&
		       WTERMSIG(res.wait_status) == SIGINT && took < 5,
	       "SIGINT to gus reaches the program (%.2f s), the run ends OK", took);
	tap_ok(o.ns > 0 && o.ns == st.samples, "the samples up to the interrupt are delivered (%zu)", o.ns);
	tap_ok(no_children() && open_fds() == fds0, "no child, no descriptor left");
	obs_free(&o);
}

/* what the samples of read groups carried */
struct reads {
	size_t samples, with_read, bad;
	size_t per_group[4];
	double sum[4][4];	/* [group][event] deltas */
	double enabled, running;
};

static int r_sample(void *ctx, const struct collect_sample *s)
{
	struct reads *r = ctx;
	r->samples++;
	if (!s->nread)
		return 0;
	r->with_read++;
	if (s->read_group < 0 || s->read_group > 3 || s->nread > 4 || !s->read) {
		r->bad++;
		return 0;
	}
	r->per_group[s->read_group]++;
	for (size_t k = 0; k < s->nread; k++)
		r->sum[s->read_group][k] += s->read[k];
	r->enabled += s->read_enabled;
	r->running += s->read_running;
	return 0;
}

/* Counter groups read at each sample, with software events (these
 * machines have no PMU): a cpu-clock leader sampling the group
 * {task-clock, page-faults} and a second group {context-switches}; the
 * deltas of a group over its samples add up to the run's total, and the
 * count set is the groups' totals. A group the kernel refuses leaves the
 * run to plain sampling, said. */
static void test_read_groups(void)
{
	struct collect_plan plan;
	collect_pfm_init(err, sizeof(err));
	err[0] = 0;
	if (!tap_ok(collect_plan_events("task-clock,page-faults,context-switches", false, &plan, err, sizeof(err)) == 0,
		    "a plan of software events (%s)", err))
		return;
	plan.ev[0].group = plan.ev[1].group = 0;
	plan.ev[2].group = 1;
	plan.n_groups = 2;
	plan.each_alone = false;
	enum collect_status rst = COLLECT_ERROR;
	char why[COLLECT_ERRLEN] = "x";
	struct collect_sample_opts opts = { .freq = 1000, .event = "cpu-clock", .read_groups = &plan,
					    .read_status = &rst, .read_why = why, .read_why_len = sizeof why };
	struct reads r = { 0 };
	struct collect_sample_sink k = { .ctx = &r, .sample = r_sample };
	struct collect_sample_stats st;
	struct collect_result res;
	struct td_countset cs;
	td_countset_init(&cs);
	enum collect_status cst = COLLECT_ERROR;
	char cwhy[256] = "";
	int fds0 = open_fds();
	char *argv[] = { workload, "spin", "0.4", NULL };
	enum collect_status rc = collect_sample_run(argv, &opts, &plan, &cs, &cst, cwhy, sizeof cwhy, &k, &st, &res, err,
						    sizeof(err));
	tap_ok(rc == COLLECT_OK && rst == COLLECT_OK && !why[0], "read groups of software events open (%s%s)",
	       rc ? err : "", why);
	tap_ok(r.with_read > 100 && r.samples - r.with_read > 100 && !r.bad && st.samples == r.samples - r.with_read &&
		       st.read_samples == r.with_read,
	       "the groups' leaders sample with their deltas (%zu), the sampling event without (%zu), %zu bad",
	       r.with_read, r.samples - r.with_read, r.bad);
	tap_ok(r.per_group[0] > 50 && r.per_group[1] > 50, "both groups sample (%zu, %zu)", r.per_group[0],
	       r.per_group[1]);
	const struct td_count *tc = NULL, *pf = NULL, *cx = NULL;
	for (size_t i = 0; i < cs.n; i++) {
		if (!strcmp(cs.c[i].event, "task-clock"))
			tc = &cs.c[i];
		if (!strcmp(cs.c[i].event, "page-faults"))
			pf = &cs.c[i];
		if (!strcmp(cs.c[i].event, "context-switches"))
			cx = &cs.c[i];
	}
	tap_ok(cst == COLLECT_OK && tc && pf && cx && tc->counted && pf->counted && cx->counted,
	       "the count set: the groups' totals at the end (%s)", cwhy);
	if (tc) {
		/* what ran after a thread's last sample is in the total only */
		double ratio = r.sum[0][0] / tc->raw;
		tap_ok(ratio > 0.85 && ratio <= 1.0001, "task-clock: the deltas add up to the total (%.0f of %.0f ns)",
		       r.sum[0][0], tc->raw);
		tap_ok(tc->raw > 0.3e9 && tc->raw < 0.6e9, "task-clock: the 0.4 s the program spun (%.3f s)", tc->raw / 1e9);
		/* the event of each CPU is enabled while the program runs on
		 * any of them: not multiplexed, the totals must not say so */
		tap_ok(tc->running >= 0.95 * tc->enabled && tc->enabled < 0.6e9,
		       "task-clock: enabled is the program's time, not the CPUs' sum (%.3f s enabled, %.3f s running)",
		       tc->enabled / 1e9, tc->running / 1e9);
	}
	tap_ok(r.enabled > 0 && r.running > 0 && r.running <= r.enabled * 1.0001,
	       "the groups' enabled and running deltas (%.0f, %.0f ns)", r.enabled, r.running);
	tap_ok(open_fds() == fds0 && no_children(), "every read group closed, no child left");
	td_countset_free(&cs);

	/* a group the kernel refuses: the run samples as without */
	struct collect_plan hw;
	if (collect_plan_events("cycles,instructions", false, &hw, err, sizeof(err)) == 0) {
		hw.ev[1].group = 0;
		hw.n_groups = 1;
		memset(&r, 0, sizeof r);
		opts.read_groups = &hw;
		opts.event = NULL;
		td_countset_init(&cs);
		rc = collect_sample_run(argv, &opts, NULL, &cs, &cst, cwhy, sizeof cwhy, &k, &st, &res, err, sizeof(err));
		if (have_pmu)
			tap_ok(rc == COLLECT_OK && (rst == COLLECT_OK ? r.with_read > 0 : r.with_read == 0),
			       "hardware read groups on a PMU: read, or refused and said (%s)", why);
		else
			tap_ok(rc == COLLECT_OK && rst == COLLECT_NO_PMU && strstr(why, "cannot be read at samples") &&
				       r.samples > 100 && r.with_read == 0 && !strcmp(st.event, "cpu-clock"),
			       "hardware read groups without a PMU: cpu-clock samples without reads, and why (%s)", why);
		td_countset_free(&cs);
		collect_plan_free(&hw);
		tap_ok(open_fds() == fds0 && no_children(), "after the refusal: nothing left open");
	}
	collect_plan_free(&plan);
}

int main(void)
{
	const char *w = getenv("WORKLOAD");
	const char *dir = getenv("WORKLOADS");
	if (w)
		snprintf(workload, sizeof(workload), "%s", w);
	else
		snprintf(workload, sizeof(workload), "%s/workload", dir ? dir : "tests/workloads");

	test_parse();
	test_read_layouts();
	test_wrap();
	test_corrupt();
	test_regs_stack();
	if (access(workload, X_OK)) {
		printf("# %s: %s; live runs skipped\n", workload, strerror(errno));
		tap_ok(0, "the test workload exists (set WORKLOADS)");
		return tap_done();
	}
	test_live();
	test_explicit_events();
	test_counting();
	test_tma_plan();
	test_callchain();
	test_dwarf();
	test_fork();
	test_failures();
	test_read_groups();
	return tap_done();
}
