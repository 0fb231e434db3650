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
 * A sink that returns non-zero ends the run: the program is killed
 * (SIGKILL), the stream is drained, and COLLECT_ERROR says so. max_insns
 * cuts the stream exactly; the plugin is told so that it stops emitting
 * soon after, and the program runs on to its end. */
#include "collect.h"
#include "collect_internal.h"
#include "qemu_wire.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	int last_mem_idx, last_mem_store;
};

struct qdec {
	const struct collect_qemu_opts *o;
	struct collect_qemu_stats *st;
	struct qblock *blocks;
	size_t nblocks;
	uint64_t next_block;	/* ids count up from 0: the next new one */
	struct qthread *threads;
	size_t nthreads;
	bool hello, ended, stopped_by_sink;
	int sink_rc;
	int cur_thread;		/* inside a chunk: its thread, else -1 */
	uint64_t chunk_left;	/* words of the chunk not yet parsed */
	uint64_t mem_dropped, unknown;
	char plugin_error[256];
};

static int deliver(struct qdec *d, const struct stream_insn *v, size_t n)
{
	if (d->stopped_by_sink || d->st->truncated || !n)
		return 0;
	uint64_t max = d->o->max_insns;
	if (max && d->st->insns + n >= max) {
		n = (size_t)(max - d->st->insns);
		d->st->truncated = true;
	}
	d->st->insns += n;
	if (!n || !d->o->sink)
		return 0;
	int rc = d->o->sink(d->o->ctx, v, n);
	if (rc) {
		d->stopped_by_sink = true;
		d->sink_rc = rc;
	}
	return rc;
}

