/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus record: the options of the recording pipeline (recording.h), its
 * messages and progress on the terminal, and the exit status. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "recording.h"

/* the request, and what only the command line cares about */
struct record_opts {
	struct recording_request rq;
	bool quiet;
};

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: gus record [options] -- program args\n"
		"\n"
		"Runs the program and records into gus.data what gus report shows: the\n"
		"TMA count set and samples, the hot regions (functions and their loops),\n"
		"and their instruction stream: Intel PT of the same run, or, where the\n"
		"machine has no PT, the QEMU tracer in a second run.\n"
		"\n"
		"With QEMU the program runs twice, so whatever it does (files written,\n"
		"network) happens twice. The first run has gus's standard streams. The QEMU run\n"
		"reads the same standard input (a file again, a copy of a pipe, or\n"
		"/dev/null after a terminal), and its output goes into the recording.\n"
		"\n"
		"  -o, --output FILE        the recording (default gus.data; an earlier\n"
		"                           recording there becomes FILE.old; anything else\n"
		"                           there is refused)\n"
		"      --force              also replace a regular file that is not a\n"
		"                           recording (never a directory)\n"
		"  -l, --level N            TMA levels to count, 1 to 3 (default 3)\n"
		"      --tracer T           auto (default: pt where available, else qemu),\n"
		"                           pt, qemu, or none (as --no-trace)\n"
		"      --no-trace           run the program once: no second run, no stream\n"
		"      --hot N              hot functions kept, each with up to 3 of its loops\n"
		"                           (default 5)\n"
		"  -F, --freq HZ            samples per second (default 4000)\n"
		"  -g                       record call chains with the samples (frame pointers)\n"
		"      --call-graph MODE    fp (as -g), or dwarf[,SIZE]: SIZE bytes of user stack\n"
		"                           (default 8192) and the registers with each sample,\n"
		"                           unwound with the DWARF call frames by gus report\n"
		"  -e, --event EV           sampling event: cycles or cpu-clock (default:\n"
		"                           precise cycles, cpu-clock without a PMU)\n"
		"      --max-insns N        QEMU: records stored in all (default 16000000; with\n"
		"                           --window 0: per traced function, default 500000);\n"
		"                           windows that reach it cover the run up to there:\n"
		"                           it goes on untraced, and how much they cover is said\n"
		"      --window N           the stream as windows of N records spread\n"
		"                           over the whole run, 32 back to back, then 32 at\n"
		"                           twice the stride, ... (default 5000; 0: the\n"
		"                           first records of each function, the run stopped\n"
		"                           once each has --max-insns)\n"
		"      --no-mem             QEMU: no data addresses\n"
		"      --step-windows N     QEMU: hot code QEMU cannot run (AVX-512...) or\n"
		"                           never ran is single-stepped in a third, native\n"
		"                           run, about N windows of 500 records each, 2N at\n"
		"                           most (default 16; 0: none)\n"
		"      --import-counts FILE the count set from 'perf stat -x,' output instead\n"
		"                           of counting (gus stat --print-events shows the\n"
		"                           command), or per-region counts (a CSV whose\n"
		"                           first line is region,event,value); --arch names\n"
		"                           its table, --smt on|off\n"
		"      --read-events LIST   count LIST (one group) at every sample, per\n"
		"                           region, as perf record -e '{cycles,LIST}:S'\n"
		"                           (default: the TMA groups, where there are counters)\n"
		"      --no-region-counts   count the TMA events for the whole program only\n"
		"      --arch ID            TMA table: clx, skx, icx, spr (default: the CPU's)\n"
		"      --spire              also count the SPIRE metric set in intervals (an\n"
		"                           extra run) for gus report --spire MODEL\n"
		"      --spire-interval MS  interval length (default 100)\n"
		"      --spire-metrics LIST only these metrics (implies --spire)\n"
		"      --spire-time EVENT, --spire-work EVENT   other T and W events\n"
		"      --spire-arch ID      the metric set (default: the CPU's; gus spire metrics)\n"
		"      --import-intervals FILE  SPIRE samples from 'perf stat -I MS -x,' output\n"
		"                           instead of counting them\n"
		"  -u, --user               count and sample user space only\n"
		"      --pt-mode MODE       full (default) or snapshot (on SIGUSR2 and at exit)\n"
		"      --pt-filter FILTER   trace only START-END[@FILE], START/SIZE[@FILE] or\n"
		"                           SYMBOL[@FILE] (default: the whole program)\n"
		"      --pt-aux-size SIZE   trace buffer per CPU (K, M, G suffixes)\n"
		"      --pt-data-size SIZE  sideband buffer per CPU\n"
		"      --pt-timing          add timing packets (MTC, CYC)\n"
		"      --pt-kernel          trace the kernel too (needs privileges)\n"
		"  -q, --quiet              no progress or summary on the terminal, and the\n"
		"                           QEMU run's output is discarded, not recorded\n"
		"  -h, --help               this help; 'gus help record' shows the manual\n");
}

