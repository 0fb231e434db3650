/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernels.c - the compiled kernels of the compiled-code accuracy benchmark
 * (see README.md). Compiled twice, once per build (-O2, and
 * -O3 -march=native), and linked with measure.c into one binary each.
 *
 * Each kernel is written here from its mathematical definition. It is a
 * function `void k_NAME(void)` (never inlined or cloned, so that gus finds
 * it by that symbol) over statically allocated arrays; one call runs the
 * whole kernel once. n_NAME() returns the number of executions of an
 * innermost loop body of the C source per call, computed from the sizes
 * (every innermost loop of the source counts, set-up loops included, as
 * the comment above each kernel says).
 *
 * Sizes: the data of a kernel marked L2 does not fit a 48 KiB L1 data
 * cache (Golden Cove, Zen 5) but fits easily in a 1 MiB L2 (at most about
 * 450 KiB); a kernel marked L1 keeps its data in L1. One call takes some
 * 10k to 600k core cycles.
 *
 * Values stay bounded over any number of calls (outputs are recomputed,
 * updates converge or grow slowly), so that the timing does not drift.
 */
#include <stdint.h>
#include <string.h>

#include "kernels.h"

#define KERNEL __attribute__((noinline, noclone)) void
#define A64 _Alignas(64)

static uint32_t rng = 12345u;

static uint32_t next_u32(void)
{
	rng = rng * 1664525u + 1013904223u;
	return rng;
}

/* uniform in [0, 1) */
static double next_unit(void)
{
	return (double)(next_u32() >> 8) * (1.0 / 16777216.0);
}

/* ------------------------------------------------------ linear algebra */

/* gemm: C = A B, A M x K, B K x N (float). Loop order i, k, j so that the
 * innermost loop runs along rows of B and C. L2: 80 KiB.
 * Innermost: the zeroing of C's row (M N) and the update (M K N). */
#define GM_M 16
#define GM_K 128
#define GM_N 128
static A64 float gm_a[GM_M][GM_K], gm_b[GM_K][GM_N], gm_c[GM_M][GM_N];

KERNEL k_gemm(void)
{
	for (int i = 0; i < GM_M; i++) {
		for (int j = 0; j < GM_N; j++)
			gm_c[i][j] = 0;
		for (int k = 0; k < GM_K; k++) {
			float a = gm_a[i][k];
			for (int j = 0; j < GM_N; j++)
				gm_c[i][j] += a * gm_b[k][j];
		}
	}
}

static long n_gemm(void)
{
	return (long)GM_M * GM_N + (long)GM_M * GM_K * GM_N;
}

/* gemv: y = A x (double), each y[i] a dot product of a row with x: a
 * floating-point reduction that gcc keeps scalar without -ffast-math.
 * L2: 258 KiB. Innermost: M N. */
#define GV_M 128
#define GV_N 256
static A64 double gv_a[GV_M][GV_N], gv_x[GV_N], gv_y[GV_M];

KERNEL k_gemv(void)
{
	for (int i = 0; i < GV_M; i++) {
		double s = 0;
		for (int j = 0; j < GV_N; j++)
			s += gv_a[i][j] * gv_x[j];
		gv_y[i] = s;
	}
}

static long n_gemv(void)
{
	return (long)GV_M * GV_N;
}

/* atax: y = A^T (A x) (float), row by row: t = A[i] . x, then
 * y += t A[i]. L2: 98 KiB. Innermost: zeroing y (N), and per row the dot
 * product and the update (2 M N). */
#define AT_M 96
#define AT_N 256
static A64 float at_a[AT_M][AT_N], at_x[AT_N], at_y[AT_N];

KERNEL k_atax(void)
{
	for (int j = 0; j < AT_N; j++)
		at_y[j] = 0;
	for (int i = 0; i < AT_M; i++) {
		float t = 0;
		for (int j = 0; j < AT_N; j++)
			t += at_a[i][j] * at_x[j];
		for (int j = 0; j < AT_N; j++)
			at_y[j] += at_a[i][j] * t;
	}
}

