/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus sim: the core model alone on a loop body (hex or ELF), with the
 * sensitivity analysis. Option parsing and calls into sim/ and merge/;
 * a real stream from recording/, or for a recording's function or range
 * the windows gus report simulates, from report/. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "merge.h"
#include "render.h"
#include "sim.h"
#include "recording.h"
#include "report.h"

struct sim_opts {
	const char *hex, *bin, *function, *range, *arch, *machine, *output, *svg, *address;
	unsigned long long range_start, range_end;	/* --range, parsed */
	const char *machine_note;	/* why the default model */
	const char *weights, *resources;
	unsigned iterations, threads;
	int data_level;		/* --data-in: 0 L1 ... 3 memory, -1 not given */
	double threshold;
	bool search, whole, alone;
	enum render_format fmt;
	/* --trace: a real stream */
	bool trace, qemu, no_mem, ptrace;
	bool from_start;	/* a recording: the region's first records, not gus report's windows */
	const char *recording;	/* --recording, -i or --pt: a gus.data, Intel PT or QEMU */
	char **argv;
	unsigned long long max_insns;
	bool max_insns_given;
	unsigned long long ptrace_window;	/* 0: the stepper's own */
};

static void sim_usage(FILE *out)
{
	fprintf(out,
		"usage: gus sim (--hex HEX | --bin FILE (--function SYM | --range START-END)) [options]\n"
		"       gus sim --trace (-i gus.data | --qemu) [--function SYM | --range START-END]\n"
		"               [options] [-- program args]\n"
		"\n"
		"Simulates a loop body, or the instruction stream of a real run, on the\n"
		"out-of-order core model and finds the resources that limit it by\n"
		"sensitivity analysis.\n"
		"\n"
		"      --hex HEX          loop body as hex bytes (repeated; a trailing backward\n"
		"                         branch closes the loop)\n"
		"      --address ADDR     where --hex's first byte sits (hex, default 0): the\n"
		"                         loop's place in the fetch windows\n"
		"      --bin FILE         x86-64 ELF file to read the code from, with\n"
		"      --function SYM     the function SYM (mangled or demangled, or FILE+0xADDR\n"
		"                         for code without a symbol; --trace: in the program,\n"
		"                         the recording's objects or a library it needs), or\n"
		"      --range START-END  the addresses [START, END) (hex, as in objdump)\n"
		"      --whole            simulate the whole function, not the innermost loop\n"
		"                         its time goes to (by the nest, or the trace's counts)\n"
		"      --alone            simulate that loop by itself, not inside the code\n"
		"                         around it (its parent loop, or the traced function)\n"
		"      --data-in LEVEL    --hex, --bin: where the loop's data lives, L1 (the\n"
		"                         default), L2, L3 or mem; its accesses are placed by\n"
		"                         their pointers' steps and what the L1 lacks comes\n"
		"                         from LEVEL (a trace has the real addresses)\n"
		"      --trace            simulate a real instruction stream, from\n"
		"      --qemu             the program after -- run under the QEMU tracer, or\n"
		"  -i, --recording FILE   the stream of a recording (gus record): its Intel PT or\n"
		"                         what its QEMU tracer stored (--pt FILE: the same); with\n"
		"                         --function or --range, the windows spread over the run\n"
		"                         that gus report simulates for that code\n"
		"      --from-start       a recording: the region's first records instead\n"
		"      --max-insns N      stream records to simulate (default 1000000; from a\n"
		"                         recording's windows 300000, as gus report)\n"
		"      --no-mem           ignore QEMU's data addresses (as with PT)\n"
		"      --ptrace           run natively, single-stepping the region with ptrace\n"
		"                         (taken by itself when QEMU cannot run the code)\n"
		"      --ptrace-window N  records stepped at each entry into the region\n"
		"                         (default 20000)\n"
		"      --arch NAME        machine model (default: the host's, or the nearest;\n"
		"                         see data/machines)\n"
		"      --machine FILE     machine model file (see data/machines/FORMAT)\n"
		"      --iterations N     iterations to simulate (default 200, more when the\n"
		"                         window needs longer to fill; a quarter, at least two\n"
		"                         window fills, is warm-up)\n"
		"      --weights LIST     capacity multipliers: 1.00,1.05,1.15 or FROM:TO:STEP\n"
		"                         (default 1.00:1.15:0.01)\n"
		"      --resources LIST   resources to accelerate, comma-separated; A+B is a set\n"
		"                         accelerated together (default: every resource the code uses)\n"
		"      --threshold PCT    speedup at the top weight that makes a bottleneck (default 1)\n"
		"      --no-search        do not search a balanced set when no resource pays alone\n"
		"      --threads N        threads for the sweep (default: all cores)\n"
		"      --json, --csv      machine-readable output\n"
		"  -o, --output FILE      write the report to FILE\n"
		"      --svg FILE         write the sensitivity heat-map as SVG\n"
		"  -h, --help             this help; 'gus help sim' shows the manual\n");
}

