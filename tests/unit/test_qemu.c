/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU tracer end to end: tests/workloads/arraywalk run under
 * qemu-x86_64 with gus's plugin; the instruction counts, data addresses,
 * taken/entry flags and block counts are known from the program's source
 * (one loop of N iterations per function over a global array). */
#include "collect.h"
#include "collect_internal.h"
#include "qemu_wire.h"
#include "tap.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

struct rec {
	struct stream_insn *v;
	size_t n, cap;
	size_t batches, mixed_batches;	/* batches whose array loads are not one ascending run */
	uint64_t base, end;		/* the array, for mixed_batches */
	struct blk {
		uint64_t addr, count;
		uint32_t n;
	} *b;
	size_t nb, capb;
	int stop_after;			/* sink returns non-zero after this many batches (0: never) */
};

static int sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct rec *r = ctx;
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		if (!r->v)
			abort();
	}
	memcpy(r->v + r->n, v, n * sizeof(*v));
	r->n += n;
	r->batches++;
	uint64_t last = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].nmem && v[i].mem[0] >= r->base && v[i].mem[0] < r->end) {
			if (last && v[i].mem[0] != last + 8) {
				r->mixed_batches++;
				break;
			}
			last = v[i].mem[0];
		}
	if (r->stop_after && (int)r->batches >= r->stop_after)
		return 7;
	return 0;
}

static void block(void *ctx, uint64_t addr, uint32_t ninsns, uint64_t count)
{
	struct rec *r = ctx;
	if (r->nb == r->capb) {
		r->capb = r->capb ? r->capb * 2 : 256;
		r->b = realloc(r->b, r->capb * sizeof(*r->b));
		if (!r->b)
			abort();
	}
	r->b[r->nb++] = (struct blk){ addr, count, ninsns };
}

static void rec_free(struct rec *r)
{
	free(r->v);
	free(r->b);
	memset(r, 0, sizeof(*r));
}

/* a symbol's st_value and st_size from the file's .symtab */
static int lookup(const char *path, const char *name, uint64_t *start, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb))
		return -1;
	char *f = malloc((size_t)sb.st_size);
	int rc = -1;
	if (!f || read(fd, f, (size_t)sb.st_size) != sb.st_size)
		goto out;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		const char *str = f + sh[sh[i].sh_link].sh_offset;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (!strcmp(str + sym[j].st_name, name)) {
				*start = sym[j].st_value;
				*size = sym[j].st_size;
				rc = 0;
				goto out;
			}
	}
out:
	free(f);
	close(fd);
	return rc;
}

/* mappings reported by the mapped callback */
struct maps {
	struct mapping {
		size_t obj;
		unsigned proc;
		uint64_t start, len, pgoff;
		size_t at;	/* records delivered before it */
	} m[256];
	size_t n;
	struct rec *r;
};
static struct maps maps;

static void mapped(void *ctx, size_t obj, unsigned proc, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct rec *r = ctx;
	if (maps.n < 256)
		maps.m[maps.n++] = (struct mapping){ obj, proc, start, len, pgoff, r ? r->n : 0 };
}

