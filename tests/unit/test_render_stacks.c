/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exports of the report's call stacks (src/render): a model of three
 * stacks, two of them the same functions by other addresses, a name with
 * a ';' and a newline, kernel code. Folded stacks: one line per stack of
 * names, root first, the name one escaped frame, the lines most samples
 * first. pprof: gunzipped with zlib and read back with protobuf-c: the
 * sample types, one location per frame in its mapping, one function per
 * name, the samples' values and the region's labels, the facts of an
 * untrusted recording out of range left out; no file without stacks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "merge.h"
#include "profile.pb-c.h"
#include "render.h"
#include "tap.h"

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(out of the table)";
}

/* the label KEY of sample S, NULL when it has none */
static const Perftools__Profiles__Label *label(const Perftools__Profiles__Profile *p,
					       const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), key))
			return s->label[i];
	return NULL;
}

static char *render(int (*fn)(FILE *, const struct merge_report *, char *, size_t), const struct merge_report *r,
		    size_t *len, int *rc)
{
	char *buf = NULL, err[256];
	FILE *f = open_memstream(&buf, len);
	*rc = fn(f, r, err, sizeof err);
	fclose(f);
	return buf;
}

static uint8_t *gunzip(const uint8_t *p, size_t n, size_t *out)
{
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	z_stream zs = { .next_in = (Bytef *)p, .avail_in = (uInt)n, .next_out = buf, .avail_out = (uInt)cap };
	if (!buf || inflateInit2(&zs, 15 + 16) != Z_OK || inflate(&zs, Z_FINISH) != Z_STREAM_END) {
		free(buf);
		return NULL;
	}
	*out = zs.total_out;
	inflateEnd(&zs);
	return buf;
}