static int parse_args(int argc, char **argv, struct sim_opts *o)
{
	static const struct option longopts[] = {
		{ "hex", required_argument, NULL, 'H' },
		{ "address", required_argument, NULL, 'A' },
		{ "bin", required_argument, NULL, 'B' },
		{ "function", required_argument, NULL, 'F' },
		{ "range", required_argument, NULL, 'R' },
		{ "arch", required_argument, NULL, 'a' },
		{ "machine", required_argument, NULL, 'm' },
		{ "iterations", required_argument, NULL, 'I' },
		{ "weights", required_argument, NULL, 'w' },
		{ "resources", required_argument, NULL, 'r' },
		{ "threshold", required_argument, NULL, 't' },
		{ "no-search", no_argument, NULL, 'S' },
		{ "whole", no_argument, NULL, 'W' },
		{ "alone", no_argument, NULL, 'L' },
		{ "data-in", required_argument, NULL, 'D' },
		{ "trace", no_argument, NULL, 'X' },
		{ "qemu", no_argument, NULL, 'Q' },
		{ "pt", required_argument, NULL, 'P' },
		{ "recording", required_argument, NULL, 'P' },
		{ "max-insns", required_argument, NULL, 'M' },
		{ "from-start", no_argument, NULL, 'f' },
		{ "no-mem", no_argument, NULL, 'N' },
		{ "ptrace", no_argument, NULL, 'p' },
		{ "ptrace-window", required_argument, NULL, 'Y' },
		{ "threads", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	o->data_level = -1;
	o->arch = NULL;		/* the host's model, or the nearest */
	o->iterations = 0;	/* automatic: at least 200, and enough to fill the window */
	o->threshold = 0.01;
	o->search = true;
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	o->threads = np > 0 ? (unsigned)np : 1;
	int c;
	opterr = 0;
	unsigned long long v;
	while ((c = gus_getopt(argc, argv, "+i:o:h", longopts, "sim")) != -1) {
		switch (c) {
		case 'H': o->hex = optarg; break;
		case 'A':
			/* checked here, read by simrun_hex_code */
			if (gus_parse_address(gus_optname(), optarg, &v))
				return GUS_EXIT_USAGE;
			o->address = optarg;
			break;
		case 'B': o->bin = optarg; break;
		case 'F': o->function = optarg; break;
		case 'R':
			if (gus_parse_address_range(gus_optname(), optarg, &o->range_start, &o->range_end))
				return GUS_EXIT_USAGE;
			o->range = optarg;
			break;
		case 'a': o->arch = optarg; break;
		case 'm': o->machine = optarg; break;
		case 'I':
			if (gus_parse_unsigned(gus_optname(), optarg, 4, 10000000, &o->iterations))
				return GUS_EXIT_USAGE;
			break;
		case 'w': o->weights = optarg; break;
		case 'r': o->resources = optarg; break;
		case 't': {
			double pct;
			if (gus_parse_real(gus_optname(), optarg, 0, 1000, &pct))
				return GUS_EXIT_USAGE;
			o->threshold = pct / 100;
			break;
		}
		case 'S': o->search = false; break;
		case 'W': o->whole = true; break;
		case 'L': o->alone = true; break;
		case 'D':
			o->data_level = !strcasecmp(optarg, "L1") ? 0 : !strcasecmp(optarg, "L2") ? 1 :
					!strcasecmp(optarg, "L3") ? 2 :
					!strcasecmp(optarg, "mem") || !strcasecmp(optarg, "memory") ? 3 : -2;
			if (o->data_level == -2)
				return gus_usage_error("sim: --data-in: '%s' is not L1, L2, L3 or mem", optarg);
			break;
		case 'X': o->trace = true; break;
		case 'Q': o->qemu = o->trace = true; break;
		case 'i':
		case 'P': o->recording = optarg; o->trace = true; break;
		case 'N': o->no_mem = true; break;
		case 'f': o->from_start = true; break;
		case 'p': o->ptrace = true; break;
		case 'M':
		case 'Y':
			if (gus_parse_uint(gus_optname(), optarg, 100, SIMRUN_MAX_RECORDS, &v))
				return GUS_EXIT_USAGE;
			if (c == 'M') {
				o->max_insns = v;
				o->max_insns_given = true;
			} else {
				o->ptrace_window = v;
			}
			break;
		case 'T':
			if (gus_parse_unsigned(gus_optname(), optarg, 1, 1024, &o->threads))
				return GUS_EXIT_USAGE;
			break;
		case 'J': o->fmt = RENDER_JSON; break;
		case 'C': o->fmt = RENDER_CSV; break;
		case 'o': o->output = optarg; break;
		case 'G': o->svg = optarg; break;
		case 'h':
			sim_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("sim: option '-%c' %s", optopt,
						       strchr("io", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("sim: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if ((o->whole || o->alone) && !o->function)
		return gus_usage_error("sim: --whole and --alone go with --function");
	if (o->whole && o->alone)
		return gus_usage_error("sim: give --whole or --alone, not both");
	if (o->trace) {
		if (o->hex || o->bin)
			return gus_usage_error("sim: --trace takes its code from the stream, not --hex or --bin");
		if (o->data_level >= 0)
			return gus_usage_error("sim: --data-in is for --hex and --bin: a trace's accesses have their "
					       "addresses (--no-mem drops them)");
		o->qemu |= o->ptrace;	/* a live run too, natively */
		if (!!o->qemu + !!o->recording != 1)
			return gus_usage_error("sim: --trace needs exactly one of --qemu or --ptrace (with -- program) or "
					       "--recording FILE");
		if (o->qemu && optind >= argc)
			return gus_usage_error("sim: --qemu needs a program: gus sim --trace --qemu [options] -- program args");
		if (o->recording && o->ptrace_window)
			return gus_usage_error("sim: --ptrace-window is for a live run (--qemu or --ptrace), not --recording");
		if (o->from_start && !o->recording)
			return gus_usage_error("sim: --from-start goes with --recording (a live trace starts at the start)");
		if (o->recording && optind < argc)
			return gus_usage_error("sim: unexpected argument '%s' (--recording reads a recording)", argv[optind]);
		if (o->function && o->range)
			return gus_usage_error("sim: give --function or --range, not both");
		if (o->iterations)
			return gus_usage_error("sim: --iterations is for --hex and --bin; use --max-insns with --trace");
		o->argv = argv + optind;
		if (!o->max_insns)	/* single steps are slow */
			o->max_insns = o->ptrace ? 200000 : 1000000;
		/* before the program runs under QEMU: a bad -o or --svg would
		 * lose the run */
		if (outfile_check(o->output) || outfile_check(o->svg))
			return GUS_EXIT_ERROR;
		return 0;
	}
	if (o->max_insns || o->no_mem || o->ptrace || o->ptrace_window || o->from_start)
		return gus_usage_error("sim: --max-insns, --no-mem, --ptrace, --ptrace-window and --from-start go with --trace");
	if (optind < argc)
		return gus_usage_error("sim: unexpected argument '%s'", argv[optind]);
	if (!!o->hex + !!o->bin != 1)
		return gus_usage_error("sim: give exactly one of --hex HEX or --bin FILE");
	if (o->bin && !!o->function + !!o->range != 1)
		return gus_usage_error("sim: --bin needs exactly one of --function SYM or --range START-END");
	if (o->hex && (o->function || o->range))
		return gus_usage_error("sim: --function and --range go with --bin");
	if (o->address && !o->hex)
		return gus_usage_error("sim: --address goes with --hex");
	return 0;
}

/* the sensitivity analysis of a stream and its report; RUN (NULL: none)
 * is the run's estimate from the windows, which gus report gives where
 * the concatenated stream counts the same unit */
static int analyze_render(const struct sim_opts *o, const struct sim_machine *m, const struct sim_code *code,
			  const struct sim_source *src, const struct render_sim_info *info, const double *weights,
			  size_t nweights, const struct report_run_estimate *run)
{
	char err[1024];
	int rc = 0;
	uint8_t res[SIM_MAX_RES];
	struct sim_set sets[SIMRUN_MAX_SETS];
	size_t nres = 0, nsets = 0;
	if (o->resources) {
		/* the message names the resource as given, however long */
		size_t rlen = strlen(o->resources) + SIMRUN_RESOURCES_ERRLEN;
		char *rerr = malloc(rlen);
		if (!rerr)
			abort();
		if (simrun_parse_resources(m, o->resources, res, &nres, sets, &nsets, rerr, rlen))
			rc = gus_usage_error("%s", rerr);
		free(rerr);
		if (rc)
			return rc;
	} else {
		nres = simrun_default_resources(m, code, res);
	}
	struct sim_analysis_opts ao = { .weights = weights, .nweights = nweights, .resources = res, .nresources = nres,
					.sets = sets, .nsets = nsets, .threshold = o->threshold, .search = o->search,
					.threads = o->threads, .prune = true };
	struct sim_analysis an;
	if (sim_analyze(m, code, src, &ao, &an, err, sizeof err)) {
		gus_error("%s", err);
		return GUS_EXIT_ERROR;
	}
	if (run)
		report_run_estimate_apply(run, &an);
	struct outfile of;
	if (outfile_open(&of, o->output, stdout)) {
		rc = GUS_EXIT_ERROR;
	} else {
		render_sim(of.f, m, code, &an, info, o->fmt);
		if (outfile_close(&of, true))
			rc = GUS_EXIT_ERROR;
	}
	if (!rc && o->svg) {
		struct outfile sf;
		if (outfile_open(&sf, o->svg, NULL)) {
			rc = GUS_EXIT_ERROR;
		} else {
			render_sim_svg(sf.f, m, &an, info);
			if (outfile_close(&sf, true))
				rc = GUS_EXIT_ERROR;
		}
	}
	sim_analysis_free(&an);
	return rc;
}

/* ------------------------------------------------------------ trace --- */
static int sim_trace(struct sim_opts *o, const struct sim_machine *m, const double *weights, size_t nweights)
{
	/* the analysis goes to standard output when no -o is given: the
	 * program's own output then goes to standard error, so that the two
	 * never mix (JSON and CSV stay parseable); its input stays gus's */
	static const struct collect_stdio out_to_stderr = { -1, 2, -1 };
	struct recording_trace_opts to = {
		.argv = o->argv, .recording = o->recording, .function = o->function,
		.ptrace = o->ptrace, .step_window = o->ptrace_window, .step_max_given = o->max_insns_given,
		.range = o->range, .innermost = o->function && !o->whole, .alone = o->alone,
		.data_addresses = !o->no_mem, .max_insns = o->max_insns,
		.stdio = o->output ? NULL : &out_to_stderr,
		.log = *gus_terminal_log(),
	};
	struct recording_trace_region region;
	int rc = gus_exit_for(recording_trace_resolve(&to, m, &region));
	if (rc)
		return rc;
	struct simrun_collect tc = { .code = sim_code_new(m), .data_addresses = region.data_addresses };
	struct recording_trace_result tr;
	memset(&tr, 0, sizeof tr);
	/* a recording's function or range: the windows gus report simulates
	 * for that code, each alone too where the code is simulated whole (a
	 * loop picked inside the function has its own time) */
	struct report_stream rs = { .whole = NAN, .run = { .whole = NAN } };
	if (o->recording && region.restricted && !o->from_start) {
		struct report_stream_request rq = { .input = o->recording, .m = region.pick_loop ? NULL : m,
						    .file = region.program, .start = region.link.start,
						    .end = region.link.end, .bias = region.bias, .head = region.head,
						    .budget = o->max_insns_given ? (size_t)o->max_insns : 0,
						    .log = *gus_terminal_log() };
		if ((rc = gus_exit_for(report_region_stream(&rq, &tc, &rs))))
			goto out;
	}
	if (!rs.windows && (rc = gus_exit_for(recording_trace_run(&to, &region, simrun_collect_sink, &tc, &tr))))
		goto out;
	recording_trace_settle(&to, &region, m, &tr, &tc);
	if (tc.undecodable)
		gus_warn("%llu instruction(s) the model cannot decode were left out (first at 0x%llx: %s)",
			 (unsigned long long)tc.undecodable, (unsigned long long)tc.first_bad_ip, tc.first_bad);
	if (tc.n < 16) {
		gus_error("%s: %zu instruction(s) of %s in the stream: nothing to simulate",
			  o->recording ? o->recording : o->argv[0], tc.n, region.name);
		rc = GUS_EXIT_ERROR;
		goto out;
	}
	/* the first quarter warms caches, predictor and window up */
	struct sim_source src = simrun_source(&tc, region.restricted ? region.head : 0, region.focus);
	char source[PATH_MAX + 512], stream[PATH_MAX + sizeof rs.line + 512];
	snprintf(source, sizeof source, "%s:%s", region.program, region.name);
	if (rs.windows) {
		/* where the stream came from, as gus report says it */
		snprintf(stream, sizeof stream, "%s; the windows gus report simulates for this code%s%s (--from-start: its "
			 "first records instead)", rs.line, rs.budget_reached ? ", the first of them (--max-insns reached)" : "",
			 region.focus.end ? ", the loop's time inside them"
			 : o->alone && region.loop_note[0] ? ", the loop's records of them" : "");
	} else {
		recording_trace_describe(&to, &region, &tr, tc.n, stream, sizeof stream);
		size_t l = strlen(stream);
		if (o->recording && region.restricted)
			snprintf(stream + l, sizeof stream - l, "; the region's first records (%s)",
				 o->from_start ? "--from-start: gus report simulates windows spread over the run"
					       : rs.why_no_windows);
	}
	struct render_sim_info info = { .source = source, .machine_note = o->machine_note, .threshold = o->threshold,
				       .stream = stream, .loop_note = region.loop_note };
	/* a function or range of one object: its instructions, branch
	 * targets and rip-relative operands in that object's link-time
	 * addresses (objdump's), not where the traced run mapped it */
	if (region.restricted && region.bias) {
		sim_code_retext(tc.code, region.bias);
		info.addr_bias = region.bias;
	}
	/* a function simulated from its entry counts calls */
	if (region.restricted && o->function && !region.loop_note[0] && !region.focus.end)
		info.unit = "call";
	rc = analyze_render(o, m, tc.code, &src, &info, weights, nweights, region.focus.end ? NULL : &rs.run);
	/* the program's own failure is reported, the analysis stands */
	if (!rc && (tr.qemu || tr.stepped) && tr.exit_status)
		rc = tr.exit_status;
out:
	free(tc.recs);
	sim_code_free(tc.code);
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	char err[1024];
	/* the default: the host's model, said in the output */
	char note[512] = "";
	if (!o.machine && !o.arch) {
		o.arch = gus_host_machine();
		snprintf(note, sizeof note, "%s", gus_host_machine_why());
		o.machine_note = note;
	}
	/* a model file that is not there or cannot be read is an error (1),
	 * as every input file is; what the model says wrong, a usage error */
	if (o.machine && gus_check_readable("--machine", o.machine))
		return GUS_EXIT_ERROR;
	struct sim_machine *m = o.machine ? sim_machine_load(o.machine, err, sizeof err)
					  : sim_machine_find(gus_data_dir("machines"), o.arch, err, sizeof err);
	if (!m) {
		gus_error("%s", err);
		return GUS_EXIT_USAGE;
	}
	double *weights = NULL;
	size_t nweights = 0;
	char werr[256];
	if (simrun_parse_weights(o.weights ? o.weights : SIMRUN_DEFAULT_WEIGHTS, &weights, &nweights, werr,
				 sizeof werr)) {
		sim_machine_free(m);
		return gus_usage_error("%s", werr);
	}
	struct merge_code mc = { 0 };
	uint8_t *hexbytes = NULL;
	char source[600], loop_note[2048];
	if (o.trace) {
		rc = sim_trace(&o, m, weights, nweights);
		goto out;
	}
	if (o.hex) {
		if (simrun_hex_code(o.hex, o.address, &hexbytes, &mc.len, &mc.addr, err, sizeof err)) {
			rc = gus_usage_error("%s", err);
			goto out;
		}
		mc.bytes = hexbytes;
		snprintf(source, sizeof source, "loop body %.48s%s (%zu bytes)", o.hex, strlen(o.hex) > 48 ? "..." : "",
			 mc.len);
	} else {
		/* a file that is not there or cannot be read is an error (1) */
		if (gus_check_readable("--bin", o.bin)) {
			rc = GUS_EXIT_ERROR;
			goto out;
		}
		/* a function's time goes to its loops: simulate the innermost
		 * one unless told otherwise */
		if (merge_elf_sim_code(o.bin, o.function, o.range_start, o.range_end, o.whole ? NULL : m, &mc, source,
				       sizeof source, loop_note, sizeof loop_note, err, sizeof err)) {
			gus_error("%s", err);
			rc = GUS_EXIT_USAGE;
			goto out;
		}
	}

	struct sim_code *code = sim_code_new(m);
	struct simrun_loop lp;
	const struct sim_nest *nest = mc.nest.len && !o.alone ? &mc.nest : NULL;
	enum simrun_loop_status ls = simrun_loop(m, code, mc.addr, mc.bytes, mc.len, nest, o.iterations, &lp, err,
						 sizeof err);
	if (ls == SIMRUN_LOOP_TOO_LONG)
		rc = gus_usage_error("--iterations: %u iterations of %zu instructions is more than %u million to simulate",
				     lp.iterations, lp.per_iter, SIMRUN_MAX_RECORDS >> 20);
	if (lp.short_warmup)
		gus_warn("%u iterations are too few for the window to fill (%u needed): the result includes the warm-up",
			 lp.iterations, lp.needed);
	if (ls == SIMRUN_LOOP_UNDECODABLE) {
		gus_error("%s: %s", o.hex ? "--hex" : source, err);
		rc = GUS_EXIT_USAGE;
	}
	if (ls != SIMRUN_LOOP_OK) {
		sim_code_free(code);
		goto out;
	}
	if (o.data_level > 0) {
		static const char *const lv[] = { "L1", "L2", "L3", "memory" };
		lp.src.data_level = (unsigned)o.data_level;
		size_t l = strlen(source);
		snprintf(source + l, sizeof source - l, ", data in %s (--data-in)", lv[o.data_level]);
	}
	if (nest)
		simrun_nest_note(&lp, nest, loop_note + strlen(loop_note), sizeof loop_note - strlen(loop_note));
	struct render_sim_info info = { .source = source, .machine_note = o.machine_note, .iterations = lp.iterations,
				       .warmup = lp.warmup, .body_insns = lp.per_iter, .threshold = o.threshold,
				       .loop_note = o.hex ? NULL : loop_note };
	rc = analyze_render(&o, m, code, &lp.src, &info, weights, nweights, NULL);
	free(lp.recs);
	sim_code_free(code);
out:
	if (hexbytes)
		free(hexbytes);
	else
		merge_code_free(&mc);
	free(weights);
	sim_machine_free(m);
	return rc;
}
