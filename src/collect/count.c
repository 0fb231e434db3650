/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A counting session: start the program held at a pipe, attach the
 * counters (inherited by its threads and children, enabled at exec), let it
 * run, forward SIGINT/SIGTERM, read the counts. */
#include "collect.h"
#include "collect_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int collect_perf_paranoid(void)
{
	int v = -1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

int collect_exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static enum collect_status classify_open_error(int e, const char *event, bool kernel,
					       char *err, size_t errlen)
{
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(err, errlen,
			 "cannot count %s: %s. This machine exposes no hardware PMU to Linux "
			 "(a virtual machine without PMU passthrough, or an unsupported CPU). "
			 "Measured TMA needs bare-metal Intel or AMD (Zen 4, Zen 5) hardware; software events "
			 "(gus stat -e task-clock,page-faults) still work, and "
			 "'gus stat --print-events' gives the perf command to run elsewhere "
			 "for 'gus stat --import'",
			 event, strerror(e));
		return COLLECT_NO_PMU;
	case EACCES:
	case EPERM:
		snprintf(err, errlen,
			 "cannot count %s: %s (perf_event_paranoid is %d%s). Lower it "
			 "(sysctl kernel.perf_event_paranoid=1 allows user+kernel counting of "
			 "your own processes, 2 user space only: try -u; AnyThread events, "
			 "used with SMT on Skylake-class cores, need 0), or run with "
			 "CAP_PERFMON (Linux 5.8+) or as root",
			 event, strerror(e), collect_perf_paranoid(),
			 kernel ? ", counting kernel space" : "");
		return COLLECT_NO_PERMISSION;
	default:
		snprintf(err, errlen, "cannot count %s: %s (the kernel rejected the event%s)",
			 event, strerror(e),
			 e == EINVAL ? "; a group larger than the PMU's counters, or an encoding "
				       "this CPU does not have" : "");
		return COLLECT_BAD_EVENT;
	}
}

/* One event group: libperf for ordinary groups; a group read at once (the
 * PERF_METRICS group, SPIRE's groups) is opened with the syscall because
 * its PERF_FORMAT_GROUP read needs the leader's fd, which libperf does not
 * expose. */
struct collect_group {
	struct perf_evlist *evlist;
	int *fds;		/* a group read at once: one fd per member */
	size_t first, n;	/* plan indices */
	bool group_read;
	char *not_supported;	/* each_alone: why the kernel refused it (not opened) */
};

static int sys_perf_open(struct perf_event_attr *attr, pid_t pid, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

enum collect_status collect_probe_hw_counters(char *err, size_t errlen)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_kernel = 1,	/* allowed at every perf_event_paranoid below 3 */
		.exclude_hv = 1,
	};
	int fd = sys_perf_open(&a, 0, -1);
	if (fd >= 0) {
		close(fd);
		return COLLECT_OK;
	}
	return classify_open_error(errno, "cycles", false, err, errlen);
}

static void prepare_attr(struct perf_event_attr *a, bool leader, bool group_read)
{
	a->inherit = 1;
	a->disabled = leader;
	a->enable_on_exec = leader;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group_read)
		a->read_format |= PERF_FORMAT_GROUP;
}

static int open_read_group(struct collect_group *g, const struct collect_plan *plan,
			      pid_t pid, int *failed)
{
	g->fds = malloc(g->n * sizeof(int));
	if (!g->fds)
		return ENOMEM;
	for (size_t i = 0; i < g->n; i++)
		g->fds[i] = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		/* older kernels refuse PERF_FORMAT_GROUP with inherit: read each */
		g->group_read = attempt == 0;
		int e = 0;
		size_t i;
		for (i = 0; i < g->n; i++) {
			struct perf_event_attr a = plan->ev[g->first + i].attr;
			prepare_attr(&a, i == 0, g->group_read && i == 0);
			g->fds[i] = sys_perf_open(&a, pid, i ? g->fds[0] : -1);
			if (g->fds[i] < 0) {
				e = errno;
				break;
			}
		}
		if (!e)
			return 0;
		*failed = (int)(g->first + i);
		while (i-- > 0) {
			close(g->fds[i]);
			g->fds[i] = -1;
		}
		if (!(attempt == 0 && e == EINVAL && *failed == (int)g->first))
			return e;
	}
	return EINVAL;
}

