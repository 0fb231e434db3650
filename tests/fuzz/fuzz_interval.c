/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf stat -I -x output read as SPIRE samples
 * (spire_import_perf_intervals), then a model trained on them and the
 * samples analyzed with it. */
#include "fuzz.h"
#include "spire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *buf;
	struct spire_sampleset ss;
	if (spire_sampleset_init(&ss, NULL, NULL))
		abort();
	FILE *f = fuzz_file(data, size, &buf);
	int rc = spire_import_perf_intervals(f, "fuzz.csv", &ss, err, sizeof err);
	fclose(f);
	free(buf);
	if (!rc) {
		struct spire_model m = { 0 };
		size_t skipped = 0;
		if (!spire_train(&ss, NULL, 0, &m, &skipped, NULL, NULL, err, sizeof err)) {
			struct spire_analysis a = { 0 };
			char warn[256];
			spire_cpu_check(&m, &ss, warn, sizeof warn, err, sizeof err);
			if (!spire_analyze(&m, &ss, &a, err, sizeof err))
				spire_analysis_free(&a);
		}
		spire_model_free(&m);
	}
	spire_sampleset_free(&ss);
	return 0;
}
