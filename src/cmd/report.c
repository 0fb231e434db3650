/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus report: a recording's measured Top-Down tree next to the simulated
 * sensitivity analysis of each hot region, with a verdict that compares
 * them. Simulations are cached in the recording, so a second report only
 * reads. */
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
#include "gusdata.h"
#include "ipt.h"
#include "merge.h"
#include "recording.h"
#include "sim.h"
#include "simrun.h"
#include "spire.h"
#include "topdown.h"

/* bumped whenever the model or the cached layout changes what a cached
 * result would say */
#define REPORT_CACHE_VERSION 1
#define MAX_REGIONS 100

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

/* ------------------------------------------------------------ the data --- */
struct region_view {
	struct gusdata_region r;	/* strings below */
	char kind[16], name[320], file[PATH_MAX];
	/* the simulation */
	bool simulated, from_cache;
	struct sim_code *code;
	struct sim_analysis an;
	char *stream;
	char why_no_model[PATH_MAX + 1200];
	struct merge_verdict verdict;
	char source[PATH_MAX + 64];	/* file:line of its first instruction */
	char stream_note[128];		/* what is wrong with its stream (damaged chunks) */
};

struct report {
	struct report_opts *o;
	struct gusdata *d;
	bool writable;
	/* measured */
	struct td_table *table;
	struct td_tree tree;
	bool have_tree;
	char why_no_measure[1024];
	bool multiplexed;
	/* simulated */
	struct sim_machine *m;
	double *weights;
	size_t nweights;
	/* regions */
	struct region_view *rv;
	size_t nrv;
	/* the trace */
	char exe[PATH_MAX];
	char tracer[16];
	uint64_t trace_records;
	uint64_t samples;	/* stored, whatever the meta says */
	bool damage_said;
	char stage[16];		/* record.stage of a recording gus record did not finish, else "" */
	uint64_t bias;		/* runtime - link-time address of the program in the trace */
	bool have_bias;
	/* source lines */
	struct merge_srclines *lines;
	char lines_file[PATH_MAX];
	bool lines_said;
	bool progress_tty;
	/* SPIRE */
	struct spire_model spire_model;
	struct spire_sampleset spire_ss;
	struct spire_analysis spire_an;
	struct spire_metricset *spire_set;
	bool have_spire_model, have_spire_ss, have_spire;
	char why_no_spire[512];
	char spire_note[512];
};

static const char *meta_or(struct gusdata *d, const char *key, char *buf, size_t n, const char *dflt)
{
	const char *v = gusdata_meta(d, key);
	snprintf(buf, n, "%s", v ? v : dflt);
	return buf;
}

/* What a recording lacks and why: the reason gus record stored, or, for a
 * recording it did not finish (killed), what its stage implies. "missing.X"
 * keys; false when nothing is missing. */
static bool missing_fact(struct report *rp, const char *key, char *buf, size_t n)
{
	const char *v = gusdata_meta(rp->d, key);
	if (v) {
		snprintf(buf, n, "%s", v);
		return true;
	}
	if (!rp->stage[0])
		return false;
	bool first_run = !strcmp(rp->stage, "sampling");
	bool before_trace = first_run || !strcmp(rp->stage, "regions") || !strcmp(rp->stage, "spire");
	if (!strcmp(key, "missing.regions") && first_run && !rp->nrv)
		snprintf(buf, n, "gus record was stopped during the first run, before it chose the hot regions "
			 "(%llu samples stored)", (unsigned long long)rp->samples);
	else if (!strcmp(key, "missing.counts") && first_run)
		snprintf(buf, n, "gus record was stopped during the first run, before the counts were stored");
	else if (!strcmp(key, "missing.trace") && before_trace)
		snprintf(buf, n, "gus record was stopped before the trace run");
	else if (!strcmp(key, "missing.trace") && !rp->trace_records && !strcmp(rp->tracer, "qemu"))
		snprintf(buf, n, "gus record was stopped during the trace run, before it stored a record");
	else
		return false;
	return true;
}

/* The sentence for a recording gus record did not finish. */
static void describe_cut(struct report *rp, char *buf, size_t n)
{
	if (!strcmp(rp->stage, "sampling"))
		snprintf(buf, n, "gus record did not finish (killed, or a write failed) during the first run: %llu samples stored; no hot "
			 "regions, counts or trace", (unsigned long long)rp->samples);
	else if (!strcmp(rp->stage, "regions"))
		snprintf(buf, n, "gus record did not finish (killed, or a write failed) while choosing the hot regions, after the first "
			 "run (%llu samples)", (unsigned long long)rp->samples);
	else if (!strcmp(rp->stage, "spire"))
		snprintf(buf, n, "gus record did not finish (killed, or a write failed) during the SPIRE run: the first run (%llu samples) "
			 "and the hot regions are complete; no trace", (unsigned long long)rp->samples);
	else if (!strcmp(rp->stage, "tracing"))
		snprintf(buf, n, "gus record did not finish (killed, or a write failed) during the trace run: the first run (%llu samples) "
			 "and the hot regions are complete; the trace holds what was stored before (%llu records)",
			 (unsigned long long)rp->samples, (unsigned long long)rp->trace_records);
	else
		snprintf(buf, n, "gus record was stopped or failed: parts are missing");
}

static void report_progress(struct report *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_progress(struct report *rp, const char *fmt, ...)
{
	if (rp->o->quiet || !rp->progress_tty)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "\r\033[K[ gus report: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " ]");
	va_end(ap);
	fflush(stderr);
}