/* a symbol as a range of file offsets, through its PT_LOAD */
static int lookup_off(const char *path, const char *name, struct stream_range *r)
{
	uint64_t a, z;
	if (lookup(path, name, &a, &z))
		return -1;
	int fd = open(path, O_RDONLY);
	Elf64_Ehdr eh;
	int rc = -1;
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		goto out;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && a >= ph.p_vaddr && a < ph.p_vaddr + ph.p_filesz) {
			r->start = a - ph.p_vaddr + ph.p_offset;
			r->end = r->start + z;
			rc = 0;
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

static char prog[4096], outfile[4096];

/* Records checked against the mappings reported: each record lies in a
 * mapping of an object, inside one of that object's ranges (file offsets);
 * the mapping was reported before the record. *RETS: the rets among them
 * (one per call of a traced function). *OBJMASK: the objects seen. */
static size_t check_objects(const struct rec *r, const struct collect_qemu_object *objs, size_t *rets,
			    unsigned *objmask, unsigned *procmask)
{
	size_t bad = 0;
	*rets = 0;
	*objmask = *procmask = 0;
	for (size_t i = 0; i < maps.n; i++)
		*procmask |= 1u << (maps.m[i].proc & 31);
	for (size_t i = 0; i < r->n; i++) {
		const struct stream_insn *v = &r->v[i];
		bool ok = false;
		for (size_t k = 0; k < maps.n && !ok; k++) {
			const struct mapping *m = &maps.m[k];
			if (v->ip < m->start || v->ip >= m->start + m->len || m->at > i)
				continue;
			uint64_t f = v->ip - m->start + m->pgoff;
			const struct collect_qemu_object *ob = &objs[m->obj];
			for (size_t j = 0; j < ob->nranges; j++)
				if (f >= ob->ranges[j].start && f + v->size <= ob->ranges[j].end) {
					ok = true;
					*objmask |= 1u << m->obj;
				}
		}
		bad += !ok;
		*rets += v->bytes[0] == 0xc3 || (v->bytes[0] == 0xf3 && v->bytes[1] == 0xc3);
	}
	return bad;
}

static enum collect_status run_objects(struct rec *r, char **argv, const struct collect_qemu_object *objs,
				       size_t nobjs, bool follow, struct collect_qemu_stats *st,
				       struct collect_result *res, char *err, size_t errlen)
{
	struct collect_qemu_opts o = { .sink = sink, .ctx = r, .objects = objs, .nobjects = nobjs,
				       .mapped = mapped, .follow_children = follow, .data_addresses = true };
	maps.n = 0;
	err[0] = 0;
	enum collect_status s = collect_qemu_run(argv, &o, st, res, err, errlen);
	if (s != COLLECT_OK)
		printf("# collect_qemu_run: %d: %s\n", s, err);
	for (size_t i = 0; i < maps.n; i++)
		printf("# mapped: object %zu in process %u at 0x%" PRIx64 "+0x%" PRIx64 " from 0x%" PRIx64
		       " (after %zu records)\n", maps.m[i].obj, maps.m[i].proc, maps.m[i].start, maps.m[i].len,
		       maps.m[i].pgoff, maps.m[i].at);
	return s;
}

/* uselib, dlopener, forker and wrapper.sh: objects by file offset, forked
 * children, exec'd programs */
static void test_objects(const char *wl)
{
	char uselib[4200], libhot[4200], dlopener[4200], forker[4200], wrapper[4200];
	char err[COLLECT_ERRLEN];
	struct collect_qemu_stats st;
	struct collect_result res;
	struct rec r = { 0 };
	snprintf(uselib, sizeof(uselib), "%s/uselib", wl);
	snprintf(libhot, sizeof(libhot), "%s/libhot.so", wl);
	snprintf(dlopener, sizeof(dlopener), "%s/dlopener", wl);
	snprintf(forker, sizeof(forker), "%s/forker", wl);
	snprintf(wrapper, sizeof(wrapper), "%s/wrapper.sh", wl);
	struct stream_range collatz, dot, umain, work;
	if (!tap_ok(!lookup_off(libhot, "lib_collatz", &collatz) && !lookup_off(libhot, "lib_dot", &dot) &&
		    !lookup_off(uselib, "main", &umain) && !lookup_off(forker, "child_work", &work),
		    "file offsets of lib_collatz, lib_dot, uselib's main, child_work"))
		return;
	size_t rets, bad;
	unsigned objmask, procmask;

	/* a library the program links, and the program itself, by file offset */
	struct collect_qemu_object o2[2] = { { uselib, &umain, 1 }, { libhot, &collatz, 1 } };
	char *av1[] = { uselib, (char *)"2000", NULL };
	enum collect_status s = run_objects(&r, av1, o2, 2, false, &st, &res, err, sizeof err);
	bad = check_objects(&r, o2, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) && r.n > 1000,
	       "uselib: main and libhot.so's lib_collatz traced by file offset (%zu records)", r.n);
	tap_ok(bad == 0 && objmask == 3 && procmask == 1,
	       "uselib: every record inside a reported mapping of main or lib_collatz (%zu outside)", bad);
	tap_ok(rets == 2, "uselib: lib_collatz and main return once each (%zu rets)", rets);
	rec_free(&r);

	/* lib_dot: data addresses of the library's loads */
	struct collect_qemu_object od = { libhot, &dot, 1 };
	s = run_objects(&r, av1, &od, 1, false, &st, &res, err, sizeof err);
	size_t loads = 0;
	for (size_t i = 0; i < r.n; i++)
		loads += r.v[i].nmem > 0;
	bad = check_objects(&r, &od, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && bad == 0 && rets == 1 && loads >= 4000,
	       "uselib: lib_dot alone, %zu records, %zu with data addresses (%zu outside)", r.n, loads, bad);
	rec_free(&r);

	/* a library dlopen'ed at run time */
	struct collect_qemu_object oc = { libhot, &collatz, 1 };
	char *av2[] = { dlopener, (char *)"2000", NULL };
	s = run_objects(&r, av2, &oc, 1, false, &st, &res, err, sizeof err);
	bad = check_objects(&r, &oc, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && r.n > 1000 && bad == 0 && rets == 1 && maps.n >= 1,
	       "dlopener: lib_collatz of the dlopen'ed libhot.so traced (%zu records, %zu outside)", r.n, bad);
	rec_free(&r);

	/* forked children */
	struct collect_qemu_object ow = { forker, &work, 1 };
	char *av3[] = { forker, (char *)"20000", NULL };
	s = run_objects(&r, av3, &ow, 1, true, &st, &res, err, sizeof err);
	bad = check_objects(&r, &ow, &rets, &objmask, &procmask);
	size_t entries = 0;
	for (size_t i = 0; i < r.n; i++)
		entries += (r.v[i].flags & STREAM_ENTRY) != 0;
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) &&
	       r.n >= 2 * 20000 && bad == 0,
	       "forker: child_work traced in the workers (%zu records, %zu outside)", r.n, bad);
	tap_ok(rets == 2 && st.procs == 3 && procmask == 7,
	       "forker: 2 calls, from processes 1 and 2 besides the program (%zu rets, %u processes, "
	       "mask %#x)", rets, st.procs, procmask);
	tap_ok(entries >= 2 && (r.v[0].flags & STREAM_ENTRY), "forker: each worker's stretch starts with an "
	       "entry (%zu entries)", entries);
	rec_free(&r);
	/* ... not without follow_children: the workers are not traced */
	s = run_objects(&r, av3, &ow, 1, false, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_OK && r.n == 0 && st.procs == 1,
	       "forker without follow_children: no records (%zu)", r.n);
	rec_free(&r);

	/* a wrapper script that execs the program */
	char *av4[] = { wrapper, (char *)"uselib", (char *)"2000", NULL };
	s = run_objects(&r, av4, &oc, 1, true, &st, &res, err, sizeof err);
	bad = check_objects(&r, &oc, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) &&
	       r.n > 1000 && bad == 0 && rets == 1 && !(procmask & 1) && procmask,
	       "wrapper.sh uselib: lib_collatz traced in the exec'd program (%zu records, %zu outside, "
	       "%zu rets, processes %#x)", r.n, bad, rets, procmask);
	rec_free(&r);
	char *av5[] = { wrapper, (char *)"forker", (char *)"20000", NULL };
	s = run_objects(&r, av5, &ow, 1, true, &st, &res, err, sizeof err);
	bad = check_objects(&r, &ow, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) &&
	       r.n >= 2 * 20000 && bad == 0 && rets == 2,
	       "wrapper.sh forker: the exec'd program's workers traced (%zu records, %zu rets, %u processes)",
	       r.n, rets, st.procs);
	rec_free(&r);
	/* sh -c: two programs exec'd from forked shells, one after the other */
	char cmd[9000];
	snprintf(cmd, sizeof(cmd), "%s 1500; %s 1000 >/dev/null", uselib, uselib);
	char *av6[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };
	s = run_objects(&r, av6, &oc, 1, true, &st, &res, err, sizeof err);
	bad = check_objects(&r, &oc, &rets, &objmask, &procmask);
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) &&
	       r.n > 1000 && bad == 0 && rets == 2 && st.procs == 3 && !(procmask & 1),
	       "sh -c 'uselib; uselib': both exec'd programs traced (%zu records, %zu rets, %u processes)",
	       r.n, rets, st.procs);
	rec_free(&r);
	/* link-time ranges (gus sim --trace) with forked children: the
	 * workers inherit the program's relocated ranges */
	uint64_t wa, wz;
	if (!lookup(forker, "child_work", &wa, &wz)) {
		struct stream_range lr = { wa, wa + wz };
		struct collect_qemu_opts lo = { .sink = sink, .ctx = &r, .ranges = &lr, .nranges = 1,
						.follow_children = true };
		maps.n = 0;
		s = collect_qemu_run(av3, &lo, &st, &res, err, sizeof err);
		rets = 0;
		size_t outside = 0;
		for (size_t i = 0; i < r.n; i++) {
			rets += r.v[i].bytes[0] == 0xc3;
			outside += r.v[i].ip < wa + st.load_bias || r.v[i].ip >= wa + wz + st.load_bias;
		}
		tap_ok(s == COLLECT_OK && rets == 2 && outside == 0 && st.procs == 3 && maps.n == 0,
		       "forker, link-time range of child_work, follow_children: both workers (%zu rets, "
		       "%zu outside, %u processes)", rets, outside, st.procs);
		rec_free(&r);
	}
	/* the script itself without following: its interpreter runs, nothing traced */
	s = run_objects(&r, av4, &oc, 1, false, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status) && r.n == 0,
	       "wrapper.sh without follow_children: runs, the exec'd program untraced (%zu records)", r.n);
	rec_free(&r);
}

static enum collect_status run(struct rec *r, const struct collect_qemu_opts *base,
			       const char *mode, const char *arg, struct collect_qemu_stats *st,
			       struct collect_result *res, char *err, size_t errlen)
{
	struct collect_qemu_opts o = *base;
	o.sink = sink;
	o.block = block;
	o.ctx = r;
	char *argv[] = { prog, outfile, (char *)mode, (char *)arg, NULL };
	if (!mode)
		argv[2] = NULL;
	err[0] = 0;
	enum collect_status s = collect_qemu_run(argv, &o, st, res, err, errlen);
	if (s != COLLECT_OK)
		printf("# collect_qemu_run: %d: %s\n", s, err);
	return s;
}

