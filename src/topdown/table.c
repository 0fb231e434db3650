/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading TMA tables (data/tma/FORMAT) and looking things up in them. */
#include "td_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const unit_names[] = {
	[TD_UNIT_SLOTS] = "slots",
	[TD_UNIT_CLOCKS] = "clocks",
	[TD_UNIT_STALLS] = "stalls",
	[TD_UNIT_CORE_CLOCKS] = "core-clocks",
};

const char *td_unit_name(enum td_unit u)
{
	return unit_names[u];
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void td_table_free(struct td_table *t)
{
	if (!t)
		return;
	free(t->id);
	free(t->full_name);
	free(t->origin);
	free_strv(t->aliases, t->n_aliases);
	free_strv(t->pmus, t->n_pmus);
	free_strv(t->omitted, t->n_omitted);
	free(t->perf_pmu);
	for (size_t i = 0; i < t->n_events; i++) {
		free(t->events[i].name);
		free(t->events[i].pfm);
		free_strv(t->events[i].aliases, t->events[i].n_aliases);
	}
	free(t->events);
	for (size_t i = 0; i < t->n_metrics; i++) {
		free(t->metrics[i].name);
		free(t->metrics[i].formula);
		td_expr_free(t->metrics[i].expr);
	}
	free(t->metrics);
	for (size_t i = 0; i < t->n_nodes; i++) {
		free(t->nodes[i].name);
		free(t->nodes[i].desc);
		free(t->nodes[i].formula);
		td_expr_free(t->nodes[i].expr);
		free(t->nodes[i].uses);
	}
	free(t->nodes);
	free(t);
}

int td_node_index(const struct td_table *t, const char *name)
{
	for (size_t i = 0; i < t->n_nodes; i++)
		if (!strcasecmp(t->nodes[i].name, name))
			return (int)i;
	return -1;
}

bool td_table_has_name(const struct td_table *t, const char *id)
{
	if (!strcasecmp(t->id, id))
		return true;
	for (size_t i = 0; i < t->n_aliases; i++)
		if (!strcasecmp(t->aliases[i], id))
			return true;
	return false;
}

static bool valid_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* Splits at blanks; a "quoted string" (with key="..." too) is one word. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n == max)
			return -1;
		w[n++] = p;
		bool quoted = false;
		char *out = p;
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"') {
				quoted = !quoted;
				p++;
				continue;
			}
			*out++ = *p++;
		}
		if (quoted)
			return -2;
		if (*p)
			p++;
		*out = 0;
	}
	return n;
}

