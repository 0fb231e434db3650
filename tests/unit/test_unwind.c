/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merge_unwind on a stack saved here: this test's own registers and the
 * top of its stack, taken three calls deep, unwound through this
 * program's .eh_frame to the return addresses the calls left; then the
 * same sample damaged (a stack cut short, random bytes, registers
 * missing or of 32-bit code, an address space of no object), which must
 * give a partial chain and never a read outside the copy. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "tap.h"

#define NREGS 20		/* COLLECT_DWARF_REGS_MASK's: PERF_REG_X86_AX..SS, R8..R15 */
#define REGS_MASK 0xff0fffULL
#define STACK_BYTES 8192

static uint64_t regs[NREGS];
static uint8_t stack_copy[STACK_BYTES];
static size_t nstack;
static uint64_t ra_in_f2, ra_in_f1;
static volatile int sink;

/* the end of the mapping holding ADDR (/proc/self/maps), 0 when none */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	uint64_t end = 0;
	while (f && fgets(line, sizeof line, f)) {
		uint64_t lo, hi;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && addr >= lo && addr < hi) {
			end = hi;
			break;
		}
	}
	if (f)
		fclose(f);
	return end;
}

/* the stack from SP up, byte by byte: other frames' bytes, which a
 * sanitizer's view of objects must not judge */
__attribute__((noinline, no_sanitize("address"))) static void copy_stack(uint64_t sp)
{
	uint64_t end = mapping_end(sp);
	nstack = end > sp ? (end - sp < STACK_BYTES ? (size_t)(end - sp) : STACK_BYTES) : 0;
	for (size_t i = 0; i < nstack; i++)
		stack_copy[i] = ((const volatile uint8_t *)(uintptr_t)sp)[i];
}

__attribute__((noinline)) static void f3(void)
{
	ra_in_f2 = (uint64_t)(uintptr_t)__builtin_return_address(0);
	uint64_t *r = regs;
	/* perf's order: AX BX CX DX SI DI BP SP IP FLAGS CS SS, R8..R15; the
	 * ip that of the lea, where rsp is the one stored */
	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rbx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rdx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "leaq 0(%%rip), %%r11\n\t"
			 "movq %%r11, 64(%0)\n\t"
			 "movq %%r8, 96(%0)\n\t"
			 "movq %%r9, 104(%0)\n\t"
			 "movq %%r10, 112(%0)\n\t"
			 "movq %%r11, 120(%0)\n\t"
			 "movq %%r12, 128(%0)\n\t"
			 "movq %%r13, 136(%0)\n\t"
			 "movq %%r14, 144(%0)\n\t"
			 "movq %%r15, 152(%0)\n\t"
			 :
			 : "r"(r)
			 : "r11", "memory");
	copy_stack(regs[7]);
}

__attribute__((noinline)) static void f2(void)
{
	ra_in_f1 = (uint64_t)(uintptr_t)__builtin_return_address(0);
	f3();
	sink++;		/* no tail call: the return address stays f2's */
}

__attribute__((noinline)) static void f1(void)
{
	f2();
	sink++;
}

/* the objects: this program's mappings, their files and load biases */
static char paths[16][4096];
static size_t npaths;

static bool find_here(void *ctx, int as, uint64_t addr, struct merge_unwind_object *o)
{
	(void)ctx, (void)as;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 128];
	bool found = false;
	while (f && fgets(line, sizeof line, f)) {
		uint64_t lo, hi, pgoff;
		char perms[8], path[4096];
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s", &lo, &hi, perms, &pgoff,
			   path) != 5 ||
		    addr < lo || addr >= hi || path[0] != '/')
			continue;
		char err[256];
		uint64_t bias;
		if (merge_elf_load_bias(path, lo, pgoff, &bias, err, sizeof err))
			break;
		size_t k = 0;
		while (k < npaths && strcmp(paths[k], path))
			k++;
		if (k == npaths && npaths < 16)
			snprintf(paths[npaths++], sizeof paths[0], "%s", path);
		if (k < npaths) {
			o->path = paths[k];
			o->bias = bias;
			found = true;
		}
		break;
	}
	if (f)
		fclose(f);
	return found;
}

static bool find_none(void *ctx, int as, uint64_t addr, struct merge_unwind_object *o)
{
	(void)ctx, (void)as, (void)addr, (void)o;
	return false;
}

