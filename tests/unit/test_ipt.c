/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ipt/: PT synthesized with libipt's encoder from known executions (a
 * generated program, and branchy traced by the QEMU tracer), stored in a
 * gus.data like a recording, decoded back; damaged traces; ranges; the
 * memory image. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "gusdata.h"
#include <intel-pt.h>
#include "ipt.h"
#include "pt_synth.h"
#include "tap.h"

#define BASE 0x401000ull

static char err[512];
static char tmpdir[256];

struct vec {
	struct stream_insn *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct stream_insn *v, size_t n)
{
	struct vec *a = ctx;
	if (a->n + n > a->cap) {
		size_t cap = (a->n + n) * 2;
		struct stream_insn *p = realloc(a->v, cap * sizeof(*p));
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	memcpy(a->v + a->n, v, n * sizeof(*v));
	a->n += n;
	return 0;
}

/* OUT[0..n) equals TRUTH[from..from+n): ip, size, bytes, and TAKEN except
 * on the truth's very last record (nothing follows it in the trace) */
static bool same(const struct stream_insn *out, const struct vec *truth, size_t from, size_t n, bool taken)
{
	if (from + n > truth->n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct stream_insn *a = &out[i], *b = &truth->v[from + i];
		bool last = from + i + 1 == truth->n || i + 1 == n;
		if (a->ip != b->ip || a->size != b->size || memcmp(a->bytes, b->bytes, a->size) ||
		    (taken && !last && ((a->flags ^ b->flags) & STREAM_TAKEN))) {
			printf("#   record %zu (truth %zu): got %#llx/%u/%s want %#llx/%u/%s\n", i, from + i,
			       (unsigned long long)a->ip, a->size, a->flags & STREAM_TAKEN ? "T" : "-",
			       (unsigned long long)b->ip, b->size, b->flags & STREAM_TAKEN ? "T" : "-");
			return false;
		}
	}
	return true;
}

static size_t first_gap(const struct vec *out)
{
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].flags & STREAM_GAP)
			return i;
	return out->n;
}

/* ------------------------------------------------- the generated program --- */
struct gen {
	struct pt_synth_prog *prog;
	struct vec truth;
	uint8_t *pt;
	size_t len;
	const struct pt_synth_psb *psb;
	size_t npsb;
	struct pt_synth *synth;
	const uint8_t *code;
	size_t csize;
	char path[512];
};

