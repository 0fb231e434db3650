/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function names and bounds of an ELF file, found as perf finds them:
 * libdwfl reads the file's own .symtab, else the one of its separate debug
 * file (by build-id under /usr/lib/debug/.build-id/, by .gnu_debuglink, or
 * from debuginfod when DEBUGINFOD_URLS is set), else .dynsym (and the
 * MiniDebugInfo of .gnu_debugdata). Names are demangled (libiberty). Code
 * that no symbol covers still has bounds: the FDE of .eh_frame that holds
 * it, which every compiler emits for unwinding, stripped or not. */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "merge.h"
#include "mg_internal.h"
#include "outpath.h"

struct mg_sym {
	uint64_t start, size;
	char *name;		/* as shown: demangled without parameters, like perf */
	char *mangled;		/* as in the table (== name when not mangled) */
	char *full;		/* demangled with parameters, NULL when not mangled */
	int rank;		/* among aliases: 0 global, 1 weak, 2 local */
};

struct merge_symtab {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;		/* .eh_frame, NULL when the file has none */
	Dwarf_Addr cfi_bias;	/* dwfl address - link-time address */
	char *path, *base;
	char real_base[256];	/* the file name a symbolic link leads to ("" when none) */
	char build_id[2 * 64 + 1];
	char debug_file[4096];	/* where the symbols came from when not PATH */
	char source[16];	/* "symtab", "debuginfo", "dynsym", "none" */
	struct mg_sym *v;
	size_t n, cap;
	char namebuf[320];	/* "liblzma.so.5+0x15b40" of the last CFI lookup */
};

/* ------------------------------------------------ the debug file --- */
/* libdwfl's standard callbacks open what they find with a blocking open,
 * under names the file chooses (its .gnu_debuglink) in directories beside
 * it, and read a candidate whole for its CRC: a FIFO there would hang gus,
 * /dev/zero would never end. So the module's own file is reported with
 * its descriptor (no find_elf lookup ever), and its debug file is found
 * here, in the places and the order of dwfl_standard_find_debuginfo: by
 * build-id under the absolute directories of the debug path, then by the
 * debuglink name beside the file, in its .debug and under the absolute
 * directories (the file's own directory below them). Each candidate is
 * opened by outpath_open_regular and checked (its build-id, else the CRC)
 * before libdwfl gets the descriptor. */

/* libdwfl's default debug path: the file's directory, its .debug, and
 * /usr/lib/debug */
#define DEBUG_PATH_DEFAULT ":.debug:/usr/lib/debug"
static char *debuginfo_path;	/* NULL: DEBUG_PATH_DEFAULT */

struct debug_search {
	const unsigned char *build_id;	/* the module's, NULL when none */
	int build_id_len;
	GElf_Word crc;			/* .gnu_debuglink's, 0 when none */
	struct stat main_st;		/* the module's file, never its own debug file */
	bool have_main_st;
	bool refused;			/* a candidate was there but not a regular file */
};

/* the CRC-32 of the whole file, as .gnu_debuglink holds it (zlib's) */
static uint32_t crc32_of(int fd, bool *ok)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	unsigned char buf[65536];
	off_t at = 0;
	ssize_t n;
	while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		at += n;
	}
	*ok = n == 0;
	return (uint32_t)crc;
}

