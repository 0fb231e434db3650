/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus spire: train a statistical roofline ensemble (SPIRE) from interval
 * counts, and apply it to a workload's interval counts. */
#include "config.h"

#include "cmd.h"
#include "collect.h"
#include "merge.h"
#include "render.h"
#include "recording.h"
#include "spire.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spire_opts {
	const char *output;	/* train: the model file; analyze: the report */
	const char *model;
	const char *metrics;
	const char *cpu;
	const char *time_event, *work_event;
	const char *svg;
	enum render_format fmt;
	size_t top;		/* analyze: metrics listed (0: all) */
	size_t svg_top;		/* analyze: rooflines plotted */
	bool quiet;
	char **files;
	size_t nfiles;
};

static void spire_usage(FILE *out)
{
	fprintf(out,
		"usage: gus spire train -o MODEL [--metrics LIST] [--cpu ID] [--time EVENT] [--work EVENT]\n"
		"                       [--svg FILE] [--stdio | --csv | --json] [-q] FILE...\n"
		"       gus spire analyze -m MODEL [--metrics LIST] [--cpu ID] [--top N] [-o FILE]\n"
		"                       [--svg FILE] [--svg-top K] [--stdio | --csv | --json] [-q] FILE...\n"
		"       gus spire show -m MODEL [--stdio | --csv | --json]\n"
		"       gus spire metrics [--cpu ID]\n\n"
		"  FILE is `perf stat -I MS -x,` output (or `gus stat -I MS --spire -x,`), or a\n"
		"  recording made with `gus record --spire`.\n\n"
		"  -o, --output FILE    train: the model to write; analyze: where the report goes (default stdout)\n"
		"  -m, --model FILE     the model to apply or show\n"
		"      --metrics LIST   only these metrics (abbreviations such as DB.2, or event names)\n"
		"      --cpu ID         the CPU the sample files come from when they do not say (libpfm4 name: skx, clx)\n"
		"      --time EVENT     the period event T (default %s)\n"
		"      --work EVENT     the work event W (default %s)\n"
		"      --top N          analyze: metrics listed in the text (default 15; 0: all)\n"
		"      --svg FILE       an SVG plot: train: every roofline with its training samples;\n"
		"                       analyze: the lowest rooflines with the workload's samples\n"
		"      --svg-top K      analyze: rooflines in the plot (default 6)\n"
		"      --stdio, --csv, --json   output format (default text)\n"
		"  -q, --quiet          no progress or summary on stderr\n"
		"  -h, --help           this help; 'gus help spire' shows the manual\n",
		SPIRE_DEFAULT_TIME, SPIRE_DEFAULT_WORK);
}

static int parse_size(const char *opt, const char *s, size_t *v)
{
	unsigned long long x;
	if (gus_parse_uint(opt, s, 0, 100000, &x))
		return GUS_EXIT_USAGE;
	*v = (size_t)x;
	return 0;
}

static int parse_args(int argc, char **argv, struct spire_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "model", required_argument, NULL, 'm' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 'T' },
		{ "work", required_argument, NULL, 'W' },
		{ "top", required_argument, NULL, 't' },
		{ "svg", required_argument, NULL, 'g' },
		{ "svg-top", required_argument, NULL, 'k' },
		{ "stdio", no_argument, NULL, 'S' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	memset(o, 0, sizeof(*o));
	o->fmt = RENDER_TEXT;
	o->top = 15;
	o->svg_top = 6;
	opterr = 0;
	optind = 1;
	while ((c = gus_getopt(argc, argv, "o:m:qh", longopts, "spire")) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'm': o->model = optarg; break;
		case 'M': o->metrics = optarg; break;
		case 'c': o->cpu = optarg; break;
		case 'T': o->time_event = optarg; break;
		case 'W': o->work_event = optarg; break;
		case 't':
			if (parse_size(gus_optname(), optarg, &o->top))
				return GUS_EXIT_USAGE;
			break;
		case 'g': o->svg = optarg; break;
		case 'k':
			if (parse_size(gus_optname(), optarg, &o->svg_top))
				return GUS_EXIT_USAGE;
			if (!o->svg_top)
				return gus_usage_error("spire: --svg-top takes at least 1");
			break;
		case 'S': o->fmt = RENDER_TEXT; break;
		case 'C': o->fmt = RENDER_CSV; break;
		case 'J': o->fmt = RENDER_JSON; break;
		case 'q': o->quiet = true; break;
		case 'h':
			spire_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		case '?':
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("spire: unknown option '-%c' or missing argument", optopt);
			return gus_usage_error("spire: unknown option '%s' or missing argument", argv[optind - 1]);
		}
	}
	o->files = argv + optind;
	o->nfiles = (size_t)(argc - optind);
	return 0;
}