static long n_atax(void)
{
	return AT_N + 2L * AT_M * AT_N;
}

/* syrk: the lower triangle of C = A^T A (double), A K x N: C[i][j] =
 * sum_k A[k][i] A[k][j], j <= i, in the order i, k, j (the innermost loop
 * along a row of A and of C, its trip count growing with i). L2: 152 KiB
 * (C's triangle 66 KiB). Innermost: zeroing (T = N(N+1)/2) and the
 * update (K T). */
#define SY_K 24
#define SY_N 128
static A64 double sy_a[SY_K][SY_N], sy_c[SY_N][SY_N];

KERNEL k_syrk(void)
{
	for (int i = 0; i < SY_N; i++) {
		for (int j = 0; j <= i; j++)
			sy_c[i][j] = 0;
		for (int k = 0; k < SY_K; k++) {
			double a = sy_a[k][i];
			for (int j = 0; j <= i; j++)
				sy_c[i][j] += a * sy_a[k][j];
		}
	}
}

static long n_syrk(void)
{
	long t = (long)SY_N * (SY_N + 1) / 2;
	return t + SY_K * t;
}

/* trisolv: solve L x = b by forward substitution (double), L lower
 * triangular with a dominant diagonal: x[i] = (b[i] - sum_{j<i} L[i][j]
 * x[j]) / L[i][i]. A reduction per row of growing length, and a divide.
 * L2: the triangle is 257 KiB. Innermost: N(N-1)/2. */
#define TS_N 256
static A64 double ts_l[TS_N][TS_N], ts_b[TS_N], ts_x[TS_N];

KERNEL k_trisolv(void)
{
	for (int i = 0; i < TS_N; i++) {
		double s = ts_b[i];
		for (int j = 0; j < i; j++)
			s -= ts_l[i][j] * ts_x[j];
		ts_x[i] = s / ts_l[i][i];
	}
}

static long n_trisolv(void)
{
	return (long)TS_N * (TS_N - 1) / 2;
}

/* lu: LU decomposition without pivoting, in place (double), of a copy of
 * a diagonally dominant matrix (the copy is a memcpy call: no loop of
 * this function): for each pivot k, the column below it is divided by
 * the pivot and the trailing matrix gets the rank-1 update A[i][j] -=
 * A[i][k] A[k][j]. L2: 100 KiB. Innermost: the update, sum over k of
 * (N-1-k)^2 = (N-1) N (2N-1) / 6. */
#define LU_N 80
static A64 double lu_a[LU_N][LU_N], lu_a0[LU_N][LU_N];

KERNEL k_lu(void)
{
	memcpy(lu_a, lu_a0, sizeof lu_a);
	for (int k = 0; k < LU_N; k++) {
		double piv = lu_a[k][k];
		for (int i = k + 1; i < LU_N; i++) {
			double l = lu_a[i][k] / piv;
			lu_a[i][k] = l;
			for (int j = k + 1; j < LU_N; j++)
				lu_a[i][j] -= l * lu_a[k][j];
		}
	}
}

static long n_lu(void)
{
	return (long)(LU_N - 1) * LU_N * (2 * LU_N - 1) / 6;
}

/* dot: s = x . y (float): one add chain, scalar without -ffast-math.
 * L2: 256 KiB. Innermost: N. */
#define DT_N 32768
static A64 float dt_x[DT_N], dt_y[DT_N];
static float dt_out;

KERNEL k_dot(void)
{
	float s = 0;
	for (int i = 0; i < DT_N; i++)
		s += dt_x[i] * dt_y[i];
	dt_out = s;
}

static long n_dot(void)
{
	return DT_N;
}

/* axpy: y = a x + y (float): streams two arrays in and one out. L2:
 * 256 KiB. Innermost: N. */
#define AX_N 32768
static A64 float ax_x[AX_N], ax_y[AX_N];

KERNEL k_axpy(void)
{
	const float a = 1e-3f;
	for (int i = 0; i < AX_N; i++)
		ax_y[i] += a * ax_x[i];
}

