/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus stat: count a program (or import perf stat counts) and print the TMA
 * tree, or count arbitrary events with -e. */
#include "config.h"

#include "cmd.h"
#include "collect.h"
#include "merge.h"
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
};

static void stat_usage(FILE *out)
{
	fprintf(out,
		"usage: gus stat [-l 1|2|3] [--nodes LIST] [-u] [-x SEP | --json] [-o FILE]\n"
		"                [--no-multiplex] [--arch ID] -- program [args]\n"
		"       gus stat --import FILE [--arch ID] [--smt on|off] [-l N] [--nodes LIST] [-x SEP | --json]\n"
		"       gus stat --print-events [--arch ID] [-l N] [--nodes LIST] [-- program args]\n"
		"       gus stat -e EVENT[,EVENT...] [-x SEP | --json] [-o FILE] -- program [args]\n\n"
		"  -l, --level N        deepest TMA level shown, 1 to 3 (default 1)\n"
		"      --nodes LIST     also show these nodes (comma separated) with their ancestors\n"
		"  -u, --user           count user space only\n"
		"  -x, --field-separator SEP   CSV output with separator SEP\n"
		"      --json           JSON output\n"
		"  -o, --output FILE    write the result to FILE (default: stderr for a run, as perf)\n"
		"      --no-multiplex   run the program once per event group instead of multiplexing\n"
		"      --arch ID        TMA table to use: clx, skx, icx, spr (default: the CPU's)\n"
		"      --smt on|off     SMT state for --import (default off; live runs detect it)\n"
		"      --import FILE    compute the tree from 'perf stat -x,' output ('-': stdin)\n"
		"      --print-events   print the perf stat command that collects the same events\n"
		"  -e, --events LIST    count these events (libpfm4 or perf software names)\n"
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
		{ "import", required_argument, NULL, 'I' },
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
	opterr = 0;
	optind = 1;
	/* '+': options end at the program's name, as with perf stat */
	while ((c = getopt_long(argc, argv, "+l:ux:o:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (strlen(optarg) != 1 || optarg[0] < '1' || optarg[0] > '3')
				return gus_usage_error("stat: --level takes 1, 2 or 3, not '%s'", optarg);
			o->level = optarg[0] - '0';
			break;
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
		case 'I': o->import = optarg; break;
		case 'e': o->events = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'S':
			if (!strcmp(optarg, "on"))
				o->smt = 1;
			else if (!strcmp(optarg, "off"))
				o->smt = 0;
			else
				return gus_usage_error("stat: --smt takes on or off, not '%s'", optarg);
			break;
		case 'h':
			stat_usage(stdout);
			return -1;
		case '?':
		default:
			if (optopt && optopt != '?')
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
	if (!o->import && !o->print_events && !o->argv[0])
		return gus_usage_error("stat: no program given (gus stat [options] -- program args)");
	return 0;
}

struct td_table *gus_pick_tma_table(const char *arch, struct collect_pmu_info *pmu, bool *have_pmu)
{
	char err[COLLECT_ERRLEN];
	struct td_table *t;
	*have_pmu = false;
	if (collect_pfm_init(err, sizeof(err)) == 0 && collect_detect_pmu(pmu) == 0)
		*have_pmu = true;
	if (arch) {
		t = td_table_load_arch(gus_tma_dir(), arch, err, sizeof(err));
		if (!t)
			gus_error("%s (tables: clx, skx, icx, spr)", err);
		return t;
	}
	if (!*have_pmu) {
		gus_error("libpfm4 does not recognise this CPU's core PMU; name a table with --arch (clx, skx, icx, spr)");
		return NULL;
	}
	t = td_table_load_pmu(gus_tma_dir(), pmu->name, err, sizeof(err));
	if (!t)
		gus_error("%s: this CPU (%s, libpfm4 '%s') has no TMA table; use --arch to pick one",
			  err, pmu->desc, pmu->name);
	return t;
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
	struct td_table *t = gus_pick_tma_table(o->arch, &pmu, &have_pmu);
	if (!t)
		return GUS_EXIT_ERROR;
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

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	int prc = parse_args(argc, argv, &o);
	if (prc)
		return prc < 0 ? GUS_EXIT_OK : prc;
	if (o.import)
		return stat_import(&o);

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
	if (!(t = gus_pick_tma_table(o.arch, &pmu, &have_pmu)))
		goto out;
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
