/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The native stepper (collect.h): regions' instruction streams from the
 * program running on this CPU, for code the QEMU tracer cannot run. The
 * program runs natively under ptrace, its threads too. A window of a
 * region opens at each entry into it (a breakpoint, int3, at its start),
 * or where the stepper's own sampling finds a thread in it: every 1 ms of
 * a thread's CPU time (its schedstat, read at the ticks of a timer that
 * interrupts waitpid) the thread is stopped (SIGSTOP from gus, not
 * delivered) and its instruction pointer looked at. A window is
 * single-stepped, each step one record: its bytes, whether control went
 * elsewhere, and its data addresses from Zydis's operands and the
 * registers of that moment. The other threads run on meanwhile: a
 * breakpoint a thread must pass (not its window's, or the one it is
 * stepping over) is lifted for that one step. Calls out of the region run
 * natively to a breakpoint at their return; a window spanning entries
 * keeps the region's start a breakpoint while it is open.
 *
 * Breakpoints are written through /proc/PID/mem one byte at a time (the
 * threads run while they are set, and a word written back with ptrace
 * could undo a neighbour's byte), and the bytes of a record are read back
 * with the breakpoints' original bytes in place. */
#include "collect.h"
#include "collect_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>
#include <cpuid.h>
#include <elf.h>
#include <sys/uio.h>

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

#define STEP_BATCH 256
#define TICK_NS 1000000L	/* the threads' CPU time is looked at every 1 ms */
#define DEFAULT_SAMPLE_S 0.001
#define DEFAULT_WINDOW 20000
/* a window whose thread has not come back to it (a call out of it, or
 * outside the region between entries) for this long is closed: its
 * breakpoints cost the other threads a trap at every pass */
#define PAUSE_MAX_S 0.05

/* a breakpoint: wanted by REFS holders, lifted while PASSING threads step
 * over it; the int3 is in memory (WRITTEN) when wanted and not lifted */
struct sbp {
	uint64_t addr;
	uint8_t orig;
	unsigned refs, passing;
	bool written;
};

enum tstate {
	TS_RUN,		/* native */
	TS_STEP,	/* single-stepping its window */
	TS_CALLOUT,	/* a call out of its window's region, running natively to RET */
	TS_PASS,	/* stepping over a breakpoint, then back to AFTER_PASS */
};

enum tkind { TK_UNKNOWN, TK_THREAD, TK_SHARED };

struct sthread {
	pid_t tid;
	uint32_t id;		/* the program's threads in creation order */
	enum tkind kind;	/* a thread of the program, or a process sharing its memory (vfork) */
	bool held;		/* stopped before its parent said what it is */
	enum tstate state, after_pass;
	size_t passing;		/* index + 1 of the breakpoint its step lifted, 0 none */
	long win;		/* the region of its open window, -1 none */
	uint32_t win_index;
	uint64_t win_n;
	bool mark_window, mark_entry;
	struct stream_insn pend;	/* the record of the instruction being stepped */
	bool pend_call;
	uint64_t pend_next;
	uint64_t ret;		/* TS_CALLOUT */
	double burst_at;	/* when it began to be stepped (TS_STEP) */
	uint64_t cpu_seen;	/* its CPU time (ns) when last sampled */
	bool sampling;		/* a SIGSTOP of gus's on its way to it */
	double paused_at;	/* when its open window last stopped being stepped */
};

struct sregion {
	const struct collect_step_region *def;
	struct collect_step_region_stats st;
	bool placed, armed;
	uint64_t start, end;
	bool due;		/* a window opens at each entry */
	uint64_t next_hit;	/* the sampling's hit that opens its next window */
	unsigned open;		/* threads with a window of it open */
};

/* a child the program forked, before or after its parent's event */
struct pending_child {
	pid_t pid;
	int event;		/* PTRACE_EVENT_*; 0: not yet known */
	bool stopped;
};

struct stepper {
	pid_t pid;
	const struct collect_step_opts *o;
	struct collect_step_stats *st;
	int mem;		/* /proc/PID/mem */
	ZydisDecoder dec;
	struct sregion *r;
	size_t nr;
	struct sbp *bp;
	size_t nbp, capbp;
	struct sthread *t;
	size_t nt, capt;
	uint32_t next_id;
	struct pending_child *kids;
	size_t nkids, capkids;
	uint64_t entry_addr;	/* the program's entry, until reached */
	size_t entry_bp;	/* its breakpoint, index + 1 */
	double t0, held;
	uint64_t sample_ns;
	bool spent;		/* MAX_INSNS reached */
	bool failed;
	char *err;
	size_t errlen;
	struct stream_insn batch[STEP_BATCH];
	size_t nbatch;
	int sink_rc;
	uint64_t window;
	/* a thread's XSAVE area, read for a gather's or scatter's vector
	 * index (vsib_addresses) */
	uint8_t xsave[4096];
};

static volatile sig_atomic_t step_ticks;

static void on_tick(int sig)
{
	(void)sig;
	step_ticks = 1;
}

/* ------------------------------------------------------------ memory --- */
static int mem_open(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	return open(path, O_RDWR | O_CLOEXEC);
}

static bool poke_byte(int fd, uint64_t addr, uint8_t b)
{
	return pwrite(fd, &b, 1, (off_t)addr) == 1;
}

static void bp_sync(struct stepper *s, struct sbp *b)
{
	bool want = b->refs > 0 && b->passing == 0;
	if (want != b->written && poke_byte(s->mem, b->addr, want ? 0xcc : b->orig))
		b->written = want;
}

static struct sbp *bp_find(struct stepper *s, uint64_t addr)
{
	for (size_t i = 0; i < s->nbp; i++)
		if (s->bp[i].addr == addr)
			return &s->bp[i];
	return NULL;
}

/* a hold on the breakpoint at ADDR (set now if it is the first); NULL
 * when its byte cannot be read */
static struct sbp *bp_ref(struct stepper *s, uint64_t addr)
{
	struct sbp *b = bp_find(s, addr);
	if (!b) {
		uint8_t orig;
		if (pread(s->mem, &orig, 1, (off_t)addr) != 1)
			return NULL;
		if (s->nbp == s->capbp) {
			size_t cap = s->capbp ? 2 * s->capbp : 16;
			struct sbp *v = realloc(s->bp, cap * sizeof *v);
			if (!v)
				return NULL;
			s->bp = v;
			s->capbp = cap;
		}
		b = &s->bp[s->nbp++];
		*b = (struct sbp){ .addr = addr, .orig = orig };
	}
	b->refs++;
	bp_sync(s, b);
	return b;
}

static void bp_unref(struct stepper *s, uint64_t addr)
{
	struct sbp *b = bp_find(s, addr);
	if (b && b->refs) {
		b->refs--;
		bp_sync(s, b);
	}
}

/* LEN bytes at ADDR as the program has them (its breakpoints' original
 * bytes); how many could be read */
static ssize_t read_code(struct stepper *s, uint64_t addr, uint8_t *buf, size_t len)
{
	ssize_t got = pread(s->mem, buf, len, (off_t)addr);
	if (got <= 0)
		return got;
	for (size_t i = 0; i < s->nbp; i++)
		if (s->bp[i].written && s->bp[i].addr >= addr && s->bp[i].addr < addr + (uint64_t)got)
			buf[s->bp[i].addr - addr] = s->bp[i].orig;
	return got;
}

/* ----------------------------------------------------------- records --- */
static int flush(struct stepper *s)
{
	if (s->nbatch && !s->sink_rc)
		s->sink_rc = s->o->sink(s->o->ctx, s->batch, s->nbatch);
	s->nbatch = 0;
	return s->sink_rc;
}

static void emit(struct stepper *s, const struct stream_insn *v)
{
	s->batch[s->nbatch++] = *v;
	if (s->nbatch == STEP_BATCH)
		flush(s);
}

/* the registers Zydis computes addresses from */
static void fill_context(ZydisRegisterContext *c, const struct user_regs_struct *r)
{
	static const ZydisRegister r64[16] = { ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RDX,
					       ZYDIS_REGISTER_RBX, ZYDIS_REGISTER_RSP, ZYDIS_REGISTER_RBP,
					       ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_R8,
					       ZYDIS_REGISTER_R9, ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
					       ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14,
					       ZYDIS_REGISTER_R15 };
	static const ZydisRegister r32[16] = { ZYDIS_REGISTER_EAX, ZYDIS_REGISTER_ECX, ZYDIS_REGISTER_EDX,
					       ZYDIS_REGISTER_EBX, ZYDIS_REGISTER_ESP, ZYDIS_REGISTER_EBP,
					       ZYDIS_REGISTER_ESI, ZYDIS_REGISTER_EDI, ZYDIS_REGISTER_R8D,
					       ZYDIS_REGISTER_R9D, ZYDIS_REGISTER_R10D, ZYDIS_REGISTER_R11D,
					       ZYDIS_REGISTER_R12D, ZYDIS_REGISTER_R13D, ZYDIS_REGISTER_R14D,
					       ZYDIS_REGISTER_R15D };
	const unsigned long long v[16] = { r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
					   r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15 };
	memset(c, 0, sizeof *c);
	for (int i = 0; i < 16; i++) {
		c->values[r64[i]] = v[i];
		c->values[r32[i]] = v[i] & 0xffffffffu;
	}
	c->values[ZYDIS_REGISTER_RIP] = r->rip;
}

/* --------------------------------------------------- vector indexes --- */
/* where the XSAVE area's components lie in the standard format that
 * PTRACE_GETREGSET's NT_X86_XSTATE uses: CPUID leaf 0xD, sub-leaf N,
 * EBX (Intel SDM vol. 1, 13.4). 0: not on this CPU. */
enum { XC_YMM_HI128 = 2, XC_OPMASK = 5, XC_ZMM_HI256 = 6, XC_HI16_ZMM = 7, XC_N = 8 };
#define XSAVE_LEGACY_XMM 160	/* XMM0-15 in the legacy region */
#define XSAVE_HEADER 512	/* XSTATE_BV: the components not in their init state */

static uint32_t xsave_offset(unsigned comp)
{
	static uint32_t off[XC_N];
	static bool known;
	if (!known) {
		for (unsigned c = 2; c < XC_N; c++) {
			unsigned a = 0, b = 0, cx = 0, d = 0;
			if (__get_cpuid_count(0xd, c, &a, &b, &cx, &d) && a)
				off[c] = b;
		}
		known = true;
	}
	return comp < XC_N ? off[comp] : 0;
}

/* LEN bytes of a component's part at OFF: zeros for a component in its
 * init state (XSTATE_BV clear) or beyond what the kernel gave */
static void xsave_bytes(const uint8_t *xs, size_t got, unsigned comp, uint32_t off, uint8_t *out, size_t len)
{
	uint64_t bv = 0;
	if (got >= XSAVE_HEADER + 8)
		memcpy(&bv, xs + XSAVE_HEADER, 8);
	if (!(bv >> comp & 1) || !off || off + len > got)
		memset(out, 0, len);
	else
		memcpy(out, xs + off, len);
}

/* the 64 bytes of xmm/ymm/zmm REG (the bytes past its width are left
 * as they are in the register file); false for another register */
static bool vector_reg(const uint8_t *xs, size_t got, ZydisRegister reg, uint8_t out[64])
{
	ZydisRegisterClass cls = ZydisRegisterGetClass(reg);
	if (cls != ZYDIS_REGCLASS_XMM && cls != ZYDIS_REGCLASS_YMM && cls != ZYDIS_REGCLASS_ZMM)
		return false;
	int n = ZydisRegisterGetId(reg);
	if (n < 0 || n > 31)
		return false;
	if (n >= 16) {
		uint32_t hi = xsave_offset(XC_HI16_ZMM);
		xsave_bytes(xs, got, XC_HI16_ZMM, hi ? hi + 64u * (unsigned)(n - 16) : 0, out, 64);
		return true;
	}
	xsave_bytes(xs, got, 1, XSAVE_LEGACY_XMM + 16u * (unsigned)n, out, 16);
	uint32_t o = xsave_offset(XC_YMM_HI128);
	xsave_bytes(xs, got, XC_YMM_HI128, o ? o + 16u * (unsigned)n : 0, out + 16, 16);
	o = xsave_offset(XC_ZMM_HI256);
	xsave_bytes(xs, got, XC_ZMM_HI256, o ? o + 32u * (unsigned)n : 0, out + 32, 32);
	return true;
}

/* a gather's or scatter's index and data element sizes (bytes); false for
 * another instruction (the AVX-512PF prefetches among them) */
static bool vsib_sizes(ZydisMnemonic m, unsigned *index, unsigned *data)
{
	switch (m) {
	case ZYDIS_MNEMONIC_VPGATHERDD: case ZYDIS_MNEMONIC_VGATHERDPS:
	case ZYDIS_MNEMONIC_VPSCATTERDD: case ZYDIS_MNEMONIC_VSCATTERDPS:
		*index = 4, *data = 4;
		return true;
	case ZYDIS_MNEMONIC_VPGATHERDQ: case ZYDIS_MNEMONIC_VGATHERDPD:
	case ZYDIS_MNEMONIC_VPSCATTERDQ: case ZYDIS_MNEMONIC_VSCATTERDPD:
		*index = 4, *data = 8;
		return true;
	case ZYDIS_MNEMONIC_VPGATHERQD: case ZYDIS_MNEMONIC_VGATHERQPS:
	case ZYDIS_MNEMONIC_VPSCATTERQD: case ZYDIS_MNEMONIC_VSCATTERQPS:
		*index = 8, *data = 4;
		return true;
	case ZYDIS_MNEMONIC_VPGATHERQQ: case ZYDIS_MNEMONIC_VGATHERQPD:
	case ZYDIS_MNEMONIC_VPSCATTERQQ: case ZYDIS_MNEMONIC_VSCATTERQPD:
		*index = 8, *data = 8;
		return true;
	default:
		return false;
	}
}

/* The data addresses of a gather or scatter about to run in thread TID:
 * base + index[i] * scale + displacement for each element i its mask
 * selects (an EVEX form's opmask register, a VEX form's mask vector:
 * the top bit of each element), in element order, as the hardware (and
 * QEMU's memory callbacks) access them; the distinct ones go to OUT's
 * mem[] while it has room. The index vector and the mask come from the
 * thread's XSAVE area. An element the mask leaves out is not accessed;
 * none selected: no address, and true. False when the registers cannot be
 * read. */
static bool vsib_addresses(struct stepper *s, pid_t tid, const ZydisDecodedInstruction *in,
			   const ZydisDecodedOperand *ops, const ZydisDecodedOperand *op, const ZydisRegisterContext *ctx,
			   uint64_t seg_base, struct stream_insn *out)
{
	unsigned isz, dsz;
	if (!vsib_sizes(in->mnemonic, &isz, &dsz))
		return false;
	struct iovec iov = { s->xsave, sizeof s->xsave };
	if (ptrace(PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_X86_XSTATE, &iov))
		return false;
	size_t got = iov.iov_len;
	uint8_t index[64], maskv[64];
	if (!vector_reg(s->xsave, got, op->mem.index, index))
		return false;
	unsigned nel = (unsigned)ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, op->mem.index) / 8 / isz;
	uint64_t mask = 0;
	ZydisRegister k = in->avx.mask.reg;
	if (k >= ZYDIS_REGISTER_K1 && k <= ZYDIS_REGISTER_K7) {
		uint32_t o = xsave_offset(XC_OPMASK);
		xsave_bytes(s->xsave, got, XC_OPMASK, o ? o + 8u * (unsigned)(k - ZYDIS_REGISTER_K0) : 0,
			    (uint8_t *)&mask, 8);
	} else {
		/* VEX: the mask vector is the register operand after the
		 * memory one */
		const ZydisDecodedOperand *mv = NULL;
		for (unsigned i = 0; i + 1 < in->operand_count; i++)
			if (&ops[i] == op && ops[i + 1].type == ZYDIS_OPERAND_TYPE_REGISTER)
				mv = &ops[i + 1];
		if (!mv || !vector_reg(s->xsave, got, mv->reg.value, maskv))
			return false;
		for (unsigned e = 0; e < nel && (e + 1) * dsz <= 64; e++)
			if (maskv[(e + 1) * dsz - 1] & 0x80)
				mask |= 1ull << e;
	}
	uint64_t base = 0;
	if (op->mem.base != ZYDIS_REGISTER_NONE)
		base = op->mem.base == ZYDIS_REGISTER_RIP ? out->ip + out->size : ctx->values[op->mem.base];
	for (unsigned e = 0; e < nel && out->nmem < STREAM_MAX_MEM; e++) {
		if (!(mask >> e & 1))
			continue;
		int64_t ix;
		if (isz == 4) {
			int32_t v;
			memcpy(&v, index + 4 * e, 4);
			ix = v;
		} else {
			memcpy(&ix, index + 8 * e, 8);
		}
		uint64_t a = base + (uint64_t)ix * op->mem.scale + (uint64_t)op->mem.disp.value + seg_base;
		if (in->address_width == 32)
			a &= 0xffffffffu;
		bool dup = false;
		for (unsigned j = 0; j < out->nmem; j++)
			dup |= out->mem[j] == a;
		if (dup)
			continue;
		if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			out->store_mask |= (uint8_t)(1u << out->nmem);
		out->mem[out->nmem++] = a;
	}
	return true;
}

