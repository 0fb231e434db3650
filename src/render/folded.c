/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Folded stacks, the input of flamegraph.pl, speedscope and Pyroscope:
 * one line per stack, its functions from the root to the leaf joined by
 * ';', a space and its samples. Stacks of other addresses in the same
 * functions are one line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

struct folded_line {
	char *text;
	uint64_t samples;
};

/* NAME as one frame: the text escaping (valid UTF-8, no control
 * character, a backslash doubled), then each ';' as \x3b */
static char *frame_text(const char *name)
{
	size_t len = strlen(name);
	char *esc = malloc(4 * len + 1);
	if (!esc)
		return NULL;
	render_text_escape(esc, 4 * len + 1, name);
	size_t semis = 0;
	for (const char *c = esc; *c; c++)
		semis += *c == ';';
	if (!semis)
		return esc;
	char *out = malloc(strlen(esc) + 3 * semis + 1), *o = out;
	if (out) {
		for (const char *c = esc; *c; c++) {
			if (*c == ';') {
				memcpy(o, "\\x3b", 4);
				o += 4;
			} else {
				*o++ = *c;
			}
		}
		*o = 0;
	}
	free(esc);
	return out;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

static int by_samples(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->text, y->text);
}

int render_folded(FILE *out, const struct merge_report *r, char *err, size_t errlen)
{
	if (r->why_no_stacks) {
		snprintf(err, errlen, "no call stacks: %s", r->why_no_stacks);
		return -1;
	}
	int rc = -1;
	char **names = calloc(r->nframes + 1, sizeof *names);
	size_t *lens = calloc(r->nframes + 1, sizeof *lens);
	struct folded_line *lines = calloc(r->nstacks + 1, sizeof *lines);
	size_t n = 0;
	if (!names || !lens || !lines)
		goto out;
	for (size_t i = 0; i < r->nframes; i++) {
		if (!(names[i] = frame_text(r->frames[i].function)))
			goto out;
		lens[i] = strlen(names[i]);
	}
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct merge_report_stack *st = &r->stacks[i];
		size_t len = 1;
		for (size_t k = 0; k < st->nframes; k++)
			len += lens[st->frames[k]] + 1;
		char *t = malloc(len), *p = t;
		if (!t)
			goto out;
		/* the root first: the stack holds the leaf first */
		for (size_t k = st->nframes; k-- > 0;) {
			memcpy(p, names[st->frames[k]], lens[st->frames[k]]);
			p += lens[st->frames[k]];
			if (k)
				*p++ = ';';
		}
		*p = 0;
		lines[n++] = (struct folded_line){ .text = t, .samples = st->samples };
	}
	/* the same functions by other addresses: one line */
	if (n)
		qsort(lines, n, sizeof *lines, by_text);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(lines[k - 1].text, lines[i].text)) {
			lines[k - 1].samples += lines[i].samples;
			free(lines[i].text);
			continue;
		}
		lines[k++] = lines[i];
	}
	n = k;
	if (n)
		qsort(lines, n, sizeof *lines, by_samples);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, lines[i].samples);
	rc = 0;
out:
	if (rc)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; names && i < r->nframes; i++)
		free(names[i]);
	for (size_t i = 0; lines && i < n; i++)
		free(lines[i].text);
	free(names);
	free(lens);
	free(lines);
	return rc;
}
