/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SPIRE renderers (src/render/spire.c, spiresvg.c) on a model, an
 * analysis and a sample set made by hand: the text ranks and marks as it
 * says, the CSV has four fields a row and quotes what needs it, the JSON
 * is valid (a small checker below) with null where a number is not
 * finite, the SVG is well-formed XML (another small checker) with a panel
 * per roofline and the curve inside its panel. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "render.h"
#include "spire.h"
#include "tap.h"

/* ------------------------------------------------------ fixtures --- */

static char *xstrdup(const char *s)
{
	char *p = malloc(strlen(s) + 1);
	if (!p)
		abort();
	return strcpy(p, s);
}

static void roofline(struct spire_roofline *r, const char *metric, const char *label, size_t n_train,
		     const double (*knots)[2], size_t n_knots, size_t peak, double peak_i, double peak_p,
		     double tail_p, double inf_p)
{
	r->metric = xstrdup(metric);
	r->label = xstrdup(label);
	r->n_train = n_train;
	r->knots = calloc(n_knots, sizeof *r->knots);
	for (size_t k = 0; k < n_knots; k++) {
		r->knots[k].i = knots[k][0];
		r->knots[k].p = knots[k][1];
	}
	r->n_knots = n_knots;
	r->peak = peak;
	r->peak_i = peak_i;
	r->peak_p = peak_p;
	r->tail_p = tail_p;
	r->inf_p = inf_p;
}

#define LABEL_QUOTED "cycle_activity.stalls,\"l3\""
#define LABEL_XML "odd<&>metric"

/* four rooflines: DB.2 (a peak at I 100), BP.1 (peak at I = infinity), one
 * whose label has a comma and a quote, one with '<&>' (no abbreviations) */
static void make_model(struct spire_model *m)
{
	static const double k0[][2] = { { 0, 0 }, { 10, 2 }, { 100, 3 }, { 1000, 1 } };
	static const double k1[][2] = { { 0, 0 }, { 50, 2.5 } };
	static const double k2[][2] = { { 0, 0 }, { 1, 1.5 }, { 1, 2 }, { 20, 1 } };
	static const double k3[][2] = { { 0, 0 }, { 0.01, 0.5 }, { 5, 4 } };
	memset(m, 0, sizeof *m);
	m->cpu = xstrdup("skx");
	m->time_event = xstrdup(SPIRE_DEFAULT_TIME);
	m->work_event = xstrdup(SPIRE_DEFAULT_WORK);
	m->n_samples = 1234;
	m->n_files = 3;
	m->n = 4;
	m->r = calloc(4, sizeof *m->r);
	roofline(&m->r[0], "idq.dsb_uops", "IDQ.DSB_UOPS", 400, k0, 4, 2, 100, 3, 1, 0.5);
	roofline(&m->r[1], "br_misp_retired.all_branches", "br_misp_retired.all_branches", 300, k1, 2, 1, INFINITY,
		 2.6, 2.5, 2.6);
	roofline(&m->r[2], "cycle_activity.stalls,\"l3\"", LABEL_QUOTED, 200, k2, 4, 2, 1, 2, 1, 0);
	roofline(&m->r[3], "odd<&>metric", LABEL_XML, 100, k3, 3, 2, 5, 4, 4, 4);
}

static void free_model(struct spire_model *m)
{
	for (size_t k = 0; k < m->n; k++) {
		free(m->r[k].metric);
		free(m->r[k].label);
		free(m->r[k].knots);
	}
	free(m->r);
	free(m->cpu);
	free(m->time_event);
	free(m->work_event);
}

static void metric_def(struct spire_metric_def *d, const char *abbr, const char *area, const char *event)
{
	d->abbr = xstrdup(abbr);
	d->area = xstrdup(area);
	d->event = xstrdup(event);
	d->pfm = xstrdup(event);
	d->desc = xstrdup("a test metric");
}

static void make_metricset(struct spire_metricset *s)
{
	memset(s, 0, sizeof *s);
	s->id = xstrdup("skx");
	s->origin = xstrdup("test");
	s->time_event = xstrdup(SPIRE_DEFAULT_TIME);
	s->work_event = xstrdup(SPIRE_DEFAULT_WORK);
	s->n = 2;
	s->m = calloc(2, sizeof *s->m);
	metric_def(&s->m[0], "DB.2", "frontend", "idq.dsb_uops");
	metric_def(&s->m[1], "BP.1", "bad-speculation", "br_misp_retired.all_branches");
}

static void free_metricset(struct spire_metricset *s)
{
	for (size_t k = 0; k < s->n; k++) {
		free(s->m[k].abbr);
		free(s->m[k].area);
		free(s->m[k].event);
		free(s->m[k].pfm);
		free(s->m[k].desc);
	}
	free(s->m);
	free(s->id);
	free(s->origin);
	free(s->time_event);
	free(s->work_event);
}

/* estimates: DB.2 1.00 (lowest), the quoted one 1.09 (within 10 %), BP.1
 * 1.12 (not), the '<&>' one 2.0 */
static void make_analysis(struct spire_analysis *a, const struct spire_model *m)
{
	memset(a, 0, sizeof *a);
	a->n = 4;
	a->e = calloc(4, sizeof *a->e);
	a->e[0] = (struct spire_estimate){ &m->r[0], 120, 1.2e6, 1.0, 0.9, 0.75 };
	a->e[1] = (struct spire_estimate){ &m->r[2], 80, 8e5, 1.09, 1.2, 0.5 };
	a->e[2] = (struct spire_estimate){ &m->r[1], 100, 1e6, 1.12, 0.8, 1.0 };
	a->e[3] = (struct spire_estimate){ &m->r[3], 100, 1e6, 2.0, 0.8, 0.0 };
	a->ensemble = 1.0;
	a->measured = 0.8;
	a->n_samples = 400;
	a->n_unmodeled = 2;
	a->unmodeled = calloc(2, sizeof *a->unmodeled);
	a->unmodeled[0] = xstrdup("foo.bar");
	a->unmodeled[1] = xstrdup("baz.qux");
}