static int gen_make(struct gen *g, uint64_t n, unsigned psb_period)
{
	memset(g, 0, sizeof(*g));
	g->prog = pt_synth_prog_new(BASE, 24, 99);
	g->synth = pt_synth_new(psb_period);
	if (!g->prog || !g->synth || pt_synth_prog_run(g->prog, n, collect, &g->truth) ||
	    pt_synth_add(g->synth, g->truth.v, g->truth.n) || pt_synth_finish(g->synth, &g->pt, &g->len))
		return -1;
	g->psb = pt_synth_psbs(g->synth, &g->npsb);
	g->code = pt_synth_prog_code(g->prog, &g->csize);
	snprintf(g->path, sizeof(g->path), "%s/prog.bin", tmpdir);
	FILE *f = fopen(g->path, "wb");
	if (!f || fwrite(g->code, 1, g->csize, f) != g->csize) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static void gen_free(struct gen *g)
{
	pt_synth_prog_free(g->prog);
	pt_synth_free(g->synth);
	free(g->truth.v);
	free(g->pt);
}

static struct ipt_image *gen_image(const struct gen *g)
{
	struct ipt_image *img = ipt_image_new();
	if (img && ipt_image_add_file(img, g->path, 0, g->csize, BASE, err, sizeof(err))) {
		printf("# %s\n", err);
		ipt_image_free(img);
		return NULL;
	}
	return img;
}

static int decode(const uint8_t *buf, size_t len, bool lost, const struct ipt_image *img,
		  const struct stream_range *r, size_t nr, struct vec *out, struct ipt_stats *st)
{
	struct ipt_decode_opts o = { .sink = collect, .ctx = out, .ranges = r, .nranges = nr };
	memset(st, 0, sizeof(*st));
	out->n = 0;
	int rc = ipt_decode(buf, len, lost, img, &o, st, err, sizeof(err));
	if (rc)
		printf("# ipt_decode: %d %s\n", rc, err);
	return rc;
}

/* a PSB about in the middle of the trace, with two after it */
static size_t mid_psb(const struct gen *g)
{
	return g->npsb > 4 ? g->npsb / 2 : 1;
}

static void test_gen_direct(void)
{
	struct gen g;
	if (!tap_ok(gen_make(&g, 200000, 1024) == 0, "generated program: 200000 instructions synthesized")) {
		gen_free(&g);
		return;
	}
	printf("# %zu bytes of PT, %zu PSBs\n", g.len, g.npsb);
	struct ipt_image *img = gen_image(&g);
	struct vec out = { 0 };
	struct ipt_stats st;
	tap_ok(img && decode(g.pt, g.len, false, img, NULL, 0, &out, &st) == 0, "decodes");
	tap_ok(out.n == g.truth.n && same(out.v, &g.truth, 0, out.n, true),
	       "decoded stream equals the executed one (%zu of %zu)", out.n, g.truth.n);
	tap_ok(st.gaps == 0 && st.insns == g.truth.n && st.emitted == g.truth.n && st.bytes == g.len,
	       "stats: no gaps, every instruction decoded and emitted");

	/* the same through libipt's block and instruction decoders */
	static const char *const modes[] = { "block", "insn" };
	for (int m = 0; m < 2; m++) {
		setenv("GUS_IPT_DECODER", modes[m], 1);
		decode(g.pt, g.len, false, img, NULL, 0, &out, &st);
		tap_ok(out.n + 1 >= g.truth.n && same(out.v, &g.truth, 0, out.n, true) && !st.gaps,
		       "%s decoder: same stream", modes[m]);
	}
	unsetenv("GUS_IPT_DECODER");

	/* max_insns */
	struct ipt_decode_opts o = { .sink = collect, .ctx = &out, .max_insns = 1000 };
	memset(&st, 0, sizeof(st));
	out.n = 0;
	ipt_decode(g.pt, g.len, false, img, &o, &st, err, sizeof(err));
	if (!tap_ok(out.n == 1000 && st.emitted == 1000 && same(out.v, &g.truth, 0, 999, true), "max_insns stops at 1000"))
		printf("#   %zu records, %llu emitted\n", out.n, (unsigned long long)st.emitted);

	/* damage 1: bytes that are no packet in the middle of a PSB period */
	size_t k = mid_psb(&g);
	uint8_t *b = malloc(g.len);
	memcpy(b, g.pt, g.len);
	size_t bad = (size_t)(g.psb[k].offset + g.psb[k + 1].offset) / 2;
	pt_synth_corrupt(b, g.len, bad, 4);
	decode(b, g.len, false, img, NULL, 0, &out, &st);
	size_t gi = first_gap(&out);
	tap_ok(st.gaps == 1 && st.ngaps_kept == 1 && st.gap[0].offset >= bad && st.gap[0].offset < g.psb[k + 1].offset &&
		       st.gap[0].error < 0,
	       "corrupt packet at %zu: one gap at %llu (%s)", bad, (unsigned long long)st.gap[0].offset, st.gap[0].what);
	tap_ok(gi < out.n && same(out.v, &g.truth, 0, gi, true), "corrupt packet: records before the gap are the truth's prefix");
	tap_ok(gi < out.n && same(out.v + gi, &g.truth, g.psb[k + 1].index, out.n - gi, true) &&
		       out.n - gi == g.truth.n - g.psb[k + 1].index,
	       "corrupt packet: decoding resumes at the next PSB, the truth's suffix from %llu",
	       (unsigned long long)g.psb[k + 1].index);
	tap_ok(st.skipped_bytes > 0 && st.skipped_bytes <= g.psb[k + 1].offset - bad, "skipped bytes counted (%llu)",
	       (unsigned long long)st.skipped_bytes);

	/* damage 2: the packets of a PSB period lost to an overflow */
	memcpy(b, g.pt, g.len);
	pt_synth_overflow(b, g.len, g.psb[k].offset, g.psb[k + 1].offset, g.truth.v[g.psb[k + 1].index].ip);
	decode(b, g.len, false, img, NULL, 0, &out, &st);
	gi = first_gap(&out);
	tap_ok(st.overflows == 1 && st.gaps == 1 && !strcmp(st.gap[0].what, "overflow"), "overflow: counted as overflow and gap");
	tap_ok(gi < out.n && same(out.v, &g.truth, 0, gi, true) &&
		       same(out.v + gi, &g.truth, g.psb[k + 1].index, out.n - gi, true) &&
		       out.n - gi == g.truth.n - g.psb[k + 1].index,
	       "overflow: prefix before, resumes at the PSB after it");

	/* an OVF right before a PSB: the PSB+ says where tracing goes on */
	memcpy(b, g.pt, g.len);
	memset(b + g.psb[k].offset, 0, (size_t)(g.psb[k + 1].offset - g.psb[k].offset) - 2);
	b[g.psb[k + 1].offset - 2] = 0x02;
	b[g.psb[k + 1].offset - 1] = 0xf3;
	decode(b, g.len, false, img, NULL, 0, &out, &st);
	gi = first_gap(&out);
	/* libipt looks past the PSB+ for the overflow's FUP, so decoding may
	 * resume later: the records after the gap are a suffix of the truth */
	size_t j = g.truth.n - (out.n - gi);
	tap_ok(st.overflows == 1 && gi < out.n && same(out.v, &g.truth, 0, gi, true) && j >= g.psb[k + 1].index &&
		       same(out.v + gi, &g.truth, j, out.n - gi, true),
	       "overflow into a PSB: gap, then a suffix of the truth from %zu", j);

	/* damage 3: truncated */
	size_t cut = (size_t)(g.psb[k].offset + g.psb[k + 1].offset) / 2;
	decode(g.pt, cut, false, img, NULL, 0, &out, &st);
	tap_ok(st.gaps == 0 && out.n >= g.psb[k].index && out.n < g.truth.n && same(out.v, &g.truth, 0, out.n, true),
	       "truncated trace: a prefix of the truth (%zu records), no gap", out.n);

	/* damage 4: half of the code missing from the image */
	struct ipt_image *half = ipt_image_new();
	ipt_image_add_file(half, g.path, 0, g.csize / 2, BASE, err, sizeof(err));
	decode(g.pt, g.len, false, half, NULL, 0, &out, &st);
	gi = first_gap(&out);
	tap_ok(st.gaps > 0 && st.gap[0].error == -pte_nomap && st.gap[0].ip >= BASE + g.csize / 2,
	       "missing code: nomap gaps (%llu)", (unsigned long long)st.gaps);
	tap_ok(same(out.v, &g.truth, 0, gi, true), "missing code: records before the first gap are the truth's prefix");
	ipt_image_free(half);

	/* lost before: the first record carries GAP, counted */
	decode(g.pt, g.len, true, img, NULL, 0, &out, &st);
	tap_ok(out.n && (out.v[0].flags & STREAM_GAP) && st.gaps == 1 && !strcmp(st.gap[0].what, "lost data"),
	       "lost_before: gap counted, first record flagged");

	/* ranges: only records inside, decoding right through the rest */
	struct stream_range r = { BASE + g.csize / 3, BASE + 2 * g.csize / 3 };
	decode(g.pt, g.len, false, img, &r, 1, &out, &st);
	struct vec want = { 0 };
	bool entry_ok = true;
	for (size_t i = 0, prev_in = 0; i < g.truth.n; i++) {
		bool in = stream_in_ranges(&r, 1, g.truth.v[i].ip);
		if (in) {
			struct stream_insn s = g.truth.v[i];
			s.flags = 0;
			collect(&want, &s, 1);
			/* entry after out-of-range code (not on the first) */
			if (want.n <= out.n && want.n > 1 && !prev_in && !(out.v[want.n - 1].flags & STREAM_ENTRY))
				entry_ok = false;
		}
		prev_in = in;
	}
	for (size_t i = 0; i + 1 < want.n; i++)
		if (want.v[i].ip + want.v[i].size != want.v[i + 1].ip)
			want.v[i].flags |= STREAM_TAKEN;
	tap_ok(st.insns == g.truth.n && st.emitted == want.n && out.n == want.n && same(out.v, &want, 0, out.n, true),
	       "range: %zu of %zu records, those of the range, TAKEN at range exits", out.n, g.truth.n);
	tap_ok(entry_ok, "range: re-entries flagged STREAM_ENTRY");
	free(want.v);
	free(out.v);
	free(b);
	ipt_image_free(img);
	gen_free(&g);
}

/* ------------------------------------------------------------ gus.data --- */
struct chunkspec {
	uint64_t from, to;	/* bytes of the trace */
	uint64_t aux;		/* aux_offset */
	uint32_t flags;
};

static struct gusdata *make_data_at(const char *path, const struct gusdata_mmap *maps, size_t nmaps,
				    const uint8_t *pt, const struct chunkspec *c, size_t nc)
{
	struct gusdata *d = NULL;
	if (gusdata_create(path, 0, &d, err, sizeof(err))) {
		printf("# gusdata_create: %s\n", err);
		return NULL;
	}
	gusdata_set_meta(d, "cpu.family", "6");
	gusdata_set_meta(d, "cpu.model", "85");
	gusdata_set_meta(d, "cpu.stepping", "7");
	for (size_t i = 0; i < nmaps; i++)
		gusdata_add_mmap(d, &maps[i]);
	for (size_t i = 0; i < nc; i++) {
		struct gusdata_chunk ch = { .cpu = 0, .tid = -1, .aux_offset = c[i].aux, .flags = c[i].flags,
					    .data = pt + c[i].from, .size = (size_t)(c[i].to - c[i].from) };
		gusdata_add_chunk(d, &ch);
	}
	return d;
}

static struct gusdata *make_data(const char *name, const struct gusdata_mmap *maps, size_t nmaps, const uint8_t *pt,
				 const struct chunkspec *c, size_t nc)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return make_data_at(path, maps, nmaps, pt, c, nc);
}

