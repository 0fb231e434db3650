/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of gus report (report.h): a recording's measured Top-Down
 * tree, its SPIRE analysis, its hot regions and the simulated sensitivity
 * analysis of each with a verdict that compares the two. Simulations are
 * cached in the recording, so a second report only reads. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gusdata.h"
#include "ipt.h"
#include "report.h"
#include "report_internal.h"
#include "sim.h"
#include "spire.h"
#include "topdown.h"

/* bumped whenever the model's code, the report's sampling of a region
 * (its budget of records) or the cached layout changes what a cached
 * result would say; the machine file's statements are in the key
 * (sim_machine_digest), so an edited model is simulated again */
#define REPORT_CACHE_VERSION 6
#define MAX_REGIONS 100
/* callers listed per region; the others are summed */
#define TOP_CALLERS 5
/* line tables of objects kept open at once */
#define LINE_TABLES 8

/* ------------------------------------------------------------ the data --- */
struct region_view {
	struct gusdata_region r;	/* strings below */
	char kind[16], name[320], file[PATH_MAX], build_id[129];
	/* the simulation */
	bool simulated, from_cache;
	struct sim_code *code;
	struct sim_analysis an;
	char *stream;
	char why_no_model[PATH_MAX + 1200];
	struct merge_verdict verdict;
	char source[PATH_MAX + 64];	/* file:line of its first instruction */
	char stream_note[PATH_MAX + 256];	/* what is wrong with its stream (damaged chunks, a changed file) */
	struct report_cover cover;	/* what of the run its stream covers */
	struct report *rp;		/* srcline_of's context */
	/* where the traced run had it: runtime - link-time address */
	uint64_t bias;
	bool have_bias;
	/* gus record's run 3 single-stepped it natively (the tag of its
	 * windows, -1 not), and why */
	long step_tag;
	char step_why[420];
	bool changed;			/* its file is not the one recorded (build-id): no lines from it */
	/* WHY_NO_MODEL is what its stream gives (too few records, none),
	 * the same at every report of this model: cached too */
	bool why_final;
	/* the windows its stream came from (gus record --window), their
	 * spread and the phases of the run; what the model shows of them */
	struct report_windows win;
	struct merge_report_phase phases[REPORT_MAX_PHASES];
	size_t nphases;
	/* the simulated windows where they lie in the run */
	struct merge_report_window wins[REPORT_MAX_WINDOWS];
	size_t nwins;
	/* its per-instruction rows and source lines */
	struct report_annotation ann;
	bool phases_scattered;
	/* the threads that ran it, each with a tenth of its samples or more
	 * simulated apart */
	struct merge_report_thread threads[REPORT_MAX_THREADS_SHOWN];
	char thread_model[REPORT_MAX_THREADS_SHOWN][200];
	size_t nthreads;
	/* its own measured tree: from the counter groups read at its samples,
	 * or imported per region */
	struct td_countset mcs;		/* its counts as stored (mcs.n 0: none) */
	struct td_tree mtree;
	bool have_mtree, mimported;
	struct region_view *mtree_of;	/* a loop measured by its function's tree */
	uint64_t msamples;
	char mnote[512];
	/* what its cycles per unit count (merge_report_region.unit) */
	const char *unit;
	/* its code is the static view's, at link-time addresses */
	bool static_code;
};

struct report {
	const struct report_request *o;
	struct gusdata *d;
	bool writable;
	/* measured */
	struct td_table *table;
	struct td_tree tree;
	bool have_tree;
	char why_no_measure[1024];
	bool multiplexed;
	/* why a region has no tree of its own (the same for all) */
	char why_no_region_measure[512];
	struct td_eval_opts eval_opts;
	bool *eval_select;
	/* simulated, on THREADS threads */
	struct sim_machine *m;
	unsigned threads;
	double weights[4];
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
	/* source lines: the line tables of the files asked last (NULL: the
	 * file has none), kept: a table is read whole, and a file without
	 * one was read again at each address asked */
	struct {
		char *file;
		struct merge_srclines *lines;
	} srclines[LINE_TABLES];
	size_t next_srclines;
	bool lines_said;
	/* SPIRE */
	struct spire_model spire_model;
	struct spire_sampleset spire_ss;
	struct spire_analysis spire_an;
	struct spire_metricset *spire_set;
	bool have_spire_model, have_spire_ss, have_spire;
	char why_no_spire[512];
	char spire_note[512];
	/* the model, pointing into the above */
	struct merge_report model;
	struct merge_report_fact *meta;
	size_t nmeta, capmeta;
	struct merge_report_fact missing[8];
	char missing_text[8][1024];
	char incomplete[1024];
	struct merge_report_region *mr;
	/* the callers of each region (gus record -g) */
	struct report_callers *callers;
	bool have_chains;
	char why_no_callers[1100];
	/* the samples' call stacks (report_request.stacks) */
	struct report_stacks stacks;
	bool have_stacks;
	char why_no_stacks[1100];
	/* where all the samples fell: the rows of the time outside the hot
	 * functions */
	struct report_sample_totals totals;
	bool have_totals;
	struct merge_report_outside outside[3];
	char kernel_what[400];	/* the [kernel] row's words: its top functions */
	/* merge_report.run_notes */
	char run_note_text[4][200];
	const char *run_note[4];
	char *argv_store[2];
	const char *spire_inputs[1];
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

#define report_progress(rp, ...) recording_progress(&(rp)->o->log, false, __VA_ARGS__)
#define report_progress_end(rp) recording_progress_end(&(rp)->o->log)
#define report_warn(rp, ...) recording_say(&(rp)->o->log, RECORDING_MSG_WARNING, __VA_ARGS__)
#define report_error(rp, ...) recording_say(&(rp)->o->log, RECORDING_MSG_ERROR, __VA_ARGS__)

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
	if (!(rp->table = td_table_load_arch(rp->o->tma_dir, id, err, sizeof err))) {
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
	/* kept for the regions' trees, evaluated the same way */
	rp->eval_opts = eo;
	rp->eval_select = sel;
	rp->have_tree = true;
	for (size_t i = 0; i < cs.n; i++)
		if (cs.c[i].counted && cs.c[i].running > 0 && cs.c[i].running < cs.c[i].enabled * 0.999)
			rp->multiplexed = true;
out:
	td_countset_free(&cs);
}

/* Each region's own tree (gus-data(5) region_counts): its count set, from
 * the counter groups read at its samples or imported, evaluated with the
 * whole program's table and options. */
struct region_counts_read {
	struct report *rp;
	int64_t region;
	struct td_countset cs;
	uint64_t samples;
	bool failed;
};

static struct region_view *view_of(struct report *rp, int64_t id)
{
	for (size_t i = 0; i < rp->nrv; i++)
		if (rp->rv[i].r.id == id)
			return &rp->rv[i];
	return NULL;
}

static bool level1_computable(const struct td_tree *t)
{
	for (size_t i = 0; i < t->table->n_nodes; i++)
		if (t->table->nodes[i].level == 1 && t->res[i].status != TD_NOT_COMPUTABLE &&
		    t->res[i].status != TD_NOT_SELECTED)
			return true;
	return false;
}

static void region_tree(struct region_counts_read *rc)
{
	struct report *rp = rc->rp;
	struct region_view *v = view_of(rp, rc->region);
	if (v && rc->cs.n && !v->mcs.n) {
		/* kept as they are, shown where no table makes a tree of them */
		v->mcs = rc->cs;
		td_countset_init(&rc->cs);
		v->msamples = rc->samples;
		v->mimported = rc->samples == 0;
	}
	if (v && v->mcs.n && !v->have_mtree && rp->have_tree) {
		char err[TD_ERRLEN];
		if (td_eval(rp->table, &v->mcs, &rp->eval_opts, &v->mtree, err, sizeof err)) {
			snprintf(v->mnote, sizeof v->mnote, "its counts give no tree: %s", err);
		} else if (!level1_computable(&v->mtree)) {
			/* events missing from its counts: the whole program's
			 * tree says more than an empty one */
			td_tree_free(&v->mtree);
			snprintf(v->mnote, sizeof v->mnote, "its counts lack events of level 1: compared with the "
				 "whole program's tree");
		} else {
			v->have_mtree = true;
			if (!v->mimported && rc->samples < REPORT_REGION_MIN_SAMPLES)
				snprintf(v->mnote, sizeof v->mnote,
					 "only %llu samples read its counters: too few to trust (%d or more are)",
					 (unsigned long long)rc->samples, REPORT_REGION_MIN_SAMPLES);
		}
	}
	td_countset_free(&rc->cs);
	td_countset_init(&rc->cs);
	rc->samples = 0;
}

static int add_region_count(void *ctx, const struct gusdata_region_count *c)
{
	struct region_counts_read *rc = ctx;
	if (c->region != rc->region) {
		region_tree(rc);
		rc->region = c->region;
	}
	if (c->samples > rc->samples)
		rc->samples = c->samples;
	int r = c->uncounted ? td_countset_add_uncounted(&rc->cs, c->event, c->uncounted)
			     : td_countset_add(&rc->cs, c->event, c->value, c->enabled, c->running);
	if (r)
		rc->failed = true;
	return r;
}

/* the region's own tree, or its function's for a loop measured by it */
static const struct td_tree *region_measured(const struct region_view *v)
{
	return v->have_mtree ? &v->mtree : v->mtree_of && v->mtree_of->have_mtree ? &v->mtree_of->mtree : NULL;
}

static void load_region_measured(struct report *rp)
{
	struct region_counts_read rc = { .rp = rp, .region = -1 };
	td_countset_init(&rc.cs);
	if (gusdata_foreach_region_count(rp->d, add_region_count, &rc) || rc.failed) {
		snprintf(rp->why_no_region_measure, sizeof rp->why_no_region_measure,
			 "the regions' counts cannot be read: %s", gusdata_errmsg(rp->d));
		td_countset_free(&rc.cs);
		return;
	}
	region_tree(&rc);
	/* imported counts name functions: a loop without counts of its own
	 * is compared with its function's (not the whole program's) */
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *v = &rp->rv[i];
		struct region_view *f = v->r.parent ? view_of(rp, v->r.parent) : NULL;
		if (v->have_mtree || !f || !f->have_mtree || !f->mimported)
			continue;
		v->mtree_of = f;
		snprintf(v->mnote, sizeof v->mnote, "the imported counts name functions: these are %s's",
			 f->name);
	}
	bool any = false;
	for (size_t i = 0; i < rp->nrv; i++)
		any |= rp->rv[i].have_mtree || rp->rv[i].mtree_of;
	if (!any) {
		const char *why = gusdata_meta(rp->d, "missing.region_counts");
		snprintf(rp->why_no_region_measure, sizeof rp->why_no_region_measure, "%s",
			 why ? why : "the recording has no per-region counts (recorded without counter groups read "
				     "at each sample, or before gus record took them)");
	}
}

/* -------------------------------------------------------------- SPIRE --- */
/* -1 (printed) on a bad model or one for another CPU: those are the
 * user's input; a recording without interval counts only says why. */