/* one record of the instruction at REGS->rip of thread TID; false when it
 * cannot be read or decoded */
static bool record_at(struct stepper *s, pid_t tid, const struct user_regs_struct *regs, struct stream_insn *out,
		      bool *is_call)
{
	uint8_t bytes[16];
	ssize_t got = read_code(s, regs->rip, bytes, sizeof bytes);
	if (got <= 0)
		return false;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&s->dec, bytes, (size_t)got, &in, ops)))
		return false;
	memset(out, 0, sizeof *out);
	out->ip = regs->rip;
	out->size = in.length;
	memcpy(out->bytes, bytes, in.length);
	*is_call = in.meta.category == ZYDIS_CATEGORY_CALL;
	if (!s->o->data_addresses)
		return true;
	ZydisRegisterContext ctx;
	fill_context(&ctx, regs);
	bool all = true;
	for (unsigned i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB))
			continue;
		uint64_t seg = op->mem.segment == ZYDIS_REGISTER_FS ? regs->fs_base :
			       op->mem.segment == ZYDIS_REGISTER_GS ? regs->gs_base : 0;
		/* a gather's or scatter's vector index is in the XSAVE area */
		if (op->mem.index >= ZYDIS_REGISTER_XMM0 && op->mem.index <= ZYDIS_REGISTER_ZMM31) {
			if (!vsib_addresses(s, tid, &in, ops, op, &ctx, seg, out))
				all = false;
			continue;
		}
		ZyanU64 a;
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&in, op, regs->rip, &ctx, &a))) {
			all = false;
			continue;
		}
		a += seg;
		if (out->nmem == STREAM_MAX_MEM)
			break;
		if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			out->store_mask |= (uint8_t)(1u << out->nmem);
		out->mem[out->nmem++] = a;
	}
	if (all)
		out->flags |= STREAM_HAS_MEM;
	else
		s->st->vsib++;
	return true;
}

