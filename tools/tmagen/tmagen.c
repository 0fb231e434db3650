/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus-tmagen: gus's TMA tables (data/tma/FORMAT) generated from the Linux
 * kernel's Intel and AMD metric and event files
 * (tools/perf/pmu-events/arch/x86/<cpu>/{*-metrics.json,*.json}), at build
 * time. Which kernel directory becomes which table, and the facts the JSON
 * does not carry (pipeline width, libpfm4 PMU, perf's pseudo-events, the
 * order of the TMA hierarchy, the spelling of node names) are in cpus.txt.
 *
 *   gus-tmagen CPUS.TXT ARCHDIR OUTDIR
 *
 * The metrics are Intel's TMA nodes (tma_*, with a TopdownL<k> group; the
 * parent from the tma_<parent>_group group), their helper metrics
 * (tma_info_*) and thresholds. AMD's pipeline-utilization Top-Down
 * (cpus.txt's levels=PipelineL) is the same with the kernel's own names:
 * its nodes are the metrics of a PipelineL<k> group (frontend_bound, ...),
 * a node's parent the node that a <parent>_group group names. perf's
 * expression language is parsed and
 * written back in the table's EXPR grammar. Every event a kept formula
 * names is declared with the public encoding of the kernel's event files,
 * and with libpfm4's name when libpfm4 encodes that name to the same
 * config on the table's PMU (LIBPFM_FORCE_PMU is not needed: the PMU is
 * named in the event string). A node whose formula needs what gus cannot
 * count per program (uncore events, duration_time, the number of CPUs) is
 * left out with a comment saying why, and so are its children. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <perfmon/pfmlib_perf_event.h>

#define MAXLIST 64

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("gus-tmagen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		die("out of memory");
	return d;
}

/* a growable string */
struct buf {
	char *s;
	size_t n, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (k < 0)
			die("format error");
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		b->cap = (b->cap + (size_t)k + 64) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die("out of memory");
	}
}

/* ------------------------------------------------------------ cpus.txt --- */
struct cpu {
	char *dir, *id, *name, *unit;	/* unit: cpu_core / cpu_atom of a hybrid, or NULL */
	char *pfm;			/* libpfm4 PMU the names are checked against */
	char *pmu, *alias;		/* the table's pmu and alias lines */
	char *levels;			/* the MetricGroup of level k is LEVELS<k>; NULL: Intel's TopdownL and tma_* names */
	bool short_names;		/* names=child: a child named without its parent's name */
	bool pfm_by_encoding;		/* pfmnames=encoding: libpfm4's name found by the encoding */
	int width, counters;
};

/* a perf pseudo-event or a fixed-counter event: its encoding is not in the
 * kernel's event files in a form every PMU takes */
struct pseudo {
	char *name, *perfname, *pfm, *perf, *kind;
	unsigned code, umask;
};

static struct cpu cpus[MAXLIST];
static size_t ncpus;
static struct pseudo pseudos[MAXLIST];
static size_t npseudos;
static char *words[256][2];	/* word map: lower case -> spelling */
static size_t nwords;
static char *order[512];	/* the TMA hierarchy's order of nodes */
static size_t norder;
static char *optional[64];	/* events a formula may do without (opt()) */
static size_t noptional;
static char *linkwords[16];	/* words dropped from a short child name (by, from) */
static size_t nlinkwords;

/* KEY=VALUE or "quoted" fields of a cpus.txt line */
static char *field(char *line, const char *key)
{
	size_t kl = strlen(key);
	for (char *p = line; (p = strstr(p, key)); p++)
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			char *v = p + kl + 1, *e = v + strcspn(v, " \n");
			return strndup(v, (size_t)(e - v));
		}
	return NULL;
}

static void read_cpus(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	char line[4096];
	unsigned ln = 0;
	while (fgets(line, sizeof line, f)) {
		ln++;
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		char kw[32], a[128], b[128];
		if (sscanf(p, "%31s", kw) != 1)
			continue;
		if (!strcmp(kw, "cpu")) {
			if (ncpus == MAXLIST)
				die("%s:%u: too many cpus", path, ln);
			struct cpu *c = &cpus[ncpus++];
			char *q1 = strchr(p, '"'), *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
			if (sscanf(p, "cpu %127s %127s", a, b) != 2 || !q2)
				die("%s:%u: cpu DIR ID \"NAME\" key=value...", path, ln);
			c->dir = xstrdup(a);
			c->id = xstrdup(b);
			c->name = strndup(q1 + 1, (size_t)(q2 - q1 - 1));
			char *w = field(q2, "width");
			c->width = w ? atoi(w) : 0;
			free(w);
			if (c->width < 1 || c->width > 16)
				die("%s:%u: width=N missing", path, ln);
			c->pfm = field(q2, "pfm");
			c->pmu = field(q2, "pmu");
			c->alias = field(q2, "alias");
			c->unit = field(q2, "unit");
			c->levels = field(q2, "levels");
			char *v = field(q2, "counters");
			c->counters = v ? atoi(v) : 0;
			free(v);
			if ((v = field(q2, "names"))) {
				if (strcmp(v, "child"))
					die("%s:%u: names=child is the only form", path, ln);
				c->short_names = true;
				free(v);
			}
			if ((v = field(q2, "pfmnames"))) {
				if (strcmp(v, "encoding"))
					die("%s:%u: pfmnames=encoding is the only form", path, ln);
				c->pfm_by_encoding = true;
				free(v);
			}
		} else if (!strcmp(kw, "pseudo")) {
			if (npseudos == MAXLIST)
				die("%s:%u: too many pseudo events", path, ln);
			struct pseudo *s = &pseudos[npseudos++];
			if (sscanf(p, "pseudo %127s", a) != 1)
				die("%s:%u: pseudo NAME key=value...", path, ln);
			s->name = xstrdup(a);
			s->perfname = field(p, "perfname");
			s->pfm = field(p, "pfm");
			s->perf = field(p, "perf");
			s->kind = field(p, "kind");
			char *cv = field(p, "code"), *uv = field(p, "umask");
			if (!cv || !uv || !s->kind)
				die("%s:%u: pseudo needs code=, umask= and kind=", path, ln);
			s->code = (unsigned)strtoul(cv, NULL, 16);
			s->umask = (unsigned)strtoul(uv, NULL, 16);
			free(cv);
			free(uv);
		} else if (!strcmp(kw, "word")) {
			if (sscanf(p, "word %127s %127s", a, b) != 2 || nwords == 256)
				die("%s:%u: word LOWER Spelling", path, ln);
			words[nwords][0] = xstrdup(a);
			words[nwords++][1] = xstrdup(b);
		} else if (!strcmp(kw, "linkword")) {
			if (sscanf(p, "linkword %127s", a) != 1 || nlinkwords == 16)
				die("%s:%u: linkword WORD", path, ln);
			linkwords[nlinkwords++] = xstrdup(a);
		} else if (!strcmp(kw, "optional")) {
			if (sscanf(p, "optional %127s", a) != 1 || noptional == 64)
				die("%s:%u: optional EVENT", path, ln);
			optional[noptional++] = xstrdup(a);
		} else if (!strcmp(kw, "order")) {
			char *save = NULL;
			strtok_r(p, " \t\n", &save);
			for (char *t = strtok_r(NULL, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
				if (norder == 512)
					die("%s:%u: too many order entries", path, ln);
				order[norder++] = xstrdup(t);
			}
		} else {
			die("%s:%u: unknown keyword '%s'", path, ln, kw);
		}
	}
	fclose(f);
}

/* ------------------------------------------------------- kernel JSON --- */
static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

struct kevent {
	const char *name, *unit, *counter, *msrindex, *msrvalue;
	unsigned code, umask, cmask;
	bool inv, edge, any, fixed;
};

struct kmetric {
	const char *name, *expr, *groups, *threshold, *brief, *unit;
};

struct kdata {
	struct json_object *roots[64];
	size_t nroots;
	struct kevent *ev;
	size_t nev;
	struct kmetric *m;
	size_t nm;
};

static unsigned hexval(const char *s)
{
	if (!s)
		return 0;
	/* "0x3C" or "0x00,0x01" (two codes: the first) */
	return (unsigned)strtoul(s, NULL, 0);
}

static void load_events(struct kdata *k, struct json_object *arr)
{
	size_t n = json_object_array_length(arr);
	if (!n)
		return;
	k->ev = realloc(k->ev, (k->nev + n) * sizeof *k->ev);
	if (!k->ev)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		const char *name = jstr(o, "EventName");
		/* deprecated events stay: formulas still name some of them */
		if (!name)
			continue;
		struct kevent *e = &k->ev[k->nev++];
		memset(e, 0, sizeof *e);
		e->name = name;
		e->unit = jstr(o, "Unit");
		e->counter = jstr(o, "Counter");
		e->code = hexval(jstr(o, "EventCode"));
		e->umask = hexval(jstr(o, "UMask"));
		e->cmask = jstr(o, "CounterMask") ? (unsigned)atoi(jstr(o, "CounterMask")) : 0;
		e->inv = jstr(o, "Invert") && !strcmp(jstr(o, "Invert"), "1");
		e->edge = jstr(o, "EdgeDetect") && !strcmp(jstr(o, "EdgeDetect"), "1");
		e->any = jstr(o, "AnyThread") && !strcmp(jstr(o, "AnyThread"), "1");
		e->fixed = e->counter && !strncmp(e->counter, "Fixed counter", 13);
		e->msrindex = jstr(o, "MSRIndex");
		e->msrvalue = jstr(o, "MSRValue");
	}
}

