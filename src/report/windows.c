/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A region's stream as a sample of its whole run (report_internal.h).
 * The QEMU tracer stores windows of each thread's run of each traced
 * range, K back to back and then K at every doubling of the stride
 * (collect.h), so window J stands for W * 2^(J/K) of the thread's records
 * of the range. A region
 * is simulated on windows picked with probability in proportion to the
 * time they stand for (systematic sampling by weight), so that the
 * concatenated stream is the time-weighted whole; each picked window is
 * also simulated alone, which shows how much the run's phases differ.
 *
 * Every stream of a report (each region's, each of its threads') is
 * gathered from the same two readings of the trace: the first counts the
 * records of every window of every region, the second collects the picked
 * windows of all of them (struct report_gather). Each record is filed into
 * the streams whose code holds it, found by its address in a table of
 * the streams' address ranges. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gusdata.h"
#include "ipt.h"
#include "report_internal.h"

#define MAX_THREADS 4096

/* where each thread is in its windows while the stream is read */
struct thread_pos {
	uint32_t thread;
	uint32_t index;		/* its current window */
	bool seen_mark;
};

/* ------------------------------------------------- cutting PT's run --- */
/* Intel PT holds every record: each thread's records of the region are
 * cut into windows where the QEMU tracer would keep them (its in_window:
 * window J of level L = J / K starts at K*W*(2^L - 1) + (J mod K)*W*2^L),
 * the first record of each tagged as the plugin tags it. */
struct cut_thread {
	uint32_t thread;
	uint64_t pos;		/* the thread's records of the region so far */
	double next;		/* where the next window starts */
	uint64_t end;		/* where the open one ends */
	uint32_t index;
	bool open, skipped;
};

struct window_cut {
	uint64_t w;
	unsigned k;
	struct cut_thread *t;
	size_t nt;
};

/* records from the start of a thread's traced run to window J of W
 * records, K per level: K*W*(2^L - 1) + (J mod K)*W*2^L, L = J / K (the
 * QEMU tracer's schedule, collect.h) */
static double window_start(uint64_t w, unsigned k, uint32_t j)
{
	unsigned level = j / k, i = j % k;
	return (double)k * (double)w * (ldexp(1.0, (int)level) - 1) + i * (double)w * ldexp(1.0, (int)level);
}

static struct cut_thread *cut_thread_of(struct window_cut *c, uint32_t thread)
{
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].thread == thread)
			return &c->t[i];
	if (c->nt == MAX_THREADS)
		return NULL;
	struct cut_thread *t = &c->t[c->nt++];
	*t = (struct cut_thread){ .thread = thread, .skipped = false };
	return t;
}

/* V as the windows have it: false when it falls between two windows,
 * else *OUT is V, tagged when it opens a window */
static bool cut_one(struct window_cut *c, const struct stream_insn *v, struct stream_insn *out)
{
	struct cut_thread *t = cut_thread_of(c, v->thread);
	if (!t)
		return false;
	uint64_t pos = t->pos++;
	bool opens = false;
	if (!t->open || pos >= t->end) {
		if (t->open) {
			t->open = false;
			t->index++;
			t->next = window_start(c->w, c->k, t->index);
		}
		if ((double)pos < t->next || t->index > 0xffffffu) {
			t->skipped = true;
			return false;
		}
		t->open = opens = true;
		t->end = pos + c->w;
	}
	*out = *v;
	if (opens) {
		out->flags |= STREAM_WINDOW;
		out->window = STREAM_WINDOW_TAG(0, t->index);
	}
	if (t->skipped)
		out->flags |= STREAM_ENTRY;
	t->skipped = false;
	return true;
}

/* ------------------------------------------------------------ streams --- */
/* One stream to gather: a region's windows, or one thread's of them. */
struct gather_stream {
	uint64_t lo, hi;
	uint32_t range;
	int64_t thread;		/* only this thread's records; -1: all */
	size_t budget;
	struct simrun_collect *tc;
	struct report_windows *out;
	size_t feed;		/* its position table */
	/* pass 1: the windows holding records of it */
	struct report_window *w;
	size_t n, cap;
	bool count_me;		/* takes part in the next counting */
	/* the picked windows, sorted by (thread, index) */
	struct report_window *picked;
	size_t npicked;
	uint64_t picked_records;
	/* pass 2: its picked windows' records into TC, in stream order */
	bool collecting, collected;
	long cur;		/* index into picked of the last record kept, -1 none */
	/* the window of the last record looked up, and its pick (-1: none) */
	uint32_t last_thread, last_index;
	long last_pick;
	bool have_last;
	struct report_window *seg;	/* segments of TC, in stream order */
	size_t nseg, capseg;
};

/* Where each thread is in its windows: the QEMU tracer's marks of one
 * traced range (shared by every stream of it), or one cut of Intel PT's
 * records of one [lo, hi) */
