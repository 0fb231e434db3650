/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TMA formula expressions: parser, name resolution and evaluation. */
#include "td_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum td_op {
	OP_NUM, OP_REF, OP_OPT, OP_NEG,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_COND, OP_MIN, OP_MAX,
};

struct td_expr {
	enum td_op op;
	double num;
	char *ident;		/* OP_REF / OP_OPT before resolution */
	enum td_ref_kind ref_kind;
	int ref;		/* resolved index */
	struct td_expr **arg;
	size_t n_arg;
	unsigned depth;		/* levels of this subtree: 1 for a leaf */
};

char *td_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void td_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct parser {
	const char *s;
	const char *p;
	char *err;
	size_t errlen;
	bool failed;
	unsigned nest;		/* parse_cond and sign levels open now */
};

static struct td_expr *node_new(enum td_op op)
{
	struct td_expr *e = calloc(1, sizeof(*e));
	if (e) {
		e->op = op;
		e->depth = 1;
	}
	return e;
}

static int node_push(struct td_expr *e, struct td_expr *a)
{
	struct td_expr **n = realloc(e->arg, (e->n_arg + 1) * sizeof(*n));
	if (!n)
		return -1;
	e->arg = n;
	e->arg[e->n_arg++] = a;
	if (a->depth + 1 > e->depth)
		e->depth = a->depth + 1;
	return 0;
}

unsigned td_expr_depth(const struct td_expr *e)
{
	return e->depth;
}

void td_expr_free(struct td_expr *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_arg; i++)
		td_expr_free(e->arg[i]);
	free(e->arg);
	free(e->ident);
	free(e);
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static void fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = true;
	td_seterr(ps->err, ps->errlen, "%s at column %d of expression '%s'", what,
		  (int)(ps->p - ps->s) + 1, ps->s);
}

static void fail_too_deep(struct parser *ps)
{
	char what[64];
	snprintf(what, sizeof(what), "nested deeper than %d levels", TD_EXPR_MAX_DEPTH);
	fail(ps, what);
}

/* One more level of the parser's recursion: false past the limit, before
 * the stack grows with a hostile formula's "((((..." or "----...". */
static bool nest_in(struct parser *ps)
{
	if (ps->nest >= TD_EXPR_MAX_DEPTH) {
		fail_too_deep(ps);
		return false;
	}
	ps->nest++;
	return true;
}

/* E as built, or NULL (E freed) when it is deeper than the limit: a chain
 * "A + A + ... + A" nests without recursing in the parser, but freeing
 * and evaluating it recurse once per operator. E's operands are within the
 * limit, so E is at most one level over it. */
static struct td_expr *within_depth(struct parser *ps, struct td_expr *e)
{
	if (e && e->depth > TD_EXPR_MAX_DEPTH) {
		fail_too_deep(ps);
		td_expr_free(e);
		return NULL;
	}
	return e;
}

static bool accept(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);
	skip_ws(ps);
	if (strncmp(ps->p, tok, n) != 0)
		return false;
	/* do not take '<' out of '<=' */
	if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '=' || tok[0] == '!') &&
	    ps->p[1] == '=')
		return false;
	ps->p += n;
	return true;
}

static struct td_expr *binary(enum td_op op, struct td_expr *a, struct td_expr *b)
{
	struct td_expr *e = node_new(op);
	if (!e || node_push(e, a) || node_push(e, b)) {
		td_expr_free(e);
		td_expr_free(a);
		td_expr_free(b);
		return NULL;
	}
	return e;
}

static struct td_expr *parse_cond(struct parser *ps);

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

