/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared by the files of spire/; not for other modules. */
#ifndef GUS_SPIRE_INTERNAL_H
#define GUS_SPIRE_INTERNAL_H

#include <stddef.h>

#include "spire.h"

/* printf into ERR (nothing when ERR is NULL or ERRLEN 0) */
void spire_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