/* PATH as the module's debug file: a descriptor for libdwfl, or -1 */
static int try_debug_file(struct debug_search *ds, const char *path, bool check_crc)
{
	int fd = outpath_open_regular(path, NULL, 0);
	if (fd < 0) {
		if (errno == EINVAL)
			ds->refused = true;
		return -1;
	}
	struct stat st;
	bool ok = !fstat(fd, &st) &&
		  !(ds->have_main_st && st.st_dev == ds->main_st.st_dev && st.st_ino == ds->main_st.st_ino);
	if (ok && ds->build_id_len > 0) {
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		const void *id = NULL;
		ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
		ok = n == ds->build_id_len && !memcmp(id, ds->build_id, (size_t)n);
		if (e)
			elf_end(e);
	} else if (ok && check_crc) {
		bool read_ok;
		ok = crc32_of(fd, &read_ok) == ds->crc && read_ok;
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* DIR/SUB/NAME (either may be NULL) tried; *FOUND its malloc'ed path */
static int try_debug_at(struct debug_search *ds, const char *dir, const char *sub, const char *name, bool check_crc,
			char **found)
{
	char *path;
	int len = !dir && !sub ? asprintf(&path, "%s", name)
		  : !sub ? asprintf(&path, "%s/%s", dir, name)
		  : !dir ? asprintf(&path, "%s/%s", sub, name) : asprintf(&path, "%s/%s/%s", dir, sub, name);
	if (len < 0)
		return -1;
	int fd = try_debug_file(ds, path, check_crc);
	if (fd >= 0)
		*found = path;
	else
		free(path);
	return fd;
}

/* the debuglink name (or FILE's base name + ".debug") in the directories
 * of the debug path, as libdwfl's find_debuginfo_in_path looks */
static int find_by_debuglink(struct debug_search *ds, const char *file, const char *debuglink, char **found)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *made = NULL;
	bool can_check = ds->crc != 0;
	if (!debuglink) {
		if (asprintf(&made, "%s.debug", base) < 0)
			return -1;
		debuglink = made;
		can_check = false;
	}
	char *dir = base == file ? NULL : strndup(file, (size_t)(base - 1 - file));
	char *list = strdup(debuginfo_path ? debuginfo_path : DEBUG_PATH_DEFAULT);
	int fd = -1;
	if (!list || (base != file && !dir))
		goto out;
	/* a leading + or - says whether to check CRCs, for the whole path
	 * or for one of its directories */
	char *rest = list;
	bool check_all = true;
	if (*rest == '+' || *rest == '-')
		check_all = *rest++ == '+';
	for (char *entry; fd < 0 && (entry = strsep(&rest, ":"));) {
		bool check = check_all;
		if (*entry == '+' || *entry == '-')
			check = *entry++ == '+';
		check = check && can_check;
		if (!*entry) {
			/* the file's own directory */
			fd = try_debug_at(ds, dir, NULL, debuglink, check, found);
		} else if (*entry == '/') {
			/* DIR under an absolute directory, then its
			 * subdirectories, down to the directory alone */
			if (!dir || dir[0] != '/')
				continue;
			for (const char *sub = dir; fd < 0;) {
				sub = strchr(sub, '/');
				if (sub)
					sub++;
				if (sub && !*sub)
					break;
				fd = try_debug_at(ds, entry, sub, debuglink, check, found);
				if (fd < 0 && made)
					fd = try_debug_at(ds, entry, sub, base, check, found);
				if (!sub)
					break;
			}
		} else {
			/* a subdirectory of the file's directory */
			fd = try_debug_at(ds, dir, entry, debuglink, check, found);
			if (fd < 0 && made)
				fd = try_debug_at(ds, dir, entry, base, check, found);
		}
	}
out:
	free(list);
	free(dir);
	free(made);
	return fd;
}

static int find_debuginfo_safely(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
				 const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	/* a debug file already there: libdwfl asks for the dwz alternate
	 * file of its DWARF, which gus never reads through libdwfl
	 * (srcline.c finds it itself) */
	Dwarf_Addr dwbias = 0;
	dwfl_module_info(mod, NULL, NULL, NULL, &dwbias, NULL, NULL, NULL);
	if (dwbias != (Dwarf_Addr)-1) {
		errno = 0;
		return -1;
	}
	struct debug_search ds = { .crc = debuglink_crc };
	GElf_Addr id_addr;
	ds.build_id_len = dwfl_module_build_id(mod, &ds.build_id, &id_addr);
	ds.have_main_st = file_name && !stat(file_name, &ds.main_st);
	int fd = -1;
	if (ds.build_id_len > 0) {
		char hex[2 * 64 + 1] = "";
		for (int i = 1; i < ds.build_id_len && i < 64; i++)
			snprintf(hex + 2 * (i - 1), 3, "%02x", ds.build_id[i]);
		char *list = strdup(debuginfo_path ? debuginfo_path : DEBUG_PATH_DEFAULT), *rest = list;
		for (char *entry; list && fd < 0 && (entry = strsep(&rest, ":"));) {
			if (*entry == '+' || *entry == '-')
				entry++;
			if (*entry != '/')
				continue;
			char name[sizeof hex + 16];
			snprintf(name, sizeof name, "%02x/%s.debug", ds.build_id[0], hex);
			fd = try_debug_at(&ds, entry, ".build-id", name, false, debuginfo_file_name);
		}
		free(list);
	}
	if (fd < 0 && file_name) {
		fd = find_by_debuglink(&ds, file_name, debuglink_file, debuginfo_file_name);
		/* the debug file may sit beside a symbolic link's target */
		char *real = fd < 0 ? realpath(file_name, NULL) : NULL;
		if (real && strcmp(real, file_name))
			fd = find_by_debuglink(&ds, real, debuglink_file, debuginfo_file_name);
		free(real);
	}
	/* debuginfod last, through libdwfl's own search: every place it
	 * looks first was just found empty (a race with whoever fills them
	 * is the only way to a non-regular file there) */
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (fd < 0 && !ds.refused && ds.build_id_len > 0 && urls && *urls)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
						    debuglink_crc, debuginfo_file_name);
	if (fd < 0)
		errno = 0;	/* nothing found, which is no error */
	return fd;
}

