/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus list: what gus knows (merge.h): the TMA tables and core models,
 * one table's nodes with their formulas and thresholds, its events with
 * their encodings, one core model's resources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

static const char *unit_word(enum td_unit u)
{
	switch (u) {
	case TD_UNIT_SLOTS: return "slots";
	case TD_UNIT_CLOCKS: return "clocks";
	case TD_UNIT_STALLS: return "stalls";
	default: return "core-clocks";
	}
}

static int max_level(const struct td_table *t)
{
	int m = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].level > m)
			m = t->nodes[i].level;
	return m;
}

void render_catalog(FILE *out, const char *host, const struct td_table *const *tables, size_t ntables,
			  const struct sim_machine *const *machines, size_t nmachines)
{
	if (host)
		fprintf(out, "This CPU: %s\n\n", host);
	fprintf(out, "TMA tables (gus stat, gus record --arch; gus list tma --arch ID):\n");
	for (size_t i = 0; i < ntables; i++) {
		const struct td_table *t = tables[i];
		fprintf(out, "  %-6s %s: %zu nodes, levels 1-%d, %zu events", t->id, t->full_name, t->n_nodes,
			max_level(t), t->n_events);
		if (t->n_aliases) {
			fprintf(out, "; also");
			for (size_t k = 0; k < t->n_aliases; k++)
				fprintf(out, " %s", t->aliases[k]);
		}
		fputc('\n', out);
	}
	fprintf(out, "\nCore models (gus sim, gus record, gus report --arch; gus list machine --arch ID):\n");
	for (size_t i = 0; i < nmachines; i++)
		fprintf(out, "  %-6s %s\n", sim_machine_name(machines[i]), sim_machine_describe(machines[i]));
}

void render_tma_nodes(FILE *out, const struct td_table *t)
{
	fprintf(out, "TMA table %s: %s\n", t->id, t->full_name);
	fprintf(out, "%-40s %-11s %9s  %s\n", "node", "unit", "threshold", "formula");
	/* in the tree's order: each node followed by its children */
	int stack[256];
	size_t sp = 0;
	for (size_t i = t->n_nodes; i-- > 0;)
		if (t->nodes[i].parent < 0 && sp < 256)
			stack[sp++] = (int)i;
	while (sp) {
		int i = stack[--sp];
		const struct td_node *n = &t->nodes[i];
		char name[64];
		snprintf(name, sizeof name, "%*s%s", 2 * (n->level - 1), "", n->name);
		fprintf(out, "%-40s %-11s %8.0f%%  %s\n", name, unit_word(n->unit), 100 * n->threshold,
			n->formula ? n->formula : "");
		for (size_t k = t->n_nodes; k-- > 0;)
			if (t->nodes[k].parent == i && sp < 256)
				stack[sp++] = (int)k;
	}
	/* a table that says its counters (AMD's, no fixed counters): how its
	 * levels fit them */
	if (t->counters) {
		bool *needed = calloc(t->n_events + 1, sizeof *needed);
		int top = max_level(t);
		fprintf(out, "\ncounters: %d general per thread, no fixed ones\n", t->counters);
		for (int lvl = 1; needed && lvl <= top; lvl++) {
			char err[TD_ERRLEN];
			bool *sel = td_select_nodes(t, lvl, NULL, err, sizeof err);
			if (!sel)
				break;
			memset(needed, 0, (t->n_events + 1) * sizeof *needed);
			td_needed_events(t, sel, false, needed);
			free(sel);
			size_t n = 0;
			for (size_t e = 0; e < t->n_events; e++)
				n += needed[e];
			char lv[32];
			snprintf(lv, sizeof lv, lvl == 1 ? "level 1" : "levels 1-%d", lvl);
			if (n <= (size_t)t->counters)
				fprintf(out, "  %s: %zu events, one group\n", lv, n);
			else
				fprintf(out, "  %s: %zu events, more than the counters: gus stat multiplexes its groups "
					     "(--no-multiplex: one run per group)\n", lv, n);
		}
		free(needed);
	}
	if (t->n_omitted) {
		fprintf(out, "\nleft out (their formulas need what gus does not count per program):\n");
		for (size_t i = 0; i < t->n_omitted; i++)
			fprintf(out, "  %s\n", t->omitted[i]);
	}
	if (t->n_metrics) {
		fprintf(out, "\nmetrics the formulas use:\n");
		for (size_t i = 0; i < t->n_metrics; i++)
			fprintf(out, "  %s = %s\n", t->metrics[i].name, t->metrics[i].formula ? t->metrics[i].formula : "");
	}
}

void render_tma_events(FILE *out, const struct td_table *t)
{
	fprintf(out, "Events of the TMA table %s: %s\n", t->id, t->full_name);
	fprintf(out, "%-48s %-8s %-12s %-10s %s\n", "event", "counter", "encoding", "config1", "libpfm4 name");
	for (size_t i = 0; i < t->n_events; i++) {
		const struct td_event *e = &t->events[i];
		char cfg[24], cfg1[24] = "-";
		snprintf(cfg, sizeof cfg, "0x%llx", (unsigned long long)e->config);
		if (e->config1)
			snprintf(cfg1, sizeof cfg1, "0x%llx", (unsigned long long)e->config1);
		fprintf(out, "%-48s %-8s %-12s %-10s %s", e->name,
			e->kind == TD_EV_FIXED ? "fixed" : e->kind == TD_EV_METRICS ? "metrics" : "general", cfg, cfg1,
			e->pfm ? e->pfm : "(none: the raw encoding)");
		if (e->n_aliases) {
			fprintf(out, "; perf prints");
			for (size_t k = 0; k < e->n_aliases; k++)
				fprintf(out, " %s", e->aliases[k]);
		}
		fputc('\n', out);
	}
}

static const char *kind_word(enum sim_res_kind k)
{
	switch (k) {
	case SIM_RK_PORTS: return "port group";
	case SIM_RK_FRONTEND: return "front end";
	case SIM_RK_INST_LAT: return "latency";
	case SIM_RK_INST_WINDOW: return "window";
	case SIM_RK_L2_THR: return "L2 throughput";
	case SIM_RK_L3_THR: return "L3 throughput";
	case SIM_RK_MEM_THR: return "memory throughput";
	case SIM_RK_DIV: return "divider";
	case SIM_RK_BRANCH: return "branch";
	default: return "other";
	}
}

void render_machine(FILE *out, const struct sim_machine *m)
{
	fprintf(out, "Core model %s: %s\n", sim_machine_name(m), sim_machine_describe(m));
	fprintf(out, "issue width: %u per cycle\n\n", sim_machine_width(m));
	fprintf(out, "%-16s %-18s %s\n", "resource", "kind", "capacity per cycle (window: entries)");
	for (unsigned r = 0; r < sim_nres(m); r++)
		fprintf(out, "%-16s %-18s %g\n", sim_res_name(m, r), kind_word(sim_res_kind(m, r)), sim_res_capacity(m, r));
}
