/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The host: the TMA table of its CPU (gus stat, gus record), its programs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

enum recording_status recording_find_program(const char *name, char *out, size_t outlen,
					     const struct recording_log *log)
{
	if (strchr(name, '/')) {
		snprintf(out, outlen, "%s", name);
		if (access(out, F_OK) != 0) {
			rec_error(log, "%s: %s", name, strerror(errno));
			return RECORDING_NOT_FOUND;
		}
		if (access(out, X_OK) != 0) {
			rec_error(log, "%s: not executable", name);
			return RECORDING_CANNOT_EXECUTE;
		}
		return RECORDING_OK;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		/* an empty PATH entry is the current directory */
		snprintf(out, outlen, "%.*s/%s", (int)n, n ? path : ".", name);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return RECORDING_OK;
		path += n + (colon ? 1 : 0);
	}
	rec_error(log, "%s: command not found", name);
	return RECORDING_NOT_FOUND;
}