struct feed {
	uint32_t range;
	uint64_t lo, hi;
	/* its windows: the native stepper's (records of process
	 * STREAM_STEP_PROC only), else the gather's trace's */
	bool stepped;
	uint64_t window_records;
	unsigned per_level;
	struct thread_pos *threads;
	size_t nthreads;
	struct window_cut cut;	/* Intel PT */
	unsigned long long seen;	/* the record it last cut (PT) */
	bool kept;			/* ... and whether that one is in a window */
	struct stream_insn tagged;	/* ... as the window has it */
};

/* addresses [lo, next segment's lo) and the active streams holding them */
struct segment {
	uint64_t lo;
	size_t *streams;
	size_t n;
};

struct report_gather {
	struct report_trace_source *src;
	unsigned per_level;
	struct gather_stream *s;
	size_t n, cap;
	struct feed *f;
	size_t nf;
	/* the reading in progress */
	bool counting;
	struct segment *seg;
	size_t nseg;
	size_t last;		/* the segment of the previous record */
	unsigned long long record;	/* records read */
	bool oom;
	void (*progress)(void *ctx, uint64_t records);
	void *progress_ctx;
	uint64_t read;			/* records read in this reading */
};

void report_gather_progress(struct report_gather *g, void (*fn)(void *ctx, uint64_t records), void *ctx)
{
	g->progress = fn;
	g->progress_ctx = ctx;
}

/* every million records read, the progress hook */
static void read_some(struct report_gather *g, size_t n)
{
	uint64_t before = g->read;
	g->read += n;
	if (g->progress && before >> 20 != g->read >> 20)
		g->progress(g->progress_ctx, g->read);
}

struct report_gather *report_gather_new(struct report_trace_source *src)
{
	struct report_gather *g = calloc(1, sizeof *g);
	if (!g)
		abort();
	g->src = src;
	g->per_level = src->per_level ? src->per_level : 16;
	return g;
}

static size_t feed_for(struct report_gather *g, const struct report_trace_source *src, uint64_t lo, uint64_t hi,
		       uint32_t range)
{
	for (size_t i = 0; i < g->nf; i++)
		if (g->src->pt ? g->f[i].lo == lo && g->f[i].hi == hi : g->f[i].range == range)
			return i;
	struct feed *f = realloc(g->f, (g->nf + 1) * sizeof *f);
	if (!f)
		abort();
	g->f = f;
	f = &g->f[g->nf];
	*f = (struct feed){ .range = range, .lo = lo, .hi = hi, .seen = ~0ULL, .stepped = src->stepped,
			    .window_records = src->window_records,
			    .per_level = src->per_level ? src->per_level : g->per_level };
	f->threads = calloc(MAX_THREADS, sizeof *f->threads);
	if (!f->threads)
		abort();
	if (g->src->pt) {
		f->cut = (struct window_cut){ .w = g->src->window_records, .k = g->per_level };
		f->cut.t = calloc(MAX_THREADS, sizeof *f->cut.t);
		if (!f->cut.t)
			abort();
	}
	return g->nf++;
}

static struct gather_stream *new_stream(struct report_gather *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		struct gather_stream *s = realloc(g->s, cap * sizeof *s);
		if (!s)
			abort();
		g->s = s;
		g->cap = cap;
	}
	struct gather_stream *s = &g->s[g->n++];
	memset(s, 0, sizeof *s);
	s->cur = -1;
	return s;
}

size_t report_gather_add(struct report_gather *g, const struct report_trace_source *src, uint64_t lo, uint64_t hi,
			 uint32_t range, int64_t thread, size_t budget, struct simrun_collect *tc,
			 struct report_windows *out)
{
	struct gather_stream *s = new_stream(g);
	s->lo = lo;
	s->hi = hi;
	s->range = range;
	s->thread = thread;
	s->budget = budget;
	s->tc = tc;
	s->out = out;
	memset(out, 0, sizeof *out);
	s->feed = feed_for(g, src, lo, hi, range);
	out->window_records = g->f[s->feed].window_records;
	out->thread = thread;
	s->count_me = true;
	return g->n - 1;
}

static void reset_feeds(struct report_gather *g)
{
	for (size_t i = 0; i < g->nf; i++) {
		struct feed *f = &g->f[i];
		memset(f->threads, 0, MAX_THREADS * sizeof *f->threads);
		f->nthreads = 0;
		if (f->cut.t) {
			memset(f->cut.t, 0, MAX_THREADS * sizeof *f->cut.t);
			f->cut.nt = 0;
		}
		f->seen = ~0ULL;
	}
}

static struct thread_pos *thread_of(struct feed *f, uint32_t thread)
{
	for (size_t i = 0; i < f->nthreads; i++)
		if (f->threads[i].thread == thread)
			return &f->threads[i];
	if (f->nthreads == MAX_THREADS)
		return NULL;
	struct thread_pos *t = &f->threads[f->nthreads++];
	*t = (struct thread_pos){ .thread = thread };
	return t;
}

