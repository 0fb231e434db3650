/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus record's run 3 (rec_internal.h): the hot ranges whose code QEMU's
 * run 2 cannot stand for, single-stepped in a native run of the program
 * (collect_step_run). A range is stepped when its code needs an
 * instruction QEMU 7.2's CPU lacks (collect_qemu_lacks: AVX-512 and the
 * like), or when run 2 never executed it although run 1 sampled it (code
 * chosen for the CPU at run time, glibc's ifuncs' EVEX variants, takes
 * another variant on QEMU's CPU; or QEMU died first). Its windows open
 * where the stepper's own sampling finds a thread in it (every 1 ms of a
 * thread's CPU time): K windows at the first hits, K at every 2nd, K at
 * every 4th..., as the QEMU tracer's windows double their stride, so that
 * they cover the whole run whatever its length (window J stands for
 * 2^(J/K) hits). K is chosen from run 1's samples of it for about N
 * windows (K * (1 + log2(hits / K)) = N), 2 N at most. Each window holds
 * WINDOW_RECORDS records of one thread, over its entries. Ranges with
 * under 1 % of run 1's samples are left out: not worth a third run of
 * the program. The records land in trace_chunks as the process
 * STREAM_STEP_PROC, its mappings in trace_maps likewise, and meta
 * trace.step.* says which
 * ranges and why (gus-data(5)). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gusdata.h"
#include "merge.h"
#include "rec_internal.h"

/* a stepped range's windows are tagged STEP_TAG_BASE + its place in
 * trace.step.ranges: apart from the QEMU tracer's ranges (below 64) */
#define STEP_TAG_BASE 128

/* a sampling of run 3 every SAMPLE_CPU_S of a thread's CPU time */
#define SAMPLE_CPU_S 0.001

struct step_pick {
	size_t range;		/* into the request's ranges */
	char why[400];
	double cpu;		/* run 1's samples of it, in seconds of CPU */
	unsigned per_level;
	uint64_t max_windows;
};

/* run 1's executable mappings of the stepped objects, with their bias */
struct sample_map {
	int pid;
	uint64_t start, end, bias;
	const char *object;
};

struct time_search {
	const struct rec_step_range *ranges;
	struct step_pick *p;
	size_t np;
	struct sample_map *maps;
	size_t nmaps, capmaps;
	bool period_is_ns;	/* the sampling event counts time */
	double per_sample;	/* else the seconds a sample stands for */
};

static int map_of_sample_run(void *ctx, const struct gusdata_mmap *m)
{
	struct time_search *ts = ctx;
	if (!(m->prot & PROT_EXEC))
		return 0;
	for (size_t i = 0; i < ts->np; i++) {
		const char *object = ts->ranges[ts->p[i].range].object;
		if (strcmp(m->filename, object))
			continue;
		uint64_t bias;
		char err[256];
		if (merge_elf_load_bias(object, m->start, m->pgoff, &bias, err, sizeof err))
			return 0;
		if (ts->nmaps == ts->capmaps) {
			size_t cap = ts->capmaps ? 2 * ts->capmaps : 16;
			struct sample_map *v = realloc(ts->maps, cap * sizeof *v);
			if (!v)
				return -1;
			ts->maps = v;
			ts->capmaps = cap;
		}
		ts->maps[ts->nmaps++] = (struct sample_map){ m->pid, m->start, m->start + m->len, bias, object };
		return 0;
	}
	return 0;
}

static int cpu_of_sample(void *ctx, const struct gusdata_sample *s)
{
	struct time_search *ts = ctx;
	for (size_t m = ts->nmaps; s->user && m-- > 0;) {
		const struct sample_map *e = &ts->maps[m];
		if (e->pid != s->pid || s->ip < e->start || s->ip >= e->end)
			continue;
		uint64_t addr = s->ip - e->bias;
		for (size_t i = 0; i < ts->np; i++) {
			const struct rec_step_range *r = &ts->ranges[ts->p[i].range];
			if (!strcmp(r->object, e->object) && addr >= r->link_start && addr < r->link_end)
				ts->p[i].cpu += ts->period_is_ns && s->period ? (double)s->period / 1e9 : ts->per_sample;
		}
		break;
	}
	return 0;
}

/* Each range's K and window cap: its CPU time in run 1 (CPU_CLOCK: the
 * sampling event counts time, cpu-clock or task-clock, and a sample
 * stands for its period; else for 1/FREQ) over the sampling's period is
 * the hits run 3 may give it */
static void plan_windows(struct gusdata *d, const struct rec_step_range *ranges, struct step_pick *p, size_t np,
			 unsigned windows, bool cpu_clock, uint64_t freq)
{
	struct time_search ts = { .ranges = ranges, .p = p, .np = np, .period_is_ns = cpu_clock,
				  .per_sample = 1.0 / (double)(freq ? freq : 4000) };
	if (!gusdata_foreach_sample_mmap(d, map_of_sample_run, &ts))
		gusdata_foreach_sample(d, cpu_of_sample, &ts);
	free(ts.maps);
	for (size_t i = 0; i < np; i++) {
		/* the K that gives about WINDOWS windows over its expected hits */
		double hits = p[i].cpu / SAMPLE_CPU_S;
		unsigned k = windows;
		while (k > 1 && (double)k * (1 + log2(hits > k ? hits / k : 1)) > windows)
			k--;
		p[i].per_level = k;
		p[i].max_windows = 2 * (uint64_t)windows;
	}
}

struct step_store {
	struct gusdata *d;
	struct gusdata_trace_writer *w;
	const struct rec_step_range *ranges;
	const struct step_pick *p;
	uint64_t stored;
	bool failed;
	char failure[200];
};

static int step_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct step_store *s = ctx;
	if (gusdata_trace_write(s->w, v, n)) {
		if (!s->failed)
			snprintf(s->failure, sizeof s->failure, "%s", gusdata_errmsg(s->d));
		s->failed = true;
		return -1;
	}
	s->stored += n;
	return 0;
}

