/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report model's accessors (struct merge_report, merge.h): what every
 * renderer asks of it alike. */
#include <string.h>

#include "merge.h"

const char *merge_report_meta(const struct merge_report *r, const char *key)
{
	for (size_t i = 0; i < r->nmeta; i++)
		if (!strcmp(r->meta[i].key, key))
			return r->meta[i].value;
	return NULL;
}

const char *merge_report_missing(const struct merge_report *r, const char *what)
{
	for (size_t i = 0; i < r->nmissing; i++)
		if (!strcmp(r->missing[i].key, what))
			return r->missing[i].value;
	return NULL;
}
