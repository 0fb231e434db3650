/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's functions a recording names its samples' kernel addresses
 * with (kernel_symbols, written by gus record from /proc/kallsyms), read
 * for the call stacks and callers. A recording may come from anyone:
 * empty, inverted or overlapping ranges are dropped, names are cut, and
 * the rows read are bounded. */
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "report_internal.h"

/* gus record stores the functions its samples hit: hundreds; more than
 * this is not a recording gus wrote */
#define KSYMS_MAX 200000
#define KSYM_NAME_MAX 256

struct ksym_load {
	struct report_ksyms *k;
	size_t cap;
	bool failed;
};

static char *cut_copy(const char *s)
{
	size_t n = strnlen(s, KSYM_NAME_MAX);
	char *c = malloc(n + 1);
	if (c) {
		memcpy(c, s, n);
		c[n] = '\0';
	}
	return c;
}

static int add_ksym(void *ctx, const struct gusdata_kernel_symbol *g)
{
	struct ksym_load *l = ctx;
	struct report_ksyms *k = l->k;
	if (g->start >= g->end || !g->name[0])
		return 0;
	if (k->n >= KSYMS_MAX)
		return 1;	/* stop: the rest is not read */
	if (k->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 256;
		struct report_ksym *v = realloc(k->v, nc * sizeof *v);
		if (!v) {
			l->failed = true;
			return -1;
		}
		k->v = v;
		l->cap = nc;
	}
	struct report_ksym *s = &k->v[k->n];
	s->start = g->start;
	s->end = g->end;
	s->name = cut_copy(g->name);
	s->module = cut_copy(g->module ? g->module : "");
	if (!s->name || !s->module) {
		free(s->name);
		free(s->module);
		l->failed = true;
		return -1;
	}
	k->n++;
	return 0;
}

static int by_start(const void *pa, const void *pb)
{
	const struct report_ksym *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

int report_ksyms_load(struct gusdata *d, struct report_ksyms *k)
{
	*k = (struct report_ksyms){ 0 };
	struct ksym_load l = { .k = k };
	int rc = gusdata_foreach_kernel_symbol(d, add_ksym, &l);
	if (rc < 0 || l.failed) {
		report_ksyms_free(k);
		return -1;
	}
	if (!k->n)
		return 0;
	/* sorted, and disjoint: a range overlapping the one before is dropped */
	qsort(k->v, k->n, sizeof *k->v, by_start);
	size_t w = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (w && k->v[i].start < k->v[w - 1].end) {
			free(k->v[i].name);
			free(k->v[i].module);
			continue;
		}
		k->v[w++] = k->v[i];
	}
	k->n = w;
	return 0;
}

const struct report_ksym *report_ksyms_find(const struct report_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= k->v[lo - 1].end)
		return NULL;
	return &k->v[lo - 1];
}

void report_ksyms_free(struct report_ksyms *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].name);
		free(k->v[i].module);
	}
	free(k->v);
	*k = (struct report_ksyms){ 0 };
}