/* ----------------------------------------------------------- threads --- */
static struct sthread *thread_of(struct stepper *s, pid_t tid)
{
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].tid == tid)
			return &s->t[i];
	return NULL;
}

static struct sthread *thread_new(struct stepper *s, pid_t tid, enum tkind kind)
{
	if (s->nt == s->capt) {
		size_t cap = s->capt ? 2 * s->capt : 16;
		struct sthread *v = realloc(s->t, cap * sizeof *v);
		if (!v)
			return NULL;
		s->t = v;
		s->capt = cap;
	}
	struct sthread *t = &s->t[s->nt++];
	*t = (struct sthread){ .tid = tid, .kind = kind, .win = -1 };
	if (kind == TK_THREAD) {
		t->id = s->next_id++;
		s->st->threads++;
	}
	return t;
}

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
}

static double now_s(void)
{
	return collect_now();
}

/* the region's breakpoint wanted while a window of it is due (each entry)
 * or open */
static void region_sync(struct stepper *s, struct sregion *r)
{
	bool want = r->placed && ((r->due && !s->spent) || r->open);
	if (want == r->armed)
		return;
	if (want) {
		if (!bp_ref(s, r->start))
			return;
	} else {
		bp_unref(s, r->start);
	}
	r->armed = want;
}

static void spend(struct stepper *s)
{
	if (s->spent)
		return;
	s->spent = true;
	s->st->truncated = true;
	for (size_t i = 0; i < s->nr; i++)
		region_sync(s, &s->r[i]);
}

