/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The runs of gus record and what each stores (recording.h): run 1 counts
 * and samples, the hot regions are ranked from the samples, run 2 traces
 * them; everything is committed as it comes, so that a recording cut by a
 * signal or a full disk still says what it holds. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gusdata.h"
#include "merge.h"
#include "rec_internal.h"
#include "sim.h"
#include "spire.h"
#include "topdown.h"

#define MAX_TRACE_RANGES 64
/* run 3's windows: single steps cost tens of microseconds each */
#define STEP_WINDOW_RECORDS 500

static int resolve_symbol(void *ctx, const char *file, const char *symbol, uint64_t *start, uint64_t *size,
			  char *err, size_t errlen)
{
	(void)ctx;
	return merge_elf_symbol(file, symbol, start, size, err, errlen);
}

/* what decoding and the report need to know about the machine and run */
static void record_meta(struct gusdata *d, char **argv, const char *exe)
{
	char buf[8192];
	size_t k = 0;
	for (char **a = argv; *a && k < sizeof buf - 1; a++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", a == argv ? "" : " ", *a);
	gusdata_set_meta(d, "command", buf);
	gusdata_set_meta(d, "exe", exe);
	if (getcwd(buf, sizeof buf))
		gusdata_set_meta(d, "cwd", buf);
	struct utsname u;
	if (uname(&u) == 0) {
		gusdata_set_meta(d, "hostname", u.nodename);
		snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
		gusdata_set_meta(d, "kernel", buf);
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			char *v = colon + 1 + (colon[1] == ' ');
			v[strcspn(v, "\n")] = 0;
			if (!strncmp(line, "model name", 10))
				gusdata_set_meta(d, "cpu.name", v);
			else if (!strncmp(line, "cpu family", 10))
				gusdata_set_meta(d, "cpu.family", v);
			else if (!strncmp(line, "model\t", 6))
				gusdata_set_meta(d, "cpu.model", v);
			else if (!strncmp(line, "stepping", 8))
				gusdata_set_meta(d, "cpu.stepping", v);
			else if (!strncmp(line, "processor", 9) && strcmp(v, "0"))
				break;
		}
		fclose(f);
	}
	/* what gus takes the CPU for (its tables and core models) and how */
	struct collect_host_cpu host;
	collect_host_cpu(&host);
	char taken[sizeof host.name + sizeof host.why + 8];
	snprintf(taken, sizeof taken, "%s (%s)", host.name, host.why);
	gusdata_set_meta(d, "cpu.taken_for", taken);
	gusdata_set_meta_u64(d, "start_time", (uint64_t)time(NULL));
}

/* ------------------------------------------------------------ progress --- */
/* the log of the recording being made: one at a time per process */
static const struct recording_log *rec_log;

#define progress(phase, ...) recording_progress(rec_log, phase, __VA_ARGS__)
#define progress_end() recording_progress_end(rec_log)

/* -------------------------------------------------------------- samples --- */
struct sample_store {
	struct gusdata *d;
	uint64_t n, pending;
	char failed[256];
};

static int store_fail(struct sample_store *s)
{
	if (!s->failed[0])
		snprintf(s->failed, sizeof s->failed, "%s: %s", gusdata_path(s->d), gusdata_errmsg(s->d));
	return -1;
}

/* samples are committed in batches: a few thousand a second each on its
 * own would cost more than the program's own run */
static int store_sample(void *ctx, const struct collect_sample *cs)
{
	struct sample_store *s = ctx;
	if (!s->pending && gusdata_begin(s->d))
		return store_fail(s);
	struct gusdata_sample g = {
		.time = cs->time, .cpu = cs->cpu, .pid = cs->pid, .tid = cs->tid, .ip = cs->ip,
		.period = cs->period, .user = cs->user, .callchain = cs->callchain, .ncallchain = cs->ncallchain,
		.read_group = cs->read_group, .nread = cs->nread, .read = cs->read, .read_enabled = cs->read_enabled,
		.read_running = cs->read_running, .regs_abi = cs->regs_abi, .regs_mask = cs->regs_mask,
		.regs = cs->regs, .nregs = cs->nregs, .stack = cs->stack, .nstack = cs->nstack,
	};
	/* a read group's sample: its deltas, not a time sample */
	if (cs->nread ? gusdata_add_sample_read(s->d, &g) : gusdata_add_sample(s->d, &g))
		return store_fail(s);
	s->n += !cs->nread;
	if (++s->pending >= 2048) {
		s->pending = 0;
		if (gusdata_commit(s->d))
			return store_fail(s);
	}
	return 0;
}

static int store_flush(struct sample_store *s)
{
	if (!s->pending)
		return 0;
	s->pending = 0;
	return gusdata_commit(s->d) ? store_fail(s) : 0;
}

static int store_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct sample_store *s = ctx;
	return gusdata_add_sample_mmap(s->d, m) ? store_fail(s) : 0;
}

static int store_comm(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	struct sample_store *s = ctx;
	return gusdata_add_comm(s->d, time, pid, tid, comm, exec) ? store_fail(s) : 0;
}

static int store_event(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a,
		       uint64_t b)
{
	struct sample_store *s = ctx;
	return gusdata_add_event(s->d, time, cpu, pid, tid, kind, a, b) ? store_fail(s) : 0;
}

static void sample_progress(void *ctx, uint64_t n)
{
	const char *prog = ctx;
	progress(false, "running %s: %llu samples", prog, (unsigned long long)n);
}

static int store_counts(struct gusdata *d, const struct td_countset *cs)
{
	if (gusdata_begin(d))
		return -1;
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		struct gusdata_count g = { .event = c->event, .value = c->raw, .enabled = c->enabled,
					   .running = c->running, .uncounted = c->counted ? NULL : c->why_not };
		if (!c->counted && !g.uncounted)
			g.uncounted = "not counted";
		if (gusdata_add_count(d, &g)) {
			gusdata_commit(d);
			return -1;
		}
	}
	return gusdata_commit(d);
}

/* -------------------------------------------------------- hot regions --- */
struct map_entry {
	int pid;
	uint64_t start, end, pgoff;
	char *file;
	char *build_id;		/* the one recorded with the mapping, NULL none */
	bool bias_known, bias_bad;
	bool absent;		/* the file is not the one mapped (gone, or another build-id) */
	uint64_t bias;
};

struct maps {
	struct map_entry *v;
	size_t n, cap;
};

static int collect_map(void *ctx, const struct gusdata_mmap *m)
{
	struct maps *ms = ctx;
	/* executable mappings: files, and the vDSO and anonymous (JIT) code,
	 * which get regions of their own that say what they are */
	if (!(m->prot & PROT_EXEC))
		return 0;
	const char *file = m->filename;
	if (!strcmp(file, "[vdso]"))
		;
	else if (!file[0] || !strncmp(file, "//anon", 6) || !strncmp(file, "[anon", 5) ||
		 !strncmp(file, "/memfd:", 7) || !strcmp(file, "[heap]") || !strcmp(file, "[stack]"))
		file = "[anonymous code]";
	else if (file[0] != '/')
		return 0;
	if (ms->n == ms->cap) {
		ms->cap = ms->cap ? 2 * ms->cap : 64;
		struct map_entry *v = realloc(ms->v, ms->cap * sizeof *v);
		if (!v)
			return -1;
		ms->v = v;
	}
	struct map_entry *e = &ms->v[ms->n];
	memset(e, 0, sizeof *e);
	e->pid = m->pid;
	e->start = m->start;
	e->end = m->start + m->len;
	e->pgoff = m->pgoff;
	if (!(e->file = strdup(file)) || (m->build_id && m->build_id[0] && !(e->build_id = strdup(m->build_id)))) {
		free(e->file);
		return -1;
	}
	ms->n++;
	return 0;
}

static void maps_free(struct maps *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].file);
		free(ms->v[i].build_id);
	}
	free(ms->v);
}

struct region_build {
	struct maps maps;
	struct merge_regions *regions;
	uint64_t unmapped;
};

/* where sample S fell: its object and the address there (link-time for
 * a file, the offset for the vDSO and anonymous code, the file offset
 * for an object that is not the one mapped: *ABSENT); false: user code in
 * no mapping the samples' run knows */
static bool place_sample(struct maps *maps, const struct gusdata_sample *s, const char **file, uint64_t *addr,
			 const char **absent_build_id, bool *absent)
{
	/* the newest mapping of the sample's process holding its address */
	struct map_entry *hit = NULL;
	*absent = false;
	for (size_t i = maps->n; i-- > 0;) {
		struct map_entry *e = &maps->v[i];
		if (s->ip >= e->start && s->ip < e->end && (e->pid == s->pid || !hit)) {
			hit = e;
			if (e->pid == s->pid)
				break;
		}
	}
	if (!hit || !s->user)
		return false;
	*file = hit->file;
	if (hit->file[0] == '[') {
		*addr = s->ip - hit->start;
		return true;
	}
	if (!hit->bias_known && !hit->bias_bad) {
		char err[512], now[129];
		/* a mapping that names its build-id is of that file only (a
		 * perf.data from another machine, gus import); the kernel
		 * gives the first 20 bytes of a longer one */
		if (hit->build_id && (!strcmp(hit->build_id, GUSDATA_NOT_HERE) ||
				      merge_elf_build_id(hit->file, now, sizeof now, err, sizeof err) ||
				      strncmp(now, hit->build_id, strlen(hit->build_id))))
			hit->bias_bad = hit->absent = true;
		else if (merge_elf_load_bias(hit->file, hit->start, hit->pgoff, &hit->bias, err, sizeof err))
			hit->bias_bad = hit->absent = true;
		else
			hit->bias_known = true;
	}
	if (hit->absent) {
		*addr = s->ip - hit->start + hit->pgoff;
		*absent = true;
		*absent_build_id = hit->build_id && strcmp(hit->build_id, GUSDATA_NOT_HERE) ? hit->build_id : NULL;
		return true;
	}
	*addr = s->ip - hit->bias;
	return true;
}

static int add_sample_to_regions(void *ctx, const struct gusdata_sample *s)
{
	struct region_build *rb = ctx;
	uint64_t w = s->period ? s->period : 1;
	const char *file, *build_id = NULL;
	uint64_t addr;
	bool absent;
	if (!place_sample(&rb->maps, s, &file, &addr, &build_id, &absent)) {
		rb->unmapped += w;
		return merge_regions_add(rb->regions, NULL, 0, w);
	}
	if (absent)
		return merge_regions_add_absent(rb->regions, file, build_id, addr, w);
	return merge_regions_add(rb->regions, file, addr, w);
}

/* ------------------------------------------------ the regions' counts --- */
/* The counter groups read at the samples (meta sample.read_groups), added
 * up per hot region: each sample's deltas go to every region holding its
 * address (a function and its loops). A sample's enabled delta is not
 * the region's: the groups' events on one CPU are enabled while the
 * thread runs on any CPU, so it counts time elsewhere too. The share of
 * time each event counted is taken from the whole run's count set
 * (running / enabled), as if multiplexing were even over the run, and a
 * region's enabled time is its running time over that share. An event in
 * several groups adds up its raw deltas and running times. */
