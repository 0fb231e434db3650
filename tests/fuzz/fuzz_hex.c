/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gus sim --hex: the text of the option (sim_parse_hex), the bytes
 * decoded by the model's x86 decoder (sim_stream_loop, sim_find_loops,
 * sim_innermost_loop, the counters followed: sim_trips_by_execution,
 * sim_follow_path) and a few iterations simulated on the Sapphire
 * Rapids model (4 iterations: its scheduler, splits, L1 transfers) when
 * that stream is short, with a sensitivity analysis when it is very short,
 * the data taken to live at the level the byte count picks (--data-in) and
 * the first half of the body as a focus: the simulation, not the parsing,
 * is what costs time. */
#include "fuzz.h"
#include "sim.h"

static struct sim_machine *machine;

/* freed at exit, so that LeakSanitizer reports only what inputs leak */
static void free_machine(void)
{
	sim_machine_free(machine);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/data/machines/spr.mm", fuzz_srcdir());
	machine = sim_machine_load(path, err, sizeof err);
	if (!machine) {
		fprintf(stderr, "fuzz_hex: %s\n", err);
		exit(1);
	}
	atexit(free_machine);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *text = fuzz_cstr(data, size);
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc = sim_parse_hex(text, &bytes, &len, err, sizeof err);
	free(text);
	if (rc)
		return 0;
	/* the loop finders decode all of it again: on a quarter of the
	 * inputs (by the byte count), which keeps the target fast */
	if ((len & 3) == 0) {
		struct sim_loop loops[8];
		size_t nl = sim_find_loops(machine, 0x401000, bytes, len, loops, 8);
		uint64_t ls, le;
		sim_innermost_loop(machine, 0x401000, bytes, len, &ls, &le);
		/* the bytes as a function whose counters are followed (a short
		 * budget: an endless loop is one jmp away), and its path */
		double trips[8];
		sim_trips_by_execution(0x401000, bytes, len, loops, nl, 20000, trips);
		struct sim_path_rec *path;
		size_t np;
		if (!sim_follow_path(0x401000, bytes, len, loops, nl, 0x401000, 0x401000 + len, 512, 20000, &path, &np))
			free(path);
	}
	struct sim_code *code = sim_code_new(machine);
	struct sim_rec *recs = NULL;
	size_t n = 0, per_iter = 0;
	if (!sim_stream_loop(code, 0x401000, bytes, len, 4, &recs, &n, &per_iter, err, sizeof err)) {
		static const double weights[] = { 1.0, 1.15 };
		uint8_t res[SIM_MAX_RES];
		size_t nres = sim_nres(machine);
		for (size_t r = 0; r < nres; r++)
			res[r] = (uint8_t)r;
		struct sim_analysis_opts o = {
			.weights = weights, .nweights = 2, .resources = res, .nresources = nres,
			.threshold = 0.01, .search = true, .threads = 1,
		};
		struct sim_source src = { .recs = recs, .n = n, .mark = n / 2, .units = 2,
					  .focus_lo = 0x401000, .focus_hi = 0x401000 + len / 2,
					  .data_level = (unsigned)(len % 4) };
		struct sim_analysis a;
		if (n <= 24 && !sim_analyze(machine, code, &src, &o, &a, err, sizeof err))
			sim_analysis_free(&a);
		else if (n > 24 && n <= 96) {
			struct sim_config cfg;
			for (unsigned r = 0; r < SIM_MAX_RES; r++)
				cfg.w[r] = 1;
			struct sim_session *s = sim_session_new(machine, code, &cfg, 1, 1, err, sizeof err);
			if (s) {
				struct sim_stats st;
				struct sim_events ev;
				sim_session_data_level(s, (unsigned)(len % 4));
				sim_session_feed(s, recs, n);
				sim_session_finish(s, &st, &ev);
				sim_events_free(&ev);
				sim_session_free(s);
			}
		}
	}
	free(recs);
	sim_code_free(code);
	free(bytes);
	return 0;
}
