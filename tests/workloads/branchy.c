/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PT round trip's program: conditional branches, direct calls and
 * returns, a switch compiled to a jump table (an indirect jump), calls
 * through function pointers, recursion and loops. Deterministic: the
 * same run every time, so QEMU's trace of it is a ground truth. */
#include <stdio.h>

static unsigned seed = 12345;

__attribute__((noinline)) static unsigned next_rand(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) & 0x7fff;
}

/* dense cases: gcc emits a jump table (checked with objdump) */
__attribute__((noinline)) static int dispatch(int op, int x)
{
	switch (op) {
	case 0:
		return x + 1;
	case 1:
		return x * 3;
	case 2:
		return x - 7;
	case 3:
		return x ^ 0x55;
	case 4:
		return x << 2;
	case 5:
		return x >> 1;
	case 6:
		return x | 0x100;
	case 7:
		return x & 0xff;
	case 8:
		return -x;
	case 9:
		return x * x;
	default:
		return 0;
	}
}

__attribute__((noinline)) static int add_one(int x)
{
	return x + 1;
}

__attribute__((noinline)) static int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) static int halve(int x)
{
	return x / 2;
}

static int (*const fns[3])(int) = { add_one, twice, halve };

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int collatz(unsigned x)
{
	int steps = 0;
	while (x != 1) {
		if (x & 1)
			x = 3 * x + 1;
		else
			x /= 2;
		steps++;
	}
	return steps;
}

__attribute__((noinline)) static int work(int rounds)
{
	int acc = 0;
	for (int i = 0; i < rounds; i++) {
		unsigned r = next_rand();
		acc += dispatch((int)(r % 11), acc & 0xffff);
		acc = fns[r % 3](acc) & 0xfffff;
		if (r & 4)
			acc += collatz(r % 97 + 1);
		if ((r & 31) == 0)
			acc += fib(8);
	}
	return acc;
}

int main(void)
{
	int v = work(300);
	printf("branchy %d\n", v);
	return 0;
}
