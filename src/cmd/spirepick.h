/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What SPIRE counts, shared by gus stat -I --spire and gus record --spire. */
#ifndef GUS_SPIREPICK_H
#define GUS_SPIREPICK_H

#include <stdbool.h>
#include <stddef.h>

struct collect_pmu_info;

struct gus_spire_request {
	const char *arch;	/* a set id or a CPU of one, NULL: this CPU's */
	const char *metrics;	/* --metrics LIST, NULL: the whole set */
	const char *time_event, *work_event;	/* NULL: the set's (or the defaults) */
	bool user_only;
	bool print_events;	/* only printing the perf command: nothing is opened */
	const char *opt;	/* the options' prefix in messages: "" (gus stat), "spire-" (gus record) */
};

/* what SPIRE counts: T, W and the metrics, each as libpfm4 (or the
 * kernel) encodes it and as the count set names it */
struct gus_spire_pick {
	struct spire_metricset *set;	/* NULL: no set (only --metrics events) */
	const char *cpu;		/* "# cpu:" line; NULL when unknown */
	const char *time_enc, *time_name, *work_enc, *work_name;
	const char **enc, **names;
	size_t n;
	char *list;			/* --metrics split (collect_split_events): the names point into it */
	bool uses_set;			/* encodes libpfm4 names of the set */
	char left_out[256];		/* AnyThread metrics left out */
	const char *opt;		/* the request's option prefix */
};

void gus_spire_pick_free(struct gus_spire_pick *sp);
/* Chooses the set, T, W and the metrics, checks the set is this CPU's
 * (unless only printing), and the metrics per group (*BUDGET; NOTE says
 * when the NMI watchdog took a counter). 0, or gus's exit status with the
 * message printed. */
int gus_spire_prepare(const struct gus_spire_request *rq, const struct collect_pmu_info *pmu, bool have_pmu,
		      struct gus_spire_pick *sp, int *budget, char *note, size_t notelen);

#endif