static void report_progress_end(struct report *rp)
{
	if (!rp->o->quiet && rp->progress_tty) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

/* ----------------------------------------------------------- measured --- */
static int add_count(void *ctx, const struct gusdata_count *c)
{
	struct td_countset *cs = ctx;
	if (c->uncounted)
		return td_countset_add_uncounted(cs, c->event, c->uncounted);
	return td_countset_add(cs, c->event, c->value, c->enabled, c->running);
}

static void load_measured(struct report *rp)
{
	char buf[1024], err[TD_ERRLEN];
	struct gusdata *d = rp->d;
	struct td_countset cs;
	td_countset_init(&cs);
	if (gusdata_foreach_count(d, add_count, &cs)) {
		snprintf(rp->why_no_measure, sizeof rp->why_no_measure, "the count set cannot be read: %s",
			 gusdata_errmsg(d));
		goto out;
	}
	if (!cs.n) {
		if (!missing_fact(rp, "missing.counts", rp->why_no_measure, sizeof rp->why_no_measure))
			snprintf(rp->why_no_measure, sizeof rp->why_no_measure, "the recording has no count set");
		goto out;
	}
	const char *id = meta_or(d, "tma.table", buf, sizeof buf, "");
	if (!*id) {
		snprintf(rp->why_no_measure, sizeof rp->why_no_measure, "the recording names no TMA table");
		goto out;
	}
	if (!(rp->table = td_table_load_arch(gus_tma_dir(), id, err, sizeof err))) {
		snprintf(rp->why_no_measure, sizeof rp->why_no_measure, "%s", err);
		goto out;
	}
	uint64_t level = 3;
	gusdata_meta_u64(d, "tma.level", &level);
	bool smt = !strcmp(meta_or(d, "tma.smt", buf, sizeof buf, "off"), "on");
	bool *sel = td_select_nodes(rp->table, (int)(level >= 1 && level <= 3 ? level : 3), NULL, err, sizeof err);
	struct td_eval_opts eo = { .max_level = (int)(level >= 1 && level <= 3 ? level : 3), .smt_on = smt, .select = sel };
	if (!sel || td_eval(rp->table, &cs, &eo, &rp->tree, err, sizeof err)) {
		snprintf(rp->why_no_measure, sizeof rp->why_no_measure, "%s", sel ? err : "out of memory");
		free(sel);
		goto out;
	}
	free(sel);
	rp->have_tree = true;
	for (size_t i = 0; i < cs.n; i++)
		if (cs.c[i].counted && cs.c[i].running > 0 && cs.c[i].running < cs.c[i].enabled * 0.999)
			rp->multiplexed = true;
out:
	td_countset_free(&cs);
}

/* -------------------------------------------------------------- SPIRE --- */
/* -1 (printed) on a bad model or one for another CPU: those are the
 * user's input; a recording without interval counts only says why. */
static int load_spire(struct report *rp)
{
	char err[SPIRE_ERRLEN];
	const char *path = rp->o->spire;
	FILE *f = fopen(path, "r");
	if (!f) {
		gus_error("--spire: cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = spire_model_read(f, path, &rp->spire_model, err, sizeof err);
	fclose(f);
	if (rc) {
		gus_error("%s", err);
		return -1;
	}
	rp->have_spire_model = true;
	if (spire_sampleset_init(&rp->spire_ss, rp->spire_model.time_event, rp->spire_model.work_event))
		return -1;
	rp->have_spire_ss = true;
	if (!gusdata_meta(rp->d, "spire.time")) {
		snprintf(rp->why_no_spire, sizeof rp->why_no_spire, "%s",
			 gusdata_meta(rp->d, "missing.spire")
				 ? gusdata_meta(rp->d, "missing.spire")
				 : "the recording has no SPIRE interval counts (gus record --spire, or "
				   "--import-intervals FILE)");
		return 0;
	}
	if (recording_spire_samples(rp->d, &rp->spire_ss, err, sizeof err)) {
		gus_error("%s", err);
		return -1;
	}
	bool any = false;
	for (size_t i = 0; i < rp->spire_ss.n && !any; i++)
		any = rp->spire_ss.metrics[i].n > 0;
	if (!any) {
		snprintf(rp->why_no_spire, sizeof rp->why_no_spire,
			 "no usable SPIRE sample in the recording (every metric needs T and W in its group)");
		return 0;
	}
	if (spire_analyze_for_cpu(&rp->spire_model, &rp->spire_ss, &rp->spire_an, rp->spire_note, sizeof rp->spire_note,
				  err, sizeof err)) {
		gus_error("%s", err);
		return -1;
	}
	rp->have_spire = true;
	rp->spire_set = spire_metricset_load(gus_data_dir("spire"),
					     rp->spire_model.cpu ? rp->spire_model.cpu : "", err, sizeof err);
	if (rp->spire_note[0])
		gus_warn("%s", rp->spire_note);
	return 0;
}

static void spire_info(const struct report *rp, struct merge_spire_info *info, bool section, int indent)
{
	static const char *inputs[1];
	inputs[0] = rp->o->input;
	*info = (struct merge_spire_info){
		.model_path = rp->o->spire,
		.inputs = inputs,
		.n_inputs = 1,
		.metrics = rp->spire_set,
		.top = 15,
		.cpu_note = rp->spire_note[0] ? rp->spire_note : NULL,
		.section = section,
		.json_indent = indent,
	};
}

/* ------------------------------------------------------------ regions --- */
static int add_region(void *ctx, const struct gusdata_region *g)
{
	struct report *rp = ctx;
	if (rp->nrv == MAX_REGIONS)
		return 0;
	struct region_view *v = &rp->rv[rp->nrv++];
	memset(v, 0, sizeof *v);
	v->r = *g;
	snprintf(v->kind, sizeof v->kind, "%s", g->kind);
	snprintf(v->name, sizeof v->name, "%s", g->name);
	snprintf(v->file, sizeof v->file, "%s", g->file);
	v->r.kind = v->kind;
	v->r.name = v->name;
	v->r.file = v->file;
	return 0;
}

/* --region: a rank, an exact name, or a function name matching its
 * region and its loops */
static bool region_selected(const struct report *rp, const struct region_view *v)
{
	const char *want = rp->o->region;
	if (!want)
		return true;
	char *end;
	long rank = strtol(want, &end, 10);
	if (end != want && !*end)
		return rank == v->r.rank;
	if (!strcmp(v->name, want))
		return true;
	size_t n = strlen(want);
	return !strncmp(v->name, want, n) && v->name[n] == ' ';
}

/* ------------------------------------------------------- source lines --- */
static bool srcline_of(void *ctx, uint64_t addr, char *buf, size_t n)
{
	struct report *rp = ctx;
	if (!rp->lines)
		return false;
	const char *file;
	int line;
	if (!merge_srcline(rp->lines, addr - (rp->have_bias ? rp->bias : 0), &file, &line))
		return false;
	const char *base = strrchr(file, '/');
	snprintf(buf, n, "%s:%d", base ? base + 1 : file, line);
	return true;
}

static void open_lines(struct report *rp, const char *file)
{
	if (rp->lines && !strcmp(rp->lines_file, file))
		return;
	merge_srclines_free(rp->lines);
	rp->lines = NULL;
	char err[512];
	snprintf(rp->lines_file, sizeof rp->lines_file, "%s", file);
	rp->lines = merge_srclines_open(file, err, sizeof err);
	/* libraries usually come without debug information: only the
	 * program's own lack of it is worth saying */
	if (!rp->lines_said && !strcmp(file, rp->exe) && (!rp->lines || !merge_srclines_have_lines(rp->lines))) {
		gus_warn("%s: no debug information: addresses and symbols only", rp->lines ? file : err);
		rp->lines_said = true;
	}
	if (rp->lines && !merge_srclines_have_lines(rp->lines)) {
		merge_srclines_free(rp->lines);
		rp->lines = NULL;
	}
}

/* ---------------------------------------------------------- simulated --- */
static int pt_bias_of(void *ctx, const struct gusdata_mmap *m)
{
	struct report *rp = ctx;
	if (rp->have_bias || !(m->prot & PROT_EXEC) || strcmp(m->filename, rp->exe))
		return 0;
	char err[256];
	if (!merge_elf_load_bias(m->filename, m->start, m->pgoff, &rp->bias, err, sizeof err))
		rp->have_bias = true;
	return 0;
}

static void cache_key(const struct report *rp, const struct region_view *v, char *key, size_t n)
{
	snprintf(key, n, "sim/v%d/%s/region%lld/w%.3f-%.3f-%zu", REPORT_CACHE_VERSION, sim_machine_name(rp->m),
		 (long long)v->r.id, rp->weights[0], rp->weights[rp->nweights - 1], rp->nweights);
}

static int gather_stream(struct report *rp, struct region_view *v, struct simrun_collect *tc)
{
	char err[1024];
	if (!strcmp(rp->tracer, "qemu")) {
		tc->lo = v->r.start + rp->bias;
		tc->hi = v->r.end + rp->bias;
		uint64_t damaged;
		if (gusdata_trace_read(rp->d, simrun_collect_sink, tc, &damaged, err, sizeof err)) {
			snprintf(v->why_no_model, sizeof v->why_no_model, "%s", err);
			return -1;
		}
		/* the stream of the intact chunks is simulated; said once per report */
		if (damaged && !rp->damage_said) {
			gus_warn("%llu damaged chunk(s) of the trace skipped (first: %s); the regions are simulated "
				 "from the other chunks", (unsigned long long)damaged, err);
			rp->damage_said = true;
		}
		if (damaged)
			snprintf(v->stream_note, sizeof v->stream_note,
				 "%llu damaged trace chunk(s) skipped", (unsigned long long)damaged);
		return 0;
	}
	struct stream_range run = { v->r.start + rp->bias, v->r.end + rp->bias };
	struct ipt_decode_opts io = { .ranges = &run, .nranges = 1, .sink = simrun_collect_sink, .ctx = tc,
				      .max_insns = 2000000 };
	struct ipt_stats st;
	struct ipt_recording_stats rs;
	memset(&st, 0, sizeof st);
	memset(&rs, 0, sizeof rs);
	if (ipt_decode_recording(rp->d, &io, &st, &rs, err, sizeof err) < 0) {
		snprintf(v->why_no_model, sizeof v->why_no_model, "decoding Intel PT: %s", err);
		return -1;
	}
	if (st.gaps)
		gus_warn("%s: %llu gap(s) in the Intel PT trace; the stream resumed after each", v->name,
			 (unsigned long long)st.gaps);
	return 0;
}

static void simulate_region(struct report *rp, struct region_view *v)
{
	char key[256], err[1024];
	cache_key(rp, v, key, sizeof key);
	if (!rp->o->no_cache) {
		size_t n;
		uint8_t *blob = gusdata_get_result(rp->d, key, &n);
		if (blob) {
			int rc = merge_sim_unpack(rp->m, blob, n, &v->code, &v->an, &v->stream, err, sizeof err);
			free(blob);
			if (!rc) {
				v->simulated = v->from_cache = true;
				return;
			}
			gus_warn("%s: the cached result of %s is not usable (%s): simulating again", rp->o->input,
				 v->name, err);
		}
	}
	if (strcmp(v->file, rp->exe)) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "not traced: the region is in %s, the tracer follows the program's own code", v->file);
		return;
	}
	if (!strcmp(rp->tracer, "none") || (!strcmp(rp->tracer, "qemu") && !rp->trace_records)) {
		char why[1024];
		snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: %s",
			 missing_fact(rp, "missing.trace", why, sizeof why) ? why : "the recording has no trace");
		return;
	}
	if (!rp->have_bias) {
		snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: the trace has no mapping of %s",
			 rp->exe);
		return;
	}
	report_progress(rp, "region %d of %zu: reading the stream of %s", v->r.rank, rp->nrv, v->name);
	struct simrun_collect tc = { .code = sim_code_new(rp->m), .data_addresses = !strcmp(rp->tracer, "qemu"),
				     .max = 300000 };
	if (gather_stream(rp, v, &tc))
		goto out;
	if (tc.undecodable)
		gus_warn("%s: %llu instruction(s) the model cannot decode were left out (first at 0x%llx: %s)", v->name,
			 (unsigned long long)tc.undecodable, (unsigned long long)tc.first_bad_ip, tc.first_bad);
	if (tc.n < 16) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "%zu instruction(s) of the region in the trace: too few to simulate", tc.n);
		goto out;
	}
	report_progress(rp, "region %d of %zu: simulating %zu instructions of %s", v->r.rank, rp->nrv, tc.n, v->name);
	uint8_t res[SIM_MAX_RES];
	size_t nres = simrun_default_resources(rp->m, tc.code, res);
	struct sim_analysis_opts ao = {
		.weights = rp->weights, .nweights = rp->nweights, .resources = res, .nresources = nres,
		.threshold = 0.01, .search = true, .threads = rp->o->threads,
	};
	struct sim_source src = simrun_source(&tc, v->r.head + rp->bias);
	if (sim_analyze(rp->m, tc.code, &src, &ao, &v->an, err, sizeof err)) {
		snprintf(v->why_no_model, sizeof v->why_no_model, "the simulation failed: %s", err);
		goto out;
	}
	char stream[512];
	if (!strcmp(rp->tracer, "qemu"))
		snprintf(stream, sizeof stream, "QEMU trace, %zu instructions in the region, data addresses %s", tc.n,
			 strcmp(gusdata_meta(rp->d, "trace.data_addresses") ? gusdata_meta(rp->d, "trace.data_addresses")
									  : "yes", "no") ? "known" : "not used");
	else
		snprintf(stream, sizeof stream, "Intel PT, %zu instructions in the region, no data addresses "
			 "(memory dependencies from address expressions)", tc.n);
	if (v->stream_note[0]) {
		size_t l = strlen(stream);
		snprintf(stream + l, sizeof stream - l, "; %s", v->stream_note);
	}
	v->stream = strdup(stream);
	v->code = tc.code;
	tc.code = NULL;
	v->simulated = true;
	if (rp->writable) {
		uint8_t *blob;
		size_t n;
		if (merge_sim_pack(rp->m, v->code, &v->an, v->stream, &blob, &n) == 0) {
			if (gusdata_put_result(rp->d, key, blob, n))
				gus_warn("%s: cannot cache the result of %s: %s", rp->o->input, v->name,
					 gusdata_errmsg(rp->d));
			free(blob);
		}
	}