static uint64_t read_base(int *n)
{
	FILE *f = fopen(outfile, "r");
	unsigned long long b = 0;
	if (!f)
		return 0;
	if (fscanf(f, "base=%llx n=%d", &b, n) != 2)
		b = 0;
	fclose(f);
	return b;
}

static size_t count_ip(const struct rec *r, uint64_t ip)
{
	size_t c = 0;
	for (size_t i = 0; i < r->n; i++)
		c += r->v[i].ip == ip;
	return c;
}

/* The wire format read from a buffer (collect_qemu_decode): a well-formed
 * stream, and the ones a plugin of another origin could send, each said
 * to be malformed without allocating what they ask for. */
static size_t w_hello(uint64_t *w)
{
	w[0] = QW_HELLO | (uint64_t)QW_VERSION << 8;
	w[1] = QW_MAGIC;
	return 2;
}

static size_t w_block(uint64_t *w, uint64_t id, uint32_t n, uint64_t ip)
{
	size_t k = 0;
	w[k++] = QW_BLOCK | (uint64_t)n << 8 | id << 24;
	for (uint32_t i = 0; i < n; i++) {
		w[k++] = ip + i;
		w[k++] = 1;	/* size 1: nop */
		w[k++] = 0x90;
		w[k++] = 0;
	}
	return k;
}

static size_t w_exec(uint64_t *w, uint64_t thread, const uint64_t *ids, size_t n, unsigned xflags)
{
	size_t k = 0;
	w[k++] = QW_CHUNK | thread << 8;
	w[k++] = n;
	for (size_t i = 0; i < n; i++)
		w[k++] = QW_EXEC | (uint64_t)xflags << 4 | ids[i] << 8;
	return k;
}

static size_t w_end(uint64_t *w)
{
	w[0] = QW_END;
	w[1] = 0;
	return 2;
}

static size_t w_map(uint64_t *w, uint64_t obj, uint64_t start, uint64_t len, uint64_t off)
{
	w[0] = QW_MAP | obj << 8;
	w[1] = start;
	w[2] = len;
	w[3] = off;
	return 4;
}

static int wire(const uint64_t *w, size_t n, struct rec *r, char *err, size_t errlen)
{
	static const struct stream_range fr = { 0, 0x100 };
	static const struct collect_qemu_object objs[2] = { { "a", &fr, 1 }, { "b", &fr, 1 } };
	struct collect_qemu_opts o = { .sink = sink, .ctx = r, .objects = objs, .nobjects = 2,
				       .mapped = mapped };
	struct collect_qemu_stats st;
	r->n = 0;
	maps.n = 0;
	return collect_qemu_decode(w, n * 8, 24, &o, &st, err, errlen);
}

/* MAP and EXECVE (version 2), and the version-1 streams gus still reads */
static void test_wire_map(void)
{
	uint64_t w[256];
	char err[256];
	struct rec r = { 0 };
	uint64_t ids[] = { 0, 0 };
	size_t n = w_hello(w);
	n += w_map(w + n, 1, 0x7f0000001000, 0x2000, 0x1000);
	n += w_block(w + n, 0, 2, 0x7f0000001010);
	n += w_exec(w + n, 0, ids, 2, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == 0 && maps.n == 1 && maps.m[0].obj == 1 &&
	       maps.m[0].proc == 0 && maps.m[0].start == 0x7f0000001000 && maps.m[0].len == 0x2000 &&
	       maps.m[0].pgoff == 0x1000 && maps.m[0].at == 0 && r.n == 4,
	       "wire: MAP of object 1 reported before its records (%s)", err);
	n = w_hello(w);
	n += w_map(w + n, 2, 0x1000, 0x1000, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && strstr(err, "malformed") && maps.n == 0,
	       "wire: MAP of object 2 of 2 is malformed");
	n = w_hello(w);
	n += w_map(w + n, (1ull << 56) - 1, 0x1000, 0x1000, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && maps.n == 0, "wire: MAP of object 2^56-1 is malformed");
	n = w_hello(w);
	n += w_map(w + n, 0, 0x1000, 0, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && maps.n == 0, "wire: an empty MAP is malformed");
	n = w_hello(w);
	n += w_map(w + n, 0, UINT64_MAX - 0xfff, 0x2000, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && maps.n == 0,
	       "wire: a MAP beyond the end of the address space is malformed");
	n = w_map(w, 0, 0x1000, 0x1000, 0);
	n += w_hello(w + n);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && maps.n == 0 && strstr(err, "greeting"),
	       "wire: a MAP before HELLO: no greeting (%s)", err);
	n = w_hello(w);
	n += w_map(w + n, 0, 0x1000, 0x1000, 0);
	w[n - 1] = 0;	/* cut inside the message: the stream ends early */
	tap_ok(wire(w, n - 1, &r, err, sizeof err) == -1 && maps.n == 0 && strstr(err, "ended early"),
	       "wire: a MAP cut short is not reported (%s)", err);
	/* a second BIAS, a second HELLO */
	n = w_hello(w);
	w[n++] = QW_BIAS;
	w[n++] = 0x1000;
	w[n++] = QW_BIAS;
	w[n++] = 0x1000;
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1, "wire: two BIAS messages are malformed");
	n = w_hello(w);
	n += w_hello(w + n);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1, "wire: two HELLO messages are malformed");
	/* EXECVE: the stream may end without END (the exec succeeded) */
	n = w_hello(w);
	n += w_block(w + n, 0, 1, 0x1000);
	n += w_exec(w + n, 0, ids, 1, 0);
	w[n++] = QW_EXECVE;
	w[n++] = 0;
	tap_ok(wire(w, n, &r, err, sizeof err) == 0 && r.n == 1, "wire: EXECVE then the end: complete (%s)", err);
	/* ... but not when it failed and the stream went on */
	n += w_exec(w + n, 0, ids, 1, 0);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && strstr(err, "ended early") && r.n == 2,
	       "wire: EXECVE, more records, no END: ended early");
	/* versions */
	n = w_hello(w);
	w[0] = QW_HELLO | 1u << 8;
	n += w_block(w + n, 0, 1, 0x1000);
	n += w_exec(w + n, 0, ids, 1, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == 0 && r.n == 1, "wire: a version-1 stream is read");
	w[0] = QW_HELLO | (uint64_t)(QW_VERSION + 1) << 8;
	tap_ok(wire(w, n, &r, err, sizeof err) == -1, "wire: version %d is refused", QW_VERSION + 1);
	free(r.v);
	free(r.b);
}