static int load_spire(struct report *rp)
{
	char err[SPIRE_ERRLEN];
	const char *path = rp->o->spire_model;
	FILE *f = fopen(path, "r");
	if (!f) {
		report_error(rp, "--spire: cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = spire_model_read(f, path, &rp->spire_model, err, sizeof err);
	fclose(f);
	if (rc) {
		report_error(rp, "%s", err);
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
		report_error(rp, "%s", err);
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
		report_error(rp, "%s", err);
		return -1;
	}
	rp->have_spire = true;
	rp->spire_set = spire_metricset_load(rp->o->spire_dir,
					     rp->spire_model.cpu ? rp->spire_model.cpu : "", err, sizeof err);
	if (rp->spire_note[0])
		report_warn(rp, "%s", rp->spire_note);
	return 0;
}

/* ------------------------------------------------------------ regions --- */
static int add_region(void *ctx, const struct gusdata_region *g)
{
	struct report *rp = ctx;
	if (rp->nrv == MAX_REGIONS)
		return 0;
	/* gus record writes none of these; a damaged or hand-edited row would
	 * print as 18446744073709551611 samples and -inf % */
	if (g->samples > rp->samples || !(g->share >= 0 && g->share <= 1) || g->end < g->start) {
		report_warn(rp, "%s: hot region %lld (%s) is damaged (%lld samples of %llu, share %g, 0x%llx-0x%llx): "
			    "left out", rp->o->input, (long long)g->id, g->name, (long long)g->samples,
			    (unsigned long long)rp->samples, g->share, (unsigned long long)g->start,
			    (unsigned long long)g->end);
		return 0;
	}
	struct region_view *v = &rp->rv[rp->nrv++];
	memset(v, 0, sizeof *v);
	v->r = *g;
	snprintf(v->kind, sizeof v->kind, "%s", g->kind);
	snprintf(v->name, sizeof v->name, "%s", g->name);
	snprintf(v->file, sizeof v->file, "%s", g->file);
	snprintf(v->build_id, sizeof v->build_id, "%s", g->build_id ? g->build_id : "");
	v->r.kind = v->kind;
	v->r.name = v->name;
	v->r.file = v->file;
	v->r.build_id = v->build_id;
	v->step_tag = report_stepped_range(rp->d, v->file, v->r.start, v->r.end, v->step_why, sizeof v->step_why);
	return 0;
}

/* The callers of every region from the samples' call chains; a
 * recording without them (gus record without -g) says so instead. */
static void load_callers(struct report *rp, struct report_objects *objs, const struct report_span *spans)
{
	char err[1024];
	if (!rp->samples)
		return;
	/* one more than the regions: no calloc of 0 */
	if (!(rp->callers = calloc(rp->nrv + 1, sizeof *rp->callers))) {
		snprintf(rp->why_no_callers, sizeof rp->why_no_callers, "out of memory");
		return;
	}
	if (report_find_callers(rp->d, objs, spans, rp->nrv, TOP_CALLERS, rp->callers, &rp->have_chains, &rp->totals, err,
				sizeof err)) {
		report_warn(rp, "%s: no callers: %s", rp->o->input, err);
		snprintf(rp->why_no_callers, sizeof rp->why_no_callers, "%s", err);
		free(rp->callers);
		rp->callers = NULL;
		rp->have_chains = false;
	} else {
		rp->have_totals = true;
		if (!rp->have_chains)
			snprintf(rp->why_no_callers, sizeof rp->why_no_callers,
				 "the recording has no call chains (recorded without -g: gus record -g records them)");
	}
}

/* The samples' call stacks (--pprof, --folded), their frames in the
 * regions SPANS */
static void load_stacks(struct report *rp, struct report_objects *objs, const struct report_span *spans)
{
	char err[1024];
	report_progress(rp, "call stacks: naming the frames of %llu samples", (unsigned long long)rp->samples);
	if (report_find_stacks(rp->d, objs, spans, rp->nrv, rp->exe, &rp->stacks, err, sizeof err)) {
		report_warn(rp, "%s: no call stacks: %s", rp->o->input, err);
		snprintf(rp->why_no_stacks, sizeof rp->why_no_stacks, "%s", err);
		return;
	}
	rp->have_stacks = true;
}

/* What the samples say beyond the regions, read through the sample run's
 * objects, loaded once for both: the regions' callers, and the call
 * stacks when asked for */
static void load_sample_views(struct report *rp)
{
	char err[1024];
	if (!rp->o->stacks)
		snprintf(rp->why_no_stacks, sizeof rp->why_no_stacks, "not asked for");
	if (!rp->nrv && !rp->o->stacks)
		return;
	struct report_span *spans = calloc(rp->nrv + 1, sizeof *spans);
	struct report_objects *objs = spans ? report_objects_load(rp->d, err, sizeof err) : NULL;
	if (!objs) {
		snprintf(rp->why_no_callers, sizeof rp->why_no_callers, "out of memory");
		if (rp->o->stacks)
			snprintf(rp->why_no_stacks, sizeof rp->why_no_stacks, "out of memory");
		free(spans);
		return;
	}
	for (size_t i = 0; i < rp->nrv; i++)
		spans[i] = (struct report_span){ rp->rv[i].file, rp->rv[i].r.start, rp->rv[i].r.end };
	load_callers(rp, objs, spans);
	if (rp->o->stacks)
		load_stacks(rp, objs, spans);
	report_objects_free(objs);
	free(spans);
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
	/* a mangled name selects the region of its demangled one */
	char demangled[1024];
	if (merge_demangle(want, demangled, sizeof demangled))
		want = demangled;
	if (!strcmp(v->name, want))
		return true;
	size_t n = strlen(want);
	return !strncmp(v->name, want, n) && v->name[n] == ' ';
}

/* ------------------------------------------------------- source lines --- */
static struct merge_srclines *open_lines(struct report *rp, const char *file);

/* file:line of a runtime address in region CTX's file */
static bool srcline_of(void *ctx, uint64_t addr, char *buf, size_t n)
{
	struct region_view *v = ctx;
	struct report *rp = v->rp;
	if (v->changed || v->file[0] != '/')
		return false;
	struct merge_srclines *lines = open_lines(rp, v->file);
	if (!lines)
		return false;
	const char *file;
	int line;
	if (!merge_srcline(lines, addr - (v->have_bias && !v->static_code ? v->bias : 0), &file, &line))
		return false;
	const char *base = strrchr(file, '/');
	snprintf(buf, n, "%s:%d", base ? base + 1 : file, line);
	return true;
}

static struct merge_srclines *open_lines(struct report *rp, const char *file)
{
	for (size_t i = 0; i < LINE_TABLES; i++)
		if (rp->srclines[i].file && !strcmp(rp->srclines[i].file, file))
			return rp->srclines[i].lines;
	/* the oldest one makes room */
	size_t at = rp->next_srclines++ % LINE_TABLES;
	free(rp->srclines[at].file);
	merge_srclines_free(rp->srclines[at].lines);
	char err[512];
	struct merge_srclines *lines = merge_srclines_open(file, err, sizeof err);
	/* libraries usually come without debug information: only the
	 * program's own lack of it is worth saying */
	if (!rp->lines_said && !strcmp(file, rp->exe) && (!lines || !merge_srclines_have_lines(lines))) {
		report_warn(rp, "%s: no debug information: addresses and symbols only", lines ? file : err);
		rp->lines_said = true;
	}
	if (lines && !merge_srclines_have_lines(lines)) {
		merge_srclines_free(lines);
		lines = NULL;
	}
	rp->srclines[at].file = strdup(file);
	rp->srclines[at].lines = rp->srclines[at].file ? lines : NULL;
	if (!rp->srclines[at].file)
		merge_srclines_free(lines);
	return rp->srclines[at].lines;
}

/* ---------------------------------------------------------- simulated --- */
/* Where the traced run had each region: the tracer's mappings of the
 * region's object (QEMU: trace_maps; Intel PT: the sideband's executable
 * mmaps), matched by file offset, since the second run lays objects out
 * anew. The first mapping that holds the region is used. */
static void place_region(struct region_view *v, const char *object, uint64_t start, uint64_t len, uint64_t pgoff,
			 bool by_offset)
{
	if (v->have_bias || strcmp(v->file, object) || v->r.end <= v->r.start)
		return;
	char err[512];
	if (!by_offset) {
		/* a sideband mmap: the ELF segment at PGOFF gives the bias */
		uint64_t bias;
		if (!merge_elf_load_bias(object, start, pgoff, &bias, err, sizeof err) && v->r.start + bias >= start &&
		    v->r.end + bias <= start + len) {
			v->bias = bias;
			v->have_bias = true;
		}
		return;
	}
	uint64_t off;
	if (merge_elf_file_offset(object, v->r.start, &off, err, sizeof err) || off < pgoff || off - pgoff >= len)
		return;
	v->bias = start + (off - pgoff) - v->r.start;
	v->have_bias = true;
}

static int place_by_trace_map(void *ctx, const struct gusdata_trace_map *m)
{
	struct report *rp = ctx;
	/* the stepper's run 3 had its own layout: its regions by its maps */
	bool stepped = m->proc == STREAM_STEP_PROC;
	for (size_t i = 0; i < rp->nrv; i++)
		if ((rp->rv[i].step_tag >= 0) == stepped)
			place_region(&rp->rv[i], m->object, m->start, m->len, m->pgoff, true);
	return 0;
}

static int place_by_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct report *rp = ctx;
	if (!(m->prot & PROT_EXEC))
		return 0;
	for (size_t i = 0; i < rp->nrv; i++)
		place_region(&rp->rv[i], m->filename, m->start, m->len, m->pgoff, false);
	return 0;
}

static void place_regions(struct report *rp)
{
	uint64_t bias;
	if (!strcmp(rp->tracer, "qemu")) {
		gusdata_foreach_trace_map(rp->d, place_by_trace_map, rp);
		/* a recording of schema 3 or before: the program's load bias */
		if (gusdata_meta_u64(rp->d, "trace.load_bias", &bias))
			for (size_t i = 0; i < rp->nrv; i++)
				if (!rp->rv[i].have_bias && !strcmp(rp->rv[i].file, rp->exe)) {
					rp->rv[i].bias = bias;
					rp->rv[i].have_bias = true;
				}
	} else if (!strcmp(rp->tracer, "pt")) {
		gusdata_foreach_mmap(rp->d, place_by_mmap, rp);
	}
}

/* A region's file must be the one recorded: a rebuilt program has other
 * code and lines at the same addresses. Said once per file. */
static void check_build_ids(struct report *rp)
{
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *v = &rp->rv[i];
		if (!v->r.build_id || !v->r.build_id[0] || v->file[0] != '/')
			continue;
		char now[129], err[512];
		bool readable = !merge_elf_build_id(v->file, now, sizeof now, err, sizeof err);
		if (readable && !strcmp(now, v->r.build_id))
			continue;
		v->changed = true;
		snprintf(v->stream_note, sizeof v->stream_note, "%s changed since the recording: its code and lines "
			 "are not used", v->file);
		bool said = false;
		for (size_t j = 0; j < i; j++)
			said |= rp->rv[j].changed && !strcmp(rp->rv[j].file, v->file);
		if (!said)
			report_warn(rp, "%s: %s (build-id %s when recorded, %s now): its source lines and code are not "
				    "used; the trace's own bytes still are", v->file,
				    readable ? "the file changed since the recording"
				    : access(v->file, F_OK) ? "the file is gone" : "the file cannot be read",
				    v->r.build_id, readable ? (now[0] ? now : "none") : err);
	}
}

static void cache_key(const struct report *rp, const struct region_view *v, char *key, size_t n)
{
	snprintf(key, n, "sim/v%d/%s-%016llx/region%lld/w%.3f-%.3f-%zu", REPORT_CACHE_VERSION, sim_machine_name(rp->m),
		 (unsigned long long)sim_machine_digest(rp->m), (long long)v->r.id, rp->weights[0],
		 rp->weights[rp->nweights - 1], rp->nweights);
}

/* Where region V's windows come from (false: the recording has none,
 * the stream is the region's first records): report_trace_source_of */
static bool trace_source(struct report *rp, const struct region_view *v, struct report_trace_source *src, long *range)
{
	return report_trace_source_of(rp->d, rp->tracer, v->file, v->r.start, v->r.end, src, range);
}

/* what of the run region V's stream covers, said in its stream line */
static void region_cover(struct report *rp, struct region_view *v)
{
	struct report_trace_source src;
	long range;
	if (!strcmp(rp->tracer, "none")) {
		memset(&v->cover, 0, sizeof v->cover);
		v->cover.covers = NAN;
		return;
	}
	bool windows = trace_source(rp, v, &src, &range);
	report_cover_of(rp->d, rp->tracer, rp->stage, range, windows, &v->cover);
}

