/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/kallsyms's text (gus record names the kernel frames of its
 * samples from it): collect_kallsyms_parse, then lookups at each parsed
 * function's bounds and at addresses taken from the input, which must
 * land in the function they name. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct collect_kallsyms *k;
	char err[COLLECT_ERRLEN];
	if (collect_kallsyms_parse(text, size, &k, err, sizeof err))
		return 0;
	for (size_t i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t a;
		memcpy(&a, data + i, sizeof a);
		const struct collect_ksym *f = collect_kallsyms_find(k, a);
		if (f && (a < f->start || a >= f->end || !f->name[0]))
			abort();
		if (f && collect_kallsyms_find(k, f->start) != f)
			abort();
	}
	collect_kallsyms_free(k);
	return 0;
}