/* hands over the finalized records of T, keeping the current execution */
static void thread_flush(struct qdec *d, struct qthread *t, bool all)
{
	size_t fin = t->has_cur && !all ? t->cur : t->n;
	deliver(d, t->v, fin);
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
		d->unknown++;
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
		d->unknown++;
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
			d->mem_dropped++;
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
			need = 2;
			break;
		case QW_COUNT:
			need = 3;
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
		switch (QW_TYPE(h)) {
		case QW_HELLO:
			if (m[1] != QW_MAGIC || ((h >> 8) & 0xff) != QW_VERSION)
				return -1;
			d->hello = true;
			break;
		case QW_BIAS:
			d->st->load_bias = m[1];
			if (d->o->started)
				d->o->started(d->o->ctx, m[1]);
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
		case QW_ERROR: {
			size_t len = (size_t)((h >> 8) & 0xffff);
			if (len >= sizeof(d->plugin_error))
				len = sizeof(d->plugin_error) - 1;
			memcpy(d->plugin_error, m + 1, len);
			d->plugin_error[len] = 0;
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
	if (d->stopped_by_sink)	/* drain only */
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
	struct qdec d;
	memset(st, 0, sizeof(*st));
	memset(&d, 0, sizeof(d));
	d.o = o;
	d.st = st;
	d.cur_thread = -1;
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
	st->mem_dropped = d.mem_dropped;
	int rc = -1;
	if (d.plugin_error[0])
		snprintf(err, errlen, "%s (plugin)", d.plugin_error);
	else if (!d.hello)
		snprintf(err, errlen, "the trace stream does not start with the plugin's greeting");
	else if (malformed)
		snprintf(err, errlen, "the trace stream is malformed");
	else if (d.stopped_by_sink)
		snprintf(err, errlen, "the trace consumer stopped the recording (code %d)", d.sink_rc);
	else if (!d.ended)
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

/* -plugin's value: QEMU's option syntax doubles a comma inside a value */
static char *plugin_arg(const char *plugin, int fd, uint64_t xlo, const struct collect_qemu_opts *o)
{
	size_t cap = 2 * strlen(plugin) + 256 + o->nranges * 36;
	char *s = malloc(cap), *p = s;
	if (!s)
		return NULL;
	p += sprintf(p, "file=");
	for (const char *c = plugin; *c; c++) {
		*p++ = *c;
		if (*c == ',')
			*p++ = ',';
	}
	p += sprintf(p, ",fd=%d,xlo=%" PRIx64 ",mem=%s,counts=%s", fd, xlo,
		     o->data_addresses ? "on" : "off", o->block_counts ? "on" : "off");
	/* the plugin counts a rep instruction's iterations one by one, gus
	 * merges them: the plugin may stop only well after gus's cut */
	if (o->max_insns)
		p += sprintf(p, ",max=%" PRIu64, o->max_insns > UINT64_MAX / 4 ? UINT64_MAX
									: 2 * o->max_insns + 65536);
	for (size_t i = 0; i < o->nranges; i++)
		p += sprintf(p, "%s%" PRIx64 "-%" PRIx64, i ? ":" : ",ranges=", o->ranges[i].start,
			     o->ranges[i].end);
	return s;
}

enum collect_status collect_qemu_run(char *const argv[], const struct collect_qemu_opts *o,
				     struct collect_qemu_stats *st, struct collect_result *res,
				     char *err, size_t errlen)
{
	enum collect_status status = COLLECT_OK;
	char *qemu = NULL, *prog = NULL, *parg = NULL, plugbuf[4096];
	uint64_t *buf = NULL;
	int dp[2] = { -1, -1 }, ex[2] = { -1, -1 };
	struct collect_forward fwd = { .installed = false };
	pid_t pid = -1;
	struct qdec d;

	memset(res, 0, sizeof(*res));
	memset(st, 0, sizeof(*st));
	memset(&d, 0, sizeof(d));
	d.o = o;
	d.st = st;
	d.cur_thread = -1;

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
	for (size_t i = 0; i < o->nranges; i++)
		if (o->ranges[i].end <= o->ranges[i].start) {
			snprintf(err, errlen, "empty trace range 0x%" PRIx64 "-0x%" PRIx64,
				 o->ranges[i].start, o->ranges[i].end);
			status = COLLECT_ERROR;
			goto out;
		}
	if (o->nranges > MAX_PLUGIN_RANGES) {
		snprintf(err, errlen, "%zu trace ranges: the QEMU tracer takes at most %d",
			 o->nranges, MAX_PLUGIN_RANGES);
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
	uint64_t xlo = 0;
	status = check_program(argv[0], prog, &xlo, &res->exec_errno, err, errlen);
	if (status != COLLECT_OK)
		goto out;

	if (pipe2(dp, O_CLOEXEC) || pipe2(ex, O_CLOEXEC) ||
	    !(buf = malloc(READ_BUF)) || !(parg = plugin_arg(plugin, dp[1], xlo, o))) {
		snprintf(err, errlen, "cannot set up the QEMU tracer: %s", strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	size_t argc = 0;
	while (argv[argc])
		argc++;
	char **qargv = calloc(argc + 8, sizeof(*qargv));
	if (!qargv) {
		snprintf(err, errlen, "out of memory");
		status = COLLECT_ERROR;
		goto out;
	}
	size_t k = 0;
	qargv[k++] = qemu;
	qargv[k++] = (char *)"-plugin";
	qargv[k++] = parg;
	qargv[k++] = (char *)"-0";	/* the program sees its own argv[0] */
	qargv[k++] = argv[0];
	qargv[k++] = prog;
	for (size_t i = 1; i < argc; i++)
		qargv[k++] = argv[i];

	/* nothing to attach first, so qemu is not held: forwarding starts
	 * once it is forked */
	collect_forward_install(&fwd, 0);

	double t0 = collect_now();
	pid = fork();
	if (pid == 0) {
		close(dp[0]);
		close(ex[0]);
		/* the plugin inside qemu writes to this end */
		fcntl(dp[1], F_SETFD, 0);
		signal(SIGPIPE, SIG_DFL);
		execv(qemu, qargv);
		collect_exec_failed(ex[1]);
	}
	free(qargv);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", qemu, strerror(errno));
		status = COLLECT_ERROR;
		goto out;
	}
	collect_forward_to(pid);
	close(dp[1]);
	close(ex[1]);
	dp[1] = ex[1] = -1;

	/* Read until END or end of file. A child of the program may hold the
	 * pipe after qemu is gone, so qemu's exit also ends the reading, after
	 * what is already in the pipe. */
	size_t have = 0;	/* bytes in buf */
	bool eof = false, malformed = false, exited = false;
	int st_wait = 0;
	while (!eof && !d.ended && !malformed) {
		struct pollfd pfd = { .fd = dp[0], .events = POLLIN };
		int pr = poll(&pfd, 1, exited ? 0 : 200);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr == 0) {
			if (exited)
				break;
			pid_t w = waitpid(pid, &st_wait, WNOHANG);
			if (w == pid) {
				exited = true;
				pid = -1;
			}
			continue;
		}
		if (pr < 0)
			continue;
		ssize_t got = read(dp[0], (char *)buf + have, READ_BUF - have);
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;
		}
		if (got == 0) {
			eof = true;
			break;
		}
		have += (size_t)got;
		if (consume(&d, buf, &have)) {
			malformed = true;
			break;
		}
		if (d.stopped_by_sink && pid > 0)
			kill(pid, SIGKILL);
	}
	if (d.ended || !d.hello || malformed) {
		/* nothing more of use: let qemu finish (the plugin's END is its
		 * last word) or stop a stream that makes no sense */
		if (malformed && pid > 0)
			kill(pid, SIGKILL);
	}
	for (size_t i = 0; i < d.nthreads; i++)
		thread_flush(&d, &d.threads[i], true);
	close(dp[0]);
	dp[0] = -1;	/* a late writer gets EPIPE rather than blocking */

	if (pid > 0) {
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
	st->mem_dropped = d.mem_dropped;
	if (getenv("GUS_QEMU_DEBUG"))
		fprintf(stderr, "gus: qemu tracer: %" PRIu64 " records, %" PRIu64
			" accesses beyond %d per instruction dropped, %" PRIu64 " unknown words\n",
			st->insns, d.mem_dropped, STREAM_MAX_MEM, d.unknown);
	if (d.plugin_error[0]) {
		snprintf(err, errlen, "%s (plugin %s)", d.plugin_error, plugin);
		status = COLLECT_ERROR;
	} else if (!d.hello) {
		snprintf(err, errlen, "%s did not start gus's plugin %s (%s %d%s)", qemu, plugin,
			 WIFSIGNALED(st_wait) ? "killed by signal" : "exit status",
			 WIFSIGNALED(st_wait) ? WTERMSIG(st_wait) : WEXITSTATUS(st_wait),
			 WIFEXITED(st_wait) && WEXITSTATUS(st_wait) ? "; QEMU's message is above" : "");
		status = COLLECT_ERROR;
	} else if (malformed) {
		snprintf(err, errlen, "the trace stream from %s is malformed (a plugin of another "
			 "gus version?)", plugin);
		status = COLLECT_ERROR;
	} else if (d.stopped_by_sink) {
		snprintf(err, errlen, "the trace consumer stopped the recording (code %d); "
			 "the program was killed", d.sink_rc);
		status = COLLECT_ERROR;
	} else if (!d.ended && !res->interrupted && !WIFSIGNALED(st_wait)) {
		snprintf(err, errlen, "the trace stream of %s ended early: QEMU died, or the "
			 "program exec'd another one; %" PRIu64 " records kept", argv[0], st->insns);
		status = COLLECT_ERROR;
	}
out:
	collect_kill_reap(pid);
	collect_forward_restore(&fwd);
	collect_close_pipe(dp);
	collect_close_pipe(ex);
	qdec_free(&d);
	free(buf);
	free(parg);
	free(prog);
	free(qemu);
	return status;
}
