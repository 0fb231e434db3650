/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagecross [COUNT [mid]]: a loop with an instruction across a page
 * boundary, COUNT times (default 1000). The tracer must send that
 * instruction whole, once per execution (tests/cli/test_trace.sh).
 *
 * cross_loop: its 10-byte movabs starts 1 byte before the boundary. QEMU
 * 7.2 tells a plugin of it twice: in the block it ends early, with the one
 * byte it fetched there (the REX prefix, up to the boundary), then as the
 * next block's first.
 *
 * cross_mid_loop ("mid"): the loop's block goes on past its page-crossing
 * instruction, an 8-byte load starting 5 bytes before the boundary whose
 * disp32 crosses (as in liblzma's "44 8b 8c 87 ..."). QEMU 7.2 gives the
 * plugin its first 4 bytes in the block of the two adds before it, bytes
 * that stop one short of the boundary, then the whole load as the first of
 * a block of its own, and the rest of the loop in a third. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long cross_loop(long count);
long cross_mid_loop(long count, const int *p);
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
	".size cross_loop, .-cross_loop\n"
	".globl cross_mid_loop\n"
	".type cross_mid_loop,@function\n"
	".p2align 12\n"
	"cross_mid_loop:\n"
	"	mov %rdi, %rcx\n"
	"	xor %eax, %eax\n"
	"	xor %edx, %edx\n"
	"	jmp 1f\n"
	"	.p2align 12\n"
	"	.skip 4096-13\n"
	"1:	add $1, %r10\n"			/* 4 bytes, page end - 13 */
	"	add $2, %r11\n"			/* 4 bytes, page end - 9 */
	/* 44 8b 8c 86 00 00 00 00, from page end - 5: the disp32 crosses */
	"	{disp32} mov 0(%rsi,%rax,4), %r9d\n"
	"	add %r9, %rdx\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	mov %rdx, %rax\n"
	"	ret\n"
	".size cross_mid_loop, .-cross_mid_loop\n");

int main(int argc, char **argv)
{
	static const int one = 1;
	long count = argc > 1 ? atol(argv[1]) : 1000;
	if (argc > 2 && !strcmp(argv[2], "mid"))
		printf("%ld\n", cross_mid_loop(count, &one));
	else
		printf("%ld\n", cross_loop(count));
	return 0;
}
