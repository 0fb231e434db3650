/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT capture: the program started held at a pipe, one intel_pt
 * event per online CPU following it and its children (inherit), each with
 * its own data ring and AUX area mapped here; sideband comes from a dummy
 * software event per CPU whose output goes to the same ring, so that
 * disabling intel_pt for a snapshot does not lose mmaps. Records and trace
 * are written to gus.data while the program runs, committed at every
 * drain, so an interrupted recording keeps what was read.
 *
 * What this file writes to gus.data (for gus-data(5)):
 *
 *   meta  pt.type              perf_event_attr.type of intel_pt
 *         pt.config            attr.config, "0x..." (the PT packet options)
 *         pt.mode              "full" or "snapshot"
 *         pt.filter            the kernel address filter string, file
 *                              offsets ("filter 0xOFF/0xSIZE@/path,..."); absent: none
 *         pt.time_shift, pt.time_mult, pt.time_zero, pt.cap_user_time_zero
 *                              TSC <-> perf time, from the first CPU's
 *                              perf_event_mmap_page (see <linux/perf_event.h>)
 *         pt.mtc_freq          the mtc_period value in config, when MTC is on
 *         pt.nom_freq          max_nonturbo_ratio from sysfs, when known
 *         pt.cpuid_15_eax, pt.cpuid_15_ebx
 *                              CPUID leaf 0x15 (TSC/crystal ratio, for MTC)
 *         pt.aux_pages, pt.data_pages   per CPU, as mapped
 *         pt.ncpus             CPUs traced
 *         pt.aux_bytes, pt.aux_records, pt.truncated, pt.partial,
 *         pt.collisions, pt.overwritten, pt.lost_records, pt.lost_samples,
 *         pt.snapshots         the counts of collect_pt_stats at the end
 *         cpu.family, cpu.model, cpu.stepping   display values from CPUID
 *         pt.ring_error        the first corrupt-ring message (with ring-corrupt events)
 *         missing.pt           why no trace was captured (probe or setup failed)
 *         missing.vdso         why the vDSO image is not in files
 *   mmaps   every MMAP2 (exec mappings of the program and its children);
 *           build_id from the record (Linux 5.12+) or read from the file
 *   comms   COMM records, exec set for PERF_RECORD_MISC_COMM_EXEC
 *   files   "[vdso]": gus's own vDSO image. The kernel maps the same image
 *           in every process of an ABI, so the program's vDSO is this one;
 *           its build-id is stored with it to check that against.
 *   chunks  per CPU (tid -1): full mode one chunk per PERF_RECORD_AUX, its
 *           stream offset as aux_offset; snapshot mode one chunk per
 *           snapshot, aux_offset the bytes stored before it
 *   events  kind            pid/tid               a                  b
 *           itrace-start    the task              0                  0
 *           switch-in/-out  the task              1: preempted       next/prev tid (CPU-wide)
 *           fork, exit      the child / exiter    ppid               ptid
 *           lost            sample_id's           records lost       event id
 *           lost-samples    sample_id's           samples lost       0
 *           aux-truncated   sample_id's           AUX record size    stream offset
 *           aux-partial     sample_id's           AUX record size    stream offset
 *           aux-collision   sample_id's           AUX record size    stream offset
 *           aux-overwrite   -1                    snapshot bytes     its aux_offset
 *           ring-corrupt    -1                    bytes skipped      0
 */
#include "collect.h"
#include "collect_internal.h"
#include "gusdata.h"
#include "ptring.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define PT_X86 1
#endif

#define PT_SYSFS "/sys/bus/event_source/devices/intel_pt"

enum collect_status collect_pt_probe(const char *sysfs_dir, struct collect_pt_info *info, char *err,
				     size_t errlen)
{
	const char *dir = sysfs_dir ? sysfs_dir : PT_SYSFS;
	struct stat sb;
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		memset(info, 0, sizeof(*info));
		info->type = -1;
		snprintf(err, errlen,
			 "this machine has no Intel PT (intel_pt PMU missing: %s does not exist; a virtual "
			 "machine, a non-Intel or pre-Broadwell CPU, or PT disabled); use the QEMU tracer: "
			 "gus sim --trace --qemu ...",
			 dir);
		return COLLECT_NO_PMU;
	}
	if (ptring_read_pmu(dir, info, err, errlen))
		return COLLECT_ERROR;
	if (info->bit_pt < 0 && info->bit_branch < 0 && info->bit_tsc < 0) {
		snprintf(err, errlen, "%s/format/ has none of pt, branch, tsc: not an Intel PT PMU", dir);
		return COLLECT_ERROR;
	}
	return COLLECT_OK;
}

/* the allowed value closest above WANT in a capability mask, else the
 * lowest allowed; -1 when none is */
static int pick_period(unsigned mask, int want)
{
	for (int v = want; v < 32; v++)
		if (mask & (1u << v))
			return v;
	for (int v = 0; v < want; v++)
		if (mask & (1u << v))
			return v;
	return -1;
}

static uint64_t field(int lo, int width, uint64_t v)
{
	if (lo < 0 || width <= 0 || lo + width > 64)
		return 0;
	uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
	return (v & mask) << lo;
}

