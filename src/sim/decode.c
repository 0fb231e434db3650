/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86-64 decoding with Zydis into model instructions: dependencies,
 * memory operands, form key and the machine's resource mapping. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "machine.h"
#include "sim_internal.h"

struct code_slot {
	uint64_t key;		/* address + 1; 0 = empty */
	uint32_t idx;
};

struct sim_code {
	const struct sim_machine *m;
	struct sim_insn *insn;
	size_t n, cap;
	struct code_slot *by_addr, *by_end;
	size_t hcap;		/* power of two */
	size_t approx;
	ZydisDecoder dec;
	ZydisFormatter fmt;
};

static size_t slot_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static void slot_put(struct code_slot *t, size_t cap, uint64_t addr, uint32_t idx)
{
	size_t h = slot_hash(addr + 1, cap);
	while (t[h].key && t[h].key != addr + 1)
		h = (h + 1) & (cap - 1);
	t[h].key = addr + 1;
	t[h].idx = idx;
}

static long slot_get(const struct code_slot *t, size_t cap, uint64_t addr)
{
	size_t h = slot_hash(addr + 1, cap);
	while (t[h].key) {
		if (t[h].key == addr + 1)
			return t[h].idx;
		h = (h + 1) & (cap - 1);
	}
	return -1;
}

const struct sim_machine *sim_code_machine(const struct sim_code *c)
{
	return c->m;
}

struct sim_code *sim_code_new(const struct sim_machine *m)
{
	struct sim_code *c = calloc(1, sizeof *c);
	if (!c)
		abort();
	c->m = m;
	c->hcap = 1024;
	c->by_addr = calloc(c->hcap, sizeof *c->by_addr);
	c->by_end = calloc(c->hcap, sizeof *c->by_end);
	if (!c->by_addr || !c->by_end)
		abort();
	ZydisDecoderInit(&c->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&c->fmt, ZYDIS_FORMATTER_STYLE_INTEL);
	ZydisFormatterSetProperty(&c->fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&c->fmt, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&c->fmt, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
	return c;
}

void sim_code_free(struct sim_code *c)
{
	if (!c)
		return;
	free(c->insn);
	free(c->by_addr);
	free(c->by_end);
	free(c);
}

size_t sim_code_count(const struct sim_code *c)
{
	return c->n;
}

const struct sim_insn *sim_code_insn(const struct sim_code *c, size_t i)
{
	return &c->insn[i];
}

const struct sim_insn *sim_code_insns(const struct sim_code *c)
{
	return c->insn;
}

size_t sim_code_approx(const struct sim_code *c)
{
	return c->approx;
}

void sim_code_retext(struct sim_code *c, uint64_t bias)
{
	for (size_t i = 0; i < c->n; i++) {
		struct sim_insn *in = &c->insn[i];
		ZydisDecodedInstruction zi;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		/* an abstract instruction (sim_code_add_abstract) has no bytes
		 * that decode to its length: its text is its own */
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&c->dec, in->bytes, in->len, &zi, ops)) || zi.length != in->len)
			continue;
		ZydisFormatterFormatInstruction(&c->fmt, &zi, ops, zi.operand_count_visible, in->text, sizeof in->text,
						in->addr - bias, NULL);
	}
}

long sim_code_lookup(const struct sim_code *c, uint64_t addr)
{
	return slot_get(c->by_addr, c->hcap, addr);
}

static void grow_hash(struct sim_code *c)
{
	size_t ncap = c->hcap * 2;
	struct code_slot *a = calloc(ncap, sizeof *a), *e = calloc(ncap, sizeof *e);
	if (!a || !e)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		slot_put(a, ncap, c->insn[i].addr, (uint32_t)i);
		slot_put(e, ncap, c->insn[i].addr + c->insn[i].len, (uint32_t)i);
	}
	free(c->by_addr);
	free(c->by_end);
	c->by_addr = a;
	c->by_end = e;
	c->hcap = ncap;
}

/* a zeroed instruction at the end of the array, with room in the hashes;
 * sim_code_add and sim_code_add_abstract fill it and register it */