static void load_metrics(struct kdata *k, struct json_object *arr)
{
	size_t n = json_object_array_length(arr);
	/* AMD's metrics are in more than one file (pipeline.json,
	 * recommended.json): appended */
	k->m = realloc(k->m, (k->nm + n + 1) * sizeof *k->m);
	if (!k->m)
		die("out of memory");
	memset(k->m + k->nm, 0, (n + 1) * sizeof *k->m);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct kmetric *m = &k->m[k->nm];
		m->name = jstr(o, "MetricName");
		m->expr = jstr(o, "MetricExpr");
		if (!m->name || !m->expr)
			continue;
		m->groups = jstr(o, "MetricGroup");
		m->threshold = jstr(o, "MetricThreshold");
		m->brief = jstr(o, "BriefDescription");
		m->unit = jstr(o, "Unit");
		k->nm++;
	}
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static void load_dir(struct kdata *k, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		die("cannot open %s: %s", dir, strerror(errno));
	struct dirent *de;
	bool have_metrics = false;
	while ((de = readdir(d))) {
		if (!ends_with(de->d_name, ".json") || !strcmp(de->d_name, "metricgroups.json"))
			continue;
		char path[4400];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct json_object *root = json_object_from_file(path);
		if (!root || !json_object_is_type(root, json_type_array))
			die("%s: not a JSON array (%s)", path, json_util_get_last_err());
		if (k->nroots == 64)
			die("%s: too many files", dir);
		k->roots[k->nroots++] = root;
		if (ends_with(de->d_name, "-metrics.json")) {
			load_metrics(k, root);
			have_metrics = true;
		} else if (strncmp(de->d_name, "uncore-", 7)) {
			/* AMD's files mix events and metrics (pipeline.json) */
			struct json_object *evs = json_object_new_array(), *ms = json_object_new_array();
			size_t n = json_object_array_length(root);
			for (size_t i = 0; i < n; i++) {
				struct json_object *o = json_object_array_get_idx(root, i);
				struct json_object *dst = jstr(o, "MetricName") ? ms : evs;
				json_object_array_add(dst, json_object_get(o));
			}
			load_events(k, evs);
			if (json_object_array_length(ms)) {
				load_metrics(k, ms);
				have_metrics = true;
			}
			if (k->nroots + 2 > 64)
				die("%s: too many files", dir);
			k->roots[k->nroots++] = evs;
			k->roots[k->nroots++] = ms;
		}
	}
	closedir(d);
	if (!have_metrics)
		k->nm = 0;
}

static void free_kdata(struct kdata *k)
{
	for (size_t i = 0; i < k->nroots; i++)
		json_object_put(k->roots[i]);
	free(k->ev);
	free(k->m);
	memset(k, 0, sizeof *k);
}

/* the metric NAME of UNIT (hybrid: per core type) */
static const struct kmetric *find_metric(const struct kdata *k, const char *name, const char *unit)
{
	const struct kmetric *any = NULL;
	for (size_t i = 0; i < k->nm; i++)
		if (!strcmp(k->m[i].name, name)) {
			if (!unit || (k->m[i].unit && !strcmp(k->m[i].unit, unit)))
				return &k->m[i];
			if (!k->m[i].unit)
				any = &k->m[i];
		}
	return any;
}

static const struct kevent *find_event(const struct kdata *k, const char *name, const char *unit)
{
	const struct kevent *any = NULL;
	for (size_t i = 0; i < k->nev; i++)
		if (!strcasecmp(k->ev[i].name, name)) {
			if (!unit || (k->ev[i].unit && !strcmp(k->ev[i].unit, unit)))
				return &k->ev[i];
			if (!k->ev[i].unit)
				any = &k->ev[i];
		}
	return any;
}

/* -------------------------------------------------- perf expressions --- */
enum tok { T_END, T_NUM, T_ID, T_LIT, T_OP, T_LP, T_RP, T_COMMA, T_IF, T_ELSE };

struct lexer {
	const char *p;
	enum tok t;
	char text[512];
	double num;
};

static void lex(struct lexer *L)
{
	while (isspace((unsigned char)*L->p))
		L->p++;
	const char *p = L->p;
	L->text[0] = 0;
	if (!*p) {
		L->t = T_END;
		return;
	}
	if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		char *e;
		L->num = strtod(p, &e);
		L->p = e;
		L->t = T_NUM;
		return;
	}
	if (*p == '(' || *p == ')' || *p == ',') {
		L->t = *p == '(' ? T_LP : *p == ')' ? T_RP : T_COMMA;
		L->p++;
		return;
	}
	if (strchr("+-*/%<>|&^!", *p)) {
		L->t = T_OP;
		L->text[0] = *p;
		L->text[1] = 0;
		L->p++;
		if ((*p == '<' || *p == '>' || *p == '!' || *p == '=') && L->p[0] == '=') {
			L->text[1] = '=';
			L->text[2] = 0;
			L->p++;
		}
		return;
	}
	/* a name: letters, digits, _ . # @ and backslash escapes */
	size_t n = 0;
	bool in_at = false;
	while (*p && n < sizeof L->text - 1) {
		if (*p == '\\' && p[1]) {
			L->text[n++] = p[1];
			p += 2;
			continue;
		}
		if (*p == '@')
			in_at = !in_at;
		else if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '#' ||
			   (in_at && (*p == ',' || *p == '=' || *p == ':'))))
			break;
		L->text[n++] = *p++;
	}
	L->text[n] = 0;
	L->p = p;
	if (!n)
		die("unexpected character '%c' in '%s'", *p, p);
	L->t = !strcmp(L->text, "if") ? T_IF : !strcmp(L->text, "else") ? T_ELSE
		 : L->text[0] == '#'			   ? T_LIT
							   : T_ID;
}

enum nk { N_NUM, N_REF, N_LIT, N_NEG, N_NOT, N_BIN, N_COND, N_CALL };