uint64_t collect_pt_config(const struct collect_pt_info *info, const struct collect_pt_opts *opts)
{
	uint64_t c = 0;
	/* pt=1 tells the kernel branch tracing is chosen, not assumed */
	c |= field(info->bit_pt, 1, 1);
	c |= field(info->bit_branch, 1, 1);
	/* TSC packets order the per-CPU buffers against the sideband */
	c |= field(info->bit_tsc, 1, 1);
	if (info->caps_psb_cyc && info->psb_period_width > 0) {
		/* 2^(n+11) bytes between PSBs: 16 KiB (n=3) bounds what one
		 * lost byte costs the decoder without bloating the trace */
		int p = pick_period(info->caps_psb_periods, 3);
		if (p >= 0)
			c |= field(info->bit_psb_period_lo, info->psb_period_width, (uint64_t)p);
	}
	if (opts && opts->timing && !opts->branch_only) {
		if (info->caps_mtc && info->bit_mtc >= 0) {
			c |= field(info->bit_mtc, 1, 1);
			int p = pick_period(info->caps_mtc_periods, 3);
			if (p >= 0)
				c |= field(info->bit_mtc_period_lo, info->mtc_period_width, (uint64_t)p);
		}
		if (info->caps_psb_cyc)
			c |= field(info->bit_cyc, 1, 1);
	}
	return c;
}

/* ------------------------------------------------------- filters ----- */
void collect_pt_filter_free(struct collect_pt_filter *f)
{
	if (!f)
		return;
	free(f->file);
	f->file = NULL;
}

static bool parse_u64(const char *s, const char **end, uint64_t *v)
{
	char *e;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 0);
	if (errno || e == s)
		return false;
	*v = x;
	*end = e;
	return true;
}

int collect_pt_filter_parse(const char *text, const char *program, collect_symbol_resolver resolve,
			    void *resolve_ctx, struct collect_pt_filter *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (!strncmp(p, "stop", 4) && isspace((unsigned char)p[4])) {
		f->stop = true;
		p += 4;
	} else if (!strncmp(p, "filter", 6) && isspace((unsigned char)p[6])) {
		p += 6;
	}
	while (isspace((unsigned char)*p))
		p++;
	const char *at = strchr(p, '@');
	size_t n = at ? (size_t)(at - p) : strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (!n) {
		snprintf(err, errlen, "PT filter '%s': no address range or symbol (START-END, START/SIZE or SYMBOL)",
			 text);
		return -1;
	}
	if (at && !at[1]) {
		snprintf(err, errlen, "PT filter '%s': no file after '@'", text);
		return -1;
	}
	char range[512];
	if (n >= sizeof(range)) {
		snprintf(err, errlen, "PT filter '%.64s...': range or symbol too long", text);
		return -1;
	}
	memcpy(range, p, n);
	range[n] = 0;
	const char *file = at ? at + 1 : NULL;

	uint64_t start, size;
	if (isdigit((unsigned char)range[0])) {
		const char *e;
		uint64_t b;
		if (!parse_u64(range, &e, &start)) {
			snprintf(err, errlen, "PT filter '%s': '%s' is not a number", text, range);
			return -1;
		}
		char sep = *e;
		if (sep != '-' && sep != '/') {
			snprintf(err, errlen,
				 "PT filter '%s': '%s' is not a range: give START-END or START/SIZE", text, range);
			return -1;
		}
		if (!parse_u64(e + 1, &e, &b) || *e) {
			snprintf(err, errlen, "PT filter '%s': '%s' after '%c' is not a number", text,
				 range + (strchr(range, sep) - range) + 1, sep);
			return -1;
		}
		if (sep == '-') {
			if (b <= start) {
				snprintf(err, errlen, "PT filter '%s': END 0x%" PRIx64 " is not above START 0x%" PRIx64,
					 text, b, start);
				return -1;
			}
			size = b - start;
		} else {
			size = b;
		}
	} else {
		char rerr[COLLECT_ERRLEN] = "";
		if (!resolve) {
			snprintf(err, errlen, "PT filter '%s': symbol '%s' given, but no symbol table is at hand",
				 text, range);
			return -1;
		}
		if (resolve(resolve_ctx, file ? file : program, range, &start, &size, rerr, sizeof(rerr))) {
			snprintf(err, errlen, "PT filter '%s': %s", text, rerr[0] ? rerr : "symbol not found");
			return -1;
		}
	}
	if (!size) {
		snprintf(err, errlen, "PT filter '%s': the range is empty", text);
		return -1;
	}
	if (start + size < start) {
		snprintf(err, errlen, "PT filter '%s': the range runs past the end of the address space", text);
		return -1;
	}
	f->start = start;
	f->size = size;
	if (file && !(f->file = strdup(file))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* NAME as a canonical path: PATH searched when it has no '/', as execvp does */
static int resolve_path(const char *name, bool search, char *out, char *err, size_t errlen)
{
	if (strchr(name, '/') || !search) {
		if (realpath(name, out))
			return 0;
		snprintf(err, errlen, "cannot find '%s': %s", name, strerror(errno));
		return -1;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char cand[PATH_MAX];
		if (len && len + strlen(name) + 2 < sizeof(cand)) {
			snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, path, name);
			if (!access(cand, X_OK) && realpath(cand, out))
				return 0;
		}
		path += len + (path[len] == ':');
	}
	snprintf(err, errlen, "cannot find '%s' in PATH", name);
	return -1;
}

static bool elf_init(void)
{
	return elf_version(EV_CURRENT) != EV_NONE;
}

/* The kernel matches filters against mappings by file offset; users and
 * symbol tables speak in ELF virtual addresses: the executable PT_LOAD
 * holding the range converts one to the other. */
static int vaddr_to_offset(const char *path, uint64_t start, uint64_t size, uint64_t *off, char *err,
			   size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	size_t nph;
	Elf *e = elf_init() ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph)) {
		snprintf(err, errlen, "%s is not an ELF file", path);
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (start >= ph.p_vaddr && start < ph.p_vaddr + ph.p_filesz) {
			if (start + size > ph.p_vaddr + ph.p_filesz) {
				snprintf(err, errlen,
					 "0x%" PRIx64 "/0x%" PRIx64 " runs past the end of its code segment in %s "
					 "(0x%" PRIx64 "-0x%" PRIx64 ")",
					 start, size, path, (uint64_t)ph.p_vaddr, (uint64_t)(ph.p_vaddr + ph.p_filesz));
				goto out;
			}
			*off = start - ph.p_vaddr + ph.p_offset;
			rc = 0;
			goto out;
		}
	}
	snprintf(err, errlen, "0x%" PRIx64 " is not in an executable segment of %s", start, path);
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