struct region_sums {
	const struct merge_region *r;
	size_t nr;
	const struct collect_plan *rg;
	struct maps *maps;
	double *raw;		/* [region][plan event] */
	double *ru;		/* [region][group] */
	uint64_t *samples;	/* [region] */
	int ngroups;
};

/* the whole run's running / enabled of each event, 1 where unknown */
struct run_shares {
	const struct collect_plan *rg;
	double *share;		/* [plan event] */
};

static int share_of_count(void *ctx, const struct gusdata_count *c)
{
	struct run_shares *rs = ctx;
	for (size_t e = 0; e < rs->rg->n; e++)
		if (!c->uncounted && c->enabled > 0 && c->running > 0 && c->running <= c->enabled &&
		    !strcmp(rs->rg->ev[e].name, c->event))
			rs->share[e] = c->running / c->enabled;
	return 0;
}

static int sum_sample_reads(void *ctx, const struct gusdata_sample *s)
{
	struct region_sums *q = ctx;
	if (!s->nread || s->read_group < 0 || s->read_group >= q->ngroups)
		return 0;
	const char *file, *build_id;
	uint64_t addr;
	bool absent;
	if (!place_sample(q->maps, s, &file, &addr, &build_id, &absent))
		return 0;
	/* the group's events: the plan's events of that group, in order */
	size_t first = 0;
	while (first < q->rg->n && q->rg->ev[first].group != s->read_group)
		first++;
	for (size_t i = 0; i < q->nr; i++) {
		const struct merge_region *r = &q->r[i];
		if (strcmp(r->file, file) || addr < r->start || addr >= r->end)
			continue;
		for (size_t k = 0; k < s->nread && first + k < q->rg->n; k++)
			q->raw[i * q->rg->n + first + k] += s->read[k];
		q->ru[i * (size_t)q->ngroups + (size_t)s->read_group] += s->read_running;
		q->samples[i]++;
	}
	return 0;
}

static int store_sampled_region_counts(struct gusdata *d, struct maps *maps, const struct merge_region *r, size_t nr,
				       const int64_t *ids, const struct collect_plan *rg)
{
	struct region_sums q = { .r = r, .nr = nr, .rg = rg, .maps = maps, .ngroups = rg->n_groups };
	for (size_t i = 0; i < rg->n; i++)
		if (rg->ev[i].group + 1 > q.ngroups)
			q.ngroups = rg->ev[i].group + 1;
	q.raw = calloc(nr * rg->n + 1, sizeof *q.raw);
	q.ru = calloc(nr * (size_t)q.ngroups + 1, sizeof *q.ru);
	q.samples = calloc(nr + 1, sizeof *q.samples);
	struct run_shares rs = { .rg = rg, .share = calloc(rg->n + 1, sizeof *rs.share) };
	for (size_t e = 0; rs.share && e < rg->n; e++)
		rs.share[e] = 1;
	int rc = -1;
	if (!q.raw || !q.ru || !q.samples || !rs.share || gusdata_foreach_count(d, share_of_count, &rs) ||
	    gusdata_foreach_sample_read(d, sum_sample_reads, &q))
		goto out;
	rc = 0;
	for (size_t i = 0; i < nr && !rc; i++) {
		if (!q.samples[i])
			continue;
		/* each event once, its groups' deltas together */
		for (size_t e = 0; e < rg->n && !rc; e++) {
			bool seen = false;
			for (size_t f = 0; f < e && !seen; f++)
				seen = !strcmp(rg->ev[f].name, rg->ev[e].name);
			if (seen)
				continue;
			double raw = 0, ru = 0;
			for (size_t f = e; f < rg->n; f++) {
				if (strcmp(rg->ev[f].name, rg->ev[e].name))
					continue;
				size_t g = (size_t)rg->ev[f].group;
				raw += q.raw[i * rg->n + f];
				ru += q.ru[i * (size_t)q.ngroups + g];
			}
			struct gusdata_region_count c = { .region = ids[i], .event = rg->ev[e].name, .value = raw,
							  .enabled = ru / rs.share[e], .running = ru,
							  .samples = q.samples[i] };
			if (!(ru > 0))
				c.uncounted = "its group never ran at this region's samples";
			rc = gusdata_add_region_count(d, &c);
		}
	}
out:
	free(q.raw);
	free(q.ru);
	free(q.samples);
	free(rs.share);
	return rc;
}

static void region_warn(void *ctx, const char *msg)
{
	(void)ctx;
	rec_warn(rec_log, "%s: its functions are not named", msg);
}

/* Ranks the hot regions of the samples in D and stores them; *REGIONS
 * keeps them for the trace run. */
static int find_hot_regions(struct gusdata *d, const struct sim_machine *m, unsigned top,
			    const struct collect_plan *read_groups, struct merge_region **regions, size_t *nregions,
			    uint64_t *total)
{
	struct region_build rb = { .regions = merge_regions_new(m) };
	int rc = -1;
	if (!rb.regions)
		return -1;
	if (gusdata_foreach_sample_mmap(d, collect_map, &rb.maps) ||
	    gusdata_foreach_sample(d, add_sample_to_regions, &rb))
		goto out;
	if (merge_regions_rank(rb.regions, top, regions, nregions, total, region_warn, NULL))
		goto out;
	/* ids of the rows, for the loops' parents */
	int64_t *ids = calloc(*nregions + 1, sizeof *ids);
	if (!ids || gusdata_begin(d)) {
		free(ids);
		goto out;
	}
	for (size_t i = 0; i < *nregions; i++) {
		const struct merge_region *r = &(*regions)[i];
		struct gusdata_region g = {
			.rank = (int)i + 1, .kind = r->kind, .name = r->name, .file = r->file,
			.start = r->start, .end = r->end, .head = r->head,
			.parent = r->parent >= 0 && (size_t)r->parent < i ? ids[r->parent] : 0,
			.samples = r->samples, .share = r->share, .build_id = r->build_id,
		};
		if (gusdata_add_region(d, &g)) {
			gusdata_commit(d);
			free(ids);
			goto out;
		}
		ids[i] = g.id;
	}
	/* the counter groups read at the samples, per region */
	if (read_groups && store_sampled_region_counts(d, &rb.maps, *regions, *nregions, ids, read_groups)) {
		gusdata_commit(d);
		free(ids);
		goto out;
	}
	free(ids);
	gusdata_set_meta_u64(d, "regions.total_weight", *total);
	gusdata_set_meta_u64(d, "regions.unmapped_weight", rb.unmapped);
	rc = gusdata_commit(d);
out:
	maps_free(&rb.maps);
	merge_regions_free(rb.regions);
	return rc;
}

int rec_rank_regions(struct gusdata *d, const struct sim_machine *m, unsigned top,
		     const struct collect_plan *read_groups, const struct recording_log *log, size_t *nregions)
{
	const struct recording_log *saved = rec_log;
	struct merge_region *regions = NULL;
	uint64_t total;
	rec_log = log;
	int rc = find_hot_regions(d, m, top, read_groups, &regions, nregions, &total);
	rec_log = saved;
	free(regions);
	return rc;
}

/* --------------------------------------------------------- trace runs --- */
/* What run 2 traces: the hot regions of every object the samples found
 * (the program, its libraries, the programs it ran), functions whole, a
 * loop alone when its function is not kept. Each range is known by its
 * object and its link-time addresses there, and by the file offsets that
 * the tracers match against the mappings of the traced run, which lays
 * things out anew. */
struct trace_range {
	size_t object;			/* index into trace_plan.objects */
	const char *name;		/* its region's */
	double share;			/* its region's share of the samples */
	uint64_t link_start, link_end;
	uint64_t off_start, off_end;
};

struct trace_object {
	char *path, *build_id;
	struct stream_range offsets[MAX_TRACE_RANGES];	/* file offsets of its ranges */
	size_t n;
};

struct trace_plan {
	struct trace_range r[MAX_TRACE_RANGES];
	size_t n;
	struct trace_object objects[MAX_TRACE_RANGES];
	size_t nobjects;
	size_t skipped;			/* regions in no file (vDSO, anonymous code) */
};

static void trace_plan_free(struct trace_plan *p)
{
	for (size_t i = 0; i < p->nobjects; i++) {
		free(p->objects[i].path);
		free(p->objects[i].build_id);
	}
}

static size_t plan_object(struct trace_plan *p, const char *path, const char *build_id)
{
	for (size_t i = 0; i < p->nobjects; i++)
		if (!strcmp(p->objects[i].path, path))
			return i;
	struct trace_object *o = &p->objects[p->nobjects];
	memset(o, 0, sizeof *o);
	if (!(o->path = strdup(path)) || !(o->build_id = strdup(build_id ? build_id : "")))
		abort();
	return p->nobjects++;
}

static void plan_traces(const struct merge_region *r, size_t n, struct trace_plan *p)
{
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < n && p->n < MAX_TRACE_RANGES; i++) {
		if (r[i].end <= r[i].start)
			continue;
		if (r[i].file[0] != '/') {
			p->skipped++;
			continue;
		}
		bool covered = false;
		for (size_t j = 0; j < n; j++)
			if (j != i && !strcmp(r[j].file, r[i].file) && r[j].start <= r[i].start && r[j].end >= r[i].end &&
			    (r[j].end - r[j].start > r[i].end - r[i].start || j < i))
				covered = true;
		if (covered)
			continue;
		uint64_t off_start, off_last;
		char err[512];
		/* the last byte, not the end: a function may end its segment */
		if (merge_elf_file_offset(r[i].file, r[i].start, &off_start, err, sizeof err) ||
		    merge_elf_file_offset(r[i].file, r[i].end - 1, &off_last, err, sizeof err) ||
		    off_last - off_start != r[i].end - 1 - r[i].start) {
			rec_warn(rec_log, "%s: not traced: %s", r[i].name, err);
			continue;
		}
		size_t obj = plan_object(p, r[i].file, r[i].build_id);
		struct trace_object *o = &p->objects[obj];
		o->offsets[o->n++] = (struct stream_range){ off_start, off_last + 1 };
		p->r[p->n++] = (struct trace_range){ obj, r[i].name, r[i].share, r[i].start, r[i].end, off_start,
						     off_last + 1 };
	}
}

/* A range of the plan at its runtime place in one traced process. */
struct live_range {
	uint64_t start, end;
	size_t range;			/* index into trace_plan.r */
};

/* Where one thread is in its windows of one traced range (the tracer's
 * schedule, collect.h): the window it is in and its records of it so
 * far, so where it is in its run of the range; and where it was when the
 * windows filled what may be stored. */
struct window_pos {
	uint32_t thread;	/* STREAM_THREAD */
	size_t range;		/* index into trace_plan.r */
	uint32_t index;
	uint64_t n;
	double at_stop;		/* records of its run of the range before storing stopped */
};