static void free_analysis(struct spire_analysis *a)
{
	for (size_t k = 0; k < a->n_unmodeled; k++)
		free(a->unmodeled[k]);
	free(a->unmodeled);
	free(a->e);
}

static void add_samples(struct spire_metric_samples *ms, const char *metric, const double (*s)[3], size_t n)
{
	ms->metric = xstrdup(metric);
	ms->label = xstrdup(metric);
	ms->s = calloc(n, sizeof *ms->s);
	for (size_t k = 0; k < n; k++)
		ms->s[k] = (struct spire_sample){ s[k][0], s[k][1], s[k][2], (double)k };
	ms->n = ms->cap = n;
}

static void make_sampleset(struct spire_sampleset *ss)
{
	/* T, W, M: P = W/T, I = W/M */
	static const double s0[][3] = { { 1000, 900, 90 }, { 1000, 1500, 30 }, { 1000, 2000, 4 }, { 1000, 500, 5 } };
	static const double s1[][3] = { { 1000, 800, 16 }, { 1000, 2400, 0 }, { 1000, 2000, 0 } };
	memset(ss, 0, sizeof *ss);
	ss->cpu = xstrdup("skx");
	ss->time_event = xstrdup(SPIRE_DEFAULT_TIME);
	ss->work_event = xstrdup(SPIRE_DEFAULT_WORK);
	ss->n = 2;
	ss->metrics = calloc(2, sizeof *ss->metrics);
	add_samples(&ss->metrics[0], "idq.dsb_uops", s0, 4);
	add_samples(&ss->metrics[1], "br_misp_retired.all_branches", s1, 3);
	ss->intervals = 4;
	ss->total_t = 4000;
	ss->total_w = 3200;
	ss->skips.zero_t = 12;
	ss->skips.bad_value = 3;
	ss->skips.intervals_without_tw = 2;
	ss->skips.not_simultaneous = 5;
}

static void free_sampleset(struct spire_sampleset *ss)
{
	for (size_t k = 0; k < ss->n; k++) {
		free(ss->metrics[k].metric);
		free(ss->metrics[k].label);
		free(ss->metrics[k].s);
	}
	free(ss->metrics);
	free(ss->cpu);
	free(ss->time_event);
	free(ss->work_event);
}

/* ------------------------------------------------ capture output --- */

struct buf {
	char *p;
	size_t n;
	FILE *f;
};

static FILE *cap_open(struct buf *b)
{
	b->p = NULL;
	b->n = 0;
	b->f = open_memstream(&b->p, &b->n);
	if (!b->f)
		abort();
	return b->f;
}

static char *cap_close(struct buf *b)
{
	fclose(b->f);
	return b->p;
}

static char *render(const struct spire_model *m, const struct spire_analysis *a, const struct spire_sampleset *ss,
		    const struct merge_spire_info *info, enum render_format fmt)
{
	struct buf b;
	render_spire(cap_open(&b), m, a, ss, info, fmt);
	return cap_close(&b);
}

static char *render_model(const struct spire_model *m, const struct spire_metricset *ms, enum render_format fmt)
{
	struct buf b;
	render_spire_model(cap_open(&b), m, ms, fmt);
	return cap_close(&b);
}

/* the line holding NEEDLE, copied into LINE; false when none does */
static bool line_with(const char *text, const char *needle, char *line, size_t n)
{
	const char *p = strstr(text, needle);
	if (!p)
		return false;
	const char *s = p, *e = strchr(p, '\n');
	while (s > text && s[-1] != '\n')
		s--;
	size_t len = e ? (size_t)(e - s) : strlen(s);
	if (len >= n)
		len = n - 1;
	memcpy(line, s, len);
	line[len] = 0;
	return true;
}

static size_t count(const char *text, const char *needle)
{
	size_t c = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		c++;
	return c;
}

static bool has_ci(const char *text, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = text; *p; p++)
		if (!strncasecmp(p, needle, n))
			return true;
	return false;
}

/* a failed check shows the output it read, as TAP comments; SPIRE_RENDER_DUMP
 * in the environment shows it always */
static void show(bool failed, const char *what, const char *text)
{
	if (!failed && !getenv("SPIRE_RENDER_DUMP"))
		return;
	printf("# --- %s\n# ", what);
	for (const char *p = text; *p; p++)
		printf(*p == '\n' && p[1] ? "\n# " : "%c", *p);
	printf("\n");
}

/* ------------------------------------------------------ CSV (RFC 4180) --- */

#define CSV_MAXF 8
struct csv_row {
	int nf;
	char f[CSV_MAXF][256];
};

/* one record from *P (advanced); false at the end or on a malformed one
 * (nf is then -1) */
static bool csv_next(const char **pp, struct csv_row *row)
{
	const char *p = *pp;
	if (!*p)
		return false;
	row->nf = 0;
	for (;;) {
		char *f = row->nf < CSV_MAXF ? row->f[row->nf] : NULL;
		size_t len = 0;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p) {
					row->nf = -1;
					return false;
				}
				if (*p == '"' && p[1] == '"') {
					p += 2;
					if (f && len < 255)
						f[len++] = '"';
				} else if (*p == '"') {
					p++;
					break;
				} else {
					if (f && len < 255)
						f[len++] = *p;
					p++;
				}
			}
			if (*p != ',' && *p != '\n' && *p) {
				row->nf = -1;
				return false;
			}
		} else {
			while (*p && *p != ',' && *p != '\n') {
				if (*p == '"') {
					row->nf = -1;
					return false;
				}
				if (f && len < 255)
					f[len++] = *p;
				p++;
			}
		}
		if (f)
			f[len] = 0;
		row->nf++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		break;
	}
	*pp = p;
	return true;
}

/* all rows have four fields, none of the values reads nan or inf; the
 * value of KIND,NAME,FIELD into VALUE (when found) */
