/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the fuzz targets (tests/fuzz/fuzz_*.c): the libFuzzer entry
 * point's prototype and small helpers. Each target is linked either with
 * libFuzzer (make fuzz, configure --enable-fuzzing) or with driver.c,
 * which runs saved inputs through the same entry point (make check). */
#ifndef GUS_FUZZ_H
#define GUS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* DATA as a NUL-terminated string (a copy; free it) */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* DATA as a read-only stream (fmemopen of a copy; *BUF is freed by the
 * caller after fclose) */
static inline FILE *fuzz_file(const uint8_t *data, size_t size, char **buf)
{
	*buf = fuzz_cstr(data, size);
	/* fmemopen of 0 bytes fails with EINVAL before glibc 2.22: give it
	 * the NUL and let the size hide it */
	FILE *f = fmemopen(*buf, size ? size : 1, "r");
	if (!f)
		abort();
	if (!size)
		fgetc(f);
	return f;
}

/* the source tree (data/, fixtures): $GUS_TOP, else the configured one */
static inline const char *fuzz_srcdir(void)
{
	const char *t = getenv("GUS_TOP");
	return t && *t ? t : GUS_ABS_SRCDIR;
}

#endif
