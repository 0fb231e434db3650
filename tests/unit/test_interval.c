/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interval counting on a real program (software events count in any VM),
 * SPIRE's counting groups, the SPIRE metric sets: the parser, the
 * shipped skx set, and every libpfm4 name in it encoded for Skylake-X;
 * perf stat -I files of perf 6.12 (threshold column, metric-only lines). */
#include "tap.h"
#include "collect.h"
#include "spire.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static char err[COLLECT_ERRLEN];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ sink --- */
#define MAX_IV 512
#define MAX_EV 8

struct rec {
	size_t calls;
	int fail_at;		/* return -1 on this call (1-based); 0: never */
	double t[MAX_IV];
	size_t n[MAX_IV];
	char names[MAX_EV][64];
	double raw[MAX_IV][MAX_EV], ena[MAX_IV][MAX_EV], run[MAX_IV][MAX_EV];
	bool counted[MAX_IV][MAX_EV];
};

static int rec_interval(void *ctx, double t, const struct td_countset *cs)
{
	struct rec *r = ctx;
	size_t k = r->calls++;
	if (k < MAX_IV) {
		r->t[k] = t;
		r->n[k] = cs->n;
		for (size_t i = 0; i < cs->n && i < MAX_EV; i++) {
			snprintf(r->names[i], sizeof(r->names[i]), "%s", cs->c[i].event);
			r->raw[k][i] = cs->c[i].raw;
			r->ena[k][i] = cs->c[i].enabled;
			r->run[k][i] = cs->c[i].running;
			r->counted[k][i] = cs->c[i].counted;
		}
	}
	return r->fail_at && (int)r->calls == r->fail_at ? -1 : 0;
}

static const char *workload(void)
{
	const char *w = getenv("WORKLOAD");
	return w && access(w, X_OK) == 0 ? w : NULL;
}

/* the bundled workload burning CPU, or a shell loop where it is missing */
static void spin_argv(char **argv, const char *seconds)
{
	static char loop[128];
	const char *w = workload();
	if (w) {
		argv[0] = (char *)w;
		argv[1] = "spin";
		argv[2] = (char *)seconds;
		argv[3] = NULL;
		return;
	}
	snprintf(loop, sizeof(loop), "i=0; while [ $i -lt %d ]; do i=$((i+1)); done",
		 (int)(atof(seconds) * 400000));
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = loop;
	argv[3] = NULL;
}

static void test_live(void)
{
	struct collect_plan plan;
	struct collect_result res;
	struct td_countset total;
	struct rec *r = calloc(1, sizeof(*r));
	char *argv[5];

	if (!tap_ok(collect_plan_events("task-clock,page-faults", false, &plan, err, sizeof(err)) == 0,
		    "plan task-clock,page-faults (%s)", err)) {
		free(r);
		return;
	}
	spin_argv(argv, "0.3");
	td_countset_init(&total);
	struct collect_interval_sink sink = { .ctx = r, .interval = rec_interval };
	double t0 = now();
	enum collect_status st = collect_count_intervals(&plan, argv, 50, &sink, &total, &res, err, sizeof(err));
	double wall = now() - t0;
	if (!tap_ok(st == COLLECT_OK, "%s spin 0.3 counted every 50 ms (%s)", argv[0], err))
		goto out;
	tap_ok(WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 0, "exit status 0");
	tap_ok(r->calls >= 4 && r->calls < MAX_IV, "several intervals: %zu", r->calls);
	tap_ok(res.seconds > 0.2 && res.seconds <= wall + 0.01, "run time %.3f s (wall %.3f s)", res.seconds, wall);

	bool inc = true, layout = true, nonneg = true, spacing = true;
	double late[MAX_IV];
	size_t nlate = 0;
	for (size_t k = 0; k < r->calls && k < MAX_IV; k++) {
		if (k && r->t[k] <= r->t[k - 1])
			inc = false;
		if (r->n[k] != 2 || strcmp(r->names[0], "task-clock") || strcmp(r->names[1], "page-faults"))
			layout = false;
		for (size_t i = 0; i < 2; i++)
			if (r->raw[k][i] < 0 || r->ena[k][i] < 0 || r->run[k][i] < 0 || r->run[k][i] > r->ena[k][i] + 1)
				nonneg = false;
		/* every interval but the last ends on or after its multiple of
		 * 50 ms from the start (deadlines are absolute, never early); how
		 * late depends on the machine's load, so only the median is held
		 * to the grid below */
		if (k + 1 < r->calls) {
			double m = r->t[k] / 0.05;
			if (m < (double)k + 1 - 1e-3)
				spacing = false;
			if (k < MAX_IV)
				late[nlate++] = m - floor(m);
		}
	}
	qsort(late, nlate, sizeof(double), cmp_double);
	if (!nlate || late[nlate / 2] > 0.6)
		spacing = false;
	tap_ok(inc, "interval times increase");
	tap_ok(layout, "every interval has the plan's events in plan order");
	tap_ok(nonneg, "increases are non-negative, running <= enabled");
	tap_ok(spacing, "intervals end on the 50 ms grid (first %.4f s, second %.4f s)", r->t[0], r->t[1]);
	size_t last = r->calls - 1;
	tap_ok(r->t[last] - r->t[last - 1] <= 0.05 + 0.05, "the last interval is partial: %.4f s after the one before",
	       r->t[last] - r->t[last - 1]);
	/* the last read follows the program's exit by as long as gus takes
	 * to be scheduled again: on a loaded machine tens of milliseconds */
	tap_near(r->t[last], res.seconds, 0.05, "the last interval ends when the program ended");

	if (tap_ok(total.n == 2, "the total has both events")) {
		for (size_t i = 0; i < 2; i++) {
			double sr = 0, se = 0, sn = 0;
			for (size_t k = 0; k <= last; k++) {
				sr += r->raw[k][i];
				se += r->ena[k][i];
				sn += r->run[k][i];
			}
			tap_near(sr, total.c[i].raw, 0.5, "%s: the intervals add up to the total count", total.c[i].event);
			tap_near(se, total.c[i].enabled, 0.5, "%s: ... and to the total enabled time", total.c[i].event);
			tap_near(sn, total.c[i].running, 0.5, "%s: ... and to the total running time", total.c[i].event);
		}
		tap_ok(total.c[0].raw > 0.2e9, "task-clock total %.0f ns for 0.3 s of CPU", total.c[0].raw);
		/* how much CPU each interval gets depends on the machine's load:
		 * what holds is that the middle intervals count it as it runs */
		double busy = 0, middle = 0;
		for (size_t k = 1; k < last; k++) {
			busy += r->raw[k][0] > 0;
			middle += r->raw[k][0];
		}
		tap_ok(busy >= 2 && middle >= 0.5 * total.c[0].raw,
		       "the full intervals in the middle saw the CPU busy (%g of them, %.0f%% of the task-clock)", busy,
		       100 * middle / total.c[0].raw);
	}
out:
	td_countset_free(&total);
	collect_plan_free(&plan);
	free(r);
}

