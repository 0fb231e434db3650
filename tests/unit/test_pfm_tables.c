/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libpfm4 encodes every event of each TMA table, for that table's CPU, to
 * the public encoding written in the table (event code, umask, cmask, inv,
 * edge, any). This machine's CPU may be any: the PMU is forced. */
#include "tap.h"
#include "collect.h"
#include "topdown.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

struct pmu_check {
	int init_ok, detect_ok, named, bad;
	char detected[64], table[32], err[COLLECT_ERRLEN];
};

/* In a child process: libpfm4 reads LIBPFM_FORCE_PMU once per process. */
static void check_in_child(const char *dir, const char *pmu, struct pmu_check *r)
{
	char err[COLLECT_ERRLEN];
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	if (collect_pfm_init(err, sizeof(err)))
		return;
	r->init_ok = 1;
	struct collect_pmu_info info;
	r->detect_ok = collect_detect_pmu(&info) == 0 && info.forced;
	snprintf(r->detected, sizeof(r->detected), "%s", info.name);
	struct td_table *t = td_table_load_pmu(dir, info.name, err, sizeof(err));
	if (!t) {
		snprintf(r->err, sizeof(r->err), "%s", err);
		return;
	}
	snprintf(r->table, sizeof(r->table), "%s", t->id);
	for (size_t e = 0; e < t->n_events; e++) {
		const struct td_event *ev = &t->events[e];
		if (!ev->pfm)
			continue;
		r->named++;
		struct perf_event_attr a, u;
		if (collect_encode(ev->pfm, false, &a, err, sizeof(err))) {
			printf("# %s: %s\n", ev->name, err);
			r->bad++;
			continue;
		}
		if (a.type != PERF_TYPE_RAW || a.config != ev->config || a.exclude_kernel) {
			printf("# %s (%s): libpfm4 type %u config 0x%llx, table 0x%llx\n", ev->name, ev->pfm,
			       a.type, (unsigned long long)a.config, (unsigned long long)ev->config);
			r->bad++;
		} else if (collect_encode(ev->pfm, true, &u, err, sizeof(err)) || !u.exclude_kernel ||
			   u.config != a.config) {
			printf("# %s: user-only encoding differs\n", ev->name);
			r->bad++;
		}
	}
	td_table_free(t);
	collect_pfm_fini();
}

