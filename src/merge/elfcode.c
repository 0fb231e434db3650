/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code out of ELF files: a function by symbol, or an address range, read
 * from the executable section that holds it (libelf). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "mg_internal.h"

Elf *mg_open_elf(const char *path, int *fd, char *err, size_t errlen)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	Elf *e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		if (e)
			elf_end(e);
		close(*fd);
		return NULL;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 ELF file", path);
		elf_end(e);
		close(*fd);
		return NULL;
	}
	/* an object file's sections all start at 0: addresses mean nothing */
	if (eh.e_type == ET_REL) {
		snprintf(err, errlen, "%s: a relocatable object (.o); link it into an executable or shared library", path);
		elf_end(e);
		close(*fd);
		return NULL;
	}
	return e;
}

/* copy [start, end) out of the executable section containing it */
static int read_range(Elf *e, const char *path, uint64_t start, uint64_t end, struct merge_code *out,
		      char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (!(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS)
			continue;
		if (start < sh.sh_addr || end > sh.sh_addr + sh.sh_size || end < start)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size) {
			snprintf(err, errlen, "%s: cannot read the code section", path);
			return -1;
		}
		out->addr = start;
		out->len = (size_t)(end - start);
		out->bytes = malloc(out->len ? out->len : 1);
		if (!out->bytes)
			abort();
		memcpy(out->bytes, (const char *)d->d_buf + (start - sh.sh_addr), out->len);
		return 0;
	}
	snprintf(err, errlen, "%s: range 0x%llx-0x%llx is outside any code section", path,
		 (unsigned long long)start, (unsigned long long)end);
	return -1;
}

/* SYM among the function symbols: the full table first, the dynamic one
 * when stripped. 0 found, -1 with ERR. */
/* Calls FN on every named function symbol of the tables of TYPE
 * (SHT_SYMTAB or SHT_DYNSYM) until it returns non-zero, which is returned.
 * *ANY: a table of that type exists. */
static int walk_functions(Elf *e, unsigned type, int (*fn)(void *ctx, const GElf_Sym *s, const char *name),
			  void *ctx, bool *any)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		*any = true;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			int rc = fn(ctx, &s, name);
			if (rc)
				return rc;
		}
	}
	return 0;
}

struct function_search {
	const char *sym;
	GElf_Sym *best;
};

static int match_function(void *ctx, const GElf_Sym *s, const char *name)
{
	struct function_search *f = ctx;
	if (strcmp(name, f->sym))
		return 0;
	*f->best = *s;
	return 1;
}

/* SYM among the function symbols: the full table first, the dynamic one
 * when stripped. 0 found, -1 with ERR. */
static int find_function(Elf *e, const char *path, const char *sym, GElf_Sym *best, char *err, size_t errlen)
{
	bool any_symtab = false;
	struct function_search f = { sym, best };
	memset(best, 0, sizeof *best);
	bool found = walk_functions(e, SHT_SYMTAB, match_function, &f, &any_symtab) ||
		     walk_functions(e, SHT_DYNSYM, match_function, &f, &any_symtab);
	if (!found) {
		snprintf(err, errlen, "%s: no function '%s'%s", path, sym,
			 any_symtab ? "" : " (the file has no symbol table)");
		return -1;
	}
	if (best->st_size > UINT64_MAX - best->st_value || best->st_size > (1u << 30)) {
		snprintf(err, errlen, "%s: function '%s' has an impossible size (%llu bytes)", path, sym,
			 (unsigned long long)best->st_size);
		return -1;
	}
	if (!best->st_size) {
		snprintf(err, errlen, "%s: function '%s' has no size in the symbol table; use --range", path, sym);
		return -1;
	}
	return 0;
}

int merge_elf_function(const char *path, const char *sym, struct merge_code *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	GElf_Sym best;
	int rc = find_function(e, path, sym, &best, err, errlen);
	if (!rc)
		rc = read_range(e, path, best.st_value, best.st_value + best.st_size, out, err, errlen);
	if (!rc)
		snprintf(out->name, sizeof out->name, "%s", sym);
	elf_end(e);
	close(fd);
	return rc;
}

