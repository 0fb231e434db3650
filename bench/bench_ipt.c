/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decoding speed of ipt/: a long execution of a generated program
 * (pt_synth: loops, if/else, calls, indirect calls, jump tables, returns,
 * syscalls) encoded as PT, decoded five times per configuration; the
 * median is printed. usage: bench_ipt [MILLION-INSTRUCTIONS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipt.h"
#include "pt_synth.h"

#define BASE 0x401000ull
#define RUNS 5

struct count {
	uint64_t n, sum;
};

static int count_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct count *c = ctx;
	c->n += n;
	/* touch the records as a consumer would */
	for (size_t i = 0; i < n; i++)
		c->sum += v[i].ip + v[i].size + v[i].flags;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median M instr/s of RUNS decodes; -1 on a failure */
static double run(const char *label, const uint8_t *buf, size_t len, const struct ipt_image *img,
		  const struct stream_range *ranges, size_t nranges, uint64_t want, int runs)
{
	double rate[RUNS];
	struct ipt_stats st;
	for (int r = 0; r < runs; r++) {
		struct count c = { 0, 0 };
		struct ipt_decode_opts o = { .sink = count_sink, .ctx = &c, .ranges = ranges, .nranges = nranges };
		char err[256];
		memset(&st, 0, sizeof(st));
		double t0 = now();
		if (ipt_decode(buf, len, false, img, &o, &st, err, sizeof(err))) {
			fprintf(stderr, "bench_ipt: %s\n", err);
			return -1;
		}
		double t = now() - t0;
		/* libipt's instruction decoder does not return the trace's
		 * last instruction when it needs trace */
		if (st.insns + 1 < want || st.insns > want || st.gaps) {
			fprintf(stderr, "bench_ipt: %s decoded %llu instructions (%llu gaps), want %llu\n", label,
				(unsigned long long)st.insns, (unsigned long long)st.gaps, (unsigned long long)want);
			return -1;
		}
		rate[r] = (double)st.insns / t / 1e6;
	}
	qsort(rate, (size_t)runs, sizeof(double), cmp_double);
	double med = rate[runs / 2];
	printf("ipt decode: %.1f M instr/s (%s; %llu instructions, %llu emitted, median of %d)\n", med, label,
	       (unsigned long long)st.insns, (unsigned long long)st.emitted, runs);
	return med;
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 0) : 100) * 1000000ull;
	struct pt_synth_prog *p = pt_synth_prog_new(BASE, 64, 42);
	struct pt_synth *s = pt_synth_new(4096);
	struct ipt_image *img = ipt_image_new();
	if (!p || !s || !img) {
		fprintf(stderr, "bench_ipt: out of memory\n");
		return 1;
	}
	double t0 = now();
	uint8_t *buf;
	size_t len, csize;
	if (pt_synth_prog_run(p, n, pt_synth_sink, s) || pt_synth_finish(s, &buf, &len)) {
		fprintf(stderr, "bench_ipt: synthesis failed\n");
		return 1;
	}
	uint64_t want = pt_synth_count(s);
	const uint8_t *code = pt_synth_prog_code(p, &csize);
	/* from a file, as recordings map code: libipt's block decoder is
	 * faster on files (its block cache) than on buffers */
	char err[256], path[] = "/tmp/bench_ipt.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, code, csize) != (ssize_t)csize ||
	    ipt_image_add_file(img, path, 0, csize, BASE, err, sizeof(err))) {
		fprintf(stderr, "bench_ipt: cannot map the code from %s\n", path);
		return 1;
	}
	close(fd);
	printf("# %llu instructions, %zu bytes of code, %zu bytes of PT (%.2f bits/instr), synthesized in %.1f s\n",
	       (unsigned long long)want, csize, len, 8.0 * (double)len / (double)want, now() - t0);

	int rc = 0;
	if (run("query decoder + walks, all code", buf, len, img, NULL, 0, want, RUNS) < 0)
		rc = 1;
	/* a range of about a tenth of the code: most records are dropped */
	struct stream_range small = { BASE + csize / 4, BASE + csize / 4 + csize / 10 };
	if (run("query decoder + walks, small range", buf, len, img, &small, 1, want, RUNS) < 0)
		rc = 1;
	/* libipt's block and instruction decoders, for comparison (slower:
	 * 3 runs) */
	setenv("GUS_IPT_DECODER", "block", 1);
	if (run("libipt block decoder + walks, all code", buf, len, img, NULL, 0, want, 3) < 0)
		rc = 1;
	setenv("GUS_IPT_DECODER", "insn", 1);
	if (run("libipt instruction decoder, all code", buf, len, img, NULL, 0, want, 3) < 0)
		rc = 1;
	unsetenv("GUS_IPT_DECODER");
	unlink(path);
	free(buf);
	ipt_image_free(img);
	pt_synth_free(s);
	pt_synth_prog_free(p);
	return rc;
}
