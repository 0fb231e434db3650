/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sample run's objects: its executable mappings (sample_mmaps), an
 * address of a process placed in them as gus record placed its samples
 * (the newest mapping of that process holding it, else any that does),
 * and each object's symbols and source lines, loaded once and only when a
 * frame in it is named. The callers (callers.c) and the call stacks
 * (stacks.c) both read the samples through these. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gusdata.h"
#include "report_internal.h"

struct object {
	char *path;		/* a file, or "[vdso]", "[anonymous code]" */
	char *build_id;		/* as recorded in its mmaps, "" when not */
	bool pseudo;
	bool checked;		/* its build-id compared with the file's now */
	bool changed;		/* ... and another: its symbols and lines are not used */
	char *now_build_id;	/* the file's, when none was recorded */
	bool syms_loaded, lines_loaded;
	struct merge_symtab *syms;	/* NULL: unreadable */
	struct merge_srclines *lines;	/* NULL: unreadable or no line table */
};

struct mapping {
	int pid;
	uint64_t start, end, pgoff;
	size_t object;
	bool bias_known, bias_bad;
	uint64_t bias;
};

struct report_objects {
	struct object *objects;
	size_t nobjects, capobjects;
	struct mapping *maps;
	size_t nmaps, capmaps;
	bool failed;		/* out of memory */
	struct report_unwind *unwind;	/* unwind.c's */
	/* the functions inlined at each address asked for: DWARF's scopes
	 * are a walk of the unit's tree, which thousands of samples at a
	 * few addresses must not each repeat */
	struct inline_entry {
		size_t object;
		uint64_t link;
		size_t n;
		char *names;	/* N names, each NUL-terminated */
		bool used;
	} *inl;
	size_t ninl, capinl;
};

static size_t object_index(struct report_objects *o, const char *path, bool pseudo, const char *build_id)
{
	for (size_t i = 0; i < o->nobjects; i++)
		if (!strcmp(o->objects[i].path, path)) {
			struct object *ob = &o->objects[i];
			/* a later mmap may carry the build-id an earlier one lacked */
			if (!ob->build_id[0] && build_id && build_id[0]) {
				char *b = strdup(build_id);
				if (!b)
					return SIZE_MAX;
				free(ob->build_id);
				ob->build_id = b;
			}
			return i;
		}
	if (o->nobjects == o->capobjects) {
		size_t cap = o->capobjects ? 2 * o->capobjects : 16;
		struct object *v = realloc(o->objects, cap * sizeof *v);
		if (!v)
			return SIZE_MAX;
		o->objects = v;
		o->capobjects = cap;
	}
	struct object *ob = &o->objects[o->nobjects];
	*ob = (struct object){ .path = strdup(path), .build_id = strdup(build_id ? build_id : ""), .pseudo = pseudo };
	if (!ob->path || !ob->build_id) {
		free(ob->path);
		free(ob->build_id);
		return SIZE_MAX;
	}
	return o->nobjects++;
}

static int add_mapping(void *ctx, const struct gusdata_mmap *m)
{
	struct report_objects *o = ctx;
	if (!(m->prot & PROT_EXEC))
		return 0;
	/* the pseudo-objects as gus record names them (a region of the vDSO
	 * or of anonymous code); other names that are no path hold no code
	 * gus can read */
	const char *file = m->filename;
	bool pseudo = true;
	if (!strcmp(file, "[vdso]"))
		;
	else if (!file[0] || !strncmp(file, "//anon", 6) || !strncmp(file, "[anon", 5) ||
		 !strncmp(file, "/memfd:", 7) || !strcmp(file, "[heap]") || !strcmp(file, "[stack]"))
		file = "[anonymous code]";
	else if (file[0] == '/')
		pseudo = false;
	else
		return 0;
	if (o->nmaps == o->capmaps) {
		size_t cap = o->capmaps ? 2 * o->capmaps : 64;
		struct mapping *v = realloc(o->maps, cap * sizeof *v);
		if (!v)
			goto oom;
		o->maps = v;
		o->capmaps = cap;
	}
	size_t obj = object_index(o, file, pseudo, pseudo ? NULL : m->build_id);
	if (obj == SIZE_MAX)
		goto oom;
	o->maps[o->nmaps++] = (struct mapping){ .pid = m->pid, .start = m->start, .end = m->start + m->len,
						 .pgoff = m->pgoff, .object = obj };
	return 0;
oom:
	o->failed = true;
	return -1;
}

