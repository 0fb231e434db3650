/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The instruction stream for gus sim --trace and gus script: the QEMU
 * tracer run live, or a recording's stream: its Intel PT decoded, or the
 * records its QEMU tracer stored (trace_chunks, placed by trace_maps). */
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

/* A recording's QEMU stream: where its traced run had R->program, by
 * the file offset of R's first address in the object's mappings
 * (trace_maps), as gus report places its regions; a recording of schema 3
 * or before traced the program only, at meta trace.load_bias. */
struct trace_map_search {
	struct recording_trace_region *r;
	uint64_t off;		/* the file offset of R->link.start */
};

static int place_by_trace_map(void *ctx, const struct gusdata_trace_map *m)
{
	struct trace_map_search *t = ctx;
	/* a stepped region is where gus record's run 3 had it */
	if (strcmp(m->object, t->r->program) || t->off < m->pgoff || t->off - m->pgoff >= m->len ||
	    (m->proc == STREAM_STEP_PROC) != t->r->stepped)
		return 0;
	t->r->bias = m->start + (t->off - m->pgoff) - t->r->link.start;
	t->r->placed = true;
	return 1;
}

/* an unrestricted stream only needs the program's bias for its head: the
 * first mapping of it */
static int first_trace_map(void *ctx, const struct gusdata_trace_map *m)
{
	struct trace_map_search *t = ctx;
	char err[512];
	uint64_t bias;
	if (strcmp(m->object, t->r->program) || merge_elf_load_bias(m->object, m->start, m->pgoff, &bias, err, sizeof err))
		return 0;
	t->r->bias = bias;
	t->r->placed = true;
	return 1;
}

long recording_stepped_range(struct gusdata *d, const char *file, uint64_t start, uint64_t end)
{
	const char *list = gusdata_meta(d, "trace.step.ranges");
	for (const char *p = list; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		long tag;
		unsigned long long s, e;
		int used = 0;
		if (sscanf(p, "%ld %llx %llx %n", &tag, &s, &e, &used) == 3 && used > 0 && (size_t)used <= len &&
		    len - (size_t)used == strlen(file) && !strncmp(p + used, file, len - (size_t)used) && s <= start &&
		    end <= e && tag >= 0 && tag < 255)
			return tag;
		p += len + (eol != NULL);
	}
	return -1;
}

static void place_in_recording(struct gusdata *d, struct recording_trace_region *r, bool is_exe)
{
	char err[1024];
	r->placed = false;
	r->bias = 0;
	if (r->source == RECORDING_SOURCE_PT) {
		struct bias_search b = { .exe = r->program };
		gusdata_foreach_mmap(d, bias_of_mapping, &b);
		r->bias = b.found ? b.bias : 0;
		r->placed = b.found;
		return;
	}
	struct trace_map_search t = { .r = r };
	r->stepped = r->restricted && recording_stepped_range(d, r->program, r->link.start, r->link.end) >= 0;
	if (!r->restricted)
		gusdata_foreach_trace_map(d, first_trace_map, &t);
	else if (!merge_elf_file_offset(r->program, r->link.start, &t.off, err, sizeof err))
		gusdata_foreach_trace_map(d, place_by_trace_map, &t);
	uint64_t bias;
	if (!r->placed && is_exe && gusdata_meta_u64(d, "trace.load_bias", &bias)) {
		r->bias = bias;
		r->placed = true;
	}
}

/* Why a recording has no stream to look at, or "" when it has one */
static void recording_lacks_stream(struct gusdata *d, const char *tracer, char *why, size_t n)
{
	const char *missing = gusdata_meta(d, "missing.trace");
	why[0] = 0;
	if (!strcmp(tracer, "none"))
		snprintf(why, n, "it was recorded without a tracer (%s)", missing ? missing : "--tracer none");
	else if (!strcmp(tracer, "qemu") && !gusdata_trace_records(d))
		snprintf(why, n, "its QEMU tracer stored no record (%s)", missing ? missing : "the trace run was cut");
}