out:
	simrun_collect_free(&tc);
	sim_code_free(tc.code);
}

/* ------------------------------------------------------------ output --- */
static bool colour;

static const char *col(const char *code)
{
	return colour ? code : "";
}

/* Lines of a sub-renderer's CSV, each prefixed with the section and region */
static void csv_prefixed(FILE *out, const char *text, const char *section, const char *region, char sep,
			 bool skip_header)
{
	const char *p = text;
	bool first = true;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && !(first && skip_header)) {
			merge_csv_field(out, section, sep);
			fputc(sep, out);
			merge_csv_field(out, region, sep);
			fputc(sep, out);
			fwrite(p, 1, len, out);
			fputc('\n', out);
		}
		first = false;
		p += len + (nl != NULL);
	}
}

static char *render_to_string(void (*fn)(FILE *, void *), void *ctx)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	fn(f, ctx);
	fclose(f);
	return buf;
}

struct sim_render_ctx {
	struct report *rp;
	struct region_view *v;
	struct merge_sim_info *info;
	enum merge_format fmt;
};

static void sim_render_fn(FILE *f, void *ctx)
{
	struct sim_render_ctx *c = ctx;
	merge_render_sim(f, c->rp->m, c->v->code, &c->v->an, c->info, c->fmt);
}

