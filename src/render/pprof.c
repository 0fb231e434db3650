/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report's call stacks as google/pprof's profile.proto
 * (src/render/profile.proto, github.com/google/pprof), serialized with
 * protobuf-c and gzipped with zlib as the format asks: what go tool pprof,
 * Parca, Pyroscope and Grafana read. A location per frame of the model,
 * a function per distinct name, file and symbol, a mapping per mapping of
 * the sample run that a frame is in, and a sample per stack with its
 * samples and time; the hot regions' measured and simulated Top-Down and
 * verdicts are string labels on their samples. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "render.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* labels on the samples of one hot region */
#define MAX_LABELS 8

/* the profile's string table: each string once, at the index its
 * messages name; [0] is "" */
struct strtab {
	char **v;
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 free */
	size_t nslot;
	bool failed;
};

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* the index of S (escaped as text: a string gus did not make reaches the
 * viewers' terminals and web pages as every gus output writes it) */
static int64_t str_index(struct strtab *t, const char *s)
{
	if (t->failed)
		return 0;
	if (!s)
		s = "";
	size_t len = strlen(s);
	char *esc = malloc(4 * len + 1);
	if (!esc)
		goto oom;
	render_text_escape(esc, 4 * len + 1, s);
	if (2 * (t->n + 1) > t->nslot) {
		size_t nslot = t->nslot ? 2 * t->nslot : 1024;
		size_t *slot = calloc(nslot, sizeof *slot);
		if (!slot)
			goto oom;
		for (size_t i = 0; i < t->n; i++) {
			size_t k = str_hash(t->v[i]) & (nslot - 1);
			while (slot[k])
				k = (k + 1) & (nslot - 1);
			slot[k] = i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = nslot;
	}
	size_t k = str_hash(esc) & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
		if (!strcmp(t->v[t->slot[k] - 1], esc)) {
			free(esc);
			return (int64_t)(t->slot[k] - 1);
		}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **v = realloc(t->v, cap * sizeof *v);
		if (!v)
			goto oom;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = esc;
	t->slot[k] = t->n + 1;
	return (int64_t)t->n++;
oom:
	free(esc);
	t->failed = true;
	return 0;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
}

/* a function of the profile: one per distinct name, symbol and file */
struct func_key {
	int64_t name, system_name, filename, start_line;
};

struct funcs {
	Function *v;
	struct func_key *keys;
	size_t n;
	size_t *slot;		/* index + 1, 0 free; twice the frames */
	size_t nslot;
};

static uint64_t func_id(struct funcs *f, const struct func_key *key)
{
	size_t h = (size_t)(key->name * 31 + key->system_name) * 1000003u ^ (size_t)(key->filename * 131 + key->start_line);
	size_t k = (h * 0x9e3779b97f4a7c15ULL) & (f->nslot - 1);
	for (; f->slot[k]; k = (k + 1) & (f->nslot - 1))
		if (!memcmp(&f->keys[f->slot[k] - 1], key, sizeof *key))
			return f->slot[k];
	Function *fn = &f->v[f->n];
	perftools__profiles__function__init(fn);
	fn->id = f->n + 1;
	fn->name = key->name;
	fn->system_name = key->system_name;
	fn->filename = key->filename;
	fn->start_line = key->start_line;
	f->keys[f->n] = *key;
	f->slot[k] = ++f->n;
	return fn->id;
}

/* the recording's fact KEY, a count, times SCALE; 0 when absent or out of
 * range (a recording is untrusted input) */
static int64_t meta_scaled(const struct merge_report *r, const char *key, int64_t scale)
{
	const char *v = merge_report_meta(r, key);
	if (!v || *v < '0' || *v > '9')
		return 0;
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x > INT64_MAX / scale)
		return 0;
	return x * scale;
}

/* ("cpu", "nanoseconds") for a clock, ("cycles", "count") for cycles, as
 * pprof's viewers name them; another event by its name */
static void event_type(const char *event, char *type, size_t n, const char **unit)
{
	if (!event || !event[0] || !strncmp(event, "cpu-clock", 9) || !strncmp(event, "task-clock", 10)) {
		snprintf(type, n, "cpu");
		*unit = "nanoseconds";
		return;
	}
	size_t len = strcspn(event, ":/");
	snprintf(type, n, "%.*s", (int)len, event);
	*unit = "count";
}

static void pct(char *buf, size_t n, const char *name, double share, bool *first)
{
	size_t l = strlen(buf);
	if (l < n)
		snprintf(buf + l, n - l, "%s%s %.1f%%", *first ? "" : ", ", name, 100 * share);
	*first = false;
}

/* the level-1 nodes of TREE as "Frontend_Bound 10.5%, ..." ("" when none is known) */
static void measured_level1(const struct td_tree *tree, char *buf, size_t n)
{
	bool first = true;
	buf[0] = 0;
	if (!tree || !tree->table || !tree->res)
		return;
	for (size_t i = 0; i < tree->table->n_nodes; i++)
		if (tree->table->nodes[i].level == 1 && tree->res[i].status == TD_OK)
			pct(buf, n, tree->table->nodes[i].name, tree->res[i].value, &first);
}

/* the simulated Top-Down of A in the words of M's hierarchy */
static void simulated_level1(const struct sim_machine *m, const struct sim_analysis *a, char *buf, size_t n)
{
	const struct sim_stats *b = &a->base;
	bool first = true;
	buf[0] = 0;
	if (!(b->slots > 0))
		return;
	bool amd = m && sim_machine_topdown(m) == SIM_TOPDOWN_AMD;
	if (!amd)
		pct(buf, n, "Retiring", b->retiring / b->slots, &first);
	pct(buf, n, "Frontend Bound", b->frontend / b->slots, &first);
	pct(buf, n, "Bad Speculation", b->bad_spec / b->slots, &first);
	pct(buf, n, "Backend Bound", (b->backend_mem + b->backend_core) / b->slots, &first);
	size_t l = strlen(buf);
	if (l < n)
		snprintf(buf + l, n - l, " (%s %.1f%%, %s %.1f%%)", amd ? "Memory" : "Memory Bound",
			 100 * b->backend_mem / b->slots, amd ? "CPU" : "Core Bound", 100 * b->backend_core / b->slots);
	if (amd) {
		first = false;
		pct(buf, n, "Retiring", b->retiring / b->slots, &first);
	}
}

/* the labels of region V into L (its *N labels) */
static void region_labels(const struct merge_report *r, const struct merge_report_region *v, struct strtab *st,
			  Label *l, size_t *n)
{
	char buf[1024];
	*n = 0;
#define STR_LABEL(k, s) \
	do { \
		perftools__profiles__label__init(&l[*n]); \
		l[*n].key = str_index(st, k); \
		l[*n].str = str_index(st, s); \
		(*n)++; \
	} while (0)
	STR_LABEL("gus_region", v->name);
	perftools__profiles__label__init(&l[*n]);
	l[*n].key = str_index(st, "gus_region_rank");
	l[*n].num = v->rank;
	(*n)++;
	STR_LABEL("gus_verdict", merge_agreement_name(v->verdict.kind));
	STR_LABEL("gus_bottleneck", v->verdict.text);
	if (v->verdict.resource[0])
		STR_LABEL("gus_simulated_top", v->verdict.resource);
	if (v->simulated && v->an) {
		simulated_level1(r->m, v->an, buf, sizeof buf);
		if (buf[0])
			STR_LABEL("gus_simulated_topdown", buf);
	}
	measured_level1(v->measured, buf, sizeof buf);
	if (buf[0])
		STR_LABEL("gus_measured_topdown", buf);
	if (v->verdict.measured[0]) {
		snprintf(buf, sizeof buf, "%s %.1f%%", v->verdict.measured, 100 * v->verdict.measured_value);
		STR_LABEL("gus_measured_bottleneck", buf);
	}
#undef STR_LABEL
}

/* gzip (RFC 1952) of P into OUT */
static int write_gzip(FILE *out, const uint8_t *p, size_t n, char *err, size_t errlen)
{
	z_stream zs = { 0 };
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		snprintf(err, errlen, "zlib: %s", zs.msg ? zs.msg : "cannot start compressing");
		return -1;
	}
	uint8_t buf[65536];
	zs.next_in = (Bytef *)p;
	int rc = Z_OK;
	size_t left = n;
	do {
		/* avail_in is 32 bits: a larger profile goes in pieces */
		if (!zs.avail_in && left) {
			zs.avail_in = left > (1u << 30) ? 1u << 30 : (uInt)left;
			left -= zs.avail_in;
		}
		zs.next_out = buf;
		zs.avail_out = sizeof buf;
		rc = deflate(&zs, left || zs.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (rc == Z_STREAM_ERROR) {
			snprintf(err, errlen, "zlib: %s", zs.msg ? zs.msg : "compression failed");
			deflateEnd(&zs);
			return -1;
		}
		size_t got = sizeof buf - zs.avail_out;
		if (got && fwrite(buf, 1, got, out) != got)
			break;		/* the stream's error: the caller sees it */
	} while (rc != Z_STREAM_END);
	deflateEnd(&zs);
	return 0;
}

int render_pprof(FILE *out, const struct merge_report *r, char *err, size_t errlen)
{
	if (r->why_no_stacks) {
		snprintf(err, errlen, "no call stacks: %s", r->why_no_stacks);
		return -1;
	}
	int rc = -1;
	struct strtab st = { 0 };
	struct funcs fs = { 0 };
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[2] = { PERFTOOLS__PROFILES__VALUE_TYPE__INIT, PERFTOOLS__PROFILES__VALUE_TYPE__INIT };
	ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	ValueType *vtp[2] = { &vt[0], &vt[1] };
	size_t nf = r->nframes, ns = r->nstacks, nm = r->nmappings, nr = r->nregions;
	Mapping *maps = calloc(nm + 1, sizeof *maps);
	Mapping **mapp = calloc(nm + 1, sizeof *mapp);
	Location *locs = calloc(nf + 1, sizeof *locs);
	Location **locp = calloc(nf + 1, sizeof *locp);
	Line *lines = calloc(nf + 1, sizeof *lines);
	Line **linep = calloc(nf + 1, sizeof *linep);
	Function **funcp = calloc(nf + 1, sizeof *funcp);
	Sample *samples = calloc(ns + 1, sizeof *samples);
	Sample **samplep = calloc(ns + 1, sizeof *samplep);
	int64_t *values = calloc(2 * ns + 1, sizeof *values);
	Label *labels = calloc(nr * MAX_LABELS + 1, sizeof *labels);
	Label **labelp = calloc(nr * MAX_LABELS + 1, sizeof *labelp);
	size_t *nlabels = calloc(nr + 1, sizeof *nlabels);
	int64_t comments[8];
	size_t nids = 0;
	for (size_t i = 0; i < ns; i++)
		nids += r->stacks[i].nframes;
	uint64_t *ids = calloc(nids + 1, sizeof *ids);
	fs.nslot = 1024;
	while (fs.nslot < 2 * (nf + 1))
		fs.nslot *= 2;
	fs.v = calloc(nf + 1, sizeof *fs.v);
	fs.keys = calloc(nf + 1, sizeof *fs.keys);
	fs.slot = calloc(fs.nslot, sizeof *fs.slot);
	uint8_t *packed = NULL;
	if (!maps || !mapp || !locs || !locp || !lines || !linep || !funcp || !samples || !samplep || !values ||
	    !labels || !labelp || !nlabels || !ids || !fs.v || !fs.keys || !fs.slot)
		goto oom;
	str_index(&st, "");	/* [0] */

	/* what a sample's values are: how many samples, and the event's time */
	char type[64];
	const char *unit;
	const char *event = merge_report_meta(r, "sample.event");
	event_type(event, type, sizeof type, &unit);
	vt[0].type = str_index(&st, "samples");
	vt[0].unit = str_index(&st, "count");
	vt[1].type = str_index(&st, type);
	vt[1].unit = str_index(&st, unit);
	period_type = vt[1];
	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.period_type = &period_type;
	prof.default_sample_type = vt[1].type;
	uint64_t nsamples = 0;
	for (size_t i = 0; i < ns; i++)
		nsamples += r->stacks[i].samples;
	/* the period of the samples (fixed with cpu-clock; cycles sampled at
	 * a frequency vary it): their mean */
	prof.period = nsamples ? (int64_t)(r->stack_weight / nsamples) : 0;
	const char *v;
	prof.time_nanos = meta_scaled(r, "start_time", 1000000000);
	prof.duration_nanos = meta_scaled(r, "seconds_x1000", 1000000);

	/* comments: what pprof -comments and the viewers show of the run */
	char buf[2048];
	size_t nc = 0;
	snprintf(buf, sizeof buf, "gus report of %s", r->input ? r->input : "");
	comments[nc++] = str_index(&st, buf);
	if ((v = merge_report_meta(r, "command"))) {
		snprintf(buf, sizeof buf, "command: %s", v);
		comments[nc++] = str_index(&st, buf);
	}
	snprintf(buf, sizeof buf, "%" PRIu64 " samples of %s; %s", nsamples, event ? event : "cpu-clock",
		 r->stacks_chained ? "stacks from the call chains of gus record -g"
				   : "no call chains (gus record -g records them): each sample is its function alone");
	comments[nc++] = str_index(&st, buf);
	char level1[1024];
	measured_level1(r->tree, level1, sizeof level1);
	if (level1[0]) {
		snprintf(buf, sizeof buf, "measured Top-Down of the whole program: %s", level1);
		comments[nc++] = str_index(&st, buf);
	}
	comments[nc++] = str_index(&st, "labels of a hot region's samples: gus_region, gus_region_rank, gus_verdict, "
					"gus_bottleneck, gus_simulated_top, gus_simulated_topdown, "
					"gus_measured_topdown, gus_measured_bottleneck (gus-report(1))");
	prof.n_comment = nc;
	prof.comment = comments;

	for (size_t i = 0; i < nm; i++) {
		const struct merge_report_mapping *m = &r->mappings[i];
		Mapping *mp = &maps[i];
		perftools__profiles__mapping__init(mp);
		mp->id = i + 1;
		mp->memory_start = m->start;
		mp->memory_limit = m->end;
		mp->file_offset = m->pgoff;
		mp->filename = str_index(&st, m->object);
		mp->build_id = str_index(&st, m->build_id);
		mp->has_functions = m->have_functions;
		mp->has_filenames = m->have_lines;
		mp->has_line_numbers = m->have_lines;
		mapp[i] = mp;
	}
	prof.n_mapping = nm;
	prof.mapping = mapp;

	for (size_t i = 0; i < nf; i++) {
		const struct merge_report_frame *f = &r->frames[i];
		struct func_key key = {
			.name = str_index(&st, f->function), .system_name = str_index(&st, f->mangled[0] ? f->mangled : f->function),
			.filename = str_index(&st, f->function_file[0] ? f->function_file : f->source_file),
			.start_line = f->function_line,
		};
		Line *ln = &lines[i];
		perftools__profiles__line__init(ln);
		ln->function_id = func_id(&fs, &key);
		ln->line = f->line;
		linep[i] = ln;
		Location *lc = &locs[i];
		perftools__profiles__location__init(lc);
		lc->id = i + 1;
		lc->mapping_id = f->mapping >= 0 ? (uint64_t)f->mapping + 1 : 0;
		lc->address = f->address;
		lc->n_line = 1;
		lc->line = &linep[i];
		locp[i] = lc;
	}
	for (size_t i = 0; i < fs.n; i++)
		funcp[i] = &fs.v[i];
	prof.n_location = nf;
	prof.location = locp;
	prof.n_function = fs.n;
	prof.function = funcp;

	for (size_t i = 0; i < nr; i++) {
		region_labels(r, &r->regions[i], &st, &labels[i * MAX_LABELS], &nlabels[i]);
		for (size_t k = 0; k < nlabels[i]; k++)
			labelp[i * MAX_LABELS + k] = &labels[i * MAX_LABELS + k];
	}
	uint64_t *id = ids;
	for (size_t i = 0; i < ns; i++) {
		const struct merge_report_stack *s = &r->stacks[i];
		Sample *sp = &samples[i];
		perftools__profiles__sample__init(sp);
		sp->n_location_id = s->nframes;
		sp->location_id = id;
		for (size_t k = 0; k < s->nframes; k++)
			*id++ = s->frames[k] + 1;
		values[2 * i] = (int64_t)s->samples;
		values[2 * i + 1] = (int64_t)s->weight;
		sp->n_value = 2;
		sp->value = &values[2 * i];
		/* the labels of the innermost hot region of its leaf */
		long reg = s->nframes ? r->frames[s->frames[0]].region : -1;
		if (reg >= 0 && (size_t)reg < nr) {
			sp->n_label = nlabels[reg];
			sp->label = &labelp[(size_t)reg * MAX_LABELS];
		}
		samplep[i] = sp;
	}
	prof.n_sample = ns;
	prof.sample = samplep;
	if (st.failed)
		goto oom;
	prof.n_string_table = st.n;
	prof.string_table = st.v;

	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	if (!(packed = malloc(len + 1)))
		goto oom;
	perftools__profiles__profile__pack(&prof, packed);
	rc = write_gzip(out, packed, len, err, errlen);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(packed);
	strtab_free(&st);
	free(fs.v);
	free(fs.keys);
	free(fs.slot);
	free(maps);
	free(mapp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(funcp);
	free(samples);
	free(samplep);
	free(values);
	free(labels);
	free(labelp);
	free(nlabels);
	free(ids);
	return rc;
}
