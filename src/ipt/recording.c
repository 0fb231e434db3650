/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decoding a whole gus.data recording: the image from its mmap records,
 * the CPU from its meta, and every trace buffer's chunks, split where data
 * was lost. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gusdata.h"
#include "ipt.h"
#include "outpath.h"

/* build-ids already read, by path: a file has several mmap records */
struct seen {
	char *path;
	char id[96];		/* hex; "" when the file has none */
};

struct rec {
	struct gusdata *d;
	struct ipt_image *img;
	struct ipt_recording_stats *rs;
	struct seen *seen;
	size_t nseen;
	char *err;
	size_t errlen;
};

static void file_build_id(const char *path, char *hex, size_t hexlen)
{
	hex[0] = 0;
	int fd = outpath_open_regular(path, NULL, 0);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	while (e && !hex[0] && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)data->d_buf + noff, "GNU", 4))
				continue;
			const uint8_t *id = (const uint8_t *)data->d_buf + doff;
			size_t k = 0;
			for (size_t i = 0; i < nh.n_descsz && k + 3 <= hexlen; i++, k += 2)
				snprintf(hex + k, 3, "%02x", id[i]);
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

/* the recorded build-id may be zero-padded to 20 bytes (perf does that) */
static bool build_id_matches(const char *rec, const char *file)
{
	size_t n = strlen(file);
	if (strncasecmp(rec, file, n))
		return false;
	for (const char *p = rec + n; *p; p++)
		if (*p != '0')
			return false;
	return true;
}

static const char *seen_id(struct rec *r, const char *path)
{
	for (size_t i = 0; i < r->nseen; i++)
		if (!strcmp(r->seen[i].path, path))
			return r->seen[i].id;
	struct seen *s = realloc(r->seen, (r->nseen + 1) * sizeof(*s));
	if (!s)
		return "";
	r->seen = s;
	s = &s[r->nseen];
	s->path = strdup(path);
	if (!s->path)
		return "";
	file_build_id(path, s->id, sizeof(s->id));
	r->nseen++;
	return s->id;
}

static void missing(struct rec *r, const char *name)
{
	if (!r->rs->missing_files++)
		snprintf(r->rs->first_missing, sizeof(r->rs->first_missing), "%s", name);
}

static int on_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct rec *r = ctx;
	const char *name = m->filename ? m->filename : "";
	char err[256];
	/* prot 0: a PERF_RECORD_MMAP without protections, which perf emits
	 * for executable mappings only */
	if (m->prot && !(m->prot & PROT_EXEC))
		return 0;
	if (!m->len)
		return 0;
	if (!strcmp(name, "[vdso]")) {
		size_t n = 0;
		void *buf = gusdata_file(r->d, "[vdso]", &n);
		if (!buf) {
			missing(r, name);
			return 0;
		}
		size_t len = n < m->len ? n : (size_t)m->len;
		if (ipt_image_add_buffer(r->img, buf, len, m->start, err, sizeof(err)) == 0)
			r->rs->images++;
		free(buf);
		return 0;
	}
	/* anonymous memory, the heap, the stack, [vsyscall]: nothing to read
	 * (JIT code would need its own sideband) */
	if (!name[0] || name[0] == '[' || !strncmp(name, "//anon", 6) || !strncmp(name, "anon_inode:", 11))
		return 0;
	if (m->build_id && m->build_id[0]) {
		const char *id = seen_id(r, name);
		if (id[0] && !build_id_matches(m->build_id, id)) {
			/* the file changed since the recording: decoding its
			 * new code would be silently wrong, a gap is honest */
			r->rs->build_id_mismatches++;
			return 0;
		}
	}
	if (ipt_image_add_file(r->img, name, m->pgoff, m->len, m->start, err, sizeof(err)) == 0) {
		r->rs->images++;
		return 0;
	}
	/* a copy saved in the recording stands in for a vanished file */
	size_t n = 0;
	uint8_t *copy = gusdata_file(r->d, name, &n);
	if (copy && m->pgoff < n) {
		size_t len = n - m->pgoff < m->len ? n - (size_t)m->pgoff : (size_t)m->len;
		if (ipt_image_add_buffer(r->img, copy + m->pgoff, len, m->start, err, sizeof(err)) == 0) {
			r->rs->images++;
			free(copy);
			return 0;
		}
	}
	free(copy);
	missing(r, name);
	return 0;
}

static unsigned meta_u(struct gusdata *d, const char *key)
{
	uint64_t v = 0;
	if (!gusdata_meta_u64(d, key, &v))
		return 0;
	return (unsigned)v;
}

/* --------------------------------------------------------- threads --- */
/* Who ran on which CPU from when: the itrace-start and switch-in events,
 * and every task the sideband names, to number them. */
struct task_run {
	uint64_t time;
	int cpu, pid, tid;
};

