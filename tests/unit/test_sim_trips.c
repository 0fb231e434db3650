/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trip counts by following a function's loop counters (sim_trips_by_execution,
 * sim_follow_path) on small functions assembled by hand: a triangular nest,
 * counters spilled to the stack, a rotated loop with its bound in a vector
 * register, a bound loaded from memory, a loop that
 * never returns, an if on loaded data (around a store or not), a tail call
 * against a jump out with the frame still up, and data addresses the code
 * names. */
#include <stdlib.h>

#include "sim.h"
#include "tap.h"

#define BASE 0x401000

/* for (i = 0; i < 64; i++) { j = 0; do j++; while (j <= i); } */
static const uint8_t tri[] = { 0x31, 0xc9, 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xc8, 0x76,
			       0xf7, 0x48, 0x83, 0xc1, 0x01, 0x48, 0x83, 0xf9, 0x40, 0x75, 0xeb, 0xc3 };
/* i kept at [rsp+8], 0..9; the inner loop runs to 2 i (once for i = 0) */
static const uint8_t spill[] = { 0x48, 0x83, 0xec, 0x18, 0x48, 0xc7, 0x44, 0x24, 0x08, 0x00, 0x00, 0x00, 0x00,
				 0x48, 0x8b, 0x44, 0x24, 0x08, 0x48, 0x8d, 0x14, 0x00, 0x31, 0xc9, 0x48, 0x83,
				 0xc1, 0x01, 0x48, 0x39, 0xd1, 0x72, 0xf7, 0x48, 0x83, 0x44, 0x24, 0x08, 0x01,
				 0x48, 0x83, 0x7c, 0x24, 0x08, 0x0a, 0x75, 0xde, 0x48, 0x83, 0xc4, 0x18, 0xc3 };
/* mov rcx, [rdi]: the bound is data */
static const uint8_t load[] = { 0x48, 0x8b, 0x0f, 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01,
				0x48, 0x39, 0xc8, 0x75, 0xf7, 0xc3 };
/* an inner loop of 7 inside a loop without end */
static const uint8_t endless[] = { 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x07, 0x75, 0xf6, 0xeb, 0xf2 };
/* 100 iterations of: if (p[i] == 0) skip a nop */
static const uint8_t ifload[] = { 0x31, 0xc0, 0x80, 0x3c, 0x07, 0x00, 0x74, 0x01, 0x90, 0x48,
				  0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x64, 0x75, 0xef, 0xc3 };
/* 100 iterations of: if (p[i] == 0) p[i] = 1 (a store the branch skips) */
static const uint8_t ifstore[] = { 0x31, 0xc0, 0x80, 0x3c, 0x07, 0x00, 0x75, 0x04, 0xc6, 0x04, 0x07, 0x01,
				   0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x64, 0x75, 0xec, 0xc3 };
/* 16 loads from a table the code names (lea rsi, [rip+0x1000]) */
static const uint8_t table[] = { 0x48, 0x8d, 0x35, 0x00, 0x10, 0x00, 0x00, 0x31, 0xc0, 0x8b, 0x14, 0x86,
				 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8, 0x10, 0x75, 0xf3, 0xc3 };

/* a loop of 5, then a jump out of the function with the frame still set
 * up (into code placed elsewhere, as gcc's .cold parts are) */
static const uint8_t coldjmp[] = { 0x48, 0x83, 0xec, 0x08, 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01, 0x48,
				   0x83, 0xf8, 0x05, 0x75, 0xf6, 0xe9, 0xeb, 0x0f, 0x00, 0x00 };
/* the same, the frame taken down before the jump: a tail call */
static const uint8_t tailcall[] = { 0x48, 0x83, 0xec, 0x08, 0x31, 0xc0, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8,
				    0x05, 0x75, 0xf6, 0x48, 0x83, 0xc4, 0x08, 0xe9, 0xe7, 0x0f, 0x00, 0x00 };

