/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfdata: a reader of the perf.data files perf record writes, in file
 * mode and in pipe mode (perf record -o -), from perf 3.x to 6.x, written
 * from the format's specification (the kernel's
 * tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h). A perf.data is untrusted input: every
 * size and count is checked against the file and the record it is in, and
 * a damaged file is read up to its damage, which is said.
 *
 * perfdata_open reads the header, the attributes and their ids, and (file
 * mode) the feature sections; perfdata_next then gives the data section's
 * records one at a time, as they are in the file (not sorted by time).
 * In pipe mode the attributes, features and build-ids come as records of
 * the stream and perfdata_info fills as they are read. No system call but
 * reading the file; no other gus module. */
#ifndef GUS_PERFDATA_H
#define GUS_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* record types (perf_event.h, and perf's own from 64 on) */
enum {
	PERFDATA_MMAP = 1,
	PERFDATA_LOST = 2,
	PERFDATA_COMM = 3,
	PERFDATA_EXIT = 4,
	PERFDATA_THROTTLE = 5,
	PERFDATA_UNTHROTTLE = 6,
	PERFDATA_FORK = 7,
	PERFDATA_READ = 8,
	PERFDATA_SAMPLE = 9,
	PERFDATA_MMAP2 = 10,
	PERFDATA_AUX = 11,
	PERFDATA_ITRACE_START = 12,
	PERFDATA_LOST_SAMPLES = 13,
	PERFDATA_SWITCH = 14,
	PERFDATA_SWITCH_CPU_WIDE = 15,
	PERFDATA_NAMESPACES = 16,
	PERFDATA_KSYMBOL = 17,
	PERFDATA_BPF_EVENT = 18,
	PERFDATA_CGROUP = 19,
	PERFDATA_TEXT_POKE = 20,
	PERFDATA_AUX_OUTPUT_HW_ID = 21,
	PERFDATA_HEADER_ATTR = 64,
	PERFDATA_HEADER_EVENT_TYPE = 65,
	PERFDATA_HEADER_TRACING_DATA = 66,
	PERFDATA_HEADER_BUILD_ID = 67,
	PERFDATA_FINISHED_ROUND = 68,
	PERFDATA_ID_INDEX = 69,
	PERFDATA_AUXTRACE_INFO = 70,
	PERFDATA_AUXTRACE = 71,
	PERFDATA_AUXTRACE_ERROR = 72,
	PERFDATA_THREAD_MAP = 73,
	PERFDATA_CPU_MAP = 74,
	PERFDATA_STAT_CONFIG = 75,
	PERFDATA_STAT = 76,
	PERFDATA_STAT_ROUND = 77,
	PERFDATA_EVENT_UPDATE = 78,
	PERFDATA_TIME_CONV = 79,
	PERFDATA_HEADER_FEATURE = 80,
	PERFDATA_COMPRESSED = 81,
	PERFDATA_FINISHED_INIT = 82,
	PERFDATA_TYPES = 128	/* counted per type below this */
};

/* the name perf gives record type TYPE ("SAMPLE", "MMAP2"...), NULL when unknown */
const char *perfdata_type_name(uint32_t type);

/* header.misc: where a sample or mapping was (cpumode), and flags */
#define PERFDATA_MISC_CPUMODE_MASK 7u
#define PERFDATA_MISC_KERNEL 1u
#define PERFDATA_MISC_USER 2u
#define PERFDATA_MISC_HYPERVISOR 3u
#define PERFDATA_MISC_GUEST_KERNEL 4u
#define PERFDATA_MISC_GUEST_USER 5u
#define PERFDATA_MISC_SWITCH_OUT (1u << 13)	/* SWITCH records */
#define PERFDATA_MISC_COMM_EXEC (1u << 13)	/* COMM records */
#define PERFDATA_MISC_MMAP_BUILD_ID (1u << 14)	/* MMAP2 records carry a build-id */