static bool csv_check(const char *text, int *rows, char *bad, size_t badlen)
{
	struct csv_row row;
	const char *p = text;
	*rows = 0;
	bad[0] = 0;
	while (csv_next(&p, &row)) {
		(*rows)++;
		if (row.nf != 4) {
			snprintf(bad, badlen, "row %d has %d fields", *rows, row.nf);
			return false;
		}
		if (has_ci(row.f[3], "nan") || has_ci(row.f[3], "inf")) {
			snprintf(bad, badlen, "row %d value '%.40s'", *rows, row.f[3]);
			return false;
		}
	}
	if (row.nf < 0 || *p) {
		snprintf(bad, badlen, "malformed record after row %d", *rows);
		return false;
	}
	return true;
}

static bool csv_get(const char *text, const char *kind, const char *name, const char *field, char *value,
		    size_t n)
{
	struct csv_row row;
	const char *p = text;
	while (csv_next(&p, &row))
		if (row.nf == 4 && !strcmp(row.f[0], kind) && !strcmp(row.f[1], name) && !strcmp(row.f[2], field)) {
			snprintf(value, n, "%s", row.f[3]);
			return true;
		}
	return false;
}

/* ------------------------------------------------------- JSON checker --- */
/* Recursive descent over RFC 8259: objects, arrays, strings with their
 * escapes, numbers in JSON's grammar (no NaN, Infinity, leading '+' or
 * zeros, bare '.'), true, false, null. */

static const char *js_value(const char *p, int depth);

static const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int k = 1; k <= 4; k++)
					if (!isxdigit((unsigned char)p[k]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
	}
	return p + 1;
}

static const char *js_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *js_members(const char *p, int depth, char close, bool keys)
{
	p = js_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			if (!(p = js_string(p)))
				return NULL;
			p = js_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = js_value(p, depth + 1)))
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = js_ws(p);
	}
}

static const char *js_value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = js_ws(p);
	switch (*p) {
	case '{': return js_members(p, depth, '}', true);
	case '[': return js_members(p, depth, ']', false);
	case '"': return js_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return js_number(p);
	}
}

static bool json_valid(const char *text)
{
	const char *p = js_value(text, 0);
	return p && !*js_ws(p);
}

/* -------------------------------------------------------- XML checker --- */
/* Well-formedness as far as an SVG needs it: one root element, tags
 * balanced and properly nested, attribute values quoted without '<', every
 * '&' an entity reference, no '<' or '>' loose in text. */

static bool xml_ref(const char **pp)
{
	const char *p = *pp + 1;
	static const char *ents[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };
	for (size_t k = 0; k < 5; k++)
		if (!strncmp(p, ents[k], strlen(ents[k]))) {
			*pp = p + strlen(ents[k]);
			return true;
		}
	if (*p == '#') {
		p++;
		if (*p == 'x')
			p++;
		if (!isxdigit((unsigned char)*p))
			return false;
		while (isxdigit((unsigned char)*p))
			p++;
		if (*p != ';')
			return false;
		*pp = p + 1;
		return true;
	}
	return false;
}

static bool xml_name(const char **pp, char *name, size_t n)
{
	const char *p = *pp;
	size_t len = 0;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || strchr("_-.:", *p)) {
		if (!*p)
			break;
		if (len + 1 < n)
			name[len++] = *p;
		p++;
	}
	name[len] = 0;
	*pp = p;
	return true;
}

static bool xml_wellformed(const char *text, char *why, size_t whylen)
{
	char stack[64][32], name[32];
	int depth = 0, roots = 0;
	const char *p = text;
	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			return snprintf(why, whylen, "unterminated declaration"), false;
		p += 2;
	}
	while (*p) {
		if (*p == '&') {
			if (!xml_ref(&p))
				return snprintf(why, whylen, "bare '&' at %.20s", p), false;
			continue;
		}
		if (*p == '>')
			return snprintf(why, whylen, "loose '>' at %.20s", p), false;
		if (*p != '<') {
			if (!depth && !isspace((unsigned char)*p))
				return snprintf(why, whylen, "text outside the root"), false;
			p++;
			continue;
		}
		p++;
		if (!strncmp(p, "!--", 3)) {
			p = strstr(p, "-->");
			if (!p)
				return snprintf(why, whylen, "unterminated comment"), false;
			p += 3;
			continue;
		}
		if (*p == '/') {
			p++;
			if (!xml_name(&p, name, sizeof name) || *p != '>')
				return snprintf(why, whylen, "bad end tag"), false;
			if (!depth || strcmp(stack[depth - 1], name))
				return snprintf(why, whylen, "</%s> does not close <%s>", name, depth ? stack[depth - 1] : ""),
				       false;
			depth--;
			p++;
			continue;
		}
		if (!xml_name(&p, name, sizeof name))
			return snprintf(why, whylen, "bad tag at %.20s", p - 1), false;
		for (;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (*p == '>' || (*p == '/' && p[1] == '>'))
				break;
			char attr[32];
			if (!xml_name(&p, attr, sizeof attr) || *p++ != '=' || (*p != '"' && *p != '\''))
				return snprintf(why, whylen, "bad attribute in <%s>", name), false;
			char q = *p++;
			while (*p != q) {
				if (!*p || *p == '<')
					return snprintf(why, whylen, "bad attribute value in <%s>", name), false;
				if (*p == '&') {
					if (!xml_ref(&p))
						return snprintf(why, whylen, "bare '&' in <%s>", name), false;
				} else {
					p++;
				}
			}
			p++;
		}
		if (!depth)
			roots++;
		if (*p == '/') {
			p += 2;
			continue;
		}
		p++;
		if (depth == 64)
			return snprintf(why, whylen, "too deep"), false;
		snprintf(stack[depth++], sizeof stack[0], "%s", name);
	}
	if (depth)
		return snprintf(why, whylen, "<%s> not closed", stack[depth - 1]), false;
	if (roots != 1)
		return snprintf(why, whylen, "%d root elements", roots), false;
	return true;
}

