/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code out of ELF files: a function by symbol, or an address range, read
 * from the executable section that holds it (libelf). */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "mg_internal.h"
#include "outpath.h"

/* the instructions of a nest's followed path that static simulation
 * takes: about 60 000 iterations of a loop body of four */
#define MERGE_NEST_PATH (256u * 1024)

Elf *mg_open_elf(const char *path, int *fd, char *err, size_t errlen)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	/* a recording names the file: a FIFO or a device there must not
	 * hang or flood the reader */
	*fd = outpath_open_regular(path, err, errlen);
	if (*fd < 0)
		return NULL;
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

/* SYM's [start, start+size) among the functions of PATH as merge_symtab
 * names them (mangled or demangled, in the file, its debug file or
 * .dynsym, or "OBJECT+0xADDR" for code without a symbol). 0 found, -1 with
 * ERR. */
static int find_function(const char *path, const char *sym, uint64_t *start, uint64_t *size, char *err,
			 size_t errlen)
{
	struct merge_symtab *st = merge_symtab_load(path, err, errlen);
	if (!st)
		return -1;
	int rc = merge_symtab_by_name(st, sym, start, size, NULL);
	if (rc)
		snprintf(err, errlen, "%s: no function '%s'%s", path, sym,
			 merge_symtab_any(st) ? "" : " (the file has no symbol table)");
	merge_symtab_free(st);
	if (rc)
		return -1;
	if (*size > UINT64_MAX - *start || *size > (1u << 30)) {
		snprintf(err, errlen, "%s: function '%s' has an impossible size (%llu bytes)", path, sym,
			 (unsigned long long)*size);
		return -1;
	}
	if (!*size) {
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
	uint64_t start, size;
	int rc = find_function(path, sym, &start, &size, err, errlen);
	if (!rc)
		rc = read_range(e, path, start, start + size, out, err, errlen);
	if (!rc)
		snprintf(out->name, sizeof out->name, "%s", sym);
	elf_end(e);
	close(fd);
	return rc;
}

int merge_elf_symbol(const char *path, const char *sym, uint64_t *start, uint64_t *size, char *err,
		     size_t errlen)
{
	return find_function(path, sym, start, size, err, errlen);
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
	free((void *)c->nest.bytes);
	free((void *)c->nest.path);
	c->nest = (struct sim_nest){ 0 };
}

/* the parent of LOOPS[HOT] and its trips, when the code tells them: the
 * nest its time is simulated in */
static void set_nest(struct merge_code *c, const struct sim_loop_info *loops, size_t n, int hot)
{
	const struct sim_loop *l = &loops[hot].loop;
	double trips = loops[hot].trips;
	int parent = loops[hot].parent;
	if (parent < 0 || !l->conditional || l->latches != 1)
		return;
	const struct sim_loop *p = &loops[parent].loop;
	struct sim_path_rec *path = NULL;
	size_t npath = 0;
	if (loops[hot].trips_followed) {
		/* the counters followed: the parent's own path, as it runs */
		struct sim_loop all[SIM_MAX_LOOPS];
		size_t na = n < SIM_MAX_LOOPS ? n : SIM_MAX_LOOPS;
		for (size_t k = 0; k < na; k++)
			all[k] = loops[k].loop;
		if (sim_follow_path(c->addr, c->bytes, c->len, all, na, p->start, p->end, MERGE_NEST_PATH,
				    SIM_FOLLOW_STEPS, &path, &npath))
			path = NULL;
	}
	/* else the parent walked with the loop's trips */
	if (!path && (!(trips >= 2 && trips <= 1e5) || loops[parent].loop.latches != 1))
		return;
	uint8_t *b = malloc((size_t)(p->end - p->start));
	if (!b)
		abort();
	memcpy(b, c->bytes + (p->start - c->addr), (size_t)(p->end - p->start));
	c->nest = (struct sim_nest){ .addr = p->start, .bytes = b, .len = (size_t)(p->end - p->start),
				     .parent_latch = p->latch, .latch = l->latch, .trips = (unsigned)(trips + 0.5),
				     .path = path, .npath = npath };
	if (path)
		return;
	/* the parent's other innermost loops take their time too: a loop
	 * between two entries fills the window as on the hardware */
	for (size_t k = 0; k < n && c->nest.nsiblings < SIM_NEST_SIBLINGS; k++) {
		const struct sim_loop *o = &loops[k].loop;
		if ((int)k == hot || !loops[k].innermost || !o->conditional || o->start < p->start || o->end > p->end ||
		    (o->start < l->end && l->start < o->end))
			continue;
		double t = loops[k].trips >= 2 && loops[k].trips <= 1e5 ? loops[k].trips : trips;
		c->nest.sibling_latch[c->nest.nsiblings] = o->latch;
		c->nest.sibling_trips[c->nest.nsiblings++] = (unsigned)t;
	}
}

int merge_elf_sim_code(const char *path, const char *function, uint64_t start, uint64_t end,
		       const struct sim_machine *m, struct merge_code *out, char *source, size_t sourcelen,
		       char *loop_note, size_t notelen, char *err, size_t errlen)
{
	int rc = function ? merge_elf_function(path, function, out, err, errlen)
			  : merge_elf_range(path, start, end, out, err, errlen);
	if (rc)
		return rc;
	snprintf(source, sourcelen, "%s:%s", path, out->name);
	if (notelen)
		loop_note[0] = 0;
	if (!function || !m)
		return 0;
	/* a function's time goes to its loops: the innermost one it spends
	 * it in, as far as the code tells */
	struct sim_loop_info loops[SIM_MAX_LOOPS];
	size_t n = sim_loop_nest(m, out->addr, out->bytes, out->len, loops, SIM_MAX_LOOPS);
	int hot = sim_hot_loop(loops, n, loop_note, notelen);
	if (hot < 0) {
		if (notelen)
			loop_note[0] = 0;
		return 0;
	}
	uint64_t ls = loops[hot].loop.start, le = loops[hot].loop.end;
	if (ls == out->addr && le == out->addr + out->len)
		return 0;
	set_nest(out, loops, n, hot);
	memmove(out->bytes, out->bytes + (ls - out->addr), (size_t)(le - ls));
	out->len = (size_t)(le - ls);
	out->addr = ls;
	snprintf(source, sourcelen, "%s:%s, innermost loop 0x%llx-0x%llx (--whole for all of it)", path, out->name,
		 (unsigned long long)ls, (unsigned long long)le);
	return 0;
}

int merge_elf_file_offset(const char *path, uint64_t addr, uint64_t *off, char *err, size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	size_t nph = 0;
	int rc = -1;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* the bytes the file holds: a range in .bss has no offset */
			if (addr >= ph.p_vaddr && addr - ph.p_vaddr <= ph.p_filesz) {
				*off = ph.p_offset + (addr - ph.p_vaddr);
				rc = 0;
				break;
			}
		}
	if (rc)
		snprintf(err, errlen, "%s: address 0x%llx is in no loadable segment", path, (unsigned long long)addr);
	elf_end(e);
	close(fd);
	return rc;
}

