/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The samples as the callers and the call stacks read them: a sample of
 * --call-graph dwarf (user registers and stack stored with it) gets its
 * user call chain unwound here (merge_unwind), placed in the sample run's
 * mappings as the regions place their samples (objects.c). The kernel's
 * part of the stored chain, where there is one, comes first, as perf
 * shows a kernel sample's chain. The chains are unwound once: a second
 * reading of the samples takes them from what the first kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"
#include "report_internal.h"

/* x86-64's upper half: the kernel's addresses in a call chain */
#define KERNEL_START 0xffff800000000000ULL
/* frames unwound at most: perf's default --max-stack is 127 */
#define MAX_FRAMES 256

struct report_unwind {
	struct report_objects *objs;
	struct merge_unwinder *u;
	/* the chain of the Nth sample read: POOL[KEPT[N].off, + KEPT[N].len);
	 * len SIZE_MAX: nothing unwound, its stored chain stands */
	uint64_t *pool;
	size_t npool, cappool;
	struct kept {
		size_t off, len;
	} *kept;
	size_t nkept, capkept;
	uint64_t pcs[MAX_FRAMES];
	uint64_t *chain;	/* the chain given: kernel part + unwound */
	size_t capchain;
};

struct reading {
	struct report_unwind *uw;
	int (*fn)(void *ctx, const struct gusdata_sample *s);
	void *ctx;
	size_t index;		/* of the sample being read */
	bool failed;		/* out of memory */
};

static bool find_object(void *ctx, int pid, uint64_t addr, struct merge_unwind_object *out)
{
	struct report_unwind *uw = ctx;
	struct report_place p;
	if (!report_objects_locate(uw->objs, pid, addr, &p) || p.pseudo || !report_object_usable(uw->objs, p.object))
		return false;
	out->path = report_object_path(uw->objs, p.object);
	out->bias = addr - p.link;
	return true;
}

static bool grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

/* the sample's kernel part and its unwound user chain U (N pcs) as its
 * chain, kept for the next reading */
static int give(struct reading *r, const struct gusdata_sample *smp, const uint64_t *u, size_t n)
{
	struct report_unwind *uw = r->uw;
	size_t k = 0;
	while (k < smp->ncallchain && smp->callchain[k] >= KERNEL_START)
		k++;
	if (!grow((void **)&uw->chain, &uw->capchain, k + n, sizeof *uw->chain))
		return -1;
	/* memcpy of nothing from NULL is undefined */
	if (k)
		memcpy(uw->chain, smp->callchain, k * sizeof *uw->chain);
	if (n)
		memcpy(uw->chain + k, u, n * sizeof *uw->chain);
	struct gusdata_sample s = *smp;
	s.callchain = uw->chain;
	s.ncallchain = k + n;
	return r->fn(r->ctx, &s);
}

static int read_sample(void *ctx, const struct gusdata_sample *smp)
{
	struct reading *r = ctx;
	struct report_unwind *uw = r->uw;
	size_t i = r->index++;
	if (i < uw->nkept) {
		if (uw->kept[i].len == SIZE_MAX)
			return r->fn(r->ctx, smp);
		return give(r, smp, uw->pool + uw->kept[i].off, uw->kept[i].len);
	}
	size_t n = 0;
	if (smp->regs_abi && smp->nregs) {
		if (!uw->u && !(uw->u = merge_unwinder_new(find_object, uw)))
			goto oom;
		struct merge_unwind_regs regs = { .abi = smp->regs_abi, .mask = smp->regs_mask, .v = smp->regs,
						  .n = smp->nregs };
		n = merge_unwind(uw->u, smp->pid, &regs, smp->stack, smp->nstack, uw->pcs, MAX_FRAMES);
	}
	/* kept in order: the Nth sample of the next reading is this one */
	if (i == uw->nkept) {
		if (!grow((void **)&uw->kept, &uw->capkept, i + 1, sizeof *uw->kept) ||
		    (n && !grow((void **)&uw->pool, &uw->cappool, uw->npool + n, sizeof *uw->pool)))
			goto oom;
		uw->kept[i] = (struct kept){ .off = uw->npool, .len = n ? n : SIZE_MAX };
		if (n)
			memcpy(uw->pool + uw->npool, uw->pcs, n * sizeof *uw->pcs);
		uw->npool += n;
		uw->nkept++;
	}
	return n ? give(r, smp, uw->pcs, n) : r->fn(r->ctx, smp);
oom:
	r->failed = true;
	return -1;
}

int report_foreach_sample(struct gusdata *d, struct report_objects *o,
			  int (*fn)(void *ctx, const struct gusdata_sample *s), void *ctx)
{
	struct report_unwind **uwp = report_objects_unwind(o);
	if (!*uwp) {
		if (!(*uwp = calloc(1, sizeof **uwp)))
			return -1;
		(*uwp)->objs = o;
	}
	struct reading r = { .uw = *uwp, .fn = fn, .ctx = ctx };
	return gusdata_foreach_sample(d, read_sample, &r);
}

void report_unwind_free(struct report_unwind *uw)
{
	if (!uw)
		return;
	merge_unwinder_free(uw->u);
	free(uw->pool);
	free(uw->kept);
	free(uw->chain);
	free(uw);
}
