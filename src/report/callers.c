/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The callers of the hot regions, from the call chains of gus record -g:
 * for each sample in a region, the function of the first frame of its
 * chain outside the region (perf report's caller of a symbol, with
 * recursion inside the region skipped). The sample run's mappings turn an
 * address into its object and link-time address, as gus record did for
 * the regions, and the object's symbols name it as they name the regions. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gusdata.h"
#include "report_internal.h"

struct object {
	char *path;
	bool loaded;
	struct merge_symtab *syms;	/* NULL: unreadable */
};

struct mapping {
	int pid;
	uint64_t start, end, pgoff;
	size_t object;
	bool bias_known, bias_bad;
	uint64_t bias;
};

struct caller_count {
	char *name;
	size_t object;		/* SIZE_MAX: no object */
	uint64_t samples;
};

struct region_count {
	struct caller_count *v;
	size_t n, cap;
	uint64_t with_chain;
	/* the link-time address of each of its samples */
	uint64_t *addrs;
	size_t naddrs, capaddrs;
	/* every sample of the region by thread, chain or not */
	struct report_thread *threads;
	size_t nthreads, capthreads;
	uint64_t samples;
};

/* an executable mapping of no file: the vDSO or anonymous code, an
 * object of its own for the regions (a sample there is in no caller's
 * object, but not outside every object either) */
struct pseudo_mapping {
	int pid;
	uint64_t start, end;
};

struct caller_search {
	const struct report_span *spans;
	size_t nspans;
	struct pseudo_mapping *pseudo;
	size_t npseudo, cappseudo;
	struct report_sample_totals *totals;
	struct object *objects;
	size_t nobjects, capobjects;
	struct mapping *maps;
	size_t nmaps, capmaps;
	struct region_count *counts;
	bool have_chains;
	bool failed;		/* out of memory */
};

static size_t object_index(struct caller_search *s, const char *path)
{
	for (size_t i = 0; i < s->nobjects; i++)
		if (!strcmp(s->objects[i].path, path))
			return i;
	if (s->nobjects == s->capobjects) {
		size_t cap = s->capobjects ? 2 * s->capobjects : 16;
		struct object *v = realloc(s->objects, cap * sizeof *v);
		if (!v)
			return SIZE_MAX;
		s->objects = v;
		s->capobjects = cap;
	}
	struct object *o = &s->objects[s->nobjects];
	*o = (struct object){ .path = strdup(path) };
	if (!o->path)
		return SIZE_MAX;
	return s->nobjects++;
}

/* the vDSO and anonymous code as gus record names them (record.c's
 * collect_map): other executable mappings of no file hold no region */
static bool pseudo_object(const char *file)
{
	return !strcmp(file, "[vdso]") || !file[0] || !strncmp(file, "//anon", 6) || !strncmp(file, "[anon", 5) ||
	       !strncmp(file, "/memfd:", 7) || !strcmp(file, "[heap]") || !strcmp(file, "[stack]");
}

static int add_pseudo(struct caller_search *s, const struct gusdata_mmap *m)
{
	if (s->npseudo == s->cappseudo) {
		size_t cap = s->cappseudo ? 2 * s->cappseudo : 8;
		struct pseudo_mapping *v = realloc(s->pseudo, cap * sizeof *v);
		if (!v) {
			s->failed = true;
			return -1;
		}
		s->pseudo = v;
		s->cappseudo = cap;
	}
	s->pseudo[s->npseudo++] = (struct pseudo_mapping){ m->pid, m->start, m->start + m->len };
	return 0;
}

static bool in_pseudo(const struct caller_search *s, uint64_t addr)
{
	for (size_t i = 0; i < s->npseudo; i++)
		if (addr >= s->pseudo[i].start && addr < s->pseudo[i].end)
			return true;
	return false;
}

static int add_mapping(void *ctx, const struct gusdata_mmap *m)
{
	struct caller_search *s = ctx;
	if (!(m->prot & PROT_EXEC))
		return 0;
	if (pseudo_object(m->filename))
		return add_pseudo(s, m);
	/* code in files only: a frame in the vDSO or in anonymous code is
	 * named by its kind below */
	if (m->filename[0] != '/')
		return 0;
	if (s->nmaps == s->capmaps) {
		size_t cap = s->capmaps ? 2 * s->capmaps : 64;
		struct mapping *v = realloc(s->maps, cap * sizeof *v);
		if (!v)
			goto oom;
		s->maps = v;
		s->capmaps = cap;
	}
	size_t obj = object_index(s, m->filename);
	if (obj == SIZE_MAX)
		goto oom;
	s->maps[s->nmaps++] = (struct mapping){ .pid = m->pid, .start = m->start, .end = m->start + m->len,
						 .pgoff = m->pgoff, .object = obj };
	return 0;
oom:
	s->failed = true;
	return -1;
}

/* ADDR of process PID as object and link-time address: the newest
 * mapping of that process holding it, else any that does (as gus record
 * maps its samples) */
