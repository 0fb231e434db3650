/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The samples' call stacks, for the exports of gus report (pprof, folded
 * stacks): each sample's call chain (gus record -g), or its sampled
 * instruction alone, as frames placed in the sample run's mappings
 * (objects.c). A frame is a distinct address of a mapping: it is named,
 * given its source line and its innermost hot region once, however many
 * samples pass through it; a stack is a distinct sequence of frames, its
 * samples and their periods added up. A kernel address is the frame of
 * the kernel function gus record named it with (kernel_symbols, from
 * /proc/kallsyms), as perf report shows the kernel's chain; one the
 * recording has no name for is "[kernel]", one frame however deep. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "report_internal.h"

/* x86-64's upper half: the kernel's addresses in a call chain */
#define KERNEL_START 0xffff800000000000ULL
/* frame keys of code in no mapping */
#define UID_KERNEL UINT32_MAX
#define UID_UNKNOWN (UINT32_MAX - 1)

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* strings kept once: a function's name is shared by all its addresses */
struct strset {
	char **v;		/* open addressing, NULL: free */
	size_t cap, n;
};

static const char *strset_get(struct strset *s, const char *str)
{
	if (!str)
		str = "";
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		char **v = calloc(cap, sizeof *v);
		if (!v)
			return NULL;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t h = 5381;
			for (const char *c = s->v[i]; *c; c++)
				h = h * 33 + (unsigned char)*c;
			size_t k = mix(h) & (cap - 1);
			while (v[k])
				k = (k + 1) & (cap - 1);
			v[k] = s->v[i];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	size_t h = 5381;
	for (const char *c = str; *c; c++)
		h = h * 33 + (unsigned char)*c;
	size_t k = mix(h) & (s->cap - 1);
	for (; s->v[k]; k = (k + 1) & (s->cap - 1))
		if (!strcmp(s->v[k], str))
			return s->v[k];
	if (!(s->v[k] = strdup(str)))
		return NULL;
	s->n++;
	return s->v[k];
}

static void strset_free(struct strset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strset){ 0 };
}

struct frame_key {
	uint32_t uid;		/* the model's mapping, or UID_KERNEL, UID_UNKNOWN */
	uint64_t address;
	/* 0: the function at ADDRESS; D > 0: the Dth function inlined
	 * there, from the innermost (perf report --inline's frames) */
	uint8_t depth;
	uint8_t inlined;	/* depth 0: how many functions are inlined at ADDRESS */
	size_t frame;
	bool used;
};
/* inlined functions kept per address */
#define MAX_INLINED 8

struct stack_slot {
	uint64_t hash;
	size_t stack;
	bool used;
};

struct stack_search {
	struct report_objects *objs;
	struct report_ksyms ksyms;
	const struct report_span *spans;
	size_t nspans;
	struct strset strings;
	/* the model's mappings, and each sample_mmaps row's (UINT32_MAX: not yet) */
	struct merge_report_mapping *mappings;
	size_t nmappings, capmappings;
	uint32_t *uid_of;
	size_t nuid_of;
	/* frames, and their keys */
	struct merge_report_frame *frames;
	size_t nframes, capframes;
	struct frame_key *fkeys;
	size_t capfkeys;
	/* stacks: their frames in POOL from OFF */
	struct merge_report_stack *stacks;
	size_t *off;
	size_t nstacks, capstacks, capoff;
	size_t *pool;
	size_t npool, cappool;
	struct stack_slot *skeys;
	size_t capskeys;
	/* the sample being read */
	size_t *cur;
	size_t ncur, capcur;
	uint64_t weight;
	bool chained;
	bool failed;		/* out of memory */
};

static bool grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need)
		cap2 *= 2;
	void *p = realloc(*v, cap2 * size);
	if (!p)
		return false;
	*v = p;
	*cap = cap2;
	return true;
}

