/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus import: a perf.data (perfdata.h) turned into a gus recording, the
 * same tables gus record's sampling run writes (samples, their mappings,
 * comms, the sideband's events, facts), then the hot regions ranked from
 * them as gus record ranks its own. Each object is taken only where it is
 * the one perf sampled: by its path when the build-id there is the one
 * the perf.data names, else from perf's build-id cache (~/.debug, what
 * perf archive packs); the others are said missing with their build-ids,
 * and their samples are named by path and file offset. The CPU is the
 * perf.data's (its cpuid feature), not this machine's. What the file
 * lacks (lost samples and AUX data, throttling, damage) is said in the
 * recording's missing.* facts, never guessed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef HAVE_ELFUTILS_DEBUGINFOD_H
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

#include "gusdata.h"
#include "merge.h"
#include "outpath.h"
#include "perfdata.h"
#include "rec_internal.h"
#include "sim.h"
#include "topdown.h"

bool recording_is_perf_data(const char *path)
{
	/* "-": a perf.data on the standard input (a gus.data never is) */
	return !strcmp(path, "-") || perfdata_is_perf_data(path);
}

/* the perf.data INPUT names: a file, or "-" the standard input (pipe
 * mode, as perf record -o - writes it) */
static int open_input(const char *input, struct perfdata **pd, char *err, size_t errlen)
{
	if (strcmp(input, "-"))
		return perfdata_open(input, -1, pd, err, errlen);
	int fd = dup(STDIN_FILENO);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "the standard input: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* a file given as the standard input is read as a file (either mode) */
	if (S_ISREG(st.st_mode))
		return perfdata_open("the standard input", fd, pd, err, errlen);
	return perfdata_open_stream(fd, "the standard input", pd, err, errlen);
}

/* how messages name INPUT */
static const char *input_shown(const char *input)
{
	return strcmp(input, "-") ? input : "the standard input";
}

/* how messages name INPUT's file (perf buildid-list -i ...) */
static const char *input_file_name(const char *input)
{
	if (!strcmp(input, "-"))
		return "perf.data";
	const char *s = strrchr(input, '/');
	return s ? s + 1 : input;
}

/* ------------------------------------------------------------ mappings --- */
struct mapping {
	struct gusdata_mmap m;		/* filename, build_id point into the strings below */
	char *file;			/* as perf named it */
	char bid[41];			/* from the MMAP2 record, "" none */
	bool has_inode;			/* an MMAP2 record's device and inode */
	uint32_t maj, min;
	uint64_t ino;
	size_t object;			/* index in objects */
};

struct object {
	char *file;			/* as perf named it */
	char bid[41];			/* the perf.data's build-id for it, "" none */
	const struct mapping *first;	/* its first mapping (device and inode) */
	char *local;			/* where it is here; NULL: not here */
	const char *how;		/* "by path", "from the build-id cache", "by path, unverified"... */
	const char *why_not;		/* not here: why, when not said by its build-id */
	bool pseudo;			/* [vdso], anonymous code: nothing to find */
	uint64_t samples;		/* user samples in it */
};

/* counter groups read at the samples (below) */
#define READ_GROUP_MAX 64	/* events in a group gus takes */
#define READ_GROUPS_MAX 64

struct read_group {
	size_t n;
	size_t attr[READ_GROUP_MAX];	/* the attribute of each value */
};

/* a counter's last reading: KEY its id (the event's attribute, thread
 * and CPU where the file has no ids), SLOT its place in GROUP
 * (READ_GROUP_MAX: the group's enabled and running times) */
struct counter {
	uint64_t id;
	uint32_t attr, tid, cpu;
	uint32_t group, slot;
	uint64_t value, enabled, running;
	bool used;
};

struct reads {
	struct read_group group[READ_GROUPS_MAX];
	size_t ngroups;
	struct counter *tab;
	size_t cap, n;
	uint64_t samples;		/* stored in sample_reads */
	uint64_t ignored;		/* not read: --import-counts gives the counts */
	bool times;			/* the reads carry enabled and running times */
	bool dropped_group;		/* a group beyond the limits, left out */
	double delta[READ_GROUP_MAX];
};

/* Intel PT (below): AUXTRACE_INFO's facts, and each buffer's flags for
 * its next chunk */
#define PT_PRIV 17		/* INTEL_PT_AUXTRACE_PRIV_MAX of perf's intel-pt.h */
#define PT_BUFFERS 1024

struct pt_buffer {
	int cpu, tid;
	uint32_t flags;		/* GUSDATA_CHUNK_* for its next chunk */
};

struct pt_import {
	bool intel_pt;			/* an AUXTRACE_INFO of Intel PT */
	uint64_t priv[PT_PRIV];
	size_t npriv;
	bool time_conv;			/* a TIME_CONV record */
	uint64_t time_shift, time_mult, time_zero;
	uint64_t chunks, bytes, other_bytes;	/* stored; of another tracer */
	struct pt_buffer buf[PT_BUFFERS];
	size_t nbuf;
	bool too_many_buffers;
	struct ipt_packet_counts packets;
	bool packets_failed;
};

/* debuginfod (below): its client, loaded once where an object is missing */
struct debuginfod_use {
	bool tried;
	void *lib, *client;
	int (*find)(void *client, const unsigned char *id, int len, char **path);
	void (*end)(void *client);
	char why_not[256];	/* why no server was asked, "" when one was */
	size_t asked, found;
	char first_error[256];
};

struct import {
	const struct recording_import_request *rq;
	struct perfdata *pd;
	struct gusdata *d;
	/* the event whose samples are imported, by index: pipe mode's
	 * HEADER_ATTR records may move the attributes */
	long sampled_index;
	bool chosen;
	uint64_t samples, pending, other_samples, kernel_samples;
	/* the kernel's map record ("[kernel.kallsyms]_text"): where perf saw
	 * its reference symbol, which tells this boot's layout from another */
	uint64_t kernel_ref;
	bool have_kernel_ref;
	struct mapping *maps;
	size_t nmaps, capmaps;
	struct object *objs;
	size_t nobjs;
	uint64_t *chain;
	bool failed;
	char err[1024];
	char damage[1100];
	struct td_region_rows rows;	/* --import-counts per region */
	bool counted;			/* --import-counts landed */
	struct reads reads;		/* counter groups read at the samples */
	struct pt_import pt;		/* Intel PT */
	struct debuginfod_use dbg;	/* objects asked of debuginfod */
};

static void import_fail(struct import *im, const char *what)
{
	if (!im->failed)
		snprintf(im->err, sizeof im->err, "%s: %s: %s", gusdata_path(im->d), what, gusdata_errmsg(im->d));
	im->failed = true;
}

