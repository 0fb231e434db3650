/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE metric sets (data/spire/FORMAT): spire_metricset_parse, then
 * lookups by abbreviation and by event name. */
#include "fuzz.h"
#include "spire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *text = fuzz_cstr(data, size);
	struct spire_metricset *s = spire_metricset_parse(text, "fuzz.metrics", err, sizeof err);
	free(text);
	if (!s)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		spire_metricset_find(s, s->m[i].abbr);
		spire_metricset_find(s, s->m[i].event);
	}
	spire_metricset_find(s, "db.2");
	spire_metricset_free(s);
	return 0;
}
