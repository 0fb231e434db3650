/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib.S - fixed loops of the accuracy harness (see harness.c) */
#include "bench.h"

	.intel_syntax noprefix
	.section .note.GNU-stack,"",@progbits
	.text

/* void bench_calib(uint64_t iters): CALIB_ADDS dependent register adds per
 * iteration (register source: no immediate that a renamer could fold) */
	.globl bench_calib
	.type bench_calib, @function
	.p2align 6
bench_calib:
	xor eax, eax
	mov ecx, 1
	.p2align 6
1:
	.rept CALIB_ADDS
	add rax, rcx
	.endr
	dec rdi
	jnz 1b
	ret
	.size bench_calib, .-bench_calib

/* void bench_probe(uint64_t iters): PROBE_ADDS independent adds per
 * iteration, bound by the issue width and the ALU ports */
	.globl bench_probe
	.type bench_probe, @function
	.p2align 6
bench_probe:
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov esi, 1
	.p2align 6
1:
	add rax, rsi
	add rbx, rsi
	add rcx, rsi
	add rdx, rsi
	add r8, rsi
	add r9, rsi
	add r10, rsi
	add r11, rsi
	add r12, rsi
	add r13, rsi
	add r14, rsi
	add r15, rsi
	dec rdi
	jnz 1b
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	ret
	.size bench_probe, .-bench_probe
