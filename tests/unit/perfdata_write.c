/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A perf.data writer for tests: the layout of perf.data-file-format.txt
 * (file mode: header, attributes and ids, data, feature sections; pipe
 * mode: the same as records), little-endian as the machines gus runs on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_write.h"

#define ATTR_SIZE 128u		/* PERF_ATTR_SIZE_VER7 */
#define MAX_ATTRS 16

/* sample_type bits, record types and features (perf_event.h, perf's header.h) */
enum {
	ST_IP = 1 << 0, ST_TID = 1 << 1, ST_TIME = 1 << 2, ST_READ = 1 << 4, ST_ID = 1 << 6, ST_CPU = 1 << 7,
	ST_PERIOD = 1 << 8, ST_STREAM_ID = 1 << 9, ST_IDENTIFIER = 1 << 16,
};
enum { FMT_TE = 1, FMT_TR = 2, FMT_ID = 4, FMT_GROUP = 8, FMT_LOST = 16 };
enum { FEAT_BUILD_ID = 2, FEAT_CPUID = 9, FEAT_EVENT_DESC = 12, FEAT_PMU_MAPPINGS = 16, FEATS = 256 };

struct buf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void zeros(struct buf *b, size_t n)
{
	static const uint8_t z[64];
	while (n) {
		size_t k = n < sizeof z ? n : sizeof z;
		put(b, z, k);
		n -= k;
	}
}

/* perf's strings in features: u32 length (a multiple of 64), the string
 * padded with NULs */
static void str64(struct buf *b, const char *s)
{
	uint32_t len = (uint32_t)((strlen(s) + 1 + 63) / 64 * 64);
	u32(b, len);
	put(b, s, strlen(s));
	zeros(b, len - strlen(s));
}

struct pw {
	struct pw_attr attr[MAX_ATTRS];
	char name[MAX_ATTRS][64];
	int nattrs;
	struct buf data;
	char cpuid[128];
	struct {
		char path[512];
		uint8_t id[20];
	} bid[8];
	int nbid;
	struct {
		uint32_t type;
		char name[32];
	} pmu[8];
	int npmu;
};

struct pw *pw_new(void)
{
	return calloc(1, sizeof(struct pw));
}

void pw_free(struct pw *w)
{
	if (w)
		free(w->data.p);
	free(w);
}

int pw_add_attr(struct pw *w, const struct pw_attr *a)
{
	if (w->nattrs == MAX_ATTRS)
		return -1;
	w->attr[w->nattrs] = *a;
	snprintf(w->name[w->nattrs], sizeof w->name[0], "%s", a->name ? a->name : "");
	w->attr[w->nattrs].name = a->name ? w->name[w->nattrs] : NULL;
	return w->nattrs++;
}

void pw_cpuid(struct pw *w, const char *cpuid)
{
	snprintf(w->cpuid, sizeof w->cpuid, "%s", cpuid);
}

void pw_build_id(struct pw *w, const char *path, const char *hex)
{
	if (w->nbid == 8)
		return;
	snprintf(w->bid[w->nbid].path, sizeof w->bid[0].path, "%s", path);
	memset(w->bid[w->nbid].id, 0, 20);
	for (size_t i = 0; i < 20 && hex[2 * i] && hex[2 * i + 1]; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		w->bid[w->nbid].id[i] = (uint8_t)v;
	}
	w->nbid++;
}

void pw_pmu(struct pw *w, uint32_t type, const char *name)
{
	if (w->npmu == 8)
		return;
	w->pmu[w->npmu].type = type;
	snprintf(w->pmu[w->npmu].name, sizeof w->pmu[0].name, "%s", name);
	w->npmu++;
}

/* ------------------------------------------------------------ records --- */
/* a record under construction: its header's size is set at the end */
static size_t begin(struct pw *w, uint32_t type, uint16_t misc)
{
	size_t at = w->data.n;
	u32(&w->data, type);
	u16(&w->data, misc);
	u16(&w->data, 0);
	return at;
}