/* ------------------------------------------------------------- inputs --- */
static void report_skips(const struct spire_sampleset *ss)
{
	const struct spire_skips *k = &ss->skips;
	struct {
		size_t n;
		const char *what;
	} s[] = {
		{ k->zero_t, "with T = 0" },
		{ k->zero_w, "with W = 0 (no work done in the period)" },
		{ k->not_counted, "not counted in their interval (multiplexing left them out)" },
		{ k->no_group, "in a group without T or W (put T and W in every event group)" },
		{ k->bad_value, "with a negative, NaN or infinite count" },
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (s[i].n)
			gus_warn("%zu sample%s %s left out", s[i].n, s[i].n == 1 ? "" : "s", s[i].what);
	if (k->not_simultaneous)
		gus_warn("%zu sample%s counted over another time than T and W (no event group): kept, scaled",
			 k->not_simultaneous, k->not_simultaneous == 1 ? "" : "s");
	if (k->intervals_without_tw)
		gus_warn("%zu interval%s without T or W left out", k->intervals_without_tw,
			 k->intervals_without_tw == 1 ? "" : "s");
}

static void train_skip(void *ctx, const char *metric, const char *why)
{
	const struct spire_opts *o = ctx;
	if (!o->quiet)
		gus_warn("metric %s left out: %s", metric, why);
}

static int write_svg(const char *path, const struct spire_roofline *const *r, size_t n,
		     const struct spire_sampleset *ss, const struct spire_analysis *a,
		     const struct spire_metricset *set, const char *title)
{
	struct outfile of;
	if (outfile_open(&of, path, NULL))
		return -1;
	render_spire_svg(of.f, r, n, ss, a, set, title);
	return outfile_close(&of, true);
}

static int spire_train_cmd(const struct spire_opts *o)
{
	char err[SPIRE_ERRLEN];
	if (!o->output)
		return gus_usage_error("spire train: -o MODEL is required");
	if (!o->nfiles)
		return gus_usage_error("spire train: no sample files given");
	struct spire_sampleset ss;
	struct spire_model m = { 0 };
	struct spire_metricset *set = NULL;
	char **keys = NULL;
	size_t nkeys = 0, skipped = 0;
	int rc = GUS_EXIT_ERROR;
	char time[512], work[512];
	recording_spire_first_tw(o->files[0], time, work, sizeof time);
	if (spire_sampleset_init(&ss, o->time_event ? o->time_event : time[0] ? time : NULL,
				 o->work_event ? o->work_event : work[0] ? work : NULL))
		return GUS_EXIT_ERROR;
	if (recording_spire_load((const char *const *)o->files, o->nfiles, o->cpu, &ss, gus_terminal_log()))
		goto out;
	set = spire_metricset_for(gus_data_dir("spire"), ss.cpu);
	if (o->metrics && !(keys = spire_metric_keys(o->metrics, set, &nkeys))) {
		gus_error("out of memory");
		goto out;
	}
	if (!o->quiet)
		report_skips(&ss);
	if (!ss.cpu && !o->quiet)
		gus_warn("the samples do not say which CPU they come from: the model's CPU is unknown "
			 "(--cpu ID names it)");
	if (spire_train(&ss, (const char *const *)keys, nkeys, &m, &skipped, train_skip, (void *)o, err,
			sizeof(err))) {
		gus_error("%s", err);
		goto out;
	}
	m.n_files = o->nfiles;
	struct outfile of;
	if (outfile_open(&of, o->output, NULL))
		goto out;
	/* the writer flushes: a failure's errno is the flush's, kept for
	 * outfile_close's message */
	errno = 0;
	if (spire_model_write(of.f, &m))
		of.write_errno = errno ? errno : EIO;
	if (outfile_close(&of, !of.write_errno))
		goto out;
	if (o->svg) {
		const struct spire_roofline **r = malloc((m.n ? m.n : 1) * sizeof(*r));
		if (!r)
			goto out;
		for (size_t i = 0; i < m.n; i++)
			r[i] = &m.r[i];
		char title[512];
		snprintf(title, sizeof title, "SPIRE model %s: %zu rooflines, %zu training samples", o->output, m.n,
			 m.n_samples);
		int w = write_svg(o->svg, r, m.n, &ss, NULL, set, title);
		free(r);
		if (w)
			goto out;
	}
	if (o->fmt != RENDER_TEXT || !o->quiet)
		render_spire_model(stdout, &m, set, o->fmt);
	if (!o->quiet)
		fprintf(stderr, "gus spire: %zu roofline%s from %zu samples in %zu file%s written to %s%s\n", m.n,
			m.n == 1 ? "" : "s", m.n_samples, o->nfiles, o->nfiles == 1 ? "" : "s", o->output,
			skipped ? " (some metrics left out: see above)" : "");
	rc = gus_flush_std(stdout) ? GUS_EXIT_ERROR : GUS_EXIT_OK;
out:
	spire_metric_keys_free(keys, nkeys);
	spire_metricset_free(set);
	spire_model_free(&m);
	spire_sampleset_free(&ss);
	return rc;
}

static int load_model(const char *path, struct spire_model *m)
{
	char err[SPIRE_ERRLEN];
	FILE *f = fopen(path, "r");
	if (!f) {
		gus_error("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = spire_model_read(f, path, m, err, sizeof(err));
	fclose(f);
	if (rc)
		gus_error("%s", err);
	return rc;
}

static int spire_analyze_cmd(const struct spire_opts *o)
{
	if (!o->model)
		return gus_usage_error("spire analyze: -m MODEL is required");
	if (!o->nfiles)
		return gus_usage_error("spire analyze: no sample files given");
	struct spire_model m = { 0 };
	struct spire_sampleset ss;
	struct spire_analysis a = { 0 };
	struct spire_metricset *set = NULL;
	char **keys = NULL;
	size_t nkeys = 0;
	int rc = GUS_EXIT_ERROR;
	bool have_ss = false, have_a = false;
	if (load_model(o->model, &m))
		goto out;
	/* the workload's T and W are the model's unless named */
	if (spire_sampleset_init(&ss, o->time_event ? o->time_event : m.time_event,
				 o->work_event ? o->work_event : m.work_event))
		goto out;
	have_ss = true;
	if (recording_spire_load((const char *const *)o->files, o->nfiles, o->cpu, &ss, gus_terminal_log()))
		goto out;
	set = spire_metricset_for(gus_data_dir("spire"), m.cpu ? m.cpu : ss.cpu);
	if (o->metrics) {
		if (!(keys = spire_metric_keys(o->metrics, set, &nkeys))) {
			gus_error("out of memory");
			goto out;
		}
		spire_sampleset_keep(&ss, (const char *const *)keys, nkeys);
	}
	if (!o->quiet)
		report_skips(&ss);
	char note[512], err[SPIRE_ERRLEN];
	if (spire_analyze_for_cpu(&m, &ss, &a, note, sizeof(note), err, sizeof(err))) {
		gus_error("%s", err);
		goto out;
	}
	have_a = true;
	if (note[0] && !o->quiet)
		gus_warn("%s", note);
	struct merge_spire_info info = {
		.model_path = o->model,
		.inputs = (const char *const *)o->files,
		.n_inputs = o->nfiles,
		.metrics = set,
		.top = o->top,
		.cpu_note = note[0] ? note : NULL,
	};
	struct outfile of;
	if (outfile_open(&of, o->output, stdout))
		goto out;
	render_spire(of.f, &m, &a, &ss, &info, o->fmt);
	if (outfile_close(&of, true))
		goto out;
	if (o->svg) {
		size_t k = a.n < o->svg_top ? a.n : o->svg_top;
		const struct spire_roofline **r = malloc((k ? k : 1) * sizeof(*r));
		if (!r)
			goto out;
		for (size_t i = 0; i < k; i++)
			r[i] = a.e[i].r;
		char title[512];
		snprintf(title, sizeof title, "SPIRE: the %zu lowest rooflines of %s", k, o->model);
		int w = write_svg(o->svg, r, k, &ss, &a, set, title);
		free(r);
		if (w)
			goto out;
	}
	rc = GUS_EXIT_OK;
out:
	spire_metric_keys_free(keys, nkeys);
	spire_metricset_free(set);
	if (have_a)
		spire_analysis_free(&a);
	if (have_ss)
		spire_sampleset_free(&ss);
	spire_model_free(&m);
	return rc;
}

static int spire_show_cmd(const struct spire_opts *o)
{
	if (!o->model)
		return gus_usage_error("spire show: -m MODEL is required");
	if (o->nfiles)
		return gus_usage_error("spire show: takes no sample files");
	struct spire_model m = { 0 };
	if (load_model(o->model, &m))
		return GUS_EXIT_ERROR;
	struct spire_metricset *set = spire_metricset_for(gus_data_dir("spire"), m.cpu);
	render_spire_model(stdout, &m, set, o->fmt);
	spire_metricset_free(set);
	spire_model_free(&m);
	return gus_flush_std(stdout) ? GUS_EXIT_ERROR : GUS_EXIT_OK;
}

static int spire_metrics_cmd(const struct spire_opts *o)
{
	char err[SPIRE_ERRLEN];
	const char *cpu = o->cpu;
	char detected[64] = "";
	if (!cpu) {
		if (collect_pmu_name(detected, sizeof detected)) {
			gus_error("libpfm4 does not recognise this CPU; name one with --cpu (skx, clx)");
			return GUS_EXIT_ERROR;
		}
		cpu = detected;
	}
	struct spire_metricset *set = spire_metricset_load(gus_data_dir("spire"), cpu, err, sizeof(err));
	if (!set) {
		gus_error("%s", err);
		return GUS_EXIT_ERROR;
	}
	render_spire_metricset(stdout, set);
	spire_metricset_free(set);
	return gus_flush_std(stdout) ? GUS_EXIT_ERROR : GUS_EXIT_OK;
}

int cmd_spire(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		spire_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GUS_EXIT_USAGE : GUS_EXIT_OK;
	}
	const char *sub = argv[1];
	struct spire_opts o;
	int prc = parse_args(argc - 1, argv + 1, &o);
	if (prc)
		return prc < 0 ? GUS_EXIT_OK : prc;
	if (!strcmp(sub, "train"))
		return spire_train_cmd(&o);
	if (!strcmp(sub, "analyze") || !strcmp(sub, "analyse"))
		return spire_analyze_cmd(&o);
	if (!strcmp(sub, "show"))
		return spire_show_cmd(&o);
	if (!strcmp(sub, "metrics"))
		return spire_metrics_cmd(&o);
	return gus_usage_error("spire: unknown subcommand '%s' (train, analyze, show, metrics)", sub);
}
