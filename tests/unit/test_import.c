/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf stat -x, import: plain, -r, -I, -A forms, perf 6.12's threshold
 * column and metric-only lines, uncounted events, many lines, and the
 * errors malformed or truncated files get. */
#include "tap.h"
#include "topdown.h"

#include <stdlib.h>

static char err[TD_ERRLEN];

static int import_n(const char *text, size_t len, struct td_countset *cs)
{
	FILE *f = fmemopen((void *)text, len, "r");
	td_countset_init(cs);
	int rc = td_import_perf_csv(f, "counts.csv", cs, err, sizeof(err));
	fclose(f);
	return rc;
}

static int import(const char *text, struct td_countset *cs)
{
	return import_n(text, strlen(text), cs);
}

static const struct td_count *find(const struct td_countset *cs, const char *ev, int nth)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].event, ev) && nth-- == 0)
			return &cs->c[i];
	return NULL;
}

static double scaled(const struct td_count *c)
{
	return c->running > 0 ? c->raw * c->enabled / c->running : c->raw;
}

static void expect_error(const char *text, const char *needle)
{
	struct td_countset cs;
	int rc = import(text, &cs);
	tap_ok(rc != 0 && strstr(err, needle) != NULL, "rejected with '%s' (got: %s)", needle,
	       rc ? err : "accepted");
	td_countset_free(&cs);
}

struct lines_seen {
	int n;
	double interval[8];
	char id[8][16], event[8][64], comment[128];
	bool counted[8];
	double value[8], enabled[8], running[8];
};

static int on_line(void *ctx, const struct td_perf_line *l)
{
	struct lines_seen *ls = ctx;
	if (ls->n < 8) {
		ls->interval[ls->n] = l->interval;
		snprintf(ls->id[ls->n], sizeof ls->id[0], "%s", l->id);
		snprintf(ls->event[ls->n], sizeof ls->event[0], "%s", l->event);
		ls->counted[ls->n] = l->counted;
		ls->value[ls->n] = l->value;
		ls->enabled[ls->n] = l->enabled;
		ls->running[ls->n] = l->running;
	}
	ls->n++;
	return 0;
}

static void on_comment(void *ctx, const char *text)
{
	struct lines_seen *ls = ctx;
	snprintf(ls->comment, sizeof ls->comment, "%s", text);
}

static int read_lines(const char *text, struct lines_seen *ls)
{
	memset(ls, 0, sizeof(*ls));
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct td_perf_reader rd = { .ctx = ls, .line = on_line, .comment = on_comment };
	int rc = td_perf_csv_read(f, "lines.csv", &rd, err, sizeof(err));
	fclose(f);
	return rc;
}

static void test_line_reader(void)
{
	struct lines_seen ls;
	/* perf stat -I 1000 -x, with two multiplexed groups, one not run */
	int rc = read_lines("# cpu: skx\n"
			    "     1.001040927,3000,,cycles,500,50.00,,\n"
			    "     1.001040927,<not counted>,,idq.dsb_uops,0,0.00,,\n"
			    "2.002,CPU1,42,,instructions,100,100.00,,\n"
			    "7,,branches,100,25.00,,\n",
			    &ls);
	tap_ok(rc == 0 && ls.n == 4, "line reader: four count lines (%s)", rc ? err : "");
	tap_streq(ls.comment, "cpu: skx", "line reader: comment text without '#'");
	tap_near(ls.interval[0], 1.001040927, 1e-12, "line reader: -I timestamp");
	tap_ok(ls.counted[0] && ls.value[0] == 3000 && ls.running[0] == 500 && ls.enabled[0] == 1000,
	       "line reader: value as printed, enabled rebuilt from run time and percentage");
	tap_ok(!ls.counted[1] && !strcmp(ls.event[1], "idq.dsb_uops"), "line reader: <not counted> line");
	tap_ok(ls.interval[2] == 2.002 && !strcmp(ls.id[2], "CPU1") && ls.value[2] == 42,
	       "line reader: timestamp and -A id (%s)", ls.id[2]);
	tap_ok(isnan(ls.interval[3]) && !strcmp(ls.id[3], ""), "line reader: no timestamp without -I");
	rc = read_lines("1.0,5,,cycles,100,100.00,,\n1.0,5,,cycles\n", &ls);
	tap_ok(rc != 0 && strstr(err, "lines.csv:2:"), "line reader: a bad line is named (%s)", err);
}