static int decode_data(struct gusdata *d, struct vec *out, struct ipt_stats *st, struct ipt_recording_stats *rs)
{
	struct ipt_decode_opts o = { .sink = collect, .ctx = out };
	memset(st, 0, sizeof(*st));
	out->n = 0;
	int rc = ipt_decode_recording(d, &o, st, rs, err, sizeof(err));
	if (rc)
		printf("# ipt_decode_recording: %d %s\n", rc, err);
	return rc;
}

static void test_gen_recording(void)
{
	struct gen g;
	if (!tap_ok(gen_make(&g, 100000, 2048) == 0, "recording: program synthesized"))
		return;
	struct gusdata_mmap maps[] = {
		{ .pid = 1, .tid = 1, .start = BASE, .len = g.csize, .pgoff = 0, .prot = PROT_READ | PROT_EXEC,
		  .filename = g.path },
		{ .pid = 1, .tid = 1, .start = 0x800000, .len = 0x1000, .prot = PROT_READ | PROT_WRITE, .filename = g.path },
		{ .pid = 1, .tid = 1, .start = 0x900000, .len = 0x21000, .prot = PROT_READ | PROT_EXEC, .filename = "[heap]" },
		{ .pid = 1, .tid = 1, .start = 0xa00000, .len = 0x1000, .prot = PROT_READ | PROT_EXEC, .filename = "//anon" },
	};
	/* five contiguous chunks */
	struct chunkspec cs[5];
	for (int i = 0; i < 5; i++) {
		cs[i].from = g.len * (uint64_t)i / 5;
		cs[i].to = g.len * (uint64_t)(i + 1) / 5;
		cs[i].aux = 0x10000 + cs[i].from;
		cs[i].flags = 0;
	}
	struct vec out = { 0 };
	struct ipt_stats st;
	struct ipt_recording_stats rs;
	struct gusdata *d = make_data("gen.data", maps, 4, g.pt, cs, 5);
	tap_ok(d && decode_data(d, &out, &st, &rs) == 0, "recording decodes");
	tap_ok(rs.buffers == 1 && rs.images == 1 && rs.missing_files == 0, "one buffer, one image (heap, anon, data skipped)");
	tap_ok(out.n == g.truth.n && same(out.v, &g.truth, 0, out.n, true) && st.gaps == 0,
	       "recording in 5 chunks: the executed stream, exactly");
	gusdata_close(d);

	/* missing file */
	struct gusdata_mmap gone = maps[0];
	gone.filename = "/nonexistent/prog.bin";
	d = make_data("gone.data", &gone, 1, g.pt, cs, 5);
	bool ok = d && decode_data(d, &out, &st, &rs) == 0;
	tap_ok(ok && rs.missing_files == 1 && !strcmp(rs.first_missing, "/nonexistent/prog.bin") && st.gaps > 0 &&
		       out.n == 0,
	       "missing file: counted, named, its code decodes as gaps (%llu)", (unsigned long long)st.gaps);
	gusdata_close(d);

	/* truncated chunk, then the next chunk after a loss */
	size_t k = mid_psb(&g);
	struct chunkspec tr[2] = {
		{ 0, (g.psb[k].offset + g.psb[k + 1].offset) / 2, 0x10000, GUSDATA_CHUNK_TRUNCATED },
		{ g.psb[k + 1].offset, g.len, 0x10000 + g.psb[k + 1].offset, 0 },
	};
	d = make_data("trunc.data", maps, 1, g.pt, tr, 2);
	decode_data(d, &out, &st, &rs);
	size_t gi = first_gap(&out);
	tap_ok(st.gaps == 1 && gi < out.n && same(out.v, &g.truth, 0, gi, true) &&
		       same(out.v + gi, &g.truth, g.psb[k + 1].index, out.n - gi, true) &&
		       out.n - gi == g.truth.n - g.psb[k + 1].index,
	       "truncated AUX chunk: a gap, then the truth from the next chunk's PSB");
	gusdata_close(d);

	/* a chunk lost: the next one says LOST_BEFORE (aux offsets contiguous
	 * as if the kernel had not told) */
	struct chunkspec lo[2] = {
		{ 0, g.psb[k].offset, 0x10000, 0 },
		{ g.psb[k + 1].offset, g.len, 0x10000 + g.psb[k].offset, GUSDATA_CHUNK_LOST_BEFORE },
	};
	d = make_data("lost.data", maps, 1, g.pt, lo, 2);
	decode_data(d, &out, &st, &rs);
	gi = first_gap(&out);
	tap_ok(st.gaps == 1 && !strcmp(st.gap[0].what, "lost data") && gi < out.n && same(out.v, &g.truth, 0, gi, true) &&
		       same(out.v + gi, &g.truth, g.psb[k + 1].index, out.n - gi, true),
	       "LOST_BEFORE chunk: a gap, decoding goes on at its first PSB");
	gusdata_close(d);
	free(out.v);
	gen_free(&g);
}

