/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test helper: a perf.data written as perf record writes one in file mode
 * (the format of the kernel's perf.data-file-format.txt and
 * perf_event.h): the header, the attributes with their ids, the data's
 * records, the feature sections after them. Records are built by the
 * caller from the pw_* helpers; each event's sample_id trailer is the one
 * its attribute's sample_type gives. */
#ifndef GUS_PERFDATA_WRITE_H
#define GUS_PERFDATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pw;

/* one event: perf_event_attr's fields the tests set */
struct pw_attr {
	uint32_t type;
	uint64_t config, sample_period, sample_type, read_format;
	bool freq, sample_id_all;
	const char *name;	/* the EVENT_DESC feature's name; NULL: none */
	uint64_t id;		/* its one id */
};

/* where a record happened: the sample fields / sample_id trailer */
struct pw_where {
	uint32_t pid, tid, cpu;
	uint64_t time;
};

struct pw *pw_new(void);
void pw_free(struct pw *w);
/* attribute index */
int pw_add_attr(struct pw *w, const struct pw_attr *a);
/* feature sections */
void pw_cpuid(struct pw *w, const char *cpuid);		/* "GenuineIntel,6,106,6" */
void pw_build_id(struct pw *w, const char *path, const char *hex);
void pw_pmu(struct pw *w, uint32_t type, const char *name);

/* records of event ATTR (its trailer, or the sample's fields) */
void pw_comm(struct pw *w, int attr, const struct pw_where *at, const char *comm);
void pw_mmap2(struct pw *w, int attr, const struct pw_where *at, uint64_t start, uint64_t len, uint64_t pgoff,
	      uint32_t prot, const char *file);
/* a sample of ATTR at IP (user mode); NREAD values of its group read
 * (each with the id of GROUP_ATTRS[k]) when its sample_type has READ */
void pw_sample(struct pw *w, int attr, const struct pw_where *at, uint64_t ip, uint64_t period,
	       const uint64_t *read, const int *group_attrs, size_t nread);
void pw_itrace_start(struct pw *w, int attr, const struct pw_where *at);
void pw_switch(struct pw *w, int attr, const struct pw_where *at, bool out);
void pw_aux(struct pw *w, int attr, const struct pw_where *at, uint64_t offset, uint64_t size, uint64_t flags);
/* perf's own records */
void pw_time_conv(struct pw *w, uint64_t shift, uint64_t mult, uint64_t zero);
void pw_auxtrace_info(struct pw *w, uint32_t type, const uint64_t *priv, size_t npriv);
/* LEN bytes of trace, padded to 8 with PAD packets (zero bytes) */
void pw_auxtrace(struct pw *w, const uint8_t *data, size_t len, uint64_t offset, uint32_t idx, uint32_t tid,
		 uint32_t cpu);
void pw_finished_round(struct pw *w);

/* the file: 0, or -1 (out of memory, a write error) */
int pw_write(struct pw *w, const char *path);
/* the same in pipe mode (perf record -o -): attributes, features and
 * build-ids as records before the data */
int pw_write_pipe(struct pw *w, const char *path);

#endif
