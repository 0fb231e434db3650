/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coldcall [CALLS]: two shapes of stream that once gave the model
 * impossible numbers (tests/cli/test_sim_invariants.sh).
 * cold_once: 88 instructions (one load from a line nothing touched
 * before, then 86 ALU instructions, half of them on the loaded value, and
 * the ret), called once: a stream of 88 records whose warm-up quarter ends
 * behind a miss.
 * btb_chain: 5000 direct jumps, each to the next, and a ret, called CALLS
 * times (default 20): more jump targets than a BTB holds, so every jump is
 * a redirect for a target the BTB lacked, and no branch is conditional. */
#include <stdio.h>
#include <stdlib.h>

long cold_once(const long *p);
void btb_chain(void);
__asm__(".text\n"
	".globl cold_once\n"
	".type cold_once,@function\n"
	".p2align 6\n"
	"cold_once:\n"
	"	mov (%rdi), %rax\n"
	"	mov $1, %rdx\n"
	"	.rept 21\n"
	"	add $3, %rdx\n"
	"	add %rdx, %rax\n"
	"	xor $5, %rcx\n"
	"	add %rcx, %rax\n"
	"	.endr\n"
	"	inc %rcx\n"
	"	ret\n"
	".size cold_once, .-cold_once\n"
	".globl btb_chain\n"
	".type btb_chain,@function\n"
	".p2align 6\n"
	"btb_chain:\n"
	"	.rept 5000\n"
	"	jmp 1f\n"
	"1:\n"
	"	.endr\n"
	"	ret\n"
	".size btb_chain, .-btb_chain\n");

static long cold[1 << 16];

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20;
	if (calls < 1) {
		fprintf(stderr, "usage: coldcall [CALLS >= 1]\n");
		return 2;
	}
	cold[4096] = argc;
	long r = cold_once(&cold[4096]);
	for (long i = 0; i < calls; i++)
		btb_chain();
	printf("%ld\n", r);
	return 0;
}