/* the module's file comes with its descriptor: nothing is looked up */
static int no_elf_search(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
			 Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	*elfp = NULL;
	errno = ENOENT;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = no_elf_search,
	.find_debuginfo = find_debuginfo_safely,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* perf shows names without their parameters ("ns::mul<double, 200>");
 * the full form is kept for matching what a user copies from elsewhere */
static void demangle(const char *mangled, char **shown, char **full)
{
	*shown = NULL;
	*full = NULL;
	if (strncmp(mangled, "_Z", 2) && strncmp(mangled, "_R", 2))
		return;
	*full = cplus_demangle(mangled, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	*shown = cplus_demangle(mangled, DMGL_AUTO);
	if (!*shown && *full)
		*shown = strdup(*full);
}

static void add_symbol(struct merge_symtab *st, uint64_t start, uint64_t size, const char *name, int rank)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 256;
		st->v = realloc(st->v, st->cap * sizeof *st->v);
		if (!st->v)
			abort();
	}
	struct mg_sym *s = &st->v[st->n++];
	memset(s, 0, sizeof *s);
	s->start = start;
	s->size = size;
	s->rank = rank;
	if (!(s->mangled = strdup(name)))
		abort();
	demangle(name, &s->name, &s->full);
	if (!s->name && !(s->name = strdup(name)))
		abort();
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

/* By address; among aliases the name perf shows first: a global symbol
 * before a weak one before a local one, then fewer leading underscores
 * ("clock_gettime", not "__GI___clock_gettime"), then the longer name. */
static int sym_cmp(const void *a, const void *b)
{
	const struct mg_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	size_t ux = leading_underscores(x->mangled), uy = leading_underscores(y->mangled);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(x->mangled), ly = strlen(y->mangled);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->mangled, y->mangled);
}

static void free_symbols(struct merge_symtab *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].name);
		free(st->v[i].mangled);
		free(st->v[i].full);
	}
	free(st->v);
	st->v = NULL;
	st->n = st->cap = 0;
}

/* The stubs of the procedure linkage table named "FUNCTION@plt", as perf
 * names them: entry I of .plt.sec (or of .plt after its first, 16-byte
 * entries on x86-64) jumps through the I-th relocation of .rela.plt, whose
 * symbol is the function. Without them a program's calls into its
 * libraries would show as one anonymous stretch of code. */