static bool locate(struct caller_search *s, int pid, uint64_t addr, size_t *object, uint64_t *link)
{
	struct mapping *hit = NULL;
	for (size_t i = s->nmaps; i-- > 0;) {
		struct mapping *e = &s->maps[i];
		if (addr >= e->start && addr < e->end && (e->pid == pid || !hit)) {
			hit = e;
			if (e->pid == pid)
				break;
		}
	}
	if (!hit)
		return false;
	if (!hit->bias_known && !hit->bias_bad) {
		char err[512];
		if (merge_elf_load_bias(s->objects[hit->object].path, hit->start, hit->pgoff, &hit->bias, err, sizeof err))
			hit->bias_bad = true;
		else
			hit->bias_known = true;
	}
	if (hit->bias_bad)
		return false;
	*object = hit->object;
	*link = addr - hit->bias;
	return true;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* the function at LINK of OBJECT as the regions name functions */
static void function_name(struct caller_search *s, size_t object, uint64_t link, char *buf, size_t n)
{
	struct object *o = &s->objects[object];
	if (!o->loaded) {
		char err[512];
		o->loaded = true;
		o->syms = merge_symtab_load(o->path, err, sizeof err);
	}
	struct merge_function f;
	if (o->syms && !merge_symtab_function(o->syms, link, &f)) {
		if (f.name)
			snprintf(buf, n, "%s", f.name);
		else
			merge_symtab_offset_name(o->syms, f.start, buf, n);
		return;
	}
	snprintf(buf, n, "[unknown] in %s", base_name(o->path));
}

static int count_caller(struct region_count *rc, const char *name, size_t object)
{
	for (size_t i = 0; i < rc->n; i++)
		if (rc->v[i].object == object && !strcmp(rc->v[i].name, name)) {
			rc->v[i].samples++;
			return 0;
		}
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? 2 * rc->cap : 8;
		struct caller_count *v = realloc(rc->v, cap * sizeof *v);
		if (!v)
			return -1;
		rc->v = v;
		rc->cap = cap;
	}
	rc->v[rc->n] = (struct caller_count){ .name = strdup(name), .object = object, .samples = 1 };
	if (!rc->v[rc->n].name)
		return -1;
	rc->n++;
	return 0;
}

static bool in_span(const struct report_span *sp, const struct caller_search *s, size_t object, uint64_t link)
{
	return sp->end > sp->start && link >= sp->start && link < sp->end && !strcmp(sp->file, s->objects[object].path);
}

static int count_thread(struct region_count *rc, int pid, int tid)
{
	rc->samples++;
	for (size_t i = rc->nthreads; i-- > 0;)
		if (rc->threads[i].tid == tid && rc->threads[i].pid == pid) {
			rc->threads[i].samples++;
			return 0;
		}
	if (rc->nthreads == rc->capthreads) {
		size_t cap = rc->capthreads ? 2 * rc->capthreads : 4;
		struct report_thread *v = realloc(rc->threads, cap * sizeof *v);
		if (!v)
			return -1;
		rc->threads = v;
		rc->capthreads = cap;
	}
	rc->threads[rc->nthreads++] = (struct report_thread){ .pid = pid, .tid = tid, .samples = 1 };
	return 0;
}

static int add_address(struct region_count *rc, uint64_t link)
{
	if (rc->naddrs == rc->capaddrs) {
		size_t cap = rc->capaddrs ? 2 * rc->capaddrs : 64;
		uint64_t *v = realloc(rc->addrs, cap * sizeof *v);
		if (!v)
			return -1;
		rc->addrs = v;
		rc->capaddrs = cap;
	}
	rc->addrs[rc->naddrs++] = link;
	return 0;
}