/* SIZE with K/M/G suffixes into pages, a power of two from 2 to 2^20 */
static int parse_pages(const char *opt, const char *s, size_t *pages)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long psize = page > 0 ? (unsigned long long)page : 4096, bytes;
	if (gus_parse_size(opt, s, 2 * psize, psize << 20, &bytes))
		return GUS_EXIT_USAGE;
	unsigned long long n = bytes / psize;
	if (bytes % psize || (n & (n - 1)))
		return gus_usage_error("%s: '%s' must be a power-of-two number of pages from 8K to 4G", opt, s);
	*pages = (size_t)n;
	return 0;
}

/* --call-graph fp | dwarf[,SIZE], as perf record's: SIZE rounded up to 8 bytes */
static int parse_call_graph(const char *arg, struct recording_request *o)
{
	o->callgraph = true;
	o->dwarf_stack = 0;
	if (!strcmp(arg, "fp"))
		return 0;
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return gus_usage_error("record: --call-graph takes fp or dwarf[,SIZE], not '%s'", arg);
	unsigned long long v = 8192;
	int rc;
	if (arg[5] && (rc = gus_parse_uint("--call-graph dwarf,SIZE", arg + 6, 8, 65528, &v)))
		return rc;
	o->dwarf_stack = (unsigned)((v + 7) & ~7ULL);
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *opts)
{
	struct recording_request *o = &opts->rq;
	enum { OPT_STEP_WINDOWS = 1000 };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "tracer", required_argument, NULL, 'T' },
		{ "hot", required_argument, NULL, 'H' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, 'C' },
		{ "event", required_argument, NULL, 'e' },
		{ "max-insns", required_argument, NULL, 'X' },
		{ "window", required_argument, NULL, 'w' },
		{ "no-mem", no_argument, NULL, 'N' },
		{ "step-windows", required_argument, NULL, OPT_STEP_WINDOWS },
		{ "import-counts", required_argument, NULL, 'I' },
		{ "import-intervals", required_argument, NULL, 'V' },
		{ "spire", no_argument, NULL, 'P' },
		{ "spire-interval", required_argument, NULL, 'Q' },
		{ "spire-metrics", required_argument, NULL, 'R' },
		{ "spire-time", required_argument, NULL, 'U' },
		{ "spire-work", required_argument, NULL, 'W' },
		{ "spire-arch", required_argument, NULL, 'Y' },
		{ "arch", required_argument, NULL, 'A' },
		{ "smt", required_argument, NULL, 'S' },
		{ "user", no_argument, NULL, 'u' },
		{ "pt-mode", required_argument, NULL, 'm' },
		{ "pt-filter", required_argument, NULL, 'f' },
		{ "pt-aux-size", required_argument, NULL, 'a' },
		{ "pt-data-size", required_argument, NULL, 'd' },
		{ "pt-kernel", no_argument, NULL, 'k' },
		{ "pt-timing", no_argument, NULL, 't' },
		{ "no-trace", no_argument, NULL, 'n' },
		{ "read-events", required_argument, NULL, 'E' },
		{ "no-region-counts", no_argument, NULL, 'G' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(opts, 0, sizeof *opts);
	o->output = "gus.data";
	o->level = 3;
	o->hot = 5;
	o->freq = 4000;
	o->max_insns = 0;	/* the default of the mode: see --window */
	o->window_records = 5000;
	o->windows_per_level = 32;
	o->step_windows = 16;
	o->spire_interval = 100;
	o->smt = -1;
	o->pt.mode = COLLECT_PT_FULL;
	int c, rc;
	unsigned long long v;
	opterr = 0;
	while ((c = gus_getopt(argc, argv, "+o:l:F:ge:uqh", longopts, "record")) != -1) {
		const char *opt = gus_optname();
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'l':
			if ((rc = gus_parse_uint(opt, optarg, 1, 3, &v)))
				return rc;
			o->level = (int)v;
			break;
		case 'T':
			if (!strcmp(optarg, "auto"))
				o->tracer = RECORDING_TRACER_AUTO;
			else if (!strcmp(optarg, "pt"))
				o->tracer = RECORDING_TRACER_PT;
			else if (!strcmp(optarg, "qemu"))
				o->tracer = RECORDING_TRACER_QEMU;
			else if (!strcmp(optarg, "none"))
				o->tracer = RECORDING_TRACER_NONE;
			else
				return gus_usage_error("record: --tracer takes auto, pt, qemu or none, not '%s'", optarg);
			break;
		case 'H':
			if ((rc = gus_parse_uint(opt, optarg, 1, 100, &v)))
				return rc;
			o->hot = (unsigned)v;
			break;
		case 'F':
			if ((rc = gus_parse_uint(opt, optarg, 1, 100000, &v)))
				return rc;
			o->freq = (unsigned)v;
			break;
		case 'g': o->callgraph = true; o->dwarf_stack = 0; break;
		case 'C':
			if ((rc = parse_call_graph(optarg, o)))
				return rc;
			break;
		case 'e':
			if (strcmp(optarg, "cycles") && strcmp(optarg, "cpu-clock"))
				return gus_usage_error("record: -e takes cycles or cpu-clock, not '%s'", optarg);
			o->event = optarg;
			break;
		case 'X':
			if ((rc = gus_parse_uint(opt, optarg, 1000, 1000000000, &v)))
				return rc;
			o->max_insns = v;
			break;
		case 'w':
			if ((rc = gus_parse_uint(opt, optarg, 0, 100000000, &v)))
				return rc;
			if (v && v < 100)
				return gus_usage_error("record: --window takes 0 or at least 100 records, not '%s'", optarg);
			o->window_records = v;
			break;
		case 'N': o->no_mem = true; break;
		case OPT_STEP_WINDOWS:
			if ((rc = gus_parse_uint(opt, optarg, 0, 4096, &v)))
				return rc;
			o->step_windows = (unsigned)v;
			break;
		case 'I': o->import_counts = optarg; break;
		case 'V': o->import_intervals = optarg; break;
		case 'P': o->spire = true; break;
		case 'Q':
			if ((rc = gus_parse_uint(opt, optarg, 10, 3600000, &v)))
				return rc;
			o->spire_interval = (unsigned)v;
			break;
		case 'R': o->spire_metrics = optarg; o->spire = true; break;
		case 'U': o->spire_time = optarg; break;
		case 'W': o->spire_work = optarg; break;
		case 'Y': o->spire_arch = optarg; o->spire = true; break;
		case 'A': o->arch = optarg; break;
		case 'S':
			if (gus_parse_on_off("record: --smt", optarg, &o->smt))
				return GUS_EXIT_USAGE;
			break;
		case 'u': o->user_only = true; break;
		case 'm':
			if (!strcmp(optarg, "full"))
				o->pt.mode = COLLECT_PT_FULL;
			else if (!strcmp(optarg, "snapshot"))
				o->pt.mode = COLLECT_PT_SNAPSHOT;
			else
				return gus_usage_error("--pt-mode: '%s' is not full or snapshot", optarg);
			break;
		case 'f':
			if (o->nfilters == RECORDING_MAX_FILTERS)
				return gus_usage_error("--pt-filter: at most %d filters", RECORDING_MAX_FILTERS);
			o->filter_text[o->nfilters++] = optarg;
			break;
		case 'a':
			if ((rc = parse_pages(opt, optarg, &o->pt.aux_pages)))
				return rc;
			break;
		case 'd':
			if ((rc = parse_pages(opt, optarg, &o->pt.data_pages)))
				return rc;
			break;
		case 'k': o->pt.kernel = true; break;
		case 't': o->pt.timing = true; break;
		case 'n': o->tracer = RECORDING_TRACER_NONE; break;
		case 'E': o->read_events = optarg; break;
		case 'G': o->no_region_counts = true; break;
		case 'q':
			opts->quiet = true;
			o->discard_trace_output = true;
			break;
		case 'O': o->force = true; break;
		case 'h':
			record_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("record: option '-%c' %s", optopt,
						       strchr("olFe", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("record: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return gus_usage_error("record: no program given: gus record [options] -- program args");
	if (o->spire && o->import_intervals)
		return gus_usage_error("record: --spire counts the SPIRE samples, --import-intervals imports them: one of them");
	if ((o->spire_time || o->spire_work) && !o->spire && !o->import_intervals)
		return gus_usage_error("record: --spire-time and --spire-work go with --spire or --import-intervals");
	if (o->nfilters && (o->tracer == RECORDING_TRACER_QEMU || o->tracer == RECORDING_TRACER_NONE))
		return gus_usage_error("record: --pt-filter needs the pt tracer");
	o->argv = argv + optind;
	return 0;
}

/* ------------------------------------------------------------ messages --- */
/* ---------------------------------------------------------------- main --- */
int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	int rc = parse_args(argc, argv, &opts);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	struct recording_request *rq = &opts.rq;
	/* the program first: a typo should not cost a PT probe message */
	char exe[PATH_MAX];
	if ((rc = gus_find_program(rq->argv[0], exe, sizeof exe)))
		return rc;
	char *abs = realpath(exe, NULL);
	if (abs) {
		snprintf(exe, sizeof exe, "%s", abs);
		free(abs);
	}
	struct gus_progress progress;
	rq->exe = exe;
	rq->tma_dir = gus_tma_dir();
	rq->machines_dir = gus_data_dir("machines");
	rq->spire_dir = gus_data_dir("spire");
	rq->machine = gus_host_machine();
	rq->log = gus_progress_log(&progress, "record", opts.quiet, false);
	struct recording_summary sum;
	enum recording_status st = recording_run(rq, &sum);
	bool kept = st == RECORDING_OK || sum.write_failed;
	if (kept && !opts.quiet) {
		fprintf(stderr, "[ gus record: %llu %s samples, %zu hot region(s)", (unsigned long long)sum.samples,
			sum.sample_event, sum.regions);
		if (sum.interrupted)
			fprintf(stderr, ", interrupted (no trace run)");
		else if (sum.trace_interrupted)
			fprintf(stderr, ", trace cut short by an interrupt (what was traced is kept)");
		if (sum.trace_stopped && rq->window_records && isfinite(sum.trace_covers))
			fprintf(stderr, ", trace windows over the first %.*f %% of the run (--max-insns reached after %.2f s of "
				"%.2f s)", sum.trace_covers < 0.01 ? 1 : 0, 100 * sum.trace_covers, sum.trace_stop_seconds,
				sum.trace_seconds);
		else if (sum.trace_stopped && rq->window_records)
			fprintf(stderr, ", trace windows over the part of the run before --max-insns was reached");
		else if (sum.trace_ranges_cut)
			fprintf(stderr, ", trace cut at --max-insns in %zu of %zu hot range(s) (their first records; %s)",
				sum.trace_ranges_cut, sum.trace_ranges,
				sum.trace_stopped ? "the run was stopped there" : "--window 0");
		if (sum.stepped_ranges)
			fprintf(stderr, ", %zu range(s) single-stepped natively (%llu windows, %.1f s, %.1f s CPU)",
				sum.stepped_ranges, (unsigned long long)sum.stepped_windows, sum.step_seconds,
				sum.step_cpu_seconds);
		if (sum.counting)
			fprintf(stderr, ", %s", sum.counted ? "TMA counted" : "no TMA counts (see gus report)");
		else if (rq->import_counts)
			fprintf(stderr, ", TMA counts from %s", rq->import_counts);
		if (rq->spire)
			fprintf(stderr, ", %s", sum.spire_counted ? "SPIRE interval counts" : "no SPIRE samples (see gus report)");
		else if (rq->import_intervals)
			fprintf(stderr, ", SPIRE samples from %s", rq->import_intervals);
		fprintf(stderr, "; wrote %s%s ]\n", rq->output, sum.write_failed ? ", incomplete (see above)" : "");
	}
	/* once the program has run, its status is gus record's; an interrupt
	 * of the trace run ends gus as one of run 1 does (128 + SIGINT) */
	if (st == RECORDING_OK && sum.trace_interrupted && sum.program_status == 0)
		return 128 + SIGINT;
	if (st == RECORDING_OK)
		return sum.program_status;
	return gus_exit_for(st);
}
