/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PT synthesis: the packets a processor tracing user space with
 * uncompressed returns (no timing packets) would write for a given
 * execution, through libipt's encoder. Each instruction's packets depend
 * on where the next one is, so one instruction is held back. */
#include <Zydis/Zydis.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "pt_synth.h"

#define CHUNK (64 * 1024)

enum cls { C_OTHER, C_COND, C_JMP, C_CALL, C_IND, C_RET, C_FAR };

struct info {
	uint64_t ip;
	uint64_t target;	/* direct branches */
	uint8_t cls;
	bool rep;
	bool used;
};

struct pt_synth {
	struct pt_encoder *enc;
	uint8_t chunk[CHUNK];
	uint8_t *out;
	size_t len, cap;
	size_t psb_period;
	uint64_t last_psb;
	uint64_t last_ip;
	bool have_last_ip;
	uint64_t tnt;
	unsigned ntnt;
	bool started, failed;
	struct stream_insn prev;
	bool have_prev;
	uint64_t count;
	struct pt_synth_psb *psb;
	size_t npsb, cappsb;
	ZydisDecoder zd;
	struct info *tab;	/* open addressing on ip */
	size_t tabcap, tabused;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 1024;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static uint64_t offset(const struct pt_synth *s)
{
	uint64_t off = 0;
	pt_enc_get_offset(s->enc, &off);
	return s->len + off;
}

/* moves the encoded bytes out when the chunk is nearly full */
static void drain(struct pt_synth *s, bool all)
{
	uint64_t off = 0;
	pt_enc_get_offset(s->enc, &off);
	if (!all && off < CHUNK - 256)
		return;
	if (grow((void **)&s->out, &s->cap, s->len + off, 1) < 0) {
		s->failed = true;
		return;
	}
	memcpy(s->out + s->len, s->chunk, off);
	s->len += off;
	pt_enc_sync_set(s->enc, 0);
}

static void put(struct pt_synth *s, struct pt_packet *p)
{
	drain(s, false);
	if (pt_enc_next(s->enc, p) < 0)
		s->failed = true;
}

static void put_type(struct pt_synth *s, enum pt_packet_type t)
{
	struct pt_packet p;
	memset(&p, 0, sizeof(p));
	p.type = t;
	put(s, &p);
}

static void put_mode(struct pt_synth *s)
{
	struct pt_packet p;
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	put(s, &p);
}

/* IP packets are compressed against the last IP, as hardware does */
static void put_ip(struct pt_synth *s, enum pt_packet_type t, uint64_t ip, bool suppressed)
{
	struct pt_packet p;
	memset(&p, 0, sizeof(p));
	p.type = t;
	p.payload.ip.ip = ip;
	if (suppressed) {
		p.payload.ip.ipc = pt_ipc_suppressed;
	} else if (!s->have_last_ip) {
		p.payload.ip.ipc = (ip >> 47 == 0) ? pt_ipc_sext_48 : pt_ipc_full;
	} else if (ip >> 16 == s->last_ip >> 16) {
		p.payload.ip.ipc = pt_ipc_update_16;
	} else if (ip >> 32 == s->last_ip >> 32) {
		p.payload.ip.ipc = pt_ipc_update_32;
	} else if (ip >> 48 == s->last_ip >> 48) {
		p.payload.ip.ipc = pt_ipc_update_48;
	} else {
		p.payload.ip.ipc = pt_ipc_full;
	}
	if (!suppressed) {
		s->last_ip = ip;
		s->have_last_ip = true;
	}
	put(s, &p);
}

static void flush_tnt(struct pt_synth *s)
{
	if (!s->ntnt)
		return;
	struct pt_packet p;
	memset(&p, 0, sizeof(p));
	p.type = s->ntnt <= 6 ? ppt_tnt_8 : ppt_tnt_64;
	p.payload.tnt.bit_size = (uint8_t)s->ntnt;
	p.payload.tnt.payload = s->tnt;
	put(s, &p);
	s->tnt = 0;
	s->ntnt = 0;
}

/* the oldest branch is the most significant bit */
static void add_tnt(struct pt_synth *s, bool taken)
{
	s->tnt = (s->tnt << 1) | (taken ? 1 : 0);
	if (++s->ntnt == 47)
		flush_tnt(s);
}

/* PSB+; with tracing on, its FUP says where execution is */
static void put_psb(struct pt_synth *s, bool on, uint64_t ip, uint64_t index)
{
	flush_tnt(s);
	if (grow((void **)&s->psb, &s->cappsb, s->npsb + 1, sizeof(*s->psb)) < 0) {
		s->failed = true;
		return;
	}
	drain(s, false);
	s->psb[s->npsb++] = (struct pt_synth_psb){ .offset = offset(s), .index = index };
	s->last_psb = offset(s);
	put_type(s, ppt_psb);
	s->have_last_ip = false;
	put_mode(s);
	if (on)
		put_ip(s, ppt_fup, ip, false);
	put_type(s, ppt_psbend);
}

struct pt_synth *pt_synth_new(size_t psb_period)
{
	struct pt_synth *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->psb_period = psb_period ? psb_period : 4096;
	struct pt_config cfg;
	pt_config_init(&cfg);
	cfg.begin = s->chunk;
	cfg.end = s->chunk + CHUNK;
	s->enc = pt_alloc_encoder(&cfg);
	if (!s->enc || ZYAN_FAILED(ZydisDecoderInit(&s->zd, ZYDIS_MACHINE_MODE_LONG_64,
						    ZYDIS_STACK_WIDTH_64))) {
		pt_synth_free(s);
		return NULL;
	}
	return s;
}

void pt_synth_free(struct pt_synth *s)
{
	if (!s)
		return;
	if (s->enc)
		pt_free_encoder(s->enc);
	free(s->out);
	free(s->psb);
	free(s->tab);
	free(s);
}

static size_t hash_ip(uint64_t ip)
{
	ip ^= ip >> 31;
	ip *= 0x9e3779b97f4a7c15ull;
	return (size_t)(ip ^ (ip >> 29));
}

static struct info *classify(struct pt_synth *s, const struct stream_insn *v)
{
	if ((s->tabused + 1) * 2 > s->tabcap) {
		size_t ncap = s->tabcap ? s->tabcap * 2 : 4096;
		struct info *nt = calloc(ncap, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t i = 0; i < s->tabcap; i++) {
			if (!s->tab[i].used)
				continue;
			size_t j = hash_ip(s->tab[i].ip) & (ncap - 1);
			while (nt[j].used)
				j = (j + 1) & (ncap - 1);
			nt[j] = s->tab[i];
		}
		free(s->tab);
		s->tab = nt;
		s->tabcap = ncap;
	}
	size_t m = s->tabcap - 1, i = hash_ip(v->ip) & m;
	while (s->tab[i].used) {
		if (s->tab[i].ip == v->ip)
			return &s->tab[i];
		i = (i + 1) & m;
	}
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&s->zd, v->bytes, v->size, &in, op)))
		return NULL;
	struct info *f = &s->tab[i];
	memset(f, 0, sizeof(*f));
	f->ip = v->ip;
	f->used = true;
	s->tabused++;
	f->rep = (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				   ZYDIS_ATTRIB_HAS_REPNE)) != 0;
	bool direct = in.operand_count_visible > 0 && op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		      op[0].imm.is_relative;
	bool far = in.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
	ZyanU64 t = 0;
	if (direct && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], v->ip, &t)))
		f->target = t;
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		f->cls = C_COND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		f->cls = far ? C_FAR : direct ? C_JMP : C_IND;
		break;
	case ZYDIS_CATEGORY_CALL:
		f->cls = far ? C_FAR : direct ? C_CALL : C_IND;
		break;
	case ZYDIS_CATEGORY_RET:
		f->cls = far ? C_FAR : C_RET;
		break;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSRET:
		f->cls = C_FAR;
		break;
	default:
		f->cls = in.mnemonic == ZYDIS_MNEMONIC_IRET || in.mnemonic == ZYDIS_MNEMONIC_IRETD ||
				 in.mnemonic == ZYDIS_MNEMONIC_IRETQ ?
			 C_FAR :
			 C_OTHER;
		break;
	}
	return f;
}