int collect_pt_filter_string(const struct collect_pt_filter *f, size_t n, const char *program, char *out,
			     size_t outlen, char *err, size_t errlen)
{
	size_t used = 0;
	if (outlen)
		out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], perr[2 * PATH_MAX];
		const char *name = f[i].file ? f[i].file : program;
		if (!name) {
			snprintf(err, errlen, "PT filter 0x%" PRIx64 "/0x%" PRIx64 ": no file and no program", f[i].start,
				 f[i].size);
			return -1;
		}
		/* the program is found as exec finds it; other files as given */
		if (resolve_path(name, !f[i].file, path, perr, sizeof(perr))) {
			snprintf(err, errlen, "PT filter 0x%" PRIx64 "/0x%" PRIx64 "@%s: %s", f[i].start, f[i].size, name,
				 perr);
			return -1;
		}
		if (strpbrk(path, " ,\n\t")) {
			snprintf(err, errlen,
				 "PT filter on '%s': the kernel's filter syntax cannot name a path holding a space "
				 "or a comma",
				 path);
			return -1;
		}
		uint64_t off;
		if (vaddr_to_offset(path, f[i].start, f[i].size, &off, perr, sizeof(perr))) {
			snprintf(err, errlen, "PT filter 0x%" PRIx64 "/0x%" PRIx64 "@%s: %s", f[i].start, f[i].size, name,
				 perr);
			return -1;
		}
		int w = snprintf(out + used, outlen - used, "%s%s 0x%" PRIx64 "/0x%" PRIx64 "@%s", i ? "," : "",
				 f[i].stop ? "stop" : "filter", off, f[i].size, path);
		if (w < 0 || (size_t)w >= outlen - used) {
			snprintf(err, errlen, "PT filters: the filter string is longer than %zu bytes", outlen);
			return -1;
		}
		used += (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------- machine facts ----- */
static void set_cpu_meta(struct gusdata *d)
{
	unsigned family = 0, model = 0, stepping = 0;
	bool ok = false;
#ifdef PT_X86
	unsigned a, b, c, dx;
	if (__get_cpuid(1, &a, &b, &c, &dx)) {
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		stepping = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family == 6 || family >= 0xf)
			model += ((a >> 16) & 0xf) << 4;
		ok = true;
	}
	if (__get_cpuid_max(0, NULL) >= 0x15) {
		__cpuid(0x15, a, b, c, dx);
		gusdata_set_meta_u64(d, "pt.cpuid_15_eax", a);
		gusdata_set_meta_u64(d, "pt.cpuid_15_ebx", b);
	}
#endif
	if (!ok) {
		FILE *f = fopen("/proc/cpuinfo", "r");
		char line[256];
		int got = 0;
		while (f && got < 3 && fgets(line, sizeof(line), f)) {
			const char *colon = strchr(line, ':');
			if (!colon)
				continue;
			if (!strncmp(line, "cpu family", 10))
				family = (unsigned)atoi(colon + 1), got++;
			else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model ", 6))
				model = (unsigned)atoi(colon + 1), got++;
			else if (!strncmp(line, "stepping", 8))
				stepping = (unsigned)atoi(colon + 1), got++;
		}
		if (f)
			fclose(f);
		ok = got == 3;
	}
	if (ok) {
		gusdata_set_meta_u64(d, "cpu.family", family);
		gusdata_set_meta_u64(d, "cpu.model", model);
		gusdata_set_meta_u64(d, "cpu.stepping", stepping);
	}
}

static bool note_build_id(Elf_Data *data, char *hex, size_t hexlen)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		const unsigned char *p = data->d_buf;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + name_off, "GNU", 4) &&
		    nh.n_descsz && 2 * nh.n_descsz < hexlen) {
			for (size_t j = 0; j < nh.n_descsz; j++)
				snprintf(hex + 2 * j, 3, "%02x", p[desc_off + j]);
			return true;
		}
	}
	return false;
}

