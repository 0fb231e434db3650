/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Event encoding and PMU facts from libpfm4. */
#include "collect.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

static bool pfm_ready;

int collect_pfm_init(char *err, size_t errlen)
{
	if (pfm_ready)
		return 0;
	int rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4 initialisation failed: %s", pfm_strerror(rc));
		return -1;
	}
	pfm_ready = true;
	return 0;
}

void collect_pfm_fini(void)
{
	if (pfm_ready)
		pfm_terminate();
	pfm_ready = false;
}

/* General counters per logical CPU from CPUID leaf 0xA (architectural
 * performance monitoring); 0 when the CPU (or hypervisor) reports none. */
static int cpuid_generic_counters(void)
{
	unsigned int a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d) || a < 0xa)
		return 0;
	__cpuid_count(0xa, 0, a, b, c, d);
	if ((a & 0xff) == 0)	/* version 0: no architectural PMU */
		return 0;
	return (int)((a >> 8) & 0xff);
}

int collect_detect_pmu(struct collect_pmu_info *info)
{
	pfm_pmu_info_t pi;
	memset(info, 0, sizeof(*info));
	info->forced = getenv("LIBPFM_FORCE_PMU") != NULL;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS)
			continue;
		if (!pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(info->name, sizeof(info->name), "%s", pi.name);
		snprintf(info->desc, sizeof(info->desc), "%s", pi.desc);
		info->generic_counters = pi.num_cntrs;
		info->fixed_counters = pi.num_fixed_cntrs;
		return 0;
	}
	return -1;
}

int collect_counter_budget(const struct collect_pmu_info *pmu, char *note, size_t notelen)
{
	int budget = pmu->generic_counters;
	int cpuid = pmu->forced ? 0 : cpuid_generic_counters();
	note[0] = 0;
	/* libpfm4 gives the core's maximum; with SMT on each thread has half */
	if (cpuid > 0 && cpuid < budget)
		budget = cpuid;
	if (budget <= 0)
		budget = 4;
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "r");
	if (f) {
		int on = 0;
		if (fscanf(f, "%d", &on) == 1 && on && budget > 1) {
			budget--;
			snprintf(note, notelen,
				 "the NMI watchdog holds a counter (echo 0 > /proc/sys/kernel/nmi_watchdog to free it)");
		}
		fclose(f);
	}
	return budget;
}

int collect_encode(const char *name, bool user_only, struct perf_event_attr *attr,
		   char *err, size_t errlen)
{
	uint64_t cfg;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (td_parse_raw_config(name, &cfg)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = cfg;
		attr->exclude_kernel = user_only;
		attr->exclude_hv = 1;
		return 0;
	}
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = attr;
	int plm = PFM_PLM3 | (user_only ? 0 : PFM_PLM0);
	int rc = pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT, &arg);
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "event '%s': %s (libpfm4)", name, pfm_strerror(rc));
		return -1;
	}
	attr->size = sizeof(*attr);
	return 0;
}

bool collect_smt_active(void)
{
	int on = 0;
	FILE *f = fopen("/sys/devices/system/cpu/smt/active", "r");
	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on == 1;
}

int collect_pmu_name(char *out, size_t n)
{
	char err[COLLECT_ERRLEN];
	struct collect_pmu_info pmu;
	if (collect_pfm_init(err, sizeof err) || collect_detect_pmu(&pmu))
		return -1;
	snprintf(out, n, "%s", pmu.name);
	return 0;
}