static bool needs_trace(int cls)
{
	return cls == C_COND || cls == C_IND || cls == C_RET || cls == C_FAR;
}

/* the packets for P given that N runs next (NULL: the trace ends) */
static void step(struct pt_synth *s, const struct stream_insn *p, const struct info *f,
		 const struct stream_insn *n)
{
	uint64_t fall = p->ip + p->size;
	if (!n) {
		flush_tnt(s);
		if (needs_trace(f->cls)) {
			/* binds to P itself */
			put_ip(s, ppt_tip_pgd, 0, true);
		} else {
			put_ip(s, ppt_fup, f->cls == C_OTHER ? fall : f->target, false);
			put_ip(s, ppt_tip_pgd, 0, true);
		}
		return;
	}
	bool entry = (n->flags & STREAM_ENTRY) != 0;
	bool done = false;
	if (!entry) {
		switch (f->cls) {
		case C_OTHER:
			done = n->ip == fall;
			break;
		case C_COND:
			if (n->ip == fall || n->ip == f->target) {
				add_tnt(s, n->ip != fall);
				done = true;
			}
			break;
		case C_JMP:
		case C_CALL:
			done = n->ip == f->target;
			break;
		case C_IND:
		case C_RET:
			flush_tnt(s);
			put_ip(s, ppt_tip, n->ip, false);
			done = true;
			break;
		default:
			break;
		}
	}
	if (!done) {
		/* left the traced code: disable, enable where it comes back */
		flush_tnt(s);
		if (needs_trace(f->cls)) {
			if (!entry && n->ip == fall)
				put_ip(s, ppt_tip_pgd, 0, true);
			else
				put_ip(s, ppt_tip_pgd, n->ip != fall ? fall : fall + 1, false);
		} else {
			put_ip(s, ppt_tip_pgd, f->cls == C_OTHER ? fall : f->target, false);
		}
		put_mode(s);
		put_ip(s, ppt_tip_pge, n->ip, false);
	}
	if (offset(s) - s->last_psb >= s->psb_period)
		put_psb(s, true, n->ip, s->count);
}