struct node {
	enum nk k;
	double num;
	char *name;	/* N_REF, N_LIT, N_CALL */
	char op[3];	/* N_BIN */
	struct node *a[8];
	size_t na;
};

static struct node *mk(enum nk k)
{
	struct node *n = xcalloc(1, sizeof *n);
	n->k = k;
	return n;
}

static void free_node(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->na; i++)
		free_node(n->a[i]);
	free(n->name);
	free(n);
}

static struct node *parse_if(struct lexer *L);

static int prec(const char *op)
{
	switch (op[0]) {
	case '|': return 1;
	case '^': return 2;
	case '&': return 3;
	case '<':
	case '>':
	case '=':
	case '!': return 4;
	case '+':
	case '-': return 5;
	case '*':
	case '/':
	case '%': return 6;
	}
	return 0;
}

static struct node *parse_primary(struct lexer *L)
{
	struct node *n;
	if (L->t == T_NUM) {
		n = mk(N_NUM);
		n->num = L->num;
		lex(L);
		return n;
	}
	if (L->t == T_OP && (!strcmp(L->text, "-") || !strcmp(L->text, "!"))) {
		n = mk(L->text[0] == '-' ? N_NEG : N_NOT);
		lex(L);
		n->a[n->na++] = parse_primary(L);
		return n;
	}
	if (L->t == T_LP) {
		lex(L);
		n = parse_if(L);
		if (L->t != T_RP)
			die("missing ')' before '%s'", L->p);
		lex(L);
		return n;
	}
	if (L->t == T_LIT) {
		n = mk(N_LIT);
		n->name = xstrdup(L->text);
		lex(L);
		return n;
	}
	if (L->t == T_ID) {
		char name[512];
		snprintf(name, sizeof name, "%s", L->text);
		lex(L);
		if (L->t == T_LP) {
			n = mk(N_CALL);
			n->name = xstrdup(name);
			lex(L);
			while (L->t != T_RP) {
				if (n->na == 8)
					die("%s(): too many arguments", name);
				n->a[n->na++] = parse_if(L);
				if (L->t == T_COMMA)
					lex(L);
				else if (L->t != T_RP)
					die("%s(): expected ',' or ')'", name);
			}
			lex(L);
			return n;
		}
		n = mk(N_REF);
		n->name = xstrdup(name);
		return n;
	}
	die("unexpected token at '%s'", L->p);
}

static struct node *parse_bin(struct lexer *L, int min)
{
	struct node *lhs = parse_primary(L);
	while (L->t == T_OP && prec(L->text) >= min && prec(L->text) > 0) {
		char op[3];
		snprintf(op, sizeof op, "%.2s", L->text);
		int p = prec(op);
		lex(L);
		struct node *rhs = parse_bin(L, p + 1);
		struct node *n = mk(N_BIN);
		memcpy(n->op, op, sizeof op);
		n->a[0] = lhs;
		n->a[1] = rhs;
		n->na = 2;
		lhs = n;
	}
	return lhs;
}

/* perf's grammar: a if c else b, the lowest precedence, right-nested */
static struct node *parse_if(struct lexer *L)
{
	struct node *a = parse_bin(L, 1);
	if (L->t != T_IF)
		return a;
	lex(L);
	struct node *c = parse_bin(L, 1);
	if (L->t != T_ELSE)
		die("'if' without 'else'");
	lex(L);
	struct node *b = parse_if(L);
	struct node *n = mk(N_COND);
	n->a[0] = c;
	n->a[1] = a;
	n->a[2] = b;
	n->na = 3;
	return n;
}

static struct node *parse_expr(const char *text)
{
	struct lexer L = { .p = text };
	lex(&L);
	struct node *n = parse_if(&L);
	if (L.t != T_END)
		die("trailing text '%s' in '%s'", L.p, text);
	return n;
}

/* ----------------------------------------------------- a table's parts --- */
struct tevent {
	char *name;	/* the table's NAME (EVENT.c1.e1) */
	char line[1024];
};

struct tmetric {
	char *kname;	/* the kernel's name */
	char *expr;	/* translated */
	bool bad;
	char why[256];
	bool emitted, visiting;
};

struct gen {
	const struct cpu *cpu;
	const struct kdata *k;
	struct tevent ev[512];
	size_t nev;
	struct tmetric met[256];
	size_t nmet;
	char why[256];	/* set when a translation fails */
	size_t pfm_named, raw;
};

static const struct pseudo *find_pseudo(const char *name)
{
	for (size_t i = 0; i < npseudos; i++)
		if (!strcasecmp(pseudos[i].name, name) ||
		    (pseudos[i].perfname && !strcasecmp(pseudos[i].perfname, name)))
			return &pseudos[i];
	return NULL;
}

/* AMD's extended event select: event bits 11:8 in config bits 35:32 */
static uint64_t raw_config(unsigned code, unsigned umask, unsigned cmask, bool edge, bool any, bool inv)
{
	return (uint64_t)(code & 0xff) | (uint64_t)(umask & 0xff) << 8 | (uint64_t)edge << 18 |
	       (uint64_t)any << 21 | (uint64_t)inv << 23 | (uint64_t)(cmask & 0xff) << 24 |
	       (uint64_t)(code >> 8 & 0xf) << 32;
}

/* the fields of perf's config the table declares (code, umask, edge, any,
 * inv, cmask, AMD's event bits 11:8); not the privilege and interrupt bits */
#define CONFIG_MASK 0xfffe4ffffull

/* libpfm4's encoding of STR, masked to the fields the table declares */
static bool pfm_config(const char *str, uint64_t *config)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	arg.attr = &attr;
	arg.size = sizeof arg;
	if (pfm_get_os_event_encoding(str, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
		return false;
	*config = attr.config & CONFIG_MASK;
	return true;
}

/* the libpfm4 name of an Intel event name with modifiers, when it encodes
 * to CONFIG on the table's PMU */
static bool pfm_name_for(const struct gen *g, const char *intel, const char *mods, uint64_t config, char *out,
			 size_t outlen)
{
	if (!g->cpu->pfm)
		return false;
	char name[256];
	snprintf(name, sizeof name, "%s", intel);
	char *dot = strchr(name, '.');
	if (dot) {
		*dot = ':';
		for (char *q = dot + 1; *q; q++)
			if (*q == '.')
				*q = '_';
	}
	char full[512];
	snprintf(full, sizeof full, "%s::%s%s", g->cpu->pfm, name, mods);
	uint64_t c;
	if (!pfm_config(full, &c) || c != (config & CONFIG_MASK))
		return false;
	snprintf(out, outlen, "%s%s", name, mods);
	return true;
}

/* libpfm4's names of the table's PMU with their encodings: EVENT and
 * EVENT:UMASK for each of its unit masks (pfmnames=encoding: AMD's event
 * names are not libpfm4's) */
struct pfmname {
	char *name;
	uint64_t config;
};
static struct pfmname *pfmnames;
static size_t npfmnames;

static void pfm_names_load(const char *pmuname)
{
	for (size_t i = 0; i < npfmnames; i++)
		free(pfmnames[i].name);
	free(pfmnames);
	pfmnames = NULL;
	npfmnames = 0;
	pfm_pmu_info_t pinfo;
	int pmu = -1;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pinfo, 0, sizeof pinfo);
		pinfo.size = sizeof pinfo;
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) == PFM_SUCCESS && pinfo.name &&
		    !strcmp(pinfo.name, pmuname) && pinfo.is_present) {
			pmu = p;
			break;
		}
	}
	if (pmu < 0)
		die("libpfm4 has no PMU %s", pmuname);
	size_t cap = 0;
	for (int e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
		pfm_event_info_t einfo;
		memset(&einfo, 0, sizeof einfo);
		einfo.size = sizeof einfo;
		if (pfm_get_event_info(e, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
			continue;
		for (int a = -1; a < einfo.nattrs; a++) {
			char nm[512];
			if (a < 0) {
				snprintf(nm, sizeof nm, "%s", einfo.name);
			} else {
				pfm_event_attr_info_t ainfo;
				memset(&ainfo, 0, sizeof ainfo);
				ainfo.size = sizeof ainfo;
				if (pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ainfo) != PFM_SUCCESS ||
				    ainfo.type != PFM_ATTR_UMASK)
					continue;
				snprintf(nm, sizeof nm, "%s:%s", einfo.name, ainfo.name);
			}
			char full[600];
			uint64_t cf;
			snprintf(full, sizeof full, "%s::%s", pmuname, nm);
			if (!pfm_config(full, &cf))
				continue;
			if (npfmnames == cap) {
				cap = cap ? 2 * cap : 256;
				pfmnames = realloc(pfmnames, cap * sizeof *pfmnames);
				if (!pfmnames)
					die("out of memory");
			}
			pfmnames[npfmnames++] = (struct pfmname){ xstrdup(nm), cf };
		}
	}
}

