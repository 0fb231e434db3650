/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A perf.data (either mode): perfdata_open_mem, every record through
 * perfdata_next to the end or to the damage (which must then be said),
 * the facts of the header looked at, and each AUXTRACE record's trace
 * split into Intel PT packets (ipt_count_packets); then the same bytes
 * read once as a stream (perfdata_open_stream, gus report -i -: a memfd
 * read with read()), which must give the same records. Seeds: perf.data
 * files of real machines (tests/fixtures/perf-data) and those
 * test_perfimport writes (TMA groups read at samples, Intel PT in file
 * and pipe mode, damaged). */
#include "fuzz.h"
#include "ipt.h"
#include "perfdata.h"

#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata *pd;
	char err[1024];
	if (perfdata_open_mem(data, size, "fuzz.data", &pd, err, sizeof err)) {
		if (!err[0])
			abort();	/* a refusal says why */
		return 0;
	}
	struct perfdata_record r;
	struct ipt_packet_counts pc;
	memset(&pc, 0, sizeof pc);
	uint64_t sum = 0;
	int rc;
	while ((rc = perfdata_next(pd, &r, err, sizeof err)) > 0) {
		switch (r.type) {
		case PERFDATA_SAMPLE:
			for (size_t i = 0; i < r.u.sample.ncallchain; i++)
				sum += r.u.sample.callchain[i];
			for (size_t i = 0; i < r.u.sample.nread; i++)
				sum += r.u.sample.read_values[i] + r.u.sample.read_ids[i];
			for (size_t i = 0; i < 3 * r.u.sample.nbranch; i++)
				sum += r.u.sample.branches[i];
			break;
		case PERFDATA_MMAP:
		case PERFDATA_MMAP2:
			sum += strlen(r.u.mmap.filename);
			break;
		case PERFDATA_COMM:
			sum += strlen(r.u.comm.comm);
			break;
		case PERFDATA_AUXTRACE:
			if (r.u.auxtrace.size && (r.u.auxtrace.data[0] | r.u.auxtrace.data[r.u.auxtrace.size - 1]))
				sum++;
			if (ipt_count_packets(r.u.auxtrace.data, (size_t)r.u.auxtrace.size, &pc, err, sizeof err))
				abort();
			break;
		case PERFDATA_AUXTRACE_INFO:
			for (size_t i = 0; i < r.u.auxtrace_info.npriv; i++)
				sum += r.u.auxtrace_info.priv[i];
			break;
		case PERFDATA_AUXTRACE_ERROR:
			sum += strlen(r.u.auxtrace_error.msg);
			break;
		default:
			break;
		}
	}
	if (rc < 0 && !strstr(err, "fuzz.data: "))
		abort();	/* damage is said, naming the input */
	/* the next call after the damage or the end says the same */
	if (perfdata_next(pd, &r, err, sizeof err) != (rc < 0 ? -1 : 0))
		abort();
	const struct perfdata_info *in = perfdata_info(pd);
	for (size_t i = 0; i < in->nattrs; i++) {
		sum += strlen(in->attrs[i].name);
		for (size_t k = 0; k < in->attrs[i].nids; k++)
			if (perfdata_attr_of_id(pd, in->attrs[i].ids[k]) == NULL && in->attrs[i].ids[k])
				abort();	/* every id is found (some attribute's) */
	}
	for (size_t i = 0; i < in->nbuild_ids; i++)
		sum += strlen(in->build_ids[i].filename) + strlen(in->build_ids[i].hex);
	for (size_t i = 0; i < in->ncmdline; i++)
		sum += strlen(in->cmdline[i]);
	for (size_t i = 0; i < in->ngroups; i++)
		sum += strlen(in->groups[i].name);
	for (size_t i = 0; i < in->npmus; i++)
		sum += strlen(in->pmus[i].name);
	const char *strings[] = { in->hostname, in->osrelease, in->version, in->arch, in->cpudesc, in->cpuid };
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		sum += strings[i] ? strlen(strings[i]) : 0;
	uint64_t records = perfdata_stats(pd)->records;
	perfdata_close(pd);
	/* the stream reader: pipe mode as the memory reader reads it, file
	 * mode refused */
	int fd = memfd_create("fuzz", 0);
	if (fd >= 0 && (size == 0 || write(fd, data, size) == (ssize_t)size) && lseek(fd, 0, SEEK_SET) == 0) {
		struct perfdata *ps;
		if (perfdata_open_stream(fd, "fuzz.data", &ps, err, sizeof err) == 0) {
			while (perfdata_next(ps, &r, err, sizeof err) > 0)
				if (r.type == PERFDATA_AUXTRACE && r.u.auxtrace.size)
					sum += r.u.auxtrace.data[r.u.auxtrace.size - 1];
			if (perfdata_stats(ps)->records != records && perfdata_info(ps)->pipe)
				abort();	/* a stream reads what the file holds */
			perfdata_close(ps);
		} else if (!err[0]) {
			abort();
		}
	} else if (fd >= 0) {
		close(fd);
	}
	/* keep SUM observable */
	if (sum == 0x5a5a5a5a5a5a5a5aull)
		fputc(0, stderr);
	return 0;
}