static int open_libperf_group(struct collect_group *g, const struct collect_plan *plan,
			      struct perf_thread_map *threads, int *failed)
{
	g->evlist = perf_evlist__new();
	if (!g->evlist)
		return ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		struct perf_event_attr a = plan->ev[g->first + i].attr;
		prepare_attr(&a, i == 0, false);
		struct perf_evsel *ev = perf_evsel__new(&a);
		if (!ev)
			return ENOMEM;
		perf_evlist__add(g->evlist, ev);
	}
	if (g->n > 1)
		perf_evlist__set_leader(g->evlist);
	size_t i = 0;
	struct perf_evsel *ev;
	perf_evlist__for_each_evsel(g->evlist, ev) {
		int rc = perf_evsel__open(ev, NULL, threads);
		if (rc < 0) {
			*failed = (int)(g->first + i);
			return -rc;
		}
		i++;
	}
	return 0;
}

static int read_group(const struct collect_group *g, const struct collect_plan *plan,
		      struct td_countset *cs)
{
	if (g->not_supported) {
		for (size_t i = 0; i < g->n; i++) {
			char why[COLLECT_ERRLEN + 32];
			snprintf(why, sizeof why, "not supported: %s", g->not_supported);
			if (td_countset_add_uncounted(cs, plan->ev[g->first + i].name, why))
				return -1;
		}
		return 0;
	}
	if (g->evlist) {
		size_t i = 0;
		struct perf_evsel *ev;
		perf_evlist__for_each_evsel(g->evlist, ev) {
			struct perf_counts_values v;
			const char *name = plan->ev[g->first + i++].name;
			if (perf_evsel__read(ev, 0, 0, &v) < 0) {
				if (td_countset_add_uncounted(cs, name, "read failed"))
					return -1;
				continue;
			}
			if (td_countset_add(cs, name, (double)v.val, (double)v.ena, (double)v.run))
				return -1;
		}
		return 0;
	}
	if (g->group_read) {
		/* nr, time_enabled, time_running, value[nr] */
		uint64_t buf[3 + 64];
		ssize_t got = read(g->fds[0], buf, sizeof(buf));
		if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != g->n)
			return -1;
		for (size_t i = 0; i < g->n; i++)
			if (td_countset_add(cs, plan->ev[g->first + i].name, (double)buf[3 + i],
					    (double)buf[1], (double)buf[2]))
				return -1;
		return 0;
	}
	for (size_t i = 0; i < g->n; i++) {
		uint64_t v[3];
		const char *name = plan->ev[g->first + i].name;
		int rc = read(g->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v)
				 ? td_countset_add(cs, name, (double)v[0], (double)v[1], (double)v[2])
				 : td_countset_add_uncounted(cs, name, "read failed");
		if (rc)
			return -1;
	}
	return 0;
}

static void close_group(struct collect_group *g)
{
	if (g->evlist) {
		perf_evlist__close(g->evlist);
		perf_evlist__delete(g->evlist);
	}
	if (g->fds)
		for (size_t i = 0; i < g->n; i++)
			if (g->fds[i] >= 0)
				close(g->fds[i]);
	free(g->fds);
	free(g->not_supported);
	memset(g, 0, sizeof(*g));
}

void collect_groups_close(struct collect_groups *gs)
{
	for (int i = 0; gs->g && i < gs->n; i++)
		close_group(&gs->g[i]);
	free(gs->g);
	if (gs->threads)
		perf_thread_map__put(gs->threads);
	memset(gs, 0, sizeof(*gs));
}

enum collect_status collect_groups_open(const struct collect_plan *plan, int only_group, pid_t pid,
					struct collect_groups *gs, char *err, size_t errlen)
{
	memset(gs, 0, sizeof(*gs));
	gs->plan = plan;
	libperf_init(libperf_quiet);
	gs->g = calloc((size_t)plan->n_groups + 1, sizeof(*gs->g));
	if (!gs->g || !(gs->threads = perf_thread_map__new_dummy())) {
		collect_groups_close(gs);
		snprintf(err, errlen, "out of memory");
		return COLLECT_ERROR;
	}
	perf_thread_map__set_pid(gs->threads, 0, pid);

