/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE's speed: perf stat -I import, training and analysis of sets the
 * size of the paper's (about 3000 samples per metric, 40 metrics) and
 * larger, median of 5 runs each. */
#include "spire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NMETRICS 40
#define RUNS 5

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double uniform(uint64_t *s)
{
	return (double)(xorshift(s) >> 11) / 9007199254740992.0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* perf stat -I -x, text: INTERVALS intervals of NMETRICS/4 groups, each
 * {T, W, 4 metrics}, throughput under per-metric ceilings min(a*I, b) */
static char *make_perf_text(size_t intervals, size_t *len)
{
	size_t cap = intervals * (NMETRICS / 4) * 6 * 80 + 1;
	char *text = malloc(cap);
	uint64_t seed = 0x5eed1234;
	size_t n = 0;
	if (!text)
		return NULL;
	for (size_t k = 0; k < intervals; k++) {
		double ts = 0.1 * (double)(k + 1);
		for (int g = 0; g < NMETRICS / 4; g++) {
			double t = 2.5e8 * (0.97 + 0.03 * uniform(&seed)), ivals[4], p = 4;
			for (int j = 0; j < 4; j++) {
				ivals[j] = exp(log(0.5) + uniform(&seed) * log(2e4));
				double a = 0.05 + 0.1 * (g * 4 + j) / NMETRICS;
				double c = fmin(a * ivals[j], 3.8);
				p = fmin(p, c);
			}
			p *= 0.5 + 0.5 * uniform(&seed);
			n += (size_t)snprintf(text + n, cap - n, "%14.9f,%.0f,,cpu_clk_unhalted.thread,25000000,10.00,,\n"
					      "%14.9f,%.0f,,inst_retired.any,25000000,10.00,,\n", ts, t, ts, p * t);
			for (int j = 0; j < 4; j++)
				n += (size_t)snprintf(text + n, cap - n, "%14.9f,%.0f,,metric.m%02d,25000000,10.00,,\n", ts,
						      p * t / ivals[j], g * 4 + j);
		}
	}
	*len = n;
	return text;
}

static void bench(size_t intervals)
{
	size_t len;
	char *text = make_perf_text(intervals, &len);
	double t_import[RUNS], t_train[RUNS], t_analyze[RUNS];
	size_t samples = 0;
	char err[SPIRE_ERRLEN];
	if (!text)
		return;
	for (int r = 0; r < RUNS; r++) {
		struct spire_sampleset ss;
		struct spire_model m = { 0 };
		struct spire_analysis a = { 0 };
		FILE *f = fmemopen(text, len, "r");
		spire_sampleset_init(&ss, NULL, NULL);
		double t0 = now();
		if (spire_import_perf_intervals(f, "bench", &ss, err, sizeof err)) {
			fprintf(stderr, "bench_spire: %s\n", err);
			exit(1);
		}
		double t1 = now();
		if (spire_train(&ss, NULL, 0, &m, NULL, NULL, NULL, err, sizeof err)) {
			fprintf(stderr, "bench_spire: %s\n", err);
			exit(1);
		}
		double t2 = now();
		if (spire_analyze(&m, &ss, &a, err, sizeof err)) {
			fprintf(stderr, "bench_spire: %s\n", err);
			exit(1);
		}
		double t3 = now();
		t_import[r] = t1 - t0;
		t_train[r] = t2 - t1;
		t_analyze[r] = t3 - t2;
		samples = m.n_samples;
		fclose(f);
		spire_analysis_free(&a);
		spire_model_free(&m);
		spire_sampleset_free(&ss);
	}
	qsort(t_import, RUNS, sizeof(double), cmp_double);
	qsort(t_train, RUNS, sizeof(double), cmp_double);
	qsort(t_analyze, RUNS, sizeof(double), cmp_double);
	printf("bench_spire: %7zu samples (%2d metrics, %5.1f MB of perf stat -I): import %.3f s, train %.3f s, "
	       "analyze %.3f s (median of %d)\n",
	       samples, NMETRICS, (double)len / 1e6, t_import[RUNS / 2], t_train[RUNS / 2], t_analyze[RUNS / 2], RUNS);
	free(text);
}

int main(void)
{
	bench(3000);	/* the paper: ~3000 samples per metric */
	bench(30000);
	return 0;
}