/* a vectorizer's shape: a ymm loop, then its scalar remainder loop inside
 * a loop of its own (as gcc's multi-latch remainders sit), in an outer
 * loop; the bounds are registers, so no trip count is known:
 *   outer: xor ecx,ecx; vec: vmovups ymm0,[rdi+rcx*4]; vaddps; vmovups;
 *   add rcx,8; cmp rcx,rsi; jb vec; rem_outer: test rdx,rdx; je done;
 *   rem: vmovss; vaddss; vmovss; inc rcx; cmp rcx,rdx; jb rem; dec rdx;
 *   jnz rem_outer; done: inc eax; cmp eax,100; jne outer; ret */
static const uint8_t vecrem[] = { 0x31, 0xc0, 0x31, 0xc9, 0xc5, 0xfc, 0x10, 0x04, 0x8f, 0xc5, 0xfc, 0x58, 0xc1, 0xc5,
				  0xfc, 0x11, 0x04, 0x8f, 0x48, 0x83, 0xc1, 0x08, 0x48, 0x39, 0xf1, 0x72, 0xe9, 0x48,
				  0x85, 0xd2, 0x74, 0x1b, 0xc5, 0xfa, 0x10, 0x04, 0x8f, 0xc5, 0xfa, 0x58, 0xc1, 0xc5,
				  0xfa, 0x11, 0x04, 0x8f, 0x48, 0xff, 0xc1, 0x48, 0x39, 0xd1, 0x72, 0xea, 0x48, 0xff,
				  0xca, 0x75, 0xe0, 0xff, 0xc0, 0x83, 0xf8, 0x64, 0x75, 0xc0, 0xc3 };

/* gcc's -O3 floyd shape: a row loop whose body jumps back to its top
 * from inside another loop's body, before that loop's own latch (the
 * likely way: a backward branch), by a conditional branch and a jump:
 *   xor eax,eax; top: add eax,1; mov ecx,[rdi+rax*4]; cmp eax,esi; jae done;
 *   inner: test ecx,ecx; je top; mov [rdi],ecx; jmp top; mov [rdx],ecx;
 *   add r8,1; add r9,1; add r10,1; dec ecx; jnz inner; done: ret */
static const uint8_t backtop[] = { 0x31, 0xc0, 0x83, 0xc0, 0x01, 0x8b, 0x0c, 0x87, 0x39, 0xf0, 0x73, 0x1a, 0x85,
				   0xc9, 0x74, 0xf2, 0x89, 0x0f, 0xeb, 0xee, 0x89, 0x0a, 0x49, 0x83, 0xc0, 0x01,
				   0x49, 0x83, 0xc1, 0x01, 0x49, 0x83, 0xc2, 0x01, 0xff, 0xc9, 0x75, 0xe6, 0xc3 };

/* gcc -O3's rotated loop with its bound parked in a vector register: the
 * inner loop is entered by a jump to its test at the bottom, its head
 * reached only from inside; i = 0..9, the inner loop runs 2 i times:
 *   xor esi,esi; outer: lea eax,[rsi+rsi]; vmovd xmm3,eax; xor ecx,ecx;
 *   jmp test; body: add ecx,1; test: vmovd edx,xmm3; cmp ecx,edx;
 *   jb body; add esi,1; cmp esi,10; jne outer; ret */
static const uint8_t rotated[] = { 0x31, 0xf6, 0x8d, 0x04, 0x36, 0xc5, 0xf9, 0x6e, 0xd8, 0x31, 0xc9,
				   0xeb, 0x03, 0x83, 0xc1, 0x01, 0xc5, 0xf9, 0x7e, 0xda, 0x39, 0xd1,
				   0x72, 0xf5, 0x83, 0xc6, 0x01, 0x83, 0xfe, 0x0a, 0x75, 0xe2, 0xc3 };

static size_t find(const struct sim_machine *m, const uint8_t *b, size_t len, struct sim_loop *loops)
{
	return sim_find_loops(m, BASE, b, len, loops, 8);
}

/* the index of the loop starting at BASE + OFF, -1 when none */
static int at(const struct sim_loop *loops, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (loops[i].start == BASE + off)
			return (int)i;
	return -1;
}

