/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU tracer, gus's side: runs the program under qemu-x86_64 with
 * gus's TCG plugin (qemu_plugin.c) and turns the plugin's stream
 * (qemu_wire.h) into stream_insn records as it arrives.
 *
 * Threads: records carry no thread. The plugin sends each guest thread's
 * words in chunks of its own; every batch handed to the sink holds records
 * of one thread only, in that thread's execution order, and batches of
 * different threads interleave in arrival order. Within a thread the
 * stream is exact up to what qemu_plugin.c documents (a block stopped by a
 * fault is recorded whole; thread-sensitive boundary resolution). The last
 * record of each thread has no known successor and is not TAKEN.
 *
 * Memory accesses: QEMU reports each access of an instruction in order.
 * An access to an address already in mem[] only adds its store bit (a
 * read-modify-write gives one address marked written); an access that
 * continues the previous one of the same kind (QEMU splits a 16-byte SSE
 * access in two 8-byte ones) adds nothing; accesses beyond STREAM_MAX_MEM
 * (fxsave and the like; movs, push and call fit) are dropped and counted
 * in mem_dropped, reported only by the debug line that $GUS_QEMU_DEBUG
 * prints (collect_qemu_stats has no field for it).
 *
 * QEMU runs a rep-prefixed string instruction one iteration per block
 * execution; its iterations are merged into one record, as PT and the
 * model see one retired instruction (its first STREAM_MAX_MEM data
 * addresses kept). Iterations split by a batch boundary stay two records.
 *
 * Objects and processes. With objects the plugin gets obj=DEV:INO:ranges
 * (file offsets) and reports each mapping of an object (MAP) before any
 * block inside it; mapped() hands it on with the process's number. With
 * follow_children gus listens on a Unix socket in a directory of its own
 * (mkdtemp under $TMPDIR or /tmp, removed at the end) and passes sock= to
 * the plugin: forked children connect there, and so do programs exec'd
 * through gus-qemu-exec.so (qemu_exec.c), which the program gets with
 * QEMU's -E LD_PRELOAD= and $GUS_QEMU_EXEC (qemu, the shim, the plugin's
 * options one a line: -E splits at commas). Each connection is decoded on
 * its own (block ids and thread numbers are per process); batches of
 * different processes interleave like those of threads, and the first
 * record after another stretch's batch is marked STREAM_ENTRY. gus is the
 * child subreaper meanwhile: the run ends when no child is left and every
 * connection is closed. A #! script (with objects) runs as its
 * interpreter, found as the kernel does.
 *
 * A sink that returns non-zero ends the run: the program is killed
 * (SIGKILL), the stream is drained, and COLLECT_ERROR says so. max_insns
 * cuts the stream exactly; the plugin is told so that it stops emitting
 * soon after, and the program runs on to its end. */
#include "collect.h"
#include "collect_internal.h"
#include "qemu_wire.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define QEMU_PACKAGE_HINT "install QEMU user mode (Debian/Ubuntu package qemu-user), " \
	"or name it with $GUS_QEMU"
#define BATCH_RECORDS 1024
#define READ_BUF (1u << 18)
#define MAX_PLUGIN_RANGES 64
/* bounds on what the stream may make gus allocate */
#define QEMU_MAX_BLOCKS (1u << 24)
#define QEMU_MAX_THREADS (1u << 16)

/* NAME as execvp would find it; NULL when nowhere */
static char *resolve_path(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	size_t nl = strlen(name);
	while (*path) {
		const char *c = strchr(path, ':');
		size_t dl = c ? (size_t)(c - path) : strlen(path);
		char *p = malloc(dl + nl + 3);
		if (!p)
			return NULL;
		if (dl)
			memcpy(p, path, dl);
		else
			p[dl++] = '.';
		p[dl] = '/';
		memcpy(p + dl + 1, name, nl + 1);
		struct stat sb;
		if (!stat(p, &sb) && S_ISREG(sb.st_mode) && !access(p, X_OK))
			return p;
		free(p);
		if (!c)
			break;
		path = c + 1;
	}
	return NULL;
}

/* The program must be something qemu-x86_64 runs: an x86-64 ELF executable.
 * *xlo: the link-time address of its lowest executable segment, from which
 * the plugin derives the load bias. */
static enum collect_status check_program(const char *prog, const char *path, uint64_t *xlo,
					 int *eno, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*eno = errno;
		snprintf(err, errlen, "cannot run '%s': %s", prog, strerror(errno));
		return COLLECT_EXEC_FAILED;
	}
	Elf64_Ehdr eh;
	const char *why = NULL;
	char whybuf[96];
	ssize_t got = pread(fd, &eh, sizeof(eh), 0);
	if (got >= 2 && !memcmp(eh.e_ident, "#!", 2))
		why = "a script: run its interpreter under gus instead";
	else if (got < (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		why = "no ELF header";
	else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		why = "not a 64-bit little-endian ELF file";
	else if (eh.e_machine != EM_X86_64) {
		snprintf(whybuf, sizeof(whybuf), "ELF machine %u, not x86-64", eh.e_machine);
		why = whybuf;
	} else if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		why = "not an executable (an object file or a core dump)";
	else if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096)
		why = "bad program headers";
	if (!why) {
		*xlo = UINT64_MAX;
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph)) {
				why = "truncated program headers";
				break;
			}
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_vaddr < *xlo)
				*xlo = ph.p_vaddr;
		}
		if (!why && *xlo == UINT64_MAX)
			why = "no executable segment";
	}
	close(fd);
	if (why) {
		snprintf(err, errlen, "%s: not an x86-64 ELF executable (%s)", prog, why);
		return COLLECT_ERROR;
	}
	return COLLECT_OK;
}

/* ------------------------------------------------------------ decoding -- */

struct qblock {
	struct stream_insn *tmpl;	/* NULL: never defined */
	uint32_t n;
};

struct qthread {
	struct stream_insn *v;	/* finalized records, then the current execution's */
	size_t n, cap;
	size_t cur, cur_n;	/* the current execution: v[cur .. cur+cur_n) */
	bool has_cur, gap_next;
	bool cur_rep;		/* the current record merges a rep instruction's iterations */
	uint64_t last_mem_end;	/* the previous access of the current execution */
	uint32_t window_next;	/* a WINDOW came: the tag of the next EXEC's first record */
	int last_mem_idx, last_mem_store;
};

