/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sampling a program: started held at a pipe, one sampling event per
 * online CPU following it and its children (inherit, enabled at exec),
 * each with a data ring mapped here and drained while the program runs;
 * the plan's counting groups (count.c) attached in the same run.
 *
 * The event: "cycles" as precise as the PMU allows (precise_ip 2, 1, 0),
 * or cpu-clock where there is no PMU (a virtual machine): the hot regions
 * are found either way, cpu-clock at timer resolution.
 *
 * What reaches the sink: every SAMPLE; MMAP2 (executable mappings, with
 * the build-id when the kernel gives it, Linux 5.12+); COMM; and events
 *
 *     kind          pid/tid              a                 b
 *     fork, exit    the child / exiter   ppid              ptid
 *     lost          sample_id's          records lost      event id
 *     lost-samples  sample_id's          samples lost      0
 *     throttle      sample_id's          event id          0
 *     unthrottle    sample_id's          event id          0
 *     ring-corrupt  -1                   bytes skipped     0
 *
 * Records of different CPUs come as each ring is drained, not in time
 * order: a consumer that needs order sorts by time. */
#include "collect.h"
#include "collect_internal.h"
#include "gusdata.h"
#include "ptring.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAMPLE_TYPE_BASE                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |           \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define DEFAULT_FREQ 4000u
#define DEFAULT_DATA_PAGES 128u
/* a record is at most 64 KiB: its callchain has fewer entries, plus the ip */
#define CHAIN_MAX (65536 / 8 + 1)

struct smp_cpu {
	int cpu, fd;
	uint8_t *base;		/* user page + data ring */
	size_t len;
};

/* a read group: its plan events, and on every CPU its leader and members */
struct rgroup {
	size_t first, n;	/* plan indices */
	/* the plan's first event leads (a PERF_METRICS group: slots leads
	 * the topdown metrics, as perf's --topdown groups), else a leader of
	 * the sampling kind is put before the plan's events */
	bool plan_leads;
	int *fd;		/* [cpu * (1 + n)]: the leader, then the members; -1 closed */
	uint64_t *id;		/* [cpu]: the leader's id (PERF_SAMPLE_IDENTIFIER) */
};

/* a thread's last values of a group on a CPU */
struct prev_values {
	int cpu, tid, group;	/* group -1: a free slot */
	uint64_t enabled, running;
	uint64_t *v;		/* the group's n values */
};

struct smp {
	const struct collect_sample_opts *o;
	const struct collect_sample_sink *sink;
	struct collect_sample_stats *st;
	struct smp_cpu *cpus;
	int n;
	size_t page, data_pages;
	uint64_t sample_type;
	bool user_only;		/* asked for, or forced by perf_event_paranoid */
	bool no_build_id;	/* the kernel predates attr.build_id */
	struct ptring_reader *reader;
	uint64_t *chain;
	uint64_t *regs;		/* a sample's user registers, aligned */
	bool failed;		/* a sink refused: deliver nothing more */
	char *err;
	size_t errlen;
	struct perf_event_attr attr;	/* the sampling event as opened */
	/* read groups (collect_sample_opts.read_groups) */
	const struct collect_plan *rg;
	uint64_t read_format;
	struct rgroup *g;
	int ng;
	struct prev_values *prev;
	size_t prevcap, prevn;
	double *delta;		/* the deltas of a sample */
};

