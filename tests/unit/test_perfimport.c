/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus import of perf.data files written here (perfdata_write.c) around a
 * real workload binary (callers):
 *  - counter groups read at the samples (perf record -e '{...}:S'): the
 *    TMA events of Ice Lake-SP's table (its cpuid picks it), read at
 *    samples in two functions with known deltas, give each region the
 *    Top-Down tree computed by hand from them, and the whole program its
 *    own;
 *  - Intel PT (perf record -e intel_pt//u): a walk through hot_chain
 *    encoded with libipt's encoder into AUXTRACE records, with the
 *    sideband perf writes (AUXTRACE_INFO, MMAP2, ITRACE_START,
 *    TIME_CONV), is decoded into the region's windows and simulated from
 *    them; the same without the binary says that the object is missing
 *    and that its trace could not be decoded. */
#include <Zydis/Zydis.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gusdata.h"
#include "merge.h"
#include "perfdata_write.h"
#include "pt_synth.h"
#include "recording.h"
#include "report.h"
#include "tap.h"

#define BASE 0x555555554000ull
#define PID 4242

static char err[1024];
static char tmpdir[256];
static char exepath[PATH_MAX], datadir[PATH_MAX];

/* ---------------------------------------------------------- the binary --- */
struct segment {
	uint64_t vaddr, offset, filesz;
};

/* its executable PT_LOAD */
static bool exec_segment(const char *path, struct segment *s)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t np = 0;
	bool found = false;
	if (e && elf_getphdrnum(e, &np) == 0)
		for (size_t i = 0; i < np && !found; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*s = (struct segment){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
				found = true;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/* the mapping of the segment as the kernel's MMAP2 record has it */
static void map_segment(struct pw *w, int attr, const struct pw_where *at, const struct segment *s)
{
	uint64_t page = s->vaddr & ~0xfffull, off = s->offset & ~0xfffull;
	uint64_t len = (s->filesz + (s->vaddr - page) + 0xfff) & ~0xfffull;
	pw_mmap2(w, attr, at, BASE + page, len, off, PROT_READ | PROT_EXEC, exepath);
}

/* ------------------------------------------------------ import, report --- */
static void log_message(void *ctx, enum recording_msg kind, const char *text)
{
	(void)ctx;
	printf("# %s: %s\n", kind == RECORDING_MSG_WARNING ? "warning" : kind == RECORDING_MSG_ERROR ? "error" : "info",
	       text);
}

static char machines[PATH_MAX + 16], tma[PATH_MAX + 16], spire[PATH_MAX + 16];

static bool import(const char *perf, const char *out)
{
	struct recording_import_request rq = { .input = perf, .output = out, .force = true, .machines_dir = machines,
					       .tma_dir = tma, .debug_dir = tmpdir,
					       .log = { .message = log_message } };
	struct recording_import_summary sum;
	return recording_import(&rq, &sum) == RECORDING_OK;
}

static struct report *build(const char *input)
{
	struct report_request rq = { .input = input, .threads = 1, .tma_dir = tma, .machines_dir = machines,
				     .spire_dir = spire, .percent_limit = 5, .log = { .message = log_message } };
	struct report *r = NULL;
	if (report_build(&rq, &r) != RECORDING_OK) {
		printf("# report_build failed\n");
		return NULL;
	}
	return r;
}

static const struct merge_report_region *region(const struct merge_report *m, const char *kind, const char *name)
{
	for (size_t i = 0; m && i < m->nregions; i++)
		if (!strcmp(m->regions[i].kind, kind) && !strncmp(m->regions[i].name, name, strlen(name)))
			return &m->regions[i];
	return NULL;
}

static double node(const struct td_tree *t, const char *name)
{
	int i = t ? td_node_index(t->table, name) : -1;
	return i >= 0 && t->res[i].status == TD_OK ? t->res[i].value : NAN;
}

/* ------------------------------------------- counter groups at samples --- */
/* per sample of each function: cycles, slots and the four PERF_METRICS
 * fields (in slots, as perf reads them) */
static const uint64_t delta_hot[6] = { 1000, 5000, 2000, 500, 1000, 1500 };	/* 40 % retiring */
static const uint64_t delta_cold[6] = { 1000, 5000, 500, 250, 3000, 1250 };	/* 60 % front end */
#define NHOT 300
#define NCOLD 200

static void test_group_reads(const struct merge_code *hot, const struct merge_code *cold, const struct segment *seg,
			     const char *build_id)
{
	struct pw *w = pw_new();
	/* '{cycles,slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,
	 * topdown-be-bound}:S' as perf 6.x opens it: the leader samples and
	 * reads the group (ids, lost); the others are named by no EVENT_DESC,
	 * only by their encodings on the core PMU (type 4) */
	uint64_t st = (1 << 16) | 1 | 2 | 4 | 128 | 256 | 16;	/* IDENTIFIER IP TID TIME CPU PERIOD READ */
	struct pw_attr a = { .type = 0, .config = 0, .sample_period = 100000, .sample_type = st,
			     .read_format = 4 | 8 | 16, .sample_id_all = true, .id = 101 };
	int ev[6];
	ev[0] = pw_add_attr(w, &a);
	static const uint64_t config[5] = { 0x400, 0x8000, 0x8100, 0x8200, 0x8300 };
	for (int i = 0; i < 5; i++) {
		struct pw_attr m = { .type = 4, .config = config[i], .sample_type = st, .read_format = 4 | 8 | 16,
				     .sample_id_all = true, .id = 102 + (uint64_t)i };
		ev[i + 1] = pw_add_attr(w, &m);
	}
	pw_cpuid(w, "GenuineIntel,6,106,6");
	pw_pmu(w, 4, "cpu");
	pw_build_id(w, exepath, build_id);
	struct pw_where at = { .pid = PID, .tid = PID, .time = 1000 };
	pw_comm(w, ev[0], &at, "callers");
	map_segment(w, ev[0], &at, seg);
	/* the samples alternate, the counters go up by each one's deltas */
	uint64_t v[6] = { 0 };
	for (int i = 0, h = 0, c = 0; i < NHOT + NCOLD; i++) {
		bool in_hot = (i % 5 < 3 && h < NHOT) || c == NCOLD;
		const struct merge_code *f = in_hot ? hot : cold;
		const uint64_t *d = in_hot ? delta_hot : delta_cold;
		for (int k = 0; k < 6; k++)
			v[k] += d[k];
		at.time = 2000 + 1000 * (uint64_t)i;
		at.cpu = (uint32_t)(i % 2);
		uint64_t ip = BASE + f->addr + (uint64_t)(i * 7) % f->len;
		pw_sample(w, ev[0], &at, ip, d[0], v, ev, 6);
		h += in_hot;
		c += !in_hot;
	}
	char perf[600], gus[600];
	snprintf(perf, sizeof perf, "%s/groups.perf", tmpdir);
	snprintf(gus, sizeof gus, "%s/groups.data", tmpdir);
	bool ok = pw_write(w, perf) == 0;
	pw_free(w);
	if (!tap_ok(ok && import(perf, gus), "a perf.data of TMA groups read at %d samples imported", NHOT + NCOLD))
		return;
	struct report *r = build(gus);
	const struct merge_report *m = r ? report_model(r) : NULL;
	const struct merge_report_region *rh = region(m, "function", "hot_chain");
	const struct merge_report_region *rc = region(m, "function", cold->name);
	tap_ok(rh && rc, "hot_chain and %s are hot regions", cold->name);
	/* by hand: the region's deltas over its slots */
	const struct td_tree *th = rh ? rh->measured : NULL, *tc = rc ? rc->measured : NULL;
	tap_ok(th && rh->measured_samples == NHOT, "hot_chain has its own tree, from %llu samples' reads",
	       rh ? (unsigned long long)rh->measured_samples : 0ull);
	tap_near(node(th, "Retiring"), 0.40, 1e-9, "hot_chain: Retiring 2000/5000 slots = 40 %% (%.4f)", node(th, "Retiring"));
	tap_near(node(th, "Frontend_Bound"), 0.20, 1e-9, "hot_chain: Frontend_Bound 1000/5000 = 20 %%");
	tap_near(node(th, "Backend_Bound"), 0.30, 1e-9, "hot_chain: Backend_Bound 1500/5000 = 30 %%");
	tap_near(node(th, "Bad_Speculation"), 0.10, 1e-9, "hot_chain: Bad_Speculation the rest, 10 %%");
	tap_ok(tc && rc->measured_samples == NCOLD, "%s has its own tree, from %llu samples' reads", cold->name,
	       rc ? (unsigned long long)rc->measured_samples : 0ull);
	tap_near(node(tc, "Frontend_Bound"), 0.60, 1e-9, "%s: Frontend_Bound 3000/5000 = 60 %% (%.4f)", cold->name,
		 node(tc, "Frontend_Bound"));
	tap_near(node(tc, "Retiring"), 0.10, 1e-9, "%s: Retiring 500/5000 = 10 %%", cold->name);
	tap_near(node(tc, "Backend_Bound"), 0.25, 1e-9, "%s: Backend_Bound 1250/5000 = 25 %%", cold->name);
	/* the whole program: every counter's last reading */
	const struct td_tree *t = m ? m->tree : NULL;
	double slots = NHOT * 5000.0 + NCOLD * 5000.0;
	tap_near(node(t, "Retiring"), (NHOT * 2000.0 + NCOLD * 500.0) / slots, 1e-9, "the whole program: Retiring %.4f",
		 node(t, "Retiring"));
	tap_near(node(t, "Frontend_Bound"), (NHOT * 1000.0 + NCOLD * 3000.0) / slots, 1e-9,
		 "the whole program: Frontend_Bound %.4f", node(t, "Frontend_Bound"));
	tap_ok(t && t->table && !strcmp(t->table->id, "icx"), "the table is the perf.data's CPU's: %s",
	       t && t->table ? t->table->id : "none");
	/* the events named as the table names them: CPU_CLK_UNHALTED.THREAD
	 * from the generic cycles, TOPDOWN.SLOTS from its raw config */
	int ci = t ? td_table_find_event(t->table, "CPU_CLK_UNHALTED.THREAD") : -1;
	int si = t ? td_table_find_event(t->table, "TOPDOWN.SLOTS") : -1;
	tap_ok(ci >= 0 && si >= 0 && t->ev_value[ci] == (NHOT + NCOLD) * 1000.0 && t->ev_value[si] == slots,
	       "cycles and slots counted as CPU_CLK_UNHALTED.THREAD and TOPDOWN.SLOTS");
	report_free(r);
}

int main(void)
{
	const char *wl = getenv("WORKLOADS");
	char exe[PATH_MAX + 16];
	snprintf(exe, sizeof exe, "%s/callers", wl && *wl ? wl : GUS_ABS_BUILDDIR "/tests/workloads");
	const char *dd = getenv("GUS_DATADIR");
	snprintf(datadir, sizeof datadir, "%s", dd && *dd ? dd : GUS_ABS_SRCDIR "/data");
	snprintf(machines, sizeof machines, "%s/machines", datadir);
	snprintf(tma, sizeof tma, "%s/tma/hand", datadir);
	snprintf(spire, sizeof spire, "%s/spire", datadir);
	if (!tap_ok(realpath(exe, exepath) != NULL, "%s is built", exe))
		return tap_done();
	snprintf(tmpdir, sizeof tmpdir, "%s/test_perfimport.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	struct merge_code hot, cold;
	struct segment seg = { 0 };
	char build_id[129] = "";
	bool got = merge_elf_function(exepath, "hot_chain", &hot, err, sizeof err) == 0 &&
		   merge_elf_function(exepath, "from_major", &cold, err, sizeof err) == 0 && exec_segment(exepath, &seg) &&
		   merge_elf_build_id(exepath, build_id, sizeof build_id, err, sizeof err) == 0;
	if (tap_ok(got, "hot_chain, from_major, the code segment and the build-id of callers%s%s", got ? "" : ": ",
		   got ? "" : err)) {
		test_group_reads(&hot, &cold, &seg, build_id);
		merge_code_free(&hot);
		merge_code_free(&cold);
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