/* a sleeping program: its task-clock does not run in most intervals, and
 * such an interval is still there, with running 0 */
static void test_idle(void)
{
	struct collect_plan plan;
	struct collect_result res;
	struct rec *r = calloc(1, sizeof(*r));
	char *argv[] = { "sleep", "0.25", NULL };
	collect_plan_events("task-clock", false, &plan, err, sizeof(err));
	struct collect_interval_sink sink = { .ctx = r, .interval = rec_interval };
	enum collect_status st = collect_count_intervals(&plan, argv, 20, &sink, NULL, &res, err, sizeof(err));
	tap_ok(st == COLLECT_OK, "sleep 0.25 counted every 20 ms (%s)", err);
	size_t idle = 0, all = 1;
	for (size_t k = 0; k < r->calls && k < MAX_IV; k++) {
		idle += r->counted[k][0] && r->run[k][0] == 0;
		all &= r->n[k] == 1;
	}
	tap_ok(r->calls >= 8 && all, "an interval every 20 ms, idle or not: %zu", r->calls);
	tap_ok(idle >= 5, "idle intervals are there with running 0: %zu", idle);
	collect_plan_free(&plan);
	free(r);
}

static void test_sink_failure(void)
{
	const char *w = workload();
	struct collect_plan plan;
	struct collect_result res;
	struct rec *r = calloc(1, sizeof(*r));
	char *sleeper[] = { (char *)(w ? w : "/bin/sleep"), w ? "sleep" : "30", w ? "30" : NULL, NULL };
	collect_plan_events("task-clock", false, &plan, err, sizeof(err));
	r->fail_at = 2;
	struct collect_interval_sink sink = { .ctx = r, .interval = rec_interval };
	double t0 = now();
	enum collect_status st = collect_count_intervals(&plan, sleeper, 20, &sink, NULL, &res, err, sizeof(err));
	double took = now() - t0;
	tap_ok(st == COLLECT_ERROR, "a failing sink stops the run with COLLECT_ERROR");
	tap_ok(strstr(err, "killed") != NULL, "and says the program was killed: %s", err);
	tap_ok(r->calls == 2, "no interval after the failing one (%zu calls)", r->calls);
	tap_ok(took < 5, "the 30 s program did not run on (%.2f s)", took);
	tap_ok(WIFSIGNALED(res.wait_status) && WTERMSIG(res.wait_status) == SIGKILL, "it was killed with SIGKILL");
	collect_plan_free(&plan);
	free(r);
}