static long n_axpy(void)
{
	return AX_N;
}

/* ------------------------------------------------------------ stencils */

/* The stencils run two time steps, from one grid into the other and back:
 * a loop over the steps calls the step (inlined) with the grids swapped,
 * so that one innermost loop does all of the work. The step's pointers
 * are restrict: the compiler need not check at run time whether the grids
 * overlap. */

/* jacobi1d: two Jacobi steps of the 3-point average (float), a -> b and
 * b -> a, the end points fixed. L2: 256 KiB. Innermost: 2 (N-2). */
#define J1_N 32768
static A64 float j1_a[J1_N], j1_b[J1_N];

static inline void j1_step(float *restrict dst, const float *restrict src)
{
	const float third = 1.0f / 3.0f;
	for (int i = 1; i < J1_N - 1; i++)
		dst[i] = (src[i - 1] + src[i] + src[i + 1]) * third;
}

KERNEL k_jacobi1d(void)
{
	float *src = j1_a, *dst = j1_b;
	for (int t = 0; t < 2; t++) {
		j1_step(dst, src);
		float *x = src;
		src = dst;
		dst = x;
	}
}

static long n_jacobi1d(void)
{
	return 2L * (J1_N - 2);
}

/* jacobi2d: two Jacobi steps of the 5-point average on an N x N grid
 * (float), a -> b and b -> a, the border fixed. L2: 128 KiB.
 * Innermost: 2 (N-2)^2. */
#define J2_N 128
static A64 float j2_a[J2_N][J2_N], j2_b[J2_N][J2_N];

static inline void j2_step(float (*restrict dst)[J2_N], const float (*restrict src)[J2_N])
{
	for (int i = 1; i < J2_N - 1; i++)
		for (int j = 1; j < J2_N - 1; j++)
			dst[i][j] = 0.2f * (src[i][j] + src[i - 1][j] + src[i + 1][j] + src[i][j - 1] +
					    src[i][j + 1]);
}

KERNEL k_jacobi2d(void)
{
	float (*src)[J2_N] = j2_a, (*dst)[J2_N] = j2_b;
	for (int t = 0; t < 2; t++) {
		j2_step(dst, (const float (*)[J2_N])src);
		float (*x)[J2_N] = src;
		src = dst;
		dst = x;
	}
}

static long n_jacobi2d(void)
{
	return 2L * (J2_N - 2) * (J2_N - 2);
}

/* heat: two explicit steps of the heat equation with the 5-point
 * Laplacian (double), u' = u + r (sum of the 4 neighbours - 4 u), u -> v
 * and v -> u, the border fixed. L2: 256 KiB. Innermost: 2 (N-2)^2. */
#define HT_N 128
static A64 double ht_u[HT_N][HT_N], ht_v[HT_N][HT_N];

static inline void ht_step(double (*restrict dst)[HT_N], const double (*restrict src)[HT_N])
{
	const double r = 0.1;
	for (int i = 1; i < HT_N - 1; i++)
		for (int j = 1; j < HT_N - 1; j++)
			dst[i][j] = src[i][j] + r * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] +
						     src[i][j + 1] - 4.0 * src[i][j]);
}

KERNEL k_heat(void)
{
	double (*src)[HT_N] = ht_u, (*dst)[HT_N] = ht_v;
	for (int t = 0; t < 2; t++) {
		ht_step(dst, (const double (*)[HT_N])src);
		double (*x)[HT_N] = src;
		src = dst;
		dst = x;
	}
}

static long n_heat(void)
{
	return 2L * (HT_N - 2) * (HT_N - 2);
}

/* seidel: one Gauss-Seidel sweep of the 5-point average in place
 * (double): each point uses its left neighbour just computed, a
 * loop-carried floating-point chain. L2: 200 KiB. Innermost: (N-2)^2. */
#define SD_N 160
static A64 double sd_a[SD_N][SD_N];

