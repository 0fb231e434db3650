/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the files of src/merge/. */
#ifndef GUS_MG_INTERNAL_H
#define GUS_MG_INTERNAL_H

#include <stddef.h>

typedef struct Elf Elf;
/* an x86-64 ELF file that is not a relocatable object; ERR names PATH */
Elf *mg_open_elf(const char *path, int *fd, char *err, size_t errlen);

#endif