static struct td_expr *parse_primary(struct parser *ps)
{
	skip_ws(ps);
	if (accept(ps, "(")) {
		struct td_expr *e = parse_cond(ps);
		if (!e)
			return NULL;
		if (!accept(ps, ")")) {
			fail(ps, "expected ')'");
			td_expr_free(e);
			return NULL;
		}
		return e;
	}
	if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1]))) {
		char *end;
		double v = strtod(ps->p, &end);
		struct td_expr *e = node_new(OP_NUM);
		if (!e)
			return NULL;
		e->num = v;
		ps->p = end;
		return e;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		const char *start = ps->p;
		while (is_ident_char((unsigned char)*ps->p))
			ps->p++;
		size_t n = (size_t)(ps->p - start);
		char name[128];
		if (n >= sizeof(name)) {
			fail(ps, "identifier too long");
			return NULL;
		}
		memcpy(name, start, n);
		name[n] = 0;
		skip_ws(ps);
		if (*ps->p == '(') {
			enum td_op op;
			if (!strcmp(name, "min"))
				op = OP_MIN;
			else if (!strcmp(name, "max"))
				op = OP_MAX;
			else if (!strcmp(name, "opt"))
				op = OP_OPT;
			else {
				ps->p = start;
				fail(ps, "unknown function");
				return NULL;
			}
			ps->p++;
			struct td_expr *e = node_new(op);
			if (!e)
				return NULL;
			if (op == OP_OPT) {
				skip_ws(ps);
				const char *a = ps->p;
				while (is_ident_char((unsigned char)*ps->p))
					ps->p++;
				if (ps->p == a) {
					fail(ps, "opt() takes an event name");
					td_expr_free(e);
					return NULL;
				}
				e->ident = strndup(a, (size_t)(ps->p - a));
			} else {
				do {
					struct td_expr *a = parse_cond(ps);
					if (!a || node_push(e, a)) {
						td_expr_free(a);
						td_expr_free(e);
						return NULL;
					}
				} while (accept(ps, ","));
			}
			if (!accept(ps, ")")) {
				fail(ps, "expected ')' after function arguments");
				td_expr_free(e);
				return NULL;
			}
			return within_depth(ps, e);
		}
		struct td_expr *e = node_new(OP_REF);
		if (!e)
			return NULL;
		e->ident = td_strdup(name);
		return e;
	}
	fail(ps, *ps->p ? "unexpected character" : "unexpected end");
	return NULL;
}

static struct td_expr *parse_unary(struct parser *ps)
{
	if (accept(ps, "-")) {
		if (!nest_in(ps))
			return NULL;
		struct td_expr *a = parse_unary(ps);
		ps->nest--;
		if (!a)
			return NULL;
		struct td_expr *e = node_new(OP_NEG);
		if (!e || node_push(e, a)) {
			td_expr_free(e);
			td_expr_free(a);
			return NULL;
		}
		return within_depth(ps, e);
	}
	if (accept(ps, "+")) {
		/* a unary '+' builds nothing but recurses all the same */
		if (!nest_in(ps))
			return NULL;
		struct td_expr *a = parse_unary(ps);
		ps->nest--;
		return a;
	}
	return parse_primary(ps);
}

static struct td_expr *parse_mul(struct parser *ps)
{
	struct td_expr *e = parse_unary(ps);
	while (e) {
		enum td_op op;
		if (accept(ps, "*"))
			op = OP_MUL;
		else if (accept(ps, "/"))
			op = OP_DIV;
		else
			break;
		struct td_expr *b = parse_unary(ps);
		if (!b) {
			td_expr_free(e);
			return NULL;
		}
		e = within_depth(ps, binary(op, e, b));
	}
	return e;
}

static struct td_expr *parse_add(struct parser *ps)
{
	struct td_expr *e = parse_mul(ps);
	while (e) {
		enum td_op op;
		if (accept(ps, "+"))
			op = OP_ADD;
		else if (accept(ps, "-"))
			op = OP_SUB;
		else
			break;
		struct td_expr *b = parse_mul(ps);
		if (!b) {
			td_expr_free(e);
			return NULL;
		}
		e = within_depth(ps, binary(op, e, b));
	}
	return e;
}