struct spire_render_ctx {
	struct report *rp;
	const struct merge_spire_info *info;
};

static void spire_render_fn(FILE *f, void *ctx)
{
	struct spire_render_ctx *c = ctx;
	merge_render_spire(f, &c->rp->spire_model, &c->rp->spire_an, &c->rp->spire_ss, c->info, MERGE_CSV);
}

static void sim_info_for(struct report *rp, struct region_view *v, bool hottest_loop, struct merge_sim_info *info,
			 char *source, size_t n)
{
	snprintf(source, n, "%s:%s", v->file, v->name);
	memset(info, 0, sizeof *info);
	info->source = source;
	info->threshold = 0.01;
	info->stream = v->stream;
	open_lines(rp, v->file);
	if (rp->lines) {
		info->srcline = srcline_of;
		info->srcline_ctx = rp;
	}
	info->insn_start = v->r.start + rp->bias;
	info->insn_end = v->r.end + rp->bias;
	info->addr_bias = rp->bias;
	info->no_insn_table = !hottest_loop;
}

static void region_source_line(struct report *rp, struct region_view *v)
{
	open_lines(rp, v->file);
	char buf[PATH_MAX];
	if (rp->lines && srcline_of(rp, v->r.head + rp->bias, buf, sizeof buf))
		snprintf(v->source, sizeof v->source, "%s", buf);
}

static void merge_run_from_meta(struct report *rp, struct merge_run_info *run, char **argv_store)
{
	memset(run, 0, sizeof *run);
	uint64_t v;
	run->exit_status = gusdata_meta_u64(rp->d, "exit_status", &v) ? (int)v : 0;
	run->interrupted = gusdata_meta(rp->d, "interrupted") != NULL;
	run->seconds = gusdata_meta_u64(rp->d, "seconds_x1000", &v) ? (double)v / 1000 : 0;
	run->runs = 1;
	char buf[16];
	run->smt_on = !strcmp(meta_or(rp->d, "tma.smt", buf, sizeof buf, "off"), "on");
	run->argv = argv_store;
	const char *src = gusdata_meta(rp->d, "counts.source");
	static char imported[PATH_MAX];
	if (src && !strncmp(src, "import ", 7)) {
		snprintf(imported, sizeof imported, "%s", src + 7);
		run->import = imported;
		run->argv = NULL;
	}
	if (rp->multiplexed)
		run->notes = " The events did not fit the counters at once: they were multiplexed and\n"
			     " scaled (raw x enabled / running); [mux N%] shows how long a node's\n"
			     " events were counted.\n";
}

static const char *meta_keys[] = { "command", "exe", "cwd", "hostname", "kernel", "cpu.name", "tracer",
				   "sample.event", "sample.count", "exit_status", "interrupted", "record.complete", "record.stage",
				   "trace.interrupted",
				   "tma.table", "counts.source", "sim.machine", "trace.records" };

