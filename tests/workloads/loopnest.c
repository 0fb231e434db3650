/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loopnest: two loop nests of the shape compilers emit for dense linear
 * algebra and graph kernels. kernel_gemm scales a row of C (a short loop,
 * 1 % of the time) before its k/j loops (the rest): the loop that
 * `gus sim --function` must pick is the deeper one, not the shorter one.
 * kernel_minplus is a min-plus relaxation over a matrix (three deep).
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
	for (int r = 0; r < repeat; r++) {
		kernel_gemm(1.5, 0.5);
		kernel_minplus();
	}
	printf("%f %d\n", C[1][2], dist[3][4]);
	return 0;
}