struct qemu_store {
	struct gusdata *d;
	struct gusdata_trace_writer *w;
	const struct trace_plan *plan;
	struct live_range *live;
	size_t nlive, caplive;
	uint64_t kept[MAX_TRACE_RANGES];
	uint64_t max, stored;
	size_t full;		/* ranges that have their max */
	bool windows;		/* MAX caps what is stored in all, not per range */
	bool failed, enough;
	char failure[200];	/* the first failed write's reason */
	/* windows: where each thread is in each range, so that a run whose
	 * windows filled MAX goes on untraced and says how much of it they
	 * cover */
	uint64_t window_records;
	unsigned per_level;
	struct window_pos *pos;
	size_t npos, cappos, last_pos;
	size_t *slot;		/* open addressing on (thread, range): index + 1 into POS, 0 free */
	size_t nslot;		/* a power of two, over twice NPOS */
	struct timespec started;
	double stop_seconds;	/* into run 2 when storing stopped */
	/* progress on a terminal: run 1's time (NAN: not known), when it
	 * was last said */
	double run1_seconds, said_at;
	/* qemu_sink's batch of records to store: here rather than on its
	 * stack, as it is called for every few records of the run (an 18 KiB
	 * frame cost each call a fake frame and its poisoning under ASan's
	 * stack-use-after-return detection: 4-7 % of the trace tests' CPU) */
	struct stream_insn keep[256];
};

/* records from the start of a thread's run of a range to window J of W
 * records, K per level: K*W*(2^L - 1) + (J mod K)*W*2^L, L = J / K (the
 * QEMU tracer's schedule, collect.h; gus-data(5) trace.window_records) */
static double window_start(uint64_t w, unsigned k, uint32_t j)
{
	unsigned level = j / k, i = j % k;
	return (double)k * (double)w * (ldexp(1.0, (int)level) - 1) + i * (double)w * ldexp(1.0, (int)level);
}

static double window_pos_at(const struct qemu_store *q, const struct window_pos *p)
{
	return window_start(q->window_records, q->per_level, p->index) + (double)p->n;
}

/* the position of V's thread in plan range RANGE, V counted; NULL when out
 * of memory */
static size_t window_slot(const struct qemu_store *q, uint32_t thread, size_t range)
{
	uint64_t h = ((uint64_t)thread * MAX_TRACE_RANGES + range) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & (q->nslot - 1);
	while (q->slot[i] && (q->pos[q->slot[i] - 1].thread != thread || q->pos[q->slot[i] - 1].range != range))
		i = (i + 1) & (q->nslot - 1);
	return i;
}

static struct window_pos *window_track(struct qemu_store *q, const struct stream_insn *v, size_t range)
{
	struct window_pos *p = NULL;
	if (q->last_pos < q->npos && q->pos[q->last_pos].thread == v->thread && q->pos[q->last_pos].range == range)
		p = &q->pos[q->last_pos];
	size_t at = 0;
	if (!p && q->nslot) {
		at = window_slot(q, v->thread, range);
		if (q->slot[at])
			p = &q->pos[(q->last_pos = q->slot[at] - 1)];
	}
	if (!p) {
		if (q->npos == q->cappos) {
			size_t cap = q->cappos ? 2 * q->cappos : 64;
			struct window_pos *np = realloc(q->pos, cap * sizeof *np);
			size_t *ns = calloc(2 * cap, sizeof *ns);
			if (!np || !ns) {
				free(ns);
				if (np)
					q->pos = np;
				return NULL;
			}
			q->pos = np;
			q->cappos = cap;
			free(q->slot);
			q->slot = ns;
			q->nslot = 2 * cap;
			for (size_t i = 0; i < q->npos; i++)
				q->slot[window_slot(q, q->pos[i].thread, q->pos[i].range)] = i + 1;
			at = window_slot(q, v->thread, range);
		}
		p = &q->pos[q->npos];
		*p = (struct window_pos){ .thread = v->thread, .range = range, .at_stop = q->enough ? 0 : -1 };
		q->slot[at] = q->npos + 1;
		q->last_pos = q->npos++;
	}
	if ((v->flags & STREAM_WINDOW) && v->window) {
		p->index = STREAM_WINDOW_INDEX(v->window);
		p->n = 0;
	}
	p->n++;
	return p;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Progress of run 2 on a terminal, at most four times a second: how
 * long it has run (and run 1 natively), what the windows stored of
 * --max-insns, and how far into the run the hot ranges' windows are */
/* a count as progress says it: "850", "12 k", "3.4 M" */
static const char *count_text(double n, char *buf, size_t len)
{
	if (n >= 1e6)
		snprintf(buf, len, "%.1f M", n / 1e6);
	else if (n >= 1e4)
		snprintf(buf, len, "%.0f k", n / 1e3);
	else
		snprintf(buf, len, "%.0f", n);
	return buf;
}

static void trace_progress(struct qemu_store *q)
{
	double t = seconds_since(&q->started);
	if (t - q->said_at < 0.25)
		return;
	q->said_at = t;
	char run1[48] = "", where[96] = "", stored[32], max[32], at[32];
	if (isfinite(q->run1_seconds))
		snprintf(run1, sizeof run1, " (run 1 %.1f s)", q->run1_seconds);
	if (q->windows && q->npos) {
		double far = 0;
		for (size_t i = 0; i < q->npos; i++)
			if (window_pos_at(q, &q->pos[i]) > far)
				far = window_pos_at(q, &q->pos[i]);
		snprintf(where, sizeof where, ", hot code at record %s", count_text(far, at, sizeof at));
	}
	count_text((double)q->stored, stored, sizeof stored);
	count_text((double)q->max, max, sizeof max);
	if (q->enough && q->windows)
		progress(false, "run 2 (QEMU) %.1f s%s: windows full (--max-insns %s), running on untraced%s", t, run1, max,
			 where);
	else
		progress(false, "run 2 (QEMU) %.1f s%s: %s of %s records stored%s", t, run1, stored, max, where);
}

static void trace_tick(void *ctx)
{
	trace_progress(ctx);
}

/* the windows hold MAX records: where every thread is now is where they
 * end; the run goes on, untraced, to say how much of it that is */
static void windows_full(struct qemu_store *q)
{
	q->enough = true;
	q->stop_seconds = seconds_since(&q->started);
	for (size_t i = 0; i < q->npos; i++)
		q->pos[i].at_stop = window_pos_at(q, &q->pos[i]);
	q->said_at = -1;
	trace_progress(q);
}

/* a write into the recording failed: the first reason is kept, later
 * calls would only find SQLite's "not an error" */
static void store_failed(struct qemu_store *q)
{
	if (!q->failed)
		snprintf(q->failure, sizeof q->failure, "%s", gusdata_errmsg(q->d));
	q->failed = true;
}

/* before any record inside it: where an object of the plan is mapped */
static void qemu_mapped(void *ctx, size_t object, unsigned proc, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct qemu_store *q = ctx;
	if (object >= q->plan->nobjects)
		return;
	const struct trace_object *o = &q->plan->objects[object];
	/* now, not at the end: a recording cut during this run is read too */
	struct gusdata_trace_map m = { .proc = proc, .object = o->path, .build_id = o->build_id,
				       .start = start, .len = len, .pgoff = pgoff };
	if (gusdata_add_trace_map(q->d, &m))
		store_failed(q);
	for (size_t i = 0; i < q->plan->n; i++) {
		const struct trace_range *t = &q->plan->r[i];
		if (t->object != object || t->off_start < pgoff || t->off_end > pgoff + len)
			continue;
		if (q->nlive == q->caplive) {
			q->caplive = q->caplive ? 2 * q->caplive : 16;
			struct live_range *v = realloc(q->live, q->caplive * sizeof *v);
			if (!v) {
				if (!q->failed)
					snprintf(q->failure, sizeof q->failure, "out of memory");
				q->failed = true;
				return;
			}
			q->live = v;
		}
		q->live[q->nlive++] = (struct live_range){ start + (t->off_start - pgoff), start + (t->off_end - pgoff), i };
	}
}

/* records of a range past --max-insns are dropped: the hottest function
 * must not use up what the others need */
static int qemu_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct qemu_store *q = ctx;
	struct stream_insn *keep = q->keep;
	const size_t keep_cap = sizeof q->keep / sizeof q->keep[0];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l;
		for (l = 0; l < q->nlive; l++)
			if (v[i].ip >= q->live[l].start && v[i].ip < q->live[l].end)
				break;
		if (l == q->nlive)
			continue;
		size_t r = q->live[l].range;
		if (q->windows) {
			/* the windows cover the run up to here: enough stored;
			 * the rest is followed, not stored */
			if (!q->enough && q->stored + k >= q->max)
				windows_full(q);
			if (!window_track(q, &v[i], r)) {
				if (!q->failed)
					snprintf(q->failure, sizeof q->failure, "out of memory");
				q->failed = true;
				return -1;
			}
			if (q->enough)
				continue;
		} else {
			if (q->kept[r] >= q->max)
				continue;
			if (++q->kept[r] == q->max)
				q->full++;
		}
		keep[k++] = v[i];
		if (k == keep_cap) {
			if (gusdata_trace_write(q->w, keep, k))
				goto fail;
			q->stored += k;
			k = 0;
		}
	}
	if (k && gusdata_trace_write(q->w, keep, k))
		goto fail;
	q->stored += k;
	trace_progress(q);
	/* every range has what the report simulates: the rest of the run
	 * would add nothing, so it is stopped (windows that filled what may
	 * be stored let the run go on: its end says what they cover) */
	if (!q->windows && q->full == q->plan->n) {
		q->enough = true;
		return 1;
	}
	return q->failed ? -1 : 0;
fail:
	store_failed(q);
	return -1;
}

/* ------------------------------------------- run 2's standard streams --- */
/* what run 2's output may keep in the recording, per stream */
#define TRACE_OUTPUT_KEPT (4u * 1024 * 1024)

/* what run 2 reads, in words (meta trace.stdin and the terminal) */
static void describe_input(const struct collect_input *in, bool after_run1, char *buf, size_t n)
{
	switch (in->kind) {
	case COLLECT_INPUT_FILE:
		snprintf(buf, n, "the same file again, from offset %llu", (unsigned long long)in->start);
		break;
	case COLLECT_INPUT_COPY:
		if (!after_run1)
			snprintf(buf, n, "a copy of what run 1 read");
		else
			snprintf(buf, n, "a copy of what run 1 read: %llu bytes (%s)", (unsigned long long)in->copied,
				 in->copy_errno ? "the copy could not be written further" :
				 in->at_end ? "the whole input" :
				 in->stopped_reading ? "the program stopped reading before the end" :
				 in->read_errno ? "reading the input failed" : "the program ended before the end");
		break;
	case COLLECT_INPUT_TERMINAL:
		snprintf(buf, n, "/dev/null (the standard input is a terminal)");
		break;
	default:
		snprintf(buf, n, "the standard input as it is (closed, or nothing to read)");
	}
}