static struct td_expr *parse_cmp(struct parser *ps)
{
	struct td_expr *e = parse_add(ps);
	while (e) {
		enum td_op op;
		if (accept(ps, "<="))
			op = OP_LE;
		else if (accept(ps, ">="))
			op = OP_GE;
		else if (accept(ps, "=="))
			op = OP_EQ;
		else if (accept(ps, "!="))
			op = OP_NE;
		else if (accept(ps, "<"))
			op = OP_LT;
		else if (accept(ps, ">"))
			op = OP_GT;
		else
			break;
		struct td_expr *b = parse_add(ps);
		if (!b) {
			td_expr_free(e);
			return NULL;
		}
		e = within_depth(ps, binary(op, e, b));
	}
	return e;
}

static struct td_expr *parse_cond_in(struct parser *ps);

/* Every recursion of the grammar but the signs' comes through here. */
static struct td_expr *parse_cond(struct parser *ps)
{
	if (!nest_in(ps))
		return NULL;
	struct td_expr *e = parse_cond_in(ps);
	ps->nest--;
	return e;
}

static struct td_expr *parse_cond_in(struct parser *ps)
{
	struct td_expr *c = parse_cmp(ps);
	if (!c || !accept(ps, "?"))
		return c;
	struct td_expr *a = parse_cond(ps);
	if (!a) {
		td_expr_free(c);
		return NULL;
	}
	if (!accept(ps, ":")) {
		fail(ps, "expected ':' in conditional");
		td_expr_free(c);
		td_expr_free(a);
		return NULL;
	}
	struct td_expr *b = parse_cond(ps);
	struct td_expr *e = b ? node_new(OP_COND) : NULL;
	if (!e) {
		td_expr_free(c);
		td_expr_free(a);
		td_expr_free(b);
		return NULL;
	}
	/* allocation failures past this point leave e owning what it holds */
	if (node_push(e, c) || node_push(e, a) || node_push(e, b)) {
		td_expr_free(e);
		return NULL;
	}
	return within_depth(ps, e);
}

struct td_expr *td_expr_parse(const char *text, char *err, size_t errlen)
{
	struct parser ps = { .s = text, .p = text, .err = err, .errlen = errlen };
	struct td_expr *e = parse_cond(&ps);
	if (e) {
		skip_ws(&ps);
		if (*ps.p) {
			fail(&ps, "unexpected text after expression");
			td_expr_free(e);
			return NULL;
		}
	} else if (!ps.failed) {
		td_seterr(err, errlen, "out of memory");
	}
	return e;
}

static int find_exact(char **names, size_t stride, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = *(char **)((char *)names + i * stride);
		if (!strcmp(s, name))
			return (int)i;
	}
	return -1;
}

int td_expr_resolve(struct td_expr *e, const struct td_table *t, char *err, size_t errlen)
{
	if (e->op == OP_REF || e->op == OP_OPT) {
		int i;
		if (e->op == OP_REF && !strcmp(e->ident, "SMT_on")) {
			e->ref_kind = TD_REF_SMT;
			e->ref = 0;
			return 0;
		}
		/* a table may declare no event (its formulas then name none) */
		i = t->n_events ? find_exact(&t->events[0].name, sizeof(t->events[0]), t->n_events, e->ident) : -1;
		if (i >= 0) {
			e->ref_kind = TD_REF_EVENT;
			e->ref = i;
			return 0;
		}
		if (e->op == OP_OPT) {
			td_seterr(err, errlen, "opt(%s): not a declared event", e->ident);
			return -1;
		}
		i = t->n_metrics ? find_exact(&t->metrics[0].name, sizeof(t->metrics[0]),
					      t->n_metrics, e->ident) : -1;
		if (i >= 0) {
			e->ref_kind = TD_REF_METRIC;
			e->ref = i;
			return 0;
		}
		i = td_node_index(t, e->ident);
		if (i >= 0) {
			e->ref_kind = TD_REF_NODE;
			e->ref = i;
			return 0;
		}
		td_seterr(err, errlen, "unknown name '%s' (not an event, metric or node)", e->ident);
		return -1;
	}
	for (size_t i = 0; i < e->n_arg; i++)
		if (td_expr_resolve(e->arg[i], t, err, errlen))
			return -1;
	return 0;
}