/* where the process maps file offset FILE_OFF of OBJECT: the mapping and
 * the address */
static bool place(pid_t pid, const char *object, uint64_t file_off, uint64_t *at, uint64_t *mstart, uint64_t *mlen,
		  uint64_t *mpgoff)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	struct stat want;
	if (stat(object, &want))
		return false;
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[4400];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		unsigned long long lo, hi, off, ino;
		unsigned dmaj, dmin;
		char perms[8];
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off, &dmaj, &dmin, &ino) != 7)
			continue;
		if (ino != (unsigned long long)want.st_ino || perms[2] != 'x')
			continue;
		if (file_off >= off && file_off < off + (hi - lo)) {
			*at = lo + (file_off - off);
			*mstart = lo;
			*mlen = hi - lo;
			*mpgoff = off;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void place_regions(struct stepper *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct sregion *r = &s->r[i];
		uint64_t at, ms, ml, mp;
		if (r->placed || !place(s->pid, r->def->object, r->def->file_start, &at, &ms, &ml, &mp))
			continue;
		r->placed = r->st.placed = true;
		r->start = at;
		r->end = at + (r->def->link_end - r->def->link_start);
		if (s->o->placed)
			s->o->placed(s->o->ctx, i, at - r->def->link_start, ms, ml, mp);
		region_sync(s, r);
	}
}