/* the number in attribute ATTR="..." of the tag starting at TAG */
static double attr_num(const char *tag, const char *attr)
{
	char key[40];
	snprintf(key, sizeof key, " %s=\"", attr);
	const char *end = strchr(tag, '>');
	const char *p = strstr(tag, key);
	if (!p || (end && p > end))
		return NAN;
	return strtod(p + strlen(key), NULL);
}

/* ------------------------------------------------------------- tests --- */

static struct spire_model model;
static struct spire_metricset mset;
static struct spire_analysis an;
static struct spire_sampleset ss;
static const char *inputs[] = { "run1.csv", "run2.csv" };

static struct merge_spire_info base_info(void)
{
	return (struct merge_spire_info){ .model_path = "skx.spire", .inputs = inputs, .n_inputs = 2,
					  .metrics = &mset, .top = 0, .cpu_note = NULL };
}

static void test_text(void)
{
	struct merge_spire_info info = base_info();
	info.cpu_note = "the samples name no CPU: assumed skx";
	char *t = render(&model, &an, &ss, &info, RENDER_TEXT);
	char line[512];

	tap_ok(strstr(t, "SPIRE: statistical roofline ensemble") && strstr(t, "skx.spire") &&
		       strstr(t, "run1.csv") && strstr(t, "run2.csv"),
	       "text: heading with the model and the inputs");
	tap_ok(strstr(t, "1234 samples from 3 files, 4 rooflines") != NULL, "text: training size");
	tap_ok(line_with(t, "measured IPC", line, sizeof line) && strstr(line, "0.800"), "text: measured IPC 0.800");
	tap_ok(line_with(t, "ensemble estimate", line, sizeof line) && strstr(line, "1.000"),
	       "text: ensemble estimate 1.000");
	tap_ok(line_with(t, "measured / ensemble", line, sizeof line) && strstr(line, "0.80") && strstr(line, "20 %"),
	       "text: ratio 0.80, 20 %% below the ceiling");

	const char *p0 = strstr(t, "IDQ.DSB_UOPS"), *p1 = strstr(t, LABEL_QUOTED),
		   *p2 = strstr(t, "br_misp_retired.all_branches"), *p3 = strstr(t, LABEL_XML);
	tap_ok(p0 && p1 && p2 && p3 && p0 < p1 && p1 < p2 && p2 < p3, "text: metrics ranked lowest estimate first");

	bool ok = line_with(t, "IDQ.DSB_UOPS", line, sizeof line);
	tap_ok(ok && strstr(line, " 1 ") && strstr(line, "DB.2") && strstr(line, "frontend") && strstr(line, "1.000") &&
		       strstr(line, "1.11x") && strstr(line, "120") && strstr(line, "75 %") && strstr(line, "<=="),
	       "text: rank 1 row: DB.2, area, estimate, ratio, samples, left of peak, marked");
	ok = line_with(t, LABEL_QUOTED, line, sizeof line);
	tap_ok(ok && strstr(line, "  -  ") && strstr(line, "1.090") && strstr(line, "0.91x!") && strstr(line, "<=="),
	       "text: rank 2 (no abbreviation, within 10 %%) marked, ratio below 1 flagged");
	ok = line_with(t, "br_misp_retired.all_branches", line, sizeof line);
	tap_ok(ok && strstr(line, "BP.1") && strstr(line, "bad-speculation") && !strstr(line, "<=="),
	       "text: rank 3 (12 %% above the lowest) not marked");
	ok = line_with(t, LABEL_XML, line, sizeof line);
	tap_ok(ok && !strstr(line, "<=="), "text: rank 4 not marked");
	tap_ok(strstr(t, "within 10 % of the lowest") != NULL, "text: the marker's rule is in the footer");
	tap_ok(strstr(t, "unmodeled (no roofline in the model): foo.bar, baz.qux") != NULL, "text: unmodeled metrics");
	tap_ok(strstr(t, "skipped: 12 samples with T = 0") && strstr(t, "skipped: 3 samples with a negative") &&
		       strstr(t, "skipped: 2 intervals without T or W"),
	       "text: skipped samples named in words");
	tap_ok(strstr(t, "warning: 5 samples not counted simultaneously") && !strstr(t, "skipped: 5"),
	       "text: samples kept though not simultaneous: a warning");
	tap_ok(!strstr(t, "W = 0") && !strstr(t, "was not counted"), "text: kinds with no skipped samples are left out");
	tap_ok(strstr(t, "note: the samples name no CPU") != NULL, "text: CPU note");
	tap_ok(strstr(t, "How to read") && strstr(t, "likely bottlenecks") && strstr(t, "too little data"),
	       "text: how-to-read footer");
	tap_ok(!strstr(t, "more metric"), "text: top 0 lists all");
	show(false, "text", t);
	free(t);

	info.top = 2;
	t = render(&model, &an, &ss, &info, RENDER_TEXT);
	tap_ok(strstr(t, "(2 more metrics not listed)") && strstr(t, LABEL_QUOTED) &&
		       !strstr(t, "br_misp_retired.all_branches") && !strstr(t, LABEL_XML),
	       "text: --top 2 lists two and says how many were left out");
	free(t);

	/* a marked metric beyond the top rows is counted */
	info.top = 1;
	t = render(&model, &an, &ss, &info, RENDER_TEXT);
	tap_ok(strstr(t, "(3 more metrics not listed, 1 of them within 10 % of the lowest)") != NULL,
	       "text: marked metrics left out are counted");
	free(t);

	info.top = 0;
	info.section = true;
	t = render(&model, &an, &ss, &info, RENDER_TEXT);
	tap_ok(!strncmp(t, "SPIRE (model skx.spire)\n", 24) && !strstr(t, "statistical roofline ensemble") &&
		       !strstr(t, "run1.csv"),
	       "text: section heading, no input list");
	free(t);
}

