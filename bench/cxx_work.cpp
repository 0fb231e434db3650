// SPDX-License-Identifier: GPL-2.0-or-later
// The C++ program of bench/real_programs.sh: std::sort of pseudo-random
// doubles, then a dense matrix product, both sized by the first argument
// (default 1), about a second natively at 1 on a 2-core VM.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double product(const std::vector<double> &a, const std::vector<double> &b, std::vector<double> &c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n; k++) {
			double x = a[i * n + k];
			for (size_t j = 0; j < n; j++)
				c[i * n + j] += x * b[k * n + j];
		}
	double s = 0;
	for (double v : c)
		s += v;
	return s;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1;
	if (!(scale > 0 && scale <= 100)) {
		fprintf(stderr, "usage: cxx_work [SCALE]\n");
		return 2;
	}
	size_t m = (size_t)(3000000 * scale), n = (size_t)(320 * (scale < 1 ? scale : 1) + 0.5);
	uint64_t x = 88172645463325252ULL;
	std::vector<double> v(m);
	for (double &d : v) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		d = (double)(x >> 11) / 9007199254740992.0;
	}
	std::sort(v.begin(), v.end());
	std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
	for (size_t i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) - 3;
		b[i] = (double)(i % 5) * 0.5;
	}
	double s = 0;
	for (int r = 0; r < (int)(scale < 1 ? 1 : scale); r++)
		s += product(a, b, c, n);
	printf("cxx_work: median %.6f, product %.1f\n", v[m / 2], s);
	return 0;
}