static void end(struct pw *w, size_t at)
{
	/* records are 8-aligned */
	zeros(&w->data, (8 - (w->data.n - at) % 8) % 8);
	if (w->data.oom)
		return;
	uint16_t size = (uint16_t)(w->data.n - at);
	memcpy(w->data.p + at + 6, &size, 2);
}

/* the sample_id trailer of ATTR's records */
static void trailer(struct pw *w, int attr, const struct pw_where *at)
{
	const struct pw_attr *a = &w->attr[attr];
	if (!a->sample_id_all)
		return;
	uint64_t st = a->sample_type;
	if (st & ST_TID)
		u32(&w->data, at->pid), u32(&w->data, at->tid);
	if (st & ST_TIME)
		u64(&w->data, at->time);
	if (st & ST_ID)
		u64(&w->data, a->id);
	if (st & ST_STREAM_ID)
		u64(&w->data, a->id);
	if (st & ST_CPU)
		u32(&w->data, at->cpu), u32(&w->data, 0);
	if (st & ST_IDENTIFIER)
		u64(&w->data, a->id);
}

static void string8(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	put(b, s, n);
	zeros(b, (8 - n % 8) % 8);
}

void pw_comm(struct pw *w, int attr, const struct pw_where *at, const char *comm)
{
	size_t r = begin(w, 3, 0);
	u32(&w->data, at->pid);
	u32(&w->data, at->tid);
	string8(&w->data, comm);
	trailer(w, attr, at);
	end(w, r);
}

void pw_mmap2(struct pw *w, int attr, const struct pw_where *at, uint64_t start, uint64_t len, uint64_t pgoff,
	      uint32_t prot, const char *file)
{
	size_t r = begin(w, 10, 2 /* user */);
	u32(&w->data, at->pid);
	u32(&w->data, at->tid);
	u64(&w->data, start);
	u64(&w->data, len);
	u64(&w->data, pgoff);
	u32(&w->data, 0);	/* maj, min, ino, ino_generation: none */
	u32(&w->data, 0);
	u64(&w->data, 0);
	u64(&w->data, 0);
	u32(&w->data, prot);
	u32(&w->data, 2 /* MAP_PRIVATE */);
	string8(&w->data, file);
	trailer(w, attr, at);
	end(w, r);
}

void pw_sample(struct pw *w, int attr, const struct pw_where *at, uint64_t ip, uint64_t period,
	       const uint64_t *read, const int *group_attrs, size_t nread)
{
	const struct pw_attr *a = &w->attr[attr];
	uint64_t st = a->sample_type;
	size_t r = begin(w, 9, 2 /* user */);
	if (st & ST_IDENTIFIER)
		u64(&w->data, a->id);
	if (st & ST_IP)
		u64(&w->data, ip);
	if (st & ST_TID)
		u32(&w->data, at->pid), u32(&w->data, at->tid);
	if (st & ST_TIME)
		u64(&w->data, at->time);
	if (st & ST_ID)
		u64(&w->data, a->id);
	if (st & ST_STREAM_ID)
		u64(&w->data, a->id);
	if (st & ST_CPU)
		u32(&w->data, at->cpu), u32(&w->data, 0);
	if (st & ST_PERIOD)
		u64(&w->data, period);
	if (st & ST_READ) {
		uint64_t rf = a->read_format;
		if (rf & FMT_GROUP)
			u64(&w->data, nread);
		else
			u64(&w->data, read[0]);
		/* times: enabled and running alike (not multiplexed) */
		if (rf & FMT_TE)
			u64(&w->data, at->time);
		if (rf & FMT_TR)
			u64(&w->data, at->time);
		for (size_t k = 0; k < ((rf & FMT_GROUP) ? nread : 1); k++) {
			if (rf & FMT_GROUP)
				u64(&w->data, read[k]);
			if (rf & FMT_ID)
				u64(&w->data, w->attr[group_attrs[k]].id);
			if (rf & FMT_LOST)
				u64(&w->data, 0);
		}
	}
	end(w, r);
}

void pw_itrace_start(struct pw *w, int attr, const struct pw_where *at)
{
	size_t r = begin(w, 12, 0);
	u32(&w->data, at->pid);
	u32(&w->data, at->tid);
	trailer(w, attr, at);
	end(w, r);
}