/* the libpfm4 name (with MODS) that encodes to CONFIG, found by encoding */
static bool pfm_name_by_encoding(const struct gen *g, const char *mods, uint64_t config, char *out, size_t outlen)
{
	uint64_t plain = config & CONFIG_MASK & ~(0xffull << 24 | 1ull << 18 | 1ull << 23);
	for (size_t i = 0; i < npfmnames; i++) {
		if (pfmnames[i].config != plain)
			continue;
		char full[600];
		uint64_t c;
		snprintf(full, sizeof full, "%s::%s%s", g->cpu->pfm, pfmnames[i].name, mods);
		if (pfm_config(full, &c) && c == (config & CONFIG_MASK)) {
			snprintf(out, outlen, "%s%s", pfmnames[i].name, mods);
			return true;
		}
	}
	return false;
}

/* declares the event the formula token TOK names; its table name into
 * OUT. False (with g->why) when gus cannot count it per program. */
static bool use_event(struct gen *g, const char *tok, char *out, size_t outlen)
{
	char base[256] = "", mods_pfm[64] = "", mods_name[64] = "";
	unsigned cmask = 0, umask_term = 0;
	bool edge = false, inv = false, have_cmask = false, have_umask = false;
	const char *at = strchr(tok, '@');
	if (at) {
		/* pmu@EVENT,term=v,...@ */
		char inner[512];
		snprintf(inner, sizeof inner, "%s", at + 1);
		char *end = strchr(inner, '@');
		if (end)
			*end = 0;
		char *save = NULL, *t = strtok_r(inner, ",", &save);
		snprintf(base, sizeof base, "%s", t ? t : "");
		while ((t = strtok_r(NULL, ",", &save))) {
			if (!strncmp(t, "cmask=", 6)) {
				cmask = (unsigned)strtoul(t + 6, NULL, 0);
				have_cmask = true;
			} else if (!strncmp(t, "umask=", 6)) {
				umask_term = (unsigned)strtoul(t + 6, NULL, 0);
				have_umask = true;
			} else if (!strcmp(t, "edge") || !strcmp(t, "edge=1")) {
				edge = true;
			} else if (!strcmp(t, "inv") || !strcmp(t, "inv=1")) {
				inv = true;
			} else {
				snprintf(g->why, sizeof g->why, "event term '%s' of %s", t, tok);
				return false;
			}
		}
	} else {
		snprintf(base, sizeof base, "%s", tok);
	}
	if (!strcasecmp(base, "duration_time") || !strcasecmp(base, "TSC") || !strncasecmp(base, "UNC_", 4) ||
	    strchr(base, ':')) {
		snprintf(g->why, sizeof g->why, "%.200s is not counted per program", base);
		return false;
	}
	const struct pseudo *ps = find_pseudo(base);
	const struct kevent *ke = ps ? NULL : find_event(g->k, base, g->cpu->unit);
	if (!ps && !ke) {
		snprintf(g->why, sizeof g->why, "event %.200s is not in the kernel's event files", base);
		return false;
	}
	unsigned code = ps ? ps->code : ke->code, umask = ps ? ps->umask : ke->umask;
	bool umask_changed = have_umask && umask_term != umask;
	if (have_umask)
		umask = umask_term;
	if (ke && !have_cmask)
		cmask = ke->cmask;
	if (ke && !edge)
		edge = ke->edge;
	if (ke && !inv)
		inv = ke->inv;
	bool any = ke && ke->any;
	const char *name = ps ? ps->name : ke->name;
	/* the table's name: the modifiers a formula adds, as EVENT.c1.e1
	 * (and .u0xNN for another unit mask) */
	if (umask_changed)
		snprintf(mods_name, sizeof mods_name, ".u0x%02x", umask);
	if (have_cmask && (!ke || cmask != ke->cmask)) {
		snprintf(mods_name + strlen(mods_name), sizeof mods_name - strlen(mods_name), ".c%u", cmask);
	}
	if (at && edge && !(ke && ke->edge))
		snprintf(mods_name + strlen(mods_name), sizeof mods_name - strlen(mods_name), ".e1");
	if (at && inv && !(ke && ke->inv))
		snprintf(mods_name + strlen(mods_name), sizeof mods_name - strlen(mods_name), ".i1");
	char tname[320];
	snprintf(tname, sizeof tname, "%s%s", name, mods_name);
	snprintf(out, outlen, "%s", tname);
	for (size_t i = 0; i < g->nev; i++)
		if (!strcmp(g->ev[i].name, tname))
			return true;
	if (g->nev == sizeof g->ev / sizeof g->ev[0])
		die("%s: too many events", g->cpu->id);
	struct tevent *te = &g->ev[g->nev++];
	te->name = xstrdup(tname);
	uint64_t config = raw_config(code, umask, cmask, edge, any, inv);
	uint64_t config1 = 0;
	if (ke && ke->msrvalue && ke->msrindex) {
		/* offcore response, frontend and load-latency events: perf's
		 * config1 (offcore_rsp=, frontend=, ldlat=) */
		config1 = strtoull(ke->msrvalue, NULL, 0);
	}
	char pfmname[320] = "-";
	if (ps && ps->pfm) {
		/* candidates separated by '|': the first libpfm4 encodes alike */
		char cand[256];
		snprintf(cand, sizeof cand, "%s", ps->pfm);
		char *save = NULL;
		for (char *c = strtok_r(cand, "|", &save); c; c = strtok_r(NULL, "|", &save)) {
			char full[320];
			uint64_t cf;
			snprintf(full, sizeof full, "%s::%s", g->cpu->pfm ? g->cpu->pfm : "", c);
			/* fixed-counter events: libpfm4 names their general form */
			if (g->cpu->pfm && pfm_config(full, &cf)) {
				snprintf(pfmname, sizeof pfmname, "%s", c);
				break;
			}
		}
	} else if (!config1 && !umask_changed) {
		if (cmask)
			snprintf(mods_pfm + strlen(mods_pfm), sizeof mods_pfm - strlen(mods_pfm), ":c=%u", cmask);
		if (edge && at)
			snprintf(mods_pfm + strlen(mods_pfm), sizeof mods_pfm - strlen(mods_pfm), ":e=1");
		if (inv && at)
			snprintf(mods_pfm + strlen(mods_pfm), sizeof mods_pfm - strlen(mods_pfm), ":i=1");
		if (g->cpu->pfm_by_encoding) {
			if (!pfm_name_by_encoding(g, mods_pfm, config, pfmname, sizeof pfmname))
				snprintf(pfmname, sizeof pfmname, "-");
		} else if (!pfm_name_for(g, name, mods_pfm, config, pfmname, sizeof pfmname) &&
			   !pfm_name_for(g, name, "", config, pfmname, sizeof pfmname)) {
			snprintf(pfmname, sizeof pfmname, "-");
		}
	}
	if (strcmp(pfmname, "-"))
		g->pfm_named++;
	else
		g->raw++;
	struct buf b = { 0 };
	bprintf(&b, "event %s pfm=%s code=0x%02x umask=0x%02x", tname, pfmname, code & 0xfff, umask);
	if (cmask)
		bprintf(&b, " cmask=%u", cmask);
	if (inv)
		bprintf(&b, " inv");
	if (edge)
		bprintf(&b, " edge");
	if (any)
		bprintf(&b, " any");
	if (config1 && !strcmp(pfmname, "-"))
		bprintf(&b, " config1=0x%llx", (unsigned long long)config1);
	if (ps) {
		bprintf(&b, " kind=%s", ps->kind);
		if (ps->perf)
			bprintf(&b, " perf=%s", ps->perf);
	} else if (ke->fixed && !any) {
		bprintf(&b, " kind=fixed");
	}
	snprintf(te->line, sizeof te->line, "%s", b.s);
	free(b.s);
	return true;
}

