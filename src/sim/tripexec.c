/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trip counts by following a function's loop counters (sim_internal.h).
 *
 * The function's integer register code is run from its entry on the
 * values known without its inputs: constants, the addresses of its data
 * (rip-relative), and what is computed from them. Memory is not modelled
 * but for the stack (below): a register loaded from it is unknown, stores
 * elsewhere are skipped, a call leaves the registers it may clobber
 * unknown. A vector register is known only through movd/movq (its low
 * bits, where gcc parks a counter when it runs out of general-purpose
 * registers). A branch that unknown values
 * decide ends the run, unless it is a forward branch that stays inside
 * the loop around it (an if in the body: its fall-through path is taken;
 * both paths of such an if step the counter alike in compiled loops).
 *
 * This resolves what a compare with a constant does not: triangular nests
 * (j < i), counters and bounds kept as pointers, a bound set from an
 * inner loop's last value, a trip count known only after a shift. Loops
 * whose counts come from memory or from the function's arguments stay
 * unknown. The answers are exact for the run followed: it is trusted when
 * it reaches a return within its step budget; cut by the budget, only the
 * loops whose every completed entry ran the same number of iterations are
 * kept. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

/* functions larger than this are not followed: their decoded form takes
 * about 1.5 KiB per instruction */
#define TX_MAX_BYTES (256u * 1024)

struct tx_insn {
	uint64_t addr;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
};

enum { F_ZF = 1, F_SF = 2, F_CF = 4, F_OF = 8 };

/* The stack is the one memory followed, for the counters a compiler
 * spills there: rsp starts at STACK_TOP (any value would do: only
 * differences of stack addresses matter), and the bytes stored in
 * [STACK_TOP - STACK_BELOW, STACK_TOP + STACK_ABOVE) are kept. A store
 * through an unknown address is taken to miss the stack (data arrays),
 * a callee to leave the caller's frame alone. */
#define STACK_TOP 0x7ffe00000000ULL
#define STACK_BELOW (256u * 1024)
#define STACK_ABOVE 4096u
#define STACK_BYTES (STACK_BELOW + STACK_ABOVE)

struct tx_state {
	uint64_t v[16];
	uint16_t known;		/* bit r: v[r] is known */
	/* the low 64 bits of xmm0-31, where a compiler short of registers
	 * parks a counter or a bound (gcc -O3's vmovd xmm, r32 / vmovd r32,
	 * xmm): bit r of xknown says x[r] is known */
	uint64_t x[32];
	uint32_t xknown;
	uint8_t fknown;		/* F_*: the flag's value is known */
	uint8_t flags;		/* F_*: the flag is set */
	uint8_t *stack;		/* STACK_BYTES bytes from STACK_TOP - STACK_BELOW */
	uint8_t *stack_known;	/* 1 where that byte is known */
};

#define RSP 4
#define RBP 5

/* the offset in the followed stack of [ADDR, ADDR+N), -1 outside it */
static long stack_off(uint64_t addr, unsigned n)
{
	uint64_t lo = STACK_TOP - STACK_BELOW;
	if (addr < lo || addr - lo > STACK_BYTES - n)
		return -1;
	return (long)(addr - lo);
}

static bool mem_read(const struct tx_state *s, uint64_t addr, unsigned w, uint64_t *out)
{
	unsigned n = w / 8;
	long o = stack_off(addr, n);
	if (o < 0 || !n || n > 8)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!s->stack_known[o + i])
			return false;
		v |= (uint64_t)s->stack[o + i] << (8 * i);
	}
	*out = v;
	return true;
}

static void mem_write(struct tx_state *s, uint64_t addr, unsigned n, bool known, uint64_t val)
{
	long o = stack_off(addr, n ? n : 1);
	if (o < 0)
		return;
	for (unsigned i = 0; i < n && i < 64; i++) {
		s->stack[o + i] = i < 8 ? (uint8_t)(val >> (8 * i)) : 0;
		s->stack_known[o + i] = known && i < 8;
	}
}

/* the GPR (0-15) that R is part of, -1 for any other register */
static int gpr(ZydisRegister r)
{
	ZydisRegisterClass c = ZydisRegisterGetClass(r);
	if (c != ZYDIS_REGCLASS_GPR8 && c != ZYDIS_REGCLASS_GPR16 && c != ZYDIS_REGCLASS_GPR32 &&
	    c != ZYDIS_REGCLASS_GPR64)
		return -1;
	ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	int id = ZydisRegisterGetId(big);
	return id >= 0 && id < 16 ? id : -1;
}

/* the vector register (0-31) R is, -1 for any other register */
static int vec(ZydisRegister r)
{
	ZydisRegisterClass c = ZydisRegisterGetClass(r);
	if (c != ZYDIS_REGCLASS_XMM && c != ZYDIS_REGCLASS_YMM && c != ZYDIS_REGCLASS_ZMM)
		return -1;
	int id = ZydisRegisterGetId(r);
	return id >= 0 && id < 32 ? id : -1;
}

