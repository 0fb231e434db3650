/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE (src/spire/): event keys, the grouping of an interval's counts
 * into samples, perf stat -I -x import, the left fit against a brute-force
 * hull, the right fit against a brute-force enumeration of every valid
 * chain, fits of known synthetic ceilings, the model file (round trip bit
 * for bit, and what the reader refuses), the analysis (Eq. 1, ranking,
 * ensemble) and the guards against M = 0. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spire.h"
#include "tap.h"

static char err[SPIRE_ERRLEN];

/* ------------------------------------------------------- helpers --- */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s ? s : 88172645463325252ULL;
}

/* xorshift64 */
static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* uniform in [a, b) */
static double urand(double a, double b)
{
	return a + (b - a) * ((double)(rng_next() >> 11) / 9007199254740992.0);
}

static char *xstrdup(const char *s)
{
	char *p = malloc(strlen(s) + 1);
	if (!p)
		abort();
	return strcpy(p, s);
}

static const char *key(const char *name)
{
	static char buf[256];
	spire_event_key(name, buf, sizeof(buf));
	return buf;
}

static bool contains(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* the samples of one metric, made by hand: (T, W, M) from (I, P) with
 * T = 1 (P exact; I = W / M may be an ulp off) */
static void ms_from_points(struct spire_metric_samples *ms, const char *name, const struct spire_point *p,
			   size_t n)
{
	memset(ms, 0, sizeof(*ms));
	ms->metric = xstrdup(name);
	ms->label = xstrdup(name);
	ms->s = calloc(n ? n : 1, sizeof(*ms->s));
	for (size_t k = 0; k < n; k++) {
		double w = p[k].p;
		ms->s[k] = (struct spire_sample){ .t = 1, .w = w, .m = isinf(p[k].i) ? 0 : w / p[k].i, .time = NAN };
	}
	ms->n = ms->cap = n;
}

static void ms_free(struct spire_metric_samples *ms)
{
	free(ms->metric);
	free(ms->label);
	free(ms->s);
}

/* I and P as spire_fit computes them from a sample */
static struct spire_point point_of(const struct spire_sample *s)
{
	return (struct spire_point){ .i = s->m > 0 ? s->w / s->m : INFINITY, .p = s->w / s->t };
}

/* ------------------------------------------------ roofline shape --- */

/* The properties every fitted roofline has: on or above every training
 * sample, knots from the origin in non-decreasing I, the left part
 * non-decreasing and concave down, the right part non-increasing and
 * concave up except the one End step (flat at the peak, then down). */
static bool report(bool quiet, bool cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool report(bool quiet, bool cond, const char *fmt, ...)
{
	if (quiet && cond)
		return true;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tap_ok(cond, "%s", msg);
}

static bool check_shape(const struct spire_roofline *r, const struct spire_metric_samples *ms, const char *what,
			bool quiet)
{
	bool ok = true;
	const struct spire_knot *k = r->knots;
	size_t n = r->n_knots;
	size_t below = 0;
	for (size_t j = 0; j < ms->n; j++) {
		struct spire_point pt = point_of(&ms->s[j]);
		double v = spire_roofline_eval(r, pt.i);
		if (!(v >= pt.p * (1 - 1e-9))) {
			if (!below)
				printf("#   %s: sample %zu (I %.9g, P %.9g) above the roofline (%.9g)\n", what, j, pt.i,
				       pt.p, v);
			below++;
		}
	}
	ok &= report(quiet, below == 0, "%s: the roofline is on or above all %zu training samples", what, ms->n);
	bool order = n >= 2 && k[0].i == 0 && k[0].p == 0 && r->peak < n;
	for (size_t j = 1; j < n; j++)
		order &= k[j].i >= k[j - 1].i && isfinite(k[j].i) && isfinite(k[j].p);
	ok &= report(quiet, order, "%s: %zu knots from the origin, I non-decreasing, peak index %zu", what, n, r->peak);
	if (!order)
		return false;

	/* left: slopes positive... or zero at the very end (a flat join to the peak), non-increasing */
	bool left = true;
	double prev = INFINITY;
	for (size_t j = 1; j <= r->peak; j++) {
		if (k[j].i == k[j - 1].i) {
			left = false;
			break;
		}
		double s = (k[j].p - k[j - 1].p) / (k[j].i - k[j - 1].i);
		if (s < 0 || s > prev * (1 + 1e-12) + 1e-15)
			left = false;
		prev = s;
	}
	ok &= report(quiet, left, "%s: left part increasing and concave down", what);

	/* right: optional flat at the peak's P (the End's, to H; a step down
	 * in models of gus before 2026-11), then slopes negative and
	 * non-decreasing; tail at the last knot's P, and at infinity no more
	 * (a training sample with M = 0 is met there, below the tail) */
	bool right = true;
	size_t j = r->peak + 1, steps = 0;
	prev = -INFINITY;
	bool flat_phase = true;
	for (; j < n; j++) {
		if (k[j].i == k[j - 1].i) {
			steps++;
			if (!flat_phase || k[j].p > k[j - 1].p)
				right = false;
			flat_phase = false;
			continue;
		}
		double s = (k[j].p - k[j - 1].p) / (k[j].i - k[j - 1].i);
		if (flat_phase && s == 0 && k[j].p == k[r->peak].p)
			continue;
		flat_phase = false;
		if (s > 0 || s < prev * (1 + 1e-12) - 1e-15)
			right = false;
		prev = s;
	}
	ok &= report(quiet, right && steps <= 1, "%s: right part decreasing and concave up, %zu End step(s)", what, steps);
	if (isfinite(r->peak_i))
		ok &= report(quiet, r->tail_p == k[n - 1].p && r->inf_p <= r->tail_p && r->inf_p > 0,
			     "%s: tail %.9g and infinity %.9g at the last knot's P %.9g", what, r->tail_p, r->inf_p,
			     k[n - 1].p);
	bool finite = true;
	for (double i = 0; i < 2 * k[n - 1].i + 10; i += (k[n - 1].i + 5) / 997)
		finite &= isfinite(spire_roofline_eval(r, i));
	finite &= isfinite(spire_roofline_eval(r, INFINITY));
	ok &= report(quiet, finite, "%s: the estimate is finite everywhere", what);
	return ok;
}

/* ------------------------------------------------------ event keys --- */

static void test_keys(void)
{
	tap_streq(key("INST_RETIRED:ANY"), "inst_retired.any", "key: libpfm4's INST_RETIRED:ANY");
	tap_streq(key("inst_retired:any"), "inst_retired.any", "key: inst_retired:any keeps ':any'");
	tap_streq(key("inst_retired.any"), "inst_retired.any", "key: Intel's name unchanged");
	tap_streq(key("IDQ:DSB_UOPS"), "idq.dsb_uops", "key: IDQ:DSB_UOPS");
	tap_streq(key("cycles:u"), "cycles", "key: cycles:u");
	tap_streq(key("cycles:ppp"), "cycles", "key: cycles:ppp");
	tap_streq(key("cycles:uk"), "cycles", "key: cycles:uk");
	tap_streq(key("cycles:u:p"), "cycles", "key: cycles:u:p");
	tap_streq(key("cycles:P"), "cycles", "key: cycles:P");
	tap_streq(key("idq.dsb_uops:u"), "idq.dsb_uops", "key: a modifier after an Intel name");
	tap_streq(key("IDQ:DSB_UOPS:k"), "idq.dsb_uops", "key: a modifier after a libpfm4 name");
	/* libpfm4 unit masks made of perf's modifier letters only (Broadwell-EP
	 * uncore): upper case after an upper-case event, so unit masks */
	tap_streq(key("UNC_H_TRACKER_CYCLES_FULL:GP"), "unc_h_tracker_cycles_full.gp",
		  "key: a libpfm4 umask of modifier letters only (GP) is not a modifier");
	tap_streq(key("UNC_C_RING_AD_USED:UP"), "unc_c_ring_ad_used.up", "key: libpfm4's umask UP kept");
	tap_streq(key("EVENT:P"), "event.p", "key: EVENT:P, an upper-case event's umask P");
	tap_streq(key("UNC_H_TRACKER_CYCLES_FULL:GP:u"), "unc_h_tracker_cycles_full.gp",
		  "key: a libpfm4 umask GP, then the modifier :u");
	tap_streq(key("INST_RETIRED:ANY_P:k"), "inst_retired.any_p", "key: lower-case :k after a libpfm4 umask");
	tap_streq(key("event:P"), "event", "key: event:P, a lower-case (perf) event's modifier P");
	tap_streq(key("cycles:GH"), "cycles", "key: perf's G and H after a perf event");
	tap_streq(key("br_misp_retired:all_branches:pp"), "br_misp_retired.all_branches", "key: umask then :pp");
	tap_streq(key("  Cycles  "), "cycles", "key: blanks and case");
	tap_streq(key("cpu/event=0x3c,umask=0x0,name=foo/u"), "cpu/event=0x3c,umask=0x0,name=foo/",
		  "key: cpu/.../u loses the u");
	tap_streq(key("cpu/event=0x3c,umask=0x0,name=foo/uk"), "cpu/event=0x3c,umask=0x0,name=foo/",
		  "key: cpu/.../uk loses the uk");
	tap_streq(key("cpu/event=0x3c,umask=0x0/"), "cpu/event=0x3c,umask=0x0/", "key: cpu/.../ unchanged");
	tap_streq(key("u"), "u", "key: a bare 'u' stays");
	tap_streq(key(":u"), ".u", "key: nothing before the modifier: kept");
	char small[4];
	spire_event_key("cycles", small, sizeof(small));
	tap_streq(small, "cyc", "key: truncated to OUTLEN-1");

	tap_ok(spire_is_time_event("cpu_clk_unhalted.thread", NULL), "time: the default");
	tap_ok(spire_is_time_event("CPU_CLK_UNHALTED:THREAD_P", NULL), "time: libpfm4's THREAD_P");
	tap_ok(spire_is_time_event("cycles:u", NULL), "time: cycles:u");
	tap_ok(spire_is_time_event("cpu-cycles", SPIRE_DEFAULT_TIME), "time: cpu-cycles with the default given");
	tap_ok(spire_is_time_event("cycles", "CPU_CLK_UNHALTED.THREAD"), "time: the default spelt otherwise");
	tap_ok(!spire_is_time_event("instructions", NULL), "time: instructions is not T");
	tap_ok(!spire_is_time_event("cpu_clk_unhalted.ref_tsc", NULL), "time: ref_tsc is not T by default");
	tap_ok(spire_is_time_event("REF-CYCLES:u", "ref-cycles"), "time: another T by key");
	tap_ok(!spire_is_time_event("cycles", "ref-cycles"), "time: with another T, cycles is a metric");
	tap_ok(!spire_is_time_event(NULL, NULL), "time: NULL");
	tap_ok(spire_is_work_event("INST_RETIRED:ANY", NULL), "work: INST_RETIRED:ANY");
	tap_ok(spire_is_work_event("inst_retired.any_p", NULL), "work: inst_retired.any_p");
	tap_ok(spire_is_work_event("instructions:u", NULL), "work: instructions:u");
	tap_ok(!spire_is_work_event("uops_retired.slots", NULL), "work: uops are not W by default");
	tap_ok(spire_is_work_event("UOPS_RETIRED:SLOTS", "uops_retired.slots"), "work: another W by key");
	tap_ok(!spire_is_work_event("instructions", "uops_retired.slots"), "work: with another W, instructions is not");

	/* hybrid CPUs: perf wraps the generic events in the core PMU */
	tap_ok(spire_is_time_event("cpu_core/cycles/", NULL), "time: cpu_core/cycles/");
	tap_ok(spire_is_time_event("cpu_atom/cycles/u", NULL), "time: cpu_atom/cycles/u");
	tap_ok(spire_is_time_event("cpu/cpu-cycles/", SPIRE_DEFAULT_TIME), "time: cpu/cpu-cycles/");
	tap_ok(spire_is_time_event("cpu_core/cpu_clk_unhalted.thread/", NULL), "time: an Intel name in cpu_core/");
	tap_ok(spire_is_time_event("armv8_pmuv3_0/cycles/", NULL), "time: an ARM core PMU's cycles");
	tap_ok(spire_is_work_event("cpu_core/instructions/", NULL), "work: cpu_core/instructions/");
	tap_ok(spire_is_work_event("cpu_atom/instructions/k", NULL), "work: cpu_atom/instructions/k");
	tap_ok(spire_is_work_event("cpu_core/INST_RETIRED:ANY/", NULL), "work: libpfm4's name in cpu_core/");
	tap_ok(spire_is_time_event("cpu_core/ref-cycles/", "ref-cycles"), "time: another T wrapped");
	tap_ok(spire_is_time_event("ref-cycles", "cpu_core/ref-cycles/"), "time: another T given wrapped");
	tap_ok(!spire_is_time_event("cpu_core/instructions/", NULL), "time: cpu_core/instructions/ is not T");
	tap_ok(!spire_is_time_event("cpu_core/event=0x3c/", NULL), "time: a raw cpu_core/event=.../ is not unwrapped");
	tap_ok(!spire_is_time_event("cpu_core/cycles,name=c/", NULL), "time: terms after the name: not unwrapped");
	tap_ok(!spire_is_time_event("uncore_imc/cycles/", NULL), "time: an uncore PMU's cycles is not T");
	tap_ok(!spire_is_work_event("cpu_core/instructions/", "uops_retired.slots"),
	       "work: with another W, cpu_core/instructions/ is not");
	tap_streq(key("cpu_core/cycles/"), "cpu_core/cycles/", "key: a metric's key keeps its PMU");
}

/* --------------------------------------------------- add_interval --- */

static struct spire_count cnt(const char *ev, double v)
{
	return (struct spire_count){ .time = 1.5, .id = "", .event = ev, .value = v, .enabled = 1e9,
				     .running = 1e9, .counted = true };
}

static bool sample_is(const struct spire_sampleset *ss, const char *metric, size_t idx, double t, double w,
		      double m)
{
	const struct spire_metric_samples *ms = spire_sampleset_find(ss, metric);
	if (!ms || idx >= ms->n) {
		printf("#   %s: no sample %zu\n", metric, idx);
		return false;
	}
	const struct spire_sample *s = &ms->s[idx];
	if (s->t != t || s->w != w || s->m != m) {
		printf("#   %s[%zu]: got (%g, %g, %g), want (%g, %g, %g)\n", metric, idx, s->t, s->w, s->m, t, w, m);
		return false;
	}
	return true;
}

static size_t nsamples(const struct spire_sampleset *ss, const char *metric)
{
	const struct spire_metric_samples *ms = spire_sampleset_find(ss, metric);
	return ms ? ms->n : 0;
}

/* C[0..N): the running time of count j is RUN[j] x 1e8 ns, of 1e9 enabled */
static void set_running(struct spire_count *c, size_t n, const double *run)
{
	for (size_t j = 0; j < n; j++)
		c[j].running = run[j] * 1e8;
}

/* event groups told apart by their running times */
static void test_groups(struct spire_sampleset *ss)
{
	struct spire_skips before = ss->skips;
	/* perf -e '{g1,cycles,instructions},{g2,cycles,instructions}': the
	 * metric first, multiplexed (the groups ran 4 and 6 tenths) */
	struct spire_count a[] = { cnt("g1", 10), cnt("cycles", 1000), cnt("instructions", 2000),
				   cnt("g2", 20), cnt("cycles", 1500), cnt("instructions", 3500) };
	set_running(a, 6, (const double[]){ 4, 4, 4, 6, 6, 6 });
	spire_sampleset_add_interval(ss, a, 6, err, sizeof(err));
	tap_ok(sample_is(ss, "g1", 0, 1000, 2000, 10) && sample_is(ss, "g2", 0, 1500, 3500, 20),
	       "metric-first groups, multiplexed: each metric with its own group's T and W");
	tap_ok(ss->skips.not_simultaneous == before.not_simultaneous && ss->skips.no_group == before.no_group,
	       "metric-first groups, multiplexed: all simultaneous");

	/* the same, nothing multiplexed: the segments (g2 shares g1's
	 * segment, whose T and W ran over the same whole interval) */
	set_running(a, 6, (const double[]){ 10, 10, 10, 10, 10, 10 });
	before = ss->skips;
	spire_sampleset_add_interval(ss, a, 6, err, sizeof(err));
	tap_ok(sample_is(ss, "g1", 1, 1000, 2000, 10) && sample_is(ss, "g2", 1, 1000, 2000, 20),
	       "metric-first groups, not multiplexed: the segment's T and W, as before");
	tap_ok(ss->skips.not_simultaneous == before.not_simultaneous, "not multiplexed: simultaneous");

	/* '{instructions,g3},{cycles,instructions,g4}': the first group has
	 * no T; g3 does not borrow the second group's */
	struct spire_count b[] = { cnt("instructions", 2000), cnt("g3", 30), cnt("cycles", 1500),
				   cnt("instructions", 3500), cnt("g4", 40) };
	set_running(b, 5, (const double[]){ 4, 4, 6, 6, 6 });
	before = ss->skips;
	spire_sampleset_add_interval(ss, b, 5, err, sizeof(err));
	tap_ok(nsamples(ss, "g3") == 0 && ss->skips.no_group == before.no_group + 1,
	       "a group without T: its metric is left out (no_group), not given another group's T");
	tap_ok(sample_is(ss, "g4", 0, 1500, 3500, 40) && ss->skips.not_simultaneous == before.not_simultaneous,
	       "a group without T: the next group's metric with its own T and W");

	/* the same, nothing multiplexed: every count covers the interval,
	 * T from the segment, W from the segment too */
	set_running(b, 5, (const double[]){ 10, 10, 10, 10, 10 });
	before = ss->skips;
	spire_sampleset_add_interval(ss, b, 5, err, sizeof(err));
	tap_ok(sample_is(ss, "g3", 0, 1500, 2000, 30) && sample_is(ss, "g4", 1, 1500, 3500, 40) &&
		       ss->skips.no_group == before.no_group && ss->skips.not_simultaneous == before.not_simultaneous,
	       "a group without T, not multiplexed: T and W of the metric's segment, simultaneous");

	/* a group without W, not multiplexed: the nearest W that ran as long */
	struct spire_count c[] = { cnt("cycles", 1000), cnt("g5", 5), cnt("cycles", 900), cnt("instructions", 800),
				   cnt("g6", 7) };
	before = ss->skips;
	spire_sampleset_add_interval(ss, c, 5, err, sizeof(err));
	tap_ok(sample_is(ss, "g5", 0, 1000, 800, 5) && sample_is(ss, "g6", 0, 900, 800, 7) &&
		       ss->skips.no_group == before.no_group,
	       "a group without W, not multiplexed: the nearest W of the same running time");

	/* ungrouped: T and W on fixed counters all the time, the metrics
	 * multiplexed: kept with the segment's T and W, counted */
	struct spire_count d[] = { cnt("cycles", 1000), cnt("instructions", 800), cnt("g7", 7), cnt("g8", 8) };
	set_running(d, 4, (const double[]){ 10, 10, 5, 5 });
	before = ss->skips;
	spire_sampleset_add_interval(ss, d, 4, err, sizeof(err));
	tap_ok(sample_is(ss, "g7", 0, 1000, 800, 7) && sample_is(ss, "g8", 0, 1000, 800, 8) &&
		       ss->skips.not_simultaneous == before.not_simultaneous + 2 && ss->skips.no_group == before.no_group,
	       "ungrouped, metrics multiplexed: kept, counted not simultaneous");

	/* T-first groups, multiplexed, running times 1e-10 apart within a group */
	struct spire_count e[] = { cnt("cycles", 100), cnt("instructions", 200), cnt("g9", 9),
				   cnt("cycles", 300), cnt("instructions", 400), cnt("g9", 19) };
	set_running(e, 6, (const double[]){ 3, 3, 3 * (1 + 1e-10), 7, 7, 7 });
	before = ss->skips;
	spire_sampleset_add_interval(ss, e, 6, err, sizeof(err));
	tap_ok(sample_is(ss, "g9", 0, 100, 200, 9) && sample_is(ss, "g9", 1, 300, 400, 19) &&
		       ss->skips.not_simultaneous == before.not_simultaneous,
	       "T-first groups, multiplexed: each with its own group");

	/* hybrid CPUs: cpu_core/cycles/ and cpu_core/instructions/ are T and W */
	struct spire_count h[] = { cnt("cpu_core/cycles/", 1000), cnt("cpu_core/instructions/", 2500),
				   cnt("cpu_core/l1d.replacement/", 25) };
	before = ss->skips;
	spire_sampleset_add_interval(ss, h, 3, err, sizeof(err));
	tap_ok(sample_is(ss, "cpu_core/l1d.replacement/", 0, 1000, 2500, 25) && nsamples(ss, "cpu_core/cycles/") == 0 &&
		       ss->skips.no_group == before.no_group,
	       "hybrid: cpu_core/cycles/ and cpu_core/instructions/ are T and W");
}

static void test_add_interval(void)
{
	struct spire_sampleset ss;
	tap_ok(!spire_sampleset_init(&ss, NULL, NULL), "sampleset: init");
	tap_streq(ss.time_event, SPIRE_DEFAULT_TIME, "sampleset: default T");
	tap_streq(ss.work_event, SPIRE_DEFAULT_WORK, "sampleset: default W");

	/* {T, W, m1, m2}, {T, W, m3} */
	struct spire_count a[] = { cnt("cycles", 1000), cnt("instructions", 2000), cnt("L1D:REPLACEMENT", 100),
				   cnt("m2", 0),	cnt("cycles", 1100),	   cnt("instructions", 1800),
				   cnt("m3", 50) };
	tap_ok(!spire_sampleset_add_interval(&ss, a, 7, err, sizeof(err)), "groups: two groups added");
	tap_ok(ss.n == 3, "groups: three metrics (%zu)", ss.n);
	tap_ok(sample_is(&ss, "l1d.replacement", 0, 1000, 2000, 100), "groups: m1 with the first group's T and W");
	tap_ok(sample_is(&ss, "m2", 0, 1000, 2000, 0), "groups: m2 (M = 0 kept: I is infinite)");
	tap_ok(sample_is(&ss, "m3", 0, 1100, 1800, 50), "groups: m3 with the second group's T and W");
	tap_streq(ss.n ? ss.metrics[0].label : NULL, "L1D:REPLACEMENT", "groups: the label as written");
	tap_streq(ss.n ? ss.metrics[0].metric : NULL, "l1d.replacement", "groups: the key");
	tap_ok(ss.intervals == 1, "groups: one interval");
	tap_near(ss.total_t, 1050, 0, "groups: interval T is the mean of the groups' T");
	tap_near(ss.total_w, 1900, 0, "groups: interval W is the mean of the groups' W");
	const struct spire_metric_samples *ms = spire_sampleset_find(&ss, "m3");
	tap_ok(ms && ms->s[0].time == 1.5, "groups: the sample's time is the interval's timestamp");

	/* W before T, and a second group starting at the second W */
	struct spire_count b[] = { cnt("instructions", 2000), cnt("cycles", 1000), cnt("m1x", 10),
				   cnt("instructions", 3000), cnt("cycles", 1500), cnt("m1x", 20) };
	tap_ok(!spire_sampleset_add_interval(&ss, b, 6, err, sizeof(err)), "W first: added");
	tap_ok(sample_is(&ss, "m1x", 0, 1000, 2000, 10) && sample_is(&ss, "m1x", 1, 1500, 3000, 20),
	       "W first: two samples, one per group");
	tap_ok(ss.intervals == 2, "W first: two intervals");
	tap_near(ss.total_t, 1050 + 1250, 0, "W first: total T grows by the interval's mean");
	tap_near(ss.total_w, 1900 + 2500, 0, "W first: total W grows by the interval's mean");

	/* a group without W: its metric is left out (the groups multiplexed:
	 * each ran its own time) */
	struct spire_count c[] = { cnt("cycles", 1000), cnt("m4", 5), cnt("cycles", 900), cnt("instructions", 800),
				   cnt("m5", 7) };
	c[0].running = c[1].running = 0.4e9;
	c[2].running = c[3].running = c[4].running = 0.6e9;
	struct spire_skips before = ss.skips;
	tap_ok(!spire_sampleset_add_interval(&ss, c, 5, err, sizeof(err)), "no W: added");
	tap_ok(ss.skips.no_group == before.no_group + 1 && nsamples(&ss, "m4") == 0,
	       "no W: the metric of the group without W is left out (no_group %zu)", ss.skips.no_group);
	tap_ok(sample_is(&ss, "m5", 0, 900, 800, 7), "no W: the next group's metric is kept");
	tap_near(ss.total_t, 2300 + 950, 0, "no W: interval T is the mean of both groups' T");
	tap_near(ss.total_w, 4400 + 800, 0, "no W: interval W is the one group's W");

	/* uncounted metric, uncounted T */
	struct spire_count d[] = { cnt("cycles", 1000), cnt("instructions", 800), cnt("m6", 7) };
	d[2].counted = false;
	before = ss.skips;
	size_t iv = ss.intervals;
	double tt = ss.total_t;
	spire_sampleset_add_interval(&ss, d, 3, err, sizeof(err));
	tap_ok(ss.skips.not_counted == before.not_counted + 1 && nsamples(&ss, "m6") == 0,
	       "not counted: the metric is left out");
	tap_ok(ss.intervals == iv && ss.total_t == tt, "not counted: an interval without a sample adds nothing");
	tap_ok(ss.skips.intervals_without_tw == before.intervals_without_tw,
	       "not counted: the interval had T and W");
	d[2].counted = true;
	d[0].counted = false;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, d, 3, err, sizeof(err));
	tap_ok(ss.skips.not_counted == before.not_counted + 1 && nsamples(&ss, "m6") == 0,
	       "T not counted: the metric is left out");
	tap_ok(ss.skips.intervals_without_tw == before.intervals_without_tw + 1,
	       "T not counted: an interval without T and W");

	/* T = 0, W = 0, negative, NaN */
	struct spire_count e[] = { cnt("cycles", 0), cnt("instructions", 800), cnt("m7", 7) };
	before = ss.skips;
	spire_sampleset_add_interval(&ss, e, 3, err, sizeof(err));
	tap_ok(ss.skips.zero_t == before.zero_t + 1 && ss.skips.intervals_without_tw == before.intervals_without_tw + 1,
	       "T = 0: zero_t and an interval without T");
	e[0].value = 1000;
	e[1].value = 0;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, e, 3, err, sizeof(err));
	tap_ok(ss.skips.zero_w == before.zero_w + 1, "W = 0: zero_w");
	e[1].value = 800;
	e[2].value = -7;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, e, 3, err, sizeof(err));
	tap_ok(ss.skips.bad_value == before.bad_value + 1, "negative M: bad_value");
	e[2].value = 7;
	e[0].value = NAN;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, e, 3, err, sizeof(err));
	tap_ok(ss.skips.bad_value == before.bad_value + 1 && ss.skips.zero_t == before.zero_t,
	       "NaN T: bad_value, checked before T = 0");
	e[0].value = -1;
	e[1].value = 0;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, e, 3, err, sizeof(err));
	tap_ok(ss.skips.bad_value == before.bad_value + 1 && ss.skips.zero_w == before.zero_w,
	       "negative T with W = 0: bad_value first");
	tap_ok(nsamples(&ss, "m7") == 0, "no sample from the bad intervals");

	/* running times: members of a group ran exactly as long; 10 % or
	 * 0.5 % apart is another time (kept with the segment's T and W,
	 * counted), 1e-10 apart is the same */
	struct spire_count f[] = { cnt("cycles", 1000), cnt("instructions", 800), cnt("m8", 7) };
	f[2].running = 0.9e9;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, f, 3, err, sizeof(err));
	tap_ok(ss.skips.not_simultaneous == before.not_simultaneous + 1 && nsamples(&ss, "m8") == 1,
	       "running 10 %% apart: kept, counted not simultaneous");
	f[2].running = 0.995e9;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, f, 3, err, sizeof(err));
	tap_ok(ss.skips.not_simultaneous == before.not_simultaneous + 1 && nsamples(&ss, "m8") == 2,
	       "running 0.5 %% apart: kept, not simultaneous either");
	f[2].running = 1e9 * (1 + 1e-10);
	before = ss.skips;
	spire_sampleset_add_interval(&ss, f, 3, err, sizeof(err));
	tap_ok(ss.skips.not_simultaneous == before.not_simultaneous && nsamples(&ss, "m8") == 3,
	       "running 1e-10 apart: the same group, simultaneous");
	f[0].running = f[1].running = f[2].running = NAN;
	before = ss.skips;
	spire_sampleset_add_interval(&ss, f, 3, err, sizeof(err));
	tap_ok(ss.skips.not_simultaneous == before.not_simultaneous && sample_is(&ss, "m8", 3, 1000, 800, 7),
	       "running times unknown: the segment's T and W, not counted as not simultaneous");

	test_groups(&ss);

	/* no T and no W at all */
	struct spire_count g[] = { cnt("m9", 1), cnt("m10", 2) };
	before = ss.skips;
	spire_sampleset_add_interval(&ss, g, 2, err, sizeof(err));
	tap_ok(ss.skips.no_group == before.no_group + 2 &&
		       ss.skips.intervals_without_tw == before.intervals_without_tw + 1,
	       "no T or W: two metrics without a group, one interval without T and W");

	/* spire_sampleset_add */
	before = ss.skips;
	tap_ok(!spire_sampleset_add(&ss, "hand", 0, 1, 1, NAN) && !spire_sampleset_add(&ss, "hand", 1, 0, 1, NAN) &&
		       !spire_sampleset_add(&ss, "hand", 1, 1, -1, NAN) &&
		       !spire_sampleset_add(&ss, "hand", INFINITY, 1, 1, NAN),
	       "add: bad samples return 0");
	tap_ok(ss.skips.zero_t == before.zero_t + 1 && ss.skips.zero_w == before.zero_w + 1 &&
		       ss.skips.bad_value == before.bad_value + 2 && nsamples(&ss, "hand") == 0,
	       "add: bad samples counted in skips, not added");
	tt = ss.total_t;
	tap_ok(!spire_sampleset_add(&ss, "HAND", 10, 20, 0, 3) && nsamples(&ss, "hand") == 1 && ss.total_t == tt,
	       "add: a good sample, keyed, totals untouched");
	tap_ok(spire_sampleset_find(&ss, "nothing") == NULL, "find: unknown metric");
	tap_ok(!spire_sampleset_set_cpu(&ss, "skx") && !strcmp(ss.cpu, "skx"), "set_cpu");
	tap_ok(!spire_sampleset_set_cpu(&ss, "icx") && !strcmp(ss.cpu, "icx"), "set_cpu replaces");
	spire_sampleset_free(&ss);

	/* another T and W */
	tap_ok(!spire_sampleset_init(&ss, "ref-cycles", "uops_retired.slots"), "sampleset: other T and W");
	struct spire_count h[] = { cnt("ref-cycles", 100), cnt("UOPS_RETIRED:SLOTS", 300), cnt("cycles", 90),
				   cnt("instructions", 200) };
	spire_sampleset_add_interval(&ss, h, 4, err, sizeof(err));
	tap_ok(sample_is(&ss, "cycles", 0, 100, 300, 90) && sample_is(&ss, "instructions", 0, 100, 300, 200),
	       "other T and W: cycles and instructions are metrics");
	spire_sampleset_free(&ss);
}

