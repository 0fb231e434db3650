/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Machine models: loading data/machines/NAME.mm (see its FORMAT) and looking
 * up the resource mapping of an instruction form. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "outpath.h"

static void merr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void merr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	if (*end == 'K' || *end == 'k')
		v *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024, end++;
	/* no cache is near a terabyte: larger (or not finite) is a typo */
	if (*end || !isfinite(v) || v > (double)(1ull << 40))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int parse_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* no machine number is near a billion: larger ones are typos that
	 * would overflow the model's clock */
	if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

/* "key=value" attribute: returns the value when TOK starts with KEY= */
static const char *attr(const char *tok, const char *key)
{
	size_t n = strlen(key);
	if (!strncmp(tok, key, n) && tok[n] == '=')
		return tok + n + 1;
	return NULL;
}

static int port_index(const struct sim_machine *m, const char *name, size_t len)
{
	for (unsigned i = 0; i < m->nports; i++)
		if (strlen(m->portname[i]) == len && !strncmp(m->portname[i], name, len))
			return (int)i;
	return -1;
}

/* "p0156" -> mask of ports. Port names are single characters or digits
 * in this notation, which is what every x86 port map uses. */
static int parse_group(const struct sim_machine *m, const char *s, size_t len, uint32_t *mask)
{
	if (len < 2 || s[0] != 'p')
		return -1;
	uint32_t mk = 0;
	for (size_t i = 1; i < len; i++) {
		int p = port_index(m, s + i, 1);
		if (p < 0)
			return -1;
		mk |= 1u << p;
	}
	*mask = mk;
	return 0;
}

/* "2p0156+p23" -> µop masks appended to F */
int sim_machine_parse_uops(const struct sim_machine *m, const char *s, struct sim_form *f)
{
	f->nuops = 0;
	if (!strcmp(s, "-"))
		return 0;
	while (*s) {
		const char *plus = strchr(s, '+');
		size_t len = plus ? (size_t)(plus - s) : strlen(s);
		unsigned rep = 1;
		size_t i = 0;
		if (!len)
			return -1;	/* "p0+" or "p0++p1" */
		if (isdigit((unsigned char)s[0])) {
			rep = 0;
			while (i < len && isdigit((unsigned char)s[i])) {
				rep = rep * 10 + (unsigned)(s[i++] - '0');
				if (rep > SIM_FORM_MAX_UOPS)
					return -1;
			}
		}
		uint32_t mask;
		if (rep == 0 || parse_group(m, s + i, len - i, &mask))
			return -1;
		for (unsigned k = 0; k < rep; k++) {
			if (f->nuops >= SIM_FORM_MAX_UOPS)
				return -1;
			f->uop[f->nuops++] = mask;
		}
		s += len;
		if (*s == '+' && !*++s)
			return -1;
	}
	return 0;
}

static const char *const operand_kinds[] = {
	"r8", "r16", "r32", "r64", "r", "x", "y", "z", "v", "k", "m8", "m16", "m32", "m64", "m80",
	"m128", "m256", "m512", "m", "mb", "a", "a3", "i", "rel", "*", "st", "mm", "sreg", NULL,
};

static bool valid_kind(const char *k)
{
	for (int i = 0; operand_kinds[i]; i++)
		if (!strcmp(k, operand_kinds[i]))
			return true;
	return false;
}

static int parse_operands(const char *s, struct sim_form *f)
{
	f->nops = 0;
	f->rest = false;
	if (!strcmp(s, "-"))
		return 0;
	char buf[128];
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (f->rest || !valid_kind(t) || f->nops >= SIM_FORM_MAX_OPS)
			return -1;
		if (!strcmp(t, "*")) {
			f->rest = true;
			continue;
		}
		snprintf(f->op[f->nops++], sizeof f->op[0], "%s", t);
	}
	return 0;
}

static int add_group(struct sim_machine *m, uint32_t mask)
{
	for (unsigned i = 0; i < m->ngroups; i++)
		if (m->group[i] == mask)
			return 0;
	if (m->ngroups >= SIM_MAX_GROUPS)
		return -1;
	m->group[m->ngroups++] = mask;
	return 0;
}

static int popcount32(uint32_t x)
{
	return __builtin_popcount(x);
}