static const char *hex_build_id(const uint8_t *id, size_t n, char *hex)
{
	hex[0] = 0;
	for (size_t i = 0; i < n && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

static int keep_mapping(struct import *im, const struct perfdata_record *r)
{
	const struct perfdata_mmap *mm = &r->u.mmap;
	uint16_t mode = r->misc & PERFDATA_MISC_CPUMODE_MASK;
	if (mode == PERFDATA_MISC_KERNEL && !strncmp(mm->filename, "[kernel.kallsyms]", 17) && !im->have_kernel_ref) {
		im->kernel_ref = mm->pgoff;
		im->have_kernel_ref = true;
	}
	/* code of user space: the kernel's own maps and data maps are not
	 * where gus's regions are */
	if (mode == PERFDATA_MISC_KERNEL || mode == PERFDATA_MISC_GUEST_KERNEL || !(mm->prot & PROT_EXEC))
		return 0;
	if (im->nmaps == im->capmaps) {
		size_t cap = im->capmaps ? 2 * im->capmaps : 256;
		struct mapping *v = realloc(im->maps, cap * sizeof *v);
		if (!v)
			return -1;
		im->maps = v;
		im->capmaps = cap;
	}
	struct mapping *m = &im->maps[im->nmaps];
	memset(m, 0, sizeof *m);
	if (!(m->file = strdup(mm->filename)))
		return -1;
	if (mm->build_id_size)
		hex_build_id(mm->build_id, mm->build_id_size, m->bid);
	else if (mm->mmap2 && (mm->maj || mm->min || mm->ino)) {
		m->has_inode = true;
		m->maj = mm->maj;
		m->min = mm->min;
		m->ino = mm->ino;
	}
	m->m = (struct gusdata_mmap){ .time = r->where.time, .pid = (int)mm->pid, .tid = (int)mm->tid,
				      .start = mm->start, .len = mm->len, .pgoff = mm->pgoff, .prot = mm->prot,
				      .flags = mm->flags };
	im->nmaps++;
	return 0;
}

static int store_sample(struct import *im, const struct perfdata_record *r)
{
	const struct perfdata_sample *s = &r->u.sample;
	uint16_t mode = r->misc & PERFDATA_MISC_CPUMODE_MASK;
	struct gusdata_sample g = {
		.time = r->where.time, .cpu = r->where.has_cpu ? (int)r->where.cpu : -1,
		.pid = r->where.has_tid ? (int)r->where.pid : -1, .tid = r->where.has_tid ? (int)r->where.tid : -1,
		.ip = s->ip, .period = s->period ? s->period : 1,
		.user = mode == PERFDATA_MISC_USER || mode == PERFDATA_MISC_GUEST_USER,
		/* perf record --call-graph dwarf: unwound by gus report */
		.regs_abi = s->regs_abi, .regs_mask = s->regs_mask, .regs = s->regs, .nregs = s->nregs,
		.stack = s->stack, .nstack = s->nstack,
	};
	/* the chain as gus record stores it: the ip first, then the
	 * frames, without the kernel's context markers */
	if (s->ncallchain) {
		size_t n = 0;
		for (size_t i = 0; i < s->ncallchain; i++)
			if (s->callchain[i] < PERFDATA_CONTEXT_MAX)
				im->chain[n++] = s->callchain[i];
		if (!n || im->chain[0] != s->ip) {
			memmove(im->chain + 1, im->chain, n * sizeof *im->chain);
			im->chain[0] = s->ip;
			n++;
		}
		g.callchain = im->chain;
		g.ncallchain = n;
	}
	im->kernel_samples += !g.user;
	if (!im->pending && gusdata_begin(im->d))
		return import_fail(im, "the samples cannot be stored"), -1;
	if (gusdata_add_sample(im->d, &g))
		return import_fail(im, "the samples cannot be stored"), -1;
	im->samples++;
	if (++im->pending >= 2048) {
		im->pending = 0;
		if (gusdata_commit(im->d))
			return import_fail(im, "the samples cannot be stored"), -1;
	}
	return 0;
}

/* ------------------------------------- counter groups read at samples --- */
/* A sample of an event with PERF_SAMPLE_READ carries its group's values
 * (PERF_FORMAT_GROUP: the leader's first, then the members', each with its
 * id) as the counters stood then. As gus record stores its own group
 * reads, each such sample lands in sample_reads with the deltas since the
 * previous sample of the same counter (the same id: one event on one CPU
 * or thread, as perf report --group takes them), and the whole run's
 * count set is each counter's last value. The groups are told apart by
 * the events of their values, in order. */
static uint64_t counter_hash(const struct counter *k)
{
	uint64_t h = k->id * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k->attr << 40 | (uint64_t)k->slot << 32) ^
		     ((uint64_t)k->tid << 12 | k->cpu);
	h ^= h >> 29;
	return h * 0xbf58476d1ce4e5b9ull;
}

static bool counter_same(const struct counter *a, const struct counter *b)
{
	return a->id == b->id && a->attr == b->attr && a->tid == b->tid && a->cpu == b->cpu && a->slot == b->slot &&
	       a->group == b->group;
}

/* the counter K in the table (added at 0 when new); NULL out of memory */
static struct counter *counter_of(struct reads *rd, const struct counter *k)
{
	if ((rd->n + 1) * 2 > rd->cap) {
		size_t cap = rd->cap ? 2 * rd->cap : 256;
		struct counter *t = calloc(cap, sizeof *t);
		if (!t)
			return NULL;
		for (size_t i = 0; i < rd->cap; i++) {
			if (!rd->tab[i].used)
				continue;
			size_t j = counter_hash(&rd->tab[i]) & (cap - 1);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = rd->tab[i];
		}
		free(rd->tab);
		rd->tab = t;
		rd->cap = cap;
	}
	size_t j = counter_hash(k) & (rd->cap - 1);
	while (rd->tab[j].used && !counter_same(&rd->tab[j], k))
		j = (j + 1) & (rd->cap - 1);
	if (!rd->tab[j].used) {
		rd->tab[j] = *k;
		rd->tab[j].value = rd->tab[j].enabled = rd->tab[j].running = 0;
		rd->tab[j].used = true;
		rd->n++;
	}
	return &rd->tab[j];
}

/* the group of a read of N values of attributes ATTR, added when new; -1
 * beyond the limits */
static long read_group_of(struct reads *rd, const size_t *attr, size_t n)
{
	for (size_t g = 0; g < rd->ngroups; g++)
		if (rd->group[g].n == n && !memcmp(rd->group[g].attr, attr, n * sizeof *attr))
			return (long)g;
	if (rd->ngroups == READ_GROUPS_MAX || n > READ_GROUP_MAX || !n)
		return -1;
	struct read_group *g = &rd->group[rd->ngroups];
	g->n = n;
	memcpy(g->attr, attr, n * sizeof *attr);
	return (long)rd->ngroups++;
}

/* the delta of a counter since its last reading, which V becomes (a
 * counter read lower than before was reset: V is its delta) */
static uint64_t advance(uint64_t *last, uint64_t v)
{
	uint64_t d = v >= *last ? v - *last : v;
	*last = v;
	return d;
}

static int store_read(struct import *im, const struct perfdata_record *r)
{
	const struct perfdata_sample *s = &r->u.sample;
	const struct perfdata_info *in = perfdata_info(im->pd);
	struct reads *rd = &im->reads;
	size_t attr[READ_GROUP_MAX];
	if (!s->nread || s->nread > READ_GROUP_MAX) {
		rd->dropped_group |= s->nread > 0;
		return 0;
	}
	/* each value's event: by its id, else (no ids) the group's events
	 * in the order of the attributes from the sampled one */
	size_t self = (size_t)(r->attr - in->attrs);
	for (size_t k = 0; k < s->nread; k++) {
		const struct perfdata_attr *a = s->read_ids[k] ? perfdata_attr_of_id(im->pd, s->read_ids[k]) : NULL;
		if (a)
			attr[k] = (size_t)(a - in->attrs);
		else if (!s->read_ids[k] && self + k < in->nattrs)
			attr[k] = self + k;
		else
			return 0;	/* a value of no event the header has */
	}
	long g = read_group_of(rd, attr, s->nread);
	if (g < 0) {
		rd->dropped_group = true;
		return 0;
	}
	uint32_t tid = r->where.has_tid ? r->where.tid : 0, cpu = r->where.has_cpu ? r->where.cpu : 0;
	struct counter *c;
	for (size_t k = 0; k < s->nread; k++) {
		struct counter key = { .id = s->read_ids[k], .attr = (uint32_t)attr[k], .group = (uint32_t)g,
				       .slot = (uint32_t)k };
		if (!key.id)
			key.tid = tid, key.cpu = cpu;
		if (!(c = counter_of(rd, &key)))
			return import_fail(im, "out of memory"), -1;
		rd->delta[k] = (double)advance(&c->value, s->read_values[k]);
	}
	/* the group's times: the first value's counter's */
	struct counter key = { .id = s->read_ids[0], .attr = (uint32_t)attr[0], .group = (uint32_t)g,
			       .slot = READ_GROUP_MAX };
	if (!key.id)
		key.tid = tid, key.cpu = cpu;
	if (!(c = counter_of(rd, &key)))
		return import_fail(im, "out of memory"), -1;
	const uint64_t want = PERFDATA_FORMAT_TOTAL_TIME_ENABLED | PERFDATA_FORMAT_TOTAL_TIME_RUNNING;
	bool times = (r->attr->read_format & want) == want;
	rd->times |= times;
	uint16_t mode = r->misc & PERFDATA_MISC_CPUMODE_MASK;
	struct gusdata_sample gs = {
		.time = r->where.time, .cpu = r->where.has_cpu ? (int)r->where.cpu : -1,
		.pid = r->where.has_tid ? (int)r->where.pid : -1, .tid = r->where.has_tid ? (int)r->where.tid : -1,
		.ip = s->ip, .user = mode == PERFDATA_MISC_USER || mode == PERFDATA_MISC_GUEST_USER,
		.read_group = (int)g, .read = rd->delta, .nread = s->nread,
		/* without times (perf record asks for none) a read stands for
		 * the same time as any other: the groups are taken as counted
		 * all along, not multiplexed */
		.read_enabled = times ? (double)advance(&c->enabled, s->time_enabled) : 1,
		.read_running = times ? (double)advance(&c->running, s->time_running) : 1,
	};
	if (!im->pending && gusdata_begin(im->d))
		return import_fail(im, "the samples cannot be stored"), -1;
	if (gusdata_add_sample_read(im->d, &gs))
		return import_fail(im, "the samples cannot be stored"), -1;
	rd->samples++;
	if (++im->pending >= 2048) {
		im->pending = 0;
		if (gusdata_commit(im->d))
			return import_fail(im, "the samples cannot be stored"), -1;
	}
	return 0;
}

/* the name the count set gives attribute A: the TMA table's for the event
 * where the table knows it (by perf's name, or by its encoding: a generic
 * hardware event's name, a raw config of the core PMU), else perf's */
static void counted_name(const struct import *im, const struct td_table *t, const struct perfdata_attr *a,
			 char *out, size_t n)
{
	snprintf(out, n, "%s", a->name);
	if (!t)
		return;
	int i = td_table_find_event(t, a->name);
	static const char *const generic[] = { "cycles", "instructions", "cache-references", "cache-misses",
					       "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
					       "stalled-cycles-backend", "ref-cycles" };
	char enc[64];
	long cpu_pmu = perfdata_pmu_type(im->pd, "cpu"), core_pmu = perfdata_pmu_type(im->pd, "cpu_core");
	if (i < 0 && a->type == PERFDATA_TYPE_HARDWARE && a->config < sizeof generic / sizeof *generic)
		i = td_table_find_event(t, generic[a->config]);
	if (i < 0 && (a->type == PERFDATA_TYPE_RAW || (cpu_pmu >= 0 && a->type == (uint32_t)cpu_pmu) ||
		      (core_pmu >= 0 && a->type == (uint32_t)core_pmu))) {
		snprintf(enc, sizeof enc, "r%llx", (unsigned long long)a->config);
		i = td_table_find_event(t, enc);
	}
	if (i >= 0)
		snprintf(out, n, "%s", t->events[i].name);
}

/* The groups as gus record's plan of read groups (each value's event
 * named for the count set), and the whole run's count set: each event's
 * counters at their last reading, added up (an event in several groups
 * counted in its first). -1 out of memory or on a write error. */
static int store_read_groups(struct import *im, const struct td_table *t, struct collect_plan *plan)
{
	struct reads *rd = &im->reads;
	const struct perfdata_info *in = perfdata_info(im->pd);
	memset(plan, 0, sizeof *plan);
	size_t total = 0;
	for (size_t g = 0; g < rd->ngroups; g++)
		total += rd->group[g].n;
	if (!total)
		return 0;
	if (!(plan->ev = calloc(total, sizeof *plan->ev)))
		return -1;
	double *value = calloc(total, sizeof *value), *enabled = calloc(rd->ngroups, sizeof *enabled),
	       *running = calloc(rd->ngroups, sizeof *running);
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	int rc = -1;
	if (!value || !enabled || !running || !f)
		goto out;
	for (size_t g = 0, k = 0; g < rd->ngroups; g++)
		for (size_t e = 0; e < rd->group[g].n; e++, k++) {
			char name[160];
			counted_name(im, t, &in->attrs[rd->group[g].attr[e]], name, sizeof name);
			if (!(plan->ev[k].name = strdup(name)))
				goto out;
			plan->ev[k].group = (int)g;
			plan->n++;
			fprintf(f, "%s%s", e ? "," : g ? "\n" : "", name);
		}
	plan->n_groups = (int)rd->ngroups;
	/* each counter's last reading */
	for (size_t i = 0; i < rd->cap; i++) {
		const struct counter *c = &rd->tab[i];
		if (!c->used)
			continue;
		if (c->slot == READ_GROUP_MAX) {
			enabled[c->group] += (double)c->enabled;
			running[c->group] += (double)c->running;
			continue;
		}
		size_t k = c->slot;
		for (size_t g = 0; g < c->group; g++)
			k += rd->group[g].n;
		value[k] += (double)c->value;
	}
	if (fclose(f)) {
		f = NULL;
		goto out;
	}
	f = NULL;
	if (gusdata_begin(im->d))
		goto out;
	for (size_t k = 0; k < plan->n; k++) {
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(plan->ev[j].name, plan->ev[k].name);
		size_t g = (size_t)plan->ev[k].group;
		struct gusdata_count c = { .event = plan->ev[k].name, .value = value[k],
					   .enabled = rd->times ? enabled[g] : 1, .running = rd->times ? running[g] : 1 };
		if (!seen && gusdata_add_count(im->d, &c)) {
			gusdata_commit(im->d);
			goto out;
		}
	}
	if (gusdata_commit(im->d))
		goto out;
	gusdata_set_meta(im->d, "sample.read_groups", list);
	gusdata_set_meta(im->d, "counts.source", rd->times ? "the perf.data's groups read at the samples"
							   : "the perf.data's groups read at the samples (without "
							     "enabled and running times: taken as not multiplexed)");
	rc = 0;
out:
	if (f)
		fclose(f);
	free(list);
	free(value);
	free(enabled);
	free(running);
	if (rc)
		collect_plan_free(plan);
	return rc;
}

/* -------------------------------------------------------------- Intel PT --- */
/* perf's auxtrace type of Intel PT, and the fields of its AUXTRACE_INFO
 * (perf's tools/perf/util/intel-pt.h) */
#define AUXTRACE_INTEL_PT 1
enum {
	PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO, PT_CAP_USER_TIME_ZERO, PT_TSC_BIT,
	PT_NORETCOMP_BIT, PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE, PT_PER_CPU_MMAPS, PT_MTC_BIT,
	PT_MTC_FREQ_BITS, PT_TSC_CTC_N, PT_TSC_CTC_D, PT_CYC_BIT, PT_MAX_NONTURBO_RATIO,
};

static bool pt_priv(const struct pt_import *pt, size_t i, uint64_t *v)
{
	if (i >= pt->npriv)
		return false;
	*v = pt->priv[i];
	return true;
}

/* the buffer of a per-CPU (TID -1) or per-thread (CPU -1) trace; NULL
 * beyond PT_BUFFERS */
static struct pt_buffer *pt_buffer(struct pt_import *pt, int cpu, int tid)
{
	for (size_t i = 0; i < pt->nbuf; i++)
		if (pt->buf[i].cpu == cpu && pt->buf[i].tid == tid)
			return &pt->buf[i];
	if (pt->nbuf == PT_BUFFERS) {
		pt->too_many_buffers = true;
		return NULL;
	}
	pt->buf[pt->nbuf] = (struct pt_buffer){ .cpu = cpu, .tid = tid };
	return &pt->buf[pt->nbuf++];
}

static bool pt_per_cpu(const struct pt_import *pt, uint32_t cpu, uint32_t tid)
{
	uint64_t v;
	if (pt_priv(pt, PT_PER_CPU_MMAPS, &v))
		return v != 0;
	return tid == UINT32_MAX && cpu != UINT32_MAX;
}

/* an AUXTRACE record's trace as gus record stores its own: a chunk of its
 * buffer, at its offset in the AUX area's stream */
static int pt_chunk(struct import *im, const struct perfdata_record *r)
{
	struct pt_import *pt = &im->pt;
	if (!pt->intel_pt) {
		pt->other_bytes += r->u.auxtrace.size;
		return 0;
	}
	bool per_cpu = pt_per_cpu(pt, r->u.auxtrace.cpu, r->u.auxtrace.tid);
	int cpu = per_cpu ? (int)r->u.auxtrace.cpu : -1, tid = per_cpu ? -1 : (int)r->u.auxtrace.tid;
	struct pt_buffer *b = pt_buffer(pt, cpu, tid);
	if (!b)
		return 0;
	uint64_t snapshot = 0;
	struct gusdata_chunk c = { .cpu = cpu, .tid = tid, .aux_offset = r->u.auxtrace.offset, .flags = b->flags,
				   .data = r->u.auxtrace.data, .size = (size_t)r->u.auxtrace.size };
	/* each snapshot is a piece of its own */
	if (pt_priv(pt, PT_SNAPSHOT_MODE, &snapshot) && snapshot)
		c.flags |= GUSDATA_CHUNK_OVERWRITE;
	b->flags = 0;
	char err[256];
	if (!pt->packets_failed &&
	    ipt_count_packets(r->u.auxtrace.data, (size_t)r->u.auxtrace.size, &pt->packets, err, sizeof err))
		pt->packets_failed = true;
	if (!im->pending && gusdata_begin(im->d))
		return import_fail(im, "the trace cannot be stored"), -1;
	if (gusdata_add_chunk(im->d, &c))
		return import_fail(im, "the trace cannot be stored"), -1;
	pt->chunks++;
	pt->bytes += c.size;
	if (++im->pending >= 2048) {
		im->pending = 0;
		if (gusdata_commit(im->d))
			return import_fail(im, "the trace cannot be stored"), -1;
	}
	return 0;
}

/* an AUX record that says data was lost (truncated, collided, partial):
 * its buffer's next chunk is decoded after a gap */
static void pt_lost(struct import *im, const struct perfdata_record *r)
{
	struct pt_import *pt = &im->pt;
	uint64_t f = r->u.aux.flags;
	if (!(f & (PERFDATA_AUX_FLAG_TRUNCATED | PERFDATA_AUX_FLAG_COLLISION | PERFDATA_AUX_FLAG_PARTIAL)))
		return;
	const struct perfdata_where *w = &r->where;
	bool per_cpu = pt_per_cpu(pt, w->has_cpu ? w->cpu : UINT32_MAX, w->has_tid ? UINT32_MAX : 0);
	struct pt_buffer *b = per_cpu && w->has_cpu ? pt_buffer(pt, (int)w->cpu, -1)
			      : !per_cpu && w->has_tid ? pt_buffer(pt, -1, (int)w->tid) : NULL;
	if (b)
		b->flags |= (f & PERFDATA_AUX_FLAG_TRUNCATED) ? GUSDATA_CHUNK_TRUNCATED : GUSDATA_CHUNK_LOST_BEFORE;
}

static unsigned lowest_bit(uint64_t v)
{
	unsigned k = 0;
	while (v && !(v & 1)) {
		v >>= 1;
		k++;
	}
	return k;
}

/* The facts ipt_decode_recording and the report read of a PT recording
 * (pt.c's pt.* keys), from AUXTRACE_INFO and TIME_CONV; the mappings of
 * the run as the trace's image, each naming the file found here and the
 * build-id it must have. */
static int store_pt(struct import *im)
{
	struct pt_import *pt = &im->pt;
	struct gusdata *d = im->d;
	uint64_t v;
	gusdata_set_meta(d, "tracer", "pt");
	gusdata_set_meta_u64(d, "trace.pt_bytes", pt->bytes);
	gusdata_set_meta_u64(d, "pt.aux_bytes", pt->bytes);
	gusdata_set_meta_u64(d, "pt.aux_records", pt->chunks);
	/* PT holds the whole run: the report cuts it into gus record's windows */
	gusdata_set_meta_u64(d, "trace.window_records", 5000);
	gusdata_set_meta_u64(d, "trace.windows_per_level", 32);
	gusdata_set_meta(d, "pt.mode", pt_priv(pt, PT_SNAPSHOT_MODE, &v) && v ? "snapshot" : "full");
	if (pt->time_conv) {
		gusdata_set_meta_u64(d, "pt.time_shift", pt->time_shift);
		gusdata_set_meta_u64(d, "pt.time_mult", pt->time_mult);
		gusdata_set_meta_u64(d, "pt.time_zero", pt->time_zero);
		gusdata_set_meta_u64(d, "pt.cap_user_time_zero", pt->time_mult != 0);
	} else if (pt_priv(pt, PT_CAP_USER_TIME_ZERO, &v)) {
		uint64_t shift = 0, mult = 0, zero = 0;
		pt_priv(pt, PT_TIME_SHIFT, &shift);
		pt_priv(pt, PT_TIME_MULT, &mult);
		pt_priv(pt, PT_TIME_ZERO, &zero);
		gusdata_set_meta_u64(d, "pt.time_shift", shift);
		gusdata_set_meta_u64(d, "pt.time_mult", mult);
		gusdata_set_meta_u64(d, "pt.time_zero", zero);
		gusdata_set_meta_u64(d, "pt.cap_user_time_zero", v != 0);
	}
	if (pt_priv(pt, PT_MAX_NONTURBO_RATIO, &v) && v)
		gusdata_set_meta_u64(d, "pt.nom_freq", v);
	uint64_t n = 0, dd = 0;
	if (pt_priv(pt, PT_TSC_CTC_N, &n) && pt_priv(pt, PT_TSC_CTC_D, &dd) && n && dd) {
		gusdata_set_meta_u64(d, "pt.cpuid_15_eax", dd);
		gusdata_set_meta_u64(d, "pt.cpuid_15_ebx", n);
	}
	/* the MTC period of the intel_pt event's config, where MTC is on */
	const struct perfdata_info *in = perfdata_info(im->pd);
	uint64_t type = 0, mtc_bit = 0, mtc_bits = 0;
	if (pt_priv(pt, PT_PMU_TYPE, &type) && pt_priv(pt, PT_MTC_BIT, &mtc_bit) &&
	    pt_priv(pt, PT_MTC_FREQ_BITS, &mtc_bits) && mtc_bits)
		for (size_t i = 0; i < in->nattrs; i++) {
			const struct perfdata_attr *a = &in->attrs[i];
			if (a->type != type)
				continue;
			char cfg[32];
			snprintf(cfg, sizeof cfg, "0x%llx", (unsigned long long)a->config);
			gusdata_set_meta(d, "pt.config", cfg);
			gusdata_set_meta_u64(d, "pt.type", type);
			if (a->config & mtc_bit)
				gusdata_set_meta_u64(d, "pt.mtc_freq", (a->config & mtc_bits) >> lowest_bit(mtc_bits));
			break;
		}
	if (pt->packets.by_kind[IPT_PKT_OVF])
		gusdata_set_meta_u64(d, "pt.overflows", pt->packets.by_kind[IPT_PKT_OVF]);
	/* the mappings: the objects found here, the others by their path
	 * and the build-id they must have (a file there that has another is
	 * not decoded through) */
	if (gusdata_begin(d))
		return -1;
	for (size_t i = 0; i < im->nmaps; i++)
		if (gusdata_add_mmap(d, &im->maps[i].m)) {
			gusdata_commit(d);
			return -1;
		}
	return gusdata_commit(d);
}

/* the event whose samples gus takes: the first that samples code (not
 * Intel PT's, not a dummy event for the sideband) */
static bool samples_code(const struct perfdata *pd, const struct perfdata_attr *a)
{
	long pt = perfdata_pmu_type(pd, "intel_pt");
	if ((pt >= 0 && a->type == (uint32_t)pt) || (a->type == PERFDATA_TYPE_SOFTWARE && a->config == 9))
		return false;
	return (a->sample_type & PERFDATA_SAMPLE_IP) && a->sample_period;
}

static const struct perfdata_attr *sampled_attr(const struct import *im)
{
	const struct perfdata_info *in = perfdata_info(im->pd);
	return im->sampled_index >= 0 && (size_t)im->sampled_index < in->nattrs ? &in->attrs[im->sampled_index] : NULL;
}

static int event(struct import *im, const struct perfdata_record *r, const char *kind, int pid, int tid, uint64_t a,
		 uint64_t b)
{
	const struct perfdata_where *w = &r->where;
	if (gusdata_add_event(im->d, w->time, w->has_cpu ? (int)w->cpu : -1, pid, tid, kind, a, b))
		return import_fail(im, "the sideband cannot be stored"), -1;
	return 0;
}

static int take_record(struct import *im, const struct perfdata_record *r)
{
	const struct perfdata_where *w = &r->where;
	int pid = w->has_tid ? (int)w->pid : -1, tid = w->has_tid ? (int)w->tid : -1;
	switch (r->type) {
	case PERFDATA_SAMPLE:
		if (!r->attr)
			return 0;
		if (!im->chosen) {
			const struct perfdata_info *in = perfdata_info(im->pd);
			for (size_t i = 0; i < in->nattrs && im->sampled_index < 0; i++)
				if (samples_code(im->pd, &in->attrs[i]))
					im->sampled_index = (long)i;
			im->chosen = true;
		}
		/* the groups read at it, whichever event it is of (--import-counts
		 * gives the counts instead) */
		if (r->u.sample.nread && im->rq->import_counts)
			im->reads.ignored++;
		else if (r->u.sample.nread && store_read(im, r))
			return -1;
		if (r->attr != sampled_attr(im)) {
			im->other_samples++;
			return 0;
		}
		return store_sample(im, r);
	case PERFDATA_MMAP:
	case PERFDATA_MMAP2:
		return keep_mapping(im, r) ? (import_fail(im, "out of memory"), -1) : 0;
	case PERFDATA_COMM:
		if (gusdata_add_comm(im->d, w->time, (int)r->u.comm.pid, (int)r->u.comm.tid, r->u.comm.comm,
				     r->u.comm.exec))
			return import_fail(im, "the comms cannot be stored"), -1;
		return 0;
	case PERFDATA_FORK:
	case PERFDATA_EXIT:
		return event(im, r, r->type == PERFDATA_FORK ? "fork" : "exit", (int)r->u.task.pid, (int)r->u.task.tid,
			     r->u.task.ppid, r->u.task.ptid);
	case PERFDATA_LOST:
		return event(im, r, "lost", pid, tid, r->u.lost.lost, r->u.lost.id);
	case PERFDATA_LOST_SAMPLES:
		return event(im, r, "lost-samples", pid, tid, r->u.lost_samples, 0);
	case PERFDATA_THROTTLE:
	case PERFDATA_UNTHROTTLE:
		return event(im, r, r->type == PERFDATA_THROTTLE ? "throttle" : "unthrottle", pid, tid, r->u.throttle.id,
			     0);
	case PERFDATA_ITRACE_START:
		return event(im, r, "itrace-start", (int)r->u.itrace_start.pid, (int)r->u.itrace_start.tid, 0, 0);
	case PERFDATA_SWITCH:
	case PERFDATA_SWITCH_CPU_WIDE:
		return event(im, r, r->u.sw.out ? "switch-out" : "switch-in", pid, tid, r->u.sw.preempt,
			     r->u.sw.next_prev_tid);
	case PERFDATA_AUXTRACE_INFO:
		if (r->u.auxtrace_info.type == AUXTRACE_INTEL_PT && !im->pt.intel_pt) {
			im->pt.intel_pt = true;
			im->pt.npriv = r->u.auxtrace_info.npriv < PT_PRIV ? r->u.auxtrace_info.npriv : PT_PRIV;
			memcpy(im->pt.priv, r->u.auxtrace_info.priv, im->pt.npriv * sizeof *im->pt.priv);
		}
		return 0;
	case PERFDATA_TIME_CONV:
		if (r->u.time_conv.time_mult) {
			im->pt.time_conv = true;
			im->pt.time_shift = r->u.time_conv.time_shift;
			im->pt.time_mult = r->u.time_conv.time_mult;
			im->pt.time_zero = r->u.time_conv.time_zero;
		}
		return 0;
	case PERFDATA_AUXTRACE:
		return pt_chunk(im, r);
	case PERFDATA_AUX:
		pt_lost(im, r);
		if (r->u.aux.flags & PERFDATA_AUX_FLAG_TRUNCATED)
			return event(im, r, "aux-truncated", pid, tid, r->u.aux.size, r->u.aux.offset);
		if (r->u.aux.flags & PERFDATA_AUX_FLAG_PARTIAL)
			return event(im, r, "aux-partial", pid, tid, r->u.aux.size, r->u.aux.offset);
		if (r->u.aux.flags & PERFDATA_AUX_FLAG_COLLISION)
			return event(im, r, "aux-collision", pid, tid, r->u.aux.size, r->u.aux.offset);
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------- objects --- */
/* whether PATH is an ELF file whose build-id starts with BID */
static bool has_build_id(const char *path, const char *bid)
{
	char now[129], err[512];
	return !merge_elf_build_id(path, now, sizeof now, err, sizeof err) && !strncmp(now, bid, strlen(bid));
}

/* The debuginfod servers of DEBUGINFOD_URLS, asked for an object by its
 * build-id through elfutils' client (libdebuginfod, as libdw uses it:
 * loaded at run time, so that gus runs where it is not installed); the
 * file it gives lands in the client's cache and is taken when its
 * build-id is the one asked for. What could not be asked, or was not
 * there, is said with the missing objects. */
static void debuginfod_setup(struct debuginfod_use *u)
{
	u->tried = true;
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[strspn(urls, " \t")]) {
		snprintf(u->why_not, sizeof u->why_not, "DEBUGINFOD_URLS is not set: no debuginfod server was asked");
		return;
	}
#ifdef HAVE_ELFUTILS_DEBUGINFOD_H
	void *(*begin)(void) = NULL;
	if (!(u->lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL))) {
		snprintf(u->why_not, sizeof u->why_not, "DEBUGINFOD_URLS is set, but elfutils' debuginfod client "
			 "(libdebuginfod.so.1) cannot be loaded: no server was asked");
		return;
	}
	*(void **)&begin = dlsym(u->lib, "debuginfod_begin");
	*(void **)&u->find = dlsym(u->lib, "debuginfod_find_executable");
	*(void **)&u->end = dlsym(u->lib, "debuginfod_end");
	if (!begin || !u->find || !u->end || !(u->client = begin())) {
		snprintf(u->why_not, sizeof u->why_not, "DEBUGINFOD_URLS is set, but elfutils' debuginfod client could not "
			 "be set up: no server was asked");
		u->client = NULL;
	}
#else
	snprintf(u->why_not, sizeof u->why_not, "DEBUGINFOD_URLS is set, but this gus was built without debuginfod "
		 "(elfutils' libdebuginfod-dev): no server was asked");
#endif
}

static void ask_debuginfod(struct import *im, struct object *o)
{
	struct debuginfod_use *u = &im->dbg;
	if (!u->tried)
		debuginfod_setup(u);
	if (!u->client || !o->bid[0])
		return;
	char *path = NULL;
	u->asked++;
	/* a length of 0: the build-id as a hex string */
	int fd = u->find(u->client, (const unsigned char *)o->bid, 0, &path);
	if (fd < 0) {
		if (!u->first_error[0])
			snprintf(u->first_error, sizeof u->first_error, "%s (build-id %s): %s", o->file, o->bid,
				 strerror(-fd));
		free(path);
		return;
	}
	close(fd);
	if (path && has_build_id(path, o->bid)) {
		o->local = path;
		o->how = "from debuginfod";
		u->found++;
		return;
	}
	if (!u->first_error[0])
		snprintf(u->first_error, sizeof u->first_error, "%s (build-id %s): the server's file has another build-id",
			 o->file, o->bid);
	free(path);
}

/* the client ended; the library stays loaded (libcurl's global state,
 * which it sets up once, would be lost, not freed, by a dlclose) */
static void debuginfod_free(struct debuginfod_use *u)
{
	if (u->client)
		u->end(u->client);
}

/* the object O here: by path, then in perf's build-id cache */
static void find_object(struct import *im, struct object *o)
{
	const char *f = o->file;
	if (f[0] != '/') {
		o->pseudo = true;
		return;
	}
	if (!o->bid[0]) {
		/* a perf.data without build-ids (pipe mode, perf before 3.x,
		 * --no-buildid): the file at its path where it is the one
		 * mapped (the MMAP2 record's device and inode), or, without
		 * them, on the machine that recorded */
		struct stat st;
		if (stat(f, &st) || !S_ISREG(st.st_mode) || access(f, R_OK))
			return;
		const struct mapping *m = o->first;
		if (m && m->has_inode) {
			if (major(st.st_dev) == m->maj && minor(st.st_dev) == m->min && st.st_ino == m->ino) {
				o->local = strdup(f);
				o->how = "by path and inode";
			} else {
				o->why_not = "the file at its path is another (device and inode differ)";
			}
			return;
		}
		struct utsname u;
		const char *host = perfdata_info(im->pd)->hostname;
		if (host && (uname(&u) || strcmp(u.nodename, host))) {
			o->why_not = "recorded on another machine";
			return;
		}
		o->local = strdup(f);
		o->how = "by path, unverified";
		return;
	}
	if (has_build_id(f, o->bid)) {
		o->local = strdup(f);
		o->how = "by path";
		return;
	}
	/* perf's cache: DIR/.build-id/xx/<rest> a directory holding elf
	 * (perf 4.x on), or the file itself (older perf) */
	char dir[PATH_MAX] = "", path[PATH_MAX + 64];
	if (im->rq->debug_dir)
		snprintf(dir, sizeof dir, "%s", im->rq->debug_dir);
	else if (getenv("HOME"))
		snprintf(dir, sizeof dir, "%s/.debug", getenv("HOME"));
	for (int form = 0; form < 2 && dir[0]; form++) {
		snprintf(path, sizeof path, "%s/.build-id/%.2s/%s%s", dir, o->bid, o->bid + 2, form ? "" : "/elf");
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && has_build_id(path, o->bid)) {
			char real[PATH_MAX];
			o->local = strdup(realpath(path, real) ? real : path);
			o->how = "from the build-id cache";
			return;
		}
	}
	ask_debuginfod(im, o);
}