static void test_text_events(void)
{
	struct merge_spire_info info = base_info();
	char *save_t = model.time_event, *save_w = model.work_event;
	model.time_event = xstrdup("ref-cycles");
	model.work_event = xstrdup("mem_inst_retired.all_loads");
	char *t = render(&model, &an, &ss, &info, RENDER_TEXT);
	tap_ok(strstr(t, "measured W/T (mem_inst_retired.all_loads per ref-cycles)") && !strstr(t, "IPC"),
	       "text: other T and W: throughput named W/T with the events");
	free(t);
	t = render(&model, &an, &ss, &info, RENDER_CSV);
	char v[64];
	tap_ok(csv_get(t, "ensemble", "W/T", "estimate", v, sizeof v) && !strcmp(v, "1"), "csv: ensemble named W/T");
	free(t);
	free(model.time_event);
	free(model.work_event);
	model.time_event = save_t;
	model.work_event = save_w;
}

static void test_csv(void)
{
	struct merge_spire_info info = base_info();
	info.cpu_note = "assumed skx";
	char *t = render(&model, &an, &ss, &info, RENDER_CSV);
	char bad[128], v[256];
	int rows;
	tap_ok(!strncmp(t, "kind,name,field,value\n", 22), "csv: header");
	bool ok = csv_check(t, &rows, bad, sizeof bad);
	tap_ok(ok && rows > 50, "csv: %d rows of four fields, no nan/inf %s", rows, bad);
	tap_ok(strstr(t, "\"cycle_activity.stalls,\"\"l3\"\"\"") != NULL, "csv: a label with ',' and '\"' quoted");
	tap_ok(csv_get(t, "metric", LABEL_QUOTED, "rank", v, sizeof v) && !strcmp(v, "2"),
	       "csv: the quoted label reads back (rank 2)");
	tap_ok(csv_get(t, "input", "model", "file", v, sizeof v) && !strcmp(v, "skx.spire"), "csv: model file");
	tap_ok(csv_get(t, "input", "samples", "file", v, sizeof v) && !strcmp(v, "run1.csv") &&
		       count(t, "input,samples,file,") == 2,
	       "csv: input files");
	tap_ok(csv_get(t, "ensemble", "IPC", "estimate", v, sizeof v) && !strcmp(v, "1"), "csv: ensemble estimate");
	tap_ok(csv_get(t, "ensemble", "IPC", "measured", v, sizeof v) && !strcmp(v, "0.8"), "csv: measured");
	tap_ok(csv_get(t, "ensemble", "IPC", "samples", v, sizeof v) && !strcmp(v, "400"), "csv: samples");
	tap_ok(csv_get(t, "ensemble", "IPC", "metrics", v, sizeof v) && !strcmp(v, "4"), "csv: metrics");
	tap_ok(csv_get(t, "metric", "IDQ.DSB_UOPS", "abbr", v, sizeof v) && !strcmp(v, "DB.2"), "csv: abbr");
	tap_ok(csv_get(t, "metric", "IDQ.DSB_UOPS", "bottleneck", v, sizeof v) && !strcmp(v, "yes") &&
		       csv_get(t, "metric", LABEL_QUOTED, "bottleneck", v, sizeof v) && !strcmp(v, "yes") &&
		       csv_get(t, "metric", "br_misp_retired.all_branches", "bottleneck", v, sizeof v) &&
		       !strcmp(v, "no"),
	       "csv: bottleneck by the 10 %% rule");
	tap_ok(csv_get(t, "metric", LABEL_QUOTED, "abbr", v, sizeof v) && !v[0], "csv: unknown abbr is empty");
	tap_ok(csv_get(t, "metric", "br_misp_retired.all_branches", "peak_i", v, sizeof v) && !v[0] &&
		       csv_get(t, "metric", "br_misp_retired.all_branches", "peak_at_infinity", v, sizeof v) &&
		       !strcmp(v, "yes"),
	       "csv: a peak at infinity: empty peak_i, peak_at_infinity yes");
	tap_ok(csv_get(t, "metric", "IDQ.DSB_UOPS", "peak_i", v, sizeof v) && !strcmp(v, "100") &&
		       csv_get(t, "metric", "IDQ.DSB_UOPS", "peak_at_infinity", v, sizeof v) && !strcmp(v, "no"),
	       "csv: a finite peak");
	tap_ok(csv_get(t, "metric", "IDQ.DSB_UOPS", "left_of_peak", v, sizeof v) && !strcmp(v, "0.75") &&
		       csv_get(t, "metric", "IDQ.DSB_UOPS", "time", v, sizeof v) && !strcmp(v, "1200000"),
	       "csv: left_of_peak, time");
	tap_ok(csv_get(t, "unmodeled", "baz.qux", "roofline", v, sizeof v) && !strcmp(v, "no"), "csv: unmodeled");
	tap_ok(csv_get(t, "skipped", "samples", "zero_t", v, sizeof v) && !strcmp(v, "12") &&
		       csv_get(t, "skipped", "intervals", "intervals_without_tw", v, sizeof v) && !strcmp(v, "2"),
	       "csv: skipped");
	tap_ok(csv_get(t, "note", "cpu", "note", v, sizeof v) && !strcmp(v, "assumed skx"), "csv: cpu note");
	show(false, "csv", t);
	free(t);
}

/* the JSON of the analysis with INDENT */
static char *json_of(const struct spire_analysis *a, int indent)
{
	struct merge_spire_info info = base_info();
	info.json_indent = indent;
	return render(&model, a, &ss, &info, RENDER_JSON);
}