int main(void)
{
	const char *top = getenv("GUS_TOP") ? getenv("GUS_TOP") : GUS_ABS_SRCDIR;
	char path[1024], err[512];
	snprintf(path, sizeof path, "%s/data/machines/spr.mm", top);
	struct sim_machine *m = sim_machine_load(path, err, sizeof err);
	if (!tap_ok(m != NULL, "spr loads")) {
		printf("# %s\n", err);
		return tap_done();
	}
	struct sim_loop loops[8];
	double trips[8];

	size_t n = find(m, tri, sizeof tri, loops);
	bool done = sim_trips_by_execution(BASE, tri, sizeof tri, loops, n, 100000, trips);
	int in = at(loops, n, 4), out = at(loops, n, 2);
	tap_ok(done && n == 2 && in >= 0 && out >= 0, "triangular nest: followed to its return (%zu loops)", n);
	if (in >= 0 && out >= 0) {
		tap_near(trips[in], 32.5, 1e-9, "triangular nest: the inner loop runs (1 + 64) / 2 times per entry");
		tap_near(trips[out], 64, 1e-9, "triangular nest: the outer loop 64");
	}

	n = find(m, spill, sizeof spill, loops);
	done = sim_trips_by_execution(BASE, spill, sizeof spill, loops, n, 100000, trips);
	in = at(loops, n, 0x18);
	tap_ok(done && in >= 0, "a counter kept on the stack: followed");
	if (in >= 0)
		tap_near(trips[in], 91.0 / 10, 1e-9, "a counter kept on the stack: the inner loop 91 / 10 per entry");

	n = find(m, rotated, sizeof rotated, loops);
	done = sim_trips_by_execution(BASE, rotated, sizeof rotated, loops, n, 100000, trips);
	in = at(loops, n, 0x0d);
	tap_ok(done && in >= 0, "a rotated loop, its bound in xmm3: followed");
	if (in >= 0)
		tap_near(trips[in], 90.0 / 10, 1e-9, "a rotated loop entered at its test: 90 / 10 per entry");

	n = find(m, load, sizeof load, loops);
	done = sim_trips_by_execution(BASE, load, sizeof load, loops, n, 100000, trips);
	tap_ok(!done && n == 1 && trips[0] == 0, "a bound loaded from memory: unknown");

	n = find(m, endless, sizeof endless, loops);
	done = sim_trips_by_execution(BASE, endless, sizeof endless, loops, n, 10000, trips);
	in = at(loops, n, 2);
	out = at(loops, n, 0);
	tap_ok(!done && in >= 0 && out >= 0, "no return: the run is cut at its step budget");
	if (in >= 0 && out >= 0) {
		tap_near(trips[in], 7, 1e-9, "no return: the inner loop ran 7 at every entry, so it is kept");
		tap_near(trips[out], 0, 1e-9, "no return: the endless loop's count is unknown");
	}

	n = find(m, ifload, sizeof ifload, loops);
	done = sim_trips_by_execution(BASE, ifload, sizeof ifload, loops, n, 100000, trips);
	tap_ok(done && n == 1, "an if on loaded data inside the loop: its fall-through is taken");
	if (n == 1)
		tap_near(trips[0], 100, 1e-9, "an if on loaded data: 100 iterations");

	n = find(m, tailcall, sizeof tailcall, loops);
	done = sim_trips_by_execution(BASE, tailcall, sizeof tailcall, loops, n, 100000, trips);
	tap_ok(done && n == 1 && trips[0] == 5, "a tail call (the frame taken down) ends the run: 5 trips");
	n = find(m, coldjmp, sizeof coldjmp, loops);
	done = sim_trips_by_execution(BASE, coldjmp, sizeof coldjmp, loops, n, 100000, trips);
	tap_ok(!done && n == 1 && trips[0] == 0, "a jump out with the frame still up is not a return: unknown");

	/* an undecided if around a store takes the path around it (the store
	 * heuristic: floyd-warshall's update is rare), one around a nop its
	 * fall-through */
	n = find(m, ifstore, sizeof ifstore, loops);
	struct sim_path_rec *ps = NULL;
	size_t nps = 0;
	int rcs = sim_follow_path(BASE, ifstore, sizeof ifstore, loops, n, BASE + 2, BASE + 22, 10000, 100000, &ps,
				  &nps);
	size_t stores = 0, steps = 0;
	for (size_t i = 0; i < nps; i++) {
		stores += ps[i].ip == BASE + 8;
		steps += ps[i].ip == BASE + 12;
	}
	tap_ok(rcs == 0 && steps == 100 && stores == 0, "an if around a store: the path skips it (%zu stores, %zu steps)",
	       stores, steps);
	free(ps);
	n = find(m, ifload, sizeof ifload, loops);
	rcs = sim_follow_path(BASE, ifload, sizeof ifload, loops, n, BASE + 2, BASE + 19, 10000, 100000, &ps, &nps);
	size_t nops = 0;
	for (size_t i = 0; i < nps; i++)
		nops += ps[i].ip == BASE + 8;
	tap_ok(rcs == 0 && nops == 100, "an if around a nop: the path falls through (%zu nops)", nops);
	free(ps);

	/* the path: a window from the middle, with the addresses the code names */
	n = find(m, tri, sizeof tri, loops);
	struct sim_path_rec *p = NULL;
	size_t np = 0;
	int rc = sim_follow_path(BASE, tri, sizeof tri, loops, n, BASE + 2, BASE + 0x17, 40, 100000, &p, &np);
	tap_ok(rc == 0 && np == 40, "path: a window of 40 instructions (%zu)", np);
	bool inside = true;
	for (size_t i = 0; i < np; i++)
		inside = inside && p[i].ip >= BASE + 2 && p[i].ip < BASE + 0x17;
	tap_ok(inside, "path: every instruction in the range asked for");
	free(p);
	n = find(m, table, sizeof table, loops);
	rc = sim_follow_path(BASE, table, sizeof table, loops, n, BASE + 9, BASE + 0x16, 1000, 100000, &p, &np);
	tap_ok(rc == 0 && np == 16 * 4, "path: the table loop's 64 instructions (%zu)", np);
	uint64_t tab = BASE + 7 + 0x1000;
	bool addrs = np == 64;
	for (size_t i = 0; addrs && i < 16; i++)
		addrs = p[4 * i].ip == BASE + 9 && p[4 * i].nmem == 1 && p[4 * i].mem[0] == tab + 4 * i;
	tap_ok(addrs, "path: each load's address, from the table's the code names");
	free(p);
	rc = sim_follow_path(BASE, load, sizeof load, NULL, 0, BASE, BASE + sizeof load, 100, 100000, &p, &np);
	tap_ok(rc == -1 && !p && !np, "path: none where the run cannot be followed");

	{
		/* the static choice takes the vector loop, not the remainder
		 * that sits deeper in the nest */
		struct sim_loop_info li[8];
		size_t nl = sim_loop_nest(m, BASE, vecrem, sizeof vecrem, li, 8);
		char why[512];
		int best = sim_hot_loop(li, nl, why, sizeof why);
		int rem = -1;
		for (size_t i = 0; i < nl; i++)
			if (li[i].loop.start == BASE + 0x20)
				rem = (int)i;
		tap_ok(rem >= 0 && li[rem].depth > 2 && li[rem].vector_bits == 0,
		       "vector and remainder: the scalar remainder loop is the deepest (depth %u)", rem >= 0 ? li[rem].depth : 0);
		tap_ok(best >= 0 && li[best].loop.start == BASE + 4 && li[best].vector_bits == 256,
		       "vector and remainder: the ymm loop is chosen (%s)", why);
	}
	{
		/* two overlapping innermost loops: the one the other's body
		 * jumps back to before its latch is chosen, not the larger */
		struct sim_loop_info li[8];
		size_t nl = sim_loop_nest(m, BASE, backtop, sizeof backtop, li, 8);
		char why[512];
		int best = sim_hot_loop(li, nl, why, sizeof why);
		int row = -1, other = -1;
		for (size_t i = 0; i < nl; i++) {
			if (li[i].loop.start == BASE + 2)
				row = (int)i;
			if (li[i].loop.start == BASE + 0xc)
				other = (int)i;
		}
		tap_ok(row >= 0 && other >= 0 && li[row].innermost && li[other].innermost &&
			       li[other].insns > li[row].insns,
		       "back to the top: two innermost loops, the other the larger (%zu loops)", nl);
		tap_ok(best >= 0 && best == row && strstr(why, "jumps back"),
		       "back to the top: the row loop is chosen (%s)", why);
	}
	sim_machine_free(m);
	return tap_done();
}