static struct sim_insn *new_insn(struct sim_code *c, uint64_t addr)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->insn = realloc(c->insn, c->cap * sizeof *c->insn);
		if (!c->insn)
			abort();
	}
	if ((c->n + 1) * 2 > c->hcap)
		grow_hash(c);
	struct sim_insn *in = &c->insn[c->n];
	memset(in, 0, sizeof *in);
	in->addr = addr;
	in->ptr_dst = -1;
	in->ptr_src2 = -1;
	return in;
}

static int reg_id(ZydisRegister r)
{
	ZydisRegisterClass cls = ZydisRegisterGetClass(r);
	switch (cls) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64: {
		ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
		int id = ZydisRegisterGetId(big);
		return id >= 0 && id < 16 ? REG_GPR + id : -1;
	}
	case ZYDIS_REGCLASS_XMM:
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM: {
		int id = ZydisRegisterGetId(r);
		return id >= 0 && id < 32 ? REG_VEC + id : -1;
	}
	case ZYDIS_REGCLASS_MASK: {
		int id = ZydisRegisterGetId(r);
		return id >= 0 && id < 8 ? REG_K + id : -1;
	}
	default:
		return -1;
	}
}

static const char *reg_kind(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8: return "r8";
	case ZYDIS_REGCLASS_GPR16: return "r16";
	case ZYDIS_REGCLASS_GPR32: return "r32";
	case ZYDIS_REGCLASS_GPR64: return "r64";
	case ZYDIS_REGCLASS_XMM: return "x";
	case ZYDIS_REGCLASS_YMM: return "y";
	case ZYDIS_REGCLASS_ZMM: return "z";
	case ZYDIS_REGCLASS_MASK: return "k";
	case ZYDIS_REGCLASS_X87: return "st";
	case ZYDIS_REGCLASS_MMX: return "mm";
	default: return "sreg";
	}
}

static void add_u8(uint8_t *arr, uint8_t *n, unsigned max, int v)
{
	if (v < 0)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (arr[i] == v)
			return;
	if (*n < max)
		arr[(*n)++] = (uint8_t)v;
}

/* The key of FORMAT: [prefix.]mnemonic kind,kind,... */
struct form_key {
	char mnem[40];
	char cat[32];
	char ops[SIM_FORM_MAX_OPS][6];
	unsigned nops;
	bool vector;
	int widest_vec;		/* 128, 256, 512 */
};

/* S appended to BUF (N bytes, its string O long), cut to fit, still a
 * string: what snprintf did here, without its format parsing (every
 * decoded instruction builds its key, and gus record decodes whole hot
 * functions to find their loops: snprintf was a fifth of that) */
static size_t append(char *buf, size_t n, size_t o, const char *s)
{
	if (!n || o >= n - 1 || !s)
		return o;
	size_t l = strlen(s);
	if (l > n - 1 - o)
		l = n - 1 - o;
	memcpy(buf + o, s, l);
	buf[o + l] = 0;
	return o + l;
}

static void key_string(const struct form_key *k, char *buf, size_t n)
{
	if (n)
		buf[0] = 0;
	size_t o = append(buf, n, 0, k->mnem);
	for (unsigned i = 0; i < k->nops; i++) {
		o = append(buf, n, o, i ? "," : " ");
		o = append(buf, n, o, k->ops[i]);
	}
}

/* memory kinds -> register kinds of the same width, for the derived lookup */
static bool derive_key(const struct form_key *k, struct form_key *d)
{
	*d = *k;
	bool any = false;
	for (unsigned i = 0; i < k->nops; i++) {
		const char *o = k->ops[i];
		if (o[0] != 'm' || !(isdigit((unsigned char)o[1]) || o[1] == 'b'))
			continue;
		any = true;
		int bits = o[1] == 'b' ? k->widest_vec : atoi(o + 1);
		if (k->vector)
			snprintf(d->ops[i], sizeof d->ops[i], "%s", bits <= 128 ? "x" : bits <= 256 ? "y" : "z");
		else
			snprintf(d->ops[i], sizeof d->ops[i], "r%d", bits >= 64 ? 64 : bits < 8 ? 8 : bits);
	}
	return any;
}