static void test_json(void)
{
	char *t = json_of(&an, 0);
	tap_ok(json_valid(t), "json: valid (indent 0)");
	size_t n = strlen(t);
	tap_ok(n > 2 && t[n - 1] == '\n' && t[n - 2] == '}', "json: indent 0 ends with a newline");
	tap_ok(strstr(t, "\"model\": {\"file\": \"skx.spire\", \"cpu\": \"skx\", \"time\": \"" SPIRE_DEFAULT_TIME
			 "\", \"work\": \"" SPIRE_DEFAULT_WORK "\", \"samples\": 1234, \"files\": 3, \"rooflines\": 4}") !=
		       NULL,
	       "json: model");
	tap_ok(strstr(t, "\"inputs\": [\"run1.csv\", \"run2.csv\"]") != NULL, "json: inputs");
	tap_ok(strstr(t, "\"measured\": 0.8, \"ensemble\": 1, \"ratio\": 0.8, \"samples\": 400") != NULL,
	       "json: measured, ensemble, ratio, samples");
	tap_ok(strstr(t, "{\"rank\": 1, \"metric\": \"idq.dsb_uops\", \"label\": \"IDQ.DSB_UOPS\", \"abbr\": \"DB.2\", "
			 "\"area\": \"frontend\", \"estimate\": 1, \"ratio\": 1.11111111, \"samples\": 120, "
			 "\"time\": 1200000, \"left_of_peak\": 0.75, \"bottleneck\": true, \"peak\": {\"i\": 100, \"p\": 3}}") !=
		       NULL,
	       "json: the first metric, all members");
	tap_ok(strstr(t, "\"label\": \"cycle_activity.stalls,\\\"l3\\\"\", \"abbr\": null") != NULL,
	       "json: quote escaped, unknown abbr null");
	tap_ok(strstr(t, "\"bottleneck\": false, \"peak\": {\"i\": null, \"p\": 2.6}") != NULL,
	       "json: peak at infinity is null, not a bottleneck at 12 %%");
	tap_ok(strstr(t, "\"unmodeled\": [\"foo.bar\", \"baz.qux\"]") != NULL, "json: unmodeled");
	tap_ok(strstr(t, "\"skipped\": {\"zero_t\": 12, \"zero_w\": 0, \"not_counted\": 0, \"no_group\": 0, "
			 "\"bad_value\": 3, \"not_simultaneous\": 5, \"intervals_without_tw\": 2}") != NULL,
	       "json: skipped");
	tap_ok(!has_ci(t, "nan") && !has_ci(t, "inf"), "json: no nan or inf");
	show(false, "json", t);
	free(t);

	t = json_of(&an, 4);
	n = strlen(t);
	tap_ok(json_valid(t), "json: valid (indent 4)");
	tap_ok(n && t[n - 1] == '}', "json: indent 4 has no trailing newline");
	bool indented = true;
	for (const char *p = strchr(t, '\n'); p; p = strchr(p + 1, '\n'))
		indented &= !strncmp(p + 1, "    ", 4);
	tap_ok(indented && strstr(t, "\n    }") != NULL, "json: every line after the first indented by 4");
	/* as gus report embeds it */
	size_t len = n + 32;
	char *wrapped = malloc(len);
	snprintf(wrapped, len, "{\n  \"spire\": %s\n}\n", t);
	tap_ok(json_valid(wrapped), "json: valid as a member value");
	free(wrapped);
	free(t);
}

/* NaN where a number should be: never "nan" in CSV or JSON */
static void test_nan_guards(void)
{
	struct spire_analysis a2 = an;
	struct spire_estimate e2[4];
	memcpy(e2, an.e, sizeof e2);
	a2.e = e2;
	a2.measured = NAN;
	e2[1].estimate = NAN;
	e2[2].measured = NAN;
	e2[3].left_of_peak = NAN;
	e2[3].t = INFINITY;
	struct merge_spire_info info = base_info();
	char *t = render(&model, &a2, &ss, &info, RENDER_CSV);
	char bad[128], v[64];
	int rows;
	tap_ok(csv_check(t, &rows, bad, sizeof bad), "nan: csv values have no nan/inf %s", bad);
	tap_ok(csv_get(t, "ensemble", "IPC", "measured", v, sizeof v) && !v[0] &&
		       csv_get(t, "ensemble", "IPC", "ratio", v, sizeof v) && !v[0],
	       "nan: csv measured and ratio empty");
	tap_ok(csv_get(t, "metric", LABEL_QUOTED, "estimate", v, sizeof v) && !v[0] &&
		       csv_get(t, "metric", LABEL_QUOTED, "ratio", v, sizeof v) && !v[0] &&
		       csv_get(t, "metric", LABEL_QUOTED, "bottleneck", v, sizeof v) && !strcmp(v, "no"),
	       "nan: csv estimate empty, not a bottleneck");
	free(t);
	t = json_of(&a2, 0);
	tap_ok(json_valid(t) && !has_ci(t, "nan") && !has_ci(t, "inf"), "nan: json valid, no nan/inf");
	tap_ok(strstr(t, "\"measured\": null, \"ensemble\": 1, \"ratio\": null") &&
		       strstr(t, "\"estimate\": null, \"ratio\": null"),
	       "nan: json nulls");
	free(t);
	t = json_of(&a2, 2);
	tap_ok(json_valid(t) && !has_ci(t, "nan"), "nan: json valid (indent 2)");
	free(t);
	t = render(&model, &a2, &ss, &info, RENDER_TEXT);
	char line[512];
	/* (the skipped lines say "NaN" in words) */
	const char *tab = strstr(t, "  rank"), *tab_end = strstr(t, "likely bottleneck:");
	bool nan_in_table = false;
	for (const char *q = tab; q && tab_end && q < tab_end; q++)
		nan_in_table |= !strncasecmp(q, "nan", 3) || !strncasecmp(q, "inf", 3);
	show(!tap_ok(tab && tab_end && !nan_in_table && line_with(t, "measured IPC", line, sizeof line) &&
			     strstr(line, "n/a") && line_with(t, "cycle_activity", line, sizeof line) &&
			     strstr(line, "  -  "),
		     "nan: text says n/a or '-'"),
	     "text", t);
	free(t);

	/* nothing analysed, no sample set */
	struct spire_analysis empty = { 0 };
	t = render(&model, &empty, NULL, &info, RENDER_JSON);
	tap_ok(json_valid(t) && strstr(t, "\"metrics\": []") && strstr(t, "\"skipped\": null"),
	       "empty: json valid with no metrics");
	free(t);
	t = render(&model, &empty, NULL, &info, RENDER_CSV);
	tap_ok(csv_check(t, &rows, bad, sizeof bad), "empty: csv %s", bad);
	free(t);
	t = render(&model, &empty, NULL, &info, RENDER_TEXT);
	tap_ok(strstr(t, "no metric of the input has a roofline") != NULL, "empty: text says so");
	free(t);
}

