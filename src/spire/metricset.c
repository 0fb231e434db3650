/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE metric sets: which events gus counts for SPIRE on a CPU family
 * (data/spire/ID.metrics; the format is data/spire/FORMAT). */
#include "spire.h"
#include "spire_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_WORDS 16

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

void spire_metricset_free(struct spire_metricset *s)
{
	if (!s)
		return;
	free(s->id);
	free(s->origin);
	for (size_t i = 0; i < s->n_cpus; i++)
		free(s->cpus[i]);
	free(s->cpus);
	free(s->time_event);
	free(s->time_pfm);
	free(s->work_event);
	free(s->work_pfm);
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].abbr);
		free(s->m[i].area);
		free(s->m[i].event);
		free(s->m[i].pfm);
		free(s->m[i].desc);
	}
	free(s->m);
	free(s);
}

/* ---------------------------------------------------------- words --- */
/* Splits LINE (modified in place) into words; a quoted word loses its
 * quotes and its escapes. *PROBLEM says what is wrong when -1 comes back. */
static int split_words(char *line, char **w, bool *quoted, const char **problem)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == MAX_WORDS) {
			*problem = "too many words";
			return -1;
		}
		if (*p == '"') {
			char *out = ++p;
			w[n] = out;
			quoted[n] = true;
			for (;;) {
				if (!*p) {
					*problem = "unterminated string (a '\"' is missing)";
					return -1;
				}
				if (*p == '"')
					break;
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				*out++ = *p++;
			}
			p++;
			if (*p && *p != ' ' && *p != '\t') {
				*problem = "a blank must follow a closing '\"'";
				return -1;
			}
			*out = 0;
			n++;
			continue;
		}
		w[n] = p;
		quoted[n] = false;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '"') {
				*problem = "'\"' inside a word";
				return -1;
			}
			p++;
		}
		n++;
		if (*p)
			*p++ = 0;
	}
}

static bool valid_id(const char *s)
{
	if (!*s || strlen(s) > 31)
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool valid_abbr(const char *s)
{
	if (!isalpha((unsigned char)*s) || strlen(s) > 15)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

static bool valid_event(const char *s)
{
	if (!islower((unsigned char)*s) || strlen(s) > 127)
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '.' ||
		      *s == '-'))
			return false;
	return true;
}

static bool valid_pfm(const char *s)
{
	if (!*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == '"')
			return false;
	return true;
}

static const char *const areas[] = { "frontend", "bad-speculation", "memory", "core" };

static bool valid_area(const char *s)
{
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (!strcmp(s, areas[i]))
			return true;
	return false;
}

static bool same_key(const char *a, const char *b)
{
	char ka[256], kb[256];
	spire_event_key(a, ka, sizeof(ka));
	spire_event_key(b, kb, sizeof(kb));
	return !strcmp(ka, kb);
}

/* ---------------------------------------------------------- lines --- */
struct parse {
	struct spire_metricset *s;
	const char *origin;
	int lineno;
	char *err;
	size_t errlen;
	bool have_time, have_work;
};

__attribute__((format(printf, 2, 3))) static int fail(struct parse *ps, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	spire_seterr(ps->err, ps->errlen, "%s:%d: %s", ps->origin, ps->lineno, msg);
	return -1;
}

static int oom(struct parse *ps)
{
	return fail(ps, "out of memory");
}

static int need_words(struct parse *ps, const char *kw, int n, int want, const char *what)
{
	if (n != want)
		return fail(ps, "'%s' takes %s, got %d word%s", kw, what, n - 1, n == 2 ? "" : "s");
	return 0;
}

static int no_quotes(struct parse *ps, char **w, const bool *quoted, int n)
{
	for (int i = 0; i < n; i++)
		if (quoted[i])
			return fail(ps, "'%s': a quoted string is only allowed as a metric's description", w[i]);
	return 0;
}

static int line_set(struct parse *ps, char **w, const bool *q, int n)
{
	if (need_words(ps, "set", n, 2, "one ID") || no_quotes(ps, w, q, n))
		return -1;
	if (ps->s->id)
		return fail(ps, "a second 'set' line (the set is '%s')", ps->s->id);
	if (!valid_id(w[1]))
		return fail(ps, "set ID '%s': use lower-case letters, digits and '_'", w[1]);
	return (ps->s->id = xstrdup(w[1])) ? 0 : oom(ps);
}

