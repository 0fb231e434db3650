/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * harness.c - timing driver of the gus sim accuracy benchmark.
 *
 * Linked with calib.S and with the kernels.S and table.c that run.sh
 * generates from kernels.txt. It measures the core cycles per loop
 * iteration of every kernel without a PMU:
 *
 *   - the process is pinned to one CPU, MXCSR gets FTZ|DAZ, and the CPU is
 *     kept busy for a while before the first measurement (warm-up);
 *   - one sample times R calls of the kernel with K1 iterations and R calls
 *     with K2 = 4 * K1 iterations (rdtsc), after one untimed call so that
 *     both batches start in the kernel's steady state, then a chain of
 *     CALIB_ADDS * CALIB_ITERS dependent 1-cycle adds (after a short untimed
 *     piece of chain that absorbs the stall of a switch from vector code).
 *     The per-call costs (call, register set-up, loop exit misprediction)
 *     cancel in the difference, and the add chain converts TSC ticks to
 *     core cycles:
 *
 *       cycles/iter = (T(K2) - T(K1)) / (R * (K2 - K1)) / (T(chain) / adds)
 *
 *     The chain runs right after the kernel to see the same clock (turbo,
 *     AVX licence) as closely as a PMU-less tool can;
 *   - samples are taken in rounds: each round visits every kernel for a few
 *     samples, so a kernel's samples are spread over the whole run;
 *   - a throughput-bound probe loop (bench_probe, PROBE_ADDS independent
 *     adds) is timed before and after every sample. On a virtual machine
 *     another thread (typically a neighbour's on the SMT sibling) may share
 *     the physical core for seconds at a time and slow throughput-bound
 *     code down by up to 2x, while the dependent add chain of the
 *     calibration hardly notices. The speed of the probe on an undisturbed
 *     core is learnt from a histogram of all probes (see probe_reference);
 *     before a sample the harness waits, spinning on the probe (at most
 *     MAX_WAIT s per sample and while the --budget lasts), until the probe
 *     runs within PROBE_TOL of that speed. At the end a sample counts only
 *     if the probes on both sides of it were within PROBE_TOL of the final
 *     reference; kernels with fewer than half of rounds x samples such
 *     samples get extra rounds while the budget lasts, and a kernel left
 *     with fewer than 5 (or fewer than a quarter) keeps all of them;
 *   - the result is the median of the samples kept, with the interquartile
 *     range relative to the median as a noise figure.
 *
 * Output, on stdout: '#' comment lines, then one line per kernel:
 *   name TAB cycles/iter TAB iqr-% TAB kept TAB taken TAB K1 TAB K2 TAB R
 * or name TAB "fault" TAB reason when the kernel crashed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench.h"

/* Advancing kernels stay inside DATA_KIB of each buffer (run.sh --data).
 * The default 12 KiB keeps them in the L1 with K2 up to KMAX; a larger
 * size (say 256 KiB, for the L2) makes K2 cover all of it, so that every
 * call streams through more than an L1 holds. */
#ifndef DATA_KIB
#define DATA_KIB	12u
#endif
#define DATA_BYTES	(DATA_KIB * 1024u)
#define PAD_BYTES	(4u * 1024u)	/* addressable slack either side */
#define PAGE		4096u
#define CALIB_ITERS	100u		/* x CALIB_ADDS dependent adds */
#define PROBE_ITERS	4000u
#define PROBE_TOL	1.03		/* accepted probe deviation */
#define MAX_WAIT	1.0		/* s of waiting for a quiet core per sample */
#define CALIB_TOL	1.03		/* consecutive calibrations that agree */
#define SEED_MIN	3.0		/* s of probing before the first sample */
#define KMAX		2000u		/* K2 of fixed-address kernels */
#define TARGET_TICKS	200000.0	/* TSC ticks per timed batch of K2 */

struct kstate {
	const struct bench_kernel *kr;
	unsigned k1, k2, r;
	const char *fault;		/* NULL, or why it is not measured */
	double *val;			/* per sample: cycles/iter */
	double *pb, *pa;		/* per sample: probes before, after */
	unsigned n;
};

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_sig;
static struct bench_bufs bufs;

/* Histogram of the probe speeds seen so far, in log-spaced bins HBIN_STEP
 * (0.5 %) wide from HBIN_LO up. Probes on an undisturbed core form one
 * sharp peak (nearly all of its neighbourhood within +-1 %); a core shared
 * with a busy SMT sibling gives a slower, broad hump; partly disturbed
 * probes spread out in between, and a stray probe can even look too fast.
 * The reference speed is the fastest sharp peak with at least CLUSTER_MIN
 * probes; without one (the core was never seen undisturbed) it is the most
 * common speed, and ref_sharp says so. */
#define HBIN_LO		0.5
#define HBIN_STEP	1.005
#define HBINS		1000
#define CLUSTER_MIN	20
#define SHARP		0.65	/* share of the +-3 % window within +-1 % */
static unsigned hist[HBINS];
static bool ref_sharp;

static unsigned long hist_sum(int lo, int hi)
{
	unsigned long n = 0;
	for (int i = lo < 0 ? 0 : lo; i <= hi && i < HBINS; i++)
		n += hist[i];
	return n;
}

static double probe_reference(void)
{
	int best = 0;
	for (int i = 0; i < HBINS; i++) {
		if (!hist[i])
			continue;
		bool peak = true;
		for (int j = i - 2; j <= i + 2; j++)
			if (j >= 0 && j < HBINS && hist[j] > hist[i])
				peak = false;
		unsigned long near = hist_sum(i - 2, i + 2);
		if (peak && near >= CLUSTER_MIN && near >= SHARP * hist_sum(i - 6, i + 6)) {
			ref_sharp = true;
			return HBIN_LO * pow(HBIN_STEP, i + 0.5);
		}
		if (hist[i] > hist[best])
			best = i;
	}
	ref_sharp = false;
	return HBIN_LO * pow(HBIN_STEP, best + 0.5);
}

static double budget_end;		/* no more waiting after this time */
static double waited;			/* s spent waiting for a quiet core */

static void on_fault(int sig)
{
	fault_sig = sig;
	siglongjmp(fault_jmp, 1);
}

static inline uint64_t tsc_begin(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

static inline uint64_t tsc_end(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);
	_mm_lfence();
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* linear-interpolated quantile of a sorted array */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "harness: out of memory\n");
		exit(1);
	}
	return p;
}

