/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT bytes decoded against a small image (ipt_decode): the code of
 * a generated program (tests/unit/pt_synth.c, 8 functions, fixed seed)
 * mapped at 0x400000. Input: one byte of options, then the trace.
 *   bits 0-1: libipt decoder (gus's default, block, insn, default)
 *   bit 2: lost data before the buffer
 *   bit 3: records only for the first function's range
 * At most 200000 instructions are emitted per input.
 * FUZZ_IPT_SEEDS=DIR makes the target write seed traces (PT synthesized
 * from the program's execution with libipt's encoder) to DIR and exit. */
#include "fuzz.h"
#include "ipt.h"
#include "pt_synth.h"

#define BASE 0x400000ull

static struct pt_synth_prog *prog;
static struct ipt_image *img;
static size_t code_size;

struct vec {
	struct stream_insn *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct stream_insn *v, size_t n)
{
	struct vec *o = ctx;
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap : 1024;
		while (cap < o->n + n)
			cap *= 2;
		struct stream_insn *nv = realloc(o->v, cap * sizeof(*nv));
		if (!nv)
			abort();
		o->v = nv;
		o->cap = cap;
	}
	memcpy(o->v + o->n, v, n * sizeof(*v));
	o->n += n;
	return 0;
}

static void write_seeds(const char *dir)
{
	static const uint64_t lens[] = { 40, 300, 3000 };
	static const size_t periods[] = { 256, 1024, 4096 };
	for (size_t i = 0; i < 3; i++) {
		struct pt_synth_prog *p = pt_synth_prog_new(BASE, 8, 99);
		struct pt_synth *s = pt_synth_new(periods[i]);
		struct vec truth = { 0 };
		uint8_t *pt = NULL;
		size_t len = 0;
		if (!p || !s || pt_synth_prog_run(p, lens[i], collect, &truth) ||
		    pt_synth_add(s, truth.v, truth.n) || pt_synth_finish(s, &pt, &len)) {
			fprintf(stderr, "fuzz_ipt: cannot synthesize a trace\n");
			exit(1);
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/synth-%zu", dir, i);
		FILE *f = fopen(path, "wb");
		uint8_t opt = (uint8_t)i;
		if (!f || fwrite(&opt, 1, 1, f) != 1 || fwrite(pt, 1, len, f) != len || fclose(f)) {
			perror(path);
			exit(1);
		}
		free(pt);
		free(truth.v);
		pt_synth_free(s);
		pt_synth_prog_free(p);
	}
	exit(0);
}

/* the image lives as long as the process; freed at exit so that the
 * regression run under LeakSanitizer reports only what inputs leak */
static void free_image(void)
{
	ipt_image_free(img);
	pt_synth_prog_free(prog);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *seeds = getenv("FUZZ_IPT_SEEDS");
	if (seeds && *seeds)
		write_seeds(seeds);
	char err[256];
	prog = pt_synth_prog_new(BASE, 8, 99);
	const uint8_t *code = prog ? pt_synth_prog_code(prog, &code_size) : NULL;
	img = ipt_image_new();
	if (!code || !img || ipt_image_add_buffer(img, code, code_size, BASE, err, sizeof err)) {
		fprintf(stderr, "fuzz_ipt: no image\n");
		exit(1);
	}
	atexit(free_image);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = { NULL, "block", "insn", NULL };
	if (size < 1)
		return 0;
	const char *mode = modes[data[0] & 3];
	if (mode)
		setenv("GUS_IPT_DECODER", mode, 1);
	else
		unsetenv("GUS_IPT_DECODER");
	struct stream_range r = { BASE, BASE + code_size / 8 };
	struct vec out = { 0 };
	struct ipt_decode_opts o = {
		.sink = collect, .ctx = &out, .max_insns = 200000,
		.ranges = data[0] & 8 ? &r : NULL, .nranges = data[0] & 8 ? 1 : 0,
	};
	struct ipt_stats st = { 0 };
	char err[256];
	ipt_decode(data + 1, size - 1, data[0] & 4, img, &o, &st, err, sizeof err);
	if (out.n > o.max_insns || st.emitted != out.n)
		abort();
	for (size_t i = 0; i < out.n; i++)
		if (!out.v[i].size || out.v[i].size > STREAM_MAX_BYTES)
			abort();
	free(out.v);
	return 0;
}
