/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The names of the addresses of a stream that gus script prints: every
 * executable mapping of the stream's source, each with its object's
 * symbols (merge_symtab) loaded the first time an address falls in it. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gusdata.h"
#include "merge.h"
#include "rec_internal.h"

struct sym_map {
	uint64_t start, end, pgoff;
	char *file;
	bool loaded, have_bias;
	bool live;		/* QEMU live: the bias is the region's, learnt at the first record */
	uint64_t bias;
	struct merge_symtab *syms;
};

struct recording_symbols {
	struct sym_map *v;
	size_t n, cap;
	size_t last;		/* where the previous address was: streams stay in one object a while */
	const struct recording_trace_region *r;
	bool failed;		/* out of memory while adding */
};

static struct sym_map *add_map(struct recording_symbols *s, const char *file, uint64_t start, uint64_t len,
			       uint64_t pgoff)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct sym_map *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->failed = true;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	struct sym_map *m = &s->v[s->n];
	*m = (struct sym_map){ .start = start, .end = start + len, .pgoff = pgoff, .file = strdup(file) };
	if (!m->file) {
		s->failed = true;
		return NULL;
	}
	s->n++;
	return m;
}

static int add_exec_mmap(void *ctx, const struct gusdata_mmap *m)
{
	struct recording_symbols *s = ctx;
	if (!(m->prot & PROT_EXEC) || m->filename[0] != '/')
		return 0;
	return add_map(s, m->filename, m->start, m->len, m->pgoff) ? 0 : -1;
}

static int add_trace_map(void *ctx, const struct gusdata_trace_map *tm)
{
	struct recording_symbols *s = ctx;
	struct sym_map *m = add_map(s, tm->object, tm->start, tm->len, tm->pgoff);
	if (!m)
		return -1;
	/* the region was placed by file offset in this very table: its bias
	 * holds for the whole mapping of its object */
	if (s->r->placed && !strcmp(tm->object, s->r->program)) {
		m->bias = s->r->bias;
		m->have_bias = true;
	}
	return 0;
}

struct recording_symbols *recording_symbols_new(const struct recording_trace_opts *o,
						const struct recording_trace_region *r)
{
	struct recording_symbols *s = calloc(1, sizeof *s);
	if (!s) {
		rec_error(&o->log, "out of memory");
		return NULL;
	}
	s->r = r;
	if (r->source == RECORDING_SOURCE_QEMU_LIVE) {
		/* QEMU reports no mappings to its consumer: the region's object,
		 * wherever the run turns out to have it */
		struct sym_map *m = add_map(s, r->program, 0, UINT64_MAX, 0);
		if (m)
			m->live = true;
	} else {
		char err[1024];
		struct gusdata *d;
		if (gusdata_open(o->recording, false, &d, err, sizeof err)) {
			rec_error(&o->log, "%s", err);
			free(s);
			return NULL;
		}
		if (r->source == RECORDING_SOURCE_PT) {
			gusdata_foreach_mmap(d, add_exec_mmap, s);
		} else {
			gusdata_foreach_trace_map(d, add_trace_map, s);
			uint64_t bias;
			/* a recording of schema 3 or before traced the program
			 * only, at its load bias */
			if (!s->n && gusdata_meta_u64(d, "trace.load_bias", &bias)) {
				const char *exe = gusdata_meta(d, "exe");
				struct sym_map *m = exe ? add_map(s, exe, 0, UINT64_MAX, 0) : NULL;
				if (m) {
					m->bias = bias;
					m->have_bias = true;
				}
			}
		}
		gusdata_close(d);
	}
	if (s->failed) {
		rec_error(&o->log, "out of memory");
		recording_symbols_free(s);
		return NULL;
	}
	return s;
}

const char *recording_symbols_lookup(struct recording_symbols *s, uint64_t ip, uint64_t *offset)
{
	for (size_t k = 0; k < s->n; k++) {
		size_t i = (s->last + k) % s->n;
		struct sym_map *m = &s->v[i];
		if (ip < m->start || ip >= m->end)
			continue;
		s->last = i;
		if (!m->loaded) {
			char err[512];
			m->loaded = true;
			m->syms = merge_symtab_load(m->file, err, sizeof err);
			if (!m->have_bias && !m->live)
				m->have_bias = !merge_elf_load_bias(m->file, m->start, m->pgoff, &m->bias, err, sizeof err);
		}
		if (m->live)
			return m->syms ? merge_symtab_lookup(m->syms, ip - s->r->bias, offset) : NULL;
		if (!m->syms || !m->have_bias)
			return NULL;
		return merge_symtab_lookup(m->syms, ip - m->bias, offset);
	}
	return NULL;
}

void recording_symbols_free(struct recording_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].file);
		merge_symtab_free(s->v[i].syms);
	}
	free(s->v);
	free(s);
}
