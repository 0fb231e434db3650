/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Count sets from `perf stat -x,` output. perf prints one line per event:
 *   value,unit,event,[variance%,]run-time-ns,percent-running[,metric,unit[,threshold]]
 * (the threshold from newer perf), lines of a metric alone after them, an
 * interval timestamp first under -I and a CPU/aggregate id first under
 * -A/--per-*. perf has already scaled the value it prints. */
#include "td_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

/* perf prints raw encodings as they were given, commas included:
 * cpu/event=0x9c,umask=0x1/ is one field. */
static int split_fields(char *line, char sep, char **f)
{
	int n = 0;
	bool in_term = false;
	f[n++] = line;
	for (char *p = line; *p; p++) {
		if (*p == '/')
			in_term = !in_term;
		else if (*p == sep && !in_term) {
			if (n == MAX_FIELDS)
				return -1;
			*p = 0;
			f[n++] = p + 1;
		}
	}
	for (int i = 0; i < n; i++) {
		while (isspace((unsigned char)*f[i]))
			f[i]++;
		char *e = f[i] + strlen(f[i]);
		while (e > f[i] && isspace((unsigned char)e[-1]))
			*--e = 0;
	}
	return n;
}

static bool parse_double(const char *s, double *v)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno && isfinite(*v);
}

static bool is_count_field(const char *s)
{
	double v;
	return s[0] == '<' || parse_double(s, &v);
}

/* From field I on, a metric-only line: perf prints a metric that does
 * not fit on its count's line (the second and later metrics of a group,
 * -M's) on a line of its own, with the same prefix fields, the count, unit
 * and event fields empty, then the metric's value and unit (words, never
 * a number alone) and, in newer perf, its threshold (good, bad or empty). */
static bool metric_only_at(char **f, int n, int i)
{
	double v;
	if (i + 2 >= n || *f[i] || *f[i + 1] || *f[i + 2])
		return false;
	for (int j = i + 3; j < n; j++)
		if (*f[j] && !parse_double(f[j], &v))
			return true;
	return false;
}

/* where a line's count (or a metric-only line) starts at field I */
static bool count_at(char **f, int n, int i)
{
	return i < n && (is_count_field(f[i]) || metric_only_at(f, n, i));
}

/* Fields before the count: a -I timestamp (a decimal number followed by a
 * count, or by an id and a count),
 * an -A/--per-* id (not a count, followed by a count), and with --per-socket
 * and --per-core the number of CPUs aggregated (a count followed by a count:
 * the unit after a real count is never a number). */
static int prefix_fields(char **f, int n)
{
	int skip = 0;
	double v;
	if (n > 2 && parse_double(f[0], &v) && strchr(f[0], '.') &&
	    (count_at(f, n, 1) || (n > 3 && *f[1] && !is_count_field(f[1]) && count_at(f, n, 2))))
		skip = 1;
	if (n > skip + 2 && !is_count_field(f[skip]) && *f[skip] && count_at(f, n, skip + 1))
		skip++;
	if (skip && n > skip + 2 && is_count_field(f[skip]) && f[skip][0] != '<' && count_at(f, n, skip + 1))
		skip++;
	return skip;
}

/* ------------------------------------------------------------ indexes --- */
/* Hash tables (open addressing, linear probing, at most half full), so
 * that each line finds the lines and entries before it in constant time:
 * an hour of perf stat -I 100 is millions of lines. The hash has no secret
 * seed: a file made for its keys to collide is slow, never misread. */

/* splitmix64's finalizer: every bit of X moves every bit of the result */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* FNV-1a over the bytes, then mixed */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return mix64(h ^ len);
}

/* byte strings (copied) to numbers */
struct name_slot {
	char *key;		/* NULL: free */
	size_t len;
	uint64_t hash;
	size_t value;
};

struct name_index {
	struct name_slot *slot;
	size_t cap, n;		/* cap: 0 or a power of two */
};

/* KEY's slot, or the free one where it would go */
static struct name_slot *name_slot(const struct name_index *ix, const char *key, size_t len, uint64_t hash)
{
	size_t mask = ix->cap - 1;
	for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
		struct name_slot *sl = &ix->slot[i];
		if (!sl->key || (sl->hash == hash && sl->len == len && !memcmp(sl->key, key, len)))
			return sl;
	}
}

