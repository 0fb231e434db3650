/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf.data reader on perf.data files recorded by perf on real
 * machines (tests/fixtures/perf-data, from Google's perf_data_converter):
 * their headers, features and records as perf report -D and perf report
 * --stat show them (perf 6.1), then every one of them truncated inside
 * each kind of record it holds, its record sizes broken, the other byte
 * order, and every prefix: read up to the damage, which is said with the
 * record's kind and offset; never a crash (the sanitized build checks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipt.h"
#include "perfdata.h"
#include "tap.h"

static const char *fixture_dir(void)
{
	static char dir[4096];
	const char *t = getenv("TESTDIR");
	snprintf(dir, sizeof dir, "%s/fixtures/perf-data", t ? t : "tests");
	return dir;
}

static uint8_t *load(const char *name, size_t *n)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", fixture_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return buf;
}

/* every record of BUF: 1 when read whole, 0 at damage (ERR set) */
struct readout {
	int ok;
	char err[1024];
	struct perfdata_stats st;
	uint64_t samples_with_chain;
	uint64_t first_offset[PERFDATA_TYPES];	/* where the first record of each type is */
	uint16_t first_size[PERFDATA_TYPES];
};

static int read_all(const uint8_t *buf, size_t n, struct readout *o)
{
	memset(o, 0, sizeof *o);
	struct perfdata *pd;
	if (perfdata_open_mem(buf, n, "test.data", &pd, o->err, sizeof o->err))
		return -1;
	struct perfdata_record r;
	int rc;
	while ((rc = perfdata_next(pd, &r, o->err, sizeof o->err)) > 0) {
		if (r.type == PERFDATA_SAMPLE && r.u.sample.ncallchain)
			o->samples_with_chain++;
		if (r.type < PERFDATA_TYPES && !o->first_offset[r.type]) {
			o->first_offset[r.type] = r.offset;
			o->first_size[r.type] = (uint16_t)r.size;
		}
	}
	o->st = *perfdata_stats(pd);
	o->ok = rc == 0;
	perfdata_close(pd);
	return 0;
}

struct expect {
	const char *file;
	bool pipe;
	uint64_t total;
	/* records by type as perf report --stat counts them */
	struct {
		uint32_t type;
		uint64_t n;
	} types[16];
	const char *cpuid;
	size_t nattrs;
	const char *first_event;
	size_t build_ids;	/* perf buildid-list -i FILE --with-hits lists these and more */
	uint64_t lost_samples, auxtrace_bytes;
};

