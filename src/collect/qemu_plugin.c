/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus's TCG plugin for qemu-x86_64: streams the executed instructions of
 * the traced ranges, with the data address of every access, to gus over
 * the pipe inherited as fd=N (qemu_wire.h describes the stream).
 *
 * Arguments (-plugin file=gus-qemu-plugin.so,fd=N,...):
 *   fd=N            the pipe's write end (required); never stdout/stderr,
 *                   which belong to the program
 *   ranges=S-E:...  hex link-time address ranges [S,E) of the program;
 *                   absent: all code
 *   xlo=A           hex link-time address of the program's lowest
 *                   executable segment: QEMU's start_code minus it is the
 *                   load bias that relocates the ranges (QEMU's entry_code
 *                   is the dynamic loader's entry for dynamic programs, so
 *                   it cannot serve)
 *   mem=on|off      data addresses (default on)
 *   counts=on|off   execution counts of all translated blocks (default off)
 *   max=N           stop emitting after about N records (gus cuts exactly)
 *
 * Cost model: code outside the ranges gets at most two inline counter
 * increments per translated block (the block count, and a global
 * block-execution sequence number used only when ranges are given). A
 * translated block holding traced instructions gets one callback per
 * execution, plus one per memory access; its code is sent once, at
 * translation, and each execution is one 64-bit word.
 *
 * Control flow at block boundaries. Inside a translated block instructions
 * run in sequence (QEMU ends a block at each control transfer), so only
 * the last traced instruction of an execution needs its outcome found:
 * - the block goes on outside the ranges: not taken, the next record is an
 *   entry (static);
 * - otherwise the next translated block this thread runs starts at the
 *   successor. If that block has traced instructions, its callback sees
 *   the successor directly. If not, the global sequence number shows that
 *   some other block ran in between, so control left the ranges; whether
 *   it left by falling through to the range end E is told by a callback on
 *   the blocks that start at each range end E.
 * The sequence number is a plain inline add shared by all threads (QEMU
 * 7.2 has no per-vCPU inline counters). With one guest thread it is exact.
 * Once a second thread exists it is disturbed by the other threads, so the
 * plugin then assumes that the thread's next traced block follows its
 * previous one directly: a call to code outside the ranges that returns to
 * the next instruction reads as not taken and without entry, a return to
 * an untraced caller that later calls back in lacks the entry flag.
 *
 * A block stopped midway by a fault delivered to the program (SIGSEGV and
 * the like) is recorded whole: its callback runs at its start, so the
 * instructions after the faulting one appear executed. A fault within
 * traced code is rare and is not worth a callback per instruction.
 *
 * Threads: each guest thread (a host thread in qemu-user) fills its own
 * buffer with EXEC/MEM words and writes it as one CHUNK under a mutex.
 * Block definitions go to a shared buffer written before any chunk, so a
 * block is always defined before a chunk refers to it. Forked children
 * inherit the plugin but write nothing (their pid differs); the pipe is
 * close-on-exec so that a program exec'ing another does not hold it. */
#include "qemu_plugin_api.h"
#include "qemu_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

GUS_QEMU_PLUGIN_EXPORT int qemu_plugin_version = GUS_QEMU_PLUGIN_API_VERSION;

#define MAX_RANGES 64
#define TBUF_WORDS (1u << 15)	/* 256 KiB per thread: few, large writes */

struct range {
	uint64_t start, end;
};

struct block {
	uint64_t id;
	uint64_t tb_start;	/* the translated block's first instruction */
	uint64_t last_end;	/* end address of the last traced instruction */
	uint32_t n;		/* traced instructions */
	uint8_t starts_outside;	/* the translated block starts outside the ranges */
	uint8_t last_is_tb_end;	/* ... and ends with the last traced instruction */
};

struct tbcount {
	uint64_t addr;
	uint64_t count;
	uint32_t ninsns;
};

struct tstate {
	uint64_t *buf;
	size_t len;
	uint32_t tid;
	bool valid;		/* a record was emitted (prev_* hold) */
	bool prev_tb_end;
	bool fell_out;		/* the previous record fell through to a range end */
	uint64_t prev_end, prev_seq;
	uint64_t announced;	/* records announced since the last flush */
	struct tstate *next;
};

static int out_fd = -1;
static pid_t owner_pid;
static struct range ranges[MAX_RANGES];
static size_t nranges;
static bool mem_on = true, counts_on;
static uint64_t max_records, xlo;
static bool have_xlo;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stopped;	/* max reached, a write failed, or a forked child */
static int dead;		/* writes failed: gus is gone */
static bool bias_done;
static uint64_t bias;
static uint64_t next_block_id;
static uint64_t announced_total;
static uint32_t nthreads;
static volatile int multi_thread;
static struct tstate *threads;

