/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped TMA tables and the table loader's errors. */
#include "tap.h"
#include "topdown.h"

#include <stdlib.h>
#include <unistd.h>

static char err[TD_ERRLEN];

static const char *const tree[][2] = {
	{ "Frontend_Bound", "-" }, { "Bad_Speculation", "-" }, { "Backend_Bound", "-" }, { "Retiring", "-" },
	{ "Fetch_Latency", "Frontend_Bound" }, { "Fetch_Bandwidth", "Frontend_Bound" },
	{ "Branch_Mispredicts", "Bad_Speculation" }, { "Machine_Clears", "Bad_Speculation" },
	{ "Memory_Bound", "Backend_Bound" }, { "Core_Bound", "Backend_Bound" },
	{ "Light_Operations", "Retiring" }, { "Heavy_Operations", "Retiring" },
	{ "ICache_Misses", "Fetch_Latency" }, { "ITLB_Misses", "Fetch_Latency" },
	{ "Branch_Resteers", "Fetch_Latency" }, { "DSB_Switches", "Fetch_Latency" },
	{ "LCP", "Fetch_Latency" }, { "MS_Switches", "Fetch_Latency" },
	{ "MITE", "Fetch_Bandwidth" }, { "DSB", "Fetch_Bandwidth" },
	{ "L1_Bound", "Memory_Bound" }, { "L2_Bound", "Memory_Bound" }, { "L3_Bound", "Memory_Bound" },
	{ "DRAM_Bound", "Memory_Bound" }, { "Store_Bound", "Memory_Bound" },
	{ "Divider", "Core_Bound" }, { "Ports_Utilization", "Core_Bound" },
	{ "Few_Uops_Instructions", "Heavy_Operations" }, { "Microcode_Sequencer", "Heavy_Operations" },
};

static void check_table(const char *dir, const char *id)
{
	struct td_table *t = td_table_load_arch(dir, id, err, sizeof(err));
	if (!tap_ok(t != NULL, "%s: table loads (%s)", id, t ? "ok" : err))
		return;
	int missing = 0, badparent = 0, badlevel = 0;
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++) {
		int n = td_node_index(t, tree[i][0]);
		if (n < 0) {
			printf("# %s: no node %s\n", id, tree[i][0]);
			missing++;
			continue;
		}
		int want_parent = strcmp(tree[i][1], "-") ? td_node_index(t, tree[i][1]) : -1;
		if (t->nodes[n].parent != want_parent)
			badparent++;
		int want_level = i < 4 ? 1 : i < 12 ? 2 : 3;
		if (t->nodes[n].level != want_level)
			badlevel++;
	}
	tap_ok(missing == 0, "%s: every node of TMA levels 1-3 is there", id);
	tap_ok(badparent == 0 && badlevel == 0, "%s: parents and levels are the method's", id);
	int l1_slots = 0, thr = 0, noevents = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		if (t->nodes[i].level <= 2 && t->nodes[i].unit == TD_UNIT_SLOTS)
			l1_slots++;
		if (t->nodes[i].threshold > 0 && t->nodes[i].threshold < 1)
			thr++;
		bool any = false;
		for (size_t e = 0; e < t->n_events; e++)
			any |= t->nodes[i].uses[e];
		noevents += !any;
	}
	tap_ok(l1_slots == 12, "%s: levels 1 and 2 are fractions of slots (%d of 12)", id, l1_slots);
	tap_ok(thr == (int)t->n_nodes, "%s: every node has a threshold in (0,1)", id);
	tap_ok(noevents == 0, "%s: every node depends on counted events", id);
	tap_ok(td_table_find_event(t, "instructions") >= 0 && td_table_find_event(t, "INST_RETIRED.ANY") >= 0,
	       "%s: perf's and Intel's names find INST_RETIRED.ANY", id);
	td_table_free(t);
}

static void expect_error(const char *text, const char *needle)
{
	struct td_table *t = td_table_parse(text, "broken.tma", err, sizeof(err));
	tap_ok(!t && strstr(err, needle) != NULL, "broken table rejected: want '%s', got '%s'", needle,
	       t ? "(accepted)" : err);
	td_table_free(t);
}