static void add_plt_symbols(struct merge_symtab *st, const char *path)
{
	char err[256];
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, sizeof err);
	if (!e)
		return;
	size_t shstrndx;
	Elf_Scn *scn = NULL, *rela = NULL;
	GElf_Shdr plt = { 0 }, plt_sec = { 0 }, rsh = { 0 };
	if (elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".plt"))
			plt = sh;
		else if (!strcmp(name, ".plt.sec"))
			plt_sec = sh;
		else if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = scn;
			rsh = sh;
		}
	}
	if (!rela || !rsh.sh_entsize || (!plt.sh_size && !plt_sec.sh_size))
		goto out;
	Elf_Data *rd = elf_getdata(rela, NULL);
	Elf_Scn *dynsym = elf_getscn(e, rsh.sh_link);
	GElf_Shdr dsh;
	Elf_Data *dd = dynsym ? elf_getdata(dynsym, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(dynsym, &dsh))
		goto out;
	size_t n = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < n && i < (1u << 20); i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		const char *name = elf_strptr(e, dsh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		char label[512];
		snprintf(label, sizeof label, "%s@plt", name);
		if (plt_sec.sh_size && 16 * (i + 1) <= plt_sec.sh_size)
			add_symbol(st, plt_sec.sh_addr + 16 * i, 16, label, 1);
		if (plt.sh_size && 16 * (i + 2) <= plt.sh_size)
			add_symbol(st, plt.sh_addr + 16 * (i + 1), 16, label, 1);
	}
out:
	elf_end(e);
	close(fd);
}

struct merge_symtab *merge_symtab_load(const char *path, char *err, size_t errlen)
{
	/* the checks of every other reader: an x86-64 executable or library;
	 * libdwfl gets the descriptor, never the name to open */
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return NULL;
	elf_end(e);

	struct merge_symtab *st = calloc(1, sizeof *st);
	if (!st)
		abort();
	if (!(st->path = strdup(path)))
		abort();
	const char *slash = strrchr(path, '/');
	st->base = slash ? st->path + (slash + 1 - path) : st->path;
	/* liblzma.so.5 -> liblzma.so.5.4.1: perf and gus name code without a
	 * symbol by the mapped file, which is the link's target */
	char *real = realpath(path, NULL);
	if (real) {
		const char *rs = strrchr(real, '/');
		if (strcmp(rs ? rs + 1 : real, st->base))
			snprintf(st->real_base, sizeof st->real_base, "%s", rs ? rs + 1 : real);
		free(real);
	}
	snprintf(st->source, sizeof st->source, "none");
	st->dwfl = dwfl_begin(&offline_callbacks);
	if (!st->dwfl) {
		snprintf(err, errlen, "%s: libdwfl: %s", path, dwfl_errmsg(-1));
		close(fd);
		merge_symtab_free(st);
		return NULL;
	}
	/* the module owns FD once reported; a failed report leaves it ours */
	st->mod = dwfl_report_offline(st->dwfl, st->base, path, fd);
	dwfl_report_end(st->dwfl, NULL, NULL);
	if (!st->mod) {
		close(fd);
		snprintf(err, errlen, "%s: libdwfl: %s", path, dwfl_errmsg(-1));
		merge_symtab_free(st);
		return NULL;
	}
	const unsigned char *bits;
	GElf_Addr bid_addr;
	int nbid = dwfl_module_build_id(st->mod, &bits, &bid_addr);
	for (int i = 0; i < nbid && i < 64; i++)
		snprintf(st->build_id + 2 * i, 3, "%02x", bits[i]);

