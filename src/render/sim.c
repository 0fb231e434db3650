/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers of a simulation: text, JSON, CSV, and the SVG heat-map of the
 * sensitivity analysis. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

void rd_set_name(const struct sim_machine *m, const struct sim_set *s, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < s->n && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? "+" : "", sim_res_name(m, s->res[i]));
}

static double insn_share(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
			 size_t i, unsigned r)
{
	return sim_insn_share(m, code, a, i, r);
}

/* the resources worth a column: those some instruction uses */
static size_t used_resources(const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
			     unsigned *cols)
{
	size_t n = 0;
	for (unsigned r = 0; r < sim_nres(m); r++) {
		enum sim_res_kind k = sim_res_kind(m, r);
		if (k != SIM_RK_PORTS && k != SIM_RK_FRONTEND && k != SIM_RK_DIV)
			continue;
		bool used = false;
		for (size_t i = 0; i < sim_code_count(code) && !used; i++)
			used = i < a->events.ninsn && a->events.insn_count[i] && sim_insn_share(m, code, a, i, r) > 0;
		if (used)
			cols[n++] = r;
	}
	return n;
}

static bool is_bottleneck_res(const struct sim_analysis *a, unsigned r)
{
	for (size_t i = 0; i < a->nsens; i++)
		if (a->sens[i].bottleneck && a->sens[i].set.n == 1 && a->sens[i].set.res[0] == r)
			return true;
	return false;
}

/* -0.0 % reads as a loss: print model noise below 0.005 % as zero */
static double shown(double v)
{
	return fabs(v) < 5e-5 ? 0 : v;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : 0;
}

/* up to four weights for the text table, always including the last */
static size_t text_weights(const struct sim_analysis *a, size_t *idx)
{
	size_t n = 0;
	static const double want[] = { 1.01, 1.05, 1.10 };
	for (size_t k = 0; k < 3; k++)
		for (size_t w = 0; w + 1 < a->nweights; w++)
			if (fabs(a->weights[w] - want[k]) < 1e-9) {
				idx[n++] = w;
				break;
			}
	if (!n && a->nweights > 2)
		idx[n++] = a->nweights / 2;
	if (a->nweights)
		idx[n++] = a->nweights - 1;
	return n;
}

static int cmp_sens(const void *x, const void *y, void *ctx)
{
	const struct sim_analysis *a = ctx;
	const struct sim_sensitivity *p = x, *q = y;
	double sp = a->nweights ? p->speedup[a->nweights - 1] : 0, sq = a->nweights ? q->speedup[a->nweights - 1] : 0;
	if (sp != sq)
		return sp > sq ? -1 : 1;
	return p->upper > q->upper ? -1 : p->upper < q->upper;
}

/* the instructions the per-instruction table lists */
static bool insn_listed(const struct sim_analysis *a, const struct render_sim_info *info, size_t i,
			const struct sim_insn *in)
{
	if (i >= a->events.ninsn || !a->events.insn_count[i])
		return false;
	return info->insn_end <= info->insn_start || (in->addr >= info->insn_start && in->addr < info->insn_end);
}

static bool insn_source(const struct render_sim_info *info, const struct sim_insn *in, char *buf, size_t n)
{
	buf[0] = 0;
	return info->srcline && info->srcline(info->srcline_ctx, in->addr, buf, n) && buf[0];
}

/* the samples at instruction IN (a runtime address, INFO's bias from
 * the link-time addresses the samples have), 0 when none or not known */