static const struct expect files[] = {
	{ "perf.data.callgraph-3.8", false, 3798,
	  { { PERFDATA_MMAP, 1793 }, { PERFDATA_COMM, 229 }, { PERFDATA_EXIT, 6 }, { PERFDATA_FORK, 2 },
	    { PERFDATA_SAMPLE, 1768 } },
	  "GenuineIntel,6,42,7", 1, "cycles", 16, 0, 0 },
	{ "perf.data.group_desc-4.14", false, 50,
	  { { PERFDATA_MMAP, 21 }, { PERFDATA_COMM, 3 }, { PERFDATA_EXIT, 1 }, { PERFDATA_SAMPLE, 13 },
	    { PERFDATA_MMAP2, 10 }, { PERFDATA_FINISHED_ROUND, 1 }, { PERFDATA_TIME_CONV, 1 } },
	  "GenuineIntel,6,78,3", 2, "cache-references", 3, 0, 0 },
	{ "perf.data.intel_pt-4.14", false, 257,
	  { { PERFDATA_MMAP, 56 }, { PERFDATA_COMM, 3 }, { PERFDATA_EXIT, 1 }, { PERFDATA_SAMPLE, 15 },
	    { PERFDATA_MMAP2, 10 }, { PERFDATA_AUX, 10 }, { PERFDATA_ITRACE_START, 2 },
	    { PERFDATA_SWITCH_CPU_WIDE, 152 }, { PERFDATA_FINISHED_ROUND, 4 }, { PERFDATA_AUXTRACE_INFO, 1 },
	    { PERFDATA_AUXTRACE, 2 }, { PERFDATA_TIME_CONV, 1 } },
	  "GenuineIntel,6,78,3", 4, "intel_pt//", 66, 0, 0x2fd0 + 0x21a00 },
	{ "perf.data.lost_samples-4.4", false, 243,
	  { { PERFDATA_MMAP, 39 }, { PERFDATA_COMM, 3 }, { PERFDATA_EXIT, 1 }, { PERFDATA_SAMPLE, 191 },
	    { PERFDATA_MMAP2, 6 }, { PERFDATA_LOST_SAMPLES, 2 }, { PERFDATA_FINISHED_ROUND, 1 } },
	  "GenuineIntel,6,69,1", 3, "cycles:pp", 5, 2, 0 },
	{ "perf.data.piped.header_features_aligned-6.12", true, 45,
	  { { PERFDATA_COMM, 2 }, { PERFDATA_EXIT, 1 }, { PERFDATA_SAMPLE, 9 }, { PERFDATA_MMAP2, 4 },
	    { PERFDATA_HEADER_ATTR, 1 }, { PERFDATA_FINISHED_ROUND, 1 }, { PERFDATA_ID_INDEX, 1 },
	    { PERFDATA_THREAD_MAP, 1 }, { PERFDATA_CPU_MAP, 1 }, { PERFDATA_EVENT_UPDATE, 2 },
	    { PERFDATA_TIME_CONV, 1 }, { PERFDATA_HEADER_FEATURE, 20 }, { PERFDATA_FINISHED_INIT, 1 } },
	  "GenuineIntel,6,85,4", 1, "cycles:u", 0, 0, 0 },
	/* perf 6.1 stops at this one's first AUXTRACE record (it cannot
	 * decode the trace without the binaries) after printing the records
	 * before it; these counts are the reader's own, those records agree
	 * with perf report -D's */
	{ "perf.data.piped.intel_pt-4.14", true, 667,
	  { { PERFDATA_MMAP, 56 }, { PERFDATA_COMM, 3 }, { PERFDATA_EXIT, 1 }, { PERFDATA_SAMPLE, 11 },
	    { PERFDATA_MMAP2, 10 }, { PERFDATA_AUX, 8 }, { PERFDATA_ITRACE_START, 2 },
	    { PERFDATA_SWITCH_CPU_WIDE, 552 }, { PERFDATA_HEADER_ATTR, 4 }, { PERFDATA_FINISHED_ROUND, 4 },
	    { PERFDATA_AUXTRACE_INFO, 1 }, { PERFDATA_AUXTRACE, 2 }, { PERFDATA_TIME_CONV, 1 },
	    { PERFDATA_HEADER_FEATURE, 12 } },
	  "GenuineIntel,6,78,3", 4, "intel_pt//", 0, 0, 144592 },
};