int main(void)
{
	const char *dd = getenv("GUS_DATADIR");
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/tma/hand", dd ? dd : "data");
	check_table(dir, "clx");
	check_table(dir, "icx");
	check_table(dir, "spr");

	struct td_table *t = td_table_load_arch(dir, "skx", err, sizeof(err));
	tap_ok(t && !strcmp(t->id, "clx"), "skx is served by the clx table");
	if (t) {
		int e = td_table_find_event(t, "IDQ_UOPS_NOT_DELIVERED.CORE");
		tap_ok(e >= 0 && td_table_find_event(t, "idq_uops_not_delivered.core") == e,
		       "perf's lower-case name matches");
		tap_ok(td_table_find_event(t, "IDQ_UOPS_NOT_DELIVERED:CORE") == e, "libpfm4's name matches");
		tap_ok(td_table_find_event(t, "cpu/event=0x9c,umask=0x1/") == e, "a raw cpu/event=,umask=/ matches");
		tap_ok(td_table_find_event(t, "r019c") == e, "a raw rNNNN matches");
		tap_ok(td_table_find_event(t, "cpu/idq_uops_not_delivered.core/u") == e,
		       "a cpu/NAME/ wrapper and modifiers are ignored");
		tap_ok(td_table_find_event(t, "idq_uops_not_delivered.core:u") == e, "a :u suffix is ignored");
		tap_ok(td_table_find_event(t, "cpu/event=0x9c,umask=0x2/") < 0, "another umask does not match");
		td_table_free(t);
	}
	t = td_table_load_pmu(dir, "spr", err, sizeof(err));
	tap_ok(t && !strcmp(t->id, "spr"), "libpfm4 PMU 'spr' selects the spr table");
	td_table_free(t);
	t = td_table_load_arch(dir, "zen4", err, sizeof(err));
	tap_ok(!t && strstr(err, "zen4"), "an unknown --arch is an error naming it (%s)", err);
	td_table_free(t);
	t = td_table_load("/nonexistent/x.tma", err, sizeof(err));
	tap_ok(!t && strstr(err, "/nonexistent/x.tma"), "a missing file is named (%s)", err);

	expect_error("table t \"x\"\nbogus 1\n", "broken.tma:2: unknown keyword 'bogus'");
	expect_error("table t \"x\"\nnode A parent=Z unit=slots threshold=0.1 = 1\n", "broken.tma:2: node A: parent Z");
	expect_error("table t \"x\"\nnode A parent=- unit=furlongs threshold=0.1 = 1\n", "unknown unit 'furlongs'");
	expect_error("table t \"x\"\nnode A parent=- unit=slots threshold=2 = 1\n", "threshold must be a fraction");
	expect_error("table t \"x\"\nnode A parent=- unit=slots = 1\n", "are required");
	expect_error("table t \"x\"\nevent E code=0x1\nevent E code=0x2\nnode A parent=- unit=slots threshold=0.1 = E\n",
		     "broken.tma:3: event E declared twice");
	expect_error("table t \"x\"\nevent E umask=0x1\n", "missing code=");
	/* AMD's event select is 12 bits: 0x1a0 is one, 0x1000 none */
	expect_error("table t \"x\"\nevent E code=0x1000\n", "bad value '0x1000' for code");
	expect_error("table t \"x\"\ncounters 0\n", "expected 'counters N'");
	expect_error("event E code=1\nnode A parent=- unit=slots threshold=0.1 = E\n", "no 'table' line");
	expect_error("table t \"x\"\n", "no nodes");
	/* '#' and ' = ' inside a quoted description are text */
	t = td_table_parse("table t \"x\"\nevent E code=1 # comment\nnode A parent=- unit=slots threshold=0.1 "
			   "desc=\"a # b = c\" = E / 2 # comment\n", "ok.tma", err, sizeof(err));
	tap_ok(t && t->nodes[0].desc && !strcmp(t->nodes[0].desc, "a # b = c"),
	       "quoted desc keeps '#' and ' = ' (%s)", t ? "parsed" : err);
	td_table_free(t);
	/* a directory without tables (the source tree's data/tma, whose tables
	 * are in hand/): said, never a sort of nothing; in a path list the
	 * next directory serves */
	char empty[] = "/tmp/gus-tma-XXXXXX";
	if (mkdtemp(empty)) {
		t = td_table_load_arch(empty, "clx", err, sizeof err);
		tap_ok(!t && strstr(err, "no TMA table in"), "an empty table directory: no table, said (%s)", err);
		char list[1200];
		snprintf(list, sizeof list, "%s:%s", empty, dir);
		t = td_table_load_arch(list, "clx", err, sizeof err);
		tap_ok(t && !strcmp(t->id, "clx"), "a path list: the next directory's table (%s)", t ? t->id : err);
		td_table_free(t);
		rmdir(empty);
	}
	/* AMD's extended event select: event bits 11:8 in config bits 35:32 */
	t = td_table_parse("table t \"x\"\ncounters 6\nevent E code=0x1a0 umask=0x01 cmask=6\n"
			   "node A parent=- unit=slots threshold=0 = E\n", "amd.tma", err, sizeof(err));
	tap_ok(t && t->counters == 6 && t->events[0].config == 0x1060001a0ull,
	       "code=0x1a0 umask=0x01 cmask=6 is config 0x1060001a0, counters 6 kept (%s)", t ? "parsed" : err);
	td_table_free(t);
	/* a generated table says which nodes it left out, and why */
	t = td_table_parse("table t \"x\"\nevent E code=1\nomit Remote_MEM \"level 5, TSC is not counted\"\n"
			   "node A parent=- unit=slots threshold=0.1 = E / 2\n", "omit.tma", err, sizeof(err));
	tap_ok(t && t->n_omitted == 1 && !strcmp(t->omitted[0], "Remote_MEM: level 5, TSC is not counted"),
	       "omit NAME \"WHY\" is kept (%s)", t ? "parsed" : err);
	td_table_free(t);
	expect_error("table t \"x\"\nevent E code=1\nomit A\nnode A parent=- unit=slots threshold=0.1 = E\n",
		     "expected 'omit NAME");
	expect_error("table t \"x\"\nperfpmu a/b\nevent E code=1\nnode A parent=- unit=slots threshold=0.1 = E\n",
		     "expected one 'perfpmu NAME' line");
	/* a table that declares no event (its events array is NULL): an
	 * error naming the unknown name, not a NULL dereference */
	expect_error("table x \"no events\"\npmu x\nwidth 4\n"
		     "node Frontend_Bound parent=- unit=slots threshold=0.2 = CYCLES / 4\n", "CYCLES");
	return tap_done();
}