/* the window of V's thread that V belongs to, after its mark if it has one */
static struct thread_pos *advance(struct feed *f, const struct stream_insn *v)
{
	struct thread_pos *t = thread_of(f, v->thread);
	if (t && (v->flags & STREAM_WINDOW) && v->window && STREAM_WINDOW_RANGE(v->window) == f->range) {
		t->index = STREAM_WINDOW_INDEX(v->window);
		t->seen_mark = true;
	}
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* the segments of the address space and the active streams holding each */
static void build_segments(struct report_gather *g)
{
	size_t nb = 0;
	uint64_t *b = malloc((2 * g->n + 1) * sizeof *b);
	if (!b)
		abort();
	for (size_t i = 0; i < g->n; i++) {
		struct gather_stream *s = &g->s[i];
		if ((g->counting ? !s->count_me : !s->collecting) || s->hi <= s->lo)
			continue;
		b[nb++] = s->lo;
		b[nb++] = s->hi;
	}
	qsort(b, nb, sizeof *b, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < nb; i++)
		if (!k || b[k - 1] != b[i])
			b[k++] = b[i];
	g->nseg = k;
	g->seg = calloc(k + 1, sizeof *g->seg);
	if (!g->seg)
		abort();
	for (size_t i = 0; i < k; i++) {
		struct segment *sg = &g->seg[i];
		sg->lo = b[i];
		for (size_t j = 0; j < g->n; j++) {
			struct gather_stream *s = &g->s[j];
			if ((g->counting ? !s->count_me : !s->collecting) || !(s->lo <= b[i] && b[i] < s->hi))
				continue;
			size_t *v = realloc(sg->streams, (sg->n + 1) * sizeof *v);
			if (!v)
				abort();
			sg->streams = v;
			sg->streams[sg->n++] = j;
		}
	}
	free(b);
	g->last = 0;
}

static void free_segments(struct report_gather *g)
{
	for (size_t i = 0; i < g->nseg; i++)
		free(g->seg[i].streams);
	free(g->seg);
	g->seg = NULL;
	g->nseg = 0;
}

/* the segment holding IP, NULL when none */
static const struct segment *segment_of(struct report_gather *g, uint64_t ip)
{
	if (!g->nseg || ip < g->seg[0].lo)
		return NULL;
	size_t i = g->last;
	if (!(i < g->nseg && g->seg[i].lo <= ip && (i + 1 == g->nseg || ip < g->seg[i + 1].lo))) {
		size_t lo = 0, hi = g->nseg;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (g->seg[mid].lo <= ip)
				lo = mid;
			else
				hi = mid;
		}
		i = lo;
		g->last = i;
	}
	return g->seg[i].n ? &g->seg[i] : NULL;
}

static double window_weight(const struct feed *f, uint32_t index)
{
	unsigned level = index / f->per_level;
	return (double)f->window_records * ldexp(1.0, (int)(level > 60 ? 60 : level));
}

static double window_position(const struct feed *f, uint32_t index)
{
	return window_start(f->window_records, f->per_level, index);
}

static void count_one(struct report_gather *g, struct gather_stream *s, const struct thread_pos *t)
{
	const struct feed *f = &g->f[s->feed];
	/* windows of one thread come in order: the last entry of the
	 * thread, if it is this window, is found from the end */
	struct report_window *w = NULL;
	for (size_t k = s->n; k-- > 0 && k + 64 >= s->n;)
		if (s->w[k].thread == t->thread && s->w[k].index == t->index) {
			w = &s->w[k];
			break;
		}
	if (!w) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 256;
			struct report_window *nw = realloc(s->w, cap * sizeof *nw);
			if (!nw) {
				g->oom = true;
				return;
			}
			s->w = nw;
			s->cap = cap;
		}
		w = &s->w[s->n++];
		*w = (struct report_window){ .thread = t->thread, .index = t->index,
					     .weight = window_weight(f, t->index),
					     .position = window_position(f, t->index) };
	}
	w->records++;
}

