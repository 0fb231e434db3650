/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus list: the CPUs gus has TMA tables and core models for, one table's
 * nodes or events, one core model's resources (gus-list(1)). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "merge.h"
#include "render.h"
#include "recording.h"
#include "sim.h"
#include "topdown.h"

static void list_usage(FILE *out)
{
	fprintf(out,
		"usage: gus list                      the TMA tables and core models, and this CPU\n"
		"       gus list tma [--arch ID]      a table's nodes: unit, threshold, formula\n"
		"       gus list events [--arch ID]   a table's events: counter, encoding, libpfm4 name\n"
		"       gus list machine [--arch ID]  a core model's resources\n"
		"\n"
		"  --arch ID    a table (clx, skx, icx, spr, and those generated from the kernel:\n"
		"               gus list shows them) or core model (skx, icx, spr); default:\n"
		"               the one this CPU is taken for\n");
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *arch = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = gus_getopt(argc, argv, "+a:h", longopts, "list")) != -1) {
		switch (c) {
		case 'a': arch = optarg; break;
		case 'h': list_usage(stdout); return GUS_EXIT_OK;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			return gus_usage_error("list: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	const char *what = optind < argc ? argv[optind++] : NULL;
	/* an option after the word */
	while ((c = gus_getopt(argc, argv, "+a:h", longopts, "list")) != -1) {
		if (c == GUS_OPT_BAD)
			return GUS_EXIT_USAGE;
		if (c != 'a')
			return gus_usage_error("list: unknown option or missing argument in '%s'", argv[optind - 1]);
		arch = optarg;
	}
	if (optind < argc)
		return gus_usage_error("list: '%s' is not what gus list takes (tma, events, machine)", argv[optind]);
	if (what && strcmp(what, "tma") && strcmp(what, "events") && strcmp(what, "machine"))
		return gus_usage_error("list: '%s': gus list takes tma, events or machine", what);
	if (!what && arch)
		return gus_usage_error("list: --arch goes with tma, events or machine");

	char err[1024];
	if (what && !strcmp(what, "machine")) {
		const char *id = arch ? arch : gus_host_machine();
		struct sim_machine *m = sim_machine_find(gus_data_dir("machines"), id, err, sizeof err);
		if (!m) {
			gus_error("%s", err);
			return arch ? GUS_EXIT_USAGE : GUS_EXIT_ERROR;
		}
		render_machine(stdout, m);
		sim_machine_free(m);
		return GUS_EXIT_OK;
	}
	if (what) {
		struct collect_pmu_info pmu;
		bool have_pmu;
		enum recording_status st;
		struct td_table *t = recording_tma_table(gus_tma_dir(), arch, false, &pmu, &have_pmu, gus_terminal_log(),
							 &st);
		if (!t)
			return arch ? GUS_EXIT_USAGE : gus_exit_for(st);
		if (!strcmp(what, "tma"))
			render_tma_nodes(stdout, t);
		else
			render_tma_events(stdout, t);
		td_table_free(t);
		return GUS_EXIT_OK;
	}
	struct recording_catalog cat;
	if (recording_catalog(gus_tma_dir(), gus_data_dir("machines"), &cat, err, sizeof err)) {
		gus_error("%s", err);
		return GUS_EXIT_ERROR;
	}
	render_catalog(stdout, cat.host, (const struct td_table *const *)cat.tables, cat.ntables,
			     (const struct sim_machine *const *)cat.machines, cat.nmachines);
	recording_catalog_free(&cat);
	return GUS_EXIT_OK;
}
