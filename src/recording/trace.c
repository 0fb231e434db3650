/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The instruction stream for gus sim --trace and gus script: the QEMU
 * tracer run live, or the Intel PT of a recording decoded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gusdata.h"
#include "merge.h"
#include "rec_internal.h"

struct bias_search {
	const char *exe;
	uint64_t bias;
	bool found;
	char err[512];
};

static int bias_of_mapping(void *ctx, const struct gusdata_mmap *m)
{
	struct bias_search *b = ctx;
	if (!(m->prot & PROT_EXEC) || strcmp(m->filename, b->exe))
		return 0;
	if (merge_elf_load_bias(b->exe, m->start, m->pgoff, &b->bias, b->err, sizeof b->err) == 0) {
		b->found = true;
		return 1;
	}
	return 0;
}

/* the recording's program and where it was loaded */
static enum recording_status recording_program(const struct recording_trace_opts *o, const char *path,
					       struct recording_trace_region *r)
{
	char err[1024];
	struct gusdata *d;
	if (gusdata_open(path, false, &d, err, sizeof err)) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	const char *exe = gusdata_meta(d, "exe");
	if (!exe || !*exe) {
		rec_error(&o->log, "%s: the recording does not name its program (meta 'exe' missing)", path);
		gusdata_close(d);
		return RECORDING_ERROR;
	}
	snprintf(r->program, sizeof r->program, "%s", exe);
	struct bias_search b = { .exe = r->program };
	gusdata_foreach_mmap(d, bias_of_mapping, &b);
	gusdata_close(d);
	if (!b.found) {
		/* no mapping of the program: its link-time addresses are taken
		 * as they are (right for a non-PIE program) */
		if (b.err[0])
			rec_warn(&o->log, "%s", b.err);
		r->bias = 0;
		return 0;
	}
	r->bias = b.bias;
	return 0;
}

/* --function F not in the program: the first of its libraries (in the
 * dynamic loader's order) that has F; R->program becomes that library */
static int find_in_libraries(const struct recording_trace_opts *o, struct recording_trace_region *r, uint64_t *start,
			     uint64_t *size)
{
	char **libs;
	size_t n;
	int rc = -1;
	if (merge_elf_libraries(r->program, &libs, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		char err[1024];
		if (rc && !merge_elf_symbol(libs[i], o->function, start, size, err, sizeof err)) {
			snprintf(r->exe, sizeof r->exe, "%s", r->program);
			snprintf(r->program, sizeof r->program, "%s", libs[i]);
			r->in_library = true;
			rc = 0;
			/* a recording: where its trace run had the library */
			struct gusdata *d;
			struct bias_search b = { .exe = r->program };
			if (o->recording && !gusdata_open(o->recording, false, &d, err, sizeof err)) {
				gusdata_foreach_mmap(d, bias_of_mapping, &b);
				gusdata_close(d);
			}
			r->bias = b.found ? b.bias : 0;
		}
		free(libs[i]);
	}
	free(libs);
	return rc;
}

enum recording_status recording_trace_resolve(const struct recording_trace_opts *o, const struct sim_machine *m,
					      struct recording_trace_region *r)
{
	memset(r, 0, sizeof *r);
	if (o->recording) {
		enum recording_status rc = recording_program(o, o->recording, r);
		if (rc)
			return rc;
	} else {
		enum recording_status rc = recording_find_program(o->argv[0], r->program, sizeof r->program, &o->log);
		if (rc)
			return rc;
	}
	char err[1024];
	if (o->function) {
		uint64_t start, size;
		if (merge_elf_symbol(r->program, o->function, &start, &size, err, sizeof err) &&
		    find_in_libraries(o, r, &start, &size)) {
			rec_error(&o->log, "%s, nor in the libraries it needs", err);
			return RECORDING_USAGE;
		}
		r->link = (struct stream_range){ start, start + size };
		snprintf(r->name, sizeof r->name, "%s", o->function);
		struct merge_code mc;
		uint64_t ls, le;
		if (o->innermost && m && merge_elf_function(r->program, o->function, &mc, err, sizeof err) == 0) {
			if (!sim_innermost_loop(m, mc.addr, mc.bytes, mc.len, &ls, &le) &&
			    (ls != mc.addr || le != mc.addr + mc.len)) {
				r->link = (struct stream_range){ ls, le };
				snprintf(r->name, sizeof r->name, "%s, innermost loop 0x%llx-0x%llx (--whole for all of it)",
					 o->function, (unsigned long long)ls, (unsigned long long)le);
			}
			merge_code_free(&mc);
		}
		r->restricted = true;
	} else if (o->range) {
		unsigned long long s, e;
		char tail;
		if (sscanf(o->range, "%llx-%llx%c", &s, &e, &tail) != 2 || e <= s)
			return rec_usage(&o->log, "--range: '%s' is not START-END in hex", o->range);
		r->link = (struct stream_range){ s, e };
		snprintf(r->name, sizeof r->name, "0x%llx-0x%llx", s, e);
		r->restricted = true;
	} else {
		snprintf(r->name, sizeof r->name, "all code");
	}
	r->run = (struct stream_range){ r->link.start + r->bias, r->link.end + r->bias };
	r->head = r->run.start;
	return 0;
}

static void warn_program_status(const struct recording_trace_opts *o, int wait_status, bool interrupted)
{
	if (interrupted)
		rec_warn(&o->log, "interrupted: the stream ends where the program was stopped");
	if (WIFSIGNALED(wait_status))
		rec_warn(&o->log, "%s was killed by signal %d (%s)", o->argv[0], WTERMSIG(wait_status),
			 strsignal(WTERMSIG(wait_status)));
	else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status))
		rec_warn(&o->log, "%s exited with status %d", o->argv[0], WEXITSTATUS(wait_status));
}