/* what all connections (processes) share: the sink and its state */
struct qshared {
	const struct collect_qemu_opts *o;
	struct collect_qemu_stats *st;
	bool stopped_by_sink;
	int sink_rc;
	uint64_t mem_dropped, unknown;
	bool have_last;		/* the stretch delivered last: */
	unsigned last_proc;
	size_t last_tid;
	char plugin_error[256];
};

/* one connection: one process's stream, with its own block ids and threads */
struct qdec {
	struct qshared *sh;
	const struct collect_qemu_opts *o;
	unsigned proc;		/* 0: the program, then in the order they connect */
	struct qblock *blocks;
	size_t nblocks;
	uint64_t next_block;	/* ids count up from 0: the next new one */
	struct qthread *threads;
	size_t nthreads;
	bool hello, ended;
	bool exec_pending;	/* EXECVE last: closing without END is an exec */
	bool biased;		/* its BIAS came */
	int cur_thread;		/* inside a chunk: its thread, else -1 */
	uint64_t chunk_left;	/* words of the chunk not yet parsed */
};

static void qdec_init(struct qdec *d, struct qshared *sh, unsigned proc)
{
	memset(d, 0, sizeof(*d));
	d->sh = sh;
	d->o = sh->o;
	d->proc = proc;
	d->cur_thread = -1;
}

/* the traced ranges a WINDOW may name: every obj= range, in order */
static size_t window_ranges(const struct collect_qemu_opts *o)
{
	size_t n = 0;
	for (size_t i = 0; i < o->nobjects; i++)
		n += o->objects[i].nranges;
	return n;
}

static int deliver(struct qdec *d, size_t tid, struct stream_insn *v, size_t n)
{
	struct qshared *sh = d->sh;
	if (sh->stopped_by_sink || sh->st->truncated || !n)
		return 0;
	uint64_t max = d->o->max_insns;
	if (max && sh->st->insns + n >= max) {
		n = (size_t)(max - sh->st->insns);
		sh->st->truncated = true;
	}
	sh->st->insns += n;
	if (!n)
		return 0;
	/* another process's or thread's stretch: control did not flow there */
	if (sh->have_last && (sh->last_proc != d->proc || sh->last_tid != tid))
		v[0].flags |= STREAM_ENTRY;
	uint32_t who = STREAM_THREAD(d->proc, tid);
	for (size_t i = 0; i < n; i++)
		v[i].thread = who;
	sh->have_last = true;
	sh->last_proc = d->proc;
	sh->last_tid = tid;
	if (!d->o->sink)
		return 0;
	int rc = d->o->sink(d->o->ctx, v, n);
	if (rc) {
		sh->stopped_by_sink = true;
		sh->sink_rc = rc;
	}
	return rc;
}

/* hands over the finalized records of T, keeping the current execution */
static void thread_flush(struct qdec *d, struct qthread *t, bool all)
{
	size_t fin = t->has_cur && !all ? t->cur : t->n;
	deliver(d, (size_t)(t - d->threads), t->v, fin);
	if (fin < t->n)
		memmove(t->v, t->v + fin, (t->n - fin) * sizeof(*t->v));
	t->n -= fin;
	t->cur -= t->has_cur && !all ? fin : 0;
	if (all)
		t->has_cur = false;
}

static struct qthread *get_thread(struct qdec *d, size_t tid)
{
	if (tid >= d->nthreads) {
		size_t nn = tid + 8;
		struct qthread *t = realloc(d->threads, nn * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + d->nthreads, 0, (nn - d->nthreads) * sizeof(*t));
		d->threads = t;
		d->nthreads = nn;
	}
	return &d->threads[tid];
}

/* A rep-prefixed string instruction. QEMU runs each of its iterations as
 * an execution of a one-instruction block; PT and the model see one
 * retired instruction. */
static bool rep_string(const struct stream_insn *r)
{
	unsigned j = 0;
	bool rep = false;
	for (; j < r->size; j++) {
		uint8_t b = r->bytes[j];
		if (b == 0xf3 || b == 0xf2)
			rep = true;
		else if (b != 0x66 && b != 0x67 && b != 0x26 && b != 0x2e && b != 0x36 && b != 0x3e &&
			 b != 0x64 && b != 0x65)
			break;
	}
	if (j < r->size && (r->bytes[j] & 0xf0) == 0x40)
		j++;
	if (!rep || j >= r->size)
		return false;
	uint8_t op = r->bytes[j];
	return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f);
}