/* the build-id the perf.data names for FILE: the mapping's own, else the
 * build-id section's (a user-space object's, or any) */
static const char *file_build_id(const struct perfdata_info *in, const struct mapping *m)
{
	if (m->bid[0])
		return m->bid;
	const char *any = NULL;
	for (size_t i = 0; i < in->nbuild_ids; i++) {
		const struct perfdata_build_id *b = &in->build_ids[i];
		if (!b->filename || strcmp(b->filename, m->file) || !b->hex[0])
			continue;
		if (b->misc == PERFDATA_MISC_USER || b->misc == PERFDATA_MISC_GUEST_USER)
			return b->hex;
		any = b->hex;
	}
	return any ? any : "";
}

static int resolve_objects(struct import *im)
{
	const struct perfdata_info *in = perfdata_info(im->pd);
	im->objs = calloc(im->nmaps + 1, sizeof *im->objs);
	if (!im->objs)
		return -1;
	for (size_t i = 0; i < im->nmaps; i++) {
		struct mapping *m = &im->maps[i];
		const char *bid = file_build_id(in, m);
		size_t k = 0;
		while (k < im->nobjs && (strcmp(im->objs[k].file, m->file) || strcmp(im->objs[k].bid, bid)))
			k++;
		if (k == im->nobjs) {
			struct object *o = &im->objs[im->nobjs++];
			if (!(o->file = strdup(m->file)))
				return -1;
			snprintf(o->bid, sizeof o->bid, "%s", bid);
			o->first = m;
			find_object(im, o);
		}
		m->object = k;
		struct object *o = &im->objs[k];
		/* the row names the file gus reads, and the build-id it must
		 * have: a missing one's path with its build-id (or none at all,
		 * GUSDATA_NOT_HERE) is never read as that object (gus record's
		 * place_sample checks it) */
		m->m.filename = o->local ? o->local : o->file;
		m->m.build_id = o->bid[0] ? o->bid : o->local || o->pseudo ? NULL : GUSDATA_NOT_HERE;
	}
	return 0;
}

