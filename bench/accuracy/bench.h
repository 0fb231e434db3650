/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench.h - interface between harness.c, calib.S and the kernels.S and
 * table.c that run.sh generates from kernels.txt. */
#ifndef GUS_BENCH_ACCURACY_H
#define GUS_BENCH_ACCURACY_H

/* dependent `add rax, rcx` per iteration of bench_calib */
#define CALIB_ADDS 1000
/* independent `add` per iteration of bench_probe */
#define PROBE_ADDS 12

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

/* data areas, loaded into rdi, rsi, rdx and r8 by every kernel */
struct bench_bufs {
	void *a, *b, *c, *d;
};

/* runs the loop body `iters` times (iters >= 1) */
typedef void (*bench_fn)(uint64_t iters, const struct bench_bufs *bufs);

struct bench_kernel {
	const char *name;
	bench_fn fn;
	unsigned stride;	/* bytes advanced per iteration, 0 = fixed */
};

extern const struct bench_kernel bench_kernels[];
extern const size_t bench_nkernels;

/* calib.S: a chain of CALIB_ADDS * iters dependent 1-cycle adds */
void bench_calib(uint64_t iters);
/* calib.S: iters iterations of PROBE_ADDS independent adds (throughput
 * bound: slows down when another thread shares the core) */
void bench_probe(uint64_t iters);
#endif

#endif
