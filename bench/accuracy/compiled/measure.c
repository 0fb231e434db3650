/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * measure.c - the driver linked with each build of kernels.c in the
 * compiled-code accuracy benchmark (see README.md). It is compiled with
 * the same flags for every build (-O2, no -march), so that only the
 * kernels differ.
 *
 *   BIN NAME [CALLS]
 *	run kernel NAME CALLS times (default 20) and exit: what
 *	`gus sim --trace` traces. Prints nothing on stdout.
 *   BIN --list
 *	one line per kernel: name TAB innermost iterations per call TAB
 *	L1|L2 TAB what is expected to bound it
 *   BIN --measure [--cpu N] [--samples N] [--sample-ms MS] [--budget S] [NAME...]
 *	times the kernels (all, or those named) on the CPU it is pinned to
 *	and prints, after '#' comment lines, one line per kernel:
 *	name TAB cycles per innermost iteration TAB iqr % TAB cycles per
 *	call TAB innermost iterations per call TAB samples kept/taken TAB
 *	calls per sample
 *   BIN --count NAME OFF...
 *	runs kernel NAME once under ptrace with a breakpoint at each OFF
 *	(hexadecimal, bytes past the start of k_NAME: the loops' backward
 *	branches) and prints "OFF HITS" per offset: how many times each
 *	instruction ran in one call. A jump at a breakpoint is emulated
 *	(the next rip from its bytes and the flags): one stop per hit
 *
 * How a kernel is timed (no PMU): the process is pinned to one CPU,
 * MXCSR gets FTZ|DAZ, the core is kept busy for 0.3 s (warm-up), and the
 * TSC rate is converted to core cycles by a chain of dependent imuls
 * (calib.S): ticks per core cycle = chain time / (imuls x 3). One sample
 * is R calls of the kernel timed with rdtsc (R chosen so that a sample
 * lasts about --sample-ms, default 1 ms), between two calibrations; the
 * sample is ticks per call / mean ticks per cycle / innermost iterations
 * per call. A sample is taken again, up to 4 times, when the thread was
 * switched out during it (getrusage: another task shared the CPU), when
 * its two calibrations differ by more than 3 % (a clock change, the vCPU
 * descheduled), or when the core was shared: on a virtual machine a
 * neighbour's thread on the SMT sibling may take half of the core for
 * seconds at a time, slowing throughput-bound kernels by up to 2x while
 * the imul chain (and a latency-bound kernel) hardly notices. So a
 * throughput-bound probe (cb_probe: independent adds) is timed before and
 * after every sample, as the loop-body harness does (../harness.c): its
 * speed on an undisturbed core is the fastest sharp peak of the histogram
 * of all probes (seeded for 3 s at the start), the harness waits up to
 * 1 s before a sample for the probe to run within 3 % of it (while
 * --budget S lasts, default 60), and a sample with a probe off by more
 * than that on either side is taken again. Samples are taken in rounds,
 * one per kernel and round, so that a kernel's samples spread over the
 * whole run; the result is the median, with the interquartile range
 * relative to it as the noise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "kernels.h"

#define CAL_ITERS	20u	/* x CB_IMULS imuls per calibration */
#define CAL_TOL		1.03	/* calibrations around a sample that agree */
#define RETRIES		4	/* more tries of a disturbed sample */
#define PROBE_ITERS	4000u	/* x CB_PROBE_ADDS independent adds per probe */
#define PROBE_TOL	1.03	/* a probe this close to the reference: undisturbed */
#define MAX_WAIT	1.0	/* s of waiting for an undisturbed core per sample */
#define SEED_MIN	3.0	/* s of probes before the first sample */
#define MAXOFF		64	/* breakpoints of --count */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* TSC ticks per core cycle, from one run of the imul chain; a short
 * untimed piece of chain first absorbs the stall that a switch from
 * vector code (clock licence, vector unit power) may cause */
static double ticks_per_cycle(void)
{
	cb_imul_chain(2);
	uint64_t t0 = tsc_begin();
	cb_imul_chain(CAL_ITERS);
	uint64_t t1 = tsc_end();
	return (double)(t1 - t0) / ((double)CAL_ITERS * CB_IMULS * CB_IMUL_LAT);
}