/* the model's mapping of sample_mmaps row P->mapping: one per distinct
 * object and range, whatever the processes that mapped it */
static uint32_t mapping_uid(struct stack_search *s, const struct report_place *p)
{
	if (p->mapping < s->nuid_of && s->uid_of[p->mapping] != UINT32_MAX)
		return s->uid_of[p->mapping];
	if (p->mapping >= s->nuid_of) {
		size_t n = s->nuid_of;
		size_t cap = n;
		if (!grow((void **)&s->uid_of, &cap, p->mapping + 1, sizeof *s->uid_of))
			return UINT32_MAX;
		for (size_t i = n; i < cap; i++)
			s->uid_of[i] = UINT32_MAX;
		s->nuid_of = cap;
	}
	uint64_t start, end, pgoff;
	report_objects_mapping(s->objs, p->mapping, &start, &end, &pgoff);
	const char *path = report_object_path(s->objs, p->object);
	for (size_t i = 0; i < s->nmappings; i++) {
		const struct merge_report_mapping *m = &s->mappings[i];
		if (m->start == start && m->end == end && m->pgoff == pgoff && !strcmp(m->object, path))
			return s->uid_of[p->mapping] = (uint32_t)i;
	}
	if (s->nmappings >= UID_UNKNOWN ||
	    !grow((void **)&s->mappings, &s->capmappings, s->nmappings + 1, sizeof *s->mappings))
		return UINT32_MAX;
	const char *object = strset_get(&s->strings, path);
	const char *build_id = strset_get(&s->strings, p->pseudo ? "" : report_object_build_id(s->objs, p->object));
	if (!object || !build_id)
		return UINT32_MAX;
	s->mappings[s->nmappings] = (struct merge_report_mapping){ .object = object, .build_id = build_id,
								    .start = start, .end = end, .pgoff = pgoff };
	return s->uid_of[p->mapping] = (uint32_t)s->nmappings++;
}

/* the innermost hot region holding LINK of OBJECT, -1 */
static long region_of(const struct stack_search *s, const char *object, uint64_t link)
{
	long best = -1;
	for (size_t i = 0; i < s->nspans; i++) {
		const struct report_span *sp = &s->spans[i];
		if (sp->end <= sp->start || link < sp->start || link >= sp->end || strcmp(sp->file, object))
			continue;
		if (best < 0 || sp->end - sp->start < s->spans[best].end - s->spans[best].start)
			best = (long)i;
	}
	return best;
}

/* a new frame: named, placed in its source and its region; DEPTH > 0:
 * the function inlined there DEPTH levels from the innermost, named from
 * DWARF; depth 0 sets *INLINED to how many are */
static int new_frame(struct stack_search *s, uint32_t uid, uint64_t address, unsigned depth,
		     const struct report_place *p, size_t *index, uint8_t *inlined)
{
	if (!grow((void **)&s->frames, &s->capframes, s->nframes + 1, sizeof *s->frames))
		return -1;
	struct merge_report_frame f = { .mapping = -1, .address = address, .region = -1 };
	char name[PATH_MAX + 64];
	const char *mangled = NULL, *file = NULL, *ffile = NULL;
	int line = 0, fline = 0;
	const struct report_ksym *ks;
	if (uid == UID_KERNEL && address && (ks = report_ksyms_find(&s->ksyms, address))) {
		if (ks->module[0])
			snprintf(name, sizeof name, "%s [%s]", ks->name, ks->module);
		else
			snprintf(name, sizeof name, "%s", ks->name);
		f.function_start = ks->start;
	} else if (uid == UID_KERNEL) {
		snprintf(name, sizeof name, "[kernel]");
		f.address = 0;
	} else if (uid == UID_UNKNOWN) {
		snprintf(name, sizeof name, "[unknown]");
		f.address = 0;
	} else {
		struct merge_report_mapping *m = &s->mappings[uid];
		f.mapping = uid;
		f.link_address = p->link;
		m->have_functions |= report_object_function(s->objs, p->object, p->link, name, sizeof name,
							    &f.function_start, &mangled);
		if (!p->pseudo) {
			if (report_object_srcline(s->objs, p->object, p->link, &file, &line))
				m->have_lines = true;
			else
				file = NULL, line = 0;
			if (!report_object_srcline(s->objs, p->object, f.function_start, &ffile, &fline))
				ffile = NULL, fline = 0;
		}
		f.region = region_of(s, m->object, p->link);
		if (!p->pseudo) {
			char names[MAX_INLINED][256];
			size_t n = report_object_inlines(s->objs, p->object, p->link, names, MAX_INLINED);
			if (!depth)
				*inlined = (uint8_t)n;
			else if (depth <= n)
				snprintf(name, sizeof name, "%s (inlined)", names[depth - 1]);
		}
	}
	f.function = strset_get(&s->strings, name);
	f.mangled = strset_get(&s->strings, mangled);
	f.source_file = strset_get(&s->strings, file);
	f.function_file = strset_get(&s->strings, ffile);
	f.line = line;
	f.function_line = fline;
	if (!f.function || !f.mangled || !f.source_file || !f.function_file)
		return -1;
	s->frames[s->nframes] = f;
	*index = s->nframes++;
	return 0;
}