static void check_file(const struct expect *e)
{
	size_t n;
	uint8_t *buf = load(e->file, &n);
	if (!tap_ok(buf != NULL, "%s: the fixture is there", e->file))
		return;
	char err[1024];
	struct perfdata *pd;
	if (!tap_ok(perfdata_open_mem(buf, n, e->file, &pd, err, sizeof err) == 0, "%s opens", e->file)) {
		printf("#   %s\n", err);
		free(buf);
		return;
	}
	const struct perfdata_info *in = perfdata_info(pd);
	tap_ok(in->pipe == e->pipe, "%s: %s mode", e->file, e->pipe ? "pipe" : "file");
	struct perfdata_record r;
	int rc;
	while ((rc = perfdata_next(pd, &r, err, sizeof err)) > 0)
		;
	tap_ok(rc == 0, "%s: read to its end without damage", e->file);
	if (rc)
		printf("#   %s\n", err);
	tap_streq(in->cpuid, e->cpuid, "%s: its cpuid feature", e->file);
	tap_ok(in->nattrs == e->nattrs, "%s: %zu events (got %zu)", e->file, e->nattrs, in->nattrs);
	if (in->nattrs)
		tap_streq(in->attrs[0].name, e->first_event, "%s: the first event's name", e->file);
	tap_ok(in->nbuild_ids == e->build_ids, "%s: %zu build-ids in its header (got %zu)", e->file, e->build_ids,
	       in->nbuild_ids);
	const struct perfdata_stats *st = perfdata_stats(pd);
	tap_ok(st->records == e->total, "%s: %llu records, as perf report --stat's TOTAL (got %llu)", e->file,
	       (unsigned long long)e->total, (unsigned long long)st->records);
	uint64_t listed = 0;
	bool all = true;
	for (size_t i = 0; i < sizeof e->types / sizeof *e->types && e->types[i].n; i++) {
		listed += e->types[i].n;
		if (st->by_type[e->types[i].type] != e->types[i].n) {
			all = false;
			printf("#   %s: %llu, want %llu\n", perfdata_type_name(e->types[i].type),
			       (unsigned long long)st->by_type[e->types[i].type], (unsigned long long)e->types[i].n);
		}
	}
	tap_ok(all && listed == st->records, "%s: the records of each type as perf counts them", e->file);
	tap_ok(st->lost_samples == e->lost_samples, "%s: %llu samples lost", e->file,
	       (unsigned long long)e->lost_samples);
	tap_ok(st->auxtrace_bytes == e->auxtrace_bytes, "%s: %llu bytes of AUX trace (got %llu)", e->file,
	       (unsigned long long)e->auxtrace_bytes, (unsigned long long)st->auxtrace_bytes);
	tap_ok(st->aux_bytes == st->auxtrace_bytes, "%s: the AUX records' sizes add up to the AUXTRACE data", e->file);
	perfdata_close(pd);
	free(buf);
}

/* Each kind of record of FILE cut in its middle, and given a size that
 * cannot be: the records before are read, the damage names its kind and
 * offset. In file mode a cut file is a data section cut short. */
static void check_damage(const char *file)
{
	size_t n;
	uint8_t *buf = load(file, &n);
	if (!buf)
		return;
	struct readout whole, o;
	read_all(buf, n, &whole);
	int cut_ok = 0, cut_n = 0, size_ok = 0, size_n = 0;
	for (uint32_t t = 1; t < PERFDATA_TYPES; t++) {
		uint64_t off = whole.first_offset[t];
		if (!off)
			continue;
		const char *name = perfdata_type_name(t);
		/* cut inside it */
		size_t cut = (size_t)off + whole.first_size[t] / 2;
		cut_n++;
		if (read_all(buf, cut, &o) == 0 && !o.ok && strstr(o.err, "test.data: ") &&
		    (strstr(o.err, name) || strstr(o.err, "cut short")))
			cut_ok++;
		else
			printf("#   %s cut at %zu: %s\n", name, cut, o.err);
		/* a size below its header */
		uint8_t *copy = malloc(n);
		memcpy(copy, buf, n);
		copy[off + 6] = 4;
		copy[off + 7] = 0;
		char want[64];
		snprintf(want, sizeof want, "%s record of size 4 at 0x%llx", name, (unsigned long long)off);
		size_n++;
		if (read_all(copy, n, &o) == 0 && !o.ok && strstr(o.err, want))
			size_ok++;
		else
			printf("#   %s of size 4: %s\n", name, o.err);
		free(copy);
	}
	tap_ok(cut_ok == cut_n, "%s: cut inside each of its %d kinds of record: the damage said", file, cut_n);
	tap_ok(size_ok == size_n, "%s: each kind of record with a size below its header: said with its offset", file);
	/* prefixes (up to 2000 of them, spread over the file: the fuzz
	 * target fuzz_perfdata explores the rest) and bytes overwritten:
	 * never a crash, and every refusal or damage said in words */
	size_t step = n > 2000 ? n / 2000 : 1, opened = 0, mute = 0;
	for (size_t k = 0; k <= n; k += step) {
		int rc = read_all(buf, k, &o);
		opened += rc == 0;
		mute += (rc != 0 || !o.ok) && !o.err[0];
	}
	tap_ok(mute == 0, "%s: %zu prefixes read (%zu open), none crashed, each refusal said (%zu not)", file,
	       n / step + 1, opened, mute);
	uint8_t *copy = malloc(n);
	uint32_t x = 2463534242u;
	size_t mute_copies = 0;
	for (int round = 0; round < 300; round++) {
		memcpy(copy, buf, n);
		for (int b = 0; b < 8; b++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			copy[x % n] = (uint8_t)(x >> 8);
		}
		int rc = read_all(copy, n, &o);
		mute_copies += (rc != 0 || !o.ok) && !o.err[0];
	}
	free(copy);
	tap_ok(mute_copies == 0, "%s: 300 copies with bytes overwritten read, none crashed, each refusal said (%zu not)",
	       file, mute_copies);
	free(buf);
}

