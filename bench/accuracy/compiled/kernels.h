/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernels.h - interface between kernels.c (compiled once per build: -O2,
 * -O3 -march=native), measure.c and calib.S of the compiled-code accuracy
 * benchmark (see README.md). */
#ifndef GUS_BENCH_COMPILED_H
#define GUS_BENCH_COMPILED_H

/* dependent `imul rax, rcx` per iteration of cb_imul_chain (calib.S) */
#define CB_IMULS 1000
/* the latency of a 64-bit register imul on the cores this is meant for
 * (Skylake to Golden Cove, Zen 2 to Zen 5) */
#define CB_IMUL_LAT 3
/* independent adds per iteration of cb_probe (calib.S) */
#define CB_PROBE_ADDS 12

#ifndef __ASSEMBLER__
#include <stdint.h>

struct kernel {
	const char *name;	/* k_NAME is the function */
	void (*fn)(void);	/* one call: the whole kernel over its data */
	long (*iters)(void);	/* innermost-loop body executions per call */
	const char *data;	/* "L1" or "L2": where its data is meant to live */
	const char *limit;	/* what is expected to bound it */
};

extern const struct kernel kernels[];
extern const int nkernels;

/* fills every kernel's input data (deterministic) */
void kernels_init(void);
/* reads one value of every kernel's output, so that none is write-only */
double kernels_checksum(void);

/* calib.S: iters x CB_IMULS dependent imuls */
void cb_imul_chain(uint64_t iters);
/* calib.S: iters x CB_PROBE_ADDS independent adds (throughput bound) */
void cb_probe(uint64_t iters);
#endif

#endif
