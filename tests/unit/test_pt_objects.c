/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT of a hot region in a shared library: the address filter that
 * gus record gives for a range of libhot.so names the library and its file
 * offset; a recording whose PT (synthesized with libipt's encoder from a
 * walk through lib_collatz, read from the built libhot.so and relocated to
 * where the sideband maps it) is reported by report_build as gus report
 * does: the region placed by the library's mmaps, decoded, simulated, its
 * head's source line from libhot.c. */
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

#include "collect.h"
#include "gusdata.h"
#include "merge.h"
#include "pt_synth.h"
#include "report.h"
#include "tap.h"

/* where the traced run had libhot.so: any page-aligned address */
#define LIB_BASE 0x7f3a12340000ull
#define EXE_BASE 0x555555554000ull
/* and the sampling run, a run of its own */
#define SAMPLE_LIB_BASE 0x7f0000200000ull
#define BACK_BUDGET 400	/* taken backward branches of the walk */

static char err[1024];
static char tmpdir[256];
static char libpath[PATH_MAX], exepath[PATH_MAX], srcpath[PATH_MAX], datadir[PATH_MAX];

/* ---------------------------------------------------------- the ELF file --- */
/* the PT_LOAD segments of PATH as the kernel's mmap records of a load at
 * BASE (the first segment's page at BASE); EXEC_ONLY: the executable ones */
static size_t elf_maps(const char *path, uint64_t base, bool exec_only, const char *build_id,
		       struct gusdata_mmap *m, size_t max)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0, np = 0;
	if (e && elf_getphdrnum(e, &np) == 0)
		for (size_t i = 0; i < np && n < max; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || (exec_only && !(ph.p_flags & PF_X)))
				continue;
			uint64_t page = ph.p_vaddr & ~0xfffull;
			uint64_t len = (ph.p_memsz + (ph.p_vaddr - page) + 0xfff) & ~0xfffull;
			uint32_t prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) | ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
					((ph.p_flags & PF_X) ? PROT_EXEC : 0);
			m[n++] = (struct gusdata_mmap){ .time = 1000 + n, .pid = 1, .tid = 1, .start = base + page,
							.len = len, .pgoff = ph.p_offset & ~0xfffull, .prot = prot,
							.flags = MAP_PRIVATE, .filename = path, .build_id = build_id };
		}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/* the file offset of link-time ADDR: its executable PT_LOAD's */
static bool elf_file_offset(const char *path, uint64_t addr, uint64_t *off)
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
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
				*off = addr - ph.p_vaddr + ph.p_offset;
				found = true;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/* --------------------------------------------------------------- the walk --- */
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

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct insn_info {
	ZydisDecodedInstruction in;
	uint64_t target;	/* a direct branch's */
	bool direct;
};

static bool decode_at(const ZydisDecoder *zd, const struct merge_code *mc, uint64_t ip, struct insn_info *d)
{
	if (ip < mc->addr || ip >= mc->addr + mc->len)
		return false;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(zd, mc->bytes + (ip - mc->addr), mc->len - (ip - mc->addr), &d->in, op)))
		return false;
	ZyanU64 t = 0;
	d->direct = d->in.operand_count_visible > 0 && op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    op[0].imm.is_relative && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&d->in, &op[0], ip, &t));
	d->target = t;
	return true;
}

/* One call of the function MC from its entry to its return: conditional
 * branches go either way at random, backward ones (its loops) are taken
 * 3 times in 4 (the back edge of the largest loop [LS, LE) always) until
 * BACK_BUDGET of them have been, then fall through.
 * Runtime addresses: link-time + BIAS. false when the walk leaves the
 * function, meets a call or an indirect jump, or runs too long. */