/* the program's PT_INTERP (its dynamic loader) */
static bool program_interpreter(const char *exe, char *out, size_t n)
{
	char err[256];
	return !merge_elf_interpreter(exe, out, n, err, sizeof err) && out[0];
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* the windows' summary beside the cached simulation: "picked total
 * threads per_iteration min median max" and a line per phase */
static void pack_windows(const struct region_view *v, char **out)
{
	*out = NULL;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return;
	const struct report_windows *w = &v->win;
	fprintf(f, "%zu %zu %zu %d %.17g %.17g %.17g\n", w->simulated, w->total, w->threads, w->per_iteration, w->min,
		w->median, w->max);
	for (size_t i = 0; i < v->nphases; i++)
		fprintf(f, "p %.17g %.17g %.17g %.17g %zu\n", v->phases[i].from, v->phases[i].to, v->phases[i].share,
			v->phases[i].cycles_per_unit, v->phases[i].windows);
	for (size_t i = 0; i < v->nwins; i++)
		fprintf(f, "w %.17g %u %.17g\n", v->wins[i].position, (unsigned)v->wins[i].thread,
			v->wins[i].cycles_per_unit);
	if (v->phases_scattered)
		fprintf(f, "s\n");
	for (size_t i = 0; i < v->nthreads; i++)
		fprintf(f, "t %d %d %.17g %d %.17g %s\n", v->threads[i].pid, v->threads[i].tid, v->threads[i].share,
			v->threads[i].simulated, v->threads[i].simulated ? v->threads[i].cycles_per_unit : 0.0,
			v->threads[i].model);
	if (fclose(f) == 0)
		*out = buf;
	else
		free(buf);
}

static bool unpack_windows(struct region_view *v, const char *text)
{
	struct report_windows *w = &v->win;
	int per_iteration;
	int used = 0;
	if (sscanf(text, "%zu %zu %zu %d %lg %lg %lg\n%n", &w->simulated, &w->total, &w->threads, &per_iteration,
		   &w->min, &w->median, &w->max, &used) != 7)
		return false;
	w->per_iteration = per_iteration != 0;
	const char *p = text + used;
	v->nphases = v->nthreads = v->nwins = 0;
	v->phases_scattered = false;
	while (*p) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			return false;
		if (p[0] == 's' && p + 1 == eol) {
			v->phases_scattered = true;
		} else if (p[0] == 'p' && v->nphases < REPORT_MAX_PHASES) {
			struct merge_report_phase *ph = &v->phases[v->nphases];
			if (sscanf(p, "p %lg %lg %lg %lg %zu", &ph->from, &ph->to, &ph->share, &ph->cycles_per_unit,
				   &ph->windows) != 5)
				return false;
			v->nphases++;
		} else if (p[0] == 'w' && v->nwins < REPORT_MAX_WINDOWS) {
			struct merge_report_window *wi = &v->wins[v->nwins];
			unsigned thread;
			if (sscanf(p, "w %lg %u %lg", &wi->position, &thread, &wi->cycles_per_unit) != 3)
				return false;
			wi->thread = thread;
			v->nwins++;
		} else if (p[0] == 't' && v->nthreads < REPORT_MAX_THREADS_SHOWN) {
			struct merge_report_thread *t = &v->threads[v->nthreads];
			int simulated;
			if (sscanf(p, "t %d %d %lg %d %lg %n", &t->pid, &t->tid, &t->share, &simulated, &t->cycles_per_unit,
				   &used) != 5 || p + used > eol)
				return false;
			t->simulated = simulated != 0;
			char *model = v->thread_model[v->nthreads];
			size_t len = (size_t)(eol - (p + used));
			if (len >= sizeof v->thread_model[0])
				len = sizeof v->thread_model[0] - 1;
			memcpy(model, p + used, len);
			model[len] = 0;
			t->model = model;
			v->nthreads++;
		} else {
			return false;
		}
		p = eol + 1;
	}
	return true;
}

/* what the model shows of the windows: the phases as merge_report_phase */
static void windows_to_model(struct region_view *v)
{
	/* the stepper's windows are in run order, but not at places in
	 * the thread's records: no phases of them */
	v->nphases = v->cover.stepped ? 0 : v->win.nphases;
	v->phases_scattered = !v->cover.stepped && v->win.phases_scattered;
	for (size_t i = 0; i < v->nphases; i++) {
		const struct report_phase *p = &v->win.phases[i];
		v->phases[i] = (struct merge_report_phase){ .from = p->from, .to = p->to, .share = p->share,
							    .cycles_per_unit = p->cycles_per_unit,
							    .windows = p->windows };
	}
	v->nwins = 0;
	for (size_t i = 0; i < v->win.n && v->nwins < REPORT_MAX_WINDOWS; i++)
		if (!isnan(v->win.v[i].cycles_per_unit))
			v->wins[v->nwins++] = (struct merge_report_window){ .position = v->win.v[i].position,
									   .thread = v->win.v[i].thread,
									   .cycles_per_unit = v->win.v[i].cycles_per_unit };
}

/* The trace thread that ran region V for the sample run's thread K of
 * its threads: the processes in order (pid, and the tracer's process
 * number), and within a process its threads in order (tid, and creation):
 * the two runs create them alike. -1 when the trace has no match. */
static int64_t trace_thread_for(const struct report_callers *c, size_t k, const struct report_windows *w)
{
	const struct report_thread *me = &c->threads[k];
	/* my process's rank among the region's processes, my rank in it */
	size_t prank = 0, trank = 0;
	for (size_t i = 0; i < c->nthreads; i++) {
		const struct report_thread *t = &c->threads[i];
		bool earlier_pid = t->pid < me->pid;
		for (size_t j = 0; j < i && earlier_pid; j++)
			earlier_pid = c->threads[j].pid != t->pid;
		prank += earlier_pid;
		trank += t->pid == me->pid && t->tid < me->tid;
	}
	size_t p = 0, at = 0;
	for (size_t i = 0; i < w->nthread_ids; i++) {
		uint32_t proc = w->thread_ids[i] >> 16;
		if (i && proc != w->thread_ids[i - 1] >> 16) {
			p++;
			at = 0;
		}
		if (p == prank && at++ == trank)
			return w->thread_ids[i];
	}
	return -1;
}

/* the region's result kept in the recording for the next report */
static void cache_result(struct report *rp, struct region_view *v, const char *key)
{
	if (!rp->writable)
		return;
	uint8_t *blob;
	size_t n;
	if (merge_sim_pack(rp->m, v->code, &v->an, v->stream, &blob, &n) == 0) {
		if (gusdata_put_result(rp->d, key, blob, n))
			report_warn(rp, "%s: cannot cache the result of %s: %s", rp->o->input, v->name,
				    gusdata_errmsg(rp->d));
		free(blob);
	}
}

/* how static_model's stream line starts */
#define STATIC_STREAM "none "

/* ------------------------------------------------------- simulations --- */
/* Each region's simulation, and each of its threads', is a job. Their
 * streams are gathered first, from two readings of the trace for all of
 * them (report_gather: one counts every region's windows, one collects
 * the picked ones; in batches of at most REPORT_BATCH_RECORDS records
 * held at once, one more reading each), then a batch's jobs run side by
 * side on rp->threads threads (pool.c), and what each found is put into
 * the model, cached and said by the calling thread: the recording, the
 * log and the source lines are never touched from the pool. */

#define REPORT_BATCH_RECORDS (8u << 20)
/* records of a static view of a loop alone (gus sim --bin simulates 200
 * iterations; a long body's take fewer, at least STATIC_MIN_ITERATIONS) */
#define STATIC_BUDGET 40000u
#define STATIC_MIN_ITERATIONS 8u
#define THREAD_STREAM_BUDGET 300000	/* records gathered per thread simulated apart */

enum job_kind { JOB_REGION, JOB_THREAD, JOB_STATIC };

struct sim_job {
	enum job_kind kind;
	struct report *rp;
	struct region_view *v;
	struct sim_job *region;		/* JOB_THREAD: its region's job */
	size_t slot;			/* JOB_THREAD: its entry of v->threads */
	/* JOB_REGION, JOB_THREAD: the stream, and the windows it came from
	 * (a region's are v->win) */
	struct simrun_collect tc;
	struct report_windows w;
	bool gathered;			/* by the gather, as its stream STREAM */
	size_t stream;
	size_t batch;
	/* JOB_STATIC: gus sim --bin's view of the code */
	struct sim_code *code;
	struct simrun_loop lp;
	char *static_stream;
	/* the result */
	bool dropped;			/* not simulated: the region says why */
	struct sim_job *twin;		/* the same stream: the sensitivities are the twin's */
	bool ok;
	struct sim_analysis an;
	char err[1024];
	double cost;
};

struct sim_plan {
	struct report *rp;
	struct sim_job **jobs;
	size_t n, cap;
	struct report_trace_source src;	/* the windows' source, for the gather */
	struct report_gather *g;
	size_t batch, nbatches;		/* the batch running, of how many */
	double started;
	uint64_t reading;		/* records expected in the reading going on */
	const char *doing;
	size_t regions;			/* of the batch's jobs, those of regions (not threads) */
};

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct sim_job *new_job(struct sim_plan *pl, enum job_kind kind, struct region_view *v)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 32;
		struct sim_job **j = realloc(pl->jobs, cap * sizeof *j);
		if (!j)
			abort();
		pl->jobs = j;
		pl->cap = cap;
	}
	struct sim_job *j = calloc(1, sizeof *j);
	if (!j)
		abort();
	j->kind = kind;
	j->rp = pl->rp;
	j->v = v;
	j->batch = pl->batch;
	pl->jobs[pl->n++] = j;
	return j;
}

static void free_job(struct sim_job *j)
{
	if (!j)
		return;
	simrun_collect_free(&j->tc);
	sim_code_free(j->tc.code);
	sim_code_free(j->code);
	free(j->lp.recs);
	free(j->static_stream);
	report_windows_free(&j->w);
	if (j->ok)
		sim_analysis_free(&j->an);
	free(j);
}

/* A region without an instruction stream (WHY_NO_MODEL says why) gets gus
 * sim --bin's static view of its code instead: a function's hot loop, in
 * its parent on the path its counters take where they can be followed, a
 * loop region by itself; said so in its stream line. Nothing when its
 * code cannot be read (another file than the recorded one, no symbol).
 * The code is read here, the simulation is a job. */
static void plan_static(struct sim_plan *pl, struct region_view *v)
{
	struct report *rp = pl->rp;
	if (v->changed || v->file[0] != '/' || v->r.end <= v->r.start)
		return;
	bool fn = !strcmp(v->kind, "function");
	struct merge_code mc;
	char source[PATH_MAX + 128], note[2048], err[1024], fewer_note[200] = "";
	if (merge_elf_sim_code(v->file, fn ? v->name : NULL, v->r.start, v->r.end, fn ? rp->m : NULL, &mc, source,
			       sizeof source, note, sizeof note, err, sizeof err))
		return;
	struct sim_code *code = sim_code_new(rp->m);
	struct simrun_loop lp;
	const struct sim_nest *nest = mc.nest.len ? &mc.nest : NULL;
	if (simrun_loop(rp->m, code, mc.addr, mc.bytes, mc.len, nest, 0, &lp, err, sizeof err) != SIMRUN_LOOP_OK) {
		free(lp.recs);
		sim_code_free(code);
		merge_code_free(&mc);
		return;
	}
	if (!nest && lp.src.n > STATIC_BUDGET) {
		/* a loop alone repeats the same instructions the same way:
		 * after its warm-up every iteration takes the same time, and
		 * fewer of a long body's iterations say the same as gus sim
		 * --bin's 200 */
		size_t per = lp.per_iter ? lp.per_iter : 1;
		unsigned it = (unsigned)(STATIC_BUDGET / per);
		if (it < lp.needed)
			it = lp.needed;
		if (it < STATIC_MIN_ITERATIONS)
			it = STATIC_MIN_ITERATIONS;
		struct simrun_loop fewer;
		if (it < lp.iterations &&
		    simrun_loop(rp->m, code, mc.addr, mc.bytes, mc.len, NULL, it, &fewer, err, sizeof err) == SIMRUN_LOOP_OK) {
			free(lp.recs);
			lp = fewer;
			snprintf(fewer_note, sizeof fewer_note, "; %u iterations of its %zu instructions, not 200: a loop "
				 "alone repeats itself, and gus report gives it %u records (%u iterations at least)", it,
				 lp.per_iter, STATIC_BUDGET, STATIC_MIN_ITERATIONS);
		} else if (it < lp.iterations) {
			free(fewer.recs);
		}
	}
	if (nest)
		simrun_nest_note(&lp, nest, note + strlen(note), sizeof note - strlen(note));
	merge_code_free(&mc);
	struct sim_job *j = new_job(pl, JOB_STATIC, v);
	j->code = code;
	j->lp = lp;
	j->cost = (double)lp.src.n * (lp.src.passes > 1 ? lp.src.passes : 1);
	if (asprintf(&j->static_stream, STATIC_STREAM "(%s); simulated statically instead, as gus sim --bin does: %s%s%s%s; "
		     "data without an address the code names taken as L1 hits, branches on data as not taken",
		     v->why_no_model, source, note[0] ? ", loop " : "", note, fewer_note) < 0)
		j->static_stream = NULL;
}