static int push_str(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = td_strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || !*s || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

struct loader {
	struct td_table *t;
	const char *origin;
	int line;
	char *err;
	size_t errlen;
};

#define LERR(ld, ...)                                                            \
	do {                                                                     \
		char m_[TD_ERRLEN];                                              \
		snprintf(m_, sizeof(m_), __VA_ARGS__);                           \
		td_seterr((ld)->err, (ld)->errlen, "%s:%d: %s", (ld)->origin,    \
			  (ld)->line, m_);                                       \
	} while (0)

static int parse_event(struct loader *ld, char **w, int nw)
{
	struct td_table *t = ld->t;
	struct td_event ev = { .kind = TD_EV_GENERAL };
	uint64_t code = UINT64_MAX, umask = 0, cmask = 0, v;
	bool inv = false, edge = false, any = false;

	if (nw < 2 || !valid_ident(w[1])) {
		LERR(ld, "event needs a name made of letters, digits, '_' and '.'");
		return -1;
	}
	if (td_table_find_event(t, w[1]) >= 0) {
		LERR(ld, "event %s declared twice", w[1]);
		return -1;
	}
	for (int i = 2; i < nw; i++) {
		char *k = w[i], *val = strchr(k, '=');
		if (val)
			*val++ = 0;
		if (!val) {
			if (!strcmp(k, "inv"))
				inv = true;
			else if (!strcmp(k, "edge"))
				edge = true;
			else if (!strcmp(k, "any"))
				any = true;
			else
				goto bad;
		} else if (!strcmp(k, "pfm")) {
			free(ev.pfm);
			ev.pfm = strcmp(val, "-") ? td_strdup(val) : NULL;
		} else if (!strcmp(k, "code")) {
			/* AMD's event select is 12 bits (Intel's 8) */
			if (parse_uint(val, 0xfff, &code))
				goto badval;
		} else if (!strcmp(k, "umask")) {
			if (parse_uint(val, 0xff, &umask))
				goto badval;
		} else if (!strcmp(k, "cmask")) {
			if (parse_uint(val, 0xff, &cmask))
				goto badval;
		} else if (!strcmp(k, "config1")) {
			if (parse_uint(val, UINT64_MAX - 1, &ev.config1))
				goto badval;
		} else if (!strcmp(k, "perf")) {
			for (char *s = strtok(val, ","); s; s = strtok(NULL, ","))
				if (push_str(&ev.aliases, &ev.n_aliases, s))
					goto oom;
		} else if (!strcmp(k, "kind")) {
			if (!strcmp(val, "general"))
				ev.kind = TD_EV_GENERAL;
			else if (!strcmp(val, "fixed"))
				ev.kind = TD_EV_FIXED;
			else if (!strcmp(val, "metrics"))
				ev.kind = TD_EV_METRICS;
			else
				goto badval;
		} else {
			val[-1] = '=';
			goto bad;
		}
		continue;
bad:
		LERR(ld, "event %s: unknown attribute '%s'", w[1], k);
		goto fail;
badval:
		LERR(ld, "event %s: bad value '%s' for %s", w[1], val, k);
		goto fail;
	}
	if (code == UINT64_MAX) {
		LERR(ld, "event %s: missing code=", w[1]);
		goto fail;
	}
	/* AMD's extended event select: event bits 11:8 in config bits 35:32 */
	v = (code & 0xff) | umask << 8 | (uint64_t)edge << 18 | (uint64_t)any << 21 |
	    (uint64_t)inv << 23 | cmask << 24 | (code >> 8) << 32;
	ev.config = v;
	if (!(ev.name = td_strdup(w[1])))
		goto oom;
	struct td_event *ne = realloc(t->events, (t->n_events + 1) * sizeof(*ne));
	if (!ne)
		goto oom;
	t->events = ne;
	t->events[t->n_events++] = ev;
	return 0;
oom:
	LERR(ld, "out of memory");
fail:
	free(ev.name);
	free(ev.pfm);
	free_strv(ev.aliases, ev.n_aliases);
	return -1;
}

/* "metric NAME = EXPR" / "node NAME k=v... = EXPR": EXPR follows the first
 * '=' that stands alone between blanks outside a quoted desc. */
static char *split_formula(char *line)
{
	bool quoted = false;
	for (char *p = line; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '=' && !quoted && p > line && isspace((unsigned char)p[-1]) &&
			 isspace((unsigned char)p[1])) {
			*p = 0;
			return p + 2;
		}
	}
	return NULL;
}

static int parse_metric(struct loader *ld, char *rest)
{
	struct td_table *t = ld->t;
	char *expr = split_formula(rest);
	char *w[4];
	int nw = split_words(rest, w, 4);
	char e[TD_ERRLEN / 2];	/* leaves room for the file:line prefix */

	if (!expr || nw != 1 || !valid_ident(w[0])) {
		LERR(ld, "expected 'metric NAME = EXPR'");
		return -1;
	}
	for (size_t i = 0; i < t->n_metrics; i++)
		if (!strcmp(t->metrics[i].name, w[0])) {
			LERR(ld, "metric %s defined twice", w[0]);
			return -1;
		}
	struct td_metric m = { .name = td_strdup(w[0]), .expr = td_expr_parse(expr, e, sizeof(e)),
			       .formula = td_strdup(expr) };
	if (!m.expr) {
		LERR(ld, "metric %s: %s", w[0], e);
		free(m.name);
		free(m.formula);
		return -1;
	}
	struct td_metric *nm = realloc(t->metrics, (t->n_metrics + 1) * sizeof(*nm));
	if (!nm || !m.name || !m.formula) {
		free(m.name);
		free(m.formula);
		td_expr_free(m.expr);
		LERR(ld, "out of memory");
		return -1;
	}
	t->metrics = nm;
	t->metrics[t->n_metrics++] = m;
	return 0;
}