static void test_exit_and_exec(void)
{
	const char *w = workload();
	struct collect_plan plan;
	struct collect_result res;
	struct rec *r = calloc(1, sizeof(*r));
	struct collect_interval_sink sink = { .ctx = r, .interval = rec_interval };
	collect_plan_events("task-clock", false, &plan, err, sizeof(err));

	char *exit7[] = { "/bin/sh", "-c", "exit 7", NULL };
	enum collect_status st = collect_count_intervals(&plan, exit7, 1000, &sink, NULL, &res, err, sizeof(err));
	tap_ok(st == COLLECT_OK && WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 7,
	       "the program's exit status (7) comes back");
	tap_ok(r->calls == 1, "a short program: one (partial) interval, %zu", r->calls);
	tap_ok(r->calls == 1 && r->t[0] < 0.9, "ending at %.4f s, before the first full interval", r->t[0]);

	r->calls = 0;
	char *missing[] = { "/nonexistent/gus-test-program", NULL };
	st = collect_count_intervals(&plan, missing, 50, &sink, NULL, &res, err, sizeof(err));
	tap_ok(st == COLLECT_EXEC_FAILED && res.exec_errno == ENOENT, "a missing program: COLLECT_EXEC_FAILED, ENOENT");
	tap_ok(strstr(err, "gus-test-program") != NULL, "named in the message: %s", err);
	tap_ok(r->calls == 0, "no interval for a program that never ran");

	char path[] = "/tmp/gus-test-interval-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0) {
		(void)!write(fd, "data\n", 5);
		close(fd);
		chmod(path, 0644);
		char *noexec[] = { path, NULL };
		st = collect_count_intervals(&plan, noexec, 50, &sink, NULL, &res, err, sizeof(err));
		tap_ok(st == COLLECT_EXEC_FAILED && res.exec_errno == EACCES,
		       "a file that is not executable: COLLECT_EXEC_FAILED, EACCES (%s)", strerror(res.exec_errno));
		tap_ok(collect_exit_code(res.wait_status) == 126, "the child's status is 126, as a shell's");
		unlink(path);
	}

	st = collect_count_intervals(&plan, exit7, 0, &sink, NULL, &res, err, sizeof(err));
	tap_ok(st == COLLECT_ERROR, "interval 0 ms is refused");
	if (w) {
		char *fork2[] = { (char *)w, "fork", "2", "0.1", NULL };
		struct td_countset total;
		td_countset_init(&total);
		r->calls = 0;
		st = collect_count_intervals(&plan, fork2, 30, &sink, &total, &res, err, sizeof(err));
		tap_ok(st == COLLECT_OK && total.n == 1 && total.c[0].raw > 0.15e9,
		       "children are counted (inherit): task-clock %.0f ns for 2 x 0.1 s", total.n ? total.c[0].raw : 0);
		td_countset_free(&total);
	}
	collect_plan_free(&plan);
	free(r);
}

