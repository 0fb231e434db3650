/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counting groups: the counter budget, the SLOTS-led PERF_METRICS group,
 * fixed counters, and -e lists. */
#include "tap.h"
#include "collect.h"
#include "topdown.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[COLLECT_ERRLEN], dir[1024];

static void plan_for(const char *id, int level, int budget)
{
	struct td_table *t = td_table_load_arch(dir, id, err, sizeof(err));
	if (!t)
		return;
	bool *sel = td_select_nodes(t, level, NULL, err, sizeof(err));
	bool *needed = calloc(t->n_events, sizeof(bool));
	td_needed_events(t, sel, true, needed);
	struct collect_plan p;
	if (tap_ok(collect_plan_tma(t, needed, budget, false, false, &p, err, sizeof(err)) == 0,
		   "%s level %d: planned (%s)", id, level, err)) {
		int over = 0, metrics_ok = 1, want = 0;
		for (size_t e = 0; e < t->n_events; e++)
			want += needed[e];
		for (int g = 0; g < p.n_groups; g++) {
			int general = 0;
			for (size_t i = 0; i < p.n; i++) {
				if (p.ev[i].group != g)
					continue;
				int e = td_table_find_event(t, p.ev[i].name);
				if (t->events[e].kind == TD_EV_GENERAL)
					general++;
				if (t->events[e].kind == TD_EV_METRICS) {
					/* group 0, led by SLOTS */
					metrics_ok &= g == 0 && p.ev[0].group_read &&
						      t->events[td_table_find_event(t, p.ev[0].name)].config == 0x400;
				}
			}
			over += general > budget;
		}
		tap_ok(over == 0, "%s level %d: no group uses more than %d general counters (%d groups)", id, level,
		       budget, p.n_groups);
		tap_ok((int)p.n == want, "%s level %d: every needed event is counted once (%zu of %d)", id, level, p.n,
		       want);
		tap_ok(metrics_ok, "%s: PERF_METRICS fields sit in group 0 behind SLOTS", id);
		collect_plan_free(&p);
	}
	free(sel);
	free(needed);
	td_table_free(t);
}

static void test_split(void)
{
	size_t n;
	char **v = collect_split_events("cycles,cpu/event=0x3c,umask=0x0,name=c/u,IDQ:DSB_UOPS", &n);
	tap_ok(v && n == 3 && !strcmp(v[0], "cycles") && !strcmp(v[1], "cpu/event=0x3c,umask=0x0,name=c/u") &&
	       !strcmp(v[2], "IDQ:DSB_UOPS") && !v[3], "an event list splits at commas outside cpu/.../ terms");
	free(v);
	v = collect_split_events("a,,b", &n);
	tap_ok(v && n == 3 && !strcmp(v[1], "") && !strcmp(v[2], "b"), "an empty item is kept for the caller to refuse");
	free(v);
	v = collect_split_events("", &n);
	tap_ok(v && n == 1 && !strcmp(v[0], ""), "an empty list is one empty item");
	free(v);
}

int main(void)
{
	test_split();
	const char *dd = getenv("GUS_DATADIR");
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	plan_for("clx", 1, 4);
	plan_for("clx", 3, 4);
	plan_for("clx", 3, 3);
	plan_for("icx", 3, 8);
	plan_for("spr", 2, 8);

	struct td_table *t = td_table_load_arch(dir, "spr", err, sizeof(err));
	if (t) {
		bool *sel = td_select_nodes(t, 1, "DRAM_Bound", err, sizeof(err));
		tap_ok(sel && sel[td_node_index(t, "DRAM_Bound")] && sel[td_node_index(t, "Memory_Bound")] &&
			       !sel[td_node_index(t, "L1_Bound")],
		       "--nodes DRAM_Bound adds it and its ancestors, not its siblings");
		free(sel);
		sel = td_select_nodes(t, 1, "Nonsense_Bound", err, sizeof(err));
		tap_ok(!sel && strstr(err, "Nonsense_Bound"), "an unknown node is named (%s)", err);
		td_table_free(t);
	}

	/* a hybrid CPU's table: its events open on its core type's PMU (the
	 * sysfs type), as raw events where this machine has no such PMU */
	t = td_table_parse("table h \"hybrid\"\nperfpmu cpu_core\nwidth 6\nevent E code=0x3c umask=0x00\n"
			   "node A parent=- unit=slots threshold=0.1 = E / 2\n", "h.tma", err, sizeof err);
	if (tap_ok(t && t->perf_pmu && !strcmp(t->perf_pmu, "cpu_core"), "perfpmu is read (%s)", t ? "" : err)) {
		bool needed[1] = { true };
		char sys[] = "/tmp/gus-sysfs-XXXXXX";
		struct collect_plan hp;
		if (mkdtemp(sys)) {
			char path[128];
			snprintf(path, sizeof path, "%s/cpu_core", sys);
			mkdir(path, 0755);
			snprintf(path, sizeof path, "%s/cpu_core/type", sys);
			FILE *f = fopen(path, "w");
			if (f) {
				fputs("8\n", f);
				fclose(f);
			}
			setenv("GUS_SYSFS_PMUS", sys, 1);
			bool made = collect_plan_tma(t, needed, 4, false, false, &hp, err, sizeof err) == 0 && hp.n == 1;
			tap_ok(made && hp.ev[0].attr.type == 8 && hp.ev[0].attr.config == 0x3c,
			       "on a hybrid CPU the events open on the core type's PMU (type %u)",
			       made ? hp.ev[0].attr.type : 0);
			collect_plan_free(&hp);
			unlink(path);
			snprintf(path, sizeof path, "%s/cpu_core", sys);
			rmdir(path);
			rmdir(sys);
			made = collect_plan_tma(t, needed, 4, false, false, &hp, err, sizeof err) == 0 && hp.n == 1;
			tap_ok(made && hp.ev[0].attr.type == PERF_TYPE_RAW, "without that PMU: raw events");
			collect_plan_free(&hp);
			unsetenv("GUS_SYSFS_PMUS");
		}
		td_table_free(t);
	}

	collect_pfm_init(err, sizeof(err));
	struct collect_plan p;
	tap_ok(collect_plan_events("task-clock,cpu/event=0x3c,umask=0x0/,page-faults", false, &p, err,
				   sizeof(err)) == 0 && p.n == 3 && p.n_groups == 3 &&
		       !strcmp(p.ev[1].name, "cpu/event=0x3c,umask=0x0/"),
	       "-e splits at commas outside cpu/.../, one group per event");
	collect_plan_free(&p);
	tap_ok(collect_plan_events("task-clock,,page-faults", false, &p, err, sizeof(err)) != 0 &&
		       strstr(err, "empty event"),
	       "an empty name in -e is an error (%s)", err);
	tap_ok(collect_plan_events("task-clock,bogus-event", false, &p, err, sizeof(err)) != 0 &&
		       strstr(err, "bogus-event"),
	       "an unknown -e event is named (%s)", err);
	collect_pfm_fini();
	return tap_done();
}