void pw_switch(struct pw *w, int attr, const struct pw_where *at, bool out)
{
	size_t r = begin(w, 14, out ? 1u << 13 : 0);
	trailer(w, attr, at);
	end(w, r);
}

void pw_aux(struct pw *w, int attr, const struct pw_where *at, uint64_t offset, uint64_t size, uint64_t flags)
{
	size_t r = begin(w, 11, 0);
	u64(&w->data, offset);
	u64(&w->data, size);
	u64(&w->data, flags);
	trailer(w, attr, at);
	end(w, r);
}

void pw_time_conv(struct pw *w, uint64_t shift, uint64_t mult, uint64_t zero)
{
	size_t r = begin(w, 79, 0);
	u64(&w->data, shift);
	u64(&w->data, mult);
	u64(&w->data, zero);
	end(w, r);
}

void pw_auxtrace_info(struct pw *w, uint32_t type, const uint64_t *priv, size_t npriv)
{
	size_t r = begin(w, 70, 0);
	u32(&w->data, type);
	u32(&w->data, 0);
	for (size_t i = 0; i < npriv; i++)
		u64(&w->data, priv[i]);
	end(w, r);
}

void pw_auxtrace(struct pw *w, const uint8_t *data, size_t len, uint64_t offset, uint32_t idx, uint32_t tid,
		 uint32_t cpu)
{
	size_t padded = (len + 7) / 8 * 8;
	size_t r = begin(w, 71, 0);
	u64(&w->data, padded);
	u64(&w->data, offset);
	u64(&w->data, 0);	/* reference */
	u32(&w->data, idx);
	u32(&w->data, tid);
	u32(&w->data, cpu);
	u32(&w->data, 0);
	end(w, r);
	put(&w->data, data, len);
	zeros(&w->data, padded - len);
}

void pw_finished_round(struct pw *w)
{
	end(w, begin(w, 68, 0));
}

/* ------------------------------------------------------------- the file --- */
static void attr_bytes(struct buf *b, const struct pw_attr *a)
{
	size_t at = b->n;
	u32(b, a->type);
	u32(b, ATTR_SIZE);
	u64(b, a->config);
	u64(b, a->sample_period);
	u64(b, a->sample_type);
	u64(b, a->read_format);
	/* flags: freq (bit 10), sample_id_all (bit 18) */
	u64(b, (a->freq ? 1ull << 10 : 0) | (a->sample_id_all ? 1ull << 18 : 0));
	zeros(b, ATTR_SIZE - (b->n - at));
}

/* the features' data: their bits, each one's bytes */
static int features(struct pw *w, struct buf *f, int *feat, size_t *off, size_t *len)
{
	int n = 0;
	if (w->nbid) {
		feat[n] = FEAT_BUILD_ID;
		off[n] = f->n;
		for (int i = 0; i < w->nbid; i++) {
			size_t plen = (strlen(w->bid[i].path) + 1 + 63) / 64 * 64;
			u32(f, 67);
			u16(f, 2 /* user */);
			u16(f, (uint16_t)(8 + 4 + 24 + plen));
			u32(f, (uint32_t)-1);	/* pid: any */
			put(f, w->bid[i].id, 20);
			zeros(f, 4);
			put(f, w->bid[i].path, strlen(w->bid[i].path));
			zeros(f, plen - strlen(w->bid[i].path));
		}
		len[n] = f->n - off[n];
		n++;
	}
	if (w->cpuid[0]) {
		feat[n] = FEAT_CPUID;
		off[n] = f->n;
		str64(f, w->cpuid);
		len[n] = f->n - off[n];
		n++;
	}
	int named = 0;
	for (int i = 0; i < w->nattrs; i++)
		named += w->attr[i].name != NULL;
	if (named) {
		feat[n] = FEAT_EVENT_DESC;
		off[n] = f->n;
		u32(f, (uint32_t)w->nattrs);
		u32(f, ATTR_SIZE);
		for (int i = 0; i < w->nattrs; i++) {
			attr_bytes(f, &w->attr[i]);
			u32(f, 1);
			str64(f, w->attr[i].name ? w->attr[i].name : "");
			u64(f, w->attr[i].id);
		}
		len[n] = f->n - off[n];
		n++;
	}
	if (w->npmu) {
		feat[n] = FEAT_PMU_MAPPINGS;
		off[n] = f->n;
		u32(f, (uint32_t)w->npmu);
		for (int i = 0; i < w->npmu; i++) {
			u32(f, w->pmu[i].type);
			str64(f, w->pmu[i].name);
		}
		len[n] = f->n - off[n];
		n++;
	}
	return n;
}

