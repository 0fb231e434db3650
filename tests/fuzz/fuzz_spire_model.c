/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE model files (gus-spire(1), FILE FORMAT): spire_model_read, then
 * every roofline evaluated, the model written back, and a fixture's
 * samples analyzed with it. */
#include <math.h>

#include "fuzz.h"
#include "spire.h"

static struct spire_sampleset samples;
static FILE *devnull;

/* freed at exit, so that LeakSanitizer reports only what inputs leak */
static void free_samples(void)
{
	spire_sampleset_free(&samples);
	fclose(devnull);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/spire/workload-mem.csv", fuzz_srcdir());
	FILE *f = fopen(path, "r");
	if (!f || spire_sampleset_init(&samples, NULL, NULL) ||
	    spire_import_perf_intervals(f, path, &samples, err, sizeof err)) {
		fprintf(stderr, "fuzz_spire_model: %s\n", f ? err : path);
		exit(1);
	}
	fclose(f);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	atexit(free_samples);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *buf;
	struct spire_model m = { 0 };
	FILE *f = fuzz_file(data, size, &buf);
	int rc = spire_model_read(f, "fuzz.model", &m, err, sizeof err);
	fclose(f);
	free(buf);
	if (!rc) {
		static const double at[] = { 0, 1e-9, 0.5, 1, 3, 1e3, 1e300, INFINITY };
		double sum = 0;
		for (size_t r = 0; r < m.n; r++)
			for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
				sum += spire_roofline_eval(&m.r[r], at[k]);
		if (m.n)
			spire_model_find(&m, m.r[0].metric);
		spire_model_write(devnull, &m);
		struct spire_analysis a = { 0 };
		char warn[256];
		spire_cpu_check(&m, &samples, warn, sizeof warn, err, sizeof err);
		if (!spire_analyze(&m, &samples, &a, err, sizeof err))
			spire_analysis_free(&a);
		(void)sum;
	}
	spire_model_free(&m);
	return 0;
}