static int line_cpus(struct parse *ps, char **w, const bool *q, int n)
{
	struct spire_metricset *s = ps->s;
	if (n < 2)
		return fail(ps, "'cpus' takes one or more libpfm4 PMU names");
	if (no_quotes(ps, w, q, n))
		return -1;
	if (s->cpus)
		return fail(ps, "a second 'cpus' line");
	if (!(s->cpus = calloc((size_t)n, sizeof(*s->cpus))))
		return oom(ps);
	for (int i = 1; i < n; i++) {
		if (!valid_id(w[i]))
			return fail(ps, "cpu '%s': a libpfm4 PMU name is lower-case letters, digits and '_'", w[i]);
		for (size_t j = 0; j < s->n_cpus; j++)
			if (!strcmp(s->cpus[j], w[i]))
				return fail(ps, "cpu '%s' named twice", w[i]);
		if (!(s->cpus[s->n_cpus] = xstrdup(w[i])))
			return oom(ps);
		s->n_cpus++;
	}
	return 0;
}

static int line_tw(struct parse *ps, char **w, const bool *q, int n, bool time)
{
	struct spire_metricset *s = ps->s;
	const char *kw = time ? "time" : "work";
	bool *have = time ? &ps->have_time : &ps->have_work;
	if (need_words(ps, kw, n, 3, "an Intel event name and a libpfm4 name") || no_quotes(ps, w, q, n))
		return -1;
	if (*have)
		return fail(ps, "a second '%s' line", kw);
	if (!valid_event(w[1]))
		return fail(ps, "'%s' event '%s': an Intel event name in lower case, as perf spells it "
			    "(letters, digits, '_', '.', '-')", kw, w[1]);
	if (!valid_pfm(w[2]))
		return fail(ps, "'%s' libpfm4 name '%s' is not a valid name", kw, w[2]);
	const char *other = time ? s->work_event : s->time_event;
	if (other && same_key(other, w[1]))
		return fail(ps, "time and work are the same event '%s'", w[1]);
	for (size_t i = 0; i < s->n; i++)
		if (same_key(s->m[i].event, w[1]))
			return fail(ps, "'%s' event '%s' is also metric %s", kw, w[1], s->m[i].abbr);
	char **ev = time ? &s->time_event : &s->work_event;
	char **pfm = time ? &s->time_pfm : &s->work_pfm;
	if (!(*ev = xstrdup(w[1])) || !(*pfm = xstrdup(w[2])))
		return oom(ps);
	*have = true;
	return 0;
}

static int line_metric(struct parse *ps, char **w, const bool *q, int n)
{
	struct spire_metricset *s = ps->s;
	if (n < 6 || n > 7)
		return fail(ps, "'metric' takes ABBR AREA EVENT PFM \"DESCRIPTION\" [anythread], got %d word%s",
			    n - 1, n == 2 ? "" : "s");
	if (no_quotes(ps, w, q, 5))
		return -1;
	if (!valid_abbr(w[1]))
		return fail(ps, "abbreviation '%s': a letter, then letters, digits, '.', '_' or '-' "
			    "(at most 15)", w[1]);
	if (!valid_area(w[2]))
		return fail(ps, "unknown area '%s' (frontend, bad-speculation, memory or core)", w[2]);
	if (!valid_event(w[3]))
		return fail(ps, "event '%s': an Intel event name in lower case, as perf spells it "
			    "(letters, digits, '_', '.', '-')", w[3]);
	if (!valid_pfm(w[4]))
		return fail(ps, "libpfm4 name '%s' is not a valid name", w[4]);
	if (!q[5])
		return fail(ps, "metric %s: the description must be a quoted string", w[1]);
	if (!*w[5])
		return fail(ps, "metric %s: empty description", w[1]);
	bool any = false;
	if (n == 7) {
		if (q[6] || strcmp(w[6], "anythread"))
			return fail(ps, "metric %s: unknown flag '%s' after the description (only 'anythread')",
				    w[1], w[6]);
		any = true;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (!strcasecmp(s->m[i].abbr, w[1]))
			return fail(ps, "abbreviation '%s' used twice (also for %s)", w[1], s->m[i].event);
		if (same_key(s->m[i].event, w[3]))
			return fail(ps, "event '%s' used twice (also metric %s)", w[3], s->m[i].abbr);
	}
	if ((s->time_event && same_key(s->time_event, w[3])) || (s->work_event && same_key(s->work_event, w[3])))
		return fail(ps, "metric %s: '%s' is the %s event", w[1], w[3],
			    s->time_event && same_key(s->time_event, w[3]) ? "time" : "work");
	struct spire_metric_def *nm = realloc(s->m, (s->n + 1) * sizeof(*nm));
	if (!nm)
		return oom(ps);
	s->m = nm;
	struct spire_metric_def *d = &s->m[s->n];
	memset(d, 0, sizeof(*d));
	s->n++;
	d->any_thread = any;
	if (!(d->abbr = xstrdup(w[1])) || !(d->area = xstrdup(w[2])) || !(d->event = xstrdup(w[3])) ||
	    !(d->pfm = xstrdup(w[4])) || !(d->desc = xstrdup(w[5])))
		return oom(ps);
	return 0;
}