static bool high8(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_BH || r == ZYDIS_REGISTER_CH || r == ZYDIS_REGISTER_DH;
}

static inline uint64_t wmask(unsigned w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

static inline unsigned sign(uint64_t x, unsigned w)
{
	return (unsigned)(x >> (w - 1)) & 1;
}

/* the value of a register operand; false when unknown */
static bool reg_get(const struct tx_state *s, ZydisRegister r, unsigned w, uint64_t *out)
{
	int g = gpr(r);
	if (g < 0 || !(s->known >> g & 1))
		return false;
	*out = high8(r) ? s->v[g] >> 8 & 0xff : s->v[g] & wmask(w);
	return true;
}

/* writes a register as x86-64 does: 32-bit writes clear the upper half,
 * 8- and 16-bit ones keep the rest (unknown when the rest is) */
static void reg_set(struct tx_state *s, ZydisRegister r, unsigned w, bool known, uint64_t val)
{
	int g = gpr(r);
	if (g < 0) {
		/* a vector register: known only as movd/movq write it (the
		 * rest zeroed), anything else leaves it unknown */
		int x = vec(r);
		if (x >= 0) {
			s->x[x] = known ? val & wmask(w) : 0;
			s->xknown = known && w <= 64 ? s->xknown | 1u << x : s->xknown & ~(1u << x);
		}
		return;
	}
	uint16_t bit = (uint16_t)(1u << g);
	if (w >= 32) {
		if (known)
			s->v[g] = w == 32 ? val & 0xffffffffu : val;
		s->known = known ? s->known | bit : s->known & (uint16_t)~bit;
		return;
	}
	if (!known || !(s->known & bit)) {
		s->known &= (uint16_t)~bit;
		return;
	}
	if (high8(r))
		s->v[g] = (s->v[g] & ~0xff00ULL) | (val & 0xff) << 8;
	else
		s->v[g] = (s->v[g] & ~wmask(w)) | (val & wmask(w));
}

/* the address an operand names (lea, or a memory operand's address) */
static bool agen(const struct tx_state *s, const struct tx_insn *t, const ZydisDecodedOperand *op, uint64_t *out)
{
	if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS)
		return false;
	uint64_t a = (uint64_t)op->mem.disp.value;
	if (op->mem.base == ZYDIS_REGISTER_RIP) {
		a += t->addr + t->zi.length;
	} else if (op->mem.base != ZYDIS_REGISTER_NONE) {
		uint64_t b;
		if (!reg_get(s, op->mem.base, 64, &b))
			return false;
		a += b;
	}
	if (op->mem.index != ZYDIS_REGISTER_NONE) {
		uint64_t x;
		if (!reg_get(s, op->mem.index, 64, &x))
			return false;
		a += x * op->mem.scale;
	}
	*out = a;
	return true;
}

/* an explicit operand's value: a register, an immediate or (for lea) an
 * address; memory reads are unknown */
static bool opval(const struct tx_state *s, const struct tx_insn *t, unsigned i, uint64_t *out)
{
	const ZydisDecodedOperand *op = &t->ops[i];
	unsigned w = op->size ? op->size : 64;
	switch (op->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		return reg_get(s, op->reg.value, w, out);
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		/* sign-extended to the operation's width, which the caller
		 * masks to (mov r64, imm32 sets all 64 bits) */
		*out = op->imm.is_signed ? (uint64_t)op->imm.value.s : op->imm.value.u;
		return true;
	case ZYDIS_OPERAND_TYPE_MEMORY: {
		uint64_t a;
		if (!agen(s, t, op, &a))
			return false;
		if (op->mem.type == ZYDIS_MEMOP_TYPE_AGEN) {
			*out = a & wmask(w);
			return true;
		}
		return op->mem.type == ZYDIS_MEMOP_TYPE_MEM && mem_read(s, a, w, out);
	}
	default:
		return false;
	}
}

/* writes operand I (a register, or a stack location) */
static void dst_write(struct tx_state *s, const struct tx_insn *t, unsigned i, unsigned w, bool known, uint64_t val)
{
	const ZydisDecodedOperand *op = &t->ops[i];
	uint64_t a;
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER)
		reg_set(s, op->reg.value, w, known, val);
	else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM && agen(s, t, op, &a))
		mem_write(s, a, op->size / 8, known, val);
}

static void flags_set(struct tx_state *s, uint8_t known, bool zf, bool sf, bool cf, bool of)
{
	s->fknown = known;
	s->flags = (uint8_t)((zf ? F_ZF : 0) | (sf ? F_SF : 0) | (cf ? F_CF : 0) | (of ? F_OF : 0));
}