int pt_synth_add(struct pt_synth *s, const struct stream_insn *v, size_t n)
{
	for (size_t i = 0; i < n && !s->failed; i++) {
		const struct stream_insn *r = &v[i];
		if (!s->started) {
			put_psb(s, false, 0, 0);
			put_mode(s);
			put_ip(s, ppt_tip_pge, r->ip, false);
			s->started = true;
		} else {
			struct info *f = classify(s, &s->prev);
			if (!f)
				return -1;
			if (f->rep && r->ip == s->prev.ip && !(r->flags & STREAM_ENTRY))
				continue;
			step(s, &s->prev, f, r);
		}
		s->prev = *r;
		s->have_prev = true;
		s->count++;
	}
	return s->failed ? -1 : 0;
}

int pt_synth_tsc(struct pt_synth *s, uint64_t tsc)
{
	if (!s->started)
		return -1;
	flush_tnt(s);
	struct pt_packet p;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = tsc;
	put(s, &p);
	return s->failed ? -1 : 0;
}

int pt_synth_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	return pt_synth_add(ctx, v, n) < 0 ? -1 : 0;
}

int pt_synth_finish(struct pt_synth *s, uint8_t **buf, size_t *len)
{
	if (s->have_prev) {
		struct info *f = classify(s, &s->prev);
		if (!f)
			return -1;
		step(s, &s->prev, f, NULL);
	}
	drain(s, true);
	if (s->failed)
		return -1;
	*buf = s->out;
	*len = s->len;
	s->out = NULL;
	s->len = s->cap = 0;
	return 0;
}

const struct pt_synth_psb *pt_synth_psbs(const struct pt_synth *s, size_t *n)
{
	*n = s->npsb;
	return s->psb;
}

uint64_t pt_synth_count(const struct pt_synth *s)
{
	return s->count;
}

/* ---------------------------------------------------------- damage --- */
void pt_synth_corrupt(uint8_t *buf, size_t len, size_t off, size_t n)
{
	/* 0x02 0x00: an extended opcode libipt does not know */
	for (size_t i = 0; i < n && off + i < len; i++)
		buf[off + i] = (i % 2) ? 0x00 : 0x02;
}

void pt_synth_overflow(uint8_t *buf, size_t len, size_t from, size_t to, uint64_t ip)
{
	if (to > len || from + 11 > to)
		return;
	/* PADs, then OVF and the FUP of where tracing goes on */
	memset(buf + from, 0, to - from - 11);
	uint8_t *p = buf + to - 11;
	p[0] = 0x02;
	p[1] = 0xf3;
	p[2] = 0xdd;	/* FUP, 8-byte IP */
	for (int i = 0; i < 8; i++)
		p[3 + i] = (uint8_t)(ip >> (8 * i));
}

/* --------------------------------------------------------- program --- */
enum pk { K_FILL, K_JCC, K_LOOP, K_JMP, K_CALL, K_ICALL, K_SWITCH, K_RET, K_SYSCALL, K_RARE };