static int parse_line(struct parse *ps, char *line)
{
	char *w[MAX_WORDS];
	bool q[MAX_WORDS];
	const char *problem = "";
	int n = split_words(line, w, q, &problem);
	if (n < 0)
		return fail(ps, "%s", problem);
	if (n == 0)
		return 0;
	if (q[0])
		return fail(ps, "a line starts with a keyword, not a string");
	if (!strcmp(w[0], "set"))
		return line_set(ps, w, q, n);
	if (!strcmp(w[0], "cpus"))
		return line_cpus(ps, w, q, n);
	if (!strcmp(w[0], "time"))
		return line_tw(ps, w, q, n, true);
	if (!strcmp(w[0], "work"))
		return line_tw(ps, w, q, n, false);
	if (!strcmp(w[0], "metric"))
		return line_metric(ps, w, q, n);
	return fail(ps, "unknown keyword '%s' (set, cpus, time, work, metric)", w[0]);
}

struct spire_metricset *spire_metricset_parse(const char *text, const char *origin, char *err, size_t errlen)
{
	struct parse ps = { .origin = origin ? origin : "<metric set>", .err = err, .errlen = errlen };
	char *logical = NULL;
	size_t cap = 0;
	if (!(ps.s = calloc(1, sizeof(*ps.s))) || !(ps.s->origin = xstrdup(ps.origin))) {
		spire_seterr(err, errlen, "%s: out of memory", ps.origin);
		goto fail;
	}
	const char *p = text;
	int lineno = 0;
	while (*p) {
		/* one logical line: physical lines joined at a trailing '\' */
		size_t len = 0;
		int first = lineno + 1;
		for (;;) {
			const char *e = strchr(p, '\n');
			size_t raw = e ? (size_t)(e - p) : strlen(p);
			size_t l = raw && p[raw - 1] == '\r' ? raw - 1 : raw;
			lineno++;
			if (len + l + 2 > cap) {
				size_t nc = (len + l + 2) * 2;
				char *nl = realloc(logical, nc);
				if (!nl) {
					spire_seterr(err, errlen, "%s: out of memory", ps.origin);
					goto fail;
				}
				logical = nl;
				cap = nc;
			}
			memcpy(logical + len, p, l);
			len += l;
			logical[len] = 0;
			p = e ? e + 1 : p + raw;
			if (!len || logical[len - 1] != '\\')
				break;
			if (!*p) {
				ps.lineno = lineno;
				fail(&ps, "'\\' at the end of the file joins no line");
				goto fail;
			}
			logical[len - 1] = ' ';
		}
		ps.lineno = first;
		for (size_t i = 0; i < len; i++)
			if (!isprint((unsigned char)logical[i]) && logical[i] != '\t' &&
			    !((unsigned char)logical[i] & 0x80)) {
				fail(&ps, "control character in the text");
				goto fail;
			}
		if (parse_line(&ps, logical))
			goto fail;
	}
	const char *missing = !ps.s->id ? "set" : !ps.s->cpus ? "cpus" : !ps.have_time ? "time"
			      : !ps.have_work ? "work" : NULL;
	if (missing) {
		spire_seterr(err, errlen, "%s: no '%s' line", ps.origin, missing);
		goto fail;
	}
	if (!ps.s->n) {
		spire_seterr(err, errlen, "%s: no 'metric' line", ps.origin);
		goto fail;
	}
	free(logical);
	return ps.s;
fail:
	free(logical);
	spire_metricset_free(ps.s);
	return NULL;
}