/* ------------------------------------------------------- SPIRE plan --- */
static void test_plan_spire(void)
{
	/* raw encodings: they do not depend on the CPU libpfm4 sees */
	const char *ev[] = { "r01b1", "r02b1", "r0179", "r0879", "r0479", "r01a2", "r02a6", "r04a6", "r01c5", "r41c4" };
	const char *names[] = { "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9" };
	struct collect_plan p;
	int rc = collect_plan_spire("r003c", "cpu_clk_unhalted.thread", "r00c0", "inst_retired.any", ev, names, 10, 4,
				    false, &p, err, sizeof(err));
	if (tap_ok(rc == 0, "SPIRE plan: 10 metrics, 4 per group (%s)", err)) {
		tap_ok(p.n_groups == 3 && p.n == 10 + 3 * 2 && p.budget == 4, "3 groups, %zu events (want 16)", p.n);
		bool tw = true, order = true, sizes = true;
		size_t m = 0;
		for (int g = 0; g < p.n_groups; g++) {
			size_t first = p.n, cnt = 0;
			for (size_t i = 0; i < p.n; i++)
				if (p.ev[i].group == g) {
					if (first == p.n)
						first = i;
					cnt++;
				}
			tw &= first + 1 < p.n && !strcmp(p.ev[first].name, "cpu_clk_unhalted.thread") &&
			      !strcmp(p.ev[first + 1].name, "inst_retired.any") && p.ev[first].attr.config == 0x3c &&
			      p.ev[first + 1].attr.config == 0xc0;
			sizes &= cnt == (g < 2 ? 6u : 4u);
			for (size_t i = first + 2; i < first + cnt; i++, m++)
				order &= !strcmp(p.ev[i].name, names[m]);
		}
		tap_ok(tw, "every group starts with its own T and W (same names)");
		tap_ok(sizes, "groups hold 4, 4 and 2 metrics");
		tap_ok(order && m == 10, "metrics in the given order, named as given");
		bool grouped = true;
		for (size_t i = 1; i < p.n; i++)
			grouped &= p.ev[i].group >= p.ev[i - 1].group;
		tap_ok(grouped, "each group's events are contiguous");
		collect_plan_free(&p);
	}
	rc = collect_plan_spire("r003c", NULL, "r00c0", NULL, ev, NULL, 3, 8, true, &p, err, sizeof(err));
	if (tap_ok(rc == 0 && p.n == 5 && p.n_groups == 1, "NULL names: the encodable names; one group of 3")) {
		tap_streq(p.ev[0].name, "r003c", "T named r003c");
		tap_streq(p.ev[4].name, "r0179", "last metric named r0179");
		tap_ok(p.ev[2].attr.exclude_kernel, "user_only reaches the encoding");
		collect_plan_free(&p);
	}
	tap_ok(collect_plan_spire("r003c", "t", "r00c0", "w", ev, NULL, 0, 4, false, &p, err, sizeof(err)) == -1,
	       "no metrics: refused (%s)", err);
	tap_ok(collect_plan_spire("r003c", "t", "r00c0", "w", ev, NULL, 2, 0, false, &p, err, sizeof(err)) == -1,
	       "budget 0: refused (%s)", err);
	tap_ok(collect_plan_spire("r003c", "t", "r00c0", "t", ev, NULL, 2, 4, false, &p, err, sizeof(err)) == -1,
	       "T and W the same: refused (%s)", err);
	const char *dup[] = { "r01b1", "r003c" };
	const char *dupn[] = { "m0", "t" };
	tap_ok(collect_plan_spire("r003c", "t", "r00c0", "w", dup, dupn, 2, 4, false, &p, err, sizeof(err)) == -1 &&
		       strstr(err, "time"),
	       "a metric named like T: refused (%s)", err);
	const char *bad[] = { "r01b1", "NO_SUCH_EVENT_FOR_GUS:X" };
	tap_ok(collect_plan_spire("r003c", "t", "r00c0", "w", bad, NULL, 2, 4, false, &p, err, sizeof(err)) == -1 &&
		       strstr(err, "NO_SUCH_EVENT_FOR_GUS"),
	       "an event libpfm4 does not know: refused, named (%s)", err);
	tap_ok(p.n == 0 && p.ev == NULL, "and nothing is left allocated in the plan");
	rc = collect_plan_spire("task-clock", NULL, "page-faults", NULL,
				(const char *[]){ "context-switches", "minor-faults", "cpu-migrations" }, NULL, 3, 2,
				false, &p, err, sizeof(err));
	if (tap_ok(rc == 0 && p.n_groups == 2 && p.n == 7, "software T, W and metrics: 2 groups (%s)", err)) {
		tap_ok(p.ev[0].attr.type == PERF_TYPE_SOFTWARE && p.ev[4].group == 1 &&
			       !strcmp(p.ev[4].name, "task-clock") && !strcmp(p.ev[6].name, "cpu-migrations"),
		       "second group: task-clock, page-faults, cpu-migrations");
		collect_plan_free(&p);
	}
}

/* ---------------------------------------------------- metric sets --- */
static const char good_set[] =
	"# a test set\n"
	"set tst   # trailing comment\n"
	"cpus skx clx\r\n"
	"\n"
	"time cpu_clk_unhalted.thread CPU_CLK_UNHALTED:THREAD_P\n"
	"work inst_retired.any INST_RETIRED:ANY_P\n"
	"metric DB.2 frontend idq.dsb_uops IDQ:DSB_UOPS \"uops from the \\\"DSB\\\" # not a comment\"\n"
	"metric BP.3 bad-speculation \\\n"
	"\tint_misc.recovery_cycles_any INT_MISC:RECOVERY_CYCLES_ANY \\\n"
	"\t\"both threads\" anythread\n"
	"metric CS.2 core uops_retired.stall_cycles UOPS_RETIRED:RETIRE_SLOTS:c=1:i=1 \"no retire\"\n"
	"metric L3 memory longest_lat_cache.miss LONGEST_LAT_CACHE:MISS \"llc misses\"\n";