static void test_wire(void)
{
	uint64_t w[256];
	char err[256];
	struct rec r = { 0 };
	size_t n = w_hello(w);
	n += w_block(w + n, 0, 3, 0x1000);
	n += w_block(w + n, 1, 2, 0x2000);
	uint64_t ids[] = { 0, 1, 0 };
	n += w_exec(w + n, 0, ids, 3, QW_X_PREV_TAKEN);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == 0 && r.n == 8 && r.v[0].ip == 0x1000 && r.v[3].ip == 0x2000 &&
	       (r.v[2].flags & STREAM_TAKEN) && (r.v[4].flags & STREAM_TAKEN),
	       "wire: a well-formed stream in 24-byte reads: 8 records, taken branches between blocks");

	/* a block id far beyond the next one (was: gigabytes allocated) */
	n = w_hello(w);
	n += w_block(w + n, (1u << 30) - 1, 1, 0x1000);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && strstr(err, "malformed"),
	       "wire: block id 2^30-1 as the first block is malformed (%s)", err);
	n = w_hello(w);
	n += w_block(w + n, 0, 1, 0x1000);
	n += w_block(w + n, 2, 1, 0x1000);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1, "wire: block ids must count up from 0 (0 then 2 is malformed)");
	/* a zero-instruction block, then a taken-branch record (was: a write before the array) */
	n = w_hello(w);
	n += w_block(w + n, 0, 0, 0x1000);
	uint64_t z[] = { 0, 0 };
	n += w_exec(w + n, 0, z, 2, QW_X_PREV_TAKEN);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && r.n == 0, "wire: a block without instructions is malformed");
	/* thread numbers are bounded (the table is allocated up to them) */
	n = w_hello(w);
	n += w_block(w + n, 0, 1, 0x1000);
	n += w_exec(w + n, 1000000, ids, 1, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1, "wire: thread 1000000 is malformed");
	/* ... but a thread's first chunk may come before a lower-numbered
	 * thread's: chunks are written when a buffer fills or a thread ends
	 * (4 threads were "malformed" in a quarter of the runs) */
	n = w_hello(w);
	n += w_block(w + n, 0, 3, 0x1000);
	n += w_exec(w + n, 3, ids, 1, 0);
	n += w_exec(w + n, 0, ids, 1, 0);
	n += w_exec(w + n, 2, ids, 1, 0);
	n += w_exec(w + n, 1, ids, 1, 0);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == 0 && r.n == 12,
	       "wire: threads 3, 0, 2, 1 in that order: well-formed, 12 records (%s)", err);
	/* no greeting, no end */
	n = w_block(w, 0, 1, 0x1000);
	n += w_end(w + n);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && strstr(err, "greeting"), "wire: no HELLO: %s", err);
	n = w_hello(w);
	n += w_block(w + n, 0, 1, 0x1000);
	n += w_exec(w + n, 0, ids, 1, 0);
	tap_ok(wire(w, n, &r, err, sizeof err) == -1 && strstr(err, "ended early") && r.n == 1,
	       "wire: no END: ended early, the record kept (%s)", err);
	free(r.v);
	free(r.b);
}

/* This program as a fake qemu-x86_64 ($TEST_QEMU_FAKE names the scenario):
 * it writes made-up streams to the pipe (fd=) and to connections to gus's
 * socket (sock=), as forked children or exec'd programs would, so that the
 * reader of many connections meets what a plugin of another origin might
 * send. */
static int fake_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	/* "@NAME": the abstract namespace, as the plugin reads sock= */
	if (path[0] == '@')
		snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s", path + 1);
	else
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		exit(99);
	return s;
}

static void fake_write(int fd, const uint64_t *w, size_t n)
{
	if (write(fd, w, n * 8) != (ssize_t)(n * 8))
		exit(98);
}

static int fake_qemu(const char *scenario, int argc, char **argv)
{
	int fd = -1;
	char sock[200] = "";
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-plugin")) {
			const char *f = strstr(argv[i + 1], ",fd="), *k = strstr(argv[i + 1], ",sock=");
			if (f)
				fd = atoi(f + 4);
			if (k)
				sscanf(k + 6, "%199[^,]", sock);
		}
	if (fd < 0 || !sock[0])
		return 97;
	uint64_t w[64];
	uint64_t ids[] = { 0, 0 };
	size_t n;
	int c;
	if (!strcmp(scenario, "child-ok")) {
		/* the program execs (EXECVE, no END); a child maps, runs, ends; a
		 * second child connects and says nothing */
		n = w_hello(w);
		w[n++] = QW_EXECVE;
		w[n++] = 0;
		fake_write(fd, w, n);
		c = fake_connect(sock);
		n = w_hello(w);
		n += w_map(w + n, 0, 0x7f0000000000, 0x1000, 0x1000);
		n += w_block(w + n, 0, 2, 0x7f0000000010);
		n += w_exec(w + n, 0, ids, 2, 0);
		n += w_end(w + n);
		fake_write(c, w, n);
		close(c);
		close(fake_connect(sock));
	} else if (!strcmp(scenario, "child-bad-map") || !strcmp(scenario, "child-garbage")) {
		n = w_hello(w);
		n += w_end(w + n);
		fake_write(fd, w, n);
		c = fake_connect(sock);
		n = w_hello(w);
		if (!strcmp(scenario, "child-bad-map"))
			n += w_map(w + n, 7, 0x7f0000000000, 0x1000, 0);
		else
			w[n++] = 0xdeadbeef0;	/* type 0 */
		n += w_end(w + n);
		fake_write(c, w, n);
		/* a child that goes on: gus kills what it cannot trust */
		sleep(30);
	} else if (!strcmp(scenario, "late-child")) {
		/* the program ends first; its child connects later */
		n = w_hello(w);
		n += w_end(w + n);
		fake_write(fd, w, n);
		if (fork() == 0) {
			usleep(300000);
			c = fake_connect(sock);
			n = w_hello(w);
			n += w_block(w + n, 0, 3, 0x1000);
			n += w_exec(w + n, 0, ids, 1, 0);
			n += w_end(w + n);
			fake_write(c, w, n);
			_exit(0);
		}
	}
	return 0;
}

/* collect_qemu_run with the fake qemu above */
static void test_fake_connections(const char *self, const char *wl)
{
	char uselib[4200], err[COLLECT_ERRLEN];
	snprintf(uselib, sizeof(uselib), "%s/uselib", wl);
	static const struct stream_range fr = { 0x1000, 0x1100 };
	struct collect_qemu_object ob = { uselib, &fr, 1 };
	struct rec r = { 0 };
	struct collect_qemu_opts o = { .qemu = self, .sink = sink, .ctx = &r, .objects = &ob, .nobjects = 1,
				       .mapped = mapped, .follow_children = true };
	struct collect_qemu_stats st;
	struct collect_result res;
	char *av[] = { uselib, NULL };

	setenv("TEST_QEMU_FAKE", "child-ok", 1);
	maps.n = 0;
	err[0] = 0;
	enum collect_status s = collect_qemu_run(av, &o, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_OK && r.n == 4 && st.procs == 2 && maps.n == 1 && maps.m[0].proc == 1,
	       "fake qemu: the program execs, a child sends 4 records after its MAP, another connects "
	       "and says nothing (%d; %zu records, %u processes)", s, r.n, st.procs);
	rec_free(&r);
	setenv("TEST_QEMU_FAKE", "child-bad-map", 1);
	double t0 = collect_now();
	s = collect_qemu_run(av, &o, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_ERROR && strstr(err, "malformed") && collect_now() - t0 < 20,
	       "fake qemu: a child's MAP of an object gus did not name: malformed, the rest killed (%s)", err);
	rec_free(&r);
	setenv("TEST_QEMU_FAKE", "child-garbage", 1);
	s = collect_qemu_run(av, &o, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_ERROR && strstr(err, "malformed"), "fake qemu: a child's garbage: malformed (%s)", err);
	rec_free(&r);
	setenv("TEST_QEMU_FAKE", "late-child", 1);
	s = collect_qemu_run(av, &o, &st, &res, err, sizeof err);
	tap_ok(s == COLLECT_OK && r.n == 3 && st.procs == 2,
	       "fake qemu: a child that connects after the program ended is read (%d; %zu records)", s, r.n);
	rec_free(&r);
	unsetenv("TEST_QEMU_FAKE");
}

