/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The native stepper (collect.h): a region's instruction stream from the
 * program running on this CPU, for code the QEMU tracer cannot run (QEMU
 * 7.2 has no AVX-512). The program runs natively under ptrace; at each
 * entry into the region (a breakpoint at its start) a window of it is
 * single-stepped, each step one record: its bytes, whether control went
 * elsewhere, and its data addresses from Zydis's operands and the
 * registers of that moment. Calls out of the region run natively to their
 * return; the window ends when control leaves the region otherwise or
 * after WINDOW records; at MAX_INSNS records the breakpoint goes and the
 * program runs on untraced. One thread: the program's first. */
#include "collect.h"
#include "collect_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#define STEP_BATCH 256

struct stepper {
	pid_t pid;
	const struct collect_step_opts *o;
	struct collect_step_stats *st;
	uint64_t start, end;	/* the region at runtime */
	uint64_t bp;		/* the entry breakpoint's address, 0 when none is set */
	long bp_word;		/* the word the breakpoint replaced */
	ZydisDecoder dec;
	struct stream_insn batch[STEP_BATCH];
	size_t nbatch;
	int sink_rc;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* waits for the traced program; false when it has exited (RES filled) */
static bool wait_stop(struct stepper *s, int *sig, struct collect_result *res)
{
	int ws;
	for (;;) {
		if (waitpid(s->pid, &ws, 0) < 0) {
			if (errno == EINTR)
				continue;
			res->wait_status = 0;
			return false;
		}
		break;
	}
	if (WIFEXITED(ws) || WIFSIGNALED(ws)) {
		res->wait_status = ws;
		return false;
	}
	*sig = WIFSTOPPED(ws) ? WSTOPSIG(ws) : 0;
	return true;
}

static int set_bp(struct stepper *s, uint64_t at)
{
	errno = 0;
	long w = ptrace(PTRACE_PEEKTEXT, s->pid, (void *)at, NULL);
	if (errno)
		return -1;
	s->bp_word = w;
	s->bp = at;
	return ptrace(PTRACE_POKETEXT, s->pid, (void *)at, (void *)((w & ~0xffL) | 0xcc)) ? -1 : 0;
}

static void clear_bp(struct stepper *s)
{
	if (s->bp)
		ptrace(PTRACE_POKETEXT, s->pid, (void *)s->bp, (void *)s->bp_word);
	s->bp = 0;
}

static int flush(struct stepper *s)
{
	if (s->nbatch && !s->sink_rc)
		s->sink_rc = s->o->sink(s->o->ctx, s->batch, s->nbatch);
	s->nbatch = 0;
	return s->sink_rc;
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

/* one record of the instruction at REGS->rip (its bytes read from the
 * process); false when it cannot be read or decoded */
static bool record_at(struct stepper *s, const struct user_regs_struct *regs, struct stream_insn *out,
		      bool *is_call)
{
	uint8_t bytes[16];
	struct iovec local = { bytes, sizeof bytes }, remote = { (void *)regs->rip, sizeof bytes };
	ssize_t got = process_vm_readv(s->pid, &local, 1, &remote, 1, 0);
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
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
			continue;
		/* a gather's or scatter's vector index is not in the context */
		if (op->mem.index >= ZYDIS_REGISTER_XMM0 && op->mem.index <= ZYDIS_REGISTER_ZMM31) {
			all = false;
			continue;
		}
		ZyanU64 a;
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&in, op, regs->rip, &ctx, &a))) {
			all = false;
			continue;
		}
		if (op->mem.segment == ZYDIS_REGISTER_FS)
			a += regs->fs_base;
		else if (op->mem.segment == ZYDIS_REGISTER_GS)
			a += regs->gs_base;
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

/* steps one window from the entry breakpoint's hit; false when the
 * program exited (RES filled) */
