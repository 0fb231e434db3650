/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callers [N [PER_CALL]]: one hot function, two callers with known shares of it.
 * Hot function hot_chain: a dependent chain of integer multiply-adds, N
 * steps in all; from_major asks for three quarters of them and from_minor
 * for one quarter, in calls of the same size, so that the call chains of
 * gus record -g give hot_chain's callers as 75 % and 25 %. Built with
 * frame pointers: the kernel unwinds user stacks by them. Default
 * N = 200000000, in calls of PER_CALL steps (default 1000000; fewer make
 * calls short beside a trace's windows). Prints the sum. */
#include <stdio.h>
#include <stdlib.h>

#ifdef __has_attribute
#if __has_attribute(noipa)
#define HOT_FUNCTION __attribute__((noinline, noipa))
#endif
#endif
#ifndef HOT_FUNCTION
#define HOT_FUNCTION __attribute__((noinline))
#endif

/* calls of this many steps: many calls from each caller, interleaved */
#define STEPS_PER_CALL 1000000L
static long per_call = STEPS_PER_CALL;

HOT_FUNCTION unsigned long hot_chain(unsigned long x, long steps);
HOT_FUNCTION unsigned long from_major(long calls);
HOT_FUNCTION unsigned long from_minor(long calls);

/* calls of hot_chain, counted by a call of its own: a leaf function gets
 * no frame pointer from gcc 12 whatever the options, and the kernel's
 * unwinding would skip its caller */
static long chain_calls;
HOT_FUNCTION void count_call(void);
HOT_FUNCTION void count_call(void)
{
	chain_calls++;
}

HOT_FUNCTION unsigned long hot_chain(unsigned long x, long steps)
{
	count_call();
	for (long i = 0; i < steps; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* each call's result is used after it, so that no call is a tail call
 * (a jump leaves no frame of the caller) */
HOT_FUNCTION unsigned long from_major(long calls)
{
	unsigned long s = 0;
	for (long i = 0; i < calls; i++)
		s ^= hot_chain((unsigned long)i, per_call) + 1;
	return s;
}

HOT_FUNCTION unsigned long from_minor(long calls)
{
	unsigned long s = 0;
	for (long i = 0; i < calls; i++)
		s ^= hot_chain((unsigned long)i + 7, per_call) + 1;
	return s;
}

int main(int argc, char **argv)
{
	long n = 200000000;

	if (argc > 2) {
		char *end;
		per_call = strtol(argv[2], &end, 10);
		if (*argv[2] == '\0' || *end != '\0' || per_call < 1 || per_call > STEPS_PER_CALL) {
			fprintf(stderr, "usage: callers [STEPS [PER_CALL, 1 to %ld]]\n", STEPS_PER_CALL);
			return 2;
		}
	}
	if (argc > 1) {
		char *end;
		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || n < 4 * per_call) {
			fprintf(stderr, "usage: callers [STEPS, at least %ld [PER_CALL]]\n", 4 * per_call);
			return 2;
		}
	}
	long quarter = n / 4 / per_call;
	unsigned long s = 0;
	/* interleaved: a sampling hiccup hits both callers alike */
	for (long i = 0; i < quarter; i++)
		s += from_major(3) + from_minor(1);
	printf("callers: calls=%ld steps=%ld sum=%lu\n", chain_calls, 4 * quarter * per_call, s);
	return 0;
}