/* ---------------------------------------------------- perf import --- */

static int import_text(const char *text, struct spire_sampleset *ss)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return -2;
	int rc = spire_import_perf_intervals(f, "perf.csv", ss, err, sizeof(err));
	fclose(f);
	return rc;
}

/* 3 intervals, 3 event groups each running a third of the time */
static char *multiplexed(void)
{
	static const char *const metrics[3][2] = { { "l1d.replacement", "mem_load_retired.l3_miss" },
						   { "idq.dsb_uops", NULL },
						   { "br_misp_retired.all_branches", "<nc>" } };
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	len += (size_t)snprintf(buf + len, cap - len, "# started on Mon Jan  1 00:00:00 2024\n\n# cpu: skx\n");
	for (int k = 1; k <= 3; k++) {
		double ts = k + 0.001040927 * k;
		for (int g = 0; g < 3; g++) {
			double run = 333000000 + g * 100000, pct = g == 2 ? 33.34 : 33.33;
			len += (size_t)snprintf(buf + len, cap - len, "%14.9f,%d,,cycles,%.0f,%.2f,,\n", ts,
						1000000 * (g + 1) + k, run, pct);
			len += (size_t)snprintf(buf + len, cap - len, "%14.9f,%d,,instructions,%.0f,%.2f,2.00,insn per cycle\n",
						ts, 2000000 * (g + 1) + 2 * k, run, pct);
			for (int j = 0; j < 2; j++) {
				const char *m = metrics[g][j];
				if (!m)
					continue;
				if (!strcmp(m, "<nc>")) {
					/* a metric not counted in the second interval */
					if (k == 2)
						len += (size_t)snprintf(buf + len, cap - len,
									"%14.9f,<not counted>,,machine_clears.count,0,0.00,,\n", ts);
					else
						len += (size_t)snprintf(buf + len, cap - len,
									"%14.9f,%d,,machine_clears.count,%.0f,%.2f,,\n", ts,
									7 * k, run, pct);
					continue;
				}
				len += (size_t)snprintf(buf + len, cap - len, "%14.9f,%d,,%s,%.0f,%.2f,,\n", ts,
							100 * (g + 1) * (j + 1) + k, m, run, pct);
			}
		}
	}
	return buf;
}