KERNEL k_seidel(void)
{
	for (int i = 1; i < SD_N - 1; i++)
		for (int j = 1; j < SD_N - 1; j++)
			sd_a[i][j] = 0.2 * (sd_a[i - 1][j] + sd_a[i][j - 1] + sd_a[i][j] +
					    sd_a[i][j + 1] + sd_a[i + 1][j]);
}

static long n_seidel(void)
{
	return (long)(SD_N - 2) * (SD_N - 2);
}

/* ------------------------------------------------- dynamic programming */

/* floyd: four steps of Floyd-Warshall on an N x N distance matrix
 * (int32): for pivots k, D[i][j] = min(D[i][j], D[i][k] + D[k][j]) (a
 * min-plus product step). The matrix holds shortest paths already
 * (kernels_init), its fixed point: every call does the same work. L2:
 * 144 KiB. Innermost: 4 N^2. */
#define FW_N 192
#define FW_STEPS 4
static A64 int32_t fw_d[FW_N][FW_N];

KERNEL k_floyd(void)
{
	for (int s = 0; s < FW_STEPS; s++) {
		int k = 7 + 48 * s;
		for (int i = 0; i < FW_N; i++) {
			int32_t dik = fw_d[i][k];
			for (int j = 0; j < FW_N; j++) {
				int32_t v = dik + fw_d[k][j];
				if (v < fw_d[i][j])
					fw_d[i][j] = v;
			}
		}
	}
}

static long n_floyd(void)
{
	return (long)FW_STEPS * FW_N * FW_N;
}

/* editdist: Levenshtein distance of strings of M and N letters, row by
 * row in two rows (int32): cur[j] = min(prev[j] + 1, cur[j-1] + 1,
 * prev[j-1] + (a[i] != b[j-1])), a chain through cur[j-1]. L1: the rows
 * are 16 KiB. Innermost: the first row (N+1) and M N. */
#define ED_M 64
#define ED_N 2048
static A64 char ed_sa[ED_M], ed_sb[ED_N];
static A64 int32_t ed_row[2][ED_N + 1];
static int32_t ed_out;

KERNEL k_editdist(void)
{
	int32_t *prev = ed_row[0], *cur = ed_row[1];
	for (int j = 0; j <= ED_N; j++)
		prev[j] = j;
	for (int i = 0; i < ED_M; i++) {
		char ai = ed_sa[i];
		cur[0] = i + 1;
		for (int j = 1; j <= ED_N; j++) {
			int32_t v = prev[j] + 1;
			int32_t w = cur[j - 1] + 1;
			int32_t d = prev[j - 1] + (ai != ed_sb[j - 1]);
			if (w < v)
				v = w;
			if (d < v)
				v = d;
			cur[j] = v;
		}
		int32_t *t = prev;
		prev = cur;
		cur = t;
	}
	ed_out = prev[ED_N];
}

static long n_editdist(void)
{
	return (ED_N + 1) + (long)ED_M * ED_N;
}

/* lcs: length of the longest common subsequence of strings of M and N
 * letters, two rows (int32): cur[j] = a[i] == b[j-1] ? prev[j-1] + 1 :
 * max(prev[j], cur[j-1]). L1: 16 KiB of rows. Innermost: the first row
 * (N+1) and M N. */
#define LC_M 64
#define LC_N 2048
static A64 char lc_sa[LC_M], lc_sb[LC_N];
static A64 int32_t lc_row[2][LC_N + 1];
static int32_t lc_out;

KERNEL k_lcs(void)
{
	int32_t *prev = lc_row[0], *cur = lc_row[1];
	for (int j = 0; j <= LC_N; j++)
		prev[j] = 0;
	for (int i = 0; i < LC_M; i++) {
		char ai = lc_sa[i];
		cur[0] = 0;
		for (int j = 1; j <= LC_N; j++) {
			int32_t v;
			if (ai == lc_sb[j - 1])
				v = prev[j - 1] + 1;
			else
				v = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
			cur[j] = v;
		}
		int32_t *t = prev;
		prev = cur;
		cur = t;
	}
	lc_out = prev[LC_N];
}