int merge_elf_build_id(const char *path, char *hex, size_t n, char *err, size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	hex[0] = 0;
	Elf_Scn *scn = NULL;
	while (!hex[0] && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
				continue;
			const unsigned char *b = (const unsigned char *)d->d_buf + desc_off;
			for (size_t i = 0; i < nh.n_descsz && 2 * i + 2 < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[i]);
			break;
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* --------------------------------------------------- shared libraries --- */
/* DT_NEEDED names and DT_RUNPATH/DT_RPATH of PATH; 0, -1 when unreadable */
static int dynamic_entries(const char *path, char ***needed, size_t *n, char **runpath)
{
	char err[512];
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, sizeof err);
	*needed = NULL;
	*n = 0;
	*runpath = NULL;
	if (!e)
		return -1;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				char **v = realloc(*needed, (*n + 1) * sizeof *v);
				if (!v || !(v[*n] = strdup(s)))
					abort();
				*needed = v;
				(*n)++;
			} else if (!*runpath || dyn.d_tag == DT_RUNPATH) {
				free(*runpath);
				if (!(*runpath = strdup(s)))
					abort();
			}
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* NAME in the directories of the colon-separated LIST ($ORIGIN: the
 * directory of ORIGIN) */
static bool search_dirs(const char *list, const char *origin, const char *name, char *out, size_t n)
{
	if (!list)
		return false;
	const char *slash = strrchr(origin, '/');
	int olen = slash ? (int)(slash - origin) : 1;
	const char *odir = slash ? origin : ".";
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");
		char dir[4096];
		if (len >= 7 && !strncmp(p, "$ORIGIN", 7))
			snprintf(dir, sizeof dir, "%.*s%.*s", olen, odir, (int)(len - 7), p + 7);
		else if (len >= 9 && !strncmp(p, "${ORIGIN}", 9))
			snprintf(dir, sizeof dir, "%.*s%.*s", olen, odir, (int)(len - 9), p + 9);
		else
			snprintf(dir, sizeof dir, "%.*s", (int)len, p);
		if (len && snprintf(out, n, "%s/%s", dir, name) < (int)n && access(out, R_OK) == 0)
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

int merge_elf_libraries(const char *program, char ***paths, size_t *n)
{
	static const char system_dirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
					  "/lib:/usr/lib:/usr/local/lib";
	*paths = NULL;
	*n = 0;
	/* breadth first from the program, as the dynamic loader orders them */
	char **queue = malloc(sizeof *queue);
	if (!queue || !(queue[0] = strdup(program)))
		abort();
	size_t nq = 1;
	for (size_t q = 0; q < nq && nq < 256; q++) {
		char **needed, *runpath;
		size_t nn;
		if (dynamic_entries(queue[q], &needed, &nn, &runpath))
			continue;
		for (size_t i = 0; i < nn; i++) {
			char path[4096];
			bool found = strchr(needed[i], '/') ? snprintf(path, sizeof path, "%s", needed[i]) > 0
							 : search_dirs(runpath, queue[q], needed[i], path, sizeof path) ||
							   search_dirs(getenv("LD_LIBRARY_PATH"), queue[q], needed[i],
								       path, sizeof path) ||
							   search_dirs(system_dirs, queue[q], needed[i], path, sizeof path);
			bool seen = false;
			for (size_t j = 0; found && j < nq; j++)
				seen |= !strcmp(queue[j], path);
			if (found && !seen) {
				char **v = realloc(queue, (nq + 1) * sizeof *v);
				if (!v || !(v[nq] = strdup(path)))
					abort();
				queue = v;
				nq++;
			}
			free(needed[i]);
		}
		free(needed);
		free(runpath);
	}
	free(queue[0]);
	if (nq > 1)
		memmove(queue, queue + 1, (nq - 1) * sizeof *queue);
	*paths = queue;
	*n = nq - 1;
	return 0;
}

int merge_elf_interpreter(const char *path, char *out, size_t n, char *err, size_t errlen)
{
	int fd;
	Elf *e = mg_open_elf(path, &fd, err, errlen);
	if (!e)
		return -1;
	out[0] = 0;
	size_t nph = 0;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP || !ph.p_filesz || ph.p_filesz > 4096)
				continue;
			size_t len = ph.p_filesz < n ? ph.p_filesz : n - 1;
			ssize_t r = pread(fd, out, len, (off_t)ph.p_offset);
			out[r > 0 ? (size_t)r < len ? (size_t)r : len : 0] = 0;
			out[strnlen(out, len)] = 0;
			break;
		}
	elf_end(e);
	close(fd);
	return 0;
}
