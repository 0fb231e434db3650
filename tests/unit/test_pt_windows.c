/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT, thread by thread and window by window: a per-CPU trace
 * (synthesized with libipt's encoder from a generated program, TSC
 * packets where the sideband says the CPU changed hands) in which thread
 * A runs, then thread B, then A again. Decoding the recording gives each
 * record the thread its switch-in events name (perf time turned into TSC
 * by the recording's pt.time_* meta), and the report's windows cut each
 * thread's run where the QEMU tracer would: windows over the whole run,
 * for both threads, and for one thread alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gusdata.h"
#include "ipt.h"
#include "pt_synth.h"
#include "report_internal.h"
#include "sim.h"
#include "tap.h"

#define BASE 0x401000ull
#define PID 4100
/* thread A runs SEG_A records, B runs SEG_B, A again SEG_A */
#define SEG_A 300000u
#define SEG_B 200000u
#define WINDOW 5000u
#define PER_LEVEL 4u

/* the recording's clock: perf time = ZERO + TSC * MULT >> SHIFT */
#define TIME_ZERO 5000ull
#define TIME_MULT 2048ull
#define TIME_SHIFT 10ull

static char err[1024];
static char tmpdir[256];
static char datadir[1024];

struct vec {
	struct stream_insn *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct stream_insn *v, size_t n)
{
	struct vec *a = ctx;
	if (a->n + n > a->cap) {
		size_t cap = (a->n + n) * 2;
		struct stream_insn *p = realloc(a->v, cap * sizeof(*p));
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	memcpy(a->v + a->n, v, n * sizeof(*v));
	a->n += n;
	return 0;
}

static uint64_t perf_time(uint64_t tsc)
{
	return TIME_ZERO + (tsc * TIME_MULT >> TIME_SHIFT);
}

/* windows of a thread run of N records: those starting before N, window
 * J of level L = J / K at K*W*(2^L - 1) + (J mod K)*W*2^L */
static size_t windows_of(uint64_t n)
{
	size_t count = 0;
	for (uint32_t j = 0;; j++) {
		uint64_t level = j / PER_LEVEL, i = j % PER_LEVEL;
		uint64_t start = PER_LEVEL * WINDOW * ((1ull << level) - 1) + i * (WINDOW << level);
		if (start >= n)
			return count;
		count++;
	}
}

struct fixture {
	struct pt_synth_prog *prog;
	struct vec truth;
	uint8_t *pt;
	size_t len;
	size_t csize;
	char path[512], data[512];
	struct gusdata *d;
};

static bool make(struct fixture *f)
{
	memset(f, 0, sizeof *f);
	f->prog = pt_synth_prog_new(BASE, 24, 7);
	struct pt_synth *sy = pt_synth_new(4096);
	if (!f->prog || !sy || pt_synth_prog_run(f->prog, 2 * SEG_A + SEG_B, collect, &f->truth) ||
	    f->truth.n != 2 * SEG_A + SEG_B) {
		pt_synth_free(sy);
		return false;
	}
	/* the three stretches, each entered anew (the kernel stops tracing
	 * a task that is switched out), the time where each begins */
	size_t cut[4] = { 0, SEG_A, SEG_A + SEG_B, 2 * SEG_A + SEG_B };
	uint64_t tsc[3] = { 1000000, 2000000, 3000000 };
	bool ok = true;
	for (int s = 0; s < 3 && ok; s++) {
		f->truth.v[cut[s]].flags |= STREAM_ENTRY;
		if (s)
			ok = !pt_synth_tsc(sy, tsc[s]);
		ok = ok && !pt_synth_add(sy, f->truth.v + cut[s], cut[s + 1] - cut[s]);
		if (!s)
			ok = ok && !pt_synth_tsc(sy, tsc[0]);
	}
	ok = ok && !pt_synth_finish(sy, &f->pt, &f->len);
	pt_synth_free(sy);
	if (!ok)
		return false;
	const uint8_t *code = pt_synth_prog_code(f->prog, &f->csize);
	snprintf(f->path, sizeof f->path, "%s/prog.bin", tmpdir);
	FILE *out = fopen(f->path, "wb");
	if (!out || fwrite(code, 1, f->csize, out) != f->csize) {
		if (out)
			fclose(out);
		return false;
	}
	fclose(out);

	snprintf(f->data, sizeof f->data, "%s/gus.data", tmpdir);
	if (gusdata_create(f->data, 0, &f->d, err, sizeof err)) {
		printf("# gusdata_create: %s\n", err);
		return false;
	}
	struct gusdata *d = f->d;
	gusdata_set_meta(d, "tracer", "pt");
	gusdata_set_meta(d, "cpu.family", "6");
	gusdata_set_meta(d, "cpu.model", "85");
	gusdata_set_meta_u64(d, "pt.cap_user_time_zero", 1);
	gusdata_set_meta_u64(d, "pt.time_zero", TIME_ZERO);
	gusdata_set_meta_u64(d, "pt.time_mult", TIME_MULT);
	gusdata_set_meta_u64(d, "pt.time_shift", TIME_SHIFT);
	struct gusdata_mmap m = { .time = perf_time(10), .pid = PID, .tid = PID, .start = BASE, .len = f->csize,
				  .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = f->path };
	gusdata_add_mmap(d, &m);
	/* B is A's second thread; the sideband as pt.c stores it */
	gusdata_add_event(d, perf_time(500000), 0, PID, PID + 1, "fork", PID, PID);
	gusdata_add_event(d, perf_time(tsc[0]), 0, PID, PID, "itrace-start", 0, 0);
	gusdata_add_event(d, perf_time(tsc[1]) - 1, 0, PID, PID, "switch-out", 1, 0);
	gusdata_add_event(d, perf_time(tsc[1]), 0, PID, PID + 1, "switch-in", 0, 0);
	gusdata_add_event(d, perf_time(tsc[2]) - 1, 0, PID, PID + 1, "switch-out", 0, 0);
	gusdata_add_event(d, perf_time(tsc[2]), 0, PID, PID, "switch-in", 0, 0);
	struct gusdata_chunk ch = { .cpu = 0, .tid = -1, .data = f->pt, .size = f->len };
	return !gusdata_add_chunk(d, &ch);
}

static void fixture_free(struct fixture *f)
{
	if (f->d)
		gusdata_close(f->d);
	pt_synth_prog_free(f->prog);
	free(f->truth.v);
	free(f->pt);
	unlink(f->path);
	unlink(f->data);
}

/* every record carries the thread the switch events name */
static void test_threads(struct fixture *f)
{
	struct vec out = { 0 };
	struct ipt_decode_opts o = { .sink = collect, .ctx = &out };
	struct ipt_stats st;
	struct ipt_recording_stats rs;
	memset(&st, 0, sizeof st);
	int rc = ipt_decode_recording(f->d, &o, &st, &rs, err, sizeof err);
	tap_ok(rc == 0 && out.n == f->truth.n && !st.gaps, "decoded: %zu records of %zu, %llu gap(s)%s%s", out.n,
	       f->truth.n, (unsigned long long)st.gaps, rc ? ": " : "", rc ? err : "");
	/* the first thread of process 0 is thread 0, its second thread 1 */
	size_t wrong = 0, in_b = 0;
	for (size_t i = 0; i < out.n; i++) {
		uint32_t want = i >= SEG_A && i < SEG_A + SEG_B ? STREAM_THREAD(0, 1) : STREAM_THREAD(0, 0);
		wrong += out.v[i].thread != want;
		in_b += out.v[i].thread == STREAM_THREAD(0, 1);
	}
	/* a switch is seen at the branch that follows the TSC: the few
	 * records before it may go to the thread before */
	tap_ok(wrong <= 64, "each record is its thread's: %zu of %zu on the wrong side of a switch", wrong, out.n);
	tap_near((double)in_b, SEG_B, 64, "thread B ran %zu records (want %u)", in_b, SEG_B);
	free(out.v);
}

/* the windows of the whole run, of both threads and of one */
static void test_windows(struct fixture *f, const struct sim_machine *m)
{
	struct report_trace_source src = { .d = f->d, .pt = true, .window_records = WINDOW, .per_level = PER_LEVEL };
	struct simrun_collect tc = { .code = sim_code_new(m), .lo = BASE, .hi = BASE + f->csize, .max = 60000 };
	struct report_windows w;
	uint64_t damaged = 0;
	int rc = report_gather_windows(&src, BASE, BASE + f->csize, 0, -1, tc.max, &tc, &w, &damaged, err, sizeof err);
	tap_ok(rc == 0, "the windows of PT gathered%s%s", rc ? ": " : "", rc ? err : "");
	size_t want = windows_of(2 * SEG_A) + windows_of(SEG_B);
	tap_ok(w.total == want, "every window of both threads' runs: %zu (want %zu: %zu of A's, %zu of B's)", w.total,
	       want, windows_of(2 * SEG_A), windows_of(SEG_B));
	tap_ok(w.nthread_ids == 2 && w.thread_ids[0] == STREAM_THREAD(0, 0) && w.thread_ids[1] == STREAM_THREAD(0, 1),
	       "two threads ran the region (%zu)", w.nthread_ids);
	double last_a = 0, last_b = 0;
	size_t picked_b = 0, records = 0;
	for (size_t i = 0; i < w.n; i++) {
		const struct report_window *x = &w.v[i];
		if (x->thread == STREAM_THREAD(0, 0) && x->position > last_a)
			last_a = x->position;
		if (x->thread == STREAM_THREAD(0, 1)) {
			picked_b++;
			if (x->position > last_b)
				last_b = x->position;
		}
		records += x->n;
	}
	tap_ok(w.n >= 4 && tc.n > 0 && tc.n <= tc.max && records == tc.n,
	       "%zu windows picked, %zu records collected (budget %zu)", w.n, tc.n, tc.max);
	/* A's second stretch comes after B's in time, but A's run goes on:
	 * windows of it past its first 300000 records are A's late phase */
	tap_ok(last_a > SEG_A, "A's picked windows reach its second stretch (last at record %.0f of %u)", last_a,
	       2 * SEG_A);
	tap_ok(picked_b >= 2 && last_b > SEG_B / 2, "B's windows picked too: %zu, the last at record %.0f of %u",
	       picked_b, last_b, SEG_B);
	report_windows_free(&w);
	simrun_collect_free(&tc);

	struct simrun_collect tb = { .code = tc.code, .lo = BASE, .hi = BASE + f->csize, .max = 60000 };
	rc = report_gather_windows(&src, BASE, BASE + f->csize, 0, STREAM_THREAD(0, 1), tb.max, &tb, &w, &damaged, err,
				   sizeof err);
	bool only_b = rc == 0 && w.n > 0;
	for (size_t i = 0; i < w.n; i++)
		only_b &= w.v[i].thread == STREAM_THREAD(0, 1);
	tap_ok(only_b && w.total == windows_of(SEG_B), "thread B alone: %zu windows of %zu, all of B's (want %zu)%s%s",
	       w.n, w.total, windows_of(SEG_B), rc ? ": " : "", rc ? err : "");
	report_windows_free(&w);
	simrun_collect_free(&tb);
	sim_code_free(tc.code);
}

/* the addresses of TC's records, in order, the same in both */
static bool same_records(const struct simrun_collect *a, const struct simrun_collect *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (sim_code_insn(a->code, a->recs[i].insn)->addr != sim_code_insn(b->code, b->recs[i].insn)->addr ||
		    memcmp(a->recs[i].mem, b->recs[i].mem, sizeof a->recs[i].mem))
			return false;
	return true;
}

/* Streams gathered together (one decoding counts them all, one collects
 * them all) give what each gathers alone: the whole code, its first
 * half, and thread B's windows of the whole, picked from its count */
static void test_together(struct fixture *f, const struct sim_machine *m)
{
	struct report_trace_source src = { .d = f->d, .pt = true, .window_records = WINDOW, .per_level = PER_LEVEL };
	const uint64_t lo[3] = { BASE, BASE, BASE };
	const uint64_t hi[3] = { BASE + f->csize, BASE + f->csize / 2, BASE + f->csize };
	const int64_t thread[3] = { -1, -1, STREAM_THREAD(0, 1) };
	struct simrun_collect apart[3], together[3];
	struct report_windows wa[3], wt[3];
	uint64_t damaged = 0;
	int rc = 0;
	for (size_t k = 0; k < 3; k++) {
		apart[k] = (struct simrun_collect){ .code = sim_code_new(m), .lo = lo[k], .hi = hi[k], .max = 60000 };
		together[k] = (struct simrun_collect){ .code = sim_code_new(m), .lo = lo[k], .hi = hi[k], .max = 60000 };
		rc |= report_gather_windows(&src, lo[k], hi[k], 0, thread[k], 60000, &apart[k], &wa[k], &damaged, err,
					    sizeof err);
	}
	tap_ok(rc == 0, "three streams gathered one by one%s%s", rc ? ": " : "", rc ? err : "");
	struct report_gather *g = report_gather_new(&src);
	size_t which[3];
	which[0] = report_gather_add(g, &src, lo[0], hi[0], 0, -1, 60000, &together[0], &wt[0]);
	which[1] = report_gather_add(g, &src, lo[1], hi[1], 0, -1, 60000, &together[1], &wt[1]);
	rc = report_gather_count(g, &damaged, err, sizeof err);
	which[2] = report_gather_add_thread(g, which[0], STREAM_THREAD(0, 1), 60000, &together[2], &wt[2]);
	tap_ok(report_gather_records(g, which[0]) > 0 && report_gather_records(g, which[0]) <= 60000,
	       "the records the whole's picks hold, within its budget: %llu",
	       (unsigned long long)report_gather_records(g, which[0]));
	if (!rc)
		rc = report_gather_collect(g, which, 3, &damaged, err, sizeof err);
	report_gather_free(g);
	tap_ok(rc == 0, "... and together, from two decodings%s%s", rc ? ": " : "", rc ? err : "");
	static const char *what[3] = { "the whole code", "its first half", "thread B" };
	for (size_t k = 0; k < 3 && !rc; k++) {
		bool windows = wa[k].total == wt[k].total && wa[k].n == wt[k].n && wa[k].nthread_ids == wt[k].nthread_ids;
		for (size_t i = 0; windows && i < wa[k].n; i++)
			windows = wa[k].v[i].thread == wt[k].v[i].thread && wa[k].v[i].index == wt[k].v[i].index &&
				  wa[k].v[i].n == wt[k].v[i].n && wa[k].v[i].hits == wt[k].v[i].hits;
		tap_ok(windows && apart[k].n > 0 && same_records(&apart[k], &together[k]) && wt[k].nruns >= wt[k].n,
		       "%s: the same windows (%zu of %zu) and records (%zu) together as alone", what[k], wt[k].n,
		       wt[k].total, together[k].n);
	}
	for (size_t k = 0; k < 3; k++) {
		report_windows_free(&wa[k]);
		report_windows_free(&wt[k]);
		simrun_collect_free(&apart[k]);
		simrun_collect_free(&together[k]);
		sim_code_free(apart[k].code);
		sim_code_free(together[k].code);
	}
}

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/gus-test-ptwin-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	const char *dd = getenv("GUS_DATADIR");
	snprintf(datadir, sizeof datadir, "%s", dd && *dd ? dd : GUS_ABS_SRCDIR "/data");
	char mdir[1100];
	snprintf(mdir, sizeof mdir, "%s/machines", datadir);
	struct sim_machine *m = sim_machine_find(mdir, "skx", err, sizeof err);
	tap_ok(m != NULL, "the skx model loads%s%s", m ? "" : ": ", m ? "" : err);
	struct fixture f;
	bool made = make(&f);
	tap_ok(made, "a per-CPU trace of two threads synthesized and stored");
	if (made && m) {
		test_threads(&f);
		test_windows(&f, m);
		test_together(&f, m);
	}
	fixture_free(&f);
	sim_machine_free(m);
	rmdir(tmpdir);
	return tap_done();
}