/* -A ids of any length (the prefix buffer was 256 bytes: a long id
 * overflowed it): kept whole, so two that differ only past 256 bytes are
 * two CPUs (summed), not one event seen twice */
static void test_long_prefix(void)
{
	size_t idlen = 600;
	char *text = malloc(4 * idlen + 256);
	if (!text)
		abort();
	char *p = text;
	for (int k = 0; k < 2; k++) {
		memset(p, 'C', idlen);
		p[idlen - 1] = (char)('0' + k);
		p += idlen;
		p += sprintf(p, ",1000,,cycles,1000,100.00,,\n");
	}
	struct td_countset cs;
	int rc = import(text, &cs);
	const struct td_count *c = find(&cs, "cycles", 0);
	tap_ok(rc == 0 && cs.n == 1 && c && scaled(c) == 2000,
	       "two 600-character -A ids differing in their last character: two CPUs summed (%s)",
	       rc ? err : "ok");
	td_countset_free(&cs);
	free(text);
}

/* perf 6.12 -x, output of -M topdownl1 (the example of the perf commit
 * that added the threshold column): perf's metrics with their threshold
 * after the count lines, and on lines of their own (count, unit and event
 * empty) for the group's other metrics */
static const char perf612_lines[] =
	"4677067630,,TOPDOWN.SLOTS,16029302700,100.00,31.1,%  tma_backend_bound,bad\n"
	",,,,,,51.0,%  tma_frontend_bound,bad\n"
	",,,,,,7.6,%  tma_bad_speculation,good\n"
	",,,,,,10.2,%  tma_retiring,good\n"
	"476781750,,topdown-retiring,16029302700,100.00,,\n"
	"2389693619,,topdown-fe-bound,16029302700,100.00,,\n"
	"1431602465,,topdown-be-bound,16029302700,100.00,,\n"
	"378991388,,topdown-bad-spec,16029302700,100.00,,\n"
	"4934535,,INT_MISC.CLEARS_COUNT,16029339890,100.00,,\n"
	"26472844,,cpu/UOPS_DECODED.DEC0,cmask=1/,16029009707,100.00,,\n"
	"709313662,,UOPS_ISSUED.ANY,16028914990,100.00,0.71,insn per cycle,\n";

/* TEXT with PREFIX before each line */
static char *prefixed(const char *prefix, const char *text)
{
	size_t cap = strlen(text) * 2 + 64 * strlen(prefix) + 1, len = 0;
	char *out = malloc(cap);
	if (!out)
		abort();
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		len += (size_t)snprintf(out + len, cap - len, "%s%.*s\n", prefix, (int)(nl - p), p);
		p = nl + 1;
	}
	return out;
}

