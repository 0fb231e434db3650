/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's simulations run side by side (report_internal.h): a pool
 * of threads takes the tasks costliest first, while the calling thread
 * says how far they are. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "report_internal.h"

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t *order;		/* task numbers, costliest first */
	size_t n, next, done;
	const struct report_pool_task *tasks;
	unsigned inner;		/* threads each heavy task's sweep may use */
	double heavy;		/* the cost from which a task is heavy */
};

static void *worker(void *p)
{
	struct pool *pl = p;
	for (;;) {
		pthread_mutex_lock(&pl->lock);
		if (pl->next == pl->n) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		const struct report_pool_task *t = &pl->tasks[pl->order[pl->next++]];
		pthread_mutex_unlock(&pl->lock);
		t->run(t->arg, t->cost >= pl->heavy ? pl->inner : 1);
		pthread_mutex_lock(&pl->lock);
		pl->done++;
		pthread_cond_signal(&pl->changed);
		pthread_mutex_unlock(&pl->lock);
	}
}

static int costlier(const void *a, const void *b, void *arg)
{
	const struct report_pool_task *t = arg;
	double x = t[*(const size_t *)a].cost, y = t[*(const size_t *)b].cost;
	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

void report_pool_run(const struct report_pool_task *tasks, size_t n, unsigned threads,
		     void (*tick)(void *ctx, size_t done, size_t n), void *ctx)
{
	if (!n)
		return;
	struct pool pl = { .tasks = tasks, .n = n };
	pl.order = malloc(n * sizeof *pl.order);
	if (!pl.order)
		abort();
	for (size_t i = 0; i < n; i++)
		pl.order[i] = i;
	qsort_r(pl.order, n, sizeof *pl.order, costlier, (void *)tasks);
	if (threads < 1)
		threads = 1;
	/* a task costing a quarter of the costliest or more is heavy: the
	 * threads left over when there are fewer heavy tasks than threads go
	 * to their sweeps */
	pl.heavy = tasks[pl.order[0]].cost / 4;
	size_t heavy = 0;
	for (size_t i = 0; i < n; i++)
		heavy += tasks[i].cost >= pl.heavy;
	pl.inner = heavy && heavy < threads ? (unsigned)(threads / heavy) : 1;
	unsigned workers = threads < n ? threads : (unsigned)n;
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.changed, NULL);
	pthread_t *tid = calloc(workers, sizeof *tid);
	if (!tid)
		abort();
	for (unsigned i = 0; i < workers; i++)
		if (pthread_create(&tid[i], NULL, worker, &pl))
			abort();
	pthread_mutex_lock(&pl.lock);
	while (pl.done < n) {
		size_t done = pl.done;
		pthread_mutex_unlock(&pl.lock);
		if (tick)
			tick(ctx, done, n);
		pthread_mutex_lock(&pl.lock);
		if (pl.done != done)
			continue;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (pl.done == done && pthread_cond_timedwait(&pl.changed, &pl.lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&pl.lock);
	for (unsigned i = 0; i < workers; i++)
		pthread_join(tid[i], NULL);
	if (tick)
		tick(ctx, n, n);
	free(tid);
	free(pl.order);
	pthread_mutex_destroy(&pl.lock);
	pthread_cond_destroy(&pl.changed);
}
