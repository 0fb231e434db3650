/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The instruction stream: the seam between its producers (ipt/ decoding
 * Intel PT, the QEMU tracer of collect/) and its consumer (sim/, through
 * cmd/). One record per executed instruction, in execution order. */
#ifndef GUS_STREAM_H
#define GUS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define STREAM_MAX_BYTES 15
#define STREAM_MAX_MEM 4

enum stream_flags {
	/* control did not go on at ip + size: a taken conditional branch,
	 * any jump, call or return (also set on the last instruction of a
	 * traced range when the next recorded one is elsewhere) */
	STREAM_TAKEN = 1u << 0,
	/* instructions were lost before this one (a decode error, an
	 * overflow, truncated data): the stream resumes here */
	STREAM_GAP = 1u << 1,
	/* the stream re-enters the traced ranges here after running code
	 * outside them (normal with range filters, not a loss) */
	STREAM_ENTRY = 1u << 2,
	/* mem[] holds the data addresses of this instruction (QEMU) */
	STREAM_HAS_MEM = 1u << 3,
	/* a window of the run starts here (the QEMU tracer's sampled windows,
	 * collect.h): the thread's records of the same traced range from here
	 * to its next mark belong to window WINDOW */
	STREAM_WINDOW = 1u << 4,
};

struct stream_insn {
	uint64_t ip;			/* virtual address in the traced process */
	uint64_t mem[STREAM_MAX_MEM];	/* data addresses, in access order, duplicates merged */
	uint8_t size;			/* length in bytes, 1..15 */
	uint8_t flags;			/* enum stream_flags */
	uint8_t nmem;			/* valid entries of mem[] */
	uint8_t store_mask;		/* bit i: mem[i] was written (a read-modify-write sets it) */
	uint8_t bytes[16];		/* the instruction's bytes (size of them) */
	/* who ran it: the traced process (0: the program, then its children in
	 * the order they were traced) << 16 | its thread, numbered in the order
	 * the process created them (0: its first thread); 0 when unknown */
	uint32_t thread;
	/* with STREAM_WINDOW: STREAM_WINDOW_TAG(range, index), the thread's
	 * window INDEX of traced range RANGE (their order as the tracer was
	 * given them); 0 otherwise */
	uint32_t window;
};

/* RANGE below 255, INDEX below 2^24 */
#define STREAM_WINDOW_TAG(range, index) (((uint32_t)(range) << 24 | ((uint32_t)(index) & 0xffffffu)) + 1u)
#define STREAM_WINDOW_RANGE(tag) (((tag) - 1u) >> 24)
#define STREAM_WINDOW_INDEX(tag) (((tag) - 1u) & 0xffffffu)

#define STREAM_THREAD(proc, thread) ((uint32_t)(proc) << 16 | ((uint32_t)(thread) & 0xffffu))
/* the process number of a recording's records from the native stepper
 * (gus record's run 3, collect_step_run), whose addresses are that run's:
 * above any the QEMU tracer numbers */
#define STREAM_STEP_PROC 0xffffu

/* Receives records in batches; a non-zero return stops the producer, which
 * then returns that value. */
typedef int (*stream_sink)(void *ctx, const struct stream_insn *v, size_t n);

/* An address range [start, end) of the traced process. */
struct stream_range {
	uint64_t start, end;
};

static inline int stream_in_ranges(const struct stream_range *r, size_t n, uint64_t ip)
{
	if (n == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (ip >= r[i].start && ip < r[i].end)
			return 1;
	return 0;
}

#endif