/* node names as Intel spells them: tma_dram_bound -> DRAM_Bound */
static void node_name(const char *kname, char *out, size_t outlen)
{
	const char *s = strncmp(kname, "tma_", 4) ? kname : kname + 4;
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", s);
	size_t o = 0;
	out[0] = 0;
	char *save = NULL;
	for (char *w = strtok_r(tmp, "_", &save); w; w = strtok_r(NULL, "_", &save)) {
		const char *sp = NULL;
		for (size_t i = 0; i < nwords && !sp; i++)
			if (!strcmp(words[i][0], w))
				sp = words[i][1];
		char cap[128];
		if (!sp) {
			snprintf(cap, sizeof cap, "%s", w);
			cap[0] = (char)toupper((unsigned char)cap[0]);
			sp = cap;
		}
		o += (size_t)snprintf(out + o, o < outlen ? outlen - o : 0, "%s%s", o ? "_" : "", sp);
	}
	/* a table's names start with a letter: 4K_Aliasing -> Aliasing_4K */
	if (isdigit((unsigned char)out[0])) {
		char *us = strchr(out, '_');
		if (us) {
			char tmp2[256];
			snprintf(tmp2, sizeof tmp2, "%s_%.*s", us + 1, (int)(us - out), out);
			snprintf(out, outlen, "%s", tmp2);
		}
	}
}

static bool is_node_metric(const struct cpu *c, const struct kmetric *m, int *level)
{
	if (!m->groups)
		return false;
	if (c->levels) {
		/* AMD: a metric of a LEVELS<k> group (PipelineL1, PipelineL2) */
		size_t l = strlen(c->levels);
		char gr[2048];
		snprintf(gr, sizeof gr, "%s", m->groups);
		char *save = NULL;
		for (char *w = strtok_r(gr, ";", &save); w; w = strtok_r(NULL, ";", &save))
			if (!strncmp(w, c->levels, l) && isdigit((unsigned char)w[l])) {
				*level = atoi(w + l);
				return *level >= 1;
			}
		return false;
	}
	if (strncmp(m->name, "tma_", 4) || !strncmp(m->name, "tma_info_", 9))
		return false;
	const char *p = strstr(m->groups, "TopdownL");
	if (!p)
		return false;
	*level = atoi(p + 8);
	return *level >= 1;
}

/* the kernel name of a node's parent into PK ("" when none is named):
 * Intel's tma_<parent>_group group that is not a level or issue group;
 * AMD's <parent>_group group that names a node */
static void node_parent(const struct cpu *c, const struct kdata *k, const struct kmetric *m, char *pk, size_t pklen)
{
	char gr[2048];
	snprintf(gr, sizeof gr, "%s", m->groups ? m->groups : "");
	pk[0] = 0;
	char *save = NULL;
	for (char *w = strtok_r(gr, ";", &save); w; w = strtok_r(NULL, ";", &save)) {
		if (!ends_with(w, "_group"))
			continue;
		if (c->levels) {
			char name[256];
			int lvl;
			snprintf(name, sizeof name, "%.*s", (int)(strlen(w) - 6), w);
			const struct kmetric *pm = NULL;
			for (size_t i = 0; i < k->nm && !pm; i++)
				if (!strcmp(k->m[i].name, name))
					pm = &k->m[i];
			if (pm && is_node_metric(c, pm, &lvl)) {
				snprintf(pk, pklen, "%s", name);
				return;
			}
		} else if (!strncmp(w, "tma_", 4) && strncmp(w, "tma_L", 5) && strncmp(w, "tma_issue", 9)) {
			snprintf(pk, pklen, "%.*s", (int)(strlen(w) - 6), w);
			return;
		}
	}
}

/* a node's name in the table: Intel's spelling of the kernel's name, or
 * with names=child (AMD) a child without its parent's name and a link
 * word (frontend_bound_by_latency under frontend_bound -> Latency) */
static void table_node_name(const struct cpu *c, const struct kdata *k, const char *kname, char *out, size_t outlen)
{
	const char *s = kname;
	if (c->short_names) {
		const struct kmetric *m = NULL;
		for (size_t i = 0; i < k->nm && !m; i++)
			if (!strcmp(k->m[i].name, kname))
				m = &k->m[i];
		char pk[256];
		if (m)
			node_parent(c, k, m, pk, sizeof pk);
		size_t l = m ? strlen(pk) : 0;
		if (l && !strncmp(kname, pk, l) && kname[l] == '_' && kname[l + 1]) {
			s = kname + l + 1;
			for (size_t i = 0; i < nlinkwords; i++) {
				size_t wl = strlen(linkwords[i]);
				if (!strncmp(s, linkwords[i], wl) && s[wl] == '_' && s[wl + 1]) {
					s += wl + 1;
					break;
				}
			}
		}
	}
	node_name(s, out, outlen);
}

static bool translate(struct gen *g, const struct node *n, struct buf *b);
static bool tr(struct gen *g, const struct node *n, struct buf *b, int *prec);

/* the value of an expression of numbers and the constants gus fixes */
static bool const_value(const struct node *n, double *v)
{
	double a, c;
	switch (n->k) {
	case N_NUM:
		*v = n->num;
		return true;
	case N_LIT:
		if (!strcasecmp(n->name, "#core_wide")) {
			*v = 1;
			return true;
		}
		if (!strcasecmp(n->name, "#has_pmem")) {
			*v = 0;
			return true;
		}
		return false;
	case N_NEG:
		if (!const_value(n->a[0], &a))
			return false;
		*v = -a;
		return true;
	case N_BIN:
		if (!const_value(n->a[0], &a) || !const_value(n->a[1], &c))
			return false;
		switch (n->op[0]) {
		case '<': *v = n->op[1] ? a <= c : a < c; return true;
		case '>': *v = n->op[1] ? a >= c : a > c; return true;
		case '&': *v = a != 0 && c != 0; return true;
		case '|': *v = a != 0 || c != 0; return true;
		default: return false;
		}
	default:
		return false;
	}
}

