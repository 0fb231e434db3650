/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small C loops whose gcc -O3 -march=skylake-avx512 inner loops are the
 * "compiled" kernels of kernels.txt. Not built by run.sh: the bodies were
 * taken from `gcc -O3 -march=skylake-avx512 -S compiled.c` (gcc 12) and
 * rewritten to the harness register conventions (see README.md).
 */
#include <stddef.h>
#include <stdint.h>

void saxpy(float *restrict y, const float *restrict x, float a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] += a * x[i];
}

double ddot(const double *restrict x, const double *restrict y, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

int32_t idot(const int32_t *restrict x, const int32_t *restrict y, size_t n)
{
	int32_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

void jacobi1d(float *restrict out, const float *restrict in, size_t n)
{
	for (size_t i = 1; i + 1 < n; i++)
		out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
}

void prefix_sum(int64_t *restrict out, const int64_t *restrict in, size_t n)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		s += in[i];
		out[i] = s;
	}
}

uint64_t fnv_words(const uint64_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

void xor_copy(uint32_t *restrict dst, const uint32_t *restrict src, uint32_t key, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i] ^ key;
}

void clampf(float *restrict out, const float *restrict in, float lo, float hi, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float v = in[i];
		v = v < lo ? lo : v;
		out[i] = v > hi ? hi : v;
	}
}

void horner(float *restrict out, const float *restrict x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float v = x[i];
		out[i] = ((0.5f * v + 0.25f) * v + 0.125f) * v + 1.0f;
	}
}

size_t count_eq(const int32_t *p, int32_t key, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += p[i] == key;
	return c;
}

void xorshift_fill(uint64_t *out, uint64_t x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[i] = x;
	}
}

int64_t sum_abs_scalar(const int64_t *p, size_t n)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t v = p[i];
		s += v < 0 ? -v : v;
		__asm__("" : "+r"(s));	/* keep it scalar */
	}
	return s;
}

int32_t isum(const int32_t *p, size_t n)
{
	int32_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}