static void test_parse_good(void)
{
	struct spire_metricset *s = spire_metricset_parse(good_set, "good.metrics", err, sizeof(err));
	if (!tap_ok(s != NULL, "a good set parses (%s)", s ? "" : err))
		return;
	tap_streq(s->id, "tst", "set id");
	tap_streq(s->origin, "good.metrics", "origin kept");
	tap_ok(s->n_cpus == 2 && !strcmp(s->cpus[0], "skx") && !strcmp(s->cpus[1], "clx"), "cpus skx clx (CRLF line)");
	tap_streq(s->time_event, "cpu_clk_unhalted.thread", "time event");
	tap_streq(s->time_pfm, "CPU_CLK_UNHALTED:THREAD_P", "time libpfm4 name");
	tap_streq(s->work_event, "inst_retired.any", "work event");
	tap_streq(s->work_pfm, "INST_RETIRED:ANY_P", "work libpfm4 name");
	tap_ok(s->n == 4, "4 metrics");
	tap_streq(s->m[0].desc, "uops from the \"DSB\" # not a comment", "quotes escaped, '#' kept inside a string");
	tap_ok(!s->m[0].any_thread && s->m[1].any_thread, "anythread flag");
	tap_streq(s->m[1].event, "int_misc.recovery_cycles_any", "a metric over three lines joined with '\\'");
	tap_streq(s->m[1].area, "bad-speculation", "area");
	tap_streq(s->m[2].pfm, "UOPS_RETIRED:RETIRE_SLOTS:c=1:i=1", "libpfm4 name with modifiers");

	const struct spire_metric_def *d = spire_metricset_find(s, "db.2");
	tap_ok(d == &s->m[0], "find by abbreviation, case ignored");
	tap_ok(spire_metricset_find(s, "L3") == &s->m[3], "find L3");
	tap_ok(spire_metricset_find(s, "longest_lat_cache.miss") == &s->m[3], "find by event name");
	tap_ok(spire_metricset_find(s, "LONGEST_LAT_CACHE.MISS") == &s->m[3], "find by event name, any case");
	tap_ok(spire_metricset_find(s, "idq:dsb_uops") == &s->m[0], "find by event key (':' as '.')");
	tap_ok(spire_metricset_find(s, "idq.dsb_uops:u") == &s->m[0], "find with a perf modifier");
	tap_ok(spire_metricset_find(s, "DB.9") == NULL && spire_metricset_find(s, "") == NULL &&
		       spire_metricset_find(s, "cpu_clk_unhalted.thread") == NULL,
	       "unknown names (and T) are not metrics");
	tap_ok(spire_metricset_find(NULL, "DB.2") == NULL, "find in no set");
	spire_metricset_free(s);
	spire_metricset_free(NULL);
}

static void bad(const char *text, const char *want_prefix, const char *want, const char *what)
{
	struct spire_metricset *s = spire_metricset_parse(text, "bad.metrics", err, sizeof(err));
	bool ok = !s && !strncmp(err, want_prefix, strlen(want_prefix)) && strstr(err, want);
	if (!tap_ok(ok, "%s", what))
		printf("#   got '%s', want '%s...%s'\n", s ? "(parsed)" : err, want_prefix, want);
	spire_metricset_free(s);
}

#define HEAD "set t\ncpus skx\ntime cpu_clk_unhalted.thread X:Y\nwork inst_retired.any X:Z\n"
#define M1 "metric A.1 core a.b A:B \"d\"\n"