static int cmp_group(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int px = popcount32(x), py = popcount32(y);
	if (px != py)
		return px - py;
	/* lowest port first: p0 before p1, p01 before p05 */
	uint32_t lx = x & -x, ly = y & -y;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void group_name(const struct sim_machine *m, uint32_t mask, char *buf, size_t n)
{
	size_t o = 0;
	buf[o++] = 'p';
	for (unsigned p = 0; p < m->nports && o + 1 < n; p++)
		if (mask & (1u << p))
			buf[o++] = m->portname[p][0];
	buf[o] = 0;
}

static int add_res(struct sim_machine *m, const char *name, enum sim_res_kind kind, uint32_t mask,
		   double cap)
{
	if (m->nres >= SIM_MAX_RES)
		return -1;
	struct sim_resdef *r = &m->res[m->nres];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->kind = kind;
	r->mask = mask;
	r->cap = cap;
	return (int)m->nres++;
}

/* resources: the port groups, then the fixed ones */
static int build_resources(struct sim_machine *m, char *err, size_t errlen)
{
	for (size_t i = 0; i < m->nforms; i++)
		for (unsigned u = 0; u < m->forms[i].nuops; u++)
			if (add_group(m, m->forms[i].uop[u]))
				goto too_many;
	for (unsigned u = 0; u < m->nload_uop; u++)
		if (add_group(m, m->load_uop[u]))
			goto too_many;
	for (unsigned u = 0; u < m->nstore_uop; u++)
		if (add_group(m, m->store_uop[u]))
			goto too_many;
	qsort(m->group, m->ngroups, sizeof m->group[0], cmp_group);
	for (unsigned g = 0; g < m->ngroups; g++) {
		char name[24];
		group_name(m, m->group[g], name, sizeof name);
		if (add_res(m, name, SIM_RK_PORTS, m->group[g], popcount32(m->group[g])) < 0)
			goto too_many;
	}
	double l2 = m->cache_gap[1] > 0 ? 1 / m->cache_gap[1] : 1;
	double l3 = m->cache_gap[2] > 0 ? 1 / m->cache_gap[2] : 1;
	double mem = m->cache_gap[3] > 0 ? 1 / m->cache_gap[3] : 1;
	if ((m->r_frontend = add_res(m, "FRONTEND", SIM_RK_FRONTEND, 0, m->frontend)) < 0 ||
	    (m->r_lat = add_res(m, "INST_LAT", SIM_RK_INST_LAT, 0, 1)) < 0 ||
	    (m->r_window = add_res(m, "INST_WINDOW", SIM_RK_INST_WINDOW, 0, m->window)) < 0 ||
	    (m->r_l2 = add_res(m, "L2_THR", SIM_RK_L2_THR, 0, l2)) < 0 ||
	    (m->r_l3 = add_res(m, "L3_THR", SIM_RK_L3_THR, 0, l3)) < 0 ||
	    (m->r_mem = add_res(m, "MEM_THR", SIM_RK_MEM_THR, 0, mem)) < 0 ||
	    (m->r_div = add_res(m, "DIV", SIM_RK_DIV, 0, m->dividers)) < 0 ||
	    (m->r_branch = add_res(m, "BRANCH", SIM_RK_BRANCH, 0, 1)) < 0)
		goto too_many;
	return 0;
too_many:
	merr(err, errlen, "%s: more than %d resources (port groups)", m->path, SIM_MAX_RES - 8);
	return -1;
}

/* every form's µops, expanded to the groups they use, must fit a
 * sim_insn (with the derived load and store µops added) */
static int check_uses(struct sim_machine *m, char *err, size_t errlen)
{
	uint8_t tmp[SIM_MAX_USES * 2];
	for (size_t i = 0; i < m->nforms; i++) {
		const struct sim_form *f = &m->forms[i];
		unsigned n = 0, nload = 0;
		for (unsigned u = 0; u < f->nuops; u++) {
			unsigned k = sim_machine_uop_uses(m, f->uop[u], tmp, sizeof tmp);
			if (sim_machine_is_load(m, f->uop[u]))
				nload += k;
			else
				n += k;
		}
		if (n + 2 * 8 > SIM_MAX_USES || nload + 2 * 4 > SIM_MAX_LOAD_USES) {
			merr(err, errlen, "%s: form '%s %s...' has more µops than the simulator takes", m->path,
			     f->names[0], f->nops ? f->op[0] : "-");
			return -1;
		}
	}
	return 0;
}

static void index_forms(struct sim_machine *m)
{
	for (size_t i = 0; i < m->nforms; i++) {
		struct sim_form *f = &m->forms[i];
		for (unsigned n = 0; n < f->nnames; n++) {
			unsigned h = sim_hash_str(f->names[n]) % SIM_FORM_HASH;
			struct sim_form_ref *ref = malloc(sizeof *ref);
			if (!ref)
				abort();
			ref->form = i;
			ref->name = f->names[n];
			ref->next = NULL;
			/* keep file order within a bucket: append */
			struct sim_form_ref **pp = &m->form_hash[h];
			while (*pp)
				pp = &(*pp)->next;
			*pp = ref;
		}
	}
}

unsigned sim_hash_str(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int parse_form(struct sim_machine *m, char **tok, int ntok, bool category, char *err,
		      size_t errlen, const char *where)
{
	if (ntok < 4) {
		merr(err, errlen, "%s: '%s' needs names, operands and µops", where, tok[0]);
		return -1;
	}
	if (m->nforms == m->forms_cap) {
		m->forms_cap = m->forms_cap ? m->forms_cap * 2 : 256;
		m->forms = realloc(m->forms, m->forms_cap * sizeof *m->forms);
		if (!m->forms)
			abort();
	}
	struct sim_form *f = &m->forms[m->nforms];
	memset(f, 0, sizeof *f);
	f->category = category;
	f->lat = 1;
	f->fused = -1;
	char *names = strdup(tok[1]);
	if (!names)
		abort();
	f->names_buf = names;
	for (char *save = NULL, *t = strtok_r(names, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
		if (f->nnames >= SIM_FORM_MAX_NAMES) {
			merr(err, errlen, "%s: too many names (at most %d)", where, SIM_FORM_MAX_NAMES);
			free(names);
			return -1;
		}
		f->names[f->nnames++] = t;
	}
	if (!f->nnames) {
		merr(err, errlen, "%s: empty name list", where);
		free(names);
		return -1;
	}
	if (parse_operands(tok[2], f)) {
		merr(err, errlen, "%s: bad operand list '%s' (kinds: r8 r16 r32 r64 r x y z v k m8..m512 m mb a a3 i rel *)",
		     where, tok[2]);
		free(names);
		return -1;
	}
	if (sim_machine_parse_uops(m, tok[3], f)) {
		merr(err, errlen, "%s: bad µop list '%s' (e.g. p0156, 2p0156+p23, or -; ports are those of 'ports')",
		     where, tok[3]);
		free(names);
		return -1;
	}
	for (int i = 4; i < ntok; i++) {
		const char *v;
		double d;
		if ((v = attr(tok[i], "lat"))) {
			if (parse_num(v, &d))
				goto bad;
			f->lat = (float)d;
		} else if ((v = attr(tok[i], "xin"))) {
			if (parse_num(v, &d) || d > 16)
				goto bad;
			f->xin = (float)d;
		} else if ((v = attr(tok[i], "div"))) {
			if (parse_num(v, &d))
				goto bad;
			f->div = (float)d;
		} else if ((v = attr(tok[i], "fused"))) {
			if (parse_num(v, &d) || d > 255)
				goto bad;
			f->fused = (int)d;
		} else if (!strcmp(tok[i], "zero-idiom")) {
			f->flags |= SIM_F_ZERO_IDIOM;
		} else if (!strcmp(tok[i], "elim")) {
			f->flags |= SIM_F_ELIM;
		} else if (!strcmp(tok[i], "fuse")) {
			f->flags |= SIM_F_FUSE;
		} else if (!strcmp(tok[i], "nomicrofuse")) {
			f->flags |= SIM_F_NOMICROFUSE;
		} else if (!strcmp(tok[i], "serial")) {
			f->flags |= SIM_F_SERIAL;
		} else if (!strcmp(tok[i], "rename")) {
			f->flags |= SIM_F_RENAME;
		} else {
		bad:
			merr(err, errlen, "%s: bad attribute '%s' (lat=N xin=N div=N fused=N zero-idiom elim rename fuse nomicrofuse serial)",
			     where, tok[i]);
			free(names);
			return -1;
		}
	}
	m->nforms++;
	return 0;
}

static bool is_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* a line or window size: a power of two from 16 to 4096 bytes into *OUT;
 * -1 when S is not one */
static int window_bytes(const char *s, unsigned *out)
{
	double b;
	if (parse_num(s, &b) || b < 16 || b > 4096 || b != (unsigned)b || ((unsigned)b & ((unsigned)b - 1)))
		return -1;
	*out = (unsigned)b;
	return 0;
}

/* a statement of one whole number in [LO, HI] into *OUT; -1 when it is not */
static int count_statement(char **tok, int ntok, double lo, double hi, unsigned *out)
{
	double d;
	if (ntok != 2 || parse_num(tok[1], &d) || d < lo || d > hi || d != (unsigned)d)
		return -1;
	*out = (unsigned)d;
	return 0;
}

/* KEY X: one number from LO (excluded when LO_OPEN) to HI into *OUT */
static int real_statement(char **tok, int ntok, double lo, bool lo_open, double hi, double *out)
{
	double d;
	if (ntok != 2 || parse_num(tok[1], &d) || d < lo || (lo_open && d == lo) || d > hi)
		return -1;
	*out = d;
	return 0;
}

static int parse_line(struct sim_machine *m, char **tok, int ntok, char *err, size_t errlen,
		      const char *where)
{
	const char *k = tok[0];
	const char *v;
	double d;
	if (!strcmp(k, "form") || !strcmp(k, "category"))
		return parse_form(m, tok, ntok, !strcmp(k, "category"), err, errlen, where);
	if (!strcmp(k, "machine")) {
		if (ntok != 2 || !is_name(tok[1]))
			goto bad;
		snprintf(m->name, sizeof m->name, "%s", tok[1]);
		return 0;
	}
	if (!strcmp(k, "alias")) {
		if (ntok < 2)
			goto bad;
		for (int i = 1; i < ntok && m->naliases < SIM_MAX_ALIASES; i++)
			snprintf(m->alias[m->naliases++], sizeof m->alias[0], "%s", tok[i]);
		return 0;
	}
	if (!strcmp(k, "describe")) {
		size_t o = 0;
		m->describe[0] = 0;
		for (int i = 1; i < ntok && o < sizeof m->describe; i++)
			o += (size_t)snprintf(m->describe + o, sizeof m->describe - o, "%s%s",
					      i > 1 ? " " : "", tok[i]);
		return 0;
	}
	if (!strcmp(k, "ports")) {
		/* the base's forms name its ports by position */
		if (m->reading_derived) {
			merr(err, errlen, "%s: the ports are those of the base model '%s'", where, m->base);
			return -1;
		}
		if (ntok < 2 || ntok - 1 > SIM_MAX_PORTS)
			goto bad;
		m->nports = 0;
		for (int i = 1; i < ntok; i++) {
			if (strlen(tok[i]) != 1)
				goto bad;
			snprintf(m->portname[m->nports++], sizeof m->portname[0], "%s", tok[i]);
		}
		return 0;
	}
	if (!strcmp(k, "retire")) {
		if (real_statement(tok, ntok, 0, true, 64, &m->retire))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "window") || !strcmp(k, "frontend") || !strcmp(k, "mispredict-penalty") ||
	    !strcmp(k, "store-forward") || !strcmp(k, "divider")) {
		if (ntok != 2 || parse_num(tok[1], &d))
			goto bad;
		if (!strcmp(k, "window")) {
			if (d < 1 || d > 4096)
				goto bad;
			m->window = (unsigned)d;
		} else if (!strcmp(k, "frontend")) {
			if (d <= 0)
				goto bad;
			m->frontend = d;
		} else if (!strcmp(k, "mispredict-penalty")) {
			m->penalty = d;
		} else if (!strcmp(k, "store-forward")) {
			m->store_forward = d;
		} else {
			if (d < 1)
				goto bad;
			m->dividers = d;
		}
		return 0;
	}
	if (!strcmp(k, "branch-history")) {
		if (count_statement(tok, ntok, 1, SIM_BPRED_MAX_HISTORY, &m->branch_history))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "branch-tables")) {
		/* entries of each tagged table: a power of two */
		unsigned n;
		if (count_statement(tok, ntok, 256, 65536, &n) || (n & (n - 1)))
			goto bad;
		m->branch_table_bits = (unsigned)__builtin_ctz(n);
		return 0;
	}
	if (!strcmp(k, "scheduler")) {
		if (count_statement(tok, ntok, 1, 4096, &m->scheduler))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "vector-renames") || !strcmp(k, "load-buffer") || !strcmp(k, "store-buffer") ||
	    !strcmp(k, "branch-buffer")) {
		unsigned *field = k[0] == 'v' ? &m->vector_renames : k[0] == 'l' ? &m->load_buffer
				: k[0] == 's' ? &m->store_buffer : &m->branch_buffer;
		if (count_statement(tok, ntok, 1, 65536, field))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "unlaminated-slots")) {
		if (real_statement(tok, ntok, 0, false, 16, &m->unlaminated_slots))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "taken-branch-rate")) {
		if (real_statement(tok, ntok, 0, true, HUGE_VAL, &m->taken_rate))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "l1-transfer-stall")) {
		if (real_statement(tok, ntok, 0, false, 64, &m->l1_transfer_stall))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "l1-writeback")) {
		if (real_statement(tok, ntok, 0, true, 1000, &m->l1_writeback))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "taken-branch-pairs")) {
		m->taken_pair_forward = false;
		m->taken_pair_bytes = 0;
		if (ntok == 2 && !strcmp(tok[1], "forward")) {
			m->taken_pair_forward = true;
			return 0;
		}
		if (ntok != 2 || window_bytes(tok[1], &m->taken_pair_bytes))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "fetch-line-split")) {
		double n;
		if (ntok != 4 || window_bytes(tok[1], &m->split_bytes) || parse_num(tok[2], &n) || n < 1 || n > 64 ||
		    n != (unsigned)n || parse_num(tok[3], &d) || d <= 0 || d > 64)
			goto bad;
		m->split_insns = (unsigned)n;
		m->split_cycles = d;
		return 0;
	}
	if (!strcmp(k, "branch-window-cross")) {
		if (ntok != 3 || window_bytes(tok[1], &m->cross_bytes) || parse_num(tok[2], &d) || d <= 0 || d > 64)
			goto bad;
		m->cross_cycles = d;
		return 0;
	}
	if (!strcmp(k, "split-load") || !strcmp(k, "l1-transfer")) {
		if (count_statement(tok, ntok, 0, 16, *k == 's' ? &m->split_load_uses : &m->l1_transfer_uses))
			goto bad;
		return 0;
	}
	/* a store of B bytes or more (1-64) and its cycles (0-64) */
	if (!strcmp(k, "split-store") || !strcmp(k, "store-forward-wide")) {
		double b;
		if (ntok != 3 || parse_num(tok[1], &b) || parse_num(tok[2], &d) || b < 1 || b > 64 ||
		    b != (unsigned)b || d < 0 || d > 64)
			goto bad;
		bool split = !strcmp(k, "split-store");
		*(split ? &m->split_store_bytes : &m->store_forward_wide_bytes) = (unsigned)b;
		*(split ? &m->split_store_cycles : &m->store_forward_wide) = d;
		return 0;
	}
	if (!strcmp(k, "store-forward-fail")) {
		if (real_statement(tok, ntok, 0, false, 100, &m->store_forward_fail))
			goto bad;
		return 0;
	}
	if (!strcmp(k, "gather-line-per-element")) {
		if (ntok != 1)
			goto bad;
		m->gather_line_per_element = true;
		return 0;
	}
	if (!strcmp(k, "store-pairs-same-line")) {
		if (ntok != 1)
			goto bad;
		m->store_pairs_same_line = true;
		return 0;
	}
	if (!strcmp(k, "topdown")) {
		if (ntok != 2 || (strcmp(tok[1], "intel") && strcmp(tok[1], "amd")))
			goto bad;
		m->topdown_amd = !strcmp(tok[1], "amd");
		return 0;
	}
	if (!strcmp(k, "memory-renaming")) {
		if (ntok > 2 || (ntok == 2 && strcmp(tok[1], "indexed")))
			goto bad;
		m->mem_renaming = true;
		m->mem_renaming_indexed = ntok == 2;
		return 0;
	}
	if (!strcmp(k, "load-latency")) {
		if (ntok < 2 || parse_num(tok[1], &d))
			goto bad;
		for (int c = 0; c < 4; c++)
			m->load_lat[c] = d;
		for (int i = 2; i < ntok; i++) {
			int c = (v = attr(tok[i], "x")) ? 1 : (v = attr(tok[i], "y")) ? 2 : (v = attr(tok[i], "z")) ? 3 : -1;
			if (c < 0 || parse_num(v, &d))
				goto bad;
			m->load_lat[c] = d;
		}
		return 0;
	}
	if (!strcmp(k, "cache") || !strcmp(k, "memory")) {
		int lvl;
		int first = 1;
		if (!strcmp(k, "memory")) {
			lvl = 3;
			if (m->reading_derived && m->has_memory)	/* restated whole, as a cache level */
			{
				m->cache_lat[3] = m->cache_gap[3] = m->cache_wgap[3] = m->cache_ogap[3] = 0;
				m->cache_wgap_given[3] = m->cache_ogap_given[3] = false;
			}
		} else {
			if (ntok < 2)
				goto bad;
			lvl = !strcmp(tok[1], "L1D") ? 0 : !strcmp(tok[1], "L2") ? 1 : !strcmp(tok[1], "L3") ? 2 : -1;
			if (lvl >= 0 && lvl < (int)m->ncache && m->reading_derived) {
				/* a model written as differences restates a level
				 * of its base whole */
				m->cache_size[lvl] = 0;
				m->cache_ways[lvl] = 0;
				m->cache_lat[lvl] = m->cache_gap[lvl] = m->cache_wgap[lvl] = m->cache_ogap[lvl] = 0;
				m->cache_wgap_given[lvl] = m->cache_ogap_given[lvl] = false;
			} else if (lvl < 0 || lvl != (int)m->ncache) {
				merr(err, errlen, "%s: cache levels must be L1D, L2, L3 in that order", where);
				return -1;
			} else {
				m->ncache++;
			}
			first = 2;
		}
		for (int i = first; i < ntok; i++) {
			uint64_t sz;
			if ((v = attr(tok[i], "size")) && lvl < 3) {
				if (parse_size(v, &sz) || !sz)
					goto bad;
				m->cache_size[lvl] = sz;
			} else if ((v = attr(tok[i], "ways")) && lvl < 3) {
				if (parse_num(v, &d) || d < 1 || d > 64)
					goto bad;
				m->cache_ways[lvl] = (unsigned)d;
			} else if ((v = attr(tok[i], "line")) && lvl < 3) {
				if (parse_num(v, &d) || d < 8 || d > 4096)
					goto bad;
				m->line = (unsigned)d;
			} else if ((v = attr(tok[i], "latency"))) {
				if (parse_num(v, &d))
					goto bad;
				m->cache_lat[lvl] = d;
			} else if ((v = attr(tok[i], "gap"))) {
				if (parse_num(v, &d) || d <= 0)
					goto bad;
				m->cache_gap[lvl] = d;
			} else if ((v = attr(tok[i], "wgap")) && lvl > 0) {
				/* 0: written-back lines take none of it (a
				 * write path of their own) */
				if (parse_num(v, &d) || d < 0)
					goto bad;
				m->cache_wgap[lvl] = d;
				m->cache_wgap_given[lvl] = true;
			} else if ((v = attr(tok[i], "ogap")) && lvl > 0) {
				if (parse_num(v, &d) || d < 0)
					goto bad;
				m->cache_ogap[lvl] = d;
				m->cache_ogap_given[lvl] = true;
			} else {
				goto bad;
			}
		}
		if (lvl == 3)
			m->has_memory = true;
		return 0;
	}
	if (!strcmp(k, "btb")) {
		for (int i = 1; i < ntok; i++) {
			if ((v = attr(tok[i], "sets")) && !parse_num(v, &d) && d >= 1)
				m->btb_sets = (unsigned)d;
			else if ((v = attr(tok[i], "ways")) && !parse_num(v, &d) && d >= 1)
				m->btb_ways = (unsigned)d;
			else
				goto bad;
		}
		return 0;
	}
	if (!strcmp(k, "load-uop") || !strcmp(k, "store-uops")) {
		struct sim_form tmp;
		if (ntok != 2 || sim_machine_parse_uops(m, tok[1], &tmp) || !tmp.nuops || tmp.nuops > 2 ||
		    (k[0] == 'l' && tmp.uop[0] == tmp.uop[tmp.nuops - 1] && tmp.nuops != 1))
			goto bad;
		if (k[0] == 'l') {
			m->nload_uop = tmp.nuops;
			memcpy(m->load_uop, tmp.uop, sizeof m->load_uop);
		} else {
			m->nstore_uop = tmp.nuops;
			memcpy(m->store_uop, tmp.uop, sizeof m->store_uop);
		}
		return 0;
	}
	merr(err, errlen, "%s: unknown statement '%s'", where, k);
	return -1;
