/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SPIRE sample sets: event names, the grouping of one interval's counts
 * into samples (T, W, M), and perf stat -I -x output read through
 * topdown's perf CSV reader. */
#include "spire.h"
#include "spire_internal.h"
#include "topdown.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- names --- */

/* perf's event modifier letters (tools/perf/util/parse-events.l: u k h
 * user/kernel/hypervisor, p precise level, P max precise, G guest, H host);
 * LOWER_ONLY: only the lower-case ones (libpfm4's own modifiers, :u :k :h,
 * are lower case, its unit masks upper case) */
static bool is_modifier_letter(char c, bool lower_only)
{
	return c && strchr(lower_only ? "ukhp" : "ukhpPGH", c) != NULL;
}

/* S[0..LEN) is one or more modifier letters (':' allowed between them when
 * COLONS) */
static bool all_modifiers(const char *s, size_t len, bool colons, bool lower_only)
{
	bool letter = false;
	for (size_t i = 0; i < len; i++) {
		if (colons && s[i] == ':')
			continue;
		if (!is_modifier_letter(s[i], lower_only))
			return false;
		letter = true;
	}
	return letter;
}

void spire_event_key(const char *name, char *out, size_t outlen)
{
	if (!outlen)
		return;
	out[0] = 0;
	if (!name)
		return;
	while (isspace((unsigned char)*name))
		name++;
	size_t len = strlen(name);
	while (len && isspace((unsigned char)name[len - 1]))
		len--;

	const char *slash = memchr(name, '/', len);
	if (slash) {
		/* a pmu/term,.../ event: the modifiers follow the last '/' */
		const char *last = name + len;
		while (last > name && last[-1] != '/')
			last--;
		if (last > slash && all_modifiers(last, (size_t)(name + len - last), true, false))
			len = (size_t)(last - name);
	} else {
		/* libpfm4 writes events and unit masks in upper case
		 * ("UNC_H_TRACKER_CYCLES_FULL:GP"): after an event name with no
		 * lower-case letter, an upper-case letter makes a ':' part a
		 * unit mask, and only lower-case modifier letters are dropped */
		bool upper = false, lower = false;
		for (size_t i = 0; i < len && name[i] != ':'; i++) {
			upper |= isupper((unsigned char)name[i]) != 0;
			lower |= islower((unsigned char)name[i]) != 0;
		}
		bool pfm_style = upper && !lower;
		/* trailing ":mods" segments, as long as an event name stays */
		for (;;) {
			const char *colon = NULL;
			for (size_t i = len; i > 0; i--)
				if (name[i - 1] == ':') {
					colon = name + i - 1;
					break;
				}
			if (!colon || colon == name)
				break;
			size_t seg = (size_t)(name + len - colon - 1);
			if (!all_modifiers(colon + 1, seg, false, pfm_style))
				break;
			len = (size_t)(colon - name);
		}
	}

	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < outlen; i++) {
		char c = name[i];
		if (c == ':' && !slash)
			c = '.';
		out[o++] = (char)tolower((unsigned char)c);
	}
	out[o] = 0;
}

/* the key of NAME in BUF (KEYBUF bytes), or malloc'ed when longer; NULL
 * on out of memory. key_done frees what key_tmp allocated. */
#define KEYBUF 256
static char *key_tmp(const char *name, char *buf)
{
	size_t n = strlen(name) + 1;
	char *k = n <= KEYBUF ? buf : malloc(n);
	if (k)
		spire_event_key(name, k, n);
	return k;
}

static void key_done(char *k, char *buf)
{
	if (k != buf)
		free(k);
}

/* T and W are recognised wrapped in a core PMU too, as perf names them on
 * hybrid CPUs ("cpu_core/cycles/", "cpu_atom/instructions/u"): a key
 * "PMU/NAME/" with PMU cpu, cpu_* or armv* (ARM's core PMUs) and NAME a
 * plain event name (no "term=value", no ',') becomes NAME's key, in place. */