static long n_lcs(void)
{
	return (LC_N + 1) + (long)LC_M * LC_N;
}

/* ---------------------------------------------------------- reductions */

/* sumrestart: sums of consecutive blocks of 100 elements (int32): an
 * inner loop of 100 inside an outer loop over the blocks (a short trip
 * count: vector code spends much of it outside its main loop). L2:
 * 158 KiB. Innermost: NB x 100. */
#define SR_B 100
#define SR_NB 400
static A64 int32_t sr_x[SR_NB * SR_B], sr_out[SR_NB];

KERNEL k_sumrestart(void)
{
	for (int b = 0; b < SR_NB; b++) {
		int32_t s = 0;
		for (int i = 0; i < SR_B; i++)
			s += sr_x[b * SR_B + i];
		sr_out[b] = s;
	}
}

static long n_sumrestart(void)
{
	return (long)SR_NB * SR_B;
}

/* max: the largest element (int32). L2: 256 KiB. Innermost: N. */
#define MX_N 65536
static A64 int32_t mx_x[MX_N];
static int32_t mx_out;

KERNEL k_max(void)
{
	int32_t m = INT32_MIN;
	for (int i = 0; i < MX_N; i++)
		if (mx_x[i] > m)
			m = mx_x[i];
	mx_out = m;
}

static long n_max(void)
{
	return MX_N;
}

/* variance: sum x and sum x^2 in one pass (double, two accumulators, two
 * independent add chains), var = E[x^2] - E[x]^2. L2: 256 KiB.
 * Innermost: N. */
#define VR_N 32768
static A64 double vr_x[VR_N];
static double vr_out;

KERNEL k_variance(void)
{
	double s = 0, s2 = 0;
	for (int i = 0; i < VR_N; i++) {
		s += vr_x[i];
		s2 += vr_x[i] * vr_x[i];
	}
	double mean = s / VR_N;
	vr_out = s2 / VR_N - mean * mean;
}

static long n_variance(void)
{
	return VR_N;
}

/* ---------------------------------------------------- indirect updates */

/* histogram: counts of N 8-bit keys stored as uint16 (uint32 bins):
 * repeated keys make a chain through memory (store to load). The keys
 * stream from L2 (128 KiB), the 1 KiB of bins stay in L1. Innermost:
 * zeroing the bins (B) and N. */
#define HG_N 65536
#define HG_B 256
static A64 uint16_t hg_key[HG_N];
static A64 uint32_t hg_bin[HG_B];

KERNEL k_histogram(void)
{
	for (int b = 0; b < HG_B; b++)
		hg_bin[b] = 0;
	for (int i = 0; i < HG_N; i++)
		hg_bin[hg_key[i]]++;
}

static long n_histogram(void)
{
	return HG_B + (long)HG_N;
}

/* gather: s = sum x[idx[i]] (int32) over a random index array: loads
 * whose addresses depend on other loads (vector gathers where the build
 * uses them). L2: 256 KiB. Innermost: N. */
#define GA_N 32768
#define GA_X 32768
static A64 int32_t ga_x[GA_X], ga_idx[GA_N];
static int32_t ga_out;

KERNEL k_gather(void)
{
	int32_t s = 0;
	for (int i = 0; i < GA_N; i++)
		s += ga_x[ga_idx[i]];
	ga_out = s;
}

static long n_gather(void)
{
	return GA_N;
}

/* spmv: y = A x with A sparse in CSR form (double): row i holds
 * 4 + (7 i mod 25) entries (4 to 28, 16 on average) in random columns:
 * an inner loop of varying trip count, indirect loads of x. L2:
 * 440 KiB. Innermost: the entries, sum over the rows. */
#define SP_ROWS 2048
#define SP_COLS 4096
#define SP_MAXNNZ (SP_ROWS * 28)
static A64 double sp_val[SP_MAXNNZ], sp_x[SP_COLS], sp_y[SP_ROWS];
static A64 int32_t sp_col[SP_MAXNNZ], sp_rowptr[SP_ROWS + 1];