static int cmp_key(const void *a, const void *b)
{
	const struct report_window *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void collect_one(struct report_gather *g, struct gather_stream *s, const struct thread_pos *t,
			const struct stream_insn *v)
{
	/* a window's records come one after the other: looked up once */
	if (!s->have_last || s->last_thread != t->thread || s->last_index != t->index) {
		struct report_window key = { .thread = t->thread, .index = t->index };
		const struct report_window *p = bsearch(&key, s->picked, s->npicked, sizeof key, cmp_key);
		s->last_thread = t->thread;
		s->last_index = t->index;
		s->last_pick = p ? (long)(p - s->picked) : -1;
		s->have_last = true;
	}
	if (s->last_pick < 0)
		return;
	long at = s->last_pick;
	const struct report_window *p = &s->picked[at];
	if (at != s->cur || !s->nseg) {
		/* a new segment of TC: this window (again, after another
		 * thread's records, it goes on as a segment of its own) */
		if (s->nseg == s->capseg) {
			size_t cap = s->capseg ? 2 * s->capseg : 64;
			struct report_window *nw = realloc(s->seg, cap * sizeof *nw);
			if (!nw) {
				g->oom = true;
				return;
			}
			s->seg = nw;
			s->capseg = cap;
		}
		s->seg[s->nseg] = *p;
		s->seg[s->nseg].off = s->tc->n;
		s->seg[s->nseg].n = 0;
		s->nseg++;
		s->cur = at;
	}
	size_t before = s->tc->n;
	simrun_collect_sink(s->tc, v, 1);
	s->seg[s->nseg - 1].n += s->tc->n - before;
}

/* V, as FEED's windows have it (T its thread's place), into stream S */
static void file_record(struct report_gather *g, struct gather_stream *s, const struct thread_pos *t,
			const struct stream_insn *v)
{
	if (s->thread >= 0 && v->thread != (uint32_t)s->thread)
		return;
	if (g->counting)
		count_one(g, s, t);
	else
		collect_one(g, s, t, v);
}

/* the QEMU tracer's stream: every record to the streams holding it */
static int qemu_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct report_gather *g = ctx;
	read_some(g, n);
	for (size_t i = 0; i < n && !g->oom; i++) {
		/* a window's mark moves its thread in every stream of its range */
		if ((v[i].flags & STREAM_WINDOW) && v[i].window)
			for (size_t k = 0; k < g->nf; k++)
				if (g->f[k].range == STREAM_WINDOW_RANGE(v[i].window))
					advance(&g->f[k], &v[i]);
		const struct segment *sg = segment_of(g, v[i].ip);
		if (!sg)
			continue;
		/* the stepper's run lays the objects out anew: its records go
		 * to its streams only */
		bool stepped = v[i].thread >> 16 == STREAM_STEP_PROC;
		for (size_t k = 0; k < sg->n; k++) {
			struct gather_stream *s = &g->s[sg->streams[k]];
			if (g->f[s->feed].stepped != stepped)
				continue;
			struct thread_pos *t = thread_of(&g->f[s->feed], v[i].thread);
			if (t)
				file_record(g, s, t, &v[i]);
		}
	}
	return g->oom ? -1 : 0;
}

/* Intel PT's records of the regions: each cut into its region's windows,
 * then to the streams holding it */
static int pt_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct report_gather *g = ctx;
	read_some(g, n);
	for (size_t i = 0; i < n && !g->oom; i++) {
		unsigned long long rec = g->record++;
		const struct segment *sg = segment_of(g, v[i].ip);
		if (!sg)
			continue;
		for (size_t k = 0; k < sg->n; k++) {
			struct gather_stream *s = &g->s[sg->streams[k]];
			struct feed *f = &g->f[s->feed];
			if (f->seen != rec) {
				/* each cut sees each of its records once */
				f->seen = rec;
				f->kept = cut_one(&f->cut, &v[i], &f->tagged);
				if (f->kept && !advance(f, &f->tagged))
					f->kept = false;
			}
			if (f->kept)
				file_record(g, s, thread_of(f, v[i].thread), &f->tagged);
		}
	}
	return g->oom ? -1 : 0;
}