static int count_sample(void *ctx, const struct gusdata_sample *smp)
{
	struct caller_search *s = ctx;
	size_t object;
	uint64_t link;
	uint64_t w = smp->period ? smp->period : 1;
	struct report_sample_totals *t = s->totals;
	t->weight += w;
	t->samples++;
	if (smp->ncallchain)
		s->have_chains = true;
	if (!smp->user) {
		t->kernel_weight += w;
		t->kernel_samples++;
		return 0;
	}
	if (!locate(s, smp->pid, smp->ip, &object, &link)) {
		if (!in_pseudo(s, smp->ip)) {
			t->unknown_weight += w;
			t->unknown_samples++;
		}
		return 0;
	}
	for (size_t i = 0; i < s->nspans; i++) {
		const struct report_span *sp = &s->spans[i];
		if (!in_span(sp, s, object, link))
			continue;
		if (count_thread(&s->counts[i], smp->pid, smp->tid) || add_address(&s->counts[i], link)) {
			s->failed = true;
			return -1;
		}
		if (!smp->ncallchain)
			continue;
		s->counts[i].with_chain++;
		/* a chain that ends inside the region (cut short, or the
		 * region is the thread's start) has no caller to name */
		char name[PATH_MAX + 64] = "[unknown]";
		size_t caller_object = SIZE_MAX;
		for (size_t k = 1; k < smp->ncallchain; k++) {
			size_t fo;
			uint64_t fl;
			/* a return address: the call is the instruction before it */
			if (!locate(s, smp->pid, smp->callchain[k] - 1, &fo, &fl))
				break;
			if (in_span(sp, s, fo, fl))
				continue;
			function_name(s, fo, fl, name, sizeof name);
			caller_object = fo;
			break;
		}
		if (count_caller(&s->counts[i], name, caller_object)) {
			s->failed = true;
			return -1;
		}
	}
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct caller_count *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_thread_samples(const void *a, const void *b)
{
	const struct report_thread *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* RC's sample addresses as (address, samples), by address */
static int address_counts(struct region_count *rc, struct report_callers *out)
{
	if (!rc->naddrs)
		return 0;
	qsort(rc->addrs, rc->naddrs, sizeof *rc->addrs, by_address);
	size_t n = 1;
	for (size_t i = 1; i < rc->naddrs; i++)
		n += rc->addrs[i] != rc->addrs[i - 1];
	if (!(out->at = calloc(n, sizeof *out->at)))
		return -1;
	for (size_t i = 0; i < rc->naddrs; i++) {
		if (!out->nat || out->at[out->nat - 1].addr != rc->addrs[i])
			out->at[out->nat++] = (struct merge_report_insn_samples){ rc->addrs[i], 0 };
		out->at[out->nat - 1].samples++;
	}
	return 0;
}

int report_find_callers(struct gusdata *d, const struct report_span *spans, size_t n, size_t top,
			struct report_callers *out, bool *have_chains, struct report_sample_totals *totals, char *err,
			size_t errlen)
{
	struct caller_search s = { .spans = spans, .nspans = n, .totals = totals };
	memset(totals, 0, sizeof *totals);
	int rc = -1;
	memset(out, 0, n * sizeof *out);
	*have_chains = false;
	if (!(s.counts = calloc(n + 1, sizeof *s.counts)))
		goto oom;
	if (gusdata_foreach_sample_mmap(d, add_mapping, &s) && s.failed)
		goto oom;
	if (gusdata_foreach_sample(d, count_sample, &s)) {
		if (s.failed)
			goto oom;
		snprintf(err, errlen, "the samples cannot be read: %s", gusdata_errmsg(d));
		goto out;
	}
	*have_chains = s.have_chains;
	for (size_t i = 0; i < n; i++) {
		struct region_count *c = &s.counts[i];
		/* the threads, most samples first, with their share */
		if (c->nthreads)
			qsort(c->threads, c->nthreads, sizeof *c->threads, by_thread_samples);
		for (size_t k = 0; k < c->nthreads; k++)
			c->threads[k].share = (double)c->threads[k].samples / (double)c->samples;
		out[i].threads = c->threads;
		out[i].nthreads = c->nthreads;
		out[i].samples = c->samples;
		c->threads = NULL;
		if (c->n)	/* qsort of no array is undefined */
			qsort(c->v, c->n, sizeof *c->v, by_samples);
		out[i].with_chain = c->with_chain;
		if (address_counts(c, &out[i]))
			goto oom;
		size_t keep = c->n < top ? c->n : top;
		if (keep && !(out[i].v = calloc(keep, sizeof *out[i].v)))
			goto oom;
		for (size_t k = 0; k < c->n; k++) {
			if (k >= keep) {
				out[i].other += c->v[k].samples;
				continue;
			}
			const char *file = c->v[k].object == SIZE_MAX ? "" : s.objects[c->v[k].object].path;
			struct merge_report_caller *mc = &out[i].v[out[i].n];
			*mc = (struct merge_report_caller){ .name = c->v[k].name, .file = strdup(file),
							    .samples = c->v[k].samples,
							    .share = (double)c->v[k].samples / (double)c->with_chain };
			c->v[k].name = NULL;	/* now the caller's */
			out[i].n++;
			if (!mc->file)
				goto oom;
		}
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (rc)
		report_callers_free(out, n);
	for (size_t i = 0; s.counts && i < n; i++) {
		for (size_t k = 0; k < s.counts[i].n; k++)
			free(s.counts[i].v[k].name);
		free(s.counts[i].v);
		free(s.counts[i].threads);
		free(s.counts[i].addrs);
	}
	free(s.counts);
	free(s.pseudo);
	for (size_t i = 0; i < s.nobjects; i++) {
		free(s.objects[i].path);
		merge_symtab_free(s.objects[i].syms);
	}
	free(s.objects);
	free(s.maps);
	return rc;
}

void report_callers_free(struct report_callers *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		for (size_t k = 0; k < c[i].n; k++) {
			free((char *)c[i].v[k].name);
			free((char *)c[i].v[k].file);
		}
		free(c[i].v);
		free(c[i].threads);
		free(c[i].at);
		c[i] = (struct report_callers){ 0 };
	}
}