static void check_refusals(void)
{
	size_t n;
	uint8_t *buf = load("perf.data.group_desc-4.14", &n);
	if (!buf)
		return;
	char err[1024];
	struct perfdata *pd;
	/* the magic of a big-endian machine */
	uint8_t *copy = malloc(n);
	memcpy(copy, buf, n);
	for (int i = 0; i < 8; i++)
		copy[i] = buf[7 - i];
	int rc = perfdata_open_mem(copy, n, "be.data", &pd, err, sizeof err);
	tap_ok(rc < 0 && strstr(err, "be.data: ") && strstr(err, "other byte order"),
	       "the other byte order is refused: %s", err);
	memcpy(copy, "PERFFILE", 8);
	rc = perfdata_open_mem(copy, n, "v1.data", &pd, err, sizeof err);
	tap_ok(rc < 0 && strstr(err, "version 1"), "version 1 is refused: %s", err);
	memcpy(copy, "SQLite f", 8);
	rc = perfdata_open_mem(copy, n, "x.db", &pd, err, sizeof err);
	tap_ok(rc < 0 && strstr(err, "not a perf.data"), "another file is not a perf.data: %s", err);
	tap_ok(!perfdata_magic(copy, n) && perfdata_magic(buf, n), "perfdata_magic tells them apart");
	/* the attribute section beyond the file */
	memcpy(copy, buf, n);
	uint64_t far = (uint64_t)n + 4096;
	memcpy(copy + 24, &far, 8);
	rc = perfdata_open_mem(copy, n, "x.data", &pd, err, sizeof err);
	tap_ok(rc < 0 && strstr(err, "attribute section"), "an attribute section beyond the file: %s", err);
	/* a data section said longer than the file: its records read, then
	 * the feature sections after them taken for records are damage */
	memcpy(copy, buf, n);
	uint64_t big = (uint64_t)n * 4;
	memcpy(copy + 48, &big, 8);
	struct readout o;
	rc = read_all(copy, n, &o);
	tap_ok(rc == 0 && !o.ok && strstr(o.err, " at 0x13d0 ") && o.st.by_type[PERFDATA_SAMPLE] == 13,
	       "a data section longer than the file: its records read, the damage after them said: %s", o.err);
	/* the same file cut inside its data: read up to the cut, said */
	rc = read_all(buf, 0x1000, &o);
	tap_ok(rc == 0 && !o.ok && strstr(o.err, "cut short") && o.st.records > 0,
	       "a file cut inside its data section: %llu records, then said cut short: %s",
	       (unsigned long long)o.st.records, o.err);
	free(copy);
	free(buf);
}