static void check(const char *dir, const char *id, const char *pmu)
{
	struct pmu_check r = { 0 };
	int fd[2];
	if (pipe(fd) == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			close(fd[0]);
			check_in_child(dir, pmu, &r);
			fflush(stdout);
			_exit(write(fd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
		}
		close(fd[1]);
		if (read(fd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
			memset(&r, 0, sizeof(r));
		close(fd[0]);
		waitpid(pid, NULL, 0);
	}
	tap_ok(r.init_ok, "libpfm4 initialises forced to %s", pmu);
	tap_ok(r.detect_ok && !strcmp(r.detected, pmu), "detected PMU is the forced %s (%s)", pmu, r.detected);
	tap_ok(!strcmp(r.table, id), "PMU %s selects table %s (%s)", pmu, id, r.table[0] ? r.table : r.err);
	tap_ok(r.named > 20 && r.bad == 0, "%s: all %d libpfm4-named events encode to the public codes (%d wrong)",
	       id, r.named, r.bad);
}

/* Every event of every generated table: a libpfm4 name encodes to the
 * table's public encoding under the table's PMU (forced), and the raw
 * encoding, written as perf's cpu/event=,umask=,.../ term, is taken as the
 * same config. */
static void check_generated(const char *gendir)
{
	DIR *d = opendir(gendir);
	if (!tap_ok(d != NULL, "%s opens", gendir))
		return;
	struct dirent *de;
	size_t tables = 0, events = 0, bad = 0;
	char err[COLLECT_ERRLEN];
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".tma"))
			continue;
		char path[1400];
		snprintf(path, sizeof path, "%s/%s", gendir, de->d_name);
		struct td_table *t = td_table_load(path, err, sizeof err);
		if (!t) {
			printf("# %s: %s\n", path, err);
			bad++;
			continue;
		}
		tables++;
		if (t->n_pmus)
			check(gendir, t->id, t->pmus[0]);
		unsetenv("LIBPFM_FORCE_PMU");
		collect_pfm_init(err, sizeof err);
		for (size_t e = 0; e < t->n_events; e++) {
			const struct td_event *ev = &t->events[e];
			uint64_t c = ev->config;
			char raw[256];
			snprintf(raw, sizeof raw, "cpu/event=0x%llx,umask=0x%llx%s%s%s%s%s/",
				 (unsigned long long)(c & 0xff), (unsigned long long)(c >> 8 & 0xff),
				 c >> 24 & 0xff ? ",cmask=" : "", "", c >> 23 & 1 ? ",inv=1" : "",
				 c >> 18 & 1 ? ",edge=1" : "", c >> 21 & 1 ? ",any=1" : "");
			if (c >> 24 & 0xff) {
				char cm[16];
				snprintf(cm, sizeof cm, "%llu", (unsigned long long)(c >> 24 & 0xff));
				char *p = strstr(raw, ",cmask=");
				char tail[256];
				snprintf(tail, sizeof tail, "%s", p + 7);
				snprintf(p + 7, sizeof raw - (size_t)(p + 7 - raw), "%s%s", cm, tail);
			}
			struct perf_event_attr a;
			events++;
			if (collect_encode(raw, false, &a, err, sizeof err) || a.type != PERF_TYPE_RAW || a.config != c) {
				printf("# %s %s: %s gives 0x%llx, table 0x%llx (%s)\n", t->id, ev->name, raw,
				       (unsigned long long)a.config, (unsigned long long)c, err);
				bad++;
			}
		}
		collect_pfm_fini();
		td_table_free(t);
	}
	closedir(d);
	tap_ok(tables >= 20 && events > 1000 && !bad,
	       "generated tables: %zu tables, all %zu events encode as perf's raw terms (%zu wrong)", tables, events, bad);
}

int main(void)
{
	const char *dd = getenv("GUS_DATADIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	check(dir, "clx", "clx");
	check(dir, "clx", "skx");
	check(dir, "icx", "icx");
	check(dir, "spr", "spr");

	/* the tables generated from the kernel's files: each one's libpfm4
	 * names under its PMU, and every raw encoding as perf takes it */
	const char *gen = getenv("GUS_TMAGEN_DIR");
	if (gen && *gen)
		check_generated(gen);
	else
		printf("# no generated tables (configured --without-pmu-events)\n");

	/* software events need no PMU: perf's names through libpfm4 */
	char err[COLLECT_ERRLEN];
	unsetenv("LIBPFM_FORCE_PMU");
	collect_pfm_init(err, sizeof(err));
	struct perf_event_attr a;
	tap_ok(collect_encode("task-clock", false, &a, err, sizeof(err)) == 0 && a.type == PERF_TYPE_SOFTWARE &&
		       a.config == PERF_COUNT_SW_TASK_CLOCK,
	       "task-clock is PERF_TYPE_SOFTWARE / TASK_CLOCK");
	tap_ok(collect_encode("page-faults", false, &a, err, sizeof(err)) == 0 && a.type == PERF_TYPE_SOFTWARE &&
		       a.config == PERF_COUNT_SW_PAGE_FAULTS,
	       "page-faults is PERF_TYPE_SOFTWARE / PAGE_FAULTS");
	tap_ok(collect_encode("cpu/event=0xc2,umask=0x02,cmask=1,inv=1/", true, &a, err, sizeof(err)) == 0 &&
		       a.type == PERF_TYPE_RAW && a.config == (0xc2 | 0x02 << 8 | 1u << 23 | 1u << 24) &&
		       a.exclude_kernel,
	       "a raw cpu/event=../ encoding is taken as it is");
	tap_ok(collect_encode("NO_SUCH_EVENT:XYZ", false, &a, err, sizeof(err)) != 0 && strstr(err, "NO_SUCH_EVENT"),
	       "an unknown event is an error naming it (%s)", err);
	collect_pfm_fini();
	return tap_done();
}