/* a Jcc/CMOVcc/SETcc condition: 1 holds, 0 does not, -1 unknown */
static int cond(const struct tx_state *s, ZydisMnemonic m)
{
	enum { O, NO, B, NB, Z, NZ, BE, NBE, S, NS, L, NL, LE, NLE, BAD } c = BAD;
	switch (m) {
	case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_CMOVO: case ZYDIS_MNEMONIC_SETO: c = O; break;
	case ZYDIS_MNEMONIC_JNO: case ZYDIS_MNEMONIC_CMOVNO: case ZYDIS_MNEMONIC_SETNO: c = NO; break;
	case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_CMOVB: case ZYDIS_MNEMONIC_SETB: c = B; break;
	case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_CMOVNB: case ZYDIS_MNEMONIC_SETNB: c = NB; break;
	case ZYDIS_MNEMONIC_JZ: case ZYDIS_MNEMONIC_CMOVZ: case ZYDIS_MNEMONIC_SETZ: c = Z; break;
	case ZYDIS_MNEMONIC_JNZ: case ZYDIS_MNEMONIC_CMOVNZ: case ZYDIS_MNEMONIC_SETNZ: c = NZ; break;
	case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_CMOVBE: case ZYDIS_MNEMONIC_SETBE: c = BE; break;
	case ZYDIS_MNEMONIC_JNBE: case ZYDIS_MNEMONIC_CMOVNBE: case ZYDIS_MNEMONIC_SETNBE: c = NBE; break;
	case ZYDIS_MNEMONIC_JS: case ZYDIS_MNEMONIC_CMOVS: case ZYDIS_MNEMONIC_SETS: c = S; break;
	case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_CMOVNS: case ZYDIS_MNEMONIC_SETNS: c = NS; break;
	case ZYDIS_MNEMONIC_JL: case ZYDIS_MNEMONIC_CMOVL: case ZYDIS_MNEMONIC_SETL: c = L; break;
	case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_CMOVNL: case ZYDIS_MNEMONIC_SETNL: c = NL; break;
	case ZYDIS_MNEMONIC_JLE: case ZYDIS_MNEMONIC_CMOVLE: case ZYDIS_MNEMONIC_SETLE: c = LE; break;
	case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_CMOVNLE: case ZYDIS_MNEMONIC_SETNLE: c = NLE; break;
	default: return -1;	/* parity, and anything else */
	}
	static const uint8_t need[] = { [O] = F_OF, [NO] = F_OF, [B] = F_CF, [NB] = F_CF, [Z] = F_ZF,
					[NZ] = F_ZF, [BE] = F_CF | F_ZF, [NBE] = F_CF | F_ZF, [S] = F_SF,
					[NS] = F_SF, [L] = F_SF | F_OF, [NL] = F_SF | F_OF,
					[LE] = F_ZF | F_SF | F_OF, [NLE] = F_ZF | F_SF | F_OF };
	if ((s->fknown & need[c]) != need[c])
		return -1;
	bool zf = s->flags & F_ZF, sf = s->flags & F_SF, cf = s->flags & F_CF, of = s->flags & F_OF;
	switch (c) {
	case O: return of;
	case NO: return !of;
	case B: return cf;
	case NB: return !cf;
	case Z: return zf;
	case NZ: return !zf;
	case BE: return cf || zf;
	case NBE: return !cf && !zf;
	case S: return sf;
	case NS: return !sf;
	case L: return sf != of;
	case NL: return sf == of;
	case LE: return zf || sf != of;
	default: return !zf && sf == of;
	}
}

/* what an instruction not modelled here does: the registers it writes
 * become unknown, and the flags if it changes them */
static void clobber(struct tx_state *s, const struct tx_insn *t)
{
	for (unsigned i = 0; i < t->zi.operand_count; i++) {
		const ZydisDecodedOperand *op = &t->ops[i];
		if (!(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER)
			reg_set(s, op->reg.value, 64, false, 0);
		else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY)
			dst_write(s, t, i, 0, false, 0);
	}
	const ZydisAccessedFlags *f = t->zi.cpu_flags;
	if (f && (f->modified | f->set_0 | f->set_1 | f->undefined))
		s->fknown = 0;
}

/* movd/movq between general-purpose registers, the low bits of vector
 * registers and the stack: the low 32 or 64 bits move, the rest of a
 * vector destination is zeroed */