static int save(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	bool ok = fwrite(b->p, 1, b->n, f) == b->n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int pw_write(struct pw *w, const char *path)
{
	struct buf out = { 0 }, f = { 0 };
	int feat[8];
	size_t foff[8], flen[8];
	int nf = features(w, &f, feat, foff, flen);
	size_t attrs = 104, ids = attrs + (size_t)w->nattrs * (ATTR_SIZE + 16);
	size_t data = ids + (size_t)w->nattrs * 8;
	size_t feats = data + w->data.n;
	put(&out, "PERFILE2", 8);
	u64(&out, 104);
	u64(&out, ATTR_SIZE + 16);
	u64(&out, attrs);
	u64(&out, (uint64_t)w->nattrs * (ATTR_SIZE + 16));
	u64(&out, data);
	u64(&out, w->data.n);
	u64(&out, 0);
	u64(&out, 0);
	uint8_t bits[FEATS / 8] = { 0 };
	for (int i = 0; i < nf; i++)
		bits[feat[i] / 8] |= (uint8_t)(1u << (feat[i] % 8));
	put(&out, bits, sizeof bits);
	for (int i = 0; i < w->nattrs; i++) {
		attr_bytes(&out, &w->attr[i]);
		u64(&out, ids + 8 * (size_t)i);
		u64(&out, 8);
	}
	for (int i = 0; i < w->nattrs; i++)
		u64(&out, w->attr[i].id);
	put(&out, w->data.p, w->data.n);
	/* the sections' table, then their data (features in bit order) */
	size_t base = feats + 16 * (size_t)nf;
	for (int i = 0; i < nf; i++) {
		u64(&out, base + foff[i]);
		u64(&out, flen[i]);
	}
	put(&out, f.p, f.n);
	int rc = out.oom || f.oom || w->data.oom ? -1 : save(path, &out);
	free(out.p);
	free(f.p);
	return rc;
}

int pw_write_pipe(struct pw *w, const char *path)
{
	struct buf out = { 0 }, f = { 0 };
	int feat[8];
	size_t foff[8], flen[8];
	int nf = features(w, &f, feat, foff, flen);
	put(&out, "PERFILE2", 8);
	u64(&out, 16);
	for (int i = 0; i < w->nattrs; i++) {
		u32(&out, 64);	/* HEADER_ATTR: the attribute, then its ids */
		u16(&out, 0);
		u16(&out, (uint16_t)(8 + ATTR_SIZE + 8));
		attr_bytes(&out, &w->attr[i]);
		u64(&out, w->attr[i].id);
	}
	for (int i = 0; i < nf; i++) {
		if (feat[i] == FEAT_BUILD_ID || feat[i] == FEAT_EVENT_DESC)
			continue;	/* build-ids come as records; names are not needed */
		size_t n = 16 + flen[i], pad = (8 - n % 8) % 8;
		u32(&out, 80);	/* HEADER_FEATURE: its bit, then its data */
		u16(&out, 0);
		u16(&out, (uint16_t)(n + pad));
		u64(&out, (uint64_t)feat[i]);
		put(&out, f.p + foff[i], flen[i]);
		zeros(&out, pad);
	}
	put(&out, w->data.p, w->data.n);
	for (int i = 0; i < nf; i++)
		if (feat[i] == FEAT_BUILD_ID)
			put(&out, f.p + foff[i], flen[i]);
	int rc = out.oom || f.oom || w->data.oom ? -1 : save(path, &out);
	free(out.p);
	free(f.p);
	return rc;
}