static bool step_window(struct stepper *s, struct collect_result *res)
{
	const struct collect_step_opts *o = s->o;
	uint64_t window = o->window ? o->window : 20000;
	uint64_t n = 0;
	bool entry = true;
	s->st->windows++;
	/* the registers after one step are those of the next: one read per
	 * step (a system call each) */
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, s->pid, NULL, &regs))
		return false;
	while (n < window && s->st->insns < o->max_insns && !s->sink_rc) {
		bool is_call = false;
		struct stream_insn *rec = &s->batch[s->nbatch];
		bool inside = regs.rip >= s->start && regs.rip < s->end;
		if (!inside)
			break;	/* the region was left (a return or a jump out) */
		if (!record_at(s, &regs, rec, &is_call))
			break;
		if (entry)
			rec->flags |= STREAM_ENTRY;
		entry = false;
		uint64_t next = regs.rip + rec->size;
		int sig;
		if (ptrace(PTRACE_SINGLESTEP, s->pid, NULL, NULL) || !wait_stop(s, &sig, res)) {
			s->nbatch++;
			s->st->insns++;
			return false;
		}
		s->st->steps++;
		struct user_regs_struct after;
		if (ptrace(PTRACE_GETREGS, s->pid, NULL, &after))
			return false;
		regs = after;
		if (after.rip != next)
			rec->flags |= STREAM_TAKEN;
		s->nbatch++;
		s->st->insns++;
		n++;
		if (s->nbatch == STEP_BATCH && flush(s))
			break;
		if (sig != SIGTRAP) {
			/* a signal for the program: it gets it, the window ends */
			ptrace(PTRACE_CONT, s->pid, NULL, (void *)(long)sig);
			return true;
		}
		/* a call out of the region runs natively to its return */
		if (is_call && (after.rip < s->start || after.rip >= s->end)) {
			uint64_t ret = next;
			long w;
			errno = 0;
			w = ptrace(PTRACE_PEEKTEXT, s->pid, (void *)ret, NULL);
			if (errno || ptrace(PTRACE_POKETEXT, s->pid, (void *)ret, (void *)((w & ~0xffL) | 0xcc)))
				break;
			for (;;) {
				if (ptrace(PTRACE_CONT, s->pid, NULL, NULL) || !wait_stop(s, &sig, res))
					return false;
				struct user_regs_struct r2;
				ptrace(PTRACE_GETREGS, s->pid, NULL, &r2);
				if (sig == SIGTRAP && r2.rip - 1 == ret) {
					r2.rip = ret;
					ptrace(PTRACE_SETREGS, s->pid, NULL, &r2);
					break;
				}
				/* a recursive entry, or a signal of the program's own */
				if (sig == SIGTRAP && s->bp && r2.rip - 1 == s->bp) {
					r2.rip = s->bp;
					ptrace(PTRACE_POKETEXT, s->pid, (void *)s->bp, (void *)s->bp_word);
					ptrace(PTRACE_SETREGS, s->pid, NULL, &r2);
					ptrace(PTRACE_SINGLESTEP, s->pid, NULL, NULL);
					if (!wait_stop(s, &sig, res))
						return false;
					set_bp(s, s->bp);
					continue;
				}
				if (sig != SIGTRAP) {
					ptrace(PTRACE_CONT, s->pid, NULL, (void *)(long)sig);
					if (!wait_stop(s, &sig, res))
						return false;
				}
			}
			ptrace(PTRACE_POKETEXT, s->pid, (void *)ret, (void *)w);
			if (ptrace(PTRACE_GETREGS, s->pid, NULL, &regs))
				return false;
			entry = true;
		}
	}
	return true;
}

/* the runtime address of FILE_OFF of OBJECT in the process's mappings */
static bool place(pid_t pid, const char *object, uint64_t file_off, uint64_t *at)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	struct stat want;
	if (stat(object, &want)) {
		fclose(f);
		return false;
	}
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
			found = true;
		}
	}
	fclose(f);
	return found;
}

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