bad:
	merr(err, errlen, "%s: bad '%s' statement (see data/machines/FORMAT)", where, k);
	return -1;
}

struct sim_machine *sim_machine_load(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		merr(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct sim_machine *m = sim_machine_read(fp, path, err, errlen);
	fclose(fp);
	return m;
}

/* how many models deep 'base' may go (a loop of bases stops here) */
#define MACHINE_MAX_BASES 4

/* reads the statements of one file into M; a 'base NAME' statement (the
 * second, after 'machine') reads that model first, and this file's forms
 * then come before the base's, so that they take precedence */
static int read_layer(struct sim_machine *m, FILE *fp, const char *path, unsigned depth, char *err,
		      size_t errlen)
{
	char line[1024];
	unsigned lineno = 0;
	unsigned statements = 0;
	size_t base_forms = 0;
	bool derived = false;
	int rc = 0;
	while (fgets(line, sizeof line, fp)) {
		lineno++;
		char where[600];
		snprintf(where, sizeof where, "%s:%u", path, lineno);
		if (!strchr(line, '\n') && !feof(fp)) {
			merr(err, errlen, "%s: line too long", where);
			rc = -1;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *tok[32];
		int ntok = 0;
		for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
		     t = strtok_r(NULL, " \t\r\n", &save)) {
			if (ntok == 32) {
				merr(err, errlen, "%s: too many words", where);
				rc = -1;
				break;
			}
			tok[ntok++] = t;
		}
		if (rc)
			break;
		if (!ntok)
			continue;
		/* the statement's words into the digest, each ended by its 0 */
		for (int i = 0; i < ntok; i++)
			for (const char *c = tok[i];; c++) {
				m->digest = (m->digest ^ (uint8_t)*c) * 0x100000001b3ULL;
				if (!*c)
					break;
			}
		for (const unsigned char *p = (const unsigned char *)tok[0]; *p; p++)
			if (*p < 0x20 || *p > 0x7e) {
				merr(err, errlen, "%s: not a machine model (binary data)", where);
				rc = -1;
				break;
			}
		if (rc)
			break;
		statements++;
		if (statements == 1 && strcmp(tok[0], "machine")) {
			merr(err, errlen, "%s: a machine model starts with 'machine NAME'", where);
			rc = -1;
			break;
		}
		if (!strcmp(tok[0], "base")) {
			if (statements != 2 || ntok != 2 || !is_name(tok[1])) {
				merr(err, errlen, "%s: 'base NAME' comes once, right after 'machine'", where);
				rc = -1;
				break;
			}
			if (depth + 1 >= MACHINE_MAX_BASES) {
				merr(err, errlen, "%s: base models more than %d deep (a loop of bases?)", where,
				     MACHINE_MAX_BASES - 1);
				rc = -1;
				break;
			}
			/* NAME.mm beside this file, a regular file only (a FIFO
			 * there must not hang the reader) */
			char basepath[1024], why[1200];
			const char *slash = strrchr(path, '/');
			snprintf(basepath, sizeof basepath, "%.*s%s.mm", slash ? (int)(slash - path + 1) : 0, path, tok[1]);
			int bfd = outpath_open_regular(basepath, why, sizeof why);
			FILE *bfp = bfd >= 0 ? fdopen(bfd, "r") : NULL;
			if (!bfp) {
				if (bfd >= 0)
					close(bfd);
				merr(err, errlen, "%s: base model '%s': %s", where, tok[1], bfd >= 0 ? strerror(errno) : why);
				rc = -1;
				break;
			}
			/* the base's own statements must not rename this model */
			char name[sizeof m->name];
			snprintf(name, sizeof name, "%s", m->name);
			bool outer = m->reading_derived;
			m->reading_derived = false;
			rc = read_layer(m, bfp, basepath, depth + 1, err, errlen);
			fclose(bfp);
			m->reading_derived = outer;
			if (rc)
				break;
			snprintf(m->name, sizeof m->name, "%s", name);
			snprintf(m->base, sizeof m->base, "%s", tok[1]);
			/* aliases and the description are this model's own */
			m->naliases = 0;
			m->describe[0] = 0;
			base_forms = m->nforms;
			derived = true;
			m->reading_derived = true;
			continue;
		}
		if (!strcmp(tok[0], "form") || !strcmp(tok[0], "category")) {
			if (!m->nports) {
				merr(err, errlen, "%s: 'ports' must come before the forms", where);
				rc = -1;
				break;
			}
		}
		if (parse_line(m, tok, ntok, err, errlen, where)) {
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(fp)) {
		merr(err, errlen, "%s: read error", path);
		rc = -1;
	}
	if (!rc && !statements) {
		merr(err, errlen, "%s: empty machine model", path);
		rc = -1;
	}
	if (!rc && derived && base_forms && m->nforms > base_forms) {
		/* this file's forms first: a lookup takes the first match */
		size_t own = m->nforms - base_forms;
		struct sim_form *tmp = malloc(base_forms * sizeof *tmp);
		if (!tmp)
			abort();
		memcpy(tmp, m->forms, base_forms * sizeof *tmp);
		memmove(m->forms, m->forms + base_forms, own * sizeof *tmp);
		memcpy(m->forms + own, tmp, base_forms * sizeof *tmp);
		free(tmp);
	}
	m->reading_derived = false;
	return rc;
}

struct sim_machine *sim_machine_read(FILE *fp, const char *path, char *err, size_t errlen)
{
	struct sim_machine *m = calloc(1, sizeof *m);
	if (!m)
		abort();
	snprintf(m->path, sizeof m->path, "%s", path);
	m->digest = 0xcbf29ce484222325ULL;	/* FNV-1a's offset basis */
	m->frontend = 4;
	m->window = 224;
	m->dividers = 1;
	m->line = 64;
	m->btb_sets = 1024;
	m->btb_ways = 4;
	int rc = read_layer(m, fp, path, 0, err, errlen);
	if (!rc && !m->name[0]) {
		merr(err, errlen, "%s: empty machine model", path);
		rc = -1;
	}
	if (!rc && (!m->nports || !m->nload_uop || !m->nstore_uop || m->ncache < 1 || !m->has_memory)) {
		merr(err, errlen, "%s: incomplete machine model (needs ports, load-uop, store-uops, cache L1D, memory)",
		     path);
		rc = -1;
	}
	for (unsigned l = 0; !rc && l < m->ncache; l++) {
		uint64_t per = (uint64_t)m->cache_ways[l] * m->line;
		uint64_t sets = per ? m->cache_size[l] / per : 0;
		if (!m->cache_ways[l] || !sets || sets * per != m->cache_size[l] || (sets & (sets - 1)) ||
		    (m->line & (m->line - 1))) {
			merr(err, errlen, "%s: cache level %u: size / (ways x line) must be a power of two", path, l + 1);
			rc = -1;
		}
	}

	/* without a retire statement a core retires as fast as it issues */
	if (!rc && !(m->retire > 0))
		m->retire = m->frontend;
	if (!rc && build_resources(m, err, errlen))
		rc = -1;
	if (!rc && check_uses(m, err, errlen))
		rc = -1;
	if (rc) {
		sim_machine_free(m);
		return NULL;
	}
	index_forms(m);
	return m;
}

void sim_machine_free(struct sim_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nforms; i++)
		free(m->forms[i].names_buf);
	free(m->forms);
	for (unsigned h = 0; h < SIM_FORM_HASH; h++)
		for (struct sim_form_ref *r = m->form_hash[h], *n; r; r = n) {
			n = r->next;
			free(r);
		}
	for (struct sim_portstr *p = m->portstrs, *n; p; p = n) {
		n = p->next;
		free(p);
	}
	free(m);
}

static bool machine_has_name(const char *path, const char *name)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof line, fp)) {
		char *tok[32];
		int ntok = 0;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && ntok < 32;
		     t = strtok_r(NULL, " \t\r\n", &save))
			tok[ntok++] = t;
		if (ntok < 2)
			continue;
		if (!strcmp(tok[0], "machine") || !strcmp(tok[0], "alias")) {
			for (int i = 1; i < ntok; i++)
				if (!strcasecmp(tok[i], name))
					found = true;
		} else if (!strcmp(tok[0], "form")) {
			break;
		}
	}
	fclose(fp);
	return found;
}