/* one reading of the trace through the streams that take part */
static int read_trace(struct report_gather *g, uint64_t *damaged, char *err, size_t errlen)
{
	reset_feeds(g);
	build_segments(g);
	g->record = 0;
	g->read = 0;
	int rc;
	if (!g->src->pt) {
		rc = gusdata_trace_read(g->src->d, qemu_sink, g, damaged, err, errlen);
	} else {
		*damaged = 0;
		/* the regions' ranges, runtime addresses */
		struct stream_range *run = calloc(g->n + 1, sizeof *run);
		size_t nrun = 0;
		if (!run)
			abort();
		for (size_t i = 0; i < g->n; i++) {
			struct gather_stream *s = &g->s[i];
			if (g->counting ? !s->count_me : !s->collecting)
				continue;
			run[nrun++] = (struct stream_range){ s->lo, s->hi };
		}
		struct ipt_decode_opts io = { .ranges = run, .nranges = nrun, .sink = pt_sink, .ctx = g };
		struct ipt_stats st;
		struct ipt_recording_stats rs;
		memset(&st, 0, sizeof st);
		rc = nrun ? ipt_decode_recording(g->src->d, &io, &st, &rs, err, errlen) : 0;
		if (rc < 0) {
			char why[512];
			snprintf(why, sizeof why, "%s", err);
			snprintf(err, errlen, "decoding Intel PT: %s", why);
		}
		g->src->pt_gaps = st.gaps;
		free(run);
	}
	free_segments(g);
	if (g->oom) {
		snprintf(err, errlen, "out of memory reading the windows of the trace");
		rc = -1;
	}
	return rc < 0 ? -1 : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Stratified by thread: each thread gets picks in proportion to what its
 * windows stand for, but at least two (or all it has), so that a thread
 * whose records are few but slow is not left out; within a thread,
 * systematic sampling on the cumulative records, a window that stands
 * for more being likelier. A pick stands for its thread's records over
 * its picks. */
static void pick_windows(struct report_gather *g, struct gather_stream *s)
{
	struct report_windows *out = s->out;
	uint64_t window_records = g->f[s->feed].window_records;
	out->total = s->n;
	/* the threads that ran the region, in their order (process, then
	 * creation), for matching the sample run's threads */
	out->nthread_ids = 0;
	for (size_t i = 0; i < s->n; i++) {
		bool seen = false;
		for (size_t k = 0; k < out->nthread_ids && !seen; k++)
			seen = out->thread_ids[k] == s->w[i].thread;
		if (!seen && out->nthread_ids < REPORT_MAX_TRACE_THREADS)
			out->thread_ids[out->nthread_ids++] = s->w[i].thread;
	}
	qsort(out->thread_ids, out->nthread_ids, sizeof *out->thread_ids, cmp_u32);
	if (!s->n)
		return;
	/* what a window stands for: its records of the region, scaled by its
	 * stride */
	double sum = 0;
	uint64_t records = 0;
	for (size_t i = 0; i < s->n; i++) {
		sum += s->w[i].weight / (double)window_records * (double)s->w[i].records;
		records += s->w[i].records;
	}
	/* as many windows as the budget holds on average, at most
	 * REPORT_MAX_WINDOWS */
	double avg = (double)records / (double)s->n;
	size_t want = (size_t)((double)s->budget / (avg > 1 ? avg : 1));
	out->budget_bound = want < REPORT_MAX_WINDOWS && want < s->n;
	if (want > REPORT_MAX_WINDOWS)
		want = REPORT_MAX_WINDOWS;
	if (want < 1)
		want = 1;
	/* the stepper's windows are few: each is picked, as often as it
	 * stands for (a small one is not left out for a big one's hits) */
	bool all = g->f[s->feed].stepped;
	if (want > s->n && !all)
		want = s->n;
	struct report_window *picked = calloc(want + 2 * out->nthread_ids + 1, sizeof *picked);
	if (!picked)
		abort();
	size_t np = 0;
	for (size_t t = 0; t < out->nthread_ids; t++) {
		uint32_t tid = out->thread_ids[t];
		double tsum = 0;
		size_t tn = 0;
		for (size_t i = 0; i < s->n; i++)
			if (s->w[i].thread == tid) {
				tsum += s->w[i].weight / (double)window_records * (double)s->w[i].records;
				tn++;
			}
		size_t twant = (size_t)((double)want * tsum / sum + 0.5);
		if (twant < 2)
			twant = 2;
		if (twant > tn && !all)
			twant = tn;
		if (!twant || !(tsum > 0))
			continue;
		double step = tsum / (double)twant, next = step / 2, cum = 0;
		size_t got = 0;
		for (size_t i = 0; i < s->n && got < twant; i++) {
			if (s->w[i].thread != tid)
				continue;
			cum += s->w[i].weight / (double)window_records * (double)s->w[i].records;
			unsigned hits = 0;
			while (next < cum && got + hits < twant) {
				hits++;
				next += step;
			}
			/* a window that stands for more than a step is hit more
			 * than once: it counts as often in the whole */
			if (hits) {
				picked[np] = s->w[i];
				picked[np].hits = hits;
				picked[np++].stands_for = step * hits;
				got += hits;
			}
		}
	}
	qsort(picked, np, sizeof *picked, cmp_key);
	s->picked = picked;
	s->npicked = np;
	s->picked_records = 0;
	for (size_t i = 0; i < np; i++)
		s->picked_records += picked[i].records;
}

int report_gather_count(struct report_gather *g, uint64_t *damaged, char *err, size_t errlen)
{
	g->counting = true;
	int rc = read_trace(g, damaged, err, errlen);
	g->counting = false;
	for (size_t i = 0; i < g->n; i++)
		if (g->s[i].count_me) {
			g->s[i].count_me = false;
			if (!rc)
				pick_windows(g, &g->s[i]);
		}
	return rc;
}

size_t report_gather_add_thread(struct report_gather *g, size_t parent, uint32_t thread, size_t budget,
				struct simrun_collect *tc, struct report_windows *out)
{
	struct gather_stream *p = &g->s[parent];
	const struct feed *pf = &g->f[p->feed];
	struct report_trace_source src = { .d = g->src->d, .pt = g->src->pt, .stepped = pf->stepped,
					   .window_records = pf->window_records, .per_level = pf->per_level };
	size_t i = report_gather_add(g, &src, p->lo, p->hi, p->range, thread, budget, tc, out);
	struct gather_stream *s = &g->s[i];
	p = &g->s[parent];
	/* its windows are the parent's of that thread: counted alike */
	for (size_t k = 0; k < p->n; k++) {
		if (p->w[k].thread != thread)
			continue;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 256;
			s->w = realloc(s->w, s->cap * sizeof *s->w);
			if (!s->w)
				abort();
		}
		s->w[s->n++] = p->w[k];
	}
	s->count_me = false;
	pick_windows(g, s);
	return i;
}