static void test_import(void)
{
	struct spire_sampleset ss;
	char *text = multiplexed();
	spire_sampleset_init(&ss, NULL, NULL);
	int rc = import_text(text, &ss);
	if (!tap_ok(rc == 0, "import: multiplexed perf stat -I -x, output"))
		printf("#   %s\n", err);
	tap_streq(ss.cpu, "skx", "import: '# cpu: skx' sets the CPU");
	tap_ok(ss.n == 5, "import: five metrics (%zu)", ss.n);
	tap_ok(nsamples(&ss, "l1d.replacement") == 3 && nsamples(&ss, "mem_load_retired.l3_miss") == 3 &&
		       nsamples(&ss, "idq.dsb_uops") == 3 && nsamples(&ss, "br_misp_retired.all_branches") == 3,
	       "import: three samples per metric");
	tap_ok(nsamples(&ss, "machine_clears.count") == 2 && ss.skips.not_counted == 1,
	       "import: <not counted> left out and counted (not_counted %zu)", ss.skips.not_counted);
	bool vals = true;
	for (int k = 1; k <= 3; k++) {
		vals &= sample_is(&ss, "l1d.replacement", (size_t)k - 1, 1000000 + k, 2000000 + 2 * k, 100 + k);
		vals &= sample_is(&ss, "mem_load_retired.l3_miss", (size_t)k - 1, 1000000 + k, 2000000 + 2 * k, 200 + k);
		vals &= sample_is(&ss, "idq.dsb_uops", (size_t)k - 1, 2000000 + k, 4000000 + 2 * k, 200 + k);
		vals &= sample_is(&ss, "br_misp_retired.all_branches", (size_t)k - 1, 3000000 + k, 6000000 + 2 * k,
				  300 + k);
	}
	tap_ok(vals, "import: each metric with its own group's T and W");
	const struct spire_metric_samples *ms = spire_sampleset_find(&ss, "idq.dsb_uops");
	tap_ok(ms && ms->n == 3 && fabs(ms->s[1].time - 2.002081854) < 1e-9, "import: sample times are the timestamps");
	tap_ok(ss.intervals == 3, "import: three intervals (%zu)", ss.intervals);
	double want_t = 0, want_w = 0;
	for (int k = 1; k <= 3; k++) {
		want_t += (1000000.0 + k + 2000000.0 + k + 3000000.0 + k) / 3;
		want_w += (2000000.0 + 2 * k + 4000000.0 + 2 * k + 6000000.0 + 2 * k) / 3;
	}
	tap_near(ss.total_t, want_t, 1e-6, "import: total T, the mean of the groups per interval");
	tap_near(ss.total_w, want_w, 1e-6, "import: total W");
	tap_ok(ss.skips.not_simultaneous == 0, "import: groups are simultaneous");
	spire_sampleset_free(&ss);

	/* the CPU of the set wins over the file's */
	spire_sampleset_init(&ss, NULL, NULL);
	spire_sampleset_set_cpu(&ss, "icx");
	import_text(text, &ss);
	tap_streq(ss.cpu, "icx", "import: '# cpu:' does not replace a known CPU");
	spire_sampleset_free(&ss);
	free(text);

	/* -A: lines event by event, each for every CPU */
	static const char per_cpu[] = "# time: cycles\n# work: instructions\n"
				      "1.001,CPU0,1000,,cycles,1000000,100.00,,\n"
				      "1.001,CPU1,1100,,cycles,1000000,100.00,,\n"
				      "1.001,CPU0,2000,,instructions,1000000,100.00,,\n"
				      "1.001,CPU1,2200,,instructions,1000000,100.00,,\n"
				      "1.001,CPU0,10,,l2_rqsts.miss,1000000,100.00,,\n"
				      "1.001,CPU1,11,,l2_rqsts.miss,1000000,100.00,,\n"
				      "2.002,CPU0,3000,,cycles,1000000,100.00,,\n"
				      "2.002,CPU1,3300,,cycles,1000000,100.00,,\n"
				      "2.002,CPU0,6000,,instructions,1000000,100.00,,\n"
				      "2.002,CPU1,6600,,instructions,1000000,100.00,,\n"
				      "2.002,CPU0,30,,l2_rqsts.miss,1000000,100.00,,\n"
				      "2.002,CPU1,33,,l2_rqsts.miss,1000000,100.00,,\n";
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text(per_cpu, &ss);
	if (!tap_ok(rc == 0, "import -A: read"))
		printf("#   %s\n", err);
	tap_ok(sample_is(&ss, "l2_rqsts.miss", 0, 1000, 2000, 10) && sample_is(&ss, "l2_rqsts.miss", 1, 1100, 2200, 11) &&
		       sample_is(&ss, "l2_rqsts.miss", 2, 3000, 6000, 30) &&
		       sample_is(&ss, "l2_rqsts.miss", 3, 3300, 6600, 33),
	       "import -A: one sample per CPU and interval");
	tap_ok(ss.intervals == 4 && ss.total_t == 8400 && ss.total_w == 16800, "import -A: 4 intervals, totals");
	tap_ok(ss.cpu == NULL, "import -A: no '# cpu:', CPU unknown");
	spire_sampleset_free(&ss);

	/* no -I */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("# started on x\n\n2004958,,cycles,2004958,100.00,,\n1000,,instructions,2004958,100.00,,\n",
			 &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv:3") && contains(err, "line 3 has no interval timestamp"),
	       "import: no -I timestamps is an error naming the line (%s)", err);
	spire_sampleset_free(&ss);

	/* garbage */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("1.001,1000,,cycles,1000000,100.00,,\nhello world\n", &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv:2"), "import: garbage is an error naming the line (%s)", err);
	spire_sampleset_free(&ss);
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("# only a comment\n", &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv"), "import: no count is an error (%s)", err);
	spire_sampleset_free(&ss);
	/* a file cut short in the middle of its last line */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("1.001,1000,,cycles,1000000,100.00,,\n1.001,2000,,instructions,10", &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv:2") && contains(err, "truncated line"),
	       "import: a truncated line is an error naming the line (%s)", err);
	spire_sampleset_free(&ss);
	/* NUL bytes inside a line (fmemopen with the length: strlen would stop at the first) */
	static const char nul[] = "1.001,1000,,cycles,1000000,100.00,,\n1.001,12\0\0\0,,instructions,1000000,100.00,,\n";
	spire_sampleset_init(&ss, NULL, NULL);
	FILE *nf = fmemopen((void *)nul, sizeof(nul) - 1, "r");
	rc = nf ? spire_import_perf_intervals(nf, "perf.csv", &ss, err, sizeof(err)) : -2;
	if (nf)
		fclose(nf);
	tap_ok(rc == -1 && contains(err, "perf.csv:2") && contains(err, "binary data"),
	       "import: NUL bytes in a line are an error naming the line (%s)", err);
	spire_sampleset_free(&ss);

	/* perf -e '{g1,cycles,instructions},{g2,cycles,instructions}':
	 * metric-first groups, multiplexed */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("1.001,10,,g1,400000000,40.00,,\n"
			 "1.001,1000,,cycles,400000000,40.00,,\n"
			 "1.001,2000,,instructions,400000000,40.00,,\n"
			 "1.001,20,,g2,600000000,60.00,,\n"
			 "1.001,1500,,cycles,600000000,60.00,,\n"
			 "1.001,3500,,instructions,600000000,60.00,,\n",
			 &ss);
	tap_ok(rc == 0 && sample_is(&ss, "g1", 0, 1000, 2000, 10) && sample_is(&ss, "g2", 0, 1500, 3500, 20) &&
		       ss.skips.not_simultaneous == 0,
	       "import: metric-first groups, each metric with its own group's T and W");
	spire_sampleset_free(&ss);

	/* hybrid CPU names */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("1.001,1000,,cpu_core/cycles/,1000000,100.00,,\n"
			 "1.001,3000,,cpu_core/instructions/,1000000,100.00,,\n"
			 "1.001,30,,cpu_core/idq.dsb_uops/,1000000,100.00,,\n",
			 &ss);
	tap_ok(rc == 0 && ss.n == 1 && sample_is(&ss, "cpu_core/idq.dsb_uops/", 0, 1000, 3000, 30),
	       "import: cpu_core/cycles/ and cpu_core/instructions/ are T and W");
	spire_sampleset_free(&ss);

	/* another T or W */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("# time: ref-cycles\n1.001,1000,,ref-cycles,1000000,100.00,,\n", &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv") && contains(err, "ref-cycles"),
	       "import: '# time: ref-cycles' with the default T is an error (%s)", err);
	spire_sampleset_free(&ss);
	spire_sampleset_init(&ss, NULL, NULL);
	rc = import_text("# work: uops_retired.slots\n1.001,1000,,cycles,1000000,100.00,,\n", &ss);
	tap_ok(rc == -1 && contains(err, "perf.csv") && contains(err, "uops_retired.slots"),
	       "import: '# work:' another W is an error (%s)", err);
	spire_sampleset_free(&ss);
	spire_sampleset_init(&ss, "ref-cycles", NULL);
	rc = import_text("# time: REF-CYCLES\n1.001,1000,,ref-cycles,1000000,100.00,,\n"
			 "1.001,3000,,instructions,1000000,100.00,,\n1.001,30,,cycles,1000000,100.00,,\n",
			 &ss);
	tap_ok(rc == 0 && sample_is(&ss, "cycles", 0, 1000, 3000, 30), "import: '# time:' agreeing with the set's T");
	spire_sampleset_free(&ss);
}

/* ------------------------------------------------------- left fit --- */

/* Brute force: V (I <= the peak's) is a vertex of the left hull when no
 * other point (or the origin) is at V's I and at least as high, none left
 * of V is at least as high, and no segment between two points (or the
 * origin) around V passes on or above it. */
static size_t left_brute(const struct spire_point *p, size_t n, struct spire_point pk, struct spire_knot *out)
{
	size_t m = 0;
	out[m++] = (struct spire_knot){ 0, 0 };
	struct spire_point *c = malloc((n + 1) * sizeof(*c));
	size_t nc = 0;
	c[nc++] = (struct spire_point){ 0, 0 };
	for (size_t k = 0; k < n; k++)
		if (isfinite(p[k].i) && (isinf(pk.i) || p[k].i <= pk.i))
			c[nc++] = p[k];
	for (size_t v = 1; v < nc; v++) {
		bool vertex = true;
		for (size_t a = 0; a < nc && vertex; a++) {
			if (a == v)
				continue;
			if (c[a].i <= c[v].i && c[a].p >= c[v].p)
				vertex = false;
			for (size_t b = 0; b < nc && vertex; b++) {
				if (b == v || !(c[a].i < c[v].i && c[v].i < c[b].i))
					continue;
				double y = c[a].p + (c[b].p - c[a].p) * (c[v].i - c[a].i) / (c[b].i - c[a].i);
				if (y >= c[v].p)
					vertex = false;
			}
		}
		if (vertex)
			out[m++] = (struct spire_knot){ c[v].i, c[v].p };
	}
	free(c);
	/* in order of I */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 1 && out[j].i < out[j - 1].i; j--) {
			struct spire_knot t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return m;
}

static bool knots_equal(const struct spire_knot *a, size_t na, const struct spire_knot *b, size_t nb)
{
	bool eq = na == nb;
	for (size_t k = 0; eq && k < na; k++)
		eq = a[k].i == b[k].i && a[k].p == b[k].p;
	if (!eq) {
		printf("#   got:");
		for (size_t k = 0; k < na; k++)
			printf(" (%g, %g)", a[k].i, a[k].p);
		printf("\n#   want:");
		for (size_t k = 0; k < nb; k++)
			printf(" (%g, %g)", b[k].i, b[k].p);
		printf("\n");
	}
	return eq;
}

static void test_left(void)
{
	/* the hand-worked example: slopes from the origin 1 (twice: the
	 * farthest wins), then 0.8, 0.55, 0.3, 0.05 */
	static const struct spire_point p[] = { { 0.5, 0.5 }, { 1, 1 }, { 2, 1.8 }, { 3, 2.1 }, { 4, 2.9 },
						{ 5, 3.0 },   { 6, 3.5 }, { 2.5, 1 }, { 7, 3.4 }, { 8, 3.6 },
						{ 9, 3.0 },   { 12, 0.5 } };
	static const struct spire_knot want[] = { { 0, 0 }, { 1, 1 }, { 2, 1.8 }, { 4, 2.9 }, { 6, 3.5 }, { 8, 3.6 } };
	size_t n = sizeof(p) / sizeof(p[0]);
	struct spire_knot *k = NULL, bf[32];
	size_t nk = 0;
	struct spire_point pk = { 8, 3.6 };
	tap_ok(!spire_fit_left(p, n, pk, &k, &nk), "left: fit");
	tap_ok(knots_equal(k, nk, want, sizeof(want) / sizeof(want[0])), "left: the hand-worked hull");
	size_t nb = left_brute(p, n, pk, bf);
	tap_ok(knots_equal(bf, nb, want, sizeof(want) / sizeof(want[0])), "left: the brute force agrees with the hand");
	free(k);

	/* a sample as high as the peak left of it: flat join */
	static const struct spire_point q[] = { { 1, 2 }, { 3, 3.6 }, { 8, 3.6 }, { 5, 3 } };
	static const struct spire_knot wq[] = { { 0, 0 }, { 1, 2 }, { 3, 3.6 }, { 8, 3.6 } };
	tap_ok(!spire_fit_left(q, 4, (struct spire_point){ 8, 3.6 }, &k, &nk) && knots_equal(k, nk, wq, 4),
	       "left: a flat join to the peak when a sample left of it is as high");
	free(k);

	/* an infinite peak: the march over the finite points */
	static const struct spire_point r[] = { { 1, 1 }, { INFINITY, 5 }, { 4, 2 }, { 9, 2 }, { 2, 1.2 } };
	static const struct spire_knot wr[] = { { 0, 0 }, { 1, 1 }, { 4, 2 } };
	tap_ok(!spire_fit_left(r, 5, (struct spire_point){ INFINITY, 5 }, &k, &nk) && knots_equal(k, nk, wr, 3),
	       "left: an infinite peak ends the hull at the highest finite sample");
	free(k);

	/* random sets against the brute force */
	rng_seed(12345);
	int bad = 0;
	for (int trial = 0; trial < 300; trial++) {
		struct spire_point rp[24];
		size_t rn = 4 + rng_next() % 20;
		for (size_t j = 0; j < rn; j++) {
			/* coarse grids make ties and collinear points common */
			rp[j].i = (double)(1 + rng_next() % 12) * 0.5;
			rp[j].p = (double)(1 + rng_next() % 10) * 0.25;
		}
		/* drop exact duplicates (the brute force would drop both) */
		size_t w = 0;
		for (size_t j = 0; j < rn; j++) {
			bool dup = false;
			for (size_t l = 0; l < w; l++)
				dup |= rp[l].i == rp[j].i && rp[l].p == rp[j].p;
			if (!dup)
				rp[w++] = rp[j];
		}
		struct spire_point pkr = rp[0];
		for (size_t j = 1; j < w; j++)
			if (rp[j].p > pkr.p || (rp[j].p == pkr.p && rp[j].i > pkr.i))
				pkr = rp[j];
		spire_fit_left(rp, w, pkr, &k, &nk);
		nb = left_brute(rp, w, pkr, bf);
		/* the brute force has no flat join: add it */
		if (bf[nb - 1].i != pkr.i || bf[nb - 1].p != pkr.p)
			bf[nb++] = (struct spire_knot){ pkr.i, pkr.p };
		if (!knots_equal(k, nk, bf, nb) && bad++ < 3)
			printf("#   trial %d differs\n", trial);
		free(k);
	}
	tap_ok(bad == 0, "left: 300 random sets equal the brute-force hull (%d differ)", bad);

	/* random real-valued sets against Figure 5's march as the paper
	 * gives it */
	bad = 0;
	for (int trial = 0; trial < 300; trial++) {
		struct spire_point rp[64];
		size_t rn = 1 + rng_next() % 64;
		for (size_t j = 0; j < rn; j++) {
			double i = urand(0.01, 10);
			rp[j] = (struct spire_point){ i, rng_next() % 8 ? urand(0.1, 1) * fmin(2 * i, 3) : 0.1 };
			if (rng_next() % 10 == 0)
				rp[j].i = INFINITY;
		}
		struct spire_point pkr = rp[0];
		for (size_t j = 1; j < rn; j++)
			if (rp[j].p > pkr.p || (rp[j].p == pkr.p && rp[j].i > pkr.i))
				pkr = rp[j];
		struct spire_knot march[80];
		size_t nm = 0;
		struct spire_point cur = { 0, 0 };
		march[nm++] = (struct spire_knot){ 0, 0 };
		for (;;) {
			if (isfinite(pkr.i) && cur.i == pkr.i && cur.p == pkr.p)
				break;
			size_t b = rn;
			double bs = 0;
			for (size_t j = 0; j < rn; j++) {
				if (!isfinite(rp[j].i) || (isfinite(pkr.i) && rp[j].i > pkr.i))
					continue;
				if (!(rp[j].i > cur.i && rp[j].p > cur.p))
					continue;
				double sl = (rp[j].p - cur.p) / (rp[j].i - cur.i);
				if (b == rn || sl > bs || (sl == bs && rp[j].i > rp[b].i)) {
					b = j;
					bs = sl;
				}
			}
			if (b == rn)
				break;
			cur = rp[b];
			march[nm++] = (struct spire_knot){ cur.i, cur.p };
		}
		if (isfinite(pkr.i) && (cur.i != pkr.i || cur.p != pkr.p))
			march[nm++] = (struct spire_knot){ pkr.i, pkr.p };
		spire_fit_left(rp, rn, pkr, &k, &nk);
		if (!knots_equal(k, nk, march, nm) && bad++ < 3)
			printf("#   trial %d differs\n", trial);
		free(k);
	}
	tap_ok(bad == 0, "left: 300 random real-valued sets equal the march of Figure 5 (%d differ)", bad);
}

/* ------------------------------------------------------ right fit --- */

struct chain_result {
	double cost;
	struct spire_knot k[32];
	size_t n;
	double tail;
	size_t n_best;	/* chains within a hair of the best cost */
	bool unique;	/* one best chain under the tie rule (cost, then fewest knots) */
	size_t valid;	/* valid chains */
};

static bool seg_valid(const struct spire_point *all, size_t n, struct spire_point x, struct spire_point y)
{
	for (size_t q = 0; q < n; q++) {
		if (!(all[q].i > x.i && all[q].i < y.i))
			continue;
		double line = x.p + (y.p - x.p) * (all[q].i - x.i) / (y.i - x.i);
		if (line < all[q].p - 1e-12 * fabs(all[q].p))
			return false;
	}
	return true;
}

/* Every chain of front samples F (finite, increasing I, F[0] = E) read as
 * a function: the chain's segments, the ray right of its rightmost sample,
 * and, when its leftmost sample Y is not E, the End segments: from Y up to
 * the left with the smallest |slope| that is at least the |slope| of the
 * chain's first segment (0: the ray) and at least that of the line from Y
 * to every front sample left of it, to P_E at I_H, then flat to E (a chain
 * whose Y reaches E that way at E itself is the chain with E, not
 * another). Valid: segments on or above every point of ALL between them,
 * slopes strictly increasing left to right. Cost: the squared
 * over-estimate of every front sample off the chain (S, at I = infinity,
 * is met). The best: the lowest cost, then the fewest knots. */
static void right_brute(const struct spire_point *f, size_t k, bool has_s, double ps, const struct spire_point *all,
			size_t nall, struct chain_result *res)
{
	static double costs[1 << 10];
	static size_t nknots[1 << 10];
	static unsigned masks[1 << 10];
	static double ihs[1 << 10];
	size_t nc = 0;
	res->valid = 0;
	for (unsigned mask = 1; mask < (1u << k); mask++) {
		size_t c[16] = { 0 }, m = 0;
		for (size_t j = 0; j < k; j++)
			if (mask & (1u << j))
				c[m++] = j;
		bool ok = true;
		double prev = -INFINITY;
		for (size_t t = 0; t + 1 < m && ok; t++) {
			struct spire_point x = f[c[t]], y = f[c[t + 1]];
			double s = (y.p - x.p) / (y.i - x.i);
			ok = seg_valid(all, nall, x, y) && s > prev && s < 0;
			prev = s;
		}
		if (!ok)
			continue;
		size_t Y = c[0], J = c[m - 1];
		double need = 0, ih = f[0].i;
		if (Y) {
			need = m > 1 ? (f[Y].p - f[c[1]].p) / (f[c[1]].i - f[Y].i) : 0;
			for (size_t s = 0; s < Y; s++)
				need = fmax(need, (f[s].p - f[Y].p) / (f[Y].i - f[s].i));
			ih = f[Y].i - (f[0].p - f[Y].p) / need;
			if (!(ih > f[0].i))
				continue;
		}
		res->valid++;
		double cost = 0;
		for (size_t s = 1; s < k; s++) {
			if (mask & (1u << s))
				continue;
			double v;
			if (s < Y)
				v = f[s].i >= ih ? f[Y].p + need * (f[Y].i - f[s].i) : f[0].p;
			else if (s > J)
				v = f[J].p;
			else {
				size_t t = 0;
				while (!(f[c[t]].i < f[s].i && f[s].i < f[c[t + 1]].i))
					t++;
				struct spire_point x = f[c[t]], y = f[c[t + 1]];
				v = x.p + (y.p - x.p) * (f[s].i - x.i) / (y.i - x.i);
			}
			cost += (v - f[s].p) * (v - f[s].p);
		}
		(void)has_s, (void)ps;
		costs[nc] = cost;
		nknots[nc] = m + (Y ? 1 : 0);
		ihs[nc] = ih;
		masks[nc++] = mask;
	}
	res->cost = INFINITY;
	for (size_t j = 0; j < nc; j++)
		res->cost = fmin(res->cost, costs[j]);
	double tol = 1e-9 * fmax(1, res->cost);
	size_t best = nc, n_min = 0;
	bool exact = true;
	res->n_best = 0;
	for (size_t j = 0; j < nc; j++) {
		if (costs[j] > res->cost + tol)
			continue;
		res->n_best++;
		exact &= costs[j] == res->cost;
		if (best == nc || nknots[j] < nknots[best]) {
			best = j;
			n_min = 1;
		} else if (nknots[j] == nknots[best])
			n_min++;
	}
	res->unique = exact && n_min == 1;
	res->n = 0;
	if (best == nc)
		return;
	size_t c[16] = { 0 }, m = 0;
	for (size_t j = 0; j < k; j++)
		if (masks[best] & (1u << j))
			c[m++] = j;
	size_t Y = c[0];
	res->k[res->n++] = (struct spire_knot){ f[0].i, f[0].p };
	if (Y) {
		res->k[res->n++] = (struct spire_knot){ ihs[best], f[0].p };
		res->k[res->n++] = (struct spire_knot){ f[Y].i, f[Y].p };
	}
	for (size_t t = 1; t < m; t++)
		res->k[res->n++] = (struct spire_knot){ f[c[t]].i, f[c[t]].p };
	res->tail = f[c[m - 1]].p;
}

/* The right fit's knots KN[0..NK) (E first) and TAIL as a roofline (the
 * origin before E); its sum of squared over-estimates of the front
 * F[0..K) and of S (when HAS_S, at PS), each evaluated by
 * spire_roofline_eval: what the fit's cost must be */
static double eval_cost(const struct spire_knot *kn, size_t nk, double tail, double inf, const struct spire_point *f,
			size_t k, bool has_s, double ps)
{
	struct spire_knot *all = calloc(nk + 1, sizeof(*all));
	memcpy(all + 1, kn, nk * sizeof(*kn));
	struct spire_roofline r = { .knots = all, .n_knots = nk + 1, .peak = 1, .peak_i = kn[0].i, .peak_p = kn[0].p,
				    .tail_p = tail, .inf_p = inf };
	double e = 0;
	for (size_t j = 0; j < k; j++) {
		double d = spire_roofline_eval(&r, f[j].i) - f[j].p;
		e += d * d;
	}
	if (has_s) {
		double d = spire_roofline_eval(&r, INFINITY) - ps;
		e += d * d;
	}
	free(all);
	return e;
}

/* fit_right on FRONT plus EXTRA (dominated, or left of E) points against
 * the brute force; UNIQUE: the test wants one best chain */
static bool right_case(const char *what, const struct spire_point *front, size_t k, bool has_s, double ps,
		       const struct spire_point *extra, size_t nextra, bool unique, bool want_skip, bool want_end,
		       struct chain_result *out)
{
	struct spire_point all[64];
	size_t n = 0;
	for (size_t j = 0; j < k; j++)
		all[n++] = front[j];
	if (has_s)
		all[n++] = (struct spire_point){ INFINITY, ps };
	for (size_t j = 0; j < nextra; j++)
		all[n++] = extra[j];
	/* shuffle: the fit must not depend on the order */
	for (size_t j = n; j > 1; j--) {
		size_t r = rng_next() % j;
		struct spire_point t = all[j - 1];
		all[j - 1] = all[r];
		all[r] = t;
	}
	struct spire_knot *kn = NULL;
	size_t nk = 0;
	double tail = -1, inf = -1, cost = -1;
	int rc = spire_fit_right(all, n, front[0], &kn, &nk, &tail, &inf, &cost);
	struct chain_result bf;
	right_brute(front, k, has_s, ps, all, n, &bf);
	bool ok = rc == 0;
	double ecost = rc == 0 && nk ? eval_cost(kn, nk, tail, inf, front, k, has_s, ps) : NAN;
	ok = ok && inf == (has_s ? ps : tail);
	if (what) {
		tap_ok(rc == 0 && bf.valid > 0, "%s: fit (%zu valid chains)", what, bf.valid);
		tap_near(cost, bf.cost, 1e-9 * fmax(1, bf.cost), "%s: cost is the brute-force minimum", what);
		tap_near(ecost, cost, 1e-9 * fmax(1, cost), "%s: cost is the over-estimates spire_roofline_eval gives",
			 what);
		if (unique)
			tap_ok(bf.unique, "%s: one best chain, by cost then fewest knots (%zu within a hair)", what,
			       bf.n_best);
		tap_ok(knots_equal(kn, nk, bf.k, bf.n) && tail == bf.tail, "%s: knots and tail of the best chain", what);
		tap_ok(inf == (has_s ? ps : tail), "%s: at I = infinity, %s", what,
		       has_s ? "P_S: the sample with M = 0 is met" : "the ray's height");
		if (want_skip) {
			bool all_front = true;
			for (size_t j = 0; j < k; j++) {
				bool in = false;
				for (size_t l = 0; l < nk; l++)
					in |= kn[l].i == front[j].i && kn[l].p == front[j].p;
				all_front &= in;
			}
			tap_ok(!all_front, "%s: the best chain skips a front sample", what);
		}
		if (want_end)
			tap_ok(nk >= 3 && kn[1].p == front[0].p && kn[1].i > kn[0].i && kn[1].i < kn[2].i &&
				       kn[2].p < kn[1].p,
			       "%s: the End segments are in the fit (flat at P_E to H, then down to the right)", what);
	} else {
		ok = ok && fabs(cost - bf.cost) <= 1e-9 * fmax(1, bf.cost) && fabs(ecost - cost) <= 1e-9 * fmax(1, cost);
		if (bf.unique)
			ok = ok && nk == bf.n && tail == bf.tail && !memcmp(kn, bf.k, nk * sizeof(*kn));
		if (!ok && getenv("GUS_TEST_DEBUG")) {
			printf("# cost %g brute %g ecost %g inf %g tail %g unique %d\n", cost, bf.cost, ecost, inf, tail,
			       bf.unique);
			for (size_t j = 0; j < k; j++)
				printf("#  front %g %g\n", front[j].i, front[j].p);
			for (size_t j = 0; j < nk; j++)
				printf("#  fit %g %g\n", kn[j].i, kn[j].p);
			for (size_t j = 0; j < bf.n; j++)
				printf("#  brute %g %g\n", bf.k[j].i, bf.k[j].p);
		}
	}
	if (out)
		*out = bf;
	free(kn);
	return ok;
}

static void test_right(void)
{
	rng_seed(777);
	/* A concavity violation: E-B slope -4, B-C -1, C-D -1.5: the chain
	 * through every sample is not concave up, one must be skipped */
	static const struct spire_point f1[] = { { 1, 10 }, { 2, 6 }, { 3, 5 }, { 4, 3.5 }, { 6, 3 }, { 9, 2.9 } };
	static const struct spire_point x1[] = { { 2.5, 4 }, { 5, 3 }, { 8, 1 }, { 0.5, 11 }, { 3.5, 3.4 } };
	right_case("right, no S, concavity violation", f1, 6, false, 0, x1, 5, true, true, false, NULL);
	right_case("right, real S, concavity violation", f1, 6, true, 2.0, x1, 5, true, true, false, NULL);

	/* End step optimal: E, B and C almost flat, D far below */
	static const struct spire_point f2[] = { { 1, 10 }, { 1.5, 9.9 }, { 2, 9.8 }, { 5, 1 } };
	static const struct spire_point x2[] = { { 3, 1 }, { 1.2, 5 } };
	struct chain_result bf;
	right_case("right, End step", f2, 4, false, 0, x2, 2, true, false, true, &bf);
	/* from D up as steep as D-C (2.933..., steeper than to E or B) to
	 * P_E at I_H = 5 - 9 / (8.8 / 3), then flat: C is on it, B under the
	 * flat by 0.1; E, H, C, D costs as much with one more knot */
	const double ih2 = 5 - 9 / (8.8 / 3);
	const struct spire_knot w2[] = { { 1, 10 }, { ih2, 10 }, { 5, 1 } };
	tap_ok(knots_equal(bf.k, bf.n, w2, 3) && fabs(bf.cost - 0.01) < 1e-12,
	       "right, End: the hand-worked chain E, (%.4f, 10), D with cost %.3g", bf.n > 1 ? bf.k[1].i : 0, bf.cost);
	right_case("right, End step, real S", f2, 4, true, 0.5, x2, 2, true, false, true, NULL);

	/* the paper's Figure 6 shape: a concave-up front with C slightly low
	 * so that B-D over C is valid */
	static const struct spire_point f3[] = { { 1, 9 }, { 2, 6 }, { 3, 4.2 }, { 4, 3 }, { 6, 2 } };
	right_case("right, A-E", f3, 5, false, 0, NULL, 0, true, false, false, NULL);
	right_case("right, A-E with S", f3, 5, true, 1, NULL, 0, true, false, false, NULL);

	/* collinear: E, B, C on one line; the chain drops B (C-D is not
	 * steeper than B-C... and E-C through B costs nothing) */
	static const struct spire_point f5[] = { { 1, 10 }, { 2, 8 }, { 3, 6 }, { 5, 5 }, { 9, 4.5 } };
	right_case("right, collinear", f5, 5, false, 0, NULL, 0, true, false, false, &bf);
	static const struct spire_knot w5[] = { { 1, 10 }, { 3, 6 }, { 5, 5 }, { 9, 4.5 } };
	tap_ok(knots_equal(bf.k, bf.n, w5, 4) && bf.cost == 0, "right, collinear: the hand-worked chain E, C, D, F");

	/* only E (and S) */
	static const struct spire_point f4[] = { { 3, 2 } };
	struct spire_knot *kn;
	size_t nk;
	double tail, cost;
	struct spire_point a4[] = { { 3, 2 }, { INFINITY, 1.5 }, { 5, 1 } };
	double inf;
	tap_ok(!spire_fit_right(a4, 3, f4[0], &kn, &nk, &tail, &inf, &cost) && nk == 1 && kn[0].i == 3 && tail == 2 &&
		       inf == 1.5 && cost == 0,
	       "right: E and S only: the ray at P_E, P_S at infinity, cost 0");
	free(kn);
	tap_ok(!spire_fit_right(a4, 3, (struct spire_point){ INFINITY, 7 }, &kn, &nk, &tail, &inf, &cost) && nk == 0 &&
		       tail == 7,
	       "right: an infinite peak has no right region");
	free(kn);

	/* random fronts against the brute force */
	int bad = 0, uniq = 0;
	for (int trial = 0; trial < 400; trial++) {
		struct spire_point f[8], x[16];
		size_t k = 1 + rng_next() % 7;
		f[0] = (struct spire_point){ urand(0.5, 2), urand(10, 20) };
		for (size_t j = 1; j < k; j++) {
			f[j].i = f[j - 1].i + urand(0.2, 3);
			f[j].p = f[j - 1].p * urand(0.3, 0.97);
		}
		size_t nx = rng_next() % 12;
		for (size_t j = 0; j < nx; j++) {
			/* dominated by a front sample */
			size_t d = rng_next() % k;
			x[j].i = f[d].i - urand(0, d ? f[d].i - f[d - 1].i : 0.4);
			x[j].p = f[d].p * urand(0.1, 1);
			if (x[j].i < f[0].i && rng_next() % 2)
				x[j].p = f[0].p * urand(0.2, 1.5);	/* left of E: ignored */
		}
		bool has_s = rng_next() % 2;
		double ps = f[k - 1].p * urand(0.1, 0.99);
		struct chain_result r;
		if (!right_case(NULL, f, k, has_s, ps, x, nx, false, false, false, &r) && bad++ < 3)
			printf("#   trial %d differs\n", trial);
		uniq += r.unique;
	}
	tap_ok(bad == 0, "right: 400 random fronts: cost and chain equal the brute force's (%d differ, %d unique)", bad,
	       uniq);
}

/* ------------------------------------------------- synthetic fits --- */

static double ceil_a(double i)
{
	return fmin(fmin(0.5 * i, 0.1 * i + 2), 3.2);
}

static double ceil_b(double i)
{
	if (i <= 2)
		return 1.5 * i;
	return fmax(fmax(3 - 0.2 * (i - 2), 1.4 - 0.04 * (i - 10)), 0.6 - 0.01 * (i - 30));
}

static double ceil_c(double i)
{
	return fmin(0.4 * i, 2.4);
}

/* D: up to the peak (2, 2), then falling, first concave down (the
 * quadratic to (4, 1.5)), then linearly to (24, 0.5): the fit's End
 * segments must follow the fall next to the peak */
static double ceil_d(double i)
{
	if (i <= 2)
		return i;
	if (i <= 4)
		return 2 - 0.125 * (i - 2) * (i - 2);
	return 1.5 - 0.05 * (i - 4);
}

/* N random samples under CEIL on (0, IMAX), P = ceil(I) u, u in [0.3, 0.95],
 * plus the exact ones at ON, plus NINF samples with M = 0 at P = PINF u */
static void synth(struct spire_metric_samples *ms, const char *name, double (*ceil)(double), double imax, size_t n,
		  const double *on, size_t non, size_t ninf, double pinf)
{
	struct spire_point *p = calloc(n + non + ninf, sizeof(*p));
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		double i = urand(0.05, imax);
		p[m++] = (struct spire_point){ i, ceil(i) * urand(0.3, 0.95) };
	}
	for (size_t k = 0; k < non; k++)
		p[m++] = (struct spire_point){ on[k], ceil(on[k]) };
	for (size_t k = 0; k < ninf; k++)
		p[m++] = (struct spire_point){ INFINITY, k ? pinf * urand(0.3, 0.99) : pinf };
	ms_from_points(ms, name, p, m);
	free(p);
}

static void probe(const struct spire_roofline *r, double (*ceil)(double), const double *at, size_t n, double tol,
		  const char *what)
{
	size_t off = 0;
	for (size_t k = 0; k < n; k++) {
		double v = spire_roofline_eval(r, at[k]), w = ceil(at[k]);
		if (!(fabs(v - w) <= tol * w)) {
			if (!off)
				printf("#   %s at I %g: %.9g, the ceiling %.9g\n", what, at[k], v, w);
			off++;
		}
	}
	tap_ok(off == 0, "%s: recovers the ceiling within %g %% at %zu probes (%zu off)", what, tol * 100, n, off);
}

/* P = 1 + 10 / (1 + I) at N points log-spaced on I in [1, 50000], the
 * first (the peak E) raised to 30: the front falls steeply right after E */
static struct spire_point *steep_front(size_t n)
{
	struct spire_point *p = calloc(n, sizeof(*p));
	for (size_t k = 0; k < n; k++) {
		double i = exp(log(50000.0) * (double)k / (double)(n - 1));
		p[k] = (struct spire_point){ i, 1 + 10 / (1 + i) };
	}
	p[0].p = 30;
	return p;
}

/* Fronts of more than 512 samples are thinned to 512 knot candidates.
 * The steep front is convex (concave up), so the chain through every
 * sample is valid and exact: the unthinned optimum costs 0, as the fit of
 * 400 samples of it (not thinned) shows. Thinned by index (every third
 * sample) E's neighbours were dropped and the chord from E over-estimated
 * them by up to 14: a cost of 323 on 1500 samples; thinned by shape the
 * samples next to E are kept. */
static void test_thinning(void)
{
	struct spire_knot *kn = NULL;
	size_t nk = 0;
	double tail = 0, inf = 0, cost = -1;
	struct spire_point *p = steep_front(400);
	int rc = spire_fit_right(p, 400, p[0], &kn, &nk, &tail, &inf, &cost);
	tap_ok(rc == 0 && cost <= 1e-12 && nk == 400,
	       "thinning: 400 samples of the steep front (not thinned): every sample a knot, cost %.3g", cost);
	free(kn);
	free(p);

	size_t n = 1500;
	p = steep_front(n);
	rc = spire_fit_right(p, n, p[0], &kn, &nk, &tail, &inf, &cost);
	tap_ok(rc == 0 && nk <= 512, "thinning: 1500 samples, %zu knots", nk);
	tap_ok(rc == 0 && cost <= 1e-4, "thinning: the cost %.3g is near the unthinned optimum 0", cost);
	if (rc == 0) {
		double ec = eval_cost(kn, nk, tail, inf, p, n, false, 0);
		tap_near(ec, cost, 1e-12, "thinning: the cost is the over-estimates spire_roofline_eval gives");
		bool next = nk > 2 && kn[1].i == p[1].i && kn[1].p == p[1].p;
		tap_ok(next, "thinning: E's neighbour is a knot");
	}
	free(kn);

	struct spire_metric_samples ms;
	struct spire_roofline r;
	ms_from_points(&ms, "steep", p, n);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "thinning: the steep front fits")) {
		check_shape(&r, &ms, "steep", false);
		double worst = 0;
		for (size_t k = 0; k < n; k++)
			worst = fmax(worst, spire_roofline_eval(&r, p[k].i) / p[k].p - 1);
		tap_ok(worst < 1e-3, "thinning: within 0.1 %% of every sample of the steep front (%.3g)", worst);
		spire_roofline_free(&r);
	}
	ms_free(&ms);
	free(p);
}