static void test_threshold_column(void)
{
	struct td_countset cs;
	const struct td_count *c;
	int rc = import(perf612_lines, &cs);
	tap_ok(rc == 0 && cs.n == 8, "perf 6.12 -x, with thresholds: 8 count lines, 3 metric-only lines skipped (%s, %zu)",
	       rc ? err : "ok", cs.n);
	c = find(&cs, "TOPDOWN.SLOTS", 0);
	tap_ok(c && c->counted && fabs(scaled(c) - 4677067630) < 1e-3 && c->running == 16029302700,
	       "perf 6.12: a count line with a metric and its threshold keeps its count");
	c = find(&cs, "cpu/UOPS_DECODED.DEC0,cmask=1/", 0);
	tap_ok(c && scaled(c) == 26472844, "perf 6.12: a raw encoding with commas");
	c = find(&cs, "UOPS_ISSUED.ANY", 0);
	tap_ok(c && scaled(c) == 709313662, "perf 6.12: an empty threshold after a metric");
	td_countset_free(&cs);

	/* -I 1000: two intervals summed, the metric-only lines skipped */
	char *one = prefixed("1.000103288,", perf612_lines), *two = prefixed("2.000211379,", perf612_lines);
	char *both = malloc(strlen(one) + strlen(two) + 1);
	if (!both)
		abort();
	strcat(strcpy(both, one), two);
	rc = import(both, &cs);
	c = find(&cs, "topdown-fe-bound", 0);
	tap_ok(rc == 0 && cs.n == 8 && c && fabs(scaled(c) - 2.0 * 2389693619) < 1e-3 && c->running == 2 * 16029302700.0,
	       "perf 6.12 -I: thresholds and metric-only lines, two intervals summed (%s)", rc ? err : "ok");
	td_countset_free(&cs);
	struct lines_seen ls;
	rc = read_lines(one, &ls);
	tap_ok(rc == 0 && ls.n == 8 && ls.interval[0] == 1.000103288 && !strcmp(ls.event[1], "topdown-retiring"),
	       "line reader: perf 6.12 -I metric-only lines are no count lines (%d lines, %s)", ls.n, rc ? err : "ok");
	free(one);
	free(two);
	free(both);

	/* -A, -I -A and --per-socket: the id (and CPUs) before the empty fields */
	static const char *const forms[] = {
		"CPU0,100,,cycles,1000,100.00,0.50,insn per cycle,good\n"
		"CPU0,,,,,,7.6,%  tma_bad_speculation,good\n"
		"CPU1,300,,cycles,1000,100.00,,\n"
		"CPU1,,,,,,31.1,%  tma_backend_bound,bad\n",
		"1.000103288,CPU0,100,,cycles,1000,100.00,0.50,insn per cycle,\n"
		"1.000103288,CPU0,,,,,,7.6,%  tma_bad_speculation,good\n"
		"1.000103288,CPU1,300,,cycles,1000,100.00,,\n"
		"1.000103288,CPU1,,,,,,31.1,%  tma_backend_bound,\n",
		"S0,2,100,,cycles,1000,100.00,,\n"
		"S0,2,,,,,,7.6,%  tma_bad_speculation,good\n"
		"S1,2,300,,cycles,1000,100.00,0.50,insn per cycle,bad\n"
		"S1,2,,,,,,31.1,%  tma_backend_bound,bad\n",
	};
	static const char *const form_names[] = { "-A", "-I -A", "--per-socket" };
	for (size_t i = 0; i < 3; i++) {
		rc = import(forms[i], &cs);
		c = find(&cs, "cycles", 0);
		tap_ok(rc == 0 && cs.n == 1 && c && scaled(c) == 400,
		       "perf 6.12 %s: metric-only lines skipped, counts summed (%s)", form_names[i], rc ? err : "ok");
		td_countset_free(&cs);
	}

	/* a line with no event is still refused: perf's metric-only lines
	 * carry a metric unit (words) */
	expect_error("5.5,,,100,100.00,,\n", "counts.csv:1: empty event name");
	expect_error(",,,100,100.00,,\n", "counts.csv:1: empty event name");
	expect_error("1.0,CPU0,,,,100,100.00\n", "counts.csv:1: empty event name");
	expect_error(",,,,,,51.0,%  tma_frontend_bound,bad\n", "no counts found");
}

/* 50 000 lines of perf stat -I 100 -x, (gus stat --import took 0.5 s for
 * 10 000 lines, 10 s for 40 000: each line was compared with every line
 * before it); each interval has cycles in two groups (two entries, the k-th
 * of each interval summed into the k-th) and an event of its own every
 * 1000 intervals. */
static void test_many_lines(void)
{
	const int intervals = 10000;
	size_t cap = (size_t)intervals * 5 * 64, len = 0;
	char *text = malloc(cap);
	if (!text)
		abort();
	for (int i = 0; i < intervals; i++) {
		double ts = 0.100125 + 0.1 * i;
		len += (size_t)snprintf(text + len, cap - len, "%.9f,%d,,cycles,100000,100.00,,\n", ts, i);
		len += (size_t)snprintf(text + len, cap - len, "%.9f,%d,,instructions,100000,100.00,1.50,insn per cycle,good\n",
					ts, 2 * i);
		len += (size_t)snprintf(text + len, cap - len, "%.9f,,,,,,0.5,%%  tma_retiring,good\n", ts);
		len += (size_t)snprintf(text + len, cap - len, "%.9f,%d,,cycles,50000,50.00,,\n", ts, 3 * i);
		len += (size_t)snprintf(text + len, cap - len, "%.9f,1,,ev%d,100000,100.00,,\n", ts, i / 1000);
	}
	struct td_countset cs;
	int rc = import(text, &cs);
	free(text);
	const double n = intervals, sum = n * (n - 1) / 2;
	const struct td_count *c0 = find(&cs, "cycles", 0), *c1 = find(&cs, "cycles", 1),
			      *in = find(&cs, "instructions", 0), *e9 = find(&cs, "ev9", 0);
	tap_ok(rc == 0 && cs.n == 13, "50 000 lines of -I: 13 entries (%s, %zu)", rc ? err : "ok", cs.n);
	tap_ok(c0 && c1 && in && scaled(c0) == sum && scaled(c1) == 3 * sum && scaled(in) == 2 * sum,
	       "50 000 lines of -I: each interval's first and second cycles summed apart, instructions summed");
	tap_ok(c1 && c1->running == n * 50000 && c1->enabled == n * 100000,
	       "50 000 lines of -I: run and enabled times added");
	tap_ok(e9 && scaled(e9) == 1000, "50 000 lines of -I: an event of 1000 intervals");
	td_countset_free(&cs);
}

