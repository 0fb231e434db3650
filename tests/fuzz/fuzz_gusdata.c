/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The contents of a gus.data recording: the input is the SQLite file.
 * It is written to a scratch file and read by gus report itself
 * (cmd_report: gusdata_open, every read function, the regions'
 * simulation from the stored trace, the cache of results), twice: a
 * text report that fills the cache, then a JSON one with a SPIRE model,
 * SVG files and the call stacks' exports (--pprof, --folded) that reads
 * it back. Output goes to /dev/null. */
#include <dirent.h>
#include <getopt.h>
#include <unistd.h>

#include "cmd.h"
#include "fuzz.h"

static char dir[256], path[300], wal[310], shm[310], journal[320], svgdir[300], model[4096];

static void clean(void);

/* the scratch directory (and the SVG files of the last input) go at exit */
static void remove_dir(void)
{
	clean();
	DIR *d = opendir(svgdir);
	if (d) {
		struct dirent *e;
		char p[600];
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof p, "%s/%s", svgdir, e->d_name);
				unlink(p);
			}
		closedir(d);
		rmdir(svgdir);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char data[4096];
	snprintf(data, sizeof data, "%s/data", fuzz_srcdir());
	setenv("GUS_DATADIR", data, 0);
	/* the hand-written TMA tables: the source tree's, whatever the build */
	char tma[4200];
	snprintf(tma, sizeof tma, "%s/tma/hand", data);
	setenv("GUS_TMA_PATH", tma, 0);
	snprintf(model, sizeof model, "%s/tests/fuzz/gusdata.model", fuzz_srcdir());
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/fuzz-gusdata-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("fuzz_gusdata: mkdtemp");
		exit(1);
	}
	snprintf(path, sizeof path, "%s/in.data", dir);
	snprintf(wal, sizeof wal, "%s-wal", path);
	snprintf(shm, sizeof shm, "%s-shm", path);
	snprintf(journal, sizeof journal, "%s-journal", path);
	snprintf(svgdir, sizeof svgdir, "%s/svg", dir);
	atexit(remove_dir);
	return 0;
}

static void clean(void)
{
	unlink(path);
	unlink(wal);
	unlink(shm);
	unlink(journal);
}

static void report(char **args)
{
	int argc = 0;
	while (args[argc])
		argc++;
	optind = 0;	/* glibc: full re-initialization of getopt */
	cmd_report(argc, args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	clean();
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	char *a1[] = { "report", "-i", path, "-o", "/dev/null", "-q", "-j", "1", NULL };
	report(a1);
	char *a2[] = { "report", "-i", path, "-o", "/dev/null", "-q", "-j", "1", "--json", "--spire", model,
		       "--svg", svgdir, "--pprof", "/dev/null", "--folded", "/dev/null", NULL };
	report(a2);
	clean();
	return 0;
}
