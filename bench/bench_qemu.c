/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU tracer's cost: bench_qemu PATH/tests/workloads/arraywalk [ITER]
 * times (median of 5) the program's hot mode (sum_array over 1000 int64,
 * ITER times) natively, under plain qemu-x86_64, traced with sum_array as
 * the range and data addresses on (records counted by the sink, nothing
 * else), and traced with a range that never runs (bump_array, not called
 * in hot mode: the cost of skipping code). Needs GUS_QEMU_PLUGIN. */
#include "collect.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 5

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static int lookup(const char *path, const char *name, uint64_t *start, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char *f = malloc((size_t)sb.st_size);
	int rc = -1;
	if (!f || read(fd, f, (size_t)sb.st_size) != sb.st_size)
		goto out;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum && rc; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		const char *str = f + sh[sh[i].sh_link].sh_offset;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (!strcmp(str + sym[j].st_name, name)) {
				*start = sym[j].st_value;
				*size = sym[j].st_size;
				rc = 0;
				break;
			}
	}
out:
	free(f);
	close(fd);
	return rc;
}

static double run_plain(char *const argv[])
{
	double t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench_qemu: %s failed\n", argv[0]);
		exit(1);
	}
	return now() - t0;
}

static int count_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	(void)v;
	*(uint64_t *)ctx += n;
	return 0;
}

static double run_traced(char *const argv[], const struct stream_range *r, uint64_t *records)
{
	struct collect_qemu_opts o = {
		.ranges = r, .nranges = 1, .data_addresses = true, .sink = count_sink, .ctx = records,
	};
	struct collect_qemu_stats st;
	struct collect_result res;
	char err[COLLECT_ERRLEN];
	*records = 0;
	double t0 = now();
	if (collect_qemu_run(argv, &o, &st, &res, err, sizeof(err)) != COLLECT_OK) {
		fprintf(stderr, "bench_qemu: %s\n", err);
		exit(1);
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_qemu PATH/arraywalk [ITER]\n");
		return 2;
	}
	const char *prog = argv[1];
	const char *iter = argc > 2 ? argv[2] : "20000";
	char out[] = "/tmp/bench_qemu.XXXXXX";
	int fd = mkstemp(out);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	uint64_t s_sum, z_sum, s_bump, z_bump;
	if (lookup(prog, "sum_array", &s_sum, &z_sum) || lookup(prog, "bump_array", &s_bump, &z_bump)) {
		fprintf(stderr, "bench_qemu: %s: no sum_array/bump_array symbols (arraywalk expected)\n",
			prog);
		return 1;
	}
	const char *q = getenv("GUS_QEMU");
	char *native[] = { (char *)prog, out, (char *)"hot", (char *)iter, NULL };
	char *plain[] = { (char *)(q && *q ? q : "qemu-x86_64"), (char *)prog, out, (char *)"hot",
			  (char *)iter, NULL };
	struct stream_range hot = { s_sum, s_sum + z_sum }, cold = { s_bump, s_bump + z_bump };
	double tn[RUNS], tq[RUNS], tt[RUNS], ts[RUNS];
	uint64_t rec = 0, rec_cold = 0;
	for (int i = 0; i < RUNS; i++) {
		tn[i] = run_plain(native);
		tq[i] = run_plain(plain);
		tt[i] = run_traced(native, &hot, &rec);
		ts[i] = run_traced(native, &cold, &rec_cold);
	}
	unlink(out);
	double n = median(tn, RUNS), p = median(tq, RUNS), t = median(tt, RUNS), s = median(ts, RUNS);
	printf("bench_qemu: arraywalk hot %s (sum_array over 1000 int64 x %s), median of %d runs\n",
	       iter, iter, RUNS);
	printf("  native                   %8.3f s\n", n);
	printf("  plain qemu-x86_64        %8.3f s  %6.2fx native\n", p, p / n);
	printf("  traced sum_array + data  %8.3f s  %6.2fx native  %6.2fx qemu  %" PRIu64
	       " records, %.1f M records/s\n", t, t / n, t / p, rec, (double)rec / t / 1e6);
	printf("  range never executed     %8.3f s  %6.2fx native  %6.2fx qemu  %" PRIu64 " records\n",
	       s, s / n, s / p, rec_cold);
	return 0;
}
