/* SPDX-License-Identifier: GPL-2.0-or-later */
/* collect: launching the workload and perf_event counting sessions.
 * Events are encoded with libpfm4 and counted with libperf. */
#ifndef GUS_COLLECT_H
#define GUS_COLLECT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "topdown.h"

#define COLLECT_ERRLEN 512

enum collect_status {
	COLLECT_OK = 0,
	COLLECT_ERROR,		/* anything else: message in err */
	COLLECT_NO_PMU,		/* perf_event_open: ENOENT / EOPNOTSUPP / ENODEV */
	COLLECT_NO_PERMISSION,	/* perf_event_open: EACCES / EPERM */
	COLLECT_BAD_EVENT,	/* libpfm4 or the kernel rejects an event */
	COLLECT_EXEC_FAILED,	/* the program could not be started */
};

struct collect_pmu_info {
	char name[64];		/* libpfm4 name, e.g. "clx", "spr" */
	char desc[128];
	int generic_counters;	/* per logical CPU, as libpfm4 reports */
	int fixed_counters;
	bool forced;		/* LIBPFM_FORCE_PMU was set */
};

/* libpfm4 setup; safe to call more than once. */
int collect_pfm_init(char *err, size_t errlen);
void collect_pfm_fini(void);
/* The core PMU libpfm4 detected (or was forced to). -1 if none. */
int collect_detect_pmu(struct collect_pmu_info *info);

/* Encode NAME: a libpfm4 event (perf software names such as task-clock
 * included) or a raw perf encoding (cpu/event=0x..,umask=0x../, rNNNN).
 * user_only counts user space only. */
int collect_encode(const char *name, bool user_only, struct perf_event_attr *attr,
		   char *err, size_t errlen);

struct collect_event {
	char *name;		/* the name the count set carries */
	struct perf_event_attr attr;
	int group;
	bool metrics_leader;	/* leads a PERF_METRICS group: group read */
};

struct collect_plan {
	struct collect_event *ev;
	size_t n;
	int n_groups;
	int budget;		/* general counters per group */
	char note[256];		/* e.g. NMI watchdog took a counter */
};

void collect_plan_free(struct collect_plan *plan);
/* Groups for the events a TMA table needs: SLOTS-led PERF_METRICS group
 * first where the table has one, then general events packed into groups of
 * at most budget counters, fixed-counter events in the first group.
 * use_pfm: encode with libpfm4 names (the table is the detected CPU's);
 * otherwise the table's public encodings are used as they are. */
int collect_plan_tma(const struct td_table *t, const bool *needed, int budget, bool use_pfm,
		     bool user_only, struct collect_plan *plan, char *err, size_t errlen);
/* -e LIST: every event on its own, as perf stat -e does. */
int collect_plan_events(const char *list, bool user_only, struct collect_plan *plan,
			char *err, size_t errlen);
/* General counters usable per group on this machine: libpfm4's count less
 * one when the NMI watchdog holds a counter; note says why. */
int collect_counter_budget(const struct collect_pmu_info *pmu, char *note, size_t notelen);

struct collect_result {
	int wait_status;	/* as from waitpid */
	bool interrupted;	/* SIGINT/SIGTERM reached gus and was forwarded */
	double seconds;		/* wall time of the program */
	int exec_errno;		/* COLLECT_EXEC_FAILED: why exec failed */
};

/* Run argv once, counting the plan's events (group only_group, or all when
 * -1) for it and all its threads and children; counts are added to cs. */
enum collect_status collect_count(const struct collect_plan *plan, int only_group,
				  char *const argv[], struct td_countset *cs,
				  struct collect_result *res, char *err, size_t errlen);

/* SMT (hyper-threading) active on this machine. */
bool collect_smt_active(void);

/* gus's own exit status for a program's wait status: its exit code, or
 * 128 + signal when a signal killed it (as perf and shells do). */
int collect_exit_code(int wait_status);

#endif