static int parse_node(struct loader *ld, char *rest)
{
	struct td_table *t = ld->t;
	char *expr = split_formula(rest);
	char *w[16];
	int nw = split_words(rest, w, 16);
	char e[TD_ERRLEN / 2];	/* leaves room for the file:line prefix */
	struct td_node nd = { .parent = -2, .unit = (enum td_unit)-1, .threshold = -1 };

	if (!expr || nw < 1 || !valid_ident(w[0])) {
		LERR(ld, "expected 'node NAME parent=P unit=U threshold=T = EXPR'");
		return -1;
	}
	if (td_node_index(t, w[0]) >= 0) {
		LERR(ld, "node %s defined twice", w[0]);
		return -1;
	}
	for (int i = 1; i < nw; i++) {
		char *k = w[i], *val = strchr(k, '=');
		if (!val) {
			LERR(ld, "node %s: expected key=value, got '%s'", w[0], k);
			goto fail;
		}
		*val++ = 0;
		if (!strcmp(k, "parent")) {
			if (!strcmp(val, "-")) {
				nd.parent = -1;
			} else if ((nd.parent = td_node_index(t, val)) < 0) {
				LERR(ld, "node %s: parent %s is not an earlier node", w[0], val);
				goto fail;
			}
		} else if (!strcmp(k, "unit")) {
			for (size_t u = 0; u < sizeof(unit_names) / sizeof(*unit_names); u++)
				if (!strcmp(val, unit_names[u]))
					nd.unit = (enum td_unit)u;
			if ((int)nd.unit < 0) {
				LERR(ld, "node %s: unknown unit '%s' (slots, clocks, stalls, core-clocks)",
				     w[0], val);
				goto fail;
			}
		} else if (!strcmp(k, "threshold")) {
			char *end;
			nd.threshold = strtod(val, &end);
			if (*end || nd.threshold < 0 || nd.threshold > 1) {
				LERR(ld, "node %s: threshold must be a fraction in [0,1], got '%s'",
				     w[0], val);
				goto fail;
			}
		} else if (!strcmp(k, "desc")) {
			free(nd.desc);
			nd.desc = td_strdup(val);
		} else {
			LERR(ld, "node %s: unknown attribute '%s'", w[0], k);
			goto fail;
		}
	}
	if (nd.parent == -2 || (int)nd.unit < 0 || nd.threshold < 0) {
		LERR(ld, "node %s: parent=, unit= and threshold= are required", w[0]);
		goto fail;
	}
	nd.level = nd.parent < 0 ? 1 : t->nodes[nd.parent].level + 1;
	if (nd.level > TD_MAX_LEVEL) {
		/* the tree's walks recurse once per level */
		LERR(ld, "node %s: level %d, deeper than %d levels (parent %s)", w[0], nd.level,
		     TD_MAX_LEVEL, t->nodes[nd.parent].name);
		goto fail;
	}
	if (!(nd.expr = td_expr_parse(expr, e, sizeof(e)))) {
		LERR(ld, "node %s: %s", w[0], e);
		goto fail;
	}
	nd.name = td_strdup(w[0]);
	nd.formula = td_strdup(expr);
	struct td_node *nn = realloc(t->nodes, (t->n_nodes + 1) * sizeof(*nn));
	if (!nn || !nd.name || !nd.formula) {
		LERR(ld, "out of memory");
		td_expr_free(nd.expr);
		free(nd.name);
		free(nd.formula);
		goto fail;
	}
	t->nodes = nn;
	t->nodes[t->n_nodes++] = nd;
	return 0;
fail:
	free(nd.desc);
	return -1;
}