/* the cached simulation of region V, when the recording has it */
static bool load_cached(struct report *rp, struct region_view *v)
{
	char key[256], err[1024];
	cache_key(rp, v, key, sizeof key);
	size_t n;
	uint8_t *blob = gusdata_get_result(rp->d, key, &n);
	if (!blob) {
		/* no simulation, for a reason its stream gives */
		char nkey[300];
		snprintf(nkey, sizeof nkey, "%s/none", key);
		char *why = (char *)gusdata_get_result(rp->d, nkey, &n);
		if (!why)
			return false;
		snprintf(v->why_no_model, sizeof v->why_no_model, "%.*s", (int)(n < sizeof v->why_no_model ? n : sizeof v->why_no_model - 1), why);
		free(why);
		return v->why_no_model[0] != 0;
	}
	int rc = merge_sim_unpack(rp->m, blob, n, &v->code, &v->an, &v->stream, err, sizeof err);
	free(blob);
	if (rc) {
		report_warn(rp, "%s: the cached result of %s is not usable (%s): simulating again", rp->o->input, v->name,
			    err);
		return false;
	}
	v->simulated = v->from_cache = true;
	char wkey[300];
	snprintf(wkey, sizeof wkey, "%s/windows", key);
	char *text = (char *)gusdata_get_result(rp->d, wkey, &n);
	if (text) {
		char *z = realloc(text, n + 1);
		if (z) {
			z[n] = 0;
			if (!unpack_windows(v, z))
				memset(&v->win, 0, sizeof v->win);
			text = z;
		}
		free(text);
	}
	return true;
}

/* A region's stream without windows: the trace's first records of it
 * (QEMU), or the start of the decoded Intel PT */
static int gather_first_records(struct report *rp, struct region_view *v, struct simrun_collect *tc)
{
	char err[1024];
	uint64_t damaged = 0;
	if (!strcmp(rp->tracer, "qemu")) {
		if (gusdata_trace_read(rp->d, simrun_collect_sink, tc, &damaged, err, sizeof err)) {
			snprintf(v->why_no_model, sizeof v->why_no_model, "%s", err);
			return -1;
		}
	} else {
		struct stream_range run = { tc->lo, tc->hi };
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
			report_warn(rp, "%s: %llu gap(s) in the Intel PT trace; the stream resumed after each", v->name,
				    (unsigned long long)st.gaps);
	}
	if (damaged && !rp->damage_said) {
		report_warn(rp, "%llu damaged chunk(s) of the trace (first: %s): each is read up to the damage, "
			    "the rest of it is skipped", (unsigned long long)damaged, err);
		rp->damage_said = true;
	}
	if (damaged)
		snprintf(v->stream_note, sizeof v->stream_note, "%llu damaged trace chunk(s), read up to the damage",
			 (unsigned long long)damaged);
	return 0;
}

/* What region V's simulation takes: its cached result, a reason it has
 * none (a static view instead where one can be had), or a job whose
 * stream is gathered now (without windows) or with the others' */
static void plan_region(struct sim_plan *pl, struct region_view *v)
{
	struct report *rp = pl->rp;
	if (!rp->o->no_cache && load_cached(rp, v))
		return;
	if (!strcmp(v->file, "[vdso]")) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "not simulated: the vDSO (the kernel's code in the process) is not traced");
		return;
	}
	if (v->file[0] != '/') {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "not simulated: anonymous executable memory (JIT code) has no file to trace it by");
		return;
	}
	if (v->r.end <= v->r.start) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "not simulated: no symbol and no unwind table (.eh_frame) bounds this code in %s", v->file);
		return;
	}
	if (!strcmp(rp->tracer, "none") || (!strcmp(rp->tracer, "qemu") && !rp->trace_records)) {
		char why[1024];
		snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: %s",
			 missing_fact(rp, "missing.trace", why, sizeof why) ? why : "the recording has no trace");
		plan_static(pl, v);
		return;
	}
	bool gone = access(v->file, R_OK) != 0;
	if ((v->changed || gone) && !strcmp(rp->tracer, "pt")) {
		/* the decoder follows the trace through the object's code:
		 * without it, none of its trace is decoded */
		bool bid = v->r.build_id && v->r.build_id[0];
		snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: %s is not here%s%s%s%s: its "
			 "Intel PT cannot be decoded without its code", v->file, gone ? "" : " as recorded",
			 bid ? " (build-id " : "", bid ? v->r.build_id : "", bid ? ")" : "");
		plan_static(pl, v);
		return;
	}
	if (!v->have_bias) {
		char interp[PATH_MAX];
		if (v->step_tag >= 0)
			snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: gus record's run 3, "
				 "which was to single-step it natively (%s), never mapped this part of %s", v->step_why,
				 v->file);
		else if (!strcmp(rp->tracer, "qemu") && program_interpreter(rp->exe, interp, sizeof interp) &&
			 same_file(interp, v->file))
			snprintf(v->why_no_model, sizeof v->why_no_model, "not traced: the dynamic loader (%s), which QEMU "
				 "loads itself, is not followed by the QEMU tracer", v->file);
		else
			snprintf(v->why_no_model, sizeof v->why_no_model, "no instruction stream: the traced run never "
				 "mapped this part of %s", v->file);
		plan_static(pl, v);
		return;
	}
	struct sim_job *j = new_job(pl, JOB_REGION, v);
	j->tc = (struct simrun_collect){ .code = sim_code_new(rp->m), .data_addresses = !strcmp(rp->tracer, "qemu"),
					 .max = report_stream_budget(v->r.share), .lo = v->r.start + v->bias,
					 .hi = v->r.end + v->bias };
	struct report_trace_source src;
	long range;
	if (trace_source(rp, v, &src, &range)) {
		/* every region's windows come from the same trace alike */
		if (!pl->g) {
			pl->src = src;
			pl->g = report_gather_new(&pl->src);
		}
		j->gathered = true;
		j->stream = report_gather_add(pl->g, &src, j->tc.lo, j->tc.hi, (uint32_t)range, -1,
					      report_stream_budget(v->r.share), &j->tc, &v->win);
		return;
	}
	report_progress(rp, "region %d of %zu: reading the stream of %s", v->r.rank, rp->nrv, v->name);
	if (gather_first_records(rp, v, &j->tc))
		j->dropped = true;
}

/* Every thread of region J's with REPORT_THREAD_SHARE of its samples or
 * more gets a job of its own, its windows picked from the region's, in a
 * region with REPORT_THREAD_REGION_SHARE of all samples or more */
static void plan_threads(struct sim_plan *pl, struct sim_job *rj)
{
	struct report *rp = pl->rp;
	struct region_view *v = rj->v;
	const struct report_callers *c = rp->callers ? &rp->callers[v - rp->rv] : NULL;
	if (!c || c->nthreads < 2 || v->r.share < REPORT_THREAD_REGION_SHARE)
		return;
	for (size_t k = 0; k < c->nthreads && k < REPORT_MAX_THREADS_SHOWN; k++) {
		if (c->threads[k].share < REPORT_THREAD_SHARE)
			continue;
		int64_t thread = trace_thread_for(c, k, &v->win);
		if (thread < 0)
			continue;
		struct sim_job *j = new_job(pl, JOB_THREAD, v);
		j->region = rj;
		j->slot = k;
		j->tc = (struct simrun_collect){ .code = sim_code_new(rp->m), .data_addresses = true,
						 .max = THREAD_STREAM_BUDGET, .lo = rj->tc.lo, .hi = rj->tc.hi };
		j->gathered = true;
		j->stream = report_gather_add_thread(pl->g, rj->stream, (uint32_t)thread, THREAD_STREAM_BUDGET, &j->tc,
						     &j->w);
	}
}

/* what the gather gave region job J: said, and a static view where there
 * is no stream */
static void check_stream(struct sim_plan *pl, struct sim_job *j)
{
	struct report *rp = pl->rp;
	struct region_view *v = j->v;
	struct simrun_collect *tc = &j->tc;
	if (tc->undecodable)
		report_warn(rp, "%s: %llu instruction(s) the model cannot decode were left out (first at 0x%llx: %s)", v->name,
			    (unsigned long long)tc->undecodable, (unsigned long long)tc->first_bad_ip, tc->first_bad);
	if (tc->n == 0 && v->cover.cut[0] && v->cover.covers == 0) {
		/* the windows filled before the run reached it */
		snprintf(v->why_no_model, sizeof v->why_no_model, "not in the trace: %s", v->cover.cut);
		j->dropped = v->why_final = true;
		plan_static(pl, v);
	} else if (tc->n == 0 && v->step_tag >= 0) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "no stepped window: gus record's run 3, which was to single-step it natively (%s), never found a "
			 "thread in it when it sampled the run%s%s", v->step_why, v->stream_note[0] ? "; " : "",
			 v->stream_note);
		j->dropped = v->why_final = true;
		plan_static(pl, v);
	} else if (tc->n == 0 && !strcmp(rp->tracer, "qemu")) {
		/* sampled natively, never run under QEMU: code chosen for the
		 * CPU at run time (glibc's ifuncs, OpenSSL's and others'
		 * dispatch on CPUID) takes another variant on QEMU's CPU */
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "the traced run never executed it: under QEMU the program ran other code here, as code chosen "
			 "for the CPU at run time does (QEMU's CPU has no AVX-512%s)%s%s",
			 strstr(v->name, "evex") || strstr(v->name, "avx512") ? ", which this variant needs" : "",
			 v->stream_note[0] ? "; " : "", v->stream_note);
		j->dropped = v->why_final = true;
		plan_static(pl, v);
	} else if (tc->n < 16) {
		snprintf(v->why_no_model, sizeof v->why_no_model,
			 "%zu instruction(s) of the region in the trace: too few to simulate%s%s", tc->n,
			 v->stream_note[0] ? "; " : "", v->stream_note);
		j->dropped = v->why_final = true;
	}
}

/* the head of job J's region, at its runtime address */
static uint64_t job_head(const struct sim_job *j)
{
	return j->v->r.head + j->v->bias;
}

/* The cuts of SRC's measured records at the starts of the N runs of
 * its windows (STARTS, ascending): each run a unit of the sweep's
 * standard errors; *CUTS malloc'ed */
static void set_cuts(struct sim_source *src, const struct report_windows *w, size_t **cuts)
{
	*cuts = calloc(w->nruns + 1, sizeof **cuts);
	if (!*cuts)
		abort();
	size_t k = 0;
	for (size_t i = 0; i < w->nruns; i++)
		if (w->runs[i].off > src->mark && w->runs[i].off < src->n && (!k || w->runs[i].off > (*cuts)[k - 1]))
			(*cuts)[k++] = w->runs[i].off;
	src->cuts = *cuts;
	src->ncuts = k;
}

/* The resources a thread's job sweeps: of RES (N), those that changed
 * its region's time unlimited (the thread's windows are some of the
 * region's: what does nothing to the whole does next to nothing to a
 * part), which its region's job, run first, found; all N where the
 * region has none to say. */
static size_t thread_resources(const struct sim_job *j, uint8_t *res, size_t n)
{
	const struct sim_analysis *an = j->region && j->region->ok ? &j->region->an : NULL;
	if (!an || !an->nsens)
		return n;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool moved = false;
		for (size_t s = 0; s < an->nsens && !moved; s++) {
			const struct sim_sensitivity *se = &an->sens[s];
			if (se->searched || se->set.n != 1 || se->set.res[0] != res[i])
				continue;
			moved = se->upper > 1e-9 || se->dip > 0 ||
				(an->nweights && se->speedup && se->speedup[an->nweights - 1] != 0);
		}
		if (moved)
			res[k++] = res[i];
	}
	return k ? k : n;
}

/* A job, on a thread of the pool: the simulation, and its windows timed
 * (the prepass of the stream once for both). The sweep's speedups get a
 * standard error over the windows' runs: the windows are a sample of
 * the run. */
