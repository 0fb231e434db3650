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

/* "table ... node N = PREFIX x N, then MIDDLE, then SUFFIX x N": a formula
 * of any size (the fixed buffers above hold short ones) */
static char *nested_table(const char *extra_lines, const char *prefix, const char *middle, const char *suffix,
			  size_t n)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);
	size_t cap = strlen(extra_lines) + n * (lp + ls) + strlen(middle) + 256;
	char *text = malloc(cap);
	if (!text)
		abort();
	char *p = text + sprintf(text, "table t \"x\"\nevent A code=1\n%snode N parent=- unit=slots threshold=0 = ",
				 extra_lines);
	for (size_t i = 0; i < n; i++, p += lp)
		memcpy(p, prefix, lp);
	p += sprintf(p, "%s", middle);
	for (size_t i = 0; i < n; i++, p += ls)
		memcpy(p, suffix, ls);
	strcpy(p, "\n");
	return text;
}

/* Parse TEXT; when it loads, evaluate node N over A = 1: its value, else NAN
 * with err set. */
static double parse_eval(const char *text)
{
	struct td_table *t = td_table_parse(text, "deep.tma", err, sizeof(err));
	if (!t)
		return NAN;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 1, 0, 0);
	struct td_eval_opts o = { .max_level = 3 };
	struct td_tree tree;
	double v = -12345;
	if (td_eval(t, &cs, &o, &tree, err, sizeof(err)) == 0) {
		v = tree.res[td_node_index(t, "N")].value;
		td_tree_free(&tree);
	}
	td_countset_free(&cs);
	td_table_free(t);
	return v;
}

/* Nesting: 256 levels per formula, 1024 with the metrics it names written
 * out, 32 node levels (gus-stat(1), FILES): just under loads and
 * evaluates, just over is an error naming the file, line and node, and far
 * over (the recursion of a parser without a limit overflows its stack
 * there) too, without a crash. */
static void check_depth(const char *what, const char *extra, const char *prefix, const char *middle,
			const char *suffix, size_t under, double want)
{
	char *text = nested_table(extra, prefix, middle, suffix, under);
	double v = parse_eval(text);
	free(text);
	/* a value far from 1 is shown as mismeasured, but it is a value */
	tap_ok(v == want, "%s: %zu deep loads and evaluates to %g (got %g%s%s)", what, under, want, v,
	       isnan(v) ? ": " : "", isnan(v) ? err : "");
	for (size_t n = under + 1; n; n = n == under + 1 ? 100000 : 0) {
		text = nested_table(extra, prefix, middle, suffix, n);
		v = parse_eval(text);
		free(text);
		tap_ok(isnan(v) && strstr(err, "deep.tma:") == err && strstr(err, "node N: ") &&
			       strstr(err, "nested deeper than 256 levels"),
		       "%s: %zu deep is refused, naming the file, line and node (got: %.120s)", what, n,
		       isnan(v) ? err : "accepted");
	}
}

static void check_depth_limits(void)
{
	/* the formula is level 1: 255 pairs of parentheses around A make 256 */
	check_depth("parentheses", "", "(", "A", ")", 255, 1);
	check_depth("unary minus", "", "-", "A", "", 255, -1);
	check_depth("unary plus", "", "+", "A", "", 255, 1);
	check_depth("a chain of +", "", "", "A", " + A", 255, 256);
	check_depth("a chain of *", "", "", "A", " * A", 255, 1);
	check_depth("conditionals", "", "A ? ", "A", " : 0", 255, 1);
	check_depth("function calls", "", "max(0, ", "A", ")", 255, 1);
	check_depth("mixed", "", "-(", "A", ")", 127, -1);
	/* unbalanced input fails on depth before it fails on syntax */
	char *text = nested_table("", "(", "A", "", 30000);
	tap_ok(!td_table_parse(text, "deep.tma", err, sizeof(err)) && strstr(err, "nested deeper than 256"),
	       "30000 '(' without their ')' is refused for its depth (got: %.80s)", err);
	free(text);

	/* metrics naming metrics: node N = M0, Mi = Mi+1, the last = A. Each
	 * formula is 1 level, so N's evaluation goes N metrics + 1 deep */
	for (size_t n = 1023; n <= 5000; n = n == 1023 ? 1024 : n == 1024 ? 5000 : 5001) {
		size_t cap = n * 40 + 64;
		char *lines = malloc(cap), *p = lines;
		if (!lines)
			abort();
		for (size_t i = 0; i + 1 < n; i++)
			p += sprintf(p, "metric M%zu = M%zu\n", i, i + 1);
		sprintf(p, "metric M%zu = A\n", n - 1);
		text = nested_table(lines, "", "M0", "", 0);
		free(lines);
		double v = parse_eval(text);
		free(text);
		if (n == 1023)
			tap_ok(v == 1, "a node through a chain of %zu metrics (1024 levels) evaluates (got %g%s%s)", n,
			       v, isnan(v) ? ": " : "", isnan(v) ? err : "");
		else
			tap_ok(isnan(v) && strstr(err, "deep.tma: node N: ") == err &&
				       strstr(err, "nested deeper than 1024 levels with the metrics and nodes it names"),
			       "a node through a chain of %zu metrics is refused, naming the node (got: %.160s)", n,
			       isnan(v) ? err : "accepted");
	}

	/* metrics that name the next one twice: 2^60 walks if each name were
	 * walked again wherever it is named */
	{
		char lines[4096], *p = lines;
		for (int i = 0; i < 60; i++)
			p += sprintf(p, "metric M%d = M%d + M%d\n", i, i + 1, i + 1);
		sprintf(p, "metric M60 = A\n");
		text = nested_table(lines, "", "M0", "", 0);
		double v = parse_eval(text);
		free(text);
		tap_ok(v == ldexp(1, 60), "60 metrics each naming the next twice load at once (got %g)", v);
	}

	/* node levels: the parent chain */
	for (size_t n = 32; n <= 10000; n = n == 32 ? 33 : n == 33 ? 10000 : 10001) {
		char *lines = malloc(n * 64 + 64), *p = lines;
		if (!lines)
			abort();
		p += sprintf(p, "table t \"x\"\nevent A code=1\nnode L1 parent=- unit=slots threshold=0 = A\n");
		for (size_t i = 2; i <= n; i++)
			p += sprintf(p, "node L%zu parent=L%zu unit=slots threshold=0 = A\n", i, i - 1);
		struct td_table *t = td_table_parse(lines, "deep.tma", err, sizeof(err));
		free(lines);
		if (n == 32)
			tap_ok(t && t->nodes[t->n_nodes - 1].level == 32, "a node at level 32 loads (got: %s)",
			       t ? "loaded" : err);
		else
			tap_ok(!t && strstr(err, "deep.tma:35: node L33: level 33, deeper than 32 levels"),
			       "a tree %zu levels deep is refused at level 33, naming the line and node (got: %.120s)", n,
			       t ? "accepted" : err);
		td_table_free(t);
	}
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
	check_depth_limits();
	return tap_done();
}
