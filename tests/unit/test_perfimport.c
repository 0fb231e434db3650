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
/* the messages since the last report_build, one a line */
static char said[16384];

static void log_message(void *ctx, enum recording_msg kind, const char *text)
{
	(void)ctx;
	size_t n = strlen(said);
	snprintf(said + n, sizeof said - n, "%s\n", text);
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
	said[0] = 0;
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
	const char *seeds = getenv("GUS_FUZZ_SEEDS");
	char seed[PATH_MAX + 64];
	snprintf(seed, sizeof seed, "%s/perf.data.synth-tma-groups", seeds ? seeds : "");
	if (seeds && *seeds)
		pw_write(w, seed);
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

/* --------------------------------------------------------------- the walk --- */
/* One call of hot_chain from its entry to its return, through its code:
 * conditional branches go either way at random, backward ones (its loop)
 * taken until BACK_BUDGET of them have been (as test_pt_objects walks
 * lib_collatz). Runtime addresses: link-time + BASE. */
#define BACK_BUDGET 30000

struct vec {
	struct stream_insn *v;
	size_t n, cap;
};

static bool push(struct vec *a, const struct stream_insn *r)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 4096;
		struct stream_insn *p = realloc(a->v, cap * sizeof *p);
		if (!p)
			return false;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = *r;
	return true;
}

/* the code at IP: hot_chain's, or that of the function it calls */
static const struct merge_code *code_at(const struct merge_code *const *mc, size_t n, uint64_t ip)
{
	for (size_t i = 0; i < n; i++)
		if (ip >= mc[i]->addr && ip < mc[i]->addr + mc[i]->len)
			return mc[i];
	return NULL;
}

/* forward branches fall through, backward ones are taken BACK_BUDGET
 * times; direct calls into CODE are followed to their return */
static bool walk(const struct merge_code *const *mc, size_t nmc, struct vec *out)
{
	ZydisDecoder zd;
	if (ZYAN_FAILED(ZydisDecoderInit(&zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return false;
	uint64_t ip = mc[0]->addr, ret[16];
	size_t depth = 0;
	unsigned back = 0;
	for (size_t steps = 0; steps < 10000000; steps++) {
		const struct merge_code *c = code_at(mc, nmc, ip);
		if (!c)
			return false;
		ZydisDecodedInstruction in;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		const uint8_t *b = c->bytes + (ip - c->addr);
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&zd, b, c->len - (ip - c->addr), &in, op)))
			return false;
		ZyanU64 target = 0;
		bool direct = in.operand_count_visible > 0 && op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			      op[0].imm.is_relative && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], ip, &target));
		struct stream_insn r;
		memset(&r, 0, sizeof r);
		r.ip = ip + BASE;
		r.size = in.length;
		memcpy(r.bytes, b, in.length);
		uint64_t fall = ip + in.length;
		switch (in.meta.category) {
		case ZYDIS_CATEGORY_COND_BR: {
			if (!direct)
				return false;
			bool take = target <= ip && back < BACK_BUDGET;
			back += take;
			r.flags = take ? STREAM_TAKEN : 0;
			ip = take ? target : fall;
			break;
		}
		case ZYDIS_CATEGORY_UNCOND_BR:
			if (!direct)
				return false;
			r.flags = STREAM_TAKEN;
			ip = target;
			break;
		case ZYDIS_CATEGORY_CALL:
			if (!direct || depth == 16)
				return false;
			r.flags = STREAM_TAKEN;
			ret[depth++] = fall;
			ip = target;
			break;
		case ZYDIS_CATEGORY_RET:
			r.flags = STREAM_TAKEN;
			if (!depth)
				return push(out, &r) && back == BACK_BUDGET;
			ip = ret[--depth];
			break;
		case ZYDIS_CATEGORY_SYSCALL:
		case ZYDIS_CATEGORY_INTERRUPT:
			return false;
		default:
			ip = fall;
			break;
		}
		if (!push(out, &r))
			return false;
	}
	return false;
}