/* the user samples of each object (the newest mapping of the sample's
 * process holding it, as gus record places samples) */
static int count_object_samples(void *ctx, const struct gusdata_sample *s)
{
	struct import *im = ctx;
	if (!s->user)
		return 0;
	const struct mapping *hit = NULL;
	for (size_t i = im->nmaps; i-- > 0;) {
		const struct mapping *m = &im->maps[i];
		if (s->ip >= m->m.start && s->ip - m->m.start < m->m.len && (m->m.pid == s->pid || !hit)) {
			hit = m;
			if (m->m.pid == s->pid)
				break;
		}
	}
	if (hit)
		im->objs[hit->object].samples++;
	return 0;
}

/* ------------------------------------------------------------ the CPU --- */
/* the perf.data's cpuid feature ("GenuineIntel,6,85,4") as CPUID leaves */
static bool cpu_of_file(const char *cpuid, struct collect_host_cpu *h)
{
	if (!cpuid)
		return false;
	char vendor[13] = "";
	unsigned family, model, stepping = 0;
	int n = sscanf(cpuid, "%12[^,],%u,%u,%u", vendor, &family, &model, &stepping);
	if (n < 3 || family > 0xff + 0xf || model > 0xff)
		return false;
	struct collect_cpuid c = { .max_leaf = 1 };
	memcpy(c.vendor, vendor, strlen(vendor));
	unsigned base = family < 0xf ? family : 0xf, ext = family < 0xf ? 0 : family - 0xf;
	c.leaf1[0] = (stepping & 0xf) | (model & 0xf) << 4 | base << 8 | (model >> 4) << 16 | ext << 20;
	collect_host_identify(&c, h);
	return true;
}