/* NT_GNU_BUILD_ID of an opened ELF, from its note sections or, when the
 * section headers are stripped, its PT_NOTE segments */
static bool elf_build_id(Elf *e, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;
	size_t nph;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    note_build_id(elf_getdata(scn, NULL), hex, hexlen))
			return true;
	}
	if (elf_getphdrnum(e, &nph))
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE &&
		    note_build_id(elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR), hex, hexlen))
			return true;
	}
	return false;
}

/* build-ids read from files, once per path: a library is mapped several
 * times and by every child */
struct bid_cache {
	struct bid_entry {
		char *path;
		char hex[41];
		bool ok;
	} *e;
	size_t n, cap;
};

static bool file_build_id(void *ctx, const char *path, char *hex, size_t hexlen)
{
	struct bid_cache *c = ctx;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].path, path)) {
			if (c->e[i].ok)
				snprintf(hex, hexlen, "%s", c->e[i].hex);
			return c->e[i].ok;
		}
	struct bid_entry ent = { .path = strdup(path) };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && elf_init()) {
		Elf *e = elf_begin(fd, ELF_C_READ, NULL);
		if (e && elf_kind(e) == ELF_K_ELF)
			ent.ok = elf_build_id(e, ent.hex, sizeof(ent.hex));
		if (e)
			elf_end(e);
	}
	if (fd >= 0)
		close(fd);
	if (ent.path && c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct bid_entry *ne = realloc(c->e, cap * sizeof(*ne));
		if (ne) {
			c->e = ne;
			c->cap = cap;
		}
	}
	if (ent.path && c->n < c->cap)
		c->e[c->n++] = ent;
	else
		free(ent.path);
	if (ent.ok)
		snprintf(hex, hexlen, "%s", ent.hex);
	return ent.ok;
}

static void bid_cache_free(struct bid_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
}

/* The program's vDSO is not a file: decoding needs its bytes from here.
 * Ours is the same image (one per kernel and ABI); its extent comes from
 * /proc/self/maps, which getauxval does not give. */
static void store_vdso(struct gusdata *d)
{
	const char *why = NULL;
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long lo = 0, hi = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	if (!base)
		why = "no AT_SYSINFO_EHDR in gus's auxiliary vector";
	else if (!(lo <= base && base < hi))
		why = "[vdso] not found in /proc/self/maps";
	if (why) {
		gusdata_set_meta(d, "missing.vdso", why);
		return;
	}
	size_t n = hi - base;
	char *img = malloc(n);
	if (!img) {
		gusdata_set_meta(d, "missing.vdso", "out of memory");
		return;
	}
	memcpy(img, (const void *)base, n);
	char hex[41];
	bool have = false;
	if (elf_init()) {
		Elf *e = elf_memory(img, n);
		if (e) {
			have = elf_build_id(e, hex, sizeof(hex));
			elf_end(e);
		}
	}
	if (gusdata_add_file(d, "[vdso]", have ? hex : NULL, img, n))
		gusdata_set_meta(d, "missing.vdso", gusdata_errmsg(d));
	free(img);
}

/* ----------------------------------------------------- the session --- */
static volatile sig_atomic_t pt_snapshot_req;

static void pt_usr2(int sig)
{
	(void)sig;
	pt_snapshot_req = 1;
}

struct pt_cpu {
	int cpu;
	int fd, dummy;
	uint8_t *base;		/* user page + data ring */
	size_t base_len;
	uint8_t *aux;
	size_t aux_len;
	struct ptring_buffer buf;
	bool buf_ok;
};

struct pt_session {
	const struct collect_pt_opts *o;
	struct gusdata *d;
	struct collect_pt_stats *st;
	struct pt_cpu *cpus;
	int n;
	size_t page, data_pages, aux_pages;
	struct ptring_reader *reader;
	struct ptring_sink sink;
	struct bid_cache bids;
	bool fatal;
	char *err;
	size_t errlen;
};

static int sys_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static enum collect_status open_error(int e, const char *what, int cpu, bool kernel, char *err, size_t errlen)
{
	switch (e) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		snprintf(err, errlen,
			 "cannot open %s on CPU %d: %s. The kernel lists intel_pt but refuses it (PT "
			 "disabled by firmware, or in use by a hypervisor); use the QEMU tracer: "
			 "gus sim --trace --qemu ...",
			 what, cpu, strerror(e));
		return COLLECT_NO_PMU;
	case EACCES:
	case EPERM:
		snprintf(err, errlen,
			 "cannot open %s on CPU %d: %s (perf_event_paranoid is %d%s). Tracing your own "
			 "program's user space needs perf_event_paranoid <= 2, the kernel too <= 1 "
			 "(sysctl kernel.perf_event_paranoid=1), or CAP_PERFMON (Linux 5.8+) or root",
			 what, cpu, strerror(e), collect_perf_paranoid(), kernel ? ", tracing kernel space" : "");
		return COLLECT_NO_PERMISSION;
	case EBUSY:
		snprintf(err, errlen,
			 "cannot open %s on CPU %d: %s (another tool, or perf, is tracing with Intel PT; "
			 "PT has one user per CPU)",
			 what, cpu, strerror(e));
		return COLLECT_ERROR;
	default:
		snprintf(err, errlen, "cannot open %s on CPU %d: %s (the kernel rejected its configuration)", what,
			 cpu, strerror(e));
		return COLLECT_BAD_EVENT;
	}
}

