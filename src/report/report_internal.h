/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report's internals: the callers of the hot regions (callers.c). */
#ifndef GUS_REPORT_INTERNAL_H
#define GUS_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge.h"

struct gusdata;

/* A hot region as the callers are counted for it: link-time [start, end)
 * of FILE. */
struct report_span {
	const char *file;
	uint64_t start, end;
};

/* The callers of one region: its TOP callers by samples (names and files
 * malloc'ed), the samples of the others, and how many of its samples have
 * a call chain. */
struct report_callers {
	struct merge_report_caller *v;
	size_t n;
	uint64_t other;
	uint64_t with_chain;
};

/* The callers of the N regions SPANS in the samples of recording D: for
 * each sample in a region, the function of the first frame of its call
 * chain outside the region, named by its object's symbols (the sample
 * run's mappings turn an address into an object and a link-time
 * address). OUT has N entries; *HAVE_CHAINS: some sample has a call
 * chain (gus record -g). -1 with ERR when the samples cannot be read. */
int report_find_callers(struct gusdata *d, const struct report_span *spans, size_t n, size_t top,
			struct report_callers *out, bool *have_chains, char *err, size_t errlen);
void report_callers_free(struct report_callers *c, size_t n);

#endif