/* sample_type bits (perf_event.h) */
#define PERFDATA_SAMPLE_IP (1ull << 0)
#define PERFDATA_SAMPLE_TID (1ull << 1)
#define PERFDATA_SAMPLE_TIME (1ull << 2)
#define PERFDATA_SAMPLE_ADDR (1ull << 3)
#define PERFDATA_SAMPLE_READ (1ull << 4)
#define PERFDATA_SAMPLE_CALLCHAIN (1ull << 5)
#define PERFDATA_SAMPLE_ID (1ull << 6)
#define PERFDATA_SAMPLE_CPU (1ull << 7)
#define PERFDATA_SAMPLE_PERIOD (1ull << 8)
#define PERFDATA_SAMPLE_STREAM_ID (1ull << 9)
#define PERFDATA_SAMPLE_RAW (1ull << 10)
#define PERFDATA_SAMPLE_BRANCH_STACK (1ull << 11)
#define PERFDATA_SAMPLE_REGS_USER (1ull << 12)
#define PERFDATA_SAMPLE_STACK_USER (1ull << 13)
#define PERFDATA_SAMPLE_WEIGHT (1ull << 14)
#define PERFDATA_SAMPLE_DATA_SRC (1ull << 15)
#define PERFDATA_SAMPLE_IDENTIFIER (1ull << 16)
#define PERFDATA_SAMPLE_TRANSACTION (1ull << 17)
#define PERFDATA_SAMPLE_REGS_INTR (1ull << 18)
#define PERFDATA_SAMPLE_PHYS_ADDR (1ull << 19)
#define PERFDATA_SAMPLE_AUX (1ull << 20)
#define PERFDATA_SAMPLE_CGROUP (1ull << 21)
#define PERFDATA_SAMPLE_DATA_PAGE_SIZE (1ull << 22)
#define PERFDATA_SAMPLE_CODE_PAGE_SIZE (1ull << 23)
#define PERFDATA_SAMPLE_WEIGHT_STRUCT (1ull << 24)
#define PERFDATA_SAMPLE_KNOWN ((1ull << 25) - 1)

/* read_format bits */
#define PERFDATA_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define PERFDATA_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define PERFDATA_FORMAT_ID (1ull << 2)
#define PERFDATA_FORMAT_GROUP (1ull << 3)
#define PERFDATA_FORMAT_LOST (1ull << 4)

/* the attribute flags word's bits gus looks at */
#define PERFDATA_ATTR_EXCLUDE_USER (1ull << 4)
#define PERFDATA_ATTR_EXCLUDE_KERNEL (1ull << 5)
#define PERFDATA_ATTR_FREQ (1ull << 10)
#define PERFDATA_ATTR_SAMPLE_ID_ALL (1ull << 18)

/* attribute types */
#define PERFDATA_TYPE_HARDWARE 0u
#define PERFDATA_TYPE_SOFTWARE 1u
#define PERFDATA_TYPE_TRACEPOINT 2u
#define PERFDATA_TYPE_HW_CACHE 3u
#define PERFDATA_TYPE_RAW 4u

/* One event of the recording: its perf_event_attr as far as gus uses it,
 * its name (the event description feature, an EVENT_UPDATE record, or
 * made from its type and config) and its ids. */
struct perfdata_attr {
	uint32_t type, size;
	uint64_t config, config1, config2;
	uint64_t sample_period;	/* the frequency when FLAGS has PERFDATA_ATTR_FREQ */
	uint64_t sample_type, read_format, flags;
	uint64_t branch_sample_type, sample_regs_user, sample_regs_intr;
	uint32_t sample_stack_user;
	char name[128];
	bool named;		/* NAME from the file, not made from type and config */
	uint64_t *ids;
	size_t nids;
};

/* a build-id the file names for a path (the build-id feature section, or
 * HEADER_BUILD_ID records) */
struct perfdata_build_id {
	int pid;
	uint16_t misc;		/* the cpumode: kernel, user, guest */
	uint8_t id[20];
	size_t size;		/* bytes of ID (20 for GNU's SHA-1 build-ids) */
	char hex[41];
	char *filename;
};

struct perfdata_group {
	char *name;		/* "{cycles,instructions}", or the name given */
	uint32_t leader;	/* index of the leader in the attributes */
	uint32_t members;
};

struct perfdata_pmu {
	uint32_t type;
	char *name;
};

/* feature bits (HEADER_*) */
enum {
	PERFDATA_FEAT_TRACING_DATA = 1,
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_OSRELEASE = 4,
	PERFDATA_FEAT_VERSION = 5,
	PERFDATA_FEAT_ARCH = 6,
	PERFDATA_FEAT_NRCPUS = 7,
	PERFDATA_FEAT_CPUDESC = 8,
	PERFDATA_FEAT_CPUID = 9,
	PERFDATA_FEAT_TOTAL_MEM = 10,
	PERFDATA_FEAT_CMDLINE = 11,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_CPU_TOPOLOGY = 13,
	PERFDATA_FEAT_NUMA_TOPOLOGY = 14,
	PERFDATA_FEAT_BRANCH_STACK = 15,
	PERFDATA_FEAT_PMU_MAPPINGS = 16,
	PERFDATA_FEAT_GROUP_DESC = 17,
	PERFDATA_FEAT_AUXTRACE = 18,
	PERFDATA_FEAT_STAT = 19,
	PERFDATA_FEAT_CACHE = 20,
	PERFDATA_FEAT_SAMPLE_TIME = 21,
	PERFDATA_FEAT_MEM_TOPOLOGY = 22,
	PERFDATA_FEAT_CLOCKID = 23,
	PERFDATA_FEAT_DIR_FORMAT = 24,
	PERFDATA_FEAT_BPF_PROG_INFO = 25,
	PERFDATA_FEAT_BPF_BTF = 26,
	PERFDATA_FEAT_COMPRESSED = 27,
	PERFDATA_FEAT_CPU_PMU_CAPS = 28,
	PERFDATA_FEAT_CLOCK_DATA = 29,
	PERFDATA_FEAT_HYBRID_TOPOLOGY = 30,
	PERFDATA_FEAT_PMU_CAPS = 31,
	PERFDATA_FEATS = 256
};

