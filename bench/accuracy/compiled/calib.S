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