static void movdq(struct tx_state *s, const struct tx_insn *t)
{
	ZydisMnemonic m = t->zi.mnemonic;
	unsigned w = m == ZYDIS_MNEMONIC_MOVD || m == ZYDIS_MNEMONIC_VMOVD ? 32 : 64;
	const ZydisDecodedOperand *d = &t->ops[0], *src = &t->ops[1];
	uint64_t v = 0;
	bool k = false;
	if (t->zi.operand_count_visible < 2 ||
	    (d->type == ZYDIS_OPERAND_TYPE_MEMORY && src->type != ZYDIS_OPERAND_TYPE_REGISTER)) {
		clobber(s, t);
		return;
	}
	if (src->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		int x = vec(src->reg.value);
		if (x >= 0) {
			k = s->xknown >> x & 1;
			v = s->x[x] & wmask(w);
		} else {
			k = reg_get(s, src->reg.value, w, &v);
		}
	} else if (src->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		uint64_t a;
		k = src->mem.type == ZYDIS_MEMOP_TYPE_MEM && agen(s, t, src, &a) && mem_read(s, a, w, &v);
	}
	if (d->type == ZYDIS_OPERAND_TYPE_REGISTER)
		reg_set(s, d->reg.value, gpr(d->reg.value) >= 0 ? w : 64, k, v & wmask(w));
	else
		dst_write(s, t, 0, w, k, v);
}

static bool is_reg(const struct tx_insn *t, unsigned i)
{
	return t->zi.operand_count_visible > i && t->ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER;
}

/* two-operand arithmetic and logic: the result and the flags */
static void alu2(struct tx_state *s, const struct tx_insn *t)
{
	ZydisMnemonic m = t->zi.mnemonic;
	const ZydisDecodedOperand *d = &t->ops[0];
	unsigned w = d->size;
	bool writes = m != ZYDIS_MNEMONIC_CMP && m != ZYDIS_MNEMONIC_TEST;
	uint64_t a = 0, b = 0;
	bool ka = opval(s, t, 0, &a), kb = opval(s, t, 1, &b);
	/* xor r, r and sub r, r name zero whatever r held */
	bool same = is_reg(t, 1) && d->type == ZYDIS_OPERAND_TYPE_REGISTER && d->reg.value == t->ops[1].reg.value;
	if (same && (m == ZYDIS_MNEMONIC_XOR || m == ZYDIS_MNEMONIC_SUB)) {
		ka = kb = true;
		a = b = 0;
	}
	a &= wmask(w ? w : 64);
	b &= wmask(w ? w : 64);
	if (!ka || !kb || w == 0 || w > 64) {
		if (writes)
			dst_write(s, t, 0, w, false, 0);
		s->fknown = 0;
		return;
	}
	uint64_t r;
	bool cf = false, of = false;
	switch (m) {
	case ZYDIS_MNEMONIC_ADD:
		r = (a + b) & wmask(w);
		cf = r < a;
		of = sign(a, w) == sign(b, w) && sign(r, w) != sign(a, w);
		break;
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_CMP:
		r = (a - b) & wmask(w);
		cf = a < b;
		of = sign(a, w) != sign(b, w) && sign(r, w) != sign(a, w);
		break;
	case ZYDIS_MNEMONIC_AND:
	case ZYDIS_MNEMONIC_TEST:
		r = a & b;
		break;
	case ZYDIS_MNEMONIC_OR:
		r = a | b;
		break;
	default:	/* XOR */
		r = a ^ b;
		break;
	}
	flags_set(s, F_ZF | F_SF | F_CF | F_OF, r == 0, sign(r, w), cf, of);
	if (writes)
		dst_write(s, t, 0, w, true, r);
}

/* inc, dec, neg, not */
static void alu1(struct tx_state *s, const struct tx_insn *t)
{
	ZydisMnemonic m = t->zi.mnemonic;
	const ZydisDecodedOperand *d = &t->ops[0];
	unsigned w = d->size;
	uint64_t a;
	if (!opval(s, t, 0, &a) || w == 0 || w > 64) {
		dst_write(s, t, 0, w, false, 0);
		if (m != ZYDIS_MNEMONIC_NOT)
			s->fknown = m == ZYDIS_MNEMONIC_NEG ? 0 : s->fknown & F_CF;
		return;
	}
	uint64_t r;
	uint8_t keep_cf = s->fknown & F_CF;
	bool cf = s->flags & F_CF;
	switch (m) {
	case ZYDIS_MNEMONIC_INC:
		r = (a + 1) & wmask(w);
		flags_set(s, F_ZF | F_SF | F_OF | keep_cf, r == 0, sign(r, w), cf, r == 1ULL << (w - 1));
		break;
	case ZYDIS_MNEMONIC_DEC:
		r = (a - 1) & wmask(w);
		flags_set(s, F_ZF | F_SF | F_OF | keep_cf, r == 0, sign(r, w), cf, a == 1ULL << (w - 1));
		break;
	case ZYDIS_MNEMONIC_NEG:
		r = (0 - a) & wmask(w);
		flags_set(s, F_ZF | F_SF | F_CF | F_OF, r == 0, sign(r, w), a != 0, a == 1ULL << (w - 1));
		break;
	default:	/* NOT: no flags */
		r = ~a & wmask(w);
		break;
	}
	dst_write(s, t, 0, w, true, r);
}