static void prepare_attr(struct perf_event_attr *a, const struct collect_pt_opts *o)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = !o->kernel;
	a->exclude_hv = 1;
	a->sample_id_all = 1;
	a->sample_type = PTRING_SAMPLE_TYPE;
}

static enum collect_status open_cpu(struct pt_session *s, struct pt_cpu *c, const struct collect_pt_info *info,
				    uint64_t config, pid_t pid, const char *filter)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	prepare_attr(&a, s->o);
	a.type = (uint32_t)info->type;
	a.config = config;
	if (s->o->mode == COLLECT_PT_FULL)
		a.aux_watermark = (uint32_t)(s->aux_pages * s->page / 4);
	c->fd = sys_perf_open(&a, pid, c->cpu, -1);
	if (c->fd < 0)
		return open_error(errno, "intel_pt", c->cpu, s->o->kernel, s->err, s->errlen);

	/* sideband on its own event: it keeps coming while intel_pt is
	 * disabled for a snapshot */
	memset(&a, 0, sizeof(a));
	prepare_attr(&a, s->o);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.context_switch = 1;
	a.build_id = 1;
	c->dummy = sys_perf_open(&a, pid, c->cpu, -1);
	if (c->dummy < 0 && errno == EINVAL) {
		a.build_id = 0;	/* before Linux 5.12: build-ids read from the files */
		c->dummy = sys_perf_open(&a, pid, c->cpu, -1);
	}
	if (c->dummy < 0)
		return open_error(errno, "the sideband (dummy) event", c->cpu, s->o->kernel, s->err, s->errlen);

	c->base_len = (1 + s->data_pages) * s->page;
	c->base = mmap(NULL, c->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (c->base == MAP_FAILED) {
		int e = errno;
		c->base = NULL;
		snprintf(s->err, s->errlen, "cannot map the data ring of CPU %d (%zu pages): %s", c->cpu, s->data_pages,
			 strerror(e));
		return e == EPERM ? COLLECT_NO_PERMISSION : COLLECT_ERROR;
	}
	struct perf_event_mmap_page *pc = (void *)c->base;
	pc->aux_offset = c->base_len;
	pc->aux_size = s->aux_pages * s->page;
	/* read-only makes the kernel overwrite the AUX area: snapshot mode */
	int prot = s->o->mode == COLLECT_PT_FULL ? PROT_READ | PROT_WRITE : PROT_READ;
	c->aux_len = s->aux_pages * s->page;
	c->aux = mmap(NULL, c->aux_len, prot, MAP_SHARED, c->fd, (off_t)pc->aux_offset);
	if (c->aux == MAP_FAILED) {
		int e = errno;
		c->aux = NULL;
		snprintf(s->err, s->errlen,
			 "cannot map the AUX area of CPU %d (%zu pages): %s%s", c->cpu, s->aux_pages, strerror(e),
			 e == EPERM || e == ENOMEM
				 ? "; the areas of all CPUs exceed the locked-memory allowance "
				   "(kernel.perf_event_mlock_kb, ulimit -l): ask for fewer AUX pages"
				 : "");
		return e == EPERM ? COLLECT_NO_PERMISSION : COLLECT_ERROR;
	}
	if (ioctl(c->dummy, PERF_EVENT_IOC_SET_OUTPUT, c->fd)) {
		snprintf(s->err, s->errlen, "cannot send CPU %d's sideband to its trace ring: %s", c->cpu,
			 strerror(errno));
		return COLLECT_ERROR;
	}
	if (filter && ioctl(c->fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		int e = errno;
		snprintf(s->err, s->errlen, "the kernel refused the PT address filter '%s' on CPU %d: %s%s", filter,
			 c->cpu, strerror(e),
			 e == EOPNOTSUPP ? " (more ranges than this CPU has, or a range of size 0)" : "");
		return COLLECT_BAD_EVENT;
	}
	if (ptring_buffer_init(&c->buf, c->cpu, s->o->mode == COLLECT_PT_SNAPSHOT, c->aux, c->aux_len, s->st)) {
		snprintf(s->err, s->errlen, "out of memory");
		return COLLECT_ERROR;
	}
	c->buf_ok = true;
	return COLLECT_OK;
}

/* Moves CPU C's records and (full mode) trace into gus.data and hands the
 * space back to the kernel. A corrupt ring is skipped to its head, with an
 * event saying how much; a failing gus.data ends the recording. */
static void drain_cpu(struct pt_session *s, struct pt_cpu *c)
{
	struct perf_event_mmap_page *pc = (void *)c->base;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	uint64_t off = pc->data_offset ? pc->data_offset : s->page;
	uint64_t size = pc->data_size ? pc->data_size : s->data_pages * s->page;
	char err[COLLECT_ERRLEN];

	ptring_reader_init(s->reader, c->base + off, size, head, tail, PTRING_SAMPLE_TYPE, true);
	int rc = ptring_drain(&c->buf, s->reader, &s->sink, err, sizeof(err));
	if (rc == PTRING_CORRUPT) {
		gusdata_add_event(s->d, 0, c->cpu, -1, -1, "ring-corrupt", head - s->reader->tail, 0);
		if (!gusdata_meta(s->d, "pt.ring_error"))
			gusdata_set_meta(s->d, "pt.ring_error", err);
		s->reader->tail = head;
	} else if (rc == PTRING_SINK_FAILED && !s->fatal) {
		s->fatal = true;
		snprintf(s->err, s->errlen, "writing the trace into %s: %s (%s)", gusdata_path(s->d), err,
			 gusdata_errmsg(s->d));
	}
	__atomic_store_n(&pc->data_tail, s->reader->tail, __ATOMIC_RELEASE);
	if (s->o->mode == COLLECT_PT_FULL)
		__atomic_store_n(&pc->aux_tail, c->buf.aux_done, __ATOMIC_RELEASE);
}

/* A failed COMMIT (a full disk) rolls the whole batch back: nothing of
 * it is stored, and the session stops. */
static void commit_batch(struct pt_session *s, bool tx)
{
	if (tx && gusdata_commit(s->d) && !s->fatal) {
		s->fatal = true;
		snprintf(s->err, s->errlen, "writing the trace into %s: %s", gusdata_path(s->d),
			 gusdata_errmsg(s->d));
	}
}

static void drain_all(struct pt_session *s)
{
	bool tx = gusdata_begin(s->d) == 0;
	for (int i = 0; i < s->n && !s->fatal; i++)
		drain_cpu(s, &s->cpus[i]);
	commit_batch(s, tx);
}

struct pt_clock {
	bool ok;
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
};

static struct pt_clock read_clock(const struct perf_event_mmap_page *pc)
{
	struct pt_clock k;
	uint32_t seq;
	do {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		k.ok = pc->cap_user_time_zero;
		k.shift = pc->time_shift;
		k.mult = pc->time_mult;
		k.zero = pc->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq || (seq & 1));
	return k;
}

/* perf time now, for snapshot chunks that no record dates */
static uint64_t perf_time_now(const struct pt_clock *k)
{
#ifdef PT_X86
	if (k->ok) {
		uint64_t cyc = __rdtsc();
		uint64_t quot = cyc >> k->shift, rem = cyc & ((1ull << k->shift) - 1);
		return k->zero + quot * k->mult + ((rem * k->mult) >> k->shift);
	}
#endif
	(void)k;
	return 0;
}

/* perf's snapshot protocol: stop the trace so the kernel publishes the
 * write position, copy, start it again */
static void take_snapshot(struct pt_session *s, const struct pt_clock *k, bool last)
{
	for (int i = 0; i < s->n; i++)
		ioctl(s->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all(s);
	uint64_t now = perf_time_now(k);
	bool tx = gusdata_begin(s->d) == 0;
	for (int i = 0; i < s->n && !s->fatal; i++) {
		struct pt_cpu *c = &s->cpus[i];
		struct perf_event_mmap_page *pc = (void *)c->base;
		uint64_t head = __atomic_load_n(&pc->aux_head, __ATOMIC_ACQUIRE);
		char err[COLLECT_ERRLEN];
		if (ptring_snapshot(&c->buf, head, now, &s->sink, err, sizeof(err))) {
			s->fatal = true;
			snprintf(s->err, s->errlen, "writing the trace into %s: %s (%s)", gusdata_path(s->d),
				 err, gusdata_errmsg(s->d));
		}
	}
	commit_batch(s, tx);
	s->st->snapshots++;
	if (!last)
		for (int i = 0; i < s->n; i++)
			ioctl(s->cpus[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

static bool pow2(size_t v)
{
	return v && !(v & (v - 1));
}

static void write_stats_meta(struct gusdata *d, struct collect_pt_stats *st)
{
	/* what is stored: a failed write rolls back more than one chunk */
	st->aux_bytes = gusdata_chunk_bytes(d);
	gusdata_set_meta_u64(d, "pt.aux_bytes", st->aux_bytes);
	gusdata_set_meta_u64(d, "pt.aux_records", st->aux_records);
	gusdata_set_meta_u64(d, "pt.truncated", st->truncated);
	gusdata_set_meta_u64(d, "pt.partial", st->partial);
	gusdata_set_meta_u64(d, "pt.collisions", st->collisions);
	gusdata_set_meta_u64(d, "pt.overwritten", st->overwritten);
	gusdata_set_meta_u64(d, "pt.lost_records", st->lost_records);
	gusdata_set_meta_u64(d, "pt.lost_samples", st->lost_samples);
	gusdata_set_meta_u64(d, "pt.snapshots", st->snapshots);
}

/* ------------------------------------------------------------ session --- */
struct collect_pt_session {
	struct pt_session s;
	struct collect_pt_info info;
	struct pt_clock clk;
	int *cpu_ids;
	struct sigaction old_usr2;
	bool usr2;
	uint64_t reported;
	char filter[4096];
};

enum collect_status collect_pt_session_open(const char *program, const struct collect_pt_opts *opts,
					    struct gusdata *d, pid_t pid, struct collect_pt_stats *st,
					    struct collect_pt_session **out, char *err, size_t errlen)
{
	enum collect_status status;
	*out = NULL;
	memset(st, 0, sizeof(*st));
	struct collect_pt_session *ps = calloc(1, sizeof(*ps));
	if (!ps) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto fail;
	}
	struct pt_session *s = &ps->s;
	*s = (struct pt_session){ .o = opts, .d = d, .st = st, .err = err, .errlen = errlen };

	status = collect_pt_probe(opts->sysfs_dir, &ps->info, err, errlen);
	if (status != COLLECT_OK)
		goto fail;
	if (opts->nfilters) {
		if (!ps->info.caps_addr_filters) {
			snprintf(err, errlen, "this CPU's Intel PT has no address filters (caps/num_address_ranges is 0)");
			status = COLLECT_BAD_EVENT;
			goto fail;
		}
		if (opts->nfilters > ps->info.caps_addr_filters) {
			snprintf(err, errlen, "%zu PT address filters given; this CPU has %u address ranges",
				 opts->nfilters, ps->info.caps_addr_filters);
			status = COLLECT_BAD_EVENT;
			goto fail;
		}
		if (collect_pt_filter_string(opts->filters, opts->nfilters, program, ps->filter, sizeof(ps->filter),
					     err, errlen)) {
			status = COLLECT_BAD_EVENT;
			goto fail;
		}
	}

	long pg = sysconf(_SC_PAGESIZE);
	s->page = pg > 0 ? (size_t)pg : 4096;
	/* unprivileged: data + AUX of every CPU within the default 516 KiB
	 * per-CPU locked-memory allowance */
	bool root = geteuid() == 0;
	s->data_pages = opts->data_pages ? opts->data_pages : root ? 128 : 16;
	s->aux_pages = opts->aux_pages ? opts->aux_pages : root ? 1024 : 64;
	if (!pow2(s->data_pages) || !pow2(s->aux_pages)) {
		snprintf(err, errlen, "PT buffers: %zu data pages and %zu AUX pages; both must be powers of two",
			 s->data_pages, s->aux_pages);
		status = COLLECT_ERROR;
		goto fail;
	}
	s->n = collect_online_cpus(&ps->cpu_ids);
	if (s->n < 1) {
		snprintf(err, errlen, "cannot read the online CPUs (/sys/devices/system/cpu/online)");
		status = COLLECT_ERROR;
		goto fail;
	}
	s->cpus = calloc((size_t)s->n, sizeof(*s->cpus));
	s->reader = malloc(sizeof(*s->reader));
	if (!s->cpus || !s->reader) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto fail;
	}
	for (int i = 0; i < s->n; i++) {
		s->cpus[i].cpu = ps->cpu_ids[i];
		s->cpus[i].fd = s->cpus[i].dummy = -1;
	}
	ptring_gusdata_sink(&s->sink, d);
	s->sink.build_id = file_build_id;
	s->sink.bid_ctx = &s->bids;
	st->ncpus = s->n;

	uint64_t config = collect_pt_config(&ps->info, opts);
	for (int i = 0; i < s->n; i++) {
		status = open_cpu(s, &s->cpus[i], &ps->info, config, pid, opts->nfilters ? ps->filter : NULL);
		if (status != COLLECT_OK)
			goto fail;
	}

	ps->clk = read_clock((void *)s->cpus[0].base);
	gusdata_set_meta_u64(d, "pt.type", (uint64_t)ps->info.type);
	char hexcfg[32];
	snprintf(hexcfg, sizeof(hexcfg), "0x%" PRIx64, config);
	gusdata_set_meta(d, "pt.config", hexcfg);
	gusdata_set_meta(d, "pt.mode", opts->mode == COLLECT_PT_SNAPSHOT ? "snapshot" : "full");
	if (opts->nfilters)
		gusdata_set_meta(d, "pt.filter", ps->filter);
	gusdata_set_meta_u64(d, "pt.cap_user_time_zero", ps->clk.ok);
	gusdata_set_meta_u64(d, "pt.time_shift", ps->clk.shift);
	gusdata_set_meta_u64(d, "pt.time_mult", ps->clk.mult);
	gusdata_set_meta_u64(d, "pt.time_zero", ps->clk.zero);
	if (ps->info.bit_mtc >= 0 && (config >> ps->info.bit_mtc) & 1 && ps->info.mtc_period_width > 0)
		gusdata_set_meta_u64(d, "pt.mtc_freq", (config >> ps->info.bit_mtc_period_lo) &
								((1ull << ps->info.mtc_period_width) - 1));
	if (ps->info.max_nonturbo_ratio)
		gusdata_set_meta_u64(d, "pt.nom_freq", ps->info.max_nonturbo_ratio);
	gusdata_set_meta_u64(d, "pt.aux_pages", s->aux_pages);
	gusdata_set_meta_u64(d, "pt.data_pages", s->data_pages);
	gusdata_set_meta_u64(d, "pt.ncpus", (uint64_t)s->n);
	set_cpu_meta(d);
	store_vdso(d);

	pt_snapshot_req = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pt_usr2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, &ps->old_usr2);
	ps->usr2 = true;
	*out = ps;
	return COLLECT_OK;
fail:
	collect_pt_session_close(ps, status);
	if (!ps && d)
		gusdata_set_meta(d, "missing.pt", err);
	return status;
}

size_t collect_pt_session_fds(const struct collect_pt_session *ps, struct pollfd *pfd, size_t max)
{
	size_t k = 0;
	for (int i = 0; i < ps->s.n && k < max; i++) {
		pfd[k].fd = ps->s.cpus[i].fd;
		pfd[k++].events = POLLIN;
	}
	return k;
}

void collect_pt_session_poll(struct collect_pt_session *ps)
{
	struct pt_session *s = &ps->s;
	if (pt_snapshot_req && s->o->mode == COLLECT_PT_SNAPSHOT) {
		pt_snapshot_req = 0;
		take_snapshot(s, &ps->clk, false);
	}
	drain_all(s);
	if (s->o->progress && s->st->aux_bytes != ps->reported) {
		ps->reported = s->st->aux_bytes;
		s->o->progress(s->o->progress_ctx, ps->reported);
	}
}

bool collect_pt_session_failed(const struct collect_pt_session *ps)
{
	return ps->s.fatal;
}

void collect_pt_session_end(struct collect_pt_session *ps)
{
	struct pt_session *s = &ps->s;
	/* the trace of threads still running (children the program left
	 * behind) ends here; disabling flushes the last AUX records */
	if (s->o->mode == COLLECT_PT_SNAPSHOT) {
		take_snapshot(s, &ps->clk, true);
	} else {
		for (int i = 0; i < s->n; i++)
			ioctl(s->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	drain_all(s);
	write_stats_meta(s->d, s->st);
}

void collect_pt_session_close(struct collect_pt_session *ps, enum collect_status status)
{
	if (!ps)
		return;
	struct pt_session *s = &ps->s;
	if (ps->usr2)
		sigaction(SIGUSR2, &ps->old_usr2, NULL);
	for (int i = 0; s->cpus && i < s->n; i++) {
		struct pt_cpu *c = &s->cpus[i];
		if (c->buf_ok)
			ptring_buffer_fini(&c->buf);
		if (c->aux)
			munmap(c->aux, c->aux_len);
		if (c->base)
			munmap(c->base, c->base_len);
		if (c->dummy >= 0)
			close(c->dummy);
		if (c->fd >= 0)
			close(c->fd);
	}
	if (status != COLLECT_OK && status != COLLECT_EXEC_FAILED && s->d)
		gusdata_set_meta(s->d, "missing.pt", s->err);
	bid_cache_free(&s->bids);
	free(s->cpus);
	free(s->reader);
	free(ps->cpu_ids);
	free(ps);
}

enum collect_status collect_pt_record(char *const argv[], const struct collect_pt_opts *opts,
				      struct gusdata *d, struct collect_pt_stats *st,
				      struct collect_result *res, char *err, size_t errlen)
{
	struct collect_pt_stats local_st;
	struct collect_pt_session *ps = NULL;
	enum collect_status status;
	struct collect_forward fwd = { .installed = false };
	int go[2] = { -1, -1 }, ex[2] = { -1, -1 };
	struct pollfd *pfd = NULL;
	pid_t pid = -1;

	if (!st)
		st = &local_st;
	memset(st, 0, sizeof(*st));
	memset(res, 0, sizeof(*res));

	/* refused before anything runs: no PT, no permission, bad filters */
	struct collect_pt_info info;
	status = collect_pt_probe(opts->sysfs_dir, &info, err, errlen);
	if (status != COLLECT_OK) {
		if (d)
			gusdata_set_meta(d, "missing.pt", err);
		return status;
	}
	/* held until tracing is set up, so that its start is in the trace */
	pid = collect_start_held(argv, go, ex);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
		status = COLLECT_ERROR;
		if (d)
			gusdata_set_meta(d, "missing.pt", err);
		goto out;
	}
	status = collect_pt_session_open(argv[0], opts, d, pid, st, &ps, err, errlen);
	if (status != COLLECT_OK)
		goto out;

	collect_forward_install(&fwd, pid);
	double t0 = collect_now();
	int exec_errno;
	if (collect_release_held(go, ex, argv[0], &exec_errno, err, errlen)) {
		status = COLLECT_ERROR;
		goto out;
	}

	size_t npfd = (size_t)st->ncpus;
	pfd = calloc(npfd ? npfd : 1, sizeof(*pfd));
	if (pfd)
		npfd = collect_pt_session_fds(ps, pfd, npfd);
	int wst = 0;
	bool stopped = false;
	for (;;) {
		if (pfd)
			poll(pfd, (nfds_t)npfd, 100);
		else
			usleep(100000);
		collect_pt_session_poll(ps);
		if (collect_pt_session_failed(ps) && !stopped) {
			kill(pid, SIGTERM);	/* nothing more can be stored */
			stopped = true;
		}
		pid_t w = waitpid(pid, &wst, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
			status = COLLECT_ERROR;
			goto out;
		}
	}
	pid = -1;
	res->seconds = collect_now() - t0;
	res->wait_status = wst;
	res->interrupted = collect_forward_got() != 0;
	collect_pt_session_end(ps);
	if (exec_errno) {
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(exec_errno));
		res->exec_errno = exec_errno;
		status = COLLECT_EXEC_FAILED;
	} else if (collect_pt_session_failed(ps)) {
		status = COLLECT_WRITE_FAILED;
	}
out:
	/* never started (tracing refused): do not let it run untraced */
	collect_kill_reap(pid);
	collect_forward_restore(&fwd);
	collect_close_pipe(go);
	collect_close_pipe(ex);
	collect_pt_session_close(ps, status);
	free(pfd);
	return status;
}