/* said once, before run 1: what running twice means */
static void say_runs_twice(const struct collect_input *in, bool discard_output)
{
	char input[200];
	describe_input(in, false, input, sizeof input);
	progress(true, "without Intel PT the program runs twice: run 1 is sampled and counted, run 2 runs under "
		 "QEMU to trace its hot code, so whatever it does happens twice (files written, network); run 2 "
		 "reads %s, and its output %s; --no-trace runs it once", input,
		 discard_output ? "is discarded (--quiet)" : "goes into the recording, not here");
	progress_end();
}

/* the start of what run 2 wrote on STREAM, for a message: its first line */
static void output_head(const struct collect_output_stream *s, char *buf, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < s->kept && k + 1 < n; i++) {
		unsigned char c = s->data[i];
		if (c == '\n' && k)
			break;
		if (c >= 0x20 && c < 0x7f)
			buf[k++] = (char)c;
	}
	buf[k] = 0;
}

/* run 2's output into the recording; meta trace.output says what it holds */
static int store_trace_output(struct gusdata *d, const struct collect_output *out)
{
	static const char *const names[2] = { "stdout", "stderr" };
	char what[300];
	int rc = 0;
	for (int i = 0; i < 2; i++)
		if (gusdata_add_output(d, 2, names[i], out->stream[i].data, out->stream[i].kept, out->stream[i].total))
			rc = -1;
	snprintf(what, sizeof what, "in table program_output (run 2): stdout %llu bytes, stderr %llu bytes%s",
		 (unsigned long long)out->stream[0].total, (unsigned long long)out->stream[1].total,
		 out->stream[0].total > out->stream[0].kept || out->stream[1].total > out->stream[1].kept ?
		 ", the first 4 MiB of each kept" : "");
	if (gusdata_set_meta(d, "trace.output", what))
		rc = -1;
	return rc;
}

/* How much of run 2 the windows cover, they having filled what may be
 * stored STOP_SECONDS into it and the run gone on to its end (or to
 * Ctrl-C): meta trace.stopped_x1000 and trace.coverage, a line per traced
 * range in the tracer's order, "RANGE BEFORE ALL", its records (all
 * threads) run before storing stopped and in the whole run. *COVERS the
 * share of all traced ranges' records, *LEAST the smallest share of one
 * range's (NAN: none ran). Records, not time: storing every record of
 * the dense first windows slows QEMU far more than counting the rest. */
static void store_coverage(struct gusdata *d, const struct qemu_store *q, double *covers, double *least)
{
	double sum_before = 0, sum_all = 0;
	*covers = *least = NAN;
	gusdata_set_meta_u64(d, "trace.stopped_x1000", (uint64_t)(q->stop_seconds * 1000 + 0.5));
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	if (!f)
		return;
	size_t t = 0;
	for (size_t i = 0; i < q->plan->nobjects; i++)
		for (size_t k = 0; k < q->plan->n; k++) {
			if (q->plan->r[k].object != i)
				continue;
			double before = 0, all = 0;
			for (size_t p = 0; p < q->npos; p++)
				if (q->pos[p].range == k) {
					double now = window_pos_at(q, &q->pos[p]);
					before += q->pos[p].at_stop >= 0 ? q->pos[p].at_stop : now;
					all += now;
				}
			if (all > 0 && (isnan(*least) || before / all < *least))
				*least = before / all;
			sum_before += before;
			sum_all += all;
			fprintf(f, "%zu %.0f %.0f\n", t++, before, all);
		}
	if (!fclose(f))
		gusdata_set_meta(d, "trace.coverage", list);
	free(list);
	if (sum_all > 0)
		*covers = sum_before / sum_all;
}

/* a share as gus record says it: "12 %", "0.4 %", "under 0.1 %" */
static void share_text(double f, char *buf, size_t n)
{
	double p = 100 * f;
	if (isnan(p))
		snprintf(buf, n, "an unknown share");
	else if (p > 0 && p < 0.1)
		snprintf(buf, n, "under 0.1 %%");
	else if ((p > 0 && p < 1) || (p >= 99.5 && f < 1))
		snprintf(buf, n, "%.1f %%", p);
	else
		snprintf(buf, n, "%.0f %%", p);
}

/* Run 2 under the QEMU tracer into D; *INTERRUPTED says whether Ctrl-C
 * (or SIGTERM) cut it; a trace --max-insns stopped is said in SUM. -1
 * when writing into D failed. */
static int trace_with_qemu(struct gusdata *d, const struct recording_request *o, const struct trace_plan *plan,
			   struct collect_input *input, bool *interrupted, struct recording_summary *sum, bool *reached)
{
	char err[COLLECT_ERRLEN];
	bool windows = o->window_records > 0;
	uint64_t max = o->max_insns ? o->max_insns : windows ? 16000000 : 500000;
	struct qemu_store q = { .d = d, .plan = plan, .max = max, .windows = windows,
				.window_records = o->window_records,
				.per_level = o->windows_per_level ? o->windows_per_level : 32, .run1_seconds = NAN,
				.said_at = -1 };
	uint64_t run1_ms;
	if (gusdata_meta_u64(d, "seconds_x1000", &run1_ms))
		q.run1_seconds = (double)run1_ms / 1000;
	if (!(q.w = gusdata_trace_writer_new(d)))
		return -1;
	struct collect_qemu_object objects[MAX_TRACE_RANGES];
	for (size_t i = 0; i < plan->nobjects; i++)
		objects[i] = (struct collect_qemu_object){ .path = plan->objects[i].path,
							   .ranges = plan->objects[i].offsets,
							   .nranges = plan->objects[i].n };
	struct collect_qemu_opts qo = {
		.objects = objects,
		.nobjects = plan->nobjects,
		.follow_children = true,
		.mapped = qemu_mapped,
		.data_addresses = !o->no_mem,
		/* no overall cap: a range that fills early must not starve the
		 * others; the sink stops the run once all are full, or once the
		 * windows filled what may be stored */
		.max_insns = 0,
		.window_records = o->window_records,
		.windows_per_level = o->windows_per_level,
		.sink = qemu_sink,
		.tick = trace_tick,
		.ctx = &q,
	};
	struct collect_qemu_stats qs;
	struct collect_result res;
	memset(&res, 0, sizeof res);
	/* run 2's standard streams: the input run 1 had, the output kept
	 * off the terminal (into the recording, or nowhere with --quiet) */
	struct collect_stdio io = { -1, -1, -1 };
	struct collect_output out;
	memset(&out, 0, sizeof out);
	int null_in = -1, null_out = -1;
	char input_said[COLLECT_ERRLEN + 32];
	describe_input(input, true, input_said, sizeof input_said);
	io.in = collect_input_replay_fd(input, err, sizeof err);
	if (io.in == -2) {
		rec_warn(rec_log, "%s: run 2 reads /dev/null", err);
		snprintf(input_said, sizeof input_said, "/dev/null (%s)", err);
		io.in = null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	bool capturing = !o->discard_trace_output;
	if (capturing && collect_output_start(&out, TRACE_OUTPUT_KEPT, err, sizeof err)) {
		rec_warn(rec_log, "%s: run 2's output is discarded", err);
		capturing = false;
	}
	if (capturing) {
		io.out = out.stdio.out;
		io.err = out.stdio.err;
	} else {
		/* -1 would be the terminal: never run 2's output */
		io.out = io.err = null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	}
	qo.stdio = &io;
	progress(true, "second run of %s under the QEMU tracer for the stream of %zu hot range(s) in %zu object(s)",
		 o->argv[0], plan->n, plan->nobjects);
	gusdata_set_meta(d, "tracer", "qemu");
	gusdata_set_meta_u64(d, "trace.max_insns", max);
	if (windows) {
		/* the traced ranges in the order the tracer numbers them (the
		 * ranges of each object in turn): the report finds a region's
		 * windows by its range's number */
		char *list = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&list, &len);
		for (size_t i = 0; f && i < plan->nobjects; i++)
			for (size_t k = 0; k < plan->n; k++)
				if (plan->r[k].object == i)
					fprintf(f, "%llx %llx %s\n", (unsigned long long)plan->r[k].link_start,
						(unsigned long long)plan->r[k].link_end, plan->objects[i].path);
		if (f && !fclose(f))
			gusdata_set_meta(d, "trace.ranges", list);
		free(list);
		gusdata_set_meta_u64(d, "trace.window_records", o->window_records);
		gusdata_set_meta_u64(d, "trace.windows_per_level", o->windows_per_level ? o->windows_per_level : 32);
	}
	gusdata_set_meta(d, "trace.data_addresses", o->no_mem ? "no" : "yes");
	gusdata_set_meta(d, "trace.stdin", input_said);
	clock_gettime(CLOCK_MONOTONIC, &q.started);
	enum collect_status st = collect_qemu_run(o->argv, &qo, &qs, &res, err, sizeof err);
	if (qs.exec_note[0]) {
		rec_warn(rec_log, "%s", qs.exec_note);
		gusdata_set_meta(d, "trace.exec_followed", qs.exec_note);
	}
	collect_output_finish(&out);
	if (null_in >= 0)
		close(null_in);
	if (null_out >= 0)
		close(null_out);
	char stderr_head[160] = "";
	if (capturing) {
		output_head(&out.stream[1], stderr_head, sizeof stderr_head);
		if (store_trace_output(d, &out))
			store_failed(&q);
	} else {
		gusdata_set_meta(d, "trace.output", o->discard_trace_output ? "discarded (--quiet)" : "discarded");
	}
	collect_output_free(&out);
	int wrc = gusdata_trace_writer_close(q.w);
	free(q.live);
	double covers = NAN, least = NAN;
	if (!windows) {
		sum->trace_ranges_cut = q.full;
		sum->trace_ranges = plan->n;
	}
	if (q.enough && windows)
		store_coverage(d, &q, &covers, &least);
	/* the ranges QEMU's run executed (followed to its end with windows) */
	for (size_t i = 0; i < q.npos; i++)
		reached[q.pos[i].range] = true;
	for (size_t i = 0; i < plan->n; i++)
		reached[i] |= q.kept[i] > 0;
	free(q.pos);
	free(q.slot);
	char write_err[200];
	snprintf(write_err, sizeof write_err, "%s", q.failed ? q.failure : gusdata_errmsg(d));
	progress_end();
	/* what is stored, not what was sent: a failed write loses a chunk */
	uint64_t stored = gusdata_trace_records(d);
	*interrupted = res.interrupted;
	if (res.interrupted)
		gusdata_set_meta(d, "trace.interrupted", "yes");
	gusdata_set_meta_u64(d, "trace.records", stored);
	gusdata_set_meta_u64(d, "trace.seconds_x1000", (uint64_t)(res.seconds * 1000));
	if (windows) {
		gusdata_set_meta_u64(d, "trace.mode_switches", qs.mode_switches);
		gusdata_set_meta_u64(d, "trace.late_windows", qs.late_windows);
		gusdata_set_meta_u64(d, "trace.pulled_windows", qs.pulled_windows);
		gusdata_set_meta_u64(d, "trace.dark_switches", qs.dark_switches);
	}
	if (wrc || q.failed) {
		snprintf(err, sizeof err, "writing the trace into %s failed: %s; %llu of %llu records were stored",
			 gusdata_path(d), write_err, (unsigned long long)stored, (unsigned long long)q.stored);
		rec_error(rec_log, "%s", err);
		gusdata_set_meta(d, "missing.trace", err);
		return -1;
	}
	if (q.enough) {
		char said[600];
		sum->trace_stopped = true;
		if (windows) {
			sum->trace_covers = covers;
			sum->trace_stop_seconds = q.stop_seconds;
			sum->trace_seconds = res.seconds;
			char share[32], lshare[32];
			share_text(covers, share, sizeof share);
			share_text(least, lshare, sizeof lshare);
			snprintf(said, sizeof said, "the windows reached --max-insns (%llu records) %.2f s into the traced run, "
				 "which went on untraced %s (%.2f s): they cover %sthe first %s of the run, by the hot ranges' "
				 "records", (unsigned long long)max, q.stop_seconds,
				 res.interrupted ? "until Ctrl-C stopped it" : "to its end", res.seconds,
				 res.interrupted ? "at most " : "", share);
			gusdata_set_meta(d, "trace.stopped", said);
			rec_warn(rec_log, "the trace's windows filled --max-insns (%llu records) %.2f s into the %.2f s traced "
				 "run: they cover %sthe first %s of the run, by the hot ranges' records (the least covered "
				 "range: %s); gus report says it per region; a larger --max-insns covers more",
				 (unsigned long long)max, q.stop_seconds, res.seconds, res.interrupted ? "at most " : "", share,
				 lshare);
		} else {
			snprintf(said, sizeof said, "every hot range reached --max-insns (%llu records each) %.2f s into the "
				 "traced run, which was stopped there: the stream is their first records", (unsigned long long)max,
				 res.seconds);
			gusdata_set_meta(d, "trace.stopped", said);
		}
	} else if (st != COLLECT_OK) {
		if (stderr_head[0])
			rec_warn(rec_log, "the QEMU tracer: %s (run 2's standard error begins: %s)", err, stderr_head);
		else
			rec_warn(rec_log, "the QEMU tracer: %s", err);
		gusdata_set_meta(d, "missing.trace", err);
		return 0;
	}
	/* windows that filled let the run end by itself */
	if (!q.enough || windows)
		gusdata_set_meta_u64(d, "trace.exit_status", (uint64_t)collect_exit_code(res.wait_status));
	if (!stored)
		gusdata_set_meta(d, "missing.trace", "the traced run never executed the hot regions");
	return 0;
}

