/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test and benchmark helpers: Intel PT synthesized with libipt's encoder
 * from an executed instruction sequence, ways to damage it, and a
 * generated program whose execution can be as long as wanted. */
#ifndef GUS_PT_SYNTH_H
#define GUS_PT_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* ------------------------------------------------------- synthesizer --- */
struct pt_synth;

struct pt_synth_psb {
	uint64_t offset;	/* of the PSB packet in the trace */
	uint64_t index;		/* the sequence index of the instruction it resumes at */
};

/* PSB+ about every PSB_PERIOD trace bytes (0: 4096). */
struct pt_synth *pt_synth_new(size_t psb_period);
void pt_synth_free(struct pt_synth *s);
/* Appends executed instructions (ip, size, bytes; STREAM_ENTRY marks a
 * re-entry after untraced code). Consecutive records of one ip are one
 * execution of a rep-prefixed instruction, as QEMU reports each
 * iteration; they are merged. -1 when an instruction cannot be decoded. */
int pt_synth_add(struct pt_synth *s, const struct stream_insn *v, size_t n);
/* A TSC packet: the time from here on (the branches of the instructions
 * added so far come before it). -1 before the first instruction. */
int pt_synth_tsc(struct pt_synth *s, uint64_t tsc);
/* Ends the trace (FUP + TIP.PGD) and hands over the bytes (free them). */
int pt_synth_finish(struct pt_synth *s, uint8_t **buf, size_t *len);
/* the PSBs written, in order */
const struct pt_synth_psb *pt_synth_psbs(const struct pt_synth *s, size_t *n);
/* instructions taken in (after merging rep iterations) */
uint64_t pt_synth_count(const struct pt_synth *s);
/* a stream_sink feeding pt_synth_add */
int pt_synth_sink(void *ctx, const struct stream_insn *v, size_t n);

/* ---------------------------------------------------------- damage --- */
/* Overwrites [OFF, OFF+N) with bytes that are no packet (-pte_bad_opc). */
void pt_synth_corrupt(uint8_t *buf, size_t len, size_t off, size_t n);
/* Replaces [FROM, TO) (packet boundaries, e.g. two PSBs) with padding,
 * an OVF packet and the FUP of IP, where execution goes on at TO: the
 * packets there are lost as in an overflow. */
void pt_synth_overflow(uint8_t *buf, size_t len, size_t from, size_t to, uint64_t ip);

/* --------------------------------------------------------- program --- */
/* Generated x86-64 code (functions with straight-line runs, if/else,
 * loops, direct and indirect calls, jump-table switches, returns and a
 * syscall now and then) and a walk through it with pseudo-random branch
 * outcomes: any length of realistic execution without running anything. */
struct pt_synth_prog;

struct pt_synth_prog *pt_synth_prog_new(uint64_t base, unsigned nfuncs, uint64_t seed);
void pt_synth_prog_free(struct pt_synth_prog *p);
const uint8_t *pt_synth_prog_code(const struct pt_synth_prog *p, size_t *size);
/* Streams N executed instructions to SINK in batches; returns the sink's
 * non-zero value, else 0. */
int pt_synth_prog_run(struct pt_synth_prog *p, uint64_t n, stream_sink sink, void *ctx);

#endif