static void run_job(void *arg, unsigned threads)
{
	struct sim_job *j = arg;
	struct report *rp = j->rp;
	struct sim_code *code = j->kind == JOB_STATIC ? j->code : j->tc.code;
	struct report_windows *w = j->kind == JOB_REGION ? &j->v->win : j->kind == JOB_THREAD ? &j->w : NULL;
	uint8_t res[SIM_MAX_RES];
	size_t nres = simrun_default_resources(rp->m, code, res);
	/* a thread's line says its top resource at the top weight alone */
	static const double top_only[] = { 1.15 };
	bool thread = j->kind == JOB_THREAD;
	if (thread)
		nres = thread_resources(j, res, nres);
	/* a twin's sensitivities are its twin's: its own base only */
	struct sim_analysis_opts ao = {
		.weights = thread ? top_only : rp->weights, .nweights = j->twin ? 0 : thread ? 1 : rp->nweights,
		.resources = res, .nresources = nres, .threshold = 0.01, .search = true, .threads = threads,
		.prune = true, .tape = sim_tape_new(),
	};
	struct sim_source src = j->kind == JOB_STATIC ? j->lp.src
						      : simrun_source(&j->tc, job_head(j), (struct stream_range){ 0, 0 });
	size_t *cuts = NULL;
	if (w && w->nruns)
		set_cuts(&src, w, &cuts);
	if (sim_analyze(rp->m, code, &src, &ao, &j->an, j->err, sizeof j->err)) {
		sim_analysis_free(&j->an);
	} else {
		j->ok = true;
		if (w && w->n)
			report_windows_simulate(rp->m, &j->tc, job_head(j), ao.tape, w);
	}
	sim_tape_free(ao.tape);
	free(cuts);
}

/* the same records of the same code: the same sensitivities */
static bool same_stream(const struct sim_job *a, const struct sim_job *b)
{
	if (a->tc.n != b->tc.n || sim_code_count(a->tc.code) != sim_code_count(b->tc.code) ||
	    memcmp(a->tc.recs, b->tc.recs, a->tc.n * sizeof *a->tc.recs))
		return false;
	for (size_t i = 0; i < sim_code_count(a->tc.code); i++)
		if (sim_code_insn(a->tc.code, i)->addr != sim_code_insn(b->tc.code, i)->addr)
			return false;
	return true;
}

/* A function whose time is all its loop's has the loop's stream: the
 * sweep runs once for both (the speedups are ratios of times, the same
 * whatever the unit) */
static void find_twins(struct sim_plan *pl, size_t batch)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *a = pl->jobs[i];
		if (a->batch != batch || a->dropped || a->twin || a->kind == JOB_STATIC)
			continue;
		for (size_t k = i + 1; k < pl->n; k++) {
			struct sim_job *b = pl->jobs[k];
			if (b->batch == batch && !b->dropped && !b->twin && b->kind != JOB_STATIC && same_stream(a, b)) {
				b->twin = a;
				b->cost /= 40;
			}
		}
	}
}

/* the sensitivities of B's twin into B */
static void copy_sweep(struct sim_job *b)
{
	const struct sim_analysis *a = &b->twin->an;
	if (!b->ok)
		return;
	if (!b->twin->ok) {
		snprintf(b->err, sizeof b->err, "%s", b->twin->err);
		sim_analysis_free(&b->an);
		b->ok = false;
		return;
	}
	for (size_t i = 0; i < b->an.nsens; i++) {
		free(b->an.sens[i].speedup);
		free(b->an.sens[i].error);
	}
	free(b->an.sens);
	free(b->an.weights);
	b->an.nweights = a->nweights;
	b->an.weights = calloc(a->nweights ? a->nweights : 1, sizeof *b->an.weights);
	b->an.sens = calloc(a->nsens + 1, sizeof *b->an.sens);
	if (!b->an.weights || !b->an.sens)
		abort();
	if (a->nweights)
		memcpy(b->an.weights, a->weights, a->nweights * sizeof *a->weights);
	b->an.nsens = a->nsens;
	for (size_t i = 0; i < a->nsens; i++) {
		b->an.sens[i] = a->sens[i];
		b->an.sens[i].speedup = calloc(a->nweights ? a->nweights : 1, sizeof *b->an.sens[i].speedup);
		if (!b->an.sens[i].speedup)
			abort();
		if (a->nweights)
			memcpy(b->an.sens[i].speedup, a->sens[i].speedup, a->nweights * sizeof *a->sens[i].speedup);
		if (a->sens[i].error) {
			b->an.sens[i].error = malloc((a->nweights + 1) * sizeof *b->an.sens[i].error);
			if (!b->an.sens[i].error)
				abort();
			memcpy(b->an.sens[i].error, a->sens[i].error, (a->nweights + 1) * sizeof *a->sens[i].error);
		}
	}
	b->an.pruned = a->pruned;
}

/* the largest standard error of AN's speedups at the top weight, over
 * the resources simulated there (NAN: none has one) */
static double top_error(const struct sim_analysis *an)
{
	double e = NAN;
	for (size_t i = 0; i < an->nsens && an->nweights; i++)
		if (an->sens[i].error && isfinite(an->sens[i].error[an->nweights - 1]) &&
		    !(an->sens[i].error[an->nweights - 1] <= e))
			e = an->sens[i].error[an->nweights - 1];
	return e;
}

/* What the report says of how its windows and sweep stand for the run,
 * appended to a stream line: the sampling error of the run's time from
 * the windows (W), the speedups' standard error over them, and the
 * weights not simulated for the resources without an effect
 * (sim_analysis_opts.prune) */
static void sweep_note(const struct sim_analysis *an, const struct report_windows *w, char *out, size_t len)
{
	size_t k = 0;
	out[0] = 0;
	if (w && w->simulated > 1 && isfinite(w->whole_error))
		k += (size_t)snprintf(out + k, len - k, "; the run's time per %s from %zu windows: ±%.1f %% (one standard "
				      "error)", w->per_iteration ? "iteration" : "instruction", w->simulated,
				      100 * w->whole_error);
	double e = top_error(an);
	if (isfinite(e) && an->nweights && k < len)
		k += (size_t)snprintf(out + k, len - k, "; the speedups at +%.0f %%: ±%.1f points at most (one standard error "
				      "over the windows)", 100 * (an->weights[an->nweights - 1] - 1), 100 * e);
	if (an->pruned && an->nweights && k < len)
		snprintf(out + k, len - k, "; %zu of the %zu resources swept changed nothing unlimited: not simulated at "
			 "+%.0f..+%.0f %% (0 there)", an->pruned, an->nsens, 100 * (an->weights[0] - 1),
			 100 * (an->weights[an->nweights - 1] - 1));
}

/* the threads of region job J's, from their jobs (simulate_threads' lines) */
static void fill_threads(struct sim_plan *pl, struct sim_job *rj)
{
	struct report *rp = pl->rp;
	struct region_view *v = rj->v;
	const struct report_callers *c = rp->callers ? &rp->callers[v - rp->rv] : NULL;
	v->nthreads = 0;
	if (!c || c->nthreads < 2)
		return;
	for (size_t k = 0; k < c->nthreads && v->nthreads < REPORT_MAX_THREADS_SHOWN; k++) {
		struct merge_report_thread *t = &v->threads[v->nthreads];
		char *model = v->thread_model[v->nthreads];
		size_t len = sizeof v->thread_model[0];
		v->nthreads++;
		*t = (struct merge_report_thread){ .pid = c->threads[k].pid, .tid = c->threads[k].tid,
						   .share = c->threads[k].share, .model = model };
		snprintf(model, len, "under %.0f %% of the region's samples: not simulated apart", 100 * REPORT_THREAD_SHARE);
		if (c->threads[k].share < REPORT_THREAD_SHARE)
			continue;
		if (v->r.share < REPORT_THREAD_REGION_SHARE) {
			snprintf(model, len, "not simulated apart: the region has under %.0f %% of all samples",
				 100 * REPORT_THREAD_REGION_SHARE);
			continue;
		}
		struct sim_job *j = NULL;
		for (size_t i = 0; i < pl->n && !j; i++)
			if (pl->jobs[i]->kind == JOB_THREAD && pl->jobs[i]->region == rj && pl->jobs[i]->slot == k)
				j = pl->jobs[i];
		if (!j) {
			snprintf(model, len, "no thread of the trace matches it");
			continue;
		}
		if (j->err[0] && !j->ok) {
			snprintf(model, len, j->tc.n < 16 ? "%.190s" : "the simulation failed: %.150s", j->err);
			continue;
		}
		if (!j->ok)
			continue;
		t->simulated = true;
		t->cycles_per_unit = isfinite(j->w.whole) && j->w.per_iteration == v->win.per_iteration
					     ? j->w.whole
					     : j->an.cycles_per_unit;
		struct merge_verdict vd;
		merge_verdict(NULL, "", rp->m, &j->an, NULL, &vd);
		/* the verdict's speedup's standard error, where the sweep has one */
		double e = NAN;
		for (size_t i = 0; i < j->an.nsens && j->an.nweights; i++)
			if (j->an.sens[i].error && j->an.sens[i].speedup[j->an.nweights - 1] == vd.speedup_top)
				e = j->an.sens[i].error[j->an.nweights - 1];
		if (vd.resource[0] && isfinite(e))
			snprintf(model, len, "%s (%+.1f ± %.1f %% at +15 %%)", vd.resource, 100 * vd.speedup_top, 100 * e);
		else if (vd.resource[0])
			snprintf(model, len, "%s (%+.1f %% at +15 %%)", vd.resource, 100 * vd.speedup_top);
		else
			snprintf(model, len, "no single resource limits it");
	}
}

/* a region's job done: its simulation into the model, cached */
static void finish_region(struct sim_plan *pl, struct sim_job *j)
{
	struct report *rp = pl->rp;
	struct region_view *v = j->v;
	char key[256];
	cache_key(rp, v, key, sizeof key);
	if (j->kind == JOB_STATIC) {
		if (!j->ok)
			return;
		v->an = j->an;
		j->ok = false;
		v->stream = j->static_stream;
		j->static_stream = NULL;
		char note[400];
		sweep_note(&v->an, NULL, note, sizeof note);
		if (note[0] && v->stream) {
			char *s;
			if (asprintf(&s, "%s%s", v->stream, note) >= 0) {
				free(v->stream);
				v->stream = s;
			}
		}
		v->why_no_model[0] = 0;
		v->code = j->code;
		j->code = NULL;
		v->simulated = true;
		cache_result(rp, v, key);
		return;
	}
	if (!j->ok) {
		snprintf(v->why_no_model, sizeof v->why_no_model, "the simulation failed: %s", j->err);
		return;
	}
	v->an = j->an;
	j->ok = false;
	if (v->win.n) {
		windows_to_model(v);
		/* the base time of the whole run: each window (timed in the
		 * concatenated stream) as often as the sample hit it; the
		 * concatenated stream gives the sensitivities */
		report_run_estimate_apply(&v->win.run, &v->an);
		fill_threads(pl, j);
	}
	char stream[sizeof v->cover.over + sizeof v->cover.cut + 256], note[800];
	size_t budget = report_stream_budget(v->r.share);
	if (budget < REPORT_STREAM_BUDGET && v->win.budget_bound) {
		v->cover.budget = budget;
		v->cover.share = v->r.share;
	}
	report_stream_line(rp->d, rp->tracer, NULL, j->tc.n, true, -1, &v->cover, stream, sizeof stream);
	sweep_note(&v->an, v->win.n ? &v->win : NULL, note, sizeof note);
	if (asprintf(&v->stream, "%s%s%s%s", stream, v->stream_note[0] ? "; " : "", v->stream_note, note) < 0)
		v->stream = NULL;
	v->code = j->tc.code;
	j->tc.code = NULL;
	v->simulated = true;
	cache_result(rp, v, key);
	if (rp->writable) {
		char *text;
		if (v->win.n && (pack_windows(v, &text), text)) {
			char wkey[300];
			snprintf(wkey, sizeof wkey, "%s/windows", key);
			gusdata_put_result(rp->d, wkey, (const uint8_t *)text, strlen(text));
			free(text);
		}
	}
}