static int on_exec(struct qdec *d, struct qthread *t, uint64_t w)
{
	unsigned x = (unsigned)(w >> 4) & 0xf;
	uint64_t id = w >> 8;
	if (t->has_cur && (x & QW_X_PREV_TAKEN))
		t->v[t->cur + t->cur_n - 1].flags |= STREAM_TAKEN;
	if (id >= d->nblocks || !d->blocks[id].tmpl) {
		/* cannot happen with a well-formed stream: say the records are missing */
		d->sh->unknown++;
		t->has_cur = false;
		t->gap_next = true;
		return 0;
	}
	const struct qblock *b = &d->blocks[id];
	if (t->has_cur && b->n == 1 && !(x & QW_X_ENTRY) && t->v[t->cur + t->cur_n - 1].ip == b->tmpl[0].ip &&
	    rep_string(&b->tmpl[0])) {
		/* the next iteration of the same instruction (the first may have
		 * ended a longer block): where it goes is decided by its last
		 * iteration */
		t->cur += t->cur_n - 1;
		t->cur_n = 1;
		t->v[t->cur].flags &= (uint8_t)~STREAM_TAKEN;
		t->cur_rep = true;
		t->last_mem_idx = -1;
		return 0;
	}
	if (t->n >= BATCH_RECORDS) {
		t->has_cur = false;
		thread_flush(d, t, true);
	}
	if (t->n + b->n > t->cap) {
		size_t cap = t->cap ? t->cap : BATCH_RECORDS + 1024;
		while (cap < t->n + b->n)
			cap *= 2;
		struct stream_insn *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	memcpy(t->v + t->n, b->tmpl, b->n * sizeof(*t->v));
	if (x & QW_X_ENTRY)
		t->v[t->n].flags |= STREAM_ENTRY;
	if (t->window_next) {
		t->v[t->n].flags |= STREAM_WINDOW;
		t->v[t->n].window = t->window_next;
		t->window_next = 0;
	}
	if (t->gap_next)
		t->v[t->n].flags |= STREAM_GAP;
	t->gap_next = false;
	t->cur = t->n;
	t->cur_n = b->n;
	t->n += b->n;
	t->has_cur = true;
	t->cur_rep = false;
	t->last_mem_idx = -1;
	return 0;
}

static void on_mem(struct qdec *d, struct qthread *t, uint64_t w)
{
	unsigned store = (unsigned)(w >> 4) & 1, shift = (unsigned)(w >> 5) & 3;
	unsigned idx = (unsigned)(w >> 7) & 0x1ff;
	uint64_t addr = w >> 16;
	if (!t->has_cur || idx >= t->cur_n) {
		d->sh->unknown++;
		return;
	}
	struct stream_insn *r = &t->v[t->cur + idx];
	bool cont = t->last_mem_idx == (int)idx && t->last_mem_store == (int)store &&
		    addr == t->last_mem_end;
	t->last_mem_idx = (int)idx;
	t->last_mem_store = (int)store;
	t->last_mem_end = addr + (1u << shift);
	if (cont)
		return;
	r->flags |= STREAM_HAS_MEM;
	for (unsigned i = 0; i < r->nmem; i++)
		if (r->mem[i] == addr) {
			r->store_mask |= (uint8_t)(store << i);
			return;
		}
	if (r->nmem == STREAM_MAX_MEM) {
		/* a merged rep keeps its first iterations' addresses */
		if (!t->cur_rep)
			d->sh->mem_dropped++;
		return;
	}
	r->store_mask |= (uint8_t)(store << r->nmem);
	r->mem[r->nmem++] = addr;
}

static int on_block(struct qdec *d, const uint64_t *w)
{
	uint32_t n = (uint32_t)(w[0] >> 8) & 0xffff;
	uint64_t id = w[0] >> 24;
	/* The plugin numbers blocks from 0 and defines each before any
	 * execution refers to it, and sends none without an instruction:
	 * anything else (an id beyond the next one, a huge one) is a stream
	 * gus must not trust with its memory. */
	if (n == 0 || id > d->next_block || id >= QEMU_MAX_BLOCKS)
		return -1;
	if (id == d->next_block)
		d->next_block++;
	if (id >= d->nblocks) {
		size_t nn = d->nblocks ? d->nblocks : 1024;
		while (nn <= id)
			nn *= 2;
		struct qblock *b = realloc(d->blocks, nn * sizeof(*b));
		if (!b)
			return -1;
		memset(b + d->nblocks, 0, (nn - d->nblocks) * sizeof(*b));
		d->blocks = b;
		d->nblocks = nn;
	}
	struct qblock *b = &d->blocks[id];
	free(b->tmpl);
	b->tmpl = calloc(n ? n : 1, sizeof(*b->tmpl));
	if (!b->tmpl)
		return -1;
	b->n = n;
	const uint64_t *p = w + 1;
	for (uint32_t i = 0; i < n; i++, p += QW_INSN_WORDS) {
		struct stream_insn *r = &b->tmpl[i];
		r->ip = p[0];
		r->size = (uint8_t)(p[1] & 0xff);
		if (r->size > STREAM_MAX_BYTES)
			r->size = STREAM_MAX_BYTES;
		memcpy(r->bytes, &p[2], 16);
		if (((p[1] >> 8) & QW_S_FALL_OUT) && i + 1 < n)
			b->tmpl[i + 1].flags |= STREAM_ENTRY;
	}
	return 0;
}

/* Parses the complete messages in W[0..n); returns the words consumed,
 * or -1 on a malformed stream. */
static ssize_t parse(struct qdec *d, const uint64_t *w, size_t n)
{
	size_t i = 0;
	while (i < n && !d->ended) {
		if (d->cur_thread >= 0) {
			struct qthread *t = &d->threads[d->cur_thread];
			size_t end = i + (d->chunk_left < n - i ? (size_t)d->chunk_left : n - i);
			d->chunk_left -= end - i;
			for (; i < end; i++) {
				uint64_t x = w[i];
				if (QW_TYPE(x) == QW_MEM)
					on_mem(d, t, x);
				else if (QW_TYPE(x) == QW_EXEC) {
					if (on_exec(d, t, x))
						return -1;
				} else if (QW_TYPE(x) == QW_WINDOW && d->o->window_records && (x & 0xf0) == 0) {
					/* the next EXEC starts a window: its tag, checked
					 * against the ranges gus gave */
					uint64_t range = (x >> 8) & 0xffffff, index = x >> 32;
					if (range >= window_ranges(d->o) || range >= 255 || index > QW_MAX_WINDOW_INDEX)
						return -1;
					t->window_next = STREAM_WINDOW_TAG(range, index);
				} else
					return -1;
			}
			if (!d->chunk_left) {
				thread_flush(d, t, false);
				d->cur_thread = -1;
			}
			continue;
		}
		uint64_t h = w[i];
		size_t need;
		switch (QW_TYPE(h)) {
		case QW_HELLO:
		case QW_BIAS:
		case QW_CHUNK:
		case QW_END:
		case QW_EXECVE:
		case QW_RESETS:
			need = 2;
			break;
		case QW_COUNT:
			need = 3;
			break;
		case QW_MAP:
			need = 4;
			break;
		case QW_BLOCK:
			need = 1 + ((h >> 8) & 0xffff) * QW_INSN_WORDS;
			break;
		case QW_ERROR:
			need = 1 + (((h >> 8) & 0xffff) + 7) / 8;
			break;
		default:
			return -1;
		}
		if (need > READ_BUF / 8)
			return -1;
		if (n - i < need)
			break;
		const uint64_t *m = w + i;
		/* everything comes after the greeting, once */
		if ((QW_TYPE(h) == QW_HELLO) == d->hello)
			return -1;
		d->exec_pending = false;	/* anything after EXECVE: the exec failed */
		switch (QW_TYPE(h)) {
		case QW_HELLO:
			if (m[1] != QW_MAGIC || ((h >> 8) & 0xff) < QW_VERSION_MIN ||
			    ((h >> 8) & 0xff) > QW_VERSION || h >> 16)
				return -1;
			d->hello = true;
			break;
		case QW_BIAS:
			/* the program's bias: once, from the program's own stream */
			if (d->biased)
				return -1;
			d->biased = true;
			if (d->proc == 0) {
				d->sh->st->load_bias = m[1];
				if (d->o->started)
					d->o->started(d->o->ctx, m[1]);
			}
			break;
		case QW_MAP: {
			/* only objects gus asked for, and a mapping that fits the
			 * address space */
			uint64_t obj = h >> 8;
			if (obj >= d->o->nobjects || !m[2] || m[1] + m[2] < m[1])
				return -1;
			if (d->o->mapped)
				d->o->mapped(d->o->ctx, (size_t)obj, d->proc, m[1], m[2], m[3]);
			break;
		}
		case QW_EXECVE:
			d->exec_pending = true;
			break;
		case QW_BLOCK:
			if (on_block(d, m))
				return -1;
			break;
		case QW_CHUNK: {
			/* numbered in the order they first ran traced code, but a
			 * thread's first chunk comes when its buffer fills or it
			 * ends: thread 3 may come before thread 1. The bound keeps
			 * the table small (a few MB at most). */
			size_t tid = (size_t)(h >> 8);
			if (tid >= QEMU_MAX_THREADS || !get_thread(d, tid))
				return -1;
			d->cur_thread = (int)tid;
			d->chunk_left = m[1];
			break;
		}
		case QW_COUNT:
			if (d->o->block)
				d->o->block(d->o->ctx, m[1], (uint32_t)(h >> 8), m[2]);
			break;
		case QW_END:
			d->ended = true;
			break;
		case QW_RESETS:
			d->sh->st->mode_switches += m[1] & 0xffffffff;
			d->sh->st->pulled_windows += m[1] >> 32;
			d->sh->st->late_windows += h >> 8 & 0xfffffff;
			d->sh->st->bare_arms += h >> 36 & 0x3fff;
			d->sh->st->dark_switches += h >> 50;
			break;
		case QW_ERROR: {
			size_t len = (size_t)((h >> 8) & 0xffff);
			char *pe = d->sh->plugin_error;
			if (pe[0])	/* the first one says it */
				break;
			if (len >= sizeof(d->sh->plugin_error))
				len = sizeof(d->sh->plugin_error) - 1;
			memcpy(pe, m + 1, len);
			pe[len] = 0;
			if (!pe[0])
				snprintf(pe, sizeof(d->sh->plugin_error), "an empty error message");
			break;
		}
		}
		i += need;
	}
	return (ssize_t)i;
}

/* Parses the complete messages of the HAVE bytes in BUF and keeps the
 * rest at its start (HAVE updated); -1 on a malformed stream. */
static int consume(struct qdec *d, uint64_t *buf, size_t *have)
{
	if (d->sh->stopped_by_sink)	/* drain only */
		*have = 0;
	ssize_t used = parse(d, buf, *have / 8);
	if (used < 0)
		return -1;
	size_t ub = (size_t)used * 8;
	memmove(buf, (char *)buf + ub, *have - ub);
	*have -= ub;
	return 0;
}

static void qdec_free(struct qdec *d)
{
	for (size_t i = 0; i < d->nblocks; i++)
		free(d->blocks[i].tmpl);
	free(d->blocks);
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->threads[i].v);
	free(d->threads);
}

