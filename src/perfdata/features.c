/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The feature sections of a perf.data (perf.data-file-format.txt, "Flags
 * section"), and the attributes and build-ids, which file mode keeps in
 * sections and pipe mode sends as records. Every count and length is
 * checked against the section it is read from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_internal.h"

/* a cursor over one section */
struct cur {
	const uint8_t *p;
	size_t n, at;
};

static bool get_u32(struct cur *c, uint32_t *v)
{
	if (c->n - c->at < 4)
		return false;
	*v = pd_u32(c->p + c->at);
	c->at += 4;
	return true;
}

static bool get_u64(struct cur *c, uint64_t *v)
{
	if (c->n - c->at < 8)
		return false;
	*v = pd_u64(c->p + c->at);
	c->at += 8;
	return true;
}

char *pd_strndup(const uint8_t *p, size_t len)
{
	size_t k = 0;
	while (k < len && p[k])
		k++;
	char *s = malloc(k + 1);
	if (!s)
		return NULL;
	memcpy(s, p, k);
	s[k] = 0;
	return s;
}

/* a perf_header_string: u32 len, then len bytes holding a NUL-terminated
 * string (padded) */
static bool get_string(struct cur *c, char **out)
{
	uint32_t len;
	if (!get_u32(c, &len) || len > c->n - c->at)
		return false;
	char *s = pd_strndup(c->p + c->at, len);
	if (!s)
		return false;
	c->at += len;
	*out = s;
	return true;
}

/* a perf_header_string_list: u32 nr, then nr strings */
static bool get_string_list(struct cur *c, char ***out, size_t *n)
{
	uint32_t nr;
	/* each string takes at least its length word */
	if (!get_u32(c, &nr) || nr > (c->n - c->at) / 4)
		return false;
	char **v = calloc((size_t)nr + 1, sizeof *v);
	if (!v)
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!get_string(c, &v[i])) {
			for (uint32_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return false;
		}
	*out = v;
	*n = nr;
	return true;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void pd_default_name(struct perfdata_attr *a)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses",
					  "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
					  "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					  "emulation-faults", "dummy", "bpf-output", "cgroup-switches" };
	if (a->type == PERFDATA_TYPE_HARDWARE && a->config < sizeof hw / sizeof *hw)
		snprintf(a->name, sizeof a->name, "%s", hw[a->config]);
	else if (a->type == PERFDATA_TYPE_SOFTWARE && a->config < sizeof sw / sizeof *sw)
		snprintf(a->name, sizeof a->name, "%s", sw[a->config]);
	else if (a->type == PERFDATA_TYPE_RAW)
		snprintf(a->name, sizeof a->name, "r%llx", (unsigned long long)a->config);
	else
		snprintf(a->name, sizeof a->name, "type %u config 0x%llx", a->type, (unsigned long long)a->config);
	a->named = false;
}

int pd_add_attr(struct perfdata *pd, const uint8_t *p, size_t len, const uint64_t *ids, size_t nids, char *why,
		size_t whylen)
{
	struct perfdata_info *in = &pd->info;
	if (len < PD_ATTR_SIZE_VER0) {
		snprintf(why, whylen, "an attribute of %zu bytes (the first perf_event_attr had %u)", len,
			 PD_ATTR_SIZE_VER0);
		return -1;
	}
	if (in->nattrs >= PD_MAX_ATTRS) {
		snprintf(why, whylen, "more than %u attributes", PD_MAX_ATTRS);
		return -1;
	}
	struct perfdata_attr *v = realloc(in->attrs, (in->nattrs + 1) * sizeof *v);
	if (!v) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	in->attrs = v;
	struct perfdata_attr *a = &v[in->nattrs];
	memset(a, 0, sizeof *a);
	/* the fields of perf_event_attr by their offsets; a field past the
	 * attribute's own size (an older perf) stays 0 */
	uint32_t own = pd_u32(p + 4) ? pd_u32(p + 4) : PD_ATTR_SIZE_VER0;
	uint8_t b[136] = { 0 };
	size_t take = len < own ? len : own;
	memcpy(b, p, take < sizeof b ? take : sizeof b);
	a->type = pd_u32(b);
	a->size = own;
	a->config = pd_u64(b + 8);
	a->sample_period = pd_u64(b + 16);
	a->sample_type = pd_u64(b + 24);
	a->read_format = pd_u64(b + 32);
	a->flags = pd_u64(b + 40);
	a->config1 = pd_u64(b + 56);
	a->config2 = pd_u64(b + 64);
	a->branch_sample_type = pd_u64(b + 72);
	a->sample_regs_user = pd_u64(b + 80);
	a->sample_stack_user = pd_u32(b + 88);
	a->sample_regs_intr = pd_u64(b + 96);
	pd_default_name(a);
	if (nids) {
		if (nids > PD_MAX_IDS || !(a->ids = malloc(nids * sizeof *a->ids))) {
			snprintf(why, whylen, "%zu ids: too many", nids);
			return -1;
		}
		memcpy(a->ids, ids, nids * sizeof *ids);
		a->nids = nids;
	}
	in->nattrs++;
	/* a name an earlier event description gave one of its ids */
	for (size_t i = 0; i < pd->npending; i++)
		for (size_t k = 0; k < a->nids; k++)
			if (pd->pending[i].id == a->ids[k]) {
				snprintf(a->name, sizeof a->name, "%s", pd->pending[i].name);
				a->named = true;
			}
	return 0;
}

int pd_pending_name(struct perfdata *pd, uint64_t id, const char *name)
{
	if (pd->npending >= PD_MAX_ATTRS)
		return 0;
	struct pd_pending *v = realloc(pd->pending, (pd->npending + 1) * sizeof *v);
	if (!v)
		return -1;
	pd->pending = v;
	v[pd->npending].id = id;
	snprintf(v[pd->npending].name, sizeof v->name, "%s", name);
	pd->npending++;
	return 0;
}

/* how many u64 of the sample layout come before the event id, -1 without */
static int sample_id_index(uint64_t st)
{
	if (st & PERFDATA_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERFDATA_SAMPLE_ID))
		return -1;
	int k = 0;
	k += !!(st & PERFDATA_SAMPLE_IP);
	k += !!(st & PERFDATA_SAMPLE_TID);
	k += !!(st & PERFDATA_SAMPLE_TIME);
	k += !!(st & PERFDATA_SAMPLE_ADDR);
	return k;
}

