/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A region's stream as a sample of its whole run (report_internal.h).
 * The QEMU tracer stores windows of each thread's run of each traced
 * range, K back to back and then K at every doubling of the stride
 * (collect.h), so window J stands for W * 2^(J/K) of the thread's records
 * of the range. A region
 * is simulated on windows picked with probability in proportion to the
 * time they stand for (systematic sampling by weight), so that the
 * concatenated stream is the time-weighted whole; each picked window is
 * also simulated alone, which shows how much the run's phases differ. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct window_scan {
	struct report_trace_source *src;
	uint64_t lo, hi;
	uint32_t range;		/* the traced range holding the region */
	int64_t thread;		/* only this thread's records; -1: all */
	uint64_t window_records;
	unsigned per_level;
	struct thread_pos *threads;
	size_t nthreads;
	/* pass 1: the windows holding records of the region */
	struct report_window *w;
	size_t n, cap;
	bool oom;
	/* pass 2: the picked windows' records into TC, in stream order */
	struct simrun_collect *tc;
	const struct report_window *picked;	/* sorted by (thread, index) */
	size_t npicked;
	long cur;		/* index into picked of the last record kept, -1 none */
	struct report_window *out;	/* segments of TC, in stream order */
	size_t nout, capout;
};

static struct thread_pos *thread_of(struct window_scan *s, uint32_t thread)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].thread == thread)
			return &s->threads[i];
	if (s->nthreads == MAX_THREADS)
		return NULL;
	struct thread_pos *t = &s->threads[s->nthreads++];
	*t = (struct thread_pos){ .thread = thread };
	return t;
}

/* the window of V's thread that V belongs to, after its mark if it has one */
static struct thread_pos *advance(struct window_scan *s, const struct stream_insn *v)
{
	struct thread_pos *t = thread_of(s, v->thread);
	if (t && (v->flags & STREAM_WINDOW) && v->window && STREAM_WINDOW_RANGE(v->window) == s->range) {
		t->index = STREAM_WINDOW_INDEX(v->window);
		t->seen_mark = true;
	}
	return t;
}

static double window_weight(const struct window_scan *s, uint32_t index)
{
	unsigned level = index / s->per_level;
	return (double)s->window_records * ldexp(1.0, (int)(level > 60 ? 60 : level));
}

/* records from the start of a thread's traced run to window J of W
 * records, K per level: K*W*(2^L - 1) + (J mod K)*W*2^L, L = J / K (the
 * QEMU tracer's schedule, collect.h) */
static double window_start(uint64_t w, unsigned k, uint32_t j)
{
	unsigned level = j / k, i = j % k;
	return (double)k * (double)w * (ldexp(1.0, (int)level) - 1) + i * (double)w * ldexp(1.0, (int)level);
}

static double window_position(const struct window_scan *s, uint32_t index)
{
	return window_start(s->window_records, s->per_level, index);
}