/* shifts by an immediate or cl; the flags they leave are not followed */
static void shift(struct tx_state *s, const struct tx_insn *t)
{
	const ZydisDecodedOperand *d = &t->ops[0];
	unsigned w = d->size;
	uint64_t a = 0, n = 0;
	s->fknown = 0;
	bool known = w && w <= 64 && opval(s, t, 0, &a) &&
		     (t->zi.operand_count_visible < 2 ? (n = 1, true) : opval(s, t, 1, &n));
	if (!known) {
		dst_write(s, t, 0, w, false, 0);
		return;
	}
	n &= w == 64 ? 63 : 31;
	uint64_t r;
	switch (t->zi.mnemonic) {
	case ZYDIS_MNEMONIC_SHL:
		r = n >= w ? 0 : a << n;
		break;
	case ZYDIS_MNEMONIC_SHR:
		r = n >= w ? 0 : a >> n;
		break;
	default: {	/* SAR */
		int64_t x = (int64_t)(a << (64 - w)) >> (64 - w);
		r = (uint64_t)(x >> (n >= w ? w - 1 : n));
		break;
	}
	}
	dst_write(s, t, 0, w, true, r & wmask(w));
}

static void imul(struct tx_state *s, const struct tx_insn *t)
{
	unsigned nv = t->zi.operand_count_visible;
	s->fknown = 0;
	if (nv < 2) {	/* rdx:rax = rax * src */
		clobber(s, t);
		return;
	}
	const ZydisDecodedOperand *d = &t->ops[0];
	unsigned w = d->size;
	uint64_t a = 0, b = 0;
	bool known = nv == 2 ? opval(s, t, 0, &a) && opval(s, t, 1, &b) : opval(s, t, 1, &a) && opval(s, t, 2, &b);
	reg_set(s, d->reg.value, w, known, known ? (a * b) & wmask(w) : 0);
}

static void mov_ext(struct tx_state *s, const struct tx_insn *t, bool sign_extend)
{
	const ZydisDecodedOperand *d = &t->ops[0];
	unsigned sw = t->ops[1].size;
	uint64_t a;
	bool known = sw && sw <= 64 && opval(s, t, 1, &a);
	if (known && sign_extend && sw < 64 && sign(a, sw))
		a |= ~wmask(sw);
	reg_set(s, d->reg.value, d->size, known, known ? a & wmask(d->size) : 0);
}

/* the caller-saved registers a call leaves unknown: rax, rcx, rdx, rsi,
 * rdi, r8-r11 */
#define CALL_CLOBBERS ((uint16_t)(1u << 0 | 1u << 1 | 1u << 2 | 1u << 6 | 1u << 7 | 0xf00u))

struct tx_loop_count {
	uint64_t heads;		/* times its first instruction ran */
	uint64_t entries;	/* times it was reached from outside */
	uint64_t at_entry;	/* heads at its last entry */
	uint64_t min_trips, max_trips;	/* over its completed entries */
	uint64_t completed;
};

/* the smallest of LOOPS around ADDR, -1 when none */
static long smallest_around(const struct sim_loop *loops, size_t n, uint64_t addr)
{
	long best = -1;
	for (size_t i = 0; i < n; i++)
		if (loops[i].start <= addr && addr < loops[i].end &&
		    (best < 0 || loops[i].end - loops[i].start < loops[best].end - loops[best].start))
			best = (long)i;
	return best;
}

/* one run of a function's code (the counting and the recording pass) */
struct tx_run {
	uint64_t addr;
	size_t len;
	const struct tx_insn *code;
	const int32_t *at;	/* offset -> instruction, -1 inside one */
	const int32_t *head;	/* offset -> loop whose first instruction it is */
	const struct sim_loop *loops;
	size_t nloops;
	uint64_t max_steps;
	struct tx_loop_count *lc;	/* per loop */
	/* instructions in [lo, hi): counted, and the ones after the first
	 * SKIP of them recorded into IPS (up to MAX) when IPS is given */
	uint64_t lo, hi, in_range, skip;
	struct sim_path_rec *ips;
	size_t nips, max;
};

/* the data addresses of T's memory operands as the model takes them (the
 * first two read or written, decode.c's order), up to the first unknown */
static uint8_t data_addresses(const struct tx_state *s, const struct tx_insn *t, uint64_t *mem)
{
	uint8_t n = 0;
	for (unsigned i = 0; i < t->zi.operand_count && n < 2; i++) {
		const ZydisDecodedOperand *op = &t->ops[i];
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB) ||
		    !(op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)))
			continue;
		if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB || !agen(s, t, op, &mem[n]))
			break;
		n++;
	}
	return n;
}