/* The probe's histogram and reference are ../harness.c's, repeated here
 * because this folder alone must build on a measuring machine
 * (README.md, Measuring on another machine).
 *
 * Histogram of the probe speeds seen, in log-spaced bins HBIN_STEP (0.5 %)
 * wide from HBIN_LO cycles per iteration up. Probes on an undisturbed core
 * form one sharp peak; a core shared with a busy SMT sibling gives a
 * slower, broad hump. The reference speed is the fastest sharp peak with
 * at least CLUSTER_MIN probes; without one (the core was never seen
 * undisturbed) the most common speed, and ref_sharp says so. */
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

/* the probe's cycles per iteration, between two calibrations; one that
 * disagrees by more than CAL_TOL makes it PROBE_BAD (not in the
 * histogram) */
#define PROBE_BAD 1e30
/* 12 independent adds take 2 cycles at least on a core of 6 integer ALUs
 * (Zen 5; Golden Cove has 5): a probe faster than this had calibrations
 * slowed by something else (a neighbour's burst during both), and a
 * histogram seeded with such probes found a false peak at 0.92 cycles
 * once (Zen 5, beside a compile) */
#define PROBE_FLOOR 1.5
static double probe(void)
{
	double tpc0 = ticks_per_cycle();
	uint64_t t0 = tsc_begin();
	cb_probe(PROBE_ITERS);
	uint64_t t1 = tsc_end();
	double tpc1 = ticks_per_cycle();
	if (tpc0 > tpc1 * CAL_TOL || tpc1 > tpc0 * CAL_TOL)
		return PROBE_BAD;
	double p = (double)(t1 - t0) / (0.5 * (tpc0 + tpc1)) / PROBE_ITERS;
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

static double budget_end;	/* no more waiting after this time */
static double waited;		/* s spent waiting for an undisturbed core */

/* probes until the core looks undisturbed (or MAX_WAIT / the budget ran
 * out); returns the last probe */
static double wait_quiet(void)
{
	double t0 = now_s(), t = t0;
	double ref = probe_reference();
	double p = probe();
	while (!quiet(p, ref)) {
		t = now_s();
		if (t - t0 > MAX_WAIT || t > budget_end)
			break;
		p = probe();
	}
	waited += t - t0;
	return p;
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

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "measure: out of memory\n");
		exit(1);
	}
	return p;
}

/* a kernel by its name, with or without the k_ of its function */
static const struct kernel *find_kernel(const char *name)
{
	for (int i = 0; i < nkernels; i++)
		if (!strcmp(kernels[i].name, name))
			return &kernels[i];
	return strncmp(name, "k_", 2) ? NULL : find_kernel(name + 2);
}

static int pin(int cpu)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("measure: sched_getaffinity");
		return -1;
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
		fprintf(stderr, "measure: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return cpu;
}

/* ------------------------------------------------------------- --measure */

struct mstate {
	const struct kernel *k;
	long iters;
	unsigned r;		/* calls per sample */
	double *val;		/* cycles per innermost iteration */
	double *cpc;		/* cycles per call */
	unsigned n, taken;
};

/* context switches of this thread so far */
static long switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* why samples were taken again */
static unsigned n_preempted, n_unsteady, n_shared;

/* one sample; false when it was disturbed: the thread was switched out
 * (another task shared the CPU), its calibrations disagree, or a probe
 * next to it ran off the undisturbed speed (another thread shared the
 * core) */
static bool sample(struct mstate *s, double *val, double *cpc)
{
	double before = wait_quiet();
	long sw0 = switches();
	double tpc0 = ticks_per_cycle();
	uint64_t t0 = tsc_begin();
	for (unsigned i = 0; i < s->r; i++)
		s->k->fn();
	uint64_t t1 = tsc_end();
	double tpc1 = ticks_per_cycle();
	long sw1 = switches();
	double tpc = 0.5 * (tpc0 + tpc1);
	*cpc = (double)(t1 - t0) / s->r / tpc;
	*val = *cpc / (double)s->iters;
	if (sw0 != sw1) {
		n_preempted++;
		return false;
	}
	if (tpc0 > tpc1 * CAL_TOL || tpc1 > tpc0 * CAL_TOL) {
		n_unsteady++;
		return false;
	}
	double after = probe(), ref = probe_reference();
	if (!quiet(before, ref) || !quiet(after, ref)) {
		n_shared++;
		return false;
	}
	return true;
}