/* ----------------------------------------------------------- the image --- */
static void test_image(void)
{
	char a[600], b[600];
	snprintf(a, sizeof(a), "%s/a.bin", tmpdir);
	snprintf(b, sizeof(b), "%s/b.bin", tmpdir);
	uint8_t buf[8192];
	for (int i = 0; i < 8192; i++)
		buf[i] = (uint8_t)i;
	FILE *f = fopen(a, "wb");
	fwrite(buf, 1, 8192, f);
	fclose(f);
	memset(buf, 0xbb, sizeof(buf));
	f = fopen(b, "wb");
	fwrite(buf, 1, 4096, f);
	fclose(f);
	struct ipt_image *img = ipt_image_new();
	/* a's second page at 0x10000, b right after it */
	tap_ok(ipt_image_add_file(img, a, 4096, 4096, 0x10000, err, sizeof(err)) == 0 &&
		       ipt_image_add_file(img, b, 0, 4096, 0x11000, err, sizeof(err)) == 0,
	       "image: two files mapped");
	uint8_t out[16];
	size_t n = ipt_image_read(img, 0x10ff8, out, 16);
	tap_ok(n == 16 && out[0] == (uint8_t)(4096 + 4088) && out[7] == (uint8_t)(4096 + 4095) && out[8] == 0xbb &&
		       out[15] == 0xbb,
	       "image: a read across two mappings, from the file offset");
	tap_ok(ipt_image_read(img, 0x12000, out, 4) == 0 && ipt_image_read(img, 0xfff0, out, 4) == 0,
	       "image: unmapped reads return 0");
	tap_ok(ipt_image_read(img, 0x11ffe, out, 16) == 2, "image: a read at the end stops there");
	/* a later buffer replaces what it covers */
	uint8_t v[4] = { 1, 2, 3, 4 };
	ipt_image_add_buffer(img, v, 4, 0x10800, err, sizeof(err));
	n = ipt_image_read(img, 0x107fe, out, 8);
	tap_ok(n == 8 && out[1] == (uint8_t)(4096 + 0x7ff) && out[2] == 1 && out[5] == 4 &&
		       out[6] == (uint8_t)(4096 + 0x804),
	       "image: a later mapping replaces the middle of an earlier one");
	err[0] = 0;
	tap_ok(ipt_image_add_file(img, "/nonexistent/file", 0, 4096, 0x20000, err, sizeof(err)) == -1 && err[0],
	       "image: a missing file is an error (%s)", err);
	tap_ok(ipt_image_add_file(img, a, 1 << 20, 4096, 0x20000, err, sizeof(err)) == -1,
	       "image: an offset beyond the file is an error");
	tap_ok(ipt_image_add_file(img, tmpdir, 0, 4096, 0x20000, err, sizeof(err)) == -1, "image: a directory is an error");
	ipt_image_free(img);
	unlink(a);
	unlink(b);
}