static int parse_line(struct loader *ld, char *line)
{
	struct td_table *t = ld->t;
	char *kw = line, *rest;
	while (isspace((unsigned char)*kw))
		kw++;
	rest = kw;
	while (*rest && !isspace((unsigned char)*rest))
		rest++;
	if (*rest)
		*rest++ = 0;

	if (!strcmp(kw, "metric"))
		return parse_metric(ld, rest);
	if (!strcmp(kw, "node"))
		return parse_node(ld, rest);

	char *w[32];
	int nw = split_words(rest, w + 1, 31);
	if (nw < 0) {
		LERR(ld, nw == -2 ? "unterminated quote" : "too many words");
		return -1;
	}
	w[0] = kw;
	nw++;
	if (!strcmp(kw, "table")) {
		if (nw != 3 || t->id) {
			LERR(ld, "expected one 'table ID \"FULL NAME\"' line");
			return -1;
		}
		t->id = td_strdup(w[1]);
		t->full_name = td_strdup(w[2]);
	} else if (!strcmp(kw, "alias") || !strcmp(kw, "pmu")) {
		bool alias = kw[0] == 'a';
		for (int i = 1; i < nw; i++)
			if (push_str(alias ? &t->aliases : &t->pmus,
				     alias ? &t->n_aliases : &t->n_pmus, w[i]))
				return -1;
	} else if (!strcmp(kw, "width")) {
		uint64_t v;
		if (nw != 2 || parse_uint(w[1], 16, &v) || v == 0) {
			LERR(ld, "expected 'width N' with 1 <= N <= 16");
			return -1;
		}
		t->width = (int)v;
	} else if (!strcmp(kw, "counters")) {
		uint64_t v;
		if (nw != 2 || parse_uint(w[1], 64, &v) || v == 0) {
			LERR(ld, "expected 'counters N' with 1 <= N <= 64");
			return -1;
		}
		t->counters = (int)v;
	} else if (!strcmp(kw, "perfpmu")) {
		/* the kernel's PMU of a hybrid CPU's core type: the events are
		 * opened on it (its sysfs type), so that they count only there */
		if (nw != 2 || t->perf_pmu || strchr(w[1], '/') || strchr(w[1], '.')) {
			LERR(ld, "expected one 'perfpmu NAME' line (a PMU of /sys/bus/event_source/devices)");
			return -1;
		}
		t->perf_pmu = td_strdup(w[1]);
	} else if (!strcmp(kw, "omit")) {
		/* a node of the source the table leaves out, and why */
		if (nw != 3) {
			LERR(ld, "expected 'omit NAME \"WHY\"'");
			return -1;
		}
		size_t l = strlen(w[1]) + strlen(w[2]) + 3;
		char *text = malloc(l);
		if (!text)
			return -1;
		snprintf(text, l, "%s: %s", w[1], w[2]);
		int rc = push_str(&t->omitted, &t->n_omitted, text);
		free(text);
		return rc;
	} else if (!strcmp(kw, "event")) {
		return parse_event(ld, w, nw);
	} else {
		LERR(ld, "unknown keyword '%s'", kw);
		return -1;
	}
	return 0;
}

/* Evaluating a node runs down its formula and, at each metric or node it
 * names, down that one's formula (td_eval_node): the stack grows with the
 * levels of the formulas along the chain. Measured once per metric and
 * node (a name used twice is not walked twice), refused past
 * TD_EVAL_MAX_DEPTH, and cycles refused, before anything evaluates. */
struct reach_arg {
	const struct td_table *t;
	int *state;		/* per metric, then per node: 0 new, 1 on the path, 2 measured */
	unsigned *height;	/* when measured: levels of its evaluation */
	unsigned above;		/* levels of the chain above the formula walked now */
	unsigned height_now;	/* of the formula walked now, so far */
	const char *cycle_at;	/* a formula that names itself through this one */
	bool deep;		/* the chain passes the limit ... */
	size_t deep_at;		/* ... in this metric or node */
};

static void reach_ref(enum td_ref_kind kind, int index, bool optional, unsigned depth, void *varg);

static const char *slot_name(const struct td_table *t, size_t slot)
{
	return slot < t->n_metrics ? t->metrics[slot].name : t->nodes[slot - t->n_metrics].name;
}

static const struct td_expr *slot_expr(const struct td_table *t, size_t slot)
{
	return slot < t->n_metrics ? t->metrics[slot].expr : t->nodes[slot - t->n_metrics].expr;
}

/* Measures SLOT, whose formula starts ABOVE levels down a chain; the
 * recursion ends once the chain passes the limit (every step down adds a
 * level), so it stays within TD_EVAL_MAX_DEPTH formula levels. */
static void reach_measure(struct reach_arg *a, size_t slot, unsigned above)
{
	const struct td_expr *e = slot_expr(a->t, slot);
	unsigned saved_above = a->above, saved_height = a->height_now;
	a->above = above;
	a->height_now = td_expr_depth(e);
	if (above + a->height_now > TD_EVAL_MAX_DEPTH) {
		a->deep = true;
		a->deep_at = slot;
	} else {
		a->state[slot] = 1;
		td_expr_walk(e, reach_ref, a);
		a->state[slot] = 2;
		a->height[slot] = a->height_now;
	}
	a->above = saved_above;
	a->height_now = saved_height;
}

