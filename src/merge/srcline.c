/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Source lines of link-time addresses from the DWARF line tables (libdw).
 * Every unit's rows go into one table sorted by address at open: reports
 * look up every instruction of a loop, and a binary search over one array
 * is cheaper than finding the unit of each address again. An address
 * outside the code the units claim (their ranges) has no line, which
 * keeps alignment padding from borrowing the line of the code before it.
 * Split DWARF needs no .dwo: the line tables stay in the executable. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "mg_internal.h"
#include "outpath.h"

struct sl_row {
	uint64_t addr;
	const char *file;	/* owned by libdw: lives as long as dw */
	const char *dir;	/* its unit's compilation directory (libdw's too), NULL */
	int line;
	bool end;		/* end of a sequence: the address after its last row */
	size_t order;		/* position in the line tables, to keep ties stable */
};

/* [start, end) of a section or a unit's code */
struct sl_range {
	uint64_t start, end;
};

struct merge_srclines {
	int fd;
	Elf *elf;
	Dwarf *dw;		/* NULL without DWARF */
	/* the dwz alternate file of dw, NULL when none was needed or found */
	int alt_fd;
	Elf *alt_elf;
	Dwarf *alt;
	struct sl_row *rows;
	size_t n, cap;
	/* the code the units describe, sorted and disjoint: a sequence's
	 * last row can have no instructions (an end row at its own address)
	 * and would otherwise claim the padding up to the next function */
	struct sl_range *cover;
	size_t ncover, capcover;
	bool have_lines;
	/* the units, for the inlined functions of an address where
	 * .debug_aranges does not say (loaded on first need) */
	Dwarf_Die *units;
	size_t nunits;
	bool units_loaded;
};

/* At one address the end of a sequence comes first, so that a sequence
 * starting where another ends wins; otherwise the later row wins, as the
 * line program says (gcc's location views put several rows at one
 * address, and the last one describes the instruction there). */
static int row_cmp(const void *a, const void *b)
{
	const struct sl_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t code_ranges(Elf *e, struct sl_range **out)
{
	size_t n = 0, cap = 0;
	struct sl_range *r = NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_size)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct sl_range *nr = realloc(r, nc * sizeof(*nr));
			if (!nr)
				break;
			r = nr;
			cap = nc;
		}
		r[n].start = sh.sh_addr;
		r[n].end = sh.sh_addr + sh.sh_size;
		n++;
	}
	*out = r;
	return n;
}

/* Linkers leave the rows of discarded functions (COMDAT duplicates,
 * --gc-sections) at address 0 or a tombstone: they would shadow real
 * code, so only rows inside code sections are kept. An end row sits just
 * past its last instruction, possibly at the very end of a section. */
static bool in_code(const struct sl_range *r, size_t nr, uint64_t addr, bool end)
{
	if (!nr)
		return true;	/* no section headers: nothing to judge by */
	for (size_t i = 0; i < nr; i++)
		if (end ? addr > r[i].start && addr <= r[i].end : addr >= r[i].start && addr < r[i].end)
			return true;
	return false;
}

static int push_cover(struct merge_srclines *s, uint64_t start, uint64_t end)
{
	if (start >= end)
		return 0;
	if (s->ncover == s->capcover) {
		size_t nc = s->capcover ? 2 * s->capcover : 256;
		struct sl_range *nr = realloc(s->cover, nc * sizeof(*nr));
		if (!nr)
			return -1;
		s->cover = nr;
		s->capcover = nc;
	}
	s->cover[s->ncover].start = start;
	s->cover[s->ncover].end = end;
	s->ncover++;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct sl_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* sorted and merged, for a binary search */
static void merge_cover(struct merge_srclines *s)
{
	if (!s->ncover)
		return;
	qsort(s->cover, s->ncover, sizeof(*s->cover), range_cmp);
	size_t k = 0;
	for (size_t i = 1; i < s->ncover; i++) {
		if (s->cover[i].start <= s->cover[k].end) {
			if (s->cover[i].end > s->cover[k].end)
				s->cover[k].end = s->cover[i].end;
		} else {
			s->cover[++k] = s->cover[i];
		}
	}
	s->ncover = k + 1;
}

static bool covered(const struct merge_srclines *s, uint64_t addr)
{
	size_t lo = 0, hi = s->ncover;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cover[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ncover && s->cover[lo].start <= addr;
}

/* The unit's code from its DW_AT_ranges or low/high pc; a unit without
 * them (some assemblers) is taken to span its rows. */
static int unit_cover(struct merge_srclines *s, Dwarf_Die *cudie, size_t first_row,
		      const struct sl_range *code, size_t ncode)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool any = false;
	while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0) {
		if (!in_code(code, ncode, start, false))
			continue;	/* a discarded function's tombstone */
		if (push_cover(s, start, end))
			return -1;
		any = true;
	}
	if (any || first_row == s->n)
		return 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = first_row; i < s->n; i++) {
		if (s->rows[i].addr < lo)
			lo = s->rows[i].addr;
		if (s->rows[i].addr > hi)
			hi = s->rows[i].addr;
	}
	return push_cover(s, lo, hi);
}