static void write_text(struct report *rp, FILE *out, char **argv_store)
{
	struct gusdata *d = rp->d;
	char buf[4096], buf2[1024];
	fprintf(out, "%s# gus report of %s%s\n", col("\033[1m"), rp->o->input, col("\033[0m"));
	fprintf(out, "# command: %s\n", meta_or(d, "command", buf, sizeof buf, "?"));
	uint64_t v;
	if (gusdata_meta_u64(d, "exit_status", &v) && v)
		fprintf(out, "# the program exited with status %llu%s\n", (unsigned long long)v,
			v > 128 && v < 128 + 65 ? " (killed by a signal)" : "");
	if (gusdata_meta(d, "interrupted"))
		fprintf(out, "# the run was interrupted (Ctrl-C): what follows covers its first part\n");
	if (gusdata_meta(d, "trace.interrupted"))
		fprintf(out, "# the trace run was interrupted (Ctrl-C): its stream covers the first part of that run\n");
	if (rp->stage[0]) {
		describe_cut(rp, buf, sizeof buf);
		fprintf(out, "%s# the recording is incomplete: %s%s\n", col("\033[33m"), buf, col("\033[0m"));
	} else if (strcmp(meta_or(d, "record.complete", buf, sizeof buf, "no"), "yes")) {
		fprintf(out, "%s# the recording is incomplete (gus record was stopped or failed): parts are missing%s\n",
			col("\033[33m"), col("\033[0m"));
	}
	fprintf(out, "# cpu: %s; kernel %s\n", meta_or(d, "cpu.name", buf, sizeof buf, "?"),
		meta_or(d, "kernel", buf2, sizeof buf2, "?"));
	fprintf(out, "# samples: %llu", (unsigned long long)rp->samples);
	if (gusdata_meta(d, "sample.event"))
		fprintf(out, " %s", meta_or(d, "sample.event", buf2, sizeof buf2, "?"));
	if (gusdata_meta(d, "sample.fallback"))
		fprintf(out, " (no cycles: %s)", meta_or(d, "sample.fallback", buf, sizeof buf, ""));
	fprintf(out, "\n# instruction stream: %s", rp->tracer);
	bool traced = !rp->stage[0] || !strcmp(rp->stage, "tracing");
	if (!strcmp(rp->tracer, "qemu") && traced)
		fprintf(out, " (second run under the QEMU tracer, %llu records%s)", (unsigned long long)rp->trace_records,
			rp->stage[0] ? ", cut short" : "");
	else if (!traced)
		fprintf(out, " (planned; gus record was stopped before the trace run)");
	if (gusdata_meta(d, "missing.pt") && strcmp(rp->tracer, "pt"))
		fprintf(out, "; no Intel PT: %s", meta_or(d, "missing.pt", buf, sizeof buf, ""));
	fprintf(out, "\n# model: %s\n", sim_machine_describe(rp->m));
	static const char *missing[] = { "missing.samples", "missing.regions", "missing.trace" };
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++)
		if (missing_fact(rp, missing[i], buf, sizeof buf))
			fprintf(out, "# missing %s: %s\n", missing[i] + 8, buf);

	fprintf(out, "\n%s== Measured Top-Down (whole program) ==%s\n", col("\033[1m"), col("\033[0m"));
	if (rp->have_tree) {
		struct merge_run_info run;
		merge_run_from_meta(rp, &run, argv_store);
		merge_render_tma(out, &rp->tree, &run, MERGE_TEXT, ',');
	} else {
		fprintf(out, "not available: %s\nThe report goes on with the simulated side.\n", rp->why_no_measure);
	}

	if (rp->o->spire) {
		fprintf(out, "\n%s== SPIRE: counter samples against a statistical roofline ensemble ==%s\n",
			col("\033[1m"), col("\033[0m"));
		if (rp->have_spire) {
			struct merge_spire_info info;
			spire_info(rp, &info, true, 0);
			merge_render_spire(out, &rp->spire_model, &rp->spire_an, &rp->spire_ss, &info, MERGE_TEXT);
		} else {
			fprintf(out, "not available: %s\n", rp->why_no_spire);
		}
	} else if (gusdata_meta(d, "spire.time")) {
		fprintf(out, "\n(the recording has SPIRE interval counts: gus report --spire MODEL ranks their metrics)\n");
	}

	fprintf(out, "\n%s== Hot regions ==%s\n", col("\033[1m"), col("\033[0m"));
	if (!rp->nrv) {
		fprintf(out, "none: %s\n", missing_fact(rp, "missing.regions", buf, sizeof buf) ? buf
										: "the recording has no hot regions");
		return;
	}
	fprintf(out, "  %4s %8s %7s  %-8s  %s\n", "rank", "samples", "share", "kind", "region");
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		fprintf(out, "  %4d %8llu %6.1f%%  %-8s  %s%s%s%s\n", rv->r.rank, (unsigned long long)rv->r.samples,
			100 * rv->r.share, rv->kind, rv->name, rv->source[0] ? " (" : "", rv->source,
			rv->source[0] ? ")" : "");
	}
	fprintf(out, "  (share: of the time all %llu samples stand for; a loop's samples are also its function's)\n",
		(unsigned long long)rp->samples);

	bool table_done = false;
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		if (!region_selected(rp, rv))
			continue;
		fprintf(out, "\n%s== Region %d: %s (%s, %.1f%% of samples) ==%s\n", col("\033[1m"), rv->r.rank, rv->name,
			rv->kind, 100 * rv->r.share, col("\033[0m"));
		const char *vc = rv->verdict.kind == MERGE_AGREE      ? "\033[32m"
				 : rv->verdict.kind == MERGE_DISAGREE ? "\033[31m"
								      : "\033[36m";
		fprintf(out, "%sVerdict: %s%s\n", col(vc), rv->verdict.text, col("\033[0m"));
		if (rp->have_tree)
			fprintf(out, "(the measured side is the whole program's: per-region Top-Down needs PMU samples "
				     "of the level-1 events)\n");
		if (!rv->simulated) {
			fprintf(out, "Simulated: not available: %s\n", rv->why_no_model);
			continue;
		}
		bool hottest_loop = !table_done && (!strcmp(rv->kind, "loop") || rp->o->region);
		if (hottest_loop)
			table_done = true;
		struct merge_sim_info info;
		char source[PATH_MAX + 400];
		sim_info_for(rp, rv, hottest_loop, &info, source, sizeof source);
		fputc('\n', out);
		merge_render_sim(out, rp->m, rv->code, &rv->an, &info, MERGE_TEXT);
		if (rv->from_cache)
			fprintf(out, "(cached simulation)\n");
	}
}