struct sideband {
	struct task_run *run;	/* itrace-start, switch-in: the task comes in */
	size_t nrun, caprun;
	struct task_run *task;	/* every (pid, tid) named, for the numbering */
	size_t ntask, captask;
	bool oom;
};

static bool push_run(struct task_run **v, size_t *n, size_t *cap, const struct task_run *r)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct task_run *nv = realloc(*v, c * sizeof *nv);
		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *r;
	return true;
}

static int on_event(void *ctx, const struct gusdata_event *e)
{
	struct sideband *sb = ctx;
	if (e->pid <= 0 || e->tid <= 0)
		return 0;
	struct task_run r = { .time = e->time, .cpu = e->cpu, .pid = e->pid, .tid = e->tid };
	bool comes_in = !strcmp(e->kind, "itrace-start") || !strcmp(e->kind, "switch-in");
	if (!strcmp(e->kind, "fork") || comes_in) {
		if (!push_run(&sb->task, &sb->ntask, &sb->captask, &r))
			sb->oom = true;
	}
	if (comes_in && !push_run(&sb->run, &sb->nrun, &sb->caprun, &r))
		sb->oom = true;
	return sb->oom ? -1 : 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_run *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* stream.h's number of TID: its process's rank among the pids, its rank
 * among its process's tids (SB->task sorted, unique); 0 when unknown */
static uint32_t thread_number(const struct sideband *sb, int pid, int tid)
{
	uint32_t proc = 0, rank = 0;
	for (size_t i = 0; i < sb->ntask; i++) {
		const struct task_run *t = &sb->task[i];
		if (i && t->pid != sb->task[i - 1].pid) {
			proc++;
			rank = 0;
		}
		if (t->pid == pid && t->tid == tid)
			return STREAM_THREAD(proc, rank);
		rank++;
	}
	return 0;
}

/* perf time to TSC, the inverse of perf_event_mmap_page's time_zero
 * conversion */
static uint64_t perf_time_to_tsc(uint64_t ns, uint64_t zero, uint64_t mult, unsigned shift)
{
	uint64_t t = ns - zero, quot = t / mult, rem = t % mult;
	return (quot << shift) + (rem << shift) / mult;
}

/* the sideband read, tasks numbered; false when the recording cannot
 * tell threads apart in per-CPU trace (no conversion to TSC) */
static bool sideband_read(struct gusdata *d, struct sideband *sb)
{
	memset(sb, 0, sizeof *sb);
	if (gusdata_foreach_event(d, NULL, on_event, sb) || sb->oom)
		return false;
	if (sb->ntask)
		qsort(sb->task, sb->ntask, sizeof *sb->task, cmp_task);
	size_t k = 0;
	for (size_t i = 0; i < sb->ntask; i++)
		if (!k || cmp_task(&sb->task[k - 1], &sb->task[i]))
			sb->task[k++] = sb->task[i];
	sb->ntask = k;
	return true;
}

/* CPU's spans: who came in when, in TSC */
static struct ipt_thread_span *cpu_spans(struct gusdata *d, const struct sideband *sb, int cpu, size_t *n)
{
	uint64_t zero = 0, mult = 0, shift = 0, ok = 0;
	*n = 0;
	if (!gusdata_meta_u64(d, "pt.cap_user_time_zero", &ok) || !ok || !gusdata_meta_u64(d, "pt.time_mult", &mult) ||
	    !mult || !gusdata_meta_u64(d, "pt.time_shift", &shift) || shift > 31 ||
	    !gusdata_meta_u64(d, "pt.time_zero", &zero))
		return NULL;
	struct ipt_thread_span *v = calloc(sb->nrun + 1, sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < sb->nrun; i++) {
		const struct task_run *r = &sb->run[i];
		if (r->cpu != cpu || r->time < zero)
			continue;
		v[*n].tsc = perf_time_to_tsc(r->time, zero, mult, (unsigned)shift);
		v[*n].thread = thread_number(sb, r->pid, r->tid);
		/* the same task again (itrace-start, then its switch-in) */
		if (!*n || v[*n - 1].thread != v[*n].thread)
			(*n)++;
	}
	return v;
}

/* one buffer's chunks, concatenated while contiguous */
struct seg {
	struct rec *r;
	const struct ipt_decode_opts *o;
	struct ipt_stats *st;
	uint8_t *buf;
	size_t len, cap;
	bool lost;		/* data was lost before the segment being gathered */
	bool any;
	uint64_t next_off;	/* aux_offset the next chunk continues at */
	bool prev_truncated;
	int rc;
};

static int seg_decode(struct seg *s)
{
	if (!s->any)
		return 0;
	int rc = ipt_decode(s->buf, s->len, s->lost, s->r->img, s->o, s->st, s->r->err, s->r->errlen);
	s->len = 0;
	s->any = false;
	return rc;
}

static int on_chunk(void *ctx, const struct gusdata_chunk *c)
{
	struct seg *s = ctx;
	/* perf pads an AUXTRACE record's trace to 8 bytes and the next
	 * record goes on where the trace, not its padding, ended: the padding
	 * (zeros, perhaps inside a packet) is dropped */
	uint64_t pad = s->any && c->aux_offset < s->next_off ? s->next_off - c->aux_offset : 0;
	if (pad && pad < 8 && pad <= s->len) {
		s->len -= (size_t)pad;
		s->next_off = c->aux_offset;
	}
	bool lost = (c->flags & (GUSDATA_CHUNK_LOST_BEFORE | GUSDATA_CHUNK_OVERWRITE)) != 0;
	bool split = lost || s->prev_truncated || (s->any && c->aux_offset != s->next_off);
	if (split && s->any) {
		s->rc = seg_decode(s);
		if (s->rc)
			return s->rc;
		lost = true;
	}
	if (!s->any) {
		s->lost = lost || s->prev_truncated;
		s->any = true;
	}
	if (s->len + c->size > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 20;
		while (cap < s->len + c->size)
			cap *= 2;
		uint8_t *b = realloc(s->buf, cap);
		if (!b) {
			snprintf(s->r->err, s->r->errlen, "out of memory for a trace buffer of %zu bytes",
				 s->len + c->size);
			s->rc = -1;
			return -1;
		}
		s->buf = b;
		s->cap = cap;
	}
	if (c->size)
		memcpy(s->buf + s->len, c->data, c->size);
	s->len += c->size;
	s->next_off = c->aux_offset + c->size;
	s->prev_truncated = (c->flags & GUSDATA_CHUNK_TRUNCATED) != 0;
	return 0;
}

int ipt_decode_recording(struct gusdata *d, const struct ipt_decode_opts *o, struct ipt_stats *st,
			 struct ipt_recording_stats *rs, char *err, size_t errlen)
{
	memset(rs, 0, sizeof(*rs));
	struct rec r = { .d = d, .rs = rs, .err = err, .errlen = errlen };
	r.img = ipt_image_new();
	if (!r.img) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = gusdata_foreach_mmap(d, on_mmap, &r);
	if (rc < 0) {
		snprintf(err, errlen, "reading the mmap records: %s", gusdata_errmsg(d));
		goto out;
	}
	struct ipt_decode_opts opts = *o;
	opts.cpu.family = meta_u(d, "cpu.family");
	opts.cpu.model = meta_u(d, "cpu.model");
	opts.cpu.stepping = meta_u(d, "cpu.stepping");
	opts.cpu.mtc_freq = meta_u(d, "pt.mtc_freq");
	opts.cpu.nom_freq = meta_u(d, "pt.nom_freq");
	opts.cpu.cpuid_15_eax = meta_u(d, "pt.cpuid_15_eax");
	opts.cpu.cpuid_15_ebx = meta_u(d, "pt.cpuid_15_ebx");
	int *cpus = NULL, *tids = NULL;
	size_t nbuf = 0;
	if (gusdata_chunk_buffers(d, &cpus, &tids, &nbuf) < 0) {
		snprintf(err, errlen, "reading the trace buffers: %s", gusdata_errmsg(d));
		rc = -1;
		goto out;
	}
	struct sideband sb;
	bool threads_known = sideband_read(d, &sb);
	struct seg s = { .r = &r, .o = &opts, .st = st };
	for (size_t i = 0; i < nbuf && !rc; i++) {
		/* a per-thread buffer is its thread's; a per-CPU one changes
		 * hands at the switches */
		struct ipt_thread_span *spans = NULL;
		opts.thread = 0;
		opts.nspans = 0;
		if (threads_known && tids[i] > 0) {
			for (size_t k = 0; k < sb.ntask; k++)
				if (sb.task[k].tid == tids[i])
					opts.thread = thread_number(&sb, sb.task[k].pid, tids[i]);
		} else if (threads_known) {
			spans = cpu_spans(d, &sb, cpus[i], &opts.nspans);
		}
		opts.spans = spans;
		s.len = 0;
		s.any = false;
		s.prev_truncated = false;
		s.rc = 0;
		rc = gusdata_foreach_chunk(d, cpus[i], tids[i], on_chunk, &s);
		if (s.rc)
			rc = s.rc;
		else if (rc < 0)
			snprintf(err, errlen, "reading the chunks of buffer %zu: %s", i, gusdata_errmsg(d));
		else
			rc = seg_decode(&s);
		rs->buffers++;
		free(spans);
		opts.spans = NULL;
		opts.nspans = 0;
	}
	free(sb.run);
	free(sb.task);
	free(s.buf);
	free(cpus);
	free(tids);
out:
	for (size_t i = 0; i < r.nseen; i++)
		free(r.seen[i].path);
	free(r.seen);
	ipt_image_free(r.img);
	return rc;
}