/* The kernel functions of the samples' kernel addresses, named from this
 * machine's /proc/kallsyms when the perf.data was recorded on this very
 * kernel and boot: the same release, and perf's reference symbol where
 * this boot's kallsyms has a function start (another boot's KASLR
 * layout puts it elsewhere); else said why not. -1 on a write error. */
static int name_kernel(struct import *im)
{
	const struct perfdata_info *in = perfdata_info(im->pd);
	struct utsname u;
	char why[512] = "";
	if (uname(&u) || !in->osrelease || strcmp(in->osrelease, u.release))
		snprintf(why, sizeof why, "the kernel's frames are not named: the perf.data was recorded on another "
			 "kernel (%.100s; this machine runs %.100s)", in->osrelease ? in->osrelease : "its release unsaid",
			 u.release);
	else if (!im->have_kernel_ref)
		snprintf(why, sizeof why, "the kernel's frames are not named: the perf.data has no kernel map record "
			 "to tell its boot's layout from this one's");
	if (why[0]) {
		recording_say(&im->rq->log, RECORDING_MSG_WARNING, "%s", why);
		return gusdata_set_meta(im->d, "missing.kernel_symbols", why);
	}
	return rec_store_kernel_symbols(im->d, "/proc/kallsyms", im->kernel_ref, NULL, &im->rq->log);
}