static void write_json_region(struct report *rp, FILE *out, struct region_view *rv)
{
	fprintf(out, "    {\"rank\": %d, \"kind\": ", rv->r.rank);
	merge_json_string(out, rv->kind);
	fprintf(out, ", \"name\": ");
	merge_json_string(out, rv->name);
	fprintf(out, ", \"file\": ");
	merge_json_string(out, rv->file);
	fprintf(out, ", \"start\": \"0x%llx\", \"end\": \"0x%llx\", \"source\": ", (unsigned long long)rv->r.start,
		(unsigned long long)rv->r.end);
	if (rv->source[0])
		merge_json_string(out, rv->source);
	else
		fputs("null", out);
	fprintf(out, ", \"samples\": %llu, \"share\": ", (unsigned long long)rv->r.samples);
	merge_json_number(out, rv->r.share);
	const struct merge_verdict *vd = &rv->verdict;
	fprintf(out, ",\n     \"verdict\": {\"kind\": ");
	merge_json_string(out, merge_agreement_name(vd->kind));
	fprintf(out, ", \"text\": ");
	merge_json_string(out, vd->text);
	fprintf(out, ", \"measured\": ");
	if (vd->measured[0])
		merge_json_string(out, vd->measured);
	else
		fputs("null", out);
	fprintf(out, ", \"measured_value\": ");
	merge_json_number(out, vd->measured[0] ? vd->measured_value : NAN);
	fprintf(out, ", \"resource\": ");
	if (vd->resource[0])
		merge_json_string(out, vd->resource);
	else
		fputs("null", out);
	fprintf(out, ", \"bottleneck\": %s, \"speedup_top\": ", vd->bottleneck ? "true" : "false");
	merge_json_number(out, rv->simulated ? vd->speedup_top : NAN);
	fprintf(out, ", \"gain_upper\": ");
	merge_json_number(out, rv->simulated ? vd->gain_upper : NAN);
	fprintf(out, "},\n     \"cached\": %s,\n     \"simulated_missing\": ", rv->from_cache ? "true" : "false");
	if (rv->simulated)
		fputs("null", out);
	else
		merge_json_string(out, rv->why_no_model);
	fprintf(out, ",\n     \"simulated\": ");
	if (!rv->simulated) {
		fputs("null}", out);
		return;
	}
	struct merge_sim_info info;
	char source[PATH_MAX + 400];
	/* JSON keeps the per-instruction list of every region: it is data */
	sim_info_for(rp, rv, true, &info, source, sizeof source);
	merge_render_sim(out, rp->m, rv->code, &rv->an, &info, MERGE_JSON);
	fputs("    }", out);
}

static void write_json(struct report *rp, FILE *out, char **argv_store)
{
	struct gusdata *d = rp->d;
	fprintf(out, "{\n  \"gus_report\": 1,\n  \"recording\": ");
	merge_json_string(out, rp->o->input);
	fprintf(out, ",\n  \"samples\": %llu,\n  \"trace_records\": %llu,\n  \"incomplete\": ",
		(unsigned long long)rp->samples, (unsigned long long)rp->trace_records);
	if (rp->stage[0]) {
		char cut[1024];
		describe_cut(rp, cut, sizeof cut);
		merge_json_string(out, cut);
	} else {
		fputs(strcmp(gusdata_meta(d, "record.complete") ? gusdata_meta(d, "record.complete") : "no", "yes")
			      ? "\"gus record was stopped or failed: parts are missing\"" : "null", out);
	}
	fprintf(out, ",\n  \"meta\": {");
	bool first = true;
	for (size_t i = 0; i < sizeof meta_keys / sizeof *meta_keys; i++) {
		const char *v = gusdata_meta(d, meta_keys[i]);
		if (!v)
			continue;
		char *copy = strdup(v);
		fprintf(out, "%s\n    ", first ? "" : ",");
		first = false;
		merge_json_string(out, meta_keys[i]);
		fprintf(out, ": ");
		merge_json_string(out, copy);
		free(copy);
	}
	fprintf(out, "\n  },\n  \"missing\": {");
	static const char *missing[] = { "missing.counts", "missing.samples", "missing.regions", "missing.trace",
					 "missing.pt" };
	first = true;
	for (size_t i = 0; i < sizeof missing / sizeof *missing; i++) {
		char why[1024];
		if (!missing_fact(rp, missing[i], why, sizeof why))
			continue;
		fprintf(out, "%s\n    ", first ? "" : ",");
		first = false;
		merge_json_string(out, missing[i] + 8);
		fprintf(out, ": ");
		merge_json_string(out, why);
	}
	fprintf(out, "\n  },\n  \"model\": ");
	merge_json_string(out, sim_machine_name(rp->m));
	fprintf(out, ",\n  \"measured\": ");
	if (rp->have_tree) {
		struct merge_run_info run;
		merge_run_from_meta(rp, &run, argv_store);
		merge_render_tma(out, &rp->tree, &run, MERGE_JSON, ',');
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\n  \"measured_missing\": ");
	if (rp->have_tree)
		fputs("null", out);
	else
		merge_json_string(out, rp->why_no_measure);
	fprintf(out, ",\n  \"spire\": ");
	if (rp->have_spire) {
		struct merge_spire_info info;
		spire_info(rp, &info, true, 2);
		merge_render_spire(out, &rp->spire_model, &rp->spire_an, &rp->spire_ss, &info, MERGE_JSON);
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\n  \"spire_missing\": ");
	if (rp->o->spire && !rp->have_spire)
		merge_json_string(out, rp->why_no_spire);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"regions\": [");
	first = true;
	for (size_t i = 0; i < rp->nrv; i++) {
		if (!region_selected(rp, &rp->rv[i]))
			continue;
		fprintf(out, "%s\n", first ? "" : ",");
		write_json_region(rp, out, &rp->rv[i]);
		first = false;
	}
	fprintf(out, "\n  ]\n}\n");
}