int main(void)
{
	f1();
	struct merge_unwind_regs r = { .abi = 2, .mask = REGS_MASK, .v = regs, .n = NREGS };
	uint64_t pcs[64];
	tap_ok(nstack >= 256, "the stack copied from the sampled sp (%zu bytes)", nstack);

	struct merge_unwinder *u = merge_unwinder_new(find_here, NULL);
	size_t n = merge_unwind(u, 1, &r, stack_copy, nstack, pcs, 64);
	tap_ok(n >= 3 && pcs[0] == regs[8], "unwound: the sampled ip first (%zu frames)", n);
	tap_ok(n >= 3 && pcs[1] == ra_in_f2, "then the return address into f2 (%#" PRIx64 ", want %#" PRIx64 ")",
	   n >= 2 ? pcs[1] : 0, ra_in_f2);
	tap_ok(n >= 3 && pcs[2] == ra_in_f1, "then the return address into f1 (%#" PRIx64 ", want %#" PRIx64 ")",
	   n >= 3 ? pcs[2] : 0, ra_in_f1);
	size_t again = merge_unwind(u, 1, &r, stack_copy, nstack, pcs, 64);
	tap_ok(again == n, "a second sample of the same process unwinds alike (its Dwfl kept)");
	tap_ok(merge_unwind(u, 1, &r, stack_copy, nstack, pcs, 2) == 2, "MAX frames at most");

	/* damage */
	n = merge_unwind(u, 1, &r, stack_copy, 8, pcs, 64);
	tap_ok(n >= 1 && n <= 2 && pcs[0] == regs[8], "a stack of 8 bytes: the ip, and no read beyond (%zu frames)", n);
	uint8_t junk[STACK_BYTES];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	bool sane = true;
	for (int seed = 0; seed < 32; seed++) {
		for (size_t i = 0; i < sizeof junk; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			junk[i] = (uint8_t)x;
		}
		/* half of them keep the real top, so that the walk gets
		 * somewhere before it meets the garbage */
		if (seed & 1)
			memcpy(junk, stack_copy, 64 < nstack ? 64 : nstack);
		n = merge_unwind(u, 1, &r, junk, sizeof junk, pcs, 64);
		sane &= n >= 1 && n <= 64 && pcs[0] == regs[8];
	}
	tap_ok(sane, "random stacks: a partial chain each, the ip first");
	uint64_t far[NREGS];
	memcpy(far, regs, sizeof far);
	far[7] = UINT64_MAX - 4;	/* sp: every read would wrap */
	struct merge_unwind_regs rf = { .abi = 2, .mask = REGS_MASK, .v = far, .n = NREGS };
	n = merge_unwind(u, 1, &rf, stack_copy, nstack, pcs, 64);
	tap_ok(n >= 1 && pcs[0] == regs[8], "a stack pointer at the top of the address space: no wrapped read");
	struct merge_unwind_regs noip = { .abi = 2, .mask = REGS_MASK & ~(1ULL << 8), .v = regs, .n = NREGS - 1 };
	tap_ok(merge_unwind(u, 1, &noip, stack_copy, nstack, pcs, 64) == 0, "registers without the ip: nothing");
	struct merge_unwind_regs few = { .abi = 2, .mask = REGS_MASK, .v = regs, .n = 3 };
	tap_ok(merge_unwind(u, 1, &few, stack_copy, nstack, pcs, 64) == 0, "fewer values than the mask says: nothing");
	struct merge_unwind_regs abi32 = { .abi = 1, .mask = REGS_MASK, .v = regs, .n = NREGS };
	tap_ok(merge_unwind(u, 1, &abi32, stack_copy, nstack, pcs, 64) == 0, "32-bit registers: not unwound");
	merge_unwinder_free(u);

	u = merge_unwinder_new(find_none, NULL);
	n = merge_unwind(u, 7, &r, stack_copy, nstack, pcs, 64);
	tap_ok(n == 1 && pcs[0] == regs[8], "an address space of no object: the ip alone");
	merge_unwinder_free(u);

	/* many processes: the oldest address spaces let go */
	u = merge_unwinder_new(find_here, NULL);
	sane = true;
	for (int as = 1; as <= 100; as++)
		sane &= merge_unwind(u, as, &r, stack_copy, nstack, pcs, 64) >= 3;
	tap_ok(sane, "100 address spaces, 64 kept at once: each unwound");
	merge_unwinder_free(u);
	return tap_done();
}
