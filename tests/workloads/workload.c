/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small, predictable program for gus's command-line tests:
 *   workload spin SECONDS        burn SECONDS of CPU time (not wall time:
 *                                counts stay predictable on a loaded machine)
 *   workload exit CODE           exit with CODE
 *   workload sleep SECONDS       sleep (a target for signals)
 *   workload fork N SECONDS      N child processes spin SECONDS each
 *   workload touch PAGES         fault in PAGES fresh pages
 *   workload kill SIGNAL         die by SIGNAL
 *   workload stdout-lines N      print N lines (output must pass through)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

/* a named hot loop (an LCG: a multiply-add chain) for gus sim --bin */
__attribute__((noinline)) unsigned long spin_loop(unsigned long x, int n);
__attribute__((noinline)) unsigned long spin_loop(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static void spin(double seconds)
{
	double end = cpu_seconds() + seconds;
	unsigned long x = 1;
	while (cpu_seconds() < end)
		x = spin_loop(x, 100000);
	sink = x;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: workload spin|exit|sleep|fork|touch|kill|stdout-lines ARG...\n");
		return 2;
	}
	const char *mode = argv[1];
	if (!strcmp(mode, "spin")) {
		spin(atof(argv[2]));
	} else if (!strcmp(mode, "exit")) {
		return atoi(argv[2]);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec ts = { .tv_sec = atoi(argv[2]) };
		while (nanosleep(&ts, &ts) != 0)
			;
	} else if (!strcmp(mode, "fork")) {
		int n = atoi(argv[2]);
		double s = argc > 3 ? atof(argv[3]) : 0.2;
		for (int i = 0; i < n; i++)
			if (fork() == 0) {
				spin(s);
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
	} else if (!strcmp(mode, "touch")) {
		long pages = atol(argv[2]), ps = sysconf(_SC_PAGESIZE);
		char *p = mmap(NULL, (size_t)(pages * ps), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (long i = 0; i < pages; i++)
			p[i * ps] = 1;
	} else if (!strcmp(mode, "kill")) {
		raise(atoi(argv[2]));
	} else if (!strcmp(mode, "stdout-lines")) {
		for (int i = 0; i < atoi(argv[2]); i++)
			printf("line %d\n", i);
	} else {
		fprintf(stderr, "workload: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