static void test_synthetic(void)
{
	struct spire_metric_samples ms;
	struct spire_roofline r;
	rng_seed(2024);

	/* A: increasing concave-down, flat from 12 */
	static const double on_a[] = { 0.5, 1, 5, 8, 12, 20, 30 };
	synth(&ms, "ceiling_a", ceil_a, 40, 400, on_a, 7, 0, 0);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "ceiling A: fit")) {
		check_shape(&r, &ms, "ceiling A", false);
		tap_ok(fabs(r.peak_i - 30) < 1e-12 && r.peak_p == 3.2, "ceiling A: peak (30, 3.2), the highest I of the ties");
		static const double at[] = { 0.3, 1, 2.5, 4, 5, 7, 10, 12, 15, 25, 30 };
		probe(&r, ceil_a, at, sizeof(at) / sizeof(at[0]), 1e-9, "ceiling A");
		tap_streq(r.metric, "ceiling_a", "ceiling A: metric");
		tap_ok(r.n_train == 407, "ceiling A: n_train");
	}
	spire_roofline_free(&r);
	ms_free(&ms);

	/* B: peak at 2, then decreasing concave-up */
	static const double on_b[] = { 0.5, 1, 2, 4, 6, 8, 10, 13, 16, 20, 25, 30, 40, 50, 60 };
	synth(&ms, "ceiling_b", ceil_b, 60, 600, on_b, 15, 0, 0);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "ceiling B: fit")) {
		check_shape(&r, &ms, "ceiling B", false);
		tap_ok(fabs(r.peak_i - 2) < 1e-12 && r.peak_p == 3, "ceiling B: peak (2, 3)");
		static const double at[] = { 0.5, 1, 2, 3, 5, 7, 10, 12, 15, 22, 30, 35, 45, 55, 60 };
		probe(&r, ceil_b, at, sizeof(at) / sizeof(at[0]), 0.03, "ceiling B");
		tap_near(r.tail_p, ceil_b(60), 1e-12, "ceiling B: tail at the last sample's P");
	}
	spire_roofline_free(&r);
	ms_free(&ms);

	/* B with M = 0 samples below the tail: a real S */
	synth(&ms, "ceiling_b_s", ceil_b, 60, 600, on_b, 15, 20, 0.25);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "ceiling B with S: fit")) {
		check_shape(&r, &ms, "ceiling B with S", false);
		static const double at[] = { 0.5, 1, 2, 3, 5, 7, 10, 12, 15, 22, 30, 35, 45, 55 };
		probe(&r, ceil_b, at, sizeof(at) / sizeof(at[0]), 0.03, "ceiling B with S");
		tap_ok(spire_roofline_eval(&r, INFINITY) >= 0.25, "ceiling B with S: the estimate at infinity covers S");
	}
	spire_roofline_free(&r);
	ms_free(&ms);

	/* C: the highest samples have M = 0 */
	static const double on_c[] = { 1, 3, 6, 10, 20 };
	synth(&ms, "ceiling_c", ceil_c, 25, 300, on_c, 5, 10, 3.0);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "ceiling C (infinite peak): fit")) {
		check_shape(&r, &ms, "ceiling C", false);
		tap_ok(isinf(r.peak_i) && r.peak_p == 3.0, "ceiling C: the peak is at infinity");
		tap_ok(r.peak == r.n_knots - 1 && fabs(r.knots[r.peak].i - 6) < 1e-12 && r.knots[r.peak].p == 2.4,
		       "ceiling C: knots[peak] is the left hull's last vertex (6, 2.4)");
		tap_ok(r.tail_p == 2.4 && r.inf_p == 3.0 && spire_roofline_eval(&r, INFINITY) == 3.0 &&
			       spire_roofline_eval(&r, 1e6) == 2.4,
		       "ceiling C: tail 2.4 for finite I, 3.0 at infinity");
		static const double at[] = { 0.5, 1, 2, 3, 4.5, 6, 10, 20 };
		probe(&r, ceil_c, at, sizeof(at) / sizeof(at[0]), 1e-9, "ceiling C");
	}
	spire_roofline_free(&r);
	ms_free(&ms);

	/* D: a known falling ceiling. The fit is on or above the samples
	 * and concave up right of the peak, so next to the peak, where the
	 * ceiling falls concave down, it must over-estimate; the End segments
	 * (sloped from the first sample the chain reaches, then flat at the
	 * peak) keep that small. A flat at the peak down to that sample
	 * (gus before) over-estimated the fall by up to a third. */
	static const double on_d[] = { 0.5, 1, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 8, 12, 16, 20, 24 };
	synth(&ms, "ceiling_d", ceil_d, 24, 600, on_d, 16, 0, 0);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "ceiling D (falling): fit")) {
		check_shape(&r, &ms, "ceiling D", false);
		/* the first knot after the End's flat: where a flat End would
		 * have dropped */
		size_t y = r.peak + 1;
		while (y < r.n_knots && r.knots[y].p == r.peak_p)
			y++;
		double sum = 0, worst = 0, flat = 0;
		size_t np = 0;
		for (double i = 2.02; i <= 24; i += 0.02, np++) {
			double v = spire_roofline_eval(&r, i), w = ceil_d(i);
			double f = y < r.n_knots && i < r.knots[y].i ? r.peak_p : v;
			sum += fabs(v - w) / w;
			flat += fabs(f - w) / w;
			worst = fmax(worst, fabs(v - w) / w);
		}
		sum /= (double)np;
		flat /= (double)np;
		for (size_t q = 0; getenv("GUS_TEST_DEBUG") && q < r.n_knots; q++)
			printf("#  knot %g %g\n", r.knots[q].i, r.knots[q].p);
		tap_ok(sum < 0.01 && worst < 0.08 && sum < flat / 2,
		       "ceiling D: the End segments follow the fall next to the peak: %.2f %% off on average (worst %.1f "
		       "%%), a flat End %.2f %%",
		       100 * sum, 100 * worst, 100 * flat);
		tap_ok(spire_roofline_eval(&r, 3.5) < 2 - 1e-9,
		       "ceiling D: below the peak's height before the fall ends (%.4f at 3.5)", spire_roofline_eval(&r, 3.5));
	}
	spire_roofline_free(&r);
	ms_free(&ms);

	/* noisy data without exact ceiling samples: only the shape */
	int misshapen = 0;
	for (int t = 0; t < 50; t++) {
		struct spire_point p[200];
		size_t n = 5 + rng_next() % 190;
		for (size_t k = 0; k < n; k++) {
			double i = rng_next() % 17 == 0 ? INFINITY : urand(0.01, 50);
			p[k] = (struct spire_point){ i, urand(0.05, 4) * (isinf(i) ? 1 : ceil_b(i) / 3) };
		}
		ms_from_points(&ms, "noise", p, n);
		char what[64];
		snprintf(what, sizeof(what), "noise %d", t);
		/* quiet: only a failure prints */
		if (spire_fit(&ms, &r, err, sizeof(err)) || !check_shape(&r, &ms, what, true))
			misshapen++;
		spire_roofline_free(&r);
		ms_free(&ms);
	}
	tap_ok(misshapen == 0, "noise: 50 random sets fit with the right shape (%d not)", misshapen);

	/* a front of 1500 samples on one convex curve: thinned to at most 512
	 * knots on the right, still on or above every sample */
	{
		struct spire_point p[1500];
		for (size_t k = 0; k < 1500; k++) {
			double i = 0.5 + 0.1 * (double)k;
			p[k] = (struct spire_point){ i, 1 + 10 / (1 + i) };
		}
		ms_from_points(&ms, "sweep", p, 1500);
		if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "sweep: fit")) {
			check_shape(&r, &ms, "sweep", false);
			tap_ok(r.n_knots - r.peak <= 512, "sweep: %zu knots right of the peak", r.n_knots - r.peak - 1);
			double worst = 0;
			for (size_t k = 0; k < 1500; k++)
				worst = fmax(worst, spire_roofline_eval(&r, p[k].i) / p[k].p - 1);
			tap_ok(worst < 0.01, "sweep: within 1 %% of every sample (%.3g)", worst);
		}
		spire_roofline_free(&r);
		ms_free(&ms);
	}

	test_thinning();

	/* eval */
	static const struct spire_knot kk[] = { { 0, 0 }, { 2, 2 }, { 4, 3 }, { 4, 3 }, { 6, 3 }, { 6, 1 }, { 10, 0.5 } };
	struct spire_roofline h = { .knots = (struct spire_knot *)kk, .n_knots = 7, .peak = 2, .peak_i = 4,
				    .peak_p = 3, .tail_p = 0.5, .inf_p = 0.25 };
	tap_ok(spire_roofline_eval(&h, 0) == 0 && spire_roofline_eval(&h, 1) == 1 && spire_roofline_eval(&h, 3) == 2.5,
	       "eval: linear on the left");
	tap_ok(spire_roofline_eval(&h, 6) == 1, "eval: at a step, the lower value (the step's foot)");
	tap_ok(spire_roofline_eval(&h, 4) == 3 && spire_roofline_eval(&h, 5.5) == 3, "eval: a repeated knot, the flat");
	tap_ok(spire_roofline_eval(&h, 8) == 0.75 && spire_roofline_eval(&h, 10) == 0.5, "eval: after the step");
	tap_ok(spire_roofline_eval(&h, 11) == 0.5 && spire_roofline_eval(&h, INFINITY) == 0.25,
	       "eval: tail and infinity");
	tap_ok(spire_roofline_eval(&h, NAN) == 0 && spire_roofline_eval(&h, -1) == 0, "eval: NaN and negative I give 0");
}