static int do_measure(int argc, char **argv)
{
	int cpu = -1;
	unsigned samples = 15;
	double sample_ms = 1.0, budget = 60;
	int first = argc;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			cpu = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
			samples = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--sample-ms") && i + 1 < argc) {
			sample_ms = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
			budget = atof(argv[++i]);
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "measure: unknown option %s\n", argv[i]);
			return 2;
		} else {
			first = i;
			break;
		}
	}
	if (samples < 1 || samples > 10000 || !(sample_ms > 0 && sample_ms <= 1000) ||
	    !(budget >= 0 && budget <= 3600)) {
		fprintf(stderr, "measure: bad --samples, --sample-ms or --budget\n");
		return 2;
	}
	struct mstate *ms = xmalloc((size_t)nkernels * sizeof(*ms));
	int nm = 0;
	if (first == argc)
		for (int i = 0; i < nkernels; i++)
			ms[nm++] = (struct mstate){ .k = &kernels[i] };
	for (int i = first; i < argc; i++) {
		const struct kernel *k = find_kernel(argv[i]);
		if (!k) {
			fprintf(stderr, "measure: no kernel %s\n", argv[i]);
			return 2;
		}
		if (nm < nkernels)
			ms[nm++] = (struct mstate){ .k = k };
	}

	cpu = pin(cpu);
	if (cpu < 0)
		return 1;

	/* warm-up: about 300 ms of the calibration chain */
	double t_end = now_s() + 0.3;
	while (now_s() < t_end)
		cb_imul_chain(CAL_ITERS);
	/* the TSC rate against CLOCK_MONOTONIC (for the comment line, and to
	 * size the samples) */
	double w0 = now_s();
	uint64_t c0 = tsc_begin();
	while (now_s() - w0 < 0.1)
		;
	uint64_t c1 = tsc_end();
	double tsc_hz = (double)(c1 - c0) / (now_s() - w0);
	double cal[31];
	for (unsigned i = 0; i < 31; i++)
		cal[i] = ticks_per_cycle();
	qsort(cal, 31, sizeof(cal[0]), cmp_double);
	double tpc = quantile(cal, 31, 0.5);
	/* the probe's histogram: SEED_MIN s at least, and on until a sharp
	 * peak shows up (up to a quarter of the budget) */
	budget_end = now_s() + budget;
	double seed_end = now_s() + SEED_MIN, seed_max = now_s() + (budget / 4 > SEED_MIN ? budget / 4 : SEED_MIN);
	for (;;) {
		probe();
		double t = now_s();
		if (t < seed_end)
			continue;
		probe_reference();
		if (ref_sharp || t >= seed_max)
			break;
	}

	/* calls per sample: after a few warm-up calls, the fastest call */
	double t_start = now_s();
	for (int i = 0; i < nm; i++) {
		struct mstate *s = &ms[i];
		s->iters = s->k->iters();
		for (int w = 0; w < 3; w++)
			s->k->fn();
		uint64_t best = UINT64_MAX;
		for (int w = 0; w < 5; w++) {
			uint64_t t0 = tsc_begin();
			s->k->fn();
			uint64_t t1 = tsc_end();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		double r = sample_ms * 1e-3 * tsc_hz / (double)(best ? best : 1);
		s->r = r < 1 ? 1 : (unsigned)(r + 0.5);
		s->val = xmalloc(samples * sizeof(double));
		s->cpc = xmalloc(samples * sizeof(double));
	}
	unsigned kept_disturbed = 0;
	for (unsigned round = 0; round < samples; round++)
		for (int i = 0; i < nm; i++) {
			struct mstate *s = &ms[i];
			s->k->fn();	/* back in the caches after the others */
			double v, c;
			bool ok = false;
			for (int t = 0; t <= RETRIES && !ok; t++) {
				ok = sample(s, &v, &c);
				s->taken++;
			}
			kept_disturbed += !ok;
			s->val[s->n] = v;
			s->cpc[s->n] = c;
			s->n++;
		}
	double t_meas = now_s() - t_start;

	double ref = probe_reference();
	printf("# measure: cpu %d, %u samples per kernel of about %.2f ms, %.1f s (%.1f s waiting for an undisturbed core); samples taken again: %u switched out, %u with calibrations apart by more than %.0f %%, %u with a probe off by more than %.0f %%; %u kept after %d tries\n",
	       cpu, samples, sample_ms, t_meas, waited, n_preempted, n_unsteady, 100 * (CAL_TOL - 1), n_shared,
	       100 * (PROBE_TOL - 1), kept_disturbed, RETRIES + 1);
	printf("# probe (%d independent adds): %.3f cycles per iteration undisturbed%s\n", CB_PROBE_ADDS, ref,
	       ref_sharp ? "" : "; WARNING: the core never ran undisturbed (another thread shared it all the time): throughput-bound kernels are measured too slow; try again later");
	printf("# tsc %.3f GHz, %.4f ticks per core cycle (chain of %u x %u dependent imuls, %d cycles each), core ~%.3f GHz; checksum %.6g\n",
	       tsc_hz / 1e9, tpc, CAL_ITERS, CB_IMULS, CB_IMUL_LAT, tsc_hz / tpc / 1e9, kernels_checksum());
	for (int i = 0; i < nm; i++) {
		struct mstate *s = &ms[i];
		qsort(s->val, s->n, sizeof(double), cmp_double);
		qsort(s->cpc, s->n, sizeof(double), cmp_double);
		double med = quantile(s->val, s->n, 0.5);
		double iqr = quantile(s->val, s->n, 0.75) - quantile(s->val, s->n, 0.25);
		printf("%s\t%.4f\t%.2f\t%.0f\t%ld\t%u/%u\t%u\n", s->k->name, med, med > 0 ? 100 * iqr / med : 0.0,
		       quantile(s->cpc, s->n, 0.5), s->iters, s->n, s->taken, s->r);
		free(s->val);
		free(s->cpc);
	}
	free(ms);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return 0;
}