int merge_elf_symbol(const char *path, const char *sym, uint64_t *start, uint64_t *size, char *err,
		     size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	GElf_Sym best;
	int rc = find_function(e, path, sym, &best, err, errlen);
	if (!rc) {
		*start = best.st_value;
		*size = best.st_size;
	}
	elf_end(e);
	close(fd);
	return rc;
}

int merge_elf_load_bias(const char *path, uint64_t map_start, uint64_t pgoff, uint64_t *bias, char *err,
			size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	size_t nph = 0;
	int rc = -1;
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* the kernel maps whole pages: the segment whose page-aligned
			 * file offset is the mapping's */
			const uint64_t page = 4096;
			if ((ph.p_offset & ~(page - 1)) != pgoff)
				continue;
			*bias = map_start - (ph.p_vaddr & ~(page - 1));
			rc = 0;
			break;
		}
	}
	if (rc)
		snprintf(err, errlen, "%s: no loadable segment at file offset 0x%llx", path, (unsigned long long)pgoff);
	elf_end(e);
	close(fd);
	return rc;
}

/* ---------------------------------------------------------- symtab --- */
struct mg_sym {
	uint64_t start, size;
	char *name;
};

struct merge_symtab {
	struct mg_sym *v;
	size_t n, cap;
};

static int add_symbol(void *ctx, const GElf_Sym *s, const char *name)
{
	struct merge_symtab *st = ctx;
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 256;
		st->v = realloc(st->v, st->cap * sizeof *st->v);
		if (!st->v)
			abort();
	}
	st->v[st->n++] = (struct mg_sym){ s->st_value, s->st_size, strdup(name) };
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct mg_sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct merge_symtab *merge_symtab_load(const char *path, char *err, size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return NULL;
	struct merge_symtab *st = calloc(1, sizeof *st);
	if (!st)
		abort();
	/* the full table when it names functions, else the dynamic one */
	bool any = false;
	walk_functions(e, SHT_SYMTAB, add_symbol, st, &any);
	if (!st->n)
		walk_functions(e, SHT_DYNSYM, add_symbol, st, &any);
	elf_end(e);
	close(fd);
	/* a stripped file has no function symbols (and no array) */
	if (st->n)
		qsort(st->v, st->n, sizeof *st->v, sym_cmp);
	return st;
}

void merge_symtab_free(struct merge_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i].name);
	free(st->v);
	free(st);
}

const char *merge_symtab_lookup(const struct merge_symtab *st, uint64_t addr, uint64_t *offset)
{
	if (!st || !st->n)
		return NULL;
	size_t lo = 0, hi = st->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (st->v[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* aliases share a start: any of them names the address */
	const struct mg_sym *s = &st->v[lo];
	if (addr < s->start || (s->size && addr - s->start >= s->size))
		return NULL;
	if (!s->size && lo + 1 < st->n && addr >= st->v[lo + 1].start)
		return NULL;
	*offset = addr - s->start;
	return s->name;
}

int merge_elf_range(const char *path, uint64_t start, uint64_t end, struct merge_code *out, char *err,
		    size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (end <= start) {
		snprintf(err, errlen, "empty range 0x%llx-0x%llx", (unsigned long long)start,
			 (unsigned long long)end);
		return -1;
	}
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	int rc = read_range(e, path, start, end, out, err, errlen);
	if (!rc)
		snprintf(out->name, sizeof out->name, "0x%llx-0x%llx", (unsigned long long)start,
			 (unsigned long long)end);
	elf_end(e);
	close(fd);
	return rc;
}

void merge_code_free(struct merge_code *c)
{
	free(c->bytes);
	c->bytes = NULL;
}

const char *merge_symtab_find(const struct merge_symtab *st, uint64_t addr, uint64_t *start, uint64_t *size)
{
	uint64_t off;
	const char *name = merge_symtab_lookup(st, addr, &off);
	if (!name)
		return NULL;
	*start = addr - off;
	/* the symbol lookup found: its size, or up to the next symbol */
	*size = 0;
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].start == *start && st->v[i].size > *size)
			*size = st->v[i].size;
	if (!*size)
		for (size_t i = 0; i < st->n; i++)
			if (st->v[i].start > *start) {
				*size = st->v[i].start - *start;
				break;
			}
	return name;
}