static int name_index_grow(struct name_index *ix)
{
	size_t cap = ix->cap ? 2 * ix->cap : 64;
	struct name_slot *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	struct name_index bigger = { slot, cap, ix->n };
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slot[i].key)
			*name_slot(&bigger, ix->slot[i].key, ix->slot[i].len, ix->slot[i].hash) = ix->slot[i];
	free(ix->slot);
	*ix = bigger;
	return 0;
}

/* The value of KEY (LEN bytes) in *VALUE; a KEY not there yet is added
 * with NEW_VALUE and *ADDED set. -1 on out of memory. */
static int name_index_get(struct name_index *ix, const char *key, size_t len, size_t new_value, size_t *value,
			  bool *added)
{
	if (2 * (ix->n + 1) > ix->cap && name_index_grow(ix))
		return -1;
	uint64_t hash = hash_bytes(key, len);
	struct name_slot *sl = name_slot(ix, key, len, hash);
	*added = !sl->key;
	if (*added) {
		char *copy = malloc(len + 1);
		if (!copy)
			return -1;
		memcpy(copy, key, len);
		copy[len] = 0;
		*sl = (struct name_slot){ copy, len, hash, new_value };
		ix->n++;
	}
	*value = sl->value;
	return 0;
}

static void name_index_free(struct name_index *ix)
{
	for (size_t i = 0; i < ix->cap; i++)
		free(ix->slot[i].key);
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

/* pairs of numbers below 2^31 (of lines, and of the names of lines: lines
 * are counted in an int) to numbers */
#define PAIR_FREE UINT64_MAX	/* the key of a free slot, no pair's */

struct pair_slot {
	uint64_t key;
	size_t value;
};

struct pair_index {
	struct pair_slot *slot;
	size_t cap, n;		/* cap: 0 or a power of two */
};

static uint64_t pair_key(size_t a, size_t b)
{
	return (uint64_t)a << 32 | (uint64_t)b;
}

static struct pair_slot *pair_slot(const struct pair_index *ix, uint64_t key)
{
	size_t mask = ix->cap - 1;
	for (size_t i = (size_t)mix64(key) & mask;; i = (i + 1) & mask)
		if (ix->slot[i].key == key || ix->slot[i].key == PAIR_FREE)
			return &ix->slot[i];
}

static int pair_index_grow(struct pair_index *ix)
{
	size_t cap = ix->cap ? 2 * ix->cap : 64;
	struct pair_slot *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < cap; i++)
		slot[i].key = PAIR_FREE;
	struct pair_index bigger = { slot, cap, ix->n };
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slot[i].key != PAIR_FREE)
			*pair_slot(&bigger, ix->slot[i].key) = ix->slot[i];
	free(ix->slot);
	*ix = bigger;
	return 0;
}

/* KEY's value in *VALUE (valid until the next addition), added with
 * NEW_VALUE when it is not there yet (*ADDED set); -1 on out of memory. */
static int pair_index_get(struct pair_index *ix, uint64_t key, size_t new_value, size_t **value, bool *added)
{
	if (2 * (ix->n + 1) > ix->cap && pair_index_grow(ix))
		return -1;
	struct pair_slot *sl = pair_slot(ix, key);
	*added = sl->key == PAIR_FREE;
	if (*added) {
		*sl = (struct pair_slot){ key, new_value };
		ix->n++;
	}
	*value = &sl->value;
	return 0;
}

