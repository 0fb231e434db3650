/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the renderers of src/merge/. */
#ifndef GUS_MG_INTERNAL_H
#define GUS_MG_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "topdown.h"

typedef struct Elf Elf;
/* an x86-64 ELF file that is not a relocatable object; ERR names PATH */
Elf *mg_open_elf(const char *path, int *fd, char *err, size_t errlen);

/* "% slots", "% clocks", ...: what a node's percentage is a share of */
const char *mg_unit_label(enum td_unit u);
/* "ok", "not-computable", "mismeasured", "not-selected" */
const char *mg_status_name(enum td_status s);

/* Text for SVG element content and attribute values (tmasvg.c): '<', '>',
 * '&' and '"' escaped; control characters XML 1.0 does not allow (all
 * but tab and newlines) become '?' rather than making the file unreadable. */
void mg_xml_text(FILE *out, const char *s);

/* perf stat's words for an event without a value: "<not supported>"
 * where the kernel refused it (collect's "not supported: WHY"), else
 * "<not counted>"; and the reason without that prefix */
struct td_count;
const char *mg_uncounted_word(const struct td_count *c);
const char *mg_uncounted_why(const struct td_count *c);

#endif