/* progress while the pool runs a batch: what, how far, how long */
static void tick(void *ctx, size_t done, size_t n)
{
	struct sim_plan *pl = ctx;
	char batch[48] = "";
	if (pl->nbatches > 1)
		snprintf(batch, sizeof batch, " (batch %zu of %zu)", pl->batch + 1, pl->nbatches);
	report_progress(pl->rp, "%.1f s: simulating%s, %zu of %zu done (%zu region(s), %zu thread(s)), on %u thread(s)",
			now_seconds() - pl->started, batch, done, n, pl->regions, n - pl->regions, pl->rp->threads);
}

/* progress while the trace is read */
static void reading(void *ctx, uint64_t records)
{
	struct sim_plan *pl = ctx;
	char batch[48] = "";
	if (pl->nbatches > 1)
		snprintf(batch, sizeof batch, " (batch %zu of %zu)", pl->batch + 1, pl->nbatches);
	report_progress(pl->rp, "%.1f s: reading the trace%s, %.1f of %.1f M records (%s)", now_seconds() - pl->started,
			batch, (double)records / 1e6, (double)pl->reading / 1e6, pl->doing);
}

/* the gather failed: every region and thread it was for says why */
static void gather_failed(struct sim_plan *pl, size_t batch, bool all, const char *err)
{
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (!j->gathered || j->dropped || (!all && j->batch != batch))
			continue;
		j->dropped = true;
		if (j->kind == JOB_REGION)
			snprintf(j->v->why_no_model, sizeof j->v->why_no_model, "%s", err);
		else
			snprintf(j->err, sizeof j->err, "%s", err);
	}
}

/* what reading the trace found wrong, said once per report and noted in
 * each region's stream line */
static void gather_said(struct sim_plan *pl, uint64_t damaged, const char *err)
{
	struct report *rp = pl->rp;
	if (damaged && !rp->damage_said) {
		report_warn(rp, "%llu damaged chunk(s) of the trace (first: %s): each is read up to the damage, "
			    "the rest of it is skipped", (unsigned long long)damaged, err);
		rp->damage_said = true;
	}
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->kind != JOB_REGION || !j->gathered || j->dropped || j->batch != pl->batch)
			continue;
		if (pl->src.pt_gaps)
			report_warn(rp, "%s: %llu gap(s) in the Intel PT trace; the stream resumed after each", j->v->name,
				    (unsigned long long)pl->src.pt_gaps);
		if (damaged)
			snprintf(j->v->stream_note, sizeof j->v->stream_note,
				 "%llu damaged trace chunk(s), read up to the damage", (unsigned long long)damaged);
	}
}

/* Batches of region jobs (each with its threads) whose streams together
 * hold at most REPORT_BATCH_RECORDS records; jobs without a gathered
 * stream go with the first */
static void plan_batches(struct sim_plan *pl)
{
	size_t batch = 0;
	uint64_t held = 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		j->batch = 0;
		if (j->kind != JOB_REGION || !j->gathered || j->dropped)
			continue;
		uint64_t records = report_gather_records(pl->g, j->stream);
		for (size_t k = 0; k < pl->n; k++)
			if (pl->jobs[k]->region == j)
				records += report_gather_records(pl->g, pl->jobs[k]->stream);
		if (held && held + records > REPORT_BATCH_RECORDS) {
			batch++;
			held = 0;
		}
		held += records;
		j->batch = batch;
	}
	for (size_t i = 0; i < pl->n; i++)
		if (pl->jobs[i]->region)
			pl->jobs[i]->batch = pl->jobs[i]->region->batch;
	pl->nbatches = batch + 1;
}

/* one batch: its streams collected, its jobs run, their results taken */
static void run_batch(struct sim_plan *pl)
{
	struct report *rp = pl->rp;
	size_t b = pl->batch;
	if (pl->g) {
		size_t *which = calloc(pl->n + 1, sizeof *which);
		size_t nw = 0;
		pl->reading = rp->trace_records;
		if (!which)
			abort();
		for (size_t i = 0; i < pl->n; i++)
			if (pl->jobs[i]->gathered && !pl->jobs[i]->dropped && pl->jobs[i]->batch == b)
				which[nw++] = pl->jobs[i]->stream;
		char err[1024] = "";
		uint64_t damaged = 0;
		pl->doing = "collecting the windows picked";
		if (nw && report_gather_collect(pl->g, which, nw, &damaged, err, sizeof err))
			gather_failed(pl, b, false, err);
		else if (nw)
			gather_said(pl, damaged, err);
		free(which);
	}
	/* a stream too short or missing: said, maybe a static view (a job
	 * of this batch) */
	size_t n = pl->n;
	for (size_t i = 0; i < n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch != b || j->dropped || j->kind == JOB_STATIC)
			continue;
		if (j->kind == JOB_REGION) {
			check_stream(pl, j);
		} else if (j->region->dropped) {
			j->dropped = true;
		} else if (j->tc.n < 16) {
			snprintf(j->err, sizeof j->err, "%zu instruction(s) of it in the trace: too few", j->tc.n);
			j->dropped = true;
		}
		if (!j->dropped)
			j->cost = (double)j->tc.n;
	}
	for (size_t i = 0; i < pl->n; i++)
		if (pl->jobs[i]->region && pl->jobs[i]->region->dropped)
			pl->jobs[i]->dropped = true;
	find_twins(pl, b);
	struct report_pool_task *tasks = calloc(pl->n + 1, sizeof *tasks);
	size_t nt = 0;
	if (!tasks)
		abort();
	pl->regions = 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && !j->dropped && j->kind != JOB_THREAD) {
			tasks[nt++] = (struct report_pool_task){ .run = run_job, .arg = j, .cost = j->cost };
			pl->regions++;
		}
	}
	report_pool_run(tasks, nt, rp->threads, tick, pl);
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && !j->dropped && j->twin)
			copy_sweep(j);
	}
	/* the threads' jobs after their regions': each sweeps only what
	 * changed its region's time (thread_resources) */
	nt = 0;
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && !j->dropped && j->kind == JOB_THREAD)
			tasks[nt++] = (struct report_pool_task){ .run = run_job, .arg = j, .cost = j->cost };
	}
	if (nt) {
		pl->regions = 0;
		report_pool_run(tasks, nt, rp->threads, tick, pl);
	}
	free(tasks);
	/* the batch's results cached in one transaction: a commit each
	 * would wait for the disk twice per region */
	bool tx = rp->writable && !gusdata_begin(rp->d);
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && !j->dropped && j->kind != JOB_THREAD)
			finish_region(pl, j);
	}
	for (size_t i = 0; i < pl->n && rp->writable; i++) {
		struct region_view *v = pl->jobs[i]->v;
		if (pl->jobs[i]->batch != b || pl->jobs[i]->kind != JOB_REGION || !v->why_final || v->simulated)
			continue;
		char key[256], nkey[300];
		cache_key(rp, v, key, sizeof key);
		snprintf(nkey, sizeof nkey, "%s/none", key);
		gusdata_put_result(rp->d, nkey, (const uint8_t *)v->why_no_model, strlen(v->why_no_model));
	}
	if (tx && gusdata_commit(rp->d))
		report_warn(rp, "%s: cannot cache the results: %s", rp->o->input, gusdata_errmsg(rp->d));
	/* the batch's streams are done with */
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && j->kind == JOB_THREAD) {
			simrun_collect_free(&j->tc);
			sim_code_free(j->tc.code);
			j->tc.code = NULL;
		}
	}
	for (size_t i = 0; i < pl->n; i++) {
		struct sim_job *j = pl->jobs[i];
		if (j->batch == b && j->kind != JOB_THREAD) {
			free_job(j);
			pl->jobs[i] = NULL;
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->jobs[i])
			pl->jobs[k++] = pl->jobs[i];
	pl->n = k;
}

/* Every selected region's simulation: cached, or simulated with the
 * others */