/* ------------------------------------------------------------ files --- */
static char *read_text(const char *path, char *err, size_t errlen, int *errnum)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	*errnum = 0;
	if (!f) {
		*errnum = errno;
		spire_seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, nc);
			if (!nb) {
				spire_seterr(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		spire_seterr(err, errlen, "%s: read error", path);
		goto fail;
	}
	if (memchr(buf, 0, len)) {
		spire_seterr(err, errlen, "%s: binary data, not a metric set", path);
		goto fail;
	}
	buf[len] = 0;
	fclose(f);
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

static struct spire_metricset *load_file(const char *path, char *err, size_t errlen, int *errnum)
{
	char *text = read_text(path, err, errlen, errnum);
	if (!text)
		return NULL;
	struct spire_metricset *s = spire_metricset_parse(text, path, err, errlen);
	free(text);
	return s;
}

static bool names_cpu(const struct spire_metricset *s, const char *id)
{
	for (size_t i = 0; i < s->n_cpus; i++)
		if (!strcmp(s->cpus[i], id))
			return true;
	return false;
}

static int metrics_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 8 && !strcmp(d->d_name + n - 8, ".metrics");
}

struct spire_metricset *spire_metricset_load(const char *dir, const char *id, char *err, size_t errlen)
{
	char path[4096];
	int errnum;
	if (!id || !*id || strchr(id, '/') || strlen(id) > 64) {
		spire_seterr(err, errlen, "'%s' is not a metric set or CPU name", id ? id : "");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s.metrics", dir, id);
	struct spire_metricset *s = load_file(path, err, errlen, &errnum);
	if (s || errnum != ENOENT)
		return s;

	/* a CPU name: the file whose cpus line names it */
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, metrics_file, alphasort);
	if (n < 0) {
		spire_seterr(err, errlen, "no SPIRE metric set for '%s': cannot read %s: %s", id, dir, strerror(errno));
		return NULL;
	}
	char have[512] = "";
	for (int i = 0; i < n; i++) {
		char e2[SPIRE_ERRLEN];
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		struct spire_metricset *c = s ? NULL : load_file(path, e2, sizeof(e2), &errnum);
		if (c && names_cpu(c, id)) {
			s = c;
			continue;
		}
		if (c) {
			size_t l = strlen(have);
			snprintf(have + l, sizeof(have) - l, "%s%s (for", l ? "; " : "", c->id);
			for (size_t k = 0; k < c->n_cpus; k++) {
				l = strlen(have);
				snprintf(have + l, sizeof(have) - l, "%s %s", k ? "," : "", c->cpus[k]);
			}
			l = strlen(have);
			snprintf(have + l, sizeof(have) - l, ")");
		}
		spire_metricset_free(c);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (!s)
		spire_seterr(err, errlen, "no SPIRE metric set for '%s' in %s (%s%s)", id, dir,
		       have[0] ? "sets: " : "no sets there", have);
	return s;
}

const struct spire_metric_def *spire_metricset_find(const struct spire_metricset *s, const char *name)
{
	if (!s || !name)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (!strcasecmp(s->m[i].abbr, name))
			return &s->m[i];
	char key[256];
	spire_event_key(name, key, sizeof(key));
	if (!key[0])
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (same_key(s->m[i].event, key))
			return &s->m[i];
	return NULL;
}

struct spire_metricset *spire_metricset_for(const char *dir, const char *cpu)
{
	char err[SPIRE_ERRLEN];
	return cpu ? spire_metricset_load(dir, cpu, err, sizeof(err)) : NULL;
}

void spire_metric_keys_free(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

char **spire_metric_keys(const char *list, const struct spire_metricset *set, size_t *n)
{
	size_t cap = 1;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	char *items = strdup(list);
	char **keys = items ? calloc(cap + 1, sizeof(*keys)) : NULL;
	*n = 0;
	/* split at the commas outside cpu/.../ terms, as perf's -e splits */
	bool in_term = false;
	for (char *p = items, *item = items; keys; p++) {
		if (*p == '/')
			in_term = !in_term;
		if (*p && (*p != ',' || in_term))
			continue;
		bool last = !*p;
		*p = 0;
		if (*item) {
			const struct spire_metric_def *def = set ? spire_metricset_find(set, item) : NULL;
			char key[256];
			spire_event_key(def ? def->event : item, key, sizeof(key));
			if (!(keys[*n] = strdup(key))) {
				spire_metric_keys_free(keys, *n);
				keys = NULL;
				*n = 0;
				break;
			}
			(*n)++;
		}
		if (last)
			break;
		item = p + 1;
	}
	free(items);
	return keys;
}