/* Run 3: the ranges QEMU's run 2 could not stand for, single-stepped
 * natively (stepped.c); the total of records updated. -1 when writing
 * into D failed. */
static int step_traces(struct gusdata *d, const struct recording_request *o, const struct trace_plan *plan,
		       const bool *reached, struct collect_input *input, struct recording_summary *sum,
		       bool *interrupted)
{
	struct rec_step_range r[MAX_TRACE_RANGES];
	for (size_t i = 0; i < plan->n; i++) {
		const struct trace_range *t = &plan->r[i];
		r[i] = (struct rec_step_range){ .object = plan->objects[t->object].path,
						.build_id = plan->objects[t->object].build_id,
						.name = t->name, .share = t->share, .link_start = t->link_start,
						.link_end = t->link_end, .off_start = t->off_start, .reached = reached[i] };
	}
	char failure[400] = "";
	uint64_t status;
	/* gusdata_meta's value lasts until its next call: copied first */
	char missing[sizeof failure] = "";
	const char *mv = gusdata_meta(d, "missing.trace");
	if (mv)
		snprintf(missing, sizeof missing, "%s", mv);
	if (gusdata_meta_u64(d, "trace.exit_status", &status) && status == 128 + SIGILL)
		snprintf(failure, sizeof failure, "QEMU stopped the program with SIGILL, at an instruction its CPU lacks");
	else if (missing[0] && !gusdata_trace_records(d))
		snprintf(failure, sizeof failure, "%s", missing);
	struct rec_step_request rq = {
		.argv = o->argv, .input = input, .windows = o->step_windows,
		.window_records = STEP_WINDOW_RECORDS, .data_addresses = !o->no_mem,
		.qemu_failure = failure[0] ? failure : NULL,
	};
	struct rec_step_summary ss;
	int rc = rec_step_traces(d, r, plan->n, &rq, rec_log, &ss);
	sum->stepped_ranges = ss.ranges;
	sum->stepped_records = ss.records;
	sum->stepped_windows = ss.windows;
	sum->step_seconds = ss.seconds;
	sum->step_cpu_seconds = ss.cpu_seconds;
	*interrupted |= ss.interrupted;
	if (ss.ranges)
		gusdata_set_meta_u64(d, "trace.records", gusdata_trace_records(d));
	return rc;
}

/* What Intel PT's trace of run 1 left (the sampling run traced it too):
 * said, and kept as trace.* facts; -1 when storing it failed. */
static int pt_facts(struct gusdata *d, const struct recording_request *o, enum collect_status st, const char *why,
		    const struct collect_pt_stats *stats, const struct collect_result *res)
{
	int rc = 0;
	if (st == COLLECT_WRITE_FAILED) {
		/* the trace that landed is kept and counted (pt.aux_bytes) */
		rec_error(rec_log, "%s; %llu bytes of trace were stored", why, (unsigned long long)stats->aux_bytes);
		gusdata_set_meta(d, "missing.trace", why);
		rc = -1;
	} else if (st != COLLECT_OK) {
		rec_warn(rec_log, "Intel PT: %s; the samples are kept, the run has no trace", why);
		gusdata_set_meta(d, "missing.trace", why);
	} else {
		gusdata_set_meta_u64(d, "trace.exit_status", (uint64_t)collect_exit_code(res->wait_status));
		gusdata_set_meta_u64(d, "trace.seconds_x1000", (uint64_t)(res->seconds * 1000));
		if (res->interrupted)
			gusdata_set_meta(d, "trace.interrupted", "yes");
	}
	if (stats->truncated || stats->lost_records || stats->collisions || stats->overwritten)
		rec_warn(rec_log, "Intel PT lost data: %llu truncated AUX record(s), %llu lost sideband record(s), "
			 "%llu collision(s), %llu overwritten snapshot(s)",
			 (unsigned long long)stats->truncated, (unsigned long long)stats->lost_records,
			 (unsigned long long)stats->collisions, (unsigned long long)stats->overwritten);
	gusdata_set_meta_u64(d, "trace.pt_bytes", stats->aux_bytes);
	/* PT holds the whole run: the report cuts it into these windows */
	gusdata_set_meta_u64(d, "trace.window_records", o->window_records);
	gusdata_set_meta_u64(d, "trace.windows_per_level", o->windows_per_level ? o->windows_per_level : 32);
	return rc;
}

/* ------------------------------------------------------------ counting --- */
/* a message kept as a fact of the recording instead of said */
static void keep_message(void *ctx, enum recording_msg kind, const char *text)
{
	(void)kind;
	snprintf(ctx, COLLECT_ERRLEN, "%s", text);
}

/* the TMA plan for the count set, or why there is none */
static struct td_table *counting_setup(const struct recording_request *o, struct gusdata *d, struct collect_plan *plan,
				       bool *smt_on)
{
	char err[COLLECT_ERRLEN], note[256] = "";
	struct collect_pmu_info pmu;
	bool have_pmu;
	enum recording_status pick_rc;
	/* no counters, or a CPU libpfm4 does not know, is a fact of the
	 * recording, not an error; the missing counters are named first since
	 * libpfm4 knows many CPUs that a virtual machine gives no PMU */
	if (!o->import_counts && collect_probe_hw_counters(err, sizeof err) != COLLECT_OK) {
		gusdata_set_meta(d, "missing.counts", err);
		return NULL;
	}
	if (!o->arch && (collect_pfm_init(err, sizeof err) || collect_detect_pmu(&pmu))) {
		gusdata_set_meta(d, "missing.counts", "libpfm4 does not recognise this CPU; --arch names a TMA table");
		return NULL;
	}
	char why[COLLECT_ERRLEN] = "no TMA table for this CPU (--arch names one)";
	struct recording_log keep_why = { .ctx = why, .message = keep_message };
	struct td_table *t = recording_tma_table(o->tma_dir, o->arch, false, &pmu, &have_pmu, &keep_why, &pick_rc);
	if (!t) {
		gusdata_set_meta(d, "missing.counts", why);
		return NULL;
	}
	gusdata_set_meta(d, "tma.table", t->id);
	gusdata_set_meta_u64(d, "tma.level", (uint64_t)o->level);
	*smt_on = o->smt >= 0 ? o->smt == 1 : (o->import_counts ? false : collect_smt_active());
	gusdata_set_meta(d, "tma.smt", *smt_on ? "on" : "off");
	if (o->import_counts)
		return t;
	bool *sel = td_select_nodes(t, o->level, NULL, err, sizeof err);
	bool *needed = calloc(t->n_events + 1, sizeof *needed);
	if (!sel || !needed) {
		free(sel);
		free(needed);
		td_table_free(t);
		return NULL;
	}
	td_needed_events(t, sel, *smt_on, needed);
	bool use_pfm = have_pmu && td_table_has_pmu(t, pmu.name);
	/* another CPU's table: the counters it says (AMD's), else 4 */
	struct collect_pmu_info said = { .generic_counters = t->counters, .forced = true };
	int budget = use_pfm	       ? collect_counter_budget(&pmu, note, sizeof note)
		     : t->counters ? collect_counter_budget(&said, note, sizeof note)
				   : 4;
	if (collect_plan_tma(t, needed, budget, use_pfm, o->user_only, plan, err, sizeof err)) {
		gusdata_set_meta(d, "missing.counts", err);
		rec_warn(rec_log, "no count set: %s", err);
	} else if (plan->n_groups > 1) {
		gusdata_set_meta_u64(d, "counts.groups", (uint64_t)plan->n_groups);
	}
	free(sel);
	free(needed);
	return t;
}

/* the whole program's count set of per-region counts: every row's value
 * per event (the rows name all the code perf saw, hot or not) */
static int sum_region_rows(const struct td_region_rows *rows, struct td_countset *cs)
{
	for (size_t i = 0; i < rows->n; i++) {
		bool done = false;
		for (size_t k = 0; k < cs->n && !done; k++)
			if (!strcmp(cs->c[k].event, rows->v[i].event)) {
				cs->c[k].raw += rows->v[i].value;
				done = true;
			}
		if (!done && td_countset_add(cs, rows->v[i].event, rows->v[i].value, 1, 1))
			return -1;
	}
	return 0;
}

