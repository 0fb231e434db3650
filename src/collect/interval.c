/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interval counting (gus stat -I, like perf stat -I): the plan's groups
 * read every N milliseconds while the program runs, each interval's
 * increases handed to a sink. */
#include "collect.h"
#include "collect_internal.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------ interval counting --- */
static int pidfd_for(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static struct timespec to_timespec(double s)
{
	struct timespec ts;
	if (s < 0)
		s = 0;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (ts.tv_nsec < 0)
		ts.tv_nsec = 0;
	return ts;
}

/* Reaps the program if it has ended: 1 (status in *ST), 0 while it runs,
 * -1 on an error other than EINTR. */
static int reap(pid_t pid, int *st)
{
	for (;;) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* Sleeps until DEADLINE (CLOCK_MONOTONIC seconds, collect_now's clock) or
 * until the program ends, whichever comes first; a signal (SIGINT and
 * SIGTERM are forwarded to the program) only wakes it early. */
static void wait_until(double deadline, int pidfd)
{
	double now = collect_now();
	if (now >= deadline)
		return;
	if (pidfd >= 0) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };
		struct timespec ts = to_timespec(deadline - now);
		(void)ppoll(&p, 1, &ts, NULL);
		return;
	}
	struct timespec abs = to_timespec(deadline);
	(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
}

/* Where the counts stood at the previous read. */
struct baseline {
	double *raw, *ena, *run;
	size_t n;
};

/* INTERVAL gets CUR less the baseline, event by event; the baseline
 * becomes CUR. -1 on out of memory or when the reads do not line up. */
static int interval_delta(struct baseline *b, const struct td_countset *cur, struct td_countset *iv)
{
	if (cur->n != b->n)
		return -1;
	for (size_t i = 0; i < cur->n; i++) {
		const struct td_count *c = &cur->c[i];
		if (!c->counted) {
			if (td_countset_add_uncounted(iv, c->event, c->why_not ? c->why_not : "read failed"))
				return -1;
			continue;
		}
		/* counters only grow; clamp what a torn read could make negative */
		double dr = fmax(c->raw - b->raw[i], 0), de = fmax(c->enabled - b->ena[i], 0);
		double dn = fmax(c->running - b->run[i], 0);
		if (td_countset_add(iv, c->event, dr, de, dn))
			return -1;
		b->raw[i] = fmax(c->raw, b->raw[i]);
		b->ena[i] = fmax(c->enabled, b->ena[i]);
		b->run[i] = fmax(c->running, b->run[i]);
	}
	return 0;
}

static bool any_enabled(const struct td_countset *iv)
{
	for (size_t i = 0; i < iv->n; i++)
		if (iv->c[i].counted && iv->c[i].enabled > 0)
			return true;
	return false;
}

enum collect_status collect_count_intervals(const struct collect_plan *plan, char *const argv[],
					    unsigned interval_ms, const struct collect_interval_sink *sink,
					    struct td_countset *total, struct collect_result *res, char *err,
					    size_t errlen)
{
	enum collect_status status = COLLECT_OK;
	struct collect_groups groups = { .plan = NULL };
	struct collect_forward fwd = { .installed = false };
	struct td_countset cur, iv;
	struct baseline b = { .n = plan->n };
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 };
	int pidfd = -1;
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	td_countset_init(&cur);
	td_countset_init(&iv);
	if (interval_ms < 1 || !sink || !sink->interval) {
		snprintf(err, errlen, "interval counting needs an interval of at least 1 ms and a sink");
		return COLLECT_ERROR;
	}
	b.raw = calloc(plan->n + 1, sizeof(double));
	b.ena = calloc(plan->n + 1, sizeof(double));
	b.run = calloc(plan->n + 1, sizeof(double));
	if (!b.raw || !b.ena || !b.run) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}

	/* held until the counters are attached, so that none of it runs uncounted */
	pid = collect_start_held(argv, go, ex);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	status = collect_groups_open(plan, -1, pid, &groups, err, errlen);
	if (status != COLLECT_OK)
		goto out;
	collect_forward_install(&fwd, pid);
	/* wakes the wait below when the program ends; without it (Linux
	 * before 5.3) the end is noticed at the next interval */
	pidfd = pidfd_for(pid);

	double t0 = collect_now();
	int exec_errno;
	if (collect_release_held(go, ex, argv[0], &exec_errno, err, errlen)) {
		status = COLLECT_ERROR;
		goto out;
	}
	int st = 0;
	if (exec_errno) {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		pid = -1;
		res->wait_status = st;
		res->seconds = collect_now() - t0;
		res->exec_errno = exec_errno;
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		status = COLLECT_EXEC_FAILED;
		goto out;
	}

	const double step = interval_ms / 1000.0;
	double deadline = t0 + step, last_t = 0;
	for (;;) {
		int ended;
		while ((ended = reap(pid, &st)) == 0 && collect_now() < deadline)
			wait_until(deadline, pidfd);
		if (ended < 0) {
			snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
			status = COLLECT_ERROR;
			goto out;
		}
		double now = collect_now();
		if (ended) {
			pid = -1;
			res->wait_status = st;
			res->seconds = now - t0;
			res->interrupted = collect_forward_got() != 0;
		}
		td_countset_free(&cur);
		td_countset_free(&iv);
		if (collect_groups_read(&groups, &cur) || interval_delta(&b, &cur, &iv)) {
			snprintf(err, errlen, "reading the counters failed");
			status = COLLECT_ERROR;
			goto out;
		}
		double t = now - t0;
		/* the last, partial interval, unless it is empty: the program
		 * ended right after the previous read */
		bool empty = ended && (t <= last_t || !any_enabled(&iv));
		if (!empty && sink->interval(sink->ctx, t, &iv)) {
			snprintf(err, errlen, "the interval output failed%s",
				 ended ? "" : "; the program was killed");
			status = COLLECT_ERROR;
			goto out;
		}
		last_t = t;
		if (ended)
			break;
		/* the next deadline after now: a late wake-up skips intervals
		 * rather than printing a burst of short ones */
		deadline += step;
		if (deadline <= now)
			deadline += step * floor((now - deadline) / step + 1);
	}
	if (total) {
		for (size_t i = 0; i < cur.n; i++) {
			const struct td_count *c = &cur.c[i];
			int rc = c->counted ? td_countset_add(total, c->event, c->raw, c->enabled, c->running)
					    : td_countset_add_uncounted(total, c->event, c->why_not);
			if (rc) {
				snprintf(err, errlen, "out of memory");
				status = COLLECT_ERROR;
				goto out;
			}
		}
	}
out:
	/* never started (counters refused), or stopped by an error: it must
	 * not run on unwatched */
	if (pid > 0 && status != COLLECT_OK) {
		kill(pid, SIGKILL);
		int st2 = 0;
		while (waitpid(pid, &st2, 0) < 0 && errno == EINTR)
			;
		res->wait_status = st2;
		pid = -1;
	}
	collect_kill_reap(pid);
	collect_forward_restore(&fwd);
	collect_close_pipe(go);
	collect_close_pipe(ex);
	if (pidfd >= 0)
		close(pidfd);
	collect_groups_close(&groups);
	td_countset_free(&cur);
	td_countset_free(&iv);
	free(b.raw);
	free(b.ena);
	free(b.run);
	return status;
}
