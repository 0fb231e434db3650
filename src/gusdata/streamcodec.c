/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stored form of an instruction stream (gus.data trace_chunks).
 * A hot loop repeats a few instructions millions of times, so a record
 * says only what differs from what came before: its address when control
 * did not fall through, its bytes the first time the chunk sees it, and
 * its data addresses as deltas from the previous access of the same slot
 * (a loop's accesses stride). Each chunk decodes on its own. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gusdata.h"

enum {
	/* low four bits: enum stream_flags as they are */
	REC_IP = 1u << 4,	/* a zigzag varint delta from the fall-through address follows */
	REC_CODE = 1u << 5,	/* size and bytes follow: first sight of this address */
	/* a varint follows the header: thread << 1 | a window starts here,
	 * then for a window its tag (stream.h); written when the thread
	 * differs from the previous record's (0 at the start of a chunk) or a
	 * window starts (chunks of gus before threads and windows never have
	 * it) */
	REC_META = 1u << 6,
	REC_FLAGS = 0x0f,
};

#define CODE_HASH_BITS 16

struct code_seen {
	uint64_t *ip;		/* open addressing; 0 = empty (no code at address 0) */
	uint8_t (*bytes)[16];
	uint8_t *size;
	size_t mask;
	unsigned bits;
};

/* The encoder's table has 2^CODE_HASH_BITS slots; when it is full, code
 * is written again. The decoder only has to find again what it was
 * given, so a table with room for every distinct address the chunk can
 * hold (each costs a record and two bytes) decodes the same: a small
 * chunk needs no 1.7 MB of tables. */
static int code_seen_init(struct code_seen *c, unsigned bits)
{
	size_t n = (size_t)1 << bits;
	c->bits = bits;
	c->mask = n - 1;
	c->ip = calloc(n, sizeof(*c->ip));
	c->bytes = malloc(n * sizeof(*c->bytes));
	c->size = malloc(n);
	return c->ip && c->bytes && c->size ? 0 : -1;
}

static void code_seen_free(struct code_seen *c)
{
	free(c->ip);
	free(c->bytes);
	free(c->size);
}

/* the slot of IP, or of the empty place where it goes; -1 when full */
static long code_slot(const struct code_seen *c, uint64_t ip)
{
	size_t h = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - c->bits)) & c->mask;
	for (size_t k = 0; k <= c->mask; k++) {
		size_t i = (h + k) & c->mask;
		if (c->ip[i] == ip || c->ip[i] == 0)
			return (long)i;
	}
	return -1;
}

struct outbuf {
	uint8_t *p;
	size_t n, cap;
};

static int put(struct outbuf *o, const void *src, size_t n)
{
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		while (cap < o->n + n)
			cap *= 2;
		uint8_t *p = realloc(o->p, cap);
		if (!p)
			return -1;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->n, src, n);
	o->n += n;
	return 0;
}

static int put_varint(struct outbuf *o, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	uint8_t b[10];
	size_t n = 0;
	do {
		b[n] = (uint8_t)(z & 0x7f);
		z >>= 7;
		if (z)
			b[n] |= 0x80;
		n++;
	} while (z);
	return put(o, b, n);
}

int gusdata_trace_encode(const struct stream_insn *v, size_t n, uint8_t **out, size_t *outlen)
{
	struct code_seen seen;
	struct outbuf o = { 0 };
	uint64_t next = 0, last_mem[STREAM_MAX_MEM] = { 0 };
	uint32_t thread = 0;
	int rc = -1;
	*out = NULL;
	*outlen = 0;
	if (code_seen_init(&seen, CODE_HASH_BITS))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct stream_insn *r = &v[i];
		if (r->size == 0 || r->size > STREAM_MAX_BYTES || r->nmem > STREAM_MAX_MEM || r->ip == 0)
			goto out;
		long slot = code_slot(&seen, r->ip);
		bool fresh = slot < 0 || seen.ip[slot] != r->ip || seen.size[slot] != r->size ||
			     memcmp(seen.bytes[slot], r->bytes, r->size);
		uint8_t h = (uint8_t)(r->flags & REC_FLAGS);
		if (r->ip != next)
			h |= REC_IP;
		if (fresh)
			h |= REC_CODE;
		bool window = (r->flags & STREAM_WINDOW) != 0;
		if (r->thread != thread || window)
			h |= REC_META;
		if (put(&o, &h, 1))
			goto out;
		if ((h & REC_META) && put_varint(&o, (int64_t)((uint64_t)r->thread << 1 | window)))
			goto out;
		if (window && put_varint(&o, (int64_t)r->window))
			goto out;
		thread = r->thread;
		if ((h & REC_IP) && put_varint(&o, (int64_t)(r->ip - next)))
			goto out;
		if (fresh) {
			if (put(&o, &r->size, 1) || put(&o, r->bytes, r->size))
				goto out;
			/* a full table (a chunk over 64 K distinct addresses) just repeats bytes */
			if (slot >= 0) {
				seen.ip[slot] = r->ip;
				seen.size[slot] = r->size;
				memcpy(seen.bytes[slot], r->bytes, r->size);
			}
		}
		if (r->flags & STREAM_HAS_MEM) {
			uint8_t m = (uint8_t)(r->nmem | (r->store_mask & 0x0f) << 4);
			if (put(&o, &m, 1))
				goto out;
			for (unsigned k = 0; k < r->nmem; k++) {
				if (put_varint(&o, (int64_t)(r->mem[k] - last_mem[k])))
					goto out;
				last_mem[k] = r->mem[k];
			}
		}
		next = r->ip + r->size;
	}
	*out = o.p ? o.p : malloc(1);
	*outlen = o.n;
	o.p = NULL;
	rc = *out ? 0 : -1;