struct sim_machine *sim_machine_find(const char *dir, const char *name, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		merr(err, errlen, "%s: %s (machine models)", dir, strerror(errno));
		return NULL;
	}
	char known[512] = "";
	size_t kn = 0;
	struct dirent *e;
	char path[4096] = "";
	bool found = false;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 3, ".mm"))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (!found && machine_has_name(p, name)) {
			snprintf(path, sizeof path, "%s", p);
			found = true;
		}
		kn += (size_t)snprintf(known + kn, kn < sizeof known ? sizeof known - kn : 0, "%s%.*s",
				       kn ? ", " : "", (int)(n - 3), e->d_name);
		if (kn >= sizeof known)
			kn = sizeof known - 1;
	}
	closedir(d);
	if (!found) {
		merr(err, errlen, "unknown micro-architecture '%s' (machine models: %s)", name,
		     kn ? known : "none");
		return NULL;
	}
	return sim_machine_load(path, err, errlen);
}

const char *sim_machine_name(const struct sim_machine *m)
{
	return m->name;
}

uint64_t sim_machine_digest(const struct sim_machine *m)
{
	return m->digest;
}

const char *sim_machine_describe(const struct sim_machine *m)
{
	return m->describe[0] ? m->describe : m->name;
}

double sim_machine_unlaminated_slots(const struct sim_machine *m)
{
	return m->unlaminated_slots;
}