/* the frame of (UID, ADDRESS, DEPTH), made on first sight; depth 0 gives
 * *INLINED too */
static int frame_of(struct stack_search *s, uint32_t uid, uint64_t address, unsigned depth,
		    const struct report_place *p, size_t *index, uint8_t *inlined)
{
	if (2 * (s->nframes + 1) > s->capfkeys) {
		size_t cap = s->capfkeys ? 2 * s->capfkeys : 1024;
		struct frame_key *v = calloc(cap, sizeof *v);
		if (!v)
			return -1;
		for (size_t i = 0; i < s->capfkeys; i++) {
			if (!s->fkeys[i].used)
				continue;
			size_t k = mix(s->fkeys[i].address ^ ((uint64_t)s->fkeys[i].uid << 32) ^
				       ((uint64_t)s->fkeys[i].depth << 56)) & (cap - 1);
			while (v[k].used)
				k = (k + 1) & (cap - 1);
			v[k] = s->fkeys[i];
		}
		free(s->fkeys);
		s->fkeys = v;
		s->capfkeys = cap;
	}
	size_t k = mix(address ^ ((uint64_t)uid << 32) ^ ((uint64_t)depth << 56)) & (s->capfkeys - 1);
	for (; s->fkeys[k].used; k = (k + 1) & (s->capfkeys - 1))
		if (s->fkeys[k].uid == uid && s->fkeys[k].address == address && s->fkeys[k].depth == depth) {
			*index = s->fkeys[k].frame;
			if (inlined)
				*inlined = s->fkeys[k].inlined;
			return 0;
		}
	uint8_t n = 0;
	if (new_frame(s, uid, address, depth, p, index, &n))
		return -1;
	s->fkeys[k] = (struct frame_key){ .uid = uid, .address = address, .depth = (uint8_t)depth, .inlined = n,
					   .frame = *index, .used = true };
	if (inlined)
		*inlined = n;
	return 0;
}

/* ADDR of PID (USER: a user-space address; CALL: a call site, a return
 * address's call) as the sample's next frame */