static void close_window(struct stepper *s, struct sthread *t);

/* a thread's CPU time in ns (0: unknown) */
static uint64_t thread_cpu_ns(pid_t pid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[96];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

/* Every tick: the regions an object loaded since maps placed, windows
 * left paused too long closed, and each thread that ran SAMPLE_NS of CPU
 * since it was last looked at stopped to be looked at */
static void tick(struct stepper *s)
{
	step_ticks = 0;
	bool unplaced = false, sampling = false;
	for (size_t i = 0; i < s->nr; i++) {
		unplaced |= !s->r[i].placed;
		sampling |= s->r[i].def->per_level && !s->spent;
	}
	if (unplaced)
		place_regions(s);
	double at = now_s();
	for (size_t i = 0; i < s->nt; i++) {
		struct sthread *t = &s->t[i];
		if (t->win >= 0 && (t->state == TS_RUN || t->state == TS_CALLOUT) && at - t->paused_at > PAUSE_MAX_S)
			close_window(s, t);
		if (!sampling || t->kind != TK_THREAD || t->state != TS_RUN || t->win >= 0 || t->sampling)
			continue;
		uint64_t cpu = thread_cpu_ns(s->pid, t->tid);
		if (!cpu || cpu - t->cpu_seen < s->sample_ns)
			continue;
		bool first = t->cpu_seen == 0;
		/* a stop every SAMPLE_NS on average: what a tick came late by
		 * counts towards the next, up to one period */
		t->cpu_seen = first || cpu - t->cpu_seen >= 2 * s->sample_ns ? cpu - (first ? 0 : s->sample_ns)
									 : t->cpu_seen + s->sample_ns;
		if (!first && !syscall(SYS_tgkill, s->pid, t->tid, SIGSTOP)) {
			t->sampling = true;
			s->st->samples++;
		}
	}
}

/* --------------------------------------------------------- windows ------ */
static void burst_end(struct stepper *s, struct sthread *t)
{
	double now = now_s();
	if (t->burst_at > 0)
		s->held += now - t->burst_at;
	t->burst_at = 0;
	t->paused_at = now;
}

static void lift_end(struct stepper *s, struct sthread *t)
{
	if (t->passing) {
		struct sbp *b = &s->bp[t->passing - 1];
		if (b->passing)
			b->passing--;
		bp_sync(s, b);
		t->passing = 0;
	}
}

static void close_window(struct stepper *s, struct sthread *t)
{
	if (t->state == TS_CALLOUT)
		bp_unref(s, t->ret);
	burst_end(s, t);
	if (t->win >= 0) {
		struct sregion *r = &s->r[t->win];
		if (r->open)
			r->open--;
		t->win = -1;
		region_sync(s, r);
	}
	t->state = TS_RUN;
}

/* T, stopped at REGS->rip in its window's region, steps its next
 * instruction; a thread that left the region goes on natively */
static void step_next(struct stepper *s, struct sthread *t, const struct user_regs_struct *regs)
{
	struct sregion *r = &s->r[t->win];
	if (regs->rip < r->start || regs->rip >= r->end) {
		/* the region was left (a return or a jump out): the window
		 * ends, or waits for the thread's next entry */
		if (s->o->span_entries && t->win_n < s->window && !s->spent) {
			burst_end(s, t);
			t->state = TS_RUN;
		} else {
			close_window(s, t);
		}
		resume(t->tid, 0);
		return;
	}
	if (!record_at(s, t->tid, regs, &t->pend, &t->pend_call)) {
		close_window(s, t);
		resume(t->tid, 0);
		return;
	}
	struct stream_insn *p = &t->pend;
	p->thread = STREAM_THREAD(s->o->proc, t->id);
	if (t->mark_entry)
		p->flags |= STREAM_ENTRY;
	if (t->mark_window && s->o->tag_windows) {
		p->flags |= STREAM_WINDOW;
		p->window = STREAM_WINDOW_TAG(r->def->tag_range, t->win_index);
	}
	t->mark_entry = t->mark_window = false;
	t->pend_next = regs->rip + p->size;
	struct sbp *b = bp_find(s, regs->rip);
	if (b && (b->written || b->refs)) {
		b->passing++;
		bp_sync(s, b);
		t->passing = (size_t)(b - s->bp) + 1;
	}
	t->state = TS_STEP;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL)) {
		lift_end(s, t);
		close_window(s, t);
		resume(t->tid, 0);
	}
}