static int sys_perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_proc_int(const char *path, int dflt)
{
	int v = dflt;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static bool no_pmu_errno(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV;
}

static enum collect_status sample_open_error(int e, const char *event, bool kernel, char *err,
					     size_t errlen)
{
	if (no_pmu_errno(e)) {
		snprintf(err, errlen,
			 "cannot sample %s: %s. This machine exposes no hardware PMU to Linux (a virtual "
			 "machine without PMU passthrough, or an unsupported CPU); sample cpu-clock instead "
			 "(the default event falls back to it by itself)",
			 event, strerror(e));
		return COLLECT_NO_PMU;
	}
	if (e == EACCES || e == EPERM) {
		snprintf(err, errlen,
			 "cannot sample %s: %s (perf_event_paranoid is %d%s). Sampling your own program's "
			 "user space needs kernel.perf_event_paranoid <= 2, the kernel too <= 1 (sysctl "
			 "kernel.perf_event_paranoid=1), or CAP_PERFMON (Linux 5.8+) or root",
			 event, strerror(e), collect_perf_paranoid(), kernel ? ", sampling kernel space" : "");
		return COLLECT_NO_PERMISSION;
	}
	snprintf(err, errlen, "cannot sample %s: %s (the kernel rejected the sampling event%s)", event,
		 strerror(e), e == EMFILE ? "; too many open files: raise ulimit -n" : "");
	return COLLECT_BAD_EVENT;
}

/* Opens A on every CPU for PID. 0, or the errno of the first refusal with
 * nothing left open. A kernel without attr.build_id says EINVAL to it:
 * asked again without, and not again after. */
static int open_all(struct smp *s, struct perf_event_attr *a, pid_t pid)
{
	for (int i = 0; i < s->n; i++) {
		a->build_id = !s->no_build_id;
		int fd = sys_perf_open(a, pid, s->cpus[i].cpu);
		if (fd < 0 && errno == EINVAL && a->build_id) {
			a->build_id = 0;
			fd = sys_perf_open(a, pid, s->cpus[i].cpu);
			if (fd >= 0)
				s->no_build_id = true;
		}
		if (fd < 0) {
			int e = errno;
			while (i-- > 0) {
				close(s->cpus[i].fd);
				s->cpus[i].fd = -1;
			}
			return e;
		}
		s->cpus[i].fd = fd;
	}
	return 0;
}

/* open_all, and once more for user space alone when the kernel refuses
 * kernel sampling (perf_event_paranoid 2 for an unprivileged user): the
 * program's own code is what gus is after */
static int open_user_retry(struct smp *s, struct perf_event_attr *a, pid_t pid)
{
	a->exclude_kernel = s->user_only;
	a->exclude_callchain_kernel = s->user_only;
	int e = open_all(s, a, pid);
	if ((e == EACCES || e == EPERM) && !s->user_only) {
		a->exclude_kernel = 1;
		a->exclude_callchain_kernel = 1;
		e = open_all(s, a, pid);
		if (!e)
			s->user_only = true;
	}
	return e;
}

static void base_attr(struct perf_event_attr *a, const struct smp *s, unsigned freq)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->freq = 1;
	a->sample_freq = freq;
	a->sample_type = s->sample_type;
	a->read_format = s->read_format;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	/* wake gus a quarter into the ring, well before it fills */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->data_pages * s->page / 4);
	if (s->sample_type & PERF_SAMPLE_STACK_USER) {
		/* perf's --call-graph dwarf: the kernel's chain, the user
		 * registers and stack for unwinding the user's */
		a->exclude_callchain_user = 1;
		a->sample_regs_user = COLLECT_DWARF_REGS_MASK;
		a->sample_stack_user = s->o->dwarf_stack;
	}
}

static enum collect_status open_sampling(struct smp *s, pid_t pid, unsigned freq)
{
	const char *ev = s->o->event;
	struct perf_event_attr a;
	int e = 0;

	if (ev && strcmp(ev, "cycles") && strcmp(ev, "cpu-clock")) {
		snprintf(s->err, s->errlen, "cannot sample '%s': gus samples cycles or cpu-clock", ev);
		return COLLECT_BAD_EVENT;
	}
	if (!ev || !strcmp(ev, "cycles")) {
		static const char *const names[] = { "cycles", "cycles:p", "cycles:pp" };
		for (int prec = 2; prec >= 0; prec--) {
			base_attr(&a, s, freq);
			a.type = PERF_TYPE_HARDWARE;
			a.config = PERF_COUNT_HW_CPU_CYCLES;
			/* PMUs without PEBS (most virtual ones) refuse precision
			 * with EOPNOTSUPP or EINVAL: less of it is still cycles */
			a.precise_ip = (unsigned)prec;
			e = open_user_retry(s, &a, pid);
			if (!e) {
				snprintf(s->st->event, sizeof(s->st->event), "%s", names[prec]);
				s->attr = a;
				return COLLECT_OK;
			}
			if (e == EACCES || e == EPERM)
				break;	/* no precision makes it allowed */
		}
		if (ev || e == EACCES || e == EPERM)
			return sample_open_error(e, "cycles", !s->user_only, s->err, s->errlen);
		if (no_pmu_errno(e))
			snprintf(s->st->fallback, sizeof(s->st->fallback),
				 "cycles cannot be sampled (%s): this machine exposes no hardware PMU to "
				 "Linux, a virtual machine without PMU passthrough?",
				 strerror(e));
		else
			snprintf(s->st->fallback, sizeof(s->st->fallback),
				 "cycles cannot be sampled (%s): the kernel rejected it", strerror(e));
	}
	base_attr(&a, s, freq);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	e = open_user_retry(s, &a, pid);
	if (e)
		return sample_open_error(e, "cpu-clock", !s->user_only, s->err, s->errlen);
	snprintf(s->st->event, sizeof(s->st->event), "cpu-clock");
	s->attr = a;
	return COLLECT_OK;
}

static enum collect_status map_rings(struct smp *s)
{
	for (int i = 0; i < s->n; i++) {
		struct smp_cpu *c = &s->cpus[i];
		size_t len = (1 + s->data_pages) * s->page;
		/* writable: data_tail tells the kernel what was read, so it
		 * never overwrites unread records (it reports LOST instead) */
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			snprintf(s->err, s->errlen, "cannot map the sample ring of CPU %d (%zu pages): %s%s", c->cpu,
				 s->data_pages, strerror(e),
				 e == EPERM || e == ENOMEM
					 ? "; the rings of all CPUs exceed the locked-memory allowance "
					   "(kernel.perf_event_mlock_kb, ulimit -l): ask for fewer pages"
					 : "");
			return e == EPERM ? COLLECT_NO_PERMISSION : COLLECT_ERROR;
		}
		c->base = p;
		c->len = len;
	}
	return COLLECT_OK;
}

