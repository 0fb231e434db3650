/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ELF and DWARF of a mutated file: the input is the file (a memfd named
 * by its /proc/self/fd path). Its symbol table (merge_symtab_load and
 * lookups), gus sim --bin's function and range lookup (merge_elf_function,
 * merge_elf_range, merge_elf_symbol), the load bias of an executable
 * mapping, and source lines through libdw; function bounds from
 * .eh_frame (libdw's CFI), the build-id note, file offsets, and the
 * DT_NEEDED/DT_RUNPATH walk of merge_elf_libraries (merge_srclines_open,
 * merge_srcline) over the function's addresses. */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "merge.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fd = memfd_create("fuzz-elf", 0);
	if (fd < 0) {
		perror("fuzz_elf: memfd_create");
		exit(1);
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return 0;
}

static void lines(struct merge_srclines *sl, uint64_t start, uint64_t len)
{
	const char *file;
	int line;
	if (len > 4096)
		len = 4096;
	for (uint64_t a = start; a < start + len; a += 3)
		if (merge_srcline(sl, a, &file, &line))
			(void)strlen(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	char err[512];
	uint64_t start = 0, sz = 0, off, bias;
	struct merge_symtab *st = merge_symtab_load(path, err, sizeof err);
	if (st) {
		merge_symtab_lookup(st, 0x401000, &off);
		merge_symtab_find(st, 0x1139, &start, &sz);
		/* a symbol, else the .eh_frame FDE holding the address */
		struct merge_function f;
		static const uint64_t probe[] = { 0x1040, 0x1139, 0x1200, 0x401000, 0x401136 };
		for (size_t i = 0; i < sizeof probe / sizeof *probe; i++)
			if (!merge_symtab_function(st, probe[i], &f) && f.name)
				(void)strlen(f.name);
		char name[320];
		merge_symtab_offset_name(st, 0x1139, name, sizeof name);
		merge_symtab_by_name(st, name, &start, &sz, NULL);
		merge_symtab_by_name(st, "_ZN2ns3mulIdLi200EEEvRNS_3MatIT_XT0_EEERKS3_S6_", &start, &sz, NULL);
		const char *dbg;
		merge_symtab_source(st, &dbg);
		merge_symtab_build_id(st);
		merge_symtab_free(st);
	}
	char hex[129];
	merge_elf_build_id(path, hex, sizeof hex, err, sizeof err);
	merge_elf_file_offset(path, 0x1139, &off, err, sizeof err);
	char **libs;
	size_t nlibs;
	if (!merge_elf_libraries(path, &libs, &nlibs)) {
		for (size_t i = 0; i < nlibs; i++)
			free(libs[i]);
		free(libs);
	}
	merge_elf_symbol(path, "main", &start, &sz, err, sizeof err);
	struct merge_code mc = { 0 };
	if (!merge_elf_function(path, "main", &mc, err, sizeof err)) {
		start = mc.addr;
		sz = mc.len;
		merge_code_free(&mc);
	}
	memset(&mc, 0, sizeof mc);
	if (!merge_elf_range(path, start, start + (sz ? sz : 16), &mc, err, sizeof err))
		merge_code_free(&mc);
	merge_elf_load_bias(path, 0x555555554000ull, 0, &bias, err, sizeof err);
	merge_elf_load_bias(path, 0x555555555000ull, 0x1000, &bias, err, sizeof err);
	struct merge_srclines *sl = merge_srclines_open(path, err, sizeof err);
	if (sl) {
		if (merge_srclines_have_lines(sl))
			lines(sl, start, sz ? sz : 64);
		merge_srclines_free(sl);
	}
	return 0;
}