/* per-region counts (gus record --import-counts): TEXT parsed, or why not */
static int region_rows(const char *text, struct td_region_rows *rows, bool *detected)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return -2;
	*detected = td_is_region_csv(f);
	int rc = td_import_region_csv(f, "r.csv", rows, err, sizeof err);
	fclose(f);
	return rc;
}

static void test_region_csv(void)
{
	struct td_region_rows rows;
	bool det;
	int rc = region_rows("# from perf report --group\n\nregion,event,value\n"
			     "\"ns::mul<double, 200>\",cycles,1000\n"
			     "[.] hot_loop,instructions,5e3\n"
			     "hot_loop,instructions,7\n"
			     "a,b,c,cycles,12\n"
			     "\"say \"\"hi\"\"\",cycles,1\n", &rows, &det);
	tap_ok(det && rc == 0 && rows.n == 4, "per-region CSV: detected by its header, 4 region/event pairs (%s)",
	       rc ? err : "ok");
	if (!rc && rows.n == 4) {
		tap_streq(rows.v[0].region, "ns::mul<double, 200>", "a quoted name keeps its commas");
		tap_ok(!strcmp(rows.v[1].region, "hot_loop") && rows.v[1].value == 5007,
		       "perf's '[.] ' dropped; rows of one region and event add up (%g)", rows.v[1].value);
		tap_ok(!strcmp(rows.v[2].region, "a,b,c") && !strcmp(rows.v[2].event, "cycles"),
		       "unquoted: the region is all before the last two fields ('%s', '%s')", rows.v[2].region,
		       rows.v[2].event);
		tap_streq(rows.v[3].region, "say \"hi\"", "doubled quotes inside a quoted name");
	}
	if (!rc)
		td_region_rows_free(&rows);
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "region,event,value\nf,cycles,-3\n", "r.csv:2: the value '-3' is not a count" },
		{ "region,event,value\nf,cycles,12x\n", "r.csv:2: the value '12x' is not a count" },
		{ "region,event,value\nf,cycles,nan\n", "is not a count" },
		{ "region,event,value\nf cycles 12\n", "r.csv:2: 'f cycles 12' is not 'region,event,value'" },
		{ "region,event,value\n,cycles,1\n", "r.csv:2: an empty region" },
		{ "region,event,value\nf,,1\n", "r.csv:2: an empty event" },
		{ "region,event,value\n# nothing\n", "r.csv: no counts in the file" },
		{ "f,cycles,1\n", "r.csv:1: not per-region counts" },
		{ "", "r.csv: empty" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		rc = region_rows(bad[i].text, &rows, &det);
		tap_ok(rc == -1 && strstr(err, bad[i].want) && rows.n == 0, "bad per-region CSV %zu: %s", i, err);
	}
	/* perf stat -x, output is not taken for per-region counts */
	rc = region_rows("191281317,,cycles,1000000,100.00,,\n", &rows, &det);
	tap_ok(!det && rc == -1, "perf stat -x, output: not per-region counts");
}