static void step_placed(void *ctx, size_t region, uint64_t bias, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct step_store *s = ctx;
	(void)bias;
	const struct rec_step_range *r = &s->ranges[s->p[region].range];
	struct gusdata_trace_map m = { .proc = STREAM_STEP_PROC, .object = r->object, .build_id = r->build_id,
				       .start = start, .len = len, .pgoff = pgoff };
	if (gusdata_add_trace_map(s->d, &m) && !s->failed) {
		snprintf(s->failure, sizeof s->failure, "%s", gusdata_errmsg(s->d));
		s->failed = true;
	}
}

/* a meta value made of lines */
static void set_lines(struct gusdata *d, const char *key, char *text)
{
	if (text)
		gusdata_set_meta(d, key, text);
	free(text);
}

int rec_step_traces(struct gusdata *d, const struct rec_step_range *ranges, size_t n,
		    const struct rec_step_request *rq, const struct recording_log *log, struct rec_step_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	if (!rq->windows || !n)
		return 0;
	struct step_pick *p = calloc(n, sizeof *p);
	if (!p)
		abort();
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rec_step_range *r = &ranges[i];
		if (!(r->share >= REC_STEP_MIN_SHARE))
			continue;
		struct merge_code mc;
		char err[512];
		struct step_pick *k = &p[np];
		k->range = i;
		if (!merge_elf_range(r->object, r->link_start, r->link_end, &mc, err, sizeof err)) {
			bool lacks = collect_qemu_lacks(mc.bytes, mc.len, r->link_start, k->why, sizeof k->why);
			merge_code_free(&mc);
			if (lacks) {
				np++;
				continue;
			}
		}
		if (r->reached)
			continue;
		if (rq->qemu_failure && rq->qemu_failure[0])
			snprintf(k->why, sizeof k->why, "QEMU's run never executed it (it ended first: %.300s)",
				 rq->qemu_failure);
		else
			snprintf(k->why, sizeof k->why, "QEMU's run never executed it: code chosen for the CPU at run time "
				 "(glibc's ifuncs, CPUID dispatch) runs another variant on QEMU's CPU");
		np++;
	}
	if (!np) {
		free(p);
		return 0;
	}
	const char *event = gusdata_meta(d, "sample.event");
	bool cpu_clock = event && (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock"));
	uint64_t freq = 0;
	gusdata_meta_u64(d, "sample.freq", &freq);
	plan_windows(d, ranges, p, np, rq->windows, cpu_clock, freq);

	/* what is stepped and why, before the run: a recording cut during
	 * it says so too */
	char *text = NULL, *whys = NULL, *levels = NULL;
	size_t len = 0, wlen = 0, llen = 0;
	FILE *f = open_memstream(&text, &len), *fw = open_memstream(&whys, &wlen), *fl = open_memstream(&levels, &llen);
	struct collect_step_region *regions = calloc(np, sizeof *regions);
	struct collect_step_region_stats *rst = calloc(np, sizeof *rst);
	if (!f || !fw || !fl || !regions || !rst)
		abort();
	size_t planned = 0;
	for (size_t i = 0; i < np; i++) {
		const struct rec_step_range *r = &ranges[p[i].range];
		uint32_t tag = STEP_TAG_BASE + (uint32_t)i;
		fprintf(f, "%u %llx %llx %s\n", tag, (unsigned long long)r->link_start, (unsigned long long)r->link_end,
			r->object);
		fprintf(fw, "%u %s\n", tag, p[i].why);
		fprintf(fl, "%u %u\n", tag, p[i].per_level);
		regions[i] = (struct collect_step_region){ .object = r->object, .link_start = r->link_start,
							   .link_end = r->link_end, .file_start = r->off_start,
							   .per_level = p[i].per_level, .max_windows = p[i].max_windows,
							   .tag_range = tag };
		planned += p[i].max_windows;
	}
	fclose(f);
	fclose(fw);
	fclose(fl);
	set_lines(d, "trace.step.ranges", text);
	set_lines(d, "trace.step.why", whys);
	set_lines(d, "trace.step.windows_per_level", levels);
	gusdata_set_meta_u64(d, "trace.step.window_records", rq->window_records);
	gusdata_set_meta_u64(d, "trace.step.windows", rq->windows);

	recording_progress(log, true, "run 3 of %s, natively: %zu hot range(s) QEMU could not trace single-stepped with "
			   "ptrace, windows of %llu records where a thread is found in them, about %u of each (%zu at most; "
			   "its output is discarded)", rq->argv[0], np, (unsigned long long)rq->window_records, rq->windows,
			   planned);
	struct step_store ss = { .d = d, .ranges = ranges, .p = p };
	int rc = 0;
	char err[COLLECT_ERRLEN];
	if (!(ss.w = gusdata_trace_writer_new(d))) {
		rec_error(log, "writing into %s failed: %s", gusdata_path(d), gusdata_errmsg(d));
		rc = -1;
		goto out;
	}
	struct collect_stdio io = { -1, -1, -1 };
	int null_in = -1;
	io.in = collect_input_replay_fd(rq->input, err, sizeof err);
	if (io.in == -2)
		io.in = null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	io.out = io.err = null_out;
	struct collect_step_opts so = {
		.regions = regions,
		.nregions = np,
		.region_stats = rst,
		.data_addresses = rq->data_addresses,
		.max_insns = (uint64_t)planned * rq->window_records,
		.window = rq->window_records,
		.span_entries = true,
		.sample_cpu_s = SAMPLE_CPU_S,
		.tag_windows = true,
		.proc = STREAM_STEP_PROC,
		.sink = step_sink,
		.ctx = &ss,
		.placed = step_placed,
		.stdio = &io,
	};
	struct collect_step_stats st;
	struct collect_result res;
	enum collect_status cs = collect_step_run(rq->argv, &so, &st, &res, err, sizeof err);
	if (null_in >= 0)
		close(null_in);
	if (null_out >= 0)
		close(null_out);
	int wrc = gusdata_trace_writer_close(ss.w);
	recording_progress_end(log);
	sum->ranges = np;
	sum->records = ss.stored;
	sum->windows = st.windows;
	sum->seconds = st.seconds;
	sum->cpu_seconds = st.cpu_seconds;
	sum->interrupted = res.interrupted;
	/* per range: "TAG WINDOWS HITS RECORDS" */
	char *cov = NULL;
	size_t clen = 0;
	FILE *fc = open_memstream(&cov, &clen);
	for (size_t i = 0; fc && i < np; i++)
		fprintf(fc, "%u %llu %llu %llu\n", STEP_TAG_BASE + (unsigned)i, (unsigned long long)rst[i].windows,
			(unsigned long long)rst[i].hits, (unsigned long long)rst[i].insns);
	if (fc && !fclose(fc))
		set_lines(d, "trace.step.coverage", cov);
	else
		free(cov);
	char stats[400];
	snprintf(stats, sizeof stats, "%llu records in %llu windows, %llu single steps, %llu breakpoint hits, %llu "
		 "sampling stops, %llu thread(s) followed, %llu child process(es) not followed; threads held %.2f s by "
		 "the stepping", (unsigned long long)ss.stored, (unsigned long long)st.windows,
		 (unsigned long long)st.steps, (unsigned long long)st.traps, (unsigned long long)st.samples,
		 (unsigned long long)st.threads, (unsigned long long)st.children, st.held_seconds);
	gusdata_set_meta(d, "trace.step.stats", stats);
	gusdata_set_meta_u64(d, "trace.step.records", ss.stored);
	gusdata_set_meta_u64(d, "trace.step.seconds_x1000", (uint64_t)(st.seconds * 1000 + 0.5));
	gusdata_set_meta_u64(d, "trace.step.cpu_x1000", (uint64_t)(st.cpu_seconds * 1000 + 0.5));
	if (res.interrupted)
		gusdata_set_meta(d, "trace.step.interrupted", "yes");
	if (wrc || ss.failed) {
		rec_error(log, "writing the stepped stream into %s failed: %s", gusdata_path(d),
			  ss.failed ? ss.failure : gusdata_errmsg(d));
		gusdata_set_meta(d, "trace.step.failed", ss.failed ? ss.failure : gusdata_errmsg(d));
		rc = -1;
		goto out;
	}
	if (cs != COLLECT_OK) {
		rec_warn(log, "the native stepper: %s", err);
		gusdata_set_meta(d, "trace.step.failed", err);
		goto out;
	}
	gusdata_set_meta_u64(d, "trace.step.exit_status", (uint64_t)collect_exit_code(res.wait_status));
	for (size_t i = 0; i < np; i++)
		if (!rst[i].windows && p[i].cpu >= 10 * SAMPLE_CPU_S)
			rec_warn(log, "%s: run 3's sampling found a thread in it %llu time(s), no window opened: no "
				 "stepped stream", ranges[p[i].range].name, (unsigned long long)rst[i].hits);
out:
	free(p);
	free(regions);
	free(rst);
	return rc;
}