/* --------------------------------------------------------- model --- */

static void skip_counter(void *ctx, const char *metric, const char *why)
{
	char *names = ctx;
	strcat(names, metric);
	strcat(names, ";");
	(void)why;
}

static void train_model(struct spire_model *m, struct spire_sampleset *ss)
{
	spire_sampleset_init(ss, NULL, NULL);
	spire_sampleset_set_cpu(ss, "skx");
	rng_seed(99);
	for (int k = 0; k < 300; k++) {
		double t = urand(1e8, 1e9), ipc = urand(0.2, 3);
		double w = t * ipc;
		spire_sampleset_add(ss, "L1D:REPLACEMENT", t, w, w / urand(1, 100) * (ipc / 3), k);
		spire_sampleset_add(ss, "idq.dsb_uops", t, w, w * urand(0.1, 2), k);
		spire_sampleset_add(ss, "machine_clears.count", t, w, rng_next() % 5 ? w / urand(100, 1e5) : 0, k);
		spire_sampleset_add(ss, "never", t, w, 0, k);
	}
	char names[256] = "";
	size_t skipped = 99;
	int rc = spire_train(ss, NULL, 0, m, &skipped, skip_counter, names, err, sizeof(err));
	if (!tap_ok(rc == 0, "train: three metrics"))
		printf("#   %s\n", err);
	tap_ok(m->n == 3 && skipped == 1 && !strcmp(names, "never;"),
	       "train: the all-M = 0 metric is skipped and named (%zu, %zu, '%s')", m->n, skipped, names);
	tap_ok(m->n_samples == 900, "train: n_samples counts the fitted metrics' samples (%zu)", m->n_samples);
	tap_streq(m->cpu, "skx", "train: the CPU");
}