enum sim_topdown sim_machine_topdown(const struct sim_machine *m)
{
	return m->topdown_amd ? SIM_TOPDOWN_AMD : SIM_TOPDOWN_INTEL;
}

unsigned sim_machine_width(const struct sim_machine *m)
{
	return (unsigned)(m->frontend + 0.5);
}

unsigned sim_nres(const struct sim_machine *m)
{
	return m->nres;
}

const char *sim_res_name(const struct sim_machine *m, unsigned r)
{
	return r < m->nres ? m->res[r].name : "?";
}

enum sim_res_kind sim_res_kind(const struct sim_machine *m, unsigned r)
{
	return m->res[r].kind;
}

double sim_res_capacity(const struct sim_machine *m, unsigned r)
{
	return m->res[r].cap;
}

int sim_res_find(const struct sim_machine *m, const char *name)
{
	for (unsigned i = 0; i < m->nres; i++)
		if (!strcasecmp(m->res[i].name, name))
			return (int)i;
	return -1;
}

/* ---------------------------------------------------------- lookup ---- */

static bool kind_match(const char *pat, const char *k)
{
	if (!strcmp(pat, k))
		return true;
	if (!strcmp(pat, "r"))
		return k[0] == 'r' && isdigit((unsigned char)k[1]);
	if (!strcmp(pat, "v"))
		return (k[0] == 'x' || k[0] == 'y' || k[0] == 'z') && !k[1];
	if (!strcmp(pat, "m"))
		return k[0] == 'm' && (isdigit((unsigned char)k[1]) || k[1] == 'b');
	return false;
}