/* ---------------------------------------------------------------- facts --- */
static void join(char *buf, size_t n, char *const *v, size_t k)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < k && at + 1 < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? " " : "", v[i]);
}

static void store_facts(struct import *im, const struct collect_host_cpu *cpu, bool have_cpu, const char *machine,
			const char *machine_why)
{
	struct gusdata *d = im->d;
	const struct perfdata_info *in = perfdata_info(im->pd);
	char buf[8192];
	join(buf, sizeof buf, in->cmdline, in->ncmdline);
	gusdata_set_meta(d, "command", in->ncmdline ? buf : "perf record (the perf.data names no command line)");
	gusdata_set_meta(d, "source", "perf.data");
	gusdata_set_meta(d, "perf.file", im->rq->input);
	gusdata_set_meta(d, "perf.mode", in->pipe ? "pipe" : "file");
	if (in->version)
		gusdata_set_meta(d, "perf.version", in->version);
	if (in->hostname)
		gusdata_set_meta(d, "hostname", in->hostname);
	if (in->osrelease) {
		snprintf(buf, sizeof buf, "Linux %s %s", in->osrelease, in->arch ? in->arch : "");
		gusdata_set_meta(d, "kernel", buf);
	}
	if (in->cpudesc)
		gusdata_set_meta(d, "cpu.name", in->cpudesc);
	if (in->cpuid)
		gusdata_set_meta(d, "perf.cpuid", in->cpuid);
	if (have_cpu) {
		gusdata_set_meta_u64(d, "cpu.family", cpu->family);
		gusdata_set_meta_u64(d, "cpu.model", cpu->model);
		gusdata_set_meta_u64(d, "cpu.stepping", cpu->stepping);
		snprintf(buf, sizeof buf, "%s (%s, the perf.data's cpuid %s)", cpu->name, cpu->why, in->cpuid);
		gusdata_set_meta(d, "cpu.taken_for", buf);
		if (cpu->tma[0])
			gusdata_set_meta(d, "tma.table", cpu->tma);
		/* SMT from the CPU topology: a core whose thread siblings are
		 * more than one CPU (TMA's formulas differ with it) */
		bool smt = false;
		for (size_t i = 0; i < in->nthread_siblings; i++)
			smt |= in->thread_siblings[i] && strpbrk(in->thread_siblings[i], ",-") != NULL;
		if (in->nthread_siblings)
			gusdata_set_meta(d, "tma.smt", smt ? "on" : "off");
	} else {
		gusdata_set_meta(d, "cpu.taken_for", "unknown: the perf.data has no cpuid feature gus reads");
	}
	gusdata_set_meta(d, "sim.machine", machine);
	gusdata_set_meta(d, "sim.machine_why", machine_why);
	if (in->nr_cpus_online)
		gusdata_set_meta_u64(d, "perf.nr_cpus_online", in->nr_cpus_online);
	if (in->sample_time_last > in->sample_time_first)
		gusdata_set_meta_u64(d, "seconds_x1000", (in->sample_time_last - in->sample_time_first) / 1000000);
	/* the events, and which one's samples are the regions' */
	size_t k = 0;
	for (size_t i = 0; i < in->nattrs && k + 1 < sizeof buf; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? "," : "", in->attrs[i].name);
	gusdata_set_meta(d, "perf.events", buf);
	const struct perfdata_attr *sampled = sampled_attr(im);
	if (sampled) {
		gusdata_set_meta(d, "sample.event", sampled->name);
		if (sampled->flags & PERFDATA_ATTR_FREQ)
			gusdata_set_meta_u64(d, "sample.freq", sampled->sample_period);
		else
			gusdata_set_meta_u64(d, "sample.period", sampled->sample_period);
		if (sampled->flags & PERFDATA_ATTR_EXCLUDE_KERNEL)
			gusdata_set_meta(d, "user_only", "yes");
	}
	gusdata_set_meta_u64(d, "sample.count", im->samples);
	if (in->ngroups) {
		k = 0;
		for (size_t i = 0; i < in->ngroups && k + 1 < sizeof buf; i++)
			k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? "; " : "", in->groups[i].name);
		gusdata_set_meta(d, "perf.groups", buf);
	}
}

/* What the file lacks, in the report's words: lost and throttled samples,
 * damage (missing.samples); the trace (missing.trace); the counts
 * (missing.counts); the objects not here (missing.objects). */