	Dwarf_Addr mod_bias = 0;
	dwfl_module_getelf(st->mod, &mod_bias);
	int nsym = dwfl_module_getsymtab(st->mod);
	bool from_symtab = false;
	for (int i = 0; i < nsym; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(st->mod, i, &s, &addr, &shndx, &elf, &bias);
		unsigned type = GELF_ST_TYPE(s.st_info);
		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF || !s.st_value)
			continue;
		if (addr < mod_bias || s.st_size > (1u << 30))
			continue;
		unsigned bind = GELF_ST_BIND(s.st_info);
		add_symbol(st, addr - mod_bias, s.st_size, name, bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
	}
	/* which table named them: libdwfl tells through the file it read */
	const char *debugfile = NULL;
	dwfl_module_info(st->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (st->n) {
		Dwarf_Addr b;
		Elf *symelf = dwfl_module_getelf(st->mod, &b);
		size_t shstrndx;
		Elf_Scn *scn = NULL;
		/* .symtab in the file itself? */
		if (symelf && !elf_getshdrstrndx(symelf, &shstrndx))
			while ((scn = elf_nextscn(symelf, scn))) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
					from_symtab = true;
					break;
				}
			}
		if (from_symtab)
			snprintf(st->source, sizeof st->source, "symtab");
		else if (debugfile && strcmp(debugfile, path)) {
			snprintf(st->source, sizeof st->source, "debuginfo");
			snprintf(st->debug_file, sizeof st->debug_file, "%s", debugfile);
		} else
			snprintf(st->source, sizeof st->source, "dynsym");
	}
	add_plt_symbols(st, path);
	if (st->n)
		qsort(st->v, st->n, sizeof *st->v, sym_cmp);
	st->cfi = dwfl_module_eh_cfi(st->mod, &st->cfi_bias);
	return st;
}

void merge_symtab_free(struct merge_symtab *st)
{
	if (!st)
		return;
	free_symbols(st);
	if (st->dwfl)
		dwfl_end(st->dwfl);
	free(st->path);
	free(st);
}

const char *merge_symtab_build_id(const struct merge_symtab *st)
{
	return st && st->build_id[0] ? st->build_id : NULL;
}

const char *merge_symtab_source(const struct merge_symtab *st, const char **debug_file)
{
	if (debug_file)
		*debug_file = st->debug_file[0] ? st->debug_file : NULL;
	return st->source;
}