static void pair_index_free(struct pair_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

/* ------------------------------------------------------- count sets --- */
/* Lines that repeat an event under another timestamp or CPU are summed into
 * one entry; the k-th occurrence of an event under the same prefix (the same
 * event in two groups) stays a separate entry, which the engine averages. */
struct import_ctx {
	struct td_countset *cs;
	struct name_index names;	/* prefixes and events, numbered in order of first sight */
	struct pair_index lines;	/* (prefix, event) -> lines of it so far */
	struct pair_index entries;	/* (event, k) -> its count set entry */
	char *err;
	size_t errlen;
};

/* the number of the prefix or event NAME; -1 on out of memory */
static int name_number(struct import_ctx *ic, const char *name, size_t *number)
{
	bool added;
	return name_index_get(&ic->names, name, strlen(name), ic->names.n, number, &added);
}

static int record_line(struct import_ctx *ic, const struct td_perf_line *l)
{
	struct td_countset *cs = ic->cs;
	size_t prefix, event, *seen, *entry;
	bool added;
	if (name_number(ic, l->prefix, &prefix) || name_number(ic, l->event, &event) ||
	    pair_index_get(&ic->lines, pair_key(prefix, event), 0, &seen, &added))
		return -1;
	size_t k = (*seen)++;	/* this line is the k-th of its event under its prefix */
	if (pair_index_get(&ic->entries, pair_key(event, k), cs->n, &entry, &added))
		return -1;
	if (added)
		return l->counted ? td_countset_add(cs, l->event, l->value * l->running / l->enabled, l->enabled,
						    l->running)
				  : td_countset_add_uncounted(cs, l->event, l->why_not);
	if (l->counted) {
		struct td_count *c = &cs->c[*entry];
		double scaled = c->counted ? c->raw * c->enabled / c->running : 0;
		c->enabled = (c->counted ? c->enabled : 0) + l->enabled;
		c->running = (c->counted ? c->running : 0) + l->running;
		c->raw = (scaled + l->value) * c->running / c->enabled;
		c->counted = true;
	}
	return 0;
}

int td_perf_csv_read(FILE *in, const char *origin, const struct td_perf_reader *rd, char *err,
		     size_t errlen)
{
	char *prefix = NULL;	/* the fields before the count, each followed by '/' */
	size_t prefix_cap = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, records = 0, rc = -1;
	char sep = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		bool complete = len > 0 && line[len - 1] == '\n';
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		char *p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (memchr(line, 0, (size_t)len)) {
			td_seterr(err, errlen, "%s:%d: binary data, not perf stat -x output", origin, lineno);
			goto out;
		}
		if (*p == '#') {
			if (rd->comment) {
				p++;
				while (isspace((unsigned char)*p))
					p++;
				rd->comment(rd->ctx, p);
			}
			continue;
		}
		if (!*p)
			continue;
		if (!sep)	/* -x takes any separator; ',' unless the line says otherwise */
			sep = strchr(p, ',') ? ',' : strchr(p, ';') ? ';' : strchr(p, '\t') ? '\t' : ',';
		char *f[MAX_FIELDS];
		int n = split_fields(p, sep, f);
		if (n < 0) {
			td_seterr(err, errlen, "%s:%d: too many fields for perf stat -x output", origin, lineno);
			goto out;
		}
		int s = prefix_fields(f, n);
		char **g = f + s;
		int m = n - s;
		if (metric_only_at(g, m, 0))
			continue;	/* perf's arithmetic on counts, not a count */
		/* at most the line itself plus a '/' per field: never cut, so
		 * that two long prefixes stay two */
		if ((size_t)len + (size_t)s + 1 > prefix_cap) {
			size_t ncap = (size_t)len + (size_t)s + 1;
			char *np = realloc(prefix, ncap);
			if (!np) {
				td_seterr(err, errlen, "%s:%d: out of memory", origin, lineno);
				goto out;
			}
			prefix = np;
			prefix_cap = ncap;
		}
		size_t plen = 0;
		for (int i = 0; i < s; i++) {
			size_t fl = strlen(f[i]);
			memcpy(prefix + plen, f[i], fl);
			plen += fl;
			prefix[plen++] = '/';
		}
		prefix[plen] = 0;
		struct td_perf_line pl = { .lineno = lineno, .prefix = prefix, .interval = NAN, .id = "" };
		/* which prefix field is which: see prefix_fields */
		int k = 0;
		double ts;
		if (s > 0 && parse_double(f[0], &ts) && strchr(f[0], '.')) {
			pl.interval = ts;
			k = 1;
		}
		if (k < s && !is_count_field(f[k]))
			pl.id = f[k];
		/* perf stat -r adds a variance field ("0.12%") after the event */
		int var = m >= 6 && strchr(g[3], '%') ? 1 : 0;
		if (m < 5 + var) {
			td_seterr(err, errlen,
				  "%s:%d: %s: expected 'value%cunit%cevent%crun-time%cpercent' (perf stat -x%c), got %d field%s",
				  origin, lineno, complete ? "malformed line" : "truncated line",
				  sep, sep, sep, sep, sep, m, m == 1 ? "" : "s");
			goto out;
		}
		const char *value = g[0];
		const char *run_s = g[3 + var], *pct_s = g[4 + var];
		double v, run, pct;
		pl.event = g[2];
		if (!*pl.event) {
			td_seterr(err, errlen, "%s:%d: empty event name", origin, lineno);
			goto out;
		}
		char why[64];
		if (value[0] == '<') {
			/* <not counted>, <not supported> */
			snprintf(why, sizeof(why), "perf said %s", value);
			pl.why_not = why;
		} else {
			if (!parse_double(value, &v) || v < 0) {
				td_seterr(err, errlen, "%s:%d: event %s: count '%s' is not a non-negative number",
					  origin, lineno, pl.event, value);
				goto out;
			}
			if (!parse_double(run_s, &run) || run < 0) {
				td_seterr(err, errlen, "%s:%d: event %s: run time '%s' is not a non-negative number%s",
					  origin, lineno, pl.event, run_s, complete ? "" : " (truncated line)");
				goto out;
			}
			if (!parse_double(pct_s, &pct) || pct < 0 || pct > 100.0001) {
				td_seterr(err, errlen, "%s:%d: event %s: running percentage '%s' is not in [0,100]%s",
					  origin, lineno, pl.event, pct_s, complete ? "" : " (truncated line)");
				goto out;
			}
			if (pct == 0 || run == 0) {
				pl.why_not = "perf ran it 0% of the time";
			} else {
				/* value is scaled already: enabled is rebuilt from run and pct */
				pl.counted = true;
				pl.value = v;
				pl.enabled = run * 100.0 / pct;
				pl.running = run;
			}
		}
		records++;
		if (rd->line(rd->ctx, &pl))
			goto out;
	}
	if (ferror(in)) {
		td_seterr(err, errlen, "%s: read error: %s", origin, strerror(errno));
		goto out;
	}
	if (!records) {
		td_seterr(err, errlen, "%s: no counts found (expected output of perf stat -x,)", origin);
		goto out;
	}
	rc = 0;
out:
	free(prefix);
	free(line);
	return rc;
}

