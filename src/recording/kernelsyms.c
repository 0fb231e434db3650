/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The names of the kernel's frames: the functions of /proc/kallsyms that
 * the samples' kernel addresses (a kernel sample's ip, the kernel part of
 * a call chain) fall in, kept in the recording (table kernel_symbols), so
 * that gus report shows the kernel's call chains as perf report does, on
 * any machine and after a reboot. Only those functions: a few hundred
 * rows, not the kernel's 100 000 and more. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "gusdata.h"
#include "rec_internal.h"

/* x86-64's upper half: the kernel's addresses */
#define KERNEL_START 0xffff800000000000ULL

struct kaddrs {
	uint64_t *v;
	size_t n, cap;
};

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* sorted and unique in place */
static void sort_unique(struct kaddrs *a)
{
	qsort(a->v, a->n, sizeof *a->v, cmp_u64);
	size_t w = 0;
	for (size_t i = 0; i < a->n; i++)
		if (!w || a->v[i] != a->v[w - 1])
			a->v[w++] = a->v[i];
	a->n = w;
}

static int add_kaddr(struct kaddrs *a, uint64_t x)
{
	if (x < KERNEL_START || x >= (uint64_t)PERF_CONTEXT_MAX)
		return 0;
	if (a->n && a->v[a->n - 1] == x)
		return 0;
	if (a->n == a->cap) {
		/* deep chains repeat: thin them out before growing */
		if (a->cap >= (1u << 20))
			sort_unique(a);
	}
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 4096;
		uint64_t *v = realloc(a->v, nc * sizeof *v);
		if (!v)
			return -1;
		a->v = v;
		a->cap = nc;
	}
	a->v[a->n++] = x;
	return 0;
}

static int kernel_addresses(void *ctx, const struct gusdata_sample *s)
{
	struct kaddrs *a = ctx;
	if (!s->user && add_kaddr(a, s->ip))
		return -1;
	/* a return address names its call, the byte before it (gus report
	 * looks there): where the return lands at the start of the next
	 * function, that is another function (an interrupt taken at a
	 * function's first instruction, a call that does not return) */
	for (size_t i = 0; i < s->ncallchain; i++)
		if (add_kaddr(a, s->callchain[i]) || (i && add_kaddr(a, s->callchain[i] - 1)))
			return -1;
	return 0;
}

int rec_store_kernel_symbols(struct gusdata *d, const char *kallsyms, uint64_t ref,
			     struct collect_kallsyms_async *pending, const struct recording_log *log)
{
	struct kaddrs a = { 0 };
	if (gusdata_foreach_sample(d, kernel_addresses, &a)) {
		free(a.v);
		return -1;
	}
	if (!a.n) {
		free(a.v);
		return 0;
	}
	sort_unique(&a);
	struct collect_kallsyms *k;
	char err[COLLECT_ERRLEN], why[COLLECT_ERRLEN + 64];
	if (pending ? collect_kallsyms_wait(pending, &k, err, sizeof err)
		    : collect_kallsyms_read(kallsyms, &k, err, sizeof err)) {
		snprintf(why, sizeof why, "the kernel's frames are not named: %s", err);
		rec_warn(log, "%s", why);
		free(a.v);
		return gusdata_set_meta(d, "missing.kernel_symbols", why);
	}
	const struct collect_ksym *r = ref ? collect_kallsyms_find(k, ref) : NULL;
	if (ref && (!r || r->start != ref)) {
		snprintf(why, sizeof why, "the kernel's frames are not named: the samples are of another boot (its "
			 "kernel's reference symbol at 0x%llx is no function's start in %s)", (unsigned long long)ref,
			 kallsyms);
		rec_warn(log, "%s", why);
		collect_kallsyms_free(k);
		free(a.v);
		return gusdata_set_meta(d, "missing.kernel_symbols", why);
	}
	if (gusdata_begin(d)) {
		collect_kallsyms_free(k);
		free(a.v);
		return -1;
	}
	int rc = 0;
	size_t stored = 0, unnamed = 0;
	const struct collect_ksym *last = NULL;
	for (size_t i = 0; !rc && i < a.n; i++) {
		const struct collect_ksym *f = collect_kallsyms_find(k, a.v[i]);
		if (!f) {
			unnamed++;
			continue;
		}
		if (f == last)
			continue;
		last = f;
		struct gusdata_kernel_symbol g = { .start = f->start, .end = f->end, .name = f->name,
						   .module = f->module };
		rc = gusdata_add_kernel_symbol(d, &g);
		stored++;
	}
	if (!rc) {
		char fact[160];
		snprintf(fact, sizeof fact, "%zu functions of %s for the samples' %zu kernel addresses (%zu in no "
			 "function)", stored, kallsyms, a.n, unnamed);
		rc = gusdata_set_meta(d, "kernel.symbols", fact);
	}
	rc = gusdata_commit(d) || rc;
	collect_kallsyms_free(k);
	free(a.v);
	return rc ? -1 : 0;
}