static int push_row(struct merge_srclines *s, const struct sl_row *row)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 1024;
		struct sl_row *nr = realloc(s->rows, nc * sizeof(*nr));
		if (!nr)
			return -1;
		s->rows = nr;
		s->cap = nc;
	}
	s->rows[s->n++] = *row;
	return 0;
}

/* Rows of every unit with a line table. Units whose table cannot be read
 * are skipped rather than failing the file: a report with some lines is
 * better than none. */
static int collect_rows(struct merge_srclines *s)
{
	struct sl_range *ranges;
	size_t nranges = code_ranges(s->elf, &ranges);
	size_t order = 0;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie;
	int rc = 0;
	while (dwarf_get_units(s->dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		cu = next;
		/* type units describe types only, no code; a unit of an
		 * unknown version comes with its DIE cleared */
		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type || !cudie.cu)
			continue;
		Dwarf_Lines *lines;
		size_t nlines, first_row = s->n;
		if (dwarf_getsrclines(&cudie, &lines, &nlines) != 0)
			continue;
		/* a file named relative to where the compiler ran */
		Dwarf_Attribute dir_attr;
		const char *dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &dir_attr));
		for (size_t i = 0; i < nlines; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			struct sl_row row = { .order = order++ };
			if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &row.line) ||
			    dwarf_lineendsequence(l, &row.end))
				continue;
			row.addr = addr;
			if (!in_code(ranges, nranges, row.addr, row.end))
				continue;
			row.file = row.end ? NULL : dwarf_linesrc(l, NULL, NULL);
			row.dir = dir;
			if (!row.end && !row.file)
				continue;
			if (push_row(s, &row)) {
				rc = -1;
				goto out;
			}
			if (!row.end)
				s->have_lines = true;
		}
		if (unit_cover(s, &cudie, first_row, ranges, nranges)) {
			rc = -1;
			goto out;
		}
	}
out:
	free(ranges);
	if (s->n)
		qsort(s->rows, s->n, sizeof(*s->rows), row_cmp);
	merge_cover(s);
	return rc;
}

/* Whether the DWARF string sections end with a NUL, as every well-formed
 * one does. libdw 0.188 (Debian 12) reads a string at the end of an
 * unterminated .debug_line_str past the section's buffer (fixed in
 * elfutils 0.192): such a file is read as one without lines. Called
 * after dwarf_begin_elf, which has decompressed the sections. */
static bool dwarf_strings_terminated(Elf *e)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".debug_str") && strcmp(name, ".debug_line_str") &&
			      strcmp(name, ".debug_str.dwo") && strcmp(name, ".debug_line_str.dwo")))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			continue;
		if (((const char *)d->d_buf)[d->d_size - 1] != 0)
			return false;
	}
	return true;
}

/* A file whose DWARF dwz compressed names a shared alternate file
 * (.gnu_debugaltlink). libdw would open it itself at the first attribute
 * that points into it, with a blocking open of a name the file chooses: a
 * FIFO there would hang. It is looked for here instead, where libdw looks
 * (by build-id under /usr/lib/debug, then by its name, relative to the
 * file's directory), each candidate opened as a regular file only, and
 * handed to libdw. -1 with ERR when a candidate is not a regular file:
 * libdw would open it later, so the file's lines are not read. */
static int attach_alt(struct merge_srclines *s, const char *path, char *err, size_t errlen)
{
	const char *altname;
	const void *idp;
	ssize_t idlen = dwelf_dwarf_gnu_debugaltlink(s->dw, &altname, &idp);
	if (idlen <= 0)
		return 0;
	const unsigned char *id = idp;
	char by_id[sizeof "/usr/lib/debug/.build-id/" + 2 * 64 + sizeof "/.debug"] = "";
	if (idlen >= 3 && idlen <= 64) {
		int k = snprintf(by_id, sizeof by_id, "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (ssize_t i = 1; i < idlen; i++)
			k += snprintf(by_id + k, sizeof by_id - (size_t)k, "%02x", id[i]);
		snprintf(by_id + k, sizeof by_id - (size_t)k, ".debug");
	}
	char *by_name = NULL;
	if (altname[0] == '/') {
		by_name = strdup(altname);
	} else {
		char *real = realpath(path, NULL);
		char *slash = real ? strrchr(real, '/') : NULL;
		if (slash && asprintf(&by_name, "%.*s/%s", (int)(slash - real), real, altname) < 0)
			by_name = NULL;
		free(real);
	}
	const char *candidates[] = { by_id[0] ? by_id : NULL, by_name };
	char refused[512] = "";
	for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !s->alt; i++) {
		if (!candidates[i])
			continue;
		char why[512];
		int fd = outpath_open_regular(candidates[i], why, sizeof why);
		if (fd < 0) {
			if (errno == EINVAL && !refused[0])
				snprintf(refused, sizeof refused, "%s", why);
			continue;
		}
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		Dwarf *alt = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
		const void *altid;
		if (alt && dwelf_elf_gnu_build_id(e, &altid) == idlen && !memcmp(altid, id, (size_t)idlen)) {
			s->alt_fd = fd;
			s->alt_elf = e;
			s->alt = alt;
			dwarf_setalt(s->dw, alt);
			break;
		}
		if (alt)
			dwarf_end(alt);
		if (e)
			elf_end(e);
		close(fd);
	}
	free(by_name);
	if (!s->alt && refused[0]) {
		snprintf(err, errlen, "%s (the alternate DWARF file of %s)", refused, path);
		return -1;
	}
	return 0;
}