static void simulate_regions(struct report *rp)
{
	struct sim_plan pl = { .rp = rp, .started = now_seconds() };
	for (size_t i = 0; i < rp->nrv; i++)
		if (region_selected(rp, &rp->rv[i]))
			plan_region(&pl, &rp->rv[i]);
	if (pl.g) {
		char err[1024] = "";
		uint64_t damaged = 0;
		size_t regions = 0;
		for (size_t i = 0; i < pl.n; i++)
			regions += pl.jobs[i]->gathered;
		char doing[96];
		snprintf(doing, sizeof doing, "counting the windows of %zu region(s)", regions);
		pl.doing = doing;
		pl.reading = rp->trace_records;
		report_gather_progress(pl.g, reading, &pl);
		if (report_gather_count(pl.g, &damaged, err, sizeof err)) {
			gather_failed(&pl, 0, true, err);
		} else {
			size_t n = pl.n;
			for (size_t i = 0; i < n; i++)
				if (pl.jobs[i]->kind == JOB_REGION && pl.jobs[i]->gathered && !pl.jobs[i]->dropped)
					plan_threads(&pl, pl.jobs[i]);
		}
		plan_batches(&pl);
	}
	/* the threads' jobs stay until their region's batch is done: the
	 * region's lines name them */
	for (pl.batch = 0; pl.batch < (pl.nbatches ? pl.nbatches : 1); pl.batch++) {
		run_batch(&pl);
		for (size_t i = 0; i < pl.n; i++) {
			if (pl.jobs[i]->kind == JOB_THREAD && pl.jobs[i]->batch == pl.batch) {
				free_job(pl.jobs[i]);
				pl.jobs[i] = NULL;
			}
		}
		size_t k = 0;
		for (size_t i = 0; i < pl.n; i++)
			if (pl.jobs[i])
				pl.jobs[k++] = pl.jobs[i];
		pl.n = k;
	}
	for (size_t i = 0; i < pl.n; i++)
		free_job(pl.jobs[i]);
	free(pl.jobs);
	report_gather_free(pl.g);
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


/* the per-instruction rows and source lines of simulated region V */
static void annotate_region(struct report *rp, struct region_view *v)
{
	char why[PATH_MAX + 128] = "";
	struct merge_srclines *lines = NULL;
	if (v->changed)
		snprintf(why, sizeof why, "its file is not the one recorded (another build-id): no lines from it");
	else if (v->file[0] != '/')
		snprintf(why, sizeof why, "not code of a file");
	else if (!(lines = open_lines(rp, v->file)))
		snprintf(why, sizeof why, "%s has no line table (no debug information)", v->file);
	report_annotate(rp->m, v->code, &v->an, v->r.start + v->bias, v->r.end + v->bias, v->bias, lines, why, &v->ann);
}

static void region_source_line(struct report *rp, struct region_view *v)
{
	char buf[PATH_MAX];
	if (srcline_of(v, v->r.head + v->bias, buf, sizeof buf))
		snprintf(v->source, sizeof v->source, "%s", buf);
}

/* ------------------------------------------------------------ the model --- */
static int add_meta(void *ctx, const char *key, const char *value)
{
	struct report *rp = ctx;
	if (rp->nmeta == rp->capmeta) {
		size_t cap = rp->capmeta ? 2 * rp->capmeta : 32;
		struct merge_report_fact *m = realloc(rp->meta, cap * sizeof *m);
		if (!m)
			return -1;
		rp->meta = m;
		rp->capmeta = cap;
	}
	char *k = strdup(key), *v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	rp->meta[rp->nmeta++] = (struct merge_report_fact){ k, v };
	return 0;
}

static void fill_run(struct report *rp, struct merge_run_info *run)
{
	memset(run, 0, sizeof *run);
	uint64_t v;
	run->exit_status = gusdata_meta_u64(rp->d, "exit_status", &v) ? (int)v : 0;
	run->interrupted = gusdata_meta(rp->d, "interrupted") != NULL;
	run->seconds = gusdata_meta_u64(rp->d, "seconds_x1000", &v) ? (double)v / 1000 : 0;
	run->runs = 1;
	char buf[16];
	run->smt_on = !strcmp(meta_or(rp->d, "tma.smt", buf, sizeof buf, "off"), "on");
	run->argv = rp->argv_store;
	const char *src = gusdata_meta(rp->d, "counts.source");
	if (src && !strncmp(src, "import ", 7)) {
		run->import = merge_report_meta(&rp->model, "counts.source") + 7;
		run->argv = NULL;
	}
	if (rp->multiplexed)
		run->notes = " The events did not fit the counters at once: they were multiplexed and\n"
			     " scaled (raw x enabled / running); [mux N%] shows how long a node's\n"
			     " events were counted.\n";
}

/* What region V's cycles per unit count: a loop's iterations; a
 * function's calls where its stream was simulated from its entry (each
 * unit an execution of the entry) or its whole code statically (each
 * pass a call), the iterations of its hot loop where the static view
 * picked one (merge_elf_sim_code: "innermost loop" in its stream line);
 * instructions where the stream never ran the head. */
static const char *region_unit(const struct region_view *v)
{
	bool loop = !strcmp(v->kind, "loop");
	if (!v->simulated)
		return loop ? "iteration" : "call";
	if (v->stream && !strncmp(v->stream, STATIC_STREAM, strlen(STATIC_STREAM)))
		return loop || strstr(v->stream, ", innermost loop 0x") ? "iteration" : "call";
	if (!(v->an.units > 0))
		return "instruction";
	return loop ? "iteration" : "call";
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* A loop's function, a function's only hot loop (the one loop of it the
 * regions hold: a loop that is all of its function's looping, whose
 * simulation would say the same twice), and which regions have details:
 * --region's, else those at or above the share limit, or all. */
static void fill_details(struct report *rp)
{
	struct merge_report *m = &rp->model;
	m->percent_limit = rp->o->percent_limit;
	m->all = rp->o->all;
	for (size_t i = 0; i < rp->nrv; i++) {
		struct merge_report_region *r = &rp->mr[i];
		const struct region_view *v = &rp->rv[i];
		if (strcmp(v->kind, "loop") || !v->r.parent)
			continue;
		for (size_t k = 0; k < rp->nrv; k++)
			if (rp->rv[k].r.id == v->r.parent && !strcmp(rp->rv[k].kind, "function"))
				r->parent = (long)k;
	}
	for (size_t i = 0; i < rp->nrv; i++) {
		struct merge_report_region *r = &rp->mr[i];
		if (r->parent < 0)
			continue;
		size_t loops = 0;
		for (size_t k = 0; k < rp->nrv; k++)
			loops += rp->mr[k].parent == r->parent;
		if (loops == 1)
			rp->mr[r->parent].only_loop = (long)i;
	}
	for (size_t i = 0; i < rp->nrv; i++) {
		struct merge_report_region *r = &rp->mr[i];
		r->details = r->selected && (m->one_region || m->all || 100 * r->share >= m->percent_limit - 1e-9);
	}
	for (size_t i = 0; i < rp->nrv; i++) {
		struct merge_report_region *r = &rp->mr[i];
		/* shown once, with its function, where both are shown */
		if (r->parent >= 0 && rp->mr[r->parent].only_loop == (long)i && rp->mr[r->parent].selected &&
		    r->selected) {
			r->with_parent = true;
			r->details = rp->mr[r->parent].details;
		}
		if (r->selected && !r->details && !r->with_parent)
			m->regions_without_details++;
	}
}

/* the rows of the time outside the hot functions: the kernel, user code
 * in no known object, and the functions not kept, so that the table adds
 * up to the whole profile */
static void fill_outside(struct report *rp)
{
	struct merge_report *m = &rp->model;
	if (!rp->have_totals || !rp->totals.weight)
		return;
	const struct report_sample_totals *t = &rp->totals;
	double w = (double)t->weight;
	double funcs_share = 0;
	uint64_t funcs_samples = 0;
	for (size_t i = 0; i < rp->nrv; i++)
		if (!strcmp(rp->rv[i].kind, "function")) {
			funcs_share += rp->rv[i].r.share;
			funcs_samples += (uint64_t)rp->rv[i].r.samples;
		}
	if (t->kernel_samples) {
		if (t->kernel_top[0])
			snprintf(rp->kernel_what, sizeof rp->kernel_what, "samples in the kernel, not traced or "
				 "simulated: %s", t->kernel_top);
		else
			snprintf(rp->kernel_what, sizeof rp->kernel_what, "samples in the kernel (system calls, page "
				 "faults, interrupts): not traced or simulated");
		rp->outside[m->noutside++] = (struct merge_report_outside){
			"[kernel]", rp->kernel_what, t->kernel_samples, (double)t->kernel_weight / w };
	}
	if (t->unknown_samples)
		rp->outside[m->noutside++] = (struct merge_report_outside){
			"[unknown]", "user code in no object the sample run mapped: not traced or simulated",
			t->unknown_samples, (double)t->unknown_weight / w };
	double other = 1 - funcs_share - (double)(t->kernel_weight + t->unknown_weight) / w;
	uint64_t placed = funcs_samples + t->kernel_samples + t->unknown_samples;
	if (other > 5e-5 && t->samples > placed)
		rp->outside[m->noutside++] = (struct merge_report_outside){
			"[other functions]", "functions not kept among the hot regions (gus record --hot N keeps more)",
			t->samples - placed, other };
	m->outside = rp->outside;
}

/* an exit status (128 + N) of SIGINT, SIGTERM or SIGHUP, as a run
 * stopped by Ctrl-C ends */
static bool stopped_by_signal(const char *status)
{
	long v = status ? strtol(status, NULL, 10) : 0;
	return v == 128 + 2 || v == 128 + 15 || v == 128 + 1;
}

/* how the run and the trace run ended, in words (merge_report.run_notes) */
static void fill_run_notes(struct report *rp)
{
	struct merge_report *m = &rp->model;
	/* copies: a fact's value lasts until the next one is read */
	char status_buf[32], wait_buf[32], trace_buf[32];
	const char *status = gusdata_meta(rp->d, "exit_status")
				     ? meta_or(rp->d, "exit_status", status_buf, sizeof status_buf, "")
				     : NULL;
	const char *wait = gusdata_meta(rp->d, "wait_status")
				   ? meta_or(rp->d, "wait_status", wait_buf, sizeof wait_buf, "")
				   : NULL;
	unsigned long long v = status ? strtoull(status, NULL, 10) : 0;
	/* the signal from the wait status: a program may exit with 139 itself */
	int ws = wait ? (int)strtol(wait, NULL, 10) : 0;
	const char *sig = wait && WIFSIGNALED(ws) ? sigabbrev_np(WTERMSIG(ws)) : NULL;
	size_t n = 0;
	if (v && sig)
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0],
			 "the program exited with status %llu (killed by SIG%s)", v, sig);
	else if (v)
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0], "the program exited with status %llu%s",
			 v, v > 128 && v < 128 + 65 && !wait ? " (killed by a signal?)" : "");
	/* Ctrl-C is passed to the program, which may ignore or handle it */
	if (gusdata_meta(rp->d, "interrupted") && stopped_by_signal(status))
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0],
			 "the run was interrupted (Ctrl-C): what follows covers its first part");
	else if (gusdata_meta(rp->d, "interrupted"))
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0],
			 "Ctrl-C was passed to the program, which did not die of it (exit status %llu); the trace run "
			 "was skipped", v);
	const char *trace_status = gusdata_meta(rp->d, "trace.exit_status")
					   ? meta_or(rp->d, "trace.exit_status", trace_buf, sizeof trace_buf, "")
					   : NULL;
	if (gusdata_meta(rp->d, "trace.interrupted") && stopped_by_signal(trace_status))
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0],
			 "the trace run was interrupted (Ctrl-C): its stream covers the first part of that run");
	else if (gusdata_meta(rp->d, "trace.interrupted"))
		snprintf(rp->run_note_text[n++], sizeof rp->run_note_text[0],
			 "Ctrl-C was passed to the program in the trace run, which did not die of it");
	for (size_t i = 0; i < n; i++)
		rp->run_note[i] = rp->run_note_text[i];
	m->run_notes = rp->run_note;
	m->nrun_notes = n;
}

/* the model points into RP: its facts, its regions, its analyses */
static int fill_model(struct report *rp)
{
	struct merge_report *m = &rp->model;
	m->input = rp->o->input;
	if (gusdata_foreach_meta(rp->d, add_meta, rp))
		return -1;
	m->meta = rp->meta;
	m->nmeta = rp->nmeta;
	/* objects: a perf.data's objects not here (gus import) */
	static const char *what[] = { "counts", "samples", "regions", "trace", "pt", "kernel_samples", "objects",
				      "kernel_symbols" };
	for (size_t i = 0; i < sizeof what / sizeof *what; i++) {
		char key[32];
		snprintf(key, sizeof key, "missing.%s", what[i]);
		if (missing_fact(rp, key, rp->missing_text[m->nmissing], sizeof rp->missing_text[0]))
			rp->missing[m->nmissing] = (struct merge_report_fact){ what[i], rp->missing_text[m->nmissing] },
			m->nmissing++;
	}
	m->missing = rp->missing;
	if (rp->stage[0]) {
		describe_cut(rp, rp->incomplete, sizeof rp->incomplete);
		m->incomplete = rp->incomplete;
		m->cut_before_trace = strcmp(rp->stage, "tracing") != 0;
	} else if (strcmp(gusdata_meta(rp->d, "record.complete") ? gusdata_meta(rp->d, "record.complete") : "no",
			  "yes")) {
		m->incomplete = "gus record was stopped or failed: parts are missing";
	}
	m->samples = rp->samples;
	m->trace_records = rp->trace_records;
	/* a trace stopped short of the run: how much of the traced ranges it covers */
	m->trace_stopped = merge_report_meta(m, "trace.stopped");
	m->trace_covers = m->trace_stopped ? report_trace_covers(rp->d) : NAN;
	m->tracer = rp->tracer;
	m->m = rp->m;
	m->tree = rp->have_tree ? &rp->tree : NULL;
	fill_run(rp, &m->run);
	m->why_no_measure = rp->why_no_measure;
	m->why_no_region_measure = rp->why_no_region_measure[0] ? rp->why_no_region_measure : NULL;
	/* said once where some region's tree comes from its samples */
	bool sampled = false;
	for (size_t i = 0; i < rp->nrv; i++)
		sampled |= rp->rv[i].have_mtree && !rp->rv[i].mimported;
	m->skid_note = sampled ? "a region's counts are the deltas of the counter groups read at its samples: each "
				 "delta covers the time since the thread's previous sample of the group, and is given to "
				 "the region of the sample's address, which skids a few instructions past the overflow "
				 "unless the sampling event is precise; short regions borrow from their neighbours"
			       : NULL;
	m->spire_asked = rp->o->spire_model != NULL;
	if (rp->have_spire) {
		m->spire_model = &rp->spire_model;
		m->spire_ss = &rp->spire_ss;
		m->spire_an = &rp->spire_an;
		rp->spire_inputs[0] = rp->o->input;
		m->spire_info = (struct merge_spire_info){
			.model_path = rp->o->spire_model,
			.inputs = rp->spire_inputs,
			.n_inputs = 1,
			.metrics = rp->spire_set,
			.top = 15,
			.cpu_note = rp->spire_note[0] ? rp->spire_note : NULL,
		};
	}
	m->why_no_spire = rp->why_no_spire;
	if (!(rp->mr = calloc(rp->nrv + 1, sizeof *rp->mr)))
		return -1;
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *v = &rp->rv[i];
		/* the per-instruction tables and the disassembly in the file's
		 * link-time addresses, not where the traced run had them */
		bool static_view = v->simulated && v->stream && !strncmp(v->stream, STATIC_STREAM, strlen(STATIC_STREAM));
		v->static_code = static_view;
		if (v->simulated && v->code && v->bias && !static_view)
			sim_code_retext(v->code, v->bias);
		v->unit = region_unit(v);
		rp->mr[i] = (struct merge_report_region){
			.object = v->file[0] == '[' ? v->file : base_name(v->file), .unit = v->unit,
			.parent = -1, .only_loop = -1,
			.id = v->r.id, .rank = v->r.rank, .kind = v->kind, .name = v->name, .file = v->file,
			.start = v->r.start, .end = v->r.end, .head = v->r.head, .samples = v->r.samples,
			.share = v->r.share, .source = v->source, .selected = region_selected(rp, v),
			.simulated = v->simulated, .from_cache = v->from_cache, .code = v->code, .an = &v->an,
			.stream = v->stream, .why_no_model = v->why_no_model, .verdict = v->verdict,
			/* a static view's code is at its link-time addresses */
			.srcline = srcline_of, .srcline_ctx = v, .bias = static_view ? 0 : v->bias,
			.measured = region_measured(v),
			.measured_samples = v->mtree_of ? v->mtree_of->msamples : v->msamples,
			.measured_imported = v->mtree_of ? v->mtree_of->mimported : v->mimported, .measured_note = v->mnote,
			.measured_of_function = v->mtree_of != NULL,
			.counts = v->mcs.n ? &v->mcs : NULL,
		};
		/* what of the run its stream covers: a simulation of a stream */
		bool streamed = v->simulated && v->stream && strncmp(v->stream, STATIC_STREAM, strlen(STATIC_STREAM));
		rp->mr[i].stream_covers = streamed ? v->cover.covers : NAN;
		rp->mr[i].stream_covers_at_most = streamed && v->cover.at_most;
		rp->mr[i].stream_cut = streamed && v->cover.cut[0] ? v->cover.cut : NULL;
		/* which tracer its stream came from, and why the stepper's */
		rp->mr[i].tracer = streamed ? (v->cover.stepped ? "ptrace" : rp->tracer) : v->simulated ? "static" : "none";
		rp->mr[i].tracer_why = v->step_tag >= 0 ? v->step_why : NULL;
		if (v->simulated && v->win.simulated) {
			rp->mr[i].windows = v->win.simulated;
			rp->mr[i].windows_total = v->win.total;
			rp->mr[i].window_threads = v->win.threads;
			/* a function's windows count the executions of its entry */
			rp->mr[i].window_unit = !v->win.per_iteration ? "instruction"
						: strcmp(v->kind, "loop") ? "call" : "iteration";
			rp->mr[i].window_min = v->win.min;
			rp->mr[i].window_median = v->win.median;
			rp->mr[i].window_max = v->win.max;
			rp->mr[i].phases = v->phases;
			rp->mr[i].nphases = v->nphases;
			rp->mr[i].phases_scattered = v->phases_scattered;
			rp->mr[i].threads = v->threads;
			rp->mr[i].nthreads = v->nthreads;
		}
		if (v->simulated) {
			annotate_region(rp, v);
			rp->mr[i].window_list = v->wins;
			rp->mr[i].nwindow_list = v->nwins;
			rp->mr[i].insns = v->ann.insns;
			rp->mr[i].ninsns = v->ann.ninsns;
			rp->mr[i].srclines = v->ann.lines;
			rp->mr[i].nsrclines = v->ann.nlines;
			rp->mr[i].why_no_source = v->ann.why;
		}
		if (rp->callers) {
			rp->mr[i].callers = rp->callers[i].v;
			rp->mr[i].ncallers = rp->callers[i].n;
			rp->mr[i].callers_other = rp->callers[i].other;
			rp->mr[i].chain_samples = rp->callers[i].with_chain;
			rp->mr[i].insn_samples = rp->callers[i].at;
			rp->mr[i].ninsn_samples = rp->callers[i].nat;
			rp->mr[i].insn_samples_total = rp->callers[i].samples;
			rp->mr[i].inlined = rp->callers[i].inlined;
			rp->mr[i].ninlined = rp->callers[i].ninlined;
		}
	}
	m->regions = rp->mr;
	m->nregions = rp->nrv;
	m->one_region = rp->o->region != NULL;
	m->why_no_callers = rp->have_chains ? NULL : rp->why_no_callers;
	if (rp->have_stacks) {
		m->stacks = rp->stacks.stacks;
		m->nstacks = rp->stacks.nstacks;
		m->frames = rp->stacks.frames;
		m->nframes = rp->stacks.nframes;
		m->mappings = rp->stacks.mappings;
		m->nmappings = rp->stacks.nmappings;
		m->stack_weight = rp->stacks.weight;
		m->stacks_chained = rp->stacks.chained;
	} else {
		m->why_no_stacks = rp->why_no_stacks;
	}
	fill_details(rp);
	fill_outside(rp);
	fill_run_notes(rp);
	return 0;
}

