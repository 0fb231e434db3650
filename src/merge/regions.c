/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hot regions: samples aggregated by function, then by the loops of each
 * function, ranked. A function's time is spent in its loops, and a loop is
 * what the model simulates best, so both are offered and the user sees
 * how much of a function its hottest loop holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define MAX_LOOPS 256

struct rg_file {
	char *path;
	bool absent;		/* not here: never read, its samples named by file offset */
	char build_id[129];	/* an absent file's, as its mapping recorded it */
	struct merge_symtab *syms;	/* NULL: unreadable */
	char why[512];
	bool warned;
};

struct rg_func {
	size_t file;
	char *name;		/* NULL: no symbol */
	uint64_t start, size;
	uint64_t samples, weight_sum;
	/* the sampled addresses with their weights and counts, for the loops */
	uint64_t *addr, *weight, *count;
	size_t n, cap;
};

struct merge_regions {
	const struct sim_machine *m;
	struct rg_file *files;
	size_t nfiles;
	struct rg_func *funcs;
	size_t nfuncs;
	uint64_t total;		/* weight of all samples */
};

struct merge_regions *merge_regions_new(const struct sim_machine *m)
{
	struct merge_regions *r = calloc(1, sizeof(*r));
	if (r)
		r->m = m;
	return r;
}

void merge_regions_free(struct merge_regions *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		merge_symtab_free(r->files[i].syms);
	}
	for (size_t i = 0; i < r->nfuncs; i++) {
		free(r->funcs[i].name);
		free(r->funcs[i].addr);
		free(r->funcs[i].weight);
		free(r->funcs[i].count);
	}
	free(r->files);
	free(r->funcs);
	free(r);
}

static long file_index(struct merge_regions *r, const char *path, bool absent)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].absent == absent && !strcmp(r->files[i].path, path))
			return (long)i;
	struct rg_file *f = realloc(r->files, (r->nfiles + 1) * sizeof(*f));
	if (!f)
		return -1;
	r->files = f;
	f = &r->files[r->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return -1;
	f->absent = absent;
	/* "[vdso]", "[anonymous code]", an object not here: no file to read */
	if (absent)
		snprintf(f->why, sizeof(f->why), "%s is not here", path);
	else if (path[0] == '[')
		snprintf(f->why, sizeof(f->why), "%s", path);
	else
		f->syms = merge_symtab_load(path, f->why, sizeof(f->why));
	return (long)r->nfiles++;
}

