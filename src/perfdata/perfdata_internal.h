/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfdata's internals: the reader's state, the bytes it reads from, and
 * the feature sections' parser (features.c). */
#ifndef GUS_PERFDATA_INTERNAL_H
#define GUS_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfdata.h"

/* "PERFILE2" as the file's first eight bytes, read as a little-endian u64 */
#define PD_MAGIC2 0x32454c4946524550ull
#define PD_MAGIC2_SWAPPED 0x50455246494c4532ull
/* version 1 */
#define PD_MAGIC1 "PERFFILE"

#define PD_FILE_HEADER_SIZE 104u	/* perf_file_header, with the feature bitmap */
#define PD_PIPE_HEADER_SIZE 16u
#define PD_ATTR_SIZE_VER0 64u		/* the first perf_event_attr */
#define PD_MAX_RECORD 65535u		/* header.size is a u16 */
/* an AUXTRACE payload larger than this is taken for damage */
#define PD_MAX_AUXTRACE (1ull << 32)
#define PD_MAX_ATTRS 4096u
#define PD_MAX_IDS (1u << 22)

static inline uint64_t pd_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pd_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t pd_u16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* The bytes of the file: a descriptor read with pread, or memory; or a
 * stream (a pipe, read once): the bytes from BASE on that were read and
 * not dropped yet, a record at a time (its size UINT64_MAX until it
 * ends) */
#define PD_MAX_STREAM_BUFFER (PD_MAX_AUXTRACE + 2 * PD_MAX_RECORD)
struct pd_src {
	int fd;
	const uint8_t *mem;
	uint64_t size;
	bool stream, eof;
	uint8_t *buf;
	uint64_t base;
	size_t len, cap;
	int read_errno;		/* a read that failed, 0 none */
};

struct perfdata {
	char name[512];
	struct pd_src src;
	struct perfdata_info info;
	struct perfdata_stats stats;
	/* event id -> attribute index, open addressing (key 0 is never an
	 * id perf writes; a 0 id is kept apart) */
	uint64_t *id_keys;
	uint32_t *id_vals;
	size_t id_cap, id_n;
	/* where a record's event id is: the u64 index in a sample (-1: no
	 * id), counted from the end in another record's sample_id (-1: none) */
	int sample_id_pos, other_id_pos;
	bool ids_ambiguous;	/* attributes disagree on where the id is */
	/* the data */
	uint64_t pos, end;	/* the next record, the end of the data */
	bool failed;
	char failure[600];
	uint8_t *rec;		/* the current record, 8-aligned */
	size_t reccap;
	uint8_t *payload;	/* an AUXTRACE record's trace */
	size_t paycap;
	uint64_t *scratch;	/* read values, ids, call chain, branches */
	size_t scratchcap;
	char *text;		/* strings of the current record, NUL-terminated */
	size_t textcap;
	/* pipe mode: names of events described before their HEADER_ATTR */
	struct pd_pending {
		uint64_t id;
		char name[128];
	} *pending;
	size_t npending;
};

/* LEN bytes at OFF into BUF: 0, or -1 when the file ends before */
int pd_read_at(struct perfdata *pd, uint64_t off, void *buf, size_t len);
/* how many of the WANT bytes at OFF there are (a stream: read until it
 * has them or ends) */
uint64_t pd_available(struct perfdata *pd, uint64_t off, uint64_t want);

/* A feature section (file mode) or a HEADER_FEATURE record's data (pipe
 * mode), LEN bytes at P, into PD's info. -1 with WHY (the feature and the
 * problem) when it does not parse; what it held before is kept. */
int pd_feature(struct perfdata *pd, unsigned feat, const uint8_t *p, size_t len, char *why, size_t whylen);
/* A build-id record (the BUILD_ID section's, or HEADER_BUILD_ID) of LEN
 * bytes at P into PD's info. -1 with WHY when it is malformed. */
int pd_build_id_record(struct perfdata *pd, const uint8_t *p, size_t len, char *why, size_t whylen);
/* An attribute of LEN bytes at P (its own size field says how much of it
 * there is), with NIDS ids, appended to PD's info; -1 with WHY. */
int pd_add_attr(struct perfdata *pd, const uint8_t *p, size_t len, const uint64_t *ids, size_t nids, char *why,
		size_t whylen);
/* Remembers NAME for the attribute of event ID, not read yet; -1 out of memory. */
int pd_pending_name(struct perfdata *pd, uint64_t id, const char *name);
/* Where the event id is in samples and other records, once the
 * attributes are known; false with WHY when they disagree. */
void pd_settle_id_positions(struct perfdata *pd);
/* the name of ATTR made from its type and config */
void pd_default_name(struct perfdata_attr *a);
/* a malloc'ed copy of the NUL-terminated string in the first LEN bytes at
 * P (its end padded with NULs), or of all LEN bytes when it has none */
char *pd_strndup(const uint8_t *p, size_t len);

#endif