/* the damaged pipe-mode file perf writes about as "bad event header size" */
static void check_zero_size(void)
{
	size_t n;
	uint8_t *buf = load("perf.data.piped.corrupted.zero_size_sample-3.2", &n);
	if (!tap_ok(buf != NULL, "the damaged pipe-mode fixture is there"))
		return;
	struct readout o;
	read_all(buf, n, &o);
	tap_ok(!o.ok && strstr(o.err, "a SAMPLE record of size 0 at 0xbfd0") && strstr(o.err, "after 570 records"),
	       "zero_size_sample: the damage said where: %s", o.err);
	/* perf report -D prints these before its "bad event header size" */
	tap_ok(o.st.by_type[PERFDATA_MMAP] == 468 && o.st.by_type[PERFDATA_COMM] == 100 &&
	       o.st.by_type[PERFDATA_HEADER_ATTR] == 1 && o.st.by_type[PERFDATA_HEADER_EVENT_TYPE] == 1,
	       "zero_size_sample: what was read before it: 468 MMAP, 100 COMM, ATTR, EVENT_TYPE");
	free(buf);
}

/* details of the records as perf report -D prints them */
static void check_records(void)
{
	size_t n;
	uint8_t *buf = load("perf.data.callgraph-3.8", &n);
	if (!buf)
		return;
	struct perfdata *pd;
	char err[1024];
	if (perfdata_open_mem(buf, n, "cg", &pd, err, sizeof err)) {
		free(buf);
		return;
	}
	struct perfdata_record r;
	bool found = false;
	uint64_t chains = 0;
	while (perfdata_next(pd, &r, err, sizeof err) > 0) {
		if (r.type != PERFDATA_SAMPLE)
			continue;
		chains += r.u.sample.ncallchain > 0;
		/* 0x62b50: PERF_RECORD_SAMPLE(IP, 0x1): 10448/10448:
		 * 0xffffffff966b1b4a period: 125929, FP chain nr:6 */
		if (r.offset == 0x62b50) {
			found = r.u.sample.ip == 0xffffffff966b1b4aull && r.where.pid == 10448 &&
				r.u.sample.period == 125929 && r.u.sample.ncallchain == 6 &&
				r.u.sample.callchain[0] == 0xffffffffffffff80ull && r.where.time == 346834330834585ull &&
				r.where.cpu == 3;
		}
	}
	tap_ok(found, "callgraph-3.8: the sample at 0x62b50 as perf report -D prints it");
	tap_ok(chains == 1768, "callgraph-3.8: every sample has its call chain");
	const struct perfdata_info *in = perfdata_info(pd);
	tap_ok(in->ncmdline == 9 && !strcmp(in->cmdline[1], "record") && !strcmp(in->cmdline[5], "-g"),
	       "callgraph-3.8: the command line feature");
	perfdata_close(pd);
	free(buf);
	buf = load("perf.data.group_desc-4.14", &n);
	if (buf && !perfdata_open_mem(buf, n, "gd", &pd, err, sizeof err)) {
		in = perfdata_info(pd);
		tap_ok(in->ngroups == 1 && in->groups[0].leader == 0 && in->groups[0].members == 2,
		       "group_desc-4.14: one group of two events led by the first");
		tap_ok(in->nattrs == 2 && !strcmp(in->attrs[1].name, "branch-misses"), "group_desc-4.14: the second event");
		perfdata_close(pd);
	}
	free(buf);
	buf = load("perf.data.piped.header_features_aligned-6.12", &n);
	if (buf && !perfdata_open_mem(buf, n, "hf", &pd, err, sizeof err)) {
		while (perfdata_next(pd, &r, err, sizeof err) > 0)
			;
		in = perfdata_info(pd);
		tap_streq(in->hostname, "skanev.svl.corp.google.com", "6.12 pipe: the hostname feature record");
		tap_ok(in->nr_cpus_online == 12 && in->have[PERFDATA_FEAT_CPU_TOPOLOGY] && in->npmus > 0,
		       "6.12 pipe: the CPU count, topology and PMU mappings");
		perfdata_close(pd);
	}
	free(buf);
}

/* The Intel PT of FILE split into packets, each AUXTRACE record by itself
 * as perf report -D dumps them (FIRST_ONLY: the first record), against
 * the packets of each kind perf 6.1's dump shows. */
struct pt_want {
	const char *kind;
	uint64_t n;
};

