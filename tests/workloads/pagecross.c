/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagecross: a loop whose 10-byte movabs starts 1 byte before a page
 * boundary, COUNT times (default 1000). QEMU 7.2 tells a plugin of such an
 * instruction twice (in the block it ends early, then as the next block's
 * first); the tracer must send it once per execution
 * (tests/cli/test_trace.sh). */
#include <stdio.h>
#include <stdlib.h>

long cross_loop(long count);
__asm__(".text\n"
	".globl cross_loop\n"
	".type cross_loop,@function\n"
	".p2align 12\n"
	"cross_loop:\n"
	"	mov %rdi, %rcx\n"
	"	xor %eax, %eax\n"
	"	jmp 1f\n"
	"	.p2align 12\n"
	"	.skip 4096-9\n"
	"1:	add $1, %rax\n"			/* 4 bytes, page end - 9 */
	"	add $2, %rdx\n"			/* 4 bytes, page end - 5 */
	"	movabs $0x1122334455667788, %r8\n"	/* 10 bytes from page end - 1 */
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	".size cross_loop, .-cross_loop\n");

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 1000;
	printf("%ld\n", cross_loop(count));
	return 0;
}
