/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib.S - the clock calibration of the compiled-code benchmark: a chain
 * of dependent 64-bit imuls (3 cycles each). An add chain with an
 * immediate would not do: Golden Cove folds add/sub r64,imm at rename. */
#include "kernels.h"

	.intel_syntax noprefix
	.section .note.GNU-stack,"",@progbits
	.text

/* void cb_imul_chain(uint64_t iters): iters x CB_IMULS dependent imuls.
 * rcx holds 1: the product never changes, and no core folds a multiply
 * by a register whose value it would have to know. */
	.globl cb_imul_chain
	.type cb_imul_chain, @function
	.p2align 6
cb_imul_chain:
	mov eax, 7
	mov ecx, 1
	.p2align 6
1:
	.rept CB_IMULS
	imul rax, rcx
	.endr
	dec rdi
	jnz 1b
	ret
	.size cb_imul_chain, .-cb_imul_chain

/* void cb_probe(uint64_t iters): iters x CB_PROBE_ADDS independent adds
 * of a register (no immediate for the renamer to fold), bound by the
 * issue width and the ALU ports: it slows down when another thread shares
 * the core (a neighbour on the SMT sibling), which the imul chain hardly
 * notices */
	.globl cb_probe
	.type cb_probe, @function
	.p2align 6
cb_probe:
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
	.size cb_probe, .-cb_probe