static void store_missing(struct import *im)
{
	struct gusdata *d = im->d;
	const struct perfdata_stats *st = perfdata_stats(im->pd);
	const struct perfdata_info *in = perfdata_info(im->pd);
	const struct recording_log *log = &im->rq->log;
	char buf[8192];
	size_t k = 0;
	buf[0] = 0;
#define ADD(...) (k += (size_t)snprintf(buf + k, k < sizeof buf ? sizeof buf - k : 0, __VA_ARGS__))
	if (im->damage[0])
		ADD("the perf.data is damaged: %s; %llu samples were read before", im->damage,
		    (unsigned long long)im->samples);
	if (st->lost_samples)
		ADD("%sthe kernel dropped %llu samples (LOST_SAMPLES records)", k ? "; " : "",
		    (unsigned long long)st->lost_samples);
	if (st->lost_events)
		ADD("%sperf lost %llu records of the ring buffers (LOST records: samples and sideband)", k ? "; " : "",
		    (unsigned long long)st->lost_events);
	if (st->throttles)
		ADD("%sthe kernel throttled sampling %llu times (THROTTLE records): no samples while throttled",
		    k ? "; " : "", (unsigned long long)st->throttles);
	if (!im->samples && !im->damage[0])
		ADD("%sthe perf.data has no samples of code%s", k ? "; " : "",
		    in->nattrs ? " (its events sample no instruction pointers)" : "");
	if (st->samples_unknown_event)
		ADD("%s%llu samples of no event the header describes were left out", k ? "; " : "",
		    (unsigned long long)st->samples_unknown_event);
	if (k) {
		gusdata_set_meta(d, "missing.samples", buf);
		rec_warn(log, "%s: %s", input_shown(im->rq->input), buf);
	}
	gusdata_set_meta_u64(d, "sample.lost", st->lost_samples + st->lost_events);
	if (st->throttles)
		gusdata_set_meta_u64(d, "perf.throttles", st->throttles);

	/* the trace: Intel PT decoded through the objects found here (the
	 * report does it), or none */
	k = 0;
	const struct pt_import *pt = &im->pt;
	if (pt->chunks) {
		size_t nabsent = 0, nmapped = 0;
		for (size_t i = 0; i < im->nobjs; i++) {
			const struct object *o = &im->objs[i];
			if (o->pseudo)
				continue;
			nmapped++;
			if (o->local)
				continue;
			if (!nabsent++)
				ADD("of the %s's Intel PT (%llu bytes in %llu AUXTRACE records), the code of these objects "
				    "cannot be decoded, they are not here: ", input_file_name(im->rq->input),
				    (unsigned long long)pt->bytes, (unsigned long long)pt->chunks);
			ADD("%s%s%s%s", nabsent > 1 ? ", " : "", o->file, o->bid[0] ? " build-id " : "", o->bid);
		}
		if (nabsent && nabsent == nmapped)
			ADD(" (none of the objects the program mapped is here: its trace could not be decoded at all)");
		else if (nabsent)
			ADD(" (the trace resumes after their code, a gap each time)");
		if (pt->packets.by_kind[IPT_PKT_OVF])
			ADD("%sthe processor's trace buffer overflowed %llu times (OVF packets): what ran then is not in "
			    "the trace", k ? "; " : "", (unsigned long long)pt->packets.by_kind[IPT_PKT_OVF]);
		if (pt->packets.bad)
			ADD("%s%llu bytes of the trace are no PT packet", k ? "; " : "",
			    (unsigned long long)pt->packets.bad);
		if (pt->too_many_buffers)
			ADD("%sthe trace of more than %d CPUs or threads is left out", k ? "; " : "", PT_BUFFERS);
	} else if (st->auxtrace_bytes) {
		ADD("the perf.data holds %llu bytes of AUX trace in %llu AUXTRACE records%s, which gus does not decode: "
		    "the hot regions are simulated statically from their code", (unsigned long long)st->auxtrace_bytes,
		    (unsigned long long)st->by_type[PERFDATA_AUXTRACE],
		    pt->intel_pt ? "" : " of no Intel PT (no AUXTRACE_INFO of intel_pt)");
	} else {
		ADD("perf record traced no instructions (Intel PT: perf record -e intel_pt//u): the hot regions are "
		    "simulated statically from their code");
	}
	if (st->aux_truncated || st->aux_partial || st->aux_collision)
		ADD("%sits AUX data was truncated %llu times, partial %llu, collided %llu: the trace has a gap after each",
		    k ? "; " : "", (unsigned long long)st->aux_truncated, (unsigned long long)st->aux_partial,
		    (unsigned long long)st->aux_collision);
	if (pt->chunks && st->lost_events)
		ADD("%sperf lost %llu records of the sideband (LOST): the trace's mappings or threads may be incomplete",
		    k ? "; " : "", (unsigned long long)st->lost_events);
	if (k >= sizeof buf)
		memcpy(buf + sizeof buf - 5, "...", 4);
	if (k) {
		gusdata_set_meta(d, "missing.trace", buf);
		if (pt->chunks)
			rec_warn(log, "%s: %s", input_shown(im->rq->input), buf);
	}
	if (!pt->chunks)
		gusdata_set_meta(d, "tracer", "none");
	if (st->aux_bytes)
		gusdata_set_meta_u64(d, "perf.aux_bytes", st->aux_bytes);

	k = 0;
	ADD("perf record sampled %s and read no counter groups at its samples (perf record -e '{EVENTS}:S' reads "
	    "them; gus import --import-counts takes a perf stat -x, of the same run)",
	    sampled_attr(im) ? sampled_attr(im)->name : "no event of code");
	if (!im->counted && !im->reads.samples) {
		gusdata_set_meta(d, "missing.counts", buf);
		gusdata_set_meta(d, "missing.region_counts", buf);
	}
	if (im->reads.dropped_group) {
		k = 0;
		ADD("some samples read groups gus does not take (more than %d events, or more than %d groups): "
		    "their reads are left out", READ_GROUP_MAX, READ_GROUPS_MAX);
		rec_warn(log, "%s: %s", input_shown(im->rq->input), buf);
	}

	/* the objects not here, with how to get them */
	size_t nmissing = 0, nsampled = 0;
	uint64_t missing_samples = 0;
	k = 0;
	for (size_t i = 0; i < im->nobjs; i++) {
		const struct object *o = &im->objs[i];
		if (!o->samples || o->pseudo)
			continue;
		nsampled++;
		if (o->local)
			continue;
		nmissing++;
		missing_samples += o->samples;
		ADD("%s%s (%s%s, %llu samples)", nmissing > 1 ? ", " : "", o->file, o->bid[0] ? "build-id " : "no build-id: ",
		    o->bid[0] ? o->bid : o->why_not ? o->why_not : "the file is not here", (unsigned long long)o->samples);
	}
	if (k >= sizeof buf)
		memcpy(buf + sizeof buf - 5, "...", 4);
	if (nmissing) {
		char text[sizeof buf + 1200];
		char dbg[600];
		const struct debuginfod_use *u = &im->dbg;
		if (u->why_not[0])
			snprintf(dbg, sizeof dbg, "; %s", u->why_not);
		else if (u->asked)
			snprintf(dbg, sizeof dbg, "; the debuginfod servers of DEBUGINFOD_URLS had %zu of the %zu objects "
				 "asked for%s%s", u->found, u->asked, u->first_error[0] ? ", first missing: " : "",
				 u->first_error);
		else
			dbg[0] = 0;
		snprintf(text, sizeof text, "%zu of the %zu sampled objects are not here, their samples named by path and "
			 "file offset ('perf buildid-list -i %s' on the machine that recorded lists them, 'perf archive %s' "
			 "packs them: unpack it into ~/.debug here): %s%s", nmissing, nsampled, input_file_name(im->rq->input),
			 input_file_name(im->rq->input), buf, dbg);
		gusdata_set_meta(d, "missing.objects", text);
		gusdata_set_meta_u64(d, "perf.objects_missing", nmissing);
		rec_warn(log, "%s: %s", input_shown(im->rq->input), text);
	}
	/* the objects taken without a build-id to check them by, and those
	 * found in the cache, in one line each */
	for (int cached = 0; cached < 2; cached++) {
		k = 0;
		size_t n = 0;
		for (size_t i = 0; i < im->nobjs; i++) {
			const struct object *o = &im->objs[i];
			if (!o->samples || !o->local || !strcmp(o->how, "by path") || !strcmp(o->how, "by path and inode") ||
			    cached != (!strcmp(o->how, "from the build-id cache") || !strcmp(o->how, "from debuginfod")))
				continue;
			n++;
			if (cached)
				ADD("%s%s as %s (%s)", n > 1 ? ", " : "", o->file, o->local, o->how);
			else
				ADD("%s%s", n > 1 ? ", " : "", o->file);
		}
		if (k >= sizeof buf)
			memcpy(buf + sizeof buf - 5, "...", 4);
		if (n && cached)
			rec_warn(log, "%s: %zu object(s) taken by build-id from elsewhere: %s", input_shown(im->rq->input), n,
				 buf);
		else if (n) {
			gusdata_set_meta(d, "perf.objects_unverified", buf);
			rec_warn(log, "%s: %zu object(s) taken by their path, unverified: the perf.data has neither a "
				 "build-id nor an inode for them: %s", input_shown(im->rq->input), n, buf);
		}
	}
#undef ADD
	(void)missing_samples;
}

/* ----------------------------------------------------------- the import --- */
static int add_count(void *ctx, const struct gusdata_count *c)
{
	struct td_countset *cs = ctx;
	if (c->uncounted)
		return td_countset_add_uncounted(cs, c->event, c->uncounted);
	return td_countset_add(cs, c->event, c->value, c->enabled, c->running);
}

static enum recording_status convert(struct import *im)
{
	const struct recording_import_request *rq = im->rq;
	char err[1024];
	struct perfdata_record r;
	int rc;
	recording_progress(&rq->log, true, "reading %s", rq->input);
	while ((rc = perfdata_next(im->pd, &r, err, sizeof err)) > 0)
		if (take_record(im, &r))
			break;
	if (im->failed)
		return RECORDING_ERROR;
	if (rc < 0) {
		/* what the reader got before the damage is kept */
		const char *colon = strstr(err, ": ");
		const char *name = input_shown(rq->input);
		snprintf(im->damage, sizeof im->damage, "%s", colon && !strncmp(err, name, (size_t)(colon - err))
								 ? colon + 2 : err);
	}
	if (!im->chosen) {
		const struct perfdata_info *in = perfdata_info(im->pd);
		for (size_t i = 0; i < in->nattrs && im->sampled_index < 0; i++)
			if (samples_code(im->pd, &in->attrs[i]))
				im->sampled_index = (long)i;
	}
	if (im->pending && gusdata_commit(im->d)) {
		import_fail(im, "the samples cannot be stored");
		return RECORDING_ERROR;
	}
	im->pending = 0;
	recording_progress_end(&rq->log);

	/* the objects, then the mappings that name them */
	if (resolve_objects(im) || gusdata_begin(im->d)) {
		import_fail(im, "out of memory");
		return RECORDING_ERROR;
	}
	for (size_t i = 0; i < im->nmaps; i++)
		if (gusdata_add_sample_mmap(im->d, &im->maps[i].m)) {
			gusdata_commit(im->d);
			import_fail(im, "the mappings cannot be stored");
			return RECORDING_ERROR;
		}
	if (gusdata_commit(im->d) || gusdata_foreach_sample(im->d, count_object_samples, im)) {
		import_fail(im, "the mappings cannot be stored");
		return RECORDING_ERROR;
	}
	if (im->pt.chunks && store_pt(im)) {
		import_fail(im, "the trace's mappings cannot be stored");
		return RECORDING_ERROR;
	}