static void test_parse_bad(void)
{
	bad(HEAD "metrik A.1 core a.b A:B \"d\"\n", "bad.metrics:5:", "unknown keyword 'metrik'", "unknown keyword");
	bad("set t\nset u\n", "bad.metrics:2:", "second 'set'", "set twice");
	bad("set Skx\n", "bad.metrics:1:", "set ID 'Skx'", "set ID in upper case");
	bad("set\n", "bad.metrics:1:", "'set' takes one ID", "set without ID");
	bad("set a b\n", "bad.metrics:1:", "'set' takes one ID, got 2 words", "set with two IDs");
	bad("set t\ncpus\n", "bad.metrics:2:", "one or more", "cpus without names");
	bad("set t\ncpus skx skx\n", "bad.metrics:2:", "named twice", "a cpu twice");
	bad("set t\ncpus skx\ncpus clx\n", "bad.metrics:3:", "second 'cpus'", "cpus twice");
	bad("set t\ncpus SKX\n", "bad.metrics:2:", "cpu 'SKX'", "cpu in upper case");
	bad("set t\ncpus skx\ntime cpu_clk_unhalted.thread\n", "bad.metrics:3:", "'time' takes", "time with one word");
	bad(HEAD "time cycles A:B\n", "bad.metrics:5:", "second 'time'", "time twice");
	bad("set t\ncpus skx\ntime a.b X\nwork a.b Y\n", "bad.metrics:4:", "same event", "time and work alike");
	bad("set t\ncpus skx\ntime A.B X\n", "bad.metrics:3:", "lower case", "time event in upper case");
	bad("set t\ncpus skx\nwork a.b \"X\"\n", "bad.metrics:3:", "quoted string", "quoted libpfm4 name");
	bad(HEAD "metric A.1 core a.b A:B\n", "bad.metrics:5:", "got 4 words", "metric without description");
	bad(HEAD "metric 1A core a.b A:B \"d\"\n", "bad.metrics:5:", "abbreviation '1A'", "abbreviation with a digit first");
	bad(HEAD "metric ABCDEFGHIJKLMNOP core a.b A:B \"d\"\n", "bad.metrics:5:", "at most 15", "abbreviation too long");
	bad(HEAD "metric A.1 fronted a.b A:B \"d\"\n", "bad.metrics:5:", "unknown area 'fronted'", "unknown area");
	bad(HEAD "metric A.1 core IDQ.DSB_UOPS A:B \"d\"\n", "bad.metrics:5:", "event 'IDQ.DSB_UOPS'", "event in upper case");
	bad(HEAD "metric A.1 core a.b A:B d\n", "bad.metrics:5:", "must be a quoted string", "unquoted description");
	bad(HEAD "metric A.1 core a.b A:B \"\"\n", "bad.metrics:5:", "empty description", "empty description");
	bad(HEAD "metric A.1 core a.b A:B \"d\n", "bad.metrics:5:", "unterminated string", "unterminated string");
	bad(HEAD "metric A.1 core a.b A:B \"d\"x\n", "bad.metrics:5:", "blank must follow", "text glued to a string");
	bad(HEAD "metric A.1 core a.b A:\"B\" \"d\"\n", "bad.metrics:5:", "inside a word", "quote inside a word");
	bad(HEAD "metric A.1 core a.b A:B \"d\" anythreads\n", "bad.metrics:5:", "unknown flag 'anythreads'", "unknown flag");
	bad(HEAD "metric A.1 core a.b A:B \"d\" anythread more\n", "bad.metrics:5:", "got 7 words", "too many words");
	bad(HEAD M1 "metric a.1 core c.d C:D \"d\"\n", "bad.metrics:6:", "'a.1' used twice", "abbreviation twice, case ignored");
	bad(HEAD M1 "metric A.2 core A.B:u C:D \"d\"\n", "bad.metrics:6:", "event 'A.B:u'", "event with a modifier");
	bad(HEAD M1 "metric A.2 core a.b C:D \"d\"\n", "bad.metrics:6:", "event 'a.b' used twice", "event twice");
	bad(HEAD "metric A.1 core inst_retired.any A:B \"d\"\n", "bad.metrics:5:", "is the work event", "metric = W");
	bad("set t\ncpus skx\n" M1 "time a.b X:Y\n", "bad.metrics:4:", "also metric A.1", "T = an earlier metric");
	bad(HEAD "metric A.1 core \\\n", "bad.metrics:5:", "joins no line", "'\\' at the end of the file");
	bad(HEAD "\"metric\" A.1 core a.b A:B \"d\"\n", "bad.metrics:5:", "starts with a keyword", "quoted keyword");
	bad(HEAD "metric A.1 core a.b A:B \"d\x01\"\n", "bad.metrics:5:", "control character", "control character");
	bad(HEAD "metric A.1 core \\\n  a.b A:B \\\n  \"d\" x\n", "bad.metrics:5:", "unknown flag 'x'",
	    "a joined line is reported at its first line");
	bad(HEAD "\n\nmetric A.1 core a.b A:B \"d\"\nmetric B core b.c B:C\n", "bad.metrics:8:", "got 4 words",
	    "line numbers count blank lines");
	bad("cpus skx\ntime x.y X\nwork c.d Y\n" M1, "bad.metrics:", "no 'set' line", "no set line");
	bad("set t\ntime x.y X\nwork c.d Y\n" M1, "bad.metrics:", "no 'cpus' line", "no cpus line");
	bad("set t\ncpus skx\nwork c.d Y\n" M1, "bad.metrics:", "no 'time' line", "no time line");
	bad("set t\ncpus skx\ntime c.d Y\n" M1, "bad.metrics:", "no 'work' line", "no work line");
	bad(HEAD, "bad.metrics:", "no 'metric' line", "no metric");
	bad("", "bad.metrics:", "no 'set' line", "empty file");
}

/* ------------------------------------------- perf stat -I files --- */
/* perf 6.12's -I -x, output: a threshold column (good, bad or empty) after
 * each metric, and a metric that does not fit on its count's line on a line
 * of its own (count, unit and event empty), read as SPIRE samples */