/* What the file says of itself: the header, the attributes, and the
 * features it has (HAVE[bit]); a string feature it lacks is NULL. */
struct perfdata_info {
	bool pipe;			/* pipe mode */
	uint64_t file_size;		/* UINT64_MAX: not known (a pipe) */
	uint64_t data_offset, data_size;	/* file mode: the data section */
	struct perfdata_attr *attrs;
	size_t nattrs;
	bool have[PERFDATA_FEATS];
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	char **cmdline;
	size_t ncmdline;
	uint32_t nr_cpus_available, nr_cpus_online;
	uint64_t total_mem_kb;
	/* CPU topology: the sibling lists (first revision) */
	char **core_siblings, **thread_siblings;
	size_t ncore_siblings, nthread_siblings;
	struct perfdata_build_id *build_ids;
	size_t nbuild_ids;
	struct perfdata_group *groups;
	size_t ngroups;
	struct perfdata_pmu *pmus;
	size_t npmus;
	uint64_t sample_time_first, sample_time_last;	/* SAMPLE_TIME, ns */
	uint32_t clockid;				/* CLOCK_DATA */
	uint64_t clock_wall_ns, clock_clockid_ns;
	uint64_t auxtrace_index_entries;		/* AUXTRACE feature */
	/* what a feature section held that the reader could not take (a
	 * size beyond its section): "FEATURE: why; ...", "" none */
	char feature_damage[512];
};

/* where, when and in which thread and CPU a record happened (the sample
 * fields of a sample, the sample_id trailer of other records when the
 * event has sample_id_all); HAS_* say which are known */
struct perfdata_where {
	bool has_tid, has_time, has_cpu, has_id, has_stream_id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id, stream_id;
};

struct perfdata_sample {
	uint64_t ip, addr, period;	/* 0 when not sampled (PERIOD absent: the attr's period) */
	bool has_ip, has_addr, has_period;
	/* PERF_SAMPLE_READ: one value per event read (a group's leader first,
	 * the members in order), their ids (0: not read), and the times */
	size_t nread;
	const uint64_t *read_values, *read_ids;
	uint64_t time_enabled, time_running;
	bool read_group;
	/* the call chain as the kernel wrote it: the sample's ip first, with
	 * context markers (>= PERFDATA_CONTEXT_MAX) where kernel and user
	 * parts start */
	size_t ncallchain;
	const uint64_t *callchain;
	/* PERF_SAMPLE_REGS_USER: the ABI (PERF_SAMPLE_REGS_ABI_*, 0: none)
	 * and NREGS values of the attr's sample_regs_user (REGS_MASK),
	 * lowest register first; PERF_SAMPLE_STACK_USER: the NSTACK bytes
	 * of it that hold the stack (dyn_size), from the stack pointer up */
	uint64_t regs_abi, regs_mask;
	size_t nregs;
	const uint64_t *regs;
	size_t nstack;
	const uint8_t *stack;
	/* the branch stack: NBRANCH entries of (from, to, flags) */
	size_t nbranch;
	const uint64_t *branches;	/* 3 * NBRANCH */
	bool has_weight, has_data_src;
	uint64_t weight, data_src, transaction, phys_addr;
	uint32_t raw_size;
};
/* callchain context markers are the top values of a u64 (-4095..-1) */
#define PERFDATA_CONTEXT_MAX ((uint64_t)-4095)

struct perfdata_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	bool mmap2;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;		/* MMAP2 only; a plain MMAP: PROT_EXEC unless MISC_MMAP_DATA */
	uint8_t build_id[20];
	size_t build_id_size;		/* > 0: the record carries a build-id */
	const char *filename;
};

/* One record of the data section. Pointers are valid until the next
 * perfdata_next. */