/* a helper metric (tma_info_*, or any non-node metric a formula names) */
static int use_metric(struct gen *g, const char *kname)
{
	for (size_t i = 0; i < g->nmet; i++)
		if (!strcmp(g->met[i].kname, kname)) {
			if (g->met[i].visiting) {
				snprintf(g->why, sizeof g->why, "metric %s refers to itself", kname);
				return -1;
			}
			if (g->met[i].bad) {
				snprintf(g->why, sizeof g->why, "%s", g->met[i].why);
				return -1;
			}
			return (int)i;
		}
	const struct kmetric *m = find_metric(g->k, kname, g->cpu->unit);
	if (!m) {
		snprintf(g->why, sizeof g->why, "metric %s is not in the kernel's metric file", kname);
		return -1;
	}
	if (g->nmet == sizeof g->met / sizeof g->met[0])
		die("%s: too many helper metrics", g->cpu->id);
	size_t i = g->nmet++;
	struct tmetric *tm = &g->met[i];
	tm->kname = xstrdup(kname);
	tm->visiting = true;
	struct node *ast = parse_expr(m->expr);
	struct buf b = { 0 };
	bool ok = translate(g, ast, &b);
	free_node(ast);
	tm->visiting = false;
	if (!ok) {
		tm->bad = true;
		snprintf(tm->why, sizeof tm->why, "%s", g->why);
		free(b.s);
		return -1;
	}
	tm->expr = b.s;
	return (int)i;
}

static bool is_node_name(const struct gen *g, const char *kname)
{
	int lvl;
	const struct kmetric *m = find_metric(g->k, kname, g->cpu->unit);
	return m && is_node_metric(g->cpu, m, &lvl);
}

/* Precedences of the table grammar's operators (EXPR in data/tma/FORMAT),
 * lowest first: a child is parenthesized only where the grammar needs it. */
enum { P_COND, P_CMP, P_ADD, P_MUL, P_UNARY, P_ATOM };

static bool tr(struct gen *g, const struct node *n, struct buf *b, int *prec);

/* CHILD appended to B, in parentheses when its precedence is below NEED
 * (or equal, where STRICT: the right side of - and /, comparisons) */
static bool sub(struct gen *g, const struct node *child, struct buf *b, int need, bool strict)
{
	struct buf t = { 0 };
	int p;
	bool ok = tr(g, child, &t, &p);
	if (ok) {
		bool paren = p < need || (strict && p == need);
		bprintf(b, paren ? "(%s)" : "%s", t.s ? t.s : "");
	}
	free(t.s);
	return ok;
}

static bool translate(struct gen *g, const struct node *n, struct buf *b)
{
	int p;
	return tr(g, n, b, &p);
}

static bool tr(struct gen *g, const struct node *n, struct buf *b, int *prec)
{
	*prec = P_ATOM;
	switch (n->k) {
	case N_NUM:
		bprintf(b, "%.17g", n->num);
		return true;
	case N_LIT:
		if (!strcasecmp(n->name, "#smt_on")) {
			bprintf(b, "SMT_on");
			return true;
		}
		/* gus counts the core-wide form (any-thread clocks) when SMT
		 * is on, as the hand tables did: #core_wide is 1 */
		if (!strcasecmp(n->name, "#core_wide")) {
			bprintf(b, "1");
			return true;
		}
		/* persistent memory is not assumed: the DRAM form */
		if (!strcasecmp(n->name, "#has_pmem")) {
			bprintf(b, "0");
			return true;
		}
		snprintf(g->why, sizeof g->why, "%s is not known per program", n->name);
		return false;
	case N_NEG:
		*prec = P_UNARY;
		bprintf(b, "-");
		return sub(g, n->a[0], b, P_UNARY, false);
	case N_NOT:
		*prec = P_CMP;
		if (!sub(g, n->a[0], b, P_CMP, true))
			return false;
		bprintf(b, " == 0");
		return true;
	case N_COND: {
		/* a condition on constants gus fixes (#core_wide, #has_pmem)
		 * is decided here: the other branch's events are not counted */
		double cv;
		if (const_value(n->a[0], &cv))
			return tr(g, n->a[cv != 0 ? 1 : 2], b, prec);
		*prec = P_COND;
		if (!sub(g, n->a[0], b, P_CMP, false))
			return false;
		bprintf(b, " ? ");
		if (!sub(g, n->a[1], b, P_CMP, false))
			return false;
		bprintf(b, " : ");
		return sub(g, n->a[2], b, P_COND, false);
	}
	case N_BIN: {
		const char *op = n->op;
		if (!strcmp(op, "%")) {
			snprintf(g->why, sizeof g->why, "the '%%' operator");
			return false;
		}
		/* logical operators as arithmetic on 0/1: a & b is
		 * (a != 0) * (b != 0), a | b is (a != 0) + (b != 0) > 0,
		 * a ^ b is (a != 0) != (b != 0) */
		if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^")) {
			*prec = op[0] == '&' ? P_MUL : P_CMP;
			bprintf(b, "(");
			if (!sub(g, n->a[0], b, P_CMP, true))
				return false;
			bprintf(b, " != 0) %s (", op[0] == '&' ? "*" : op[0] == '|' ? "+" : "!=");
			if (!sub(g, n->a[1], b, P_CMP, true))
				return false;
			bprintf(b, " != 0)%s", op[0] == '|' ? " > 0" : "");
			return true;
		}
		int p = strchr("+-", op[0]) ? P_ADD : strchr("*/", op[0]) ? P_MUL : P_CMP;
		*prec = p;
		if (!sub(g, n->a[0], b, p, p == P_CMP))
			return false;
		bprintf(b, " %s ", op);
		return sub(g, n->a[1], b, p, p == P_CMP || op[0] == '-' || op[0] == '/');
	}
	case N_CALL:
		if (!strcmp(n->name, "min") || !strcmp(n->name, "max")) {
			bprintf(b, "%s(", n->name);
			for (size_t i = 0; i < n->na; i++) {
				if (i)
					bprintf(b, ", ");
				if (!sub(g, n->a[i], b, P_COND, false))
					return false;
			}
			bprintf(b, ")");
			return true;
		}
		if (!strcmp(n->name, "d_ratio") && n->na == 2) {
			/* a / b, 0 when b is 0 */
			*prec = P_COND;
			if (!sub(g, n->a[1], b, P_CMP, true))
				return false;
			bprintf(b, " == 0 ? 0 : ");
			if (!sub(g, n->a[0], b, P_MUL, false))
				return false;
			bprintf(b, " / ");
			return sub(g, n->a[1], b, P_MUL, true);
		}
		snprintf(g->why, sizeof g->why, "the function %s()", n->name);
		return false;
	case N_REF: {
		const char *r = n->name;
		if ((!strncmp(r, "tma_", 4) || g->cpu->levels) && is_node_name(g, r)) {
			char nn[256];
			table_node_name(g->cpu, g->k, r, nn, sizeof nn);
			bprintf(b, "%s", nn);
			return true;
		}
		if (!strchr(r, '.') && !strchr(r, '@') && find_metric(g->k, r, g->cpu->unit) && !find_pseudo(r)) {
			int i = use_metric(g, r);
			if (i < 0)
				return false;
			bprintf(b, "%s", r);
			return true;
		}
		char ev[320];
		if (!use_event(g, r, ev, sizeof ev))
			return false;
		bool opt = false;
		for (size_t i = 0; i < noptional && !opt; i++)
			opt = !strcmp(optional[i], ev);
		bprintf(b, opt ? "opt(%s)" : "%s", ev);
		return true;
	}
	}
	return false;
}

/* the node's own threshold term: "tma_x > 0.1 & (parent terms)" -> 0.1 */
static double own_threshold(const char *kname, const char *thr)
{
	if (!thr)
		return 0;
	size_t l = strlen(kname);
	const char *p = strstr(thr, kname);
	while (p && isalnum((unsigned char)p[l]) + (p[l] == '_'))
		p = strstr(p + 1, kname);
	if (!p)
		return 0;
	p += l;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '>')
		return 0;
	p++;
	if (*p == '=')
		p++;
	return strtod(p, NULL);
}