static char *model_text(const struct spire_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = spire_model_write(f, m);
	fclose(f);
	if (rc)
		tap_ok(0, "model write failed");
	return buf;
}

static int read_text(const char *text, struct spire_model *m)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = spire_model_read(f, "model.txt", m, err, sizeof(err));
	fclose(f);
	return rc;
}

static char *replace(const char *s, const char *old, const char *new)
{
	const char *at = strstr(s, old);
	if (!at) {
		printf("#   '%s' not in the base text\n", old);
		return xstrdup(s);
	}
	size_t n = strlen(s) - strlen(old) + strlen(new) + 1;
	char *r = malloc(n);
	snprintf(r, n, "%.*s%s%s", (int)(at - s), s, new, at + strlen(old));
	return r;
}

static void read_error(const char *base, const char *old, const char *new, const char *want, const char *what)
{
	char *text = replace(base, old, new);
	struct spire_model m;
	int rc = read_text(text, &m);
	if (!tap_ok(rc == -1 && contains(err, want), "model read error: %s", what))
		printf("#   rc %d, error '%s', want '%s'\n", rc, err, want);
	if (!rc)
		spire_model_free(&m);
	free(text);
}

static const char base_model[] = "# a model\n"
				  "gus-spire-model 1\n"
				  "cpu skx\n"
				  "time cpu_clk_unhalted.thread\n"
				  "work inst_retired.any\n"
				  "samples 10\n"
				  "files 1\n"
				  "metrics 1\n"
				  "\n"
				  "metric a.b\n"
				  "label A:B with spaces\n"
				  "n-train 10\n"
				  "peak 4 3\n"
				  "knot 0 0\n"
				  "knot 2 2\n"
				  "knot 4 3\n"
				  "knot 6 1\n"
				  "peak-knot 2\n"
				  "tail 1\n"
				  "infinity 1\n"
				  "end\n";