/* bumped inline by every translated block when ranges are given */
static uint64_t tb_seq;

static uint64_t *defs;		/* pending BLOCK/BIAS messages */
static size_t ndefs, capdefs;

static struct tbcount **tbc_chunks;	/* stable addresses for inline counters */
static size_t ntbc, ntbc_chunks;
#define TBC_CHUNK 4096

/* Per-thread state by vCPU index (one vCPU per guest thread in qemu-user;
 * an index is reused only after its thread has exited), which is cheaper
 * than thread-local storage in a dlopen'ed object (__tls_get_addr on every
 * callback). Indexes beyond the table use thread-local storage. */
#define MAX_VCPUS 1024
static struct tstate *vcpu_ts[MAX_VCPUS];
static __thread struct tstate *tls_ts;

static inline struct tstate *ts_get(unsigned int vcpu)
{
	return vcpu < MAX_VCPUS ? vcpu_ts[vcpu] : tls_ts;
}

static int write_all(const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(out_fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* caller holds lock */
static int emit_raw(const uint64_t *w, size_t n)
{
	if (dead)
		return -1;
	if (getpid() != owner_pid) {
		/* a forked child: its output would mix with the parent's */
		dead = 1;
		stopped = 1;
		return -1;
	}
	if (write_all(w, n * sizeof(*w))) {
		dead = 1;
		stopped = 1;
		return -1;
	}
	return 0;
}

static void defs_push(const uint64_t *w, size_t n)
{
	if (ndefs + n > capdefs) {
		size_t cap = capdefs ? capdefs * 2 : 4096;
		while (cap < ndefs + n)
			cap *= 2;
		uint64_t *d = realloc(defs, cap * sizeof(*d));
		if (!d) {
			stopped = 1;
			return;
		}
		defs = d;
		capdefs = cap;
	}
	memcpy(defs + ndefs, w, n * sizeof(*w));
	ndefs += n;
}

/* caller holds lock */
static void defs_flush(void)
{
	if (ndefs)
		emit_raw(defs, ndefs);
	ndefs = 0;
}

/* caller holds lock */
static void chunk_flush_locked(struct tstate *ts)
{
	defs_flush();
	if (ts->len) {
		uint64_t hdr[2] = { QW_CHUNK | (uint64_t)ts->tid << 8, ts->len };
		struct iovec iov[2] = {
			{ hdr, sizeof(hdr) },
			{ ts->buf, ts->len * sizeof(uint64_t) },
		};
		if (!dead && getpid() == owner_pid) {
			size_t want = iov[0].iov_len + iov[1].iov_len;
			ssize_t w;
			do
				w = writev(out_fd, iov, 2);
			while (w < 0 && errno == EINTR);
			/* a pipe may take a large write in pieces */
			if (w >= 0 && (size_t)w < want) {
				size_t done = (size_t)w;
				if (done < sizeof(hdr))
					w = write_all((char *)hdr + done, sizeof(hdr) - done) ? -1 : w;
				size_t dbody = done > sizeof(hdr) ? done - sizeof(hdr) : 0;
				if (w >= 0)
					w = write_all((char *)ts->buf + dbody, iov[1].iov_len - dbody) ? -1 : w;
			}
			if (w < 0) {
				dead = 1;
				stopped = 1;
			}
		} else {
			dead = 1;
			stopped = 1;
		}
	}
	ts->len = 0;
	announced_total += ts->announced;
	ts->announced = 0;
	if (max_records && announced_total >= max_records)
		stopped = 1;
}

static void chunk_flush(struct tstate *ts)
{
	pthread_mutex_lock(&lock);
	chunk_flush_locked(ts);
	pthread_mutex_unlock(&lock);
}

static struct tstate *tstate_new(unsigned int vcpu)
{
	struct tstate *ts = calloc(1, sizeof(*ts));
	if (ts)
		ts->buf = malloc(TBUF_WORDS * sizeof(uint64_t));
	if (!ts || !ts->buf) {
		free(ts);
		stopped = 1;
		return NULL;
	}
	pthread_mutex_lock(&lock);
	ts->tid = nthreads++;
	ts->next = threads;
	threads = ts;
	pthread_mutex_unlock(&lock);
	if (vcpu < MAX_VCPUS)
		vcpu_ts[vcpu] = ts;
	else
		tls_ts = ts;
	return ts;
}

static inline void put(struct tstate *ts, uint64_t w)
{
	if (ts->len == TBUF_WORDS)
		chunk_flush(ts);
	ts->buf[ts->len++] = w;
}

static void exec_cb(unsigned int vcpu, void *ud)
{
	const struct block *b = ud;
	struct tstate *ts = ts_get(vcpu);
	if (stopped)
		return;
	if (!ts && !(ts = tstate_new(vcpu)))
		return;
	uint64_t seq = tb_seq;
	unsigned x = 0;
	if (!ts->valid) {
		if (nranges)
			x = QW_X_ENTRY;
	} else if (ts->fell_out || !ts->prev_tb_end) {
		x = QW_X_ENTRY;
	} else if (!nranges || seq == ts->prev_seq + 1 || multi_thread) {
		if (b->tb_start != ts->prev_end)
			x |= QW_X_PREV_TAKEN;
		if (b->starts_outside)
			x |= QW_X_ENTRY;
	} else {
		x = QW_X_PREV_TAKEN | QW_X_ENTRY;
	}
	put(ts, QW_EXEC | (uint64_t)x << 4 | b->id << 8);
	ts->valid = true;
	ts->fell_out = false;
	ts->prev_tb_end = b->last_is_tb_end;
	ts->prev_end = b->last_end;
	ts->prev_seq = seq;
	ts->announced += b->n;
	if (max_records && ts->announced >= max_records)
		chunk_flush(ts);
}

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
	struct tstate *ts = ts_get(vcpu);
	if (stopped || !ts)
		return;
	uint64_t u = (uint64_t)(uintptr_t)ud;
	uint64_t w = QW_MEM | (qemu_plugin_mem_is_store(info) ? 1u << 4 : 0) |
		     (uint64_t)(qemu_plugin_mem_size_shift(info) & 3) << 5 |
		     (u & 0x1ff) << 7 | (vaddr & QW_MEM_ADDR_MASK) << 16;
	put(ts, w);
}

/* a block starting at a range end E, with nothing traced in it */
static void mark_cb(unsigned int vcpu, void *ud)
{
	struct tstate *ts = ts_get(vcpu);
	if (!ts || !ts->valid || ts->fell_out || !ts->prev_tb_end)
		return;
	uint64_t e = (uint64_t)(uintptr_t)ud;
	if (ts->prev_end == e && (tb_seq == ts->prev_seq + 1 || multi_thread))
		ts->fell_out = true;
}

static bool in_ranges(uint64_t a)
{
	if (!nranges)
		return true;
	for (size_t i = 0; i < nranges; i++)
		if (a >= ranges[i].start && a < ranges[i].end)
			return true;
	return false;
}

static bool is_range_end(uint64_t a)
{
	for (size_t i = 0; i < nranges; i++)
		if (a == ranges[i].end)
			return !in_ranges(a);
	return false;
}

/* caller holds lock; from the first translation on, the image is loaded */
static void bias_init(void)
{
	if (bias_done)
		return;
	bias_done = true;
	if (have_xlo) {
		uint64_t sc = qemu_plugin_start_code();
		bias = sc - xlo;
		if (bias & 0xfff)	/* QEMU may count from the page */
			bias = (sc & ~0xfffull) - (xlo & ~0xfffull);
	}
	for (size_t i = 0; i < nranges; i++) {
		ranges[i].start += bias;
		ranges[i].end += bias;
	}
	uint64_t m[2] = { QW_BIAS, bias };
	defs_push(m, 2);
}

static struct tbcount *tbcount_new(void)
{
	if (ntbc == ntbc_chunks * TBC_CHUNK) {
		struct tbcount **c = realloc(tbc_chunks, (ntbc_chunks + 1) * sizeof(*c));
		if (!c)
			return NULL;
		tbc_chunks = c;
		if (!(c[ntbc_chunks] = calloc(TBC_CHUNK, sizeof(struct tbcount))))
			return NULL;
		ntbc_chunks++;
	}
	struct tbcount *t = &tbc_chunks[ntbc / TBC_CHUNK][ntbc % TBC_CHUNK];
	ntbc++;
	return t;
}

static void trans_cb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t start = qemu_plugin_tb_vaddr(tb);

	pthread_mutex_lock(&lock);
	bias_init();
	if (counts_on) {
		struct tbcount *c = tbcount_new();
		if (c) {
			c->addr = start;
			c->ninsns = (uint32_t)n;
			qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
								 &c->count, 1);
		}
	}
	pthread_mutex_unlock(&lock);
	if (nranges)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &tb_seq, 1);
	if (stopped || n == 0)
		return;

	size_t k = 0, first = n, last = 0;
	for (size_t i = 0; i < n; i++)
		if (in_ranges(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i)))) {
			k++;
			if (first == n)
				first = i;
			last = i;
		}
	if (k == 0) {
		if (is_range_end(start))
			qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_cb, QEMU_PLUGIN_CB_NO_REGS,
							     (void *)(uintptr_t)start);
		return;
	}

	struct block *b = calloc(1, sizeof(*b));
	uint64_t *msg = malloc((1 + k * QW_INSN_WORDS) * sizeof(uint64_t));
	if (!b || !msg) {
		free(b);
		free(msg);
		stopped = 1;
		return;
	}
	size_t j = 0, w = 1;
	for (size_t i = first; i <= last; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(in);
		if (!in_ranges(va))
			continue;
		size_t sz = qemu_plugin_insn_size(in);
		if (sz > 16)
			sz = 16;
		unsigned sflags = 0;
		if (i + 1 < n && !in_ranges(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i + 1))))
			sflags |= QW_S_FALL_OUT;
		msg[w++] = va;
		msg[w++] = sz | sflags << 8;
		msg[w] = msg[w + 1] = 0;
		memcpy(&msg[w], qemu_plugin_insn_data(in), sz);
		w += 2;
		/* one callback for both kinds: QEMU 7.2 stops at the first
		 * registered memory callback whose kind does not match */
		if (mem_on)
			qemu_plugin_register_vcpu_mem_cb(in, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)j);
		b->last_end = va + qemu_plugin_insn_size(in);
		j++;
	}
	b->n = (uint32_t)k;
	b->tb_start = start;
	b->starts_outside = first > 0;
	b->last_is_tb_end = last == n - 1;

	pthread_mutex_lock(&lock);
	b->id = next_block_id++;
	msg[0] = QW_BLOCK | (uint64_t)k << 8 | b->id << 24;
	defs_push(msg, w);
	pthread_mutex_unlock(&lock);
	free(msg);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* QEMU 7.2 runs no plugin exit callback when a signal kills the program,
 * and none when it execs: what the thread buffered is written before the
 * system calls that may end it that way (a signal the program raises
 * itself; a fault or a signal from outside still loses the buffer). */