static struct rg_func *func_for(struct merge_regions *r, size_t file, const char *name, uint64_t start,
				uint64_t size)
{
	/* few functions hold most samples: the last one found is likely next */
	for (size_t k = r->nfuncs; k-- > 0;) {
		struct rg_func *f = &r->funcs[k];
		if (f->file == file && f->start == start && (f->name == NULL) == (name == NULL))
			return f;
	}
	struct rg_func *v = realloc(r->funcs, (r->nfuncs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->funcs = v;
	struct rg_func *f = &r->funcs[r->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->file = file;
	f->start = start;
	f->size = size;
	if (name && !(f->name = strdup(name)))
		return NULL;
	return f;
}

int merge_regions_add(struct merge_regions *r, const char *file, uint64_t addr, uint64_t weight)
{
	r->total += weight;
	if (!file)
		return 0;
	long fi = file_index(r, file, false);
	if (fi < 0)
		return -1;
	uint64_t start = 0, size = 0;
	/* a symbol, else the FDE of .eh_frame that holds ADDR: stripped code
	 * still gets functions of its own, named by their address */
	struct merge_function mf;
	const struct merge_symtab *st = r->files[fi].syms;
	const char *name = NULL;
	char offname[320];
	bool known = st && !merge_symtab_function(st, addr, &mf);
	if (known) {
		start = mf.start;
		size = mf.size;
		if (mf.name)
			name = mf.name;
		else {
			merge_symtab_offset_name(st, mf.start, offname, sizeof offname);
			name = offname;
		}
	}
	struct rg_func *f = func_for(r, (size_t)fi, name, start, size);
	if (!f)
		return -1;
	f->samples++;
	f->weight_sum += weight;
	if (!name)
		return 0;
	/* addresses repeat: merge with the last few */
	for (size_t k = f->n; k-- > 0 && k + 8 >= f->n;)
		if (f->addr[k] == addr) {
			f->weight[k] += weight;
			f->count[k]++;
			return 0;
		}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		uint64_t *a = realloc(f->addr, f->cap * sizeof(*a));
		if (a)
			f->addr = a;
		uint64_t *w = realloc(f->weight, f->cap * sizeof(*w));
		if (w)
			f->weight = w;
		uint64_t *c = realloc(f->count, f->cap * sizeof(*c));
		if (c)
			f->count = c;
		if (!a || !w || !c)
			return -1;
	}
	f->addr[f->n] = addr;
	f->count[f->n] = 1;
	f->weight[f->n++] = weight;
	return 0;
}

int merge_regions_add_absent(struct merge_regions *r, const char *file, const char *build_id, uint64_t offset,
			     uint64_t weight)
{
	r->total += weight;
	long fi = file_index(r, file, true);
	if (fi < 0)
		return -1;
	if (build_id && !r->files[fi].build_id[0])
		snprintf(r->files[fi].build_id, sizeof r->files[fi].build_id, "%s", build_id);
	/* one function per offset, as perf report names an address of an
	 * object it has not: "libc.so.6+0x9d2f0" */
	const char *base = strrchr(file, '/');
	char name[320];
	snprintf(name, sizeof name, "%s+0x%llx", base ? base + 1 : file, (unsigned long long)offset);
	struct rg_func *f = func_for(r, (size_t)fi, name, offset, 1);
	if (!f)
		return -1;
	f->samples++;
	f->weight_sum += weight;
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct rg_func *x = a, *y = b;
	return x->weight_sum > y->weight_sum ? -1 : x->weight_sum < y->weight_sum;
}

/* a function's loops: the hottest first; equal samples, the outer loop
 * (the longer range) first */
static int cmp_loop(const void *a, const void *b)
{
	const struct merge_region *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return (x->end - x->start) > (y->end - y->start) ? -1 : (x->end - x->start) < (y->end - y->start);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int merge_regions_rank(struct merge_regions *r, size_t top, struct merge_region **out, size_t *n,
		       uint64_t *total, void (*warn)(void *ctx, const char *msg), void *warn_ctx)
{
	*out = NULL;
	*n = 0;
	*total = r->total;
	if (!top || !r->nfuncs)
		return 0;
	/* functions ranked by weight as perf ranks symbols; TOP of them are
	 * kept, each followed by its hottest loops, which take no slot */
	qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), cmp_func);
	size_t nf = r->nfuncs < top ? r->nfuncs : top;
	size_t cap = nf * (1 + MERGE_LOOPS_SHOWN), k = 0;
	struct merge_region *v = calloc(cap, sizeof(*v));
	struct merge_region *found = malloc(MAX_LOOPS * sizeof(*found));
	if (!v || !found) {
		free(v);
		free(found);
		return -1;
	}
	for (size_t i = 0; i < nf; i++) {
		struct rg_func *f = &r->funcs[i];
		struct rg_file *file = &r->files[f->file];
		if (!f->samples)
			continue;
		size_t fi = k;
		struct merge_region *fr = &v[k++];
		snprintf(fr->kind, sizeof(fr->kind), "function");
		snprintf(fr->file, sizeof(fr->file), "%s", file->path);
		fr->samples = f->samples;
		fr->share = r->total ? (double)f->weight_sum / (double)r->total : 0;
		fr->parent = -1;
		if (file->syms && merge_symtab_build_id(file->syms))
			snprintf(fr->build_id, sizeof(fr->build_id), "%s", merge_symtab_build_id(file->syms));
		else if (file->absent)
			snprintf(fr->build_id, sizeof(fr->build_id), "%s", file->build_id);
		if (!f->name) {
			/* no symbol and no FDE: code gus cannot bound (the vDSO,
			 * JIT code, hand-written assembly without CFI) */
			if (file->path[0] == '[')
				snprintf(fr->name, sizeof(fr->name), "%s", file->path);
			else
				snprintf(fr->name, sizeof(fr->name), "[unknown] in %s", base_name(file->path));
			if (!file->syms && !file->warned && warn && file->path[0] != '[') {
				warn(warn_ctx, file->why);
				file->warned = true;
			}
			continue;
		}
		snprintf(fr->name, sizeof(fr->name), "%s", f->name);
		fr->start = f->start;
		fr->end = f->start + f->size;
		fr->head = f->start;
		if (file->absent)
			continue;	/* no code to find loops in */
		struct merge_code mc;
		char err[512];
		if (!r->m || !f->size || merge_elf_range(file->path, f->start, f->start + f->size, &mc, err, sizeof(err)))
			continue;
		struct sim_loop loops[MAX_LOOPS];
		size_t nl = sim_find_loops(r->m, mc.addr, mc.bytes, mc.len, loops, MAX_LOOPS);
		merge_code_free(&mc);
		size_t nfound = 0;
		for (size_t l = 0; l < nl; l++) {
			uint64_t s = 0, w = 0;
			for (size_t a = 0; a < f->n; a++)
				if (f->addr[a] >= loops[l].start && f->addr[a] < loops[l].end) {
					s += f->count[a];
					w += f->weight[a];
				}
			if (!s)
				continue;
			struct merge_region *lr = &found[nfound++];
			memset(lr, 0, sizeof(*lr));
			snprintf(lr->kind, sizeof(lr->kind), "loop");
			snprintf(lr->name, sizeof(lr->name), "%s loop 0x%llx-0x%llx", f->name,
				 (unsigned long long)loops[l].start, (unsigned long long)loops[l].end);
			snprintf(lr->file, sizeof(lr->file), "%s", file->path);
			memcpy(lr->build_id, fr->build_id, sizeof(lr->build_id));
			lr->start = loops[l].start;
			lr->end = loops[l].end;
			lr->head = loops[l].start;
			lr->samples = s;
			lr->share = r->total ? (double)w / (double)r->total : 0;
			lr->parent = (long)fi;
		}
		qsort(found, nfound, sizeof(*found), cmp_loop);
		for (size_t l = 0; l < nfound && l < MERGE_LOOPS_SHOWN; l++)
			v[k++] = found[l];
	}
	free(found);
	*out = v;
	*n = k;
	return 0;
}
