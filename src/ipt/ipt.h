/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ipt: Intel PT decoding with libipt's decoder against a memory image
 * built from the files the sideband names, yielding the instruction
 * stream (stream.h). Decode errors and overflows become counted gaps; the
 * decoder resumes at the next synchronisation point. */
#ifndef GUS_IPT_H
#define GUS_IPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define IPT_MAX_GAPS_KEPT 64

/* ------------------------------------------------------------ image --- */
struct ipt_image;

struct ipt_image *ipt_image_new(void);
void ipt_image_free(struct ipt_image *img);
/* Maps LEN bytes of PATH from file offset PGOFF at address START, as an
 * executable mmap record says. -1 with ERR when the file cannot be read. */
int ipt_image_add_file(struct ipt_image *img, const char *path, uint64_t pgoff, uint64_t len,
		       uint64_t start, char *err, size_t errlen);
/* Maps a copy of BUF (e.g. the saved vDSO) at START. */
int ipt_image_add_buffer(struct ipt_image *img, const void *buf, size_t len, uint64_t start,
			 char *err, size_t errlen);
/* Copies up to N bytes at ADDR into OUT; returns the count (0: unmapped). */
size_t ipt_image_read(const struct ipt_image *img, uint64_t addr, void *out, size_t n);

/* ---------------------------------------------------------- decoder --- */
struct ipt_cpu {
	unsigned family, model, stepping;	/* for libipt's errata; 0: none */
	unsigned mtc_freq, nom_freq;
	unsigned cpuid_15_eax, cpuid_15_ebx;
};

/* From trace time TSC on, THREAD (stream.h's numbering) runs on the CPU
 * whose trace is decoded: from the switch sideband. */
struct ipt_thread_span {
	uint64_t tsc;
	uint32_t thread;
};

struct ipt_decode_opts {
	struct ipt_cpu cpu;
	/* records are emitted only for instructions in these ranges (runtime
	 * addresses); decoding still follows everything. Empty: all. */
	const struct stream_range *ranges;
	size_t nranges;
	stream_sink sink;
	void *ctx;
	uint64_t max_insns;	/* stop after emitting this many (0: no limit) */
	/* the thread of the records: THREAD, or, with SPANS (sorted by tsc),
	 * the span in effect at the trace's last timestamp (TSC packets);
	 * before the first timestamp, the first span's */
	uint32_t thread;
	const struct ipt_thread_span *spans;
	size_t nspans;
};

struct ipt_gap {
	uint64_t offset;	/* trace offset of the error (bytes into the buffer) */
	uint64_t ip;		/* last known instruction address, 0 if none */
	int error;		/* libipt's negative pt_error_code */
	char what[64];		/* pt_errstr, or "overflow", "lost data" */
};

struct ipt_stats {
	uint64_t bytes;		/* trace bytes decoded */
	uint64_t insns;		/* instructions decoded */
	uint64_t emitted;	/* records passed to the sink (in ranges) */
	uint64_t gaps;		/* decode errors, overflows, lost data */
	uint64_t overflows;	/* of which OVF packets */
	uint64_t skipped_bytes;	/* trace bytes skipped while resynchronising */
	size_t ngaps_kept;
	struct ipt_gap gap[IPT_MAX_GAPS_KEPT];	/* the first ones */
};

/* Decodes one contiguous trace buffer (one CPU's or one thread's). Call
 * it again for the next buffer, or for data following a loss, with
 * LOST_BEFORE set: the first record emitted then carries STREAM_GAP and
 * the loss is counted. Statistics accumulate in ST (zero it first).
 * Returns 0, the sink's non-zero value, or -1 with ERR for a misuse
 * (never for bad trace data, which becomes gaps). */
int ipt_decode(const uint8_t *buf, size_t len, bool lost_before, const struct ipt_image *img,
	       const struct ipt_decode_opts *o, struct ipt_stats *st, char *err, size_t errlen);

/* -------------------------------------------------------- recording --- */
struct gusdata;

/* What decoding a recording found beyond the trace itself. */
struct ipt_recording_stats {
	size_t buffers;		/* per-CPU or per-thread trace buffers decoded */
	size_t images;		/* executable mappings put in the image */
	size_t missing_files;	/* mapped files that could not be read (their code is a gap) */
	size_t build_id_mismatches;	/* files that changed since the recording */
	char first_missing[256];
};

/* Decodes every trace buffer of the recording D: the image from its
 * executable mmap records (the saved vDSO included), the CPU from its
 * meta ("cpu.family", "cpu.model", "cpu.stepping"), the chunks of each
 * buffer in order, a new decode after lost or truncated data. Records
 * carry their thread: a per-thread buffer's, or in a per-CPU buffer the
 * one its switch sideband (itrace-start, switch-in events, perf time
 * turned into TSC by the meta pt.time_*) says ran; threads numbered as
 * stream.h says, processes by pid and threads by tid in increasing
 * order. O's thread and spans are ignored. */
int ipt_decode_recording(struct gusdata *d, const struct ipt_decode_opts *o, struct ipt_stats *st,
			 struct ipt_recording_stats *rs, char *err, size_t errlen);

/* ---------------------------------------------------------- packets --- */
/* The packets of a piece of trace, as perf script -D splits it (libipt's
 * packet decoder from its first byte, which a perf.data's AUXTRACE
 * record starts with): counted by kind, perf's names. Zero bytes right
 * after a packet, up to its eighth byte, are its padding (PAD_FOLDED), as
 * perf takes them; a PAD that starts a run of them is a packet. */
enum ipt_packet_kind {
	IPT_PKT_PAD, IPT_PKT_PSB, IPT_PKT_PSBEND, IPT_PKT_FUP, IPT_PKT_TIP, IPT_PKT_TIP_PGE, IPT_PKT_TIP_PGD,
	IPT_PKT_TNT, IPT_PKT_MODE_EXEC, IPT_PKT_MODE_TSX, IPT_PKT_PIP, IPT_PKT_VMCS, IPT_PKT_CBR, IPT_PKT_TSC,
	IPT_PKT_TMA, IPT_PKT_MTC, IPT_PKT_CYC, IPT_PKT_STOP, IPT_PKT_OVF, IPT_PKT_MNT, IPT_PKT_EXSTOP,
	IPT_PKT_MWAIT, IPT_PKT_PWRE, IPT_PKT_PWRX, IPT_PKT_PTW, IPT_PKT_KINDS
};
struct ipt_packet_counts {
	uint64_t by_kind[IPT_PKT_KINDS];
	uint64_t packets, bytes;
	uint64_t pad_folded;	/* PAD bytes taken as the padding of the packet before */
	uint64_t bad;		/* bytes that are no packet (each skipped, as perf does) */
	uint64_t cut;		/* bytes of a packet cut at the end of the piece */
};
/* "PAD", "TIP.PGE", "MODE.Exec"... as perf names the kind */
const char *ipt_packet_kind_name(enum ipt_packet_kind k);
/* The packets of the N bytes at BUF added to *C. -1 with ERR when libipt
 * cannot be set up. */
int ipt_count_packets(const uint8_t *buf, size_t n, struct ipt_packet_counts *c, char *err, size_t errlen);

#endif