/* one data area: guard page, PAD, DATA, PAD, guard page, filled with 1.0f;
 * returns the start of DATA, `offset` bytes past a page boundary */
static void *area(size_t data, unsigned offset)
{
	size_t len = PAGE + PAD_BYTES + PAGE + data + PAD_BYTES + PAGE;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("harness: mmap");
		exit(1);
	}
	if (mprotect(p, PAGE, PROT_NONE) || mprotect(p + len - PAGE, PAGE, PROT_NONE)) {
		perror("harness: mprotect");
		exit(1);
	}
	uint32_t one = 0x3f800000u;
	for (uint8_t *q = p + PAGE; q + 4 <= p + len - PAGE; q += 4)
		memcpy(q, &one, 4);
	return p + PAGE + PAD_BYTES + offset;
}

/* TSC ticks per core cycle, from one run of the dependent add chain */
static double ticks_per_cycle(void)
{
	uint64_t t0 = tsc_begin();
	bench_calib(CALIB_ITERS);
	uint64_t t1 = tsc_end();
	return (double)(t1 - t0) / ((double)CALIB_ITERS * CALIB_ADDS);
}

/* probe speed in cycles per iteration, given the TSC ticks per cycle of a
 * calibration just before it; one more calibration follows, and when the two
 * disagree by more than CALIB_TOL (an interrupt, the vCPU descheduled, a
 * clock change) the probe counts as disturbed: PROBE_BAD */
#define PROBE_BAD 1e30
/* 12 independent adds take 2 cycles at least on a core of 6 integer ALUs
 * (Zen 5; Golden Cove has 5): a probe faster than this had calibrations
 * slowed by something else (a neighbour's burst during both), and a
 * histogram seeded with such probes found a false peak at 0.92 cycles
 * once (Zen 5, beside a compile) */