struct pinsn {
	uint64_t addr;
	uint8_t size, kind;
	uint32_t target;	/* instruction index: jcc/jmp target, called function's entry */
	uint32_t ncase, first_case;	/* switch: cases[first_case ..] */
};

struct pt_synth_prog {
	uint64_t base;
	uint8_t *code;
	size_t size, cap;
	struct pinsn *in;
	size_t n, capn;
	uint32_t *cases;
	size_t ncases, capcases;
	uint32_t *entry;	/* per function: index of its first instruction */
	unsigned nfuncs;
	uint64_t rng;
	/* fixups: instruction index whose rel32/rel8 points at another index */
	struct fix {
		uint32_t at, to;
	} *fix;
	size_t nfix, capfix;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

static const struct {
	uint8_t n;
	uint8_t b[10];
} fillers[] = {
	{ 1, { 0x90 } },					/* nop */
	{ 3, { 0x48, 0x01, 0xd8 } },				/* add rax, rbx */
	{ 3, { 0x48, 0x89, 0xc1 } },				/* mov rcx, rax */
	{ 5, { 0xb8, 0x01, 0x00, 0x00, 0x00 } },		/* mov eax, 1 */
	{ 5, { 0x48, 0x8d, 0x44, 0x8b, 0x10 } },		/* lea rax, [rbx+rcx*4+16] */
	{ 5, { 0x48, 0x8b, 0x44, 0x24, 0x08 } },		/* mov rax, [rsp+8] */
	{ 7, { 0x48, 0x69, 0xc0, 0x39, 0x30, 0x00, 0x00 } },	/* imul rax, rax, 12345 */
	{ 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 } },		/* nopw */
	{ 10, { 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8 } },		/* movabs rax, imm64 */
	{ 4, { 0xc5, 0xf8, 0x58, 0xc1 } },			/* vaddps xmm0, xmm0, xmm1 */
	{ 3, { 0x0f, 0xaf, 0xc3 } },				/* imul eax, ebx */
	{ 2, { 0x31, 0xc0 } },					/* xor eax, eax */
	{ 3, { 0x48, 0x89, 0x07 } },				/* mov [rdi], rax */
};

static int emit(struct pt_synth_prog *p, const uint8_t *b, uint8_t n, uint8_t kind, uint32_t target)
{
	if (grow((void **)&p->code, &p->cap, p->size + n, 1) < 0 ||
	    grow((void **)&p->in, &p->capn, p->n + 1, sizeof(*p->in)) < 0)
		return -1;
	memcpy(p->code + p->size, b, n);
	p->in[p->n] = (struct pinsn){ .addr = p->base + p->size, .size = n, .kind = kind, .target = target };
	p->size += n;
	p->n++;
	return 0;
}

static int fill(struct pt_synth_prog *p, unsigned k)
{
	for (unsigned i = 0; i < k; i++) {
		size_t f = rnd(&p->rng) % (sizeof(fillers) / sizeof(fillers[0]));
		if (emit(p, fillers[f].b, fillers[f].n, K_FILL, 0) < 0)
			return -1;
	}
	return 0;
}

static int add_fix(struct pt_synth_prog *p, uint32_t at, uint32_t to)
{
	if (grow((void **)&p->fix, &p->capfix, p->nfix + 1, sizeof(*p->fix)) < 0)
		return -1;
	p->fix[p->nfix++] = (struct fix){ at, to };
	return 0;
}

static const uint8_t jcc32[6] = { 0x0f, 0x85, 0, 0, 0, 0 };
static const uint8_t jmp32[5] = { 0xe9, 0, 0, 0, 0 };
static const uint8_t call32[5] = { 0xe8, 0, 0, 0, 0 };

/* one function's body; functions only call later ones, so calls nest at
 * most nfuncs deep */