struct perfdata_record {
	uint32_t type;
	uint16_t misc;
	uint32_t size;			/* the record's, without an AUXTRACE payload */
	uint64_t offset;		/* in the file (pipe mode: in the stream) */
	/* the event it belongs to, NULL unknown; valid until the next
	 * perfdata_next (pipe mode's ATTR records may move the attributes) */
	const struct perfdata_attr *attr;
	struct perfdata_where where;
	union {
		struct perfdata_sample sample;
		struct perfdata_mmap mmap;
		struct {
			uint32_t pid, tid;
			const char *comm;
			bool exec;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;			/* FORK, EXIT */
		struct {
			uint64_t id, lost;
		} lost;			/* LOST */
		uint64_t lost_samples;	/* LOST_SAMPLES */
		struct {
			uint64_t time, id, stream_id;
		} throttle;		/* THROTTLE, UNTHROTTLE */
		struct {
			uint64_t offset, size, flags;
		} aux;			/* AUX */
		struct {
			uint32_t pid, tid;
		} itrace_start;
		struct {
			bool out, preempt;
			bool cpu_wide;
			uint32_t next_prev_pid, next_prev_tid;	/* CPU-wide only */
		} sw;			/* SWITCH, SWITCH_CPU_WIDE */
		struct {
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
			const uint8_t *data;	/* SIZE bytes of trace */
		} auxtrace;
		struct {
			uint32_t type;
			const uint64_t *priv;
			size_t npriv;
		} auxtrace_info;
		struct {
			uint32_t type, code, cpu, pid, tid;
			uint64_t ip, time;
			const char *msg;
		} auxtrace_error;
		struct {
			uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
			bool cap_user_time_zero, cap_user_time_short;
			bool extended;		/* the last four fields are there */
		} time_conv;
		struct {
			uint64_t feature;	/* a HEADER_FEATURE record's feature bit */
		} feature;
		struct {
			uint32_t index;		/* a HEADER_ATTR record's attribute */
		} attr;
	} u;
};

/* AUX record flags */
#define PERFDATA_AUX_FLAG_TRUNCATED 0x01u
#define PERFDATA_AUX_FLAG_OVERWRITE 0x02u
#define PERFDATA_AUX_FLAG_PARTIAL 0x04u
#define PERFDATA_AUX_FLAG_COLLISION 0x08u

/* What was read: records per type (by perf's type number, below
 * PERFDATA_TYPES; OTHER_TYPES those above), and the losses. */
struct perfdata_stats {
	uint64_t records;
	uint64_t by_type[PERFDATA_TYPES];
	uint64_t other_types;
	uint64_t lost_events;		/* the LOST records' counts */
	uint64_t lost_samples;		/* the LOST_SAMPLES records' counts */
	uint64_t throttles, unthrottles;
	uint64_t aux_bytes;		/* AUX records' sizes */
	uint64_t aux_truncated, aux_partial, aux_collision, aux_overwrite;
	uint64_t auxtrace_bytes;	/* AUXTRACE payloads */
	uint64_t auxtrace_errors;
	uint64_t samples_unknown_event;	/* samples whose event could not be told */
};

struct perfdata;

/* Whether the file at PATH starts like a perf.data (either mode, either
 * byte order); false when it cannot be read. */
bool perfdata_is_perf_data(const char *path);
/* Whether the first N bytes of P are the start of a perf.data. */
bool perfdata_magic(const void *p, size_t n);

/* Opens PATH (a regular file, FD already open on it when FD >= 0, owned by
 * the reader then) and reads its header, attributes and (file mode)
 * features. -1 with ERR naming the file and the problem: not a perf.data,
 * the other byte order, version 1, a header or section beyond the file,
 * attributes that cannot be told apart. */
int perfdata_open(const char *path, int fd, struct perfdata **out, char *err, size_t errlen);
/* The same on a stream read once (FD, a pipe such as the standard input
 * perf record -o - writes into; owned by the reader): pipe mode only,
 * each record's bytes held until the next is read. NAME names it in
 * messages. A file-mode perf.data is refused (its sections need seeks). */
int perfdata_open_stream(int fd, const char *name, struct perfdata **out, char *err, size_t errlen);
/* The same on LEN bytes at BUF (not copied: BUF must outlive the reader);
 * NAME names it in messages. */
int perfdata_open_mem(const void *buf, size_t len, const char *name, struct perfdata **out, char *err,
		      size_t errlen);
void perfdata_close(struct perfdata *pd);

const struct perfdata_info *perfdata_info(const struct perfdata *pd);
const struct perfdata_stats *perfdata_stats(const struct perfdata *pd);

/* The next record into *R: 1, or 0 at the end of the data, or -1 when the
 * data is damaged there (a size that does not fit, a record too short for
 * its type, a compressed record): ERR says where and what, the records
 * before it have been given and nothing after it is read (the next call
 * returns -1 again). */
int perfdata_next(struct perfdata *pd, struct perfdata_record *r, char *err, size_t errlen);

/* The attribute holding event id ID, NULL when none does. */
const struct perfdata_attr *perfdata_attr_of_id(const struct perfdata *pd, uint64_t id);
/* The PMU type number of NAME in the file's PMU mappings, -1 when absent. */
long perfdata_pmu_type(const struct perfdata *pd, const char *name);

#endif