/* collect_qemu_lacks: code decoded against QEMU 7.2's CPU */
static void test_qemu_lacks(void)
{
	static const uint8_t evex[] = { 0xf3, 0x0f, 0x1e, 0xfa,	/* endbr64 */
					0x48, 0x01, 0xd8,	/* add rax, rbx */
					0x90,			/* nop */
					0x62, 0xf1, 0x7c, 0x48, 0x58, 0x00 };	/* vaddps zmm0, zmm0, [rax] */
	static const uint8_t avx2[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xc5, 0xf5, 0xfe, 0xc2,	/* vpaddd ymm0, ymm1, ymm2 */
					0xc4, 0xe2, 0x7d, 0x58, 0xc1,	/* vpbroadcastd ymm0, xmm1 */
					0xc3 };
	static const uint8_t kmask[] = { 0xc5, 0xfb, 0x92, 0xc8 };	/* kmovd k1, eax */
	static const uint8_t sha[] = { 0x0f, 0x38, 0xcb, 0xca };	/* sha256rnds2 xmm1, xmm2 */
	char why[256] = "";
	bool lacks = collect_qemu_lacks(evex, sizeof evex, 0x1000, why, sizeof why);
	tap_ok(lacks && strstr(why, "AVX512EVEX") && strstr(why, "vaddps at 0x1008"),
	       "qemu_lacks: an EVEX instruction, named with its address (%s)", why);
	why[0] = 0;
	tap_ok(!collect_qemu_lacks(avx2, sizeof avx2, 0x1000, why, sizeof why),
	       "qemu_lacks: endbr64 and AVX2 run under QEMU 7.2 (%s)", why);
	tap_ok(collect_qemu_lacks(kmask, sizeof kmask, 0, why, sizeof why) && strstr(why, "AVX512VEX"),
	       "qemu_lacks: an AVX-512 mask instruction (%s)", why);
	tap_ok(collect_qemu_lacks(sha, sizeof sha, 0, why, sizeof why) && strstr(why, "SHA"),
	       "qemu_lacks: SHA (%s)", why);
}

static bool same_record(const struct stream_insn *a, const struct stream_insn *b)
{
	if (a->ip != b->ip || a->size != b->size || a->flags != b->flags || a->window != b->window ||
	    a->thread != b->thread || a->nmem != b->nmem || a->store_mask != b->store_mask ||
	    memcmp(a->bytes, b->bytes, a->size))
		return false;
	for (unsigned i = 0; i < a->nmem && i < STREAM_MAX_MEM; i++)
		if (a->mem[i] != b->mem[i])
			return false;
	return true;
}

/* arraywalk's sum_array and bump_array traced by file offset (a schedule
 * each) in windows of 100 records, 2 a level, fully instrumented
 * throughout (window_gap UINT64_MAX): the runs the two window tests
 * compare against */
static bool phases_windows(struct stream_range fr[2], struct collect_qemu_object *obj,
			   struct collect_qemu_opts *o)
{
	if (!tap_ok(!lookup_off(prog, "sum_array", &fr[0]) && !lookup_off(prog, "bump_array", &fr[1]),
		    "file offsets of sum_array and bump_array"))
		return false;
	*obj = (struct collect_qemu_object){ prog, fr, 2 };
	*o = (struct collect_qemu_opts){ .objects = obj, .nobjects = 1, .data_addresses = true,
					 .window_records = 100, .windows_per_level = 2,
					 .window_gap = UINT64_MAX };
	return true;
}

/* 6. windows: the code between them runs cheaply instrumented (the
 * plugin flushes QEMU's translations at each switch), and not one record
 * differs from a run instrumented fully throughout; sum_array and
 * bump_array by file offset (a schedule each), bump_array first entered
 * while sum_array's code is cheap */
static void test_window_modes(void)
{
	char err[COLLECT_ERRLEN];
	struct collect_qemu_stats st_full, st_cheap;
	struct collect_result res;
	struct rec full = { 0 }, cheap = { 0 };
	struct stream_range fr[2];
	struct collect_qemu_object obj;
	struct collect_qemu_opts o;
	if (!phases_windows(fr, &obj, &o))
		return;
	enum collect_status s1 = run(&full, &o, "phases", "600", &st_full, &res, err, sizeof(err));
	o.window_gap = 8192;	/* the least the plugin takes */
	enum collect_status s2 = run(&cheap, &o, "phases", "600", &st_cheap, &res, err, sizeof(err));
	tap_ok(s1 == COLLECT_OK && s2 == COLLECT_OK && full.n > 1000,
	       "arraywalk phases traced in windows, fully and cheaply between them (%zu records)", full.n);
	tap_ok(st_full.mode_switches == 0 && st_cheap.mode_switches >= 20,
	       "the cheap run switched instrumentation %" PRIu64 " times, the full one %" PRIu64,
	       st_cheap.mode_switches, st_full.mode_switches);
	size_t diff = full.n == cheap.n ? 0 : 1 + full.n, windows = 0, loads = 0, stores = 0;
	for (size_t i = 0; i < full.n && i < cheap.n; i++) {
		diff += !same_record(&full.v[i], &cheap.v[i]);
		windows += (full.v[i].flags & STREAM_WINDOW) != 0;
		/* sum_array loads, bump_array's add to memory is marked stored */
		loads += full.v[i].nmem > 0 && !full.v[i].store_mask;
		stores += full.v[i].nmem > 0 && full.v[i].store_mask;
	}
	tap_ok(diff == 0 && windows > 40 && loads > 0 && stores > 0,
	       "the same %zu records (%zu windows; %zu loads, %zu stores) either way (%zu differ)",
	       cheap.n, windows, loads, stores, diff);
	rec_free(&full);
	rec_free(&cheap);
}

/* 7. windows with the watcher: between them a range's code is a bare
 * count (no callback) and the plugin's watcher thread switches it back to
 * full code bare= records before the next window (4 M here, with pace=
 * 1 ms so that this short run has gaps long enough); every window the
 * same as in a run instrumented fully throughout, but those the plugin
 * says opened late, and neither run with a window the other lacks */