static int count_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct window_scan *s = ctx;
	for (size_t i = 0; i < n; i++) {
		struct thread_pos *t = advance(s, &v[i]);
		if (!t || v[i].ip < s->lo || v[i].ip >= s->hi || (s->thread >= 0 && v[i].thread != (uint32_t)s->thread))
			continue;
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
					s->oom = true;
					return -1;
				}
				s->w = nw;
				s->cap = cap;
			}
			w = &s->w[s->n++];
			*w = (struct report_window){ .thread = t->thread, .index = t->index,
						     .weight = window_weight(s, t->index),
						     .position = window_position(s, t->index) };
		}
		w->records++;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_key(const void *a, const void *b)
{
	const struct report_window *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static const struct report_window *picked_window(const struct window_scan *s, uint32_t thread, uint32_t index)
{
	struct report_window key = { .thread = thread, .index = index };
	return bsearch(&key, s->picked, s->npicked, sizeof key, cmp_key);
}

static int collect_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct window_scan *s = ctx;
	for (size_t i = 0; i < n; i++) {
		struct thread_pos *t = advance(s, &v[i]);
		if (!t || v[i].ip < s->lo || v[i].ip >= s->hi || (s->thread >= 0 && v[i].thread != (uint32_t)s->thread))
			continue;
		const struct report_window *p = picked_window(s, t->thread, t->index);
		if (!p)
			continue;
		long at = (long)(p - s->picked);
		if (at != s->cur || !s->nout) {
			/* a new segment of TC: this window (again, after another
			 * thread's records, it goes on as a segment of its own) */
			if (s->nout == s->capout) {
				size_t cap = s->capout ? 2 * s->capout : 64;
				struct report_window *nw = realloc(s->out, cap * sizeof *nw);
				if (!nw) {
					s->oom = true;
					return -1;
				}
				s->out = nw;
				s->capout = cap;
			}
			s->out[s->nout] = *p;
			s->out[s->nout].off = s->tc->n;
			s->out[s->nout].n = 0;
			s->nout++;
			s->cur = at;
		}
		size_t before = s->tc->n;
		simrun_collect_sink(s->tc, &v[i], 1);
		s->out[s->nout - 1].n += s->tc->n - before;
	}
	return 0;
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

#define CUT_BATCH 1024

struct window_cut {
	stream_sink sink;
	void *ctx;
	uint64_t w;
	unsigned k;
	struct cut_thread *t;
	size_t nt;
	struct stream_insn out[CUT_BATCH];
	size_t n;
	int rc;
};

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

static int cut_flush(struct window_cut *c)
{
	if (c->n && !c->rc)
		c->rc = c->sink(c->ctx, c->out, c->n);
	c->n = 0;
	return c->rc;
}

static int cut_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct window_cut *c = ctx;
	for (size_t i = 0; i < n && !c->rc; i++) {
		struct cut_thread *t = cut_thread_of(c, v[i].thread);
		if (!t)
			continue;
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
				continue;
			}
			t->open = opens = true;
			t->end = pos + c->w;
		}
		struct stream_insn *o = &c->out[c->n++];
		*o = v[i];
		if (opens) {
			o->flags |= STREAM_WINDOW;
			o->window = STREAM_WINDOW_TAG(0, t->index);
		}
		if (t->skipped)
			o->flags |= STREAM_ENTRY;
		t->skipped = false;
		if (c->n == CUT_BATCH)
			cut_flush(c);
	}
	return c->rc;
}

/* the stream of the scan's region, in windows, to SINK */
static int read_windows(struct window_scan *s, stream_sink sink, uint64_t *damaged, char *err, size_t errlen)
{
	if (!s->src->pt)
		return gusdata_trace_read(s->src->d, sink, s, damaged, err, errlen);
	*damaged = 0;
	struct window_cut *c = calloc(1, sizeof *c);
	struct cut_thread *t = calloc(MAX_THREADS, sizeof *t);
	if (!c || !t) {
		free(c);
		free(t);
		snprintf(err, errlen, "out of memory cutting the trace into windows");
		return -1;
	}
	*c = (struct window_cut){ .sink = sink, .ctx = s, .w = s->window_records, .k = s->per_level, .t = t };
	struct stream_range run = { s->lo, s->hi };
	struct ipt_decode_opts io = { .ranges = &run, .nranges = 1, .sink = cut_sink, .ctx = c };
	struct ipt_stats st;
	struct ipt_recording_stats rs;
	memset(&st, 0, sizeof st);
	int rc = ipt_decode_recording(s->src->d, &io, &st, &rs, err, errlen);
	if (rc < 0) {
		char why[512];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "decoding Intel PT: %s", why);
	} else {
		rc = cut_flush(c);
	}
	s->src->pt_gaps = st.gaps;
	free(t);
	free(c);
	return rc;
}