struct merge_srclines *merge_srclines_open(const char *path, char *err, size_t errlen)
{
	struct merge_srclines *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	s->alt_fd = -1;
	s->elf = mg_open_elf(path, &s->fd, err, errlen);
	if (!s->elf) {
		free(s);
		return NULL;
	}
	/* no DWARF (stripped, or built without -g) is not an error: the
	 * caller prints addresses without lines */
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (s->dw && !dwarf_strings_terminated(s->elf)) {
		dwarf_end(s->dw);
		s->dw = NULL;
	}
	if (s->dw && attach_alt(s, path, err, errlen)) {
		merge_srclines_free(s);
		return NULL;
	}
	if (s->dw && collect_rows(s)) {
		snprintf(err, errlen, "%s: out of memory reading the line tables", path);
		merge_srclines_free(s);
		return NULL;
	}
	return s;
}

bool merge_srclines_have_lines(const struct merge_srclines *s)
{
	return s && s->have_lines;
}

bool merge_srcline(struct merge_srclines *s, uint64_t addr, const char **file, int *line)
{
	return merge_srcline_dir(s, addr, file, NULL, line);
}

bool merge_srcline_dir(struct merge_srclines *s, uint64_t addr, const char **file, const char **dir, int *line)
{
	if (!s || !s->n || addr < s->rows[0].addr || !covered(s, addr))
		return false;
	/* the last row at or below addr */
	size_t lo = 0, hi = s->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const struct sl_row *r = &s->rows[lo];
	/* past the end of a sequence: a gap between functions; line 0 is
	 * DWARF's "no source line" (code the compiler made up) */
	if (r->end || r->line <= 0)
		return false;
	if (file)
		*file = r->file;
	if (dir)
		*dir = r->dir;
	if (line)
		*line = r->line;
	return true;
}

/* the unit holding ADDR: .debug_aranges, else each unit's ranges */
static bool unit_of(struct merge_srclines *s, uint64_t addr, Dwarf_Die *cu)
{
	if (dwarf_addrdie(s->dw, addr, cu))
		return true;
	if (!s->units_loaded) {
		s->units_loaded = true;
		Dwarf_Off off = 0, next;
		size_t hsize;
		size_t cap = 0;
		while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die d;
			if (dwarf_offdie(s->dw, off + hsize, &d)) {
				if (s->nunits == cap) {
					size_t c2 = cap ? 2 * cap : 16;
					Dwarf_Die *v = realloc(s->units, c2 * sizeof *v);
					if (!v)
						break;
					s->units = v;
					cap = c2;
				}
				s->units[s->nunits++] = d;
			}
			off = next;
		}
	}
	for (size_t i = 0; i < s->nunits; i++)
		if (dwarf_haspc(&s->units[i], addr) > 0) {
			*cu = s->units[i];
			return true;
		}
	return false;
}

/* an inlined instance's name: its abstract origin's linkage name
 * demangled, else its name */
static void inline_name(Dwarf_Die *die, char *buf, size_t n)
{
	Dwarf_Attribute a;
	const char *mangled = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!mangled)
		mangled = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	char *shown = mangled ? cplus_demangle(mangled, DMGL_AUTO) : NULL;
	const char *name = shown ? shown : mangled;
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	snprintf(buf, n, "%s", name ? name : "[unknown]");
	free(shown);
}

size_t merge_srcline_inlines(struct merge_srclines *s, uint64_t addr, char (*names)[256], size_t max)
{
	Dwarf_Die cu, *scopes = NULL;
	if (!s || !s->dw || !max || !unit_of(s, addr, &cu))
		return 0;
	int ns = dwarf_getscopes(&cu, addr, &scopes);
	size_t n = 0;
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			inline_name(&scopes[i], names[n++], sizeof names[0]);
	}
	free(scopes);
	return n;
}

void merge_srclines_free(struct merge_srclines *s)
{
	if (!s)
		return;
	free(s->units);
	free(s->rows);
	free(s->cover);
	if (s->dw)
		dwarf_end(s->dw);
	/* after dw, which only borrows it */
	if (s->alt)
		dwarf_end(s->alt);
	if (s->alt_elf)
		elf_end(s->alt_elf);
	if (s->alt_fd >= 0)
		close(s->alt_fd);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