static void test_perf_threshold_file(void)
{
	static const char text[] =
		"# started on Mon Jan  5 10:00:00 2026\n\n"
		"     0.100125000,1000000,,cycles,100000000,100.00,,\n"
		"     0.100125000,2000000,,instructions,100000000,100.00,2.00,insn per cycle,good\n"
		"     0.100125000,,,,,,0.25,stalled cycles per insn,\n"
		"     0.100125000,3000,,l1d.replacement,100000000,100.00,,\n"
		"     0.200250000,1100000,,cycles,100000000,100.00,,\n"
		"     0.200250000,1650000,,instructions,100000000,100.00,1.50,insn per cycle,bad\n"
		"     0.200250000,,,,,,0.33,stalled cycles per insn,\n"
		"     0.200250000,4000,,l1d.replacement,100000000,100.00,,\n";
	struct spire_sampleset ss;
	spire_sampleset_init(&ss, NULL, NULL);
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	int rc = f ? spire_import_perf_intervals(f, "perf612.csv", &ss, err, sizeof(err)) : -2;
	if (f)
		fclose(f);
	const struct spire_metric_samples *ms = spire_sampleset_find(&ss, "l1d.replacement");
	tap_ok(rc == 0 && ms && ms->n == 2, "perf 6.12 -I file with thresholds: two SPIRE samples (%s)",
	       rc ? err : "ok");
	tap_ok(ms && ms->n == 2 && ms->s[0].t == 1000000 && ms->s[0].w == 2000000 && ms->s[0].m == 3000 &&
		       ms->s[1].t == 1100000 && ms->s[1].w == 1650000 && ms->s[1].m == 4000,
	       "perf 6.12 -I: each interval's T, W and metric, the metric-only lines left out");
	spire_sampleset_free(&ss);

	/* gus stat --import of the same file sums the intervals */
	struct td_countset cs;
	td_countset_init(&cs);
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	rc = f ? td_import_perf_csv(f, "perf612.csv", &cs, err, sizeof(err)) : -2;
	if (f)
		fclose(f);
	bool summed = rc == 0 && cs.n == 3;
	for (size_t i = 0; summed && i < cs.n; i++)
		summed = cs.c[i].counted && cs.c[i].raw == (i == 0 ? 2100000 : i == 1 ? 3650000 : 7000);
	tap_ok(summed, "perf 6.12 -I: gus stat --import sums the intervals (%s)", rc ? err : "ok");
	td_countset_free(&cs);
}

/* ------------------------------------------------ the shipped sets --- */
static const char *const table3[] = {
	"FE.1", "FE.2", "FE.3", "DB.1", "DB.2", "DB.3", "DB.4", "MS.1", "MS.2", "DQ.1", "DQ.2",
	"DQ.3", "DQ.C", "DQ.K", "BP.1", "BP.2", "BP.3", "M",	"L1.1", "L1.2", "L1.3", "L3",
	"LK",	"CS.1", "CS.2", "CS.3", "CS.4", "CS.5", "CS.6", "C1.1", "C1.2", "C1.3", "VW",
};