static void syscall_cb(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
		       uint64_t a7, uint64_t a8)
{
	(void)id, (void)a1, (void)a2, (void)a3, (void)a4;
	(void)a5, (void)a6, (void)a7, (void)a8;
	switch (num) {
	case 59:	/* execve */
	case 60:	/* exit (a thread) */
	case 62:	/* kill */
	case 129:	/* rt_sigqueueinfo */
	case 200:	/* tkill */
	case 234:	/* tgkill */
	case 297:	/* rt_tgsigqueueinfo */
	case 322:	/* execveat */
		if (ts_get(vcpu))
			chunk_flush(ts_get(vcpu));
		else {
			pthread_mutex_lock(&lock);
			defs_flush();
			pthread_mutex_unlock(&lock);
		}
		break;
	}
}

static void vcpu_init_cb(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu > 0)
		multi_thread = 1;
	if (vcpu < MAX_VCPUS && vcpu_ts[vcpu]) {
		/* a new thread on the index of one that exited */
		pthread_mutex_lock(&lock);
		chunk_flush_locked(vcpu_ts[vcpu]);
		vcpu_ts[vcpu] = NULL;
		pthread_mutex_unlock(&lock);
	}
}

struct cnt_ent {
	uint64_t addr, count;
	uint32_t ninsns;
	bool used;
};