int collect_qemu_decode(const void *data, size_t len, size_t piece, const struct collect_qemu_opts *o,
			struct collect_qemu_stats *st, char *err, size_t errlen)
{
	struct qshared sh = { .o = o, .st = st };
	struct qdec d;
	memset(st, 0, sizeof(*st));
	qdec_init(&d, &sh, 0);
	if (!piece || piece > READ_BUF)
		piece = READ_BUF;
	uint64_t *buf = malloc(READ_BUF);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	const uint8_t *p = data;
	size_t have = 0, at = 0;
	bool malformed = false;
	while (at < len && !d.ended) {
		size_t n = len - at;
		if (n > piece)
			n = piece;
		if (n > READ_BUF - have)
			n = READ_BUF - have;
		memcpy((char *)buf + have, p + at, n);
		at += n;
		have += n;
		if (consume(&d, buf, &have)) {
			malformed = true;
			break;
		}
		if (have == READ_BUF) {	/* cannot happen: a message fits in the buffer */
			malformed = true;
			break;
		}
	}
	for (size_t i = 0; i < d.nthreads; i++)
		thread_flush(&d, &d.threads[i], true);
	st->mem_dropped = sh.mem_dropped;
	st->procs = d.hello;
	int rc = -1;
	if (sh.plugin_error[0])
		snprintf(err, errlen, "%s (plugin)", sh.plugin_error);
	else if (!d.hello)
		snprintf(err, errlen, "the trace stream does not start with the plugin's greeting");
	else if (malformed)
		snprintf(err, errlen, "the trace stream is malformed");
	else if (sh.stopped_by_sink)
		snprintf(err, errlen, "the trace consumer stopped the recording (code %d)", sh.sink_rc);
	else if (!d.ended && !d.exec_pending)
		snprintf(err, errlen, "the trace stream ended early; %" PRIu64 " records kept", st->insns);
	else
		rc = 0;
	qdec_free(&d);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------- launching -- */

static const char *plugin_path(const struct collect_qemu_opts *o, char *buf, size_t len)
{
	if (o->plugin)
		return o->plugin;
	const char *e = getenv("GUS_QEMU_PLUGIN");
	if (e && *e)
		return e;
	snprintf(buf, len, "%s/gus-qemu-plugin.so", GUS_ABS_BUILDDIR);
	if (!access(buf, R_OK))
		return buf;
	snprintf(buf, len, "%s/gus-qemu-plugin.so", GUS_PKGLIBDIR);
	return buf;
}

/* a growing string */
struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int k = b->s ? vsnprintf(b->s + b->n, room, fmt, ap) : -1;
		va_end(ap);
		if (k >= 0 && (size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (k >= 0 && cap < b->n + (size_t)k + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

/* The plugin's options but file= and fd=, separated by SEP: the -plugin
 * value (SEP ','), and the one gus-qemu-exec.so passes on (SEP '\n', as
 * QEMU's -E splits at commas) */
static void plugin_opts(struct sbuf *b, char sep, uint64_t xlo, const char *sock,
			const struct collect_qemu_opts *o, const struct stat *objst)
{
	if (sock)
		sb_add(b, "%csock=%s", sep, sock);
	if (!o->nobjects)
		sb_add(b, "%cxlo=%" PRIx64, sep, xlo);
	sb_add(b, "%cmem=%s%ccounts=%s", sep, o->data_addresses ? "on" : "off", sep,
	       o->block_counts ? "on" : "off");
	/* the plugin counts a rep instruction's iterations one by one, gus
	 * merges them: the plugin may stop only well after gus's cut */
	if (o->max_insns)
		sb_add(b, "%cmax=%" PRIu64, sep, o->max_insns > UINT64_MAX / 4 ? UINT64_MAX
									: 2 * o->max_insns + 65536);
	if (o->window_records)
		sb_add(b, "%cwin=%" PRIu64 "%cwins=%u", sep, o->window_records, sep,
		       o->windows_per_level ? o->windows_per_level : 32);
	if (o->window_records && o->window_gap)
		sb_add(b, "%cgap=%" PRIu64, sep, o->window_gap == UINT64_MAX ? 0 : o->window_gap);
	if (o->window_records && !o->window_gap && o->window_pace_ns)
		sb_add(b, "%cpace=%" PRIu64, sep, o->window_pace_ns);
	if (o->window_records && !o->window_gap && o->window_bare_records)
		sb_add(b, "%cbare=%" PRIu64, sep, o->window_bare_records);
	if (o->window_records && !o->window_gap && o->window_exact)
		sb_add(b, "%cpull=off%cdark=off", sep, sep);
	else if (o->window_records && !o->window_gap && o->window_counted)
		sb_add(b, "%cdark=off", sep);
	if (o->nobjects) {
		for (size_t i = 0; i < o->nobjects; i++) {
			sb_add(b, "%cobj=%" PRIx64 ":%" PRIx64, sep, (uint64_t)objst[i].st_dev,
			       (uint64_t)objst[i].st_ino);
			for (size_t j = 0; j < o->objects[i].nranges; j++)
				sb_add(b, ":%" PRIx64 "-%" PRIx64, o->objects[i].ranges[j].start,
				       o->objects[i].ranges[j].end);
		}
	} else
		for (size_t i = 0; i < o->nranges; i++)
			sb_add(b, "%s%" PRIx64 "-%" PRIx64, i ? ":" : sep == ',' ? ",ranges=" : "\nranges=",
			       o->ranges[i].start, o->ranges[i].end);
}

/* -plugin's value: QEMU's option syntax doubles a comma inside a value */
static char *plugin_arg(const char *plugin, int fd, uint64_t xlo, const char *sock,
			const struct collect_qemu_opts *o, const struct stat *objst)
{
	struct sbuf b = { 0 };
	sb_add(&b, "file=");
	for (const char *c = plugin; *c; c++)
		sb_add(&b, "%s%c", *c == ',' ? "," : "", *c);
	sb_add(&b, ",fd=%d", fd);
	plugin_opts(&b, ',', xlo, sock, o, objst);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* #! scripts, as the kernel runs them (4 levels): *FILE becomes the ELF
 * that runs, FRONT (argv[0] at first) the arguments before the script's
 * own argv[1...]: the interpreter as written, its optional argument, the
 * script's path. -1 with ERR when the interpreter cannot be read. */
#define MAX_FRONT 16
static int resolve_script(char **file, char **front, size_t *nfront, bool *owned, const char *prog,
			  char *err, size_t errlen)
{
	for (int level = 0;; level++) {
		char head[256];
		int fd = open(*file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;	/* check_program says why */
		ssize_t got = read(fd, head, sizeof(head) - 1);
		close(fd);
		if (got < 2 || head[0] != '#' || head[1] != '!')
			return 0;
		if (level == 4 || *nfront + 3 > MAX_FRONT) {
			snprintf(err, errlen, "%s: too many levels of #! interpreters", prog);
			return -1;
		}
		head[got] = 0;
		char *nl = strchr(head, '\n');
		if (nl)
			*nl = 0;
		char *p = head + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		char *ie = p;
		while (*ie && *ie != ' ' && *ie != '\t')
			ie++;
		char *arg = *ie ? ie + 1 : ie;
		*ie = 0;
		while (*arg == ' ' || *arg == '\t')
			arg++;
		size_t al = strlen(arg);
		while (al && (arg[al - 1] == ' ' || arg[al - 1] == '\t' || arg[al - 1] == '\r'))
			arg[--al] = 0;
		if (!*p) {
			snprintf(err, errlen, "%s: a #! line without an interpreter", prog);
			return -1;
		}
		/* FRONT = interp [arg] file FRONT[1...] */
		char *interp = strdup(p), *a2 = al ? strdup(arg) : NULL;
		if (!interp || (al && !a2)) {
			free(interp);
			free(a2);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		size_t k = al ? 3 : 2;
		if (owned[0])
			free(front[0]);
		memmove(front + k, front + 1, (*nfront - 1) * sizeof(*front));
		memmove(owned + k, owned + 1, (*nfront - 1) * sizeof(*owned));
		front[0] = interp;
		owned[0] = true;
		if (al) {
			front[1] = a2;
			owned[1] = true;
		}
		front[k - 1] = *file;	/* the script path, owned */
		owned[k - 1] = true;
		*nfront += k - 1;
		if (!(*file = strdup(interp))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
}

/* ------------------------------------------------------- connections -- */

/* processes sending their streams at once (a read buffer each); a
 * process beyond them goes on untraced */
#define QEMU_MAX_LIVE_CONNS 1024

struct qconn {
	int fd;
	struct qdec d;
	uint64_t *buf;
	size_t have;
	bool done;		/* end of file, END, or dropped */
	bool malformed;
};

static struct qconn *qconn_new(int fd, struct qshared *sh, unsigned proc)
{
	struct qconn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!(c->buf = malloc(READ_BUF))) {
		free(c);
		return NULL;
	}
	c->fd = fd;
	qdec_init(&c->d, sh, proc);
	return c;
}

/* the connection's records handed over, its fd closed, its memory freed
 * but for what the verdict needs (the program's: HELLO, END, EXECVE) */
static void qconn_finish(struct qconn *c)
{
	for (size_t i = 0; i < c->d.nthreads; i++)
		thread_flush(&c->d, &c->d.threads[i], true);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->done = true;
	free(c->buf);
	c->buf = NULL;
	qdec_free(&c->d);
	c->d.blocks = NULL;
	c->d.threads = NULL;
	c->d.nblocks = c->d.nthreads = 0;
}

/* reads what C has; returns -1 on end of file or a malformed stream */
static int qconn_read(struct qconn *c)
{
	ssize_t got = read(c->fd, (char *)c->buf + c->have, READ_BUF - c->have);
	if (got < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (got == 0)
		return -1;
	c->have += (size_t)got;
	if (consume(&c->d, c->buf, &c->have) || c->have == READ_BUF) {
		c->malformed = true;
		return -1;
	}
	return c->d.ended ? -1 : 0;
}

/* SIGKILL to the children of gus (the descendants of the program that
 * were reparented to it, and the program itself) */
static void kill_children(void)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	pid_t me = getpid();
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char path[300], line[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (n <= 0)
			continue;
		line[n] = 0;
		char *rp = strrchr(line, ')');
		int ppid;
		char state;
		if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == me)
			kill((pid_t)atoi(e->d_name), SIGKILL);
	}
	closedir(dir);
}

/* gus's own private directory for the socket: 0700, under $TMPDIR or /tmp */
/* The socket children and exec'd programs connect to: a name in Linux's
 * abstract namespace ("@gus-qemu-PID-RANDOM" for the plugin), which no
 * file stands for: nothing is left behind whatever way gus ends (a
 * SIGKILL included), nothing in a directory is created or removed. Who
 * connects is checked (SO_PEERCRED) when accepted. */
static int make_socket(char *path, size_t pathlen, int *lfd)
{
	uint64_t rnd = 0;
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	snprintf(path, pathlen, "@gus-qemu-%d-%016llx", (int)getpid(), (unsigned long long)rnd);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	/* the whole of sun_path is the name: the rest stays zero */
	memcpy(a.sun_path + 1, path + 1, strlen(path) - 1);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 128)) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	*lfd = s;
	return 0;
}

/* a connection from a process of gus's own user (the traced program's
 * children are): anyone else's is closed unread */
static bool peer_is_ours(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) && cred.uid == geteuid();
}

/* ----------------------------------------------------------- the run -- */

enum collect_status collect_qemu_run(char *const argv[], const struct collect_qemu_opts *o,
				     struct collect_qemu_stats *st, struct collect_result *res,
				     char *err, size_t errlen)
{
	enum collect_status status = COLLECT_OK;
	char *qemu = NULL, *prog = NULL, *parg = NULL, *penv = NULL, *preload = NULL, plugbuf[4096];
	char shimbuf[4200], sockpath[240] = "";
	char *front[MAX_FRONT] = { 0 };
	bool owned[MAX_FRONT] = { 0 };
	size_t nfront = 1;
	struct stat *objst = NULL;
	char **qargv = NULL;
	int dp[2] = { -1, -1 }, ex[2] = { -1, -1 }, lfd = -1;
	struct collect_forward fwd = { .installed = false };
	pid_t pid = -1;
	struct qshared sh = { .o = o, .st = st };
	struct qconn **conns = NULL;
	size_t nconns = 0;
	int old_reaper = 0;
	bool reaper = false;
	const bool follow = o->follow_children;

	memset(res, 0, sizeof(*res));
	memset(st, 0, sizeof(*st));

	if (!argv || !argv[0]) {
		snprintf(err, errlen, "no program to run");
		return COLLECT_ERROR;
	}
	const char *qname = o->qemu;
	if (!qname || !*qname)
		qname = getenv("GUS_QEMU");
	if (!qname || !*qname)
		qname = "qemu-x86_64";
	qemu = resolve_path(qname);
	if (!qemu || access(qemu, X_OK)) {
		res->exec_errno = qemu ? errno : ENOENT;
		snprintf(err, errlen, "cannot run %s: %s; %s", qname,
			 strerror(res->exec_errno), QEMU_PACKAGE_HINT);
		status = COLLECT_EXEC_FAILED;
		goto out;
	}
	const char *plugin = plugin_path(o, plugbuf, sizeof(plugbuf));
	if (access(plugin, R_OK)) {
		snprintf(err, errlen, "gus's QEMU plugin %s: %s (build it with make, or name it "
			 "with $GUS_QEMU_PLUGIN)", plugin, strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	for (size_t i = 0; i < o->nranges && !o->nobjects; i++)
		if (o->ranges[i].end <= o->ranges[i].start) {
			snprintf(err, errlen, "empty trace range 0x%" PRIx64 "-0x%" PRIx64,
				 o->ranges[i].start, o->ranges[i].end);
			status = COLLECT_ERROR;
			goto out;
		}
	if (o->nranges > MAX_PLUGIN_RANGES && !o->nobjects) {
		snprintf(err, errlen, "%zu trace ranges: the QEMU tracer takes at most %d",
			 o->nranges, MAX_PLUGIN_RANGES);
		status = COLLECT_ERROR;
		goto out;
	}
	if (o->nobjects > QW_MAX_OBJECTS) {
		snprintf(err, errlen, "%zu traced objects: the QEMU tracer takes at most %d",
			 o->nobjects, QW_MAX_OBJECTS);
		status = COLLECT_ERROR;
		goto out;
	}
	size_t nobjr = 0;
	if (o->nobjects && !(objst = calloc(o->nobjects, sizeof(*objst)))) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}
	for (size_t i = 0; i < o->nobjects; i++) {
		const struct collect_qemu_object *ob = &o->objects[i];
		if (!ob->path || stat(ob->path, &objst[i])) {
			snprintf(err, errlen, "traced object %s: %s", ob->path ? ob->path : "(none)",
				 strerror(ob->path ? errno : EINVAL));
			status = COLLECT_ERROR;
			goto out;
		}
		for (size_t j = 0; j < ob->nranges; j++)
			if (ob->ranges[j].end <= ob->ranges[j].start) {
				snprintf(err, errlen, "%s: empty trace range of file offsets 0x%" PRIx64
					 "-0x%" PRIx64, ob->path, ob->ranges[j].start, ob->ranges[j].end);
				status = COLLECT_ERROR;
				goto out;
			}
		nobjr += ob->nranges;
	}
	if (nobjr > 4096) {
		snprintf(err, errlen, "%zu ranges in the traced objects: the QEMU tracer takes at most 4096",
			 nobjr);
		status = COLLECT_ERROR;
		goto out;
	}
	prog = resolve_path(argv[0]);
	if (!prog) {
		res->exec_errno = ENOENT;
		snprintf(err, errlen, "cannot run '%s': %s", argv[0], strerror(ENOENT));
		status = COLLECT_EXEC_FAILED;
		goto out;
	}
	front[0] = argv[0];
	/* a script runs as its interpreter where the ranges are not the
	 * program's own link-time addresses */
	if (o->nobjects &&
	    resolve_script(&prog, front, &nfront, owned, argv[0], err, errlen)) {
		status = COLLECT_ERROR;
		goto out;
	}
	uint64_t xlo = 0;
	status = check_program(argv[0], prog, &xlo, &res->exec_errno, err, errlen);
	if (status != COLLECT_OK)
		goto out;

	/* exec'd programs: through the guest-side shim beside the plugin */
	const char *shim = NULL;
	if (follow && o->nobjects) {
		const char *sl = strrchr(plugin, '/');
		snprintf(shimbuf, sizeof(shimbuf), "%.*sgus-qemu-exec.so", sl ? (int)(sl - plugin + 1) : 0,
			 plugin);
		shim = shimbuf;
		/* without it the program and its forked children are traced
		 * all the same; only what they exec runs untraced: said, not
		 * an error */
		if (access(shim, R_OK)) {
			snprintf(st->exec_note, sizeof(st->exec_note),
				 "exec'd programs are not followed: gus's exec shim %.250s: %s (built with the plugin)",
				 shim, strerror(errno));
			shim = NULL;
		} else if (shim[0] != '/' || qemu[0] != '/' || strpbrk(shim, ",\n") || strpbrk(qemu, ",\n") ||
			   strpbrk(plugin, ",\n") || plugin[0] != '/') {
			snprintf(st->exec_note, sizeof(st->exec_note),
				 "exec'd programs are not followed: the paths of qemu, the plugin and "
				 "gus-qemu-exec.so must be absolute, without commas or newlines (%.80s, %.80s)",
				 qemu, plugin);
			shim = NULL;
		}
	}
	if (follow) {
		if (make_socket(sockpath, sizeof(sockpath), &lfd)) {
			snprintf(err, errlen, "cannot set up the QEMU tracer's socket %s: %s", sockpath,
				 strerror(errno));
			status = COLLECT_ERROR;
			goto out;
		}
	}

	if (pipe2(dp, O_CLOEXEC) || pipe2(ex, O_CLOEXEC) ||
	    !(parg = plugin_arg(plugin, dp[1], xlo, follow ? sockpath : NULL, o, objst))) {
		snprintf(err, errlen, "cannot set up the QEMU tracer: %s", strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	if (shim) {
		struct sbuf b = { 0 }, pl = { 0 };
		sb_add(&b, "GUS_QEMU_EXEC=%s\n%s\nfile=%s", qemu, shim, plugin);
		plugin_opts(&b, '\n', xlo, sockpath, o, objst);
		const char *old = getenv("LD_PRELOAD");
		sb_add(&pl, "LD_PRELOAD=%s%s%s", shim, old && *old ? ":" : "", old && *old ? old : "");
		if (b.oom || pl.oom) {
			free(b.s);
			free(pl.s);
			snprintf(err, errlen, "out of memory");
			status = COLLECT_ERROR;
			goto out;
		}
		penv = b.s;
		preload = pl.s;
	}
	size_t argc = 0;
	while (argv[argc])
		argc++;
	qargv = calloc(argc + nfront + 16, sizeof(*qargv));
	if (!qargv) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}
	size_t k = 0;
	qargv[k++] = qemu;
	qargv[k++] = (char *)"-plugin";
	qargv[k++] = parg;
	if (shim) {
		qargv[k++] = (char *)"-E";
		qargv[k++] = preload;
		qargv[k++] = (char *)"-E";
		qargv[k++] = penv;
	}
	qargv[k++] = (char *)"-0";	/* the program sees its own argv[0] */
	qargv[k++] = front[0];
	qargv[k++] = prog;
	for (size_t i = 1; i < nfront; i++)
		qargv[k++] = front[i];
	for (size_t i = 1; i < argc; i++)
		qargv[k++] = argv[i];

	if (follow) {
		/* the program's orphaned descendants come to gus: the run ends
		 * when none is left */
		if (prctl(PR_GET_CHILD_SUBREAPER, &old_reaper) == 0 &&
		    prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
			reaper = true;
	}
	if (!(conns = calloc(1, sizeof(*conns))) || !(conns[0] = qconn_new(dp[0], &sh, 0))) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}
	nconns = 1;
	dp[0] = -1;	/* conns[0] owns it */

	/* nothing to attach first, so qemu is not held: forwarding starts
	 * once it is forked */
	collect_forward_install(&fwd, 0);

	double t0 = collect_now();
	pid_t gus_pid = getpid();
	pid = fork();
	if (pid == 0) {
		/* the traced run exists for gus alone: a gus killed outright
		 * (SIGKILL) takes it along rather than leave the program
		 * running a second time under QEMU with no one reading */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != gus_pid)
			_exit(127);
		close(conns[0]->fd);
		close(ex[0]);
		/* the plugin inside qemu writes to this end */
		fcntl(dp[1], F_SETFD, 0);
		signal(SIGPIPE, SIG_DFL);
		if (collect_stdio_apply(o->stdio))
			collect_exec_failed(ex[1]);
		execv(qemu, qargv);
		collect_exec_failed(ex[1]);
	}
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", qemu, strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	collect_forward_to(pid);
	close(dp[1]);
	close(ex[1]);
	dp[1] = ex[1] = -1;

	/* Read every connection until END or end of file. Without
	 * follow_children a child of the program may hold the pipe after qemu
	 * is gone, so qemu's exit also ends the reading, after what is already
	 * in the pipe. With it, the reading ends when the program and every
	 * descendant have ended (they are gus's children then, as its
	 * subreaper) and every connection is closed. */
	bool exited = false, tree_done = false, killing = false, malformed = false;
	int st_wait = 0;
	struct pollfd *pfd = NULL;
	struct timespec last_tick;
	clock_gettime(CLOCK_MONOTONIC, &last_tick);
	size_t *pconn = NULL, cap_pfd = 0;
	for (;;) {
		/* reap */
		if (!exited || (follow && reaper)) {
			for (;;) {
				int ws;
				pid_t w = follow && reaper ? waitpid(-1, &ws, WNOHANG) : waitpid(pid, &ws, WNOHANG);
				if (w > 0 && w == pid) {
					exited = true;
					st_wait = ws;
					pid = -1;
					continue;
				}
				if (w > 0)
					continue;
				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0 && errno == ECHILD && exited)
					tree_done = true;
				break;
			}
		}
		if (exited && !(follow && reaper))
			tree_done = true;
		if ((sh.stopped_by_sink || malformed) && !killing) {
			killing = true;
			if (pid > 0)
				kill(pid, SIGKILL);
		}
		if (killing && follow && reaper)
			kill_children();
		/* new connections */
		size_t live = 0;
		for (size_t i = 0; i < nconns; i++)
			live += !conns[i]->done;
		while (lfd >= 0) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0) {
				if (errno == EINTR || errno == ECONNABORTED)
					continue;
				break;
			}
			if (!peer_is_ours(c)) {
				close(c);
				continue;
			}
			struct qconn **nc = live < QEMU_MAX_LIVE_CONNS && nconns < UINT_MAX ?
				realloc(conns, (nconns + 1) * sizeof(*conns)) : NULL;
			if (nc)
				conns = nc;
			if (!nc || !(conns[nconns] = qconn_new(c, &sh, (unsigned)nconns))) {
				close(c);	/* that process goes on untraced */
				continue;
			}
			nconns++;
			live++;
		}
		if (!live && tree_done)
			break;
		if (!follow && conns[0]->done)
			break;
		if (cap_pfd < nconns + 1) {
			free(pfd);
			free(pconn);
			cap_pfd = (nconns + 1) * 2;
			pfd = malloc(cap_pfd * sizeof(*pfd));
			pconn = malloc(cap_pfd * sizeof(*pconn));
			if (!pfd || !pconn) {
				snprintf(err, errlen, "out of memory");
				status = COLLECT_ERROR;
				free(pfd);
				free(pconn);
				goto out;
			}
		}
		size_t np = 0;
		if (lfd >= 0) {
			pfd[np] = (struct pollfd){ .fd = lfd, .events = POLLIN };
			pconn[np++] = SIZE_MAX;
		}
		for (size_t i = 0; i < nconns; i++)
			if (!conns[i]->done) {
				pfd[np] = (struct pollfd){ .fd = conns[i]->fd, .events = POLLIN };
				pconn[np++] = i;
			}
		/* with every stream ended, only the end of the process tree is
		 * awaited, which no descriptor tells: looked at often, not to
		 * add up to 200 ms to every traced run */
		int pr = poll(pfd, np, tree_done ? 0 : live ? 200 : 2);
		if (pr < 0 && errno != EINTR)
			break;
		if (o->tick) {
			struct timespec t;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - last_tick.tv_sec) * 1000000000L + (t.tv_nsec - last_tick.tv_nsec) >= 200000000L) {
				last_tick = t;
				o->tick(o->ctx);
			}
		}
		if (pr == 0 && tree_done)
			break;	/* every writer has ended and nothing is left */
		if (pr <= 0)
			continue;
		for (size_t j = 0; j < np; j++) {
			if (pconn[j] == SIZE_MAX || !(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			struct qconn *c = conns[pconn[j]];
			if (qconn_read(c)) {
				if (c->malformed)
					malformed = true;
				/* the program's records, and any process's, kept */
				qconn_finish(c);
			}
		}
	}
	free(pfd);
	free(pconn);
	for (size_t i = 0; i < nconns; i++)
		if (!conns[i]->done)
			qconn_finish(conns[i]);
	if (lfd >= 0)
		close(lfd);
	lfd = -1;	/* a late connection is refused */

	if (pid > 0) {
		if (malformed || sh.stopped_by_sink)
			kill(pid, SIGKILL);
		while (waitpid(pid, &st_wait, 0) < 0) {
			if (errno != EINTR) {
				snprintf(err, errlen, "waiting for %s: %s", qemu, strerror(errno));
				status = COLLECT_ERROR;
				pid = -1;
				goto out;
			}
		}
		pid = -1;
	}
	res->seconds = collect_now() - t0;
	res->wait_status = st_wait;
	res->interrupted = collect_forward_got() != 0;
	int exec_errno = 0;
	if (read(ex[0], &exec_errno, sizeof(exec_errno)) == (ssize_t)sizeof(exec_errno)) {
		res->exec_errno = exec_errno;
		snprintf(err, errlen, "cannot run %s: %s; %s", qemu, strerror(exec_errno),
			 QEMU_PACKAGE_HINT);
		status = COLLECT_EXEC_FAILED;
		goto out;
	}
	const struct qdec *d0 = &conns[0]->d;
	st->mem_dropped = sh.mem_dropped;
	for (size_t i = 0; i < nconns; i++)
		st->procs += conns[i]->d.hello;
	if (getenv("GUS_QEMU_DEBUG"))
		fprintf(stderr, "gus: qemu tracer: %" PRIu64 " records from %u processes, %" PRIu64
			" accesses beyond %d per instruction dropped, %" PRIu64 " unknown words, %" PRIu64
			" instrumentation switches (%" PRIu64 " back from bare code, %" PRIu64 " to dark code), %" PRIu64
			" windows late, %" PRIu64 " pulled into another range's switch\n",
			st->insns, st->procs, sh.mem_dropped, STREAM_MAX_MEM, sh.unknown, st->mode_switches,
			st->bare_arms, st->dark_switches, st->late_windows, st->pulled_windows);
	if (sh.plugin_error[0]) {
		snprintf(err, errlen, "%s (plugin %s)", sh.plugin_error, plugin);
		status = COLLECT_ERROR;
	} else if (!d0->hello) {
		snprintf(err, errlen, "%s did not start gus's plugin %s (%s %d%s)", qemu, plugin,
			 WIFSIGNALED(st_wait) ? "killed by signal" : "exit status",
			 WIFSIGNALED(st_wait) ? WTERMSIG(st_wait) : WEXITSTATUS(st_wait),
			 !WIFEXITED(st_wait) || !WEXITSTATUS(st_wait) ? "" :
			 o->stdio && o->stdio->err >= 0 ? "; QEMU's message went to the program's standard error" :
			 "; QEMU's message is above");
		status = COLLECT_ERROR;
	} else if (malformed) {
		snprintf(err, errlen, "the trace stream from %s is malformed (a plugin of another "
			 "gus version?)", plugin);
		status = COLLECT_ERROR;
	} else if (sh.stopped_by_sink) {
		snprintf(err, errlen, "the trace consumer stopped the recording (code %d); "
			 "the program was killed", sh.sink_rc);
		status = COLLECT_ERROR;
	} else if (!d0->ended && !d0->exec_pending && !res->interrupted && !WIFSIGNALED(st_wait)) {
		snprintf(err, errlen, "the trace stream of %s ended early: QEMU died, or the "
			 "program exec'd another one; %" PRIu64 " records kept", argv[0], st->insns);
		status = COLLECT_ERROR;
	}
out:
	if (pid > 0 && follow && reaper) {
		kill(pid, SIGKILL);
		kill_children();
	}
	collect_kill_reap(pid);
	if (reaper) {
		/* what is left is reaped before gus stops being the reaper */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		prctl(PR_SET_CHILD_SUBREAPER, old_reaper);
	}
	collect_forward_restore(&fwd);
	/* an abstract socket: closing it is all (no file to remove) */
	if (lfd >= 0)
		close(lfd);
	collect_close_pipe(dp);
	collect_close_pipe(ex);
	for (size_t i = 0; i < nconns; i++) {
		if (!conns[i]->done)
			qconn_finish(conns[i]);
		free(conns[i]);
	}
	free(conns);
	for (size_t i = 0; i < MAX_FRONT; i++)
		if (owned[i])
			free(front[i]);
	free(qargv);
	free(objst);
	free(penv);
	free(preload);
	free(parg);
	free(prog);
	free(qemu);
	return status;
}
