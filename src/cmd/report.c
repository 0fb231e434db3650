/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report: the options, the report model of a recording (report.h),
 * and the renderer and files it goes to (merge.h). */
#include <errno.h>
#include <glob.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "merge.h"
#include "report.h"
#include "spire.h"

struct report_opts {
	const char *input;
	const char *output;
	const char *svg_dir;
	const char *region;
	const char *arch;
	const char *spire;	/* a SPIRE model */
	enum merge_format fmt;
	char sep;
	bool no_cache;
	bool quiet;
	unsigned threads;
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: gus report [-i gus.data] [--stdio | --csv | --json] [--svg DIR]\n"
		"                  [--region NAME] [--arch NAME] [--spire MODEL] [-o FILE] [--no-cache]\n"
		"\n"
		"The measured Top-Down tree of a recording next to the simulated sensitivity\n"
		"analysis of each hot region, with a verdict comparing them.\n"
		"\n"
		"  -i, --input FILE   the recording (default gus.data)\n"
		"      --stdio        text (default)\n"
		"      --csv          CSV: section,region,kind,name,field,value\n"
		"      --json         JSON\n"
		"      --svg DIR      also write tma.svg and a sensitivity heat-map per region\n"
		"                     into DIR\n"
		"      --region NAME  only this region (a name from the list, or its rank)\n"
		"      --arch NAME    machine model to simulate (default: the recording's)\n"
		"      --spire MODEL  rank the recording's SPIRE interval counts (gus record\n"
		"                     --spire) with a model from gus spire train\n"
		"  -o, --output FILE  write the report to FILE\n"
		"      --no-cache     simulate again instead of using cached results\n"
		"  -j, --threads N    simulation threads (default: the CPUs)\n"
		"  -q, --quiet        no progress on the terminal\n"
		"  -h, --help         this help; 'gus help report' shows the manual\n");
}

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "stdio", no_argument, NULL, 'T' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "svg", required_argument, NULL, 'S' },
		{ "region", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "spire", required_argument, NULL, 'M' },
		{ "no-cache", no_argument, NULL, 'N' },
		{ "threads", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	o->input = "gus.data";
	o->fmt = MERGE_TEXT;
	o->sep = ',';
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:o:j:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case 'T': o->fmt = MERGE_TEXT; break;
		case 'C': o->fmt = MERGE_CSV; break;
		case 'J': o->fmt = MERGE_JSON; break;
		case 'S': o->svg_dir = optarg; break;
		case 'r': o->region = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'M': o->spire = optarg; break;
		case 'N': o->no_cache = true; break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 256)
				return gus_usage_error("report: --threads takes 1 to 256, not '%s'", optarg);
			o->threads = (unsigned)v;
			break;
		}
		case 'q': o->quiet = true; break;
		case 'h':
			report_usage(stdout);
			return -1;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("report: option '-%c' %s", optopt,
						       strchr("ioj", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("report: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return gus_usage_error("report: unexpected argument '%s' (the recording is given with -i)", argv[optind]);
	return 0;
}

static int write_svgs(const struct report_opts *o, const struct merge_report *r)
{
	const char *dir = o->svg_dir;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		gus_error("--svg: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	char path[PATH_MAX];
	if (r->tree) {
		snprintf(path, sizeof path, "%s/tma.svg", dir);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "Measured Top-Down: %s", o->input);
		merge_render_tma_svg(of.f, r->tree, title);
		if (outfile_close(&of, true))
			return -1;
	}
	if (r->spire_model) {
		snprintf(path, sizeof path, "%s/spire.svg", dir);
		size_t k = r->spire_an->n < 6 ? r->spire_an->n : 6;
		const struct spire_roofline *rl[6];
		for (size_t i = 0; i < k; i++)
			rl[i] = r->spire_an->e[i].r;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "SPIRE: the lowest rooflines of %s for %s", o->spire, o->input);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		merge_render_spire_svg(of.f, rl, k, r->spire_ss, r->spire_an, r->spire_info.metrics, title);
		if (outfile_close(&of, true))
			return -1;
	}
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->simulated || !rv->selected)
			continue;
		snprintf(path, sizeof path, "%s/region-%d.svg", dir, rv->rank);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		struct merge_sim_info info;
		char source[PATH_MAX + 400];
		merge_report_sim_info(rv, false, &info, source, sizeof source);
		merge_render_sim_svg(of.f, r->m, rv->an, &info);
		if (outfile_close(&of, true))
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- main --- */
/* the recording is not there: the partial file of a gus record that did
 * not finish, or a hint to record one */
static void hint_missing(const char *input)
{
	char pat[PATH_MAX + 32];
	glob_t g;
	snprintf(pat, sizeof pat, "%s.partial-??????", input);
	if (glob(pat, 0, NULL, &g) == 0) {
		fprintf(stderr, "%s: gus record did not finish %s: what it stored is in %s (gus report -i %s)\n",
			gus_progname, input, g.gl_pathv[g.gl_pathc - 1], g.gl_pathv[g.gl_pathc - 1]);
		globfree(&g);
	} else if (!strcmp(input, "gus.data")) {
		fprintf(stderr, "%s: record one first: gus record -- program args\n", gus_progname);
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	struct gus_progress progress;
	struct report_request rq = {
		.input = o.input, .arch = o.arch, .host_machine = gus_host_machine(), .spire_model = o.spire,
		.region = o.region, .no_cache = o.no_cache, .threads = (int)o.threads, .tma_dir = gus_tma_dir(),
		.machines_dir = gus_data_dir("machines"), .spire_dir = gus_data_dir("spire"),
		.log = gus_progress_log(&progress, "report", o.quiet, true),
	};
	struct report *rep;
	enum recording_status st = report_build(&rq, &rep);
	if (st != RECORDING_OK) {
		if (access(o.input, F_OK) && errno == ENOENT)
			hint_missing(o.input);
		return gus_exit_for(st);
	}
	const struct merge_report *r = report_model(rep);
	rc = GUS_EXIT_ERROR;
	struct outfile of;
	if (outfile_open(&of, o.output, stdout))
		goto out;
	bool colour = o.fmt == MERGE_TEXT && !o.output && isatty(1) && !getenv("NO_COLOR");
	merge_render_report(of.f, r, o.fmt, o.sep, colour);
	if (outfile_close(&of, true))
		goto out;
	if (o.svg_dir && write_svgs(&o, r))
		goto out;
	rc = GUS_EXIT_OK;
out:
	report_free(rep);
	return rc;
}