static void bind(struct sim_code *c, struct sim_insn *in, const struct form_key *key, bool same_sources,
		 unsigned nmem_read, unsigned nmem_write, bool reg_reg, bool indexed_load_op)
{
	struct sim_machine *m = (struct sim_machine *)c->m;
	const struct sim_form *f = sim_machine_lookup(m, key->mnem, key->ops, key->nops);
	bool derived = false;
	if (!f) {
		struct form_key d;
		if (derive_key(key, &d) && (f = sim_machine_lookup(m, d.mnem, d.ops, d.nops)))
			derived = true;
	}
	if (!f) {
		f = sim_machine_lookup_category(m, key->cat, key->ops, key->nops);
		if (!f) {
			struct form_key d;
			if (derive_key(key, &d))
				f = sim_machine_lookup_category(m, key->cat, d.ops, d.nops);
			derived = f != NULL;
		}
		in->approx = true;
		c->approx++;
	}
	uint32_t uops[SIM_FORM_MAX_UOPS + 8];
	unsigned nu = 0;
	if (f) {
		for (unsigned i = 0; i < f->nuops; i++)
			uops[nu++] = f->uop[i];
		in->lat = f->lat;
		in->xin = f->xin;
		in->div = f->div;
	} else {
		/* no rule at all: one simple µop on the widest group */
		uops[nu++] = m->group[m->ngroups - 1];
		in->lat = 1;
	}
	if (derived) {
		/* a vector instruction's memory source is a vector load: on a
		 * machine whose vector loads have pipes of their own (load-uop
		 * P+Q: Zen 4's p78, Zen 5's p89) it takes them, as the written
		 * out loads do (Zen 5 measured four vpaddd with a memory source
		 * in 2.00 cycles at zmm, ymm and xmm, not the four AGUs' 1:
		 * bench/accuracy/zenprobe3.txt) */
		uint32_t load = key->vector && m->nload_uop > 1 ? m->load_uop[1] : m->load_uop[0];
		for (unsigned i = 0; i < nmem_read; i++)
			uops[nu++] = load;
		for (unsigned i = 0; i < nmem_write; i++)
			for (unsigned s = 0; s < m->nstore_uop; s++)
				uops[nu++] = m->store_uop[s];
	}
	unsigned flags = f ? f->flags : 0;
	if ((flags & SIM_F_ZERO_IDIOM) && same_sources) {
		in->zero_idiom = true;
		nu = 0;
		in->lat = 0;
		in->nreads = 0;
	}
	if ((flags & SIM_F_ELIM) && reg_reg) {
		in->eliminated = true;
		nu = 0;
		in->lat = 0;
	}
	/* folded at rename (Golden Cove's add r64,imm): no port, no latency;
	 * as the head of a fused jcc, the jcc's µop does its work */
	if (flags & SIM_F_RENAME) {
		in->folded = true;
		nu = 0;
		in->lat = 0;
	}
	in->serial = flags & SIM_F_SERIAL;
	in->ports = sim_machine_portstr(m, uops, nu);
	unsigned n_load = 0, n_sta = 0, n_std = 0, n_other = 0;
	for (unsigned i = 0; i < nu; i++) {
		if (sim_machine_is_load(m, uops[i])) {
			n_load++;
			in->nload += (uint8_t)sim_machine_uop_uses(m, uops[i], in->load + in->nload,
								     SIM_MAX_LOAD_USES - in->nload);
			continue;
		}
		if (m->nstore_uop == 2 && uops[i] == m->store_uop[0])
			n_sta++;
		else if (m->nstore_uop == 2 && uops[i] == m->store_uop[1])
			n_std++;
		else
			n_other++;
		in->nexec += (uint8_t)sim_machine_uop_uses(m, uops[i], in->exec + in->nexec,
							     SIM_MAX_USES - in->nexec);
	}
	in->uops = (uint8_t)nu;
	in->math_uops = (uint8_t)n_other;
	if (f && f->fused >= 0) {
		in->fused = (uint8_t)f->fused;
	} else {
		unsigned hosts = n_other + n_std;
		unsigned fused = n_other + (n_std > n_sta ? n_std : n_sta);
		if (flags & SIM_F_NOMICROFUSE)
			fused += n_load;
		else
			fused += n_load > hosts ? n_load - hosts : 0;
		in->fused = (uint8_t)(fused ? fused : 1);
	}
	if (in->zero_idiom || in->eliminated)
		in->fused = 1;
	/* only an operation with a load to unlaminate from */
	in->unlaminated = indexed_load_op && n_load && n_other && !n_sta && !n_std;
	/* a load's data, forwarded from a store or not, reaches an xin= unit
	 * late too (Zen 5: bench/accuracy/zenprobe8.txt ldch_*, fwd_*) */
	in->other_unit = (in->math_uops > 0 || n_load > 0) && !in->zero_idiom && !(in->xin > 0);
	in->fusible = f && (f->flags & SIM_F_FUSE) && !in->approx;
}