static void unwrap_core_pmu(char *k)
{
	char *s1 = strchr(k, '/');
	if (!s1)
		return;
	size_t pl = (size_t)(s1 - k);
	bool core = (pl == 3 && !strncmp(k, "cpu", 3)) || (pl > 4 && !strncmp(k, "cpu_", 4)) ||
		    (pl > 4 && !strncmp(k, "armv", 4));
	char *inner = s1 + 1, *s2 = strchr(inner, '/');
	if (!core || !s2 || s2 == inner || s2[1])
		return;
	size_t il = (size_t)(s2 - inner);
	if (memchr(inner, '=', il) || memchr(inner, ',', il))
		return;
	char buf[KEYBUF];
	char *tmp = il < KEYBUF ? buf : malloc(il + 1);
	if (!tmp)
		return;
	memcpy(tmp, inner, il);
	tmp[il] = 0;
	spire_event_key(tmp, k, il + 1);	/* "inst_retired:any" reads as "inst_retired.any" */
	if (tmp != buf)
		free(tmp);
}

/* the key of NAME as T or W are compared (key_tmp, unwrapped) */
static char *tw_key_tmp(const char *name, char *buf)
{
	char *k = key_tmp(name, buf);
	if (k)
		unwrap_core_pmu(k);
	return k;
}

static bool tw_eq(const char *a, const char *b)
{
	char ba[KEYBUF], bb[KEYBUF];
	char *ka = tw_key_tmp(a, ba), *kb = tw_key_tmp(b, bb);
	bool eq = ka && kb && !strcmp(ka, kb);
	key_done(ka, ba);
	key_done(kb, bb);
	return eq;
}

static bool tw_in(const char *name, const char *const *set, size_t n)
{
	char buf[KEYBUF];
	char *k = tw_key_tmp(name, buf);
	bool in = false;
	for (size_t i = 0; k && i < n && !in; i++)
		in = !strcmp(k, set[i]);
	key_done(k, buf);
	return in;
}

static bool is_event(const char *name, const char *event, const char *dflt, const char *const *aliases,
		     size_t naliases)
{
	if (!name)
		return false;
	if (!event || tw_eq(event, dflt))
		return tw_in(name, aliases, naliases);
	return tw_eq(name, event);
}

static const char *const time_aliases[] = { "cpu_clk_unhalted.thread", "cpu_clk_unhalted.thread_p",
					    "cycles", "cpu-cycles" };
static const char *const work_aliases[] = { "inst_retired.any", "inst_retired.any_p", "instructions" };

bool spire_is_time_event(const char *name, const char *time_event)
{
	return is_event(name, time_event, SPIRE_DEFAULT_TIME, time_aliases,
			sizeof(time_aliases) / sizeof(time_aliases[0]));
}

bool spire_is_work_event(const char *name, const char *work_event)
{
	return is_event(name, work_event, SPIRE_DEFAULT_WORK, work_aliases,
			sizeof(work_aliases) / sizeof(work_aliases[0]));
}

void spire_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* -------------------------------------------------------- samples --- */

int spire_sampleset_init(struct spire_sampleset *ss, const char *time_event, const char *work_event)
{
	memset(ss, 0, sizeof(*ss));
	ss->time_event = strdup(time_event ? time_event : SPIRE_DEFAULT_TIME);
	ss->work_event = strdup(work_event ? work_event : SPIRE_DEFAULT_WORK);
	if (!ss->time_event || !ss->work_event) {
		spire_sampleset_free(ss);
		return -1;
	}
	return 0;
}

void spire_sampleset_free(struct spire_sampleset *ss)
{
	if (!ss)
		return;
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->metrics[i].metric);
		free(ss->metrics[i].label);
		free(ss->metrics[i].s);
	}
	free(ss->metrics);
	free(ss->cpu);
	free(ss->time_event);
	free(ss->work_event);
	memset(ss, 0, sizeof(*ss));
}

int spire_sampleset_set_cpu(struct spire_sampleset *ss, const char *cpu)
{
	char *c = NULL;
	if (cpu && !(c = strdup(cpu)))
		return -1;
	free(ss->cpu);
	ss->cpu = c;
	return 0;
}

static struct spire_metric_samples *find_key(const struct spire_sampleset *ss, const char *key)
{
	for (size_t i = 0; i < ss->n; i++)
		if (!strcmp(ss->metrics[i].metric, key))
			return &ss->metrics[i];
	return NULL;
}

const struct spire_metric_samples *spire_sampleset_find(const struct spire_sampleset *ss, const char *name)
{
	if (!ss || !name)
		return NULL;
	char buf[KEYBUF];
	char *k = key_tmp(name, buf);
	if (!k)
		return NULL;
	const struct spire_metric_samples *ms = find_key(ss, k);
	key_done(k, buf);
	return ms;
}

