/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A simulated region's per-instruction rows and its annotated source:
 * where the model's cycles went, by instruction and by source line (the
 * DWARF line table of the region's file), and which instructions are its
 * bottleneck's. What the HTML report shows beside the sensitivity; the
 * renderers compute none of it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outpath.h"
#include "report_internal.h"

/* a bottleneck instruction takes this share of the region's cycles or of
 * a bottleneck resource's capacity */
#define BOTTLENECK_SHARE 0.10
/* the source lines kept per region: the hottest, then in file order */
#define MAX_HOT_LINES 300
/* lines between two hot lines of a file shown as context, at most */
#define CONTEXT_GAP 4
/* a source file larger than this is not read */
#define MAX_SOURCE_BYTES (16u << 20)
/* a line's text is cut here */
#define MAX_LINE_TEXT 400

static bool is_bottleneck_resource(const struct sim_analysis *a, unsigned r)
{
	for (size_t i = 0; i < a->nsens; i++)
		for (unsigned k = 0; a->sens[i].bottleneck && k < a->sens[i].set.n; k++)
			if (a->sens[i].set.res[k] == r)
				return true;
	return false;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

/* the strings of AN (every one its own allocation) */
static const char *keep(struct report_annotation *an, char *s)
{
	char **v = realloc(an->strings, (an->nstrings + 1) * sizeof *v);
	if (!v)
		abort();
	an->strings = v;
	an->strings[an->nstrings++] = s;
	return s;
}

struct hot_line {
	const char *file;	/* kept in AN */
	int line;
	size_t insns;
	uint64_t executions;
	double cycles;
};

static int by_cycles(const void *x, const void *y)
{
	const struct hot_line *a = x, *b = y;
	return a->cycles > b->cycles ? -1 : a->cycles < b->cycles;
}

static int by_place(const void *x, const void *y)
{
	const struct merge_report_srcline *a = x, *b = y;
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

/* FILE's text, read whole when it is a regular file of at most
 * MAX_SOURCE_BYTES (the path is the debug information's: untrusted);
 * NULL when not */
static char *read_source(const char *file, size_t *len)
{
	char err[OUTPATH_ERRLEN];
	int fd = outpath_open_regular(file, err, sizeof err);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size <= MAX_SOURCE_BYTES &&
	    (buf = malloc((size_t)st.st_size + 1))) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		buf[got] = 0;
		*len = got;
	}
	close(fd);
	return buf;
}

/* the text of LINES' entries of one file [FROM, TO), read once */
static void fill_texts(struct report_annotation *an, struct merge_report_srcline *v, size_t from, size_t to)
{
	size_t len = 0;
	char *text = read_source(v[from].file, &len);
	if (!text)
		return;
	int line = 1;
	const char *p = text, *end = text + len;
	for (size_t i = from; i < to && p < end; i++) {
		while (line < v[i].line && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
			line++;
		}
		if (line != v[i].line || p >= end)
			break;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n > MAX_LINE_TEXT)
			n = MAX_LINE_TEXT;
		char *s = malloc(n + 1);
		if (!s)
			abort();
		memcpy(s, p, n);
		s[n] = 0;
		v[i].text = keep(an, s);
	}
	free(text);
}