/* ---------------------------------------------------- QEMU round trip --- */
struct qtrace {
	struct vec v;
};

static int qemu_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct vec *a = ctx;
	/* one record per rep iteration from QEMU: PT sees one instruction */
	for (size_t i = 0; i < n; i++) {
		if (a->n && a->v[a->n - 1].ip == v[i].ip) {
			const uint8_t *p = v[i].bytes;
			size_t j = 0;
			while (j < v[i].size && (p[j] == 0x66 || p[j] == 0x67 || (p[j] & 0xf0) == 0x40))
				j++;
			if (j < v[i].size && (p[j] == 0xf3 || p[j] == 0xf2)) {
				/* the last iteration says where it went */
				a->v[a->n - 1].flags = v[i].flags;
				continue;
			}
		}
		if (collect(a, &v[i], 1))
			return -1;
	}
	return 0;
}

/* the executable PT_LOAD segments of PATH as mmap records */
static size_t elf_exec_maps(const char *path, struct gusdata_mmap *m, size_t max, char *build_id, size_t idlen)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0, np = 0;
	build_id[0] = 0;
	if (e && elf_getphdrnum(e, &np) == 0) {
		for (size_t i = 0; i < np && n < max; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			uint64_t page = ph.p_vaddr & ~0xfffull;
			m[n++] = (struct gusdata_mmap){ .pid = 1, .tid = 1, .start = page,
							.len = ph.p_memsz + (ph.p_vaddr - page),
							.pgoff = ph.p_offset - (ph.p_vaddr - page),
							.prot = PROT_READ | PROT_EXEC, .filename = path };
		}
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Nhdr nh;
			size_t off = 0, no, dof;
			while (d && (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID)
					for (size_t j = 0; j < nh.n_descsz && 2 * j + 3 <= idlen; j++)
						snprintf(build_id + 2 * j, 3, "%02x", ((uint8_t *)d->d_buf)[dof + j]);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/* WRITE_TO: only write the round trip's recording there (for the
 * command-line tests of gus script and gus sim --pt) */
static void test_qemu_round_trip(const char *write_to)
{
	char prog[600];
	const char *wl = getenv("WORKLOADS");
	snprintf(prog, sizeof(prog), "%s/branchy", wl ? wl : GUS_ABS_BUILDDIR "/tests/workloads");
	struct vec truth = { 0 };
	struct collect_qemu_opts o = { .sink = qemu_sink, .ctx = &truth, .max_insns = 3000000 };
	struct collect_qemu_stats qs;
	struct collect_result res;
	char *argv[] = { prog, NULL };
	memset(&qs, 0, sizeof(qs));
	enum collect_status s = collect_qemu_run(argv, &o, &qs, &res, err, sizeof(err));
	if (s != COLLECT_OK || truth.n == 0) {
		printf("# collect_qemu_run: %d: %s\n", s, err);
		tap_ok(0, "QEMU round trip: the tracer must run (qemu-user is a dependency)");
		free(truth.v);
		return;
	}
	tap_ok(qs.load_bias == 0, "branchy under QEMU: non-PIE, load bias 0 (%zu records)", truth.n);

	struct pt_synth *sy = pt_synth_new(4096);
	uint8_t *pt = NULL;
	size_t len = 0;
	bool encoded = sy && pt_synth_add(sy, truth.v, truth.n) == 0 && pt_synth_finish(sy, &pt, &len) == 0;
	tap_ok(encoded, "branchy's execution encoded as PT (%zu bytes)", len);
	struct gusdata_mmap maps[8];
	char build_id[96];
	size_t nm = elf_exec_maps(prog, maps, 8, build_id, sizeof(build_id));
	for (size_t i = 0; i < nm; i++)
		maps[i].build_id = build_id;
	struct chunkspec cs[7];
	for (int i = 0; i < 7; i++) {
		cs[i].from = len * (uint64_t)i / 7;
		cs[i].to = len * (uint64_t)(i + 1) / 7;
		cs[i].aux = cs[i].from;
		cs[i].flags = 0;
	}
	if (write_to) {
		struct gusdata *w = make_data_at(write_to, maps, nm, pt, cs, 7);
		if (w) {
			gusdata_set_meta(w, "exe", prog);
			gusdata_set_meta(w, "command", prog);
			gusdata_set_meta(w, "tracer", "pt (synthesized from a QEMU trace)");
			if (gusdata_finish(w, err, sizeof(err)))
				printf("# gusdata_finish: %s\n", err);
		}
		tap_ok(w != NULL, "recording written to %s", write_to);
		free(pt);
		pt_synth_free(sy);
		free(truth.v);
		return;
	}
	struct gusdata *d = make_data("branchy.data", maps, nm, pt, cs, 7);
	struct vec out = { 0 };
	struct ipt_stats st;
	struct ipt_recording_stats rs;
	tap_ok(nm > 0 && d && decode_data(d, &out, &st, &rs) == 0 && rs.images == nm && rs.build_id_mismatches == 0,
	       "branchy recording decodes (%zu executable segments)", nm);
	size_t n = out.n < truth.n ? out.n : truth.n;
	tap_ok(out.n == truth.n && same(out.v, &truth, 0, n, true) && st.gaps == 0,
	       "round trip: decoded == QEMU-traced, instruction for instruction (%zu of %zu, %llu gaps)", out.n,
	       truth.n, (unsigned long long)st.gaps);
	gusdata_close(d);

	/* the same with a build-id that is not the file's */
	for (size_t i = 0; i < nm; i++)
		maps[i].build_id = "00112233445566778899aabbccddeeff00112233";
	d = make_data("branchy-bid.data", maps, nm, pt, cs, 7);
	tap_ok(d && decode_data(d, &out, &st, &rs) == 0 && rs.build_id_mismatches == nm && rs.images == 0 && st.gaps > 0,
	       "build-id mismatch: counted, the file is not used");
	gusdata_close(d);
	free(out.v);
	free(pt);
	pt_synth_free(sy);
	free(truth.v);
}

int main(int argc, char **argv)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_ipt.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "--write-recording")) {
		test_qemu_round_trip(argv[2]);
	} else {
		test_image();
		test_gen_direct();
		test_gen_recording();
		test_qemu_round_trip(NULL);
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