/* -------------------------------------------------------- read groups --- */
#define READ_FORMAT_GROUPS \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static void close_read_groups(struct smp *s)
{
	for (int g = 0; g < s->ng; g++) {
		struct rgroup *r = &s->g[g];
		for (int c = 0; r->fd && c < s->n; c++)
			for (size_t k = 0; k <= r->n; k++) {
				int fd = r->fd[(size_t)c * (1 + r->n) + k];
				if (fd >= 0)
					close(fd);
			}
		free(r->fd);
		free(r->id);
	}
	free(s->g);
	s->g = NULL;
	s->ng = 0;
	for (size_t i = 0; i < s->prevcap; i++)
		if (s->prev[i].group >= 0)
			free(s->prev[i].v);
	free(s->prev);
	s->prev = NULL;
	s->prevcap = s->prevn = 0;
	free(s->delta);
	s->delta = NULL;
}

/* Opens every read group on every CPU under a sampling leader of its own
 * writing into that CPU's ring (the sampling event's, mapped before): its
 * samples carry the group's values, the sampling event's its own alone.
 * 0, or the errno of the first refusal with WHY naming the event (what
 * opened stays, for close_read_groups). */
static int open_read_groups(struct smp *s, const struct perf_event_attr *base, pid_t pid, char *why, size_t whylen)
{
	const struct collect_plan *p = s->rg;
	size_t maxn = 0;
	for (size_t i = 0; i < p->n;) {
		size_t j = i;
		while (j < p->n && p->ev[j].group == p->ev[i].group)
			j++;
		struct rgroup *ng = realloc(s->g, (size_t)(s->ng + 1) * sizeof *ng);
		if (!ng)
			return ENOMEM;
		s->g = ng;
		struct rgroup *r = &s->g[s->ng++];
		*r = (struct rgroup){ .first = i, .n = j - i, .plan_leads = p->ev[i].group_read && j - i > 1 };
		r->fd = malloc((size_t)s->n * (1 + r->n) * sizeof *r->fd);
		for (size_t k = 0; r->fd && k < (size_t)s->n * (1 + r->n); k++)
			r->fd[k] = -1;
		r->id = calloc((size_t)s->n, sizeof *r->id);
		if (!r->fd || !r->id)
			return ENOMEM;
		if (r->n > maxn)
			maxn = r->n;
		i = j;
	}
	if (!(s->delta = calloc(maxn + 1, sizeof *s->delta)))
		return ENOMEM;
	for (int g = 0; g < s->ng; g++) {
		struct rgroup *r = &s->g[g];
		for (int c = 0; c < s->n; c++) {
			int *fd = &r->fd[(size_t)c * (1 + r->n)];
			/* The sampler: the sampling event's kind without precision
			 * (so that it takes the fixed cycles counter, not one of the
			 * group's general ones) and without sideband of its own,
			 * writing into the CPU's ring. It leads the group, or, in a
			 * PERF_METRICS group, whose slots leader must not sample,
			 * comes last. */
			struct perf_event_attr smp = *base;
			smp.precise_ip = 0;
			smp.mmap = smp.mmap2 = smp.comm = smp.comm_exec = smp.task = 0;
			smp.build_id = 0;
			smp.watermark = 0;
			smp.wakeup_events = 0;
			size_t at_sampler = r->plan_leads ? r->n : 0;
			for (size_t k = 0; k <= r->n; k++) {
				struct perf_event_attr a;
				const char *what;
				bool leader = k == 0;
				if (k == at_sampler) {
					a = smp;
					what = s->st->event;
				} else {
					const struct collect_event *ev = &p->ev[r->first + (r->plan_leads ? k : k - 1)];
					a = ev->attr;
					a.size = sizeof a;
					a.freq = 0;
					a.sample_period = 0;
					a.sample_type = s->sample_type;
					a.read_format = s->read_format;
					a.inherit = 1;
					a.sample_id_all = 1;
					a.exclude_hv = 1;
					if (s->user_only)
						a.exclude_kernel = 1;
					what = ev->name;
				}
				/* the leader starts with the program, the others with it */
				a.disabled = leader;
				a.enable_on_exec = leader;
				fd[k] = (int)syscall(SYS_perf_event_open, &a, pid, s->cpus[c].cpu, leader ? -1 : fd[0],
						     PERF_FLAG_FD_CLOEXEC);
				if (fd[k] < 0) {
					int e = errno;
					snprintf(why, whylen, "%s (read group %d, CPU %d): %s", what, g + 1, s->cpus[c].cpu,
						 strerror(e));
					return e;
				}
			}
			if (ioctl(fd[at_sampler], PERF_EVENT_IOC_SET_OUTPUT, s->cpus[c].fd) ||
			    ioctl(fd[at_sampler], PERF_EVENT_IOC_ID, &r->id[c])) {
				int e = errno;
				snprintf(why, whylen, "the sampler of read group %d (CPU %d): %s", g + 1, s->cpus[c].cpu,
					 strerror(e));
				return e;
			}
		}
	}
	return 0;
}