struct report_objects *report_objects_load(struct gusdata *d, char *err, size_t errlen)
{
	struct report_objects *o = calloc(1, sizeof *o);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* mappings that cannot be read place no address: the frames are
	 * "[unknown]", as the regions of such a recording are none */
	if (gusdata_foreach_sample_mmap(d, add_mapping, o) && o->failed) {
		snprintf(err, errlen, "out of memory");
		report_objects_free(o);
		return NULL;
	}
	return o;
}

void report_objects_free(struct report_objects *o)
{
	if (!o)
		return;
	report_unwind_free(o->unwind);
	for (size_t i = 0; i < o->capinl; i++)
		free(o->inl[i].names);
	free(o->inl);
	for (size_t i = 0; i < o->nobjects; i++) {
		free(o->objects[i].path);
		free(o->objects[i].build_id);
		free(o->objects[i].now_build_id);
		merge_symtab_free(o->objects[i].syms);
		merge_srclines_free(o->objects[i].lines);
	}
	free(o->objects);
	free(o->maps);
	free(o);
}

bool report_objects_locate(struct report_objects *o, int pid, uint64_t addr, struct report_place *p)
{
	struct mapping *hit = NULL;
	size_t at = 0;
	for (size_t i = o->nmaps; i-- > 0;) {
		struct mapping *e = &o->maps[i];
		if (addr >= e->start && addr < e->end && (e->pid == pid || !hit)) {
			hit = e;
			at = i;
			if (e->pid == pid)
				break;
		}
	}
	if (!hit)
		return false;
	const struct object *ob = &o->objects[hit->object];
	if (ob->pseudo) {
		*p = (struct report_place){ .mapping = at, .object = hit->object, .link = addr - hit->start,
					    .pseudo = true };
		return true;
	}
	if (!hit->bias_known && !hit->bias_bad) {
		char err[512];
		if (merge_elf_load_bias(ob->path, hit->start, hit->pgoff, &hit->bias, err, sizeof err))
			hit->bias_bad = true;
		else
			hit->bias_known = true;
	}
	if (hit->bias_bad)
		return false;
	*p = (struct report_place){ .mapping = at, .object = hit->object, .link = addr - hit->bias };
	return true;
}

bool report_objects_mapped(const struct report_objects *o, int pid, uint64_t addr)
{
	(void)pid;
	for (size_t i = 0; i < o->nmaps; i++)
		if (addr >= o->maps[i].start && addr < o->maps[i].end)
			return true;
	return false;
}

const char *report_object_path(const struct report_objects *o, size_t object)
{
	return o->objects[object].path;
}

/* A file whose build-id is not the recorded one is another build: its
 * symbols and lines would name other code (report.c's check_build_ids
 * says so for the regions). */
static bool object_usable(struct object *ob)
{
	if (ob->pseudo)
		return false;
	if (!ob->checked) {
		char now[129] = "", err[512];
		ob->checked = true;
		bool readable = !merge_elf_build_id(ob->path, now, sizeof now, err, sizeof err);
		if (ob->build_id[0])
			ob->changed = !readable || strcmp(now, ob->build_id) != 0;
		else if (readable && now[0])
			ob->now_build_id = strdup(now);
	}
	return !ob->changed;
}

const char *report_object_build_id(struct report_objects *o, size_t object)
{
	struct object *ob = &o->objects[object];
	object_usable(ob);
	if (ob->build_id[0])
		return ob->build_id;
	return ob->now_build_id ? ob->now_build_id : "";
}

