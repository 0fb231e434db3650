/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core model on the paper's worked example and on one loop per
 * mechanism, with the Skylake-SP machine model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

static char err[512];
static const char *datadir;

static struct sim_machine *load(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", datadir, rel);
	struct sim_machine *m = sim_machine_load(path, err, sizeof err);
	if (!m)
		printf("# %s\n", err);
	return m;
}

/* cycles of one pass over the stream with resource RES (or none) at weight W */
static double run_once(const struct sim_machine *m, const struct sim_code *code, const struct sim_rec *recs,
		       size_t n, const char *res, double w, struct sim_stats *out)
{
	struct sim_config cfg;
	for (int i = 0; i < SIM_MAX_RES; i++)
		cfg.w[i] = 1;
	if (res) {
		int r = sim_res_find(m, res);
		if (r < 0) {
			printf("# no resource %s\n", res);
			return -1;
		}
		cfg.w[r] = w;
	}
	struct sim_session *s = sim_session_new(m, code, &cfg, 1, 1, err, sizeof err);
	if (!s)
		return -1;
	sim_session_feed(s, recs, n);
	struct sim_stats st;
	struct sim_events ev;
	sim_session_finish(s, &st, &ev);
	sim_events_free(&ev);
	sim_session_free(s);
	if (out)
		*out = st;
	return st.cycles;
}

static void test_paper_example(void)
{
	struct sim_machine *m = load("tests/fixtures/paper-fig4.mm");
	if (!tap_ok(m != NULL, "paper machine loads"))
		return;
	/* Figure 4: instruction and the ports it may use */
	static const char *const seq[][2] = {
		{ "mul", "p1" }, { "sbb", "p06" }, { "rol", "p06" }, { "bsf", "p1" },
		{ "rol", "p06" }, { "pop", "p23" }, { "mov", "p23" }, { "sahf", "p06" },
		{ "movsx", "p23" }, { "sahf", "p06" }, { "sbb", "p06" }, { "xor", "p0156" },
	};
	struct sim_code *code = sim_code_new(m);
	struct sim_rec recs[12];
	memset(recs, 0, sizeof recs);
	for (int i = 0; i < 12; i++) {
		long idx = sim_code_add_abstract(code, 0x1000 + (uint64_t)i, seq[i][0], seq[i][1], 1, err, sizeof err);
		tap_ok(idx == i, "abstract %s on %s", seq[i][0], seq[i][1]);
		recs[i].insn = (uint32_t)idx;
	}
	tap_near(run_once(m, code, recs, 12, NULL, 1, NULL), 4, 1e-9, "Figure 5: 4 cycles nominal");
	tap_near(run_once(m, code, recs, 12, "p1", 2, NULL), 3, 1e-9, "Figure 8: 3 cycles with port 1 doubled");
	tap_near(run_once(m, code, recs, 12, "p06", 2, NULL), 4, 1e-9,
		 "no gain from doubling the saturated port-6 group");
	sim_code_free(code);
	sim_machine_free(m);
}

int main(void)
{
	datadir = getenv("GUS_TOP") ? getenv("GUS_TOP") : GUS_ABS_SRCDIR;
	test_paper_example();
	return tap_done();
}