/* T's single step is done: its record goes out with where control went */
static void step_done(struct stepper *s, struct sthread *t)
{
	lift_end(s, t);
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, t->tid, NULL, &regs)) {
		close_window(s, t);
		resume(t->tid, 0);
		return;
	}
	if (regs.rip != t->pend_next)
		t->pend.flags |= STREAM_TAKEN;
	emit(s, &t->pend);
	struct sregion *r = &s->r[t->win];
	s->st->insns++;
	s->st->steps++;
	r->st.insns++;
	t->win_n++;
	if (s->o->max_insns && s->st->insns >= s->o->max_insns)
		spend(s);
	bool outside = regs.rip < r->start || regs.rip >= r->end;
	if (s->sink_rc || t->win_n >= s->window || s->spent) {
		close_window(s, t);
		resume(t->tid, 0);
		return;
	}
	if (t->pend_call && outside) {
		/* a call out of the region runs natively to its return */
		t->ret = t->pend_next;
		if (!bp_ref(s, t->ret)) {
			close_window(s, t);
		} else {
			burst_end(s, t);
			t->state = TS_CALLOUT;
		}
		resume(t->tid, 0);
		return;
	}
	step_next(s, t, &regs);
}

static void open_window(struct stepper *s, struct sthread *t, struct sregion *r)
{
	t->win = r - s->r;
	t->win_index = (uint32_t)r->st.windows++;
	t->win_n = 0;
	t->mark_window = t->mark_entry = true;
	r->open++;
	s->st->windows++;
	region_sync(s, r);
}

/* T stopped at REGS->rip, the start of region R: whether a window of it
 * goes on or opens there */
static bool try_window(struct stepper *s, struct sthread *t, struct sregion *r)
{
	long idx = r - s->r;
	if (t->win == idx) {
		t->mark_entry = true;	/* its window goes on */
	} else {
		if (t->win >= 0 || !r->due || s->spent)
			return false;
		open_window(s, t, r);
	}
	s->st->entries++;
	t->state = TS_STEP;
	t->burst_at = now_s();
	return true;
}

/* T stopped by the sampling: a window where it is, when it is in a region
 * whose hit this is to be */
static void sampled(struct stepper *s, struct sthread *t)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, t->tid, NULL, &regs)) {
		resume(t->tid, 0);
		return;
	}
	for (size_t i = 0; i < s->nr; i++) {
		struct sregion *r = &s->r[i];
		if (!r->placed || !r->def->per_level || regs.rip < r->start || regs.rip >= r->end)
			continue;
		r->st.hits++;
		if (r->st.hits < r->next_hit || s->spent ||
		    (r->def->max_windows && r->st.windows >= r->def->max_windows))
			break;
		/* window J + 1 at 2^((J + 1) / PER_LEVEL) hits after window J */
		unsigned level = (unsigned)((r->st.windows + 1) / r->def->per_level);
		r->next_hit = r->st.hits + (level < 63 ? 1ull << level : 1ull << 63);
		open_window(s, t, r);
		t->state = TS_STEP;
		t->burst_at = now_s();
		step_next(s, t, &regs);
		return;
	}
	resume(t->tid, 0);
}

/* T, at breakpoint B that is not its to stop at: one step with it lifted */
static void pass(struct stepper *s, struct sthread *t, struct sbp *b)
{
	t->after_pass = t->state;
	t->state = TS_PASS;
	b->passing++;
	bp_sync(s, b);
	t->passing = (size_t)(b - s->bp) + 1;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL)) {
		lift_end(s, t);
		t->state = t->after_pass;
		resume(t->tid, 0);
	}
}

static void trap(struct stepper *s, struct sthread *t)
{
	if (t->state == TS_STEP) {
		step_done(s, t);
		return;
	}
	if (t->state == TS_PASS) {
		lift_end(s, t);
		t->state = t->after_pass;
		resume(t->tid, 0);
		return;
	}
	siginfo_t si;
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) || ptrace(PTRACE_GETREGS, t->tid, NULL, &regs)) {
		resume(t->tid, 0);
		return;
	}
	/* an int3 reports the address after it */
	struct sbp *b = si.si_code == SI_KERNEL ? bp_find(s, regs.rip - 1) : NULL;
	if (!b) {
		resume(t->tid, SIGTRAP);	/* the program's own */
		return;
	}
	regs.rip--;
	ptrace(PTRACE_SETREGS, t->tid, NULL, &regs);
	s->st->traps++;
	if (s->entry_bp && regs.rip == s->entry_addr && t->kind == TK_THREAD) {
		/* the program's entry: its libraries are mapped */
		bp_unref(s, s->entry_addr);
		s->entry_bp = 0;
		place_regions(s);
		if (!bp_find(s, regs.rip)->written) {
			resume(t->tid, 0);
			return;
		}
	}
	if (t->state == TS_CALLOUT && regs.rip == t->ret) {
		bp_unref(s, t->ret);
		t->state = TS_STEP;
		t->mark_entry = true;
		t->burst_at = now_s();
		step_next(s, t, &regs);
		return;
	}
	if (t->state == TS_RUN && t->kind == TK_THREAD)
		for (size_t i = 0; i < s->nr; i++)
			if (s->r[i].placed && s->r[i].start == regs.rip && try_window(s, t, &s->r[i])) {
				step_next(s, t, &regs);
				return;
			}
	pass(s, t, b);
}

/* a signal for the program: a window it interrupts ends; the sampling's
 * SIGSTOP is gus's own, not delivered */