/* an entry into loop H: the last entry's passes through the head are
 * its trips */
static void count_entry(struct tx_run *r, size_t h)
{
	struct tx_loop_count *c = &r->lc[h];
	if (c->entries) {
		uint64_t tr = c->heads - c->at_entry;
		c->min_trips = c->completed ? (tr < c->min_trips ? tr : c->min_trips) : tr;
		c->max_trips = tr > c->max_trips ? tr : c->max_trips;
		c->completed++;
	}
	c->entries++;
	c->at_entry = c->heads;
}

/* the loop heads: their counts per entry */
static void count_head(struct tx_run *r, int32_t h, uint64_t prev)
{
	if (prev < r->loops[h].start || prev >= r->loops[h].end)
		count_entry(r, (size_t)h);
	r->lc[h].heads++;
}

/* a jump from PC to NEXT that lands inside a loop, not at its head, from
 * outside it enters it: gcc rotates loops so that the first pass starts
 * at the test at the bottom (syrk -O3's k loop: a jmp to its latch's
 * compare), and the head is then reached from inside */
static void count_jump_in(struct tx_run *r, uint64_t pc, uint64_t next)
{
	for (size_t i = 0; i < r->nloops; i++) {
		const struct sim_loop *l = &r->loops[i];
		if (next > l->start && next < l->end && (pc < l->start || pc >= l->end))
			count_entry(r, i);
	}
}

/* 1 when the straight code from FROM up to TO (a forward branch's
 * fall-through block) stores through a memory operand (a push's or a
 * call's implicit stack write does not count), 0 when it does not or is
 * not one block */