int report_gather_windows(struct report_trace_source *src, uint64_t lo, uint64_t hi, uint32_t range, int64_t thread,
			  size_t budget, struct simrun_collect *tc, struct report_windows *out, uint64_t *damaged,
			  char *err, size_t errlen)
{
	uint64_t window_records = src->window_records;
	memset(out, 0, sizeof *out);
	out->window_records = window_records;
	out->thread = thread;
	struct window_scan s = { .src = src, .lo = lo, .hi = hi, .range = range, .thread = thread,
				 .window_records = window_records, .per_level = src->per_level ? src->per_level : 16,
				 .tc = tc, .cur = -1 };
	s.threads = calloc(MAX_THREADS, sizeof *s.threads);
	if (!s.threads)
		abort();
	int rc = -1;
	if (read_windows(&s, count_sink, damaged, err, errlen) || s.oom)
		goto out;
	out->total = s.n;
	/* the threads that ran the region, in their order (process, then
	 * creation), for matching the sample run's threads */
	for (size_t i = 0; i < s.n; i++) {
		bool seen = false;
		for (size_t k = 0; k < out->nthread_ids && !seen; k++)
			seen = out->thread_ids[k] == s.w[i].thread;
		if (!seen && out->nthread_ids < REPORT_MAX_TRACE_THREADS)
			out->thread_ids[out->nthread_ids++] = s.w[i].thread;
	}
	qsort(out->thread_ids, out->nthread_ids, sizeof *out->thread_ids, cmp_u32);
	if (!s.n) {
		rc = 0;
		goto out;
	}
	/* what a window stands for: its records of the region, scaled by its
	 * stride */
	double sum = 0;
	uint64_t records = 0;
	for (size_t i = 0; i < s.n; i++) {
		sum += s.w[i].weight / (double)window_records * (double)s.w[i].records;
		records += s.w[i].records;
	}
	/* as many windows as the budget holds on average, at most
	 * REPORT_MAX_WINDOWS */
	double avg = (double)records / (double)s.n;
	size_t want = (size_t)((double)budget / (avg > 1 ? avg : 1));
	if (want > REPORT_MAX_WINDOWS)
		want = REPORT_MAX_WINDOWS;
	if (want < 1)
		want = 1;
	if (want > s.n)
		want = s.n;
	/* Stratified by thread: each thread gets picks in proportion to what
	 * its windows stand for, but at least two (or all it has), so that a
	 * thread whose records are few but slow is not left out; within a
	 * thread, systematic sampling on the cumulative records, a window
	 * that stands for more being likelier. A pick stands for its
	 * thread's records over its picks. */
	struct report_window *picked = calloc(want + 2 * out->nthread_ids + 1, sizeof *picked);
	if (!picked)
		abort();
	size_t np = 0;
	for (size_t t = 0; t < out->nthread_ids; t++) {
		uint32_t tid = out->thread_ids[t];
		double tsum = 0;
		size_t tn = 0;
		for (size_t i = 0; i < s.n; i++)
			if (s.w[i].thread == tid) {
				tsum += s.w[i].weight / (double)window_records * (double)s.w[i].records;
				tn++;
			}
		size_t twant = (size_t)((double)want * tsum / sum + 0.5);
		if (twant < 2)
			twant = 2;
		if (twant > tn)
			twant = tn;
		if (!twant || !(tsum > 0))
			continue;
		double step = tsum / (double)twant, next = step / 2, cum = 0;
		size_t got = 0;
		for (size_t i = 0; i < s.n && got < twant; i++) {
			if (s.w[i].thread != tid)
				continue;
			cum += s.w[i].weight / (double)window_records * (double)s.w[i].records;
			unsigned hits = 0;
			while (next < cum && got + hits < twant) {
				hits++;
				next += step;
			}
			/* a window that stands for more than a step is hit more
			 * than once: it counts as often in the whole */
			if (hits) {
				picked[np] = s.w[i];
				picked[np].hits = hits;
				picked[np++].stands_for = step * hits;
				got += hits;
			}
		}
	}
	qsort(picked, np, sizeof *picked, cmp_key);
	s.picked = picked;
	s.npicked = np;
	/* pass 2 reads the stream again: where each thread is starts over */
	memset(s.threads, 0, MAX_THREADS * sizeof *s.threads);
	s.nthreads = 0;
	tc->max = budget;
	if (read_windows(&s, collect_sink, damaged, err, errlen) || s.oom) {
		free(picked);
		goto out;
	}
	free(picked);
	out->v = s.out;
	out->n = merge_segments(s.out, s.nout);
	s.out = NULL;

	out->threads = out->nthread_ids;
	rc = 0;
out:
	if (rc && s.oom)
		snprintf(err, errlen, "out of memory reading the windows of the trace");
	free(s.out);
	free(s.w);
	free(s.threads);
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
			     struct report_windows *w)
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
	 * the stream's. The predictor starts trained, as for the stream. */
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
	memset(w, 0, sizeof *w);
}
