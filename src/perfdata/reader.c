/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf.data reader (perfdata.h): the header, the attribute and
 * feature sections of file mode, and the records of the data, with the
 * header records of pipe mode among them. The layout of each record is
 * the kernel's (include/uapi/linux/perf_event.h) or perf's own
 * (perf.data-file-format.txt); every field is read with its bounds checked
 * against the record and every record against the data. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outpath.h"
#include "perfdata_internal.h"

#define SCRATCH_U64 (PD_MAX_RECORD / 8 + 1)

static const char *const type_names[] = {
	[PERFDATA_MMAP] = "MMAP", [PERFDATA_LOST] = "LOST", [PERFDATA_COMM] = "COMM", [PERFDATA_EXIT] = "EXIT",
	[PERFDATA_THROTTLE] = "THROTTLE", [PERFDATA_UNTHROTTLE] = "UNTHROTTLE", [PERFDATA_FORK] = "FORK",
	[PERFDATA_READ] = "READ", [PERFDATA_SAMPLE] = "SAMPLE", [PERFDATA_MMAP2] = "MMAP2", [PERFDATA_AUX] = "AUX",
	[PERFDATA_ITRACE_START] = "ITRACE_START", [PERFDATA_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERFDATA_SWITCH] = "SWITCH", [PERFDATA_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERFDATA_NAMESPACES] = "NAMESPACES", [PERFDATA_KSYMBOL] = "KSYMBOL", [PERFDATA_BPF_EVENT] = "BPF_EVENT",
	[PERFDATA_CGROUP] = "CGROUP", [PERFDATA_TEXT_POKE] = "TEXT_POKE",
	[PERFDATA_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID", [PERFDATA_HEADER_ATTR] = "ATTR",
	[PERFDATA_HEADER_EVENT_TYPE] = "EVENT_TYPE", [PERFDATA_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PERFDATA_HEADER_BUILD_ID] = "BUILD_ID", [PERFDATA_FINISHED_ROUND] = "FINISHED_ROUND",
	[PERFDATA_ID_INDEX] = "ID_INDEX", [PERFDATA_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PERFDATA_AUXTRACE] = "AUXTRACE", [PERFDATA_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PERFDATA_THREAD_MAP] = "THREAD_MAP", [PERFDATA_CPU_MAP] = "CPU_MAP",
	[PERFDATA_STAT_CONFIG] = "STAT_CONFIG", [PERFDATA_STAT] = "STAT", [PERFDATA_STAT_ROUND] = "STAT_ROUND",
	[PERFDATA_EVENT_UPDATE] = "EVENT_UPDATE", [PERFDATA_TIME_CONV] = "TIME_CONV",
	[PERFDATA_HEADER_FEATURE] = "FEATURE", [PERFDATA_COMPRESSED] = "COMPRESSED",
	[PERFDATA_FINISHED_INIT] = "FINISHED_INIT",
};

const char *perfdata_type_name(uint32_t type)
{
	return type < sizeof type_names / sizeof *type_names ? type_names[type] : NULL;
}

bool perfdata_magic(const void *p, size_t n)
{
	if (n < 8)
		return false;
	uint64_t m = pd_u64(p);
	return m == PD_MAGIC2 || m == PD_MAGIC2_SWAPPED || !memcmp(p, PD_MAGIC1, 8);
}

bool perfdata_is_perf_data(const char *path)
{
	char err[OUTPATH_ERRLEN];
	int fd = outpath_open_regular(path, err, sizeof err);
	if (fd < 0)
		return false;
	uint8_t b[8];
	bool is = pread(fd, b, sizeof b, 0) == (ssize_t)sizeof b && perfdata_magic(b, sizeof b);
	close(fd);
	return is;
}

/* a stream's bytes up to END read into its buffer (fewer at its end) */
static void stream_fill(struct pd_src *s, uint64_t end)
{
	while (!s->eof && s->base + s->len < end) {
		size_t want = (size_t)(end - s->base);
		if (want > s->cap) {
			size_t cap = s->cap ? s->cap : 1 << 16;
			while (cap < want)
				cap *= 2;
			uint8_t *b = realloc(s->buf, cap);
			if (!b) {
				s->eof = true;
				s->read_errno = ENOMEM;
				return;
			}
			s->buf = b;
			s->cap = cap;
		}
		/* as much as the buffer takes: fewer calls on a pipe */
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			s->read_errno = r < 0 ? errno : 0;
			s->eof = true;
			s->size = s->base + s->len;
			return;
		}
		s->len += (size_t)r;
	}
}

/* a stream's bytes before OFF dropped (the records before it are read) */
static void stream_drop(struct pd_src *s, uint64_t off)
{
	if (!s->stream || off <= s->base)
		return;
	uint64_t n = off - s->base;
	if (n > s->len)
		n = s->len;
	memmove(s->buf, s->buf + n, s->len - (size_t)n);
	s->len -= (size_t)n;
	s->base += n;
}

uint64_t pd_available(struct perfdata *pd, uint64_t off, uint64_t want)
{
	struct pd_src *s = &pd->src;
	if (s->stream) {
		if (off < s->base || want > PD_MAX_STREAM_BUFFER)
			return 0;
		stream_fill(s, off + want);
		uint64_t have = s->base + s->len > off ? s->base + s->len - off : 0;
		return have < want ? have : want;
	}
	if (off >= s->size)
		return 0;
	return s->size - off < want ? s->size - off : want;
}