/* --------------------------------------------------------------- --count */

static int wait_child(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* writes byte B at ADDR of the stopped child, keeping the other bytes of
 * the word (breakpoints may be closer than 8 bytes); the old byte in OLD */
static int poke_byte(pid_t pid, uintptr_t addr, uint8_t b, uint8_t *old)
{
	errno = 0;
	long w = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
	if (errno)
		return -1;
	if (old)
		*old = (uint8_t)(w & 0xff);
	w = (long)(((unsigned long)w & ~0xfful) | b);
	return ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)w) < 0 ? -1 : 0;
}

/* whether condition code CC (the low nibble of a jcc) holds */
static bool cond_holds(unsigned cc, unsigned long long fl)
{
	bool cf = fl & 1, pf = fl & 4, zf = fl & 0x40, sf = fl & 0x80, of = fl & 0x800, r;
	switch (cc >> 1) {
	case 0: r = of; break;
	case 1: r = cf; break;
	case 2: r = zf; break;
	case 3: r = cf || zf; break;
	case 4: r = sf; break;
	case 5: r = pf; break;
	case 6: r = sf != of; break;
	default: r = zf || sf != of; break;
	}
	return (cc & 1) ? !r : r;
}

/* the next rip after the jmp/jcc at AT whose bytes are P (this process's
 * own, unmodified copy of the child's code) with flags FL; false when the
 * instruction is something else */
static bool emulate_jump(const uint8_t *p, unsigned long long fl, uint64_t at, uint64_t *to)
{
	int32_t d;
	if (p[0] == 0xeb) {			/* jmp rel8 */
		*to = at + 2 + (uint64_t)(int64_t)(int8_t)p[1];
	} else if (p[0] == 0xe9) {		/* jmp rel32 */
		memcpy(&d, p + 1, 4);
		*to = at + 5 + (uint64_t)(int64_t)d;
	} else if (p[0] >= 0x70 && p[0] <= 0x7f) {	/* jcc rel8 */
		*to = cond_holds(p[0] & 15u, fl) ? at + 2 + (uint64_t)(int64_t)(int8_t)p[1] : at + 2;
	} else if (p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f) {	/* jcc rel32 */
		memcpy(&d, p + 2, 4);
		*to = cond_holds(p[1] & 15u, fl) ? at + 6 + (uint64_t)(int64_t)d : at + 6;
	} else {
		return false;
	}
	return true;
}