static void test_model(void)
{
	struct spire_model m, back;
	struct spire_sampleset ss;
	train_model(&m, &ss);
	m.n_files = 4;
	char *text = model_text(&m);
	int rc = read_text(text, &back);
	if (!tap_ok(rc == 0, "model: read back what was written"))
		printf("#   %s\n", err);
	if (!rc) {
		bool same = back.n == m.n && back.n_samples == m.n_samples && back.n_files == 4 &&
			    !strcmp(back.cpu, "skx") && !strcmp(back.time_event, m.time_event) &&
			    !strcmp(back.work_event, m.work_event);
		size_t evals = 0, differ = 0;
		for (size_t i = 0; same && i < m.n; i++) {
			const struct spire_roofline *a = &m.r[i], *b = &back.r[i];
			same = !strcmp(a->metric, b->metric) && !strcmp(a->label, b->label) && a->n_train == b->n_train &&
			       a->n_knots == b->n_knots && a->peak == b->peak &&
			       !memcmp(&a->peak_i, &b->peak_i, sizeof(double)) &&
			       !memcmp(&a->peak_p, &b->peak_p, sizeof(double)) &&
			       !memcmp(&a->tail_p, &b->tail_p, sizeof(double)) &&
			       !memcmp(&a->inf_p, &b->inf_p, sizeof(double)) &&
			       !memcmp(a->knots, b->knots, a->n_knots * sizeof(*a->knots));
			for (int t = 0; t < 2000; t++) {
				double x = t == 0 ? INFINITY : urand(0, 2 * a->knots[a->n_knots - 1].i + 1);
				double va = spire_roofline_eval(a, x), vb = spire_roofline_eval(b, x);
				differ += memcmp(&va, &vb, sizeof(double)) != 0;
				evals++;
			}
		}
		tap_ok(same, "model: every field and knot bit for bit");
		tap_ok(differ == 0, "model: %zu evaluations identical (%zu differ)", evals, differ);
		char *again = model_text(&back);
		tap_ok(!strcmp(text, again), "model: written again, the same text");
		free(again);
		tap_ok(spire_model_find(&back, "L1D:REPLACEMENT") == &back.r[0] &&
			       spire_model_find(&back, "idq.dsb_uops:u") == &back.r[1] &&
			       !spire_model_find(&back, "never"),
		       "model: find by key");
		spire_model_free(&back);
	}
	tap_ok(contains(text, "gus-spire-model 1\ncpu skx\ntime cpu_clk_unhalted.thread\nwork inst_retired.any\n"
			      "samples 900\nfiles 4\nmetrics 3\n"),
	       "model: header lines");
	tap_ok(contains(text, "\nmetric l1d.replacement\nlabel L1D:REPLACEMENT\nn-train 300\npeak "),
	       "model: metric block");
	free(text);

	/* select */
	struct spire_model sel;
	const char *const pick[] = { "IDQ:DSB_UOPS", "not-there" };
	tap_ok(!spire_train(&ss, pick, 2, &sel, NULL, NULL, NULL, err, sizeof(err)) && sel.n == 1 &&
		       !strcmp(sel.r[0].metric, "idq.dsb_uops"),
	       "train: select by any spelling of the key");
	spire_model_free(&sel);
	const char *const none[] = { "nothing" };
	tap_ok(spire_train(&ss, none, 1, &sel, NULL, NULL, NULL, err, sizeof(err)) == -1 && err[0],
	       "train: nothing selected is an error (%s)", err);
	const char *const never[] = { "never" };
	size_t skipped = 0;
	tap_ok(spire_train(&ss, never, 1, &sel, &skipped, NULL, NULL, err, sizeof(err)) == -1 && skipped == 1,
	       "train: only an all-M = 0 metric is an error (%s)", err);
	spire_model_free(&m);
	spire_sampleset_free(&ss);

	/* a hand-written model, infinities, unknown CPU */
	rc = read_text(base_model, &back);
	if (!tap_ok(rc == 0, "model: the hand-written base reads"))
		printf("#   %s\n", err);
	if (!rc) {
		tap_ok(back.n == 1 && back.r[0].n_knots == 4 && back.r[0].peak == 2 &&
			       !strcmp(back.r[0].label, "A:B with spaces") && spire_roofline_eval(&back.r[0], 5) == 2,
		       "model: the base's fields");
		spire_model_free(&back);
	}
	char *t2 = replace(base_model, "peak 4 3", "peak inf 3");
	char *t3 = replace(t2, "cpu skx", "cpu unknown");
	char *t4 = replace(t3, "metric a.b", "metric IDQ:DSB_UOPS");
	rc = read_text(t4, &back);
	tap_ok(rc == 0 && isinf(back.r[0].peak_i) && back.cpu == NULL && !strcmp(back.r[0].metric, "idq.dsb_uops"),
	       "model: peak I inf, cpu unknown, a metric name read as its key (%s)", rc ? err : "");
	if (!rc) {
		char *w = model_text(&back);
		tap_ok(contains(w, "\npeak inf 3\n") && contains(w, "\ncpu unknown\n"), "model: 'inf' and 'unknown' written");
		free(w);
		spire_model_free(&back);
	}
	free(t2);
	free(t3);
	free(t4);

	read_error(base_model, "gus-spire-model 1", "gus-spire-modle 1", "model.txt:2: not a gus spire model",
		   "bad magic");
	read_error(base_model, "gus-spire-model 1", "gus-spire-model 2", "model.txt:2: model format version 2",
		   "wrong version");
	read_error(base_model, "knot 6 1", "knot 3 1", "model.txt:17: knot I 3 is left of", "knot I decreasing");
	read_error(base_model, "knot 2 2", "knot 2 -2", "model.txt:15: knot: -2 is negative", "negative P");
	read_error(base_model, "knot 2 2", "knot 2 nan", "model.txt:15: knot: 'nan' is not a number", "NaN");
	read_error(base_model, "knot 2 2", "knot inf 2", "model.txt:15: knot: inf must be finite", "infinite knot I");
	read_error(base_model, "tail 1", "tail inf", "model.txt:19: tail: inf must be finite", "infinite tail");
	read_error(base_model, "peak-knot 2", "peak-knot 9", "model.txt:18: peak-knot 9 is out of range",
		   "peak index out of range");
	read_error(base_model, "peak-knot 2", "peak-knot -1", "model.txt:18: peak-knot: '-1' is not a count",
		   "negative peak index");
	read_error(base_model, "knot 0 0", "knot 0 1", "model.txt:14: the first knot must be 0 0", "first knot");
	read_error(base_model, "peak-knot 2", "peak-knot 0", "model.txt:18: peak-knot 0 is the origin",
		   "the peak's knot at the origin");
	read_error(base_model, "peak 4 3", "peak 4 3.5", "model.txt:18: peak-knot 2 is knot (4, 3), not the peak (4, 3.5)",
		   "the peak's knot elsewhere than the peak (P)");
	read_error(base_model, "peak-knot 2", "peak-knot 1", "model.txt:18: peak-knot 1 is knot (2, 2), not the peak (4, 3)",
		   "the peak's knot elsewhere than the peak (I)");
	read_error(base_model, "knot 0 0\n", "knot 0 0\nknot 0 1\n", "model.txt:15: a second knot at I = 0",
		   "a step at the origin");
	read_error(base_model, "knot 0 0\n", "knot 0 0\nknot 0 0\n", "model.txt:15: a second knot at I = 0",
		   "the origin twice");
	read_error(base_model, "knot 2 2", "knot 2 2 7", "model.txt:15: knot: unexpected '7'", "three numbers");
	read_error(base_model, "samples 10", "samples ten", "model.txt:6: samples: 'ten' is not a count", "bad count");
	read_error(base_model, "files 1\n", "", "model.txt:7: 'metrics' where 'files' was expected", "missing line");
	read_error(base_model, "end\n", "", "model.txt:21: truncated", "truncated: no 'end'");
	read_error(base_model, "tail 1\ninfinity 1\nend\n", "", "truncated", "truncated after the knots");
	read_error(base_model, "metrics 1", "metrics 2", "truncated", "truncated: a metric block missing");
	read_error(base_model, "end\n", "end\nwhat\n", "model.txt:22: 'what' after the last of the 1 metrics",
		   "trailing garbage");
	read_error(base_model, "metric a.b", "metrik a.b", "model.txt:10: 'metrik' where 'metric' was expected",
		   "unknown keyword");
	read_error(base_model, "metrics 1", "metrics 0", "no metric", "no metric");
	read_error(base_model, "end\n", "end x\n", "'end' takes no value", "end with a value");
	read_error("", "", "", "not a gus spire model", "empty file");
	/* the same metric twice */
	char *twice = replace(base_model, "metrics 1", "metrics 2");
	size_t tl = strlen(twice);
	const char *block = strstr(base_model, "metric a.b");
	char *dup = malloc(tl + strlen(block) + 1);
	memcpy(dup, twice, tl);
	strcpy(dup + tl, block);
	char *dup2 = replace(dup, "metric a.b\nlabel A:B with spaces\nn-train 10\npeak 4 3\nknot 0 0\nknot 2 2\nknot 4 3\n"
				  "knot 6 1\npeak-knot 2\ntail 1\ninfinity 1\nend\nmetric a.b",
			     "metric a.b\nlabel A:B with spaces\nn-train 10\npeak 4 3\nknot 0 0\nknot 2 2\nknot 4 3\n"
			     "knot 6 1\npeak-knot 2\ntail 1\ninfinity 1\nend\nmetric A:B");
	rc = read_text(dup2, &back);
	tap_ok(rc == -1 && contains(err, "model.txt:22: metric 'a.b' twice"), "model read error: a metric twice (%s)",
	       err);
	if (!rc)
		spire_model_free(&back);
	free(twice);
	free(dup);
	free(dup2);
}

/* ------------------------------------------------------ analysis --- */

static void roofline(struct spire_roofline *r, const char *metric, const double (*k)[2], size_t n, size_t peak,
		     double tail, double inf)
{
	memset(r, 0, sizeof(*r));
	r->metric = xstrdup(metric);
	r->label = xstrdup(metric);
	r->knots = calloc(n, sizeof(*r->knots));
	for (size_t j = 0; j < n; j++)
		r->knots[j] = (struct spire_knot){ k[j][0], k[j][1] };
	r->n_knots = n;
	r->peak = peak;
	r->peak_i = k[peak][0];
	r->peak_p = k[peak][1];
	r->tail_p = tail;
	r->inf_p = inf;
}