static uint64_t insn_samples(const struct render_sim_info *info, const struct sim_insn *in)
{
	uint64_t addr = in->addr - info->addr_bias;
	size_t lo = 0, hi = info->nsamples;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (info->samples[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < info->nsamples && info->samples[lo].addr == addr ? info->samples[lo].samples : 0;
}

static const char *unit_of(const struct render_sim_info *info)
{
	return info->unit ? info->unit : "iteration";
}

/* a resource whose row of the sensitivity shows a gain at some weight
 * or unlimited, as the table rounds it */
static bool has_effect(const struct sim_analysis *a, const struct sim_sensitivity *se)
{
	for (size_t w = 0; w < a->nweights; w++)
		if (fabs(se->speedup[w]) >= 5e-4)
			return true;
	return fabs(se->upper) >= 5e-4;
}

void rd_sim_stall_line(FILE *out, const char *label, const struct sim_analysis *a)
{
	static const char *const level[] = { "L1", "L2", "L3", "memory" };
	const struct sim_stats *b = &a->base;
	if (!(b->cycles > 0) || b->mem_stall[0] + b->mem_stall[1] + b->mem_stall[2] + b->mem_stall[3] <= 0)
		return;
	fprintf(out, "%s", label);
	for (int l = 0; l < 4; l++)
		fprintf(out, "%s%s %.1f %%", l ? ", " : "", level[l], 100 * b->mem_stall[l] / b->cycles);
	fprintf(out, " of the cycles\n");
}

void rd_sim_sensitivity(FILE *out, const struct sim_machine *m, const struct sim_analysis *a, double threshold,
			bool effect_only, bool bottleneck_lines)
{
	if (!a->nsens || !a->nweights)
		return;
	size_t idx[4];
	size_t nw = text_weights(a, idx);
	fprintf(out, "%sSensitivity: speedup when a resource gets more capacity (bottleneck: >= %.1f %% at +%.0f %%)\n",
		bottleneck_lines ? "\n" : "", 100 * threshold, 100 * (a->weights[a->nweights - 1] - 1));
	struct sim_sensitivity *sorted = malloc(a->nsens * sizeof *sorted);
	if (!sorted)
		abort();
	memcpy(sorted, a->sens, a->nsens * sizeof *sorted);
	qsort_r(sorted, a->nsens, sizeof *sorted, cmp_sens, (void *)a);
	size_t shown_rows = 0;
	for (size_t i = 0; i < a->nsens; i++)
		shown_rows += !effect_only || has_effect(a, &sorted[i]);
	if (shown_rows) {
		fprintf(out, "  %-22s", "resource");
		for (size_t k = 0; k < nw; k++) {
			char h[16];
			snprintf(h, sizeof h, "+%.0f%%", 100 * (a->weights[idx[k]] - 1));
			fprintf(out, " %8s", h);
		}
		fprintf(out, " %10s\n", "unlimited");
	}
	bool envelope = false;
	double dip = 0;
	for (size_t i = 0; i < a->nsens; i++) {
		const struct sim_sensitivity *se = &sorted[i];
		if (effect_only && !has_effect(a, se))
			continue;
		char name[128];
		rd_set_name(m, &se->set, name, sizeof name);
		fprintf(out, "  %-20s %c", name, se->bottleneck ? '*' : ' ');
		for (size_t k = 0; k < nw; k++)
			fprintf(out, " %7.1f%%", 100 * shown(se->speedup[idx[k]]));
		fprintf(out, " %9.1f%%%s%s\n", 100 * shown(se->upper), se->searched ? "  (found by search)" : "",
			se->envelope ? "  ~" : "");
		envelope |= se->envelope;
		dip = se->dip > dip ? se->dip : dip;
	}
	if (shown_rows < a->nsens)
		fprintf(out, "  (%s%zu other resource%s and set%s: no effect)\n", shown_rows ? "" : "all ",
			a->nsens - shown_rows, a->nsens - shown_rows == 1 ? "" : "s", a->nsens - shown_rows == 1 ? "" : "s");
	/* gus report says it on the region's stream line; the weights above
	 * the nominal (gus sim's sweep starts at 1.00, the machine itself) */
	if (!effect_only && a->pruned) {
		size_t lo = 0;
		while (lo < a->nweights && !(a->weights[lo] > 1))
			lo++;
		if (lo < a->nweights)
			fprintf(out, "  (%zu of the %zu resources swept changed nothing unlimited: not simulated at "
				"+%.0f..+%.0f %%, 0 there)\n", a->pruned, a->nsens, 100 * (a->weights[lo] - 1),
				100 * (a->weights[a->nweights - 1] - 1));
		else
			fprintf(out, "  (%zu of the %zu resources swept changed nothing unlimited)\n", a->pruned, a->nsens);
	}
	if (envelope)
		fprintf(out, "  ~ the model's time was not monotonic in this capacity (by up to %.1f %%): the row is "
			"the envelope, the best reached at or below each capacity\n", 100 * dip);
	if (bottleneck_lines) {
		bool any = false;
		for (size_t i = 0; i < a->nsens; i++) {
			const struct sim_sensitivity *se = &sorted[i];
			if (!se->bottleneck)
				continue;
			char name[128];
			rd_set_name(m, &se->set, name, sizeof name);
			fprintf(out, "%s %s: %.1f %% faster with %.0f %% more capacity; at most %.1f %% if unlimited\n",
				any ? "           " : "Bottleneck:", name, 100 * se->speedup[a->nweights - 1],
				100 * (a->weights[a->nweights - 1] - 1), 100 * se->upper);
			any = true;
		}
		if (!any)
			fprintf(out, "No bottleneck: no resource, or searched set, gains %.1f %% or more.\n", 100 * threshold);
	}
	free(sorted);
}

/* the order of a table's rows: by address, as objdump and perf annotate
 * list code (a stream's code is decoded in the order it first ran) */
static int cmp_insn_addr(const void *x, const void *y, void *ctx)
{
	const struct sim_code *code = ctx;
	uint64_t p = sim_code_insn(code, *(const size_t *)x)->addr, q = sim_code_insn(code, *(const size_t *)y)->addr;
	return p < q ? -1 : p > q;
}

struct insn_weight {
	const struct render_sim_info *info;
	const struct sim_code *code;
	const struct sim_analysis *a;
};

/* the instructions that say most first: the most samples, then the most
 * executions */
static int cmp_insn_weight(const void *x, const void *y, void *ctx)
{
	const struct insn_weight *w = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	uint64_t si = insn_samples(w->info, sim_code_insn(w->code, i)), sj = insn_samples(w->info, sim_code_insn(w->code, j));
	if (si != sj)
		return si > sj ? -1 : 1;
	uint64_t ei = w->a->events.insn_count[i], ej = w->a->events.insn_count[j];
	return ei > ej ? -1 : ei < ej ? 1 : (i > j) - (i < j);
}

void rd_sim_insn_table(FILE *out, const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		       const struct render_sim_info *info, bool effect_columns, size_t max_rows)
{
	unsigned cols[SIM_MAX_RES];
	size_t nc = used_resources(m, code, a, cols);
	if (effect_columns) {
		/* the columns of the bottleneck resources; else the two
		 * busiest, so that the table still says where the time goes */
		unsigned keep[SIM_MAX_RES];
		size_t nk = 0;
		for (size_t c = 0; c < nc; c++)
			if (is_bottleneck_res(a, cols[c]))
				keep[nk++] = cols[c];
		if (!nk) {
			double best[2] = { -1, -1 };
			unsigned pick[2] = { 0, 0 };
			for (size_t c = 0; c < nc; c++) {
				double sum = 0;
				for (size_t i = 0; i < sim_code_count(code); i++)
					sum += insn_share(m, code, a, i, cols[c]);
				if (sum > best[0]) {
					best[1] = best[0], pick[1] = pick[0];
					best[0] = sum, pick[0] = cols[c];
				} else if (sum > best[1]) {
					best[1] = sum, pick[1] = cols[c];
				}
			}
			for (size_t k = 0; k < 2; k++)
				if (best[k] >= 0)
					keep[nk++] = pick[k];
		}
		memcpy(cols, keep, nk * sizeof *cols);
		nc = nk;
	}
	bool samples = info->samples_total > 0;
	if (samples)
		fprintf(out, "\nPer instruction: the samples at it (of the region's %llu, as perf annotate shows them); the "
			     "model's share of each resource's capacity (* bottleneck)\n",
			(unsigned long long)info->samples_total);
	else
		fprintf(out, "\nPer instruction: share of each resource's capacity (* bottleneck)\n");
	fprintf(out, "  %-10s %s%-36s", "address", samples ? "samples  " : "", "disassembly");
	for (size_t c = 0; c < nc; c++) {
		char h[32];
		snprintf(h, sizeof h, "%s%s", sim_res_name(m, cols[c]), is_bottleneck_res(a, cols[c]) ? "*" : "");
		fprintf(out, " %7s", h);
	}
	fprintf(out, "  lat/ports%s\n", info->srcline ? "  source" : "");
	/* the rows: every instruction listed, or the MAX_ROWS that say the
	 * most, in address order */
	size_t *rows = malloc((sim_code_count(code) + 1) * sizeof *rows), nrows = 0;
	if (!rows)
		abort();
	for (size_t i = 0; i < sim_code_count(code); i++)
		if (insn_listed(a, info, i, sim_code_insn(code, i)))
			rows[nrows++] = i;
	size_t left_out = 0;
	if (max_rows && nrows > max_rows) {
		struct insn_weight w = { info, code, a };
		qsort_r(rows, nrows, sizeof *rows, cmp_insn_weight, &w);
		left_out = nrows - max_rows;
		nrows = max_rows;
	}
	qsort_r(rows, nrows, sizeof *rows, cmp_insn_addr, (void *)code);
	for (size_t r = 0; r < nrows; r++) {
		size_t i = rows[r];
		const struct sim_insn *in = sim_code_insn(code, i);
		char text[112];
		snprintf(text, sizeof text, "%s%s", in->approx ? "~" : "", in->text);
		if (strlen(text) > 36)
			strcpy(text + 33, "...");
		fprintf(out, "  %-10llx ", (unsigned long long)(in->addr - info->addr_bias));
		if (samples) {
			uint64_t k = insn_samples(info, in);
			if (k)
				fprintf(out, "%6.1f%%  ", 100.0 * (double)k / (double)info->samples_total);
			else
				fprintf(out, "%7s  ", "");
		}
		fprintf(out, "%-36s", text);
		for (size_t c = 0; c < nc; c++)
			fprintf(out, " %6.0f%%", 100 * insn_share(m, code, a, i, cols[c]));
		char lat[16];
		snprintf(lat, sizeof lat, "%g", (double)in->lat);
		char src[300];
		insn_source(info, in, src, sizeof src);
		fprintf(out, "  %s/%s%s%s%s", lat, in->ports && *in->ports ? in->ports : "-",
			in->fuse_head ? " (fused with jcc)" : in->zero_idiom ? " (zero idiom)" : in->eliminated ? " (eliminated)" : in->unlaminated && sim_machine_unlaminated_slots(m) > 0 ? " (un-laminated)" : "",
			in->div > 0 ? " +div" : "", src[0] ? "  " : "");
		/* a source file's name from the object's debug information */
		render_text_string(out, src);
		fputc('\n', out);
	}
	if (left_out)
		fprintf(out, "  (%zu other instruction%s, with fewer samples and executions: --region lists them all, "
			     "--json too)\n", left_out, left_out == 1 ? "" : "s");
	free(rows);
}

void rd_sim_topdown_line(FILE *out, const struct sim_machine *m, const struct sim_analysis *a)
{
	const struct sim_stats *b = &a->base;
	double backend = b->backend_mem + b->backend_core;
	if (sim_machine_topdown(m) == SIM_TOPDOWN_AMD)
		fprintf(out, "Simulated Top-Down (AMD, dispatch slots): Frontend Bound %.1f %%, Bad Speculation %.1f %%, "
			     "Backend Bound %.1f %% (Memory %.1f %%, CPU %.1f %%), Retiring %.1f %%\n",
			pct(b->frontend, b->slots), pct(b->bad_spec, b->slots), pct(backend, b->slots),
			pct(b->backend_mem, b->slots), pct(b->backend_core, b->slots), pct(b->retiring, b->slots));
	else
		fprintf(out, "Simulated Top-Down (issue slots): Retiring %.1f %%, Frontend Bound %.1f %%, Bad Speculation "
			     "%.1f %%, Backend Bound %.1f %% (Memory Bound %.1f %%, Core Bound %.1f %%)\n",
			pct(b->retiring, b->slots), pct(b->frontend, b->slots), pct(b->bad_spec, b->slots),
			pct(backend, b->slots), pct(b->backend_mem, b->slots), pct(b->backend_core, b->slots));
}

void rd_sim_numbers(FILE *out, const struct sim_machine *m, const struct sim_code *code, const struct sim_analysis *a,
		    const struct render_sim_info *info)
{
	const struct sim_stats *b = &a->base;
	fprintf(out, "Simulated on %s: ", sim_machine_name(m));
	if (a->units > 0) {
		fprintf(out, "%.2f cycles per %s", a->cycles_per_unit, unit_of(info));
		if (a->stream_cycles_per_unit > a->cycles_per_unit * 1.005)
			fprintf(out, " (%.2f with the code around it)", a->stream_cycles_per_unit);
		fputs(", ", out);
	}
	fprintf(out, "IPC %.2f, %.2f µops per cycle, %llu instructions", a->ipc, a->fused_per_cycle,
		(unsigned long long)b->insns);
	size_t approx = sim_code_approx(code);
	if (approx)
		fprintf(out, " (%zu modelled approximately, marked ~)", approx);
	if (a->events.branches)
		fprintf(out, "; %llu of %llu branches mispredicted", (unsigned long long)a->events.mispredicts,
			(unsigned long long)a->events.branches);
	fputc('\n', out);
	rd_sim_topdown_line(out, m, a);
	rd_sim_stall_line(out, "Time waiting on loads from: ", a);
}

static void render_text(FILE *out, const struct sim_machine *m, const struct sim_code *code,
			const struct sim_analysis *a, const struct render_sim_info *info)
{
	const struct sim_stats *b = &a->base;
	/* the source, loop choice and stream name objects, symbols and files */
	fputs("gus sim: ", out);
	render_text_string(out, info->source);
	fprintf(out, "\nmachine: %s (%s)\n", sim_machine_name(m), sim_machine_describe(m));
	if (info->machine_note)
		fprintf(out, "  (%s; --arch picks another)\n", info->machine_note);
	if (info->loop_note && info->loop_note[0]) {
		fputs("loop: ", out);
		render_text_string(out, info->loop_note);
		fputc('\n', out);
	}
	if (info->stream) {
		fputs("stream: ", out);
		render_text_string(out, info->stream);
		fputc('\n', out);
	}
	if (info->iterations)
		fprintf(out, "%zu instructions per iteration, %u iterations simulated (the first %u as warm-up)\n\n",
			info->body_insns, info->iterations, info->warmup);
	else if (a->passes > 1)
		/* a stream too short to measure alone (sim_source_fit) */
		fprintf(out, "%zu instructions, too few to measure once: measured over %u passes of them%s (%llu simulated)\n\n",
			a->measured_records, a->passes, a->warm_pass ? " after a warm pass" : ", warmed by the stream before",
			(unsigned long long)b->insns);
	else
		fprintf(out, "%llu instructions simulated\n\n", (unsigned long long)b->insns);
	if (a->units > 0) {
		char label[40];
		snprintf(label, sizeof label, "cycles per %s", unit_of(info));
		fprintf(out, "  %-28s %10.2f\n", label, a->cycles_per_unit);
		/* a loop simulated in its function: the function's time too */
		if (a->stream_cycles_per_unit > a->cycles_per_unit * 1.005)
			fprintf(out, "  %-28s %10.2f\n", "  with the code around it", a->stream_cycles_per_unit);
	}
	fprintf(out, "  %-28s %10.0f\n", a->passes > 1 ? "cycles (all passes)" : "cycles (whole run)", b->cycles);
	fprintf(out, "  %-28s %10.2f\n", "IPC", a->ipc);
	/* both after the warm-up, as IPC: the fused-domain µops, what the
	 * machine's width counts */
	fprintf(out, "  %-28s %10.2f\n", "µops per cycle", a->fused_per_cycle);
	size_t approx = sim_code_approx(code);
	if (approx)
		fprintf(out, "  %zu instructions modelled approximately (by category): marked ~ below\n", approx);
	else
		fprintf(out, "  all instructions modelled from the machine's form table\n");
	if (a->events.mispredicts || a->events.branches) {
		/* each kind against its own count: a redirect for a target the
		 * BTB lacked is no conditional branch's wrong guess */
		const struct sim_events *e = &a->events;
		fprintf(out, "  %-28s %10llu of %llu branches: %llu of %llu conditional, %llu of %llu indirect",
			"branch mispredictions", (unsigned long long)e->mispredicts, (unsigned long long)e->branches,
			(unsigned long long)e->cond_miss, (unsigned long long)e->cond_branches,
			(unsigned long long)e->indirect_miss, (unsigned long long)e->indirect);
		if (e->target_misses)
			fprintf(out, ", %llu target(s) the BTB lacked", (unsigned long long)e->target_misses);
		fputc('\n', out);
	}
	if (a->events.level_hits[0] + a->events.level_hits[1] + a->events.level_hits[2] + a->events.level_hits[3])
		fprintf(out, "  %-28s L1 %llu, L2 %llu, L3 %llu, memory %llu\n", "memory accesses served by",
			(unsigned long long)a->events.level_hits[0], (unsigned long long)a->events.level_hits[1],
			(unsigned long long)a->events.level_hits[2], (unsigned long long)a->events.level_hits[3]);
	/* where the time went, which the counts above do not say */
	rd_sim_stall_line(out, "  time waiting on loads from    ", a);

	double backend = b->backend_mem + b->backend_core;
	if (sim_machine_topdown(m) == SIM_TOPDOWN_AMD) {
		/* AMD's pipeline-utilization levels 1-2 (the kernel's
		 * amdzen4/amdzen5 pipeline.json): dispatch slots. The model
		 * runs one thread, and its wrong paths are mispredicted
		 * branches alone (no pipeline restarts) */
		fprintf(out, "\nSimulated Top-Down, AMD's pipeline utilization (share of dispatch slots, %u per cycle)\n",
			sim_machine_width(m));
		fprintf(out, "  %-26s %6.1f %%\n", "Frontend Bound", pct(b->frontend, b->slots));
		fprintf(out, "  %-26s %6.1f %%  (mispredicts: the model has no pipeline restarts)\n", "Bad Speculation",
			pct(b->bad_spec, b->slots));
		fprintf(out, "  %-26s %6.1f %%\n", "Backend Bound", pct(backend, b->slots));
		fprintf(out, "    %-24s %6.1f %%\n", "Memory", pct(b->backend_mem, b->slots));
		fprintf(out, "    %-24s %6.1f %%\n", "CPU", pct(b->backend_core, b->slots));
		fprintf(out, "  %-26s %6.1f %%  (one thread in the model)\n", "SMT Contention", 0.0);
		fprintf(out, "  %-26s %6.1f %%\n", "Retiring", pct(b->retiring, b->slots));
	} else {
		fprintf(out, "\nSimulated Top-Down (share of issue slots, %u per cycle)\n", sim_machine_width(m));
		fprintf(out, "  %-26s %6.1f %%\n", "Retiring", pct(b->retiring, b->slots));
		fprintf(out, "  %-26s %6.1f %%\n", "Frontend Bound", pct(b->frontend, b->slots));
		fprintf(out, "  %-26s %6.1f %%\n", "Bad Speculation", pct(b->bad_spec, b->slots));
		fprintf(out, "  %-26s %6.1f %%\n", "Backend Bound", pct(backend, b->slots));
		fprintf(out, "    %-24s %6.1f %%\n", "Memory Bound", pct(b->backend_mem, b->slots));
		fprintf(out, "    %-24s %6.1f %%\n", "Core Bound", pct(b->backend_core, b->slots));
	}

	rd_sim_sensitivity(out, m, a, info->threshold, false, true);
	if (info->no_insn_table)
		return;
	rd_sim_insn_table(out, m, code, a, info, false, 0);
}

static void render_json(FILE *out, const struct sim_machine *m, const struct sim_code *code,
			const struct sim_analysis *a, const struct render_sim_info *info)
{
	const struct sim_stats *b = &a->base;
	fprintf(out, "{\n  \"source\": ");
	render_json_string(out, info->source);
	fprintf(out, ",\n  \"machine\": ");
	render_json_string(out, sim_machine_name(m));
	fprintf(out, ",\n  \"machine_description\": ");
	render_json_string(out, sim_machine_describe(m));
	fprintf(out, ",\n  \"stream\": ");
	if (info->stream)
		render_json_string(out, info->stream);
	else
		fputs("null", out);
	if (info->loop_note && info->loop_note[0]) {
		fprintf(out, ",\n  \"loop_choice\": ");
		render_json_string(out, info->loop_note);
	}
	fprintf(out, ",\n  \"unit\": ");
	render_json_string(out, unit_of(info));
	fprintf(out, ",\n  \"iterations_measured\": ");
	render_json_number(out, a->units);
	fprintf(out, ",\n  \"iterations\": %u,\n  \"warmup_iterations\": %u,\n  \"instructions_per_iteration\": %zu,\n",
		info->iterations, info->warmup, info->body_insns);
	fprintf(out, "  \"cycles_per_iteration\": ");
	render_json_number(out, a->units > 0 ? a->cycles_per_unit : NAN);
	fprintf(out, ",\n  \"stream_cycles_per_iteration\": ");
	render_json_number(out, a->units > 0 ? a->stream_cycles_per_unit : NAN);
	fprintf(out, ",\n  \"cycles\": ");
	render_json_number(out, b->cycles);
	fprintf(out, ",\n  \"instructions\": %llu,\n  \"uops\": %llu,\n  \"fused_uops\": %llu,\n  \"ipc\": ",
		(unsigned long long)b->insns, (unsigned long long)b->uops, (unsigned long long)b->fused);
	render_json_number(out, a->ipc);
	fprintf(out, ",\n  \"fused_uops_per_cycle\": ");
	render_json_number(out, a->fused_per_cycle);
	fprintf(out, ",\n  \"cycles_measured\": ");
	render_json_number(out, a->measured_cycles);
	fprintf(out, ",\n  \"instructions_measured\": ");
	render_json_number(out, a->measured_insns);
	fprintf(out, ",\n  \"fused_uops_measured\": ");
	render_json_number(out, a->measured_fused);
	fprintf(out, ",\n  \"run_weighted\": %s,\n  \"passes\": %u,\n  \"warm_pass\": %s",
		a->run_weighted ? "true" : "false", a->passes ? a->passes : 1, a->warm_pass ? "true" : "false");
	fprintf(out, ",\n  \"approximate_instructions\": %zu,\n", sim_code_approx(code));
	double s = b->slots;
	fprintf(out, "  \"topdown\": {\"slots\": ");
	render_json_number(out, s);
	fprintf(out, ", \"retiring\": ");
	render_json_number(out, s > 0 ? b->retiring / s : 0);
	fprintf(out, ", \"frontend_bound\": ");
	render_json_number(out, s > 0 ? b->frontend / s : 0);
	fprintf(out, ", \"bad_speculation\": ");
	render_json_number(out, s > 0 ? b->bad_spec / s : 0);
	fprintf(out, ", \"backend_bound\": ");
	render_json_number(out, s > 0 ? (b->backend_mem + b->backend_core) / s : 0);
	bool amd = sim_machine_topdown(m) == SIM_TOPDOWN_AMD;
	/* AMD's level 2 names for the backend's halves, and its SMT row */
	fprintf(out, amd ? ", \"backend_bound_memory\": " : ", \"memory_bound\": ");
	render_json_number(out, s > 0 ? b->backend_mem / s : 0);
	fprintf(out, amd ? ", \"backend_bound_cpu\": " : ", \"core_bound\": ");
	render_json_number(out, s > 0 ? b->backend_core / s : 0);
	if (amd)
		fprintf(out, ", \"smt_contention\": 0");
	fprintf(out, ", \"hierarchy\": \"%s\"},\n", amd ? "amd" : "intel");
	const struct sim_events *e = &a->events;
	fprintf(out,
		"  \"events\": {\"loads\": %llu, \"stores\": %llu, \"l1_hits\": %llu, \"l2_hits\": %llu, \"l3_hits\": %llu, "
		"\"memory\": %llu, \"conditional_branches\": %llu, \"conditional_mispredicted\": %llu, "
		"\"indirect_branches\": %llu, \"indirect_mispredicted\": %llu, \"btb_misses\": %llu, \"mispredictions\": %llu, \"branches\": %llu, \"target_misses\": %llu},\n",
		(unsigned long long)e->loads, (unsigned long long)e->stores, (unsigned long long)e->level_hits[0],
		(unsigned long long)e->level_hits[1], (unsigned long long)e->level_hits[2],
		(unsigned long long)e->level_hits[3], (unsigned long long)e->cond_branches,
		(unsigned long long)e->cond_miss, (unsigned long long)e->indirect,
		(unsigned long long)e->indirect_miss, (unsigned long long)e->btb_miss,
		(unsigned long long)e->mispredicts, (unsigned long long)e->branches,
		(unsigned long long)e->target_misses);
	/* where the time went by level: the share of the cycles retirement
	 * waited on loads each level served */
	fprintf(out, "  \"load_wait_share\": {");
	static const char *const level[] = { "l1", "l2", "l3", "memory" };
	for (int l = 0; l < 4; l++) {
		fprintf(out, "%s\"%s\": ", l ? ", " : "", level[l]);
		render_json_number(out, b->cycles > 0 ? b->mem_stall[l] / b->cycles : 0);
	}
	fprintf(out, "},\n");
	fprintf(out, "  \"threshold\": ");
	render_json_number(out, info->threshold);
	fprintf(out, ",\n  \"weights\": [");
	for (size_t w = 0; w < a->nweights; w++) {
		fprintf(out, "%s", w ? ", " : "");
		render_json_number(out, a->weights[w]);
	}
	fprintf(out, "],\n  \"unswept\": %zu", a->pruned);
	fprintf(out, ",\n  \"sensitivity\": [");
	for (size_t i = 0; i < a->nsens; i++) {
		const struct sim_sensitivity *se = &a->sens[i];
		fprintf(out, "%s\n    {\"resources\": [", i ? "," : "");
		for (unsigned k = 0; k < se->set.n; k++) {
			fprintf(out, "%s", k ? ", " : "");
			render_json_string(out, sim_res_name(m, se->set.res[k]));
		}
		fprintf(out, "], \"speedup\": [");
		for (size_t w = 0; w < a->nweights; w++) {
			fprintf(out, "%s", w ? ", " : "");
			render_json_number(out, se->speedup[w]);
		}
		fprintf(out, "], \"upper_bound\": ");
		render_json_number(out, se->upper);
		fprintf(out, ", \"bottleneck\": %s, \"searched\": %s, \"envelope\": %s, \"dip\": ",
			se->bottleneck ? "true" : "false", se->searched ? "true" : "false",
			se->envelope ? "true" : "false");
		render_json_number(out, se->dip);
		fputc('}', out);
	}
	fprintf(out, "\n  ],\n  \"bottlenecks\": [");
	bool first = true;
	for (size_t i = 0; i < a->nsens; i++) {
		if (!a->sens[i].bottleneck)
			continue;
		char name[128];
		rd_set_name(m, &a->sens[i].set, name, sizeof name);
		fprintf(out, "%s", first ? "" : ", ");
		render_json_string(out, name);
		first = false;
	}
	fprintf(out, "],\n  \"per_instruction\": [");
	unsigned cols[SIM_MAX_RES];
	size_t nc = used_resources(m, code, a, cols);
	first = true;
	for (size_t i = 0; i < sim_code_count(code); i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (!insn_listed(a, info, i, in))
			continue;
		fprintf(out, "%s\n    {\"address\": \"0x%llx\", \"disassembly\": ", first ? "" : ",",
			(unsigned long long)(in->addr - info->addr_bias));
		first = false;
		render_json_string(out, in->text);
		char src[300];
		if (info->srcline) {
			fprintf(out, ", \"source\": ");
			if (insn_source(info, in, src, sizeof src))
				render_json_string(out, src);
			else
				fputs("null", out);
		}
		if (info->samples_total)
			fprintf(out, ", \"samples\": %llu", (unsigned long long)insn_samples(info, in));
		fprintf(out, ", \"form\": ");
		render_json_string(out, in->key);
		fprintf(out, ", \"executions\": %llu, \"latency\": ", (unsigned long long)e->insn_count[i]);
		render_json_number(out, in->lat);
		fprintf(out, ", \"ports\": ");
		render_json_string(out, in->ports ? in->ports : "");
		fprintf(out, ", \"uops\": %u, \"fused_uops\": %u, \"approximate\": %s, \"share\": {", in->uops, in->fused,
			in->approx ? "true" : "false");
		for (size_t c = 0; c < nc; c++) {
			fprintf(out, "%s", c ? ", " : "");
			render_json_string(out, sim_res_name(m, cols[c]));
			fprintf(out, ": ");
			render_json_number(out, insn_share(m, code, a, i, cols[c]));
		}
		fprintf(out, "}}");
	}
	fprintf(out, "\n  ]\n}\n");
}

static void csv_row(FILE *out, const char *kind, const char *name, const char *field, double v)
{
	render_csv_field(out, kind, ',');
	fputc(',', out);
	render_csv_field(out, name, ',');
	fputc(',', out);
	render_csv_field(out, field, ',');
	fprintf(out, ",%.9g\n", isfinite(v) ? v : 0);
}

static void render_csv(FILE *out, const struct sim_machine *m, const struct sim_code *code,
		       const struct sim_analysis *a, const struct render_sim_info *info)
{
	const struct sim_stats *b = &a->base;
	fprintf(out, "kind,name,field,value\n");
	csv_row(out, "summary", info->source, "cycles_per_iteration", a->units > 0 ? a->cycles_per_unit : NAN);
	csv_row(out, "summary", info->source, "stream_cycles_per_iteration", a->units > 0 ? a->stream_cycles_per_unit : NAN);
	csv_row(out, "summary", info->source, "cycles", b->cycles);
	csv_row(out, "summary", info->source, "instructions", (double)b->insns);
	csv_row(out, "summary", info->source, "ipc", a->ipc);
	csv_row(out, "summary", info->source, "approximate_instructions", (double)sim_code_approx(code));
	static const char *const level[] = { "l1", "l2", "l3", "memory" };
	for (int l = 0; l < 4; l++)
		csv_row(out, "load_wait_share", level[l], "share", b->cycles > 0 ? b->mem_stall[l] / b->cycles : 0);
	double s = b->slots;
	csv_row(out, "topdown", "retiring", "share", s > 0 ? b->retiring / s : 0);
	csv_row(out, "topdown", "frontend_bound", "share", s > 0 ? b->frontend / s : 0);
	csv_row(out, "topdown", "bad_speculation", "share", s > 0 ? b->bad_spec / s : 0);
	csv_row(out, "topdown", "backend_bound", "share", s > 0 ? (b->backend_mem + b->backend_core) / s : 0);
	bool amd = sim_machine_topdown(m) == SIM_TOPDOWN_AMD;
	csv_row(out, "topdown", amd ? "backend_bound_memory" : "memory_bound", "share", s > 0 ? b->backend_mem / s : 0);
	csv_row(out, "topdown", amd ? "backend_bound_cpu" : "core_bound", "share", s > 0 ? b->backend_core / s : 0);
	if (amd)
		csv_row(out, "topdown", "smt_contention", "share", 0);
	for (size_t i = 0; i < a->nsens; i++) {
		const struct sim_sensitivity *se = &a->sens[i];
		char name[128], field[32];
		rd_set_name(m, &se->set, name, sizeof name);
		for (size_t w = 0; w < a->nweights; w++) {
			snprintf(field, sizeof field, "speedup@%.2f", a->weights[w]);
			csv_row(out, "sensitivity", name, field, se->speedup[w]);
		}
		csv_row(out, "sensitivity", name, "upper_bound", se->upper);
		csv_row(out, "sensitivity", name, "bottleneck", se->bottleneck);
	}
	unsigned cols[SIM_MAX_RES];
	size_t nc = used_resources(m, code, a, cols);
	for (size_t i = 0; i < sim_code_count(code); i++) {
		const struct sim_insn *in = sim_code_insn(code, i);
		if (!insn_listed(a, info, i, in))
			continue;
		char name[440], src[300];
		if (insn_source(info, in, src, sizeof src))
			snprintf(name, sizeof name, "0x%llx %s @ %s", (unsigned long long)(in->addr - info->addr_bias), in->text, src);
		else
			snprintf(name, sizeof name, "0x%llx %s", (unsigned long long)(in->addr - info->addr_bias), in->text);
		csv_row(out, "instruction", name, "executions", (double)a->events.insn_count[i]);
		if (info->samples_total)
			csv_row(out, "instruction", name, "samples", (double)insn_samples(info, in));
		csv_row(out, "instruction", name, "latency", in->lat);
		for (size_t c = 0; c < nc; c++) {
			char field[40];
			snprintf(field, sizeof field, "share:%s", sim_res_name(m, cols[c]));
			csv_row(out, "instruction", name, field, insn_share(m, code, a, i, cols[c]));
		}
	}
}

void render_sim(FILE *out, const struct sim_machine *m, const struct sim_code *code,
		      const struct sim_analysis *a, const struct render_sim_info *info, enum render_format fmt)
{
	switch (fmt) {
	case RENDER_JSON:
		render_json(out, m, code, a, info);
		break;
	case RENDER_CSV:
		render_csv(out, m, code, a, info);
		break;
	default:
		render_text(out, m, code, a, info);
		break;
	}
}

/* white at no speedup to dark red at the full scale */
static void heat_colour(double v, double scale, char *buf, size_t n)
{
	double t = scale > 0 ? v / scale : 0;
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	int r = (int)(255 - 127 * t), g = (int)(255 - 255 * t), b = (int)(255 - 255 * t);
	snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

void render_sim_svg(FILE *out, const struct sim_machine *m, const struct sim_analysis *a,
			  const struct render_sim_info *info)
{
	const double bar_w = 46, gap = 14, left = 60, top = 50, plot_h = 300;
	size_t nb = a->nsens;
	double width = left + nb * (bar_w + gap) + 40;
	if (width < 480)
		width = 480;
	double height = top + plot_h + 110;
	double top_w = a->nweights ? a->weights[a->nweights - 1] - 1 : 0.15;
	/* the scale is the largest gain the weights could give */
	double scale = top_w > 0 ? top_w : 0.15;
	for (size_t i = 0; i < nb; i++)
		if (a->nweights && a->sens[i].speedup[a->nweights - 1] > scale)
			scale = a->sens[i].speedup[a->nweights - 1];
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height);
	fprintf(out, "<title>gus sim sensitivity: ");
	rd_xml_text(out, info->source);
	fprintf(out, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(out, "<text x=\"%.0f\" y=\"22\" font-size=\"15\">Sensitivity on %s: speedup with +1..+%.0f %% capacity</text>\n",
		left, sim_machine_name(m), 100 * top_w);
	fprintf(out, "<text x=\"%.0f\" y=\"40\" fill=\"#555\">", left);
	rd_xml_text(out, info->source);
	if (a->units > 0)
		fprintf(out, " - %.2f cycles per iteration", a->cycles_per_unit);
	fprintf(out, "</text>\n");
	/* axis: 0 to scale */
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>\n", left - 6, top + plot_h,
		width - 20, top + plot_h);
	for (int k = 0; k <= 4; k++) {
		double v = scale * k / 4, y = top + plot_h - plot_h * k / 4;
		fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%.0f%%</text>\n", left - 10,
			y + 4, 100 * v);
		fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", left - 6, y,
			width - 20, y);
	}
	for (size_t i = 0; i < nb; i++) {
		const struct sim_sensitivity *se = &a->sens[i];
		double x = left + i * (bar_w + gap) + gap / 2;
		double top_sp = a->nweights ? se->speedup[a->nweights - 1] : 0;
		double h = scale > 0 ? plot_h * (top_sp > 0 ? top_sp : 0) / scale : 0;
		if (h < 2)
			h = 2;
		/* the bar is cut into one band per weight, coloured by the
		 * speedup at that weight: it darkens where the gain grows */
		size_t nw = a->nweights ? a->nweights : 1;
		for (size_t w = 0; w < nw; w++) {
			double y0 = top + plot_h - h * (double)(w + 1) / nw;
			char col[16];
			heat_colour(a->nweights ? se->speedup[w] : 0, scale, col, sizeof col);
			fprintf(out, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.0f\" height=\"%.2f\" fill=\"%s\"><title>+%.0f%%: %.2f%% speedup</title></rect>\n",
				x, y0, bar_w, h / nw + 0.3, col, a->nweights ? 100 * (a->weights[w] - 1) : 0,
				a->nweights ? 100 * se->speedup[w] : 0);
		}
		fprintf(out, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.0f\" height=\"%.2f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
			x, top + plot_h - h, bar_w, h, se->bottleneck ? "#b00" : "#999", se->bottleneck ? "2" : "1");
		fprintf(out, "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"middle\">%.1f%%</text>\n", x + bar_w / 2,
			top + plot_h - h - 6, 100 * top_sp);
		char name[128];
		rd_set_name(m, &se->set, name, sizeof name);
		fprintf(out, "<text transform=\"translate(%.1f,%.0f) rotate(45)\"%s>", x + bar_w / 2 - 4, top + plot_h + 14,
			se->bottleneck ? " font-weight=\"bold\" fill=\"#b00\"" : "");
		rd_xml_text(out, name);
		fprintf(out, "</text>\n");
	}
	fprintf(out, "</svg>\n");
}

void render_report_sim_info(const struct merge_report_region *v, bool insn_table, struct render_sim_info *info,
			   char *source, size_t n)
{
	snprintf(source, n, "%s:%s", v->file, v->name);
	memset(info, 0, sizeof *info);
	info->source = source;
	info->threshold = 0.01;
	info->stream = v->stream;
	info->srcline = v->srcline;
	info->srcline_ctx = v->srcline_ctx;
	info->insn_start = v->start + v->bias;
	info->insn_end = v->end + v->bias;
	info->addr_bias = v->bias;
	info->no_insn_table = !insn_table;
	info->unit = v->unit;
	info->samples = v->insn_samples;
	info->nsamples = v->ninsn_samples;
	info->samples_total = v->insn_samples_total;
}