/* the recording's program, its tracer and whether its stream is there */
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
	/* anything but qemu and none is read as Intel PT, which says when
	 * the recording holds none */
	char tracer[32], why[1200];
	snprintf(tracer, sizeof tracer, "%s", gusdata_meta(d, "tracer") ? gusdata_meta(d, "tracer") : "pt");
	recording_lacks_stream(d, tracer, why, sizeof why);
	if (why[0]) {
		rec_error(&o->log, "%s: no instruction stream to read: %s", path, why);
		gusdata_close(d);
		return RECORDING_ERROR;
	}
	if (!strcmp(tracer, "qemu")) {
		const char *mem = gusdata_meta(d, "trace.data_addresses");
		r->source = RECORDING_SOURCE_QEMU_RECORDED;
		r->data_addresses = o->data_addresses && !(mem && !strcmp(mem, "no"));
	} else {
		r->source = RECORDING_SOURCE_PT;
	}
	gusdata_close(d);
	return 0;
}

/* the objects a recording's function may be in, after its program: those
 * of its hot regions and of its traced run's mappings */
struct object_list {
	char **v;
	size_t n, cap;
};

static void object_add(struct object_list *l, const char *path)
{
	if (path[0] != '/')
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], path))
			return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		if (!(l->v = realloc(l->v, l->cap * sizeof *l->v)))
			abort();
	}
	if (!(l->v[l->n++] = strdup(path)))
		abort();
}

static int object_of_region(void *ctx, const struct gusdata_region *g)
{
	object_add(ctx, g->file);
	return 0;
}

static int object_of_trace_map(void *ctx, const struct gusdata_trace_map *m)
{
	object_add(ctx, m->object);
	return 0;
}

static int object_of_mmap(void *ctx, const struct gusdata_mmap *m)
{
	if (m->prot & PROT_EXEC)
		object_add(ctx, m->filename);
	return 0;
}

