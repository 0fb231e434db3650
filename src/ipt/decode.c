/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel PT to instruction stream. The instructions that run from a given
 * ip until one needs trace (a "walk") are found once and cached: libipt's
 * instruction decoder walks them over a tiny synthetic trace (PSB,
 * MODE.Exec, FUP of the start, PSBEND), which gives lengths, bytes and
 * classes without a second x86 decoder. libipt's query decoder then
 * answers only the branch ending each walk and delivers the events, so
 * the hot path is a cached walk copied out plus one query: about four
 * times faster than libipt's block decoder, ten times its instruction
 * decoder (both kept, GUS_IPT_DECODER=block|insn, to compare). Errors
 * become gaps and decoding resumes at the next PSB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipt.h"
#include "ipt_internal.h"

#define OUT_CAP 4096
/* a walk stops after this many instructions and chains to the next */
#define WALK_MAX 256

/* ------------------------------------------------------------ walks --- */
/* The instructions executed from ip until the first one that needs trace
 * (inclusive): TAKEN is set inside the run where a direct branch moves
 * control; the last one's is left for the decoder to decide. */
enum wend {
	W_NONE,		/* the walk was capped or the next ip is unreadable: next_ip */
	W_COND,		/* a conditional branch to target */
	W_RET,		/* a near return (compressed or not) */
	W_JMP,		/* an indirect jump */
	W_CALL,		/* an indirect call */
	W_FAR,		/* syscall, interrupt, far transfer */
};

struct wcall {
	uint32_t idx;		/* the call's index in the walk */
	uint64_t ret;		/* its return address, for compressed returns */
};

struct walk {
	uint64_t ip;
	uint64_t next_ip;	/* W_NONE: where execution goes on */
	uint64_t target;	/* W_COND: the taken target */
	uint32_t n;
	uint8_t end;		/* enum wend: how the last instruction continues */
	uint16_t ncall;
	struct wcall *call;	/* direct and indirect near calls in the walk */
	/* the walks that followed this one last, to skip the hash lookup */
	struct walk *succ[2];
	uint64_t succ_ip[2];
	struct stream_insn insn[];
};

struct ipt_cache {
	unsigned gen;
	struct pt_image *pimg;	/* sections and callback: libipt's block and insn decoders */
	struct pt_image *wimg;	/* callback only: the walker reads what image.c mapped */
	struct ipt_reader rd;
	/* the walker: libipt's instruction decoder over wbuf */
	struct pt_insn_decoder *wdec;
	uint8_t wbuf[64];
	size_t fup_ip_off;	/* where the FUP's 8-byte ip lies in wbuf */
	struct walk **slot;	/* open addressing on ip */
	size_t cap, used;
	struct stream_insn tmp[WALK_MAX + 1];
	struct wcall tmpcall[WALK_MAX + 1];
	enum pt_insn_class tmpcls[WALK_MAX + 1];
};

static void walks_clear(struct ipt_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slot[i]);
	free(c->slot);
	c->slot = NULL;
	c->cap = c->used = 0;
}

void ipt_cache_free(struct ipt_cache *c)
{
	if (!c)
		return;
	walks_clear(c);
	if (c->wdec)
		pt_insn_free_decoder(c->wdec);
	if (c->pimg)
		pt_image_free(c->pimg);
	if (c->wimg)
		pt_image_free(c->wimg);
	free(c);
}

static inline size_t hash_ip(uint64_t ip)
{
	ip ^= ip >> 29;
	ip *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(ip ^ (ip >> 32));
}

static inline struct walk *walk_find(const struct ipt_cache *c, uint64_t ip)
{
	if (!c->cap)
		return NULL;
	size_t m = c->cap - 1;
	for (size_t i = hash_ip(ip) & m;; i = (i + 1) & m) {
		struct walk *w = c->slot[i];
		if (!w || w->ip == ip)
			return w;
	}
}

static int walk_put(struct ipt_cache *c, struct walk *w)
{
	if ((c->used + 1) * 2 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		struct walk **ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -1;
		for (size_t i = 0; i < c->cap; i++) {
			struct walk *o = c->slot[i];
			if (!o)
				continue;
			size_t j = hash_ip(o->ip) & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = o;
		}
		free(c->slot);
		c->slot = ns;
		c->cap = ncap;
	}
	size_t m = c->cap - 1, i = hash_ip(w->ip) & m;
	while (c->slot[i])
		i = (i + 1) & m;
	c->slot[i] = w;
	c->used++;
	return 0;
}