static int skips_store(const struct tx_run *r, uint64_t from, uint64_t to)
{
	for (uint64_t pc = from; pc < to;) {
		if (pc < r->addr || pc >= r->addr + r->len || r->at[pc - r->addr] < 0)
			return 0;
		const struct tx_insn *t = &r->code[r->at[pc - r->addr]];
		if (t->zi.meta.category == ZYDIS_CATEGORY_COND_BR || t->zi.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    t->zi.meta.category == ZYDIS_CATEGORY_CALL || t->zi.meta.category == ZYDIS_CATEGORY_RET)
			return 0;	/* not one block: keep the fall-through */
		for (unsigned i = 0; i < t->zi.operand_count_visible; i++)
			if (t->ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			    (t->ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
				return 1;
		pc += t->zi.length;
	}
	return 0;
}

/* runs the function from its entry; true when it reached its return */
static bool follow(struct tx_run *r, struct tx_state *s)
{
	uint64_t pc = r->addr, prev = 0;
	for (uint64_t step = 0; step < r->max_steps; step++) {
		if (pc < r->addr || pc >= r->addr + r->len || r->at[pc - r->addr] < 0)
			return false;	/* into the middle of an instruction, or undecoded */
		const struct tx_insn *t = &r->code[r->at[pc - r->addr]];
		int32_t h = r->head[pc - r->addr];
		if (h >= 0)
			count_head(r, h, prev);
		if (pc >= r->lo && pc < r->hi) {
			if (r->ips && r->in_range >= r->skip && r->nips < r->max) {
				struct sim_path_rec *p = &r->ips[r->nips++];
				p->ip = pc;
				p->nmem = data_addresses(s, t, p->mem);
			}
			r->in_range++;
		}
		prev = pc;
		uint64_t next = pc + t->zi.length;
		ZydisMnemonic m = t->zi.mnemonic;
		const ZydisDecodedOperand *d = &t->ops[0];
		const struct sim_loop *loops = r->loops;
		size_t n = r->nloops;
		uint64_t addr = r->addr, len = r->len;
		bool done = false, stop = false;
		switch (m) {
		case ZYDIS_MNEMONIC_RET:
			done = true;
			break;
		case ZYDIS_MNEMONIC_JMP:
			if (d->type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
				stop = true;	/* an indirect jump: not followed */
				break;
			}
			next += (uint64_t)d->imm.value.s;
			/* out of the function: a tail call when the frame is
			 * gone (rsp back where it started), else a jump into
			 * code placed elsewhere (gcc's .cold parts), not followed */
			if (next < addr || next >= addr + len) {
				done = (s->known >> RSP & 1) && s->v[RSP] == STACK_TOP;
				stop = !done;
			}
			break;
		case ZYDIS_MNEMONIC_CALL:
			s->known &= (uint16_t)~CALL_CLOBBERS;
			s->xknown = 0;	/* every vector register is the callee's */
			s->fknown = 0;
			break;
		case ZYDIS_MNEMONIC_MOV:
			{
				uint64_t v = 0;
				bool k = opval(s, t, 1, &v);
				dst_write(s, t, 0, d->size, k, v);
			}
			break;
		case ZYDIS_MNEMONIC_MOVD:
		case ZYDIS_MNEMONIC_VMOVD:
		case ZYDIS_MNEMONIC_MOVQ:
		case ZYDIS_MNEMONIC_VMOVQ:
			movdq(s, t);
			break;
		case ZYDIS_MNEMONIC_MOVZX:
			mov_ext(s, t, false);
			break;
		case ZYDIS_MNEMONIC_MOVSX:
		case ZYDIS_MNEMONIC_MOVSXD:
			mov_ext(s, t, true);
			break;
		case ZYDIS_MNEMONIC_LEA: {
			uint64_t v = 0;
			bool k = opval(s, t, 1, &v);
			reg_set(s, d->reg.value, d->size, k, v);
			break;
		}
		case ZYDIS_MNEMONIC_ADD:
		case ZYDIS_MNEMONIC_SUB:
		case ZYDIS_MNEMONIC_AND:
		case ZYDIS_MNEMONIC_OR:
		case ZYDIS_MNEMONIC_XOR:
		case ZYDIS_MNEMONIC_CMP:
		case ZYDIS_MNEMONIC_TEST:
			alu2(s, t);
			break;
		case ZYDIS_MNEMONIC_INC:
		case ZYDIS_MNEMONIC_DEC:
		case ZYDIS_MNEMONIC_NEG:
		case ZYDIS_MNEMONIC_NOT:
			alu1(s, t);
			break;
		case ZYDIS_MNEMONIC_SHL:
		case ZYDIS_MNEMONIC_SHR:
		case ZYDIS_MNEMONIC_SAR:
			shift(s, t);
			break;
		case ZYDIS_MNEMONIC_IMUL:
			imul(s, t);
			break;
		case ZYDIS_MNEMONIC_NOP:
		case ZYDIS_MNEMONIC_ENDBR64:
			break;
		case ZYDIS_MNEMONIC_PUSH: {
			uint64_t v = 0;
			bool k = opval(s, t, 0, &v);
			if (!(s->known >> RSP & 1)) {
				clobber(s, t);
				break;
			}
			s->v[RSP] -= 8;
			mem_write(s, s->v[RSP], 8, k, v);
			break;
		}
		case ZYDIS_MNEMONIC_POP:
		case ZYDIS_MNEMONIC_LEAVE: {
			if (m == ZYDIS_MNEMONIC_LEAVE) {
				s->v[RSP] = s->v[RBP];
				s->known = (uint16_t)((s->known & ~(1u << RSP)) | (s->known >> RBP & 1) << RSP);
			}
			uint64_t v = 0;
			bool k = (s->known >> RSP & 1) && mem_read(s, s->v[RSP], 64, &v);
			if (!(s->known >> RSP & 1)) {
				clobber(s, t);
				break;
			}
			s->v[RSP] += 8;
			if (m == ZYDIS_MNEMONIC_LEAVE)
				reg_set(s, ZYDIS_REGISTER_RBP, 64, k, v);
			else
				dst_write(s, t, 0, 64, k, v);
			break;
		}
		default:
			if (t->zi.meta.category == ZYDIS_CATEGORY_COND_BR) {
				int c = cond(s, m);
				uint64_t target = next + (uint64_t)d->imm.value.s;
				if (c < 0 && d->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && target > pc) {
					/* undecided: an if inside a loop's body takes the
					 * path around a store when it skips one (Ball and
					 * Larus's store heuristic, as the loop choice does:
					 * floyd-warshall's rare update), else its
					 * fall-through path; anything else ends the run */
					long l = smallest_around(loops, n, pc);
					if (l >= 0 && target < loops[l].end)
						c = skips_store(r, next, target);
				}
				if (c < 0 || d->type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
					stop = true;
					break;
				}
				if (c)
					next = target;
				break;
			}
			if (t->zi.meta.category == ZYDIS_CATEGORY_CMOV) {
				int c = cond(s, m);
				uint64_t v = 0;
				if (c == 0)
					break;
				bool k = c == 1 && opval(s, t, 1, &v);
				reg_set(s, d->reg.value, d->size, k, v);
				break;
			}
			if (t->zi.meta.category == ZYDIS_CATEGORY_SETCC) {
				int c = cond(s, m);
				dst_write(s, t, 0, 8, c >= 0, (uint64_t)(c > 0));
				break;
			}
			if (t->zi.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
			    t->zi.meta.category == ZYDIS_CATEGORY_SYSCALL ||
			    t->zi.meta.category == ZYDIS_CATEGORY_INTERRUPT || m == ZYDIS_MNEMONIC_HLT ||
			    m == ZYDIS_MNEMONIC_UD2) {
				stop = true;
				break;
			}
			clobber(s, t);
			break;
		}
		if (done)
			return true;
		if (stop)
			return false;
		if (next != pc + t->zi.length)
			count_jump_in(r, pc, next);
		pc = next;
	}
	return false;
}

/* the function decoded once, and where its loops start */
struct tx_code {
	struct tx_insn *code;
	int32_t *at, *head;
};

static void code_free(struct tx_code *c)
{
	free(c->code);
	free(c->at);
	free(c->head);
}

static bool code_decode(struct tx_code *c, uint64_t addr, const uint8_t *bytes, size_t len,
			const struct sim_loop *loops, size_t n)
{
	memset(c, 0, sizeof *c);
	if (!len || len > TX_MAX_BYTES)
		return false;
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	c->at = malloc(len * sizeof *c->at);
	c->head = malloc(len * sizeof *c->head);
	if (!c->at || !c->head)
		return false;
	for (size_t i = 0; i < len; i++)
		c->at[i] = c->head[i] = -1;
	size_t ncode = 0, cap = 0;
	for (size_t off = 0; off < len;) {
		if (ncode == cap) {
			cap = cap ? 2 * cap : 256;
			struct tx_insn *c2 = realloc(c->code, cap * sizeof *c->code);
			if (!c2)
				return false;
			c->code = c2;
		}
		struct tx_insn *t = &c->code[ncode];
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes + off, len - off, &t->zi, t->ops)))
			break;
		t->addr = addr + off;
		c->at[off] = (int32_t)ncode++;
		off += t->zi.length;
	}
	for (size_t i = 0; i < n; i++)
		if (loops[i].start >= addr && loops[i].start < addr + len)
			c->head[loops[i].start - addr] = (int32_t)i;
	return true;
}