/* the region learns the program's load bias before the first record, so
 * that sinks can place runtime addresses */
struct qemu_wrap {
	struct recording_trace_region *r;
	stream_sink sink;
	void *ctx;
	struct stream_range offsets;	/* a library's region: its file offsets */
	bool placed;
};

static int qemu_wrap_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct qemu_wrap *w = ctx;
	return w->sink(w->ctx, v, n);
}

static void qemu_wrap_started(void *ctx, uint64_t bias)
{
	struct qemu_wrap *w = ctx;
	struct recording_trace_region *r = w->r;
	if (r->in_library)
		return;
	r->bias = bias;
	r->run = (struct stream_range){ r->link.start + bias, r->link.end + bias };
	r->head = r->run.start;
}

/* a library's region is placed by the first mapping of it that holds it */
static void qemu_wrap_mapped(void *ctx, size_t object, unsigned proc, uint64_t start, uint64_t len, uint64_t pgoff)
{
	struct qemu_wrap *w = ctx;
	struct recording_trace_region *r = w->r;
	(void)object, (void)proc;
	if (w->placed || w->offsets.start < pgoff || w->offsets.end > pgoff + len)
		return;
	r->bias = start + (w->offsets.start - pgoff) - r->link.start;
	r->run = (struct stream_range){ r->link.start + r->bias, r->link.end + r->bias };
	r->head = r->run.start;
	w->placed = true;
}