static void test_window_watch(void)
{
	char err[COLLECT_ERRLEN];
	struct collect_qemu_stats st_full, st_watch;
	struct collect_result res;
	struct rec full = { 0 }, watch = { 0 };
	struct stream_range fr[2];
	struct collect_qemu_object obj;
	struct collect_qemu_opts o;
	if (!phases_windows(fr, &obj, &o))
		return;
	enum collect_status s1 = run(&full, &o, "phases", "60000", &st_full, &res, err, sizeof(err));
	o.window_gap = 0;
	o.window_pace_ns = 1000000;
	o.window_bare_records = 4000000;
	o.window_exact = true;
	enum collect_status s2 = run(&watch, &o, "phases", "60000", &st_watch, &res, err, sizeof(err));
	tap_ok(s1 == COLLECT_OK && s2 == COLLECT_OK && full.n > 1000,
	       "arraywalk phases 60000 in windows, fully and with the watcher (%zu and %zu records)", full.n,
	       watch.n);
	tap_ok(st_full.mode_switches == 0 && st_watch.mode_switches >= 4 && st_watch.bare_arms >= 2,
	       "the watched run switched instrumentation %" PRIu64 " times (%" PRIu64
	       " back from bare code), the full one %" PRIu64,
	       st_watch.mode_switches, st_watch.bare_arms, st_full.mode_switches);
	/* the windows in order: [start, end) in each */
	size_t nw = 0, same = 0, windows_full = 0, i = 0, j = 0;
	while (i < full.n && j < watch.n) {
		size_t ie = i + 1, je = j + 1;
		while (ie < full.n && !(full.v[ie].flags & STREAM_WINDOW))
			ie++;
		while (je < watch.n && !(watch.v[je].flags & STREAM_WINDOW))
			je++;
		bool eq = ie - i == je - j && full.v[i].window == watch.v[j].window;
		for (size_t k = 0; eq && k < ie - i; k++)
			eq = same_record(&full.v[i + k], &watch.v[j + k]);
		same += eq;
		nw++;
		i = ie;
		j = je;
	}
	for (size_t k = 0; k < full.n; k++)
		windows_full += (full.v[k].flags & STREAM_WINDOW) != 0;
	tap_ok(nw == windows_full && i >= full.n && j >= watch.n && nw > 40 && same + st_watch.late_windows >= nw &&
		       st_watch.late_windows * 2 <= nw,
	       "%zu of %zu windows the same, %" PRIu64 " opened late (at most half: the watcher is timed)", same, nw,
	       st_watch.late_windows);
	rec_free(&full);
	rec_free(&watch);
}

/* how many windows of each of the two ranges a stream holds */
static void window_census(const struct rec *r, size_t count[2])
{
	count[0] = count[1] = 0;
	for (size_t i = 0; i < r->n; i++)
		if ((r->v[i].flags & STREAM_WINDOW) && STREAM_WINDOW_RANGE(r->v[i].window) < 2)
			count[STREAM_WINDOW_RANGE(r->v[i].window)]++;
}

/* 8. two functions interleaved at different paces, each with its
 * schedule, with the watcher; one reference run with every window where
 * its schedule says and every place counted (window_exact) beside:
 * - batched (window_counted): a switch to full code for one's window
 *   opens the other's next window too where it is already in its stratum
 *   (pulled, which the plugin counts), and the run holds the same
 *   windows (as many of each range, give or take its last, as many
 *   records);
 * - dark (the default): far from its windows a range's code holds
 *   nothing, its place reckoned from the thread's CPU time at the pace it
 *   went while counted; the reckoning is behind (dark code runs faster),
 *   so the windows come later and fewer, but over the whole run. */
static void test_window_batches(void)
{
	char err[COLLECT_ERRLEN];
	struct collect_qemu_stats st_exact, st_pull, st_dark;
	struct collect_result res;
	struct rec exact = { 0 }, pulled = { 0 }, dark = { 0 };
	struct stream_range fr[2];
	struct collect_qemu_object obj;
	struct collect_qemu_opts o;
	if (!phases_windows(fr, &obj, &o))
		return;
	o.window_gap = 0;
	o.window_pace_ns = 1000000;
	o.window_bare_records = 4000000;
	o.window_exact = true;
	enum collect_status s1 = run(&exact, &o, "alternate", "60000", &st_exact, &res, err, sizeof(err));
	o.window_exact = false;
	o.window_counted = true;
	enum collect_status s2 = run(&pulled, &o, "alternate", "60000", &st_pull, &res, err, sizeof(err));
	o.window_counted = false;
	enum collect_status s3 = run(&dark, &o, "alternate", "60000", &st_dark, &res, err, sizeof(err));
	tap_ok(s1 == COLLECT_OK && s2 == COLLECT_OK && s3 == COLLECT_OK && exact.n > 1000 && pulled.n > 1000 &&
		       dark.n > 1000,
	       "arraywalk alternate 60000 in windows: each where its schedule says, batched, dark between them "
	       "(%zu, %zu and %zu records)",
	       exact.n, pulled.n, dark.n);
	size_t ce[2], cp[2], cd[2];
	window_census(&exact, ce);
	window_census(&pulled, cp);
	window_census(&dark, cd);

	/* (how many switches each run makes depends on the machine's load,
	 * the pace being CPU time: not compared here; gzip -9's five ranges,
	 * 612 -> 260, in gus-record(1)) */
	tap_ok(st_exact.pulled_windows == 0 && st_pull.pulled_windows >= 4 && st_exact.mode_switches >= 8 &&
		       st_pull.mode_switches >= 8,
	       "batched, %" PRIu64 " windows pulled into the other range's switch (%" PRIu64
	       " switches of instrumentation, windows each on their own %" PRIu64 ")",
	       st_pull.pulled_windows, st_pull.mode_switches, st_exact.mode_switches);
	/* each window W records (100), to the block that reaches them */
	size_t slack = 2 * (100 + 64);
	tap_ok(ce[0] > 20 && ce[1] > 20 && cp[0] + 1 >= ce[0] && cp[0] <= ce[0] + 1 && cp[1] + 1 >= ce[1] &&
		       cp[1] <= ce[1] + 1 && pulled.n + slack >= exact.n && pulled.n <= exact.n + slack,
	       "batched, the same windows: sum_array %zu and %zu, bump_array %zu and %zu (%zu and %zu records)",
	       ce[0], cp[0], ce[1], cp[1], exact.n, pulled.n);

	tap_ok(st_exact.dark_switches == 0 && st_pull.dark_switches == 0 && st_dark.dark_switches >= 2 &&
		       st_dark.bare_arms >= 2,
	       "the dark run made code dark %" PRIu64 " times, the watcher switched it back %" PRIu64
	       " times (the counted runs %" PRIu64 " and %" PRIu64 ")",
	       st_dark.dark_switches, st_dark.bare_arms, st_exact.dark_switches, st_pull.dark_switches);
	tap_ok(cd[0] <= ce[0] + 1 && cd[1] <= ce[1] + 1 && cd[0] * 4 >= ce[0] * 3 && cd[1] * 4 >= ce[1] * 3,
	       "dark, windows over the whole run: sum_array %zu of %zu, bump_array %zu of %zu", cd[0], ce[0], cd[1],
	       ce[1]);
	rec_free(&exact);
	rec_free(&pulled);
	rec_free(&dark);
}