static void object_list_free(struct object_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* --function F not in the program: the first object that has F, those of
 * the recording first (its hot regions, its traced run's mappings), then
 * the libraries the program needs (in the dynamic loader's order);
 * R->program becomes that object */
static int find_in_objects(const struct recording_trace_opts *o, struct recording_trace_region *r, uint64_t *start,
			   uint64_t *size)
{
	struct object_list objects = { 0 };
	object_add(&objects, r->program);
	if (o->recording) {
		char err[1024];
		struct gusdata *d;
		if (!gusdata_open(o->recording, false, &d, err, sizeof err)) {
			gusdata_foreach_region(d, object_of_region, &objects);
			if (r->source == RECORDING_SOURCE_QEMU_RECORDED)
				gusdata_foreach_trace_map(d, object_of_trace_map, &objects);
			else
				gusdata_foreach_mmap(d, object_of_mmap, &objects);
			gusdata_close(d);
		}
	}
	char **libs;
	size_t nlibs;
	if (!merge_elf_libraries(r->program, &libs, &nlibs)) {
		for (size_t i = 0; i < nlibs; i++) {
			object_add(&objects, libs[i]);
			free(libs[i]);
		}
		free(libs);
	}
	int rc = -1;
	/* the program itself was searched by the caller */
	for (size_t i = 1; i < objects.n && rc; i++) {
		char err[1024];
		if (merge_elf_symbol(objects.v[i], o->function, start, size, err, sizeof err))
			continue;
		snprintf(r->exe, sizeof r->exe, "%s", r->program);
		snprintf(r->program, sizeof r->program, "%s", objects.v[i]);
		r->in_library = true;
		rc = 0;
	}
	object_list_free(&objects);
	return rc;
}

/* the loop of a function where the trace spent the most */
static void pick_loop(const struct recording_trace_opts *o, struct recording_trace_region *r,
		      const struct sim_machine *m, struct simrun_collect *tc)
{
	char err[1024];
	struct merge_code mc;
	if (!r->pick_loop || merge_elf_function(r->program, r->function, &mc, err, sizeof err))
		return;
	struct sim_loop_info loops[SIM_MAX_LOOPS];
	size_t n = sim_loop_nest(m, mc.addr, mc.bytes, mc.len, loops, SIM_MAX_LOOPS);
	merge_code_free(&mc);
	/* the instructions the trace ran in each loop */
	for (size_t i = 0; i < tc->n; i++) {
		uint64_t a = sim_code_insn(tc->code, tc->recs[i].insn)->addr - r->bias;
		for (size_t k = 0; k < n; k++)
			loops[k].executed += a >= loops[k].loop.start && a < loops[k].loop.end;
	}
	int hot = sim_hot_loop(loops, n, r->loop_note, sizeof r->loop_note);
	if (hot < 0 || !loops[hot].executed) {
		r->loop_note[0] = 0;
		return;
	}
	uint64_t ls = loops[hot].loop.start + r->bias, le = loops[hot].loop.end + r->bias;
	size_t w = 0, total = tc->n;
	for (size_t i = 0; i < tc->n; i++) {
		uint64_t a = sim_code_insn(tc->code, tc->recs[i].insn)->addr;
		if (a < ls || a >= le)
			continue;
		if (o->alone)
			tc->recs[w] = tc->recs[i];
		w++;
	}
	if (o->alone) {
		tc->skipped += tc->n - w;
		tc->n = w;
	} else {
		/* the rest of the function stays in the stream: what runs
		 * around the loop (a chain restarted per row, the next row's
		 * start overlapping this one's end) shapes its time; the loop's
		 * own instructions' retirement time is its time */
		r->focus = (struct stream_range){ ls, le };
	}
	/* iterations are counted at the latch (the backward branch), which
	 * every iteration runs once, also those entered past the loop's start
	 * (overlapping loops of complex control flow); a loop with several
	 * latches (a continue) counts at its start, which each passes */
	r->head_is_latch = loops[hot].loop.latches == 1;
	r->head = (r->head_is_latch ? loops[hot].loop.latch : loops[hot].loop.start) + r->bias;
	if (total && 2 * w < total) {
		size_t l = strlen(r->loop_note);
		snprintf(r->loop_note + l, sizeof r->loop_note - l,
			 "; it holds only %.0f %% of the function's traced instructions (--whole for all of it)",
			 100.0 * (double)w / (double)total);
	}
	snprintf(r->name, sizeof r->name, "%s, %sloop 0x%llx-0x%llx (--whole for all of it)", r->function,
		 loops[hot].innermost ? "innermost " : "",
		 (unsigned long long)loops[hot].loop.start, (unsigned long long)loops[hot].loop.end);
}

void recording_trace_settle(const struct recording_trace_opts *o, struct recording_trace_region *r,
			    const struct sim_machine *m, const struct recording_trace_result *tr,
			    struct simrun_collect *tc)
{
	pick_loop(o, r, m, tc);
	bool cut = tr->stepped ? tr->step.truncated : tr->qemu ? tr->qemu_stats.truncated : tr->truncated;
	if (!cut || !r->restricted || !r->head)
		return;
	/* the records after the head's last execution are an iteration (or
	 * call) the cut left unfinished: counting it would count a part */
	size_t last = tc->n;
	while (last > 0 && sim_code_insn(tc->code, tc->recs[last - 1].insn)->addr != r->head)
		last--;
	char what[sizeof r->name];
	snprintf(what, sizeof what, "%s", r->name);
	char *hint = strstr(what, " (--whole");
	if (hint)
		*hint = 0;
	const char *unit = o->function && !r->loop_note[0] ? "call" : "iteration";
	/* a latch head ends its iteration: the records after it are the
	 * partial one; a start head begins it */
	size_t keep = r->head_is_latch ? last : last - 1;
	if (last <= 1 && !(r->head_is_latch && last == 1)) {
		/* not one whole iteration or call: the records stand, but
		 * nothing is counted per iteration */
		r->head = 0;
		rec_warn(&o->log, "--max-insns cut the stream before one whole %s of %s: the %zu instruction(s) are "
			 "simulated, and no cycles per %s are given", unit, what, tc->n, unit);
		return;
	}
	size_t partial = tc->n - keep;
	if (!partial)
		return;
	tc->n = keep;
	tc->skipped += partial;
	if (r->head_is_latch)
		rec_warn(&o->log, "--max-insns cut the stream inside one %s of %s: its last %zu instruction(s), after "
			 "the last pass through its backward branch at 0x%llx, are left out", unit, what, partial,
			 (unsigned long long)r->head);
	else
		rec_warn(&o->log, "--max-insns cut the stream inside one %s of %s: its last %zu instruction(s), from "
			 "the last start at 0x%llx, are left out", unit, what, partial, (unsigned long long)r->head);
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
		r->source = RECORDING_SOURCE_QEMU_LIVE;
		r->data_addresses = o->data_addresses;
		enum recording_status rc = recording_find_program(o->argv[0], r->program, sizeof r->program, &o->log);
		if (rc)
			return rc;
	}
	char err[1024];
	if (o->function) {
		uint64_t start, size;
		if (merge_elf_symbol(r->program, o->function, &start, &size, err, sizeof err) &&
		    find_in_objects(o, r, &start, &size)) {
			/* a live trace follows the program only: code of a program
			 * it starts is in a recording (gus record follows them) */
			rec_error(&o->log, "%s, nor in the %s it needs%s", err,
				  o->recording ? "objects of the recording and the libraries" : "libraries",
				  o->recording ? "" : " (a program it starts is not searched: gus record -- PROGRAM, then "
						      "gus sim --trace -i gus.data --function ...)");
			return RECORDING_USAGE;
		}
		r->link = (struct stream_range){ start, start + size };
		snprintf(r->name, sizeof r->name, "%s", o->function);
		struct merge_code mc;
		/* a function with loops: all of it is traced, and its loop
		 * where the trace spends the most is picked afterwards */
		if (o->innermost && m && merge_elf_function(r->program, o->function, &mc, err, sizeof err) == 0) {
			struct sim_loop_info loops[SIM_MAX_LOOPS];
			size_t n = sim_loop_nest(m, mc.addr, mc.bytes, mc.len, loops, SIM_MAX_LOOPS);
			r->pick_loop = n > 0;
			snprintf(r->function, sizeof r->function, "%s", o->function);
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
	if (o->recording) {
		struct gusdata *d;
		if (gusdata_open(o->recording, false, &d, err, sizeof err)) {
			rec_error(&o->log, "%s", err);
			return RECORDING_ERROR;
		}
		place_in_recording(d, r, !r->in_library);
		gusdata_close(d);
		if (r->restricted && !r->placed && r->source == RECORDING_SOURCE_QEMU_RECORDED)
			rec_warn(&o->log, "%s: the traced run never had %s of %s mapped: the recording traced its hot "
				 "regions only (gus report lists them)", o->recording, r->name, r->program);
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
		.stdio = o->stdio,
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

/* A recording's QEMU stream, as the live tracer gives it: the records of
 * the region (the recording holds every hot region), each re-entry marked,
 * the last record before one marked as a transfer, data addresses only
 * when asked, at most --max-insns records. The last record is held back
 * until the next one says whether control left it. */
#define RECORDED_BATCH 4096
#define RECORDED_STOP 2		/* the limit was reached, not an error */

struct recorded_filter {
	const struct recording_trace_region *r;
	stream_sink sink;
	void *ctx;
	uint64_t max, emitted;
	bool outside;		/* records outside the region since the last one kept */
	bool truncated;
	int sink_rc;		/* the sink's own non-zero return */
	struct stream_insn buf[RECORDED_BATCH];
	size_t n;
};

/* gives the sink all but the last KEEP records */
static int recorded_flush(struct recorded_filter *f, size_t keep)
{
	if (f->n <= keep)
		return 0;
	size_t give = f->n - keep;
	int rc = f->sink(f->ctx, f->buf, give);
	if (rc) {
		f->sink_rc = rc;
		return rc;
	}
	memmove(f->buf, f->buf + give, keep * sizeof *f->buf);
	f->n = keep;
	return 0;
}

static int recorded_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct recorded_filter *f = ctx;
	const struct recording_trace_region *r = f->r;
	for (size_t i = 0; i < n; i++) {
		/* run 3's records are at its own addresses: a stepped region's
		 * alone, and only those */
		if (r->restricted && (v[i].ip < r->run.start || v[i].ip >= r->run.end ||
				      (v[i].thread >> 16 == STREAM_STEP_PROC) != r->stepped)) {
			f->outside = true;
			continue;
		}
		struct stream_insn s = v[i];
		if (!r->data_addresses) {
			s.flags &= (uint8_t)~STREAM_HAS_MEM;
			s.nmem = 0;
			s.store_mask = 0;
		}
		if (f->outside && r->restricted) {
			s.flags |= STREAM_ENTRY;
			if (f->n && f->buf[f->n - 1].ip + f->buf[f->n - 1].size != s.ip)
				f->buf[f->n - 1].flags |= STREAM_TAKEN;
		}
		f->outside = false;
		if (f->n == RECORDED_BATCH && recorded_flush(f, 1))
			return f->sink_rc;
		f->buf[f->n++] = s;
		if (++f->emitted == f->max) {
			f->truncated = true;
			return recorded_flush(f, 0) ? f->sink_rc : RECORDED_STOP;
		}
	}
	return 0;
}

static enum recording_status run_recorded_qemu(const struct recording_trace_opts *o, struct recording_trace_region *r,
					       stream_sink sink, void *ctx, struct recording_trace_result *tr)
{
	char err[1024];
	struct gusdata *d;
	if (gusdata_open(o->recording, false, &d, err, sizeof err)) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	struct recorded_filter *f = calloc(1, sizeof *f);
	if (!f) {
		gusdata_close(d);
		rec_error(&o->log, "out of memory");
		return RECORDING_ERROR;
	}
	*f = (struct recorded_filter){ .r = r, .sink = sink, .ctx = ctx, .max = o->max_insns, .outside = true };
	tr->recorded_qemu = true;
	int rc = gusdata_trace_read(d, recorded_sink, f, &tr->damaged, err, sizeof err);
	gusdata_close(d);
	if (rc == 0 || rc == RECORDED_STOP)
		rc = f->sink_rc ? f->sink_rc : recorded_flush(f, 0);
	else if (!f->sink_rc)
		rec_error(&o->log, "%s: %s", o->recording, err);
	tr->records = f->emitted;
	tr->truncated = f->truncated;
	bool failed = f->sink_rc || (rc && rc != RECORDED_STOP);
	free(f);
	if (failed)
		return RECORDING_ERROR;
	if (tr->damaged)
		rec_warn(&o->log, "%s: %llu damaged chunk(s) of the trace (first: %s): each was read up to the damage",
			 o->recording, (unsigned long long)tr->damaged, err);
	if (tr->truncated)
		rec_warn(&o->log, "%s: the stream stopped after %llu instructions (--max-insns)", o->recording,
			 (unsigned long long)tr->records);
	if (r->restricted && !tr->records)
		rec_warn(&o->log, "%s: no instruction of %s in the trace (the recording traced its hot regions only: "
			 "gus report lists them)", o->recording, r->name);
	return 0;
}

/* the native stepper places the region once the process has mapped it */
static void step_placed(void *ctx, uint64_t bias)
{
	struct recording_trace_region *r = ctx;
	r->bias = bias;
	r->run = (struct stream_range){ r->link.start + bias, r->link.end + bias };
	r->head = r->run.start;
}

struct step_wrap {
	struct recording_trace_region *r;
	stream_sink sink;
	void *ctx;
	uint64_t records;
};

static int step_wrap_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct step_wrap *w = ctx;
	w->records += n;
	return w->sink(w->ctx, v, n);
}

static void step_wrap_placed(void *ctx, size_t region, uint64_t bias, uint64_t start, uint64_t len, uint64_t pgoff)
{
	(void)region;
	(void)start;
	(void)len;
	(void)pgoff;
	step_placed(((struct step_wrap *)ctx)->r, bias);
}

static enum recording_status run_step(const struct recording_trace_opts *o, struct recording_trace_region *r,
				      stream_sink sink, void *ctx, struct recording_trace_result *tr)
{
	char err[COLLECT_ERRLEN];
	uint64_t file_start;
	if (!r->restricted) {
		rec_error(&o->log, "--ptrace traces a function or a range (--function, --range), not all code");
		return RECORDING_USAGE;
	}
	if (merge_elf_file_offset(r->program, r->link.start, &file_start, err, sizeof err)) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	struct step_wrap w = { r, sink, ctx, 0 };
	struct collect_step_region region = {
		.object = r->program,
		.link_start = r->link.start,
		.link_end = r->link.end,
		.file_start = file_start,
	};
	struct collect_step_opts so = {
		.regions = &region,
		.nregions = 1,
		.data_addresses = o->data_addresses,
		/* single steps are slow (tens of thousands a second): a
		 * fallback from QEMU takes at most 200000 */
		.max_insns = !o->max_insns ? 200000
			     : !o->ptrace && !o->step_max_given && o->max_insns > 200000 ? 200000
										: o->max_insns,
		.window = o->step_window,
		.sink = step_wrap_sink,
		.ctx = &w,
		.placed = step_wrap_placed,
		.stdio = o->stdio,
	};
	tr->qemu = false;
	tr->stepped = true;
	enum collect_status st = collect_step_run(o->argv, &so, &tr->step, &tr->res, err, sizeof err);
	tr->records = w.records;
	if (st == COLLECT_EXEC_FAILED) {
		rec_error(&o->log, "%s", err);
		return tr->res.exec_errno == ENOENT ? RECORDING_NOT_FOUND : RECORDING_CANNOT_EXECUTE;
	}
	if (st != COLLECT_OK) {
		rec_error(&o->log, "%s", err);
		return RECORDING_ERROR;
	}
	tr->exit_status = collect_exit_code(tr->res.wait_status);
	warn_program_status(o, tr->res.wait_status, tr->res.interrupted);
	if (tr->step.never_reached)
		rec_warn(&o->log, "the program never mapped %s where %s is", r->program, r->name);
	if (tr->step.truncated)
		rec_warn(&o->log, "the stream stopped after %llu single-stepped instructions (--max-insns); the program "
			 "ran on untraced", (unsigned long long)tr->step.insns);
	return RECORDING_OK;
}

/* a stream sink that counts what passes */
struct counting_sink {
	stream_sink sink;
	void *ctx;
	uint64_t n;
};

static int counting_sink_fn(void *ctx, const struct stream_insn *v, size_t n)
{
	struct counting_sink *c = ctx;
	c->n += n;
	return c->sink(c->ctx, v, n);
}

enum recording_status recording_trace_run(const struct recording_trace_opts *o, struct recording_trace_region *r,
					  stream_sink sink, void *ctx, struct recording_trace_result *tr)
{
	memset(tr, 0, sizeof *tr);
	switch (r->source) {
	case RECORDING_SOURCE_PT: return run_pt(o, r, sink, ctx, tr);
	case RECORDING_SOURCE_QEMU_RECORDED: return run_recorded_qemu(o, r, sink, ctx, tr);
	default:
		break;
	}
	if (o->ptrace)
		return run_step(o, r, sink, ctx, tr);
	struct counting_sink cs = { sink, ctx, 0 };
	enum recording_status st = run_qemu(o, r, counting_sink_fn, &cs, tr);
	/* QEMU 7.2 cannot run AVX-512 and later extensions: the program dies
	 * of SIGILL before the region's first record; it is then run natively
	 * and the region single-stepped */
	if (st == RECORDING_OK && cs.n == 0 && r->restricted && WIFSIGNALED(tr->res.wait_status) &&
	    WTERMSIG(tr->res.wait_status) == SIGILL) {
		rec_warn(&o->log, "QEMU cannot execute an instruction of %s (illegal instruction): %s is traced "
			 "natively instead, single-stepped with ptrace", o->argv[0], r->name);
		memset(tr, 0, sizeof *tr);
		st = run_step(o, r, sink, ctx, tr);
		snprintf(tr->step_why, sizeof tr->step_why, "QEMU 7.2 cannot execute its instructions");
	}
	return st;
}

void recording_trace_describe(const struct recording_trace_opts *o, const struct recording_trace_region *r,
			      const struct recording_trace_result *tr, size_t records, char *out, size_t outlen)
{
	if (tr->stepped)
		snprintf(out, outlen, "single-stepped natively with ptrace%s%s%s, %s, %zu instructions%s%s in %llu "
			 "window(s), data addresses %s", tr->step_why[0] ? " (" : "", tr->step_why,
			 tr->step_why[0] ? ")" : "", o->argv[0], records, tr->step.truncated ? " (--max-insns reached)" : "",
			 r->restricted ? " in the region" : "", (unsigned long long)tr->step.windows,
			 !r->data_addresses ? "not used" : tr->step.vsib ? "known (not for gathers or scatters whose vector registers could not be read)" : "known");
	else if (tr->qemu)
		snprintf(out, outlen, "QEMU trace of %s, %zu instructions%s%s, data addresses %s", o->argv[0], records,
			 tr->qemu_stats.truncated ? " (--max-insns reached)" : "",
			 r->restricted ? " in the region" : "", r->data_addresses ? "known" : "not used");
	else if (tr->recorded_qemu)
		snprintf(out, outlen, "QEMU trace recorded in %s, %zu instructions%s%s, data addresses %s",
			 o->recording, records, tr->truncated ? " (--max-insns reached)" : "",
			 r->restricted ? " in the region" : "", r->data_addresses ? "known" : "not used");
	else
		snprintf(out, outlen, "Intel PT of %s, %zu instructions%s, %llu gap(s), no data addresses "
			 "(memory dependencies from address expressions)", o->recording, records,
			 r->restricted ? " in the region" : "", (unsigned long long)tr->pt.gaps);
}