static enum recording_status run_qemu(const struct recording_trace_opts *o, struct recording_trace_region *r, stream_sink sink, void *ctx,
		    struct recording_trace_result *tr)
{
	char err[COLLECT_ERRLEN];
	struct qemu_wrap w = { r, sink, ctx, { 0, 0 }, false };
	struct collect_qemu_object lib = { .path = r->program, .ranges = &w.offsets, .nranges = 1 };
	if (r->in_library) {
		uint64_t last;
		if (merge_elf_file_offset(r->program, r->link.start, &w.offsets.start, err, sizeof err) ||
		    merge_elf_file_offset(r->program, r->link.end - 1, &last, err, sizeof err)) {
			rec_error(&o->log, "%s", err);
			return RECORDING_ERROR;
		}
		w.offsets.end = last + 1;
	}
	struct collect_qemu_opts qo = {
		.objects = r->in_library ? &lib : NULL,
		.nobjects = r->in_library ? 1 : 0,
		.mapped = qemu_wrap_mapped,
		.ranges = r->restricted ? &r->link : NULL,
		.nranges = r->restricted ? 1 : 0,
		.data_addresses = o->data_addresses,
		.max_insns = o->max_insns,
		.sink = qemu_wrap_sink,
		.ctx = &w,
		.started = qemu_wrap_started,
	};
	tr->qemu = true;
	enum collect_status st = collect_qemu_run(o->argv, &qo, &tr->qemu_stats, &tr->res, err, sizeof err);
	if (st == COLLECT_EXEC_FAILED) {
		rec_error(&o->log, "%s", err);
		return tr->res.exec_errno == ENOENT ? RECORDING_NOT_FOUND : RECORDING_CANNOT_EXECUTE;
	}
	if (st != COLLECT_OK) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	qemu_wrap_started(&w, tr->qemu_stats.load_bias);
	if (r->in_library && !w.placed)
		rec_warn(&o->log, "the program never mapped %s", r->program);
	tr->exit_status = collect_exit_code(tr->res.wait_status);
	warn_program_status(o, tr->res.wait_status, tr->res.interrupted);
	if (tr->qemu_stats.mem_dropped)
		rec_warn(&o->log, "%llu data access(es) beyond %d per instruction were not recorded",
			 (unsigned long long)tr->qemu_stats.mem_dropped, STREAM_MAX_MEM);
	if (tr->qemu_stats.truncated)
		rec_warn(&o->log, "the stream stopped after %llu instructions (--max-insns); the program ran on untraced",
			 (unsigned long long)tr->qemu_stats.insns);
	return 0;
}

static enum recording_status run_pt(const struct recording_trace_opts *o, struct recording_trace_region *r, stream_sink sink, void *ctx,
		  struct recording_trace_result *tr)
{
	char err[1024];
	struct gusdata *d;
	if (gusdata_open(o->recording, false, &d, err, sizeof err)) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	struct ipt_decode_opts io = {
		.ranges = r->restricted ? &r->run : NULL,
		.nranges = r->restricted ? 1 : 0,
		.sink = sink,
		.ctx = ctx,
		.max_insns = o->max_insns,
	};
	int rc = ipt_decode_recording(d, &io, &tr->pt, &tr->rec, err, sizeof err);
	uint64_t n = 0, sum = 0;
	if (!gusdata_event_totals(d, "lost", &n, &sum))
		tr->lost_records = sum;
	gusdata_close(d);
	if (rc < 0) {
		rec_error(&o->log, "%s: %s", o->recording, err);
		return RECORDING_ERROR;
	}
	if (tr->rec.buffers == 0) {
		rec_error(&o->log, "%s: the recording holds no Intel PT data", o->recording);
		return RECORDING_ERROR;
	}
	if (tr->pt.gaps) {
		rec_warn(&o->log, "%s: %llu gap(s) in the trace (%llu overflow(s)); the stream resumed after each", o->recording,
			 (unsigned long long)tr->pt.gaps, (unsigned long long)tr->pt.overflows);
		for (size_t i = 0; i < tr->pt.ngaps_kept && i < 5; i++)
			rec_warn(&o->log, "  gap at trace offset 0x%llx, after ip 0x%llx: %s",
				 (unsigned long long)tr->pt.gap[i].offset, (unsigned long long)tr->pt.gap[i].ip,
				 tr->pt.gap[i].what);
	}
	if (tr->rec.missing_files)
		rec_warn(&o->log, "%s: %zu mapped file(s) could not be read (first: %s): their code is a gap", o->recording,
			 tr->rec.missing_files, tr->rec.first_missing);
	if (tr->rec.build_id_mismatches)
		rec_warn(&o->log, "%s: %zu file(s) changed since the recording (build-id differs): decoding may be wrong",
			 o->recording, tr->rec.build_id_mismatches);
	if (tr->lost_records)
		rec_warn(&o->log, "%s: the kernel lost %llu sideband record(s) during the recording", o->recording,
			 (unsigned long long)tr->lost_records);
	if (r->restricted && !tr->pt.emitted)
		rec_warn(&o->log, "%s: no instruction of %s in the trace", o->recording, r->name);
	return 0;
}

enum recording_status recording_trace_run(const struct recording_trace_opts *o, struct recording_trace_region *r,
					  stream_sink sink, void *ctx, struct recording_trace_result *tr)
{
	memset(tr, 0, sizeof *tr);
	return o->recording ? run_pt(o, r, sink, ctx, tr) : run_qemu(o, r, sink, ctx, tr);
}