static void reach_ref(enum td_ref_kind kind, int index, bool optional, unsigned depth, void *varg)
{
	struct reach_arg *a = varg;
	(void)optional;
	if (a->cycle_at || a->deep || (kind != TD_REF_METRIC && kind != TD_REF_NODE))
		return;
	size_t slot = kind == TD_REF_METRIC ? (size_t)index : a->t->n_metrics + (size_t)index;
	if (a->state[slot] == 1) {
		a->cycle_at = slot_name(a->t, slot);
		return;
	}
	if (a->state[slot] == 0)
		reach_measure(a, slot, a->above + depth);
	if (a->cycle_at || a->deep)
		return;
	/* the name's level in this formula, then the named formula's own */
	if (depth + a->height[slot] > a->height_now)
		a->height_now = depth + a->height[slot];
	if (a->above + a->height_now > TD_EVAL_MAX_DEPTH) {
		a->deep = true;
		a->deep_at = slot;
	}
}

/* The events a node uses, directly or through what it names: each metric
 * and node walked once per node (SEEN[slot] == STAMP), so that names
 * shared down the chains ("A = B + B", "B = C + C", ...) cost no more than
 * once each. The recursion is that of the evaluation, measured above. */
struct uses_arg {
	const struct td_table *t;
	bool *uses;
	unsigned *seen;
	unsigned stamp;
};

static void collect_uses(enum td_ref_kind kind, int index, bool optional, unsigned depth, void *varg)
{
	struct uses_arg *a = varg;
	(void)optional;
	(void)depth;
	if (kind == TD_REF_EVENT) {
		a->uses[index] = true;
		return;
	}
	if (kind != TD_REF_METRIC && kind != TD_REF_NODE)
		return;
	size_t slot = kind == TD_REF_METRIC ? (size_t)index : a->t->n_metrics + (size_t)index;
	if (a->seen[slot] == a->stamp)
		return;
	a->seen[slot] = a->stamp;
	td_expr_walk(slot_expr(a->t, slot), collect_uses, a);
}

static int finish_table(struct loader *ld)
{
	struct td_table *t = ld->t;
	char e[TD_ERRLEN / 2];	/* leaves room for the file:line prefix */

	ld->line = 0;
	if (!t->id) {
		td_seterr(ld->err, ld->errlen, "%s: no 'table' line", ld->origin);
		return -1;
	}
	if (!t->width)
		t->width = 4;
	if (!t->n_nodes) {
		td_seterr(ld->err, ld->errlen, "%s: no nodes", ld->origin);
		return -1;
	}
	for (size_t i = 0; i < t->n_metrics; i++)
		if (td_expr_resolve(t->metrics[i].expr, t, e, sizeof(e))) {
			td_seterr(ld->err, ld->errlen, "%s: metric %s: %s", ld->origin,
				  t->metrics[i].name, e);
			return -1;
		}
	for (size_t i = 0; i < t->n_nodes; i++)
		if (td_expr_resolve(t->nodes[i].expr, t, e, sizeof(e))) {
			td_seterr(ld->err, ld->errlen, "%s: node %s: %s", ld->origin,
				  t->nodes[i].name, e);
			return -1;
		}
	size_t n_slots = t->n_metrics + t->n_nodes;
	int *state = calloc(n_slots, sizeof(*state));
	unsigned *height = calloc(n_slots, sizeof(*height));
	unsigned *seen = calloc(n_slots, sizeof(*seen));
	int rc = -1;
	if (!state || !height || !seen) {
		td_seterr(ld->err, ld->errlen, "%s: out of memory", ld->origin);
		goto out;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct reach_arg a = { .t = t, .state = state, .height = height };
		size_t slot = t->n_metrics + i;
		if (state[slot] == 0)
			reach_measure(&a, slot, 0);
		if (a.cycle_at) {
			td_seterr(ld->err, ld->errlen, "%s: node %s: formula refers to itself through %s",
				  ld->origin, t->nodes[i].name, a.cycle_at);
			goto out;
		}
		if (a.deep) {
			td_seterr(ld->err, ld->errlen,
				  "%s: node %s: formula nested deeper than %d levels with the metrics and nodes it "
				  "names written out (past the limit at %s %s)",
				  ld->origin, t->nodes[i].name, TD_EVAL_MAX_DEPTH,
				  a.deep_at < t->n_metrics ? "metric" : "node", slot_name(t, a.deep_at));
			goto out;
		}
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct uses_arg a = { .t = t, .seen = seen, .stamp = (unsigned)i + 1 };
		a.uses = t->nodes[i].uses = calloc(t->n_events ? t->n_events : 1, sizeof(bool));
		if (!a.uses) {
			td_seterr(ld->err, ld->errlen, "%s: out of memory", ld->origin);
			goto out;
		}
		seen[t->n_metrics + i] = a.stamp;
		td_expr_walk(t->nodes[i].expr, collect_uses, &a);
	}
	rc = 0;
out:
	free(state);
	free(height);
	free(seen);
	return rc;
}

