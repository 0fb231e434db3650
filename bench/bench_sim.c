/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Speed of the core model: simulated instructions per second for one
 * configuration, and for a full sensitivity sweep, on a long stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a compiled-kernel-like body: loads, FP multiply-add, integer work, a
 * store and the loop branch (saxpy-like, with an index update) */
static const char body_hex[] =
	"c5fa100487"		/* vmovss xmm0, [rdi+rax*4] */
	"c4e271990486"		/* vfmadd132ss xmm0, xmm1, [rsi+rax*4] */
	"c5fa110482"		/* vmovss [rdx+rax*4], xmm0 */
	"4883c001"		/* add rax, 1 */
	"4801cb"		/* add rbx, rcx */
	"4c39c0"		/* cmp rax, r8 */
	"75e4";			/* jnz start */

int main(int argc, char **argv)
{
	const char *top = getenv("GUS_TOP") ? getenv("GUS_TOP") : ".";
	long n_iter = argc > 1 ? atol(argv[1]) : 2000000;
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/data/machines/skx.mm", top);
	struct sim_machine *m = sim_machine_load(path, err, sizeof err);
	if (!m) {
		fprintf(stderr, "bench_sim: %s\n", err);
		return 1;
	}
	uint8_t buf[64];
	size_t len = 0;
	for (const char *p = body_hex; p[0] && p[1]; p += 2) {
		unsigned v;
		sscanf(p, "%2x", &v);
		buf[len++] = (uint8_t)v;
	}
	struct sim_code *code = sim_code_new(m);
	struct sim_rec *recs;
	size_t n, per;
	if (sim_stream_loop(code, 0x1000, buf, len, (unsigned)n_iter, &recs, &n, &per, err, sizeof err)) {
		fprintf(stderr, "bench_sim: %s\n", err);
		return 1;
	}
	/* one configuration, one thread */
	struct sim_config cfg;
	for (int i = 0; i < SIM_MAX_RES; i++)
		cfg.w[i] = 1;
	double best = 0;
	for (int rep = 0; rep < 3; rep++) {
		struct sim_session *s = sim_session_new(m, code, &cfg, 1, 1, err, sizeof err);
		double t0 = now();
		sim_session_feed(s, recs, n);
		double t1 = now();
		struct sim_stats st;
		struct sim_events ev;
		sim_session_finish(s, &st, &ev);
		sim_events_free(&ev);
		sim_session_free(s);
		double rate = (double)n / (t1 - t0);
		if (rate > best)
			best = rate;
	}
	printf("one configuration alone: %.1f million instructions/s (best of 3, %zu instructions; with the decoding, "
	       "caches and predictor of the stream, which a sweep shares)\n", best / 1e6, n);

	/* a full sweep: every resource x 16 weights + unlimited, all cores */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	double w[16];
	for (int i = 0; i < 16; i++)
		w[i] = 1 + 0.01 * i;
	uint8_t res[SIM_MAX_RES];
	for (unsigned i = 0; i < sim_nres(m); i++)
		res[i] = (uint8_t)i;
	size_t sweep_n = n / 10;
	struct sim_source src = { .recs = recs, .n = sweep_n, .mark = sweep_n / 4, .units = 0 };
	struct sim_analysis_opts o = {
		.weights = w, .nweights = 16, .resources = res, .nresources = sim_nres(m),
		.threshold = 0.01, .search = false, .threads = (unsigned)(cores > 0 ? cores : 1),
	};
	struct sim_analysis a;
	double t0 = now();
	if (sim_analyze(m, code, &src, &o, &a, err, sizeof err)) {
		fprintf(stderr, "bench_sim: %s\n", err);
		return 1;
	}
	double t1 = now();
	double configs = 1 + (double)sim_nres(m) * 17;
	double total = configs * (double)sweep_n;
	printf("full sweep: %u resources x 17 = %.0f configurations over %zu instructions in %.2f s on %ld cores:\n"
	       "  %.1f million simulated instructions/s in all, %.1f per core\n",
	       sim_nres(m), configs, sweep_n, t1 - t0, cores, total / (t1 - t0) / 1e6,
	       total / (t1 - t0) / 1e6 / (double)(cores > 0 ? cores : 1));
	/* issue 35: >= 60 M simulated instructions per second per
	 * configuration, the retirement limit included */
	double per_config = total / (t1 - t0) / (double)(cores > 0 ? cores : 1);
	printf("target: >= 60 million instructions/s per configuration and core in a sweep: %s (%.1f)\n",
	       per_config >= 60e6 ? "met" : "NOT met", per_config / 1e6);
	printf("one configuration alone, >= 40 million: %s\n", best >= 40e6 ? "met" : "NOT met");
	sim_analysis_free(&a);
	free(recs);
	sim_code_free(code);
	sim_machine_free(m);
	return 0;
}