static int import_line(void *ctx, const struct td_perf_line *l)
{
	struct import_ctx *ic = ctx;
	if (record_line(ic, l)) {
		td_seterr(ic->err, ic->errlen, "out of memory");
		return -1;
	}
	return 0;
}

int td_import_perf_csv(FILE *in, const char *origin, struct td_countset *cs,
		       char *err, size_t errlen)
{
	struct import_ctx ic = { .cs = cs, .err = err, .errlen = errlen };
	struct td_perf_reader rd = { .ctx = &ic, .line = import_line };
	int rc = td_perf_csv_read(in, origin, &rd, err, errlen);
	name_index_free(&ic.names);
	pair_index_free(&ic.lines);
	pair_index_free(&ic.entries);
	return rc;
}

/* ------------------------------------------------------ region counts --- */
#define REGION_LINE_MAX 65536

/* the line without its end and surrounding blanks */
static char *trimmed(char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = 0;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static bool is_region_header(const char *line)
{
	return !strcasecmp(line, "region,event,value");
}

bool td_is_region_csv(FILE *in)
{
	char *buf = malloc(REGION_LINE_MAX);
	bool yes = false;
	while (buf && fgets(buf, REGION_LINE_MAX, in)) {
		char *l = trimmed(buf);
		if (!*l || *l == '#')
			continue;
		yes = is_region_header(l);
		break;
	}
	free(buf);
	rewind(in);
	return yes;
}

/* REGION unquoted: "a ""b""" -> a "b"; perf's "[.] " dropped */
static char *region_name(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	size_t k = 0;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++) {
			if (s[i] == '"' && i + 2 < n && s[i + 1] == '"')
				i++;
			out[k++] = s[i];
		}
	} else {
		memcpy(out, s, n);
		k = n;
	}
	out[k] = 0;
	if (k >= 4 && out[0] == '[' && (out[1] == '.' || out[1] == 'k') && out[2] == ']' && out[3] == ' ')
		memmove(out, out + 4, k - 3);
	return out;
}