static int push_frame(struct stack_search *s, int pid, uint64_t addr, bool user, bool call)
{
	struct report_place p = { 0 };
	uint32_t uid;
	uint64_t key = addr;
	if (!user) {
		/* a named kernel function is one frame, as a user one is per
		 * address: its start */
		const struct report_ksym *ks = report_ksyms_find(&s->ksyms, addr);
		uid = UID_KERNEL;
		key = ks ? ks->start : 0;
	} else if (report_objects_locate(s->objs, pid, addr, &p)) {
		if ((uid = mapping_uid(s, &p)) == UINT32_MAX)
			return -1;
	} else {
		uid = UID_UNKNOWN;
		key = 0;
	}
	size_t f;
	uint8_t inlined = 0;
	if (frame_of(s, uid, key, 0, &p, &f, &inlined))
		return -1;
	/* unnamed kernel code is one frame, however deep the kernel's own
	 * chain */
	if (uid == UID_KERNEL && !key && s->ncur && s->cur[s->ncur - 1] == f)
		return 0;
	if (!grow((void **)&s->cur, &s->capcur, s->ncur + 1 + inlined, sizeof *s->cur))
		return -1;
	/* at a call site (CALL), the functions inlined there first,
	 * innermost first, as perf report --inline shows a chain; the
	 * sampled instruction stays its function's, as the regions and
	 * their shares count it (the region says what is inlined there) */
	if (!call)
		inlined = 0;
	for (unsigned d = 1; d <= inlined; d++) {
		size_t fi;
		if (frame_of(s, uid, key, d, &p, &fi, NULL))
			return -1;
		s->cur[s->ncur++] = fi;
	}
	s->cur[s->ncur++] = f;
	return 0;
}

static uint64_t hash_frames(const size_t *f, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++)
		h = mix(h ^ f[i]) + i;
	return h;
}

/* the stack of the sample's frames (S->CUR), made on first sight */
static int add_stack(struct stack_search *s, uint64_t weight)
{
	if (2 * (s->nstacks + 1) > s->capskeys) {
		size_t cap = s->capskeys ? 2 * s->capskeys : 1024;
		struct stack_slot *v = calloc(cap, sizeof *v);
		if (!v)
			return -1;
		for (size_t i = 0; i < s->capskeys; i++) {
			if (!s->skeys[i].used)
				continue;
			size_t k = s->skeys[i].hash & (cap - 1);
			while (v[k].used)
				k = (k + 1) & (cap - 1);
			v[k] = s->skeys[i];
		}
		free(s->skeys);
		s->skeys = v;
		s->capskeys = cap;
	}
	uint64_t h = hash_frames(s->cur, s->ncur);
	size_t k = h & (s->capskeys - 1);
	for (; s->skeys[k].used; k = (k + 1) & (s->capskeys - 1)) {
		if (s->skeys[k].hash != h)
			continue;
		struct merge_report_stack *st = &s->stacks[s->skeys[k].stack];
		if (st->nframes == s->ncur && !memcmp(s->pool + s->off[s->skeys[k].stack], s->cur,
						      s->ncur * sizeof *s->cur)) {
			st->samples++;
			st->weight += weight;
			return 0;
		}
	}
	if (!grow((void **)&s->stacks, &s->capstacks, s->nstacks + 1, sizeof *s->stacks) ||
	    !grow((void **)&s->off, &s->capoff, s->nstacks + 1, sizeof *s->off) ||
	    !grow((void **)&s->pool, &s->cappool, s->npool + s->ncur, sizeof *s->pool))
		return -1;
	memcpy(s->pool + s->npool, s->cur, s->ncur * sizeof *s->cur);
	s->off[s->nstacks] = s->npool;
	s->npool += s->ncur;
	s->stacks[s->nstacks] = (struct merge_report_stack){ .nframes = s->ncur, .samples = 1, .weight = weight };
	s->skeys[k] = (struct stack_slot){ .hash = h, .stack = s->nstacks++, .used = true };
	return 0;
}