static int gen_func(struct pt_synth_prog *p, unsigned f)
{
	p->entry[f] = (uint32_t)p->n;
	unsigned nseg = 3 + (unsigned)(rnd(&p->rng) % 6);
	for (unsigned sgi = 0; sgi < nseg; sgi++) {
		unsigned kind = (unsigned)(rnd(&p->rng) % 6);
		bool leaf = f + 1 >= p->nfuncs;
		if (leaf && (kind == 3 || kind == 4))
			kind = 1;
		switch (kind) {
		case 0:
			if (fill(p, 1 + (unsigned)(rnd(&p->rng) % 6)) < 0)
				return -1;
			break;
		case 1: {
			/* if: jcc over the then-part; rel8 or rel32 at random */
			uint32_t j = (uint32_t)p->n;
			bool short_form = rnd(&p->rng) & 1;
			uint8_t b8[2] = { (uint8_t)(0x70 + rnd(&p->rng) % 16), 0 };
			if ((short_form ? emit(p, b8, 2, K_JCC, 0) : emit(p, jcc32, 6, K_JCC, 0)) < 0 ||
			    fill(p, 1 + (unsigned)(rnd(&p->rng) % 4)) < 0)
				return -1;
			if (add_fix(p, j, (uint32_t)p->n) < 0)
				return -1;
			p->in[j].target = (uint32_t)p->n;
			break;
		}
		case 2: {
			/* loop: body, then a backward jcc */
			uint32_t top = (uint32_t)p->n;
			if (fill(p, 1 + (unsigned)(rnd(&p->rng) % 5)) < 0)
				return -1;
			uint32_t j = (uint32_t)p->n;
			if (emit(p, jcc32, 6, K_LOOP, top) < 0 || add_fix(p, j, top) < 0)
				return -1;
			break;
		}
		case 3: {
			unsigned callee = f + 1 + (unsigned)(rnd(&p->rng) % (p->nfuncs - f - 1));
			uint32_t j = (uint32_t)p->n;
			if (emit(p, call32, 5, K_CALL, callee) < 0)
				return -1;
			p->in[j].ncase = callee;
			break;
		}
		case 4: {
			static const uint8_t call_rax[2] = { 0xff, 0xd0 };
			if (fill(p, 1) < 0 || emit(p, call_rax, 2, K_ICALL, f) < 0)
				return -1;
			break;
		}
		case 5: {
			/* jmp [rax*8+table]; cases each jump to the join */
			static const uint8_t jtab[7] = { 0xff, 0x24, 0xc5, 0x00, 0x10, 0x00, 0x00 };
			uint32_t sw = (uint32_t)p->n;
			if (emit(p, jtab, 7, K_SWITCH, 0) < 0)
				return -1;
			uint32_t nc = 3 + (uint32_t)(rnd(&p->rng) % 6);
			uint32_t first = (uint32_t)p->ncases;
			uint32_t jumps[8];
			for (uint32_t c = 0; c < nc; c++) {
				if (grow((void **)&p->cases, &p->capcases, p->ncases + 1, sizeof(uint32_t)) < 0)
					return -1;
				p->cases[p->ncases++] = (uint32_t)p->n;
				if (fill(p, 1 + (unsigned)(rnd(&p->rng) % 3)) < 0)
					return -1;
				jumps[c] = (uint32_t)p->n;
				if (emit(p, jmp32, 5, K_JMP, 0) < 0)
					return -1;
			}
			for (uint32_t c = 0; c < nc; c++) {
				p->in[jumps[c]].target = (uint32_t)p->n;
				if (add_fix(p, jumps[c], (uint32_t)p->n) < 0)
					return -1;
			}
			p->in[sw].ncase = nc;
			p->in[sw].first_case = first;
			/* the join needs an instruction of its own */
			if (fill(p, 1) < 0)
				return -1;
			break;
		}
		}
	}
	if (f == 0) {
		/* main calls into the rest for sure */
		static const uint8_t call_rax[2] = { 0xff, 0xd0 };
		for (unsigned i = 0; i < 3; i++) {
			uint32_t j = (uint32_t)p->n;
			unsigned callee = 1 + (unsigned)(rnd(&p->rng) % (p->nfuncs - 1));
			if (emit(p, call32, 5, K_CALL, callee) < 0)
				return -1;
			p->in[j].ncase = callee;
		}
		if (emit(p, call_rax, 2, K_ICALL, 0) < 0)
			return -1;
		/* a system call every 64 rounds or so: jcc over it */
		static const uint8_t sys[2] = { 0x0f, 0x05 };
		uint32_t j = (uint32_t)p->n;
		if (emit(p, jcc32, 6, K_RARE, 0) < 0 || emit(p, sys, 2, K_SYSCALL, 0) < 0 || fill(p, 1) < 0)
			return -1;
		p->in[j].target = j + 2;
		if (add_fix(p, j, j + 2) < 0)
			return -1;
		j = (uint32_t)p->n;
		if (emit(p, jmp32, 5, K_JMP, p->entry[0]) < 0 || add_fix(p, j, p->entry[0]) < 0)
			return -1;
	} else {
		static const uint8_t ret = 0xc3;
		if (emit(p, &ret, 1, K_RET, 0) < 0)
			return -1;
	}
	return 0;
}