static void write_csv(struct report *rp, FILE *out, char **argv_store)
{
	char sep = rp->o->sep;
	fprintf(out, "section%cregion%ckind%cname%cfield%cvalue\n", sep, sep, sep, sep, sep);
	if (rp->have_tree) {
		/* one row per node and field, in the report's columns */
		const struct td_table *t = rp->tree.table;
		static const char *status[] = { "ok", "not computable", "mismeasured", "not selected" };
		for (size_t i = 0; i < t->n_nodes; i++) {
			const struct td_node *nd = &t->nodes[i];
			const struct td_result *r = &rp->tree.res[i];
			if (nd->level > rp->tree.max_level || r->status == TD_NOT_SELECTED)
				continue;
			fprintf(out, "measured%c%cnode%c%s%cvalue%c", sep, sep, sep, nd->name, sep, sep);
			if (r->status != TD_NOT_COMPUTABLE && isfinite(r->value))
				fprintf(out, "%.6g", r->value);
			fprintf(out, "\nmeasured%c%cnode%c%s%cstatus%c%s\n", sep, sep, sep, nd->name, sep, sep,
				status[r->status]);
			fprintf(out, "measured%c%cnode%c%s%cbottleneck%c%s\n", sep, sep, sep, nd->name, sep, sep,
				r->bottleneck ? (r->candidate ? "candidate" : "yes") : "no");
			fprintf(out, "measured%c%cnode%c%s%cmultiplex_ratio%c%.4f\n", sep, sep, sep, nd->name, sep, sep,
				r->mux);
		}
	} else {
		fprintf(out, "measured%c%cmissing%c%cwhy%c", sep, sep, sep, sep, sep);
		merge_csv_field(out, rp->why_no_measure, sep);
		fputc('\n', out);
	}
	if (rp->have_spire) {
		struct merge_spire_info info;
		spire_info(rp, &info, true, 0);
		struct spire_render_ctx sc = { rp, &info };
		char *s = render_to_string(spire_render_fn, &sc);
		if (s)
			csv_prefixed(out, s, "spire", "", sep, true);
		free(s);
	} else if (rp->o->spire) {
		fprintf(out, "spire%c%cmissing%c%cwhy%c", sep, sep, sep, sep, sep);
		merge_csv_field(out, rp->why_no_spire, sep);
		fputc('\n', out);
	}
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		if (!region_selected(rp, rv))
			continue;
		char rank[16];
		snprintf(rank, sizeof rank, "%d", rv->r.rank);
		/* region rows: kind, name, field, value */
		const char *fields[][2] = { { "kind", rv->kind }, { "file", rv->file }, { "source", rv->source },
					    { "verdict", merge_agreement_name(rv->verdict.kind) },
					    { "verdict_text", rv->verdict.text }, { "measured", rv->verdict.measured },
					    { "resource", rv->verdict.resource },
					    { "simulated_missing", rv->simulated ? "" : rv->why_no_model } };
		for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
			fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
			merge_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c", sep, fields[k][0], sep);
			merge_csv_field(out, fields[k][1], sep);
			fputc('\n', out);
		}
		double nums[] = { (double)rv->r.samples, rv->r.share, rv->simulated ? rv->verdict.speedup_top : NAN,
				  rv->simulated ? rv->verdict.gain_upper : NAN };
		const char *nnames[] = { "samples", "share", "speedup_top", "gain_upper" };
		for (size_t k = 0; k < 4; k++) {
			fprintf(out, "region%c%s%cregion%c", sep, rank, sep, sep);
			merge_csv_field(out, rv->name, sep);
			fprintf(out, "%c%s%c", sep, nnames[k], sep);
			if (isfinite(nums[k]))
				fprintf(out, "%.9g", nums[k]);
			fputc('\n', out);
		}
		if (!rv->simulated)
			continue;
		struct merge_sim_info info;
		char source[PATH_MAX + 400];
		sim_info_for(rp, rv, true, &info, source, sizeof source);
		struct sim_render_ctx c = { rp, rv, &info, MERGE_CSV };
		char *s = render_to_string(sim_render_fn, &c);
		if (s)
			csv_prefixed(out, s, "simulated", rank, sep, true);
		free(s);
	}
}

static int write_svgs(struct report *rp)
{
	const char *dir = rp->o->svg_dir;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		gus_error("--svg: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	char path[PATH_MAX];
	if (rp->have_tree) {
		snprintf(path, sizeof path, "%s/tma.svg", dir);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "Measured Top-Down: %s", rp->o->input);
		merge_render_tma_svg(of.f, &rp->tree, title);
		if (outfile_close(&of, true))
			return -1;
	}
	if (rp->have_spire) {
		snprintf(path, sizeof path, "%s/spire.svg", dir);
		size_t k = rp->spire_an.n < 6 ? rp->spire_an.n : 6;
		const struct spire_roofline *r[6];
		for (size_t i = 0; i < k; i++)
			r[i] = rp->spire_an.e[i].r;
		char title[PATH_MAX + 64];
		snprintf(title, sizeof title, "SPIRE: the lowest rooflines of %s for %s", rp->o->spire, rp->o->input);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		merge_render_spire_svg(of.f, r, k, &rp->spire_ss, &rp->spire_an, rp->spire_set, title);
		if (outfile_close(&of, true))
			return -1;
	}
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		if (!rv->simulated || !region_selected(rp, rv))
			continue;
		snprintf(path, sizeof path, "%s/region-%d.svg", dir, rv->r.rank);
		struct outfile of;
		if (outfile_open(&of, path, NULL))
			return -1;
		struct merge_sim_info info;
		char source[PATH_MAX + 400];
		sim_info_for(rp, rv, false, &info, source, sizeof source);
		merge_render_sim_svg(of.f, rp->m, &rv->an, &info);
		if (outfile_close(&of, true))
			return -1;
	}
	return 0;
}

/* the first sentence of a reason, for the verdict line */
static void short_reason(const char *why, char *out, size_t n)
{
	if (strstr(why, "no hardware PMU")) {
		snprintf(out, n, "no hardware PMU on this machine");
		return;
	}
	size_t len = strcspn(why, "\n");
	const char *dot = strstr(why, ". ");
	if (dot && (size_t)(dot - why) < len)
		len = (size_t)(dot - why);
	if (len >= n)
		len = n - 1;
	memcpy(out, why, len);
	out[len] = 0;
}

