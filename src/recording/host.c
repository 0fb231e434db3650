/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TMA table of this host (gus stat, gus record). */
#include <stdio.h>

#include "rec_internal.h"
#include "topdown.h"

struct td_table *recording_tma_table(const char *tma_dir, const char *arch, bool counting,
				     struct collect_pmu_info *pmu, bool *have_pmu, const struct recording_log *log,
				     enum recording_status *why)
{
	char err[COLLECT_ERRLEN];
	struct td_table *t;
	*have_pmu = false;
	*why = RECORDING_ERROR;
	if (collect_pfm_init(err, sizeof(err)) == 0 && collect_detect_pmu(pmu) == 0)
		*have_pmu = true;
	if (counting && !arch) {
		/* libpfm4 names a CPU from CPUID alone, also inside a virtual
		 * machine that has no counters: the counters decide */
		enum collect_status st = collect_probe_hw_counters(err, sizeof(err));
		if (st != COLLECT_OK) {
			rec_error(log, "%s", err);
			*why = rec_status(st, 0);
			return NULL;
		}
	}
	if (arch) {
		t = td_table_load_arch(tma_dir, arch, err, sizeof(err));
		if (!t)
			rec_error(log, "%s (tables: clx, skx, icx, spr)", err);
		return t;
	}
	if (!*have_pmu) {
		rec_error(log, "libpfm4 does not recognise this CPU's core PMU; name a table with --arch (clx, skx, icx, spr)");
		return NULL;
	}
	t = td_table_load_pmu(tma_dir, pmu->name, err, sizeof(err));
	if (!t)
		rec_error(log, "%s: this CPU (%s, libpfm4 '%s') has no TMA table; use --arch to pick one", err, pmu->desc,
			  pmu->name);
	return t;
}