static void test_model(void)
{
	char *t = render_model(&model, &mset, RENDER_TEXT);
	char line[512], tok[10][64];
	tap_ok(strstr(t, "4 rooflines") && strstr(t, "skx") && strstr(t, SPIRE_DEFAULT_TIME) &&
		       strstr(t, "1234 samples from 3 files"),
	       "model text: heading");
	bool ok = line_with(t, "IDQ.DSB_UOPS", line, sizeof line) &&
		  sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s", tok[0], tok[1], tok[2], tok[3],
			 tok[4], tok[5], tok[6], tok[7], tok[8], tok[9]) == 10;
	tap_ok(ok && !strcmp(tok[0], "DB.2") && !strcmp(tok[2], "frontend") && !strcmp(tok[3], "400") &&
		       !strcmp(tok[4], "100") && !strcmp(tok[5], "3.000") && !strcmp(tok[6], "3") &&
		       !strcmp(tok[7], "1") && !strcmp(tok[8], "1.000") && !strcmp(tok[9], "0.500"),
	       "model text: DB.2 row: samples, peak, knots 3 left 1 right, tail, inf");
	ok = line_with(t, "br_misp_retired.all_branches", line, sizeof line) &&
	     sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s", tok[0], tok[1], tok[2], tok[3], tok[4], tok[5],
		    tok[6], tok[7]) == 8;
	tap_ok(ok && !strcmp(tok[0], "BP.1") && !strcmp(tok[4], "inf") && !strcmp(tok[6], "2") && !strcmp(tok[7], "0"),
	       "model text: BP.1 peak I inf, 2 knots left, 0 right");
	ok = line_with(t, LABEL_XML, line, sizeof line) && sscanf(line, "%63s", tok[0]) == 1;
	tap_ok(ok && !strcmp(tok[0], "-"), "model text: unknown abbreviation '-'");
	show(false, "model text", t);
	free(t);

	t = render_model(&model, &mset, RENDER_CSV);
	char bad[128], v[64];
	int rows;
	ok = csv_check(t, &rows, bad, sizeof bad);
	tap_ok(ok && !strncmp(t, "kind,name,field,value\n", 22), "model csv: %d rows of four fields %s", rows, bad);
	tap_ok(csv_get(t, "roofline", "br_misp_retired.all_branches", "peak_i", v, sizeof v) && !v[0] &&
		       csv_get(t, "roofline", "br_misp_retired.all_branches", "peak_at_infinity", v, sizeof v) &&
		       !strcmp(v, "yes"),
	       "model csv: peak at infinity");
	tap_ok(csv_get(t, "roofline", LABEL_QUOTED, "knots_left", v, sizeof v) && !strcmp(v, "3") &&
		       csv_get(t, "roofline", LABEL_QUOTED, "knots_right", v, sizeof v) && !strcmp(v, "1") &&
		       csv_get(t, "model", "model", "rooflines", v, sizeof v) && !strcmp(v, "4"),
	       "model csv: knots, rooflines");
	free(t);

	t = render_model(&model, &mset, RENDER_JSON);
	size_t n = strlen(t);
	tap_ok(json_valid(t) && n && t[n - 1] == '\n' && !has_ci(t, "nan"), "model json: valid");
	tap_ok(strstr(t, "\"knots\": [[0, 0], [10, 2], [100, 3], [1000, 1]], \"tail\": 1, \"infinity\": 0.5") != NULL,
	       "model json: knots, tail, infinity");
	tap_ok(strstr(t, "\"abbr\": \"BP.1\", \"area\": \"bad-speculation\", \"samples\": 300, \"peak\": {\"i\": null, "
			 "\"p\": 2.6, \"knot\": 1}") != NULL,
	       "model json: peak at infinity null");
	tap_ok(strstr(t, "\"cpu\": \"skx\"") && strstr(t, "\"samples\": 1234") && strstr(t, "\"files\": 3"),
	       "model json: heading members");
	free(t);

	struct spire_model none = { 0 };
	t = render_model(&none, NULL, RENDER_JSON);
	tap_ok(json_valid(t) && strstr(t, "\"cpu\": null"), "model json: empty model valid");
	free(t);
}