static bool is_jcc(const struct sim_insn *in)
{
	return in->branch == SIM_BR_COND && in->text[0] == 'j' && strncmp(in->text, "jrcxz", 5) &&
	       strncmp(in->text, "jecxz", 5);
}

/* cmp/test/add/... followed by a jcc issue and execute as one µop */
static void mark_fusion(struct sim_insn *head, struct sim_insn *jcc)
{
	if (head->fuse_head || jcc->fused_jcc || !is_jcc(jcc) || head->zero_idiom)
		return;
	if (head->branch != SIM_BR_NONE)
		return;
	if (!head->lat && !head->nexec && !head->folded)
		return;
	head->fuse_head = true;
	head->nexec = 0;
	head->math_uops = 0;
	head->ports = "";
	head->lat = 0;
	jcc->fused_jcc = true;
	jcc->head_len = head->len;
	jcc->fused = 0;
}

static bool gpr3264(ZydisRegister r)
{
	ZydisRegisterClass c = ZydisRegisterGetClass(r);
	return c == ZYDIS_REGCLASS_GPR64 || c == ZYDIS_REGCLASS_GPR32;
}

/* a step of a 64-bit pointer register by a constant, or its copy: what
 * lets a stream without data addresses follow where its pointers are
 * within a cache line */
static void pointer_step(struct sim_insn *in, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
	in->ptr_dst = -1;
	in->ptr_src2 = -1;
	/* 32-bit writes zero-extend: an index counted in a 32-bit register
	 * steps as well */
	if (zi->operand_count_visible < 1 || ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    !gpr3264(ops[0].reg.value))
		return;
	int dst = reg_id(ops[0].reg.value);
	const ZydisDecodedOperand *src = zi->operand_count_visible > 1 ? &ops[1] : NULL;
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
		if (!src || src->type != ZYDIS_OPERAND_TYPE_IMMEDIATE || src->imm.value.s > INT32_MAX ||
		    src->imm.value.s < -INT32_MAX)
			return;
		in->ptr_src = (int8_t)dst;
		in->ptr_add = zi->mnemonic == ZYDIS_MNEMONIC_ADD ? (uint64_t)src->imm.value.s : -(uint64_t)src->imm.value.s;
		break;
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC:
		in->ptr_src = (int8_t)dst;
		in->ptr_add = zi->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : UINT64_MAX;
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (!src || src->type != ZYDIS_OPERAND_TYPE_MEMORY)
			return;
		if (src->mem.index != ZYDIS_REGISTER_NONE) {
			/* a pointer plus an index: where the pointer is, offset */
			if (!gpr3264(src->mem.index) || !gpr3264(src->mem.base))
				return;
			in->ptr_src = (int8_t)reg_id(src->mem.base);
			in->ptr_src2 = (int8_t)reg_id(src->mem.index);
			in->ptr_scale = src->mem.scale;
			in->ptr_add = (uint64_t)src->mem.disp.value;
			break;
		}
		if (src->mem.base == ZYDIS_REGISTER_RIP) {
			/* an address the code names: known */
			in->ptr_src = -2;
			in->ptr_add = in->addr + zi->length + (uint64_t)src->mem.disp.value;
			break;
		}
		if (!gpr3264(src->mem.base))
			return;
		in->ptr_src = (int8_t)reg_id(src->mem.base);
		in->ptr_add = (uint64_t)src->mem.disp.value;
		break;
	case ZYDIS_MNEMONIC_MOV:
		if (src && src->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			in->ptr_src = -2;
			in->ptr_add = (uint64_t)src->imm.value.s;
			break;
		}
		if (!src || src->type != ZYDIS_OPERAND_TYPE_REGISTER || !gpr3264(src->reg.value))
			return;
		in->ptr_src = (int8_t)reg_id(src->reg.value);
		in->ptr_add = 0;
		break;
	default:
		return;
	}
	in->ptr_dst = (int8_t)dst;
}

