/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Formula language: precedence, conditionals, min/max, opt(), division by
 * zero, and the errors a table author gets. Evaluated through tiny tables. */
#include "tap.h"
#include "topdown.h"

#include <stdlib.h>

static char err[TD_ERRLEN];

/* Evaluate FORMULA over events A=a, B=b (and C missing) in a one-node table. */
static double eval_formula(const char *formula, double a, double b, struct td_result *out)
{
	char text[1024];
	snprintf(text, sizeof(text),
		 "table t \"test\"\nevent A code=0x01\nevent B code=0x02\nevent C code=0x03\n"
		 "metric TWO = 2\nnode N parent=- unit=slots threshold=0.5 = %s\n", formula);
	struct td_table *t = td_table_parse(text, "inline", err, sizeof(err));
	if (!t) {
		printf("# parse failed: %s\n", err);
		return NAN;
	}
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "A", a, 0, 0);
	td_countset_add(&cs, "B", b, 0, 0);
	struct td_eval_opts o = { .max_level = 3, .smt_on = true };
	struct td_tree tree;
	double v = NAN;
	if (td_eval(t, &cs, &o, &tree, err, sizeof(err)) == 0) {
		v = tree.res[0].value;
		if (out)
			*out = tree.res[0];
		td_tree_free(&tree);
	}
	td_countset_free(&cs);
	td_table_free(t);
	return v;
}

static void expect_parse_error(const char *formula, const char *needle)
{
	char text[512];
	snprintf(text, sizeof(text), "table t \"x\"\nevent A code=1\nnode N parent=- unit=slots threshold=0 = %s\n",
		 formula);
	struct td_table *t = td_table_parse(text, "bad.tma", err, sizeof(err));
	tap_ok(!t && strstr(err, needle) != NULL, "'%s' is rejected with '%s' (got: %s)", formula, needle,
	       t ? "accepted" : err);
	td_table_free(t);
}

int main(void)
{
	struct td_result r;
	tap_near(eval_formula("A + B * 2", 1, 3, NULL), 7, 1e-12, "* binds tighter than +");
	tap_near(eval_formula("(A + B) * 2", 1, 3, NULL), 8, 1e-12, "parentheses");
	tap_near(eval_formula("A - B - 1", 10, 3, NULL), 6, 1e-12, "- is left associative");
	tap_near(eval_formula("A / B / 2", 12, 3, NULL), 2, 1e-12, "/ is left associative");
	tap_near(eval_formula("-A + 5", 2, 0, NULL), 3, 1e-12, "unary minus");
	tap_near(eval_formula("SMT_on ? A : B", 1, 2, NULL), 1, 1e-12, "SMT_on constant chooses a branch");
	tap_near(eval_formula("A > B ? 10 : 20", 1, 2, NULL), 20, 1e-12, "comparison inside a conditional");
	tap_near(eval_formula("A >= 1 ? 1 : 0", 1, 2, NULL), 1, 1e-12, ">= is not read as >");
	tap_near(eval_formula("min(A, B, 0.5)", 1, 2, NULL), 0.5, 1e-12, "min of three");
	tap_near(eval_formula("max(A, B) / 4", 1, 2, NULL), 0.5, 1e-12, "max");
	tap_near(eval_formula("TWO * A", 3, 0, NULL), 6, 1e-12, "metric reference");
	tap_near(eval_formula("1.5e-1 + .25", 0, 0, NULL), 0.4, 1e-12, "number forms");

	double v = eval_formula("A / B", 1, 0, &r);
	tap_ok(isnan(v) && r.status == TD_NOT_COMPUTABLE && strstr(r.note, "division by zero"),
	       "division by zero is not computable, not a number made up (note: %s)", r.note);
	v = eval_formula("A + C", 1, 1, &r);
	tap_ok(isnan(v) && r.status == TD_NOT_COMPUTABLE && strstr(r.note, "needs C"),
	       "a missing event makes the node not computable and names it (note: %s)", r.note);
	v = eval_formula("A - opt(C)", 0.25, 1, &r);
	tap_near(v, 0.25, 1e-12, "opt() of a missing event counts as 0");
	tap_ok(strstr(r.note, "without C") != NULL, "and the node says it was computed without it (%s)", r.note);
	v = eval_formula("SMT_on ? A : C", 0.25, 1, &r);
	tap_ok(v == 0.25 && r.status == TD_OK, "an untaken branch's missing event does not matter");

	expect_parse_error("A +", "unexpected end");
	expect_parse_error("A + (B", "expected ')'");
	expect_parse_error("A + Z", "unknown name 'Z'");
	expect_parse_error("foo(A)", "unknown function");
	expect_parse_error("A ? 1", "expected ':'");
	expect_parse_error("A 2", "unexpected text");
	expect_parse_error("opt(N)", "not a declared event");
	expect_parse_error("N + 1", "refers to itself");
	return tap_done();
}