/* one run with a fresh state; false when it did not reach the return
 * (or memory ran out) */
static bool run_once(struct tx_run *r)
{
	struct tx_state s = { .known = 1u << RSP, .fknown = 0 };
	s.v[RSP] = STACK_TOP;
	s.stack = calloc(STACK_BYTES, 1);
	s.stack_known = calloc(STACK_BYTES, 1);
	bool done = s.stack && s.stack_known && follow(r, &s);
	free(s.stack);
	free(s.stack_known);
	return done;
}

bool sim_trips_by_execution(uint64_t addr, const uint8_t *bytes, size_t len, const struct sim_loop *loops,
			    size_t n, uint64_t max_steps, double *trips)
{
	for (size_t i = 0; i < n; i++)
		trips[i] = 0;
	struct tx_code c = { 0 };
	struct tx_loop_count *lc = n ? calloc(n, sizeof *lc) : NULL;
	bool done = false;
	if (!lc || !code_decode(&c, addr, bytes, len, loops, n))
		goto out;
	struct tx_run r = { .addr = addr, .len = len, .code = c.code, .at = c.at, .head = c.head,
			    .loops = loops, .nloops = n, .max_steps = max_steps, .lc = lc };
	done = run_once(&r);
	for (size_t i = 0; i < n; i++) {
		struct tx_loop_count *k = &lc[i];
		if (!k->entries)
			continue;
		if (done)
			trips[i] = (double)k->heads / (double)k->entries;
		else if (k->completed >= 2 && k->min_trips == k->max_trips)
			trips[i] = (double)k->min_trips;	/* cut short: a loop that ran alike at every entry */
	}
out:
	code_free(&c);
	free(lc);
	return done;
}

int sim_follow_path(uint64_t addr, const uint8_t *bytes, size_t len, const struct sim_loop *loops, size_t nloops,
		    uint64_t lo, uint64_t hi, size_t max, uint64_t max_steps, struct sim_path_rec **ips, size_t *n)
{
	*ips = NULL;
	*n = 0;
	struct tx_code c = { 0 };
	struct tx_loop_count *lc = nloops ? calloc(nloops, sizeof *lc) : NULL;
	int rc = -1;
	if (!max || (nloops && !lc) || !code_decode(&c, addr, bytes, len, loops, nloops))
		goto out;
	struct tx_run r = { .addr = addr, .len = len, .code = c.code, .at = c.at, .head = c.head,
			    .loops = loops, .nloops = nloops, .lc = lc, .max_steps = max_steps, .lo = lo, .hi = hi };
	/* first how long the path through [lo, hi) is, then a window of it
	 * from its middle, where a triangular nest runs its average rows */
	if (!run_once(&r) || !r.in_range)
		goto out;
	uint64_t total = r.in_range;
	r.max = total < max ? (size_t)total : max;
	r.skip = (total - r.max) / 2;
	r.in_range = 0;
	if (nloops)
		memset(lc, 0, nloops * sizeof *lc);
	r.ips = malloc(r.max * sizeof *r.ips);
	if (!r.ips || !run_once(&r) || r.nips != r.max) {
		free(r.ips);
		goto out;
	}
	*ips = r.ips;
	*n = r.nips;
	rc = 0;
out:
	code_free(&c);
	free(lc);
	return rc;
}