static size_t prev_hash(int cpu, int tid, int group, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)cpu << 40) ^ ((uint64_t)(uint32_t)tid << 8) ^ (uint64_t)(uint32_t)group;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (cap - 1);
}

/* the thread's last values of GROUP on CPU (N of them), made on first use */
static struct prev_values *prev_of(struct smp *s, int cpu, int tid, int group, size_t n, bool *fresh)
{
	if (s->prevn * 10 >= s->prevcap * 7) {
		size_t cap = s->prevcap ? 2 * s->prevcap : 256;
		struct prev_values *nv = malloc(cap * sizeof *nv);
		if (!nv)
			return NULL;
		for (size_t i = 0; i < cap; i++)
			nv[i] = (struct prev_values){ .group = -1 };
		for (size_t i = 0; i < s->prevcap; i++) {
			if (s->prev[i].group < 0)
				continue;
			size_t h = prev_hash(s->prev[i].cpu, s->prev[i].tid, s->prev[i].group, cap);
			while (nv[h].group >= 0)
				h = (h + 1) & (cap - 1);
			nv[h] = s->prev[i];
		}
		free(s->prev);
		s->prev = nv;
		s->prevcap = cap;
	}
	size_t h = prev_hash(cpu, tid, group, s->prevcap);
	while (s->prev[h].group >= 0) {
		struct prev_values *p = &s->prev[h];
		if (p->cpu == cpu && p->tid == tid && p->group == group) {
			*fresh = false;
			return p;
		}
		h = (h + 1) & (s->prevcap - 1);
	}
	struct prev_values *p = &s->prev[h];
	*p = (struct prev_values){ .cpu = cpu, .tid = tid, .group = group };
	if (!(p->v = calloc(n ? n : 1, sizeof *p->v))) {
		p->group = -1;
		return NULL;
	}
	s->prevn++;
	*fresh = true;
	return p;
}

/* A read group leader's sample: its group and the deltas of its events
 * into SMP. 0: not a group's sample (the sampling event's), 1: done, -1:
 * a group's sample that cannot be read (dropped) */
static int sample_deltas(struct smp *s, int ring_cpu, const struct ptring_record *rec, struct collect_sample *smp)
{
	uint64_t nr = rec->u.sample.read_nr;
	for (int g = 0; g < s->ng; g++) {
		const struct rgroup *r = &s->g[g];
		int c = 0;
		while (c < s->n && r->id[c] != rec->u.sample.id)
			c++;
		if (c == s->n)
			continue;
		/* the group's values in the order it was opened: the sampler,
		 * then the plan's events; or the plan's events (slots first),
		 * then the sampler */
		size_t skip = r->plan_leads ? 0 : 1;
		if (nr != r->n + 1)
			return -1;
		bool fresh;
		struct prev_values *p = prev_of(s, ring_cpu, (int)rec->u.sample.tid, g, r->n, &fresh);
		if (!p)
			return -1;
		for (size_t k = 0; k < r->n; k++) {
			uint64_t v = ptring_read_at(rec, skip + k, NULL);
			/* counters only grow; a smaller value is a new child event */
			s->delta[k] = (double)(v >= p->v[k] ? v - p->v[k] : v);
			p->v[k] = v;
		}
		uint64_t en = rec->u.sample.read_enabled, ru = rec->u.sample.read_running;
		smp->read_enabled = (double)(en >= p->enabled ? en - p->enabled : en);
		smp->read_running = (double)(ru >= p->running ? ru - p->running : ru);
		p->enabled = en;
		p->running = ru;
		smp->read_group = g;
		smp->nread = r->n;
		smp->read = s->delta;
		return 1;
	}
	return 0;
}

/* the groups' totals at the end into CS: every CPU's leader read at once
 * (an inherited event's parent holds its children's counts) */
static int read_group_totals(struct smp *s, struct td_countset *cs)
{
	for (int g = 0; g < s->ng; g++) {
		const struct rgroup *r = &s->g[g];
		double en = 0, ru = 0;
		size_t skip = r->plan_leads ? 0 : 1, nr = r->n + 1;
		double *sum = calloc(r->n + 1, sizeof *sum);
		uint64_t *buf = malloc((3 + 2 * nr) * sizeof *buf);
		bool ok = sum && buf;
		for (int c = 0; ok && c < s->n; c++) {
			ssize_t want = (ssize_t)((3 + 2 * nr) * sizeof *buf);
			if (read(r->fd[(size_t)c * (1 + r->n)], buf, (size_t)want) != want || buf[0] != nr) {
				ok = false;
				break;
			}
			/* an event on one CPU following a task is enabled while the
			 * task runs anywhere and runs only on its CPU: the task's
			 * time is the largest enabled, the counting time the sum */
			en = en > (double)buf[1] ? en : (double)buf[1];
			ru += (double)buf[2];
			for (size_t k = 0; k < r->n; k++)
				sum[k] += (double)buf[3 + 2 * (skip + k)];
		}
		int rc = 0;
		for (size_t k = 0; k < r->n && !rc; k++) {
			const char *name = s->rg->ev[r->first + k].name;
			rc = ok ? td_countset_add(cs, name, sum[k], en, ru) : td_countset_add_uncounted(cs, name, "read failed");
		}
		free(sum);
		free(buf);
		if (rc)
			return -1;
	}
	return 0;
}