static void test_shipped(const char *dir)
{
	struct spire_metricset *s = spire_metricset_load(dir, "skx", err, sizeof(err));
	if (!tap_ok(s != NULL, "load skx from %s (%s)", dir, s ? "" : err))
		return;
	tap_ok(s->n >= 40 && s->n <= 50, "the skx set has %zu metrics (40 to 50)", s->n);
	bool all = true;
	for (size_t i = 0; i < sizeof(table3) / sizeof(table3[0]); i++)
		if (!spire_metricset_find(s, table3[i])) {
			all = false;
			printf("#   missing %s\n", table3[i]);
		}
	tap_ok(all, "every abbreviation of the paper's Table III is there");
	tap_ok(spire_metricset_find(s, "frontend_retired.latency_ge_2_bubbles_ge_1") == spire_metricset_find(s, "FE.1"),
	       "FE.1 is frontend_retired.latency_ge_2_bubbles_ge_1");
	tap_ok(!strcmp(spire_metricset_find(s, "C1.3")->event, "exe_activity.1_ports_util"),
	       "C1.3 is exe_activity.1_ports_util");
	tap_streq(s->time_event, SPIRE_DEFAULT_TIME, "T is SPIRE's default");
	tap_streq(s->work_event, SPIRE_DEFAULT_WORK, "W is SPIRE's default");
	size_t areas[4] = { 0 };
	for (size_t i = 0; i < s->n; i++) {
		const char *a = s->m[i].area;
		areas[!strcmp(a, "frontend") ? 0 : !strcmp(a, "bad-speculation") ? 1 : !strcmp(a, "memory") ? 2 : 3]++;
	}
	tap_ok(areas[0] >= 5 && areas[1] >= 3 && areas[2] >= 5 && areas[3] >= 5,
	       "every area has metrics: frontend %zu, bad-speculation %zu, memory %zu, core %zu", areas[0], areas[1],
	       areas[2], areas[3]);

	struct spire_metricset *c = spire_metricset_load(dir, "clx", err, sizeof(err));
	tap_ok(c && !strcmp(c->id, "skx"), "clx (a cpus name) loads the skx set");
	spire_metricset_free(c);
	c = spire_metricset_load(dir, "spr", err, sizeof(err));
	tap_ok(!c && strstr(err, "'spr'") && strstr(err, "skx (for skx, clx)"), "spr has none: the message lists the sets: %s",
	       err);
	spire_metricset_free(c);
	c = spire_metricset_load(dir, "../x", err, sizeof(err));
	tap_ok(!c, "a path is not a set name");
	spire_metricset_free(c);
	c = spire_metricset_load("/nonexistent-gus-dir", "skx", err, sizeof(err));
	tap_ok(!c && strstr(err, "/nonexistent-gus-dir"), "a missing directory is named: %s", err);
	spire_metricset_free(c);

	/* every libpfm4 name encodes for Skylake-X, to the flags the file
	 * claims; T and W to the fixed-counter encodings */
	collect_pfm_fini();
	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	struct collect_pmu_info pmu;
	if (!tap_ok(collect_pfm_init(err, sizeof(err)) == 0 && collect_detect_pmu(&pmu) == 0 &&
			    !strcmp(pmu.name, "skx"),
		    "libpfm4 forced to skx (%s)", err)) {
		spire_metricset_free(s);
		return;
	}
	struct perf_event_attr a;
	size_t bad_enc = 0, bad_any = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (collect_encode(s->m[i].pfm, false, &a, err, sizeof(err))) {
			bad_enc++;
			printf("#   %s %s: %s\n", s->m[i].abbr, s->m[i].pfm, err);
			continue;
		}
		bool any = (a.config >> 21) & 1;
		if (any != s->m[i].any_thread) {
			bad_any++;
			printf("#   %s: AnyThread bit %d, file says %d\n", s->m[i].abbr, any, s->m[i].any_thread);
		}
	}
	tap_ok(bad_enc == 0, "all %zu libpfm4 names encode for skx", s->n);
	tap_ok(bad_any == 0, "exactly the metrics marked anythread set the AnyThread bit");
	tap_ok(collect_encode(s->time_pfm, false, &a, err, sizeof(err)) == 0 && (a.config & 0xffe4ffff) == 0x3c,
	       "T encodes to 0x003c (fixed counter 1)");
	tap_ok(collect_encode(s->work_pfm, false, &a, err, sizeof(err)) == 0 && (a.config & 0xffe4ffff) == 0xc0,
	       "W encodes to 0x00c0 (fixed counter 0)");
	const struct spire_metric_def *fe1 = spire_metricset_find(s, "FE.1");
	tap_ok(fe1 && collect_encode(fe1->pfm, false, &a, err, sizeof(err)) == 0 && a.config1 == 0x100206,
	       "FE.1 sets MSR_PEBS_FRONTEND to 0x100206, as perf's frontend=0x100206");
	const struct spire_metric_def *cs2 = spire_metricset_find(s, "CS.2");
	tap_ok(cs2 && collect_encode(cs2->pfm, false, &a, err, sizeof(err)) == 0 &&
		       (a.config & 0xffe4ffff) == 0x018002c2,
	       "CS.2 encodes as perf's uops_retired.stall_cycles (umask 2, cmask 1, inv)");

	/* the whole set as SPIRE groups, as gus stat --spire plans it */
	const char **enc = calloc(s->n, sizeof(*enc)), **names = calloc(s->n, sizeof(*names));
	for (size_t i = 0; i < s->n; i++) {
		enc[i] = s->m[i].pfm;
		names[i] = s->m[i].event;
	}
	struct collect_plan p;
	int rc = collect_plan_spire(s->time_pfm, s->time_event, s->work_pfm, s->work_event, enc, names, s->n, 4, false,
				    &p, err, sizeof(err));
	tap_ok(rc == 0 && p.n_groups == (int)((s->n + 3) / 4) && p.n == s->n + 2 * (size_t)p.n_groups,
	       "the skx set plans into %d groups of T, W and 4 metrics (%s)", p.n_groups, err);
	if (!rc)
		collect_plan_free(&p);
	free(enc);
	free(names);
	spire_metricset_free(s);
}

int main(void)
{
	const char *td = getenv("TESTDIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/../data/spire", td ? td : "tests");
	if (collect_pfm_init(err, sizeof(err)))
		printf("# libpfm4: %s\n", err);
	test_live();
	test_idle();
	test_sink_failure();
	test_exit_and_exec();
	test_plan_spire();
	test_parse_good();
	test_parse_bad();
	test_perf_threshold_file();
	test_shipped(dir);
	collect_pfm_fini();
	return tap_done();
}