	enum collect_status refused = COLLECT_OK;
	size_t opened = 0;
	for (size_t i = 0; i < plan->n;) {
		int gi = plan->ev[i].group;
		size_t j = i;
		while (j < plan->n && plan->ev[j].group == gi)
			j++;
		if (only_group >= 0 && gi != only_group) {
			i = j;
			continue;
		}
		struct collect_group *g = &gs->g[gs->n++];
		g->first = i;
		g->n = j - i;
		int failed = (int)i;
		int e = plan->ev[i].group_read ? open_read_group(g, plan, pid, &failed)
						   : open_libperf_group(g, plan, gs->threads, &failed);
		if (e) {
			char why[COLLECT_ERRLEN];
			enum collect_status st = classify_open_error(e, plan->ev[failed].name,
								     !plan->ev[failed].attr.exclude_kernel,
								     why, sizeof why);
			/* perf stat's reason is short: the whole story goes with the
			 * error when nothing at all can be counted */
			char *keep = plan->each_alone && st != COLLECT_NO_PERMISSION
					     ? strdup(st == COLLECT_NO_PMU ? "no hardware PMU on this machine" : strerror(e))
					     : NULL;
			if (!keep) {
				snprintf(err, errlen, "%s", why);
				collect_groups_close(gs);
				return st;
			}
			/* what did open of it is closed; its events read as not supported */
			size_t first = g->first, n = g->n;
			close_group(g);
			g->first = first;
			g->n = n;
			g->not_supported = keep;
			/* the first refusal is the error when none opens */
			if (!refused) {
				refused = st;
				snprintf(err, errlen, "%s", why);
			}
		} else {
			opened++;
		}
		i = j;
	}
	if (!opened && refused) {
		collect_groups_close(gs);
		return refused;
	}
	return COLLECT_OK;
}

int collect_groups_read(const struct collect_groups *gs, struct td_countset *cs)
{
	for (int i = 0; i < gs->n; i++)
		if (read_group(&gs->g[i], gs->plan, cs))
			return -1;
	return 0;
}

enum collect_status collect_count(const struct collect_plan *plan, int only_group,
				  char *const argv[], struct td_countset *cs,
				  struct collect_result *res, char *err, size_t errlen)
{
	enum collect_status status = COLLECT_OK;
	struct collect_groups groups = { .plan = NULL };
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 };
	struct collect_forward fwd = { .installed = false };
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	/* held until the counters are attached, so that none of it runs uncounted */
	pid = collect_start_held(argv, go, ex);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	status = collect_groups_open(plan, only_group, pid, &groups, err, errlen);
	if (status != COLLECT_OK)
		goto out;

	collect_forward_install(&fwd, pid);

	double t0 = collect_now();
	int exec_errno;
	if (collect_release_held(go, ex, argv[0], &exec_errno, err, errlen)) {
		status = COLLECT_ERROR;
		goto out;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
			status = COLLECT_ERROR;
			goto out;
		}
	}
	pid = -1;
	res->seconds = collect_now() - t0;
	res->wait_status = st;
	res->interrupted = collect_forward_got() != 0;
	if (exec_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		res->exec_errno = exec_errno;
		status = COLLECT_EXEC_FAILED;
		goto out;
	}
	if (collect_groups_read(&groups, cs)) {
		snprintf(err, errlen, "reading the counters failed");
		status = COLLECT_ERROR;
		goto out;
	}
out:
	/* never started (counters refused): do not let it run uncounted */
	collect_kill_reap(pid);
	collect_forward_restore(&fwd);
	collect_close_pipe(go);
	collect_close_pipe(ex);
	collect_groups_close(&groups);
	return status;
}

/* "0-3,5,7-8"; a missing file (no sysfs) falls back to 0..N-1 */
int collect_online_cpus(int **out)
{
	char buf[4096];
	int *v = NULL, n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	bool ok = f && fgets(buf, sizeof(buf), f);
	if (f)
		fclose(f);
	*out = NULL;
	if (!ok) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		if (c < 1 || c > 65536 || !(v = malloc((size_t)c * sizeof(int))))
			return -1;
		for (n = 0; n < c; n++)
			v[n] = n;
		*out = v;
		return n;
	}
	for (char *p = buf; *p && *p != '\n';) {
		char *e;
		long a = strtol(p, &e, 10), b = a;
		if (e == p || a < 0)
			break;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long c = a; c <= b && c < 65536; c++) {
			int *nv = realloc(v, (size_t)(n + 1) * sizeof(int));
			if (!nv) {
				free(v);
				return -1;
			}
			v = nv;
			v[n++] = (int)c;
		}
		p = *e == ',' ? e + 1 : e;
	}
	if (!n) {
		free(v);
		return -1;
	}
	*out = v;
	return n;
}