/* the metric's entry, made on first use; NULL on out of memory */
static struct spire_metric_samples *metric_entry(struct spire_sampleset *ss, const char *name)
{
	char buf[KEYBUF];
	char *tk = key_tmp(name, buf);
	if (!tk)
		return NULL;
	struct spire_metric_samples *ms = find_key(ss, tk);
	char *k = ms || tk != buf ? tk : strdup(buf);	/* a new metric owns its key */
	if (ms || !k) {
		key_done(tk, buf);
		return ms;
	}
	struct spire_metric_samples *nm = realloc(ss->metrics, (ss->n + 1) * sizeof(*nm));
	if (!nm) {
		free(k);
		return NULL;
	}
	ss->metrics = nm;
	ms = &ss->metrics[ss->n];
	memset(ms, 0, sizeof(*ms));
	ms->metric = k;
	if (!(ms->label = strdup(name))) {
		free(k);
		return NULL;
	}
	ss->n++;
	return ms;
}

static int append(struct spire_sampleset *ss, const char *metric, double t, double w, double m, double time)
{
	struct spire_metric_samples *ms = metric_entry(ss, metric);
	if (!ms)
		return -1;
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap : 16;
		struct spire_sample *s = realloc(ms->s, cap * sizeof(*s));
		if (!s)
			return -1;
		ms->s = s;
		ms->cap = cap;
	}
	ms->s[ms->n++] = (struct spire_sample){ .t = t, .w = w, .m = m, .time = time };
	return 0;
}

/* 0: usable; else the skip counter that gets the sample */
static size_t *why_unusable(struct spire_sampleset *ss, double t, double w, double m)
{
	if (!isfinite(t) || !isfinite(w) || !isfinite(m) || t < 0 || w < 0 || m < 0)
		return &ss->skips.bad_value;
	if (t == 0)
		return &ss->skips.zero_t;
	if (w == 0)
		return &ss->skips.zero_w;
	return NULL;
}

int spire_sampleset_add(struct spire_sampleset *ss, const char *metric, double t, double w, double m,
			double time)
{
	size_t *skip = why_unusable(ss, t, w, m);
	if (skip) {
		(*skip)++;
		return 0;
	}
	return append(ss, metric, t, w, m, time);
}

static bool usable(const struct spire_count *c)
{
	return c && c->counted && isfinite(c->value) && c->value > 0;
}

/* a running time that says something: unknown ones (NaN, 0: perf printed
 * none, or the count did not run) pair by position only */
static bool known_running(double r)
{
	return isfinite(r) && r > 0;
}

/* the running times of one event group: perf prints the same run time for
 * every member, gus reads a group at once */
