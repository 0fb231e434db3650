/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf ring-buffer records (src/collect/ptring.c). Input: a 12-byte
 * header, then the ring's bytes.
 *   [0]     bits 0-1: sample_type (PT sideband's, the sampler's, the
 *           sampler's with callchains, every parsed field, PERF_SAMPLE_READ
 *           and --call-graph dwarf's user registers (gus record's mask)
 *           and stack among them); bit 2: sample_id_all; bit 3: AUX snapshot mode;
 *           bits 4-7: read_format TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING,
 *           ID, GROUP
 *   [1]     log2 of the ring size (6..16), bit 7: read_format LOST
 *   [2..5]  tail (free-running, little-endian)
 *   [6..7]  head - tail
 *   [8..11] AUX head for the snapshot
 * Every record is read with ptring_next (each SAMPLE's callchain walked,
 * each MMAP turned into a gusdata_mmap), then the ring is drained again
 * through ptring_drain into a sink that touches everything, with a
 * 4 KiB AUX area; in snapshot mode a snapshot of it follows. */
#include <linux/perf_event.h>

#include "fuzz.h"
#include "ptring.h"

static uint8_t aux[4096];
static size_t touched;

static int s_mmap(void *ctx, const struct gusdata_mmap *m)
{
	(void)ctx;
	touched += strlen(m->filename) + (m->build_id ? strlen(m->build_id) : 0);
	return 0;
}

static int s_comm(void *ctx, uint64_t time, int pid, int tid, const char *comm, bool exec)
{
	(void)ctx, (void)time, (void)pid, (void)tid, (void)exec;
	touched += strlen(comm);
	return 0;
}

static int s_event(void *ctx, uint64_t time, int cpu, int pid, int tid, const char *kind, uint64_t a, uint64_t b)
{
	(void)ctx, (void)time, (void)cpu, (void)pid, (void)tid, (void)a, (void)b;
	touched += strlen(kind);
	return 0;
}

static int s_chunk(void *ctx, const struct gusdata_chunk *c)
{
	(void)ctx;
	uint8_t x = 0;
	for (size_t i = 0; i < c->size; i++)
		x ^= c->data[i];
	touched += x;
	return 0;
}

static bool s_build_id(void *bid_ctx, const char *filename, char *hex, size_t hexlen)
{
	(void)bid_ctx;
	if (strlen(filename) % 2)
		return false;
	snprintf(hex, hexlen, "%040x", 0);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t types[4] = {
		PTRING_SAMPLE_TYPE,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		PTRING_SAMPLE_PARSED,
	};
	if (size < 12)
		return 0;
	uint64_t sample_type = types[data[0] & 3];
	bool id_all = data[0] & 4, snapshot = data[0] & 8;
	unsigned lg = (data[1] & 0x7f) % 11 + 6;
	uint64_t read_format = (uint64_t)(data[0] >> 4) | ((data[1] & 0x80) ? PERF_FORMAT_LOST : 0);
	uint64_t rsize = 1ull << lg;
	uint64_t tail = (uint64_t)data[2] | (uint64_t)data[3] << 8 | (uint64_t)data[4] << 16 | (uint64_t)data[5] << 24;
	uint64_t head = tail + ((uint64_t)data[6] | (uint64_t)data[7] << 8);
	uint64_t aux_head = (uint64_t)data[8] | (uint64_t)data[9] << 8 | (uint64_t)data[10] << 16 |
			    (uint64_t)data[11] << 24;
	data += 12;
	size -= 12;
	uint8_t *ring = aligned_alloc(8, rsize);
	if (!ring)
		abort();
	memset(ring, 0, rsize);
	memcpy(ring, data, size < rsize ? size : rsize);
	if (!aux[1])
		for (size_t i = 0; i < sizeof aux; i++)
			aux[i] = (uint8_t)(i * 7 + 1);

	char err[256];
	struct ptring_reader *r = malloc(sizeof(*r));
	if (!r)
		abort();
	ptring_reader_init(r, ring, rsize, head, tail, sample_type, id_all);
	ptring_reader_set_read_format(r, read_format);
	ptring_reader_set_regs_user(r, 0xff0fffULL);
	struct ptring_record rec;
	for (int i = 0; i < 100000 && ptring_next(r, &rec, err, sizeof err) > 0; i++) {
		ptring_type_name(rec.type);
		if (rec.type == PERF_RECORD_SAMPLE)
			for (uint64_t k = 0; k < rec.u.sample.nr; k++)
				touched += ptring_callchain_at(&rec, k) & 1;
		if (rec.type == PERF_RECORD_SAMPLE) {
			for (uint64_t k = 0; k < rec.u.sample.regs_nr; k++)
				touched += ptring_reg_at(&rec, k) & 1;
			for (uint64_t k = 0; k < rec.u.sample.stack_dyn; k++)
				touched += rec.u.sample.stack[k] & 1;
		}
		if (rec.type == PERF_RECORD_SAMPLE)
			for (uint64_t k = 0; k < rec.u.sample.read_nr; k++) {
				uint64_t id;
				touched += (ptring_read_at(&rec, k, &id) ^ id) & 1;
			}
		if (rec.type == PERF_RECORD_MMAP || rec.type == PERF_RECORD_MMAP2) {
			struct gusdata_mmap m;
			char hex[41];
			ptring_mmap_of(&rec, rec.sid.time, &m, hex);
			touched += strlen(m.filename);
		}
	}

	struct collect_pt_stats st = { 0 };
	struct ptring_buffer b;
	if (!ptring_buffer_init(&b, 1, snapshot, aux, sizeof aux, &st)) {
		struct ptring_sink s = {
			.mmap = s_mmap, .comm = s_comm, .event = s_event, .chunk = s_chunk,
			.build_id = s_build_id,
		};
		ptring_reader_init(r, ring, rsize, head, tail, sample_type, id_all);
		ptring_drain(&b, r, &s, err, sizeof err);
		if (snapshot) {
			ptring_snapshot(&b, aux_head, 1, &s, err, sizeof err);
			ptring_snapshot(&b, aux_head * 3, 2, &s, err, sizeof err);
		}
		ptring_buffer_fini(&b);
	}
	free(r);
	free(ring);
	return 0;
}
