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
#include "render.h"
#include "report.h"
#include "spire.h"

struct report_opts {
	const char *input;
	const char *output;
	const char *svg_dir;
	const char *html;	/* --html FILE */
	const char *pprof;	/* --pprof FILE */
	const char *folded;	/* --folded FILE */
	const char *region;
	const char *arch;
	const char *spire;	/* a SPIRE model */
	enum render_format fmt;
	char sep;
	bool no_cache;
	bool quiet;
	unsigned threads;
	double percent_limit;	/* details of the regions at this share or more */
	bool all;		/* details of every region */
};

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: gus report [-i gus.data] [--stdio | --csv | --json] [--svg DIR] [--html FILE]\n"
		"                  [--pprof FILE] [--folded FILE] [--percent-limit N | --all]\n"
		"                  [--region NAME] [--arch NAME] [--spire MODEL] [-o FILE] [--no-cache]\n"
		"\n"
		"The measured Top-Down tree of a recording next to the simulated sensitivity\n"
		"analysis of each hot region, with a verdict comparing them.\n"
		"\n"
		"  -i, --input FILE   the recording (default gus.data), or a perf.data of perf\n"
		"                     record (imported on the fly, see gus import; '-': one\n"
		"                     in pipe mode on the standard input, perf record -o -)\n"
		"      --stdio        text (default)\n"
		"      --csv          CSV: section,region,kind,name,field,value\n"
		"      --json         JSON\n"
		"      --svg DIR      also write tma.svg and a sensitivity heat-map per region\n"
		"                     into DIR\n"
		"      --html FILE    also write the report as one self-contained HTML page\n"
		"      --pprof FILE   also write the samples' call stacks as a gzipped pprof\n"
		"                     profile (go tool pprof, Parca, Pyroscope, Grafana), each\n"
		"                     hot region's Top-Down and verdict as labels\n"
		"      --folded FILE  also write them as folded stacks (flamegraph.pl,\n"
		"                     speedscope)\n"
		"      --percent-limit N  the details of the regions with N %% of the time or\n"
		"                     more (default 5; the table lists them all)\n"
		"      --all          the details of every region\n"
		"      --region NAME  only this region, with its per-instruction table (a name\n"
		"                     from the list, or its rank)\n"
		"      --arch NAME    machine model to simulate (default: the recording's)\n"
		"      --spire MODEL  rank the recording's SPIRE interval counts (gus record\n"
		"                     --spire) with a model from gus spire train\n"
		"  -o, --output FILE  write the report to FILE\n"
		"      --no-cache     simulate again instead of using cached results\n"
		"  -j, --threads N    regions and threads simulated side by side (default: the\n"
		"                     CPUs gus may run on)\n"
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
		{ "html", required_argument, NULL, 'H' },
		{ "pprof", required_argument, NULL, 'P' },
		{ "folded", required_argument, NULL, 'F' },
		{ "region", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "spire", required_argument, NULL, 'M' },
		{ "no-cache", no_argument, NULL, 'N' },
		{ "percent-limit", required_argument, NULL, 'L' },
		{ "all", no_argument, NULL, 'A' },
		{ "threads", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	o->input = "gus.data";
	o->fmt = RENDER_TEXT;
	o->sep = ',';
	o->percent_limit = 5;
	bool limit_given = false;
	int c;
	opterr = 0;
	while ((c = gus_getopt(argc, argv, "i:o:j:qh", longopts, "report")) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case 'T': o->fmt = RENDER_TEXT; break;
		case 'C': o->fmt = RENDER_CSV; break;
		case 'J': o->fmt = RENDER_JSON; break;
		case 'S': o->svg_dir = optarg; break;
		case 'H': o->html = optarg; break;
		case 'P': o->pprof = optarg; break;
		case 'F': o->folded = optarg; break;
		case 'r': o->region = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'M': o->spire = optarg; break;
		case 'N': o->no_cache = true; break;
		case 'L':
			if (gus_parse_real(gus_optname(), optarg, 0, 100, &o->percent_limit))
				return GUS_EXIT_USAGE;
			limit_given = true;
			break;
		case 'A': o->all = true; break;
		case 'j':
			if (gus_parse_unsigned(gus_optname(), optarg, 1, 256, &o->threads))
				return GUS_EXIT_USAGE;
			break;
		case 'q': o->quiet = true; break;
		case 'h':
			report_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("report: option '-%c' %s", optopt,
						       strchr("ioj", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("report: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return gus_usage_error("report: unexpected argument '%s' (the recording is given with -i)", argv[optind]);
	if (o->all && limit_given)
		return gus_usage_error("report: give --all or --percent-limit, not both");
	return 0;
}

/* What --svg DIR has of this run: the files landed there, and whether
 * the directory is this run's, so that a failure takes back exactly that
 * (gus may run as root: nothing it did not create is removed). */
struct svg_out {
	const char *dir;
	bool made_dir;
	char **landed;
	size_t nlanded;
};

/* DIR/NAME into PATH; -1 with a message when it does not fit */
static int svg_path(const struct svg_out *so, char *path, size_t len, const char *name)
{
	if ((size_t)snprintf(path, len, "%s/%s", so->dir, name) >= len) {
		gus_error("--svg: %s/%s: the path is too long", so->dir, name);
		return -1;
	}
	return 0;
}

/* closes OF, and remembers its file when it landed */
static int svg_close(struct svg_out *so, struct outfile *of, const char *path)
{
	if (outfile_close(of, true))
		return -1;
	char **l = realloc(so->landed, (so->nlanded + 1) * sizeof *l);
	char *p = strdup(path);
	if (!l || !p) {
		free(p);
		if (l)
			so->landed = l;
		gus_error("--svg: out of memory");
		unlink(path);
		return -1;
	}
	so->landed = l;
	so->landed[so->nlanded++] = p;
	return 0;
}

static void svg_undo(struct svg_out *so)
{
	for (size_t i = 0; i < so->nlanded; i++)
		unlink(so->landed[i]);
	/* rmdir removes only an empty directory: one someone else wrote into
	 * meanwhile stays */
	if (so->made_dir && rmdir(so->dir) == 0)
		gus_error("--svg: %s removed: not all of its SVG files could be written", so->dir);
	else if (so->nlanded)
		gus_error("--svg: the %zu SVG file%s written to %s before the failure removed", so->nlanded,
			  so->nlanded == 1 ? "" : "s", so->dir);
}

static int write_svg_files(const struct report_opts *o, const struct merge_report *r, struct svg_out *so)
{
	char path[PATH_MAX];
	struct outfile of;
	if (r->tree) {
		if (svg_path(so, path, sizeof path, "tma.svg") || outfile_open(&of, path, NULL))
			return -1;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "Measured Top-Down: %s", o->input);
		render_tma_svg(of.f, r->tree, title);
		if (svg_close(so, &of, path))
			return -1;
	}
	if (r->spire_model) {
		size_t k = r->spire_an->n < 6 ? r->spire_an->n : 6;
		const struct spire_roofline *rl[6];
		for (size_t i = 0; i < k; i++)
			rl[i] = r->spire_an->e[i].r;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "SPIRE: the lowest rooflines of %s for %s", o->spire, o->input);
		if (svg_path(so, path, sizeof path, "spire.svg") || outfile_open(&of, path, NULL))
			return -1;
		render_spire_svg(of.f, rl, k, r->spire_ss, r->spire_an, r->spire_info.metrics, title);
		if (svg_close(so, &of, path))
			return -1;
	}
	for (size_t i = 0; i < r->nregions; i++) {
		const struct merge_report_region *rv = &r->regions[i];
		if (!rv->simulated || !rv->selected)
			continue;
		char name[64];
		snprintf(name, sizeof name, "region-%d.svg", rv->rank);
		if (svg_path(so, path, sizeof path, name) || outfile_open(&of, path, NULL))
			return -1;
		struct render_sim_info info;
		char source[PATH_MAX + 400];
		render_report_sim_info(rv, false, &info, source, sizeof source);
		render_sim_svg(of.f, r->m, rv->an, &info);
		if (svg_close(so, &of, path))
			return -1;
	}
	return 0;
}

static int write_svgs(const struct report_opts *o, const struct merge_report *r)
{
	struct svg_out so = { .dir = o->svg_dir };
	if (mkdir(so.dir, 0777) == 0)
		so.made_dir = true;
	else if (errno != EEXIST) {
		gus_error("--svg: cannot create %s: %s", so.dir, strerror(errno));
		return -1;
	}
	int rc = write_svg_files(o, r, &so);
	if (rc)
		svg_undo(&so);
	for (size_t i = 0; i < so.nlanded; i++)
		free(so.landed[i]);
	free(so.landed);
	return rc;
}

/* --pprof FILE, --folded FILE: the call stacks, landed whole or not at all */
static int write_stacks(const char *path, const char *option,
			int (*render)(FILE *out, const struct merge_report *r, char *err, size_t errlen),
			const struct merge_report *r)
{
	char err[1024];
	struct outfile of;
	if (outfile_open(&of, path, NULL))
		return -1;
	if (render(of.f, r, err, sizeof err)) {
		gus_error("%s %s: %s; nothing was written", option, path, err);
		outfile_close(&of, false);
		return -1;
	}
	return outfile_close(&of, true);
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
	/* before the simulations: a path the page or the exports may not go
	 * to is said now */
	if ((o.html && outfile_check(o.html)) || (o.pprof && outfile_check(o.pprof)) ||
	    (o.folded && outfile_check(o.folded)))
		return GUS_EXIT_ERROR;
	struct gus_progress progress;
	struct report_request rq = {
		.input = o.input, .arch = o.arch, .host_machine = gus_host_machine(), .spire_model = o.spire,
		.region = o.region, .percent_limit = o.percent_limit, .all = o.all, .no_cache = o.no_cache,
		.stacks = o.pprof || o.folded, .threads = (int)o.threads, .tma_dir = gus_tma_dir(),
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
	bool colour = o.fmt == RENDER_TEXT && !o.output && isatty(1) && !getenv("NO_COLOR");
	if (o.fmt == RENDER_JSON)
		render_report_json(of.f, r);
	else if (o.fmt == RENDER_CSV)
		render_report_csv(of.f, r, o.sep);
	else
		render_report_text(of.f, r, colour);
	if (outfile_close(&of, true))
		goto out;
	if ((o.pprof && write_stacks(o.pprof, "--pprof", render_pprof, r)) ||
	    (o.folded && write_stacks(o.folded, "--folded", render_folded, r)))
		goto out;
	if (o.svg_dir && write_svgs(&o, r))
		goto out;
	if (o.html) {
		/* written beside and renamed into place: never a partial page */
		if (outfile_open(&of, o.html, NULL))
			goto out;
		render_html_report(of.f, r);
		if (outfile_close(&of, true))
			goto out;
	}
	rc = GUS_EXIT_OK;
out:
	report_free(rep);
	return rc;
}
