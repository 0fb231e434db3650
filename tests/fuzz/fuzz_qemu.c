/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU plugin's wire format (src/collect/qemu_wire.h), read by
 * collect_qemu_decode as collect_qemu_run reads the pipe. Input: one
 * byte of options, then the stream.
 *   bits 0-2: the stream arrives in pieces of 8 << k bytes (k = 7: whole)
 *   bit 3: max_insns 100 (the stream is cut)
 *   bit 4: the sink refuses the third batch
 *   bit 5: no traced objects (a MAP is then malformed); else three
 * The mapped callback checks what it is given (an object gus named, a
 * mapping that fits the address space).
 * The sink checks each record as the simulator and the trace writer rely
 * on it (size 1..15, at most STREAM_MAX_MEM data addresses). */
#include "collect.h"
#include "collect_internal.h"
#include "fuzz.h"

struct ctx {
	unsigned batches;
	bool refuse;
	uint64_t sum;
};

static int sink(void *vctx, const struct stream_insn *v, size_t n)
{
	struct ctx *c = vctx;
	if (!n)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (v[i].size > STREAM_MAX_BYTES || v[i].nmem > STREAM_MAX_MEM)
			abort();
		/* a window's tag names one of the ranges given (3 objects, a
		 * range each) */
		if ((v[i].flags & STREAM_WINDOW) && (!v[i].window || STREAM_WINDOW_RANGE(v[i].window) >= 3))
			abort();
		c->sum += v[i].ip + v[i].flags + v[i].bytes[v[i].size ? v[i].size - 1 : 0];
		for (unsigned k = 0; k < v[i].nmem; k++)
			c->sum += v[i].mem[k];
	}
	return c->refuse && ++c->batches == 3 ? 7 : 0;
}

static void started(void *vctx, uint64_t bias)
{
	struct ctx *c = vctx;
	c->sum += bias;
}

static size_t nobjects;

static void mapped(void *vctx, size_t obj, unsigned proc, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct ctx *c = vctx;
	if (obj >= nobjects || proc != 0 || !len || start + len < start)
		abort();
	c->sum += obj + start + len + pgoff;
}

static void block(void *vctx, uint64_t addr, uint32_t ninsns, uint64_t count)
{
	struct ctx *c = vctx;
	c->sum += addr + ninsns + count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned k = data[0] & 7;
	struct ctx c = { .refuse = data[0] & 16 };
	static const struct stream_range fr = { 0x1000, 0x2000 };
	static const struct collect_qemu_object objs[3] = {
		{ "a", &fr, 1 }, { "b", &fr, 1 }, { "c", &fr, 1 },
	};
	nobjects = data[0] & 32 ? 0 : 3;
	struct collect_qemu_opts o = {
		.objects = objs,
		.nobjects = nobjects,
		.mapped = mapped,
		.max_insns = data[0] & 8 ? 100 : 0,
		/* WINDOW messages are read only from a tracer asked for windows */
		.window_records = data[0] & 64 ? 1000 : 0,
		.sink = sink,
		.ctx = &c,
		.started = started,
		.block = block,
	};
	struct collect_qemu_stats st;
	char err[512];
	collect_qemu_decode(data + 1, size - 1, k == 7 ? 0 : (size_t)8 << k, &o, &st, err, sizeof err);
	return 0;
}