int main(void)
{
	static const struct merge_report_fact meta[] = {
		{ "sample.event", "cpu-clock" }, { "start_time", "1700000000" }, { "seconds_x1000", "1500" },
		{ "command", "./app" },
	};
	struct merge_report_region region = {
		.rank = 1, .kind = "loop", .name = "leaf;fn\nx loop 0x10-0x20", .file = "/bin/app",
		.start = 0x10, .end = 0x20,
	};
	region.verdict.kind = MERGE_NO_MEASURE;
	snprintf(region.verdict.text, sizeof region.verdict.text, "model only (no counters): DIV");
	snprintf(region.verdict.resource, sizeof region.verdict.resource, "DIV");
	static const struct merge_report_mapping maps[] = {
		{ .object = "/bin/app", .build_id = "abcd", .start = 0x400000, .end = 0x401000, .pgoff = 0,
		  .have_functions = true, .have_lines = true },
	};
	static const struct merge_report_frame frames[] = {
		{ .function = "leaf;fn\nx", .mangled = "", .mapping = 0, .address = 0x400010, .link_address = 0x10,
		  .function_start = 0x8, .source_file = "a.c", .line = 3, .function_file = "a.c", .function_line = 1,
		  .region = 0 },
		{ .function = "main", .mangled = "", .mapping = 0, .address = 0x400100, .link_address = 0x100,
		  .function_start = 0xf0, .source_file = "a.c", .line = 9, .function_file = "a.c", .function_line = 7,
		  .region = -1 },
		{ .function = "leaf;fn\nx", .mangled = "", .mapping = 0, .address = 0x400018, .link_address = 0x18,
		  .function_start = 0x8, .source_file = "a.c", .line = 4, .function_file = "a.c", .function_line = 1,
		  .region = 0 },
		{ .function = "[kernel]", .mangled = "", .mapping = -1, .source_file = "", .function_file = "",
		  .region = -1 },
	};
	static const size_t s0[] = { 0, 1 }, s1[] = { 2, 1 }, s2[] = { 3, 0, 1 };
	static const struct merge_report_stack stacks[] = {
		{ s0, 2, 5, 50 }, { s1, 2, 3, 30 }, { s2, 3, 1, 10 },
	};
	struct merge_report r = {
		.input = "t.data", .meta = meta, .nmeta = 4, .samples = 9, .regions = &region, .nregions = 1,
		.stacks = stacks, .nstacks = 3, .frames = frames, .nframes = 4, .mappings = maps, .nmappings = 1,
		.stack_weight = 90, .stacks_chained = true,
	};

	/* ------------------------------------------------------ folded --- */
	size_t len;
	int rc;
	char *folded = render(render_folded, &r, &len, &rc);
	tap_ok(rc == 0, "folded: written");
	tap_streq(folded, "main;leaf\\x3bfn\\nx 8\nmain;leaf\\x3bfn\\nx;[kernel] 1\n",
		  "folded: the same names one line, root first, ';' and newline escaped, most samples first");
	free(folded);

	/* ------------------------------------------------------- pprof --- */
	char *gz = render(render_pprof, &r, &len, &rc);
	tap_ok(rc == 0 && len > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b, "pprof: a gzip stream");
	size_t n = 0;
	uint8_t *raw = gz ? gunzip((const uint8_t *)gz, len, &n) : NULL;
	Perftools__Profiles__Profile *p = raw ? perftools__profiles__profile__unpack(NULL, n, raw) : NULL;
	if (!tap_ok(p != NULL, "pprof: a profile.proto that protobuf-c reads back"))
		return tap_done();
	tap_streq(str(p, 0), "", "pprof: string_table[0] is \"\"");
	tap_ok(p->n_sample_type == 2 && !strcmp(str(p, p->sample_type[0]->type), "samples") &&
		       !strcmp(str(p, p->sample_type[0]->unit), "count") &&
		       !strcmp(str(p, p->sample_type[1]->type), "cpu") &&
		       !strcmp(str(p, p->sample_type[1]->unit), "nanoseconds"),
	       "pprof: sample types samples/count and cpu/nanoseconds");
	tap_streq(str(p, p->default_sample_type), "cpu", "pprof: the time is the default");
	tap_ok(p->period_type && !strcmp(str(p, p->period_type->type), "cpu") && p->period == 10,
	       "pprof: period type cpu, the mean period 10 (%lld)", (long long)p->period);
	tap_ok(p->time_nanos == 1700000000LL * 1000000000LL && p->duration_nanos == 1500000000LL,
	       "pprof: when and how long");
	tap_ok(p->n_mapping == 1 && p->mapping[0]->id == 1 && p->mapping[0]->memory_start == 0x400000 &&
		       p->mapping[0]->memory_limit == 0x401000 && !strcmp(str(p, p->mapping[0]->build_id), "abcd") &&
		       !strcmp(str(p, p->mapping[0]->filename), "/bin/app") && p->mapping[0]->has_line_numbers,
	       "pprof: the mapping with its build-id");
	tap_ok(p->n_location == 4, "pprof: a location per frame (%zu)", p->n_location);
	bool located = p->n_location == 4;
	for (size_t i = 0; located && i < 4; i++)
		located = p->location[i]->id == i + 1 && p->location[i]->address == frames[i].address &&
			  p->location[i]->mapping_id == (frames[i].mapping < 0 ? 0 : 1) && p->location[i]->n_line == 1 &&
			  p->location[i]->line[0]->line == frames[i].line;
	tap_ok(located, "pprof: each location's address, mapping and line as the frame's");
	tap_ok(p->n_function == 3, "pprof: a function per name (%zu)", p->n_function);
	bool named = p->n_location == 4 && p->n_function == 3;
	for (size_t i = 0; named && i < 4; i++) {
		uint64_t fid = p->location[i]->line[0]->function_id;
		named = fid >= 1 && fid <= 3;
		if (named) {
			const Perftools__Profiles__Function *f = p->function[fid - 1];
			char want[64];
			render_text_escape(want, sizeof want, frames[i].function);
			named = f->id == fid && !strcmp(str(p, f->name), want) && f->start_line == frames[i].function_line;
		}
	}
	tap_ok(named, "pprof: each location's function, its name escaped as text");
	tap_ok(p->n_sample == 3, "pprof: a sample per stack");
	int64_t count = 0, time = 0;
	for (size_t i = 0; i < p->n_sample; i++)
		if (p->sample[i]->n_value == 2) {
			count += p->sample[i]->value[0];
			time += p->sample[i]->value[1];
		}
	tap_ok(count == 9 && time == 90, "pprof: the samples' values add up (%lld samples, %lld ns)", (long long)count,
	       (long long)time);
	const Perftools__Profiles__Sample *s = p->n_sample == 3 ? p->sample[0] : NULL;
	tap_ok(s && s->n_location_id == 2 && s->location_id[0] == 1 && s->location_id[1] == 2,
	       "pprof: a sample's locations, the leaf first");
	const Perftools__Profiles__Label *l = s ? label(p, s, "gus_region") : NULL;
	tap_streq(l ? str(p, l->str) : NULL, "leaf;fn\\nx loop 0x10-0x20", "pprof: the region's name as a label");
	l = s ? label(p, s, "gus_region_rank") : NULL;
	tap_ok(l && l->num == 1, "pprof: its rank as a number");
	l = s ? label(p, s, "gus_simulated_top") : NULL;
	tap_streq(l ? str(p, l->str) : NULL, "DIV", "pprof: the model's top resource");
	l = s ? label(p, s, "gus_verdict") : NULL;
	tap_streq(l ? str(p, l->str) : NULL, "model-only", "pprof: the verdict's kind");
	tap_ok(p->n_sample == 3 && p->sample[2]->n_label == 0, "pprof: a stack of no hot region has no labels");
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(raw);
	free(gz);

	/* an untrusted recording's facts: out of range, left out */
	struct merge_report_fact bad[] = { { "start_time", "99999999999999999999" }, { "seconds_x1000", "-5" } };
	struct merge_report rb = r;
	rb.meta = bad;
	rb.nmeta = 2;
	gz = render(render_pprof, &rb, &len, &rc);
	raw = rc == 0 ? gunzip((const uint8_t *)gz, len, &n) : NULL;
	p = raw ? perftools__profiles__profile__unpack(NULL, n, raw) : NULL;
	tap_ok(p && p->time_nanos == 0 && p->duration_nanos == 0, "pprof: a time out of range is left out");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	free(raw);
	free(gz);

	/* ----------------------------------------------- without stacks --- */
	struct merge_report none = { .why_no_stacks = "not asked for" };
	char *out = render(render_pprof, &none, &len, &rc);
	tap_ok(rc == -1 && len == 0, "pprof: no stacks, nothing written");
	free(out);
	out = render(render_folded, &none, &len, &rc);
	tap_ok(rc == -1 && len == 0, "folded: no stacks, nothing written");
	free(out);
	return tap_done();
}
