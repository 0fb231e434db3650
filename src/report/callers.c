/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The callers of the hot regions, from the call chains of gus record -g:
 * for each sample in a region, the function of the first frame of its
 * chain outside the region (perf report's caller of a symbol, with
 * recursion inside the region skipped). The sample run's mappings turn an
 * address into its object and link-time address, as gus record did for
 * the regions, and the object's symbols name it as they name the regions
 * (objects.c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "report_internal.h"

struct caller_count {
	char *name;
	size_t object;		/* SIZE_MAX: no object */
	uint64_t samples;
};

struct region_count {
	struct caller_count *v;
	size_t n, cap;
	uint64_t with_chain;
	/* every sample of the region by thread, chain or not */
	struct report_thread *threads;
	size_t nthreads, capthreads;
	uint64_t samples;
	/* the link-time address of each of its samples, in OBJECT */
	uint64_t *addrs;
	size_t naddrs, capaddrs;
	size_t object;
};

struct caller_search {
	const struct report_span *spans;
	size_t nspans;
	struct report_objects *objs;
	struct region_count *counts;
	struct report_sample_totals *totals;
	struct report_ksyms ksyms;	/* the recording's kernel functions */
	uint64_t *kernel_weight;	/* by ksyms entry: the samples' own */
	bool have_chains;
	bool failed;		/* out of memory */
};

/* ADDR of process PID as object and link-time address, in a file: a
 * frame of the vDSO or of anonymous code has no caller's name */
static bool locate(struct caller_search *s, int pid, uint64_t addr, size_t *object, uint64_t *link)
{
	struct report_place p;
	if (!report_objects_locate(s->objs, pid, addr, &p) || p.pseudo)
		return false;
	*object = p.object;
	*link = p.link;
	return true;
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
	return sp->end > sp->start && link >= sp->start && link < sp->end &&
	       !strcmp(sp->file, report_object_path(s->objs, object));
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
	if (smp->ncallchain)
		s->have_chains = true;
	uint64_t w = smp->period ? smp->period : 1;
	struct report_sample_totals *t = s->totals;
	t->weight += w;
	t->samples++;
	if (!smp->user) {
		t->kernel_weight += w;
		t->kernel_samples++;
		const struct report_ksym *k = report_ksyms_find(&s->ksyms, smp->ip);
		if (k)
			s->kernel_weight[k - s->ksyms.v] += w;
		return 0;
	}
	/* the vDSO and anonymous code are objects of their own for the
	 * regions: a sample there is in no caller's object, but not outside
	 * every object either */
	struct report_place p;
	if (!report_objects_locate(s->objs, smp->pid, smp->ip, &p)) {
		if (!report_objects_mapped(s->objs, smp->pid, smp->ip)) {
			t->unknown_weight += w;
			t->unknown_samples++;
		}
		return 0;
	}
	if (p.pseudo)
		return 0;
	object = p.object;
	link = p.link;
	for (size_t i = 0; i < s->nspans; i++) {
		const struct report_span *sp = &s->spans[i];
		if (!in_span(sp, s, object, link))
			continue;
		s->counts[i].object = object;
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
			uint64_t start;
			report_object_function(s->objs, fo, fl, name, sizeof name, &start, NULL);
			/* a call made from a function inlined there is that
			 * function's, as perf report --inline names the frame */
			char inl[1][256];
			if (report_object_inlines(s->objs, fo, fl, inl, 1)) {
				char outer[sizeof name];
				memcpy(outer, name, sizeof outer);
				size_t at = (size_t)snprintf(name, sizeof name, "%s (inlined in ", inl[0]);
				if (at < sizeof name)
					snprintf(name + at, sizeof name - at, "%.*s)", (int)(sizeof name - at - 2), outer);
			}
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

/* a span up to this many bytes, and at most COUNT_SPAN_PER_ADDRESS
 * times its number of sampled addresses, counts them in an array of the
 * span (a cached report of xz's 64 K samples spent a quarter of its
 * time sorting each region's addresses); a longer or sparser one sorts
 * them (scanning a large span for a few samples would cost more) */
#define COUNT_SPAN_MAX (1u << 20)
#define COUNT_SPAN_PER_ADDRESS 16

/* RC's sample addresses, all within SP, as (address, samples), by
 * address */
static int address_counts(struct region_count *rc, const struct report_span *sp, struct report_callers *out)
{
	if (!rc->naddrs)
		return 0;
	uint64_t span = sp->end > sp->start ? sp->end - sp->start : 0;
	bool dense = span && span <= COUNT_SPAN_MAX && span <= (uint64_t)rc->naddrs * COUNT_SPAN_PER_ADDRESS;
	uint32_t *per = dense ? calloc((size_t)span, sizeof *per) : NULL;
	size_t n = 0;
	if (per) {
		for (size_t i = 0; i < rc->naddrs; i++)
			n += per[rc->addrs[i] - sp->start]++ == 0;
	} else {
		qsort(rc->addrs, rc->naddrs, sizeof *rc->addrs, by_address);
		n = 1;
		for (size_t i = 1; i < rc->naddrs; i++)
			n += rc->addrs[i] != rc->addrs[i - 1];
	}
	if (!(out->at = calloc(n, sizeof *out->at))) {
		free(per);
		return -1;
	}
	if (per) {
		for (uint64_t a = 0; a < span && out->nat < n; a++)
			if (per[a])
				out->at[out->nat++] = (struct merge_report_insn_samples){ sp->start + a, per[a] };
		free(per);
		return 0;
	}
	for (size_t i = 0; i < rc->naddrs; i++) {
		if (!out->nat || out->at[out->nat - 1].addr != rc->addrs[i])
			out->at[out->nat++] = (struct merge_report_insn_samples){ rc->addrs[i], 0 };
		out->at[out->nat - 1].samples++;
	}
	return 0;
}

/* the functions inlined where OUT's samples fell (OUT->at), by the
 * innermost at each address, most samples first */
static int inlined_counts(struct report_objects *objs, size_t object, struct report_callers *out)
{
	struct region_count rc = { 0 };
	int ret = 0;
	for (size_t k = 0; k < out->nat && !ret; k++) {
		char names[1][256];
		if (!report_object_inlines(objs, object, out->at[k].addr, names, 1))
			continue;
		ret = count_caller(&rc, names[0], object);
		/* count_caller counted one: the address's samples are its */
		if (!ret)
			for (size_t j = 0; j < rc.n; j++)
				if (!strcmp(rc.v[j].name, names[0]))
					rc.v[j].samples += out->at[k].samples - 1;
	}
	if (!ret && rc.n) {
		qsort(rc.v, rc.n, sizeof *rc.v, by_samples);
		if (!(out->inlined = calloc(rc.n, sizeof *out->inlined)))
			ret = -1;
		const char *file = report_object_path(objs, object);
		for (size_t k = 0; !ret && k < rc.n; k++) {
			struct merge_report_caller *mc = &out->inlined[out->ninlined];
			*mc = (struct merge_report_caller){ .name = rc.v[k].name, .file = strdup(file),
							    .samples = rc.v[k].samples,
							    .share = out->samples ? (double)rc.v[k].samples /
										    (double)out->samples : 0 };
			rc.v[k].name = NULL;
			out->ninlined++;
			if (!mc->file)
				ret = -1;
		}
	}
	for (size_t k = 0; k < rc.n; k++)
		free(rc.v[k].name);
	free(rc.v);
	return ret;
}

/* the kernel functions with the most of the kernel's samples, in words */
static void kernel_top(struct caller_search *s)
{
	struct report_sample_totals *t = s->totals;
	size_t pick[REPORT_KERNEL_TOP], npick = 0, o = 0;
	t->kernel_top[0] = '\0';
	while (npick < REPORT_KERNEL_TOP) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < s->ksyms.n; i++) {
			bool taken = false;
			for (size_t k = 0; k < npick; k++)
				taken |= pick[k] == i;
			if (!taken && s->kernel_weight[i] &&
			    (best == SIZE_MAX || s->kernel_weight[i] > s->kernel_weight[best]))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		pick[npick++] = best;
	}
	for (size_t k = 0; k < npick && t->kernel_weight; k++) {
		const struct report_ksym *f = &s->ksyms.v[pick[k]];
		int w = snprintf(t->kernel_top + o, sizeof t->kernel_top - o, "%s%s%s%s%s %.0f %%", k ? ", " : "",
				 f->name, f->module[0] ? " [" : "", f->module, f->module[0] ? "]" : "",
				 100.0 * (double)s->kernel_weight[pick[k]] / (double)t->kernel_weight);
		if (w < 0 || (size_t)w >= sizeof t->kernel_top - o) {
			t->kernel_top[o] = '\0';	/* the names that fit */
			break;
		}
		o += (size_t)w;
	}
}

int report_find_callers(struct gusdata *d, struct report_objects *objs, const struct report_span *spans, size_t n,
			size_t top, struct report_callers *out, bool *have_chains, struct report_sample_totals *totals,
			char *err, size_t errlen)
{
	struct caller_search s = { .spans = spans, .nspans = n, .objs = objs, .totals = totals };
	memset(totals, 0, sizeof *totals);
	int rc = -1;
	memset(out, 0, n * sizeof *out);
	*have_chains = false;
	if (!(s.counts = calloc(n + 1, sizeof *s.counts)))
		goto oom;
	if (report_ksyms_load(d, &s.ksyms)) {
		snprintf(err, errlen, "the kernel's function names cannot be read: %s", gusdata_errmsg(d));
		goto out;
	}
	if (!(s.kernel_weight = calloc(s.ksyms.n + 1, sizeof *s.kernel_weight)))
		goto oom;
	if (report_foreach_sample(d, objs, count_sample, &s)) {
		if (s.failed)
			goto oom;
		snprintf(err, errlen, "the samples cannot be read: %s", gusdata_errmsg(d));
		goto out;
	}
	*have_chains = s.have_chains;
	kernel_top(&s);
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
		if (address_counts(c, &spans[i], &out[i]) || (c->naddrs && inlined_counts(objs, c->object, &out[i])))
			goto oom;
		size_t keep = c->n < top ? c->n : top;
		if (keep && !(out[i].v = calloc(keep, sizeof *out[i].v)))
			goto oom;
		for (size_t k = 0; k < c->n; k++) {
			if (k >= keep) {
				out[i].other += c->v[k].samples;
				continue;
			}
			const char *file = c->v[k].object == SIZE_MAX ? "" : report_object_path(objs, c->v[k].object);
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
	free(s.kernel_weight);
	report_ksyms_free(&s.ksyms);
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
		for (size_t k = 0; k < c[i].ninlined; k++) {
			free((char *)c[i].inlined[k].name);
			free((char *)c[i].inlined[k].file);
		}
		free(c[i].inlined);
		free(c[i].threads);
		free(c[i].at);
		c[i] = (struct report_callers){ 0 };
	}
}