static void signal_stop(struct stepper *s, struct sthread *t, int sig)
{
	if (sig == SIGSTOP && t->sampling) {
		siginfo_t si;
		t->sampling = false;
		if (!ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) && si.si_code == SI_TKILL && si.si_pid == getpid()) {
			if (t->state == TS_RUN && t->win < 0) {
				sampled(s, t);
				return;
			}
			sig = 0;
		}
	}
	if (t->state == TS_STEP || t->state == TS_PASS) {
		lift_end(s, t);
		if (t->state == TS_PASS)
			t->state = t->after_pass;
		else
			close_window(s, t);
	}
	resume(t->tid, sig);
}

static void thread_gone(struct stepper *s, struct sthread *t)
{
	lift_end(s, t);
	if (t->win >= 0 || t->state == TS_CALLOUT)
		close_window(s, t);
	*t = s->t[--s->nt];
}

/* ------------------------------------------------------- new tracees --- */
static struct pending_child *kid_of(struct stepper *s, pid_t pid, bool add)
{
	for (size_t i = 0; i < s->nkids; i++)
		if (s->kids[i].pid == pid)
			return &s->kids[i];
	if (!add)
		return NULL;
	if (s->nkids == s->capkids) {
		size_t cap = s->capkids ? 2 * s->capkids : 8;
		struct pending_child *v = realloc(s->kids, cap * sizeof *v);
		if (!v)
			return NULL;
		s->kids = v;
		s->capkids = cap;
	}
	struct pending_child *k = &s->kids[s->nkids++];
	*k = (struct pending_child){ .pid = pid };
	return k;
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "r");
	pid_t tgid = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

/* a new tracee whose kind is known (EVENT) and that has stopped once */
static void adopt(struct stepper *s, struct pending_child *k)
{
	pid_t pid = k->pid;
	int event = k->event;
	*k = s->kids[--s->nkids];
	if (event == PTRACE_EVENT_FORK) {
		/* its own copy of the memory: the breakpoints taken out */
		int fd = mem_open(pid);
		for (size_t i = 0; fd >= 0 && i < s->nbp; i++)
			if (s->bp[i].written)
				poke_byte(fd, s->bp[i].addr, s->bp[i].orig);
		if (fd >= 0)
			close(fd);
		s->st->children++;
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		return;
	}
	bool thread = event == PTRACE_EVENT_CLONE && tgid_of(pid) == s->pid;
	struct sthread *t = thread_new(s, pid, thread ? TK_THREAD : TK_SHARED);
	if (!t) {
		s->failed = true;
		return;
	}
	if (!thread)
		s->st->children++;
	resume(pid, 0);
}

static void exec_event(struct stepper *s, struct sthread *t)
{
	if (t->kind != TK_THREAD) {
		/* a vfork child now has memory of its own */
		pid_t pid = t->tid;
		thread_gone(s, t);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		return;
	}
	/* the program is another: its old threads and memory are gone */
	pid_t pid = t->tid;
	for (size_t i = s->nt; i-- > 0;)
		if (s->t[i].kind == TK_THREAD && s->t[i].tid != pid) {
			s->t[i].win = -1;
			s->t[i] = s->t[--s->nt];
		}
	t = thread_of(s, pid);
	t->state = TS_RUN;
	t->win = -1;
	t->passing = 0;
	s->nbp = 0;
	s->entry_bp = 0;
	for (size_t i = 0; i < s->nr; i++) {
		s->r[i].placed = s->r[i].armed = false;
		s->r[i].open = 0;
	}
	if (s->mem >= 0)
		close(s->mem);
	s->mem = mem_open(s->pid);
	place_regions(s);
	resume(pid, 0);
}

static void event_stop(struct stepper *s, struct sthread *t, int event)
{
	if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
		unsigned long msg = 0;
		ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
		struct pending_child *k = kid_of(s, (pid_t)msg, true);
		if (k) {
			k->event = event;
			if (k->stopped)
				adopt(s, k);
		}
		resume(t->tid, 0);
		return;
	}
	if (event == PTRACE_EVENT_EXEC) {
		exec_event(s, t);
		return;
	}
	resume(t->tid, 0);
}

/* ------------------------------------------------------------- start --- */
/* AT_ENTRY of the process: where its own code starts, its libraries mapped */
static uint64_t entry_point(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
	FILE *f = fopen(path, "rb");
	uint64_t kv[2], entry = 0;
	while (f && fread(kv, sizeof kv, 1, f) == 1 && kv[0])
		if (kv[0] == 9)	/* AT_ENTRY */
			entry = kv[1];
	if (f)
		fclose(f);
	return entry;
}