static int deliver_sample(struct smp *s, int ring_cpu, const struct ptring_record *rec)
{
	const struct collect_sample_sink *k = s->sink;
	struct collect_sample smp = {
		.time = rec->u.sample.time,
		.cpu = (int)rec->u.sample.cpu,
		.pid = (int)rec->u.sample.pid,
		.tid = (int)rec->u.sample.tid,
		.ip = rec->u.sample.ip,
		.period = rec->u.sample.period,
	};
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	smp.user = mode == PERF_RECORD_MISC_USER || mode == PERF_RECORD_MISC_GUEST_USER;
	int group = s->ng ? sample_deltas(s, ring_cpu, rec, &smp) : 0;
	if (group < 0)
		return 0;
	if (group)
		s->st->read_samples++;
	else
		s->st->samples++;
	if (!k->sample)
		return 0;
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		size_t n = 0;
		for (uint64_t i = 0; i < rec->u.sample.nr && n < CHAIN_MAX - 1; i++) {
			uint64_t v = ptring_callchain_at(rec, i);
			if (v < (uint64_t)PERF_CONTEXT_MAX)
				s->chain[n++] = v;
		}
		/* a kernel chain cut off (exclude_callchain_kernel) starts at
		 * the user return address: the ip leads, as promised */
		if (!n || s->chain[0] != smp.ip) {
			memmove(s->chain + 1, s->chain, n * sizeof(*s->chain));
			s->chain[0] = smp.ip;
			n++;
		}
		smp.callchain = s->chain;
		smp.ncallchain = n;
	}
	if ((s->sample_type & PERF_SAMPLE_REGS_USER) && rec->u.sample.regs_abi) {
		smp.regs_abi = rec->u.sample.regs_abi;
		smp.regs_mask = COLLECT_DWARF_REGS_MASK;
		smp.nregs = (size_t)rec->u.sample.regs_nr;
		for (size_t i = 0; i < smp.nregs && i < 64; i++)
			s->regs[i] = ptring_reg_at(rec, i);
		smp.regs = s->regs;
	}
	if ((s->sample_type & PERF_SAMPLE_STACK_USER) && rec->u.sample.stack_dyn) {
		smp.stack = rec->u.sample.stack;
		smp.nstack = (size_t)rec->u.sample.stack_dyn;
	}
	return k->sample(k->ctx, &smp);
}

/* non-zero when the sink refused */
static int deliver(struct smp *s, int ring_cpu, const struct ptring_record *rec)
{
	const struct collect_sample_sink *k = s->sink;
	const struct ptring_sample_id *sid = &rec->sid;
	int cpu = sid->valid ? (int)sid->cpu : ring_cpu;
	int pid = sid->valid ? (int)sid->pid : -1, tid = sid->valid ? (int)sid->tid : -1;
	uint64_t time = sid->valid ? sid->time : 0;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return deliver_sample(s, ring_cpu, rec);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (!k->mmap)
			return 0;
		char hex[41];
		struct gusdata_mmap m;
		ptring_mmap_of(rec, time, &m, hex);
		return k->mmap(k->ctx, &m);
	}
	case PERF_RECORD_COMM:
		return k->comm ? k->comm(k->ctx, time, (int)rec->u.comm.pid, (int)rec->u.comm.tid, rec->u.comm.comm,
					 rec->u.comm.exec)
			       : 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return k->event ? k->event(k->ctx, sid->valid ? time : rec->u.task.time, cpu, (int)rec->u.task.pid,
					   (int)rec->u.task.tid, rec->type == PERF_RECORD_EXIT ? "exit" : "fork",
					   rec->u.task.ppid, rec->u.task.ptid)
				: 0;
	case PERF_RECORD_LOST:
		s->st->lost += rec->u.lost.lost;
		return k->event ? k->event(k->ctx, time, cpu, pid, tid, "lost", rec->u.lost.lost, rec->u.lost.id) : 0;
	case PERF_RECORD_LOST_SAMPLES:
		s->st->lost += rec->u.lost.lost;
		return k->event ? k->event(k->ctx, time, cpu, pid, tid, "lost-samples", rec->u.lost.lost, 0) : 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		bool on = rec->type == PERF_RECORD_THROTTLE;
		if (on)
			s->st->throttled++;
		uint64_t id = sid->valid ? sid->id : rec->u.throttle.id;
		return k->event ? k->event(k->ctx, time, cpu, pid, tid, on ? "throttle" : "unthrottle", id, 0) : 0;
	}
	default:
		/* KSYMBOL, BPF_EVENT, CGROUP...: nothing the hot regions need */
		return 0;
	}
}