/* windows of a thread's run of N records, as the report cuts them: window
 * J of level L = J / K starts at K*W*(2^L - 1) + (J mod K)*W*2^L */
static size_t windows_of(uint64_t n, uint64_t window, uint64_t per_level)
{
	size_t count = 0;
	for (uint32_t j = 0;; j++) {
		uint64_t level = j / per_level, i = j % per_level;
		uint64_t start = per_level * window * ((1ull << level) - 1) + i * (window << level);
		if (start >= n)
			return count;
		count++;
	}
}

static const char *missing_of(const struct merge_report *m, const char *key)
{
	for (size_t i = 0; m && i < m->nmissing; i++)
		if (!strcmp(m->missing[i].key, key))
			return m->missing[i].value;
	return "";
}

/* ----------------------------------------------------------- Intel PT --- */
/* the perf clock: perf time = ZERO + TSC * MULT >> SHIFT */
#define TIME_ZERO 5000ull
#define TIME_MULT 2048ull
#define TIME_SHIFT 10ull
#define PT_TYPE 8u
#define NPT_SAMPLES 100

enum pt_variant { PT_WHOLE, PT_PIPE, PT_DAMAGED, PT_NO_BINARY };

/* perf record -e intel_pt//u -e cpu-clock of callers, as perf writes it:
 * the trace of one CPU in two AUXTRACE records; PIPE: the same in pipe
 * mode (perf record -o -); DAMAGED: an overflow in
 * the trace and an AUX record truncated; NO_BINARY: the object named by
 * a path and build-id that are not here */
static bool write_pt(const char *perf, const struct segment *seg, const char *build_id, const struct merge_code *hot,
		     const uint8_t *trace, size_t len, enum pt_variant variant)
{
	struct pw *w = pw_new();
	uint64_t st = (1 << 16) | 1 | 2 | 4 | 128;	/* IDENTIFIER IP TID TIME CPU */
	struct pw_attr ptattr = { .type = PT_TYPE, .config = 0x300e601, .sample_period = 1, .sample_type = st,
				  .sample_id_all = true, .id = 201 };
	struct pw_attr clock = { .type = 1, .config = 0, .sample_period = 250000, .sample_type = st | 256,
				 .sample_id_all = true, .id = 202 };
	int pa = pw_add_attr(w, &ptattr), ca = pw_add_attr(w, &clock);
	pw_cpuid(w, "GenuineIntel,6,85,7");
	pw_pmu(w, PT_TYPE, "intel_pt");
	pw_pmu(w, 4, "cpu");
	char fake[PATH_MAX + 16];
	snprintf(fake, sizeof fake, "%s/gone/callers", tmpdir);
	const char *file = variant == PT_NO_BINARY ? fake : exepath;
	pw_build_id(w, file, variant == PT_NO_BINARY ? "00112233445566778899aabbccddeeff00112233" : build_id);
	pw_time_conv(w, TIME_SHIFT, TIME_MULT, TIME_ZERO);
	uint64_t priv[17] = { [0] = PT_TYPE, [1] = TIME_SHIFT, [2] = TIME_MULT, [3] = TIME_ZERO, [4] = 1,
			      [9] = 1 /* per-CPU buffers */ };
	pw_auxtrace_info(w, 1, priv, 17);
	struct pw_where at = { .pid = PID, .tid = PID, .cpu = 0, .time = TIME_ZERO + 100 };
	pw_comm(w, pa, &at, "callers");
	uint64_t page = seg->vaddr & ~0xfffull;
	pw_mmap2(w, pa, &at, BASE + page, (seg->filesz + (seg->vaddr - page) + 0xfff) & ~0xfffull,
		 seg->offset & ~0xfffull, PROT_READ | PROT_EXEC, file);
	at.time += 100;
	pw_itrace_start(w, pa, &at);
	for (int i = 0; i < NPT_SAMPLES; i++) {
		at.time += 1000;
		pw_sample(w, ca, &at, BASE + hot->addr + (uint64_t)(i * 5) % hot->len, 250000, NULL, NULL, 0);
	}
	size_t half = len / 2;
	pw_aux(w, pa, &at, 0, half, 0);
	pw_auxtrace(w, trace, half, 0, 0, UINT32_MAX, 0);
	if (variant == PT_DAMAGED)
		pw_aux(w, pa, &at, half, len - half, 1 /* truncated */);
	else
		pw_aux(w, pa, &at, half, len - half, 0);
	pw_auxtrace(w, trace + half, len - half, half, 0, UINT32_MAX, 0);
	pw_finished_round(w);
	bool ok = (variant == PT_PIPE ? pw_write_pipe(w, perf) : pw_write(w, perf)) == 0;
	/* kept as seeds of the fuzz target (GUS_FUZZ_SEEDS: a directory) */
	const char *seeds = getenv("GUS_FUZZ_SEEDS");
	char seed[PATH_MAX + 64];
	snprintf(seed, sizeof seed, "%s/perf.data.synth-intel_pt%s", seeds ? seeds : "",
		 variant == PT_PIPE ? "-pipe" : variant == PT_DAMAGED ? "-damaged" : variant == PT_NO_BINARY ? "-gone" : "");
	if (seeds && *seeds)
		variant == PT_PIPE ? pw_write_pipe(w, seed) : pw_write(w, seed);
	pw_free(w);
	return ok;
}