#define PROBE_FLOOR 1.5
static double probe(double tpc)
{
	uint64_t t0 = tsc_begin();
	bench_probe(PROBE_ITERS);
	uint64_t t1 = tsc_end();
	double tpc2 = ticks_per_cycle();
	if (tpc2 > tpc * CALIB_TOL || tpc > tpc2 * CALIB_TOL)
		return PROBE_BAD;
	double p = (double)(t1 - t0) / tpc / PROBE_ITERS;
	if (p < PROBE_FLOOR)
		return PROBE_BAD;
	if (p >= HBIN_LO) {
		double b = log(p / HBIN_LO) / log(HBIN_STEP);
		if (b < HBINS)
			hist[(unsigned)b]++;
	}
	return p;
}

static bool quiet(double p, double ref)
{
	return p <= ref * PROBE_TOL && p * PROBE_TOL >= ref;
}

/* probe until the core looks undisturbed (or MAX_WAIT / the budget ran
 * out); returns the last probe */
static double wait_quiet(void)
{
	double t0 = now_s();
	double ref = probe_reference();
	double p = probe(ticks_per_cycle());
	double t = t0;
	while (!quiet(p, ref)) {
		t = now_s();
		if (t - t0 > MAX_WAIT || t > budget_end)
			break;
		p = probe(ticks_per_cycle());
	}
	waited += t - t0;
	return p;
}

/* the calls' pseudo-random extra iterations (sample) */
static uint64_t jit_state = 0x9e3779b97f4a7c15ull;