static int do_count(int argc, char **argv)
{
	if (argc < 2 || argc - 1 > MAXOFF) {
		fprintf(stderr, "measure: --count NAME OFF... (1 to %d offsets)\n", MAXOFF);
		return 2;
	}
	const struct kernel *k = find_kernel(argv[0]);
	if (!k) {
		fprintf(stderr, "measure: no kernel %s\n", argv[0]);
		return 2;
	}
	int n = argc - 1;
	uintptr_t addr[MAXOFF];
	uint8_t orig[MAXOFF];
	unsigned long long hits[MAXOFF] = { 0 };
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long off = strtoul(argv[i + 1], &end, 16);
		if (end == argv[i + 1] || *end) {
			fprintf(stderr, "measure: bad offset %s\n", argv[i + 1]);
			return 2;
		}
		/* the child is a fork of this process: the same addresses */
		addr[i] = (uintptr_t)k->fn + off;
	}

	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 1;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(126);
		raise(SIGSTOP);
		k->fn();
		_exit(0);
	}
	int st;
	if (wait_child(pid, &st) || !WIFSTOPPED(st)) {
		fprintf(stderr, "measure: --count: the child did not stop (ptrace not allowed?)\n");
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (poke_byte(pid, addr[i], 0xcc, &orig[i])) {
			fprintf(stderr, "measure: --count: cannot set a breakpoint: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			wait_child(pid, &st);
			return 1;
		}
	int sig = 0;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0 || wait_child(pid, &st))
			break;
		sig = 0;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!WIFSTOPPED(st))
			continue;
		if (WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st);
			continue;
		}
		struct user_regs_struct regs;
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0)
			break;
		uintptr_t at = (uintptr_t)regs.rip - 1;
		int b = -1;
		for (int i = 0; i < n && b < 0; i++)
			if (addr[i] == at)
				b = i;
		if (b < 0) {
			fprintf(stderr, "measure: --count: a trap at %#lx, not a breakpoint\n", (unsigned long)at);
			break;
		}
		hits[b]++;
		/* a jump or conditional jump is emulated (one stop per hit);
		 * anything else runs as the original instruction, single-stepped,
		 * and gets its breakpoint back */
		uint64_t to;
		if (emulate_jump((const uint8_t *)at, regs.eflags, at, &to)) {
			regs.rip = to;
			if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0)
				break;
			continue;
		}
		regs.rip = at;
		if (poke_byte(pid, at, orig[b], NULL) || ptrace(PTRACE_SETREGS, pid, NULL, &regs) < 0 ||
		    ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 || wait_child(pid, &st) || !WIFSTOPPED(st) ||
		    poke_byte(pid, at, 0xcc, NULL))
			break;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "measure: --count: the child did not finish normally\n");
		if (!WIFEXITED(st) && !WIFSIGNALED(st)) {
			kill(pid, SIGKILL);
			wait_child(pid, &st);
		}
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("%s %llu\n", argv[i + 1], hits[i]);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: measure NAME [CALLS]\n"
			"       measure --list\n"
			"       measure --measure [--cpu N] [--samples N] [--sample-ms MS] [NAME...]\n"
			"       measure --count NAME OFF...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	/* flush denormals to zero and treat denormal inputs as zero */
	_mm_setcsr(_mm_getcsr() | 0x8040u);
	if (!strcmp(argv[1], "--list")) {
		for (int i = 0; i < nkernels; i++)
			printf("%s\t%ld\t%s\t%s\n", kernels[i].name, kernels[i].iters(), kernels[i].data,
			       kernels[i].limit);
		return 0;
	}
	kernels_init();
	if (!strcmp(argv[1], "--measure"))
		return do_measure(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--count"))
		return do_count(argc - 2, argv + 2);
	if (argv[1][0] == '-')
		usage();
	const struct kernel *k = find_kernel(argv[1]);
	if (!k) {
		fprintf(stderr, "measure: no kernel %s\n", argv[1]);
		return 2;
	}
	long calls = argc > 2 ? atol(argv[2]) : 20;
	for (long i = 0; i < calls; i++)
		k->fn();
	/* no kernels_checksum() here: built -march=native it may hold
	 * AVX-512 code, which kills a run under QEMU 7.2 after the kernel */
	return 0;
}