void report_objects_mapping(const struct report_objects *o, size_t mapping, uint64_t *start, uint64_t *end,
			    uint64_t *pgoff)
{
	const struct mapping *m = &o->maps[mapping];
	*start = m->start;
	*end = m->end;
	*pgoff = m->pgoff;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool report_object_function(struct report_objects *o, size_t object, uint64_t link, char *buf, size_t n,
			    uint64_t *start, const char **mangled)
{
	struct object *ob = &o->objects[object];
	*start = link;
	if (mangled)
		*mangled = NULL;
	if (ob->pseudo) {
		snprintf(buf, n, "%s", ob->path);
		return false;
	}
	if (object_usable(ob) && !ob->syms_loaded) {
		char err[512];
		ob->syms_loaded = true;
		ob->syms = merge_symtab_load(ob->path, err, sizeof err);
	}
	struct merge_function f;
	if (!ob->changed && ob->syms && !merge_symtab_function(ob->syms, link, &f)) {
		if (f.name)
			snprintf(buf, n, "%s", f.name);
		else
			merge_symtab_offset_name(ob->syms, f.start, buf, n);
		*start = f.start;
		if (mangled && f.mangled && f.name && strcmp(f.mangled, f.name))
			*mangled = f.mangled;
		return true;
	}
	snprintf(buf, n, "[unknown] in %s", base_name(ob->path));
	return false;
}

struct report_unwind **report_objects_unwind(struct report_objects *o)
{
	return &o->unwind;
}

bool report_object_usable(struct report_objects *o, size_t object)
{
	return object_usable(&o->objects[object]);
}

static struct merge_srclines *object_lines(struct object *ob);

bool report_object_srcline(struct report_objects *o, size_t object, uint64_t link, const char **file, int *line)
{
	struct merge_srclines *lines = object_lines(&o->objects[object]);
	return lines && merge_srcline(lines, link, file, line);
}

#define MAX_INLINES 8

static size_t inline_slot(size_t cap, size_t object, uint64_t link)
{
	uint64_t h = (link ^ ((uint64_t)object << 48)) * 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 20) & (cap - 1);
}

size_t report_object_inlines(struct report_objects *o, size_t object, uint64_t link, char (*names)[256],
			     size_t max)
{
	if (2 * (o->ninl + 1) > o->capinl) {
		size_t cap = o->capinl ? 2 * o->capinl : 256;
		struct inline_entry *v = calloc(cap, sizeof *v);
		if (!v)
			return 0;
		for (size_t i = 0; i < o->capinl; i++) {
			if (!o->inl[i].used)
				continue;
			size_t k = inline_slot(cap, o->inl[i].object, o->inl[i].link);
			while (v[k].used)
				k = (k + 1) & (cap - 1);
			v[k] = o->inl[i];
		}
		free(o->inl);
		o->inl = v;
		o->capinl = cap;
	}
	size_t k = inline_slot(o->capinl, object, link);
	for (; o->inl[k].used; k = (k + 1) & (o->capinl - 1))
		if (o->inl[k].object == object && o->inl[k].link == link)
			break;
	struct inline_entry *e = &o->inl[k];
	if (!e->used) {
		char found[MAX_INLINES][256];
		struct merge_srclines *lines = object_lines(&o->objects[object]);
		size_t n = lines ? merge_srcline_inlines(lines, link, found, MAX_INLINES) : 0, len = 0;
		for (size_t i = 0; i < n; i++)
			len += strlen(found[i]) + 1;
		*e = (struct inline_entry){ .object = object, .link = link, .used = true };
		if (n && (e->names = malloc(len))) {
			char *at = e->names;
			for (size_t i = 0; i < n; i++)
				at = stpcpy(at, found[i]) + 1;
			e->n = n;
		}
		o->ninl++;
	}
	size_t n = 0;
	for (const char *at = e->names; n < e->n && n < max; at += strlen(at) + 1)
		snprintf(names[n++], sizeof names[0], "%s", at);
	return n;
}

/* OB's line tables (and DWARF), loaded once; NULL */
static struct merge_srclines *object_lines(struct object *ob)
{
	if (!object_usable(ob))
		return NULL;
	if (!ob->lines_loaded) {
		char err[512];
		ob->lines_loaded = true;
		ob->lines = merge_srclines_open(ob->path, err, sizeof err);
		if (ob->lines && !merge_srclines_have_lines(ob->lines)) {
			merge_srclines_free(ob->lines);
			ob->lines = NULL;
		}
	}
	return ob->lines;
}