static void check_pt(const char *file, bool first_only, const struct pt_want *want, size_t nwant, uint64_t total)
{
	size_t n;
	uint8_t *buf = load(file, &n);
	struct perfdata *pd;
	char err[1024];
	if (!buf || perfdata_open_mem(buf, n, file, &pd, err, sizeof err)) {
		tap_ok(0, "%s: opens", file);
		free(buf);
		return;
	}
	struct ipt_packet_counts c;
	memset(&c, 0, sizeof c);
	struct perfdata_record r;
	int records = 0;
	while (perfdata_next(pd, &r, err, sizeof err) > 0) {
		if (r.type != PERFDATA_AUXTRACE || (first_only && records))
			continue;
		records++;
		ipt_count_packets(r.u.auxtrace.data, (size_t)r.u.auxtrace.size, &c, err, sizeof err);
	}
	bool same = c.packets == total && !c.bad && !c.cut;
	uint64_t listed = 0;
	for (size_t i = 0; i < nwant; i++) {
		listed += want[i].n;
		for (int k = 0; k < IPT_PKT_KINDS; k++)
			if (!strcmp(ipt_packet_kind_name((enum ipt_packet_kind)k), want[i].kind) && c.by_kind[k] != want[i].n) {
				same = false;
				printf("#   %s: %llu, want %llu\n", want[i].kind, (unsigned long long)c.by_kind[k],
				       (unsigned long long)want[i].n);
			}
	}
	tap_ok(same && listed == total, "%s: %s split into %llu packets of the kinds perf report -D shows (got %llu)", file,
	       first_only ? "its first AUXTRACE record" : "its AUXTRACE records", (unsigned long long)total,
	       (unsigned long long)c.packets);
	perfdata_close(pd);
	free(buf);
}

int main(void)
{
	static const struct pt_want file_mode[] = {
		{ "CBR", 24 }, { "FUP", 149 }, { "MODE.Exec", 18 }, { "MODE.TSX", 16 }, { "MTC", 2802 }, { "PAD", 1538 },
		{ "PIP", 441 }, { "PSB", 10 }, { "PSBEND", 10 }, { "TIP", 12039 }, { "TIP.PGD", 10 }, { "TIP.PGE", 10 },
		{ "TMA", 24 }, { "TNT", 69516 }, { "TSC", 24 },
	};
	check_pt("perf.data.intel_pt-4.14", false, file_mode, sizeof file_mode / sizeof *file_mode, 86631);
	/* perf 6.1 dumps the pipe-mode file's first AUXTRACE record and then
	 * fails ("failed to process sample"). It dumps from 16 bytes before
	 * the trace: the record's own idx, tid, cpu and reserved fields
	 * (00 00 00 00 03 0e 00 00 ...: tid 3587), which it splits into a
	 * PAD, a CYC and a TNT before the PSB the trace starts with, and so
	 * stops 16 bytes short of its end, where the trace's last packet is a
	 * TIP.PGD (01, no ip). These are its 51444 packets without those
	 * three, with that one */
	static const struct pt_want pipe_first[] = {
		{ "CBR", 10 }, { "FUP", 59 }, { "MODE.Exec", 5 }, { "MODE.TSX", 11 }, { "MTC", 1561 },
		{ "PAD", 533 }, { "PIP", 143 }, { "PSB", 5 }, { "PSBEND", 5 }, { "TIP", 6289 }, { "TIP.PGE", 1 },
		{ "TIP.PGD", 1 }, { "TMA", 10 }, { "TNT", 42799 }, { "TSC", 10 },
	};
	check_pt("perf.data.piped.intel_pt-4.14", true, pipe_first, sizeof pipe_first / sizeof *pipe_first, 51442);
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		check_file(&files[i]);
	check_records();
	check_zero_size();
	check_refusals();
	check_damage("perf.data.group_desc-4.14");
	check_damage("perf.data.intel_pt-4.14");
	check_damage("perf.data.piped.intel_pt-4.14");
	check_damage("perf.data.piped.header_features_aligned-6.12");
	return tap_done();
}