/* in the sample_id trailer, how many u64 from its end the id is (1: the
 * last), -1 without */
static int trailer_id_index(uint64_t st)
{
	if (st & PERFDATA_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERFDATA_SAMPLE_ID))
		return -1;
	int k = 1;
	k += !!(st & PERFDATA_SAMPLE_CPU);
	k += !!(st & PERFDATA_SAMPLE_STREAM_ID);
	return k;
}

void pd_settle_id_positions(struct perfdata *pd)
{
	const struct perfdata_info *in = &pd->info;
	pd->sample_id_pos = pd->other_id_pos = -1;
	pd->ids_ambiguous = false;
	if (in->nattrs < 2)
		return;
	pd->sample_id_pos = sample_id_index(in->attrs[0].sample_type);
	pd->other_id_pos = trailer_id_index(in->attrs[0].sample_type);
	for (size_t i = 1; i < in->nattrs; i++) {
		const struct perfdata_attr *a = &in->attrs[i];
		if (sample_id_index(a->sample_type) != pd->sample_id_pos ||
		    trailer_id_index(a->sample_type) != pd->other_id_pos || pd->sample_id_pos < 0)
			pd->ids_ambiguous = true;
	}
}

int pd_build_id_record(struct perfdata *pd, const uint8_t *p, size_t len, char *why, size_t whylen)
{
	/* header (8), pid (4), build_id[24] (20 bytes of id, then its size
	 * when misc has PERF_RECORD_MISC_BUILD_ID_SIZE), filename */
	if (len < 36) {
		snprintf(why, whylen, "a build-id record of %zu bytes", len);
		return -1;
	}
	struct perfdata_info *in = &pd->info;
	if (in->nbuild_ids >= (1u << 20)) {
		snprintf(why, whylen, "more than %u build-ids", 1u << 20);
		return -1;
	}
	struct perfdata_build_id *v = realloc(in->build_ids, (in->nbuild_ids + 1) * sizeof *v);
	if (!v) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	in->build_ids = v;
	struct perfdata_build_id *b = &v[in->nbuild_ids];
	memset(b, 0, sizeof *b);
	uint16_t misc = pd_u16(p + 4);
	b->misc = misc & PERFDATA_MISC_CPUMODE_MASK;
	b->pid = (int)pd_u32(p + 8);
	memcpy(b->id, p + 12, 20);
	b->size = 20;
	if ((misc & (1u << 15)) && p[32] <= 20)
		b->size = p[32];
	else if (!(misc & (1u << 15))) {
		/* an older perf padded a shorter id with zeros */
		while (b->size > 0 && !b->id[b->size - 1])
			b->size--;
	}
	for (size_t i = 0; i < b->size; i++)
		snprintf(b->hex + 2 * i, 3, "%02x", b->id[i]);
	if (!(b->filename = pd_strndup(p + 36, len - 36))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	in->nbuild_ids++;
	return 0;
}

static int build_ids(struct perfdata *pd, struct cur *c, char *why, size_t whylen)
{
	while (c->n - c->at >= 8) {
		uint16_t size = pd_u16(c->p + c->at + 6);
		if (size < 8 || size > c->n - c->at) {
			snprintf(why, whylen, "a build-id record of size %u at %zu of the section's %zu bytes", size, c->at,
				 c->n);
			return -1;
		}
		if (pd_build_id_record(pd, c->p + c->at, size, why, whylen))
			return -1;
		c->at += size;
	}
	return 0;
}

/* EVENT_DESC: names and ids of the attributes, matched to those of the
 * attribute section by their ids (or by their order where they have none) */
static int event_desc(struct perfdata *pd, struct cur *c, char *why, size_t whylen)
{
	uint32_t nr, sz;
	if (!get_u32(c, &nr) || !get_u32(c, &sz))
		goto short_;
	if (sz < PD_ATTR_SIZE_VER0 || sz > 4096) {
		snprintf(why, whylen, "attributes of %u bytes", sz);
		return -1;
	}
	for (uint32_t i = 0; i < nr; i++) {
		if (c->n - c->at < sz)
			goto short_;
		c->at += sz;	/* the attribute itself: the attribute section's (or HEADER_ATTR's) is taken */
		uint32_t nids;
		char *name = NULL;
		if (!get_u32(c, &nids) || !get_string(c, &name))
			goto short_;
		if (nids > (c->n - c->at) / 8) {
			free(name);
			goto short_;
		}
		uint64_t first = nids ? pd_u64(c->p + c->at) : 0;
		c->at += (size_t)nids * 8;
		struct perfdata_attr *a = nids ? (struct perfdata_attr *)perfdata_attr_of_id(pd, first) : NULL;
		if (!a && !pd->info.pipe && i < pd->info.nattrs)
			a = &pd->info.attrs[i];
		int rc = 0;
		if (a && name[0]) {
			snprintf(a->name, sizeof a->name, "%s", name);
			a->named = true;
		} else if (!a && nids && name[0]) {
			/* pipe mode: its HEADER_ATTR comes later */
			rc = pd_pending_name(pd, first, name);
		}
		free(name);
		if (rc) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
	}
	return 0;
short_:
	snprintf(why, whylen, "it ends inside an event's description");
	return -1;
}

static int group_desc(struct perfdata *pd, struct cur *c)
{
	uint32_t nr;
	if (!get_u32(c, &nr) || nr > (c->n - c->at) / 12)
		return -1;
	struct perfdata_group *g = calloc((size_t)nr + 1, sizeof *g);
	if (!g)
		return -1;
	uint32_t i = 0;
	for (; i < nr; i++)
		if (!get_string(c, &g[i].name) || !get_u32(c, &g[i].leader) || !get_u32(c, &g[i].members))
			break;
	if (i < nr) {
		for (uint32_t k = 0; k <= i && k < nr; k++)
			free(g[k].name);
		free(g);
		return -1;
	}
	for (size_t k = 0; k < pd->info.ngroups; k++)
		free(pd->info.groups[k].name);
	free(pd->info.groups);
	pd->info.groups = g;
	pd->info.ngroups = nr;
	return 0;
}

static int pmu_mappings(struct perfdata *pd, struct cur *c)
{
	uint32_t nr;
	if (!get_u32(c, &nr) || nr > (c->n - c->at) / 8)
		return -1;
	struct perfdata_pmu *v = calloc((size_t)nr + 1, sizeof *v);
	if (!v)
		return -1;
	uint32_t i = 0;
	for (; i < nr; i++)
		if (!get_u32(c, &v[i].type) || !get_string(c, &v[i].name))
			break;
	if (i < nr) {
		for (uint32_t k = 0; k < i; k++)
			free(v[k].name);
		free(v);
		return -1;
	}
	for (size_t k = 0; k < pd->info.npmus; k++)
		free(pd->info.pmus[k].name);
	free(pd->info.pmus);
	pd->info.pmus = v;
	pd->info.npmus = nr;
	return 0;
}

static bool set_string(struct cur *c, char **field)
{
	char *s;
	if (!get_string(c, &s))
		return false;
	free(*field);
	*field = s;
	return true;
}

static const char *const feature_names[] = {
	[PERFDATA_FEAT_TRACING_DATA] = "tracing data", [PERFDATA_FEAT_BUILD_ID] = "build-ids",
	[PERFDATA_FEAT_HOSTNAME] = "hostname", [PERFDATA_FEAT_OSRELEASE] = "os release",
	[PERFDATA_FEAT_VERSION] = "perf version", [PERFDATA_FEAT_ARCH] = "arch",
	[PERFDATA_FEAT_NRCPUS] = "nrcpus", [PERFDATA_FEAT_CPUDESC] = "cpudesc", [PERFDATA_FEAT_CPUID] = "cpuid",
	[PERFDATA_FEAT_TOTAL_MEM] = "total memory", [PERFDATA_FEAT_CMDLINE] = "cmdline",
	[PERFDATA_FEAT_EVENT_DESC] = "event descriptions", [PERFDATA_FEAT_CPU_TOPOLOGY] = "cpu topology",
	[PERFDATA_FEAT_NUMA_TOPOLOGY] = "numa topology", [PERFDATA_FEAT_PMU_MAPPINGS] = "pmu mappings",
	[PERFDATA_FEAT_GROUP_DESC] = "group descriptions", [PERFDATA_FEAT_AUXTRACE] = "auxtrace index",
	[PERFDATA_FEAT_SAMPLE_TIME] = "sample time", [PERFDATA_FEAT_CLOCK_DATA] = "clock data",
};

static const char *feature_name(unsigned feat)
{
	return feat < sizeof feature_names / sizeof *feature_names && feature_names[feat] ? feature_names[feat]
											  : "feature";
}

int pd_feature(struct perfdata *pd, unsigned feat, const uint8_t *p, size_t len, char *why, size_t whylen)
{
	struct perfdata_info *in = &pd->info;
	struct cur c = { .p = p, .n = len };
	bool ok = true;
	why[0] = 0;
	switch (feat) {
	case PERFDATA_FEAT_BUILD_ID:
		if (build_ids(pd, &c, why, whylen))
			goto bad;
		break;
	case PERFDATA_FEAT_HOSTNAME: ok = set_string(&c, &in->hostname); break;
	case PERFDATA_FEAT_OSRELEASE: ok = set_string(&c, &in->osrelease); break;
	case PERFDATA_FEAT_VERSION: ok = set_string(&c, &in->version); break;
	case PERFDATA_FEAT_ARCH: ok = set_string(&c, &in->arch); break;
	case PERFDATA_FEAT_CPUDESC: ok = set_string(&c, &in->cpudesc); break;
	case PERFDATA_FEAT_CPUID: ok = set_string(&c, &in->cpuid); break;
	case PERFDATA_FEAT_NRCPUS: ok = get_u32(&c, &in->nr_cpus_available) && get_u32(&c, &in->nr_cpus_online); break;
	case PERFDATA_FEAT_TOTAL_MEM: ok = get_u64(&c, &in->total_mem_kb); break;
	case PERFDATA_FEAT_CMDLINE: {
		char **v;
		size_t n;
		if (!(ok = get_string_list(&c, &v, &n)))
			break;
		free_list(in->cmdline, in->ncmdline);
		in->cmdline = v;
		in->ncmdline = n;
		break;
	}
	case PERFDATA_FEAT_EVENT_DESC:
		if (event_desc(pd, &c, why, whylen))
			goto bad;
		break;
	case PERFDATA_FEAT_CPU_TOPOLOGY: {
		char **cores, **threads;
		size_t nc, nt;
		if (!(ok = get_string_list(&c, &cores, &nc)))
			break;
		if (!(ok = get_string_list(&c, &threads, &nt))) {
			free_list(cores, nc);
			break;
		}
		free_list(in->core_siblings, in->ncore_siblings);
		free_list(in->thread_siblings, in->nthread_siblings);
		in->core_siblings = cores;
		in->ncore_siblings = nc;
		in->thread_siblings = threads;
		in->nthread_siblings = nt;
		break;
	}
	case PERFDATA_FEAT_GROUP_DESC: ok = !group_desc(pd, &c); break;
	case PERFDATA_FEAT_PMU_MAPPINGS: ok = !pmu_mappings(pd, &c); break;
	case PERFDATA_FEAT_SAMPLE_TIME: ok = get_u64(&c, &in->sample_time_first) && get_u64(&c, &in->sample_time_last); break;
	case PERFDATA_FEAT_CLOCK_DATA: {
		uint32_t version;
		ok = get_u32(&c, &version) && get_u32(&c, &in->clockid) && get_u64(&c, &in->clock_wall_ns) &&
		     get_u64(&c, &in->clock_clockid_ns);
		break;
	}
	case PERFDATA_FEAT_AUXTRACE:
		/* the index of the AUXTRACE records: u64 nr, then nr (offset,
		 * size); gus reads the records themselves in order */
		ok = get_u64(&c, &in->auxtrace_index_entries) && in->auxtrace_index_entries <= (len - 8) / 16;
		break;
	default:
		/* topology of NUMA, caches, memory, PMU capabilities, BPF,
		 * compression: not what gus reports */
		break;
	}
	if (feat < PERFDATA_FEATS)
		in->have[feat] = true;
	if (ok)
		return 0;
	snprintf(why, whylen, "it ends before what it holds (%zu bytes)", len);
bad:;
	char msg[400];
	snprintf(msg, sizeof msg, "%s", why);
	snprintf(why, whylen, "the %s section: %s", feature_name(feat), msg);
	return -1;
}