struct pt_synth_prog *pt_synth_prog_new(uint64_t base, unsigned nfuncs, uint64_t seed)
{
	struct pt_synth_prog *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->base = base;
	p->nfuncs = nfuncs < 2 ? 2 : nfuncs;
	p->rng = seed ? seed : 0x1234567;
	p->entry = calloc(p->nfuncs, sizeof(*p->entry));
	if (!p->entry)
		goto fail;
	for (unsigned f = 0; f < p->nfuncs; f++)
		if (gen_func(p, f) < 0)
			goto fail;
	for (size_t i = 0; i < p->n; i++)
		if (p->in[i].kind == K_CALL)
			p->in[i].target = p->entry[p->in[i].ncase];
	for (size_t i = 0; i < p->n; i++) {
		struct pinsn *in = &p->in[i];
		if (in->kind == K_CALL && add_fix(p, (uint32_t)i, in->target) < 0)
			goto fail;
	}
	for (size_t i = 0; i < p->nfix; i++) {
		struct pinsn *at = &p->in[p->fix[i].at];
		int64_t rel = (int64_t)(p->in[p->fix[i].to].addr - (at->addr + at->size));
		uint8_t *b = p->code + (at->addr - p->base);
		if (at->size == 2) {
			b[1] = (uint8_t)(int8_t)rel;
			if (rel < -128 || rel > 127)
				goto fail;
		} else {
			int32_t r = (int32_t)rel;
			memcpy(b + at->size - 4, &r, 4);
		}
	}
	return p;
fail:
	pt_synth_prog_free(p);
	return NULL;
}

void pt_synth_prog_free(struct pt_synth_prog *p)
{
	if (!p)
		return;
	free(p->code);
	free(p->in);
	free(p->cases);
	free(p->entry);
	free(p->fix);
	free(p);
}

const uint8_t *pt_synth_prog_code(const struct pt_synth_prog *p, size_t *size)
{
	*size = p->size;
	return p->code;
}

int pt_synth_prog_run(struct pt_synth_prog *p, uint64_t n, stream_sink sink, void *ctx)
{
	enum { BATCH = 4096 };
	struct stream_insn *out = calloc(BATCH, sizeof(*out));
	uint32_t *stack = calloc(p->nfuncs + 1, sizeof(*stack));
	if (!out || !stack) {
		free(out);
		free(stack);
		return -1;
	}
	size_t k = 0, depth = 0;
	uint32_t pc = p->entry[0];
	int rc = 0;
	for (uint64_t done = 0; done < n && !rc; done++) {
		const struct pinsn *in = &p->in[pc];
		struct stream_insn *s = &out[k++];
		s->ip = in->addr;
		s->size = in->size;
		s->flags = 0;
		memcpy(s->bytes, p->code + (in->addr - p->base), in->size);
		uint32_t next = pc + 1;
		uint64_t r = rnd(&p->rng);
		switch (in->kind) {
		case K_JCC:
			/* biased per site, random per execution */
			if ((r & 255) < ((in->addr * 37) & 255))
				next = in->target;
			break;
		case K_LOOP:
			if (r % 8)
				next = in->target;
			break;
		case K_RARE:
			if (r % 64)
				next = in->target;
			break;
		case K_JMP:
			next = in->target;
			break;
		case K_CALL:
			stack[depth++] = pc + 1;
			next = in->target;
			break;
		case K_ICALL: {
			unsigned f = in->target;
			if (f + 1 < p->nfuncs) {
				stack[depth++] = pc + 1;
				next = p->entry[f + 1 + r % (p->nfuncs - f - 1)];
			}
			break;
		}
		case K_SWITCH:
			next = p->cases[in->first_case + r % in->ncase];
			break;
		case K_RET:
			next = depth ? stack[--depth] : p->entry[0];
			break;
		default:
			break;
		}
		if (p->in[next].addr != in->addr + in->size)
			s->flags |= STREAM_TAKEN;
		pc = next;
		if (k == BATCH) {
			rc = sink(ctx, out, k);
			k = 0;
		}
	}
	if (!rc && k)
		rc = sink(ctx, out, k);
	free(out);
	free(stack);
	return rc;
}