void report_annotate(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		     uint64_t lo, uint64_t hi, uint64_t bias, struct merge_srclines *lines, const char *why_no_lines,
		     struct report_annotation *an)
{
	memset(an, 0, sizeof *an);
	size_t n = sim_code_count(code);
	double total = 0;
	for (size_t i = 0; i < n && i < a->events.ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (a->events.insn_count[i] && in->addr >= lo && in->addr < hi && a->events.insn_cycles)
			total += a->events.insn_cycles[i];
	}
	unsigned bres[SIM_MAX_RES], nb = 0;
	for (unsigned r = 0; r < sim_nres(m); r++)
		if (is_bottleneck_resource(a, r))
			bres[nb++] = r;
	an->insns = calloc(n + 1, sizeof *an->insns);
	struct hot_line *hl = calloc(n + 1, sizeof *hl);
	if (!an->insns || !hl)
		abort();
	size_t nhl = 0;
	bool any_line = false;
	for (size_t i = 0; i < n && i < a->events.ninsn; i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (!a->events.insn_count[i] || in->addr < lo || in->addr >= hi)
			continue;
		struct merge_report_insn *row = &an->insns[an->ninsns++];
		double cycles = a->events.insn_cycles ? a->events.insn_cycles[i] : 0;
		*row = (struct merge_report_insn){ .index = i, .addr = in->addr - bias,
						   .executions = a->events.insn_count[i],
						   .cycles_share = total > 0 ? cycles / total : 0, .source = "" };
		row->bottleneck = row->cycles_share >= BOTTLENECK_SHARE;
		for (unsigned k = 0; k < nb && !row->bottleneck; k++)
			row->bottleneck = sim_insn_share(m, code, a, i, bres[k]) >= BOTTLENECK_SHARE;
		const char *name, *dir;
		int line;
		if (!lines || !merge_srcline_dir(lines, in->addr - bias, &name, &dir, &line))
			continue;
		any_line = true;
		/* a name relative to where the compiler ran, from there */
		char file[PATH_MAX];
		if (name[0] != '/' && dir && dir[0])
			snprintf(file, sizeof file, "%s/%s", dir, name);
		else
			snprintf(file, sizeof file, "%s", name);
		size_t k = 0;
		while (k < nhl && !(hl[k].line == line && !strcmp(hl[k].file, file)))
			k++;
		if (k == nhl)
			hl[nhl++] = (struct hot_line){ .file = keep(an, dup_or_die(file)), .line = line };
		hl[k].insns++;
		hl[k].executions += a->events.insn_count[i];
		hl[k].cycles += cycles;
		const char *base = strrchr(file, '/');
		char *src;
		if (asprintf(&src, "%s:%d", base ? base + 1 : file, line) < 0)
			abort();
		row->source = keep(an, src);
	}
	if (!lines)
		snprintf(an->why, sizeof an->why, "%s", why_no_lines && why_no_lines[0] ? why_no_lines : "no debug information");
	else if (!any_line)
		snprintf(an->why, sizeof an->why, "the debug information has no line of its instructions");
	/* the hottest lines, then each file's in order with the short gaps
	 * between them as context */
	qsort(hl, nhl, sizeof *hl, by_cycles);
	if (nhl > MAX_HOT_LINES)
		nhl = MAX_HOT_LINES;
	size_t cap = nhl * (CONTEXT_GAP + 1) + 1;
	an->lines = calloc(cap, sizeof *an->lines);
	if (!an->lines)
		abort();
	for (size_t k = 0; k < nhl; k++)
		an->lines[an->nlines++] = (struct merge_report_srcline){
			.file = hl[k].file, .line = hl[k].line, .insns = hl[k].insns, .executions = hl[k].executions,
			.cycles_share = total > 0 ? hl[k].cycles / total : 0,
		};
	free(hl);
	qsort(an->lines, an->nlines, sizeof *an->lines, by_place);
	size_t hot = an->nlines;
	for (size_t k = 0; k + 1 < hot; k++) {
		const struct merge_report_srcline *x = &an->lines[k], *y = &an->lines[k + 1];
		if (strcmp(x->file, y->file) || y->line - x->line - 1 > CONTEXT_GAP)
			continue;
		for (int l = x->line + 1; l < y->line; l++)
			an->lines[an->nlines++] = (struct merge_report_srcline){ .file = x->file, .line = l };
	}
	qsort(an->lines, an->nlines, sizeof *an->lines, by_place);
	for (size_t from = 0; from < an->nlines;) {
		size_t to = from + 1;
		while (to < an->nlines && !strcmp(an->lines[to].file, an->lines[from].file))
			to++;
		fill_texts(an, an->lines, from, to);
		from = to;
	}
}

void report_annotation_free(struct report_annotation *an)
{
	for (size_t i = 0; i < an->nstrings; i++)
		free(an->strings[i]);
	free(an->strings);
	free(an->insns);
	free(an->lines);
	memset(an, 0, sizeof *an);
}