int pd_read_at(struct perfdata *pd, uint64_t off, void *buf, size_t len)
{
	if (pd->src.stream) {
		if (pd_available(pd, off, len) < len)
			return -1;
		if (len)
			memcpy(buf, pd->src.buf + (off - pd->src.base), len);
		return 0;
	}
	if (off > pd->src.size || len > pd->src.size - off)
		return -1;
	if (!len)	/* a piece of no bytes: BUF may be NULL */
		return 0;
	if (pd->src.mem) {
		memcpy(buf, pd->src.mem + off, len);
		return 0;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(pd->src.fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* ------------------------------------------------------------ event ids --- */
static uint64_t id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return id;
}

static int id_insert(struct perfdata *pd, uint64_t id, uint32_t attr)
{
	if (!id)
		return 0;	/* not an id perf gives */
	if ((pd->id_n + 1) * 2 > pd->id_cap) {
		size_t cap = pd->id_cap ? 2 * pd->id_cap : 64;
		uint64_t *k = calloc(cap, sizeof *k);
		uint32_t *v = calloc(cap, sizeof *v);
		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		for (size_t i = 0; i < pd->id_cap; i++) {
			if (!pd->id_keys[i])
				continue;
			size_t j = id_hash(pd->id_keys[i]) & (cap - 1);
			while (k[j])
				j = (j + 1) & (cap - 1);
			k[j] = pd->id_keys[i];
			v[j] = pd->id_vals[i];
		}
		free(pd->id_keys);
		free(pd->id_vals);
		pd->id_keys = k;
		pd->id_vals = v;
		pd->id_cap = cap;
	}
	size_t j = id_hash(id) & (pd->id_cap - 1);
	while (pd->id_keys[j] && pd->id_keys[j] != id)
		j = (j + 1) & (pd->id_cap - 1);
	if (!pd->id_keys[j])
		pd->id_n++;
	pd->id_keys[j] = id;
	pd->id_vals[j] = attr;
	return 0;
}

const struct perfdata_attr *perfdata_attr_of_id(const struct perfdata *pd, uint64_t id)
{
	if (!pd->id_cap || !id)
		return NULL;
	size_t j = id_hash(id) & (pd->id_cap - 1);
	while (pd->id_keys[j]) {
		if (pd->id_keys[j] == id)
			return pd->id_vals[j] < pd->info.nattrs ? &pd->info.attrs[pd->id_vals[j]] : NULL;
		j = (j + 1) & (pd->id_cap - 1);
	}
	return NULL;
}

long perfdata_pmu_type(const struct perfdata *pd, const char *name)
{
	for (size_t i = 0; i < pd->info.npmus; i++)
		if (pd->info.pmus[i].name && !strcmp(pd->info.pmus[i].name, name))
			return (long)pd->info.pmus[i].type;
	return -1;
}

static int index_ids(struct perfdata *pd, size_t attr)
{
	const struct perfdata_attr *a = &pd->info.attrs[attr];
	for (size_t k = 0; k < a->nids; k++)
		if (id_insert(pd, a->ids[k], (uint32_t)attr))
			return -1;
	return 0;
}

/* --------------------------------------------------------------- header --- */
static void fail(char *err, size_t errlen, const struct perfdata *pd, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fail(char *err, size_t errlen, const struct perfdata *pd, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s: %s", pd->name, msg);
}

static void note_feature_damage(struct perfdata *pd, const char *why)
{
	/* appended, cut where the room ends */
	char *d = pd->info.feature_damage;
	size_t k = strlen(d), room = sizeof pd->info.feature_damage - 1;
	if (k && k + 2 < room) {
		memcpy(d + k, "; ", 2);
		k += 2;
	}
	size_t n = strlen(why);
	if (n > room - k)
		n = room - k;
	memcpy(d + k, why, n);
	d[k + n] = 0;
}

/* the features gus reads; the others are skipped unread */
static bool feature_wanted(unsigned f)
{
	switch (f) {
	case PERFDATA_FEAT_BUILD_ID: case PERFDATA_FEAT_HOSTNAME: case PERFDATA_FEAT_OSRELEASE:
	case PERFDATA_FEAT_VERSION: case PERFDATA_FEAT_ARCH: case PERFDATA_FEAT_NRCPUS: case PERFDATA_FEAT_CPUDESC:
	case PERFDATA_FEAT_CPUID: case PERFDATA_FEAT_TOTAL_MEM: case PERFDATA_FEAT_CMDLINE:
	case PERFDATA_FEAT_EVENT_DESC: case PERFDATA_FEAT_CPU_TOPOLOGY: case PERFDATA_FEAT_PMU_MAPPINGS:
	case PERFDATA_FEAT_GROUP_DESC: case PERFDATA_FEAT_AUXTRACE: case PERFDATA_FEAT_SAMPLE_TIME:
	case PERFDATA_FEAT_CLOCK_DATA:
		return true;
	default:
		return false;
	}
}

/* a feature section larger than this is taken for damage */
#define MAX_FEATURE (64u << 20)

static void read_features(struct perfdata *pd, const uint8_t *bits)
{
	uint64_t table = pd->info.data_offset + pd->info.data_size;
	size_t k = 0;
	for (unsigned f = 1; f < PERFDATA_FEATS; f++) {
		if (!(bits[f / 8] & (1u << (f % 8))))
			continue;
		uint8_t sec[16];
		char why[512];
		if (pd_read_at(pd, table + 16 * k++, sec, sizeof sec)) {
			snprintf(why, sizeof why, "the table of feature sections ends beyond the file (feature %u)", f);
			note_feature_damage(pd, why);
			return;
		}
		uint64_t off = pd_u64(sec), size = pd_u64(sec + 8);
		pd->info.have[f] = true;
		if (!feature_wanted(f))
			continue;
		if (off > pd->src.size || size > pd->src.size - off || size > MAX_FEATURE) {
			snprintf(why, sizeof why, "feature %u's section (%llu bytes at 0x%llx) is beyond the file", f,
				 (unsigned long long)size, (unsigned long long)off);
			note_feature_damage(pd, why);
			continue;
		}
		uint8_t *buf = malloc(size ? size : 1);
		if (!buf || pd_read_at(pd, off, buf, size)) {
			free(buf);
			note_feature_damage(pd, "out of memory");
			continue;
		}
		if (pd_feature(pd, f, buf, size, why, sizeof why))
			note_feature_damage(pd, why);
		free(buf);
	}
}

static int read_attrs(struct perfdata *pd, uint64_t attr_size, uint64_t off, uint64_t size, char *err,
		      size_t errlen)
{
	if (!size)
		return 0;
	if (attr_size < PD_ATTR_SIZE_VER0 + 16 || attr_size > 4096) {
		fail(err, errlen, pd, "attributes of %llu bytes each: not a perf.data perf wrote",
		     (unsigned long long)attr_size);
		return -1;
	}
	if (off > pd->src.size || size > pd->src.size - off || size / attr_size > PD_MAX_ATTRS) {
		fail(err, errlen, pd, "the attribute section (%llu bytes at 0x%llx) is beyond the file (%llu bytes)",
		     (unsigned long long)size, (unsigned long long)off, (unsigned long long)pd->src.size);
		return -1;
	}
	uint8_t *entry = malloc(attr_size);
	if (!entry) {
		fail(err, errlen, pd, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < size / attr_size; i++) {
		char why[256];
		if (pd_read_at(pd, off + i * attr_size, entry, attr_size))
			goto bad;
		uint64_t ids_off = pd_u64(entry + attr_size - 16), ids_size = pd_u64(entry + attr_size - 8);
		if (ids_off > pd->src.size || ids_size > pd->src.size - ids_off || ids_size / 8 > PD_MAX_IDS) {
			fail(err, errlen, pd, "attribute %llu: its ids (%llu bytes at 0x%llx) are beyond the file",
			     (unsigned long long)i, (unsigned long long)ids_size, (unsigned long long)ids_off);
			free(entry);
			return -1;
		}
		size_t nids = ids_size / 8;
		uint64_t *ids = malloc(nids * 8 + 8);
		if (!ids || pd_read_at(pd, ids_off, ids, nids * 8)) {
			free(ids);
			goto bad;
		}
		int rc = pd_add_attr(pd, entry, attr_size - 16, ids, nids, why, sizeof why);
		free(ids);
		if (rc || index_ids(pd, pd->info.nattrs - 1)) {
			fail(err, errlen, pd, "attribute %llu: %s", (unsigned long long)i, rc ? why : "out of memory");
			free(entry);
			return -1;
		}
	}
	free(entry);
	return 0;
bad:
	fail(err, errlen, pd, "the attributes cannot be read");
	free(entry);
	return -1;
}

static int open_common(struct perfdata *pd, char *err, size_t errlen)
{
	uint8_t h[PD_FILE_HEADER_SIZE];
	if (pd_read_at(pd, 0, h, 16)) {
		fail(err, errlen, pd, "not a perf.data (%llu bytes, shorter than its header)",
		     (unsigned long long)pd->src.size);
		return -1;
	}
	uint64_t magic = pd_u64(h);
	if (!memcmp(h, PD_MAGIC1, 8)) {
		fail(err, errlen, pd, "a perf.data of version 1 (PERFFILE, perf before Linux 2.6.37): gus reads version 2");
		return -1;
	}
	if (magic == PD_MAGIC2_SWAPPED) {
		fail(err, errlen, pd, "a perf.data written on a machine of the other byte order: gus reads only its own "
				      "(perf report on a machine of that byte order reads it)");
		return -1;
	}
	if (magic != PD_MAGIC2) {
		fail(err, errlen, pd, "not a perf.data (no PERFILE2 magic)");
		return -1;
	}
	uint64_t hsize = pd_u64(h + 8);
	pd->info.file_size = pd->src.size;
	pd->scratch = malloc(4 * SCRATCH_U64 * sizeof *pd->scratch);
	pd->rec = malloc(PD_MAX_RECORD + 8);
	if (!pd->scratch || !pd->rec) {
		fail(err, errlen, pd, "out of memory");
		return -1;
	}
	if (hsize == PD_PIPE_HEADER_SIZE) {
		pd->info.pipe = true;
		pd->pos = PD_PIPE_HEADER_SIZE;
		pd->end = pd->src.size;
		pd->sample_id_pos = pd->other_id_pos = -1;
		return 0;
	}
	if (pd->src.stream) {
		fail(err, errlen, pd, "a perf.data in file mode cannot be read from a pipe (perf record -o - writes pipe "
				      "mode; give the file's name instead)");
		return -1;
	}
	/* perf_file_header: magic, size, attr_size, attrs, data, event_types
	 * (sections of offset and size), then the 256 feature bits */
	if (hsize < 72 || hsize > pd->src.size || pd_read_at(pd, 0, h, hsize < sizeof h ? hsize : sizeof h)) {
		fail(err, errlen, pd, "a header of %llu bytes in a file of %llu: not a perf.data perf wrote",
		     (unsigned long long)hsize, (unsigned long long)pd->src.size);
		return -1;
	}
	uint64_t attr_size = pd_u64(h + 16);
	uint64_t attrs_off = pd_u64(h + 24), attrs_size = pd_u64(h + 32);
	pd->info.data_offset = pd_u64(h + 40);
	pd->info.data_size = pd_u64(h + 48);
	if (pd->info.data_offset > pd->src.size) {
		fail(err, errlen, pd, "its data section starts at 0x%llx, beyond the file's %llu bytes",
		     (unsigned long long)pd->info.data_offset, (unsigned long long)pd->src.size);
		return -1;
	}
	if (read_attrs(pd, attr_size, attrs_off, attrs_size, err, errlen))
		return -1;
	if (!pd->info.nattrs) {
		fail(err, errlen, pd, "it has no event attributes (perf record was stopped before writing its header?)");
		return -1;
	}
	pd->pos = pd->info.data_offset;
	if (pd->info.data_size > pd->src.size - pd->info.data_offset) {
		/* a file cut short: read what is there, say it at the end */
		pd->end = pd->src.size;
		snprintf(pd->failure, sizeof pd->failure, "the file ends %llu bytes into its data section of %llu bytes "
			 "(cut short)", (unsigned long long)(pd->src.size - pd->info.data_offset),
			 (unsigned long long)pd->info.data_size);
	} else {
		pd->end = pd->info.data_offset + pd->info.data_size;
		if (hsize >= PD_FILE_HEADER_SIZE)
			read_features(pd, h + 72);
	}
	pd_settle_id_positions(pd);
	if (pd->ids_ambiguous) {
		fail(err, errlen, pd, "its %zu events have samples of different layouts without an event id in one "
				      "place: their samples cannot be told apart", pd->info.nattrs);
		return -1;
	}
	return 0;
}

static struct perfdata *new_reader(const char *name)
{
	struct perfdata *pd = calloc(1, sizeof *pd);
	if (!pd)
		return NULL;
	snprintf(pd->name, sizeof pd->name, "%s", name);
	pd->src.fd = -1;
	return pd;
}

int perfdata_open(const char *path, int fd, struct perfdata **out, char *err, size_t errlen)
{
	*out = NULL;
	if (fd < 0 && (fd = outpath_open_regular(path, err, errlen)) < 0)
		return -1;
	struct perfdata *pd = new_reader(path);
	struct stat st;
	if (!pd || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, pd ? strerror(errno) : "out of memory");
		close(fd);
		free(pd);
		return -1;
	}
	pd->src.fd = fd;
	pd->src.size = (uint64_t)st.st_size;
	if (open_common(pd, err, errlen)) {
		perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

int perfdata_open_stream(int fd, const char *name, struct perfdata **out, char *err, size_t errlen)
{
	*out = NULL;
	struct perfdata *pd = new_reader(name);
	if (!pd) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	pd->src.fd = fd;
	pd->src.stream = true;
	pd->src.size = UINT64_MAX;
	if (open_common(pd, err, errlen)) {
		perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

int perfdata_open_mem(const void *buf, size_t len, const char *name, struct perfdata **out, char *err,
		      size_t errlen)
{
	*out = NULL;
	struct perfdata *pd = new_reader(name);
	if (!pd) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	pd->src.mem = buf;
	pd->src.size = len;
	if (open_common(pd, err, errlen)) {
		perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void perfdata_close(struct perfdata *pd)
{
	if (!pd)
		return;
	struct perfdata_info *in = &pd->info;
	for (size_t i = 0; i < in->nattrs; i++)
		free(in->attrs[i].ids);
	free(in->attrs);
	free(in->hostname);
	free(in->osrelease);
	free(in->version);
	free(in->arch);
	free(in->cpudesc);
	free(in->cpuid);
	free_strings(in->cmdline, in->ncmdline);
	free_strings(in->core_siblings, in->ncore_siblings);
	free_strings(in->thread_siblings, in->nthread_siblings);
	for (size_t i = 0; i < in->nbuild_ids; i++)
		free(in->build_ids[i].filename);
	free(in->build_ids);
	for (size_t i = 0; i < in->ngroups; i++)
		free(in->groups[i].name);
	free(in->groups);
	for (size_t i = 0; i < in->npmus; i++)
		free(in->pmus[i].name);
	free(in->pmus);
	free(pd->id_keys);
	free(pd->id_vals);
	free(pd->rec);
	free(pd->payload);
	free(pd->scratch);
	free(pd->text);
	free(pd->pending);
	if (pd->src.fd >= 0)
		close(pd->src.fd);
	free(pd->src.buf);
	free(pd);
}

const struct perfdata_info *perfdata_info(const struct perfdata *pd)
{
	return &pd->info;
}

const struct perfdata_stats *perfdata_stats(const struct perfdata *pd)
{
	return &pd->stats;
}

/* -------------------------------------------------------------- records --- */
/* a cursor over the current record's bytes [at, end) */
struct rc {
	const uint8_t *p;
	size_t at, end;
	bool bad;
};

static uint64_t r64(struct rc *c)
{
	if (c->bad || c->end - c->at < 8 || c->at > c->end) {
		c->bad = true;
		return 0;
	}
	uint64_t v = pd_u64(c->p + c->at);
	c->at += 8;
	return v;
}

static uint32_t r32(struct rc *c)
{
	if (c->bad || c->end - c->at < 4 || c->at > c->end) {
		c->bad = true;
		return 0;
	}
	uint32_t v = pd_u32(c->p + c->at);
	c->at += 4;
	return v;
}

static void skip(struct rc *c, uint64_t n)
{
	if (c->bad || n > c->end - c->at)
		c->bad = true;
	else
		c->at += (size_t)n;
}

/* N u64 of the record into DST (SCRATCH_U64 at most) */
static void r64n(struct rc *c, uint64_t *dst, uint64_t n)
{
	if (c->bad || n > (c->end - c->at) / 8 || n > SCRATCH_U64) {
		c->bad = true;
		return;
	}
	memcpy(dst, c->p + c->at, (size_t)n * 8);
	c->at += (size_t)n * 8;
}

/* the sample_id trailer of attribute A's records: its size */
static size_t trailer_size(const struct perfdata_attr *a)
{
	if (!a || !(a->flags & PERFDATA_ATTR_SAMPLE_ID_ALL))
		return 0;
	uint64_t st = a->sample_type;
	return 8 * (size_t)(!!(st & PERFDATA_SAMPLE_TID) + !!(st & PERFDATA_SAMPLE_TIME) + !!(st & PERFDATA_SAMPLE_ID) +
			    !!(st & PERFDATA_SAMPLE_STREAM_ID) + !!(st & PERFDATA_SAMPLE_CPU) +
			    !!(st & PERFDATA_SAMPLE_IDENTIFIER));
}

static void read_trailer(const struct perfdata_attr *a, const uint8_t *p, size_t n, struct perfdata_where *w)
{
	struct rc c = { .p = p, .end = n };
	uint64_t st = a->sample_type;
	if (st & PERFDATA_SAMPLE_TID) {
		w->pid = r32(&c);
		w->tid = r32(&c);
		w->has_tid = true;
	}
	if (st & PERFDATA_SAMPLE_TIME) {
		w->time = r64(&c);
		w->has_time = true;
	}
	if (st & PERFDATA_SAMPLE_ID) {
		w->id = r64(&c);
		w->has_id = true;
	}
	if (st & PERFDATA_SAMPLE_STREAM_ID) {
		w->stream_id = r64(&c);
		w->has_stream_id = true;
	}
	if (st & PERFDATA_SAMPLE_CPU) {
		w->cpu = r32(&c);
		r32(&c);
		w->has_cpu = true;
	}
	if (st & PERFDATA_SAMPLE_IDENTIFIER) {
		w->id = r64(&c);
		w->has_id = true;
	}
}

/* the attribute of a record of SIZE bytes at P: by its event id where
 * the events need telling apart */
static const struct perfdata_attr *attr_of(struct perfdata *pd, const uint8_t *p, size_t size, bool sample)
{
	const struct perfdata_info *in = &pd->info;
	if (in->nattrs == 1)
		return &in->attrs[0];
	if (!in->nattrs)
		return NULL;
	if (sample) {
		if (pd->sample_id_pos < 0 || 8 + 8 * (size_t)pd->sample_id_pos + 8 > size)
			return pd->ids_ambiguous ? NULL : &in->attrs[0];
		return perfdata_attr_of_id(pd, pd_u64(p + 8 + 8 * (size_t)pd->sample_id_pos));
	}
	/* the trailer is there only with sample_id_all (which all events of
	 * a perf record session share) */
	if (!(in->attrs[0].flags & PERFDATA_ATTR_SAMPLE_ID_ALL))
		return &in->attrs[0];
	if (pd->other_id_pos < 0 || 8 + 8 * (size_t)pd->other_id_pos > size)
		return pd->ids_ambiguous ? NULL : &in->attrs[0];
	return perfdata_attr_of_id(pd, pd_u64(p + size - 8 * (size_t)pd->other_id_pos));
}

static int parse_sample(struct perfdata *pd, struct perfdata_record *r, const struct perfdata_attr *a)
{
	struct rc c = { .p = pd->rec, .at = 8, .end = r->size };
	struct perfdata_sample *s = &r->u.sample;
	struct perfdata_where *w = &r->where;
	uint64_t st = a->sample_type;
	uint64_t *read_v = pd->scratch, *read_id = pd->scratch + SCRATCH_U64 / 2;
	uint64_t *chain = pd->scratch + SCRATCH_U64, *br = pd->scratch + 2 * SCRATCH_U64;
	if (st & PERFDATA_SAMPLE_IDENTIFIER) {
		w->id = r64(&c);
		w->has_id = true;
	}
	if (st & PERFDATA_SAMPLE_IP) {
		s->ip = r64(&c);
		s->has_ip = true;
	}
	if (st & PERFDATA_SAMPLE_TID) {
		w->pid = r32(&c);
		w->tid = r32(&c);
		w->has_tid = true;
	}
	if (st & PERFDATA_SAMPLE_TIME) {
		w->time = r64(&c);
		w->has_time = true;
	}
	if (st & PERFDATA_SAMPLE_ADDR) {
		s->addr = r64(&c);
		s->has_addr = true;
	}
	if (st & PERFDATA_SAMPLE_ID) {
		w->id = r64(&c);
		w->has_id = true;
	}
	if (st & PERFDATA_SAMPLE_STREAM_ID) {
		w->stream_id = r64(&c);
		w->has_stream_id = true;
	}
	if (st & PERFDATA_SAMPLE_CPU) {
		w->cpu = r32(&c);
		r32(&c);
		w->has_cpu = true;
	}
	if (st & PERFDATA_SAMPLE_PERIOD) {
		s->period = r64(&c);
		s->has_period = true;
	} else if (!(a->flags & PERFDATA_ATTR_FREQ)) {
		s->period = a->sample_period;
	}
	if (st & PERFDATA_SAMPLE_READ) {
		uint64_t rf = a->read_format;
		uint64_t nr = 1;
		s->read_group = rf & PERFDATA_FORMAT_GROUP;
		if (s->read_group)
			nr = r64(&c);
		else
			read_v[0] = r64(&c);
		if (rf & PERFDATA_FORMAT_TOTAL_TIME_ENABLED)
			s->time_enabled = r64(&c);
		if (rf & PERFDATA_FORMAT_TOTAL_TIME_RUNNING)
			s->time_running = r64(&c);
		/* each value: the value (a group's), its id, its lost count */
		if (c.bad || nr > SCRATCH_U64 / 2)
			return -1;
		for (uint64_t i = 0; i < nr; i++) {
			if (s->read_group)
				read_v[i] = r64(&c);
			read_id[i] = (rf & PERFDATA_FORMAT_ID) ? r64(&c) : 0;
			if (rf & PERFDATA_FORMAT_LOST)
				r64(&c);
		}
		s->nread = (size_t)nr;
		s->read_values = read_v;
		s->read_ids = read_id;
	}
	if (st & PERFDATA_SAMPLE_CALLCHAIN) {
		uint64_t nr = r64(&c);
		r64n(&c, chain, nr);
		s->ncallchain = (size_t)nr;
		s->callchain = chain;
	}
	if (st & PERFDATA_SAMPLE_RAW) {
		s->raw_size = r32(&c);
		skip(&c, s->raw_size);
	}
	if (st & PERFDATA_SAMPLE_BRANCH_STACK) {
		uint64_t nr = r64(&c);
		if (a->branch_sample_type & (1ull << 17))	/* PERF_SAMPLE_BRANCH_HW_INDEX */
			r64(&c);
		if (nr > SCRATCH_U64 / 3)
			return -1;
		r64n(&c, br, 3 * nr);
		s->nbranch = (size_t)nr;
		s->branches = br;
		if (a->branch_sample_type & (1ull << 19))	/* PERF_SAMPLE_BRANCH_COUNTERS */
			skip(&c, 8 * nr);
	}
	if (st & PERFDATA_SAMPLE_REGS_USER) {
		uint64_t abi = r64(&c);
		if (abi) {
			/* at most 64 registers: the scratch's fourth quarter */
			uint64_t nregs = (uint64_t)__builtin_popcountll(a->sample_regs_user);
			r64n(&c, pd->scratch + 3 * SCRATCH_U64, nregs);
			if (!c.bad) {
				s->regs_abi = abi;
				s->regs_mask = a->sample_regs_user;
				s->nregs = (size_t)nregs;
				s->regs = pd->scratch + 3 * SCRATCH_U64;
			}
		}
	}
	if (st & PERFDATA_SAMPLE_STACK_USER) {
		uint64_t size = r64(&c);
		if (size) {
			size_t at = c.at;
			skip(&c, size);
			uint64_t dyn = r64(&c);
			if (!c.bad) {
				s->stack = pd->rec + at;
				s->nstack = (size_t)(dyn < size ? dyn : size);
			}
		}
	}
	if (st & (PERFDATA_SAMPLE_WEIGHT | PERFDATA_SAMPLE_WEIGHT_STRUCT)) {
		s->weight = r64(&c);
		s->has_weight = true;
	}
	if (st & PERFDATA_SAMPLE_DATA_SRC) {
		s->data_src = r64(&c);
		s->has_data_src = true;
	}
	if (st & PERFDATA_SAMPLE_TRANSACTION)
		s->transaction = r64(&c);
	if (st & PERFDATA_SAMPLE_REGS_INTR) {
		if (r64(&c))
			skip(&c, 8 * (uint64_t)__builtin_popcountll(a->sample_regs_intr));
	}
	if (st & PERFDATA_SAMPLE_PHYS_ADDR)
		s->phys_addr = r64(&c);
	if (st & PERFDATA_SAMPLE_CGROUP)
		r64(&c);
	if (st & PERFDATA_SAMPLE_DATA_PAGE_SIZE)
		r64(&c);
	if (st & PERFDATA_SAMPLE_CODE_PAGE_SIZE)
		r64(&c);
	if (st & PERFDATA_SAMPLE_AUX)
		skip(&c, r64(&c));
	return c.bad ? -1 : 0;
}

/* the NUL-terminated string in [at, end) of the record, kept in pd->text */
static const char *record_string(struct perfdata *pd, size_t at, size_t end)
{
	if (at >= end)
		return "";
	size_t n = 0;
	while (at + n < end && pd->rec[at + n])
		n++;
	if (n + 1 > pd->textcap) {
		char *t = realloc(pd->text, n + 1);
		if (!t)
			return "";
		pd->text = t;
		pd->textcap = n + 1;
	}
	memcpy(pd->text, pd->rec + at, n);
	pd->text[n] = 0;
	return pd->text;
}

static int damaged(struct perfdata *pd, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int damaged(struct perfdata *pd, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(pd->failure, sizeof pd->failure, "%s after %llu records: nothing after it is read", msg,
		 (unsigned long long)pd->stats.records);
	pd->failed = true;
	fail(err, errlen, pd, "%s", pd->failure);
	return -1;
}

static const char *type_text(uint32_t type, char *buf, size_t n)
{
	const char *t = perfdata_type_name(type);
	if (t)
		snprintf(buf, n, "a %s record", t);
	else
		snprintf(buf, n, "a record of type %u", type);
	return buf;
}

/* The fields of kernel record R (of attribute A, its trailer of TRAIL
 * bytes at the end): -1 when the record is too short for them */
static int parse_kernel_record(struct perfdata *pd, struct perfdata_record *r, size_t trail)
{
	size_t body = r->size - trail;
	struct rc c = { .p = pd->rec, .at = 8, .end = body };
	switch (r->type) {
	case PERFDATA_MMAP:
	case PERFDATA_MMAP2: {
		struct perfdata_mmap *m = &r->u.mmap;
		m->pid = r32(&c);
		m->tid = r32(&c);
		m->start = r64(&c);
		m->len = r64(&c);
		m->pgoff = r64(&c);
		if (r->type == PERFDATA_MMAP2) {
			m->mmap2 = true;
			if (r->misc & PERFDATA_MISC_MMAP_BUILD_ID) {
				if (c.end - c.at < 24 || c.bad)
					return -1;
				m->build_id_size = pd->rec[c.at] <= 20 ? pd->rec[c.at] : 20;
				memcpy(m->build_id, pd->rec + c.at + 4, 20);
				c.at += 24;
			} else {
				m->maj = r32(&c);
				m->min = r32(&c);
				m->ino = r64(&c);
				m->ino_generation = r64(&c);
			}
			m->prot = r32(&c);
			m->flags = r32(&c);
		} else {
			/* a plain MMAP is of code unless MISC_MMAP_DATA says not */
			m->prot = (r->misc & (1u << 13)) ? 1 /* PROT_READ */ : 5 /* PROT_READ | PROT_EXEC */;
		}
		if (c.bad)
			return -1;
		m->filename = record_string(pd, c.at, body);
		return 0;
	}
	case PERFDATA_COMM:
		r->u.comm.pid = r32(&c);
		r->u.comm.tid = r32(&c);
		if (c.bad)
			return -1;
		r->u.comm.exec = r->misc & PERFDATA_MISC_COMM_EXEC;
		r->u.comm.comm = record_string(pd, c.at, body);
		return 0;
	case PERFDATA_FORK:
	case PERFDATA_EXIT:
		r->u.task.pid = r32(&c);
		r->u.task.ppid = r32(&c);
		r->u.task.tid = r32(&c);
		r->u.task.ptid = r32(&c);
		r->u.task.time = r64(&c);
		break;
	case PERFDATA_LOST:
		r->u.lost.id = r64(&c);
		r->u.lost.lost = r64(&c);
		break;
	case PERFDATA_THROTTLE:
	case PERFDATA_UNTHROTTLE:
		r->u.throttle.time = r64(&c);
		r->u.throttle.id = r64(&c);
		r->u.throttle.stream_id = r64(&c);
		break;
	case PERFDATA_AUX:
		r->u.aux.offset = r64(&c);
		r->u.aux.size = r64(&c);
		r->u.aux.flags = r64(&c);
		break;
	case PERFDATA_ITRACE_START:
		r->u.itrace_start.pid = r32(&c);
		r->u.itrace_start.tid = r32(&c);
		break;
	case PERFDATA_LOST_SAMPLES:
		r->u.lost_samples = r64(&c);
		break;
	case PERFDATA_SWITCH:
	case PERFDATA_SWITCH_CPU_WIDE:
		r->u.sw.out = r->misc & PERFDATA_MISC_SWITCH_OUT;
		r->u.sw.preempt = r->u.sw.out && (r->misc & (1u << 14));
		if (r->type == PERFDATA_SWITCH_CPU_WIDE) {
			r->u.sw.cpu_wide = true;
			r->u.sw.next_prev_pid = r32(&c);
			r->u.sw.next_prev_tid = r32(&c);
		}
		break;
	default:
		break;
	}
	return c.bad ? -1 : 0;
}

/* perf's own records (64 and up) */
static int parse_user_record(struct perfdata *pd, struct perfdata_record *r, char *err, size_t errlen)
{
	struct rc c = { .p = pd->rec, .at = 8, .end = r->size };
	char why[512], tt[64];
	switch (r->type) {
	case PERFDATA_HEADER_ATTR: {
		/* the attribute (its own size), then its ids */
		if (r->size < 8 + PD_ATTR_SIZE_VER0)
			return damaged(pd, err, errlen, "an ATTR record of %u bytes at 0x%llx", r->size,
				       (unsigned long long)r->offset);
		uint32_t asz = pd_u32(pd->rec + 12);
		if (!asz)
			asz = PD_ATTR_SIZE_VER0;
		if (asz < PD_ATTR_SIZE_VER0 || asz > r->size - 8)
			return damaged(pd, err, errlen, "an ATTR record at 0x%llx with an attribute of %u bytes in %u",
				       (unsigned long long)r->offset, asz, r->size);
		size_t nids = (r->size - 8 - asz) / 8;
		uint64_t *ids = pd->scratch;
		memcpy(ids, pd->rec + 8 + asz, nids * 8);
		if (pd_add_attr(pd, pd->rec + 8, asz, ids, nids, why, sizeof why) ||
		    index_ids(pd, pd->info.nattrs - 1))
			return damaged(pd, err, errlen, "the ATTR record at 0x%llx: %s", (unsigned long long)r->offset, why);
		r->u.attr.index = (uint32_t)(pd->info.nattrs - 1);
		pd_settle_id_positions(pd);
		return 0;
	}
	case PERFDATA_HEADER_FEATURE: {
		uint64_t f = r64(&c);
		if (c.bad)
			return damaged(pd, err, errlen, "a FEATURE record of %u bytes at 0x%llx", r->size,
				       (unsigned long long)r->offset);
		r->u.feature.feature = f;
		if (f < PERFDATA_FEATS && pd_feature(pd, (unsigned)f, pd->rec + 16, r->size - 16, why, sizeof why))
			note_feature_damage(pd, why);
		else if (f < PERFDATA_FEATS)
			pd->info.have[f] = true;
		return 0;
	}
	case PERFDATA_HEADER_BUILD_ID:
		if (pd_build_id_record(pd, pd->rec, r->size, why, sizeof why))
			note_feature_damage(pd, why);
		return 0;
	case PERFDATA_EVENT_UPDATE: {
		uint64_t kind = r64(&c), id = r64(&c);
		struct perfdata_attr *a = (struct perfdata_attr *)perfdata_attr_of_id(pd, id);
		if (!c.bad && kind == 2 && a) {	/* PERF_EVENT_UPDATE__NAME */
			snprintf(a->name, sizeof a->name, "%s", record_string(pd, c.at, c.end));
			a->named = true;
		}
		return 0;
	}
	case PERFDATA_AUXTRACE_INFO:
		r->u.auxtrace_info.type = r32(&c);
		r32(&c);
		if (c.bad)
			break;
		r->u.auxtrace_info.npriv = (c.end - c.at) / 8;
		r64n(&c, pd->scratch, r->u.auxtrace_info.npriv);
		r->u.auxtrace_info.priv = pd->scratch;
		break;
	case PERFDATA_AUXTRACE:
		r->u.auxtrace.size = r64(&c);
		r->u.auxtrace.offset = r64(&c);
		r->u.auxtrace.reference = r64(&c);
		r->u.auxtrace.idx = r32(&c);
		r->u.auxtrace.tid = r32(&c);
		r->u.auxtrace.cpu = r32(&c);
		break;
	case PERFDATA_AUXTRACE_ERROR: {
		r->u.auxtrace_error.type = r32(&c);
		r->u.auxtrace_error.code = r32(&c);
		r->u.auxtrace_error.cpu = r32(&c);
		r->u.auxtrace_error.pid = r32(&c);
		r->u.auxtrace_error.tid = r32(&c);
		uint32_t fmt = r32(&c);
		r->u.auxtrace_error.ip = r64(&c);
		if (fmt)
			r->u.auxtrace_error.time = r64(&c);
		if (c.bad)
			break;
		size_t end = c.at + 64 < c.end ? c.at + 64 : c.end;
		r->u.auxtrace_error.msg = record_string(pd, c.at, end);
		break;
	}
	case PERFDATA_TIME_CONV:
		r->u.time_conv.time_shift = r64(&c);
		r->u.time_conv.time_mult = r64(&c);
		r->u.time_conv.time_zero = r64(&c);
		if (!c.bad && c.end - c.at >= 24) {
			r->u.time_conv.time_cycles = r64(&c);
			r->u.time_conv.time_mask = r64(&c);
			r->u.time_conv.cap_user_time_zero = pd->rec[c.at];
			r->u.time_conv.cap_user_time_short = pd->rec[c.at + 1];
			r->u.time_conv.extended = true;
		}
		break;
	case PERFDATA_COMPRESSED:
		return damaged(pd, err, errlen, "a COMPRESSED record at 0x%llx: the data is compressed (perf record -z), "
			       "which gus does not read; 'perf inject -i FILE -o NEW' writes it uncompressed",
			       (unsigned long long)r->offset);
	default:
		return 0;
	}
	if (c.bad)
		return damaged(pd, err, errlen, "%s of %u bytes at 0x%llx: too short for its fields",
			       type_text(r->type, tt, sizeof tt), r->size, (unsigned long long)r->offset);
	return 0;
}

int perfdata_next(struct perfdata *pd, struct perfdata_record *r, char *err, size_t errlen)
{
	char tt[64];
	if (pd->failed) {
		fail(err, errlen, pd, "%s", pd->failure);
		return -1;
	}
	memset(r, 0, sizeof *r);
	if (pd->pos >= pd->end) {
		/* a file cut inside its data section said so at the open */
		if (pd->failure[0]) {
			pd->failed = true;
			char msg[sizeof pd->failure];
			snprintf(msg, sizeof msg, "%s", pd->failure);
			return damaged(pd, err, errlen, "%s", msg);
		}
		return 0;
	}
	uint8_t h[8];
	if (pd->src.stream) {
		/* the records before this one are read: their bytes go; the
		 * stream's end is the data's */
		stream_drop(&pd->src, pd->pos);
		uint64_t have = pd_available(pd, pd->pos, 8);
		if (pd->src.read_errno) {
			pd->failed = true;
			return damaged(pd, err, errlen, "reading the stream at 0x%llx: %s", (unsigned long long)pd->pos,
				       strerror(pd->src.read_errno));
		}
		if (!have)
			return 0;
		pd->end = pd->src.eof ? pd->src.size : UINT64_MAX;
	}
	if (pd->end - pd->pos < 8 || pd_read_at(pd, pd->pos, h, 8)) {
		/* its type, when that much of it is there */
		uint64_t left = pd->end - pd->pos;
		if (left >= 4 && !pd_read_at(pd, pd->pos, h, 4))
			return damaged(pd, err, errlen, "the data ends %llu bytes into the header of %s at 0x%llx%s%s",
				       (unsigned long long)left, type_text(pd_u32(h), tt, sizeof tt),
				       (unsigned long long)pd->pos, pd->failure[0] ? ": " : "", pd->failure);
		return damaged(pd, err, errlen, "the data ends %llu bytes into a record's header at 0x%llx%s%s",
			       (unsigned long long)left, (unsigned long long)pd->pos, pd->failure[0] ? ": " : "",
			       pd->failure);
	}
	r->type = pd_u32(h);
	r->misc = pd_u16(h + 4);
	r->size = pd_u16(h + 6);
	r->offset = pd->pos;
	if (r->size < 8)
		return damaged(pd, err, errlen, "%s of size %u at 0x%llx (a record is at least its 8-byte header)",
			       type_text(r->type, tt, sizeof tt), r->size, (unsigned long long)pd->pos);
	if (pd->src.stream && pd_available(pd, pd->pos, r->size) < r->size)
		pd->end = pd->src.size;	/* it ended inside the record */
	if (r->size > pd->end - pd->pos)
		return damaged(pd, err, errlen, "%s of %u bytes at 0x%llx runs past the end of the data (0x%llx)%s%s",
			       type_text(r->type, tt, sizeof tt), r->size, (unsigned long long)pd->pos,
			       (unsigned long long)pd->end, pd->failure[0] ? ": " : "", pd->failure);
	if (pd_read_at(pd, pd->pos, pd->rec, r->size))
		return damaged(pd, err, errlen, "the record at 0x%llx cannot be read", (unsigned long long)pd->pos);
	uint64_t next = pd->pos + r->size;

	if (r->type == PERFDATA_SAMPLE) {
		const struct perfdata_attr *a = attr_of(pd, pd->rec, r->size, true);
		r->attr = a;
		if (!a) {
			pd->stats.samples_unknown_event++;
		} else if (parse_sample(pd, r, a)) {
			return damaged(pd, err, errlen, "a SAMPLE record of %u bytes at 0x%llx: shorter than its fields (%s)",
				       r->size, (unsigned long long)r->offset, a->name);
		}
	} else if (r->type < PERFDATA_HEADER_ATTR) {
		const struct perfdata_attr *a = attr_of(pd, pd->rec, r->size, false);
		size_t trail = trailer_size(a);
		r->attr = a;
		if (trail > r->size - 8)
			trail = 0;	/* not this event's trailer: its fields still parse */
		if (trail)
			read_trailer(a, pd->rec + r->size - trail, trail, &r->where);
		if (parse_kernel_record(pd, r, trail))
			return damaged(pd, err, errlen, "%s of %u bytes at 0x%llx: too short for its fields",
				       type_text(r->type, tt, sizeof tt), r->size, (unsigned long long)r->offset);
	} else {
		if (parse_user_record(pd, r, err, errlen))
			return -1;
		uint64_t extra = 0;
		if (r->type == PERFDATA_AUXTRACE) {
			extra = r->u.auxtrace.size;
		} else if (r->type == PERFDATA_HEADER_TRACING_DATA) {
			if (r->size < 12)
				return damaged(pd, err, errlen, "a TRACING_DATA record of %u bytes at 0x%llx", r->size,
					       (unsigned long long)r->offset);
			extra = pd_u32(pd->rec + 8);
		}
		if (pd->src.stream && extra <= PD_MAX_AUXTRACE && pd_available(pd, next, extra) < extra)
			pd->end = pd->src.size;
		if (extra > pd->end - next || extra > PD_MAX_AUXTRACE)
			return damaged(pd, err, errlen, "%s at 0x%llx says %llu bytes follow it; the data has %llu%s%s",
				       type_text(r->type, tt, sizeof tt), (unsigned long long)r->offset,
				       (unsigned long long)extra, (unsigned long long)(pd->end - next),
				       pd->failure[0] ? ": " : "", pd->failure);
		if (r->type == PERFDATA_AUXTRACE) {
			if (extra > pd->paycap) {
				uint8_t *p = realloc(pd->payload, extra);
				if (!p)
					return damaged(pd, err, errlen, "an AUXTRACE record of %llu bytes at 0x%llx: out of memory",
						       (unsigned long long)extra, (unsigned long long)r->offset);
				pd->payload = p;
				pd->paycap = extra;
			}
			if (pd_read_at(pd, next, pd->payload, extra))
				return damaged(pd, err, errlen, "the AUXTRACE data at 0x%llx cannot be read",
					       (unsigned long long)next);
			r->u.auxtrace.data = pd->payload;
			pd->stats.auxtrace_bytes += extra;
		}
		next += extra;
	}

	/* counted */
	struct perfdata_stats *s = &pd->stats;
	s->records++;
	if (r->type < PERFDATA_TYPES)
		s->by_type[r->type]++;
	else
		s->other_types++;
	switch (r->type) {
	case PERFDATA_LOST: s->lost_events += r->u.lost.lost; break;
	case PERFDATA_LOST_SAMPLES: s->lost_samples += r->u.lost_samples; break;
	case PERFDATA_THROTTLE: s->throttles++; break;
	case PERFDATA_UNTHROTTLE: s->unthrottles++; break;
	case PERFDATA_AUXTRACE_ERROR: s->auxtrace_errors++; break;
	case PERFDATA_AUX:
		s->aux_bytes += r->u.aux.size;
		s->aux_truncated += !!(r->u.aux.flags & PERFDATA_AUX_FLAG_TRUNCATED);
		s->aux_overwrite += !!(r->u.aux.flags & PERFDATA_AUX_FLAG_OVERWRITE);
		s->aux_partial += !!(r->u.aux.flags & PERFDATA_AUX_FLAG_PARTIAL);
		s->aux_collision += !!(r->u.aux.flags & PERFDATA_AUX_FLAG_COLLISION);
		break;
	default: break;
	}
	pd->pos = next;
	return 1;
}
