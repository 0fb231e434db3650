/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus script: the instruction stream printed one instruction per line
 * (address, symbol+offset, disassembly, branch outcome, data addresses),
 * like perf script --itrace=i, from a recording (its Intel PT, or the
 * stream its QEMU tracer stored) or the QEMU tracer run live. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "merge.h"
#include "render.h"
#include "sim.h"
#include "recording.h"

struct script_opts {
	const char *input, *function, *range, *output;
	bool qemu, no_mem, no_disasm;
	char **argv;
	unsigned long long max_insns;
};

static void script_usage(FILE *out)
{
	fprintf(out,
		"usage: gus script [-i gus.data] [options]\n"
		"       gus script --qemu [options] -- program args\n"
		"\n"
		"Prints the executed instructions, one per line: address, function+offset,\n"
		"disassembly, the outcome of branches and, from QEMU, data addresses.\n"
		"\n"
		"  -i, --input FILE       a recording's stream, Intel PT or QEMU (default gus.data)\n"
		"      --qemu             run the program after -- under the QEMU tracer\n"
		"      --function SYM     only the instructions of function SYM (in the program,\n"
		"                         the recording's objects or the libraries it needs)\n"
		"      --range START-END  only those in [START, END) (hex, link-time addresses)\n"
		"      --max-insns N      stop after N instructions (default: all)\n"
		"      --no-mem           no data addresses (QEMU)\n"
		"      --no-disasm        addresses and symbols only (faster)\n"
		"  -o, --output FILE      write to FILE\n"
		"  -h, --help             this help; 'gus help script' shows the manual\n");
}

static int parse_args(int argc, char **argv, struct script_opts *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "qemu", no_argument, NULL, 'Q' },
		{ "function", required_argument, NULL, 'F' },
		{ "range", required_argument, NULL, 'R' },
		{ "max-insns", required_argument, NULL, 'M' },
		{ "no-mem", no_argument, NULL, 'N' },
		{ "no-disasm", no_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	memset(o, 0, sizeof *o);
	int c;
	opterr = 0;
	unsigned long long start, end;
	while ((c = gus_getopt(argc, argv, "+i:o:h", longopts, "script")) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'Q': o->qemu = true; break;
		case 'F': o->function = optarg; break;
		case 'R':
			/* checked here, read by recording_trace_resolve */
			if (gus_parse_address_range(gus_optname(), optarg, &start, &end))
				return GUS_EXIT_USAGE;
			o->range = optarg;
			break;
		case 'N': o->no_mem = true; break;
		case 'D': o->no_disasm = true; break;
		case 'o': o->output = optarg; break;
		case 'M':
			if (gus_parse_uint(gus_optname(), optarg, 1, ULLONG_MAX, &o->max_insns))
				return GUS_EXIT_USAGE;
			break;
		case 'h':
			script_usage(stdout);
			return -1;
		case GUS_OPT_BAD: return GUS_EXIT_USAGE;
		default:
			if (optopt && optopt != '?')
				return gus_usage_error("script: option '-%c' %s", optopt,
						       strchr("io", optopt) ? "needs an argument" : "is unknown");
			return gus_usage_error("script: unknown option or missing argument in '%s'", argv[optind - 1]);
		}
	}
	if (o->qemu && o->input)
		return gus_usage_error("script: give -i FILE or --qemu, not both");
	if (o->qemu && optind >= argc)
		return gus_usage_error("script: --qemu needs a program: gus script --qemu [options] -- program args");
	if (!o->qemu && optind < argc)
		return gus_usage_error("script: unexpected argument '%s' (--qemu runs a program)", argv[optind]);
	if (o->function && o->range)
		return gus_usage_error("script: give --function or --range, not both");
	if (!o->qemu && !o->input)
		o->input = "gus.data";
	o->argv = argv + optind;
	return 0;
}

/* ----------------------------------------------------------- output --- */
struct script_ctx {
	FILE *out;
	struct sim_code *code;	/* disassembly, decoded once per address */
	struct recording_symbols *syms;
	bool write_error;
	bool have_thread;
	uint32_t thread;	/* of the last record printed */
};