static void drain_cpu(struct smp *s, struct smp_cpu *c)
{
	struct perf_event_mmap_page *pc = (void *)c->base;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	uint64_t off = pc->data_offset ? pc->data_offset : s->page;
	uint64_t size = pc->data_size ? pc->data_size : s->data_pages * s->page;
	struct ptring_record rec;
	char err[COLLECT_ERRLEN];
	int rc = 0;

	ptring_reader_init(s->reader, c->base + off, size, head, tail, s->sample_type, true);
	ptring_reader_set_read_format(s->reader, s->read_format);
	ptring_reader_set_regs_user(s->reader, s->sample_type & PERF_SAMPLE_REGS_USER ? COLLECT_DWARF_REGS_MASK : 0);
	while (!s->failed && (rc = ptring_next(s->reader, &rec, err, sizeof(err))) > 0) {
		if (deliver(s, c->cpu, &rec)) {
			s->failed = true;
			snprintf(s->err, s->errlen, "the consumer of the samples refused a PERF_RECORD_%s (CPU %d)",
				 ptring_type_name(rec.type), c->cpu);
		}
	}
	if (!s->failed && rc < 0) {
		/* the rest of this ring cannot be framed: skipped, and said */
		const struct collect_sample_sink *k = s->sink;
		if (k->event && k->event(k->ctx, 0, c->cpu, -1, -1, "ring-corrupt", head - s->reader->tail, 0)) {
			s->failed = true;
			snprintf(s->err, s->errlen, "the consumer of the samples refused an event: %s", err);
		}
		s->reader->tail = head;
	}
	if (s->failed)
		s->reader->tail = head;
	__atomic_store_n(&pc->data_tail, s->reader->tail, __ATOMIC_RELEASE);
}

static void drain_all(struct smp *s)
{
	for (int i = 0; i < s->n; i++)
		drain_cpu(s, &s->cpus[i]);
}

/* The plan's groups on the held child. Refused counters leave the run to
 * sampling; a permission refusal is tried again for user space alone
 * (perf_event_paranoid 2), on a copy of the plan, USER with its events in
 * *USER_EV, both kept by the caller for as long as GS is open. */
static void open_counting(const struct collect_plan *plan, pid_t pid, struct collect_groups *gs,
			  struct collect_plan *user, struct collect_event **user_ev,
			  enum collect_status *why_status, char *why, size_t whylen)
{
	char msg[COLLECT_ERRLEN];
	enum collect_status st = collect_groups_open(plan, -1, pid, gs, msg, sizeof(msg));
	bool kernel = false;
	for (size_t i = 0; i < plan->n; i++)
		kernel |= !plan->ev[i].attr.exclude_kernel;
	if (st == COLLECT_NO_PERMISSION && kernel && (*user_ev = malloc(plan->n * sizeof(**user_ev)))) {
		*user = *plan;
		memcpy(*user_ev, plan->ev, plan->n * sizeof(**user_ev));
		for (size_t i = 0; i < plan->n; i++)
			(*user_ev)[i].attr.exclude_kernel = 1;
		user->ev = *user_ev;
		char msg2[COLLECT_ERRLEN];
		if (collect_groups_open(user, -1, pid, gs, msg2, sizeof(msg2)) == COLLECT_OK) {
			*why_status = COLLECT_OK;
			if (why && whylen)
				snprintf(why, whylen,
					 "counted user space only: perf_event_paranoid is %d, which forbids "
					 "counting the kernel",
					 collect_perf_paranoid());
			return;
		}
	}
	*why_status = st;
	if (why && whylen)
		snprintf(why, whylen, "%s", st == COLLECT_OK ? "" : msg);
}

