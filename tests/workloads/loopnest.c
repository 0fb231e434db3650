/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loopnest: two loop nests of the shape compilers emit for dense linear
 * algebra and graph kernels. kernel_gemm scales a row of C (a short loop,
 * 1 % of the time) before its k/j loops (the rest): the loop that
 * `gus sim --function` must pick is the deeper one, not the shorter one.
 * kernel_minplus is a min-plus relaxation over a matrix (three deep).
 * Three functions in assembly, for `gus sim --bin` only (their layout is
 * the point, so no compiler may change it): kernel_rowsums, a sum chain
 * restarted per row (simulated inside its parent loop, rows overlap);
 * kernel_coldtail, whose larger loop sits after the return, where
 * compilers put rare paths; kernel_skipstore, one loop with two paths back
 * to its top, the likely one around a store; kernel_rarescan (run, too),
 * whose inner scan loop starts at one byte in 64 and runs 9 iterations: the
 * outer loop's own instructions are where the time goes; kernel_countdown,
 * rows summed by loops that count a constant down to zero; kernel_trisums,
 * row i summing 2 i + 1 elements (a triangular nest: the inner loop's
 * bound is the outer counter); kernel_rowsums_n, kernel_rowsums over a
 * row count it is given (its outer loop cannot be followed).
 * Usage: loopnest [REPEAT] */
#include <stdio.h>
#include <stdlib.h>

#define NI 60
#define NJ 64
#define NK 56
static double A[NI][NK], B[NK][NJ], C[NI][NJ];

__attribute__((noinline)) void kernel_gemm(double alpha, double beta)
{
	for (int i = 0; i < NI; i++) {
		for (int j = 0; j < NJ; j++)
			C[i][j] *= beta;
		for (int k = 0; k < NK; k++)
			for (int j = 0; j < NJ; j++)
				C[i][j] += alpha * A[i][k] * B[k][j];
	}
}

#define N 48
static int dist[N][N];

__attribute__((noinline)) void kernel_minplus(void)
{
	for (int k = 0; k < N; k++)
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				int via = dist[i][k] + dist[k][j];
				dist[i][j] = dist[i][j] < via ? dist[i][j] : via;
			}
}