static int script_sink(void *ctx, const struct stream_insn *v, size_t n)
{
	struct script_ctx *c = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct stream_insn *s = &v[i];
		if (s->flags & STREAM_GAP)
			fprintf(c->out, "  -- gap: trace data was lost or undecodable before this point --\n");
		/* the QEMU tracer's threads and windows */
		if (s->flags & STREAM_WINDOW && s->window)
			fprintf(c->out, "  -- process %u thread %u: window %u of traced range %u --\n", s->thread >> 16,
				s->thread & 0xffff, STREAM_WINDOW_INDEX(s->window), STREAM_WINDOW_RANGE(s->window));
		else if (c->have_thread && s->thread != c->thread)
			fprintf(c->out, "  -- process %u thread %u --\n", s->thread >> 16, s->thread & 0xffff);
		c->have_thread = true;
		c->thread = s->thread;
		uint64_t off = 0;
		const char *sym = recording_symbols_lookup(c->syms, s->ip, &off);
		char where[300];
		if (sym) {
			/* a symbol of an object the recording names: escaped text */
			char name[sizeof where];
			snprintf(where, sizeof where, "%s+0x%" PRIx64, render_text_escape(name, sizeof name, sym), off);
		} else {
			snprintf(where, sizeof where, "[unknown]");
		}
		/* built in a buffer so that padding never ends a line */
		char line[512];
		size_t k = (size_t)snprintf(line, sizeof line, "%16" PRIx64 " %-32s", s->ip, where);
		bool is_branch = false;
		if (c->code) {
			char err[128];
			long idx = sim_code_add(c->code, s->ip, s->bytes, s->size, err, sizeof err);
			const struct sim_insn *in = idx >= 0 ? sim_code_insn(c->code, (size_t)idx) : NULL;
			k += (size_t)snprintf(line + k, sizeof line - k, " %-40s", in ? in->text : "(bad)");
			is_branch = in && in->branch;
		} else {
			for (unsigned b = 0; b < s->size && k < sizeof line; b++)
				k += (size_t)snprintf(line + k, sizeof line - k, " %02x", s->bytes[b]);
		}
		if (is_branch && k < sizeof line)
			k += (size_t)snprintf(line + k, sizeof line - k, " %s",
					      s->flags & STREAM_TAKEN ? "taken" : "not taken");
		if (s->flags & STREAM_HAS_MEM)
			for (unsigned j = 0; j < s->nmem && k < sizeof line; j++)
				k += (size_t)snprintf(line + k, sizeof line - k, " [0x%" PRIx64 " %s]", s->mem[j],
						      (s->store_mask >> j & 1) ? "W" : "R");
		if (k >= sizeof line)
			k = sizeof line - 1;
		while (k && line[k - 1] == ' ')
			k--;
		line[k] = 0;
		fputs(line, c->out);
		fputc('\n', c->out);
	}
	if (ferror(c->out)) {
		c->write_error = true;
		return 1;
	}
	return 0;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? GUS_EXIT_OK : rc;
	struct recording_trace_opts to = {
		.argv = o.argv,
		.recording = o.qemu ? NULL : o.input,
		.function = o.function,
		.range = o.range,
		.data_addresses = !o.no_mem,
		.max_insns = o.max_insns,
		.log = *gus_terminal_log(),
	};
	struct recording_trace_region region;
	if ((rc = gus_exit_for(recording_trace_resolve(&to, NULL, &region))))
		return rc;
	char err[1024];
	struct sim_machine *m = NULL;
	struct script_ctx c = { 0 };
	if (!o.no_disasm) {
		m = sim_machine_find(gus_data_dir("machines"), "skx", err, sizeof err);
		if (!m) {
			gus_error("%s", err);
			return GUS_EXIT_ERROR;
		}
		c.code = sim_code_new(m);
	}
	if (!(c.syms = recording_symbols_new(&to, &region))) {
		rc = GUS_EXIT_ERROR;
		goto out;
	}
	struct outfile of;
	if (outfile_open(&of, o.output, stdout)) {
		rc = GUS_EXIT_ERROR;
		goto out;
	}
	c.out = of.f;
	struct recording_trace_result tr;
	rc = gus_exit_for(recording_trace_run(&to, &region, script_sink, &c, &tr));
	/* the stream stopped at a write error: outfile_close says which */
	if (c.write_error)
		rc = GUS_EXIT_ERROR;
	if (outfile_close(&of, rc == 0) || c.write_error)
		rc = GUS_EXIT_ERROR;
	if (!rc && tr.qemu && tr.exit_status)
		rc = tr.exit_status;
out:
	recording_symbols_free(c.syms);
	sim_code_free(c.code);
	sim_machine_free(m);
	return rc;
}