static void walk_at(const struct td_expr *e, unsigned depth, td_ref_fn fn, void *arg)
{
	if (e->op == OP_REF || e->op == OP_OPT)
		fn(e->ref_kind, e->ref, e->op == OP_OPT, depth, arg);
	for (size_t i = 0; i < e->n_arg; i++)
		walk_at(e->arg[i], depth + 1, fn, arg);
}

void td_expr_walk(const struct td_expr *e, td_ref_fn fn, void *arg)
{
	walk_at(e, 1, fn, arg);
}

static double eval_metric(int m, struct td_evalctx *cx)
{
	if (cx->met_state[m] == 2)
		return cx->met_val[m];
	if (cx->met_state[m] == 1)	/* cycles are rejected at load time */
		return NAN;
	cx->met_state[m] = 1;
	cx->met_val[m] = td_expr_eval(cx->t->metrics[m].expr, cx);
	cx->met_state[m] = 2;
	return cx->met_val[m];
}

double td_eval_node(int n, struct td_evalctx *cx)
{
	if (cx->node_state[n] == 2)
		return cx->node_val[n];
	if (cx->node_state[n] == 1)
		return NAN;
	cx->node_state[n] = 1;
	cx->node_val[n] = td_expr_eval(cx->t->nodes[n].expr, cx);
	cx->node_state[n] = 2;
	return cx->node_val[n];
}

double td_expr_eval(const struct td_expr *e, struct td_evalctx *cx)
{
	double a, b;
	switch (e->op) {
	case OP_NUM:
		return e->num;
	case OP_OPT:
		a = cx->ev[e->ref];
		if (isnan(a)) {
			if (cx->opt_missing_event < 0)
				cx->opt_missing_event = e->ref;
			return 0.0;
		}
		return a;
	case OP_REF:
		switch (e->ref_kind) {
		case TD_REF_SMT:
			return cx->smt_on ? 1.0 : 0.0;
		case TD_REF_EVENT:
			a = cx->ev[e->ref];
			if (isnan(a) && cx->missing_event < 0)
				cx->missing_event = e->ref;
			return a;
		case TD_REF_METRIC:
			return eval_metric(e->ref, cx);
		case TD_REF_NODE:
			return td_eval_node(e->ref, cx);
		}
		return NAN;
	case OP_NEG:
		return -td_expr_eval(e->arg[0], cx);
	case OP_COND:
		a = td_expr_eval(e->arg[0], cx);
		if (isnan(a))
			return NAN;
		return td_expr_eval(e->arg[a != 0.0 ? 1 : 2], cx);
	case OP_MIN:
	case OP_MAX: {
		double r = td_expr_eval(e->arg[0], cx);
		for (size_t i = 1; i < e->n_arg; i++) {
			double v = td_expr_eval(e->arg[i], cx);
			if (isnan(v) || isnan(r))
				r = NAN;
			else if (e->op == OP_MIN ? v < r : v > r)
				r = v;
		}
		return r;
	}
	default:
		break;
	}
	a = td_expr_eval(e->arg[0], cx);
	b = td_expr_eval(e->arg[1], cx);
	if (isnan(a) || isnan(b))
		return NAN;
	switch (e->op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV:
		if (b == 0.0) {
			cx->div0 = true;
			return NAN;
		}
		return a / b;
	case OP_LT: return a < b;
	case OP_LE: return a <= b;
	case OP_GT: return a > b;
	case OP_GE: return a >= b;
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	default: return NAN;
	}
}