struct td_table *td_table_parse(const char *text, const char *origin, char *err, size_t errlen)
{
	struct loader ld = { .origin = origin, .err = err, .errlen = errlen };
	char *buf = td_strdup(text);
	ld.t = calloc(1, sizeof(*ld.t));
	if (!buf || !ld.t || !(ld.t->origin = td_strdup(origin))) {
		td_seterr(err, errlen, "out of memory");
		goto fail;
	}
	char *line = buf, *next;
	int lineno = 0;
	for (; line && *line; line = next) {
		/* a trailing '\' joins the next physical line; errors name the first */
		char *nl = strchr(line, '\n');
		int physical = 1;
		while (nl && nl > line && nl[-1] == '\\') {
			nl[-1] = nl[0] = ' ';
			physical++;
			nl = strchr(nl, '\n');
		}
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		ld.line = lineno + 1;
		lineno += physical;
		bool quoted = false;	/* '#' inside desc="..." is text */
		for (char *p = line; *p; p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (*p == '#' && !quoted) {
				*p = 0;
				break;
			}
		}
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			continue;
		if (parse_line(&ld, p))
			goto fail;
	}
	if (finish_table(&ld))
		goto fail;
	free(buf);
	return ld.t;
fail:
	free(buf);
	td_table_free(ld.t);
	return NULL;
}

struct td_table *td_table_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		td_seterr(err, errlen, "cannot open TMA table %s: %s", path, strerror(errno));
		return NULL;
	}
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[8192];
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nt = realloc(text, cap);
			if (!nt) {
				free(text);
				fclose(f);
				td_seterr(err, errlen, "out of memory reading %s", path);
				return NULL;
			}
			text = nt;
		}
		memcpy(text + len, chunk, n);
		len += n;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(text);
		td_seterr(err, errlen, "error reading %s", path);
		return NULL;
	}
	if (!text) {
		td_seterr(err, errlen, "%s: empty file", path);
		return NULL;
	}
	text[len] = 0;
	if (memchr(text, 0, len)) {
		free(text);
		td_seterr(err, errlen, "%s: not a text file", path);
		return NULL;
	}
	struct td_table *t = td_table_parse(text, path, err, errlen);
	free(text);
	return t;
}

static struct td_table *load_matching_in(const char *dir, bool (*match)(const struct td_table *, const char *),
					 const char *key, const char *what, char *err, size_t errlen);

/* Try every *.tma of each directory of DIRS (a ':'-separated list: the
 * hand-written tables, then those generated from the kernel's files), keep
 * the first that MATCH accepts. */
static struct td_table *load_matching(const char *dirs, bool (*match)(const struct td_table *, const char *),
				      const char *key, const char *what, char *err, size_t errlen)
{
	if (!strchr(dirs, ':'))
		return load_matching_in(dirs, match, key, what, err, errlen);
	char *list = strdup(dirs);
	if (!list) {
		td_seterr(err, errlen, "out of memory");
		return NULL;
	}
	struct td_table *t = NULL;
	char *save = NULL;
	for (char *d = strtok_r(list, ":", &save); d && !t; d = strtok_r(NULL, ":", &save)) {
		t = load_matching_in(d, match, key, what, err, errlen);
		/* a missing directory of the list is no error; a broken table is */
		if (!t && !strstr(err, "no TMA table in") && !strstr(err, "cannot open TMA table directory"))
			break;
	}
	if (!t && strstr(err, "no TMA table in"))
		td_seterr(err, errlen, "no TMA table in %s for %s '%s'", dirs, what, key);
	free(list);
	return t;
}