static int add_sample(void *ctx, const struct gusdata_sample *smp)
{
	struct stack_search *s = ctx;
	uint64_t weight = smp->period ? smp->period : 1;
	s->ncur = 0;
	s->weight += weight;
	int rc = push_frame(s, smp->pid, smp->ip, smp->user, false);
	if (smp->ncallchain)
		s->chained = true;
	/* the chain's first entry is the sampled instruction; the others
	 * are return addresses: the call is the instruction before each
	 * (the first user address of a kernel sample's chain is where the
	 * program entered the kernel, a return address alike). The kernel's
	 * part comes first: after the first user address, an address in the
	 * kernel's half is a frame pointer walk gone astray, "[unknown]" */
	bool user = smp->user;
	for (size_t k = 1; !rc && k < smp->ncallchain; k++) {
		user |= smp->callchain[k] < KERNEL_START;
		rc = push_frame(s, smp->pid, smp->callchain[k] - 1, user, true);
	}
	if (rc || add_stack(s, weight)) {
		s->failed = true;
		return -1;
	}
	return 0;
}

static int by_weight(const void *a, const void *b)
{
	const struct merge_report_stack *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	/* equal stacks apart: the order of their frames' first sight */
	for (size_t i = 0; i < x->nframes && i < y->nframes; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

/* the program's mappings first (pprof takes the first for the main
 * binary), the others in the order they were met */
static int program_first(struct stack_search *s, const char *exe)
{
	size_t n = s->nmappings;
	if (!n || !exe || !exe[0])
		return 0;
	struct merge_report_mapping *v = malloc(n * sizeof *v);
	long *to = malloc(n * sizeof *to);
	if (!v || !to) {
		free(v);
		free(to);
		return -1;
	}
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if ((strcmp(s->mappings[i].object, exe) == 0) == (pass == 0)) {
				to[i] = (long)k;
				v[k++] = s->mappings[i];
			}
	for (size_t i = 0; i < s->nframes; i++)
		if (s->frames[i].mapping >= 0)
			s->frames[i].mapping = to[s->frames[i].mapping];
	free(s->mappings);
	free(to);
	s->mappings = v;
	return 0;
}

int report_find_stacks(struct gusdata *d, struct report_objects *objs, const struct report_span *spans, size_t n,
		       const char *exe, struct report_stacks *out, char *err, size_t errlen)
{
	struct stack_search s = { .objs = objs, .spans = spans, .nspans = n };
	memset(out, 0, sizeof *out);
	if (report_ksyms_load(d, &s.ksyms)) {
		snprintf(err, errlen, "the kernel's function names cannot be read: %s", gusdata_errmsg(d));
		return -1;
	}
	if (report_foreach_sample(d, objs, add_sample, &s)) {
		if (s.failed)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen, "the samples cannot be read: %s", gusdata_errmsg(d));
		goto fail;
	}
	if (program_first(&s, exe)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* the pool is complete: the stacks point into it */
	for (size_t i = 0; i < s.nstacks; i++)
		s.stacks[i].frames = s.pool + s.off[i];
	if (s.nstacks)
		qsort(s.stacks, s.nstacks, sizeof *s.stacks, by_weight);
	*out = (struct report_stacks){
		.stacks = s.stacks, .nstacks = s.nstacks, .frames = s.frames, .nframes = s.nframes,
		.mappings = s.mappings, .nmappings = s.nmappings, .weight = s.weight, .chained = s.chained,
		.pool = s.pool, .strings = s.strings.v, .nstrings = s.strings.cap,
	};
	free(s.off);
	free(s.uid_of);
	free(s.fkeys);
	free(s.skeys);
	free(s.cur);
	report_ksyms_free(&s.ksyms);
	return 0;
fail:
	report_ksyms_free(&s.ksyms);
	strset_free(&s.strings);
	free(s.mappings);
	free(s.uid_of);
	free(s.frames);
	free(s.fkeys);
	free(s.stacks);
	free(s.off);
	free(s.pool);
	free(s.skeys);
	free(s.cur);
	return -1;
}

void report_stacks_free(struct report_stacks *st)
{
	struct strset strings = { .v = st->strings, .cap = st->nstrings };
	strset_free(&strings);
	free(st->stacks);
	free(st->frames);
	free(st->mappings);
	free(st->pool);
	*st = (struct report_stacks){ 0 };
}