/* --import-counts: perf stat -x, output (the whole program), or per-region
 * counts (ROWS, kept for the hot regions) */
static int import_counts_from(const char *path, struct gusdata *d, struct td_region_rows *rows)
{
	char err[TD_ERRLEN];
	struct td_countset cs;
	td_countset_init(&cs);
	/* read whole first: telling the two formats apart reads the first
	 * line twice, which a pipe (<(...)) cannot give back */
	FILE *src = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *mem = src ? open_memstream(&text, &len) : NULL;
	bool read_ok = src && mem;
	char chunk[65536];
	size_t got;
	while (read_ok && (got = fread(chunk, 1, sizeof chunk, src)) > 0)
		read_ok = fwrite(chunk, 1, got, mem) == got;
	read_ok = read_ok && !ferror(src);
	int saved_errno = errno;
	if (src)
		fclose(src);
	if (mem && fclose(mem))
		read_ok = false;
	FILE *in = read_ok ? fmemopen(text, len ? len : 1, "r") : NULL;
	int rc = -1;
	bool per_region = in && len && td_is_region_csv(in);
	if (!in)
		rec_error(rec_log, "cannot read %s: %s", path, strerror(src ? errno : saved_errno));
	else if (!len)
		rec_error(rec_log, "%s: empty: no counts in the file", path);
	else if (per_region ? td_import_region_csv(in, path, rows, err, sizeof err)
			    : td_import_perf_csv(in, path, &cs, err, sizeof err))
		rec_error(rec_log, "%s", err);
	else if (per_region && sum_region_rows(rows, &cs))
		rec_error(rec_log, "out of memory");
	else if (!cs.n)
		rec_error(rec_log, "%s: no counts in the file", path);
	else
		rc = 0;
	if (in)
		fclose(in);
	free(text);
	if (!rc) {
		char source[PATH_MAX + 32];
		snprintf(source, sizeof source, "import %s%s", path, per_region ? " (per region)" : "");
		gusdata_set_meta(d, "counts.source", source);
		if (store_counts(d, &cs)) {
			rec_error(rec_log, "%s: %s", gusdata_path(d), gusdata_errmsg(d));
			rc = -1;
		}
	}
	td_countset_free(&cs);
	return rc;
}
/* the hot regions as stored (ids, names) */
struct stored_region {
	int64_t id;
	char *name;
	bool function;
};

struct stored_regions {
	struct stored_region *v;
	size_t n;
	bool oom;
};

static int keep_region(void *ctx, const struct gusdata_region *r)
{
	struct stored_regions *s = ctx;
	struct stored_region *v = realloc(s->v, (s->n + 1) * sizeof *v);
	if (v)
		s->v = v;
	char *name = v ? strdup(r->name) : NULL;
	if (!name) {
		s->oom = true;
		return -1;
	}
	s->v[s->n++] = (struct stored_region){ .id = r->id, .name = name, .function = !strcmp(r->kind, "function") };
	return 0;
}

/* ROW names region R: its name; a function also as perf names it, with
 * parameters, or mangled */
static bool row_names(const char *row, const struct stored_region *r)
{
	if (!strcmp(row, r->name))
		return true;
	if (!r->function)
		return false;
	size_t n = strlen(r->name);
	if (!strncmp(row, r->name, n) && row[n] == '(')
		return true;
	char dm[1024];
	return merge_demangle(row, dm, sizeof dm) && !strcmp(dm, r->name);
}

/* Per-region counts imported: each hot region's rows into region_counts
 * (samples 0: imported); rows of code that is not hot are in the whole
 * program's count set only. */
static int import_counts(const struct recording_request *o, struct gusdata *d, struct td_region_rows *rows)
{
	return import_counts_from(o->import_counts, d, rows);
}

int rec_import_counts(const char *path, struct gusdata *d, struct td_region_rows *rows,
		      const struct recording_log *log)
{
	const struct recording_log *saved = rec_log;
	rec_log = log;
	int rc = import_counts_from(path, d, rows);
	rec_log = saved;
	return rc;
}

static int store_imported_region_counts(struct gusdata *d, const struct td_region_rows *rows, const char *origin);

int rec_store_region_rows(struct gusdata *d, const struct td_region_rows *rows, const char *origin,
			  const struct recording_log *log)
{
	const struct recording_log *saved = rec_log;
	rec_log = log;
	int rc = store_imported_region_counts(d, rows, origin);
	rec_log = saved;
	return rc;
}

static int store_imported_region_counts(struct gusdata *d, const struct td_region_rows *rows, const char *origin)
{
	struct stored_regions s = { 0 };
	int rc = gusdata_foreach_region(d, keep_region, &s) || s.oom ? -1 : 0;
	size_t matched = 0;
	if (!rc && gusdata_begin(d))
		rc = -1;
	/* a region's value of an event: the rows that name it, added up (a
	 * function named twice, mangled and not, is one region) */
	double *sum = calloc(rows->n + 1, sizeof *sum);
	if (!sum)
		rc = -1;
	for (size_t i = 0; !rc && i < s.n; i++) {
		bool any = false;
		for (size_t k = 0; k < rows->n; k++)
			sum[k] = -1;
		for (size_t k = 0; k < rows->n; k++) {
			if (!row_names(rows->v[k].region, &s.v[i]))
				continue;
			size_t first = k;
			for (size_t j = 0; j < k; j++)
				if (sum[j] >= 0 && !strcmp(rows->v[j].event, rows->v[k].event)) {
					first = j;
					break;
				}
			sum[first] = (sum[first] < 0 ? 0 : sum[first]) + rows->v[k].value;
			any = true;
		}
		for (size_t k = 0; !rc && k < rows->n; k++) {
			if (sum[k] < 0)
				continue;
			struct gusdata_region_count c = { .region = s.v[i].id, .event = rows->v[k].event,
							  .value = sum[k], .enabled = 1, .running = 1 };
			rc = gusdata_add_region_count(d, &c);
		}
		matched += any;
	}
	free(sum);
	if (!rc)
		rc = gusdata_commit(d);
	else
		gusdata_commit(d);
	if (!rc && !matched && s.n) {
		char why[PATH_MAX + 128];
		snprintf(why, sizeof why, "%s names none of the hot regions", origin);
		rec_warn(rec_log, "--import-counts: %s: the regions are compared with the whole program's tree", why);
		gusdata_set_meta(d, "missing.region_counts", why);
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.v[i].name);
	free(s.v);
	return rc;
}

/* What the counter groups read at the samples came to: their events
 * per group (meta sample.read_groups, a line per group), or why there
 * are none (missing.region_counts, said once). */
static void read_groups_facts(struct gusdata *d, const struct collect_plan *rg, enum collect_status st, const char *why)
{
	if (st != COLLECT_OK) {
		rec_warn(rec_log, "per-region counts: %s; the regions are compared with the whole program's tree", why);
		gusdata_set_meta(d, "missing.region_counts", why);
		return;
	}
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	for (size_t i = 0; f && i < rg->n; i++)
		fprintf(f, "%s%s", i && rg->ev[i].group != rg->ev[i - 1].group ? "\n" : i ? "," : "", rg->ev[i].name);
	if (f && !fclose(f))
		gusdata_set_meta(d, "sample.read_groups", list);
	free(list);
}

/* -------------------------------------------------------------- SPIRE --- */
struct interval_store {
	struct gusdata *d;
	bool failed;
};

static int store_interval_line(void *ctx, const struct td_perf_line *l)
{
	struct interval_store *st = ctx;
	/* stored raw, as gus counts them: perf printed the scaled value */
	struct gusdata_interval_count c = {
		.time = l->interval,
		.event = l->event,
		.value = l->counted ? l->value * l->running / l->enabled : 0,
		.enabled = l->counted ? l->enabled : 0,
		.running = l->counted ? l->running : 0,
	};
	if (gusdata_add_interval_count(st->d, &c)) {
		st->failed = true;
		return -1;
	}
	return 0;
}

/* perf stat -I output as the recording's SPIRE samples; checked as a
 * sample set first, so that a file SPIRE cannot use is refused */
static int import_intervals(const struct recording_request *o, struct gusdata *d)
{
	char err[SPIRE_ERRLEN];
	struct spire_sampleset ss;
	if (spire_sampleset_init(&ss, o->spire_time, o->spire_work))
		return -1;
	int rc = -1;
	FILE *in = fopen(o->import_intervals, "r");
	if (!in) {
		rec_error(rec_log, "cannot open %s: %s", o->import_intervals, strerror(errno));
		goto out;
	}
	if (spire_import_perf_intervals(in, o->import_intervals, &ss, err, sizeof err)) {
		rec_error(rec_log, "%s", err);
		goto out;
	}
	size_t samples = 0;
	for (size_t i = 0; i < ss.n; i++)
		samples += ss.metrics[i].n;
	if (!samples) {
		rec_error(rec_log, "%s: no usable SPIRE sample (each metric needs %s and %s counted in its event group)",
			  o->import_intervals, ss.time_event, ss.work_event);
		goto out;
	}
	rewind(in);
	struct interval_store st = { .d = d };
	struct td_perf_reader rd = { .ctx = &st, .line = store_interval_line };
	if (gusdata_begin(d) || td_perf_csv_read(in, o->import_intervals, &rd, err, sizeof err) ||
	    gusdata_commit(d)) {
		rec_error(rec_log, "%s", st.failed || !err[0] ? gusdata_errmsg(d) : err);
		goto out;
	}
	char src[PATH_MAX + 16];
	snprintf(src, sizeof src, "import %s", o->import_intervals);
	gusdata_set_meta(d, "spire.source", src);
	gusdata_set_meta(d, "spire.time", ss.time_event);
	gusdata_set_meta(d, "spire.work", ss.work_event);
	if (ss.cpu)
		gusdata_set_meta(d, "spire.cpu", ss.cpu);
	gusdata_set_meta_u64(d, "spire.samples", samples);
	rc = 0;
out:
	if (in)
		fclose(in);
	spire_sampleset_free(&ss);
	return rc;
}

struct spire_store {
	struct gusdata *d;
	uint64_t intervals;
	bool failed;
};

static int store_spire_interval(void *ctx, double t, const struct td_countset *cs)
{
	struct spire_store *st = ctx;
	if (gusdata_begin(st->d))
		goto fail;
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		struct gusdata_interval_count ic = { .time = t, .event = c->event, .value = c->counted ? c->raw : 0,
						     .enabled = c->counted ? c->enabled : 0,
						     .running = c->counted ? c->running : 0 };
		if (gusdata_add_interval_count(st->d, &ic))
			goto fail;
	}
	if (gusdata_commit(st->d))
		goto fail;
	st->intervals++;
	if (!(st->intervals % 10))
		progress(false, "SPIRE interval counts: %llu intervals", (unsigned long long)st->intervals);
	return 0;
fail:
	st->failed = true;
	return -1;
}

/* the extra run of --spire: the metric set in groups led by T and W, read
 * every --spire-interval ms; a machine that cannot count them gets
 * missing.spire, as the count set gets missing.counts */