static int put_packet(struct pt_encoder *enc, struct pt_packet *p)
{
	return pt_enc_next(enc, p) < 0 ? -1 : 0;
}

/* PSB, MODE.Exec 64-bit, FUP(ip), PSBEND: tracing is on at ip, and no
 * further trace, so the instruction decoder walks until it needs some. */
static int walker_init(struct ipt_cache *c)
{
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = c->wbuf;
	cfg.end = c->wbuf + sizeof(c->wbuf);
	struct pt_encoder *enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return -1;
	struct pt_packet p;
	uint64_t off = 0, end = 0;
	int rc = 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_psb;
	rc |= put_packet(enc, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	rc |= put_packet(enc, &p);
	rc |= pt_enc_get_offset(enc, &off) < 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_fup;
	p.payload.ip.ipc = pt_ipc_full;
	p.payload.ip.ip = 0x1000;
	rc |= put_packet(enc, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_psbend;
	rc |= put_packet(enc, &p);
	rc |= pt_enc_get_offset(enc, &end) < 0;
	pt_free_encoder(enc);
	if (rc)
		return -1;
	c->fup_ip_off = (size_t)off + 1;
	cfg.end = c->wbuf + end;
	c->wdec = pt_insn_alloc_decoder(&cfg);
	if (!c->wdec)
		return -1;
	return pt_insn_set_image(c->wdec, c->wimg) < 0 ? -1 : 0;
}

static bool is_prefix(uint8_t b)
{
	return (b & 0xf0) == 0x40 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 ||
	       b == 0x65 || b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3;
}

/* the target of a relative branch (jcc, jmp, call, loop, jrcxz): its
 * displacement is the instruction's last 1 or 4 bytes */
static bool rel_target(const struct stream_insn *s, uint64_t *t)
{
	size_t i = 0;
	while (i < s->size && is_prefix(s->bytes[i]))
		i++;
	if (i >= s->size)
		return false;
	uint8_t op = s->bytes[i];
	int64_t d;
	if ((op == 0x0f && i + 1 < s->size && (s->bytes[i + 1] & 0xf0) == 0x80) || op == 0xe8 || op == 0xe9) {
		int32_t r;
		memcpy(&r, s->bytes + s->size - 4, 4);
		d = r;
	} else if ((op & 0xf0) == 0x70 || (op >= 0xe0 && op <= 0xe3) || op == 0xeb) {
		d = (int8_t)s->bytes[s->size - 1];
	} else {
		return false;
	}
	*t = s->ip + s->size + (uint64_t)d;
	return true;
}

static struct walk *walk_make(struct ipt_cache *c, uint64_t ip)
{
	uint32_t n = 0, ncall = 0;
	uint8_t end = W_NONE;
	uint64_t next_ip = 0, target = 0;
	for (int i = 0; i < 8; i++)
		c->wbuf[c->fup_ip_off + i] = (uint8_t)(ip >> (8 * i));
	int status = pt_insn_sync_set(c->wdec, 0);
	struct pt_insn in;
	while (status >= 0 && n <= WALK_MAX) {
		while (status & pts_event_pending) {
			struct pt_event ev;
			status = pt_insn_event(c->wdec, &ev, sizeof(ev));
			if (status < 0)
				break;
		}
		if (status < 0)
			break;
		status = pt_insn_next(c->wdec, &in, sizeof(in));
		/* the instruction that needs trace comes back with the error
		 * that no trace follows; an unreadable one with size 0 */
		if (in.size == 0 || in.size > STREAM_MAX_BYTES) {
			next_ip = in.ip;
			break;
		}
		struct stream_insn *s = &c->tmp[n];
		memset(s, 0, sizeof(*s));
		s->ip = in.ip;
		s->size = in.size;
		memcpy(s->bytes, in.raw, in.size);
		c->tmpcls[n] = in.iclass;
		if (n > 0 && c->tmp[n - 1].ip + c->tmp[n - 1].size != s->ip)
			c->tmp[n - 1].flags |= STREAM_TAKEN;
		n++;
		if (status < 0) {
			switch (in.iclass) {
			case ptic_cond_jump:
				end = rel_target(s, &target) ? W_COND : W_NONE;
				break;
			case ptic_return:
				end = W_RET;
				break;
			case ptic_jump:
				end = W_JMP;
				break;
			case ptic_call:
				end = W_CALL;
				break;
			default:
				end = W_FAR;
				break;
			}
			if (end == W_NONE)
				n = 0;	/* a branch we cannot follow: decode it as a gap */
		}
	}
	if (n > WALK_MAX) {
		/* capped: the extra instruction only says where it goes on */
		n = WALK_MAX;
		next_ip = c->tmp[WALK_MAX].ip;
		end = W_NONE;
		if (c->tmp[n - 1].ip + c->tmp[n - 1].size != next_ip)
			c->tmp[n - 1].flags |= STREAM_TAKEN;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (c->tmpcls[i] != ptic_call)
			continue;
		uint64_t t = 0;
		bool direct = rel_target(&c->tmp[i], &t);
		uint64_t ret = c->tmp[i].ip + c->tmp[i].size;
		/* a call to the next instruction reads the ip; it has no return */
		if (direct && t == ret)
			continue;
		c->tmpcall[ncall++] = (struct wcall){ .idx = i, .ret = ret };
	}
	struct walk *w = malloc(sizeof(*w) + n * sizeof(struct stream_insn) + ncall * sizeof(struct wcall));
	if (!w)
		return NULL;
	w->ip = ip;
	w->n = n;
	w->end = end;
	w->next_ip = next_ip;
	w->target = target;
	w->ncall = (uint16_t)ncall;
	w->succ[0] = w->succ[1] = NULL;
	w->succ_ip[0] = w->succ_ip[1] = 0;
	memcpy(w->insn, c->tmp, n * sizeof(struct stream_insn));
	w->call = (struct wcall *)(void *)&w->insn[n];
	memcpy(w->call, c->tmpcall, ncall * sizeof(struct wcall));
	if (walk_put(c, w) < 0) {
		free(w);
		return NULL;
	}
	return w;
}

static inline struct walk *walk_get(struct ipt_cache *c, uint64_t ip)
{
	struct walk *w = walk_find(c, ip);
	return w ? w : walk_make(c, ip);
}

static inline struct walk *walk_next(struct ipt_cache *c, struct walk *from, uint64_t ip)
{
	if (!from)
		return walk_get(c, ip);
	if (from->succ[0] && from->succ_ip[0] == ip)
		return from->succ[0];
	if (from->succ[1] && from->succ_ip[1] == ip)
		return from->succ[1];
	struct walk *w = walk_get(c, ip);
	int i = from->succ[0] ? 1 : 0;
	from->succ[i] = w;
	from->succ_ip[i] = ip;
	return w;
}

static struct ipt_cache *cache_get(const struct ipt_image *img, char *err, size_t errlen)
{
	struct ipt_cache *c = img->cache;
	if (c && c->gen == img->gen)
		return c;
	ipt_cache_free(c);
	/* writing through the const image: the cache is not part of its value */
	struct ipt_image *mimg = (struct ipt_image *)img;
	mimg->cache = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto fail;
	c->gen = img->gen;
	c->rd.img = img;
	c->pimg = pt_image_alloc("gus");
	c->wimg = pt_image_alloc("gus-walk");
	if (!c->pimg || pt_image_set_callback(c->pimg, ipt_image_read_cb, &c->rd) < 0 || !c->wimg ||
	    pt_image_set_callback(c->wimg, ipt_image_read_cb, &c->rd) < 0)
		goto fail;
	for (size_t i = 0; i < img->nisid; i++)
		if (pt_image_add_cached(c->pimg, img->iscache, img->isid[i], NULL) < 0)
			goto fail;
	if (walker_init(c) < 0)
		goto fail;
	mimg->cache = c;
	return c;
fail:
	ipt_cache_free(c);
	snprintf(err, errlen, "cannot set up libipt's decoder");
	return NULL;
}

/* ---------------------------------------------------------- emitter --- */
struct emitter {
	const struct ipt_decode_opts *o;
	struct ipt_stats *st;
	struct stream_insn *out;
	size_t n;
	/* out[n-1]'s TAKEN waits for the next emitted record; without one
	 * (end, gap) it becomes fallback */
	bool pending;
	bool fallback;
	uint8_t next_flags;	/* GAP / ENTRY for the next emitted record */
	bool done;		/* max_insns reached or the sink said stop */
	bool stopped;		/* the sink said stop */
	int rc;
	uint64_t last_ip;	/* last decoded instruction, for gaps */
	uint64_t last_next;	/* where it would go on without a branch */
	/* the thread of the records, from o->spans by the time the query
	 * decoder Q has seen (NULL: the other decoders, o->thread) */
	uint32_t thread;
	size_t span;		/* the next span of o->spans */
	struct pt_query_decoder *q;
};

/* the span in effect at the trace's last timestamp */
static void follow_time(struct emitter *e)
{
	uint64_t tsc;
	if (pt_qry_time(e->q, &tsc, NULL, NULL) < 0)
		return;
	const struct ipt_decode_opts *o = e->o;
	while (e->span < o->nspans && o->spans[e->span].tsc <= tsc)
		e->thread = o->spans[e->span++].thread;
}

static inline void set_thread(struct stream_insn *d, size_t k, uint32_t thread)
{
	if (thread)
		for (size_t i = 0; i < k; i++)
			d[i].thread = thread;
}

static void send(struct emitter *e, size_t k)
{
	if (!k || e->stopped)
		return;
	int rc = e->o->sink(e->o->ctx, e->out, k);
	if (rc) {
		e->rc = rc;
		e->done = e->stopped = true;
	}
}

/* no successor comes: the pending record takes its fallback */
static void settle(struct emitter *e)
{
	if (e->pending && e->n) {
		if (e->fallback)
			e->out[e->n - 1].flags |= STREAM_TAKEN;
		else
			e->out[e->n - 1].flags &= (uint8_t)~STREAM_TAKEN;
	}
	e->pending = false;
}

static void flush_all(struct emitter *e)
{
	settle(e);
	send(e, e->n);
	e->n = 0;
}

/* make room, keeping a pending record for its successor to decide */
static void make_room(struct emitter *e)
{
	if (e->pending) {
		struct stream_insn keep = e->out[e->n - 1];
		send(e, e->n - 1);
		e->out[0] = keep;
		e->n = 1;
	} else {
		send(e, e->n);
		e->n = 0;
	}
}

static inline void join(struct emitter *e, uint64_t next_ip)
{
	if (e->pending) {
		struct stream_insn *p = &e->out[e->n - 1];
		if (p->ip + p->size != next_ip)
			p->flags |= STREAM_TAKEN;
		else
			p->flags &= (uint8_t)~STREAM_TAKEN;
		e->pending = false;
	}
}

static inline bool class_taken(enum pt_insn_class c)
{
	switch (c) {
	case ptic_call:
	case ptic_return:
	case ptic_jump:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		return true;
	default:
		return false;
	}
}

/* K decoded instructions from a walk; END: the last is the block's last,
 * of class IC */
static void emit_run(struct emitter *e, const struct stream_insn *t, size_t k, bool end,
		     bool end_taken)
{
	const struct ipt_decode_opts *o = e->o;
	struct ipt_stats *st = e->st;
	if (!k)
		return;
	st->insns += k;
	e->last_ip = t[k - 1].ip;
	e->last_next = t[k - 1].ip + t[k - 1].size;
	if (e->done)
		return;
	if (e->q && e->span < o->nspans)
		follow_time(e);
	if (o->nranges == 0 && !o->max_insns && e->n + k <= OUT_CAP) {
		/* the common case, kept short */
		struct stream_insn *d = &e->out[e->n];
		join(e, t[0].ip);
		memcpy(d, t, k * sizeof(*t));
		set_thread(d, k, e->thread);
		d->flags |= e->next_flags;
		e->next_flags = 0;
		e->n += k;
		st->emitted += k;
		e->pending = true;
		if (end) {
			d[k - 1].flags &= (uint8_t)~STREAM_TAKEN;
			e->fallback = end_taken;
		} else {
			e->fallback = (d[k - 1].flags & STREAM_TAKEN) != 0;
		}
		return;
	}
	if (o->nranges == 0) {
		size_t left = k;
		const struct stream_insn *src = t;
		while (left && !e->done) {
			if (e->n == OUT_CAP)
				make_room(e);
			size_t m = OUT_CAP - e->n;
			if (m > left)
				m = left;
			if (o->max_insns && m > o->max_insns - st->emitted)
				m = (size_t)(o->max_insns - st->emitted);
			join(e, src[0].ip);
			memcpy(&e->out[e->n], src, m * sizeof(*src));
			set_thread(&e->out[e->n], m, e->thread);
			e->out[e->n].flags |= e->next_flags;
			e->next_flags = 0;
			e->n += m;
			src += m;
			left -= m;
			st->emitted += m;
			/* a run cut here: its last one is decided like a block's */
			e->pending = true;
			e->fallback = (e->out[e->n - 1].flags & STREAM_TAKEN) != 0;
			if (o->max_insns && st->emitted >= o->max_insns)
				e->done = true;
		}
		if (end && !left) {
			e->out[e->n - 1].flags &= (uint8_t)~STREAM_TAKEN;
			e->fallback = end_taken;
		}
		return;
	}
	for (size_t i = 0; i < k && !e->done; i++) {
		if (!stream_in_ranges(o->ranges, o->nranges, t[i].ip)) {
			e->next_flags |= STREAM_ENTRY;
			continue;
		}
		if (e->n == OUT_CAP)
			make_room(e);
		join(e, t[i].ip);
		struct stream_insn *s = &e->out[e->n++];
		*s = t[i];
		if (e->thread)
			s->thread = e->thread;
		s->flags = (uint8_t)((s->flags & ~STREAM_TAKEN) | e->next_flags);
		e->next_flags = 0;
		e->pending = true;
		e->fallback = (end && i == k - 1) ? end_taken : (t[i].flags & STREAM_TAKEN) != 0;
		st->emitted++;
		if (o->max_insns && st->emitted >= o->max_insns)
			e->done = true;
	}
}

static void add_gap(struct emitter *e, uint64_t offset, int error, const char *what)
{
	struct ipt_stats *st = e->st;
	st->gaps++;
	if (st->ngaps_kept < IPT_MAX_GAPS_KEPT) {
		struct ipt_gap *g = &st->gap[st->ngaps_kept++];
		g->offset = offset;
		g->ip = e->last_ip;
		g->error = error;
		snprintf(g->what, sizeof(g->what), "%s", what);
	}
	settle(e);
	e->next_flags = (uint8_t)((e->next_flags & ~STREAM_ENTRY) | STREAM_GAP);
}

/* ------------------------------------------------------ tracing state --- */
struct flow {
	bool off;		/* tracing disabled, waiting for an enable */
	uint64_t resume;	/* where an enable continues the flow without a jump */
};

static void on_event(struct emitter *e, struct flow *f, const struct pt_event *ev, uint64_t offset)
{
	switch (ev->type) {
	case ptev_enabled:
		if (ev->status_update)
			break;
		if (f->off && e->last_ip && ev->variant.enabled.ip != f->resume)
			e->next_flags |= STREAM_ENTRY;
		f->off = false;
		break;
	case ptev_disabled:
		if (ev->status_update)
			break;
		f->off = true;
		f->resume = ev->ip_suppressed ? e->last_next : ev->variant.disabled.ip;
		break;
	case ptev_async_disabled:
		f->off = true;
		f->resume = ev->variant.async_disabled.at;
		break;
	case ptev_overflow:
		e->st->overflows++;
		add_gap(e, offset, 0, "overflow");
		f->off = ev->ip_suppressed;
		f->resume = 0;
		break;
	default:
		break;
	}
}

static void set_cpu(struct pt_config *cfg, const struct ipt_cpu *cpu)
{
	if (cpu->family) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)cpu->family;
		cfg->cpu.model = (uint8_t)cpu->model;
		cfg->cpu.stepping = (uint8_t)cpu->stepping;
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->mtc_freq = (uint8_t)cpu->mtc_freq;
	cfg->nom_freq = (uint8_t)cpu->nom_freq;
	cfg->cpuid_0x15_eax = cpu->cpuid_15_eax;
	cfg->cpuid_0x15_ebx = cpu->cpuid_15_ebx;
}

/* a block's instructions from the walks starting at its ip; false when
 * they disagree with the block (the image changed under the trace) */
static bool emit_block(struct emitter *e, struct ipt_cache *c, const struct pt_block *b)
{
	uint32_t left = b->ninsn;
	uint64_t ip = b->ip;
	while (left) {
		struct walk *w = walk_get(c, ip);
		if (!w || !w->n)
			return false;
		uint32_t k = left < w->n ? left : w->n;
		left -= k;
		if (!left && w->insn[k - 1].ip != b->end_ip)
			return false;
		emit_run(e, w->insn, k, !left, class_taken(b->iclass));
		if (left) {
			if (!w->next_ip || k < w->n)
				return false;
			ip = w->next_ip;
		}
	}
	return true;
}

static uint64_t blk_offset_q(struct pt_query_decoder *d)
{
	uint64_t off = 0;
	pt_qry_get_offset(d, &off);
	return off;
}

static uint64_t blk_offset(struct pt_block_decoder *d)
{
	uint64_t off = 0;
	pt_blk_get_offset(d, &off);
	return off;
}

static int decode_blocks(const uint8_t *buf, size_t len, struct ipt_cache *c, struct emitter *e,
			 char *err, size_t errlen)
{
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	set_cpu(&cfg, &e->o->cpu);
	struct pt_block_decoder *d = pt_blk_alloc_decoder(&cfg);
	if (!d || pt_blk_set_image(d, c->pimg) < 0) {
		if (d)
			pt_blk_free_decoder(d);
		snprintf(err, errlen, "cannot allocate libipt's block decoder");
		return -1;
	}
	struct flow f = { .off = true };
	uint64_t sync = 0, prev_sync = 0;
	bool synced = false;
	int status = pt_blk_sync_forward(d);
	if (status >= 0) {
		pt_blk_get_sync_offset(d, &sync);
		e->st->skipped_bytes += sync;
		synced = true;
	}
	while (!e->done) {
		if (status >= 0) {
			while (status & pts_event_pending) {
				struct pt_event ev;
				status = pt_blk_event(d, &ev, sizeof(ev));
				if (status < 0)
					break;
				on_event(e, &f, &ev, blk_offset(d));
			}
		}
		if (status >= 0) {
			struct pt_block b;
			status = pt_blk_next(d, &b, sizeof(b));
			/* a failing block still holds the instructions it ran */
			if (b.ninsn && !emit_block(e, c, &b) && status >= 0)
				status = -pte_bad_insn;
			if (status >= 0)
				continue;
			if (!b.ninsn && b.ip)
				e->last_ip = b.ip;
		}
		if (status == -pte_eos || !synced)
			break;
		uint64_t at = blk_offset(d);
		add_gap(e, at, status, pt_errstr(pt_errcode(status)));
		f.off = true;
		f.resume = 0;
		prev_sync = sync;
		status = pt_blk_sync_forward(d);
		if (status < 0)
			break;
		pt_blk_get_sync_offset(d, &sync);
		if (sync <= prev_sync)
			break;
		if (sync > at)
			e->st->skipped_bytes += sync - at;
	}
	if (!synced)
		e->st->skipped_bytes += len;
	pt_blk_free_decoder(d);
	return 0;
}

/* The instruction decoder, one pt_insn_next per instruction: kept to
 * compare with (GUS_IPT_DECODER=insn) and as a fallback. */
static int decode_insns(const uint8_t *buf, size_t len, struct ipt_cache *c, struct emitter *e,
			char *err, size_t errlen)
{
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	set_cpu(&cfg, &e->o->cpu);
	struct pt_insn_decoder *d = pt_insn_alloc_decoder(&cfg);
	if (!d || pt_insn_set_image(d, c->pimg) < 0) {
		if (d)
			pt_insn_free_decoder(d);
		snprintf(err, errlen, "cannot allocate libipt's instruction decoder");
		return -1;
	}
	struct flow f = { .off = true };
	uint64_t sync = 0, prev_sync = 0;
	int status = pt_insn_sync_forward(d);
	if (status >= 0)
		pt_insn_get_sync_offset(d, &sync);
	while (!e->done && status != -pte_eos) {
		if (status >= 0) {
			while (status & pts_event_pending) {
				struct pt_event ev;
				status = pt_insn_event(d, &ev, sizeof(ev));
				if (status < 0)
					break;
				uint64_t off = 0;
				pt_insn_get_offset(d, &off);
				on_event(e, &f, &ev, off);
			}
		}
		if (status >= 0) {
			struct pt_insn in;
			status = pt_insn_next(d, &in, sizeof(in));
			if (status >= 0 && in.size) {
				struct stream_insn s;
				memset(&s, 0, sizeof(s));
				s.ip = in.ip;
				s.size = in.size;
				memcpy(s.bytes, in.raw, in.size);
				emit_run(e, &s, 1, true, class_taken(in.iclass));
				continue;
			}
			if (status >= 0)
				continue;
		}
		if (status == -pte_eos)
			break;
		uint64_t at = 0;
		pt_insn_get_offset(d, &at);
		add_gap(e, at, status, pt_errstr(pt_errcode(status)));
		f.off = true;
		prev_sync = sync;
		status = pt_insn_sync_forward(d);
		if (status < 0)
			break;
		pt_insn_get_sync_offset(d, &sync);
		if (sync <= prev_sync)
			break;
		if (sync > at)
			e->st->skipped_bytes += sync - at;
	}
	pt_insn_free_decoder(d);
	return 0;
}

/* ------------------------------------------------------------- flow --- */
/* The default decoder: libipt's query decoder answers the branches that
 * end each cached walk (TNT bits, TIP targets) and delivers the events,
 * which bind to instructions as libipt's own flow decoders bind them. */

#define RETSTACK 64
/* instructions followed without consuming trace before giving up: an
 * endless run of direct jumps would otherwise never end */
#define NO_TRACE_MAX (1u << 24)

struct qflow {
	struct pt_query_decoder *q;
	struct ipt_cache *c;
	struct emitter *e;
	int status;
	uint64_t ip;
	uint64_t ret[RETSTACK];
	unsigned top, depth;
	uint32_t no_trace;
};

static inline void push_calls(struct qflow *f, const struct walk *w, uint32_t k)
{
	for (uint16_t i = 0; i < w->ncall && w->call[i].idx < k; i++) {
		f->top = (f->top + 1) % RETSTACK;
		f->ret[f->top] = w->call[i].ret;
		if (f->depth < RETSTACK)
			f->depth++;
	}
}

static inline bool end_taken(const struct walk *w)
{
	return w->end != W_NONE && w->end != W_COND;
}

/* where the walk's last instruction goes, from the trace */
static int resolve(struct qflow *f, const struct walk *w)
{
	const struct stream_insn *last = &w->insn[w->n - 1];
	int taken, st;
	switch (w->end) {
	case W_NONE:
		if (++f->no_trace > NO_TRACE_MAX / WALK_MAX)
			return -pte_bad_query;
		f->ip = w->next_ip;
		return 0;
	case W_COND:
		st = pt_qry_cond_branch(f->q, &taken);
		if (st < 0)
			return st;
		f->ip = taken ? w->target : last->ip + last->size;
		break;
	case W_RET:
		/* a taken TNT bit is a compressed return */
		st = pt_qry_cond_branch(f->q, &taken);
		if (st >= 0) {
			if (!taken || !f->depth)
				return -pte_bad_retcomp;
			f->ip = f->ret[f->top];
			f->top = (f->top + RETSTACK - 1) % RETSTACK;
			f->depth--;
			break;
		}
		if (st != -pte_bad_query)
			return st;
		/* an uncompressed return */
		__attribute__((fallthrough));
	default:
		st = pt_qry_indirect_branch(f->q, &f->ip);
		if (st < 0)
			return st;
		if (st & pts_ip_suppressed)
			return -pte_noip;
		break;
	}
	f->no_trace = 0;
	f->status = st;
	return 0;
}

/* Runs until the instruction at TARGET is next (TARGET 0: never) or, with
 * AT_TRACE, until an instruction that needs trace has run: where an event
 * binds. */
static int run_to(struct qflow *f, uint64_t target, bool at_trace)
{
	for (uint32_t guard = 0; guard < NO_TRACE_MAX / WALK_MAX; guard++) {
		if (target && f->ip == target)
			return 0;
		const struct walk *w = walk_get(f->c, f->ip);
		if (!w)
			return -pte_nomem;
		if (!w->n)
			return -pte_nomap;
		uint32_t k = w->n;
		if (target)
			for (uint32_t i = 1; i < w->n; i++)
				if (w->insn[i].ip == target) {
					k = i;
					break;
				}
		if (k < w->n) {
			emit_run(f->e, w->insn, k, false, false);
			push_calls(f, w, k);
			f->ip = target;
			return 0;
		}
		emit_run(f->e, w->insn, k, true, end_taken(w));
		push_calls(f, w, k);
		if (w->end == W_NONE) {
			f->ip = w->next_ip;
			continue;
		}
		if (at_trace)
			return 0;
		int st = resolve(f, w);
		if (st < 0)
			return st;
	}
	return -pte_bad_query;
}

static int decode_flow(const uint8_t *buf, size_t len, struct ipt_cache *c, struct emitter *e,
		       char *err, size_t errlen)
{
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	set_cpu(&cfg, &e->o->cpu);
	struct qflow f = { .c = c, .e = e };
	f.q = pt_qry_alloc_decoder(&cfg);
	if (!f.q) {
		snprintf(err, errlen, "cannot allocate libipt's query decoder");
		return -1;
	}
	e->q = f.q;
	struct flow fl = { .off = true };
	uint64_t sync = 0, prev_sync = 0;
	bool on = false, have_ev = false;
	struct pt_event ev;
	struct walk *cur = NULL;
	int st = pt_qry_sync_forward(f.q, &f.ip);
	if (st < 0) {
		e->st->skipped_bytes += len;
		goto out;
	}
	pt_qry_get_sync_offset(f.q, &sync);
	e->st->skipped_bytes += sync;
	f.status = st;
	on = !(st & pts_ip_suppressed);
	while (!e->done) {
		if (!have_ev && (f.status & pts_event_pending)) {
			st = pt_qry_event(f.q, &ev, sizeof(ev));
			if (st < 0)
				goto error;
			f.status = st;
			have_ev = true;
		}
		if (have_ev) {
			have_ev = false;
			cur = NULL;
			st = 0;
			switch (ev.type) {
			case ptev_enabled:
				if (ev.status_update && on)
					break;
				if (!on && e->last_ip && ev.variant.enabled.ip != fl.resume)
					e->next_flags |= STREAM_ENTRY;
				f.ip = ev.variant.enabled.ip;
				on = true;
				break;
			case ptev_overflow:
				e->st->overflows++;
				add_gap(e, blk_offset_q(f.q), 0, "overflow");
				on = !ev.ip_suppressed;
				if (on)
					f.ip = ev.variant.overflow.ip;
				f.depth = 0;
				break;
			case ptev_disabled:
				if (ev.status_update || !on)
					break;
				st = run_to(&f, ev.ip_suppressed ? 0 : ev.variant.disabled.ip, true);
				fl.resume = ev.ip_suppressed ? e->last_next : ev.variant.disabled.ip;
				on = false;
				break;
			case ptev_async_disabled:
				if (on)
					st = run_to(&f, ev.variant.async_disabled.at, false);
				fl.resume = ev.variant.async_disabled.at;
				on = false;
				break;
			case ptev_async_branch:
				if (on) {
					st = run_to(&f, ev.variant.async_branch.from, false);
					f.ip = ev.variant.async_branch.to;
				}
				break;
			default:
				/* timing, power, paging, mode and ptwrite events
				 * change nothing in the instruction flow of a
				 * 64-bit user process */
				break;
			}
			if (st < 0)
				goto error;
			continue;
		}
		if (!on) {
			if (f.status & pts_event_pending)
				continue;
			/* tracing is off and no event says where it goes on:
			 * the next PSB+ does (after an overflow into a PSB) */
			prev_sync = sync;
			st = pt_qry_sync_forward(f.q, &f.ip);
			if (st < 0)
				break;
			pt_qry_get_sync_offset(f.q, &sync);
			if (sync <= prev_sync)
				break;
			f.status = st;
			on = !(st & pts_ip_suppressed);
			if (on && e->last_ip && f.ip != fl.resume)
				e->next_flags |= STREAM_ENTRY;
			continue;
		}
		struct walk *w = walk_next(c, cur, f.ip);
		cur = w;
		if (!w) {
			st = -pte_nomem;
			goto error;
		}
		if (!w->n) {
			e->last_ip = f.ip;
			st = -pte_nomap;
			goto error;
		}
		emit_run(e, w->insn, w->n, true, end_taken(w));
		if (w->ncall)
			push_calls(&f, w, w->n);
		st = resolve(&f, w);
		if (st < 0)
			goto error;
		continue;
error:
		cur = NULL;
		if (st == -pte_eos)
			break;
		add_gap(e, blk_offset_q(f.q), st, pt_errstr(pt_errcode(st)));
		have_ev = false;
		f.depth = 0;
		prev_sync = sync;
		uint64_t at = blk_offset_q(f.q);
		st = pt_qry_sync_forward(f.q, &f.ip);
		if (st < 0)
			break;
		pt_qry_get_sync_offset(f.q, &sync);
		if (sync <= prev_sync)
			break;
		if (sync > at)
			e->st->skipped_bytes += sync - at;
		f.status = st;
		on = !(st & pts_ip_suppressed);
	}
out:
	e->q = NULL;
	pt_qry_free_decoder(f.q);
	return 0;
}

int ipt_decode(const uint8_t *buf, size_t len, bool lost_before, const struct ipt_image *img,
	       const struct ipt_decode_opts *o, struct ipt_stats *st, char *err, size_t errlen)
{
	if (!img || !o || !o->sink || !st || (len && !buf)) {
		snprintf(err, errlen, "ipt_decode: missing image, options, sink or statistics");
		return -1;
	}
	struct ipt_cache *c = cache_get(img, err, errlen);
	if (!c)
		return -1;
	c->rd.last = 0;
	struct emitter e = { .o = o, .st = st, .thread = o->nspans ? o->spans[0].thread : o->thread,
			     .span = o->nspans ? 1 : 0 };
	e.out = malloc(OUT_CAP * sizeof(*e.out));
	if (!e.out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	st->bytes += len;
	if (lost_before)
		add_gap(&e, 0, 0, "lost data");
	int rc = 0;
	if (len) {
		const char *mode = getenv("GUS_IPT_DECODER");
		if (mode && !strcmp(mode, "insn"))
			rc = decode_insns(buf, len, c, &e, err, errlen);
		else if (mode && !strcmp(mode, "block"))
			rc = decode_blocks(buf, len, c, &e, err, errlen);
		else
			rc = decode_flow(buf, len, c, &e, err, errlen);
	}
	flush_all(&e);
	free(e.out);
	if (rc)
		return rc;
	return e.rc;
}
