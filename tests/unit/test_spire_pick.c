/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What gus stat --spire and gus record --spire count, as
 * recording_intervals_prepare picks it: the pick outlives the PMU facts it
 * was made from (its "# cpu:" line was once a pointer into a dead stack
 * frame, garbage wherever libpfm4 knew the host's PMU: AMD Zen 4 guests).
 * libpfm4 is forced to a Skylake-X, so the pick is the same on every host. */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "recording.h"
#include "tap.h"

/* a deep frame of other data over the stack the pick was made on */
static __attribute__((noinline)) unsigned smash_stack(void)
{
	volatile char junk[8192];
	memset((char *)junk, 0x5a, sizeof junk);
	unsigned s = 0;
	for (size_t i = 0; i < sizeof junk; i += 512)
		s += (unsigned char)junk[i];
	return s;
}

int main(void)
{
	char err[256];
	const char *td = getenv("TESTDIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/../data/spire", td ? td : "tests");
	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	if (collect_pfm_init(err, sizeof err)) {
		printf("1..0 # SKIP libpfm4: %s\n", err);
		return 0;
	}
	struct recording_spire_request rq = { .spire_dir = dir, .opt = "" };
	struct recording_spire_pick sp;
	int budget = 0;
	char note[256];
	struct recording_log log = { 0 };
	enum recording_status st = recording_intervals_prepare(&rq, &sp, &budget, note, sizeof note, &log);
	tap_ok(st == RECORDING_OK, "the skx set is picked for a (forced) skx PMU");
	if (st == RECORDING_OK) {
		unsigned s = smash_stack();
		tap_streq(sp.cpu, "skx", "the pick's CPU is still the PMU's name once its frame is gone (%u)", s);
		tap_ok(sp.set && sp.n > 0 && budget >= 1, "with the set's metrics (%zu) and a budget (%d)", sp.n, budget);
		recording_spire_pick_free(&sp);
	}
	/* --arch names the set: the CPU line is the request's */
	rq.arch = "clx";
	st = recording_intervals_prepare(&rq, &sp, &budget, note, sizeof note, &log);
	tap_ok(st == RECORDING_OK, "--arch clx picks the skx set");
	if (st == RECORDING_OK) {
		smash_stack();
		tap_streq(sp.cpu, "clx", "the CPU line is --arch's");
		recording_spire_pick_free(&sp);
	}
	collect_pfm_fini();
	return tap_done();
}
