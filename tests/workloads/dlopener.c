/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlopener [N [LIB]] -- dlopen's LIB (default libhot.so beside the
 * program, from argv[0]'s directory) and calls its lib_collatz(N)
 * (default 300000): hot code in an object mapped at run time. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char *end;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 300000;
	if (argc > 3 || n < 1 || (argc > 1 && *end)) {
		fprintf(stderr, "usage: dlopener [N [LIB]]\n");
		return 2;
	}
	char lib[4096];
	if (argc > 2)
		snprintf(lib, sizeof(lib), "%s", argv[2]);
	else {
		const char *slash = strrchr(argv[0], '/');
		snprintf(lib, sizeof(lib), "%.*slibhot.so", slash ? (int)(slash - argv[0] + 1) : 2,
			 slash ? argv[0] : "./");
	}
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	long (*collatz)(long) = (long (*)(long))dlsym(h, "lib_collatz");
	if (!collatz) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	printf("dlopener: %ld steps\n", collatz(n));
	dlclose(h);
	return 0;
}
