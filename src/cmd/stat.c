/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus stat: count a program (or import perf stat counts) and print the TMA
 * tree, or count arbitrary events with -e. */
#include "config.h"

#include "cmd.h"
#include "recording.h"
#include "collect.h"
#include "merge.h"
#include "spire.h"
#include "topdown.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct stat_opts {
	int level;
	const char *nodes;
	bool user_only;
	enum merge_format fmt;
	char sep;
	const char *output;
	bool no_multiplex;
	bool print_events;
	const char *import;
	const char *events;
	const char *arch;
	int smt;		/* -1: detect (live) / off (import) */
	char **argv;		/* the program */
	bool level_given;
	unsigned interval_ms;	/* -I; 0: not given */
	bool spire;
	const char *metrics;	/* --metrics */
	const char *time_event, *work_event;	/* --time, --work */
	int cmd_argc;		/* the whole command line, for -x's comment */
	char **cmd_argv;
};

/* long options without a short one */
enum { OPT_IMPORT = 256, OPT_SPIRE, OPT_METRICS, OPT_TIME, OPT_WORK };

static void stat_usage(FILE *out)
{
	fprintf(out,
		"usage: gus stat [-l 1|2|3] [--nodes LIST] [-u] [-x SEP | --json] [-o FILE]\n"
		"                [--no-multiplex] [--arch ID] -- program [args]\n"
		"       gus stat --import FILE [--arch ID] [--smt on|off] [-l N] [--nodes LIST] [-x SEP | --json]\n"
		"       gus stat --print-events [--arch ID] [-l N] [--nodes LIST] [-- program args]\n"
		"       gus stat -e EVENT[,EVENT...] [-I MS] [-x SEP | --json] [-o FILE] -- program [args]\n"
		"       gus stat --spire [-I MS] [--arch ID] [--metrics LIST] [--time EVENT] [--work EVENT]\n"
		"                [-u] [-x SEP | --json] [-o FILE] -- program [args]\n"
		"       gus stat --spire --print-events [-I MS] [--arch ID] [--metrics LIST] [-- program args]\n\n"
		"  -l, --level N        deepest TMA level shown, 1 to 3 (default 1)\n"
		"      --nodes LIST     also show these nodes (comma separated) with their ancestors\n"
		"  -u, --user           count user space only\n"
		"  -x, --field-separator SEP   CSV output with separator SEP\n"
		"      --json           JSON output\n"
		"  -o, --output FILE    write the result to FILE (default: stderr for a run, as perf)\n"
		"      --no-multiplex   run the program once per event group instead of multiplexing\n"
		"      --arch ID        TMA table to use: clx, skx, icx, spr (default: the CPU's);\n"
		"                       with --spire, the metric set (skx, or a CPU it is for: clx)\n"
		"      --smt on|off     SMT state for --import (default off; live runs detect it)\n"
		"      --import FILE    compute the tree from 'perf stat -x,' output ('-': stdin)\n"
		"      --print-events   print the perf stat command that collects the same events\n"
		"  -e, --events LIST    count these events (libpfm4 or perf software names)\n"
		"  -I, --interval-print MS   print the counts every MS milliseconds (10 or more), as perf stat -I\n"
		"      --spire          count the SPIRE metric set of this CPU (or --arch's) per interval\n"
		"                       (-I 1000 unless -I is given), for 'gus spire train/analyze'\n"
		"      --metrics LIST   --spire: only these metrics (abbreviations such as DB.2, event\n"
		"                       names), or other events counted as given\n"
		"      --time EVENT     --spire: the period event T (default cpu_clk_unhalted.thread)\n"
		"      --work EVENT     --spire: the work event W (default inst_retired.any)\n"
		"  -h, --help           this help; 'gus help stat' shows the manual\n");
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "user", no_argument, NULL, 'u' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-multiplex", no_argument, NULL, 'M' },
		{ "print-events", no_argument, NULL, 'P' },
		{ "import", required_argument, NULL, OPT_IMPORT },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "spire", no_argument, NULL, OPT_SPIRE },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "work", required_argument, NULL, OPT_WORK },
		{ "events", required_argument, NULL, 'e' },
		{ "arch", required_argument, NULL, 'a' },
		{ "smt", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	memset(o, 0, sizeof(*o));
	o->level = 1;
	o->smt = -1;
	o->fmt = MERGE_TEXT;
	o->cmd_argc = argc;
	o->cmd_argv = argv;
	opterr = 0;
	optind = 1;
	/* '+': options end at the program's name, as with perf stat */
	while ((c = getopt_long(argc, argv, "+l:ux:o:e:I:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (strlen(optarg) != 1 || optarg[0] < '1' || optarg[0] > '3')
				return gus_usage_error("stat: --level takes 1, 2 or 3, not '%s'", optarg);
			o->level = optarg[0] - '0';
			o->level_given = true;
			break;
		case 'I': {
			unsigned long v = 0;
			size_t k;
			for (k = 0; optarg[k] >= '0' && optarg[k] <= '9' && v <= 86400000; k++)
				v = v * 10 + (unsigned long)(optarg[k] - '0');
			if (!k || optarg[k])
				return gus_usage_error("stat: -I takes an interval in milliseconds (10 or more, "
						       "at most a day), not '%s'", optarg);
			if (v < 10)
				return gus_usage_error("stat: -I %s: the interval must be at least 10 ms, as with "
						       "perf stat -I", optarg);
			if (v > 86400000)
				return gus_usage_error("stat: -I %s: the interval must be at most a day "
						       "(86400000 ms)", optarg);
			o->interval_ms = (unsigned)v;
			break;
		}
		case OPT_SPIRE: o->spire = true; break;
		case OPT_METRICS: o->metrics = optarg; break;
		case OPT_TIME: o->time_event = optarg; break;
		case OPT_WORK: o->work_event = optarg; break;
		case 'N': o->nodes = optarg; break;
		case 'u': o->user_only = true; break;
		case 'x':
			if (strlen(optarg) != 1)
				return gus_usage_error("stat: -x takes one character, not '%s'", optarg);
			o->fmt = MERGE_CSV;
			o->sep = optarg[0];
			break;
		case 'J': o->fmt = MERGE_JSON; break;
		case 'o': o->output = optarg; break;
		case 'M': o->no_multiplex = true; break;
		case 'P': o->print_events = true; break;
		case OPT_IMPORT: o->import = optarg; break;
		case 'e': o->events = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'S':
			if (gus_parse_on_off("stat: --smt", optarg, &o->smt))
				return GUS_EXIT_USAGE;
			break;
		case 'h':
			stat_usage(stdout);
			return -1;
		case '?':
		default:
			if (optopt && optopt != '?' && optopt < OPT_IMPORT)
				return gus_usage_error("stat: unknown option '-%c' or missing argument", optopt);
			return gus_usage_error("stat: unknown option '%s' or missing argument",
					       argv[optind - 1]);
		}
	}
	o->argv = argv + optind;
	if (o->import && o->events)
		return gus_usage_error("stat: --import and -e do not go together");
	if (o->import && o->argv[0])
		return gus_usage_error("stat: --import takes no program");
	if ((o->metrics || o->time_event || o->work_event) && !o->spire)
		return gus_usage_error("stat: --metrics, --time and --work go with --spire");
	if (o->spire && o->events)
		return gus_usage_error("stat: --spire counts its metric set; choose events with --metrics, not -e");
	if (o->spire && o->import)
		return gus_usage_error("stat: --spire does not go with --import ('gus spire train' and "
				       "'gus spire analyze' read interval counts)");
	if (o->interval_ms && o->import)
		return gus_usage_error("stat: -I does not go with --import");
	if ((o->spire || o->interval_ms) && o->no_multiplex)
		return gus_usage_error("stat: -I and --spire count every group in one run; they do not go "
				       "with --no-multiplex");
	if (o->spire && (o->level_given || o->nodes))
		return gus_usage_error("stat: -l and --nodes choose TMA nodes; they do not go with --spire");
	if (o->interval_ms && !o->events && !o->spire)
		return gus_usage_error("stat: -I prints counts per interval with -e EVENTS or --spire (for "
				       "example gus stat -I 100 -e task-clock,page-faults -- PROGRAM); the TMA "
				       "tree has no interval mode");
	if (o->spire && (o->fmt != MERGE_TEXT || o->output) && o->print_events)
		return gus_usage_error("stat: --print-events prints a command on standard output; -x, "
				       "--json and -o do not go with it");
	if (o->spire && !o->interval_ms)
		o->interval_ms = 1000;
	if (!o->import && !o->print_events && !o->argv[0])
		return gus_usage_error("stat: no program given (gus stat [options] -- program args)");
	/* before the program runs: its counts would be lost to a bad -o */
	if (outfile_check(o->output))
		return GUS_EXIT_ERROR;
	return 0;
}

static void print_perf_command(FILE *out, const struct td_table *t, const struct collect_plan *plan,
			       char **argv, bool user_only)
{
	fprintf(out, "perf stat -x, -e '");
	for (size_t i = 0; i < plan->n; i++) {
		const struct collect_event *ce = &plan->ev[i];
		bool first = i == 0 || plan->ev[i - 1].group != ce->group;
		bool last = i + 1 == plan->n || plan->ev[i + 1].group != ce->group;
		int e = td_table_find_event(t, ce->name);
		const struct td_event *ev = &t->events[e];
		fprintf(out, "%s%s", i && first ? "," : "", first ? "{" : ",");
		if (ev->kind != TD_EV_GENERAL && ev->n_aliases) {
			fprintf(out, "%s%s", ev->aliases[0], user_only ? ":u" : "");	/* slots, topdown-*, cycles */
		} else {
			uint64_t c = ev->config;
			char lower[128];
			size_t k;
			for (k = 0; ev->name[k] && k + 1 < sizeof(lower); k++)
				lower[k] = (char)(ev->name[k] >= 'A' && ev->name[k] <= 'Z' ? ev->name[k] + 32 : ev->name[k]);
			lower[k] = 0;
			fprintf(out, "cpu/event=0x%02x,umask=0x%02x", (unsigned)(c & 0xff),
				(unsigned)((c >> 8) & 0xff));
			if ((c >> 24) & 0xff)
				fprintf(out, ",cmask=%u", (unsigned)((c >> 24) & 0xff));
			if (c & (1ull << 18))
				fprintf(out, ",edge=1");
			if (c & (1ull << 21))
				fprintf(out, ",any=1");
			if (c & (1ull << 23))
				fprintf(out, ",inv=1");
			if (ev->config1)
				fprintf(out, ",frontend=0x%llx", (unsigned long long)ev->config1);
			fprintf(out, ",name=%s/%s", lower, user_only ? "u" : "");
		}
		if (last)
			fputc('}', out);
	}
	fprintf(out, "' -o counts.csv -- ");
	if (argv && argv[0])
		for (int i = 0; argv[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", argv[i]);
	else
		fprintf(out, "PROGRAM ARGS");
	fprintf(out, "\n# then: gus stat --import counts.csv --arch %s -l N\n", t->id);
}

static int finish_tree(const struct stat_opts *o, const struct td_table *t, const bool *sel,
		       const struct td_countset *cs, struct merge_run_info *run, FILE *dflt)
{
	char err[TD_ERRLEN];
	struct td_tree tree;
	struct td_eval_opts eo = { .max_level = o->level, .smt_on = run->smt_on, .select = sel };
	if (td_eval(t, cs, &eo, &tree, err, sizeof(err))) {
		gus_error("%s", err);
		return -1;
	}
	struct outfile of;
	if (outfile_open(&of, o->output, dflt)) {
		td_tree_free(&tree);
		return -1;
	}
	merge_render_tma(of.f, &tree, run, o->fmt, o->sep);
	td_tree_free(&tree);
	return outfile_close(&of, true);
}

static int stat_import(const struct stat_opts *o)
{
	struct collect_pmu_info pmu;
	bool have_pmu;
	char err[TD_ERRLEN];
	enum recording_status pick_st;
	struct td_table *t = recording_tma_table(gus_tma_dir(), o->arch, false, &pmu, &have_pmu, gus_terminal_log(),
						 &pick_st);
	if (!t)
		return gus_exit_for(pick_st);
	int rc = GUS_EXIT_ERROR;
	bool *sel = td_select_nodes(t, o->level, o->nodes, err, sizeof(err));
	struct td_countset cs;
	td_countset_init(&cs);
	FILE *in = strcmp(o->import, "-") ? fopen(o->import, "r") : stdin;
	if (!sel) {
		rc = gus_usage_error("stat: %s", err);
		goto out;
	}
	if (!in) {
		gus_error("cannot open %s: %s", o->import, strerror(errno));
		goto out;
	}
	if (td_import_perf_csv(in, strcmp(o->import, "-") ? o->import : "<stdin>", &cs, err, sizeof(err))) {
		gus_error("%s", err);
		goto out;
	}
	/* events the table does not know are named once: a typo or another CPU */
	int unknown = 0;
	for (size_t i = 0; i < cs.n; i++)
		if (td_table_find_event(t, cs.c[i].event) < 0 && unknown++ < 5)
			gus_warn("%s: event '%s' is not used by the %s table; ignored", o->import,
				 cs.c[i].event, t->id);
	struct merge_run_info run = { .import = o->import, .smt_on = o->smt == 1, .runs = 1 };
	rc = finish_tree(o, t, sel, &cs, &run, stdout) ? GUS_EXIT_ERROR : GUS_EXIT_OK;
out:
	if (in && in != stdin)
		fclose(in);
	td_countset_free(&cs);
	free(sel);
	td_table_free(t);
	return rc;
}

static int status_exit(enum collect_status st)
{
	switch (st) {
	case COLLECT_NO_PMU: return GUS_EXIT_NO_PMU;
	case COLLECT_NO_PERMISSION: return GUS_EXIT_NO_PERMISSION;
	case COLLECT_EXEC_FAILED: return GUS_EXIT_NOT_FOUND;
	default: return GUS_EXIT_ERROR;
	}
}

/* Run once (or once per group with --no-multiplex); on a permission error
 * with kernel counting, retry user space only as perf does. */
static int run_counting(const struct stat_opts *o, const struct td_table *t, const bool *needed,
			int budget, bool use_pfm, struct collect_plan *plan, struct td_countset *cs,
			struct merge_run_info *run, bool *counted)
{
	char err[COLLECT_ERRLEN];
	struct collect_result res;
	bool user_only = o->user_only;
	*counted = false;
	for (;;) {
		int prc = t ? collect_plan_tma(t, needed, budget, use_pfm, user_only, plan, err, sizeof(err))
			    : collect_plan_events(o->events, user_only, plan, err, sizeof(err));
		if (prc) {
			gus_error("%s", err);
			return GUS_EXIT_ERROR;
		}
		int groups = o->no_multiplex ? plan->n_groups : 1;
		enum collect_status st = COLLECT_OK;
		for (int g = 0; g < groups; g++) {
			st = collect_count(plan, o->no_multiplex ? g : -1, o->argv, cs, &res, err, sizeof(err));
			if (st != COLLECT_OK)
				break;
			run->runs = g + 1;
			run->seconds += res.seconds;
			run->exit_status = collect_exit_code(res.wait_status);
			run->interrupted = res.interrupted;
			*counted = true;
			if (res.interrupted) {
				if (g + 1 < groups)
					gus_warn("interrupted: %d of %d runs done; the rest of the tree is not computable",
						 g + 1, groups);
				break;
			}
		}
		if (st == COLLECT_NO_PERMISSION && !user_only && !*counted) {
			gus_warn("kernel-space counting is not allowed here; counting user space only");
			user_only = true;
			collect_plan_free(plan);
			continue;
		}
		run->user_only = user_only;
		if (st == COLLECT_EXEC_FAILED) {
			gus_error("%s", err);
			return res.exec_errno == ENOENT ? GUS_EXIT_NOT_FOUND : GUS_EXIT_CANNOT_EXECUTE;
		}
		if (st != COLLECT_OK && !*counted) {
			gus_error("%s", err);
			return status_exit(st);
		}
		if (st != COLLECT_OK)
			gus_warn("%s", err);
		return GUS_EXIT_OK;
	}
}

/* ------------------------------------------------ interval counting --- */
/* gus stat -I MS (-e LIST or --spire): the counts of every interval, as
 * perf stat -I prints them. */

static void print_spire_command(FILE *out, const struct stat_opts *o, const struct recording_spire_pick *sp, int budget)
{
	const char *mod = o->user_only ? ":u" : "";
	fprintf(out, "perf stat -I %u -x, -e '", o->interval_ms);
	for (size_t i = 0; i < sp->n; i++) {
		if (i % (size_t)budget == 0)
			fprintf(out, "%s{%s%s,%s%s", i ? "}," : "", sp->time_name, mod, sp->work_name, mod);
		fprintf(out, ",%s%s", sp->names[i], mod);
	}
	fprintf(out, "}' -o samples.csv -- ");
	if (o->argv && o->argv[0])
		for (int i = 0; o->argv[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", o->argv[i]);
	else
		fprintf(out, "PROGRAM ARGS");
	fputc('\n', out);
	fprintf(out, "# %zu metric%s in groups of %d, each with its own %s and %s", sp->n, sp->n == 1 ? "" : "s",
		budget, sp->time_name, sp->work_name);
	if (sp->cpu)
		fprintf(out, ", for %s", sp->cpu);
	fputc('\n', out);
	if (sp->left_out[0])
		fprintf(out, "# left out: %s (AnyThread: needs kernel.perf_event_paranoid <= 0 and SMT on; "
			"add with --metrics)\n", sp->left_out);
	/* gus spire reads T and W from the file's records; perf writes no
	 * "# time:" comment, so other events than the defaults are named */
	char tw[512] = "";
	if (strcmp(sp->time_name, SPIRE_DEFAULT_TIME) || strcmp(sp->work_name, SPIRE_DEFAULT_WORK))
		snprintf(tw, sizeof(tw), " --time %s --work %s", sp->time_name, sp->work_name);
	fprintf(out, "# then train on such files from many programs:  gus spire train -o model.spire%s%s%s "
		"samples.csv ...\n", sp->cpu ? " --cpu " : "", sp->cpu ? sp->cpu : "", tw);
	fprintf(out, "# or analyze one with a trained model:        gus spire analyze -m model.spire%s%s "
		"samples.csv\n", sp->cpu ? " --cpu " : "", sp->cpu ? sp->cpu : "");
}

/* ------------------------------------------------- interval output --- */
struct iv_out {
	FILE *f;
	const struct stat_opts *o;
	const struct collect_plan *plan;
	const struct recording_spire_pick *sp;	/* --spire, else NULL */
	unsigned long intervals;
	bool started;
};

/* VALUE with thousands separators and DECIMALS decimals */
static void grouped(char *out, size_t outlen, double value, int decimals)
{
	char buf[64], *dot;
	snprintf(buf, sizeof(buf), "%.*f", decimals, value);
	dot = strchr(buf, '.');
	size_t intlen = dot ? (size_t)(dot - buf) : strlen(buf);
	size_t k = 0;
	for (size_t i = 0; i < intlen && k + 2 < outlen; i++) {
		out[k++] = buf[i];
		size_t left = intlen - i - 1;
		if (left && left % 3 == 0 && buf[i] != '-' && k + 2 < outlen)
			out[k++] = ',';
	}
	out[k] = 0;
	if (dot)
		snprintf(out + k, outlen - k, "%s", dot);
}

/* perf prints the clock events in milliseconds */
static bool is_msec(const struct collect_plan *plan, const struct td_countset *cs, size_t i)
{
	if (cs->n != plan->n)
		return false;
	const struct perf_event_attr *a = &plan->ev[i].attr;
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static void iv_start(struct iv_out *w)
{
	const struct stat_opts *o = w->o;
	FILE *f = w->f;
	if (w->started)
		return;
	w->started = true;
	if (o->fmt == MERGE_JSON) {
		fprintf(f, "{\n  \"tool\": \"gus stat\",\n  \"interval_ms\": %u,\n  \"program\": [", o->interval_ms);
		for (int i = 0; o->argv[i]; i++) {
			fputs(i ? ", " : "", f);
			merge_json_string(f, o->argv[i]);
		}
		fputs("],\n", f);
		if (w->sp) {
			fputs("  \"spire\": {\"cpu\": ", f);
			if (w->sp->cpu)
				merge_json_string(f, w->sp->cpu);
			else
				fputs("null", f);
			fputs(", \"time\": ", f);
			merge_json_string(f, w->sp->time_name);
			fputs(", \"work\": ", f);
			merge_json_string(f, w->sp->work_name);
			fprintf(f, ", \"groups\": %d},\n", w->plan->n_groups);
		}
		fputs("  \"intervals\": [", f);
		return;
	}
	if (o->fmt == MERGE_CSV) {
		fputs("# gus", f);
		for (int i = 0; i < o->cmd_argc; i++) {
			fputc(' ', f);
			for (const char *c = o->cmd_argv[i]; *c; c++)
				fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
		}
		fputc('\n', f);
		if (w->sp) {
			if (w->sp->cpu)
				fprintf(f, "# cpu: %s\n", w->sp->cpu);
			fprintf(f, "# time: %s\n# work: %s\n", w->sp->time_name, w->sp->work_name);
		}
		return;
	}
	if (w->sp)
		fprintf(f, "# SPIRE samples%s%s: time %s, work %s, %zu metric%s in %d group%s\n",
			w->sp->cpu ? " for " : "", w->sp->cpu ? w->sp->cpu : "", w->sp->time_name,
			w->sp->work_name, w->sp->n, w->sp->n == 1 ? "" : "s", w->plan->n_groups,
			w->plan->n_groups == 1 ? "" : "s");
	fprintf(f, "#           time             counts unit events\n");
}

static int iv_interval(void *ctx, double t, const struct td_countset *cs)
{
	struct iv_out *w = ctx;
	FILE *f = w->f;
	char sep = w->o->sep;
	iv_start(w);
	if (w->o->fmt == MERGE_JSON)
		fprintf(f, "%s\n    {\"time\": %.9f, \"counts\": [", w->intervals ? "," : "", t);
	for (size_t i = 0; i < cs->n; i++) {
		const struct td_count *c = &cs->c[i];
		bool counted = c->counted && c->running > 0;
		double scaled = counted ? c->raw * c->enabled / c->running : 0;
		bool msec = is_msec(w->plan, cs, i);
		double pct = c->enabled > 0 ? 100.0 * c->running / c->enabled : 0;
		if (w->o->fmt == MERGE_JSON) {
			fprintf(f, "%s\n      {\"event\": ", i ? "," : "");
			merge_json_string(f, c->event);
			if (cs->n == w->plan->n)
				fprintf(f, ", \"group\": %d", w->plan->ev[i].group);
			if (counted)
				fprintf(f, ", \"value\": %.0f", scaled);
			else
				fputs(", \"value\": null", f);
			fprintf(f, ", \"raw\": %.0f, \"enabled\": %.0f, \"running\": %.0f, \"counted\": %s}",
				c->counted ? c->raw : 0, c->counted ? c->enabled : 0, c->counted ? c->running : 0,
				counted ? "true" : "false");
			continue;
		}
		if (w->o->fmt == MERGE_CSV) {
			/* perf stat -I -x: time, value, unit, event, run time, percent, metric, unit */
			fprintf(f, "%16.9f%c", t, sep);
			if (!counted)
				fprintf(f, "<not counted>");
			else if (msec)
				fprintf(f, "%.2f", scaled / 1e6);
			else
				fprintf(f, "%.0f", scaled);
			fprintf(f, "%c%s%c%s%c%.0f%c%.2f%c%c\n", sep, msec ? "msec" : "", sep, c->event, sep,
				counted ? c->running : 0.0, sep, counted ? pct : 0.0, sep, sep);
			continue;
		}
		char num[64];
		if (!counted)
			snprintf(num, sizeof(num), "<not counted>");
		else
			grouped(num, sizeof(num), msec ? scaled / 1e6 : scaled, msec ? 2 : 0);
		fprintf(f, "%16.9f %18s %-4s %s", t, num, msec ? "msec" : "", c->event);
		if (counted && c->running < c->enabled)
			fprintf(f, "  (%.2f%%)", pct);
		fputc('\n', f);
	}
	if (w->o->fmt == MERGE_JSON)
		fputs("\n    ]}", f);
	w->intervals++;
	return ferror(f) ? -1 : 0;
}

static void iv_finish(struct iv_out *w, const struct collect_result *res, int exit_status)
{
	FILE *f = w->f;
	iv_start(w);
	if (w->o->fmt == MERGE_JSON) {
		fprintf(f, "%s  ],\n  \"exit_status\": %d,\n  \"interrupted\": %s,\n  \"seconds\": %.6f\n}\n",
			w->intervals ? "\n" : "", exit_status, res->interrupted ? "true" : "false", res->seconds);
	} else if (w->o->fmt == MERGE_TEXT) {
		fprintf(f, "# %.3f seconds elapsed, %lu interval%s, exit status %d%s\n", res->seconds,
			w->intervals, w->intervals == 1 ? "" : "s", exit_status,
			res->interrupted ? " (interrupted)" : "");
	}
}

static int stat_intervals(const struct stat_opts *o)
{
	char err[COLLECT_ERRLEN], note[256] = "";
	struct collect_plan plan = { 0 };
	struct collect_pmu_info pmu;
	struct recording_spire_pick sp;
	bool have_pmu = false;
	int rc = GUS_EXIT_ERROR, budget = 0;
	memset(&sp, 0, sizeof(sp));

	if (collect_pfm_init(err, sizeof(err))) {
		gus_error("%s", err);
		return GUS_EXIT_ERROR;
	}
	have_pmu = collect_detect_pmu(&pmu) == 0;
	if (o->spire) {
		struct recording_spire_request rq = { .spire_dir = gus_data_dir("spire"), .arch = o->arch,
						      .metrics = o->metrics, .time_event = o->time_event,
						      .work_event = o->work_event, .user_only = o->user_only,
						      .print_events = o->print_events, .opt = "" };
		enum recording_status pst = recording_spire_prepare(&rq, &pmu, have_pmu, &sp, &budget, note,
								    sizeof(note), gus_terminal_log());
		if (pst) {
			rc = gus_exit_for(pst);
			goto out;
		}
		rc = GUS_EXIT_ERROR;
		if (o->print_events) {
			print_spire_command(stdout, o, &sp, budget);
			rc = GUS_EXIT_OK;
			goto out;
		}
	}
	if (note[0])
		gus_warn("%s", note);

	struct outfile of;
	if (outfile_open(&of, o->output, stderr))
		goto out;
	struct iv_out w = { .f = of.f, .o = o, .plan = &plan, .sp = o->spire ? &sp : NULL };
	struct collect_interval_sink sink = { .ctx = &w, .interval = iv_interval };
	struct collect_result res;
	bool user_only = o->user_only;
	enum collect_status st;
	for (;;) {
		int prc = o->spire ? collect_plan_spire(sp.time_enc, sp.time_name, sp.work_enc, sp.work_name, sp.enc,
							sp.names, sp.n, budget, user_only, &plan, err, sizeof(err))
				   : collect_plan_events(o->events, user_only, &plan, err, sizeof(err));
		if (prc) {
			gus_error("%s", err);
			outfile_close(&of, false);
			goto out;
		}
		st = collect_count_intervals(&plan, o->argv, o->interval_ms, &sink, NULL, &res, err, sizeof(err));
		if (st == COLLECT_NO_PERMISSION && !user_only && !w.started) {
			gus_warn("kernel-space counting is not allowed here; counting user space only");
			user_only = true;
			collect_plan_free(&plan);
			continue;
		}
		break;
	}
	if (st == COLLECT_EXEC_FAILED) {
		gus_error("%s", err);
		outfile_close(&of, false);
		rc = res.exec_errno == ENOENT ? GUS_EXIT_NOT_FOUND : GUS_EXIT_CANNOT_EXECUTE;
		goto out;
	}
	if (st != COLLECT_OK) {
		gus_error("%s", err);
		outfile_close(&of, false);
		rc = st == COLLECT_NO_PMU ? GUS_EXIT_NO_PMU : st == COLLECT_NO_PERMISSION ? GUS_EXIT_NO_PERMISSION
										    : GUS_EXIT_ERROR;
		goto out;
	}
	int exit_status = collect_exit_code(res.wait_status);
	iv_finish(&w, &res, exit_status);
	rc = outfile_close(&of, true) ? GUS_EXIT_ERROR : exit_status;
out:
	collect_plan_free(&plan);
	recording_spire_pick_free(&sp);
	collect_pfm_fini();
	return rc;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	int prc = parse_args(argc, argv, &o);
	if (prc)
		return prc < 0 ? GUS_EXIT_OK : prc;
	if (o.import)
		return stat_import(&o);
	if (o.spire || o.interval_ms)
		return stat_intervals(&o);

	char err[COLLECT_ERRLEN], note[256] = "";
	struct collect_plan plan = { 0 };
	struct td_countset cs;
	struct merge_run_info run = { .argv = o.argv, .runs = 1 };
	struct td_table *t = NULL;
	bool *sel = NULL, *needed = NULL;
	int rc = GUS_EXIT_ERROR;
	td_countset_init(&cs);

	if (o.events) {
		if (collect_pfm_init(err, sizeof(err))) {
			gus_error("%s", err);
			goto out;
		}
		bool counted;
		rc = run_counting(&o, NULL, NULL, 0, false, &plan, &cs, &run, &counted);
		if (!counted)
			goto out;
		struct outfile of;
		if (outfile_open(&of, o.output, stderr)) {
			rc = GUS_EXIT_ERROR;
			goto out;
		}
		merge_render_counts(of.f, &cs, &run, o.fmt, o.sep);
		rc = outfile_close(&of, true) ? GUS_EXIT_ERROR : run.exit_status;
		goto out;
	}

	struct collect_pmu_info pmu;
	bool have_pmu;
	enum recording_status pick_st;
	if (!(t = recording_tma_table(gus_tma_dir(), o.arch, !o.print_events, &pmu, &have_pmu, gus_terminal_log(),
				      &pick_st))) {
		rc = gus_exit_for(pick_st);
		goto out;
	}
	if (!(sel = td_select_nodes(t, o.level, o.nodes, err, sizeof(err)))) {
		rc = gus_usage_error("stat: %s", err);
		goto out;
	}
	needed = calloc(t->n_events + 1, sizeof(*needed));
	if (!needed)
		goto out;
	run.smt_on = o.smt >= 0 ? o.smt == 1 : collect_smt_active();
	td_needed_events(t, sel, run.smt_on, needed);
	bool use_pfm = have_pmu && (!o.arch || td_table_has_pmu(t, pmu.name));
	/* another CPU's table: 4 general counters per thread, safe with SMT on
	 * for every table shipped */
	int budget = use_pfm ? collect_counter_budget(&pmu, note, sizeof(note)) : 4;
	if (o.print_events) {
		if (collect_plan_tma(t, needed, budget, false, o.user_only, &plan, err, sizeof(err))) {
			gus_error("%s", err);
			goto out;
		}
		print_perf_command(stdout, t, &plan, o.argv, o.user_only);
		rc = GUS_EXIT_OK;
		goto out;
	}
	if (!use_pfm)
		gus_warn("the %s table is not for this CPU (libpfm4: %s); counting its public encodings as raw events",
			 t->id, have_pmu ? pmu.name : "unknown");
	if (note[0])
		gus_warn("%s", note);
	bool counted;
	rc = run_counting(&o, t, needed, budget, use_pfm, &plan, &cs, &run, &counted);
	if (!counted)
		goto out;
	if (plan.n_groups > 1 && !o.no_multiplex)
		run.notes = " The events did not fit the counters at once: they were multiplexed and\n"
			    " scaled (raw x enabled / running); [mux N%] shows how long a node's\n"
			    " events were counted. --no-multiplex runs the program once per group.\n";
	if (finish_tree(&o, t, sel, &cs, &run, stderr))
		rc = GUS_EXIT_ERROR;
	else
		rc = run.exit_status;
out:
	collect_plan_free(&plan);
	td_countset_free(&cs);
	free(sel);
	free(needed);
	td_table_free(t);
	collect_pfm_fini();
	return rc;
}