struct tnode {
	const struct kmetric *m;
	char name[128], parent[128];	/* table names */
	char pk[128];			/* the kernel name of the parent */
	int level;
	char *expr;
	const char *unit;
	bool bad;
	char why[256];
	int rank;
};

static int order_rank(const char *name)
{
	for (size_t i = 0; i < norder; i++)
		if (!strcmp(order[i], name))
			return (int)i;
	return 100000;
}

static const char *unit_of(const struct tnode *t, const struct tnode *nodes, size_t n)
{
	const char *e = t->m->expr;
	if (strstr(e, "tma_info_thread_slots") || strstr(e, "TOPDOWN.SLOTS") || strstr(e, "topdown\\-") ||
	    strstr(e, "slots"))
		return "slots";
	if (strstr(e, "tma_info_core_core_clks"))
		return "core-clocks";
	if (strstr(e, "tma_info_thread_clks") || strstr(e, "CPU_CLK_UNHALTED.THREAD"))
		return !strcmp(t->pk, "tma_memory_bound") ? "stalls" : "clocks";
	/* made of other nodes: their unit, else the parent's */
	for (size_t i = 0; i < n; i++)
		if (&nodes[i] != t && strstr(e, nodes[i].m->name) && nodes[i].unit)
			return nodes[i].unit;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i].m->name, t->pk) && nodes[i].unit)
			return nodes[i].unit;
	return "slots";
}

/* a node left out, said in the table (gus list shows it) */
static void write_omit(FILE *out, const struct tnode *t)
{
	char why[300];
	size_t o = 0;
	for (const char *p = t->why; *p && o < sizeof why - 1; p++)
		why[o++] = *p == '"' || *p == '\\' ? '\'' : *p;
	why[o] = 0;
	fprintf(out, "omit %s \"level %d, %s\"\n", t->name, t->level, why);
}

static void write_node_tree(FILE *out, struct tnode *nodes, size_t n, const char *parent_k)
{
	/* children of PARENT_K in the hierarchy's order */
	for (;;) {
		struct tnode *best = NULL;
		for (size_t i = 0; i < n; i++) {
			struct tnode *t = &nodes[i];
			if (t->rank < 0 || strcmp(t->pk, parent_k))
				continue;
			if (!best || t->rank < best->rank ||
			    (t->rank == best->rank && strcmp(t->name, best->name) < 0))
				best = t;
		}
		if (!best)
			return;
		best->rank = -1 - best->rank;	/* written */
		if (best->bad) {
			write_omit(out, best);
			continue;
		}
		char desc[512] = "";
		if (best->m->brief) {
			size_t o = 0;
			for (const char *p = best->m->brief; *p && o < sizeof desc - 1; p++)
				if (*p != '"' && *p != '\\' && *p != '\n')
					desc[o++] = *p;
			desc[o] = 0;
		}
		fprintf(out, "node %s parent=%s unit=%s threshold=%.4g desc=\"%s\" \\\n\t= %s\n", best->name,
			best->level == 1 ? "-" : best->parent, best->unit,
			own_threshold(best->m->name, best->m->threshold), desc, best->expr);
		write_node_tree(out, nodes, n, best->m->name);
	}
}

/* does EXPR name NAME as a whole word? */
static bool mentions(const char *expr, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = expr ? strstr(expr, name) : NULL; p; p = strstr(p + 1, name)) {
		bool before = p > expr && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
		bool after = isalnum((unsigned char)p[l]) || p[l] == '_' || p[l] == '.';
		if (!before && !after)
			return true;
	}
	return false;
}

/* the events EXPR names, with those of the helper metrics it names, marked
 * in USED (g->ev's order) */
static void mark_events(const struct gen *g, const char *expr, bool *used, int depth)
{
	for (size_t i = 0; i < g->nev; i++)
		if (mentions(expr, g->ev[i].name))
			used[i] = true;
	for (size_t i = 0; depth < 16 && i < g->nmet; i++)
		if (!g->met[i].bad && mentions(expr, g->met[i].kname))
			mark_events(g, g->met[i].expr, used, depth + 1);
}

static void mark_bad_subtree(struct tnode *nodes, size_t n, const char *kname, const char *why)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(nodes[i].pk, kname) && !nodes[i].bad) {
			nodes[i].bad = true;
			snprintf(nodes[i].why, sizeof nodes[i].why, "its parent is left out (%s)", why);
			mark_bad_subtree(nodes, n, nodes[i].m->name, why);
		}
}