/* Try every *.tma in DIR, keep the first that MATCH accepts. */
static struct td_table *load_matching_in(const char *dir, bool (*match)(const struct td_table *, const char *),
					 const char *key, const char *what, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		td_seterr(err, errlen, "cannot open TMA table directory %s: %s", dir, strerror(errno));
		return NULL;
	}
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".tma"))
			if (push_str(&names, &n, de->d_name))
				break;
	}
	closedir(d);
	/* directory order is arbitrary: sort for a stable choice */
	if (n > 1)
		qsort(names, n, sizeof(*names), (int (*)(const void *, const void *))strcmp);
	struct td_table *found = NULL;
	char path[4096];
	for (size_t i = 0; i < n && !found; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct td_table *t = td_table_load(path, err, errlen);
		if (!t) {
			free_strv(names, n);
			return NULL;	/* a broken installed table is an error, not a skip */
		}
		if (match(t, key))
			found = t;
		else
			td_table_free(t);
	}
	free_strv(names, n);
	if (!found)
		td_seterr(err, errlen, "no TMA table in %s for %s '%s'", dir, what, key);
	return found;
}

static bool match_arch(const struct td_table *t, const char *id)
{
	return td_table_has_name(t, id);
}

bool td_table_has_pmu(const struct td_table *t, const char *pmu)
{
	for (size_t i = 0; i < t->n_pmus; i++)
		if (!strcasecmp(t->pmus[i], pmu))
			return true;
	return false;
}

struct td_table *td_table_load_arch(const char *dir, const char *id, char *err, size_t errlen)
{
	return load_matching(dir, match_arch, id, "micro-architecture", err, errlen);
}

struct td_table *td_table_load_pmu(const char *dir, const char *pmu, char *err, size_t errlen)
{
	return load_matching(dir, td_table_has_pmu, pmu, "libpfm4 PMU", err, errlen);
}

void td_normalize_name(const char *in, char *out, size_t outlen)
{
	const char *s = in, *e = in + strlen(in);
	/* "cpu/NAME/mods" or "cpu_core/NAME/" -> NAME */
	const char *slash = strchr(s, '/');
	if (slash && !strchr(slash + 1, '=')) {
		const char *end = strchr(slash + 1, '/');
		if (end) {
			s = slash + 1;
			e = end;
		}
	}
	/* perf's privilege suffixes: "instructions:u", "uops_issued.any:ukp" */
	const char *colon = NULL;
	for (const char *p = s; p < e; p++)
		if (*p == ':')
			colon = p;
	if (colon && e - colon > 1 && e - colon <= 4 &&
	    strspn(colon + 1, "ukhpGHPS") >= (size_t)(e - colon - 1))
		e = colon;
	size_t j = 0;
	for (; s < e && j + 1 < outlen; s++) {
		char c = (char)tolower((unsigned char)*s);
		out[j++] = c == ':' ? '.' : c;
	}
	out[j] = 0;
}

bool td_parse_raw_config(const char *name, uint64_t *config)
{
	const char *s = name;
	char *end;
	if (s[0] == 'r' && isxdigit((unsigned char)s[1])) {
		unsigned long long v = strtoull(s + 1, &end, 16);
		if (*end && *end != ':')
			return false;
		*config = v;
		return true;
	}
	const char *slash = strchr(s, '/');
	if (!slash || !strchr(slash, '='))
		return false;
	uint64_t v = 0;
	bool any_term = false;
	const char *p = slash + 1;
	while (*p && *p != '/') {
		char key[32];
		size_t k = 0;
		while (*p && *p != '=' && *p != ',' && *p != '/' && k + 1 < sizeof(key))
			key[k++] = *p++;
		key[k] = 0;
		unsigned long long val = 1;
		if (*p == '=') {
			p++;
			val = strtoull(p, &end, 0);
			if (end == p) {
				/* name=..., or a non-numeric term: skip its value */
				while (*p && *p != ',' && *p != '/')
					p++;
				if (strcmp(key, "name"))
					return false;
				if (*p == ',')
					p++;
				continue;
			}
			p = end;
		}
		if (!strcmp(key, "event"))	/* AMD: bits 11:8 in config bits 35:32 */
			v |= (val & 0xff) | (uint64_t)(val >> 8 & 0xf) << 32;
		else if (!strcmp(key, "umask"))
			v |= (val & 0xff) << 8;
		else if (!strcmp(key, "edge"))
			v |= (uint64_t)(val & 1) << 18;
		else if (!strcmp(key, "any"))
			v |= (uint64_t)(val & 1) << 21;
		else if (!strcmp(key, "inv"))
			v |= (uint64_t)(val & 1) << 23;
		else if (!strcmp(key, "cmask"))
			v |= (uint64_t)(val & 0xff) << 24;
		else if (!strcmp(key, "config"))
			v |= val;
		else
			return false;
		any_term = true;
		if (*p == ',')
			p++;
	}
	if (!any_term)
		return false;
	*config = v;
	return true;
}