/* REGION's EVENT row added, or VALUE added to it; ROWS_OF finds it:
 * "region\0event" -> its index. Takes REGION and EVENT. */
static int add_region_row(struct td_region_rows *rows, struct name_index *rows_of, char *region, char *event,
			  double value)
{
	size_t rl = strlen(region), el = strlen(event), i;
	char *key = malloc(rl + el + 2);
	bool added = false;
	int rc = -1;
	if (key) {
		memcpy(key, region, rl + 1);
		memcpy(key + rl + 1, event, el + 1);
		rc = name_index_get(rows_of, key, rl + el + 1, rows->n, &i, &added);
		free(key);
	}
	if (!rc && !added) {
		rows->v[i].value += value;
		free(region);
		free(event);
		return 0;
	}
	if (!rc && rows->n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 64;
		struct td_region_row *v = realloc(rows->v, cap * sizeof *v);
		if (v) {
			rows->v = v;
			rows->cap = cap;
		} else {
			rc = -1;
		}
	}
	if (rc) {
		free(region);
		free(event);
		return -1;
	}
	rows->v[rows->n++] = (struct td_region_row){ region, event, value };
	return 0;
}

int td_import_region_csv(FILE *in, const char *origin, struct td_region_rows *rows, char *err, size_t errlen)
{
	memset(rows, 0, sizeof *rows);
	char *buf = malloc(REGION_LINE_MAX);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int lineno = 0, rc = 0;
	bool header = false;
	struct name_index rows_of = { 0 };
	while (fgets(buf, REGION_LINE_MAX, in)) {
		lineno++;
		size_t raw = strlen(buf);
		if (raw == REGION_LINE_MAX - 1 && buf[raw - 1] != '\n') {
			snprintf(err, errlen, "%s:%d: a line longer than %d bytes", origin, lineno, REGION_LINE_MAX - 2);
			rc = -1;
			break;
		}
		char *l = trimmed(buf);
		if (!*l || *l == '#')
			continue;
		if (!header) {
			if (!is_region_header(l)) {
				snprintf(err, errlen, "%s:%d: not per-region counts: the first line must be "
					 "'region,event,value'", origin, lineno);
				rc = -1;
				break;
			}
			header = true;
			continue;
		}
		char *c2 = strrchr(l, ',');
		char *c1 = NULL;
		for (char *p = c2 ? c2 - 1 : NULL; p && p >= l; p--)
			if (*p == ',') {
				c1 = p;
				break;
			}
		if (!c1) {
			snprintf(err, errlen, "%s:%d: '%.80s' is not 'region,event,value'", origin, lineno, l);
			rc = -1;
			break;
		}
		char *end;
		errno = 0;
		double value = strtod(c2 + 1, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == c2 + 1 || *end || errno == ERANGE || !isfinite(value) || value < 0) {
			snprintf(err, errlen, "%s:%d: the value '%.40s' is not a count (a number at or above 0)", origin,
				 lineno, c2 + 1);
			rc = -1;
			break;
		}
		char *event = region_name(c1 + 1, (size_t)(c2 - c1 - 1));
		char *region = region_name(l, (size_t)(c1 - l));
		if (!event || !region) {
			free(event);
			free(region);
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		if (!*event || !*region) {
			snprintf(err, errlen, "%s:%d: an empty %s", origin, lineno, *region ? "event" : "region");
			free(event);
			free(region);
			rc = -1;
			break;
		}
		if (add_region_row(rows, &rows_of, region, event, value)) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(in)) {
		snprintf(err, errlen, "%s: %s", origin, strerror(errno));
		rc = -1;
	}
	if (!rc && !header) {
		snprintf(err, errlen, "%s: empty: no 'region,event,value' header", origin);
		rc = -1;
	}
	if (!rc && !rows->n) {
		snprintf(err, errlen, "%s: no counts in the file", origin);
		rc = -1;
	}
	free(buf);
	name_index_free(&rows_of);
	if (rc)
		td_region_rows_free(rows);
	return rc;
}

void td_region_rows_free(struct td_region_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++) {
		free(rows->v[i].region);
		free(rows->v[i].event);
	}
	free(rows->v);
	memset(rows, 0, sizeof *rows);
}