static bool ops_match(const struct sim_form *f, const char (*ops)[6], unsigned nops)
{
	if (nops < f->nops || (nops > f->nops && !f->rest))
		return false;
	for (unsigned i = 0; i < f->nops; i++)
		if (!kind_match(f->op[i], ops[i]))
			return false;
	return true;
}

const struct sim_form *sim_machine_lookup(const struct sim_machine *m, const char *mnemonic,
					  const char (*ops)[6], unsigned nops)
{
	unsigned h = sim_hash_str(mnemonic) % SIM_FORM_HASH;
	const struct sim_form *best = NULL;
	for (const struct sim_form_ref *r = m->form_hash[h]; r; r = r->next) {
		if (strcmp(r->name, mnemonic))
			continue;
		const struct sim_form *f = &m->forms[r->form];
		if (f->category || !ops_match(f, ops, nops))
			continue;
		if (!best || f < best)
			best = f;
	}
	return best;
}

const struct sim_form *sim_machine_lookup_category(const struct sim_machine *m, const char *category,
						   const char (*ops)[6], unsigned nops)
{
	for (size_t i = 0; i < m->nforms; i++) {
		const struct sim_form *f = &m->forms[i];
		if (!f->category)
			continue;
		bool name_ok = false;
		for (unsigned n = 0; n < f->nnames && !name_ok; n++)
			name_ok = !strcmp(f->names[n], "*") || !strcmp(f->names[n], category);
		if (name_ok && ops_match(f, ops, nops))
			return f;
	}
	return NULL;
}

/* A µop on the ports MASK uses every group that contains them all. */
unsigned sim_machine_uop_uses(const struct sim_machine *m, uint32_t mask, uint8_t *res, unsigned max)
{
	unsigned n = 0;
	for (unsigned r = 0; r < m->nres && m->res[r].kind == SIM_RK_PORTS; r++)
		if ((m->res[r].mask & mask) == mask && n < max)
			res[n++] = (uint8_t)r;
	return n;
}

const char *sim_machine_portstr(struct sim_machine *m, const uint32_t *uops, unsigned n)
{
	char buf[160];
	size_t o = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < n && o + 12 < sizeof buf; i++) {
		char g[24];
		group_name(m, uops[i], g, sizeof g);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? " " : "", g);
	}
	for (struct sim_portstr *p = m->portstrs; p; p = p->next)
		if (!strcmp(p->s, buf))
			return p->s;
	struct sim_portstr *p = malloc(sizeof *p + strlen(buf) + 1);
	if (!p)
		abort();
	strcpy(p->s, buf);
	p->next = m->portstrs;
	m->portstrs = p;
	return p->s;
}
