/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs saved inputs through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer (make check, any compiler): every file named on the command
 * line, or in a directory named there; without arguments the target's
 * regression inputs and seed corpus, $TESTDIR/fuzz/{regressions,corpus}/NAME.
 * TAP output: a line per regression input, one for the whole corpus (its
 * inputs named in comments); an input that crashes (or leaks, under ASan)
 * kills the run, which the TAP driver reports as an error. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME: the target's name (its corpus directory)"
#endif

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static int ntests, nfailed;
static int quiet;	/* inside the corpus: no TAP line per input */
static size_t nrun;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: %s\n", ++ntests, path, strerror(errno));
		nfailed++;
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		printf("not ok %d - %s: out of memory\n", ++ntests, path);
		nfailed++;
		return -1;
	}
	/* an exact-size copy, so that ASan sees reads past the input */
	uint8_t *in = malloc(n ? n : 1);
	if (!in)
		abort();
	memcpy(in, buf, n);
	free(buf);
	printf("# %s (%zu bytes)\n", path, n);
	fflush(stdout);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	nrun++;
	if (!quiet)
		printf("ok %d - %s\n", ++ntests, path);
	fflush(stdout);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path, int must_exist)
{
	struct stat sb;
	if (stat(path, &sb)) {
		if (must_exist) {
			printf("not ok %d - %s: %s\n", ++ntests, path, strerror(errno));
			nfailed++;
		}
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		run_file(path);
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		printf("not ok %d - %s: %s\n", ++ntests, path, strerror(errno));
		nfailed++;
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn)
				abort();
			names = nn;
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n])
			abort();
		snprintf(names[n], len, "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			run_path(argv[i], 1);
	} else {
		const char *t = getenv("TESTDIR");
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/fuzz/regressions/%s", t && *t ? t : GUS_ABS_SRCDIR "/tests", FUZZ_NAME);
		run_path(dir, 0);
		snprintf(dir, sizeof dir, "%s/fuzz/corpus/%s", t && *t ? t : GUS_ABS_SRCDIR "/tests", FUZZ_NAME);
		quiet = 1;
		nrun = 0;
		int failed_before = nfailed;
		run_path(dir, 0);
		quiet = 0;
		printf("%sok %d - the seed corpus %s (%zu inputs)\n", nfailed > failed_before ? "not " : "", ++ntests,
		       dir, nrun);
	}
	printf("1..%d\n", ntests);
	return nfailed ? 1 : 0;
}