static void hand_model(struct spire_model *m)
{
	static const double k1[][2] = { { 0, 0 }, { 2, 2 }, { 4, 3 } };
	static const double k2[][2] = { { 0, 0 }, { 1, 4 }, { 3, 1 } };
	static const double k3[][2] = { { 0, 0 }, { 10, 5 } };
	memset(m, 0, sizeof(*m));
	m->cpu = xstrdup("skx");
	m->time_event = xstrdup(SPIRE_DEFAULT_TIME);
	m->work_event = xstrdup(SPIRE_DEFAULT_WORK);
	m->r = calloc(4, sizeof(*m->r));
	roofline(&m->r[0], "m1", k1, 3, 2, 3, 3);
	roofline(&m->r[1], "m2", k2, 3, 1, 1, 1);
	roofline(&m->r[2], "m3", k3, 2, 1, 5, 5);
	roofline(&m->r[3], "a3", k3, 2, 1, 5, 5);
	m->n = 4;
}

static void test_analyze(void)
{
	struct spire_model m;
	struct spire_sampleset ss;
	struct spire_analysis a;
	hand_model(&m);
	spire_sampleset_init(&ss, NULL, NULL);
	/* m1: I 2 -> 2, I 3 -> 2.5 */
	spire_sampleset_add(&ss, "m1", 100, 200, 100, 1);
	spire_sampleset_add(&ss, "m1", 300, 300, 100, 2);
	/* and I 4 -> 3, at the peak (not left of it): m1 is (200 + 750 + 300) / 500 = 2.5 */
	spire_sampleset_add(&ss, "m1", 100, 400, 100, 3);
	/* m2: I 2 -> 2.5, I inf -> 1: (100 x 2.5 + 100 x 1) / 200 = 1.75 */
	spire_sampleset_add(&ss, "m2", 100, 100, 50, 1);
	spire_sampleset_add(&ss, "m2", 100, 100, 0, 2);
	/* m3: I 5 -> 2.5; a3 the same: a three-way tie with m1 ranked by name */
	spire_sampleset_add(&ss, "m3", 50, 100, 20, 1);
	spire_sampleset_add(&ss, "a3", 50, 100, 20, 1);
	spire_sampleset_add(&ss, "unmod", 10, 10, 1, 1);
	ss.total_t = 1000;
	ss.total_w = 1500;
	int rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	if (!tap_ok(rc == 0, "analyze: hand-made workload"))
		printf("#   %s\n", err);
	if (!rc) {
		tap_ok(a.n == 4 && !strcmp(a.e[0].r->metric, "m2") && !strcmp(a.e[1].r->metric, "a3") &&
			       !strcmp(a.e[2].r->metric, "m1") && !strcmp(a.e[3].r->metric, "m3"),
		       "analyze: ranked m2, then a3, m1, m3 (tied at 2.5: by name)");
		tap_near(a.e[0].estimate, 1.75, 1e-15, "analyze: m2 Eq. 1 with the M = 0 sample at inf_p");
		tap_near(a.e[2].estimate, 2.5, 1e-15, "analyze: m1 Eq. 1 weighs by T");
		tap_near(a.e[1].estimate, 2.5, 1e-15, "analyze: a3");
		tap_near(a.ensemble, 1.75, 0, "analyze: ensemble is the minimum");
		tap_near(a.e[2].measured, 1.8, 1e-15, "analyze: m1 measured sum W / sum T");
		tap_ok(a.e[2].n == 3 && a.e[2].t == 500, "analyze: m1 n and t");
		tap_near(a.e[2].left_of_peak, 2.0 / 3, 1e-15, "analyze: m1 two of three samples left of the peak at 4");
		tap_near(a.e[0].left_of_peak, 0, 0, "analyze: m2 none left of the peak at 1");
		tap_near(a.e[1].left_of_peak, 1, 0, "analyze: a3 left of its peak");
		tap_near(a.e[0].measured, 1, 1e-15, "analyze: m2 measured");
		tap_near(a.measured, 1.5, 0, "analyze: measured total_w / total_t");
		tap_ok(a.n_samples == 7, "analyze: 7 samples used");
		tap_ok(a.n_unmodeled == 1 && !strcmp(a.unmodeled[0], "unmod"), "analyze: unmodeled metric listed");
		spire_analysis_free(&a);
	}
	ss.total_t = 0;
	rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	tap_near(rc ? -1 : a.measured, 1310.0 / 810.0, 1e-15,
		 "analyze: measured from all samples when total_t is 0");
	if (!rc)
		spire_analysis_free(&a);

	/* errors */
	struct spire_sampleset other;
	spire_sampleset_init(&other, "ref-cycles", NULL);
	spire_sampleset_add(&other, "m1", 1, 1, 1, 0);
	rc = spire_analyze(&m, &other, &a, err, sizeof(err));
	tap_ok(rc == -1 && contains(err, "the model was trained with T = cpu_clk_unhalted.thread, these samples have T = ref-cycles"),
	       "analyze: another T is an error (%s)", err);
	spire_sampleset_free(&other);
	spire_sampleset_init(&other, NULL, "uops_retired.slots");
	spire_sampleset_add(&other, "m1", 1, 1, 1, 0);
	rc = spire_analyze(&m, &other, &a, err, sizeof(err));
	tap_ok(rc == -1 && contains(err, "W = uops_retired.slots"), "analyze: another W is an error (%s)", err);
	spire_sampleset_free(&other);
	spire_sampleset_init(&other, "CPU_CLK_UNHALTED:THREAD", NULL);
	spire_sampleset_add(&other, "zz", 1, 1, 1, 0);
	rc = spire_analyze(&m, &other, &a, err, sizeof(err));
	tap_ok(rc == -1 && contains(err, "no metric"), "analyze: no common metric is an error (%s)", err);
	spire_sampleset_free(&other);

	/* CPU check */
	char warn[256];
	tap_ok(spire_cpu_check(&m, &ss, warn, sizeof(warn), err, sizeof(err)) == 0 && contains(warn, "samples' CPU is unknown") &&
		       contains(warn, "skx"),
	       "cpu: samples' CPU unknown: a warning (%s)", warn);
	spire_sampleset_set_cpu(&ss, "SKX");
	tap_ok(spire_cpu_check(&m, &ss, warn, sizeof(warn), err, sizeof(err)) == 0 && warn[0] == 0,
	       "cpu: the same CPU, any case");
	spire_sampleset_set_cpu(&ss, "icx");
	tap_ok(spire_cpu_check(&m, &ss, warn, sizeof(warn), err, sizeof(err)) == -1 && contains(err, "skx") &&
		       contains(err, "icx"),
	       "cpu: another CPU is an error naming both (%s)", err);
	free(m.cpu);
	m.cpu = NULL;
	tap_ok(spire_cpu_check(&m, &ss, warn, sizeof(warn), err, sizeof(err)) == 0 && contains(warn, "model's CPU is unknown") &&
		       contains(warn, "icx"),
	       "cpu: model's CPU unknown: a warning (%s)", warn);
	spire_sampleset_set_cpu(&ss, NULL);
	tap_ok(spire_cpu_check(&m, &ss, warn, sizeof(warn), err, sizeof(err)) == 0 && contains(warn, "both unknown"),
	       "cpu: both unknown: a warning (%s)", warn);
	spire_sampleset_free(&ss);
	spire_model_free(&m);
}

/* -------------------------------------------------------- guards --- */

static void test_guards(void)
{
	struct spire_metric_samples ms;
	struct spire_roofline r;
	static const struct spire_point zero[] = { { INFINITY, 1 }, { INFINITY, 2 } };
	ms_from_points(&ms, "allzero", zero, 2);
	tap_ok(spire_fit(&ms, &r, err, sizeof(err)) == -1 && contains(err, "allzero") && contains(err, "M = 0"),
	       "guard: a metric with M = 0 in every sample cannot be fitted (%s)", err);
	ms_free(&ms);
	ms_from_points(&ms, "empty", zero, 0);
	tap_ok(spire_fit(&ms, &r, err, sizeof(err)) == -1, "guard: no sample cannot be fitted (%s)", err);
	ms_free(&ms);

	/* a single sample */
	static const struct spire_point one[] = { { 4, 2 } };
	ms_from_points(&ms, "one", one, 1);
	if (tap_ok(!spire_fit(&ms, &r, err, sizeof(err)), "guard: one sample fits")) {
		tap_ok(r.n_knots == 2 && r.peak == 1 && spire_roofline_eval(&r, 2) == 1 && spire_roofline_eval(&r, 9) == 2 &&
			       spire_roofline_eval(&r, INFINITY) == 2,
		       "guard: one sample: the origin, the sample, flat after");
		spire_roofline_free(&r);
	}
	ms_free(&ms);

	/* an analysis where every sample has M = 0: inf_p, never NaN */
	struct spire_model m;
	hand_model(&m);
	struct spire_sampleset ss;
	spire_sampleset_init(&ss, NULL, NULL);
	spire_sampleset_add(&ss, "m1", 100, 50, 0, 1);
	spire_sampleset_add(&ss, "m3", 100, 50, 0, 1);
	struct spire_analysis a;
	int rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	tap_ok(rc == 0 && a.n == 2 && a.e[0].estimate == 3 && a.e[1].estimate == 5 && isfinite(a.measured) &&
		       a.e[0].left_of_peak == 0,
	       "guard: M = 0 samples get inf_p (%s)", rc ? err : "");
	if (!rc)
		spire_analysis_free(&a);
	spire_sampleset_free(&ss);
	/* an empty set: measured 0, no NaN */
	spire_sampleset_init(&ss, NULL, NULL);
	rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	tap_ok(rc == -1, "guard: an empty set has no common metric");
	spire_sampleset_free(&ss);
	spire_model_free(&m);

	/* a huge but finite roofline: T x estimate overflows a double */
	static const double kh[][2] = { { 0, 0 }, { 1, 1e300 } };
	static const double kl[][2] = { { 0, 0 }, { 1, 2 } };
	memset(&m, 0, sizeof(m));
	m.time_event = xstrdup(SPIRE_DEFAULT_TIME);
	m.work_event = xstrdup(SPIRE_DEFAULT_WORK);
	m.r = calloc(2, sizeof(*m.r));
	roofline(&m.r[0], "huge", kh, 2, 1, 1e300, 1e300);
	roofline(&m.r[1], "low", kl, 2, 1, 2, 2);
	m.n = 2;
	spire_sampleset_init(&ss, NULL, NULL);
	for (int k = 0; k < 3; k++) {
		spire_sampleset_add(&ss, "huge", 1e9, 1e9, 1e8, k);
		spire_sampleset_add(&ss, "low", 1e9, 1e9, 1e8, k);
	}
	rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	tap_ok(rc == 0 && a.n == 2 && !strcmp(a.e[0].r->metric, "low") && a.ensemble == 2,
	       "guard: a roofline at 1e300 with T = 1e9 is not the bottleneck (ensemble %g)", rc ? -1 : a.ensemble);
	tap_ok(rc == 0 && a.n == 2 && fabs(a.e[1].estimate / 1e300 - 1) < 1e-12 && isfinite(a.e[1].measured),
	       "guard: its estimate is 1e300 (%g), not 0 or inf", rc || a.n < 2 ? -1 : a.e[1].estimate);
	if (!rc)
		spire_analysis_free(&a);
	spire_sampleset_free(&ss);
	/* T near the largest double: the sum of T overflows */
	spire_sampleset_init(&ss, NULL, NULL);
	spire_sampleset_add(&ss, "low", 1e308, 1e308, 1e307, 1);
	spire_sampleset_add(&ss, "low", 1.5e308, 1.5e308, 1.5e307, 2);
	rc = spire_analyze(&m, &ss, &a, err, sizeof(err));
	tap_ok(rc == 0 && a.n == 1 && fabs(a.e[0].estimate - 2) < 1e-12 && fabs(a.e[0].measured - 1) < 1e-12 &&
		       isfinite(a.e[0].t) && isfinite(a.measured),
	       "guard: T summing past the largest double: estimate 2 (%g), measured 1 (%g), no inf or NaN",
	       rc ? -1 : a.e[0].estimate, rc ? -1 : a.e[0].measured);
	if (!rc)
		spire_analysis_free(&a);
	spire_sampleset_free(&ss);
	spire_model_free(&m);

	/* a sample whose I underflows to 0 (W / M below the smallest double)
	 * and has the highest P: left out of the fit, no step at the origin,
	 * the model reads back */
	spire_sampleset_init(&ss, NULL, NULL);
	spire_sampleset_add(&ss, "under", 1e-301, 1e-300, 1e300, 0);
	spire_sampleset_add(&ss, "under", 1, 2, 1, 1);
	spire_sampleset_add(&ss, "under", 1, 1, 0.1, 2);
	rc = spire_train(&ss, NULL, 0, &m, NULL, NULL, NULL, err, sizeof(err));
	tap_ok(rc == 0 && m.n == 1 && m.r[0].n_knots >= 2 && m.r[0].knots[1].i > 0 && m.r[0].peak_p == 2,
	       "guard: a sample with I = 0 is left out of the fit (%s)", rc ? err : "");
	if (!rc) {
		char *text = model_text(&m);
		struct spire_model back;
		int brc = read_text(text, &back);
		tap_ok(brc == 0, "guard: the model without it reads back (%s)", brc ? err : "");
		if (!brc)
			spire_model_free(&back);
		free(text);
		spire_model_free(&m);
	}
	spire_sampleset_free(&ss);

	struct spire_roofline empty = { 0 };
	tap_ok(spire_roofline_eval(&empty, 3) == 0 && spire_roofline_eval(NULL, 3) == 0, "guard: eval of nothing is 0");
}

int main(void)
{
	test_keys();
	test_add_interval();
	test_import();
	test_left();
	test_right();
	test_synthetic();
	test_model();
	test_analyze();
	test_guards();
	return tap_done();
}