uint64_t report_gather_records(const struct report_gather *g, size_t i)
{
	uint64_t n = g->s[i].picked_records;
	return g->s[i].budget && n > g->s[i].budget ? g->s[i].budget : n;
}

/* Segments of one window split by other threads' records are one window
 * again: merged into the first, whose records then are not contiguous in
 * TC; a window is simulated alone only from its first segment, which
 * holds most of it. */
static size_t merge_segments(struct report_window *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < k; j++)
			if (v[j].thread == v[i].thread && v[j].index == v[i].index)
				break;
		if (j < k) {
			if (v[i].n > v[j].n) {
				v[j].off = v[i].off;
				v[j].n = v[i].n;
			}
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

/* Room for N records, in huge pages where the kernel gives them on
 * request (transparent huge pages "madvise"): the streams of a report
 * are hundreds of megabytes, and on a virtual machine the faults of
 * their 4 KiB pages took half a second of pigz's report; NULL when out of
 * memory. free() frees it. */
static struct sim_rec *big_records(size_t n)
{
	const size_t huge = 2u << 20;
	size_t bytes = n * sizeof(struct sim_rec);
	void *p = NULL;
	if (bytes < huge)
		return malloc(bytes);
	if (posix_memalign(&p, huge, bytes))
		return NULL;
	/* its whole huge pages (the tail is the allocation's own) */
	madvise(p, bytes - bytes % huge, MADV_HUGEPAGE);
	return p;
}

int report_gather_collect(struct report_gather *g, const size_t *which, size_t n, uint64_t *damaged, char *err,
			  size_t errlen)
{
	bool any = false;
	for (size_t i = 0; i < g->n; i++)
		g->s[i].collecting = false;
	for (size_t k = 0; k < n; k++) {
		struct gather_stream *s = &g->s[which[k]];
		if (s->collected || !s->npicked)
			continue;
		s->collecting = any = true;
		s->tc->max = s->budget;
		s->cur = -1;
		s->have_last = false;
		/* its records' room at once: no copy as it grows */
		size_t want = (size_t)report_gather_records(g, which[k]);
		if (want > s->tc->cap && !s->tc->recs && (s->tc->recs = big_records(want)))
			s->tc->cap = want;
	}
	int rc = any ? read_trace(g, damaged, err, errlen) : 0;
	for (size_t k = 0; k < n; k++) {
		struct gather_stream *s = &g->s[which[k]];
		if (!s->collecting)
			continue;
		s->collecting = false;
		s->collected = true;
		if (rc)
			continue;
		s->out->runs = calloc(s->nseg + 1, sizeof *s->out->runs);
		if (!s->out->runs)
			abort();
		for (size_t i = 0; i < s->nseg; i++)
			s->out->runs[i] = (struct report_run){ .off = s->seg[i].off, .n = s->seg[i].n,
							      .thread = s->seg[i].thread, .index = s->seg[i].index };
		s->out->nruns = s->nseg;
		s->out->v = s->seg;
		s->out->n = merge_segments(s->seg, s->nseg);
		s->out->threads = s->out->nthread_ids;
		s->seg = NULL;
		s->nseg = s->capseg = 0;
	}
	return rc;
}

void report_gather_free(struct report_gather *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->s[i].w);
		free(g->s[i].picked);
		free(g->s[i].seg);
	}
	for (size_t i = 0; i < g->nf; i++) {
		free(g->f[i].threads);
		free(g->f[i].cut.t);
	}
	free(g->s);
	free(g->f);
	free(g);
}