	/* the CPU and its core model */
	struct collect_host_cpu cpu;
	bool have_cpu = cpu_of_file(perfdata_info(im->pd)->cpuid, &cpu);
	char machine[64], why[512];
	if (rq->arch)
		snprintf(machine, sizeof machine, "%s", rq->arch), snprintf(why, sizeof why, "--arch");
	else if (have_cpu)
		recording_machine_for_cpu(rq->machines_dir, &cpu, "the perf.data's CPU's", "the perf.data's CPU", machine,
					  sizeof machine, why, sizeof why);
	else
		recording_host_machine(rq->machines_dir, machine, sizeof machine, why, sizeof why);
	store_facts(im, &cpu, have_cpu, machine, why);
	if (rq->import_counts) {
		if (rec_import_counts(rq->import_counts, im->d, &im->rows, &rq->log))
			return RECORDING_ERROR;
		im->counted = true;
		/* the TMA table: the perf.data's CPU's, else the one that
		 * knows the counts' events */
		char tw[TD_ERRLEN];
		struct td_table *t = have_cpu && cpu.tma[0] ? td_table_load_arch(rq->tma_dir, cpu.tma, tw, sizeof tw) : NULL;
		if (t) {
			td_table_free(t);
		} else {
			struct td_countset cs;
			td_countset_init(&cs);
			char tabwhy[512] = "";
			if (gusdata_foreach_count(im->d, add_count, &cs) == 0 &&
			    (t = recording_tma_table_of_counts(rq->tma_dir, &cs, tabwhy, sizeof tabwhy))) {
				gusdata_set_meta(im->d, "tma.table", t->id);
				td_table_free(t);
			} else {
				rec_warn(&rq->log, "%s: no TMA table of gus knows the perf.data's CPU%s%s",
					 rq->import_counts, tabwhy[0] ? ": " : "", tabwhy);
			}
			td_countset_free(&cs);
		}
	}
	store_missing(im);
	/* the groups read at the samples: the count set, and the plan the
	 * regions' counts are added up by */
	struct collect_plan read_plan = { 0 };
	if (im->reads.samples) {
		char tw[TD_ERRLEN];
		struct td_table *t =
			have_cpu && cpu.tma[0] ? td_table_load_arch(rq->tma_dir, cpu.tma, tw, sizeof tw) : NULL;
		rc = store_read_groups(im, t, &read_plan);
		td_table_free(t);
		if (rc) {
			import_fail(im, "the counts cannot be stored");
			return RECORDING_ERROR;
		}
	} else if (rq->import_counts && im->reads.ignored) {
		rec_warn(&rq->log, "%s: the counter groups read at its samples are left out: --import-counts gives the "
			 "counts", rq->input);
	}

	/* the hot regions, as gus record ranks its samples */
	struct sim_machine *m = sim_machine_find(rq->machines_dir, machine, err, sizeof err);
	if (!m) {
		rec_error(&rq->log, "%s", err);
		collect_plan_free(&read_plan);
		return rq->arch ? RECORDING_USAGE : RECORDING_ERROR;
	}
	recording_progress(&rq->log, true, "ranking the hot regions of %llu samples", (unsigned long long)im->samples);
	size_t nregions = 0;
	rc = rec_rank_regions(im->d, m, rq->hot ? rq->hot : 5, read_plan.n ? &read_plan : NULL, &rq->log,
			      &nregions);
	recording_progress_end(&rq->log);
	sim_machine_free(m);
	collect_plan_free(&read_plan);
	if (rc || (nregions && im->rows.n && rec_store_region_rows(im->d, &im->rows, rq->import_counts, &rq->log))) {
		import_fail(im, "the hot regions cannot be stored");
		return RECORDING_ERROR;
	}
	if (im->kernel_samples && name_kernel(im)) {
		import_fail(im, "the kernel's function names cannot be stored");
		return RECORDING_ERROR;
	}
	if (!nregions && !gusdata_meta(im->d, "missing.regions"))
		gusdata_set_meta(im->d, "missing.regions", im->samples ? "no sample fell in code gus can name"
									 : "the perf.data has no samples");
	gusdata_set_meta(im->d, "record.complete", "yes");
	return RECORDING_OK;
}

static void import_free(struct import *im)
{
	td_region_rows_free(&im->rows);
	for (size_t i = 0; i < im->nmaps; i++)
		free(im->maps[i].file);
	free(im->maps);
	for (size_t i = 0; i < im->nobjs; i++) {
		free(im->objs[i].file);
		free(im->objs[i].local);
	}
	free(im->objs);
	free(im->chain);
	free(im->reads.tab);
	debuginfod_free(&im->dbg);
	perfdata_close(im->pd);
}

/* the perf.data of RQ into the new recording at PATH (gusdata_create's
 * FLAGS), landed; SUM (may be NULL) says what it holds */
static enum recording_status import_into(const struct recording_import_request *rq, const char *path, unsigned flags,
					 struct recording_import_summary *sum)
{
	char err[1024];
	struct import im = { .rq = rq, .sampled_index = -1 };
	if (sum)
		memset(sum, 0, sizeof *sum);
	if (open_input(rq->input, &im.pd, err, sizeof err)) {
		rec_error(&rq->log, "%s", err);
		return RECORDING_ERROR;
	}
	if (!(im.chain = malloc((65536 / 8 + 2) * sizeof *im.chain))) {
		rec_error(&rq->log, "out of memory");
		import_free(&im);
		return RECORDING_ERROR;
	}
	if (gusdata_create(path, flags, &im.d, err, sizeof err)) {
		rec_error(&rq->log, "%s", err);
		import_free(&im);
		return RECORDING_ERROR;
	}
	enum recording_status st = convert(&im);
	if (st != RECORDING_OK) {
		if (im.failed)
			rec_error(&rq->log, "%s", im.err);
		gusdata_discard(im.d);
		import_free(&im);
		return st;
	}
	if (sum) {
		sum->samples = im.samples;
		sum->other_samples = im.other_samples;
		sum->records = perfdata_stats(im.pd)->records;
		sum->damaged = im.damage[0] != 0;
		snprintf(sum->event, sizeof sum->event, "%s", sampled_attr(&im) ? sampled_attr(&im)->name : "");
		uint64_t v;
		sum->missing_objects = gusdata_meta_u64(im.d, "perf.objects_missing", &v) ? (size_t)v : 0;
	}
	if (gusdata_finish(im.d, err, sizeof err)) {
		rec_error(&rq->log, "%s", err);
		import_free(&im);
		return RECORDING_ERROR;
	}
	import_free(&im);
	return RECORDING_OK;
}

enum recording_status recording_import(const struct recording_import_request *rq,
				       struct recording_import_summary *sum)
{
	return import_into(rq, rq->output, rq->force ? GUSDATA_FORCE : 0, sum);
}

enum recording_status recording_import_open(const struct recording_import_request *rq, struct gusdata **out)
{
	*out = NULL;
	/* a directory of gus's own (0700), the recording landed in it, opened,
	 * then both removed: the open descriptor keeps it readable, nothing
	 * is left behind */
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 32], err[1024];
	snprintf(dir, sizeof dir, "%s/gus-import-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		rec_error(&rq->log, "%s: cannot create a temporary directory for %s: %s", dir, rq->input, strerror(errno));
		return RECORDING_ERROR;
	}
	snprintf(path, sizeof path, "%s/perf.gus.data", dir);
	enum recording_status st = import_into(rq, path, 0, NULL);
	if (st == RECORDING_OK && gusdata_open(path, false, out, err, sizeof err)) {
		rec_error(&rq->log, "%s", err);
		st = RECORDING_ERROR;
	}
	unlink(path);
	rmdir(dir);
	return st;
}

enum recording_status recording_import_stat(const char *path, struct recording_import_stat *st,
					    const struct recording_log *log)
{
	struct perfdata *pd;
	char err[1024];
	memset(st, 0, sizeof *st);
	if (open_input(path, &pd, err, sizeof err)) {
		rec_error(log, "%s", err);
		return RECORDING_ERROR;
	}
	struct perfdata_record r;
	int rc;
	while ((rc = perfdata_next(pd, &r, err, sizeof err)) > 0) {
		/* perf's auxtrace types: 1 is Intel PT */
		if (r.type == PERFDATA_AUXTRACE_INFO && r.u.auxtrace_info.type == 1)
			st->intel_pt = true;
		if (r.type == PERFDATA_AUXTRACE && st->intel_pt &&
		    ipt_count_packets(r.u.auxtrace.data, (size_t)r.u.auxtrace.size, &st->pt, err, sizeof err)) {
			rec_error(log, "%s", err);
			perfdata_close(pd);
			return RECORDING_ERROR;
		}
		if (r.type != PERFDATA_SAMPLE || !r.attr)
			continue;
		/* the events as the header lists them (pipe mode: as they came) */
		const struct perfdata_info *in = perfdata_info(pd);
		size_t i = (size_t)(r.attr - in->attrs);
		if (i < RECORDING_STAT_EVENTS)
			st->event_samples[i]++;
	}
	if (rc < 0)
		snprintf(st->damage, sizeof st->damage, "%s", err);
	const struct perfdata_info *in = perfdata_info(pd);
	st->pipe = in->pipe;
	st->stats = *perfdata_stats(pd);
	st->nevents = in->nattrs < RECORDING_STAT_EVENTS ? in->nattrs : RECORDING_STAT_EVENTS;
	for (size_t i = 0; i < st->nevents; i++)
		snprintf(st->event[i], sizeof st->event[i], "%s", in->attrs[i].name);
	perfdata_close(pd);
	return RECORDING_OK;
}