out:
	free(o.p);
	code_seen_free(&seen);
	return rc;
}

static bool get_varint(const uint8_t *p, size_t len, size_t *at, int64_t *v)
{
	uint64_t z = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return false;
		uint8_t b = p[(*at)++];
		z |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
			return true;
		}
	}
	return false;
}

int gusdata_trace_decode(const uint8_t *p, size_t len, uint64_t records, stream_sink sink, void *ctx)
{
	enum { BATCH = 4096 };
	struct code_seen seen;
	/* distinct addresses: at most a record each, two bytes each */
	uint64_t distinct = records < len / 2 ? records : len / 2;
	unsigned bits = 4;
	while (bits < CODE_HASH_BITS && ((uint64_t)1 << bits) < 2 * distinct + 1)
		bits++;
	size_t nbatch = records < BATCH ? (size_t)records + 1 : BATCH;
	struct stream_insn *batch = malloc(nbatch * sizeof(*batch));
	uint64_t next = 0, last_mem[STREAM_MAX_MEM] = { 0 };
	uint32_t thread = 0;
	size_t at = 0, nb = 0;
	int rc = -1;
	if (!batch || code_seen_init(&seen, bits)) {
		free(batch);
		return -1;
	}
	for (uint64_t i = 0; i < records; i++) {
		struct stream_insn *r = &batch[nb];
		memset(r, 0, sizeof(*r));
		if (at >= len)
			goto out;
		uint8_t h = p[at++];
		if (h & ~(REC_FLAGS | REC_IP | REC_CODE | REC_META))
			goto out;
		r->flags = h & REC_FLAGS;
		if (h & REC_META) {
			int64_t m;
			if (!get_varint(p, len, &at, &m) || (uint64_t)m >> 33)
				goto out;
			thread = (uint32_t)((uint64_t)m >> 1);
			if (m & 1) {
				int64_t tag;
				if (!get_varint(p, len, &at, &tag) || tag <= 0 || tag > UINT32_MAX)
					goto out;
				r->flags |= STREAM_WINDOW;
				r->window = (uint32_t)tag;
			}
		}
		r->thread = thread;
		r->ip = next;
		if (h & REC_IP) {
			int64_t d;
			if (!get_varint(p, len, &at, &d))
				goto out;
			r->ip = next + (uint64_t)d;
		}
		/* address 0 marks an empty slot; the encoder never writes it */
		if (r->ip == 0)
			goto out;
		long slot = code_slot(&seen, r->ip);
		if (h & REC_CODE) {
			if (at >= len || p[at] == 0 || p[at] > STREAM_MAX_BYTES || at + 1 + p[at] > len)
				goto out;
			r->size = p[at++];
			memcpy(r->bytes, p + at, r->size);
			at += r->size;
			if (slot >= 0) {
				seen.ip[slot] = r->ip;
				seen.size[slot] = r->size;
				memcpy(seen.bytes[slot], r->bytes, r->size);
			}
		} else {
			if (slot < 0 || seen.ip[slot] != r->ip)
				goto out;
			r->size = seen.size[slot];
			memcpy(r->bytes, seen.bytes[slot], r->size);
		}
		if (h & STREAM_HAS_MEM) {
			if (at >= len)
				goto out;
			uint8_t m = p[at++];
			r->nmem = m & 0x0f;
			r->store_mask = m >> 4;
			if (r->nmem > STREAM_MAX_MEM)
				goto out;
			for (unsigned k = 0; k < r->nmem; k++) {
				int64_t d;
				if (!get_varint(p, len, &at, &d))
					goto out;
				r->mem[k] = last_mem[k] + (uint64_t)d;
				last_mem[k] = r->mem[k];
			}
		}
		next = r->ip + r->size;
		if (++nb == nbatch) {
			if ((rc = sink(ctx, batch, nb)))
				goto done;
			nb = 0;
		}
	}
	if (at != len)
		goto out;
	rc = nb ? sink(ctx, batch, nb) : 0;
	goto done;
out:
	rc = -1;
done:
	free(batch);
	code_seen_free(&seen);
	return rc;
}
