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

static void check(const char *dir, const char *id, const char *pmu, int min_named)
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
	tap_ok(r.named >= min_named && r.bad == 0,
	       "%s: all %d libpfm4-named events encode to the public codes (%d wrong)", id, r.named, r.bad);
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
		int named = 0;
		for (size_t e = 0; e < t->n_events; e++)
			named += t->events[e].pfm != NULL;
		if (t->n_pmus)
			check(gendir, t->id, t->pmus[0], named > 20 ? 21 : named > 0 ? named : 1);
		unsetenv("LIBPFM_FORCE_PMU");
		collect_pfm_init(err, sizeof err);
		for (size_t e = 0; e < t->n_events; e++) {
			const struct td_event *ev = &t->events[e];
			uint64_t c = ev->config;
			char raw[256];
			/* AMD's event bits 11:8 are config bits 35:32 */
			snprintf(raw, sizeof raw, "cpu/event=0x%llx,umask=0x%llx%s%s%s%s%s/",
				 (unsigned long long)((c & 0xff) | (c >> 32 & 0xf) << 8), (unsigned long long)(c >> 8 & 0xff),
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

/* libpfm4's encoding of NAME with PMU forced (in a child: libpfm4 reads
 * LIBPFM_FORCE_PMU once per process); 0 when it has none */
static uint64_t forced_config(const char *pmu, const char *name)
{
	uint64_t cfg = 0;
	int fd[2];
	if (pipe(fd))
		return 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		char err[COLLECT_ERRLEN];
		struct perf_event_attr a;
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		if (!collect_pfm_init(err, sizeof err) && !collect_encode(name, false, &a, err, sizeof err))
			cfg = a.config;
		_exit(write(fd[1], &cfg, sizeof cfg) == (ssize_t)sizeof cfg ? 0 : 1);
	}
	close(fd[1]);
	if (read(fd[0], &cfg, sizeof cfg) != (ssize_t)sizeof cfg)
		cfg = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return cfg;
}

static uint64_t config_of(const struct td_table *t, const char *name)
{
	int e = t ? td_table_find_event(t, name) : -1;
	return e < 0 ? 0 : t->events[e].config;
}

/* AMD's tables: known encodings. The extended event select puts event
 * bits 11:8 in config bits 35:32 (the PPR's PERF_CTL; perf's
 * event=config:0-7,32-35), umask in 15:8, cmask in 31:24. */
static void check_amd(const char *gendir)
{
	char err[TD_ERRLEN];
	struct td_table *z4 = td_table_load_arch(gendir, "zen4", err, sizeof err);
	struct td_table *z5 = td_table_load_arch(gendir, "zen5", err, sizeof err);
	if (!tap_ok(z4 && z5, "the zen4 and zen5 tables load (%s)", z4 && z5 ? "yes" : err)) {
		td_table_free(z4);
		td_table_free(z5);
		return;
	}
	tap_ok(z4->width == 6 && z5->width == 8 && z4->counters == 6 && z5->counters == 6,
	       "widths 6 and 8 dispatch slots, 6 counters each (%d, %d; %d, %d)", z4->width, z5->width, z4->counters,
	       z5->counters);
	static const struct {
		int zen;
		const char *name;
		uint64_t config;
	} known[] = {
		{ 4, "ls_not_halted_cyc", 0x76 },
		{ 4, "de_no_dispatch_per_slot.no_ops_from_frontend", 0x1000001a0ull },
		{ 4, "de_no_dispatch_per_slot.no_ops_from_frontend.c6", 0x1060001a0ull },
		{ 4, "de_no_dispatch_per_slot.backend_stalls", 0x100001ea0ull },
		{ 4, "de_src_op_disp.all", 0x07aa },
		{ 4, "ex_ret_ucode_ops", 0x1000000c2ull },
		{ 4, "resyncs_or_nc_redirects", 0x96 },
		{ 4, "ex_no_retire.load_not_complete", 0xa2d6 },
		{ 5, "de_no_dispatch_per_slot.no_ops_from_frontend.c8", 0x1080001a0ull },
		{ 5, "de_no_dispatch_per_slot.smt_contention", 0x1000060a0ull },
		{ 5, "bp_redirects.resync", 0x019f },
		{ 5, "ex_ret_ops", 0xc1 },
		{ 5, "ex_ret_ucode_ops", 0x1000000c2ull },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		uint64_t c = config_of(known[i].zen == 4 ? z4 : z5, known[i].name);
		tap_ok(c == known[i].config, "zen%d %s is 0x%llx (0x%llx)", known[i].zen, known[i].name,
		       (unsigned long long)known[i].config, (unsigned long long)c);
	}
	/* perf's raw term and perf's name of a metric's modified event */
	uint64_t c;
	tap_ok(td_parse_raw_config("cpu/event=0x1a0,umask=0x01,cmask=6/", &c) && c == 0x1060001a0ull,
	       "cpu/event=0x1a0,umask=0x01,cmask=6/ is config 0x1060001a0");
	tap_ok(config_of(z4, "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/") == 0x1060001a0ull,
	       "perf's cpu/EVENT,cmask=0x6/ is the table's .c6 event");
	tap_ok(config_of(z4, "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6,"
			     "metric-id=cpu!3de_no_dispatch_per_slot.no_ops_from_frontend!0cmask!20x6!3/") ==
		       0x1060001a0ull,
	       "... with perf's metric-id term too");
	tap_ok(config_of(z5, "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/") == 0,
	       "zen5 has no cmask=6 form (its latency is cmask=8)");
	/* libpfm4's Zen 4 names, known encodings */
	int e = td_table_find_event(z4, "de_no_dispatch_per_slot.no_ops_from_frontend");
	tap_streq(e >= 0 && z4->events[e].pfm ? z4->events[e].pfm : "", "DISPATCH_STALLS_1:FE_NO_OPS",
		  "zen4: libpfm4's name for the frontend's empty slots");
	tap_ok(forced_config("amd64_fam19h_zen4", "DISPATCH_STALLS_1:FE_NO_OPS") == 0x1000001a0ull,
	       "libpfm4 encodes DISPATCH_STALLS_1:FE_NO_OPS to 0x1000001a0 on Zen 4");
	tap_ok(forced_config("amd64_fam19h_zen4", "DISPATCH_STALLS_1:FE_NO_OPS:c=6") == 0x1060001a0ull,
	       "... and with :c=6 to 0x1060001a0");
	size_t raw5 = 0;
	for (size_t i = 0; i < z5->n_events; i++)
		raw5 += z5->events[i].pfm == NULL;
	tap_ok(raw5 == z5->n_events, "zen5: every event by its raw encoding (%zu of %zu)", raw5, z5->n_events);
	td_table_free(z4);
	td_table_free(z5);
}

int main(void)
{
	const char *dd = getenv("GUS_DATADIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	check(dir, "clx", "clx", 21);
	check(dir, "clx", "skx", 21);
	check(dir, "icx", "icx", 21);
	check(dir, "spr", "spr", 21);

	/* the tables generated from the kernel's files: each one's libpfm4
	 * names under its PMU, and every raw encoding as perf takes it */
	const char *gen = getenv("GUS_TMAGEN_DIR");
	if (gen && *gen) {
		check_generated(gen);
		check_amd(gen);
	} else
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