enum collect_status collect_step_run(char *const argv[], const struct collect_step_opts *o,
				     struct collect_step_stats *st, struct collect_result *res, char *err,
				     size_t errlen)
{
	memset(st, 0, sizeof *st);
	memset(res, 0, sizeof *res);
	struct stepper s = { .o = o, .st = st };
	ZydisDecoderInit(&s.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	int fds[2];
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return COLLECT_ERROR;
	}
	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return COLLECT_ERROR;
	}
	if (pid == 0) {
		close(fds[0]);
		if (collect_stdio_apply(o->stdio)) {
			int e = errno;
			if (write(fds[1], &e, sizeof e) < 0)
				_exit(127);
			_exit(127);
		}
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		int e = errno;
		if (write(fds[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	s.pid = pid;
	int sig;
	if (!wait_stop(&s, &sig, res)) {
		int e = 0;
		if (read(fds[0], &e, sizeof e) == (ssize_t)sizeof e && e) {
			res->exec_errno = e;
			snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
			close(fds[0]);
			return COLLECT_EXEC_FAILED;
		}
		close(fds[0]);
		snprintf(err, errlen, "%s ended before it started", argv[0]);
		return COLLECT_ERROR;
	}
	close(fds[0]);
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	enum collect_status rc = COLLECT_OK;
	/* run to the program's entry: its libraries are mapped then */
	uint64_t entry = entry_point(pid), at = 0;
	if (entry && !set_bp(&s, entry)) {
		if (ptrace(PTRACE_CONT, pid, NULL, NULL) || !wait_stop(&s, &sig, res))
			goto done;
		struct user_regs_struct r;
		ptrace(PTRACE_GETREGS, pid, NULL, &r);
		clear_bp(&s);
		r.rip = entry;
		ptrace(PTRACE_SETREGS, pid, NULL, &r);
	}
	if (!place(pid, o->object, o->file_start, &at)) {
		st->never_reached = true;
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		goto wait_end;
	}
	s.start = at;
	s.end = at + (o->link_end - o->link_start);
	if (o->placed)
		o->placed(o->ctx, at - o->link_start);
	if (set_bp(&s, s.start)) {
		snprintf(err, errlen, "cannot set a breakpoint at 0x%llx in %s", (unsigned long long)s.start, argv[0]);
		rc = COLLECT_ERROR;
		ptrace(PTRACE_KILL, pid, NULL, NULL);
		goto wait_end;
	}
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)(sig == SIGTRAP || sig == SIGSTOP ? 0 : sig)))
			break;
		if (!wait_stop(&s, &sig, res))
			goto done;
		if (sig != SIGTRAP)
			continue;	/* delivered at the next PTRACE_CONT */
		struct user_regs_struct r;
		ptrace(PTRACE_GETREGS, pid, NULL, &r);
		if (!s.bp || r.rip - 1 != s.bp)
			continue;
		/* the entry: the original byte back, the window stepped, the
		 * breakpoint again unless the budget is spent */
		uint64_t bp = s.bp;
		clear_bp(&s);
		r.rip = bp;
		ptrace(PTRACE_SETREGS, pid, NULL, &r);
		st->entries++;
		if (!step_window(&s, res))
			goto done;
		sig = 0;
		if (s.sink_rc || flush(&s)) {
			snprintf(err, errlen, "the stream's consumer stopped the run (code %d)", s.sink_rc);
			rc = COLLECT_ERROR;
			ptrace(PTRACE_KILL, pid, NULL, NULL);
			goto wait_end;
		}
		if (st->insns >= o->max_insns) {
			st->truncated = true;
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
			goto wait_end;
		}
		/* a window that ended inside the region resumes natively */
		struct user_regs_struct now;
		ptrace(PTRACE_GETREGS, pid, NULL, &now);
		if (now.rip == bp) {
			ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
			if (!wait_stop(&s, &sig, res))
				goto done;
			sig = 0;
		}
		set_bp(&s, bp);
	}
wait_end:
	for (;;) {
		int ws;
		if (waitpid(pid, &ws, 0) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(ws) || WIFSIGNALED(ws)) {
			res->wait_status = ws;
			break;
		}
	}
done:
	flush(&s);
	res->seconds = now_s() - t0;
	st->seconds = res->seconds;
	return rc;
}