static void spire_run(struct gusdata *d, const struct recording_request *o, const struct recording_spire_pick *sp, int budget)
{
	char err[COLLECT_ERRLEN];
	struct collect_plan plan = { 0 };
	struct spire_store st = { .d = d };
	struct collect_interval_sink sink = { .ctx = &st, .interval = store_spire_interval };
	struct collect_result res;
	gusdata_set_meta(d, "spire.time", sp->time_name);
	gusdata_set_meta(d, "spire.work", sp->work_name);
	if (sp->cpu)
		gusdata_set_meta(d, "spire.cpu", sp->cpu);
	gusdata_set_meta_u64(d, "spire.interval_ms", o->spire_interval);
	if (collect_plan_spire(sp->time_enc, sp->time_name, sp->work_enc, sp->work_name, sp->enc, sp->names, sp->n,
			       budget, o->user_only, &plan, err, sizeof err)) {
		gusdata_set_meta(d, "missing.spire", err);
		rec_warn(rec_log, "no SPIRE samples: %s", err);
		return;
	}
	gusdata_set_meta_u64(d, "spire.groups", (uint64_t)plan.n_groups);
	progress(true, "running %s again: SPIRE interval counts (%zu metrics in %d groups, every %u ms)",
		 o->argv[0], sp->n, plan.n_groups, o->spire_interval);
	enum collect_status cst =
		collect_count_intervals(&plan, o->argv, o->spire_interval, &sink, NULL, &res, err, sizeof err);
	progress_end();
	if (cst != COLLECT_OK) {
		const char *why = st.failed ? gusdata_errmsg(d) : err;
		gusdata_set_meta(d, "missing.spire", why);
		rec_warn(rec_log, "no SPIRE samples: %s", why);
	} else {
		gusdata_set_meta(d, "spire.source", "counted");
		gusdata_set_meta_u64(d, "spire.intervals", st.intervals);
		if (res.interrupted)
			gusdata_set_meta(d, "spire.interrupted", "yes");
	}
	collect_plan_free(&plan);
}


/* ---------------------------------------------------------------- main --- */
enum recording_status recording_run(const struct recording_request *rq, struct recording_summary *sum)
{
	/* a copy: the filters are parsed into it, the tracer decided */
	struct recording_request o = *rq;
	enum recording_status rc = RECORDING_OK;
	char err[COLLECT_ERRLEN];
	const char *exe = o.exe;
	struct gusdata *d = NULL;
	struct collect_plan plan = { 0 };
	struct td_table *table = NULL;
	struct sim_machine *m = NULL;
	struct merge_region *regions = NULL;
	size_t nregions = 0;
	struct td_countset cs;
	td_countset_init(&cs);
	struct td_region_rows region_rows = { 0 };	/* --import-counts per region */
	struct collect_plan read_plan = { 0 };		/* --read-events */
	struct collect_input input;	/* the standard input, kept for a QEMU run 2 */
	collect_input_init(&input);
	struct collect_kallsyms_async *kallsyms_pending = NULL;

	memset(sum, 0, sizeof *sum);
	o.nfilters = 0;
	rec_log = &rq->log;
	if (o.arch) {
		struct td_table *t = td_table_load_arch(o.tma_dir, o.arch, err, sizeof err);
		if (!t)
			return rec_usage(rec_log, "record: --arch: %s (gus list shows the tables)", err);
		td_table_free(t);
	}
	/* what --spire counts is settled before anything runs */
	struct recording_spire_pick spick;
	int spire_budget = 0;
	memset(&spick, 0, sizeof spick);
	struct collect_pmu_info spire_pmu;
	if (o.spire) {
		struct collect_pmu_info *pmu = &spire_pmu;
		bool have_pmu = collect_pfm_init(err, sizeof err) == 0 && collect_detect_pmu(pmu) == 0;
		struct recording_spire_request srq = { .spire_dir = o.spire_dir, .arch = o.spire_arch,
						       .metrics = o.spire_metrics, .time_event = o.spire_time,
						       .work_event = o.spire_work, .user_only = o.user_only,
						       .opt = "spire-" };
		char note[256];
		if ((rc = recording_spire_prepare(&srq, pmu, have_pmu, &spick, &spire_budget, note, sizeof note,
						  rec_log))) {
			recording_spire_pick_free(&spick);
			return rc;
		}
	}
	if (o.import_intervals && access(o.import_intervals, R_OK)) {
		rec_error(rec_log, "--import-intervals: cannot read %s: %s", o.import_intervals, strerror(errno));
		recording_spire_pick_free(&spick);
		return RECORDING_ERROR;
	}
	if (o.import_counts && access(o.import_counts, R_OK)) {
		rec_error(rec_log, "--import-counts: cannot read %s: %s", o.import_counts, strerror(errno));
		recording_spire_pick_free(&spick);
		return RECORDING_ERROR;
	}
	for (size_t i = 0; i < rq->nfilters; i++) {
		if (collect_pt_filter_parse(o.filter_text[i], exe, resolve_symbol, NULL, &o.filters[i], err,
					    sizeof err)) {
			for (size_t j = 0; j < i; j++)
				collect_pt_filter_free(&o.filters[j]);
			recording_spire_pick_free(&spick);
			return rec_usage(rec_log, "--pt-filter: %s", err);
		}
		o.nfilters = i + 1;
	}
	o.pt.filters = o.filters;
	o.pt.nfilters = o.nfilters;

	/* which tracer: decided before anything runs */
	struct collect_pt_info info;
	char no_pt[COLLECT_ERRLEN] = "";
	if (o.tracer == RECORDING_TRACER_AUTO || o.tracer == RECORDING_TRACER_PT) {
		enum collect_status st = collect_pt_probe(NULL, &info, no_pt, sizeof no_pt);
		if (st != COLLECT_OK && o.tracer == RECORDING_TRACER_PT) {
			rec_error(rec_log, "%s", no_pt);
			rc = st == COLLECT_NO_PMU ? RECORDING_NO_PT : RECORDING_ERROR;
			goto out;
		}
		if (st == COLLECT_OK) {
			o.tracer = RECORDING_TRACER_PT;
			no_pt[0] = 0;
		} else {
			o.tracer = RECORDING_TRACER_QEMU;
			if (o.nfilters)
				rec_warn(rec_log, "no Intel PT here: the QEMU tracer follows the hot functions, --pt-filter is ignored");
		}
	}

	if (!(m = sim_machine_find(o.machines_dir, o.machine, err, sizeof err)))
		rec_warn(rec_log, "%s: hot regions without their loops", err);

	if (gusdata_create(o.output, o.force ? GUSDATA_FORCE : 0, &d, err, sizeof err)) {
		rec_error(rec_log, "%s", err);
		rc = RECORDING_ERROR;
		goto out;
	}
	record_meta(d, o.argv, exe);
	gusdata_set_meta(d, "record.complete", "no");
	/* how far gus record got, for a recording it did not finish (killed) */
	gusdata_set_meta(d, "record.stage", "sampling");
	gusdata_set_meta(d, "tracer", o.tracer == RECORDING_TRACER_PT ? "pt" : o.tracer == RECORDING_TRACER_QEMU ? "qemu" : "none");
	if (no_pt[0])
		gusdata_set_meta(d, "missing.pt", no_pt);
	if (m)
		gusdata_set_meta(d, "sim.machine", sim_machine_name(m));

	bool smt_on = false;
	table = counting_setup(&o, d, &plan, &smt_on);
	if (!table && o.import_counts) {
		const char *why = gusdata_meta(d, "missing.counts");
		rec_error(rec_log, "--import-counts %s: %s", o.import_counts, why ? why : "no TMA table");
		rc = RECORDING_ERROR;
		goto fail_discard;
	}
	if (o.import_counts && import_counts(&o, d, &region_rows)) {
		rc = RECORDING_ERROR;
		goto fail_discard;
	}
	if (o.import_intervals && import_intervals(&o, d)) {
		rc = RECORDING_ERROR;
		goto fail_discard;
	}