/* --------------------------------------------------------------- main --- */
int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	struct report rp = { .o = &o };
	char err[1024], buf[PATH_MAX];
	char *argv_store[2] = { NULL, NULL };
	rp.rv = calloc(MAX_REGIONS, sizeof *rp.rv);
	if (!rp.rv)
		return GUS_EXIT_ERROR;
	rp.progress_tty = isatty(2);
	rc = GUS_EXIT_ERROR;

	/* writable for the cache; a read-only file (or directory) still
	 * reports, uncached: SQLite would open it read-only without a word */
	char dirbuf[PATH_MAX];
	snprintf(dirbuf, sizeof dirbuf, "%s", o.input);
	char *slash = strrchr(dirbuf, '/');
	if (slash)
		*(slash == dirbuf ? slash + 1 : slash) = 0;
	bool can_write = access(o.input, W_OK) == 0 && access(slash ? dirbuf : ".", W_OK) == 0;
	if (gusdata_open(o.input, can_write, &rp.d, err, sizeof err) == 0) {
		rp.writable = can_write;
		if (!can_write)
			gus_warn("%s is read-only: results will not be cached", o.input);
	} else {
		int open_errno = errno;
		gus_error("%s", err);
		/* the recordings gus record did not finish (killed) are beside it */
		char pat[PATH_MAX + 32];
		glob_t g;
		snprintf(pat, sizeof pat, "%s.partial-??????", o.input);
		bool partial = open_errno == ENOENT && glob(pat, 0, NULL, &g) == 0;
		if (partial) {
			fprintf(stderr, "%s: gus record did not finish %s: what it stored is in %s (gus report -i %s)\n",
				gus_progname, o.input, g.gl_pathv[g.gl_pathc - 1], g.gl_pathv[g.gl_pathc - 1]);
			globfree(&g);
		} else if (!strcmp(o.input, "gus.data") && open_errno == ENOENT) {
			fprintf(stderr, "%s: record one first: gus record -- program args\n", gus_progname);
		}
		goto out;
	}
	/* a recording of gus record without its stage is either complete or
	 * older than the stages */
	if (gusdata_meta(rp.d, "record.stage") && strcmp(gusdata_meta(rp.d, "record.stage"), "done"))
		meta_or(rp.d, "record.stage", rp.stage, sizeof rp.stage, "");
	rp.samples = gusdata_sample_count(rp.d);
	if (!gusdata_meta(rp.d, "sample.event") && !gusdata_meta(rp.d, "record.stage") && gusdata_meta(rp.d, "tracer"))
		gus_warn("%s was recorded with Intel PT only (no samples, counts or regions)", o.input);
	meta_or(rp.d, "command", buf, sizeof buf, "");
	argv_store[0] = strdup(buf);
	meta_or(rp.d, "exe", rp.exe, sizeof rp.exe, "");
	meta_or(rp.d, "tracer", rp.tracer, sizeof rp.tracer, "none");
	rp.trace_records = gusdata_trace_records(rp.d);

	/* the machine model: asked, recorded, or this one's */
	const char *arch = o.arch ? o.arch : gusdata_meta(rp.d, "sim.machine");
	char archbuf[64];
	snprintf(archbuf, sizeof archbuf, "%s", arch ? arch : gus_host_machine());
	if (!(rp.m = sim_machine_find(gus_data_dir("machines"), archbuf, err, sizeof err))) {
		gus_error("%s%s", err, o.arch ? "" : " (the machine the recording names; --arch picks another)");
		rc = o.arch ? GUS_EXIT_USAGE : GUS_EXIT_ERROR;
		goto out;
	}
	/* the four weights the text shows: a sweep of 16 per resource would
	 * cost four times as long for the same table */
	if (simrun_parse_weights("1.01,1.05,1.10,1.15", &rp.weights, &rp.nweights)) {
		rc = GUS_EXIT_ERROR;
		goto out;
	}

	load_measured(&rp);
	if (o.spire && load_spire(&rp))
		goto out;
	if (gusdata_foreach_region(rp.d, add_region, &rp)) {
		gus_error("%s: the hot regions cannot be read: %s", o.input, gusdata_errmsg(rp.d));
		goto out;
	}
	if (o.region) {
		bool any = false;
		for (size_t i = 0; i < rp.nrv; i++)
			any |= region_selected(&rp, &rp.rv[i]);
		if (!any) {
			fprintf(stderr, "%s: error: --region: no region '%s' in %s; its regions:\n", gus_progname,
				o.region, o.input);
			for (size_t i = 0; i < rp.nrv; i++)
				fprintf(stderr, "  %d  %s\n", rp.rv[i].r.rank, rp.rv[i].name);
			rc = GUS_EXIT_USAGE;
			goto out;
		}
	}
	/* runtime addresses of the program in the trace */
	uint64_t bias;
	if (!strcmp(rp.tracer, "qemu") && gusdata_meta_u64(rp.d, "trace.load_bias", &bias)) {
		rp.bias = bias;
		rp.have_bias = true;
	} else if (!strcmp(rp.tracer, "pt")) {
		gusdata_foreach_mmap(rp.d, pt_bias_of, &rp);
	}
	for (size_t i = 0; i < rp.nrv; i++) {
		struct region_view *rv = &rp.rv[i];
		region_source_line(&rp, rv);
		if (region_selected(&rp, rv))
			simulate_region(&rp, rv);
		char why_model[200], why_measure[200];
		short_reason(rv->why_no_model, why_model, sizeof why_model);
		short_reason(rp.why_no_measure, why_measure, sizeof why_measure);
		merge_verdict(rp.have_tree ? &rp.tree : NULL, why_measure, rp.m, rv->simulated ? &rv->an : NULL,
			      rv->simulated ? NULL : why_model, &rv->verdict);
	}
	report_progress_end(&rp);

	struct outfile of;
	if (outfile_open(&of, o.output, stdout))
		goto out;
	colour = o.fmt == MERGE_TEXT && !o.output && isatty(1) && !getenv("NO_COLOR");
	switch (o.fmt) {
	case MERGE_JSON: write_json(&rp, of.f, argv_store); break;
	case MERGE_CSV: write_csv(&rp, of.f, argv_store); break;
	default: write_text(&rp, of.f, argv_store); break;
	}
	if (outfile_close(&of, true))
		goto out;
	if (o.svg_dir && write_svgs(&rp))
		goto out;
	rc = GUS_EXIT_OK;
out:
	if (rp.rv)
		for (size_t i = 0; i < rp.nrv; i++) {
			if (rp.rv[i].simulated)
				sim_analysis_free(&rp.rv[i].an);
			sim_code_free(rp.rv[i].code);
			free(rp.rv[i].stream);
		}
	free(rp.rv);
	free(argv_store[0]);
	free(rp.weights);
	merge_srclines_free(rp.lines);
	if (rp.have_tree)
		td_tree_free(&rp.tree);
	td_table_free(rp.table);
	sim_machine_free(rp.m);
	if (rp.have_spire)
		spire_analysis_free(&rp.spire_an);
	if (rp.have_spire_ss)
		spire_sampleset_free(&rp.spire_ss);
	if (rp.have_spire_model)
		spire_model_free(&rp.spire_model);
	spire_metricset_free(rp.spire_set);
	gusdata_close(rp.d);
	return rc;
}