static bool same_running(double a, double b)
{
	return a == b || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

enum count_kind { K_NONE, K_METRIC, K_TIME, K_WORK };

/* The count of KIND in C[0..N) whose running time is RUN: one in
 * [START, END) (the metric's segment) when there is one, else the nearest
 * to position I (the earlier on a tie); NULL when none. */
static const struct spire_count *group_partner(const struct spire_count *c, const unsigned char *kind, size_t n,
					       enum count_kind want, size_t start, size_t end, size_t i, double run)
{
	const struct spire_count *best = NULL;
	size_t bd = 0;
	for (size_t j = 0; j < n; j++) {
		if (kind[j] != want || !same_running(c[j].running, run))
			continue;
		if (j >= start && j < end)
			return &c[j];
		size_t d = j < i ? i - j : j - i;
		if (!best || d < bd) {
			best = &c[j];
			bd = d;
		}
	}
	return best;
}

int spire_sampleset_add_interval(struct spire_sampleset *ss, const struct spire_count *c, size_t n,
				 char *err, size_t errlen)
{
	unsigned char kbuf[64];
	unsigned char *kind = n <= sizeof(kbuf) ? kbuf : malloc(n);
	if (!kind) {
		spire_seterr(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *ev = c[i].event;
		if (!ev)
			kind[i] = K_NONE;
		else if (spire_is_time_event(ev, ss->time_event))
			kind[i] = K_TIME;
		else if (spire_is_work_event(ev, ss->work_event))
			kind[i] = K_WORK;
		else
			kind[i] = K_METRIC;
	}
	double sum_t = 0, sum_w = 0;
	size_t n_t = 0, n_w = 0, samples = 0;
	bool have_tw = false;
	size_t start = 0;
	int rc = 0;
	while (start < n) {
		/* one segment: [start, end) */
		const struct spire_count *t = NULL, *w = NULL;
		size_t end = start;
		for (; end < n; end++) {
			if ((kind[end] == K_TIME && t) || (kind[end] == K_WORK && w))
				break;
			if (kind[end] == K_TIME)
				t = &c[end];
			else if (kind[end] == K_WORK)
				w = &c[end];
		}
		if (usable(t)) {
			sum_t += t->value;
			n_t++;
		}
		if (usable(w)) {
			sum_w += w->value;
			n_w++;
		}
		if (usable(t) && usable(w))
			have_tw = true;
		for (size_t i = start; i < end; i++) {
			const struct spire_count *mc = &c[i];
			if (kind[i] != K_METRIC)
				continue;
			/* its group's T and W: those that ran exactly as long */
			const struct spire_count *mt = t, *mw = w;
			bool simultaneous = false;
			if (known_running(mc->running)) {
				const struct spire_count *gt =
					group_partner(c, kind, n, K_TIME, start, end, i, mc->running);
				const struct spire_count *gw =
					group_partner(c, kind, n, K_WORK, start, end, i, mc->running);
				if (gt && gw) {
					mt = gt;
					mw = gw;
					simultaneous = true;
				} else if (gt || gw) {
					/* in a group with T but no W, or W but no T */
					ss->skips.no_group++;
					continue;
				}
			}
			if (!mt || !mw) {
				ss->skips.no_group++;
				continue;
			}
			if (!mt->counted || !mw->counted || !mc->counted) {
				ss->skips.not_counted++;
				continue;
			}
			size_t *skip = why_unusable(ss, mt->value, mw->value, mc->value);
			if (skip) {
				(*skip)++;
				continue;
			}
			if (!simultaneous && known_running(mc->running) &&
			    ((known_running(mt->running) && !same_running(mc->running, mt->running)) ||
			     (known_running(mw->running) && !same_running(mc->running, mw->running))))
				ss->skips.not_simultaneous++;
			if (append(ss, mc->event, mt->value, mw->value, mc->value, mc->time)) {
				spire_seterr(err, errlen, "out of memory");
				rc = -1;
				goto out;
			}
			samples++;
		}
		start = end;
	}
	if (!have_tw && n)
		ss->skips.intervals_without_tw++;
	if (samples && n_t && n_w) {
		ss->total_t += sum_t / (double)n_t;
		ss->total_w += sum_w / (double)n_w;
		ss->intervals++;
	}
out:
	if (kind != kbuf)
		free(kind);
	return rc;
}

/* ------------------------------------------------- perf stat -I -x --- */

struct owned_count {
	double time;
	char *id;
	char *event;
	double value, enabled, running;
	bool counted;
};

struct import_ctx {
	struct spire_sampleset *ss;
	const char *origin;
	struct owned_count *c;	/* the lines of the current timestamp */
	size_t n, cap;
	struct spire_count *batch;	/* one id's counts, for add_interval */
	size_t batch_cap;
	size_t lines;
	bool failed;
	char err[SPIRE_ERRLEN];
};

static void clear_counts(struct import_ctx *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->c[i].id);
		free(x->c[i].event);
	}
	x->n = 0;
}

