/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A sample's user call chain from its registers and a copy of the top of
 * its stack (gus record --call-graph dwarf, perf record --call-graph
 * dwarf), unwound by libdwfl with the objects' call frame information
 * (.eh_frame, else .debug_frame), as perf unwinds with libdw: one Dwfl per
 * address space, each object reported to it when the walk first reaches
 * it (its CFI then kept for every later sample of that process), the
 * registers and memory given by callbacks that read the sample alone.
 *
 * The sample comes from a recording, an untrusted input: a register not
 * in it is left undefined, a read outside the stack copy fails, the walk
 * stops at MAX frames, at a frame without an object, or where libdwfl
 * cannot go on. What was unwound before that is the chain. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge.h"
#include "outpath.h"

/* PERF_SAMPLE_REGS_ABI_64 */
#define REGS_ABI_64 2
/* address spaces kept at once: a recording of many short processes
 * (a build) must not hold every one's objects */
#define MAX_SPACES 64

/* x86-64's DWARF registers 0-16 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
 * r8-r15, the return address) as perf's PERF_REG_X86_* numbers */
static const int perf_reg_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
#define PERF_REG_SP 7
#define PERF_REG_IP 8

struct space;

struct merge_unwinder {
	merge_unwind_find find;
	void *ctx;
	struct space *spaces[MAX_SPACES];
	size_t nspaces;
	uint64_t clock;		/* for the least recently used */
};

/* the sample being unwound */
struct current {
	const struct merge_unwind_regs *regs;
	const uint8_t *stack;
	size_t nstack;
	uint64_t sp;
	uint64_t *pcs;
	size_t n, max;
};

struct space {
	struct merge_unwinder *u;
	int as;
	Dwfl *dwfl;
	bool attached;
	uint64_t used;
	struct current cur;
};

static int no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
		  Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1;
}

/* no separate debug file is looked for: .eh_frame is what unwinds, and
 * every file gus reads for a recording is opened by outpath_open_regular */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = no_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static bool reg_value(const struct merge_unwind_regs *r, int perf_reg, uint64_t *v)
{
	if (perf_reg < 0 || perf_reg >= 64 || !(r->mask & (1ULL << perf_reg)))
		return false;
	/* the values are the mask's registers in order */
	size_t i = (size_t)__builtin_popcountll(r->mask & ((1ULL << perf_reg) - 1));
	if (i >= r->n)
		return false;
	*v = r->v[i];
	return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0;	/* threads are asked for by number only */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	const struct current *c = &((struct space *)arg)->cur;
	if (addr < c->sp || c->nstack < sizeof *result || addr - c->sp > c->nstack - sizeof *result)
		return false;
	memcpy(result, c->stack + (addr - c->sp), sizeof *result);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct current *c = &((struct space *)arg)->cur;
	for (unsigned i = 0; i < 17; i++) {
		uint64_t v;
		Dwarf_Word w;
		if (!reg_value(c->regs, perf_reg_of_dwarf[i], &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	uint64_t ip;
	if (!reg_value(c->regs, PERF_REG_IP, &ip))
		return false;
	dwfl_thread_state_register_pc(thread, ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The object holding ADDR reported to S's Dwfl, once; false when there
 * is none or it cannot be read */
static bool report_object(struct space *s, uint64_t addr)
{
	if (dwfl_addrmodule(s->dwfl, addr))
		return true;
	struct merge_unwind_object o;
	if (!s->u->find(s->u->ctx, s->as, addr, &o) || !o.path || o.path[0] != '/')
		return false;
	char err[OUTPATH_ERRLEN];
	int fd = outpath_open_regular(o.path, err, sizeof err);
	if (fd < 0)
		return false;
	dwfl_report_begin_add(s->dwfl);
	/* the module takes the descriptor; a refusal (a file that is not
	 * ELF, an object overlapping one reported) leaves it to us */
	Dwfl_Module *m = dwfl_report_elf(s->dwfl, o.path, o.path, fd, o.bias, true);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!m) {
		close(fd);
		return false;
	}
	return dwfl_addrmodule(s->dwfl, addr) != NULL;
}

static void space_free(struct space *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
}

static struct space *space_of(struct merge_unwinder *u, int as)
{
	u->clock++;
	for (size_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i]->as == as) {
			u->spaces[i]->used = u->clock;
			return u->spaces[i];
		}
	struct space *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->u = u;
	s->as = as;
	s->used = u->clock;
	if (!(s->dwfl = dwfl_begin(&offline_callbacks))) {
		free(s);
		return NULL;
	}
	size_t at = u->nspaces;
	if (at == MAX_SPACES) {
		at = 0;
		for (size_t i = 1; i < u->nspaces; i++)
			if (u->spaces[i]->used < u->spaces[at]->used)
				at = i;
		space_free(u->spaces[at]);
	} else {
		u->nspaces++;
	}
	u->spaces[at] = s;
	return s;
}

struct merge_unwinder *merge_unwinder_new(merge_unwind_find find, void *ctx)
{
	struct merge_unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->find = find;
	u->ctx = ctx;
	return u;
}

void merge_unwinder_free(struct merge_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nspaces; i++)
		space_free(u->spaces[i]);
	free(u);
}

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct space *s = arg;
	struct current *c = &s->cur;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/* a return address already seen at the same place: a walk that
	 * went around in a circle */
	if (c->n && c->pcs[c->n - 1] == pc && !activation)
		return DWARF_CB_ABORT;
	c->pcs[c->n++] = pc;
	if (c->n >= c->max)
		return DWARF_CB_ABORT;
	/* the next step needs the CFI of the object this frame is in: a
	 * return address's call is the instruction before it */
	if (!report_object(s, activation ? pc : pc - 1))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

size_t merge_unwind(struct merge_unwinder *u, int as, const struct merge_unwind_regs *regs, const uint8_t *stack,
		    size_t nstack, uint64_t *pcs, size_t max)
{
	uint64_t ip, sp;
	if (!max || !regs || regs->abi != REGS_ABI_64 || !reg_value(regs, PERF_REG_IP, &ip) || !ip)
		return 0;
	struct space *s = space_of(u, as);
	/* without a stack, or its object, the sampled instruction alone */
	if (!s || !reg_value(regs, PERF_REG_SP, &sp) || !stack || !nstack || !report_object(s, ip)) {
		pcs[0] = ip;
		return 1;
	}
	/* the thread numbers of libdwfl are positive */
	pid_t tid = as > 0 ? as : 1;
	if (!s->attached) {
		/* the first object reported says the machine */
		if (!dwfl_attach_state(s->dwfl, NULL, tid, &thread_callbacks, s)) {
			pcs[0] = ip;
			return 1;
		}
		s->attached = true;
	}
	s->cur = (struct current){ .regs = regs, .stack = stack, .nstack = nstack, .sp = sp, .pcs = pcs, .max = max };
	/* an error ends the walk where it is: the frames so far stand */
	dwfl_getthread_frames(s->dwfl, tid, frame_callback, s);
	size_t n = s->cur.n;
	s->cur = (struct current){ 0 };
	if (!n) {
		pcs[0] = ip;
		n = 1;
	}
	return n;
}