int main(int argc, char **argv)
{
	if (getenv("TEST_QEMU_FAKE"))
		return fake_qemu(getenv("TEST_QEMU_FAKE"), argc, argv);
	const char *wl = getenv("WORKLOADS");
	char err[COLLECT_ERRLEN];
	struct collect_qemu_stats st;
	struct collect_result res;
	struct rec r = { 0 };
	if (!wl)
		wl = "tests/workloads";
	test_wire();
	test_wire_map();
	test_qemu_lacks();
	/* the tracer's socket is an abstract one: nothing of it is left in
	 * $TMPDIR (a private one here, which must be empty at the end) */
	char tmpl[] = "/tmp/test_qemu.tmp.XXXXXX";
	const char *old_tmp = getenv("TMPDIR");
	char *saved_tmp = old_tmp ? strdup(old_tmp) : NULL;
	if (mkdtemp(tmpl))
		setenv("TMPDIR", tmpl, 1);
	test_objects(wl);
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl > 0) {
		self[sl] = 0;
		test_fake_connections(self, wl);
	}
	tap_ok(rmdir(tmpl) == 0, "nothing of the tracer's sockets is left under $TMPDIR (%s)", tmpl);
	if (saved_tmp)
		setenv("TMPDIR", saved_tmp, 1);
	else
		unsetenv("TMPDIR");
	free(saved_tmp);
	snprintf(prog, sizeof(prog), "%s/arraywalk", wl);
	snprintf(outfile, sizeof(outfile), "%s/test_qemu.%d.out", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());

	uint64_t s_sum, z_sum, s_fill, z_fill, s_bump, z_bump;
	if (!tap_ok(!lookup(prog, "sum_array", &s_sum, &z_sum) &&
		    !lookup(prog, "fill_array", &s_fill, &z_fill) &&
		    !lookup(prog, "bump_array", &s_bump, &z_bump), "symbols of %s", prog))
		return tap_done();

	/* 1. exact counts: sum_array traced alone */
	struct stream_range rsum = { s_sum, s_sum + z_sum };
	struct collect_qemu_opts o = { .ranges = &rsum, .nranges = 1, .block_counts = true };
	enum collect_status s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status),
	       "sum_array traced, program exits 0");
	int n = 0;
	uint64_t base = read_base(&n);
	tap_ok(base && n == 1000, "arraywalk wrote its array base and N (%d)", n);
	uint64_t bias = st.load_bias;
	tap_ok(st.insns == r.n && r.n > 0, "stats count the %zu records", r.n);
	size_t outside = 0, entries = 0;
	for (size_t i = 0; i < r.n; i++) {
		outside += r.v[i].ip < s_sum + bias || r.v[i].ip >= s_sum + z_sum + bias;
		entries += (r.v[i].flags & STREAM_ENTRY) != 0;
	}
	tap_ok(outside == 0, "no record outside sum_array (%zu)", outside);
	tap_ok(entries == 1 && (r.v[0].flags & STREAM_ENTRY), "one entry, at the first record");
	/* the loop: the backward taken branch */
	uint64_t lo = 0, hi = 0;
	for (size_t i = 0; i + 1 < r.n; i++)
		if ((r.v[i].flags & STREAM_TAKEN) && r.v[i + 1].ip < r.v[i].ip) {
			lo = r.v[i + 1].ip;
			hi = r.v[i].ip + r.v[i].size;
			break;
		}
	tap_ok(lo && hi > lo, "loop found at 0x%" PRIx64 "-0x%" PRIx64, lo, hi);
	size_t body = 0, bad = 0, taken_back = 0, nottaken_back = 0;
	for (size_t i = 0; i < r.n; i++) {
		const struct stream_insn *v = &r.v[i];
		if (v->ip >= lo && v->ip < hi && v->ip + v->size == hi) {
			taken_back += (v->flags & STREAM_TAKEN) != 0;
			nottaken_back += !(v->flags & STREAM_TAKEN);
		}
	}
	for (uint64_t ip = lo; ip < hi;) {
		size_t c = count_ip(&r, ip);
		body++;
		bad += c != 1000;
		size_t k;
		for (k = 0; k < r.n && r.v[k].ip != ip; k++)
			;
		if (k == r.n || !r.v[k].size)
			break;
		ip += r.v[k].size;
	}
	tap_ok(body >= 2 && bad == 0, "each of the %zu loop instructions ran exactly 1000 times", body);
	tap_ok(taken_back == 999 && nottaken_back == 1, "loop branch taken 999 times, falls out once "
	       "(%zu, %zu)", taken_back, nottaken_back);
	tap_ok(r.n == 1000 * body + 7, "%zu records: 1000 iterations plus 7 around the loop", r.n);
	tap_ok((r.v[r.n - 1].flags & STREAM_TAKEN) == 0 && r.v[r.n - 1].bytes[0] == 0xc3,
	       "the last record is sum_array's ret");
	size_t seq_bad = 0;
	for (size_t i = 0; i + 1 < r.n; i++) {
		bool fall = r.v[i + 1].ip == r.v[i].ip + r.v[i].size;
		seq_bad += fall == ((r.v[i].flags & STREAM_TAKEN) != 0);
	}
	tap_ok(seq_bad == 0, "TAKEN set exactly where the next record is not at ip+size (%zu bad)",
	       seq_bad);

	/* 4. block counts */
	uint64_t in_fn = 0, loop_blocks = 0;
	for (size_t i = 0; i < r.nb; i++)
		if (r.b[i].addr >= s_sum + bias && r.b[i].addr < s_sum + z_sum + bias) {
			in_fn += r.b[i].count * r.b[i].n;
			if (r.b[i].addr == lo)
				loop_blocks += r.b[i].count;
		}
	tap_ok(r.nb > 10, "block counts reported (%zu blocks)", r.nb);
	tap_ok(in_fn == r.n, "block counts in sum_array add up to the records (%" PRIu64 ")", in_fn);
	tap_ok(loop_blocks == 999, "the loop's block ran 999 times (QEMU runs the first iteration "
	       "in the block before) (%" PRIu64 ")", loop_blocks);
	rec_free(&r);

	/* 2. data addresses: loads, stores, read-modify-writes */
	struct stream_range rall[3] = {
		{ s_fill, s_fill + z_fill }, { s_sum, s_sum + z_sum }, { s_bump, s_bump + z_bump }
	};
	o = (struct collect_qemu_opts){ .ranges = rall, .nranges = 3, .data_addresses = true };
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK, "three functions traced with data addresses");
	size_t na = 0, order_bad = 0, kind_bad = 0, other_mem = 0;
	for (size_t i = 0; i < r.n; i++) {
		const struct stream_insn *v = &r.v[i];
		if (!(v->flags & STREAM_HAS_MEM))
			continue;
		if (v->nmem != 1 || v->mem[0] < base || v->mem[0] >= base + 8000) {
			other_mem += v->bytes[0] != 0xc3;	/* ret pops the stack */
			continue;
		}
		size_t phase = na / 1000, idx = na % 1000;
		order_bad += v->mem[0] != base + 8 * idx;
		/* fill stores, sum loads, bump loads and stores the same address */
		unsigned want = phase == 1 ? 0 : 1;
		uint64_t fn = phase == 0 ? s_fill : phase == 1 ? s_sum : s_bump;
		kind_bad += v->store_mask != want || v->ip < fn + bias;
		na++;
	}
	tap_ok(na == 3000, "3000 array accesses (%zu)", na);
	tap_ok(order_bad == 0, "each walk's addresses are base + 8*i in order (%zu bad)", order_bad);
	tap_ok(kind_bad == 0, "store bits: fill stores, sum loads, bump's add to memory is one "
	       "address marked stored (%zu bad)", kind_bad);
	tap_ok(other_mem == 0, "no other instruction has data addresses but ret (%zu)", other_mem);
	rec_free(&r);

	/* 3. the loop alone as range, three calls: entries and the loop exit */
	struct stream_range rloop = { lo - bias, hi - bias };
	o = (struct collect_qemu_opts){ .ranges = &rloop, .nranges = 1 };
	s = run(&r, &o, "hot", "3", &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK, "loop range traced over three calls");
	size_t ent = 0, outr = 0, tb = 0, exit_ok = 0;
	for (size_t i = 0; i < r.n; i++) {
		const struct stream_insn *v = &r.v[i];
		outr += v->ip < lo || v->ip >= hi;
		if (v->flags & STREAM_ENTRY) {
			ent++;
			/* the record before an entry is the loop branch falling out */
			if (i > 0 && r.v[i - 1].ip + r.v[i - 1].size == hi &&
			    !(r.v[i - 1].flags & STREAM_TAKEN))
				exit_ok++;
		}
		if (v->ip + v->size == hi)
			tb += (v->flags & STREAM_TAKEN) != 0;
	}
	tap_ok(outr == 0, "no record outside the loop (%zu)", outr);
	tap_ok(r.n == 3 * 1000 * body, "%zu records: 3 x 1000 iterations of %zu", r.n, body);
	tap_ok(ent == 3 && (r.v[0].flags & STREAM_ENTRY), "an entry at each call (%zu)", ent);
	tap_ok(exit_ok == 2, "the branch leaving the loop by falling through is not taken (%zu)",
	       exit_ok);
	tap_ok(tb == 3 * 999, "the loop branch is taken 2997 times (%zu)", tb);
	rec_free(&r);

	/* whole program, cut at max_insns */
	o = (struct collect_qemu_opts){ .max_insns = 50000, .data_addresses = true };
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && st.truncated && st.insns == 50000 && r.n == 50000,
	       "all code, cut at 50000 records (%zu)", r.n);
	seq_bad = 0;
	size_t ent_all = 0;
	for (size_t i = 0; i + 1 < r.n; i++) {
		bool fall = r.v[i + 1].ip == r.v[i].ip + r.v[i].size;
		seq_bad += fall == ((r.v[i].flags & STREAM_TAKEN) != 0);
		ent_all += (r.v[i].flags & (STREAM_ENTRY | STREAM_GAP)) != 0;
	}
	tap_ok(seq_bad == 0 && ent_all == 0, "without ranges TAKEN matches the addresses (%zu bad), "
	       "no entries (%zu)", seq_bad, ent_all);
	tap_ok(WIFEXITED(res.wait_status) && !WEXITSTATUS(res.wait_status),
	       "the program ran on to its end");
	rec_free(&r);

	/* threads: each batch one thread's records */
	o = (struct collect_qemu_opts){ .ranges = &rsum, .nranges = 1, .data_addresses = true };
	r.base = base;
	r.end = base + 8000;
	s = run(&r, &o, "threads", "4", &st, &res, err, sizeof(err));
	size_t hits[1000] = { 0 }, nhit = 0;
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].nmem && r.v[i].mem[0] >= base && r.v[i].mem[0] < base + 8000) {
			hits[(r.v[i].mem[0] - base) / 8]++;
			nhit++;
		}
	size_t not4 = 0;
	for (int i = 0; i < 1000; i++)
		not4 += hits[i] != 4;
	tap_ok(s == COLLECT_OK && nhit == 4000 && not4 == 0,
	       "4 threads: every element loaded 4 times (%zu loads)", nhit);
	tap_ok(r.mixed_batches == 0, "no batch mixes threads (%zu of %zu)", r.mixed_batches,
	       r.batches);
	rec_free(&r);

	/* a consumer that stops */
	o = (struct collect_qemu_opts){ 0 };
	r.stop_after = 2;
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, "consumer") && r.batches == 2,
	       "a sink's non-zero return stops the run");
	rec_free(&r);

	test_window_modes();
	test_window_watch();
	test_window_batches();

	/* 5. errors and exit statuses */
	o = (struct collect_qemu_opts){ .ranges = &rsum, .nranges = 1 };
	s = run(&r, &o, "exit", "3", &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && WIFEXITED(res.wait_status) && WEXITSTATUS(res.wait_status) == 3 &&
	       r.n > 0, "exit status 3 reported, records kept");
	rec_free(&r);
	s = run(&r, &o, "kill", "15", &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && WIFSIGNALED(res.wait_status) && WTERMSIG(res.wait_status) == 15 &&
	       r.n > 0, "death by SIGTERM reported, records kept");
	rec_free(&r);
	s = run(&r, &o, "kill", "9", &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_OK && WIFSIGNALED(res.wait_status) && WTERMSIG(res.wait_status) == 9,
	       "death by SIGKILL reported");
	rec_free(&r);

	o.qemu = "/nonexistent/qemu-x86_64";
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_EXEC_FAILED && strstr(err, "qemu-user"),
	       "missing qemu: exec failed, the message names qemu-user");
	o.qemu = NULL;
	o.plugin = "/nonexistent/gus-qemu-plugin.so";
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, "/nonexistent/gus-qemu-plugin.so"),
	       "missing plugin: the message names it");
	/* a file that is no plugin: qemu refuses it */
	o.plugin = outfile;
	s = run(&r, &o, NULL, NULL, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, outfile) && strstr(err, "did not start"),
	       "a plugin QEMU cannot load: the message names it");
	o.plugin = NULL;

	char script[4200];
	snprintf(script, sizeof(script), "%s.sh", outfile);
	FILE *f = fopen(script, "w");
	if (f) {
		fputs("#!/bin/sh\nexit 0\n", f);
		fclose(f);
	}
	chmod(script, 0755);
	char *av1[] = { script, NULL };
	o.sink = sink;
	o.ctx = &r;
	s = collect_qemu_run(av1, &o, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, "not an x86-64 ELF executable") &&
	       strstr(err, script), "a shell script: not an x86-64 ELF executable");
	char *av2[] = { outfile, NULL };
	chmod(outfile, 0755);
	s = collect_qemu_run(av2, &o, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_ERROR && strstr(err, "not an x86-64 ELF executable"),
	       "a text file: not an x86-64 ELF executable (%s)", err);
	char *av3[] = { (char *)"/nonexistent/prog", NULL };
	s = collect_qemu_run(av3, &o, &st, &res, err, sizeof(err));
	tap_ok(s == COLLECT_EXEC_FAILED && strstr(err, "/nonexistent/prog"),
	       "a missing program: exec failed");
	unlink(script);
	unlink(outfile);
	rec_free(&r);
	return tap_done();
}