/* Block counts aggregated by (address, instructions): a block translated
 * again (after a flush, or split differently) adds to the same entry. */
static void emit_counts(void)
{
	size_t cap = 1;
	while (cap < ntbc * 2)
		cap <<= 1;
	struct cnt_ent *h = calloc(cap, sizeof(*h));
	if (!h)
		return;
	for (size_t i = 0; i < ntbc; i++) {
		const struct tbcount *t = &tbc_chunks[i / TBC_CHUNK][i % TBC_CHUNK];
		if (!t->count)
			continue;
		uint64_t hv = (t->addr * 0x9e3779b97f4a7c15ull) ^ t->ninsns;
		size_t s = (size_t)(hv >> 20) & (cap - 1);
		while (h[s].used && !(h[s].addr == t->addr && h[s].ninsns == t->ninsns))
			s = (s + 1) & (cap - 1);
		h[s].used = true;
		h[s].addr = t->addr;
		h[s].ninsns = t->ninsns;
		h[s].count += t->count;
	}
	for (size_t s = 0; s < cap; s++)
		if (h[s].used) {
			uint64_t m[3] = { QW_COUNT | (uint64_t)h[s].ninsns << 8, h[s].addr, h[s].count };
			defs_push(m, 3);
		}
	free(h);
}

/* QEMU runs this with the other vCPUs stopped, so their buffers are
 * quiescent */