/* perf's name of a metric's modified event, "cpu/EVENT,cmask=0x6/" (the
 * kernel's cpu@EVENT\,cmask\=0x6@): EVENT's config with the terms
 * applied, when the table knows EVENT; metric-id= and name= terms are
 * perf's bookkeeping */
static bool named_with_terms(const struct td_table *t, const char *name, uint64_t *config)
{
	const char *slash = strchr(name, '/');
	if (!slash)
		return false;
	const char *p = slash + 1, *end = strchr(p, '/');
	size_t bl = strcspn(p, ",/");
	if (!end || p[bl] != ',' || memchr(p, '=', bl) || bl >= 128)
		return false;
	char base[128];
	memcpy(base, p, bl);
	base[bl] = 0;
	int e = -1;
	char want[160], have[160];
	td_normalize_name(base, want, sizeof want);
	for (size_t i = 0; i < t->n_events && e < 0; i++) {
		td_normalize_name(t->events[i].name, have, sizeof have);
		if (!strcmp(want, have))
			e = (int)i;
	}
	if (e < 0)
		return false;
	uint64_t v = t->events[e].config;
	for (p += bl; p < end && *p == ',';) {
		p++;
		char key[32];
		size_t k = 0;
		while (p < end && *p != '=' && *p != ',' && k + 1 < sizeof key)
			key[k++] = *p++;
		key[k] = 0;
		unsigned long long val = 1;
		bool numeric = true;
		if (p < end && *p == '=') {
			char *vend;
			p++;
			val = strtoull(p, &vend, 0);
			numeric = vend != p;
			p = vend;
			while (p < end && *p != ',')
				p++;
		}
		if (!strcmp(key, "metric-id") || !strcmp(key, "name"))
			continue;
		if (!numeric)
			return false;
		if (!strcmp(key, "cmask"))
			v = (v & ~(0xffull << 24)) | (uint64_t)(val & 0xff) << 24;
		else if (!strcmp(key, "umask"))
			v = (v & ~(0xffull << 8)) | (uint64_t)(val & 0xff) << 8;
		else if (!strcmp(key, "edge"))
			v = (v & ~(1ull << 18)) | (uint64_t)(val & 1) << 18;
		else if (!strcmp(key, "inv"))
			v = (v & ~(1ull << 23)) | (uint64_t)(val & 1) << 23;
		else if (!strcmp(key, "any"))
			v = (v & ~(1ull << 21)) | (uint64_t)(val & 1) << 21;
		else
			return false;
	}
	*config = v;
	return true;
}

int td_table_find_event(const struct td_table *t, const char *name)
{
	char want[160], have[160];
	uint64_t cfg;

	td_normalize_name(name, want, sizeof(want));
	for (size_t i = 0; i < t->n_events; i++) {
		const struct td_event *ev = &t->events[i];
		td_normalize_name(ev->name, have, sizeof(have));
		if (!strcmp(want, have))
			return (int)i;
		if (ev->pfm) {
			td_normalize_name(ev->pfm, have, sizeof(have));
			if (!strcmp(want, have))
				return (int)i;
		}
		for (size_t a = 0; a < ev->n_aliases; a++) {
			td_normalize_name(ev->aliases[a], have, sizeof(have));
			if (!strcmp(want, have))
				return (int)i;
		}
	}
	if (td_parse_raw_config(name, &cfg) || named_with_terms(t, name, &cfg))
		for (size_t i = 0; i < t->n_events; i++)
			if (t->events[i].config == cfg)
				return (int)i;
	return -1;
}