static int generate(const struct cpu *c, const struct kdata *k, const char *outdir, const char *src)
{
	struct gen *g = xcalloc(1, sizeof *g);
	g->cpu = c;
	g->k = k;
	struct tnode *nodes = xcalloc(k->nm, sizeof *nodes);
	size_t nn = 0;
	for (size_t i = 0; i < k->nm; i++) {
		const struct kmetric *m = &k->m[i];
		int level;
		if (!is_node_metric(c, m, &level))
			continue;
		if (c->unit ? !(m->unit && !strcmp(m->unit, c->unit)) : m->unit != NULL)
			continue;
		struct tnode *t = &nodes[nn++];
		t->m = m;
		t->level = level;
		table_node_name(c, k, m->name, t->name, sizeof t->name);
		t->rank = order_rank(t->name);
		/* the parent: the tma_<parent>_group group that is not a level
		 * or issue group (AMD: the <parent>_group that names a node) */
		if (level > 1) {
			node_parent(c, k, m, t->pk, sizeof t->pk);
			if (!t->pk[0]) {
				t->bad = true;
				snprintf(t->why, sizeof t->why, "no %s<parent>_group names its parent",
					 c->levels ? "" : "tma_");
			}
			table_node_name(c, k, t->pk, t->parent, sizeof t->parent);
		}
	}
	/* parents first: a level's unit may come from the level above */
	for (int lvl = 1; lvl <= 6; lvl++)
		for (size_t i = 0; i < nn; i++) {
			struct tnode *t = &nodes[i];
			if (t->level != lvl || t->bad)
				continue;
			struct node *ast = parse_expr(t->m->expr);
			struct buf b = { 0 };
			g->why[0] = 0;
			if (!translate(g, ast, &b)) {
				t->bad = true;
				snprintf(t->why, sizeof t->why, "%s", g->why);
				free(b.s);
			} else {
				t->expr = b.s;
			}
			free_node(ast);
			t->unit = unit_of(t, nodes, nn);
		}
	/* what names a left-out node is left out too, to a fixed point: its
	 * children, the nodes and helper metrics whose formulas use it */
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < nn; i++)
			if (nodes[i].bad)
				mark_bad_subtree(nodes, nn, nodes[i].m->name, nodes[i].why);
		for (size_t j = 0; j < nn; j++) {
			if (!nodes[j].bad)
				continue;
			for (size_t i = 0; i < g->nmet; i++)
				if (!g->met[i].bad && mentions(g->met[i].expr, nodes[j].name)) {
					g->met[i].bad = true;
					snprintf(g->met[i].why, sizeof g->met[i].why, "it uses %s, left out", nodes[j].name);
					changed = true;
				}
			for (size_t i = 0; i < nn; i++)
				if (!nodes[i].bad && mentions(nodes[i].expr, nodes[j].name)) {
					nodes[i].bad = true;
					snprintf(nodes[i].why, sizeof nodes[i].why, "it uses %s, left out", nodes[j].name);
					changed = true;
				}
		}
		for (size_t j = 0; j < g->nmet; j++) {
			if (!g->met[j].bad)
				continue;
			for (size_t i = 0; i < nn; i++)
				if (!nodes[i].bad && mentions(nodes[i].expr, g->met[j].kname)) {
					nodes[i].bad = true;
					snprintf(nodes[i].why, sizeof nodes[i].why, "it uses %s (%.160s)", g->met[j].kname,
						 g->met[j].why);
					changed = true;
				}
			for (size_t i = 0; i < g->nmet; i++)
				if (!g->met[i].bad && mentions(g->met[i].expr, g->met[j].kname)) {
					g->met[i].bad = true;
					snprintf(g->met[i].why, sizeof g->met[i].why, "it uses %s", g->met[j].kname);
					changed = true;
				}
		}
	}
	size_t kept = 0, maxlvl = 0;
	for (size_t i = 0; i < nn; i++)
		if (!nodes[i].bad) {
			kept++;
			if ((size_t)nodes[i].level > maxlvl)
				maxlvl = (size_t)nodes[i].level;
		}
	if (!kept) {
		fprintf(stderr, "gus-tmagen: %s (%s): no TMA node can be counted per program; no table\n", c->id,
			c->dir);
		free(nodes);
		free(g);
		return 0;
	}
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/%s.tma", outdir, c->id);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *out = fopen(tmp, "w");
	if (!out)
		die("cannot create %s: %s", tmp, strerror(errno));
	fprintf(out, "# gus TMA table %s, generated by gus-tmagen (tools/tmagen) at build time from the\n"
		     "# Linux kernel's metric and event files: %s/%s.\n"
		     "# Do not edit: change tools/tmagen/cpus.txt or the generator.\n\n",
		c->id, src, c->dir);
	fprintf(out, "table %s \"%s\"\n", c->id, c->name);
	if (c->alias) {
		fprintf(out, "alias ");
		for (const char *p = c->alias; *p; p++)
			fputc(*p == ',' ? ' ' : *p, out);
		fputc('\n', out);
	}
	if (c->pmu) {
		fprintf(out, "pmu ");
		for (const char *p = c->pmu; *p; p++)
			fputc(*p == ',' ? ' ' : *p, out);
		fputc('\n', out);
	}
	/* a hybrid CPU's core type: its events open on the kernel's PMU of it */
	if (c->unit)
		fprintf(out, "perfpmu %s\n", c->unit);
	fprintf(out, "width %d\n", c->width);
	if (c->counters) {
		/* how the levels fit the counters (the PMU has no fixed
		 * counters: every event takes a general one) */
		fprintf(out, "counters %d\n", c->counters);
		bool *used = xcalloc(g->nev + 1, sizeof *used);
		for (size_t lvl = 1; lvl <= maxlvl; lvl++) {
			for (size_t i = 0; i < nn; i++)
				if (!nodes[i].bad && (size_t)nodes[i].level == lvl)
					mark_events(g, nodes[i].expr, used, 0);
			size_t n = 0;
			for (size_t i = 0; i < g->nev; i++)
				n += used[i];
			char lv[32];
			snprintf(lv, sizeof lv, lvl == 1 ? "level 1" : "levels 1-%zu", lvl);
			if (n <= (size_t)c->counters)
				fprintf(out, "# %s: %zu events, one group of the %d general counters\n", lv, n,
					c->counters);
			else
				fprintf(out, "# %s: %zu events, more than the %d general counters: gus stat multiplexes "
					     "their groups (--no-multiplex: one run per group)\n",
					lv, n, c->counters);
		}
		free(used);
	}
	fputc('\n', out);
	/* the nodes' text is written to a buffer first: events and metrics
	 * are declared as the formulas name them */
	char *body = NULL;
	size_t bodylen = 0;
	FILE *bf = open_memstream(&body, &bodylen);
	if (!bf)
		die("out of memory");
	fprintf(bf, "# ----------------------------------------------------------------- nodes ---\n");
	write_node_tree(bf, nodes, nn, "");
	for (size_t i = 0; i < nn; i++)
		if (nodes[i].rank >= 0 && nodes[i].bad)	/* an orphan: its parent is not a node */
			write_omit(bf, &nodes[i]);
	fclose(bf);
	/* perf's pseudo-events and the fixed counters first, in cpus.txt's
	 * order (a PERF_METRICS group lists its fields as perf does), then
	 * the others as the formulas first name them */
	fprintf(out, "# ---------------------------------------------------------------- events ---\n");
	for (size_t p = 0; p < npseudos; p++)
		for (size_t i = 0; i < g->nev; i++)
			if (!strcmp(g->ev[i].name, pseudos[p].name))
				fprintf(out, "%s\n", g->ev[i].line);
	for (size_t i = 0; i < g->nev; i++)
		if (!find_pseudo(g->ev[i].name))
			fprintf(out, "%s\n", g->ev[i].line);
	fprintf(out, "\n# --------------------------------------------------------------- metrics ---\n");
	/* helpers in dependency order: a metric's references were added
	 * before it finished, so reverse discovery order is not enough; emit
	 * those whose references are emitted, until all are */
	for (bool progress = true; progress;) {
		progress = false;
		for (size_t i = 0; i < g->nmet; i++) {
			struct tmetric *tm = &g->met[i];
			if (tm->bad || tm->emitted)
				continue;
			bool ready = true;
			for (size_t j = 0; j < g->nmet && ready; j++)
				if (j != i && !g->met[j].bad && !g->met[j].emitted) {
					const char *p = strstr(tm->expr, g->met[j].kname);
					size_t l = strlen(g->met[j].kname);
					while (p && (isalnum((unsigned char)p[l]) || p[l] == '_'))
						p = strstr(p + 1, g->met[j].kname);
					if (p)
						ready = false;
				}
			if (ready) {
				fprintf(out, "metric %s = %s\n", tm->kname, tm->expr);
				tm->emitted = true;
				progress = true;
			}
		}
	}
	fprintf(out, "\n%s", body);
	free(body);
	if (fclose(out))
		die("cannot write %s: %s", tmp, strerror(errno));
	if (rename(tmp, path))
		die("cannot rename %s: %s", tmp, strerror(errno));
	printf("%-8s %-34s %3zu nodes (levels 1-%zu), %3zu left out, %3zu events (%zu libpfm4, %zu raw)\n", c->id,
	       c->name, kept, maxlvl, nn - kept, g->nev, g->pfm_named, g->raw);
	for (size_t i = 0; i < nn; i++)
		free(nodes[i].expr);
	free(nodes);
	for (size_t i = 0; i < g->nev; i++)
		free(g->ev[i].name);
	for (size_t i = 0; i < g->nmet; i++) {
		free(g->met[i].kname);
		free(g->met[i].expr);
	}
	free(g);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gus-tmagen CPUS.TXT ARCHDIR OUTDIR\n"
				"  ARCHDIR: the kernel's tools/perf/pmu-events/arch/x86\n");
		return 2;
	}
	read_cpus(argv[1]);
	for (size_t i = 0; i < ncpus; i++) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/%s", argv[2], cpus[i].dir);
		struct kdata k = { 0 };
		load_dir(&k, dir);
		if (!k.nm) {
			fprintf(stderr, "gus-tmagen: %s (%s): the kernel has no metric file for it; no table\n",
				cpus[i].id, cpus[i].dir);
			free_kdata(&k);
			continue;
		}
		/* libpfm4 activates only the host's PMUs unless one is forced */
		if (cpus[i].pfm)
			setenv("LIBPFM_FORCE_PMU", cpus[i].pfm, 1);
		else
			unsetenv("LIBPFM_FORCE_PMU");
		if (pfm_initialize() != PFM_SUCCESS)
			die("libpfm4 did not initialize");
		if (cpus[i].pfm && cpus[i].pfm_by_encoding)
			pfm_names_load(cpus[i].pfm);
		generate(&cpus[i], &k, argv[3], "tools/perf/pmu-events/arch/x86");
		pfm_terminate();
		free_kdata(&k);
	}
	return 0;
}