static void atexit_cb(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	pthread_mutex_lock(&lock);
	for (struct tstate *ts = threads; ts; ts = ts->next)
		chunk_flush_locked(ts);
	if (counts_on)
		emit_counts();
	bool cut = max_records && announced_total >= max_records;
	uint64_t end[2] = { QW_END | (uint64_t)(cut ? QW_END_STOPPED : 0) << 8, announced_total };
	defs_push(end, 2);
	defs_flush();
	stopped = 1;
	pthread_mutex_unlock(&lock);
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
	pthread_mutex_unlock(&lock);
	dead = 1;
	stopped = 1;
}

static void send_error(const char *fmt, const char *what)
{
	char text[256];
	snprintf(text, sizeof(text), fmt, what);
	size_t len = strlen(text), nw = (len + 7) / 8;
	uint64_t m[2 + 32 + 2] = { QW_ERROR | (uint64_t)len << 8 };
	memcpy(&m[1], text, len);
	m[1 + nw] = QW_END;
	m[2 + nw] = 0;
	write_all(m, (3 + nw) * sizeof(uint64_t));
}

static bool parse_hex(const char *s, const char **end, uint64_t *v)
{
	char *e;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 16);
	if (e == s || errno)
		return false;
	*v = x;
	*end = e;
	return true;
}

static bool parse_ranges(const char *s)
{
	while (*s) {
		struct range r;
		const char *e;
		if (nranges == MAX_RANGES || !parse_hex(s, &e, &r.start) || *e != '-' ||
		    !parse_hex(e + 1, &e, &r.end) || r.end <= r.start)
			return false;
		ranges[nranges++] = r;
		if (*e == ':')
			e++;
		else if (*e)
			return false;
		s = e;
	}
	return nranges > 0;
}

static bool parse_onoff(const char *v, bool *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

GUS_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					       int argc, char **argv)
{
	const char *bad = NULL;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "fd=", 3)) {
			char *e;
			long fd = strtol(argv[i] + 3, &e, 10);
			if (*e || fd < 0 || fd > 1 << 20 || fd <= 2)
				bad = argv[i];
			else
				out_fd = (int)fd;
		}
	if (out_fd < 0 || fcntl(out_fd, F_GETFD) < 0)
		return -1;	/* nowhere to say why: gus sees no HELLO */
	owner_pid = getpid();
	/* a program that execs another must not keep gus's pipe open */
	fcntl(out_fd, F_SETFD, FD_CLOEXEC);
	uint64_t hello[2] = { QW_HELLO | (uint64_t)QW_VERSION << 8, QW_MAGIC };
	if (write_all(hello, sizeof(hello)))
		return -1;

	for (int i = 0; i < argc && !bad; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		if (!v) {
			bad = a;
			break;
		}
		v++;
		const char *e;
		if (!strncmp(a, "fd=", 3))
			continue;
		else if (!strncmp(a, "ranges=", 7))
			bad = parse_ranges(v) ? NULL : a;
		else if (!strncmp(a, "xlo=", 4))
			bad = parse_hex(v, &e, &xlo) && !*e ? (have_xlo = true, NULL) : a;
		else if (!strncmp(a, "mem=", 4))
			bad = parse_onoff(v, &mem_on) ? NULL : a;
		else if (!strncmp(a, "counts=", 7))
			bad = parse_onoff(v, &counts_on) ? NULL : a;
		else if (!strncmp(a, "max=", 4)) {
			char *me;
			errno = 0;
			max_records = strtoull(v, &me, 10);
			bad = *me || errno || !*v ? a : NULL;
		} else
			bad = a;
	}
	if (bad) {
		send_error("gus-qemu-plugin: bad argument '%s'", bad);
		return -1;
	}
	if (strcmp(info->target_name, "x86_64") || info->system_emulation) {
		send_error("gus-qemu-plugin: needs qemu-x86_64 user mode, not '%s'", info->target_name);
		return -1;
	}
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init_cb);
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans_cb);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_cb);
	qemu_plugin_register_atexit_cb(id, atexit_cb, NULL);
	return 0;
}