int report_gather_windows(struct report_trace_source *src, uint64_t lo, uint64_t hi, uint32_t range, int64_t thread,
			  size_t budget, struct simrun_collect *tc, struct report_windows *out, uint64_t *damaged,
			  char *err, size_t errlen)
{
	struct report_gather *g = report_gather_new(src);
	size_t i = report_gather_add(g, src, lo, hi, range, thread, budget, tc, out);
	int rc = report_gather_count(g, damaged, err, errlen);
	if (!rc)
		rc = report_gather_collect(g, &i, 1, damaged, err, errlen);
	report_gather_free(g);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_position(const void *a, const void *b)
{
	const struct report_window *x = a, *y = b;
	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static double window_time(const struct report_windows *w, const struct report_window *x)
{
	if (!(x->insns > 0) || !w->window_records)
		return 0;
	return x->weight / (double)w->window_records * (double)x->records * (x->cycles / x->insns);
}

static int cmp_off(const void *a, const void *b, void *arg)
{
	const struct report_window *v = arg;
	size_t x = v[*(const size_t *)a].off, y = v[*(const size_t *)b].off;
	return x < y ? -1 : x > y;
}

void report_windows_simulate(const struct sim_machine *m, const struct simrun_collect *tc, uint64_t head,
			     const struct sim_tape *tape, struct report_windows *w)
{
	/* cycles per iteration where every window runs the head, else per
	 * instruction */
	bool per_iteration = head != 0;
	for (size_t i = 0; i < w->n; i++) {
		w->v[i].cycles_per_unit = NAN;
		w->v[i].cycles = w->v[i].insns = w->v[i].fused = w->v[i].units = 0;
	}
	/* One simulation of the collected stream, the region's sensitivities'
	 * too, each window timed in it from the last retirement before it to
	 * its own last: the caches, predictor and window as the stream before
	 * left them (a window simulated alone after one other starts with
	 * caches nearly empty, and a loop over more data than one window
	 * touches then misses everywhere: 6x the time of the concatenated
	 * stream on gzip's longest_match), and the windows' cycles add up to
	 * the stream's. The predictor starts trained, and the caches hold
	 * the lines the stream comes back to, as for the stream
	 * (sim_session_warm; with a replay, from the tape). */
	size_t *ord = malloc((w->n ? w->n : 1) * sizeof *ord);
	if (!ord)
		abort();
	for (size_t i = 0; i < w->n; i++)
		ord[i] = i;
	qsort_r(ord, w->n, sizeof *ord, cmp_off, w->v);
	struct sim_config cfg;
	for (unsigned r = 0; r < SIM_MAX_RES; r++)
		cfg.w[r] = 1;
	char err[256];
	struct sim_session *s = w->n ? sim_session_new(m, tc->code, &cfg, 1, 1, err, sizeof err) : NULL;
	/* the prepass of the same stream, from the analysis of it */
	if (s && sim_tape_holds(tape, tc->recs, tc->n))
		sim_session_replay(s, tape);
	if (s) {
		sim_session_warm(s, tc->recs, tc->n);
		struct sim_stats before, after;
		sim_session_peek(s, &before);
		size_t at = 0, timed = 0;
		for (size_t k = 0; k < w->n; k++) {
			struct report_window *x = &w->v[ord[k]];
			if (x->off + x->n > tc->n || x->off < at)
				continue;
			if (x->off > at) {
				sim_session_feed(s, tc->recs + at, x->off - at);
				sim_session_peek(s, &before);
			}
			sim_session_feed(s, tc->recs + x->off, x->n);
			sim_session_peek(s, &after);
			at = x->off + x->n;
			/* the first starts cold (caches): it is left out of the
			 * spread and the phases when others are there */
			x->cold = timed++ == 0 && w->n > 1;
			double units = 0;
			for (size_t r = x->off; head && r < x->off + x->n; r++)
				units += sim_code_insn(tc->code, tc->recs[r].insn)->addr == head;
			x->units = units;
			if (x->n >= 64) {
				if (units < 2)
					per_iteration = false;
				x->cycles = after.cycles - before.cycles;
				x->insns = (double)(after.insns - before.insns);
				x->fused = (double)(after.fused - before.fused);
			}
			before = after;
		}
		sim_session_free(s);
	}
	free(ord);
	w->per_iteration = per_iteration;
	double *v = malloc((w->n ? w->n : 1) * sizeof *v);
	if (!v)
		abort();
	size_t k = 0;
	for (size_t i = 0; i < w->n; i++) {
		struct report_window *x = &w->v[i];
		double u = per_iteration ? x->units : x->insns;
		x->cycles_per_unit = x->cycles > 0 && u > 0 && !x->cold ? x->cycles / u : NAN;
		if (!isnan(x->cycles_per_unit))
			v[k++] = x->cycles_per_unit;
	}
	w->simulated = k;
	/* the whole: each window as often as the sample hit it (a window
	 * standing for more than a step of the sample is hit more than once),
	 * which weighs the run's parts by their records, so by their time */
	double cycles = 0, units = 0, insns = 0, fused = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct report_window *x = &w->v[i];
		if (isnan(x->cycles_per_unit))
			continue;
		/* per record simulated, times the records it stands for */
		double scale = x->n ? x->stands_for / (double)x->n : 0;
		cycles += scale * x->cycles;
		units += scale * (per_iteration ? x->units : x->insns);
		insns += scale * x->insns;
		fused += scale * x->fused;
	}
	w->whole = units > 0 ? cycles / units : NAN;
	/* its standard error as a ratio estimator over the windows, which
	 * are a sample stratified by thread: with e = y - R x for each window
	 * (y and x its cycles and units times what it stands for), the
	 * variance of sum e is the sum over threads of n / (n - 1) times the
	 * squares of e about the thread's mean (a thread with one window adds
	 * its e squared) */
	w->whole_error = NAN;
	if (k > 1 && units > 0 && isfinite(w->whole) && w->whole > 0) {
		double var = 0;
		for (size_t i = 0; i < w->n; i++) {
			uint32_t th = w->v[i].thread;
			bool first = true;
			for (size_t q = 0; q < i && first; q++)
				first = w->v[q].thread != th || isnan(w->v[q].cycles_per_unit);
			if (!first || isnan(w->v[i].cycles_per_unit))
				continue;
			double sum = 0, sq = 0;
			size_t nh = 0;
			for (size_t q = i; q < w->n; q++) {
				const struct report_window *x = &w->v[q];
				if (x->thread != th || isnan(x->cycles_per_unit))
					continue;
				double scale = x->n ? x->stands_for / (double)x->n : 0;
				double e = scale * x->cycles - w->whole * scale * (per_iteration ? x->units : x->insns);
				sum += e;
				sq += e * e;
				nh++;
			}
			var += nh > 1 ? (double)nh / (double)(nh - 1) * (sq - sum * sum / (double)nh) : sq;
		}
		w->whole_error = sqrt(var > 0 ? var : 0) / units / w->whole;
	}
	w->run = (struct report_run_estimate){ .whole = w->whole, .per_iteration = per_iteration, .cycles = cycles,
					       .insns = insns, .fused = fused, .units = per_iteration ? units : 0 };
	if (k) {
		qsort(v, k, sizeof *v, cmp_double);
		w->min = v[0];
		w->median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		w->max = v[k - 1];
	}
	free(v);
	/* phases: windows in run order, a new phase where one differs from
	 * its phase's first by more than REPORT_PHASE_SPREAD */
	qsort(w->v, w->n, sizeof *w->v, cmp_position);
	w->nphases = 0;
	w->phases_scattered = false;
	/* phases are a thread's: several threads are shown apart instead */
	bool one_thread = true;
	for (size_t i = 1; i < w->n; i++)
		one_thread &= w->v[i].thread == w->v[0].thread;
	if (!k || !one_thread || w->max <= w->min * (1 + REPORT_PHASE_SPREAD))
		return;
	/* the time a window stands for: its stride's share of the run times
	 * its records of the region times the cycles each took */
	double total = 0;
	for (size_t i = 0; i < w->n; i++)
		if (!isnan(w->v[i].cycles_per_unit))
			total += window_time(w, &w->v[i]);
	for (size_t i = 0; i < w->n && total > 0; i++) {
		const struct report_window *x = &w->v[i];
		if (isnan(x->cycles_per_unit))
			continue;
		struct report_phase *p = w->nphases ? &w->phases[w->nphases - 1] : NULL;
		if (!p || fabs(x->cycles_per_unit - p->first) > REPORT_PHASE_SPREAD * p->first) {
			if (w->nphases == REPORT_MAX_PHASES) {
				/* the first few stretches are not the run's phases */
				w->phases_scattered = true;
				w->nphases = 0;
				break;
			}
			p = &w->phases[w->nphases++];
			memset(p, 0, sizeof *p);
			p->first = x->cycles_per_unit;
			p->from = x->position;
		}
		p->to = x->position + x->weight;
		p->windows++;
		p->cycles += x->cycles;
		p->units += w->per_iteration ? x->units : x->insns;
		p->share += window_time(w, x) / total;
	}
	for (size_t i = 0; i < w->nphases; i++)
		w->phases[i].cycles_per_unit = w->phases[i].units > 0 ? w->phases[i].cycles / w->phases[i].units : NAN;
}

void report_run_estimate_apply(const struct report_run_estimate *e, struct sim_analysis *an)
{
	if (!isfinite(e->whole) || e->per_iteration != (an->units > 0) || !(e->insns > 0) || !(e->cycles > 0))
		return;
	/* the stream's measured instructions at the run's rates */
	double k = an->measured_insns / e->insns;
	an->cycles_per_unit = e->whole;
	an->stream_cycles_per_unit = e->whole;
	an->ipc = e->insns / e->cycles;
	an->fused_per_cycle = e->fused / e->cycles;
	an->measured_cycles = k * e->cycles;
	an->measured_fused = k * e->fused;
	if (e->per_iteration)
		an->units = k * e->units;
	an->run_weighted = true;
}

void report_windows_free(struct report_windows *w)
{
	free(w->v);
	free(w->runs);
	memset(w, 0, sizeof *w);
}