static double cpu_seconds(int who)
{
	struct rusage ru;
	if (getrusage(who, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

enum collect_status collect_step_run(char *const argv[], const struct collect_step_opts *o,
				     struct collect_step_stats *st, struct collect_result *res, char *err,
				     size_t errlen)
{
	memset(st, 0, sizeof *st);
	memset(res, 0, sizeof *res);
	struct stepper s = { .o = o, .st = st, .mem = -1, .err = err, .errlen = errlen,
			     .window = o->window ? o->window : DEFAULT_WINDOW,
			     .sample_ns = (uint64_t)((o->sample_cpu_s > 0 ? o->sample_cpu_s : DEFAULT_SAMPLE_S) * 1e9) };
	ZydisDecoderInit(&s.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	s.r = calloc(o->nregions ? o->nregions : 1, sizeof *s.r);
	if (!s.r) {
		snprintf(err, errlen, "out of memory");
		return COLLECT_ERROR;
	}
	s.nr = o->nregions;
	for (size_t i = 0; i < s.nr; i++) {
		s.r[i].def = &o->regions[i];
		s.r[i].due = !o->regions[i].per_level;
		s.r[i].next_hit = 1;
	}
	double cpu0 = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
	int fds[2];
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		free(s.r);
		return COLLECT_ERROR;
	}
	s.t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(s.r);
		return COLLECT_ERROR;
	}
	if (pid == 0) {
		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		if (collect_stdio_apply(o->stdio))
			collect_exec_failed(fds[1]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		collect_exec_failed(fds[1]);
	}
	close(fds[1]);
	s.pid = pid;
	enum collect_status rc = COLLECT_OK;
	int ws;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (!WIFSTOPPED(ws)) {
		int e = 0;
		if (read(fds[0], &e, sizeof e) == (ssize_t)sizeof e && e) {
			res->exec_errno = e;
			snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
			close(fds[0]);
			free(s.r);
			return COLLECT_EXEC_FAILED;
		}
		close(fds[0]);
		snprintf(err, errlen, "%s ended before it started", argv[0]);
		free(s.r);
		return COLLECT_ERROR;
	}
	close(fds[0]);
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			      PTRACE_O_TRACEEXEC));
	s.mem = mem_open(pid);
	struct sthread *main_thread = thread_new(&s, pid, TK_THREAD);
	if (s.mem < 0 || !main_thread) {
		snprintf(err, errlen, "cannot open the memory of %s: %s", argv[0], strerror(errno));
		kill(pid, SIGKILL);
		rc = COLLECT_ERROR;
		goto reap;
	}
	/* the regions are placed at the program's entry (its libraries are
	 * mapped then), and again later for objects it loads itself */
	s.entry_addr = entry_point(pid);
	struct sbp *eb = s.entry_addr ? bp_ref(&s, s.entry_addr) : NULL;
	if (eb)
		s.entry_bp = (size_t)(eb - s.bp) + 1;
	struct collect_forward fwd;
	collect_forward_install(&fwd, pid);
	/* the timer of the ticks interrupts waitpid */
	struct sigaction sa, old_alrm;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old_alrm);
	sigset_t alrm, old_mask;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, &old_mask);
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t timer;
	bool have_timer = !timer_create(CLOCK_MONOTONIC, &sev, &timer);
	if (have_timer) {
		struct itimerspec its = { { 0, TICK_NS }, { 0, TICK_NS } };
		timer_settime(timer, 0, &its, NULL);
	}
	step_ticks = 0;
	resume(pid, 0);
	for (;;) {
		if (step_ticks)
			tick(&s);
		if (s.sink_rc || s.failed) {
			if (!s.failed)
				snprintf(err, errlen, "the stream's consumer stopped the run (code %d)", s.sink_rc);
			else
				snprintf(err, errlen, "out of memory following the program's threads");
			rc = COLLECT_ERROR;
			kill(pid, SIGKILL);
			s.sink_rc = s.sink_rc ? s.sink_rc : -1;
			s.failed = false;
		}
		pid_t w = waitpid(-1, &ws, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;	/* every tracee is gone */
		}
		struct sthread *t = thread_of(&s, w);
		if (WIFEXITED(ws) || WIFSIGNALED(ws)) {
			if (w == pid)
				res->wait_status = ws;
			if (t)
				thread_gone(&s, t);
			struct pending_child *k = kid_of(&s, w, false);
			if (k)
				*k = s.kids[--s.nkids];
			continue;
		}
		if (!WIFSTOPPED(ws))
			continue;
		int sig = WSTOPSIG(ws), event = (ws >> 16) & 0xff;
		if (!t) {
			/* a new tracee: adopted once its parent's event says
			 * what it is */
			struct pending_child *k = kid_of(&s, w, true);
			if (!k) {
				s.failed = true;
				continue;
			}
			k->stopped = true;
			if (k->event)
				adopt(&s, k);
			continue;
		}
		if (sig == SIGTRAP && event) {
			event_stop(&s, t, event);
			continue;
		}
		if (sig == SIGTRAP) {
			trap(&s, t);
			continue;
		}
		signal_stop(&s, t, sig);
	}
	if (have_timer)
		timer_delete(timer);
	sigaction(SIGALRM, &old_alrm, NULL);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	res->interrupted = collect_forward_got() != 0;
	collect_forward_restore(&fwd);
reap:
	while (waitpid(-1, &ws, __WALL) > 0 || errno == EINTR)
		;
	flush(&s);
	if (s.sink_rc && rc == COLLECT_OK) {
		snprintf(err, errlen, "the stream's consumer stopped the run (code %d)", s.sink_rc);
		rc = COLLECT_ERROR;
	}
	st->never_reached = true;
	for (size_t i = 0; i < s.nr; i++) {
		st->never_reached &= !s.r[i].st.placed;
		if (o->region_stats)
			o->region_stats[i] = s.r[i].st;
	}
	if (s.mem >= 0)
		close(s.mem);
	free(s.r);
	free(s.bp);
	free(s.t);
	free(s.kids);
	res->seconds = now_s() - s.t0;
	st->seconds = res->seconds;
	st->held_seconds = s.held;
	st->cpu_seconds = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN) - cpu0;
	return rc;
}