int main(void)
{
	test_region_csv();
	test_line_reader();
	test_long_prefix();
	test_threshold_column();
	test_many_lines();
	struct td_countset cs;
	const struct td_count *c;
	/* perf 6.x: value,unit,event,run,pct,metric,metric-unit; comment header */
	int rc = import("# started on Sat Nov 21 10:00:00 2026\n\n"
			"191281317,,topdown-retiring,1000000,100.00,,\n"
			"4000,,cpu/event=0x9c,umask=0x1/,500000,50.00,,\n"
			"12.50,msec,task-clock,12500000,100.00,0.998,CPUs utilized\n"
			"<not counted>,,uops_issued.any,0,0.00,,\n"
			"<not supported>,,cycles,0,100.00,,\n", &cs);
	tap_ok(rc == 0 && cs.n == 5, "plain perf stat -x, output: 5 events (%s)", rc ? err : "ok");
	c = find(&cs, "topdown-retiring", 0);
	tap_ok(c && c->counted && scaled(c) == 191281317 && c->running == 1e6 && c->enabled == 1e6,
	       "value, run time and 100 %% kept");
	c = find(&cs, "cpu/event=0x9c,umask=0x1/", 0);
	tap_ok(c != NULL, "raw encodings with commas inside cpu/.../ stay one field");
	if (c) {
		tap_near(scaled(c), 4000, 1e-9, "perf's printed value is already scaled: kept as the scaled value");
		tap_near(c->raw, 2000, 1e-9, "raw rebuilt as value x percent / 100");
		tap_near(c->enabled, 1e6, 1e-6, "enabled rebuilt as run time x 100 / percent");
	}
	c = find(&cs, "uops_issued.any", 0);
	tap_ok(c && !c->counted && strstr(c->why_not, "not counted"), "<not counted> kept as not counted");
	c = find(&cs, "cycles", 0);
	tap_ok(c && !c->counted && strstr(c->why_not, "not supported"), "<not supported> kept with perf's words");
	td_countset_free(&cs);

	/* perf stat -r 5 adds a variance column after the event */
	rc = import("1000,,instructions,2.5%,800,100.00,,\n", &cs);
	c = find(&cs, "instructions", 0);
	tap_ok(rc == 0 && c && scaled(c) == 1000 && c->running == 800, "-r variance column skipped");
	td_countset_free(&cs);

	/* -I: intervals are summed */
	rc = import("     1.001,100,,instructions,1000,100.00,,\n"
		    "     1.001,50,,cycles,1000,50.00,,\n"
		    "     2.002,300,,instructions,1000,100.00,,\n"
		    "     2.002,70,,cycles,1000,100.00,,\n", &cs);
	tap_ok(rc == 0 && cs.n == 2, "-I intervals merge into one entry per event (%zu)", cs.n);
	c = find(&cs, "instructions", 0);
	tap_ok(c && scaled(c) == 400, "-I: instructions summed over intervals");
	c = find(&cs, "cycles", 0);
	tap_ok(c && fabs(scaled(c) - 120) < 1e-9 && fabs(c->enabled - 3000) < 1e-6,
	       "-I: scaled values summed, enabled and running added");
	td_countset_free(&cs);

	/* -A: per-CPU lines are summed */
	rc = import("CPU0,10,,instructions,100,100.00,,\nCPU1,32,,instructions,100,100.00,,\n", &cs);
	c = find(&cs, "instructions", 0);
	tap_ok(rc == 0 && cs.n == 1 && c && scaled(c) == 42, "-A per-CPU counts summed");
	td_countset_free(&cs);

	/* the same event twice in one run (two groups): two entries, averaged later */
	rc = import("10,,cycles,100,100.00,,\n12,,cycles,100,100.00,,\n", &cs);
	tap_ok(rc == 0 && cs.n == 2, "an event in two groups stays two entries");
	td_countset_free(&cs);

	rc = import("1;;instructions;100;100.00;;\n", &cs);
	tap_ok(rc == 0 && find(&cs, "instructions", 0), "perf stat -x';' separator detected");
	td_countset_free(&cs);

	expect_error("", "no counts found");
	expect_error("# only a comment\n", "no counts found");
	expect_error("191281317,,topdown-retiring,1000000,100.00,,\n17044869,,topdown-fe-bo",
		     "counts.csv:2: truncated line");
	expect_error("1,,a,1,100\nhello world\n", "counts.csv:2: malformed line");
	expect_error("abc,,instructions,100,100.00,,\n", "counts.csv:1: event instructions: count 'abc'");
	expect_error("-5,,instructions,100,100.00,,\n", "not a non-negative number");
	expect_error("5,,instructions,100,140.00,,\n", "percentage '140.00' is not in [0,100]");
	expect_error("5,,instructions,x,100.00,,\n", "run time 'x'");
	expect_error("5,,,100,100.00,,\n", "counts.csv:1: empty event name");
	static const char bin[] = "1,,a,1,100\n\x01\x02\x00zz\n";
	rc = import_n(bin, sizeof(bin) - 1, &cs);
	tap_ok(rc != 0 && strstr(err, "counts.csv:2: binary data"), "binary data is refused (%s)", err);
	td_countset_free(&cs);
	return tap_done();
}