static void test_pt(const struct merge_code *hot, const struct segment *seg, const char *build_id)
{
	struct vec wk = { 0 };
	struct merge_code callee;
	bool have_callee = merge_elf_function(exepath, "count_call", &callee, err, sizeof err) == 0;
	const struct merge_code *code[2] = { hot, &callee };
	bool walked = walk(code, have_callee ? 2 : 1, &wk);
	if (have_callee)
		merge_code_free(&callee);
	if (!tap_ok(walked, "a walk through hot_chain: %zu instructions, %u turns of its loop", wk.n, BACK_BUDGET)) {
		free(wk.v);
		return;
	}
	size_t in_hot = 0;
	for (size_t i = 0; i < wk.n; i++)
		in_hot += wk.v[i].ip >= BASE + hot->addr && wk.v[i].ip < BASE + hot->addr + hot->len;
	struct pt_synth *sy = pt_synth_new(512);
	uint8_t *trace = NULL;
	size_t len = 0;
	bool encoded = sy && pt_synth_add(sy, wk.v, 1) == 0 && pt_synth_tsc(sy, 1000) == 0 &&
		       pt_synth_add(sy, wk.v + 1, wk.n - 1) == 0 && pt_synth_finish(sy, &trace, &len) == 0;
	size_t npsb = 0;
	const struct pt_synth_psb *psb = sy ? pt_synth_psbs(sy, &npsb) : NULL;
	uint64_t psb2 = npsb > 3 ? psb[2].offset : 0, psb3 = npsb > 3 ? psb[3].offset : 0;
	pt_synth_free(sy);
	if (!tap_ok(encoded && npsb > 3, "the walk encoded as Intel PT: %zu bytes, %zu PSBs", len, npsb)) {
		free(wk.v);
		free(trace);
		return;
	}
	char perf[600], gus[600];
	snprintf(perf, sizeof perf, "%s/pt.perf", tmpdir);
	snprintf(gus, sizeof gus, "%s/pt.data", tmpdir);

	/* the whole trace: hot_chain's windows decoded from it */
	bool ok = write_pt(perf, seg, build_id, hot, trace, len, PT_WHOLE) && import(perf, gus);
	struct report *r = ok ? build(gus) : NULL;
	const struct merge_report *m = r ? report_model(r) : NULL;
	const struct merge_report_region *f = region(m, "function", "hot_chain");
	const char *stream = f && f->stream ? f->stream : "";
	tap_ok(f && f->simulated && strstr(stream, "Intel PT") && strstr(stream, "from windows spread over the whole run"),
	       "hot_chain simulated from the perf.data's Intel PT: '%.200s'", f && f->stream ? stream : f ? f->why_no_model : "no region");
	size_t want = windows_of(in_hot, 5000, 32);
	tap_ok(f && f->windows_total == want && f->windows > 0,
	       "its windows: %zu of the %zu the walk's %zu instructions in it make (want %zu)", f ? f->windows : 0,
	       f ? f->windows_total : 0, in_hot, want);
	tap_ok(f && !strstr(said, "gap(s) in the Intel PT trace"), "no gaps in the whole trace");
	const struct merge_report_region *lp = region(m, "loop", "hot_chain");
	tap_ok(lp && lp->simulated && lp->stream && strstr(lp->stream, "Intel PT"), "its loop too: '%.160s'",
	       lp && lp->stream ? lp->stream : lp ? lp->why_no_model : "no loop region");
	tap_ok(!missing_of(m, "trace")[0], "nothing of the trace said missing ('%s')", missing_of(m, "trace"));
	report_free(r);

	/* the same in pipe mode: the same windows */
	ok = write_pt(perf, seg, build_id, hot, trace, len, PT_PIPE) && import(perf, gus);
	r = ok ? build(gus) : NULL;
	m = r ? report_model(r) : NULL;
	f = region(m, "function", "hot_chain");
	tap_ok(f && f->simulated && f->windows_total == want && !strstr(said, "gap(s) in the Intel PT trace"),
	       "pipe mode: the same %zu windows, no gaps", f ? f->windows_total : 0);
	report_free(r);

	/* an overflow in the trace and a truncated AUX record: counted and
	 * said; the rest still decodes */
	uint8_t *damaged = malloc(len);
	if (damaged) {
		memcpy(damaged, trace, len);
		pt_synth_overflow(damaged, len, psb2, psb3, BASE + hot->addr);
	}
	ok = damaged && write_pt(perf, seg, build_id, hot, damaged, len, PT_DAMAGED) && import(perf, gus);
	free(damaged);
	r = ok ? build(gus) : NULL;
	m = r ? report_model(r) : NULL;
	f = region(m, "function", "hot_chain");
	const char *why = missing_of(m, "trace");
	tap_ok(strstr(why, "overflowed 1 times (OVF packets)") && strstr(why, "truncated 1 times"),
	       "the overflow and the truncated AUX data said: '%.300s'", why);
	stream = f && f->stream ? f->stream : "";
	tap_ok(f && f->simulated && strstr(stream, "Intel PT") && strstr(said, "hot_chain: 2 gap(s) in the Intel PT trace"),
	       "hot_chain still simulated from the rest, its gaps (the overflow, the truncation) said");
	report_free(r);

	/* the object not here: said, and no stream made up for it */
	ok = write_pt(perf, seg, build_id, hot, trace, len, PT_NO_BINARY) && import(perf, gus);
	r = ok ? build(gus) : NULL;
	m = r ? report_model(r) : NULL;
	why = missing_of(m, "trace");
	tap_ok(strstr(why, "gone/callers build-id 00112233445566778899aabbccddeeff00112233") &&
		       strstr(why, "its trace could not be decoded at all"),
	       "without the binary: its trace said undecodable, '%.300s'", why);
	const struct merge_report_region *g = m && m->nregions ? &m->regions[0] : NULL;
	tap_ok(g && !g->simulated && g->why_no_model && strstr(g->why_no_model, "is not here") &&
		       strstr(g->why_no_model, "Intel PT cannot be decoded"),
	       "its region not simulated, why said: '%.200s'", g && g->why_no_model ? g->why_no_model : "");
	report_free(r);
	free(trace);
	free(wk.v);
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
		test_pt(&hot, &seg, build_id);
		merge_code_free(&hot);
		merge_code_free(&cold);
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