enum collect_status collect_sample_run(char *const argv[], const struct collect_sample_opts *o,
				       const struct collect_plan *plan, struct td_countset *cs,
				       enum collect_status *count_status, char *count_why, size_t why_len,
				       const struct collect_sample_sink *sink, struct collect_sample_stats *st,
				       struct collect_result *res, char *err, size_t errlen)
{
	static const struct collect_sample_opts no_opts;
	static const struct collect_sample_sink no_sink;
	struct collect_sample_stats local_st;
	struct smp s = { .err = err, .errlen = errlen };
	struct collect_groups groups = { .plan = NULL };
	struct collect_plan user_plan;
	struct collect_event *user_ev = NULL;
	struct collect_forward fwd = { .installed = false };
	enum collect_status status = COLLECT_OK, cstatus = COLLECT_OK;
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 };
	int *cpu_ids = NULL;
	struct pollfd *pfd = NULL;
	pid_t pid = -1;
	/* Intel PT of the same run */
	struct collect_pt_session *pt = NULL;
	struct collect_pt_stats pt_local;
	enum collect_status pt_status = COLLECT_OK;
	char pt_local_why[COLLECT_ERRLEN];
	char *pt_why = pt_local_why;
	size_t pt_why_len = sizeof pt_local_why, npt = 0;

	if (!o)
		o = &no_opts;
	if (!sink)
		sink = &no_sink;
	if (!st)
		st = &local_st;
	memset(st, 0, sizeof(*st));
	memset(res, 0, sizeof(*res));
	if (count_why && why_len)
		count_why[0] = 0;
	if (o->pt) {
		/* until the trace is set up */
		pt_status = COLLECT_ERROR;
		if (o->pt_why && o->pt_why_len)
			snprintf(o->pt_why, o->pt_why_len, "the program did not run");
	}
	s.o = o;
	s.sink = sink;
	s.st = st;
	s.user_only = o->user_only;
	s.sample_type = SAMPLE_TYPE_BASE | (o->callchain || o->dwarf_stack ? PERF_SAMPLE_CALLCHAIN : 0);
	if (o->dwarf_stack) {
		if (o->dwarf_stack % 8 || o->dwarf_stack > 65528) {
			snprintf(err, errlen, "user stack of %u bytes per sample: must be a multiple of 8 up to 65528",
				 o->dwarf_stack);
			status = COLLECT_ERROR;
			goto out;
		}
		s.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	}

	long pg = sysconf(_SC_PAGESIZE);
	s.page = pg > 0 ? (size_t)pg : 4096;
	s.data_pages = o->data_pages ? o->data_pages : DEFAULT_DATA_PAGES;
	if (s.data_pages & (s.data_pages - 1)) {
		snprintf(err, errlen, "sample ring of %zu pages: must be a power of two", s.data_pages);
		status = COLLECT_ERROR;
		goto out;
	}
	/* the kernel lowers its limit when sampling interrupts take too
	 * long: the default follows it, an explicit rate is refused */
	int max_rate = read_proc_int("/proc/sys/kernel/perf_event_max_sample_rate", 0);
	unsigned freq = o->freq ? o->freq : DEFAULT_FREQ;
	if (max_rate > 0 && freq > (unsigned)max_rate) {
		if (o->freq) {
			snprintf(err, errlen,
				 "sampling at %u Hz: above kernel.perf_event_max_sample_rate (%d); ask for less, or "
				 "raise it (sysctl kernel.perf_event_max_sample_rate=%u)",
				 freq, max_rate, freq);
			status = COLLECT_BAD_EVENT;
			goto out;
		}
		freq = (unsigned)max_rate;
	}

	s.n = collect_online_cpus(&cpu_ids);
	if (s.n < 1) {
		snprintf(err, errlen, "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		status = COLLECT_ERROR;
		goto out;
	}
	s.cpus = calloc((size_t)s.n, sizeof(*s.cpus));
	s.reader = malloc(sizeof(*s.reader));
	s.chain = s.sample_type & PERF_SAMPLE_CALLCHAIN ? malloc(CHAIN_MAX * sizeof(*s.chain)) : NULL;
	s.regs = malloc(64 * sizeof *s.regs);
	/* the PT rings of every CPU after the sampling rings */
	pfd = calloc(2 * (size_t)s.n, sizeof(*pfd));
	if (!s.cpus || !s.reader || !pfd || (s.sample_type & PERF_SAMPLE_CALLCHAIN && !s.chain) || !s.regs) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}
	for (int i = 0; i < s.n; i++) {
		s.cpus[i].cpu = cpu_ids[i];
		s.cpus[i].fd = -1;
	}
	st->ncpus = s.n;

	/* held until sampling and counting are attached: its first
	 * instruction is measured */
	pid = collect_start_held_io(argv, o->stdio, go, ex);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	/* counter groups read at each sample: the counting groups then are
	 * those, and PLAN is not counted apart; where they cannot be had,
	 * sampling and counting as without them */
	bool reading = false;
	if (o->read_groups && o->read_groups->n) {
		s.rg = o->read_groups;
		s.read_format = READ_FORMAT_GROUPS;
		s.sample_type |= PERF_SAMPLE_READ;
		char why[COLLECT_ERRLEN] = "";
		enum collect_status rs = open_sampling(&s, pid, freq);
		int e = 0;
		/* the other leaders write into the rings of the sampling
		 * event: mapped first, or their samples would go nowhere */
		if (rs == COLLECT_OK)
			rs = map_rings(&s);
		if (rs == COLLECT_OK && (e = open_read_groups(&s, &s.attr, pid, why, sizeof why)) == 0) {
			reading = true;
		} else {
			if (rs != COLLECT_OK)
				snprintf(why, sizeof why, "%s", err);
			close_read_groups(&s);
			for (int i = 0; i < s.n; i++) {
				if (s.cpus[i].base)
					munmap(s.cpus[i].base, s.cpus[i].len);
				s.cpus[i].base = NULL;
				if (s.cpus[i].fd >= 0)
					close(s.cpus[i].fd);
				s.cpus[i].fd = -1;
			}
			s.rg = NULL;
			s.read_format = 0;
			s.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
			memset(st->event, 0, sizeof st->event);
			memset(st->fallback, 0, sizeof st->fallback);
			err[0] = 0;
		}
		if (o->read_status)
			*o->read_status = reading ? COLLECT_OK
					  : e == EACCES || e == EPERM ? COLLECT_NO_PERMISSION
					  : e == ENOENT || e == EOPNOTSUPP || e == ENODEV ? COLLECT_NO_PMU
					  : COLLECT_BAD_EVENT;
		if (o->read_why && o->read_why_len)
			snprintf(o->read_why, o->read_why_len, "%s%s",
				 reading ? "" : "the counter groups cannot be read at samples: ", reading ? "" : why);
	}
	if (plan && cs && (!reading || plan != o->read_groups))
		open_counting(plan, pid, &groups, &user_plan, &user_ev, &cstatus, count_why, why_len);
	status = reading ? COLLECT_OK : open_sampling(&s, pid, freq);
	if (status != COLLECT_OK)
		goto out;
	st->user_only = s.user_only;
	status = reading ? COLLECT_OK : map_rings(&s);
	if (status != COLLECT_OK)
		goto out;
	if (o->pt) {
		if (o->pt_why && o->pt_why_len) {
			pt_why = o->pt_why;
			pt_why_len = o->pt_why_len;
		}
		pt_status = collect_pt_session_open(argv[0], o->pt, o->pt_data, pid,
						    o->pt_stats ? o->pt_stats : &pt_local, &pt, pt_why, pt_why_len);
		if (pt)
			npt = collect_pt_session_fds(pt, pfd + s.n, (size_t)s.n);
	}

	collect_forward_install(&fwd, pid);
	double t0 = collect_now();
	int exec_errno;
	if (collect_release_held(go, ex, argv[0], &exec_errno, err, errlen)) {
		status = COLLECT_ERROR;
		goto out;
	}

	for (int i = 0; i < s.n; i++) {
		pfd[i].fd = s.cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	double last_progress = t0;
	uint64_t reported = 0;
	bool killed = false;
	int wst = 0;
	for (;;) {
		/* once every ring has hung up the task is exiting: its reaping
		 * is waited for in steps of a millisecond, not of the 100 ms
		 * an empty poll would sleep (0.1 s of every recording) */
		bool any_open = false;
		for (size_t i = 0; i < (size_t)s.n + npt; i++)
			any_open |= pfd[i].fd >= 0;
		if (poll(pfd, (nfds_t)((size_t)s.n + npt), any_open ? 100 : 1) > 0)
			for (size_t i = 0; i < (size_t)s.n + npt; i++)
				/* the task it follows has exited: poll would say so
				 * at once, forever; its ring is still drained */
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1;
		drain_all(&s);
		if (pt) {
			collect_pt_session_poll(pt);
			if (collect_pt_session_failed(pt) && pt_status == COLLECT_OK)
				pt_status = COLLECT_WRITE_FAILED;
		}
		if ((s.failed || pt_status == COLLECT_WRITE_FAILED) && !killed) {
			/* nothing more can be taken: the program must not run on unmeasured */
			kill(pid, SIGKILL);
			killed = true;
		}
		double now = collect_now();
		if (o->progress && now - last_progress >= 0.5 && st->samples != reported) {
			last_progress = now;
			reported = st->samples;
			o->progress(o->progress_ctx, reported);
		}
		pid_t w = waitpid(pid, &wst, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
			status = COLLECT_ERROR;
			goto out;
		}
	}
	pid = -1;
	res->seconds = collect_now() - t0;
	res->wait_status = wst;
	res->interrupted = collect_forward_got() != 0;

	/* children it left behind stop being sampled here; what they and it
	 * wrote is taken to the last record */
	for (int i = 0; i < s.n; i++)
		ioctl(s.cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(&s);
	if (pt) {
		collect_pt_session_end(pt);
		if (collect_pt_session_failed(pt))
			pt_status = COLLECT_WRITE_FAILED;
	}
	if (o->progress && st->samples != reported)
		o->progress(o->progress_ctx, st->samples);

	if (exec_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		res->exec_errno = exec_errno;
		status = COLLECT_EXEC_FAILED;
		goto out;
	}
	if (s.failed) {
		status = COLLECT_ERROR;
		goto out;
	}
	if (groups.n && collect_groups_read(&groups, cs)) {
		cstatus = COLLECT_ERROR;
		if (count_why && why_len)
			snprintf(count_why, why_len, "reading the counters failed");
	}
	/* the groups' totals are the count set when they are its plan (or
	 * there is no other): --read-events beside a TMA set stay apart */
	if (reading && cs && (!plan || plan == o->read_groups) && read_group_totals(&s, cs)) {
		cstatus = COLLECT_ERROR;
		if (count_why && why_len)
			snprintf(count_why, why_len, "reading the counter groups failed");
	}
out:
	/* never started, or must not run on: killed */
	collect_kill_reap(pid);
	collect_forward_restore(&fwd);
	collect_close_pipe(go);
	collect_close_pipe(ex);
	collect_groups_close(&groups);
	close_read_groups(&s);
	collect_pt_session_close(pt, pt_status);
	if (o->pt_status)
		*o->pt_status = pt_status;
	free(user_ev);
	for (int i = 0; s.cpus && i < s.n; i++) {
		if (s.cpus[i].base)
			munmap(s.cpus[i].base, s.cpus[i].len);
		if (s.cpus[i].fd >= 0)
			close(s.cpus[i].fd);
	}
	if (count_status)
		*count_status = cstatus;
	free(s.cpus);
	free(s.reader);
	free(s.chain);
	free(s.regs);
	free(pfd);
	free(cpu_ids);
	return status;
}
