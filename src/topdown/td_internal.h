/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internals shared by the files of topdown/; not for other modules. */
#ifndef GUS_TD_INTERNAL_H
#define GUS_TD_INTERNAL_H

#include "topdown.h"

enum td_ref_kind { TD_REF_EVENT, TD_REF_METRIC, TD_REF_NODE, TD_REF_SMT };

/* Parse EXPR text; identifiers stay unresolved until td_expr_resolve. */
struct td_expr *td_expr_parse(const char *text, char *err, size_t errlen);
void td_expr_free(struct td_expr *e);

/* Resolve identifiers against the table; err names the unknown one. */
int td_expr_resolve(struct td_expr *e, const struct td_table *t, char *err, size_t errlen);

/* Visit every reference (both branches of conditionals included). */
typedef void (*td_ref_fn)(enum td_ref_kind kind, int index, bool optional, void *arg);
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