__asm__(".text\n"
	".globl kernel_rowsums\n"
	".type kernel_rowsums, @function\n"
	"kernel_rowsums:\n"		/* rdi: 64 rows of 32 doubles, rsi: 64 sums */
	"	xor %ecx, %ecx\n"
	"1:	pxor %xmm1, %xmm1\n"
	"	xor %eax, %eax\n"
	"2:	addsd (%rdi,%rax,8), %xmm1\n"
	"	add $1, %rax\n"
	"	cmp $32, %rax\n"
	"	jne 2b\n"
	"	movsd %xmm1, (%rsi,%rcx,8)\n"
	"	add $256, %rdi\n"
	"	add $1, %rcx\n"
	"	cmp $64, %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".size kernel_rowsums, .-kernel_rowsums\n"
	".globl kernel_coldtail\n"
	".type kernel_coldtail, @function\n"
	"kernel_coldtail:\n"		/* rdi: a count whose sign picks the loop */
	"	xor %eax, %eax\n"
	"	test %rdi, %rdi\n"
	"	js 3f\n"
	"1:	add $1, %rax\n"
	"	cmp $100, %rax\n"
	"	jne 1b\n"
	"2:	ret\n"
	"3:	add $1, %rax\n"
	"	nop\n"
	"	nop\n"
	"	cmp $100, %rax\n"
	"	jne 3b\n"
	"	jmp 2b\n"
	".size kernel_coldtail, .-kernel_coldtail\n"
	".globl kernel_skipstore\n"
	".type kernel_skipstore, @function\n"
	"kernel_skipstore:\n"		/* rdi: 64 ints, negative ones become esi */
	"	xor %eax, %eax\n"
	"	jmp 2f\n"
	"1:	add $1, %rax\n"
	"	cmp $64, %rax\n"
	"	je 3f\n"
	"2:	mov (%rdi,%rax,4), %edx\n"
	"	test %edx, %edx\n"
	"	jns 1b\n"
	"	mov %esi, (%rdi,%rax,4)\n"
	"	add $1, %rax\n"
	"	cmp $64, %rax\n"
	"	jne 2b\n"
	"3:	ret\n"
	".size kernel_skipstore, .-kernel_skipstore\n"
	".globl kernel_rarescan\n"
	".type kernel_rarescan, @function\n"
	"kernel_rarescan:\n"		/* rdi: bytes, rsi: their count; a 0xff starts a scan */
	"	xor %eax, %eax\n"
	"	xor %ecx, %ecx\n"
	"1:	movzbl (%rdi,%rcx), %edx\n"
	"	add %rdx, %rax\n"
	"	imul $3, %rax, %rax\n"
	"	cmp $0xff, %edx\n"
	"	jne 3f\n"
	"2:	add $1, %rdx\n"
	"	cmp $0x108, %rdx\n"
	"	jne 2b\n"
	"	add %rdx, %rax\n"
	"3:	add $1, %rcx\n"
	"	cmp %rsi, %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".size kernel_rarescan, .-kernel_rarescan\n"
	".globl kernel_countdown\n"
	".type kernel_countdown, @function\n"
	"kernel_countdown:\n"		/* rdi: 100 rows of 24 doubles, rsi: 100 sums */
	"	mov $100, %r8d\n"
	"1:	pxor %xmm1, %xmm1\n"
	"	mov $24, %ecx\n"
	"2:	addsd -8(%rdi,%rcx,8), %xmm1\n"
	"	dec %ecx\n"
	"	jnz 2b\n"
	"	movsd %xmm1, (%rsi)\n"
	"	add $192, %rdi\n"
	"	add $8, %rsi\n"
	"	sub $1, %r8d\n"
	"	jnz 1b\n"
	"	ret\n"
	".size kernel_countdown, .-kernel_countdown\n"
	".globl kernel_trisums\n"
	".type kernel_trisums, @function\n"
	"kernel_trisums:\n"		/* rdi: 64 rows of 128 doubles, rsi: 64 sums of 2 i + 1 */
	"	xor %ecx, %ecx\n"
	"1:	pxor %xmm1, %xmm1\n"
	"	lea 1(%rcx,%rcx), %rdx\n"
	"	xor %eax, %eax\n"
	"2:	addsd (%rdi,%rax,8), %xmm1\n"
	"	add $1, %rax\n"
	"	cmp %rdx, %rax\n"
	"	jne 2b\n"
	"	movsd %xmm1, (%rsi,%rcx,8)\n"
	"	add $1024, %rdi\n"
	"	add $1, %rcx\n"
	"	cmp $64, %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".size kernel_trisums, .-kernel_trisums\n"
	".globl kernel_rowsums_n\n"
	".type kernel_rowsums_n, @function\n"
	"kernel_rowsums_n:\n"		/* kernel_rowsums over rdx rows */
	"	xor %ecx, %ecx\n"
	"1:	pxor %xmm1, %xmm1\n"
	"	xor %eax, %eax\n"
	"2:	addsd (%rdi,%rax,8), %xmm1\n"
	"	add $1, %rax\n"
	"	cmp $32, %rax\n"
	"	jne 2b\n"
	"	movsd %xmm1, (%rsi,%rcx,8)\n"
	"	add $256, %rdi\n"
	"	add $1, %rcx\n"
	"	cmp %rdx, %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".size kernel_rowsums_n, .-kernel_rowsums_n\n");

long kernel_rarescan(const unsigned char *bytes, long n);
static unsigned char scan_bytes[4096];
static volatile long scan_sink;

int main(int argc, char **argv)
{
	int repeat = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < NI; i++)
		for (int k = 0; k < NK; k++)
			A[i][k] = (i * k % 7) / 7.0;
	for (int k = 0; k < NK; k++)
		for (int j = 0; j < NJ; j++)
			B[k][j] = (k + j) % 5;
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			dist[i][j] = (i * j) % 7 + 1;
	for (int i = 0; i < 4096; i++)
		scan_bytes[i] = i % 64 == 5 ? 0xff : (unsigned char)(i & 0x7f);
	for (int r = 0; r < repeat; r++) {
		kernel_gemm(1.5, 0.5);
		kernel_minplus();
		scan_sink = kernel_rarescan(scan_bytes, 4096);
	}
	printf("%f %d\n", C[1][2], dist[3][4]);
	return 0;
}
