/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Machine models (data/machines/FORMAT): sim_machine_read, then the
 * model's resources and a short loop (loads, an add, a division, a
 * backward branch) decoded against it and simulated. */
#include "fuzz.h"
#include "sim.h"

/* mov (%rdi),%rax; add %rbx,%rax; div %rcx; mov %rax,8(%rsi); vaddps
 * %ymm1,%ymm2,%ymm3; dec %r15; jne back */
static const uint8_t loop[] = { 0x48, 0x8b, 0x07, 0x48, 0x01, 0xd8, 0x48, 0xf7, 0xf1, 0x48, 0x89, 0x46,
				0x08, 0xc5, 0xec, 0x58, 0xd9, 0x49, 0xff, 0xcf, 0x75, 0xeb };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *buf;
	FILE *f = fuzz_file(data, size, &buf);
	struct sim_machine *m = sim_machine_read(f, "fuzz.mm", err, sizeof err);
	fclose(f);
	free(buf);
	if (!m)
		return 0;
	sim_machine_name(m);
	sim_machine_describe(m);
	sim_machine_width(m);
	for (unsigned r = 0; r < sim_nres(m); r++) {
		sim_res_name(m, r);
		sim_res_kind(m, r);
		sim_res_capacity(m, r);
	}
	sim_res_find(m, "INST_WINDOW");
	struct sim_code *code = sim_code_new(m);
	struct sim_rec *recs = NULL;
	size_t n = 0, per_iter = 0;
	if (!sim_stream_loop(code, 0x1000, loop, sizeof loop, 16, &recs, &n, &per_iter, err, sizeof err)) {
		struct sim_config cfg[2];
		for (unsigned r = 0; r < SIM_MAX_RES; r++)
			cfg[0].w[r] = 1, cfg[1].w[r] = 1.15;
		struct sim_session *s = sim_session_new(m, code, cfg, 2, 1, err, sizeof err);
		if (s) {
			struct sim_stats st[2];
			struct sim_events ev;
			sim_session_feed(s, recs, n / 2);
			sim_session_mark(s);
			sim_session_feed(s, recs + n / 2, n - n / 2);
			sim_session_finish(s, st, &ev);
			sim_stats_steady_cycles(&st[0], 8);
			sim_events_free(&ev);
			sim_session_free(s);
		}
	}
	free(recs);
	sim_code_free(code);
	sim_machine_free(m);
	return 0;
}
