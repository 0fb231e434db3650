/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus stat: count a program (or import perf stat counts) and print the TMA
 * tree, or count arbitrary events with -e. */
#include "config.h"

#include "cmd.h"
#include "recording.h"
#include "collect.h"
#include "merge.h"
#include "render.h"
#include "topdown.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct stat_opts {
	int level;
	const char *nodes;
	bool user_only;
	enum render_format fmt;
	char sep;
	const char *output;
	const char *html;	/* --html FILE: the tree as a page */
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
enum { OPT_IMPORT = 256, OPT_SPIRE, OPT_METRICS, OPT_TIME, OPT_WORK, OPT_HTML };

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
		"      --html FILE      also write the TMA tree as one self-contained HTML page\n"
		"      --no-multiplex   run the program once per event group instead of multiplexing\n"
		"      --arch ID        TMA table to use: clx, skx, icx, spr (default: the CPU's);\n"
		"                       with --spire, the metric set (skx, or a CPU it is for: clx)\n"
		"      --smt on|off     SMT state for --import (default off; live runs detect it)\n"
		"      --import FILE    compute the tree from 'perf stat -x,' output ('-': stdin)\n"
		"      --print-events   print the perf stat command that collects the same events\n"
		"  -e, --events LIST    count these events (libpfm4 or perf software names;\n"
		"                       one the machine cannot count is <not supported>)\n"
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
		{ "html", required_argument, NULL, OPT_HTML },
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
	o->fmt = RENDER_TEXT;
	o->cmd_argc = argc;
	o->cmd_argv = argv;
	opterr = 0;
	optind = 1;
	/* '+': options end at the program's name, as with perf stat */
	unsigned level;
	while ((c = gus_getopt(argc, argv, "+l:ux:o:e:I:h", longopts, "stat")) != -1) {
		switch (c) {
		case 'l':
			if (gus_parse_unsigned(gus_optname(), optarg, 1, 3, &level))
				return GUS_EXIT_USAGE;
			o->level = (int)level;
			o->level_given = true;
			break;
		case 'I':
			/* milliseconds, at most a day; at least 10 said apart, in
			 * perf stat -I's terms */
			if (gus_parse_unsigned("stat: -I (an interval in milliseconds)", optarg, 0, 86400000,
					       &o->interval_ms))
				return GUS_EXIT_USAGE;
			if (o->interval_ms < 10)
				return gus_usage_error("stat: -I %s: the interval must be at least 10 ms, as with "
						       "perf stat -I", optarg);
			break;
		case OPT_SPIRE: o->spire = true; break;
		case OPT_METRICS: o->metrics = optarg; break;
		case OPT_TIME: o->time_event = optarg; break;
		case OPT_WORK: o->work_event = optarg; break;
		case 'N': o->nodes = optarg; break;
		case 'u': o->user_only = true; break;
		case 'x':
			if (strlen(optarg) != 1)
				return gus_usage_error("stat: -x takes one character, not '%s'", optarg);
			o->fmt = RENDER_CSV;
			o->sep = optarg[0];
			break;
		case 'J': o->fmt = RENDER_JSON; break;
		case 'o': o->output = optarg; break;
		case OPT_HTML: o->html = optarg; break;
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
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
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
	if (o->spire && (o->fmt != RENDER_TEXT || o->output) && o->print_events)
		return gus_usage_error("stat: --print-events prints a command on standard output; -x, "
				       "--json and -o do not go with it");
	if (o->spire && !o->interval_ms)
		o->interval_ms = 1000;
	if (!o->import && !o->print_events && !o->argv[0])
		return gus_usage_error("stat: no program given (gus stat [options] -- program args)");
	if (o->html && (o->events || o->spire || o->print_events))
		return gus_usage_error("stat: --html writes the TMA tree; it does not go with -e, --spire or "
				       "--print-events");
	/* before the program runs: its counts would be lost to a bad -o */
	if (outfile_check(o->output) || outfile_check(o->html))
		return GUS_EXIT_ERROR;
	return 0;
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
	render_tma(of.f, &tree, run, o->fmt, o->sep);
	int rc = outfile_close(&of, true);
	if (!rc && o->html) {
		/* written beside and renamed into place: never a partial page */
		char title[4200];
		snprintf(title, sizeof title, "Top-Down (TMA) for %s (%s)%s%s", t->full_name, t->id,
			 run->import ? ", imported from " : "", run->import ? run->import : "");
		if (outfile_open(&of, o->html, NULL))
			rc = -1;
		else {
			render_html_tma(of.f, &tree, run, title);
			rc = outfile_close(&of, true);
		}
	}
	td_tree_free(&tree);
	return rc;
}

static int stat_import(const struct stat_opts *o)
{
	char err[TD_ERRLEN];
	const char *name = strcmp(o->import, "-") ? o->import : "<stdin>";
	struct td_countset cs;
	td_countset_init(&cs);
	struct td_table *t = NULL;
	bool *sel = NULL;
	enum recording_status st = recording_import_counts(o->import, name, &cs, gus_terminal_log());
	if (!st)
		t = recording_tma_table_for_import(gus_tma_dir(), o->arch, &cs, name, gus_terminal_log(), &st);
	int rc = gus_exit_for(st);
	if (rc)
		goto out;
	sel = td_select_nodes(t, o->level, o->nodes, err, sizeof(err));
	if (!sel) {
		rc = gus_usage_error("stat: %s", err);
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
	td_countset_free(&cs);
	free(sel);
	td_table_free(t);
	return rc;
}

/* the counts of -e LIST or of TMA's set */
static int run_counting(const struct stat_opts *o, const struct recording_stat_tma *tma, struct collect_plan *plan,
			struct td_countset *cs, struct merge_run_info *run, bool *counted)
{
	struct recording_count_request rq = { .argv = o->argv, .tma = tma, .events = o->events,
					      .user_only = o->user_only, .no_multiplex = o->no_multiplex,
					      .log = *gus_terminal_log() };
	return gus_exit_for(recording_count(&rq, plan, cs, run, counted));
}

/* ------------------------------------------------ interval counting --- */
/* gus stat -I MS (-e LIST or --spire): the counts of every interval, as
 * perf stat -I prints them. */
static int write_interval(void *ctx, double t, const struct td_countset *cs, const struct merge_interval_event *ev,
			  int groups)
{
	struct render_intervals *w = ctx;
	w->groups = groups;
	return render_intervals_row(w, t, cs, ev);
}

static int stat_intervals(const struct stat_opts *o)
{
	char note[256] = "";
	struct collect_plan plan = { 0 };
	struct recording_spire_pick sp;
	int rc = GUS_EXIT_ERROR, budget = 0;
	memset(&sp, 0, sizeof(sp));

	struct recording_spire_request srq = { .spire_dir = gus_data_dir("spire"), .arch = o->arch,
					       .metrics = o->metrics, .time_event = o->time_event,
					       .work_event = o->work_event, .user_only = o->user_only,
					       .print_events = o->print_events, .opt = "" };
	enum recording_status pst = recording_intervals_prepare(o->spire ? &srq : NULL, &sp, &budget, note,
								sizeof(note), gus_terminal_log());
	if (pst) {
		rc = gus_exit_for(pst);
		goto out;
	}
	if (o->spire && o->print_events) {
		recording_print_spire_command(stdout, o->interval_ms, o->user_only, o->argv, &sp, budget);
		rc = GUS_EXIT_OK;
		goto out;
	}
	if (note[0])
		gus_warn("%s", note);

	struct outfile of;
	if (outfile_open(&of, o->output, stderr))
		goto out;
	/* without --spire, SP is empty: no SPIRE lines */
	struct render_intervals w = { .f = of.f, .fmt = o->fmt, .sep = o->sep, .interval_ms = o->interval_ms,
				     .argv = o->argv, .cmd_argc = o->cmd_argc, .cmd_argv = o->cmd_argv,
				     .spire_cpu = sp.cpu, .spire_time = sp.time_name, .spire_work = sp.work_name,
				     .spire_metrics = sp.n };
	struct recording_interval_request rq = {
		.argv = o->argv, .interval_ms = o->interval_ms, .user_only = o->user_only,
		.spire = o->spire ? &sp : NULL, .budget = budget, .events = o->events,
		.sink = { .ctx = &w, .interval = write_interval }, .log = *gus_terminal_log(),
	};
	struct collect_result res;
	enum recording_status st = recording_count_intervals(&rq, &plan, &res);
	if (st != RECORDING_OK) {
		outfile_close(&of, false);
		rc = gus_exit_for(st);
		goto out;
	}
	int exit_status = collect_exit_code(res.wait_status);
	w.groups = plan.n_groups;
	render_intervals_finish(&w, res.seconds, res.interrupted, exit_status);
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

	struct collect_plan plan = { 0 };
	struct td_countset cs;
	struct merge_run_info run = { .argv = o.argv, .runs = 1 };
	struct recording_stat_tma tma = { 0 };
	int rc = GUS_EXIT_ERROR;
	td_countset_init(&cs);

	if (o.events) {
		bool counted;
		rc = run_counting(&o, NULL, &plan, &cs, &run, &counted);
		if (!counted)
			goto out;
		struct outfile of;
		if (outfile_open(&of, o.output, stderr)) {
			rc = GUS_EXIT_ERROR;
			goto out;
		}
		render_counts(of.f, &cs, &run, o.fmt, o.sep);
		rc = outfile_close(&of, true) ? GUS_EXIT_ERROR : run.exit_status;
		goto out;
	}

	enum recording_status st = recording_stat_tma(gus_tma_dir(), o.arch, !o.print_events, o.level, o.nodes, o.smt,
						      gus_terminal_log(), &tma);
	if (st) {
		rc = gus_exit_for(st);
		goto out;
	}
	if (!o.arch)
		run.cpu = tma.cpu;
	run.smt_on = tma.smt_on;
	if (o.print_events) {
		rc = gus_exit_for(recording_print_tma_command(stdout, &tma, o.argv, o.user_only, gus_terminal_log()));
		goto out;
	}
	if (!tma.use_pfm && !tma.on_core_pmu)
		gus_warn("the %s table is not for this CPU (libpfm4: %s); counting its public encodings as raw events",
			 tma.table->id, tma.pmu);
	if (tma.note[0])
		gus_warn("%s", tma.note);
	bool counted;
	rc = run_counting(&o, &tma, &plan, &cs, &run, &counted);
	if (!counted)
		goto out;
	if (plan.n_groups > 1 && !o.no_multiplex)
		run.notes = " The events did not fit the counters at once: they were multiplexed and\n"
			    " scaled (raw x enabled / running); [mux N%] shows how long a node's\n"
			    " events were counted. --no-multiplex runs the program once per group.\n";
	if (finish_tree(&o, tma.table, tma.select, &cs, &run, stderr))
		rc = GUS_EXIT_ERROR;
	else
		rc = run.exit_status;
out:
	collect_plan_free(&plan);
	td_countset_free(&cs);
	recording_stat_tma_free(&tma);
	collect_pfm_fini();
	return rc;
}