/* K1, K2 and R of a kernel, after a warm-up */
static void setup(struct kstate *ks)
{
	unsigned k2 = KMAX;
	if (ks->kr->stride && (DATA_KIB > 12u || DATA_BYTES / ks->kr->stride < k2))
		k2 = DATA_BYTES / ks->kr->stride;
	if (k2 < 32) {
		ks->fault = "stride too large";
		return;
	}
	ks->k2 = k2;
	ks->k1 = k2 / 4;
	uint64_t best = UINT64_MAX;
	for (int w = 0; w < 20; w++) {
		uint64_t t0 = tsc_begin();
		ks->kr->fn(k2, &bufs);
		uint64_t t1 = tsc_end();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	double r = TARGET_TICKS / (double)(best ? best : 1);
	ks->r = r < 1 ? 1 : (unsigned)r;
}

/* `count` more samples of a kernel */
static void sample(struct kstate *ks, unsigned count)
{
	const struct bench_kernel *kr = ks->kr;
	unsigned r = ks->r, k1 = ks->k1, k2 = ks->k2;

	for (int w = 0; w < 3; w++)	/* back in the caches and predictors */
		kr->fn(k2, &bufs);
	/* each call runs a few iterations more than K1 (or K2 - JITTER) by a
	 * pseudo-random amount, the same for both batches: the loop's exit
	 * cannot be predicted in either, so its misprediction cancels out (a
	 * predictor learns the exit of a short fixed count and misses a long
	 * one's: 30-odd cycles per call that would be charged to the kernel) */
	enum { JITTER = 8 };
	unsigned jit[64];
	for (unsigned s = 0; s < count; s++) {
		for (unsigned i = 0; i < 64; i++) {
			jit_state ^= jit_state << 13;
			jit_state ^= jit_state >> 7;
			jit_state ^= jit_state << 17;
			jit[i] = (unsigned)(jit_state % JITTER);
		}
		double before = wait_quiet();
		/* one untimed call, so that both batches start in the kernel's
		 * state (a change of clock licence or vector unit power-up when
		 * switching between scalar and vector code stalls the core for
		 * some microseconds) */
		kr->fn(k1, &bufs);
		uint64_t t0 = tsc_begin();
		for (unsigned i = 0; i < r; i++)
			kr->fn(k1 + jit[i % 64], &bufs);
		uint64_t t1 = tsc_end();
		for (unsigned i = 0; i < r; i++)
			kr->fn(k2 - JITTER + jit[i % 64], &bufs);
		uint64_t t2 = tsc_end();
		bench_calib(CALIB_ITERS / 4);	/* absorbs that stall, untimed */
		double tpc = ticks_per_cycle();
		double after = probe(tpc);
		double d = (double)(t2 - t1) - (double)(t1 - t0);
		ks->val[ks->n] = d / ((double)r * (double)(k2 - JITTER - k1)) / tpc;
		ks->pb[ks->n] = before;
		ks->pa[ks->n] = after;
		ks->n++;
	}
}

/* setup() or sample() with SIGSEGV/SIGBUS/SIGFPE/SIGILL turned into -1 */
static int guarded(struct kstate *ks, unsigned count)
{
	if (sigsetjmp(fault_jmp, 1))
		return -1;
	if (count)
		sample(ks, count);
	else
		setup(ks);
	return 0;
}

static void run_guarded(struct kstate *ks, unsigned count)
{
	fault_sig = 0;
	if (guarded(ks, count))
		ks->fault = fault_sig == SIGSEGV ? "SIGSEGV" : fault_sig == SIGBUS ? "SIGBUS" :
			    fault_sig == SIGFPE ? "SIGFPE" : "SIGILL";
}

static unsigned count_quiet(const struct kstate *ks, double ref)
{
	unsigned n = 0;
	for (unsigned i = 0; i < ks->n; i++)
		n += quiet(ks->pb[i], ref) && quiet(ks->pa[i], ref);
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: harness [--cpu N] [--rounds N] [--samples N] [--budget S]\n"
			"               [--only NAME] [--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int cpu = -1, verbose = 0;
	double budget = 120;
	unsigned rounds = 8, per_round = 9;
	const char *only = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
			per_round = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else
			usage();
	}
	if (rounds < 1 || rounds > 1000 || per_round < 1 || per_round > 1000)
		usage();
	unsigned total = rounds * per_round;
	unsigned cap = 3 * total;	/* with the extra rounds */

	/* pin: the requested CPU, else the last one we may run on */
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("harness: sched_getaffinity");
		return 1;
	}
	if (cpu < 0)
		for (int c = CPU_SETSIZE - 1; c >= 0; c--)
			if (CPU_ISSET(c, &set)) {
				cpu = c;
				break;
			}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "harness: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}

	/* flush denormals to zero and treat denormal inputs as zero */
	_mm_setcsr(_mm_getcsr() | 0x8040u);

	bufs.a = area(DATA_BYTES, 0);
	bufs.b = area(DATA_BYTES, 1024);
	bufs.c = area(DATA_BYTES, 2048);
	bufs.d = area(PAGE, 3072);
	for (unsigned i = 0; i < PAGE / 8; i++)
		((void **)bufs.d)[i] = bufs.d;

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);

	/* warm-up: about 300 ms of the calibration chain */
	double t_end = now_s() + 0.3;
	while (now_s() < t_end)
		bench_calib(CALIB_ITERS);

	/* TSC rate against CLOCK_MONOTONIC, for the summary line only */
	double w0 = now_s();
	uint64_t c0 = tsc_begin();
	while (now_s() - w0 < 0.1)
		;
	uint64_t c1 = tsc_end();
	double tsc_hz = (double)(c1 - c0) / (now_s() - w0);
	double cal[51];
	for (unsigned i = 0; i < 51; i++)
		cal[i] = ticks_per_cycle();
	qsort(cal, 51, sizeof(cal[0]), cmp_double);
	double tpc = quantile(cal, 51, 0.5);
	/* seed the probe histogram: SEED_MIN s of probes at least (a busy SMT
	 * sibling can keep the core shared for seconds, and its hump may look
	 * as sharp as an undisturbed peak), and on until a sharp peak shows
	 * (at most a quarter of the budget) */
	double t_seed = now_s();
	t_end = t_seed + SEED_MIN;
	while (now_s() < t_end || (!ref_sharp && now_s() < t_seed + budget / 4)) {
		for (int i = 0; i < 100; i++)
			probe(ticks_per_cycle());
		probe_reference();
	}
	t_seed = now_s() - t_seed;

	struct kstate *ks = xmalloc(bench_nkernels * sizeof(*ks));
	size_t nk = 0;
	for (size_t k = 0; k < bench_nkernels; k++) {
		if (only && strcmp(only, bench_kernels[k].name))
			continue;
		memset(&ks[nk], 0, sizeof(ks[nk]));
		ks[nk].kr = &bench_kernels[k];
		ks[nk].val = xmalloc(cap * sizeof(double));
		ks[nk].pb = xmalloc(cap * sizeof(double));
		ks[nk].pa = xmalloc(cap * sizeof(double));
		run_guarded(&ks[nk], 0);
		nk++;
	}

	double t_start = now_s();
	budget_end = t_start + budget;
	for (unsigned round = 0; round < rounds; round++)
		for (size_t k = 0; k < nk; k++)
			if (!ks[k].fault)
				run_guarded(&ks[k], per_round);
	/* extra rounds for the kernels short of undisturbed samples (fewer
	 * than half of rounds x samples), while the budget lasts */
	unsigned extra = 0;
	while (now_s() < budget_end) {
		double ref = probe_reference();
		bool more = false;
		for (size_t k = 0; k < nk; k++)
			if (!ks[k].fault && ks[k].n + per_round <= cap &&
			    count_quiet(&ks[k], ref) < total / 2) {
				run_guarded(&ks[k], per_round);
				more = true;
			}
		if (!more)
			break;
		extra++;
	}
	double t_meas = now_s() - t_start;

	double base = probe_reference();

	printf("# cpu %d, %u rounds x %u samples per kernel (+%u extra rounds), %.1f s of sampling (%.1f s of it waiting for a quiet core, plus %.1f s before)\n",
	       cpu, rounds, per_round, extra, t_meas, waited, t_seed);
	printf("# data: %u KiB per buffer\n", (unsigned)DATA_KIB);
	printf("# tsc %.3f GHz, %.4f ticks per core cycle (chain of %u x %u dependent adds), core ~%.3f GHz\n",
	       tsc_hz / 1e9, tpc, CALIB_ITERS, CALIB_ADDS, tsc_hz / tpc / 1e9);
	printf("# probe (%u independent adds): %.3f cycles/iter undisturbed; samples next to a probe off by more than %.0f%% are set aside\n",
	       PROBE_ADDS, base, 100 * (PROBE_TOL - 1));
	if (!ref_sharp)
		printf("# WARNING: the core never ran undisturbed (another thread shared it all the time): throughput-bound kernels are measured too slow; try again later\n");

	double *kept = xmalloc(cap * sizeof(double));
	size_t n_set_aside = 0, n_samples = 0, n_unfiltered = 0;
	for (size_t k = 0; k < nk; k++) {
		struct kstate *s = &ks[k];
		if (s->fault) {
			printf("%s\tfault\t%s\n", s->kr->name, s->fault);
			continue;
		}
		unsigned nkept = 0;
		for (unsigned i = 0; i < s->n; i++)
			if (quiet(s->pb[i], base) && quiet(s->pa[i], base))
				kept[nkept++] = s->val[i];
		n_samples += s->n;
		if (nkept < 5 || nkept < s->n / 4) {	/* too few: keep all */
			memcpy(kept, s->val, s->n * sizeof(double));
			nkept = s->n;
			n_unfiltered++;
		} else {
			n_set_aside += s->n - nkept;
		}
		qsort(kept, nkept, sizeof(double), cmp_double);
		double med = quantile(kept, nkept, 0.5);
		double iqr = quantile(kept, nkept, 0.75) - quantile(kept, nkept, 0.25);
		printf("%s\t%.4f\t%.2f\t%u\t%u\t%u\t%u\t%u\n", s->kr->name, med,
		       med > 0 ? 100.0 * iqr / med : 0.0, nkept, s->n, s->k1, s->k2, s->r);
		if (verbose) {
			fprintf(stderr, "%s (value@probe-before/after, -1 = bad, * = set aside):", s->kr->name);
			for (unsigned i = 0; i < s->n; i++) {
				bool q = quiet(s->pb[i], base) && quiet(s->pa[i], base);
				fprintf(stderr, " %.3f@%.2f/%.2f%s", s->val[i],
					s->pb[i] < PROBE_BAD ? s->pb[i] : -1.0,
					s->pa[i] < PROBE_BAD ? s->pa[i] : -1.0, q ? "" : "*");
			}
			fprintf(stderr, "\n");
		}
	}
	if (verbose) {
		fprintf(stderr, "probe histogram (cycles/iter:count):");
		for (unsigned i = 0; i < HBINS; i++)
			if (hist[i])
				fprintf(stderr, " %.3f:%u", HBIN_LO * pow(HBIN_STEP, i + 0.5), hist[i]);
		fprintf(stderr, "\n");
	}
	printf("# %zu of %zu samples set aside as disturbed; %zu kernel(s) kept all their samples (too few undisturbed)\n",
	       n_set_aside, n_samples, n_unfiltered);
	free(kept);
	for (size_t k = 0; k < nk; k++) {
		free(ks[k].val);
		free(ks[k].pb);
		free(ks[k].pa);
	}
	free(ks);
	return 0;
}
