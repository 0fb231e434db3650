/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Set-associative data cache hierarchy with bit-PLRU replacement. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static void level_free(struct sim_cache_level *l)
{
	free(l->tags);
	free(l->mru);
	free(l->dirty);
	l->tags = NULL;
	l->mru = NULL;
	l->dirty = NULL;
}

static int level_init(struct sim_cache_level *l, uint64_t size, unsigned ways, unsigned line)
{
	if (!size || !ways)
		return -1;
	uint64_t way_bytes = (uint64_t)ways * line;
	if (size % way_bytes)
		return -1;
	uint64_t sets = size / way_bytes;
	/* sets is stored as unsigned; anything past that is not a cache */
	if (!is_pow2(sets) || sets > (1u << 31))
		return -1;
	l->size = size;
	l->ways = ways;
	l->line = line;
	l->sets = (unsigned)sets;
	l->line_shift = (unsigned)__builtin_ctz(line);
	l->tags = calloc((size_t)sets * ways, sizeof(*l->tags));
	l->mru = calloc((size_t)sets * ways, sizeof(*l->mru));
	l->dirty = calloc((size_t)sets * ways, sizeof(*l->dirty));
	if (!l->tags || !l->mru || !l->dirty) {
		level_free(l);
		return -1;
	}
	return 0;
}

int sim_cache_init(struct sim_cache *c, unsigned nlevels, const uint64_t size[],
		   const unsigned ways[], unsigned line)
{
	memset(c, 0, sizeof(*c));
	if (nlevels < 1 || nlevels > sizeof(c->lvl) / sizeof(c->lvl[0]) || !is_pow2(line))
		return -1;
	for (unsigned i = 0; i < nlevels; i++) {
		if (level_init(&c->lvl[i], size[i], ways[i], line)) {
			sim_cache_free(c);
			return -1;
		}
	}
	c->nlevels = nlevels;
	return 0;
}

void sim_cache_free(struct sim_cache *c)
{
	for (size_t i = 0; i < sizeof(c->lvl) / sizeof(c->lvl[0]); i++)
		level_free(&c->lvl[i]);
	memset(c, 0, sizeof(*c));
}

/* Mark a way most recently used. Once every bit of the set would be on,
 * the history carries no information, so it restarts from this way. */
static void plru_touch(struct sim_cache_level *l, size_t base, unsigned way)
{
	uint8_t *m = l->mru + base;
	m[way] = 1;
	for (unsigned w = 0; w < l->ways; w++)
		if (!m[w])
			return;
	for (unsigned w = 0; w < l->ways; w++)
		m[w] = w == way;
}

/* Looks LINENO up in one level; on a hit the way becomes MRU. */
static bool level_lookup(struct sim_cache_level *l, uint64_t lineno)
{
	size_t base = (size_t)(lineno & (l->sets - 1)) * l->ways;
	uint64_t tag = lineno + 1;
	const uint64_t *t = l->tags + base;
	l->accesses++;
	for (unsigned w = 0; w < l->ways; w++) {
		if (t[w] == tag) {
			plru_touch(l, base, w);
			return true;
		}
	}
	l->misses++;
	return false;
}

static void level_fill(struct sim_cache_level *l, uint64_t lineno)
{
	size_t base = (size_t)(lineno & (l->sets - 1)) * l->ways;
	uint64_t *t = l->tags + base;
	const uint8_t *m = l->mru + base;
	unsigned victim = l->ways, w;
	for (w = 0; w < l->ways; w++) {
		if (!t[w]) {
			victim = w;
			break;
		}
	}
	if (victim == l->ways) {
		/* a one-way set keeps its only bit set; it is still the victim */
		victim = 0;
		for (w = 0; w < l->ways; w++) {
			if (!m[w]) {
				victim = w;
				break;
			}
		}
	}
	if (t[victim] && l->dirty[base + victim])
		l->writebacks++;
	l->dirty[base + victim] = 0;
	t[victim] = lineno + 1;
	plru_touch(l, base, victim);
}

unsigned sim_cache_write(struct sim_cache *c, uint64_t addr, unsigned len)
{
	unsigned fresh = 0;
	if (!c->nlevels)
		return 0;
	struct sim_cache_level *l = &c->lvl[0];
	uint64_t end = addr + (len ? len - 1 : 0);
	if (end < addr)
		end = UINT64_MAX;
	for (uint64_t ln = addr >> l->line_shift;; ln++) {
		size_t base = (size_t)(ln & (l->sets - 1)) * l->ways;
		for (unsigned w = 0; w < l->ways; w++)
			if (l->tags[base + w] == ln + 1) {
				fresh += !l->dirty[base + w];
				l->dirty[base + w] = 1;
			}
		if (ln == end >> l->line_shift)
			break;
	}
	return fresh;
}

/* Returns the level that served LINENO and fills every level above it. */
static int access_line(struct sim_cache *c, uint64_t lineno)
{
	unsigned k;
	for (k = 0; k < c->nlevels; k++)
		if (level_lookup(&c->lvl[k], lineno))
			break;
	for (unsigned f = 0; f < k; f++)
		level_fill(&c->lvl[f], lineno);
	return (int)k;
}

_Static_assert(sizeof(((struct sim_cache *)0)->stream_hits) == 16, "16 stream slots");

static unsigned stream_slot(uint64_t pc)
{
	/* top bits of a Fibonacci hash: nearby pcs spread over the slots */
	return (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 60);
}

int sim_cache_access(struct sim_cache *c, uint64_t pc, uint64_t addr, unsigned len,
		     bool *sequential)
{
	if (!c->nlevels) {
		if (sequential)
			*sequential = false;
		return 0;
	}
	unsigned sh = c->lvl[0].line_shift;
	uint64_t end = addr + (len ? len - 1 : 0);
	if (end < addr)
		end = UINT64_MAX;
	uint64_t first = addr >> sh, last = end >> sh;

	unsigned s = stream_slot(pc);
	/* stream_hits: 0 = slot unused, else 1 + consecutive adjacent steps */
	bool valid = c->stream_hits[s] != 0;
	uint64_t prev = c->stream_last_line[s];
	uint8_t run = c->stream_hits[s];
	/* walk a descending stream's range downwards so that each line is
	 * compared with its real predecessor */
	bool down = valid && first < prev;
	uint64_t n = last - first;
	int deepest = 0;
	bool missed = false, all_seq = true;

	for (uint64_t i = 0;; i++) {
		uint64_t ln = down ? last - i : first + i;
		bool adj = valid && (ln == prev + 1 || ln == prev - 1);
		int lvl = access_line(c, ln);
		if (lvl > deepest)
			deepest = lvl;
		if (lvl > 0) {
			missed = true;
			all_seq &= adj;
		}
		if (adj)
			run = run < UINT8_MAX ? run + 1 : run;
		else if (!valid || ln != prev)
			run = 1;
		prev = ln;
		valid = true;
		if (i == n)
			break;
	}
	c->stream_last_line[s] = prev;
	c->stream_hits[s] = run;
	if (sequential)
		*sequential = missed && all_seq;
	return deepest;
}