static int sp_row_len(int i)
{
	return 4 + (7 * i) % 25;
}

KERNEL k_spmv(void)
{
	for (int i = 0; i < SP_ROWS; i++) {
		double s = 0;
		for (int k = sp_rowptr[i]; k < sp_rowptr[i + 1]; k++)
			s += sp_val[k] * sp_x[sp_col[k]];
		sp_y[i] = s;
	}
}

static long n_spmv(void)
{
	long n = 0;
	for (int i = 0; i < SP_ROWS; i++)
		n += sp_row_len(i);
	return n;
}

/* --------------------------------------------------------------- table */

#define K(name, data, limit) { #name, k_##name, n_##name, data, limit }
const struct kernel kernels[] = {
	K(gemm, "L2", "FP multiply-add throughput, loads and stores of C"),
	K(gemv, "L2", "FP add latency (dot-product chain)"),
	K(atax, "L2", "FP add latency (dot product) and the y update"),
	K(syrk, "L2", "FP multiply-add throughput, short triangular rows"),
	K(trisolv, "L2", "FP add latency, growing rows, a divide per row"),
	K(lu, "L2", "FP multiply-add throughput, shrinking rows"),
	K(dot, "L2", "FP add latency (one chain)"),
	K(axpy, "L2", "loads and stores from L2"),
	K(jacobi1d, "L2", "FP adds, loads and stores"),
	K(jacobi2d, "L2", "FP adds, loads"),
	K(heat, "L2", "FP adds and multiplies, loads"),
	K(seidel, "L2", "FP latency through the left neighbour"),
	K(floyd, "L2", "loads, integer add and compare (the matrix is converged: no stores)"),
	K(editdist, "L1", "integer min chain through cur[j-1]"),
	K(lcs, "L1", "integer max chain, branches on letters"),
	K(sumrestart, "L2", "short inner loop (100): loop overhead, vector epilogues"),
	K(max, "L2", "loads, integer max (a compare chain when scalar)"),
	K(variance, "L2", "FP add latency (two independent chains)"),
	K(histogram, "L2", "store-to-load chains through repeated bins"),
	K(gather, "L2", "indirect loads (gathers where vectorised), integer adds"),
	K(spmv, "L2", "FP add latency per row, indirect loads, short varying rows"),
};
#undef K
const int nkernels = (int)(sizeof kernels / sizeof kernels[0]);