	/* run 1: samples, and the count set where there are counters */
	struct sample_store store = { .d = d };
	struct collect_sample_sink sink = {
		.ctx = &store, .sample = store_sample, .mmap = store_mmap, .comm = store_comm, .event = store_event,
	};
	struct collect_sample_opts so = {
		.event = o.event, .freq = o.freq, .callchain = o.callgraph, .dwarf_stack = o.dwarf_stack,
		.user_only = o.user_only,
		.progress = sample_progress, .progress_ctx = o.argv[0],
	};
	struct collect_sample_stats sst;
	struct collect_result res;
	enum collect_status count_st = COLLECT_OK;
	char count_why[COLLECT_ERRLEN] = "";
	memset(&res, 0, sizeof res);
	memset(&sst, 0, sizeof sst);
	bool counting = table && !o.import_counts && plan.n;
	/* the counter groups read at every sample, for each region's own
	 * tree: --read-events as one group, else the TMA plan's groups */
	const struct collect_plan *read_groups = NULL;
	enum collect_status read_st = COLLECT_OK;
	char read_why[COLLECT_ERRLEN] = "";
	if (o.read_events) {
		char pfm_err[256];
		collect_pfm_init(pfm_err, sizeof pfm_err);	/* software events need no PMU */
		if (collect_plan_events(o.read_events, o.user_only, &read_plan, err, sizeof err)) {
			rec_error(rec_log, "--read-events: %s", err);
			rc = RECORDING_USAGE;
			goto fail_discard;
		}
		for (size_t i = 0; i < read_plan.n; i++)
			read_plan.ev[i].group = 0;
		read_plan.n_groups = 1;
		read_plan.each_alone = false;
		read_groups = &read_plan;
	} else if (counting && !o.no_region_counts) {
		read_groups = &plan;
	}
	so.read_groups = read_groups;
	so.read_status = &read_st;
	so.read_why = read_why;
	so.read_why_len = sizeof read_why;
	/* QEMU's run 2 reads what run 1 read (Intel PT's run 2 reads what run
	 * 1 left, as it always has: its one run is still to come) */
	struct collect_stdio run1_io = { -1, -1, -1 };
	if (o.tracer == RECORDING_TRACER_QEMU) {
		if (collect_input_prepare(&input, err, sizeof err))
			rec_warn(rec_log, "%s: run 1 reads the standard input directly, run 2 reads what is left of it",
				 err);
		run1_io.in = collect_input_first_fd(&input);
		say_runs_twice(&input, o.discard_trace_output);
		so.stdio = &run1_io;
	}
	/* Intel PT: samples, counts and the trace of one run */
	struct collect_pt_stats pst;
	enum collect_status pt_st = COLLECT_OK;
	char pt_why[COLLECT_ERRLEN] = "";
	memset(&pst, 0, sizeof pst);
	if (o.tracer == RECORDING_TRACER_PT) {
		o.pt.progress = NULL;
		so.pt = &o.pt;
		so.pt_data = d;
		so.pt_stats = &pst;
		so.pt_status = &pt_st;
		so.pt_why = pt_why;
		so.pt_why_len = sizeof pt_why;
	}
	progress(true, "running %s: samples%s%s", o.argv[0], counting ? ", TMA counts" : "",
		 o.tracer == RECORDING_TRACER_PT ? " and Intel PT" : "");
	/* the kernel's function names, wanted for kernel samples: /proc/kallsyms
	 * read on a thread at the lowest priority beside the program (it
	 * takes 80-90 ms, which run 1's end waited out when it started
	 * there), given up when no sample was the kernel's */
	if (!o.user_only)
		kallsyms_pending = collect_kallsyms_read_async("/proc/kallsyms");
	enum collect_status st = collect_sample_run(o.argv, &so, counting ? &plan : NULL, &cs, &count_st, count_why,
						    sizeof count_why, &sink, &sst, &res, err, sizeof err);
	collect_input_first_done(&input);
	if (sst.user_only || !store.n) {
		collect_kallsyms_async_free(kallsyms_pending);
		kallsyms_pending = NULL;
	}
	store_flush(&store);
	progress_end();
	if (store.failed[0]) {
		/* the run's data did not land (a full disk): nothing to trace
		 * from, and nothing kept that would look like a recording */
		rec_error(rec_log, "writing the first run's samples failed: %s; no recording was kept%s", store.failed,
			  gusdata_is_recording(o.output) ? " (the earlier one is untouched)" : "");
		rc = RECORDING_ERROR;
		goto fail_discard;
	}
	if (st != COLLECT_OK && !store.n) {
		/* nothing recorded: leave no file that looks like a recording */
		rec_error(rec_log, "%s", err);
		rc = rec_status(st, res.exec_errno);
		goto fail_discard;
	}
	if (st != COLLECT_OK) {
		rec_warn(rec_log, "%s", err);
		gusdata_set_meta(d, "missing.samples", err);
	}
	if (input.copy_errno)
		rec_warn(rec_log, "the copy of the standard input stops at %llu bytes (%s): run 2 reads only those",
			 (unsigned long long)input.copied, strerror(input.copy_errno));
	if (input.read_errno)
		rec_warn(rec_log, "reading the standard input failed after %llu bytes: %s",
			 (unsigned long long)input.copied, strerror(input.read_errno));
	bool write_failed = false;
	if (o.tracer == RECORDING_TRACER_PT)
		write_failed = pt_facts(d, &o, pt_st, pt_why, &pst, &res) != 0;
	if (read_groups)
		read_groups_facts(d, read_groups, read_st, read_why);
	else if (!o.import_counts)
		gusdata_set_meta(d, "missing.region_counts",
				 o.no_region_counts ? "--no-region-counts"
				 : counting	    ? "no counter groups to read at the samples"
						    : "no counters to read at the samples (missing.counts says why)");
	int status = collect_exit_code(res.wait_status);
	gusdata_set_meta_u64(d, "exit_status", (uint64_t)status);
	gusdata_set_meta_u64(d, "wait_status", (uint64_t)res.wait_status);
	gusdata_set_meta_u64(d, "seconds_x1000", (uint64_t)(res.seconds * 1000));
	if (res.interrupted)
		gusdata_set_meta(d, "interrupted", "yes");
	gusdata_set_meta(d, "sample.event", sst.event);
	if (o.user_only)
		gusdata_set_meta(d, "user_only", "yes");
	else if (sst.user_only) {
		/* the kernel refused kernel samples: its time is not in them */
		char why[160];
		snprintf(why, sizeof why, "perf_event_paranoid is %d: the kernel refuses kernel samples to this user, "
			 "and time in the kernel is not sampled", collect_perf_paranoid());
		gusdata_set_meta(d, "missing.kernel_samples", why);
	}
	gusdata_set_meta_u64(d, "sample.freq", o.freq);
	if (o.callgraph || o.dwarf_stack)
		gusdata_set_meta(d, "sample.call_graph", o.dwarf_stack ? "dwarf" : "fp");
	if (o.dwarf_stack)
		gusdata_set_meta_u64(d, "sample.stack_size", o.dwarf_stack);
	gusdata_set_meta_u64(d, "sample.count", store.n);
	if (sst.fallback[0])
		gusdata_set_meta(d, "sample.fallback", sst.fallback);
	if (sst.lost)
		gusdata_set_meta_u64(d, "sample.lost", sst.lost);
	bool landed = true;
	if (counting) {
		if (count_st == COLLECT_OK) {
			gusdata_set_meta(d, "counts.source", read_groups && read_st == COLLECT_OK && read_groups == &plan
									 ? "pmu (the groups read at the samples)" : "pmu");
			landed = !store_counts(d, &cs);
		} else {
			gusdata_set_meta(d, "missing.counts", count_why);
		}
	} else if (read_groups && read_st == COLLECT_OK && cs.n) {
		/* --read-events without a TMA set: their totals are the counts */
		gusdata_set_meta(d, "counts.source", "the groups read at the samples (--read-events)");
		landed = !store_counts(d, &cs);
	}

	/* the hot regions, from the samples */
	uint64_t total = 0;
	if (landed && gusdata_set_meta(d, "record.stage", "regions"))
		landed = false;
	if (!landed) {
		/* the facts of the first run did not land: a second run would be
		 * traced for a recording that cannot say what it holds */
		rec_error(rec_log, "writing the first run's results into %s failed: %s; no recording was kept%s",
			  gusdata_path(d), gusdata_errmsg(d),
			  gusdata_is_recording(o.output) ? " (the earlier one is untouched)" : "");
		rc = RECORDING_ERROR;
		goto fail_discard;
	}
	if (!store.n) {
		gusdata_set_meta(d, "missing.regions", "no samples: the program ran too briefly to be sampled");
	} else {
		progress(true, "finding the hot regions in %llu samples", (unsigned long long)store.n);
		if (find_hot_regions(d, m, o.hot, read_groups && read_st == COLLECT_OK ? read_groups : NULL, &regions,
				     &nregions, &total)) {
			rec_error(rec_log, "writing the hot regions into %s failed: %s; no recording was kept%s",
				  gusdata_path(d), gusdata_errmsg(d),
				  gusdata_is_recording(o.output) ? " (the earlier one is untouched)" : "");
			rc = RECORDING_ERROR;
			goto fail_discard;
		}
		if (!nregions)
			gusdata_set_meta(d, "missing.regions", "no sample fell in named code");
		if (rec_store_kernel_symbols(d, "/proc/kallsyms", 0, kallsyms_pending, rec_log)) {
			rec_error(rec_log, "writing the kernel's function names into %s failed: %s; no recording was "
				  "kept%s", gusdata_path(d), gusdata_errmsg(d),
				  gusdata_is_recording(o.output) ? " (the earlier one is untouched)" : "");
			rc = RECORDING_ERROR;
			goto fail_discard;
		}
		if (nregions && region_rows.n && store_imported_region_counts(d, &region_rows, o.import_counts)) {
			rec_error(rec_log, "writing the regions' imported counts into %s failed: %s; no recording was "
				  "kept%s", gusdata_path(d), gusdata_errmsg(d),
				  gusdata_is_recording(o.output) ? " (the earlier one is untouched)" : "");
			rc = RECORDING_ERROR;
			goto fail_discard;
		}
	}

	/* from here on the first run's data is kept whatever happens */
	if (o.spire)
		gusdata_set_meta(d, "record.stage", "spire");
	if (o.spire && res.interrupted)
		gusdata_set_meta(d, "missing.spire", "interrupted before the SPIRE run");
	else if (o.spire)
		spire_run(d, &o, &spick, spire_budget);

	/* run 2 (the QEMU tracer): the stream of the program's hot code;
	 * Intel PT traced run 1 */
	struct trace_plan tplan;
	bool trace_interrupted = false;
	plan_traces(regions, nregions, &tplan);
	size_t nranges = tplan.n;
	if (o.tracer == RECORDING_TRACER_PT)
		;
	else if (gusdata_set_meta(d, "record.stage", "tracing")) {
		rec_error(rec_log, "writing into %s failed: %s; no trace run (the first run's data is kept)",
			  gusdata_path(d), gusdata_errmsg(d));
		write_failed = true;
	} else if (res.interrupted)
		gusdata_set_meta(d, "missing.trace", "interrupted before the trace run");
	else if (o.tracer == RECORDING_TRACER_NONE)
		gusdata_set_meta(d, "missing.trace", "--no-trace: run 1 only");
	else if (!nranges)
		gusdata_set_meta(d, "missing.trace", nregions ? "no hot region in code that can be traced: the samples "
								"fell in the vDSO, anonymous (JIT) code or code "
								"without symbols or unwind tables"
							      : "no hot region to trace");
	else {
		bool reached[MAX_TRACE_RANGES] = { false };
		write_failed = trace_with_qemu(d, &o, &tplan, &input, &trace_interrupted, sum, reached) != 0;
		if (!write_failed && !trace_interrupted)
			write_failed = step_traces(d, &o, &tplan, reached, &input, sum, &trace_interrupted) != 0;
	}
	trace_plan_free(&tplan);

	/* done even after a failed write: what failed is said in missing.* */
	if (gusdata_set_meta(d, "record.stage", "done") || gusdata_set_meta(d, "record.complete", "yes")) {
		if (!write_failed)
			rec_error(rec_log, "writing into %s failed: %s", gusdata_path(d), gusdata_errmsg(d));
		write_failed = true;
	}
	bool spire_counted = o.spire && !gusdata_meta(d, "missing.spire");
	int finished = gusdata_finish(d, err, sizeof err);
	d = NULL;
	if (finished) {
		rec_error(rec_log, "%s", err);
		rc = RECORDING_ERROR;
		goto out;
	}
	sum->program_status = status;
	sum->samples = store.n;
	snprintf(sum->sample_event, sizeof sum->sample_event, "%s", sst.event);
	sum->regions = nregions;
	sum->counting = counting;
	sum->counted = counting && count_st == COLLECT_OK;
	sum->spire_counted = spire_counted;
	sum->write_failed = write_failed;
	sum->interrupted = res.interrupted;
	sum->trace_interrupted = trace_interrupted;
	rc = write_failed ? RECORDING_ERROR : RECORDING_OK;
	goto out;

fail_discard:
	gusdata_discard(d);	/* an earlier recording at o.output is untouched */
	d = NULL;
out:
	if (d)
		gusdata_close(d);
	collect_kallsyms_async_free(kallsyms_pending);
	collect_input_close(&input);
	free(regions);
	collect_plan_free(&plan);
	td_countset_free(&cs);
	td_region_rows_free(&region_rows);
	collect_plan_free(&read_plan);
	td_table_free(table);
	sim_machine_free(m);
	collect_pfm_fini();
	for (size_t i = 0; i < o.nfilters; i++)
		collect_pt_filter_free(&o.filters[i]);
	recording_spire_pick_free(&spick);
	rec_log = NULL;
	return rc;
}