static void import_fail(struct import_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void import_fail(struct import_ctx *x, const char *fmt, ...)
{
	if (x->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
	x->failed = true;
}

/* The lines of one timestamp, to add_interval id by id (ids in order of
 * first appearance, each id's lines in file order): perf prints -A output
 * event by event, each event for every CPU, so one id's lines need not be
 * consecutive. */
static int flush(struct import_ctx *x)
{
	if (x->cap > x->batch_cap) {
		struct spire_count *b = realloc(x->batch, x->cap * sizeof(*b));
		if (!b)
			goto oom;
		x->batch = b;
		x->batch_cap = x->cap;
	}
	for (size_t i = 0; i < x->n; i++) {
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(x->c[j].id, x->c[i].id) != 0;
		if (!first)
			continue;
		size_t nb = 0;
		for (size_t j = i; j < x->n; j++) {
			if (strcmp(x->c[j].id, x->c[i].id))
				continue;
			x->batch[nb++] = (struct spire_count){
				.time = x->c[j].time,
				.id = x->c[j].id,
				.event = x->c[j].event,
				.value = x->c[j].value,
				.enabled = x->c[j].enabled,
				.running = x->c[j].running,
				.counted = x->c[j].counted,
			};
		}
		if (spire_sampleset_add_interval(x->ss, x->batch, nb, NULL, 0))
			goto oom;
	}
	clear_counts(x);
	return 0;
oom:
	clear_counts(x);
	import_fail(x, "%s: out of memory", x->origin);
	return -1;
}

static int on_line(void *ctx, const struct td_perf_line *l)
{
	struct import_ctx *x = ctx;
	if (x->failed)
		return 1;
	x->lines++;
	if (isnan(l->interval)) {
		import_fail(x, "%s:%d: not perf stat -I output: line %d has no interval timestamp", x->origin,
			    l->lineno, l->lineno);
		return 1;
	}
	if (x->n && x->c[x->n - 1].time != l->interval && flush(x))
		return 1;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 32;
		struct owned_count *nc = realloc(x->c, cap * sizeof(*nc));
		if (!nc) {
			import_fail(x, "%s: out of memory", x->origin);
			return 1;
		}
		x->c = nc;
		x->cap = cap;
	}
	struct owned_count *oc = &x->c[x->n];
	oc->id = strdup(l->id ? l->id : "");
	oc->event = strdup(l->event ? l->event : "");
	if (!oc->id || !oc->event) {
		free(oc->id);
		free(oc->event);
		import_fail(x, "%s: out of memory", x->origin);
		return 1;
	}
	oc->time = l->interval;
	oc->value = l->value;
	oc->enabled = l->enabled;
	oc->running = l->running;
	oc->counted = l->counted;
	x->n++;
	return 0;
}

/* "KEY: VALUE" comment: VALUE (blanks trimmed, in BUF) or NULL */
static const char *comment_value(const char *text, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	if (strncmp(text, key, kl))
		return NULL;
	text += kl;
	while (*text == ' ' || *text == '\t')
		text++;
	if (*text != ':')
		return NULL;
	text++;
	while (isspace((unsigned char)*text))
		text++;
	snprintf(buf, len, "%s", text);
	size_t n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return buf;
}

static void on_comment(void *ctx, const char *text)
{
	struct import_ctx *x = ctx;
	char buf[256];
	const char *v;
	if (!text || x->failed)
		return;
	if ((v = comment_value(text, "cpu", buf, sizeof(buf)))) {
		if (*v && !x->ss->cpu && spire_sampleset_set_cpu(x->ss, v))
			import_fail(x, "%s: out of memory", x->origin);
	} else if ((v = comment_value(text, "time", buf, sizeof(buf)))) {
		if (!spire_is_time_event(v, x->ss->time_event))
			import_fail(x, "%s: these counts were taken with T = %s, not %s (# time: %s)", x->origin,
				    v, x->ss->time_event, v);
	} else if ((v = comment_value(text, "work", buf, sizeof(buf)))) {
		if (!spire_is_work_event(v, x->ss->work_event))
			import_fail(x, "%s: these counts were taken with W = %s, not %s (# work: %s)", x->origin,
				    v, x->ss->work_event, v);
	}
}

int spire_import_perf_intervals(FILE *in, const char *origin, struct spire_sampleset *ss, char *err,
				size_t errlen)
{
	struct import_ctx x = { .ss = ss, .origin = origin ? origin : "(input)" };
	struct td_perf_reader rd = { .ctx = &x, .line = on_line, .comment = on_comment };
	char terr[SPIRE_ERRLEN] = "";
	int rc = td_perf_csv_read(in, x.origin, &rd, terr, sizeof(terr));
	if (!x.failed && !rc)
		flush(&x);
	if (!x.failed && !rc && !x.lines)
		import_fail(&x, "%s: no count in the file", x.origin);
	clear_counts(&x);
	free(x.c);
	free(x.batch);
	if (x.failed) {
		spire_seterr(err, errlen, "%s", x.err);
		return -1;
	}
	if (rc) {
		spire_seterr(err, errlen, "%s", terr[0] ? terr : "read error");
		return -1;
	}
	return 0;
}

void spire_sampleset_keep(struct spire_sampleset *ss, const char *const *keys, size_t nkeys)
{
	size_t w = 0;
	for (size_t i = 0; i < ss->n; i++) {
		bool keep = false;
		for (size_t k = 0; k < nkeys && !keep; k++)
			keep = !strcmp(ss->metrics[i].metric, keys[k]);
		if (keep) {
			ss->metrics[w++] = ss->metrics[i];
		} else {
			free(ss->metrics[i].metric);
			free(ss->metrics[i].label);
			free(ss->metrics[i].s);
		}
	}
	ss->n = w;
}