void kernels_init(void)
{
	rng = 12345u;
	for (int i = 0; i < GM_M; i++)
		for (int k = 0; k < GM_K; k++)
			gm_a[i][k] = (float)next_unit();
	for (int k = 0; k < GM_K; k++)
		for (int j = 0; j < GM_N; j++)
			gm_b[k][j] = (float)next_unit();

	for (int i = 0; i < GV_M; i++)
		for (int j = 0; j < GV_N; j++)
			gv_a[i][j] = next_unit();
	for (int j = 0; j < GV_N; j++)
		gv_x[j] = next_unit();

	for (int i = 0; i < AT_M; i++)
		for (int j = 0; j < AT_N; j++)
			at_a[i][j] = (float)next_unit() * 0.01f;
	for (int j = 0; j < AT_N; j++)
		at_x[j] = (float)next_unit();

	for (int k = 0; k < SY_K; k++)
		for (int j = 0; j < SY_N; j++)
			sy_a[k][j] = next_unit();

	for (int i = 0; i < TS_N; i++) {
		for (int j = 0; j < i; j++)
			ts_l[i][j] = next_unit() / TS_N;
		ts_l[i][i] = 1.0 + next_unit();
		ts_b[i] = next_unit();
	}

	for (int i = 0; i < LU_N; i++) {
		for (int j = 0; j < LU_N; j++)
			lu_a0[i][j] = next_unit();
		lu_a0[i][i] += LU_N;
	}

	for (int i = 0; i < DT_N; i++) {
		dt_x[i] = (float)next_unit();
		dt_y[i] = (float)next_unit();
	}
	for (int i = 0; i < AX_N; i++) {
		ax_x[i] = (float)next_unit();
		ax_y[i] = (float)next_unit();
	}

	for (int i = 0; i < J1_N; i++)
		j1_a[i] = j1_b[i] = 1.0f + (float)next_unit();
	for (int i = 0; i < J2_N; i++)
		for (int j = 0; j < J2_N; j++)
			j2_a[i][j] = j2_b[i][j] = 1.0f + (float)next_unit();
	for (int i = 0; i < HT_N; i++)
		for (int j = 0; j < HT_N; j++)
			ht_u[i][j] = ht_v[i][j] = 1.0 + next_unit();
	for (int i = 0; i < SD_N; i++)
		for (int j = 0; j < SD_N; j++)
			sd_a[i][j] = 1.0 + next_unit();

	for (int i = 0; i < FW_N; i++)
		for (int j = 0; j < FW_N; j++)
			fw_d[i][j] = i == j ? 0 : 1 + (int32_t)(next_u32() % 1000u);
	/* the shortest paths already: the kernel's steps find nothing to
	 * improve, the same work and branches in every call */
	for (int k = 0; k < FW_N; k++)
		for (int i = 0; i < FW_N; i++)
			for (int j = 0; j < FW_N; j++)
				if (fw_d[i][k] + fw_d[k][j] < fw_d[i][j])
					fw_d[i][j] = fw_d[i][k] + fw_d[k][j];

	static const char letters[4] = { 'a', 'c', 'g', 't' };
	for (int i = 0; i < ED_M; i++)
		ed_sa[i] = letters[next_u32() >> 30];
	for (int j = 0; j < ED_N; j++)
		ed_sb[j] = letters[next_u32() >> 30];
	for (int i = 0; i < LC_M; i++)
		lc_sa[i] = letters[next_u32() >> 30];
	for (int j = 0; j < LC_N; j++)
		lc_sb[j] = letters[next_u32() >> 30];

	for (int i = 0; i < SR_NB * SR_B; i++)
		sr_x[i] = (int32_t)(next_u32() % 2001u) - 1000;
	for (int i = 0; i < MX_N; i++)
		mx_x[i] = (int32_t)(next_u32() >> 1);
	for (int i = 0; i < VR_N; i++)
		vr_x[i] = next_unit();

	for (int i = 0; i < HG_N; i++)
		hg_key[i] = (uint16_t)(next_u32() >> 24);
	for (int i = 0; i < GA_X; i++)
		ga_x[i] = (int32_t)(next_u32() % 1000u);
	for (int i = 0; i < GA_N; i++)
		ga_idx[i] = (int32_t)(next_u32() % GA_X);

	int k = 0;
	for (int i = 0; i < SP_ROWS; i++) {
		sp_rowptr[i] = k;
		for (int e = 0; e < sp_row_len(i); e++, k++) {
			sp_val[k] = next_unit();
			sp_col[k] = (int32_t)(next_u32() % SP_COLS);
		}
	}
	sp_rowptr[SP_ROWS] = k;
	for (int j = 0; j < SP_COLS; j++)
		sp_x[j] = next_unit();
}

double kernels_checksum(void)
{
	return gm_c[GM_M - 1][GM_N - 1] + gv_y[GV_M - 1] + at_y[AT_N - 1] + sy_c[SY_N - 1][0] +
	       ts_x[TS_N - 1] + lu_a[LU_N - 1][LU_N - 1] + dt_out + ax_y[AX_N / 2] + j1_a[J1_N / 2] +
	       j2_a[J2_N / 2][J2_N / 2] + ht_u[HT_N / 2][HT_N / 2] + sd_a[SD_N / 2][SD_N / 2] +
	       fw_d[FW_N - 1][0] + ed_out + lc_out + sr_out[SR_NB - 1] + mx_out + vr_out +
	       hg_bin[HG_B - 1] + ga_out + sp_y[SP_ROWS - 1];
}
