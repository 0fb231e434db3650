/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared by the files of topdown/; not for other modules. */
#ifndef GUS_TD_INTERNAL_H
#define GUS_TD_INTERNAL_H

#include "topdown.h"

enum td_ref_kind { TD_REF_EVENT, TD_REF_METRIC, TD_REF_NODE, TD_REF_SMT };

/* Tables come from anywhere (GUS_TMA_PATH), and the parser, the
 * evaluation and the freeing of a formula recurse once per level: the
 * limits keep a hostile table's stack far below the smallest thread stack
 * while staying far above any real table (of the kernel's, the deepest
 * formula nests 14 levels, 21 with the metrics it names written out, and
 * the trees go 6 levels down).
 * TD_EXPR_MAX_DEPTH: levels of one formula; the whole formula is level 1
 * and each parenthesis, sign, function call, conditional and binary
 * operator applied to a nested operand adds one ("A + B + C" is 3). */
#define TD_EXPR_MAX_DEPTH 256
/* TD_EVAL_MAX_DEPTH: levels of a node's formula with the metrics and
 * nodes it names (and those they name) written out in their place. */
#define TD_EVAL_MAX_DEPTH 1024
/* TD_MAX_LEVEL: the deepest node level (a parent chain). */
#define TD_MAX_LEVEL 32

/* Parse EXPR text; identifiers stay unresolved until td_expr_resolve.
 * A formula nested deeper than TD_EXPR_MAX_DEPTH is an error. */
struct td_expr *td_expr_parse(const char *text, char *err, size_t errlen);
void td_expr_free(struct td_expr *e);
/* Levels of a parsed formula: 1 for a number or a name alone. */
unsigned td_expr_depth(const struct td_expr *e);

/* Resolve identifiers against the table; err names the unknown one. */
int td_expr_resolve(struct td_expr *e, const struct td_table *t, char *err, size_t errlen);

/* Visit every reference (both branches of conditionals included); DEPTH
 * is the reference's level in the formula (1: the formula is the name). */
typedef void (*td_ref_fn)(enum td_ref_kind kind, int index, bool optional, unsigned depth, void *arg);
void td_expr_walk(const struct td_expr *e, td_ref_fn fn, void *arg);

struct td_evalctx {
	const struct td_table *t;
	const double *ev;	/* scaled event values, NAN when missing */
	bool smt_on;
	double *met_val;
	int *met_state;		/* 0 new, 1 in progress, 2 done */
	double *node_val;
	int *node_state;
	/* why the last evaluation failed or was approximate */
	int missing_event;	/* -1 none */
	int opt_missing_event;	/* -1 none */
	bool div0;
};

double td_expr_eval(const struct td_expr *e, struct td_evalctx *cx);
double td_eval_node(int node, struct td_evalctx *cx);

char *td_strdup(const char *s);
void td_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* lower-case, ':' -> '.', cpu/.../ wrapper and trailing :modifiers removed */
void td_normalize_name(const char *in, char *out, size_t outlen);

#endif
