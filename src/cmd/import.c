/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus import: the options, a perf.data turned into a gus recording
 * (recording_import), and what it holds said on the terminal. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "merge.h"
#include "render.h"
#include "recording.h"

struct import_opts {
	struct recording_import_request rq;
	bool quiet;
	bool stat;
};

static void import_usage(FILE *out)
{
	fprintf(out,
		"usage: gus import [-o gus.data] [--force] [--hot N] [--arch NAME]\n"
		"                  [--debug-dir DIR] [--import-counts FILE] [-q] perf.data\n"
		"       gus import --stat perf.data\n"
		"\n"
		"A recording of perf record (file or pipe mode) as a gus recording: its\n"
		"samples, call chains and mappings, each object taken by its path and\n"
		"build-id (or from perf's build-id cache), the CPU its header names, and\n"
		"the hot regions ranked as gus record ranks them. gus report reads the\n"
		"result as one of gus record's (gus report -i perf.data imports on the fly).\n"
		"\n"
		"  -o, --output FILE    the recording (default gus.data; an earlier one is\n"
		"                       kept as FILE.old)\n"
		"  -f, --force          replace FILE also when it is not a recording\n"
		"      --hot N          hot regions kept (default 5)\n"
		"      --arch NAME      core model of the regions (default: the nearest to\n"
		"                       the perf.data's CPU)\n"
		"      --debug-dir DIR  perf's build-id cache (default ~/.debug)\n"
		"      --import-counts FILE\n"
		"                       a perf stat -x, file of the same run (whole program, or\n"
		"                       per region as gus record takes it): the measured tree\n"
		"      --stat           only count the records by type and the samples by\n"
		"                       event, as perf report --stat does; nothing written\n"
		"  -q, --quiet          no progress on the terminal\n"
		"  -h, --help           this help; 'gus help import' shows the manual\n"
		"\n"
		"perf.data '-' is the standard input, in pipe mode (perf record -o - ... |\n"
		"gus import -). Objects not found by path or in the build-id cache are\n"
		"asked of the debuginfod servers of DEBUGINFOD_URLS when it is set.\n");
}

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "hot", required_argument, NULL, 'H' },
		{ "arch", required_argument, NULL, 'a' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "stat", no_argument, NULL, 'S' },
		{ "import-counts", required_argument, NULL, 'I' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	o->rq.output = "gus.data";
	o->rq.hot = 5;
	int c;
	opterr = 0;
	while ((c = gus_getopt(argc, argv, "o:fqh", longopts, "import")) != -1) {
		switch (c) {
		case 'o': o->rq.output = optarg; break;
		case 'f': o->rq.force = true; break;
		case 'H':
			if (gus_parse_unsigned(gus_optname(), optarg, 1, 64, &o->rq.hot))
				return GUS_EXIT_USAGE;
			break;
		case 'a': o->rq.arch = optarg; break;
		case 'D': o->rq.debug_dir = optarg; break;
		case 'S': o->stat = true; break;
		case 'I': o->rq.import_counts = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h':
			import_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("import: option '-%c' %s", optopt,
						       strchr("o", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("import: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return gus_usage_error("import: which perf.data? (gus import perf.data -o gus.data)");
	if (optind + 1 < argc)
		return gus_usage_error("import: one perf.data at a time ('%s' too)", argv[optind + 1]);
	o->rq.input = argv[optind];
	return 0;
}

/* the counts in perf report --stat's words */
static int print_stat(const struct import_opts *o)
{
	struct gus_progress progress;
	struct recording_log log = gus_progress_log(&progress, "import", true, false);
	static struct recording_import_stat st;
	enum recording_status rs = recording_import_stat(o->rq.input, &st, &log);
	if (rs != RECORDING_OK)
		return gus_exit_for(rs);
	const struct perfdata_stats *s = &st.stats;
	printf("%20s events: %10llu\n", "TOTAL", (unsigned long long)s->records);
	for (unsigned t = 0; t < PERFDATA_TYPES; t++) {
		if (!s->by_type[t])
			continue;
		char name[32];
		if (perfdata_type_name(t))
			snprintf(name, sizeof name, "%s", perfdata_type_name(t));
		else
			snprintf(name, sizeof name, "type %u", t);
		printf("%20s events: %10llu\n", name, (unsigned long long)s->by_type[t]);
	}
	if (s->other_types)
		printf("%20s events: %10llu\n", "other types", (unsigned long long)s->other_types);
	for (size_t i = 0; i < st.nevents; i++) {
		if (!st.event_samples[i])
			continue;
		/* the event's name is the perf.data's: escaped */
		char event[4 * sizeof st.event[i]];
		render_text_escape(event, sizeof event, st.event[i]);
		printf("%s stats:\n%20s events: %10llu\n", event, "SAMPLE", (unsigned long long)st.event_samples[i]);
	}
	printf("lost samples: %llu, lost records: %llu, throttled: %llu, AUX bytes: %llu, AUXTRACE bytes: %llu\n",
	       (unsigned long long)s->lost_samples, (unsigned long long)s->lost_events,
	       (unsigned long long)s->throttles, (unsigned long long)s->aux_bytes,
	       (unsigned long long)s->auxtrace_bytes);
	if (st.intel_pt) {
		printf("Intel PT: %llu packets in %llu bytes (%llu bytes of no packet, %llu cut at a record's end):",
		       (unsigned long long)st.pt.packets, (unsigned long long)st.pt.bytes, (unsigned long long)st.pt.bad,
		       (unsigned long long)st.pt.cut);
		for (int k = 0; k < IPT_PKT_KINDS; k++)
			if (st.pt.by_kind[k])
				printf(" %s %llu", ipt_packet_kind_name((enum ipt_packet_kind)k),
				       (unsigned long long)st.pt.by_kind[k]);
		printf("\n");
	}
	if (st.damage[0]) {
		gus_error("%s", st.damage);
		return GUS_EXIT_ERROR;
	}
	return GUS_EXIT_OK;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	/* "-": the standard input (perf record -o - | gus import -) */
	if (strcmp(o.rq.input, "-") && gus_check_readable("import", o.rq.input))
		return GUS_EXIT_ERROR;
	if (o.stat)
		return print_stat(&o);
	if (o.rq.import_counts && gus_check_readable("--import-counts", o.rq.import_counts))
		return GUS_EXIT_ERROR;
	o.rq.tma_dir = gus_tma_dir();
	struct gus_progress progress;
	o.rq.machines_dir = gus_data_dir("machines");
	o.rq.log = gus_progress_log(&progress, "import", o.quiet, false);
	struct recording_import_summary sum;
	enum recording_status st = recording_import(&o.rq, &sum);
	if (st != RECORDING_OK)
		return gus_exit_for(st);
	if (!o.quiet) {
		/* the event's name is the perf.data's: escaped */
		char event[4 * sizeof sum.event];
		render_text_escape(event, sizeof event, sum.event[0] ? sum.event : "(no event of code)");
		fprintf(stderr, "[ gus import: %llu records, %llu %s samples", (unsigned long long)sum.records,
			(unsigned long long)sum.samples, event);
		if (sum.other_samples)
			fprintf(stderr, " (%llu of other events left out)", (unsigned long long)sum.other_samples);
		if (sum.missing_objects)
			fprintf(stderr, ", %zu sampled object(s) not here", sum.missing_objects);
		if (sum.damaged)
			fprintf(stderr, ", read up to its damage");
		fprintf(stderr, "; wrote %s ]\n", o.rq.output);
	}
	return GUS_EXIT_OK;
}