/* the CPUs this process may run on */
static unsigned available_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* ---------------------------------------------------------------- build --- */
enum recording_status report_build(const struct report_request *o, struct report **out)
{
	char err[1024], buf[PATH_MAX];
	enum recording_status rc = RECORDING_ERROR;
	*out = NULL;
	struct report *rp = calloc(1, sizeof *rp);
	if (!rp)
		return RECORDING_ERROR;
	rp->o = o;
	rp->rv = calloc(MAX_REGIONS, sizeof *rp->rv);
	if (!rp->rv)
		goto out;

	/* writable for the cache; a read-only file (or directory) still
	 * reports, uncached: SQLite would open it read-only without a word */
	char dirbuf[PATH_MAX];
	snprintf(dirbuf, sizeof dirbuf, "%s", o->input);
	char *slash = strrchr(dirbuf, '/');
	if (slash)
		*(slash == dirbuf ? slash + 1 : slash) = 0;
	bool can_write = access(o->input, W_OK) == 0 && access(slash ? dirbuf : ".", W_OK) == 0;
	/* a perf.data: imported into a recording of its own, uncached
	 * (gus import keeps one) */
	bool perf = recording_is_perf_data(o->input);
	if (perf) {
		struct recording_import_request iq = { .input = o->input, .machines_dir = o->machines_dir,
						       .tma_dir = o->tma_dir, .log = o->log };
		if ((rc = recording_import_open(&iq, &rp->d)) != RECORDING_OK)
			goto out;
		rc = RECORDING_ERROR;
		can_write = false;
	} else if (gusdata_open(o->input, can_write, &rp->d, err, sizeof err)) {
		report_error(rp, "%s", err);
		goto out;
	}
	rp->writable = can_write;
	if (!can_write && !perf)
		report_warn(rp, "%s is read-only: results will not be cached", o->input);
	/* a recording of gus record without its stage is either complete or
	 * older than the stages */
	if (gusdata_meta(rp->d, "record.stage") && strcmp(gusdata_meta(rp->d, "record.stage"), "done"))
		meta_or(rp->d, "record.stage", rp->stage, sizeof rp->stage, "");
	rp->samples = gusdata_sample_count(rp->d);
	if (!gusdata_meta(rp->d, "sample.event") && !gusdata_meta(rp->d, "record.stage") &&
	    gusdata_meta(rp->d, "tracer"))
		report_warn(rp, "%s was recorded with Intel PT only (no samples, counts or regions)", o->input);
	meta_or(rp->d, "command", buf, sizeof buf, "");
	rp->argv_store[0] = strdup(buf);
	meta_or(rp->d, "exe", rp->exe, sizeof rp->exe, "");
	meta_or(rp->d, "tracer", rp->tracer, sizeof rp->tracer, "none");
	rp->trace_records = gusdata_trace_records(rp->d);

	/* the machine model: asked, recorded, or this one's */
	const char *arch = o->arch ? o->arch : gusdata_meta(rp->d, "sim.machine");
	char archbuf[64];
	snprintf(archbuf, sizeof archbuf, "%s", arch ? arch : o->host_machine);
	if (!(rp->m = sim_machine_find(o->machines_dir, archbuf, err, sizeof err))) {
		report_error(rp, "%s%s", err, o->arch ? "" : " (the machine the recording names; --arch picks another)");
		rc = o->arch ? RECORDING_USAGE : RECORDING_ERROR;
		goto out;
	}
	/* the four weights the text shows: a sweep of 16 per resource would
	 * cost four times as long for the same table */
	static const double weights[] = { 1.01, 1.05, 1.10, 1.15 };
	memcpy(rp->weights, weights, sizeof weights);
	rp->nweights = 4;
	rp->threads = o->threads > 0 ? (unsigned)o->threads : available_cpus();

	load_measured(rp);
	if (o->spire_model && load_spire(rp))
		goto out;
	if (gusdata_foreach_region(rp->d, add_region, rp)) {
		report_error(rp, "%s: the hot regions cannot be read: %s", o->input, gusdata_errmsg(rp->d));
		goto out;
	}
	if (o->region) {
		bool any = false;
		for (size_t i = 0; i < rp->nrv; i++)
			any |= region_selected(rp, &rp->rv[i]);
		if (!any) {
			/* one line, as every message is: the terminal escapes it
			 * whole (a name's newline too) */
			char list[4096];
			size_t k = 0;
			for (size_t i = 0; i < rp->nrv && k < sizeof list; i++)
				k += (size_t)snprintf(list + k, sizeof list - k, "%s %d %s", i ? ";" : "", rp->rv[i].r.rank,
						      rp->rv[i].name);
			report_error(rp, "--region: no region '%s' in %s; its regions:%s", o->region, o->input,
			    rp->nrv ? list : " none");
			rc = RECORDING_USAGE;
			goto out;
		}
	}
	load_region_measured(rp);
	load_sample_views(rp);
	/* where the traced run had each region, and whether its file is
	 * still the one recorded */
	place_regions(rp);
	check_build_ids(rp);
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		rv->rp = rp;
		region_source_line(rp, rv);
		region_cover(rp, rv);
	}
	simulate_regions(rp);
	for (size_t i = 0; i < rp->nrv; i++) {
		struct region_view *rv = &rp->rv[i];
		char why_model[200], why_measure[200];
		short_reason(rv->why_no_model, why_model, sizeof why_model);
		short_reason(rp->why_no_measure, why_measure, sizeof why_measure);
		/* the region's own tree where it has one: like with like */
		const struct td_tree *own = region_measured(rv);
		merge_verdict(own ? own : rp->have_tree ? &rp->tree : NULL, why_measure, rp->m,
			      rv->simulated ? &rv->an : NULL, rv->simulated ? NULL : why_model, &rv->verdict);
		/* a static view (static_model's stream line, also when cached)
		 * is said in the verdict too */
		if (rv->simulated && rv->stream && !strncmp(rv->stream, STATIC_STREAM, strlen(STATIC_STREAM))) {
			static const char mark[] = " [simulated statically: no stream of this code]";
			size_t l = strlen(rv->verdict.text);
			if (l + sizeof mark > sizeof rv->verdict.text)
				l = sizeof rv->verdict.text - sizeof mark;
			memcpy(rv->verdict.text + l, mark, sizeof mark);
			static const char short_mark[] = " [static: no stream]";
			l = strlen(rv->verdict.summary);
			if (l + sizeof short_mark > sizeof rv->verdict.summary)
				l = sizeof rv->verdict.summary - sizeof short_mark;
			memcpy(rv->verdict.summary + l, short_mark, sizeof short_mark);
		}
	}
	report_progress_end(rp);
	if (fill_model(rp)) {
		report_error(rp, "out of memory");
		goto out;
	}
	*out = rp;
	return RECORDING_OK;
out:
	report_free(rp);
	return rc;
}

const struct merge_report *report_model(const struct report *rp)
{
	return &rp->model;
}

void report_free(struct report *rp)
{
	if (!rp)
		return;
	if (rp->rv)
		for (size_t i = 0; i < rp->nrv; i++) {
			if (rp->rv[i].simulated)
				sim_analysis_free(&rp->rv[i].an);
			sim_code_free(rp->rv[i].code);
			free(rp->rv[i].stream);
			report_windows_free(&rp->rv[i].win);
			if (rp->rv[i].have_mtree)
				td_tree_free(&rp->rv[i].mtree);
			td_countset_free(&rp->rv[i].mcs);
			report_annotation_free(&rp->rv[i].ann);
		}
	free(rp->rv);
	free(rp->mr);
	report_callers_free(rp->callers, rp->nrv);
	free(rp->callers);
	report_stacks_free(&rp->stacks);
	for (size_t i = 0; i < rp->nmeta; i++) {
		free((char *)rp->meta[i].key);
		free((char *)rp->meta[i].value);
	}
	free(rp->meta);
	free(rp->argv_store[0]);
	for (size_t i = 0; i < LINE_TABLES; i++) {
		free(rp->srclines[i].file);
		merge_srclines_free(rp->srclines[i].lines);
	}
	if (rp->have_tree)
		td_tree_free(&rp->tree);
	free(rp->eval_select);
	td_table_free(rp->table);
	sim_machine_free(rp->m);
	if (rp->have_spire)
		spire_analysis_free(&rp->spire_an);
	if (rp->have_spire_ss)
		spire_sampleset_free(&rp->spire_ss);
	if (rp->have_spire_model)
		spire_model_free(&rp->spire_model);
	spire_metricset_free(rp->spire_set);
	gusdata_close(rp->d);
	free(rp);
}