static bool walk(const ZydisDecoder *zd, const struct merge_code *mc, uint64_t ls, uint64_t le, uint64_t bias,
		 struct vec *out, unsigned *back)
{
	uint64_t ip = mc->addr;
	*back = 0;
	out->n = 0;
	for (size_t steps = 0; steps < 1000000; steps++) {
		struct insn_info d;
		if (!decode_at(zd, mc, ip, &d))
			return false;
		struct stream_insn r;
		memset(&r, 0, sizeof r);
		r.ip = ip + bias;
		r.size = d.in.length;
		memcpy(r.bytes, mc->bytes + (ip - mc->addr), d.in.length);
		uint64_t fall = ip + d.in.length;
		switch (d.in.meta.category) {
		case ZYDIS_CATEGORY_COND_BR: {
			if (!d.direct)
				return false;
			bool backward = d.target <= ip;
			bool outer = d.target == ls && fall == le;
			bool take = backward ? *back < BACK_BUDGET && (outer || rnd() % 4 != 0) : rnd() % 2 == 0;
			*back += backward && take;
			r.flags = take ? STREAM_TAKEN : 0;
			ip = take ? d.target : fall;
			break;
		}
		case ZYDIS_CATEGORY_UNCOND_BR:
			if (!d.direct)
				return false;
			r.flags = STREAM_TAKEN;
			ip = d.target;
			break;
		case ZYDIS_CATEGORY_RET:
			r.flags = STREAM_TAKEN;
			return push(out, &r);
		case ZYDIS_CATEGORY_CALL:
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

/* the largest loop of MC: [target, end of the branch) of its backward
 * direct branches, by a linear sweep */
static bool largest_loop(const ZydisDecoder *zd, const struct merge_code *mc, uint64_t *start, uint64_t *end)
{
	*start = *end = 0;
	for (uint64_t ip = mc->addr; ip < mc->addr + mc->len;) {
		struct insn_info d;
		if (!decode_at(zd, mc, ip, &d))
			break;
		uint64_t fall = ip + d.in.length;
		if ((d.in.meta.category == ZYDIS_CATEGORY_COND_BR || d.in.meta.category == ZYDIS_CATEGORY_UNCOND_BR) &&
		    d.direct && d.target <= ip && d.target >= mc->addr && fall - d.target > *end - *start) {
			*start = d.target;
			*end = fall;
		}
		ip = fall;
	}
	return *end > *start;
}

/* ------------------------------------------------------------ the source --- */
/* the lines of FUNC's definition in the C file PATH: from the line naming
 * it at column 0 or after a return type, to the first '}' at column 0 */
static bool function_lines(const char *path, const char *func, int *first, int *last)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	int n = 0;
	*first = *last = 0;
	while (fgets(line, sizeof line, f)) {
		n++;
		if (!*first && line[0] != ' ' && line[0] != '\t' && line[0] != '/' && line[0] != '*' &&
		    strstr(line, func) && strchr(line, '(') && !strchr(line, ';'))
			*first = n;
		else if (*first && line[0] == '}') {
			*last = n;
			break;
		}
	}
	fclose(f);
	return *first && *last;
}

/* ------------------------------------------------------------ the report --- */
static void log_message(void *ctx, enum recording_msg kind, const char *text)
{
	(void)ctx;
	printf("# report %s: %s\n", kind == RECORDING_MSG_WARNING ? "warning" : "error", text);
}

static struct report *build(const char *input)
{
	char machines[PATH_MAX + 16], tma[PATH_MAX + 16], spire[PATH_MAX + 16];
	snprintf(machines, sizeof machines, "%s/machines", datadir);
	snprintf(tma, sizeof tma, "%s/tma/hand", datadir);
	snprintf(spire, sizeof spire, "%s/spire", datadir);
	struct report_request rq = { .input = input, .host_machine = "skx", .threads = 1, .tma_dir = tma,
				     .machines_dir = machines, .spire_dir = spire,
				     .log = { .message = log_message } };
	struct report *r = NULL;
	enum recording_status s = report_build(&rq, &r);
	if (s != RECORDING_OK) {
		printf("# report_build: %d\n", s);
		return NULL;
	}
	return r;
}

static const struct merge_report_region *find_region(const struct merge_report *m, const char *kind)
{
	for (size_t i = 0; m && i < m->nregions; i++)
		if (!strcmp(m->regions[i].kind, kind))
			return &m->regions[i];
	return NULL;
}

static const char *why(const struct merge_report_region *v)
{
	return v && v->why_no_model ? v->why_no_model : "";
}

struct expect {
	size_t insns;		/* the walk's instructions in the region */
	int first_line, last_line;	/* lib_collatz in libhot.c */
	const char *line;	/* "libhot.c:N" of the head, by merge_srcline */
};

/* REGION of the report: placed by libhot.so's mapping, simulated from
 * Intel PT with exactly the walk's instructions, cycles per iteration
 * (loop) or per instruction (function) finite and positive, its head's
 * line in lib_collatz of libhot.c */
static void check_region(const struct merge_report_region *v, const char *what, const struct expect *x,
			 bool cached)
{
	if (!tap_ok(v != NULL, "%s: the region is in the report", what))
		return;
	tap_ok(!strstr(why(v), "never mapped") && v->bias == LIB_BASE,
	       "%s: placed by libhot.so's sideband mmap (bias 0x%llx, want 0x%llx)%s%s", what,
	       (unsigned long long)v->bias, LIB_BASE, why(v)[0] ? ": " : "", why(v));
	tap_ok(v->simulated && v->an && v->code, "%s: simulated%s%s", what, why(v)[0] ? ": " : "", why(v));
	tap_ok(v->from_cache == cached, "%s: %s", what, cached ? "from the recording's cache" : "simulated anew");
	char want[128];
	snprintf(want, sizeof want, "Intel PT, %zu instructions in the region from windows spread over the whole run,",
		 x->insns);
	tap_ok(v->stream && !strncmp(v->stream, want, strlen(want)), "%s: stream '%s' (want '%s ...')", what,
	       v->stream ? v->stream : "(none)", want);
	if (!v->simulated || !v->an)
		return;
	bool loop = !strcmp(v->kind, "loop");
	tap_ok(isfinite(v->an->cycles_per_unit) && v->an->cycles_per_unit > 0 && (loop ? v->an->units > 0 : true),
	       "%s: %.3f cycles per %s over %.0f %s", what, v->an->cycles_per_unit, loop ? "iteration" : "unit",
	       v->an->units, loop ? "iterations" : "units");
	int line = 0;
	bool in_lib = v->source && !strncmp(v->source, "libhot.c:", 9) && sscanf(v->source + 9, "%d", &line) == 1;
	tap_ok(in_lib && line >= x->first_line && line <= x->last_line && x->line && !strcmp(v->source, x->line),
	       "%s: head's line %s (lib_collatz is libhot.c:%d-%d; merge_srcline says %s)", what,
	       v->source ? v->source : "(none)", x->first_line, x->last_line, x->line ? x->line : "nothing");
}

/* ------------------------------------------------------------ the tests --- */
static void test_filter_string(const struct merge_code *mc)
{
	uint64_t off = 0;
	if (!tap_ok(elf_file_offset(libpath, mc->addr, &off), "lib_collatz (0x%llx) is in an executable PT_LOAD",
		    (unsigned long long)mc->addr))
		return;
	char file[PATH_MAX];
	snprintf(file, sizeof file, "%s", libpath);
	struct collect_pt_filter f[2] = {
		{ .start = mc->addr, .size = mc->len, .file = file },
		{ .start = mc->addr, .size = mc->len, .file = file, .stop = true },
	};
	char out[3 * PATH_MAX], want[3 * PATH_MAX];
	snprintf(want, sizeof want, "filter 0x%llx/0x%llx@%s", (unsigned long long)off, (unsigned long long)mc->len,
		 libpath);
	err[0] = 0;
	int rc = collect_pt_filter_string(f, 1, exepath, out, sizeof out, err, sizeof err);
	if (rc)
		printf("# %s\n", err);
	tap_streq(rc ? NULL : out, want, "filter string of lib_collatz@libhot.so names the library and its file offset");
	snprintf(want + strlen(want), sizeof want - strlen(want), ",stop 0x%llx/0x%llx@%s", (unsigned long long)off,
		 (unsigned long long)mc->len, libpath);
	rc = collect_pt_filter_string(f, 2, exepath, out, sizeof out, err, sizeof err);
	tap_streq(rc ? NULL : out, want, "a filter and a stop filter in the library, joined");
	/* past the end of the code segment: refused, not a filter on other code */
	f[0].size = 1 << 20;
	tap_ok(collect_pt_filter_string(f, 1, exepath, out, sizeof out, err, sizeof err) == -1 && strstr(err, "libhot.so"),
	       "a range past libhot.so's code is refused (%s)", err);
}

static struct gusdata *new_recording(const char *path, const struct gusdata_mmap *maps, size_t nmaps,
				     const uint8_t *pt, size_t len, uint64_t sample_ip)
{
	struct gusdata *d = NULL;
	if (gusdata_create(path, 0, &d, err, sizeof err)) {
		printf("# gusdata_create: %s\n", err);
		return NULL;
	}
	gusdata_set_meta(d, "tracer", "pt");
	gusdata_set_meta(d, "exe", exepath);
	gusdata_set_meta(d, "command", exepath);
	gusdata_set_meta(d, "sim.machine", "skx");
	gusdata_set_meta(d, "cpu.family", "6");
	gusdata_set_meta(d, "cpu.model", "85");
	gusdata_set_meta(d, "cpu.stepping", "7");
	gusdata_set_meta(d, "sample.event", "cpu-clock");
	gusdata_set_meta(d, "record.stage", "done");
	/* the sampling run had the library elsewhere: 1000 samples in
	 * lib_collatz there */
	struct gusdata_mmap sm[8];
	size_t ns = elf_maps(libpath, SAMPLE_LIB_BASE, false, NULL, sm, 8);
	for (size_t i = 0; i < ns; i++)
		gusdata_add_sample_mmap(d, &sm[i]);
	for (int i = 0; i < 1000; i++) {
		struct gusdata_sample smp = { .time = 2000 + (uint64_t)i, .pid = 1, .tid = 1, .user = true,
					      .ip = SAMPLE_LIB_BASE + sample_ip + (uint64_t)i % 4, .period = 1000000 };
		gusdata_add_sample(d, &smp);
	}
	for (size_t i = 0; i < nmaps; i++)
		gusdata_add_mmap(d, &maps[i]);
	/* three contiguous AUX chunks of one per-CPU buffer */
	for (int i = 0; i < 3; i++) {
		size_t from = len * (size_t)i / 3, to = len * (size_t)(i + 1) / 3;
		struct gusdata_chunk ch = { .cpu = 0, .tid = -1, .aux_offset = 0x4000 + from, .data = pt + from,
					    .size = to - from };
		gusdata_add_chunk(d, &ch);
	}
	return d;
}

static bool add_regions(struct gusdata *d, const struct merge_code *mc, const char *build_id, uint64_t ls,
			uint64_t le)
{
	char name[128];
	snprintf(name, sizeof name, "lib_collatz loop 0x%llx-0x%llx", (unsigned long long)ls, (unsigned long long)le);
	struct gusdata_region fn = { .rank = 1, .kind = "function", .name = "lib_collatz", .file = libpath,
				     .start = mc->addr, .end = mc->addr + mc->len, .head = mc->addr, .samples = 950,
				     .share = 0.95, .build_id = build_id };
	if (gusdata_add_region(d, &fn))
		return false;
	struct gusdata_region lp = { .rank = 2, .kind = "loop", .name = name, .file = libpath, .start = ls, .end = le,
				     .head = ls, .parent = fn.id, .samples = 900, .share = 0.9, .build_id = build_id };
	return gusdata_add_region(d, &lp) == 0;
}

static void test_report(const struct merge_code *mc)
{
	char build_id[129] = "";
	if (merge_elf_build_id(libpath, build_id, sizeof build_id, err, sizeof err))
		printf("# no build-id: %s\n", err);
	ZydisDecoder zd;
	if (!tap_ok(ZYAN_SUCCESS(ZydisDecoderInit(&zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)),
		    "Zydis decoder"))
		return;
	uint64_t ls, le;
	bool have_loop = largest_loop(&zd, mc, &ls, &le);
	if (!tap_ok(have_loop, "lib_collatz has a loop (0x%llx-0x%llx)", (unsigned long long)ls,
		    (unsigned long long)le))
		return;
	/* a walk that goes through the loops (the first branches may skip
	 * them: another seed then) */
	struct vec w = { 0 };
	unsigned back = 0;
	bool walked = false;
	for (uint64_t seed = 1; seed < 200 && !walked; seed++) {
		rng = 0x9e3779b97f4a7c15ull * seed;
		walked = walk(&zd, mc, ls, le, LIB_BASE, &w, &back) && back == BACK_BUDGET;
	}
	if (!tap_ok(walked, "a walk through lib_collatz: %zu instructions, %u taken backward branches", w.n, back)) {
		free(w.v);
		return;
	}
	size_t in_loop = 0, head_runs = 0;
	for (size_t i = 0; i < w.n; i++) {
		in_loop += w.v[i].ip >= ls + LIB_BASE && w.v[i].ip < le + LIB_BASE;
		head_runs += w.v[i].ip == ls + LIB_BASE;
	}
	printf("# loop head 0x%llx run %zu times\n", (unsigned long long)(ls + LIB_BASE), head_runs);
	struct pt_synth *sy = pt_synth_new(1024);
	uint8_t *pt = NULL;
	size_t len = 0;
	bool encoded = sy && pt_synth_add(sy, w.v, w.n) == 0 && pt_synth_finish(sy, &pt, &len) == 0;
	pt_synth_free(sy);
	if (!tap_ok(encoded, "the walk encoded as Intel PT (%zu bytes)", len)) {
		free(w.v);
		return;
	}

	/* the program's and the library's mappings, as ld.so makes them */
	struct gusdata_mmap maps[16];
	size_t nm = elf_maps(exepath, EXE_BASE, false, NULL, maps, 8);
	size_t nlib = elf_maps(libpath, LIB_BASE, false, build_id[0] ? build_id : NULL, maps + nm, 8);
	tap_ok(nm > 0 && nlib > 1, "mmap records: %zu of the program, %zu of libhot.so at 0x%llx", nm, nlib, LIB_BASE);
	nm += nlib;

	int first = 0, last = 0;
	bool have_lines = function_lines(srcpath, "lib_collatz", &first, &last);
	tap_ok(have_lines, "lib_collatz is libhot.c:%d-%d", first, last);
	char fn_line[64] = "", loop_line[64] = "";
	char lerr[512];
	struct merge_srclines *sl = merge_srclines_open(libpath, lerr, sizeof lerr);
	const char *file;
	int line;
	if (sl && merge_srcline(sl, mc->addr, &file, &line))
		snprintf(fn_line, sizeof fn_line, "libhot.c:%d", line);
	if (sl && merge_srcline(sl, ls, &file, &line))
		snprintf(loop_line, sizeof loop_line, "libhot.c:%d", line);
	merge_srclines_free(sl);

	char path[600];
	snprintf(path, sizeof path, "%s/lib.data", tmpdir);
	struct gusdata *d = new_recording(path, maps, nm, pt, len, ls);
	bool made = d && add_regions(d, mc, build_id[0] ? build_id : NULL, ls, le) &&
		    gusdata_finish(d, err, sizeof err) == 0;
	if (!tap_ok(made, "recording with the library's PT and its regions written%s%s", made ? "" : ": ",
		    made ? "" : err))
		goto out;

	struct expect fx = { .insns = w.n, .first_line = first, .last_line = last, .line = fn_line[0] ? fn_line : NULL };
	struct expect lx = { .insns = in_loop, .first_line = first, .last_line = last,
			     .line = loop_line[0] ? loop_line : NULL };
	for (int pass = 0; pass < 2; pass++) {
		struct report *r = build(path);
		const struct merge_report *m = r ? report_model(r) : NULL;
		tap_ok(m && m->nregions == 2, "report %d built: %zu regions", pass + 1, m ? m->nregions : 0);
		check_region(find_region(m, "function"), pass ? "function (cached)" : "function", &fx, pass == 1);
		check_region(find_region(m, "loop"), pass ? "loop (cached)" : "loop", &lx, pass == 1);
		report_free(r);
	}

	/* without the library's executable mapping the regions are not
	 * placed: said, and the loop simulated statically from the library's
	 * code instead */
	snprintf(path, sizeof path, "%s/unmapped.data", tmpdir);
	struct gusdata_mmap ro[16];
	size_t nro = 0;
	for (size_t i = 0; i < nm; i++)
		if (strcmp(maps[i].filename, libpath) || !(maps[i].prot & PROT_EXEC))
			ro[nro++] = maps[i];
	d = new_recording(path, ro, nro, pt, len, ls);
	made = d && add_regions(d, mc, build_id[0] ? build_id : NULL, ls, le) && gusdata_finish(d, err, sizeof err) == 0;
	struct report *r = made ? build(path) : NULL;
	const struct merge_report_region *v = r ? find_region(report_model(r), "loop") : NULL;
	const char *st = v && v->stream ? v->stream : "";
	tap_ok(v && v->simulated && strstr(st, "none (no instruction stream: ") && strstr(st, "never mapped") &&
		       strstr(st, "libhot.so") && strstr(st, "simulated statically instead"),
	       "no executable mapping of libhot.so: no stream, simulated statically, '%.200s'", st);
	report_free(r);
out:
	free(pt);
	free(w.v);
}

int main(void)
{
	const char *wl = getenv("WORKLOADS");
	char lib[PATH_MAX + 16], exe[PATH_MAX + 16];
	snprintf(lib, sizeof lib, "%s/libhot.so", wl && *wl ? wl : GUS_ABS_BUILDDIR "/tests/workloads");
	snprintf(exe, sizeof exe, "%s/uselib", wl && *wl ? wl : GUS_ABS_BUILDDIR "/tests/workloads");
	const char *dd = getenv("GUS_DATADIR");
	snprintf(datadir, sizeof datadir, "%s", dd && *dd ? dd : GUS_ABS_SRCDIR "/data");
	const char *td = getenv("TESTDIR");
	snprintf(srcpath, sizeof srcpath, "%s/workloads/libhot.c", td && *td ? td : GUS_ABS_SRCDIR "/tests");
	/* the kernel names mapped files by their real path */
	if (!tap_ok(realpath(lib, libpath) && realpath(exe, exepath), "%s and %s are built", lib, exe))
		return tap_done();
	snprintf(tmpdir, sizeof tmpdir, "%s/test_pt_objects.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	struct merge_code mc;
	bool got = merge_elf_function(libpath, "lib_collatz", &mc, err, sizeof err) == 0;
	if (!got)
		printf("# %s\n", err);
	if (tap_ok(got && mc.len > 0, "lib_collatz read from libhot.so (%zu bytes)", got ? mc.len : 0)) {
		test_filter_string(&mc);
		test_report(&mc);
		merge_code_free(&mc);
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