/* the symbol holding ADDR: index, or -1 */
static long symbol_at(const struct merge_symtab *st, uint64_t addr)
{
	if (!st || !st->n)
		return -1;
	size_t lo = 0, hi = st->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (st->v[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (addr < st->v[lo].start)
		return -1;
	/* aliases share a start: the first of them with a size that holds
	 * ADDR names it */
	size_t first = lo;
	while (first > 0 && st->v[first - 1].start == st->v[lo].start)
		first--;
	for (size_t i = first; i <= lo; i++)
		if (st->v[i].size && addr - st->v[i].start < st->v[i].size)
			return (long)i;
	/* a symbol without a size reaches up to the next one */
	for (size_t i = first; i <= lo; i++)
		if (!st->v[i].size && (lo + 1 == st->n || addr < st->v[lo + 1].start))
			return (long)i;
	/* a sized symbol before: ADDR may be in an earlier, longer one */
	for (size_t i = first; i-- > 0 && i + 64 > first;)
		if (st->v[i].size && addr - st->v[i].start < st->v[i].size)
			return (long)i;
	return -1;
}

const char *merge_symtab_lookup(const struct merge_symtab *st, uint64_t addr, uint64_t *offset)
{
	long i = symbol_at(st, addr);
	if (i < 0)
		return NULL;
	*offset = addr - st->v[i].start;
	return st->v[i].name;
}

static uint64_t symbol_size(const struct merge_symtab *st, size_t i)
{
	if (st->v[i].size)
		return st->v[i].size;
	for (size_t j = i + 1; j < st->n; j++)
		if (st->v[j].start > st->v[i].start)
			return st->v[j].start - st->v[i].start;
	return 0;
}

int merge_symtab_function(const struct merge_symtab *st, uint64_t addr, struct merge_function *f)
{
	memset(f, 0, sizeof *f);
	long i = symbol_at(st, addr);
	if (i >= 0) {
		f->name = st->v[i].name;
		f->mangled = st->v[i].mangled;
		f->start = st->v[i].start;
		f->size = symbol_size(st, (size_t)i);
		f->from_cfi = false;
		return 0;
	}
	if (!st || !st->cfi)
		return -1;
	Dwarf_Frame *frame;
	if (dwarf_cfi_addrframe(st->cfi, addr, &frame))
		return -1;
	Dwarf_Addr start, end;
	bool signalp;
	int rc = dwarf_frame_info(frame, &start, &end, &signalp) < 0 ? -1 : 0;
	free(frame);
	if (rc || end <= start || addr < start || addr >= end || end - start > (1u << 30))
		return -1;
	/* the FDE must not reach into a named function: it is then not the
	 * whole story of this code (hand-written CFI); the symbol wins */
	f->start = start;
	f->size = end - start;
	f->from_cfi = true;
	f->name = NULL;
	f->mangled = NULL;
	return 0;
}

void merge_symtab_offset_name(const struct merge_symtab *st, uint64_t addr, char *buf, size_t n)
{
	snprintf(buf, n, "%s+0x%llx", st->base, (unsigned long long)addr);
}

/* NAME as a user may write it: mangled, demangled as shown, or demangled
 * with its parameters */
static bool name_matches(const struct mg_sym *s, const char *name)
{
	if (!strcmp(s->mangled, name) || !strcmp(s->name, name) || (s->full && !strcmp(s->full, name)))
		return true;
	/* a versioned dynamic symbol ("clock_gettime@@GLIBC_2.17") by its
	 * name; a PLT stub ("lib_collatz@plt") is not the function */
	const char *at = strchr(s->mangled, '@');
	size_t n = strlen(name);
	return at && strcmp(at, "@plt") && (size_t)(at - s->mangled) == n && !strncmp(s->mangled, name, n);
}

int merge_symtab_by_name(const struct merge_symtab *st, const char *name, uint64_t *start, uint64_t *size,
			 const char **mangled)
{
	/* a name shown by gus or perf may be ambiguous (overloads without
	 * their parameters): the first, in address order */
	for (size_t i = 0; st && i < st->n; i++)
		if (name_matches(&st->v[i], name)) {
			*start = st->v[i].start;
			*size = symbol_size(st, i);
			if (mangled)
				*mangled = st->v[i].mangled;
			return 0;
		}
	/* perf's "OBJECT+0xADDR" or gus's own name of code without a symbol
	 * (OBJECT the file's name or that of its link's target) */
	size_t bl = strlen(st->base);
	if (!(!strncmp(name, st->base, bl) && !strncmp(name + bl, "+0x", 3)) && st->real_base[0]) {
		bl = strlen(st->real_base);
		if (strncmp(name, st->real_base, bl))
			bl = (size_t)-1;
	}
	if (bl != (size_t)-1 && !strncmp(name + bl, "+0x", 3)) {
		char *end;
		unsigned long long a = strtoull(name + bl + 3, &end, 16);
		struct merge_function f;
		if (!*end && !merge_symtab_function(st, a, &f) && f.start == a) {
			*start = f.start;
			*size = f.size;
			if (mangled)
				*mangled = NULL;
			return 0;
		}
	}
	return -1;
}

bool merge_symtab_any(const struct merge_symtab *st)
{
	return st && st->n;
}

const char *merge_symtab_find(const struct merge_symtab *st, uint64_t addr, uint64_t *start, uint64_t *size)
{
	long i = symbol_at(st, addr);
	if (i < 0)
		return NULL;
	*start = st->v[i].start;
	*size = symbol_size(st, (size_t)i);
	return st->v[i].name;
}

bool merge_demangle(const char *mangled, char *buf, size_t n)
{
	char *shown, *full;
	demangle(mangled, &shown, &full);
	free(full);
	if (!shown)
		return false;
	snprintf(buf, n, "%s", shown);
	free(shown);
	return true;
}