/* the branch kind of a decoded instruction (sim_code_add and
 * sim_decode_branch alike) */
static uint8_t branch_kind(const ZydisDecodedInstruction *zi, bool has_target)
{
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return SIM_BR_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
		return has_target ? SIM_BR_DIRECT : SIM_BR_INDIRECT;
	case ZYDIS_CATEGORY_RET:
		return SIM_BR_RET;
	default:
		return SIM_BR_NONE;
	}
}

/* the target of a relative immediate operand, as sim_code_add takes it */
static bool relative_target(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, uint64_t addr,
			    uint64_t *target)
{
	bool found = false;
	for (unsigned i = 0; i < zi->operand_count; i++) {
		ZyanU64 t;
		if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[i], addr, &t))) {
			*target = t;
			found = true;
		}
	}
	return found;
}

bool sim_decode_branch(uint64_t addr, const uint8_t *bytes, size_t avail, struct sim_branch_info *out)
{
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, avail, &zi, ops)))
		return false;
	*out = (struct sim_branch_info){ .len = zi.length };
	out->has_target = relative_target(&zi, ops, addr, &out->target);
	out->branch = branch_kind(&zi, out->has_target);
	return true;
}

long sim_code_add(struct sim_code *c, uint64_t addr, const uint8_t *bytes, size_t avail, char *err,
		  size_t errlen)
{
	long have = slot_get(c->by_addr, c->hcap, addr);
	if (have >= 0)
		return have;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&c->dec, bytes, avail, &zi, ops))) {
		snprintf(err, errlen, "undecodable bytes at 0x%llx:%s%s", (unsigned long long)addr,
			 avail ? "" : " (none left)", "");
		if (avail) {
			size_t o = strlen(err);
			for (size_t i = 0; i < avail && i < 8 && o + 4 < errlen; i++)
				o += (size_t)snprintf(err + o, errlen - o, " %02x", bytes[i]);
		}
		return -1;
	}
	struct sim_insn *in = new_insn(c, addr);
	in->len = zi.length;
	memcpy(in->bytes, bytes, zi.length);
	ZydisFormatterFormatInstruction(&c->fmt, &zi, ops, zi.operand_count_visible, in->text,
					sizeof in->text, addr, NULL);

	struct form_key key;
	memset(&key, 0, sizeof key);
	const char *prefix = "";
	if (zi.attributes & ZYDIS_ATTRIB_HAS_LOCK)
		prefix = "lock.";
	else if (zi.meta.category == ZYDIS_CATEGORY_STRINGOP || zi.meta.category == ZYDIS_CATEGORY_IOSTRINGOP) {
		if (zi.attributes & ZYDIS_ATTRIB_HAS_REPNE)
			prefix = "repne.";
		else if (zi.attributes & ZYDIS_ATTRIB_HAS_REPE)
			prefix = "repe.";
		else if (zi.attributes & ZYDIS_ATTRIB_HAS_REP)
			prefix = "rep.";
	}
	append(key.mnem, sizeof key.mnem, append(key.mnem, sizeof key.mnem, 0, prefix),
	       ZydisMnemonicGetString(zi.mnemonic));
	append(key.cat, sizeof key.cat, 0, ZydisCategoryGetString(zi.meta.category));
	for (char *p = key.cat; *p; p++)
		*p = (char)tolower((unsigned char)*p);

	int first_src = -1;
	bool same_sources = true, reg_reg = true;
	unsigned nsrc_regs = 0;
	unsigned nmem_read = 0, nmem_write = 0, nregops = 0;
	bool stack_op = zi.meta.category == ZYDIS_CATEGORY_PUSH || zi.meta.category == ZYDIS_CATEGORY_POP ||
			zi.meta.category == ZYDIS_CATEGORY_CALL || zi.meta.category == ZYDIS_CATEGORY_RET;
	for (unsigned i = 0; i < zi.operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		bool explicit = op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT &&
				op->encoding != ZYDIS_OPERAND_ENCODING_MASK;
		bool rd = op->actions & ZYDIS_OPERAND_ACTION_MASK_READ;
		bool wr = op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
		const char *kind = NULL;
		char kbuf[6];
		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER: {
			ZydisRegisterClass cls = ZydisRegisterGetClass(op->reg.value);
			if (cls == ZYDIS_REGCLASS_FLAGS || cls == ZYDIS_REGCLASS_IP)
				break;
			int id = reg_id(op->reg.value);
			if (stack_op && id == REG_RSP && !explicit)
				break;
			kind = reg_kind(op->reg.value);
			if (cls == ZYDIS_REGCLASS_XMM || cls == ZYDIS_REGCLASS_YMM || cls == ZYDIS_REGCLASS_ZMM) {
				key.vector = true;
				int bits = cls == ZYDIS_REGCLASS_XMM ? 128 : cls == ZYDIS_REGCLASS_YMM ? 256 : 512;
				if (bits > key.widest_vec)
					key.widest_vec = bits;
			}
			if (rd) {
				add_u8(in->reads, &in->nreads, SIM_MAX_READS, id);
				if (explicit) {
					nsrc_regs++;
					if (first_src < 0)
						first_src = op->reg.value;
					else if (first_src != (int)op->reg.value)
						same_sources = false;
				}
			}
			if (wr) {
				add_u8(in->writes, &in->nwrites, SIM_MAX_WRITES, id);
				/* 8- and 16-bit writes merge into the old value, and
				 * a conditional write (cmovcc) keeps it when the
				 * condition fails: either way the old value is an input */
				if ((cls == ZYDIS_REGCLASS_GPR8 || cls == ZYDIS_REGCLASS_GPR16 ||
				     (op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE)) && !rd)
					add_u8(in->reads, &in->nreads, SIM_MAX_READS, id);
				if (cls == ZYDIS_REGCLASS_XMM || cls == ZYDIS_REGCLASS_YMM || cls == ZYDIS_REGCLASS_ZMM)
					in->load_lat_class = cls == ZYDIS_REGCLASS_XMM ? 1 : cls == ZYDIS_REGCLASS_YMM ? 2 : 3;
			}
			if (explicit)
				nregops++;
			break;
		}
		case ZYDIS_OPERAND_TYPE_MEMORY: {
			const ZydisDecodedOperandMem *mem = &op->mem;
			if (mem->type == ZYDIS_MEMOP_TYPE_AGEN) {
				add_u8(in->reads, &in->nreads, SIM_MAX_READS, reg_id(mem->base));
				add_u8(in->reads, &in->nreads, SIM_MAX_READS, reg_id(mem->index));
				bool three = mem->base != ZYDIS_REGISTER_NONE && mem->index != ZYDIS_REGISTER_NONE &&
					     mem->disp.value != 0;
				kind = three ? "a3" : "a";
				reg_reg = false;
				break;
			}
			if (mem->type != ZYDIS_MEMOP_TYPE_MEM && mem->type != ZYDIS_MEMOP_TYPE_VSIB)
				break;
			reg_reg = false;
			if (in->nmem < 2 && (rd || wr)) {
				struct sim_memop *mo = &in->mem[in->nmem++];
				mo->base = (int8_t)reg_id(mem->base);
				mo->index = mem->type == ZYDIS_MEMOP_TYPE_VSIB ? -1 : (int8_t)reg_id(mem->index);
				if (mem->type == ZYDIS_MEMOP_TYPE_VSIB)
					add_u8(in->reads, &in->nreads, SIM_MAX_READS, reg_id(mem->index));
				if (mem->base == ZYDIS_REGISTER_RIP)
					mo->base = -2;	/* rip-relative: constant address */
				mo->scale = mem->scale;
				mo->disp = mem->disp.value;
				mo->read = rd;
				mo->write = wr;
				mo->bytes = (uint16_t)(op->size / 8 ? op->size / 8 : 1);
				mo->elements = 1;
				if (mem->type == ZYDIS_MEMOP_TYPE_VSIB && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
				    ops[0].element_count > 1)
					mo->elements = (uint8_t)(ops[0].element_count > 64 ? 64 : ops[0].element_count);
				if (mo->base == -2)
					mo->disp += (int64_t)(addr + zi.length);
			}
			if (explicit) {
				if (rd)
					nmem_read++;
				if (wr)
					nmem_write++;
				bool bcst = zi.avx.broadcast.mode != ZYDIS_BROADCAST_MODE_INVALID &&
					    !zi.avx.broadcast.is_static;
				if (bcst)
					kind = "mb";
				else {
					/* "m" and the bits, at most 9999 */
					unsigned bits = op->size > 9999 ? 9999 : op->size, d = 1000, o = 0;
					kbuf[o++] = 'm';
					while (d > 1 && bits < d)
						d /= 10;
					for (; d; d /= 10)
						kbuf[o++] = (char)('0' + bits / d % 10);
					kbuf[o] = 0;
					kind = kbuf;
				}
			}
			break;
		}
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			reg_reg = false;
			kind = op->imm.is_relative ? "rel" : "i";
			break;
		default:
			reg_reg = false;
			break;
		}
		if (explicit && kind && key.nops < SIM_FORM_MAX_OPS) {
			size_t kl = strlen(kind);
			if (kl >= sizeof key.ops[0])
				kl = sizeof key.ops[0] - 1;
			memcpy(key.ops[key.nops], kind, kl);
			key.ops[key.nops++][kl] = 0;
		}
	}
	if (nregops < 2)
		reg_reg = false;
	/* a load through an indexed address stays micro-fused only in a
	 * legacy two-operand form that updates its register operand */
	bool indexed_load_op = false;
	for (unsigned i = 0; i < zi.operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM &&
		    ops[i].mem.index != ZYDIS_REGISTER_NONE && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
		    !(ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			indexed_load_op = true;
	if (indexed_load_op && zi.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY && zi.operand_count_visible == 2 &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && (ops[0].actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
	    (ops[0].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		indexed_load_op = false;
	/* a zero idiom needs two register sources and nothing else: xor rax, [rdi]
	 * reads rax once and is an ordinary xor */
	if (first_src < 0 || nsrc_regs < 2 || nmem_read || key.nops > nregops)
		same_sources = false;
	/* flags: carry renamed on its own, the others together */
	if (zi.cpu_flags) {
		const ZydisAccessedFlags *fl = zi.cpu_flags;
		uint32_t spazo = ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_PF | ZYDIS_CPUFLAG_AF | ZYDIS_CPUFLAG_ZF |
				 ZYDIS_CPUFLAG_OF;
		uint32_t wr = fl->modified | fl->set_0 | fl->set_1 | fl->undefined;
		if (fl->tested & ZYDIS_CPUFLAG_CF)
			add_u8(in->reads, &in->nreads, SIM_MAX_READS, REG_CF);
		if (fl->tested & spazo)
			add_u8(in->reads, &in->nreads, SIM_MAX_READS, REG_SPAZO);
		if (wr & ZYDIS_CPUFLAG_CF)
			add_u8(in->writes, &in->nwrites, SIM_MAX_WRITES, REG_CF);
		if (wr & spazo)
			add_u8(in->writes, &in->nwrites, SIM_MAX_WRITES, REG_SPAZO);
	}
	/* the target and kind as sim_decode_branch finds them */
	in->has_target = relative_target(&zi, ops, addr, &in->target);
	in->branch = branch_kind(&zi, in->has_target);
	pointer_step(in, &zi, ops);
	key_string(&key, in->key, sizeof in->key);
	in->vector = key.vector;
	for (unsigned i = 0; i < in->nmem; i++) {
		in->mem_reads += in->mem[i].read;
		in->mem_writes += in->mem[i].write;
	}
	bind(c, in, &key, same_sources, nmem_read, nmem_write, reg_reg, indexed_load_op);
	/* a zero idiom or an eliminated move names a register it does not
	 * take from the physical register file */
	for (unsigned w = 0; w < in->nwrites && !in->zero_idiom && !in->eliminated; w++)
		in->vec_writes += in->writes[w] >= REG_VEC && in->writes[w] < REG_VEC + 32;

	uint32_t idx = (uint32_t)c->n++;
	slot_put(c->by_addr, c->hcap, addr, idx);
	slot_put(c->by_end, c->hcap, addr + in->len, idx);
	/* macro-fusion with a neighbour decoded before or after */
	long prev = slot_get(c->by_end, c->hcap, addr);
	if (prev >= 0 && (size_t)prev != idx && c->insn[prev].fusible)
		mark_fusion(&c->insn[prev], in);
	long next = slot_get(c->by_addr, c->hcap, addr + in->len);
	if (next >= 0 && (size_t)next != idx && in->fusible)
		mark_fusion(in, &c->insn[next]);
	return (long)idx;
}

long sim_code_add_abstract(struct sim_code *c, uint64_t addr, const char *text, const char *uops, double lat,
			   char *err, size_t errlen)
{
	struct sim_machine *m = (struct sim_machine *)c->m;
	struct sim_form f;
	memset(&f, 0, sizeof f);
	if (sim_machine_parse_uops(m, uops, &f)) {
		snprintf(err, errlen, "bad µop list '%s'", uops);
		return -1;
	}
	struct sim_insn *in = new_insn(c, addr);
	in->len = 1;
	snprintf(in->text, sizeof in->text, "%s", text);
	snprintf(in->key, sizeof in->key, "%s", text);
	in->lat = (float)lat;
	for (unsigned i = 0; i < f.nuops; i++) {
		if (sim_machine_is_load(m, f.uop[i]))
			in->nload += (uint8_t)sim_machine_uop_uses(m, f.uop[i], in->load + in->nload,
								     SIM_MAX_LOAD_USES - in->nload);
		else
			in->nexec += (uint8_t)sim_machine_uop_uses(m, f.uop[i], in->exec + in->nexec,
								     SIM_MAX_USES - in->nexec);
	}
	in->uops = (uint8_t)f.nuops;
	in->fused = 1;
	in->ports = sim_machine_portstr(m, f.uop, f.nuops);
	uint32_t idx = (uint32_t)c->n++;
	slot_put(c->by_addr, c->hcap, addr, idx);
	slot_put(c->by_end, c->hcap, addr + in->len, idx);
	return (long)idx;
}

int sim_parse_hex(const char *s, uint8_t **out, size_t *len, char *err, size_t errlen)
{
	size_t n = 0;
	*out = NULL;
	*len = 0;
	for (const char *p = s; *p; p++) {
		if (isspace((unsigned char)*p))
			continue;
		if (!isxdigit((unsigned char)*p)) {
			if (isprint((unsigned char)*p))
				snprintf(err, errlen, "'%c' (offset %zu) is not a hex digit", *p, (size_t)(p - s));
			else
				snprintf(err, errlen, "byte 0x%02x (offset %zu) is not a hex digit", (unsigned char)*p,
					 (size_t)(p - s));
			return -1;
		}
		n++;
	}
	if (!n) {
		snprintf(err, errlen, "no bytes");
		return -1;
	}
	if (n % 2) {
		snprintf(err, errlen, "odd number of hex digits (%zu): bytes are two digits each", n);
		return -1;
	}
	uint8_t *b = malloc(n / 2);
	if (!b)
		abort();
	size_t k = 0;
	int hi = -1;
	for (const char *p = s; *p; p++) {
		if (isspace((unsigned char)*p))
			continue;
		int v = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
		if (hi < 0) {
			hi = v;
		} else {
			b[k++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	*out = b;
	*len = k;
	return 0;
}