static void test_svg(void)
{
	const struct spire_roofline *r[3] = { &model.r[0], &model.r[1], &model.r[3] };
	struct buf b;
	render_spire_svg(cap_open(&b), r, 3, &ss, &an, &mset, "SPIRE: a & b <test>");
	char *t = cap_close(&b);
	char why[128] = "";
	tap_ok(xml_wellformed(t, why, sizeof why), "svg: well-formed %s", why);
	tap_ok(count(t, "<g class=\"panel\">") == 3 && count(t, "class=\"panel-box\"") == 3, "svg: three panels");
	tap_ok(strstr(t, "<title>SPIRE: a &amp; b &lt;test&gt;</title>") != NULL, "svg: title escaped");
	tap_ok(strstr(t, "odd&lt;&amp;&gt;metric") && !strstr(t, LABEL_XML), "svg: '<&>' label escaped");
	tap_ok(strstr(t, ">DB.2 IDQ.DSB_UOPS</text>") && strstr(t, ">BP.1 br_misp_retired.all_branches</text>"),
	       "svg: panel titles 'ABBR event'");

	/* each panel's roofline inside its box, through its peak */
	const char *p = t;
	int inside = 0, dense = 0, peak_ok = 0;
	for (int k = 0; k < 3; k++) {
		const char *box = strstr(p, "class=\"panel-box\"");
		if (!box)
			break;
		const char *next = strstr(box + 1, "class=\"panel-box\"");
		double bx = attr_num(box, "x"), by = attr_num(box, "y"), bw = attr_num(box, "width"),
		       bh = attr_num(box, "height");
		const char *pl = strstr(box, "<polyline class=\"roofline\"");
		const char *pk = strstr(box, "<path class=\"peak\" d=\"M");
		if (!pl || (next && pl > next) || !pk || (next && pk > next)) {
			p = box + 1;
			continue;
		}
		const char *q = strstr(pl, "points=\"") + 8;
		bool in = true;
		int npts = 0;
		double ymin = INFINITY;
		while (*q && *q != '"') {
			char *end;
			double x = strtod(q, &end);
			if (*end != ',')
				break;
			double y = strtod(end + 1, &end);
			in &= x >= bx && x <= bx + bw && y >= by && y <= by + bh;
			if (y < ymin)
				ymin = y;
			npts++;
			q = end;
			while (*q == ' ')
				q++;
		}
		double peak_x, peak_y;
		sscanf(pk + strlen("<path class=\"peak\" d=\"M"), "%lf %lf", &peak_x, &peak_y);
		/* a peak at I = infinity: the roofline's value there */
		const char *li = strstr(box, "<line class=\"roofline-inf\"");
		if (li && (!next || li < next) && attr_num(li, "y1") < ymin)
			ymin = attr_num(li, "y1");
		inside += in && npts > 0;
		dense += npts >= 150;
		/* the curve's highest point is the peak (the diamond starts 5
		 * above): the knots are among the values drawn */
		peak_ok += fabs(ymin - (peak_y + 5)) < 0.11 && peak_x >= bx && peak_x <= bx + bw;
		p = box + 1;
	}
	tap_ok(inside == 3, "svg: every roofline polyline inside its panel (%d of 3)", inside);
	tap_ok(dense == 3, "svg: rooflines sampled densely (%d of 3)", dense);
	tap_ok(peak_ok == 3, "svg: each curve's top is at its peak marker (%d of 3)", peak_ok);

	tap_ok(count(t, "class=\"samples\"") == 2 && count(t, "class=\"samples-m0\"") == 2,
	       "svg: sample groups for the two metrics with samples");
	const char *m0 = strstr(t, "class=\"samples-m0\"");
	m0 = m0 ? strstr(m0 + 1, "class=\"samples-m0\"") : NULL;	/* BP.1's */
	tap_ok(m0 && strstr(m0, "<rect ") && strstr(m0, "<rect ") < strstr(m0, "</g>"),
	       "svg: M = 0 samples drawn with another marker");
	tap_ok(strstr(t, "at the right edge") != NULL, "svg: the legend says where M = 0 samples are");
	tap_ok(strstr(t, "class=\"estimate\"") && strstr(t, ">estimate 1</text>") && strstr(t, ">estimate 1.12</text>"),
	       "svg: estimate lines labelled");
	tap_ok(count(t, "class=\"measured\"") == 3 && strstr(t, ">measured 0.8</text>"), "svg: measured lines labelled");
	tap_ok(strstr(t, ">0.01</text>") && strstr(t, ">1000</text>"), "svg: decade ticks labelled");
	if (getenv("SPIRE_RENDER_SVG")) {
		FILE *f = fopen(getenv("SPIRE_RENDER_SVG"), "w");
		if (f) {
			fputs(t, f);
			fclose(f);
		}
	}
	free(t);

	/* no analysis, no samples, no metric set, no rooflines */
	render_spire_svg(cap_open(&b), r, 2, NULL, NULL, NULL, NULL);
	t = cap_close(&b);
	tap_ok(xml_wellformed(t, why, sizeof why) && !strstr(t, "class=\"estimate\"") &&
		       count(t, "<g class=\"panel\">") == 2,
	       "svg: bare rooflines well-formed %s", why);
	free(t);
	render_spire_svg(cap_open(&b), r, 0, NULL, NULL, NULL, "none");
	t = cap_close(&b);
	tap_ok(xml_wellformed(t, why, sizeof why) && strstr(t, "no rooflines"), "svg: no rooflines %s", why);
	free(t);
}

/* the checkers themselves must be able to fail */
static void test_checkers(void)
{
	char why[64];
	int rows;
	tap_ok(!json_valid("{\"a\": nan}") && !json_valid("{\"a\": inf}") && !json_valid("{\"a\": 1,}") &&
		       !json_valid("[01]") && json_valid("{\"a\": [1, -2.5e3, \"x\\\"\", null, true]}"),
	       "checker: json");
	tap_ok(!xml_wellformed("<svg><text>a & b</text></svg>", why, sizeof why) &&
		       !xml_wellformed("<svg><g></svg>", why, sizeof why) &&
		       !xml_wellformed("<svg><text>a < b</text></svg>", why, sizeof why) &&
		       xml_wellformed("<?xml version=\"1.0\"?>\n<svg a=\"&lt;\"><g/><t>x &amp; y</t></svg>\n", why,
				      sizeof why),
	       "checker: xml");
	tap_ok(!csv_check("a,b,c\n", &rows, why, sizeof why) && !csv_check("a,b,c,nan\n", &rows, why, sizeof why) &&
		       !csv_check("a,b,c,\"x\n", &rows, why, sizeof why) &&
		       csv_check("a,\"b,\"\"c\",d,1\n", &rows, why, sizeof why),
	       "checker: csv");
}

int main(void)
{
	make_model(&model);
	make_metricset(&mset);
	make_analysis(&an, &model);
	make_sampleset(&ss);

	test_checkers();
	test_text();
	test_text_events();
	test_csv();
	test_json();
	test_nan_guards();
	test_model();
	test_svg();

	free_sampleset(&ss);
	free_analysis(&an);
	free_metricset(&mset);
	free_model(&model);
	return tap_done();
}
