/* SPDX-License-Identifier: GPL-2.0-or-later */
/* forker [N] -- forks 2 workers that each run the hot function
 * child_work(N) (default 3000000: an integer hash chain) and exit; the
 * parent waits for both and exits 0 when both did. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline, noipa)) unsigned long child_work(long n, unsigned long seed)
{
	unsigned long x = seed;
	for (long i = 0; i < n; i++)
		x = (x ^ (x >> 13)) * 0x9e3779b97f4a7c15ul + (unsigned long)i;
	return x;
}

int main(int argc, char **argv)
{
	char *end;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 3000000;
	if (argc > 2 || n < 1 || (argc > 1 && *end)) {
		fprintf(stderr, "usage: forker [N]\n");
		return 2;
	}
	fflush(stdout);
	for (int w = 0; w < 2; w++) {
		pid_t p = fork();
		if (p < 0) {
			perror("forker: fork");
			return 1;
		}
		if (p == 0) {
			unsigned long x = child_work(n, (unsigned long)w + 1);
			printf("forker: worker %d: %lx\n", w, x);
			fflush(stdout);
			_exit(0);
		}
	}
	int ok = 0, st;
	while (wait(&st) > 0)
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	printf("forker: %d workers done\n", ok);
	return ok == 2 ? 0 : 1;
}
